/* study_validate_summary.h - the held-out table of the validation study (study_validate_summary.c):
 * one row per configuration, its errors over the B sweep; printed as text, written as CSV
 * (`ringsim validate --summary`), read back (`--ranks-list` joins the tables of its runs, the report
 * states them).
 */
#ifndef RS_STUDY_VALIDATE_SUMMARY_H
#define RS_STUDY_VALIDATE_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "schedule.h"
#include "util.h"

/* One row of the held-out table: a configuration's errors over the B sweep. Errors are
 * |model - measured| / measured. */
typedef struct {
    int64_t n_ranks;                 /* N */
    int64_t cores;                   /* online CPU cores of this host (oversubscribed when N > cores) */
    rs_layout_t layout;
    rs_pass_t pass;
    bool causal;
    int64_t q_heads, kv_heads;
    bool fitted;                     /* the calibration measures this configuration (contiguous, non-causal) */
    double med[3], p95[3];           /* per-(rank, step) |error| of T_comp, T_comm, T_step: median, p95 (NaN: no points) */
    double mk_med, mk_max;           /* makespan |error| over the B sweep */
    double x_meas, x_model;          /* crossover B at the seed's threshold (T_comm = T_comp alone); NaN: not reached */
    double b_lo, b_hi;               /* the sweep's range */
    double spread[3];                /* the measurement's own spread: median over (rank, step) and rounds of
                                        |round - median of the rounds| / median, T_comp, T_comm, T_step
                                        (NaN: one round, or a table without the spread columns) */
    double mk_spread;                /* the same for the makespan, over B and rounds */
} rs_validate_row_t;

/* The held-out table (text, fixed width, '#' header; no nan or inf: "-" for what was not measured or
 * not reached) and its CSV form (empty cells for the same). Can't fail. */
void rs_validate_print_summary(FILE *out, const rs_validate_row_t *rows, int n);
void rs_validate_write_summary_csv(FILE *out, const rs_validate_row_t *rows, int n);

/* Read a held-out table written by rs_validate_write_summary_csv, appending its rows to rows[*n..max).
 * The spread columns are optional (NaN without them). Returns 0 or -1 with err (bad input): "PATH:
 * no column t_comp_med (not a validate --summary file)", "PATH:LINE: bad layout or pass", or the
 * table reader's. */
int rs_validate_read_summary_csv(const char *path, rs_validate_row_t *rows, int max, int *n, rs_err_t *err);

/* A CSV cell after a comma: x with `digits` significant digits, or empty when it is not finite (no
 * "nan" in a file a reader parses). Can't fail. */
void rs_validate_csv_cell(FILE *out, double x, int digits);

#endif /* RS_STUDY_VALIDATE_SUMMARY_H */
