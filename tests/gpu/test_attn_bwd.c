/* test_attn_bwd.c - the backward kernels of one ring step (exec/gpu/attn_bwd.cu) on a GPU: every
 * variant x bf16, fp16 x head_dim 64, 128 x layout x causal, each rank of a 2-rank ring: the forward
 * folded on the GPU gives O and lse (both checked), then D and every backward step on the GPU vs the
 * float64 reference on the GPU's O and lse: dK, dV after each step, dQ after the last; rel_l2 <= 1e-2,
 * every element within tolerance. Without a GPU it prints "skipped: no GPU" and exits 77. */
#include "gpu_fixtures.h"

RS_TEST_GPU_KERNELS_PROGRAM("attn_bwd", true)
