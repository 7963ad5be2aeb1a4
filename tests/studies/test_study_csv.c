/* test_study_csv.c - a study's CSV table (studies/study_csv.c): the column line, then each item's
 * rows, to a file; an output that cannot be opened is refused with its message. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "study_csv.h"
#include "studies_fixtures.h"
#include "test_main.h"

/* Item i (an int) as i rows "i,k". */
static void rows(FILE *fp, const void *items, size_t i) {
    const int v = ((const int *)items)[i];
    for (int k = 0; k < v; k++) fprintf(fp, "%d,%d\n", v, k);
}

RS_TEST(test_write, "the column line, then each item's rows; an output that cannot be opened") {
    const int items[3] = {1, 0, 2};
    const char *path = rs_test_path("t.csv");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_study_write_csv(path, "a,b\n", rows, items, 3, &err), 0);
    char *text = rs_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_STRING_EQUAL(text, "a,b\n1,0\n2,0\n2,1\n");
    free(text);
    CU_ASSERT_EQUAL(rs_study_write_csv(rs_test_path("no/dir/t.csv"), "a,b\n", rows, items, 3, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no/dir/t.csv"));
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
}

RS_TEST_MAIN(.suite = "study_csv", .scratch = "study_csv", .keep_failed = true)
