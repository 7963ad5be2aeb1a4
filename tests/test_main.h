/* test_main.h - the shared CUnit runner. A test file defines its suites, then
 *     int main(void) { return rs_test_main(suites, n); }      (one suite: rs_test_main1(name, cases))
 * Exit code: 0 all passed, 1 any failure or CUnit error. A test binary that cannot run here (no
 * GPU, ...) prints "skipped: <why>" and returns RS_TEST_SKIP (CTest reports it as Skipped). */
#ifndef RS_TEST_MAIN_H
#define RS_TEST_MAIN_H

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>

#define RS_TEST_SKIP 77

typedef struct {
    const char *name;
    void (*fn)(void);
} rs_test_case_t;

typedef struct {
    const char *name;
    const rs_test_case_t *cases; /* terminated by {NULL, NULL} */
} rs_test_suite_t;

/* |a - b| <= tol * max(|a|, |b|, tiny): relative comparison with a message on failure. */
#define RS_ASSERT_REL(a, b, tol)                                                                   \
    do {                                                                                           \
        double rs_a_ = (double)(a), rs_b_ = (double)(b);                                           \
        double rs_s_ = fmax(fmax(fabs(rs_a_), fabs(rs_b_)), 1e-300);                               \
        if (!(fabs(rs_a_ - rs_b_) <= (tol) * rs_s_))                                               \
            fprintf(stderr, "  %s:%d: %s = %.17g vs %s = %.17g (rel %.3g > %.3g)\n", __FILE__,     \
                    __LINE__, #a, rs_a_, #b, rs_b_, fabs(rs_a_ - rs_b_) / rs_s_, (double)(tol));   \
        CU_ASSERT(fabs(rs_a_ - rs_b_) <= (tol) * rs_s_);                                           \
    } while (0)

static inline int rs_test_main(const rs_test_suite_t *suites, int n_suites) {
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    for (int i = 0; i < n_suites; i++) {
        CU_pSuite s = CU_add_suite(suites[i].name, NULL, NULL);
        if (!s) return 1;
        for (const rs_test_case_t *c = suites[i].cases; c->name; c++)
            if (!CU_add_test(s, c->name, c->fn)) return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}

/* A test program of one suite. */
static inline int rs_test_main1(const char *name, const rs_test_case_t *cases) {
    const rs_test_suite_t suite = {name, cases};
    return rs_test_main(&suite, 1);
}

#endif /* RS_TEST_MAIN_H */
