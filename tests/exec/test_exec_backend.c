/* test_exec_backend.c - the executors behind the backend interface (exec/exec_backend.c), CPU
 * executor: what a job is checked for (messages and kinds), the can-run rule, SPMD jobs on threads and
 * on a loopback (each rank's view; rank 0's return is the job's), a launcher that is not there (exit
 * 2), the schedule run on a loopback job, and `ringsim exec` as a subprocess read back. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec_backend.h"
#include "exec_fixtures.h"
#include "test_main.h"

static int argc1 = 1;
static char *argv1_[] = {"test", NULL}, **argv1 = argv1_;

static rs_exec_spmd_t spmd(int64_t n, const char *launch, const char *loopback) {
    return (rs_exec_spmd_t){.subcommand = "test", .n_ranks = n, .launch = launch, .progress = RS_PROGRESS_NONE,
                            .loopback = loopback, .dtype = RS_DTYPE_FP32, .argc = &argc1, .argv = &argv1};
}

/* Each refusal names the option and the rule, as bad input. */
RS_TEST(test_spmd_check, "spmd_check") {
    const rs_exec_backend_t *be = &rs_cpu_exec_backend;
    rs_err_t err = {0};
    rs_exec_spmd_t o = spmd(2, "threads", NULL);
    CU_ASSERT_EQUAL(rs_exec_spmd_check(be, &o, 4, &err), 0);
    o.dtype = RS_DTYPE_BF16;
    CU_ASSERT_EQUAL(rs_exec_spmd_check(be, &o, 4, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--dtype bf16: the cpu executor computes in fp32 (use --dtype fp32)");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    o.dtype = RS_DTYPE_FP32;
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_exec_spmd_check(be, &o, 2, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--grad-bytes 2: dK,dV travel in fp32 here");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    o.loopback = "nccl";
    CU_ASSERT_EQUAL(rs_exec_spmd_check(be, &o, 4, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--loopback nccl: expected local with --backend cpu");
    o.loopback = "local", o.launch = "mpirun";
    CU_ASSERT_EQUAL(rs_exec_spmd_check(be, &o, 4, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--loopback local: one process plays every rank in turn (not under mpirun)");
    o.launch = NULL;
    CU_ASSERT_EQUAL(rs_exec_spmd_check(be, &o, 4, &err), 0);
}

RS_TEST(test_can_run, "can_run_and_estimate") {
    rs_problem_t p = rs_test_exec_problem(32, 2, RS_LAYOUT_ZIGZAG, true, RS_PASS_FORWARD, 1);
    rs_err_t why = {0};
    CU_ASSERT_EQUAL(rs_cpu_backend.can_run(&p, NULL, &why), 0);
    p.act_bytes = 2;
    CU_ASSERT_EQUAL(rs_cpu_backend.can_run(&p, NULL, &why), -1);
    CU_ASSERT_STRING_EQUAL(why.msg, "the cpu executor computes in fp32 (problem: 2-byte activations)");
    p.act_bytes = 4, p.grad_bytes = 2;
    CU_ASSERT_EQUAL(rs_cpu_backend.can_run(&p, NULL, &why), -1);
    CU_ASSERT_STRING_EQUAL(why.msg, "the cpu executor moves dK,dV in fp32 (problem: 2-byte gradients)");
    rs_estimate_t a, b;
    p.grad_bytes = 4;
    rs_cpu_backend.estimate(&p, NULL, 0, &a);
    rs_exec_estimate(&p, NULL, &b);
    CU_ASSERT(a.mem_bytes == b.mem_bytes && a.time_s == b.time_s && a.rank_steps == b.rank_steps);
}

/* What each rank's body saw. */
static rs_exec_job_t seen[4];
static int body_ret0;

static int record_body(const rs_exec_job_t *job, void *arg) {
    (void)arg;
    seen[job->rank] = *job;
    return job->rank == 0 ? body_ret0 : 0;
}

RS_TEST(test_spmd_threads, "spmd_threads") {
    memset(seen, 0, sizeof seen);
    body_ret0 = 0;
    const rs_exec_spmd_t o = spmd(3, "threads", NULL);
    CU_ASSERT_EQUAL(rs_exec_spmd(&rs_cpu_exec_backend, &o, record_body, NULL), 0);
    for (int64_t r = 0; r < 3; r++) {
        const rs_exec_job_t *j = &seen[r];
        CU_ASSERT(j->be == &rs_cpu_exec_backend && j->cops == &rs_cpu_compute_ops && j->tops == &rs_local_transport_ops);
        CU_ASSERT(j->rank == r && j->local_rank == r && j->n_ranks == 3 && j->n_procs == 3 && j->loopback == NULL);
        CU_ASSERT_STRING_EQUAL(j->launch, "threads");
    }
    body_ret0 = 5; /* rank 0's return is the job's exit code */
    CU_ASSERT_EQUAL(rs_exec_spmd(&rs_cpu_exec_backend, &o, record_body, NULL), 5);
}

/* A loopback job: one body, this device playing rank 0 of the 3-rank ring alone; the schedule run on
 * it covers every rank of the ring. */
static int loopback_body(const rs_exec_job_t *job, void *arg) {
    seen[0] = *job;
    rs_trace_t *t = arg;
    rs_problem_t p = rs_test_exec_problem(48, 3, RS_LAYOUT_ZIGZAG, true, RS_PASS_FORWARD, 1);
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    if (!s) return 1;
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    o.reps = 1, o.warmup = 0;
    rs_exec_result_t res;
    const int rc = rs_exec_job_run(job, s, &o, t, &res, &err);
    rs_schedule_free(s);
    return rc == 0 ? 0 : 1;
}

RS_TEST(test_spmd_loopback, "spmd_loopback_job_run") {
    rs_trace_t *t = rs_trace_create("exec-cpu");
    const rs_exec_spmd_t o = spmd(3, NULL, "local");
    CU_ASSERT_EQUAL(rs_exec_spmd(&rs_cpu_exec_backend, &o, loopback_body, t), 0);
    const rs_exec_job_t *j = &seen[0];
    CU_ASSERT(j->rank == 0 && j->n_ranks == 3 && j->n_procs == 1 && j->tops == &rs_local_transport_ops);
    CU_ASSERT_STRING_EQUAL(j->launch, "loopback");
    CU_ASSERT_STRING_EQUAL(j->loopback, "local");
    for (int32_t r = 0; r < 3; r++) CU_ASSERT(rs_trace_find(t, r, 0, RS_PASS_FORWARD, RS_EV_STEP) >= 0);
    CU_ASSERT_PTR_NOT_NULL(rs_trace_get_meta(t, "loopback"));
    rs_trace_free(t);
}

/* --launch mpirun with no mpirun on PATH: said on stderr, exit code 2 (bad input). */
RS_TEST(test_spmd_no_mpirun, "spmd_no_mpirun") {
    const char *p = getenv("PATH");
    char old[4096], errpath[] = "/tmp/rs_test_spmd_XXXXXX";
    snprintf(old, sizeof old, "%s", p ? p : "/usr/bin:/bin");
    const char *const launcher[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    for (int i = 0; i < 2; i++) unsetenv(launcher[i]);
    setenv("PATH", "/nonexistent", 1);
    const int fd = mkstemp(errpath), saved = dup(2);
    CU_ASSERT_FATAL(fd >= 0 && saved >= 0);
    fflush(stderr);
    dup2(fd, 2);
    const rs_exec_spmd_t o = spmd(2, "mpirun", NULL);
    const int rc = rs_exec_spmd(&rs_cpu_exec_backend, &o, record_body, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    setenv("PATH", old, 1);
    CU_ASSERT_EQUAL(rc, 2);
    char text[256] = "";
    const ssize_t n = pread(fd, text, sizeof text - 1, 0);
    close(fd), unlink(errpath);
    CU_ASSERT(n > 0);
    CU_ASSERT_STRING_EQUAL(text, "ringsim test: --launch mpirun: mpirun not found (use --launch threads)\n");
}

/* run() of the cpu executor: `ringsim exec` on threads as a subprocess, its trace read back - every
 * (rank, step) step event, the compute events' FLOPs summed, the problem in the header; a binary that
 * fails says how. */
RS_TEST(test_subprocess_run, "subprocess_run") {
    rs_problem_t p = rs_test_exec_problem(48, 2, RS_LAYOUT_ZIGZAG, true, RS_PASS_FORWARD, 1);
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    const rs_backend_opts_t bo = {.exec_bin = RS_BINARY_DIR "/bin/ringsim", .exec_launch = "threads", .timeout_s = 60};
    rs_trace_t *t = rs_trace_create("exec-cpu");
    rs_run_summary_t sum;
    const int rc = rs_cpu_backend.run(s, NULL, &bo, t, &sum, &err);
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    uint64_t flops = 0;
    for (int64_t r = 0; r < 2; r++)
        for (int64_t k = 0; k < rs_schedule_n_steps(s); k++) {
            rs_step_t st;
            rs_schedule_step(s, r, k, &st);
            flops += st.has_compute ? st.flops_exec : 0;
            CU_ASSERT(rs_trace_find(t, (int32_t)r, (int32_t)k, RS_PASS_FORWARD, RS_EV_STEP) >= 0);
        }
    CU_ASSERT_EQUAL(sum.flops_exec, flops);
    CU_ASSERT(sum.makespan_s > 0 && sum.wall_s > 0);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "layout"), "zigzag");
    rs_trace_free(t);
    const rs_backend_opts_t bad = {.exec_bin = "/bin/false", .exec_launch = "threads"};
    CU_ASSERT_EQUAL(rs_cpu_backend.run(s, NULL, &bad, NULL, &sum, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "exec failed (ringsim exec --launch=threads exit 1)");
    rs_schedule_free(s);
}

RS_TEST_PROGRAM("exec_backend")
