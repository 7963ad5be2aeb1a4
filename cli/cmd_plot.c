/* cmd_plot.c - `ringsim plot KIND DATA -o FILE`: render a figure with gnuplot (plots/plot.h). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#ifdef RINGSIM_HAVE_PLOTS
#include "plot.h"
#endif

static void plot_help(FILE *out) {
    fprintf(out,
            "usage: ringsim plot KIND DATA -o FILE.{png,pdf,svg} [options]\n"
            "\n"
            "Render a figure with gnuplot; the format follows FILE's extension (PNG for screens, PDF and\n"
            "SVG for papers). The scripts are plots/*.gp (one style: plots/style.gp) and can be edited.\n"
            "\n"
            "kinds and their DATA:\n"
            "  tcomm-vs-b    T_comp, T_comm vs B, log-log, predicted lines, measured points,\n"
            "                B_min = F/W and the measured crossover marked     DATA: ringsim sweep CSV\n"
            "  timeline      Gantt chart: compute/send/recv per rank and step DATA: a trace CSV\n"
            "  pred-vs-meas  predicted vs measured per step, y = x, +-10%% band DATA: ringsim compare --csv\n"
            "  layout-busy   per-rank busy time of the three layouts         DATA: CSV rank,contiguous,striped,zigzag\n"
            "  scaling       step time and overlap efficiency vs N or B per profile  DATA: ringsim sweep CSV\n"
            "  maxctx        longest context that fits vs N per profile  DATA: ringsim plan --maxctx-csv CSV\n"
            "\n"
            "options:\n"
            "  -o, --output FILE   the figure (.png, .pdf or .svg)                  [required]\n"
            "      --size WxH      pixels (PDF: W/150 x H/150 inches)              [1200x750]\n"
            "      --title TEXT    figure title                                     [automatic]\n"
            "      --series NAME   tcomm-vs-b: the sweep's series to draw           [the first row's]\n"
            "      --x COLUMN      scaling: n_ranks or block_tokens                 [the one that varies]\n"
            "  -P, --pass PASS     timeline: forward or backward                    [the first event's]\n"
            "      --xlabel TEXT, --ylabel TEXT   pred-vs-meas axis labels          [from the CSV]\n"
            "  -h, --help          this help\n"
            "\n"
            "gnuplot: the one found at build time, else PATH; RINGSIM_GNUPLOT overrides. Scripts:\n"
            "$RINGSIM_PLOTS_DIR, else the source tree's plots/, else the copies built into ringsim.\n");
}

int rs_cmd_plot(int argc, char **argv) {
#ifndef RINGSIM_HAVE_PLOTS
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim plot: not built (the rs_plots library is missing)\n");
    return RS_EXIT_FAIL;
#else
    enum { OPT_SIZE = 2000, OPT_TITLE, OPT_SERIES, OPT_X, OPT_XLABEL, OPT_YLABEL };
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},  {"size", required_argument, NULL, OPT_SIZE},
        {"title", required_argument, NULL, OPT_TITLE}, {"series", required_argument, NULL, OPT_SERIES},
        {"x", required_argument, NULL, OPT_X},     {"pass", required_argument, NULL, 'P'},
        {"xlabel", required_argument, NULL, OPT_XLABEL}, {"ylabel", required_argument, NULL, OPT_YLABEL},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    rs_plot_opts_t po;
    memset(&po, 0, sizeof po);
    const char *out = NULL;
    rs_err_t err = {{0}};
    int o;
    rs_cli_getopt_reset();
    while ((o = getopt_long(argc, argv, "o:P:h", opts, NULL)) != -1) {
        switch (o) {
        case 'o': out = optarg; break;
        case OPT_SIZE: {
            int64_t w, h;
            char buf[64];
            const char *x = strchr(optarg, 'x');
            if (!x || (size_t)(x - optarg) >= sizeof buf) {
                fprintf(stderr, "ringsim plot: --size %s: expected WxH in pixels, e.g. 1200x750\n", optarg);
                return RS_EXIT_USAGE;
            }
            snprintf(buf, sizeof buf, "%.*s", (int)(x - optarg), optarg);
            if (rs_parse_size("--size", buf, 100, 10000, &w, &err) || rs_parse_size("--size", x + 1, 100, 10000, &h, &err)) {
                fprintf(stderr, "ringsim plot: %s\n", err.msg);
                return RS_EXIT_USAGE;
            }
            po.width_px = (int)w;
            po.height_px = (int)h;
            break;
        }
        case OPT_TITLE: po.title = optarg; break;
        case OPT_SERIES: po.series = optarg; break;
        case OPT_X: po.x = optarg; break;
        case 'P': po.pass = optarg; break;
        case OPT_XLABEL: po.xlabel = optarg; break;
        case OPT_YLABEL: po.ylabel = optarg; break;
        case 'h': plot_help(stdout); return RS_EXIT_OK;
        default:
            fprintf(stderr, "ringsim plot: unknown option '%s' or missing value (see ringsim plot --help)\n", argv[optind - 1]);
            return RS_EXIT_USAGE;
        }
    }
    if (argc - optind != 2 || !out) {
        fprintf(stderr, "ringsim plot: expected KIND DATA -o FILE (see ringsim plot --help)\n");
        return RS_EXIT_USAGE;
    }
    rs_plot_kind_t kind;
    if (rs_plot_kind_parse(argv[optind], &kind) != 0) {
        fprintf(stderr, "ringsim plot: unknown kind '%s' (expected tcomm-vs-b, timeline, pred-vs-meas, layout-busy, scaling or maxctx)\n",
                argv[optind]);
        return RS_EXIT_USAGE;
    }
    int rc = rs_plot_render(kind, argv[optind + 1], out, &po, &err);
    if (rc != 0) {
        fprintf(stderr, "ringsim plot: %s\n", err.msg);
        return rc == -1 ? RS_EXIT_USAGE : RS_EXIT_FAIL;
    }
    return RS_EXIT_OK;
#endif
}
