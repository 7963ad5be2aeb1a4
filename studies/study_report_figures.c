/* study_report_figures.c - the report's figures (study_report_state.h): each in PNG, SVG and PDF
 * from the data files (plots/plot.h), the gnuplot scripts copied beside them and regenerate.sh that
 * renders them again from the data. */
#include "study_report_state.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

/* Render one figure in PNG, SVG and PDF. Returns true when all three exist. */
static bool render(report_t *r, rs_plot_kind_t kind, const char *data, const char *name, const char *title,
                   const char *x) {
    static const char *const ext[3] = {"png", "svg", "pdf"};
    rs_plot_opts_t o;
    memset(&o, 0, sizeof o);
    o.title = title;
    o.x = x;
    for (int i = 0; i < 3; i++) {
        char out[1200];
        snprintf(out, sizeof out, "%s/figures/%s.%s", r->dir, name, ext[i]);
        rs_err_t err;
        if (rs_plot_render(kind, data, out, &o, &err) != 0) {
            if (!r->fig_why[0]) snprintf(r->fig_why, sizeof r->fig_why, "%s: %s", name, err.msg);
            return false;
        }
    }
    return true;
}

/* regenerate.sh: the same figures from the data, with the (editable) copied scripts. */
static void write_regenerate(report_t *r) {
    rs_err_t err;
    snprintf(r->path, sizeof r->path, "%s/figures/regenerate.sh", r->dir);
    rs_file_t f;
    if (rs_file_open(&f, r->path, &err) != 0) return;
    const char *simtr = r->sim ? "sim" : "model";
    fprintf(f.fp,
            "#!/bin/sh\n# Re-render the report's figures from its data with the scripts in figures/scripts/\n"
            "# (edit them freely; plots/style.gp is the shared look). Run from the report directory.\n"
            "set -e\ncd \"$(dirname \"$0\")/..\"\nRINGSIM=${RINGSIM:-ringsim}\n"
            "export RINGSIM_PLOTS_DIR=\"$PWD/figures/scripts\"\n"
            "for ext in png svg pdf; do\n"
            "  $RINGSIM plot tcomm-vs-b data/sweep-b.csv -o figures/tcomm-vs-b.$ext\n"
            "  $RINGSIM plot tcomm-vs-b data/sweep-b-causal.csv -o figures/tcomm-vs-b-causal.$ext\n"
            "  $RINGSIM plot timeline traces/%s-zigzag-forward.csv -o figures/timeline-zigzag-forward.$ext\n"
            "  $RINGSIM plot timeline traces/%s-contiguous-forward.csv -o figures/timeline-contiguous-forward.$ext\n"
            "  [ -f data/compare-zigzag-forward.csv ] && $RINGSIM plot pred-vs-meas data/compare-zigzag-forward.csv "
            "--title 'Model vs SimGrid, per step (zigzag, forward)' -o figures/pred-vs-meas.$ext\n"
            "  $RINGSIM plot layout-busy data/busy-forward.csv -o figures/layout-busy.$ext\n"
            "  $RINGSIM plot scaling data/scaling-n.csv --x n_ranks -o figures/scaling-n.$ext\n"
            "  $RINGSIM plot scaling data/scaling-b.csv --x block_tokens -o figures/scaling-b.$ext\n"
            "  [ -f data/contention.csv ] && $RINGSIM plot contention data/contention.csv --x nics -o figures/contention.$ext\n"
            "done\n",
            simtr, simtr);
    if (rs_file_commit(&f, &err) == 0) chmod(r->path, 0755);
}

/* The figure data file "DIR/REL" into r->path; returns r->path. */
static const char *data_path(report_t *r, const char *rel) {
    snprintf(r->path, sizeof r->path, "%s/%s", r->dir, rel);
    return r->path;
}

void rs_rep_figures(report_t *r) {
    if (r->in->no_figures) {
        snprintf(r->fig_why, sizeof r->fig_why, "figures skipped (--no-figures)");
        return;
    }
    rs_rep_phase(r, 5, "figures");
    const char *tr = r->sim ? "sim" : "model";
    char rel[64];
    r->f_tb = render(r, RS_PLOT_TCOMM_VS_B, data_path(r, "data/sweep-b.csv"), "tcomm-vs-b", NULL, NULL);
    r->f_tbc = render(r, RS_PLOT_TCOMM_VS_B, data_path(r, "data/sweep-b-causal.csv"), "tcomm-vs-b-causal", NULL, NULL);
    snprintf(rel, sizeof rel, "traces/%s-zigzag-forward.csv", tr);
    if (access(data_path(r, rel), R_OK) == 0) r->f_tl = render(r, RS_PLOT_TIMELINE, r->path, "timeline-zigzag-forward", NULL, NULL);
    snprintf(rel, sizeof rel, "traces/%s-contiguous-forward.csv", tr);
    if (access(data_path(r, rel), R_OK) == 0)
        r->f_tlc = render(r, RS_PLOT_TIMELINE, r->path, "timeline-contiguous-forward", NULL, NULL);
    if (access(data_path(r, "data/compare-zigzag-forward.csv"), R_OK) == 0)
        r->f_pvm = render(r, RS_PLOT_PRED_VS_MEAS, r->path, "pred-vs-meas", "Model vs SimGrid, per step (zigzag, forward)", NULL);
    if (r->have_busy[RS_PASS_FORWARD])
        r->f_busy = render(r, RS_PLOT_LAYOUT_BUSY, data_path(r, "data/busy-forward.csv"), "layout-busy",
                           r->p0->causal ? "Per-rank compute time by layout (causal, forward)"
                                         : "Per-rank compute time by layout (forward)",
                           NULL);
    if (r->have_val)
        r->f_vb = render(r, RS_PLOT_TCOMM_VS_B, data_path(r, "data/validation-b.csv"), "tcomm-vs-b-measured",
                         "Measured on this CPU (2 MPI ranks) vs the calibrated model", NULL);
    if (r->have_val_cmp)
        r->f_vpvm = render(r, RS_PLOT_PRED_VS_MEAS, data_path(r, "data/compare-exec.csv"), "pred-vs-meas-exec",
                           "Calibrated model vs CPU measurement, per (rank, step)", NULL);
    r->f_sn = render(r, RS_PLOT_SCALING, data_path(r, "data/scaling-n.csv"), "scaling-n", NULL, "n_ranks");
    r->f_sb = render(r, RS_PLOT_SCALING, data_path(r, "data/scaling-b.csv"), "scaling-b", NULL, "block_tokens");
    if (r->have_cont) r->f_cont = render(r, RS_PLOT_CONTENTION, data_path(r, "data/contention.csv"), "contention", NULL, "nics");
    rs_err_t e2;
    if (rs_plot_copy_scripts(data_path(r, "figures/scripts"), &e2) != 0 && !r->fig_why[0])
        snprintf(r->fig_why, sizeof r->fig_why, "%s", e2.msg);
    write_regenerate(r);
}
