/* test_gpu_compute.c - the "gpu" compute backend (exec/gpu/gpu_compute.c) through the executor on a GPU
 * (one thread per GPU, nccl transport): the ring at N = 1 and, with several GPUs, N = GPU count (<= 8),
 * forward and backward, every layout, checked against the executor's float64 full attention; the
 * inference variants (pass-kv and pass-q over a cached prefix, decode) the same way. Without a GPU it
 * prints "skipped: no GPU" and exits 77. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_fixtures.h"
#include "test_main.h"

static int n_gpus;

static void ring_case(int64_t N, rs_layout_t lay, bool causal, rs_pass_t pass) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 1024 * N, p.n_ranks = N, p.batch = 1, p.q_heads = 4, p.kv_heads = 2, p.head_dim = 128;
    p.layout = lay, p.causal = causal, p.pass = pass, p.act_bytes = 2, p.grad_bytes = 4;
    rs_gpu_kernel_tile(pass, p.head_dim, &p.tile_q, &p.tile_k);
    rs_err_t err = {0};
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    o.check = true, o.check_tol = 2e-2, o.reps = 2, o.warmup = 1, o.timeout_s = 60;
    rs_trace_t *t = rs_trace_create("exec-gpu");
    rs_exec_result_t res;
    int rc = rs_test_gpu_threads_run(&p, &o, t, &res, &err);
    if (rc) fprintf(stderr, "  N=%lld %s: %s\n", (long long)N, rs_layout_name(lay), err.msg);
    CU_ASSERT_FATAL(rc == 0);
    if (!res.check_ok)
        fprintf(stderr, "  N=%lld %s %s %s: O %.3g lse %.3g dQ %.3g dK %.3g dV %.3g\n", (long long)N, rs_layout_name(lay),
                causal ? "causal" : "full", rs_pass_name(pass), res.err[RS_TENSOR_O], res.err[RS_TENSOR_LSE],
                res.err[RS_TENSOR_DQ], res.err[RS_TENSOR_DK], res.err[RS_TENSOR_DV]);
    CU_ASSERT(res.check_ok && res.finite);
    CU_ASSERT(res.t_comp_median_s > 0 && res.makespan_s >= res.t_comp_median_s);
    /* one compute event per compute step per rank, with the schedule's executed FLOPs */
    size_t n_comp = 0;
    for (size_t i = 0; i < rs_trace_count(t); i++) n_comp += rs_trace_events(t)[i].kind == RS_EV_COMPUTE;
    CU_ASSERT_EQUAL(n_comp, (size_t)(N * N));
    rs_trace_free(t);
}

/* The inference variants through the executor: pass-kv and pass-q over a cached prefix, decode (one
 * token for each of 3 sequences), checked against float64 attention over the cache. */
static void infer_case(int64_t N, rs_layout_t lay, rs_ring_t ring, bool decode) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = decode ? 1 : 512 * N, p.cached_tokens = 1024 * N, p.n_ranks = N, p.batch = decode ? 3 : 1;
    p.q_heads = 4, p.kv_heads = 2, p.head_dim = 128, p.layout = lay, p.ring = decode ? RS_RING_PASS_Q : ring;
    p.decode = decode, p.act_bytes = 2, p.grad_bytes = 4;
    rs_gpu_kernel_tile(RS_PASS_FORWARD, p.head_dim, &p.tile_q, &p.tile_k);
    rs_err_t err = {0};
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    o.check = true, o.check_tol = 2e-2, o.reps = 1, o.warmup = 1, o.timeout_s = 60;
    rs_exec_result_t res;
    int rc = rs_test_gpu_threads_run(&p, &o, NULL, &res, &err);
    if (rc || !res.check_ok)
        fprintf(stderr, "  N=%lld %s %s%s: rc %d O %.3g lse %.3g: %s\n", (long long)N, rs_layout_name(lay), rs_ring_name(p.ring),
                decode ? " decode" : "", rc, res.err[RS_TENSOR_O], res.err[RS_TENSOR_LSE], err.msg);
    CU_ASSERT(rc == 0 && res.check_ok && res.finite);
}

RS_TEST(test_ring_n1, "n1_all_layouts") {
    for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++)
        for (int pass = 0; pass < 2; pass++) ring_case(1, (rs_layout_t)lay, true, (rs_pass_t)pass);
    ring_case(1, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_FORWARD);
}

RS_TEST(test_ring_multi, "multi_gpu") {
    if (n_gpus < 2) {
        fprintf(stderr, "  (one GPU: multi-GPU ring not run)\n");
        return;
    }
    int64_t N = n_gpus > 8 ? 8 : n_gpus;
    for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++)
        for (int pass = 0; pass < 2; pass++) ring_case(N, (rs_layout_t)lay, true, (rs_pass_t)pass);
}

RS_TEST(test_infer, "inference_cached_pass_q_decode") {
    const int64_t N = n_gpus > 8 ? 8 : n_gpus;
    for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++)
        for (int ring = 0; ring < RS_RING_COUNT; ring++) {
            infer_case(1, (rs_layout_t)lay, (rs_ring_t)ring, false);
            if (N > 1) infer_case(N, (rs_layout_t)lay, (rs_ring_t)ring, false);
        }
    infer_case(1, RS_LAYOUT_ZIGZAG, RS_RING_PASS_Q, true);
    if (N > 1) infer_case(N, RS_LAYOUT_STRIPED, RS_RING_PASS_Q, true);
}

static int setup(void) {
    n_gpus = rs_gpu_device_count();
    return n_gpus ? 0 : rs_test_skip("no GPU");
}

RS_TEST_MAIN(.suite = "gpu_compute", .setup = setup)
