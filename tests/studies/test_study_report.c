/* test_report.c - compare (library and CLI), bad input of compare/plot/report, and the report's
 * numbers against the model for the default problem. The CLI runs as a subprocess
 * (RS_BINARY_DIR/bin/ringsim). */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"
#include "machine.h"
#include "cost.h"
#include "study_report.h"
#include "study_validate.h"
#include "test_main.h"
#include "harness.h"
#include "trace.h"

/* The default profile's machine as the CLI and the report build it (preset h100-sxm, bf16, no
 * overrides: its kernel curves and preset). */
static void profile_machine(rs_machine_t *m) {
    rs_hw_t hw;
    rs_err_t err;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &hw, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, m, &err), 0);
}

static void default_machine(rs_machine_t *m) {
    profile_machine(m);
    /* the dense peak model: every zigzag step computes the same (the compare tests rely on it; the
     * kernel model's step 0 is a causal call, the others full calls) */
    CU_ASSERT_EQUAL_FATAL(rs_machine_set_kernel(m, RS_IMPL_NONE, 0, NULL), 0);
}

/* The model's predicted trace of p on the default machine. */
static rs_trace_t *model_trace(const rs_problem_t *p) {
    rs_machine_t m;
    default_machine(&m);
    rs_err_t err;
    rs_schedule_t *s = rs_schedule_create(p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_trace_t *t = rs_trace_create("model");
    rs_walk_t w;
    CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, rs_trace_sink(t), NULL, &w, &err), 0);
    rs_trace_meta_problem(t, p);
    rs_trace_sort(t);
    rs_schedule_free(s);
    return t;
}

/* ------------------------------------------------------------------------------------------------
 * compare
 * ---------------------------------------------------------------------------------------------- */
static void test_compare_identical_is_zero(void) {
    rs_problem_t p;
    rs_problem_default(&p);
    rs_trace_t *a = model_trace(&p), *b = model_trace(&p);
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

/* T_comm is the recv (the block's arrival): a send that ends late (the sender saw its completion at
 * a later MPI call) changes nothing; a recv 20% longer is a +20% T_comm error at that (rank, step). */
static void test_compare_comm_is_recv(void) {
    rs_problem_t p;
    rs_problem_default(&p);
    rs_trace_t *a = model_trace(&p), *b = model_trace(&p);
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

static void test_compare_finds_slow_step(void) {
    rs_problem_t p;
    rs_problem_default(&p);
    rs_trace_t *a = model_trace(&p), *b = model_trace(&p);
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
    rs_trace_t *all = model_trace(&p);
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

static void test_compare_refuses_other_problem(void) {
    rs_problem_t p, q;
    rs_problem_default(&p);
    q = p;
    q.n_ranks = 4;
    q.layout = RS_LAYOUT_STRIPED;
    rs_trace_t *a = model_trace(&p), *b = model_trace(&q);
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

static void test_stats_and_crossover(void) {
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
static void test_bad_csv_exit_2(void) {
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
    /* sweep: bad range */
    CU_ASSERT_EQUAL(rs_test_ringsim("sweep --block 64K:256:x2 -q"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "--block 64K:256:x2: STOP must be >= START"));
}

static void test_report_dir_exists(void) {
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

/* ------------------------------------------------------------------------------------------------
 * The report's numbers are the model's
 * ---------------------------------------------------------------------------------------------- */
static void test_report_matches_model(void) {
    char args[2048];
    snprintf(args, sizeof args, "report -o %s --no-exec --no-sim --no-figures --quick", rs_test_path("rep"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "report.md"));
    char *md = rs_test_slurp(rs_test_path("rep/report.md"), NULL);
    char *html = rs_test_slurp(rs_test_path("rep/report.html"), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(md);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "</html>"));
    rs_machine_t m;
    profile_machine(&m);
    FILE *fp = fopen(rs_test_path("rep/summary.csv"), "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char line[4096];
    int rows = 0;
    double best_fwd = INFINITY, mk_bwd[RS_LAYOUT_COUNT] = {0};
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#' || strncmp(line, "layout,", 7) == 0) continue;
        char layout[32], pass[32], bound[32];
        long long block, cbs, rss;
        double bmin, bstar, tc, tm, ts, mk, ideal, eff, bmax, bmean;
        int n = sscanf(line, "%31[^,],%31[^,],%lld,%lf,%lf,%lf,%lf,%lf,%31[^,],%lf,%lf,%lf,%lf,%lf,%lld,%lld", layout, pass,
                       &block, &bmin, &bstar, &tc, &tm, &ts, bound, &mk, &ideal, &eff, &bmax, &bmean, &cbs, &rss);
        CU_ASSERT_EQUAL_FATAL(n, 16);
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
        RS_ASSERT_REL(eff, w.efficiency, 1e-15);
        RS_ASSERT_REL(bmax, w.busy_max_s, 1e-15);
        CU_ASSERT_EQUAL(cbs, w.comm_bound_steps);
        CU_ASSERT_EQUAL(rss, w.rank_steps);
        CU_ASSERT_STRING_EQUAL(bound, c.comm_bound ? "comm" : "compute");
        /* the prose states the same numbers */
        char want[128], t1[32];
        snprintf(want, sizeof want, "B_min = F c_b / (W c_f) = %.1f tokens", c.b_min_tokens);
        CU_ASSERT_PTR_NOT_NULL(strstr(md, want));
        snprintf(want, sizeof want, "| %s|%s|%s|", layout, pass, rs_fmt_time(w.makespan_s, t1, sizeof t1));
        CU_ASSERT_PTR_NOT_NULL(strstr(md, want));
        if (p.pass == RS_PASS_FORWARD && w.makespan_s < best_fwd) best_fwd = w.makespan_s;
        if (p.pass == RS_PASS_BACKWARD) mk_bwd[p.layout] = w.makespan_s;
        rows++;
    }
    fclose(fp);
    CU_ASSERT_EQUAL(rows, 6);
    /* the seed's B_min for this GQA problem: F/W * (2 * 8 * 128 * 2) / (4 * 128 * 32) */
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "B_min = F c_b / (W c_f) = 549.4 tokens"));
    char want[256], t1[32];
    snprintf(want, sizeof want, "**forward: zigzag wins** with a makespan of %s", rs_fmt_time(best_fwd, t1, sizeof t1));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, want));
    /* the backward: striped and zigzag within 0.5% of each other tie, each named once in the sentence */
    const bool z_best = mk_bwd[RS_LAYOUT_ZIGZAG] < mk_bwd[RS_LAYOUT_STRIPED];
    const double lo = fmin(mk_bwd[RS_LAYOUT_ZIGZAG], mk_bwd[RS_LAYOUT_STRIPED]);
    const double hi = fmax(mk_bwd[RS_LAYOUT_ZIGZAG], mk_bwd[RS_LAYOUT_STRIPED]);
    CU_ASSERT_FATAL(hi <= 1.005 * lo); /* the default problem's backward is such a tie */
    snprintf(want, sizeof want, "**backward: %s and %s (+%.2f%%) tie (within 0.5%%)** with a makespan of %s", z_best ? "zigzag" : "striped",
             z_best ? "striped" : "zigzag", 100 * (hi / lo - 1), rs_fmt_time(lo, t1, sizeof t1));
    const char *tie_line = strstr(md, want);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tie_line);
    const char *rest = tie_line + strlen(want), *end = strstr(rest, "The worst");
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);
    for (const char *q = rest; (q = strstr(q, z_best ? "striped" : "zigzag")) != NULL && q < end; q++)
        CU_FAIL("a tied layout is listed again among the others");
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "skipped (--no-exec)"));
    /* traces in both formats, readable */
    rs_err_t err;
    rs_trace_t *t = rs_trace_read_csv(rs_test_path("rep/traces/model-zigzag-backward.csv"), &err);
    CU_ASSERT_PTR_NOT_NULL(t);
    rs_trace_free(t);
    CU_ASSERT_EQUAL(access(rs_test_path("rep/traces/model-contiguous-forward.json"), R_OK), 0);
    CU_ASSERT_EQUAL(access(rs_test_path("rep/data/sweep-b.csv"), R_OK), 0);
    free(md);
    free(html);
}

/* ------------------------------------------------------------------------------------------------
 * Findings: each sentence from the rows of its figure, on planted data with a known answer
 * ---------------------------------------------------------------------------------------------- */
/* No "nan" or "inf" as a word (case-insensitive) in s. */
static bool no_nan_word(const char *s) {
    for (const char *q = s; *q; q++) {
        const bool start = q == s || !(isalnum((unsigned char)q[-1]) || q[-1] == '_');
        if (!start) continue;
        if ((!strncasecmp(q, "nan", 3) && !isalnum((unsigned char)q[3])) || (!strncasecmp(q, "inf", 3) && !isalnum((unsigned char)q[3])))
            return false;
    }
    return true;
}

/* An N sweep at fixed S on a machine of 8 devices per node: every step hides its transfer up to
 * N = 16 (overlap efficiency 1, then 0.95), at N = 32 the inter-node hop paces the ring (0.41),
 * 0.2 at 64 and 0.1 at 128. The sentence must say 0.90 or more up to N = 16, 0.410 at N = 32 and that
 * the ring spans 4 nodes there - and nothing about N = 64 being compute-bound. */
static void test_finding_scaling_planted(void) {
    static rs_sweep_point_t pts[8];
    memset(pts, 0, sizeof pts);
    const double eff[7] = {1, 1, 1, 0.95, 0.41, 0.2, 0.1};
    rs_machine_t m;
    default_machine(&m);
    for (int i = 0; i < 7; i++) {
        rs_sweep_point_t *p = &pts[i];
        snprintf(p->profile, sizeof p->profile, "planted");
        rs_problem_default(&p->problem);
        p->problem.seq_tokens = 131072, p->problem.n_ranks = 2 << i;
        p->machine = m;
        p->pred.t_step_s = 1e-3, p->pred.t_comp_s = eff[i] * 1e-3, p->pred.n_step = p->pred.n_comp = 1;
        p->pred.t_comm_s = 1e-5; /* the median transfer is an intra-node hop's: it says nothing of the slow hop */
    }
    snprintf(pts[7].profile, sizeof pts[7].profile, "other"); /* another profile's point is ignored */
    pts[7].problem = pts[0].problem, pts[7].pred.t_step_s = 1, pts[7].pred.t_comp_s = 0.1;
    char s[1200];
    rs_report_finding_scaling(pts, 8, "planted", 0.9, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "**Scaling, planted**"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "at S = 131072"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "0.90 or more up to N = 16"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "falls to 0.410 at N = 32 (B = 4096 tokens per rank; the ring spans 4 nodes"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "0.100 at N = 128"));
    CU_ASSERT_PTR_NULL(strstr(s, "N = 64"));
    CU_ASSERT_PTR_NULL(strstr(s, "compute-bound"));
    CU_ASSERT(no_nan_word(s));
    /* every N hides its transfers: the largest N is named with its efficiency */
    for (int i = 0; i < 7; i++) pts[i].pred.t_comp_s = 1e-3;
    rs_report_finding_scaling(pts, 7, "planted", 0.9, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "stays at 0.90 or more up to the largest N swept (1.000 at N = 128)"));
    /* a sweep that never ran: no number at all */
    pts[0].pred.t_step_s = 0;
    rs_report_finding_scaling(pts, 1, "planted", 0.9, s, sizeof s);
    CU_ASSERT(no_nan_word(s));
    rs_report_finding_scaling(pts, 7, "absent", 0.9, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "no point of the N sweep ran"));
}

/* B sweeps with a known crossing (T_comm = T_comp at B = 256 on a log-log straight line) and one
 * without (the causal sweep never crosses in B = 64..1024): the sentence names 256 and says
 * "nowhere in the swept range (B = 64..1024)"; B* = 0 and B* = NaN in the threshold sentence are
 * words, not numbers. */
/* The measured B sweep of the calibrated configuration (validate's): calibrated F, W, L and the
 * closed form's B* and B_min each appear once with its own value (a shared buffer once printed F
 * where B* belonged); the measured T_comm crosses the median T_comp at B = 128, the model's at
 * B = 64; validate's own crossovers (seed's threshold) at B = 17 measured and not reached by the
 * model. B* 0 and NaN are words. */
static void test_finding_measured_crossover_planted(void) {
    static rs_sweep_point_t pts[5];
    memset(pts, 0, sizeof pts);
    for (int i = 0; i < 5; i++) {
        const double b = 16 << i;
        rs_sweep_point_t *p = &pts[i];
        snprintf(p->series, sizeof p->series, "validate");
        rs_problem_default(&p->problem);
        p->problem.n_ranks = 2, p->problem.seq_tokens = 2 * (int64_t)b;
        p->has_exec = true;
        p->exec.t_comp_s = b * b, p->exec.t_comm_s = 128 * b; /* equal at B = 128 */
        p->pred.t_comp_s = b * b, p->pred.t_comm_s = 64 * b;  /* equal at B = 64 */
        p->machine.flops_per_s = 31.11e9, p->machine.intra.bw_bytes_per_s = 15.646e9, p->machine.intra.latency_s = 2.641e-6;
        p->closed.b_star_tokens = 23.4, p->closed.b_min_tokens = 9;
    }
    char s[1600];
    rs_report_finding_measured_crossover(pts, 5, 17, NAN, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "F_eff peak 31.11 GFLOP/s, W = 15.646 GB/s, latency 2.641 us"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "compute alone (the seed's threshold) at B = 17 tokens and the calibrated model's walk "
                                     "nowhere in the swept range (B = 16..256)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "host cost) at B = 128 tokens, the model's at B = 64 tokens"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "B* (compute with the host cost against the full-rate transfer) is 23 tokens; B_min = 9 tokens"));
    CU_ASSERT(no_nan_word(s));
    for (int i = 0; i < 5; i++) pts[i].closed.b_star_tokens = 0;
    rs_report_finding_measured_crossover(pts, 5, NAN, NAN, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "is not found (compute-bound at every B)"));
    CU_ASSERT(no_nan_word(s));
    for (int i = 0; i < 5; i++) pts[i].closed.b_star_tokens = NAN;
    rs_report_finding_measured_crossover(pts, 5, NAN, NAN, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "is not found (transfer-bound at every B searched)"));
    CU_ASSERT(no_nan_word(s));
    rs_report_finding_measured_crossover(pts, 0, NAN, NAN, s, sizeof s);
    CU_ASSERT_STRING_EQUAL(s, "The measured B sweep did not run.");
}

static void test_finding_crossover_planted(void) {
    static rs_sweep_point_t full[5], causal[5];
    memset(full, 0, sizeof full), memset(causal, 0, sizeof causal);
    for (int i = 0; i < 5; i++) {
        const double b = 64 << i;
        rs_sweep_point_t *f = &full[i], *c = &causal[i];
        snprintf(f->series, sizeof f->series, "s/full");
        snprintf(c->series, sizeof c->series, "s/causal");
        rs_problem_default(&f->problem);
        f->problem.n_ranks = 8, f->problem.seq_tokens = 8 * (int64_t)b;
        c->problem = f->problem;
        f->pred.t_comp_s = b * b, f->pred.t_comm_s = 256 * b; /* equal at B = 256 */
        c->pred.t_comp_s = b * b, c->pred.t_comm_s = 32 * b;  /* equal at B = 32: below the sweep */
        f->closed.b_star_tokens = 250, f->closed.b_min_tokens = 200;
    }
    char s[1200];
    rs_report_finding_crossover(&(rs_report_crossover_in_t){full, 5, causal, 5, 0, "model walk", 8}, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "full blocks cross at B = 256 tokens (B* = 250, B_min = 200)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "under the causal mask nowhere in the swept range (B = 64..1024)"));
    CU_ASSERT(no_nan_word(s));
    rs_closed_t cl;
    memset(&cl, 0, sizeof cl);
    cl.block_tokens = 1024, cl.b_min_tokens = 100, cl.t_comp_s = 1e-3, cl.t_comm_s = 1e-4;
    rs_report_finding_threshold(&cl, RS_PASS_FORWARD, RS_LAYOUT_ZIGZAG, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "no B* (the zigzag layout's middle step is compute-bound at every B)"));
    CU_ASSERT(no_nan_word(s));
    cl.b_star_tokens = NAN, cl.comm_bound = true, cl.t_comp_s = 0;
    rs_report_finding_threshold(&cl, RS_PASS_BACKWARD, RS_LAYOUT_ZIGZAG, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "transfer-bound at every B searched: up to 2^40 tokens, 2^24 with kernel curves"));
    CU_ASSERT(no_nan_word(s));
    cl.b_star_tokens = 512, cl.t_comp_s = 2e-4;
    rs_report_finding_threshold(&cl, RS_PASS_FORWARD, RS_LAYOUT_ZIGZAG, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "B* = 512.0 tokens (the largest B at which the zigzag layout's middle step is transfer-bound). This problem runs B = 1024, 2.0x B*"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "(T_comm / T_comp = 0.500)"));
}

/* The CSV text written to the scratch file name and read back into *t. Returns 0, or -1. */
static int planted_table(const char *name, const char *csv, rs_table_t *t) {
    const char *path = rs_test_path(name);
    FILE *fp = fopen(path, "w");
    if (!fp) return -1;
    fputs(csv, fp);
    fclose(fp);
    rs_err_t err;
    return rs_table_read(path, t, &err);
}

/* The held-out table of validate --summary (planted CSV): its rows become the report's table (empty
 * cells "-") and the sentence states the ranges and the largest of the held-out rows only; with the
 * spread columns (validate with 2 or more rounds) the rows show the measurement's own spread and the
 * sentence its range over the held-out rows only. A table without them says nothing of it. */
static void test_finding_heldout_planted(void) {
    rs_table_t t;
    CU_ASSERT_EQUAL_FATAL(planted_table("heldout.csv",
                                        "n_ranks,cores,layout,pass,mask,q_heads,kv_heads,fitted,t_comp_med,t_comp_p95,t_comm_med,"
                                        "t_comm_p95,t_step_med,t_step_p95,makespan_med,makespan_max,crossover_meas,crossover_model,"
                                        "b_lo,b_hi,t_comp_spread,t_comm_spread,t_step_spread,makespan_spread\n"
                                        "2,2,contiguous,forward,full,2,2,1,0.01,0.02,0.5,0.6,0.01,0.02,0.01,0.02,64,70,8,1024,0.9,0.9,0.9,0.9\n"
                                        "2,2,zigzag,forward,causal,2,2,0,0.04,0.1,0.08,0.2,0.05,0.1,0.06,0.09,,,8,1024,0.01,0.03,0.02,0.04\n"
                                        "2,2,striped,backward,causal,2,2,0,0.03,0.1,0.12,0.3,0.07,0.1,0.09,0.2,,,8,1024,0.02,0.11,0.05,0.06\n",
                                        &t),
                          0);
    char s[1400], rows[8][512];
    int n = 0;
    rs_report_heldout_rows(&t, rows, 8, &n);
    CU_ASSERT_EQUAL(n, 4);
    CU_ASSERT_PTR_NOT_NULL(strstr(rows[0], "|own spread T_comm / T_step / makespan"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rows[1], "contiguous forward full (N = 2)|fitted|1.0% (2.0%)|50.0% (60.0%)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rows[1], "|64 / 70"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rows[2], "zigzag forward causal (N = 2)|held out|"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rows[2], "|- / -|3.0% / 2.0% / 4.0%"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rows[3], "|11.0% / 5.0% / 6.0%"));
    rs_report_finding_heldout(&t, 0.10, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "Held out (2 configurations the calibration did not measure, N = 2)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "T_comm 8.0%..12.0% (largest: striped backward causal)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "T_step 5.0%..7.0%"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "1 of 2 meet T_comm, T_step and makespan within 10%."));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "own spread over their rounds"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "T_comm 3.0%..11.0%, T_step 2.0%..5.0%, makespan 4.0%..6.0%"));
    /* striped backward causal misses T_comm by 2 points with a T_comm spread of 11% */
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "Misses by no more than the configuration's own spread (error <= 10% + the spread in "
                                     "every metric missed): 1 of 1."));
    CU_ASSERT_PTR_NULL(strstr(s, "50.0")); /* the fitted row is not held out */
    CU_ASSERT_PTR_NULL(strstr(s, "90.0")); /* nor is its spread */
    CU_ASSERT(no_nan_word(s));
    for (int i = 0; i < n; i++) CU_ASSERT(no_nan_word(rows[i]));
    rs_table_free(&t);
    CU_ASSERT_EQUAL_FATAL(planted_table("heldout_old.csv",
                                        "n_ranks,cores,layout,pass,mask,q_heads,kv_heads,fitted,t_comp_med,t_comp_p95,t_comm_med,"
                                        "t_comm_p95,t_step_med,t_step_p95,makespan_med,makespan_max,crossover_meas,crossover_model,"
                                        "b_lo,b_hi\n2,2,zigzag,forward,causal,2,2,0,0.04,0.1,0.08,0.2,0.05,0.1,0.06,0.09,,,8,1024\n",
                                        &t),
                          0);
    rs_report_heldout_rows(&t, rows, 8, &n);
    CU_ASSERT_PTR_NOT_NULL(strstr(rows[1], "|- / -|-"));
    rs_report_finding_heldout(&t, 0.10, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "1 of 1 meet"));
    CU_ASSERT_PTR_NULL(strstr(s, "own spread"));
    rs_table_free(&t);
    /* three misses: within the spread in its one metric; beyond it in T_step (25% with 5%); within it
     * in T_comm but beyond in the makespan - only the first is within its spread */
    CU_ASSERT_EQUAL_FATAL(planted_table("heldout_miss.csv",
                                        "n_ranks,cores,layout,pass,mask,q_heads,kv_heads,fitted,t_comp_med,t_comp_p95,t_comm_med,"
                                        "t_comm_p95,t_step_med,t_step_p95,makespan_med,makespan_max,crossover_meas,crossover_model,"
                                        "b_lo,b_hi,t_comp_spread,t_comm_spread,t_step_spread,makespan_spread\n"
                                        "2,2,zigzag,forward,causal,2,2,0,0.04,0.1,0.15,0.2,0.05,0.1,0.06,0.09,,,8,1024,0.01,0.06,0.02,0.04\n"
                                        "2,2,striped,backward,full,2,2,0,0.03,0.1,0.08,0.3,0.25,0.3,0.09,0.2,,,8,1024,0.02,0.01,0.05,0.06\n"
                                        "2,2,zigzag,backward,causal,2,2,0,0.03,0.1,0.13,0.3,0.07,0.1,0.30,0.4,,,8,1024,0.02,0.05,0.05,0.10\n",
                                        &t),
                          0);
    rs_report_finding_heldout(&t, 0.10, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "0 of 3 meet"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "every metric missed): 1 of 3."));
    CU_ASSERT(no_nan_word(s));
    rs_table_free(&t);
}

/* validate's spread of the rounds: two rounds, the second every time x 1.2 of the first, against
 * their median (x 1.1): every (rank, step) point of every metric and the makespan are 0.1 / 1.1 off,
 * in both rounds; one round gives no points. */
static void test_validate_round_spread(void) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.n_ranks = 4;
    rs_trace_t *r0 = model_trace(&p), *r1 = rs_trace_create("model"), *med = rs_trace_create("model");
    CU_ASSERT_PTR_NOT_NULL_FATAL(r1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(med);
    for (size_t e = 0; e < rs_trace_count(r0); e++) {
        rs_event_t a = rs_trace_events(r0)[e], b = a;
        a.start_s *= 1.2, a.end_s *= 1.2, b.start_s *= 1.1, b.end_s *= 1.1;
        CU_ASSERT_EQUAL_FATAL(rs_trace_add(r1, &a), 0);
        CU_ASSERT_EQUAL_FATAL(rs_trace_add(med, &b), 0);
    }
    rs_trace_t *rounds[2] = {r0, r1};
    const size_t cap = 2 * rs_trace_count(r0);
    double mk[4];
    rs_validate_spread_t sp = {.mk = mk};
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) sp.pts[k] = calloc(cap, sizeof(double));
    rs_err_t err;
    CU_ASSERT_EQUAL(rs_validate_round_spread(rounds, 1, med, p.pass, &sp, &err), 0);
    CU_ASSERT_EQUAL(sp.n_mk, 0);
    CU_ASSERT_EQUAL(sp.n_pts[RS_CMP_COMM], 0);
    CU_ASSERT_EQUAL(rs_validate_round_spread(rounds, 2, med, p.pass, &sp, &err), 0);
    CU_ASSERT_EQUAL(sp.n_pts[RS_CMP_COMP], 2 * 16); /* N = 4 forward: 16 computes, 12 transfers, 16 steps per round */
    CU_ASSERT_EQUAL(sp.n_pts[RS_CMP_COMM], 2 * 12);
    CU_ASSERT_EQUAL(sp.n_pts[RS_CMP_STEP], 2 * 16);
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++)
        for (size_t i = 0; i < sp.n_pts[k]; i++) CU_ASSERT_DOUBLE_EQUAL(sp.pts[k][i], 0.1 / 1.1, 1e-9);
    CU_ASSERT_EQUAL_FATAL(sp.n_mk, 2);
    CU_ASSERT_DOUBLE_EQUAL(mk[0], 0.1 / 1.1, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(mk[1], 0.1 / 1.1, 1e-9);
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) free(sp.pts[k]);
    rs_trace_free(r0), rs_trace_free(r1), rs_trace_free(med);
}

int main(void) {
    static const rs_test_case_t cmp[] = {
        {"identical traces: zero error", test_compare_identical_is_zero},
        {"one step 10% slower: that step, +10%", test_compare_finds_slow_step},
        {"T_comm is the recv: a late send end changes nothing", test_compare_comm_is_recv},
        {"different problems refused", test_compare_refuses_other_problem},
        {"median, p95, crossover", test_stats_and_crossover},
        {NULL, NULL}};
    static const rs_test_case_t bad[] = {
        {"bad CSV: file:line, exit 2, no output", test_bad_csv_exit_2},
        {"report dir exists without --force: exit 2", test_report_dir_exists},
        {NULL, NULL}};
    static const rs_test_case_t rep[] = {{"report numbers equal the model's", test_report_matches_model},
                                         {"scaling sentence from planted N sweep (crossing at N = 32, inter-node)", test_finding_scaling_planted},
                                         {"crossover and threshold sentences: planted crossing, none reached, no B*", test_finding_crossover_planted},
                                         {"measured crossover sentence: planted sweep, each number its own", test_finding_measured_crossover_planted},
                                         {"held-out table and sentence from a planted summary", test_finding_heldout_planted},
                                         {"validate's spread of the rounds on planted rounds", test_validate_round_spread},
                                         {NULL, NULL}};
    const rs_test_suite_t suites[] = {{"compare", cmp}, {"bad-input", bad}, {"report", rep}};
    if (rs_test_scratch("report") != 0) return 1;
    int rc = rs_test_main(suites, 3);
    if (rc == 0) rs_test_cleanup();
    return rc;
}
