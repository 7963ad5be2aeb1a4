/* study_validate_state.h - the validation study's state between its phases, shared by the files of
 * the study (not part of its interface, study_validate.h): study_validate.c runs the SPMD job
 * (calibrate, measure, refit), study_validate_predict.c predicts and compares each configuration at
 * each B, study_validate_print.c prints the tables. Per pass: the calibration, its interleaved
 * samples and the machine that predicts the pass; per configuration: its runs, the predictions and
 * the errors.
 */
#ifndef RS_STUDY_VALIDATE_STATE_H
#define RS_STUDY_VALIDATE_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "calibrate.h"    /* the calibration and its samples */
#include "exec_backend.h" /* the job each rank runs (rs_exec_job_t) */
#include "meter.h"
#include "study_validate.h"

#define RS_VAL_KCAP 4096 /* kernel samples per B and rank */
#define RS_VAL_OCAP 64   /* overlap samples per B and rank */
#define RS_VAL_OREPS 4   /* overlap samples per B, pass and round: their median is one point of the curve */

/* One configuration at one B: the typical step and the makespan, measured, modelled, simulated. */
typedef struct {
    rs_trace_summary_t meas, pred, sim;
    bool has_sim;
} val_row_t;

/* Per pass: the calibration, its interleaved samples and the machine that predicts the pass. */
typedef struct {
    rs_problem_t prob;                   /* at the executor's kernel tile: the schedule counts what it runs */
    rs_calib_t calib;                    /* the calibration (rank 0's holds the medians) */
    rs_hw_t hw;                          /* the profile the predictions use */
    rs_machine_t m;                      /* its machine (rank 0) */
    double (*ksmp)[RS_VAL_KCAP];         /* [n_b][RS_VAL_KCAP] kernel samples at each B */
    size_t nk[RS_VALIDATE_MAX_B];
    uint64_t kflops[RS_VALIDATE_MAX_B];
    double *kfac;                        /* rank 0: [n_b][P] each rank's kernel time over the fastest's at each B */
    bool masks;                          /* a causal configuration of the pass: causal and shifted calls sampled too */
    double kmask[RS_VALIDATE_MAX_B][2][RS_VALIDATE_MAX_ROUNDS]; /* per B, causal / shifted: each round's median call time */
    uint64_t kmask_useful[RS_VALIDATE_MAX_B][2];                /* the call's useful FLOPs */
    int nkmask[RS_VALIDATE_MAX_B];                              /* rounds sampled */
    double (*oend)[RS_VAL_OCAP], (*oend_fresh)[RS_VAL_OCAP], (*obusy)[RS_VAL_OCAP], (*oalone)[RS_VAL_OCAP],
        (*oxfer)[RS_VAL_OCAP], (*oxfer_reused)[RS_VAL_OCAP]; /* [n_b][RS_VAL_OCAP] overlap samples */
    size_t no[RS_VALIDATE_MAX_B];
    rs_calib_flows_t oflows[RS_VALIDATE_MAX_B]; /* what the overlap samples posted */
} val_pass_t;

/* Per configuration: its runs, the predictions and the errors. */
typedef struct {
    rs_problem_t prob;                   /* layout, pass, mask, heads; at its pass's tile */
    int ip;                              /* its pass in val_t.ps */
    rs_trace_t *meas[RS_VALIDATE_MAX_B][RS_VALIDATE_MAX_ROUNDS]; /* rank 0: measured trace per B and round */
    val_row_t rows[RS_VALIDATE_MAX_B];   /* rank 0: per B */
    double *ec[RS_CMP_METRIC_COUNT];     /* |error| of every (rank, step) point: model vs measured */
    double *es[RS_CMP_METRIC_COUNT];     /* simulator vs measured */
    size_t nec[RS_CMP_METRIC_COUNT], nes[RS_CMP_METRIC_COUNT];
    rs_validate_spread_t spread;         /* the measurement's own spread (its mk: mk_spread) */
    double mk_spread[RS_VALIDATE_MAX_B * RS_VALIDATE_MAX_ROUNDS]; /* the makespan's, per B and round */
    double mk_err[RS_VALIDATE_MAX_B];    /* makespan error per B, model */
    double mk_err_sim[RS_VALIDATE_MAX_B];
    int n_sim;
    double b_star;                       /* closed form's B* at the first B */
} val_cfg_t;

typedef struct {
    const rs_validate_in_t *in;
    const rs_exec_job_t *job;
    const char *mode;                    /* threads, loopback or the MPI progress mode, for the notes */
    FILE *out;                           /* rank 0's report */
    int rounds;                          /* rounds run */
    int np, nc;                          /* passes, configurations */
    val_pass_t ps[RS_PASS_COUNT];
    val_cfg_t cs[RS_VALIDATE_MAX_CFG];
    const rs_backend_ops_t *sim;         /* the simulator while it runs */
    char sim_note[300];                  /* why it does not */
    int64_t cores;                       /* online cores of this host */
    char oversub[200];                   /* "" or the oversubscription note */
    rs_meter_t meter;                    /* rank 0, on a terminal: runs measured and points predicted */
} val_t;

/* The relative error of pred against meas. */
static inline double rs_val_rel(double pred, double meas) { return (pred - meas) / meas; }

/* ---------------------------------------------------------------------------------------------------
 * study_validate_predict.c
 * ------------------------------------------------------------------------------------------------- */
/* One configuration at sweep point i (rank 0; part of the SPMD body): the measured trace (medians
 * over the rounds) against the walk's and the simulator's, on the machine of that B (its stragglers),
 * the measurement's own spread; the traces into --trace-dir. Returns the rank's exit code (RS_EXIT_*),
 * its errors printed ("ringsim validate: B=64: ..."). */
int rs_val_predict_point(val_t *v, val_cfg_t *cf, int i);

/* ---------------------------------------------------------------------------------------------------
 * study_validate_print.c (rank 0, on v->out; each hides the progress meter first)
 * ------------------------------------------------------------------------------------------------- */
/* The calibration of pass ps: its heading, the BLAS core warning, rs_calib_print's tables. */
void rs_val_print_calibration(const val_t *v, const val_pass_t *ps);
/* Each rank's kernel time over the fastest's: fr[r] the median over the sweep, kt[i P + r] / fastest[i]
 * at each B (P = the ranks that gathered). */
void rs_val_print_rank_factors(const val_t *v, const val_pass_t *ps, const double *fr, const double *kt, const double *fastest);
/* The transfers alone and the overlap points of the interleaved samples, with the fit made of them. */
void rs_val_print_overlap(const val_t *v, const val_pass_t *ps);
/* The kernel table at the sweep's B (useful GFLOP/s of the full, causal and shifted curves, by point
 * of the full curve). */
void rs_val_print_kernel_rates(const val_t *v, const val_pass_t *ps, const rs_kcurve_t *full,
                               double rate[RS_KMASK_COUNT][RS_KMAX_POINTS]);
/* F_eff(B) of the pass's machine. */
void rs_val_print_eff(const val_t *v, const val_pass_t *ps);
/* Every configuration's summary (per-B table, errors, spread, simulator, crossovers), then the
 * held-out table; the --csv and --summary files (their write errors printed, not fatal). */
void rs_val_print(val_t *v);

#endif /* RS_STUDY_VALIDATE_STATE_H */
