/* test_kernel_table.c - kernel curves (kernel_table.c): a curve's rate by call shape (log-log in
 * area, nearest aspect, clamped, exact at its points) by hand, a one-point curve's borrowed shape by
 * hand, and the resolution of a call's curve with its fallbacks (nearest mask, the other pass, nearest
 * head_dim, no dtype). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_table.h"
#include "machine.h"
#include "test_main.h"
#include "model_fixtures.h"

RS_TEST(test_curve_interpolation, "interpolation by hand (log-log in area, nearest aspect, clamped, exact at points)") {
    static rs_kernel_table_t t; /* one kernel, one curve, prepared (its logs derived) */
    memset(&t, 0, sizeof t);
    t.n_kernels = 1, t.n_curves = 1;
    snprintf(t.kernel[0].name, sizeof t.kernel[0].name, "k");
    rs_kcurve_t *cv = &t.curve[0];
    cv->dtypes = 1u << RS_DTYPE_BF16, cv->head_dim = 128, cv->n = 5;
    cv->pt[0] = (rs_kpoint_t){512, 512, 100e12};
    cv->pt[1] = (rs_kpoint_t){1024, 2048, 174.6e12}; /* two points share the area 2M */
    cv->pt[2] = (rs_kpoint_t){2048, 1024, 165.9e12};
    cv->pt[3] = (rs_kpoint_t){2048, 2048, 180e12};
    cv->pt[4] = (rs_kpoint_t){8192, 8192, 200e12};
    CU_ASSERT_EQUAL_FATAL(rs_kernel_table_prepare(&t, NULL), 0);
    const rs_kcurve_t c = *cv;
    for (int i = 0; i < c.n; i++) /* every point's own shape: its own rate, exactly */
        CU_ASSERT_EQUAL(rs_kcurve_rate(&c, c.pt[i].q_tokens, c.pt[i].k_tokens), c.pt[i].flops_per_s);
    /* clamped outside */
    CU_ASSERT_EQUAL(rs_kcurve_rate(&c, 128, 128), 100e12);
    CU_ASSERT_EQUAL(rs_kcurve_rate(&c, 65536, 65536), 200e12);
    /* 1024 x 1024 (area 1M) between 512^2 (256K) and the 2M pair; a square call is as near 1Kx2K as
     * 2Kx1K in log aspect: the first (174.6) is used: log-log at t = ln 4 / ln 8 = 2/3 */
    double want = exp(log(100e12) + (2.0 / 3) * (log(174.6e12) - log(100e12)));
    RS_ASSERT_REL(rs_kcurve_rate(&c, 1024, 1024), want, 1e-14);
    /* 4096 x 512 (area 2M, aspect 8): the 2Kx1K point (aspect 2) is nearer than 1Kx2K */
    CU_ASSERT_EQUAL(rs_kcurve_rate(&c, 4096, 512), 165.9e12);
    /* 2048 x 4096 (area 8M): between 2048^2 (4M) and 8192^2 (64M) at t = ln 2 / ln 16 = 1/4 */
    RS_ASSERT_REL(rs_kcurve_rate(&c, 2048, 4096), exp(log(180e12) + 0.25 * (log(200e12) - log(180e12))), 1e-14);
}

RS_TEST(test_resolve_fallbacks, "fallbacks: nearest mask, other pass, nearest head_dim, no dtype") {
    rs_machine_t m = rs_test_kernel_machine(RS_IMPL_FLASH_ATTN, 0);
    rs_kresolve_t r;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_kernel_resolve(&m.kernels, 0, RS_DTYPE_BF16, 128, &r, &err), 0);
    /* the backward has only a full curve: causal and shifted fall back to it, once each */
    CU_ASSERT_EQUAL(r.idx[RS_PASS_BACKWARD][RS_KMASK_CAUSAL], 3);
    CU_ASSERT_EQUAL(r.idx[RS_PASS_BACKWARD][RS_KMASK_SHIFTED], 3);
    CU_ASSERT_EQUAL(r.idx[RS_PASS_FORWARD][RS_KMASK_SHIFTED], 2);
    CU_ASSERT_STRING_EQUAL(r.notes, "kernel k has no backward causal curve: using its full curve; "
                                    "kernel k has no backward shifted curve: using its full curve");
    /* head_dim 64: the nearest (128) with a note; fp8: no curve at all */
    CU_ASSERT_EQUAL_FATAL(rs_kernel_resolve(&m.kernels, 0, RS_DTYPE_BF16, 64, &r, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.notes, "kernel k has no bf16 curve for head_dim 64: using its head_dim 128 curves"));
    CU_ASSERT_EQUAL(rs_kernel_resolve(&m.kernels, 0, RS_DTYPE_FP8, 128, &r, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "kernel k has no curve for dtype fp8");
    /* a pass without curves uses the other pass's */
    m.kernels.n_curves = 3; /* forward only */
    CU_ASSERT_EQUAL_FATAL(rs_kernel_resolve(&m.kernels, 0, RS_DTYPE_BF16, 128, &r, &err), 0);
    CU_ASSERT_EQUAL(r.idx[RS_PASS_BACKWARD][RS_KMASK_FULL], 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.notes, "kernel k has no backward curve: its forward curves stand in"));
}

/* Curve i of kernel 0 (bf16): n points of square shapes side[j] at rate[j] TFLOP/s. */
static void add_square_curve(rs_kernel_table_t *t, rs_pass_t pass, rs_kmask_t mask, int64_t d, int n, const double *side,
                             const double *tflops) {
    rs_kcurve_t *c = &t->curve[t->n_curves++];
    memset(c, 0, sizeof *c);
    c->dtypes = 1u << RS_DTYPE_BF16, c->head_dim = d, c->pass = (int)pass, c->mask = mask, c->n = n;
    for (int j = 0; j < n; j++) c->pt[j] = (rs_kpoint_t){side[j], side[j], tflops[j] * 1e12};
}

RS_TEST(test_one_point_shape, "a one-point curve borrows the nearest curve's shape, scaled through its point (by hand)") {
    static rs_kernel_table_t t;
    memset(&t, 0, sizeof t);
    t.n_kernels = 1;
    snprintf(t.kernel[0].name, sizeof t.kernel[0].name, "k");
    add_square_curve(&t, RS_PASS_FORWARD, RS_KMASK_CAUSAL, 128, 3, (double[]){1024, 4096, 16384}, (double[]){100, 160, 200});
    add_square_curve(&t, RS_PASS_BACKWARD, RS_KMASK_FULL, 64, 2, (double[]){1024, 16384}, (double[]){120, 240});
    add_square_curve(&t, RS_PASS_BACKWARD, RS_KMASK_CAUSAL, 128, 1, (double[]){8192}, (double[]){150});
    add_square_curve(&t, RS_PASS_FORWARD, RS_KMASK_FULL, 128, 1, (double[]){2048}, (double[]){300});
    CU_ASSERT_EQUAL_FATAL(rs_kernel_table_prepare(&t, NULL), 0);
    /* backward causal d128 (8K, 150): the same mask wins over the same pass (the causal ramp at short
     * sequences is the diagonal tiles' share, which both passes have): the forward causal d128 curve.
     * It rates 8K^2 (area 2^26, halfway in log from 4K^2 to 16K^2) at sqrt(160 x 200), so its knots
     * scale by f = 150 / sqrt(32000): 1K -> 100 f = 150 sqrt(5/16), 4K -> 160 f, 16K -> 200 f =
     * 150 sqrt(5/4), plus the point: 4 knots; 2K (halfway from 1K to 4K) -> sqrt(100 x 160) f = 150 / sqrt 2. */
    const rs_kcurve_t *b = &t.curve[2];
    CU_ASSERT_EQUAL(b->shape_from, 1);
    CU_ASSERT_EQUAL(b->nk, 4);
    CU_ASSERT_EQUAL(rs_kcurve_rate(b, 8192, 8192), 150e12); /* its own point, exactly */
    RS_ASSERT_REL(rs_kcurve_rate(b, 2048, 2048), 150e12 / sqrt(2.0), 1e-13);
    RS_ASSERT_REL(rs_kcurve_rate(b, 512, 512), 150e12 * sqrt(5.0 / 16), 1e-13);    /* clamped at the donor's first knot */
    RS_ASSERT_REL(rs_kcurve_rate(b, 32768, 32768), 150e12 * sqrt(5.0 / 4), 1e-13); /* and at its last */
    CU_ASSERT_EQUAL(rs_kcurve_outside(b, 1024, 1024), 0);
    CU_ASSERT_EQUAL(rs_kcurve_outside(b, 512, 512), -1);
    /* forward full d128 (2K, 300): the same mask (the backward full d64 curve) wins over the same pass
     * and head_dim (forward causal). It rates 2K^2 (a quarter of the way in log from 1K^2 to 16K^2) at
     * 120 x 2^0.25, so its knots scale by 300 / (120 x 2^0.25): 1K -> 300 x 2^-0.25, 16K -> 300 x 2^0.75,
     * plus the point: 3 knots; 8K^2 (2/3 of the way in log from 2K^2 to 16K^2) gets 300 x 2^0.5 */
    const rs_kcurve_t *f = &t.curve[3];
    CU_ASSERT_EQUAL(f->shape_from, 2);
    CU_ASSERT_EQUAL(f->nk, 3);
    CU_ASSERT_EQUAL(rs_kcurve_rate(f, 2048, 2048), 300e12);
    RS_ASSERT_REL(rs_kcurve_rate(f, 8192, 8192), 300e12 * sqrt(2.0), 1e-13);
    RS_ASSERT_REL(rs_kcurve_rate(f, 1024, 1024), 300e12 * pow(2, -0.25), 1e-13);
    /* the curves with several points keep their own */
    CU_ASSERT_EQUAL(t.curve[0].shape_from, 0);
    CU_ASSERT_EQUAL(rs_kcurve_rate(&t.curve[0], 4096, 4096), 160e12);
    /* the resolution says whose shape a curve took */
    rs_kresolve_t r;
    CU_ASSERT_EQUAL_FATAL(rs_kernel_resolve(&t, 0, RS_DTYPE_BF16, 128, &r, NULL), 0);
    CU_ASSERT_EQUAL(r.idx[RS_PASS_BACKWARD][RS_KMASK_CAUSAL], 2);
    /* standing in for the missing backward full curve, the causal point is its flat twin (curve[4]):
     * the borrowed shape is the causal mask's */
    CU_ASSERT_EQUAL(t.n_twins, 2);
    CU_ASSERT_EQUAL_FATAL(r.idx[RS_PASS_BACKWARD][RS_KMASK_FULL], 4);
    CU_ASSERT_EQUAL(t.curve[4].twin_of, 3);
    CU_ASSERT_EQUAL(rs_kcurve_rate(&t.curve[4], 2048, 2048), 150e12);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.notes, "kernel k has no backward full curve: using its causal curve at its one point for every shape"));
    /* standing in for the shifted kind (a diagonal mask too), the causal curve keeps its borrowed shape */
    CU_ASSERT_EQUAL(r.idx[RS_PASS_BACKWARD][RS_KMASK_SHIFTED], 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.notes, "kernel k has no backward shifted curve: using its causal curve"));
    CU_ASSERT_PTR_NULL(strstr(r.notes, "shifted curve: using its causal curve at its one point"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.notes, "kernel k's backward causal curve (head_dim 128) has one point, 8192x8192 tokens: its shape "
                                           "over sequence length borrowed from its forward causal curve (head_dim 128), scaled through that point"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.notes, "kernel k's forward full curve (head_dim 128) has one point, 2048x2048 tokens: its shape "
                                           "over sequence length borrowed from its backward full curve (head_dim 64)"));
    /* a kernel with no curve of several points: the one point, clamped, and no note */
    t.n_curves = 1;
    t.curve[0].n = 1;
    CU_ASSERT_EQUAL_FATAL(rs_kernel_table_prepare(&t, NULL), 0);
    CU_ASSERT_EQUAL(t.curve[0].shape_from, 0);
    CU_ASSERT_EQUAL(rs_kcurve_rate(&t.curve[0], 16384, 16384), 100e12);
    CU_ASSERT_EQUAL_FATAL(rs_kernel_resolve(&t, 0, RS_DTYPE_BF16, 128, &r, NULL), 0);
    CU_ASSERT_PTR_NULL(strstr(r.notes, "borrowed"));
}

RS_TEST(test_rate_dim, "the exponential term of a call below its curve's head_dim, by hand; none at or above it, none without a rate") {
    static rs_kernel_table_t t;
    memset(&t, 0, sizeof t);
    t.n_kernels = 1;
    snprintf(t.kernel[0].name, sizeof t.kernel[0].name, "k");
    add_square_curve(&t, RS_PASS_FORWARD, RS_KMASK_FULL, 128, 1, (double[]){4096}, (double[]){183.63});
    add_square_curve(&t, RS_PASS_BACKWARD, RS_KMASK_CAUSAL, 128, 1, (double[]){8192}, (double[]){174.4});
    CU_ASSERT_EQUAL_FATAL(rs_kernel_table_prepare(&t, NULL), 0);
    const double e = 2.43648e12; /* an A100's 16 exponentials a clock x 108 SMs x 1.41 GHz */
    /* forward at d 32: 1/rate = 1/183.63e12 + (1/(4 x 32) - 1/(4 x 128)) / e
     * = 5.445733e-15 + (7.8125e-3 - 1.953125e-3) / 2.43648e12 = 5.445733e-15 + 2.404863e-15 s per FLOP:
     * 127.379e12, 0.6937 of the d 128 rate; at d 64: + (3.90625e-3 - 1.953125e-3) / e = + 8.01621e-16:
     * 160.07e12 (0.8717) */
    RS_ASSERT_REL(rs_kcurve_rate_dim(&t.curve[0], 4096, 4096, 32, e), 127.37903012e12, 1e-9);
    RS_ASSERT_REL(rs_kcurve_rate_dim(&t.curve[0], 4096, 4096, 64, e), 183.63e12 * 0.87168681134, 1e-9);
    /* backward at d 32: 10 FLOPs a score per head_dim: + (1/320 - 1/1280) / e = 9.61945e-16 on 5.733945e-15:
     * 149.345e12 (0.8563) */
    RS_ASSERT_REL(rs_kcurve_rate_dim(&t.curve[1], 8192, 8192, 32, e), 149.34543499e12, 1e-9);
    /* at or above the curve's head_dim, or without the device's rate: the curve's own rate */
    CU_ASSERT_EQUAL(rs_kcurve_rate_dim(&t.curve[0], 4096, 4096, 128, e), 183.63e12);
    CU_ASSERT_EQUAL(rs_kcurve_rate_dim(&t.curve[0], 4096, 4096, 256, e), 183.63e12);
    CU_ASSERT_EQUAL(rs_kcurve_rate_dim(&t.curve[0], 4096, 4096, 32, 0), 183.63e12);
}

RS_TEST_PROGRAM("kernel table")
