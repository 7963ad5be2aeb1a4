/* test_job.c - jobs of concurrent rings (sim/job.c): placement by degrees and by a map file with
 * their refusals, background collectives sized from a model and grouped, the job's own check, and
 * the link figures of a job's results by hand. No simulation runs (test_job_child.c runs jobs). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"
#include "sim_fixtures.h"
#include "test_main.h"

RS_TEST(test_placement, "placement") {
    rs_placement_t p;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_placement_grid(&(rs_placement_degrees_t){8, 4, 2, TP_CP_DP, 0}, &p, &err), 0);
    CU_ASSERT_EQUAL(p.n_rings, 16);
    CU_ASSERT_EQUAL(p.devices, 64);
    /* ring (t = 3, d = 1) = ring 11: rank c on 3 + 8 c + 32 */
    for (int64_t c = 0; c < 4; c++) CU_ASSERT_EQUAL(p.device[11 * 4 + c], 3 + 8 * c + 32);
    rs_placement_free(&p);
    CU_ASSERT_EQUAL_FATAL(rs_placement_grid(&(rs_placement_degrees_t){8, 4, 2, CP_TP_DP, 0}, &p, &err), 0);
    for (int64_t c = 0; c < 4; c++) CU_ASSERT_EQUAL(p.device[11 * 4 + c], c + 4 * 3 + 32);
    int64_t *mem, *off;
    const int64_t ng = rs_background_groups(&p, RS_BG_GROUP_DP_CP, &mem, &off);
    CU_ASSERT_EQUAL(ng, 8); /* one per TP rank, 8 members each */
    CU_ASSERT_EQUAL(off[1] - off[0], 8);
    free(mem);
    free(off);
    rs_placement_free(&p);
    rs_dim_t o[3];
    CU_ASSERT_EQUAL(rs_placement_order_parse("dp,cp,tp", o, &err), 0);
    CU_ASSERT(o[0] == RS_DIM_DP && o[2] == RS_DIM_TP);
    CU_ASSERT_EQUAL(rs_placement_order_parse("tp-tp-dp", o, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--order"));
}

/* A placement that cannot be made: the degrees against --devices; a map file's devices named twice, a
 * line of another length, a token that is no index, a device out of --devices. */
RS_TEST(test_placement_refused, "placement_refused") {
    rs_placement_t p;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_placement_grid(&(rs_placement_degrees_t){8, 8, 3, TP_CP_DP, 256}, &p, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--devices 256"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "multiply to the device count"));
    char path[] = "/tmp/ringsim-test-map-XXXXXX";
    sim_tmp_file(path, "# two rings of 4\n0 1 2 3\n4 5 2 7\n");
    CU_ASSERT_EQUAL(rs_placement_load_map(path, 4, 0, &p, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ":3: device 2 already holds ring 0 rank 2 (line 2)"));
    CU_ASSERT_EQUAL(rs_placement_load_map(path, 3, 0, &p, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ":2: 4 devices, the ring has -N 3"));
    FILE *fp = fopen(path, "w");
    fputs("0 1 x 3\n", fp);
    fclose(fp);
    CU_ASSERT_EQUAL(rs_placement_load_map(path, 4, 0, &p, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ":1: 'x' is not a device index"));
    fp = fopen(path, "w");
    fputs("0 1 2 3\n4 5 6 7\n", fp);
    fclose(fp);
    CU_ASSERT_EQUAL(rs_placement_load_map(path, 4, 0, &p, &err), 0);
    CU_ASSERT_EQUAL(p.n_rings, 2);
    CU_ASSERT_EQUAL(p.devices, 8);
    CU_ASSERT_EQUAL(p.device[6], 6);
    rs_placement_free(&p);
    CU_ASSERT_EQUAL(rs_placement_load_map(path, 4, 6, &p, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "out of range [0, 6)"));
    unlink(path);
}

/* Sizing from a model: one llama3-8b layer over TP 4, bf16 parameters, fp32 gradients. */
RS_TEST(test_background_size, "background_size") {
    rs_transformer_t t;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_transformer_load("llama3-8b", &t, &err), 0);
    rs_background_t bg;
    memset(&bg, 0, sizeof bg);
    rs_background_size(&bg, &t, 4, 2, 4);
    /* h 4096, q 4096, kv 1024, ffn 14336: 4096 (4096 + 2 1024 + 4096) + 3 4096 14336 = 218103808
     * matmul parameters, 2 x 4096 norms */
    const double per_dev = 218103808.0 / 4 + 8192;
    RS_ASSERT_REL(bg.param_bytes, 2 * per_dev, 1e-15);
    RS_ASSERT_REL(bg.grad_bytes, 4 * per_dev, 1e-15);
    rs_bg_coll_t c[RS_BG_MAX_COLL];
    bg.kind = RS_BG_FSDP;
    CU_ASSERT_EQUAL(rs_background_colls(&bg, RS_PASS_BACKWARD, 8, c), 2);
    CU_ASSERT_EQUAL(c[0].steps, 7);
    CU_ASSERT_EQUAL(c[1].steps, 7);
    bg.kind = RS_BG_DP;
    CU_ASSERT_EQUAL(rs_background_colls(&bg, RS_PASS_FORWARD, 8, c), 0);
    CU_ASSERT_EQUAL(rs_background_colls(&bg, RS_PASS_BACKWARD, 8, c), 1);
    CU_ASSERT_EQUAL(c[0].steps, 14);
    CU_ASSERT_EQUAL(c[0].step_bytes, (uint64_t)ceil(4 * per_dev / 8));
}

/* Background kinds and groups by name; the collectives of each kind and pass for a group of 4 (a
 * group of 1 has none); the groups of a map placement (tp 0: every ring a replica). */
RS_TEST(test_background_colls, "background_colls") {
    rs_bg_kind_t k;
    rs_bg_group_t g;
    CU_ASSERT(rs_bg_kind_parse("fsdp", &k) == 0 && k == RS_BG_FSDP);
    CU_ASSERT_EQUAL(rs_bg_kind_parse("zero", &k), -1);
    CU_ASSERT(rs_bg_group_parse("dp-cp", &g) == 0 && g == RS_BG_GROUP_DP_CP);
    CU_ASSERT_EQUAL(rs_bg_group_parse("tp", &g), -1);
    CU_ASSERT_STRING_EQUAL(rs_bg_kind_name(RS_BG_DP), "dp");
    CU_ASSERT_STRING_EQUAL(rs_bg_group_name(RS_BG_GROUP_DP), "dp");
    CU_ASSERT_STRING_EQUAL(rs_bg_kind_name(RS_BG_COUNT), "?");
    rs_background_t bg = {.kind = RS_BG_FSDP, .param_bytes = 1000, .grad_bytes = 2002};
    rs_bg_coll_t c[RS_BG_MAX_COLL];
    CU_ASSERT_EQUAL_FATAL(rs_background_colls(&bg, RS_PASS_FORWARD, 4, c), 1);
    CU_ASSERT(!strcmp(c[0].name, "all-gather") && c[0].steps == 3 && c[0].step_bytes == 250);
    CU_ASSERT_EQUAL_FATAL(rs_background_colls(&bg, RS_PASS_BACKWARD, 4, c), 2);
    CU_ASSERT(!strcmp(c[1].name, "reduce-scatter") && c[1].steps == 3 && c[1].step_bytes == 501); /* ceil(2002 / 4) */
    bg.kind = RS_BG_DP;
    CU_ASSERT_EQUAL_FATAL(rs_background_colls(&bg, RS_PASS_BACKWARD, 4, c), 1);
    CU_ASSERT(!strcmp(c[0].name, "all-reduce") && c[0].steps == 6 && c[0].step_bytes == 501);
    CU_ASSERT_EQUAL(rs_background_colls(&bg, RS_PASS_BACKWARD, 1, c), 0);
    bg.grad_bytes = 0; /* SimGrid moves at least a byte */
    CU_ASSERT_EQUAL_FATAL(rs_background_colls(&bg, RS_PASS_BACKWARD, 4, c), 1);
    CU_ASSERT_EQUAL(c[0].step_bytes, 1);
    int64_t dev[6] = {5, 0, 3, 4, 1, 2}; /* two rings of 3 from a map */
    rs_placement_t p = {.n_rings = 2, .ring_ranks = 3, .devices = 6, .device = dev};
    int64_t *mem, *off;
    CU_ASSERT_EQUAL_FATAL(rs_background_groups(&p, RS_BG_GROUP_DP, &mem, &off), 3); /* rank c of every ring */
    const int64_t want[6] = {4, 5, 0, 1, 2, 3};
    for (int i = 0; i < 6; i++) CU_ASSERT_EQUAL(mem[i], want[i]);
    for (int i = 0; i <= 3; i++) CU_ASSERT_EQUAL(off[i], 2 * i);
    free(mem);
    free(off);
    CU_ASSERT_EQUAL_FATAL(rs_background_groups(&p, RS_BG_GROUP_DP_CP, &mem, &off), 1); /* every placed device */
    for (int i = 0; i < 6; i++) CU_ASSERT_EQUAL(mem[i], i);
    free(mem);
    free(off);
}

/* The job against itself: each refusal's message. */
RS_TEST(test_validate, "validate") {
    rs_machine_t m = nodes_of(4, 0, 0);
    rs_problem_t p = problem(4, 512, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    rs_job_t j = grid_job(&m, &p, 2, 1, TP_CP_DP, (test_fabric_t){RS_FABRIC_FLAT, 0, 0, 1});
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_job_validate(&j, &err), 0);
    j.fabric.devices = 16;
    CU_ASSERT_EQUAL(rs_job_validate(&j, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "job: the fabric has 16 devices, the placement 8");
    j.fabric.devices = 8;
    j.placement.device[5] = 9;
    CU_ASSERT_EQUAL(rs_job_validate(&j, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "job: ring 1 rank 1 on device 9, outside [0, 8)");
    j.placement.device[5] = 3;
    j.background.kind = RS_BG_DP;
    CU_ASSERT_EQUAL(rs_job_validate(&j, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--background dp: needs a layer size (--model NAME or --bg-bytes SIZE)");
    j.background.param_bytes = j.background.grad_bytes = 1e6;
    CU_ASSERT_EQUAL(rs_job_validate(&j, &err), 0);
    rs_job_free(&j);
    CU_ASSERT_PTR_NULL(j.placement.device);
    rs_job_t none;
    memset(&none, 0, sizeof none);
    CU_ASSERT_EQUAL(rs_job_validate(&none, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "job: no ring placed");
}

/* A link's busy utilisation: bytes / (capacity x busy time); the saturated link: the most loaded
 * (bytes / capacity) of those at utilisation 1. */
RS_TEST(test_link_figures, "link_figures") {
    rs_link_result_t links[3] = {{"nic0.0-up", 50e9, 100e6, 2e-3, 4},  /* 100 MB / (50 GB/s x 2 ms) = 1 */
                                 {"leaf0-up", 100e9, 100e6, 2e-3, 8},  /* 100 MB / (100 GB/s x 2 ms) = 0.5 */
                                 {"nic1.0-up", 25e9, 75e6, 3e-3, 2}};  /* 1, and 3 ms at full rate > 2 ms */
    RS_ASSERT_REL(rs_link_busy_util(&links[0]), 1, 1e-15);
    RS_ASSERT_REL(rs_link_busy_util(&links[1]), 0.5, 1e-15);
    RS_ASSERT_REL(rs_link_busy_util(&links[2]), 1, 1e-15);
    rs_link_result_t idle = {"x", 50e9, 0, 0, 0};
    CU_ASSERT_EQUAL(rs_link_busy_util(&idle), 0);
    rs_job_result_t r = {.n_links = 3, .links = links};
    CU_ASSERT_EQUAL(rs_job_saturated_link(&r), 2);
    r.n_links = 2;
    CU_ASSERT_EQUAL(rs_job_saturated_link(&r), 0);
    links[0].bytes = 90e6; /* 0.9: none saturated */
    CU_ASSERT_EQUAL(rs_job_saturated_link(&r), -1);
}

RS_TEST_PROGRAM("job")
