/* study_validate_predict.c - the validation study's predictions (study_validate_state.h): at every B
 * of the sweep, each configuration's measured rounds merged into one trace (per event the median
 * start and duration), the walk's and the simulator's traces of the same schedule on the machine of
 * that B, their errors per (rank, step) and makespan, the measurement's own spread over its rounds;
 * the traces into --trace-dir. rank 0 does it, after the job's measurements. */
#include "study_validate_state.h"

#include <math.h>
#include <string.h>

#include "compare.h"
#include "cost.h"
#include "study_validate_refit.h"
#include "trace.h"

/* One trace from the rounds' traces (sorted, same events): per event the median start and the
 * median duration. The header is the first round's. NULL on OOM. */
static rs_trace_t *merge_rounds(rs_trace_t **t, int rounds) {
    rs_trace_t *m = rs_trace_create(rs_trace_source(t[0]));
    if (!m) return NULL;
    for (size_t k = 0; k < rs_trace_meta_count(t[0]); k++) {
        const char *key, *val;
        rs_trace_meta_at(t[0], k, &key, &val);
        rs_trace_set_meta(m, key, "%s", val);
    }
    rs_trace_set_meta(m, "timing", "per-event median over %d rounds of per-event medians", rounds);
    double st[RS_VALIDATE_MAX_ROUNDS], du[RS_VALIDATE_MAX_ROUNDS];
    for (size_t e = 0; e < rs_trace_count(t[0]); e++) {
        rs_event_t ev = rs_trace_events(t[0])[e];
        int n = 0;
        for (int r = 0; r < rounds; r++) {
            long x = rs_trace_find(t[r], ev.rank, ev.step, ev.pass, ev.kind);
            if (x < 0) continue;
            const rs_event_t *o = &rs_trace_events(t[r])[x];
            st[n] = o->start_s, du[n] = o->end_s - o->start_s, n++;
        }
        double a = rs_median(st, (size_t)n), b = rs_median(du, (size_t)n);
        ev.start_s = a, ev.end_s = a + b;
        if (rs_trace_add(m, &ev) < 0) {
            rs_trace_free(m);
            return NULL;
        }
    }
    rs_trace_sort(m);
    return m;
}

/* Collect |rel err| of every (rank, step) point of metric into v. The compute of a step without work
 * (every block skipped: the schedule says 0 FLOPs, the model 0 s) is not a point: the executor's
 * tens of nanoseconds walking the skipped blocks against 0 would be a -100% error of nothing. */
static void collect(const rs_compare_t *cmp, const rs_trace_t *tm, rs_cmp_metric_t metric, double *v, size_t *n) {
    for (size_t i = 0; i < cmp->n_points; i++) {
        const rs_cmp_point_t *pt = &cmp->points[i];
        if (pt->metric != metric || !isfinite(pt->rel_err)) continue;
        if (metric == RS_CMP_COMP) {
            long x = rs_trace_find(tm, pt->rank, pt->step, pt->pass, RS_EV_COMPUTE);
            if (x >= 0 && rs_trace_events(tm)[x].flops == 0) continue;
        }
        v[(*n)++] = fabs(pt->rel_err);
    }
}

/* DIR/validate-B64-exec.csv for one configuration; with several, DIR/validate-zigzag-backward-causal-B64-exec.csv. */
static int write_pair(const val_t *v, const rs_problem_t *p, int64_t B, const char *what, const rs_trace_t *t, rs_err_t *err) {
    char path[1200], tag[96] = "";
    if (v->nc > 1)
        snprintf(tag, sizeof tag, "%s-%s-%s-", rs_layout_name(p->layout), rs_pass_name(p->pass), p->causal ? "causal" : "full");
    snprintf(path, sizeof path, "%s/validate-%sB%lld-%s.csv", v->in->trace_dir, tag, (long long)B, what);
    return rs_trace_write_csv(t, path, err);
}

/* One configuration at sweep point i being predicted (rank 0): its schedule and problem at that B,
 * the measured trace (the median of the rounds), the machine of that B. */
typedef struct {
    int i;
    const rs_schedule_t *s;
    const rs_problem_t *p;
    const rs_trace_t *tm;
    const rs_machine_t *m;
} val_point_t;

/* The simulator at the point, against the measurement (rank 0). A failure is not the study's: the
 * simulator stops being asked and the summary says why. */
static void val_simulate(val_t *v, val_cfg_t *cf, const val_point_t *x) {
    const int i = x->i;
    const rs_problem_t *p = x->p;
    const rs_trace_t *tm = x->tm;
    const rs_machine_t *m = x->m;
    rs_err_t err = {0}, why;
    if (v->sim && v->sim->can_run(p, m, &why) != 0) { /* the one rule (its can_run) decides */
        snprintf(v->sim_note, sizeof v->sim_note, "%.290s", why.msg);
        v->sim = NULL;
    }
    if (!v->sim) return;
    rs_trace_t *tsim = rs_trace_create(v->sim->source);
    rs_run_summary_t sr;
    rs_compare_t cs;
    val_row_t *row = &cf->rows[i];
    if (tsim && v->sim->run(x->s, m, NULL, tsim, &sr, &err) == 0 && rs_trace_summarize(tsim, p->pass, &row->sim, &err) == 0 &&
        rs_compare_traces(tm, tsim, &cs, &err) == 0) {
        row->has_sim = true;
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) collect(&cs, tm, (rs_cmp_metric_t)k, cf->es[k], &cf->nes[k]);
        cf->mk_err_sim[cf->n_sim++] = fabs(rs_val_rel(row->sim.makespan_s, row->meas.makespan_s));
        rs_compare_free(&cs);
        if (v->in->trace_dir) write_pair(v, p, v->in->b[i], "sim", tsim, &err);
    } else {
        v->sim = NULL;
        snprintf(v->sim_note, sizeof v->sim_note, "simulator failed (see stderr)");
        fprintf(stderr, "ringsim validate: sim, B=%lld: %s\n", (long long)v->in->b[i], err.msg);
    }
    rs_trace_free(tsim);
}

int rs_validate_round_spread(rs_trace_t *const *rounds, int n_rounds, const rs_trace_t *merged, rs_pass_t pass,
                             rs_validate_spread_t *sp, rs_err_t *err) {
    rs_trace_summary_t sm, s0;
    if (n_rounds < 2) return 0;
    if (rs_trace_summarize(merged, pass, &s0, err) < 0) return rs_err_mark(err, RS_ERR_RUNTIME);
    for (int r = 0; r < n_rounds; r++) {
        rs_compare_t cmp;
        if (rs_compare_traces(merged, rounds[r], &cmp, err) < 0) return rs_err_mark(err, RS_ERR_RUNTIME);
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) collect(&cmp, merged, (rs_cmp_metric_t)k, sp->pts[k], &sp->n_pts[k]);
        rs_compare_free(&cmp);
        if (rs_trace_summarize(rounds[r], pass, &sm, err) < 0) return rs_err_mark(err, RS_ERR_RUNTIME);
        if (s0.makespan_s > 0) sp->mk[sp->n_mk++] = fabs(rs_val_rel(sm.makespan_s, s0.makespan_s));
    }
    return 0;
}

/* The machine of sweep point i: the pass's, with the stragglers of that B's kernel samples (a rank
 * more than 0.5% slower than the fastest) when they were measured; else the sweep's median ones. */
static void val_stragglers_at(const val_t *v, const val_pass_t *ps, int i, rs_machine_t *m) {
    *m = ps->m;
    if (!ps->kfac) return;
    const int64_t P = v->job->n_procs;
    rs_validate_stragglers(ps->kfac + (size_t)i * (size_t)P, P, &m->perturb);
}

int rs_val_predict_point(val_t *v, val_cfg_t *cf, int i) {
    const rs_validate_in_t *in = v->in;
    rs_machine_t mb;
    val_stragglers_at(v, &v->ps[cf->ip], i, &mb);
    const rs_machine_t *m = &mb;
    rs_err_t err = {0};
    rs_problem_t p = rs_problem_with_block(&cf->prob, in->b[i]);
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    if (!s) return RS_EXIT_USAGE;
    int rc = RS_EXIT_OK;
    rs_trace_t *tm = merge_rounds(cf->meas[i], v->rounds), *tp = rs_trace_create("model");
    rs_run_summary_t w;
    rs_closed_t cl;
    rs_compare_t cmp;
    if (!tm || !tp || rs_walk_backend.run(s, m, NULL, tp, &w, &err) < 0 || (i == 0 ? rs_model_b_star : rs_model_closed)(&p, m, &cl, &err) < 0 ||
        rs_trace_summarize(tm, p.pass, &cf->rows[i].meas, &err) < 0 || rs_trace_summarize(tp, p.pass, &cf->rows[i].pred, &err) < 0 ||
        rs_compare_traces(tm, tp, &cmp, &err) < 0) {
        fprintf(stderr, "ringsim validate: B=%lld: %s\n", (long long)in->b[i], err.msg);
        rc = RS_EXIT_FAIL;
    } else {
        if (i == 0) cf->b_star = cl.b_star_tokens;
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) collect(&cmp, tm, (rs_cmp_metric_t)k, cf->ec[k], &cf->nec[k]);
        cf->mk_err[i] = rs_val_rel(cf->rows[i].pred.makespan_s, cf->rows[i].meas.makespan_s);
        rs_compare_free(&cmp);
        if (rs_validate_round_spread(cf->meas[i], v->rounds, tm, p.pass, &cf->spread, &err) < 0) {
            fprintf(stderr, "ringsim validate: B=%lld: %s\n", (long long)in->b[i], err.msg);
            rc = RS_EXIT_FAIL;
        }
        val_simulate(v, cf, &(val_point_t){i, s, &p, tm, m});
    }
    if (rc == RS_EXIT_OK && in->trace_dir &&
        (write_pair(v, &p, in->b[i], "exec", tm, &err) < 0 || write_pair(v, &p, in->b[i], "model", tp, &err) < 0)) {
        fprintf(stderr, "ringsim validate: %s\n", err.msg);
        rc = RS_EXIT_FAIL;
    }
    rs_trace_free(tp);
    rs_trace_free(tm);
    rs_schedule_free(s);
    return rc;
}
