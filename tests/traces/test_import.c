/* test_import.c - the import itself (traces/import.c): the traces it builds from the fixtures of
 * tests/fixtures/data (byte for byte against the expected CSVs) and from a real torch.profiler
 * capture (values read off the file), their header keys, the accessors, the options it refuses (one
 * line, RS_ERR_BAD_INPUT), a step the schedule needs a transfer in; and the `ringsim import` command
 * (outputs, exit 2 and no output on bad input, the Kineto export read back).
 *
 * `test_import --write-fixtures DIR` regenerates tests/fixtures/data (see tests/fixtures/data/README.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "import.h"
#include "import_check.h"
#include "import_fixtures.h"
#include "test_main.h"
#include "trace.h"

/* The header keys of an imported trace and the accessors. */
RS_TEST(test_header_and_accessors, "header keys of an imported trace, accessors, defaults") {
    fx_opts_t fo;
    fx_opts_default(&fo);
    fo.n_layers = 2;
    fx_run_t run;
    const char *dir = it_kineto_dir("hdr", &fo, false, &run);
    rs_import_opts_t o = it_opts();
    o.occurrence = 1;
    o.kernel_regex = "never_matches_anything";
    rs_err_t err = {0};
    rs_import_t *im = it_import1(dir, &o, &err);
    if (!im) fprintf(stderr, "  %s\n", err.msg);
    it_check_import(&run, im, 1);
    const rs_import_info_t *info = rs_import_info(im);
    CU_ASSERT_EQUAL(info->n_files, 4);
    CU_ASSERT_EQUAL(info->occurrences[RS_PASS_FORWARD], 2);
    CU_ASSERT_EQUAL(info->occurrences[RS_PASS_BACKWARD], 2);
    CU_ASSERT_EQUAL(info->n_kernels, run.nk); /* every kernel of the ring's ranks (no selection) */
    const rs_trace_t *t = rs_import_trace(im, 0);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "backend"), "import");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "import.format"), "kineto");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "import.files"), "4");
    char want[1200];
    snprintf(want, sizeof want, "%s/rank0.pt.trace.json ...", dir);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "import.input"), want);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "import.steps_from"), "ranges");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "import.step_regex"), RS_IMPORT_STEP_REGEX);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "import.kernel_regex"), "never_matches_anything");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "import.occurrence"), "1");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "import.occurrences"), "2");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "import.gpu"), "NVIDIA H100 80GB HBM3");
    /* the forward pass: per rank N attention kernels, N - 1 SendRecv kernels, the merges (1 at step
     * 0, 9 later) and 3 filler kernels in each step but the last */
    size_t n_fwd = 0;
    for (int r = 0; r < 4; r++)
        for (int k = 0; k < 4; k++) n_fwd += fx_step_kernels(&run, r, RS_PASS_FORWARD, 1, k);
    CU_ASSERT_EQUAL(n_fwd, 4 * (4 + 3 + 1 + 27 + 9));
    char nk[32];
    snprintf(nk, sizeof nk, "%zu", n_fwd);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "import.kernels"), nk);
    /* the origin: the earliest kernel of the pass over all ranks */
    long long origin = -1;
    for (size_t i = 0; i < run.nk; i++)
        if (run.k[i].in_step && run.k[i].layer == 1 && run.k[i].pass == RS_PASS_FORWARD && (origin < 0 || run.k[i].start_ns < origin))
            origin = run.k[i].start_ns;
    char o_ns[32];
    snprintf(o_ns, sizeof o_ns, "%lld", origin);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "import.origin_ns"), o_ns);
    /* accessors out of range */
    const rs_import_kernel_t *ks = (const rs_import_kernel_t *)1;
    CU_ASSERT_EQUAL(rs_import_kernels(im, 0, 4, 0, &ks), 0); /* rank N */
    CU_ASSERT_PTR_NULL(ks);
    CU_ASSERT_EQUAL(rs_import_kernels(im, 0, 0, 4, &ks), 0); /* step N of a forward pass */
    CU_ASSERT_EQUAL(rs_import_kernels(im, 1, 0, 4, &ks), 1); /* the backward's tail step: its dK,dV SendRecv */
    CU_ASSERT_EQUAL(ks[0].role, RS_KROLE_SENDRECV);
    CU_ASSERT_EQUAL(rs_import_kernels(im, 2, 0, 0, &ks), 0);
    CU_ASSERT_PTR_NULL(rs_import_trace(im, 2));
    rs_import_free(im);
    rs_import_free(NULL);
    /* the defaults */
    rs_import_opts_t d;
    rs_import_opts_default(&d);
    CU_ASSERT(d.format == RS_IMPORT_AUTO && d.use_ranges && d.occurrence == 0 && d.n_passes == 0 && !d.check_ranks);
    CU_ASSERT(d.kernel_regex == NULL && d.step_regex == NULL);
    fx_free(&run);
}

static void tw_drop_comm(fx_opts_t *o) { o->drop_comm_rank = 2, o->drop_comm_step = 1; }

/* What the import refuses: options, files that do not make a ring, a step without the transfer the
 * schedule has there. */
RS_TEST(test_bad_input, "bad input: options, one rank, a step without its transfer, two tools") {
    rs_import_opts_t o = it_opts();
    fx_opts_t fo;
    fx_opts_default(&fo);
    fx_run_t run;
    const char *dir = it_kineto_dir("bad", &fo, false, &run);
    char good[1100];
    snprintf(good, sizeof good, "%s/rank1.pt.trace.json", dir);
    /* one rank only */
    it_expect_fail(good, &o, "rank1.pt.trace.json: no trace of ranks 0, 2, 3 of the ring's group '1' (cp) [0..3] (1 trace(s) given)", RS_ERR_BAD_INPUT);
    rs_import_opts_t og = it_opts();
    og.group = "1";
    it_expect_fail(good, &og, "give every rank's trace of the group", RS_ERR_BAD_INPUT);
    /* with ranges a step without SendRecv is found by its events, against the schedule */
    it_bad_kineto("bad_drop_r", tw_drop_comm, true, "rank2.pt.trace.json: rank 2 forward ring pass 0 step 1: no SendRecv kernel");
    /* options */
    rs_import_opts_t oo = it_opts();
    oo.occurrence = 1;
    it_expect_fail(dir, &oo, "--occurrence 1: the trace has 1 forward ring pass(es) (0..0)", RS_ERR_BAD_INPUT);
    oo.occurrence = -1;
    it_expect_fail(dir, &oo, "--occurrence -1: expected an integer >= 0", RS_ERR_BAD_INPUT);
    oo = it_opts();
    oo.check_ranks = true;
    oo.problem.n_ranks = 8;
    it_expect_fail(dir, &oo, "--ranks 8: the ring has 4 ranks (group '1' (cp) [0..3])", RS_ERR_BAD_INPUT);
    oo = it_opts();
    oo.problem.seq_tokens = 1001;
    it_expect_fail(dir, &oo, "--seq 1001: must be divisible by 2*N = 8", RS_ERR_BAD_INPUT);
    oo = it_opts();
    oo.step_regex = "ring_step";
    it_expect_fail(dir, &oo, "--step-regex 'ring_step': needs a group", RS_ERR_BAD_INPUT);
    oo = it_opts();
    oo.format = RS_IMPORT_NSYS;
    it_expect_fail(dir, &oo, "rank0.pt.trace.json: is JSON, not nsys (--format)", RS_ERR_BAD_INPUT);
    fx_opts_t f1 = fo;
    f1.backward = false;
    fx_run_t run3;
    const char *fwd_only = it_kineto_dir("bad_fwd_only", &f1, false, &run3);
    oo = it_opts();
    oo.n_passes = 1;
    oo.passes[0] = RS_PASS_BACKWARD;
    it_expect_fail(fwd_only, &oo, "no backward ring pass in the trace (found 1 forward, 0 backward)", RS_ERR_BAD_INPUT);
    /* traces of two tools */
    char db[1100], kin[1100];
    it_nsys_db(&run3, "mixed", db, sizeof db);
    snprintf(kin, sizeof kin, "%s/rank0.pt.trace.json", fwd_only);
    const char *two[2] = {kin, db};
    rs_err_t err = {0};
    CU_ASSERT_PTR_NULL(rs_import_read(two, 2, &o, &err));
    char want[3000];
    snprintf(want, sizeof want, "%s: is a nsys trace but %s is kineto: give traces of one tool", db, kin);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    fx_free(&run3);
    fx_free(&run);
}

RS_TEST(test_cli, "ringsim import CLI: outputs, exit 2, no output") {
    fx_opts_t fo;
    fx_opts_default(&fo);
    fx_run_t run;
    const char *dir = it_kineto_dir("cli", &fo, true, &run);
    char args[4096];
    snprintf(args, sizeof args, "import -S 32K -N 4 --pass both -o %s --chrome %s --kernels %s %s", rs_test_path("cli.csv"), rs_test_path("cli.json"),
             rs_test_path("cli-k.csv"), dir);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "kineto, 4 file(s), N = 4 ranks"));
    const char *outs[] = {"cli-zigzag-forward.csv", "cli-zigzag-backward.csv", "cli-zigzag-forward.json", "cli-k-zigzag-backward.csv"};
    for (int i = 0; i < 4; i++) CU_ASSERT(rs_test_file_size(rs_test_path(outs[i])) > 0);
    /* the CSV reads back as the expected trace; compare works on it unchanged */
    rs_err_t err;
    rs_trace_t *t = rs_trace_read_csv(rs_test_path("cli-zigzag-backward.csv"), &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    rs_problem_t prob = it_problem();
    rs_trace_t *exp = fx_expected(&run, RS_PASS_BACKWARD, 0, 0, &prob);
    it_same_events(exp, t, 1e-15);
    rs_trace_free(exp);
    rs_trace_free(t);
    snprintf(args, sizeof args, "compare %s %s", rs_test_path("cli-zigzag-forward.csv"), rs_test_path("cli-zigzag-forward.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    /* kernels CSV: header + one row per kernel, names quoted */
    FILE *fp = fopen(rs_test_path("cli-k-zigzag-backward.csv"), "r");
    CU_ASSERT_FATAL(fp != NULL);
    char line[2048];
    int rows = 0, quoted = 0;
    while (fgets(line, sizeof line, fp)) {
        rows++;
        quoted += strstr(line, ",\"void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64,") != NULL;
    }
    fclose(fp);
    int want_rows = 1; /* per rank: 3 attention kernels x 4 steps, 3 K,V + 4 dK,dV SendRecv, the merges and the filler */
    for (int r = 0; r < 4; r++)
        for (int k = 0; k <= 4; k++) want_rows += (int)fx_step_kernels(&run, r, RS_PASS_BACKWARD, 0, k);
    CU_ASSERT_EQUAL(want_rows, 1 + 4 * (3 * 4 + 3 + 4 + 3 * 4 + 3 * 4));
    CU_ASSERT_EQUAL(rows, want_rows);
    CU_ASSERT_EQUAL(quoted, 16);
    /* bad input: exit 2, one line naming the file, no output */
    const char *cut = rs_test_fresh_dir("cli_bad");
    for (int r = 0; r < 4; r++) {
        char src[1100], dst[1100];
        snprintf(src, sizeof src, "%s/rank%d.pt.trace.json.gz", dir, r);
        snprintf(dst, sizeof dst, "%s/rank%d.pt.trace.json.gz", cut, r);
        it_truncate_copy(src, dst, r == 3 ? rs_test_file_size(src) / 3 : rs_test_file_size(src));
    }
    snprintf(args, sizeof args, "import -S 32K -o %s %s", rs_test_path("never.csv"), cut);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "ringsim import: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "rank3.pt.trace.json.gz: truncated"));
    char *nl = strchr(rs_test_err, '\n');
    CU_ASSERT(nl && nl[1] == 0);
    CU_ASSERT(rs_test_file_size(rs_test_path("never.csv")) < 0);
    /* an output never replaces an input */
    char in0[1100];
    snprintf(in0, sizeof in0, "%s/rank0.pt.trace.json.gz", dir);
    long before = rs_test_file_size(in0);
    snprintf(args, sizeof args, "import -S 32K -P forward -o %s %s", in0, dir);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "an output never replaces an input"));
    CU_ASSERT_EQUAL(rs_test_file_size(in0), before);
    snprintf(args, sizeof args, "import -o %s --flops 1e15 %s", rs_test_path("never.csv"), dir);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "unknown option '--flops'"));
    /* export: ringsim trace -> Kineto directory -> import */
    snprintf(args, sizeof args, "import --export-kineto %s %s", rs_test_path("cli_export"), rs_test_path("cli-zigzag-forward.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    snprintf(args, sizeof args, "import -q -S 32K -o %s %s", rs_test_path("cli-again.csv"), rs_test_path("cli_export"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    rs_trace_t *a = rs_trace_read_csv(rs_test_path("cli-zigzag-forward.csv"), &err), *b = rs_trace_read_csv(rs_test_path("cli-again.csv"), &err);
    CU_ASSERT_FATAL(a && b);
    it_same_events(a, b, 1e-9);
    rs_trace_free(a), rs_trace_free(b);
    fx_free(&run);
}

/* ------------------------------------------------------------------------------------------------
 * Checked-in fixtures (tests/fixtures/data): made by `test_import --write-fixtures tests/fixtures/data`
 * ---------------------------------------------------------------------------------------------- */
static void fixture_opts(bool nsys, fx_opts_t *fo) {
    fx_opts_default(fo);
    fo->ranges = nsys;  /* Kineto: no ranges (launch order); nsys: an NVTX range per step */
    fo->filler = nsys ? 1 : 2;
}

RS_TEST(test_checked_in_fixtures, "checked-in fixtures of tests/fixtures/data") {
    for (int nsys = 0; nsys < 2; nsys++) {
        fx_opts_t fo;
        fixture_opts(nsys, &fo);
        fx_run_t run;
        CU_ASSERT_EQUAL_FATAL(fx_generate(&fo, &run), 0);
        char in[1100];
        if (nsys) {
            snprintf(in, sizeof in, "%s/nsys_ring4.sqlite", rs_test_dir);
            CU_ASSERT_EQUAL_FATAL(fx_sql_to_sqlite(IT_DATA "/nsys_ring4.sql", in), 0);
        } else {
            snprintf(in, sizeof in, "%s", IT_DATA "/kineto_ring4");
        }
        rs_import_opts_t o = it_opts();
        rs_err_t err = {0};
        rs_import_t *im = it_import1(in, &o, &err);
        if (!im) fprintf(stderr, "  %s\n", err.msg);
        it_check_import(&run, im, 0);
        for (size_t i = 0; im && i < rs_import_n_traces(im); i++) {
            char want[1100], got[1100];
            const char *pass = rs_trace_get_meta(rs_import_trace(im, i), "pass");
            snprintf(want, sizeof want, "%s/%s_ring4-%s.expected.csv", IT_DATA, nsys ? "nsys" : "kineto", pass);
            snprintf(got, sizeof got, "%s/got-%d-%s.csv", rs_test_dir, nsys, pass);
            rs_trace_t *t = (rs_trace_t *)rs_import_trace(im, i);
            rs_trace_set_meta(t, "import.input", "%s", nsys ? "nsys_ring4.sqlite" : "kineto_ring4"); /* path-independent */
            CU_ASSERT_EQUAL(rs_trace_write_csv(t, got, &err), 0);
            char *a = rs_test_slurp(want, NULL), *b = rs_test_slurp(got, NULL);
            CU_ASSERT_PTR_NOT_NULL(a);
            CU_ASSERT(a && b && strcmp(a, b) == 0);
            free(a), free(b);
        }
        rs_import_free(im);
        fx_free(&run);
    }
}

RS_TEST(test_real_torch_trace, "a real torch.profiler capture (torch 2.11, H200)") {
    rs_err_t err = {0};
    /* the ring capture (world size 1 on one GPU) as rank 0 and as rank 1 of a world of 2: the same
     * timeline */
    char *ring = it_gunzip(IT_DATA "/torch_h200/ring.pt.trace.json.gz");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ring);
    const char *dir = rs_test_fresh_dir("real");
    char p0[1100], p1[1100];
    snprintf(p0, sizeof p0, "%s/rank0.json", dir);
    snprintf(p1, sizeof p1, "%s/rank1.json", dir);
    static const char header[] = "\"rank\": 0, \"world_size\": 1";
    char *at = strstr(ring, header);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    at[sizeof header - 2] = '2';
    rs_test_write_text(p0, ring);
    at[8] = '1';
    rs_test_write_text(p1, ring);
    free(ring);
    const char *twice[2] = {p0, p0};
    rs_import_opts_t o = it_opts();
    o.problem.seq_tokens = 16384;
    CU_ASSERT_PTR_NULL(it_import1(dir, &o, &err)); /* the capture's heads (grid z = 16): refused */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "runs on a grid of 16 query heads (grid z), but --heads is 32"));
    o.problem.q_heads = 16;
    CU_ASSERT_PTR_NULL(it_import1(dir, &o, &err)); /* its messages: K,V of 16 KV heads, 2 x 33554432 bf16 elements */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "step 0: the trace's messages send 67108864 bytes, the schedule 33554432"));
    o.problem.kv_heads = 16;
    CU_ASSERT_PTR_NULL(rs_import_read(twice, 2, &o, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rank0.json: rank 0 again (also in "));
    for (int ranges = 0; ranges < 2; ranges++) {
        o.use_ranges = ranges;
        rs_import_t *im = it_import1(dir, &o, &err);
        if (!im) fprintf(stderr, "  %s\n", err.msg);
        CU_ASSERT_PTR_NOT_NULL_FATAL(im);
        CU_ASSERT_EQUAL(rs_import_info(im)->ranges, ranges);
        CU_ASSERT_STRING_EQUAL(rs_import_info(im)->gpu_name, "NVIDIA H200");
        CU_ASSERT_EQUAL_FATAL(rs_import_n_traces(im), 1);
        const rs_trace_t *t = rs_import_trace(im, 0);
        CU_ASSERT_EQUAL(rs_trace_count(t), 12);
        /* values read off the file: SendRecv at ts 5205877015945.161 for 37.408 us is the origin;
         * flash at +220.286 us for 935.032 us; step 1's flash at +1156.534 us, ends +2700.650 us */
        const rs_event_t *ev = rs_trace_events(t);
        long c0 = rs_trace_find(t, 1, 0, RS_PASS_FORWARD, RS_EV_COMPUTE), s0 = rs_trace_find(t, 1, 0, RS_PASS_FORWARD, RS_EV_SEND),
             c1 = rs_trace_find(t, 1, 1, RS_PASS_FORWARD, RS_EV_COMPUTE);
        CU_ASSERT_FATAL(c0 >= 0 && s0 >= 0 && c1 >= 0);
        CU_ASSERT(fabs(ev[s0].start_s) < 1e-12 && fabs(ev[s0].end_s - 37.408e-6) < 1e-12);
        CU_ASSERT(fabs(ev[c0].start_s - 220.286e-6) < 1e-12 && fabs(ev[c0].end_s - 1155.318e-6) < 1e-12);
        CU_ASSERT(fabs(ev[c1].start_s - 1156.534e-6) < 1e-12 && fabs(ev[c1].end_s - 2700.650e-6) < 1e-12);
        CU_ASSERT_EQUAL(rs_trace_find(t, 1, 1, RS_PASS_FORWARD, RS_EV_SEND), -1);
        rs_import_free(im);
    }
}

/* Regenerate tests/fixtures/data. */
static int write_fixtures(const char *dir) {
    char p[2048];
    for (int nsys = 0; nsys < 2; nsys++) {
        fx_opts_t fo;
        fixture_opts(nsys, &fo);
        fx_run_t run;
        if (fx_generate(&fo, &run) != 0) return 1;
        if (nsys) {
            snprintf(p, sizeof p, "%s/nsys_ring4.sql", dir);
            FILE *fp = fopen(p, "w");
            if (!fp || fx_write_nsys_sql(&run, fp) != 0) return 1;
            fclose(fp);
            snprintf(p, sizeof p, "%s/nsys_ring4.sqlite", rs_test_dir);
            char sql[2048];
            snprintf(sql, sizeof sql, "%s/nsys_ring4.sql", dir);
            if (fx_sql_to_sqlite(sql, p) != 0) return 1;
        } else {
            snprintf(p, sizeof p, "%s/kineto_ring4", dir);
            mkdir(p, 0777);
            if (fx_write_kineto(&run, p, true, 0) != 0) return 1;
        }
        rs_import_opts_t o = it_opts();
        rs_err_t err;
        rs_import_t *im = it_import1(p, &o, &err);
        if (!im) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        for (size_t i = 0; i < rs_import_n_traces(im); i++) {
            rs_trace_t *t = (rs_trace_t *)rs_import_trace(im, i);
            rs_trace_set_meta(t, "import.input", "%s", nsys ? "nsys_ring4.sqlite" : "kineto_ring4");
            char out[2048];
            snprintf(out, sizeof out, "%s/%s_ring4-%s.expected.csv", dir, nsys ? "nsys" : "kineto", rs_trace_get_meta(t, "pass"));
            if (rs_trace_write_csv(t, out, &err) != 0) return 1;
        }
        rs_import_free(im);
        fx_free(&run);
    }
    return 0;
}

int main(int argc, char **argv) {
    static const rs_test_program_t program = {.suite = "import", .scratch = "import"};
    if (argc != 3 || strcmp(argv[1], "--write-fixtures") != 0) return rs_test_run(&program);
    if (rs_test_scratch("import") != 0) return 1;
    const int rc = write_fixtures(argv[2]);
    rs_test_cleanup();
    return rc;
}
