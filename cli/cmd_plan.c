/* cmd_plan.c - `ringsim plan`: capacity planning over candidate hardware (model/5-plan/plan.h, docs/plan.md).
 *
 * For every profile (and layout, -L): the smallest sequence-parallel N that fits memory (or the longest
 * context at N with --seq max), the predicted attention and layer times, whether the ring's transfers
 * hide, MFU and cost; Ring against Ulysses and USP at that N with the winner and why; with --tp, TP
 * inside a node. With --gpus N: every TP x CP x DP split of N devices ranked by step time or cost
 * (--rank), the best --top and why each loses; --compare: the candidates' best side by side. Output: a
 * table on stdout, --csv FILE, --maxctx-csv FILE (longest context against N per profile) and --figure
 * FILE (that curve drawn by plots/maxctx.gp with gnuplot). A progress bar on stderr when it is a
 * terminal.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "exec_launch.h"
#include "plan_opts.h"
#include "opt_values.h"
#include "ranges.h"
#include "study_plan.h"
#ifdef RINGSIM_HAVE_SIM
#include "job_opts.h"
#endif

#define STR_(x) #x
#define STR(x) STR_(x)

/* plan's options. */
typedef struct {
    rs_plan_in_t in;        /* the study */
    rs_cli_planned_t x;     /* -m, -p, --gpus-per-node, --inter (plan_opts.h) */
    bool sim;               /* --sim */
    bool inference;         /* --inference: handled by rs_cmd_plan_infer (cmd_plan_infer.c) */
    rs_setup_t limits;      /* only its limits: --max-time, --max-memory (rs_cli_limits_group) */
} plan_cli_t;

static int parse_seq(void *dst, const char *arg, rs_err_t *err) {
    rs_plan_config_t *c = &((plan_cli_t *)dst)->in.config;
    if (!strcmp(arg, "max")) {
        c->seq_tokens = 0;
        return 0;
    }
    return rs_parse_size("--seq", arg, 1, (int64_t)1 << 36, &c->seq_tokens, err);
}

static int parse_precision(void *dst, const char *arg, rs_err_t *err) {
    if (rs_precision_parse(arg, &((plan_cli_t *)dst)->in.config.precision))
        return rs_errf(err, "--precision %s: expected mixed or fp32", arg);
    return 0;
}

static int parse_ckpt(void *dst, const char *arg, rs_err_t *err) {
    if (rs_ckpt_parse(arg, &((plan_cli_t *)dst)->in.config.ckpt))
        return rs_errf(err, "--ckpt %s: expected none, selective or full", arg);
    return 0;
}

/* one layout, a comma list of them, or all; the first is the plan's */
static int parse_layout(void *dst, const char *arg, rs_err_t *err) {
    rs_plan_in_t *in = &((plan_cli_t *)dst)->in;
    if (rs_cli_parse_layouts(arg, in->layouts, &in->n_layouts, err) != 0) return -1;
    in->config.layout = in->layouts[0];
    return 0;
}

/* the GEMMs' dtype: bf16 (the precision's) or fp8 */
static int parse_dtype(void *dst, const char *arg, rs_err_t *err) {
    rs_plan_config_t *c = &((plan_cli_t *)dst)->in.config;
    if (!strcmp(arg, "fp8")) c->fp8_linear = true;
    else if (!strcmp(arg, "bf16")) c->fp8_linear = false;
    else return rs_errf(err, "--dtype %s: expected bf16 or fp8 (the projections', FFN's and LM head's GEMMs)", arg);
    return 0;
}

static int parse_rank(void *dst, const char *arg, rs_err_t *err) {
    rs_plan_in_t *in = &((plan_cli_t *)dst)->in;
    if (!strcmp(arg, "time")) in->by_cost = false;
    else if (!strcmp(arg, "cost")) in->by_cost = true;
    else return rs_errf(err, "--rank %s: expected time or cost", arg);
    return 0;
}

static int parse_runtime(void *dst, const char *arg, rs_err_t *err) {
    return rs_cli_parse_runtime(arg, &((plan_cli_t *)dst)->in.config.runtime, err);
}

static int parse_loss_chunk(void *dst, const char *arg, rs_err_t *err) {
    return rs_cli_parse_loss_chunk(arg, &((plan_cli_t *)dst)->in.config.loss_chunk_tokens, err);
}

/* "[NAME=]USD", repeatable */
static int parse_price(void *dst, const char *arg, rs_err_t *err) {
    rs_plan_in_t *in = &((plan_cli_t *)dst)->in;
    return rs_cli_parse_price(arg, in->prices, &in->n_prices, err);
}

#define O(field) offsetof(plan_cli_t, field)
#define C(field) offsetof(plan_cli_t, in.config.field)
/* plan's own rows, before and after the candidates' (rs_cli_plan_hw_group) */
static const rs_opt_t own_opts[] = {
    {"seq", 'S', "TOKENS|max", "128K", "context length; max = the longest that fits at N", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_seq, NULL},
    {"global-batch", 0, "B", "1", "sequences per optimizer step", RS_ARG_SIZE, C(global_batch), 1, 1 << 24, NULL, NULL, NULL},
    {"dp", 0, "D", "B", "data-parallel replicas (divides B; rest is accumulation)", RS_ARG_SIZE, C(dp), 1, 1 << 24, NULL, NULL,
     NULL},
};
static const rs_opt_t own_opts_after[] = {
    {"ranks", 'N', "N", "search", "plan at this N instead of searching", RS_ARG_SIZE, C(fixed_sp), 1, 1 << 20, NULL, NULL, NULL},
    {"max-ranks", 0, "N", "4096", "largest N searched (power of two)", RS_ARG_SIZE, C(max_sp), 1, 1 << 20, NULL, NULL, NULL},
    {"precision", 0, "P", "mixed", "mixed | fp32 (sets the peak rate: bf16 | fp32)", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_precision, NULL},
    {"ckpt", 0, "C", "full", "none | selective | full", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_ckpt, NULL},
    {"chunk", 0, "TOKENS", "2048", "blockwise FFN / loss chunk", RS_ARG_SIZE, C(chunk_tokens), 1, (double)(1LL << 30), NULL,
     NULL, NULL},
    {"loss-chunk", 0, "TOKENS|none", "--chunk", "chunked loss (none: every local token's logits at once)", RS_ARG_CUSTOM, 0, 0, 0,
     NULL, parse_loss_chunk, NULL},
    {"layout", 'L', "L", "zigzag", "ring layout: contiguous | striped | zigzag, a comma list, or all", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_layout, NULL},
    {"tp", 0, "TP", "1", "tensor parallelism inside a node (divides G and the heads)", RS_ARG_SIZE, C(tp), 1, 1 << 20, NULL, NULL,
     NULL},
    {"dtype", 0, "D", "bf16", "the GEMMs (projections, FFN, LM head): bf16 | fp8 (attention stays bf16)", RS_ARG_CUSTOM, 0, 0, 0,
     NULL, parse_dtype, NULL},
    {"gpus", 0, "N", "none", "a budget of N devices: every TP x CP x DP split, layout and split ranked", RS_ARG_SIZE, O(in.gpus), 1,
     1 << 20, NULL, NULL, NULL},
    {"rank", 0, "R", "time", "rank the budget's splits by step time or cost (per step, needs --price)", RS_ARG_CUSTOM, 0, 0, 0,
     NULL, parse_rank, NULL},
    {"top", 0, "K", "5", "the budget's best K printed (--csv: every split)", RS_ARG_SIZE, O(in.top), 1, 1 << 20, NULL, NULL, NULL},
    {"compare", 0, NULL, "off", "the candidates' best side by side (two or more -p)", RS_ARG_TRUE, O(in.compare), 0, 0, NULL, NULL,
     NULL},
    {"attn-eff", 0, "E", "kernel model", "attention at E x peak, user-given (replaces --impl and --kernel)", RS_ARG_DOUBLE,
     O(in.attn_eff), 1e-6, 1, NULL, NULL, NULL},
    {"runtime", 0, "R", "pytorch", "memory beside the tensors: pytorch | jax-gpu | jax-tpu | none", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_runtime, NULL},
    {"no-causal", 0, NULL, "causal", "full (bidirectional) attention", RS_ARG_FALSE, C(causal), 0, 0, NULL, NULL, NULL},
    {"tile", 0, "T", "128", "attention kernel tile (tokens)", RS_ARG_SIZE, C(tile), 1, 65536, NULL, NULL, NULL},
    {"impl", 0, "NAME", "the profile's", "ring implementation preset costing attention, every\ncandidate: ringsim|flash-attn|te|none (none: the bare peak)",
     RS_ARG_STRING, O(in.impl), 0, 0, NULL, NULL, NULL},
    {"kernel", 0, "NAME", "the preset's", "the candidates' kernel whose curves rate the calls", RS_ARG_STRING, O(in.kernel), 0, 0, NULL,
     NULL, NULL},
    {"usable", 0, "F", "the runtime's", "usable fraction of device memory (pytorch 1, jax-gpu 0.75)", RS_ARG_DOUBLE, C(usable_frac),
     1e-6, 1, NULL, NULL, NULL},
    {"linear-eff", 0, "E", "by shape", "a flat GEMM efficiency vs peak, user-given (default: by shape and dtype)", RS_ARG_DOUBLE,
     C(linear_eff), 1e-6, 1, NULL, NULL, NULL},
    {"price", 0, "[NAME=]USD", "profile's", "price per device-hour (all, or one profile; repeatable)", RS_ARG_CUSTOM, 0, 0, 0,
     NULL, parse_price, NULL},
    {"no-alternatives", 0, NULL, NULL, "cost the ring only (no Ulysses / USP)", RS_ARG_FALSE, C(alternatives), 0, 0, NULL, NULL,
     NULL},
    {"sim", 0, NULL, "off", "also simulate every split in SimGrid (N <= " STR(RS_PLAN_SIM_MAX_N) "; sim_attn_ms)",
     RS_ARG_TRUE, O(sim), 0, 0, NULL, NULL, NULL},
    {"csv", 0, "FILE", "none", "the table as CSV (\"-\" = stdout)", RS_ARG_OUT, O(in.csv), 0, 0, NULL, NULL, NULL},
    {"maxctx-csv", 0, "FILE", "none", "longest context vs N per profile, CSV", RS_ARG_OUT, O(in.maxctx_csv), 0, 0, NULL,
     NULL, NULL},
    {"figure", 0, "FILE", "none", "that curve as .png/.pdf/.svg (gnuplot, plots/maxctx.gp)", RS_ARG_OUT, O(in.figure), 0, 0,
     NULL, NULL, NULL},
    {"inference", 0, NULL, NULL, "inference planning instead: TTFT, KV cache, decode (ringsim plan --inference --help)",
     RS_ARG_TRUE, O(inference), 0, 0, NULL, NULL, NULL},
    {"contention-csv", 0, "FILE", "none", "with --sim and fabric knobs: the ring split's job points, CSV",
     RS_ARG_OUT, O(in.contention_csv), 0, 0, NULL, NULL, NULL},
    {"contention-figure", 0, "FILE", "none", "their efficiency vs NICs per node or ratio (needs --contention-csv)",
     RS_ARG_OUT, O(in.contention_figure), 0, 0, NULL, NULL, NULL},
};
#undef O
#undef C


int rs_cmd_plan(int argc, char **argv) {
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--inference")) return rs_cmd_plan_infer(argc, argv);
    rs_err_t err = {0};
    static plan_cli_t pc;
    memset(&pc, 0, sizeof pc);
    rs_plan_defaults(&pc.in);
    rs_setup_default(&pc.limits);
    pc.in.progress = true;
    pc.x = (rs_cli_planned_t){NULL, pc.in.profiles, pc.in.gpus_per_node, pc.in.inter, false};
    /* --help order: -m, plan's first rows, the candidates, plan's other rows, the job's, the limits */
#ifdef RINGSIM_HAVE_SIM
    rs_cli_job_t jo;
    rs_cli_job_init(&jo);
    enum { JOB_GROUP = 4 };
    enum { OWN_AFTER = 3 };
    rs_opt_group_t groups[] = {rs_cli_plan_model_group(&pc.x), {own_opts, RS_OPTS_N(own_opts), &pc, NULL, 0, true},
                               rs_cli_plan_hw_group(&pc.x), {own_opts_after, RS_OPTS_N(own_opts_after), &pc, NULL, 0, true},
                               rs_cli_job_group(&jo, "tp,dp,cp,devices,map,model,bg-bytes,bg-group"),
                               rs_cli_limits_group(&pc.limits)};
#else
    enum { OWN_AFTER = 3 };
    rs_opt_group_t groups[] = {rs_cli_plan_model_group(&pc.x), {own_opts, RS_OPTS_N(own_opts), &pc, NULL, 0, true},
                               rs_cli_plan_hw_group(&pc.x), {own_opts_after, RS_OPTS_N(own_opts_after), &pc, NULL, 0, true},
                               rs_cli_limits_group(&pc.limits)};
#endif
    const int n_groups = (int)(sizeof groups / sizeof groups[0]);
    int rc = rs_cli_run_parse("plan", argc, argv, groups, n_groups, true);
    if (rc >= 0) return rc;
    if ((rc = rs_cli_check_files("plan", groups, n_groups, &(rs_io_plan_t){0}, NULL, true)) >= 0) return rc;
    rs_plan_in_t in = pc.in;
    in.limits = pc.limits.limits;
    if (!rs_cli_given(&groups[OWN_AFTER], "loss-chunk")) in.config.loss_chunk_tokens = in.config.chunk_tokens; /* --chunk's */
    if (in.by_cost && in.gpus == 0) {
        fprintf(stderr, "ringsim plan: --rank cost: ranks the splits of a budget (give --gpus N)\n");
        return RS_EXIT_USAGE;
    }
    in.profiles = pc.x.profiles, in.gpus_per_node = pc.x.gpus_per_node, in.inter = pc.x.inter;
    in.allow_implausible = pc.x.allow_implausible;
#ifdef RINGSIM_HAVE_SIM
    if (groups[JOB_GROUP].seen && !pc.sim) {
        fprintf(stderr, "ringsim plan: fabric knobs (--nics, --oversub, --fabric, --order, --background) need --sim\n");
        return RS_EXIT_USAGE;
    }
    if (groups[JOB_GROUP].seen) in.knobs = &jo.k;
#endif
    if ((in.contention_csv || in.contention_figure) && !in.knobs) {
        fprintf(stderr, "ringsim plan: --contention-csv/--contention-figure need --sim and fabric knobs (e.g. --nics 1,2,4,8)\n");
        return RS_EXIT_USAGE;
    }
    rs_plan_config_t c = in.config;
    const char *model = pc.x.model;
    if (pc.sim) {
#ifdef RINGSIM_HAVE_SIM
        in.simulate = true;
#else
        fprintf(stderr, "ringsim plan: --sim: this build has no SimGrid backend (install libsimgrid-dev and rebuild)\n");
        return RS_EXIT_USAGE;
#endif
    }
    if (!model) {
        fprintf(stderr, "ringsim plan: --model is required (presets: ringsim memory --list)\n");
        return RS_EXIT_USAGE;
    }
    if (rs_transformer_load(model, &c.model, &err) || rs_plan_config_validate(&c, &err)) {
        fprintf(stderr, "ringsim plan: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }

    in.config = c;
    rc = rs_study_plan(&in, &err) == 0 ? RS_EXIT_OK : rs_err_exit_code(&err);
    if (rc != RS_EXIT_OK) fprintf(stderr, "ringsim plan: %s\n", err.msg);
    return rc;
}
