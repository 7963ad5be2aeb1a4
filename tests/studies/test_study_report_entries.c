/* test_study_report_entries.c - the report's entries (studies/study_report_entries.c): for the
 * default problem on h100-sxm, summary.csv holds the closed form and the walk of every layout x pass
 * exactly as the model computes them, busy-PASS.csv each rank's compute time of the walk, and the
 * traces are written in both formats. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cost.h"
#include "harness.h"
#include "studies_fixtures.h"
#include "test_main.h"
#include "trace.h"

RS_TEST(test_summary_is_the_model, "summary.csv is the model's closed form and walk, every layout x pass") {
    rs_test_report("rep", "--no-exec --no-sim --no-figures --quick");
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "ringsim report: written to "));
    rs_machine_t m;
    rs_test_h100(&m, false);
    FILE *fp = fopen(rs_test_path("rep/summary.csv"), "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char line[4096];
    int rows = 0;
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#' || strncmp(line, "layout,", 7) == 0) continue;
        char layout[32], pass[32], bound[32], sim[32];
        long long block, cbs, rss;
        double bmin, bstar, tc, tm, ts, mk, ideal, eff, bmax, bmean;
        int n = sscanf(line, "%31[^,],%31[^,],%lld,%lf,%lf,%lf,%lf,%lf,%31[^,],%lf,%lf,%lf,%lf,%lf,%lld,%lld,%31s", layout, pass,
                       &block, &bmin, &bstar, &tc, &tm, &ts, bound, &mk, &ideal, &eff, &bmax, &bmean, &cbs, &rss, sim);
        CU_ASSERT_EQUAL_FATAL(n, 17);
        rs_problem_t p;
        rs_problem_default(&p); /* the report's default problem is the project's default */
        CU_ASSERT_EQUAL_FATAL(rs_layout_parse(layout, &p.layout), 0);
        CU_ASSERT_EQUAL_FATAL(rs_pass_parse(pass, &p.pass), 0);
        rs_closed_t c;
        rs_walk_t w;
        rs_err_t err;
        CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &m, &c, &err), 0);
        rs_schedule_t *s = rs_schedule_create(&p, &err);
        CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, RS_NO_SINK, NULL, &w, &err), 0);
        rs_schedule_free(s);
        CU_ASSERT_EQUAL(block, 16384);
        RS_ASSERT_REL(bmin, c.b_min_tokens, 1e-15);
        RS_ASSERT_REL(bstar, c.b_star_tokens, 1e-15);
        RS_ASSERT_REL(tc, c.t_comp_s, 1e-15);
        RS_ASSERT_REL(tm, c.t_comm_s, 1e-15);
        RS_ASSERT_REL(ts, c.t_step_s, 1e-15);
        RS_ASSERT_REL(mk, w.makespan_s, 1e-15);
        RS_ASSERT_REL(ideal, w.balance_efficiency, 1e-15); /* the columns balance_efficiency, fraction_of_peak */
        RS_ASSERT_REL(eff, w.fraction_of_peak, 1e-15);
        RS_ASSERT_REL(bmax, w.busy_max_s, 1e-15);
        RS_ASSERT_REL(bmean, w.busy_mean_s, 1e-15);
        CU_ASSERT_EQUAL(cbs, w.comm_bound_steps);
        CU_ASSERT_EQUAL(rss, w.rank_steps);
        CU_ASSERT_STRING_EQUAL(bound, c.comm_bound ? "comm" : "compute");
        CU_ASSERT_STRING_EQUAL(sim, "nan"); /* --no-sim */
        rows++;
    }
    fclose(fp);
    CU_ASSERT_EQUAL(rows, 6);
}

/* busy-forward.csv: per rank, the walk's summed compute time of each layout (the walk backend's
 * rank_busy_s), at full precision. */
RS_TEST(test_busy_is_the_walk, "busy-forward.csv is the walk's per-rank compute time") {
    rs_machine_t m;
    rs_test_h100(&m, false);
    double busy[RS_LAYOUT_COUNT][8];
    for (int l = 0; l < RS_LAYOUT_COUNT; l++) {
        rs_problem_t p;
        rs_problem_default(&p);
        p.layout = (rs_layout_t)l;
        rs_err_t err;
        rs_schedule_t *s = rs_schedule_create(&p, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        rs_backend_opts_t o;
        rs_backend_opts_default(&o);
        o.rank_busy_s = busy[l];
        rs_run_summary_t sum;
        CU_ASSERT_EQUAL_FATAL(rs_walk_backend.run(s, &m, &o, NULL, &sum, &err), 0);
        rs_schedule_free(s);
    }
    FILE *fp = fopen(rs_test_path("rep/data/busy-forward.csv"), "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char line[1024];
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, fp));
    CU_ASSERT_STRING_EQUAL(line, "# per-rank compute (busy) time of the model's critical-path walk, seconds; forward pass, causal\n");
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, fp));
    CU_ASSERT_STRING_EQUAL(line, "rank,contiguous,striped,zigzag\n");
    int k = 0;
    for (long long r; fgets(line, sizeof line, fp); k++) {
        double b[3];
        CU_ASSERT_EQUAL_FATAL(sscanf(line, "%lld,%lf,%lf,%lf", &r, &b[0], &b[1], &b[2]), 4);
        CU_ASSERT_EQUAL(r, k);
        for (int l = 0; l < RS_LAYOUT_COUNT; l++) CU_ASSERT_EQUAL(b[l], busy[l][k]);
    }
    fclose(fp);
    CU_ASSERT_EQUAL(k, 8);
    CU_ASSERT(busy[RS_LAYOUT_CONTIGUOUS][7] > busy[RS_LAYOUT_CONTIGUOUS][0]); /* causal: the last rank computes most */
}

/* Every layout x pass in CSV (readable, the walk's events) and Chrome JSON. */
RS_TEST(test_traces, "traces of every entry, CSV and Chrome JSON") {
    static const char *const names[] = {"contiguous-forward", "striped-forward", "zigzag-forward", "contiguous-backward",
                                        "striped-backward", "zigzag-backward"};
    for (int i = 0; i < 6; i++) {
        char path[700];
        snprintf(path, sizeof path, "%s/model-%s.csv", rs_test_path("rep/traces"), names[i]);
        rs_err_t err;
        rs_trace_t *t = rs_trace_read_csv(path, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT(rs_trace_count(t) > 0);
        CU_ASSERT_STRING_EQUAL(rs_trace_source(t), "model");
        rs_trace_free(t);
        snprintf(path, sizeof path, "%s/model-%s.json", rs_test_path("rep/traces"), names[i]);
        CU_ASSERT(rs_test_file_size(path) > 0);
        snprintf(path, sizeof path, "%s/sim-%s.csv", rs_test_path("rep/traces"), names[i]);
        CU_ASSERT_EQUAL(access(path, F_OK), -1); /* --no-sim */
    }
}

RS_TEST_MAIN(.suite = "report_entries", .scratch = "report_entries", .keep_failed = true)
