/* plot.c - the figure kinds and rs_plot_render (plot.h): check the data and set the script's
 * variables (plot_prep.c), then run the kind's script with gnuplot into a reserved output
 * (plot_gnuplot.c). */
#include "plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "plot_gnuplot.h"
#include "plot_prep.h"
#include "plot_size.h"
#include "plot_vars.h"

static const char *const kind_names[RS_PLOT_KIND_COUNT] = {"tcomm-vs-b", "timeline", "pred-vs-meas",
                                                           "layout-busy", "scaling", "maxctx", "contention",
                                                           "ttft", "pass-boundary", "validation"};
static const char *const script_names[RS_PLOT_KIND_COUNT] = {"tcomm_vs_b", "timeline", "pred_vs_meas",
                                                             "layout_busy", "scaling", "maxctx", "contention",
                                                             "ttft", "pass_boundary", "validation"};

const char *rs_plot_kind_name(rs_plot_kind_t k) { return rs_enum_name(kind_names, RS_PLOT_KIND_COUNT, (int)k); }

int rs_plot_kind_parse(const char *s, rs_plot_kind_t *out) {
    const int k = rs_enum_parse(kind_names, RS_PLOT_KIND_COUNT, s);
    if (k >= 0) *out = (rs_plot_kind_t)k;
    return k < 0 ? -1 : 0;
}

const char *rs_plot_script_name(rs_plot_kind_t k) {
    static char buf[RS_PLOT_KIND_COUNT][32];
    if (k < 0 || k >= RS_PLOT_KIND_COUNT) return "?";
    snprintf(buf[k], sizeof buf[k], "%s.gp", script_names[k]);
    return buf[k];
}

/* The variables every script takes: the data, the output, the style, the format and the size. */
static void run_vars(plot_vars_t *v, const char *data, const char *out, const char *dir, rs_plot_format_t fmt,
                     const plot_size_t *sz) {
    char style[1100];
    snprintf(style, sizeof style, "%s/style.gp", dir);
    plot_vars_str(v, "data", data, false);
    plot_vars_str(v, "out", out, false);
    plot_vars_str(v, "style", style, false);
    plot_vars_str(v, "fmt", rs_plot_format_ext(fmt), false);
    plot_vars_add(v, "w_px=%d", sz->w_px);
    plot_vars_add(v, "h_px=%d", sz->h_px);
    plot_vars_num(v, "w_in", sz->w_in);
    plot_vars_num(v, "h_in", sz->h_in);
    plot_vars_num(v, "dpi", sz->dpi);
    if (sz->h_grow) plot_vars_add(v, "h_grow=1");
}

/* What gnuplot writes into: the output's reserved temporary; for .tex, FIG.tex in a scratch folder
 * (cairolatex writes FIG.pdf beside it and names it in the .tex), moved into the reserved
 * temporaries of the .tex and of the PDF beside it by tex_finish. */
typedef struct {
    rs_file_t fo;       /* the output */
    rs_file_t pdf;      /* .tex: the PDF beside it */
    char scratch[512];  /* .tex: the scratch folder ("" otherwise) */
    char target[1100];  /* where gnuplot writes */
} plot_out_t;

static int out_reserve(plot_out_t *o, const char *out, rs_plot_format_t fmt, rs_err_t *err) {
    memset(o, 0, sizeof *o);
    if (rs_file_reserve(&o->fo, out, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    if (fmt != RS_PLOT_TEX) {
        snprintf(o->target, sizeof o->target, "%s", o->fo.tmp_path);
        return 0;
    }
    char pdf[4200];
    snprintf(pdf, sizeof pdf, "%.*s.pdf", (int)(strrchr(out, '.') - out), out);
    if (rs_file_reserve(&o->pdf, pdf, err) != 0) {
        rs_file_abort(&o->fo);
        return rs_err_mark(err, RS_ERR_BAD_INPUT);
    }
    if (rs_out_tmpdir("plot-tex", o->scratch, sizeof o->scratch, err) != 0) {
        o->scratch[0] = 0;
        rs_file_abort(&o->fo), rs_file_abort(&o->pdf);
        return rs_err_mark(err, RS_ERR_RUNTIME);
    }
    snprintf(o->target, sizeof o->target, "%s/fig.tex", o->scratch);
    return 0;
}

/* The scratch .tex with its graphics named as out minus its extension (as gnuplot names it when it
 * writes out itself) into the reserved temporary, and the scratch PDF into the PDF's. */
static int tex_finish(plot_out_t *o, const char *out, rs_err_t *err) {
    char from[600], stem[4200], pdf[600];
    snprintf(from, sizeof from, "{%s/fig}", o->scratch);
    snprintf(stem, sizeof stem, "{%.*s}", (int)(strrchr(out, '.') - out), out);
    snprintf(pdf, sizeof pdf, "%s/fig.pdf", o->scratch);
    char *tex = rs_read_text_file(o->target, (size_t)1 << 26, "cairolatex .tex", err);
    if (!tex) return rs_err_mark(err, RS_ERR_RUNTIME); /* gnuplot's own output: a fault, not the user's input */
    FILE *fp = fopen(o->fo.tmp_path, "w");
    int rc = fp ? 0 : rs_errc(err, RS_ERR_RUNTIME, "%s: cannot write: %s", o->fo.tmp_path, strerror(errno));
    for (const char *s = tex; rc == 0 && *s;) {
        const char *hit = strstr(s, from);
        const size_t n = hit ? (size_t)(hit - s) : strlen(s);
        fwrite(s, 1, n, fp);
        if (hit) fputs(stem, fp);
        s += n + (hit ? strlen(from) : 0);
    }
    if (fp && fclose(fp) != 0 && rc == 0) rc = rs_errc(err, RS_ERR_RUNTIME, "%s: write error", out);
    free(tex);
    if (rc == 0) rc = plot_copy_file(pdf, o->pdf.tmp_path, err);
    return rc;
}

/* Commit (rc == 0) or abort the outputs; the scratch folder goes either way. */
static int out_end(plot_out_t *o, int rc, rs_err_t *err) {
    if (o->scratch[0]) rs_out_tmpdir_remove(o->scratch);
    if (rc == 0 && rs_file_commit(&o->fo, err) != 0) rc = rs_err_mark(err, RS_ERR_RUNTIME);
    else if (rc != 0) rs_file_abort(&o->fo);
    if (o->pdf.path) {
        if (rc == 0 && rs_file_commit(&o->pdf, err) != 0) rc = rs_err_mark(err, RS_ERR_RUNTIME);
        else if (rc != 0) rs_file_abort(&o->pdf);
    }
    return rc;
}

int rs_plot_render(rs_plot_kind_t kind, const char *data, const char *out, const rs_plot_opts_t *opts,
                   rs_err_t *err) {
    rs_plot_format_t fmt;
    if (kind < 0 || kind >= RS_PLOT_KIND_COUNT) return rs_errc(err, RS_ERR_BAD_INPUT, "unknown figure kind");
    if (rs_plot_format_of(out, &fmt, err) != 0) return -1;
    const char *gnuplot = rs_gnuplot_path(err);
    if (!gnuplot) return -1;
    char pending[4200];
    data = rs_out_read_path(data, pending, sizeof pending); /* this run's own CSV, not yet committed */
    if (access(data, R_OK) != 0) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: cannot read: %s", data, strerror(errno));
    plot_vars_t v = {.tex = fmt == RS_PLOT_TEX};
    int height = 0;
    if (plot_prepare(kind, data, opts, &v, &height, err) != 0) {
        free(v.buf);
        return -1;
    }
    const char *dir = rs_plot_scripts_dir(err);
    plot_out_t o; /* gnuplot writes the temporary; committed with the run's other outputs */
    if (!dir || out_reserve(&o, out, fmt, err) != 0) {
        free(v.buf);
        return -1;
    }
    const plot_size_t sz = plot_size(kind, fmt, opts, height);
    run_vars(&v, data, o.target, dir, fmt, &sz);
    if (opts && opts->no_auto_title && !opts->title) plot_vars_str(&v, "title", "", false); /* after the kind's */
    char script[1100];
    snprintf(script, sizeof script, "%s/%s", dir, rs_plot_script_name(kind));
    int rc = v.oom ? rs_errc(err, RS_ERR_BAD_INPUT, "out of memory") : plot_gnuplot_run(gnuplot, v.buf, script, err);
    free(v.buf);
    struct stat st;
    if (rc == 0 && (stat(o.target, &st) != 0 || st.st_size == 0))
        rc = rs_errc(err, RS_ERR_RUNTIME, "gnuplot wrote no output to %s", out);
    if (rc == 0 && fmt == RS_PLOT_TEX) rc = tex_finish(&o, out, err);
    return out_end(&o, rc, err);
}
