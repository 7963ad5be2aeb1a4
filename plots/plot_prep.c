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
    double v = rs_strtod(s, &end);
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
/* A trace CSV: one pass (--pass; a trace of both passes is refused without it), every lane with
 * data; the figure's height grows with the rank count. */
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
    for (size_t i = 0; !(o && o->pass) && i < n; i++)
        if (e[i].pass != pass) { /* both passes: the figure draws one */
            rs_trace_free(t);
            return rs_errf(err, "%s: events of the forward and the backward pass: pick one with --pass forward or --pass backward",
                           data);
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
    if (rc == 0) plot_vars_str(in->v, "profiles", list, false), plot_vars_str(in->v, "profiles_t", list, true);
    if (rc == 0) prep_title_opt(in);
    return rc;
}

/* series,nics,oversub,balance_efficiency,balance_efficiency_free: the series in the order they come; x = the column
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
        plot_vars_str(in->v, "series_t", list, true);
        plot_vars_str(in->v, "xcol", xcol, false);
        plot_vars_str(in->v, "col_eff", t->cols[c[3]], false);
        plot_vars_str(in->v, "col_eff_free", t->cols[c[4]], false);
        const char *title = !strcmp(xcol, "nics") ? "Concurrent rings vs NICs per node"
                                                  : "Concurrent rings vs spine oversubscription";
        plot_vars_str(in->v, "title", in->o && in->o->title ? in->o->title : title, false);
    }
    return rc;
}

/* Row r's line of a TTFT CSV: its series, and its cached_tokens (column cp) when by_p. */
static void ttft_key(const rs_table_t *t, size_t r, int c_series, int cp, bool by_p, char *buf, size_t len) {
    if (by_p) snprintf(buf, len, "%s|%s", t->cells[r][c_series], t->cells[r][cp]);
    else snprintf(buf, len, "%s", t->cells[r][c_series]);
}

/* series,context_tokens and the four TTFT columns (`ringsim plan --inference --csv`): one line per
 * series and variant that has at least one TTFT > 0 (an empty cell: the variant cannot run there);
 * where cached_tokens takes more than one value, one per series, P and variant (TTFT depends on P
 * and T, not on P + T alone: the rows of several P are several curves). */
static int prep_ttft(const prep_in_t *in, rs_err_t *err) {
    const rs_table_t *t = in->t;
    const int *c = in->c;
    const char *data = in->data;
    enum { MAXS = 16 };
    int rc = 0, ns = 0, has[MAXS][4] = {{0}};
    char ser[MAXS][160], name[MAXS][160];
    const int cp = rs_table_col(t, "cached_tokens");
    bool by_p = false;
    for (size_t r = 1; cp >= 0 && r < t->n_rows; r++) by_p |= strcmp(t->cells[r][cp], t->cells[0][cp]) != 0;
    for (size_t r = 0; rc == 0 && r < t->n_rows; r++) {
        if ((rc = prep_name_ok(in, r, "series", " '\"", err))) break;
        char key[160];
        ttft_key(t, r, c[0], cp, by_p, key, sizeof key);
        int k = -1;
        for (int i = 0; i < ns; i++)
            if (!strcmp(ser[i], key)) k = i;
        if (k < 0 && ns == MAXS) rc = rs_errf(err, "%s:%ld: expected at most %d series%s", data, t->lines[r], MAXS, by_p ? " and P" : "");
        else if (k < 0) {
            snprintf(ser[k = ns++], sizeof ser[0], "%s", key);
            const double pt = by_p ? rs_strtod(t->cells[r][cp], NULL) : 0;
            if (by_p && pt >= 1024 && fmod(pt, 1024) == 0) /* P in K tokens where it is a whole number of them */
                snprintf(name[k], sizeof name[0], "%s/P=%.0fK", t->cells[r][c[0]], pt / 1024);
            else if (by_p) snprintf(name[k], sizeof name[0], "%s/P=%s", t->cells[r][c[0]], t->cells[r][cp]);
            else snprintf(name[k], sizeof name[0], "%s", key);
        }
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
    char pser[4096] = "", pcol[4096] = "", pdash[512] = "", pcolor[512] = "", snames[4096] = "", vused[16] = "";
    int used[4] = {0};
    for (int i = 0, ni = 0; rc == 0 && i < ns; i++) { /* the series with a line, coloured in order */
        bool any = false;
        for (int j = 0; j < 4; j++) {
            if (!has[i][j]) continue;
            char num[16];
            any = true, used[j] = 1;
            prep_list_add(pser, sizeof pser, ser[i]);
            prep_list_add(pcol, sizeof pcol, t->cols[c[2 + j]]);
            snprintf(num, sizeof num, "%d", j + 1);
            prep_list_add(pdash, sizeof pdash, num);
            snprintf(num, sizeof num, "%d", ni + 1);
            prep_list_add(pcolor, sizeof pcolor, num);
        }
        if (any) prep_list_add(snames, sizeof snames, name[i]), ni++;
    }
    for (int j = 0; j < 4; j++)
        if (used[j]) prep_list_add(vused, sizeof vused, (const char[]){(char)('1' + j), 0});
    if (rc == 0 && !pser[0]) rc = rs_errf(err, "%s: expected a TTFT > 0 in at least one row", data);
    if (rc == 0) {
        plot_vars_t *v = in->v;
        plot_vars_str(v, "pser", pser, false), plot_vars_str(v, "pcol", pcol, false);
        plot_vars_str(v, "snames", snames, true), plot_vars_str(v, "vused", vused, false);
        plot_vars_str(v, "pdash", pdash, false), plot_vars_str(v, "pcolor", pcolor, false);
        plot_vars_add(v, "by_p=%d", by_p);
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
        for (size_t q = 0; q < r && !seen; q++) seen = !strcmp(t->cells[q][c[0]], t->cells[r][c[0]]) && rs_strtod(t->cells[q][c[2]], NULL) > 0;
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
        plot_vars_str(in->v, "series_t", list, true);
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
    [RS_PLOT_TCOMM_VS_B] = {prep_tcomm_vs_b, true,
                            COLS("series", "block_tokens", "b_min_tokens", "b_star_tokens", "seed_t_comp_s",
                                 "seed_t_comm_s", "pred_t_comp_s", "pred_t_comm_s")},
    [RS_PLOT_PRED_VS_MEAS] = {prep_pred_vs_meas, false, COLS("metric", "ref_s", "other_s")},
    [RS_PLOT_LAYOUT_BUSY] = {prep_busy, true, COLS("rank", "contiguous", "striped", "zigzag")},
    [RS_PLOT_SCALING] = {prep_scaling, true,
                         COLS("profile", "n_ranks", "block_tokens", "pred_t_step_s", "pred_overlap_efficiency")},
    [RS_PLOT_MAXCTX] = {prep_maxctx, true, COLS("profile", "n_ranks", "max_seq_tokens")},
    [RS_PLOT_CONTENTION] = {prep_contention, true, COLS("series", "nics", "oversub", "balance_efficiency", "balance_efficiency_free")},
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
