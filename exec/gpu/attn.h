/* attn.h - the CUDA attention kernels of one ring step (C API; implemented in attn_fwd.cu, attn_bwd.cu
 * and the elementwise ones in gpu_elementwise.cu). Layouts, statistics and masks: gpu_host.h and tile.h.
 *
 * Variants (llm.c pattern: the plain reference beside the fast one, both checked by dev/cuda):
 *   RS_GPU_KERNEL_REF  one warp per row, fp32 scalar math, any head_dim in [8, 256]; slow, obvious.
 *   RS_GPU_KERNEL_MMA  flash-style tiles on tensor cores (mma.sync m16n8k16 bf16/fp16 -> fp32,
 *                      cp.async double buffering, online softmax in registers), head_dim 64 or 128;
 *                      TQ x TK tiles classified by rs_gpu_tile_class (SKIP tiles never run).
 * Every launcher checks the launch (cudaGetLastError) and returns 0, or -1 with err
 * "cuda: file:line: ...". Launches are asynchronous on `stream`.
 */
#ifndef RS_GPU_ATTN_H
#define RS_GPU_ATTN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "gpu_host.h"

/* Variants 2 and 3 differ from 1 in the forward only (the backward runs the mma kernel):
 *   RS_GPU_KERNEL_MMA_LDSM  as MMA, K fragments of S = Q K^T by ldmatrix.x4 (a quarter of the
 *                           shared-memory load instructions);
 *   RS_GPU_KERNEL_MMA64     as MMA_LDSM with 64-row CTAs of 4 warps, two CTAs per SM. */
typedef enum {
    RS_GPU_KERNEL_REF = 0,
    RS_GPU_KERNEL_MMA = 1,
    RS_GPU_KERNEL_MMA_LDSM = 2,
    RS_GPU_KERNEL_MMA64 = 3,
    RS_GPU_KERNEL_COUNT
} rs_gpu_kernel_t;
const char *rs_gpu_kernel_name(rs_gpu_kernel_t k); /* "ref" | "mma" | "mma-ldsm" | "mma64" */
/* The variant `ringsim exec --backend gpu` runs (RINGSIM_GPU_KERNEL=<name> overrides it): the fastest
 * correct one on an H200 (docs/gpu.md). */
#define RS_GPU_KERNEL_DEFAULT RS_GPU_KERNEL_MMA64

/* Tile sizes of a variant (rows of Q x rows of KV per CTA step); the problem's tile_q x tile_k
 * should equal them so the schedule's executed FLOPs are what the kernel runs. */
int rs_gpu_fwd_tile_q(rs_gpu_kernel_t k); /* MMA, MMA_LDSM: 128; MMA64: 64 */
int rs_gpu_fwd_tile_k(rs_gpu_kernel_t k); /* MMA: 64 */
int rs_gpu_bwd_tile_q(rs_gpu_kernel_t k); /* MMA: 64 */
int rs_gpu_bwd_tile_k(rs_gpu_kernel_t k); /* MMA: 64 */
/* Does variant k support this shape (MMA: head_dim 64 or 128)? Can't fail. */
bool rs_gpu_kernel_supports(rs_gpu_kernel_t k, const rs_gpu_shape_t *sh);

/* The forward's device buffers (layouts: gpu_host.h). */
typedef struct {
    const void *q;          /* Q layout, sh->dtype */
    const void *k, *v;      /* KV layout, sh->dtype */
    float *o, *m, *l;       /* the running state, fp32: unnormalised O, row max, normaliser */
    void *out;              /* finalize: O / l in sh->dtype */
    float *out_f32;         /* finalize: the same in fp32 (NULL: not wanted) */
    float *lse;             /* finalize: m + log l */
} rs_gpu_fwd_bufs_t;

/* Forward. init: o = 0, m = -inf, l = 0. step: fold the step's visible keys of k, v for the queries
 * q into (o, m, l). finalize: out = o / l in sh->dtype (and out_f32 if non-NULL), lse = m + log l;
 * rows with l = 0 give 0 and -inf. Each reads only the buffers it names. */
int rs_gpu_fwd_init(const rs_gpu_shape_t *sh, const rs_gpu_fwd_bufs_t *b, cudaStream_t stream, rs_err_t *err);
int rs_gpu_fwd_step(rs_gpu_kernel_t kern, const rs_gpu_shape_t *sh, const rs_gpu_step_desc_t *desc, const rs_gpu_fwd_bufs_t *b,
                    cudaStream_t stream, rs_err_t *err);
int rs_gpu_fwd_finalize(const rs_gpu_shape_t *sh, const rs_gpu_fwd_bufs_t *b, cudaStream_t stream, rs_err_t *err);

/* pass-q's merge: fold one partial output (a partial buffer part: O in sh->dtype, normalised, Q layout
 * and rows of sh, then its lse in fp32, exec.h) into an fp32 accumulator (acc_o normalised over what it
 * holds, acc_lse; start from 0 and -inf): lse = log(e^acc_lse + e^lse_part),
 * acc_o = e^(acc_lse - lse) acc_o + e^(lse_part - lse) o_part. */
int rs_gpu_merge_fold(const rs_gpu_shape_t *sh, const void *part, float *acc_o, float *acc_lse, cudaStream_t stream,
                      rs_err_t *err);

/* The backward's device buffers. */
typedef struct {
    const void *q, *dout;   /* Q layout, sh->dtype */
    const void *k, *v;      /* KV layout, sh->dtype */
    const void *out;        /* prep: the forward's O (normalised), sh->dtype */
    const float *lse;       /* the forward's log-sum-exp, rows */
    float *dvec;            /* D = rowsum(dO * O), rows (prep writes it, step reads it) */
    float *dq;              /* accumulator, Q layout, fp32 */
    float *dk, *dv;         /* accumulators, KV layout, fp32 */
} rs_gpu_bwd_bufs_t;

/* Backward. prep: dvec = rowsum(dout * out) (fp32). step: recompute P from lse and accumulate
 * dq (Q layout), dk and dv (KV layout), all fp32, with +=. */
int rs_gpu_bwd_prep(const rs_gpu_shape_t *sh, const rs_gpu_bwd_bufs_t *b, cudaStream_t stream, rs_err_t *err);
int rs_gpu_bwd_step(rs_gpu_kernel_t kern, const rs_gpu_shape_t *sh, const rs_gpu_step_desc_t *desc, const rs_gpu_bwd_bufs_t *b,
                    cudaStream_t stream, rs_err_t *err);

/* Test hook: one thread on `stream` that spins until *release (device address of host-mapped
 * memory) is non-zero or max_s seconds have passed, so work queued behind it stalls but nothing
 * hangs for ever. */
int rs_gpu_stall(const volatile int *release, double max_s, cudaStream_t stream, rs_err_t *err);

/* Elementwise helpers: dst += src (fp32); 16-bit <-> fp32 conversions. */
int rs_gpu_add_f32(float *dst, const float *src, size_t n, cudaStream_t stream, rs_err_t *err);
int rs_gpu_f32_to_16(rs_gpu_dtype_t t, const float *src, void *dst, size_t n, cudaStream_t stream,
                     rs_err_t *err);
int rs_gpu_16_to_f32(rs_gpu_dtype_t t, const void *src, float *dst, size_t n, cudaStream_t stream,
                     rs_err_t *err);

#ifdef __cplusplus
}
#endif

#endif /* RS_GPU_ATTN_H */
