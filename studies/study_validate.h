/* study_validate.h - the validation study behind `ringsim validate`: calibrate this machine once with
 * an executor (cpu or gpu, through the backend interface), then for every configuration asked for
 * (layouts x passes x masks, the problem's heads) and a sweep of B across the overlap threshold
 * predict (the model's walk, and the simulator when its rule allows) and measure (the executor) the
 * same schedule, and compare them (traces/compare.h): per B the typical T_comp, T_comm, T_step and
 * the makespan; per configuration the per-(rank, step) errors (median, p95, max), the makespan
 * errors and the crossover B where T_comm overtakes T_comp, predicted against measured; last, the
 * held-out table: one row per configuration.
 *
 * What the calibration is fitted on: per pass, one FULL B x B block (non-causal) with the pass's own
 * ring transfers (exec/calibrate.h), the transport alone, at the sweep's B. Every other layout, the
 * causal mask (diagonal and skipped blocks, half blocks), and the ranks' count are held out: the
 * model predicts them from the schedule.
 *
 * One SPMD job (exec/exec_backend.h): under mpirun each process is a rank; started by hand it
 * re-starts itself under mpirun, or runs threads, or (loopback) one device plays every rank in turn.
 * Calibration and measurement see the same processes, cores and transport - with more ranks than
 * cores, oversubscription is part of what is measured (the output says so). Measurement is
 * interleaved with calibration samples (`rounds` rounds over the sweep), so the model's inputs and
 * the runs see the machine in the same state (docs/validate.md, "How a validation runs").
 */
#ifndef RS_STUDY_VALIDATE_H
#define RS_STUDY_VALIDATE_H

#include <stdbool.h>
#include <stdio.h>

#include "backend.h"
#include "calibrate.h"    /* what the executor measures and fits: rs_calib_opts_t */
#include "compare.h"
#include "exec_backend.h" /* the SPMD job the measuring studies run on (the backend's exec part) */
#include "study_validate_summary.h"

#define RS_VALIDATE_MAX_B 32     /* block sizes of the sweep */
#define RS_VALIDATE_MAX_ROUNDS 16
#define RS_VALIDATE_MAX_CFG (RS_LAYOUT_COUNT * RS_PASS_COUNT * 2)

typedef struct {
    const rs_backend_ops_t *backend; /* the executor: cpu or gpu (its exec part) */
    rs_problem_t problem;            /* heads, head_dim, batch, dtypes (S = B N per B; layout, pass, mask per entry) */
    int n_layouts;                   /* the configurations: layouts x passes x masks */
    rs_layout_t layouts[RS_LAYOUT_COUNT];
    int n_passes;
    rs_pass_t passes[RS_PASS_COUNT];
    int n_masks;                     /* and masks: full blocks and/or causal (default: the problem's) */
    bool masks_causal[2];
    rs_dtype_t dtype;                /* what the executor computes in */
    rs_exec_spmd_t job;              /* ranks: N, launch, MPI progress, loopback, command line */
    int n_b;                         /* the sweep, increasing, >= 2 */
    int64_t b[RS_VALIDATE_MAX_B];
    int rounds;                      /* rounds over the sweep (1..RS_VALIDATE_MAX_ROUNDS used) */
    rs_calib_opts_t calib;           /* calibration (its blocks span the sweep: rs_validate_finish) */
    rs_exec_opts_t exec;             /* reps, warmup, timeout of each measured run */
    const char *calibrated;          /* a calibrated profile to use instead of calibrating (NULL: calibrate) */
    const char *save_profile;        /* write the profile the predictions used (NULL: no); with two passes
                                        one per pass, the pass's name before the extension */
    const char *csv;                 /* per-(configuration, B) rows as CSV (NULL: no) */
    const char *summary_csv;         /* the held-out table as CSV (NULL: no) */
    const char *trace_dir;           /* measured, predicted and simulated traces per B (NULL: none) */
    bool no_sim;                     /* skip the simulator */
    int n_ranks_list;                /* ringsim validate --ranks-list: one job per N (cli/cmd_validate.c); the */
    int64_t ranks_list[8];           /* study itself runs problem.n_ranks */
    FILE *out;                       /* the report (rank 0): calibration, per-B tables, errors, crossovers */
    const char *from_trace;          /* --from-trace FILE: validate against traces instead (study_fromtrace.h) */
} rs_validate_in_t;

/* Defaults: the cpu backend, the measurement problem (rs_setup_measure_problem: one configuration,
 * contiguous forward), B = 8, 16, ..., 1024 (spans the crossover), 5 rounds, 7 reps after 1 warm-up,
 * calibration defaults, MPI progress poll, out = stdout. */
void rs_validate_defaults(rs_validate_in_t *in);
/* Check what every rank needs before any starts (every configuration and B a valid problem, a ring
 * of >= 2, the executor computes the dtype, the calibrated profile loads) and make the calibration's
 * blocks span the sweep. Returns 0 or -1 with err naming the option (bad input). */
int rs_validate_finish(rs_validate_in_t *in, rs_err_t *err);
/* Run the study: an SPMD job (rs_measure_run: its errors are printed by the ranks). Returns 0, or -1
 * with err.code (bad input or runtime) and err.msg empty. */
int rs_study_validate(const rs_validate_in_t *in, rs_err_t *err);

/* The measurement's own spread: |round - median of the rounds| / median of every (rank, step) point
 * per metric, and of the makespan (the caller sizes the arrays; the counts grow). */
typedef struct {
    double *pts[RS_CMP_METRIC_COUNT];
    size_t n_pts[RS_CMP_METRIC_COUNT];
    double *mk;
    size_t n_mk;
} rs_validate_spread_t;

/* The measurement's own spread: every round's trace of one configuration and B against merged (the
 * median of the rounds), per (rank, step) point of each metric as validate collects its errors
 * (a compute without FLOPs is not a point), appended to sp. The arrays hold n_rounds times the
 * points of one trace more. Nothing with fewer than 2 rounds. Returns 0, or -1 with err (runtime: no
 * event matches, OOM). */
int rs_validate_round_spread(rs_trace_t *const *rounds, int n_rounds, const rs_trace_t *merged, rs_pass_t pass,
                             rs_validate_spread_t *sp, rs_err_t *err);

/* A crossover for a sentence: "B = 64.2", or "not reached in the swept range (B = 8..1024)" when x
 * is not finite. Returns buf. */
const char *rs_validate_crossover_text(double x, double b_lo, double b_hi, char *buf, size_t len);

#endif /* RS_STUDY_VALIDATE_H */
