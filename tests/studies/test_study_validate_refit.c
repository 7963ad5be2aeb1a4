/* test_study_validate_refit.c - the refit maths of the validation study (studies/study_validate_refit.c)
 * on planted samples with a known answer: F_eff at the sweep's B and the renormalised peak, the
 * stragglers and the factors at each B, the overlap points and sizes the interleaved samples add,
 * the alpha-beta transport fitted again, the kernel table's level scaled to the samples. */
#include <math.h>
#include <string.h>

#include "study_validate_refit.h"
#include "test_main.h"

/* Efficiency 1 at B = 8, 16, 32 and 0.5 at 64; at peak 100 FLOP/s the samples say 80 FLOP/s at 8 and
 * 160 at 16 and 32: those three change, 64 does not; the renormalised peak is 160. */
RS_TEST(test_eff_and_peak, "F_eff at the sweep's B, the renormalised peak") {
    rs_calibration_t cal;
    rs_calibration_default(&cal);
    cal.n_eff = 4;
    const double blocks[4] = {8, 16, 32, 64};
    for (int e = 0; e < 4; e++) cal.eff[e] = (rs_eff_point_t){blocks[e], e < 3 ? 1 : 0.5};
    const int64_t b[3] = {8, 16, 32};
    const uint64_t flops[3] = {800, 1600, 3200};
    const double fastest[3] = {10, 10, 20};
    rs_validate_refit_eff(&cal, 100, b, flops, fastest, 3);
    CU_ASSERT_DOUBLE_EQUAL(cal.eff[0].efficiency, 0.8, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(cal.eff[1].efficiency, 1.6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(cal.eff[2].efficiency, 1.6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(cal.eff[3].efficiency, 0.5, 1e-15);
    double peak = 100;
    rs_validate_renormalise(&cal, &peak);
    CU_ASSERT_DOUBLE_EQUAL(peak, 160, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(cal.eff[0].efficiency, 0.5, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(cal.eff[1].efficiency, 1, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(cal.eff[3].efficiency, 0.3125, 1e-15);
}

/* A rank more than 0.5% slower than the fastest is a straggler; the factors at each B. */
RS_TEST(test_stragglers, "stragglers over 0.5%, the factors at each B") {
    rs_perturb_t q;
    memset(&q, 0, sizeof q);
    q.n_stragglers = 5; /* replaced */
    const double f[4] = {1, 1.004, 1.2, 1.006};
    rs_validate_stragglers(f, 4, &q);
    CU_ASSERT_EQUAL_FATAL(q.n_stragglers, 2);
    CU_ASSERT_EQUAL(q.straggler_rank[0], 2);
    CU_ASSERT_EQUAL(q.straggler_factor[0], 1.2);
    CU_ASSERT_EQUAL(q.straggler_rank[1], 3);
    CU_ASSERT_EQUAL(q.straggler_factor[1], 1.006);
    const double t[4] = {1, 1.1, 2, 2.6}, fastest[2] = {1, 2};
    double at[4];
    rs_validate_factors_at(t, fastest, 2, 2, at);
    CU_ASSERT_DOUBLE_EQUAL(at[0], 1, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(at[1], 1.1, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(at[2], 1, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(at[3], 1.3, 1e-15);
}

/* o is want, field by field (every field of rs_calib_overlap_t). */
static void expect_point(const rs_calib_overlap_t *o, const rs_calib_overlap_t *want) {
#define EXPECT_FIELD(f) CU_ASSERT_EQUAL(o->f, want->f);
    EXPECT_FIELD(block) EXPECT_FIELD(bytes) EXPECT_FIELD(n_flows) EXPECT_FIELD(t_comp_s) EXPECT_FIELD(t_comp_busy_s)
    EXPECT_FIELD(t_xfer_s) EXPECT_FIELD(t_end_s) EXPECT_FIELD(t_end_fresh_s) EXPECT_FIELD(eta) EXPECT_FIELD(sigma)
    EXPECT_FIELD(polls) EXPECT_FIELD(poll_first)
#undef EXPECT_FIELD
}

/* A sample at B = 64 replaces the calibration's point there (with the poll geometry when polled); one
 * at B = 128 joins them; each adds its transfer size to the sweep's own list. */
RS_TEST(test_overlap_points, "overlap points replace or join the calibration's; sizes of the sweep") {
    static rs_calib_t c;
    memset(&c, 0, sizeof c);
    c.n_sizes = 3; /* the calibration's: not counted by the sweep's list */
    c.n_ov = 1, c.ov[0].block = 64, c.ov[0].bytes = 7;
    rs_calib_flows_t fl = {.n = 2, .bytes = 1000, .polls = 3, .poll_first = 0.25};
    fl.geom.chunk_cols = 4, fl.geom.panel_rows[0] = 8, fl.geom.panel_rows[1] = 16;
    int n_sizes = 0;
    const rs_validate_overlap_t a = {64, 5, 6, 3, 2, 1.5, 1.25, &fl};
    rs_validate_add_overlap(&c, &n_sizes, &a, true);
    CU_ASSERT_EQUAL(c.n_ov, 1);
    /* B, bytes, flows, compute alone and busy, no fitted transfer, the ends, eta 1, sigma, polls */
    expect_point(&c.ov[0], &(rs_calib_overlap_t){64, 1000, 2, 2, 3, 0, 5, 6, 1, 1.5, 3, 0.25});
    CU_ASSERT_EQUAL(c.model.poll.chunk_cols, 4);
    CU_ASSERT_EQUAL(c.model.poll.panel_rows[1], 16);
    CU_ASSERT_EQUAL(n_sizes, 1);
    CU_ASSERT_EQUAL(c.sizes[0], 1000);
    CU_ASSERT_EQUAL(c.t_msg_s[0], 1.5);
    CU_ASSERT_EQUAL(c.t_msg_reused_s[0], 1.25);
    fl.bytes = 2000, fl.geom.chunk_cols = 0;
    const rs_validate_overlap_t b = {128, 9, 9, 4, 0, 3, 2, &fl};
    rs_validate_add_overlap(&c, &n_sizes, &b, true); /* polled, but the compute does not poll */
    CU_ASSERT_EQUAL_FATAL(c.n_ov, 2);
    expect_point(&c.ov[1], &(rs_calib_overlap_t){128, 2000, 2, 0, 4, 0, 9, 9, 1, 1, 0, 0.25}); /* sigma 1: no compute alone */
    CU_ASSERT_EQUAL(c.model.poll.chunk_cols, 4);
    CU_ASSERT_EQUAL(n_sizes, 2);
    CU_ASSERT_EQUAL(c.n_sizes, 3);
    /* full: a new B is not added, its size is */
    c.n_ov = RS_CALIB_MAX_OV;
    const rs_validate_overlap_t d = {4096, 1, 1, 1, 1, 1, 1, &fl};
    rs_validate_add_overlap(&c, &n_sizes, &d, false);
    CU_ASSERT_EQUAL(c.n_ov, RS_CALIB_MAX_OV);
    CU_ASSERT_EQUAL(n_sizes, 3);
}

/* Transfers of L + m / W with L = 1 us, W = 1 GB/s at two sizes: the fit recovers them; one size
 * only leaves the calibration's sizes. */
RS_TEST(test_transport, "alpha-beta fitted again on the sweep's sizes") {
    static rs_calib_t c;
    memset(&c, 0, sizeof c);
    rs_calibration_default(&c.model);
    const double L = 1e-6, W = 1e9;
    c.n_sizes = 1; /* the calibration's one size */
    c.n_ov = 1, c.ov[0] = (rs_calib_overlap_t){64, 1000, 1, 1e-3, 1.1e-3, 0, 1.2e-3, 0, 1, 1.1, 0, 0};
    c.sizes[0] = 1000, c.t_msg_s[0] = L + 1000 / W;
    c.sizes[1] = 3000, c.t_msg_s[1] = L + 3000 / W;
    rs_validate_refit_transport(&c, 1);
    CU_ASSERT_EQUAL(c.n_sizes, 1);
    rs_validate_refit_transport(&c, 2);
    CU_ASSERT_EQUAL(c.n_sizes, 2);
    RS_ASSERT_REL(c.latency_s, L, 1e-9);
    RS_ASSERT_REL(c.bw_bytes_per_s, W, 1e-9);
}

/* A machine at F = 1 TFLOP/s with eff 0.5 at B = 64 and 1 at 128, running a kernel whose forward
 * curves (points 32, 64, 128 square calls) are: full 0.1, 0.25, 1 TFLOP/s; causal 0.1, 0.1, 0.4;
 * shifted 0.1, 0.1, 0.4; a backward causal curve alone. */
static void kernel_machine(rs_machine_t *m) {
    rs_tier_t tier = {"t", 1e9, 1e-6, {0, 0, 0}, 0};
    *m = rs_machine_figures("k", RS_DTYPE_BF16, 1e12, tier);
    m->cal.n_eff = 2;
    m->cal.eff[0] = (rs_eff_point_t){64, 0.5}, m->cal.eff[1] = (rs_eff_point_t){128, 1};
    rs_kernel_table_t *t = &m->kernels;
    memset(t, 0, sizeof *t);
    t->n_kernels = 1;
    snprintf(t->kernel[0].name, sizeof t->kernel[0].name, "planted");
    static const double rate[4][3] = {{0.1e12, 0.25e12, 1e12}, {0.1e12, 0.1e12, 0.4e12}, {0.1e12, 0.1e12, 0.4e12},
                                      {0.2e12, 0.2e12, 0.2e12}};
    for (int i = 0; i < 4; i++) {
        rs_kcurve_t *c = &t->curve[t->n_curves++];
        c->kernel = 0, c->dtypes = 1u << RS_DTYPE_BF16, c->head_dim = 128, c->n = 3;
        c->pass = i < 3 ? RS_PASS_FORWARD : RS_PASS_BACKWARD, c->mask = i < 3 ? (rs_kmask_t)i : RS_KMASK_CAUSAL;
        for (int j = 0; j < 3; j++) c->pt[j] = (rs_kpoint_t){32 << j, 32 << j, rate[i][j]};
    }
    t->impl_kernel[RS_IMPL_FLASH_ATTN] = 1;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_machine_set_kernel(m, RS_IMPL_FLASH_ATTN, 1, &err), 0);
}

static const rs_kcurve_t *curve(const rs_machine_t *m, rs_pass_t pass, rs_kmask_t mask) {
    for (int c = 0; c < m->kernels.n_curves; c++)
        if (m->kernels.curve[c].pass == (int)pass && m->kernels.curve[c].mask == mask) return &m->kernels.curve[c];
    return NULL;
}

/* The sweep B = 64, 128: full scaled to F_eff(B) (x2 at 64, x1 at 128, 32 takes 64's), causal by
 * its own calls (2e11 and 8e11 FLOP/s now: x2 at both), shifted sampled at 128 only (x0.5, 32 and
 * 64 take it); the backward untouched. Without the mask samples causal follows the full factor. */
RS_TEST(test_kernel_table, "the kernel table scaled to the samples' level") {
    rs_machine_t m;
    kernel_machine(&m);
    const int64_t b[2] = {64, 128};
    const double t_mask[4] = {0.005, 0, 0.005, 0.01}; /* [B][causal, shifted] */
    const uint64_t useful[4] = {1000000000ull, 0, 4000000000ull, 2000000000ull};
    const rs_validate_kernels_t ks = {2, b, true, t_mask, useful};
    double rate[RS_KMASK_COUNT][RS_KMAX_POINTS];
    const rs_kcurve_t *full = NULL;
    CU_ASSERT_FATAL(rs_validate_refit_kernels(&m, RS_PASS_FORWARD, &ks, rate, &full));
    CU_ASSERT_PTR_EQUAL(full, curve(&m, RS_PASS_FORWARD, RS_KMASK_FULL));
    static const double want[3][3] = {{0.2e12, 0.5e12, 1e12}, {0.2e12, 0.2e12, 0.8e12}, {0.05e12, 0.05e12, 0.2e12}};
    for (int mask = 0; mask < 3; mask++) {
        const rs_kcurve_t *c = curve(&m, RS_PASS_FORWARD, (rs_kmask_t)mask);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        for (int j = 0; j < 3; j++) {
            RS_ASSERT_REL(c->pt[j].flops_per_s, want[mask][j], 1e-12);
            RS_ASSERT_REL(rate[mask][j], want[mask][j], 1e-12);
        }
    }
    const rs_kcurve_t *bwd = curve(&m, RS_PASS_BACKWARD, RS_KMASK_CAUSAL);
    for (int j = 0; j < 3; j++) CU_ASSERT_EQUAL(bwd->pt[j].flops_per_s, 0.2e12);
    /* no full curve of the backward: nothing changes */
    CU_ASSERT(!rs_validate_refit_kernels(&m, RS_PASS_BACKWARD, &ks, rate, &full));
    CU_ASSERT_EQUAL(bwd->pt[0].flops_per_s, 0.2e12);
    /* no mask samples (no causal configuration ran): causal and shifted follow the full call's factor */
    kernel_machine(&m);
    const double none[4] = {0, 0, 0, 0};
    const rs_validate_kernels_t plain = {2, b, false, none, useful};
    CU_ASSERT_FATAL(rs_validate_refit_kernels(&m, RS_PASS_FORWARD, &plain, rate, &full));
    RS_ASSERT_REL(curve(&m, RS_PASS_FORWARD, RS_KMASK_CAUSAL)->pt[1].flops_per_s, 0.2e12, 1e-12);
    RS_ASSERT_REL(curve(&m, RS_PASS_FORWARD, RS_KMASK_SHIFTED)->pt[2].flops_per_s, 0.4e12, 1e-12);
    /* no kernel: nothing */
    m.kernel = 0;
    CU_ASSERT(!rs_validate_refit_kernels(&m, RS_PASS_FORWARD, &ks, rate, &full));
}

RS_TEST_PROGRAM("validate_refit")
