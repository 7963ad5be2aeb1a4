/* study_fromtrace_fit.c - the fit of a profile to traces of a run (study_fromtrace_fit.h): the
 * samples of every trace (transfers, computes), the compute points, the transport, host cost and
 * overlap, F_eff(B), the kernel table; the profile; the fit's tables. */
#include "study_fromtrace_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* One compute event of a step that executes FLOPs. */
typedef struct {
    int64_t block;
    int pass, kind;
    int64_t q, k;
    uint64_t fx, fu;     /* executed, useful FLOPs (schedule) */
    int busy;            /* the step receives */
    uint64_t bytes;      /* it receives (schedule) */
    int n_flows;
    double d;            /* compute duration */
    double tx;           /* the step's transfer sample (NaN: none) */
} csample_t;

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }
static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

/* The key of a point: (B, pass, kind, q, k, flops). */
static int point_cmp(const csample_t *a, const csample_t *b) {
    int c = cmp_i64(a->block, b->block);
    if (!c) c = cmp_i64(a->pass, b->pass);
    if (!c) c = cmp_i64(a->kind, b->kind);
    if (!c) c = cmp_i64(a->q, b->q);
    if (!c) c = cmp_i64(a->k, b->k);
    if (!c) c = cmp_u64(a->fx, b->fx);
    return c;
}
/* Then alone before busy, busy by received bytes. */
static int csample_qcmp(const void *x, const void *y) {
    const csample_t *a = x, *b = y;
    int c = point_cmp(a, b);
    if (!c) c = cmp_i64(a->busy, b->busy);
    if (!c) c = cmp_u64(a->bytes, b->bytes);
    return c;
}

typedef struct {
    uint64_t bytes;
    double t;
} xsample_t;

static int xsample_qcmp(const void *x, const void *y) {
    const xsample_t *a = x, *b = y;
    return cmp_u64(a->bytes, b->bytes);
}

/* The samples of every trace, and two scratch arrays of as many values. */
typedef struct {
    xsample_t *xs;       /* transfers */
    size_t n_xs;
    csample_t *cs;       /* computes (sorted by csample_qcmp once collected) */
    size_t n_cs;
    double *tmp, *tmp2;  /* max(n_xs, n_cs) + 1 each */
} samples_t;

/* The transfer sample of a recv event: its end from the moment both ends posted (the later of its
 * start and its sender's send start at that step). */
static double xfer_time(const rs_trace_t *t, const rs_event_t *recv, int32_t sender) {
    double post = recv->start_s;
    const long j = rs_trace_find(t, sender, recv->step, recv->pass, RS_EV_SEND);
    if (j >= 0 && rs_trace_events(t)[j].start_s > post) post = rs_trace_events(t)[j].start_s;
    return recv->end_s - post;
}

/* The traces' file names, comma-separated (for messages about all of them). */
static const char *all_paths(const rs_tset_t *ts, char *buf, size_t len) {
    buf[0] = 0;
    for (int i = 0; i < rs_tset_count(ts); i++) {
        const size_t u = strlen(buf);
        if (u + 8 >= len) break;
        snprintf(buf + u, len - u, "%s%s", i ? ", " : "", rs_tset_path(ts, i));
    }
    return buf;
}

/* The samples of every trace into sm (its arrays allocated here): transfers and computes. Returns 0
 * or -1 with err: out of memory (runtime), or a trace without a compute sample (bad input). */
static int collect(const rs_tset_t *ts, samples_t *sm, rs_tfit_t *f, rs_err_t *err) {
    size_t cap = 0;
    for (int i = 0; i < rs_tset_count(ts); i++) cap += rs_trace_count(rs_tset_trace(ts, i));
    sm->xs = malloc((cap + 1) * sizeof *sm->xs), sm->cs = malloc((cap + 1) * sizeof *sm->cs);
    if (!sm->xs || !sm->cs) return rs_errc(err, RS_ERR_RUNTIME, "out of memory for %zu events", cap);
    xsample_t *const xs = sm->xs;
    csample_t *const cs = sm->cs;
    size_t *const n_xs = &sm->n_xs, *const n_cs = &sm->n_cs;
    *n_xs = *n_cs = 0;
    for (int i = 0; i < rs_tset_count(ts); i++) {
        const rs_trace_t *t = rs_tset_trace(ts, i);
        const rs_event_t *ev = rs_trace_events(t);
        const int64_t B = rs_problem_block(rs_tset_problem(ts, i));
        size_t n_before = *n_cs;
        for (size_t e = 0; e < rs_trace_count(t); e++) {
            rs_step_t st;
            if (ev[e].kind != RS_EV_COMPUTE && ev[e].kind != RS_EV_RECV) continue;
            rs_schedule_step(rs_tset_schedule(ts, i), ev[e].rank, ev[e].step, &st);
            if (ev[e].kind == RS_EV_RECV) {
                const double tx = xfer_time(t, &ev[e], (int32_t)st.recv_peer);
                if (tx > 0) xs[(*n_xs)++] = (xsample_t){st.recv_bytes, tx};
                else f->n_xfer_zero++;
                continue;
            }
            if (st.flops_exec == 0) continue;
            const double d = ev[e].end_s - ev[e].start_s;
            if (!(d > 0)) {
                f->n_comp_zero++;
                continue;
            }
            csample_t c = {.block = B, .pass = rs_tset_problem(ts, i)->pass, .fx = st.flops_exec, .fu = st.flops_useful, .busy = st.n_recv > 0,
                           .bytes = st.recv_bytes, .n_flows = st.n_recv, .d = d, .tx = NAN};
            c.kind = rs_tfit_step_kind(&st, &c.q, &c.k);
            const long r = st.n_recv > 0 ? rs_trace_find(t, ev[e].rank, ev[e].step, ev[e].pass, RS_EV_RECV) : -1;
            if (r >= 0) c.tx = xfer_time(t, &ev[r], (int32_t)st.recv_peer);
            cs[(*n_cs)++] = c;
        }
        if (*n_cs == n_before)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: no compute events of steps that execute FLOPs (with a duration > 0): nothing to fit the "
                           "compute rate from", rs_tset_path(ts, i));
    }
    f->n_comp = *n_cs, f->n_xfer = *n_xs;
    return 0;
}

/* The transport's sizes (median per byte count) and the alpha-beta fit. Returns 0 or -1 with err
 * (bad input: what cannot be fitted, naming the files). */
static int fit_transport(const rs_tset_t *ts, const rs_tfit_opts_t *o, samples_t *sm, rs_tfit_t *f, rs_err_t *err) {
    xsample_t *const xs = sm->xs;
    const size_t n = sm->n_xs;
    double *const tmp = sm->tmp;
    rs_calib_t *c = &f->calib;
    char files[1024];
    qsort(xs, n, sizeof *xs, xsample_qcmp);
    c->n_sizes = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && xs[j].bytes == xs[i].bytes; j++) tmp[j - i] = xs[j].t;
        if (c->n_sizes == RS_CALIB_MAX_SIZES)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: more than %d transfer sizes; calibrate from fewer traces", all_paths(ts, files, sizeof files),
                           RS_CALIB_MAX_SIZES);
        c->sizes[c->n_sizes] = xs[i].bytes;
        c->t_msg_s[c->n_sizes++] = rs_median(tmp, j - i);
    }
    if (c->n_sizes == 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: no transfers (recv events with a duration > 0): the transport cannot be fitted",
                       all_paths(ts, files, sizeof files));
    f->latency_given = o->latency_s >= 0;
    if (!f->latency_given && c->n_sizes < 2)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: every transfer carries %llu bytes: W needs two sizes (traces at two block sizes B, or a "
                       "backward pass) or the latency given (--latency L)", all_paths(ts, files, sizeof files),
                       (unsigned long long)c->sizes[0]);
    if (f->latency_given) rs_calib_fit_transport_latency(c, o->latency_s);
    else rs_calib_fit_transport(c);
    if (!isfinite(c->bw_bytes_per_s) || !(c->bw_bytes_per_s > 0))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: the transfers take no longer than --latency %g s: W cannot be fitted",
                       all_paths(ts, files, sizeof files), o->latency_s);
    return 0;
}

/* The compute points from the sorted samples, and one overlap sample per (point with alone and busy
 * steps, received bytes): alone and busy compute medians, the transfers' median. Returns 0 or -1
 * with err (bad input: too many points). */
static int build_points(const rs_tset_t *ts, samples_t *sm, rs_tfit_t *f, rs_err_t *err) {
    const csample_t *const cs = sm->cs;
    const size_t n = sm->n_cs;
    double *const tmp = sm->tmp, *const tmp2 = sm->tmp2;
    rs_calib_t *c = &f->calib;
    char files[1024];
    f->n_points = 0, c->n_ov = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && point_cmp(&cs[j], &cs[i]) == 0; j++) {}
        if (f->n_points == RS_TFIT_MAX_POINTS)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: more than %d compute points (B, pass, mask kind, call shape); calibrate from fewer traces",
                           all_paths(ts, files, sizeof files), RS_TFIT_MAX_POINTS);
        rs_tfit_point_t *p = &f->pt[f->n_points++];
        *p = (rs_tfit_point_t){.block = cs[i].block, .pass = (rs_pass_t)cs[i].pass, .kind = (rs_tfit_kind_t)cs[i].kind,
                               .q_tokens = cs[i].q, .k_tokens = cs[i].k, .flops_exec = cs[i].fx, .flops_useful = cs[i].fu,
                               .t_busy_s = NAN, .t_alone_s = NAN};
        size_t a = i; /* alone samples: [i, a) */
        while (a < j && !cs[a].busy) tmp[a - i] = cs[a].d, a++;
        p->n_alone = (int)(a - i), p->n_busy = (int)(j - a);
        if (p->n_alone) p->t_alone_s = rs_median(tmp, (size_t)p->n_alone);
        for (size_t k = a; k < j; k++) tmp[k - a] = cs[k].d;
        if (p->n_busy) p->t_busy_s = rs_median(tmp, (size_t)p->n_busy);
        if (!p->n_alone) continue;
        for (size_t u = a, v; u < j; u = v) { /* busy samples by received bytes */
            size_t nd = 0, nx = 0;
            for (v = u; v < j && cs[v].bytes == cs[u].bytes; v++) {
                tmp[nd++] = cs[v].d;
                if (cs[v].tx > 0) tmp2[nx++] = cs[v].tx;
            }
            if (!nx || c->n_ov == RS_CALIB_MAX_OV) continue;
            rs_calib_overlap_t *ov = &c->ov[c->n_ov++];
            *ov = (rs_calib_overlap_t){.block = p->block, .bytes = cs[u].bytes, .n_flows = cs[u].n_flows,
                                       .t_comp_s = p->t_alone_s, .t_comp_busy_s = rs_median(tmp, nd),
                                       .t_end_s = rs_median(tmp2, nx), .eta = NAN};
            ov->sigma = ov->t_comp_busy_s / ov->t_comp_s;
        }
    }
    return 0;
}

/* Host cost and overlap where identifiable, then each point's rate and F_eff(B) with the host cost
 * taken off the busy compute; the model's efficiency curve. */
static void fit_compute(samples_t *sm, rs_tfit_t *f) {
    const csample_t *const cs = sm->cs;
    const size_t n = sm->n_cs;
    double *const tmp = sm->tmp;
    rs_calib_t *c = &f->calib;
    rs_calibration_default(&c->model);
    f->host_fitted = c->n_ov > 0;
    if (f->host_fitted) rs_calib_fit_overlap(c);
    const double o = c->model.host_s_per_xfer, ob = c->model.host_s_per_byte;
    c->n_blocks = 0, c->flops_peak = 0;
    double fsum = 0, tsum = 0;
    for (size_t i = 0, j, pi = 0; i < n; i = j, pi++) {
        size_t m = 0;
        for (j = i; j < n && point_cmp(&cs[j], &cs[i]) == 0; j++) {
            const double host = cs[j].busy ? o * cs[j].n_flows + ob * (double)cs[j].bytes : 0;
            tmp[m++] = cs[j].d - host;
            fsum += (double)cs[j].fx, tsum += cs[j].d - host;
        }
        rs_tfit_point_t *p = &f->pt[pi];
        p->t_comp_s = rs_median(tmp, m);
        p->flops_exec_per_s = (double)p->flops_exec / p->t_comp_s;
        p->flops_useful_per_s = (double)p->flops_useful / p->t_comp_s;
        if (j < n && cs[j].block == cs[i].block) continue;
        /* the last point of this B: its F_eff over every sample at B */
        if (c->n_blocks < RS_MAX_EFF_POINTS) {
            const double fe = fsum / tsum, b = (double)cs[i].block;
            rs_problem_t fwd = f->shape;
            fwd.pass = RS_PASS_FORWARD;
            c->blocks[c->n_blocks] = cs[i].block;
            c->flops_eff[c->n_blocks] = fe;
            c->t_block_s[c->n_blocks++] = b * b * (double)rs_problem_flops_per_pair(&fwd) / fe;
            if (fe > c->flops_peak) c->flops_peak = fe;
        }
        fsum = tsum = 0;
    }
    c->model.n_eff = 0;
    for (int i = 0; i < c->n_blocks; i++)
        c->model.eff[c->model.n_eff++] = (rs_eff_point_t){(double)c->blocks[i], c->flops_eff[i] / c->flops_peak};
}

/* One call shape of a (pass, kind): its samples' useful FLOPs and compute time, pooled. */
typedef struct {
    double q, k, useful, t;
} kshape_t;

static int kshape_qcmp(const void *x, const void *y) {
    const kshape_t *a = x, *b = y;
    const double aa = a->q * a->k, ab = b->q * b->k;
    return aa < ab ? -1 : aa > ab ? 1 : a->q < b->q ? -1 : a->q > b->q;
}

/* The shapes of the points of (pass, kind), pooled per shape and sorted by (area, q). Returns the count. */
static int kernel_shapes(const rs_tfit_t *f, rs_pass_t pass, rs_tfit_kind_t kind, kshape_t *sh) {
    int n = 0;
    for (int i = 0; i < f->n_points; i++) {
        const rs_tfit_point_t *p = &f->pt[i];
        const double w = (double)(p->n_busy + p->n_alone);
        if (p->pass != pass || p->kind != kind || !(p->t_comp_s > 0) || !(p->flops_useful > 0)) continue;
        int j = 0;
        while (j < n && !(sh[j].q == (double)p->q_tokens && sh[j].k == (double)p->k_tokens)) j++;
        if (j == n) sh[n++] = (kshape_t){(double)p->q_tokens, (double)p->k_tokens, 0, 0};
        sh[j].useful += w * (double)p->flops_useful, sh[j].t += w * p->t_comp_s;
    }
    qsort(sh, (size_t)n, sizeof *sh, kshape_qcmp);
    return n;
}

/* Step 5 (study_fromtrace.h): the compute points as the profile's kernel table. */
static void fit_kernels(rs_tfit_t *f) {
    static const rs_tfit_kind_t kinds[RS_KMASK_COUNT] = {RS_TFIT_FULL, RS_TFIT_CAUSAL, RS_TFIT_SHIFTED}; /* by rs_kmask_t */
    rs_kernel_table_t *t = &f->kernels;
    memset(t, 0, sizeof *t);
    f->one_shape = 0;
    kshape_t sh[RS_TFIT_MAX_POINTS];
    for (int pass = 0; pass < 2; pass++)
        for (int m = 0; m < RS_KMASK_COUNT; m++) {
            const int n = kernel_shapes(f, (rs_pass_t)pass, kinds[m], sh);
            if (n == 1) f->one_shape |= 1u << (pass * RS_KMASK_COUNT + m);
            if (n < 2) continue;
            rs_kcurve_t *c = &t->curve[t->n_curves++];
            c->kernel = 0, c->dtypes = 1u << f->dtype, c->head_dim = f->shape.head_dim, c->pass = pass, c->mask = (rs_kmask_t)m;
            const int keep = n < RS_KMAX_POINTS ? n : RS_KMAX_POINTS; /* spread over the areas, both ends kept */
            for (int i = 0; i < keep; i++) {
                const kshape_t *s = &sh[(int)lround((double)i * (n - 1) / (keep - 1))];
                c->pt[c->n++] = (rs_kpoint_t){s->q, s->k, s->useful / s->t};
            }
        }
    if (!t->n_curves) return;
    t->n_kernels = 1;
    snprintf(t->kernel[0].name, sizeof t->kernel[0].name, "%s", RS_TFIT_KERNEL);
    for (int i = RS_IMPL_RINGSIM; i < RS_IMPL_COUNT; i++) t->impl_kernel[i] = 1;
    t->default_impl = RS_IMPL_NONE;
    if (rs_kernel_table_prepare(t, NULL) != 0) memset(t, 0, sizeof *t); /* cannot happen: sorted, positive points */
}

int rs_tfit_run(const rs_tset_t *ts, const rs_tfit_opts_t *o, rs_tfit_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    out->shape = *rs_tset_problem(ts, 0);
    out->dtype = rs_tfit_dtype(o, rs_tset_problem(ts, 0));
    samples_t sm = {0};
    int rc = collect(ts, &sm, out, err);
    if (rc == 0) {
        const size_t cap = (sm.n_xs > sm.n_cs ? sm.n_xs : sm.n_cs) + 1;
        sm.tmp = malloc(cap * sizeof *sm.tmp), sm.tmp2 = malloc(cap * sizeof *sm.tmp2);
        if (!sm.tmp || !sm.tmp2) rc = rs_errc(err, RS_ERR_RUNTIME, "out of memory");
    }
    if (rc == 0) {
        qsort(sm.cs, sm.n_cs, sizeof *sm.cs, csample_qcmp);
        rc = build_points(ts, &sm, out, err);
    }
    if (rc == 0) rc = fit_transport(ts, o, &sm, out, err);
    if (rc == 0) fit_compute(&sm, out);
    if (rc == 0) fit_kernels(out);
    free(sm.xs), free(sm.cs), free(sm.tmp), free(sm.tmp2);
    return rc;
}

void rs_tfit_to_hw(const rs_tfit_t *f, const char *name, const char *note, rs_hw_t *hw) {
    rs_calib_to_hw(&f->calib, name, note, f->shape.n_ranks, f->dtype, hw);
    if (f->kernels.n_kernels > 0) hw->kernels = f->kernels;
}

/* Step 5's table, as calibrate prints it. */
static void print_kernels(const rs_tfit_t *f, FILE *out) {
    const rs_kernel_table_t *t = &f->kernels;
    if (t->n_curves)
        fprintf(out, "# kernel table (kernel %s, %s, d %lld): useful TFLOP/s of a step's call by shape q x k, per pass and "
                     "mask kind; run by --impl ringsim|flash-attn|te (the profile's default stays F_eff(B))\n",
                RS_TFIT_KERNEL, rs_dtype_name(f->dtype), (long long)f->shape.head_dim);
    for (int i = 0; i < t->n_curves; i++) {
        const rs_kcurve_t *c = &t->curve[i];
        fprintf(out, "  %-8s %-7s", rs_pass_name((rs_pass_t)c->pass), rs_kmask_name(c->mask));
        for (int j = 0; j < c->n; j++) fprintf(out, " %.0fx%.0f:%.6g", c->pt[j].q_tokens, c->pt[j].k_tokens, c->pt[j].flops_per_s * 1e-12);
        fputc('\n', out);
    }
    for (int b = 0; b < 2 * RS_KMASK_COUNT; b++)
        if (f->one_shape >> b & 1u)
            fprintf(out, "# kernel table: %s %s calls at one shape only: no curve (the model uses the nearest mask kind's)\n",
                    rs_pass_name((rs_pass_t)(b / RS_KMASK_COUNT)), rs_kmask_name((rs_kmask_t)(b % RS_KMASK_COUNT)));
    if (!t->n_curves) fprintf(out, "# kernel table: none (no pass and mask kind has calls at two shapes)\n");
}

void rs_tfit_print(const rs_tfit_t *f, const rs_tset_t *ts, FILE *out) {
    const rs_calib_t *c = &f->calib;
    char b1[32], b2[32], b3[32];
    fprintf(out, "# traces: %d, N = %lld ranks, heads %lld/%lld, d %lld, %s, %s, %s\n", rs_tset_count(ts), (long long)f->shape.n_ranks,
            (long long)f->shape.q_heads, (long long)f->shape.kv_heads, (long long)f->shape.head_dim,
            rs_layout_name(f->shape.layout), f->shape.causal ? "causal" : "no mask", rs_dtype_name(f->dtype));
    for (int i = 0; i < rs_tset_count(ts); i++)
        fprintf(out, "#   %s: B = %lld, %s, %zu events\n", rs_tset_path(ts, i), (long long)rs_problem_block(rs_tset_problem(ts, i)),
                rs_pass_name(rs_tset_problem(ts, i)->pass), rs_trace_count(rs_tset_trace(ts, i)));
    fprintf(out, "# compute points: (B, pass, mask kind, call shape q x k); durations less the host cost; rates in TFLOP/s\n");
    fprintf(out, "# %8s %-8s %-7s %13s %6s %6s %12s %12s %12s %10s %10s\n", "B", "pass", "kind", "q x k", "busy", "alone",
            "t_busy", "t_alone", "t_comp", "exec", "useful");
    for (int i = 0; i < f->n_points; i++) {
        const rs_tfit_point_t *p = &f->pt[i];
        char shape[32];
        snprintf(shape, sizeof shape, "%lldx%lld", (long long)p->q_tokens, (long long)p->k_tokens);
        fprintf(out, "  %8lld %-8s %-7s %13s %6d %6d %12s %12s %12s %10.4g %10.4g\n", (long long)p->block,
                rs_pass_name(p->pass), rs_tfit_kind_name(p->kind), shape, p->n_busy, p->n_alone,
                rs_fmt_time(p->t_busy_s, b1, sizeof b1), rs_fmt_time(p->t_alone_s, b2, sizeof b2),
                rs_fmt_time(p->t_comp_s, b3, sizeof b3), p->flops_exec_per_s * 1e-12, p->flops_useful_per_s * 1e-12);
    }
    fprintf(out, "# F_eff(B): executed FLOPs / compute time over every step at B (both passes, every kind)\n");
    fprintf(out, "# %8s %12s %8s\n", "B", "TFLOP/s", "eff");
    for (int i = 0; i < c->n_blocks; i++)
        fprintf(out, "  %8lld %12.6g %8.4f\n", (long long)c->blocks[i], c->flops_eff[i] * 1e-12, c->flops_eff[i] / c->flops_peak);
    fprintf(out, "# transport: per step, recv end - max(recv start, the sender's send start), median per byte count\n");
    fprintf(out, "# %12s %14s %14s %10s\n", "bytes", "t_s", "fit_s", "GB/s");
    for (int i = 0; i < c->n_sizes; i++)
        fprintf(out, "  %12llu %14.6g %14.6g %10.4g\n", (unsigned long long)c->sizes[i], c->t_msg_s[i],
                c->latency_s + (double)c->sizes[i] / c->bw_bytes_per_s, (double)c->sizes[i] / c->t_msg_s[i] * 1e-9);
    fprintf(out, "# alpha-beta %s: L = %.6g s, W = %.6g GB/s (max fit error %.3f%%) from %zu transfers\n",
            f->latency_given ? "with L given (--latency)" : "fit", c->latency_s, c->bw_bytes_per_s * 1e-9, 100 * c->fit_err_max,
            f->n_xfer);
    if (f->n_xfer_zero) fprintf(out, "# %zu transfers of duration <= 0: not used\n", f->n_xfer_zero);
    if (f->host_fitted)
        fprintf(out, "# host cost %.4g s + %.4g s/byte per received transfer; overlap curve of %d points (steps with and "
                     "without transfers, %d samples)\n", c->model.host_s_per_xfer, c->model.host_s_per_byte,
                c->model.n_overlap, c->n_ov);
    else
        fprintf(out, "# host cost and overlap: not identifiable (no compute point has steps both with and without "
                     "transfers); none, overlap 1\n");
    if (f->n_comp_zero)
        fprintf(out, "# %zu compute events of FLOP-executing steps have no duration (no kernel traced): not used\n",
                f->n_comp_zero);
    fprintf(out, "# F_peak(%s) = max F_eff(B) = %.6g TFLOP/s; launch overhead 0 (inside the rates)\n", rs_dtype_name(f->dtype),
            c->flops_peak * 1e-12);
    print_kernels(f, out);
}
