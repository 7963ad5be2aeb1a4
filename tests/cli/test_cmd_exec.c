/* test_cmd_exec.c - `ringsim exec` end to end on the CPU executor with ranks as threads: a small causal
 * ring checked against the float64 reference, its trace holding the very events the walk's trace of
 * the same schedule holds; a rank that stops answering ends the run with exit 1 and the rank and step
 * that waited; the refusals before any rank starts. */
#include <stdlib.h>
#include <string.h>

#include "cmd_test.h"
#include "trace.h"

#ifdef RINGSIM_HAVE_EXEC
#define PROBLEM "-N 2 -S 512 --heads 1 --kv-heads 1 --head-dim 16 -L zigzag -P forward"
#define SMALL PROBLEM " --reps 1 --warmup 0"

RS_TEST(test_run, "a checked run and its trace") {
    char args[2048], meas[600], pred[600];
    snprintf(meas, sizeof meas, "%s", rs_test_path("e.csv"));
    snprintf(pred, sizeof pred, "%s", rs_test_path("m.csv"));
    snprintf(args, sizeof args, "exec --launch threads " SMALL " --check --trace %s", meas);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# ringsim exec: S=512 N=2 B=256 batch=1 heads=1/1 d=16 causal fp32, reps 1 (warmup 0)\n"));
    const char *row = strstr(rs_test_out, "\n  zigzag     forward ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    const char *ok = strstr(row, " OK O=");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ok);
    CU_ASSERT(strtod(ok + 6, NULL) <= 1e-5); /* max|O - ref| / max|ref| within --tol */
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "\n# transport: local: threads of one process"));
    snprintf(args, sizeof args, "model " PROBLEM " --dtype fp32 --trace %s", pred);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    rs_err_t err = {0};
    rs_trace_t *e = rs_trace_read_csv(meas, &err), *m = rs_trace_read_csv(pred, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_STRING_EQUAL(rs_trace_source(e), "exec-cpu");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(e, "launch"), "threads");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(e, "n_ranks"), "2");
    CU_ASSERT_EQUAL(rs_trace_count(e), rs_trace_count(m)); /* one schedule: the same events */
    rs_trace_free(e);
    rs_trace_free(m);
}

RS_TEST(test_fault, "a rank that stops answering") {
    CU_ASSERT_EQUAL(rs_test_ringsim("exec --launch threads " SMALL " --fault 1:0 --timeout 0.5"), 1);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim exec: rank 0, forward step 0: timeout after 0.5 s waiting for send to rank 1\n");
}

RS_TEST(test_refusals, "refusals before any rank starts") {
    char args[1024];
    snprintf(args, sizeof args, "exec --launch threads --check -S 128K --trace %s", rs_test_path("x.csv"));
    rs_cmd_expect_usage(args, "ringsim exec: --check with --seq 131072: the float64 reference is O(S^2); use --seq <= 64K", NULL,
                        rs_test_path("x.csv"));
    rs_cmd_expect_usage("exec --loopback local --check",
                        "ringsim exec: --loopback local: --check and --save-io need the real ring (a loopback rank computes on its "
                        "own blocks)",
                        NULL, NULL);
    rs_cmd_expect_usage("exec --launch threads --dtype bf16", "ringsim exec: --dtype bf16: the cpu executor computes in fp32", NULL,
                        NULL);
    rs_cmd_expect_usage("exec --backend tpu", "ringsim exec: --backend tpu: expected cpu or gpu", NULL, NULL);
    rs_cmd_expect_usage("exec --fault 1", "ringsim exec: --fault 1: expected RANK:STEP", NULL, NULL);
    rs_cmd_expect_usage("exec --stall 1:-2", "ringsim exec: --stall 1:-2: expected RANK:STEP, both >= 0", NULL, NULL);
}

RS_TEST_MAIN(.suite = "ringsim exec", .scratch = "cmd_exec")
#else
RS_TEST_SKIPPED("no executor in this build")
#endif
