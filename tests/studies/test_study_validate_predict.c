/* test_study_validate_predict.c - the validation study's predictions (studies/study_validate_predict.c):
 * the measurement's own spread over its rounds, on planted rounds with a known spread. */
#include <stdlib.h>
#include <string.h>

#include "studies_fixtures.h"
#include "study_validate.h"
#include "test_main.h"

/* validate's spread of the rounds: two rounds, the second every time x 1.2 of the first, against
 * their median (x 1.1): every (rank, step) point of every metric and the makespan are 0.1 / 1.1 off,
 * in both rounds; one round gives no points. */
RS_TEST(test_validate_round_spread, "validate's spread of the rounds on planted rounds") {
    rs_problem_t p;
    rs_problem_default(&p);
    p.n_ranks = 4;
    rs_trace_t *r0 = rs_test_model_trace(&p), *r1 = rs_trace_create("model"), *med = rs_trace_create("model");
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

/* Contiguous causal: a rank computes only the blocks of the ranks up to it (N (N + 1) / 2 = 10 of 16
 * steps at N = 4); a compute of nothing is no point of the spread. */
RS_TEST(test_spread_skips_empty_computes, "a compute of nothing is no point of the spread") {
    rs_problem_t p;
    rs_problem_default(&p);
    p.n_ranks = 4, p.layout = RS_LAYOUT_CONTIGUOUS;
    rs_trace_t *a = rs_test_model_trace(&p), *b = rs_test_model_trace(&p);
    rs_event_t *e = rs_trace_events_mut(b);
    for (size_t i = 0; i < rs_trace_count(b); i++) e[i].end_s = e[i].start_s + 2 * (e[i].end_s - e[i].start_s);
    rs_trace_t *rounds[2] = {a, b};
    double mk[2];
    rs_validate_spread_t sp = {.mk = mk};
    const size_t cap = 2 * rs_trace_count(a);
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) sp.pts[k] = calloc(cap, sizeof(double));
    rs_err_t err;
    CU_ASSERT_EQUAL_FATAL(rs_validate_round_spread(rounds, 2, a, p.pass, &sp, &err), 0);
    CU_ASSERT_EQUAL(sp.n_pts[RS_CMP_COMP], 2 * 10);
    CU_ASSERT_EQUAL(sp.n_pts[RS_CMP_STEP], 2 * 16);
    size_t zeros = 0; /* round a against itself: 0; round b: 1 (twice as long) */
    for (size_t i = 0; i < sp.n_pts[RS_CMP_COMP]; i++) zeros += sp.pts[RS_CMP_COMP][i] == 0;
    CU_ASSERT_EQUAL(zeros, 10);
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) free(sp.pts[k]);
    rs_trace_free(a), rs_trace_free(b);
}

RS_TEST_PROGRAM("validate_predict")
