/* test_job_child.c - a job's books in the simulation child and their meaning in the parent
 * (sim/job_child.c): concurrent rings on generated fabrics against closed forms (docs/sim.md,
 * "Contention"), and the 'J' record read back.
 *
 * Every check runs SimGrid's exact network model (CM02, TCP-gamma 0, no cross-traffic) and compares
 * with a hand-derived value or with the critical-path walk of the ring as placed, with the bandwidth
 * the closed form predicts for its node-crossing hops, to 1e-9:
 *   R rings sharing one NIC               -> the hop at W / R
 *   K NICs shared by G devices' rings     -> W K / G
 *   every ring across a 2:1 spine         -> W / 2
 *   rails, right placement                -> no slowdown; wrong placement -> W / oversubscription
 *   one ring, no background               -> the walk (and the one-ring simulator) step by step
 * plus byte conservation on links (the routes SimGrid computes: test_fabric.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost.h"
#include "job_child.h"
#include "sim.h"
#include "sim_fixtures.h"
#include "sim_pipe.h"
#include "test_main.h"

/* Every ring ends at the walk with its node-crossing hops at W x share, every such hop achieves
 * W x share (mean and worst step), every NVLink hop its full bandwidth. */
static void check_share(const rs_problem_t *p, const rs_machine_t *m, const rs_job_t *j, double share, const char *what) {
    rs_sim_result_t r;
    CU_ASSERT_EQUAL_FATAL(run_job(p, m, j, &r), 0);
    const rs_job_result_t *jr = r.job;
    CU_ASSERT_PTR_NOT_NULL_FATAL(jr);
    CU_ASSERT_EQUAL(jr->n_rings, j->placement.n_rings);
    for (int64_t k = 0; k < jr->n_rings; k++) {
        RS_ASSERT_REL(jr->rings[k].makespan_s, placed_walk(p, m, j, k, W_IB * share), 1e-9);
        RS_ASSERT_REL(jr->rings[k].walk_makespan_s, placed_walk(p, m, j, k, W_IB), 1e-12);
    }
    int bad = 0;
    for (int64_t h = 0; h < jr->n_hops; h++) {
        const rs_hop_result_t *hp = &jr->hops[h];
        if (hp->bytes <= 0) continue;
        const double want = hp->inter ? W_IB * share : W_NVL;
        if (fabs(hp->bytes / hp->flow_s - want) > 1e-9 * want || fabs(hp->min_bw - want) > 1e-9 * want) {
            if (bad++ < 3)
                fprintf(stderr, "  %s: hop %lld of ring %lld: %.17g B/s (worst step %.17g), want %.17g\n", what,
                        (long long)hp->rank, (long long)hp->ring, hp->bytes / hp->flow_s, hp->min_bw, want);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    rs_sim_result_free(&r);
}

/* check_share on a job of 8 rings (TP 8, one replica) placed by order on fab. */
static void check_job_share(const rs_problem_t *p, const rs_machine_t *m, const rs_dim_t *order, test_fabric_t fab, double share,
                            const char *what) {
    rs_job_t j = grid_job(m, p, 8, 1, order, fab);
    check_share(p, m, &j, share, what);
    rs_job_free(&j);
}

/* ------------------------------------------------------------------------------------------------
 * One ring, no background: the walk
 * ---------------------------------------------------------------------------------------------- */
static void one_ring(const rs_problem_t *p, const rs_machine_t *m, rs_fabric_kind_t kind, const char *what) {
    /* one node per leaf; a 4:1 leaf-spine uplink still has room for one ring (4 x 8 NICs x W / 4 >= W),
     * a rail leaf's holds one NIC port: 1:1 */
    rs_job_t j = grid_job(m, p, 1, 1, TP_CP_DP, (test_fabric_t){kind, 0, 1, kind == RS_FABRIC_RAIL ? 1 : 4});
    rs_sim_result_t r, one;
    CU_ASSERT_EQUAL_FATAL(run_job(p, m, &j, &r), 0);
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(p, &err);
    rs_walk_t w;
    CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, m, RS_NO_SINK, NULL, &w, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_sim_run(s, m, NULL, NULL, &one, &err), 0);
    rs_schedule_free(s);
    RS_ASSERT_REL(r.fig.makespan_s, w.makespan_s, 1e-9);
    RS_ASSERT_REL(r.job->rings[0].walk_makespan_s, w.makespan_s, 1e-12);
    RS_ASSERT_REL(r.job->rings[0].slowdown, 1, 1e-9);
    CU_ASSERT_EQUAL(r.fig.rank_steps, w.rank_steps);
    CU_ASSERT_EQUAL(r.fig.flops_exec, w.flops_exec);
    CU_ASSERT_EQUAL(r.fig.comm_bound_steps, w.comm_bound_steps);
    RS_ASSERT_REL(r.fig.busy_max_s, w.busy_max_s, 1e-9);
    int bad = 0;
    for (int64_t k = 0; k < r.n_steps; k++)
        if (fabs(r.step_end_s[k] - one.step_end_s[k]) > 1e-9 * w.makespan_s ||
            fabs(r.step_max_s[k] - one.step_max_s[k]) > 1e-9 * w.makespan_s)
            if (bad++ < 3)
                fprintf(stderr, "  %s: step %lld ends %.17g (one-ring sim %.17g)\n", what, (long long)k, r.step_end_s[k],
                        one.step_end_s[k]);
    CU_ASSERT_EQUAL(bad, 0);
    rs_sim_result_free(&r);
    rs_sim_result_free(&one);
    rs_job_free(&j);
}

RS_TEST_SUITE("contention")
RS_TEST(test_one_ring_is_the_walk, "one_ring_is_the_walk") {
    /* 16 ranks on nodes of 8 (two node-crossing hops), every layout, pass, mask, both regimes
     * (NVLink-bound B = 256, compute-bound B = 4096), with latencies, on each fabric */
    for (int k = 0; k < RS_FABRIC_COUNT; k++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int pass = 0; pass < RS_PASS_COUNT; pass++)
                for (int c = 0; c < 2; c++)
                    for (int bi = 0; bi < 2; bi++) {
                        rs_machine_t m = nodes_of(8, 2e-6, 5e-6);
                        rs_problem_t p = problem(16, bi ? 4096 : 256, (rs_layout_t)l, (rs_pass_t)pass, c);
                        char what[128];
                        snprintf(what, sizeof what, "%s %s %s %s B=%d", rs_fabric_kind_name((rs_fabric_kind_t)k),
                                 rs_layout_name(p.layout), rs_pass_name(p.pass), c ? "causal" : "full", bi ? 4096 : 256);
                        one_ring(&p, &m, (rs_fabric_kind_t)k, what);
                    }
}

RS_TEST(test_one_ring_realism, "one_ring_realism") {
    /* launch, jitter, a straggler; then compute slowdown while a hop is in flight */
    for (int v = 0; v < 2; v++)
        for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
            rs_machine_t m = nodes_of(4, 2e-6, 6e-6);
            if (v == 0) {
                m.cal.launch_s = 4e-6;
                m.jitter = 0.3;
                m.seed = 7;
                m.perturb.n_stragglers = 1;
                m.perturb.straggler_rank[0] = 5;
                m.perturb.straggler_factor[0] = 1.5;
            } else {
                m.cal.comp_slowdown = 1.4;
            }
            rs_problem_t p = problem(12, 1024, RS_LAYOUT_ZIGZAG, (rs_pass_t)pass, true);
            one_ring(&p, &m, RS_FABRIC_LEAF_SPINE, v ? "slowdown" : "launch+jitter+straggler");
        }
}

/* ------------------------------------------------------------------------------------------------
 * Closed forms of shared links
 * ---------------------------------------------------------------------------------------------- */
/* R = 8 rings (TP 8 inside a node, CP across 4 nodes) whose node-crossing hops share the node's
 * single NIC: each at W / 8; K NICs shared by G = 8 devices' rings: W K / 8. Both passes (the
 * backward puts two flows on each hop: 16 on a NIC, the hop still gets its 1/8). */
RS_TEST(test_shared_nics, "shared_nics") {
    rs_machine_t m = nodes_of(8, 2e-6, 5e-6);
    const int64_t ks[] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++)
        for (int pass = 0; pass < RS_PASS_COUNT; pass++)
            for (int c = 0; c < 2; c++) {
                rs_problem_t p = problem(4, 2048, RS_LAYOUT_ZIGZAG, (rs_pass_t)pass, c);
                char what[64];
                snprintf(what, sizeof what, "K=%lld %s %s", (long long)ks[i], rs_pass_name(p.pass), c ? "causal" : "full");
                check_job_share(&p, &m, TP_CP_DP, (test_fabric_t){RS_FABRIC_FLAT, ks[i], 0, 1}, (double)ks[i] / 8, what);
            }
}

/* Every ring crosses the spine (one node per leaf): a 2:1 spine halves the node-crossing hop, 4:1
 * quarters it; with two nodes per leaf half of the NICs send across, and a 2:1 uplink has room for
 * them all (no slowdown). */
RS_TEST(test_spine_oversubscription, "spine_oversubscription") {
    rs_machine_t m = nodes_of(8, 2e-6, 5e-6);
    static const struct {
        int64_t nodes_per_leaf;
        double oversub, share;
        const char *what;
    } cases[] = {{1, 2, 0.5, "2:1 spine"}, {1, 4, 0.25, "4:1 spine"}, {2, 2, 1, "2:1 spine, half the NICs across"}};
    for (int pass = 0; pass < RS_PASS_COUNT; pass++)
        for (int i = 0; i < 3; i++) {
            rs_problem_t p = problem(4, 2048, RS_LAYOUT_ZIGZAG, (rs_pass_t)pass, true);
            const test_fabric_t fab = {RS_FABRIC_LEAF_SPINE, 8, cases[i].nodes_per_leaf, cases[i].oversub};
            check_job_share(&p, &m, TP_CP_DP, fab, cases[i].share, cases[i].what);
        }
}

/* Rail-optimised, spine 2:1: TP inside the node and CP across nodes keeps every ring on its rail (no
 * slowdown at all); CP inside the node puts each ring's node-crossing hops from rail 7 to rail 0,
 * through the spine: those hops at W / 2, the NVLink hops untouched. */
RS_TEST(test_rails, "rails") {
    rs_machine_t m = nodes_of(8, 2e-6, 5e-6);
    for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
        rs_problem_t p = problem(16, 1024, RS_LAYOUT_ZIGZAG, (rs_pass_t)pass, true);
        rs_job_t right = grid_job(&m, &p, 8, 1, TP_CP_DP, (test_fabric_t){RS_FABRIC_RAIL, 8, 16, 2});
        check_share(&p, &m, &right, 1, "rails, TP inside nodes");
        rs_sim_result_t r;
        CU_ASSERT_EQUAL_FATAL(run_job(&p, &m, &right, &r), 0);
        for (int64_t k = 0; k < r.job->n_rings; k++) RS_ASSERT_REL(r.job->rings[k].slowdown, 1, 1e-9);
        for (int64_t i = 0; i < r.job->n_links; i++) CU_ASSERT_PTR_NULL(strstr(r.job->links[i].name, "leaf0-up"));
        rs_sim_result_free(&r);
        rs_job_free(&right);
        check_job_share(&p, &m, CP_TP_DP, (test_fabric_t){RS_FABRIC_RAIL, 8, 16, 2}, 0.5, "rails, CP inside nodes");
    }
}

/* The saturated link and byte conservation: 8 rings through one NIC per node saturate the NICs, not
 * the half-used leaf uplinks; every link carries exactly the bytes of the hops routed through it. */
RS_TEST(test_links, "links") {
    rs_machine_t m = nodes_of(8, 2e-6, 5e-6);
    rs_problem_t p = problem(4, 2048, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    rs_job_t j = grid_job(&m, &p, 8, 1, TP_CP_DP, (test_fabric_t){RS_FABRIC_LEAF_SPINE, 1, 2, 1});
    rs_sim_result_t r;
    CU_ASSERT_EQUAL_FATAL(run_job(&p, &m, &j, &r), 0);
    const rs_job_result_t *jr = r.job;
    const int64_t sat = rs_job_saturated_link(jr);
    CU_ASSERT_FATAL(sat >= 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(jr->links[sat].name, "nic"));
    RS_ASSERT_REL(rs_link_busy_util(&jr->links[sat]), 1, 1e-9);
    for (int64_t i = 0; i < jr->n_links; i++) {
        double bytes = 0;
        for (int64_t h = 0; h < jr->n_hops; h++)
            for (int k = 0; k < jr->hops[h].n_route; k++)
                if (jr->hops[h].route[k] == i) bytes += jr->hops[h].bytes;
        RS_ASSERT_REL(jr->links[i].bytes, bytes, 1e-12);
        CU_ASSERT(rs_link_busy_util(&jr->links[i]) <= 1 + 1e-9);
        /* a leaf of 2 nodes x 1 NIC: uplink 2 W, one node's 8 rings across at W / 8 each */
        if (strstr(jr->links[i].name, "leaf")) RS_ASSERT_REL(rs_link_busy_util(&jr->links[i]), 0.5, 1e-9);
    }
    for (int64_t h = 0; h < jr->n_hops; h++) CU_ASSERT(jr->hops[h].bottleneck >= 0 && strstr(jr->links[jr->hops[h].bottleneck].name, "nic"));
    rs_sim_result_free(&r);
    rs_job_free(&j);
}

/* Rings of different shapes sharing NICs unevenly (a map file; nodes of 4, one NIC each): flows start
 * at different times and rates change, so no closed form, but max-min fairness bounds every flow
 * below by min over its links of capacity / (flows on it): node 0's NIC carries at most 3 flows each
 * way, the others 2. Each ring ends between its contention-free walk and the walk with every
 * node-crossing hop at W / 3. */
RS_TEST(test_uneven_bounds, "uneven_bounds") {
    char path[] = "/tmp/ringsim-test-map-XXXXXX";
    sim_tmp_file(path, "0 4 8 2\n1 5 6 7\n3 9 10 11\n");
    rs_machine_t m = nodes_of(4, 2e-6, 5e-6);
    for (int l = 0; l < RS_LAYOUT_COUNT; l++)
        for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
            rs_problem_t p = problem(4, 1024, (rs_layout_t)l, (rs_pass_t)pass, true);
            rs_job_t j;
            memset(&j, 0, sizeof j);
            rs_err_t err = {0};
            CU_ASSERT_EQUAL_FATAL(rs_placement_load_map(path, 4, 0, &j.placement, &err), 0);
            rs_fabric_default(&j.fabric, &m, j.placement.devices, rs_machine_flops_eff(&m, 1024));
            j.fabric.nics_per_node = 1;
            rs_sim_result_t r;
            CU_ASSERT_EQUAL_FATAL(run_job(&p, &m, &j, &r), 0);
            bool slowed = false;
            for (int64_t k = 0; k < 3; k++) {
                const double lo = placed_walk(&p, &m, &j, k, W_IB), hi = placed_walk(&p, &m, &j, k, W_IB / 3);
                CU_ASSERT(r.job->rings[k].makespan_s >= lo * (1 - 1e-12));
                CU_ASSERT(r.job->rings[k].makespan_s <= hi * (1 + 1e-12));
                slowed |= r.job->rings[k].makespan_s > lo * (1 + 1e-6);
            }
            CU_ASSERT(slowed); /* the NICs are shared: somebody waits */
            rs_sim_result_free(&r);
            rs_job_free(&j);
        }
    unlink(path);
}

RS_TEST_SUITE("record")
/* ------------------------------------------------------------------------------------------------
 * The 'J' record
 * ---------------------------------------------------------------------------------------------- */
/* The books of two rings of 2 kept by hand (no SimGrid: a rank's route to itself has no link), written
 * as the child does and read back by the parent's collector: ring ends, every hop's bytes, flowing
 * time from the later step start to the send's end, lowest per-step bandwidth (0 when nothing
 * moved), no links, no background. */
RS_TEST(test_record, "record") {
    rs_machine_t m = nodes_of(4, 0, 0);
    rs_problem_t p = problem(2, 512, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    rs_job_t j = grid_job(&m, &p, 2, 1, TP_CP_DP, (test_fabric_t){RS_FABRIC_FLAT, 0, 0, 1});
    CU_ASSERT_EQUAL_FATAL(rs_jc_init(&j, NULL, RS_PASS_FORWARD, 2), 0);
    for (int64_t g = 0; g < 4; g++) rs_jc_rank_route(g, NULL, NULL);
    /* step 0: ranks start at 0 and 1e-6 (ring 0), 0 and 0 (ring 1); step 1 at 1e-5 */
    rs_jc_step_start(0, 0, 0), rs_jc_step_start(1, 0, 1e-6), rs_jc_step_start(2, 0, 0), rs_jc_step_start(3, 0, 0);
    rs_jc_hop_done(0, 0, 0, 5e-6, 4e3);    /* flows from 1e-6 (rank 1's start): 4e3 B in 4 us = 1e9 B/s */
    rs_jc_hop_done(1, 0, 1e-6, 3e-6, 4e3); /* from 1e-6: 2 us, 2e9 B/s */
    rs_jc_hop_done(2, 0, 0, 8e-6, 8e3);    /* 8 us, 1e9 B/s */
    for (int64_t g = 0; g < 4; g++) rs_jc_step_start(g, 1, 1e-5);
    rs_jc_hop_done(0, 1, 1e-5, 1.2e-5, 4e3); /* 2 us: 2e9 B/s */
    rs_jc_hop_done(3, 1, 1e-5, 1e-5, 4e3);   /* no time flowing: not counted */
    rs_jc_rank_end(0, 2e-5), rs_jc_rank_end(1, 2.5e-5), rs_jc_rank_end(3, 1.5e-5);
    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(rs_jc_write(f), 0);
    CU_ASSERT_EQUAL_FATAL(fflush(f), 0);
    CU_ASSERT_EQUAL_FATAL(lseek(fileno(f), 0, SEEK_SET), 0);
    rs_sim_result_t out;
    memset(&out, 0, sizeof out);
    sim_collected_t c;
    memset(&c, 0, sizeof c);
    sim_collect(fileno(f), 2, NULL, NULL, &out, &c);
    fclose(f);
    CU_ASSERT(!c.io_bad && !c.oom);
    const rs_job_result_t *r = out.job;
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT(r->n_rings == 2 && r->n_hops == 4 && r->n_links == 0 && r->n_bg == 0);
    CU_ASSERT(r->rings[0].makespan_s == 2.5e-5 && r->rings[1].makespan_s == 1.5e-5 && r->makespan_s == 2.5e-5);
    const double bytes[4] = {8e3, 4e3, 8e3, 0}, flow[4] = {6e-6, 2e-6, 8e-6, 0}, min_bw[4] = {1e9, 2e9, 1e9, 0};
    for (int h = 0; h < 4; h++) {
        RS_ASSERT_REL(r->hops[h].bytes, bytes[h], 1e-12);
        RS_ASSERT_REL(r->hops[h].flow_s, flow[h], 1e-12);
        RS_ASSERT_REL(r->hops[h].min_bw, min_bw[h], 1e-12);
        CU_ASSERT(r->hops[h].latency_s == 0 && r->hops[h].n_route == 0);
    }
    rs_sim_result_free(&out);
    rs_job_free(&j);
}

/* ------------------------------------------------------------------------------------------------
 * The activity engine against the actor engine
 * ---------------------------------------------------------------------------------------------- */
/* The job on both engines: the activity engine ran, and every ring's makespan, hop's bytes, flow
 * time and worst bandwidth (to 1e-9 of its nominal), link's bytes, busy time and flows, collective's
 * end agree to 1e-12. */
static void check_job_engines(const rs_problem_t *p, const rs_machine_t *m, const rs_job_t *j, const char *what) {
    rs_sim_result_t a, b;
    run_job_on(p, m, j, RS_SIM_ENGINE_FAST, false, &a);
    run_job_on(p, m, j, RS_SIM_ENGINE_REFERENCE, false, &b);
    CU_ASSERT_EQUAL(a.engine, RS_SIM_ENGINE_FAST);
    CU_ASSERT_EQUAL(b.engine, RS_SIM_ENGINE_REFERENCE);
    const rs_job_result_t *x = a.job, *y = b.job;
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(y);
    RS_ASSERT_REL(a.fig.makespan_s, b.fig.makespan_s, 1e-12);
    RS_ASSERT_REL(a.fig.busy_max_s, b.fig.busy_max_s, 1e-12);
    CU_ASSERT_EQUAL(a.fig.rank_steps, b.fig.rank_steps);
    CU_ASSERT_EQUAL(a.fig.comm_bound_steps, b.fig.comm_bound_steps);
    CU_ASSERT_EQUAL_FATAL(x->n_rings, y->n_rings);
    CU_ASSERT_EQUAL_FATAL(x->n_hops, y->n_hops);
    CU_ASSERT_EQUAL_FATAL(x->n_links, y->n_links);
    CU_ASSERT_EQUAL_FATAL(x->n_bg, y->n_bg);
    int bad = 0;
    for (int64_t k = 0; k < x->n_rings; k++) bad += fabs(x->rings[k].makespan_s - y->rings[k].makespan_s) > 1e-12 * y->makespan_s;
    for (int64_t h = 0; h < x->n_hops; h++)
        bad += fabs(x->hops[h].bytes - y->hops[h].bytes) > 1e-12 * y->hops[h].bytes ||
               fabs(x->hops[h].flow_s - y->hops[h].flow_s) > 1e-12 * y->makespan_s ||
               fabs(x->hops[h].min_bw - y->hops[h].min_bw) > 1e-9 * y->hops[h].nominal_bw;
    for (int64_t l = 0; l < x->n_links; l++) { /* in the order each engine found them: by name */
        const rs_link_result_t *u = &x->links[l], *v = NULL;
        for (int64_t i = 0; i < y->n_links && !v; i++)
            if (!strcmp(y->links[i].name, u->name)) v = &y->links[i];
        bad += !v || fabs(u->bytes - v->bytes) > 1e-12 * v->bytes || fabs(u->busy_s - v->busy_s) > 1e-12 * y->makespan_s ||
               u->flows != v->flows;
    }
    for (int64_t c = 0; c < x->n_bg; c++) bad += fabs(x->bg[c].end_s - y->bg[c].end_s) > 1e-12 * y->bg[c].end_s;
    if (bad) fprintf(stderr, "  %s: %d figures differ between the engines\n", what, bad);
    CU_ASSERT_EQUAL(bad, 0);
    rs_sim_result_free(&a);
    rs_sim_result_free(&b);
}

RS_TEST_SUITE("contention_engines")
/* Rings on shared NICs behind a 2:1 spine with the DP all-reduce, rails with rings placed across
 * rails, the FSDP collectives on one NIC with the ring, both passes: the same books on both engines. */
RS_TEST(test_job_engines_agree, "engines_agree (the activity engine's books = the actor engine's)") {
    static const struct {
        int64_t g, n, b, tp, dp;
        bool causal, across_rails;
        test_fabric_t fab;
        rs_bg_kind_t bg;
        double bg_bytes;
        const char *what;
    } cases[] = {
        {8, 8, 4096, 8, 2, true, false, {RS_FABRIC_LEAF_SPINE, 2, 4, 2}, RS_BG_DP, 109e6, "leaf-spine 2:1, 2 NICs, dp"},
        {8, 8, 4096, 8, 1, true, true, {RS_FABRIC_RAIL, 8, 1, 4}, RS_BG_NONE, 0, "rail, rings across rails"},
        {1, 4, 2048, 1, 1, false, false, {RS_FABRIC_FLAT, 1, 0, 1}, RS_BG_FSDP, 8e6, "fsdp on the ring's NIC"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
            const rs_machine_t m = nodes_of(cases[c].g, 2e-6, 5e-6);
            const rs_problem_t p = problem(cases[c].n, cases[c].b, cases[c].causal ? RS_LAYOUT_ZIGZAG : RS_LAYOUT_CONTIGUOUS,
                                           (rs_pass_t)pass, cases[c].causal);
            rs_job_t j = grid_job(&m, &p, cases[c].tp, cases[c].dp, cases[c].across_rails ? CP_TP_DP : TP_CP_DP, cases[c].fab);
            j.background.kind = cases[c].bg;
            j.background.param_bytes = j.background.grad_bytes = cases[c].bg_bytes;
            check_job_engines(&p, &m, &j, cases[c].what);
            rs_job_free(&j);
        }
}

RS_TEST_MAIN(.suite = NULL)
