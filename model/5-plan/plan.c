/* plan.c - capacity planning (plan.h; derivation and assumptions: docs/plan.md). */
#include "plan.h"

#include "kernel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void rs_plan_config_default(rs_plan_config_t *c) {
    rs_problem_t p; /* the one default problem: S, mask, layout, tile */
    rs_problem_default(&p);
    memset(c, 0, sizeof *c);
    c->seq_tokens = p.seq_tokens, c->global_batch = p.batch, c->max_sp = 4096, c->precision = RS_PREC_MIXED;
    c->ckpt = RS_CKPT_FULL, c->chunk_tokens = 2048, c->causal = p.causal, c->layout = p.layout, c->tile = p.tile_q;
    c->usable_frac = 0, c->linear_eff = 0, c->alternatives = true, c->tp = 1, c->loss_chunk_tokens = 2048;
    c->runtime = RS_RT_PYTORCH;
}

double rs_plan_usable(const rs_plan_config_t *c) { return c->usable_frac > 0 ? c->usable_frac : rs_runtime_usable(c->runtime); }

static int64_t dp_of(const rs_plan_config_t *c) { return c->dp > 0 ? c->dp : c->global_batch; }

int rs_plan_config_validate(const rs_plan_config_t *c, rs_err_t *err) {
    if (rs_transformer_validate(&c->model, err)) return -1;
    if (c->seq_tokens < 0) return rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld: must be >= 1 or \"max\"", (long long)c->seq_tokens);
    if (c->global_batch < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "--global-batch %lld: must be >= 1", (long long)c->global_batch);
    if (c->dp < 0 || (c->dp > 0 && c->global_batch % c->dp))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--dp %lld: must divide --global-batch %lld (each replica runs whole sequences)",
                       (long long)c->dp, (long long)c->global_batch);
    if (c->max_sp < 1 || c->max_sp > (1 << 20) || (c->max_sp & (c->max_sp - 1)))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--max-ranks %lld: must be a power of two in [1, 1048576]", (long long)c->max_sp);
    if (c->fixed_sp < 0 || c->fixed_sp > (1 << 20))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--ranks %lld: must be in [1, 1048576] (0 = search)", (long long)c->fixed_sp);
    if (c->chunk_tokens < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "--chunk %lld: must be >= 1", (long long)c->chunk_tokens);
    if (c->tile < 1 || c->tile > 65536) return rs_errc(err, RS_ERR_BAD_INPUT, "--tile %lld: must be in [1, 65536]", (long long)c->tile);
    if (!(c->usable_frac >= 0 && c->usable_frac <= 1))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--usable %g: must be in (0, 1]", c->usable_frac);
    if (!(c->linear_eff >= 0 && c->linear_eff <= 1))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--linear-eff %g: must be in (0, 1]", c->linear_eff);
    if (c->loss_chunk_tokens < 0) return rs_errc(err, RS_ERR_BAD_INPUT, "--loss-chunk %lld: must be >= 1", (long long)c->loss_chunk_tokens);
    if (c->fp8_linear && c->precision == RS_PREC_FP32)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--dtype fp8: needs --precision mixed (fp8 GEMMs keep bf16 activations and fp32 master weights)");
    if ((unsigned)c->runtime >= RS_RT_COUNT) return rs_errc(err, RS_ERR_BAD_INPUT, "--runtime: invalid");
    return rs_tp_check(&c->model, 0, c->tp, err); /* the node's G is the machine's: rs_plan_option checks it */
}

int rs_plan_memory(const rs_plan_config_t *c, int64_t seq_tokens, int64_t sp, int64_t ulysses, rs_mem_t *out,
                   rs_err_t *err) {
    rs_mem_config_t mc;
    rs_mem_config_default(&mc);
    mc.seq_tokens = seq_tokens;
    mc.sp_degree = sp;
    mc.ulysses_degree = ulysses;
    mc.batch = 1;
    mc.shard_devices = sp * dp_of(c); /* ZeRO-3 over the devices holding one TP shard */
    mc.precision = c->precision;
    mc.ckpt = c->ckpt;
    mc.chunk_tokens = c->chunk_tokens;
    mc.loss_chunk_tokens = c->loss_chunk_tokens;
    mc.tp_degree = c->tp;
    mc.runtime = c->runtime;
    return rs_memory_ring(&c->model, &mc, out, err);
}

int64_t rs_plan_granule(const rs_plan_config_t *c, int64_t sp) {
    return (sp > 1 && c->layout == RS_LAYOUT_ZIGZAG) ? 2 * sp : sp;
}

/* Is S representable at N: the ring's backward problem (the larger FLOP count) validates. */
static bool representable(const rs_plan_config_t *c, int64_t seq, int64_t sp) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = seq;
    p.n_ranks = sp;
    p.batch = 1;
    p.q_heads = rs_tp_q_heads(&c->model, c->tp);
    p.kv_heads = rs_tp_kv_heads(&c->model, c->tp);
    p.head_dim = c->model.head_dim;
    p.act_bytes = rs_precision_act_bytes(c->precision);
    p.grad_bytes = rs_precision_grad_bytes(c->precision);
    p.causal = c->causal;
    p.layout = sp > 1 ? c->layout : RS_LAYOUT_CONTIGUOUS;
    p.pass = RS_PASS_BACKWARD;
    p.tile_q = p.tile_k = c->tile;
    return rs_problem_validate(&p, NULL) == 0;
}

static double mem_total(const rs_mem_t *m, rs_plan_mem_end_t end) {
    return end == RS_PLAN_MEM_LOW ? m->total_low_bytes : end == RS_PLAN_MEM_HIGH ? m->total_high_bytes : m->total_bytes;
}

int rs_plan_max_seq_at(const rs_plan_config_t *c, double usable_bytes, int64_t sp, rs_plan_mem_end_t end, int64_t *max_seq,
                       bool *capped, rs_err_t *err) {
    int64_t g = rs_plan_granule(c, sp);
    if (capped) *capped = false;
    /* the representable limit first (bisection on granules; validity is monotone in S) */
    int64_t lo = 0, hi = ((int64_t)1 << 36) / g; /* in granules */
    if (!representable(c, hi * g, sp)) {
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if (representable(c, mid * g, sp)) lo = mid;
            else hi = mid;
        }
        hi = lo;
        lo = 0;
    }
    if (hi == 0) {
        *max_seq = 0;
        return 0;
    }
    rs_mem_t m;
    if (rs_plan_memory(c, hi * g, sp, 1, &m, err)) return -1;
    if (mem_total(&m, end) <= usable_bytes) {
        *max_seq = hi * g;
        if (capped) *capped = true;
        return 0;
    }
    hi++; /* now hi does not fit (memory), lo fits (or is 0) */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (rs_plan_memory(c, mid * g, sp, 1, &m, err)) return -1;
        if (mem_total(&m, end) <= usable_bytes) lo = mid;
        else hi = mid;
    }
    *max_seq = lo * g;
    return 0;
}

int rs_plan_max_seq(const rs_plan_config_t *c, double usable_bytes, int64_t sp, int64_t *max_seq, bool *capped,
                    rs_err_t *err) {
    return rs_plan_max_seq_at(c, usable_bytes, sp, RS_PLAN_MEM_NOMINAL, max_seq, capped, err);
}

int64_t rs_plan_grad_bytes(const rs_plan_config_t *c, const rs_machine_t *m) {
    const int64_t gb = rs_impl_grad_bytes((rs_impl_t)m->impl, rs_precision_act_bytes(c->precision));
    return gb > 0 ? gb : rs_precision_grad_bytes(c->precision);
}

/* One GEMM (M x N over K) forward, its two backward GEMMs (dX: M x K over N, dW: K x N over M) and r
 * forward recomputations. */
static double gemm_fwd_bwd_s(const rs_gemm_t *g, double m, double n, double k, double r) {
    const double fwd = rs_gemm_time_s(g, m, n, k);
    return (1.0 + r) * fwd + rs_gemm_time_s(g, m, k, n) + rs_gemm_time_s(g, k, n, m);
}

double rs_plan_linear_layer_s(const rs_plan_config_t *c, const rs_gemm_t *g, double tokens, double *flops) {
    double nk[4][2];
    const int n = rs_tp_layer_gemms(&c->model, c->tp, nk);
    const double r = c->ckpt == RS_CKPT_NONE ? 0.0 : 1.0; /* recompute */
    double t = 0, fl = 0;
    for (int i = 0; i < n; i++) {
        t += gemm_fwd_bwd_s(g, tokens, nk[i][0], nk[i][1], r);
        fl += (3.0 + r) * 2.0 * tokens * nk[i][0] * nk[i][1];
    }
    if (flops) *flops = fl;
    return t;
}

int rs_plan_option(const rs_plan_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, const rs_plan_split_t *split,
                   rs_plan_option_t *out, rs_err_t *err) {
    const int64_t seq_tokens = split->seq_tokens, ulysses = split->ulysses, ring = split->ring, tp = c->tp;
    rs_plan_option_t o;
    memset(&o, 0, sizeof o);
    const rs_transformer_t *t = &c->model;
    if (rs_tp_check(t, m->devices_per_node, tp, err)) return -1;
    /* one device's attention: Hq/tp heads, its CP ring's nodes holding G/tp ranks */
    const rs_transformer_t t_dev = rs_tp_device_attention(t, tp);
    rs_machine_t m_dev = *m;
    if (tp > 1 && m->devices_per_node > 0) m_dev.devices_per_node = m->devices_per_node / tp;
    rs_sp_config_t sc;
    rs_sp_config_default(&sc);
    sc.seq_tokens = seq_tokens;
    sc.batch = 1;
    sc.ulysses = ulysses;
    sc.ring = ring;
    sc.causal = c->causal;
    sc.layout = c->layout;
    sc.act_bytes = rs_precision_act_bytes(c->precision);
    sc.grad_bytes = rs_plan_grad_bytes(c, m);
    sc.tile = c->tile;
    if (rs_sp_cost(&t_dev, &m_dev, &sc, &o.attn, err)) return -1;
    o.attn.flops_useful_fwd *= (double)tp; /* every TP rank's heads */
    o.attn.flops_useful_bwd *= (double)tp;
    o.kind = o.attn.kind;
    o.ulysses = ulysses;
    o.ring = ring;
    o.tp = tp;
    o.layout = c->layout;
    int64_t sp = ulysses * ring;
    rs_mem_t mem;
    if (rs_plan_memory(c, seq_tokens, sp, ulysses, &mem, err)) return -1;
    o.mem_bytes = mem.total_bytes;
    o.usable_bytes = rs_plan_usable(c) * hw->mem_bytes;
    o.fits = mem.total_bytes <= o.usable_bytes;

    /* the linear layers: GEMMs by shape (gemm.h) in the linear dtype, or a flat given efficiency */
    const rs_dtype_t lin_dtype = c->fp8_linear ? RS_DTYPE_FP8 : m->dtype;
    rs_gemm_t g;
    if (rs_gemm_model(hw, lin_dtype, c->linear_eff, &g, err)) return -1;
    double tokens = (double)seq_tokens / (double)sp; /* per TP group per micro-batch: the CP shard */
    double lin_flops = 0;
    o.t_linear_layer_s = rs_plan_linear_layer_s(c, &g, tokens, &lin_flops);
    o.linear_eff = lin_flops / (o.t_linear_layer_s * g.peak_flops);
    o.t_attn_layer_s = o.attn.fwd_s + o.attn.bwd_s + (c->ckpt == RS_CKPT_FULL ? o.attn.fwd_s : 0.0);
    /* TP: two all-reduces forward, two backward, two more in a fully recomputed forward */
    const double n_ar = 4.0 + (c->ckpt == RS_CKPT_FULL ? 2.0 : 0.0);
    o.t_tp_layer_s = n_ar * rs_tp_allreduce_s(m, tp, tokens * (double)t->hidden * (double)rs_precision_act_bytes(c->precision));
    o.t_layer_s = o.t_linear_layer_s + o.t_attn_layer_s + o.t_tp_layer_s;
    double head = (double)t->vocab * (double)t->hidden;
    o.t_head_s = gemm_fwd_bwd_s(&g, tokens, (double)t->vocab / (double)tp, (double)t->hidden, 0.0);
    o.t_micro_s = (double)t->layers * o.t_layer_s + o.t_head_s;
    int64_t dp = dp_of(c), accum = c->global_batch / dp;
    o.dp = dp, o.accum = accum;
    o.t_step_s = (double)accum * o.t_micro_s;
    double devices = (double)(sp * dp * tp);
    double p_lin = (double)rs_transformer_layer_matmul_params(t);
    /* model FLOPs (bwd = 2 x fwd, no recompute): the linear layers' and the attention's, each at its own
     * dtype's datasheet peak for the fraction of peak */
    const double lin_model = (double)c->global_batch * 6.0 * ((double)t->layers * p_lin + head) * (double)seq_tokens;
    const double attn_model = (double)c->global_batch * (double)t->layers * 3.0 * o.attn.flops_useful_fwd;
    o.model_flops_step = lin_model + attn_model;
    o.mfu = (lin_model / g.peak_flops + attn_model / m->flops_per_s) / (o.t_step_s * devices);
    if (hw->price_per_device_hour > 0) {
        o.cost_per_step = devices * hw->price_per_device_hour * o.t_step_s / 3600.0;
        o.cost_per_mtok = o.cost_per_step / ((double)c->global_batch * (double)seq_tokens / 1e6);
    } else {
        o.cost_per_step = o.cost_per_mtok = NAN;
    }
    *out = o;
    return 0;
}

static void describe(char *dst, size_t len, const rs_plan_option_t *o) {
    if (o->kind == RS_SP_RING) snprintf(dst, len, "ring N=%lld", (long long)o->ring);
    else if (o->kind == RS_SP_ULYSSES) snprintf(dst, len, "ulysses U=%lld", (long long)o->ulysses);
    else snprintf(dst, len, "usp U=%lld x R=%lld", (long long)o->ulysses, (long long)o->ring);
}

/* One line: the winner, its attention time per layer and what limits it, then each rival. */
static void explain(const rs_plan_config_t *c, rs_plan_result_t *r) {
    char *w = r->why;
    size_t len = sizeof r->why, n = 0;
    w[0] = '\0';
#define ADD(...)                                                                                          \
    do {                                                                                                  \
        if (n < len) n += (size_t)snprintf(w + n, len - n, __VA_ARGS__);                                  \
    } while (0)
    if (r->best < 0) {
        ADD("nothing fits: %.1f GiB over the usable %.1f GiB per device", r->shortfall_bytes / 1073741824.0,
            r->usable_bytes / 1073741824.0);
        if (!r->fits && r->n_limit[0]) ADD(" (%s)", r->n_limit);
        return;
    }
    const rs_plan_option_t *b = &r->options[r->best];
    char name[64];
    describe(name, sizeof name, b);
    if (r->seq_capped)
        ADD("S=%lld is the longest the schedule's 64-bit FLOP counts represent (memory would allow more); ",
            (long long)r->seq_tokens);
    ADD("%s wins: attention %.4g ms/layer", name, b->t_attn_layer_s * 1e3);
    if (b->ring > 1)
        ADD(" (ring B=%lld, transfers %s)", (long long)b->attn.ring_block_tokens,
            b->attn.ring_hidden_fwd && b->attn.ring_hidden_bwd ? "hidden" : "exposed");
    if (b->ulysses > 1) ADD(" (all-to-all %.3g ms/layer %s)", (b->attn.a2a_fwd_s + b->attn.a2a_bwd_s) * 1e3,
                            b->attn.a2a_inter ? "across nodes" : "inside a node");
    for (int i = 0; i < r->n_options; i++) {
        if (i == r->best) continue;
        const rs_plan_option_t *o = &r->options[i];
        describe(name, sizeof name, o);
        ADD("; %s %.4g ms", name, o->t_attn_layer_s * 1e3);
        if (!o->fits) ADD(" (does not fit)");
        else if (o->ulysses > 1 && o->attn.a2a_inter) ADD(" (all-to-all across nodes)");
        else if (o->ring > 1 && !(o->attn.ring_hidden_fwd && o->attn.ring_hidden_bwd))
            ADD(" (ring transfers exposed at B=%lld; full-block B*=%.0f)", (long long)o->attn.ring_block_tokens,
                o->attn.ring_b_star_tokens);
    }
    const int64_t kv_dev = rs_tp_kv_heads(&c->model, c->tp);
    if (r->sp > kv_dev)
        ADD("; pure Ulysses impossible: N=%lld > %lld KV heads%s", (long long)r->sp, (long long)kv_dev, c->tp > 1 ? " per TP rank" : "");
#undef ADD
}

int rs_plan_choose(const rs_plan_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, rs_plan_result_t *out,
                   rs_err_t *err) {
    if (rs_plan_config_validate(c, err) || rs_tp_check(&c->model, m->devices_per_node, c->tp, err)) return -1;
    rs_plan_result_t *r = out;
    memset(r, 0, sizeof *r);
    snprintf(r->hw_name, sizeof r->hw_name, "%s", hw->name);
    r->devices_per_node = m->devices_per_node;
    r->usable_bytes = rs_plan_usable(c) * hw->mem_bytes;
    r->best = -1;
    r->dp = dp_of(c);
    r->accum = c->global_batch / r->dp;

    /* choose N and S */
    int64_t sp = 0, seq = c->seq_tokens;
    if (seq == 0) {
        sp = c->fixed_sp ? c->fixed_sp : c->max_sp;
        if (rs_plan_max_seq(c, r->usable_bytes, sp, &seq, &r->seq_capped, err)) return -1;
        /* the range: the longest S at the memory model's high end (most memory) and at its low end */
        if (rs_plan_max_seq_at(c, r->usable_bytes, sp, RS_PLAN_MEM_HIGH, &r->seq_tokens_low, NULL, err) ||
            rs_plan_max_seq_at(c, r->usable_bytes, sp, RS_PLAN_MEM_LOW, &r->seq_tokens_high, NULL, err))
            return -1;
        r->fits = seq > 0;
        if (!r->fits) seq = rs_plan_granule(c, sp);
    } else if (c->fixed_sp) {
        sp = c->fixed_sp;
        if (seq % rs_plan_granule(c, sp))
            return rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld: must be divisible by %s%lld for N = %lld", (long long)seq,
                           rs_plan_granule(c, sp) == sp ? "N = " : "2N = ", (long long)rs_plan_granule(c, sp), (long long)sp);
    } else {
        for (int64_t n = 1; n <= c->max_sp; n *= 2) {
            if (seq % rs_plan_granule(c, n)) { /* larger N cannot divide either */
                snprintf(r->n_limit, sizeof r->n_limit, "larger N must divide S: %lld is not a multiple of %s%lld",
                         (long long)seq, rs_plan_granule(c, n) == n ? "N = " : "2N = ", (long long)rs_plan_granule(c, n));
                break;
            }
            rs_mem_t mem;
            if (rs_plan_memory(c, seq, n, 1, &mem, err)) return -1;
            sp = n;
            if (mem.total_bytes <= r->usable_bytes) {
                r->fits = true;
                break;
            }
        }
        if (sp == 0)
            return rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld: must be divisible by 2 for a zigzag ring (or N = 1)", (long long)seq);
    }
    r->sp = sp;
    r->seq_tokens = seq;
    r->devices = sp * r->dp * c->tp;
    if (rs_plan_memory(c, seq, sp, 1, &r->mem, err)) return -1;
    if (c->seq_tokens != 0 || c->fixed_sp) r->fits = r->mem.total_bytes <= r->usable_bytes;
    if (!r->fits) r->shortfall_bytes = r->mem.total_bytes - r->usable_bytes;
    return 0;
}

int rs_plan_splits(const rs_plan_config_t *c, const rs_machine_t *m, int64_t seq_tokens, int64_t sp,
                   int64_t ulysses[RS_PLAN_MAX_OPTIONS]) {
    int n = 0;
    ulysses[n++] = 1; /* the ring */
    /* the splits of one device's heads over CP ranks of G/tp a node */
    const rs_transformer_t t_dev = rs_tp_device_attention(&c->model, c->tp);
    rs_machine_t m_dev = *m;
    if (c->tp > 1 && m->devices_per_node > 0) m_dev.devices_per_node = m->devices_per_node / c->tp;
    for (int64_t u = 2; c->alternatives && u <= sp && n < RS_PLAN_MAX_OPTIONS; u++) {
        if (sp % u) continue;
        rs_sp_config_t sc;
        rs_sp_config_default(&sc);
        sc.seq_tokens = seq_tokens;
        sc.ulysses = u;
        sc.ring = sp / u;
        sc.layout = c->layout;
        rs_err_t skip;
        if (rs_sp_check(&t_dev, &m_dev, &sc, &skip) == 0) ulysses[n++] = u; /* head bound, divisibility, node tiling */
    }
    return n;
}

void rs_plan_estimate(const rs_plan_config_t *c, const rs_machine_t *m, const rs_plan_result_t *chosen, rs_estimate_t *e) {
    int64_t u[RS_PLAN_MAX_OPTIONS];
    const int n = rs_plan_splits(c, m, chosen->seq_tokens, chosen->sp, u);
    *e = (rs_estimate_t){0, 0, 0};
    for (int i = 0; i < n; i++)
        for (int pass = 0; pass < RS_PASS_COUNT; pass++) { /* rs_sp_cost walks the ring of R = N / U, both passes */
            rs_problem_t p;
            rs_problem_default(&p);
            p.n_ranks = chosen->sp / u[i];
            p.pass = (rs_pass_t)pass;
            rs_estimate_t w;
            rs_walk_estimate(&p, RS_EST_NO_TRACE, &w);
            rs_estimate_then(e, &w);
        }
}

int rs_plan_run(const rs_plan_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, rs_plan_result_t *out,
                rs_err_t *err) {
    if (rs_plan_choose(c, hw, m, out, err)) return -1;
    rs_plan_result_t *r = out;
    /* options at N: ring first, then every Ulysses degree U | N that rs_sp_check accepts */
    int64_t u[RS_PLAN_MAX_OPTIONS];
    const int n = rs_plan_splits(c, m, r->seq_tokens, r->sp, u);
    for (int i = 0; i < n; i++) {
        const rs_plan_split_t split = {r->seq_tokens, u[i], r->sp / u[i]};
        if (rs_plan_option(c, hw, m, &split, &r->options[r->n_options], err)) return -1;
        r->n_options++;
    }
    for (int i = 0; i < r->n_options; i++)
        if (r->options[i].fits && (r->best < 0 || r->options[i].t_step_s < r->options[r->best].t_step_s))
            r->best = i;
    explain(c, r);
    return 0;
}

int rs_plan_candidate(const rs_plan_candidate_spec_t *c, rs_hw_t *hw, rs_machine_t *m, rs_err_t *err) {
    return rs_plan_candidate_checked(c, hw, m, NULL, 0, err);
}

int rs_plan_candidate_checked(const rs_plan_candidate_spec_t *c, rs_hw_t *hw, rs_machine_t *m, char *warn, size_t len, rs_err_t *err) {
    rs_machine_spec_t spec;
    rs_machine_spec_default(&spec);
    spec.dtype = c->precision == RS_PREC_FP32 ? RS_DTYPE_FP32 : RS_DTYPE_BF16;
    spec.gpus_per_node = c->gpus_per_node;
    if (c->inter) snprintf(spec.inter, sizeof spec.inter, "%s", c->inter);
    snprintf(spec.profile, sizeof spec.profile, "%s", c->profile ? c->profile : "");
    if (rs_machine_spec_impl(&spec, c->impl, c->kernel, err) != 0) return -1;
    spec.allow_implausible = c->allow_implausible;
    if (rs_machine_spec_profile_checked(&spec, hw, warn, len, err)) return -1;
    if (c->price >= 0) hw->price_per_device_hour = c->price;
    /* the machine of one rank: the preset and kernel (--impl, --kernel) as model's, then --attn-eff's dense model */
    if (rs_machine_spec_build(&spec, hw, 1, m, err)) return -1;
    if (c->attn_eff > 0) {
        if (!(c->attn_eff <= 1)) return rs_errc(err, RS_ERR_BAD_INPUT, "--attn-eff %g: must be in (0, 1]", c->attn_eff);
        if ((c->impl && c->impl[0]) || (c->kernel && c->kernel[0]))
            return rs_errc(err, RS_ERR_BAD_INPUT, "--attn-eff %g: rates attention at a flat efficiency of the peak: it replaces --impl and --kernel, give one of them",
                           c->attn_eff);
        (void)rs_machine_set_kernel(m, RS_IMPL_NONE, 0, NULL); /* can't fail with no kernel */
        m->cal.n_eff = 1;
        m->cal.eff[0].block_tokens = 1;
        m->cal.eff[0].efficiency = c->attn_eff;
    }
    return 0;
}
