/* alt.c - Ring, Ulysses and USP attention costs on one machine (alt.h; derivation: docs/plan.md). */
#include "alt.h"

#include <math.h>
#include <string.h>

static const char *const sp_names[RS_SP_COUNT] = {"ring", "ulysses", "usp"};
const char *rs_sp_kind_name(rs_sp_kind_t k) { return (unsigned)k < RS_SP_COUNT ? sp_names[k] : "?"; }

void rs_sp_config_default(rs_sp_config_t *c) {
    rs_problem_t p; /* the one default problem */
    rs_problem_default(&p);
    memset(c, 0, sizeof *c);
    c->seq_tokens = p.seq_tokens, c->batch = p.batch, c->ulysses = 1, c->ring = p.n_ranks, c->causal = p.causal;
    c->layout = p.layout, c->act_bytes = p.act_bytes, c->grad_bytes = p.grad_bytes, c->tile = p.tile_q;
}

static rs_sp_kind_t kind_of(int64_t u, int64_t r) {
    if (u == 1) return RS_SP_RING;
    return r == 1 ? RS_SP_ULYSSES : RS_SP_USP;
}

int rs_sp_check(const rs_transformer_t *t, const rs_machine_t *m, const rs_sp_config_t *c, rs_err_t *err) {
    if (c->ulysses < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "--ulysses %lld: must be >= 1", (long long)c->ulysses);
    if (c->ring < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "ring degree %lld: must be >= 1", (long long)c->ring);
    if (c->ulysses > t->kv_heads)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--ulysses %lld: Ulysses gives each device whole KV heads and %s has only %lld, so "
                            "U <= %lld (use a ring or USP for N = %lld)",
                       (long long)c->ulysses, t->name, (long long)t->kv_heads, (long long)t->kv_heads,
                       (long long)(c->ulysses * c->ring));
    if (t->kv_heads % c->ulysses)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--ulysses %lld: must divide the %lld KV heads of %s (each device owns whole heads)",
                       (long long)c->ulysses, (long long)t->kv_heads, t->name);
    int64_t n = c->ulysses * c->ring;
    if (c->seq_tokens < 1 || c->seq_tokens % n)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld: must be a positive multiple of N = U x R = %lld x %lld = %lld",
                       (long long)c->seq_tokens, (long long)c->ulysses, (long long)c->ring, (long long)n);
    if (c->ring > 1 && c->layout == RS_LAYOUT_ZIGZAG && c->seq_tokens % (2 * c->ring))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld: must be divisible by 2R = %lld for the zigzag ring", (long long)c->seq_tokens,
                       (long long)(2 * c->ring));
    int64_t g = m->devices_per_node;
    if (g > 0 && c->ulysses > 1 && c->ring > 1 && g % c->ulysses && c->ulysses % g)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--ulysses %lld with %lld devices per node: one must divide the other so that "
                            "Ulysses groups and ring ranks tile the nodes",
                       (long long)c->ulysses, (long long)g);
    return 0;
}

int rs_sp_ring_problem(const rs_transformer_t *t, const rs_machine_t *m, const rs_sp_config_t *c, rs_pass_t pass,
                       rs_sp_ring_t *out, rs_err_t *err) {
    if (rs_sp_check(t, m, c, err)) return -1;
    rs_problem_t *p = &out->problem;
    rs_machine_t *ring_m = &out->machine;
    rs_problem_default(p);
    p->seq_tokens = c->seq_tokens;
    p->n_ranks = c->ring;
    p->batch = c->batch;
    p->q_heads = t->q_heads / c->ulysses;
    p->kv_heads = t->kv_heads / c->ulysses;
    p->head_dim = t->head_dim;
    p->act_bytes = c->act_bytes;
    p->grad_bytes = c->grad_bytes;
    p->causal = c->causal;
    p->layout = c->ring > 1 ? c->layout : RS_LAYOUT_CONTIGUOUS;
    p->pass = pass;
    p->tile_q = p->tile_k = c->tile;
    if (rs_problem_validate(p, err)) return -1;
    *ring_m = *m;
    if (c->ulysses > 1) {
        int64_t g = m->devices_per_node;
        if (g > 0) ring_m->devices_per_node = g >= c->ulysses ? g / c->ulysses : 1;
        /* perturbations name ranks and hops of the full N: they do not map onto the sub-ring */
        ring_m->perturb.n_stragglers = 0;
        ring_m->perturb.n_degraded = 0;
    }
    return 0;
}

/* One pass of the ring sub-problem: its walk, its closed form, its total useful FLOPs. */
typedef struct {
    rs_walk_t walk;
    rs_closed_t closed;
    uint64_t flops_total;
} pass_cost_t;

/* Walk one pass of the ring sub-problem. */
static int walk_pass(const rs_transformer_t *t, const rs_machine_t *m, const rs_sp_config_t *c, rs_pass_t pass,
                     pass_cost_t *out, rs_err_t *err) {
    rs_sp_ring_t ring;
    if (rs_sp_ring_problem(t, m, c, pass, &ring, err)) return -1;
    rs_schedule_t *s = rs_schedule_create(&ring.problem, err);
    if (!s) return -1;
    int rc = rs_model_walk(s, &ring.machine, RS_NO_SINK, NULL, &out->walk, err);
    rs_schedule_free(s);
    if (rc) return -1;
    /* B* of the forward is printed (ring_b_star_tokens): a search with kernel curves, so only there */
    if ((pass == RS_PASS_FORWARD && c->ring > 1 ? rs_model_b_star : rs_model_closed)(&ring.problem, &ring.machine, &out->closed, err))
        return -1;
    out->flops_total = rs_problem_total_flops(&ring.problem);
    return 0;
}

void rs_sp_a2a_of_tensors(double q_bytes, double kv_bytes, rs_pass_t pass, rs_sp_a2a_t *out) {
    memset(out, 0, sizeof *out);
    const double qkv[3] = {q_bytes, kv_bytes, kv_bytes};
    double *many = pass == RS_PASS_FORWARD ? out->in_bytes : out->out_bytes, *one = pass == RS_PASS_FORWARD ? out->out_bytes : out->in_bytes;
    for (int i = 0; i < 3; i++) many[i] = qkv[i]; /* Q, K, V in (forward) or dQ, dK, dV out (backward) */
    one[0] = q_bytes;                             /* O out (forward) or dO in (backward) */
    out->n_in = pass == RS_PASS_FORWARD ? 3 : 1;
    out->n_out = pass == RS_PASS_FORWARD ? 1 : 3;
}

void rs_sp_a2a_calls(const rs_transformer_t *t, const rs_sp_config_t *c, rs_pass_t pass, rs_sp_a2a_t *out) {
    memset(out, 0, sizeof *out);
    if (c->ulysses <= 1) return;
    /* a device holds S/N tokens x all heads of a sequence before the exchange */
    const double tok = (double)c->batch * (double)c->seq_tokens / (double)(c->ulysses * c->ring), a = (double)c->act_bytes;
    rs_sp_a2a_of_tensors(tok * (double)(t->q_heads * t->head_dim) * a, tok * (double)(t->kv_heads * t->head_dim) * a, pass, out);
}

double rs_sp_a2a_time_s(const rs_machine_t *m, int64_t u, const rs_sp_a2a_t *calls, double *bytes, bool *inter) {
    double sum_bytes = 0, time_s = 0;
    bool any = false;
    for (int i = 0; i < calls->n_in + calls->n_out; i++) {
        const double b = i < calls->n_in ? calls->in_bytes[i] : calls->out_bytes[i - calls->n_in];
        bool x = false;
        time_s += rs_machine_a2a_s(m, u, b, &x);
        sum_bytes += b;
        any = any || x;
    }
    if (bytes) *bytes = sum_bytes;
    if (inter) *inter = any;
    return time_s;
}

int rs_sp_cost(const rs_transformer_t *t, const rs_machine_t *m, const rs_sp_config_t *c, rs_sp_cost_t *out,
               rs_err_t *err) {
    if (rs_sp_check(t, m, c, err)) return -1;
    rs_sp_cost_t o;
    memset(&o, 0, sizeof o);
    o.kind = kind_of(c->ulysses, c->ring);
    o.ulysses = c->ulysses;
    o.ring = c->ring;

    pass_cost_t fwd, bwd;
    if (walk_pass(t, m, c, RS_PASS_FORWARD, &fwd, err) || walk_pass(t, m, c, RS_PASS_BACKWARD, &bwd, err)) return -1;
    const rs_walk_t *wf = &fwd.walk, *wb = &bwd.walk;
    const rs_closed_t *cf = &fwd.closed, *cb = &bwd.closed;
    const uint64_t ff = fwd.flops_total, fb = bwd.flops_total;
    o.attn_fwd_s = wf->makespan_s;
    o.attn_bwd_s = wb->makespan_s;
    o.walk_eff_fwd = wf->balance_efficiency;
    o.flops_useful_fwd = (double)ff * (double)c->ulysses; /* the ring sub-problem holds Hq/U heads */
    o.flops_useful_bwd = (double)fb * (double)c->ulysses;
    o.ring_block_tokens = c->seq_tokens / c->ring;
    if (c->ring > 1) {
        o.ring_t_comp_s = cf->t_comp_s;
        o.ring_t_comm_s = cf->t_comm_s;
        o.ring_b_star_tokens = cf->b_star_tokens;
        /* hidden: the one rule (model/4-cost/kernel.h) - the layout's middle step computes at least as long
         * as its transfers take (a causal zigzag step computes about half a block). The walk's counts
         * of (rank, step) waiting on a transfer are kept for reference (its backward tail steps carry
         * dK, dV home with nothing to compute and are not counted). */
        o.comm_bound_fwd = wf->comm_bound_steps;
        o.comm_bound_bwd = wb->comm_bound_steps > c->ring ? wb->comm_bound_steps - c->ring : 0;
        o.ring_hidden_fwd = !cf->comm_bound;
        o.ring_hidden_bwd = !cb->comm_bound;
        rs_sp_ring_t ring;
        if (rs_sp_ring_problem(t, m, c, RS_PASS_FORWARD, &ring, err)) return -1;
        for (int64_t h = 0; h < c->ring && !o.ring_inter; h++) o.ring_inter = rs_machine_hop_inter(&ring.machine, c->ring, h);
    } else {
        o.ring_hidden_fwd = o.ring_hidden_bwd = true; /* nothing circulates */
    }

    if (c->ulysses > 1) { /* one all-to-all per tensor, one after the other (alt.h) */
        for (int pass = 0; pass < 2; pass++) {
            rs_sp_a2a_t calls;
            rs_sp_a2a_calls(t, c, pass ? RS_PASS_BACKWARD : RS_PASS_FORWARD, &calls);
            double bytes = 0;
            bool x = false;
            const double time_s = rs_sp_a2a_time_s(m, c->ulysses, &calls, &bytes, &x);
            o.a2a_inter = o.a2a_inter || x;
            *(pass ? &o.a2a_bwd_s : &o.a2a_fwd_s) = time_s;
            *(pass ? &o.a2a_bwd_bytes : &o.a2a_fwd_bytes) = bytes;
        }
    }
    o.fwd_s = o.a2a_fwd_s + o.attn_fwd_s;
    o.bwd_s = o.a2a_bwd_s + o.attn_bwd_s;
    *out = o;
    return 0;
}

int rs_sp_memory(const rs_transformer_t *t, const rs_mem_config_t *c, rs_mem_t *out, rs_err_t *err) {
    if (c->ulysses_degree > 1 && c->sp_degree % c->ulysses_degree == 0) { /* Ulysses' head bound, S divisibility */
        rs_machine_t flat;
        memset(&flat, 0, sizeof flat);
        rs_sp_config_t sc;
        rs_sp_config_default(&sc);
        sc.seq_tokens = c->seq_tokens;
        sc.ulysses = c->ulysses_degree;
        sc.ring = c->sp_degree / c->ulysses_degree;
        if (rs_sp_check(t, &flat, &sc, err)) return -1;
    }
    return rs_memory_ring(t, c, out, err);
}
