/* calibrate.h - measure this machine with the real kernel and transport, for the model's profile.
 *
 * SPMD: every rank of the transport calls rs_calibrate(); rank 0 receives the result.
 *  1. Kernel: for every B of the list, every rank at once runs the compute backend's step on one
 *     FULL B x B block (the problem's heads, head_dim, batch, pass), repeated until min_time_s;
 *     F_eff(B) = flops_exec / median time (median over repetitions, then over ranks).
 *  2. Transport: for message sizes m, every rank at once sends m bytes to p+1 and receives m from
 *     p-1 (the ring step's pattern, no compute); the receive's post-to-completion time is the
 *     sample. Fit t(m) = L + m / W by least squares on relative error.
 *  3. Overlap: a step at B_o (the block whose compute time is closest to the time of its own ring
 *     transfer L + kv_bytes(B) / W: the crossover, where overlap matters) with that transfer
 *     posted at its start (median of 31): from the measured completion E of the transfer,
 *     eta = (t_c + x - E) / (t_c - L) when E >= t_c (the transfer trailed the compute), else
 *     x / (E - L) (clamped to [0, 1]) - the inversion of docs/model.md's eta step; and the compute
 *     slowdown sigma = compute time with the transfer / without.
 * The profile: F_peak(fp32) = the largest F_eff(B), eff(B) = F_eff(B) / F_peak, the intra tier
 * (L, W), overlap eta; if eta >= 0.98 the slowdown model is used instead (eta = 1, sigma).
 */
#ifndef RS_CALIBRATE_H
#define RS_CALIBRATE_H

#include "exec.h"
#include "hw.h"

#define RS_CALIB_MAX_SIZES 24

typedef struct {
    int n_blocks;                         /* block sizes to measure (<= RS_MAX_EFF_POINTS) */
    int64_t blocks[RS_MAX_EFF_POINTS];    /* B values, increasing */
    int n_sizes;                          /* message sizes (0: derived from the blocks) */
    uint64_t sizes[RS_CALIB_MAX_SIZES];   /* bytes, increasing */
    double min_time_s;                    /* per measurement point (default 0.05 s) */
    int min_reps;                         /* at least this many repetitions (default 3) */
    double timeout_s;                     /* transport waits */
} rs_calib_opts_t;

typedef struct {
    int n_blocks;                          /* measured F_eff(B) */
    int64_t blocks[RS_MAX_EFF_POINTS];
    double t_block_s[RS_MAX_EFF_POINTS];   /* median step time of a full block */
    double flops_eff[RS_MAX_EFF_POINTS];   /* FLOP/s */
    double flops_peak;                     /* max F_eff */
    int n_sizes;                           /* transport samples */
    uint64_t sizes[RS_CALIB_MAX_SIZES];
    double t_msg_s[RS_CALIB_MAX_SIZES];    /* median post-to-completion time */
    double latency_s, bw_bytes_per_s;      /* alpha-beta fit */
    double fit_err_max;                    /* max |fit - measured| / measured over the sizes */
    int64_t overlap_block;                 /* B_o */
    double overlap_t_comp_s;               /* compute alone at B_o */
    double overlap_t_comp_busy_s;          /* compute with the transfer in flight */
    double overlap_x_s;                    /* transfer alone (L + m / W) */
    double overlap_end_s;                  /* measured completion of the transfer */
    double eta;                            /* fitted overlap factor */
    double sigma;                          /* measured compute slowdown */
    double mem_bw_bytes_per_s;             /* memcpy bandwidth (one rank) */
} rs_calib_t;

/* Defaults: B = 16, 32, ..., 2048; sizes derived; 0.05 s per point, 3 reps, timeout 60 s. */
void rs_calib_opts_default(rs_calib_opts_t *o);

/* Run the calibration on every rank (SPMD). `problem` gives heads, kv_heads, head_dim, batch,
 * act/grad bytes, pass and tile (S, N, layout, causal are ignored). Results on rank 0 (others get
 * their own partial view). Returns 0 or -1 with err. */
int rs_calibrate(const rs_problem_t *problem, const rs_compute_ops_t *cops, const rs_transport_ops_t *tops,
                 void *ts, const rs_calib_opts_t *o, rs_calib_t *out, rs_err_t *err);

/* Turn a calibration into a profile (name, note, N ranks per node = n_ranks). Can't fail. */
void rs_calib_to_hw(const rs_calib_t *c, const char *name, const char *note, int64_t n_ranks, rs_hw_t *hw);

/* Print the calibration tables ('#' header lines, fixed width). Can't fail. */
void rs_calib_print(const rs_calib_t *c, FILE *out);

#endif /* RS_CALIBRATE_H */
