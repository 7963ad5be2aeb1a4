/* plot_prep_identity.c - the two identity figures' preparation (plot_prep.h): predicted against
 * measured on log-log axes with y = x and a +-10% band. pred-vs-meas reads a `ringsim compare --csv`
 * CSV (one point per (rank, step) and metric); validation reads a CSV of cases against published or
 * measured runs (one marker per source, the prediction's range as an error bar when given). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "plot_prep.h"

/* The axis range of both axes: the data's lo..hi, widened to a factor 1.5 each way when it is
 * narrower (a band needs some width), with 25% margins. */
static void identity_range(plot_vars_t *v, double lo, double hi) {
    if (hi <= lo * 1.5) lo /= 1.5, hi *= 1.5;
    plot_vars_num(v, "lo", lo / 1.25);
    plot_vars_num(v, "hi", hi * 1.25);
}

/* The axis labels: the options' as given, else xlab and ylab escaped as text; the options' title. */
static void identity_labels(const prep_in_t *in, const char *xlab, const char *ylab) {
    const rs_plot_opts_t *o = in->o;
    if (o && o->xlabel) plot_vars_str(in->v, "xlab", o->xlabel, false);
    else plot_vars_str(in->v, "xlab", xlab, true);
    if (o && o->ylabel) plot_vars_str(in->v, "ylab", o->ylabel, false);
    else plot_vars_str(in->v, "ylab", ylab, true);
    prep_title_opt(in);
}

/* "what: NOTE" with NOTE's leading path cut to its file name (a folder says nothing on an axis and
 * would not fit one): "reference: model.csv (model)". */
static void note_label(char *buf, size_t len, const char *what, const char *note) {
    if (!note) {
        snprintf(buf, len, "%s: ?", what);
        return;
    }
    const char *end = strchr(note, ' '), *name = note;
    for (const char *p = note; *p && (!end || p < end); p++)
        if (*p == '/') name = p + 1;
    snprintf(buf, len, "%s: %s", what, name);
}

/* A compare CSV: the metrics with positive pairs, the axis range around them, the axis labels from
 * its reference= and other= notes (note_label). */
int prep_pred_vs_meas(const prep_in_t *in, rs_err_t *err) {
    const rs_table_t *t = in->t;
    const int *c = in->c;
    plot_vars_t *v = in->v;
    static const char *const metrics[] = {"t_comp", "t_comm", "t_step"};
    int present[3] = {0, 0, 0};
    double lo = INFINITY, hi = 0;
    int rc = 0;
    for (size_t r = 0; r < t->n_rows && rc == 0; r++) {
        double a, b;
        if ((rc = prep_cell_num(in, r, c[1], &a, err)) || (rc = prep_cell_num(in, r, c[2], &b, err))) break;
        int m = -1;
        for (int i = 0; i < 3; i++)
            if (strcmp(t->cells[r][c[0]], metrics[i]) == 0) m = i;
        bool role = false; /* a role's busy time (version 2): not plotted */
        for (int k = 0; k < RS_ROLE_COUNT; k++) role |= strcmp(t->cells[r][c[0]], rs_cmp_metric_name(RS_CMP_ROLE_METRIC(k))) == 0;
        if (role) continue;
        if (m < 0) {
            rc = rs_errf(err, "%s:%ld: expected metric t_comp, t_comm or t_step, got '%s'", in->data, t->lines[r],
                         t->cells[r][c[0]]);
            break;
        }
        if (a > 0 && b > 0) {
            present[m] = 1;
            lo = fmin(lo, fmin(a, b));
            hi = fmax(hi, fmax(a, b));
        }
    }
    if (rc == 0 && !(present[0] || present[1] || present[2]))
        rc = rs_errf(err, "%s: expected at least one row with positive ref_s and other_s", in->data);
    if (rc == 0) {
        char list[64] = "";
        for (int i = 0; i < 3; i++)
            if (present[i]) prep_list_add(list, sizeof list, metrics[i]);
        plot_vars_str(v, "metrics", list, false);
        identity_range(v, lo, hi);
        char buf[600], xlab[700], ylab[700];
        note_label(xlab, sizeof xlab, "reference", rs_table_note(t, "reference", buf, sizeof buf));
        note_label(ylab, sizeof ylab, "other", rs_table_note(t, "other", buf, sizeof buf));
        identity_labels(in, xlab, ylab);
    }
    return rc;
}


/* A validation CSV's row r: the case and source named, published > 0, predicted > 0 or empty (not
 * drawn), and when the bounds exist (lo_c, hi_c >= 0) both empty or predicted_low <= predicted <=
 * predicted_high, all > 0. x[0..3]: published, predicted, low, high (NaN where empty). */
static int validation_row(const prep_in_t *in, size_t r, int lo_c, int hi_c, double x[4], rs_err_t *err) {
    const rs_table_t *t = in->t;
    const long line = t->lines[r];
    if (!*prep_req(in, r, 0) || !*prep_req(in, r, 1))
        return rs_errf(err, "%s:%ld: expected a case and a source, got '%s' and '%s'", in->data, line, prep_req(in, r, 0),
                       prep_req(in, r, 1));
    x[2] = x[3] = NAN;
    if (prep_cell_num(in, r, in->c[2], &x[0], err) || prep_cell_num(in, r, in->c[3], &x[1], err)) return -1;
    if (lo_c >= 0 && (prep_cell_num(in, r, lo_c, &x[2], err) || prep_cell_num(in, r, hi_c, &x[3], err))) return -1;
    if (!(x[0] > 0 && x[0] < 1e30))
        return rs_errf(err, "%s:%ld: expected published in (0, 1e30), got '%s'", in->data, line, prep_req(in, r, 2));
    if (!isnan(x[1]) && !(x[1] > 0 && x[1] < 1e30))
        return rs_errf(err, "%s:%ld: expected predicted in (0, 1e30) (or empty: not drawn), got '%s'", in->data, line,
                       prep_req(in, r, 3));
    if (isnan(x[2]) && isnan(x[3])) return 0;
    if (isnan(x[1]) || isnan(x[2]) || isnan(x[3]) || !(x[2] > 0 && x[2] <= x[1] && x[1] <= x[3] && x[3] < 1e30))
        return rs_errf(err, "%s:%ld: expected 0 < predicted_low <= predicted <= predicted_high < 1e30 (or both bounds "
                            "empty), got '%s', '%s', '%s'",
                       in->data, line, t->cells[r][lo_c], prep_req(in, r, 3), t->cells[r][hi_c]);
    return 0;
}

/* case,source,published,predicted[,predicted_low,predicted_high]: the sources with a predicted
 * value, in the order they come (at most 8: one marker each), the bars when the bounds exist, the
 * range of every value drawn; a note unit=s makes the axes times. */
int prep_validation(const prep_in_t *in, rs_err_t *err) {
    enum { MAXS = 8 };
    const rs_table_t *t = in->t;
    const int lo_c = rs_table_col(t, "predicted_low"), hi_c = rs_table_col(t, "predicted_high");
    if ((lo_c < 0) != (hi_c < 0))
        return rs_errf(err, "%s:%ld: expected both predicted_low and predicted_high in the header line, or neither", in->data,
                       t->header_line);
    const char *src[MAXS];
    int ns = 0, rc = 0;
    double lo = INFINITY, hi = 0;
    for (size_t r = 0; rc == 0 && r < t->n_rows; r++) {
        double x[4];
        if ((rc = validation_row(in, r, lo_c, hi_c, x, err)) != 0 || isnan(x[1])) continue;
        int k = -1;
        for (int i = 0; i < ns; i++)
            if (!strcmp(src[i], prep_req(in, r, 1))) k = i;
        if (k < 0 && ns == MAXS)
            rc = rs_errf(err, "%s:%ld: expected at most %d sources (one marker each)", in->data, t->lines[r], MAXS);
        else if (k < 0) src[ns++] = prep_req(in, r, 1);
        for (int i = 0; i < 4; i++)
            if (!isnan(x[i])) lo = fmin(lo, x[i]), hi = fmax(hi, x[i]);
    }
    if (rc == 0 && ns == 0) rc = rs_errf(err, "%s: expected at least one row with a predicted value", in->data);
    if (rc != 0) return rc;
    plot_vars_t *v = in->v;
    plot_vars_add(v, "nsrc=%d", ns);
    for (int i = 0; i < ns; i++) {
        char name[32];
        snprintf(name, sizeof name, "src%d", i + 1);
        plot_vars_str(v, name, src[i], false);
        snprintf(name, sizeof name, "src%d_t", i + 1);
        plot_vars_str(v, name, src[i], true);
    }
    plot_vars_add(v, "has_bars=%d", lo_c >= 0);
    identity_range(v, lo, hi);
    char unit[200], xlab[300] = "published or measured", ylab[300] = "predicted";
    const bool has_unit = rs_table_note(t, "unit", unit, sizeof unit) != NULL;
    const bool unit_s = has_unit && !strcmp(unit, "s");
    plot_vars_add(v, "unit_s=%d", unit_s);
    if (has_unit && !unit_s) {
        snprintf(xlab, sizeof xlab, "published or measured (%s)", unit);
        snprintf(ylab, sizeof ylab, "predicted (%s)", unit);
    }
    identity_labels(in, xlab, ylab);
    return 0;
}
