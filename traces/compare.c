/* compare.c - two traces aligned by (rank, step, pass, kind) and compared: per-step and makespan
 * errors, their statistics, the table and the CSV; the problem and event checks before; the summary of
 * one trace's pass; the crossover block size of measured points (compare.h). */
#include "compare.h"
#include "output.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *rs_cmp_metric_name(rs_cmp_metric_t m) {
    static const char *const names[RS_CMP_METRIC_COUNT + RS_ROLE_COUNT] = {"t_comp", "t_comm", "t_step", "attn_busy",
                                                                           "merge_busy", "cast_busy", "other_busy"};
    return ((int)m >= 0 && (int)m < RS_CMP_METRIC_COUNT + RS_ROLE_COUNT) ? names[m] : "?";
}

const char *rs_cmp_role_status_name(rs_cmp_role_status_t s) {
    static const char *const names[] = {"compared", "reference-only", "other-only", "absent"};
    return ((int)s >= 0 && (int)s <= RS_CMP_ROLE_NEITHER) ? names[s] : "?";
}

/* ------------------------------------------------------------------------------------------------
 * Problem check
 * ---------------------------------------------------------------------------------------------- */
int rs_compare_check_headers(const rs_trace_t *ref, const rs_trace_t *other, const char *name_ref,
                             const char *name_other, rs_err_t *err) {
    rs_problem_t a, b;
    rs_err_t e = {0};
    if (rs_trace_problem(ref, &a, &e) != 0) return rs_errc(err, e.code, "%s: %s", name_ref, e.msg);
    if (rs_trace_problem(other, &b, &e) != 0) return rs_errc(err, e.code, "%s: %s", name_other, e.msg);
    char diff[900] = "";
    size_t len = 0;
#define RS_DIFF_INT(f)                                                                             \
    if (a.f != b.f && len < sizeof diff - 80)                                                      \
        len += (size_t)snprintf(diff + len, sizeof diff - len, "%s%s %lld vs %lld", len ? ", " : "", #f, \
                                (long long)a.f, (long long)b.f);
    RS_DIFF_INT(seq_tokens)
    RS_DIFF_INT(n_ranks)
    RS_DIFF_INT(batch)
    RS_DIFF_INT(q_heads)
    RS_DIFF_INT(kv_heads)
    RS_DIFF_INT(head_dim)
    RS_DIFF_INT(act_bytes)
    RS_DIFF_INT(grad_bytes)
    RS_DIFF_INT(causal)
    RS_DIFF_INT(tile_q)
    RS_DIFF_INT(tile_k)
#undef RS_DIFF_INT
    if (a.layout != b.layout && len < sizeof diff - 80)
        len += (size_t)snprintf(diff + len, sizeof diff - len, "%slayout %s vs %s", len ? ", " : "",
                                rs_layout_name(a.layout), rs_layout_name(b.layout));
    if (a.pass != b.pass && len < sizeof diff - 80)
        len += (size_t)snprintf(diff + len, sizeof diff - len, "%spass %s vs %s", len ? ", " : "",
                                rs_pass_name(a.pass), rs_pass_name(b.pass));
    if (len) return rs_errc(err, RS_ERR_BAD_INPUT, "%s and %s describe different problems: %s", name_ref, name_other, diff);
    return 0;
}

int rs_compare_check_problem(const rs_trace_t *ref, const rs_trace_t *other, const char *name_ref,
                             const char *name_other, rs_err_t *err) {
    if (rs_compare_check_headers(ref, other, name_ref, name_other, err) != 0 || rs_compare_check_events(ref, name_ref, err) != 0)
        return -1;
    return rs_compare_check_events(other, name_other, err);
}

/* A crossover point is usable when b, t_comp and t_comm are all finite and > 0. */
static bool cross_point_ok(const double *b, const double *t_comp, const double *t_comm, size_t i) {
    return b[i] > 0 && t_comp[i] > 0 && t_comm[i] > 0 && isfinite(b[i]) && isfinite(t_comp[i]) && isfinite(t_comm[i]);
}

double rs_crossover_b(const double *b, const double *t_comp, const double *t_comm, size_t n) {
    double pb = NAN, pr = NAN; /* previous valid point: log b, log ratio */
    for (size_t i = 0; i < n; i++) {
        if (!cross_point_ok(b, t_comp, t_comm, i)) continue;
        double lb = log(b[i]), lr = log(t_comm[i] / t_comp[i]);
        if (lr == 0) return b[i];
        if (!isnan(pr) && (pr > 0) != (lr > 0)) return exp(pb + (lb - pb) * (0 - pr) / (lr - pr));
        pb = lb;
        pr = lr;
    }
    return NAN;
}

double rs_crossover_b_fit(const double *b, const double *t_comp, const double *t_comm, size_t n, int half) {
    const double bx = rs_crossover_b(b, t_comp, t_comm, n);
    if (isnan(bx) || half < 1) return bx;
    /* the valid points, in order; the first sign change is between v[j-1] and v[j] */
    double lb[256], lr[256];
    size_t m = 0, j = 0;
    for (size_t i = 0; i < n && m < 256; i++) {
        if (!cross_point_ok(b, t_comp, t_comm, i)) continue;
        lb[m] = log(b[i]), lr[m] = log(t_comm[i] / t_comp[i]);
        if (!j && m > 0 && (lr[m] == 0 || (lr[m - 1] > 0) != (lr[m] > 0))) j = m;
        m++;
    }
    if (!j) return bx; /* the crossing is a point with ratio exactly 1 at the start */
    const size_t lo = j >= (size_t)half ? j - (size_t)half : 0, hi = j + (size_t)half < m ? j + (size_t)half : m;
    if (hi - lo < 3) return bx;
    double sx = 0, sy = 0, sxx = 0, sxy = 0, k = (double)(hi - lo);
    for (size_t i = lo; i < hi; i++) sx += lb[i], sy += lr[i], sxx += lb[i] * lb[i], sxy += lb[i] * lr[i];
    const double den = k * sxx - sx * sx;
    if (!(den > 0)) return bx;
    const double slope = (k * sxy - sx * sy) / den, icpt = (sy - slope * sx) / k;
    /* the line must cross the way the data do (sign of lr[j] - lr[j-1]) and inside the points used */
    if (slope == 0 || (slope > 0) != (lr[j] > lr[j - 1])) return bx;
    const double x0 = -icpt / slope;
    if (!(x0 >= lb[lo] && x0 <= lb[hi - 1])) return bx;
    return exp(x0);
}

/* Order of (pass, rank, step) only. */
static int step_cmp(const rs_event_t *a, const rs_event_t *b) {
    if (a->pass != b->pass) return a->pass < b->pass ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->step != b->step) return a->step < b->step ? -1 : 1;
    return 0;
}
static int same_step(const rs_event_t *a, const rs_event_t *b) { return step_cmp(a, b) == 0; }

/* A sorted copy of n items of size bytes at src (room for one when n is 0); NULL on OOM. */
static void *sorted_dup(const void *src, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
    void *d = malloc((n ? n : 1) * size);
    if (!d) return NULL;
    if (n) memcpy(d, src, n * size);
    qsort(d, n, size, cmp);
    return d;
}

static rs_event_t *sorted_copy(const rs_trace_t *t) {
    return sorted_dup(rs_trace_events(t), rs_trace_count(t), sizeof(rs_event_t), rs_event_key_qcmp);
}

int rs_compare_check_events(const rs_trace_t *t, const char *name, rs_err_t *err) {
    rs_problem_t p;
    rs_err_t e = {0};
    if (rs_trace_problem(t, &p, &e) != 0) return rs_errc(err, e.code, "%s: %s", name, e.msg);
    const int64_t n_steps = p.pass == RS_PASS_BACKWARD ? p.n_ranks + 1 : p.n_ranks; /* schedule.h */
    const char *pass = rs_pass_name(p.pass);
    const size_t n = rs_trace_count(t);
    if (n == 0) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: no events (the header's problem has %lld ranks x %lld %s steps)", name, (long long)p.n_ranks, (long long)n_steps, pass);
    rs_event_t *ev = sorted_copy(t);
    if (!ev) return rs_errf(err, "%s: out of memory", name);
    int64_t want = 0; /* the next (rank, step) expected, as rank * n_steps + step */
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0;) {
        const rs_event_t *x = &ev[i];
        size_t j = i;
        bool has_step = false;
        for (; j < n && same_step(&ev[j], x); j++) has_step |= ev[j].kind == RS_EV_STEP;
        if (x->pass != p.pass)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d step %d has a %s %s event in a %s trace (header pass=%s)", name, (int)x->rank,
                         (int)x->step, rs_pass_name(x->pass), rs_event_kind_name(x->kind), pass, pass);
        else if (x->rank >= p.n_ranks)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d (step %d %s) is out of range: the header's problem has ranks 0 to %lld", name,
                         (int)x->rank, (int)x->step, rs_event_kind_name(x->kind), (long long)p.n_ranks - 1);
        else if (x->step >= n_steps)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d step %d (%s) is out of range: a %s pass of %lld ranks has steps 0 to %lld", name,
                         (int)x->rank, (int)x->step, rs_event_kind_name(x->kind), pass, (long long)p.n_ranks,
                         (long long)n_steps - 1);
        else if ((int64_t)x->rank * n_steps + x->step != want)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %lld step %lld has no events (the header's problem has %lld ranks x %lld %s steps): "
                         "a cut or partial trace", name, (long long)(want / n_steps), (long long)(want % n_steps),
                         (long long)p.n_ranks, (long long)n_steps, pass);
        else if (!has_step)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d step %d has no 'step' event (every step of every rank has one): a cut or partial trace",
                         name, (int)x->rank, (int)x->step);
        want++;
        i = j;
    }
    if (rc == 0 && want != p.n_ranks * n_steps)
        rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %lld step %lld has no events (the header's problem has %lld ranks x %lld %s steps): "
                     "a cut or partial trace", name, (long long)(want / n_steps), (long long)(want % n_steps),
                     (long long)p.n_ranks, (long long)n_steps, pass);
    free(ev);
    return rc;
}

/* Durations of one (pass, rank, step) group [lo, hi) per metric; has[m] says whether present. */
static void group_durations(const rs_event_t *e, size_t lo, size_t hi, double dur[RS_CMP_METRIC_COUNT],
                            int has[RS_CMP_METRIC_COUNT]) {
    for (int m = 0; m < RS_CMP_METRIC_COUNT; m++) dur[m] = 0, has[m] = 0;
    for (size_t i = lo; i < hi; i++) {
        double d = e[i].end_s - e[i].start_s;
        switch (e[i].kind) {
        case RS_EV_COMPUTE: dur[RS_CMP_COMP] = d, has[RS_CMP_COMP] = 1; break;
        case RS_EV_RECV: /* T_comm: the next block's arrival (a send's end is only when the sender sees it) */
            dur[RS_CMP_COMM] = has[RS_CMP_COMM] ? fmax(dur[RS_CMP_COMM], d) : d;
            has[RS_CMP_COMM] = 1;
            break;
        case RS_EV_STEP: dur[RS_CMP_STEP] = d, has[RS_CMP_STEP] = 1; break;
        default: break;
        }
    }
}

static void stats_of(const rs_compare_t *c, rs_cmp_metric_t m, double *scratch, rs_cmp_stats_t *s) {
    memset(s, 0, sizeof *s);
    s->worst.rank = s->worst.step = -1;
    s->median_abs = s->p95_abs = s->max_abs = s->worst.rel_err = NAN;
    size_t n = 0;
    for (size_t i = 0; i < c->n_points; i++) {
        const rs_cmp_point_t *p = &c->points[i];
        if (p->metric != m) continue;
        if (isnan(p->rel_err)) {
            s->n_undefined++;
            continue;
        }
        double a = fabs(p->rel_err);
        scratch[n++] = a;
        if (s->worst.rank < 0 || a > s->max_abs) {
            s->max_abs = a;
            s->worst = *p;
        }
    }
    s->n = n;
    if (n) {
        s->median_abs = rs_median(scratch, n);
        s->p95_abs = rs_percentile(scratch, n, 0.95);
    }
}

/* The role events of t, sorted by (pass, rank, step, role); NULL on OOM. */
static rs_role_event_t *sorted_roles(const rs_trace_t *t) {
    return sorted_dup(rs_trace_roles(t), rs_trace_role_count(t), sizeof(rs_role_event_t), rs_role_event_qcmp);
}

/* Order of (pass, rank, step) of two role events. */
static int role_step_cmp(const rs_role_event_t *a, const rs_role_event_t *b) {
    if (a->pass != b->pass) return a->pass < b->pass ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return (a->step > b->step) - (a->step < b->step);
}

/* The roles of both traces (compare.h, "Per role"): each role's status, sums, shares, and for a role
 * both have, its points appended to out->points (room for every role event of both is there) and
 * their statistics. scratch: room for as many doubles. */
static void compare_roles(const rs_trace_t *ref, const rs_trace_t *other, const rs_role_event_t *ra,
                          const rs_role_event_t *rb, rs_compare_t *out, double *scratch) {
    const size_t na = rs_trace_role_count(ref), nb = rs_trace_role_count(other);
    bool in_a[RS_ROLE_COUNT] = {0}, in_b[RS_ROLE_COUNT] = {0};
    double tot_a = 0, tot_b = 0;
    for (size_t i = 0; i < na; i++) in_a[ra[i].role] = true, out->role[ra[i].role].ref_busy_s += ra[i].busy_s, tot_a += ra[i].busy_s;
    for (size_t i = 0; i < nb; i++) in_b[rb[i].role] = true, out->role[rb[i].role].other_busy_s += rb[i].busy_s, tot_b += rb[i].busy_s;
    for (int r = 0; r < RS_ROLE_COUNT; r++) {
        rs_cmp_role_t *x = &out->role[r];
        x->status = in_a[r] && in_b[r] ? RS_CMP_ROLE_BOTH : in_a[r] ? RS_CMP_ROLE_REF_ONLY : in_b[r] ? RS_CMP_ROLE_OTHER_ONLY : RS_CMP_ROLE_NEITHER;
        x->ref_share = tot_a > 0 ? x->ref_busy_s / tot_a : NAN;
        x->other_share = tot_b > 0 ? x->other_busy_s / tot_b : NAN;
        x->ratio = x->status == RS_CMP_ROLE_BOTH && x->ref_busy_s > 0 ? x->other_busy_s / x->ref_busy_s : NAN;
        const size_t first = out->n_points;
        if (x->status == RS_CMP_ROLE_BOTH) /* merge the two sorted lists, role r only */
            for (size_t i = 0, j = 0; i < na || j < nb;) {
                if (i < na && ra[i].role != (rs_role_t)r) { i++; continue; }
                if (j < nb && rb[j].role != (rs_role_t)r) { j++; continue; }
                const int c = i < na && j < nb ? role_step_cmp(&ra[i], &rb[j]) : (i < na ? -1 : 1);
                const rs_role_event_t *k = c <= 0 ? &ra[i] : &rb[j];
                const double a = c <= 0 ? ra[i].busy_s : 0, b = c >= 0 ? rb[j].busy_s : 0;
                const double rel = a > 0 ? (b - a) / a : (b == 0 ? 0.0 : NAN);
                out->points[out->n_points++] = (rs_cmp_point_t){k->rank, k->step, k->pass, RS_CMP_ROLE_METRIC(r), a, b, rel};
                i += c <= 0, j += c >= 0;
            }
        rs_compare_t view = {.points = out->points + first, .n_points = out->n_points - first};
        stats_of(&view, RS_CMP_ROLE_METRIC(r), scratch, &x->stats);
    }
}

int rs_compare_traces(const rs_trace_t *ref, const rs_trace_t *other, rs_compare_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    size_t na = rs_trace_count(ref), nb = rs_trace_count(other);
    const size_t nr = rs_trace_role_count(ref) + rs_trace_role_count(other);
    rs_event_t *a = sorted_copy(ref), *b = sorted_copy(other);
    rs_role_event_t *ra = sorted_roles(ref), *rb = sorted_roles(other);
    /* at most one point per REF event, and one per role event of either trace */
    rs_cmp_point_t *pts = malloc((na + nr + 1) * sizeof *pts);
    double *scratch = malloc((na + nr + 1) * sizeof *scratch);
    if (!a || !b || !ra || !rb || !pts || !scratch) {
        free(a), free(b), free(ra), free(rb), free(pts), free(scratch);
        return rs_errf(err, "compare: out of memory");
    }
    size_t np = 0, i = 0, j = 0, matched = 0;
    while (i < na || j < nb) {
        /* the next (pass, rank, step) group present in either trace */
        rs_event_t key = (i < na && (j >= nb || step_cmp(&a[i], &b[j]) <= 0)) ? a[i] : b[j];
        size_t ia = i, ib = j;
        while (ia < na && same_step(&a[ia], &key)) ia++;
        while (ib < nb && same_step(&b[ib], &key)) ib++;
        /* count unmatched kinds inside the group */
        for (size_t x = i, y = j; x < ia || y < ib;) {
            int c = x < ia && y < ib ? rs_event_key_cmp(&a[x], &b[y]) : (x < ia ? -1 : 1);
            if (c == 0) matched++, x++, y++;
            else if (c < 0) out->only_ref++, x++;
            else out->only_other++, y++;
        }
        double da[RS_CMP_METRIC_COUNT], db[RS_CMP_METRIC_COUNT];
        int ha[RS_CMP_METRIC_COUNT], hb[RS_CMP_METRIC_COUNT];
        group_durations(a, i, ia, da, ha);
        group_durations(b, j, ib, db, hb);
        for (int m = 0; m < RS_CMP_METRIC_COUNT; m++) {
            if (!ha[m] || !hb[m]) continue;
            double rel = da[m] > 0 ? (db[m] - da[m]) / da[m] : (db[m] == 0 ? 0.0 : NAN);
            pts[np++] = (rs_cmp_point_t){key.rank, key.step, key.pass, (rs_cmp_metric_t)m, da[m], db[m], rel};
        }
        i = ia;
        j = ib;
    }
    free(a);
    free(b);
    if (matched == 0) {
        free(ra), free(rb);
        free(pts);
        free(scratch);
        return rs_errc(err, RS_ERR_BAD_INPUT, "compare: no event of one trace matches an event of the other by (rank, step, pass, kind)");
    }
    out->points = pts;
    out->n_points = np;
    for (int m = 0; m < RS_CMP_METRIC_COUNT; m++) stats_of(out, (rs_cmp_metric_t)m, scratch, &out->stats[m]);
    compare_roles(ref, other, ra, rb, out, scratch);
    free(ra), free(rb);
    free(scratch);
    out->makespan_ref_s = rs_trace_makespan(ref);
    out->makespan_other_s = rs_trace_makespan(other);
    out->makespan_rel = out->makespan_ref_s > 0
                            ? (out->makespan_other_s - out->makespan_ref_s) / out->makespan_ref_s
                            : (out->makespan_other_s == 0 ? 0.0 : NAN);
    return 0;
}

int rs_trace_summarize(const rs_trace_t *t, rs_pass_t pass, rs_trace_summary_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    size_t n = rs_trace_count(t);
    rs_event_t *e = sorted_copy(t);
    /* vx, va: compute of the steps that transfer, of those that do not; vs: the step durations of the
     * steps that compute */
    double *v[RS_CMP_METRIC_COUNT], *vx = malloc((n + 1) * sizeof *vx), *va = malloc((n + 1) * sizeof *va);
    double *vs = malloc((n + 1) * sizeof *vs);
    for (int m = 0; m < RS_CMP_METRIC_COUNT; m++) v[m] = malloc((n + 1) * sizeof *v[m]);
    size_t cnt[RS_CMP_METRIC_COUNT] = {0, 0, 0}, nx = 0, na = 0, ns = 0, ranks = 0;
    int rc = 0;
    if (!e || !v[0] || !v[1] || !v[2] || !vx || !va || !vs) rc = rs_errf(err, "summary: out of memory");
    double lo = INFINITY, hi = -INFINITY, busy = 0;
    for (size_t i = 0; rc == 0 && i < n;) {
        size_t j = i;
        while (j < n && same_step(&e[j], &e[i])) j++;
        if (e[i].pass == pass) {
            double d[RS_CMP_METRIC_COUNT];
            int has[RS_CMP_METRIC_COUNT];
            group_durations(e, i, j, d, has);
            for (int m = 0; m < RS_CMP_METRIC_COUNT; m++)
                if (has[m]) v[m][cnt[m]++] = d[m];
            if (has[RS_CMP_COMP] && has[RS_CMP_COMM]) vx[nx++] = d[RS_CMP_COMP];
            else if (has[RS_CMP_COMP]) va[na++] = d[RS_CMP_COMP];
            if (has[RS_CMP_COMP] && has[RS_CMP_STEP]) vs[ns++] = fmax(d[RS_CMP_STEP], d[RS_CMP_COMP]);
            if (has[RS_CMP_COMP]) busy += d[RS_CMP_COMP];
            ranks += i == 0 || e[i - 1].pass != pass || e[i - 1].rank != e[i].rank; /* sorted by (pass, rank, step) */
            for (size_t k = i; k < j; k++) lo = fmin(lo, e[k].start_s), hi = fmax(hi, e[k].end_s);
        }
        i = j;
    }
    if (rc == 0 && !(hi >= lo)) rc = rs_errc(err, RS_ERR_BAD_INPUT, "summary: the trace has no %s event", rs_pass_name(pass));
    if (rc == 0) {
        out->t_comp_s = rs_median(v[RS_CMP_COMP], out->n_comp = cnt[RS_CMP_COMP]);
        out->t_comm_s = rs_median(v[RS_CMP_COMM], out->n_comm = cnt[RS_CMP_COMM]);
        out->t_step_s = rs_median(v[RS_CMP_STEP], out->n_step = cnt[RS_CMP_STEP]);
        out->t_comp_xfer_s = rs_median(vx, out->n_comp_xfer = nx);
        out->t_comp_alone_s = rs_median(va, out->n_comp_alone = na);
        out->t_step_comp_s = rs_median(vs, ns);
        out->makespan_s = hi - lo;
        out->n_ranks = ranks;
        out->busy_mean_s = ranks ? busy / (double)ranks : 0;
    }
    free(e);
    free(vx);
    free(va);
    free(vs);
    for (int m = 0; m < RS_CMP_METRIC_COUNT; m++) free(v[m]);
    return rc;
}

double rs_trace_overlap_efficiency(const rs_trace_summary_t *s) {
    return s->t_step_comp_s > 0 ? s->t_comp_s / s->t_step_comp_s : NAN;
}

void rs_compare_free(rs_compare_t *c) {
    free(c->points);
    memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------------------------------------------
 * Output
 * ---------------------------------------------------------------------------------------------- */
/* Signed percentage ("+10.00%") or "-" for NaN. */
static const char *pct(double x, char *buf, size_t len) {
    if (isnan(x)) snprintf(buf, len, "-");
    else snprintf(buf, len, "%+.2f%%", 100.0 * x);
    return buf;
}
/* Unsigned percentage ("10.00%") or "-" for NaN. */
static const char *apct(double x, char *buf, size_t len) {
    if (isnan(x)) snprintf(buf, len, "-");
    else snprintf(buf, len, "%.2f%%", 100.0 * x);
    return buf;
}

/* Whether REF (ref true) or OTHER has role events: some role is in it (its status). */
static bool has_roles(const rs_compare_t *c, bool ref) {
    for (int r = 0; r < RS_ROLE_COUNT; r++)
        if (c->role[r].status == RS_CMP_ROLE_BOTH || c->role[r].status == (ref ? RS_CMP_ROLE_REF_ONLY : RS_CMP_ROLE_OTHER_ONLY))
            return true;
    return false;
}

/* What an unmatched or absent role lacks, after its row. */
static void role_note(const rs_compare_t *c, rs_role_t r, const char *name_ref, const char *name_other, FILE *out) {
    const char *role = rs_role_name(r);
    switch (c->role[r].status) {
    case RS_CMP_ROLE_REF_ONLY:
        if (has_roles(c, false)) fprintf(out, "  %s has no %s events: unmatched, in no ratio\n", name_other, role);
        else fprintf(out, "  %s has no role events: unmatched, in no ratio\n", name_other);
        break;
    case RS_CMP_ROLE_OTHER_ONLY:
        if (has_roles(c, true)) fprintf(out, "  %s has no %s events: unmatched, in no ratio\n", name_ref, role);
        else fprintf(out, "  %s has no role events: unmatched, in no ratio\n", name_ref);
        break;
    case RS_CMP_ROLE_NEITHER: fprintf(out, "  absent in both\n"); break;
    default: fputc('\n', out); break;
    }
}

/* The per-role rows (compare.h), when either trace has role events. */
static void print_roles(const rs_compare_t *c, const char *name_ref, const char *name_other, FILE *out) {
    if (!has_roles(c, true) && !has_roles(c, false)) return;
    char b1[32], b2[32], b3[32], b4[32], b5[32], t1[32], t2[32];
    fprintf(out, "# per role: busy time (the union of its kernels' intervals) summed over (rank, step); ratio = other / "
                 "reference; share = of the trace's busy time over all roles\n");
    fprintf(out, "%-8s %7s %11s %11s %8s %11s %11s %9s %9s\n", "role", "points", "reference", "other", "ratio",
            "median|err|", "p95|err|", "ref share", "oth share");
    for (int r = 0; r < RS_ROLE_COUNT; r++) {
        const rs_cmp_role_t *x = &c->role[r];
        const bool a = x->status == RS_CMP_ROLE_BOTH || x->status == RS_CMP_ROLE_REF_ONLY;
        const bool b = x->status == RS_CMP_ROLE_BOTH || x->status == RS_CMP_ROLE_OTHER_ONLY;
        fprintf(out, "%-8s %7zu %11s %11s %8s %11s %11s %9s %9s", rs_role_name((rs_role_t)r), x->stats.n,
                a ? rs_fmt_time(x->ref_busy_s, t1, sizeof t1) : "-", b ? rs_fmt_time(x->other_busy_s, t2, sizeof t2) : "-",
                rs_fmt_num(x->ratio, "%.3f", b1, sizeof b1), apct(x->stats.median_abs, b2, sizeof b2),
                apct(x->stats.p95_abs, b3, sizeof b3), a ? apct(x->ref_share, b4, sizeof b4) : "-",
                b ? apct(x->other_share, b5, sizeof b5) : "-");
        role_note(c, (rs_role_t)r, name_ref, name_other, out);
        if (x->stats.n_undefined)
            fprintf(out, "#   %s: %zu pairs with a zero reference busy time not counted\n", rs_role_name((rs_role_t)r),
                    x->stats.n_undefined);
    }
}

void rs_compare_print(const rs_compare_t *c, const char *name_ref, const char *name_other, FILE *out) {
    char b1[32], b2[32], b3[32], b4[32], t1[32], t2[32];
    fprintf(out, "# reference: %s\n# other:     %s\n# error = (other - reference) / reference\n", name_ref,
            name_other);
    fprintf(out, "%-8s %7s %11s %11s %11s %10s  %-24s %11s %11s\n", "metric", "points", "median|err|",
            "p95|err|", "max|err|", "worst", "at (rank, step, pass)", "reference", "other");
    for (int m = 0; m < RS_CMP_METRIC_COUNT; m++) {
        const rs_cmp_stats_t *s = &c->stats[m];
        char where[48] = "-";
        if (s->worst.rank >= 0)
            snprintf(where, sizeof where, "(%d, %d, %s)", (int)s->worst.rank, (int)s->worst.step,
                     rs_pass_name(s->worst.pass));
        fprintf(out, "%-8s %7zu %11s %11s %11s %10s  %-24s %11s %11s\n", rs_cmp_metric_name((rs_cmp_metric_t)m),
                s->n, apct(s->median_abs, b1, sizeof b1), apct(s->p95_abs, b2, sizeof b2),
                apct(s->max_abs, b3, sizeof b3), pct(s->worst.rel_err, b4, sizeof b4),
                where, s->worst.rank >= 0 ? rs_fmt_time(s->worst.ref_s, t1, sizeof t1) : "-",
                s->worst.rank >= 0 ? rs_fmt_time(s->worst.other_s, t2, sizeof t2) : "-");
        if (s->n_undefined)
            fprintf(out, "#   %s: %zu pairs with a zero reference duration not counted\n",
                    rs_cmp_metric_name((rs_cmp_metric_t)m), s->n_undefined);
    }
    fprintf(out, "%-8s %7s %11s %11s %11s %10s  %-24s %11s %11s\n", "makespan", "1", "", "", "",
            pct(c->makespan_rel, b1, sizeof b1), "", rs_fmt_time(c->makespan_ref_s, t1, sizeof t1),
            rs_fmt_time(c->makespan_other_s, t2, sizeof t2));
    if (c->only_ref || c->only_other)
        fprintf(out, "# unmatched events: %zu only in the reference, %zu only in the other\n", c->only_ref,
                c->only_other);
    print_roles(c, name_ref, name_other, out);
}

int rs_compare_write_csv(const rs_compare_t *c, const char *name_ref, const char *name_other,
                         const char *path, rs_err_t *err) {
    rs_file_t f;
    if (rs_file_open(&f, path, err) != 0) return -1;
    FILE *fp = f.fp;
    const bool roles = has_roles(c, true) || has_roles(c, false);
    fprintf(fp, "# ringsim-compare=%d\n# reference=%s\n# other=%s\n# error=(other-reference)/reference\n",
            roles ? 2 : 1, name_ref, name_other);
    for (int m = 0; m < RS_CMP_METRIC_COUNT; m++) {
        const rs_cmp_stats_t *s = &c->stats[m];
        fprintf(fp, "# %s: n=%zu median_abs=%.17g p95_abs=%.17g max_abs=%.17g worst_rank=%d worst_step=%d worst_pass=%s\n",
                rs_cmp_metric_name((rs_cmp_metric_t)m), s->n, s->median_abs, s->p95_abs, s->max_abs,
                (int)s->worst.rank, (int)s->worst.step, rs_pass_name(s->worst.pass));
    }
    fprintf(fp, "# makespan: reference_s=%.17g other_s=%.17g rel_err=%.17g\n", c->makespan_ref_s,
            c->makespan_other_s, c->makespan_rel);
    for (int r = 0; roles && r < RS_ROLE_COUNT; r++) {
        const rs_cmp_role_t *x = &c->role[r];
        char v[6][32];
        fprintf(fp, "# role %s: status=%s n=%zu ref_busy_s=%.17g other_busy_s=%.17g ratio=%s median_abs=%s "
                    "p95_abs=%s max_abs=%s ref_share=%s other_share=%s\n",
                rs_role_name((rs_role_t)r), rs_cmp_role_status_name(x->status), x->stats.n, x->ref_busy_s, x->other_busy_s,
                rs_fmt_num(x->ratio, "%.17g", v[0], sizeof v[0]), rs_fmt_num(x->stats.median_abs, "%.17g", v[1], sizeof v[1]),
                rs_fmt_num(x->stats.p95_abs, "%.17g", v[2], sizeof v[2]), rs_fmt_num(x->stats.max_abs, "%.17g", v[3], sizeof v[3]),
                rs_fmt_num(x->ref_share, "%.17g", v[4], sizeof v[4]), rs_fmt_num(x->other_share, "%.17g", v[5], sizeof v[5]));
    }
    fprintf(fp, "rank,step,pass,metric,ref_s,other_s,rel_err\n");
    for (size_t i = 0; i < c->n_points; i++) {
        const rs_cmp_point_t *p = &c->points[i];
        fprintf(fp, "%d,%d,%s,%s,%.17g,%.17g,%.17g\n", (int)p->rank, (int)p->step, rs_pass_name(p->pass),
                rs_cmp_metric_name(p->metric), p->ref_s, p->other_s, p->rel_err);
    }
    return rs_file_commit(&f, err);
}
