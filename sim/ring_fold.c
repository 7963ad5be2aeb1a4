/* ring_fold.c - a single ring folded by its rotation symmetry: the check (ring_fold.h). */
#include "ring_fold.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "polls.h"

/* What one rank-step costs, rank-relative (peers as offsets from the rank). */
typedef struct {
    double tc_s;                 /* compute seconds (rs_kernel_step_s, as sim_step_compute_s) */
    double before_s, after_s;    /* the merges before the calls and after the arrival */
    double epilogue_s;           /* after the last step (0 before) */
    double eta;                  /* partial overlap: the incoming hop's rate while computing (rs_ring_recv_eta) */
    uint64_t flops_useful, flops_exec, send_bytes, recv_bytes;
    int64_t send_off, recv_off;  /* peer - rank mod N; -1: none */
    int n_send, n_recv;
    bool has_compute, a2a;
    uint64_t send[RS_MAX_TRANSFERS], recv[RS_MAX_TRANSFERS];
} step_cost_t;

static int64_t offset_of(int64_t peer, int64_t p, int64_t n) { return peer < 0 ? -1 : ((peer - p) % n + n) % n; }

double rs_ring_recv_eta(const rs_machine_t *m, const rs_problem_t *p, int64_t n, int64_t prev_rank, const rs_step_t *st, double tc_s,
                        double recv_bytes, double reused_bytes) {
    if (!rs_machine_partial_overlap(m) || !(tc_s > 0) || st->n_recv == 0) return 1;
    if (!rs_calibration_polled(&m->cal)) return rs_machine_overlap(m, recv_bytes);
    /* polled progress: from this rank's own polls (model/4-cost/polls.h) */
    const double xfer_s = recv_bytes * rs_machine_step_xfer_factor(m, recv_bytes, reused_bytes) / rs_machine_hop_bw(m, n, prev_rank);
    return rs_step_eta(m, recv_bytes, xfer_s, tc_s, rs_step_poll_frac(m, p, st, recv_bytes, reused_bytes));
}

static void cost_of(const rs_schedule_t *s, const rs_machine_t *m, const rs_kmodel_t *km, int64_t p, int64_t k, int64_t n, int64_t steps,
                    rs_krank_t *acc, step_cost_t *c) {
    rs_step_t st;
    rs_schedule_step(s, p, k, &st);
    double recv_bytes = 0;
    for (int i = 0; i < st.n_recv; i++) recv_bytes += (double)st.recv[i].bytes;
    const double reused = (double)rs_schedule_step_reused_bytes(s, k);
    memset(c, 0, sizeof *c);
    c->tc_s = rs_kernel_step_s(km, &st, acc, st.n_recv, recv_bytes, reused);
    c->eta = rs_ring_recv_eta(m, rs_schedule_problem(s), n, (p + n - 1) % n, &st, c->tc_s, recv_bytes, reused);
    c->before_s = acc->before_s;
    c->after_s = acc->after_s;
    c->epilogue_s = k == steps - 1 ? rs_kernel_rank_epilogue_s(km, acc, p) : 0;
    c->flops_useful = st.flops_useful;
    c->flops_exec = st.flops_exec;
    c->send_bytes = st.send_bytes;
    c->recv_bytes = st.recv_bytes;
    c->send_off = offset_of(st.send_peer, p, n);
    c->recv_off = offset_of(st.recv_peer, p, n);
    c->n_send = st.n_send;
    c->n_recv = st.n_recv;
    c->has_compute = st.has_compute;
    c->a2a = st.a2a;
    for (int i = 0; i < st.n_send && i < RS_MAX_TRANSFERS; i++) c->send[i] = st.send[i].bytes;
    for (int i = 0; i < st.n_recv && i < RS_MAX_TRANSFERS; i++) c->recv[i] = st.recv[i].bytes;
}

static bool same_cost(const step_cost_t *a, const step_cost_t *b) {
    if (a->tc_s != b->tc_s || a->eta != b->eta || a->before_s != b->before_s || a->after_s != b->after_s || a->epilogue_s != b->epilogue_s ||
        a->flops_useful != b->flops_useful || a->flops_exec != b->flops_exec || a->send_bytes != b->send_bytes ||
        a->recv_bytes != b->recv_bytes || a->send_off != b->send_off || a->recv_off != b->recv_off || a->n_send != b->n_send ||
        a->n_recv != b->n_recv || a->has_compute != b->has_compute || a->a2a != b->a2a)
        return false;
    for (int i = 0; i < a->n_send && i < RS_MAX_TRANSFERS; i++)
        if (a->send[i] != b->send[i]) return false;
    for (int i = 0; i < a->n_recv && i < RS_MAX_TRANSFERS; i++)
        if (a->recv[i] != b->recv[i]) return false;
    return true;
}

/* Every hop on links of one kind, bandwidth and latency (the generated platform's, platform.c). */
static bool hops_alike(const rs_machine_t *m, int64_t n) {
    const bool inter = rs_machine_hop_inter(m, n, 0);
    const double bw = rs_machine_hop_bw(m, n, 0), lat = rs_machine_hop_latency(m, n, 0);
    for (int64_t h = 1; h < n; h++)
        if (rs_machine_hop_inter(m, n, h) != inter || rs_machine_hop_bw(m, n, h) != bw || rs_machine_hop_latency(m, n, h) != lat)
            return false;
    return true;
}

bool rs_ring_fold_may(const rs_sim_config_t *cfg) {
    return !cfg->job && !cfg->no_fold && cfg->engine == RS_SIM_ENGINE_FAST && !cfg->platform_path;
}

int64_t rs_ring_fold_copies(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg) {
    if (!rs_ring_fold_may(cfg)) return 1;
    int64_t copies = 1;
    if (sim_folds_ring_find(cfg->folds, rs_schedule_problem(s), m, &copies)) return copies;
    copies = rs_ring_fold_copies_check(s, m, cfg);
    sim_folds_ring_keep(cfg->folds, rs_schedule_problem(s), m, copies);
    return copies;
}

int64_t rs_ring_fold_copies_check(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg) {
    const rs_problem_t *pb = rs_schedule_problem(s);
    const int64_t n = pb->n_ranks, steps = rs_schedule_n_steps(s);
    if (!rs_ring_fold_may(cfg) || n < 2 || steps < 1 || m->cal.comp_slowdown > 1 || rs_schedule_step_a2a_bytes(s, n) > 0 ||
        !hops_alike(m, n))
        return 1;
    step_cost_t *ref = malloc(sizeof *ref * (size_t)steps);
    if (!ref) return 1;
    rs_kmodel_t km;
    rs_kmodel_init(&km, pb, m);
    bool alike = true;
    rs_krank_t acc;
    memset(&acc, 0, sizeof acc);
    for (int64_t k = 0; k < steps && alike; k++) {
        cost_of(s, m, &km, 0, k, n, steps, &acc, &ref[k]);
        /* the representative is its own neighbour: each transfer it sends is the one it receives */
        alike = !ref[k].a2a && ref[k].n_send == ref[k].n_recv && ref[k].n_send <= RS_MAX_TRANSFERS &&
                (ref[k].n_send == 0 || (ref[k].send_off == 1 && ref[k].recv_off == n - 1));
    }
    for (int64_t p = 1; p < n && alike; p++) {
        memset(&acc, 0, sizeof acc);
        for (int64_t k = 0; k < steps && alike; k++) {
            step_cost_t c;
            cost_of(s, m, &km, p, k, n, steps, &acc, &c);
            alike = same_cost(&c, &ref[k]);
        }
    }
    free(ref);
    return alike ? n : 1;
}
