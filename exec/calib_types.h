/* calib_types.h - what a calibration of this machine holds: its options, the measured kernel,
 * transport and overlap points, the fits made from them and the model's calibration they give
 * (calibrate.h describes the measurement; calib_fit.h the fits). */
#ifndef RS_CALIB_TYPES_H
#define RS_CALIB_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "calibration.h"
#include "machine.h"

#define RS_CALIB_MAX_SIZES 24
#define RS_CALIB_MAX_OV RS_MAX_EFF_POINTS

typedef struct {
    int n_blocks;                         /* block sizes to measure (<= RS_MAX_EFF_POINTS) */
    int64_t blocks[RS_MAX_EFF_POINTS];    /* B values, increasing */
    int n_sizes;                          /* message sizes (0: derived from the blocks) */
    uint64_t sizes[RS_CALIB_MAX_SIZES];   /* bytes, increasing */
    double min_time_s;                    /* per measurement point (default 0.05 s) */
    int min_reps;                         /* at least this many repetitions (default 3) */
    double timeout_s;                     /* transport waits */
    bool polled;                          /* the transport moves data only when the compute polls it
                                           * (MPI, --progress poll): fit the poll model too */
} rs_calib_opts_t;

typedef struct {
    int64_t block;                         /* B of the compute */
    uint64_t bytes;                        /* the transfers posted with it, in all (rs_calib_step_flows) */
    int n_flows;                           /* how many (1, or 2: K,V and dK,dV) */
    double t_comp_s;                       /* compute alone */
    double t_comp_busy_s;                  /* compute with the transfer in flight */
    double t_xfer_s;                       /* transfer alone by the fit: L + bytes / W */
    double t_end_s;                        /* measured completion of the receive, from its post */
    double t_end_fresh_s;                  /* ... of the same step with fresh transfers (0: not measured) */
    double eta;                            /* inverted overlap factor (with the fitted host cost) */
    double sigma;                          /* t_comp_busy_s / t_comp_s (>= 1) */
    double polls;                          /* polls of the receiver's block step (0: not polled) */
    double poll_first;                     /* rs_poll_first_frac of its pass (0: even spacing, 0.5) */
} rs_calib_overlap_t;

typedef struct {
    int n_blocks;                          /* measured F_eff(B) */
    int64_t blocks[RS_MAX_EFF_POINTS];
    double t_block_s[RS_MAX_EFF_POINTS];   /* median step time of a full block */
    double flops_eff[RS_MAX_EFF_POINTS];   /* FLOP/s */
    double flops_peak;                     /* max F_eff */
    int n_sizes;                           /* transport samples */
    uint64_t sizes[RS_CALIB_MAX_SIZES];
    double t_msg_s[RS_CALIB_MAX_SIZES];    /* median post-to-completion time of a fresh transfer (RS_CALIB_TAG_PRIME) */
    double t_msg_reused_s[RS_CALIB_MAX_SIZES]; /* ... the buffers rotating as the ring's (0: not measured) */
    double latency_s, bw_bytes_per_s;      /* alpha-beta fit */
    double fit_err_max;                    /* max |fit - measured| / measured over the sizes */
    double eta;                            /* one overlap factor fitted over all points */
    double sigma;                          /* measured compute slowdown (median, for reference) */
    double host_fit_err;                   /* median |relative error| of the busy compute with o + O m */
    double mem_bw_bytes_per_s;             /* memcpy bandwidth (one rank) */
    int n_ov;                              /* overlap measurements, one per block (compute <= 0.1 s) */
    rs_calib_overlap_t ov[RS_CALIB_MAX_OV];
    double eta_fit_err;                    /* median |relative error| of the fitted eta's completions */
    rs_calibration_t model;                /* what the model takes from these measurements (calibration.h):
                                            * eff(B) = F_eff(B) / flops_peak, the overlap curve (points with
                                            * an eta) and the fitted host cost o + O m (host_s_per_xfer,
                                            * host_s_per_byte); launch 0, overlap 1, slowdown 1 */
} rs_calib_t;

#endif /* RS_CALIB_TYPES_H */
