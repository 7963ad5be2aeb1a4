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

static int emit(rs_event_sink_t sink, int64_t rank, int64_t step, rs_pass_t pass, rs_event_kind_t kind,
                int64_t peer, double start, double end, double flops, double bytes) {
    rs_event_t ev = {(int32_t)rank, (int32_t)step, pass, kind, (int32_t)peer, start, end, flops, bytes};
    return rs_sink_emit(sink, &ev);
}

/* Per-step work of the walk: the schedule's three step classes and their costs (model/4-cost/kernel.h),
 * or (when the work is no function of the class: decode with uneven sequences per rank, the dense
 * model) the schedule per step. */
typedef struct {
    uint64_t useful[3], exec[3]; /* FLOPs of class 0 (owner < rank), 1 (owner == rank), 2 (owner > rank) */
    double time_s[3];            /* scaled work of the class: calls + merges (exec / F_eff(B) in the dense model) */
    double after_s[3];           /* the class's merges after the incoming dK,dV partial arrives (kernel.h) */
    double before_s[3];          /* the part of time_s before the calls: the compute event starts after it */
    int launches[3];             /* launches of the class */
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

/* Compute duration of (rank r, step k < N): the inline form of rs_kernel_rank_step_s without the host
 * cost (tested against it); adds the step's FLOPs to the totals; *after: its merges after the incoming
 * partial arrives, *before: the part of the duration before its calls, each x straggler
 * (rs_kernel_step_s's acc->after_s, acc->before_s). */
static inline double rank_work(const work_classes_t *wc, int64_t r, int64_t k, uint64_t *useful, uint64_t *exec,
                               double *after, double *before) {
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
    *useful += fu;
    *exec += fx;
    if (!(scaled > 0) && launches == 0) return 0;
    double work = scaled * wc->slow[r];
    if (wc->m->jitter > 0) work *= 1 + wc->m->jitter * (2 * rs_hash_unit(wc->m->seed, (uint64_t)r, (uint64_t)k) - 1);
    return work + (double)launches * wc->m->cal.launch_s;
}

/* Running totals of a walk. */
typedef struct {
    uint64_t useful, exec;   /* FLOPs */
    int64_t bound;           /* (rank, step) whose transfers outlast the compute */
    double comp_max, comm_max;
} walk_acc_t;

/* One step of the one-pass walk: full overlap (eta = 1, sigma = 1) and no events. Hop r's flows
 * end at max(t0[r], t0[r+1]) + L_r + bytes / W_r; a rank waits for its hop and the previous. */
static inline void fused_step(const work_classes_t *wc, int64_t k, int nx, double tb, double host, const double *lat,
                              const double *inv_bw, const double *t0, double *te, double *busy, walk_acc_t *acc) {
    const int64_t n = wc->n;
    const bool computes = k < n;
    double fe_prev = 0, fe_last = 0;
    if (nx > 0) fe_prev = fe_last = (t0[n - 1] > t0[0] ? t0[n - 1] : t0[0]) + lat[n - 1] + tb * inv_bw[n - 1];
    for (int64_t r = 0; r < n; r++) {
        double after = 0, before = 0;
        double work = computes ? rank_work(wc, r, k, &acc->useful, &acc->exec, &after, &before) : 0;
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

/* The end of step k on every rank from its compute durations ce, its merges after the arrival af and
 * its hops' post and flow ends: compute at 1/sigma speed while a transfer of the rank is in flight,
 * the step's end (af after the later of compute and arrival: the step event spans compute and
 * transfers, the merges lie between it and the next step; epi, the last step's only: the pass
 * epilogue, inside its event), the totals, and the events. Returns 0, or -1 when the sink refused an event. */
static int step_ends(const rs_schedule_t *s, const rs_machine_t *m, rs_event_sink_t sink, int64_t k, int nx,
                     uint64_t total_bytes, const double *t0, const double *ce, const double *bf, const double *af,
                     const double *epi, const double *post, const double *fe, double *te, double *busy, walk_acc_t *acc) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const int64_t n = p->n_ranks;
    const double sigma = m->cal.comp_slowdown;
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
        if (rs_sink_wants(sink)) {
            uint64_t fu, fx;
            rs_schedule_flops(s, r, k, &fu, &fx);
            if (k < n) rc |= emit(sink, r, k, p->pass, RS_EV_COMPUTE, -1, t0[r] + (ce[r] > 0 ? bf[r] : 0), end_c, (double)fx, 0);
            if (nx > 0) {
                rc |= emit(sink, r, k, p->pass, RS_EV_SEND, r + 1 == n ? 0 : r + 1, t0[r], fe[r], 0, (double)total_bytes);
                rc |= emit(sink, r, k, p->pass, RS_EV_RECV, r == 0 ? n - 1 : r - 1, t0[r], fe[prev], 0, (double)total_bytes);
            }
            rc |= emit(sink, r, k, p->pass, RS_EV_STEP, -1, t0[r], end_s, 0, 0);
        }
    }
    return rc;
}

/* pass-q's all-to-all step (docs/inference.md): no compute; the exchange starts when the last rank
 * has posted (a loopback rank: its own start) and each rank is done rs_machine_a2a_rank_s of the N
 * partials it holds later. Send and receive events span post to that end, peer -1. Returns 0,
 * or -1 when the sink refused an event. */
static int a2a_step(const rs_schedule_t *s, const rs_machine_t *m, rs_event_sink_t sink, int64_t k, uint64_t peer_bytes,
                    const double *t0, double *te, walk_acc_t *acc) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const int64_t n = p->n_ranks;
    const double bytes = (double)peer_bytes * (double)(n - 1);
    double start = 0;
    for (int64_t r = 0; r < n; r++) start = t0[r] > start ? t0[r] : start;
    int rc = 0;
    for (int64_t r = 0; r < n; r++) {
        te[r] = (m->loopback ? t0[r] : start) + rs_machine_a2a_rank_s(m, n, (double)peer_bytes * (double)n, r);
        if (te[r] - t0[r] > acc->comm_max) acc->comm_max = te[r] - t0[r];
        acc->bound++; /* nothing to compute: the transfers set the step */
        if (rs_sink_wants(sink)) {
            rc |= emit(sink, r, k, p->pass, RS_EV_SEND, -1, t0[r], te[r], 0, bytes);
            rc |= emit(sink, r, k, p->pass, RS_EV_RECV, -1, t0[r], te[r], 0, bytes);
            rc |= emit(sink, r, k, p->pass, RS_EV_STEP, -1, t0[r], te[r], 0, 0);
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

int rs_model_walk(const rs_schedule_t *s, const rs_machine_t *m, rs_event_sink_t sink, double *rank_busy_s,
                  rs_walk_t *out, rs_err_t *err) {
    const rs_problem_t *p = rs_schedule_problem(s);
    if (rs_machine_validate(m, p->n_ranks, err) != 0) return -1;
    memset(out, 0, sizeof *out);
    const int64_t n = p->n_ranks, steps = rs_schedule_n_steps(s);
    rs_kmodel_t km;
    rs_kmodel_init(&km, p, m);
    const double f_ideal = rs_kernel_ideal_rate(&km);

    /* O(N) state: step start/end, compute end, after-arrival merges, hop post time and last flow end, hop constants */
    double *buf = malloc(sizeof(double) * (size_t)n * 13);
    if (!buf) return rs_errf(err, "walk: out of memory for N = %lld ranks", (long long)n);
    double *t0 = buf, *te = buf + n, *ce = buf + 2 * n, *post = buf + 3 * n, *fe = buf + 4 * n;
    double *bw = buf + 5 * n, *lat = buf + 6 * n, *slow = buf + 7 * n, *busy = buf + 8 * n, *inv_bw = buf + 9 * n;
    double *af = buf + 10 * n; /* merges after the arrival (backward) */
    double *epi = buf + 11 * n; /* the pass epilogue after the last step */
    double *bf = buf + 12 * n;  /* merges before the calls (the compute event starts after them) */
    for (int64_t h = 0; h < n; h++) {
        t0[h] = 0;
        busy[h] = 0;
        bw[h] = rs_machine_hop_bw(m, n, h);
        lat[h] = rs_machine_hop_latency(m, n, h);
        inv_bw[h] = 1 / bw[h];
        slow[h] = 1;
    }
    for (int i = 0; i < m->perturb.n_stragglers; i++) slow[m->perturb.straggler_rank[i]] *= m->perturb.straggler_factor[i];

    /* The blocks of (rank, step) depend only on the order of the KV owner and the rank
     * (rs_schedule_flops_classes); their costs are computed once per class (rs_kernel_classes). Decode
     * with uneven sequences per rank has no classes: the dense model per step (schedule's FLOPs). */
    rs_kclasses_t kc;
    rs_kernel_classes(&km, true, &kc);
    work_classes_t wc = {.n = n, .slow = slow, .m = m, .km = &km, .kc = &kc, .s = s, .f_eff = km.f_eff};
    uint64_t su[3], sx[3];
    wc.per_step = rs_schedule_flops_classes(s, su, sx) != 0;
    for (int i = 0; i < 3; i++) {
        wc.useful[i] = kc.useful[i], wc.exec[i] = kc.exec[i];
        wc.time_s[i] = kc.cls[i].scaled_s, wc.launches[i] = kc.cls[i].launches, wc.after_s[i] = kc.cls[i].after_s;
        wc.before_s[i] = kc.cls[i].before_s;
        wc.epilogue |= kc.cls[i].deferred_s > 0 || kc.cls[i].deferred_launches > 0;
    }
    wc.epilogue |= kc.epi_fixed_s > 0 || kc.epi_fixed_launches > 0;
    for (int64_t r = 0; r < n; r++) {
        double es = 0;
        int el = 0;
        if (wc.epilogue) rs_kernel_classes_epilogue(&km, &kc, r, &es, &el);
        epi[r] = es > 0 || el > 0 ? (double)el * m->cal.launch_s + es * slow[r] : 0;
    }
    /* one pass when every step fully overlaps (no eta < 1 anywhere), no slowdown and no events */
    const bool fused = !rs_machine_partial_overlap(m) && m->cal.comp_slowdown <= 1 && !rs_sink_wants(sink) && !m->loopback;

    walk_acc_t acc = {0, 0, 0, 0, 0}; /* a local: its fields stay in registers (the arrays could alias *out) */
    int rc = 0;
    for (int64_t k = 0; k < steps && rc == 0; k++) {
        const uint64_t a2a_bytes = rs_schedule_step_a2a_bytes(s, k);
        if (a2a_bytes > 0) { /* pass-q's return: a collective step */
            rc = a2a_step(s, m, sink, k, a2a_bytes, t0, te, &acc);
            out->rank_steps += n;
            double *tmp = t0;
            t0 = te;
            te = tmp;
            continue;
        }
        uint64_t bytes[RS_MAX_TRANSFERS];
        const int nx = rs_schedule_step_xfers(s, k, bytes);
        uint64_t total_bytes = 0;
        for (int i = 0; i < nx; i++) total_bytes += bytes[i];
        const bool computes = k < n;
        /* the step's overlap factor (by the bytes on a hop) and host cost of receiving them */
        const double eta = rs_machine_overlap(m, (double)total_bytes);
        /* the transfer curves at the step's bytes (those received into the buffer sent at k - 1: reused) */
        const double reused = (double)rs_schedule_step_reused_bytes(s, k);
        const double host = rs_machine_host_s(m, nx, (double)total_bytes, reused);
        const double gx = rs_machine_step_xfer_factor(m, (double)total_bytes, reused);
        /* polled progress: each receiver's eta from its own step's polls (polls.h) */
        const bool polled = nx > 0 && computes && rs_calibration_polled(&m->cal);
        const bool simple_flows = eta >= 1 && !polled; /* equal-start processor sharing: the last flow ends at a + sum(x) */
        if (fused) {
            fused_step(&wc, k, nx, (double)total_bytes * gx, host, lat, inv_bw, t0, te, busy, &acc);
        } else {
            /* compute durations (inline form of rs_machine_comp_time, tested against it) */
            for (int64_t r = 0; r < n; r++) {
                af[r] = bf[r] = 0;
                double work = computes ? rank_work(&wc, r, k, &acc.useful, &acc.exec, &af[r], &bf[r]) : 0;
                if (work > 0) work += host;
                ce[r] = work; /* a duration until step_ends */
                if (nx > 0 && simple_flows) { /* transfers on hop r -> r+1, posted at both step starts */
                    const int64_t q = m->loopback ? r : r + 1 == n ? 0 : r + 1;
                    post[r] = t0[r] > t0[q] ? t0[r] : t0[q];
                    fe[r] = post[r] + lat[r] + (double)total_bytes * gx * inv_bw[r];
                }
            }
            if (nx > 0 && !simple_flows) {
                double xb[RS_MAX_TRANSFERS];
                for (int i = 0; i < nx; i++) xb[i] = (double)bytes[i];
                sort_small(xb, nx);
                for (int64_t r = 0; r < n; r++) {
                    const int64_t q = m->loopback ? r : r + 1 == n ? 0 : r + 1;
                    post[r] = t0[r] > t0[q] ? t0[r] : t0[q];
                    double x[RS_MAX_TRANSFERS];
                    for (int i = 0; i < nx; i++) x[i] = xb[i] * gx / bw[r];
                    double eta_q = eta;
                    if (polled) {
                        rs_step_t st;
                        rs_schedule_step(s, q, k, &st);
                        eta_q = rs_step_eta(m, (double)total_bytes, (double)total_bytes * gx / bw[r], ce[q],
                                            rs_step_poll_frac(m, p, &st, (double)total_bytes, reused));
                    }
                    fe[r] = flows_end(post[r] + lat[r], t0[q] + ce[q], eta_q, x, nx, NULL); /* q receives */
                }
            }
            rc = step_ends(s, m, sink, k, nx, total_bytes, t0, ce, bf, af, k == steps - 1 ? epi : NULL, post, fe, te, busy, &acc);
        }
        out->rank_steps += n;
        double *tmp = t0;
        t0 = te;
        te = tmp;
    }
    if (fused) /* the pass epilogue after the last step (step_ends puts it in the last step's event) */
        for (int64_t r = 0; r < n; r++) t0[r] += epi[r], busy[r] += epi[r];
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
        if (t0[r] > out->makespan_s) out->makespan_s = t0[r];
        if (busy[r] > out->busy_max_s) out->busy_max_s = busy[r];
        sum_busy += busy[r];
        if (rank_busy_s) rank_busy_s[r] = busy[r];
    }
    out->busy_mean_s = sum_busy / (double)n;
    out->ideal_s = (double)out->flops_useful / ((double)n * f_ideal);
    out->efficiency = out->makespan_s > 0 ? out->ideal_s / out->makespan_s : 1;
    free(buf);
    return 0;
}
