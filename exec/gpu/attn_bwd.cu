// attn_bwd.cu - backward attention of one ring step: D = rowsum(dO * O), the plain reference
// kernels and the tensor-core (mma.sync) kernel recomputing P from lse. Contracts: attn.h.
#include <math.h>

#include "attn.h"
#include "attn_launch.cuh"
#include "check.h"
#include "mma.cuh"

using namespace rsg;

#define LOG2E_F 1.4426950408889634f

struct BwdParams : StepDims {
    const void *q, *k, *v, *dout; // Q, dO (Q layout); K, V (KV layout)
    const float *lse, *dvec;      // (batch, hq, q_rows)
    float *dq, *dk, *dv;          // fp32 accumulators (+=)
    int tiles_k0;                 // MMA: KV tiles of KV segment 0
};

// ---------------------------------------------------------------------------------------------------
// D = rowsum(dO * O): one warp per row.
// ---------------------------------------------------------------------------------------------------
template <typename T>
__global__ void bwd_prep_kernel(const T *out, const T *dout, float *dvec, size_t n_rows, int d) {
    const size_t r = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (r >= n_rows) return;
    float s = 0.f;
    for (int c = lane; c < d; c += 32) s += to_f32<T>(out[r * d + c]) * to_f32<T>(dout[r * d + c]);
    s = warp_sum(s);
    if (lane == 0) dvec[r] = s;
}

// ---------------------------------------------------------------------------------------------------
// Reference. dQ: one warp per (batch*head, Q row) over its visible keys. dK, dV: one warp per
// (batch*kv head, KV row) over the visible query rows of every head of its group (no atomics).
// ---------------------------------------------------------------------------------------------------
// The two dot products of a reference kernel's inner loop over one row pair, summed over the warp:
// x = a . u and y = b . w, where lane holds a[x], b[x] for columns lane + 32 x (< d) and u, w are rows
// of d elements in memory.
template <typename T>
__device__ __forceinline__ float2 warp_dot2(const float (&a)[8], const T *u, const float (&b)[8], const T *w, int d, int lane) {
    float x = 0.f, y = 0.f;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int c = lane + 32 * i;
        if (c < d) {
            x += a[i] * to_f32<T>(u[c]);
            y += b[i] * to_f32<T>(w[c]);
        }
    }
    return make_float2(warp_sum(x), warp_sum(y));
}

/* deliberate twin of attn_bwd_ref_dkv: the float64-checked reference walks each Q row over its KV
 * blocks here and each KV row over its Q blocks there, the same per-lane loads and sums mirrored (one
 * kernel per output keeps each a plain loop a reader can check against the formulas). */
template <typename T>
__global__ void attn_bwd_ref_dq(BwdParams p) {
    const int lane = threadIdx.x & 31;
    const int r = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (r >= p.q_rows) return;
    const int bh = blockIdx.y, b = bh / p.hq, h = bh % p.hq, kvh = h / (p.hq / p.hkv);
    const rs_gpu_step_desc_t &d = p.desc;
    const int qs = (d.n_q > 1 && r >= d.q[1].off) ? 1 : 0, i = r - d.q[qs].off;
    const size_t ri = (size_t)bh * p.q_rows + r;
    const T *qr = (const T *)p.q + ri * p.d, *dor = (const T *)p.dout + ri * p.d;
    const T *kb = (const T *)p.k + (size_t)(b * p.hkv + kvh) * p.kv_rows * p.d;
    const T *vb = (const T *)p.v + (size_t)(b * p.hkv + kvh) * p.kv_rows * p.d;
    const float lse = p.lse[ri], dd = p.dvec[ri];
    if (lse == -INFINITY) return; // the row saw no key in the forward: no gradient
    float qv[8], dov[8], acc[8];
#pragma unroll
    for (int x = 0; x < 8; x++) {
        const int c = lane + 32 * x;
        qv[x] = c < p.d ? to_f32<T>(qr[c]) : 0.f;
        dov[x] = c < p.d ? to_f32<T>(dor[c]) : 0.f;
        acc[x] = 0.f;
    }
    for (int bi = 0; bi < d.n_blocks; bi++) {
        const rs_gpu_blk_t B = d.blocks[bi];
        if (B.q_seg != qs || B.mask == RS_GPU_MASK_SKIP) continue;
        const int koff = d.kv[B.kv_seg].off, nk = d.kv[B.kv_seg].len;
        for (int j = 0; j < nk; j++) {
            if (!rs_gpu_pair_visible(B.mask, B.diag, i, j)) continue;
            const T *kr = kb + (size_t)(koff + j) * p.d, *vr = vb + (size_t)(koff + j) * p.d;
            const float2 sd = warp_dot2(qv, kr, dov, vr, p.d, lane); // S and dP
            const float pr = expf(sd.x * p.scale - lse), ds = pr * (sd.y - dd);
#pragma unroll
            for (int x = 0; x < 8; x++) {
                const int c = lane + 32 * x;
                if (c < p.d) acc[x] += ds * to_f32<T>(kr[c]);
            }
        }
    }
#pragma unroll
    for (int x = 0; x < 8; x++) {
        const int c = lane + 32 * x;
        if (c < p.d) p.dq[ri * p.d + c] += acc[x] * p.scale;
    }
}

/* deliberate twin of attn_bwd_ref_dq (above): the dK, dV side of the same reference. */
template <typename T>
__global__ void attn_bwd_ref_dkv(BwdParams p) {
    const int lane = threadIdx.x & 31;
    const int r = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5); // KV row
    if (r >= p.kv_rows) return;
    const int bkv = blockIdx.y, b = bkv / p.hkv, kvh = bkv % p.hkv, group = p.hq / p.hkv;
    const rs_gpu_step_desc_t &d = p.desc;
    if (d.n_kv < 1) return;
    const int ks = (d.n_kv > 1 && r >= d.kv[1].off) ? 1 : 0, j = r - d.kv[ks].off;
    const size_t ki = (size_t)bkv * p.kv_rows + r;
    const T *kr = (const T *)p.k + ki * p.d, *vr = (const T *)p.v + ki * p.d;
    float kv_[8], vv[8], ak[8], av[8];
#pragma unroll
    for (int x = 0; x < 8; x++) {
        const int c = lane + 32 * x;
        kv_[x] = c < p.d ? to_f32<T>(kr[c]) : 0.f;
        vv[x] = c < p.d ? to_f32<T>(vr[c]) : 0.f;
        ak[x] = av[x] = 0.f;
    }
    for (int hh = 0; hh < group; hh++) {
        const int h = kvh * group + hh;
        const size_t row0 = (size_t)(b * p.hq + h) * p.q_rows;
        for (int bi = 0; bi < d.n_blocks; bi++) {
            const rs_gpu_blk_t B = d.blocks[bi];
            if (B.kv_seg != ks || B.mask == RS_GPU_MASK_SKIP) continue;
            const int qoff = d.q[B.q_seg].off, nq = d.q[B.q_seg].len;
            for (int i = 0; i < nq; i++) {
                if (!rs_gpu_pair_visible(B.mask, B.diag, i, j)) continue;
                const size_t ri = row0 + qoff + i;
                const float lse = p.lse[ri];
                if (lse == -INFINITY) continue;
                const T *qr = (const T *)p.q + ri * p.d, *dor = (const T *)p.dout + ri * p.d;
                const float2 sd = warp_dot2(kv_, qr, vv, dor, p.d, lane); // S and dP
                const float pr = expf(sd.x * p.scale - lse), ds = pr * (sd.y - p.dvec[ri]);
#pragma unroll
                for (int x = 0; x < 8; x++) {
                    const int c = lane + 32 * x;
                    if (c < p.d) {
                        ak[x] += ds * to_f32<T>(qr[c]);
                        av[x] += pr * to_f32<T>(dor[c]);
                    }
                }
            }
        }
    }
#pragma unroll
    for (int x = 0; x < 8; x++) {
        const int c = lane + 32 * x;
        if (c < p.d) {
            p.dk[ki * p.d + c] += ak[x] * p.scale;
            p.dv[ki * p.d + c] += av[x];
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// MMA kernel (FlashAttention-2 backward shape). CTA = one TK-row tile of one KV segment of one
// (batch, kv head); 4 warps, warp w owns KV rows 16w..16w+15 and keeps their dK, dV in registers.
// It walks every (query head of the group, block, TQ-row Q tile) with a visible pair, streaming
// Q, dO, lse, D through shared memory (cp.async double buffer), and per Q tile computes
//   S^T = K Q^T, P^T = exp(S^T - lse), dV += P^T dO, dP^T = V dO^T, dS^T = P^T (dP^T - D),
//   dK += dS^T Q, and (through shared memory) dQ += dS K, added to global dQ with fp32 atomics.
// dK is scaled by the softmax scale once at the end; dQ per tile.
// ---------------------------------------------------------------------------------------------------
namespace {
constexpr int BWD_TK = 64, BWD_WARPS = 4, BWD_THREADS = BWD_WARPS * 32;

template <int D, int TQ> constexpr int bwd_smem_bytes() {
    return (2 * BWD_TK * (D + 8) + 4 * TQ * (D + 8) + BWD_TK * (TQ + 8)) * 2 + 4 * TQ * 4;
}

// A CTA's KV tile: rows [j0, j1) of KV segment ks.
struct KvTile {
    int ks, j0, j1;
};

// Next (query head hh, block bi, Q tile it) after the given one whose tile with the KV tile kt is not
// SKIP. Start from (0, 0, -1). Uniform across the CTA.
template <int TQ>
__device__ __forceinline__ bool next_q_tile(const rs_gpu_step_desc_t &d, const KvTile &kt, int group, int &hh, int &bi, int &it) {
    while (hh < group) {
        const rs_gpu_blk_t &B = d.blocks[bi];
        if (B.kv_seg == kt.ks && B.mask != RS_GPU_MASK_SKIP) {
            const int nq = d.q[B.q_seg].len;
            while ((++it) * TQ < nq) {
                const int i0 = it * TQ, i1 = min(i0 + TQ, nq);
                if (rs_gpu_tile_class(B.mask, B.diag, i0, i1, kt.j0, kt.j1) != RS_GPU_TILE_SKIP) return true;
            }
        }
        it = -1;
        if (++bi >= d.n_blocks) {
            bi = 0;
            hh++;
        }
    }
    return false;
}
} // namespace

template <typename T, int D, int TQ>
__global__ void __launch_bounds__(BWD_THREADS, 1) attn_bwd_mma(BwdParams p) {
    constexpr int TK = BWD_TK, LD = D + 8, LDS = TQ + 8, CPR = D / 8;
    constexpr int RG = TQ / 16, PARTS = BWD_WARPS / RG, DPART = D / PARTS; // dQ work split
    static_assert(TQ % 16 == 0 && BWD_WARPS % RG == 0 && DPART % 16 == 0, "tile shape");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *sK = reinterpret_cast<T *>(smem_raw); // TK x LD
    T *sV = sK + TK * LD;                    // TK x LD
    T *sQ = sV + TK * LD;                    // 2 x TQ x LD
    T *sdO = sQ + 2 * TQ * LD;               // 2 x TQ x LD
    T *sdS = sdO + 2 * TQ * LD;              // TK x LDS (dS^T: KV rows x Q columns)
    float *sL = reinterpret_cast<float *>(sdS + TK * LDS); // 2 x TQ: lse in log2 units (+inf: no row)
    float *sDv = sL + 2 * TQ;                               // 2 x TQ: D
    __shared__ rs_gpu_step_desc_t sd;

    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
    if (tid == 0) sd = p.desc;
    __syncthreads();
    int ks = 0, tile = blockIdx.x;
    if (tile >= p.tiles_k0) {
        ks = 1;
        tile -= p.tiles_k0;
    }
    const int bkv = blockIdx.y, b = bkv / p.hkv, kvh = bkv % p.hkv, group = p.hq / p.hkv;
    const int j0 = tile * TK, krows = min(TK, sd.kv[ks].len - j0);
    const size_t krow0 = (size_t)bkv * p.kv_rows + sd.kv[ks].off + j0; // global row of the tile start
    const KvTile kt = {ks, j0, j0 + krows};
    int hh = 0, bi = 0, it = -1;
    if (!next_q_tile<TQ>(sd, kt, group, hh, bi, it)) return;

    {
        const T *kg = static_cast<const T *>(p.k) + krow0 * D, *vg = static_cast<const T *>(p.v) + krow0 * D;
        for (int c = tid; c < TK * CPR; c += BWD_THREADS) {
            const int r = c / CPR, col = (c % CPR) * 8;
            const bool ok = r < krows;
            cp_async16(&sK[r * LD + col], kg + (size_t)(ok ? r : 0) * D + col, ok);
            cp_async16(&sV[r * LD + col], vg + (size_t)(ok ? r : 0) * D + col, ok);
        }
    }
    // Issue the loads of item (hh_, bi_, it_) into buffer buf: Q, dO by cp.async; lse, D plainly.
    auto load_q = [&](int hh_, int bi_, int it_, int buf) {
        const rs_gpu_blk_t &B = sd.blocks[bi_];
        const int nq = sd.q[B.q_seg].len, i0 = it_ * TQ;
        const size_t row0 = (size_t)(b * p.hq + kvh * group + hh_) * p.q_rows + sd.q[B.q_seg].off + i0;
        const T *qg = static_cast<const T *>(p.q) + row0 * D, *dog = static_cast<const T *>(p.dout) + row0 * D;
        T *dq_ = sQ + buf * TQ * LD, *ddo = sdO + buf * TQ * LD;
        for (int c = tid; c < TQ * CPR; c += BWD_THREADS) {
            const int r = c / CPR, col = (c % CPR) * 8;
            const bool ok = i0 + r < nq;
            cp_async16(&dq_[r * LD + col], qg + (size_t)(ok ? r : 0) * D + col, ok);
            cp_async16(&ddo[r * LD + col], dog + (size_t)(ok ? r : 0) * D + col, ok);
        }
        for (int r = tid; r < TQ; r += BWD_THREADS) {
            const bool ok = i0 + r < nq;
            const float lse = ok ? p.lse[row0 + r] : -INFINITY;
            sL[buf * TQ + r] = lse == -INFINITY ? INFINITY : lse * LOG2E_F; // P = 0 for empty rows
            sDv[buf * TQ + r] = ok ? p.dvec[row0 + r] : 0.f;
        }
    };
    load_q(hh, bi, it, 0);
    cp_async_commit();

    float dk[D / 8][4], dv[D / 8][4];
#pragma unroll
    for (int nt = 0; nt < D / 8; nt++)
#pragma unroll
        for (int e = 0; e < 4; e++) dk[nt][e] = dv[nt][e] = 0.f;
    const float scale_log2 = p.scale * LOG2E_F;
    const int w0 = warp * 16; // this warp's KV rows in the tile
    int buf = 0;
    // deliberate twin of attn_fwd_mma (attn_fwd.cu)'s loop: the same double-buffered cp.async pipeline (prefetch the next
    // item, wait for the current one, compute, release the buffer) over each pass's own tiles
    for (;;) {
        int nhh = hh, nbi = bi, nit = it;
        const bool has_next = next_q_tile<TQ>(sd, kt, group, nhh, nbi, nit);
        if (has_next) {
            load_q(nhh, nbi, nit, buf ^ 1);
            cp_async_commit();
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();
        const rs_gpu_blk_t B = sd.blocks[bi];
        const int nq = sd.q[B.q_seg].len, i0 = it * TQ, i1 = min(i0 + TQ, nq);
        const bool need_mask = i1 - i0 < TQ || krows < TK ||
                               rs_gpu_tile_class(B.mask, B.diag, i0, i1, j0, j0 + krows) == RS_GPU_TILE_PARTIAL;
        const T *sQb = sQ + buf * TQ * LD, *sdOb = sdO + buf * TQ * LD;
        const float *sLb = sL + buf * TQ, *sDb = sDv + buf * TQ;

        // S^T = K Q^T and dP^T = V dO^T (16 KV rows x TQ per warp)
        float st[TQ / 8][4], dpt[TQ / 8][4];
#pragma unroll
        for (int nt = 0; nt < TQ / 8; nt++)
#pragma unroll
            for (int e = 0; e < 4; e++) st[nt][e] = dpt[nt][e] = 0.f;
#pragma unroll
        for (int kc = 0; kc < D / 16; kc++) {
            uint32_t ka[4], va[4];
            ka[0] = lds32(&sK[(w0 + g) * LD + kc * 16 + 2 * t]);
            ka[1] = lds32(&sK[(w0 + g + 8) * LD + kc * 16 + 2 * t]);
            ka[2] = lds32(&sK[(w0 + g) * LD + kc * 16 + 8 + 2 * t]);
            ka[3] = lds32(&sK[(w0 + g + 8) * LD + kc * 16 + 8 + 2 * t]);
            va[0] = lds32(&sV[(w0 + g) * LD + kc * 16 + 2 * t]);
            va[1] = lds32(&sV[(w0 + g + 8) * LD + kc * 16 + 2 * t]);
            va[2] = lds32(&sV[(w0 + g) * LD + kc * 16 + 8 + 2 * t]);
            va[3] = lds32(&sV[(w0 + g + 8) * LD + kc * 16 + 8 + 2 * t]);
#pragma unroll
            for (int nt = 0; nt < TQ / 8; nt++) {
                const T *qr = &sQb[(nt * 8 + g) * LD + kc * 16 + 2 * t];
                const T *dr = &sdOb[(nt * 8 + g) * LD + kc * 16 + 2 * t];
                mma16816<T>(st[nt], ka, lds32(qr), lds32(qr + 8));
                mma16816<T>(dpt[nt], va, lds32(dr), lds32(dr + 8));
            }
        }
        // P^T (masked) and dS^T = P^T (dP^T - D), in place
#pragma unroll
        for (int nt = 0; nt < TQ / 8; nt++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int jj = w0 + g + (e >= 2 ? 8 : 0), ii = nt * 8 + 2 * t + (e & 1);
                float x = st[nt][e] * scale_log2 - sLb[ii];
                if (need_mask && (ii >= i1 - i0 || jj >= krows || !rs_gpu_pair_visible(B.mask, B.diag, i0 + ii, j0 + jj)))
                    x = -INFINITY;
                const float pr = exp2f(x);
                st[nt][e] = pr;
                dpt[nt][e] = pr * (dpt[nt][e] - sDb[ii]);
            }
        // dV += P^T dO and dK += dS^T Q (A from registers, B by ldmatrix.trans)
#pragma unroll
        for (int kk = 0; kk < TQ / 16; kk++) {
            const uint32_t pa[4] = {pack2<T>(st[2 * kk][0], st[2 * kk][1]), pack2<T>(st[2 * kk][2], st[2 * kk][3]),
                                    pack2<T>(st[2 * kk + 1][0], st[2 * kk + 1][1]), pack2<T>(st[2 * kk + 1][2], st[2 * kk + 1][3])};
            const uint32_t sa[4] = {pack2<T>(dpt[2 * kk][0], dpt[2 * kk][1]), pack2<T>(dpt[2 * kk][2], dpt[2 * kk][3]),
                                    pack2<T>(dpt[2 * kk + 1][0], dpt[2 * kk + 1][1]), pack2<T>(dpt[2 * kk + 1][2], dpt[2 * kk + 1][3])};
            const int arow = kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
#pragma unroll
            for (int np = 0; np < D / 16; np++) {
                uint32_t x0, x1, x2, x3;
                ldsm_x4_t(x0, x1, x2, x3, &sdOb[arow * LD + np * 16 + (lane >> 4) * 8]);
                mma16816<T>(dv[2 * np], pa, x0, x1);
                mma16816<T>(dv[2 * np + 1], pa, x2, x3);
                ldsm_x4_t(x0, x1, x2, x3, &sQb[arow * LD + np * 16 + (lane >> 4) * 8]);
                mma16816<T>(dk[2 * np], sa, x0, x1);
                mma16816<T>(dk[2 * np + 1], sa, x2, x3);
            }
        }
        // dS^T -> shared memory (16-bit), then dQ = dS K with warps split over (Q rows, dims)
#pragma unroll
        for (int nt = 0; nt < TQ / 8; nt++) {
            *reinterpret_cast<uint32_t *>(&sdS[(w0 + g) * LDS + nt * 8 + 2 * t]) = pack2<T>(dpt[nt][0], dpt[nt][1]);
            *reinterpret_cast<uint32_t *>(&sdS[(w0 + g + 8) * LDS + nt * 8 + 2 * t]) = pack2<T>(dpt[nt][2], dpt[nt][3]);
        }
        __syncthreads();
        {
            const int rg = warp % RG, part = warp / RG, q0 = rg * 16;
            uint32_t da[TK / 16][4];
#pragma unroll
            for (int kk = 0; kk < TK / 16; kk++) {
                const int mi = lane >> 3;
                ldsm_x4_t(da[kk][0], da[kk][1], da[kk][2], da[kk][3],
                          &sdS[(kk * 16 + (lane & 7) + (mi >> 1) * 8) * LDS + q0 + (mi & 1) * 8]);
            }
            const size_t qrow0 = (size_t)(b * p.hq + kvh * group + hh) * p.q_rows + sd.q[B.q_seg].off + i0;
#pragma unroll
            for (int np = 0; np < DPART / 16; np++) {
                const int c0 = part * DPART + np * 16;
                float acc[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
#pragma unroll
                for (int kk = 0; kk < TK / 16; kk++) {
                    uint32_t x0, x1, x2, x3;
                    ldsm_x4_t(x0, x1, x2, x3, &sK[(kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * LD + c0 + (lane >> 4) * 8]);
                    mma16816<T>(acc[0], da[kk], x0, x1);
                    mma16816<T>(acc[1], da[kk], x2, x3);
                }
#pragma unroll
                for (int h2 = 0; h2 < 2; h2++)
#pragma unroll
                    for (int r = 0; r < 2; r++) {
                        const int row = q0 + g + 8 * r;
                        if (row >= i1 - i0) continue;
                        float *dst = p.dq + (qrow0 + row) * D + c0 + h2 * 8 + 2 * t;
                        atomicAdd(dst, acc[h2][2 * r] * p.scale);
                        atomicAdd(dst + 1, acc[h2][2 * r + 1] * p.scale);
                    }
            }
        }
        __syncthreads(); // sQ/sdO[buf], sdS are free again
        if (!has_next) break;
        hh = nhh;
        bi = nbi;
        it = nit;
        buf ^= 1;
    }
    // dK (scaled), dV: this CTA owns these KV rows of (batch, kv head): plain read-add-write
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const int row = w0 + g + 8 * r;
        if (row >= krows) continue;
        const size_t gi = (krow0 + row) * D;
#pragma unroll
        for (int nt = 0; nt < D / 8; nt++) {
            float2 *pk = reinterpret_cast<float2 *>(&p.dk[gi + nt * 8 + 2 * t]);
            float2 *pv = reinterpret_cast<float2 *>(&p.dv[gi + nt * 8 + 2 * t]);
            float2 a = *pk, c = *pv;
            a.x += dk[nt][2 * r] * p.scale;
            a.y += dk[nt][2 * r + 1] * p.scale;
            c.x += dv[nt][2 * r];
            c.y += dv[nt][2 * r + 1];
            *pk = a;
            *pv = c;
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// C API
// ---------------------------------------------------------------------------------------------------
namespace {
constexpr int BWD_TQ = 64;
}

template <typename T, int D>
static int launch_bwd_mma(const BwdParams &p, int batch, cudaStream_t stream, rs_err_t *err) {
    constexpr int smem = bwd_smem_bytes<D, BWD_TQ>();
    RS_CUDA_TRY(err, cudaFuncSetAttribute(attn_bwd_mma<T, D, BWD_TQ>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const int tiles = p.tiles_k0 + (p.desc.n_kv > 1 ? rs_gpu_n_tiles(p.desc.kv[1].len, BWD_TK) : 0);
    if (tiles == 0) return 0; // no KV rows: nothing to launch
    dim3 grid((unsigned)tiles, (unsigned)(batch * p.hkv));
    attn_bwd_mma<T, D, BWD_TQ><<<grid, BWD_THREADS, smem, stream>>>(p);
    RS_CUDA_TRY(err, cudaGetLastError());
    return 0;
}

extern "C" {

int rs_gpu_bwd_tile_q(rs_gpu_kernel_t k) { return k != RS_GPU_KERNEL_REF ? BWD_TQ : 1; }
int rs_gpu_bwd_tile_k(rs_gpu_kernel_t k) { return k != RS_GPU_KERNEL_REF ? BWD_TK : 1; }

int rs_gpu_bwd_prep(const rs_gpu_shape_t *sh, const rs_gpu_bwd_bufs_t *b, cudaStream_t stream, rs_err_t *err) {
    const size_t nr = rs_gpu_shape_row_elems(sh);
    const unsigned grid = (unsigned)((nr + 7) / 8);
    if (sh->dtype == RS_GPU_BF16)
        bwd_prep_kernel<__nv_bfloat16><<<grid, 256, 0, stream>>>((const __nv_bfloat16 *)b->out, (const __nv_bfloat16 *)b->dout, b->dvec, nr,
                                                                 sh->head_dim);
    else
        bwd_prep_kernel<__half><<<grid, 256, 0, stream>>>((const __half *)b->out, (const __half *)b->dout, b->dvec, nr, sh->head_dim);
    RS_CUDA_TRY(err, cudaGetLastError());
    return 0;
}


// deliberate twin of rs_gpu_fwd_step (attn_fwd.cu): the same prepare-and-launch on each pass's own parameters and kernels
int rs_gpu_bwd_step(rs_gpu_kernel_t kern, const rs_gpu_shape_t *sh, const rs_gpu_step_desc_t *desc, const rs_gpu_bwd_bufs_t *b,
                    cudaStream_t stream, rs_err_t *err) {
    BwdParams p;
    const int go = step_prepare(kern, sh, desc, "backward", &p, err);
    if (go <= 0) return go;
    p.q = b->q, p.k = b->k, p.v = b->v, p.dout = b->dout, p.lse = b->lse, p.dvec = b->dvec, p.dq = b->dq, p.dk = b->dk, p.dv = b->dv;
    p.tiles_k0 = rs_gpu_n_tiles(desc->kv[0].len, BWD_TK);
    const bool bf = sh->dtype == RS_GPU_BF16;
    if (kern == RS_GPU_KERNEL_REF) {
        dim3 gq((unsigned)((sh->q_rows + 7) / 8), (unsigned)(sh->batch * sh->q_heads));
        dim3 gk((unsigned)((sh->kv_rows + 7) / 8), (unsigned)(sh->batch * sh->kv_heads));
        if (bf) {
            attn_bwd_ref_dq<__nv_bfloat16><<<gq, 256, 0, stream>>>(p);
            attn_bwd_ref_dkv<__nv_bfloat16><<<gk, 256, 0, stream>>>(p);
        } else {
            attn_bwd_ref_dq<__half><<<gq, 256, 0, stream>>>(p);
            attn_bwd_ref_dkv<__half><<<gk, 256, 0, stream>>>(p);
        }
        RS_CUDA_TRY(err, cudaGetLastError());
        return 0;
    }
    if (sh->head_dim == 64)
        return bf ? launch_bwd_mma<__nv_bfloat16, 64>(p, sh->batch, stream, err) : launch_bwd_mma<__half, 64>(p, sh->batch, stream, err);
    return bf ? launch_bwd_mma<__nv_bfloat16, 128>(p, sh->batch, stream, err) : launch_bwd_mma<__half, 128>(p, sh->batch, stream, err);
}

} // extern "C"
