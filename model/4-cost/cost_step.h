/* cost_step.h - the step primitives of the analytic model (cost.h), shared by the closed form
 * (cost_closed.c) and the critical-path walk (cost_walk.c): flows sharing a hop, compute slowed while
 * transfers are in flight, and the synchronous step built of them (rs_sync_step_s). static inline:
 * the walk calls them per rank and step, the closed form per evaluation. Internal to model/4-cost.
 * Derivations: docs/model.md. */
#ifndef RS_COST_STEP_H
#define RS_COST_STEP_H

#include <math.h>
#include <stddef.h>

#include "schedule.h" /* RS_MAX_TRANSFERS */

/* End times of n flows that start together at `a` (after the hop latency) on one hop and share it
 * equally. x_sorted[i] = bytes_i / W, sorted ascending. While the receiving rank computes (until ce)
 * the hop delivers at eta times its rate (its progress engine is busy computing). Flow i ends when
 * the cumulative capacity reaches sum_{j<i} x_j + (n - i) x_i (processor sharing with equal starts).
 * ends (may be NULL) receives each end. Returns the last end. */
static inline double flows_end(double a, double ce, double eta, const double *x_sorted, int n, double *ends) {
    double done = 0, last = a;
    for (int i = 0; i < n; i++) {
        double target = done + (double)(n - i) * x_sorted[i];
        double t;
        if (a < ce) {
            double slow_capacity = eta * (ce - a);
            if (target <= slow_capacity) t = eta > 0 ? a + target / eta : a;
            else t = ce + (target - slow_capacity);
        } else {
            t = a + target;
        }
        if (ends) ends[i] = t;
        if (t > last) last = t;
        done += x_sorted[i];
    }
    return last;
}

/* Compute end: `work_s` seconds of compute from t0, at 1/sigma speed inside the union of the n <= 2
 * in-flight intervals [iv[2i], iv[2i+1]] (iv is reordered by start). */
static inline double comp_end(double t0, double work_s, double *iv, int n, double sigma) {
    if (work_s <= 0) return t0;
    if (sigma <= 1 || n == 0) return t0 + work_s;
    /* sort intervals by start (n <= 2) */
    if (n == 2 && iv[2] < iv[0]) {
        double s0 = iv[0], e0 = iv[1];
        iv[0] = iv[2], iv[1] = iv[3], iv[2] = s0, iv[3] = e0;
    }
    double t = t0, left = work_s;
    for (int i = 0; i < n; i++) {
        double s = iv[2 * i], e = iv[2 * i + 1];
        if (e <= t) continue;
        if (s > t) {
            if (left <= s - t) return t + left;
            left -= s - t;
            t = s;
        }
        double cap = (e - t) / sigma;
        if (left <= cap) return t + left * sigma;
        left -= cap;
        t = e;
    }
    return t + left;
}

/* Sort a few values ascending (insertion sort: n <= RS_MAX_TRANSFERS). */
static inline void sort_small(double *x, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && x[j] < x[j - 1]; j--) {
            double t = x[j];
            x[j] = x[j - 1];
            x[j - 1] = t;
        }
}

/* rs_sync_step_s (cost.h): one synchronous step of compute t_comp_s and n <= RS_MAX_TRANSFERS flows
 * xfer_s[] after latency_s on the rank's outgoing hop. */
static inline double sync_step(double t_comp_s, double latency_s, const double *xfer_s, int n, double eta, double sigma) {
    if (n <= 0) return t_comp_s;
    double x[RS_MAX_TRANSFERS];
    for (int i = 0; i < n; i++) x[i] = xfer_s[i];
    sort_small(x, n);
    double fe, ce;
    if (sigma > 1) {
        fe = flows_end(latency_s, 0, 1, x, n, NULL);
        double iv[4] = {0, fe, 0, fe};
        ce = comp_end(0, t_comp_s, iv, 2, sigma);
    } else {
        ce = t_comp_s;
        fe = flows_end(latency_s, ce, eta, x, n, NULL);
    }
    return fmax(ce, fe);
}

#endif /* RS_COST_STEP_H */
