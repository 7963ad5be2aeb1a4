/* test_study_calibrate.c - what the measuring studies share (studies/study_calibrate.c): the
 * defaults, the checks before any rank starts (as bad input), and the SPMD job's exit code turned
 * into the error's kind by rs_measure_run, on a job of threads whose body returns a chosen code.
 * The calibration itself runs in tests/exec (exec_calibrate_*: it measures). */
#include <stdlib.h>
#include <string.h>

#include "study_calibrate.h"
#include "test_main.h"

RS_TEST(test_defaults, "defaults: cpu, the measurement problem, two ranks polling") {
    rs_calibrate_in_t in;
    rs_calibrate_defaults(&in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(in.backend);
    CU_ASSERT_STRING_EQUAL(in.backend->name, "cpu");
    CU_ASSERT_EQUAL(in.problem.n_ranks, 2);
    CU_ASSERT_EQUAL(in.problem.act_bytes, 4);
    CU_ASSERT_EQUAL(in.dtype, RS_DTYPE_FP32);
    CU_ASSERT_STRING_EQUAL(in.job.subcommand, "calibrate");
    CU_ASSERT_EQUAL(in.job.n_ranks, 2);
    CU_ASSERT_EQUAL(in.job.progress, RS_PROGRESS_POLL);
    CU_ASSERT_PTR_EQUAL(in.out, stdout);
    CU_ASSERT_STRING_EQUAL(in.name, "");
}

RS_TEST(test_checks, "checks before the ranks start: mpirun's count, the dtype") {
    rs_calibrate_in_t in;
    rs_calibrate_defaults(&in);
    in.problem.n_ranks = 4;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_calibrate_finish(&in, &err), 0);
    CU_ASSERT_EQUAL(in.job.n_ranks, 4); /* the job takes the problem's N */
    setenv("OMPI_COMM_WORLD_SIZE", "3", 1); /* as under mpirun -np 3 */
    CU_ASSERT_EQUAL(rs_calibrate_finish(&in, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--ranks 4: mpirun started 3 processes; they must agree");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    unsetenv("OMPI_COMM_WORLD_SIZE");
    in.dtype = RS_DTYPE_FP16;
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_calibrate_finish(&in, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--dtype fp16: the cpu executor computes in fp32 (use --dtype fp32)");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
}

/* A body that returns *arg on rank 0 and counts the ranks that ran it. */
static int ranks_run;
static int body(const rs_exec_job_t *job, void *arg) {
    __atomic_add_fetch(&ranks_run, 1, __ATOMIC_SEQ_CST);
    return job->rank == 0 ? *(const int *)arg : 0;
}

RS_TEST(test_run_codes, "the job's exit code as the error's kind") {
    rs_calibrate_in_t in;
    rs_calibrate_defaults(&in);
    in.job.launch = "threads";
    rs_err_t err = {0};
    static const struct {
        int status, rc;
        rs_errc_t code;
    } cases[] = {{RS_EXIT_OK, 0, RS_ERR_RUNTIME}, {RS_EXIT_USAGE, -1, RS_ERR_BAD_INPUT}, {RS_EXIT_FAIL, -1, RS_ERR_RUNTIME}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int status = cases[i].status;
        ranks_run = 0;
        snprintf(err.msg, sizeof err.msg, "stale"), err.code = RS_ERR_TIMEOUT;
        CU_ASSERT_EQUAL(rs_measure_run(in.backend, &in.job, body, &status, &err), cases[i].rc);
        CU_ASSERT_EQUAL(ranks_run, 2);
        CU_ASSERT_STRING_EQUAL(err.msg, ""); /* the ranks print their errors */
        CU_ASSERT_EQUAL(err.code, cases[i].code);
        if (cases[i].rc) CU_ASSERT_EQUAL(rs_err_exit_code(&err), cases[i].status);
    }
}

RS_TEST_PROGRAM("calibrate")
