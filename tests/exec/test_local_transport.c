/* test_local_transport.c - the "local" transport (exec/local_transport.c): N ranks as threads of one
 * process - deliveries, the collectives, a wait that times out and one that another rank aborts (the
 * kinds the executor reads), the refusals; and the loopback state that plays one rank alone. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "exec.h"
#include "exec_fixtures.h"
#include "test_main.h"

/* The loopback state reports the emulated rank and N; a step's receive is a copy of its own send. */
RS_TEST(test_local_loopback_transport, "loopback_state") {
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

/* Two ranks exchange buffers (rank r sends 64 bytes of value r + 1 to 1 - r): each receive holds its
 * peer's bytes, every time is ordered; then gather and bcast of one double per rank. */
typedef struct {
    rs_local_world_t *w;
    int64_t rank;
    int rc;
    char got[64];
    double gathered[2], bcast;
} pair_t;

static void *pair_main(void *arg) {
    pair_t *a = arg;
    void *ts = rs_local_world_rank(a->w, a->rank);
    const rs_transport_ops_t *t = &rs_local_transport_ops;
    rs_err_t err = {0};
    char mine[64];
    memset(mine, (int)a->rank + 1, sizeof mine);
    const rs_xfer_req_t reqs[2] = {{RS_XFER_SEND, 1 - a->rank, mine, 64, 0}, {RS_XFER_RECV, 1 - a->rank, a->got, 64, 0}};
    rs_xfer_time_t times[2];
    a->rc = t->post(ts, 2, reqs, &err) | t->wait(ts, 5.0, times, &err);
    for (int i = 0; i < 2; i++) a->rc |= !(times[i].done_s >= times[i].post_s);
    const double v = 10.0 * (double)(a->rank + 1);
    a->rc |= t->gather(ts, &v, sizeof v, a->rank == 0 ? a->gathered : NULL, 5.0, &err);
    a->bcast = a->rank == 0 ? 7.5 : -1;
    a->rc |= t->bcast(ts, &a->bcast, sizeof a->bcast, 5.0, &err);
    return NULL;
}

RS_TEST(test_pair, "pair_deliveries_and_collectives") {
    rs_err_t err = {0};
    rs_local_world_t *w = rs_local_world_create(2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(rs_local_transport_ops.rank(rs_local_world_rank(w, 1)), 1);
    CU_ASSERT_EQUAL(rs_local_transport_ops.size(rs_local_world_rank(w, 1)), 2);
    CU_ASSERT_FALSE(rs_local_transport_ops.loopback(rs_local_world_rank(w, 1)));
    pair_t a[2] = {{.w = w, .rank = 0}, {.w = w, .rank = 1}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, pair_main, &a[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    CU_ASSERT(a[0].rc == 0 && a[1].rc == 0);
    for (int i = 0; i < 64; i++) CU_ASSERT(a[0].got[i] == 2 && a[1].got[i] == 1);
    CU_ASSERT(a[0].gathered[0] == 10.0 && a[0].gathered[1] == 20.0);
    CU_ASSERT(a[0].bcast == 7.5 && a[1].bcast == 7.5);
    rs_local_world_free(w);
}

/* A receive nobody sends, a barrier the other rank never enters: each gives up after the timeout
 * saying what it waited for, as a timeout. */
RS_TEST(test_timeouts, "timeouts") {
    rs_err_t err = {0};
    rs_local_world_t *w = rs_local_world_create(2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    void *ts = rs_local_world_rank(w, 0);
    char buf[8];
    const rs_xfer_req_t rq = {RS_XFER_RECV, 1, buf, 8, 0};
    rs_test_recv_times_out(&rs_local_transport_ops, ts, &rq, 0.2, "timeout after 0.2 s waiting for receive from rank 1");
    rs_xfer_time_t tm;
    const rs_xfer_req_t sq = {RS_XFER_SEND, 1, buf, 8, 0};
    rs_local_world_t *w2 = rs_local_world_create(2, &err);
    void *ts2 = rs_local_world_rank(w2, 0);
    CU_ASSERT_EQUAL(rs_local_transport_ops.post(ts2, 1, &sq, &err), 0);
    CU_ASSERT_EQUAL(rs_local_transport_ops.wait(ts2, 0.1, &tm, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "timeout after 0.1 s waiting for send to rank 1");
    CU_ASSERT_EQUAL(rs_local_transport_ops.barrier(ts2, 0.1, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "timeout after 0.1 s in a barrier (1 of 2 ranks arrived)");
    CU_ASSERT_EQUAL(err.code, RS_ERR_TIMEOUT);
    rs_local_world_free(w), rs_local_world_free(w2);
}

/* Rank 1 aborts while rank 0 waits (for a receive, then in a barrier): rank 0's calls return at once
 * with "aborted by another rank", an abort. */
typedef struct {
    rs_local_world_t *w;
    int rc_wait, rc_barrier;
    rs_err_t e_wait, e_barrier;
} aborted_t;

static void *waiter(void *arg) {
    aborted_t *a = arg;
    void *ts = rs_local_world_rank(a->w, 0);
    char buf[8];
    const rs_xfer_req_t rq = {RS_XFER_RECV, 1, buf, 8, 0};
    rs_xfer_time_t tm;
    rs_local_transport_ops.post(ts, 1, &rq, &a->e_wait);
    a->rc_wait = rs_local_transport_ops.wait(ts, 30.0, &tm, &a->e_wait);
    a->rc_barrier = rs_local_transport_ops.barrier(ts, 30.0, &a->e_barrier);
    return NULL;
}

RS_TEST(test_abort, "abort") {
    rs_err_t err = {0};
    aborted_t a = {.w = rs_local_world_create(2, &err)};
    CU_ASSERT_PTR_NOT_NULL_FATAL(a.w);
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, waiter, &a), 0);
    const double t0 = rs_now_s();
    rs_local_transport_ops.abort(rs_local_world_rank(a.w, 1), 1);
    pthread_join(th, NULL);
    CU_ASSERT(rs_now_s() - t0 < 10);
    CU_ASSERT(a.rc_wait == -1 && a.rc_barrier == -1);
    CU_ASSERT_STRING_EQUAL(a.e_wait.msg, "aborted by another rank");
    CU_ASSERT_EQUAL(a.e_wait.code, RS_ERR_ABORTED);
    CU_ASSERT_STRING_EQUAL(a.e_barrier.msg, "aborted by another rank");
    CU_ASSERT_EQUAL(a.e_barrier.code, RS_ERR_ABORTED);
    rs_local_world_free(a.w);
}

/* Refused: more transfers in one post than a post holds; a message of another size than the
 * receive's (said by the receiver, a runtime failure). */
RS_TEST(test_refusals, "refusals") {
    rs_err_t err = {0};
    void *ts = rs_local_loopback_create(0, 2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    char a[16] = {0}, b[16];
    rs_xfer_req_t many[RS_XFER_MAX_REQS + 1];
    for (int i = 0; i <= RS_XFER_MAX_REQS; i++) many[i] = (rs_xfer_req_t){RS_XFER_SEND, 1, a, 16, i};
    CU_ASSERT_EQUAL(rs_local_transport_ops.post(ts, RS_XFER_MAX_REQS + 1, many, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "local transport: 9 transfers in one post (max 8)");
    const rs_xfer_req_t odd[2] = {{RS_XFER_SEND, 1, a, 16, 0}, {RS_XFER_RECV, 1, b, 8, 0}};
    CU_ASSERT_EQUAL(rs_local_transport_ops.post(ts, 2, odd, &err), 0);
    rs_xfer_time_t tm[2];
    CU_ASSERT_EQUAL(rs_local_transport_ops.wait(ts, 1.0, tm, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "local transport: rank 0 expected 8 bytes from rank 0, got 16");
    CU_ASSERT_EQUAL(err.code, RS_ERR_RUNTIME);
    rs_local_transport_ops.destroy(ts);
}

RS_TEST_PROGRAM("local_transport")
