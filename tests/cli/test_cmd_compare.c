/* test_cmd_compare.c - `ringsim compare REF OTHER` end to end on two small traces of the same problem
 * predicted at two peak rates: every compute step takes twice as long at half the rate, so each
 * T_comp and T_step error and the makespan's is +100% by hand, T_comm's 0; --fail-above, a different
 * problem and a missing trace are refused. */
#include <stdlib.h>
#include <string.h>

#include "cmd_test.h"

/* N = 2, S = 4K, contiguous forward full blocks, only the rate differs; transfers hide behind compute
 * (a link far above NVLink's nominal rate: --allow-implausible) */
#define TRACE_ARGS "-N 2 -S 4K -L contiguous -P forward --no-causal --bw 1e16 --allow-implausible --latency 0 --launch-overhead 0 --host-cost 0"

static void make_traces(void) {
    char args[2048];
    snprintf(args, sizeof args, "model " TRACE_ARGS " --flops 1e12 --trace %s", rs_test_path("a.csv"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    snprintf(args, sizeof args, "model " TRACE_ARGS " --flops 5e11 --trace %s", rs_test_path("b.csv"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
}

RS_TEST(test_errors_by_hand, "errors of two traces by hand") {
    make_traces();
    char args[2048];
    snprintf(args, sizeof args, "compare %s %s --csv %s", rs_test_path("a.csv"), rs_test_path("b.csv"), rs_test_path("c.csv"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "\nt_comp         4     100.00%     100.00%     100.00%   +100.00%"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "\nt_comm         2       0.00%       0.00%       0.00%     +0.00%"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "\nmakespan       1                                       +100.00%"));
    char *csv = rs_test_slurp(rs_test_path("c.csv"), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    /* one step's compute: 4 B^2 d Hq = 4 x 2048^2 x 128 x 32 FLOPs at 1e12 FLOP/s, two steps a makespan */
    const double step = 4.0 * 2048 * 2048 * 128 * 32 / 1e12;
    double ref = 0, other = 0, rel = 0;
    const char *mk = strstr(csv, "# makespan: ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mk);
    CU_ASSERT_EQUAL(sscanf(mk, "# makespan: reference_s=%lf other_s=%lf rel_err=%lf", &ref, &other, &rel), 3);
    RS_ASSERT_REL(ref, 2 * step, 1e-15);
    RS_ASSERT_REL(other, 4 * step, 1e-15);
    RS_ASSERT_REL(rel, 1, 1e-15);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "# t_comp: n=4 median_abs=1 p95_abs=1 max_abs=1 worst_rank=0 worst_step=0 worst_pass=forward\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "# t_comm: n=2 median_abs=0 p95_abs=0 max_abs=0"));
    /* a row per (rank, step, metric): rank 1's second compute */
    const char *row = strstr(csv, "\n1,1,forward,t_comp,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    double a = 0, b = 0, e = 0;
    CU_ASSERT_EQUAL(sscanf(row, "\n1,1,forward,t_comp,%lf,%lf,%lf", &a, &b, &e), 3);
    RS_ASSERT_REL(a, step, 1e-15);
    RS_ASSERT_REL(b, 2 * step, 1e-15);
    RS_ASSERT_REL(e, 1, 1e-15);
    /* K,V of a block in one transfer: 2 x 2048 x 8 heads x 128 x 2 bytes at 1e16 B/s, the same in both */
    row = strstr(csv, "\n0,0,forward,t_comm,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    CU_ASSERT_EQUAL(sscanf(row, "\n0,0,forward,t_comm,%lf,%lf,%lf", &a, &b, &e), 3);
    RS_ASSERT_REL(a, 2.0 * 2048 * 8 * 128 * 2 / 1e16, 1e-15);
    CU_ASSERT_EQUAL(e, 0);
    free(csv);
}

RS_TEST(test_fail_above_and_refusals, "--fail-above and refusals") {
    make_traces();
    char args[2048];
    snprintf(args, sizeof args, "compare -q --fail-above 0.5 %s %s", rs_test_path("a.csv"), rs_test_path("b.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 1);
    CU_ASSERT_STRING_EQUAL(rs_test_out, ""); /* -q: no table */
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim compare: error above --fail-above 0.5\n");
    snprintf(args, sizeof args, "compare -q --fail-above 1.5 %s %s", rs_test_path("a.csv"), rs_test_path("b.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    snprintf(args, sizeof args, "model -N 4 -S 4K -L contiguous -P forward --no-causal --trace %s", rs_test_path("n4.csv"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    snprintf(args, sizeof args, "compare %s %s", rs_test_path("a.csv"), rs_test_path("n4.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    char want[2048];
    snprintf(want, sizeof want, "ringsim compare: %s and %s describe different problems: n_ranks 2 vs 4\n", rs_test_path("a.csv"),
             rs_test_path("n4.csv"));
    CU_ASSERT_STRING_EQUAL(rs_test_err, want);
    snprintf(args, sizeof args, "compare %s", rs_test_path("a.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim compare: expected two trace files (REF OTHER), got 1\n");
    /* the CSV may not replace a trace it reads */
    snprintf(args, sizeof args, "compare %s %s --csv %s", rs_test_path("a.csv"), rs_test_path("b.csv"), rs_test_path("b.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, ": an output never replaces an input\n"));
}

RS_TEST_MAIN(.suite = "ringsim compare", .scratch = "cmd_compare")
