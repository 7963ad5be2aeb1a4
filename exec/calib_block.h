/* calib_block.h - the compute side of a calibration, on this rank alone: a compute state holding one
 * B x B block of the problem's pass (the N = 1 schedule's one step), timed as the executor runs it,
 * and the measurements made on it - kernel points, single calls of a mask kind, the accumulation
 * kernel's bandwidth - and the host's memcpy bandwidth. */
#ifndef RS_CALIB_BLOCK_H
#define RS_CALIB_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "exec.h"
#include "exec_backend.h"
#include "kernel_table.h"

/* One measurement point on this rank alone: the B x B block step of problem's pass on a compute
 * backend, repeated for at least min_time_s in all and at least min_reps times. */
typedef struct {
    const rs_problem_t *problem;    /* heads, kv_heads, head_dim, batch, dtypes, pass, tile (S, N, layout
                                       and causal are set per block) */
    int64_t block;                  /* B */
    const rs_compute_ops_t *cops;   /* the compute backend */
    int local_rank;                 /* its rank among this host's processes (the GPU ordinal) */
    double min_time_s;              /* at least this long in all */
    int min_reps;                   /* and at least this many repetitions */
} rs_calib_point_t;

/* One kernel measurement point: a full B x B block step repeated for min_time_s (and min_reps),
 * durations appended to samples[*n..cap); *flops = its executed FLOPs. Used by validate to
 * interleave kernel samples with the measured runs. Returns 0 or -1 with err. */
int rs_calib_kernel_point(const rs_calib_point_t *pt, double *samples, size_t cap, size_t *n, uint64_t *flops,
                          rs_err_t *err);
/* One call of mask kind `mask` (full, causal, shifted: kernel_table.h) on a B x B block, timed as
 * rs_calib_kernel_point does (at most 256 repetitions): *median_s the median duration, *flops_useful
 * its useful FLOPs. Used by the kernel table (calibrate_kernels.h). Returns 0 or -1 with err. */
int rs_calib_call_median(const rs_calib_point_t *pt, rs_kmask_t mask, double *median_s, uint64_t *flops_useful,
                         rs_err_t *err);
/* The bandwidth of the backend's accumulation kernel: grad_add (dst += src, fp32: 3 x
 * rs_problem_dkv_bytes bytes moved through its memory) on the dK,dV buffer of a B-token block,
 * launched 16 times per timing, median over at least 4 timings and min_time_s (min_reps unused) - the
 * merges of the kernel table (calibrate_kernels.h) run at it. Returns 0 or -1 with err. */
int rs_calib_merge_bw(const rs_calib_point_t *pt, double *bytes_per_s, rs_err_t *err);

/* memcpy bandwidth of this host (read + write, one rank, the best of 3 copies of 64 MiB; 0 when the
 * buffers cannot be had). Can't fail. */
double rs_calib_memcpy_bw(void);

/* ---------------------------------------------------------------------------------------------------
 * The block itself (for the calibration's own measurements: calibrate.c, calib_transfer.c)
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    const rs_compute_ops_t *cops; /* its compute backend */
    rs_schedule_t *s;             /* the N = 1 schedule */
    rs_step_t st;                 /* its compute step */
    void *cs;                     /* compute state */
    void *kv, *dkv;               /* buffers */
    float *hk, *hv;               /* K and V on the host (uploaded into kv at init) */
    bool bwd;                     /* measuring the backward step */
} rs_calib_block_t;

/* The block of pt (N = 1, S = B, contiguous) of mask kind `mask`: full (non-causal), causal (diag 0)
 * or shifted (the causal block with diag 1: row i sees keys j < i, as striped rings issue it), with
 * seeded inputs uploaded (and, for a backward, the forward run that gives O and lse). job (may be
 * NULL: this rank alone) gives the compute's progress hook its transport. Returns 0, or -1 with err
 * (b freed). */
int rs_calib_block_init(const rs_calib_point_t *pt, rs_kmask_t mask, const rs_exec_job_t *job, rs_calib_block_t *b,
                        rs_err_t *err);
void rs_calib_block_free(rs_calib_block_t *b);
/* Reset the accumulators (the forward's O, m, l; the backward's dK,dV partial): what the executor does
 * before a pass's first post. Returns 0 or -1 with err. */
int rs_calib_block_begin(rs_calib_block_t *b, rs_err_t *err);
/* Run the step (after rs_calib_block_begin) and wait; its compute interval into *t0, *t1. */
int rs_calib_block_run(rs_calib_block_t *b, double *t0, double *t1, rs_err_t *err);
/* rs_calib_block_begin, then rs_calib_block_run. */
int rs_calib_block_step(rs_calib_block_t *b, double *t0, double *t1, rs_err_t *err);

#endif /* RS_CALIB_BLOCK_H */
