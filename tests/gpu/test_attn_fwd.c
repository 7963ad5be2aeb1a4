/* test_attn_fwd.c - the forward kernels of one ring step (exec/gpu/attn_fwd.cu) on a GPU: every
 * variant (ref, mma, mma-ldsm, mma64) x bf16, fp16 x head_dim 64, 128 x layout x causal: the steps of
 * each rank of a 2-rank ring (B = 320: clipped tiles) folded on the GPU vs the float64 reference of the
 * same 16-bit inputs, then O and lse; rel_l2 <= 1e-2, every element within tolerance, nothing left
 * unwritten (outputs poisoned with NaN first). Without a GPU it prints "skipped: no GPU" and exits 77. */
#include <stdio.h>

#include "gpu_fixtures.h"
#include "test_main.h"

static void test_ref(void) { rs_test_gpu_kernels_for(RS_GPU_KERNEL_REF, false); }
static void test_mma(void) { rs_test_gpu_kernels_for(RS_GPU_KERNEL_MMA, false); }
static void test_mma_ldsm(void) { rs_test_gpu_kernels_for(RS_GPU_KERNEL_MMA_LDSM, false); }
static void test_mma64(void) { rs_test_gpu_kernels_for(RS_GPU_KERNEL_MMA64, false); }

int main(void) {
    if (rs_gpu_device_count() == 0) {
        printf("skipped: no GPU\n");
        return RS_TEST_SKIP;
    }
    static const rs_test_case_t cases[] = {{"ref_vs_float64", test_ref},
                                           {"mma_vs_float64", test_mma},
                                           {"mma_ldsm_vs_float64", test_mma_ldsm},
                                           {"mma64_vs_float64", test_mma64},
                                           {NULL, NULL}};
    return rs_test_main1("attn_fwd", cases);
}
