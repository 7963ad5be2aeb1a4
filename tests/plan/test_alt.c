/* test_alt.c - Ring vs Ulysses vs USP for one layer's attention (alt.c): Ulysses' head bound and
 * the split's other checks with their messages, the ring option as the model's own walk, Ulysses'
 * cost by its formula, and the hidden rule on the mask. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alt.h"
#include "cost.h"
#include "test_main.h"
#include "model_fixtures.h"

/* The default split config at S tokens, U x R devices. */
static rs_sp_config_t sp_config(int64_t seq, int64_t u, int64_t r) {
    rs_sp_config_t c;
    rs_sp_config_default(&c);
    c.seq_tokens = seq, c.ulysses = u, c.ring = r;
    return c;
}

/* Ulysses gives each device whole KV heads: U must divide Hkv (8 for Llama-3 8B). */
RS_TEST(test_ulysses_head_bound, "ulysses_head_bound") {
    rs_transformer_t t = rs_test_transformer("llama3-8b");
    rs_machine_t m = rs_test_round_machine();
    rs_sp_config_t c = sp_config(1 << 20, 8, 1);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_sp_check(&t, &m, &c, &err), 0);
    c.ulysses = 16;
    CU_ASSERT_EQUAL(rs_sp_check(&t, &m, &c, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--ulysses 16"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "only 8"));
    rs_sp_cost_t cost;
    CU_ASSERT_EQUAL(rs_sp_cost(&t, &m, &c, &cost, &err), -1);
    c.ulysses = 3;
    CU_ASSERT_EQUAL(rs_sp_check(&t, &m, &c, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "must divide"));
    c.ulysses = 4, c.ring = 3; /* S = 2^20 is not a multiple of 12 */
    CU_ASSERT_EQUAL(rs_sp_check(&t, &m, &c, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--seq 1048576"));
    c.ulysses = 4, c.ring = 4; m.devices_per_node = 6; /* groups of 4 do not tile nodes of 6 */
    CU_ASSERT_EQUAL(rs_sp_check(&t, &m, &c, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "devices per node"));
}

/* The ring option is the model's walk of the schedule, nothing re-derived: compare with a direct walk. */
RS_TEST(test_ring_is_walk, "ring_is_walk") {
    rs_transformer_t t = rs_test_transformer("llama3-8b");
    rs_machine_t m = rs_test_round_machine();
    rs_sp_config_t c = sp_config(1 << 18, 1, 16);
    rs_sp_cost_t cost;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_sp_cost(&t, &m, &c, &cost, &err), 0);
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 1 << 18, p.n_ranks = 16, p.q_heads = 32, p.kv_heads = 8, p.head_dim = 128;
    p.pass = RS_PASS_BACKWARD;
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_walk_t w;
    CU_ASSERT_EQUAL(rs_model_walk(s, &m, RS_NO_SINK, NULL, &w, &err), 0);
    rs_schedule_free(s);
    CU_ASSERT_EQUAL(cost.attn_bwd_s, w.makespan_s);
    /* the walk's transfer-bound steps, less the 16 tail steps that have no compute, are kept; hidden
     * is the one rule of model/4-cost/kernel.h: the closed form's layout-aware bound */
    CU_ASSERT(w.comm_bound_steps >= 16);
    CU_ASSERT_EQUAL(cost.comm_bound_bwd, w.comm_bound_steps - 16);
    rs_closed_t cl;
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &cl, &err), 0);
    CU_ASSERT_EQUAL(cost.ring_hidden_bwd, !cl.comm_bound);
    CU_ASSERT_EQUAL(cost.a2a_fwd_s, 0.0);
    CU_ASSERT_EQUAL(cost.kind, RS_SP_RING);
    CU_ASSERT_TRUE(cost.ring_inter); /* 16 ranks on nodes of 8 */
    /* causal useful FLOPs of the whole sequence: S(S+1)/2 pairs x 4 d Hq */
    double s_tok = (double)(1 << 18);
    RS_ASSERT_REL(cost.flops_useful_fwd, s_tok * (s_tok + 1) / 2 * 4 * 128 * 32, 1e-12);
    RS_ASSERT_REL(cost.flops_useful_bwd, 2.5 * cost.flops_useful_fwd, 1e-12);
}

/* Ulysses on one node: attention = one local kernel over S tokens and Hq/U heads; all-to-alls by the
 * formula with M = S/U tokens x q x 2 bytes (Q), x k x 2 (K, V) and x q x 2 (O), one call each (no
 * latency on this machine: their sum is that of Q, K, V as one). */
RS_TEST(test_ulysses_cost, "ulysses_cost") {
    rs_transformer_t t = rs_test_transformer("llama2-7b"); /* 32 KV heads */
    rs_machine_t m = rs_test_round_machine();
    rs_sp_config_t c = sp_config(1 << 16, 8, 1);
    c.causal = false;
    rs_sp_cost_t u;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_sp_cost(&t, &m, &c, &u, &err), 0);
    CU_ASSERT_EQUAL(u.kind, RS_SP_ULYSSES);
    double tok = 65536.0 / 8, q = 4096, k = 4096;
    double t_qkv = 7.0 / 8 * tok * (q + 2 * k) * 2 / 400e9, t_o = 7.0 / 8 * tok * q * 2 / 400e9;
    RS_ASSERT_REL(u.a2a_fwd_s, t_qkv + t_o, 1e-12);
    RS_ASSERT_REL(u.a2a_bwd_s, t_qkv + t_o, 1e-12);
    CU_ASSERT_FALSE(u.a2a_inter);
    /* non-causal: S^2 pairs x 4 d (Hq / U) FLOPs at peak (uncalibrated machine) */
    RS_ASSERT_REL(u.attn_fwd_s, 65536.0 * 65536.0 * 4 * 128 * 4 / 1e15, 1e-12);
    RS_ASSERT_REL(u.fwd_s, u.a2a_fwd_s + u.attn_fwd_s, 1e-15);
}

/* One all-to-all per tensor, each with its latency (alt.h; feifeibear/long-context-attention's
 * LongContextAttention.forward: SeqAllToAll4D for query, key, value and the output). Llama-3 8B (32/8
 * heads of d 128) over U = 8 on one node at 400 GB/s and 3 us: a device holds 65536 / 8 = 8192 tokens,
 * Q and O 8192 x 4096 x 2 = 67108864 B, K and V 8192 x 1024 x 2 = 16777216 B, 167772160 B in all; each
 * call sends 7/8 of its M: forward = 4 x 3 us + 7/8 x 167772160 / 400e9 = 12 + 367.0016 us = 379.0016 us
 * (Q, K, V as one call would be 373.0016); backward the same 4 calls (dO in, dQ, dK, dV out). */
RS_TEST(test_a2a_per_tensor, "a2a_per_tensor") {
    rs_transformer_t t = rs_test_transformer("llama3-8b");
    rs_machine_t m = rs_test_round_machine();
    m.intra.latency_s = 3e-6;
    rs_sp_config_t c = sp_config(1 << 16, 8, 1);
    rs_sp_a2a_t f, b;
    rs_sp_a2a_calls(&t, &c, RS_PASS_FORWARD, &f);
    rs_sp_a2a_calls(&t, &c, RS_PASS_BACKWARD, &b);
    CU_ASSERT_EQUAL(f.n_in, 3);
    CU_ASSERT_EQUAL(f.n_out, 1);
    CU_ASSERT_EQUAL(b.n_in, 1);
    CU_ASSERT_EQUAL(b.n_out, 3);
    RS_ASSERT_REL(f.in_bytes[0], 67108864.0, 0); /* Q */
    RS_ASSERT_REL(f.in_bytes[1], 16777216.0, 0); /* K */
    RS_ASSERT_REL(f.in_bytes[2], 16777216.0, 0); /* V */
    RS_ASSERT_REL(f.out_bytes[0], 67108864.0, 0); /* O */
    RS_ASSERT_REL(b.in_bytes[0], 67108864.0, 0);  /* dO */
    RS_ASSERT_REL(b.out_bytes[0], 67108864.0, 0); /* dQ */
    RS_ASSERT_REL(b.out_bytes[2], 16777216.0, 0); /* dV */
    rs_sp_cost_t u;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_sp_cost(&t, &m, &c, &u, &err), 0);
    RS_ASSERT_REL(u.a2a_fwd_s, 379.0016e-6, 1e-12);
    RS_ASSERT_REL(u.a2a_bwd_s, 379.0016e-6, 1e-12);
    RS_ASSERT_REL(u.a2a_fwd_bytes, 167772160.0, 0);
    RS_ASSERT_REL(u.a2a_bwd_bytes, 167772160.0, 0);
    /* a pure ring has none */
    c = sp_config(1 << 16, 1, 8);
    rs_sp_a2a_calls(&t, &c, RS_PASS_FORWARD, &f);
    CU_ASSERT_EQUAL(f.n_in + f.n_out, 0);
}

/* Causal zigzag steps compute half a block: at B = 4096 on the 50 GB/s inter tier a full block would
 * hide its transfers (full-block threshold about 2.5K for GQA 32/8 at 0.5 x 1e15) but the half-block
 * step does not: the layout's B* is about twice that, the rule says "exposed" and the walk agrees; at
 * B = 8192 they hide. */
RS_TEST(test_hidden_uses_mask, "hidden_uses_mask") {
    rs_transformer_t t = rs_test_transformer("llama3-8b");
    rs_machine_t m = rs_test_round_machine();
    m.cal.n_eff = 1, m.cal.eff[0].block_tokens = 1, m.cal.eff[0].efficiency = 0.5;
    rs_sp_config_t c = sp_config(1 << 17, 2, 32); /* B = 4096, ring ranks 4 per node: inter hops */
    rs_sp_cost_t a, b;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_sp_cost(&t, &m, &c, &a, &err), 0);
    CU_ASSERT(a.ring_b_star_tokens > 4096 && a.ring_b_star_tokens < 8192);
    CU_ASSERT_FALSE(a.ring_hidden_fwd);
    CU_ASSERT(a.comm_bound_fwd > 0);
    c.ulysses = 4, c.ring = 16; /* B = 8192 */
    CU_ASSERT_EQUAL_FATAL(rs_sp_cost(&t, &m, &c, &b, &err), 0);
    CU_ASSERT_TRUE(b.ring_hidden_fwd);
    CU_ASSERT_TRUE(b.ring_hidden_bwd);
}

RS_TEST_PROGRAM("alt")
