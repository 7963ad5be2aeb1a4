/* import_check.c - what the import's tests share (import_check.h). */
#include "import_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "harness.h"
#include "test_main.h"

rs_problem_t it_problem(void) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 32768;
    p.n_ranks = 4;
    return p;
}

rs_import_opts_t it_opts(void) {
    rs_import_opts_t o;
    rs_import_opts_default(&o);
    o.problem = it_problem();
    return o;
}

rs_import_t *it_import1(const char *path, const rs_import_opts_t *o, rs_err_t *err) {
    const char *paths[1] = {path};
    return rs_import_read(paths, 1, o, err);
}

void it_same_events(const rs_trace_t *want, const rs_trace_t *got, double tol_s) {
    CU_ASSERT_EQUAL_FATAL(rs_trace_count(want), rs_trace_count(got));
    const rs_event_t *a = rs_trace_events(want), *b = rs_trace_events(got);
    int bad = 0;
    for (size_t i = 0; i < rs_trace_count(want); i++) {
        bool ok = a[i].rank == b[i].rank && a[i].step == b[i].step && a[i].pass == b[i].pass && a[i].kind == b[i].kind &&
                  a[i].peer == b[i].peer && a[i].flops == b[i].flops && a[i].bytes == b[i].bytes &&
                  fabs(a[i].start_s - b[i].start_s) <= tol_s && fabs(a[i].end_s - b[i].end_s) <= tol_s;
        if (!ok && bad++ < 3)
            fprintf(stderr, "  event %zu: want r%d s%d %s %s [%.12g, %.12g] got r%d s%d %s %s [%.12g, %.12g]\n", i, a[i].rank, a[i].step,
                    rs_pass_name(a[i].pass), rs_event_kind_name(a[i].kind), a[i].start_s, a[i].end_s, b[i].rank, b[i].step,
                    rs_pass_name(b[i].pass), rs_event_kind_name(b[i].kind), b[i].start_s, b[i].end_s);
        CU_ASSERT(ok);
    }
    /* role events: the same roles of the same steps, spans and busy times */
    CU_ASSERT_EQUAL_FATAL(rs_trace_role_count(want), rs_trace_role_count(got));
    const rs_role_event_t *x = rs_trace_roles(want), *y = rs_trace_roles(got);
    for (size_t i = 0; i < rs_trace_role_count(want); i++) {
        bool ok = rs_role_event_cmp(&x[i], &y[i]) == 0 && fabs(x[i].start_s - y[i].start_s) <= tol_s && fabs(x[i].end_s - y[i].end_s) <= tol_s &&
                  fabs(x[i].busy_s - y[i].busy_s) <= tol_s;
        if (!ok && bad++ < 6)
            fprintf(stderr, "  role %zu: want r%d s%d %s %s [%.12g, %.12g] busy %.12g got r%d s%d %s [%.12g, %.12g] busy %.12g\n", i, x[i].rank,
                    x[i].step, rs_pass_name(x[i].pass), rs_role_name(x[i].role), x[i].start_s, x[i].end_s, x[i].busy_s, y[i].rank, y[i].step,
                    rs_role_name(y[i].role), y[i].start_s, y[i].end_s, y[i].busy_s);
        CU_ASSERT(ok);
    }
}

void it_check_import(const fx_run_t *ran, rs_import_t *im, int occurrence) {
    CU_ASSERT_PTR_NOT_NULL_FATAL(im);
    /* what a step holds depends on how steps were found (the forward's epilogue joins its last step
     * when steps come from the launch order), not on whether the files have ranges */
    fx_run_t view = *ran;
    view.o.ranges = rs_import_info(im)->ranges;
    const fx_run_t *run = &view;
    int want_traces = run->o.forward + run->o.backward;
    CU_ASSERT_EQUAL_FATAL(rs_import_n_traces(im), (size_t)want_traces);
    CU_ASSERT_EQUAL(rs_import_info(im)->n_ranks, run->o.n_ranks);
    for (size_t i = 0; i < rs_import_n_traces(im); i++) {
        const rs_trace_t *t = rs_import_trace(im, i);
        rs_problem_t p, want = it_problem();
        rs_err_t err;
        CU_ASSERT_EQUAL_FATAL(rs_trace_problem(t, &p, &err), 0);
        rs_pass_t pass = i == 0 && run->o.forward ? RS_PASS_FORWARD : RS_PASS_BACKWARD;
        want.n_ranks = run->o.n_ranks;
        want.pass = pass;
        if (run->o.impl != FX_RFA) want.grad_bytes = 2; /* TE and PyTorch CP send dK,dV in bf16 */
        CU_ASSERT(memcmp(&p, &want, sizeof p) == 0); /* the problem header: given fields + inferred N and pass */
        CU_ASSERT_STRING_EQUAL(rs_trace_source(t), "import");
        rs_trace_t *exp = fx_expected(run, pass, occurrence, 0, &want);
        CU_ASSERT_PTR_NOT_NULL_FATAL(exp);
        it_same_events(exp, t, 1e-12);
        rs_trace_free(exp);
        /* kernels behind each event: every kernel of the step, attention among them */
        int n = run->o.n_ranks;
        for (int r = 0; r < n; r++)
            for (int k = 0; k < (pass == RS_PASS_FORWARD ? n : n + 1); k++) {
                const rs_import_kernel_t *ks;
                size_t nk = rs_import_kernels(im, i, r, k, &ks);
                if (nk != fx_step_kernels(run, r, pass, occurrence, k)) {
                    fprintf(stderr, "  rank %d %s step %d: %zu kernels, the fixture has %zu:", r, rs_pass_name(pass), k, nk,
                            fx_step_kernels(run, r, pass, occurrence, k));
                    for (size_t j = 0; j < nk; j++) fprintf(stderr, " %s", rs_kernel_role_name(ks[j].role));
                    fprintf(stderr, "\n");
                }
                CU_ASSERT_EQUAL(nk, fx_step_kernels(run, r, pass, occurrence, k));
                for (size_t j = 1; j < nk; j++) CU_ASSERT(ks[j - 1].start_s <= ks[j].start_s);
                size_t n_attn = 0;
                for (size_t j = 0; j < nk; j++) n_attn += ks[j].role <= RS_KROLE_ATTN_BWD;
                CU_ASSERT_EQUAL(n_attn, pass == RS_PASS_FORWARD ? 1 : (run->o.impl == FX_TE ? 2 : 3) * (k < n));
            }
    }
}

const char *it_kineto_dir(const char *name, const fx_opts_t *fo, bool gzip, fx_run_t *run) {
    fx_opts_t d;
    fx_opts_default(&d);
    CU_ASSERT_EQUAL_FATAL(fx_generate(fo ? fo : &d, run), 0);
    const char *dir = rs_test_fresh_dir(name);
    CU_ASSERT_EQUAL_FATAL(fx_write_kineto(run, dir, gzip, 0), 0);
    return dir;
}

void it_check_one_process(bool nsys) {
    for (int ranges = 0; ranges < 2; ranges++) {
        fx_opts_t fo;
        fx_opts_default(&fo);
        fo.one_process = true;
        fo.ranges = ranges;
        fx_run_t run;
        char in[1100];
        if (nsys) {
            CU_ASSERT_EQUAL_FATAL(fx_generate(&fo, &run), 0);
            it_nsys_db(&run, "one", in, sizeof in);
        } else {
            snprintf(in, sizeof in, "%s", it_kineto_dir("one", &fo, ranges, &run)); /* gzip with ranges */
        }
        rs_import_opts_t o = it_opts();
        rs_err_t err = {0};
        rs_import_t *im = it_import1(in, &o, &err);
        if (!im) fprintf(stderr, "  %s: %s\n", in, err.msg);
        it_check_import(&run, im, 0);
        CU_ASSERT_EQUAL(rs_import_info(im)->n_files, 1);
        CU_ASSERT_EQUAL(rs_import_info(im)->ranges, fo.ranges);
        rs_import_free(im);
        fx_free(&run);
    }
}

void it_nsys_db(const fx_run_t *run, const char *name, char *db, size_t len) {
    char sql[1024];
    snprintf(sql, sizeof sql, "%s/%s.sql", rs_test_dir, name);
    snprintf(db, len, "%s/%s.sqlite", rs_test_dir, name);
    FILE *fp = fopen(sql, "w");
    CU_ASSERT_FATAL(fp != NULL);
    CU_ASSERT_EQUAL(fx_write_nsys_sql(run, fp), 0);
    fclose(fp);
    CU_ASSERT_EQUAL_FATAL(fx_sql_to_sqlite(sql, db), 0);
}

void it_truncate_copy(const char *src, const char *dst, long keep) {
    FILE *a = fopen(src, "rb"), *b = fopen(dst, "wb");
    CU_ASSERT_FATAL(a && b);
    char buf[4096];
    long left = keep;
    size_t n;
    while (left > 0 && (n = fread(buf, 1, left < 4096 ? (size_t)left : 4096, a)) > 0) {
        fwrite(buf, 1, n, b);
        left -= (long)n;
    }
    fclose(a), fclose(b);
}

char *it_gunzip(const char *path) {
    gzFile f = gzopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    int k;
    while (b && (k = gzread(f, b + n, (unsigned)(cap - n - 1))) > 0) {
        n += (size_t)k;
        if (cap - n < 2) b = realloc(b, cap *= 2);
    }
    gzclose(f);
    if (b) b[n] = 0;
    return b;
}

void it_expect_fail(const char *path, const rs_import_opts_t *o, const char *needle, rs_errc_t code) {
    rs_err_t err = {0};
    rs_import_t *im = it_import1(path, o, &err);
    CU_ASSERT_PTR_NULL(im);
    rs_import_free(im);
    if (!strstr(err.msg, needle)) fprintf(stderr, "  error '%s' lacks '%s'\n", err.msg, needle);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, needle));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    CU_ASSERT_EQUAL(err.code, code);
}

void it_bad_kineto(const char *name, void (*tweak)(fx_opts_t *), bool ranges, const char *needle) {
    fx_opts_t fo;
    fx_opts_default(&fo);
    fo.ranges = ranges;
    tweak(&fo);
    fx_run_t run;
    const char *dir = it_kineto_dir(name, &fo, false, &run);
    rs_import_opts_t o = it_opts();
    it_expect_fail(dir, &o, needle, RS_ERR_BAD_INPUT);
    fx_free(&run);
}
