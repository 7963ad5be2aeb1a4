/* test_exec_util.h - what the CPU executor's suites share: one threaded run of a problem and the
 * options of a checked run (against the float64 reference). */
#ifndef RS_TEST_EXEC_UTIL_H
#define RS_TEST_EXEC_UTIL_H

#include "exec.h"
#include "schedule.h"

/* p's schedule run on threads with the CPU compute. Returns the executor's code, -2 when the schedule
 * cannot be made (err says why). */
static inline int rs_test_exec_run(const rs_problem_t *p, rs_exec_opts_t *o, rs_trace_t *trace, rs_exec_result_t *res,
                                   rs_err_t *err) {
    rs_schedule_t *s = rs_schedule_create(p, err);
    if (!s) return -2;
    int rc = rs_exec_run_threads(s, &rs_cpu_compute_ops, NULL, NULL, o, trace, res, err);
    rs_schedule_free(s);
    return rc;
}

/* One checked repetition, no warm-up, relative tolerance 1e-5, a 20 s watchdog. */
static inline rs_exec_opts_t rs_test_exec_opts_check(void) {
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    o.warmup = 0, o.reps = 1, o.timeout_s = 20, o.check = true, o.check_tol = 1e-5;
    return o;
}

#endif
