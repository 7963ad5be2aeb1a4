/* test_exec_loopback.c - the ring rank by rank on one device (exec/exec_loopback.c), CPU backend and
 * the local loopback transport: one trace of every (rank, step) of the ring, the result's medians over
 * all of them, a subset of ranks, and what the runner refuses. (The local loopback transport itself:
 * test_local_transport.c; the GPU loopbacks: tests/gpu/test_nccl_transport.c.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "exec_fixtures.h"
#include "test_main.h"

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Every rank in turn: one trace with every (rank, step) event of a ring, peers and sizes from the
 * schedule, each rank's compute events carrying the schedule's executed FLOPs. */
static void run_all_ranks(rs_layout_t lay, rs_pass_t pass) {
    int64_t n = 3;
    rs_exec_opts_t o;
    rs_schedule_t *s = rs_test_exec_schedule(n, lay, pass, 2, &o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_err_t err = {0};
    rs_trace_t *tr = rs_trace_create("exec-cpu");
    rs_exec_result_t res;
    const rs_exec_loopback_t lb = {&rs_cpu_compute_ops, &rs_local_transport_ops, rs_test_local_loopback, &n, NULL, 0};
    int rc = rs_exec_run_loopback(s, &lb, &o, tr, &res, &err);
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    const int64_t steps = rs_schedule_n_steps(s);
    double latest = 0;
    for (int64_t r = 0; r < n; r++)
        for (int64_t k = 0; k < steps; k++) {
            rs_step_t st;
            rs_schedule_step(s, r, k, &st);
            long ic = rs_trace_find(tr, (int32_t)r, (int32_t)k, pass, RS_EV_COMPUTE);
            long ir = rs_trace_find(tr, (int32_t)r, (int32_t)k, pass, RS_EV_RECV);
            long is = rs_trace_find(tr, (int32_t)r, (int32_t)k, pass, RS_EV_STEP);
            CU_ASSERT_EQUAL(ic >= 0, st.has_compute);
            CU_ASSERT_EQUAL(ir >= 0, st.n_recv > 0);
            CU_ASSERT_FATAL(is >= 0);
            const rs_event_t *ev = rs_trace_events(tr);
            if (ic >= 0) CU_ASSERT_EQUAL(ev[ic].flops, (double)st.flops_exec);
            if (ir >= 0) {
                CU_ASSERT_EQUAL(ev[ir].peer, st.recv_peer);
                CU_ASSERT_EQUAL(ev[ir].bytes, (double)st.recv_bytes);
            }
            latest = fmax(latest, ev[is].end_s);
        }
    size_t expect = 0;
    for (int64_t r = 0; r < n; r++)
        for (int64_t k = 0; k < steps; k++) {
            rs_step_t st;
            rs_schedule_step(s, r, k, &st);
            expect += 1 + st.has_compute + (st.n_send > 0) + (st.n_recv > 0);
        }
    CU_ASSERT_EQUAL(rs_trace_count(tr), expect);
    CU_ASSERT_EQUAL(res.makespan_s, latest);
    /* the result's medians are the medians of the merged events */
    double v[512];
    size_t m = 0;
    for (size_t i = 0; i < rs_trace_count(tr) && m < 512; i++)
        if (rs_trace_events(tr)[i].kind == RS_EV_COMPUTE) v[m++] = rs_trace_events(tr)[i].end_s - rs_trace_events(tr)[i].start_s;
    qsort(v, m, sizeof *v, cmp_d);
    CU_ASSERT(m > 0);
    CU_ASSERT_EQUAL(res.t_comp_median_s, m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]));
    CU_ASSERT_PTR_NOT_NULL(rs_trace_get_meta(tr, "loopback"));
    rs_trace_free(tr);
    rs_schedule_free(s);
}

RS_TEST(test_run_loopback_forward, "run_loopback_forward") {
    for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++) run_all_ranks((rs_layout_t)lay, RS_PASS_FORWARD);
}
RS_TEST(test_run_loopback_backward, "run_loopback_backward") {
    for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++) run_all_ranks((rs_layout_t)lay, RS_PASS_BACKWARD);
}

/* A state that is not a loopback (a rank of a world of 4). */
static rs_local_world_t *world4;
static void *make_world_rank(void *arg, int64_t rank, rs_err_t *err) {
    (void)arg, (void)err;
    return rs_local_world_rank(world4, rank);
}

/* A subset of ranks, in the order given; refusals: no rank, a rank out of range, --check, a state that
 * is not a loopback. */
RS_TEST(test_run_loopback_refusals, "run_loopback_refusals") {
    int64_t n = 4;
    const int64_t some[2] = {3, 1};
    rs_exec_opts_t o;
    rs_schedule_t *s = rs_test_exec_schedule(n, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, 1, &o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_trace_t *tr = rs_trace_create("exec-cpu");
    rs_exec_result_t res;
    rs_err_t err = {0};
    rs_exec_loopback_t lb = {&rs_cpu_compute_ops, &rs_local_transport_ops, rs_test_local_loopback, &n, some, 2};
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &lb, &o, tr, &res, &err), 0);
    CU_ASSERT(rs_trace_find(tr, 3, 0, RS_PASS_FORWARD, RS_EV_STEP) >= 0);
    CU_ASSERT(rs_trace_find(tr, 1, 0, RS_PASS_FORWARD, RS_EV_STEP) >= 0);
    CU_ASSERT(rs_trace_find(tr, 0, 0, RS_PASS_FORWARD, RS_EV_STEP) < 0);
    lb.n_ranks = 0;
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &lb, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "loopback: no rank to run");
    const int64_t bad[1] = {4};
    lb.ranks = bad, lb.n_ranks = 1;
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &lb, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "loopback: rank 4 of N = 4");
    lb.ranks = NULL, lb.n_ranks = 0;
    o.check = true;
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &lb, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--check and --save-io need the real ring: a loopback rank computes on its own blocks");
    o.check = false;
    world4 = rs_local_world_create(4, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(world4);
    const rs_exec_loopback_t not_lb = {&rs_cpu_compute_ops, &rs_local_transport_ops, make_world_rank, NULL, NULL, 0};
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &not_lb, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "loopback: the local state made for rank 0 is not a loopback");
    rs_local_world_free(world4);
    rs_trace_free(tr);
    rs_schedule_free(s);
}

RS_TEST_PROGRAM("exec_loopback")
