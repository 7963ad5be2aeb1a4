/* test_job_fold.c - a job folded by its symmetry (sim/job_fold.c): the folds found on small jobs
 * worked out by hand, the ones the checks must refuse, and the folded simulation against the full
 * one (every ring, hop, link and collective to 1e-9, on the activity engine with and without the
 * fold, both passes, with the background collectives). */
#include <string.h>

#include "job_fold.h"
#include "sim.h"
#include "sim_fixtures.h"
#include "test_main.h"

/* The 16,384-GPU benchmark's shape at dp 4 (256 devices on 32 nodes of 8, a NIC per device on its
 * rail, rail leaves of 4 nodes, 2:1 spine), rings of 8 ranks = 8 nodes on one rail. */
static rs_job_t rail_job(const rs_machine_t *m, const rs_problem_t *p, int64_t dp) {
    rs_job_t j = grid_job(m, p, 8, dp, TP_CP_DP, (test_fabric_t){RS_FABRIC_RAIL, 8, 4, 2});
    j.background = (rs_background_t){.kind = RS_BG_DP, .group = RS_BG_GROUP_DP_CP, .param_bytes = 54e6, .grad_bytes = 109e6};
    return j;
}

/* Rail job, tp 8 x cp 8 x dp 4: ring (t, d) sits on rail t, nodes 8d .. 8d + 7; shifting by one
 * device inside the node moves it to the next rail, by 8 nodes to the next replica, and the DP
 * all-reduce (8 groups of 32: rail t of every node) moves with it. Nothing smaller is a symmetry: 4
 * nodes split a ring. So s = 1, T = 8: 8 x 4 = 32 copies of ring 0 (devices 0, 8, .., 56) and of
 * the members on rail 0 of nodes 0-7. Links fold by node mod 8 and NIC mod 1: nic29.5-up (node 29,
 * NIC 5) onto nic5.0-up; rail leaf 61 (group 7 = node 29 / 4, rail 5) onto leaf 8 (group 7 mod 2 = 1,
 * rail 0); nvl<d> onto the device's image: device 29 x 8 + 5 = 237 onto 5 x 8 = 40. */
/* The fold of job j in pass: its periods, copies and simulated rings (f kept for more checks). */
static void expect_fold(const rs_job_t *j, rs_pass_t pass, int64_t s, int64_t t, int64_t copies, int64_t rings, rs_job_fold_t *f) {
    CU_ASSERT_EQUAL_FATAL(rs_job_fold(j, pass, f), 0);
    CU_ASSERT_EQUAL(f->rail_period, s);
    CU_ASSERT_EQUAL(f->node_period, t);
    CU_ASSERT_EQUAL(f->copies, copies);
    CU_ASSERT_EQUAL_FATAL(f->n_rings, rings);
}

/* A causal zigzag job of rings of `ranks` at 2K tokens a rank, on nodes of g devices (NVLink 2 us,
 * NIC 5 us latency), tp x cp x dp on fabric fab. */
static rs_job_t zigzag_job(int64_t g, int64_t ranks, rs_pass_t pass, int64_t tp, int64_t dp, test_fabric_t fab) {
    const rs_machine_t m = nodes_of(g, 2e-6, 5e-6);
    const rs_problem_t p = problem(ranks, 2048, RS_LAYOUT_ZIGZAG, pass, true);
    return grid_job(&m, &p, tp, dp, TP_CP_DP, fab);
}

/* expect_fold, then the fold and the job freed (a job checked for its fold only). */
static void expect_fold_only(rs_job_t *j, rs_pass_t pass, int64_t s, int64_t t, int64_t copies, int64_t rings) {
    rs_job_fold_t f;
    expect_fold(j, pass, s, t, copies, rings, &f);
    rs_job_fold_free(&f);
    rs_job_free(j);
}

RS_TEST(test_rail_shape, "rail_shape") {
    const rs_machine_t m = nodes_of(8, 2e-6, 5e-6);
    const rs_problem_t p = problem(8, 2048, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    rs_job_t j = rail_job(&m, &p, 4);
    rs_job_fold_t f;
    expect_fold(&j, RS_PASS_BACKWARD, 1, 8, 32, 1, &f);
    CU_ASSERT_EQUAL(f.ring[0], 0);
    int bad = 0;
    for (int64_t r = 0; r < j.placement.n_rings; r++) bad += f.ring_sim[r] != 0;
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f.slot_sim);
    /* group t (rail t, 32 members: node n's device t) member n onto group 0's member n mod 8: group 1's
     * member 5 (slot 37) and group 5's member 29 (slot 189, device 237) onto slot 5 */
    CU_ASSERT_EQUAL(f.slot_sim[37], 5);
    CU_ASSERT_EQUAL(f.slot_sim[5 * 32 + 29], 5);
    CU_ASSERT_EQUAL(rs_job_fold_device(&j.fabric, &f, 237), 40);
    rs_flink_t l = rs_job_fold_link(&j.fabric, &f, (rs_flink_t){RS_FLINK_NIC_UP, 29 * 8 + 5});
    CU_ASSERT(l.kind == RS_FLINK_NIC_UP && l.index == 5 * 8);
    l = rs_job_fold_link(&j.fabric, &f, (rs_flink_t){RS_FLINK_LEAF_UP, 61});
    CU_ASSERT(l.kind == RS_FLINK_LEAF_UP && l.index == 8);
    l = rs_job_fold_link(&j.fabric, &f, (rs_flink_t){RS_FLINK_NVL_UP, 237});
    CU_ASSERT(l.kind == RS_FLINK_NVL_UP && l.index == 40);
    rs_job_fold_free(&f);
    /* the forward has no all-reduce: the same fold of the rings alone, no slots */
    CU_ASSERT_EQUAL_FATAL(rs_job_fold(&j, RS_PASS_FORWARD, &f), 0);
    CU_ASSERT_EQUAL(f.copies, 32);
    CU_ASSERT_PTR_NULL(f.slot_sim);
    rs_job_fold_free(&f);
    rs_job_free(&j);
}

/* What the checks refuse. Leaf-spine, 2 NICs for 8 devices (4 per NIC), leaves of 4 nodes, tp 8 x cp
 * 8 x dp 2: shifting by 4 devices maps NIC 1's rings onto NIC 0's one to one, but all 8 rings of a
 * replica cross the same leaf uplink, which would hold 4 images: no rail fold (s = G = 8); the
 * replicas fold (T = 8 nodes): 2 copies. One ring of 4 on a flat switch with the FSDP all-gather of
 * every device: the members would fold onto one, but each NIC carries one ring hop and one member,
 * and a fold would put the 4 ring hops and that member on one NIC: nothing folds. */
RS_TEST(test_refused, "refused") {
    rs_job_t j = zigzag_job(8, 8, RS_PASS_BACKWARD, 8, 2, (test_fabric_t){RS_FABRIC_LEAF_SPINE, 2, 4, 2});
    j.background = (rs_background_t){.kind = RS_BG_DP, .group = RS_BG_GROUP_DP_CP, .param_bytes = 109e6, .grad_bytes = 109e6};
    expect_fold_only(&j, RS_PASS_BACKWARD, 8, 8, 2, 8);

    const rs_machine_t m1 = nodes_of(1, 0, 5e-6);
    const rs_problem_t q = problem(4, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    j = grid_job(&m1, &q, 1, 1, TP_CP_DP, (test_fabric_t){RS_FABRIC_FLAT, 1, 0, 1});
    j.background = (rs_background_t){.kind = RS_BG_FSDP, .group = RS_BG_GROUP_DP_CP, .param_bytes = 8e6, .grad_bytes = 8e6};
    expect_fold_only(&j, RS_PASS_FORWARD, 1, 4, 1, 1);
}

/* cfg->folds: each pass's fold computed once, the one rs_job_fold finds (the same rings, the same
 * images), handed back at every later call; another job's call empties it first; a run after the
 * estimate with it agrees exactly with a run computing its own fold. */
RS_TEST(test_folds_kept, "folds_kept") {
    const rs_machine_t m = nodes_of(8, 2e-6, 5e-6);
    const rs_problem_t p = problem(8, 2048, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    rs_job_t j = rail_job(&m, &p, 4), k = rail_job(&m, &p, 2);
    rs_sim_config_t cfg = job_config(&j);
    cfg.folds = rs_sim_folds_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(cfg.folds);
    rs_job_fold_t own, ref;
    const rs_job_fold_t *a = rs_job_fold_of(&cfg, RS_PASS_BACKWARD, &own);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NULL(own.ring); /* the cache's, not the caller's */
    CU_ASSERT_PTR_EQUAL(rs_job_fold_of(&cfg, RS_PASS_BACKWARD, &own), a);
    CU_ASSERT_EQUAL_FATAL(rs_job_fold(&j, RS_PASS_BACKWARD, &ref), 0);
    CU_ASSERT(a->copies == 32 && a->node_period == ref.node_period && a->rail_period == ref.rail_period && a->n_rings == ref.n_rings);
    CU_ASSERT_EQUAL(memcmp(a->ring_sim, ref.ring_sim, sizeof *ref.ring_sim * (size_t)j.placement.n_rings), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a->slot_sim);
    CU_ASSERT_EQUAL(memcmp(a->slot_sim, ref.slot_sim, sizeof *ref.slot_sim * 256), 0);
    rs_job_fold_free(&ref);
    const rs_job_fold_t *fw = rs_job_fold_of(&cfg, RS_PASS_FORWARD, &own); /* the forward's: no slots */
    CU_ASSERT(fw && fw != a && fw->copies == 32 && !fw->slot_sim);
    cfg.job = &k; /* dp 2: 16 copies */
    const rs_job_fold_t *b = rs_job_fold_of(&cfg, RS_PASS_BACKWARD, &own);
    CU_ASSERT(b && b->copies == 16);
    cfg.job = &j;
    rs_estimate_t e;
    rs_sim_estimate(&p, NULL, &cfg, RS_EST_NO_TRACE, &e);
    rs_sim_result_t x, y;
    CU_ASSERT_EQUAL_FATAL(run_job_cfg(&p, &m, &cfg, &x), 0);
    run_job_on(&p, &m, &j, RS_SIM_ENGINE_FAST, false, &y);
    CU_ASSERT(x.fold_copies == 32 && y.fold_copies == 32);
    CU_ASSERT(x.fig.makespan_s == y.fig.makespan_s && x.fig.busy_max_s == y.fig.busy_max_s && x.activities == y.activities);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x.job);
    CU_ASSERT_PTR_NOT_NULL_FATAL(y.job);
    CU_ASSERT(x.job->n_links == y.job->n_links && x.job->bg[0].end_s == y.job->bg[0].end_s);
    rs_sim_result_free(&x);
    rs_sim_result_free(&y);
    rs_sim_folds_free(cfg.folds);
    rs_job_free(&j);
    rs_job_free(&k);
}

/* Two copies of a hop on one link (job_fold.c, covering): leaf-spine, 4 nodes of 2 devices with a
 * NIC each, leaves of 2 nodes; ring A on devices 0 (node 0) and 6 (node 3), ring A' its copy one
 * rail over, on 1 and 7. The rail fold (s = 1, T = 4) maps A' onto A, but leaf 0's uplink carries
 * A's and A''s first hops, two copies of one simulated hop, where the simulated job has one: the
 * count refuses it. Adding the node fold (T = 2, s = 1) would put leaf 1's hops (A's and A''s
 * second) on leaf 0's image too, 2 per uplink as simulated, each of leaf 0's hops still a copy of
 * A's first: a fold the search never tries (its rail fold failed), and the node fold alone (T = 2,
 * s = 2) puts 4 simulated hops on leaf 0's image, where the job has 2 per uplink. Nothing folds. */
RS_TEST(test_copies_on_one_link, "copies_on_one_link") {
    rs_job_t j = zigzag_job(2, 2, RS_PASS_FORWARD, 1, 4, (test_fabric_t){RS_FABRIC_LEAF_SPINE, 2, 2, 1});
    CU_ASSERT_EQUAL_FATAL(j.fabric.devices, 8);
    const int64_t dev[4] = {0, 6, 1, 7};
    j.placement.n_rings = 2;
    memcpy(j.placement.device, dev, sizeof dev);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_job_validate(&j, &err), 0);
    expect_fold_only(&j, RS_PASS_FORWARD, 2, 4, 1, 2);
}

static int differ(double a, double b, double scale) { return !(fabs(a - b) <= 1e-9 * scale); }

/* The folded and the full simulation of one job: the fold took `copies`, and every figure agrees to
 * 1e-9 (counts exactly): the run's totals, every ring's makespan, every hop's books and route, every
 * link in the same order with the same books, every collective's end. */
static void check_folded(const rs_problem_t *p, const rs_machine_t *m, const rs_job_t *j, int64_t copies, const char *what) {
    rs_sim_result_t a, b;
    run_job_on(p, m, j, RS_SIM_ENGINE_FAST, false, &a);
    run_job_on(p, m, j, RS_SIM_ENGINE_FAST, true, &b);
    CU_ASSERT_EQUAL(a.fold_copies, copies);
    CU_ASSERT_EQUAL(b.fold_copies, 1);
    CU_ASSERT_EQUAL(a.engine, RS_SIM_ENGINE_FAST);
    const rs_job_result_t *x = a.job, *y = b.job;
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(y);
    const double t = b.fig.makespan_s;
    int bad = differ(a.fig.makespan_s, t, t) + differ(a.fig.busy_max_s, b.fig.busy_max_s, t) +
              differ(a.fig.busy_mean_s, b.fig.busy_mean_s, t) + differ(a.fig.t_comm_max_s, b.fig.t_comm_max_s, t) +
              (a.fig.rank_steps != b.fig.rank_steps) + (a.fig.comm_bound_steps != b.fig.comm_bound_steps) +
              (a.fig.flops_exec != b.fig.flops_exec) + (a.fig.flops_useful != b.fig.flops_useful);
    for (int64_t k = 0; k < b.n_steps; k++) bad += differ(a.step_end_s[k], b.step_end_s[k], t) + differ(a.step_max_s[k], b.step_max_s[k], t);
    CU_ASSERT_EQUAL_FATAL(x->n_rings, y->n_rings);
    CU_ASSERT_EQUAL_FATAL(x->n_hops, y->n_hops);
    CU_ASSERT_EQUAL_FATAL(x->n_links, y->n_links);
    CU_ASSERT_EQUAL_FATAL(x->n_bg, y->n_bg);
    for (int64_t k = 0; k < x->n_rings; k++)
        bad += differ(x->rings[k].makespan_s, y->rings[k].makespan_s, t) + differ(x->rings[k].slowdown, y->rings[k].slowdown, 1) +
               (x->rings[k].worst_hop != y->rings[k].worst_hop);
    for (int64_t h = 0; h < x->n_hops; h++) {
        const rs_hop_result_t *u = &x->hops[h], *v = &y->hops[h];
        bad += differ(u->bytes, v->bytes, v->bytes) + differ(u->flow_s, v->flow_s, t) + differ(u->min_bw, v->min_bw, v->nominal_bw) +
               differ(u->latency_s, v->latency_s, t) + (u->n_route != v->n_route) + (u->bottleneck != v->bottleneck);
        for (int32_t i = 0; i < u->n_route && i < v->n_route; i++) bad += strcmp(x->links[u->route[i]].name, y->links[v->route[i]].name) != 0;
    }
    for (int64_t l = 0; l < x->n_links; l++) {
        const rs_link_result_t *u = &x->links[l], *v = &y->links[l];
        bad += strcmp(u->name, v->name) != 0 || differ(u->bytes, v->bytes, v->bytes) || differ(u->busy_s, v->busy_s, t) ||
               u->flows != v->flows || u->capacity_bw != v->capacity_bw;
    }
    for (int64_t c = 0; c < x->n_bg; c++)
        bad += differ(x->bg[c].end_s, y->bg[c].end_s, t) + (x->bg[c].groups != y->bg[c].groups) + (x->bg[c].members != y->bg[c].members);
    if (bad) fprintf(stderr, "  %s: %d figures differ between the folded and the full simulation\n", what, bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(a.activities < b.activities || copies == 1);
    rs_sim_result_free(&a);
    rs_sim_result_free(&b);
}

/* Folded = full: the rail shape with the DP all-reduce (32 copies) and with a straggler and jitter
 * (the same on every ring: still 32), the DP groups of one TP and CP rank, the leaf-spine job whose
 * replicas fold (2 copies) with the all-reduce, the FSDP collectives (all-gather and reduce-scatter
 * at once), both passes; the job that does not fold runs whole. */
RS_TEST(test_folded_is_full, "folded_is_full") {
    for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
        const rs_machine_t m = nodes_of(8, 2e-6, 5e-6);
        const rs_problem_t p = problem(8, 2048, RS_LAYOUT_ZIGZAG, (rs_pass_t)pass, true);
        rs_job_t j = rail_job(&m, &p, 4);
        check_folded(&p, &m, &j, 32, "rail, dp all-reduce");
        j.background.group = RS_BG_GROUP_DP;
        check_folded(&p, &m, &j, 32, "rail, dp groups");
        j.background.kind = RS_BG_FSDP;
        j.background.group = RS_BG_GROUP_DP_CP;
        check_folded(&p, &m, &j, 32, "rail, fsdp");
        rs_machine_t ms = m;
        ms.jitter = 0.1;
        ms.seed = 7;
        ms.perturb.n_stragglers = 1;
        ms.perturb.straggler_rank[0] = 3;
        ms.perturb.straggler_factor[0] = 1.5;
        check_folded(&p, &ms, &j, 32, "rail, fsdp, straggler and jitter");
        rs_job_free(&j);

        j = grid_job(&m, &p, 8, 2, TP_CP_DP, (test_fabric_t){RS_FABRIC_LEAF_SPINE, 2, 4, 2});
        j.background = (rs_background_t){.kind = RS_BG_DP, .group = RS_BG_GROUP_DP_CP, .param_bytes = 109e6, .grad_bytes = 109e6};
        check_folded(&p, &m, &j, 2, "leaf-spine, 2 NICs, dp");
        rs_job_free(&j);

        const rs_machine_t m1 = nodes_of(1, 0, 5e-6);
        const rs_problem_t q = problem(4, 2048, RS_LAYOUT_CONTIGUOUS, (rs_pass_t)pass, false);
        j = grid_job(&m1, &q, 1, 1, TP_CP_DP, (test_fabric_t){RS_FABRIC_FLAT, 1, 0, 1});
        j.background = (rs_background_t){.kind = RS_BG_FSDP, .group = RS_BG_GROUP_DP_CP, .param_bytes = 8e6, .grad_bytes = 8e6};
        check_folded(&q, &m1, &j, 1, "flat, fsdp on the ring's NIC");
        rs_job_free(&j);
    }
}

RS_TEST_PROGRAM("job_fold")
