/* test_cmd_import.c - `ringsim import` end to end: the checked-in Kineto fixture (N = 4, one forward
 * and one backward ring pass) imported into one trace per pass, its summary lines (busy time per role
 * per step), the trace equal to
 * the expected file but for the input's name, --chrome and --kernels per pass; a predicted trace
 * exported as Kineto JSON and imported back within the microseconds Kineto keeps; the refusals. */
#include <stdlib.h>
#include <string.h>

#include "cmd_test.h"

#define DATA RS_SOURCE_DIR "/tests/fixtures/data"

/* The text of path without its "# import.input=" line. */
static char *without_input(const char *path) {
    char *t = rs_test_slurp(path, NULL);
    if (!t) return NULL;
    char *l = strstr(t, "\n# import.input=");
    if (l) {
        char *end = strchr(l + 1, '\n');
        memmove(l + 1, end + 1, strlen(end + 1) + 1);
    }
    return t;
}

RS_TEST(test_fixture, "the Kineto fixture: one trace per pass") {
    char args[2048], base[600];
    snprintf(base, sizeof base, "%s", rs_test_path("k.csv"));
    snprintf(args, sizeof args, "import -S 32K -o %s --chrome %s --kernels %s " DATA "/kineto_ring4", base, rs_test_path("k.json"),
             rs_test_path("kern.csv"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "ringsim import: kineto, 4 file(s), N = 4 ranks, group '1' (cp) [0..3], GPU NVIDIA H100 80GB HBM3; "
                                               "ring passes found: 1 forward, 1 backward; steps from the launch order\n"));
    char want[1200];
    snprintf(want, sizeof want, "  forward ring pass 0: 56 events, 168 kernels, makespan 699.4 us -> %s\n", rs_test_path("k-zigzag-forward.csv"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, want));
    /* busy time per role per step: the merges of ring-flash-attention's update_out_and_lse are counted */
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "    step       attn      merge       cast      other    compute       step   (busy time per role; "
                                               "medians over the 4 ranks)\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "\n       1   123.7 us   23.68 us   2.515 us        0 s     165 us     167 us\n"));
    snprintf(want, sizeof want, "  backward ring pass 0: 76 events, 156 kernels, makespan 1.501 ms -> %s\n",
             rs_test_path("k-zigzag-backward.csv"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, want));
    static const char *const passes[] = {"forward", "backward"};
    for (int i = 0; i < 2; i++) {
        char got[700], exp[700];
        snprintf(got, sizeof got, "%s/k-zigzag-%s.csv", rs_test_dir, passes[i]);
        snprintf(exp, sizeof exp, DATA "/kineto_ring4-%s.expected.csv", passes[i]);
        char *a = without_input(got), *b = without_input(exp);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        CU_ASSERT_STRING_EQUAL(a, b);
        free(a);
        free(b);
        snprintf(got, sizeof got, "%s/k-zigzag-%s.json", rs_test_dir, passes[i]);
        CU_ASSERT(rs_cmd_contains(got, "\"traceEvents\""));
        snprintf(got, sizeof got, "%s/kern-zigzag-%s.csv", rs_test_dir, passes[i]);
        CU_ASSERT(rs_test_file_size(got) > 0);
    }
    /* -P forward: that pass alone, under the name given */
    snprintf(args, sizeof args, "import -S 32K -P forward -q -o %s " DATA "/kineto_ring4", rs_test_path("f.csv"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_STRING_EQUAL(rs_test_out, ""); /* -q */
    char *a = without_input(rs_test_path("f.csv")), *b = without_input(DATA "/kineto_ring4-forward.expected.csv");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_STRING_EQUAL(a, b);
    free(a);
    free(b);
}

RS_TEST(test_export_round_trip, "--export-kineto and back") {
    const char *pred = rs_test_path("p.csv"), *dir = rs_test_path("exk"), *back = rs_test_path("back.csv");
    char args[2048];
    snprintf(args, sizeof args, "model -S 32K -N 4 -L zigzag -P forward --trace %s", pred);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    snprintf(args, sizeof args, "import --export-kineto %s %s", dir, pred);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    for (int r = 0; r < 4; r++) {
        char f[700];
        snprintf(f, sizeof f, "%s/rank%d.pt.trace.json", dir, r);
        CU_ASSERT(rs_test_file_size(f) > 0);
    }
    snprintf(args, sizeof args, "import -S 32K -L zigzag -P forward -q -o %s %s", back, dir);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    snprintf(args, sizeof args, "compare -q %s %s --csv %s", pred, back, rs_test_path("rt.csv"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    char *t = rs_test_slurp(rs_test_path("rt.csv"), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    /* every compute and transfer comes back within Kineto's microseconds (1.7 ms and 78 us events) */
    const char *c = strstr(t, "# t_comp: n=16 "), *m = strstr(t, "# t_comm: n=12 ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    const double comp_max = strtod(strstr(c, "max_abs=") + 8, NULL), comm_max = strtod(strstr(m, "max_abs=") + 8, NULL);
    CU_ASSERT(comp_max < 1e-6);
    CU_ASSERT(comm_max < 1e-5);
    free(t);
}

RS_TEST(test_refusals, "refusals") {
    char args[1024];
    CU_ASSERT_EQUAL(rs_test_ringsim("import -S 32K " DATA "/kineto_ring4"), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim import: -o/--trace FILE is required (the imported trace, CSV)\n");
    snprintf(args, sizeof args, "import -S 32K -o %s", rs_test_path("x.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim import: expected trace files or directories (see ringsim import --help)\n");
    snprintf(args, sizeof args, "import -S 32K -L zigzag,striped -o %s " DATA "/kineto_ring4", rs_test_path("x.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim import: --layout: give the one layout the traced run used\n");
    snprintf(args, sizeof args, "import -S 32K --format chrome -o %s " DATA "/kineto_ring4", rs_test_path("x.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim import: --format chrome: expected auto, kineto, nsys or rocprof\n");
    snprintf(args, sizeof args, "import -S 32K -N 8 -o %s " DATA "/kineto_ring4", rs_test_path("x.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim import: --ranks 8: the ring has 4 ranks (group '1' (cp) [0..3])\n");
    CU_ASSERT(rs_test_file_size(rs_test_path("x.csv")) < 0);
    snprintf(args, sizeof args, "import --export-kineto %s a.csv b.csv", rs_test_path("exk2"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim import: --export-kineto takes one ringsim CSV trace, got 2 files\n");
}

RS_TEST_MAIN(.suite = "ringsim import", .scratch = "cmd_import")
