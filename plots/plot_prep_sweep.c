/* plot_prep_sweep.c - the preparation of the figures of a `ringsim sweep` CSV (plot_prep.h):
 * tcomm-vs-b (one series against B) and scaling (every series against N or B). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "plot_prep.h"

/* The distinct values of the first required column (the sweep's series). */
static int series_count(const prep_in_t *in) {
    int n = 0;
    for (size_t r = 0; r < in->t->n_rows; r++) {
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++) seen = !strcmp(prep_req(in, q, 0), prep_req(in, r, 0));
        n += !seen;
    }
    return n;
}

/* "DATA: N series (a, b, c ...): pick one with --series NAME". */
static int refuse_series(const prep_in_t *in, rs_err_t *err) {
    char list[600] = "";
    for (size_t r = 0; r < in->t->n_rows; r++) {
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++) seen = !strcmp(prep_req(in, q, 0), prep_req(in, r, 0));
        if (seen) continue;
        const size_t n = strlen(list);
        if (n + strlen(prep_req(in, r, 0)) + 8 >= sizeof list) {
            snprintf(list + n, sizeof list - n, ", ...");
            break;
        }
        snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", prep_req(in, r, 0));
    }
    return rs_errf(err, "%s: %d series (%s): pick one with --series NAME", in->data, series_count(in), list);
}

/* Insertion sort of the n points of the five columns by the first (B); rows are usually sorted
 * already. */
static void sort_by_b(double *const cols[5], size_t n) {
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && cols[0][j - 1] > cols[0][j]; j--)
            for (int a = 0; a < 5; a++) {
                double tmp = cols[a][j];
                cols[a][j] = cols[a][j - 1];
                cols[a][j - 1] = tmp;
            }
}

/* The sweep's rows of one series (--series; a sweep of several series is refused without it):
 * predicted lines, the measured points that have data, B_min and B* and the measured (else
 * simulated) crossover marked. */
int prep_tcomm_vs_b(const prep_in_t *in, rs_err_t *err) {
    const rs_table_t *t = in->t;
    const int *c = in->c;
    const char *data = in->data;
    const rs_plot_opts_t *o = in->o;
    if (!(o && o->series) && series_count(in) > 1) return refuse_series(in, err);
    const char *series = o && o->series ? o->series : prep_req(in, 0, 0);
    int c_sim[2] = {rs_table_col(t, "sim_t_comp_s"), rs_table_col(t, "sim_t_comm_s")};
    int c_exec[2] = {rs_table_col(t, "exec_t_comp_s"), rs_table_col(t, "exec_t_comm_s")};
    size_t n = 0;
    double *b = calloc(t->n_rows, sizeof *b), *cs = calloc(t->n_rows, sizeof *cs), *ms = calloc(t->n_rows, sizeof *ms);
    double *ce = calloc(t->n_rows, sizeof *ce), *me = calloc(t->n_rows, sizeof *me);
    double bmin = NAN, bstar = NAN;
    int good_sim[2] = {0, 0}, good_exec[2] = {0, 0}, good_pred = 0;
    int rc = !b || !cs || !ms || !ce || !me ? rs_errf(err, "%s: out of memory", data) : 0;
    for (size_t r = 0; rc == 0 && r < t->n_rows; r++) {
        if (strcmp(t->cells[r][c[0]], series) != 0) continue;
        double x[8];
        for (int i = 1; i < 8 && rc == 0; i++) rc = prep_cell_num(in, r, c[i], &x[i], err);
        if (rc) break;
        if (!(x[1] > 0))
            rc = rs_errf(err, "%s:%ld: expected block_tokens > 0, got '%s'", data, t->lines[r], t->cells[r][c[1]]);
        if (rc) break;
        if (isnan(bmin)) bmin = x[2], bstar = x[3];
        good_pred |= x[6] > 0 && x[7] > 0;
        b[n] = x[1];
        cs[n] = ms[n] = ce[n] = me[n] = NAN;
        for (int i = 0; i < 2 && rc == 0; i++) {
            double y = NAN;
            if (c_sim[i] >= 0 && (rc = prep_cell_num(in, r, c_sim[i], &y, err)) == 0 && y > 0) good_sim[i] = 1;
            if (i == 0) cs[n] = y;
            else ms[n] = y;
            y = NAN;
            if (rc == 0 && c_exec[i] >= 0 && (rc = prep_cell_num(in, r, c_exec[i], &y, err)) == 0 && y > 0)
                good_exec[i] = 1;
            if (i == 0) ce[n] = y;
            else me[n] = y;
        }
        n++;
    }
    if (rc == 0 && n == 0) /* only a series given with --series can have no rows */
        rc = rs_errf(err, "--series %s: %s has no rows of that series", series, data);
    if (rc == 0 && !good_pred)
        rc = rs_errf(err, "%s: series '%s' has no positive pred_t_comp_s/pred_t_comm_s to plot", data, series);
    if (rc == 0 && !(bmin > 0)) rc = rs_errf(err, "%s: series '%s': expected b_min_tokens > 0", data, series);
    if (rc == 0) {
        int has_sim = good_sim[0] && good_sim[1], has_exec = good_exec[0] && good_exec[1];
        sort_by_b((double *const[5]){b, cs, ms, ce, me}, n); /* for the crossover */
        double bx = NAN;
        const char *bx_label = "measured";
        if (has_exec) bx = rs_crossover_b(b, ce, me, n);
        if (isnan(bx) && has_sim) bx = rs_crossover_b(b, cs, ms, n), bx_label = "simulated";
        /* marks outside the data's B range would be drawn outside the axes: leave them out */
        double blo = b[0], bhi = b[n - 1];
        if (!(bmin >= blo / 1.05 && bmin <= bhi * 1.05)) bmin = NAN;
        if (!(bstar >= blo / 1.05 && bstar <= bhi * 1.05)) bstar = NAN;
        plot_vars_t *v = in->v;
        plot_vars_str(v, "series", series, false);
        plot_vars_num(v, "bmin", bmin);
        plot_vars_num(v, "bstar", bstar);
        plot_vars_num(v, "bx", bx);
        plot_vars_str(v, "bx_label", bx_label, false);
        plot_vars_add(v, "has_sim=%d", has_sim);
        plot_vars_add(v, "has_exec=%d", has_exec);
        char title[512];
        snprintf(title, sizeof title, "Ring step: compute vs transfer (%s)", series);
        plot_vars_str(v, "title", o && o->title ? o->title : title, !(o && o->title));
    }
    free(b), free(cs), free(ms), free(ce), free(me);
    return rc;
}

/* ------------------------------------------------------------------------------------------------
 * scaling: every series of a sweep against N or B
 * ---------------------------------------------------------------------------------------------- */
enum { MAXL = 8, MAXK = 6 }; /* lines: one colour, marker and dash each; columns that tell them apart */

/* The columns that tell the lines apart: the profile, each of layout, pass and causal that varies,
 * and the size (of seq_tokens, block_tokens and n_ranks, whichever is not x) that makes x unique
 * within a line, if one is needed. */
typedef struct {
    int n;
    int col[MAXK];
} line_cols_t;

static bool col_varies(const rs_table_t *t, int c) {
    for (size_t r = 1; c >= 0 && r < t->n_rows; r++)
        if (strcmp(t->cells[r][c], t->cells[0][c]) != 0) return true;
    return false;
}

/* Rows r and q in the same line (equal in every column of lc). */
static bool same_line(const rs_table_t *t, const line_cols_t *lc, size_t r, size_t q) {
    for (int i = 0; i < lc->n; i++)
        if (strcmp(t->cells[r][lc->col[i]], t->cells[q][lc->col[i]]) != 0) return false;
    return true;
}

/* The first row (index) of a line that repeats an x value, or -1. */
static long x_repeats(const rs_table_t *t, const line_cols_t *lc, int xc) {
    for (size_t r = 1; r < t->n_rows; r++)
        for (size_t q = 0; q < r; q++)
            if (!strcmp(t->cells[r][xc], t->cells[q][xc]) && same_line(t, lc, r, q)) return (long)r;
    return -1;
}

/* Row r's legend: the values of lc joined by '/' (causal as causal/full, sizes as S=, B=, N=). */
static void line_title(const rs_table_t *t, const line_cols_t *lc, size_t r, char *buf, size_t len) {
    buf[0] = 0;
    for (int i = 0; i < lc->n; i++) {
        const char *name = t->cols[lc->col[i]], *v = t->cells[r][lc->col[i]];
        const size_t n = strlen(buf);
        const char *sep = i ? "/" : "";
        if (!strcmp(name, "causal")) snprintf(buf + n, len - n, "%s%s", sep, strcmp(v, "0") ? "causal" : "full");
        else if (!strcmp(name, "seq_tokens")) snprintf(buf + n, len - n, "%sS=%s", sep, v);
        else if (!strcmp(name, "block_tokens")) snprintf(buf + n, len - n, "%sB=%s", sep, v);
        else if (!strcmp(name, "n_ranks")) snprintf(buf + n, len - n, "%sN=%s", sep, v);
        else snprintf(buf + n, len - n, "%s%s", sep, v);
    }
}

/* Row r's key: the values of lc joined by '|' (what the script compares each row with). */
static void line_key(const rs_table_t *t, const line_cols_t *lc, size_t r, char *buf, size_t len) {
    buf[0] = 0;
    for (int i = 0; i < lc->n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "|" : "", t->cells[r][lc->col[i]]);
}

/* The line columns of t against xc: see line_cols_t; -1 with err when no size makes x unique. */
static int scaling_lines(const prep_in_t *in, int xc, const char *xcol, line_cols_t *lc, rs_err_t *err) {
    const rs_table_t *t = in->t;
    lc->n = 0;
    lc->col[lc->n++] = in->c[0];
    static const char *const parts[] = {"layout", "pass", "causal"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        const int k = rs_table_col(t, parts[i]);
        if (col_varies(t, k)) lc->col[lc->n++] = k;
    }
    long r = x_repeats(t, lc, xc);
    static const char *const sizes[] = {"seq_tokens", "block_tokens", "n_ranks"};
    for (size_t i = 0; r >= 0 && i < sizeof sizes / sizeof sizes[0]; i++) {
        const int k = rs_table_col(t, sizes[i]);
        if (k == xc || !col_varies(t, k)) continue;
        lc->col[lc->n++] = k;
        if ((r = x_repeats(t, lc, xc)) >= 0) lc->n--;
    }
    if (r >= 0) {
        char title[300];
        line_title(t, lc, (size_t)r, title, sizeof title);
        return rs_errf(err, "%s:%ld: series %s has %s = %s twice (the rows differ in a column the figure does not tell apart)",
                       in->data, t->lines[r], title, xcol, t->cells[r][xc]);
    }
    return 0;
}

/* A sweep CSV against N or B (--x, else the one that varies): one line per series (scaling_lines;
 * --series picks one by its legend), each with a positive prediction; simulated points when every
 * line has them. At most 8 lines. */
int prep_scaling(const prep_in_t *in, rs_err_t *err) {
    const rs_table_t *t = in->t;
    const int *c = in->c;
    const char *data = in->data;
    const rs_plot_opts_t *o = in->o;
    const int c_sim[2] = {rs_table_col(t, "sim_t_step_s"), rs_table_col(t, "sim_overlap_efficiency")};
    int rc = 0;
    for (size_t r = 0; rc == 0 && r < t->n_rows; r++) {
        if ((rc = prep_name_ok(in, r, "profile", " '|", err))) break;
        double x;
        for (int i = 1; i < 5 && rc == 0; i++) rc = prep_cell_num(in, r, c[i], &x, err);
        for (int i = 0; i < 2 && rc == 0; i++)
            if (c_sim[i] >= 0) rc = prep_cell_num(in, r, c_sim[i], &x, err);
    }
    if (rc) return rc;
    const bool n_varies = col_varies(t, c[1]), b_varies = col_varies(t, c[2]);
    const char *xcol = o && o->x ? o->x : (n_varies ? "n_ranks" : "block_tokens");
    if (strcmp(xcol, "n_ranks") != 0 && strcmp(xcol, "block_tokens") != 0)
        return rs_errf(err, "--x %s: expected n_ranks or block_tokens", xcol);
    if (!n_varies && !b_varies) return rs_errf(err, "%s: expected n_ranks or block_tokens to vary across rows", data);
    line_cols_t lc;
    if (scaling_lines(in, !strcmp(xcol, "n_ranks") ? c[1] : c[2], xcol, &lc, err) != 0) return -1;
    size_t first[MAXL]; /* each line's first row */
    int nl = 0, pred_ok[MAXL] = {0}, sim_ok[MAXL] = {0}, n_all = 0;
    for (size_t r = 0; r < t->n_rows; r++) {
        int k = -1;
        for (int i = 0; i < nl && k < 0; i++)
            if (same_line(t, &lc, first[i], r)) k = i;
        char title[300];
        line_title(t, &lc, r, title, sizeof title);
        if (k < 0) {
            bool seen = false; /* lines before this row (they may be left out by --series) */
            for (size_t q = 0; q < r && !seen; q++) seen = same_line(t, &lc, q, r);
            n_all += !seen;
            if (seen || (o && o->series && strcmp(o->series, title) != 0)) continue;
            if (nl == MAXL)
                return rs_errf(err, "%s: more than %d series (one colour, marker and dash each): pick one with --series NAME, "
                                    "e.g. --series %s",
                               data, MAXL, title);
            first[k = nl++] = r;
        }
        double x[2], s[2] = {NAN, NAN};
        prep_cell_num(in, r, c[3], &x[0], NULL), prep_cell_num(in, r, c[4], &x[1], NULL);
        for (int i = 0; i < 2; i++)
            if (c_sim[i] >= 0) prep_cell_num(in, r, c_sim[i], &s[i], NULL);
        pred_ok[k] |= x[0] > 0 && x[1] >= 0;
        sim_ok[k] |= s[0] > 0 && s[1] >= 0;
    }
    if (nl == 0) return rs_errf(err, "--series %s: %s has no series of that name (it has %d)", o->series, data, n_all);
    bool has_sim = true;
    char lines[4096] = "", titles[4096] = "", keycols[256] = "", buf[300];
    for (int i = 0; i < nl; i++) {
        line_title(t, &lc, first[i], buf, sizeof buf);
        if (!pred_ok[i]) return rs_errf(err, "%s: series %s has no positive %s", data, buf, t->cols[c[3]]);
        has_sim &= sim_ok[i];
        prep_list_add(titles, sizeof titles, buf);
        line_key(t, &lc, first[i], buf, sizeof buf);
        prep_list_add(lines, sizeof lines, buf);
    }
    for (int i = 0; i < lc.n; i++) prep_list_add(keycols, sizeof keycols, t->cols[lc.col[i]]);
    plot_vars_t *v = in->v;
    plot_vars_str(v, "keycols", keycols, false);
    plot_vars_str(v, "lines", lines, false);
    plot_vars_str(v, "titles", titles, true);
    plot_vars_str(v, "xcol", xcol, false);
    plot_vars_str(v, "col_step", t->cols[c[3]], false);
    plot_vars_str(v, "col_eff", t->cols[c[4]], false);
    plot_vars_str(v, "col_sim_step", c_sim[0] >= 0 ? t->cols[c_sim[0]] : "", false);
    plot_vars_str(v, "col_sim_eff", c_sim[1] >= 0 ? t->cols[c_sim[1]] : "", false);
    plot_vars_add(v, "has_sim=%d", has_sim && c_sim[0] >= 0 && c_sim[1] >= 0);
    char title[256];
    snprintf(title, sizeof title, "Step time and overlap efficiency vs %s", strcmp(xcol, "n_ranks") == 0 ? "ranks N" : "block size B");
    plot_vars_str(v, "title", o && o->title ? o->title : title, false);
    return 0;
}
