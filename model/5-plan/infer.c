/* infer.c - inference planning (infer.h; derivation: docs/inference.md). */
#include "infer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "alt.h"
#include "cost.h"
#include "gemm.h"
#include "kernel.h"
#include "plausible.h"
#include "tp.h"

static const char *const kind_names[RS_INFER_COUNT] = {"pass-kv", "pass-q", "ulysses", "usp"};
const char *rs_infer_kind_name(rs_infer_kind_t k) { return rs_enum_name(kind_names, RS_INFER_COUNT, (int)k); }

#define ACT_BYTES 2 /* attention and activations in bf16 */

void rs_infer_config_default(rs_infer_config_t *c) {
    rs_problem_t p; /* the one default problem: mask, layout, tile */
    rs_problem_default(&p);
    memset(c, 0, sizeof *c);
    c->nodes = 1, c->new_tokens = p.seq_tokens, c->layout = p.layout, c->causal = p.causal;
    c->linear_dtype = RS_DTYPE_BF16, c->linear_eff = 0, c->attn_eff = 0, c->usable_frac = 0, c->tile = p.tile_q;
}

/* ---------------------------------------------------------------------------------------------------
 * Shapes of the deployment
 * ------------------------------------------------------------------------------------------------- */
static int64_t g_of(const rs_machine_t *m) { return m->devices_per_node > 0 ? m->devices_per_node : 1; }
static int64_t tp_of(const rs_infer_config_t *c, const rs_machine_t *m) { return c->tp > 0 ? c->tp : g_of(m); }
static int64_t cp_per_node(const rs_infer_config_t *c, const rs_machine_t *m) { return g_of(m) / tp_of(c, m); }
static int64_t cp_of(const rs_infer_config_t *c, const rs_machine_t *m) { return c->nodes * cp_per_node(c, m); }
static int64_t hq_dev(const rs_infer_config_t *c, const rs_machine_t *m) { return rs_tp_q_heads(&c->model, tp_of(c, m)); }
/* KV heads per device: Hkv / tp, or one (replicated) when the node has more devices than KV heads */
static int64_t hkv_dev(const rs_infer_config_t *c, const rs_machine_t *m) { return rs_tp_kv_heads(&c->model, tp_of(c, m)); }

/* How the attention of a layer spreads: hq query and hkv KV heads per device over n ranks. */
typedef struct {
    int64_t hq, hkv, n;
} attn_shape_t;

/* The CP ranks' shape: every CP rank's heads (hq_dev, hkv_dev) over the CP ranks. */
static attn_shape_t cp_shape(const rs_infer_config_t *c, const rs_machine_t *m) {
    return (attn_shape_t){hq_dev(c, m), hkv_dev(c, m), cp_of(c, m)};
}

static rs_problem_t attn_problem(const rs_infer_config_t *c, attn_shape_t sh, rs_infer_ring_case_t rc);

/* T and P as the layout shards them over the CP ranks (the schedule's rule, the option named). */
static int layout_validate(const rs_infer_config_t *c, const rs_machine_t *m, rs_err_t *err) {
    const rs_problem_t p = attn_problem(c, cp_shape(c, m), (rs_infer_ring_case_t){RS_RING_PASS_KV, c->new_tokens, c->cached_tokens});
    rs_err_t e = {0};
    if (rs_problem_validate(&p, &e) == 0) return 0;
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s (N = %lld CP ranks: %lld nodes x %lld devices / TP %lld)", e.msg, (long long)cp_of(c, m),
                   (long long)c->nodes, (long long)g_of(m), (long long)tp_of(c, m));
}

int rs_infer_config_validate(const rs_infer_config_t *c, const rs_machine_t *m, rs_err_t *err) {
    if (rs_transformer_validate(&c->model, err)) return -1;
    const int64_t g = g_of(m), tp = tp_of(c, m);
    if (c->nodes < 1 || c->nodes > (1 << 20)) return rs_errc(err, RS_ERR_BAD_INPUT, "--nodes %lld: must be in [1, 1048576]", (long long)c->nodes);
    if (rs_tp_check(&c->model, g, tp, err)) return -1;
    if (c->new_tokens < 1 || c->new_tokens > ((int64_t)1 << 32))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld: must be in [1, 4G] new tokens", (long long)c->new_tokens);
    if (c->cached_tokens < 0 || c->cached_tokens > ((int64_t)1 << 32))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--cached %lld: must be in [0, 4G] tokens", (long long)c->cached_tokens);
    if (c->decode_batch < 0 || c->decode_batch > (1 << 20))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--decode-batch %lld: must be in [0, 1048576]", (long long)c->decode_batch);
    if (c->decode_batch > 0 && !c->causal)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--decode-batch %lld: decode needs the causal mask (drop --no-causal)", (long long)c->decode_batch);
    if (c->linear_dtype != RS_DTYPE_BF16 && c->linear_dtype != RS_DTYPE_FP8)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--linear-dtype %s: must be bf16 or fp8", rs_dtype_name(c->linear_dtype));
    if (!(c->linear_eff >= 0 && c->linear_eff <= 1)) return rs_errc(err, RS_ERR_BAD_INPUT, "--linear-eff %g: must be in (0, 1]", c->linear_eff);
    if (!(c->attn_eff >= 0 && c->attn_eff <= 1)) return rs_errc(err, RS_ERR_BAD_INPUT, "--attn-eff %g: must be in [0, 1] (0: the kernel curves)", c->attn_eff);
    if (!(c->usable_frac >= 0 && c->usable_frac <= 1)) return rs_errc(err, RS_ERR_BAD_INPUT, "--usable %g: must be in (0, 1]", c->usable_frac);
    if (c->tile < 1 || c->tile > 65536) return rs_errc(err, RS_ERR_BAD_INPUT, "--tile %lld: must be in [1, 65536]", (long long)c->tile);
    return layout_validate(c, m, err);
}

/* An NCCL operation between nodes costs at least its small-message time: an 8-byte all-reduce of two
 * ranks on two nodes (one exchange) takes 19.9 us over HDR InfiniBand (NVIDIA/nccl-tests issue #150,
 * all_reduce_perf out of place), where the tier's latency is the wire's and the NIC's alone. A decode
 * step's messages are that small: each of its ring steps and its all-to-all across nodes pays it, so
 * the step's collective latency grows with the CP ranks it passes (docs/inference.md section 7). */
#define NCCL_INTER_OP_S 19.9e-6

/* The fraction of a flash kernel's work that is useful for calls of `rows` query rows: it runs whole
 * tiles of tile query rows (FlashAttention's kBlockM), ceil(rows / tile) of them. */
static double query_padding(const rs_infer_config_t *c, double rows) {
    if (rows <= 0) return 1;
    const double tile = (double)c->tile;
    return rows / (ceil(rows / tile) * tile);
}

/* One attention call of a variant, for its rate: q x k tokens of one sequence. */
typedef struct {
    double q_rows, k_rows;
} call_shape_t;

/* Does m's calibration curve eff(B), measured or published on this very device, outrank its kernel
 * curves, which are an estimate (borrowed from another device and scaled)? */
static bool calibration_first(const rs_machine_t *m) {
    return m->cal.n_eff > 0 && m->src.rate[RS_RATE_ATTN].kind == RS_RKIND_ESTIMATED &&
           (m->eff_src.kind == RS_RKIND_MEASURED || m->eff_src.kind == RS_RKIND_PUBLISHED);
}

/* The forward full-mask curve (for the model's head_dim) of the kernel the profile's implementation preset
 * runs on m - the curve training's forward costs its full blocks at - or NULL when m runs no kernel, or
 * when its curves are an estimate and a calibration measured on the device itself outranks them. */
static const rs_kcurve_t *fwd_curve(const rs_infer_config_t *c, const rs_machine_t *m) {
    if (m->kernel <= 0 || m->kindex.n <= 0 || calibration_first(m)) return NULL;
    const int i = rs_kindex_find(&m->kindex, c->model.head_dim)[RS_PASS_FORWARD][RS_KMASK_FULL];
    return i >= 0 ? &m->kernels.curve[i] : NULL;
}

/* That curve's useful rate for call cs - its full-wave rate at q x k (kernel_table.h) - as a fraction of
 * m's peak, at most 1; 0 without a curve. No wave term: where a call's query tiles do not fill the device
 * (a short prompt, few heads a device) inference kernels split the keys across CTAs (Flash-Decoding's
 * split-KV, FlashAttention's flash_attn_with_kvcache num_splits), so its waves are full. */
static double curve_eff(const rs_infer_config_t *c, const rs_machine_t *m, call_shape_t cs) {
    const rs_kcurve_t *cv = fwd_curve(c, m);
    if (!cv || !(m->flops_per_s > 0)) return 0;
    return fmin(1.0, rs_kcurve_rate_dim(cv, fmax(cs.q_rows, 1), fmax(cs.k_rows, 1), c->model.head_dim, m->exp_bound_per_s) / m->flops_per_s);
}

/* The CP ranks' links: m with cpn ranks per node (1: every hop crosses nodes on the devices' NICs), no
 * perturbations, no kernel (the dense model), m's own rate: what the all-to-alls run on, and the decode
 * step, which sets its own memory-bound rate. */
static rs_machine_t cp_links(const rs_machine_t *m, int64_t cpn) {
    rs_machine_t r = *m;
    (void)rs_machine_set_kernel(&r, RS_IMPL_NONE, 0, NULL); /* can't fail with no kernel */
    r.devices_per_node = cpn;
    r.perturb.n_stragglers = r.perturb.n_degraded = 0;
    r.jitter = 0;
    r.hop_inter = NULL;
    return r;
}

/* The CP ranks' machine for a prefill attention call cs: cp_links with the dense model F x eff for
 * every variant at the efficiency of its call: --attn-eff (user-given), else the forward full-mask
 * kernel curve of the profile's preset at the call's shape (curve_eff), each times the call's query
 * padding (a call of fewer rows than a tile pays the whole tile; the curves' points are whole tiles);
 * else the profile's calibration curve eff(B) (none: the bare peak, said so by
 * rs_infer_rates_describe). The kernel presets (model/4-cost/kernel.h) cost training rings only
 * (pass-kv without a cache), and the variants compared here must share one compute model: the curve's
 * rate at the call's shape, on executed FLOPs. */
static rs_machine_t cp_machine(const rs_infer_config_t *c, const rs_machine_t *m, int64_t cpn, call_shape_t cs) {
    rs_machine_t r = cp_links(m, cpn);
    const double ce = (c->attn_eff > 0 ? c->attn_eff : curve_eff(c, m, cs)) * query_padding(c, cs.q_rows);
    if (ce > 0) {
        r.cal.n_eff = 1;
        r.cal.eff[0].block_tokens = 1;
        r.cal.eff[0].efficiency = ce;
    }
    return r;
}

/* The query rows of one call of a ring of n ranks on T new tokens: a zigzag rank's two segments of
 * T / 2n, else its block of T / n. */
static double call_rows(const rs_infer_config_t *c, int64_t new_tokens, int64_t n) {
    const double b = (double)new_tokens / (double)(n > 0 ? n : 1);
    return n > 1 && c->layout == RS_LAYOUT_ZIGZAG ? b / 2 : b;
}

/* A ring call of n ranks on T new tokens over P cached: a rank's query rows
 * (call_rows) against the K,V block one step brings, (T + P) / n tokens. */
static call_shape_t ring_call(const rs_infer_config_t *c, int64_t new_tokens, int64_t cached_tokens, int64_t n) {
    const double k = (double)(new_tokens + cached_tokens) / (double)(n > 0 ? n : 1);
    return (call_shape_t){call_rows(c, new_tokens, n), k};
}

/* The attention problem of one device: the variant rc (T new on P cached) spread as sh. */
static rs_problem_t attn_problem(const rs_infer_config_t *c, attn_shape_t sh, rs_infer_ring_case_t rc) {
    rs_problem_t q;
    rs_problem_default(&q);
    q.seq_tokens = rc.new_tokens, q.cached_tokens = rc.cached_tokens, q.n_ranks = sh.n, q.batch = 1, q.q_heads = sh.hq,
    q.kv_heads = sh.hkv;
    q.head_dim = c->model.head_dim, q.act_bytes = ACT_BYTES, q.causal = c->causal;
    q.layout = sh.n > 1 ? c->layout : RS_LAYOUT_CONTIGUOUS, q.ring = rc.ring, q.tile_q = q.tile_k = c->tile;
    return q;
}

/* Walk p on rm: the makespan; *hidden: no computing step transfer-bound (pass-q's return excluded). */
static int walk(const rs_problem_t *p, const rs_machine_t *rm, double *makespan, bool *hidden, rs_err_t *err) {
    rs_schedule_t *s = rs_schedule_create(p, err);
    if (!s) return -1;
    rs_walk_t w;
    int rc = rs_model_walk(s, rm, RS_NO_SINK, NULL, &w, err);
    rs_schedule_free(s);
    if (rc) return -1;
    *makespan = w.makespan_s;
    const int64_t a2a_steps = rs_problem_passes_q(p) && p->n_ranks > 1 ? p->n_ranks : 0;
    if (hidden) *hidden = w.comm_bound_steps - a2a_steps == 0;
    return 0;
}

/* pass-q's merge of the N partial outputs each owner gets back (O = sum exp(lse_i - lse) O_i): it reads
 * N partials of B x Hq x d (with their fp32 LSE) and writes O once, through the device's memory. */
static double merge_s(const rs_infer_config_t *c, const rs_machine_t *m, double rows, int64_t n) {
    const double bw = m->mem_bw_bytes_per_s > 0 ? m->mem_bw_bytes_per_s : m->kernels.merge_bw_bytes_per_s;
    if (n <= 1 || !(bw > 0)) return 0;
    const double per_row = (double)hq_dev(c, m) * ((double)c->model.head_dim * ACT_BYTES + 4.0);
    return ((double)n + 1.0) * rows * per_row / bw;
}

int rs_infer_ring_attn(const rs_infer_config_t *c, const rs_machine_t *m, const rs_infer_ring_case_t *rc, double *attn_s,
                       bool *hidden, rs_err_t *err) {
    const int64_t cp = cp_of(c, m);
    const rs_machine_t rm = cp_machine(c, m, cp_per_node(c, m), ring_call(c, rc->new_tokens, rc->cached_tokens, cp));
    const rs_problem_t p = attn_problem(c, cp_shape(c, m), *rc);
    if (walk(&p, &rm, attn_s, hidden, err)) return -1;
    if (rc->ring == RS_RING_PASS_Q) *attn_s += merge_s(c, m, (double)rc->new_tokens / (double)cp, cp);
    return 0;
}

/* The GEMM models of the linear layers: the FFN's in the linear dtype; the attention projections (QKV,
 * O) and the LM head in bf16 whatever it is. FP8 serving quantizes the feed-forward layers only: Llama 3
 * (Llama Team 2024, arXiv 2407.21783, section 6.2: "we do not perform quantization in the self-attention
 * layers of the model"), the recipe of the published 405B context-parallel runs (Yang et al., arXiv
 * 2411.01783, section 4.1: "row-wise quantized FP8 weights ... for feed forward layers after GQA"). */
typedef struct {
    rs_gemm_t ffn, proj;
} linear_models_t;

static int linear_models(const rs_infer_config_t *c, const rs_hw_t *hw, linear_models_t *lm, rs_err_t *err) {
    if (rs_gemm_model(hw, c->linear_dtype, c->linear_eff, &lm->ffn, err)) return -1;
    return rs_gemm_model(hw, RS_DTYPE_BF16, c->linear_eff, &lm->proj, err);
}

/* One device's forward linear layers of one layer for `tokens` tokens: the GEMMs (tp.h's shapes, gemm.h's
 * times; QKV and O on the projections' model, the FFN's two on the FFN's) and the elementwise operations
 * streamed through memory (rs_tp_pointwise_bytes at the memory bandwidth); *pointwise_s (may be NULL)
 * gets the latter part. */
static double layer_linear_s(const rs_infer_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, const linear_models_t *lm,
                             double tokens, double *pointwise_s) {
    double nk[4][2], t = 0;
    const int n = rs_tp_layer_gemms(&c->model, tp_of(c, m), nk);
    for (int i = 0; i < n; i++) t += rs_gemm_time_s(i < 2 ? &lm->proj : &lm->ffn, tokens, nk[i][0], nk[i][1]);
    const double pw = hw->mem_bw_bytes_per_s > 0
                          ? tokens * rs_tp_pointwise_bytes(&c->model, tp_of(c, m), c->linear_dtype == RS_DTYPE_FP8) / hw->mem_bw_bytes_per_s
                          : 0;
    if (pointwise_s) *pointwise_s = pw;
    return t + pw;
}

/* The two tensor-parallel all-reduces of a layer (attention output, FFN down) on `bytes` each. */
static double allreduce_s(const rs_machine_t *m, int64_t tp, double bytes) { return 2.0 * rs_tp_allreduce_s(m, tp, bytes); }

/* ---------------------------------------------------------------------------------------------------
 * The options
 * ------------------------------------------------------------------------------------------------- */
static int ring_option(const rs_infer_config_t *c, const rs_machine_t *m, rs_ring_t ring, rs_infer_option_t *o) {
    rs_err_t e = {0};
    o->kind = ring == RS_RING_PASS_KV ? RS_INFER_PASS_KV : RS_INFER_PASS_Q;
    o->ulysses = 1, o->ring = cp_of(c, m);
    const rs_infer_ring_case_t rc = {ring, c->new_tokens, c->cached_tokens};
    if (rs_infer_ring_attn(c, m, &rc, &o->attn_layer_s, &o->hidden, &e) < 0) {
        snprintf(o->why_not, sizeof o->why_not, "%.1000s", e.msg);
        return 0;
    }
    o->feasible = true;
    const rs_machine_t rm = cp_machine(c, m, cp_per_node(c, m), ring_call(c, c->new_tokens, c->cached_tokens, cp_of(c, m)));
    const rs_problem_t p = attn_problem(c, cp_shape(c, m), rc);
    rs_closed_t cl;
    if (o->ring > 1 && rs_model_closed(&p, &rm, &cl, &e) == 0) {
        o->step_bytes = cl.bytes_per_step, o->comm_s = cl.t_comm_s, o->comp_s = cl.t_comp_s, o->a2a_layer_s = cl.a2a_s;
    }
    return 0;
}

/* Ulysses (u = CP) or USP (1 < u < CP): all-to-alls over groups of u CP ranks around a ring of R = CP / u
 * (a local kernel when R = 1) on Hq/(tp u) heads. */
static void ulysses_option(const rs_infer_config_t *c, const rs_machine_t *m, int64_t u, rs_infer_option_t *o) {
    const int64_t cp = cp_of(c, m), cpn = cp_per_node(c, m), hkv = hkv_dev(c, m), hq = hq_dev(c, m), r = cp / u;
    o->kind = r == 1 ? RS_INFER_ULYSSES : RS_INFER_USP;
    o->ulysses = u, o->ring = r;
    if (c->model.kv_heads < tp_of(c, m) || hkv % u)
        return (void)snprintf(o->why_not, sizeof o->why_not,
                              "needs whole KV heads per device: %s has %lld KV heads, TP %lld leaves %s%lld per device, "
                              "not divisible by U = %lld",
                              c->model.name, (long long)c->model.kv_heads, (long long)tp_of(c, m),
                              c->model.kv_heads < tp_of(c, m) ? "a replicated " : "", (long long)hkv, (long long)u);
    if (c->new_tokens % cp)
        return (void)snprintf(o->why_not, sizeof o->why_not, "T = %lld new tokens do not split over %lld CP ranks",
                              (long long)c->new_tokens, (long long)cp);
    if (cpn > 1 && cpn % u && u % cpn)
        return (void)snprintf(o->why_not, sizeof o->why_not, "U = %lld and %lld CP ranks per node do not nest",
                              (long long)u, (long long)cpn);
    const rs_machine_t am = cp_links(m, cpn);
    const double tok = (double)c->new_tokens / (double)cp, d = (double)c->model.head_dim;
    rs_sp_a2a_t calls; /* one all-to-all per tensor: Q, K, V in, O out (alt.h) */
    rs_sp_a2a_of_tensors(tok * (double)hq * d * ACT_BYTES, tok * (double)hkv * d * ACT_BYTES, RS_PASS_FORWARD, &calls);
    o->a2a_layer_s = rs_sp_a2a_time_s(&am, u, &calls, NULL, NULL);
    const rs_machine_t rm = cp_machine(c, m, cpn % u == 0 ? cpn / u : 1, ring_call(c, c->new_tokens, c->cached_tokens, r));
    const rs_problem_t p =
        attn_problem(c, (attn_shape_t){hq / u, hkv / u, r}, (rs_infer_ring_case_t){RS_RING_PASS_KV, c->new_tokens, c->cached_tokens});
    rs_err_t e = {0};
    double attn;
    if (walk(&p, &rm, &attn, &o->hidden, &e) < 0) return (void)snprintf(o->why_not, sizeof o->why_not, "%.1000s", e.msg);
    o->feasible = true;
    o->attn_layer_s = o->a2a_layer_s + attn;
}

/* The fastest USP split (the first reason none exists otherwise). */
static void usp_option(const rs_infer_config_t *c, const rs_machine_t *m, rs_infer_option_t *o) {
    const int64_t cp = cp_of(c, m);
    memset(o, 0, sizeof *o);
    o->kind = RS_INFER_USP;
    snprintf(o->why_not, sizeof o->why_not, "needs at least 4 CP ranks (U and R > 1), there are %lld", (long long)cp);
    bool first = true;
    for (int64_t u = 2; u < cp; u++) {
        if (cp % u) continue;
        rs_infer_option_t t;
        memset(&t, 0, sizeof t);
        ulysses_option(c, m, u, &t);
        if ((t.feasible && (!o->feasible || t.attn_layer_s < o->attn_layer_s)) || (first && !o->feasible)) *o = t;
        first = false;
    }
}

int64_t rs_infer_cp_ranks(const rs_infer_config_t *c, const rs_machine_t *m) { return cp_of(c, m); }

/* e += times walks of an n-rank ring's forward pass (estimate.h). */
static void walks(int64_t n, int times, rs_estimate_t *e) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.n_ranks = n, p.pass = RS_PASS_FORWARD;
    rs_estimate_t w;
    rs_walk_estimate(&p, RS_EST_NO_TRACE, &w);
    for (int i = 0; i < times; i++) rs_estimate_then(e, &w);
}

void rs_infer_crossing_estimate(const rs_infer_config_t *c, const rs_machine_t *m, rs_estimate_t *e) {
    const int64_t cp = cp_of(c, m), g = cp > 1 && c->layout == RS_LAYOUT_ZIGZAG ? 2 * cp : cp;
    const int64_t kmax = ((int64_t)1 << 26) / g;
    int doublings = 0; /* rs_infer_crossing: hi = 1, 2, 4, ... up to kmax, then a bisection as long */
    for (int64_t k = 1; k < kmax; k *= 2) doublings++;
    walks(cp, 2 * (2 * doublings + 1), e); /* pass-kv and pass-q per T tried */
}

void rs_infer_estimate(const rs_infer_config_t *c, const rs_machine_t *m, rs_estimate_t *e) {
    const int64_t cp = cp_of(c, m);
    walks(cp, 2, e); /* pass-kv, pass-q */
    for (int64_t d = 1; d * d <= cp; d++) { /* Ulysses (R = 1) and USP: every U | CP, 1 < U, a ring of CP / U */
        if (cp % d) continue;
        if (d > 1) walks(cp / d, 1, e);
        if (cp / d != d && cp / d > 1) walks(d, 1, e);
    }
    if (c->cached_tokens > 0 && cp > 1) rs_infer_crossing_estimate(c, m, e);
    if (c->decode_batch > 0) walks(cp, 1, e);
}

double rs_infer_comm_bound_ratio(const rs_infer_config_t *c, const rs_machine_t *m) {
    const double hq = (double)hq_dev(c, m), hkv = (double)hkv_dev(c, m), de = (double)c->model.head_dim * ACT_BYTES;
    return 2 * hkv * de / (2 * hq * de + 4 * hq - 2 * hkv * de);
}

int rs_infer_crossing(const rs_infer_config_t *c, const rs_machine_t *m, int64_t *t_cross, rs_err_t *err) {
    const int64_t cp = cp_of(c, m), g = cp > 1 && c->layout == RS_LAYOUT_ZIGZAG ? 2 * cp : cp;
    const int64_t kmax = ((int64_t)1 << 26) / g;
    double kv, q;
    int64_t lo = 0, hi = 1; /* pass-q faster at lo (0: none tried), pass-kv no slower at hi */
    for (;;) {
        if (rs_infer_ring_attn(c, m, &(rs_infer_ring_case_t){RS_RING_PASS_KV, hi * g, c->cached_tokens}, &kv, NULL, err) < 0 ||
            rs_infer_ring_attn(c, m, &(rs_infer_ring_case_t){RS_RING_PASS_Q, hi * g, c->cached_tokens}, &q, NULL, err) < 0)
            return -1;
        if (kv <= q) break;
        if (hi >= kmax) return *t_cross = -1, 0;
        lo = hi;
        hi = hi * 2 < kmax ? hi * 2 : kmax;
    }
    if (lo == 0) return *t_cross = 0, 0;
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (rs_infer_ring_attn(c, m, &(rs_infer_ring_case_t){RS_RING_PASS_KV, mid * g, c->cached_tokens}, &kv, NULL, err) < 0 ||
            rs_infer_ring_attn(c, m, &(rs_infer_ring_case_t){RS_RING_PASS_Q, mid * g, c->cached_tokens}, &q, NULL, err) < 0)
            return -1;
        if (kv <= q) hi = mid;
        else lo = mid;
    }
    *t_cross = hi * g;
    return 0;
}

/* ---------------------------------------------------------------------------------------------------
 * The point
 * ------------------------------------------------------------------------------------------------- */
double rs_infer_decode_bw_eff(const rs_hw_t *hw, rs_rate_source_t *src) {
    rs_rate_source_t own = hw->decode_src;
    double eff = hw->decode_bw_eff.point;
    if (!(eff > 0)) { /* the device preset the profile's name names, else the H100 SXM's, as an estimate */
        rs_hw_t dev;
        const bool named = rs_hw_device(hw, &dev) && dev.decode_bw_eff.point > 0;
        if (named || rs_hw_load("h100-sxm", &dev, NULL) == 0) {
            eff = dev.decode_bw_eff.point;
            own.kind = RS_RKIND_ESTIMATED;
            snprintf(own.source, sizeof own.source, "the profile gives no device.decode_bw_eff: %s's %.3g (%.200s)", dev.name, eff,
                     dev.decode_src.source);
        }
    }
    if (!(eff > 0)) { /* no preset to borrow from (can't happen with the shipped presets) */
        eff = 1;
        own.kind = RS_RKIND_ESTIMATED;
        snprintf(own.source, sizeof own.source, "not given: the datasheet memory bandwidth (an upper bound)");
    }
    if (src) *src = own;
    return eff;
}

const char *rs_infer_rates_describe(const rs_infer_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, char *buf, size_t len) {
    const rs_rate_source_t *a = &m->src.rate[RS_RATE_ATTN];
    const rs_kcurve_t *cv = fwd_curve(c, m);
    size_t n = 0;
    if (c->attn_eff > 0)
        n = (size_t)snprintf(buf, len, "prefill attention at --attn-eff %.2f x the dense peak %.4g TFLOP/s x the query padding (user-given)",
                             c->attn_eff, m->flops_per_s / 1e12);
    else if (cv) /* the machine's attention record (rs_machine_set_kernel's) names the kernel and its source */
        n = (size_t)snprintf(buf, len, "prefill attention at the %s forward full-mask rates by call shape (head_dim %lld, full waves: "
                                       "split-KV) x the query padding (%s)",
                             rs_rate_kind_name(a->kind), (long long)cv->head_dim, a->source);
    else if (m->kernel <= 0) /* no kernel: the record says what rates the dense model (--flops, eff(B), or the bare peak) */
        n = (size_t)snprintf(buf, len, "prefill attention at F = %.4g TFLOP/s, %s: %s", m->flops_per_s / 1e12, rs_rate_kind_name(a->kind), a->source);
    else if (m->cal.n_eff > 0) /* a kernel the prefill does not run (calibration first, or no forward curve): its own words */
        n = (size_t)snprintf(buf, len, "prefill attention at F x eff(B) = %.4g TFLOP/s x eff(B), eff(B) %s (%s)", m->flops_per_s / 1e12,
                             rs_rate_kind_name(m->eff_src.kind), m->eff_src.source);
    else
        n = (size_t)snprintf(buf, len, "prefill attention at the bare datasheet peak F = %.4g TFLOP/s (an upper bound, not a kernel rate)",
                             m->flops_per_s / 1e12);
    if (c->decode_batch > 0 && n < len) {
        rs_rate_source_t d;
        const double eff = rs_infer_decode_bw_eff(hw, &d);
        const rs_span_t sp = hw->decode_bw_eff;
        char range[64] = "";
        if (sp.point > 0 && (sp.lo != sp.point || sp.hi != sp.point)) snprintf(range, sizeof range, ", range %.3g..%.3g", sp.lo, sp.hi);
        snprintf(buf + n, len - n, "; decode attention memory-bound, KV bytes / (%.4g TB/s x %.3g%s) (%s: %s)", hw->mem_bw_bytes_per_s / 1e12,
                 eff, range, rs_rate_kind_name(d.kind), d.source);
    }
    return buf;
}

/* One decode step (pass-q) at a context of P + T for decode_batch sequences. */
static int decode_point(const rs_infer_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, const linear_models_t *lm,
                        rs_infer_point_t *pt, rs_err_t *err) {
    const rs_transformer_t *t = &c->model;
    const int64_t tp = pt->tp, cp = pt->cp, b = c->decode_batch, bo = (b + cp - 1) / cp;
    pt->decode_linear_layer_s = layer_linear_s(c, hw, m, lm, (double)bo, NULL); /* weight-bound GEMMs of bo tokens */
    pt->decode_allreduce_layer_s = allreduce_s(m, tp, (double)bo * (double)t->hidden * ACT_BYTES);
    rs_machine_t rm = cp_links(m, cp_per_node(c, m));
    if (rm.inter.latency_s < NCCL_INTER_OP_S) rm.inter.latency_s = NCCL_INTER_OP_S; /* small messages: an NCCL operation's time */
    /* memory-bound: the decode kernel reads the KV cache once per query head group, 2 Hq / (Hkv e) FLOPs per
     * byte, at the fraction of the memory bandwidth decode kernels reach (the profile's decode_bw_eff);
     * the dense peak bounds it (never reached at these intensities) */
    const double intensity = 2.0 * (double)hq_dev(c, m) / ((double)hkv_dev(c, m) * ACT_BYTES);
    pt->decode_bw_eff = rs_infer_decode_bw_eff(hw, NULL);
    rm.flops_per_s = fmin(m->flops_per_s, intensity * hw->mem_bw_bytes_per_s * pt->decode_bw_eff);
    rm.cal.n_eff = 0;
    rs_problem_t p = attn_problem(c, cp_shape(c, m), (rs_infer_ring_case_t){RS_RING_PASS_Q, 1, c->cached_tokens + c->new_tokens});
    p.decode = true, p.batch = b, p.layout = c->layout;
    if (walk(&p, &rm, &pt->decode_attn_layer_s, NULL, err) < 0) return -1;
    pt->decode_attn_layer_s += merge_s(c, m, (double)bo, cp); /* the owners merge the partials */
    pt->decode_head_s = rs_gemm_time_s(&lm->proj, (double)bo, (double)t->vocab / (double)tp, (double)t->hidden);
    pt->decode_step_s = (double)t->layers * (pt->decode_linear_layer_s + pt->decode_allreduce_layer_s + pt->decode_attn_layer_s) + pt->decode_head_s;
    return 0;
}

/* The winner and why, one line. */
static void explain(const rs_infer_config_t *c, rs_infer_point_t *pt) {
    char *w = pt->why;
    size_t len = sizeof pt->why, n = 0;
#define ADD(...)                                                                                          \
    do {                                                                                                  \
        if (n < len) n += (size_t)snprintf(w + n, len - n, __VA_ARGS__);                                  \
    } while (0)
    if (pt->best < 0) {
        ADD("no option runs: pass-kv %s", pt->opt[RS_INFER_PASS_KV].why_not);
        return;
    }
    const rs_infer_option_t *b = &pt->opt[pt->best];
    ADD("%s wins: TTFT %.4g s, attention %.4g ms/layer", rs_infer_kind_name(b->kind), b->ttft_s, b->attn_layer_s * 1e3);
    if (b->ring > 1) ADD(" (ring transfers %s)", b->hidden ? "hidden" : "exposed");
    if (b->a2a_layer_s > 0) ADD(", all-to-all %.3g ms/layer", b->a2a_layer_s * 1e3);
    const rs_infer_option_t *kv = &pt->opt[RS_INFER_PASS_KV], *q = &pt->opt[RS_INFER_PASS_Q];
    if (kv->feasible && q->feasible && pt->cp > 1) {
        if (c->cached_tokens == 0)
            ADD("; no cache: pass-q moves %.3g MB per step against pass-kv's %.3g MB and adds the all-to-all",
                q->step_bytes / 1e6, kv->step_bytes / 1e6);
        else if (pt->cross_tokens > 0)
            ADD("; T/P = %.4g %s the pass-kv/pass-q crossing T/P = %.4g (T = %lld at this P)",
                (double)c->new_tokens / (double)c->cached_tokens,
                c->new_tokens >= pt->cross_tokens ? "is at or above" : "is below",
                (double)pt->cross_tokens / (double)c->cached_tokens, (long long)pt->cross_tokens);
        else if (pt->cross_tokens == 0)
            ADD("; pass-kv no slower than pass-q at any T at this P");
        else
            ADD("; pass-q faster up to T = 2^26 at this P");
        ADD(" (per step: pass-kv %.3g MB %s, pass-q %.3g MB %s)", kv->step_bytes / 1e6, kv->hidden ? "hidden" : "exposed",
            q->step_bytes / 1e6, q->hidden ? "hidden" : "exposed");
    }
    for (int i = 0; i < RS_INFER_COUNT; i++) {
        if (i == pt->best) continue;
        const rs_infer_option_t *o = &pt->opt[i];
        if (o->feasible) ADD("; %s %.4g s", rs_infer_kind_name(o->kind), o->ttft_s);
        else ADD("; %s impossible: %s", rs_infer_kind_name(o->kind), o->why_not);
    }
#undef ADD
}

/* Memory, the linear layers, their all-reduces and the head of the point (the first token's LM head). */
static void layer_costs(const rs_infer_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, const linear_models_t *lm,
                        rs_infer_point_t *pt) {
    const rs_transformer_t *t = &c->model;
    const double ew = (double)rs_dtype_bytes(c->linear_dtype), tok = (double)c->new_tokens / (double)pt->cp;
    const double ffn = (double)t->layers * (double)rs_transformer_layer_ffn_params(t);
    /* the FFN's weights in the linear dtype, every other weight in bf16 */
    pt->weight_bytes = (ffn * ew + ((double)rs_transformer_params(t) - ffn) * ACT_BYTES) / (double)pt->tp;
    pt->kv_cache_bytes = (double)t->layers * (double)(c->cached_tokens + c->new_tokens) / (double)pt->cp * 2.0 *
                         (double)hkv_dev(c, m) * (double)t->head_dim * ACT_BYTES;
    /* the runtime beside them: the CUDA context and NCCL's communicators (TP's, CP's, and pass-q's all-to-all peers) */
    pt->runtime_bytes = rs_runtime_fixed_bytes(RS_RT_PYTORCH, (pt->tp > 1) + (pt->cp > 1), pt->cp - 1);
    pt->usable_bytes = (c->usable_frac > 0 ? c->usable_frac : rs_runtime_usable(RS_RT_PYTORCH)) * hw->mem_bytes;
    pt->fits = pt->weight_bytes + pt->kv_cache_bytes + pt->runtime_bytes <= pt->usable_bytes;
    pt->linear_layer_s = layer_linear_s(c, hw, m, lm, tok, &pt->pointwise_layer_s);
    pt->allreduce_layer_s = allreduce_s(m, pt->tp, tok * (double)t->hidden * ACT_BYTES);
    pt->head_s = rs_gemm_time_s(&lm->proj, 1, (double)t->vocab / (double)pt->tp, (double)t->hidden);
}

int rs_infer_point(const rs_infer_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, rs_infer_point_t *out,
                   rs_err_t *err) {
    if (rs_infer_config_validate(c, m, err)) return -1;
    if (!(hw->flops_per_s[c->linear_dtype] > 0) || !(hw->flops_per_s[RS_DTYPE_BF16] > 0))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--linear-dtype %s: profile %s has no %s rate", rs_dtype_name(c->linear_dtype), hw->name,
                       hw->flops_per_s[RS_DTYPE_BF16] > 0 ? rs_dtype_name(c->linear_dtype) : "bf16");
    rs_infer_point_t *pt = out;
    memset(pt, 0, sizeof *pt);
    snprintf(pt->hw_name, sizeof pt->hw_name, "%s", hw->name);
    pt->devices_per_node = g_of(m), pt->tp = tp_of(c, m), pt->cp = cp_of(c, m), pt->nodes = c->nodes;
    pt->new_tokens = c->new_tokens, pt->cached_tokens = c->cached_tokens;
    linear_models_t lm;
    if (linear_models(c, hw, &lm, err)) return -1;
    layer_costs(c, hw, m, &lm, pt);
    ring_option(c, m, RS_RING_PASS_KV, &pt->opt[RS_INFER_PASS_KV]);
    ring_option(c, m, RS_RING_PASS_Q, &pt->opt[RS_INFER_PASS_Q]);
    rs_infer_option_t *ul = &pt->opt[RS_INFER_ULYSSES];
    if (pt->cp > 1) ulysses_option(c, m, pt->cp, ul);
    else ul->kind = RS_INFER_ULYSSES, snprintf(ul->why_not, sizeof ul->why_not, "one CP rank: nothing to split");
    usp_option(c, m, &pt->opt[RS_INFER_USP]);
    const rs_transformer_t *t = &c->model;
    pt->best = -1;
    for (int i = 0; i < RS_INFER_COUNT; i++) {
        rs_infer_option_t *o = &pt->opt[i];
        if (!o->feasible) continue;
        o->ttft_s = (double)t->layers * (pt->linear_layer_s + pt->allreduce_layer_s + o->attn_layer_s) + pt->head_s;
        if (pt->best < 0 || o->ttft_s < pt->opt[pt->best].ttft_s) pt->best = i;
    }
    if (c->cached_tokens > 0 && pt->cp > 1 && pt->opt[0].feasible && pt->opt[1].feasible &&
        rs_infer_crossing(c, m, &pt->cross_tokens, err) < 0)
        return -1;
    const double s = (double)c->new_tokens, pairs = s * (double)c->cached_tokens + (c->causal ? s * (s + 1) / 2 : s * s);
    const double ffn_flops = (double)t->layers * 2 * (double)rs_transformer_layer_ffn_params(t) * s;
    const double lin_flops = (double)t->layers * 2 * (double)rs_transformer_layer_matmul_params(t) * s + 2.0 * (double)t->vocab * (double)t->hidden;
    const double attn_flops = (double)t->layers * 4.0 * (double)t->head_dim * (double)t->q_heads * pairs;
    pt->model_flops = lin_flops + attn_flops;
    /* each part at its own dtype's datasheet peak: the FFN's (bf16 or fp8), the projections', head's and attention's bf16 */
    if (pt->best >= 0)
        pt->flops_util = (ffn_flops / hw->flops_per_s[c->linear_dtype] + (lin_flops - ffn_flops + attn_flops) / hw->flops_per_s[RS_DTYPE_BF16]) /
                         (pt->opt[pt->best].ttft_s * (double)(pt->cp * pt->tp));
    if (c->decode_batch > 0 && decode_point(c, hw, m, &lm, pt, err) < 0) return -1;
    explain(c, pt);
    return 0;
}
