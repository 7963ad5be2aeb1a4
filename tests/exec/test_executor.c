/* test_executor.c - rs_exec_run (exec/executor.c) on the CPU backend, N ranks as threads: the
 * outputs of every layout x causal x pass x GQA and of N = 1, 2, 3 against the float64 reference, the
 * trace against the schedule, and what rs_exec_run refuses before it starts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "exec_fixtures.h"
#include "test_main.h"

/* Every layout x causal x pass x (MHA, GQA) at N = 4: O, dQ, dK, dV within 1e-5 of float64; with the
 * default kernel, the plain reference, and the default kernel in 4-column chunks and 8-row panels
 * (several chunks and panels per 12-row block). */
RS_TEST(test_numerics_all, "all_layouts_causal_pass_gqa") {
    const char *cfg[][3] = {{NULL, NULL, NULL}, {"plain", NULL, NULL}, {NULL, "4", "8"}}; /* KERNEL, KC, PANEL_ROWS */
    for (int ci = 0; ci < 3; ci++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int causal = 0; causal < 2; causal++)
                for (int pass = 0; pass < RS_PASS_COUNT; pass++)
                    for (int kvh = 1; kvh <= 2; kvh++) {
                        rs_problem_t p = rs_test_exec_problem(48, 4, (rs_layout_t)l, causal, (rs_pass_t)pass, kvh);
                        rs_exec_opts_t o = rs_test_exec_opts_check();
                        rs_exec_result_t res;
                        rs_err_t err = {0};
                        rs_test_cpu_kernel_env(cfg[ci][0], cfg[ci][1], cfg[ci][2]);
                        int rc = rs_test_exec_run(&p, &o, NULL, &res, &err);
                        rs_test_cpu_kernel_env(NULL, NULL, NULL);
                        if (rc != 0 || !res.check_ok)
                            fprintf(stderr, "  config %d: %s causal=%d %s kv_heads=%d: rc %d: %s\n", ci,
                                    rs_layout_name(p.layout), causal, rs_pass_name(p.pass), kvh, rc, err.msg);
                        CU_ASSERT_EQUAL(rc, 0);
                        CU_ASSERT(res.check_ok);
                        CU_ASSERT(res.finite);
                        CU_ASSERT(res.err[RS_TENSOR_O] >= 0 && res.err[RS_TENSOR_O] <= 1e-5);
                        /* the check must have compared something real: a wrong layout mapping gives O(1) */
                        CU_ASSERT(res.err[RS_TENSOR_O] < 1e-5);
                        if (pass == RS_PASS_BACKWARD) {
                            CU_ASSERT(res.err[RS_TENSOR_DQ] >= 0 && res.err[RS_TENSOR_DQ] <= 1e-5);
                            CU_ASSERT(res.err[RS_TENSOR_DK] >= 0 && res.err[RS_TENSOR_DK] <= 1e-5);
                            CU_ASSERT(res.err[RS_TENSOR_DV] >= 0 && res.err[RS_TENSOR_DV] <= 1e-5);
                        }
                    }
}

/* N = 1 (no transfers), N = 2, and an odd N = 3 with tiles that do not divide B. */
RS_TEST(test_numerics_sizes, "sizes_n1_n2_n3") {
    const int64_t cfg[][2] = {{16, 1}, {24, 2}, {42, 3}};
    for (int i = 0; i < 3; i++)
        for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
            rs_problem_t p = rs_test_exec_problem(cfg[i][0], cfg[i][1], RS_LAYOUT_ZIGZAG, true, (rs_pass_t)pass, 2);
            p.tile_q = 5, p.tile_k = 3;
            rs_exec_opts_t o = rs_test_exec_opts_check();
            rs_exec_result_t res;
            rs_err_t err = {0};
            int rc = rs_test_exec_run(&p, &o, NULL, &res, &err);
            if (rc) fprintf(stderr, "  S=%lld N=%lld: %s\n", (long long)cfg[i][0], (long long)cfg[i][1], err.msg);
            CU_ASSERT_EQUAL(rc, 0);
            CU_ASSERT(res.check_ok);
            CU_ASSERT(res.err[RS_TENSOR_O] >= 0 && res.err[RS_TENSOR_O] <= 1e-5);
            if (pass == RS_PASS_BACKWARD) CU_ASSERT(res.err[RS_TENSOR_DK] >= 0 && res.err[RS_TENSOR_DK] <= 1e-5);
        }
}

/* The trace: one compute/send/recv/step event per schedule entry, FLOPs and bytes from the schedule,
 * events ordered inside each step, header with the problem and the backends. */
RS_TEST(test_trace_schema, "trace_schema") {
    for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
        rs_problem_t p = rs_test_exec_problem(32, 4, RS_LAYOUT_ZIGZAG, true, (rs_pass_t)pass, 2);
        rs_exec_opts_t o = rs_test_exec_opts_check();
        o.check = false, o.reps = 3, o.warmup = 1;
        rs_trace_t *t = rs_trace_create("exec-cpu");
        rs_exec_result_t res;
        rs_err_t err = {0};
        CU_ASSERT_EQUAL_FATAL(rs_test_exec_run(&p, &o, t, &res, &err), 0);
        rs_schedule_t *s = rs_schedule_create(&p, &err);
        rs_trace_sort(t);
        size_t expect = 0;
        for (int64_t r = 0; r < p.n_ranks; r++)
            for (int64_t k = 0; k < rs_schedule_n_steps(s); k++) {
                rs_step_t st;
                rs_schedule_step(s, r, k, &st);
                expect += 1 + (st.has_compute ? 1 : 0) + (st.n_send ? 1 : 0) + (st.n_recv ? 1 : 0);
                long ic = rs_trace_find(t, (int32_t)r, (int32_t)k, p.pass, RS_EV_COMPUTE);
                long is = rs_trace_find(t, (int32_t)r, (int32_t)k, p.pass, RS_EV_STEP);
                long ir = rs_trace_find(t, (int32_t)r, (int32_t)k, p.pass, RS_EV_RECV);
                CU_ASSERT(is >= 0);
                CU_ASSERT_EQUAL(ic >= 0, st.has_compute);
                CU_ASSERT_EQUAL(ir >= 0, st.n_recv > 0);
                const rs_event_t *ev = rs_trace_events(t);
                if (ic >= 0) {
                    CU_ASSERT_EQUAL(ev[ic].flops, (double)st.flops_exec);
                    CU_ASSERT(ev[ic].end_s >= ev[ic].start_s);
                }
                if (ir >= 0) {
                    CU_ASSERT_EQUAL(ev[ir].bytes, (double)st.recv_bytes);
                    CU_ASSERT_EQUAL(ev[ir].peer, st.recv_peer);
                }
                if (is >= 0 && k > 0) { /* steps of one rank follow each other */
                    long ip = rs_trace_find(t, (int32_t)r, (int32_t)(k - 1), p.pass, RS_EV_STEP);
                    CU_ASSERT(ev[is].start_s >= ev[ip].start_s);
                }
            }
        CU_ASSERT_EQUAL(rs_trace_count(t), expect);
        CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "layout"), "zigzag");
        CU_ASSERT_PTR_NOT_NULL(rs_trace_get_meta(t, "compute"));
        CU_ASSERT_PTR_NOT_NULL(strstr(rs_trace_get_meta(t, "compute"), "core"));
        CU_ASSERT(res.makespan_s > 0);
        rs_schedule_free(s);
        rs_trace_free(t);
    }
}

/* What rs_exec_run refuses before it allocates: a transport of another size than the problem's N, a
 * compute backend of another activation size, no measured repetition, pass-q on a backend without
 * the partial-output kernels, --check on a loopback; each with its message. */
RS_TEST(test_refusals, "refusals") {
    rs_problem_t p = rs_test_exec_problem(24, 2, RS_LAYOUT_ZIGZAG, true, RS_PASS_FORWARD, 2);
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_local_world_t *w = rs_local_world_create(3, &err); /* three ranks for a ring of two */
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    rs_exec_result_t res;
    const rs_exec_backends_t on = {&rs_cpu_compute_ops, &rs_local_transport_ops, rs_local_world_rank(w, 0), 0};
    CU_ASSERT_EQUAL(rs_exec_run(s, &on, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "the transport has 3 ranks but the problem asks for N = 2");
    rs_local_world_free(w);
    /* a backend in another dtype: the problem's 2-byte activations on the fp32 CPU compute */
    void *lb = rs_local_loopback_create(0, 2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lb);
    const rs_exec_backends_t alone = {&rs_cpu_compute_ops, &rs_local_transport_ops, lb, 0};
    rs_problem_t p2 = p;
    p2.act_bytes = 2;
    rs_schedule_t *s2 = rs_schedule_create(&p2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s2);
    CU_ASSERT_EQUAL(rs_exec_run(s2, &alone, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "compute backend cpu works in fp32 (4 bytes) but the problem has act_bytes 2");
    o.reps = 0;
    CU_ASSERT_EQUAL(rs_exec_run(s, &alone, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "reps must be >= 1 and warmup >= 0");
    rs_exec_opts_default(&o);
    o.check = true;
    CU_ASSERT_EQUAL(rs_exec_run(s, &alone, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--check and --save-io need the real ring: a loopback rank computes on its own blocks");
    /* pass-q needs the partial-output kernels */
    rs_exec_opts_default(&o);
    rs_problem_t pq = p;
    pq.ring = RS_RING_PASS_Q, pq.cached_tokens = 48;
    rs_schedule_t *sq = rs_schedule_create(&pq, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sq);
    rs_compute_ops_t no_q = rs_cpu_compute_ops;
    no_q.q_step = NULL;
    const rs_exec_backends_t on_q = {&no_q, &rs_local_transport_ops, lb, 0};
    CU_ASSERT_EQUAL(rs_exec_run(sq, &on_q, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "compute backend cpu: cannot run --ring pass-q or decode (no partial-output kernels)");
    const rs_exec_backends_t on_lb = {&rs_cpu_compute_ops, &rs_local_transport_ops, lb, 0};
    CU_ASSERT_EQUAL(rs_exec_run(sq, &on_lb, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--loopback: --ring pass-q and decode return their partials in an all-to-all, which needs "
                                    "the real ring");
    CU_ASSERT_EQUAL(res.fail_step, -1); /* refused before any step */
    rs_local_transport_ops.destroy(lb);
    rs_schedule_free(s), rs_schedule_free(s2), rs_schedule_free(sq);
}

RS_TEST_PROGRAM("executor")
