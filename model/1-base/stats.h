/* stats.h - the order statistics every module takes its medians and percentiles from: one median,
 * one percentile, one answer on empty input. */
#ifndef RS_STATS_H
#define RS_STATS_H

#include <stddef.h>

/* The median of n values (the mean of the two middle ones for an even n), sorted in place. NaN when
 * n == 0. Can't fail. */
double rs_median(double *v, size_t n);
/* The nearest-rank q-quantile of n values (the ceil(q n)-th smallest, at least the first), sorted in
 * place: q = 0.95 is the p95, q = 1 the maximum. NaN when n == 0. Can't fail. */
double rs_percentile(double *v, size_t n, double q);

#endif /* RS_STATS_H */
