/* cmd_sim.c - `ringsim sim`: the ring schedule simulated in SimGrid (sim/sim.h), side by side with
 * the critical-path walk.
 *
 * For each (layout, pass): the simulated makespan, the walk's makespan on the same machine and their
 * relative difference, the simulation's balance efficiency and fraction of peak (docs/model.md
 * "Metrics"), transfer-bound rank-steps, and what the
 * simulation cost (wall time in the child, per rank-step, peak RSS). Output: a fixed-width table,
 * --csv FILE, --json FILE (as `ringsim model --json`), --steps (per-step table), --trace/--chrome FILE (the simulated trace; with several
 * entries the file name gets "-LAYOUT-PASS" before its extension), --platform-out FILE. */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kernel.h"
#include "trace.h"

#ifdef RINGSIM_HAVE_SIM
#include "job_opts.h"
#include "sim.h"
#include "output.h"

typedef struct {
    const char *trace, *chrome, *csv, *json; /* outputs */
    const char *hops, *links;         /* a job's per-hop and per-link CSV */
    bool steps;                       /* the per-step table */
    bool all_pairs;                   /* routes between all device pairs */
    rs_sim_config_t cfg;              /* platform, network model, settings */
} sim_opts_t;

static int parse_netmodel(void *dst, const char *arg, rs_err_t *err) {
    if (!*arg || strchr(arg, ' '))
        return rs_errf(err, "--network-model '%s': expected a SimGrid model name (CM02, LV08, IB, Constant)", arg);
    ((sim_opts_t *)dst)->cfg.network_model = arg;
    return 0;
}

static int parse_cfg(void *dst, const char *arg, rs_err_t *err) {
    rs_sim_config_t *cfg = &((sim_opts_t *)dst)->cfg;
    if (cfg->n_cfg >= RS_SIM_MAX_CFG) return rs_errf(err, "--cfg: at most %d settings", RS_SIM_MAX_CFG);
    if (!strchr(arg, ':') || arg[0] == ':') return rs_errf(err, "--cfg '%s': expected KEY:VALUE (e.g. network/model:LV08)", arg);
    cfg->cfg[cfg->n_cfg++] = arg;
    return 0;
}

#define O(field) offsetof(sim_opts_t, field)
static const rs_opt_t own_opts[] = {
    {"platform", 0, "FILE", "generated", "your SimGrid platform XML instead of a generated one", RS_ARG_IN,
     O(cfg.platform_path), 0, 0, NULL, NULL, "Simulation:"},
    {"hostmap", 0, "FILE", "rank p on host gpu<p>", "rank-to-host map for --platform: lines \"HOST\" or \"RANK HOST\"",
     RS_ARG_IN, O(cfg.hostmap_path), 0, 0, NULL, NULL, NULL},
    {"platform-out", 0, "FILE", "none", "write the generated platform XML", RS_ARG_OUT, O(cfg.platform_out), 0, 0, NULL,
     NULL, NULL},
    {"all-pairs", 0, NULL, "ring routes", "generate routes between all device pairs (ports per device)\ninstead of the ring's N hops",
     RS_ARG_TRUE, O(all_pairs), 0, 0, NULL, NULL, NULL},
    {"network-model", 0, "M", "CM02", "SimGrid network/model: CM02 (exact), LV08, IB, Constant", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_netmodel, NULL},
    {"cfg", 0, "KEY:VALUE", "none", "any SimGrid setting, after the defaults (repeatable)", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_cfg, NULL},
    {"no-fold", 0, NULL, "fold", "simulate every rank of a ring, every ring and member of a job, even\nwhere the ring's or the job's symmetry makes copies of them\n(docs/sim.md, \"Folding\")",
     RS_ARG_TRUE, O(cfg.no_fold), 0, 0, NULL, NULL, NULL},
    {"timeout", 0, "S", "10 x estimate, >= 60", "stop a SimGrid child after S seconds (its watchdog)", RS_ARG_DOUBLE,
     O(cfg.timeout_s), 1e-3, 1e9, NULL, NULL, NULL},
    {"trace", 0, "FILE", "none", "the simulated trace, CSV", RS_ARG_OUT, O(trace), 0, 0, NULL, NULL, "Output:"},
    {"chrome", 0, "FILE", "none", "the simulated trace, Chrome/Perfetto JSON", RS_ARG_OUT, O(chrome), 0, 0, NULL, NULL, NULL},
    {"csv", 0, "FILE", "none", "also write the table as CSV (\"-\" = stdout)", RS_ARG_OUT, O(csv), 0, 0, NULL, NULL, NULL},
    {"json", 0, "FILE", "none", "also write the results as JSON (\"-\" = stdout)", RS_ARG_OUT, O(json), 0, 0, NULL, NULL,
     NULL},
    {"steps", 0, NULL, "off", "print the per-step table (latest end, longest step)", RS_ARG_TRUE, O(steps), 0, 0, NULL, NULL,
     NULL},
    {"hops", 0, "FILE", "none", "a job's per-hop table as CSV (\"-\" = stdout)", RS_ARG_OUT, O(hops), 0, 0, NULL, NULL, NULL},
    {"links", 0, "FILE", "none", "a job's per-link table as CSV (\"-\" = stdout)", RS_ARG_OUT, O(links), 0, 0, NULL, NULL,
     NULL},
};
#undef O

typedef struct {
    rs_problem_t problem;  /* this entry's problem */
    rs_sim_result_t sim;   /* simulated */
    rs_walk_t walk;        /* critical-path walk on the same machine */
} entry_t;

/* A parsed `ringsim sim`. */
typedef struct {
    rs_setup_t c;                /* the shared options, then the finished setup */
    sim_opts_t o;                /* sim's own options */
    rs_cli_job_t jo;             /* the job's options (job_opts.h) */
    rs_opt_group_t groups[3];    /* sim's own, the job's, the shared */
    rs_sim_config_t cfg;         /* what the simulator runs: o.cfg, --all-pairs, the job */
    rs_job_t job;                /* the job of concurrent rings (when a job option was given) */
    char job_note[256];          /* what the background passes assume (rs_cli_job_background_passes), said with the notes */
} sim_cmd_t;


static double rel_diff(double a, double b) {
    double s = fmax(fabs(a), fabs(b));
    return s > 0 ? fabs(a - b) / s : 0;
}

/* Problem, hardware, platform and SimGrid configuration in '#' lines. */
static void print_header(const rs_setup_t *c, const rs_sim_config_t *cfg, const entry_t *es, int n) {
    const rs_problem_t *p = &c->problem;
    const rs_machine_t *m = &c->machine;
    printf("# ringsim sim: S=%lld N=%lld B=%lld batch=%lld heads=%lld/%lld d=%lld %s %s tile=%lldx%lld\n",
           (long long)p->seq_tokens, (long long)p->n_ranks, (long long)rs_problem_block(p), (long long)p->batch,
           (long long)p->q_heads, (long long)p->kv_heads, (long long)p->head_dim, rs_dtype_name(c->spec.dtype),
           p->causal ? "causal" : "non-causal", (long long)p->tile_q, (long long)p->tile_k);
    char kd[256], rates[2048];
    printf("# hardware: %s  F=%.4g TFLOP/s (datasheet peak)\n", m->hw_name, m->flops_per_s / 1e12);
    printf("# compute: the attention steps %s\n", rs_kernel_describe(m, kd, sizeof kd));
    printf("# rates: %s\n", rs_machine_rates_line(m, p->n_ranks, rates, sizeof rates));
    if (!cfg->job) printf("# platform: %s%s\n", n > 0 ? es[0].sim.platform : "", cfg->hostmap_path ? " (with --hostmap)" : "");
    printf("# SimGrid %s, network/model %s%s", rs_sim_simgrid_version(), cfg->network_model,
           strcmp(cfg->network_model, "CM02") ? "" : " (exact)");
    if (cfg->job || cfg->platform_path) printf(", network/optim Full");
    for (int i = 0; i < cfg->n_cfg; i++) printf(" --cfg %s", cfg->cfg[i]);
    printf("\n");
}

static void print_table(const rs_setup_t *c, const rs_sim_config_t *cfg, const entry_t *es, int n, bool steps) {
    char a[32], b[32], d[32];
    print_header(c, cfg, es, n);
    printf("%-10s %-8s %8s %12s %12s %9s %7s %7s %10s %10s %10s %10s %9s\n", "layout", "pass", "B", "makespan", "walk",
           "rel_diff", "bal_eff", "of_peak", "comm_bound", "rank_steps", "sim_wall", "per_rstep", "peak_rss");
    for (int i = 0; i < n; i++) {
        const entry_t *e = &es[i];
        printf("%-10s %-8s %8lld %12s %12s %9.2e %6.1f%% %6.1f%% %10" PRId64 " %10" PRId64 " %9.3fs %10s %7.1fMB\n",
               rs_layout_name(e->problem.layout), rs_pass_name(e->problem.pass),
               (long long)rs_problem_block(&e->problem), rs_fmt_time(e->sim.fig.makespan_s, a, sizeof a),
               rs_fmt_time(e->walk.makespan_s, b, sizeof b), rel_diff(e->sim.fig.makespan_s, e->walk.makespan_s),
               100 * e->sim.fig.balance_efficiency, 100 * e->sim.fig.fraction_of_peak, e->sim.fig.comm_bound_steps,
               e->sim.fig.rank_steps, e->sim.sim_wall_s,
               rs_fmt_time(e->sim.fig.rank_steps > 0 ? e->sim.sim_wall_s / (double)e->sim.fig.rank_steps : 0, d, sizeof d),
               (double)e->sim.peak_rss_bytes / 1e6);
    }
    printf("# makespan: simulated; walk: critical-path walk (model/4-cost/cost.h) on the same machine; rel_diff:\n"
           "# |sim - walk| / max; of the simulation, each in [0, 1] (docs/model.md \"Metrics\"): bal_eff (balance\n"
           "# efficiency): mean per-rank compute (each call at its own rate) / makespan; of_peak (fraction of peak):\n"
           "# useful FLOPs / (N x %.4g TFLOP/s x makespan); comm_bound: rank-steps whose transfers ended after their\n"
           "# compute; sim_wall: SimGrid run in the child; per_rstep: sim_wall / rank_steps; peak_rss: the child's peak\n"
           "# resident memory.\n", n > 0 ? es[0].sim.fig.peak_flops_per_s / 1e12 : c->machine.flops_per_s / 1e12);
    for (int i = 0; i < n; i++)
        if (es[i].sim.fold_copies > 1)
            printf("# folded: %s %s: %" PRId64 " ranks by the ring's rotation symmetry, one simulated (docs/sim.md, \"Folding a single ring\")\n",
                   rs_layout_name(es[i].problem.layout), rs_pass_name(es[i].problem.pass), es[i].sim.fold_copies);
    for (int i = 0; i < n && steps; i++) {
        const entry_t *e = &es[i];
        printf("\n# steps of %s %s: step, latest end over ranks, longest step over ranks\n",
               rs_layout_name(e->problem.layout), rs_pass_name(e->problem.pass));
        printf("%6s %14s %14s\n", "step", "end", "longest");
        for (int64_t k = 0; k < e->sim.n_steps; k++)
            printf("%6" PRId64 " %14s %14s\n", k, rs_fmt_time(e->sim.step_end_s[k], a, sizeof a),
                   rs_fmt_time(e->sim.step_max_s[k], b, sizeof b));
    }
}

static int write_csv(const char *path, const entry_t *es, int n, rs_err_t *err) {
    rs_output_t out;
    if (rs_output_open(&out, path, err) != 0) return -1;
    FILE *fp = out.fp;
    fprintf(fp, "layout,pass,seq_tokens,n_ranks,block_tokens,makespan_s,walk_makespan_s,rel_diff,balance_efficiency,"
                "fraction_of_peak,peak_flops_per_s,comm_bound_steps,rank_steps,busy_max_s,busy_mean_s,flops_useful,flops_exec,sim_wall_s,"
                "child_wall_s,peak_rss_bytes,activities,engine,fold_copies\n");
    for (int i = 0; i < n; i++) {
        const entry_t *e = &es[i];
        fprintf(fp, "%s,%s,%lld,%lld,%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%" PRId64 ",%" PRId64 ",%.17g,%.17g,%llu,%llu,%.17g,%.17g,%ld,%" PRId64
                    ",%s,%" PRId64 "\n",
                rs_layout_name(e->problem.layout), rs_pass_name(e->problem.pass), (long long)e->problem.seq_tokens,
                (long long)e->problem.n_ranks, (long long)rs_problem_block(&e->problem), e->sim.fig.makespan_s,
                e->walk.makespan_s, rel_diff(e->sim.fig.makespan_s, e->walk.makespan_s), e->sim.fig.balance_efficiency,
                e->sim.fig.fraction_of_peak, e->sim.fig.peak_flops_per_s, e->sim.fig.comm_bound_steps,
                e->sim.fig.rank_steps, e->sim.fig.busy_max_s, e->sim.fig.busy_mean_s, (unsigned long long)e->sim.fig.flops_useful,
                (unsigned long long)e->sim.fig.flops_exec, e->sim.sim_wall_s, e->sim.child_wall_s, e->sim.peak_rss_bytes,
                e->sim.activities, rs_sim_engine_name(e->sim.engine), e->sim.fold_copies);
    }
    return rs_output_close(&out, err);
}

/* The entries as JSON (the table's columns, as `ringsim model --json` writes its own). */
static int write_json(const char *path, const rs_setup_t *c, const rs_sim_config_t *cfg, const entry_t *es, int n, rs_err_t *err) {
    json_t *root = json_object(), *arr = json_array();
    json_object_set_new(root, "hw", json_string(c->machine.hw_name));
    json_object_set_new(root, "flops_per_s", json_real(c->machine.flops_per_s));
    char kd[256];
    json_object_set_new(root, "compute", json_string(rs_kernel_describe(&c->machine, kd, sizeof kd)));
    json_object_set_new(root, "intra_bw_bytes_per_s", json_real(c->machine.intra.bw_bytes_per_s));
    json_object_set_new(root, "rates", rs_cli_rates_json(&c->machine));
    json_object_set_new(root, "simgrid_version", json_string(rs_sim_simgrid_version()));
    json_object_set_new(root, "network_model", json_string(cfg->network_model));
    for (int i = 0; i < n; i++) {
        const entry_t *e = &es[i];
        json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:b, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:f, s:f, s:I, s:I, s:f, s:f, s:I}",
                              "layout", rs_layout_name(e->problem.layout), "pass", rs_pass_name(e->problem.pass),
                              "seq_tokens", (json_int_t)e->problem.seq_tokens, "n_ranks", (json_int_t)e->problem.n_ranks,
                              "block_tokens", (json_int_t)rs_problem_block(&e->problem), "causal", e->problem.causal,
                              "makespan_s", e->sim.fig.makespan_s, "walk_makespan_s", e->walk.makespan_s,
                              "rel_diff", rel_diff(e->sim.fig.makespan_s, e->walk.makespan_s), "balance_efficiency",
                              e->sim.fig.balance_efficiency, "fraction_of_peak", e->sim.fig.fraction_of_peak,
                              "comm_bound_steps", (json_int_t)e->sim.fig.comm_bound_steps, "rank_steps",
                              (json_int_t)e->sim.fig.rank_steps, "busy_max_s", e->sim.fig.busy_max_s, "busy_mean_s",
                              e->sim.fig.busy_mean_s, "flops_useful", (json_int_t)e->sim.fig.flops_useful, "flops_exec",
                              (json_int_t)e->sim.fig.flops_exec, "sim_wall_s", e->sim.sim_wall_s, "child_wall_s",
                              e->sim.child_wall_s, "peak_rss_bytes", (json_int_t)e->sim.peak_rss_bytes);
        /* how it ran: N where one ring folded by its rotation, a job's copies, 1 unfolded (docs/sim.md) */
        if (o && json_object_set_new(o, "fold_copies", json_integer((json_int_t)e->sim.fold_copies)) != 0) json_decref(o), o = NULL;
        if (!o || json_array_append_new(arr, o) != 0) {
            json_decref(arr), json_decref(root);
            return rs_errf(err, "--json: %s %s: a value is not finite", rs_layout_name(e->problem.layout),
                           rs_pass_name(e->problem.pass));
        }
    }
    json_object_set_new(root, "entries", arr);
    return rs_cli_write_json(path, root, err);
}

/* Simulate one entry; writes its traces when asked. Returns an exit code. */
static int run_entry(const sim_cmd_t *sc, entry_t *e, rs_err_t *err) {
    const rs_setup_t *c = &sc->c;
    const rs_sim_config_t *cfg = &sc->cfg;
    const char *csv_trace = sc->o.trace, *chrome = sc->o.chrome;
    const bool several = c->n_layouts * c->n_passes > 1;
    rs_schedule_t *s = rs_schedule_create(&e->problem, err);
    if (!s) return RS_EXIT_USAGE;
    int rc = RS_EXIT_OK;
    rs_trace_t *t = NULL;
    if (csv_trace || chrome) {
        t = rs_trace_create("sim");
        if (!t) {
            rs_schedule_free(s);
            rs_errf(err, "out of memory");
            return RS_EXIT_FAIL;
        }
    }
    if (rs_model_walk(s, &c->machine, RS_NO_SINK, NULL, &e->walk, err) != 0) rc = RS_EXIT_USAGE;
    if (rc == RS_EXIT_OK) {
        if (rs_sim_run(s, &c->machine, cfg, t, &e->sim, err) != 0) rc = rs_err_exit_code(err);
    }
    if (rc == RS_EXIT_OK && t) {
        int m = rs_trace_meta_machine(t, &c->machine);
        m |= rs_trace_set_meta(t, "ringsim_version", "%s", RINGSIM_VERSION);
        m |= rs_trace_set_meta(t, "makespan_s", "%.17g", e->sim.fig.makespan_s);
        if (m) {
            rs_errf(err, "out of memory");
            rc = RS_EXIT_FAIL;
        }
        rs_trace_sort(t);
        char path[1024];
        if (rc == RS_EXIT_OK && csv_trace) {
            rs_cli_entry_path(path, sizeof path, csv_trace, &e->problem, several);
            if (rs_trace_write_csv(t, path, err) != 0) rc = RS_EXIT_FAIL;
        }
        if (rc == RS_EXIT_OK && chrome) {
            rs_cli_entry_path(path, sizeof path, chrome, &e->problem, several);
            if (rs_trace_write_chrome(t, path, err) != 0) rc = RS_EXIT_FAIL;
        }
    }
    rs_trace_free(t);
    rs_schedule_free(s);
    return rc;
}

/* Tables and CSV files of the entries. Returns an exit code. */
static int write_outputs(const sim_cmd_t *sc, const entry_t *es, int n, rs_err_t *err) {
    const rs_setup_t *c = &sc->c;
    const sim_opts_t *o = &sc->o;
    const rs_sim_config_t *cfg = &sc->cfg;
    const bool quiet = (o->csv && !strcmp(o->csv, "-")) || (o->hops && !strcmp(o->hops, "-")) ||
                       (o->links && !strcmp(o->links, "-")) || (o->json && !strcmp(o->json, "-"));
    if (o->json && write_json(o->json, c, cfg, es, n, err) != 0) return RS_EXIT_FAIL;
    if (!cfg->job) {
        if (!quiet) print_table(c, cfg, es, n, o->steps);
        return o->csv && write_csv(o->csv, es, n, err) != 0 ? RS_EXIT_FAIL : RS_EXIT_OK;
    }
    rs_cli_job_entry_t *je = calloc((size_t)n, sizeof *je);
    if (!je) return rs_errf(err, "out of memory"), RS_EXIT_FAIL;
    for (int i = 0; i < n; i++) je[i] = (rs_cli_job_entry_t){&es[i].problem, &es[i].sim};
    if (!quiet) {
        print_header(c, cfg, es, n);
        rs_cli_job_print(stdout, cfg->job, je, n);
    }
    int rc = RS_EXIT_OK;
    if ((o->csv && rs_cli_job_write_rings(o->csv, je, n, err) != 0) || (o->hops && rs_cli_job_write_hops(o->hops, je, n, err) != 0) ||
        (o->links && rs_cli_job_write_links(o->links, je, n, err) != 0))
        rc = RS_EXIT_FAIL;
    free(je);
    return rc;
}

/* Options that only make sense together, then the setup and the job. Returns an exit code. */
static int check_args(sim_cmd_t *sc, rs_err_t *err) {
    rs_setup_t *c = &sc->c;
    const sim_opts_t *o = &sc->o;
    const rs_opt_group_t *groups = sc->groups;
    rs_cli_job_t *jo = &sc->jo;
    rs_sim_config_t *cfg = &sc->cfg;
    if (cfg->hostmap_path && !cfg->platform_path)
        return rs_errf(err, "--hostmap %s needs --platform FILE (generated platforms put rank p on host gpu<p>)",
                       cfg->hostmap_path), RS_EXIT_USAGE;
    if (cfg->platform_path && cfg->platform_out)
        return rs_errf(err, "--platform-out writes a generated platform; it cannot be combined with --platform"), RS_EXIT_USAGE;
    jo->any = groups[1].seen != 0;
    if ((o->hops || o->links) && !jo->any)
        return rs_errf(err, "--%s reports a job of concurrent rings: give --tp/--dp, --map or --fabric", o->hops ? "hops" : "links"),
               RS_EXIT_USAGE;
    rs_cli_inference_passes(c, &groups[2]);
    if (rs_cli_job_apply(jo, c, rs_cli_given(&groups[2], "ranks"), err) != 0 || rs_setup_finish(c, err) != 0) return RS_EXIT_USAGE;
    cfg->folds = rs_sim_folds_new(); /* the estimate's folds (a job's, a ring's rotation check), kept for the run */
    if (!cfg->folds) return rs_errf(err, "out of memory"), RS_EXIT_FAIL;
    if (!jo->any) return RS_EXIT_OK;
    if (rs_cli_job_background(jo, &c->problem, err) != 0 ||
        rs_cli_job_background_passes(jo, c, sc->job_note, sizeof sc->job_note, err) != 0 || rs_cli_job_build(jo, c, &sc->job, err) != 0)
        return RS_EXIT_USAGE;
    cfg->job = &sc->job;
    return RS_EXIT_OK;
}

/* Every entry's walk and simulation against --max-time and --max-memory. Returns -1 to go on or
 * RS_EXIT_USAGE. */
static int check_limits(const rs_setup_t *c, const rs_sim_config_t *cfg, bool trace) {
    rs_estimate_t sum = {0, 0, 0}, e;
    for (int j = 0; j < c->n_passes; j++)
        for (int i = 0; i < c->n_layouts; i++) {
            const rs_problem_t p = rs_setup_problem(c, i, j);
            rs_walk_estimate(&p, RS_EST_NO_TRACE, &e);
            rs_estimate_then(&sum, &e);
            rs_sim_estimate(&p, &c->machine, cfg, trace ? RS_EST_TRACE_FILE : RS_EST_NO_TRACE, &e);
            rs_estimate_then(&sum, &e);
        }
    rs_err_t err = {0};
    return rs_limits_check("this run", &sum, &c->limits, &err) == 0 ? -1 : rs_cli_usage("sim", true, &err);
}

int rs_cmd_sim(int argc, char **argv) {
    sim_cmd_t *sc = calloc(1, sizeof *sc);
    if (!sc) return RS_EXIT_FAIL;
    rs_setup_t *c = &sc->c;
    rs_setup_default(c);
    rs_sim_config_default(&sc->o.cfg);
    rs_cli_job_init(&sc->jo);
    rs_opt_group_t *groups = sc->groups;
    groups[0] = RS_OPT_GROUP(own_opts, &sc->o), groups[1] = rs_cli_job_group(&sc->jo, "model"), groups[2] = rs_cli_shared_group(c, NULL);
    int rc = rs_cli_run_parse("sim", argc, argv, groups, 3, true);
    entry_t *es = NULL;
    int n = 0;
    rs_err_t err = {0};
    if (rc >= 0) goto done;
    sc->cfg = sc->o.cfg;
    sc->jo.model = c->model; /* -m sizes the background too */
    if (sc->o.all_pairs) sc->cfg.routes = RS_PLATFORM_ALL_PAIRS;
    rc = check_args(sc, &err);
    if (rc != RS_EXIT_OK) {
        fprintf(stderr, "ringsim sim: %s\n", err.msg);
        goto done;
    }
    if ((rc = rs_cli_check_entry_files("sim", c, groups, 3, true)) >= 0 ||
        (rc = check_limits(c, &sc->cfg, sc->o.trace || sc->o.chrome)) >= 0)
        goto done;
    rc = RS_EXIT_OK;
    n = c->n_layouts * c->n_passes;
    es = calloc((size_t)n, sizeof *es);
    if (!es) {
        rc = RS_EXIT_FAIL;
        goto done;
    }
    int k = 0;
    for (int j = 0; j < c->n_passes && rc == RS_EXIT_OK; j++)
        for (int i = 0; i < c->n_layouts && rc == RS_EXIT_OK; i++, k++) {
            es[k].problem = rs_setup_problem(c, i, j);
            rc = run_entry(sc, &es[k], &err);
        }
    if (rc == RS_EXIT_OK) {
        rs_cli_notes_now("sim", c, sc->job_note); /* every refusal made: the notes, then the outputs */
        rc = write_outputs(sc, es, n, &err);
    }
    if (rc != RS_EXIT_OK) fprintf(stderr, "ringsim sim: %s\n", err.msg);
    for (int i = 0; es && i < n; i++) rs_sim_result_free(&es[i].sim);
done:
    free(es);
    rs_sim_folds_free(sc->cfg.folds);
    rs_job_free(&sc->job);
    free(sc);
    return rc;
}

#endif
