/* test_compare.c - compare (traces/compare.c): the statistics of two traces worked out by hand on a
 * 3-step ring (medians, p95, max, the worst pair, undefined and unmatched pairs, the makespan), the
 * printed table and the CSV, the problem and event checks with their exact messages, the summary of a
 * pass, the crossover block size interpolated and fitted. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "harness.h"
#include "test_main.h"
#include "traces_check.h"
#include "trace.h"

static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* c's table (rs_compare_print, REF named ref.csv) as printed into file; the caller frees it. */
static char *printed(const rs_compare_t *c, const char *other, const char *file) {
    FILE *fp = fopen(rs_test_path(file), "w");
    CU_ASSERT_FATAL(fp != NULL);
    rs_compare_print(c, "ref.csv", other, fp);
    fclose(fp);
    char *text = rs_test_slurp(rs_test_path(file), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    return text;
}

/* c's CSV (rs_compare_write_csv, REF named ref.csv) as written into file; the caller frees it. */
static char *written(const rs_compare_t *c, const char *other, const char *file) {
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_compare_write_csv(c, "ref.csv", other, rs_test_path(file), &err), 0);
    char *text = rs_test_slurp(rs_test_path(file), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    return text;
}

static void add(rs_trace_t *t, int rank, int step, rs_event_kind_t kind, double s, double e) {
    rs_event_t ev = {rank, step, RS_PASS_FORWARD, kind, kind == RS_EV_SEND || kind == RS_EV_RECV ? 0 : -1, s, e, 0, 0};
    CU_ASSERT_EQUAL_FATAL(rs_trace_add(t, &ev), 0);
}

/* REF and OTHER: rank 0 runs 3 steps (durations below); rank 1 has only step 0, a zero-length compute
 * in REF (and a recv OTHER lacks). Per rank-0 step, ref -> other:
 *   t_comp  1 -> 1.1 (+10%)   2 -> 1.5 (-25%)   1 -> 1 (0%)
 *   t_comm  2 -> 1.5 (-25%)   1 -> 1.2 (+20%)   (the last step moves nothing)
 *   t_step  2 -> 2 (0%)       2 -> 2.4 (+20%)   1 -> 1.2 (+20%)
 * makespan 5 -> 5.6 (+12%). */
static rs_trace_t *ref_trace(void) {
    rs_trace_t *t = rs_trace_create("model");
    add(t, 0, 0, RS_EV_COMPUTE, 0, 1), add(t, 0, 0, RS_EV_RECV, 0, 2), add(t, 0, 0, RS_EV_STEP, 0, 2);
    add(t, 0, 1, RS_EV_COMPUTE, 2, 4), add(t, 0, 1, RS_EV_RECV, 2, 3), add(t, 0, 1, RS_EV_STEP, 2, 4);
    add(t, 0, 2, RS_EV_COMPUTE, 4, 5), add(t, 0, 2, RS_EV_STEP, 4, 5);
    add(t, 1, 0, RS_EV_COMPUTE, 1, 1), add(t, 1, 0, RS_EV_RECV, 1, 2);
    return t;
}

static rs_trace_t *other_trace(void) {
    rs_trace_t *t = rs_trace_create("sim");
    add(t, 0, 2, RS_EV_STEP, 4.4, 5.6), add(t, 0, 2, RS_EV_COMPUTE, 4.4, 5.4); /* any order */
    add(t, 0, 0, RS_EV_COMPUTE, 0, 1.1), add(t, 0, 0, RS_EV_RECV, 0, 1.5), add(t, 0, 0, RS_EV_STEP, 0, 2);
    add(t, 0, 0, RS_EV_SEND, 0, 1.5); /* only in OTHER */
    add(t, 0, 1, RS_EV_COMPUTE, 2, 3.5), add(t, 0, 1, RS_EV_RECV, 2, 3.2), add(t, 0, 1, RS_EV_STEP, 2, 4.4);
    add(t, 1, 0, RS_EV_COMPUTE, 1, 1.5);
    return t;
}

RS_TEST(test_statistics_by_hand, "statistics of a 3-step ring by hand; table and CSV") {
    rs_trace_t *a = ref_trace(), *b = other_trace();
    rs_compare_t c;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_compare_traces(a, b, &c, &err), 0);
    const rs_cmp_stats_t *comp = &c.stats[RS_CMP_COMP], *comm = &c.stats[RS_CMP_COMM], *step = &c.stats[RS_CMP_STEP];
    /* t_comp: |err| 0, 0.1, 0.25 and rank 1's 0 -> 0.5 undefined */
    CU_ASSERT_EQUAL(comp->n, 3);
    CU_ASSERT_EQUAL(comp->n_undefined, 1);
    RS_ASSERT_REL(comp->median_abs, 0.1, 1e-12);
    RS_ASSERT_REL(comp->p95_abs, 0.25, 1e-12); /* nearest rank: the ceil(0.95 * 3) = 3rd */
    RS_ASSERT_REL(comp->max_abs, 0.25, 1e-12);
    RS_ASSERT_REL(comp->worst.rel_err, -0.25, 1e-12);
    CU_ASSERT(comp->worst.rank == 0 && comp->worst.step == 1 && comp->worst.pass == RS_PASS_FORWARD);
    CU_ASSERT(comp->worst.ref_s == 2 && comp->worst.other_s == 1.5);
    /* t_comm: |err| 0.25, 0.2 (rank 1's recv is in REF only) */
    CU_ASSERT_EQUAL(comm->n, 2);
    CU_ASSERT_EQUAL(comm->n_undefined, 0);
    RS_ASSERT_REL(comm->median_abs, 0.225, 1e-12); /* the mean of the two middle values */
    RS_ASSERT_REL(comm->p95_abs, 0.25, 1e-12);
    CU_ASSERT(comm->worst.step == 0);
    RS_ASSERT_REL(comm->worst.rel_err, -0.25, 1e-12);
    /* t_step: 0, 0.2, 0.2: the first of two equal maxima is the worst */
    CU_ASSERT_EQUAL(step->n, 3);
    RS_ASSERT_REL(step->median_abs, 0.2, 1e-12);
    RS_ASSERT_REL(step->max_abs, 0.2, 1e-12);
    CU_ASSERT(step->worst.step == 1);
    /* makespan, unmatched events, points in (pass, rank, step, metric) order */
    CU_ASSERT_EQUAL(c.makespan_ref_s, 5.0);
    RS_ASSERT_REL(c.makespan_other_s, 5.6, 1e-15);
    RS_ASSERT_REL(c.makespan_rel, 0.12, 1e-12);
    CU_ASSERT_EQUAL(c.only_ref, 1);
    CU_ASSERT_EQUAL(c.only_other, 1);
    CU_ASSERT_EQUAL_FATAL(c.n_points, 3 + 3 + 2 + 1);
    static const int want[9][3] = {{0, 0, RS_CMP_COMP}, {0, 0, RS_CMP_COMM}, {0, 0, RS_CMP_STEP}, {0, 1, RS_CMP_COMP}, {0, 1, RS_CMP_COMM},
                                   {0, 1, RS_CMP_STEP}, {0, 2, RS_CMP_COMP}, {0, 2, RS_CMP_STEP}, {1, 0, RS_CMP_COMP}};
    for (size_t i = 0; i < c.n_points; i++)
        CU_ASSERT(c.points[i].rank == want[i][0] && c.points[i].step == want[i][1] && (int)c.points[i].metric == want[i][2]);
    CU_ASSERT(isnan(c.points[8].rel_err));
    /* both zero: error 0, counted */
    rs_trace_t *z1 = rs_trace_create("x"), *z2 = rs_trace_create("y");
    add(z1, 0, 0, RS_EV_STEP, 1, 1), add(z2, 0, 0, RS_EV_STEP, 3, 3);
    rs_compare_t cz;
    CU_ASSERT_EQUAL_FATAL(rs_compare_traces(z1, z2, &cz, &err), 0);
    CU_ASSERT_EQUAL(cz.stats[RS_CMP_STEP].n, 1);
    CU_ASSERT_EQUAL(cz.stats[RS_CMP_STEP].median_abs, 0.0);
    CU_ASSERT_EQUAL(cz.makespan_rel, 0.0);
    CU_ASSERT_EQUAL(cz.stats[RS_CMP_COMP].worst.rank, -1); /* no pair */
    CU_ASSERT(isnan(cz.stats[RS_CMP_COMP].median_abs));
    rs_compare_free(&cz);
    /* nothing in common */
    rs_trace_t *z3 = rs_trace_create("y");
    add(z3, 5, 0, RS_EV_STEP, 0, 1);
    CU_ASSERT_EQUAL(rs_compare_traces(z1, z3, &cz, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "compare: no event of one trace matches an event of the other by (rank, step, pass, kind)");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_trace_free(z1), rs_trace_free(z2), rs_trace_free(z3);

    /* the table */
    char *text = printed(&c, "other.csv", "table.txt");
    CU_ASSERT(starts(text, "# reference: ref.csv\n# other:     other.csv\n# error = (other - reference) / reference\n"));
    const char *line = strstr(text, "\nt_comp ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    CU_ASSERT(starts(line + 1, "t_comp         3      10.00%      25.00%      25.00%    -25.00%  (0, 1, forward)                  2 s       1.5 s\n"));
    const char *const table[] = {
        "\n#   t_comp: 1 pairs with a zero reference duration not counted\n",
        "\nt_comm         2      22.50%      25.00%      25.00%    -25.00%  (0, 0, forward)                  2 s       1.5 s\n",
        "\nt_step         3      20.00%      20.00%      20.00%    +20.00%  (0, 1, forward)                  2 s       2.4 s\n",
        "\nmakespan       1                                        +12.00%                                   5 s       5.6 s\n",
        "\n# unmatched events: 1 only in the reference, 1 only in the other\n",
    };
    tc_contains(text, table, sizeof table / sizeof table[0], false);
    free(text);
    /* the CSV */
    text = written(&c, "other.csv", "cmp.csv");
    CU_ASSERT(starts(text, "# ringsim-compare=1\n# reference=ref.csv\n# other=other.csv\n# error=(other-reference)/reference\n"
                          "# t_comp: n=3 median_abs=0.10000000000000009 p95_abs=0.25 max_abs=0.25 worst_rank=0 worst_step=1 worst_pass=forward\n"));
    const char *const csv[] = {
        "worst_rank=0 worst_step=1 worst_pass=forward\n# t_comm: n=2 ",
        "\n# makespan: reference_s=5 other_s=5.5999999999999996 rel_err=",
        "\nrank,step,pass,metric,ref_s,other_s,rel_err\n0,0,forward,t_comp,1,1.1000000000000001,0.10000000000000009\n",
        "\n0,1,forward,t_comm,1,1.2000000000000002,0.20000000000000018\n",
        "\n1,0,forward,t_comp,0,0.5,nan\n",
    };
    tc_contains(text, csv, sizeof csv / sizeof csv[0], false);
    free(text);
    rs_compare_free(&c);
    CU_ASSERT_PTR_NULL(c.points);
    rs_trace_free(a), rs_trace_free(b);
}

/* A complete forward trace of the default problem on 2 ranks (2 steps each). */
static rs_trace_t *ring2(int64_t n_ranks, rs_layout_t layout) {
    rs_trace_t *t = rs_trace_create("model");
    rs_problem_t p;
    rs_problem_default(&p);
    p.n_ranks = n_ranks;
    p.layout = layout;
    p.pass = RS_PASS_FORWARD;
    rs_trace_meta_problem(t, &p);
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 2; k++) add(t, r, k, RS_EV_COMPUTE, k, k + 0.5), add(t, r, k, RS_EV_STEP, k, k + 1);
    return t;
}

RS_TEST(test_checks, "problem and event checks: exact messages") {
    rs_err_t err = {0};
    rs_trace_t *a = ring2(2, RS_LAYOUT_ZIGZAG), *b = ring2(2, RS_LAYOUT_ZIGZAG);
    CU_ASSERT_EQUAL(rs_compare_check_problem(a, b, "a.csv", "b.csv", &err), 0);
    /* different problems: every field named */
    rs_trace_t *c = ring2(16, RS_LAYOUT_STRIPED);
    CU_ASSERT_EQUAL(rs_compare_check_problem(a, c, "a.csv", "c.csv", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "a.csv and c.csv describe different problems: n_ranks 2 vs 16, layout zigzag vs striped");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_trace_t *none = rs_trace_create("x");
    CU_ASSERT_EQUAL(rs_compare_check_problem(a, none, "a.csv", "none.csv", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "none.csv: trace header: missing key 'seq_tokens'");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    /* events against the header */
    CU_ASSERT_EQUAL(rs_compare_check_events(a, "a.csv", &err), 0);
    add(b, 0, 0, RS_EV_RECV, 0, 0.25);
    rs_event_t bwd = {0, 0, RS_PASS_BACKWARD, RS_EV_STEP, -1, 0, 1, 0, 0};
    rs_trace_add(b, &bwd);
    CU_ASSERT_EQUAL(rs_compare_check_events(b, "b.csv", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "b.csv: rank 0 step 0 has a backward step event in a forward trace (header pass=forward)");
    rs_trace_t *d = ring2(2, RS_LAYOUT_ZIGZAG);
    add(d, 2, 0, RS_EV_STEP, 0, 1);
    CU_ASSERT_EQUAL(rs_compare_check_events(d, "d.csv", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "d.csv: rank 2 (step 0 step) is out of range: the header's problem has ranks 0 to 1");
    rs_trace_t *e = ring2(2, RS_LAYOUT_ZIGZAG);
    add(e, 1, 2, RS_EV_STEP, 2, 3);
    CU_ASSERT_EQUAL(rs_compare_check_events(e, "e.csv", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "e.csv: rank 1 step 2 (step) is out of range: a forward pass of 2 ranks has steps 0 to 1");
    rs_trace_t *f = ring2(3, RS_LAYOUT_ZIGZAG); /* the header says 3 ranks: rank 2 is missing */
    CU_ASSERT_EQUAL(rs_compare_check_events(f, "f.csv", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "f.csv: rank 0 step 2 has no events (the header's problem has 3 ranks x 3 forward steps): a cut or partial trace");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_trace_t *g = rs_trace_create("model"); /* a step with a compute event only */
    rs_problem_t p;
    rs_problem_default(&p);
    p.n_ranks = 2;
    rs_trace_meta_problem(g, &p);
    add(g, 0, 0, RS_EV_STEP, 0, 1), add(g, 0, 1, RS_EV_COMPUTE, 1, 2);
    CU_ASSERT_EQUAL(rs_compare_check_events(g, "g.csv", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "g.csv: rank 0 step 1 has no 'step' event (every step of every rank has one): a cut or partial trace");
    rs_trace_t *h = rs_trace_create("model");
    rs_trace_meta_problem(h, &p);
    CU_ASSERT_EQUAL(rs_compare_check_events(h, "h.csv", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "h.csv: no events (the header's problem has 2 ranks x 2 forward steps)");
    /* check_problem checks both traces' events; check_headers the headers alone */
    CU_ASSERT_EQUAL(rs_compare_check_problem(a, h, "a.csv", "h.csv", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "h.csv: no events (the header's problem has 2 ranks x 2 forward steps)");
    CU_ASSERT_EQUAL(rs_compare_check_problem(h, a, "h.csv", "a.csv", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "h.csv: no events (the header's problem has 2 ranks x 2 forward steps)");
    CU_ASSERT_EQUAL(rs_compare_check_headers(a, h, "a.csv", "h.csv", &err), 0);
    CU_ASSERT_EQUAL(rs_compare_check_headers(h, a, "h.csv", "a.csv", &err), 0);
    CU_ASSERT_EQUAL(rs_compare_check_headers(a, c, "a.csv", "c.csv", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "a.csv and c.csv describe different problems: n_ranks 2 vs 16, layout zigzag vs striped");
    CU_ASSERT_EQUAL(rs_compare_check_headers(none, a, "none.csv", "a.csv", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "none.csv: trace header: missing key 'seq_tokens'");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_trace_free(a), rs_trace_free(b), rs_trace_free(c), rs_trace_free(none), rs_trace_free(d);
    rs_trace_free(e), rs_trace_free(f), rs_trace_free(g), rs_trace_free(h);
}

RS_TEST(test_summarize, "summary of a pass") {
    rs_trace_t *t = ref_trace();
    rs_trace_summary_t s;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_trace_summarize(t, RS_PASS_FORWARD, &s, &err), 0);
    /* compute 1, 2, 1 (rank 0) and 0 (rank 1); recv 2, 1, 1; step 2, 2, 1; compute of the steps with
     * a recv 1, 2, 0, of those without 1 (rank 0's last step) */
    const double got[11] = {s.t_comp_s, (double)s.n_comp, s.t_comm_s, (double)s.n_comm, s.t_step_s, (double)s.n_step,
                            s.t_comp_xfer_s, (double)s.n_comp_xfer, s.t_comp_alone_s, (double)s.n_comp_alone, s.makespan_s};
    const double want[11] = {1, 4, 1, 3, 2, 3, 1, 3, 1, 1, 5};
    for (int i = 0; i < 11; i++) {
        if (got[i] != want[i]) fprintf(stderr, "  summary field %d: %g, want %g\n", i, got[i], want[i]);
        CU_ASSERT_EQUAL(got[i], want[i]);
    }
    CU_ASSERT_EQUAL(rs_trace_summarize(t, RS_PASS_BACKWARD, &s, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "summary: the trace has no backward event");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_trace_t *u = rs_trace_create("x"); /* steps only: the compute and transfer medians have no sample */
    add(u, 0, 0, RS_EV_STEP, 0, 3);
    CU_ASSERT_EQUAL_FATAL(rs_trace_summarize(u, RS_PASS_FORWARD, &s, &err), 0);
    CU_ASSERT(isnan(s.t_comp_s) && isnan(s.t_comm_s) && isnan(s.t_comp_xfer_s) && s.n_comp == 0);
    CU_ASSERT_EQUAL(s.t_step_s, 3.0);
    rs_trace_free(u);
    rs_trace_free(t);
}

RS_TEST(test_crossover, "crossover block size: interpolated and fitted") {
    const double b[4] = {1, 2, 4, 8}, comp[4] = {1, 1, 1, 1};
    /* log2(t_comm / t_comp) = 2, 1, -1, -2: crossing half way between b = 2 and b = 4 in log b */
    const double comm[4] = {4, 2, 0.5, 0.25};
    RS_ASSERT_REL(rs_crossover_b(b, comp, comm, 4), pow(2, 1.5), 1e-12);
    /* a point exactly at the crossing */
    const double at[4] = {4, 1, 0.5, 0.25};
    CU_ASSERT_EQUAL(rs_crossover_b(b, comp, at, 4), 2.0);
    /* invalid points are skipped: the crossing moves to between b = 1 and b = 4 */
    const double skip[4] = {4, NAN, 0.5, 0.25};
    RS_ASSERT_REL(rs_crossover_b(b, comp, skip, 4), pow(2, 4.0 / 3.0), 1e-12); /* log2 ratio 2 at b = 1, -1 at b = 4: 0 at 2/3 of log2 4 */
    const double never[4] = {4, 3, 2, 1.5};
    CU_ASSERT(isnan(rs_crossover_b(b, comp, never, 4)));
    /* the fit: log2 ratio 2, 1, -1, -3: the line through the four points has slope -1.7 and
     * intercept 2.3 in log2 units, so it crosses at b = 2^(23/17); the interpolation says 2^1.5 */
    const double bent[4] = {4, 2, 0.5, 0.125};
    RS_ASSERT_REL(rs_crossover_b(b, comp, bent, 4), pow(2, 1.5), 1e-12);
    RS_ASSERT_REL(rs_crossover_b_fit(b, comp, bent, 4, 2), pow(2, 23.0 / 17.0), 1e-12);
    /* half < 1, or fewer than 3 points around the crossing: the interpolation */
    RS_ASSERT_REL(rs_crossover_b_fit(b, comp, bent, 4, 0), pow(2, 1.5), 1e-12);
    RS_ASSERT_REL(rs_crossover_b_fit(b, comp, bent, 2 + 1, 1), pow(2, 1.5), 1e-12);
    CU_ASSERT(isnan(rs_crossover_b_fit(b, comp, never, 4, 2)));
    CU_ASSERT_STRING_EQUAL(rs_cmp_metric_name(RS_CMP_COMM), "t_comm");
    CU_ASSERT_STRING_EQUAL(rs_cmp_metric_name(RS_CMP_METRIC_COUNT), "attn_busy");
    CU_ASSERT_STRING_EQUAL(rs_cmp_metric_name(RS_CMP_ROLE_METRIC(RS_ROLE_OTHER)), "other_busy");
    CU_ASSERT_STRING_EQUAL(rs_cmp_metric_name(RS_CMP_ROLE_METRIC(RS_ROLE_COUNT)), "?");
}

static void add_role(rs_trace_t *t, int step, rs_role_t role, double s, double busy) {
    rs_role_event_t r = {0, step, RS_PASS_FORWARD, role, s, s + busy, busy};
    CU_ASSERT_EQUAL_FATAL(rs_trace_add_role(t, &r), 0);
}

/* The 3-step ring above with roles. REF (an import) per step: attn 1, 2, -; merge 0.2, 0.4, -; cast
 * 0.1 at step 0; other 0.3 at step 1. OTHER (a model: attn and merge only) per step: attn 1.1, 1.8,
 * 0.5; merge 0.1, 0.5, -. By hand:
 *   attn: points (0,0) +10%, (0,1) -10%, (0,2) 0 -> 0.5 undefined; sums 3 and 3.4, ratio 3.4 / 3;
 *         median |err| 0.1; shares 3 / 4 = 0.75 and 3.4 / 4 = 0.85
 *   merge: points -50%, +25%; sums 0.6 and 0.6, ratio 1; median 0.375, p95 0.5; shares 0.15, 0.15
 *   cast, other: the reference's only (0.1 and 0.3 of 4: 0.025, 0.075), no point, no ratio. */
RS_TEST(test_roles_by_hand, "per-role busy times compared like with like; a role one trace lacks is unmatched") {
    rs_trace_t *a = ref_trace(), *b = other_trace();
    add_role(a, 1, RS_ROLE_ATTN, 2, 2), add_role(a, 0, RS_ROLE_ATTN, 0, 1); /* any order */
    add_role(a, 0, RS_ROLE_MERGE, 0.7, 0.2), add_role(a, 1, RS_ROLE_MERGE, 3.5, 0.4);
    add_role(a, 0, RS_ROLE_CAST, 0.9, 0.1), add_role(a, 1, RS_ROLE_OTHER, 3.6, 0.3);
    add_role(b, 0, RS_ROLE_ATTN, 0, 1.1), add_role(b, 0, RS_ROLE_MERGE, 1.1, 0.1);
    add_role(b, 1, RS_ROLE_ATTN, 2, 1.8), add_role(b, 1, RS_ROLE_MERGE, 3.8, 0.5);
    add_role(b, 2, RS_ROLE_ATTN, 4.4, 0.5);
    rs_compare_t c;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_compare_traces(a, b, &c, &err), 0);
    const rs_cmp_role_t *at = &c.role[RS_ROLE_ATTN], *mg = &c.role[RS_ROLE_MERGE], *ca = &c.role[RS_ROLE_CAST],
                        *ot = &c.role[RS_ROLE_OTHER];
    CU_ASSERT_EQUAL(at->status, RS_CMP_ROLE_BOTH);
    CU_ASSERT_EQUAL(at->stats.n, 2);
    CU_ASSERT_EQUAL(at->stats.n_undefined, 1);
    RS_ASSERT_REL(at->ref_busy_s, 3, 1e-15);
    RS_ASSERT_REL(at->other_busy_s, 3.4, 1e-15);
    RS_ASSERT_REL(at->ratio, 3.4 / 3, 1e-12);
    RS_ASSERT_REL(at->stats.median_abs, 0.1, 1e-12);
    RS_ASSERT_REL(at->ref_share, 0.75, 1e-12);
    RS_ASSERT_REL(at->other_share, 0.85, 1e-12);
    CU_ASSERT_EQUAL(mg->status, RS_CMP_ROLE_BOTH);
    CU_ASSERT_EQUAL(mg->stats.n, 2);
    RS_ASSERT_REL(mg->ratio, 1, 1e-12);
    RS_ASSERT_REL(mg->stats.median_abs, 0.375, 1e-12);
    RS_ASSERT_REL(mg->stats.p95_abs, 0.5, 1e-12);
    RS_ASSERT_REL(mg->stats.worst.rel_err, -0.5, 1e-12);
    CU_ASSERT(mg->stats.worst.step == 0);
    RS_ASSERT_REL(mg->ref_share, 0.15, 1e-12);
    CU_ASSERT_EQUAL(ca->status, RS_CMP_ROLE_REF_ONLY);
    CU_ASSERT_EQUAL(ot->status, RS_CMP_ROLE_REF_ONLY);
    CU_ASSERT_EQUAL(ca->stats.n + ot->stats.n, 0);
    CU_ASSERT(isnan(ca->ratio) && isnan(ot->ratio));
    RS_ASSERT_REL(ca->ref_busy_s, 0.1, 1e-15);
    RS_ASSERT_REL(ca->ref_share, 0.025, 1e-12);
    RS_ASSERT_REL(ot->ref_share, 0.075, 1e-12);
    CU_ASSERT_EQUAL(ot->other_busy_s, 0);
    /* the step metrics are those of test_statistics_by_hand: the roles' points follow theirs */
    CU_ASSERT_EQUAL_FATAL(c.n_points, 9 + 3 + 2);
    CU_ASSERT(c.points[9].metric == RS_CMP_ROLE_METRIC(RS_ROLE_ATTN) && c.points[9].step == 0 && c.points[9].other_s == 1.1);
    CU_ASSERT(c.points[11].step == 2 && c.points[11].ref_s == 0 && isnan(c.points[11].rel_err));
    CU_ASSERT(c.points[13].metric == RS_CMP_ROLE_METRIC(RS_ROLE_MERGE) && c.points[13].ref_s == 0.4);
    RS_ASSERT_REL(c.stats[RS_CMP_COMP].median_abs, 0.1, 1e-12);
    /* the table: a row per role, the unmatched ones said */
    char *text = printed(&c, "model", "roles.txt");
    /* the role block closes the table, whole and in order */
    static const char block[] =
        "\nrole      points   reference       other    ratio median|err|    p95|err| ref share oth share\n"
        "attn           2         3 s       3.4 s    1.133      10.00%      10.00%    75.00%    85.00%\n"
        "#   attn: 1 pairs with a zero reference busy time not counted\n"
        "merge          2      600 ms      600 ms    1.000      37.50%      50.00%    15.00%    15.00%\n"
        "cast           0      100 ms           -        -           -           -     2.50%         -  model has no cast events: unmatched, in no ratio\n"
        "other          0      300 ms           -        -           -           -     7.50%         -  model has no other events: unmatched, in no ratio\n";
    const char *found = strstr(text, block);
    CU_ASSERT(found != NULL && found[sizeof block - 1] == '\0');
    free(text);
    /* the CSV: version 2, a summary line per role, the roles' points */
    text = written(&c, "model", "roles.csv");
    CU_ASSERT(starts(text, "# ringsim-compare=2\n"));
    const char *const csv[] = {
        "\n# role merge: status=compared n=2 ref_busy_s=0.60000000000000009 other_busy_s=0.59999999999999998 ratio=",
        "\n# role cast: status=reference-only n=0 ref_busy_s=0.10000000000000001 other_busy_s=0 ratio=- median_abs=- p95_abs=- "
        "max_abs=- ref_share=0.025",
        "\n0,0,forward,attn_busy,1,1.1000000000000001,0.10000000000000009\n",
        "\n0,2,forward,attn_busy,0,0.5,nan\n",
        "\n0,1,forward,merge_busy,0.40000000000000002,0.5,0.24999999999999994\n",
    };
    tc_contains(text, csv, sizeof csv / sizeof csv[0], false);
    free(text);
    rs_compare_free(&c);
    rs_trace_free(a);
    rs_trace_free(b);
}

/* A trace with no merges against one with: the role is the other's only, said, in no ratio; traces
 * without role events print no role rows and write version 1. */
RS_TEST(test_roles_absent, "a role absent from the reference; no role events at all") {
    rs_trace_t *a = ref_trace(), *b = other_trace();
    add_role(a, 0, RS_ROLE_ATTN, 0, 1), add_role(a, 1, RS_ROLE_ATTN, 2, 2);
    add_role(b, 0, RS_ROLE_ATTN, 0, 1.1), add_role(b, 0, RS_ROLE_MERGE, 1.1, 0.1);
    rs_compare_t c;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_compare_traces(a, b, &c, &err), 0);
    CU_ASSERT_EQUAL(c.role[RS_ROLE_MERGE].status, RS_CMP_ROLE_OTHER_ONLY);
    CU_ASSERT(isnan(c.role[RS_ROLE_MERGE].ratio));
    CU_ASSERT_EQUAL(c.role[RS_ROLE_MERGE].ref_busy_s, 0);
    RS_ASSERT_REL(c.role[RS_ROLE_MERGE].other_share, 0.1 / 1.2, 1e-12);
    CU_ASSERT_EQUAL(c.role[RS_ROLE_CAST].status, RS_CMP_ROLE_NEITHER);
    /* attn: (0,0) +10%, (0,1) 2 -> 0 (the other has attn events, none at step 1): -100% */
    CU_ASSERT_EQUAL(c.role[RS_ROLE_ATTN].stats.n, 2);
    RS_ASSERT_REL(c.role[RS_ROLE_ATTN].stats.max_abs, 1, 1e-12);
    RS_ASSERT_REL(c.role[RS_ROLE_ATTN].ratio, 1.1 / 3, 1e-12);
    char *text = printed(&c, "model", "absent.txt");
    const char *const table[] = {
        "\nmerge          0           -      100 ms        -           -           -         -     8.33%  ref.csv has no merge events: unmatched, in no ratio\n",
        "\ncast           0           -           -        -           -           -         -         -  absent in both\n",
    };
    tc_contains(text, table, sizeof table / sizeof table[0], false);
    free(text);
    rs_compare_free(&c);
    rs_trace_free(a);
    rs_trace_free(b);
    /* neither has role events: no role rows, version 1 */
    a = ref_trace(), b = other_trace();
    CU_ASSERT_EQUAL_FATAL(rs_compare_traces(a, b, &c, &err), 0);
    for (int r = 0; r < RS_ROLE_COUNT; r++) CU_ASSERT_EQUAL(c.role[r].status, RS_CMP_ROLE_NEITHER);
    text = printed(&c, "other.csv", "none.txt");
    CU_ASSERT(strstr(text, "role") == NULL);
    free(text);
    text = written(&c, "other.csv", "none.csv");
    CU_ASSERT(starts(text, "# ringsim-compare=1\n") && !strstr(text, "# role"));
    free(text);
    rs_compare_free(&c);
    rs_trace_free(a);
    rs_trace_free(b);
}

RS_TEST_PROGRAM_IN("compare")
