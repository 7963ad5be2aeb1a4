/* gemm.h - the time of one dense GEMM (C[M,N] = A[M,K] B[K,N]) on a device, by its shape and dtype: what
 * the planners cost the projections, the FFN and the LM head with (plan.h, infer.h). Derivation and the
 * sources of every figure: docs/plan.md section 4b.
 *
 * A GEMM runs as tiles of 128 x 128 outputs over the device's SMs (NVIDIA, "Matrix Multiplication
 * Background User's Guide", DU-09799-001: tile and wave quantization); with fewer tiles than SMs the
 * K loop is split over up to SMs / tiles CTAs of at least 128 K each (split-K); each tile's K loop
 * has a prologue and epilogue worth k0 = 96 elements of K; every call costs t0 = 7 us beside:
 *   units = tiles x split        waves = ceil(units / SMs)       k' = K / split
 *   shape(M, N, K) = (M N / (tiles x 128^2)) x (units / (waves x SMs)) x k' / (k' + k0)
 *   t(M, N, K) = max(t0 + max(2 M N K / (F x e x shape), bytes / W_mem),  2 M N K / R_max)
 * with F the dtype's datasheet peak, W_mem the memory bandwidth, bytes = M K e_a + K N e_w + M N e_o,
 * and e the device's efficiency at an ideal shape, set so that t at the device's published best shape
 * equals its published Maximum Achievable Matmul FLOPS (MAMF: S. Bekman, Machine Learning Engineering,
 * compute/accelerator, "Maximum Achievable Matmul FLOPS comparison table"), and R_max = the MAMF (the
 * maximum a brute-force search over shapes reached: no shape runs faster); Meta's H100 500 W (h100-gt),
 * which that table lacks, takes the best of the shapes FBGEMM's GEMM benchmark published on it (pytorch/
 * FBGEMM PR #2546) the same way. t0, k0, the tile and the
 * split-K rule are fitted to the H100 SXM's measured GEMM table of XLA's GPU cost model (openxla/xla
 * xla/service/gpu/model/matmul_interpolator_data.h, sm_90, bf16: 53 shapes of at least 1 GFLOP within
 * 32% each, median 7%); every device uses them with its own SM count, peak and MAMF. A device without
 * a published MAMF gets the median of the table's efficiencies for the dtype (estimated) and its
 * profile's SM count (sm_count; none: no wave term). */
#ifndef RS_GEMM_H
#define RS_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"
#include "profile.h"

/* Where a GEMM model's efficiency comes from. */
typedef enum { RS_GEMM_PUBLISHED = 0, RS_GEMM_ESTIMATED, RS_GEMM_GIVEN, RS_GEMM_SRC_COUNT } rs_gemm_src_t;

typedef struct {
    rs_dtype_t dtype;         /* of A and B (bf16, fp8, fp32, ...) */
    double peak_flops;        /* F: the dtype's datasheet peak, FLOP/s */
    double mem_bw;            /* W_mem, bytes/s (0: no memory bound) */
    int64_t sms;              /* SMs (compute units) the tiles spread over; 0: no wave term */
    double eff;               /* e: efficiency at an ideal shape (or the flat given one) */
    double max_flops;         /* R_max: the maximum achievable rate (MAMF; e F when estimated or flat) */
    bool flat;                /* user-given efficiency: t = max(2 M N K / (F e), bytes / W_mem), no shape, no t0 */
    double t0_s;              /* fixed time per call */
    double k0;                /* K-loop prologue and epilogue, elements of K */
    int64_t tile;             /* output tile, square */
    double in_bytes, out_bytes; /* e_a = e_w (the dtype's), e_o (bf16 for fp8 inputs) */
    rs_gemm_src_t src;
    char source[256];         /* what e rests on, one line */
} rs_gemm_t;

/* The GEMM model of device hw for dtype: its published MAMF (by the profile's device name) or the
 * estimated default; flat_eff > 0 replaces it with a flat user-given efficiency. Returns 0, or -1
 * with err when hw has no rate for dtype. */
int rs_gemm_model(const rs_hw_t *hw, rs_dtype_t dtype, double flat_eff, rs_gemm_t *out, rs_err_t *err);
/* One GEMM of M x N outputs over K, seconds (M, N, K >= 1). Can't fail. */
double rs_gemm_time_s(const rs_gemm_t *g, double m, double n, double k);
/* Its efficiency: 2 M N K / (t F), in (0, 1]. Can't fail. */
double rs_gemm_eff(const rs_gemm_t *g, double m, double n, double k);
/* One line for headers: "GEMMs: bf16 at 0.803 of 989 TFLOP/s at the best shape (published: ...)". */
const char *rs_gemm_describe(const rs_gemm_t *g, char *buf, size_t len);

/* The published points the model rests on, for tests and docs: the best published rate of each device
 * and dtype (the MAMF where Bekman's table has the device), each with its source. */
typedef struct {
    const char *device;       /* the profile's device name (rs_hw_t.name) */
    rs_dtype_t dtype;
    double tflops;            /* the published rate: R_max */
    int64_t m, n, k;          /* the shape it was reached at */
    int64_t sms;              /* the device's SMs (0: the profile's sm_count) */
    const char *source;       /* where the rate is published, one short line */
} rs_gemm_mamf_t;
/* The table, terminated by device NULL. Can't fail. */
const rs_gemm_mamf_t *rs_gemm_mamf_table(void);

#endif /* RS_GEMM_H */
