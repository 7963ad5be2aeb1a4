/* kernel_table.c - attention kernel curves: names, interpolation, validation, fallbacks
 * (kernel_table.h). */
#include "kernel_table.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "schedule.h"

static const char *const kmask_names[RS_KMASK_COUNT] = {"full", "causal", "shifted"};
static const char *const impl_names[RS_IMPL_COUNT] = {"none", "ringsim", "flash-attn", "te"};

const char *rs_kmask_name(rs_kmask_t m) { return rs_enum_name(kmask_names, RS_KMASK_COUNT, (int)m); }

int rs_kmask_parse(const char *s, rs_kmask_t *out) {
    const int i = rs_enum_parse(kmask_names, RS_KMASK_COUNT, s);
    if (i < 0) return -1;
    *out = (rs_kmask_t)i;
    return 0;
}

const char *rs_impl_name(rs_impl_t i) { return rs_enum_name(impl_names, RS_IMPL_COUNT, (int)i); }

int rs_impl_parse(const char *s, rs_impl_t *out) {
    const int i = rs_enum_parse(impl_names, RS_IMPL_COUNT, s);
    if (i < 0) return -1;
    *out = (rs_impl_t)i;
    return 0;
}

int rs_kernel_find(const rs_kernel_table_t *t, const char *name) {
    for (int k = 0; name && k < t->n_kernels && k < RS_KMAX_KERNELS; k++)
        if (!strcmp(t->kernel[k].name, name)) return k;
    return -1;
}

/* ------------------------------------------------------------------------------------------------
 * Interpolation
 * ---------------------------------------------------------------------------------------------- */
/* Among the knots [lo, hi) (one area), the one whose log(q/k) is nearest the call's aspect q/k (first
 * on a tie); a run of one knot needs no logarithm. */
static int nearest_aspect(const rs_kcurve_t *c, int lo, int hi, double aspect) {
    int best = lo;
    if (hi - lo < 2) return best;
    const double la = log(aspect);
    double bd = fabs(log(c->kq[lo] / c->kk[lo]) - la);
    for (int i = lo + 1; i < hi; i++) {
        double d = fabs(log(c->kq[i] / c->kk[i]) - la);
        if (d < bd) bd = d, best = i;
    }
    return best;
}

double rs_kcurve_rate_dim(const rs_kcurve_t *c, double q, double k, int64_t head_dim, double exp_per_s) {
    const double r = rs_kcurve_rate(c, q, k);
    if (!(exp_per_s > 0) || head_dim < 1 || head_dim >= c->head_dim) return r;
    const double per_dim = c->pass == RS_PASS_BACKWARD ? 10.0 : 4.0; /* FLOPs per score per head_dim */
    const double extra_s = (1.0 / (per_dim * (double)head_dim) - 1.0 / (per_dim * (double)c->head_dim)) / exp_per_s;
    return 1.0 / (1.0 / r + extra_s);
}

static inline double area_of(const rs_kpoint_t *p) { return p->q_tokens * p->k_tokens; }

/* End (exclusive) of the run of knots sharing knot i's area. */
static int area_run_end(const rs_kcurve_t *c, int i) {
    int j = i + 1;
    while (j < c->nk && c->area[j] == c->area[i]) j++;
    return j;
}

double rs_kcurve_rate(const rs_kcurve_t *c, double q, double k) {
    const double area = q * k, aspect = q / k;
    if (!c->shared_areas) { /* one knot per area (the common case): the bracketing pair by a scan */
        if (!(area > c->area[0])) return c->full[0];
        int i = 1;
        while (i < c->nk && c->area[i] <= area) i++;
        if (i == c->nk || c->area[i - 1] == area) return c->full[i - 1]; /* clamped, or on a knot */
        const double t = (log(area) - c->log_area[i - 1]) / (c->log_area[i] - c->log_area[i - 1]);
        return exp(c->log_rate[i - 1] + t * (c->log_rate[i] - c->log_rate[i - 1]));
    }
    /* the run of knots at or below the call's area, and the run above it */
    int lo = 0, lo_end = area_run_end(c, 0);
    if (!(area > c->area[0])) return c->full[nearest_aspect(c, 0, lo_end, aspect)];
    while (lo_end < c->nk && c->area[lo_end] <= area) {
        lo = lo_end;
        lo_end = area_run_end(c, lo);
    }
    const int i0 = nearest_aspect(c, lo, lo_end, aspect);
    if (lo_end >= c->nk || c->area[i0] == area) return c->full[i0]; /* clamped, or on a knot */
    const int i1 = nearest_aspect(c, lo_end, area_run_end(c, lo_end), aspect);
    const double t = (log(area) - c->log_area[i0]) / (c->log_area[i1] - c->log_area[i0]);
    return exp(c->log_rate[i0] + t * (c->log_rate[i1] - c->log_rate[i0]));
}

bool rs_kdim_nearer(int64_t d, int64_t best, int64_t target) {
    const int64_t dd = llabs(d - target), db = llabs(best - target);
    return best < 0 || dd < db || (dd == db && d < best);
}

int rs_kcurve_outside(const rs_kcurve_t *c, double q, double k) {
    const double area = q * k;
    if (area < c->area[0]) return -1;
    return area > c->area[c->nk - 1] ? 1 : 0;
}

double rs_kwave_util(double ctas, double slots) {
    if (!(ctas > 0) || !(slots > 0)) return 1.0;
    const double waves = ceil(ctas / slots);
    return ctas / (waves * slots);
}

double rs_kcurve_ctas(const rs_kcurve_t *c, double q, double k, double batch, int64_t q_heads, int64_t kv_heads) {
    if (!c->wave) return 0;
    const double rows = c->pass == RS_PASS_FORWARD ? q : k;
    return batch * (double)(c->cta_per_kv_head ? kv_heads : q_heads) * ceil(rows / (double)c->cta_rows);
}

double rs_kernel_slots(const rs_kernel_table_t *t, const rs_kcurve_t *c) {
    if (!c->wave) return 0;
    const int64_t sms = t->sm_count > 0 ? t->sm_count : t->kernel[c->kernel].sm_count;
    return (double)sms * (double)c->ctas_per_sm;
}

/* ------------------------------------------------------------------------------------------------
 * Validation
 * ---------------------------------------------------------------------------------------------- */
int rs_kernel_table_validate(const rs_kernel_table_t *t, rs_err_t *err) {
    if (t->n_kernels < 0 || t->n_kernels > RS_KMAX_KERNELS)
        return rs_errc(err, RS_ERR_BAD_INPUT, "kernels: %d kernels, must be in [0, %d]", t->n_kernels, RS_KMAX_KERNELS);
    if (t->n_curves < 0 || t->n_curves > RS_KMAX_CURVES)
        return rs_errc(err, RS_ERR_BAD_INPUT, "kernels: %d curves, must be in [0, %d]", t->n_curves, RS_KMAX_CURVES);
    if (!(isfinite(t->merge_bw_bytes_per_s) && t->merge_bw_bytes_per_s >= 0))
        return rs_errc(err, RS_ERR_BAD_INPUT, "kernels: merge bandwidth %g must be finite and >= 0 bytes/s", t->merge_bw_bytes_per_s);
    if (t->default_impl < 0 || t->default_impl >= RS_IMPL_COUNT)
        return rs_errc(err, RS_ERR_BAD_INPUT, "kernels: default implementation %d out of range", t->default_impl);
    for (int i = 0; i < RS_IMPL_COUNT; i++)
        if (t->impl_kernel[i] < 0 || t->impl_kernel[i] > t->n_kernels)
            return rs_errc(err, RS_ERR_BAD_INPUT, "kernels: implementation %s runs kernel %d, out of range", rs_impl_name((rs_impl_t)i),
                           t->impl_kernel[i] - 1);
    for (int i = 0; i < t->n_curves; i++) {
        const rs_kcurve_t *c = &t->curve[i];
        if (c->kernel < 0 || c->kernel >= t->n_kernels) return rs_errc(err, RS_ERR_BAD_INPUT, "kernels: curve %d names kernel %d, out of range", i, c->kernel);
        const char *kn = t->kernel[c->kernel].name;
        if (c->n < 1 || c->n > RS_KMAX_POINTS)
            return rs_errc(err, RS_ERR_BAD_INPUT, "kernel %s curve %d: %d points, must be in [1, %d]", kn, i, c->n, RS_KMAX_POINTS);
        bool bad = c->heads < 0 || c->kv_heads < 0 || c->cta_rows < 0 || c->ctas_per_sm < 0 || !(c->batch >= 0) || !(c->tokens_per_batch >= 0);
        for (int j = 0; j < c->n; j++) bad |= !(isfinite(c->pt_batch[j]) && c->pt_batch[j] >= 0);
        if (bad)
            return rs_errc(err, RS_ERR_BAD_INPUT, "kernel %s curve %d: heads, batch and CTA figures must be >= 0", kn, i);
        if (c->head_dim < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "kernel %s curve %d: head_dim %lld must be >= 1", kn, i, (long long)c->head_dim);
        if (c->pass < 0 || c->pass > 1 || c->mask < 0 || c->mask >= RS_KMASK_COUNT || c->dtypes == 0 ||
            c->dtypes >= (1u << RS_DTYPE_COUNT))
            return rs_errc(err, RS_ERR_BAD_INPUT, "kernel %s curve %d: pass, mask or dtypes out of range", kn, i);
        for (int j = 0; j < c->n; j++) {
            const rs_kpoint_t *p = &c->pt[j];
            if (!(isfinite(p->q_tokens) && p->q_tokens > 0 && isfinite(p->k_tokens) && p->k_tokens > 0 &&
                  isfinite(p->flops_per_s) && p->flops_per_s > 0))
                return rs_errc(err, RS_ERR_BAD_INPUT, "kernel %s curve %d point %d: q, k and FLOP/s must be finite and > 0", kn, i, j);
            if (j > 0) {
                const rs_kpoint_t *o = &c->pt[j - 1];
                double a = p->q_tokens * p->k_tokens, ao = o->q_tokens * o->k_tokens;
                if (!(a > ao || (a == ao && p->q_tokens > o->q_tokens)))
                    return rs_errc(err, RS_ERR_BAD_INPUT, "kernel %s curve %d point %d: points must be sorted by area q*k, then q (strictly)", kn, i, j);
            }
        }
        for (int j = 0; j < i; j++) {
            const rs_kcurve_t *o = &t->curve[j];
            if (o->kernel == c->kernel && (o->dtypes & c->dtypes) && o->head_dim == c->head_dim && o->pass == c->pass &&
                o->mask == c->mask)
                return rs_errc(err, RS_ERR_BAD_INPUT, "kernel %s: two curves for the same dtype, head_dim %lld, %s, %s", kn, (long long)c->head_dim,
                               rs_pass_name((rs_pass_t)c->pass), rs_kmask_name(c->mask));
        }
    }
    return 0;
}

/* The batch of curve c's point j at its measurement: the point's own, the curve's, or tokens_per_batch
 * over the point's q (the papers' batch x seqlen = constant); 0 when not known. */
static double point_batch(const rs_kcurve_t *c, int j) {
    if (c->pt_batch[j] > 0) return c->pt_batch[j];
    if (c->batch > 0) return c->batch;
    return c->tokens_per_batch > 0 ? c->tokens_per_batch / c->pt[j].q_tokens : 0;
}

/* Rank of donor o for a one-point curve c (smaller is nearer; -1: o cannot lend its shape): the mask
 * (the same, then rs_kernel_resolve's nearest kinds: how a rate falls at short sequences is the
 * diagonal tiles' share, which both passes have - the FlashAttention-2 paper's H100 forward + backward
 * causal/full ratios, 0.66, 0.83, 0.92 at 512, 2K, 8K (Figure 7), follow the forward-only ones of the
 * FlashAttention-3 paper's Figure 5, 0.62, 0.82, 0.90, not the flat backward full curve), then the
 * pass, then the head_dim, then the head_dim's distance, then the smaller head_dim; never a derived
 * curve (its shape is another curve's). */
static const int mask_order[RS_KMASK_COUNT][RS_KMASK_COUNT - 1] = {{RS_KMASK_CAUSAL, RS_KMASK_SHIFTED},
                                                                   {RS_KMASK_SHIFTED, RS_KMASK_FULL},
                                                                   {RS_KMASK_CAUSAL, RS_KMASK_FULL}};
static int64_t donor_rank(const rs_kcurve_t *c, const rs_kcurve_t *o) {
    if (o == c || o->kernel != c->kernel || !(o->dtypes & c->dtypes) || o->n < 2 || o->derived) return -1; /* shapes are measured */
    const int mask = o->mask == c->mask ? 0 : (int)o->mask == mask_order[c->mask][0] ? 1 : 2;
    const int64_t dd = llabs(o->head_dim - c->head_dim);
    return ((((int64_t)mask * 2 + (o->pass != c->pass)) * 2 + (dd != 0)) * 65536 + dd) * 2 + (o->head_dim < c->head_dim ? 0 : 1);
}

/* The knots of curve c: its own points, at their full-wave rates (the knots after them zero, so that a
 * table prepared again is the same bytes). */
static void own_knots(rs_kcurve_t *c) {
    c->shape_from = 0, c->nk = c->n;
    memset(c->kq, 0, sizeof c->kq), memset(c->kk, 0, sizeof c->kk), memset(c->area, 0, sizeof c->area);
    memset(c->log_area, 0, sizeof c->log_area), memset(c->full, 0, sizeof c->full), memset(c->log_rate, 0, sizeof c->log_rate);
    for (int j = 0; j < c->n; j++) {
        c->kq[j] = c->pt[j].q_tokens, c->kk[j] = c->pt[j].k_tokens;
        c->area[j] = area_of(&c->pt[j]);
        c->full[j] = c->pt[j].flops_per_s / c->util[j];
    }
}

/* The knots of a one-point curve c from donor d (prepared, own knots): d's knots times the ratio of c's
 * full-wave rate to d's at c's shape, the point itself in the place of a donor knot of its shape. */
static void borrowed_knots(rs_kcurve_t *c, const rs_kcurve_t *d, int donor) {
    const double q0 = c->pt[0].q_tokens, k0 = c->pt[0].k_tokens, a0 = q0 * k0, full0 = c->pt[0].flops_per_s / c->util[0];
    const double f = full0 / rs_kcurve_rate(d, q0, k0);
    int n = 0;
    bool placed = false;
    for (int j = 0; j <= d->nk; j++) {
        const bool before = j == d->nk || d->area[j] > a0 || (d->area[j] == a0 && d->kq[j] >= q0);
        if (!placed && before) { /* the point, at its place in (area, q) order */
            c->kq[n] = q0, c->kk[n] = k0, c->area[n] = a0, c->full[n++] = full0;
            placed = true;
        }
        if (j == d->nk || (d->area[j] == a0 && d->kq[j] == q0)) continue;
        c->kq[n] = d->kq[j], c->kk[n] = d->kk[j], c->area[n] = d->area[j], c->full[n++] = d->full[j] * f;
    }
    c->shape_from = donor + 1, c->nk = n;
}

static void knot_logs(rs_kcurve_t *c) {
    c->shared_areas = false;
    for (int j = 0; j < c->nk; j++) {
        c->log_area[j] = log(c->area[j]);
        c->log_rate[j] = log(c->full[j]);
        c->shared_areas |= j > 0 && c->area[j] == c->area[j - 1];
    }
}

int rs_kernel_table_prepare(rs_kernel_table_t *t, rs_err_t *err) {
    if (rs_kernel_table_validate(t, err)) return -1;
    for (int i = 0; i < t->n_curves; i++) {
        rs_kcurve_t *c = &t->curve[i];
        const int64_t sms = t->kernel[c->kernel].sm_count > 0 ? t->kernel[c->kernel].sm_count : t->sm_count;
        c->wave = sms > 0 && c->heads > 0 && c->cta_rows > 0 && c->ctas_per_sm > 0;
        for (int j = 0; j < c->n && c->wave; j++) c->wave = point_batch(c, j) > 0;
        const int64_t kv = c->kv_heads > 0 ? c->kv_heads : c->heads;
        for (int j = 0; j < c->n; j++)
            c->util[j] = c->wave ? rs_kwave_util(rs_kcurve_ctas(c, c->pt[j].q_tokens, c->pt[j].k_tokens, point_batch(c, j), c->heads, kv),
                                                 (double)sms * (double)c->ctas_per_sm)
                                 : 1.0;
        c->twin_of = 0;
        own_knots(c);
        knot_logs(c);
    }
    t->n_twins = 0;
    memset(&t->curve[t->n_curves], 0, sizeof t->curve[0] * RS_KMAX_TWINS); /* the twins' slots, past the curves */
    for (int i = 0; i < t->n_curves; i++) { /* one-point curves borrow a shape; each keeps a flat twin */
        rs_kcurve_t *c = &t->curve[i];
        if (c->n != 1) continue;
        int best = -1;
        int64_t br = 0;
        for (int j = 0; j < t->n_curves; j++) {
            const int64_t r = donor_rank(c, &t->curve[j]);
            if (r >= 0 && (best < 0 || r < br)) best = j, br = r;
        }
        if (best < 0 || t->n_twins >= RS_KMAX_TWINS) continue; /* no donor (or no room for the twin): the point, clamped */
        rs_kcurve_t *twin = &t->curve[t->n_curves + t->n_twins++];
        *twin = *c;
        twin->twin_of = i + 1;
        borrowed_knots(c, &t->curve[best], best);
        knot_logs(c);
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Fallbacks
 * ---------------------------------------------------------------------------------------------- */
static void note(rs_kresolve_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(rs_kresolve_t *r, const char *fmt, ...) {
    char s[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s, sizeof s, fmt, ap);
    va_end(ap);
    if (strstr(r->notes, s)) return; /* each fallback once */
    size_t n = strlen(r->notes);
    snprintf(r->notes + n, sizeof r->notes - n, "%s%s", n ? "; " : "", s);
}

static int find_curve(const rs_kernel_table_t *t, int kernel, int dtype, int64_t d, int pass, int mask) {
    for (int i = 0; i < t->n_curves; i++) {
        const rs_kcurve_t *c = &t->curve[i];
        if (c->kernel == kernel && (c->dtypes >> dtype & 1u) && c->head_dim == d && c->pass == pass && (int)c->mask == mask)
            return i;
    }
    return -1;
}

int rs_kernel_resolve(const rs_kernel_table_t *t, int kernel, int dtype, int64_t head_dim, rs_kresolve_t *out,
                      rs_err_t *err) {
    memset(out, 0, sizeof *out);
    const char *kn = kernel >= 0 && kernel < t->n_kernels ? t->kernel[kernel].name : "?";
    /* the head_dim: exact, else the nearest the kernel has for this dtype (the smaller on a tie) */
    int64_t d = -1;
    for (int i = 0; i < t->n_curves; i++) {
        const rs_kcurve_t *c = &t->curve[i];
        if (c->kernel != kernel || !(c->dtypes >> dtype & 1u)) continue;
        if (rs_kdim_nearer(c->head_dim, d, head_dim)) d = c->head_dim;
    }
    if (d < 0) return rs_errc(err, RS_ERR_BAD_INPUT, "kernel %s has no curve for dtype %s", kn, rs_dtype_name((rs_dtype_t)dtype));
    if (d != head_dim)
        note(out, "kernel %s has no %s curve for head_dim %lld: using its head_dim %lld curves", kn,
             rs_dtype_name((rs_dtype_t)dtype), (long long)head_dim, (long long)d);
    const int(*order)[RS_KMASK_COUNT - 1] = mask_order; /* nearest mask kinds, in order */
    for (int pass = 0; pass < 2; pass++) {
        int src = pass; /* a pass without any curve uses the other pass's */
        bool any = false;
        for (int m = 0; m < RS_KMASK_COUNT; m++) any |= find_curve(t, kernel, dtype, d, pass, m) >= 0;
        if (!any) {
            src = 1 - pass;
            note(out, "kernel %s has no %s curve: its %s curves stand in", kn, rs_pass_name((rs_pass_t)pass),
                 rs_pass_name((rs_pass_t)src));
        }
        for (int m = 0; m < RS_KMASK_COUNT; m++) {
            int idx = find_curve(t, kernel, dtype, d, src, m);
            for (int j = 0; idx < 0 && j < RS_KMASK_COUNT - 1; j++) {
                idx = find_curve(t, kernel, dtype, d, src, order[m][j]);
                if (idx >= 0)
                    note(out, "kernel %s has no %s %s curve: using its %s curve%s", kn, rs_pass_name((rs_pass_t)src),
                         rs_kmask_name((rs_kmask_t)m), rs_kmask_name((rs_kmask_t)order[m][j]),
                         t->curve[idx].shape_from && (m == RS_KMASK_FULL) != (order[m][j] == RS_KMASK_FULL)
                             ? " at its one point for every shape" : "");
                /* a one-point curve standing in across full <-> diagonal (causal, shifted): its flat twin, the
                 * borrowed shape being its own mask class's */
                const bool across = idx >= 0 && (m == RS_KMASK_FULL) != (t->curve[idx].mask == RS_KMASK_FULL);
                for (int w = t->n_curves; across && t->curve[idx].shape_from && w < t->n_curves + t->n_twins; w++)
                    if (t->curve[w].twin_of == idx + 1) idx = w;
            }
            out->idx[pass][m] = idx; /* >= 0: the dtype and head_dim have at least one curve */
            const rs_kcurve_t *c = &t->curve[idx], *o = c->shape_from > 0 ? &t->curve[c->shape_from - 1] : NULL;
            if (c->derived && c->mask_of)
                note(out, "kernel %s has no %s %s curve for head_dim %lld: its %s curve times its head_dim %lld %s / %s ratio at each shape",
                     kn, rs_pass_name((rs_pass_t)c->pass), rs_kmask_name(c->mask), (long long)c->head_dim,
                     rs_kmask_name((rs_kmask_t)(c->mask_of - 1)), (long long)c->ratio_head_dim, rs_kmask_name(c->mask),
                     rs_kmask_name((rs_kmask_t)(c->mask_of - 1)));
            else if (c->derived && t->kernel[kernel].backward_from[0])
                note(out, "kernel %s has no measured backward here: its backward rates are its forward rates times %s's %s "
                     "backward / forward ratio at each shape", kn, t->kernel[kernel].backward_from, kn);
            else if (c->derived)
                note(out, "kernel %s has no backward curve for head_dim %lld: its backward rates are its forward rates times its "
                     "head_dim %lld backward / forward ratio at each shape", kn, (long long)c->head_dim, (long long)c->ratio_head_dim);
            if (o)
                note(out, "kernel %s's %s %s curve (head_dim %lld) has one point, %gx%g tokens: its shape over sequence length borrowed "
                     "from its %s %s curve (head_dim %lld), scaled through that point", kn, rs_pass_name((rs_pass_t)c->pass),
                     rs_kmask_name(c->mask), (long long)c->head_dim, c->pt[0].q_tokens, c->pt[0].k_tokens,
                     rs_pass_name((rs_pass_t)o->pass), rs_kmask_name(o->mask), (long long)o->head_dim);
        }
    }
    return 0;
}

int rs_kernel_index(const rs_kernel_table_t *t, int kernel, int dtype, rs_kindex_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < t->n_curves; i++) { /* the head_dims the kernel has for the dtype, increasing */
        const rs_kcurve_t *c = &t->curve[i];
        if (c->kernel != kernel || !(c->dtypes >> dtype & 1u)) continue;
        int j = 0;
        while (j < out->n && out->head_dim[j] < c->head_dim) j++;
        if (j < out->n && out->head_dim[j] == c->head_dim) continue;
        if (out->n >= RS_KMAX_HEAD_DIMS)
            return rs_errc(err, RS_ERR_BAD_INPUT, "kernel %s: more than %d head_dims for %s", t->kernel[kernel].name, RS_KMAX_HEAD_DIMS,
                           rs_dtype_name((rs_dtype_t)dtype));
        memmove(&out->head_dim[j + 1], &out->head_dim[j], sizeof out->head_dim[0] * (size_t)(out->n - j));
        out->head_dim[j] = c->head_dim;
        out->n++;
    }
    for (int j = 0; j < out->n; j++) {
        rs_kresolve_t r;
        if (rs_kernel_resolve(t, kernel, dtype, out->head_dim[j], &r, err)) return -1;
        for (int pass = 0; pass < 2; pass++)
            for (int m = 0; m < RS_KMASK_COUNT; m++) out->idx[j][pass][m] = (signed char)r.idx[pass][m];
    }
    if (out->n == 0) return rs_kernel_resolve(t, kernel, dtype, 0, &(rs_kresolve_t){0}, err); /* its message */
    return 0;
}

const signed char (*rs_kindex_find(const rs_kindex_t *x, int64_t d))[RS_KMASK_COUNT] {
    int best = 0; /* nearest head_dim, the smaller on a tie (they increase) */
    for (int j = 1; j < x->n; j++)
        if (llabs(x->head_dim[j] - d) < llabs(x->head_dim[best] - d)) best = j;
    return (const signed char(*)[RS_KMASK_COUNT])x->idx[best];
}
