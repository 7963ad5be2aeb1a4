/* study_fromtrace_fit.h - the fit of a profile to traces of a run (study_fromtrace_fit.c), the
 * numbers `ringsim calibrate --from-trace` writes as a profile.
 *
 * The fit (rs_tfit_run), every number from the schedule of the trace's own problem (schedule.h):
 *  1. Transport: per (rank, step) with a recv event, the sample t = recv end - max(recv start, the
 *     sending peer's send start) (the transfer from the moment both ends posted, as the walk costs
 *     it) against the step's received bytes (rs_schedule_step: K,V, dK,dV or both); the median per
 *     byte count, then exec/calibrate.h's alpha-beta fit (rs_calib_fit_transport; with --latency L:
 *     rs_calib_fit_transport_latency, W alone). Two byte counts at least without --latency.
 *  2. Compute: every compute event whose step executes FLOPs (flops_exec of the schedule, never the
 *     trace's) goes to a point keyed by (B, pass, the step's mask kind, its call shape q x k and its
 *     executed FLOPs): rs_tfit_point_t, the unit a kernel-efficiency table (by call shape and mask)
 *     is filled from. A point holds the steps that also receive ("busy") and those that do not
 *     ("alone", e.g. the forward's last step).
 *  3. Host cost and overlap, where identifiable (a point with both busy and alone steps): one
 *     overlap sample per (point, received bytes) - alone and busy compute medians, the transfer
 *     median - fitted by exec/calibrate.h's rs_calib_fit_overlap (host cost n o + O m, eta per
 *     point, the overlap curve). Without such a point: no host cost, overlap 1 (said in the notes).
 *  4. F_eff(B) = sum of executed FLOPs / sum of (compute durations - the fitted host cost) over
 *     every compute sample at B (both passes, every kind): the one rate per B the model's
 *     efficiency curve holds; F_peak = max F_eff(B), eff(B) = F_eff(B) / F_peak. Launch overhead 0
 *     (it is inside the rates, as `ringsim calibrate` has it).
 *  5. The kernel table (model/3-machine/kernel_table.h, the curves the kernel-aware model reads): one
 *     kernel, RS_TFIT_KERNEL, with a curve per (pass, mask kind) whose points span at least two call
 *     shapes: each point (q, k, useful FLOPs / t_comp) - a step's one call over its rows, as the
 *     per-step presets (flash-attn, te) issue it - points of one shape pooled over their samples
 *     (sum n useful / sum n t_comp), sorted by (area q k, q), at most RS_KMAX_POINTS spread over the
 *     areas. A (pass, kind) seen at one shape only has no curve (the model falls back to the nearest
 *     kind and says so). Every preset runs the kernel (impl_kernels); the profile's default preset
 *     stays none, so its default model is F_eff(B) above (--impl picks the curves); the merge
 *     bandwidth is the device's (not in a trace).
 * Refused (bad input, one line naming the file): a missing or malformed trace, headers of
 * different problem shapes or disagreeing with a given option, a trace without compute events that
 * execute FLOPs, a recv event at a step the schedule moves nothing at or one whose bytes say 0, a
 * single transfer size without --latency, transfers no longer than --latency.
 *
 */
#ifndef RS_STUDY_FROMTRACE_FIT_H
#define RS_STUDY_FROMTRACE_FIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "calibrate.h" /* the calibration's fits (alpha-beta, host cost and overlap) and its profile */
#include "machine.h"
#include "study_fromtrace_traces.h"

/* One compute point of the fit: the steps of one (B, pass, kind, call shape, executed FLOPs). */
typedef struct {
    int64_t block;               /* B, tokens per rank */
    rs_pass_t pass;
    rs_tfit_kind_t kind;         /* never SKIP (no FLOPs, no rate) */
    int64_t q_tokens, k_tokens;  /* the call shape (rs_tfit_step_kind) */
    uint64_t flops_exec;         /* per step, the schedule's executed FLOPs */
    uint64_t flops_useful;       /* per step, visible pairs x FLOPs per pair */
    int n_busy, n_alone;         /* compute samples of steps that receive / do not */
    double t_busy_s, t_alone_s;  /* their median durations (NaN when none) */
    double t_comp_s;             /* median over all its samples, less the fitted host cost */
    double flops_exec_per_s;     /* flops_exec / t_comp_s: the rate the dense model uses */
    double flops_useful_per_s;   /* flops_useful / t_comp_s: the rate a kernel table by call shape holds */
} rs_tfit_point_t;

#define RS_TFIT_MAX_POINTS 128
/* The fit's result. */
typedef struct {
    rs_calib_t calib;            /* as `ringsim calibrate` fills it: blocks, flops_eff, flops_peak (F_eff(B));
                                  * sizes, t_msg_s, latency_s, bw_bytes_per_s, fit_err_max (transport); ov[]
                                  * and the host cost and overlap fit; calib.model the profile's calibration */
    int n_points;                /* compute points, sorted by (B, pass, kind, q, k) */
    rs_tfit_point_t pt[RS_TFIT_MAX_POINTS];
    rs_dtype_t dtype;            /* the profile's peak is for it */
    rs_problem_t shape;          /* the problem of the first trace (S and pass vary) */
    size_t n_comp;               /* compute samples used */
    size_t n_comp_zero;          /* compute events of FLOP-executing steps with duration <= 0 (not used) */
    size_t n_xfer;               /* transfer samples used */
    size_t n_xfer_zero;          /* transfer samples with t <= 0 (not used) */
    bool latency_given;          /* L was given (--latency), W fitted alone */
    bool host_fitted;            /* some point had busy and alone steps: host cost and overlap fitted */
    rs_kernel_table_t kernels;   /* step 5 (prepared); n_kernels 0 when no (pass, kind) has two shapes */
    unsigned one_shape;          /* bit (pass * RS_KMASK_COUNT + mask): seen at one call shape only (no curve) */
} rs_tfit_t;

/* The kernel of the fitted table (step 5). */
#define RS_TFIT_KERNEL "from-trace"

/* Fit (above). Returns 0, or -1 with err "FILE: ..." naming the file(s) of what cannot be fitted
 * (bad input; out of memory: runtime). */
int rs_tfit_run(const rs_tset_t *ts, const rs_tfit_opts_t *o, rs_tfit_t *out, rs_err_t *err);
/* The profile: rs_calib_to_hw (F_peak for f->dtype, the intra tier L and W, the calibration), a
 * flat ring of the traces' N ranks, the kernel table (step 5, when it has curves), the given name
 * and note. Can't fail. */
void rs_tfit_to_hw(const rs_tfit_t *f, const char *name, const char *note, rs_hw_t *hw);
/* The fit's tables ('#' header lines, fixed width): the traces, compute points, F_eff(B), transfer
 * sizes and the alpha-beta fit, host cost and overlap. Can't fail. */
void rs_tfit_print(const rs_tfit_t *f, const rs_tset_t *ts, FILE *out);

#endif /* RS_STUDY_FROMTRACE_FIT_H */
