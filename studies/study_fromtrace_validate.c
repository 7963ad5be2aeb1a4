/* study_fromtrace_validate.c - traces of a run predicted with a profile and compared
 * (study_fromtrace_validate.h): the walk's prediction of each trace's problem, its comparison with
 * the trace, the files of each, the tables. */
#include "study_fromtrace_validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "plot.h"

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
    rs_trace_sort(t);
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
        if (rs_compare_check_problem(rs_tset_trace(ts, i), pred, rs_tset_path(ts, i), "the prediction", err) != 0) rc = rs_err_mark(err, RS_ERR_BAD_INPUT);
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

void rs_tval_print(const rs_tset_t *ts, const rs_tval_row_t *rows, FILE *out) {
    for (int i = 0; i < rs_tset_count(ts); i++) {
        fprintf(out, "# %s: B = %lld, %s pass; reference = the trace, other = the model's prediction with the profile\n",
                rs_tset_path(ts, i), (long long)rs_problem_block(rs_tset_problem(ts, i)), rs_pass_name(rs_tset_problem(ts, i)->pass));
        rs_compare_print(&rows[i].cmp, rs_tset_path(ts, i), "model", out);
        fputc('\n', out);
    }
    fprintf(out, "# per trace: |relative error| of the prediction per (rank, step), median / p95; makespan signed\n");
    fprintf(out, "%-3s %8s %-8s %22s %22s %22s %10s\n", "#", "B", "pass", "t_comp", "t_comm", "t_step", "makespan");
    for (int i = 0; i < rs_tset_count(ts); i++) {
        const rs_compare_t *c = &rows[i].cmp;
        char s0[64], s1[64], s2[64], mk[32];
        fprintf(out, "%-3d %8lld %-8s %22s %22s %22s %10s\n", i, (long long)rs_problem_block(rs_tset_problem(ts, i)),
                rs_pass_name(rs_tset_problem(ts, i)->pass), stat_pair(&c->stats[RS_CMP_COMP], s0, sizeof s0),
                stat_pair(&c->stats[RS_CMP_COMM], s1, sizeof s1), stat_pair(&c->stats[RS_CMP_STEP], s2, sizeof s2),
                rs_fmt_num(100 * c->makespan_rel, "%+.3f%%", mk, sizeof mk));
    }
}
