/* test_sim_estimate.c - what a simulation is estimated to cost (sim/sim_estimate.c) against the cost
 * model worked out by hand (a job's background collectives included), and the child's watchdog
 * (rs_sim_timeout). */
#include <string.h>

#include "sim.h"
#include "sim_fixtures.h"
#include "test_main.h"

/* One ring of 8, forward: 8 x 8 = 64 rank-steps of 30 us + 0.05 us x 8 after 0.3 s; 16 MB + 8 x 24 KB
 * + 8 steps x 16 B. Backward: 9 steps. A kept trace adds 300 B per rank-step, a trace file 30 us
 * more per rank-step; all pairs 8^2 routes x 256 B. */
RS_TEST(test_rings, "rings") {
    rs_estimate_t e;
    rs_sim_estimate_rings(8, 1, RS_PASS_FORWARD, RS_EST_NO_TRACE, false, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 64);
    RS_ASSERT_REL(e.time_s, 0.3 + 64 * 30.4e-6, 1e-12);
    RS_ASSERT_REL(e.mem_bytes, 16e6 + 8 * 24e3 + 8 * 16, 1e-12);
    rs_sim_estimate_rings(8, 1, RS_PASS_BACKWARD, RS_EST_NO_TRACE, false, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 72);
    RS_ASSERT_REL(e.mem_bytes, 16e6 + 8 * 24e3 + 9 * 16, 1e-12);
    rs_sim_estimate_rings(8, 1, RS_PASS_FORWARD, RS_EST_TRACE, false, &e);
    RS_ASSERT_REL(e.time_s, 0.3 + 64 * 30.4e-6, 1e-12);
    RS_ASSERT_REL(e.mem_bytes, 16e6 + 8 * 24e3 + 8 * 16 + 64 * 300, 1e-12);
    rs_sim_estimate_rings(8, 1, RS_PASS_FORWARD, RS_EST_TRACE_FILE, true, &e);
    RS_ASSERT_REL(e.time_s, 0.3 + 64 * 60.4e-6, 1e-12);
    RS_ASSERT_REL(e.mem_bytes, 16e6 + 8 * 24e3 + 8 * 16 + 64 * 300 + 64 * 256, 1e-12);
    /* 4 rings of 16: 64 rank actors of 16 steps, each step 30 us + 0.05 us x 64 */
    rs_sim_estimate_rings(16, 4, RS_PASS_FORWARD, RS_EST_NO_TRACE, false, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 1024);
    RS_ASSERT_REL(e.time_s, 0.3 + 1024 * 33.2e-6, 1e-12);
    RS_ASSERT_REL(e.mem_bytes, 16e6 + 64 * 24e3 + 16 * 16, 1e-12);
}

/* rs_sim_estimate: the problem's ring, a job's rings, the all-pairs routes of the configuration. */
RS_TEST(test_problem, "problem") {
    rs_problem_t p = problem(8, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    rs_estimate_t e, f;
    rs_sim_estimate(&p, NULL, NULL, RS_EST_NO_TRACE, &e);
    rs_sim_estimate_rings(8, 1, RS_PASS_FORWARD, RS_EST_NO_TRACE, false, &f);
    CU_ASSERT(e.rank_steps == f.rank_steps && e.time_s == f.time_s && e.mem_bytes == f.mem_bytes);
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.routes = RS_PLATFORM_ALL_PAIRS;
    rs_sim_estimate(&p, NULL, &cfg, RS_EST_TRACE, &e);
    rs_sim_estimate_rings(8, 1, RS_PASS_FORWARD, RS_EST_TRACE, true, &f);
    CU_ASSERT(e.rank_steps == f.rank_steps && e.time_s == f.time_s && e.mem_bytes == f.mem_bytes);
    rs_job_t j;
    memset(&j, 0, sizeof j);
    j.placement.n_rings = 3;
    rs_sim_config_default(&cfg);
    cfg.job = &j;
    rs_sim_estimate(&p, NULL, &cfg, RS_EST_NO_TRACE, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 3 * 8 * 8);
}

/* A job of tp x cp x dp (cp: p's N) by tp-cp-dp on fab with one layer's DP all-reduce of 1 MB. */
static rs_job_t dp_job(const rs_machine_t *m, const rs_problem_t *p, int64_t tp, int64_t dp, test_fabric_t fab) {
    rs_job_t j = grid_job(m, p, tp, dp, TP_CP_DP, fab);
    j.background = (rs_background_t){.kind = RS_BG_DP, .group = RS_BG_GROUP_DP_CP, .param_bytes = 1e6, .grad_bytes = 1e6};
    return j;
}

/* A job's background, every ring and member simulated: tp 2 x cp 4 x dp 2 in nodes of 4, the DP all-reduce in the backward. Groups
 * dp-cp: 2 groups (one per TP rank) of 8 members, 2 (8 - 1) = 14 steps each: 2 x 8 x 14 = 224
 * transfers at 30 us + 0.05 us x 16 ranks, 16 member actors of 24 KB; groups dp: 8 of 2 members,
 * 2 steps: 32 transfers, 16 actors. The forward has no all-reduce: the rings' estimate alone. */
RS_TEST(test_background, "background") {
    rs_machine_t m = nodes_of(4, 0, 0);
    rs_problem_t p = problem(4, 512, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    rs_job_t j = dp_job(&m, &p, 2, 2, (test_fabric_t){RS_FABRIC_RAIL, 4, 1, 2});
    rs_sim_config_t cfg = job_config(&j);
    cfg.no_fold = true; /* every ring and member simulated (the fold: test_folded) */
    rs_estimate_t e, rings;
    rs_sim_estimate(&p, NULL, &cfg, RS_EST_NO_TRACE, &e);
    rs_sim_estimate_rings(4, 4, RS_PASS_BACKWARD, RS_EST_NO_TRACE, false, &rings);
    CU_ASSERT_EQUAL(e.rank_steps, rings.rank_steps);
    RS_ASSERT_REL(e.time_s, rings.time_s + 224 * 30.8e-6, 1e-12);
    RS_ASSERT_REL(e.mem_bytes, rings.mem_bytes + 16 * 24e3, 1e-12);
    j.background.group = RS_BG_GROUP_DP;
    rs_sim_estimate(&p, NULL, &cfg, RS_EST_NO_TRACE, &e);
    RS_ASSERT_REL(e.time_s, rings.time_s + 32 * 30.8e-6, 1e-12);
    RS_ASSERT_REL(e.mem_bytes, rings.mem_bytes + 16 * 24e3, 1e-12);
    p.pass = RS_PASS_FORWARD;
    rs_sim_estimate(&p, NULL, &cfg, RS_EST_NO_TRACE, &e);
    rs_sim_estimate_rings(4, 4, RS_PASS_FORWARD, RS_EST_NO_TRACE, false, &rings);
    CU_ASSERT(e.time_s == rings.time_s && e.mem_bytes == rings.mem_bytes);
    rs_job_free(&j);
}

/* A job that folds (job_fold.h): tp 8 x cp 8 x dp 4 on rails of 4-node leaves, the DP all-reduce,
 * backward: 32 copies of one ring of 8 (test_job_fold). The child simulates one ring: 8 x 9 = 72
 * rank-steps at 30 us + 0.05 us x 8 after 0.3 s, and 8 x 32 members x 2 (32 - 1) steps / 32 = 496
 * transfers at the same cost; memory: that ring (16 MB + 8 x 24 KB + 9 x 16 B), 256 / 32 = 8
 * members of 24 KB and 2 KB per device of the 256. The rank-steps are the job's: 32 x 72. The
 * watchdog follows the folded estimate; without the fold, the full one. With --slowdown the actor
 * engine runs (it never folds): the full estimate, 256 ranks and 256 members of 24 KB, as --no-fold's. */
RS_TEST(test_folded, "folded") {
    rs_machine_t m = nodes_of(8, 0, 0);
    rs_problem_t p = problem(8, 2048, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    rs_job_t j = dp_job(&m, &p, 8, 4, (test_fabric_t){RS_FABRIC_RAIL, 8, 4, 2});
    rs_sim_config_t cfg = job_config(&j);
    rs_estimate_t e;
    rs_sim_estimate(&p, NULL, &cfg, RS_EST_NO_TRACE, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 32 * 72);
    RS_ASSERT_REL(e.time_s, 0.3 + (72 + 496) * 30.4e-6, 1e-12);
    RS_ASSERT_REL(e.mem_bytes, 16e6 + 8 * 24e3 + 9 * 16 + 8 * 24e3 + 256 * 2e3, 1e-12);
    CU_ASSERT_EQUAL(rs_sim_timeout(&p, &cfg), 60);
    rs_sim_estimate(&p, &m, &cfg, RS_EST_NO_TRACE, &e); /* the machine without slowdown: the same fold */
    RS_ASSERT_REL(e.time_s, 0.3 + (72 + 496) * 30.4e-6, 1e-12);
    rs_estimate_t slow, full;
    m.cal.comp_slowdown = 1.5; /* --slowdown: the actor engine runs, every ring and member */
    rs_sim_estimate(&p, &m, &cfg, RS_EST_NO_TRACE, &slow);
    cfg.no_fold = true; /* 256 ranks: 32 x 72 rank-steps and 15,872 transfers at 30 us + 0.05 us x 256 */
    rs_sim_estimate(&p, NULL, &cfg, RS_EST_NO_TRACE, &full);
    RS_ASSERT_REL(full.time_s, 0.3 + (32 * 72 + 15872) * 42.8e-6, 1e-12);
    RS_ASSERT_REL(full.mem_bytes, 16e6 + 256 * 24e3 + 9 * 16 + 256 * 24e3, 1e-12);
    CU_ASSERT(slow.time_s == full.time_s && slow.mem_bytes == full.mem_bytes && slow.rank_steps == full.rank_steps);
    rs_job_free(&j);
}

/* The watchdog: --timeout when given, else 10 x the estimate, at least 60 s. N = 2048: 2048^2
 * rank-steps of 30 us + 0.05 us x 2048 = 132.4 us after 0.3 s. */
RS_TEST(test_timeout, "timeout") {
    rs_problem_t p = problem(8, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    CU_ASSERT_EQUAL(rs_sim_timeout(&p, NULL), 60);
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.timeout_s = 2.5;
    CU_ASSERT_EQUAL(rs_sim_timeout(&p, &cfg), 2.5);
    p = problem(2048, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    RS_ASSERT_REL(rs_sim_timeout(&p, NULL), 10 * (0.3 + 2048.0 * 2048.0 * 132.4e-6), 1e-12);
}

RS_TEST_PROGRAM("sim_estimate")
