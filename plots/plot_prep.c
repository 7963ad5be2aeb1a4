/* plot_prep.c - the per-figure preparation (plot_prep.h, rs_plot_prepare in plot.h): each kind's
 * checks of its data (columns, numbers, rows) and the variables its script takes, as gnuplot -e
 * text. The scripts read the CSV themselves; what is decided here is what they cannot decide
 * (which series have data, the axis ranges, the title, marks that fall outside the data).
 *
 * Every kind but the timeline reads a CSV table (plot_table.h): prep_table reads it, finds the
 * kind's required columns and, where the kind needs them, refuses a table without rows, then hands
 * the table to the kind's function. Every failure here is refused input (RS_ERR_BAD_INPUT). */
#include "plot_prep.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compare.h"
#include "trace.h"

/* ------------------------------------------------------------------------------------------------
 * Checks on a table
 * ---------------------------------------------------------------------------------------------- */
/* Required columns (names: NULL-terminated) into idx: -1 with "path:line: expected a column named
 * 'NAME' in the header line" for the first one absent. */
static int need_cols(const rs_table_t *t, const char *path, const char *const *names, int *idx, rs_err_t *err) {
    for (int i = 0; names[i]; i++) {
        idx[i] = rs_table_col(t, names[i]);
        if (idx[i] < 0) return rs_errf(err, "%s:%ld: expected a column named '%s' in the header line", path, t->header_line,
                                    names[i]);
    }
    return 0;
}

int prep_cell_num(const prep_in_t *in, size_t r, int c, double *out, rs_err_t *err) {
    const rs_table_t *t = in->t;
    const char *s = t->cells[r][c];
    if (!*s || strcasecmp(s, "nan") == 0 || strcasecmp(s, "-nan") == 0) {
        *out = NAN;
        return 0;
    }
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end || isinf(v))
        return rs_errf(err, "%s:%ld: expected a number in column '%s', got '%s'", in->data, t->lines[r], t->cols[c], s);
    *out = v;
    return 0;
}

const char *prep_req(const prep_in_t *in, size_t r, int i) { return in->t->cells[r][in->c[i]]; }

int prep_name_ok(const prep_in_t *in, size_t r, const char *what, const char *bad, rs_err_t *err) {
    const char *p = prep_req(in, r, 0);
    if (!*p || strpbrk(p, bad))
        return rs_errf(err, "%s:%ld: expected a %s name without spaces or quotes, got '%s'", in->data, in->t->lines[r],
                       what, p);
    return 0;
}

void prep_list_add(char *list, size_t len, const char *word) {
    const size_t n = strlen(list);
    if (n + strlen(word) + 2 < len) snprintf(list + n, len - n, "%s%s", n ? " " : "", word);
}

void prep_title_opt(const prep_in_t *in) {
    if (in->o && in->o->title) plot_vars_str(in->v, "title", in->o->title, false);
}

/* ------------------------------------------------------------------------------------------------
 * The kinds
 * ---------------------------------------------------------------------------------------------- */
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

/* The sweep's rows of one series (--series, else the first row's): predicted lines, the measured
 * points that have data, B_min and B* and the measured (else simulated) crossover marked. */
static int prep_tcomm(const prep_in_t *in, rs_err_t *err) {
    const rs_table_t *t = in->t;
    const int *c = in->c;
    const char *data = in->data;
    const rs_plot_opts_t *o = in->o;
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

/* A trace CSV: one pass (--pass, else the first event's), every lane with data; the figure's height
 * grows with the rank count. */
static int prep_timeline(const char *data, const rs_plot_opts_t *o, plot_vars_t *v, int *height, rs_err_t *err) {
    rs_trace_t *t = rs_trace_read_csv(data, err);
    if (!t) return -1;
    size_t n = rs_trace_count(t);
    const rs_event_t *e = rs_trace_events(t);
    if (n == 0) {
        rs_trace_free(t);
        return rs_errf(err, "%s: expected at least one event to draw", data);
    }
    rs_pass_t pass = e[0].pass;
    if (o && o->pass && rs_pass_parse(o->pass, &pass) != 0) {
        rs_trace_free(t);
        return rs_errf(err, "--pass %s: expected forward or backward", o->pass);
    }
    int32_t max_rank = -1;
    int kinds = 0;
    for (size_t i = 0; i < n; i++)
        if (e[i].pass == pass) {
            if (e[i].rank > max_rank) max_rank = e[i].rank;
            kinds |= 1 << e[i].kind;
        }
    if (max_rank < 0) {
        rs_trace_free(t);
        return rs_errf(err, "%s: expected events of the %s pass", data, rs_pass_name(pass));
    }
    if (kinds != 0xF) { /* every lane must have data, else gnuplot warns about an empty plot */
        rs_trace_free(t);
        return rs_errf(err, "%s: expected compute, send, recv and step events in the %s pass (N = 1 has no "
                            "transfers to draw)",
                       data, rs_pass_name(pass));
    }
    plot_vars_str(v, "pass_sel", rs_pass_name(pass), false);
    plot_vars_add(v, "n_ranks=%d", (int)max_rank + 1);
    char title[512];
    rs_problem_t p;
    rs_err_t e2;
    if (rs_trace_problem(t, &p, &e2) == 0)
        snprintf(title, sizeof title, "%s: %s %s, %s, S = %lld, N = %lld", rs_trace_source(t),
                 rs_layout_name(p.layout), rs_pass_name(pass), p.causal ? "causal" : "non-causal",
                 (long long)p.seq_tokens, (long long)p.n_ranks);
    else
        snprintf(title, sizeof title, "%s: %s pass", rs_trace_source(t), rs_pass_name(pass));
    const char *hw = rs_trace_get_meta(t, "hw");
    if (hw) snprintf(title + strlen(title), sizeof title - strlen(title), ", %s", hw);
    plot_vars_str(v, "title", o && o->title ? o->title : title, !(o && o->title));
    int h = 160 + 60 * (max_rank + 1);
    *height = h < 750 ? 750 : (h > 4000 ? 4000 : h);
    rs_trace_free(t);
    return 0;
}

/* rank,contiguous,striped,zigzag: times >= 0. */
static int prep_busy(const prep_in_t *in, rs_err_t *err) {
    const rs_table_t *t = in->t;
    int rc = 0;
    for (size_t r = 0; rc == 0 && r < t->n_rows; r++)
        for (int i = 1; i < 4 && rc == 0; i++) {
            const int c = in->c[i];
            double x;
            if ((rc = prep_cell_num(in, r, c, &x, err)) == 0 && !(x >= 0))
                rc = rs_errf(err, "%s:%ld: expected a time >= 0 in column '%s', got '%s'", in->data, t->lines[r], t->cols[c],
                             t->cells[r][c]);
        }
    if (rc == 0) prep_title_opt(in);
    return rc;
}

/* A sweep CSV against N or B (--x, else the one that varies): one line per profile, each with a
 * positive prediction; simulated points when every profile has them. */
static int prep_scaling(const prep_in_t *in, rs_err_t *err) {
    const rs_table_t *t = in->t;
    const int *c = in->c;
    const char *data = in->data;
    const rs_plot_opts_t *o = in->o;
    int rc = 0;
    int c_sim[2] = {rs_table_col(t, "sim_t_step_s"), rs_table_col(t, "sim_overlap_eff")};
    enum { MAXP = 16 };
    const char *prof[MAXP];
    int np = 0, pred_ok[MAXP] = {0}, sim_ok[MAXP] = {0};
    bool n_varies = false, b_varies = false;
    for (size_t r = 0; rc == 0 && r < t->n_rows; r++) {
        const char *p = t->cells[r][c[0]];
        if ((rc = prep_name_ok(in, r, "profile", " '", err))) break;
        int k = -1;
        for (int i = 0; i < np; i++)
            if (strcmp(prof[i], p) == 0) k = i;
        if (k < 0) {
            if (np == MAXP) {
                rc = rs_errf(err, "%s:%ld: expected at most %d profiles", data, t->lines[r], MAXP);
                break;
            }
            prof[k = np++] = p;
        }
        double x[5];
        for (int i = 1; i < 5 && rc == 0; i++) rc = prep_cell_num(in, r, c[i], &x[i], err);
        if (rc) break;
        if (strcmp(t->cells[r][c[1]], t->cells[0][c[1]]) != 0) n_varies = true;
        if (strcmp(t->cells[r][c[2]], t->cells[0][c[2]]) != 0) b_varies = true;
        if (x[3] > 0 && x[4] >= 0) pred_ok[k] = 1;
        if (c_sim[0] >= 0 && c_sim[1] >= 0) {
            double s0, s1;
            if ((rc = prep_cell_num(in, r, c_sim[0], &s0, err)) || (rc = prep_cell_num(in, r, c_sim[1], &s1, err))) break;
            if (s0 > 0 && s1 >= 0) sim_ok[k] = 1;
        }
    }
    const char *xcol = o && o->x ? o->x : (n_varies ? "n_ranks" : "block_tokens");
    if (rc == 0 && strcmp(xcol, "n_ranks") != 0 && strcmp(xcol, "block_tokens") != 0)
        rc = rs_errf(err, "--x %s: expected n_ranks or block_tokens", xcol);
    if (rc == 0 && !n_varies && !b_varies)
        rc = rs_errf(err, "%s: expected n_ranks or block_tokens to vary across rows", data);
    int has_sim = np > 0;
    for (int i = 0; rc == 0 && i < np; i++) {
        if (!pred_ok[i]) rc = rs_errf(err, "%s: profile '%s' has no positive pred_t_step_s", data, prof[i]);
        has_sim &= sim_ok[i];
    }
    if (rc == 0) {
        plot_vars_t *v = in->v;
        char list[1024] = "";
        for (int i = 0; i < np; i++) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " " : "", prof[i]);
        plot_vars_str(v, "profiles", list, false);
        plot_vars_str(v, "xcol", xcol, false);
        plot_vars_add(v, "has_sim=%d", has_sim);
        char title[256];
        snprintf(title, sizeof title, "Step time and overlap efficiency vs %s",
                 strcmp(xcol, "n_ranks") == 0 ? "ranks N" : "block size B");
        plot_vars_str(v, "title", o && o->title ? o->title : title, false);
    }
    return rc;
}

/* profile,n_ranks,max_seq_tokens: the profiles, in the order they come. */
static int prep_maxctx(const prep_in_t *in, rs_err_t *err) {
    char list[1024] = "";
    int rc = 0;
    for (size_t r = 0; rc == 0 && r < in->t->n_rows; r++) {
        const char *p = prep_req(in, r, 0);
        double x;
        rc = prep_name_ok(in, r, "profile", " '", err);
        for (int i = 1; i < 3 && rc == 0; i++) rc = prep_cell_num(in, r, in->c[i], &x, err);
        if (rc == 0 && (r == 0 || strcmp(p, prep_req(in, r - 1, 0)) != 0))
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? " " : "", p);
    }
    if (rc == 0) plot_vars_str(in->v, "profiles", list, false);
    if (rc == 0) prep_title_opt(in);
    return rc;
}

/* series,nics,oversub,efficiency,efficiency_free: the series in the order they come; x = the column
 * that varies (nics unless only oversub does). */
static int prep_contention(const prep_in_t *in, rs_err_t *err) {
    const rs_table_t *t = in->t;
    const int *c = in->c;
    int rc = 0;
    char list[4096] = "";
    bool nics_vary = false, ratio_vary = false;
    for (size_t r = 0; rc == 0 && r < t->n_rows; r++) {
        const char *p = t->cells[r][c[0]];
        rc = prep_name_ok(in, r, "series", " '", err);
        double x;
        for (int i = 1; i < 5 && rc == 0; i++) rc = prep_cell_num(in, r, c[i], &x, err);
        if (rc) break;
        nics_vary |= strcmp(t->cells[r][c[1]], t->cells[0][c[1]]) != 0;
        ratio_vary |= strcmp(t->cells[r][c[2]], t->cells[0][c[2]]) != 0;
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++) seen = strcmp(t->cells[q][c[0]], p) == 0;
        if (!seen) prep_list_add(list, sizeof list, p);
    }
    const char *xcol = in->o && in->o->x ? in->o->x : (nics_vary || !ratio_vary ? "nics" : "oversub");
    if (rc == 0 && strcmp(xcol, "nics") != 0 && strcmp(xcol, "oversub") != 0)
        rc = rs_errf(err, "--x %s: expected nics or oversub", xcol);
    if (rc == 0) {
        plot_vars_str(in->v, "series", list, false);
        plot_vars_str(in->v, "xcol", xcol, false);
        const char *title = !strcmp(xcol, "nics") ? "Concurrent rings: efficiency vs NICs per node"
                                                  : "Concurrent rings: efficiency vs spine oversubscription";
        plot_vars_str(in->v, "title", in->o && in->o->title ? in->o->title : title, false);
    }
    return rc;
}

/* series,context_tokens and the four TTFT columns (`ringsim plan --inference --csv`): one line per
 * series and variant that has at least one TTFT > 0 (an empty cell: the variant cannot run there). */
static int prep_ttft(const prep_in_t *in, rs_err_t *err) {
    const rs_table_t *t = in->t;
    const int *c = in->c;
    const char *data = in->data;
    static const char *const variant[4] = {"pass-KV", "pass-Q", "Ulysses", "USP"};
    enum { MAXS = 16 };
    int rc = 0, ns = 0, has[MAXS][4] = {{0}};
    const char *ser[MAXS];
    for (size_t r = 0; rc == 0 && r < t->n_rows; r++) {
        if ((rc = prep_name_ok(in, r, "series", " '\"", err))) break;
        int k = -1;
        for (int i = 0; i < ns; i++)
            if (!strcmp(ser[i], t->cells[r][c[0]])) k = i;
        if (k < 0 && ns == MAXS) rc = rs_errf(err, "%s:%ld: expected at most %d series", data, t->lines[r], MAXS);
        else if (k < 0) ser[k = ns++] = t->cells[r][c[0]];
        double x;
        if (rc == 0 && (rc = prep_cell_num(in, r, c[1], &x, err)) == 0 && !(x > 0 && x < 1e30))
            rc = rs_errf(err, "%s:%ld: expected context_tokens in (0, 1e30), got '%s'", data, t->lines[r], t->cells[r][c[1]]);
        for (int j = 0; j < 4 && rc == 0; j++) {
            if ((rc = prep_cell_num(in, r, c[2 + j], &x, err)) == 0 && !isnan(x) && !(x > 0 && x < 1e30))
                rc = rs_errf(err, "%s:%ld: expected a TTFT in (0, 1e30) s (or empty) in column '%s', got '%s'", data, t->lines[r],
                             t->cols[c[2 + j]], t->cells[r][c[2 + j]]);
            if (rc == 0 && x > 0) has[k][j] = 1;
        }
    }
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
    for (size_t r = 0; rc == 0 && r < t->n_rows; r++) {
        double x;
        prep_cell_num(in, r, c[1], &x, NULL);
        xmin = fmin(xmin, x), xmax = fmax(xmax, x);
        for (int j = 0; j < 4; j++)
            if (prep_cell_num(in, r, c[2 + j], &x, NULL) == 0 && x > 0) ymin = fmin(ymin, x), ymax = fmax(ymax, x);
    }
    char pser[4096] = "", pcol[4096] = "", pname[4096] = "", pdash[512] = "", pcolor[512] = "";
    for (int i = 0; rc == 0 && i < ns; i++)
        for (int j = 0; j < 4; j++) {
            if (!has[i][j]) continue;
            char name[300], num[16];
            snprintf(name, sizeof name, "%.250s/%s", ser[i], variant[j]);
            prep_list_add(pser, sizeof pser, ser[i]);
            prep_list_add(pcol, sizeof pcol, t->cols[c[2 + j]]);
            prep_list_add(pname, sizeof pname, name);
            snprintf(num, sizeof num, "%d", j + 1);
            prep_list_add(pdash, sizeof pdash, num);
            snprintf(num, sizeof num, "%d", i + 1);
            prep_list_add(pcolor, sizeof pcolor, num);
        }
    if (rc == 0 && !pser[0]) rc = rs_errf(err, "%s: expected a TTFT > 0 in at least one row", data);
    if (rc == 0) {
        plot_vars_t *v = in->v;
        plot_vars_str(v, "pser", pser, false);
        plot_vars_str(v, "pcol", pcol, false);
        plot_vars_str(v, "pname", pname, false);
        plot_vars_str(v, "pdash", pdash, false);
        plot_vars_str(v, "pcolor", pcolor, false);
        plot_vars_num(v, "xmin", xmin / 1.25), plot_vars_num(v, "xmax", xmax * 1.25); /* margins: one point still spans a range */
        plot_vars_num(v, "ymin", ymin / 1.25), plot_vars_num(v, "ymax", ymax * 1.25);
        prep_title_opt(in);
    }
    return rc;
}

/* series,cached_tokens,cross_tokens,comm_bound_ratio (`ringsim plan --inference --boundary-csv`): the
 * series with at least one crossing > 0; ratio from the first row. */
static int prep_boundary(const prep_in_t *in, rs_err_t *err) {
    const rs_table_t *t = in->t;
    const int *c = in->c;
    const char *data = in->data;
    int rc = 0;
    char list[4096] = "";
    double ratio = NAN, pmin = INFINITY, pmax = 0;
    for (size_t r = 0; rc == 0 && r < t->n_rows; r++) {
        double x[4];
        if ((rc = prep_name_ok(in, r, "series", " '\"", err))) break;
        for (int i = 1; i < 4 && rc == 0; i++) rc = prep_cell_num(in, r, c[i], &x[i], err);
        if (rc == 0 && !(x[1] > 0 && x[1] < 1e30))
            rc = rs_errf(err, "%s:%ld: expected cached_tokens in (0, 1e30), got '%s'", data, t->lines[r], t->cells[r][c[1]]);
        if (rc == 0 && !(x[3] > 0 && x[3] < 1e30))
            rc = rs_errf(err, "%s:%ld: expected comm_bound_ratio in (0, 1e30), got '%s'", data, t->lines[r], t->cells[r][c[3]]);
        if (rc) break;
        if (r == 0) ratio = x[3];
        pmin = fmin(pmin, x[1]), pmax = fmax(pmax, x[1]);
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++) seen = !strcmp(t->cells[q][c[0]], t->cells[r][c[0]]) && atof(t->cells[q][c[2]]) > 0;
        if (!seen && x[2] > 0) {
            char word[300];
            snprintf(word, sizeof word, " %s ", t->cells[r][c[0]]);
            char padded[4100];
            snprintf(padded, sizeof padded, " %s ", list);
            if (!strstr(padded, word)) prep_list_add(list, sizeof list, t->cells[r][c[0]]);
        }
    }
    if (rc == 0 && !list[0]) rc = rs_errf(err, "%s: expected a crossing (cross_tokens > 0) in at least one row", data);
    if (rc == 0) {
        plot_vars_str(in->v, "series", list, false);
        plot_vars_num(in->v, "ratio", ratio);
        plot_vars_num(in->v, "pmin", pmin / 1.25); /* a margin: one P alone still spans a range */
        plot_vars_num(in->v, "pmax", pmax * 1.25);
        prep_title_opt(in);
    }
    return rc;
}

/* ------------------------------------------------------------------------------------------------
 * The table kinds and the dispatch
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
    int (*fn)(const prep_in_t *in, rs_err_t *err); /* the kind's own checks and variables */
    bool need_rows;                                /* refuse a table without data rows */
    const char *const *need;                       /* required columns (in->c), NULL-terminated, at most 8 */
} table_kind_t;

#define COLS(...) ((const char *const[]){__VA_ARGS__, NULL})
static const table_kind_t table_kinds[RS_PLOT_KIND_COUNT] = {
    [RS_PLOT_TCOMM_VS_B] = {prep_tcomm, true,
                            COLS("series", "block_tokens", "b_min_tokens", "b_star_tokens", "seed_t_comp_s",
                                 "seed_t_comm_s", "pred_t_comp_s", "pred_t_comm_s")},
    [RS_PLOT_PRED_VS_MEAS] = {prep_pred_vs_meas, false, COLS("metric", "ref_s", "other_s")},
    [RS_PLOT_LAYOUT_BUSY] = {prep_busy, true, COLS("rank", "contiguous", "striped", "zigzag")},
    [RS_PLOT_SCALING] = {prep_scaling, true,
                         COLS("profile", "n_ranks", "block_tokens", "pred_t_step_s", "pred_overlap_eff")},
    [RS_PLOT_MAXCTX] = {prep_maxctx, true, COLS("profile", "n_ranks", "max_seq_tokens")},
    [RS_PLOT_CONTENTION] = {prep_contention, true, COLS("series", "nics", "oversub", "efficiency", "efficiency_free")},
    [RS_PLOT_TTFT] = {prep_ttft, true,
                      COLS("series", "context_tokens", "ttft_pass_kv_s", "ttft_pass_q_s", "ttft_ulysses_s", "ttft_usp_s")},
    [RS_PLOT_PASS_BOUNDARY] = {prep_boundary, true, COLS("series", "cached_tokens", "cross_tokens", "comm_bound_ratio")},
    [RS_PLOT_VALIDATION] = {prep_validation, true, COLS("case", "source", "published", "predicted")},
};
#undef COLS

/* Read the table, find the kind's columns, check it has rows (when the kind needs them), then the
 * kind's own preparation. */
static int prep_table(const table_kind_t *k, const char *data, const rs_plot_opts_t *opts, plot_vars_t *v, rs_err_t *err) {
    rs_table_t t;
    if (rs_table_read(data, &t, err) != 0) return -1;
    int c[8];
    int rc = need_cols(&t, data, k->need, c, err);
    if (rc == 0 && k->need_rows && t.n_rows == 0)
        rc = rs_errf(err, "%s:%ld: expected at least one data row", data, t.header_line + 1);
    if (rc == 0) rc = k->fn(&(prep_in_t){.data = data, .t = &t, .c = c, .o = opts, .v = v}, err);
    rs_table_free(&t);
    return rc;
}

int plot_prepare(rs_plot_kind_t kind, const char *data, const rs_plot_opts_t *opts, plot_vars_t *v, int *height,
                 rs_err_t *err) {
    int rc;
    if (kind < 0 || kind >= RS_PLOT_KIND_COUNT) rc = rs_errf(err, "unknown figure kind");
    else if (kind == RS_PLOT_TIMELINE) rc = prep_timeline(data, opts, v, height, err);
    else rc = prep_table(&table_kinds[kind], data, opts, v, err);
    if (rc == 0 && v->oom) rc = rs_errf(err, "out of memory");
    return rc ? rs_err_mark(err, RS_ERR_BAD_INPUT) : 0;
}

int rs_plot_prepare(rs_plot_kind_t kind, const char *data, const rs_plot_opts_t *opts, char **vars, rs_err_t *err) {
    if (vars) *vars = NULL;
    plot_vars_t v = {0};
    int height = 0;
    if (plot_prepare(kind, data, opts, &v, &height, err) != 0) {
        free(v.buf);
        return -1;
    }
    if (vars) *vars = v.buf;
    else free(v.buf);
    return 0;
}
