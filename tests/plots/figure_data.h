/* figure_data.h - the data of every figure kind, made with the built ringsim (sweep, model, compare,
 * plan) or written by hand in the scratch directory: what the tests that render with the real
 * gnuplot share (test_plot.c, test_plot_scripts.c). */
#ifndef RS_TEST_FIGURE_DATA_H
#define RS_TEST_FIGURE_DATA_H

#include "plot.h"

/* Each kind's data file (a path in the scratch directory), after figure_data_make. */
extern char figure_data[RS_PLOT_KIND_COUNT][1024];
/* A two-profile sweep against B (tcomm-vs-b: two series, refused without --series). */
extern char figure_data_sweep2[1024];

/* Make them. Returns 0, or 1 with a line on stderr. */
int figure_data_make(void);

#endif /* RS_TEST_FIGURE_DATA_H */
