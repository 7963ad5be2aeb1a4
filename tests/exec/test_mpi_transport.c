/* test_mpi_transport.c - the "mpi" transport (exec/mpi_transport.c) in one process (MPI's singleton
 * mode, a world of one rank): a send to itself delivered and timed, the collectives of one rank, a
 * receive nobody sends timing out as a timeout naming the peer, the refusals, the names of the
 * progress modes. The ring of several ranks runs through `ringsim exec --launch mpirun` (the
 * exec_mpi_* tests). */
#include <string.h>

#include "exec.h"
#include "exec_fixtures.h"
#include "test_main.h"

static void *ts;

RS_TEST(test_self, "self") {
    const rs_transport_ops_t *t = &rs_mpi_transport_ops;
    CU_ASSERT_EQUAL(t->rank(ts), 0);
    CU_ASSERT_EQUAL(t->size(ts), 1);
    CU_ASSERT_PTR_NULL(t->loopback);
    char a[256], b[256] = {0};
    for (int i = 0; i < 256; i++) a[i] = (char)(7 * i + 3);
    const rs_xfer_req_t reqs[2] = {{RS_XFER_SEND, 0, a, 256, 0}, {RS_XFER_RECV, 0, b, 256, 0}};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(t->post(ts, 2, reqs, &err), 0);
    t->progress(ts);
    rs_xfer_time_t tm[2];
    CU_ASSERT_EQUAL_FATAL(t->wait(ts, 5.0, tm, &err), 0);
    CU_ASSERT_EQUAL(memcmp(a, b, 256), 0);
    for (int i = 0; i < 2; i++) CU_ASSERT(tm[i].done_s >= tm[i].post_s && tm[i].post_s > 0);
    CU_ASSERT_EQUAL(t->barrier(ts, 5.0, &err), 0);
    double x = 2.5, all = 0, bc = 4.25;
    CU_ASSERT_EQUAL(t->gather(ts, &x, sizeof x, &all, 5.0, &err), 0);
    CU_ASSERT_EQUAL(all, 2.5);
    CU_ASSERT_EQUAL(t->bcast(ts, &bc, sizeof bc, 5.0, &err), 0);
    CU_ASSERT_EQUAL(bc, 4.25);
    CU_ASSERT_PTR_NOT_NULL(strstr(t->describe(ts), "progress none"));
}

/* A receive from itself that no send matches: after the timeout, a timeout naming the peer. */
RS_TEST(test_timeout, "timeout") {
    char b[16];
    const rs_xfer_req_t rq = {RS_XFER_RECV, 0, b, 16, 3};
    rs_test_recv_times_out(&rs_mpi_transport_ops, ts, &rq, 0.2, "timeout after 0.2 s waiting for receive from rank 0");
    rs_err_t err = {0};
    rs_xfer_time_t tm;
    /* a send that matches it, so that nothing stays pending */
    char c[16] = {0};
    const rs_xfer_req_t sq = {RS_XFER_SEND, 0, c, 16, 3};
    CU_ASSERT_EQUAL(rs_mpi_transport_ops.post(ts, 1, &sq, &err), 0);
    CU_ASSERT_EQUAL(rs_mpi_transport_ops.wait(ts, 5.0, &tm, &err), 0);
}

RS_TEST(test_refusals_and_names, "refusals_and_names") {
    char a[8] = {0};
    rs_xfer_req_t many[RS_XFER_MAX_REQS + 1];
    for (int i = 0; i <= RS_XFER_MAX_REQS; i++) many[i] = (rs_xfer_req_t){RS_XFER_SEND, 0, a, 8, 10 + i};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_mpi_transport_ops.post(ts, RS_XFER_MAX_REQS + 1, many, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "mpi: 9 transfers in one post (max 8)");
    CU_ASSERT_STRING_EQUAL(rs_progress_name(RS_PROGRESS_POLL), "poll");
    CU_ASSERT_STRING_EQUAL(rs_progress_name(RS_PROGRESS_THREAD), "thread");
}

int main(int argc, char **argv) {
    rs_err_t err = {0};
    ts = rs_mpi_transport_create(&argc, &argv, RS_PROGRESS_NONE, &err);
    if (!ts) {
        printf("skipped: no MPI singleton here (%s)\n", err.msg);
        return RS_TEST_SKIP;
    }
    static const rs_test_program_t program = {.suite = "mpi_transport"};
    const int rc = rs_test_run(&program);
    rs_mpi_transport_ops.destroy(ts);
    return rc;
}
