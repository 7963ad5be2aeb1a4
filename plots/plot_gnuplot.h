/* plot_gnuplot.h - private to plots/: running gnuplot on a script, and the files around it
 * (plot_gnuplot.c). The public part
 * of the gnuplot process (finding gnuplot and the scripts, output formats) is in plot.h. */
#ifndef RS_PLOT_GNUPLOT_H
#define RS_PLOT_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

/* Run `gnuplot -e vars script` with stdin and stdout on /dev/null and stderr captured. Returns 0,
 * or -1 with err (RS_ERR_RUNTIME) quoting gnuplot's first non-blank stderr line: gnuplot failed,
 * or it wrote to stderr (a warning included). */
int plot_gnuplot_run(const char *gnuplot, const char *vars, const char *script, rs_err_t *err);

/* The bytes of from appended to to (open for writing). Returns 0 or -1 with err (RS_ERR_RUNTIME). */
int plot_copy_into(const char *from, FILE *to, rs_err_t *err);
/* from copied to the file to (created or replaced). Returns 0 or -1 with err (RS_ERR_RUNTIME). */
int plot_copy_file(const char *from, const char *to, rs_err_t *err);

#endif /* RS_PLOT_GNUPLOT_H */
