/* test_calibrate_kernels.c - the kernel table of this machine (exec/calibrate_kernels.c) on the CPU
 * backend: a table of one pass and of both, what it refuses, and how it is printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_kernels.h"
#include "exec_fixtures.h"
#include "test_main.h"

/* The kernel table of one pass (validate measures only the pass it predicts): with passes = the
 * backward bit, three backward curves (full, causal, shifted) of every block size, each point's
 * rate positive; the forward resolves to them and says so. Both bits (0): six curves. */
RS_TEST(test_kernel_table_one_pass, "kernel_table_one_pass") {
    rs_problem_t p = rs_test_exec_problem(64, 1, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_BACKWARD, 2);
    rs_calib_kernel_opts_t ko = {.n_blocks = 2, .blocks = {8, 16}, .min_time_s = 1e-4, .min_reps = 2, .dtype = RS_DTYPE_FP32,
                                 .passes = 1u << RS_PASS_BACKWARD};
    snprintf(ko.name, sizeof ko.name, "ringsim-cpu");
    rs_kernel_table_t t;
    rs_err_t err;
    CU_ASSERT_EQUAL_FATAL(rs_calib_kernel_table(&p, &rs_cpu_compute_ops, 0, &ko, &t, &err), 0);
    CU_ASSERT_EQUAL(t.n_curves, RS_KMASK_COUNT);
    for (int c = 0; c < t.n_curves; c++) {
        CU_ASSERT_EQUAL(t.curve[c].pass, RS_PASS_BACKWARD);
        CU_ASSERT_EQUAL(t.curve[c].mask, (rs_kmask_t)c);
        CU_ASSERT_EQUAL(t.curve[c].n, 2);
        for (int i = 0; i < t.curve[c].n; i++) CU_ASSERT(t.curve[c].pt[i].flops_per_s > 0);
    }
    rs_kresolve_t r;
    CU_ASSERT_EQUAL_FATAL(rs_kernel_resolve(&t, 0, RS_DTYPE_FP32, p.head_dim, &r, &err), 0);
    for (int m = 0; m < RS_KMASK_COUNT; m++) CU_ASSERT_EQUAL(r.idx[RS_PASS_FORWARD][m], r.idx[RS_PASS_BACKWARD][m]);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.notes, "has no forward curve"));
    ko.passes = 0;
    CU_ASSERT_EQUAL_FATAL(rs_calib_kernel_table(&p, &rs_cpu_compute_ops, 0, &ko, &t, &err), 0);
    CU_ASSERT_EQUAL(t.n_curves, 2 * RS_KMASK_COUNT);
}

/* Fewer than two block sizes are refused; the table prints a row per block size and pass with the
 * three mask kinds' GFLOP/s, then the merge bandwidth. */
RS_TEST(test_refusal_and_print, "refusal_and_print") {
    rs_problem_t p = rs_test_exec_problem(64, 1, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_FORWARD, 2);
    rs_calib_kernel_opts_t ko = {.n_blocks = 1, .blocks = {8}, .min_time_s = 1e-4, .min_reps = 2, .dtype = RS_DTYPE_FP32,
                                 .passes = 1u << RS_PASS_FORWARD};
    snprintf(ko.name, sizeof ko.name, "k");
    rs_kernel_table_t t;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_calib_kernel_table(&p, &rs_cpu_compute_ops, 0, &ko, &t, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "calibrate: the kernel table needs 2 to 24 block sizes, got 1");
    memset(&t, 0, sizeof t);
    t.n_kernels = 1, t.n_curves = RS_KMASK_COUNT, t.merge_bw_bytes_per_s = 1.25e10;
    snprintf(t.kernel[0].name, sizeof t.kernel[0].name, "ringsim-cpu");
    for (int m = 0; m < RS_KMASK_COUNT; m++) {
        t.curve[m] = (rs_kcurve_t){.pass = RS_PASS_FORWARD, .mask = (rs_kmask_t)m, .n = 1};
        t.curve[m].pt[0] = (rs_kpoint_t){32, 32, 1e9 * (m + 1)};
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    rs_calib_kernel_print(&t, f);
    fclose(f);
    CU_ASSERT_STRING_EQUAL(text, "# kernel table: useful GFLOP/s of one B x B call per mask kind (the profile's kernel ringsim-cpu, preset "
                                 "ringsim)\n"
                                 "#        B pass             full       causal      shifted\n"
                                 "        32 forward         1.000        2.000        3.000\n"
                                 "# merge bandwidth (the backend's grad_add, dst += src): 12.5 GB/s\n");
    free(text);
}

RS_TEST_PROGRAM("calibrate_kernels")
