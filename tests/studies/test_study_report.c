/* test_study_report.c - the report study (studies/study_report.c): the directory refused before
 * anything is written (exists without --force, not a folder, too long a name), in the library and
 * through the CLI. Its phases have their own tests (test_study_report_entries.c, _sweeps, _exec,
 * _figures, _doc).
 *
 * Here too, until they move to tests/traces/ with the module they test (traces/compare.c, the CSV
 * table reader of plots/): compare (library and CLI), the median, p95 and crossover estimators, and
 * the bad input of compare and plot through the CLI. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"
#include "harness.h"
#include "stats.h"
#include "studies_fixtures.h"
#include "study_report.h"
#include "test_main.h"
#include "trace.h"

RS_TEST_SUITE("report")
/* ------------------------------------------------------------------------------------------------
 * The report's directory
 * ---------------------------------------------------------------------------------------------- */
RS_TEST(test_report_dir_exists, "report dir exists without --force: exit 2") {
    mkdir(rs_test_path("existing"), 0777);
    char args[2048];
    snprintf(args, sizeof args, "report -o %s --no-exec --no-sim --no-figures --quick", rs_test_path("existing"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "exists; give --force"));
    CU_ASSERT_EQUAL(access(rs_test_path("existing/report.md"), F_OK), -1);
    snprintf(args, sizeof args, "report -o %s --seq 1000 --no-exec", rs_test_path("never"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_EQUAL(access(rs_test_path("never"), F_OK), -1);
}

/* In the library: each refusal is bad input, before anything is written. */
RS_TEST(test_report_dir_refused, "report dir refused in the library: bad input, nothing written") {
    rs_setup_t setup;
    rs_report_setup_default(&setup);
    rs_err_t err = {0};
    rs_test_setup_finish(&setup);
    rs_report_in_t in;
    rs_report_defaults(&in);
    CU_ASSERT_STRING_EQUAL(in.dir, "ringsim-report");
    CU_ASSERT_EQUAL(in.exec_timeout_s, 240);
    CU_ASSERT_EQUAL(setup.n_layouts, RS_LAYOUT_COUNT);
    CU_ASSERT_EQUAL(setup.n_passes, RS_PASS_COUNT);
    in.setup = &setup, in.no_exec = in.no_sim = in.no_figures = in.quick = true;
    char dir[1200];
    snprintf(dir, sizeof dir, "%s", rs_test_path("lib-existing"));
    mkdir(dir, 0777);
    in.dir = dir;
    CU_ASSERT_EQUAL(rs_study_report(&in, &err), -1);
    char want[1400];
    snprintf(want, sizeof want, "-o %s: exists; give --force to write into it, or another directory", dir);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    snprintf(dir, sizeof dir, "%s", rs_test_path("lib-file"));
    rs_test_write_text(dir, "x\n");
    in.force = true;
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_study_report(&in, &err), -1);
    snprintf(want, sizeof want, "-o %s: exists and is not a folder", dir);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    char longer[402];
    memset(longer, 'd', sizeof longer - 1), longer[sizeof longer - 1] = 0;
    in.dir = longer;
    CU_ASSERT_EQUAL(rs_study_report(&in, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "-o: at most 400 characters");
    CU_ASSERT_EQUAL(access(longer, F_OK), -1);
}

RS_TEST_SUITE("compare")
/* ------------------------------------------------------------------------------------------------
 * compare
 * ---------------------------------------------------------------------------------------------- */
RS_TEST(test_compare_identical_is_zero, "identical traces: zero error") {
    rs_problem_t p;
    rs_problem_default(&p);
    rs_trace_t *a = rs_test_model_trace(&p), *b = rs_test_model_trace(&p);
    rs_compare_t c;
    rs_err_t err;
    CU_ASSERT_EQUAL_FATAL(rs_compare_check_problem(a, b, "a", "b", &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_compare_traces(a, b, &c, &err), 0);
    for (int m = 0; m < RS_CMP_METRIC_COUNT; m++) {
        CU_ASSERT(c.stats[m].n > 0);
        CU_ASSERT_EQUAL(c.stats[m].max_abs, 0.0);
        CU_ASSERT_EQUAL(c.stats[m].median_abs, 0.0);
        CU_ASSERT_EQUAL(c.stats[m].p95_abs, 0.0);
    }
    /* default: N = 8 forward: 64 computes and steps, 7 x 8 transfer steps */
    CU_ASSERT_EQUAL(c.stats[RS_CMP_COMP].n, 64);
    CU_ASSERT_EQUAL(c.stats[RS_CMP_STEP].n, 64);
    CU_ASSERT_EQUAL(c.stats[RS_CMP_COMM].n, 56);
    CU_ASSERT_EQUAL(c.makespan_rel, 0.0);
    CU_ASSERT(c.makespan_ref_s > 0);
    CU_ASSERT_EQUAL(c.only_ref + c.only_other, 0);
    rs_compare_free(&c);
    rs_trace_free(a);
    rs_trace_free(b);
}

/* Make (rank, step) of t 10% slower: its compute and step events last 1.1x. */
static void slow_down(rs_trace_t *t, int rank, int step, double factor) {
    rs_event_t *e = rs_trace_events_mut(t);
    for (size_t i = 0; i < rs_trace_count(t); i++)
        if (e[i].rank == rank && e[i].step == step && (e[i].kind == RS_EV_COMPUTE || e[i].kind == RS_EV_STEP))
            e[i].end_s = e[i].start_s + factor * (e[i].end_s - e[i].start_s);
}

RS_TEST(test_compare_finds_slow_step, "one step 10% slower: that step, +10%") {
    rs_problem_t p;
    rs_problem_default(&p);
    rs_trace_t *a = rs_test_model_trace(&p), *b = rs_test_model_trace(&p);
    slow_down(b, 3, 2, 1.1);
    rs_compare_t c;
    rs_err_t err;
    CU_ASSERT_EQUAL_FATAL(rs_compare_traces(a, b, &c, &err), 0);
    for (int m = 0; m < RS_CMP_METRIC_COUNT; m += 2) { /* t_comp and t_step */
        const rs_cmp_stats_t *s = &c.stats[m];
        CU_ASSERT_EQUAL(s->worst.rank, 3);
        CU_ASSERT_EQUAL(s->worst.step, 2);
        RS_ASSERT_REL(s->worst.rel_err, 0.10, 1e-9);
        RS_ASSERT_REL(s->max_abs, 0.10, 1e-9);
        CU_ASSERT_EQUAL(s->median_abs, 0.0);
        CU_ASSERT_EQUAL(s->p95_abs, 0.0); /* 1 of 64 is above the 95th percentile */
    }
    CU_ASSERT_EQUAL(c.stats[RS_CMP_COMM].max_abs, 0.0);
    /* and through the CLI, with the per-step CSV */
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_csv(a, rs_test_path("ref.csv"), &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_csv(b, rs_test_path("slow.csv"), &err), 0);
    char args[2048];
    snprintf(args, sizeof args, "compare %s %s --csv %s", rs_test_path("ref.csv"), rs_test_path("slow.csv"), rs_test_path("cmp.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "+10.00%  (3, 2, forward)"));
    char *csv = rs_test_slurp(rs_test_path("cmp.csv"), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\n3,2,forward,t_step,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "# t_step: n=64 median_abs=0 p95_abs=0 max_abs=0.1"));
    free(csv);
    /* --fail-above judges p95 and the makespan: one slow step of 64 passes 5%, all slow fails */
    snprintf(args, sizeof args, "compare -q %s %s --fail-above 0.05", rs_test_path("ref.csv"), rs_test_path("slow.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    rs_trace_t *all = rs_test_model_trace(&p);
    for (int r = 0; r < 8; r++)
        for (int k = 0; k < 8; k++) slow_down(all, r, k, 1.1);
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_csv(all, rs_test_path("allslow.csv"), &err), 0);
    rs_trace_free(all);
    snprintf(args, sizeof args, "compare -q %s %s --fail-above 0.05", rs_test_path("ref.csv"), rs_test_path("allslow.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 1);
    rs_compare_free(&c);
    rs_trace_free(a);
    rs_trace_free(b);
}

/* T_comm is the recv (the block's arrival): a send that ends late (the sender saw its completion at
 * a later MPI call) changes nothing; a recv 20% longer is a +20% T_comm error at that (rank, step). */
RS_TEST(test_compare_comm_is_recv, "T_comm is the recv: a late send end changes nothing") {
    rs_problem_t p;
    rs_problem_default(&p);
    rs_trace_t *a = rs_test_model_trace(&p), *b = rs_test_model_trace(&p);
    rs_event_t *e = rs_trace_events_mut(b);
    for (size_t i = 0; i < rs_trace_count(b); i++) {
        if (e[i].kind == RS_EV_SEND) e[i].end_s = e[i].start_s + 3.0 * (e[i].end_s - e[i].start_s);
        if (e[i].kind == RS_EV_RECV && e[i].rank == 5 && e[i].step == 1)
            e[i].end_s = e[i].start_s + 1.2 * (e[i].end_s - e[i].start_s);
    }
    rs_compare_t c;
    rs_err_t err;
    CU_ASSERT_EQUAL_FATAL(rs_compare_traces(a, b, &c, &err), 0);
    const rs_cmp_stats_t *s = &c.stats[RS_CMP_COMM];
    CU_ASSERT_EQUAL(s->n, 56);
    CU_ASSERT_EQUAL(s->worst.rank, 5);
    CU_ASSERT_EQUAL(s->worst.step, 1);
    RS_ASSERT_REL(s->worst.rel_err, 0.20, 1e-9);
    CU_ASSERT_EQUAL(s->median_abs, 0.0);
    rs_trace_summary_t sa, sb;
    CU_ASSERT_EQUAL_FATAL(rs_trace_summarize(a, RS_PASS_FORWARD, &sa, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_trace_summarize(b, RS_PASS_FORWARD, &sb, &err), 0);
    CU_ASSERT_EQUAL(sa.t_comm_s, sb.t_comm_s); /* median of 56: one longer recv does not move it */
    /* compute split by whether the step transfers: N = 8 forward, the last step sends nothing */
    CU_ASSERT_EQUAL(sa.n_comp_xfer, 56);
    CU_ASSERT_EQUAL(sa.n_comp_alone, 8);
    CU_ASSERT(sa.t_comp_xfer_s > 0 && sa.t_comp_alone_s > 0);
    RS_ASSERT_REL(sa.t_comp_xfer_s, sa.t_comp_alone_s, 1e-9); /* zigzag is balanced, no host cost */
    rs_compare_free(&c);
    rs_trace_free(a);
    rs_trace_free(b);
}

RS_TEST(test_compare_refuses_other_problem, "different problems refused") {
    rs_problem_t p, q;
    rs_problem_default(&p);
    q = p;
    q.n_ranks = 4;
    q.layout = RS_LAYOUT_STRIPED;
    rs_trace_t *a = rs_test_model_trace(&p), *b = rs_test_model_trace(&q);
    rs_err_t err;
    CU_ASSERT_EQUAL(rs_compare_check_problem(a, b, "A", "B", &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "n_ranks 8 vs 4"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "layout zigzag vs striped"));
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_csv(a, rs_test_path("p8.csv"), &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_csv(b, rs_test_path("p4.csv"), &err), 0);
    char args[2048];
    snprintf(args, sizeof args, "compare %s %s", rs_test_path("p8.csv"), rs_test_path("p4.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "describe different problems: n_ranks 8 vs 4"));
    rs_trace_free(a);
    rs_trace_free(b);
}

RS_TEST(test_stats_and_crossover, "median, p95, crossover") {
    double v[] = {5, 1, 4, 2, 3};
    RS_ASSERT_REL(rs_median(v, 5), 3, 0);
    double w[] = {4, 1, 3, 2};
    RS_ASSERT_REL(rs_median(w, 4), 2.5, 0);
    double x[20];
    for (int i = 0; i < 20; i++) x[i] = 20 - i; /* 1..20 */
    RS_ASSERT_REL(rs_percentile(x, 20, 0.95), 19, 0); /* ceil(19) = 19th smallest */
    /* T_comp = B^2, T_comm = 100 B: cross at B = 100; points at 64 and 128 (log-log interpolation
     * is exact for power laws) */
    double b[] = {32, 64, 128, 256}, tc[4], tm[4];
    for (int i = 0; i < 4; i++) tc[i] = b[i] * b[i], tm[i] = 100 * b[i];
    RS_ASSERT_REL(rs_crossover_b(b, tc, tm, 4), 100, 1e-12);
    CU_ASSERT(isnan(rs_crossover_b(b, tc, tc, 0)));
    double big[] = {1e9, 1e9, 1e9, 1e9};
    CU_ASSERT(isnan(rs_crossover_b(b, tc, big, 4))); /* never crosses */
    /* the fitted crossing: exact on a power law; with the ratio at B = 16 10% high, interpolation
     * moves to 21.604 and the line through 8..64 to 20.728 (computed independently, in Python: least
     * squares of log ratio on log B) */
    double b2[] = {8, 16, 32, 64}, c2[4], m2[4];
    for (int i = 0; i < 4; i++) c2[i] = 1, m2[i] = pow(b2[i] / 20, -0.7);
    RS_ASSERT_REL(rs_crossover_b_fit(b2, c2, m2, 4, 2), 20, 1e-12);
    m2[1] *= 1.1;
    RS_ASSERT_REL(rs_crossover_b(b2, c2, m2, 4), 21.60443680752496, 1e-12);
    RS_ASSERT_REL(rs_crossover_b_fit(b2, c2, m2, 4, 2), 20.728171749116598, 1e-12);
    CU_ASSERT(isnan(rs_crossover_b_fit(b, tc, big, 4, 2)));
    RS_ASSERT_REL(rs_crossover_b_fit(b, tc, tm, 4, 0), 100, 1e-12); /* half 0: the interpolation */
}

/* ------------------------------------------------------------------------------------------------
 * Bad input through the CLI: file:line, exit 2, no output
 * ---------------------------------------------------------------------------------------------- */
RS_TEST(test_bad_csv_exit_2, "bad CSV: file:line, exit 2, no output") {
    rs_test_write_text(rs_test_path("bad-busy.csv"), "# note\nrank,contiguous,striped,zigzag\n0,1e-3,1e-3,1e-3\n1,1e-3,oops,1e-3\n");
    char args[2048], want[1200];
    snprintf(args, sizeof args, "plot layout-busy %s -o %s", rs_test_path("bad-busy.csv"), rs_test_path("bad.png"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    snprintf(want, sizeof want, "%s:4: expected a number in column 'striped', got 'oops'", rs_test_path("bad-busy.csv"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, want));
    CU_ASSERT_EQUAL(access(rs_test_path("bad.png"), F_OK), -1);
    /* a row with a missing column */
    rs_test_write_text(rs_test_path("bad-busy2.csv"), "rank,contiguous,striped,zigzag\n0,1e-3,1e-3\n");
    snprintf(args, sizeof args, "plot layout-busy %s -o %s", rs_test_path("bad-busy2.csv"), rs_test_path("bad.png"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    snprintf(want, sizeof want, "%s:2: expected 4 comma-separated columns", rs_test_path("bad-busy2.csv"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, want));
    /* a malformed trace given to compare */
    rs_test_write_text(rs_test_path("bad-trace.csv"), "# ringsim-trace=1\n# source=x\nsource,rank,step,pass,kind,start_s,end_s,flops,bytes,peer\n"
                                       "x,0,0,forward,compute,0,1,0,0\n");
    snprintf(args, sizeof args, "compare %s %s", rs_test_path("bad-trace.csv"), rs_test_path("bad-trace.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    snprintf(want, sizeof want, "%s:4: expected 10 comma-separated columns", rs_test_path("bad-trace.csv"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, want));
    /* a missing file and an unknown kind */
    snprintf(args, sizeof args, "plot timeline %s -o %s", rs_test_path("none.csv"), rs_test_path("bad.png"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    snprintf(args, sizeof args, "plot pie %s -o %s", rs_test_path("bad-busy.csv"), rs_test_path("bad.png"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    snprintf(args, sizeof args, "plot layout-busy %s -o %s", rs_test_path("bad-busy.csv"), rs_test_path("bad.gif"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
}

RS_TEST_MAIN(.suite = NULL, .scratch = "report", .keep_failed = true)
