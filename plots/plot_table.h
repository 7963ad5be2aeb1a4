/* plot_table.h - the CSV table reader behind the figures (plot_prep.c) and the studies that read a
 * ringsim CSV back (validate's summary, the report's held-out table).
 *
 * A table is what a ringsim CSV writer produces: '#' lines kept as notes (anywhere in the file), one
 * header line of column names, then rows with the header's column count; blank lines are skipped,
 * a trailing CR is dropped. Cells are split at every comma, quotes included (ringsim writes no
 * quoted cells). Errors name the file and line: "path:line: expected ...".
 */
#ifndef RS_PLOT_TABLE_H
#define RS_PLOT_TABLE_H

#include <stddef.h>

#include "util.h"

typedef struct {
    int n_cols;        /* columns */
    char **cols;       /* [n_cols] header names */
    size_t n_rows;     /* data rows */
    char ***cells;     /* [n_rows][n_cols] */
    long *lines;       /* [n_rows] line numbers in the file */
    long header_line;  /* the header's line number in the file */
    size_t n_notes;    /* '#' lines (without the '#' and leading spaces) */
    char **notes;
} rs_table_t;

/* Read path. Returns 0 or -1 with err (bad input: a malformed table; runtime: out of memory, or
 * the file's opening as rs_input_open says). Free with rs_table_free. */
int rs_table_read(const char *path, rs_table_t *t, rs_err_t *err);
void rs_table_free(rs_table_t *t);
/* Column index or -1. */
int rs_table_col(const rs_table_t *t, const char *name);
/* Value of "key=..." among the notes, copied into buf (cut to len); NULL if absent. The first match
 * counts; the key may follow other space-separated words of a note, and its value is the rest of
 * that note. */
const char *rs_table_note(const rs_table_t *t, const char *key, char *buf, size_t len);

#endif /* RS_PLOT_TABLE_H */
