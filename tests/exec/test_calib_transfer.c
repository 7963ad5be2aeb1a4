/* test_calib_transfer.c - the transport side of a calibration (exec/calib_transfer.c), CPU backend on
 * the local transport: the flows a ring step of each pass posts, the overlap samples of a block step
 * with them in flight, the exchanges fresh and rotating, the medians and values over ranks. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "calib_transfer.h"
#include "exec_fixtures.h"
#include "test_main.h"

/* The forward's computing step moves its K,V block; the backward's (N > 2) the K,V block and the
 * dK,dV partial; a ring of one rank moves nothing. */
RS_TEST(test_step_flows, "step_flows") {
    rs_problem_t p = rs_test_exec_problem(64, 1, RS_LAYOUT_ZIGZAG, true, RS_PASS_FORWARD, 1);
    rs_problem_t at = p;
    at.n_ranks = 4, at.causal = false, at.layout = RS_LAYOUT_CONTIGUOUS;
    at = rs_problem_with_block(&at, 32);
    rs_xfer_kind_t kind[RS_MAX_TRANSFERS];
    uint64_t bytes[RS_MAX_TRANSFERS];
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_calib_step_flows(&p, 32, 1, kind, bytes, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_calib_step_flows(&p, 32, 4, kind, bytes, &err), 1);
    CU_ASSERT(kind[0] == RS_XFER_KV && bytes[0] == rs_problem_kv_bytes(&at));
    p.pass = at.pass = RS_PASS_BACKWARD;
    CU_ASSERT_EQUAL_FATAL(rs_calib_step_flows(&p, 32, 4, kind, bytes, &err), 2);
    CU_ASSERT(kind[0] == RS_XFER_KV && bytes[0] == rs_problem_kv_bytes(&at));
    CU_ASSERT(kind[1] == RS_XFER_DKV && bytes[1] == rs_problem_dkv_bytes(&at));
    CU_ASSERT_EQUAL(rs_calib_step_flows(&p, 32, 2, kind, bytes, &err), 1);
}

/* Rank `rank` of a loopback of n ranks (the local transport) on the CPU compute. */
static rs_exec_job_t loopback_job(int64_t rank, int64_t n) {
    rs_err_t err = {0};
    void *ts = rs_local_loopback_create(rank, n, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    return (rs_exec_job_t){.cops = &rs_cpu_compute_ops, .tops = &rs_local_transport_ops, .ts = ts};
}

/* Rank 0 of a 2-rank loopback: reps samples appended, each time positive, what was posted (one K,V
 * flow of the block's bytes) and the CPU compute's polls of the step; on a ring of one nothing. */
RS_TEST(test_overlap_samples, "overlap_samples") {
    const rs_exec_job_t job = loopback_job(0, 2);
    rs_err_t err = {0};
    rs_problem_t p = rs_test_exec_problem(64, 2, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_FORWARD, 1);
    double e[8], ef[8], busy[8], alone[8], x[8], xr[8];
    size_t n = 1;
    rs_calib_flows_t fl;
    const rs_calib_overlap_req_t rq = {&p, 32, 3, 10.0};
    const rs_calib_overlap_samples_t out = {e, ef, busy, alone, x, xr, 8, &n, &fl};
    CU_ASSERT_EQUAL_FATAL(rs_calib_overlap_samples(&job, &rq, &out, &err), 0);
    CU_ASSERT_EQUAL(n, 4u);
    for (size_t i = 1; i < n; i++) CU_ASSERT(e[i] > 0 && ef[i] > 0 && busy[i] > 0 && alone[i] > 0 && x[i] > 0 && xr[i] > 0);
    rs_problem_t at = p;
    at.n_ranks = 2;
    at = rs_problem_with_block(&at, 32);
    CU_ASSERT_EQUAL(fl.n, 1);
    CU_ASSERT_EQUAL(fl.bytes, rs_problem_kv_bytes(&at));
    CU_ASSERT(fl.geom.chunk_cols > 0 && fl.polls > 0);
    CU_ASSERT_EQUAL(fl.poll_first, rs_poll_first_frac(RS_PASS_FORWARD));
    rs_local_transport_ops.destroy(job.ts);
    const rs_exec_job_t job1 = loopback_job(0, 1);
    n = 0;
    CU_ASSERT_EQUAL(rs_calib_overlap_samples(&job1, &rq, &out, &err), 0);
    CU_ASSERT(n == 0 && fl.n == 0 && fl.bytes == 0);
    rs_local_transport_ops.destroy(job1.ts);
}

/* The exchanges on a loopback: positive times; the fresh ones leave the rotating buffers alone, the
 * rotating ones swap them once per exchange: after the 3 + 30 of a message up to 1 MiB, swapped. */
RS_TEST(test_exchanges, "exchanges") {
    const rs_exec_job_t job = loopback_job(1, 2);
    rs_err_t err = {0};
    rs_problem_t p = rs_test_exec_problem(64, 2, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_FORWARD, 1);
    const rs_calib_point_t pt = {&p, 16, &rs_cpu_compute_ops, 0, 0, 0};
    rs_calib_exchanges_t x;
    CU_ASSERT_EQUAL_FATAL(rs_calib_exchanges_open(&x, &job, &pt, 4096, 10.0, &err), 0);
    void *b3 = x.buf[3], *b4 = x.buf[4];
    double t = 0;
    CU_ASSERT_EQUAL(rs_calib_time_exchange(&x, 4096, false, &t, &err), 0);
    CU_ASSERT(t > 0 && isfinite(t));
    CU_ASSERT(x.buf[3] == b3 && x.buf[4] == b4); /* fresh: nothing rotates */
    CU_ASSERT_EQUAL(rs_calib_time_exchange(&x, 4096, true, &t, &err), 0);
    CU_ASSERT(t > 0 && isfinite(t));
    CU_ASSERT(x.buf[3] == b4 && x.buf[4] == b3); /* 33 exchanges: swapped */
    rs_calib_exchanges_close(&x);
    for (int k = 0; k < 5; k++) CU_ASSERT_PTR_NULL(x.buf[k]);
    rs_local_transport_ops.destroy(job.ts);
}

/* Three ranks with samples (r + 1) {1, 10, 5}: each rank's median is 5 (r + 1); rank 0 gathers
 * 5, 10, 15 and their median 10, the others keep their own. */
typedef struct {
    rs_local_world_t *w;
    int64_t rank;
    int rc;
    double med, all[3];
} ranks_t;

static void *rank_main(void *arg) {
    ranks_t *a = arg;
    const rs_exec_job_t job = {.cops = &rs_cpu_compute_ops, .tops = &rs_local_transport_ops, .ts = rs_local_world_rank(a->w, a->rank)};
    const double r1 = (double)(a->rank + 1);
    double s[3] = {r1, 10 * r1, 5 * r1}, s2[3] = {r1, 10 * r1, 5 * r1};
    rs_err_t err = {0};
    a->rc = rs_calib_rank_median(&job, s, 3, 5.0, &a->med, &err) |
            rs_calib_rank_values(&job, s2, 3, 5.0, a->rank == 0 ? a->all : NULL, &err);
    return NULL;
}

RS_TEST(test_rank_median, "rank_median_and_values") {
    rs_err_t err = {0};
    rs_local_world_t *w = rs_local_world_create(3, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    ranks_t a[3];
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        a[i] = (ranks_t){.w = w, .rank = i};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, rank_main, &a[i]), 0);
    }
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 3; i++) CU_ASSERT_EQUAL(a[i].rc, 0);
    CU_ASSERT_EQUAL(a[0].med, 10.0);
    CU_ASSERT_EQUAL(a[1].med, 10.0);
    CU_ASSERT_EQUAL(a[2].med, 15.0);
    CU_ASSERT(a[0].all[0] == 5.0 && a[0].all[1] == 10.0 && a[0].all[2] == 15.0);
    rs_local_world_free(w);
}

RS_TEST_PROGRAM("calib_transfer")
