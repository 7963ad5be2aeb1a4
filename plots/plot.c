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

/* The figure's size: the options', else the kind's (the timeline's grows with its ranks, the
 * scaling figure has two panels), else 1200 x 750. */
static void figure_size(rs_plot_kind_t kind, const rs_plot_opts_t *opts, int height, int *w, int *h) {
    *w = opts && opts->width_px > 0 ? opts->width_px : 1200;
    *h = opts && opts->height_px > 0 ? opts->height_px : (height > 0 ? height : 750);
    if (kind == RS_PLOT_SCALING && !(opts && opts->height_px > 0)) *h = 1000;
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
    plot_vars_t v = {0};
    int height = 0;
    if (plot_prepare(kind, data, opts, &v, &height, err) != 0) {
        free(v.buf);
        return -1;
    }
    const char *dir = rs_plot_scripts_dir(err);
    if (!dir) {
        free(v.buf);
        return -1;
    }
    int w, h;
    figure_size(kind, opts, height, &w, &h);
    rs_file_t fo; /* gnuplot writes the temporary; committed with the run's other outputs */
    if (rs_file_reserve(&fo, out, err) != 0) {
        free(v.buf);
        return rs_err_mark(err, RS_ERR_BAD_INPUT);
    }
    const char *tmp_out = fo.tmp_path;
    char style[1100], script[1100];
    snprintf(style, sizeof style, "%s/style.gp", dir);
    snprintf(script, sizeof script, "%s/%s", dir, rs_plot_script_name(kind));
    plot_vars_str(&v, "data", data, false);
    plot_vars_str(&v, "out", tmp_out, false);
    plot_vars_str(&v, "style", style, false);
    plot_vars_str(&v, "fmt", rs_plot_format_ext(fmt), false);
    plot_vars_add(&v, "w_px=%d", w);
    plot_vars_add(&v, "h_px=%d", h);
    if (v.oom) {
        free(v.buf);
        rs_file_abort(&fo);
        return rs_errc(err, RS_ERR_BAD_INPUT, "out of memory");
    }
    int rc = plot_gnuplot_run(gnuplot, v.buf, script, err);
    free(v.buf);
    struct stat st;
    if (rc == 0 && (stat(tmp_out, &st) != 0 || st.st_size == 0))
        rc = rs_errc(err, RS_ERR_RUNTIME, "gnuplot wrote no output to %s", out);
    if (rc == 0 && rs_file_commit(&fo, err) != 0) rc = rs_err_mark(err, RS_ERR_RUNTIME);
    if (rc != 0) rs_file_abort(&fo);
    return rc;
}
