/* prep_fixtures.h - what the tests of the figures' preparation share (test_plot_prep.c,
 * test_plot_prep_identity.c): tables written to the scratch directory, rs_plot_prepare's exact
 * variables, and refusals with their exact messages ("@" in a message stands for the data's path). */
#ifndef RS_TEST_PREP_FIXTURES_H
#define RS_TEST_PREP_FIXTURES_H

#include <stddef.h>

#include "plot.h"

/* text written to the scratch file name; its path (rs_test_path's buffer). */
const char *csv(const char *name, const char *text);
/* rs_plot_prepare succeeds with exactly want as the variables. */
void prepared(rs_plot_kind_t kind, const char *path, const rs_plot_opts_t *o, const char *want);
/* text written to name, then prepared; the file's path. */
const char *prepared_csv(rs_plot_kind_t kind, const char *name, const char *text, const rs_plot_opts_t *o,
                         const char *want);
/* rs_plot_prepare refuses with the message want, as RS_ERR_BAD_INPUT and no variables. */
void refused(rs_plot_kind_t kind, const char *path, const rs_plot_opts_t *o, const char *want);

/* A refused table: its rows after the kind's header line, and the message ("@": the path). */
typedef struct {
    const char *rows;
    const char *want;
} bad_t;
/* Each of bad (ended by {NULL, NULL}), written after head into its own file, refused with its message. */
void refused_rows(rs_plot_kind_t kind, const char *head, const bad_t *bad);
/* refused_rows of the rows {rows, want} given after head. */
#define REFUSED_ROWS(kind, head, ...) refused_rows(kind, head, (const bad_t[]){__VA_ARGS__, {NULL, NULL}})

/* The value text of variable name in vars ("name=VALUE;"), copied into buf; "" if absent. */
const char *var(const char *vars, const char *name, char *buf, size_t len);

#endif /* RS_TEST_PREP_FIXTURES_H */
