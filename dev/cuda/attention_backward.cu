// attention_backward.cu - check and time the backward attention kernels of one ring step.
//
//   ./attention_backward [VARIANT] [options]     VARIANT: 0 = ref (plain), 1 = mma (default)
//
// Check: for every layout, causal and not, ranks of a small ring (N = 2, B = 320): the forward is
// folded in float64 on the CPU (O rounded to the 16-bit dtype, lse), D = rowsum(dO * O) is computed
// on the GPU (checked), then every compute step of the backward schedule runs on the GPU and in
// float64: dK, dV of the step's KV block are compared after each step, dQ after the last.
// Pass iff rel_l2 <= 1e-2 for each tensor and every element is within 1e-2 max|ref| + 2e-2 |ref|.
// Then one B x B block is timed (CUDA events, median); FLOPs are the schedule's backward count,
// 10 d per visible pair per head (2.5x the forward).
#include "common.h"


static double max_abs(const std::vector<double> &x) {
    double m = 0;
    for (double v : x) m = fmax(m, fabs(v));
    return m;
}

// One case of the check: rank `rank` of a ring of 2 (S = 640), layout lay, causal c: the forward in
// float64, D on the GPU, every backward compute step on the GPU and in float64. Prints its row.
static bool check_one(const DevArgs &args, int lay, int c, int rank, cudaStream_t st) {
    const rs_gpu_kernel_t kern = args.kern;
    const rs_gpu_dtype_t dtype = args.dtype;
    const int dim = args.dim;
    const int N = 2, S = 640, cb = 1, chq = 4, chkv = 2;
    rs_err_t err = {};
    DevCase dc = dev_case({(rs_layout_t)lay, c != 0, S, N, rank, RS_PASS_BACKWARD, cb, chq, chkv, dim, rs_gpu_bwd_tile_q(kern),
                           rs_gpu_bwd_tile_k(kern)});
    const int B = S / N;
    rs_gpu_shape_t sh = {dtype, cb, chq, chkv, dim, B, B, 1.0f / sqrtf((float)dim)};
    const size_t nq = rs_gpu_shape_q_elems(&sh), nk = rs_gpu_shape_kv_elems(&sh), nr = rs_gpu_shape_row_elems(&sh);
    std::vector<uint16_t> hq16(nq), hdo16(nq), hout16(nq);
    DevKV kv(nk);
    std::vector<double> q(nq), dO(nq), o(nq), m(nr), l(nr), out(nq), lse(nr), D(nr);
    std::vector<double> dq(nq, 0.0), dk(nk), dv(nk);
    std::vector<float> hlse(nr), hD(nr), gq(nq), gk(nk), gv(nk), tmpf(std::max(nq, nk));
    rs_gpu_fill_random(dtype, hq16.data(), nq, 2.0, 11 + rank);
    rs_gpu_fill_random(dtype, hdo16.data(), nq, 1.0, 31 + rank);
    rs_gpu_unpack(dtype, hq16.data(), q.data(), nq);
    rs_gpu_unpack(dtype, hdo16.data(), dO.data(), nq);
    const rs_gpu_ref_bufs_t rb = {q.data(), kv.k.data(), kv.v.data(), dO.data(), o.data(), m.data(), l.data(), out.data(),
                                  lse.data(), D.data(), dq.data(), dk.data(), dv.data()};
    // forward in float64 over the compute steps (the backward schedule's first N steps)
    rs_gpu_ref_fwd_init(&sh, &rb);
    const int64_t nsteps = rs_schedule_n_steps(dc.sched);
    for (int64_t step = 0; step < nsteps; step++) {
        rs_step_t s;
        rs_gpu_step_desc_t desc;
        if (!dev_step(dc, step, &s, &desc)) continue;
        dev_step_kv(dtype, s, nk, kv);
        rs_gpu_ref_fwd_step(&sh, &desc, &rb);
    }
    rs_gpu_ref_fwd_finalize(&sh, &rb);
    for (size_t i = 0; i < nq; i++) tmpf[i] = (float)out[i];
    rs_gpu_pack(dtype, tmpf.data(), hout16.data(), nq);
    rs_gpu_unpack(dtype, hout16.data(), out.data(), nq); // the GPU sees the rounded O
    rs_gpu_ref_bwd_prep(&sh, &rb);
    for (size_t i = 0; i < nr; i++) hlse[i] = (float)lse[i];

    uint16_t *d_q = dev_alloc<uint16_t>(nq), *d_do = dev_alloc<uint16_t>(nq), *d_out = dev_alloc<uint16_t>(nq);
    uint16_t *d_k = dev_alloc<uint16_t>(nk), *d_v = dev_alloc<uint16_t>(nk);
    float *d_lse = dev_alloc<float>(nr), *d_D = dev_alloc<float>(nr), *d_dq = dev_alloc<float>(nq);
    float *d_dk = dev_alloc<float>(nk), *d_dv = dev_alloc<float>(nk);
    dev_upload(d_q, hq16.data(), nq);
    dev_upload(d_do, hdo16.data(), nq);
    dev_upload(d_out, hout16.data(), nq);
    dev_upload(d_lse, hlse.data(), nr);
    RS_CUDA_CHECK(cudaMemset(d_dq, 0, nq * sizeof(float)));
    const rs_gpu_bwd_bufs_t gb = {d_q, d_do, d_k, d_v, d_out, d_lse, d_D, d_dq, d_dk, d_dv};
    dev_try(rs_gpu_bwd_prep(&sh, &gb, st, &err), &err);
    RS_CUDA_CHECK(cudaDeviceSynchronize());
    dev_download(hD.data(), d_D, nr);
    rs_gpu_check_t cD = rs_gpu_check_f32("D", hD.data(), D.data(), nr, {1e-4 * max_abs(D), 1e-4, 3});
    double worst_k = 0, worst_v = 0;
    size_t bad = cD.n_bad;
    for (int64_t step = 0; step < nsteps; step++) {
        rs_step_t s;
        rs_gpu_step_desc_t desc;
        if (!dev_step(dc, step, &s, &desc)) continue;
        dev_step_kv(dtype, s, nk, kv);
        dev_upload(d_k, kv.k16.data(), nk);
        dev_upload(d_v, kv.v16.data(), nk);
        RS_CUDA_CHECK(cudaMemset(d_dk, 0, nk * sizeof(float)));
        RS_CUDA_CHECK(cudaMemset(d_dv, 0, nk * sizeof(float)));
        std::fill(dk.begin(), dk.end(), 0.0);
        std::fill(dv.begin(), dv.end(), 0.0);
        dev_try(rs_gpu_bwd_step(kern, &sh, &desc, &gb, st, &err), &err);
        RS_CUDA_CHECK(cudaDeviceSynchronize());
        rs_gpu_ref_bwd_step(&sh, &desc, &rb);
        dev_download(gk.data(), d_dk, nk);
        dev_download(gv.data(), d_dv, nk);
        char nm[64];
        snprintf(nm, sizeof nm, "dK step %lld", (long long)step);
        rs_gpu_check_t ck = rs_gpu_check_f32(nm, gk.data(), dk.data(), nk, {1e-2 * max_abs(dk), 2e-2, 3});
        snprintf(nm, sizeof nm, "dV step %lld", (long long)step);
        rs_gpu_check_t cv = rs_gpu_check_f32(nm, gv.data(), dv.data(), nk, {1e-2 * max_abs(dv), 2e-2, 3});
        // an all-zero step (skipped blocks) compares exactly: rel_l2 = 0
        worst_k = fmax(worst_k, ck.rel_l2);
        worst_v = fmax(worst_v, cv.rel_l2);
        bad += ck.n_bad + cv.n_bad;
    }
    dev_download(gq.data(), d_dq, nq);
    rs_gpu_check_t cq = rs_gpu_check_f32("dQ", gq.data(), dq.data(), nq, {1e-2 * max_abs(dq), 2e-2, 3});
    bad += cq.n_bad;
    const bool ok = bad == 0 && cD.rel_l2 <= 1e-3 && cq.rel_l2 <= 1e-2 && worst_k <= 1e-2 && worst_v <= 1e-2;
    char name[64];
    snprintf(name, sizeof name, "%s %s rank %d", rs_layout_name((rs_layout_t)lay), c ? "causal" : "full", rank);
    printf("  %-28s %11.3e %11.3e %11.3e %11.3e %8zu %s\n", name, cD.rel_l2, cq.rel_l2, worst_k, worst_v, bad,
           ok ? "OK" : "FAILED");
    cudaFree(d_q), cudaFree(d_do), cudaFree(d_out), cudaFree(d_k), cudaFree(d_v), cudaFree(d_lse);
    cudaFree(d_D), cudaFree(d_dq), cudaFree(d_dk), cudaFree(d_dv);
    rs_schedule_free(dc.sched);
    return ok;
}

// Time one call shape under every mask; returns the number of failures (a non-finite dV).
static int time_shape(const char *prog, const DevArgs &args, const DevShape &shp, cudaStream_t st) {
    const rs_gpu_kernel_t kern = args.kern;
    const rs_gpu_dtype_t dtype = args.dtype;
    const int batch = args.batch, hq = args.hq, hkv = args.hkv, dim = args.dim, warmup = args.warmup, reps = args.reps;
    const std::vector<DevMask> &masks = args.masks;
    rs_err_t err = {};
    int failed = 0;
    rs_gpu_shape_t sh = {dtype, batch, hq, hkv, dim, shp.q, shp.k, 1.0f / sqrtf((float)dim)};
    if (rs_gpu_shape_validate(&sh, &err)) dev_usage(prog, err.msg);
    const size_t nq = rs_gpu_shape_q_elems(&sh), nk = rs_gpu_shape_kv_elems(&sh), nr = rs_gpu_shape_row_elems(&sh);
    std::vector<uint16_t> h(std::max(nq, nk));
    std::vector<float> hl(nr);
    uint16_t *d_q = dev_alloc<uint16_t>(nq), *d_do = dev_alloc<uint16_t>(nq), *d_k = dev_alloc<uint16_t>(nk);
    uint16_t *d_v = dev_alloc<uint16_t>(nk);
    float *d_lse = dev_alloc<float>(nr), *d_D = dev_alloc<float>(nr), *d_dq = dev_alloc<float>(nq);
    float *d_dk = dev_alloc<float>(nk), *d_dv = dev_alloc<float>(nk);
    dev_random_upload(dtype, h, d_q, nq, 2.0, 1 + shp.q);
    dev_random_upload(dtype, h, d_do, nq, 1.0, 4 + shp.q);
    dev_random_upload(dtype, h, d_k, nk, 2.0, 2 + shp.k);
    dev_random_upload(dtype, h, d_v, nk, 1.0, 3 + shp.k);
    // plausible statistics: lse ~ log(k) + a margin so P stays <= 1; D small
    for (size_t i = 0; i < nr; i++) hl[i] = logf((float)shp.k) + 2.0f;
    dev_upload(d_lse, hl.data(), nr);
    for (size_t i = 0; i < nr; i++) hl[i] = 0.01f * (float)((i % 7) - 3);
    dev_upload(d_D, hl.data(), nr);
    const rs_gpu_bwd_bufs_t gb = {d_q, d_do, d_k, d_v, NULL, d_lse, d_D, d_dq, d_dk, d_dv};
    /* deliberate twin of attention_forward.cu's timing loop: each dev/cuda program stands alone
     * (one kernel family, check then time), so each keeps its own loop */
    for (const DevMask &mk : masks) {
        RS_CUDA_CHECK(cudaMemset(d_dq, 0, nq * sizeof(float)));
        RS_CUDA_CHECK(cudaMemset(d_dk, 0, nk * sizeof(float)));
        RS_CUDA_CHECK(cudaMemset(d_dv, 0, nk * sizeof(float)));
        DevFlops fl;
        const rs_gpu_step_desc_t desc = dev_call(shp, mk, 10.0 * dim * hq * batch, rs_gpu_bwd_tile_q(kern),
                                                 rs_gpu_bwd_tile_k(kern), &fl);
        double t = dev_time_median([&] { dev_try(rs_gpu_bwd_step(kern, &sh, &desc, &gb, st, &err), &err); }, warmup, reps);
        RS_CUDA_CHECK(cudaGetLastError());
        std::vector<float> chk(nk);
        dev_download(chk.data(), d_dv, nk);
        for (size_t i = 0; i < nk; i++)
            if (!isfinite(chk[i])) {
                printf("# time: dV[%zu] = %g after the timed runs (%s): FAILED\n", i, chk[i], mk.name);
                failed++;
                break;
            }
        dev_time_row("backward", args, shp, mk, t, fl);
    }
    cudaFree(d_q), cudaFree(d_do), cudaFree(d_k), cudaFree(d_v), cudaFree(d_lse), cudaFree(d_D), cudaFree(d_dq);
    cudaFree(d_dk), cudaFree(d_dv);
    return failed;
}

int main(int argc, char **argv) {
    const char *prog = "attention_backward";
    const DevArgs args = dev_parse(argc, argv, prog);
    const bool do_check = args.do_check, do_time = args.do_time;
    const std::vector<DevShape> &shapes = args.shapes;
    cudaStream_t st = 0;
    int failed = 0;

    if (do_check) {
        printf("# %-28s %11s %11s %11s %11s %8s %s\n", "check", "rel_l2(D)", "rel_l2(dQ)", "rel_l2(dK)", "rel_l2(dV)",
               "n_bad", "result");
        for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++)
            for (int c = 1; c >= 0; c--)
                for (int rank = 0; rank < 2; rank++) failed += !check_one(args, lay, c, rank, st);
        printf("# check: %s\n", failed ? "FAILED" : "OK");
    }

    if (do_time) {
        dev_time_header();
        for (const DevShape &shp : shapes) failed += time_shape(prog, args, shp, st);
    }
    return failed ? 1 : 0;
}
