/* cmd_model.c - `ringsim model`: the analytic model for every layout and pass asked for.
 *
 * For each (layout, pass): the closed form (seed + calibrated: T_comp, T_comm, bound, T_step, B_min,
 * B*) and the critical-path walk (makespan, busiest rank), and the metrics of docs/model.md "Metrics".
 * The ranges: B_fixed, and the makespan, balance efficiency and T_comm at --bound fast and slow (the
 * table's comment lines, the CSV's and the JSON's fields).
 * Output: a fixed-width table on stdout, --csv FILE, --json FILE ("-" = stdout), --trace FILE and
 * --chrome FILE (the walk's predicted trace; with several entries the file name gets
 * "-LAYOUT-PASS" before its extension). */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kernel.h"
#include "trace.h"
#include "output.h"

static const rs_opt_t own_opts[] = {
    {"csv", 0, "FILE", "none", "also write the table as CSV (\"-\" = stdout)", RS_ARG_OUT, offsetof(rs_cli_model_t, csv), 0,
     0, NULL, NULL, "Output:"},
    {"json", 0, "FILE", "none", "also write the results as JSON (\"-\" = stdout)", RS_ARG_OUT,
     offsetof(rs_cli_model_t, json), 0, 0, NULL, NULL, NULL},
    {"trace", 0, "FILE", "none", "the walk's predicted trace, CSV", RS_ARG_OUT, offsetof(rs_cli_model_t, trace), 0, 0, NULL,
     NULL, NULL},
    {"chrome", 0, "FILE", "none", "the walk's predicted trace, Chrome/Perfetto JSON", RS_ARG_OUT,
     offsetof(rs_cli_model_t, chrome), 0, 0, NULL, NULL, NULL},
};

typedef struct {
    rs_problem_t problem;  /* this entry's problem */
    rs_closed_t closed;    /* closed form */
    rs_walk_t walk;        /* critical-path walk */
    double local_calls_s;  /* its useful FLOPs as N local B x B calls (kernel.h rs_kernel_local_s) */
    rs_closed_t closed_at[2]; /* the same at the fast and the slow end of the uncertain figures (--bound) */
    rs_walk_t walk_at[2];
} entry_t;

/* The machines at the fast and the slow end of every uncertain figure (rs_machine_set_bound). */
static int range_machines(const rs_setup_t *c, rs_machine_t mb[2], rs_err_t *err) {
    for (int i = 0; i < 2; i++) {
        rs_machine_spec_t sp = c->spec;
        sp.bound = i == 0 ? RS_BOUND_FAST : RS_BOUND_SLOW;
        if (rs_machine_spec_build(&sp, &c->hw, c->problem.n_ranks, &mb[i], err) != 0) return -1;
        mb[i].hop_inter = c->machine.hop_inter;
    }
    return 0;
}

/* "lo-hi UNIT" of two times, or one when they print the same. */
static const char *time_range(double a, double b, char *buf, size_t len) {
    char x[32], y[32];
    rs_fmt_time(fmin(a, b), x, sizeof x), rs_fmt_time(fmax(a, b), y, sizeof y);
    if (!strcmp(x, y)) snprintf(buf, len, "%s", x);
    else snprintf(buf, len, "%s - %s", x, y);
    return buf;
}

/* B_fixed as printed: "none" (NaN: still fixed-cost bound at the largest B searched) or the tokens. */
static const char *b_fixed_str(double b, char *buf, size_t len) {
    if (isnan(b)) snprintf(buf, len, "above 16M");
    else snprintf(buf, len, "%.0f", b);
    return buf;
}

/* The fixed costs of each entry's pacing step and the range of every entry under the uncertain
 * figures (docs/model.md section 3b and "Ranges"). */
static void print_fixed(const rs_setup_t *c, const entry_t *es, int n) {
    const rs_machine_t *m = &c->machine;
    char a[32], b[32], x[32], y[80], z[80];
    printf("# fixed costs (docs/model.md 3b): a kernel launch %s on the device, a host call of the preset %s, a host "
           "sync %s; B_fixed: the smallest B at which the middle step's work reaches its fixed costs\n",
           rs_fmt_time(m->cal.launch_s, a, sizeof a), rs_fmt_time(rs_kernel_call_s(m), b, sizeof b),
           rs_fmt_time(m->launch_latency_s, x, sizeof x));
    for (int i = 0; i < n; i++) {
        const entry_t *e = &es[i];
        char wk[32], fx[32], bf[32], bl[32], bh[32];
        printf("#   %-10s %-8s work %s, fixed %s: B_fixed = %s (range %s - %s)\n", rs_layout_name(e->problem.layout),
               rs_pass_name(e->problem.pass), rs_fmt_time(e->closed.work_s, wk, sizeof wk), rs_fmt_time(e->closed.fixed_s, fx, sizeof fx),
               b_fixed_str(e->closed.b_fixed_tokens, bf, sizeof bf), b_fixed_str(e->closed_at[0].b_fixed_tokens, bl, sizeof bl),
               b_fixed_str(e->closed_at[1].b_fixed_tokens, bh, sizeof bh));
    }
    printf("# range (the table: --bound %s; --bound fast / slow: every uncertain figure at the end that makes the ring faster / "
           "slower):\n", rs_bound_name(m->bound));
    for (int i = 0; i < n; i++) {
        const entry_t *e = &es[i];
        printf("#   %-10s %-8s makespan %s, balance efficiency %.1f%% - %.1f%%, T_comm %s\n", rs_layout_name(e->problem.layout),
               rs_pass_name(e->problem.pass), time_range(e->walk_at[0].makespan_s, e->walk_at[1].makespan_s, y, sizeof y),
               100 * e->walk_at[1].balance_efficiency, 100 * e->walk_at[0].balance_efficiency,
               time_range(e->closed_at[0].t_comm_s, e->closed_at[1].t_comm_s, z, sizeof z));
    }
}


static int write_traces(const rs_setup_t *c, const entry_t *e, const char *csv, const char *chrome,
                        bool several, rs_err_t *err) {
    rs_schedule_t *s = rs_schedule_create(&e->problem, err);
    if (!s) return -1;
    rs_trace_t *t = rs_trace_create("model");
    if (!t) {
        rs_schedule_free(s);
        return rs_errf(err, "out of memory");
    }
    rs_walk_t w;
    int rc = rs_model_walk(s, &c->machine, rs_trace_sink(t), NULL, &w, err);
    if (rc == 0) {
        rc |= rs_trace_set_meta(t, "backend", "model");
        rc |= rs_trace_meta_problem(t, &e->problem);
        rc |= rs_trace_meta_machine(t, &c->machine);
        rc |= rs_trace_set_meta(t, "ringsim_version", "%s", RINGSIM_VERSION);
        if (rc) rc = rs_errf(err, "out of memory");
    }
    char path[1024];
    if (rc == 0 && csv) {
        rs_cli_entry_path(path, sizeof path, csv, &e->problem, several);
        rc = rs_trace_write_csv(t, path, err);
    }
    if (rc == 0 && chrome) {
        rs_cli_entry_path(path, sizeof path, chrome, &e->problem, several);
        rc = rs_trace_write_chrome(t, path, err);
    }
    rs_trace_free(t);
    rs_schedule_free(s);
    return rc;
}

static const char *bound_name(const entry_t *e) { return e->closed.comm_bound ? "comm" : "compute"; }

/* The overlap efficiency of an entry's middle step (docs/model.md "Metrics"). */
static double overlap_efficiency(const entry_t *e) { return rs_closed_overlap_efficiency(&e->closed); }

static void print_table(const rs_setup_t *c, const entry_t *es, int n) {
    const rs_problem_t *p = &c->problem;
    const rs_machine_t *m = &c->machine;
    char a[32], b[32], d[32], f[32], g[32];
    printf("# ringsim model: S=%lld N=%lld B=%lld batch=%lld heads=%lld/%lld d=%lld %s %s tile=%lldx%lld\n",
           (long long)p->seq_tokens, (long long)p->n_ranks, (long long)rs_problem_block(p), (long long)p->batch,
           (long long)p->q_heads, (long long)p->kv_heads, (long long)p->head_dim, rs_dtype_name(c->spec.dtype),
           p->causal ? "causal" : "non-causal", (long long)p->tile_q, (long long)p->tile_k);
    printf("# hardware: %s  F=%.4g TFLOP/s  W=%.4g GB/s (%s, latency %s)",
           m->hw_name, m->flops_per_s / 1e12, m->intra.bw_bytes_per_s / 1e9, m->intra.name,
           rs_fmt_time(m->intra.latency_s, a, sizeof a));
    if (m->devices_per_node > 0 && m->devices_per_node < p->n_ranks)
        printf("  nodes of %lld, inter %s W=%.4g GB/s", (long long)m->devices_per_node, m->inter.name,
               m->inter.bw_bytes_per_s / 1e9);
    printf("\n");
    char kd[256], rates[2048];
    printf("# compute: the attention steps %s\n", rs_kernel_describe(m, kd, sizeof kd));
    printf("# rates: %s\n", rs_machine_rates_line(m, p->n_ranks, rates, sizeof rates));
    if (p->cached_tokens > 0 || rs_problem_passes_q(p))
        printf("# inference: %s, P=%lld cached tokens per sequence (Bc=%lld per rank)%s; all-to-all return %s\n",
               rs_ring_name(p->ring), (long long)p->cached_tokens, (long long)rs_problem_cached_block(p),
               p->decode ? ", decode: one new token per sequence" : "",
               rs_problem_passes_q(p) && n > 0 ? rs_fmt_time(es[0].closed.a2a_s, g, sizeof g) : "none (pass-kv)");
    for (int i = 0; i < n; i++) {
        if (i > 0 && es[i].problem.pass == es[i - 1].problem.pass) continue;
        const rs_closed_t *cl = &es[i].closed;
        if (es[i].problem.decode)
            printf("# decode: B = 1 token per sequence (fixed); a step is %s-bound\n", bound_name(&es[i]));
        else if (rs_problem_passes_q(&es[i].problem))
            printf("# %s (pass-q): hidden iff B + Bc >= F*c_q/(W*c_f), B_min = %.1f new tokens per rank (the seed's "
                   "threshold at peak F)\n",
                   rs_pass_name(es[i].problem.pass), cl->b_min_tokens);
        else
            printf("# %s: B_min = F*c_b/(W*c_f) = %.1f tokens (the seed's threshold: a full block at peak F)\n",
                   rs_pass_name(es[i].problem.pass), cl->b_min_tokens);
    }
    printf("%-10s %-8s %8s %11s %11s %-7s %10s %11s %12s %12s %7s %7s %7s %8s\n", "layout", "pass", "B", "T_comp", "T_comm",
           "bound", "B*", "T_step", "makespan", "closed_form", "ovl_eff", "bal_eff", "of_peak", "load_bal");
    for (int i = 0; i < n; i++) {
        const entry_t *e = &es[i];
        char closed[32] = "-", bstar[32];
        if (!e->problem.causal) rs_fmt_time(e->closed.makespan_s, closed, sizeof closed);
        if (isnan(e->closed.b_star_tokens)) snprintf(bstar, sizeof bstar, "none"); /* transfer-bound at the largest B */
        else snprintf(bstar, sizeof bstar, "%.1f", e->closed.b_star_tokens);
        printf("%-10s %-8s %8lld %11s %11s %-7s %10s %11s %12s %12s %6.1f%% %6.1f%% %6.1f%% %7.1f%%\n",
               rs_layout_name(e->problem.layout), rs_pass_name(e->problem.pass), (long long)e->closed.block_tokens,
               rs_fmt_time(e->closed.t_comp_s, a, sizeof a), rs_fmt_time(e->closed.t_comm_s, b, sizeof b),
               bound_name(e), bstar, rs_fmt_time(e->closed.t_step_s, d, sizeof d),
               rs_fmt_time(e->walk.makespan_s, f, sizeof f), closed, 100 * overlap_efficiency(e),
               100 * e->walk.balance_efficiency, 100 * e->walk.fraction_of_peak, 100 * e->walk.load_balance);
    }
    for (int i = 0; i < n; i++) /* forward + backward of a layout: the efficiency of a training step's attention */
        for (int j = i + 1; j < n; j++)
            if (es[i].problem.layout == es[j].problem.layout && es[i].problem.pass != es[j].problem.pass) {
                const rs_walk_t *x = &es[i].walk, *y = &es[j].walk;
                const double mk = x->makespan_s + y->makespan_s, useful = (double)x->flops_useful + (double)y->flops_useful;
                printf("# %s forward+backward: makespan %s, balance efficiency %.1f%%, fraction of peak %.1f%% (both passes "
                       "summed)\n", rs_layout_name(es[i].problem.layout), rs_fmt_time(mk, a, sizeof a),
                       100 * (mk > 0 ? (x->busy_mean_s + y->busy_mean_s) / mk : 1),
                       100 * (mk > 0 ? useful / ((double)es[i].problem.n_ranks * x->peak_flops_per_s * mk) : 0));
            }
    printf("# T_comp/T_comm/T_step: the layout's middle step (the step class that paces the synchronous ring: a causal\n"
           "# zigzag or striped step computes about half a block, a contiguous one a full block on the last rank), closed\n"
           "# form; bound: T_comm > T_comp; B*: the largest B at which that step is transfer-bound (latency, rates, launch);\n"
           "# makespan: critical-path walk; closed_form: the balanced non-causal makespan; the metrics, each in [0, 1]\n"
           "# (docs/model.md \"Metrics\"): ovl_eff (overlap efficiency): T_comp / T_step; bal_eff (balance efficiency):\n"
           "# mean per-rank compute (each call at its own rate) / makespan; of_peak (fraction of peak): useful FLOPs /\n"
           "# (N x %.4g TFLOP/s x makespan); load_bal (load balance): mean / max per-rank compute.\n",
           n > 0 ? es[0].walk.peak_flops_per_s / 1e12 : m->flops_per_s / 1e12);
    if (rs_problem_is_inference(p))
        printf("# inference variant: T_comp and B* are a middle step's B (B + Bc) pairs as full blocks at the dense model\n"
               "# (docs/inference.md; the kernel presets cost training rings).\n");
}

/* The CSV's columns: the metrics by their glossary names (docs/model.md "Metrics"), then the ranges
 * the table's comment lines print (print_fixed): the middle step's work and fixed costs, B_fixed
 * (nan: still below at the largest B searched), and at --bound fast and slow B_fixed, the makespan,
 * the balance efficiency and T_comm. */
static const char csv_columns[] =
    "layout,pass,seq_tokens,n_ranks,block_tokens,t_comp_s,t_comm_s,bound,t_step_s,makespan_s,closed_makespan_s,"
    "overlap_efficiency,balance_efficiency,fraction_of_peak,load_balance,peak_flops_per_s,local_calls_s,busy_max_s,"
    "busy_mean_s,flops_useful,flops_exec,b_min_tokens,b_star_tokens,work_s,fixed_s,b_fixed_tokens,b_fixed_fast_tokens,"
    "b_fixed_slow_tokens,makespan_fast_s,makespan_slow_s,balance_efficiency_fast,balance_efficiency_slow,t_comm_fast_s,"
    "t_comm_slow_s\n";

static int write_csv(const char *path, const entry_t *es, int n, rs_err_t *err) {
    rs_output_t out;
    if (rs_output_open(&out, path, err) != 0) return -1;
    FILE *fp = out.fp;
    fputs(csv_columns, fp);
    for (int i = 0; i < n; i++) {
        const entry_t *e = &es[i];
        fprintf(fp, "%s,%s,%lld,%lld,%lld,%.17g,%.17g,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
                    "%llu,%llu,%.17g,%.17g",
                rs_layout_name(e->problem.layout), rs_pass_name(e->problem.pass), (long long)e->problem.seq_tokens,
                (long long)e->problem.n_ranks, (long long)e->closed.block_tokens, e->closed.t_comp_s,
                e->closed.t_comm_s, bound_name(e), e->closed.t_step_s, e->walk.makespan_s, e->closed.makespan_s,
                overlap_efficiency(e), e->walk.balance_efficiency, e->walk.fraction_of_peak, e->walk.load_balance,
                e->walk.peak_flops_per_s, e->local_calls_s, e->walk.busy_max_s, e->walk.busy_mean_s,
                (unsigned long long)e->walk.flops_useful, (unsigned long long)e->walk.flops_exec, e->closed.b_min_tokens,
                e->closed.b_star_tokens);
        fprintf(fp, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", e->closed.work_s, e->closed.fixed_s,
                e->closed.b_fixed_tokens, e->closed_at[0].b_fixed_tokens, e->closed_at[1].b_fixed_tokens, e->walk_at[0].makespan_s,
                e->walk_at[1].makespan_s, e->walk_at[0].balance_efficiency, e->walk_at[1].balance_efficiency,
                e->closed_at[0].t_comm_s, e->closed_at[1].t_comm_s);
    }
    return rs_output_close(&out, err);
}

/* A token count as JSON: null when NaN (B_fixed still below at the largest B searched). */
static json_t *tokens_json(double b) { return isnan(b) ? json_null() : json_real(b); }

/* The ranges of entry e into o (the CSV's columns of the same names). */
static void ranges_json(json_t *o, const entry_t *e) {
    json_object_set_new(o, "work_s", json_real(e->closed.work_s));
    json_object_set_new(o, "fixed_s", json_real(e->closed.fixed_s));
    json_object_set_new(o, "b_fixed_tokens", tokens_json(e->closed.b_fixed_tokens));
    static const char *const end[2] = {"fast", "slow"};
    char key[64];
    for (int b = 0; b < 2; b++) {
        snprintf(key, sizeof key, "b_fixed_%s_tokens", end[b]);
        json_object_set_new(o, key, tokens_json(e->closed_at[b].b_fixed_tokens));
        snprintf(key, sizeof key, "makespan_%s_s", end[b]);
        json_object_set_new(o, key, json_real(e->walk_at[b].makespan_s));
        snprintf(key, sizeof key, "balance_efficiency_%s", end[b]);
        json_object_set_new(o, key, json_real(e->walk_at[b].balance_efficiency));
        snprintf(key, sizeof key, "t_comm_%s_s", end[b]);
        json_object_set_new(o, key, json_real(e->closed_at[b].t_comm_s));
    }
}

static int write_json(const char *path, const rs_setup_t *c, const entry_t *es, int n, rs_err_t *err) {
    json_t *root = json_object(), *arr = json_array();
    json_object_set_new(root, "hw", json_string(c->machine.hw_name));
    json_object_set_new(root, "flops_per_s", json_real(c->machine.flops_per_s));
    json_object_set_new(root, "intra_bw_bytes_per_s", json_real(c->machine.intra.bw_bytes_per_s));
    char kd[256];
    json_object_set_new(root, "impl", json_string(rs_impl_name((rs_impl_t)c->machine.impl)));
    json_object_set_new(root, "kernel", c->machine.kernel > 0 ? json_string(c->machine.kernels.kernel[c->machine.kernel - 1].name)
                                                              : json_null());
    json_object_set_new(root, "compute", json_string(rs_kernel_describe(&c->machine, kd, sizeof kd)));
    json_object_set_new(root, "rates", rs_cli_rates_json(&c->machine));
    for (int i = 0; i < n; i++) {
        const entry_t *e = &es[i];
        json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:b, s:f, s:f, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f}",
                              "layout", rs_layout_name(e->problem.layout), "pass", rs_pass_name(e->problem.pass),
                              "seq_tokens", (json_int_t)e->problem.seq_tokens, "n_ranks", (json_int_t)e->problem.n_ranks,
                              "block_tokens", (json_int_t)e->closed.block_tokens, "causal", e->problem.causal,
                              "t_comp_s", e->closed.t_comp_s, "t_comm_s", e->closed.t_comm_s, "bound", bound_name(e),
                              "t_step_s", e->closed.t_step_s, "makespan_s", e->walk.makespan_s,
                              "closed_makespan_s", e->closed.makespan_s, "balance_efficiency", e->walk.balance_efficiency,
                              "b_min_tokens", e->closed.b_min_tokens,
                              "b_star_tokens", isnan(e->closed.b_star_tokens) ? -1.0 : e->closed.b_star_tokens,
                              "busy_max_s", e->walk.busy_max_s);
        json_object_set_new(o, "overlap_efficiency", json_real(overlap_efficiency(e)));
        json_object_set_new(o, "fraction_of_peak", json_real(e->walk.fraction_of_peak));
        json_object_set_new(o, "load_balance", json_real(e->walk.load_balance));
        json_object_set_new(o, "peak_flops_per_s", json_real(e->walk.peak_flops_per_s));
        json_object_set_new(o, "local_calls_s", json_real(e->local_calls_s));
        ranges_json(o, e);
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "entries", arr);
    return rs_cli_write_json(path, root, err);
}

int rs_cli_model_groups(rs_cli_model_t *m, rs_opt_group_t *groups) {
    memset(m, 0, sizeof *m);
    rs_setup_t *c = &m->c;
    rs_setup_default(c);
    c->n_layouts = RS_LAYOUT_COUNT;
    for (int i = 0; i < RS_LAYOUT_COUNT; i++) c->layouts[i] = (rs_layout_t)i;
    c->n_passes = 2;
    c->passes[0] = RS_PASS_FORWARD;
    c->passes[1] = RS_PASS_BACKWARD;
    groups[0] = RS_OPT_GROUP(own_opts, m);
    groups[1] = rs_cli_shared_group(c, NULL);
    return 2;
}

int rs_cmd_model(int argc, char **argv) {
    rs_cli_model_t o;
    rs_opt_group_t groups[2];
    const int n_groups = rs_cli_model_groups(&o, groups);
    int rc = rs_cli_run_parse("model", argc, argv, groups, n_groups, true);
    if (rc >= 0) return rc;
    rs_setup_t c = o.c;
    const char *csv = o.csv, *json = o.json, *trace = o.trace, *chrome = o.chrome;
    rs_err_t err = {0};
    rc = RS_EXIT_OK;
    rs_cli_inference_passes(&c, &groups[1]);
    if (rs_setup_finish(&c, &err) != 0) rc = RS_EXIT_USAGE;
    if (rc != RS_EXIT_OK) {
        fprintf(stderr, "ringsim model: %s\n", err.msg);
        return rc;
    }
    if ((rc = rs_cli_check_entry_files("model", &c, groups, 2, true)) >= 0) return rc;
    rc = RS_EXIT_OK;
    int n = c.n_layouts * c.n_passes;
    const bool quiet = (csv && !strcmp(csv, "-")) || (json && !strcmp(json, "-")); /* stdout is the CSV or JSON: no table */
    rs_estimate_t sum = {0, 0, 0}; /* every walk (three: the ranges), and the traces' events when asked for */
    for (int j = 0; j < c.n_passes; j++)
        for (int i = 0; i < c.n_layouts; i++) {
            rs_estimate_t e;
            const rs_problem_t p = rs_setup_problem(&c, i, j);
            rs_walk_estimate(&p, RS_EST_NO_TRACE, &e);
            for (int w = 0; w < 3; w++) rs_estimate_then(&sum, &e);
            if (trace || chrome) rs_walk_estimate(&p, RS_EST_TRACE_FILE, &e), rs_estimate_then(&sum, &e);
        }
    if (rs_limits_check("this run", &sum, &c.limits, &err) != 0) {
        fprintf(stderr, "ringsim model: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }
    rs_machine_t mb[2];
    if (range_machines(&c, mb, &err) != 0) {
        fprintf(stderr, "ringsim model: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }
    entry_t *es = calloc((size_t)n, sizeof *es);
    if (!es) return RS_EXIT_FAIL;
    int k = 0;
    for (int j = 0; j < c.n_passes && rc == RS_EXIT_OK; j++)
        for (int i = 0; i < c.n_layouts && rc == RS_EXIT_OK; i++, k++) {
            entry_t *e = &es[k];
            e->problem = rs_setup_problem(&c, i, j);
            rs_schedule_t *s = rs_schedule_create(&e->problem, &err);
            if (!s || rs_model_b_star(&e->problem, &c.machine, &e->closed, &err) != 0 ||
                rs_model_walk(s, &c.machine, RS_NO_SINK, NULL, &e->walk, &err) != 0)
                rc = RS_EXIT_USAGE;
            else e->local_calls_s = rs_kernel_local_s(&e->problem, &c.machine, (double)e->walk.flops_useful);
            for (int b = 0; b < 2 && rc == RS_EXIT_OK; b++) /* the --bound fast / slow ranges (the table, CSV, JSON) */
                if (rs_model_b_star(&e->problem, &mb[b], &e->closed_at[b], &err) != 0 ||
                    rs_model_walk(s, &mb[b], RS_NO_SINK, NULL, &e->walk_at[b], &err) != 0)
                    rc = RS_EXIT_USAGE;
            rs_schedule_free(s);
        }
    if (rc == RS_EXIT_OK) {
        rs_cli_notes_now("model", &c, NULL); /* every refusal made: the notes, then the outputs */
        if (!quiet) print_table(&c, es, n), print_fixed(&c, es, n);
        if (csv && write_csv(csv, es, n, &err) != 0) rc = RS_EXIT_FAIL;
        if (rc == RS_EXIT_OK && json && write_json(json, &c, es, n, &err) != 0) rc = RS_EXIT_FAIL;
        for (int i = 0; i < n && rc == RS_EXIT_OK && (trace || chrome); i++)
            if (write_traces(&c, &es[i], trace, chrome, n > 1, &err) != 0) rc = RS_EXIT_FAIL;
    }
    if (rc != RS_EXIT_OK) fprintf(stderr, "ringsim model: %s\n", err.msg);
    free(es);
    return rc;
}
