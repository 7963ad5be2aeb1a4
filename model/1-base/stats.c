/* stats.c - medians and percentiles (stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int dbl_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double rs_median(double *v, size_t n) {
    if (n == 0) return NAN;
    qsort(v, n, sizeof *v, dbl_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double rs_percentile(double *v, size_t n, double q) {
    if (n == 0) return NAN;
    qsort(v, n, sizeof *v, dbl_cmp);
    size_t k = (size_t)ceil(q * (double)n); /* nearest rank, 1-based */
    if (k < 1) k = 1;
    if (k > n) k = n;
    return v[k - 1];
}
