/* test_estimate.c - run estimates and their caps (estimate.c): bytes and durations in words, the sum
 * of runs one after the other, and rs_limits_check's exact messages and code for time and memory,
 * with the caps given and with the defaults. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "estimate.h"
#include "test_main.h"

/* Bytes with a binary unit and durations in words: (formatter, value, text). */
RS_TEST(test_words, "bytes with a binary unit, durations in words") {
    const double eib = 1152921504606846976.0;
    const struct {
        const char *(*fmt)(double x, char *buf, size_t len);
        double x;
        const char *want;
    } rows[] = {
        {rs_fmt_bytes, 0, "0 B"},
        {rs_fmt_bytes, 512, "512 B"},
        {rs_fmt_bytes, 1023, "1023 B"},
        {rs_fmt_bytes, 1024, "1 KiB"},
        {rs_fmt_bytes, 1536, "1.5 KiB"},
        {rs_fmt_bytes, 7.5 * 1073741824.0, "7.5 GiB"},
        {rs_fmt_bytes, 123456789, "118 MiB"}, /* 117.7 to three digits */
        {rs_fmt_bytes, 2 * eib, "2 EiB"},
        {rs_fmt_bytes, 4096 * eib, "4.1e+03 EiB"}, /* no unit above EiB */
        {rs_fmt_duration, 4.2, "4.2 s"},
        {rs_fmt_duration, 119, "1.2e+02 s"},
        {rs_fmt_duration, 120, "2 min"},
        {rs_fmt_duration, 1620, "27 min"},
        {rs_fmt_duration, 5 * 3600, "5 hours"},
        {rs_fmt_duration, 35 * 86400, "35 days"},
        {rs_fmt_duration, 1e16, "forever"},
        {rs_fmt_duration, NAN, "forever"}, /* NaN is no estimate */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char buf[32];
        const char *got = rows[i].fmt(rows[i].x, buf, sizeof buf);
        if (strcmp(got, rows[i].want)) fprintf(stderr, "  %g: got '%s', want '%s'\n", rows[i].x, got, rows[i].want);
        CU_ASSERT_PTR_EQUAL(got, buf);
        CU_ASSERT_STRING_EQUAL(got, rows[i].want);
    }
}

RS_TEST(test_then, "runs one after the other: work and time add, memory is the largest") {
    rs_estimate_t sum = {0, 0, 0};
    const rs_estimate_t a = {100, 2.5, 3e9}, b = {50, 1.5, 1e9};
    rs_estimate_then(&sum, &a);
    rs_estimate_then(&sum, &b);
    CU_ASSERT_EQUAL(sum.rank_steps, 150);
    CU_ASSERT_EQUAL(sum.time_s, 4.0);
    CU_ASSERT_EQUAL(sum.mem_bytes, 3e9); /* one after the other: the largest */
}

RS_TEST(test_limits_check, "the caps' messages and code: given, defaults") {
    rs_err_t err = {0};
    const rs_limits_t caps = {10, 1073741824.0};
    rs_estimate_t e = {1.07e9, 9.5, 1e9};
    CU_ASSERT_EQUAL(rs_limits_check("model", &e, &caps, &err), 0);
    e.time_s = 35 * 86400;
    CU_ASSERT_EQUAL(rs_limits_check("model", &e, &caps, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "model: an estimated 1.07e+09 rank-steps would take about 35 days (above --max-time 10 s: "
                                    "give --max-time to allow more)");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    e.mem_bytes = 7.5 * 1073741824.0; /* memory is checked first */
    CU_ASSERT_EQUAL(rs_limits_check("sim", &e, &caps, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "sim: an estimated 1.07e+09 rank-steps would need about 7.5 GiB of memory (above "
                                    "--max-memory 1 GiB: give --max-memory to allow more)");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    /* the defaults: 600 s, half of this machine's memory */
    e = (rs_estimate_t){1000, 601, 1e6};
    CU_ASSERT_EQUAL(rs_limits_check("plan", &e, NULL, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "plan: an estimated 1e+03 rank-steps would take about 10 min (above --max-time 600 s: give "
                                    "--max-time to allow more)");
    e.time_s = 600;
    CU_ASSERT_EQUAL(rs_limits_check("plan", &e, &(rs_limits_t){0, 0}, &err), 0);
    e.mem_bytes = rs_phys_mem_bytes(); /* above half of it */
    CU_ASSERT_EQUAL(rs_limits_check("plan", &e, NULL, &err), -1);
    char a[32], b[32], c[32], want[512];
    snprintf(want, sizeof want,
             "plan: an estimated 1e+03 rank-steps would need about %s of memory (above %s, half of this machine's %s: give "
             "--max-memory to allow more)",
             rs_fmt_bytes(e.mem_bytes, a, sizeof a), rs_fmt_bytes(rs_phys_mem_bytes() / 2, b, sizeof b),
             rs_fmt_bytes(rs_phys_mem_bytes(), c, sizeof c));
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(rs_mem_cap_default(), rs_phys_mem_bytes() / 2);
    CU_ASSERT(rs_phys_mem_bytes() > 0);
    e.time_s = NAN; /* an estimate that is not a number is refused */
    e.mem_bytes = 0;
    CU_ASSERT_EQUAL(rs_limits_check("plan", &e, NULL, &err), -1);
}

RS_TEST_PROGRAM("estimate")
