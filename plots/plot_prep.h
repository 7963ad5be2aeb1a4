/* plot_prep.h - private to plots/: a figure's preparation, the step of rs_plot_render before gnuplot
 * runs; rs_plot_prepare (plot.h) is its public form. plot_prep.c holds the dispatch, the checks
 * every table kind shares and the kinds of a trace and a plan; plot_prep_sweep.c those of a sweep;
 * plot_prep_identity.c the two identity figures (predicted against measured: pred-vs-meas,
 * validation). */
#ifndef RS_PLOT_PREP_H
#define RS_PLOT_PREP_H

#include "plot.h"
#include "plot_vars.h"

/* Check data for kind and append the script's variables to v; *height receives the figure height
 * the kind wants (the timeline's, growing with its ranks; left alone by the others). Returns 0, or
 * -1 with err (RS_ERR_BAD_INPUT: "path:line: expected ...", an option the data does not have). */
int plot_prepare(rs_plot_kind_t kind, const char *data, const rs_plot_opts_t *opts, plot_vars_t *v, int *height,
                 rs_err_t *err);

/* What a table kind's preparation works on. */
typedef struct {
    const char *data;        /* the CSV's path (for messages) */
    const rs_table_t *t;     /* its table */
    const int *c;            /* the indices of the kind's required columns, in the order of its list */
    const rs_plot_opts_t *o; /* the options; NULL: every default */
    plot_vars_t *v;          /* the script's variables */
} prep_in_t;

/* Cell (r, c) as a number: finite, or NaN for "nan"/""; -1 with file:line for anything else (err
 * may be NULL: a cell already checked). */
int prep_cell_num(const prep_in_t *in, size_t r, int c, double *out, rs_err_t *err);
/* Row r's cell in the i-th required column. */
const char *prep_req(const prep_in_t *in, size_t r, int i);
/* Row r's first required column (a series or a profile: what) as a word of a gnuplot list: not
 * empty, none of the characters in bad (a space and quotes). */
int prep_name_ok(const prep_in_t *in, size_t r, const char *what, const char *bad, rs_err_t *err);
/* Append word to a space-separated list (when it fits). */
void prep_list_add(char *list, size_t len, const char *word);
/* The title the user gave, if any (the kinds whose script has its own). */
void prep_title_opt(const prep_in_t *in);

/* The figures of a sweep CSV (plot_prep_sweep.c): tcomm-vs-b, scaling. Return 0 or -1 with err. */
int prep_tcomm_vs_b(const prep_in_t *in, rs_err_t *err);
int prep_scaling(const prep_in_t *in, rs_err_t *err);

/* The identity figures (plot_prep_identity.c): a `ringsim compare --csv` CSV, and a validation CSV
 * (case,source,published,predicted[,predicted_low,predicted_high]). Return 0 or -1 with err. */
int prep_pred_vs_meas(const prep_in_t *in, rs_err_t *err);
int prep_validation(const prep_in_t *in, rs_err_t *err);

#endif /* RS_PLOT_PREP_H */
