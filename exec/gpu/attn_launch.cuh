// attn_launch.cuh - what the kernels of both passes share on the host side (attn_fwd.cu, attn_bwd.cu,
// gpu_elementwise.cu): the heads, rows, scale and step every step kernel reads (StepDims, the base of
// each pass's kernel parameters, passed by value), the checks before a step's launch, and the grid of
// the elementwise kernels.
#ifndef RS_GPU_ATTN_LAUNCH_CUH
#define RS_GPU_ATTN_LAUNCH_CUH

#include "attn.h"
#include "check.h"

// The part of a step kernel's parameters both passes have.
struct StepDims {
    int hq, hkv, d;           // heads, head_dim
    int q_rows, kv_rows;      // local rows
    float scale;              // softmax scale (natural units)
    rs_gpu_step_desc_t desc;  // the step
};

// Before a step's launch of `pass` ("forward" | "backward"): kern supports the shape and the grid's y
// dimension (batch x q heads) fits; dims from the shape and the step. Returns 1 to launch, 0 when the
// step computes nothing, or -1 with err.
static inline int step_prepare(rs_gpu_kernel_t kern, const rs_gpu_shape_t *sh, const rs_gpu_step_desc_t *desc, const char *pass,
                               StepDims *dims, rs_err_t *err) {
    if (!rs_gpu_kernel_supports(kern, sh))
        return rs_errf(err, "gpu: the %s %s kernel does not support head_dim %d (mma: 64 or 128)", rs_gpu_kernel_name(kern), pass,
                       sh->head_dim);
    if (desc->n_blocks == 0) return 0;
    if ((long long)sh->batch * sh->q_heads > 65535)
        return rs_errf(err, "gpu: batch x q_heads = %lld: must be <= 65535 (grid.y)", (long long)sh->batch * sh->q_heads);
    dims->hq = sh->q_heads, dims->hkv = sh->kv_heads, dims->d = sh->head_dim;
    dims->q_rows = sh->q_rows, dims->kv_rows = sh->kv_rows, dims->scale = sh->scale;
    dims->desc = *desc;
    return 1;
}

// Blocks of 256 threads over n elements (grid-stride loops: at most 65536 blocks).
static inline unsigned grid_for(size_t n) {
    size_t g = (n + 255) / 256;
    return (unsigned)(g < 65536 ? (g ? g : 1) : 65536);
}

#endif // RS_GPU_ATTN_LAUNCH_CUH
