/* test_calibration.c - the calibration state and its curves (calibration.c), by hand: the defaults;
 * the efficiency, overlap, poll and transfer curves log-linear in x between points and clamped
 * outside; a step's polls and transfer factor weighing the fresh and reused curves by bytes; the host
 * cost; whether any step may overlap partially. */
#include <math.h>
#include <string.h>

#include "calibration.h"
#include "test_main.h"

RS_TEST(test_defaults, "defaults: no calibration") {
    rs_calibration_t c;
    memset(&c, 0x5a, sizeof c);
    rs_calibration_default(&c);
    CU_ASSERT_EQUAL(c.n_eff, 0);
    CU_ASSERT_EQUAL(c.launch_s, 0.0);
    CU_ASSERT_EQUAL(c.overlap, 1.0);
    CU_ASSERT_EQUAL(c.comp_slowdown, 1.0);
    CU_ASSERT_EQUAL(c.host_s_per_xfer, 0.0);
    CU_ASSERT_EQUAL(rs_calibration_efficiency(&c, 4096), 1.0);
    CU_ASSERT_EQUAL(rs_calibration_overlap(&c, 1e6), 1.0);
    CU_ASSERT_EQUAL(rs_calibration_xfer_factor(&c, 1e6), 1.0);
    CU_ASSERT_EQUAL(rs_calibration_xfer_factor_reused(&c, 1e6), 1.0);
    CU_ASSERT_EQUAL(rs_calibration_polls(&c, 1e6), 0.0);
    CU_ASSERT_FALSE(rs_calibration_polled(&c));
    CU_ASSERT_FALSE(rs_calibration_partial_overlap(&c));
    CU_ASSERT_EQUAL(rs_calibration_host_s(&c, 3, 1e6, 0), 0.0);
}

/* Points at 1 KiB, 4 KiB, 64 KiB: halfway in log x between the first two is 2 KiB, a quarter of the
 * way between the last two (log2 12 -> 16) is 8 KiB. */
RS_TEST(test_curves_by_hand, "efficiency and overlap curves by hand, clamped") {
    rs_calibration_t c;
    rs_calibration_default(&c);
    c.n_eff = 3;
    c.eff[0] = (rs_eff_point_t){1024, 0.4}, c.eff[1] = (rs_eff_point_t){4096, 0.8}, c.eff[2] = (rs_eff_point_t){65536, 1.0};
    RS_ASSERT_REL(rs_calibration_efficiency(&c, 2048), 0.6, 1e-15);
    RS_ASSERT_REL(rs_calibration_efficiency(&c, 8192), 0.85, 1e-15);
    CU_ASSERT_EQUAL(rs_calibration_efficiency(&c, 4096), 0.8); /* exact at a point */
    CU_ASSERT_EQUAL(rs_calibration_efficiency(&c, 10), 0.4);   /* clamped */
    CU_ASSERT_EQUAL(rs_calibration_efficiency(&c, 0), 0.4);
    CU_ASSERT_EQUAL(rs_calibration_efficiency(&c, 1e12), 1.0);
    c.n_overlap = 2;
    c.overlap_curve[0] = (rs_overlap_point_t){1024, 0.2}, c.overlap_curve[1] = (rs_overlap_point_t){4096, 1.0};
    RS_ASSERT_REL(rs_calibration_overlap(&c, 2048), 0.6, 1e-15);
    CU_ASSERT_EQUAL(rs_calibration_overlap(&c, 100), 0.2);
    CU_ASSERT_TRUE(rs_calibration_partial_overlap(&c));
    c.overlap_curve[0].eta = 1.0; /* every point 1: full overlap however the scalar reads */
    c.overlap = 0.5;
    CU_ASSERT_FALSE(rs_calibration_partial_overlap(&c));
    c.n_overlap = 0;
    CU_ASSERT_TRUE(rs_calibration_partial_overlap(&c)); /* the scalar 0.5 */
    CU_ASSERT_EQUAL(rs_calibration_overlap(&c, 1e6), 0.5);
}

/* Transfer curves: a fresh g and a reused g; a step weighs them by its reused share of bytes, and the
 * host cost scales O by the step's factor over the reused one's. */
RS_TEST(test_transfer_and_host, "transfer curves weighed by reused bytes, the host cost") {
    rs_calibration_t c;
    rs_calibration_default(&c);
    c.n_xfer = 2;
    c.xfer_curve[0] = (rs_xfer_point_t){1024, 1.0}, c.xfer_curve[1] = (rs_xfer_point_t){4096, 2.0};
    RS_ASSERT_REL(rs_calibration_xfer_factor(&c, 2048), 1.5, 1e-15);
    CU_ASSERT_EQUAL(rs_calibration_xfer_factor_reused(&c, 2048), rs_calibration_xfer_factor(&c, 2048)); /* no reused curve */
    CU_ASSERT_EQUAL(rs_calibration_step_xfer_factor(&c, 2048, 2048), rs_calibration_xfer_factor(&c, 2048));
    c.n_xfer_reused = 1;
    c.xfer_curve_reused[0] = (rs_xfer_point_t){1024, 3.0};
    CU_ASSERT_EQUAL(rs_calibration_xfer_factor_reused(&c, 2048), 3.0);
    RS_ASSERT_REL(rs_calibration_step_xfer_factor(&c, 2048, 512), 0.75 * 1.5 + 0.25 * 3.0, 1e-15);
    CU_ASSERT_EQUAL(rs_calibration_step_xfer_factor(&c, 2048, 0), rs_calibration_xfer_factor(&c, 2048)); /* nothing reused */
    CU_ASSERT_EQUAL(rs_calibration_step_xfer_factor(&c, 2048, 4096), 3.0); /* the share is at most 1 */
    c.host_s_per_xfer = 5e-6, c.host_s_per_byte = 1e-9;
    /* all reused: O as fitted; none reused: O x 1.5 / 3 */
    RS_ASSERT_REL(rs_calibration_host_s(&c, 2, 2048, 2048), 2 * 5e-6 + 2048 * 1e-9, 1e-15);
    RS_ASSERT_REL(rs_calibration_host_s(&c, 2, 2048, 0), 2 * 5e-6 + 2048 * 1e-9 * 0.5, 1e-15);
    CU_ASSERT_EQUAL(rs_calibration_host_s(&c, 0, 2048, 0), 0.0); /* nothing received */
}

/* Polls: the reused curve, and the fresh one weighed in by the step's fresh share. */
RS_TEST(test_polls, "polls: the reused and the fresh curve") {
    rs_calibration_t c;
    rs_calibration_default(&c);
    c.poll.n = 2;
    c.poll.curve[0] = (rs_poll_point_t){1024, 2.0}, c.poll.curve[1] = (rs_poll_point_t){4096, 4.0};
    CU_ASSERT_FALSE(rs_calibration_polled(&c)); /* a curve without a geometry */
    CU_ASSERT_EQUAL(rs_calibration_polls(&c, 2048), 0.0);
    c.poll.chunk_cols = 256, c.poll.panel_rows[0] = 512, c.poll.panel_rows[1] = 256;
    CU_ASSERT_TRUE(rs_calibration_polled(&c));
    CU_ASSERT_TRUE(rs_calibration_partial_overlap(&c));
    RS_ASSERT_REL(rs_calibration_polls(&c, 2048), 3.0, 1e-15);
    CU_ASSERT_EQUAL(rs_calibration_step_polls(&c, 2048, 0), rs_calibration_polls(&c, 2048)); /* no fresh curve */
    c.poll.n_fresh = 1;
    c.poll.fresh[0] = (rs_poll_point_t){1024, 1.0};
    RS_ASSERT_REL(rs_calibration_step_polls(&c, 2048, 0), 1.0, 1e-15);
    RS_ASSERT_REL(rs_calibration_step_polls(&c, 2048, 1024), 0.5 * 3.0 + 0.5 * 1.0, 1e-15);
    RS_ASSERT_REL(rs_calibration_step_polls(&c, 2048, 2048), 3.0, 1e-15);
}

RS_TEST_PROGRAM("calibration")
