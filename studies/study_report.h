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

#include "setup.h"

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
/* Write the report. Progress goes to stderr ("ringsim report: sweeps..."). Returns RS_EXIT_OK;
 * RS_EXIT_USAGE with err when the directory exists without force or cannot be made; RS_EXIT_FAIL
 * with err on a runtime failure (a model, simulator, sweep or file). The real execution failing is
 * not a failure: the report says so. */
int rs_study_report(const rs_report_in_t *in, rs_err_t *err);

#endif /* RS_STUDY_REPORT_H */
