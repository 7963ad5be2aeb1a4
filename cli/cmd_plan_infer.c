/* cmd_plan_infer.c - `ringsim plan --inference`: inference planning (studies/study_infer.h,
 * model/5-plan/infer.h, docs/inference.md).
 *
 * For every candidate profile, node count (--nodes), prompt length T (--seq) and cached prefix P
 * (--cached): the time to first token of ring pass-KV, ring pass-Q, Ulysses and USP across the
 * context-parallel ranks with tensor parallelism inside a node, the best and why (the pass-KV/pass-Q
 * crossing in T/P), the KV cache and weights per device, parallel efficiency, FLOPS utilisation and,
 * with --decode-batch, the decode step latency. Output: a table on stdout, --csv, --boundary-csv, and
 * the figures --figure (TTFT against context length, plots/ttft.gp) and --boundary-figure (the
 * boundary in (T, P), plots/pass_boundary.gp). With --gpus G: every TP x CP split of G devices, each
 * layout (-L, a list or all) and variant ranked by TTFT, decode step or cost per prefill (--rank), the
 * best --top and why each loses, the splits that do not fit and by how much (model/5-plan/budget.h).
 */
#include <stddef.h>
#include <string.h>

#include "cli.h"
#include "plan_opts.h"
#include "plot.h"
#include "study_infer.h"

typedef struct {
    rs_infer_in_t in;     /* the study */
    rs_cli_planned_t x;   /* -m, -p, --gpus-per-node, --inter (plan_opts.h) */
    bool inference;       /* --inference (what brought us here) */
    rs_setup_t limits;    /* only its limits: --max-time, --max-memory (rs_cli_limits_group) */
} infer_cli_t;

static int parse_nodes(void *dst, const char *arg, rs_err_t *err) {
    rs_infer_in_t *in = &((infer_cli_t *)dst)->in;
    return rs_cli_parse_sizes(&(rs_cli_sizes_t){"--nodes", 1, 1 << 20, 1, RS_INFER_MAX_LIST}, arg, in->nodes, &in->n_nodes, err);
}
static int parse_seq(void *dst, const char *arg, rs_err_t *err) {
    rs_infer_in_t *in = &((infer_cli_t *)dst)->in;
    return rs_cli_parse_sizes(&(rs_cli_sizes_t){"--seq", 1, (int64_t)1 << 32, 1, RS_INFER_MAX_LIST}, arg, in->new_tokens, &in->n_new,
                              err);
}
/* "0" is a list of one cache length: no cache */
static int parse_cached(void *dst, const char *arg, rs_err_t *err) {
    rs_infer_in_t *in = &((infer_cli_t *)dst)->in;
    return rs_cli_parse_sizes(&(rs_cli_sizes_t){"--cached", 0, (int64_t)1 << 32, 1, RS_INFER_MAX_LIST}, arg, in->cached, &in->n_cached,
                              err);
}
/* one layout, a comma list of them, or all (several: a budget's, --gpus); the first is the plan's
 * (config.layout, set after parsing) */
static int parse_layout(void *dst, const char *arg, rs_err_t *err) {
    rs_infer_in_t *in = &((infer_cli_t *)dst)->in;
    return rs_cli_parse_layouts(arg, in->layouts, &in->n_layouts, err);
}
/* --rank's words, in rs_budget_rank_t's order */
static const char *const rank_args[] = {"ttft", "decode", "cost"};
static int parse_rank(void *dst, const char *arg, rs_err_t *err) {
    const int r = rs_enum_parse(rank_args, RS_OPTS_N(rank_args), arg);
    if (r < 0) return rs_errf(err, "--rank %s: expected ttft, decode or cost", arg);
    ((infer_cli_t *)dst)->in.rank = (rs_budget_rank_t)r;
    return 0;
}
/* "[NAME=]USD", repeatable */
static int parse_price(void *dst, const char *arg, rs_err_t *err) {
    rs_infer_in_t *in = &((infer_cli_t *)dst)->in;
    return rs_cli_parse_price(arg, in->prices, &in->n_prices, err);
}
static int parse_linear_dtype(void *dst, const char *arg, rs_err_t *err) {
    rs_dtype_t d;
    if (rs_dtype_parse(arg, &d) || (d != RS_DTYPE_BF16 && d != RS_DTYPE_FP8))
        return rs_errf(err, "--linear-dtype %s: expected bf16 or fp8", arg);
    ((infer_cli_t *)dst)->in.config.linear_dtype = d;
    return 0;
}

#define O(field) offsetof(infer_cli_t, field)
#define C(field) offsetof(infer_cli_t, in.config.field)
/* plan --inference's own rows: --inference, then (after the model and the candidates) the rest */
static const rs_opt_t own_first[] = {
    {"inference", 0, NULL, NULL, "inference planning (this table of options)", RS_ARG_TRUE, O(inference), 0, 0, NULL, NULL,
     NULL},
};
static const rs_opt_t own_opts[] = {
    {"tp", 0, "TP", "G", "tensor parallelism: devices of a CP rank, inside a node (divides G)", RS_ARG_SIZE, C(tp), 1, 1 << 20,
     NULL, NULL, NULL},
    {"nodes", 0, "N,N,...", "1", "node counts (increasing); CP ranks = nodes x G / TP", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_nodes, NULL},
    {"seq", 'S', "T,T,...", "128K", "new tokens of the prompt (increasing)", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_seq, NULL},
    {"cached", 0, "P,P,...", "0", "tokens already in the KV cache (increasing)", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_cached,
     NULL},
    {"decode-batch", 0, "B", "0", "sequences decoding one token each: decode step latency (0: none)", RS_ARG_SIZE,
     C(decode_batch), 0, 1 << 20, NULL, NULL, NULL},
    {"layout", 'L', "L", "zigzag", "ring layout of new and cached tokens: contiguous | striped | zigzag (with --gpus:\n"
     "a comma list, or all)", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_layout, NULL},
    {"gpus", 0, "G", "none", "a budget of G devices: every TP x CP split, layout and variant ranked (one -S, one --cached)",
     RS_ARG_SIZE, O(in.gpus), 1, 1 << 20, NULL, NULL, NULL},
    {"rank", 0, "R", "ttft", "rank the budget's splits by ttft, decode (needs --decode-batch) or cost (per prefill, needs\n"
     "--price)", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_rank, NULL},
    {"top", 0, "K", "5", "the budget's best K printed (--csv: every split)", RS_ARG_SIZE, O(in.top), 1, 1 << 20, NULL, NULL, NULL},
    {"price", 0, "[NAME=]USD", "profile's", "price per device-hour (all, or one profile; repeatable)", RS_ARG_CUSTOM, 0, 0, 0,
     NULL, parse_price, NULL},
    {"no-causal", 0, NULL, "causal", "full (bidirectional) attention", RS_ARG_FALSE, C(causal), 0, 0, NULL, NULL, NULL},
    {"tile", 0, "T", "128", "attention kernel tile (tokens)", RS_ARG_SIZE, C(tile), 1, 65536, NULL, NULL, NULL},
    {"linear-dtype", 0, "D", "bf16", "weights and GEMMs: bf16 | fp8", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_linear_dtype, NULL},
    {"linear-eff", 0, "E", "by shape", "a flat GEMM efficiency vs the linear dtype's peak, user-given", RS_ARG_DOUBLE, C(linear_eff),
     1e-6, 1, NULL, NULL, NULL},
    {"impl", 0, "NAME", "the profile's", "implementation preset whose kernel's forward curves rate the prefill, every\n"
     "candidate: ringsim|flash-attn|te|none (none: --attn-eff or the calibration curve)", RS_ARG_STRING, O(in.impl), 0, 0, NULL, NULL, NULL},
    {"kernel", 0, "NAME", "the preset's", "the candidates' kernel whose forward curves rate the prefill", RS_ARG_STRING, O(in.kernel), 0, 0,
     NULL, NULL, NULL},
    {"attn-eff", 0, "E", "kernel model", "prefill attention at E x peak x the query padding, user-given (replaces the\n"
     "kernel curves; decode keeps the profile's decode_bw_eff)", RS_ARG_DOUBLE, C(attn_eff), 1e-6, 1, NULL, NULL, NULL},
    {"usable", 0, "F", "the runtime's: 1", "usable fraction of device memory (weights, KV cache, CUDA context, NCCL)", RS_ARG_DOUBLE,
     C(usable_frac), 1e-6, 1, NULL, NULL, NULL},
    {"csv", 0, "FILE", "none", "every point as CSV (\"-\" = stdout instead of the table)", RS_ARG_OUT, O(in.csv), 0, 0, NULL,
     NULL, NULL},
    {"figure", 0, "FILE", "none", "TTFT vs context length per variant (.png/.pdf/.svg, plots/ttft.gp)", RS_ARG_OUT,
     O(in.figure), 0, 0, NULL, NULL, NULL},
    {"boundary-csv", 0, "FILE", "none", "the pass-KV/pass-Q crossing T per (profile, nodes, P), CSV", RS_ARG_OUT,
     O(in.boundary_csv), 0, 0, NULL, NULL, NULL},
    {"boundary-figure", 0, "FILE", "none", "that boundary in (T, P) (plots/pass_boundary.gp)", RS_ARG_OUT,
     O(in.boundary_figure), 0, 0, NULL, NULL, NULL},
};
#undef O
#undef C

/* Refuse a figure whose name has no format and an output named as the --model or a --profile value
 * (compared as text: a name that is no file yet too); an output that is an existing input file and two
 * outputs on one file are the output module's (rs_cli_check_files). */
static int outputs_distinct(const infer_cli_t *pc, rs_err_t *err) {
    const char *outs[4] = {pc->in.csv, pc->in.figure, pc->in.boundary_csv, pc->in.boundary_figure};
    static const char *const names[4] = {"--csv", "--figure", "--boundary-csv", "--boundary-figure"};
    for (int i = 0; i < 4; i++) {
        if (!outs[i] || !strcmp(outs[i], "-")) continue;
        rs_plot_format_t fmt;
        if ((i == 1 || i == 3) && rs_plot_format_of(outs[i], &fmt, err)) return rs_errf(err, "%s %s: expected a file name ending in .png, .pdf or .svg", names[i], outs[i]);
        if (pc->x.model && !strcmp(outs[i], pc->x.model)) return rs_errf(err, "%s %s: is the --model file", names[i], outs[i]);
        if (rs_cli_in_list(pc->in.profiles, outs[i])) return rs_errf(err, "%s %s: is a --profile file", names[i], outs[i]);
    }
    return 0;
}

int rs_cmd_plan_infer(int argc, char **argv) {
    rs_err_t err = {0};
    static infer_cli_t pc;
    memset(&pc, 0, sizeof pc);
    rs_infer_defaults(&pc.in);
    rs_setup_default(&pc.limits);
    pc.x = (rs_cli_planned_t){NULL, pc.in.profiles, pc.in.gpus_per_node, pc.in.inter, false};
    rs_opt_group_t groups[] = {RS_OPT_GROUP(own_first, &pc), rs_cli_plan_model_group(&pc.x),
                               rs_cli_plan_hw_group(&pc.x), {own_opts, RS_OPTS_N(own_opts), &pc, NULL, 0, true},
                               rs_cli_limits_group(&pc.limits)};
    const int n_groups = RS_OPTS_N(groups);
    int rc = rs_cli_run_parse("plan", argc, argv, groups, n_groups, true);
    if (rc >= 0) return rc;
    if (pc.in.n_layouts > 0) pc.in.config.layout = pc.in.layouts[0];
    pc.in.profiles = pc.x.profiles, pc.in.gpus_per_node = pc.x.gpus_per_node, pc.in.inter = pc.x.inter;
    pc.in.allow_implausible = pc.x.allow_implausible;
    /* the inputs (-m, -p, --inter) and outputs (--csv, --figure, --boundary-*) through the output
     * module, before any work */
    if ((rc = rs_cli_check_files("plan", groups, n_groups, &(rs_io_plan_t){0}, NULL, true)) >= 0) return rc;
    if (!pc.x.model) {
        fprintf(stderr, "ringsim plan: --model is required (presets: ringsim memory --list)\n");
        return RS_EXIT_USAGE;
    }
    if (rs_transformer_load(pc.x.model, &pc.in.config.model, &err) || outputs_distinct(&pc, &err)) {
        fprintf(stderr, "ringsim plan: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }
    const rs_opt_group_t *own = &groups[3];
    const char *budget_only = !pc.in.gpus && pc.in.n_layouts > 1 ? "--layout (several)"
                              : !pc.in.gpus && rs_cli_given(own, "rank")  ? "--rank"
                              : !pc.in.gpus && rs_cli_given(own, "top")   ? "--top"
                              : !pc.in.gpus && pc.in.n_prices > 0         ? "--price"
                                                                          : NULL;
    if (budget_only) {
        fprintf(stderr, "ringsim plan: %s: ranks the splits of a budget (give --gpus G)\n", budget_only);
        return RS_EXIT_USAGE;
    }
    if (pc.in.gpus && rs_cli_given(own, "nodes")) {
        fprintf(stderr, "ringsim plan: --nodes: --gpus %lld searches the nodes (G / devices per node)\n", (long long)pc.in.gpus);
        return RS_EXIT_USAGE;
    }
    pc.in.limits = pc.limits.limits;
    rc = rs_study_infer(&pc.in, &err) == 0 ? RS_EXIT_OK : rs_err_exit_code(&err);
    if (rc != RS_EXIT_OK) fprintf(stderr, "ringsim plan: %s\n", err.msg);
    return rc;
}
