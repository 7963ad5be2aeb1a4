/* cost_walk.c - the critical-path walk (rs_model_walk, cost.h): every rank's steps in order, O(N)
 * state, the step classes' costs (kernel.h), flows sharing each hop and compute slowed while they are
 * in flight (cost_step.h), polled progress (polls.h), events to a sink. Derivations: docs/model.md. */
#include "cost.h"
#include "cost_step.h"
#include "polls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

static int emit(rs_event_sink_t sink, rs_event_t ev) { return rs_sink_emit(sink, &ev); }

/* Per-step work of the walk: the schedule's three step classes and their costs (model/4-cost/kernel.h),
 * or (when the work is no function of the class: decode with uneven sequences per rank, the dense
 * model) the schedule per step. */
typedef struct {
    uint64_t useful[3], exec[3]; /* FLOPs of class 0 (owner < rank), 1 (owner == rank), 2 (owner > rank) */
    double time_s[3];            /* scaled work of the class: calls + merges (exec / F_eff(B) in the dense model) */
    double after_s[3];           /* the class's merges after the incoming dK,dV partial arrives (kernel.h) */
    double before_s[3];          /* the part of time_s before the calls: the compute event starts after it */
    int launches[3];             /* launches of the class */
    int calls[3], syncs[3];      /* its host-only calls and host syncs (kernel.h, rs_kernel_fixed_s) */
    int64_t n;                   /* ranks */
    const double *slow;          /* per-rank straggler factor */
    const rs_machine_t *m;       /* launch, jitter */
    const rs_kmodel_t *km;       /* the epilogue (presets that have one) */
    const rs_kclasses_t *kc;
    bool epilogue;               /* the preset has a pass epilogue (after each rank's last step) */
    const rs_schedule_t *s;      /* per_step: rs_schedule_flops of (rank, step) */
    bool per_step;
    double f_eff;                /* F_eff(B) */
} work_classes_t;

/* Running totals of a walk. */
typedef struct {
    uint64_t useful, exec;   /* FLOPs */
    int64_t bound;           /* (rank, step) whose transfers outlast the compute */
    double comp_max, comm_max;
} walk_acc_t;

/* Compute duration of (rank r, step k < N): the inline form of rs_kernel_rank_step_s without the host
 * cost (tested against it); adds the step's FLOPs to acc's totals; *after: its merges after the
 * incoming partial arrives, *before: the part of the duration before its calls, each x straggler
 * (rs_kernel_step_s's acc->after_s, acc->before_s). */
static inline double rank_work(const work_classes_t *wc, int64_t r, int64_t k, walk_acc_t *acc, double *after,
                               double *before) {
    int64_t owner = r - k;
    if (owner < 0) owner += wc->n;
    const int cls = owner < r ? 0 : owner == r ? 1 : 2;
    *after = wc->after_s[cls] > 0 ? wc->after_s[cls] * wc->slow[r] : 0;
    *before = !wc->per_step && wc->before_s[cls] > 0 ? wc->before_s[cls] * wc->slow[r] : 0;
    uint64_t fu = wc->useful[cls], fx = wc->exec[cls];
    double scaled = wc->time_s[cls];
    int launches = wc->launches[cls];
    if (wc->per_step) { /* the dense model step by step: one launch when it computes */
        rs_schedule_flops(wc->s, r, k, &fu, &fx);
        scaled = fx > 0 ? (double)fx / wc->f_eff : 0;
        launches = fx > 0 ? 1 : 0;
    }
    acc->useful += fu;
    acc->exec += fx;
    const int calls = wc->per_step ? 0 : wc->calls[cls];
    if (!(scaled > 0) && launches == 0 && calls == 0) return 0;
    const double work = scaled * wc->slow[r] * rs_machine_jitter(wc->m, r, k);
    return rs_kernel_fixed_s(wc->km, work, launches, calls, wc->per_step ? 0 : wc->syncs[cls]);
}

/* The walk's O(N) state: per rank r, and per hop r -> r+1 (r's outgoing hop). */
typedef struct {
    const rs_schedule_t *s;
    const rs_problem_t *p;
    const rs_machine_t *m;
    rs_event_sink_t sink;
    int64_t n;
    double *t0, *te;            /* the step's start and end (swapped after each step) */
    double *ce;                 /* the step's compute duration (until step_ends) */
    double *af, *bf;            /* its merges after the arrival (backward), before the calls */
    double *epi;                /* the pass epilogue after the last step */
    double *post, *fe;          /* hop r: when both ends have posted, its last flow's end */
    double *bw, *lat, *inv_bw;  /* hop r's constants */
    double *slow, *busy;        /* straggler factor, summed compute */
} walk_state_t;

/* What every rank posts at step k (the same bytes on every hop) and what that costs. */
typedef struct {
    int64_t k;
    int nx;                                /* ring transfers (0..RS_MAX_TRANSFERS) */
    uint64_t bytes[RS_MAX_TRANSFERS];      /* each one's */
    uint64_t total_bytes;                  /* their sum */
    double reused;                         /* of those, received into the buffer sent at k - 1 */
    double gx;                             /* the transfer curve's g at the step's bytes */
    double tb;                             /* total_bytes x gx */
    double eta;                            /* the overlap factor at the step's bytes */
    double host;                           /* host cost of receiving them */
    bool polled;                           /* each receiver's eta from its own step's polls (polls.h) */
} walk_step_t;

/* Step k's transfers on machine m (s's schedule). */
static void walk_step_of(const rs_schedule_t *s, const rs_machine_t *m, int64_t k, walk_step_t *st) {
    st->k = k;
    st->nx = rs_schedule_step_xfers(s, k, st->bytes);
    st->total_bytes = 0;
    for (int i = 0; i < st->nx; i++) st->total_bytes += st->bytes[i];
    const double total = (double)st->total_bytes;
    /* the step's overlap factor (by the bytes on a hop) and host cost of receiving them */
    st->eta = rs_machine_overlap(m, total);
    /* the transfer curves at the step's bytes (those received into the buffer sent at k - 1: reused) */
    st->reused = (double)rs_schedule_step_reused_bytes(s, k);
    st->host = rs_machine_host_s(m, st->nx, total, st->reused);
    st->gx = rs_machine_step_xfer_factor(m, total, st->reused);
    st->tb = total * st->gx;
    st->polled = st->nx > 0 && k < rs_schedule_problem(s)->n_ranks && rs_calibration_polled(&m->cal);
}

/* One step of the one-pass walk: full overlap (eta = 1, sigma = 1) and no events. Hop r's flows
 * end at max(t0[r], t0[r+1]) + L_r + bytes / W_r; a rank waits for its hop and the previous. */
static inline void fused_step(const work_classes_t *wc, walk_state_t *w, const walk_step_t *st, walk_acc_t *acc) {
    const int64_t n = wc->n, k = st->k;
    const int nx = st->nx;
    const double tb = st->tb, host = st->host;
    const double *lat = w->lat, *inv_bw = w->inv_bw, *t0 = w->t0;
    double *te = w->te, *busy = w->busy;
    const bool computes = k < n;
    double fe_prev = 0, fe_last = 0;
    if (nx > 0) fe_prev = fe_last = (t0[n - 1] > t0[0] ? t0[n - 1] : t0[0]) + lat[n - 1] + tb * inv_bw[n - 1];
    for (int64_t r = 0; r < n; r++) {
        double after = 0, before = 0;
        double work = computes ? rank_work(wc, r, k, acc, &after, &before) : 0;
        if (work > 0) work += host;
        double end = t0[r] + work;
        if (work > acc->comp_max) acc->comp_max = work;
        busy[r] += work;
        if (nx > 0) {
            double fe_r = fe_last;
            if (r + 1 < n) fe_r = (t0[r] > t0[r + 1] ? t0[r] : t0[r + 1]) + lat[r] + tb * inv_bw[r];
            const double end_x = fe_r > fe_prev ? fe_r : fe_prev;
            if (end_x - t0[r] > acc->comm_max) acc->comm_max = end_x - t0[r];
            acc->bound += end_x > end;
            if (end_x > end) end = end_x;
            fe_prev = fe_r;
        }
        busy[r] += after;
        te[r] = end + after;
    }
}

/* Step st's compute durations (w->ce, w->af, w->bf: the inline form of rs_machine_comp_time, tested
 * against it) and its flows: hop r -> r+1 posted when both ends have started (w->post), its last flow's
 * end (w->fe) with the receiver's eta. */
static void step_flows(const work_classes_t *wc, walk_state_t *w, const walk_step_t *st, walk_acc_t *acc) {
    const int64_t n = w->n, k = st->k;
    const int nx = st->nx;
    const rs_machine_t *m = w->m;
    const double *t0 = w->t0, *lat = w->lat, *bw = w->bw, *inv_bw = w->inv_bw;
    double *ce = w->ce, *af = w->af, *bf = w->bf, *post = w->post, *fe = w->fe;
    const bool computes = k < n;
    const double total = (double)st->total_bytes;
    const bool simple_flows = st->eta >= 1 && !st->polled; /* equal-start processor sharing: the last flow ends at a + sum(x) */
    for (int64_t r = 0; r < n; r++) {
        af[r] = bf[r] = 0;
        double work = computes ? rank_work(wc, r, k, acc, &af[r], &bf[r]) : 0;
        if (work > 0) work += st->host;
        ce[r] = work; /* a duration until step_ends */
        if (nx > 0 && simple_flows) { /* transfers on hop r -> r+1, posted at both step starts */
            const int64_t q = m->loopback ? r : r + 1 == n ? 0 : r + 1;
            post[r] = t0[r] > t0[q] ? t0[r] : t0[q];
            fe[r] = post[r] + lat[r] + total * st->gx * inv_bw[r];
        }
    }
    if (nx == 0 || simple_flows) return;
    double xb[RS_MAX_TRANSFERS];
    for (int i = 0; i < nx; i++) xb[i] = (double)st->bytes[i];
    sort_small(xb, nx);
    for (int64_t r = 0; r < n; r++) {
        const int64_t q = m->loopback ? r : r + 1 == n ? 0 : r + 1;
        post[r] = t0[r] > t0[q] ? t0[r] : t0[q];
        double x[RS_MAX_TRANSFERS];
        for (int i = 0; i < nx; i++) x[i] = xb[i] * st->gx / bw[r];
        double eta_q = st->eta;
        if (st->polled) {
            rs_step_t sq;
            rs_schedule_step(w->s, q, k, &sq);
            eta_q = rs_step_eta(m, total, total * st->gx / bw[r], ce[q], rs_step_poll_frac(m, w->p, &sq, total, st->reused));
        }
        fe[r] = flows_end(post[r] + lat[r], t0[q] + ce[q], eta_q, x, nx, NULL); /* q receives */
    }
}

/* The end of step st on every rank from its compute durations w->ce, its merges after the arrival
 * w->af and its hops' post and flow ends: compute at 1/sigma speed while a transfer of the rank is in
 * flight, the step's end (af after the later of compute and arrival: the step event spans compute
 * and transfers, the merges lie between it and the next step; epi (NULL but for the last step): the
 * pass epilogue, inside its event), the totals, and the events. Returns 0, or -1 when the sink refused
 * an event. */
static int step_ends(walk_state_t *w, const walk_step_t *st, const double *epi, walk_acc_t *acc) {
    const int64_t n = w->n, k = st->k;
    const int nx = st->nx;
    const rs_machine_t *m = w->m;
    const double sigma = m->cal.comp_slowdown;
    const double *t0 = w->t0, *ce = w->ce, *bf = w->bf, *af = w->af, *post = w->post, *fe = w->fe;
    double *te = w->te, *busy = w->busy;
    int rc = 0;
    for (int64_t r = 0; r < n; r++) {
        const int64_t prev = m->loopback ? r : r == 0 ? n - 1 : r - 1; /* whose hop delivers to r */
        double end_c;
        if (nx > 0 && sigma > 1) {
            double iv[4] = {post[r], fe[r], post[prev], fe[prev]};
            end_c = comp_end(t0[r], ce[r], iv, 2, sigma);
        } else {
            end_c = t0[r] + ce[r];
        }
        const double end_x = nx > 0 ? (fe[r] > fe[prev] ? fe[r] : fe[prev]) : t0[r];
        double end_s = end_c > end_x ? end_c : end_x; /* the step event: compute and transfers */
        te[r] = end_s + af[r]; /* the merges of the arrived partial after both, before the next step */
        busy[r] += end_c - t0[r] + af[r];
        if (epi && epi[r] > 0) te[r] += epi[r], end_s = te[r], busy[r] += epi[r]; /* the last step: the pass epilogue */
        if (end_c - t0[r] > acc->comp_max) acc->comp_max = end_c - t0[r];
        if (nx > 0) {
            if (end_x - t0[r] > acc->comm_max) acc->comm_max = end_x - t0[r];
            acc->bound += end_x > end_c;
        }
        if (rs_sink_wants(w->sink)) {
            const int32_t rank = (int32_t)r, step = (int32_t)k;
            const rs_pass_t pass = w->p->pass;
            const double bytes = (double)st->total_bytes;
            uint64_t fu, fx;
            rs_schedule_flops(w->s, r, k, &fu, &fx);
            if (k < n)
                rc |= emit(w->sink, (rs_event_t){rank, step, pass, RS_EV_COMPUTE, -1, t0[r] + (ce[r] > 0 ? bf[r] : 0), end_c,
                                                 (double)fx, 0});
            if (nx > 0) {
                rc |= emit(w->sink, (rs_event_t){rank, step, pass, RS_EV_SEND, (int32_t)(r + 1 == n ? 0 : r + 1), t0[r], fe[r], 0, bytes});
                rc |= emit(w->sink, (rs_event_t){rank, step, pass, RS_EV_RECV, (int32_t)(r == 0 ? n - 1 : r - 1), t0[r], fe[prev], 0, bytes});
            }
            rc |= emit(w->sink, (rs_event_t){rank, step, pass, RS_EV_STEP, -1, t0[r], end_s, 0, 0});
        }
    }
    return rc;
}

/* pass-q's all-to-all step k (docs/inference.md): no compute; the exchange starts when the last rank
 * has posted (a loopback rank: its own start) and each rank is done rs_machine_a2a_rank_s of the N
 * partials of peer_bytes it holds later. Send and receive events span post to that end, peer -1.
 * Returns 0, or -1 when the sink refused an event. */
static int a2a_step(walk_state_t *w, int64_t k, uint64_t peer_bytes, walk_acc_t *acc) {
    const int64_t n = w->n;
    const rs_machine_t *m = w->m;
    const double *t0 = w->t0;
    double *te = w->te;
    const double bytes = (double)peer_bytes * (double)(n - 1);
    double start = 0;
    for (int64_t r = 0; r < n; r++) start = t0[r] > start ? t0[r] : start;
    int rc = 0;
    for (int64_t r = 0; r < n; r++) {
        te[r] = (m->loopback ? t0[r] : start) + rs_machine_a2a_rank_s(m, n, (double)peer_bytes * (double)n, r);
        if (te[r] - t0[r] > acc->comm_max) acc->comm_max = te[r] - t0[r];
        acc->bound++; /* nothing to compute: the transfers set the step */
        if (rs_sink_wants(w->sink)) {
            const int32_t rank = (int32_t)r, step = (int32_t)k;
            const rs_pass_t pass = w->p->pass;
            rc |= emit(w->sink, (rs_event_t){rank, step, pass, RS_EV_SEND, -1, t0[r], te[r], 0, bytes});
            rc |= emit(w->sink, (rs_event_t){rank, step, pass, RS_EV_RECV, -1, t0[r], te[r], 0, bytes});
            rc |= emit(w->sink, (rs_event_t){rank, step, pass, RS_EV_STEP, -1, t0[r], te[r], 0, 0});
        }
    }
    return rc;
}

void rs_walk_estimate(const rs_problem_t *p, int trace, rs_estimate_t *e) {
    const double n = (double)p->n_ranks, steps = p->pass == RS_PASS_BACKWARD ? n + 1 : n;
    e->rank_steps = n * steps;
    e->time_s = e->rank_steps * (trace == RS_EST_TRACE_FILE ? 30e-6 : trace ? 0.1e-6 : 30e-9);
    e->mem_bytes = 16e6 + n * 13 * sizeof(double) + (trace ? e->rank_steps * 300 : 0);
}

/* The walk's state over buf (13 N doubles): every rank at time 0, hop constants, straggler factors. */
static void walk_state_init(walk_state_t *w, const rs_schedule_t *s, const rs_machine_t *m, rs_event_sink_t sink,
                            double *buf) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const int64_t n = p->n_ranks;
    *w = (walk_state_t){.s = s, .p = p, .m = m, .sink = sink, .n = n};
    w->t0 = buf, w->te = buf + n, w->ce = buf + 2 * n, w->post = buf + 3 * n, w->fe = buf + 4 * n;
    w->bw = buf + 5 * n, w->lat = buf + 6 * n, w->slow = buf + 7 * n, w->busy = buf + 8 * n, w->inv_bw = buf + 9 * n;
    w->af = buf + 10 * n, w->epi = buf + 11 * n, w->bf = buf + 12 * n;
    for (int64_t h = 0; h < n; h++) {
        w->t0[h] = 0;
        w->busy[h] = 0;
        w->bw[h] = rs_machine_hop_bw(m, n, h);
        w->lat[h] = rs_machine_hop_latency(m, n, h);
        w->inv_bw[h] = 1 / w->bw[h];
        w->slow[h] = 1;
    }
    for (int i = 0; i < m->perturb.n_stragglers; i++) w->slow[m->perturb.straggler_rank[i]] *= m->perturb.straggler_factor[i];
}

/* The step classes' costs of the walk (kc of km, rs_kernel_classes) and each rank's pass epilogue
 * (w->epi). The blocks of (rank, step) depend only on the order of the KV owner and the rank
 * (rs_schedule_flops_classes); their costs are computed once per class. Decode with uneven sequences
 * per rank has no classes: the dense model per step (schedule's FLOPs). */
static void work_classes_init(work_classes_t *wc, const rs_kmodel_t *km, const rs_kclasses_t *kc, walk_state_t *w) {
    const rs_machine_t *m = w->m;
    *wc = (work_classes_t){.n = w->n, .slow = w->slow, .m = m, .km = km, .kc = kc, .s = w->s, .f_eff = km->f_eff};
    uint64_t su[3], sx[3];
    wc->per_step = rs_schedule_flops_classes(w->s, su, sx) != 0;
    for (int i = 0; i < 3; i++) {
        wc->useful[i] = kc->useful[i], wc->exec[i] = kc->exec[i];
        wc->time_s[i] = kc->cls[i].scaled_s, wc->launches[i] = kc->cls[i].launches, wc->after_s[i] = kc->cls[i].after_s;
        wc->before_s[i] = kc->cls[i].before_s;
        wc->calls[i] = kc->cls[i].host_calls, wc->syncs[i] = kc->cls[i].syncs;
        wc->epilogue |= kc->cls[i].deferred_s > 0 || kc->cls[i].deferred_launches > 0;
    }
    wc->epilogue |= kc->epi_fixed_s > 0 || kc->epi_fixed_launches > 0 || kc->epi_fixed_calls > 0;
    for (int64_t r = 0; r < w->n; r++) {
        double es = 0;
        int el = 0, ec = 0;
        if (wc->epilogue) rs_kernel_classes_epilogue(km, kc, r, &es, &el, &ec);
        w->epi[r] = rs_kernel_fixed_s(km, es * w->slow[r], el, ec, 0);
    }
}

int rs_model_walk(const rs_schedule_t *s, const rs_machine_t *m, rs_event_sink_t sink, double *rank_busy_s,
                  rs_walk_t *out, rs_err_t *err) {
    const rs_problem_t *p = rs_schedule_problem(s);
    if (rs_machine_validate(m, p->n_ranks, err) != 0) return -1;
    memset(out, 0, sizeof *out);
    const int64_t n = p->n_ranks, steps = rs_schedule_n_steps(s);
    rs_kmodel_t km;
    rs_kmodel_init(&km, p, m);

    double *buf = malloc(sizeof(double) * (size_t)n * 13); /* O(N) state (walk_state_t) */
    if (!buf) return rs_errf(err, "walk: out of memory for N = %lld ranks", (long long)n);
    walk_state_t w;
    walk_state_init(&w, s, m, sink, buf);
    rs_kclasses_t kc;
    rs_kernel_classes(&km, true, &kc);
    work_classes_t wc;
    work_classes_init(&wc, &km, &kc, &w);
    /* one pass when every step fully overlaps (no eta < 1 anywhere), no slowdown and no events */
    const bool fused = !rs_machine_partial_overlap(m) && m->cal.comp_slowdown <= 1 && !rs_sink_wants(sink) && !m->loopback;

    walk_acc_t acc = {0, 0, 0, 0, 0}; /* a local: its fields stay in registers (the arrays could alias *out) */
    int rc = 0;
    for (int64_t k = 0; k < steps && rc == 0; k++) {
        const uint64_t a2a_bytes = rs_schedule_step_a2a_bytes(s, k);
        if (a2a_bytes > 0) { /* pass-q's return: a collective step */
            rc = a2a_step(&w, k, a2a_bytes, &acc);
        } else {
            walk_step_t st;
            walk_step_of(s, m, k, &st);
            if (fused) {
                fused_step(&wc, &w, &st, &acc);
            } else {
                step_flows(&wc, &w, &st, &acc);
                rc = step_ends(&w, &st, k == steps - 1 ? w.epi : NULL, &acc);
            }
        }
        out->rank_steps += n;
        double *tmp = w.t0;
        w.t0 = w.te;
        w.te = tmp;
    }
    if (fused) /* the pass epilogue after the last step (step_ends puts it in the last step's event) */
        for (int64_t r = 0; r < n; r++) w.t0[r] += w.epi[r], w.busy[r] += w.epi[r];
    out->flops_useful = acc.useful;
    out->flops_exec = acc.exec;
    out->comm_bound_steps = acc.bound;
    out->t_comp_max_s = acc.comp_max;
    out->t_comm_max_s = acc.comm_max;
    if (rc != 0) {
        free(buf);
        return rs_errf(err, "walk: out of memory while recording the trace");
    }
    /* after the last swap t0 holds the final step ends (the last one's with the pass epilogue) */
    double sum_busy = 0;
    for (int64_t r = 0; r < n; r++) {
        if (w.t0[r] > out->makespan_s) out->makespan_s = w.t0[r];
        if (w.busy[r] > out->busy_max_s) out->busy_max_s = w.busy[r];
        sum_busy += w.busy[r];
        if (rank_busy_s) rank_busy_s[r] = w.busy[r];
    }
    out->busy_mean_s = sum_busy / (double)n;
    rs_walk_metrics(p, m, out);
    free(buf);
    return 0;
}

/* x, a ratio whose numerator is at most its denominator mathematically: the last bits of two sums
 * of the same intervals (a rank's compute added step by step, the makespan telescoped) may put it
 * above 1 by a rounding error, which is 1; a larger excess stays, for the tests to see. */
static double unit_ratio(double x) { return x > 1 && x < 1 + 1e-12 ? 1 : x; }

void rs_walk_metrics(const rs_problem_t *p, const rs_machine_t *m, rs_walk_t *w) {
    w->peak_flops_per_s = rs_kernel_peak_flops(p, m);
    const double t = w->makespan_s;
    w->balance_efficiency = t > 0 ? unit_ratio(w->busy_mean_s / t) : 1;
    w->fraction_of_peak = t > 0 ? unit_ratio((double)w->flops_useful / ((double)p->n_ranks * w->peak_flops_per_s * t)) : 0;
    w->load_balance = w->busy_max_s > 0 ? unit_ratio(w->busy_mean_s / w->busy_max_s) : 1;
}
