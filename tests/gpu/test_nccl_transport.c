/* test_nccl_transport.c - the "nccl" transport (exec/gpu/nccl_transport.c) on a GPU: NCCL send/recv
 * to itself in a world of one (the bytes arrive intact, the event interval is sane); loopback rings
 * (one rank alone, its transfers to itself by NCCL or by device copies) rank by rank, N = 4; the
 * watchdog: a stall injected before a step's transfers ends the run after the timeout naming the
 * rank, the step and the peer, for both loopback kinds, and the device is usable afterwards. Without a
 * GPU it prints "skipped: no GPU" and exits 77 (the transport's refusals on a machine without one:
 * test_gpu_backend.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_fixtures.h"
#include "test_main.h"

RS_TEST(test_nccl_self, "self_send_recv") {
    void *ts[1] = {NULL};
    rs_err_t err = {0};
    if (rs_nccl_world_create(1, ts, &err) < 0) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts[0]);
    const size_t bytes = (size_t)64 << 20;
    unsigned char *h = malloc(bytes), *h2 = malloc(bytes);
    CU_ASSERT_FATAL(h && h2);
    for (size_t i = 0; i < bytes; i++) h[i] = (unsigned char)(rs_hash_unit(5, i / 4096, 0) * 256) ^ (unsigned char)i;
    void *a = rs_test_gpu_alloc(bytes), *b = rs_test_gpu_alloc(bytes);
    CU_ASSERT_FATAL(cudaMemcpy(a, h, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    double best_gbs = 0;
    for (int rep = 0; rep < 5; rep++) {
        rs_xfer_req_t reqs[2] = {{RS_XFER_SEND, 0, a, bytes, 0}, {RS_XFER_RECV, 0, b, bytes, 0}};
        rs_xfer_time_t times[2];
        CU_ASSERT_FATAL(rs_nccl_transport_ops.post(ts[0], 2, reqs, &err) == 0);
        int rc = rs_nccl_transport_ops.wait(ts[0], 30.0, times, &err);
        if (rc) fprintf(stderr, "  %s\n", err.msg);
        CU_ASSERT_FATAL(rc == 0);
        CU_ASSERT(times[1].done_s > times[1].post_s);
        CU_ASSERT(times[1].done_s - times[1].post_s < 5.0);
        best_gbs = fmax(best_gbs, bytes / (times[1].done_s - times[1].post_s) * 1e-9);
    }
    CU_ASSERT_FATAL(cudaMemcpy(h2, b, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    CU_ASSERT(memcmp(h, h2, bytes) == 0);
    fprintf(stderr, "  nccl self send/recv of %zu MiB: best %.1f GB/s (event interval)\n", bytes >> 20, best_gbs);
    CU_ASSERT(rs_nccl_transport_ops.barrier(ts[0], 5.0, &err) == 0);
    cudaFree(a), cudaFree(b), free(h), free(h2);
    rs_nccl_world_free(ts, 1);
}

/* p's schedule in the GPU kernels' tiles (a fatal assertion when it cannot be made). */
static rs_schedule_t *gpu_schedule(rs_problem_t *p) {
    rs_gpu_kernel_tile(p->pass, p->head_dim, &p->tile_q, &p->tile_k);
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    return s;
}

/* Loopback rings (N = 4) rank by rank, both kinds, forward and backward, zigzag causal: every
 * (rank, step) event is there, each receive took time and carried the schedule's bytes. */
RS_TEST(test_ring_loopback, "loopback_n4") {
    for (int how = RS_GPU_LOOP_NCCL; how <= RS_GPU_LOOP_COPY; how++)
        for (int pass = 0; pass < 2; pass++) {
            rs_problem_t p;
            rs_problem_default(&p);
            p.seq_tokens = 4 * 2048, p.n_ranks = 4, p.q_heads = 8, p.kv_heads = 2, p.head_dim = 128;
            p.layout = RS_LAYOUT_ZIGZAG, p.pass = (rs_pass_t)pass;
            rs_schedule_t *s = gpu_schedule(&p);
            rs_err_t err = {0};
            rs_exec_opts_t o;
            rs_exec_opts_default(&o);
            o.reps = 2, o.warmup = 1;
            int64_t nk[2] = {4, how};
            rs_trace_t *t = rs_trace_create("exec-gpu");
            rs_exec_result_t res;
            int rc = rs_exec_run_loopback(s, &(rs_exec_loopback_t){rs_gpu_compute_ops_for(RS_DTYPE_BF16), &rs_nccl_transport_ops, rs_test_gpu_loopback, nk, NULL, 0}, &o,
                                  t, &res, &err);
            if (rc) fprintf(stderr, "  loopback %s %s: %s\n", rs_gpu_loop_name((rs_gpu_loop_t)how), rs_pass_name(p.pass),
                            err.msg);
            CU_ASSERT_FATAL(rc == 0);
            size_t n_recv = 0, n_comp = 0;
            for (size_t i = 0; i < rs_trace_count(t); i++) {
                const rs_event_t *e = &rs_trace_events(t)[i];
                if (e->kind == RS_EV_RECV) {
                    n_recv++;
                    CU_ASSERT(e->end_s > e->start_s && e->bytes > 0);
                }
                n_comp += e->kind == RS_EV_COMPUTE;
            }
            CU_ASSERT_EQUAL(n_comp, 16u);
            CU_ASSERT_EQUAL(n_recv, pass == 0 ? 12u : 20u); /* fwd: steps 0..N-2 move K,V; bwd: every one of N+1 */
            fprintf(stderr, "  loopback %s %s N=4: T_comp %.3f ms, T_comm %.3f ms, makespan %.3f ms\n",
                    rs_gpu_loop_name((rs_gpu_loop_t)how), rs_pass_name(p.pass), res.t_comp_median_s * 1e3,
                    res.t_comm_median_s * 1e3, res.makespan_s * 1e3);
            rs_trace_free(t);
            rs_schedule_free(s);
        }
}

/* last: an aborted communicator (and its killed kernel) must not disturb the other tests */
RS_TEST_SUITE("nccl_watchdog")
/* The watchdog on an injected stall: rank 1 of a 3-rank ring alone on the GPU (loopback), its step-1
 * transfers queued behind a kernel that waits until the watchdog fires; the run fails after the
 * timeout, naming the rank, the pass and step, and the peer; for both loopback kinds. */
static void watchdog_case(rs_gpu_loop_t how) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 3 * 1024, p.n_ranks = 3, p.q_heads = 4, p.kv_heads = 2, p.head_dim = 128, p.layout = RS_LAYOUT_ZIGZAG;
    rs_schedule_t *s = gpu_schedule(&p);
    rs_err_t err = {0};
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    o.reps = 1, o.warmup = 0, o.timeout_s = 2.0, o.stall_rank = 1, o.stall_step = 1;
    int64_t nk[2] = {3, how};
    const int64_t only[1] = {1};
    rs_exec_result_t res;
    const double t0 = rs_now_s();
    int rc = rs_exec_run_loopback(s, &(rs_exec_loopback_t){rs_gpu_compute_ops_for(RS_DTYPE_BF16), &rs_nccl_transport_ops, rs_test_gpu_loopback, nk, only, 1}, &o,
                                  NULL, &res, &err);
    const double dt = rs_now_s() - t0;
    CU_ASSERT(rc < 0);
    CU_ASSERT(strstr(err.msg, "timeout") != NULL);
    CU_ASSERT(strstr(err.msg, "rank 1, forward step 1") != NULL);
    CU_ASSERT(strstr(err.msg, "receive from rank 0") != NULL);
    CU_ASSERT(dt >= 1.9 && dt < 30.0);
    fprintf(stderr, "  watchdog (%s loopback): \"%s\" after %.2f s\n", rs_gpu_loop_name(how), err.msg, dt);
    /* the device is usable afterwards: the same rank runs clean */
    o.stall_rank = -1;
    rc = rs_exec_run_loopback(s, &(rs_exec_loopback_t){rs_gpu_compute_ops_for(RS_DTYPE_BF16), &rs_nccl_transport_ops, rs_test_gpu_loopback, nk, only, 1}, &o,
                                  NULL, &res, &err);
    if (rc) fprintf(stderr, "  after the stall: %s\n", err.msg);
    CU_ASSERT(rc == 0);
    rs_schedule_free(s);
    (void)cudaGetLastError();
}
RS_TEST(test_nccl_watchdog, "watchdog_nccl_stall") { watchdog_case(RS_GPU_LOOP_NCCL); }
RS_TEST(test_copy_watchdog, "watchdog_copy_stall") { watchdog_case(RS_GPU_LOOP_COPY); }

RS_TEST_MAIN(.suite = "nccl_transport", .setup = rs_test_need_gpu)
