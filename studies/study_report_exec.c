/* study_report_exec.c - the report's real CPU execution (study_report_state.h): `ringsim validate`
 * as a subprocess with a watchdog on the measurement problem (every layout, pass and mask: the
 * held-out table), then what the report takes from its files - the held-out table and the fitted
 * configuration's crossovers, its measured B sweep in the sweep format with the calibrated model
 * (data/validation-b.csv), the per-step comparison at one B (data/compare-exec.csv), and every
 * measured configuration and B as a validation case (data/validation-exec.csv). */
#include "study_report_state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef RINGSIM_HAVE_EXEC
#include "exec.h" /* rs_exec_blas_core_note: the BLAS core note of the executor the child ran */
#endif
#include "output.h"
#include "setup.h"
#include "stats.h"
#include "subprocess.h"
#include "trace.h"

/* The last 4 non-empty lines of a text file into buf, joined by "; ". */
static void file_tail(const char *path, char *buf, size_t len) {
    buf[0] = 0;
    FILE *fp = fopen(path, "r");
    if (!fp) return;
    char line[512];
    char last[4][512] = {{0}};
    int n = 0;
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = 0;
        if (!line[0]) continue;
        snprintf(last[n % 4], sizeof last[0], "%s", line);
        n++;
    }
    fclose(fp);
    for (int i = n > 4 ? n - 4 : 0; i < n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", strlen(buf) ? "; " : "", last[i % 4]);
}

/* The configuration the calibration is fitted on, whose rows feed the measured-vs-model figure. */
#define VAL_FIT_TAG "contiguous-forward-full"

/* Run `self validate` on the measurement problem (rs_setup_measure_problem, spelled out) for every
 * layout, both passes and both masks (the held-out table) into vdir, B = 8..512, 2 rounds of 3
 * repetitions (12 configurations: a shorter sweep than validate's own); its output goes to log.
 * Returns its exit status, -1 if it could not start, -2 on timeout. */
static int run_validate(const char *self, const char *vdir, const char *log, int64_t timeout_s) {
    rs_problem_t p;
    rs_setup_measure_problem(&p);
    char a[15][1400];
    snprintf(a[0], sizeof a[0], "--csv=%s/validate.csv", vdir);
    snprintf(a[1], sizeof a[1], "--trace-dir=%s/traces", vdir);
    snprintf(a[2], sizeof a[2], "--save-profile=%s/calibrated.json", vdir);
    snprintf(a[3], sizeof a[3], "--ranks=%lld", (long long)p.n_ranks);
    snprintf(a[4], sizeof a[4], "--heads=%lld", (long long)p.q_heads);
    snprintf(a[5], sizeof a[5], "--kv-heads=%lld", (long long)p.kv_heads);
    snprintf(a[6], sizeof a[6], "--head-dim=%lld", (long long)p.head_dim);
    snprintf(a[7], sizeof a[7], "--dtype=%s", p.act_bytes == 4 ? "fp32" : "bf16");
    snprintf(a[8], sizeof a[8], "--mask=both");
    snprintf(a[9], sizeof a[9], "--layout=all");
    snprintf(a[10], sizeof a[10], "--pass=both");
    snprintf(a[11], sizeof a[11], "--summary=%s/heldout.csv", vdir);
    snprintf(a[12], sizeof a[12], "--rounds=2");
    snprintf(a[13], sizeof a[13], "--reps=3");
    snprintf(a[14], sizeof a[14], "--blocks=8,16,32,64,128,256,512");
    char *args[] = {(char *)self, "validate", a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12],
                    a[13], a[14], NULL};
    rs_spawn_t sp;
    rs_spawn_init(&sp);
    sp.argv = args;
    sp.output_path = log;
    sp.stdin_fd = RS_SPAWN_NULL;
    sp.new_group = true; /* a timeout ends mpirun and its ranks together */
    rs_child_status_t st;
    rs_err_t err;
    if (rs_spawn_run(&sp, "ringsim validate", (double)timeout_s, &st, &err) != 0) return -1;
    if (st.timed_out) return -2;
    return st.exit_code;
}

/* validate's held-out table, and the fitted configuration's crossover at the seed's threshold from it. */
static void read_heldout(report_t *r, const char *vdir) {
    rs_err_t e2;
    snprintf(r->path, sizeof r->path, "%s/heldout.csv", vdir);
    if (rs_table_read(r->path, &r->heldout, &e2) != 0) return;
    r->have_heldout = true;
    /* the measurement's own spread per configuration: what a 10% criterion can resolve in this run */
    const int sp = rs_table_col(&r->heldout, "makespan_spread");
    double v[64];
    size_t n = 0;
    for (size_t i = 0; sp >= 0 && i < r->heldout.n_rows && n < 64; i++) {
        const char *cell = r->heldout.cells[i][sp];
        const double x = cell[0] && cell[0] != '-' ? rs_strtod(cell, NULL) : NAN;
        if (isfinite(x) && x >= 0) v[n++] = x;
    }
    r->val_sp_n = (int)n;
    r->val_sp_max = 0;
    for (size_t i = 0; i < n; i++) r->val_sp_max = fmax(r->val_sp_max, v[i]);
    r->val_sp_median = n > 0 ? rs_median(v, n) : NAN;
    const int l = rs_table_col(&r->heldout, "layout"), p = rs_table_col(&r->heldout, "pass"), m = rs_table_col(&r->heldout, "mask"),
              xm = rs_table_col(&r->heldout, "crossover_meas"), xp = rs_table_col(&r->heldout, "crossover_model");
    for (size_t i = 0; l >= 0 && p >= 0 && m >= 0 && xm >= 0 && xp >= 0 && i < r->heldout.n_rows; i++) {
        char **c = r->heldout.cells[i];
        if (strcmp(c[l], "contiguous") || strcmp(c[p], "forward") || strcmp(c[m], "full")) continue;
        r->val_x_meas = c[xm][0] ? rs_strtod(c[xm], NULL) : NAN;
        r->val_x_model = c[xp][0] ? rs_strtod(c[xp], NULL) : NAN;
    }
}

/* Points whose exec columns are validate's measured rows of table vt (rows[k]: the fitted
 * configuration's k-th row; col: the columns found). */
static void fill_measured(sweep_t *sv, const rs_table_t *vt, const size_t *rows, const int *col) {
    for (size_t k = 0; k < sv->n; k++) {
        rs_trace_summary_t *x = &sv->pts[k].exec;
        char **c = vt->cells[rows[k]];
        sv->pts[k].has_exec = true;
        x->t_comp_s = rs_strtod(c[col[1]], NULL);
        x->t_comm_s = rs_strtod(c[col[2]], NULL);
        x->t_step_s = rs_strtod(c[col[3]], NULL);
        x->makespan_s = rs_strtod(c[col[4]], NULL);
        x->n_comp = x->n_comm = x->n_step = 1;
    }
}

/* The measured B sweep of the fitted configuration (contiguous forward, full blocks) in the sweep
 * format: the model (walk on the calibrated forward profile) and the measured rows of validate.csv,
 * into data/validation-b.csv. */
static void validation_sweep(report_t *r, const char *vdir, const rs_table_t *vt) {
    rs_err_t e2;
    static const char *const names[8] = {"B", "t_comp_meas_s", "t_comm_meas_s", "t_step_meas_s", "makespan_meas_s", "layout", "pass", "mask"};
    int col[8], ok = vt->n_rows > 0;
    for (int i = 0; i < 8; i++) ok &= (col[i] = rs_table_col(vt, names[i])) >= 0;
    size_t rows[RS_SWEEP_MAX_VALUES], nr = 0;
    for (size_t k = 0; ok && k < vt->n_rows && nr < RS_SWEEP_MAX_VALUES; k++)
        if (!strcmp(vt->cells[k][col[5]], "contiguous") && !strcmp(vt->cells[k][col[6]], "forward") && !strcmp(vt->cells[k][col[7]], "full"))
            rows[nr++] = k;
    rs_sweep_spec_t *vs = nr > 0 ? calloc(1, sizeof *vs) : NULL;
    if (vs) {
        const char *label = "ringsim report (ringsim validate's B sweep: calibrated model + measured)";
        rs_setup_default(&vs->common);
        snprintf(vs->common.spec.profile, sizeof vs->common.spec.profile, "%.480s/calibrated-forward.json", vdir);
        rs_setup_measure_problem(&vs->common.problem);
        rs_setup_dtype(&vs->common, RS_DTYPE_FP32);
        vs->common.layouts[0] = vs->common.problem.layout;
        vs->common.passes[0] = vs->common.problem.pass;
        for (size_t k = 0; k < nr; k++) vs->blocks[vs->n_blocks++] = strtoll(vt->cells[rows[k]][col[0]], NULL, 10);
        snprintf(r->path, sizeof r->path, "%s/data/validation-b.csv", r->dir);
        if (rs_rep_run_sweep(vs, r->path, label, &r->sv, &e2) == 0 && r->sv.n == nr) {
            fill_measured(&r->sv, vt, rows, col);
            rs_file_t f;
            if (rs_file_open(&f, r->path, &e2) == 0) {
                rs_sweep_write_header(f.fp, vs, label, r->sv.pts, r->sv.n);
                for (size_t k = 0; k < r->sv.n; k++) rs_sweep_write_row(f.fp, k, &r->sv.pts[k]);
                rs_sweep_write_crossovers(f.fp, r->sv.pts, r->sv.n);
                r->have_val = rs_file_commit(&f, &e2) == 0;
            }
        }
    }
    free(vs);
}

/* Per-step comparison at the B nearest the measured crossover's upper side: data/compare-exec.csv. */
static void validation_compare(report_t *r, const char *vdir) {
    const sweep_t *sv = &r->sv;
    for (size_t k = 0; k < sv->n && !r->have_val_cmp; k++) {
        long long b = (long long)rs_problem_block(&sv->pts[k].problem);
        if (sv->pts[k].exec.t_comp_s < sv->pts[k].exec.t_comm_s && k + 1 < sv->n) continue;
        char ta[1600], tb[1600];
        snprintf(ta, sizeof ta, "%s/traces/validate-" VAL_FIT_TAG "-B%lld-exec.csv", vdir, b);
        snprintf(tb, sizeof tb, "%s/traces/validate-" VAL_FIT_TAG "-B%lld-model.csv", vdir, b);
        rs_err_t e2;
        rs_trace_t *xa = rs_trace_read_csv(ta, &e2), *xb = xa ? rs_trace_read_csv(tb, &e2) : NULL;
        if (xa && xb && rs_compare_traces(xa, xb, &r->vcmp, &e2) == 0) {
            char na[200], nb[200];
            snprintf(na, sizeof na, "validate-" VAL_FIT_TAG "-B%lld-exec.csv (measured, CPU)", b);
            snprintf(nb, sizeof nb, "validate-" VAL_FIT_TAG "-B%lld-model.csv (model, calibrated)", b);
            snprintf(r->path, sizeof r->path, "%s/data/compare-exec.csv", r->dir);
            r->have_val_cmp = rs_compare_write_csv(&r->vcmp, na, nb, r->path, &e2) == 0;
            r->vcmp_b = b;
        }
        rs_trace_free(xa);
        rs_trace_free(xb);
        if (!r->have_val_cmp) break;
    }
}

/* Every measured configuration and block size of validate.csv as a validation case (the figure kind
 * `validation`): its measured makespan against the calibrated model's, one marker per pass and mask,
 * into data/validation-exec.csv; the count within 10% for the text. */
static void validation_cases(report_t *r, const rs_table_t *vt) {
    rs_err_t e2;
    static const char *const names[6] = {"layout", "pass", "mask", "B", "makespan_meas_s", "makespan_model_s"};
    int col[6], ok = vt->n_rows > 0;
    for (int i = 0; i < 6; i++) ok &= (col[i] = rs_table_col(vt, names[i])) >= 0;
    rs_file_t f;
    snprintf(r->path, sizeof r->path, "%s/data/validation-exec.csv", r->dir);
    if (ok && rs_file_open(&f, r->path, &e2) == 0) {
        fprintf(f.fp, "# ringsim report: the makespan measured by ringsim validate on 2 MPI ranks (published column) "
                      "against the calibrated model's (predicted), every layout, pass, mask and B of validation/validate.csv\n"
                      "# unit=s\ncase,source,published,predicted\n");
        r->val_cases_n = r->val_cases_within = 0;
        for (size_t k = 0; k < vt->n_rows; k++) {
            char **c = vt->cells[k];
            const double meas = rs_strtod(c[col[4]], NULL), model = rs_strtod(c[col[5]], NULL);
            if (!(meas > 0 && meas < 1e30 && model > 0 && model < 1e30)) continue; /* not drawn, not counted */
            fprintf(f.fp, "%s-%s-%s-B%s,%s %s,%.9g,%.9g\n", c[col[0]], c[col[1]], c[col[2]], c[col[3]], c[col[1]], c[col[2]],
                    meas, model);
            r->val_cases_n++;
            r->val_cases_within += fabs(model / meas - 1) <= 0.10;
        }
        if (r->val_cases_n == 0) rs_file_abort(&f);
        else r->have_val_cases = rs_file_commit(&f, &e2) == 0;
    }
}

void rs_rep_exec(report_t *r) {
    const int64_t timeout = r->in->exec_timeout_s;
    if (r->in->no_exec) {
        snprintf(r->exec_note, sizeof r->exec_note, "skipped (--no-exec).");
        return;
    }
    char self[1024];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) {
        snprintf(r->exec_note, sizeof r->exec_note, "the ringsim binary could not be located; no real execution.");
        return;
    }
    self[k] = 0;
    char vdir[1200], log[1300];
    rs_err_t err;
    snprintf(vdir, sizeof vdir, "%s/validation", r->dir);
    snprintf(r->path, sizeof r->path, "%s/traces", vdir);
    rs_rep_mkdir(vdir, &err);
    rs_rep_mkdir(r->path, &err);
    snprintf(log, sizeof log, "%s/validate.log", vdir);
    rs_rep_phase(r, 4, "real CPU execution");
    rs_meter_t m; /* the child's output goes to its log: its time, against the limit */
    char what[64], lim[32];
    snprintf(what, sizeof what, "ringsim validate (up to %s)", rs_meter_duration((double)timeout, lim, sizeof lim));
    rs_meter_start(&m, what, 0, NULL);
    const int status = run_validate(self, vdir, log, timeout);
    rs_meter_end(&m);
    char tail[700];
    file_tail(log, tail, sizeof tail);
    if (status == 0)
        snprintf(r->exec_note, sizeof r->exec_note, "ringsim validate calibrated this machine once per pass (one full block "
                 "with the pass's own transfers, contiguous, non-causal) and measured a B sweep of every layout, pass and mask "
                 "on 2 MPI ranks (validation/: validate.log, validate.csv, heldout.csv, calibrated-PASS.json, traces/).");
    else if (status == -2)
        snprintf(r->exec_note, sizeof r->exec_note, "ringsim validate did not finish within %lld s and was stopped "
                 "(validation/validate.log).", (long long)timeout);
    else
        snprintf(r->exec_note, sizeof r->exec_note, "ringsim validate is not available or failed (exit %d): %s", status,
                 tail[0] ? tail : "no output");
    if (status != 0) return;
#ifdef RINGSIM_HAVE_EXEC
    char why[512]; /* the child ran this process's OpenBLAS, in its environment */
    if (rs_exec_blas_core_note(why, sizeof why))
        snprintf(r->exec_note + strlen(r->exec_note), sizeof r->exec_note - strlen(r->exec_note), " Warning: %s.", why);
#endif
    read_heldout(r, vdir);
    rs_table_t vt; /* validate.csv, read once for the sweep and the cases */
    rs_err_t e2;
    snprintf(r->path, sizeof r->path, "%s/validate.csv", vdir);
    if (rs_table_read(r->path, &vt, &e2) != 0) return;
    validation_sweep(r, vdir, &vt);
    validation_compare(r, vdir);
    validation_cases(r, &vt);
    rs_table_free(&vt);
}
