/* study_report_state.h - the report study's state between its phases, shared by the files of the
 * study (not part of its interface, study_report.h): study_report.c makes the directory and runs
 * the phases in order - the entries and their traces (study_report_entries.c), the sweeps and the
 * contention figure's job (study_report_sweeps.c), the real execution (study_report_exec.c), the
 * figures (study_report_figures.c), the document (study_report_doc.c).
 */
#ifndef RS_STUDY_REPORT_STATE_H
#define RS_STUDY_REPORT_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "backend.h"
#include "compare.h"
#include "meter.h"
#include "plot.h"
#include "study_report.h"
#include "study_sweep.h"

typedef struct {
    rs_problem_t problem;     /* layout x pass */
    rs_closed_t closed;       /* closed form */
    rs_run_summary_t walk;    /* critical-path walk (the model backend) */
    double *busy_s;           /* [N] per-rank compute time (walk) */
    bool has_sim;             /* simulated */
    double sim_makespan_s;    /* simulated makespan */
    rs_compare_t cmp;         /* sim (reference) vs model */
} entry_t;

typedef struct {
    rs_sweep_point_t *pts;    /* run points (owned) */
    size_t n;
} sweep_t;

typedef struct {
    const rs_report_in_t *in;
    const rs_setup_t *c;               /* problem, layouts, passes, machine */
    const rs_machine_t *m;
    const rs_problem_t *p0;
    const char *dir;
    double t_start;
    const rs_backend_ops_t *sim;       /* the simulator when it runs */
    char sim_why[400];                 /* why it does not (its rule) */
    int ne;                            /* entries: layouts x passes */
    entry_t *es;
    bool have_busy[RS_PASS_COUNT];     /* data/busy-PASS.csv written */
    rs_sweep_spec_t *spec;             /* the sweeps (the scaling profiles stay in it) */
    sweep_t sb, sbc, sn, sbb, sv;      /* B full, B causal, N scaling, B scaling, validate's B sweep */
    char exec_note[1536];              /* what the real execution did */
    rs_table_t heldout;                /* validate's held-out table (validation/heldout.csv) */
    bool have_heldout;
    bool have_val, have_val_cmp;       /* data/validation-b.csv, data/compare-exec.csv */
    bool have_val_cases;               /* data/validation-exec.csv */
    int val_cases_n, val_cases_within; /* its cases, and those within 10% */
    int val_sp_n;                      /* configurations of heldout.csv with a makespan spread */
    double val_sp_median, val_sp_max;  /* their makespan_spread (|round - median of the rounds| / median): median, max */
    double val_x_meas, val_x_model;    /* validate's crossover at the seed's threshold (the fitted configuration) */
    rs_compare_t vcmp;                 /* measured vs model traces at one B of it */
    long long vcmp_b;
    char fig_why[1200];                /* the first figure that failed and why */
    bool f_vb, f_vpvm, f_vcases, f_tb, f_tbc, f_tl, f_tlc, f_pvm, f_busy, f_sn, f_sb; /* figures rendered */
    bool have_cont, f_cont;            /* data/contention.csv written, its figure rendered */
    char cont_note[900];               /* what the contention figure shows (its numbers), or why there is none */
    rs_meter_t meter;                  /* on a terminal: "report [2/6] sweeps", nested meters after it */
    char path[2048], path2[2048];      /* scratch */
    char stage[1024];                  /* the folder written: DIR's stage until the run ends (output.h) */
} report_t;

/* The phases of the report: RS_REPORT_PHASES of them, k = 1.. in order. */
#define RS_REPORT_PHASES 6
/* The phase k begins: the meter says so (a terminal only; nothing in logs). Can't fail. */
void rs_rep_phase(report_t *r, int k, const char *what);
/* Make the folder path (an existing one is fine). Returns 0 or -1 with err "PATH: cannot create: ...". */
int rs_rep_mkdir(const char *path, rs_err_t *err);
/* Run a sweep spec into the CSV at path (the sweep study, its meter nested in the report's); the
 * points (run) come back in *out. Returns 0 or -1 with err. */
int rs_rep_run_sweep(rs_sweep_spec_t *spec, const char *path, const char *label, sweep_t *out, rs_err_t *err);

/* 1. Every layout x pass (study_report_entries.c): the closed form, the walk and its traces, the
 * simulator's and their comparison, the per-rank busy time, summary.csv. Returns 0 or -1 with err. */
int rs_rep_entries(report_t *r, rs_err_t *err);
/* 2. The B sweeps across the threshold (full and causal blocks) and the N and B scaling for three
 * machines (study_report_sweeps.c). Returns 0 or -1 with err. */
int rs_rep_sweeps(report_t *r, rs_err_t *err);
/* 3. The contention figure's job (study_report_sweeps.c): its note says what it shows, or why there
 * is none. Can't fail (a failure is the note). */
void rs_rep_contention(report_t *r);
/* 4. The real CPU execution: `ringsim validate` as a subprocess with a watchdog, and the data the
 * report takes from it (study_report_exec.c). Can't fail (a failure is the note). */
void rs_rep_exec(report_t *r);
/* 5. The figures and regenerate.sh (study_report_figures.c). Can't fail (the first failure is noted). */
void rs_rep_figures(report_t *r);
/* 6. report.md and report.html (study_report_doc.c). Returns 0 or -1 with err. */
int rs_rep_doc(report_t *r, rs_err_t *err);

#endif /* RS_STUDY_REPORT_STATE_H */
