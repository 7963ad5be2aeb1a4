/* test_job_report.c - what a planner reads from a simulated job (cli/job_report.c): the rings', hops'
 * and links' CSV tables of a hand-made result of one ring of 2 ranks on one shared link, every value
 * a power of two so that each cell is exact in decimal. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "job_opts.h"
#include "test_main.h"

#ifdef RINGSIM_HAVE_SIM
static rs_ring_result_t ring = {0.0625, 0.03125, 2, 1, 1, 0.5};
static rs_hop_result_t hops[2];
static rs_link_result_t link = {"nic0-up", 34359738368.0, 1073741824.0, 0.03125, 2};
static rs_job_result_t result;
static rs_sim_result_t sim;
static rs_problem_t problem;
static rs_cli_job_entry_t entry;

static void make_result(void) {
    /* hop 0 at its nominal 2^36 B/s (2^30 bytes in 2^-6 s), hop 1 at half of it through the link */
    hops[0] = (rs_hop_result_t){0, 0, 0, 1, false, 68719476736.0, 0x1p-20, 1073741824.0, 0.015625, 34359738368.0, 0, {0}, -1};
    hops[1] = (rs_hop_result_t){0, 1, 1, 0, true, 68719476736.0, 0x1p-19, 1073741824.0, 0.03125, 17179869184.0, 1, {0}, 0};
    result = (rs_job_result_t){.n_rings = 1, .n_hops = 2, .n_links = 1, .rings = &ring, .hops = hops, .links = &link,
                               .makespan_s = 0.0625};
    sim.job = &result, sim.sim_wall_s = 0.5, sim.peak_rss_bytes = 4096, sim.fold_copies = 8; /* a fold's copies */
    rs_problem_default(&problem);
    problem.seq_tokens = 8192, problem.n_ranks = 2, problem.layout = RS_LAYOUT_ZIGZAG, problem.pass = RS_PASS_FORWARD;
    entry = (rs_cli_job_entry_t){&problem, &sim};
}

RS_TEST(test_tables, "rings, hops and links tables of a hand-made job") {
    CU_ASSERT_EQUAL_FATAL(rs_test_scratch("job_report"), 0);
    make_result();
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_cli_job_write_rings(rs_test_path("rings.csv"), &entry, 1, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_cli_job_write_hops(rs_test_path("hops.csv"), &entry, 1, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_cli_job_write_links(rs_test_path("links.csv"), &entry, 1, &err), 0);
    rs_test_expect_text(rs_test_path("rings.csv"),
                        "layout,pass,block_tokens,ring,makespan_s,walk_makespan_s,slowdown,inter_hops,worst_hop,worst_ratio,"
                        "sim_wall_s,peak_rss_bytes,fold_copies\n"
                        "zigzag,forward,4096,0,0.0625,0.03125,2,1,1,0.5,0.5,4096,8\n");
    /* achieved = bytes / flow time; ratio = achieved / nominal; the bottleneck by name */
    rs_test_expect_text(rs_test_path("hops.csv"),
                        "layout,pass,ring,rank,src_device,dst_device,inter,nominal_bw,achieved_bw,min_step_bw,ratio,bytes,"
                        "flow_s,latency_s,bottleneck\n"
                        "zigzag,forward,0,0,0,1,0,68719476736,68719476736,34359738368,1,1073741824,0.015625,9.5367431640625e-07,\n"
                        "zigzag,forward,0,1,1,0,1,68719476736,34359738368,17179869184,0.5,1073741824,0.03125,1.9073486328125e-06,"
                        "nic0-up\n");
    /* busy_util = 2^30 / (2^35 x 2^-5) = 1; mean_util over the 2^-4 s makespan = 0.5 */
    rs_test_expect_text(rs_test_path("links.csv"),
                        "layout,pass,link,capacity_bw,bytes,busy_s,busy_util,mean_util,flows\n"
                        "zigzag,forward,nic0-up,34359738368,1073741824,0.03125,1,0.5,2\n");
    /* two entries: each table lists both */
    rs_cli_job_entry_t two[2] = {entry, entry};
    CU_ASSERT_EQUAL_FATAL(rs_cli_job_write_links(rs_test_path("links2.csv"), two, 2, &err), 0);
    rs_test_expect_text(rs_test_path("links2.csv"),
                        "layout,pass,link,capacity_bw,bytes,busy_s,busy_util,mean_util,flows\n"
                        "zigzag,forward,nic0-up,34359738368,1073741824,0.03125,1,0.5,2\n"
                        "zigzag,forward,nic0-up,34359738368,1073741824,0.03125,1,0.5,2\n");
    CU_ASSERT_EQUAL(rs_cli_job_write_rings(rs_test_path("no/dir/r.csv"), &entry, 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no/dir/r.csv"));
    rs_test_cleanup();
}

RS_TEST_PROGRAM("job report")
#else
RS_TEST_SKIPPED("no SimGrid in this build")
#endif
