/* test_study_validate_summary.c - the held-out table (studies/study_validate_summary.c): its CSV
 * written and read back (NaN as an empty cell, the spread columns optional, rows appended), its
 * refusals with their messages, its text form (what was not reached as '-', the oversubscription
 * said once per N). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "studies_fixtures.h"
#include "study_validate_summary.h"
#include "studies_fixtures.h"
#include "test_main.h"

static rs_validate_row_t planted(int64_t n_ranks, rs_layout_t layout, bool causal) {
    rs_validate_row_t r = {.n_ranks = n_ranks, .cores = 4, .layout = layout, .pass = RS_PASS_BACKWARD, .causal = causal,
                           .q_heads = 32, .kv_heads = 8, .fitted = layout == RS_LAYOUT_CONTIGUOUS && !causal,
                           .med = {0.01, 0.02, 0.03}, .p95 = {0.011, 0.021, 0.031}, .mk_med = 0.05, .mk_max = 0.06,
                           .x_meas = 64.5, .x_model = NAN, .b_lo = 8, .b_hi = 1024, .spread = {0.001, 0.002, NAN}, .mk_spread = NAN};
    return r;
}

RS_TEST(test_csv_round_trip, "CSV written and read back, rows appended") {
    rs_validate_row_t rows[2] = {planted(2, RS_LAYOUT_ZIGZAG, true), planted(8, RS_LAYOUT_CONTIGUOUS, false)};
    const char *path = rs_test_path("heldout.csv");
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    rs_validate_write_summary_csv(fp, rows, 2);
    fclose(fp);
    char *text = rs_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_STRING_EQUAL(text,
        "n_ranks,cores,layout,pass,mask,q_heads,kv_heads,fitted,t_comp_med,t_comp_p95,t_comm_med,t_comm_p95,t_step_med,"
        "t_step_p95,makespan_med,makespan_max,crossover_meas,crossover_model,b_lo,b_hi,t_comp_spread,t_comm_spread,t_step_spread,"
        "makespan_spread\n"
        "2,4,zigzag,backward,causal,32,8,0,0.01,0.011,0.02,0.021,0.03,0.031,0.05,0.06,64.5,,8,1024,0.001,0.002,,\n"
        "8,4,contiguous,backward,full,32,8,1,0.01,0.011,0.02,0.021,0.03,0.031,0.05,0.06,64.5,,8,1024,0.001,0.002,,\n");
    free(text);
    rs_validate_row_t back[4];
    int n = 1; /* appended after the first */
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_validate_read_summary_csv(path, back, 4, &n, &err), 0);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    for (int i = 0; i < 2; i++) {
        const rs_validate_row_t *a = &rows[i], *b = &back[1 + i];
        CU_ASSERT_EQUAL(b->n_ranks, a->n_ranks);
        CU_ASSERT_EQUAL(b->cores, a->cores);
        CU_ASSERT_EQUAL(b->layout, a->layout);
        CU_ASSERT_EQUAL(b->pass, a->pass);
        CU_ASSERT_EQUAL(b->causal, a->causal);
        CU_ASSERT_EQUAL(b->q_heads, 32);
        CU_ASSERT_EQUAL(b->kv_heads, 8);
        CU_ASSERT_EQUAL(b->fitted, a->fitted);
        for (int k = 0; k < 3; k++) {
            CU_ASSERT_EQUAL(b->med[k], a->med[k]);
            CU_ASSERT_EQUAL(b->p95[k], a->p95[k]);
        }
        CU_ASSERT_EQUAL(b->mk_med, 0.05);
        CU_ASSERT_EQUAL(b->mk_max, 0.06);
        CU_ASSERT_EQUAL(b->x_meas, 64.5);
        CU_ASSERT(isnan(b->x_model));
        CU_ASSERT_EQUAL(b->b_lo, 8);
        CU_ASSERT_EQUAL(b->b_hi, 1024);
        CU_ASSERT_EQUAL(b->spread[0], 0.001);
        CU_ASSERT_EQUAL(b->spread[1], 0.002);
        CU_ASSERT(isnan(b->spread[2]) && isnan(b->mk_spread));
    }
    /* at most max rows */
    n = 3;
    CU_ASSERT_EQUAL(rs_validate_read_summary_csv(path, back, 4, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 4);
}

/* A table without the spread columns (one round) reads as NaN there. */
RS_TEST(test_without_spread, "a table without the spread columns") {
    const char *path = rs_test_path("old.csv");
    rs_test_write_text(path, "n_ranks,cores,layout,pass,mask,q_heads,kv_heads,fitted,t_comp_med,t_comp_p95,t_comm_med,t_comm_p95,"
                             "t_step_med,t_step_p95,makespan_med,makespan_max,crossover_meas,crossover_model,b_lo,b_hi\n"
                             "2,2,striped,forward,full,2,2,0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,,,8,512\n");
    rs_validate_row_t r[1];
    int n = 0;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_validate_read_summary_csv(path, r, 1, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(r[0].layout, RS_LAYOUT_STRIPED);
    CU_ASSERT_EQUAL(r[0].pass, RS_PASS_FORWARD);
    CU_ASSERT(!r[0].causal && !r[0].fitted);
    CU_ASSERT_EQUAL(r[0].med[2], 0.5);
    CU_ASSERT(isnan(r[0].x_meas) && isnan(r[0].spread[0]) && isnan(r[0].mk_spread));
    CU_ASSERT_EQUAL(r[0].b_hi, 512);
}

RS_TEST(test_refused, "refusals: a file of other columns, a bad layout, no file") {
    rs_validate_row_t r[2];
    int n = 0;
    rs_err_t err = {0};
    const char *path = rs_test_path("notsummary.csv");
    rs_test_write_text(path, "n_ranks,cores,layout\n2,2,zigzag\n");
    CU_ASSERT_EQUAL(rs_validate_read_summary_csv(path, r, 2, &n, &err), -1);
    char want[1200];
    snprintf(want, sizeof want, "%s: no column pass (not a validate --summary file)", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    path = rs_test_path("badlayout.csv");
    rs_test_write_text(path, "n_ranks,cores,layout,pass,mask,q_heads,kv_heads,fitted,t_comp_med,t_comp_p95,t_comm_med,t_comm_p95,"
                             "t_step_med,t_step_p95,makespan_med,makespan_max,crossover_meas,crossover_model,b_lo,b_hi\n"
                             "2,2,spiral,forward,full,2,2,0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,,,8,512\n");
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_validate_read_summary_csv(path, r, 2, &n, &err), -1);
    snprintf(want, sizeof want, "%s:2: bad layout or pass", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_validate_read_summary_csv(rs_test_path("missing.csv"), r, 2, &n, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "missing.csv"));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
}

/* The text form: '-' for what was not reached or measured; the oversubscription once per N. */
RS_TEST(test_text, "the text form") {
    rs_validate_row_t rows[3] = {planted(8, RS_LAYOUT_ZIGZAG, true), planted(8, RS_LAYOUT_STRIPED, false),
                                 planted(2, RS_LAYOUT_CONTIGUOUS, false)};
    FILE *fp = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    rs_validate_print_summary(fp, rows, 3);
    char *buf = rs_test_read_back(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\n   8     4 zigzag     backward causal      32/8 held-out   0.010   0.011   0.020   0.021   0.030   "
                                       "0.031   0.050   0.060     64.5        -   0.001   0.002       -       -\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\n   2     4 contiguous backward full        32/8 fitted  "));
    const char *over = "# oversubscribed: 8 ranks on 4 cores - the ranks share cores, and that is part of what is measured\n";
    const char *a = strstr(buf, over);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NULL(strstr(a + 1, over)); /* once */
    CU_ASSERT_PTR_NULL(strstr(buf, "2 ranks on 4 cores"));
    CU_ASSERT_PTR_NULL(strstr(buf, "nan"));
    free(buf);
}

RS_TEST(test_csv_cell, "a CSV cell: empty when not finite") {
    FILE *fp = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    rs_validate_csv_cell(fp, 1.0 / 3, 4);
    rs_validate_csv_cell(fp, NAN, 4);
    rs_validate_csv_cell(fp, INFINITY, 4);
    rs_validate_csv_cell(fp, 12345678, 9);
    char *buf = rs_test_read_back(fp);
    CU_ASSERT_STRING_EQUAL(buf, ",0.3333,,,12345678");
    free(buf);
}

RS_TEST_MAIN(.suite = "validate_summary", .scratch = "validate_summary", .keep_failed = true)
