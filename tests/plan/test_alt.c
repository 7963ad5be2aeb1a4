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
 * formula with M = S/U tokens x (q + 2k) x 2 bytes (Q, K, V) and S/U x q x 2 (O). */
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
