/* calibrate_kernels.h - measure this machine's attention kernel table (model/kernel_table.h) with the
 * real compute backend, for `ringsim calibrate` (CPU now; the GPU backend uses the same code).
 *
 * For every block size B of the list, in each pass, one B x B call of each mask kind - full, causal
 * (diagonal) and shifted (the causal block with diag 1, as striped rings issue it) - is the only
 * block of a one-rank step, timed like the executor runs it (accumulators reset first; median of the
 * repetitions after one warm-up); the point is (B, B, useful FLOPs / median time). The table holds one
 * kernel with these six curves, run by the ringsim preset (the default), with the given merge
 * bandwidth. Rectangular calls are not measured: ringsim's own executor runs square blocks only.
 */
#ifndef RS_CALIBRATE_KERNELS_H
#define RS_CALIBRATE_KERNELS_H

#include "exec.h"
#include "hw.h"
#include "kernel_table.h"

typedef struct {
    int n_blocks;                     /* 2 .. RS_KMAX_POINTS block sizes, increasing */
    int64_t blocks[RS_KMAX_POINTS];
    double min_time_s;                /* per point */
    int min_reps;                     /* at least this many repetitions per point */
    char name[RS_KNAME_LEN];          /* the kernel's name in the profile, e.g. "ringsim-cpu" */
    int dtype;                        /* rs_dtype_t the curves apply to (the backend's compute dtype) */
    double merge_bw_bytes_per_s;      /* measured memory bandwidth for the merges */
} rs_calib_kernel_opts_t;

/* Measure on this rank alone (no transport). problem gives heads, head_dim, batch, dtypes and tile;
 * S, N, layout, mask and pass are set per point. Returns 0 or -1 with err. */
int rs_calib_kernel_table(const rs_problem_t *problem, const rs_compute_ops_t *cops, int local_rank,
                          const rs_calib_kernel_opts_t *o, rs_kernel_table_t *t, rs_err_t *err);

#endif /* RS_CALIBRATE_KERNELS_H */
