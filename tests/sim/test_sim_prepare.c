/* test_sim_prepare.c - the platform of a run, made ready in the parent (sim/sim_prepare.c): a
 * generated ring platform written into a temporary folder (and --platform-out), a job's fabric
 * only into --platform-out (its child builds it), with the text the writers make, their descriptions and host maps, the folder removed on release;
 * a user's platform and host map taken as given, refused with the checker's and the reader's
 * messages (bad input). No simulation runs. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabric.h"
#include "platform.h"
#include "sim_fixtures.h"
#include "sim_prepare.h"
#include "test_main.h"

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

RS_TEST(test_generated, "generated") {
    rs_schedule_t *s = schedule_of(problem(4, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true));
    rs_machine_t m = machine(F_H100, W_NVL, 3e-6, 2, W_IB, 5e-6);
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.routes = RS_PLATFORM_ALL_PAIRS;
    cfg.platform_out = sim_tmp_path("out.xml");
    sim_platform_t pl;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(sim_prepare_platform(s, &m, &cfg, NULL, 1, &pl, &err), 0);
    CU_ASSERT(is_dir(pl.tmpdir));
    char want[4200];
    snprintf(want, sizeof want, "%s/platform.xml", pl.tmpdir);
    CU_ASSERT_STRING_EQUAL(pl.path, want);
    char desc[512];
    CU_ASSERT_STRING_EQUAL(pl.desc, rs_platform_describe(&m, 4, desc, sizeof desc));
    char *expect = platform_text(&(rs_platform_spec_t){&m, 4, 1024, RS_PLATFORM_ALL_PAIRS, 0});
    char *got = rs_test_slurp(pl.path, NULL), *out = rs_test_slurp(cfg.platform_out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_STRING_EQUAL(got, expect);
    CU_ASSERT_STRING_EQUAL(out, expect);
    CU_ASSERT_EQUAL_FATAL(pl.hm.n_ranks, 4);
    for (int r = 0; r < 4; r++) {
        snprintf(want, sizeof want, "gpu%d", r);
        CU_ASSERT_STRING_EQUAL(pl.hm.host[r], want);
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", pl.tmpdir);
    sim_platform_release(&pl);
    CU_ASSERT(!is_dir(dir));
    CU_ASSERT_EQUAL(pl.tmpdir[0], 0);
    CU_ASSERT_PTR_NULL(pl.hm.host);
    free(expect);
    free(got);
    free(out);
    unlink(cfg.platform_out);
    rs_schedule_free(s);
}

/* A job: rank actor g on host gpu<device g>, the fabric's description; its platform file only where
 * --platform-out asks for it (the child builds the fabric in SimGrid). */
RS_TEST(test_job, "job") {
    rs_machine_t m = nodes_of(4, 0, 0);
    rs_problem_t p = problem(4, 512, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    rs_job_t j = grid_job(&m, &p, 2, 1, TP_CP_DP, (test_fabric_t){RS_FABRIC_LEAF_SPINE, 2, 1, 2});
    rs_sim_config_t cfg = job_config(&j);
    cfg.platform_out = sim_tmp_path("job_out.xml");
    rs_schedule_t *s = schedule_of(p);
    sim_platform_t pl;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(sim_prepare_platform(s, &m, &cfg, NULL, 1, &pl, &err), 0);
    CU_ASSERT_EQUAL_FATAL(pl.hm.n_ranks, 8);
    CU_ASSERT_NOT_EQUAL(access(pl.path, F_OK), 0); /* no file for the child */
    /* tp innermost: ring t's rank c (actor g = 4 t + c) on device t + 2 c */
    for (int g = 0; g < 8; g++) {
        char want[16];
        snprintf(want, sizeof want, "gpu%d", g / 4 + 2 * (g % 4));
        CU_ASSERT_STRING_EQUAL(pl.hm.host[g], want);
    }
    char desc[512];
    CU_ASSERT_STRING_EQUAL(pl.desc, rs_fabric_describe(&j.fabric, desc, sizeof desc));
    char *got = rs_test_slurp(cfg.platform_out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "<zone id=\"fabric\" routing=\"DijkstraCache\">"));
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "<host id=\"gpu7\" "));
    free(got);
    unlink(cfg.platform_out);
    sim_platform_release(&pl);
    rs_job_free(&j);
    rs_schedule_free(s);
}

/* A user's platform: taken as given (no folder), its ranks on gpu<p> or as the host map says; a
 * malformed platform, a missing one, a bad host map: bad input with the checker's, the reader's
 * message. */
RS_TEST(test_user, "user") {
    rs_schedule_t *s = schedule_of(problem(2, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true));
    rs_machine_t m = machine(F_H100, W_NVL, 0, 0, 0, 0);
    char *plat = sim_tmp_path("user.xml"), *map = sim_tmp_path("user.map");
    write_text(plat, "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n"
                     "<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>\n</zone></platform>\n");
    write_text(map, "1 a\n0 b\n");
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.platform_path = plat;
    sim_platform_t pl;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(sim_prepare_platform(s, &m, &cfg, NULL, 1, &pl, &err), 0);
    CU_ASSERT_STRING_EQUAL(pl.path, plat);
    CU_ASSERT_STRING_EQUAL(pl.desc, plat);
    CU_ASSERT_EQUAL(pl.tmpdir[0], 0);
    CU_ASSERT_STRING_EQUAL(pl.hm.host[1], "gpu1");
    sim_platform_release(&pl);
    cfg.hostmap_path = map;
    CU_ASSERT_EQUAL_FATAL(sim_prepare_platform(s, &m, &cfg, NULL, 1, &pl, &err), 0);
    CU_ASSERT_STRING_EQUAL(pl.hm.host[0], "b");
    CU_ASSERT_STRING_EQUAL(pl.hm.host[1], "a");
    CU_ASSERT_EQUAL(pl.hm.line[0], 2);
    sim_platform_release(&pl);
    char want[1200];
    write_text(map, "0 a\n0 b\n");
    CU_ASSERT_EQUAL(sim_prepare_platform(s, &m, &cfg, NULL, 1, &pl, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    snprintf(want, sizeof want, "%s:2: rank 0 already mapped at line 1", map);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    write_text(plat, "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n"
                     "<host id=\"a\" speed=\"0f\"/>\n</zone></platform>\n");
    rs_err_clear(&err);
    CU_ASSERT_EQUAL(sim_prepare_platform(s, &m, &cfg, NULL, 1, &pl, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    snprintf(want, sizeof want, "%s:4: <host id=\"a\"> speed=\"0f\": a rate (speed, bandwidth) must be > 0", plat);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    unlink(plat);
    rs_err_clear(&err);
    CU_ASSERT_EQUAL(sim_prepare_platform(s, &m, &cfg, NULL, 1, &pl, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, plat));
    unlink(map);
    rs_schedule_free(s);
}

RS_TEST_PROGRAM("sim_prepare")
