/* test_stats.c - medians and percentiles (stats.c): the median of odd and even counts and of none,
 * the nearest-rank percentile at its edges, both sorting their input in place. */
#include <math.h>

#include "stats.h"
#include "test_main.h"

RS_TEST(test_median, "median of odd, even, one and no values") {
    double odd[] = {3, 1, 2};
    CU_ASSERT_EQUAL(rs_median(odd, 3), 2.0);
    CU_ASSERT(odd[0] == 1 && odd[1] == 2 && odd[2] == 3); /* sorted in place */
    double even[] = {4, 1, 3, 2};
    CU_ASSERT_EQUAL(rs_median(even, 4), 2.5); /* the mean of the two middle ones */
    double one[] = {-7.25};
    CU_ASSERT_EQUAL(rs_median(one, 1), -7.25);
    double two[] = {1e300, -1e300};
    CU_ASSERT_EQUAL(rs_median(two, 2), 0.0);
    CU_ASSERT(isnan(rs_median(NULL, 0)));
}

RS_TEST(test_percentile, "nearest-rank percentile, its edges and no values") {
    double v[20];
    for (int i = 0; i < 20; i++) v[i] = 20 - i; /* 20 .. 1 */
    CU_ASSERT_EQUAL(rs_percentile(v, 20, 0.95), 19.0); /* ceil(0.95 x 20) = 19th smallest */
    CU_ASSERT_EQUAL(v[0], 1.0);                         /* sorted in place */
    CU_ASSERT_EQUAL(rs_percentile(v, 20, 0.5), 10.0);
    CU_ASSERT_EQUAL(rs_percentile(v, 20, 0.51), 11.0); /* ceil(10.2) = 11 */
    CU_ASSERT_EQUAL(rs_percentile(v, 20, 1.0), 20.0);  /* the maximum */
    CU_ASSERT_EQUAL(rs_percentile(v, 20, 0.0), 1.0);   /* at least the first */
    CU_ASSERT_EQUAL(rs_percentile(v, 20, 1.5), 20.0);  /* at most the last */
    double w[] = {5, 3};
    CU_ASSERT_EQUAL(rs_percentile(w, 2, 0.5), 3.0); /* nearest rank: no interpolation */
    CU_ASSERT(isnan(rs_percentile(NULL, 0, 0.5)));
}

RS_TEST_PROGRAM("stats")
