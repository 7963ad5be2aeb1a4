/* test_calib_block.c - the compute side of a calibration on this rank alone (exec/calib_block.c), CPU
 * backend: a kernel point's samples and executed FLOPs, one call of each mask kind and its useful
 * FLOPs (full B^2, causal B(B+1)/2, shifted B(B-1)/2 pairs), the accumulation and memcpy bandwidths,
 * and a backend's refusal wrapped. */
#include <math.h>
#include <string.h>

#include "calib_block.h"
#include "exec_fixtures.h"
#include "test_main.h"

static rs_problem_t problem(rs_pass_t pass) {
    rs_problem_t p = rs_test_exec_problem(64, 1, RS_LAYOUT_CONTIGUOUS, false, pass, 1);
    return p;
}

/* At least min_reps samples appended after those already there, each a positive duration; the
 * executed FLOPs of a full 16 x 16 block: 16^2 pairs x 4 d Hq (forward) or 10 d Hq (backward). */
RS_TEST(test_kernel_point, "kernel_point") {
    for (int pass = 0; pass < 2; pass++) {
        rs_problem_t p = problem((rs_pass_t)pass);
        const rs_calib_point_t pt = {&p, 16, &rs_cpu_compute_ops, 0, 1e-4, 3};
        double samples[64] = {-1, -1};
        size_t n = 2;
        uint64_t flops = 0;
        rs_err_t err = {0};
        CU_ASSERT_EQUAL_FATAL(rs_calib_kernel_point(&pt, samples, 64, &n, &flops, &err), 0);
        CU_ASSERT(n >= 2 + 3);
        CU_ASSERT(samples[0] == -1 && samples[1] == -1); /* appended */
        for (size_t i = 2; i < n; i++) CU_ASSERT(samples[i] > 0 && samples[i] < 1);
        CU_ASSERT_EQUAL(flops, 16u * 16u * (pass ? 10u : 4u) * 16u * 2u);
        /* the capacity bounds the samples */
        n = 0;
        CU_ASSERT_EQUAL(rs_calib_kernel_point(&pt, samples, 2, &n, &flops, &err), 0);
        CU_ASSERT_EQUAL(n, 2u);
    }
}

RS_TEST(test_call_median, "call_median_useful_flops") {
    rs_problem_t p = problem(RS_PASS_FORWARD);
    const rs_calib_point_t pt = {&p, 16, &rs_cpu_compute_ops, 0, 1e-4, 3};
    const uint64_t fpp = 4 * 16 * 2, want[RS_KMASK_COUNT] = {16 * 16 * fpp, 16 * 17 / 2 * fpp, 16 * 15 / 2 * fpp};
    for (int m = 0; m < RS_KMASK_COUNT; m++) {
        double med = 0;
        uint64_t useful = 0;
        rs_err_t err = {0};
        CU_ASSERT_EQUAL_FATAL(rs_calib_call_median(&pt, (rs_kmask_t)m, &med, &useful, &err), 0);
        CU_ASSERT_EQUAL(useful, want[m]);
        CU_ASSERT(med > 0 && med < 1);
    }
}

RS_TEST(test_bandwidths, "merge_and_memcpy_bandwidth") {
    rs_problem_t p = problem(RS_PASS_FORWARD); /* measured on the backward's dK,dV buffer */
    const rs_calib_point_t pt = {&p, 32, &rs_cpu_compute_ops, 0, 1e-4, 0};
    double bw = 0;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_calib_merge_bw(&pt, &bw, &err), 0);
    CU_ASSERT(bw > 1e6 && isfinite(bw));
    const double mb = rs_calib_memcpy_bw();
    CU_ASSERT(mb > 1e6 && isfinite(mb));
}

/* The backend's refusal comes back wrapped: the CPU computes in fp32 only. */
RS_TEST(test_refusal, "refusal") {
    rs_problem_t p = problem(RS_PASS_FORWARD);
    p.act_bytes = 2;
    const rs_calib_point_t pt = {&p, 16, &rs_cpu_compute_ops, 0, 1e-4, 3};
    double samples[8];
    size_t n = 0;
    uint64_t flops = 0;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_calib_kernel_point(&pt, samples, 8, &n, &flops, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "calibrate: cpu backend: computes in fp32; use --dtype fp32 (act_bytes 4, got 2)");
    CU_ASSERT_EQUAL(n, 0u);
}

RS_TEST_PROGRAM("calib_block")
