// attention_forward.cu - check and time the forward attention kernels of one ring step.
//
//   ./attention_forward [VARIANT] [options]      VARIANT: 0 = ref (plain), 1 = mma (default)
//
// Check (llm.c pattern): for every layout, causal and not, the steps of ranks of a small ring
// (N = 2, B = 320 rows so tiles are clipped at segment edges; zigzag chunks of 160) are folded on the
// GPU and in float64 on the CPU from the same bf16/fp16 inputs, then O (16-bit) and lse are compared:
// pass iff ||O - ref|| / ||ref|| <= 1e-2 and every element is within 2e-2 + 2e-2 |ref| (lse: 1e-3).
// Outputs are poisoned (NaN) first, so an unwritten element fails. Then the kernel is timed with CUDA
// events (median of --reps after --warmup) for each call shape of --rows and mask of --mask.
#include "common.h"


int main(int argc, char **argv) {
    const char *prog = "attention_forward";
    const DevArgs args = dev_parse(argc, argv, prog);
    const rs_gpu_kernel_t kern = args.kern;
    const rs_gpu_dtype_t dtype = args.dtype;
    const int batch = args.batch, hq = args.hq, hkv = args.hkv, dim = args.dim, warmup = args.warmup, reps = args.reps;
    const bool do_check = args.do_check, do_time = args.do_time;
    const std::vector<DevShape> &shapes = args.shapes;
    const std::vector<DevMask> &masks = args.masks;
    rs_err_t err = {};
    cudaStream_t st = 0;
    int failed = 0;

    if (do_check) {
        printf("# %-28s %11s %11s %11s %8s %s\n", "check", "rel_l2(O)", "max_err(O)", "rel_l2(lse)", "n_bad", "result");
        const int N = 2, S = 640, cb = 1, chq = 4, chkv = 2;
        for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++)
            for (int c = 1; c >= 0; c--)
                for (int rank = 0; rank < N; rank++) {
                    DevCase dc = dev_case({(rs_layout_t)lay, c != 0, S, N, rank, RS_PASS_FORWARD, cb, chq, chkv, dim,
                                           rs_gpu_fwd_tile_q(kern), rs_gpu_fwd_tile_k(kern)});
                    const int B = S / N;
                    rs_gpu_shape_t sh = {dtype, cb, chq, chkv, dim, B, B, 1.0f / sqrtf((float)dim)};
                    const size_t nq = rs_gpu_shape_q_elems(&sh), nk = rs_gpu_shape_kv_elems(&sh), nr = rs_gpu_shape_row_elems(&sh);
                    std::vector<uint16_t> hq16(nq), hout(nq);
                    DevKV kv(nk);
                    std::vector<double> q(nq), o(nq), m(nr), l(nr), out(nq), lse(nr);
                    std::vector<float> hlse(nr);
                    rs_gpu_fill_random(dtype, hq16.data(), nq, 2.0, 11 + rank);
                    rs_gpu_unpack(dtype, hq16.data(), q.data(), nq);
                    uint16_t *dq = dev_alloc<uint16_t>(nq), *dk = dev_alloc<uint16_t>(nk), *dv = dev_alloc<uint16_t>(nk);
                    uint16_t *dout = dev_alloc<uint16_t>(nq);
                    float *d_o = dev_alloc<float>(nq), *d_m = dev_alloc<float>(nr), *d_l = dev_alloc<float>(nr);
                    float *d_lse = dev_alloc<float>(nr);
                    dev_upload(dq, hq16.data(), nq);
                    const rs_gpu_fwd_bufs_t gb = {dq, dk, dv, d_o, d_m, d_l, dout, NULL, d_lse};
                    const rs_gpu_ref_bufs_t rb = {q.data(), kv.k.data(), kv.v.data(), NULL, o.data(), m.data(), l.data(), out.data(),
                                                  lse.data(), NULL, NULL, NULL, NULL};
                    dev_try(rs_gpu_fwd_init(&sh, &gb, st, &err), &err);
                    rs_gpu_ref_fwd_init(&sh, &rb);
                    for (int64_t step = 0; step < rs_schedule_n_steps(dc.sched); step++) {
                        rs_step_t s;
                        rs_gpu_step_desc_t desc;
                        rs_schedule_step(dc.sched, rank, step, &s);
                        dev_try(rs_gpu_desc_from_step(&s, &desc, &err), &err);
                        dev_step_kv(dtype, s, nk, kv);
                        dev_upload(dk, kv.k16.data(), nk);
                        dev_upload(dv, kv.v16.data(), nk);
                        dev_try(rs_gpu_fwd_step(kern, &sh, &desc, &gb, st, &err), &err);
                        RS_CUDA_CHECK(cudaDeviceSynchronize());
                        rs_gpu_ref_fwd_step(&sh, &desc, &rb);
                    }
                    dev_try(rs_gpu_fwd_finalize(&sh, &gb, st, &err), &err);
                    RS_CUDA_CHECK(cudaDeviceSynchronize());
                    rs_gpu_ref_fwd_finalize(&sh, &rb);
                    dev_download(hout.data(), dout, nq);
                    dev_download(hlse.data(), d_lse, nr);
                    char name[64];
                    snprintf(name, sizeof name, "%s %s rank %d", rs_layout_name((rs_layout_t)lay), c ? "causal" : "full", rank);
                    rs_gpu_check_t co = rs_gpu_check_16(name, dtype, hout.data(), out.data(), nq, {2e-2, 2e-2, 5});
                    rs_gpu_check_t cl = rs_gpu_check_f32(name, hlse.data(), lse.data(), nr, {1e-3, 1e-3, 5});
                    const bool ok = co.n_bad == 0 && cl.n_bad == 0 && co.rel_l2 <= 1e-2 && cl.rel_l2 <= 1e-3;
                    failed += !ok;
                    printf("  %-28s %11.3e %11.3e %11.3e %8zu %s\n", name, co.rel_l2, co.max_abs_err, cl.rel_l2,
                           co.n_bad + cl.n_bad, ok ? "OK" : "FAILED");
                    cudaFree(dq), cudaFree(dk), cudaFree(dv), cudaFree(dout), cudaFree(d_o), cudaFree(d_m), cudaFree(d_l), cudaFree(d_lse);
                    rs_schedule_free(dc.sched);
                }
        printf("# check: %s\n", failed ? "FAILED" : "OK");
    }

    if (do_time) {
        // One kernel call per (shape, mask), as a ring step issues it: Q rows x KV rows, fresh random
        // bf16/fp16 inputs (never zeros), the running state reset before the timed runs.
        dev_time_header();
        for (const DevShape &shp : shapes) {
            rs_gpu_shape_t sh = {dtype, batch, hq, hkv, dim, shp.q, shp.k, 1.0f / sqrtf((float)dim)};
            if (rs_gpu_shape_validate(&sh, &err)) dev_usage(prog, err.msg);
            const size_t nq = rs_gpu_shape_q_elems(&sh), nk = rs_gpu_shape_kv_elems(&sh), nr = rs_gpu_shape_row_elems(&sh);
            std::vector<uint16_t> h(std::max(nq, nk));
            uint16_t *dq = dev_alloc<uint16_t>(nq), *dk = dev_alloc<uint16_t>(nk), *dv = dev_alloc<uint16_t>(nk);
            float *d_o = dev_alloc<float>(nq), *d_m = dev_alloc<float>(nr), *d_l = dev_alloc<float>(nr);
            dev_random_upload(dtype, h, dq, nq, 2.0, 1 + shp.q);
            dev_random_upload(dtype, h, dk, nk, 2.0, 2 + shp.k);
            dev_random_upload(dtype, h, dv, nk, 1.0, 3 + shp.k);
            const rs_gpu_fwd_bufs_t gb = {dq, dk, dv, d_o, d_m, d_l, NULL, NULL, NULL};
            /* deliberate twin of attention_backward.cu's timing loop (each program stands alone) */
            for (const DevMask &mk : masks) {
                dev_try(rs_gpu_fwd_init(&sh, &gb, st, &err), &err);
                DevFlops fl;
                const rs_gpu_step_desc_t desc = dev_call(shp, mk, 4.0 * dim * hq * batch, rs_gpu_fwd_tile_q(kern),
                                                         rs_gpu_fwd_tile_k(kern), &fl);
                double t = dev_time_median([&] { dev_try(rs_gpu_fwd_step(kern, &sh, &desc, &gb, st, &err), &err); }, warmup, reps);
                RS_CUDA_CHECK(cudaGetLastError());
                std::vector<float> lcheck(nr);
                dev_download(lcheck.data(), d_l, nr);
                for (size_t i = 0; i < nr; i++) // rows with no visible key (striped row 0) keep l = 0
                    if (!(lcheck[i] >= 0) || !isfinite(lcheck[i]) || (lcheck[i] == 0 && !(mk.diag > 0 && i % shp.q == 0))) {
                        printf("# time: l[%zu] = %g after the timed runs (%s): FAILED\n", i, lcheck[i], mk.name);
                        failed++;
                        break;
                    }
                dev_time_row("forward", args, shp, mk, t, fl);
            }
            cudaFree(dq), cudaFree(dk), cudaFree(dv), cudaFree(d_o), cudaFree(d_m), cudaFree(d_l);
        }
    }
    return failed ? 1 : 0;
}
