/* study_fromtrace_validate.c - traces of a run predicted with a profile and compared
 * (study_fromtrace_validate.h): the walk's prediction of each trace's problem, its comparison with
 * the trace, the files of each, the tables. */
#include "study_fromtrace_validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "kernel.h"
#include "plot.h"

/* The model's role events of (rank, step) in its predicted trace t: attn over [c.start, + attn_s],
 * merge (merge_s >= 0: a preset; < 0: the dense model has no merge term) from there to the later of
 * its own end, the compute's end and end_s (its after-arrival and deferred merges run up to there; 0:
 * none). Returns 0 or -1 on OOM. */
static int add_step_roles(rs_trace_t *t, const rs_event_t *c, double attn_s, double merge_s, double end_s) {
    /* busy within its span to the last bit (start + busy - start may round below busy) */
    rs_role_event_t a = {c->rank, c->step, c->pass, RS_ROLE_ATTN, c->start_s, c->start_s + attn_s, 0};
    a.busy_s = fmin(attn_s, a.end_s - a.start_s);
    if (rs_trace_add_role(t, &a) != 0) return -1;
    if (merge_s < 0) return 0;
    rs_role_event_t g = {c->rank, c->step, c->pass, RS_ROLE_MERGE, a.end_s, fmax(fmax(a.end_s + merge_s, c->end_s), end_s), 0};
    g.busy_s = fmin(merge_s, g.end_s - g.start_s);
    return rs_trace_add_role(t, &g);
}

/* A computing (rank, step) of the prediction whose roles are not written yet: its compute event ci
 * (-1: none), its attention time, its merges (inline and after the arrival) and those after the
 * arrival alone. */
typedef struct {
    long ci;
    double attn_s, merge_s, after_s;
} pending_roles_t;

/* The roles of the pending step p in t (add_step_roles): its merges plus epi_s, the merges deferred
 * to the epilogue when it is the rank's last computing step; merges up to the step event's end plus
 * its after-arrival ones when it has either. pre: the model has a merge term (a preset). */
static int write_pending(rs_trace_t *t, const pending_roles_t *p, double epi_s, bool pre) {
    const rs_event_t *c = &rs_trace_events(t)[p->ci];
    double end_s = 0;
    if (p->after_s > 0 || epi_s > 0) {
        const long si = rs_trace_find(t, c->rank, c->step, c->pass, RS_EV_STEP);
        end_s = (si >= 0 ? rs_trace_events(t)[si].end_s : 0) + p->after_s;
    }
    return add_step_roles(t, c, p->attn_s, pre ? p->merge_s + epi_s : -1, end_s);
}

/* The model's role events in its prediction t of schedule s on machine m (docs/traces.md "Role
 * events"), per (rank, step) with a compute event: attn = its attention calls' time; with a preset,
 * merge = its merges inline, those of the incoming dK,dV partial after its arrival, and at the
 * rank's last computing step the merges it deferred to the pass epilogue (docs/model.md section 3a);
 * each x the rank's straggler factor, the inline work x its jitter as the compute is. The epilogue's
 * own conversions (rs_kernel_epilogue's bytes: flash-attn's out.to(q.dtype), ringsim's finalize
 * kernel) are in no role: a trace has them as a cast or other kernel (import_kclass.c), not a merge.
 * Launches and host costs are in no role; the model has no cast or other term. One walk over each
 * rank's steps: a step's roles are written when the next computing step, or the rank's end, shows
 * whether it is the last. Returns 0 or -1 on OOM. */
static int add_model_roles(const rs_schedule_t *s, const rs_machine_t *m, rs_trace_t *t) {
    const rs_problem_t *p = rs_schedule_problem(s);
    rs_kmodel_t km;
    rs_kmodel_init(&km, p, m);
    const int64_t ns = rs_schedule_n_steps(s);
    const bool pre = km.pre != NULL;
    int rc = 0;
    for (int64_t r = 0; rc == 0 && r < p->n_ranks; r++) {
        const double slow = rs_kernel_rank_slow(&km, r);
        double deferred_s = 0; /* the rank's deferred merges so far, run after its last computing step */
        pending_roles_t last = {-1, 0, 0, 0};
        for (int64_t k = 0; rc == 0 && k < ns; k++) {
            rs_step_t st;
            rs_schedule_step(s, r, k, &st);
            const long ci = st.has_compute ? rs_trace_find(t, (int32_t)r, (int32_t)k, p->pass, RS_EV_COMPUTE) : -1;
            if (ci < 0) continue;
            if (last.ci >= 0) rc = write_pending(t, &last, 0, pre); /* not the last computing step */
            rs_kstep_t ks;
            rs_kernel_step(&km, &st, &ks);
            deferred_s += ks.deferred_s * slow;
            const double jit = rs_machine_jitter(m, r, k), after = ks.after_s * slow;
            last = (pending_roles_t){ci, ks.calls_s * slow * jit, (ks.scaled_s - ks.calls_s) * slow * jit + after, after};
        }
        if (rc == 0 && last.ci >= 0) rc = write_pending(t, &last, deferred_s, pre);
    }
    return rc;
}

/* The walk's prediction of trace i's problem on machine m, sorted. NULL with err: bad input (the
 * profile cannot run the problem), runtime (the walk). */
static rs_trace_t *predict(const rs_tset_t *ts, int i, const rs_machine_t *m, rs_err_t *err) {
    rs_err_t why = {0};
    if (rs_walk_backend.can_run(rs_tset_problem(ts, i), m, &why) != 0) {
        rs_errc(err, RS_ERR_BAD_INPUT, "%s: the profile cannot run its problem: %s", rs_tset_path(ts, i), why.msg);
        return NULL;
    }
    rs_trace_t *t = rs_trace_create(rs_walk_backend.source);
    rs_backend_opts_t bo;
    rs_backend_opts_default(&bo);
    rs_run_summary_t sum;
    if (!t || rs_walk_backend.run(rs_tset_schedule(ts, i), m, &bo, t, &sum, err) != 0) {
        if (!t) rs_errf(err, "out of memory");
        rs_err_mark(err, RS_ERR_RUNTIME);
        rs_trace_free(t);
        return NULL;
    }
    if (rs_tval_model_roles(rs_tset_schedule(ts, i), m, t) != 0) {
        rs_errc(err, RS_ERR_RUNTIME, "out of memory");
        rs_trace_free(t);
        return NULL;
    }
    return t;
}

/* The files of trace i (problem p) in dir: DIR/<what>I-B<B>-<pass>.<ext>. */
typedef struct {
    char pred[4096];  /* predI-...csv: the predicted trace */
    char cmp[4096];   /* cmpI-...csv: the per-step points */
    char fig[4096];   /* pred-vs-measI-...png */
} out_files_t;

static void out_files(const char *dir, int i, const rs_problem_t *p, out_files_t *o) {
    const long long b = (long long)rs_problem_block(p);
    const char *pass = rs_pass_name(p->pass);
    snprintf(o->pred, sizeof o->pred, "%s/pred%d-B%lld-%s.csv", dir, i, b, pass);
    snprintf(o->cmp, sizeof o->cmp, "%s/cmp%d-B%lld-%s.csv", dir, i, b, pass);
    snprintf(o->fig, sizeof o->fig, "%s/pred-vs-meas%d-B%lld-%s.png", dir, i, b, pass);
}

/* The predicted trace, the per-step CSV and the pred-vs-meas figure of trace i into dir. Returns 0
 * or -1 with err. */
static int write_outputs(const rs_tset_t *ts, int i, const rs_trace_t *pred, const rs_compare_t *cmp, const char *dir,
                         rs_err_t *err) {
    static out_files_t o; /* 12 KiB of paths: not on the stack */
    char title[512];
    const rs_problem_t *p = rs_tset_problem(ts, i);
    out_files(dir, i, p, &o);
    if (rs_trace_write_csv(pred, o.pred, err) != 0 || rs_compare_write_csv(cmp, rs_tset_path(ts, i), "model", o.cmp, err) != 0)
        return -1;
    snprintf(title, sizeof title, "B = %lld, %s: model vs trace", (long long)rs_problem_block(p), rs_pass_name(p->pass));
    rs_plot_opts_t po = {.title = title, .xlabel = "traced duration (s)", .ylabel = "predicted duration (s)"};
    return rs_plot_render(RS_PLOT_PRED_VS_MEAS, o.cmp, o.fig, &po, err) == 0 ? 0 : -1;
}

int rs_tval_run(const rs_tset_t *ts, const rs_hw_t *hw, rs_dtype_t dtype, const char *out_dir, rs_tval_row_t *rows,
                rs_err_t *err) {
    memset(rows, 0, sizeof *rows * (size_t)rs_tset_count(ts));
    rs_machine_t m;
    rs_err_t e = {0};
    if (rs_machine_from_hw(hw, dtype, &m, &e) != 0) return rs_errc(err, RS_ERR_BAD_INPUT, "the profile: %s", e.msg);
    int rc = 0;
    for (int i = 0; rc == 0 && i < rs_tset_count(ts); i++) {
        rows[i].problem = *rs_tset_problem(ts, i);
        rs_trace_t *pred = predict(ts, i, &m, err);
        if (!pred) {
            rc = -1;
            break;
        }
        /* the trace's events were checked at load (rs_tset_load): its header against the prediction's, and the prediction's events */
        if (rs_compare_check_headers(rs_tset_trace(ts, i), pred, rs_tset_path(ts, i), "the prediction", err) != 0 ||
            rs_compare_check_events(pred, "the prediction", err) != 0)
            rc = rs_err_mark(err, RS_ERR_BAD_INPUT);
        else if (rs_compare_traces(rs_tset_trace(ts, i), pred, &rows[i].cmp, err) != 0) rc = rs_err_mark(err, RS_ERR_BAD_INPUT);
        else if (out_dir && write_outputs(ts, i, pred, &rows[i].cmp, out_dir, err) != 0) rc = rs_err_mark(err, RS_ERR_RUNTIME);
        rs_trace_free(pred);
    }
    return rc;
}

/* "1.23% / 4.56%" of a metric's median and p95, '-' without points. */
static const char *stat_pair(const rs_cmp_stats_t *s, char *buf, size_t len) {
    char a[32], b[32];
    snprintf(buf, len, "%s / %s", rs_fmt_num(s->n ? 100 * s->median_abs : NAN, "%.3f%%", a, sizeof a),
             rs_fmt_num(s->n ? 100 * s->p95_abs : NAN, "%.3f%%", b, sizeof b));
    return buf;
}

/* The roles of c the trace (REF) has and the prediction has no term for, with their shares of the
 * trace's busy time ("cast 1.2%, other 0.4%"; "-" when none). */
static const char *unmatched_roles(const rs_compare_t *c, char *buf, size_t len) {
    size_t u = 0;
    buf[0] = '\0';
    char sh[32];
    for (int r = 0; r < RS_ROLE_COUNT && u < len; r++)
        if (c->role[r].status == RS_CMP_ROLE_REF_ONLY) /* a share is '-' when the trace's roles are all idle */
            u += (size_t)snprintf(buf + u, len - u, "%s%s %s", u ? ", " : "", rs_role_name((rs_role_t)r),
                                  rs_fmt_num(100 * c->role[r].ref_share, "%.1f%%", sh, sizeof sh));
    if (!buf[0]) snprintf(buf, len, "-");
    return buf;
}

void rs_tval_print(const rs_tset_t *ts, const rs_tval_row_t *rows, FILE *out) {
    for (int i = 0; i < rs_tset_count(ts); i++) {
        fprintf(out, "# %s: B = %lld, %s pass; reference = the trace, other = the model's prediction with the profile\n",
                rs_tset_path(ts, i), (long long)rs_problem_block(rs_tset_problem(ts, i)), rs_pass_name(rs_tset_problem(ts, i)->pass));
        rs_compare_print(&rows[i].cmp, rs_tset_path(ts, i), "model", out);
        fputc('\n', out);
    }
    fprintf(out, "# per trace: |relative error| of the prediction per (rank, step), median / p95; makespan signed; attn, merge: "
                 "predicted / traced busy time of the role ('-': not in both); unmatched: the trace's roles the model has no "
                 "term for, as shares of its busy time\n");
    fprintf(out, "%-3s %8s %-8s %22s %22s %22s %10s %7s %7s  %s\n", "#", "B", "pass", "t_comp", "t_comm", "t_step", "makespan",
            "attn", "merge", "unmatched");
    for (int i = 0; i < rs_tset_count(ts); i++) {
        const rs_compare_t *c = &rows[i].cmp;
        char s0[64], s1[64], s2[64], mk[32], ra[32], rm[32], um[128];
        fprintf(out, "%-3d %8lld %-8s %22s %22s %22s %10s %7s %7s  %s\n", i, (long long)rs_problem_block(rs_tset_problem(ts, i)),
                rs_pass_name(rs_tset_problem(ts, i)->pass), stat_pair(&c->stats[RS_CMP_COMP], s0, sizeof s0),
                stat_pair(&c->stats[RS_CMP_COMM], s1, sizeof s1), stat_pair(&c->stats[RS_CMP_STEP], s2, sizeof s2),
                rs_fmt_num(100 * c->makespan_rel, "%+.3f%%", mk, sizeof mk), rs_fmt_num(c->role[RS_ROLE_ATTN].ratio, "%.3f", ra, sizeof ra),
                rs_fmt_num(c->role[RS_ROLE_MERGE].ratio, "%.3f", rm, sizeof rm), unmatched_roles(c, um, sizeof um));
    }
}

int rs_tval_model_roles(const rs_schedule_t *s, const rs_machine_t *m, rs_trace_t *t) {
    rs_trace_sort(t);
    return add_model_roles(s, m, t);
}
