/* test_calib_fit.c - the fits of a calibration (exec/calib_fit.c) on synthetic points made with a
 * known latency, bandwidth, host cost and overlap factors: the alpha-beta fit (free and with the
 * latency given) and its transfer curves, the efficiency curve, the host cost and each point's eta,
 * the poll curves, the ranks' straggler factors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calibrate.h"
#include "cost.h"
#include "exec_fixtures.h"
#include "polls.h"
#include "profile.h"
#include "ranges.h"
#include "test_main.h"

/* Affine times t = L + m / W (L = 3 us, W = 5 GB/s) give L and W back, no error and the flat curve
 * g = 1; with the latency given, W alone; a latency above every time leaves no bandwidth (INFINITY). */
RS_TEST(test_alpha_beta, "alpha_beta") {
    rs_calib_t c;
    memset(&c, 0, sizeof c);
    const uint64_t m[4] = {1024, 4096, 16384, 65536};
    for (int i = 0; i < 4; i++) c.sizes[i] = m[i], c.t_msg_s[i] = 3e-6 + (double)m[i] / 5e9;
    c.n_sizes = 4;
    rs_calib_fit_transport(&c);
    RS_ASSERT_REL(c.latency_s, 3e-6, 1e-9);
    RS_ASSERT_REL(c.bw_bytes_per_s, 5e9, 1e-9);
    CU_ASSERT(c.fit_err_max < 1e-9);
    CU_ASSERT_EQUAL_FATAL(c.model.n_xfer, 4);
    for (int i = 0; i < 4; i++) RS_ASSERT_REL(c.model.xfer_curve[i].factor, 1.0, 1e-9);
    CU_ASSERT_EQUAL(c.model.n_xfer_reused, 0); /* no rotating times */
    rs_calib_fit_transport_latency(&c, 3e-6);
    CU_ASSERT_EQUAL(c.latency_s, 3e-6);
    RS_ASSERT_REL(c.bw_bytes_per_s, 5e9, 1e-12);
    /* W alone from one size: (t - L) / m */
    rs_calib_t one = c;
    one.n_sizes = 1;
    rs_calib_fit_transport_latency(&one, 1e-6);
    RS_ASSERT_REL(one.bw_bytes_per_s, 1024 / (3e-6 + 1024 / 5e9 - 1e-6), 1e-12);
    rs_calib_fit_transport_latency(&c, 1.0);
    CU_ASSERT(isinf(c.bw_bytes_per_s));
    /* times below a line through the origin: the fitted latency would be negative, so L = 0 and W
     * from the least squares through the origin on relative error */
    for (int i = 0; i < 4; i++) c.t_msg_s[i] = (double)m[i] / 5e9 - 1e-7;
    rs_calib_fit_transport(&c);
    CU_ASSERT_EQUAL(c.latency_s, 0.0);
    double num = 0, den = 0;
    for (int i = 0; i < 4; i++) {
        const double w = 1 / (c.t_msg_s[i] * c.t_msg_s[i]);
        num += w * (double)m[i] * c.t_msg_s[i], den += w * (double)m[i] * (double)m[i];
    }
    RS_ASSERT_REL(c.bw_bytes_per_s, den / num, 1e-12);
    /* times that fall with the size: no positive slope, the bandwidth of the largest */
    for (int i = 0; i < 4; i++) c.t_msg_s[i] = 1e-5 / (i + 1);
    rs_calib_fit_transport(&c);
    CU_ASSERT_EQUAL(c.latency_s, 0.0);
    RS_ASSERT_REL(c.bw_bytes_per_s, 65536 / 2.5e-6, 1e-12);
}

/* eff(B) = F_eff(B) / F_peak, by block. */
RS_TEST(test_efficiency, "efficiency") {
    rs_calib_t c;
    memset(&c, 0, sizeof c);
    const double f[3] = {1e9, 4e9, 2e9};
    for (int i = 0; i < 3; i++) c.blocks[i] = 64 << i, c.flops_eff[i] = f[i];
    c.n_blocks = 3, c.flops_peak = 4e9;
    rs_calib_fit_efficiency(&c);
    CU_ASSERT_EQUAL_FATAL(c.model.n_eff, 3);
    const double want[3] = {0.25, 1.0, 0.5};
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(c.model.eff[i].block_tokens, (double)(64 << i));
        CU_ASSERT_EQUAL(c.model.eff[i].efficiency, want[i]);
    }
}

/* Calibration's overlap fit on synthetic points made by the model itself: a host cost n o + O m on
 * top of the compute alone (n flows of m bytes in all: points 1 and 3 carry two flows, a backward
 * step's K,V and dK,dV), and completions from the eta step with a different eta per size (the last
 * point's transfer outlasts its compute: the E >= t_c branch); the points are given out of order.
 * The fit must give back o, O and every eta, and the profile built from it must reproduce each
 * point's compute and, with the walk's sharing of the flows, its completion. */
RS_TEST(test_calib_fit_overlap, "fit_overlap") {
    rs_calib_t c;
    memset(&c, 0, sizeof c);
    const double L = 5e-6, W = 20e9, o = 4e-6, ob = 1e-10;
    const double ta[5] = {1e-5, 4e-5, 1.6e-4, 6.4e-4, 1e-4}, eta[5] = {0.3, 0.25, 0.2, 0.15, 0.05};
    const int nf[5] = {1, 2, 1, 2, 1}, order[5] = {3, 0, 4, 1, 2};
    const double polls[5] = {4, 8, 16, 6, 40}; /* the receiver's polls in each point's step */
    c.latency_s = L, c.bw_bytes_per_s = W;
    c.model.poll = (rs_poll_model_t){.chunk_cols = 256, .panel_rows = {512, 256}}; /* a polled transport */
    for (int k = 0; k < 5; k++) {
        const int i = order[k];
        const uint64_t m = 65536ull << i;
        const double x = (double)m / W, tc = ta[i] + nf[i] * o + ob * (double)m;
        double end;
        if (x <= eta[i] * (tc - L)) end = L + x / eta[i];
        else end = tc + (x - eta[i] * (tc - L));
        c.ov[c.n_ov++] = (rs_calib_overlap_t){16 << i, m, nf[i], ta[i], tc, L + x, end, 0, 0, 1, polls[i], 0};
    }
    CU_ASSERT(c.ov[2].t_end_s > c.ov[2].t_comp_busy_s); /* the branch after compute is exercised */
    /* a sixth point whose compute (with its host cost) ends before the latency: its eta is
     * undetermined (any eta predicts L + x) and it stays out of the curve */
    const double x6 = 1000 / W;
    c.ov[c.n_ov++] = (rs_calib_overlap_t){4, 1000, 1, 1e-7, 1e-7 + o + ob * 1000, L + x6, L + x6, 0, 0, 1, 2, 0};
    CU_ASSERT(c.ov[5].t_comp_busy_s < L);
    rs_calib_fit_overlap(&c);
    CU_ASSERT(isnan(c.ov[5].eta));
    RS_ASSERT_REL(c.model.host_s_per_xfer, o, 1e-9);
    RS_ASSERT_REL(c.model.host_s_per_byte, ob, 1e-9);
    CU_ASSERT(c.host_fit_err < 1e-12);
    for (int k = 0; k < 5; k++) RS_ASSERT_REL(c.ov[k].eta, eta[order[k]], 1e-9);
    /* the profile: curve by bytes, host cost, no slowdown; the model reproduces every point */
    rs_hw_t hw;
    rs_calib_to_hw(&c, "fit-test", "synthetic", 2, RS_DTYPE_FP32, &hw);
    CU_ASSERT_EQUAL_FATAL(hw.cal.n_overlap, 5);
    for (int k = 1; k < 5; k++) CU_ASSERT(hw.cal.overlap_curve[k].bytes > hw.cal.overlap_curve[k - 1].bytes);
    CU_ASSERT_EQUAL(hw.cal.comp_slowdown, 1.0);
    rs_machine_t m;
    memset(&m, 0, sizeof m);
    m.flops_per_s = 1e12;
    m.cal = hw.cal;
    for (int k = 0; k < 5; k++) {
        const rs_calib_overlap_t *v = &c.ov[k];
        const double x = (double)v->bytes / W, xs[2] = {0.5 * x, 0.5 * x}; /* two flows: K,V and dK,dV alike */
        const double tc = v->t_comp_s + rs_machine_host_s(&m, v->n_flows, (double)v->bytes, (double)v->bytes); /* rotating: reused */
        const double e = rs_machine_overlap(&m, (double)v->bytes);
        RS_ASSERT_REL(tc, v->t_comp_busy_s, 1e-9);
        RS_ASSERT_REL(e, eta[order[k]], 1e-9);
        /* one step: the step ends at max(compute, completion of the last flow) */
        RS_ASSERT_REL(v->n_flows == 2 ? rs_sync_step_s(tc, L, xs, 2, e, 1) : rs_sync_step_s(tc, L, &x, 1, e, 1),
                      fmax(tc, v->t_end_s), 1e-9);
        /* the poll model (polls evenly spaced: poll_first 0): k = x (1 / eta - 1) polls / t_c, and the
         * k-th of the step's own polls gives its eta back */
        const double kp = rs_calibration_polls(&m.cal, (double)v->bytes);
        RS_ASSERT_REL(kp, x * (1 / eta[order[k]] - 1) * v->polls / tc, 1e-9);
        RS_ASSERT_REL(rs_step_eta(&m, (double)v->bytes, x, tc, kp / v->polls), eta[order[k]], 1e-9);
        /* twice the polls in the same compute: the k-th poll comes at half the time, then x */
        const double t_k = kp * tc / (2 * v->polls);
        RS_ASSERT_REL(rs_step_eta(&m, (double)v->bytes, x, tc, kp / (2 * v->polls)), x / (x + t_k), 1e-12);
        RS_ASSERT_REL(L + x / rs_step_eta(&m, (double)v->bytes, x, tc, kp / (2 * v->polls)), L + t_k + x, 1e-12);
    }
    CU_ASSERT_EQUAL(hw.cal.poll.n, 5);
    CU_ASSERT_EQUAL(hw.cal.poll.chunk_cols, 256);
    /* no geometry (a transport that does not poll): no poll curve, the overlap curve alone */
    c.model.poll = (rs_poll_model_t){0};
    rs_calib_fit_overlap(&c);
    CU_ASSERT_EQUAL(c.model.poll.n, 0);
    CU_ASSERT(!rs_calibration_polled(&c.model));
}

/* The two poll curves by hand (rs_calib_fit_polls): three points whose rotating step (reused copy,
 * g = 2) ended at L + x_r / eta_r and whose fresh step (g = 1, the host cost's per-byte term at half,
 * as rs_machine_host_s charges a fresh step) at L + x_f / eta_f. Each curve gives k = x (1 / eta - 1)
 * polls / t_c with its own x and t_c; a step takes them by its reused bytes; the walk's eta of a
 * fresh step at the fresh k gives eta_f back; without the fresh steps there is one curve. */
RS_TEST(test_calib_fit_fresh_polls, "fit_fresh_polls") {
    rs_calib_t c;
    memset(&c, 0, sizeof c);
    const double L = 2e-6, W = 10e9, o = 3e-6, ob = 2e-10;
    const double ta[3] = {4e-5, 4e-4, 4e-3}, eta_r[3] = {0.4, 0.3, 0.2}, eta_f[3] = {0.6, 0.5, 0.25}, P[3] = {4, 8, 16};
    c.latency_s = L, c.bw_bytes_per_s = W;
    c.model.poll = (rs_poll_model_t){.chunk_cols = 256, .panel_rows = {512, 256}};
    c.model.host_s_per_xfer = o, c.model.host_s_per_byte = ob;
    c.model.n_xfer = 1, c.model.xfer_curve[0] = (rs_xfer_point_t){1e6, 1.0};
    c.model.n_xfer_reused = 1, c.model.xfer_curve_reused[0] = (rs_xfer_point_t){1e6, 2.0};
    double k_r[3], k_f[3], tcf[3], xf[3];
    for (int i = 0; i < 3; i++) {
        const uint64_t m = 65536ull << (2 * i);
        const double xr = 2.0 * (double)m / W, tcr = ta[i] + o + ob * (double)m;
        xf[i] = (double)m / W, tcf[i] = ta[i] + o + 0.5 * ob * (double)m;
        CU_ASSERT_FATAL(xr <= eta_r[i] * (tcr - L) && xf[i] <= eta_f[i] * (tcf[i] - L)); /* both end inside the compute */
        c.ov[c.n_ov++] = (rs_calib_overlap_t){.block = 64 << i, .bytes = m, .n_flows = 1, .t_comp_s = ta[i], .t_comp_busy_s = tcr,
                                               .t_xfer_s = L + xr, .t_end_s = L + xr / eta_r[i], .t_end_fresh_s = L + xf[i] / eta_f[i],
                                               .eta = eta_r[i], .sigma = 1, .polls = P[i], .poll_first = 0};
        k_r[i] = xr * (1 / eta_r[i] - 1) * P[i] / tcr, k_f[i] = xf[i] * (1 / eta_f[i] - 1) * P[i] / tcf[i];
    }
    rs_calib_fit_polls(&c);
    CU_ASSERT_EQUAL_FATAL(c.model.poll.n, 3);
    CU_ASSERT_EQUAL_FATAL(c.model.poll.n_fresh, 3);
    rs_machine_t mach;
    memset(&mach, 0, sizeof mach);
    mach.flops_per_s = 1e12, mach.cal = c.model;
    for (int i = 0; i < 3; i++) {
        const double m = (double)c.ov[i].bytes;
        RS_ASSERT_REL(rs_calibration_step_polls(&c.model, m, m), k_r[i], 1e-9);
        RS_ASSERT_REL(rs_calibration_step_polls(&c.model, m, 0), k_f[i], 1e-9);
        RS_ASSERT_REL(rs_calibration_step_polls(&c.model, m, 0.25 * m), 0.25 * k_r[i] + 0.75 * k_f[i], 1e-9);
        RS_ASSERT_REL(rs_calibration_polls(&c.model, m), k_r[i], 1e-9);
        /* the walk's fresh step: its compute with the fresh host cost, its eta from the fresh k */
        RS_ASSERT_REL(c.ov[i].t_comp_s + rs_machine_host_s(&mach, 1, m, 0), tcf[i], 1e-9);
        RS_ASSERT_REL(rs_step_eta(&mach, m, xf[i], tcf[i], rs_calibration_step_polls(&c.model, m, 0) / P[i]), eta_f[i], 1e-9);
    }
    for (int i = 0; i < 3; i++) c.ov[i].t_end_fresh_s = 0; /* not measured: the one curve serves both */
    rs_calib_fit_polls(&c);
    CU_ASSERT_EQUAL(c.model.poll.n, 3);
    CU_ASSERT_EQUAL(c.model.poll.n_fresh, 0);
    RS_ASSERT_REL(rs_calibration_step_polls(&c.model, (double)c.ov[1].bytes, 0), k_r[1], 1e-9);
}

/* Ranks of unequal speed: rank 1 is 10% slower at every block but one, rank 2 5% slower; the
 * factors are the medians of the ratios to the fastest rank at each block. */
RS_TEST(test_calib_rank_factors, "rank_factors") {
    /* blocks x ranks: times */
    const double t[4 * 3] = {1.0, 1.1, 1.05,   /* B0 */
                             2.0, 2.2, 2.1,    /* B1 */
                             4.0, 4.4, 4.2,    /* B2 */
                             8.8, 8.0, 8.4};   /* B3: rank 1 fastest here */
    double fastest[4], f[3];
    rs_calib_rank_factors(t, 4, 3, fastest, f);
    RS_ASSERT_REL(fastest[0], 1.0, 0);
    RS_ASSERT_REL(fastest[3], 8.0, 0);
    RS_ASSERT_REL(f[0], 1.0, 1e-15);  /* ratios 1, 1, 1, 1.1 -> median 1 */
    RS_ASSERT_REL(f[1], 1.1, 1e-12);  /* 1.1, 1.1, 1.1, 1 -> 1.1 */
    RS_ASSERT_REL(f[2], 1.05, 1e-12); /* 1.05, 1.05, 1.05, 1.05 */
}

/* The transfer curve from the transport fit: sizes whose times are not affine (a copy that leaves the
 * cache: 4 GB/s up to 256 KiB, 2.7 GB/s beyond, 30% off the best (L, W) at 1 MiB). The curve goes
 * through every size (L + m g(m) / W = t), an overlap point's transfer alone reads it, a size
 * between two points is log-linear in g, and one outside takes its end point's g. Affine times give
 * g = 1 at every size. */
RS_TEST(test_calib_xfer_curve, "xfer_curve") {
    rs_calib_t c;
    memset(&c, 0, sizeof c);
    const uint64_t m[5] = {16384, 65536, 262144, 524288, 1048576};
    for (int i = 0; i < 5; i++) {
        c.sizes[c.n_sizes] = m[i];
        c.t_msg_s[c.n_sizes++] = 2e-6 + (m[i] <= 262144 ? (double)m[i] / 4e9 : 262144 / 4e9 + (double)(m[i] - 262144) / 2.7e9);
    }
    c.ov[c.n_ov++] = (rs_calib_overlap_t){.block = 512, .bytes = 1048576, .n_flows = 1};
    rs_calib_fit_transport(&c);
    CU_ASSERT(c.fit_err_max > 0.05); /* the affine fit cannot follow the times */
    CU_ASSERT_EQUAL_FATAL(c.model.n_xfer, 5);
    for (int i = 0; i < 5; i++)
        RS_ASSERT_REL(c.latency_s + (double)m[i] * rs_calibration_xfer_factor(&c.model, (double)m[i]) / c.bw_bytes_per_s,
                      c.t_msg_s[i], 1e-12);
    RS_ASSERT_REL(c.ov[0].t_xfer_s, c.t_msg_s[4], 1e-12);
    const double g1 = c.model.xfer_curve[1].factor, g2 = c.model.xfer_curve[2].factor;
    RS_ASSERT_REL(rs_calibration_xfer_factor(&c.model, 131072), 0.5 * (g1 + g2), 1e-12); /* halfway in log bytes */
    RS_ASSERT_REL(rs_calibration_xfer_factor(&c.model, 4096), c.model.xfer_curve[0].factor, 1e-12);
    RS_ASSERT_REL(rs_calibration_xfer_factor(&c.model, 1e9), c.model.xfer_curve[4].factor, 1e-12);
    /* the exchange with rotating buffers (the ring's): its own curve with the same L and W, through
     * every size; the overlap samples (which rotate) read it */
    for (int i = 0; i < 5; i++) c.t_msg_reused_s[i] = 1.5 * c.t_msg_s[i] + 1e-6;
    rs_calib_fit_transport(&c);
    CU_ASSERT_EQUAL_FATAL(c.model.n_xfer_reused, 5);
    for (int i = 0; i < 5; i++) {
        RS_ASSERT_REL(c.latency_s + (double)m[i] * rs_calibration_xfer_factor_reused(&c.model, (double)m[i]) / c.bw_bytes_per_s,
                      c.t_msg_reused_s[i], 1e-12);
        RS_ASSERT_REL(c.latency_s + (double)m[i] * rs_calibration_xfer_factor(&c.model, (double)m[i]) / c.bw_bytes_per_s,
                      c.t_msg_s[i], 1e-12);
    }
    RS_ASSERT_REL(c.ov[0].t_xfer_s, c.t_msg_reused_s[4], 1e-12);
    memset(c.t_msg_reused_s, 0, sizeof c.t_msg_reused_s);
    for (int i = 0; i < 5; i++) c.t_msg_s[i] = 3e-6 + (double)m[i] / 5e9;
    rs_calib_fit_transport(&c);
    RS_ASSERT_REL(c.latency_s, 3e-6, 1e-9);
    for (int i = 0; i < 5; i++) RS_ASSERT_REL(c.model.xfer_curve[i].factor, 1.0, 1e-9);
    /* a loaded machine (times of a sanitizer build): ~2 ms at every size, one size far below the rest.
     * g stays in the profile's range, so the profile written loads back */
    const double tl[5] = {5.4e-4, 1.92e-3, 2.0e-3, 1.9e-3, 2.09e-3};
    for (int i = 0; i < 5; i++) c.sizes[i] = (uint64_t[]){1024, 4096, 16384, 65536, 1048576}[i], c.t_msg_s[i] = tl[i];
    rs_calib_fit_transport(&c);
    const rs_range_t gr = {RS_RANGE_XFER_FACTOR};
    CU_ASSERT_EQUAL(c.model.n_xfer, 5);
    for (int i = 0; i < c.model.n_xfer; i++) CU_ASSERT(c.model.xfer_curve[i].factor > gr.min && c.model.xfer_curve[i].factor <= gr.max);
    rs_hw_t hw;
    memset(&hw, 0, sizeof hw);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &hw, &err), 0);
    hw.cal.n_xfer = c.model.n_xfer;
    memcpy(hw.cal.xfer_curve, c.model.xfer_curve, sizeof hw.cal.xfer_curve);
    const char *path = RS_BINARY_DIR "/tests/test_exec_xfer_loaded.json";
    CU_ASSERT_EQUAL_FATAL(rs_hw_write_json(&hw, path, "test", &err), 0);
    rs_hw_t back;
    CU_ASSERT_EQUAL(rs_hw_load(path, &back, &err), 0);
    if (err.msg[0]) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL(back.cal.n_xfer, 5);
}

RS_TEST_PROGRAM("calib_fit")
