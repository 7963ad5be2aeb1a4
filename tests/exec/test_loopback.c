/* test_loopback.c - one rank of a ring alone on one device (exec.h "loopback"), on the CPU backend:
 * the local loopback transport, rs_exec_run in loopback mode and rs_exec_run_loopback (every rank in
 * turn). The GPU loopbacks (NCCL to itself, device copies) are tested by test_gpu on a GPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "exec.h"
#include "test_main.h"

static rs_problem_t small_problem(int64_t n, rs_layout_t lay, rs_pass_t pass) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 48 * n, p.n_ranks = n, p.layout = lay, p.pass = pass, p.causal = true;
    p.q_heads = 2, p.kv_heads = 1, p.head_dim = 16, p.act_bytes = 4, p.tile_q = 8, p.tile_k = 8;
    return p;
}

/* The small problem's schedule on a ring of n (valid: failures are fatal), options for reps measured
 * runs and no warm-up. */
static rs_schedule_t *small_schedule(int64_t n, rs_layout_t lay, rs_pass_t pass, int reps, rs_exec_opts_t *o) {
    rs_problem_t p = small_problem(n, lay, pass);
    rs_exec_opts_default(o);
    o->reps = reps, o->warmup = 0, o->timeout_s = 10;
    return rs_schedule_create(&p, NULL);
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *make_local(void *arg, int64_t rank, rs_err_t *err) {
    const int64_t *n = arg;
    return rs_local_loopback_create(rank, *n, err);
}

/* Which buffers this rank last sent (a peer has read them) rather than wrote itself: the wrapped
 * transports below note every post, a clear or a receive into a buffer makes it the rank's again, a
 * wrapped buf_free forgets it (its address may come back). The loopback rank is one thread, so plain
 * statics suffice. */
enum { SENT_BUFS = 256 };
static const void *sent_buf[SENT_BUFS];
static bool sent_last[SENT_BUFS];
static void sent_reset(void) { memset(sent_buf, 0, sizeof sent_buf), memset(sent_last, 0, sizeof sent_last); }
static int sent_slot(const void *p) {
    for (int i = 0; i < SENT_BUFS; i++)
        if (sent_buf[i] == p) return i;
    for (int i = 0; i < SENT_BUFS; i++)
        if (!sent_buf[i]) return sent_buf[i] = p, sent_last[i] = false, i;
    CU_FAIL("more buffers than the test tracks");
    return 0;
}
static void sent_note(int n, const rs_xfer_req_t *reqs) {
    for (int i = 0; i < n; i++) sent_last[sent_slot(reqs[i].buf)] = reqs[i].dir == RS_XFER_SEND;
}
static void sent_buf_free(void *st, void *buf) {
    for (int i = 0; i < SENT_BUFS; i++)
        if (sent_buf[i] == buf) sent_buf[i] = NULL;
    rs_cpu_compute_ops.buf_free(st, buf);
}

/* Which buffer the backward clears: a wrapped compute backend sees every clear; one inside the
 * backward (between bwd_begin and bwd_end) must never hit a buffer this rank last sent: its peer has
 * just read it, and clearing it cost 10-30x a clear of the rank's own buffer on a 2-core EPYC
 * (docs/exec.md). That covers the partial sent at this step or the one before, and across passes the
 * buffer the pass before sent last (the executor clears every dK,dV buffer before the pass). */
static rs_transport_ops_t rec_tops;
static rs_compute_ops_t rec_cops;
static bool gz_in_pass;
static int zeroed, zeroed_sent;
static int rec_post(void *st, int n, const rs_xfer_req_t *reqs, rs_err_t *err) {
    sent_note(n, reqs);
    return rs_local_transport_ops.post(st, n, reqs, err);
}
static int rec_grad_zero(void *st, void *dst, rs_err_t *err) {
    const int i = sent_slot(dst);
    if (gz_in_pass) zeroed++, zeroed_sent += sent_last[i];
    sent_last[i] = false;
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

static void test_grad_zero_buffer(void) {
    rec_tops = rs_local_transport_ops, rec_tops.post = rec_post;
    rec_cops = rs_cpu_compute_ops, rec_cops.grad_zero = rec_grad_zero;
    rec_cops.bwd_begin = rec_bwd_begin, rec_cops.bwd_end = rec_bwd_end, rec_cops.buf_free = sent_buf_free;
    for (int64_t n = 2; n <= 4; n++) {
        rs_exec_opts_t o;
        rs_schedule_t *s = small_schedule(n, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, 3, &o);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        rs_err_t err = {0};
        rs_exec_result_t res;
        zeroed = zeroed_sent = 0, gz_in_pass = false;
        sent_reset();
        int rc = rs_exec_run_loopback(s, &(rs_exec_loopback_t){&rec_cops, &rec_tops, make_local, &n, NULL, 0}, &o, NULL, &res, &err);
        if (rc) fprintf(stderr, "  %s\n", err.msg);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(zeroed >= 3 * (int)(n * n)); /* every computing step of every rank, three reps */
        CU_ASSERT_EQUAL(zeroed_sent, 0);
        rs_schedule_free(s);
    }
}

/* The loopback state reports the emulated rank and N; a step's receive is a copy of its own send. */
static void test_local_loopback_transport(void) {
    rs_err_t err = {0};
    void *ts = rs_local_loopback_create(2, 4, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    const rs_transport_ops_t *t = &rs_local_transport_ops;
    CU_ASSERT_EQUAL(t->rank(ts), 2);
    CU_ASSERT_EQUAL(t->size(ts), 4);
    CU_ASSERT_TRUE(t->loopback(ts));
    char a[64], b[64] = {0}, c[16], d[16] = {0};
    for (int i = 0; i < 64; i++) a[i] = (char)(3 * i + 1);
    memset(c, 7, sizeof c);
    rs_xfer_req_t reqs[4] = {{RS_XFER_SEND, 3, a, 64, 0}, {RS_XFER_SEND, 3, c, 16, 1},
                             {RS_XFER_RECV, 1, b, 64, 0}, {RS_XFER_RECV, 1, d, 16, 1}};
    CU_ASSERT_EQUAL(t->post(ts, 4, reqs, &err), 0);
    rs_xfer_time_t times[4];
    CU_ASSERT_EQUAL_FATAL(t->wait(ts, 5.0, times, &err), 0);
    CU_ASSERT_EQUAL(memcmp(a, b, 64), 0);
    CU_ASSERT_EQUAL(memcmp(c, d, 16), 0);
    for (int i = 0; i < 4; i++) CU_ASSERT(times[i].done_s >= times[i].post_s);
    CU_ASSERT_EQUAL(t->barrier(ts, 1.0, &err), 0); /* a world of one */
    double x = 1.5, y = 0;
    CU_ASSERT_EQUAL(t->gather(ts, &x, sizeof x, &y, 1.0, &err), 0);
    CU_ASSERT_EQUAL(y, 1.5);
    CU_ASSERT_PTR_NULL(t->inject_stall); /* the CPU transport cannot stall: the executor says so */
    t->destroy(ts);
    CU_ASSERT_PTR_NULL(rs_local_loopback_create(4, 4, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rank 4 of 4"));
}

/* Every rank in turn: one trace with every (rank, step) event of a ring, peers and sizes from the
 * schedule, each rank's compute events carrying the schedule's executed FLOPs. */
static void run_all_ranks(rs_layout_t lay, rs_pass_t pass) {
    int64_t n = 3;
    rs_exec_opts_t o;
    rs_schedule_t *s = small_schedule(n, lay, pass, 2, &o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_err_t err = {0};
    rs_trace_t *tr = rs_trace_create("exec-cpu");
    rs_exec_result_t res;
    int rc = rs_exec_run_loopback(s, &(rs_exec_loopback_t){&rs_cpu_compute_ops, &rs_local_transport_ops, make_local, &n, NULL, 0}, &o, tr, &res, &err);
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    const int64_t steps = rs_schedule_n_steps(s);
    double latest = 0;
    for (int64_t r = 0; r < n; r++)
        for (int64_t k = 0; k < steps; k++) {
            rs_step_t st;
            rs_schedule_step(s, r, k, &st);
            long ic = rs_trace_find(tr, (int32_t)r, (int32_t)k, pass, RS_EV_COMPUTE);
            long ir = rs_trace_find(tr, (int32_t)r, (int32_t)k, pass, RS_EV_RECV);
            long is = rs_trace_find(tr, (int32_t)r, (int32_t)k, pass, RS_EV_STEP);
            CU_ASSERT_EQUAL(ic >= 0, st.has_compute);
            CU_ASSERT_EQUAL(ir >= 0, st.n_recv > 0);
            CU_ASSERT_FATAL(is >= 0);
            const rs_event_t *ev = rs_trace_events(tr);
            if (ic >= 0) CU_ASSERT_EQUAL(ev[ic].flops, (double)st.flops_exec);
            if (ir >= 0) {
                CU_ASSERT_EQUAL(ev[ir].peer, st.recv_peer);
                CU_ASSERT_EQUAL(ev[ir].bytes, (double)st.recv_bytes);
            }
            latest = fmax(latest, ev[is].end_s);
        }
    size_t expect = 0;
    for (int64_t r = 0; r < n; r++)
        for (int64_t k = 0; k < steps; k++) {
            rs_step_t st;
            rs_schedule_step(s, r, k, &st);
            expect += 1 + st.has_compute + (st.n_send > 0) + (st.n_recv > 0);
        }
    CU_ASSERT_EQUAL(rs_trace_count(tr), expect);
    CU_ASSERT_EQUAL(res.makespan_s, latest);
    /* the result's medians are the medians of the merged events */
    double v[512];
    size_t m = 0;
    for (size_t i = 0; i < rs_trace_count(tr) && m < 512; i++)
        if (rs_trace_events(tr)[i].kind == RS_EV_COMPUTE) v[m++] = rs_trace_events(tr)[i].end_s - rs_trace_events(tr)[i].start_s;
    qsort(v, m, sizeof *v, cmp_d);
    CU_ASSERT(m > 0);
    CU_ASSERT_EQUAL(res.t_comp_median_s, m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]));
    CU_ASSERT_PTR_NOT_NULL(rs_trace_get_meta(tr, "loopback"));
    rs_trace_free(tr);
    rs_schedule_free(s);
}
static void test_run_loopback_forward(void) {
    for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++) run_all_ranks((rs_layout_t)lay, RS_PASS_FORWARD);
}
static void test_run_loopback_backward(void) {
    for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++) run_all_ranks((rs_layout_t)lay, RS_PASS_BACKWARD);
}

/* A subset of ranks; refusals: --check, a rank out of range, a stall on a transport without one. */
static void test_run_loopback_refusals(void) {
    int64_t n = 4;
    const int64_t some[2] = {3, 1};
    rs_exec_opts_t o;
    rs_schedule_t *s = small_schedule(n, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, 1, &o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_trace_t *tr = rs_trace_create("exec-cpu");
    rs_exec_result_t res;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &(rs_exec_loopback_t){&rs_cpu_compute_ops, &rs_local_transport_ops, make_local, &n, some, 2}, &o, tr, &res, &err), 0);
    CU_ASSERT(rs_trace_find(tr, 3, 0, RS_PASS_FORWARD, RS_EV_STEP) >= 0);
    CU_ASSERT(rs_trace_find(tr, 1, 0, RS_PASS_FORWARD, RS_EV_STEP) >= 0);
    CU_ASSERT(rs_trace_find(tr, 0, 0, RS_PASS_FORWARD, RS_EV_STEP) < 0);
    const int64_t bad[1] = {4};
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &(rs_exec_loopback_t){&rs_cpu_compute_ops, &rs_local_transport_ops, make_local, &n, bad, 1}, &o, NULL, &res, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rank 4"));
    o.check = true;
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &(rs_exec_loopback_t){&rs_cpu_compute_ops, &rs_local_transport_ops, make_local, &n, NULL, 0}, &o, NULL, &res, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--check"));
    o.check = false, o.stall_rank = 2, o.stall_step = 1;
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &(rs_exec_loopback_t){&rs_cpu_compute_ops, &rs_local_transport_ops, make_local, &n, NULL, 0}, &o, NULL, &res, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot inject a stall"));
    o.stall_step = 3; /* the last forward step sends nothing */
    CU_ASSERT_EQUAL(rs_exec_run_loopback(s, &(rs_exec_loopback_t){&rs_cpu_compute_ops, &rs_local_transport_ops, make_local, &n, NULL, 0}, &o, NULL, &res, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--stall at forward step 3: that step moves nothing"));
    rs_trace_free(tr);
    rs_schedule_free(s);
}

/* The calibration's fresh transfers (calibrate.c fresh_exchange, RS_CALIB_TAG_PRIME): every
 * exchange right after a priming one must send exactly what the priming one received (a block its
 * sender just wrote) and receive into buffers the rank did not last send (the peer never read them). */
static rs_xfer_req_t cal_prime[RS_XFER_MAX_REQS];
static int cal_n_prime, cal_fresh, cal_fresh_bad;
static int cal_post(void *st, int n, const rs_xfer_req_t *reqs, rs_err_t *err) {
    const bool prime = n > 0 && reqs[0].tag == RS_CALIB_TAG_PRIME;
    if (!prime && cal_n_prime > 0) { /* the timed exchange of a fresh transfer */
        cal_fresh++;
        int sends = 0, primed = 0;
        for (int i = 0; i < n; i++) {
            if (reqs[i].dir == RS_XFER_SEND) {
                sends++;
                for (int j = 0; j < cal_n_prime; j++) primed += cal_prime[j].dir == RS_XFER_RECV && cal_prime[j].buf == reqs[i].buf;
            } else if (sent_last[sent_slot(reqs[i].buf)]) {
                cal_fresh_bad++; /* received into a buffer the peer has read */
            }
        }
        cal_fresh_bad += sends == 0 || primed != sends;
    }
    cal_n_prime = 0;
    if (prime)
        for (int i = 0; i < n && i < RS_XFER_MAX_REQS; i++) cal_prime[cal_n_prime++] = reqs[i];
    sent_note(n, reqs);
    return rs_local_transport_ops.post(st, n, reqs, err);
}

/* Calibration on one device: rank 0 of a 2-rank loopback measures the kernel, the transfer to
 * itself and the overlap with no second rank (its collectives involve itself only). */
static void test_calibrate_loopback(void) {
    rs_err_t err = {0};
    void *ts = rs_local_loopback_create(0, 2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    rs_problem_t p = small_problem(2, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
    rs_calib_opts_t o;
    rs_calib_opts_default(&o);
    o.n_blocks = 2, o.blocks[0] = 64, o.blocks[1] = 128, o.min_time_s = 0.002, o.min_reps = 2;
    rs_calib_t c;
    rs_transport_ops_t tops = rs_local_transport_ops;
    rs_compute_ops_t cops = rs_cpu_compute_ops;
    tops.post = cal_post, cops.buf_free = sent_buf_free;
    sent_reset(), cal_n_prime = cal_fresh = cal_fresh_bad = 0;
    const rs_exec_job_t job = {.cops = &cops, .tops = &tops, .ts = ts, .local_rank = 0};
    int rc = rs_calibrate(&p, &job, &o, &c, &err);
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    /* every transport size (3 warm-up + reps exchanges each) and every overlap sample */
    CU_ASSERT(cal_fresh >= 4 * c.n_sizes + c.n_ov);
    CU_ASSERT_EQUAL(cal_fresh_bad, 0);
    CU_ASSERT_EQUAL(c.n_blocks, 2);
    for (int i = 0; i < c.n_blocks; i++) CU_ASSERT(c.flops_eff[i] > 0 && isfinite(c.flops_eff[i]));
    CU_ASSERT(c.n_sizes > 0);
    for (int i = 0; i < c.n_sizes; i++) CU_ASSERT(c.t_msg_s[i] > 0 && isfinite(c.t_msg_s[i]));
    CU_ASSERT(c.bw_bytes_per_s > 0 && isfinite(c.bw_bytes_per_s));
    CU_ASSERT(c.n_ov > 0);
    for (int i = 0; i < c.n_ov; i++) CU_ASSERT(c.ov[i].t_end_fresh_s > 0 && isfinite(c.ov[i].t_end_fresh_s)); /* the fresh step ran */
    rs_local_transport_ops.destroy(ts);
}

int main(void) {
    static const rs_test_case_t cases[] = {{"local_loopback_transport", test_local_loopback_transport},
                                           {"run_loopback_forward", test_run_loopback_forward},
                                           {"run_loopback_backward", test_run_loopback_backward},
                                           {"grad_zero_clears_no_sent_partial", test_grad_zero_buffer},
                                           {"run_loopback_refusals", test_run_loopback_refusals},
                                           {"calibrate_loopback", test_calibrate_loopback},
                                           {NULL, NULL}};
    return rs_test_main1("exec_loopback", cases);
}
