/* test_study_validate.c - the validation study's inputs (studies/study_validate.c): the defaults, and
 * rs_validate_finish - the calibration's blocks spanning the sweep, every refusal bad input before
 * any rank starts. The job itself runs in tests/exec (exec_validate_*: it measures). */
#include <stdlib.h>
#include <string.h>

#include "study_validate.h"
#include "test_main.h"

RS_TEST(test_defaults, "defaults: cpu, B = 8..1024, 5 rounds of 7 reps") {
    rs_validate_in_t in;
    rs_validate_defaults(&in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(in.backend);
    CU_ASSERT_STRING_EQUAL(in.backend->name, "cpu");
    CU_ASSERT_EQUAL(in.n_b, 8);
    for (int i = 0; i < 8; i++) CU_ASSERT_EQUAL(in.b[i], 8 << i);
    CU_ASSERT_EQUAL(in.rounds, 5);
    CU_ASSERT_EQUAL(in.exec.reps, 7);
    CU_ASSERT_EQUAL(in.exec.warmup, 1);
    CU_ASSERT_EQUAL(in.n_layouts, 1);
    CU_ASSERT_EQUAL(in.layouts[0], RS_LAYOUT_CONTIGUOUS);
    CU_ASSERT_EQUAL(in.n_masks, 1);
    CU_ASSERT(!in.masks_causal[0]);
    CU_ASSERT_EQUAL(in.dtype, RS_DTYPE_FP32);
    CU_ASSERT_EQUAL(in.job.n_ranks, 2);
    CU_ASSERT_STRING_EQUAL(in.job.subcommand, "validate");
    CU_ASSERT_PTR_EQUAL(in.out, stdout);
}

/* B = 8..1024: the calibration measures 8, 16, ..., 2048 (the sweep and a bit above). */
RS_TEST(test_finish_blocks, "finish: the calibration's blocks span the sweep") {
    rs_validate_in_t in;
    rs_validate_defaults(&in);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_validate_finish(&in, &err), 0);
    CU_ASSERT_EQUAL_FATAL(in.calib.n_blocks, 9);
    for (int i = 0; i < 9; i++) CU_ASSERT_EQUAL(in.calib.blocks[i], 8 << i);
    CU_ASSERT_EQUAL(in.job.n_ranks, 2);
    CU_ASSERT_EQUAL(in.job.dtype, RS_DTYPE_FP32);
    in.n_b = 2, in.b[0] = 64, in.b[1] = 96; /* from half the smallest, doubling while <= twice the largest */
    CU_ASSERT_EQUAL_FATAL(rs_validate_finish(&in, &err), 0);
    CU_ASSERT_EQUAL_FATAL(in.calib.n_blocks, 3);
    CU_ASSERT_EQUAL(in.calib.blocks[0], 32);
    CU_ASSERT_EQUAL(in.calib.blocks[2], 128);
}

RS_TEST(test_finish_refused, "finish: refusals are bad input") {
    rs_validate_in_t in;
    rs_validate_defaults(&in);
    rs_err_t err = {0};
    in.problem.n_ranks = 1;
    CU_ASSERT_EQUAL(rs_validate_finish(&in, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--ranks 1: validation needs a ring of at least 2");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_validate_defaults(&in);
    in.dtype = RS_DTYPE_BF16;
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_validate_finish(&in, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--dtype bf16: the cpu executor computes in fp32 (use --dtype fp32)");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_validate_defaults(&in);
    in.calibrated = "/nonexistent/profile.json";
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_validate_finish(&in, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "/nonexistent/profile.json: cannot read: No such file or directory");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_validate_defaults(&in);
    in.n_layouts = 2, in.layouts[1] = RS_LAYOUT_ZIGZAG, in.b[0] = 7; /* zigzag halves the block */
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_validate_finish(&in, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--seq 14: must be divisible by 2*N = 4 for the zigzag layout");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
}

RS_TEST_PROGRAM("validate")
