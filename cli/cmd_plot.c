/* cmd_plot.c - `ringsim plot KIND DATA -o FILE`: render a figure with gnuplot (plots/plot.h). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifdef RINGSIM_HAVE_PLOTS
#include "plot.h"


typedef struct {
    rs_plot_opts_t po;  /* the figure */
    const char *out;    /* -o */
} plot_cli_t;

static int parse_size(void *dst, const char *arg, rs_err_t *err) {
    rs_plot_opts_t *po = &((plot_cli_t *)dst)->po;
    int64_t w, h;
    char buf[64];
    const char *x = strchr(arg, 'x');
    if (!x || (size_t)(x - arg) >= sizeof buf) return rs_errf(err, "--size %s: expected WxH in pixels, e.g. 1200x750", arg);
    snprintf(buf, sizeof buf, "%.*s", (int)(x - arg), arg);
    rs_err_t e;
    if (rs_parse_size("--size", buf, 100, 10000, &w, &e) || rs_parse_size("--size", x + 1, 100, 10000, &h, &e))
        return rs_errf(err, "--size %s: width and height must be integers in [100, 10000] pixels, e.g. 1200x750", arg);
    po->width_px = (int)w;
    po->height_px = (int)h;
    return 0;
}

#define O(field) offsetof(plot_cli_t, field)
static const rs_opt_t own_opts[] = {
    {"output", 'o', "FILE", "required", "the figure (.png, .pdf or .svg)", RS_ARG_OUT, O(out), 0, 0, NULL, NULL, "options:"},
    {"size", 0, "WxH", "1200x750", "pixels (PDF: W/150 x H/150 inches)", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_size, NULL},
    {"title", 0, "TEXT", "automatic", "figure title", RS_ARG_STRING, O(po.title), 0, 0, NULL, NULL, NULL},
    {"series", 0, "NAME", "the first row's", "tcomm-vs-b: the sweep's series to draw", RS_ARG_STRING, O(po.series), 0, 0,
     NULL, NULL, NULL},
    {"x", 0, "COLUMN", "the one that varies", "scaling: n_ranks or block_tokens; contention: nics or oversub", RS_ARG_STRING, O(po.x), 0, 0, NULL, NULL,
     NULL},
    {"pass", 'P', "PASS", "the first event's", "timeline: forward or backward", RS_ARG_STRING, O(po.pass), 0, 0, NULL, NULL,
     NULL},
    {"xlabel", 0, "TEXT", "from the CSV", "pred-vs-meas, validation: x axis label", RS_ARG_STRING, O(po.xlabel), 0, 0, NULL, NULL, NULL},
    {"ylabel", 0, "TEXT", "from the CSV", "pred-vs-meas, validation: y axis label", RS_ARG_STRING, O(po.ylabel), 0, 0, NULL, NULL, NULL},
};
#undef O


int rs_cmd_plot(int argc, char **argv) {
    plot_cli_t pc;
    memset(&pc, 0, sizeof pc);
    rs_opt_group_t groups[] = {RS_OPT_GROUP(own_opts, &pc)};
    int rc = rs_cli_run_parse("plot", argc, argv, groups, 1, true);
    if (rc >= 0) return rc;
    const rs_plot_opts_t po = pc.po;
    const char *out = pc.out;
    rs_err_t err = {0};
    if (argc - optind != 2 || !out) {
        fprintf(stderr, "ringsim plot: expected KIND DATA -o FILE (see ringsim plot --help)\n");
        return RS_EXIT_USAGE;
    }
    rs_io_plan_t io;
    rs_io_init(&io);
    rs_io_input(&io, "DATA", argv[optind + 1], false);
    if ((rc = rs_cli_check_files("plot", groups, 1, &io, NULL, true)) >= 0) return rc;
    rs_plot_kind_t kind;
    if (rs_plot_kind_parse(argv[optind], &kind) != 0) {
        fprintf(stderr, "ringsim plot: unknown kind '%s' (expected ", argv[optind]);
        for (int k = 0; k < RS_PLOT_KIND_COUNT; k++)
            fprintf(stderr, "%s%s", k == 0 ? "" : (k == RS_PLOT_KIND_COUNT - 1 ? " or " : ", "), rs_plot_kind_name((rs_plot_kind_t)k));
        fprintf(stderr, ")\n");
        return RS_EXIT_USAGE;
    }
    rc = rs_plot_render(kind, argv[optind + 1], out, &po, &err);
    if (rc != 0) {
        fprintf(stderr, "ringsim plot: %s\n", err.msg);
        return rs_err_exit_code(&err);
    }
    return RS_EXIT_OK;
}

#endif
