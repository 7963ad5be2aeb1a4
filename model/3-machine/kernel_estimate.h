/* kernel_estimate.h - the attention kernel of a device for which no kernel curve was measured or
 * published (and no efficiency curve given): at each call shape, the median fraction of the datasheet
 * peak that the published curves of the shipped presets reach there, times this device's peak - an
 * estimate, said as such (docs/model.md section 3a, "Where each rate comes from"). A profile of a
 * known architecture borrows its family's curves instead ("kernels": {"from": PRESET, ...},
 * docs/profiles.md). */
#ifndef RS_KERNEL_ESTIMATE_H
#define RS_KERNEL_ESTIMATE_H

#include "dtype.h"
#include "kernel_table.h"
#include "util.h"

#define RS_KEST_SHAPES 6 /* the squares 512, 1K, 2K, 4K, 8K, 16K tokens */

/* The published curves behind the estimate: per [pass][mask: full, causal][shape] the count of
 * distinct published bf16 head_dim-128 curves that cover the square (its area within the curve's
 * measured areas) and the median of their full-wave rates over their device's bf16 peak. */
typedef struct {
    double shape_tokens[RS_KEST_SHAPES];
    int n[2][2][RS_KEST_SHAPES];
    double median[2][2][RS_KEST_SHAPES];
    int n_curves;                      /* distinct published curves read */
    char curves[1536];                 /* "h100-sxm flash-attn-2, ..." (each preset's kernel once) */
} rs_kest_t;

/* The fractions (read once from the embedded presets; thread-safe). Can't fail. */
const rs_kest_t *rs_kernel_estimate_fractions(void);

/* out = a table of one kernel, "estimated" (kind estimated), whose curves for dtype at head_dim 128
 * (forward and backward, full and causal, where published curves cover a shape) are the medians
 * above times peak_flops_per_s; every implementation preset runs it, flash-attn by default; no wave
 * term, no SM count, no merge bandwidth (the caller's). Returns 0, or -1 with err when no shipped
 * curve can be read. */
int rs_kernel_estimate(rs_dtype_t dtype, double peak_flops_per_s, rs_kernel_table_t *out, rs_err_t *err);

#endif /* RS_KERNEL_ESTIMATE_H */
