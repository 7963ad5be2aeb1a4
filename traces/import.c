/* import.c - the import (import.h): GPU traces of a ring-attention run -> one ringsim trace per pass.
 * The files are listed and sniffed (import_files.c), read into the raw store (import_raw.c) by the
 * readers (import_kineto.c, import_nsys.c), put in ring order and assigned to steps (import_steps.c);
 * here each (rank, step) becomes its events, checked against the schedule. The rules are documented
 * in docs/import.md; the kernel list CSV is import_kernels_csv.c. */
#include "import.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_files.h"
#include "import_readers.h"
#include "import_steps.h"

typedef struct {
    rs_trace_t *trace;
    int n_ranks, n_steps;
    size_t *kofs;                 /* [n_ranks * n_steps + 1] offsets into kernels */
    rs_import_kernel_t *kernels;  /* grouped by (rank, step), sorted by start within */
} imp_pass_t;

struct rs_import {
    rs_import_info_t info;
    char **names;                 /* kernel names (owned) */
    uint32_t n_names;
    imp_pass_t pass[RS_PASS_COUNT];
    size_t n_pass;
};

void rs_import_opts_default(rs_import_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->use_ranges = true;
    rs_problem_default(&o->problem);
}

const rs_import_info_t *rs_import_info(const rs_import_t *im) { return &im->info; }
size_t rs_import_n_traces(const rs_import_t *im) { return im->n_pass; }
const rs_trace_t *rs_import_trace(const rs_import_t *im, size_t i) { return i < im->n_pass ? im->pass[i].trace : NULL; }

size_t rs_import_kernels(const rs_import_t *im, size_t i, int32_t rank, int32_t step, const rs_import_kernel_t **out) {
    *out = NULL;
    if (i >= im->n_pass) return 0;
    const imp_pass_t *p = &im->pass[i];
    if (rank < 0 || rank >= p->n_ranks || step < 0 || step >= p->n_steps) return 0;
    size_t j = (size_t)rank * (size_t)p->n_steps + (size_t)step;
    *out = p->kernels + p->kofs[j];
    return p->kofs[j + 1] - p->kofs[j];
}

void rs_import_free(rs_import_t *im) {
    if (!im) return;
    for (size_t i = 0; i < im->n_pass; i++) {
        rs_trace_free(im->pass[i].trace);
        free(im->pass[i].kofs);
        free(im->pass[i].kernels);
    }
    for (uint32_t i = 0; i < im->n_names; i++) free(im->names[i]);
    free(im->names);
    free(im);
}

static int ikernel_cmp(const void *a, const void *b) {
    const rs_import_kernel_t *x = a, *y = b;
    if (x->start_s != y->start_s) return x->start_s < y->start_s ? -1 : 1;
    if (x->end_s != y->end_s) return x->end_s < y->end_s ? -1 : 1;
    return (x->role > y->role) - (x->role < y->role);
}

/* Ring order of the raw ranks: by global rank when every one has a distinct one, else as read. */
static int order_ranks(rs_raw_t *raw, rs_err_t *err) {
    size_t n = raw->n_ranks;
    bool all = n > 0;
    for (size_t i = 0; i < n; i++) all = all && raw->ranks[i].rank_key >= 0;
    if (!all) return 0;
    for (size_t i = 1; i < n; i++) { /* insertion sort: n is small, order is stable */
        rs_raw_rank_t x = raw->ranks[i];
        size_t j = i;
        while (j > 0 && raw->ranks[j - 1].rank_key > x.rank_key) {
            raw->ranks[j] = raw->ranks[j - 1];
            j--;
        }
        raw->ranks[j] = x;
    }
    for (size_t i = 1; i < n; i++)
        if (raw->ranks[i].rank_key == raw->ranks[i - 1].rank_key)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %lld again (also in %s): give the files of one run, one per rank", raw->ranks[i].file,
                           (long long)raw->ranks[i].rank_key, raw->ranks[i - 1].file);
    return 0;
}

/* One (rank, step) of a ring pass and the kernels behind it. */
typedef struct {
    const char *file;              /* the rank's file, for messages */
    int rank, step;                /* ring rank and step */
    int inst;                      /* which ring pass of its kind (the occurrence), for messages */
    const rs_import_kernel_t *ks;  /* [nk] its kernels, sorted by start */
    size_t nk;
} step_kernels_t;

/* Events of one (rank, step) from its kernels, checked against the schedule s, appended to t.
 * prev_end_s: where the previous step ended (a step without kernels starts there); set to where this
 * one ends. */
static int step_events(rs_trace_t *t, const rs_schedule_t *s, const step_kernels_t *sk, double *prev_end_s, rs_err_t *err) {
    const int rank = sk->rank, step = sk->step, inst = sk->inst;
    const rs_import_kernel_t *ks = sk->ks;
    const size_t nk = sk->nk;
    rs_step_t st;
    rs_schedule_step(s, rank, step, &st);
    rs_pass_t pass = st.pass;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}; /* compute, send, recv */
    for (size_t i = 0; i < nk; i++) {
        const rs_import_kernel_t *k = &ks[i];
        int lanes[2] = {-1, -1};
        if (k->role == RS_KROLE_ATTN_FWD || k->role == RS_KROLE_ATTN_BWD) lanes[0] = 0;
        if (k->role == RS_KROLE_SENDRECV || k->role == RS_KROLE_SEND) lanes[0] = 1;
        if (k->role == RS_KROLE_SENDRECV || k->role == RS_KROLE_RECV) lanes[1] = 2;
        for (int j = 0; j < 2; j++)
            if (lanes[j] >= 0) lo[lanes[j]] = fmin(lo[lanes[j]], k->start_s), hi[lanes[j]] = fmax(hi[lanes[j]], k->end_s);
    }
    const char *f = sk->file, *pn = rs_pass_name(pass);
    if (!st.has_compute && isfinite(lo[0]))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d step %d: attention kernels in the tail step (it only brings dK,dV home)",
                       f, rank, pn, inst, step);
    if (st.n_send > 0 && !isfinite(lo[1]))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d step %d: no SendRecv kernel (the schedule sends %s to rank %lld here)",
                       f, rank, pn, inst, step, st.send[0].kind == RS_XFER_KV ? "K,V" : "dK,dV", (long long)st.send_peer);
    if (st.n_recv > 0 && !isfinite(lo[2]))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d step %d: no SendRecv kernel receiving (the schedule receives from rank %lld here)",
                       f, rank, pn, inst, step, (long long)st.recv_peer);
    if (st.n_send == 0 && (isfinite(lo[1]) || isfinite(lo[2])))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d step %d: a SendRecv kernel in a step that moves nothing (the forward's last step)",
                       f, rank, pn, inst, step);
    double s0 = fmin(lo[0], fmin(lo[1], lo[2])), s1 = fmax(hi[0], fmax(hi[1], hi[2]));
    if (!isfinite(s0)) s0 = s1 = *prev_end_s; /* a step without kernels (a rank that skips a masked block) */
    int rc = 0;
    if (st.has_compute) {
        double c0 = isfinite(lo[0]) ? lo[0] : s0, c1 = isfinite(lo[0]) ? hi[0] : s0;
        rs_event_t e = {rank, step, pass, RS_EV_COMPUTE, -1, c0, c1, (double)st.flops_exec, 0};
        rc |= rs_trace_add(t, &e);
    }
    if (st.n_send > 0) {
        rs_event_t e = {rank, step, pass, RS_EV_SEND, (int32_t)st.send_peer, lo[1], hi[1], 0, (double)st.send_bytes};
        rc |= rs_trace_add(t, &e);
    }
    if (st.n_recv > 0) {
        rs_event_t e = {rank, step, pass, RS_EV_RECV, (int32_t)st.recv_peer, lo[2], hi[2], 0, (double)st.recv_bytes};
        rc |= rs_trace_add(t, &e);
    }
    rs_event_t e = {rank, step, pass, RS_EV_STEP, -1, s0, s1, 0, 0};
    rc |= rs_trace_add(t, &e);
    *prev_end_s = s1;
    return rc ? rs_errf(err, "out of memory") : 0;
}

typedef struct {
    const rs_raw_t *raw;
    const rs_import_opts_t *o;
    rs_steps_t *as;      /* [n_ranks] */
    int n;               /* N */
    int occurrence;      /* which ring pass */
    const char *mode;    /* "ranges" | "launch-order" */
    const char *inputs;  /* for the header */
    size_t n_files;
} build_ctx_t;

/* The trace of one pass (occurrence c->occurrence on every rank). */
static int build_pass(const build_ctx_t *c, rs_pass_t pass, int n_found, imp_pass_t *out, rs_err_t *err) {
    const rs_raw_t *raw = c->raw;
    int n = c->n, n_steps = pass == RS_PASS_FORWARD ? n : n + 1;
    rs_problem_t p = c->o->problem;
    p.n_ranks = n;
    p.pass = pass;
    if (rs_problem_validate(&p, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT); /* the options given */
    rs_schedule_t *s = rs_schedule_create(&p, err);
    if (!s) return -1;
    int *sel = calloc((size_t)n, sizeof *sel); /* instance index per rank */
    size_t nk = 0;
    int64_t origin = INT64_MAX;
    for (int r = 0; r < n && sel; r++) {
        int seen = -1;
        for (int i = 0; i < c->as[r].n_insts; i++)
            if (c->as[r].insts[i].pass == pass && ++seen == c->occurrence) sel[r] = i;
        for (size_t i = 0; i < raw->ranks[r].nk; i++)
            if (c->as[r].inst[i] == sel[r]) {
                nk++;
                origin = raw->ranks[r].k[i].start_ns < origin ? raw->ranks[r].k[i].start_ns : origin;
            }
    }
    out->n_ranks = n;
    out->n_steps = n_steps;
    out->kofs = calloc((size_t)n * (size_t)n_steps + 1, sizeof *out->kofs);
    out->kernels = malloc((nk ? nk : 1) * sizeof *out->kernels);
    out->trace = rs_trace_create("import");
    int rc = (!sel || !out->kofs || !out->kernels || !out->trace) ? rs_errf(err, "out of memory") : 0;
    /* kernels grouped by (rank, step): count, prefix sums, fill, sort */
    for (int r = 0; rc == 0 && r < n; r++)
        for (size_t i = 0; i < raw->ranks[r].nk; i++)
            if (c->as[r].inst[i] == sel[r]) out->kofs[(size_t)r * n_steps + c->as[r].step[i] + 1]++;
    for (size_t j = 0; rc == 0 && j < (size_t)n * n_steps; j++) out->kofs[j + 1] += out->kofs[j];
    size_t *fill = rc == 0 ? calloc((size_t)n * n_steps, sizeof *fill) : NULL;
    if (rc == 0 && !fill) rc = rs_errf(err, "out of memory");
    for (int r = 0; rc == 0 && r < n; r++)
        for (size_t i = 0; i < raw->ranks[r].nk; i++) {
            if (c->as[r].inst[i] != sel[r]) continue;
            const rs_raw_kernel_t *k = &raw->ranks[r].k[i];
            size_t j = (size_t)r * n_steps + c->as[r].step[i];
            out->kernels[out->kofs[j] + fill[j]++] = (rs_import_kernel_t){
                (double)(k->start_ns - origin) * 1e-9, (double)(k->end_ns - origin) * 1e-9, raw->names[k->name],
                (rs_kernel_role_t)k->role, k->device, k->stream};
        }
    free(fill);
    for (size_t j = 0; rc == 0 && j < (size_t)n * n_steps; j++)
        if (out->kofs[j + 1] - out->kofs[j] > 1)
            qsort(out->kernels + out->kofs[j], out->kofs[j + 1] - out->kofs[j], sizeof *out->kernels, ikernel_cmp);
    for (int r = 0; rc == 0 && r < n; r++) {
        double prev_end = 0;
        for (int k = 0; rc == 0 && k < n_steps; k++) {
            size_t j = (size_t)r * n_steps + k;
            const step_kernels_t sk = {raw->ranks[r].file, r, k, c->occurrence, out->kernels + out->kofs[j],
                                       out->kofs[j + 1] - out->kofs[j]};
            rc = step_events(out->trace, s, &sk, &prev_end, err);
        }
    }
    if (rc == 0) {
        rs_trace_t *t = out->trace;
        rc |= rs_trace_set_meta(t, "backend", "import");
        rc |= rs_trace_meta_problem(t, &p);
        rc |= rs_trace_set_meta(t, "import.format", "%s", rs_import_format_name(c->o->format));
        rc |= rs_trace_set_meta(t, "import.files", "%zu", c->n_files);
        rc |= rs_trace_set_meta(t, "import.input", "%s", c->inputs);
        rc |= rs_trace_set_meta(t, "import.steps_from", "%s", c->mode);
        if (!strcmp(c->mode, "ranges")) rc |= rs_trace_set_meta(t, "import.step_regex", "%s", c->o->step_regex ? c->o->step_regex : RS_IMPORT_STEP_REGEX);
        if (c->o->kernel_regex) rc |= rs_trace_set_meta(t, "import.kernel_regex", "%s", c->o->kernel_regex);
        rc |= rs_trace_set_meta(t, "import.occurrence", "%d", c->occurrence);
        rc |= rs_trace_set_meta(t, "import.occurrences", "%d", n_found);
        rc |= rs_trace_set_meta(t, "import.kernels", "%zu", nk);
        rc |= rs_trace_set_meta(t, "import.origin_ns", "%lld", (long long)origin);
        if (raw->gpu_name[0]) rc |= rs_trace_set_meta(t, "import.gpu", "%s", raw->gpu_name);
        if (rc) rc = rs_errf(err, "out of memory");
        rs_trace_sort(t);
    }
    free(sel);
    rs_schedule_free(s);
    return rc;
}

/* Read every file into raw. */
static int read_all(rs_raw_t *raw, const rs_strlist_t *files, rs_import_opts_t *o, rs_err_t *err) {
    const rs_import_format_t forced = o->format;
    for (size_t i = 0; i < files->n; i++) {
        rs_import_format_t f = RS_IMPORT_AUTO;
        if (rs_import_sniff_format(files->v[i], &f, err) != 0) return -1;
        if (forced != RS_IMPORT_AUTO && f != forced)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: is %s, not %s (--format)", files->v[i], f == RS_IMPORT_NSYS ? "an Nsight Systems SQLite export" : "JSON",
                           rs_import_format_name(forced));
        if (i > 0 && f != o->format)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: is a %s trace but %s is %s: give traces of one tool", files->v[i], rs_import_format_name(f),
                           files->v[0], rs_import_format_name(o->format));
        o->format = f;
        if ((f == RS_IMPORT_NSYS ? rs_import_read_nsys(raw, files->v[i], err) : rs_import_read_kineto(raw, files->v[i], err)) != 0)
            return -1;
    }
    return 0;
}

rs_import_t *rs_import_read(const char *const *paths, size_t n_paths, const rs_import_opts_t *opts, rs_err_t *err) {
    rs_import_opts_t o = *opts;
    if (o.occurrence < 0) {
        rs_errc(err, RS_ERR_BAD_INPUT, "--occurrence %d: expected an integer >= 0", o.occurrence);
        return NULL;
    }
    rs_strlist_t files = {0};
    rs_raw_t raw;
    if (rs_import_expand_paths(paths, n_paths, &files, err) != 0 || rs_raw_init(&raw, o.kernel_regex, o.step_regex, err) != 0) {
        rs_strlist_free(&files);
        return NULL;
    }
    rs_import_t *im = calloc(1, sizeof *im);
    rs_steps_t *as = NULL;
    int rc = im ? 0 : rs_errf(err, "out of memory");
    if (rc == 0) rc = read_all(&raw, &files, &o, err);
    if (rc == 0) rc = order_ranks(&raw, err);
    int n = (int)raw.n_ranks;
    if (rc == 0 && n < 2)
        rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: %d process with GPU kernels; a ring needs at least 2 ranks (give every rank's trace)", files.v[0], n);
    if (rc == 0 && o.check_ranks && o.problem.n_ranks != n)
        rc = rs_errc(err, RS_ERR_BAD_INPUT, "--ranks %lld: the trace has %d ranks", (long long)o.problem.n_ranks, n);
    if (rc == 0 && !(as = calloc((size_t)n, sizeof *as))) rc = rs_errf(err, "out of memory");
    bool ranges = false;
    if (rc == 0) rc = rs_import_assign_steps(&raw, o.use_ranges, as, &ranges, err);
    if (rc == 0) {
        im->info.format = o.format;
        im->info.n_files = files.n;
        im->info.n_ranks = n;
        im->info.ranges = ranges;
        snprintf(im->info.gpu_name, sizeof im->info.gpu_name, "%s", raw.gpu_name);
        for (int r = 0; r < n; r++) im->info.n_kernels += raw.ranks[r].nk;
        for (int p = 0; p < RS_PASS_COUNT; p++)
            for (int i = 0; i < as[0].n_insts; i++) im->info.occurrences[p] += as[0].insts[i].pass == (rs_pass_t)p;
    }
    char inputs[512];
    snprintf(inputs, sizeof inputs, "%s%s", files.v[0], files.n > 1 ? " ..." : "");
    build_ctx_t bc = {&raw, &o, as, n, o.occurrence, ranges ? "ranges" : "launch-order", inputs, files.n};
    for (int p = 0; rc == 0 && p < RS_PASS_COUNT; p++) {
        bool want = o.n_passes == 0;
        for (int i = 0; i < o.n_passes; i++) want = want || o.passes[i] == (rs_pass_t)p;
        int found = im->info.occurrences[p];
        if (!want || (found == 0 && o.n_passes == 0)) continue;
        if (found == 0)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: no %s ring pass in the trace (found %d forward, %d backward)", files.v[0], rs_pass_name((rs_pass_t)p),
                         im->info.occurrences[0], im->info.occurrences[1]);
        else if (o.occurrence >= found)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "--occurrence %d: the trace has %d %s ring pass(es) (0..%d)", o.occurrence, found,
                         rs_pass_name((rs_pass_t)p), found - 1);
        else
            rc = build_pass(&bc, (rs_pass_t)p, found, &im->pass[im->n_pass++], err);
    }
    for (int r = 0; as && r < n; r++) rs_steps_free(&as[r]);
    free(as);
    if (im) im->names = rs_raw_take_names(&raw, &im->n_names);
    rs_raw_free(&raw);
    rs_strlist_free(&files);
    if (rc != 0) {
        rs_import_free(im);
        return NULL;
    }
    return im;
}
