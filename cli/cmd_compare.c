/* cmd_compare.c - `ringsim compare REF OTHER`: per-step and makespan errors between two traces of the
 * same problem (traces/compare.h). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "trace.h"

static void compare_help(FILE *out) {
    fprintf(out,
            "usage: ringsim compare [options] REF.csv OTHER.csv\n"
            "\n"
            "Align two traces of the same problem by (rank, step, pass, kind) and report the relative\n"
            "errors (other - ref) / ref of T_comp (compute), T_comm (longer of send/recv, post to\n"
            "completion) and T_step per (rank, step, pass): median, p95, max and the worst step; and\n"
            "the makespan error. Traces of different problems are refused (exit 2).\n"
            "\n"
            "options:\n"
            "  --csv FILE          also write the per-step points and the summary as CSV (default: none)\n"
            "  --fail-above FRAC   exit 1 if the makespan |error| or a metric's p95 |error| exceeds FRAC\n"
            "                      (e.g. 0.1; default: never)\n"
            "  -q, --quiet         no table on stdout\n"
            "  -h, --help          this help\n");
}

int rs_cmd_compare(int argc, char **argv) {
    static const struct option opts[] = {{"csv", required_argument, NULL, 'c'},
                                         {"fail-above", required_argument, NULL, 'f'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *csv = NULL;
    double fail_above = INFINITY;
    int quiet = 0, o;
    rs_err_t err = {{0}};
    rs_cli_getopt_reset();
    while ((o = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (o) {
        case 'c': csv = optarg; break;
        case 'f':
            if (rs_parse_double("--fail-above", optarg, 0, 1e6, &fail_above, &err) != 0) {
                fprintf(stderr, "ringsim compare: %s\n", err.msg);
                return RS_EXIT_USAGE;
            }
            break;
        case 'q': quiet = 1; break;
        case 'h': compare_help(stdout); return RS_EXIT_OK;
        default:
            fprintf(stderr, "ringsim compare: unknown option '%s' or missing value (see ringsim compare --help)\n", argv[optind - 1]);
            return RS_EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "ringsim compare: expected two trace files (REF OTHER), got %d\n", argc - optind);
        return RS_EXIT_USAGE;
    }
    const char *pa = argv[optind], *pb = argv[optind + 1];
    rs_trace_t *a = rs_trace_read_csv(pa, &err);
    if (!a) {
        fprintf(stderr, "ringsim compare: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }
    rs_trace_t *b = rs_trace_read_csv(pb, &err);
    if (!b) {
        fprintf(stderr, "ringsim compare: %s\n", err.msg);
        rs_trace_free(a);
        return RS_EXIT_USAGE;
    }
    int rc = RS_EXIT_OK;
    rs_compare_t c;
    if (rs_compare_check_problem(a, b, pa, pb, &err) != 0 || rs_compare_traces(a, b, &c, &err) != 0) {
        fprintf(stderr, "ringsim compare: %s\n", err.msg);
        rs_trace_free(a);
        rs_trace_free(b);
        return RS_EXIT_USAGE;
    }
    char ra[300], rb[300];
    snprintf(ra, sizeof ra, "%s (%s)", pa, rs_trace_source(a));
    snprintf(rb, sizeof rb, "%s (%s)", pb, rs_trace_source(b));
    if (!quiet) rs_compare_print(&c, ra, rb, stdout);
    if (csv && rs_compare_write_csv(&c, ra, rb, csv, &err) != 0) {
        fprintf(stderr, "ringsim compare: %s\n", err.msg);
        rc = RS_EXIT_FAIL;
    }
    if (rc == RS_EXIT_OK && isfinite(fail_above)) {
        int bad = !(fabs(c.makespan_rel) <= fail_above);
        for (int m = 0; m < RS_CMP_METRIC_COUNT; m++)
            if (c.stats[m].n && !(c.stats[m].p95_abs <= fail_above)) bad = 1;
        if (bad) {
            fprintf(stderr, "ringsim compare: error above --fail-above %g\n", fail_above);
            rc = RS_EXIT_FAIL;
        }
    }
    rs_compare_free(&c);
    rs_trace_free(a);
    rs_trace_free(b);
    return rc;
}
