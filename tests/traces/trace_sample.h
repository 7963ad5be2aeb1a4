/* trace_sample.h - a ring-shaped trace for the trace schema's tests (test_trace*.c). */
#ifndef RS_TEST_TRACE_SAMPLE_H
#define RS_TEST_TRACE_SAMPLE_H

#include "trace.h"

/* A forward trace of n ranks x n steps (source "model", the default problem with n ranks and
 * S = 1024 n in its header, "profile" = "h100-sxm"): step k of rank r starts at k T + r 1e-7 / 3,
 * computes tc (FLOPs 8.6e9 / 3) and sends to r + 1 / receives from r - 1 for tm (1 MiB), except the
 * last step, which moves nothing; its step event lasts T. Awkward doubles, so %.17g matters. */
rs_trace_t *ts_ring_trace(int n, double T, double tc, double tm);

#endif /* RS_TEST_TRACE_SAMPLE_H */
