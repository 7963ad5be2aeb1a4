/* test_study_sweep.c - the sweep study (studies/study_sweep.c): range options parsed into values,
 * with their messages; points enumerated profile-major and refused before anything runs; the study
 * into a CSV, a failing point (RINGSIM_SWEEP_FAIL_POINT) with and without the finished points kept,
 * too many points refused. The CSV format itself: test_study_sweep_csv.c; Ctrl-C and mpirun:
 * sweep_sigint.sh, sweep_mpi.sh. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "study_sweep.h"
#include "studies_fixtures.h"
#include "test_main.h"

/* Parse text with the range of --block (1..UINT32_MAX, at most max_out values). */
static int parse(const char *text, int64_t *out, int max_out, rs_err_t *err) {
    const rs_sweep_range_t r = {"--block", 1, (int64_t)UINT32_MAX, out, max_out};
    err->code = RS_ERR_RUNTIME;
    return rs_sweep_range_parse(&r, text, err);
}

RS_TEST(test_ranges, "ranges: geometric, arithmetic, lists, one value") {
    int64_t v[RS_SWEEP_MAX_VALUES];
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(parse("64:64K:x2", v, RS_SWEEP_MAX_VALUES, &err), 11);
    for (int i = 0; i < 11; i++) CU_ASSERT_EQUAL(v[i], (int64_t)64 << i);
    CU_ASSERT_EQUAL_FATAL(parse("1K:8K:+1K", v, RS_SWEEP_MAX_VALUES, &err), 8);
    for (int i = 0; i < 8; i++) CU_ASSERT_EQUAL(v[i], 1024 * (i + 1));
    CU_ASSERT_EQUAL_FATAL(parse("1K:8K:3K", v, RS_SWEEP_MAX_VALUES, &err), 3); /* 1K, 4K, 7K */
    CU_ASSERT_EQUAL(v[2], 7 * 1024);
    CU_ASSERT_EQUAL_FATAL(parse("256:16K:*4", v, RS_SWEEP_MAX_VALUES, &err), 4);
    CU_ASSERT_EQUAL(v[3], 16384);
    CU_ASSERT_EQUAL_FATAL(parse("16,48,2K", v, RS_SWEEP_MAX_VALUES, &err), 3);
    CU_ASSERT_EQUAL(v[0], 16);
    CU_ASSERT_EQUAL(v[1], 48);
    CU_ASSERT_EQUAL(v[2], 2048);
    CU_ASSERT_EQUAL_FATAL(parse("4K", v, RS_SWEEP_MAX_VALUES, &err), 1);
    CU_ASSERT_EQUAL(v[0], 4096);
    /* the spelled-out form of the command's parsers */
    CU_ASSERT_EQUAL(rs_sweep_parse_range("--ranks", "2:16:x2", 1, 64, v, 8, &err), 4);
    CU_ASSERT_EQUAL(v[3], 16);
}

/* A value of --block and the message of its refusal. */
typedef struct {
    const char *text, *msg;
} refusal_t;

/* Each refusal quotes the option and its whole value; the kind is bad input. */
RS_TEST(test_range_errors, "ranges: each refusal quotes the option's value") {
    int64_t v[4];
    rs_err_t err = {0};
    static const refusal_t cases[] = {
        {"64K:256:x2", "--block 64K:256:x2: STOP must be >= START"},
        {"64:1K:x1", "--block 64:1K:x1: STEP 1: must be in [2, 2305843009213693951]"},
        {"1:2:+0", "--block 1:2:+0: STEP 0: must be in [1, 2305843009213693951]"},
        {"64:1K:xq", "--block 64:1K:xq: STEP q: not an integer (expected e.g. 4096, 128K, 1M; range [2, 2305843009213693951])"},
        {"64:1K", "--block 64:1K: expected START:STOP:STEP (e.g. 256:64K:x2 or 1K:8K:+1K) or a,b,c"},
        {"0,4", "--block 0,4: value 0: must be in [1, 4294967295]"},
        {"0", "--block 0: must be in [1, 4294967295]"},
        {"0:8:+1", "--block 0:8:+1: START 0: must be in [1, 4294967295]"},
        {"1,2,3,4,5", "--block 1,2,3,4,5: at most 4 values"},
        {"1:8:+1", "--block 1:8:+1: more than 4 values"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CU_ASSERT_EQUAL(parse(cases[i].text, v, 4, &err), -1);
        if (strcmp(err.msg, cases[i].msg)) fprintf(stderr, "  '%s': '%s'\n", cases[i].text, err.msg);
        CU_ASSERT_STRING_EQUAL(err.msg, cases[i].msg);
        CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    }
    char longer[300];
    memset(longer, '1', sizeof longer - 1), longer[sizeof longer - 1] = 0;
    CU_ASSERT_EQUAL(parse(longer, v, 4, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--block: value too long");
    /* and through the command: exit 2, the message */
    CU_ASSERT_EQUAL(rs_test_ringsim("sweep --block 64K:256:x2 -q"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "ringsim sweep: --block 64K:256:x2: STOP must be >= START"));
}

/* A spec of two profiles x one layout x two passes x N = 2, 4 x B = 1K, 2K (no simulator). */
static void small_spec(rs_sweep_spec_t *s) {
    memset(s, 0, sizeof *s);
    rs_setup_default(&s->common);
    s->n_profiles = 2;
    snprintf(s->profiles[0], sizeof s->profiles[0], "h100-sxm");
    snprintf(s->profiles[1], sizeof s->profiles[1], "mi300x");
    s->common.n_passes = 2, s->common.passes[1] = RS_PASS_BACKWARD;
    s->n_ranks = 2, s->ranks[0] = 2, s->ranks[1] = 4;
    s->n_blocks = 2, s->blocks[0] = 1024, s->blocks[1] = 2048;
}

/* Profile-major, then layout, pass, N, and B last; S = B N; the series names what differs but B. */
RS_TEST(test_points, "points: profile-major, S = B N, refused before running") {
    static rs_sweep_spec_t s;
    small_spec(&s);
    CU_ASSERT_EQUAL_FATAL(rs_sweep_count(&s), 16);
    static rs_sweep_point_t pts[16];
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_sweep_points_setup(&s, pts, &err), 0);
    CU_ASSERT_STRING_EQUAL(pts[0].profile, "h100-sxm");
    CU_ASSERT_STRING_EQUAL(pts[8].profile, "mi300x");
    CU_ASSERT_EQUAL(pts[0].problem.pass, RS_PASS_FORWARD);
    CU_ASSERT_EQUAL(pts[4].problem.pass, RS_PASS_BACKWARD);
    CU_ASSERT_EQUAL(pts[2].problem.n_ranks, 4);
    CU_ASSERT_EQUAL(pts[3].problem.seq_tokens, 4 * 2048);
    CU_ASSERT_EQUAL(pts[1].problem.seq_tokens, 2 * 2048);
    CU_ASSERT_STRING_EQUAL(pts[0].series, "h100-sxm/zigzag/forward/causal/N=2");
    CU_ASSERT_STRING_EQUAL(pts[1].series, pts[0].series);
    CU_ASSERT_STRING_EQUAL(pts[14].series, "mi300x/zigzag/backward/causal/N=4");
    /* the point's machine is its profile's */
    CU_ASSERT(pts[0].machine.flops_per_s != pts[8].machine.flops_per_s);
    /* refused before anything runs: the profile's :gG, a problem's divisibility */
    snprintf(s.profiles[1], sizeof s.profiles[1], "mi300x:gX");
    CU_ASSERT_EQUAL(rs_sweep_points_setup(&s, pts, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--profile h100-sxm,mi300x:gX: NAME:gG sets G devices per node, an integer in [0, "
                                    "2147483647]; got 'X'");
    small_spec(&s);
    s.common.layouts[0] = RS_LAYOUT_CONTIGUOUS, s.n_blocks = 0, s.n_seqs = 1, s.seqs[0] = 1001;
    CU_ASSERT_EQUAL(rs_sweep_points_setup(&s, pts, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "point 0 (profile h100-sxm, contiguous, forward, N=2, S=1001): --seq 1001: must be divisible by "
                                    "N = 2 for the contiguous layout");
}

/* Lines of a CSV: '#' lines, and the others (the column line and the rows). */
static void count_lines(const char *text, int *notes, int *rows) {
    *notes = *rows = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) *(*l == '#' ? notes : rows) += 1;
}

RS_TEST(test_study, "the study: a CSV; a failing point with and without the finished ones kept") {
    static rs_sweep_spec_t s;
    small_spec(&s);
    s.n_profiles = 1, s.common.n_passes = 1, s.n_ranks = 1; /* two points: B = 1K, 2K at N = 2 */
    const char *path = rs_test_path("sweep.csv");
    rs_sweep_in_t in = {&s, path, "test", false, false, false, false};
    rs_sweep_out_t out;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_study_sweep(&in, &out, &err), 0);
    CU_ASSERT_EQUAL(out.n, 2);
    CU_ASSERT_EQUAL(out.done, 2);
    CU_ASSERT(!out.interrupted && !out.worker);
    free(out.points);
    char *text = rs_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    int notes, rows;
    count_lines(text, &notes, &rows);
    CU_ASSERT_EQUAL(rows, 3); /* the column line and two points */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "# command=test\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "# crossover series=h100-sxm/zigzag/forward/causal/N=2 "));
    free(text);
    /* a point fails: a runtime failure naming it; the finished point kept when asked */
    setenv("RINGSIM_SWEEP_FAIL_POINT", "1", 1);
    in.keep_partial = true;
    in.out_path = rs_test_path("kept.csv");
    CU_ASSERT_EQUAL(rs_study_sweep(&in, &out, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "point 1: failed on purpose (RINGSIM_SWEEP_FAIL_POINT)");
    CU_ASSERT_EQUAL(err.code, RS_ERR_RUNTIME);
    CU_ASSERT_EQUAL(out.done, 1);
    CU_ASSERT_STRING_EQUAL(out.kept, rs_test_path("kept.partial.csv")); /* where they went, for the command to say */
    free(out.points);
    CU_ASSERT_EQUAL(rs_test_file_size(in.out_path), -1); /* the output itself is not written: the points go beside it */
    text = rs_test_slurp(rs_test_path("kept.partial.csv"), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    count_lines(text, &notes, &rows);
    CU_ASSERT_EQUAL(rows, 2);
    free(text);
    in.keep_partial = false;
    in.out_path = rs_test_path("none.csv");
    CU_ASSERT_EQUAL(rs_study_sweep(&in, &out, &err), -1);
    CU_ASSERT_STRING_EQUAL(out.kept, "");
    free(out.points);
    CU_ASSERT_EQUAL(rs_test_file_size(in.out_path), -1); /* nothing is written */
    unsetenv("RINGSIM_SWEEP_FAIL_POINT");
}

RS_TEST(test_study_refused, "the study refuses too many points and a bad profile as bad input") {
    static rs_sweep_spec_t s;
    small_spec(&s);
    s.n_ranks = 256, s.n_blocks = 256;
    for (int i = 0; i < 256; i++) s.ranks[i] = 2, s.blocks[i] = 1024;
    rs_sweep_in_t in = {&s, rs_test_path("big.csv"), NULL, false, false, false, false};
    rs_sweep_out_t out;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_study_sweep(&in, &out, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "262144 points: at most 100000");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_PTR_NULL(out.points);
    small_spec(&s);
    snprintf(s.profiles[0], sizeof s.profiles[0], "nosuch");
    CU_ASSERT_EQUAL(rs_study_sweep(&in, &out, &err), -1);
    CU_ASSERT_EQUAL(strncmp(err.msg, "--profile nosuch,mi300x: unknown hardware profile 'nosuch'", 58), 0);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    free(out.points);
    CU_ASSERT_EQUAL(rs_test_file_size(in.out_path), -1);
}

RS_TEST_MAIN(.suite = "study_sweep", .scratch = "study_sweep", .keep_failed = true)
