/* test_job_bg.c - a job's background collectives (sim/job_bg.c) beside its rings, against closed
 * forms: the DP all-reduce beside rings takes 2 (L + (g / 2) / W) and leaves the rings untouched
 * (nothing in the forward); a collective step sharing a ring's NIC with a ring hop ends as processor
 * sharing says; every NIC uplink carries exactly the crossing ring and collective bytes. SimGrid's
 * exact network model (CM02, TCP-gamma 0, no cross-traffic), to 1e-9 or 1e-12. */
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "job_child.h"
#include "sim.h"
#include "sim_fixtures.h"
#include "test_main.h"

/* ------------------------------------------------------------------------------------------------
 * Background traffic
 * ---------------------------------------------------------------------------------------------- */
/* Two rings inside two nodes (CP 8 = G, DP 2) and the data-parallel gradient all-reduce between the
 * nodes (--bg-group dp: device c with device 8 + c): the rings never touch a NIC (the walk exactly),
 * the all-reduce takes 2 steps of L + (g / 2) / W. The forward has no DP traffic. */
RS_TEST(test_background_beside, "beside") {
    rs_machine_t m = nodes_of(8, 2e-6, 5e-6);
    for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
        rs_problem_t p = problem(8, 1024, RS_LAYOUT_ZIGZAG, (rs_pass_t)pass, true);
        rs_job_t j = grid_job(&m, &p, 1, 2, TP_CP_DP, (test_fabric_t){RS_FABRIC_FLAT, 8, 0, 1});
        j.background.kind = RS_BG_DP;
        j.background.group = RS_BG_GROUP_DP;
        j.background.param_bytes = j.background.grad_bytes = 64e6;
        rs_sim_result_t r;
        CU_ASSERT_EQUAL_FATAL(run_job(&p, &m, &j, &r), 0);
        for (int64_t k = 0; k < 2; k++) RS_ASSERT_REL(r.job->rings[k].slowdown, 1, 1e-9);
        if (pass == RS_PASS_FORWARD) {
            CU_ASSERT_EQUAL(r.job->n_bg, 0);
        } else {
            CU_ASSERT_EQUAL_FATAL(r.job->n_bg, 1);
            CU_ASSERT_STRING_EQUAL(r.job->bg[0].name, "all-reduce");
            CU_ASSERT_EQUAL(r.job->bg[0].groups, 8);
            CU_ASSERT_EQUAL(r.job->bg[0].members, 2);
            RS_ASSERT_REL(r.job->bg[0].end_s, 2 * (5e-6 + 32e6 / W_IB), 1e-9);
            RS_ASSERT_REL(r.job->bg[0].bytes, 64e6, 1e-12);
        }
        rs_sim_result_free(&r);
        rs_job_free(&j);
    }
}

/* One ring of 2 ranks across 2 nodes and the FSDP all-gather over the same 2 devices: in step 0 the
 * ring's K,V (a bytes) and the gather's half layer (b bytes) leave each device together on its NIC
 * and share it: the smaller ends at L + 2 min(a, b) / W, the larger at L + (a + b) / W. */
RS_TEST(test_background_shares_the_nic, "shares_the_nic") {
    rs_machine_t m = nodes_of(1, 2e-6, 5e-6);
    rs_problem_t p = problem(2, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    rs_step_t st;
    rs_schedule_step(s, 0, 0, &st);
    const double a = (double)st.send_bytes, tc = rs_machine_comp_time(&m, 2048, 0, 0, st.flops_exec);
    rs_schedule_free(s);
    const double bs[] = {a / 4, 5 * a}; /* whole bytes: a member sends ceil(layer / 2) */
    for (int i = 0; i < 2; i++) {
        const double b = bs[i];
        rs_job_t j = grid_job(&m, &p, 1, 1, TP_CP_DP, (test_fabric_t){RS_FABRIC_FLAT, 1, 0, 1});
        j.background.kind = RS_BG_FSDP;
        j.background.param_bytes = j.background.grad_bytes = 2 * b; /* a member sends half */
        rs_sim_result_t r;
        CU_ASSERT_EQUAL_FATAL(run_job(&p, &m, &j, &r), 0);
        const double ring_x = 5e-6 + (a <= b ? 2 * a : a + b) / W_IB;
        const double bg_x = 5e-6 + (b <= a ? 2 * b : a + b) / W_IB;
        RS_ASSERT_REL(r.job->rings[0].makespan_s, fmax(tc, ring_x) + tc, 1e-9);
        CU_ASSERT_EQUAL_FATAL(r.job->n_bg, 1);
        RS_ASSERT_REL(r.job->bg[0].end_s, bg_x, 1e-9);
        CU_ASSERT(r.job->rings[0].slowdown > 1);
        rs_sim_result_free(&r);
        rs_job_free(&j);
    }
}

/* Rings and a DP all-reduce (dp-cp groups of 16) crossing the same NICs and a 2:1 spine: no link runs
 * above its capacity while it carries anything (busy time is the union of the flows' intervals, which
 * complete out of order), and the NIC uplinks carry exactly the node-crossing bytes of ring hops and
 * collective steps. */
RS_TEST(test_background_link_books, "link_books") {
    rs_machine_t m = nodes_of(8, 2e-6, 5e-6);
    /* compute-bound steps (B = 16K): a rank's send completes well before its step ends */
    rs_problem_t p = problem(8, 16384, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    rs_job_t j = grid_job(&m, &p, 8, 2, TP_CP_DP, (test_fabric_t){RS_FABRIC_LEAF_SPINE, 8, 4, 2});
    j.background.kind = RS_BG_DP;
    j.background.param_bytes = j.background.grad_bytes = 109e6;
    rs_sim_result_t r;
    CU_ASSERT_EQUAL_FATAL(run_job(&p, &m, &j, &r), 0);
    const rs_job_result_t *jr = r.job;
    double nic_up = 0, expect = 0;
    for (int64_t i = 0; i < jr->n_links; i++) {
        CU_ASSERT(rs_link_busy_util(&jr->links[i]) <= 1 + 1e-9);
        if (!strncmp(jr->links[i].name, "nic", 3) && strstr(jr->links[i].name, "-up")) nic_up += jr->links[i].bytes;
    }
    for (int64_t h = 0; h < jr->n_hops; h++)
        if (jr->hops[h].inter) expect += jr->hops[h].bytes;
    int64_t *mem, *off;
    const int64_t ng = rs_background_groups(&j.placement, j.background.group, &mem, &off);
    for (int64_t g = 0; g < ng; g++) {
        const int64_t n = off[g + 1] - off[g];
        rs_bg_coll_t c[RS_BG_MAX_COLL];
        const int nc = rs_background_colls(&j.background, p.pass, n, c);
        for (int64_t i = 0; i < n; i++)
            if (!rs_fabric_same_node(&j.fabric, mem[off[g] + i], mem[off[g] + (i + 1) % n]))
                for (int k = 0; k < nc; k++) expect += (double)c[k].steps * (double)c[k].step_bytes;
    }
    free(mem);
    free(off);
    CU_ASSERT_EQUAL(jr->n_bg, 1);
    RS_ASSERT_REL(nic_up, expect, 1e-12);
    rs_sim_result_free(&r);
    rs_job_free(&j);
}

RS_TEST_PROGRAM("job_bg")
