/* test_event.c - events and their sink (event.c, event.h): the kinds' names and parsing, the order of
 * a trace (pass, rank, step, kind; times do not count) as qsort uses it, and a sink's emit - kept,
 * refused, or none at all. */
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "test_main.h"

RS_TEST(test_kind_names, "kind names and parsing") {
    const char *names[] = {"compute", "send", "recv", "step"};
    for (int k = 0; k < RS_EV_KIND_COUNT; k++) {
        CU_ASSERT_STRING_EQUAL(rs_event_kind_name((rs_event_kind_t)k), names[k]);
        rs_event_kind_t out = RS_EV_KIND_COUNT;
        CU_ASSERT_EQUAL(rs_event_kind_parse(names[k], &out), 0);
        CU_ASSERT_EQUAL(out, (rs_event_kind_t)k);
    }
    rs_event_kind_t out = RS_EV_STEP;
    CU_ASSERT_EQUAL(rs_event_kind_parse("Compute", &out), -1);
    CU_ASSERT_EQUAL(out, RS_EV_STEP); /* untouched */
    CU_ASSERT_STRING_EQUAL(rs_event_kind_name(RS_EV_KIND_COUNT), "?");
}

RS_TEST(test_order, "the order of a trace: pass, rank, step, kind") {
    const rs_event_t a = {1, 2, RS_PASS_FORWARD, RS_EV_SEND, 2, 5.0, 6.0, 0, 64};
    rs_event_t b = a;
    b.start_s = 0, b.end_s = 1, b.bytes = 0, b.peer = -1; /* times and figures do not count */
    CU_ASSERT_EQUAL(rs_event_key_cmp(&a, &b), 0);
    b = a, b.kind = RS_EV_RECV;
    CU_ASSERT_EQUAL(rs_event_key_cmp(&a, &b), -1);
    CU_ASSERT_EQUAL(rs_event_key_cmp(&b, &a), 1);
    b = a, b.step = 1, b.kind = RS_EV_STEP; /* step before kind */
    CU_ASSERT_EQUAL(rs_event_key_cmp(&a, &b), 1);
    b = a, b.rank = 0, b.step = 9; /* rank before step */
    CU_ASSERT_EQUAL(rs_event_key_cmp(&a, &b), 1);
    b = a, b.pass = RS_PASS_BACKWARD, b.rank = 0; /* pass first */
    CU_ASSERT_EQUAL(rs_event_key_cmp(&a, &b), -1);
    rs_event_t v[4] = {
        {0, 1, RS_PASS_BACKWARD, RS_EV_COMPUTE, -1, 0, 1, 0, 0},
        {1, 0, RS_PASS_FORWARD, RS_EV_STEP, -1, 0, 1, 0, 0},
        {1, 0, RS_PASS_FORWARD, RS_EV_COMPUTE, -1, 0, 1, 0, 0},
        {0, 3, RS_PASS_FORWARD, RS_EV_RECV, 1, 0, 1, 0, 0},
    };
    qsort(v, 4, sizeof v[0], rs_event_key_qcmp);
    CU_ASSERT(v[0].rank == 0 && v[0].step == 3 && v[0].pass == RS_PASS_FORWARD);
    CU_ASSERT(v[1].rank == 1 && v[1].kind == RS_EV_COMPUTE);
    CU_ASSERT(v[2].rank == 1 && v[2].kind == RS_EV_STEP);
    CU_ASSERT(v[3].pass == RS_PASS_BACKWARD);
}

/* A sink that keeps up to cap events and refuses the next. */
typedef struct {
    rs_event_t ev[4];
    int n, cap;
} keep_t;

static int keep(void *ctx, const rs_event_t *ev) {
    keep_t *k = ctx;
    if (k->n == k->cap) return -1;
    k->ev[k->n++] = *ev;
    return 0;
}

RS_TEST(test_sink, "a sink keeps, refuses, or there is none") {
    keep_t k = {.cap = 2};
    const rs_event_sink_t sink = {keep, &k};
    const rs_event_t e = {3, 1, RS_PASS_FORWARD, RS_EV_COMPUTE, -1, 0.5, 1.5, 1e9, 0};
    CU_ASSERT_TRUE(rs_sink_wants(sink));
    CU_ASSERT_EQUAL(rs_sink_emit(sink, &e), 0);
    CU_ASSERT_EQUAL(rs_sink_emit(sink, &e), 0);
    CU_ASSERT_EQUAL(rs_sink_emit(sink, &e), -1); /* refused: the producer stops */
    CU_ASSERT_EQUAL(k.n, 2);
    CU_ASSERT_EQUAL(memcmp(&k.ev[1], &e, sizeof e), 0);
    CU_ASSERT_FALSE(rs_sink_wants(RS_NO_SINK));
    CU_ASSERT_EQUAL(rs_sink_emit(RS_NO_SINK, &e), 0); /* discarded */
}

RS_TEST_PROGRAM("event")
