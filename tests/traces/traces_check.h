/* traces_check.h - what the tests of traces/ share (traces_check.c): a ring-shaped trace, checks of
 * a text's contents and of a writer's refusal of a directory, a table of cases as text. */
#ifndef RS_TEST_TRACES_CHECK_H
#define RS_TEST_TRACES_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "test_main.h"
#include "trace.h"

/* A forward trace of n ranks x n steps (source "model", the default problem with n ranks and
 * S = 1024 n in its header, "profile" = "h100-sxm"): step k of rank r starts at k T + r 1e-7 / 3,
 * computes tc (FLOPs 8.6e9 / 3) and sends to r + 1 / receives from r - 1 for tm (1 MiB), except the
 * last step, which moves nothing; its step event lasts T. Awkward doubles, so %.17g matters. */
rs_trace_t *tc_ring_trace(int n, double T, double tc, double tm);

/* text holds each of needles[0..n) (a failed assertion, and the needle on stderr, for each one it
 * lacks); in_order: each after the previous one, and nothing after the last. */
void tc_contains(const char *text, const char *const *needles, size_t n, bool in_order);

/* write(t, DIR, ...) refuses a directory before writing anything ("DIR: cannot write: is a
 * directory"), keeps it and leaves no temporary file. */
void tc_dir_refused(int (*write)(const rs_trace_t *t, const char *path, rs_err_t *err), const rs_trace_t *t);

/* A test's table of cases written as text, one case a line, its fields separated by " | ": each
 * line's nf fields given to fn (with ctx); a line with another number of fields fails an assertion. */
void tc_table(const char *table, int nf, void (*fn)(char **f, void *ctx), void *ctx);

#endif /* RS_TEST_TRACES_CHECK_H */
