/* study_report_figures.c - the report's figures (study_report_state.h): each in PNG, SVG and PDF
 * from the data files (plots/plot.h), the gnuplot scripts copied beside them and regenerate.sh that
 * renders every one of them again from the data. One list of the figures serves both. */
#include "study_report_state.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

/* One figure of the report: its kind, data (relative to the report), name, title and x, and its axis
 * labels where the kind's own do not say it (NULL: the kind's). */
typedef struct {
    rs_plot_kind_t kind;
    char data[64];
    const char *name, *title, *x, *xlabel, *ylabel;
    bool *made; /* rendered in every format */
} fig_t;

enum { MAX_FIGS = 16 };
typedef struct {
    fig_t f[MAX_FIGS];
    int n;
} fig_list_t;

static void fig_add(fig_list_t *l, rs_plot_kind_t kind, const char *data, const char *name, const char *title, const char *x,
                    bool *made) {
    if (l->n == MAX_FIGS) return;
    fig_t *f = &l->f[l->n++];
    *f = (fig_t){.kind = kind, .name = name, .title = title, .x = x, .made = made};
    snprintf(f->data, sizeof f->data, "%s", data);
}

/* The file "DIR/REL" into r->path; returns r->path. */
static const char *data_path(report_t *r, const char *rel) {
    snprintf(r->path, sizeof r->path, "%s/%s", r->dir, rel);
    return r->path;
}

/* The figures whose data this report has. */
static void fig_list(report_t *r, fig_list_t *l) {
    const char *tr = r->sim ? "sim" : "model";
    char rel[64];
    l->n = 0;
    fig_add(l, RS_PLOT_TCOMM_VS_B, "data/sweep-b.csv", "tcomm-vs-b", NULL, NULL, &r->f_tb);
    fig_add(l, RS_PLOT_TCOMM_VS_B, "data/sweep-b-causal.csv", "tcomm-vs-b-causal", NULL, NULL, &r->f_tbc);
    snprintf(rel, sizeof rel, "traces/%s-zigzag-forward.csv", tr);
    if (access(data_path(r, rel), R_OK) == 0) fig_add(l, RS_PLOT_TIMELINE, rel, "timeline-zigzag-forward", NULL, NULL, &r->f_tl);
    snprintf(rel, sizeof rel, "traces/%s-contiguous-forward.csv", tr);
    if (access(data_path(r, rel), R_OK) == 0)
        fig_add(l, RS_PLOT_TIMELINE, rel, "timeline-contiguous-forward", NULL, NULL, &r->f_tlc);
    if (access(data_path(r, "data/compare-zigzag-forward.csv"), R_OK) == 0)
        fig_add(l, RS_PLOT_PRED_VS_MEAS, "data/compare-zigzag-forward.csv", "pred-vs-meas",
                "Model vs SimGrid, per step (zigzag, forward)", NULL, &r->f_pvm);
    if (r->have_busy[RS_PASS_FORWARD])
        fig_add(l, RS_PLOT_LAYOUT_BUSY, "data/busy-forward.csv", "layout-busy",
                r->p0->causal ? "Per-rank compute time by layout (causal, forward)" : "Per-rank compute time by layout (forward)", NULL,
                &r->f_busy);
    if (r->have_val)
        fig_add(l, RS_PLOT_TCOMM_VS_B, "data/validation-b.csv", "tcomm-vs-b-measured",
                "Measured on this CPU (2 MPI ranks) vs the calibrated model", NULL, &r->f_vb);
    if (r->have_val_cmp)
        fig_add(l, RS_PLOT_PRED_VS_MEAS, "data/compare-exec.csv", "pred-vs-meas-exec",
                "Calibrated model vs CPU measurement, per (rank, step)", NULL, &r->f_vpvm);
    if (r->have_val_cases) {
        fig_add(l, RS_PLOT_VALIDATION, "data/validation-exec.csv", "validation-exec", "Makespan: calibrated model vs CPU measurement",
                NULL, &r->f_vcases);
        if (l->f[l->n - 1].made == &r->f_vcases)
            l->f[l->n - 1].xlabel = "measured on this CPU", l->f[l->n - 1].ylabel = "predicted (calibrated model)";
    }
    fig_add(l, RS_PLOT_SCALING, "data/scaling-n.csv", "scaling-n", NULL, "n_ranks", &r->f_sn);
    fig_add(l, RS_PLOT_SCALING, "data/scaling-b.csv", "scaling-b", NULL, "block_tokens", &r->f_sb);
    if (r->have_cont) fig_add(l, RS_PLOT_CONTENTION, "data/contention.csv", "contention", NULL, "nics", &r->f_cont);
}

/* Render one figure in PNG, SVG and PDF. Returns true when all three exist. */
static bool render(report_t *r, const fig_t *f) {
    static const char *const ext[3] = {"png", "svg", "pdf"};
    rs_plot_opts_t o;
    memset(&o, 0, sizeof o);
    o.title = f->title;
    o.x = f->x;
    o.xlabel = f->xlabel, o.ylabel = f->ylabel;
    char data[1200];
    snprintf(data, sizeof data, "%s/%s", r->dir, f->data);
    for (int i = 0; i < 3; i++) {
        char out[1200];
        snprintf(out, sizeof out, "%s/figures/%s.%s", r->dir, f->name, ext[i]);
        rs_err_t err;
        if (rs_plot_render(f->kind, data, out, &o, &err) != 0) {
            if (!r->fig_why[0]) snprintf(r->fig_why, sizeof r->fig_why, "%s: %s", f->name, err.msg);
            return false;
        }
    }
    return true;
}

/* s as one single-quoted shell word. */
static void sh_quote(FILE *fp, const char *s) {
    fputc('\'', fp);
    for (; *s; s++)
        if (*s == '\'') fputs("'\\''", fp);
        else fputc(*s, fp);
    fputc('\'', fp);
}

/* regenerate.sh: every figure of the list from the data, with the (editable) copied scripts;
 * ringsim from $RINGSIM, PATH, the binary that wrote the report, or beside the report. */
static void write_regenerate(report_t *r, const fig_list_t *l) {
    rs_err_t err;
    char self[1024] = "";
    const ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    self[k > 0 ? k : 0] = 0;
    snprintf(r->path, sizeof r->path, "%s/figures/regenerate.sh", r->dir);
    rs_file_t f;
    if (rs_file_open(&f, r->path, &err) != 0) return;
    fprintf(f.fp, "#!/bin/sh\n"
                  "# Re-render every figure of the report from its data with the scripts in figures/scripts/ (edit them\n"
                  "# freely; style.gp there is the look of every figure). Runs from any folder.\n"
                  "#   sh figures/regenerate.sh [FORMAT...]    formats png svg pdf tex (default: png svg pdf)\n"
                  "#   SIZE=column sh figures/regenerate.sh pdf  a --size for every figure (column, double, slide, 3.3inx2.5in)\n"
                  "# ringsim: $RINGSIM, else ringsim on PATH, else the one that wrote this report, else one beside the report.\n"
                  "set -e\ncd \"$(dirname \"$0\")/..\"\n"
                  "if [ -z \"$RINGSIM\" ]; then\n"
                  "  if command -v ringsim >/dev/null 2>&1; then RINGSIM=ringsim\n"
                  "  elif [ -x ");
    sh_quote(f.fp, self);
    fprintf(f.fp, " ]; then RINGSIM=");
    sh_quote(f.fp, self);
    fprintf(f.fp, "\n"
                  "  elif [ -x \"$PWD/ringsim\" ]; then RINGSIM=\"$PWD/ringsim\"\n"
                  "  elif [ -x \"$PWD/../ringsim\" ]; then RINGSIM=\"$PWD/../ringsim\"\n"
                  "  else echo \"regenerate.sh: ringsim not found (not on PATH, not beside the report): set RINGSIM=/path/to/ringsim\" >&2; exit 127\n"
                  "  fi\nfi\n"
                  "export RINGSIM_PLOTS_DIR=\"$PWD/figures/scripts\"\n"
                  "for ext in ${*:-png svg pdf}; do\n");
    for (int i = 0; i < l->n; i++) {
        const fig_t *g = &l->f[i];
        fprintf(f.fp, "  \"$RINGSIM\" plot %s %s", rs_plot_kind_name(g->kind), g->data);
        if (g->x) fprintf(f.fp, " --x %s", g->x);
        if (g->title) fputs(" --title ", f.fp), sh_quote(f.fp, g->title);
        if (g->xlabel) fputs(" --xlabel ", f.fp), sh_quote(f.fp, g->xlabel);
        if (g->ylabel) fputs(" --ylabel ", f.fp), sh_quote(f.fp, g->ylabel);
        fprintf(f.fp, " ${SIZE:+--size \"$SIZE\"} -o figures/%s.$ext\n", g->name);
    }
    fprintf(f.fp, "done\n");
    if (rs_file_commit(&f, &err) == 0) chmod(r->path, 0755);
}

void rs_rep_figures(report_t *r) {
    if (r->in->no_figures) {
        snprintf(r->fig_why, sizeof r->fig_why, "figures skipped (--no-figures)");
        return;
    }
    rs_rep_phase(r, 5, "figures");
    fig_list_t l;
    fig_list(r, &l);
    for (int i = 0; i < l.n; i++) *l.f[i].made = render(r, &l.f[i]);
    rs_err_t e2;
    snprintf(r->path, sizeof r->path, "%s/figures/scripts", r->dir);
    if (rs_plot_copy_scripts(r->path, &e2) != 0 && !r->fig_why[0]) snprintf(r->fig_why, sizeof r->fig_why, "%s", e2.msg);
    write_regenerate(r, &l);
}
