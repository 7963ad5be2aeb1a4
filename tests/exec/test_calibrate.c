/* test_calibrate.c - the calibration run (exec/calibrate.c), CPU backend on one device: a 2-rank
 * loopback measures the kernel, its transfers to itself (each fresh exchange sending what its priming
 * one received, into a buffer the peer never read) and the overlap; a ring of one measures the kernel
 * alone; the default options. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calibrate.h"
#include "exec_fixtures.h"
#include "test_main.h"

RS_TEST(test_opts_default, "opts_default") {
    rs_calib_opts_t o;
    memset(&o, 0x5a, sizeof o);
    rs_calib_opts_default(&o);
    CU_ASSERT_EQUAL_FATAL(o.n_blocks, 8);
    for (int i = 0; i < 8; i++) CU_ASSERT_EQUAL(o.blocks[i], (int64_t)16 << i); /* 16 .. 2048 */
    CU_ASSERT(o.n_sizes == 0 && o.min_time_s == 0.05 && o.min_reps == 3 && o.timeout_s == 60 && !o.polled);
}

/* The calibration's fresh transfers (calib_transfer.c fresh_exchange, RS_CALIB_TAG_PRIME): every
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
            } else if (rs_test_sent_last[rs_test_sent_slot(reqs[i].buf)]) {
                cal_fresh_bad++; /* received into a buffer the peer has read */
            }
        }
        cal_fresh_bad += sends == 0 || primed != sends;
    }
    cal_n_prime = 0;
    if (prime)
        for (int i = 0; i < n && i < RS_XFER_MAX_REQS; i++) cal_prime[cal_n_prime++] = reqs[i];
    rs_test_sent_note(n, reqs);
    return rs_local_transport_ops.post(st, n, reqs, err);
}

/* Calibration on one device: rank 0 of a 2-rank loopback measures the kernel, the transfer to
 * itself and the overlap with no second rank (its collectives involve itself only). */
RS_TEST(test_calibrate_loopback, "calibrate_loopback") {
    rs_err_t err = {0};
    void *ts = rs_local_loopback_create(0, 2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    rs_problem_t p = rs_test_exec_problem(96, 2, RS_LAYOUT_CONTIGUOUS, true, RS_PASS_FORWARD, 1);
    p.tile_q = 8, p.tile_k = 8;
    rs_calib_opts_t o;
    rs_calib_opts_default(&o);
    o.n_blocks = 2, o.blocks[0] = 64, o.blocks[1] = 128, o.min_time_s = 0.002, o.min_reps = 2;
    rs_calib_t c;
    rs_transport_ops_t tops = rs_local_transport_ops;
    rs_compute_ops_t cops = rs_cpu_compute_ops;
    tops.post = cal_post, cops.buf_free = rs_test_sent_buf_free;
    rs_test_sent_reset(), cal_n_prime = cal_fresh = cal_fresh_bad = 0;
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

/* A ring of one rank: the kernel alone (no transport, no overlap: L 0, W 0, eta and sigma 1), the
 * efficiency curve over the blocks with 1 at the fastest, the memcpy bandwidth. */
RS_TEST(test_calibrate_one_rank, "calibrate_one_rank") {
    rs_err_t err = {0};
    void *ts = rs_local_loopback_create(0, 1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    rs_problem_t p = rs_test_exec_problem(64, 1, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_BACKWARD, 1);
    rs_calib_opts_t o;
    rs_calib_opts_default(&o);
    o.n_blocks = 3, o.blocks[0] = 16, o.blocks[1] = 32, o.blocks[2] = 64, o.min_time_s = 0.002, o.min_reps = 2;
    const rs_exec_job_t job = {.cops = &rs_cpu_compute_ops, .tops = &rs_local_transport_ops, .ts = ts};
    rs_calib_t c;
    CU_ASSERT_EQUAL_FATAL(rs_calibrate(&p, &job, &o, &c, &err), 0);
    CU_ASSERT(c.n_sizes == 0 && c.n_ov == 0 && c.latency_s == 0 && c.bw_bytes_per_s == 0 && c.eta == 1 && c.sigma == 1);
    CU_ASSERT_EQUAL_FATAL(c.n_blocks, 3);
    CU_ASSERT_EQUAL_FATAL(c.model.n_eff, 3);
    double top = 0;
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(c.blocks[i], o.blocks[i]);
        CU_ASSERT(c.t_block_s[i] > 0);
        RS_ASSERT_REL(c.flops_eff[i], (double)(c.blocks[i] * c.blocks[i]) * 10 * 16 * 2 / c.t_block_s[i], 1e-12);
        RS_ASSERT_REL(c.model.eff[i].efficiency, c.flops_eff[i] / c.flops_peak, 1e-15);
        top = fmax(top, c.model.eff[i].efficiency);
    }
    CU_ASSERT_EQUAL(top, 1.0);
    CU_ASSERT(c.mem_bw_bytes_per_s > 0);
    rs_local_transport_ops.destroy(ts);
}

RS_TEST_PROGRAM("calibrate")
