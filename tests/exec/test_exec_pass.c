/* test_exec_pass.c - the pass loops (exec/exec_pass.c), on the CPU backend: the inputs staged before
 * a pass (outside its time), the backward's clears never hitting a buffer a peer has just read, the
 * fault and stall injections, and a failing backend's error wrapped with the rank and step and its
 * kind kept. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec.h"
#include "exec_fixtures.h"
#include "test_main.h"

/* The pass starts with its inputs resident: the executor stages K,V (pass-q: Q) before the barrier
 * that starts a pass, so a slow upload (here 40 ms per call) is not in the measured makespan, which
 * the model's step 0 (starting at 0) could not predict. */
static int (*real_upload)(void *, rs_tensor_t, const float *, void *, rs_err_t *);
static int slow_upload(void *st, rs_tensor_t which, const float *host, void *buf, rs_err_t *err) {
    const struct timespec ts = {0, 40 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return real_upload(st, which, host, buf, err);
}

RS_TEST(test_inputs_staged, "inputs_staged_outside_the_pass") {
    rs_compute_ops_t slow = rs_cpu_compute_ops;
    real_upload = slow.upload, slow.upload = slow_upload;
    for (int pass = 0; pass < 2; pass++) {
        rs_problem_t p = rs_test_exec_problem(32, 2, RS_LAYOUT_ZIGZAG, true, pass ? RS_PASS_BACKWARD : RS_PASS_FORWARD, 2);
        rs_err_t err = {0};
        rs_schedule_t *s = rs_schedule_create(&p, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        rs_exec_opts_t o;
        rs_exec_opts_default(&o);
        o.warmup = 0, o.reps = 1, o.check = true;
        rs_exec_result_t res;
        const double t0 = rs_now_s();
        int rc = rs_exec_run_threads(s, &(rs_exec_threads_t){&slow, NULL, NULL}, &o, NULL, &res, &err);
        const double wall_s = rs_now_s() - t0;
        if (rc) fprintf(stderr, "  %s\n", err.msg);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(res.check_ok); /* the staged inputs are the ones computed on */
        CU_ASSERT(wall_s >= 0.04); /* the uploads ran ... */
        CU_ASSERT(res.makespan_s > 0 && res.makespan_s < 0.02); /* ... outside the measured pass */
        rs_schedule_free(s);
    }
}

/* Which buffer the backward clears: a wrapped compute backend sees every clear; one inside the
 * backward (between bwd_begin and bwd_end) must never hit a buffer this rank last sent: its peer has
 * just read it, and clearing it costs several times a clear of the rank's own buffer (docs/exec.md).
 * That covers the partial sent at this step or the one before, and across passes the buffer the pass
 * before sent last (the executor clears every dK,dV buffer before the pass). */
static rs_transport_ops_t rec_tops;
static rs_compute_ops_t rec_cops;
static bool gz_in_pass;
static int zeroed, zeroed_sent;
static int rec_post(void *st, int n, const rs_xfer_req_t *reqs, rs_err_t *err) {
    rs_test_sent_note(n, reqs);
    return rs_local_transport_ops.post(st, n, reqs, err);
}
static int rec_grad_zero(void *st, void *dst, rs_err_t *err) {
    const int i = rs_test_sent_slot(dst);
    if (gz_in_pass) zeroed++, zeroed_sent += rs_test_sent_last[i];
    rs_test_sent_last[i] = false;
    return rs_cpu_compute_ops.grad_zero(st, dst, err);
}
static int rec_bwd_begin(void *st, rs_err_t *err) {
    gz_in_pass = true;
    return rs_cpu_compute_ops.bwd_begin(st, err);
}
static int rec_bwd_end(void *st, rs_err_t *err) {
    gz_in_pass = false;
    return rs_cpu_compute_ops.bwd_end(st, err);
}

RS_TEST(test_grad_zero_buffer, "grad_zero_clears_no_sent_partial") {
    rec_tops = rs_local_transport_ops, rec_tops.post = rec_post;
    rec_cops = rs_cpu_compute_ops, rec_cops.grad_zero = rec_grad_zero;
    rec_cops.bwd_begin = rec_bwd_begin, rec_cops.bwd_end = rec_bwd_end, rec_cops.buf_free = rs_test_sent_buf_free;
    for (int64_t n = 2; n <= 4; n++) {
        rs_exec_opts_t o;
        rs_schedule_t *s = rs_test_exec_schedule(n, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, 3, &o);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        rs_err_t err = {0};
        rs_exec_result_t res;
        zeroed = zeroed_sent = 0, gz_in_pass = false;
        rs_test_sent_reset();
        const rs_exec_loopback_t lb = {&rec_cops, &rec_tops, rs_test_local_loopback, &n, NULL, 0};
        int rc = rs_exec_run_loopback(s, &lb, &o, NULL, &res, &err);
        if (rc) fprintf(stderr, "  %s\n", err.msg);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(zeroed >= 3 * (int)(n * n)); /* every computing step of every rank, three reps */
        CU_ASSERT_EQUAL(zeroed_sent, 0);
        rs_schedule_free(s);
    }
}

/* The injections, on one rank of a loopback ring of 4: a fault stops the rank at that step of the
 * measured pass (res.faulted, fail_step); a stall needs a transport that can make one and a step
 * that moves something. */
RS_TEST(test_injections, "fault_and_stall_injections") {
    int64_t n = 4;
    rs_exec_opts_t o;
    rs_schedule_t *s = rs_test_exec_schedule(n, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, 1, &o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    const int64_t only[1] = {1};
    const rs_exec_loopback_t lb = {&rs_cpu_compute_ops, &rs_local_transport_ops, rs_test_local_loopback, &n, only, 1};
    rs_exec_result_t res;
    rs_err_t err = {0};
    o.fault_rank = 1, o.fault_step = 2;
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &lb, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "rank 1 stopped at forward step 2 (fault injection)");
    CU_ASSERT(res.faulted);
    CU_ASSERT_EQUAL(res.fail_step, 2);
    o.fault_rank = -1, o.stall_rank = 1, o.stall_step = 1;
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &lb, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "rank 1: the local transport cannot inject a stall");
    CU_ASSERT(!res.faulted);
    o.stall_step = 3; /* the last forward step sends nothing */
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &lb, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "rank 1: --stall at forward step 3: that step moves nothing (N = 4)");
    rs_schedule_free(s);
}

/* A backend that fails where the test asks: the K upload (staging), the step's wait, or the
 * backward's merge of an incoming partial, each with the kind of failure it says. */
static enum { FAIL_UPLOAD_K, FAIL_WAIT, FAIL_GRAD_ADD } fail_at;
static int fail_upload(void *st, rs_tensor_t which, const float *host, void *buf, rs_err_t *err) {
    if (fail_at == FAIL_UPLOAD_K && which == RS_TENSOR_K) return rs_errc(err, RS_ERR_ABORTED, "cpu backend: K refused");
    return rs_cpu_compute_ops.upload(st, which, host, buf, err);
}
static int fail_wait(void *st, double *t0, double *t1, rs_err_t *err) {
    if (fail_at == FAIL_WAIT && t0) return rs_errc(err, RS_ERR_TIMEOUT, "cpu backend: step lost");
    return rs_cpu_compute_ops.wait(st, t0, t1, err);
}
static int fail_grad_add(void *st, void *dst, const void *src, rs_err_t *err) {
    if (fail_at == FAIL_GRAD_ADD) return rs_errf(err, "cpu backend: no merge");
    return rs_cpu_compute_ops.grad_add(st, dst, src, err);
}

/* The pass names the rank (and the step) around the backend's message and keeps its kind. */
RS_TEST(test_errors_wrapped, "errors_wrapped_with_their_kind") {
    int64_t n = 3;
    rs_exec_opts_t o;
    rs_schedule_t *s = rs_test_exec_schedule(n, RS_LAYOUT_CONTIGUOUS, RS_PASS_BACKWARD, 1, &o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_compute_ops_t c = rs_cpu_compute_ops;
    c.upload = fail_upload, c.wait = fail_wait, c.grad_add = fail_grad_add;
    const int64_t only[1] = {2};
    const rs_exec_loopback_t lb = {&c, &rs_local_transport_ops, rs_test_local_loopback, &n, only, 1};
    rs_exec_result_t res;
    rs_err_t err = {0};
    fail_at = FAIL_UPLOAD_K;
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &lb, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "rank 2: cpu backend: K refused");
    CU_ASSERT_EQUAL(err.code, RS_ERR_ABORTED);
    fail_at = FAIL_WAIT; /* the untimed forward's step 0 */
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &lb, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "rank 2, forward step 0: cpu backend: step lost");
    CU_ASSERT_EQUAL(err.code, RS_ERR_TIMEOUT);
    CU_ASSERT_EQUAL(res.fail_step, 0);
    fail_at = FAIL_GRAD_ADD; /* the first step that receives a dK,dV partial: backward step 1 */
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &lb, &o, NULL, &res, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "rank 2, backward step 1: cpu backend: no merge");
    CU_ASSERT_EQUAL(err.code, RS_ERR_RUNTIME);
    rs_schedule_free(s);
}

RS_TEST_PROGRAM("exec_pass")
