/* test_attn_fwd.c - the forward kernels of one ring step (exec/gpu/attn_fwd.cu) on a GPU: every
 * variant (ref, mma, mma-ldsm, mma64) x bf16, fp16 x head_dim 64, 128 x layout x causal: the steps of
 * each rank of a 2-rank ring (B = 320: clipped tiles) folded on the GPU vs the float64 reference of the
 * same 16-bit inputs, then O and lse; rel_l2 <= 1e-2, every element within tolerance, nothing left
 * unwritten (outputs poisoned with NaN first). Without a GPU it prints "skipped: no GPU" and exits 77. */
#include "gpu_fixtures.h"

RS_TEST_GPU_KERNELS_PROGRAM("attn_fwd", false)
