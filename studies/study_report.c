/* study_report.c - the report study (study_report.h): one directory with traces, sweeps, figures and
 * report.md / report.html stating the findings in numbers (docs/report.md). In phases, each a
 * function over one state (report_t, study_report_state.h) in a file of its own: the entries (every
 * layout x pass) and their data files, the sweeps, the contention job, the real execution, the
 * figures, then the document section by section. Here: the directory and the phases in order. */
#include "study_report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"
#include "registry.h"
#include "study_report_state.h"

void rs_report_setup_default(rs_setup_t *setup) {
    rs_setup_default(setup);
    setup->n_layouts = RS_LAYOUT_COUNT;
    for (int i = 0; i < RS_LAYOUT_COUNT; i++) setup->layouts[i] = (rs_layout_t)i;
    setup->n_passes = RS_PASS_COUNT;
    for (int i = 0; i < RS_PASS_COUNT; i++) setup->passes[i] = (rs_pass_t)i;
}

void rs_report_defaults(rs_report_in_t *in) {
    memset(in, 0, sizeof *in);
    in->dir = "ringsim-report";
    in->exec_timeout_s = 240;
    in->command = "ringsim report";
}

void rs_rep_phase(report_t *r, int k, const char *what) { rs_meter_update(&r->meter, 0, "[%d/%d] %s", k, RS_REPORT_PHASES, what); }

int rs_rep_mkdir(const char *path, rs_err_t *err) {
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return rs_errf(err, "%s: cannot create: %s", path, strerror(errno));
    return 0;
}

int rs_rep_run_sweep(rs_sweep_spec_t *spec, const char *path, const char *label, sweep_t *out, rs_err_t *err) {
    rs_sweep_in_t in = {spec, path, label, true, false, false, false}; /* its meter nests in the report's */
    rs_sweep_out_t o;
    if (rs_study_sweep(&in, &o, err) != 0) {
        free(o.points);
        return -1;
    }
    out->pts = o.points;
    out->n = o.n;
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * The study
 * ---------------------------------------------------------------------------------------------- */
/* The directory's stage (output.h: the report becomes DIR when the run ends well, nothing of it
 * stays otherwise) and its sub-directories into stage. Returns 0, or -1 with err (bad input: DIR
 * exists without --force, or cannot be made). */
static int report_dirs(const rs_report_in_t *in, char *stage, size_t len, rs_err_t *err) {
    if (strlen(in->dir) > 400) return rs_errc(err, RS_ERR_BAD_INPUT, "-o: at most 400 characters");
    struct stat st;
    if (stat(in->dir, &st) == 0 && !in->force)
        return rs_errc(err, RS_ERR_BAD_INPUT, "-o %s: exists; give --force to write into it, or another directory", in->dir);
    if (stat(in->dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return rs_errc(err, RS_ERR_BAD_INPUT, "-o %s: exists and is not a folder", in->dir);
    if (rs_out_stage_dir(in->dir, stage, len, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    const char *subs[] = {"/traces", "/data", "/figures", "/figures/scripts"};
    char path[1200];
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s%s", stage, subs[i]);
        if (rs_rep_mkdir(path, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    }
    return 0;
}

static void report_free(report_t *r) {
    for (int k = 0; r->es && k < r->ne; k++) {
        free(r->es[k].busy_s);
        rs_compare_free(&r->es[k].cmp);
    }
    free(r->es);
    free(r->sb.pts), free(r->sbc.pts), free(r->sn.pts), free(r->sbb.pts), free(r->sv.pts);
    if (r->have_heldout) rs_table_free(&r->heldout);
    rs_compare_free(&r->vcmp);
    free(r->spec);
    free(r);
}

int rs_study_report(const rs_report_in_t *in, rs_err_t *err) {
    report_t *r = calloc(1, sizeof *r);
    if (!r || !(r->spec = calloc(1, sizeof *r->spec))) {
        free(r);
        return rs_errc(err, RS_ERR_RUNTIME, "out of memory");
    }
    if (report_dirs(in, r->stage, sizeof r->stage, err) != 0) {
        report_free(r);
        return -1;
    }
    r->in = in, r->c = in->setup, r->m = &in->setup->machine, r->p0 = &in->setup->problem, r->dir = r->stage;
    r->t_start = rs_now_s();
    r->val_x_meas = r->val_x_model = NAN;
    /* the simulator, when built, not refused (--no-sim) and its can_run rule allows the machine */
    r->sim = in->no_sim ? NULL : rs_backend_find("sim");
    for (int i = 0; r->sim && i < r->c->n_layouts; i++) {
        rs_err_t why;
        rs_problem_t p = rs_setup_problem(r->c, i, 0);
        if (r->sim->can_run(&p, r->m, &why) != 0) snprintf(r->sim_why, sizeof r->sim_why, "%.390s", why.msg), r->sim = NULL;
    }
    rs_meter_start(&r->meter, "report", 0, NULL);
    rs_rep_phase(r, 1, r->sim ? "model and sim" : "model");
    int rc = rs_rep_entries(r, err) == 0 && rs_rep_sweeps(r, err) == 0 ? 0 : rs_err_mark(err, RS_ERR_RUNTIME);
    if (rc == 0) {
        rs_rep_contention(r);
        rs_rep_exec(r);
        rs_rep_figures(r);
        rs_rep_phase(r, 6, "report.md and report.html");
        if (rs_rep_doc(r, err) != 0) rc = rs_err_mark(err, RS_ERR_RUNTIME);
    }
    rs_meter_end(&r->meter);
    if (rc == 0 && rs_out_stage_commit(r->stage, err) != 0) rc = rs_err_mark(err, RS_ERR_RUNTIME); /* in place, or said why not */
    report_free(r);
    return rc;
}
