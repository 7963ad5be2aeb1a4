/* test_cmd_calibrate.c - `ringsim calibrate` end to end: --from-trace on two predicted traces at B =
 * 2048 and 8192 fits the very tier that predicted them (H100-SXM's NVLink at the rate NCCL reaches: 450
 * GB/s x 0.822 = 369.9 GB/s, 3 us), as a
 * profile that loads; a measured calibration of two ranks as threads writes a loadable profile; the
 * refusals. */
#include <stdlib.h>
#include <string.h>

#include "cmd_test.h"
#include "profile.h"

#ifdef RINGSIM_HAVE_EXEC
RS_TEST(test_from_trace, "--from-trace fits the tier that predicted the traces") {
    const char *a = rs_test_path("c8k.csv"), *b = rs_test_path("c32k.csv"), *fit = rs_test_path("fit.json");
    rs_cmd_model_traces(a, b);
    char args[2048];
    snprintf(args, sizeof args, "calibrate --from-trace %s %s --out %s", a, b, fit);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# traces: 2, N = 4 ranks, heads 32/8, d 128, contiguous, no mask, bf16\n"));
    /* a transfer of K,V of B tokens: 3 us + 2 B x 8 x 128 x 2 bytes / 369.9e9 = 25.678 us at B = 2048 */
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "       8388608     2.5678e-05     2.5678e-05      326.7\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# alpha-beta fit: L = 3e-06 s, W = 369.9 GB/s (max fit error 0.000%) from 24 transfers\n"));
    rs_hw_t hw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_load(fit, &hw, &err), 0);
    RS_ASSERT_REL(hw.intra.bw_bytes_per_s, 369.9e9, 1e-12);
    RS_ASSERT_REL(hw.intra.latency_s, 3e-6, 1e-12);
    CU_ASSERT_EQUAL(hw.devices_per_node, 4);
    CU_ASSERT_STRING_EQUAL(hw.name, "from-trace");
}

RS_TEST(test_measured, "a measured calibration writes a profile") {
    char args[1024], out[600];
    snprintf(out, sizeof out, "%s", rs_test_path("cpu.json"));
    snprintf(args, sizeof args, "calibrate --launch threads -N 2 --blocks 16,32 --min-time 0.001 --name tiny --out %s", out);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    rs_hw_t hw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_load(out, &hw, &err), 0);
    CU_ASSERT_STRING_EQUAL(hw.name, "tiny");
    CU_ASSERT_EQUAL(hw.cal.n_eff, 2); /* one efficiency point per block size */
    CU_ASSERT(hw.flops_per_s[RS_DTYPE_FP32] > 0);
    CU_ASSERT(hw.intra.bw_bytes_per_s > 0);
}

RS_TEST(test_refusals, "refusals") {
    rs_cmd_expect_usage("calibrate --from-trace a.csv", "ringsim calibrate: --out FILE is required (the profile to write)", NULL, NULL);
    rs_cmd_expect_usage("calibrate --out f.json x.csv", "ringsim calibrate: unexpected argument 'x.csv' (trace files go with --from-trace)",
                        NULL, NULL);
    rs_cmd_expect_usage("calibrate --out f.json --from-trace a.csv --min-time 1",
                        "ringsim calibrate: --min-time cannot be used with --from-trace (nothing runs on this machine: the traces are "
                        "the measurements)",
                        NULL, NULL);
    rs_cmd_expect_usage("calibrate --out f.json --blocks 8,4", "ringsim calibrate: --blocks 8,4: sizes must increase", NULL, NULL);
}

RS_TEST_MAIN(.suite = "ringsim calibrate", .scratch = "cmd_calibrate")
#else
RS_TEST_SKIPPED("no executor in this build")
#endif
