/* test_ring_fold.c - a single ring folded by its rotation symmetry (sim/ring_fold.c): where it folds
 * and where it must not, the folded simulation (one rank simulated, replicated) against the full one
 * (--no-fold): makespan, per-step ends, per-rank statistics and every event to 1e-9, also with
 * partial overlap and kernel curves; a folded ring against the walk; the estimate of a folded ring;
 * the check the estimate keeps for the run against the check itself. */
#include <string.h>

#include "model_fixtures.h"
#include "ring_fold.h"
#include "sim.h"
#include "sim_fixtures.h"
#include "test_main.h"

/* One run of p on m under cfg, its events sorted into *tr (NULL: no trace). */
static void run_one(const rs_problem_t *p, const rs_machine_t *m, const rs_sim_config_t *cfg, rs_trace_t **tr, rs_sim_result_t *out) {
    rs_err_t err = {0};
    rs_schedule_t *s = schedule_of(*p);
    if (tr) *tr = rs_trace_create("sim");
    const int rc = rs_sim_run(s, m, cfg, tr ? *tr : NULL, out, &err);
    if (rc != 0) fprintf(stderr, "  rs_sim_run: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    if (tr) rs_trace_sort(*tr);
    rs_schedule_free(s);
}

/* The folded run equals the full one: figures, steps and (with trace) events to 1e-9 relative. */
static void compare(const rs_sim_result_t *f, const rs_sim_result_t *u, const rs_trace_t *tf, const rs_trace_t *tu, const char *what) {
    RS_ASSERT_REL(f->fig.makespan_s, u->fig.makespan_s, 1e-9);
    RS_ASSERT_REL(f->fig.t_comp_max_s, u->fig.t_comp_max_s, 1e-9);
    RS_ASSERT_REL(f->fig.t_comm_max_s, u->fig.t_comm_max_s, 1e-9);
    RS_ASSERT_REL(f->fig.busy_max_s, u->fig.busy_max_s, 1e-9);
    RS_ASSERT_REL(f->fig.busy_mean_s, u->fig.busy_mean_s, 1e-9);
    RS_ASSERT_REL(f->fig.balance_efficiency, u->fig.balance_efficiency, 1e-9);
    RS_ASSERT_REL(f->fig.fraction_of_peak, u->fig.fraction_of_peak, 1e-9);
    CU_ASSERT_EQUAL(f->fig.flops_useful, u->fig.flops_useful);
    CU_ASSERT_EQUAL(f->fig.flops_exec, u->fig.flops_exec);
    CU_ASSERT_EQUAL(f->fig.comm_bound_steps, u->fig.comm_bound_steps);
    CU_ASSERT_EQUAL(f->fig.rank_steps, u->fig.rank_steps);
    CU_ASSERT_EQUAL_FATAL(f->n_steps, u->n_steps);
    int bad = 0;
    for (int64_t k = 0; k < f->n_steps; k++)
        bad += fabs(f->step_end_s[k] - u->step_end_s[k]) > 1e-9 * u->fig.makespan_s ||
               fabs(f->step_max_s[k] - u->step_max_s[k]) > 1e-9 * u->fig.makespan_s;
    CU_ASSERT_EQUAL(bad, 0);
    if (tf && tu) CU_ASSERT_EQUAL(compare_traces(tu, tf, 1e-9 * u->fig.makespan_s, what), 0);
}

/* p on m folded and with --no-fold; the fold applied (copies N) iff folds; both results equal. */
static void check_fold(const rs_problem_t *p, const rs_machine_t *m, const rs_sim_config_t *base, bool trace, bool folds) {
    char what[128];
    snprintf(what, sizeof what, "N=%lld %s %s %s%s", (long long)p->n_ranks, rs_layout_name(p->layout), rs_pass_name(p->pass),
             p->causal ? "causal" : "full", trace ? " trace" : "");
    rs_sim_config_t cfg = *base, nofold = *base;
    nofold.no_fold = true;
    rs_trace_t *tf = NULL, *tu = NULL;
    rs_sim_result_t f, u;
    run_one(p, m, &cfg, trace ? &tf : NULL, &f);
    run_one(p, m, &nofold, trace ? &tu : NULL, &u);
    if (f.fold_copies != (folds ? p->n_ranks : 1)) fprintf(stderr, "  %s: fold_copies %lld\n", what, (long long)f.fold_copies);
    CU_ASSERT_EQUAL(f.fold_copies, folds ? p->n_ranks : 1);
    CU_ASSERT_EQUAL(u.fold_copies, 1);
    CU_ASSERT_EQUAL(f.engine, RS_SIM_ENGINE_FAST);
    if (folds) CU_ASSERT(f.activities < u.activities); /* one rank's activities, not N's */
    compare(&f, &u, tf, tu, what);
    rs_trace_free(tf);
    rs_trace_free(tu);
    rs_sim_result_free(&f);
    rs_sim_result_free(&u);
}

static rs_machine_t flat(void) { return machine(F_H100, W_NVL, 2e-6, 0, 0, 0); }

/* Whether the rs_ring_fold_copies check folds p on m under cfg. */
static int64_t copies_of(rs_problem_t p, const rs_machine_t *m, const rs_sim_config_t *cfg) {
    rs_schedule_t *s = schedule_of(p);
    const int64_t c = rs_ring_fold_copies(s, m, cfg);
    rs_schedule_free(s);
    return c;
}

/* Every rank of a non-causal ring computes a full B x B block a step and passes the same bytes on:
 * folds on every layout. A causal contiguous ring's rank p computes the diagonal at step 0 and
 * full blocks at steps 1..p only (rank 0 only the diagonal), a striped one's diagonal offset
 * depends on whether the block came from a lower rank: neither folds. A causal zigzag rank holds
 * chunks p and 2N - 1 - p: rank 0's blocks after step 0 always come from a higher rank j (its
 * second chunk against both of j's), rank p's from a lower one at steps 1..p (both its chunks
 * against j's first): two (B/2)^2 half-blocks either way, the same FLOPs and executed tiles, so on
 * these dense figures it folds (on kernel curves it need not: test_kernel_curves). */
static bool expect_folds(const rs_problem_t *p) { return !p->causal || p->layout == RS_LAYOUT_ZIGZAG; }

RS_TEST(test_sweep, "sweep") {
    const rs_machine_t m = flat();
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    const int64_t ns[] = {2, 3, 4, 5, 8, 16};
    const rs_layout_t layouts[] = {RS_LAYOUT_CONTIGUOUS, RS_LAYOUT_STRIPED, RS_LAYOUT_ZIGZAG};
    const rs_pass_t passes[] = {RS_PASS_FORWARD, RS_PASS_BACKWARD};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (int causal = 0; causal < 2; causal++)
            for (size_t l = 0; l < 3; l++)
                for (size_t q = 0; q < 2; q++) {
                    const rs_problem_t p = problem(ns[a], 2048, layouts[l], passes[q], causal);
                    check_fold(&p, &m, &cfg, true, expect_folds(&p));
                    if (ns[a] == 3 || ns[a] == 8) check_fold(&p, &m, &cfg, false, expect_folds(&p));
                }
}

/* A folded ring with its transfers slower than its compute (comm-bound: the hop paces the ring) and
 * the all-pairs platform (a route through the sender's up and the receiver's down link) still
 * equals the full run. */
RS_TEST(test_comm_bound_and_all_pairs, "comm_bound_and_all_pairs") {
    rs_machine_t m = machine(F_H100, 5e9, 20e-6, 0, 0, 0);
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    const rs_problem_t p = problem(8, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, false);
    check_fold(&p, &m, &cfg, true, true);
    cfg.routes = RS_PLATFORM_ALL_PAIRS;
    check_fold(&p, &m, &cfg, true, true);
    /* one device per node: every hop crosses nodes on its NIC, all alike */
    m = machine(F_H100, W_NVL, 2e-6, 1, W_IB, 5e-6);
    rs_sim_config_default(&cfg);
    check_fold(&p, &m, &cfg, true, true);
}

/* What breaks the symmetry, or the engine the fold needs: no fold, and the run still correct. */
RS_TEST(test_no_fold, "no_fold") {
    const rs_problem_t p = problem(8, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    const rs_machine_t m0 = flat();
    CU_ASSERT_EQUAL(copies_of(p, &m0, &cfg), 8);
    rs_machine_t m = m0; /* one straggler */
    m.perturb.n_stragglers = 1;
    m.perturb.straggler_rank[0] = 3;
    m.perturb.straggler_factor[0] = 1.5;
    CU_ASSERT_EQUAL(copies_of(p, &m, &cfg), 1);
    check_fold(&p, &m, &cfg, true, false);
    m = m0; /* jitter: every (rank, step) its own factor */
    m.jitter = 0.1;
    CU_ASSERT_EQUAL(copies_of(p, &m, &cfg), 1);
    m = m0; /* one degraded hop */
    m.perturb.n_degraded = 1;
    m.perturb.degraded_hop[0] = 5;
    m.perturb.degraded_factor[0] = 2;
    CU_ASSERT_EQUAL(copies_of(p, &m, &cfg), 1);
    check_fold(&p, &m, &cfg, false, false);
    m = machine(F_H100, W_NVL, 2e-6, 4, W_IB, 5e-6); /* nodes of 4: hops 3 and 7 cross nodes, the others don't */
    CU_ASSERT_EQUAL(copies_of(p, &m, &cfg), 1);
    check_fold(&p, &m, &cfg, false, false);
    m = m0; /* compute slowdown is not folded (the actor engine runs it) */
    m.cal.comp_slowdown = 1.5;
    CU_ASSERT_EQUAL(copies_of(p, &m, &cfg), 1);
    rs_sim_config_t c = cfg; /* the actor engine, --no-fold, a job */
    c.engine = RS_SIM_ENGINE_REFERENCE;
    CU_ASSERT_EQUAL(copies_of(p, &m0, &c), 1);
    c = cfg;
    c.no_fold = true;
    CU_ASSERT_EQUAL(copies_of(p, &m0, &c), 1);
    c = cfg;
    c.platform_path = "platform.xml";
    CU_ASSERT_EQUAL(copies_of(p, &m0, &c), 1);
    /* N = 1: nothing to fold */
    CU_ASSERT_EQUAL(copies_of(problem(1, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false), &m0, &cfg), 1);
    /* the causal rings of the sweep, by the check itself */
    CU_ASSERT_EQUAL(copies_of(problem(8, 2048, RS_LAYOUT_STRIPED, RS_PASS_FORWARD, true), &m0, &cfg), 1);
    CU_ASSERT_EQUAL(copies_of(problem(8, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_BACKWARD, true), &m0, &cfg), 1);
}

/* The folded ring against the critical-path walk (model/4-cost/cost.h, its own implementation):
 * makespan, every event, the counts. */
RS_TEST(test_folded_equals_walk, "folded_equals_walk") {
    const rs_machine_t m = flat();
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    const rs_problem_t p = problem(16, 2048, RS_LAYOUT_STRIPED, RS_PASS_BACKWARD, false);
    sim_pair_t r;
    CU_ASSERT_EQUAL_FATAL(run_pair(&p, &m, &cfg, &r), 0);
    CU_ASSERT_EQUAL(r.sim.fold_copies, 16);
    RS_ASSERT_REL(r.sim.fig.makespan_s, r.walk.makespan_s, 1e-9);
    CU_ASSERT_EQUAL(compare_traces(r.wt, r.st, 1e-9 * r.walk.makespan_s, "folded vs walk"), 0);
    CU_ASSERT_EQUAL(r.sim.fig.rank_steps, r.walk.rank_steps);
    CU_ASSERT_EQUAL(r.sim.fig.flops_exec, r.walk.flops_exec);
    RS_ASSERT_REL(r.sim.fig.busy_mean_s, r.walk.busy_mean_s, 1e-9);
    pair_free(&r);
}


/* On kernel curves with the flash-attn preset a causal zigzag step is not the same calls on every
 * rank - rank 0's steps after the first are one call of its second query chunk against the whole
 * block, rank p's steps 1..p its two query chunks against the block's first half - so the costs
 * differ and it must not fold; a non-causal ring still does (one B x B call everywhere). With the
 * dense figures (--impl none) the causal zigzag folds again. Folded or not, the runs agree. */
RS_TEST(test_kernel_curves, "kernel_curves") {
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    const rs_machine_t fa = rs_test_kernel_machine(RS_IMPL_FLASH_ATTN, 2e-6), dense = rs_test_kernel_machine(RS_IMPL_NONE, 2e-6);
    for (int pass = 0; pass < 2; pass++) {
        const rs_problem_t zz = problem(8, 2048, RS_LAYOUT_ZIGZAG, (rs_pass_t)pass, true);
        const rs_problem_t full = problem(8, 2048, RS_LAYOUT_ZIGZAG, (rs_pass_t)pass, false);
        CU_ASSERT_EQUAL(copies_of(zz, &fa, &cfg), 1);
        CU_ASSERT_EQUAL(copies_of(zz, &dense, &cfg), 8);
        check_fold(&zz, &fa, &cfg, true, false);
        check_fold(&full, &fa, &cfg, true, true);
        check_fold(&zz, &dense, &cfg, true, true);
    }
}

/* The --max-time estimate of a ring the run folds: one rank's 512 steps in the child (30.05 us each
 * and 0.3 s of start) and 0.1 us per rank-step of the whole ring for the check; unfolded (a causal
 * contiguous ring, or --no-fold) 512^2 rank-steps at 30 us + 0.05 us x 512 each. Memory: 16 MB, one
 * rank's 24 KB and 16 bytes a step; with a trace, 300 bytes per event kept (4 a rank-step). */
RS_TEST(test_estimate, "estimate") {
    const rs_machine_t m = flat();
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    const rs_problem_t p = problem(512, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    rs_estimate_t e;
    rs_sim_estimate(&p, &m, &cfg, RS_EST_NO_TRACE, &e);
    CU_ASSERT_DOUBLE_EQUAL(e.rank_steps, 512.0 * 512, 0);
    RS_ASSERT_REL(e.time_s, 0.3 + 512 * 30.05e-6 + 512.0 * 512 * 0.1e-6, 1e-12);
    RS_ASSERT_REL(e.mem_bytes, 16e6 + 24e3 + 512 * 16, 1e-12);
    rs_sim_estimate(&p, &m, &cfg, RS_EST_TRACE, &e);
    RS_ASSERT_REL(e.mem_bytes, 16e6 + 24e3 + 512 * 16 + 512.0 * 512 * 300, 1e-12);
    const double whole_s = 0.3 + 512.0 * 512 * (30e-6 + 0.05e-6 * 512);
    cfg.no_fold = true;
    rs_sim_estimate(&p, &m, &cfg, RS_EST_NO_TRACE, &e);
    RS_ASSERT_REL(e.time_s, whole_s, 1e-12);
    cfg.no_fold = false;
    const rs_problem_t causal = problem(512, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, true);
    rs_sim_estimate(&causal, &m, &cfg, RS_EST_NO_TRACE, &e);
    RS_ASSERT_REL(e.time_s, whole_s, 1e-12);
    rs_sim_estimate(&p, NULL, &cfg, RS_EST_NO_TRACE, &e); /* no machine: unfolded */
    RS_ASSERT_REL(e.time_s, whole_s, 1e-12);
}

/* Partial overlap folds: every rank's incoming hop runs at eta while it computes, the representative's
 * hop 0 while it computes (rank 1's, by the symmetry). eta 0.5 and 0 (run as 1e-12) on a
 * transfer-bound flat ring, and polled progress (an overlap curve, a host cost, two poll panels and a
 * poll curve: each receiver's eta from its own step's polls), against the full runs. */
RS_TEST(test_partial_overlap, "partial_overlap") {
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    rs_machine_t m = machine(F_H100, 20e9, 3e-6, 0, 0, 0);
    const double etas[] = {0.5, 0};
    for (int i = 0; i < 2; i++) {
        m.cal.overlap = etas[i];
        for (int pass = 0; pass < 2; pass++) {
            const rs_problem_t full = problem(8, 2048, RS_LAYOUT_STRIPED, (rs_pass_t)pass, false);
            const rs_problem_t zz = problem(5, 1024, RS_LAYOUT_ZIGZAG, (rs_pass_t)pass, true);
            check_fold(&full, &m, &cfg, true, true);
            check_fold(&zz, &m, &cfg, true, true);
        }
    }
    m = poll_machine(false);
    for (int pass = 0; pass < 2; pass++) {
        const rs_problem_t full = problem(8, 2048, RS_LAYOUT_CONTIGUOUS, (rs_pass_t)pass, false);
        check_fold(&full, &m, &cfg, true, true);
        const rs_problem_t causal = problem(8, 2048, RS_LAYOUT_STRIPED, (rs_pass_t)pass, true);
        check_fold(&causal, &m, &cfg, false, false);
    }
    /* the all-pairs platform: the hop's link is the sender's nvl0-up */
    m = machine(F_H100, 20e9, 3e-6, 0, 0, 0);
    m.cal.overlap = 0.3;
    cfg.routes = RS_PLATFORM_ALL_PAIRS;
    const rs_problem_t full = problem(8, 2048, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, false);
    check_fold(&full, &m, &cfg, true, true);
}

/* The check kept in cfg->folds (the estimate's, reused by the run) against the check itself
 * (rs_ring_fold_copies_check): the same answer for every problem and machine of test_no_fold's, the
 * check run once per equal (problem, machine) - a problem made again field by field, the machine
 * the same bytes -, again for a changed machine or problem at the same address, and the config's
 * gates (--no-fold, the actor engine, a user platform) read on every call. The estimate then the
 * run, as `ringsim sim` calls them: one check, the run folded. */
RS_TEST(test_kept_check, "kept_check") {
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.folds = rs_sim_folds_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(cfg.folds);
    rs_sim_config_t plain;
    rs_sim_config_default(&plain);
    rs_machine_t m = flat(), m0;
    memcpy(&m0, &m, sizeof m); /* the same bytes, padding included (a new flat()'s padding may differ) */
    const rs_problem_t p = problem(8, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    const rs_problem_t causal = problem(8, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, true);
    rs_schedule_t *s = schedule_of(p), *sc = schedule_of(causal);
    CU_ASSERT_EQUAL(rs_ring_fold_copies(s, &m, &cfg), 8);
    CU_ASSERT_EQUAL(sim_folds_ring_checks(cfg.folds), 1);
    CU_ASSERT_EQUAL(copies_of(problem(8, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false), &m, &cfg), 8); /* another schedule */
    CU_ASSERT_EQUAL(sim_folds_ring_checks(cfg.folds), 1);
    CU_ASSERT_EQUAL(rs_ring_fold_copies(sc, &m, &cfg), 1); /* another problem: checked */
    CU_ASSERT_EQUAL(rs_ring_fold_copies(sc, &m, &cfg), rs_ring_fold_copies_check(sc, &m, &plain));
    CU_ASSERT_EQUAL(sim_folds_ring_checks(cfg.folds), 2);
    m.perturb.n_stragglers = 1; /* the same machine changed: checked again */
    m.perturb.straggler_rank[0] = 3;
    m.perturb.straggler_factor[0] = 1.5;
    CU_ASSERT_EQUAL(rs_ring_fold_copies(s, &m, &cfg), 1);
    CU_ASSERT_EQUAL(rs_ring_fold_copies_check(s, &m, &plain), 1);
    CU_ASSERT_EQUAL(sim_folds_ring_checks(cfg.folds), 3);
    m = flat();
    m.jitter = 0.1;
    CU_ASSERT_EQUAL(rs_ring_fold_copies(s, &m, &cfg), 1);
    m = machine(F_H100, W_NVL, 2e-6, 4, W_IB, 5e-6);
    CU_ASSERT_EQUAL(rs_ring_fold_copies(s, &m, &cfg), 1);
    CU_ASSERT_EQUAL(sim_folds_ring_checks(cfg.folds), 5);
    memcpy(&m, &m0, sizeof m); /* back to the first: kept */
    CU_ASSERT_EQUAL(rs_ring_fold_copies(s, &m, &cfg), 8);
    CU_ASSERT_EQUAL(sim_folds_ring_checks(cfg.folds), 5);
    rs_sim_config_t c = cfg; /* the gates: kept answers never outlive them */
    c.no_fold = true;
    CU_ASSERT_EQUAL(rs_ring_fold_copies(s, &m, &c), 1);
    c = cfg;
    c.engine = RS_SIM_ENGINE_REFERENCE;
    CU_ASSERT_EQUAL(rs_ring_fold_copies(s, &m, &c), 1);
    c = cfg;
    c.platform_path = "platform.xml";
    CU_ASSERT_EQUAL(rs_ring_fold_copies(s, &m, &c), 1);
    CU_ASSERT_EQUAL(sim_folds_ring_checks(cfg.folds), 5);
    rs_schedule_free(s);
    rs_schedule_free(sc);
    rs_sim_folds_free(cfg.folds);

    /* the estimate, then the run: one check between them, the run folded as without the kept one */
    rs_sim_config_default(&cfg);
    cfg.folds = rs_sim_folds_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(cfg.folds);
    const rs_problem_t q = problem(16, 2048, RS_LAYOUT_STRIPED, RS_PASS_BACKWARD, false);
    rs_estimate_t e;
    rs_sim_estimate(&q, &m, &cfg, RS_EST_NO_TRACE, &e);
    CU_ASSERT_EQUAL(sim_folds_ring_checks(cfg.folds), 1);
    rs_sim_result_t kept, own;
    run_one(&q, &m, &cfg, NULL, &kept);
    run_one(&q, &m, &plain, NULL, &own);
    CU_ASSERT_EQUAL(sim_folds_ring_checks(cfg.folds), 1);
    CU_ASSERT_EQUAL(kept.fold_copies, 16);
    CU_ASSERT_EQUAL(own.fold_copies, 16);
    CU_ASSERT_EQUAL(kept.fig.makespan_s, own.fig.makespan_s);
    rs_sim_result_free(&kept);
    rs_sim_result_free(&own);
    rs_sim_folds_free(cfg.folds);
}

RS_TEST_PROGRAM("ring_fold")
