/* test_exec_results.c - the executor's events and results (exec/exec_results.c) on hand-made events:
 * the medians over repetitions of each (step, kind), the result's medians over (rank, step) and its
 * makespan, the events and header a trace receives. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "exec_fixtures.h"
#include "exec_results.h"
#include "test_main.h"

/* Three repetitions of two steps. Step 0's compute ran [1, 3], [2, 6], [10, 11]: the median start is
 * 2 and the median duration 2, so its event is [2, 4]; step 1's receive ran [0.5, 1.5], [0.25, 3.25],
 * [0.75, 2.75] (starts 0.5, durations 2: [0.5, 2.5]) from peer 3, 4096 bytes (repetition 0's); the
 * slots no step has give events of rank -1. */
RS_TEST(test_median_events, "median_events_by_hand") {
    enum { REPS = 3, STEPS = 2 };
    rs_exec_slot_t rec[REPS * STEPS * RS_EXEC_KINDS];
    memset(rec, 0, sizeof rec);
    const double comp[REPS][2] = {{1, 3}, {2, 6}, {10, 11}}, recv[REPS][2] = {{0.5, 1.5}, {0.25, 3.25}, {0.75, 2.75}};
    for (int r = 0; r < REPS; r++) {
        rs_exec_slot_t *s = rec + (size_t)r * STEPS * RS_EXEC_KINDS;
        s[RS_EV_COMPUTE] = (rs_exec_slot_t){comp[r][0], comp[r][1], true, -1, 1e6 + r, 0};
        s[RS_EXEC_KINDS + RS_EV_RECV] = (rs_exec_slot_t){recv[r][0], recv[r][1], true, 3, 0, 4096.0 * (r + 1)};
    }
    rs_event_t ev[STEPS * RS_EXEC_KINDS];
    rs_exec_median_events(rec, REPS, STEPS, 7, RS_PASS_BACKWARD, ev);
    const rs_event_t *c = &ev[RS_EV_COMPUTE], *rv = &ev[RS_EXEC_KINDS + RS_EV_RECV];
    CU_ASSERT(c->rank == 7 && c->step == 0 && c->pass == RS_PASS_BACKWARD && c->kind == RS_EV_COMPUTE && c->peer == -1);
    CU_ASSERT_EQUAL(c->start_s, 2.0);
    CU_ASSERT_EQUAL(c->end_s, 4.0);
    CU_ASSERT_EQUAL(c->flops, 1e6);
    CU_ASSERT(rv->rank == 7 && rv->step == 1 && rv->kind == RS_EV_RECV && rv->peer == 3);
    CU_ASSERT_EQUAL(rv->start_s, 0.5);
    CU_ASSERT_EQUAL(rv->end_s, 2.5);
    CU_ASSERT_EQUAL(rv->bytes, 4096.0);
    for (int i = 0; i < STEPS * RS_EXEC_KINDS; i++)
        if (i != RS_EV_COMPUTE && i != RS_EXEC_KINDS + RS_EV_RECV) CU_ASSERT_EQUAL(ev[i].rank, -1);
}

static rs_event_t ev_of(int32_t rank, int32_t step, rs_event_kind_t kind, double start, double end) {
    return (rs_event_t){rank, step, RS_PASS_FORWARD, kind, -1, start, end, 0, 0};
}

/* The result's medians over the events of every rank: compute durations 1, 3, 2, 10 (median 2.5),
 * one receive of 4, steps of 5, 1, 3 (median 3); the makespan the latest step end (7); an event of
 * rank -1 (a slot no step has) counts for nothing. No receive at all: its median is 0. */
RS_TEST(test_summarize, "summarize_by_hand") {
    const rs_event_t ev[] = {ev_of(0, 0, RS_EV_COMPUTE, 0, 1),  ev_of(1, 0, RS_EV_COMPUTE, 1, 4), ev_of(0, 1, RS_EV_COMPUTE, 2, 4),
                             ev_of(1, 1, RS_EV_COMPUTE, 0, 10), ev_of(0, 0, RS_EV_RECV, 1, 5),    ev_of(0, 0, RS_EV_STEP, 0, 5),
                             ev_of(1, 0, RS_EV_STEP, 6, 7),     ev_of(0, 1, RS_EV_STEP, 1, 4),    ev_of(-1, 0, RS_EV_STEP, 0, 99),
                             ev_of(-1, 0, RS_EV_COMPUTE, 0, 99)};
    rs_exec_result_t res;
    memset(&res, 0, sizeof res);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_exec_summarize(ev, sizeof ev / sizeof ev[0], &res, &err), 0);
    CU_ASSERT_EQUAL(res.t_comp_median_s, 2.5);
    CU_ASSERT_EQUAL(res.t_comm_median_s, 4.0);
    CU_ASSERT_EQUAL(res.t_step_median_s, 3.0);
    CU_ASSERT_EQUAL(res.makespan_s, 7.0);
    /* the makespan is only raised: a later step end from before stays */
    res.makespan_s = 8;
    CU_ASSERT_EQUAL(rs_exec_summarize(ev, 4, &res, &err), 0); /* computes only */
    CU_ASSERT_EQUAL(res.makespan_s, 8.0);
    CU_ASSERT_EQUAL(res.t_comm_median_s, 0.0);
    CU_ASSERT_EQUAL(res.t_step_median_s, 0.0);
    CU_ASSERT_EQUAL(res.t_comp_median_s, 2.5);
}

/* The trace receives the events of real ranks only, and the header of the run. */
RS_TEST(test_trace, "trace_events_and_header") {
    const rs_event_t ev[3] = {ev_of(0, 0, RS_EV_COMPUTE, 0, 1), ev_of(-1, 0, RS_EV_SEND, 0, 1), ev_of(1, 0, RS_EV_STEP, 0, 2)};
    rs_trace_t *t = rs_trace_create("exec-cpu");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_exec_trace_events(t, ev, 3, &err), 0);
    CU_ASSERT_EQUAL(rs_trace_count(t), 2u);
    CU_ASSERT_EQUAL(rs_trace_events(t)[1].rank, 1);
    rs_problem_t p = rs_test_exec_problem(32, 2, RS_LAYOUT_STRIPED, true, RS_PASS_FORWARD, 1);
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    o.reps = 5, o.warmup = 2, o.seed = 42, o.input_scale = 0.5;
    rs_exec_result_t res;
    memset(&res, 0, sizeof res);
    snprintf(res.compute_desc, sizeof res.compute_desc, "the compute");
    snprintf(res.transport_desc, sizeof res.transport_desc, "the transport");
    rs_exec_trace_header(t, &p, &rs_cpu_compute_ops, &o, &res);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "compute"), "the compute");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "transport"), "the transport");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "dtype"), "fp32");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "reps"), "5");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "warmup"), "2");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "seed"), "42");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "input_scale"), "0.5");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "timing"), "per-event median over reps; times from each rank's pass start");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "layout"), "striped");
    CU_ASSERT_PTR_NOT_NULL(rs_trace_get_meta(t, "host"));
    rs_trace_free(t);
}

RS_TEST_PROGRAM("exec_results")
