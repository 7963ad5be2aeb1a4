/* test_sim_alt.c - Ulysses, USP and ring attention passes simulated in SimGrid (sim/sim_alt.c) against the
 * analytic costs of model/5-plan/alt.c: the all-to-all formula plus the ring walk. */
#include <math.h>
#include <string.h>

#include "sim.h"
#include "sim_alt.h"
#include "test_main.h"

/* F = 1e15, intra 400 GB/s + 2 us, inter 50 GB/s + 5 us, G = 8. */
static rs_machine_t machine(void) { /* nodes of 8: 400 GB/s and 2 us inside, 50 GB/s and 5 us between */
    rs_machine_t m = rs_machine_figures("round", RS_DTYPE_BF16, 1e15, (rs_tier_t){"intra", 400e9, 2e-6, {0, 0, 0}, 0});
    m.devices_per_node = 8;
    m.inter = (rs_tier_t){"inter", 50e9, 5e-6, {0, 0, 0}, 0};
    return m;
}

static void check(const char *model, int64_t seq, int64_t u, int64_t r, bool causal) {
    rs_transformer_t t;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_transformer_load(model, &t, &err), 0);
    rs_machine_t m = machine();
    rs_sp_config_t c;
    rs_sp_config_default(&c);
    c.seq_tokens = seq, c.ulysses = u, c.ring = r, c.causal = causal;
    rs_sp_cost_t cost;
    CU_ASSERT_EQUAL_FATAL(rs_sp_cost(&t, &m, &c, &cost, &err), 0);
    rs_sim_alt_result_t f, b;
    int rc = rs_sim_alt_run(&t, &m, &c, RS_PASS_FORWARD, &f, &err);
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(rs_sim_alt_run(&t, &m, &c, RS_PASS_BACKWARD, &b, &err), 0);
    fprintf(stderr, "  %s S=%lld U=%lld R=%lld: fwd sim %.9g model %.9g | bwd sim %.9g model %.9g\n", model,
            (long long)seq, (long long)u, (long long)r, f.makespan_s, cost.fwd_s, b.makespan_s, cost.bwd_s);
    /* the all-to-alls in alone: Q, K, V (forward), one call each, each with its latency */
    double tok = (double)seq / (double)(u * r), q = (double)(t.q_heads * t.head_dim), k = (double)(t.kv_heads * t.head_dim);
    RS_ASSERT_REL(f.a2a_in_end_s, rs_machine_a2a_s(&m, u, tok * q * 2, NULL) + 2 * rs_machine_a2a_s(&m, u, tok * k * 2, NULL), 1e-6);
    RS_ASSERT_REL(f.makespan_s, cost.fwd_s, 1e-6);
    RS_ASSERT_REL(b.makespan_s, cost.bwd_s, 1e-6);
}

RS_TEST(test_ulysses_node, "ulysses_node") { check("llama2-7b", 1 << 16, 8, 1, false); }
RS_TEST(test_ulysses_two_nodes, "ulysses_two_nodes") { check("llama2-7b", 1 << 16, 16, 1, true); }
RS_TEST(test_usp_4x4, "usp_4x4") { check("llama3-8b", 1 << 16, 4, 4, true); }
RS_TEST(test_usp_8x2, "usp_8x2") { check("llama3-8b", 1 << 15, 8, 2, false); }
RS_TEST(test_ring_16, "ring_16") { check("llama3-8b", 1 << 15, 1, 16, true); }

RS_TEST(test_bad_split, "bad_split") {
    rs_transformer_t t;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_transformer_load("llama3-8b", &t, &err), 0);
    rs_machine_t m = machine();
    rs_sp_config_t c;
    rs_sp_config_default(&c);
    c.ulysses = 16, c.ring = 1;
    rs_sim_alt_result_t r;
    CU_ASSERT_EQUAL(rs_sim_alt_run(&t, &m, &c, RS_PASS_FORWARD, &r, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--ulysses 16"));
}

/* The estimate of a split's simulation (sim_alt.h): U rings of R ranks on N = U R hosts, sim.h's
 * constants - the same as a job of U rings of R (rs_sim_estimate_rings) and, for U = 1, as rs_sim_estimate
 * of the ring on an all-pairs platform. USP 4 x 4 forward: 16 hosts x 4 steps = 64 rank-steps, 0.3 s +
 * 64 x (30 us + 0.05 us x 16); memory 16 MB + 16 x 24 KB + 4 x 16 B + 16^2 routes x 256 B. */
RS_TEST(test_estimate, "estimate") {
    rs_sp_config_t c;
    rs_sp_config_default(&c);
    c.ulysses = 4, c.ring = 4;
    rs_estimate_t e, f;
    rs_sim_alt_estimate(&c, RS_PASS_FORWARD, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 64);
    RS_ASSERT_REL(e.time_s, 0.3 + 64 * (30e-6 + 0.05e-6 * 16), 1e-12);
    RS_ASSERT_REL(e.mem_bytes, 16e6 + 16 * 24e3 + 4 * 16 + 256.0 * 256, 1e-12);
    rs_sim_alt_estimate(&c, RS_PASS_BACKWARD, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 16 * 5);
    c.ulysses = 1, c.ring = 16;
    rs_sim_alt_estimate(&c, RS_PASS_FORWARD, &e);
    rs_problem_t p;
    rs_problem_default(&p);
    p.n_ranks = 16, p.pass = RS_PASS_FORWARD;
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.routes = RS_PLATFORM_ALL_PAIRS;
    rs_sim_estimate(&p, NULL, &cfg, RS_EST_NO_TRACE, &f);
    CU_ASSERT_EQUAL(e.rank_steps, f.rank_steps);
    RS_ASSERT_REL(e.time_s, f.time_s, 1e-15);
    RS_ASSERT_REL(e.mem_bytes, f.mem_bytes, 1e-15);
}

RS_TEST_PROGRAM("plan_sim")
