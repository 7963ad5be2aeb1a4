/* shared_opts.c - the options most commands share, as one table (shared_opts.h): the problem, the
 * hardware profile and what is changed on it, the limits. They fill an rs_setup_t (studies/setup.h). */
#include "shared_opts.h"

#include <stddef.h>
#include <string.h>

#include "memory.h"
#include "opt_values.h"
#include "ranges.h"

static int parse_layouts(void *dst, const char *arg, rs_err_t *err) {
    rs_setup_t *c = dst;
    return rs_cli_parse_layouts(arg, c->layouts, &c->n_layouts, err);
}

/* -m: a model's attention shape (heads, KV heads, head_dim); options after it override them. */
static int parse_model(void *dst, const char *arg, rs_err_t *err) {
    rs_setup_t *c = dst;
    rs_transformer_t t;
    if (rs_transformer_load(arg, &t, err) != 0) return -1;
    c->problem.q_heads = t.q_heads, c->problem.kv_heads = t.kv_heads, c->problem.head_dim = t.head_dim;
    c->model = arg;
    return 0;
}

static int parse_passes(void *dst, const char *arg, rs_err_t *err) {
    rs_setup_t *c = dst;
    if (!strcmp(arg, "both") || !strcmp(arg, "all")) {
        c->problem.decode = false;
        c->n_passes = 2;
        c->passes[0] = RS_PASS_FORWARD;
        c->passes[1] = RS_PASS_BACKWARD;
        return 0;
    }
    rs_pass_t p;
    c->problem.decode = !strcmp(arg, "decode"); /* a forward step of one token per sequence (pass-q) */
    if (c->problem.decode) p = RS_PASS_FORWARD, c->problem.seq_tokens = 1;
    else if (rs_pass_parse(arg, &p) != 0) return rs_errf(err, "--pass %s: expected forward, backward, both or decode", arg);
    c->n_passes = 1;
    c->passes[0] = p;
    return 0;
}

static int parse_ring(void *dst, const char *arg, rs_err_t *err) {
    rs_setup_t *c = dst;
    if (rs_ring_parse(arg, &c->problem.ring) != 0)
        return rs_errf(err, "--ring %s: expected pass-kv (K,V circulate, Q stays) or pass-q (Q circulates, K,V stay)", arg);
    c->ring_given = true;
    return 0;
}

static int parse_dtype(void *dst, const char *arg, rs_err_t *err) {
    rs_dtype_t dtype;
    if (rs_dtype_parse(arg, &dtype) != 0) return rs_errf(err, "--dtype %s: expected fp32, tf32, bf16, fp16 or fp8", arg);
    rs_setup_dtype(dst, dtype);
    return 0;
}

/* "T" or "TQxTK", each in [1, 2^20]; a message quotes the whole value. */
static int parse_tile(void *dst, const char *arg, rs_err_t *err) {
    rs_problem_t *p = &((rs_setup_t *)dst)->problem;
    int64_t q, k;
    rs_err_t e;
    const char *x = strchr(arg, 'x');
    char head[32];
    const size_t len = x ? (size_t)(x - arg) : strlen(arg);
    int rc = len == 0 || len >= sizeof head || (x && strchr(x + 1, 'x')) ? -1 : 0;
    if (rc == 0) {
        memcpy(head, arg, len);
        head[len] = 0;
        rc = rs_parse_size("--tile", head, RS_TILE_MIN, RS_TILE_MAX, &q, &e);
        k = q;
        if (rc == 0 && x) rc = rs_parse_size("--tile", x + 1, RS_TILE_MIN, RS_TILE_MAX, &k, &e);
    }
    if (rc != 0) return rs_errf(err, "--tile %s: expected T or TQxTK, sizes in [1, 1048576] (K suffix), e.g. 128 or 128x64", arg);
    p->tile_q = q, p->tile_k = k;
    return 0;
}

/* "S" or "S:S_PER_BYTE" */
static int parse_host_cost(void *dst, const char *arg, rs_err_t *err) {
    rs_machine_spec_t *m = &((rs_setup_t *)dst)->spec;
    char head[64];
    const char *colon = strchr(arg, ':');
    size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
    if (len == 0 || len >= sizeof head)
        return rs_errf(err, "--host-cost %s: expected S or S:S_PER_BYTE (seconds per transfer, per byte), e.g. 5e-6:5e-11", arg);
    memcpy(head, arg, len);
    head[len] = 0;
    const rs_range_t rx = {RS_RANGE_HOST_XFER}, rb = {RS_RANGE_HOST_BYTE};
    rs_err_t e;
    if (rs_parse_double("--host-cost", head, rx.min, rx.max, &m->host_xfer, &e))
        return rs_errf(err, "--host-cost %s: seconds per transfer must be a number in [%g, %g], got '%s'", arg, rx.min, rx.max, head);
    m->host_byte = 0;
    if (colon && rs_parse_double("--host-cost", colon + 1, rb.min, rb.max, &m->host_byte, &e))
        return rs_errf(err, "--host-cost %s: seconds per byte must be a number in [%g, %g], got '%s'", arg, rb.min, rb.max, colon + 1);
    return 0;
}

static int parse_grad_bytes(void *dst, const char *arg, rs_err_t *err) {
    rs_setup_t *s = dst;
    s->grad_bytes_given = true;
    return rs_parse_size("--grad-bytes", arg, RS_ELEM_BYTES_MIN, RS_ELEM_BYTES_MAX, &s->problem.grad_bytes, err);
}

static int parse_impl(void *dst, const char *arg, rs_err_t *err) {
    return rs_machine_spec_impl(&((rs_setup_t *)dst)->spec, arg, NULL, err);
}

static int parse_bound(void *dst, const char *arg, rs_err_t *err) {
    rs_bound_t b;
    if (rs_bound_parse(arg, &b) != 0) return rs_errf(err, "--bound %s: expected point, fast or slow", arg);
    ((rs_setup_t *)dst)->spec.bound = b;
    return 0;
}

static int parse_seed(void *dst, const char *arg, rs_err_t *err) {
    int64_t v;
    if (rs_parse_size("--seed", arg, 0, INT64_MAX, &v, err)) return -1;
    ((rs_setup_t *)dst)->spec.seed = (uint64_t)v;
    return 0;
}

/* --straggler R:F (which 0) and --degrade H:F (which 1): one more pair of the perturbation, its value
 * kept as given (setup.h: perturb_args, quoted by later messages). */
static int parse_perturb(rs_setup_t *s, int which, const char *arg, rs_err_t *err) {
    rs_perturb_t *q = &s->spec.perturb;
    int *n = which ? &q->n_degraded : &q->n_stragglers;
    const rs_cli_pairs_t l = which ? (rs_cli_pairs_t){"--degrade", "hop", q->degraded_hop, q->degraded_factor, *n}
                                   : (rs_cli_pairs_t){"--straggler", "rank", q->straggler_rank, q->straggler_factor, *n};
    if (*n >= RS_MAX_PERTURB) return rs_errf(err, "%s: at most %d", l.flag, RS_MAX_PERTURB);
    if (rs_cli_parse_pair(&l, arg, err)) return -1;
    s->perturb_args[which][(*n)++] = arg;
    return 0;
}

static int parse_straggler(void *dst, const char *arg, rs_err_t *err) { return parse_perturb(dst, 0, arg, err); }

static int parse_degrade(void *dst, const char *arg, rs_err_t *err) { return parse_perturb(dst, 1, arg, err); }

static int parse_max_memory(void *dst, const char *arg, rs_err_t *err) {
    int64_t v;
    if (rs_parse_size("--max-memory", arg, 1 << 20, INT64_MAX, &v, err) != 0) return -1;
    ((rs_setup_t *)dst)->limits.max_mem_bytes = (double)v;
    return 0;
}

#define P(field) offsetof(rs_setup_t, problem.field)
#define M(field) offsetof(rs_setup_t, spec.field)
const rs_opt_t rs_cli_shared_opts[] = {
    {"seq", 'S', "TOKENS", "128K", "total sequence length S", RS_ARG_SIZE, P(seq_tokens), RS_SEQ_TOKENS_MIN, (double)RS_SEQ_TOKENS_MAX, NULL, NULL,
     "Problem (sizes take K/M/G = powers of 1024):"},
    {"ranks", 'N', "N", "8", "ranks in the ring", RS_ARG_SIZE, P(n_ranks), RS_N_RANKS_MIN, (double)RS_N_RANKS_MAX, NULL, NULL, NULL},
    {"batch", 0, "B", "1", "sequences per step", RS_ARG_SIZE, P(batch), RS_BATCH_MIN, (double)RS_BATCH_MAX, NULL, NULL, NULL},
    {"model", 'm', "NAME|FILE", "none", "model preset or JSON: its --heads, --kv-heads, --head-dim (later\noptions override them; sim: also the --background layer)",
     RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_model, NULL},
    {"heads", 0, "H", "32", "query heads", RS_ARG_SIZE, P(q_heads), RS_HEADS_MIN, (double)RS_HEADS_MAX, NULL, NULL, NULL},
    {"kv-heads", 0, "H", "8", "key/value heads (divides --heads)", RS_ARG_SIZE, P(kv_heads), RS_HEADS_MIN, (double)RS_HEADS_MAX, NULL, NULL, NULL},
    {"head-dim", 0, "D", "128", "head dimension", RS_ARG_SIZE, P(head_dim), RS_HEAD_DIM_MIN, (double)RS_HEAD_DIM_MAX, NULL, NULL, NULL},
    {"dtype", 0, "T", "bf16", "fp32|tf32|bf16|fp16|fp8: activations and the peak F used", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_dtype, NULL},
    {"grad-bytes", 0, "N", "the preset's, else 4", "bytes per dK,dV element in flight", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_grad_bytes, NULL},
    {"causal", 0, NULL, "causal", "causal mask", RS_ARG_TRUE, P(causal), 0, 0, NULL, NULL, NULL},
    {"no-causal", 0, NULL, NULL, "no mask: every token sees every token", RS_ARG_FALSE, P(causal), 0, 0, NULL, NULL, NULL},
    {"layout", 'L', "L", "command default", "contiguous|striped|zigzag, comma list, or all", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_layouts, NULL},
    {"pass", 'P', "P", "command default",
     "forward|backward|both, or decode (one new token per\nsequence on the --cached ones, pass-q; sets --seq 1)",
     RS_ARG_CUSTOM, 0, 0, 0,
     NULL, parse_passes, NULL},
    {"ring", 0, "R", "pass-kv", "pass-kv (K,V circulate) or pass-q (Q circulates,\nthe partial outputs return in an all-to-all)",
     RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_ring, NULL},
    {"cached", 0, "P", "0", "cached prefix tokens per sequence (their K,V are\nsharded like the --seq new tokens)",
     RS_ARG_SIZE, P(cached_tokens), RS_CACHED_TOKENS_MIN, (double)RS_CACHED_TOKENS_MAX, NULL, NULL, NULL},
    {"tile", 0, "T|TQxTK", "128", "kernel tile for executed FLOPs", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_tile, NULL},
    {"profile", 'p', "NAME|FILE", "h100-sxm", "device profile (ringsim profiles lists them)", RS_ARG_IN_BUF, M(profile), 0,
     sizeof(((rs_machine_spec_t *)0)->profile), NULL, NULL, "Hardware (rates take SI suffixes: 450G = 450e9):"},
    {"inter", 0, "NAME|FILE", "the profile's", "inter-node tier preset (ib-ndr, roce-400g, ...)", RS_ARG_IN_BUF, M(inter), 0,
     sizeof(((rs_machine_spec_t *)0)->inter), NULL, NULL, NULL},
    {"gpus-per-node", 0, "G", "the profile's", "devices per node; 0 = one flat ring", RS_ARG_SIZE, M(gpus_per_node),
     RS_RANGE_GPUS_PER_NODE, NULL, NULL, NULL},
    {"flops", 0, "F", "the profile's", "peak FLOP/s for --dtype", RS_ARG_DOUBLE, M(flops), RS_RANGE_FLOPS, NULL, NULL, NULL},
    {"bw", 0, "W", "the profile's", "intra-node hop bandwidth, bytes/s per direction", RS_ARG_DOUBLE, M(bw), RS_RANGE_BW, NULL,
     NULL, NULL},
    {"inter-bw", 0, "W", "the profile's", "inter-node hop bandwidth", RS_ARG_DOUBLE, M(inter_bw), RS_RANGE_BW, NULL, NULL, NULL},
    {"latency", 0, "S", "the profile's", "per-message latency of every tier, s", RS_ARG_DOUBLE, M(latency), RS_RANGE_LATENCY, NULL,
     NULL, NULL},
    {"impl", 0, "NAME", "the profile's", "ring implementation preset costing the steps: ringsim|flash-attn|te|none\n"
     "(none: the dense peak F x eff(B); --flops alone implies it)", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_impl, NULL},
    {"kernel", 0, "NAME", "the preset's", "the profile's kernel whose curves rate the calls", RS_ARG_BUF, M(kernel), 0,
     sizeof(((rs_machine_spec_t *)0)->kernel), NULL, NULL, NULL},
    {"allow-implausible", 0, NULL, "refuse", RS_CLI_ALLOW_IMPLAUSIBLE_HELP, RS_ARG_TRUE, M(allow_implausible), 0, 0, NULL, NULL,
     NULL},
    {"launch-overhead", 0, "S", "the profile's device", "device-side cost of a kernel launch, s (the dense model: one per step)",
     RS_ARG_DOUBLE, M(launch), RS_RANGE_LAUNCH, NULL, NULL, NULL},
    {"host-call", 0, "S", "the preset's", "host time of one framework call (a launch or a host-only op) of the\n"
     "implementation preset, s", RS_ARG_DOUBLE, M(host_call), RS_RANGE_LAUNCH, NULL, NULL, NULL},
    {"bound", 0, "END", "point", "uncertain figures (launch and host costs, p2p efficiency, NIC share) at\n"
     "their point values, or all at the end that makes the ring fast or slow: point|fast|slow", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_bound, NULL},
    {"overlap", 0, "ETA", "1", "transfer progress rate while computing, [0,1]", RS_ARG_DOUBLE, M(overlap), RS_RANGE_OVERLAP, NULL, NULL,
     NULL},
    {"slowdown", 0, "SIGMA", "1", "compute slowdown while a transfer is in flight, >= 1", RS_ARG_DOUBLE, M(slowdown), RS_RANGE_SLOWDOWN, NULL, NULL, NULL},
    {"host-cost", 0, "S[:S_PER_BYTE]", "the profile's, else 0",
     "compute time a rank loses per transfer it receives\n(and per byte: a CPU-driven copy) in a step", RS_ARG_CUSTOM, 0,
     0, 0, NULL, parse_host_cost, NULL},
    {"jitter", 0, "J", "0", "compute time x (1 + J*(2u-1)), u seeded per (rank, step)", RS_ARG_DOUBLE, M(jitter), RS_RANGE_JITTER,
     NULL, NULL, NULL},
    {"seed", 0, "N", "1", "jitter seed", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_seed, NULL},
    {"straggler", 0, "R:F", "none", "rank R computes F times slower (repeatable)", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_straggler, NULL},
    {"degrade", 0, "H:F", "none", "hop H -> H+1 has 1/F of its bandwidth (repeatable)", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_degrade, NULL},
    {"max-time", 0, "S", "600", "refuse a run estimated to take longer, seconds", RS_ARG_DOUBLE,
     offsetof(rs_setup_t, limits.max_time_s), 1e-3, 1e12, NULL, NULL, "Limits (estimated before anything runs):"},
    {"max-memory", 0, "SIZE", "half the RAM", "refuse a run estimated to need more memory (K/M/G)", RS_ARG_CUSTOM, 0, 0, 0,
     NULL, parse_max_memory, NULL},
};
const int rs_cli_shared_n = RS_OPTS_N(rs_cli_shared_opts);
#undef P
#undef M

rs_opt_group_t rs_cli_shared_group(rs_setup_t *s, const char *skip) {
    return (rs_opt_group_t){rs_cli_shared_opts, rs_cli_shared_n, s, skip, 0, false};
}

rs_opt_group_t rs_cli_problem_group(rs_setup_t *s) {
    int n = 0;
    while (n < rs_cli_shared_n && strcmp(rs_cli_shared_opts[n].name, "profile") != 0) n++; /* the hardware's first */
    return (rs_opt_group_t){rs_cli_shared_opts, n, s, NULL, 0, false};
}

rs_opt_group_t rs_cli_limits_group(rs_setup_t *s) {
    int k = 0;
    while (k < rs_cli_shared_n && strcmp(rs_cli_shared_opts[k].name, "max-time") != 0) k++; /* the limits' first */
    return (rs_opt_group_t){rs_cli_shared_opts + k, rs_cli_shared_n - k, s, NULL, 0, false};
}

void rs_cli_inference_passes(rs_setup_t *s, const rs_opt_group_t *shared) {
    const rs_problem_t *p = &s->problem;
    if ((p->cached_tokens > 0 || p->ring == RS_RING_PASS_Q || p->decode) && !rs_cli_given(shared, "pass")) {
        s->n_passes = 1;
        s->passes[0] = RS_PASS_FORWARD;
    }
}
