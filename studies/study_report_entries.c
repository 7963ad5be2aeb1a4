/* study_report_entries.c - the report's entries (study_report_state.h): every layout x pass of the
 * setup's problem on its machine - the closed form with B*, the critical-path walk with its traces
 * (CSV and Chrome JSON) and per-rank busy time, the simulator's traces and their per-step comparison
 * with the walk; data/busy-PASS.csv, summary.csv. */
#include "study_report_state.h"

#include <stdlib.h>

#include "output.h"
#include "trace.h"

/* The simulated side of one entry: its traces and its comparison with the model's trace t. */
static int entry_sim(report_t *r, entry_t *e, const rs_schedule_t *s, const rs_trace_t *t, rs_err_t *err) {
    const rs_problem_t *p = &e->problem;
    const char *lay = rs_layout_name(p->layout), *pass = rs_pass_name(p->pass);
    rs_run_summary_t sum;
    rs_trace_t *st = rs_trace_create(r->sim->source);
    int rc = 0;
    if (!st || r->sim->run(s, r->m, NULL, st, &sum, err) != 0) {
        rc = -1;
    } else {
        rs_trace_sort(st);
        e->has_sim = true;
        e->sim_makespan_s = sum.makespan_s;
        snprintf(r->path, sizeof r->path, "%s/traces/sim-%s-%s.csv", r->dir, lay, pass);
        snprintf(r->path2, sizeof r->path2, "%s/traces/sim-%s-%s.json", r->dir, lay, pass);
        if (rs_trace_write_csv(st, r->path, err) != 0 || rs_trace_write_chrome(st, r->path2, err) != 0 ||
            rs_compare_traces(st, t, &e->cmp, err) != 0)
            rc = -1;
        snprintf(r->path, sizeof r->path, "%s/data/compare-%s-%s.csv", r->dir, lay, pass);
        char na[200], nb[200];
        snprintf(na, sizeof na, "sim-%s-%s.csv (sim)", lay, pass);
        snprintf(nb, sizeof nb, "model-%s-%s.csv (model)", lay, pass);
        if (rc == 0 && rs_compare_write_csv(&e->cmp, na, nb, r->path, err) != 0) rc = -1;
    }
    rs_trace_free(st);
    return rc;
}

/* One entry: the closed form, the walk (per-rank busy time), its traces, the simulator's. */
static int report_entry(report_t *r, entry_t *e, rs_err_t *err) {
    const rs_problem_t *p = &e->problem;
    e->busy_s = calloc((size_t)p->n_ranks, sizeof *e->busy_s);
    rs_schedule_t *s = rs_schedule_create(p, err);
    rs_trace_t *t = rs_trace_create("model");
    rs_backend_opts_t bo;
    rs_backend_opts_default(&bo);
    bo.rank_busy_s = e->busy_s;
    int rc = 0;
    if (!e->busy_s || !s || !t || rs_model_b_star(p, r->m, &e->closed, err) != 0 ||
        rs_walk_backend.run(s, r->m, &bo, t, &e->walk, err) != 0)
        rc = -1;
    if (rc == 0) {
        rs_trace_sort(t);
        snprintf(r->path, sizeof r->path, "%s/traces/model-%s-%s.csv", r->dir, rs_layout_name(p->layout), rs_pass_name(p->pass));
        snprintf(r->path2, sizeof r->path2, "%s/traces/model-%s-%s.json", r->dir, rs_layout_name(p->layout),
                 rs_pass_name(p->pass));
        if (rs_trace_write_csv(t, r->path, err) != 0 || rs_trace_write_chrome(t, r->path2, err) != 0) rc = -1;
    }
    if (rc == 0 && r->sim) rc = entry_sim(r, e, s, t, err);
    rs_trace_free(t);
    rs_schedule_free(s);
    return rc;
}

/* Per-rank busy time, one file per pass (all three layouts needed). */
static int report_busy(report_t *r, rs_err_t *err) {
    const rs_setup_t *c = r->c;
    for (int j = 0; j < c->n_passes; j++) {
        const entry_t *byl[RS_LAYOUT_COUNT] = {NULL, NULL, NULL};
        for (int i = 0; i < c->n_layouts; i++) byl[r->es[j * c->n_layouts + i].problem.layout] = &r->es[j * c->n_layouts + i];
        if (!byl[0] || !byl[1] || !byl[2]) continue;
        snprintf(r->path, sizeof r->path, "%s/data/busy-%s.csv", r->dir, rs_pass_name(c->passes[j]));
        rs_file_t f;
        if (rs_file_open(&f, r->path, err) != 0) return -1;
        fprintf(f.fp, "# per-rank compute (busy) time of the model's critical-path walk, seconds; %s pass, %s\n",
                rs_pass_name(c->passes[j]), r->p0->causal ? "causal" : "non-causal");
        fprintf(f.fp, "rank,contiguous,striped,zigzag\n");
        for (int64_t k = 0; k < r->p0->n_ranks; k++)
            fprintf(f.fp, "%lld,%.17g,%.17g,%.17g\n", (long long)k, byl[0]->busy_s[k], byl[1]->busy_s[k], byl[2]->busy_s[k]);
        if (rs_file_commit(&f, err) != 0) return -1;
        r->have_busy[c->passes[j]] = true;
    }
    return 0;
}

/* summary.csv: the numbers the report states, at full precision (tests compare them to the model). */
static int report_summary(report_t *r, rs_err_t *err) {
    snprintf(r->path, sizeof r->path, "%s/summary.csv", r->dir);
    rs_file_t f;
    if (rs_file_open(&f, r->path, err) != 0) return -1;
    fprintf(f.fp, "# ringsim report summary: closed form and critical-path walk per layout and pass\n"
                  "layout,pass,block_tokens,b_min_tokens,b_star_tokens,t_comp_s,t_comm_s,t_step_s,bound,makespan_s,"
                  "balance_efficiency,fraction_of_peak,busy_max_s,busy_mean_s,comm_bound_steps,rank_steps,sim_makespan_s\n");
    for (int k = 0; k < r->ne; k++) {
        const entry_t *e = &r->es[k];
        fprintf(f.fp, "%s,%s,%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%lld,%lld,",
                rs_layout_name(e->problem.layout), rs_pass_name(e->problem.pass), (long long)e->closed.block_tokens,
                e->closed.b_min_tokens, e->closed.b_star_tokens, e->closed.t_comp_s, e->closed.t_comm_s, e->closed.t_step_s,
                e->closed.comm_bound ? "comm" : "compute", e->walk.makespan_s, e->walk.balance_efficiency, e->walk.fraction_of_peak,
                e->walk.busy_max_s, e->walk.busy_mean_s, (long long)e->walk.comm_bound_steps, (long long)e->walk.rank_steps);
        if (e->has_sim) fprintf(f.fp, "%.17g\n", e->sim_makespan_s);
        else fprintf(f.fp, "nan\n");
    }
    return rs_file_commit(&f, err);
}

int rs_rep_entries(report_t *r, rs_err_t *err) {
    const rs_setup_t *c = r->c;
    r->ne = c->n_layouts * c->n_passes;
    r->es = calloc((size_t)r->ne, sizeof *r->es);
    if (!r->es) return rs_errf(err, "out of memory");
    rs_meter_t m;
    rs_meter_start(&m, "entries", r->ne, "layout x pass");
    for (int j = 0; j < c->n_passes; j++)
        for (int i = 0; i < c->n_layouts; i++) {
            entry_t *e = &r->es[j * c->n_layouts + i];
            e->problem = rs_setup_problem(c, i, j);
            if (report_entry(r, e, err) != 0) return rs_meter_end(&m), -1;
            rs_meter_update(&m, j * c->n_layouts + i + 1, NULL);
        }
    rs_meter_end(&m);
    if (report_busy(r, err) != 0 || report_summary(r, err) != 0) return -1;
    return 0;
}
