/* calib_fit.c - the fits of a calibration (calib_fit.h): alpha-beta and the transfer curves, the
 * efficiency curve, host cost and overlap factors, poll curves, the ranks' straggler factors. */
#include "calib_fit.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cost.h"
#include "polls.h"
#include "ranges.h"
#include "stats.h"

/* ---------------------------------------------------------------------------------------------------
 * Transport: alpha-beta and the transfer curves
 * ------------------------------------------------------------------------------------------------- */
/* Least squares of t = L + m u on relative error with L given: u minimising sum ((L + m u - t) / t)^2. */
static double fit_inv_bw(const uint64_t *m, const double *t, int n, double L) {
    double num = 0, den = 0;
    for (int i = 0; i < n; i++) {
        double w = 1.0 / (t[i] * t[i]);
        num += w * (double)m[i] * (t[i] - L), den += w * (double)m[i] * (double)m[i];
    }
    return num / den;
}

/* Least squares of t = L + m / W on relative error: minimise sum ((L + m u - t) / t)^2, u = 1/W. */
static void fit_alpha_beta(const uint64_t *m, const double *t, int n, double *L, double *W) {
    double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
    for (int i = 0; i < n; i++) {
        double w = 1.0 / (t[i] * t[i]), x = (double)m[i];
        a11 += w, a12 += w * x, a22 += w * x * x, b1 += w * t[i], b2 += w * x * t[i];
    }
    double det = a11 * a22 - a12 * a12;
    double l = (b1 * a22 - b2 * a12) / det, u = (a11 * b2 - a12 * b1) / det;
    if (!(u > 0)) u = t[n - 1] / (double)m[n - 1], l = 0; /* degenerate: bandwidth from the largest */
    if (l < 0) l = 0, u = fit_inv_bw(m, t, n, 0); /* refit through the origin */
    *L = l, *W = 1.0 / u;
}

/* After the (L, W) fit: its largest relative error over the sizes, the transfer curve g(bytes)
 * (calibration.h) through every measured size, g = (t - L) W / m (in [0.05, the range's max]: a
 * time below the latency, or a load burst), and the overlap points' transfer alone from the curve,
 * so that the overlap and poll fits and the model read the same transfer time. */
static void transport_fitted(rs_calib_t *c) {
    rs_calibration_t *cal = &c->model;
    cal->n_xfer = cal->n_xfer_reused = 0;
    for (int i = 0; i < c->n_sizes; i++) {
        const double m = (double)c->sizes[i], f = c->latency_s + m / c->bw_bytes_per_s, r = fabs(f - c->t_msg_s[i]) / c->t_msg_s[i];
        if (r > c->fit_err_max) c->fit_err_max = r;
        if (!(m > 0) || !isfinite(c->bw_bytes_per_s) || cal->n_xfer >= RS_MAX_OVERLAP_POINTS ||
            (cal->n_xfer > 0 && !(m > cal->xfer_curve[cal->n_xfer - 1].bytes)))
            continue;
        /* within the profile's range (a calibration on a loaded machine can put L above a size's time, or
         * a small size thousands of times above the line), so that what is written loads back */
        const rs_range_t gr = {RS_RANGE_XFER_FACTOR};
        const double g = (c->t_msg_s[i] - c->latency_s) * c->bw_bytes_per_s / m;
        cal->xfer_curve[cal->n_xfer++] = (rs_xfer_point_t){m, fmin(gr.max, fmax(0.05, g))};
        if (c->t_msg_reused_s[i] > 0 && (cal->n_xfer_reused == 0 || m > cal->xfer_curve_reused[cal->n_xfer_reused - 1].bytes)) {
            const double gu = (c->t_msg_reused_s[i] - c->latency_s) * c->bw_bytes_per_s / m;
            cal->xfer_curve_reused[cal->n_xfer_reused++] = (rs_xfer_point_t){m, fmin(gr.max, fmax(0.05, gu))};
        }
    }
    /* the overlap samples rotate their buffers as the ring's (rs_calib_overlap_samples): the reused curve */
    for (int i = 0; i < c->n_ov; i++)
        c->ov[i].t_xfer_s = c->latency_s + (double)c->ov[i].bytes * rs_calibration_xfer_factor_reused(cal, (double)c->ov[i].bytes) /
                                               c->bw_bytes_per_s;
}

void rs_calib_fit_transport(rs_calib_t *c) {
    c->fit_err_max = 0;
    if (c->n_sizes < 1) return;
    fit_alpha_beta(c->sizes, c->t_msg_s, c->n_sizes, &c->latency_s, &c->bw_bytes_per_s);
    transport_fitted(c);
}

void rs_calib_fit_transport_latency(rs_calib_t *c, double latency_s) {
    c->fit_err_max = 0;
    if (c->n_sizes < 1) return;
    const double u = fit_inv_bw(c->sizes, c->t_msg_s, c->n_sizes, latency_s);
    c->latency_s = latency_s;
    c->bw_bytes_per_s = u > 0 ? 1.0 / u : INFINITY;
    if (u > 0) transport_fitted(c);
}

/* ---------------------------------------------------------------------------------------------------
 * Kernel: the efficiency curve
 * ------------------------------------------------------------------------------------------------- */
void rs_calib_fit_efficiency(rs_calib_t *c) {
    c->model.n_eff = 0;
    for (int i = 0; i < c->n_blocks && c->model.n_eff < RS_MAX_EFF_POINTS; i++)
        c->model.eff[c->model.n_eff++] = (rs_eff_point_t){(double)c->blocks[i], c->flops_eff[i] / c->flops_peak};
}

/* ---------------------------------------------------------------------------------------------------
 * Overlap: host cost, eta per point, the overlap and poll curves
 * ------------------------------------------------------------------------------------------------- */
/* Sort idx[0..n) (indices into c->ov) by the points' bytes (insertion sort: a few points). */
static void sort_ov_by_bytes(const rs_calib_t *c, int *idx, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && c->ov[idx[j]].bytes < c->ov[idx[j - 1]].bytes; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1], idx[j - 1] = t;
        }
}

/* The model's overlap curve from the overlap points: one point per measured size whose eta is
 * determined (a compute shorter than the latency leaves it NaN), sizes strictly increasing. The
 * host cost describes the busy compute and the curve the transfer's progress, so no scalar eta
 * (1) and no slowdown (1). */
static void model_overlap_curve(rs_calib_t *c) {
    c->model.overlap = 1.0;
    c->model.comp_slowdown = 1.0;
    c->model.n_overlap = 0;
    int idx[RS_CALIB_MAX_OV];
    for (int i = 0; i < c->n_ov; i++) idx[i] = i;
    sort_ov_by_bytes(c, idx, c->n_ov);
    for (int k = 0; k < c->n_ov && c->model.n_overlap < RS_MAX_OVERLAP_POINTS; k++) {
        const rs_calib_overlap_t *v = &c->ov[idx[k]];
        if (isnan(v->eta)) continue;
        if (c->model.n_overlap > 0 && !((double)v->bytes > c->model.overlap_curve[c->model.n_overlap - 1].bytes)) continue;
        c->model.overlap_curve[c->model.n_overlap++] = (rs_overlap_point_t){(double)v->bytes, v->eta};
    }
}

/* The eta of a step whose transfer (L + x alone) posted with a compute of tc ended at E: the walk's
 * L + x / eta while the compute runs, L + tc + (x - (tc - L) eta) after it; NAN when the compute is
 * over before the latency (any eta predicts L + x), else clamped to [0, 1]. */
static double invert_eta(double tc, double L, double x, double E) {
    double eta;
    if (tc <= L) return NAN;
    if (E >= tc) eta = (tc + x - E) / (tc - L);
    else eta = E - L > 0 ? x / (E - L) : 1;
    return fmin(1.0, fmax(0.0, eta));
}

/* Host cost o + O m from the busy compute (least squares on relative error, o, O >= 0), then each
 * point's eta with the model's compute (t_alone + o + O m), the one-eta fit and sigma. */
void rs_calib_fit_overlap(rs_calib_t *out) {
    const int n = out->n_ov;
    double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
    for (int i = 0; i < n; i++) { /* d = t_busy - t_alone = o nf + O m */
        const rs_calib_overlap_t *v = &out->ov[i];
        const double w = 1.0 / (v->t_comp_busy_s * v->t_comp_busy_s), mb = (double)v->bytes, nf = v->n_flows,
                     d = v->t_comp_busy_s - v->t_comp_s;
        a11 += w * nf * nf, a12 += w * nf * mb, a22 += w * mb * mb, b1 += w * nf * d, b2 += w * mb * d;
    }
    double o = 0, ob = 0, det = a11 * a22 - a12 * a12;
    if (n >= 2 && det > 0) o = (b1 * a22 - b2 * a12) / det, ob = (a11 * b2 - a12 * b1) / det;
    if (n < 2 || !(det > 0) || o < 0 || ob < 0) { /* one parameter at a time, the better of the two */
        double o1 = a11 > 0 ? fmax(0, b1 / a11) : 0, ob1 = a22 > 0 ? fmax(0, b2 / a22) : 0, e1 = 0, e2 = 0;
        for (int i = 0; i < n; i++) {
            const rs_calib_overlap_t *v = &out->ov[i];
            const double d = v->t_comp_busy_s - v->t_comp_s, w = 1.0 / (v->t_comp_busy_s * v->t_comp_busy_s),
                         nf = v->n_flows, mb = (double)v->bytes;
            e1 += w * (o1 * nf - d) * (o1 * nf - d), e2 += w * (ob1 * mb - d) * (ob1 * mb - d);
        }
        if (e1 <= e2) o = o1, ob = 0;
        else o = 0, ob = ob1;
    }
    out->model.host_s_per_xfer = o, out->model.host_s_per_byte = ob;
    /* each point's compute as the walk has it: alone plus the host cost of its rotating (reused) flows */
    double errs[RS_CALIB_MAX_OV], sg[RS_CALIB_MAX_OV], tcs[RS_CALIB_MAX_OV];
    const double L = out->latency_s;
    for (int i = 0; i < n; i++) {
        rs_calib_overlap_t *v = &out->ov[i];
        tcs[i] = v->t_comp_s + rs_calibration_host_s(&out->model, v->n_flows, (double)v->bytes, (double)v->bytes);
        errs[i] = fabs(tcs[i] - v->t_comp_busy_s) / v->t_comp_busy_s;
        v->eta = invert_eta(tcs[i], L, v->t_xfer_s - L, v->t_end_s);
        sg[i] = v->sigma;
    }
    out->host_fit_err = rs_median(errs, (size_t)n);
    /* one eta for every point, minimising the median |relative error| of the completions */
    double best = INFINITY, best_eta = 1;
    for (int g = 0; g <= 1000; g++) {
        const double eta = g / 1000.0;
        for (int i = 0; i < n; i++) {
            const rs_calib_overlap_t *v = &out->ov[i];
            errs[i] = fabs(rs_xfer_end_s(tcs[i], L, v->t_xfer_s - L, eta) - v->t_end_s) / v->t_end_s;
        }
        const double e = rs_median(errs, (size_t)n);
        if (e < best - 1e-12) best = e, best_eta = eta;
    }
    out->eta = best_eta;
    out->eta_fit_err = best;
    out->sigma = rs_median(sg, (size_t)n);
    model_overlap_curve(out);
    rs_calib_fit_polls(out);
}

/* One poll curve over the overlap points (sorted by bytes) into curve; fresh: from each point's
 * step with fresh transfers (t_end_fresh_s), its transfer and host cost at the fresh curve's factor as
 * the walk charges a fresh step (rs_calibration_host_s); else from the rotating (reused) step, whose eta
 * rs_calib_fit_overlap inverted. Returns the curve's points. */
static int fit_poll_curve(const rs_calib_t *out, const int *idx, int n, bool fresh, rs_poll_point_t *curve) {
    const rs_calibration_t *cal = &out->model;
    const double L = out->latency_s, W = out->bw_bytes_per_s;
    int m = 0;
    for (int k = 0; k < n && m < RS_MAX_OVERLAP_POINTS; k++) {
        const rs_calib_overlap_t *v = &out->ov[idx[k]];
        const double b = (double)v->bytes;
        const double tc = v->t_comp_s + rs_calibration_host_s(cal, v->n_flows, b, fresh ? 0 : b);
        const double x = fresh ? b * rs_calibration_step_xfer_factor(cal, b, 0) / W : v->t_xfer_s - L;
        const double eta = fresh ? (v->t_end_fresh_s > 0 ? invert_eta(tc, L, x, v->t_end_fresh_s) : NAN) : v->eta;
        if (!(tc > 0) || !(eta > 0) || !(x > 0)) continue; /* NAN or 0: no poll position to take */
        /* the eta step ends at L + x / eta; the poll model at L + t_k + x, t_k at the k-th poll */
        const double polls = fmax(1e-3, rs_full_poll_k(x * (1 / eta - 1) / tc, v->polls, v->poll_first > 0 ? v->poll_first : 0.5));
        if (!isfinite(polls) || (m > 0 && !(b > curve[m - 1].bytes))) continue;
        curve[m++] = (rs_poll_point_t){b, polls};
    }
    return m;
}

void rs_calib_fit_polls(rs_calib_t *out) {
    rs_poll_model_t *pm = &out->model.poll;
    pm->n = pm->n_fresh = 0;
    if (pm->chunk_cols <= 0) return;
    int idx[RS_CALIB_MAX_OV], n = 0;
    for (int i = 0; i < out->n_ov; i++)
        if (out->ov[i].polls > 0) idx[n++] = i;
    sort_ov_by_bytes(out, idx, n);
    pm->n = fit_poll_curve(out, idx, n, false, pm->curve);
    if (pm->n > 0) pm->n_fresh = fit_poll_curve(out, idx, n, true, pm->fresh);
}

/* ---------------------------------------------------------------------------------------------------
 * Ranks of unequal speed
 * ------------------------------------------------------------------------------------------------- */
void rs_calib_rank_factors(const double *t, int n_b, int64_t n_ranks, double *fastest, double *factor) {
    double *ratio = malloc(sizeof(double) * (size_t)(n_b > 0 ? n_b : 1));
    for (int i = 0; i < n_b; i++) {
        fastest[i] = INFINITY;
        for (int64_t r = 0; r < n_ranks; r++) fastest[i] = fmin(fastest[i], t[(size_t)i * (size_t)n_ranks + (size_t)r]);
    }
    for (int64_t r = 0; r < n_ranks; r++) {
        for (int i = 0; ratio && i < n_b; i++) ratio[i] = t[(size_t)i * (size_t)n_ranks + (size_t)r] / fastest[i];
        factor[r] = ratio && n_b > 0 ? rs_median(ratio, (size_t)n_b) : 1.0;
    }
    free(ratio);
}

