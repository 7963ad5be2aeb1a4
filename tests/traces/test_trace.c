/* test_trace.c - the trace in memory (traces/trace.c): header keys (set, replace, order, reserved and
 * bad keys), the problem's keys and back, the machine's keys with hand-written values, events
 * appended through the sink, sorted and found, the makespan. The files: test_trace_csv.c,
 * test_trace_chrome.c. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "machine.h"
#include "profile.h"
#include "test_main.h"
#include "traces_check.h"
#include "trace.h"
#include "trace_private.h"

RS_TEST(test_problem_roundtrip, "problem header round trip") {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 3 * 65536, p.n_ranks = 12, p.batch = 2, p.q_heads = 64, p.kv_heads = 4, p.head_dim = 96;
    p.act_bytes = 1, p.grad_bytes = 2, p.causal = false, p.layout = RS_LAYOUT_STRIPED, p.pass = RS_PASS_BACKWARD;
    p.tile_q = 64, p.tile_k = 32;
    rs_trace_t *t = rs_trace_create("sim");
    CU_ASSERT_EQUAL(rs_trace_meta_problem(t, &p), 0);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_csv(t, rs_test_path("p.csv"), &err), 0);
    rs_trace_t *u = rs_trace_read_csv(rs_test_path("p.csv"), &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    CU_ASSERT_EQUAL(rs_trace_count(u), 0);
    rs_problem_t q;
    CU_ASSERT_EQUAL_FATAL(rs_trace_problem(u, &q, &err), 0);
    rs_test_expect_problem(&q, &p);
    /* a missing or bad key is named, as bad input */
    rs_trace_t *v = rs_trace_create("sim");
    rs_trace_meta_problem(v, &p);
    rs_trace_set_meta(v, "head_dim", "abc");
    CU_ASSERT_EQUAL(rs_trace_problem(v, &q, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "trace header: head_dim=abc: expected a positive integer");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_trace_set_meta(v, "head_dim", "96");
    rs_trace_set_meta(v, "layout", "diagonal");
    CU_ASSERT_EQUAL(rs_trace_problem(v, &q, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "trace header: layout=diagonal: expected contiguous, striped or zigzag");
    rs_trace_t *w = rs_trace_create("sim");
    CU_ASSERT_EQUAL(rs_trace_problem(w, &q, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "trace header: missing key 'seq_tokens'");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    /* reserved and bad keys are refused */
    CU_ASSERT_EQUAL(rs_trace_set_meta(w, "source", "x"), -1);
    CU_ASSERT_EQUAL(rs_trace_set_meta(w, "Bad Key", "x"), -1);
    CU_ASSERT_EQUAL(rs_trace_set_meta(w, "note", "two\nlines"), 0);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(w, "note"), "two lines");
    rs_trace_free(t);
    rs_trace_free(u);
    rs_trace_free(v);
    rs_trace_free(w);
}

RS_TEST(test_meta_keys, "header keys: set, replace, order, refused keys; inference keys") {
    rs_trace_t *t = rs_trace_create(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_STRING_EQUAL(rs_trace_source(t), "unknown");
    CU_ASSERT_EQUAL(rs_trace_meta_count(t), 0);
    CU_ASSERT_EQUAL(rs_trace_set_meta(t, "b.key", "%d", 2), 0);
    CU_ASSERT_EQUAL(rs_trace_set_meta(t, "a-key_9", "%s/%.3f", "x", 0.5), 0);
    CU_ASSERT_EQUAL(rs_trace_set_meta(t, "b.key", "replaced"), 0); /* replaced in place: the order stays */
    CU_ASSERT_EQUAL(rs_trace_set_meta(t, "ringsim-trace", "2"), -1);
    CU_ASSERT_EQUAL(rs_trace_set_meta(t, "", "x"), -1);
    CU_ASSERT_EQUAL(rs_trace_set_meta(t, "UPPER", "x"), -1);
    CU_ASSERT_EQUAL_FATAL(rs_trace_meta_count(t), 2);
    const char *k, *v;
    rs_trace_meta_at(t, 0, &k, &v);
    CU_ASSERT_STRING_EQUAL(k, "b.key");
    CU_ASSERT_STRING_EQUAL(v, "replaced");
    rs_trace_meta_at(t, 1, &k, &v);
    CU_ASSERT_STRING_EQUAL(k, "a-key_9");
    CU_ASSERT_STRING_EQUAL(v, "x/0.500");
    CU_ASSERT_PTR_NULL(rs_trace_get_meta(t, "c"));
    /* the inference variants only when used */
    rs_problem_t p;
    rs_problem_default(&p);
    CU_ASSERT_EQUAL(rs_trace_meta_problem(t, &p), 0);
    CU_ASSERT_EQUAL(rs_trace_meta_count(t), 2 + 13);
    CU_ASSERT_PTR_NULL(rs_trace_get_meta(t, "ring"));
    CU_ASSERT_PTR_NULL(rs_trace_get_meta(t, "decode"));
    p.ring = RS_RING_PASS_Q, p.cached_tokens = 4096, p.decode = true;
    CU_ASSERT_EQUAL(rs_trace_meta_problem(t, &p), 0);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "ring"), "pass-q");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "cached_tokens"), "4096");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "decode"), "1");
    rs_problem_t q;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_trace_problem(t, &q, &err), 0);
    CU_ASSERT_EQUAL(q.ring, RS_RING_PASS_Q);
    CU_ASSERT_EQUAL(q.cached_tokens, 4096);
    CU_ASSERT(q.decode);
    rs_trace_set_meta(t, "decode", "yes");
    CU_ASSERT_EQUAL(rs_trace_problem(t, &q, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "trace header: decode=yes: expected 0 or 1");
    rs_trace_free(t);
}

RS_TEST(test_meta_machine, "machine header keys") {
    rs_hw_t hw;
    rs_machine_t m;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &hw, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, &err), 0);
    m.flops_per_s = 1e15 / 3;
    m.devices_per_node = 0;
    m.jitter = 0.25;
    m.seed = 42;
    rs_trace_t *t = rs_trace_create("model");
    CU_ASSERT_EQUAL(rs_trace_meta_machine(t, &m), 0);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "hw"), m.hw_name);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "dtype"), "bf16");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "flops_per_s"), "333333333333333.31"); /* %.17g */
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "devices_per_node"), "0");
    CU_ASSERT_PTR_NULL(rs_trace_get_meta(t, "inter")); /* a flat ring has one tier */
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "jitter"), "0.25");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "seed"), "42");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "stragglers"), "none");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "degraded_hops"), "none");
    m.devices_per_node = 8;
    m.perturb.n_stragglers = 2;
    m.perturb.straggler_rank[0] = 1, m.perturb.straggler_factor[0] = 1.37;
    m.perturb.straggler_rank[1] = 6, m.perturb.straggler_factor[1] = 2;
    m.perturb.n_degraded = 1;
    m.perturb.degraded_hop[0] = 3, m.perturb.degraded_factor[0] = 1.5;
    CU_ASSERT_EQUAL(rs_trace_meta_machine(t, &m), 0);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "devices_per_node"), "8");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "inter"), m.inter.name);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "stragglers"), "1:1.37,6:2");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "degraded_hops"), "3:1.5");
    rs_trace_free(t);
}

RS_TEST(test_sink_sort_find_makespan, "sink, sort, find, makespan") {
    rs_trace_t *t = rs_trace_create("x");
    int emitted = 0;
    rs_event_sink_t sink = rs_trace_sink(t);
    CU_ASSERT(rs_sink_wants(sink));
    CU_ASSERT(!rs_sink_wants(rs_trace_sink(NULL)));
    for (int r = 2; r >= 0; r--)
        for (int k = 2; k >= 0; k--) {
            rs_event_t e = {r, k, RS_PASS_FORWARD, RS_EV_STEP, -1, k * 1.0 + 0.5, k * 1.0 + 1.5 + r, 0, 0};
            emitted += rs_sink_emit(sink, &e) == 0;
        }
    CU_ASSERT_EQUAL(emitted, 9);
    CU_ASSERT_EQUAL(rs_trace_count(t), 9);
    CU_ASSERT_EQUAL(rs_trace_events(t)[0].rank, 2); /* appended as emitted */
    CU_ASSERT_EQUAL(rs_trace_events(t)[0].step, 2);
    CU_ASSERT_EQUAL(rs_trace_find(t, 1, 2, RS_PASS_FORWARD, RS_EV_STEP), 3); /* unsorted: linear */
    rs_trace_sort(t);
    CU_ASSERT_EQUAL(rs_trace_find(t, 0, 0, RS_PASS_FORWARD, RS_EV_STEP), 0);
    CU_ASSERT_EQUAL(rs_trace_find(t, 1, 2, RS_PASS_FORWARD, RS_EV_STEP), 5);
    CU_ASSERT_EQUAL(rs_trace_find(t, 2, 2, RS_PASS_FORWARD, RS_EV_STEP), 8);
    CU_ASSERT_EQUAL(rs_trace_find(t, 1, 2, RS_PASS_FORWARD, RS_EV_SEND), -1);
    CU_ASSERT_EQUAL(rs_trace_find(t, 1, 2, RS_PASS_BACKWARD, RS_EV_STEP), -1);
    RS_ASSERT_REL(rs_trace_makespan(t), (2 + 1.5 + 2) - 0.5, 1e-15);
    /* an event appended out of order: found by the linear scan again */
    rs_event_t early = {0, 0, RS_PASS_FORWARD, RS_EV_COMPUTE, -1, 0.25, 0.5, 0, 0};
    CU_ASSERT_EQUAL(rs_trace_add(t, &early), 0);
    CU_ASSERT_EQUAL(rs_trace_find(t, 0, 0, RS_PASS_FORWARD, RS_EV_COMPUTE), 9);
    RS_ASSERT_REL(rs_trace_makespan(t), (2 + 1.5 + 2) - 0.25, 1e-15);
    rs_trace_sort(t);
    CU_ASSERT_EQUAL(rs_trace_find(t, 0, 0, RS_PASS_FORWARD, RS_EV_COMPUTE), 0); /* compute before step */
    rs_trace_t *empty = rs_trace_create("x");
    CU_ASSERT_EQUAL(rs_trace_makespan(empty), 0.0);
    CU_ASSERT_EQUAL(rs_trace_find(empty, 0, 0, RS_PASS_FORWARD, RS_EV_STEP), -1);
    rs_trace_free(empty);
    rs_trace_free(t);
}

RS_TEST(test_room, "an array's room: first capacity, then doubling, nothing while there is room") {
    int *v = NULL;
    size_t cap = 0;
    CU_ASSERT(rs_trace_room((void **)&v, 0, &cap, sizeof *v, 4) == 0 && cap == 4 && v);
    int *before = v;
    CU_ASSERT(rs_trace_room((void **)&v, 3, &cap, sizeof *v, 4) == 0 && cap == 4 && v == before); /* room left */
    for (int i = 0; i < 4; i++) v[i] = i;
    CU_ASSERT(rs_trace_room((void **)&v, 4, &cap, sizeof *v, 4) == 0 && cap == 8);
    CU_ASSERT(v[0] == 0 && v[3] == 3); /* kept */
    free(v);
}

RS_TEST_PROGRAM_IN("trace")
