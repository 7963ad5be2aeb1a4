/* calibration.h - the calibration state of a machine: the efficiency curve F_eff(B) / F_peak, the
 * per-step launch overhead, the overlap model (one eta, an eta(bytes) curve, or a compute slowdown
 * sigma) and the host cost of a transfer (docs/model.md section 3). Written by `ringsim calibrate`,
 * read from a profile's "calibration" object (profile.h).
 */
#ifndef RS_CALIBRATION_H
#define RS_CALIBRATION_H

#include <stdbool.h>
#include <stdint.h>

#define RS_MAX_EFF_POINTS 64

typedef struct {
    double block_tokens;     /* B, tokens per rank */
    double efficiency;       /* F_eff(B) / F_peak, in (0, 1] */
} rs_eff_point_t;

/* Overlap curve: eta as a function of the bytes a hop carries in the step (calibrated: on a CPU
 * with polled MPI progress the fraction of the link rate a transfer gets while the ranks compute
 * depends on the message size). */
#define RS_MAX_OVERLAP_POINTS 16
typedef struct {
    double bytes;            /* bytes on the hop in the step (the sum of its flows) */
    double eta;              /* overlap factor in [0, 1] at that size */
} rs_overlap_point_t;

/* Polled progress (docs/model.md "Polled progress"): on a CPU whose MPI moves data only inside MPI
 * calls, a transfer advances only when the receiving rank's compute polls the transport, which the
 * CPU executor does twice per column chunk of every panel of every block (exec/cpu_compute.c). A
 * transfer then completes at about the k-th poll after its post, whatever the step's FLOPs: a step
 * made of many small calls (a causal diagonal, zigzag's half blocks) polls more often than one
 * full block and hides its transfer sooner. The geometry says where the polls are (rs_step_polls,
 * model/4-cost/polls.h); the curve gives k by the bytes on the hop. */
typedef struct {
    double bytes;            /* bytes on the hop in the step (the sum of its flows) */
    double polls;            /* polls of the receiver after which the transfer is done (> 0) */
} rs_poll_point_t;

typedef struct {
    int64_t chunk_cols;      /* columns per chunk (the executor's kc); 0 = no polled progress */
    int64_t panel_rows[2];   /* rows per panel of a FULL block, forward / backward (DIAG: tile_q) */
    int n;                   /* points of the curve, sorted by bytes */
    rs_poll_point_t curve[RS_MAX_OVERLAP_POINTS];
    int n_fresh;             /* points of the fresh transfers' curve (0: the curve serves both) */
    rs_poll_point_t fresh[RS_MAX_OVERLAP_POINTS];
} rs_poll_model_t;

/* Transfer curve (docs/model.md "Transfer curve"): the measured time of a hop's transfer alone by
 * its bytes, as a factor on the affine model's rate term: a step's transfer of m bytes takes
 * L + m g(m) / W instead of L + m / W, g(m) = (t_measured(m) - L) W / m at the measured sizes
 * (log-linear in bytes between them, clamped outside). On a CPU the copy's rate changes with the
 * size (it leaves the cache at a few hundred KiB), which one (L, W) cannot follow. Every place that
 * turns a hop's bytes into time (closed form, walk, SimGrid's payload, the overlap and poll models)
 * reads g through rs_machine_step_xfer_factor.
 * A ring receives a block into the buffer it sent at the step before (its double buffers), which
 * the peer has just read: over shared memory that copy is slower than one into a buffer the peer
 * never read. The calibration measures both (a fresh exchange: a block its sender just wrote into a buffer the peer
 * never read; then the buffers rotating as the ring's) and a profile may hold the second as the
 * reused curve; a step's factor weighs the two by its bytes. */
typedef struct {
    double bytes;            /* bytes on the hop in the step (the sum of its flows) */
    double factor;           /* g: the rate term's factor at that size, > 0 */
} rs_xfer_point_t;

/* Calibration state: what `ringsim calibrate` measures beyond the data sheet. ONE struct, held whole
 * by a profile (rs_hw_t), by the machine built from it (rs_machine_t, machine.h) and by a calibration
 * (rs_calib_t, exec/calibrate.h), and passed along by assignment. Defaults (rs_calibration_default):
 * no curve (efficiency 1), launch 0, overlap 1, slowdown 1, no host cost. */
typedef struct {
    int n_eff;                            /* points of the efficiency curve eff(B) = F_eff(B) / F_peak, sorted by B */
    rs_eff_point_t eff[RS_MAX_EFF_POINTS];
    double launch_s;                      /* per-step launch overhead, seconds (only steps with compute) */
    double overlap;                       /* eta in [0,1]: transfer progress rate while the receiver computes */
    double comp_slowdown;                 /* sigma >= 1: compute slowdown while a transfer is in flight */
    int n_overlap;                        /* overlap curve eta(bytes), sorted; replaces `overlap` when > 0 */
    rs_overlap_point_t overlap_curve[RS_MAX_OVERLAP_POINTS];
    double host_s_per_xfer;               /* o: host CPU seconds per received transfer, taken from compute */
    double host_s_per_byte;               /* O: host CPU seconds per received byte (a CPU-driven copy) */
    bool host_call_given;                 /* host_call_s replaces the implementation preset's host time per
                                           * framework call (model/4-cost/kernel.h): calibration.host_call_s */
    double host_call_s;                   /* 0 for ringsim's CPU executor, which makes none of the preset's
                                           * CUDA/NCCL calls (its host work is host_s_per_xfer) */
    rs_poll_model_t poll;                 /* polled progress; when its curve has points it replaces the
                                           * overlap curve for steps that compute (rs_step_eta) */
    int n_xfer;                           /* transfer curve g(bytes), sorted; 0: the affine model (g = 1) */
    rs_xfer_point_t xfer_curve[RS_MAX_OVERLAP_POINTS];
    int n_xfer_reused;                    /* the same for a receive into the buffer the rank sent at the
                                           * step before (rs_schedule_step_reused_bytes); 0: xfer_curve */
    rs_xfer_point_t xfer_curve_reused[RS_MAX_OVERLAP_POINTS];
} rs_calibration_t;

/* No calibration: efficiency 1, launch 0, overlap 1, slowdown 1, no host cost. Can't fail. */
void rs_calibration_default(rs_calibration_t *c);

/* eff(B): 1 without a curve; log-linear interpolation in B between points, clamped to the end
 * points outside. Can't fail. */
double rs_calibration_efficiency(const rs_calibration_t *c, double block_tokens);
/* eta for a step whose hop carries `bytes`: the curve (log-linear in bytes between points, clamped
 * outside) when there is one, else the scalar `overlap`. Can't fail. */
double rs_calibration_overlap(const rs_calibration_t *c, double bytes);
/* Polls after which a transfer of `bytes` is done (the poll curve, log-linear in bytes between
 * points, clamped outside); 0 without a poll model. Can't fail. */
double rs_calibration_polls(const rs_calibration_t *c, double bytes);
/* ... for a step whose hop carries `bytes`, `reused_bytes` of them received into the buffer sent at
 * the step before (rs_schedule_step_reused_bytes): the poll curve is fitted on the calibration's
 * rotating (reused) steps and, when the profile has one, the fresh curve on the same steps with
 * fresh transfers; the step's polls weigh the two by its bytes, as its transfer factor does
 * (rs_machine_step_xfer_factor). Without a fresh curve: rs_calibration_polls. Can't fail. */
double rs_calibration_step_polls(const rs_calibration_t *c, double bytes, double reused_bytes);
/* The transfer factor of a step whose hop carries `bytes`, `reused_bytes` of them into the buffer
 * sent at the step before: the two curves weighed by bytes (rs_machine_step_xfer_factor). */
double rs_calibration_step_xfer_factor(const rs_calibration_t *c, double bytes, double reused_bytes);
/* Host cost of receiving n_xfers transfers of `bytes` in all, reused_bytes of them reused: n o + bytes
 * O x the step's factor over the reused curve's (rs_machine_host_s; the calibration's poll fit
 * charges its fresh steps the same). */
double rs_calibration_host_s(const rs_calibration_t *c, int n_xfers, double bytes, double reused_bytes);
/* true iff the calibration has a polled-progress model (geometry and curve). Can't fail. */
bool rs_calibration_polled(const rs_calibration_t *c);
/* g(bytes) of the transfer curve (log-linear in bytes between points, clamped outside); 1 without a
 * curve. Can't fail. */
double rs_calibration_xfer_factor(const rs_calibration_t *c, double bytes);
/* g(bytes) for a transfer received into the buffer sent at the step before: the reused curve, or
 * rs_calibration_xfer_factor without one. Can't fail. */
double rs_calibration_xfer_factor_reused(const rs_calibration_t *c, double bytes);
/* true iff some step may get eta < 1 (scalar or any curve point). Can't fail. */
bool rs_calibration_partial_overlap(const rs_calibration_t *c);

#endif /* RS_CALIBRATION_H */
