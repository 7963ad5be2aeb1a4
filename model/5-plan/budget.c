/* budget.c - every split of a device budget, ranked, and why each loses (budget.h; docs/plan.md 5a). */
#include "budget.h"

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

rs_limit_t rs_plan_limit(const rs_plan_option_t *o) {
    if (!o->fits) return RS_LIMIT_MEMORY;
    /* the layer count scales every share alike but the head's: one layer is enough to compare */
    const shares_t s = shares(o, 1);
    rs_limit_t b = RS_LIMIT_LINEAR;
    double top = s.linear;
    if (s.attention > top) top = s.attention, b = ring_exposed(o) ? RS_LIMIT_RING : RS_LIMIT_ATTENTION;
    if (s.a2a > top) top = s.a2a, b = RS_LIMIT_A2A;
    if (s.tp > top) b = RS_LIMIT_TP;
    return b;
}

static int add(rs_budget_t *b, int cand, const rs_plan_option_t *o, rs_err_t *err) {
    if (b->n == b->cap) {
        const int cap = b->cap ? 2 * b->cap : 64;
        rs_budget_entry_t *e = realloc(b->e, (size_t)cap * sizeof *e);
        if (!e) return rs_errc(err, RS_ERR_RUNTIME, "out of memory for %d budget configurations", cap);
        b->e = e, b->cap = cap;
    }
    b->e[b->n++] = (rs_budget_entry_t){cand, *o};
    b->n_fit += o->fits;
    return 0;
}

/* The configurations of the budget one at a time: tp, dp (cp = gpus / (tp dp)), layout. */
typedef struct {
    int64_t tp, dp, cp;
} triple_t;

static int triples(const rs_plan_config_t *c, const rs_machine_t *m, int64_t gpus, triple_t *out, int cap) {
    int n = 0;
    const int64_t g = m->devices_per_node > 0 ? m->devices_per_node : gpus;
    for (int64_t tp = 1; tp <= g && tp <= gpus; tp++) {
        rs_err_t skip;
        if (gpus % tp || rs_tp_check(&c->model, g, tp, &skip)) continue;
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

/* Fitting first (the smaller memory first among those that do not), then by the metric, then by time. */
static int cmp_by(const rs_budget_entry_t *x, const rs_budget_entry_t *y, bool by_cost) {
    if (x->opt.fits != y->opt.fits) return x->opt.fits ? -1 : 1;
    if (!x->opt.fits) return (x->opt.mem_bytes > y->opt.mem_bytes) - (x->opt.mem_bytes < y->opt.mem_bytes);
    const double mx = metric(&x->opt, by_cost), my = metric(&y->opt, by_cost);
    if (mx != my) return mx < my ? -1 : 1;
    return (x->opt.t_step_s > y->opt.t_step_s) - (x->opt.t_step_s < y->opt.t_step_s);
}
static int cmp_time(const void *a, const void *b) { return cmp_by(a, b, false); }
static int cmp_cost(const void *a, const void *b) { return cmp_by(a, b, true); }

void rs_budget_sort(rs_budget_t *b, bool by_cost) {
    if (b->n > 1) qsort(b->e, (size_t)b->n, sizeof *b->e, by_cost ? cmp_cost : cmp_time);
}

const char *rs_budget_loses(const rs_budget_t *b, const rs_budget_entry_t *o, bool by_cost, char *buf, size_t len) {
    const rs_plan_option_t *x = &o->opt, *w = &b->e[0].opt;
    if (o == &b->e[0]) return snprintf(buf, len, "-"), buf;
    if (!x->fits) {
        snprintf(buf, len, "does not fit: %.1f GiB > %.1f GiB usable", x->mem_bytes / 1073741824.0, x->usable_bytes / 1073741824.0);
        return buf;
    }
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
    const shares_t sx = shares(x, 1), sw = shares(w, 1);
    const double d[4] = {sx.linear - sw.linear, sx.attention - sw.attention, sx.a2a - sw.a2a, sx.tp - sw.tp};
    int k = 0;
    for (int i = 1; i < 4; i++)
        if (d[i] > d[k]) k = i;
    const double per_layer_ms = d[k] / (double)x->accum * 1e3;
    if (d[k] <= 0) {
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
