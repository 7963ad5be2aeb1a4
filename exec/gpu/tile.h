/* tile.h - the GPU step descriptor and tile-granularity mask classification.
 *
 * Shared, word for word, by the CUDA kernels (device code) and by host C code (the descriptor builder,
 * the float64 reference, the tests): the one place where a tile of a (Q segment, KV segment) block is
 * classified as skipped, fully visible or partially visible. The descriptor itself is built from the
 * schedule's rs_step_t by rs_gpu_desc_from_step() (gpu_host.h); nothing here re-derives the ring.
 *
 * Rows of the rank's local Q buffer are its Q segments one after the other (segment 0 at row 0,
 * segment 1 at row len0); rows of a KV buffer are the KV owner's segments the same way. Inside a
 * block, i is the row index inside the Q segment and j the row index inside the KV segment
 * (the schedule's convention): FULL sees every (i, j), SKIP none, DIAG those with i - j >= diag.
 * Tiles start at each segment's first row: tile (ti, tj) covers i in [ti*TQ, ti*TQ+TQ) and j in
 * [tj*TK, tj*TK+TK), clipped at the segment ends. This matches the schedule's executed-FLOP count
 * (rs_diag_exec_pairs) when the problem's tile_q x tile_k equals the kernel's TQ x TK.
 */
#ifndef RS_GPU_TILE_H
#define RS_GPU_TILE_H

#include <stdint.h>

#if defined(__CUDACC__)
#define RS_GPU_HD __host__ __device__ __forceinline__
#else
#define RS_GPU_HD static inline
#endif

#define RS_GPU_MAX_SEGS 2    /* = RS_MAX_SEGMENTS: Q segments */
#define RS_GPU_MAX_KV_SEGS 4 /* = RS_MAX_KV_SEGMENTS: K,V segments (a cached prefix, then the new tokens) */
#define RS_GPU_MAX_BLOCKS 8  /* = RS_MAX_BLOCKS */

/* Mask codes: the same numeric values as rs_mask_t (checked by a static assert in gpu_host.c). */
#define RS_GPU_MASK_FULL 0
#define RS_GPU_MASK_SKIP 1
#define RS_GPU_MASK_DIAG 2

/* Tile classes returned by rs_gpu_tile_class(). */
#define RS_GPU_TILE_SKIP 0    /* no visible pair: not executed */
#define RS_GPU_TILE_FULL 1    /* every pair visible: no per-element mask */
#define RS_GPU_TILE_PARTIAL 2 /* some pairs visible: per-element mask */

typedef struct {
    int32_t off; /* first row of the segment in the local buffer */
    int32_t len; /* rows (tokens) in the segment */
} rs_gpu_seg_t;

typedef struct {
    int32_t q_seg;  /* index into rs_gpu_step_desc_t.q */
    int32_t kv_seg; /* index into rs_gpu_step_desc_t.kv */
    int32_t mask;   /* RS_GPU_MASK_* */
    int32_t diag;   /* DIAG only: (i, j) visible iff i - j >= diag */
} rs_gpu_blk_t;

/* One step's work for one rank, passed by value to the kernels (192 bytes). */
typedef struct {
    int32_t n_q;                            /* Q segments (1 or 2) */
    int32_t n_kv;                           /* KV segments (1..4; the backward's 1 or 2) */
    int32_t n_blocks;                       /* blocks (0 when the step has no compute) */
    int32_t pad_;                           /* keeps the struct 8-byte sized; always 0 */
    rs_gpu_seg_t q[RS_GPU_MAX_SEGS];        /* Q segments in the local Q buffer */
    rs_gpu_seg_t kv[RS_GPU_MAX_KV_SEGS];    /* KV segments in the KV buffer */
    rs_gpu_blk_t blocks[RS_GPU_MAX_BLOCKS]; /* (Q segment, KV segment, mask) */
} rs_gpu_step_desc_t;

/* Class of the tile rows [i0, i1) x columns [j0, j1) (segment-local, i1 > i0, j1 > j0) under
 * (mask, diag): RS_GPU_TILE_SKIP, _FULL or _PARTIAL. Can't fail. */
RS_GPU_HD int rs_gpu_tile_class(int32_t mask, int32_t diag, int32_t i0, int32_t i1, int32_t j0,
                                int32_t j1) {
    if (mask == RS_GPU_MASK_FULL) return RS_GPU_TILE_FULL;
    if (mask == RS_GPU_MASK_SKIP) return RS_GPU_TILE_SKIP;
    /* DIAG: the largest i - j in the tile is (i1-1) - j0, the smallest i0 - (j1-1). */
    if ((int64_t)(i1 - 1) - j0 < diag) return RS_GPU_TILE_SKIP;
    if ((int64_t)i0 - (j1 - 1) >= diag) return RS_GPU_TILE_FULL;
    return RS_GPU_TILE_PARTIAL;
}

/* Is the pair (i, j) of a block visible? Can't fail. */
RS_GPU_HD int rs_gpu_pair_visible(int32_t mask, int32_t diag, int32_t i, int32_t j) {
    return mask == RS_GPU_MASK_FULL || (mask == RS_GPU_MASK_DIAG && i - j >= diag);
}

/* Number of tiles of size t covering n rows. Can't fail. */
RS_GPU_HD int32_t rs_gpu_n_tiles(int32_t n, int32_t t) { return (n + t - 1) / t; }

#endif /* RS_GPU_TILE_H */
