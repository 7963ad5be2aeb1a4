/* test_infer_model.c - the inference variants in the analytic model (docs/inference.md): the closed
 * form by hand (pass-kv with a cache, pass-q and its all-to-all, decode), walk == closed form on
 * balanced rings with every realism knob, the all-to-all step of the walk, and the pass-kv/pass-q
 * crossing in T/P on a small case against its hand-derived value. */
#include <math.h>
#include <string.h>

#include "cost.h"
#include "test_main.h"
#include "trace.h"

/* 4/2 heads, d 16, bf16, tile 4: the hand cases. */
static rs_problem_t infer(int64_t t, int64_t cached, int64_t n, bool causal, rs_ring_t ring) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = t, p.cached_tokens = cached, p.n_ranks = n, p.causal = causal, p.ring = ring;
    p.layout = RS_LAYOUT_CONTIGUOUS, p.q_heads = 4, p.kv_heads = 2, p.head_dim = 16, p.tile_q = p.tile_k = 4;
    return p;
}

static rs_machine_t machine(double f, double w, double lat) {
    return rs_machine_figures("test", RS_DTYPE_BF16, f, (rs_tier_t){"link", w, lat, {0, 0, 0}, 0});
}

static double walk_makespan(const rs_problem_t *p, const rs_machine_t *m) {
    rs_schedule_t *s = rs_schedule_create(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_walk_t w;
    CU_ASSERT_EQUAL(rs_model_walk(s, m, RS_NO_SINK, NULL, &w, NULL), 0);
    rs_schedule_free(s);
    return w.makespan_s;
}

/* ---- closed form by hand ---------------------------------------------------------------------- */
/* T = 64 on P = 192 over N = 4, non-causal: B = 16, Bc = 48. c_f = 4 d Hq = 256 FLOPs per pair. */
RS_TEST(test_closed_by_hand, "closed form by hand: pass-kv cached, pass-q + all-to-all, decode") {
    const double F = 1e12, W = 1e9, L = 1e-6;
    rs_machine_t m = machine(F, W, L);
    rs_closed_t c;
    /* pass-kv: every step 16 x (16 + 48) pairs; the K,V block of 64 tokens x 2 x 2 heads x 16 x 2 bytes */
    rs_problem_t p = infer(64, 192, 4, false, RS_RING_PASS_KV);
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &c, NULL), 0);
    const double tc = 256.0 * 16 * 64 / F, x_kv = 8192.0 / W;
    RS_ASSERT_REL(c.t_comp_s, tc, 1e-15);
    RS_ASSERT_REL(c.t_comm_s, L + x_kv, 1e-15);
    RS_ASSERT_REL(c.makespan_s, 3 * fmax(tc, L + x_kv) + tc, 1e-14);
    CU_ASSERT_EQUAL(c.a2a_s, 0);
    RS_ASSERT_REL(c.b_min_tokens, F * 128 / (W * 256), 1e-15); /* c_b / c_f, unchanged by the cache */
    /* pass-q: the Q block of 16 x 4 x 16 x 2 = 2048 bytes; all-to-all of 3 partials of 16 x 4 x 36 */
    p.ring = RS_RING_PASS_Q;
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &c, NULL), 0);
    const double x_q = 2048.0 / W, a2a = L + 3 * 2304.0 / W;
    RS_ASSERT_REL(c.t_comm_s, L + x_q, 1e-15);
    RS_ASSERT_REL(c.a2a_s, a2a, 1e-15);
    RS_ASSERT_REL(c.makespan_s, 3 * fmax(tc, L + x_q) + tc + a2a, 1e-14);
    /* pass-q hides its transfer iff B + Bc >= F c_q / (W c_f) = 1000 x 128 / 256 = 500 */
    RS_ASSERT_REL(c.b_min_tokens, 500.0 - 48, 1e-15);
    /* decode: 8 sequences on 4 ranks, P = 4096 (Bc = 1024): 2 sequences per owner; per sequence 256 FLOPs a pair */
    rs_problem_t d = infer(1, 4096, 4, true, RS_RING_PASS_Q);
    d.decode = true, d.batch = 8;
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(&d, &m, &c, NULL), 0);
    const double td = 2 * 256.0 * 1024 / F, td0 = 2 * 256.0 * 1025 / F, xq = 2 * 4 * 16 * 2 / W;
    RS_ASSERT_REL(c.t_comp_s, td, 1e-15);
    RS_ASSERT_REL(c.makespan_s, fmax(td0, L + xq) + 2 * fmax(td, L + xq) + td + L + 3 * (2 * 4 * 36) / W, 1e-14);
    CU_ASSERT_EQUAL(c.b_min_tokens, 0);
}

/* ---- walk == closed form ------------------------------------------------------------------------ */
static void check_walk_closed(const rs_problem_t *p, const rs_machine_t *m) {
    rs_closed_t c;
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(p, m, &c, NULL), 0);
    rs_schedule_t *s = rs_schedule_create(p, NULL);
    rs_trace_t *t = rs_trace_create("model");
    rs_walk_t a, b;
    CU_ASSERT_EQUAL(rs_model_walk(s, m, RS_NO_SINK, NULL, &a, NULL), 0);
    CU_ASSERT_EQUAL(rs_model_walk(s, m, rs_trace_sink(t), NULL, &b, NULL), 0); /* the general walk */
    RS_ASSERT_REL(a.makespan_s, c.makespan_s, 1e-12);
    RS_ASSERT_REL(b.makespan_s, c.makespan_s, 1e-12);
    CU_ASSERT_EQUAL(a.flops_useful, rs_problem_total_flops(p));
    CU_ASSERT_EQUAL(a.rank_steps, p->n_ranks * rs_schedule_n_steps(s));
    rs_trace_free(t);
    rs_schedule_free(s);
}

RS_TEST(test_walk_equals_closed, "walk == closed form for the variants (latency, launch, eta, sigma, host)") {
    static const int64_t ns[] = {1, 2, 3, 8};
    for (unsigned i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int ring = 0; ring < RS_RING_COUNT; ring++)
            for (int knob = 0; knob < 5; knob++) {
                const int64_t n = ns[i];
                rs_machine_t m = machine(knob == 0 ? 1e12 : 3e11, 1e9, knob >= 1 ? 2e-6 : 0);
                if (knob == 2) m.cal.launch_s = 3e-6;
                if (knob == 3) m.cal.overlap = 0.4;
                if (knob == 4) m.cal.comp_slowdown = 1.7, m.cal.host_s_per_xfer = 1e-6, m.cal.host_s_per_byte = 1e-12;
                for (int64_t cached = 0; cached <= 6 * 48 * n; cached += 6 * 48 * n) {
                    rs_problem_t p = infer(48 * n, cached, n, false, (rs_ring_t)ring);
                    check_walk_closed(&p, &m);
                    p.batch = 3;
                    check_walk_closed(&p, &m);
                }
                rs_problem_t d = infer(1, 64 * n, n, true, RS_RING_PASS_Q); /* decode, 2 sequences per rank */
                d.decode = true, d.batch = 2 * n;
                check_walk_closed(&d, &m);
            }
}

/* The all-to-all step in the walk's trace: no compute, send and receive of (N-1) partials with peer
 * -1 from each rank's post to the common end, which starts when the last rank posts. */
RS_TEST(test_a2a_step_events, "the all-to-all step in the walk's trace") {
    rs_problem_t p = infer(64, 0, 4, true, RS_RING_PASS_Q); /* causal contiguous: ranks end step 3 apart */
    rs_machine_t m = machine(1e12, 1e9, 1e-6);
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    rs_trace_t *t = rs_trace_create("model");
    rs_walk_t w;
    CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, rs_trace_sink(t), NULL, &w, NULL), 0);
    double last_post = 0, end = -1;
    for (size_t i = 0; i < rs_trace_count(t); i++) {
        const rs_event_t *e = rs_trace_events(t) + i;
        if (e->step != 4) continue;
        CU_ASSERT(e->kind != RS_EV_COMPUTE);
        if (e->kind == RS_EV_SEND) {
            CU_ASSERT_EQUAL(e->peer, -1);
            CU_ASSERT_EQUAL(e->bytes, 3.0 * (double)rs_problem_part_bytes(&p));
            last_post = fmax(last_post, e->start_s);
            if (end >= 0) RS_ASSERT_REL(e->end_s, end, 1e-15);
            end = e->end_s;
        }
    }
    RS_ASSERT_REL(end, last_post + 1e-6 + 3.0 * (double)rs_problem_part_bytes(&p) / 1e9, 1e-12);
    RS_ASSERT_REL(w.makespan_s, end, 1e-15);
    rs_trace_free(t);
    rs_schedule_free(s);
}

/* ---- the pass-kv / pass-q crossing ------------------------------------------------------------ */
/* With compute free (F huge) and no latency both rings are transfer-bound: pass-kv costs
 * (N-1) c_b (B + Bc) / W, pass-q (N-1) c_q B / W plus its all-to-all (N-1) B Hq (d e + 4) / W on a flat
 * ring. They cross at T / P = Hkv d e / (Hq (d e + 2) - Hkv d e) = 64 / 72 with 4/2 heads, d 16, e 2:
 * on P = 576 cached tokens, at T = 512. Below it pass-q is faster, above it pass-kv. */
RS_TEST(test_crossing_small_case, "pass-kv / pass-q crossing at T/P = 8/9 (hand-derived)") {
    rs_machine_t m = machine(1e30, 1e9, 0);
    double kv[3], q[3];
    const int64_t ts[3] = {448, 512, 576};
    for (int i = 0; i < 3; i++) {
        rs_problem_t p = infer(ts[i], 576, 2, true, RS_RING_PASS_KV);
        kv[i] = walk_makespan(&p, &m);
        p.ring = RS_RING_PASS_Q;
        q[i] = walk_makespan(&p, &m);
        /* by hand: one K,V block (2 x (B + Bc) x 2 x 16 x 2) or one Q block plus one partial */
        const double b = (double)ts[i] / 2;
        RS_ASSERT_REL(kv[i], 128.0 * (b + 288) / 1e9, 1e-9);
        RS_ASSERT_REL(q[i], (128.0 * b + 144.0 * b) / 1e9, 1e-9);
    }
    CU_ASSERT(q[0] < kv[0]);
    RS_ASSERT_REL(q[1], kv[1], 1e-9);
    CU_ASSERT(q[2] > kv[2]);
    /* when compute hides both transfers, pass-kv wins by exactly the all-to-all */
    rs_machine_t slow = machine(1e9, 1e12, 0);
    rs_problem_t p = infer(448, 576, 2, false, RS_RING_PASS_KV);
    const double a = walk_makespan(&p, &slow);
    p.ring = RS_RING_PASS_Q;
    RS_ASSERT_REL(walk_makespan(&p, &slow) - a, (double)rs_problem_part_bytes(&p) / 1e12, 1e-6);
}

RS_TEST_PROGRAM("inference model")
