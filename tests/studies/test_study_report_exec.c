/* test_study_report_exec.c - the report's real execution (studies/study_report_exec.c): skipped on
 * --no-exec; `ringsim validate` stopped by its watchdog is said so, its log kept, the document still
 * written (the execution failing is not the report's failure); a full run's validation cases against
 * validate.csv. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "plot_table.h"
#include "studies_fixtures.h"
#include "test_main.h"

RS_TEST(test_skipped, "--no-exec: skipped, no validation folder") {
    rs_test_report("skip", "--no-exec --no-sim --no-figures --quick");
    char *md = rs_test_report_file("report.md");
    CU_ASSERT_PTR_NOT_NULL_FATAL(md);
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "## Real execution (CPU)\n\nskipped (--no-exec).\n\n"));
    CU_ASSERT_PTR_NULL(strstr(md, "Held-out validation"));
    free(md);
    char path[1200];
    snprintf(path, sizeof path, "%s/validation", rs_test_path("skip"));
    CU_ASSERT_EQUAL(access(path, F_OK), -1);
}

/* validate cannot calibrate and measure 12 configurations in a second: stopped, said, logged. */
RS_TEST(test_watchdog, "validate stopped by the watchdog: said, logged, the report written") {
    const char *dir = rs_test_report("slow", "--exec-timeout 1 --no-sim --no-figures --quick");
    char *md = rs_test_report_file("report.md");
    CU_ASSERT_PTR_NOT_NULL_FATAL(md);
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "## Real execution (CPU)\n\nringsim validate did not finish within 1 s and was stopped "
                                      "(validation/validate.log).\n\n"));
    CU_ASSERT_PTR_NULL(strstr(md, "tcomm-vs-b-measured")); /* nothing of it is used */
    free(md);
    char path[1200];
    snprintf(path, sizeof path, "%s/validation/validate.log", dir);
    CU_ASSERT(rs_test_file_size(path) >= 0);
    snprintf(path, sizeof path, "%s/data/validation-b.csv", dir);
    CU_ASSERT_EQUAL(access(path, F_OK), -1);
}

/* A full run: every row of validate.csv is a validation case with its measured and modelled makespan,
 * and the sentence counts those within 10% from the same rows; the next says how noisy the run was
 * (heldout.csv's makespan spread, its median and max over the configurations). */
RS_TEST(test_validation_cases, "every measured configuration and B a validation case, the count within 10% from its rows") {
    const char *dir = rs_test_report("cases", "--no-sim --no-figures --quick");
    char path[1200];
    snprintf(path, sizeof path, "%s/validation/validate.csv", dir);
    rs_err_t err = {0};
    rs_table_t v, c;
    CU_ASSERT_EQUAL_FATAL(rs_table_read(path, &v, &err), 0);
    snprintf(path, sizeof path, "%s/data/validation-exec.csv", dir);
    CU_ASSERT_EQUAL_FATAL(rs_table_read(path, &c, &err), 0);
    CU_ASSERT(v.n_rows >= 12);
    CU_ASSERT_EQUAL_FATAL(c.n_rows, v.n_rows);
    char unit[8];
    CU_ASSERT_STRING_EQUAL(rs_table_note(&c, "unit", unit, sizeof unit), "s");
    const int meas = rs_table_col(&v, "makespan_meas_s"), model = rs_table_col(&v, "makespan_model_s"),
              pub = rs_table_col(&c, "published"), pred = rs_table_col(&c, "predicted"), src = rs_table_col(&c, "source");
    int within = 0;
    for (size_t k = 0; k < v.n_rows; k++) {
        const double m = strtod(v.cells[k][meas], NULL), p = strtod(v.cells[k][model], NULL);
        RS_ASSERT_REL(strtod(c.cells[k][pub], NULL), m, 1e-8);
        RS_ASSERT_REL(strtod(c.cells[k][pred], NULL), p, 1e-8);
        char want[64];
        snprintf(want, sizeof want, "%s %s", v.cells[k][rs_table_col(&v, "pass")], v.cells[k][rs_table_col(&v, "mask")]);
        CU_ASSERT_STRING_EQUAL(c.cells[k][src], want);
        within += fabs(p / m - 1) <= 0.10;
    }
    char *md = rs_test_report_file("report.md"), want[200];
    CU_ASSERT_PTR_NOT_NULL_FATAL(md);
    snprintf(want, sizeof want, "(data/validation-exec.csv): %d of %zu within 10%%.", within, v.n_rows);
    CU_ASSERT_PTR_NOT_NULL(strstr(md, want));
    /* the spread sentence: the median and max of heldout.csv's makespan_spread over its configurations */
    rs_table_t h;
    snprintf(path, sizeof path, "%s/validation/heldout.csv", dir);
    CU_ASSERT_EQUAL_FATAL(rs_table_read(path, &h, &err), 0);
    const int sp = rs_table_col(&h, "makespan_spread");
    CU_ASSERT_FATAL(sp >= 0);
    double x[64] = {0}, hi = 0;
    size_t n = 0;
    for (size_t k = 0; k < h.n_rows && n < 64; k++)
        if (h.cells[k][sp][0] && h.cells[k][sp][0] != '-') x[n] = strtod(h.cells[k][sp], NULL), hi = fmax(hi, x[n]), n++;
    CU_ASSERT_EQUAL_FATAL(n, h.n_rows); /* 2 rounds: every configuration has a spread */
    for (size_t i = 1; i < n; i++) /* the median by hand: insertion sort */
        for (size_t j = i; j > 0 && x[j] < x[j - 1]; j--) {
            const double t = x[j];
            x[j] = x[j - 1], x[j - 1] = t;
        }
    const double med = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
    snprintf(want, sizeof want, "validation/heldout.csv makespan_spread) was %.1f%% in the median configuration and %.1f%% in "
                                "the noisiest of %zu",
             100 * med, 100 * hi, n);
    CU_ASSERT_PTR_NOT_NULL(strstr(md, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, med > 0.10 ? "a 10% criterion is finer than this run resolves" : "not resolved by this run"));
    free(md);
    rs_table_free(&h);
    rs_table_free(&v);
    rs_table_free(&c);
}

RS_TEST_MAIN(.suite = "report_exec", .scratch = "report_exec", .keep_failed = true)
