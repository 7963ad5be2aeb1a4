/* test_calib_profile.c - a calibration as a hardware profile (exec/calib_profile.c): every field the
 * profile takes from it, and its defaults when a measurement is missing. */
#include <string.h>
#include <unistd.h>

#include "calib_profile.h"
#include "test_main.h"

RS_TEST(test_to_hw, "to_hw") {
    rs_calib_t c;
    memset(&c, 0, sizeof c);
    c.flops_peak = 3.5e10, c.bw_bytes_per_s = 8e9, c.latency_s = 2e-6, c.mem_bw_bytes_per_s = 2.5e10;
    rs_calibration_default(&c.model);
    c.model.host_s_per_xfer = 4e-6, c.model.n_eff = 1, c.model.eff[0] = (rs_eff_point_t){64, 0.5};
    rs_hw_t hw;
    memset(&hw, 0x5a, sizeof hw);
    rs_calib_to_hw(&c, "box", "measured by a test", 3, RS_DTYPE_FP32, &hw);
    CU_ASSERT_STRING_EQUAL(hw.name, "box");
    CU_ASSERT_STRING_EQUAL(hw.calibration_note, "measured by a test");
    CU_ASSERT_EQUAL(hw.flops_per_s[RS_DTYPE_FP32], 3.5e10);
    CU_ASSERT_EQUAL(hw.flops_per_s[RS_DTYPE_BF16], 0.0); /* only the backend's dtype */
    CU_ASSERT_EQUAL(hw.devices_per_node, 3);
    CU_ASSERT_STRING_EQUAL(hw.intra.name, "measured");
    CU_ASSERT_EQUAL(hw.intra.bw_bytes_per_s, 8e9);
    CU_ASSERT_EQUAL(hw.intra.latency_s, 2e-6);
    CU_ASSERT(!hw.has_inter);
    CU_ASSERT_EQUAL(hw.mem_bw_bytes_per_s, 2.5e10);
    const long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    CU_ASSERT_EQUAL(hw.mem_bytes, (double)pages * (double)psz);
    CU_ASSERT_EQUAL(memcmp(&hw.cal, &c.model, sizeof hw.cal), 0);
    /* nothing measured on the transport or the memory: 1e12 B/s and 1e9 B/s */
    c.bw_bytes_per_s = 0, c.mem_bw_bytes_per_s = 0;
    rs_calib_to_hw(&c, "box", "", 1, RS_DTYPE_BF16, &hw);
    CU_ASSERT_EQUAL(hw.intra.bw_bytes_per_s, 1e12);
    CU_ASSERT_EQUAL(hw.mem_bw_bytes_per_s, 1e9);
    CU_ASSERT_EQUAL(hw.flops_per_s[RS_DTYPE_BF16], 3.5e10);
    CU_ASSERT_EQUAL(hw.flops_per_s[RS_DTYPE_FP32], 0.0);
}

RS_TEST_PROGRAM("calib_profile")
