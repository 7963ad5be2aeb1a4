/* budget.c - every split of a device budget, ranked, and why each loses (budget.h; docs/plan.md 5a). */
#include "budget.h"
#include "budget_serve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const bound_names[RS_LIMIT_COUNT] = {"linear", "attention", "ring-transfers", "all-to-all", "tp-allreduce",
                                                        "memory"};
const char *rs_limit_name(rs_limit_t b) { return rs_enum_name(bound_names, RS_LIMIT_COUNT, (int)b); }

/* A step's shares, seconds: the linear layers (with the LM head), the attention kernels and ring, the
 * all-to-alls, the TP all-reduces. */
typedef struct {
    double linear, attention, a2a, tp;
} shares_t;

static shares_t shares(const rs_plan_option_t *o, int64_t layers) {
    const double l = (double)layers, acc = (double)o->accum;
    const double a2a_layer = o->attn.a2a_fwd_s + o->attn.a2a_bwd_s + (o->t_attn_layer_s > o->attn.fwd_s + o->attn.bwd_s ? o->attn.a2a_fwd_s : 0);
    return (shares_t){acc * (l * o->t_linear_layer_s + o->t_head_s), acc * l * (o->t_attn_layer_s - a2a_layer), acc * l * a2a_layer,
                      acc * l * o->t_tp_layer_s};
}

static bool ring_exposed(const rs_plan_option_t *o) { return o->ring > 1 && !(o->attn.ring_hidden_fwd && o->attn.ring_hidden_bwd); }

/* The largest of the shares s (the attention's named ring-transfers when they are exposed). */
static rs_limit_t limit_of(shares_t s, bool exposed) {
    rs_limit_t b = RS_LIMIT_LINEAR;
    double top = s.linear;
    if (s.attention > top) top = s.attention, b = exposed ? RS_LIMIT_RING : RS_LIMIT_ATTENTION;
    if (s.a2a > top) top = s.a2a, b = RS_LIMIT_A2A;
    if (s.tp > top) b = RS_LIMIT_TP;
    return b;
}

rs_limit_t rs_plan_limit(const rs_plan_option_t *o) {
    if (!o->fits) return RS_LIMIT_MEMORY;
    /* the layer count scales every share alike but the head's: one layer is enough to compare */
    return limit_of(shares(o, 1), ring_exposed(o));
}

/* The share x spends most more on than w: its index (0 linear, 1 attention, 2 all-to-alls, 3 TP
 * all-reduces), *d the difference (<= 0: none more). */
static int most_more(shares_t x, shares_t w, double *d) {
    const double v[4] = {x.linear - w.linear, x.attention - w.attention, x.a2a - w.a2a, x.tp - w.tp};
    int k = 0;
    for (int i = 1; i < 4; i++)
        if (v[i] > v[k]) k = i;
    *d = v[k];
    return k;
}

/* "does not fit: 92.1 GiB > 80.0 GiB usable" into buf; the characters written. */
static size_t no_fit(char *buf, size_t len, double mem_bytes, double usable_bytes) {
    const int n = snprintf(buf, len, "does not fit: %.1f GiB > %.1f GiB usable", mem_bytes / 1073741824.0, usable_bytes / 1073741824.0);
    return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

/* The order of a budget: fitting first (the smaller memory first among those that do not), then by
 * the metric, then by time. */
typedef struct {
    bool fits;
    double mem_bytes, metric, time_s;
} order_t;

static int order_cmp(order_t x, order_t y) {
    if (x.fits != y.fits) return x.fits ? -1 : 1;
    if (!x.fits) return (x.mem_bytes > y.mem_bytes) - (x.mem_bytes < y.mem_bytes);
    if (x.metric != y.metric) return x.metric < y.metric ? -1 : 1;
    return (x.time_s > y.time_s) - (x.time_s < y.time_s);
}

/* The TP degrees of a budget of gpus devices on nodes of g: tp <= g dividing gpus that the model's
 * heads and the node allow (rs_tp_check); only `only` when it is > 0. Into out (cap), the count. */
static int tp_sizes(const rs_transformer_t *t, int64_t g, int64_t gpus, int64_t only, int64_t *out, int cap) {
    int n = 0;
    for (int64_t tp = 1; tp <= g && tp <= gpus && n < cap; tp++) {
        rs_err_t skip;
        if (gpus % tp || (only > 0 && tp != only) || rs_tp_check(t, g, tp, &skip)) continue;
        out[n++] = tp;
    }
    return n;
}

/* Room for one more entry of `size` bytes in *e (n used of *cap): doubled from 64. */
static int room(void **e, int *cap, int n, size_t size, rs_err_t *err) {
    if (n < *cap) return 0;
    const int c = *cap ? 2 * *cap : 64;
    void *g = realloc(*e, (size_t)c * size);
    if (!g) return rs_errc(err, RS_ERR_RUNTIME, "out of memory for %d budget configurations", c);
    *e = g, *cap = c;
    return 0;
}

static int add(rs_budget_t *b, int cand, const rs_plan_option_t *o, rs_err_t *err) {
    void *e = b->e;
    const int rc = room(&e, &b->cap, b->n, sizeof *b->e, err);
    b->e = e;
    if (rc != 0) return -1;
    b->e[b->n++] = (rs_budget_entry_t){cand, *o};
    b->n_fit += o->fits;
    return 0;
}

/* The configurations of the budget one at a time: tp, dp (cp = gpus / (tp dp)), layout. */
typedef struct {
    int64_t tp, dp, cp;
} triple_t;

#define MAX_TP 64

static int triples(const rs_plan_config_t *c, const rs_machine_t *m, int64_t gpus, triple_t *out, int cap) {
    int n = 0;
    const int64_t g = m->devices_per_node > 0 ? m->devices_per_node : gpus;
    int64_t tps[MAX_TP];
    const int nt = tp_sizes(&c->model, g, gpus, 0, tps, MAX_TP);
    for (int i = 0; i < nt; i++) {
        const int64_t tp = tps[i];
        for (int64_t dp = 1; dp <= c->global_batch && dp * tp <= gpus; dp++)
            if (c->global_batch % dp == 0 && gpus % (tp * dp) == 0 && n < cap) out[n++] = (triple_t){tp, dp, gpus / (tp * dp)};
    }
    return n;
}

#define MAX_TRIPLES 512

int rs_budget_add(rs_budget_t *b, int cand, const rs_plan_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, int64_t gpus,
                  const rs_layout_t *layouts, int n_layouts, rs_err_t *err) {
    if (gpus < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "--gpus %lld: must be >= 1", (long long)gpus);
    if (c->seq_tokens < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "--gpus %lld: needs a given --seq (not max)", (long long)gpus);
    triple_t tr[MAX_TRIPLES];
    const int nt = triples(c, m, gpus, tr, MAX_TRIPLES);
    if (nt == 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--gpus %lld: no TP x CP x DP split of it: TP must divide the %lld devices of a node and "
                            "the heads of %s, DP the global batch %lld",
                       (long long)gpus, (long long)m->devices_per_node, c->model.name, (long long)c->global_batch);
    for (int i = 0; i < nt; i++)
        for (int l = 0; l < n_layouts; l++) {
            if (tr[i].cp == 1 && l > 0) continue; /* one rank: no ring, no layout */
            rs_plan_config_t cc = *c;
            cc.tp = tr[i].tp, cc.dp = tr[i].dp, cc.fixed_sp = tr[i].cp, cc.layout = layouts[l];
            if (c->seq_tokens % rs_plan_granule(&cc, tr[i].cp)) continue; /* S does not divide over this ring */
            int64_t u[RS_PLAN_MAX_OPTIONS];
            const int ns = rs_plan_splits(&cc, m, c->seq_tokens, tr[i].cp, u);
            for (int k = 0; k < ns; k++) {
                rs_plan_option_t o;
                rs_err_t e = {0};
                if (rs_plan_option(&cc, hw, m, &(rs_plan_split_t){c->seq_tokens, u[k], tr[i].cp / u[k]}, &o, &e)) {
                    if (e.code == RS_ERR_BAD_INPUT) continue; /* a split the schedule cannot represent */
                    return rs_errc(err, e.code, "%s", e.msg);
                }
                if (add(b, cand, &o, err)) return -1;
            }
        }
    return 0;
}

static double metric(const rs_plan_option_t *o, bool by_cost) {
    if (!by_cost) return o->t_step_s;
    return isnan(o->cost_per_step) ? INFINITY : o->cost_per_step;
}

static order_t plan_order(const rs_plan_option_t *o, bool by_cost) { return (order_t){o->fits, o->mem_bytes, metric(o, by_cost), o->t_step_s}; }
static int cmp_by(const rs_budget_entry_t *x, const rs_budget_entry_t *y, bool by_cost) {
    return order_cmp(plan_order(&x->opt, by_cost), plan_order(&y->opt, by_cost));
}
static int cmp_time(const void *a, const void *b) { return cmp_by(a, b, false); }
static int cmp_cost(const void *a, const void *b) { return cmp_by(a, b, true); }

void rs_budget_sort(rs_budget_t *b, bool by_cost) {
    if (b->n > 1) qsort(b->e, (size_t)b->n, sizeof *b->e, by_cost ? cmp_cost : cmp_time);
}

const char *rs_budget_loses(const rs_budget_t *b, const rs_budget_entry_t *o, bool by_cost, char *buf, size_t len) {
    const rs_plan_option_t *x = &o->opt, *w = &b->e[0].opt;
    if (o == &b->e[0]) return snprintf(buf, len, "-"), buf;
    if (!x->fits) return no_fit(buf, len, x->mem_bytes, x->usable_bytes), buf;
    const double mx = metric(x, by_cost), mw = metric(w, by_cost);
    size_t n = 0;
    if (by_cost && isinf(mx)) n += (size_t)snprintf(buf + n, len - n, "no price; ");
    else if (by_cost) n += (size_t)snprintf(buf + n, len - n, "%+.1f%% cost per step (step %+.1f%%); ", 100.0 * (mx / mw - 1),
                                            100.0 * (x->t_step_s / w->t_step_s - 1));
    else n += (size_t)snprintf(buf + n, len - n, "%+.1f%%: ", 100.0 * (mx / mw - 1));
    if (n >= len) return buf;
    if (fabs(mx / mw - 1) < 5e-4) { /* the same work in another order: more replicas, or longer rings */
        snprintf(buf, len, "ties with rank 1 (%lld micro-batches a step, dp %lld, against %lld, dp %lld)", (long long)x->accum,
                 (long long)x->dp, (long long)w->accum, (long long)w->dp);
        return buf;
    }
    if (x->accum != w->accum) {
        snprintf(buf + n, len - n, "%lld micro-batches a step (dp %lld) against %lld (dp %lld)", (long long)x->accum, (long long)x->dp,
                 (long long)w->accum, (long long)w->dp);
        return buf;
    }
    /* the share it spends most more on, per layer of one micro-batch */
    double d;
    const int k = most_more(shares(x, 1), shares(w, 1), &d);
    const double per_layer_ms = d / (double)x->accum * 1e3;
    if (d <= 0) {
        snprintf(buf + n, len - n, "%s", by_cost ? "faster, on dearer devices" : "ties");
        return buf;
    }
    switch (k) {
    case 0:
        snprintf(buf + n, len - n, "GEMMs %+.3g ms a layer (at %.2f of peak against %.2f, TP %lld)", per_layer_ms, x->linear_eff, w->linear_eff,
                 (long long)x->tp);
        break;
    case 1:
        if (ring_exposed(x))
            snprintf(buf + n, len - n, "attention %+.3g ms a layer (ring transfers exposed at B=%lld; full-block B*=%.0f)", per_layer_ms,
                     (long long)x->attn.ring_block_tokens, x->attn.ring_b_star_tokens);
        else
            snprintf(buf + n, len - n, "attention %+.3g ms a layer (B=%lld tokens a ring rank)", per_layer_ms, (long long)x->attn.ring_block_tokens);
        break;
    case 2:
        snprintf(buf + n, len - n, "all-to-alls %+.3g ms a layer (%s)", per_layer_ms, x->attn.a2a_inter ? "across nodes" : "inside a node");
        break;
    default:
        snprintf(buf + n, len - n, "TP all-reduces %+.3g ms a layer (TP %lld)", per_layer_ms, (long long)x->tp);
        break;
    }
    return buf;
}

void rs_budget_estimate(const rs_plan_config_t *c, const rs_machine_t *m, int64_t gpus, int n_layouts, rs_estimate_t *e) {
    triple_t tr[MAX_TRIPLES];
    const int nt = gpus >= 1 ? triples(c, m, gpus, tr, MAX_TRIPLES) : 0;
    for (int i = 0; i < nt; i++) {
        rs_plan_config_t cc = *c;
        cc.tp = tr[i].tp;
        rs_plan_result_t *chosen = calloc(1, sizeof *chosen);
        if (!chosen) return;
        chosen->seq_tokens = c->seq_tokens, chosen->sp = tr[i].cp;
        rs_estimate_t w;
        rs_plan_estimate(&cc, m, chosen, &w);
        for (int l = 0; l < (tr[i].cp > 1 ? n_layouts : 1); l++) rs_estimate_then(e, &w);
        free(chosen);
    }
}

void rs_budget_free(rs_budget_t *b) {
    free(b->e);
    memset(b, 0, sizeof *b);
}

/* ---------------------------------------------------------------------------------------------------
 * Serving
 * ------------------------------------------------------------------------------------------------- */
static const char *const rank_names[] = {"TTFT", "decode step", "cost per prefill"};
const char *rs_budget_rank_name(rs_budget_rank_t r) { return rs_enum_name(rank_names, 3, (int)r); }

/* The deployment of a serving budget on m: the node machine (a budget below one node: a node of G
 * devices), the nodes, the TP degrees. */
typedef struct {
    rs_machine_t node;
    int64_t nodes;
    int n_tp;
    int64_t tp[MAX_TP];
} deployment_t;

static int deployment(const rs_infer_config_t *c, const rs_machine_t *m, int64_t gpus, deployment_t *d, rs_err_t *err) {
    const int64_t g = m->devices_per_node > 0 ? m->devices_per_node : gpus;
    if (gpus < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "--gpus %lld: must be >= 1", (long long)gpus);
    if (gpus > g && gpus % g)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--gpus %lld: above one node it must be whole nodes of %lld devices (a multiple of %lld)",
                       (long long)gpus, (long long)g, (long long)g);
    d->node = *m;
    d->node.devices_per_node = gpus < g ? gpus : g;
    d->nodes = gpus < g ? 1 : gpus / g;
    d->n_tp = tp_sizes(&c->model, d->node.devices_per_node, gpus, c->tp, d->tp, MAX_TP);
    if (d->n_tp == 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--gpus %lld: no TP inside a node of %lld devices that the %lld query and %lld KV heads of %s allow%s",
                       (long long)gpus, (long long)d->node.devices_per_node, (long long)c->model.q_heads, (long long)c->model.kv_heads,
                       c->model.name, c->tp > 0 ? " at the given --tp" : "");
    return 0;
}

/* The split (tp, layout l) as a configuration of c; false when it repeats another (one CP rank: no
 * ring, no layout). */
static bool split_config(const rs_infer_config_t *c, const deployment_t *d, int64_t tp, const rs_budget_ask_t *ask, int l,
                         rs_infer_config_t *out) {
    *out = *c;
    out->tp = tp, out->nodes = d->nodes, out->layout = ask->layouts[l];
    return l == 0 || rs_infer_cp_ranks(out, &d->node) > 1;
}

static int serve_push(rs_budget_serving_t *b, const rs_budget_serve_t *o, rs_err_t *err) {
    void *e = b->e;
    const int rc = room(&e, &b->cap, b->n, sizeof *b->e, err);
    b->e = e;
    if (rc != 0) return -1;
    b->e[b->n++] = *o;
    b->n_fit += o->fits;
    return 0;
}

/* The entry of variant i of point pt (split c on candidate k of a budget of gpus). */
static rs_budget_serve_t serve_entry(const rs_budget_cand_t *k, const rs_infer_config_t *c, const rs_infer_point_t *pt, int i,
                                     int64_t gpus) {
    const rs_infer_option_t *o = &pt->opt[i], *best = &pt->opt[pt->best];
    const double l = (double)c->model.layers, price = k->hw->price_per_device_hour;
    return (rs_budget_serve_t){
        .cand = k->index, .tp = pt->tp, .cp = pt->cp, .nodes = pt->nodes, .ulysses = o->ulysses, .ring = o->ring,
        .layout = c->layout, .kind = o->kind, .fits = pt->fits, .hidden = o->hidden,
        .weight_bytes = pt->weight_bytes, .kv_cache_bytes = pt->kv_cache_bytes, .runtime_bytes = pt->runtime_bytes,
        .usable_bytes = pt->usable_bytes, .ttft_s = o->ttft_s,
        .linear_s = l * pt->linear_layer_s + pt->head_s, .attn_s = l * (o->attn_layer_s - o->a2a_layer_s), .a2a_s = l * o->a2a_layer_s,
        .allreduce_s = l * pt->allreduce_layer_s,
        .decode_step_s = pt->decode_step_s, .decode_linear_s = l * pt->decode_linear_layer_s + pt->decode_head_s,
        .decode_attn_s = l * pt->decode_attn_layer_s, .decode_allreduce_s = l * pt->decode_allreduce_layer_s,
        .usd_per_device_hour = price, .cost_per_prefill = price > 0 ? o->ttft_s * (double)gpus * price / 3600.0 : NAN,
        .flops_util = pt->flops_util * best->ttft_s / o->ttft_s, /* the same model FLOPs over a longer TTFT */
        .block_tokens = c->new_tokens / (o->ring > 0 ? o->ring : 1), .step_bytes = o->step_bytes, .comm_s = o->comm_s, .comp_s = o->comp_s};
}

int rs_budget_serve_add(rs_budget_serving_t *b, const rs_budget_cand_t *k, const rs_infer_config_t *c, const rs_budget_ask_t *ask,
                        rs_err_t *err) {
    deployment_t d;
    if (deployment(c, k->m, ask->gpus, &d, err)) return -1;
    rs_infer_point_t *pt = malloc(sizeof *pt);
    if (!pt) return rs_errc(err, RS_ERR_RUNTIME, "out of memory");
    rs_err_t first = {0};
    int added = 0, rc = 0;
    for (int t = 0; t < d.n_tp && rc == 0; t++) {
        bool ulysses = false; /* Ulysses runs no ring: one entry whatever the layout */
        for (int l = 0; l < ask->n_layouts && rc == 0; l++) {
            rs_infer_config_t cc;
            if (!split_config(c, &d, d.tp[t], ask, l, &cc)) continue;
            rs_err_t e = {0};
            if (rs_infer_point(&cc, k->hw, &d.node, pt, &e)) {
                if (e.code != RS_ERR_BAD_INPUT) rc = rs_errc(err, e.code, "%s", e.msg);
                else if (!first.msg[0]) first = e; /* a split T or P do not divide over */
                continue;
            }
            for (int i = 0; i < RS_INFER_COUNT && rc == 0; i++) {
                if (!pt->opt[i].feasible || (i == RS_INFER_ULYSSES && ulysses)) continue;
                if (i == RS_INFER_PASS_Q && pt->cp == 1) continue; /* one CP rank passes nothing: pass-kv's entry is its local kernel */
                ulysses |= i == RS_INFER_ULYSSES;
                const rs_budget_serve_t o = serve_entry(k, &cc, pt, i, ask->gpus);
                rc = serve_push(b, &o, err);
                added++;
            }
        }
    }
    free(pt);
    if (rc == 0 && added == 0)
        rc = rs_errc(err, RS_ERR_BAD_INPUT, "--gpus %lld: no TP x CP split of it runs on %s: %s", (long long)ask->gpus, k->hw->name,
                     first.msg[0] ? first.msg : "no variant is possible");
    return rc;
}

static double serve_metric(const rs_budget_serve_t *o, rs_budget_rank_t rank) {
    if (rank == RS_BUDGET_BY_DECODE) return o->decode_step_s;
    if (rank == RS_BUDGET_BY_COST) return isnan(o->cost_per_prefill) ? INFINITY : o->cost_per_prefill;
    return o->ttft_s;
}

static order_t serve_order(const rs_budget_serve_t *o, rs_budget_rank_t rank) {
    return (order_t){o->fits, o->weight_bytes + o->kv_cache_bytes + o->runtime_bytes, serve_metric(o, rank), o->ttft_s};
}
static int cmp_serve_ttft(const void *a, const void *b) { return order_cmp(serve_order(a, RS_BUDGET_BY_TTFT), serve_order(b, RS_BUDGET_BY_TTFT)); }
static int cmp_serve_decode(const void *a, const void *b) {
    return order_cmp(serve_order(a, RS_BUDGET_BY_DECODE), serve_order(b, RS_BUDGET_BY_DECODE));
}
static int cmp_serve_cost(const void *a, const void *b) { return order_cmp(serve_order(a, RS_BUDGET_BY_COST), serve_order(b, RS_BUDGET_BY_COST)); }

void rs_budget_serve_sort(rs_budget_serving_t *b, rs_budget_rank_t rank) {
    int (*const cmp[])(const void *, const void *) = {cmp_serve_ttft, cmp_serve_decode, cmp_serve_cost};
    if (b->n > 1) qsort(b->e, (size_t)b->n, sizeof *b->e, cmp[rank]);
}

/* The terms of o's TTFT (or decode step) as the training budget's shares. */
static shares_t serve_shares(const rs_budget_serve_t *o, bool by_decode) {
    if (by_decode) return (shares_t){o->decode_linear_s, o->decode_attn_s, 0, o->decode_allreduce_s};
    return (shares_t){o->linear_s, o->attn_s, o->a2a_s, o->allreduce_s};
}
static bool serve_exposed(const rs_budget_serve_t *o) { return o->ring > 1 && !o->hidden; }

rs_limit_t rs_budget_serve_limit(const rs_budget_serve_t *o, bool by_decode) {
    if (!o->fits) return RS_LIMIT_MEMORY;
    return limit_of(serve_shares(o, by_decode), !by_decode && serve_exposed(o));
}

const char *rs_budget_serve_overflow(const rs_budget_serve_t *o, char *buf, size_t len) {
    const double need = o->weight_bytes + o->kv_cache_bytes + o->runtime_bytes, gib = 1073741824.0;
    const size_t n = no_fit(buf, len, need, o->usable_bytes);
    snprintf(buf + n, len - n, " (%+.1f GiB: weights %.1f, KV cache %.1f, runtime %.1f GiB)", (need - o->usable_bytes) / gib, o->weight_bytes / gib,
             o->kv_cache_bytes / gib, o->runtime_bytes / gib);
    return buf;
}

const char *rs_budget_serve_loses(const rs_budget_serving_t *b, const rs_budget_serve_t *o, rs_budget_rank_t rank, char *buf, size_t len) {
    const rs_budget_serve_t *w = &b->e[0];
    if (o == w) return snprintf(buf, len, "-"), buf;
    if (!o->fits) return rs_budget_serve_overflow(o, buf, len);
    const double mx = serve_metric(o, rank), mw = serve_metric(w, rank);
    size_t n = 0;
    if (rank == RS_BUDGET_BY_COST && isinf(mx)) n = (size_t)snprintf(buf, len, "no price; ");
    else if (rank != RS_BUDGET_BY_TTFT)
        n = (size_t)snprintf(buf, len, "%+.1f%% %s (TTFT %+.1f%%); ", 100.0 * (mx / mw - 1), rs_budget_rank_name(rank),
                             100.0 * (o->ttft_s / w->ttft_s - 1));
    else n = (size_t)snprintf(buf, len, "%+.1f%%: ", 100.0 * (mx / mw - 1));
    if (n >= len) return buf;
    /* the decode step of one split is the same for each of its prefill variants: explain the prefill */
    if (rank == RS_BUDGET_BY_COST && isfinite(mx) && o->ttft_s < w->ttft_s) {
        snprintf(buf + n, len - n, "faster, on dearer devices (%.4g against %.4g USD per device-hour)", o->usd_per_device_hour,
                 w->usd_per_device_hour);
        return buf;
    }
    const bool by_decode = rank == RS_BUDGET_BY_DECODE && fabs(mx / mw - 1) >= 5e-4;
    double d;
    const int k = most_more(serve_shares(o, by_decode), serve_shares(w, by_decode), &d);
    if (!(d > 0) || fabs((by_decode ? mx / mw : o->ttft_s / w->ttft_s) - 1) < 5e-4) {
        snprintf(buf + n, len - n, "ties with rank 1");
        return buf;
    }
    const char *what = by_decode ? "decode " : "";
    char t[32], lay[96] = "";
    rs_fmt_time(d, t, sizeof t);
    if (o->layout != w->layout && o->ring > 1) snprintf(lay, sizeof lay, "; layout %s against %s", rs_layout_name(o->layout), rs_layout_name(w->layout));
    switch (k) {
    case 0:
        snprintf(buf + n, len - n, "%slinear layers and LM head +%s (TP %lld, CP %lld)", what, t, (long long)o->tp, (long long)o->cp);
        break;
    case 1:
        if (!by_decode && serve_exposed(o))
            snprintf(buf + n, len - n, "attention +%s (ring transfers exposed%s: a middle step moves %.3g MB in %.3g ms against %.3g ms of "
                                       "compute%s)",
                     t, o->comm_s > o->comp_s ? "" : " on the lighter steps", o->step_bytes / 1e6, o->comm_s * 1e3, o->comp_s * 1e3, lay);
        else if (by_decode) snprintf(buf + n, len - n, "decode attention +%s (pass-q's ring of %lld CP ranks, a step each, and the merge)", t, (long long)o->cp);
        else snprintf(buf + n, len - n, "attention +%s (%lld new tokens a ring rank%s)", t, (long long)o->block_tokens, lay);
        break;
    case 2:
        snprintf(buf + n, len - n, "all-to-alls +%s (U = %lld%s)", t, (long long)o->ulysses, o->kind == RS_INFER_PASS_Q ? ": pass-q's return" : "");
        break;
    default:
        snprintf(buf + n, len - n, "%sTP all-reduces +%s (TP %lld, collective latency and bandwidth)", what, t, (long long)o->tp);
        break;
    }
    return buf;
}

void rs_budget_serve_estimate(const rs_infer_config_t *c, const rs_machine_t *m, const rs_budget_ask_t *ask, rs_estimate_t *e) {
    deployment_t d;
    rs_err_t skip;
    if (deployment(c, m, ask->gpus, &d, &skip)) return;
    for (int t = 0; t < d.n_tp; t++)
        for (int l = 0; l < ask->n_layouts; l++) {
            rs_infer_config_t cc;
            if (split_config(c, &d, d.tp[t], ask, l, &cc) && rs_infer_config_validate(&cc, &d.node, &skip) == 0) rs_infer_estimate(&cc, &d.node, e);
        }
}

void rs_budget_serve_free(rs_budget_serving_t *b) {
    free(b->e);
    memset(b, 0, sizeof *b);
}
