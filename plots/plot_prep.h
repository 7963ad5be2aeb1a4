/* plot_prep.h - private to plots/: a figure's preparation (plot_prep.c), the step of rs_plot_render
 * before gnuplot runs; rs_plot_prepare (plot.h) is its public form. */
#ifndef RS_PLOT_PREP_H
#define RS_PLOT_PREP_H

#include "plot.h"
#include "plot_vars.h"

/* Check data for kind and append the script's variables to v; *height receives the figure height
 * the kind wants (the timeline's, growing with its ranks; left alone by the others). Returns 0, or
 * -1 with err (RS_ERR_BAD_INPUT: "path:line: expected ...", an option the data does not have). */
int plot_prepare(rs_plot_kind_t kind, const char *data, const rs_plot_opts_t *opts, plot_vars_t *v, int *height,
                 rs_err_t *err);

#endif /* RS_PLOT_PREP_H */
