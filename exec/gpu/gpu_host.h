/* gpu_host.h - host-side (plain C, no CUDA) half of the GPU backend: attention shapes, the step
 * descriptor built from the schedule, bf16/fp16 conversions, the float64 CPU reference of one ring
 * step (forward and backward), and the llm.c-style checker. Built into rs_gpu_host, which compiles
 * and is tested on machines with no GPU and no nvcc.
 *
 * Tensor layout everywhere (host and device): "BHSD" - (batch, heads, rows, head_dim), row-major,
 * head_dim contiguous. Q, O, dO, dQ: (batch, q_heads, q_rows, d); K, V, dK, dV: (batch, kv_heads,
 * kv_rows, d); row statistics m, l, lse, D: (batch, q_heads, q_rows). q head h reads kv head
 * h / (q_heads / kv_heads) (GQA). Scores are S = scale * q.k with scale = 1/sqrt(d) by default.
 *
 * Statistics follow the seed's recurrence exactly: m = running row max of S (natural units),
 * l = sum exp(S - m), O = unnormalised sum exp(S - m) v (fp32 on the GPU, float64 here). A row that
 * has seen no visible key yet has m = -inf, l = 0, O = 0. Finalisation gives O / l and
 * lse = m + log(l). Backward uses lse and D = rowsum(dO * O) (O normalised).
 */
#ifndef RS_GPU_HOST_H
#define RS_GPU_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"
#include "tile.h"
#include "util.h"

typedef enum { RS_GPU_BF16 = 0, RS_GPU_FP16 = 1 } rs_gpu_dtype_t;
const char *rs_gpu_dtype_name(rs_gpu_dtype_t t); /* "bf16" | "fp16" */
int rs_gpu_dtype_parse(const char *s, rs_gpu_dtype_t *out); /* 0 or -1 */

typedef struct {
    rs_gpu_dtype_t dtype; /* element type of Q, K, V, O, dO (2 bytes) */
    int32_t batch;        /* sequences */
    int32_t q_heads;      /* query heads */
    int32_t kv_heads;     /* key/value heads; divides q_heads */
    int32_t head_dim;     /* d */
    int32_t q_rows;       /* rows of the local Q buffer (sum of the Q segments) */
    int32_t kv_rows;      /* rows of a KV buffer (sum of the KV segments) */
    float scale;          /* softmax scale, normally 1/sqrt(d) */
} rs_gpu_shape_t;

/* Check a shape: positive sizes, kv_heads divides q_heads, head_dim in [8, 256] and even, element
 * counts below 2^31 per tensor. Returns 0 or -1 with err naming the field and the range. */
int rs_gpu_shape_validate(const rs_gpu_shape_t *sh, rs_err_t *err);
/* Element counts of the tensors (batch * heads * rows [* d]). Can't fail. */
size_t rs_gpu_shape_q_elems(const rs_gpu_shape_t *sh);   /* Q, O, dO, dQ */
size_t rs_gpu_shape_kv_elems(const rs_gpu_shape_t *sh);  /* K, V, dK, dV (each) */
size_t rs_gpu_shape_row_elems(const rs_gpu_shape_t *sh); /* m, l, lse, D */

/* The GPU view of one (rank, step) of the schedule: segments as row ranges of the local buffers
 * and the blocks' masks. A step with no compute gets n_blocks = 0. Returns 0, or -1 with err if a
 * segment does not fit in 32-bit rows. */
int rs_gpu_desc_from_step(const rs_step_t *st, rs_gpu_step_desc_t *out, rs_err_t *err);
/* A descriptor for a single block of q_rows x kv_rows under (mask, diag); used by the dev programs
 * and tests. Can't fail. */
void rs_gpu_desc_single(int32_t q_rows, int32_t kv_rows, int32_t mask, int32_t diag,
                        rs_gpu_step_desc_t *out);
/* Visible (q, k) pairs of the descriptor, and pairs inside executed tq x tk tiles (as the kernels
 * execute them, using rs_gpu_tile_class), per (batch, head). Can't fail. */
uint64_t rs_gpu_desc_pairs(const rs_gpu_step_desc_t *d);
uint64_t rs_gpu_desc_exec_pairs(const rs_gpu_step_desc_t *d, int32_t tq, int32_t tk);
/* Number of executed tq x tk tiles. Can't fail. */
uint64_t rs_gpu_desc_exec_tiles(const rs_gpu_step_desc_t *d, int32_t tq, int32_t tk);

/* ---------------------------------------------------------------------------------------------------
 * 16-bit floats on the host (round to nearest even; NaN stays NaN).
 * ------------------------------------------------------------------------------------------------- */
uint16_t rs_gpu_f32_to_bf16(float x);
float rs_gpu_bf16_to_f32(uint16_t h);
uint16_t rs_gpu_f32_to_f16(float x);
float rs_gpu_f16_to_f32(uint16_t h);
/* Convert n floats to dtype / back. Can't fail. */
void rs_gpu_pack(rs_gpu_dtype_t t, const float *in, uint16_t *out, size_t n);
void rs_gpu_unpack(rs_gpu_dtype_t t, const uint16_t *in, double *out, size_t n);
/* Fill with deterministic pseudo-random values uniform in [-amp, amp), rounded to dtype (so the
 * float64 reference sees exactly what the GPU sees). Can't fail. */
void rs_gpu_fill_random(rs_gpu_dtype_t t, uint16_t *out, size_t n, double amp, uint64_t seed);

/* ---------------------------------------------------------------------------------------------------
 * float64 reference of one ring step (the seed's equations, element by element).
 * ------------------------------------------------------------------------------------------------- */
/* The reference's arrays of one ring step (layouts above; each function reads and writes only those
 * it names). */
typedef struct {
    const double *q, *k, *v;   /* inputs: Q layout; K, V: KV layout */
    const double *dout;        /* backward input dO, Q layout */
    double *o, *m, *l;         /* forward running state: unnormalised O, row max, normaliser */
    double *out, *lse;         /* the finalised forward: O / l, m + log l (the backward reads them) */
    double *dvec;              /* D = rowsum(dO * O) */
    double *dq, *dk, *dv;      /* backward accumulators (Q layout; KV layout) */
} rs_gpu_ref_bufs_t;

/* Initialise the running statistics of a pass: o = 0, m = -inf, l = 0. Can't fail. */
void rs_gpu_ref_fwd_init(const rs_gpu_shape_t *sh, const rs_gpu_ref_bufs_t *b);
/* One forward step: fold the visible keys of desc into (o, m, l) with the seed's update
 * m' = max(m, rowmax S), l' = e^(m-m') l + rowsum e^(S-m'), o' = e^(m-m') o + e^(S-m') V.
 * Can't fail. */
void rs_gpu_ref_fwd_step(const rs_gpu_shape_t *sh, const rs_gpu_step_desc_t *desc, const rs_gpu_ref_bufs_t *b);
/* Normalise: out = o / l (0 for rows with l = 0), lse = m + log l (-inf for l = 0). Can't fail. */
void rs_gpu_ref_fwd_finalize(const rs_gpu_shape_t *sh, const rs_gpu_ref_bufs_t *b);
/* dvec: D = rowsum(dout * out) with out normalised. Can't fail. */
void rs_gpu_ref_bwd_prep(const rs_gpu_shape_t *sh, const rs_gpu_ref_bufs_t *b);
/* One backward step: recompute P = exp(S - lse) on the visible pairs and accumulate
 * dV += P^T dO, dP = dO V^T, dS = P * (dP - D), dQ += scale dS K, dK += scale dS^T Q
 * (dk, dv in KV layout summed over each kv head's query heads). Can't fail. */
void rs_gpu_ref_bwd_step(const rs_gpu_shape_t *sh, const rs_gpu_step_desc_t *desc, const rs_gpu_ref_bufs_t *b);

/* ---------------------------------------------------------------------------------------------------
 * Checking (llm.c pattern): element i passes iff |got - ref| <= atol + rtol * |ref| and got is
 * finite. Prints the first max_print mismatches as "name[i]: got G ref R" to stderr.
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    size_t n;           /* elements compared */
    size_t n_bad;       /* elements outside the tolerance (NaN/Inf count as bad) */
    double rel_l2;      /* ||got - ref||_2 / ||ref||_2 (0 when ref is all zero and got equals it) */
    double max_abs_err; /* max |got - ref| */
} rs_gpu_check_t;

/* The tolerance of a check and how many mismatches it prints. */
typedef struct {
    double atol, rtol;  /* element i passes iff |got - ref| <= atol + rtol * |ref| */
    int max_print;      /* the first mismatches printed */
} rs_gpu_tol_t;

/* Compare got (float) with ref (double). Returns the summary; can't fail. */
rs_gpu_check_t rs_gpu_check_f32(const char *name, const float *got, const double *ref, size_t n, rs_gpu_tol_t tol);
/* Same for a 16-bit got. */
rs_gpu_check_t rs_gpu_check_16(const char *name, rs_gpu_dtype_t t, const uint16_t *got, const double *ref, size_t n,
                               rs_gpu_tol_t tol);

#endif /* RS_GPU_HOST_H */
