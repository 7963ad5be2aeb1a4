/* test_gpu.c - the GPU backend on a GPU. Without one (cudaGetDeviceCount fails or finds none) it
 * prints "skipped: no GPU" and exits 77, which CTest reports as Skipped, never as passed.
 *
 *  - kernels: forward and backward, ref and mma, bf16 and fp16, head_dim 64 and 128, GQA 4/2,
 *    every layout causal and not: the steps of each rank of a 2-rank ring (B = 320: clipped tiles)
 *    folded on the GPU vs the float64 reference of the same 16-bit inputs; rel_l2 <= 1e-2 (bf16),
 *    every element within tolerance, nothing left unwritten (outputs poisoned with NaN first);
 *  - NCCL self send/recv on one GPU (a world of 1): bytes arrive intact; the event interval is sane;
 *  - the watchdog: a stall injected before a step's transfers (rank 1 of a loopback ring, NCCL and
 *    copy kinds) ends the run after the timeout naming the rank, the step and the peer;
 *  - loopback rings (one rank alone, transfers to itself) rank by rank, N = 4, both kinds;
 *  - the ring through the executor (rs_exec_run_threads, gpu compute + nccl transport): N = 1 and,
 *    with several GPUs, N = GPU count (<= 8), forward and backward, checked against the executor's
 *    float64 full attention; the inference variants (pass-kv and pass-q over a cached prefix, decode)
 *    the same way. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "attn.h"
#include "exec.h"
#include "gpu.h"
#include "test_main.h"

static int n_gpus;

/* ---------------------------------------------------------------------------------------------------
 * Kernels
 * ------------------------------------------------------------------------------------------------- */
static void *dalloc(size_t bytes) {
    void *p = NULL;
    CU_ASSERT_FATAL(cudaMalloc(&p, bytes) == cudaSuccess);
    CU_ASSERT_FATAL(cudaMemset(p, 0xff, bytes) == cudaSuccess); /* NaN poison */
    return p;
}

static double max_abs(const double *x, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

/* Fold every compute step of `rank` (forward, then backward) on the GPU and in float64; return
 * the worst rel_l2 over O, lse, dQ, dK, dV and the count of out-of-tolerance elements. */
static void kernel_case(rs_gpu_kernel_t kern, rs_gpu_dtype_t dt, int d, rs_layout_t lay, bool causal, int rank,
                        double *worst, size_t *bad) {
    const int N = 2, S = 640, B = S / N;
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = S, p.n_ranks = N, p.layout = lay, p.causal = causal, p.pass = RS_PASS_BACKWARD;
    p.batch = 1, p.q_heads = 4, p.kv_heads = 2, p.head_dim = d;
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_gpu_shape_t sh = {dt, 1, 4, 2, d, B, B, (float)(1.0 / sqrt((double)d))};
    const size_t nq = rs_gpu_shape_q_elems(&sh), nk = rs_gpu_shape_kv_elems(&sh), nr = rs_gpu_shape_row_elems(&sh);
    uint16_t *hq = malloc(nq * 2), *hdo = malloc(nq * 2), *hk = malloc(nk * 2), *hv = malloc(nk * 2), *hout = malloc(nq * 2);
    double *q = malloc(nq * 8), *dO = malloc(nq * 8), *k = malloc(nk * 8), *v = malloc(nk * 8), *o = malloc(nq * 8);
    double *m = malloc(nr * 8), *l = malloc(nr * 8), *out = malloc(nq * 8), *lse = malloc(nr * 8), *D = malloc(nr * 8);
    double *dq = calloc(nq, 8), *dk = calloc(nk, 8), *dv = calloc(nk, 8);
    float *f = malloc((nq > nk ? nq : nk) * 4);
    CU_ASSERT_FATAL(hq && hdo && hk && hv && hout && q && dO && k && v && o && m && l && out && lse && D && dq && dk && dv && f);
    rs_gpu_fill_random(dt, hq, nq, 2.0, 11 + rank);
    rs_gpu_fill_random(dt, hdo, nq, 1.0, 31 + rank);
    rs_gpu_unpack(dt, hq, q, nq);
    rs_gpu_unpack(dt, hdo, dO, nq);
    void *gq = dalloc(nq * 2), *gdo = dalloc(nq * 2), *gk = dalloc(nk * 2), *gv = dalloc(nk * 2), *gout = dalloc(nq * 2);
    float *go = dalloc(nq * 4), *gm = dalloc(nr * 4), *gl = dalloc(nr * 4), *glse = dalloc(nr * 4), *gD = dalloc(nr * 4);
    float *gdq = dalloc(nq * 4), *gdk = dalloc(nk * 4), *gdv = dalloc(nk * 4);
    CU_ASSERT_FATAL(cudaMemcpy(gq, hq, nq * 2, cudaMemcpyHostToDevice) == cudaSuccess);
    CU_ASSERT_FATAL(cudaMemcpy(gdo, hdo, nq * 2, cudaMemcpyHostToDevice) == cudaSuccess);
    const rs_gpu_fwd_bufs_t gf = {gq, gk, gv, go, gm, gl, gout, NULL, glse};
    const rs_gpu_bwd_bufs_t gb = {gq, gdo, gk, gv, gout, glse, gD, gdq, gdk, gdv};
    const rs_gpu_ref_bufs_t rb = {q, k, v, dO, o, m, l, out, lse, D, dq, dk, dv};
    CU_ASSERT_FATAL(rs_gpu_fwd_init(&sh, &gf, 0, &err) == 0);
    rs_gpu_ref_fwd_init(&sh, &rb);
    *worst = 0, *bad = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            CU_ASSERT_FATAL(rs_gpu_fwd_finalize(&sh, &gf, 0, &err) == 0);
            CU_ASSERT_FATAL(cudaMemcpy(hout, gout, nq * 2, cudaMemcpyDeviceToHost) == cudaSuccess);
            CU_ASSERT_FATAL(cudaMemcpy(f, glse, nr * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
            rs_gpu_ref_fwd_finalize(&sh, &rb);
            rs_gpu_check_t co = rs_gpu_check_16("O", dt, hout, out, nq, (rs_gpu_tol_t){2e-2, 2e-2, 3});
            rs_gpu_check_t cl = rs_gpu_check_f32("lse", f, lse, nr, (rs_gpu_tol_t){1e-3, 1e-3, 3});
            *worst = fmax(*worst, fmax(co.rel_l2, cl.rel_l2));
            *bad += co.n_bad + cl.n_bad;
            /* the backward runs on the GPU's O and lse: the reference uses them too */
            rs_gpu_unpack(dt, hout, out, nq);
            for (size_t i = 0; i < nr; i++) lse[i] = f[i];
            rs_gpu_ref_bwd_prep(&sh, &rb);
            CU_ASSERT_FATAL(rs_gpu_bwd_prep(&sh, &gb, 0, &err) == 0);
            CU_ASSERT_FATAL(cudaMemset(gdq, 0, nq * 4) == cudaSuccess);
        }
        for (int64_t step = 0; step < rs_schedule_n_steps(s); step++) {
            rs_step_t st;
            rs_gpu_step_desc_t desc;
            rs_schedule_step(s, rank, step, &st);
            if (!st.has_compute) continue;
            CU_ASSERT_FATAL(rs_gpu_desc_from_step(&st, &desc, &err) == 0);
            rs_gpu_fill_random(dt, hk, nk, 2.0, 100 + (uint64_t)st.kv_owner);
            rs_gpu_fill_random(dt, hv, nk, 1.0, 200 + (uint64_t)st.kv_owner);
            rs_gpu_unpack(dt, hk, k, nk);
            rs_gpu_unpack(dt, hv, v, nk);
            CU_ASSERT_FATAL(cudaMemcpy(gk, hk, nk * 2, cudaMemcpyHostToDevice) == cudaSuccess);
            CU_ASSERT_FATAL(cudaMemcpy(gv, hv, nk * 2, cudaMemcpyHostToDevice) == cudaSuccess);
            if (pass == 0) {
                CU_ASSERT_FATAL(rs_gpu_fwd_step(kern, &sh, &desc, &gf, 0, &err) == 0);
                rs_gpu_ref_fwd_step(&sh, &desc, &rb);
                continue;
            }
            CU_ASSERT_FATAL(cudaMemset(gdk, 0, nk * 4) == cudaSuccess && cudaMemset(gdv, 0, nk * 4) == cudaSuccess);
            memset(dk, 0, nk * 8), memset(dv, 0, nk * 8);
            CU_ASSERT_FATAL(rs_gpu_bwd_step(kern, &sh, &desc, &gb, 0, &err) == 0);
            rs_gpu_ref_bwd_step(&sh, &desc, &rb);
            CU_ASSERT_FATAL(cudaMemcpy(f, gdk, nk * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
            rs_gpu_check_t ck = rs_gpu_check_f32("dK", f, dk, nk, (rs_gpu_tol_t){1e-2 * max_abs(dk, nk), 2e-2, 3});
            CU_ASSERT_FATAL(cudaMemcpy(f, gdv, nk * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
            rs_gpu_check_t cv = rs_gpu_check_f32("dV", f, dv, nk, (rs_gpu_tol_t){1e-2 * max_abs(dv, nk), 2e-2, 3});
            *worst = fmax(*worst, fmax(ck.rel_l2, cv.rel_l2));
            *bad += ck.n_bad + cv.n_bad;
        }
    }
    CU_ASSERT_FATAL(cudaMemcpy(f, gdq, nq * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    rs_gpu_check_t cq = rs_gpu_check_f32("dQ", f, dq, nq, (rs_gpu_tol_t){1e-2 * max_abs(dq, nq), 2e-2, 3});
    *worst = fmax(*worst, cq.rel_l2);
    *bad += cq.n_bad;
    CU_ASSERT(cudaDeviceSynchronize() == cudaSuccess);
    void *gbufs[] = {gq, gdo, gk, gv, gout, go, gm, gl, glse, gD, gdq, gdk, gdv};
    for (size_t i = 0; i < sizeof gbufs / sizeof gbufs[0]; i++) cudaFree(gbufs[i]);
    void *hbufs[] = {hq, hdo, hk, hv, hout, q, dO, k, v, o, m, l, out, lse, D, dq, dk, dv, f};
    for (size_t i = 0; i < sizeof hbufs / sizeof hbufs[0]; i++) free(hbufs[i]);
    rs_schedule_free(s);
}

static void kernels_for(rs_gpu_kernel_t kern) {
    const int dims[] = {64, 128};
    for (int dt = 0; dt < 2; dt++)
        for (int di = 0; di < 2; di++)
            for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++)
                for (int c = 0; c < 2; c++)
                    for (int rank = 0; rank < 2; rank++) {
                        double worst;
                        size_t bad;
                        kernel_case(kern, (rs_gpu_dtype_t)dt, dims[di], (rs_layout_t)lay, c, rank, &worst, &bad);
                        if (!(worst <= 1e-2) || bad)
                            fprintf(stderr, "  %s %s d=%d %s %s rank %d: worst rel_l2 %.3g, %zu bad\n",
                                    rs_gpu_kernel_name(kern), rs_gpu_dtype_name((rs_gpu_dtype_t)dt), dims[di],
                                    rs_layout_name((rs_layout_t)lay), c ? "causal" : "full", rank, worst, bad);
                        CU_ASSERT(worst <= 1e-2 && bad == 0);
                    }
}
static void test_kernels_ref(void) { kernels_for(RS_GPU_KERNEL_REF); }
static void test_kernels_mma(void) { kernels_for(RS_GPU_KERNEL_MMA); }
static void test_kernels_mma_ldsm(void) { kernels_for(RS_GPU_KERNEL_MMA_LDSM); }
static void test_kernels_mma64(void) { kernels_for(RS_GPU_KERNEL_MMA64); }

/* ---------------------------------------------------------------------------------------------------
 * NCCL transport on one GPU
 * ------------------------------------------------------------------------------------------------- */
static void test_nccl_self(void) {
    void *ts[1] = {NULL};
    rs_err_t err = {0};
    if (rs_nccl_world_create(1, ts, &err) < 0) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts[0]);
    const size_t bytes = (size_t)64 << 20;
    unsigned char *h = malloc(bytes), *h2 = malloc(bytes);
    CU_ASSERT_FATAL(h && h2);
    for (size_t i = 0; i < bytes; i++) h[i] = (unsigned char)(rs_hash_unit(5, i / 4096, 0) * 256) ^ (unsigned char)i;
    void *a = dalloc(bytes), *b = dalloc(bytes);
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

/* The watchdog on an injected stall: rank 1 of a 3-rank ring alone on the GPU (loopback), its step-1
 * transfers queued behind a kernel that waits until the watchdog fires; the run fails after the
 * timeout, naming the rank, the pass and step, and the peer; for both loopback kinds. */
static void *make_loop(void *arg, int64_t rank, rs_err_t *err) {
    const int64_t *nk = arg; /* {N, how} */
    return rs_nccl_loopback_create(rank, nk[0], 0, (rs_gpu_loop_t)nk[1], err);
}

static void watchdog_case(rs_gpu_loop_t how) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 3 * 1024, p.n_ranks = 3, p.q_heads = 4, p.kv_heads = 2, p.head_dim = 128, p.layout = RS_LAYOUT_ZIGZAG;
    rs_gpu_kernel_tile(p.pass, p.head_dim, &p.tile_q, &p.tile_k);
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    o.reps = 1, o.warmup = 0, o.timeout_s = 2.0, o.stall_rank = 1, o.stall_step = 1;
    int64_t nk[2] = {3, how};
    const int64_t only[1] = {1};
    rs_exec_result_t res;
    const double t0 = rs_now_s();
    int rc = rs_exec_run_loopback(s, &(rs_exec_loopback_t){rs_gpu_compute_ops_for(RS_DTYPE_BF16), &rs_nccl_transport_ops, make_loop, nk, only, 1}, &o,
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
    rc = rs_exec_run_loopback(s, &(rs_exec_loopback_t){rs_gpu_compute_ops_for(RS_DTYPE_BF16), &rs_nccl_transport_ops, make_loop, nk, only, 1}, &o,
                                  NULL, &res, &err);
    if (rc) fprintf(stderr, "  after the stall: %s\n", err.msg);
    CU_ASSERT(rc == 0);
    rs_schedule_free(s);
    (void)cudaGetLastError();
}
static void test_nccl_watchdog(void) { watchdog_case(RS_GPU_LOOP_NCCL); }
static void test_copy_watchdog(void) { watchdog_case(RS_GPU_LOOP_COPY); }

/* Loopback rings (N = 4) rank by rank, both kinds, forward and backward, zigzag causal: every
 * (rank, step) event is there, each receive took time and carried the schedule's bytes. */
static void test_ring_loopback(void) {
    for (int how = RS_GPU_LOOP_NCCL; how <= RS_GPU_LOOP_COPY; how++)
        for (int pass = 0; pass < 2; pass++) {
            rs_problem_t p;
            rs_problem_default(&p);
            p.seq_tokens = 4 * 2048, p.n_ranks = 4, p.q_heads = 8, p.kv_heads = 2, p.head_dim = 128;
            p.layout = RS_LAYOUT_ZIGZAG, p.pass = (rs_pass_t)pass;
            rs_gpu_kernel_tile(p.pass, p.head_dim, &p.tile_q, &p.tile_k);
            rs_err_t err = {0};
            rs_schedule_t *s = rs_schedule_create(&p, &err);
            CU_ASSERT_PTR_NOT_NULL_FATAL(s);
            rs_exec_opts_t o;
            rs_exec_opts_default(&o);
            o.reps = 2, o.warmup = 1;
            int64_t nk[2] = {4, how};
            rs_trace_t *t = rs_trace_create("exec-gpu");
            rs_exec_result_t res;
            int rc = rs_exec_run_loopback(s, &(rs_exec_loopback_t){rs_gpu_compute_ops_for(RS_DTYPE_BF16), &rs_nccl_transport_ops, make_loop, nk, NULL, 0}, &o,
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

/* ---------------------------------------------------------------------------------------------------
 * The ring through the executor
 * ------------------------------------------------------------------------------------------------- */
static void ring_case(int64_t N, rs_layout_t lay, bool causal, rs_pass_t pass) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 1024 * N, p.n_ranks = N, p.batch = 1, p.q_heads = 4, p.kv_heads = 2, p.head_dim = 128;
    p.layout = lay, p.causal = causal, p.pass = pass, p.act_bytes = 2, p.grad_bytes = 4;
    rs_gpu_kernel_tile(pass, p.head_dim, &p.tile_q, &p.tile_k);
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    void **ts = calloc((size_t)N, sizeof *ts);
    CU_ASSERT_FATAL(ts && rs_nccl_world_create(N, ts, &err) == 0);
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    o.check = true, o.check_tol = 2e-2, o.reps = 2, o.warmup = 1, o.timeout_s = 60;
    rs_trace_t *t = rs_trace_create("exec-gpu");
    rs_exec_result_t res;
    int rc = rs_exec_run_threads(s, &(rs_exec_threads_t){rs_gpu_compute_ops_for(RS_DTYPE_BF16), &rs_nccl_transport_ops, ts}, &o, t, &res, &err);
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
    rs_nccl_world_free(ts, N);
    free(ts);
    rs_schedule_free(s);
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
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    void **ts = calloc((size_t)N, sizeof *ts);
    CU_ASSERT_FATAL(ts && rs_nccl_world_create(N, ts, &err) == 0);
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    o.check = true, o.check_tol = 2e-2, o.reps = 1, o.warmup = 1, o.timeout_s = 60;
    rs_exec_result_t res;
    int rc = rs_exec_run_threads(s, &(rs_exec_threads_t){rs_gpu_compute_ops_for(RS_DTYPE_BF16), &rs_nccl_transport_ops, ts}, &o, NULL, &res, &err);
    if (rc || !res.check_ok)
        fprintf(stderr, "  N=%lld %s %s%s: rc %d O %.3g lse %.3g: %s\n", (long long)N, rs_layout_name(lay), rs_ring_name(p.ring),
                decode ? " decode" : "", rc, res.err[RS_TENSOR_O], res.err[RS_TENSOR_LSE], err.msg);
    CU_ASSERT(rc == 0 && res.check_ok && res.finite);
    rs_nccl_world_free(ts, N);
    free(ts);
    rs_schedule_free(s);
}

static void test_infer(void) {
    const int64_t N = n_gpus > 8 ? 8 : n_gpus;
    for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++)
        for (int ring = 0; ring < RS_RING_COUNT; ring++) {
            infer_case(1, (rs_layout_t)lay, (rs_ring_t)ring, false);
            if (N > 1) infer_case(N, (rs_layout_t)lay, (rs_ring_t)ring, false);
        }
    infer_case(1, RS_LAYOUT_ZIGZAG, RS_RING_PASS_Q, true);
    if (N > 1) infer_case(N, RS_LAYOUT_STRIPED, RS_RING_PASS_Q, true);
}

static void test_ring_n1(void) {
    for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++)
        for (int pass = 0; pass < 2; pass++) ring_case(1, (rs_layout_t)lay, true, (rs_pass_t)pass);
    ring_case(1, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_FORWARD);
}

static void test_ring_multi(void) {
    if (n_gpus < 2) {
        fprintf(stderr, "  (one GPU: multi-GPU ring not run)\n");
        return;
    }
    int64_t N = n_gpus > 8 ? 8 : n_gpus;
    for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++)
        for (int pass = 0; pass < 2; pass++) ring_case(N, (rs_layout_t)lay, true, (rs_pass_t)pass);
}

int main(void) {
    n_gpus = rs_gpu_device_count();
    if (n_gpus == 0) {
        printf("skipped: no GPU\n");
        return RS_TEST_SKIP;
    }
    static const rs_test_case_t kernels[] = {{"ref_vs_float64", test_kernels_ref},
                                             {"mma_vs_float64", test_kernels_mma},
                                             {"mma_ldsm_vs_float64", test_kernels_mma_ldsm},
                                             {"mma64_vs_float64", test_kernels_mma64},
                                             {NULL, NULL}};
    static const rs_test_case_t nccl[] = {{"self_send_recv", test_nccl_self}, {NULL, NULL}};
    static const rs_test_case_t ring[] = {{"n1_all_layouts", test_ring_n1},
                                          {"multi_gpu", test_ring_multi},
                                          {"loopback_n4", test_ring_loopback},
                                          {"inference_cached_pass_q_decode", test_infer},
                                          {NULL, NULL}};
    /* last: an aborted communicator (and its killed kernel) must not disturb the other tests */
    static const rs_test_case_t wd[] = {{"watchdog_nccl_stall", test_nccl_watchdog},
                                        {"watchdog_copy_stall", test_copy_watchdog},
                                        {NULL, NULL}};
    static const rs_test_suite_t suites[] = {
        {"gpu_kernels", kernels}, {"gpu_nccl", nccl}, {"gpu_ring", ring}, {"gpu_watchdog", wd}};
    return rs_test_main(suites, 4);
}
