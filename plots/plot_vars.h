/* plot_vars.h - private to plots/: the text of gnuplot's -e argument, "name=value;name=value;...",
 * built one variable at a time (the figure's variables from plot_prep.c, the run's own from
 * plot.c). An allocation failure is remembered (oom) and later additions are dropped, so a caller
 * checks once at the end. */
#ifndef RS_PLOT_VARS_H
#define RS_PLOT_VARS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *buf;  /* the -e argument (malloc'd; NULL while empty) */
    size_t len; /* used */
    size_t cap; /* allocated */
    int oom;    /* allocation failed */
    bool tex;   /* the figure's text is LaTeX (the .tex format), not gnuplot's enhanced text */
} plot_vars_t;

/* Append the printf text and a ';'. */
void plot_vars_add(plot_vars_t *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* name='s' as a gnuplot single-quoted literal ('' escapes a quote); text: also escape what the
 * figure's markup would read (enhanced text: _^{}@&~; LaTeX: \{}_^&%#$~) so the text (a file name,
 * a series) prints as is. */
void plot_vars_str(plot_vars_t *v, const char *name, const char *s, bool text);
/* name=x with every digit (%.17g), or name=NaN. */
void plot_vars_num(plot_vars_t *v, const char *name, double x);

#endif /* RS_PLOT_VARS_H */
