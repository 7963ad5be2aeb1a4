/* report_findings.c - the report's findings (study_report.h): each sentence with a number is made by
 * one function from the rows that feed the figure or table next to it, so the text cannot say what
 * the figure does not show; what was not reached is said in words, never as nan or inf. */
#include "study_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "x" with fmt, or "-" (rs_fmt_num), into one of a few rotating buffers (several per sentence). */
static const char *num(double x, const char *fmt) {
    static char bufs[8][48];
    static int k;
    char *b = bufs[k++ % 8];
    return rs_fmt_num(x, fmt, b, sizeof bufs[0]);
}

double rs_report_overlap_eff(const rs_trace_summary_t *s) { return s->t_step_s > 0 ? s->t_comp_s / s->t_step_s : NAN; }

/* The points of one profile, sorted by N (at most RS_SWEEP_MAX_VALUES). */
static size_t profile_points(const rs_sweep_point_t *pts, size_t n, const char *profile, const rs_sweep_point_t **out) {
    size_t k = 0;
    for (size_t i = 0; i < n && k < RS_SWEEP_MAX_VALUES; i++)
        if (strcmp(pts[i].profile, profile) == 0) out[k++] = &pts[i];
    for (size_t i = 1; i < k; i++)
        for (size_t j = i; j > 0 && out[j - 1]->problem.n_ranks > out[j]->problem.n_ranks; j--) {
            const rs_sweep_point_t *t = out[j];
            out[j] = out[j - 1], out[j - 1] = t;
        }
    return k;
}

void rs_report_finding_scaling(const rs_sweep_point_t *pts, size_t n, const char *profile, double eff_min, char *buf,
                               size_t len) {
    const rs_sweep_point_t *p[RS_SWEEP_MAX_VALUES];
    const size_t k = profile_points(pts, n, profile, p);
    if (k == 0) {
        snprintf(buf, len, "**Scaling, %s**: no point of the N sweep ran.", profile);
        return;
    }
    size_t first_low = k; /* the first N whose overlap efficiency is below eff_min */
    for (size_t i = 0; i < k && first_low == k; i++)
        if (!(rs_report_overlap_eff(&p[i]->pred) >= eff_min)) first_low = i;
    const rs_sweep_point_t *last = p[k - 1];
    const long long s_tok = (long long)p[0]->problem.seq_tokens;
    size_t o = (size_t)snprintf(buf, len, "**Scaling, %s** (figure scaling-n, lower panel): at S = %lld the overlap efficiency "
                                          "T_comp / T_step ",
                                profile, s_tok);
    if (first_low == k) {
        o += (size_t)snprintf(buf + o, len - o, "stays at %s or more up to the largest N swept (%s at N = %lld)", num(eff_min, "%.2f"),
                              num(rs_report_overlap_eff(&last->pred), "%.3f"), (long long)last->problem.n_ranks);
    } else {
        const rs_sweep_point_t *lo = p[first_low];
        const rs_machine_t *m = &lo->machine;
        if (first_low > 0)
            o += (size_t)snprintf(buf + o, len - o, "is %s or more up to N = %lld and ", num(eff_min, "%.2f"),
                                  (long long)p[first_low - 1]->problem.n_ranks);
        o += (size_t)snprintf(buf + o, len - o, "%s %s at N = %lld (B = %lld tokens per rank", first_low > 0 ? "falls to" : "is",
                              num(rs_report_overlap_eff(&lo->pred), "%.3f"), (long long)lo->problem.n_ranks,
                              (long long)rs_problem_block(&lo->problem));
        if (m->devices_per_node > 0 && lo->problem.n_ranks > m->devices_per_node)
            o += (size_t)snprintf(buf + o, len - o, "; the ring spans %lld nodes, its inter-node hop (%s, %s GB/s) paces it",
                                  (long long)((lo->problem.n_ranks + m->devices_per_node - 1) / m->devices_per_node), m->inter.name,
                                  num(m->inter.bw_bytes_per_s / 1e9, "%.0f"));
        o += (size_t)snprintf(buf + o, len - o, ")");
        if (last != lo)
            o += (size_t)snprintf(buf + o, len - o, " and %s at N = %lld", num(rs_report_overlap_eff(&last->pred), "%.3f"),
                                  (long long)last->problem.n_ranks);
        o += (size_t)snprintf(buf + o, len - o, ": past it the steps wait for their transfers");
    }
    if (o < len) snprintf(buf + o, len - o, ".");
}

/* The B range of a series' points: "B = 64..65536". */
static void b_range(const rs_sweep_point_t *pts, size_t n, const char *series, double *lo, double *hi) {
    *lo = INFINITY, *hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (strcmp(pts[i].series, series) == 0) {
            const double b = (double)rs_problem_block(&pts[i].problem);
            *lo = fmin(*lo, b), *hi = fmax(*hi, b);
        }
}

const char *rs_report_crossing_text(double x, double b_lo, double b_hi, char *buf, size_t len) {
    if (isfinite(x)) snprintf(buf, len, "at B = %.0f tokens", x);
    else snprintf(buf, len, "nowhere in the swept range (B = %.0f..%.0f)", b_lo, b_hi);
    return buf;
}

void rs_report_finding_crossover(const rs_report_crossover_in_t *in, char *buf, size_t len) {
    const rs_sweep_point_t *full = in->full, *causal = in->causal;
    const size_t nf = in->n_full, nc = in->n_causal;
    const int which = in->which;
    if (nf == 0 || nc == 0) {
        snprintf(buf, len, "**Crossover in the data**: the B sweeps did not run.");
        return;
    }
    double lo_f, hi_f, lo_c, hi_c;
    b_range(full, nf, full[0].series, &lo_f, &hi_f);
    b_range(causal, nc, causal[0].series, &lo_c, &hi_c);
    const double bx_full = rs_sweep_crossover(full, nf, full[0].series, which);
    const double bx_causal = rs_sweep_crossover(causal, nc, causal[0].series, which);
    char t1[96], t2[96], ratio[96] = "";
    if (isfinite(bx_full) && isfinite(bx_causal))
        snprintf(ratio, sizeof ratio, ", %.2fx the full-block crossing: a causal zigzag step computes about half a full block",
                 bx_causal / bx_full);
    snprintf(buf, len,
             "**Crossover in the data** (%s, zigzag, forward, N = %lld; figures tcomm-vs-b and tcomm-vs-b-causal): full blocks "
             "cross %s (B* = %s, B_min = %s); under the causal mask %s%s.",
             in->who, (long long)in->n_ranks, rs_report_crossing_text(bx_full, lo_f, hi_f, t1, sizeof t1),
             num(full[0].closed.b_star_tokens, "%.0f"), num(full[0].closed.b_min_tokens, "%.0f"),
             rs_report_crossing_text(bx_causal, lo_c, hi_c, t2, sizeof t2), ratio);
}

void rs_report_finding_measured_crossover(const rs_sweep_point_t *pts, size_t n, double x_meas, double x_model, char *buf,
                                          size_t len) {
    if (n == 0) {
        snprintf(buf, len, "The measured B sweep did not run.");
        return;
    }
    double lo, hi;
    b_range(pts, n, pts[0].series, &lo, &hi);
    const rs_sweep_point_t *p = &pts[0];
    const double bx = rs_sweep_crossover(pts, n, p->series, 2), bm = rs_sweep_crossover(pts, n, p->series, 0);
    const double bs = p->closed.b_star_tokens;
    char t1[96], t2[96], t3[96], t4[96], lat[32], bstar[160];
    if (bs > 0 && isfinite(bs)) snprintf(bstar, sizeof bstar, "%.0f tokens", bs);
    else if (isnan(bs)) snprintf(bstar, sizeof bstar, "not found (transfer-bound at every B searched)");
    else snprintf(bstar, sizeof bstar, "not found (compute-bound at every B)");
    snprintf(buf, len,
             "Contiguous forward with full blocks (the configuration the calibration measures; calibrated: F_eff peak %s "
             "GFLOP/s, W = %s GB/s, latency %s): the measured T_comm crosses the block's compute alone (the seed's "
             "threshold) %s and the calibrated model's walk %s; the measured T_comm crosses the median per-step T_comp (the "
             "figure's points and lines; with N = 2 half of the steps carry a transfer and its host cost) %s, the model's %s. "
             "The closed form's B* (compute with the host cost against the full-rate transfer) is %s; B_min = %s tokens without "
             "latency and efficiency.",
             num(p->machine.flops_per_s / 1e9, "%.2f"), num(p->machine.intra.bw_bytes_per_s / 1e9, "%.3f"),
             rs_fmt_time(p->machine.intra.latency_s, lat, sizeof lat), rs_report_crossing_text(x_meas, lo, hi, t1, sizeof t1),
             rs_report_crossing_text(x_model, lo, hi, t2, sizeof t2), rs_report_crossing_text(bx, lo, hi, t3, sizeof t3),
             rs_report_crossing_text(bm, lo, hi, t4, sizeof t4), bstar, num(p->closed.b_min_tokens, "%.0f"));
}

void rs_report_finding_threshold(const rs_closed_t *cl, rs_pass_t pass, rs_layout_t layout, char *buf, size_t len) {
    char a1[32], a2[32], bstar[200], where[160];
    const double bs = cl->b_star_tokens, b = (double)cl->block_tokens;
    const char *ln = rs_layout_name(layout);
    if (isnan(bs)) {
        snprintf(bstar, sizeof bstar,
                 "no B* (the %s layout's middle step is transfer-bound at every B searched: up to 2^40 tokens, 2^24 with "
                 "kernel curves)", ln);
        snprintf(where, sizeof where, "B = %lld", (long long)cl->block_tokens);
    } else if (!(bs > 0)) {
        snprintf(bstar, sizeof bstar, "no B* (the %s layout's middle step is compute-bound at every B)", ln);
        snprintf(where, sizeof where, "B = %lld", (long long)cl->block_tokens);
    } else {
        snprintf(bstar, sizeof bstar, "B* = %.1f tokens (the largest B at which the %s layout's middle step is transfer-bound)",
                 bs, ln);
        snprintf(where, sizeof where, "B = %lld, %.1fx B*", (long long)cl->block_tokens, b / bs);
    }
    snprintf(buf, len,
             "**%s: overlap threshold.** B_min = F c_b / (W c_f) = %s tokens (the seed's F/W, scaled by the K,V bytes per "
             "token over the FLOPs per pair); with latency, the compute rates and launches %s. This problem runs %s: the "
             "%s layout's middle step computes for %s and moves %s, so it is %s-bound (T_comm / T_comp = %s).",
             rs_pass_name(pass), num(cl->b_min_tokens, "%.1f"), bstar, where, ln, rs_fmt_time(cl->t_comp_s, a1, sizeof a1),
             rs_fmt_time(cl->t_comm_s, a2, sizeof a2), cl->comm_bound ? "transfer" : "compute",
             num(cl->t_comp_s > 0 ? cl->t_comm_s / cl->t_comp_s : NAN, "%.3f"));
}

/* A cell of the held-out CSV as a number (NaN when empty or absent). */
static double cell(const rs_table_t *t, size_t row, const char *col) {
    const int c = rs_table_col(t, col);
    if (c < 0 || !t->cells[row][c][0]) return NAN;
    return rs_strtod(t->cells[row][c], NULL);
}

/* "contiguous forward causal" of a row. */
static const char *row_cfg(const rs_table_t *t, size_t row, char *buf, size_t len) {
    const int l = rs_table_col(t, "layout"), p = rs_table_col(t, "pass"), m = rs_table_col(t, "mask");
    snprintf(buf, len, "%s %s %s", l >= 0 ? t->cells[row][l] : "?", p >= 0 ? t->cells[row][p] : "?", m >= 0 ? t->cells[row][m] : "?");
    return buf;
}

/* The held-out CSV's columns of the measurement's own spread, T_comm, T_step, makespan (optional). */
static const char *const spread_cols[3] = {"t_comm_spread", "t_step_spread", "makespan_spread"};

void rs_report_heldout_rows(const rs_table_t *t, char rows[][512], int max_rows, int *n_rows) {
    static const char *const cols[10] = {"t_comp_med", "t_comp_p95", "t_comm_med", "t_comm_p95", "t_step_med",
                                         "t_step_p95", "makespan_med", "makespan_max", "crossover_meas", "crossover_model"};
    int n = 0;
    snprintf(rows[n++], 512, "configuration|calibration|T_comp median (p95)|T_comm median (p95)|T_step median (p95)|"
                             "makespan median (max)|crossover measured / model|own spread T_comm / T_step / makespan");
    for (size_t i = 0; i < t->n_rows && n < max_rows; i++) {
        char cfg[96], nr[24], c[10][24], sp[3][24], spc[96];
        for (int k = 0; k < 10; k++) rs_fmt_num(k < 8 ? 100 * cell(t, i, cols[k]) : cell(t, i, cols[k]), k < 8 ? "%.1f" : "%.0f", c[k], 24);
        for (int k = 0; k < 3; k++) rs_fmt_num(100 * cell(t, i, spread_cols[k]), "%.1f%%", sp[k], 24);
        snprintf(spc, sizeof spc, "%s / %s / %s", sp[0], sp[1], sp[2]);
        snprintf(rows[n++], 512, "%s (N = %s)|%s|%s%% (%s%%)|%s%% (%s%%)|%s%% (%s%%)|%s%% (%s%%)|%s / %s|%s", row_cfg(t, i, cfg, sizeof cfg),
                 rs_fmt_num(cell(t, i, "n_ranks"), "%.0f", nr, sizeof nr), cell(t, i, "fitted") == 1 ? "fitted" : "held out", c[0],
                 c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], strcmp(spc, "- / - / -") ? spc : "-");
    }
    *n_rows = n;
}

void rs_report_finding_heldout(const rs_table_t *t, double target, char *buf, size_t len) {
    static const char *const cols[4] = {"t_comp_med", "t_comm_med", "t_step_med", "makespan_med"};
    static const char *const names[4] = {"T_comp", "T_comm", "T_step", "makespan"};
    double lo[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, hi[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    size_t worst[4] = {0, 0, 0, 0}, n_held = 0;
    int meet = 0, miss_in_spread = 0;
    double n_ranks = NAN, cores = NAN;
    double slo[3] = {INFINITY, INFINITY, INFINITY}, shi[3] = {-INFINITY, -INFINITY, -INFINITY}; /* the spread's range */
    for (size_t i = 0; i < t->n_rows; i++) {
        if (cell(t, i, "fitted") == 1) continue;
        n_held++;
        for (int k = 0; k < 3; k++) {
            const double e = cell(t, i, spread_cols[k]);
            if (isfinite(e)) slo[k] = fmin(slo[k], e), shi[k] = fmax(shi[k], e);
        }
        n_ranks = cell(t, i, "n_ranks"), cores = cell(t, i, "cores");
        bool ok = true, in_spread = true; /* in_spread: every metric missed misses by no more than its spread */
        for (int k = 0; k < 4; k++) {
            const double e = cell(t, i, cols[k]);
            if (!isfinite(e)) continue;
            if (e < lo[k]) lo[k] = e;
            if (e > hi[k]) hi[k] = e, worst[k] = i;
            if (k > 0 && e > target) {
                const double sp = cell(t, i, spread_cols[k - 1]);
                ok = false;
                if (!(isfinite(sp) && e <= target + sp)) in_spread = false;
            }
        }
        meet += ok;
        miss_in_spread += !ok && in_spread;
    }
    if (n_held == 0) {
        snprintf(buf, len, "No held-out configuration was measured.");
        return;
    }
    size_t o = (size_t)snprintf(buf, len, "Held out (%zu configurations the calibration did not measure, N = %s%s): median "
                                          "per-(rank, step) |error|",
                                n_held, num(n_ranks, "%.0f"), n_ranks > cores ? ", oversubscribed: more ranks than cores" : "");
    for (int k = 0; k < 4 && o < len; k++) {
        char cfg[96];
        o += (size_t)snprintf(buf + o, len - o, "%s %s %s%%..%s%% (largest: %s)", k ? ";" : "", names[k], num(100 * lo[k], "%.1f"),
                              num(100 * hi[k], "%.1f"), isfinite(hi[k]) ? row_cfg(t, worst[k], cfg, sizeof cfg) : "-");
    }
    if (o < len)
        o += (size_t)snprintf(buf + o, len - o, ". %d of %zu meet T_comm, T_step and makespan within %.0f%%.", meet, n_held,
                              100 * target);
    /* the measurement's own spread over the same rows: an error within it is not resolved by the run */
    if (o < len && isfinite(shi[0]) && isfinite(shi[1]) && isfinite(shi[2])) {
        o += (size_t)snprintf(buf + o, len - o,
                              " The measurements' own spread over their rounds (median |round - median of the rounds| / median) "
                              "was T_comm %s%%..%s%%, T_step %s%%..%s%%, makespan %s%%..%s%%: an error within it is not "
                              "resolved by this run.",
                              num(100 * slo[0], "%.1f"), num(100 * shi[0], "%.1f"), num(100 * slo[1], "%.1f"),
                              num(100 * shi[1], "%.1f"), num(100 * slo[2], "%.1f"), num(100 * shi[2], "%.1f"));
        if (o < len && (size_t)meet < n_held)
            snprintf(buf + o, len - o, " Misses by no more than the configuration's own spread (error <= %.0f%% + the spread in "
                                       "every metric missed): %d of %zu.",
                     100 * target, miss_in_spread, n_held - (size_t)meet);
    }
}
