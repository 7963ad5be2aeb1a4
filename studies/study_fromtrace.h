/* study_fromtrace.h - calibrate and validate from traces of a run, not from measurements of this
 * machine: `ringsim calibrate --from-trace FILE...` and `ringsim validate --from-trace FILE...`
 * (issue 14 item 2; docs/import.md section 9).
 *
 * Input: ringsim-schema traces (trace.h; `ringsim import` makes them from PyTorch-profiler and Nsight
 * Systems traces), possibly at several block sizes B (one file per B and pass). The problem comes
 * from each header (the keys rs_trace_meta_problem writes); a key a header lacks comes from the
 * problem options, and a problem option given on the command line must agree with every header.
 * All traces must describe one problem shape: only S (hence B) and the pass may differ.
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
 * Validation (rs_tval_run): each trace predicted with a profile by the walk (backend: the
 * "model" backend) on the trace's problem and compared with it by traces/compare.h, as `ringsim
 * compare TRACE PREDICTED` does; optionally the predicted trace, the per-step CSV and the
 * pred-vs-meas figure (plots/plot.h) of each trace into a directory.
 */
#ifndef RS_STUDY_FROMTRACE_H
#define RS_STUDY_FROMTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "calibrate.h"
#include "compare.h"
#include "machine.h"
#include "schedule.h"
#include "trace.h"

/* The mask kind of a step: what its attention call(s) compute. full: every computed block is FULL;
 * causal: a block on the diagonal (DIAG, diag 0); shifted: a diagonal block with diag 1 (striped,
 * the KV owner after the rank: row i sees keys j < i); skip: nothing is computed (every block SKIP,
 * or the backward's tail). */
typedef enum { RS_TFIT_FULL = 0, RS_TFIT_CAUSAL, RS_TFIT_SHIFTED, RS_TFIT_SKIP, RS_TFIT_KIND_COUNT } rs_tfit_kind_t;
const char *rs_tfit_kind_name(rs_tfit_kind_t k); /* "full" | "causal" | "shifted" | "skip" */

/* The kind of (rank, step) from the schedule's blocks (schedule.h) and its call shape: q_tokens the
 * query tokens and k_tokens the key tokens of the segments that take part in a computed (non-SKIP)
 * block (0 x 0 for skip). Can't fail. */
rs_tfit_kind_t rs_tfit_step_kind(const rs_step_t *st, int64_t *q_tokens, int64_t *k_tokens);

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

#define RS_TFIT_MAX_TRACES 64
#define RS_TFIT_MAX_POINTS 128

/* What the fit reads: the trace files, and the problem options for what a header lacks. */
typedef struct {
    const char *const *paths;    /* trace CSV files (ringsim's schema) */
    int n_paths;                 /* 1..RS_TFIT_MAX_TRACES */
    rs_problem_t problem;        /* the problem options (their defaults where not given) */
    unsigned given;              /* bits (1u << rs_tfit_key_t) of the problem's fields given as options */
    double latency_s;            /* --latency: < 0 fit it */
    bool dtype_given;            /* --dtype given: the profile's peak is for it; else from act_bytes */
    rs_dtype_t dtype;
} rs_tfit_opts_t;

/* The problem's fields as header keys (trace.h rs_trace_meta_problem), for rs_tfit_opts_t.given. */
typedef enum {
    RS_TFIT_KEY_SEQ = 0, RS_TFIT_KEY_RANKS, RS_TFIT_KEY_BATCH, RS_TFIT_KEY_HEADS, RS_TFIT_KEY_KV_HEADS, RS_TFIT_KEY_HEAD_DIM,
    RS_TFIT_KEY_ACT_BYTES, RS_TFIT_KEY_GRAD_BYTES, RS_TFIT_KEY_CAUSAL, RS_TFIT_KEY_LAYOUT, RS_TFIT_KEY_PASS, RS_TFIT_KEY_TILE,
    RS_TFIT_KEY_COUNT
} rs_tfit_key_t;

/* Defaults: no files, rs_problem_default, nothing given, latency fitted, dtype from act_bytes. */
void rs_tfit_opts_default(rs_tfit_opts_t *o);

/* The traces, read and checked (every (rank, step) inside its problem's schedule). */
typedef struct rs_tset rs_tset_t;
/* Read and check o->paths. Returns the set, or NULL with err "FILE: what is wrong" (bad input). */
rs_tset_t *rs_tset_load(const rs_tfit_opts_t *o, rs_err_t *err);
void rs_tset_free(rs_tset_t *ts);
int rs_tset_count(const rs_tset_t *ts);
const rs_trace_t *rs_tset_trace(const rs_tset_t *ts, int i);
const char *rs_tset_path(const rs_tset_t *ts, int i);
/* The problem of trace i (its header, completed from the options). */
const rs_problem_t *rs_tset_problem(const rs_tset_t *ts, int i);

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

/* Fit (above). Returns 0, or -1 with err "FILE: ..." naming the file(s) of what cannot be fitted. */
int rs_tfit_run(const rs_tset_t *ts, const rs_tfit_opts_t *o, rs_tfit_t *out, rs_err_t *err);
/* The profile: rs_calib_to_hw (F_peak for f->dtype, the intra tier L and W, the calibration), a
 * flat ring of the traces' N ranks, the kernel table (step 5, when it has curves), the given name
 * and note. Can't fail. */
void rs_tfit_to_hw(const rs_tfit_t *f, const char *name, const char *note, rs_hw_t *hw);
/* The fit's tables ('#' header lines, fixed width): the traces, compute points, F_eff(B), transfer
 * sizes and the alpha-beta fit, host cost and overlap. Can't fail. */
void rs_tfit_print(const rs_tfit_t *f, const rs_tset_t *ts, FILE *out);

/* One trace predicted and compared. */
typedef struct {
    rs_problem_t problem;        /* the trace's */
    rs_compare_t cmp;            /* the trace (REF) against the prediction (OTHER), traces/compare.h */
} rs_tval_row_t;

/* Predict every trace of ts on hw (peak for dtype) with the walk and compare: rows[i] for trace i
 * (free each with rs_compare_free(&rows[i].cmp)). out_dir (NULL: none, must exist): per trace i
 * DIR/predI-B<B>-<pass>.csv (predicted trace), DIR/cmpI-B<B>-<pass>.csv (the per-step points,
 * rs_compare_write_csv) and DIR/pred-vs-measI-B<B>-<pass>.png (plots/plot.h). Returns 0, or -1 with
 * err: RS_ERR_BAD_INPUT (the profile cannot run a problem: err names the trace), RS_ERR_RUNTIME (the
 * walk, writing the files). */
int rs_tval_run(const rs_tset_t *ts, const rs_hw_t *hw, rs_dtype_t dtype, const char *out_dir, rs_tval_row_t *rows,
                rs_err_t *err);
/* Per trace: the compare table (rs_compare_print), then one summary line per trace. Can't fail. */
void rs_tval_print(const rs_tset_t *ts, const rs_tval_row_t *rows, FILE *out);

/* What `ringsim validate --from-trace` reads and writes. */
typedef struct {
    const rs_tfit_opts_t *fit;   /* the traces, and the problem options for what a header lacks */
    const char *calibrated;      /* the profile to predict with (NULL: fitted from the traces) */
    const char *save_profile;    /* write the profile used (NULL: no) */
    const char *out_dir;         /* the files of rs_tval_run (NULL: none) */
    FILE *out;                   /* the tables */
} rs_tval_in_t;

/* The commands (cli/cmd_calibrate.c, cmd_validate.c): read the traces; calibrate: fit and write the
 * profile to out_path (atomically, read back; named name, "": the traced GPU's); validate: fit (or
 * load `calibrated`), predict, compare, print, and with out_dir the files above (and save_profile:
 * the profile used). Print to out. Return 0, or -1 with err (one line naming the file):
 * RS_ERR_BAD_INPUT (a refused trace, option or profile; out of memory before the fit), RS_ERR_RUNTIME
 * (writing). */
int rs_study_calibrate_from_trace(const rs_tfit_opts_t *o, const char *out_path, const char *name, FILE *out, rs_err_t *err);
int rs_study_validate_from_trace(const rs_tval_in_t *in, rs_err_t *err);

#endif /* RS_STUDY_FROMTRACE_H */
