/* job_report.c - what a planner reads from a simulated job: per ring, per hop, per link (job_opts.h). */
#ifdef RINGSIM_HAVE_SIM
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job_opts.h"
#include "output.h"

/* achieved bandwidth of a hop over the pass, bytes/s (0 when nothing moved) */
static double hop_bw(const rs_hop_result_t *h) { return h->flow_s > 0 ? h->bytes / h->flow_s : 0; }

static double link_mean_util(const rs_link_result_t *l, double makespan_s) {
    return makespan_s > 0 && l->capacity_bw > 0 ? l->bytes / (l->capacity_bw * makespan_s) : 0;
}

static void print_job_header(FILE *out, const rs_job_t *job) {
    const rs_placement_t *p = &job->placement;
    char desc[600];
    fprintf(out, "# job: %s: %" PRId64 " ring%s of %" PRId64 " ranks on %" PRId64 " devices\n", p->source, p->n_rings,
            p->n_rings == 1 ? "" : "s", p->ring_ranks, p->devices);
    fprintf(out, "# fabric: %s\n", rs_fabric_describe(&job->fabric, desc, sizeof desc));
    const rs_background_t *bg = &job->background;
    if (bg->kind == RS_BG_NONE) {
        fprintf(out, "# background: none\n");
        return;
    }
    fprintf(out, "# background: %s over %s groups, one layer (%s): %.6g MB parameters, %.6g MB gradients per device\n",
            rs_bg_kind_name(bg->kind), rs_bg_group_name(bg->group), bg->model[0] ? bg->model : "--bg-bytes",
            bg->param_bytes / 1e6, bg->grad_bytes / 1e6);
}

static int cmp_slowdown_desc(const void *a, const void *b) {
    const rs_ring_result_t *x = *(rs_ring_result_t *const *)a, *y = *(rs_ring_result_t *const *)b;
    return (x->slowdown < y->slowdown) - (x->slowdown > y->slowdown);
}

static void print_ring(FILE *out, const rs_job_result_t *r, int64_t k) {
    const rs_ring_result_t *ring = &r->rings[k];
    char a[32], b[32];
    const rs_hop_result_t *h = ring->worst_hop >= 0 ? &r->hops[k * (r->n_hops / r->n_rings) + ring->worst_hop] : NULL;
    fprintf(out, "%6" PRId64 " %12s %12s %9.4f %6" PRId64, k, rs_fmt_time(ring->makespan_s, a, sizeof a),
            rs_fmt_time(ring->walk_makespan_s, b, sizeof b), ring->slowdown, ring->inter_hops);
    if (h)
        fprintf(out, " %6" PRId64 " %6" PRId64 "->%-6" PRId64 " %9.3f %9.3f %7.4f %s\n", h->rank, h->src, h->dst,
                hop_bw(h) / 1e9, h->nominal_bw / 1e9, ring->worst_ratio,
                h->bottleneck >= 0 ? r->links[h->bottleneck].name : "-");
    else
        fprintf(out, " %6s %14s %9s %9s %7s %s\n", "-", "-", "-", "-", "-", "-");
}

static void print_rings(FILE *out, const rs_job_result_t *r) {
    fprintf(out, "%6s %12s %12s %9s %6s %6s %14s %9s %9s %7s %s\n", "ring", "makespan", "walk", "slowdown", "inter",
            "worst", "devices", "GB/s", "nominal", "ratio", "bottleneck");
    if (r->n_rings <= 32) {
        for (int64_t k = 0; k < r->n_rings; k++) print_ring(out, r, k);
        return;
    }
    const rs_ring_result_t **order = malloc(sizeof *order * (size_t)r->n_rings);
    if (!order) return;
    for (int64_t k = 0; k < r->n_rings; k++) order[k] = &r->rings[k];
    qsort(order, (size_t)r->n_rings, sizeof *order, cmp_slowdown_desc);
    for (int i = 0; i < 16; i++) print_ring(out, r, order[i] - r->rings);
    fprintf(out, "# ... %" PRId64 " more rings (the 16 slowest are shown; --csv FILE lists all); fastest slowdown %.4f\n",
            r->n_rings - 16, order[r->n_rings - 1]->slowdown);
    free(order);
}

static int cmp_load_desc(const void *a, const void *b) {
    const rs_link_result_t *x = *(rs_link_result_t *const *)a, *y = *(rs_link_result_t *const *)b;
    const double lx = x->bytes / x->capacity_bw, ly = y->bytes / y->capacity_bw;
    return (lx < ly) - (lx > ly);
}

static void print_links(FILE *out, const rs_job_result_t *r) {
    if (r->n_links == 0) return;
    const rs_link_result_t **order = malloc(sizeof *order * (size_t)r->n_links);
    if (!order) return;
    for (int64_t i = 0; i < r->n_links; i++) order[i] = &r->links[i];
    qsort(order, (size_t)r->n_links, sizeof *order, cmp_load_desc);
    char a[32], b[32];
    fprintf(out, "# links, most loaded first (time at full rate = bytes / capacity):\n");
    fprintf(out, "%-16s %10s %12s %12s %12s %9s %9s %8s\n", "link", "GB/s", "GB", "at_full", "busy", "busy_use", "mean_use",
            "flows");
    const int64_t show = r->n_links < 8 ? r->n_links : 8;
    for (int64_t i = 0; i < show; i++) {
        const rs_link_result_t *l = order[i];
        fprintf(out, "%-16s %10.4g %12.6g %12s %12s %8.2f%% %8.2f%% %8" PRId64 "\n", l->name, l->capacity_bw / 1e9,
                l->bytes / 1e9, rs_fmt_time(l->bytes / l->capacity_bw, a, sizeof a), rs_fmt_time(l->busy_s, b, sizeof b),
                100 * rs_link_busy_util(l), 100 * link_mean_util(l, r->makespan_s), l->flows);
    }
    free(order);
    const int64_t sat = rs_job_saturated_link(r);
    if (sat >= 0)
        fprintf(out, "# saturates: %s (%.4g GB/s), at capacity whenever it carries traffic, %s of the %s pass\n",
                r->links[sat].name, r->links[sat].capacity_bw / 1e9,
                rs_fmt_time(r->links[sat].bytes / r->links[sat].capacity_bw, a, sizeof a), rs_fmt_time(r->makespan_s, b, sizeof b));
    else
        fprintf(out, "# saturates: no link runs at capacity whenever it carries traffic\n");
}

static void print_background(FILE *out, const rs_job_result_t *r) {
    char a[32], b[32];
    for (int i = 0; i < r->n_bg; i++) {
        const rs_bg_result_t *g = &r->bg[i];
        const double exposed = g->end_s - r->makespan_s;
        fprintf(out, "# background %s: %" PRId64 " group%s of %" PRId64 ", %.6g MB sent per member, ends at %s: %s%s\n",
                g->name, g->groups, g->groups == 1 ? "" : "s", g->members, g->bytes / 1e6,
                rs_fmt_time(g->end_s, a, sizeof a), exposed > 0 ? rs_fmt_time(exposed, b, sizeof b) : "hidden",
                exposed > 0 ? " after the rings (exposed)" : " behind the rings");
    }
}

void rs_cli_job_print(FILE *out, const rs_job_t *job, const rs_cli_job_entry_t *es, int n) {
    print_job_header(out, job);
    for (int i = 0; i < n; i++) {
        const rs_job_result_t *r = es[i].sim->job;
        const rs_problem_t *p = es[i].problem;
        char a[32], b[32];
        double worst = 0;
        for (int64_t k = 0; k < r->n_rings; k++)
            if (r->rings[k].slowdown > worst) worst = r->rings[k].slowdown;
        const rs_sim_result_t *sim = es[i].sim;
        fprintf(out, "\n# %s %s, B=%lld: job makespan %s, worst ring slowdown %.4f against its contention-free walk\n",
                rs_layout_name(p->layout), rs_pass_name(p->pass), (long long)rs_problem_block(p),
                rs_fmt_time(r->makespan_s, a, sizeof a), worst);
        fprintf(out, "# simulated %" PRId64 " rank-steps (%" PRId64 " SimGrid activities, %s engine) in %.3f s (%s each), peak RSS %.1f MB\n",
                sim->fig.rank_steps, sim->activities, rs_sim_engine_name(sim->engine), sim->sim_wall_s,
                rs_fmt_time(sim->fig.rank_steps > 0 ? sim->sim_wall_s / (double)sim->fig.rank_steps : 0, b, sizeof b),
                (double)sim->peak_rss_bytes / 1e6);
        if (sim->fold_copies > 1)
            fprintf(out, "# folded: %" PRId64 " identical copies of %" PRId64 " rank-steps by the job's symmetry, one simulated (docs/sim.md, \"Folding\")\n",
                    sim->fold_copies, sim->fig.rank_steps / sim->fold_copies);
        print_rings(out, r);
        print_links(out, r);
        print_background(out, r);
    }
    fprintf(out, "# slowdown: ring makespan / the walk of that ring alone as placed (its hops at their tier's\n"
                 "# bandwidth); worst: its hop with the lowest achieved / nominal bandwidth and that hop's busiest\n"
                 "# link; busy_use: bytes / (capacity x time it carried a flow), 100%% = saturated; mean_use:\n"
                 "# over the job's makespan.\n");
}

/* A per-entry CSV table of a job: its header line, its rows per entry, and row k of entry e. */
typedef struct {
    const char *header;
    int64_t (*rows)(const rs_job_result_t *r);
    void (*row)(FILE *fp, const rs_cli_job_entry_t *e, int64_t k);
} job_table_t;

static int64_t n_rings(const rs_job_result_t *r) { return r->n_rings; }
static int64_t n_hops(const rs_job_result_t *r) { return r->n_hops; }
static int64_t n_links(const rs_job_result_t *r) { return r->n_links; }

static void ring_row(FILE *fp, const rs_cli_job_entry_t *e, int64_t k) {
    const rs_ring_result_t *g = &e->sim->job->rings[k];
    fprintf(fp, "%s,%s,%lld,%" PRId64 ",%.17g,%.17g,%.17g,%" PRId64 ",%" PRId64 ",%.17g,%.17g,%ld,%" PRId64 "\n",
            rs_layout_name(e->problem->layout), rs_pass_name(e->problem->pass), (long long)rs_problem_block(e->problem), k,
            g->makespan_s, g->walk_makespan_s, g->slowdown, g->inter_hops, g->worst_hop, g->worst_ratio, e->sim->sim_wall_s,
            e->sim->peak_rss_bytes, e->sim->fold_copies);
}

static void hop_row(FILE *fp, const rs_cli_job_entry_t *e, int64_t k) {
    const rs_job_result_t *r = e->sim->job;
    const rs_hop_result_t *h = &r->hops[k];
    fprintf(fp, "%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%s\n",
            rs_layout_name(e->problem->layout), rs_pass_name(e->problem->pass), h->ring, h->rank, h->src, h->dst,
            h->inter ? 1 : 0, h->nominal_bw, hop_bw(h), h->min_bw, hop_bw(h) / h->nominal_bw, h->bytes, h->flow_s, h->latency_s,
            h->bottleneck >= 0 ? r->links[h->bottleneck].name : "");
}

static void link_row(FILE *fp, const rs_cli_job_entry_t *e, int64_t k) {
    const rs_job_result_t *r = e->sim->job;
    const rs_link_result_t *l = &r->links[k];
    fprintf(fp, "%s,%s,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%" PRId64 "\n", rs_layout_name(e->problem->layout),
            rs_pass_name(e->problem->pass), l->name, l->capacity_bw, l->bytes, l->busy_s, rs_link_busy_util(l),
            link_mean_util(l, r->makespan_s), l->flows);
}

static const job_table_t rings_table = {"layout,pass,block_tokens,ring,makespan_s,walk_makespan_s,slowdown,inter_hops,"
                                        "worst_hop,worst_ratio,sim_wall_s,peak_rss_bytes,fold_copies",
                                        n_rings, ring_row};
static const job_table_t hops_table = {"layout,pass,ring,rank,src_device,dst_device,inter,nominal_bw,achieved_bw,min_step_bw,"
                                       "ratio,bytes,flow_s,latency_s,bottleneck",
                                       n_hops, hop_row};
static const job_table_t links_table = {"layout,pass,link,capacity_bw,bytes,busy_s,busy_util,mean_util,flows", n_links,
                                        link_row};

/* Table t of every entry into path ("-" = stdout). Returns 0 or -1 with err. */
static int write_table(const job_table_t *t, const char *path, const rs_cli_job_entry_t *es, int n, rs_err_t *err) {
    rs_output_t out;
    if (rs_output_open(&out, path, err) != 0) return -1;
    fprintf(out.fp, "%s\n", t->header);
    for (int i = 0; i < n; i++)
        for (int64_t k = 0; k < t->rows(es[i].sim->job); k++) t->row(out.fp, &es[i], k);
    return rs_output_close(&out, err);
}

int rs_cli_job_write_rings(const char *path, const rs_cli_job_entry_t *es, int n, rs_err_t *err) {
    return write_table(&rings_table, path, es, n, err);
}

int rs_cli_job_write_hops(const char *path, const rs_cli_job_entry_t *es, int n, rs_err_t *err) {
    return write_table(&hops_table, path, es, n, err);
}

int rs_cli_job_write_links(const char *path, const rs_cli_job_entry_t *es, int n, rs_err_t *err) {
    return write_table(&links_table, path, es, n, err);
}

#endif /* RINGSIM_HAVE_SIM */
