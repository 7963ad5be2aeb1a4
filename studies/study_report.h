/* study_report.h - the report study behind `ringsim report` (docs/report.md): one directory with the
 * traces, sweeps, figures and report.md / report.html stating the findings in numbers.
 *
 * For the setup's problem and machine: the closed form, the walk and (when its rule allows) the
 * simulator for every layout x pass, with traces, the per-rank busy time and summary.csv; the B
 * sweeps across the threshold (full and causal blocks) and the N and B scaling for three machines
 * (the sweep study); a real CPU execution (`ringsim validate` as a subprocess with a watchdog);
 * the figures (gnuplot); the document.
 */
#ifndef RS_STUDY_REPORT_H
#define RS_STUDY_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "compare.h"
#include "cost.h"
#include "plot.h"
#include "setup.h"
#include "study_sweep.h"

typedef struct {
    const rs_setup_t *setup;   /* problem, layouts, passes and machine (rs_setup_finish done) */
    const char *dir;           /* the report directory (at most 400 characters) */
    bool force;                /* write into an existing directory */
    bool no_sim;               /* skip the simulator */
    bool no_exec;              /* skip the real execution */
    bool no_figures;           /* skip the figures */
    bool quick;                /* shorter sweeps (tests) */
    int64_t exec_timeout_s;    /* the watchdog of `ringsim validate` */
    const char *command;       /* the command line, quoted at the end of the report */
} rs_report_in_t;

/* Defaults: the default setup's problem and machine with every layout and both passes (the caller
 * fills and finishes the setup), directory ringsim-report, validate's watchdog 240 s. */
void rs_report_setup_default(rs_setup_t *setup);
void rs_report_defaults(rs_report_in_t *in);
/* Write the report. Progress goes to stderr ("ringsim report: sweeps..."). Returns 0, or -1 with
 * err: RS_ERR_BAD_INPUT when the directory exists without force or cannot be made, RS_ERR_RUNTIME on
 * a failure of a model, simulator, sweep or file. The real execution failing is not a failure: the
 * report says so. */
int rs_study_report(const rs_report_in_t *in, rs_err_t *err);

/* ---------------------------------------------------------------------------------------------------
 * Findings (studies/report_findings.c): each sentence with a number is made by one function from the
 * rows that feed the figure or table next to it; what was not reached is said in words ("nowhere in
 * the swept range (B = 64..65536)"), never as nan or inf. Each writes one Markdown sentence into
 * buf. Can't fail.
 * ------------------------------------------------------------------------------------------------- */
/* Scaling at fixed S over N, one profile's points of the N sweep (the scaling-n figure): up to which
 * N the predicted overlap efficiency stays >= eff_min, where it falls below and to what (and whether
 * the ring spans nodes there), and its value at the largest N. */
void rs_report_finding_scaling(const rs_sweep_point_t *pts, size_t n, const char *profile, double eff_min, char *buf,
                               size_t len);
/* "at B = 788 tokens", or "nowhere in the swept range (B = 64..65536)". Returns buf. */
const char *rs_report_crossing_text(double x, double b_lo, double b_hi, char *buf, size_t len);
/* The B sweeps of the crossover finding (figures tcomm-vs-b and tcomm-vs-b-causal), zigzag forward. */
typedef struct {
    const rs_sweep_point_t *full;   /* the full-block sweep's points */
    size_t n_full;
    const rs_sweep_point_t *causal; /* the causal sweep's */
    size_t n_causal;
    int which;                      /* the backend whose traces cross (rs_sweep_crossover: 0 model walk, 1 SimGrid) */
    const char *who;                /* its name in the sentence */
    int64_t n_ranks;                /* N of the sweeps */
} rs_report_crossover_in_t;
/* The crossover in the data of the full-block and the causal B sweeps. */
void rs_report_finding_crossover(const rs_report_crossover_in_t *in, char *buf, size_t len);
/* The calibrated configuration's B sweep measured by ringsim validate (the tcomm-vs-b-measured figure:
 * points whose exec columns are the measurement, model columns the calibrated walk): the calibrated
 * F, W and L, where the measured and the modelled T_comm cross the block's compute alone (x_meas,
 * x_model: validate's own crossovers, NaN when not reached) and the median per-step T_comp
 * (rs_sweep_crossover of the points), and the closed form's B* and B_min of the first point. */
void rs_report_finding_measured_crossover(const rs_sweep_point_t *pts, size_t n, double x_meas, double x_model, char *buf,
                                          size_t len);
/* The overlap threshold of a pass from its closed form with B* (rs_model_b_star; summary.csv's row):
 * B_min, B* (or that there is none), the problem's B against it, the layout's middle step's T_comp
 * and T_comm (model/4-cost/kernel.h's bound rule). */
void rs_report_finding_threshold(const rs_closed_t *cl, rs_pass_t pass, rs_layout_t layout, char *buf, size_t len);
/* The held-out table of `ringsim validate --summary` (its CSV read with rs_table_read): rows of a
 * Markdown table (header first, '|'-separated) into rows[0..*n_rows) (at most max_rows), and the
 * sentence from the same rows: per metric the range of the held-out configurations' median errors,
 * the largest, and how many meet T_comm, T_step and makespan within target (0.10 = 10%); with the
 * spread columns (validate with 2 or more rounds) the rows show the measurement's own spread and the
 * sentence its range over the held-out rows, and how many of the configurations that miss do so by
 * no more than their own spread (error <= target + spread in every metric missed). */
void rs_report_heldout_rows(const rs_table_t *t, char rows[][512], int max_rows, int *n_rows);
void rs_report_finding_heldout(const rs_table_t *t, double target, char *buf, size_t len);

#endif /* RS_STUDY_REPORT_H */
