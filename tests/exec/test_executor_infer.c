/* test_infer_exec.c - the inference variants through the executor (CPU backend, ranks as threads):
 * pass-kv and pass-q with a cached prefix and decode, checked against float64 full attention over the
 * cache and the new tokens (rel. error <= 1e-5) for every layout, mask, GQA and N; the all-to-all's
 * trace events; the check catches a wrong answer; what the executor refuses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "exec_fixtures.h"
#include "test_main.h"
#include "trace.h"

/* S new tokens on P cached over N ranks, 4 q heads, d 16, fp32, tile 4x4, batch 2. */
static rs_problem_t infer(int64_t S, int64_t P, int64_t N, rs_layout_t layout, rs_ring_t ring, int64_t kvh) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = S, p.cached_tokens = P, p.n_ranks = N, p.batch = 2, p.q_heads = 4, p.kv_heads = kvh;
    p.head_dim = 16, p.act_bytes = 4, p.grad_bytes = 4, p.layout = layout, p.ring = ring;
    p.tile_q = 4, p.tile_k = 4;
    return p;
}

static void expect_ok(const rs_problem_t *p, const char *what) {
    rs_exec_opts_t o = rs_test_exec_opts_check();
    rs_exec_result_t res;
    rs_err_t err = {0};
    int rc = rs_test_exec_run(p, &o, NULL, &res, &err);
    if (rc != 0 || !res.check_ok)
        fprintf(stderr, "  %s: %s %s causal=%d N=%lld P=%lld kv_heads=%lld: rc %d: %s\n", what, rs_ring_name(p->ring),
                rs_layout_name(p->layout), p->causal, (long long)p->n_ranks, (long long)p->cached_tokens,
                (long long)p->kv_heads, rc, err.msg);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(res.check_ok);
    CU_ASSERT(res.finite);
    /* compared something real: a wrong token mapping or a lost partial gives O(1) errors */
    CU_ASSERT(res.err[RS_TENSOR_O] >= 0 && res.err[RS_TENSOR_O] <= 1e-5);
    CU_ASSERT(res.err[RS_TENSOR_LSE] >= 0 && res.err[RS_TENSOR_LSE] <= 1e-5);
}

/* pass-q and pass-kv with a cached prefix: every layout x mask x (MHA-like, GQA) x N in {1, 2, 3, 4}. */
RS_TEST(test_cached_prefix_every_layout, "pass-kv and pass-q with a cached prefix vs float64, every layout") {
    for (int ring = 0; ring < RS_RING_COUNT; ring++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int causal = 0; causal < 2; causal++)
                for (int64_t n = 1; n <= 4; n++)
                    for (int64_t kvh = 1; kvh <= 4; kvh *= 4) {
                        rs_problem_t p = infer(2 * n * 6, 2 * n * 10, n, (rs_layout_t)l, (rs_ring_t)ring, kvh);
                        p.causal = causal;
                        expect_ok(&p, "cached prefix");
                    }
}

/* pass-q without a cache (pass-kv's work, moved) and with more cached than new tokens by far. */
RS_TEST(test_pass_q_edges, "pass-q without a cache and with a long one") {
    for (int l = 0; l < RS_LAYOUT_COUNT; l++) {
        rs_problem_t p = infer(48, 0, 4, (rs_layout_t)l, RS_RING_PASS_Q, 2);
        expect_ok(&p, "no cache");
        p = infer(8, 256, 4, (rs_layout_t)l, RS_RING_PASS_Q, 2); /* 1 new token per zigzag chunk */
        expect_ok(&p, "long cache");
    }
}

/* Decode: one token per sequence, sequences owned round-robin (3 and 5 sequences on 4 ranks leave
 * ranks with none and with two), every layout of the cache. */
RS_TEST(test_decode_every_layout, "decode vs float64, uneven sequences per rank") {
    for (int l = 0; l < RS_LAYOUT_COUNT; l++)
        for (int64_t b = 1; b <= 5; b += 2)
            for (int64_t n = 1; n <= 4; n += 3) {
                rs_problem_t p = infer(1, 2 * n * 8, n, (rs_layout_t)l, RS_RING_PASS_Q, 2);
                p.decode = true;
                p.batch = b;
                expect_ok(&p, "decode");
            }
}

/* The check is not vacuous: at a tolerance fp32 cannot reach it fails and names a token of the new
 * ones (a position >= P). */
RS_TEST(test_check_can_fail, "a too-tight tolerance fails and names a new token") {
    rs_problem_t p = infer(16, 32, 4, RS_LAYOUT_ZIGZAG, RS_RING_PASS_Q, 2);
    rs_exec_opts_t o = rs_test_exec_opts_check();
    o.check_tol = 1e-12;
    rs_exec_result_t res;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_test_exec_run(&p, &o, NULL, &res, &err), 0);
    CU_ASSERT(!res.check_ok);
    CU_ASSERT(strstr(err.msg, "check failed") != NULL);
    CU_ASSERT(res.worst[RS_TENSOR_O][2] >= 32 && res.worst[RS_TENSOR_O][2] < 48);
}

/* The trace follows the schedule: N compute steps and one all-to-all step (send and receive of
 * (N - 1) partials, peer -1, no compute event). */
RS_TEST(test_trace_of_the_all_to_all, "the all-to-all in the trace") {
    rs_problem_t p = infer(24, 48, 3, RS_LAYOUT_ZIGZAG, RS_RING_PASS_Q, 2);
    rs_exec_opts_t o = rs_test_exec_opts_check();
    o.check = false;
    rs_trace_t *t = rs_trace_create("exec-cpu");
    rs_exec_result_t res;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_test_exec_run(&p, &o, t, &res, &err), 0);
    CU_ASSERT_EQUAL(res.n_steps, 4);
    int computes = 0, a2a_sends = 0, q_sends = 0;
    for (size_t i = 0; i < rs_trace_count(t); i++) {
        const rs_event_t *e = rs_trace_events(t) + i;
        if (e->kind == RS_EV_COMPUTE) {
            computes++;
            CU_ASSERT(e->step < 3);
        }
        if (e->kind == RS_EV_SEND && e->step == 3) {
            a2a_sends++;
            CU_ASSERT_EQUAL(e->peer, -1);
            CU_ASSERT_EQUAL(e->bytes, 2.0 * (double)rs_problem_part_bytes(&p));
        }
        if (e->kind == RS_EV_SEND && e->step < 3) {
            q_sends++;
            CU_ASSERT_EQUAL(e->bytes, (double)rs_problem_q_bytes(&p));
        }
    }
    CU_ASSERT_EQUAL(computes, 9);
    CU_ASSERT_EQUAL(a2a_sends, 3);
    CU_ASSERT_EQUAL(q_sends, 6); /* steps 0 and 1 on each rank */
    rs_trace_free(t);
}

RS_TEST_PROGRAM("inference executor")
