/* test_attn_bwd.c - the backward kernels of one ring step (exec/gpu/attn_bwd.cu) on a GPU: every
 * variant x bf16, fp16 x head_dim 64, 128 x layout x causal, each rank of a 2-rank ring: the forward
 * folded on the GPU gives O and lse (both checked), then D and every backward step on the GPU vs the
 * float64 reference on the GPU's O and lse: dK, dV after each step, dQ after the last; rel_l2 <= 1e-2,
 * every element within tolerance. Without a GPU it prints "skipped: no GPU" and exits 77. */
#include <stdio.h>

#include "gpu_fixtures.h"
#include "test_main.h"

static void test_ref(void) { rs_test_gpu_kernels_for(RS_GPU_KERNEL_REF, true); }
static void test_mma(void) { rs_test_gpu_kernels_for(RS_GPU_KERNEL_MMA, true); }
static void test_mma_ldsm(void) { rs_test_gpu_kernels_for(RS_GPU_KERNEL_MMA_LDSM, true); }
static void test_mma64(void) { rs_test_gpu_kernels_for(RS_GPU_KERNEL_MMA64, true); }

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
    return rs_test_main1("attn_bwd", cases);
}
