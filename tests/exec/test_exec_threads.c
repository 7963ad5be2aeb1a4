/* test_exec_threads.c - N ranks as threads of one process (exec/exec_threads.c), CPU backend: which
 * error the run reports when ranks fail - a real error before the ranks it aborted or left waiting,
 * a timeout before the fault-injected stop behind it - and that one rank's refusal stops all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "exec_fixtures.h"
#include "test_main.h"

/* Rank 2 stops answering at step 1: the others give up after the timeout, naming rank and step. */
RS_TEST(test_dead_rank_timeout, "dead_rank_timeout") {
    rs_problem_t p = rs_test_exec_problem(32, 4, RS_LAYOUT_ZIGZAG, false, RS_PASS_FORWARD, 2);
    rs_exec_opts_t o = rs_test_exec_opts_check();
    o.check = false;
    o.timeout_s = 0.5, o.fault_rank = 2, o.fault_step = 1;
    rs_exec_result_t res;
    rs_err_t err = {0};
    double t0 = rs_now_s();
    int rc = rs_test_exec_run(&p, &o, NULL, &res, &err);
    double dt = rs_now_s() - t0;
    fprintf(stderr, "  dead rank: %s (%.2f s)\n", err.msg, dt);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_TIMEOUT); /* the transport's kind, through the step's and the run's context */
    CU_ASSERT(strstr(err.msg, "timeout") != NULL);
    CU_ASSERT(strstr(err.msg, "step 1") != NULL);
    CU_ASSERT(strstr(err.msg, "rank 2") != NULL); /* the peer that stopped */
    CU_ASSERT(dt < 5.0);
}

/* Rank 1's compute backend refuses to start (a bad-input refusal): the others, aborted while they
 * wait in the first barrier, say "aborted by another rank"; the run reports rank 1's own error with
 * its kind. */
static int create_unless_rank_1(const rs_exec_rank_t *r, void **state, rs_err_t *err) {
    if (r->rank == 1) return rs_errc(err, RS_ERR_BAD_INPUT, "cpu backend: rank 1 refused");
    return rs_cpu_compute_ops.create(r, state, err);
}

RS_TEST(test_real_error_first, "real_error_first") {
    rs_problem_t p = rs_test_exec_problem(32, 4, RS_LAYOUT_ZIGZAG, true, RS_PASS_FORWARD, 2);
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_compute_ops_t c = rs_cpu_compute_ops;
    c.create = create_unless_rank_1;
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    o.warmup = 0, o.reps = 1, o.timeout_s = 20;
    rs_exec_result_t res;
    const double t0 = rs_now_s();
    CU_ASSERT_EQUAL(rs_exec_run_threads(s, &(rs_exec_threads_t){&c, NULL, NULL}, &o, NULL, &res, &err), -1);
    CU_ASSERT(rs_now_s() - t0 < 10); /* aborted, not timed out */
    CU_ASSERT_STRING_EQUAL(err.msg, "rank 1: cpu backend: rank 1 refused");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    /* every rank refuses: the message is the refusal */
    o.reps = 0;
    CU_ASSERT_EQUAL(rs_exec_run_threads(s, &(rs_exec_threads_t){&rs_cpu_compute_ops, NULL, NULL}, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "reps must be >= 1 and warmup >= 0");
    rs_schedule_free(s);
}

/* A clean run reports rank 0's result: the steps of its pass, both backends' descriptions, a
 * makespan, outputs checked. */
RS_TEST(test_result_is_rank_0s, "result_is_rank_0s") {
    rs_problem_t p = rs_test_exec_problem(24, 3, RS_LAYOUT_STRIPED, true, RS_PASS_BACKWARD, 1);
    rs_exec_opts_t o = rs_test_exec_opts_check();
    rs_exec_result_t res;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_test_exec_run(&p, &o, NULL, &res, &err), 0);
    CU_ASSERT_EQUAL(res.n_steps, 4); /* the backward's N + 1 */
    CU_ASSERT_EQUAL(res.fail_step, -1);
    CU_ASSERT(res.check_ok && res.finite && !res.faulted);
    CU_ASSERT_PTR_NOT_NULL(strstr(res.compute_desc, "cpu fp32: sgemm"));
    CU_ASSERT_STRING_EQUAL(res.transport_desc, "local: threads of one process, memcpy on delivery");
    CU_ASSERT(res.makespan_s > 0 && res.t_step_median_s > 0 && res.t_comp_median_s > 0 && res.t_comm_median_s > 0);
}

RS_TEST_PROGRAM("exec_threads")
