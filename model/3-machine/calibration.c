/* calibration.c - the calibration state and its curves (calibration.h). */
#include "calibration.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

void rs_calibration_default(rs_calibration_t *c) {
    memset(c, 0, sizeof *c);
    c->overlap = 1.0;
    c->comp_slowdown = 1.0;
}

_Static_assert(sizeof(rs_eff_point_t) == 2 * sizeof(double) && offsetof(rs_eff_point_t, efficiency) == sizeof(double),
               "rs_eff_point_t is (x, y) as two doubles");
_Static_assert(sizeof(rs_overlap_point_t) == 2 * sizeof(double) && offsetof(rs_overlap_point_t, eta) == sizeof(double),
               "rs_overlap_point_t is (x, y) as two doubles");

/* A curve of n > 0 points (x, y) sorted by x, stored as structs of two doubles (x first) `stride`
 * bytes apart: y at x, linear in log x between points, clamped to the end points outside. The
 * efficiency curve (x = B) and the overlap curve (x = bytes) are both read through it. */
static double curve_at(int n, const void *pts, size_t stride, double x) {
#define CX(i) (((const double *)(const void *)((const char *)pts + (size_t)(i) * stride))[0])
#define CY(i) (((const double *)(const void *)((const char *)pts + (size_t)(i) * stride))[1])
    if (!(x > CX(0))) return CY(0);
    if (x >= CX(n - 1)) return CY(n - 1);
    int k = 1;
    while (k < n - 1 && CX(k) < x) k++;
    double x0 = log(CX(k - 1)), x1 = log(CX(k));
    double t = (log(x) - x0) / (x1 - x0);
    return CY(k - 1) + t * (CY(k) - CY(k - 1));
#undef CX
#undef CY
}

/* Log-linear interpolation in B between sorted points, clamped at the ends; 1 without points. */
static double eff_interp(int n, const rs_eff_point_t *pt, double b) {
    return n <= 0 ? 1.0 : curve_at(n, pt, sizeof *pt, b);
}

double rs_calibration_efficiency(const rs_calibration_t *c, double block_tokens) {
    return eff_interp(c->n_eff, c->eff, block_tokens);
}

double rs_calibration_overlap(const rs_calibration_t *c, double bytes) {
    return c->n_overlap <= 0 ? c->overlap : curve_at(c->n_overlap, c->overlap_curve, sizeof c->overlap_curve[0], bytes);
}

_Static_assert(sizeof(rs_poll_point_t) == 2 * sizeof(double) && offsetof(rs_poll_point_t, polls) == sizeof(double),
               "rs_poll_point_t is (x, y) as two doubles");

bool rs_calibration_polled(const rs_calibration_t *c) { return c->poll.chunk_cols > 0 && c->poll.n > 0; }

double rs_calibration_polls(const rs_calibration_t *c, double bytes) {
    return rs_calibration_polled(c) ? curve_at(c->poll.n, c->poll.curve, sizeof c->poll.curve[0], bytes) : 0.0;
}

/* The share of a step's bytes received into the buffer sent at the step before, in [0, 1]: the
 * weight of the reused curves (transfer factor, polls) against the fresh ones. */
static double reused_share(double bytes, double reused_bytes) {
    return bytes > 0 && reused_bytes > 0 ? fmin(1.0, reused_bytes / bytes) : 0.0;
}

double rs_calibration_step_polls(const rs_calibration_t *c, double bytes, double reused_bytes) {
    const double k = rs_calibration_polls(c, bytes);
    if (!rs_calibration_polled(c) || c->poll.n_fresh <= 0 || !(bytes > 0)) return k;
    const double w = reused_share(bytes, reused_bytes);
    return w * k + (1 - w) * curve_at(c->poll.n_fresh, c->poll.fresh, sizeof c->poll.fresh[0], bytes);
}

double rs_calibration_step_xfer_factor(const rs_calibration_t *c, double bytes, double reused_bytes) {
    const double g = rs_calibration_xfer_factor(c, bytes);
    if (!(reused_bytes > 0) || c->n_xfer_reused <= 0 || !(bytes > 0)) return g;
    const double r = reused_share(bytes, reused_bytes);
    return (1 - r) * g + r * rs_calibration_xfer_factor_reused(c, bytes);
}

double rs_calibration_host_s(const rs_calibration_t *c, int n_xfers, double bytes, double reused_bytes) {
    if (n_xfers <= 0) return 0.0;
    /* O is the receiver's copy per byte, fitted on the calibration's rotating (reused) samples: a
     * step's copies take O x its factor over the reused curve's (1 without a reused curve) */
    const double per_byte = c->n_xfer_reused > 0 && bytes > 0
                                ? c->host_s_per_byte * rs_calibration_step_xfer_factor(c, bytes, reused_bytes) /
                                      rs_calibration_xfer_factor_reused(c, bytes)
                                : c->host_s_per_byte;
    return (double)n_xfers * c->host_s_per_xfer + bytes * per_byte;
}

bool rs_calibration_partial_overlap(const rs_calibration_t *c) {
    if (rs_calibration_polled(c)) return true;
    if (c->n_overlap <= 0) return c->overlap < 1;
    for (int k = 0; k < c->n_overlap && k < RS_MAX_OVERLAP_POINTS; k++)
        if (c->overlap_curve[k].eta < 1) return true;
    return false;
}

_Static_assert(sizeof(rs_xfer_point_t) == 2 * sizeof(double) && offsetof(rs_xfer_point_t, factor) == sizeof(double),
               "rs_xfer_point_t is (x, y) as two doubles");

double rs_calibration_xfer_factor(const rs_calibration_t *c, double bytes) {
    return c->n_xfer <= 0 ? 1.0 : curve_at(c->n_xfer, c->xfer_curve, sizeof c->xfer_curve[0], bytes);
}

double rs_calibration_xfer_factor_reused(const rs_calibration_t *c, double bytes) {
    return c->n_xfer_reused <= 0 ? rs_calibration_xfer_factor(c, bytes)
                                 : curve_at(c->n_xfer_reused, c->xfer_curve_reused, sizeof c->xfer_curve_reused[0], bytes);
}
