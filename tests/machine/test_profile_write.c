/* test_profile_write.c - writing a profile (profile_write.c): every figure reads back exactly (the
 * fewest digits that read back to the same double), a second write of what was read is
 * byte-identical, an unwritable path fails and leaves nothing. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"
#include "test_main.h"
#include "model_fixtures.h"

/* The first n points of got are want's, both fields (x, y) of each. */
#define EXPECT_POINTS(got, want, n, x, y)                                                          \
    for (int k_ = 0; k_ < (n); k_++) {                                                             \
        CU_ASSERT_EQUAL((got)[k_].x, (want)[k_].x);                                                \
        CU_ASSERT_EQUAL((got)[k_].y, (want)[k_].y);                                                \
    }

RS_TEST(test_round_trip, "round_trip") {
    rs_hw_t hw = rs_test_hw("mi300x");
    hw.cal.n_eff = 3;
    hw.cal.eff[0] = (rs_eff_point_t){256, 0.1 + 0.2};
    hw.cal.eff[1] = (rs_eff_point_t){1000.5, 1.0 / 3.0};
    hw.cal.eff[2] = (rs_eff_point_t){65536, 0.9999999999999999}; /* the largest double below the range's 1 */
    hw.cal.launch_s = 1e-5 / 3;
    hw.cal.overlap = 0.7;
    hw.cal.comp_slowdown = 1.0000000000000002;
    hw.cal.host_call_given = true, hw.cal.host_call_s = 0; /* given as 0: the CPU executor's calibration */
    hw.price_per_device_hour = 2.49;
    hw.intra.latency_s = 2.9e-6 + 1e-22;
    hw.inter.latency_s = 5e-324; /* denormal */
    hw.inter.bw_bytes_per_s = 9999999999999998.0; /* the largest double below the range's 1e16 */
    hw.mem_bytes = 123456789.123456789;
    hw.mem_bw_bytes_per_s = 999.9999999999999e12; /* rounds up to 1000 in a short mantissa */
    snprintf(hw.calibration_note, sizeof hw.calibration_note, "OpenBLAS sgemm, \"quoted\", 2026-11-29");
    const char *path = RS_BINARY_DIR "/tests/test_hw_roundtrip.json";
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_write_json(&hw, path, "calibrated by test_hw", &err), 0);
    rs_hw_t back = rs_test_hw(path);
    CU_ASSERT_STRING_EQUAL(back.name, hw.name);
    for (int k = 0; k < RS_DTYPE_COUNT; k++) CU_ASSERT_EQUAL(back.flops_per_s[k], hw.flops_per_s[k]);
    CU_ASSERT_EQUAL(back.mem_bytes, hw.mem_bytes);
    CU_ASSERT_EQUAL(back.mem_bw_bytes_per_s, hw.mem_bw_bytes_per_s);
    CU_ASSERT_EQUAL(back.devices_per_node, hw.devices_per_node);
    CU_ASSERT_EQUAL(back.sm_count, 304);
    CU_ASSERT_EQUAL(back.sm_count, hw.sm_count);
    CU_ASSERT_STRING_EQUAL(back.intra.name, hw.intra.name);
    CU_ASSERT_EQUAL(back.intra.bw_bytes_per_s, hw.intra.bw_bytes_per_s);
    CU_ASSERT_EQUAL(back.intra.latency_s, hw.intra.latency_s);
    CU_ASSERT_EQUAL(back.has_inter, hw.has_inter);
    CU_ASSERT_STRING_EQUAL(back.inter.name, hw.inter.name);
    CU_ASSERT_EQUAL(back.inter.bw_bytes_per_s, hw.inter.bw_bytes_per_s);
    CU_ASSERT_EQUAL(back.inter.latency_s, hw.inter.latency_s);
    CU_ASSERT_EQUAL(back.price_per_device_hour, hw.price_per_device_hour);
    CU_ASSERT_EQUAL_FATAL(back.cal.n_eff, 3);
    EXPECT_POINTS(back.cal.eff, hw.cal.eff, 3, block_tokens, efficiency);
    CU_ASSERT_EQUAL(back.cal.launch_s, hw.cal.launch_s);
    CU_ASSERT_EQUAL(back.cal.overlap, hw.cal.overlap);
    CU_ASSERT(back.cal.host_call_given);
    CU_ASSERT_EQUAL(back.cal.host_call_s, 0.0);
    rs_machine_t mb;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&back, RS_DTYPE_BF16, &mb, &err), 0); /* the machine costs a host call at it */
    CU_ASSERT(mb.host_call_given);
    CU_ASSERT_EQUAL(mb.host_call_s, 0.0);
    CU_ASSERT_EQUAL(back.cal.comp_slowdown, hw.cal.comp_slowdown);
    CU_ASSERT_STRING_EQUAL(back.calibration_note, hw.calibration_note);
    CU_ASSERT_EQUAL(back.cal.n_overlap, 0);
    CU_ASSERT_EQUAL(back.cal.host_s_per_xfer, 0.0);
    {   /* an overlap curve (written instead of the scalar) and the host cost */
        rs_hw_t c = hw;
        c.cal.n_overlap = 2;
        c.cal.overlap_curve[0] = (rs_overlap_point_t){65536, 0.1 + 0.2};
        c.cal.overlap_curve[1] = (rs_overlap_point_t){2097152, 1.0 / 3.0};
        c.cal.host_s_per_xfer = 7e-6 / 3, c.cal.host_s_per_byte = 1e-10 / 3;
        c.cal.poll = (rs_poll_model_t){.chunk_cols = 256, .panel_rows = {512, 256}, .n = 2};
        c.cal.poll.curve[0] = (rs_poll_point_t){65536, 7.0 / 3.0};
        c.cal.poll.curve[1] = (rs_poll_point_t){1048576, 2.0};
        c.cal.poll.n_fresh = 1; /* ... and the fresh transfers' */
        c.cal.poll.fresh[0] = (rs_poll_point_t){262144, 4.0 / 3.0};
        c.cal.n_xfer = 2; /* the transfer curve */
        c.cal.xfer_curve[0] = (rs_xfer_point_t){16384, 0.1 + 0.7};
        c.cal.xfer_curve[1] = (rs_xfer_point_t){1048576, 4.0 / 3.0};
        c.cal.n_xfer_reused = 1; /* ... and the reused one */
        c.cal.xfer_curve_reused[0] = (rs_xfer_point_t){65536, 2.0 / 3.0 + 1};
        const char *pc = RS_BINARY_DIR "/tests/test_hw_roundtrip_curve.json";
        CU_ASSERT_EQUAL_FATAL(rs_hw_write_json(&c, pc, "calibrated by test_hw", &err), 0);
        rs_hw_t cb = rs_test_hw(pc);
        CU_ASSERT_EQUAL_FATAL(cb.cal.n_overlap, 2);
        EXPECT_POINTS(cb.cal.overlap_curve, c.cal.overlap_curve, 2, bytes, eta);
        CU_ASSERT_EQUAL(cb.cal.host_s_per_xfer, c.cal.host_s_per_xfer);
        CU_ASSERT_EQUAL(cb.cal.host_s_per_byte, c.cal.host_s_per_byte);
        CU_ASSERT_EQUAL(cb.cal.overlap, 1.0); /* the scalar is not written next to a curve */
        CU_ASSERT_EQUAL_FATAL(cb.cal.poll.n, 2); /* the poll model */
        CU_ASSERT_EQUAL(cb.cal.poll.chunk_cols, 256);
        CU_ASSERT_EQUAL(cb.cal.poll.panel_rows[0], 512);
        CU_ASSERT_EQUAL(cb.cal.poll.panel_rows[1], 256);
        EXPECT_POINTS(cb.cal.poll.curve, c.cal.poll.curve, 2, bytes, polls);
        CU_ASSERT_EQUAL_FATAL(cb.cal.poll.n_fresh, 1);
        CU_ASSERT_EQUAL(cb.cal.poll.fresh[0].bytes, 262144);
        CU_ASSERT_EQUAL(cb.cal.poll.fresh[0].polls, c.cal.poll.fresh[0].polls);
        CU_ASSERT_EQUAL_FATAL(cb.cal.n_xfer, 2);
        EXPECT_POINTS(cb.cal.xfer_curve, c.cal.xfer_curve, 2, bytes, factor);
        CU_ASSERT_EQUAL_FATAL(cb.cal.n_xfer_reused, 1);
        CU_ASSERT_EQUAL(cb.cal.xfer_curve_reused[0].bytes, 65536);
        CU_ASSERT_EQUAL(cb.cal.xfer_curve_reused[0].factor, c.cal.xfer_curve_reused[0].factor);
    }
    CU_ASSERT_EQUAL(back.cal.n_xfer, 0); /* none written: the affine model */
    /* a second write of what was read is byte-identical */
    const char *path2 = RS_BINARY_DIR "/tests/test_hw_roundtrip2.json";
    CU_ASSERT_EQUAL_FATAL(rs_hw_write_json(&back, path2, "calibrated by test_hw", &err), 0);
    char *t1 = NULL, *t2 = NULL;
    size_t n1 = 0, n2 = 0;
    FILE *f1 = fopen(path, "r"), *f2 = fopen(path2, "r");
    CU_ASSERT_FATAL(f1 && f2);
    CU_ASSERT(getdelim(&t1, &n1, '\0', f1) > 0 && getdelim(&t2, &n2, '\0', f2) > 0);
    CU_ASSERT_STRING_EQUAL(t1, t2);
    free(t1);
    free(t2);
    fclose(f1);
    fclose(f2);
    remove(path);
    remove(path2);
    /* an unwritable path fails and leaves nothing behind */
    CU_ASSERT_EQUAL(rs_hw_write_json(&hw, "/nonexistent-dir/x.json", NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent-dir/x.json"));
    CU_ASSERT_EQUAL(access(path, F_OK), -1);
}

RS_TEST_PROGRAM("profile write")
