/* common.c - the options every command shares, as one table (rs_cli_shared_opts): the problem, the
 * hardware profile and what is changed on it. They fill an rs_setup_t (studies/setup.h). */
#include <stddef.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ranges.h"

#ifdef RINGSIM_HAVE_EXEC
#include "exec_launch.h"
#include "output.h"
#endif

/* "RANK:FACTOR" (what: "rank" or "hop"), the factor in RS_RANGE_FACTOR; one factor per index (n
 * given so far in idx[]). Messages quote the whole value. */
static int parse_pair(const char *flag, const char *what, const char *arg, const int64_t *idx, const double *fac, int n,
                      int64_t *idx_out, double *factor, rs_err_t *err) {
    const rs_range_t r = {RS_RANGE_FACTOR};
    const char *colon = strchr(arg, ':');
    char head[64];
    const size_t len = colon ? (size_t)(colon - arg) : 0;
    if (!colon || len == 0 || len >= sizeof head || strchr(colon + 1, ':'))
        return rs_errf(err, "%s %s: expected %s:FACTOR, one colon, e.g. 3:1.5", flag, arg, what[0] == 'r' ? "RANK" : "HOP");
    memcpy(head, arg, len);
    head[len] = 0;
    rs_err_t e;
    if (rs_parse_size(flag, head, 0, INT32_MAX, idx_out, &e) != 0)
        return rs_errf(err, "%s %s: the %s must be an integer >= 0, got '%s'", flag, arg, what, head);
    if (rs_parse_double(flag, colon + 1, r.min, r.max, factor, &e) != 0)
        return rs_errf(err, "%s %s: the factor must be a number in [%g, %g], got '%s'", flag, arg, r.min, r.max, colon + 1);
    for (int i = 0; i < n; i++)
        if (idx[i] == *idx_out)
            return rs_errf(err, "%s %s: %s %lld already has factor %g (given once per %s; factors do not multiply)", flag, arg,
                           what, (long long)*idx_out, fac[i], what);
    return 0;
}

static int parse_layouts(void *dst, const char *arg, rs_err_t *err) {
    rs_setup_t *c = dst;
    if (!strcmp(arg, "all")) {
        c->n_layouts = RS_LAYOUT_COUNT;
        for (int i = 0; i < RS_LAYOUT_COUNT; i++) c->layouts[i] = (rs_layout_t)i;
        return 0;
    }
    char buf[128];
    snprintf(buf, sizeof buf, "%s", arg);
    c->n_layouts = 0;
    if (strlen(arg) >= sizeof buf || arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,"))
        return rs_errf(err, "--layout %s: expected contiguous, striped, zigzag, a comma list of them, or all", arg);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        rs_layout_t l;
        if (rs_layout_parse(tok, &l) != 0)
            return rs_errf(err, "--layout %s: expected contiguous, striped, zigzag, a comma list of them, or all", arg);
        for (int i = 0; i < c->n_layouts; i++)
            if (c->layouts[i] == l) return rs_errf(err, "--layout %s: %s is given twice (each layout once)", arg, tok);
        c->layouts[c->n_layouts++] = l;
    }
    if (c->n_layouts == 0) return rs_errf(err, "--layout %s: empty list", arg);
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
    rs_impl_t i;
    if (rs_impl_parse(arg, &i) != 0) return rs_errf(err, "--impl %s: expected ringsim, flash-attn, te or none", arg);
    ((rs_setup_t *)dst)->spec.impl = (int)i;
    return 0;
}

static int parse_seed(void *dst, const char *arg, rs_err_t *err) {
    int64_t v;
    if (rs_parse_size("--seed", arg, 0, INT64_MAX, &v, err)) return -1;
    ((rs_setup_t *)dst)->spec.seed = (uint64_t)v;
    return 0;
}

static int parse_straggler(void *dst, const char *arg, rs_err_t *err) {
    rs_perturb_t *q = &((rs_setup_t *)dst)->spec.perturb;
    if (q->n_stragglers >= RS_MAX_PERTURB) return rs_errf(err, "--straggler: at most %d", RS_MAX_PERTURB);
    if (parse_pair("--straggler", "rank", arg, q->straggler_rank, q->straggler_factor, q->n_stragglers,
                   &q->straggler_rank[q->n_stragglers], &q->straggler_factor[q->n_stragglers], err))
        return -1;
    ((rs_setup_t *)dst)->perturb_args[0][q->n_stragglers++] = arg;
    return 0;
}

static int parse_degrade(void *dst, const char *arg, rs_err_t *err) {
    rs_perturb_t *q = &((rs_setup_t *)dst)->spec.perturb;
    if (q->n_degraded >= RS_MAX_PERTURB) return rs_errf(err, "--degrade: at most %d", RS_MAX_PERTURB);
    if (parse_pair("--degrade", "hop", arg, q->degraded_hop, q->degraded_factor, q->n_degraded, &q->degraded_hop[q->n_degraded],
                   &q->degraded_factor[q->n_degraded], err))
        return -1;
    ((rs_setup_t *)dst)->perturb_args[1][q->n_degraded++] = arg;
    return 0;
}

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
    {"launch-overhead", 0, "S", "the profile's, else 0", "per-step (kernel) launch overhead, s", RS_ARG_DOUBLE, M(launch), RS_RANGE_LAUNCH, NULL, NULL, NULL},
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

/* "16,32,1K": increasing sizes in [min, max], min_n..max_n of them. */
int rs_cli_parse_sizes(const char *name, const char *arg, int64_t min, int64_t max, int min_n, int max_n, int64_t *out,
                       int *n_out, rs_err_t *err) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", arg);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (n >= max_n) return rs_errf(err, "%s %s: at most %d sizes", name, arg, max_n);
        rs_err_t e;
        if (rs_parse_size(name, tok, min, max, &v, &e) < 0)
            return rs_errf(err, "%s %s: '%s' is not a size in [%lld, %lld] (K/M/G suffixes)", name, arg, tok, (long long)min,
                           (long long)max);
        if (n && v <= out[n - 1]) return rs_errf(err, "%s %s: sizes must increase", name, arg);
        out[n++] = v;
    }
    if (n == 0 && min_n <= 1) return rs_errf(err, "%s %s: empty list", name, arg);
    if (n < min_n) return rs_errf(err, "%s %s: give at least %d sizes", name, arg, min_n);
    *n_out = n;
    return 0;
}

#ifdef RINGSIM_HAVE_EXEC
static int parse_progress(void *dst, const char *arg, rs_err_t *err) {
    if (rs_progress_parse(arg, &((rs_cli_exec_t *)dst)->job.progress) < 0)
        return rs_errf(err, "--progress %s: expected none, poll or thread", arg);
    return 0;
}

#define X(field) offsetof(rs_cli_exec_t, field)
const rs_opt_t rs_cli_exec_opts[] = {
    {"backend", 0, "cpu|gpu", "cpu", "the executor: CPU (MPI + OpenBLAS) or GPU (NCCL + CUDA)", RS_ARG_STRING, X(backend), 0, 0,
     NULL, NULL, "Execution:"},
    {"launch", 0, "L", "mpirun if on PATH",
     "mpirun|threads: ranks as MPI processes (re-started under\nmpirun when not already) or as threads of this process",
     RS_ARG_CHOICE, X(job.launch), 0, 0, "mpirun|threads", NULL, NULL},
    {"progress", 0, "P", "poll",
     "none|poll|thread: MPI progress while computing: none (data\nmoves in the wait after compute), poll (MPI_Testsome after\n"
     "every column chunk of the kernel), a progress thread",
     RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_progress, NULL},
    {"loopback", 0, "KIND", "off",
     "one device plays every rank of the ring in turn, its\ntransfers to itself: cpu: local (memcpy); gpu: nccl\n"
     "(ncclSend/Recv to itself) or copy (cudaMemcpyAsync)",
     RS_ARG_STRING, X(job.loopback), 0, 0, NULL, NULL, NULL},
};
#undef X

rs_opt_group_t rs_cli_exec_group(rs_cli_exec_t *x) {
    return (rs_opt_group_t){rs_cli_exec_opts, RS_OPTS_N(rs_cli_exec_opts), x, NULL, 0, false};
}

int rs_cli_check_trace_inputs(const char *name, const rs_cli_exec_cmd_t *e, const rs_tfit_opts_t *o) {
    rs_io_plan_t plan;
    rs_io_init(&plan);
    for (int i = 0; i < o->n_paths; i++)
        if (rs_io_input(&plan, "--from-trace", o->paths[i], false) != 0) break;
    return rs_cli_check_files(name, e->groups, 3, &plan, NULL, true);
}

/* The problem options a trace header's keys can lack (rs_tfit_key_t order; a key's second option). */
static const char *const from_trace_keys[RS_TFIT_KEY_COUNT][2] = {
    {"seq", NULL},      {"ranks", NULL},      {"batch", NULL},         {"heads", NULL},  {"kv-heads", NULL}, {"head-dim", NULL},
    {"dtype", NULL},    {"grad-bytes", NULL}, {"causal", "no-causal"}, {"layout", NULL}, {"pass", NULL},     {"tile", NULL}};

/* Why an option does not apply with --from-trace (rows: the options' names, comma lists). */
static const char *const from_trace_why[][2] = {
    {"blocks", "the traces fix B: one trace per block size"},
    {"ranks-list", "the traces fix N"},
    {"mask", "the traces fix the mask; --causal or --no-causal only fills a header that lacks it"},
    {"ring,cached", "the traces' headers give the ring and the cached tokens"},
    {"min-time,rounds,reps,warmup,timeout,backend,launch,progress,loopback",
     "nothing runs on this machine: the traces are the measurements"},
    {"max-time,max-memory", "nothing runs: there is no run to estimate"},
    {"no-sim", "the walk alone predicts the traces"},
    {"csv,summary", "the tables go to stdout, the files per trace to --trace-dir"},
};

/* Refuse every given option that --from-trace does not use: all but the problem options of a header
 * (from_trace_keys), --latency, the command's own options in applies and --from-trace itself.
 * Returns 0 or -1 with err "--blocks cannot be used with --from-trace (the traces fix B: ...)". */
static int from_trace_applies(const rs_cli_exec_cmd_t *e, const char *applies, rs_err_t *err) {
    const char *hw = rs_cli_in_list(applies, "calibrated") ? "the profile is fitted from the traces or read from --calibrated"
                                                          : "the profile is fitted from the traces";
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < e->groups[g].n; i++) {
            const char *name = e->groups[g].opts[i].name;
            bool key = false;
            for (int k = 0; k < RS_TFIT_KEY_COUNT; k++)
                key |= !strcmp(name, from_trace_keys[k][0]) || (from_trace_keys[k][1] && !strcmp(name, from_trace_keys[k][1]));
            if (!(e->groups[g].seen >> i & 1) || key || rs_cli_in_list(applies, name) || !strcmp(name, "latency") ||
                !strcmp(name, "from-trace"))
                continue;
            const char *why = hw; /* the hardware options of the shared table */
            for (size_t k = 0; k < sizeof from_trace_why / sizeof from_trace_why[0]; k++)
                if (rs_cli_in_list(from_trace_why[k][0], name)) why = from_trace_why[k][1];
            return rs_errf(err, "--%s cannot be used with --from-trace (%s)", name, why);
        }
    return 0;
}

int rs_cli_from_trace_opts(const rs_cli_exec_cmd_t *e, const char *first, const char *applies, int argc, char **argv,
                           const char *paths[RS_TFIT_MAX_TRACES], rs_tfit_opts_t *o, rs_err_t *err) {
    rs_tfit_opts_default(o);
    if (from_trace_applies(e, applies, err) != 0) return -1;
    if (argc - optind + 1 > RS_TFIT_MAX_TRACES)
        return rs_errf(err, "--from-trace: at most %d trace files, got %d", RS_TFIT_MAX_TRACES, argc - optind + 1);
    paths[o->n_paths++] = first;
    for (int i = optind; i < argc; i++) paths[o->n_paths++] = argv[i];
    o->paths = paths;
    /* the problem options given, over import's defaults (what a header lacks) */
    const char *const(*names)[2] = from_trace_keys;
    const rs_opt_group_t *g = &e->groups[2];
    rs_setup_t d;
    rs_setup_default(&d);
    const rs_problem_t *c = &e->c.problem;
    rs_problem_t *p = &o->problem;
    *p = d.problem;
    for (int k = 0; k < RS_TFIT_KEY_COUNT; k++)
        if (rs_cli_given(g, names[k][0]) || (names[k][1] && rs_cli_given(g, names[k][1]))) o->given |= 1u << k;
    if (e->c.n_layouts != 1 || e->c.n_passes != 1) return rs_errf(err, "--from-trace: give one --layout and one --pass (or none)");
    const int64_t *src[] = {&c->seq_tokens, &c->n_ranks, &c->batch, &c->q_heads, &c->kv_heads, &c->head_dim, &c->act_bytes,
                            &c->grad_bytes};
    int64_t *dst[] = {&p->seq_tokens, &p->n_ranks, &p->batch, &p->q_heads, &p->kv_heads, &p->head_dim, &p->act_bytes,
                      &p->grad_bytes};
    for (int k = 0; k < RS_TFIT_KEY_CAUSAL; k++)
        if (o->given >> k & 1u) *dst[k] = *src[k];
    if (o->given >> RS_TFIT_KEY_CAUSAL & 1u) p->causal = c->causal;
    if (o->given >> RS_TFIT_KEY_LAYOUT & 1u) p->layout = e->c.layouts[0];
    if (o->given >> RS_TFIT_KEY_PASS & 1u) p->pass = e->c.passes[0];
    if (o->given >> RS_TFIT_KEY_TILE & 1u) p->tile_q = c->tile_q, p->tile_k = c->tile_k;
    o->dtype_given = o->given >> RS_TFIT_KEY_ACT_BYTES & 1u;
    o->dtype = e->c.spec.dtype;
    if (rs_cli_given(g, "latency")) o->latency_s = e->c.spec.latency;
    return 0;
}

int rs_cli_exec_parse(const char *name, int argc, char **argv, rs_opt_group_t own, const rs_problem_t *p,
                      rs_exec_spmd_t *job, rs_cli_exec_cmd_t *e) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    rs_setup_t *c = &e->c;
    rs_setup_default(c);
    c->problem = *p;
    rs_setup_dtype(c, RS_DTYPE_FP32);
    c->layouts[0] = p->layout;
    c->passes[0] = p->pass;
    const int env_size = rs_exec_env_size();
    if (env_size > 0) c->problem.n_ranks = env_size;
    e->loud = env_size <= 0 || rs_exec_env_rank() == 0;
    e->x = (rs_cli_exec_t){"cpu", *job};
    e->groups[0] = own, e->groups[1] = rs_cli_exec_group(&e->x), e->groups[2] = rs_cli_shared_group(c, NULL);
    const int rc = rs_cli_run_parse(name, argc, argv, e->groups, 3, e->loud);
    *job = e->x.job;
    return rc;
}

int rs_cli_exec_finish(rs_cli_exec_cmd_t *e, const int64_t *blocks, int n_blocks, const rs_backend_ops_t **backend,
                       rs_problem_t *problem, rs_dtype_t *dtype, rs_exec_spmd_t *job, int *argc, char ***argv, rs_err_t *err) {
    rs_setup_t *c = &e->c;
    if (rs_backend_get(e->x.backend, true, backend, err) < 0) return -1;
    if (!rs_cli_given(&e->groups[2], "dtype")) rs_setup_dtype(c, (*backend)->exec->default_dtype); /* the executor's own */
    for (int i = 0; i < n_blocks; i++) {
        c->problem = rs_problem_with_block(&c->problem, blocks[i]);
        if (rs_setup_finish(c, err) < 0) return -1;
    }
    *problem = rs_setup_problem(c, 0, 0);
    *dtype = c->spec.dtype;
    job->argc = argc, job->argv = argv;
    return 0;
}
#endif

static char kept_notes[sizeof(((rs_setup_t *)0)->kernel_notes)];

void rs_cli_kernel_notes(const rs_setup_t *s) { snprintf(kept_notes, sizeof kept_notes, "%s", s->kernel_notes); }

void rs_cli_notes_print(void) {
    if (kept_notes[0]) fprintf(stderr, "ringsim: note: %s\n", kept_notes); /* the curves' fallbacks, once */
    kept_notes[0] = '\0';
}

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

static rs_cli_help_hook_fn *help_hook;
static void *help_ctx;

void rs_cli_set_help_hook(rs_cli_help_hook_fn *hook, void *ctx) {
    help_hook = hook;
    help_ctx = ctx;
}

void rs_cli_inference_passes(rs_setup_t *s, const rs_opt_group_t *shared) {
    const rs_problem_t *p = &s->problem;
    if ((p->cached_tokens > 0 || p->ring == RS_RING_PASS_Q || p->decode) && !rs_cli_given(shared, "pass")) {
        s->n_passes = 1;
        s->passes[0] = RS_PASS_FORWARD;
    }
}

int rs_cli_command_parse(const rs_command_t *cmd, int argc, char **argv, rs_opt_group_t *groups, int n_groups,
                         rs_err_t *err) {
    int rc = rs_cli_parse(cmd->name, argc, argv, groups, n_groups, err);
    if (rc == 0 && cmd->max_args >= 0 && argc - optind > cmd->max_args)
        rc = rs_errf(err, "unexpected argument '%s' (see ringsim %s --help)", argv[optind + cmd->max_args], cmd->name);
    return rc;
}

int rs_cli_run_parse(const char *name, int argc, char **argv, rs_opt_group_t *groups, int n_groups, bool loud) {
    const rs_command_t *cmd = rs_cli_command(name);
    rs_err_t err = {0};
    int rc = rs_cli_command_parse(cmd, argc, argv, groups, n_groups, &err);
    if (rc == 1) {
        if (help_hook) {
            help_hook(help_ctx, cmd, groups, n_groups);
        } else if (loud) {
            fputs(cmd->usage, stdout);
            rs_cli_print_opts(stdout, groups, n_groups);
            if (cmd->notes) printf("\n%s", cmd->notes);
        }
        return RS_EXIT_OK;
    }
    if (rc < 0) {
        if (loud) fprintf(stderr, "ringsim %s: %s\n", cmd->name, err.msg);
        return RS_EXIT_USAGE;
    }
    return -1;
}

int rs_cli_check_files(const char *name, const rs_opt_group_t *groups, int n_groups, rs_io_plan_t *plan, const char *skip,
                       bool loud) {
    rs_err_t err = {0};
    int rc = rs_cli_io_add(plan, groups, n_groups, skip) != 0 ? rs_errf(&err, "out of memory") : rs_io_check(plan, &err);
    if (rc == 0) rc = rs_io_make_dirs(plan, &err);
    rs_io_free(plan);
    return rc == 0 ? -1 : rs_cli_usage(name, loud, &err);
}

int rs_cli_check_entry_files(const char *name, const rs_setup_t *c, const rs_opt_group_t *groups, int n_groups,
                             const char *trace, const char *chrome, bool loud) {
    rs_io_plan_t io;
    rs_io_init(&io);
    const bool several = c->n_layouts * c->n_passes > 1;
    if (several) /* the value given, too: --csv o.csv --trace o.csv is refused whatever the entries */
        rs_io_output(&io, "--trace", trace), rs_io_output(&io, "--chrome", chrome);
    for (int j = 0; j < c->n_passes; j++)
        for (int i = 0; i < c->n_layouts; i++) {
            const rs_problem_t p = rs_setup_problem(c, i, j);
            char path[1024];
            if (trace) rs_cli_entry_path(path, sizeof path, trace, &p, several), rs_io_output(&io, "--trace", path);
            if (chrome) rs_cli_entry_path(path, sizeof path, chrome, &p, several), rs_io_output(&io, "--chrome", path);
        }
    return rs_cli_check_files(name, groups, n_groups, &io, "trace,chrome", loud);
}

int rs_cli_write_json(const char *path, void *root, rs_err_t *err) {
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (!text) return rs_errf(err, "out of memory");
    rs_output_t out;
    int rc = rs_output_open(&out, path, err);
    if (rc == 0) {
        fprintf(out.fp, "%s\n", text);
        rc = rs_output_close(&out, err);
    }
    free(text);
    return rc;
}

int rs_cli_usage(const char *name, bool loud, const rs_err_t *err) {
    if (loud) fprintf(stderr, "ringsim %s: %s\n", name, err->msg);
    return RS_EXIT_USAGE;
}

const char *rs_cli_command_line(char *buf, size_t len, int argc, char **argv) {
    snprintf(buf, len, "ringsim");
    for (int i = 0; i < argc && strlen(buf) + strlen(argv[i]) + 2 < len; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), " %s", argv[i]);
    return buf;
}

void rs_cli_entry_path(char *dst, size_t len, const char *path, const rs_problem_t *p, bool several) {
    if (!several) {
        snprintf(dst, len, "%s", path);
        return;
    }
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) dot = path + strlen(path);
    snprintf(dst, len, "%.*s-%s-%s%s", (int)(dot - path), path, rs_layout_name(p->layout), rs_pass_name(p->pass), dot);
}
