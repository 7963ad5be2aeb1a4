/* study_validate_summary.c - the held-out table of the validation study (study_validate_summary.h):
 * printed, written as CSV, read back. */
#include "study_validate_summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h" /* rs_table_read: the CSV table reader */

void rs_validate_csv_cell(FILE *out, double x, int digits) {
    if (isfinite(x)) fprintf(out, ",%.*g", digits, x);
    else fputc(',', out);
}

void rs_validate_print_summary(FILE *out, const rs_validate_row_t *rows, int n) {
    fprintf(out, "# held-out table: per configuration, |error| = |model - measured| / measured; per (rank, step) the median "
                 "and p95 over the B sweep, makespan the median and max over B; crossover B at the seed's threshold "
                 "(T_comm = T_comp alone; '-': not reached in the swept range or no step without a transfer); *_sp: the measurement's own "
                 "spread, median |round - median of the rounds| / median ('-': one round)\n");
    fprintf(out, "# %2s %5s %-10s %-8s %-10s %5s %-8s %7s %7s %7s %7s %7s %7s %7s %7s %8s %8s %7s %7s %7s %7s\n", "N", "cores",
            "layout", "pass", "mask", "heads", "fit", "comp", "comp95", "comm", "comm95", "step", "step95", "mk", "mkmax", "x_meas",
            "x_model", "comp_sp", "comm_sp", "step_sp", "mk_sp");
    for (int i = 0; i < n; i++) {
        const rs_validate_row_t *r = &rows[i];
        char c[14][16], h[24];
        snprintf(h, sizeof h, "%lld/%lld", (long long)r->q_heads, (long long)r->kv_heads);
        fprintf(out, "  %2lld %5lld %-10s %-8s %-10s %5s %-8s %7s %7s %7s %7s %7s %7s %7s %7s %8s %8s %7s %7s %7s %7s\n", (long long)r->n_ranks,
                (long long)r->cores, rs_layout_name(r->layout), rs_pass_name(r->pass), r->causal ? "causal" : "full", h,
                r->fitted ? "fitted" : "held-out", rs_fmt_num(r->med[0], "%.3f", c[0], 16), rs_fmt_num(r->p95[0], "%.3f", c[1], 16),
                rs_fmt_num(r->med[1], "%.3f", c[2], 16), rs_fmt_num(r->p95[1], "%.3f", c[3], 16),
                rs_fmt_num(r->med[2], "%.3f", c[4], 16), rs_fmt_num(r->p95[2], "%.3f", c[5], 16),
                rs_fmt_num(r->mk_med, "%.3f", c[6], 16), rs_fmt_num(r->mk_max, "%.3f", c[7], 16),
                rs_fmt_num(r->x_meas, "%.4g", c[8], 16), rs_fmt_num(r->x_model, "%.4g", c[9], 16),
                rs_fmt_num(r->spread[0], "%.3f", c[10], 16), rs_fmt_num(r->spread[1], "%.3f", c[11], 16),
                rs_fmt_num(r->spread[2], "%.3f", c[12], 16), rs_fmt_num(r->mk_spread, "%.3f", c[13], 16));
    }
    for (int i = 0; i < n; i++) { /* once per N */
        bool seen = false;
        for (int k = 0; k < i; k++) seen |= rows[k].n_ranks == rows[i].n_ranks;
        if (!seen && rows[i].n_ranks > rows[i].cores)
            fprintf(out, "# oversubscribed: %lld ranks on %lld cores - the ranks share cores, and that is part of what is "
                         "measured\n", (long long)rows[i].n_ranks, (long long)rows[i].cores);
    }
}

static void csv_num(FILE *out, double x) { rs_validate_csv_cell(out, x, 6); }

void rs_validate_write_summary_csv(FILE *out, const rs_validate_row_t *rows, int n) {
    fputs("n_ranks,cores,layout,pass,mask,q_heads,kv_heads,fitted,t_comp_med,t_comp_p95,t_comm_med,t_comm_p95,t_step_med,"
          "t_step_p95,makespan_med,makespan_max,crossover_meas,crossover_model,b_lo,b_hi,t_comp_spread,t_comm_spread,t_step_spread,"
          "makespan_spread\n",
          out);
    for (int i = 0; i < n; i++) {
        const rs_validate_row_t *r = &rows[i];
        fprintf(out, "%lld,%lld,%s,%s,%s,%lld,%lld,%d", (long long)r->n_ranks, (long long)r->cores, rs_layout_name(r->layout),
                rs_pass_name(r->pass), r->causal ? "causal" : "full", (long long)r->q_heads, (long long)r->kv_heads, r->fitted ? 1 : 0);
        for (int k = 0; k < 3; k++) csv_num(out, r->med[k]), csv_num(out, r->p95[k]);
        csv_num(out, r->mk_med), csv_num(out, r->mk_max), csv_num(out, r->x_meas), csv_num(out, r->x_model);
        csv_num(out, r->b_lo), csv_num(out, r->b_hi);
        for (int k = 0; k < 3; k++) csv_num(out, r->spread[k]);
        csv_num(out, r->mk_spread);
        fputs("\n", out);
    }
}

/* A number cell (empty: NaN). */
static double num_cell(const char *c) { return c[0] ? rs_strtod(c, NULL) : NAN; }

int rs_validate_read_summary_csv(const char *path, rs_validate_row_t *rows, int max, int *n, rs_err_t *err) {
    rs_table_t t;
    if (rs_table_read(path, &t, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    static const char *const names[20] = {"n_ranks", "cores", "layout", "pass", "mask", "q_heads", "kv_heads", "fitted",
                                          "t_comp_med", "t_comp_p95", "t_comm_med", "t_comm_p95", "t_step_med", "t_step_p95",
                                          "makespan_med", "makespan_max", "crossover_meas", "crossover_model", "b_lo", "b_hi"};
    static const char *const spread[4] = {"t_comp_spread", "t_comm_spread", "t_step_spread", "makespan_spread"};
    int c[20], sp[4], rc = 0;
    for (int k = 0; k < 20 && rc == 0; k++)
        if ((c[k] = rs_table_col(&t, names[k])) < 0)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: no column %s (not a validate --summary file)", path, names[k]);
    for (int k = 0; k < 4; k++) sp[k] = rs_table_col(&t, spread[k]);
    for (size_t i = 0; rc == 0 && i < t.n_rows && *n < max; i++) {
        char **x = t.cells[i];
        rs_validate_row_t *r = &rows[(*n)++];
        memset(r, 0, sizeof *r);
        r->n_ranks = strtoll(x[c[0]], NULL, 10), r->cores = strtoll(x[c[1]], NULL, 10);
        r->causal = !strcmp(x[c[4]], "causal");
        r->q_heads = strtoll(x[c[5]], NULL, 10), r->kv_heads = strtoll(x[c[6]], NULL, 10), r->fitted = x[c[7]][0] == '1';
        if (rs_layout_parse(x[c[2]], &r->layout) < 0 || rs_pass_parse(x[c[3]], &r->pass) < 0)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: bad layout or pass", path, t.lines[i]);
        for (int k = 0; k < 3; k++) r->med[k] = num_cell(x[c[8 + 2 * k]]), r->p95[k] = num_cell(x[c[9 + 2 * k]]);
        r->mk_med = num_cell(x[c[14]]), r->mk_max = num_cell(x[c[15]]), r->x_meas = num_cell(x[c[16]]);
        r->x_model = num_cell(x[c[17]]), r->b_lo = num_cell(x[c[18]]), r->b_hi = num_cell(x[c[19]]);
        for (int k = 0; k < 4; k++) /* optional: a table without them (one round) reads as NaN */
            (k < 3 ? &r->spread[k] : &r->mk_spread)[0] = sp[k] >= 0 ? num_cell(x[sp[k]]) : NAN;
    }
    rs_table_free(&t);
    return rc;
}
