/* plot_size.h - private to plots/: the size a figure is drawn at in its format (plot_size.c); the
 * parsing of `--size` is public (rs_plot_size_parse, plot.h). */
#ifndef RS_PLOT_SIZE_H
#define RS_PLOT_SIZE_H

#include <stdbool.h>

#include "plot.h"

typedef struct {
    double w_in, h_in; /* the figure, inches */
    double dpi;        /* PNG pixels per inch: 96 for a size given in pixels, 300 for one in inches */
    int w_px, h_px;    /* PNG pixels (at dpi), SVG pixels (at 96 per inch) */
    bool h_grow;       /* a preset's height: style.gp grows it for a tall key (h_grow=1) */
} plot_size_t;

/* The size of kind in fmt: the options' (pixels, or inches: a preset's height grows by 1.4 for the
 * two panels of scaling, and to height_px / 1200 of the width when the kind asks for height_px, the
 * timeline's ranks), else 1200 x height_px, else 1200 x 750 pixels (scaling: 1200 x 1000). */
plot_size_t plot_size(rs_plot_kind_t kind, rs_plot_format_t fmt, const rs_plot_opts_t *o, int height_px);

#endif /* RS_PLOT_SIZE_H */
