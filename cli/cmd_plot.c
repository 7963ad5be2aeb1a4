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
    return rs_plot_size_parse(arg, &((plot_cli_t *)dst)->po, err);
}

#define O(field) offsetof(plot_cli_t, field)
static const rs_opt_t own_opts[] = {
    {"output", 'o', "FILE", "required", "the figure (.png, .pdf, .svg; .tex: LaTeX, with FILE.pdf beside it)", RS_ARG_OUT,
     O(out), 0, 0, NULL, NULL, "options:"},
    {"size", 0, "WxH", "1200x750", "pixels (96 per inch), 3.3inx2.2in, 8.5cmx5cm, or column, double, slide", RS_ARG_CUSTOM,
     0, 0, 0, NULL, parse_size, NULL},
    {"title", 0, "TEXT", "automatic", "figure title", RS_ARG_STRING, O(po.title), 0, 0, NULL, NULL, NULL},
    {"series", 0, "NAME", "the only one", "tcomm-vs-b, scaling: the sweep's series to draw", RS_ARG_STRING, O(po.series), 0, 0,
     NULL, NULL, NULL},
    {"x", 0, "COLUMN", "the one that varies", "scaling: n_ranks or block_tokens; contention: nics or oversub", RS_ARG_STRING, O(po.x), 0, 0, NULL, NULL,
     NULL},
    {"pass", 'P', "PASS", "the only one", "timeline: forward or backward", RS_ARG_STRING, O(po.pass), 0, 0, NULL, NULL,
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
