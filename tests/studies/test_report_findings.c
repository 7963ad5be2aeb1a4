/* test_report_findings.c - the report's findings (studies/report_findings.c): each sentence from the
 * rows that feed its figure or table, on planted data with a known answer - the scaling over N, the
 * crossover of the B sweeps, the measured crossover, the overlap threshold, the held-out table and
 * its sentence; what was not reached in words, never nan or inf. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "studies_fixtures.h"
#include "study_report.h"
#include "test_main.h"

/* An N sweep at fixed S on a machine of 8 devices per node: every step hides its transfer up to
 * N = 16 (overlap efficiency 1, then 0.95), at N = 32 the inter-node hop paces the ring (0.41),
 * 0.2 at 64 and 0.1 at 128. The sentence must say 0.90 or more up to N = 16, 0.410 at N = 32 and that
 * the ring spans 4 nodes there - and nothing about N = 64 being compute-bound. */
RS_TEST(test_finding_scaling_planted, "scaling sentence from planted N sweep (crossing at N = 32, inter-node)") {
    static rs_sweep_point_t pts[8];
    memset(pts, 0, sizeof pts);
    const double eff[7] = {1, 1, 1, 0.95, 0.41, 0.2, 0.1};
    rs_machine_t m;
    rs_test_h100(&m, true);
    for (int i = 0; i < 7; i++) {
        rs_sweep_point_t *p = &pts[i];
        snprintf(p->profile, sizeof p->profile, "planted");
        rs_problem_default(&p->problem);
        p->problem.seq_tokens = 131072, p->problem.n_ranks = 2 << i;
        p->machine = m;
        p->pred.t_step_s = p->pred.t_step_comp_s = 1e-3, p->pred.t_comp_s = eff[i] * 1e-3, p->pred.n_step = p->pred.n_comp = 1;
        p->pred.t_comm_s = 1e-5; /* the median transfer is an intra-node hop's: it says nothing of the slow hop */
    }
    snprintf(pts[7].profile, sizeof pts[7].profile, "other"); /* another profile's point is ignored */
    pts[7].problem = pts[0].problem, pts[7].pred.t_step_s = pts[7].pred.t_step_comp_s = 1, pts[7].pred.t_comp_s = 0.1;
    char s[1200];
    rs_report_finding_scaling(pts, 8, "planted", 0.9, s, sizeof s);
    rs_test_expect_all(s, (const char *const[]){
        "**Scaling, planted**",
        "at S = 131072",
        "0.90 or more up to N = 16",
        "falls to 0.410 at N = 32 (B = 4096 tokens per rank; the ring spans 4 nodes",
        "0.100 at N = 128",
        NULL});
    CU_ASSERT_PTR_NULL(strstr(s, "N = 64"));
    CU_ASSERT_PTR_NULL(strstr(s, "compute-bound"));
    CU_ASSERT(rs_test_no_nan_word(s));
    /* every N hides its transfers: the largest N is named with its efficiency */
    for (int i = 0; i < 7; i++) pts[i].pred.t_comp_s = 1e-3;
    rs_report_finding_scaling(pts, 7, "planted", 0.9, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "stays at 0.90 or more up to the largest N swept (1.000 at N = 128)"));
    /* a sweep that never ran: no number at all */
    pts[0].pred.t_step_s = pts[0].pred.t_step_comp_s = 0;
    rs_report_finding_scaling(pts, 1, "planted", 0.9, s, sizeof s);
    CU_ASSERT(rs_test_no_nan_word(s));
    rs_report_finding_scaling(pts, 7, "absent", 0.9, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "no point of the N sweep ran"));
}

/* B sweeps with a known crossing (T_comm = T_comp at B = 256 on a log-log straight line) and one
 * without (the causal sweep never crosses in B = 64..1024): the sentence names 256 and says
 * "nowhere in the swept range (B = 64..1024)"; B* = 0 and B* = NaN in the threshold sentence are
 * words, not numbers. */
RS_TEST(test_finding_crossover_planted, "crossover and threshold sentences: planted crossing, none reached, no B*") {
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
    CU_ASSERT(rs_test_no_nan_word(s));
    rs_closed_t cl;
    memset(&cl, 0, sizeof cl);
    cl.block_tokens = 1024, cl.b_min_tokens = 100, cl.t_comp_s = 1e-3, cl.t_comm_s = 1e-4;
    rs_report_finding_threshold(&cl, RS_PASS_FORWARD, RS_LAYOUT_ZIGZAG, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "no B* (the zigzag layout's middle step is compute-bound at every B)"));
    CU_ASSERT(rs_test_no_nan_word(s));
    cl.b_star_tokens = NAN, cl.comm_bound = true, cl.t_comp_s = 0;
    rs_report_finding_threshold(&cl, RS_PASS_BACKWARD, RS_LAYOUT_ZIGZAG, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "transfer-bound at every B searched: up to 2^40 tokens, 2^24 with kernel curves"));
    CU_ASSERT(rs_test_no_nan_word(s));
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

/* A B sweep that did not run says so. */
RS_TEST(test_crossover_not_run, "crossover sentence when the sweeps did not run") {
    char s[256];
    rs_report_finding_crossover(&(rs_report_crossover_in_t){NULL, 0, NULL, 0, 0, "model walk", 8}, s, sizeof s);
    CU_ASSERT_STRING_EQUAL(s, "**Crossover in the data**: the B sweeps did not run.");
}

/* The measured B sweep of the calibrated configuration (validate's): calibrated F, W, L and the
 * closed form's B* and B_min each appear once with its own value (each number from its own buffer);
 * the measured T_comm crosses the median T_comp at B = 128, the model's at B = 64; validate's own
 * crossovers (seed's threshold) at B = 17 measured and not reached by the model. B* 0 and NaN are
 * words. */
RS_TEST(test_finding_measured_crossover_planted, "measured crossover sentence: planted sweep, each number its own") {
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
    CU_ASSERT(rs_test_no_nan_word(s));
    for (int i = 0; i < 5; i++) pts[i].closed.b_star_tokens = 0;
    rs_report_finding_measured_crossover(pts, 5, NAN, NAN, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "is not found (compute-bound at every B)"));
    CU_ASSERT(rs_test_no_nan_word(s));
    for (int i = 0; i < 5; i++) pts[i].closed.b_star_tokens = NAN;
    rs_report_finding_measured_crossover(pts, 5, NAN, NAN, s, sizeof s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "is not found (transfer-bound at every B searched)"));
    CU_ASSERT(rs_test_no_nan_word(s));
    rs_report_finding_measured_crossover(pts, 0, NAN, NAN, s, sizeof s);
    CU_ASSERT_STRING_EQUAL(s, "The measured B sweep did not run.");
}

/* The held-out table of validate --summary (planted CSV): its rows become the report's table (empty
 * cells "-") and the sentence states the ranges and the largest of the held-out rows only; with the
 * spread columns (validate with 2 or more rounds) the rows show the measurement's own spread and the
 * sentence its range over the held-out rows only. A table without them says nothing of it. */
RS_TEST(test_finding_heldout_planted, "held-out table and sentence from a planted summary") {
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
    rs_test_expect_all(s, (const char *const[]){
        "Held out (2 configurations the calibration did not measure, N = 2)",
        "T_comm 8.0%..12.0% (largest: striped backward causal)",
        "T_step 5.0%..7.0%",
        "1 of 2 meet T_comm, T_step and makespan within 10%.",
        "own spread over their rounds",
        "T_comm 3.0%..11.0%, T_step 2.0%..5.0%, makespan 4.0%..6.0%",
        NULL});
    /* striped backward causal misses T_comm by 2 points with a T_comm spread of 11% */
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "Misses by no more than the configuration's own spread (error <= 10% + the spread in "
                                     "every metric missed): 1 of 1."));
    CU_ASSERT_PTR_NULL(strstr(s, "50.0")); /* the fitted row is not held out */
    CU_ASSERT_PTR_NULL(strstr(s, "90.0")); /* nor is its spread */
    CU_ASSERT(rs_test_no_nan_word(s));
    for (int i = 0; i < n; i++) CU_ASSERT(rs_test_no_nan_word(rows[i]));
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
    CU_ASSERT(rs_test_no_nan_word(s));
    rs_table_free(&t);
}

/* The overlap efficiency of a summary and the crossing's words. */
RS_TEST(test_overlap_and_crossing, "overlap efficiency and the crossing in words") {
    rs_trace_summary_t s = {0};
    s.t_comp_s = 0.75, s.t_step_comp_s = 1, s.t_step_s = 0.5; /* the steps that compute, not every step */
    CU_ASSERT_EQUAL(rs_trace_overlap_efficiency(&s), 0.75);
    s.t_step_comp_s = 0;
    CU_ASSERT(isnan(rs_trace_overlap_efficiency(&s)));
    char buf[96];
    CU_ASSERT_STRING_EQUAL(rs_report_crossing_text(788.4, 64, 65536, buf, sizeof buf), "at B = 788 tokens");
    CU_ASSERT_STRING_EQUAL(rs_report_crossing_text(NAN, 64, 65536, buf, sizeof buf), "nowhere in the swept range (B = 64..65536)");
    CU_ASSERT_STRING_EQUAL(rs_report_crossing_text(INFINITY, 8, 512, buf, sizeof buf), "nowhere in the swept range (B = 8..512)");
}

RS_TEST_MAIN(.suite = "report_findings", .scratch = "report_findings", .keep_failed = true)
