/* test_study_report_exec.c - the report's real execution (studies/study_report_exec.c): skipped on
 * --no-exec; `ringsim validate` stopped by its watchdog is said so, its log kept, the document still
 * written (the execution failing is not the report's failure). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
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

RS_TEST_MAIN(.suite = "report_exec", .scratch = "report_exec", .keep_failed = true)
