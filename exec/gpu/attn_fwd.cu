// attn_fwd.cu - forward attention of one ring step: plain reference kernel and the tensor-core
// (mma.sync) flash kernel, init and finalize, and pass-q's merge of partial outputs. Contracts: attn.h.
#include <math.h>

#include "attn.h"
#include "attn_launch.cuh"
#include "check.h"
#include "mma.cuh"

using namespace rsg;

#define LOG2E_F 1.4426950408889634f
#define LN2_F 0.6931471805599453f

// ---------------------------------------------------------------------------------------------------
// Shared by both variants
// ---------------------------------------------------------------------------------------------------
struct FwdParams : StepDims {
    const void *q, *k, *v;    // Q (batch, hq, q_rows, d); K, V (batch, hkv, kv_rows, d)
    float *o, *m, *l;         // fp32 running state (Q layout; rows)
    int tiles_q0;             // MMA: Q tiles of segment 0 (grid.x = tiles of seg 0 + seg 1)
};

// Segment of local Q row r (0 or 1) and its index inside the segment.
__device__ __forceinline__ void q_seg_of(const rs_gpu_step_desc_t &d, int r, int &qs, int &i) {
    qs = (d.n_q > 1 && r >= d.q[1].off) ? 1 : 0;
    i = r - d.q[qs].off;
}

// ---------------------------------------------------------------------------------------------------
// Reference: one warp per (batch*head, row); lanes split head_dim; fp32 scalar online softmax
// key by key. Any head_dim <= 256.
// ---------------------------------------------------------------------------------------------------
template <typename T>
__global__ void attn_fwd_ref(FwdParams p) {
    const int lane = threadIdx.x & 31;
    const int r = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5); // row (whole warp)
    if (r >= p.q_rows) return;
    const int bh = blockIdx.y;
    const int b = bh / p.hq, h = bh % p.hq, kvh = h / (p.hq / p.hkv);
    const rs_gpu_step_desc_t &d = p.desc;
    int qs, i;
    q_seg_of(d, r, qs, i);
    const size_t ri = (size_t)bh * p.q_rows + r;
    const T *qr = (const T *)p.q + ri * p.d;
    const T *kb = (const T *)p.k + (size_t)(b * p.hkv + kvh) * p.kv_rows * p.d;
    const T *vb = (const T *)p.v + (size_t)(b * p.hkv + kvh) * p.kv_rows * p.d;
    float qv[8], acc[8];
    float m = p.m[ri], l = p.l[ri];
#pragma unroll
    for (int x = 0; x < 8; x++) {
        int c = lane + 32 * x;
        qv[x] = c < p.d ? to_f32<T>(qr[c]) : 0.f;
        acc[x] = c < p.d ? p.o[ri * p.d + c] : 0.f;
    }
    for (int bi = 0; bi < d.n_blocks; bi++) {
        const rs_gpu_blk_t B = d.blocks[bi];
        if (B.q_seg != qs || B.mask == RS_GPU_MASK_SKIP) continue;
        const int koff = d.kv[B.kv_seg].off, nk = d.kv[B.kv_seg].len;
        for (int j = 0; j < nk; j++) {
            if (!rs_gpu_pair_visible(B.mask, B.diag, i, j)) continue;
            const T *kr = kb + (size_t)(koff + j) * p.d, *vr = vb + (size_t)(koff + j) * p.d;
            float s = 0.f;
#pragma unroll
            for (int x = 0; x < 8; x++) {
                int c = lane + 32 * x;
                if (c < p.d) s += qv[x] * to_f32<T>(kr[c]);
            }
            s = warp_sum(s) * p.scale;
            const float m_new = fmaxf(m, s);
            const float alpha = expf(m - m_new); // m = -inf -> 0
            const float pr = expf(s - m_new);
            l = l * alpha + pr;
#pragma unroll
            for (int x = 0; x < 8; x++) {
                int c = lane + 32 * x;
                if (c < p.d) acc[x] = acc[x] * alpha + pr * to_f32<T>(vr[c]);
            }
            m = m_new;
        }
    }
#pragma unroll
    for (int x = 0; x < 8; x++) {
        int c = lane + 32 * x;
        if (c < p.d) p.o[ri * p.d + c] = acc[x];
    }
    if (lane == 0) {
        p.m[ri] = m;
        p.l[ri] = l;
    }
}

// ---------------------------------------------------------------------------------------------------
// MMA flash kernel. CTA = one TQ-row tile of one Q segment of one (batch, head); 8 warps, warp w
// owns rows 16w..16w+15. Q fragments stay in registers; K, V tiles of TK rows stream through
// shared memory with cp.async (double buffer), in the order of the step's blocks; tiles with no
// visible pair are never loaded; partially visible tiles (and edge-clipped ones) are masked per
// element. (o, m, l) are read at the start and written at the end, so steps merge exactly.
// ---------------------------------------------------------------------------------------------------
namespace {
constexpr int FWD_TK = 64;

// Shared memory of a CTA of WARPS warps (TQ = 16 WARPS rows of Q, two K and two V tiles).
template <int D, int WARPS> constexpr int fwd_smem_bytes() { return (16 * WARPS + 4 * FWD_TK) * (D + 8) * 2; }

// Next work item after (bi, jt) for the Q rows [i0, i1) of segment qs: a (block, KV tile) whose
// tile is not SKIP. Uniform across the CTA. Returns false when there is none.
template <int TK>
__device__ __forceinline__ bool next_kv_tile(const rs_gpu_step_desc_t &d, int qs, int i0, int i1, int &bi, int &jt) {
    for (;;) {
        if (bi >= d.n_blocks) return false;
        if (bi >= 0) {
            const rs_gpu_blk_t &B = d.blocks[bi];
            if (B.q_seg == qs && B.mask != RS_GPU_MASK_SKIP) {
                const int nk = d.kv[B.kv_seg].len;
                while ((++jt) * TK < nk) {
                    const int j0 = jt * TK, j1 = min(j0 + TK, nk);
                    if (rs_gpu_tile_class(B.mask, B.diag, i0, i1, j0, j1) != RS_GPU_TILE_SKIP) return true;
                }
            }
        }
        bi++;
        jt = -1;
    }
}
} // namespace

// WARPS: warps per CTA (TQ = 16 WARPS query rows); KLDSM: K fragments of S = Q K^T by ldmatrix.x4
// (one instruction for two n-tiles) instead of two 32-bit loads per fragment; MINB: CTAs per SM the
// register allocation must allow.
template <typename T, int D, int WARPS, bool KLDSM, int MINB>
__global__ void __launch_bounds__(WARPS * 32, MINB) attn_fwd_mma(FwdParams p) {
    constexpr int TQ = 16 * WARPS, TK = FWD_TK, LD = D + 8, NT = WARPS * 32; // LD: padded smem row (conflict-free)
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *sQ = reinterpret_cast<T *>(smem_raw); // TQ x LD
    T *sK = sQ + TQ * LD;                    // 2 x TK x LD
    T *sV = sK + 2 * TK * LD;                // 2 x TK x LD
    __shared__ rs_gpu_step_desc_t sd;        // dynamic indexing stays out of local memory

    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
    if (tid == 0) sd = p.desc;
    __syncthreads();
    int qs = 0, tile = blockIdx.x;
    if (tile >= p.tiles_q0) {
        qs = 1;
        tile -= p.tiles_q0;
    }
    const int bh = blockIdx.y, b = bh / p.hq, h = bh % p.hq, kvh = h / (p.hq / p.hkv);
    const int i0 = tile * TQ, rows = min(TQ, sd.q[qs].len - i0);
    const int qrow0 = sd.q[qs].off + i0;
    const T *qg = static_cast<const T *>(p.q) + ((size_t)bh * p.q_rows + qrow0) * D;
    const T *kg = static_cast<const T *>(p.k) + (size_t)(b * p.hkv + kvh) * p.kv_rows * D;
    const T *vg = static_cast<const T *>(p.v) + (size_t)(b * p.hkv + kvh) * p.kv_rows * D;

    int bi = -1, jt = -1;
    if (!next_kv_tile<TK>(sd, qs, i0, i0 + rows, bi, jt)) return; // nothing visible: state untouched

    constexpr int CPR = D / 8; // 16-byte chunks per row
    for (int c = tid; c < TQ * CPR; c += NT) {
        const int r = c / CPR, col = (c % CPR) * 8;
        cp_async16(&sQ[r * LD + col], qg + (size_t)(r < rows ? r : 0) * D + col, r < rows);
    }
    auto load_kv = [&](int bi_, int jt_, int buf) {
        const rs_gpu_blk_t &B = sd.blocks[bi_];
        const int koff = sd.kv[B.kv_seg].off, nk = sd.kv[B.kv_seg].len, j0 = jt_ * TK;
        T *dk = sK + buf * TK * LD, *dv = sV + buf * TK * LD;
        for (int c = tid; c < TK * CPR; c += NT) {
            const int r = c / CPR, col = (c % CPR) * 8;
            const bool ok = j0 + r < nk;
            const size_t go = (size_t)(koff + (ok ? j0 + r : 0)) * D + col;
            cp_async16(&dk[r * LD + col], kg + go, ok);
            cp_async16(&dv[r * LD + col], vg + go, ok);
        }
    };
    load_kv(bi, jt, 0);
    cp_async_commit();

    // Running state of rows r0+g (index 0) and r0+g+8 (index 1), log2 domain for m.
    const int r0 = warp * 16;
    float o[D / 8][4], m_r[2], l_r[2];
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const int row = r0 + g + 8 * r;
        const size_t gi = (size_t)bh * p.q_rows + qrow0 + row;
        const bool ok = row < rows;
        m_r[r] = ok ? p.m[gi] * LOG2E_F : -INFINITY;
        l_r[r] = ok ? p.l[gi] : 0.f;
#pragma unroll
        for (int nt = 0; nt < D / 8; nt++) {
            float2 v2 = ok ? *reinterpret_cast<const float2 *>(&p.o[gi * D + nt * 8 + 2 * t]) : make_float2(0.f, 0.f);
            o[nt][2 * r] = v2.x;
            o[nt][2 * r + 1] = v2.y;
        }
    }
    const float scale_log2 = p.scale * LOG2E_F;
    uint32_t qa[D / 16][4];
    int buf = 0;
    bool first = true;
    // deliberate twin of attn_bwd_mma (attn_bwd.cu)'s loop: the same double-buffered cp.async pipeline (prefetch the next
    // item, wait for the current one, compute, release the buffer) over each pass's own tiles
    for (;;) {
        int nbi = bi, njt = jt;
        const bool has_next = next_kv_tile<TK>(sd, qs, i0, i0 + rows, nbi, njt);
        if (has_next) {
            load_kv(nbi, njt, buf ^ 1);
            cp_async_commit();
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();
        if (first) {
#pragma unroll
            for (int kc = 0; kc < D / 16; kc++) {
                qa[kc][0] = lds32(&sQ[(r0 + g) * LD + kc * 16 + 2 * t]);
                qa[kc][1] = lds32(&sQ[(r0 + g + 8) * LD + kc * 16 + 2 * t]);
                qa[kc][2] = lds32(&sQ[(r0 + g) * LD + kc * 16 + 8 + 2 * t]);
                qa[kc][3] = lds32(&sQ[(r0 + g + 8) * LD + kc * 16 + 8 + 2 * t]);
            }
            first = false;
        }
        const rs_gpu_blk_t B = sd.blocks[bi];
        const int nk = sd.kv[B.kv_seg].len, j0 = jt * TK, j1 = min(j0 + TK, nk);
        const bool need_mask = j1 - j0 < TK ||
                               rs_gpu_tile_class(B.mask, B.diag, i0, i0 + rows, j0, j1) == RS_GPU_TILE_PARTIAL;
        const T *sKb = sK + buf * TK * LD, *sVb = sV + buf * TK * LD;

        // S = Q K^T (16 x TK per warp)
        float s[TK / 8][4];
#pragma unroll
        for (int nt = 0; nt < TK / 8; nt++) s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.f;
#pragma unroll
        for (int kc = 0; kc < D / 16; kc++) {
            if constexpr (KLDSM) {
                // matrices: rows 16np..+7 cols kc16..+7 | cols +8 | rows +8 cols kc16 | rows +8 cols +8
#pragma unroll
                for (int np = 0; np < TK / 16; np++) {
                    uint32_t b0, b1, b2, b3;
                    ldsm_x4(b0, b1, b2, b3, &sKb[(np * 16 + ((lane >> 4) & 1) * 8 + (lane & 7)) * LD + kc * 16 + ((lane >> 3) & 1) * 8]);
                    mma16816<T>(s[2 * np], qa[kc], b0, b1);
                    mma16816<T>(s[2 * np + 1], qa[kc], b2, b3);
                }
            } else {
#pragma unroll
                for (int nt = 0; nt < TK / 8; nt++) {
                    const T *kr = &sKb[(nt * 8 + g) * LD + kc * 16 + 2 * t];
                    mma16816<T>(s[nt], qa[kc], lds32(kr), lds32(kr + 8));
                }
            }
        }
        // scale to log2 units, mask
#pragma unroll
        for (int nt = 0; nt < TK / 8; nt++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                float x = s[nt][e] * scale_log2;
                if (need_mask) {
                    const int i = i0 + r0 + g + (e >= 2 ? 8 : 0), j = j0 + nt * 8 + 2 * t + (e & 1);
                    if (j >= nk || !rs_gpu_pair_visible(B.mask, B.diag, i, j)) x = -INFINITY;
                }
                s[nt][e] = x;
            }
        // online softmax (the seed's update), per row
#pragma unroll
        for (int r = 0; r < 2; r++) {
            float mx = -INFINITY;
#pragma unroll
            for (int nt = 0; nt < TK / 8; nt++) mx = fmaxf(mx, fmaxf(s[nt][2 * r], s[nt][2 * r + 1]));
            mx = quad_max(mx);
            const float m_new = fmaxf(m_r[r], mx);
            const float m_use = m_new == -INFINITY ? 0.f : m_new; // all masked so far: P = 0
            const float alpha = exp2f(m_r[r] - m_use);
            float rs = 0.f;
#pragma unroll
            for (int nt = 0; nt < TK / 8; nt++) {
                s[nt][2 * r] = exp2f(s[nt][2 * r] - m_use);
                s[nt][2 * r + 1] = exp2f(s[nt][2 * r + 1] - m_use);
                rs += s[nt][2 * r] + s[nt][2 * r + 1];
            }
            rs = quad_sum(rs);
            l_r[r] = l_r[r] * alpha + rs;
            m_r[r] = m_new;
#pragma unroll
            for (int nt = 0; nt < D / 8; nt++) {
                o[nt][2 * r] *= alpha;
                o[nt][2 * r + 1] *= alpha;
            }
        }
        // O += P V: P from registers (C -> A repack), V^T fragments by ldmatrix.trans
#pragma unroll
        for (int kk = 0; kk < TK / 16; kk++) {
            uint32_t pa[4] = {pack2<T>(s[2 * kk][0], s[2 * kk][1]), pack2<T>(s[2 * kk][2], s[2 * kk][3]),
                              pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]), pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
            for (int np = 0; np < D / 16; np++) {
                uint32_t v0, v1, v2, v3;
                ldsm_x4_t(v0, v1, v2, v3, &sVb[(kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * LD + np * 16 + (lane >> 4) * 8]);
                mma16816<T>(o[2 * np], pa, v0, v1);
                mma16816<T>(o[2 * np + 1], pa, v2, v3);
            }
        }
        __syncthreads(); // everyone is done with buf before it is refilled
        if (!has_next) break;
        bi = nbi;
        jt = njt;
        buf ^= 1;
    }
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const int row = r0 + g + 8 * r;
        if (row >= rows) continue;
        const size_t gi = (size_t)bh * p.q_rows + qrow0 + row;
#pragma unroll
        for (int nt = 0; nt < D / 8; nt++)
            *reinterpret_cast<float2 *>(&p.o[gi * D + nt * 8 + 2 * t]) = make_float2(o[nt][2 * r], o[nt][2 * r + 1]);
        if (t == 0) {
            p.m[gi] = m_r[r] * LN2_F;
            p.l[gi] = l_r[r];
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Init, finalize, merge
// ---------------------------------------------------------------------------------------------------
__global__ void fill_f32(float *x, float v, size_t n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) x[i] = v;
}

template <typename T>
__global__ void fwd_finalize_kernel(rs_gpu_fwd_bufs_t b, size_t n_rows, int d) {
    const float *o = b.o, *m = b.m, *l = b.l;
    T *out = static_cast<T *>(b.out);
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n_rows * d; e += (size_t)gridDim.x * blockDim.x) {
        const size_t r = e / d;
        const float lr = l[r];
        const float v = lr > 0.f ? o[e] / lr : 0.f;
        out[e] = from_f32<T>(v);
        if (b.out_f32) b.out_f32[e] = v;
        if (e % d == 0) b.lse[r] = lr > 0.f ? m[r] + logf(lr) : -INFINITY;
    }
}

// Fold one partial (o_part normalised, lse_part) into the fp32 accumulator (acc_o normalised over what
// it holds, acc_lse): one thread per row, so a row's lse changes after its whole row of O.
template <typename T>
__global__ void merge_fold_kernel(const T *o_part, const float *lse_part, float *acc_o, float *acc_lse, size_t n_rows,
                                  int d) {
    for (size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x; r < n_rows; r += (size_t)gridDim.x * blockDim.x) {
        const float a = acc_lse[r], b = lse_part[r];
        const float mx = fmaxf(a, b);
        if (mx == -INFINITY) continue; // neither has seen a key: O stays 0, lse -inf
        const float lse = mx + logf(expf(a - mx) + expf(b - mx));
        const float wa = expf(a - lse), wb = expf(b - lse);
        for (int x = 0; x < d; x++) acc_o[r * d + x] = wa * acc_o[r * d + x] + wb * to_f32<T>(o_part[r * d + x]);
        acc_lse[r] = isnan(a) || isnan(b) ? NAN : lse;
    }
}

// ---------------------------------------------------------------------------------------------------
// C API
// ---------------------------------------------------------------------------------------------------
template <typename T, int D, int WARPS, bool KLDSM, int MINB>
static int launch_fwd_mma_cfg(FwdParams p, int batch, cudaStream_t stream, rs_err_t *err) {
    constexpr int smem = fwd_smem_bytes<D, WARPS>(), TQ = 16 * WARPS;
    // The opt-in above 48 KB is a per-device function attribute; setting it costs about a microsecond.
    RS_CUDA_TRY(err, cudaFuncSetAttribute(attn_fwd_mma<T, D, WARPS, KLDSM, MINB>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    p.tiles_q0 = rs_gpu_n_tiles(p.desc.q[0].len, TQ);
    const int tiles = p.tiles_q0 + (p.desc.n_q > 1 ? rs_gpu_n_tiles(p.desc.q[1].len, TQ) : 0);
    if (tiles == 0) return 0; // no Q rows: nothing to launch (a 0-block grid is a launch error)
    dim3 grid((unsigned)tiles, (unsigned)(batch * p.hq));
    attn_fwd_mma<T, D, WARPS, KLDSM, MINB><<<grid, WARPS * 32, smem, stream>>>(p);
    RS_CUDA_TRY(err, cudaGetLastError());
    return 0;
}

// The tensor-core variants: mma (8 warps, 128 rows, K by 32-bit loads), mma-ldsm (the same with K by
// ldmatrix), mma64 (4 warps, 64 rows, K by ldmatrix, two CTAs per SM).
template <typename T, int D>
static int launch_fwd_mma(rs_gpu_kernel_t kern, const FwdParams &p, int batch, cudaStream_t stream, rs_err_t *err) {
    if (kern == RS_GPU_KERNEL_MMA_LDSM) return launch_fwd_mma_cfg<T, D, 8, true, 1>(p, batch, stream, err);
    if (kern == RS_GPU_KERNEL_MMA64) return launch_fwd_mma_cfg<T, D, 4, true, 2>(p, batch, stream, err);
    return launch_fwd_mma_cfg<T, D, 8, false, 1>(p, batch, stream, err);
}

extern "C" {

const char *rs_gpu_kernel_name(rs_gpu_kernel_t k) {
    static const char *const names[RS_GPU_KERNEL_COUNT] = {"ref", "mma", "mma-ldsm", "mma64"};
    return k >= 0 && k < RS_GPU_KERNEL_COUNT ? names[k] : "?";
}
int rs_gpu_fwd_tile_q(rs_gpu_kernel_t k) { return k == RS_GPU_KERNEL_REF ? 1 : k == RS_GPU_KERNEL_MMA64 ? 64 : 128; }
int rs_gpu_fwd_tile_k(rs_gpu_kernel_t k) { return k == RS_GPU_KERNEL_REF ? 1 : FWD_TK; }

bool rs_gpu_kernel_supports(rs_gpu_kernel_t k, const rs_gpu_shape_t *sh) {
    if (k == RS_GPU_KERNEL_REF) return sh->head_dim >= 8 && sh->head_dim <= 256;
    return sh->head_dim == 64 || sh->head_dim == 128;
}

int rs_gpu_fwd_init(const rs_gpu_shape_t *sh, const rs_gpu_fwd_bufs_t *b, cudaStream_t stream, rs_err_t *err) {
    const size_t nr = rs_gpu_shape_row_elems(sh);
    RS_CUDA_TRY(err, cudaMemsetAsync(b->o, 0, rs_gpu_shape_q_elems(sh) * sizeof(float), stream));
    RS_CUDA_TRY(err, cudaMemsetAsync(b->l, 0, nr * sizeof(float), stream));
    fill_f32<<<grid_for(nr), 256, 0, stream>>>(b->m, -INFINITY, nr);
    RS_CUDA_TRY(err, cudaGetLastError());
    return 0;
}

// deliberate twin of rs_gpu_bwd_step (attn_bwd.cu): the same prepare-and-launch on each pass's own parameters and kernels
int rs_gpu_fwd_step(rs_gpu_kernel_t kern, const rs_gpu_shape_t *sh, const rs_gpu_step_desc_t *desc, const rs_gpu_fwd_bufs_t *b,
                    cudaStream_t stream, rs_err_t *err) {
    FwdParams p;
    const int go = step_prepare(kern, sh, desc, "forward", &p, err);
    if (go <= 0) return go;
    p.q = b->q, p.k = b->k, p.v = b->v, p.o = b->o, p.m = b->m, p.l = b->l;
    p.tiles_q0 = 0; // set by the launcher from its tile
    const bool bf = sh->dtype == RS_GPU_BF16;
    if (kern == RS_GPU_KERNEL_REF) {
        dim3 grid((unsigned)((sh->q_rows + 7) / 8), (unsigned)(sh->batch * sh->q_heads));
        if (bf) attn_fwd_ref<__nv_bfloat16><<<grid, 256, 0, stream>>>(p);
        else attn_fwd_ref<__half><<<grid, 256, 0, stream>>>(p);
        RS_CUDA_TRY(err, cudaGetLastError());
        return 0;
    }
    if (sh->head_dim == 64)
        return bf ? launch_fwd_mma<__nv_bfloat16, 64>(kern, p, sh->batch, stream, err)
                  : launch_fwd_mma<__half, 64>(kern, p, sh->batch, stream, err);
    return bf ? launch_fwd_mma<__nv_bfloat16, 128>(kern, p, sh->batch, stream, err)
              : launch_fwd_mma<__half, 128>(kern, p, sh->batch, stream, err);
}

int rs_gpu_fwd_finalize(const rs_gpu_shape_t *sh, const rs_gpu_fwd_bufs_t *b, cudaStream_t stream, rs_err_t *err) {
    const size_t nr = rs_gpu_shape_row_elems(sh);
    const unsigned grid = grid_for(nr * sh->head_dim);
    if (sh->dtype == RS_GPU_BF16)
        fwd_finalize_kernel<__nv_bfloat16><<<grid, 256, 0, stream>>>(*b, nr, sh->head_dim);
    else
        fwd_finalize_kernel<__half><<<grid, 256, 0, stream>>>(*b, nr, sh->head_dim);
    RS_CUDA_TRY(err, cudaGetLastError());
    return 0;
}

int rs_gpu_merge_fold(const rs_gpu_shape_t *sh, const void *part, float *acc_o, float *acc_lse, cudaStream_t stream,
                      rs_err_t *err) {
    const size_t nr = rs_gpu_shape_row_elems(sh);
    const void *o_part = part;
    const float *lse_part = (const float *)((const char *)part + rs_gpu_shape_q_elems(sh) * 2); /* after O, 16-bit */
    if (sh->dtype == RS_GPU_BF16)
        merge_fold_kernel<__nv_bfloat16><<<grid_for(nr), 256, 0, stream>>>((const __nv_bfloat16 *)o_part, lse_part, acc_o,
                                                                            acc_lse, nr, sh->head_dim);
    else
        merge_fold_kernel<__half><<<grid_for(nr), 256, 0, stream>>>((const __half *)o_part, lse_part, acc_o, acc_lse, nr,
                                                                     sh->head_dim);
    RS_CUDA_TRY(err, cudaGetLastError());
    return 0;
}

} // extern "C"
