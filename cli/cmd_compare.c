/* cmd_compare.c - `ringsim compare REF OTHER`: per-step and makespan errors between two traces of the
 * same problem (traces/compare.h). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "trace.h"

typedef struct {
    const char *csv;    /* --csv */
    double fail_above;  /* --fail-above, INFINITY: never */
    bool quiet;         /* -q */
} compare_opts_t;

#define O(field) offsetof(compare_opts_t, field)
static const rs_opt_t own_opts[] = {
    {"csv", 0, "FILE", "none", "also write the per-step points and the summary as CSV", RS_ARG_OUT, O(csv), 0, 0, NULL,
     NULL, "options:"},
    {"fail-above", 0, "FRAC", "never", "exit 1 if the makespan |error| or a metric's (or a compared\nrole's) p95 |error| exceeds FRAC (e.g. 0.1)",
     RS_ARG_DOUBLE, O(fail_above), 0, 1e6, NULL, NULL, NULL},
    {"quiet", 'q', NULL, "off", "no table on stdout", RS_ARG_TRUE, O(quiet), 0, 0, NULL, NULL, NULL},
};
#undef O


int rs_cmd_compare(int argc, char **argv) {
    compare_opts_t co = {NULL, INFINITY, false};
    rs_opt_group_t groups[] = {RS_OPT_GROUP(own_opts, &co)};
    int rc = rs_cli_run_parse("compare", argc, argv, groups, 1, true);
    if (rc >= 0) return rc;
    const char *csv = co.csv;
    const double fail_above = co.fail_above;
    const bool quiet = co.quiet;
    rs_err_t err = {0};
    if (argc - optind != 2) {
        fprintf(stderr, "ringsim compare: expected two trace files (REF OTHER), got %d\n", argc - optind);
        return RS_EXIT_USAGE;
    }
    const char *pa = argv[optind], *pb = argv[optind + 1];
    rs_io_plan_t io;
    rs_io_init(&io);
    rs_io_input(&io, "REF", pa, false);
    rs_io_input(&io, "OTHER", pb, false);
    if ((rc = rs_cli_check_files("compare", groups, 1, &io, NULL, true)) >= 0) return rc;
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
    rc = RS_EXIT_OK;
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
        for (int r = 0; r < RS_ROLE_COUNT; r++) /* the roles both traces have */
            if (c.role[r].stats.n && !(c.role[r].stats.p95_abs <= fail_above)) bad = 1;
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
