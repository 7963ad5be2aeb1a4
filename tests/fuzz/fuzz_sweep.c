/* fuzz_sweep.c - the sweep CSV reader: the table reader (rs_table_read, plots/plot.h) and the checks
 * every figure but the timeline makes on its CSV before gnuplot sees it (rs_plot_prepare): a
 * `ringsim sweep` CSV (tcomm-vs-b, scaling; with fabric knobs: contention), compare's table
 * (pred-vs-meas), a busy table (layout-busy), plan's --maxctx-csv (maxctx).
 *
 * Contract checked: a refused input gives a one-line message starting with the file's name; an
 * accepted table is text (no NUL byte) with a header and rows of the header's width, with increasing
 * line numbers after the header's (the line a message about the header cites); the variables handed to gnuplot never hold inf or nan spelled by printf (a missing
 * value is gnuplot's NaN). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "plot.h"

static void check_table(const rs_table_t *t) {
    RS_FUZZ_CHECK(t->n_cols >= 1 && t->cols != NULL && t->header_line >= 1);
    for (int c = 0; c < t->n_cols; c++) RS_FUZZ_CHECK(t->cols[c] && !strchr(t->cols[c], ','));
    for (size_t r = 0; r < t->n_rows; r++) {
        RS_FUZZ_CHECK(t->lines[r] > (r == 0 ? t->header_line : t->lines[r - 1]));
        for (int c = 0; c < t->n_cols; c++) RS_FUZZ_CHECK(t->cells[r][c] && !strchr(t->cells[r][c], ','));
    }
    for (int c = 0; c < t->n_cols; c++) RS_FUZZ_CHECK(rs_table_col(t, t->cols[c]) <= c);
    char buf[64];
    const char *v = rs_table_note(t, "reference", buf, sizeof buf);
    RS_FUZZ_CHECK(!v || strlen(v) < sizeof buf);
}

/* "name=value;" assignments: no value is a printf inf or nan */
static void check_vars(const char *vars) {
    for (const char *s = vars; s && *s;) {
        const char *eq = strchr(s, '=');
        if (!eq) break;
        const char *v = eq + 1;
        if (*v != '\'') { /* a number (strings are quoted) */
            RS_FUZZ_CHECK(strncmp(v, "inf", 3) && strncmp(v, "-inf", 4) && strncmp(v, "nan", 3) &&
                          strncmp(v, "-nan", 4));
            s = strchr(v, ';');
        } else { /* skip the quoted string ('' is a quote) */
            const char *q = v + 1;
            while (*q && !(q[0] == '\'' && q[1] != '\'')) q += q[0] == '\'' ? 2 : 1;
            s = *q ? strchr(q, ';') : NULL;
        }
        if (s) s++;
    }
}

/* A figure's message about the table's shape cites its line: the header's for a missing column, the
 * one after it for no data row. msg is "path:LINE: what" (rs_fuzz_check_refused_at checked that). */
static void check_shape_line(const char *msg, const char *path, const rs_table_t *t) {
    const char *at = msg + strlen(path) + 1;
    if (*at < '0' || *at > '9') return; /* no line cited */
    char *what;
    const long line = strtol(at, &what, 10);
    what += 2; /* ": " */
    static const char missing[] = "expected a column named '"; /* the names are the figure's own */
    if (!strncmp(what, missing, sizeof missing - 1)) RS_FUZZ_CHECK(line == t->header_line);
    if (!strcmp(what, "expected at least one data row")) RS_FUZZ_CHECK(line == t->header_line + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = rs_fuzz_file("input", ".csv", data, size);
    rs_table_t t;
    rs_err_t err = {0};
    const int rc_table = rs_table_read(path, &t, &err);
    rs_fuzz_note("rs_table_read", rc_table, err.msg);
    if (rc_table == 0) {
        RS_FUZZ_CHECK(memchr(data, '\0', size) == NULL); /* not text: a NUL cut a cell short */
        check_table(&t);
    } else {
        rs_fuzz_check_refused_at(rc_table, err.msg, path, data, size);
        RS_FUZZ_CHECK(t.n_rows == 0 && t.cols == NULL);
    }
    static const rs_plot_kind_t kinds[] = {RS_PLOT_TCOMM_VS_B, RS_PLOT_SCALING, RS_PLOT_PRED_VS_MEAS,
                                           RS_PLOT_LAYOUT_BUSY, RS_PLOT_MAXCTX, RS_PLOT_CONTENTION,
                                           RS_PLOT_TTFT, RS_PLOT_PASS_BOUNDARY, RS_PLOT_VALIDATION};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        char *vars = NULL;
        memset(&err, 0, sizeof err);
        const int rc = rs_plot_prepare(kinds[k], path, NULL, &vars, &err);
        rs_fuzz_note(rs_plot_kind_name(kinds[k]), rc, err.msg);
        if (rc == 0) {
            RS_FUZZ_CHECK(rc_table == 0); /* a figure reads the same table */
            RS_FUZZ_CHECK(vars != NULL || kinds[k] == RS_PLOT_LAYOUT_BUSY);
            check_vars(vars);
        } else {
            rs_fuzz_check_refused_at(rc, err.msg, path, data, size);
            if (rc_table == 0) check_shape_line(err.msg, path, &t);
            RS_FUZZ_CHECK(vars == NULL);
        }
        free(vars);
    }
    rs_table_free(&t);
    return 0;
}
