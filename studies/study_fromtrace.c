/* study_fromtrace.c - calibrate and validate from traces (study_fromtrace.h). */
#include "study_fromtrace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "output.h"
#include "plot.h"

/* ------------------------------------------------------------------------------------------------
 * Kinds and keys
 * ---------------------------------------------------------------------------------------------- */
const char *rs_tfit_kind_name(rs_tfit_kind_t k) {
    static const char *const names[] = {"full", "causal", "shifted", "skip"};
    return rs_enum_name(names, RS_TFIT_KIND_COUNT, (int)k);
}

rs_tfit_kind_t rs_tfit_step_kind(const rs_step_t *st, int64_t *q_tokens, int64_t *k_tokens) {
    bool q_used[RS_MAX_SEGMENTS] = {false}, k_used[RS_MAX_SEGMENTS] = {false}, full = false, causal = false, shifted = false;
    for (int i = 0; st->has_compute && i < st->n_blocks; i++) {
        const rs_block_t *b = &st->blocks[i];
        if (b->mask == RS_MASK_SKIP) continue;
        q_used[b->q_seg] = k_used[b->kv_seg] = true;
        if (b->mask == RS_MASK_FULL) full = true;
        else if (b->diag == 0) causal = true;
        else shifted = true;
    }
    *q_tokens = *k_tokens = 0;
    for (int i = 0; i < RS_MAX_SEGMENTS; i++) {
        if (q_used[i] && i < st->n_q_segs) *q_tokens += st->q_segs[i].count;
        if (k_used[i] && i < st->n_kv_segs) *k_tokens += st->kv_segs[i].count;
    }
    return causal ? RS_TFIT_CAUSAL : shifted ? RS_TFIT_SHIFTED : full ? RS_TFIT_FULL : RS_TFIT_SKIP;
}

static const char *const key_names[RS_TFIT_KEY_COUNT] = {"seq_tokens", "n_ranks",  "batch",  "q_heads",
                                                          "kv_heads",   "head_dim", "act_bytes", "grad_bytes",
                                                          "causal",     "layout",   "pass",   "tile"};

/* Field `key` of p as text. */
static const char *field_text(const rs_problem_t *p, int key, char *buf, size_t len) {
    const int64_t v[] = {p->seq_tokens, p->n_ranks, p->batch, p->q_heads, p->kv_heads, p->head_dim, p->act_bytes, p->grad_bytes};
    if (key < RS_TFIT_KEY_CAUSAL) snprintf(buf, len, "%lld", (long long)v[key]);
    else if (key == RS_TFIT_KEY_CAUSAL) snprintf(buf, len, "%d", p->causal ? 1 : 0);
    else if (key == RS_TFIT_KEY_LAYOUT) snprintf(buf, len, "%s", rs_layout_name(p->layout));
    else if (key == RS_TFIT_KEY_PASS) snprintf(buf, len, "%s", rs_pass_name(p->pass));
    else snprintf(buf, len, "%lldx%lld", (long long)p->tile_q, (long long)p->tile_k);
    return buf;
}

/* 0 if a and b agree on `key`, else -1 with their values in va, vb. */
static int field_cmp(const rs_problem_t *a, const rs_problem_t *b, int key, char *va, char *vb, size_t len) {
    field_text(a, key, va, len), field_text(b, key, vb, len);
    return strcmp(va, vb) ? -1 : 0;
}

void rs_tfit_opts_default(rs_tfit_opts_t *o) {
    memset(o, 0, sizeof *o);
    rs_problem_default(&o->problem);
    o->latency_s = -1;
    o->dtype = RS_DTYPE_BF16;
}

/* ------------------------------------------------------------------------------------------------
 * The traces
 * ---------------------------------------------------------------------------------------------- */
struct rs_tset {
    int n;
    const char *path[RS_TFIT_MAX_TRACES];
    rs_trace_t *t[RS_TFIT_MAX_TRACES];
    rs_problem_t p[RS_TFIT_MAX_TRACES];
    rs_schedule_t *s[RS_TFIT_MAX_TRACES];
};

void rs_tset_free(rs_tset_t *ts) {
    if (!ts) return;
    for (int i = 0; i < ts->n; i++) rs_trace_free(ts->t[i]), rs_schedule_free(ts->s[i]);
    free(ts);
}
int rs_tset_count(const rs_tset_t *ts) { return ts->n; }
const rs_trace_t *rs_tset_trace(const rs_tset_t *ts, int i) { return ts->t[i]; }
const char *rs_tset_path(const rs_tset_t *ts, int i) { return ts->path[i]; }
const rs_problem_t *rs_tset_problem(const rs_tset_t *ts, int i) { return &ts->p[i]; }

/* The header's problem, its missing keys taken from the options; checked against the given options
 * and the first trace's shape. Returns 0 or -1 with err naming path. */
static int trace_problem(rs_trace_t *t, const char *path, const rs_tfit_opts_t *o, const rs_problem_t *first,
                         const char *first_path, rs_problem_t *p, rs_err_t *err) {
    rs_trace_t *opt = rs_trace_create("options");
    if (!opt || rs_trace_meta_problem(opt, &o->problem) != 0) {
        rs_trace_free(opt);
        return rs_errf(err, "%s: out of memory", path);
    }
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < rs_trace_meta_count(opt); k++) {
        const char *key, *value;
        rs_trace_meta_at(opt, k, &key, &value);
        if (!rs_trace_get_meta(t, key) && rs_trace_set_meta(t, key, "%s", value) != 0) rc = rs_errf(err, "%s: out of memory", path);
    }
    rs_trace_free(opt);
    rs_err_t e = {0};
    if (rc == 0 && rs_trace_problem(t, p, &e) != 0) rc = rs_errc(err, e.code, "%s: %s", path, e.msg);
    if (rc == 0 && rs_problem_validate(p, &e) != 0) rc = rs_errc(err, e.code, "%s: the header's problem: %s", path, e.msg);
    char va[64], vb[64];
    for (int key = 0; rc == 0 && key < RS_TFIT_KEY_COUNT; key++) {
        if ((o->given >> key & 1u) && field_cmp(p, &o->problem, key, va, vb, sizeof va) != 0)
            rc = rs_errf(err, "%s: %s=%s in the header, but %s was given as an option: a trace of another problem", path,
                         key_names[key], va, vb);
        else if (first && key != RS_TFIT_KEY_SEQ && key != RS_TFIT_KEY_PASS && field_cmp(p, first, key, va, vb, sizeof va) != 0)
            rc = rs_errf(err, "%s: %s=%s, but %s has %s=%s: traces of one problem shape (only S and the pass may differ)", path,
                         key_names[key], va, first_path, key_names[key], vb);
    }
    return rc;
}

/* Every event inside the schedule of the trace's problem and pass; recv events where the schedule
 * moves bytes, with those bytes. Returns 0 or -1 with err naming path. */
static int check_events(const rs_trace_t *t, const char *path, const rs_problem_t *p, const rs_schedule_t *s,
                        rs_err_t *err) {
    const rs_event_t *ev = rs_trace_events(t);
    const int64_t n_steps = rs_schedule_n_steps(s);
    for (size_t i = 0; i < rs_trace_count(t); i++) {
        const rs_event_t *e = &ev[i];
        if (e->pass != p->pass)
            return rs_errf(err, "%s: a %s event in a trace whose header says pass=%s: one pass per file (as ringsim import "
                           "writes them)", path, rs_pass_name(e->pass), rs_pass_name(p->pass));
        if (e->rank < 0 || e->rank >= p->n_ranks || e->step < 0 || e->step >= n_steps)
            return rs_errf(err, "%s: event (rank %d, step %d) outside the schedule of its header's problem (%lld ranks, %lld "
                           "steps)", path, (int)e->rank, (int)e->step, (long long)p->n_ranks, (long long)n_steps);
        if (e->kind != RS_EV_RECV) continue;
        rs_step_t st;
        rs_schedule_step(s, e->rank, e->step, &st);
        if (st.recv_bytes == 0)
            return rs_errf(err, "%s: rank %d step %d: a recv event at a step that moves 0 bytes in the schedule of its "
                           "header's problem: a transfer of 0 bytes cannot be fitted", path, (int)e->rank, (int)e->step);
        if (!(e->bytes > 0))
            return rs_errf(err, "%s: rank %d step %d: the recv event's byte count is 0 (the schedule moves %llu bytes): a "
                           "transfer of 0 bytes cannot be fitted", path, (int)e->rank, (int)e->step,
                           (unsigned long long)st.recv_bytes);
        if (fabs(e->bytes - (double)st.recv_bytes) > 0.5)
            return rs_errf(err, "%s: rank %d step %d: the recv carries %.17g bytes, the schedule of its header's problem "
                           "%llu: a trace of another problem", path, (int)e->rank, (int)e->step, e->bytes,
                           (unsigned long long)st.recv_bytes);
    }
    return 0;
}

rs_tset_t *rs_tset_load(const rs_tfit_opts_t *o, rs_err_t *err) {
    if (o->n_paths < 1 || o->n_paths > RS_TFIT_MAX_TRACES) {
        rs_errf(err, "--from-trace: give 1 to %d trace files, got %d", RS_TFIT_MAX_TRACES, o->n_paths);
        return NULL;
    }
    rs_tset_t *ts = calloc(1, sizeof *ts);
    if (!ts) {
        rs_errf(err, "out of memory");
        return NULL;
    }
    for (int i = 0; i < o->n_paths; i++) {
        const char *path = o->paths[i];
        ts->path[i] = path;
        if (!(ts->t[i] = rs_trace_read_csv(path, err))) break;
        ts->n = i + 1;
        if (trace_problem(ts->t[i], path, o, i ? &ts->p[0] : NULL, ts->path[0], &ts->p[i], err) != 0 ||
            !(ts->s[i] = rs_schedule_create(&ts->p[i], err)))
            break;
        rs_trace_sort(ts->t[i]);
        if (check_events(ts->t[i], path, &ts->p[i], ts->s[i], err) != 0) break;
        if (i == o->n_paths - 1) return ts;
    }
    rs_tset_free(ts);
    return NULL;
}

/* ------------------------------------------------------------------------------------------------
 * The fit
 * ---------------------------------------------------------------------------------------------- */
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
    for (int i = 0; i < ts->n; i++) {
        const size_t u = strlen(buf);
        if (u + 8 >= len) break;
        snprintf(buf + u, len - u, "%s%s", i ? ", " : "", ts->path[i]);
    }
    return buf;
}

/* Samples of every trace: transfers into *xs (n_xs), compute into *cs (n_cs). Returns 0 or -1
 * with err: out of memory, or a trace without a compute sample. */
static int collect(const rs_tset_t *ts, xsample_t **xs, size_t *n_xs, csample_t **cs, size_t *n_cs, rs_tfit_t *f,
                   rs_err_t *err) {
    size_t cap = 0;
    for (int i = 0; i < ts->n; i++) cap += rs_trace_count(ts->t[i]);
    *xs = malloc((cap + 1) * sizeof **xs), *cs = malloc((cap + 1) * sizeof **cs);
    if (!*xs || !*cs) return rs_errf(err, "out of memory for %zu events", cap);
    *n_xs = *n_cs = 0;
    for (int i = 0; i < ts->n; i++) {
        const rs_trace_t *t = ts->t[i];
        const rs_event_t *ev = rs_trace_events(t);
        const int64_t B = rs_problem_block(&ts->p[i]);
        size_t n_before = *n_cs;
        for (size_t e = 0; e < rs_trace_count(t); e++) {
            rs_step_t st;
            if (ev[e].kind != RS_EV_COMPUTE && ev[e].kind != RS_EV_RECV) continue;
            rs_schedule_step(ts->s[i], ev[e].rank, ev[e].step, &st);
            if (ev[e].kind == RS_EV_RECV) {
                const double tx = xfer_time(t, &ev[e], (int32_t)st.recv_peer);
                if (tx > 0) (*xs)[(*n_xs)++] = (xsample_t){st.recv_bytes, tx};
                else f->n_xfer_zero++;
                continue;
            }
            if (st.flops_exec == 0) continue;
            const double d = ev[e].end_s - ev[e].start_s;
            if (!(d > 0)) {
                f->n_comp_zero++;
                continue;
            }
            csample_t c = {.block = B, .pass = ts->p[i].pass, .fx = st.flops_exec, .fu = st.flops_useful, .busy = st.n_recv > 0,
                           .bytes = st.recv_bytes, .n_flows = st.n_recv, .d = d, .tx = NAN};
            c.kind = rs_tfit_step_kind(&st, &c.q, &c.k);
            const long r = st.n_recv > 0 ? rs_trace_find(t, ev[e].rank, ev[e].step, ev[e].pass, RS_EV_RECV) : -1;
            if (r >= 0) c.tx = xfer_time(t, &ev[r], (int32_t)st.recv_peer);
            (*cs)[(*n_cs)++] = c;
        }
        if (*n_cs == n_before)
            return rs_errf(err, "%s: no compute events of steps that execute FLOPs (with a duration > 0): nothing to fit the "
                           "compute rate from", ts->path[i]);
    }
    f->n_comp = *n_cs, f->n_xfer = *n_xs;
    return 0;
}

/* The transport's sizes (median per byte count) and the alpha-beta fit. Returns 0 or -1 with err
 * (bad input: what cannot be fitted, naming the files). */
static int fit_transport(const rs_tset_t *ts, const rs_tfit_opts_t *o, xsample_t *xs, size_t n, rs_tfit_t *f, double *tmp,
                         rs_err_t *err) {
    rs_calib_t *c = &f->calib;
    char files[1024];
    qsort(xs, n, sizeof *xs, xsample_qcmp);
    c->n_sizes = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && xs[j].bytes == xs[i].bytes; j++) tmp[j - i] = xs[j].t;
        if (c->n_sizes == RS_CALIB_MAX_SIZES)
            return rs_errf(err, "%s: more than %d transfer sizes; calibrate from fewer traces", all_paths(ts, files, sizeof files),
                           RS_CALIB_MAX_SIZES);
        c->sizes[c->n_sizes] = xs[i].bytes;
        c->t_msg_s[c->n_sizes++] = rs_median(tmp, j - i);
    }
    if (c->n_sizes == 0)
        return rs_errf(err, "%s: no transfers (recv events with a duration > 0): the transport cannot be fitted",
                       all_paths(ts, files, sizeof files));
    f->latency_given = o->latency_s >= 0;
    if (!f->latency_given && c->n_sizes < 2)
        return rs_errf(err, "%s: every transfer carries %llu bytes: W needs two sizes (traces at two block sizes B, or a "
                       "backward pass) or the latency given (--latency L)", all_paths(ts, files, sizeof files),
                       (unsigned long long)c->sizes[0]);
    if (f->latency_given) rs_calib_fit_transport_latency(c, o->latency_s);
    else rs_calib_fit_transport(c);
    if (!isfinite(c->bw_bytes_per_s) || !(c->bw_bytes_per_s > 0))
        return rs_errf(err, "%s: the transfers take no longer than --latency %g s: W cannot be fitted",
                       all_paths(ts, files, sizeof files), o->latency_s);
    return 0;
}

/* The compute points from the sorted samples, and one overlap sample per (point with alone and busy
 * steps, received bytes): alone and busy compute medians, the transfers' median. Returns 0 or -1
 * with err (too many points). */
static int build_points(const rs_tset_t *ts, const csample_t *cs, size_t n, rs_tfit_t *f, double *tmp, double *tmp2,
                        rs_err_t *err) {
    rs_calib_t *c = &f->calib;
    char files[1024];
    f->n_points = 0, c->n_ov = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && point_cmp(&cs[j], &cs[i]) == 0; j++) {}
        if (f->n_points == RS_TFIT_MAX_POINTS)
            return rs_errf(err, "%s: more than %d compute points (B, pass, mask kind, call shape); calibrate from fewer traces",
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
static void fit_compute(const csample_t *cs, size_t n, rs_tfit_t *f, double *tmp) {
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

static rs_dtype_t dtype_of(const rs_tfit_opts_t *o, const rs_problem_t *p) {
    if (o->dtype_given) return o->dtype;
    return p->act_bytes == 4 ? RS_DTYPE_FP32 : p->act_bytes == 1 ? RS_DTYPE_FP8 : RS_DTYPE_BF16;
}

int rs_tfit_run(const rs_tset_t *ts, const rs_tfit_opts_t *o, rs_tfit_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    out->shape = ts->p[0];
    out->dtype = dtype_of(o, &ts->p[0]);
    xsample_t *xs = NULL;
    csample_t *cs = NULL;
    double *tmp = NULL, *tmp2 = NULL;
    size_t n_xs = 0, n_cs = 0;
    int rc = collect(ts, &xs, &n_xs, &cs, &n_cs, out, err);
    if (rc == 0) {
        const size_t cap = (n_xs > n_cs ? n_xs : n_cs) + 1;
        tmp = malloc(cap * sizeof *tmp), tmp2 = malloc(cap * sizeof *tmp2);
        if (!tmp || !tmp2) rc = rs_errf(err, "out of memory");
    }
    if (rc == 0) {
        qsort(cs, n_cs, sizeof *cs, csample_qcmp);
        rc = build_points(ts, cs, n_cs, out, tmp, tmp2, err);
    }
    if (rc == 0) rc = fit_transport(ts, o, xs, n_xs, out, tmp, err);
    if (rc == 0) fit_compute(cs, n_cs, out, tmp);
    if (rc == 0) fit_kernels(out);
    free(xs), free(cs), free(tmp), free(tmp2);
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
    fprintf(out, "# traces: %d, N = %lld ranks, heads %lld/%lld, d %lld, %s, %s, %s\n", ts->n, (long long)f->shape.n_ranks,
            (long long)f->shape.q_heads, (long long)f->shape.kv_heads, (long long)f->shape.head_dim,
            rs_layout_name(f->shape.layout), f->shape.causal ? "causal" : "no mask", rs_dtype_name(f->dtype));
    for (int i = 0; i < ts->n; i++)
        fprintf(out, "#   %s: B = %lld, %s, %zu events\n", ts->path[i], (long long)rs_problem_block(&ts->p[i]),
                rs_pass_name(ts->p[i].pass), rs_trace_count(ts->t[i]));
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

/* ------------------------------------------------------------------------------------------------
 * Validation
 * ---------------------------------------------------------------------------------------------- */
/* The walk's prediction of trace i's problem on machine m, sorted. NULL with err: bad input (the
 * profile cannot run the problem), runtime (the walk). */
static rs_trace_t *predict(const rs_tset_t *ts, int i, const rs_machine_t *m, rs_err_t *err) {
    rs_err_t why = {0};
    if (rs_walk_backend.can_run(&ts->p[i], m, &why) != 0) {
        rs_errc(err, RS_ERR_BAD_INPUT, "%s: the profile cannot run its problem: %s", ts->path[i], why.msg);
        return NULL;
    }
    rs_trace_t *t = rs_trace_create(rs_walk_backend.source);
    rs_backend_opts_t bo;
    rs_backend_opts_default(&bo);
    rs_run_summary_t sum;
    if (!t || rs_walk_backend.run(ts->s[i], m, &bo, t, &sum, err) != 0) {
        if (!t) rs_errf(err, "out of memory");
        rs_err_mark(err, RS_ERR_RUNTIME);
        rs_trace_free(t);
        return NULL;
    }
    rs_trace_sort(t);
    return t;
}

/* DIR/<what>I-B<B>-<pass>.<ext> */
static void out_path(char *buf, size_t len, const char *dir, const char *what, int i, const rs_problem_t *p, const char *ext) {
    snprintf(buf, len, "%s/%s%d-B%lld-%s.%s", dir, what, i, (long long)rs_problem_block(p), rs_pass_name(p->pass), ext);
}

/* The predicted trace, the per-step CSV and the pred-vs-meas figure of trace i into dir. */
static int write_outputs(const rs_tset_t *ts, int i, const rs_trace_t *pred, const rs_compare_t *cmp, const char *dir,
                         rs_err_t *err) {
    char tp[4096], cp[4096], fp[4096], title[512];
    const rs_problem_t *p = &ts->p[i];
    out_path(tp, sizeof tp, dir, "pred", i, p, "csv");
    out_path(cp, sizeof cp, dir, "cmp", i, p, "csv");
    out_path(fp, sizeof fp, dir, "pred-vs-meas", i, p, "png");
    if (rs_trace_write_csv(pred, tp, err) != 0 || rs_compare_write_csv(cmp, ts->path[i], "model", cp, err) != 0) return -1;
    snprintf(title, sizeof title, "B = %lld, %s: model vs trace", (long long)rs_problem_block(p), rs_pass_name(p->pass));
    rs_plot_opts_t po = {.title = title, .xlabel = "traced duration (s)", .ylabel = "predicted duration (s)"};
    return rs_plot_render(RS_PLOT_PRED_VS_MEAS, cp, fp, &po, err) == 0 ? 0 : -1;
}

int rs_tval_run(const rs_tset_t *ts, const rs_hw_t *hw, rs_dtype_t dtype, const char *out_dir, rs_tval_row_t *rows,
                rs_err_t *err) {
    memset(rows, 0, sizeof *rows * (size_t)ts->n);
    rs_machine_t m;
    rs_err_t e = {0};
    if (rs_machine_from_hw(hw, dtype, &m, &e) != 0) return rs_errc(err, RS_ERR_BAD_INPUT, "the profile: %s", e.msg);
    int rc = 0;
    for (int i = 0; rc == 0 && i < ts->n; i++) {
        rows[i].problem = ts->p[i];
        rs_trace_t *pred = predict(ts, i, &m, err);
        if (!pred) {
            rc = -1;
            break;
        }
        if (rs_compare_check_problem(ts->t[i], pred, ts->path[i], "the prediction", err) != 0) rc = rs_err_mark(err, RS_ERR_BAD_INPUT);
        else if (rs_compare_traces(ts->t[i], pred, &rows[i].cmp, err) != 0) rc = rs_err_mark(err, RS_ERR_BAD_INPUT);
        else if (out_dir && write_outputs(ts, i, pred, &rows[i].cmp, out_dir, err) != 0) rc = rs_err_mark(err, RS_ERR_RUNTIME);
        rs_trace_free(pred);
    }
    return rc;
}

/* "1.23% / 4.56%" of a metric's median and p95, '-' without points. */
static const char *stat_pair(const rs_cmp_stats_t *s, char *buf, size_t len) {
    char a[32], b[32];
    snprintf(buf, len, "%s / %s", rs_fmt_num(s->n ? 100 * s->median_abs : NAN, "%.3f%%", a, sizeof a),
             rs_fmt_num(s->n ? 100 * s->p95_abs : NAN, "%.3f%%", b, sizeof b));
    return buf;
}

void rs_tval_print(const rs_tset_t *ts, const rs_tval_row_t *rows, FILE *out) {
    for (int i = 0; i < ts->n; i++) {
        fprintf(out, "# %s: B = %lld, %s pass; reference = the trace, other = the model's prediction with the profile\n",
                ts->path[i], (long long)rs_problem_block(&ts->p[i]), rs_pass_name(ts->p[i].pass));
        rs_compare_print(&rows[i].cmp, ts->path[i], "model", out);
        fputc('\n', out);
    }
    fprintf(out, "# per trace: |relative error| of the prediction per (rank, step), median / p95; makespan signed\n");
    fprintf(out, "%-3s %8s %-8s %22s %22s %22s %10s\n", "#", "B", "pass", "t_comp", "t_comm", "t_step", "makespan");
    for (int i = 0; i < ts->n; i++) {
        const rs_compare_t *c = &rows[i].cmp;
        char s0[64], s1[64], s2[64], mk[32];
        fprintf(out, "%-3d %8lld %-8s %22s %22s %22s %10s\n", i, (long long)rs_problem_block(&ts->p[i]),
                rs_pass_name(ts->p[i].pass), stat_pair(&c->stats[RS_CMP_COMP], s0, sizeof s0),
                stat_pair(&c->stats[RS_CMP_COMM], s1, sizeof s1), stat_pair(&c->stats[RS_CMP_STEP], s2, sizeof s2),
                rs_fmt_num(100 * c->makespan_rel, "%+.3f%%", mk, sizeof mk));
    }
}

/* ------------------------------------------------------------------------------------------------
 * The commands
 * ---------------------------------------------------------------------------------------------- */
/* 0, or -1 with err when path is one of the traces (an output never replaces an input). */
static int not_an_input(const rs_tset_t *ts, const char *what, const char *path, rs_err_t *err) {
    struct stat a, b;
    for (int i = 0; path && i < ts->n; i++)
        if (stat(path, &a) == 0 && stat(ts->path[i], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            return rs_errf(err, "%s %s is the input %s: an output never replaces an input", what, path, ts->path[i]);
    return 0;
}

/* The fitted profile: its name (given, else the traced GPU's, else "from-trace") and note. */
static void fitted_profile(const rs_tset_t *ts, const rs_tfit_t *f, const char *name, rs_hw_t *hw) {
    char nm[RS_NAME_LEN], note[256], bl[96] = "";
    const char *gpu = rs_trace_get_meta(ts->t[0], "import.gpu");
    snprintf(nm, sizeof nm, "%s", name && name[0] ? name : gpu && gpu[0] ? gpu : "from-trace");
    for (int i = 0; i < f->calib.n_blocks; i++) {
        const size_t u = strlen(bl);
        snprintf(bl + u, sizeof bl - u, "%s%lld", i ? "," : "", (long long)f->calib.blocks[i]);
    }
    snprintf(note, sizeof note, "ringsim calibrate --from-trace: %d trace(s), first %.60s, B = %.48s, N = %lld; memory "
             "figures: this host's", ts->n, ts->path[0], bl, (long long)f->shape.n_ranks);
    rs_tfit_to_hw(f, nm, note, hw);
}

/* Write hw to path and read it back. Returns 0 or -1 with err. */
static int write_profile(const rs_hw_t *hw, const char *path, rs_err_t *err) {
    rs_hw_t back;
    if (rs_hw_write_json(hw, path, hw->calibration_note, err) != 0) return -1;
    rs_err_t e = {0};
    char pending[4200]; /* outputs are committed at the end of the run (output.h): read it where it is now */
    if (rs_hw_load(rs_out_read_path(path, pending, sizeof pending), &back, &e) != 0)
        return rs_errc(err, e.code, "the profile written does not load back: %s", e.msg);
    return 0;
}

int rs_study_calibrate_from_trace(const rs_tfit_opts_t *o, const char *out_path, const char *name, FILE *out, rs_err_t *err) {
    rs_tset_t *ts = rs_tset_load(o, err);
    rs_tfit_t *f = ts ? malloc(sizeof *f) : NULL;
    int rc = 0;
    if (!ts || !f || not_an_input(ts, "--out", out_path, err) != 0 || rs_tfit_run(ts, o, f, err) != 0) {
        if (ts && !f) rs_errf(err, "out of memory");
        rc = rs_err_mark(err, RS_ERR_BAD_INPUT);
    }
    rs_hw_t hw;
    if (rc == 0) {
        fprintf(out, "# ringsim calibrate --from-trace\n");
        rs_tfit_print(f, ts, out);
        fitted_profile(ts, f, name, &hw);
        if (write_profile(&hw, out_path, err) != 0) rc = rs_err_mark(err, RS_ERR_RUNTIME);
        else
            fprintf(out, "# profile %s (%s): F_peak(%s) %.6g TFLOP/s, %d efficiency points, W %.6g GB/s, L %.6g s, %d kernel curves\n",
                    out_path, hw.name, rs_dtype_name(f->dtype), hw.flops_per_s[f->dtype] * 1e-12, hw.cal.n_eff,
                    hw.intra.bw_bytes_per_s * 1e-9, hw.intra.latency_s, hw.kernels.n_curves);
        if (rc == 0 && hw.kernels.n_curves)
            fprintf(out, "# the presets' merges run at the profile's memory bandwidth, %.4g GB/s (a trace does not measure it: "
                         "set kernels.merge_bw_bytes_per_s to the traced device's)\n", hw.mem_bw_bytes_per_s * 1e-9);
    }
    free(f);
    rs_tset_free(ts);
    return rc;
}

/* The profile validate predicts with (into hw; the activations' dtype into dtype): `calibrated`
 * loaded, else fitted from the traces (printed). Returns 0 or -1 with err (bad input). */
static int validate_profile(const rs_tset_t *ts, const rs_tval_in_t *in, rs_hw_t *hw, rs_dtype_t *dtype, rs_err_t *err) {
    *dtype = dtype_of(in->fit, &ts->p[0]);
    if (in->calibrated) {
        if (rs_hw_load(in->calibrated, hw, err) == 0) return 0;
        rs_err_option(err, "--calibrated", in->calibrated);
        return rs_err_mark(err, RS_ERR_BAD_INPUT);
    }
    rs_tfit_t *f = malloc(sizeof *f);
    if (!f) return rs_errc(err, RS_ERR_BAD_INPUT, "out of memory");
    int rc = rs_tfit_run(ts, in->fit, f, err);
    if (rc == 0) {
        fprintf(in->out, "# ringsim validate --from-trace: the profile fitted from the traces (ringsim calibrate --from-trace)\n");
        rs_tfit_print(f, ts, in->out);
        fitted_profile(ts, f, NULL, hw);
        fputc('\n', in->out);
    }
    free(f);
    return rc == 0 ? 0 : rs_err_mark(err, RS_ERR_BAD_INPUT);
}

int rs_study_validate_from_trace(const rs_tval_in_t *in, rs_err_t *err) {
    rs_tset_t *ts = rs_tset_load(in->fit, err);
    rs_hw_t hw;
    rs_dtype_t dtype = RS_DTYPE_BF16; /* validate_profile's */
    int rc = 0;
    if (!ts || not_an_input(ts, "--save-profile", in->save_profile, err) != 0 || validate_profile(ts, in, &hw, &dtype, err) != 0)
        rc = rs_err_mark(err, RS_ERR_BAD_INPUT);
    rs_tval_row_t *rows = rc == 0 ? calloc((size_t)ts->n, sizeof *rows) : NULL;
    if (rc == 0 && !rows) rc = rs_errc(err, RS_ERR_RUNTIME, "out of memory");
    if (rc == 0) rc = rs_tval_run(ts, &hw, dtype, in->out_dir, rows, err);
    if (rc == 0 && in->save_profile && write_profile(&hw, in->save_profile, err) != 0) rc = rs_err_mark(err, RS_ERR_RUNTIME);
    if (rc == 0) {
        fprintf(in->out, "# profile %s: %s\n", in->calibrated ? in->calibrated : "fitted from the traces", hw.name);
        rs_tval_print(ts, rows, in->out);
        if (in->out_dir) fprintf(in->out, "# predicted traces, per-step CSVs and pred-vs-meas figures in %s\n", in->out_dir);
    }
    for (int i = 0; rows && i < ts->n; i++) rs_compare_free(&rows[i].cmp);
    free(rows);
    rs_tset_free(ts);
    return rc;
}
