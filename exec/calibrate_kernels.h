/* calibrate_kernels.h - measure this machine's attention kernel table (model/3-machine/kernel_table.h)
 * with the real compute backend, for `ringsim calibrate --backend cpu|gpu`: the same code for every
 * backend, through its compute ops (exec/exec.h).
 *
 * For every block size B of the list, in each pass, one B x B call of each mask kind - full, causal
 * (diagonal) and shifted (the causal block with diag 1, as striped rings issue it) - is the only
 * block of a one-rank step, timed like the executor runs it (accumulators reset first; median of the
 * repetitions after one warm-up); the point is (B, B, useful FLOPs / median time). The table holds one
 * kernel with these six curves, run by the ringsim preset (the default), and the bandwidth of the
 * backend's own accumulation kernel (rs_calib_merge_bw at the largest B) for the merges. Rectangular
 * calls are not measured: ringsim's own executor runs square blocks only. A table of one pass
 * (o->passes) is a valid table: a model of the other pass uses its curves and says so
 * (rs_kernel_resolve).
 */
#ifndef RS_CALIBRATE_KERNELS_H
#define RS_CALIBRATE_KERNELS_H

#include "exec.h"
#include "kernel_table.h"
#include "profile.h"

typedef struct {
    int n_blocks;                     /* 2 .. RS_KMAX_POINTS block sizes, increasing */
    int64_t blocks[RS_KMAX_POINTS];
    double min_time_s;                /* per point */
    int min_reps;                     /* at least this many repetitions per point */
    char name[RS_KNAME_LEN];          /* the kernel's name in the profile, e.g. "ringsim-cpu" */
    rs_dtype_t dtype;                 /* the curves' dtype: the backend's compute dtype */
    unsigned passes;                  /* bit 1 << pass of the passes to measure; 0: both */
} rs_calib_kernel_opts_t;

/* Measure on this rank alone (no transport). problem gives heads, head_dim, batch, dtypes and tile;
 * S, N, layout, mask and pass are set per point. t is prepared (rs_kernel_table_prepare). Returns 0
 * or -1 with err. */
int rs_calib_kernel_table(const rs_problem_t *problem, const rs_compute_ops_t *cops, int local_rank,
                          const rs_calib_kernel_opts_t *o, rs_kernel_table_t *t, rs_err_t *err);
/* The table as calibrate prints it: useful GFLOP/s per block size, pass and mask kind, and the merge
 * bandwidth. Can't fail. */
void rs_calib_kernel_print(const rs_kernel_table_t *t, FILE *out);

#endif /* RS_CALIBRATE_KERNELS_H */
