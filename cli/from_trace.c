/* from_trace.c - calibrate / validate --from-trace: the trace files and the problem from the command
 * line, every option that cannot apply refused (from_trace.h). */
#ifdef RINGSIM_HAVE_EXEC
#include "from_trace.h"

#include <getopt.h>
#include <string.h>

#include "command_files.h"

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
 * (from_trace_keys), --latency, --allow-implausible (the fit's figures against the traced device),
 * the command's own options in applies and --from-trace itself.
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
                !strcmp(name, "allow-implausible") || !strcmp(name, "from-trace"))
                continue;
            const char *why = hw; /* the hardware options of the shared table */
            for (size_t k = 0; k < sizeof from_trace_why / sizeof from_trace_why[0]; k++)
                if (rs_cli_in_list(from_trace_why[k][0], name)) why = from_trace_why[k][1];
            return rs_errf(err, "--%s cannot be used with --from-trace (%s)", name, why);
        }
    return 0;
}

int rs_cli_from_trace_opts(const rs_cli_exec_cmd_t *e, const char *first, const char *applies,
                           const char *paths[RS_TFIT_MAX_TRACES], rs_tfit_opts_t *o, rs_err_t *err) {
    const int argc = e->argc;
    char **argv = e->argv;
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
    o->allow_implausible = e->c.spec.allow_implausible;
    return 0;
}

int rs_cli_check_trace_inputs(const char *name, const rs_cli_exec_cmd_t *e, const rs_tfit_opts_t *o) {
    rs_io_plan_t plan;
    rs_io_init(&plan);
    for (int i = 0; i < o->n_paths; i++)
        if (rs_io_input(&plan, "--from-trace", o->paths[i], false) != 0) break;
    return rs_cli_check_files(name, e->groups, 3, &plan, NULL, true);
}
#endif
