/* study_contention.c - concurrent rings over fabric knobs (study_contention.h). */
#ifdef RINGSIM_HAVE_SIM
#include "study_contention.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "meter.h"
#include "cost.h"
#include "plot.h"
#include "output.h"
#include "spread.h"

void rs_contention_knobs_default(rs_contention_knobs_t *k) {
    memset(k, 0, sizeof *k);
    k->tp = k->dp = 1;
    k->n_orders = 1;
    k->orders[0][0] = RS_DIM_TP;
    k->orders[0][1] = RS_DIM_CP;
    k->orders[0][2] = RS_DIM_DP;
    k->n_fabrics = 1;
    k->fabrics[0] = RS_FABRIC_FLAT;
    k->n_nics = 1;
    k->nics[0] = 0;
    k->n_oversubs = 1;
    k->oversubs[0] = 1;
    k->background.kind = RS_BG_NONE;
}

int rs_contention_job(const rs_contention_knobs_t *k, const rs_contention_pick_t *pick, const rs_problem_t *p,
                      const rs_machine_t *m, rs_job_t *job, rs_err_t *err) {
    memset(job, 0, sizeof *job);
    int rc = k->map ? rs_placement_load_map(k->map, p->n_ranks, k->devices, &job->placement, err)
                    : rs_placement_grid(&(rs_placement_degrees_t){k->tp, p->n_ranks, k->dp, k->orders[pick->order], k->devices},
                                        &job->placement, err);
    if (rc != 0) return -1;
    rs_fabric_t *f = &job->fabric;
    rs_fabric_default(f, m, job->placement.devices, rs_machine_flops_eff(m, (double)rs_problem_block(p)));
    f->kind = pick->fabric;
    if (pick->nics > 0) f->nics_per_node = pick->nics;
    if (k->nodes_per_leaf > 0) f->nodes_per_leaf = k->nodes_per_leaf;
    f->oversub = pick->oversub;
    job->background = k->background;
    if (rs_job_validate(job, err) != 0) {
        rs_job_free(job);
        return -1;
    }
    return 0;
}

size_t rs_contention_count(const rs_contention_in_t *in) {
    const rs_contention_knobs_t *k = in->knobs;
    return in->n_cases * (size_t)k->n_fabrics * (size_t)(k->map ? 1 : k->n_orders) * (size_t)k->n_oversubs * (size_t)k->n_nics;
}

const char *rs_contention_order_name(const rs_contention_knobs_t *k, int i, char *buf, size_t len) {
    static const char *const dim[RS_DIM_COUNT] = {"tp", "cp", "dp"};
    if (k->map) return "map";
    snprintf(buf, len, "%s-%s-%s", dim[k->orders[i][0]], dim[k->orders[i][1]], dim[k->orders[i][2]]);
    return buf;
}

/* Point i's case and pick (NICs fastest, then ratio, order, fabric, case). */
static void point_of(const rs_contention_in_t *in, size_t i, rs_contention_point_t *pt) {
    const rs_contention_knobs_t *k = in->knobs;
    memset(pt, 0, sizeof *pt);
    const int n_orders = k->map ? 1 : k->n_orders;
    pt->pick.nics = k->nics[i % (size_t)k->n_nics];
    i /= (size_t)k->n_nics;
    pt->pick.oversub = k->oversubs[i % (size_t)k->n_oversubs];
    i /= (size_t)k->n_oversubs;
    pt->pick.order = (int)(i % (size_t)n_orders);
    i /= (size_t)n_orders;
    pt->pick.fabric = k->fabrics[i % (size_t)k->n_fabrics];
    pt->case_index = i / (size_t)k->n_fabrics;
}

/* The NICs per node a point runs with: its knob, or (0) one per device. */
static int64_t nics_of(const rs_contention_in_t *in, const rs_contention_point_t *pt) {
    return pt->pick.nics > 0 ? pt->pick.nics : in->cases[pt->case_index].machine.devices_per_node;
}

/* The series a point belongs to in the figure: what differs except the x axis (no spaces). */
static void series_of(const rs_contention_in_t *in, rs_contention_point_t *pt, bool x_is_nics) {
    const rs_contention_knobs_t *k = in->knobs;
    const rs_contention_case_t *c = &in->cases[pt->case_index];
    char o[32], *s = pt->series;
    const size_t len = sizeof pt->series;
    s[0] = 0;
    if (in->n_cases > 1)
        snprintf(s, len, "%.48s/%s/%s/N=%lld/B=%lld/", c->profile, rs_layout_name(c->problem.layout),
                 rs_pass_name(c->problem.pass), (long long)c->problem.n_ranks, (long long)rs_problem_block(&c->problem));
    snprintf(s + strlen(s), len - strlen(s), "%s/%s", rs_fabric_kind_name(pt->pick.fabric), rs_contention_order_name(k, pt->pick.order, o, sizeof o));
    if (x_is_nics) snprintf(s + strlen(s), len - strlen(s), "/%.6g:1", pt->pick.oversub);
    else snprintf(s + strlen(s), len - strlen(s), "/K=%lld", (long long)nics_of(in, pt));
    for (char *q = s; *q; q++)
        if (*q == ' ' || *q == '\'' || *q == ',' || *q == '_') *q = '.';
}

/* Simulate one point. Returns 0, or -1 with err (its code: bad input or runtime). */
static int run_point(const rs_contention_in_t *in, size_t i, rs_contention_point_t *pt, rs_err_t *err) {
    if (rs_spread_test_failure(i, err) != 0) return -1;
    const rs_contention_case_t *c = &in->cases[pt->case_index];
    rs_job_t job;
    if (rs_contention_job(in->knobs, &pt->pick, &c->problem, &c->machine, &job, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    rs_schedule_t *s = rs_schedule_create(&c->problem, err);
    if (!s) {
        rs_job_free(&job);
        return rs_err_mark(err, RS_ERR_BAD_INPUT);
    }
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.job = &job;
    rs_sim_result_t r;
    rs_walk_t free_walk; /* one ring alone: its compute, which contention does not change */
    int rc = rs_model_walk(s, &c->machine, RS_NO_SINK, NULL, &free_walk, err);
    if (rc == 0) rc = rs_sim_run(s, &c->machine, &cfg, NULL, &r, err);
    else memset(&r, 0, sizeof r);
    if (rc == 0) {
        const rs_job_result_t *jr = r.job;
        pt->devices = job.placement.devices;
        pt->rings = jr->n_rings;
        pt->makespan_s = jr->makespan_s;
        pt->worst_ratio = 1;
        for (int64_t k = 0; k < jr->n_rings; k++) {
            const rs_ring_result_t *g = &jr->rings[k];
            if (g->walk_makespan_s > pt->free_s) pt->free_s = g->walk_makespan_s;
            if (g->slowdown > pt->slowdown) pt->slowdown = g->slowdown;
            if (g->worst_hop >= 0 && g->worst_ratio < pt->worst_ratio) pt->worst_ratio = g->worst_ratio;
        }
        pt->busy_mean_s = free_walk.busy_mean_s;
        pt->balance_efficiency = pt->makespan_s > 0 ? pt->busy_mean_s / pt->makespan_s : 1;
        pt->balance_efficiency_free = pt->free_s > 0 ? pt->busy_mean_s / pt->free_s : 1;
        const int64_t sat = rs_job_saturated_link(jr);
        if (sat >= 0) snprintf(pt->saturated, sizeof pt->saturated, "%s", jr->links[sat].name);
        for (int i = 0; i < jr->n_bg; i++)
            if (jr->bg[i].end_s > pt->bg_end_s) pt->bg_end_s = jr->bg[i].end_s;
        pt->sim_wall_s = r.sim_wall_s;
        pt->peak_rss_bytes = r.peak_rss_bytes;
    }
    rs_sim_result_free(&r);
    rs_schedule_free(s);
    rs_job_free(&job);
    return rc;
}

static void write_csv_rows(FILE *fp, const rs_contention_in_t *in, const rs_contention_out_t *out) {
    const rs_contention_knobs_t *k = in->knobs;
    char esc[8192]; /* argv may hold a newline (a file name): escaped, the header stays one line */
    if (in->command) fprintf(fp, "# command=%s\n", rs_escape(in->command, esc, sizeof esc));
    fprintf(fp, "# job: %s; background %s (%s), %.17g parameter bytes, %.17g gradient bytes per device\n",
            k->map ? k->map : "degrees", rs_bg_kind_name(k->background.kind), rs_bg_group_name(k->background.group),
            k->background.param_bytes, k->background.grad_bytes);
    fprintf(fp, "# balance_efficiency: a ring's mean per-rank compute (each call at its own rate) over the job's makespan "
                "(free: over the slowest ring's contention-free walk), in [0, 1] (docs/model.md \"Metrics\"); slowdown: "
                "worst ring, makespan / its own walk\n");
    fprintf(fp, "series,profile,layout,pass,n_ranks,block_tokens,tp,dp,devices,rings,fabric,order,nodes_per_leaf,nics,oversub,"
                "makespan_s,free_makespan_s,slowdown,balance_efficiency,balance_efficiency_free,worst_hop_ratio,saturated_link,bg_end_s,"
                "sim_wall_s,peak_rss_bytes\n");
    char o[32];
    for (size_t i = 0; i < out->done; i++) {
        const rs_contention_point_t *pt = &out->points[i];
        const rs_contention_case_t *c = &in->cases[pt->case_index];
        fprintf(fp, "%s,%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%lld,%s,%s,%lld,%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%s,%.17g,"
                    "%.17g,%ld\n",
                pt->series, c->profile, rs_layout_name(c->problem.layout), rs_pass_name(c->problem.pass),
                (long long)c->problem.n_ranks, (long long)rs_problem_block(&c->problem), (long long)(k->map ? 0 : k->tp),
                (long long)(k->map ? 0 : k->dp), (long long)pt->devices, (long long)pt->rings, rs_fabric_kind_name(pt->pick.fabric),
                rs_contention_order_name(k, pt->pick.order, o, sizeof o), (long long)k->nodes_per_leaf,
                (long long)nics_of(in, pt), pt->pick.oversub, pt->makespan_s, pt->free_s, pt->slowdown,
                pt->balance_efficiency, pt->balance_efficiency_free, pt->worst_ratio, pt->saturated, pt->bg_end_s, pt->sim_wall_s,
                pt->peak_rss_bytes);
    }
}

static int write_outputs(const rs_contention_in_t *in, const rs_contention_out_t *out, rs_err_t *err) {
    if (!in->csv) return 0;
    rs_output_t csv;
    if (rs_output_open(&csv, in->csv, err) != 0) return -1;
    write_csv_rows(csv.fp, in, out);
    if (rs_output_close(&csv, err) != 0) return -1;
    if (csv.to_stdout || !in->figure) return 0;
    rs_plot_opts_t po;
    memset(&po, 0, sizeof po);
    return rs_plot_render(RS_PLOT_CONTENTION, in->csv, in->figure, &po, err) != 0 ? -1 : 0;
}

/* Check every point's job before anything runs. Returns 0 or -1 with err ("point 3: ..."). */
static int check_points(const rs_contention_in_t *in, rs_contention_out_t *out, bool x_is_nics, rs_err_t *err) {
    for (size_t i = 0; i < out->n; i++) {
        rs_contention_point_t *pt = &out->points[i];
        point_of(in, i, pt);
        series_of(in, pt, x_is_nics);
        rs_job_t job;
        const rs_contention_case_t *c = &in->cases[pt->case_index];
        if (rs_contention_job(in->knobs, &pt->pick, &c->problem, &c->machine, &job, err) != 0) return -1;
        rs_job_free(&job);
    }
    return 0;
}

int rs_contention_estimate(const rs_contention_in_t *in, rs_estimate_t *e, rs_err_t *err) {
    *e = (rs_estimate_t){0, 0, 0};
    const rs_contention_knobs_t *k = in->knobs;
    if (in->n_cases < 1 || k->n_fabrics < 1 || k->n_orders < 1 || k->n_nics < 1 || k->n_oversubs < 1) return 0;
    for (size_t i = 0, n = rs_contention_count(in); i < n; i++) {
        rs_contention_point_t pt;
        point_of(in, i, &pt);
        const rs_contention_case_t *c = &in->cases[pt.case_index];
        rs_job_t job;
        if (rs_contention_job(k, &pt.pick, &c->problem, &c->machine, &job, err) != 0) return -1;
        rs_sim_config_t cfg;
        rs_sim_config_default(&cfg);
        cfg.job = &job;
        rs_estimate_t one;
        rs_sim_estimate(&c->problem, &c->machine, &cfg, RS_EST_NO_TRACE, &one);
        rs_estimate_then(e, &one);
        rs_job_free(&job);
    }
    return 0;
}

/* Point i (pt) of a rank's share (spread.h's run; ctx: the study's input): "point 3 (...): ..." on
 * failure, its kind kept. */
static int spread_point(const void *ctx, size_t i, void *item, rs_err_t *err) {
    rs_contention_point_t *pt = item;
    rs_err_t e = {0};
    return run_point(ctx, i, pt, &e) == 0 ? 0 : rs_errc(err, e.code, "point %zu (%s): %s", i, pt->series, e.msg);
}

/* The points over the launcher's processes; rank 0 writes. Returns 0 or -1 with err. */
static int run_distributed(const rs_contention_in_t *in, rs_contention_out_t *out, rs_err_t *err) {
    const rs_spread_t sp = {"points", "contention (rank 0's share)", out->n, sizeof *out->points, out->points, spread_point, in,
                            in->progress};
    if (rs_spread_run(&sp, &out->worker, err) != 0) return -1;
    if (out->worker) return 0;
    out->done = out->n;
    return write_outputs(in, out, err) != 0 ? rs_err_mark(err, RS_ERR_RUNTIME) : 0;
}

int rs_study_contention(const rs_contention_in_t *in, rs_contention_out_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    const rs_contention_knobs_t *k = in->knobs;
    if (in->n_cases < 1 || k->n_fabrics < 1 || k->n_orders < 1 || k->n_nics < 1 || k->n_oversubs < 1)
        return rs_errc(err, RS_ERR_BAD_INPUT, "contention: nothing to simulate");
    if (in->figure && (!in->csv || !strcmp(in->csv, "-")))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--figure %s: needs the points in a CSV file (-o FILE.csv)", in->figure);
    out->n = rs_contention_count(in);
    out->points = calloc(out->n, sizeof *out->points);
    if (!out->points) return rs_errc(err, RS_ERR_RUNTIME, "contention: out of memory for %zu points", out->n);
    const bool x_is_nics = k->n_nics > 1 || k->n_oversubs == 1;
    if (check_points(in, out, x_is_nics, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    if (in->distribute && rs_spread_ranks() > 1) return run_distributed(in, out, err);
    rs_meter_t meter; /* on a terminal: "contention 3/8 points K=4: efficiency 0.9312 (37%), 12 s left" */
    if (in->progress) rs_meter_start(&meter, "contention", (double)out->n, "points");
    for (size_t i = 0; i < out->n; i++) {
        if (spread_point(in, i, &out->points[i], err) != 0) { /* its kind: run_point's */
            if (in->progress) rs_meter_end(&meter);
            return -1;
        }
        out->done = i + 1;
        if (in->progress)
            rs_meter_update(&meter, (double)(i + 1), "%s K=%lld: balance efficiency %.4f",
                            out->points[i].series, (long long)nics_of(in, &out->points[i]), out->points[i].balance_efficiency);
    }
    if (in->progress) rs_meter_end(&meter);
    return write_outputs(in, out, err) != 0 ? rs_err_mark(err, RS_ERR_RUNTIME) : 0;
}

#endif /* RINGSIM_HAVE_SIM */
