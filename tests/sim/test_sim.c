/* test_sim.c - rs_sim_run in the parent (sim/sim.c): a user's platform and host map end to end, the
 * settings reaching SimGrid, what the child's end means (its 'X' records, SimGrid's own message at
 * the configuration stage, the watchdog), and the result's helpers.
 *
 * Bad input is -1 with code RS_ERR_BAD_INPUT and a message naming the file and host or route;
 * every simulation runs in its own forked child. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost.h"
#include "platform.h"
#include "sim.h"
#include "sim_fixtures.h"
#include "test_main.h"
#include "harness.h"
#include "trace.h"

RS_TEST_SUITE("sim_platform")
/* ------------------------------------------------------------------------------------------------
 * User platforms and settings
 * ---------------------------------------------------------------------------------------------- */
/* A user platform (the generated one, written to a file) with an explicit hostmap: exact, through the
 * compute-helper path used for user platforms. */
RS_TEST(test_user_platform_hostmap, "user_platform_hostmap_exact") {
    rs_machine_t m = machine(F_H100, W_NVL, 3e-6, 4, 50e9, 5e-6);
    rs_problem_t p = rs_test_problem(8, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    char *plat = sim_tmp_path("user.xml"), *map = sim_tmp_path("user.map");
    rs_err_t err;
    CU_ASSERT_EQUAL_FATAL(rs_platform_write_file(plat, &(rs_platform_spec_t){&m, 8, 1024, RS_PLATFORM_RING, 0}, &err), 0);
    write_text(map, "# rank host\n7 gpu7\n0 gpu0\n1 gpu1\n2 gpu2\n3 gpu3   # comment\n\n4 gpu4\n5 gpu5\n6 gpu6\n");
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.platform_path = plat;
    cfg.hostmap_path = map;
    check_exact(&p, &m, &cfg, "user platform + hostmap");
    m.cal.comp_slowdown = 1.5; /* the helper's rate changes on a user platform */
    check_exact(&p, &m, &cfg, "user platform + hostmap + slowdown");
    unlink(plat);
    unlink(map);
}

/* A SimGrid <cluster> a user would write: a 1-D TORUS of 8 with SPLITDUPLEX links is a ring whose
 * hops are one link each, so with the profile's F, W and latency it reproduces the walk. */
RS_TEST(test_user_torus_cluster, "user_torus_cluster_exact") {
    char *plat = sim_tmp_path("torus.xml"), *map = sim_tmp_path("torus.map");
    write_text(plat, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                     "<platform version=\"4.1\">\n"
                     "  <cluster id=\"ring\" prefix=\"node-\" suffix=\"\" radical=\"0-7\" speed=\"989Tf\" bw=\"450GBps\"\n"
                     "           lat=\"3us\" topology=\"TORUS\" topo_parameters=\"8\" sharing_policy=\"SPLITDUPLEX\"/>\n"
                     "</platform>\n");
    write_text(map, "node-0\nnode-1\nnode-2\nnode-3\nnode-4\nnode-5\nnode-6\nnode-7\n");
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.platform_path = plat;
    cfg.hostmap_path = map;
    rs_machine_t m = machine(F_H100, W_NVL, 3e-6, 0, 0, 0);
    for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
        rs_problem_t p = rs_test_problem(8, 256, RS_LAYOUT_ZIGZAG, (rs_pass_t)pass, true);
        check_exact(&p, &m, &cfg, "user torus cluster");
    }
    unlink(plat);
    unlink(map);
}

/* LV08 (SimGrid's default model) is selectable and is not exact: bandwidth factor 0.97 slows a
 * transfer-bound ring by ~3%. */
RS_TEST(test_network_model_lv08, "network_model_lv08_selectable") {
    rs_problem_t p = rs_test_problem(8, 256, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    rs_machine_t m = machine(F_H100, W_NVL, 0, 0, 0, 0);
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.network_model = "LV08";
    sim_pair_t r;
    CU_ASSERT_EQUAL_FATAL(run_pair(&p, &m, &cfg, &r), 0);
    const double rel = (r.sim.fig.makespan_s - r.walk.makespan_s) / r.walk.makespan_s;
    CU_ASSERT(rel > 0.01 && rel < 0.10);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(r.st, "sim.network_model"), "LV08");
    pair_free(&r);
}

/* ------------------------------------------------------------------------------------------------
 * Bad input: -1 with code RS_ERR_BAD_INPUT, a message naming the file and host or route
 * ---------------------------------------------------------------------------------------------- */
static int run_bad(const rs_sim_config_t *cfg, const rs_machine_t *m, rs_err_t *err) {
    rs_problem_t p = rs_test_problem(4, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    rs_schedule_t *s = rs_schedule_create(&p, err);
    rs_sim_result_t r;
    rs_trace_t *t = rs_trace_create("sim");
    int rc = rs_sim_run(s, m, cfg, t, &r, err);
    rs_sim_result_free(&r);
    rs_trace_free(t);
    rs_schedule_free(s);
    return rc;
}

static void expect_bad(const rs_sim_config_t *cfg, const rs_machine_t *m, const char *needle1, const char *needle2) {
    rs_err_t err = {0};
    int rc = run_bad(cfg, m, &err);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    if (!strstr(err.msg, needle1) || (needle2 && !strstr(err.msg, needle2)))
        fprintf(stderr, "  message '%s' lacks '%s' / '%s'\n", err.msg, needle1, needle2 ? needle2 : "");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, needle1));
    if (needle2) CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, needle2));
}

static const char *PLAT_HEAD = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                               "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n"
                               "<host id=\"a\" speed=\"1e15f\"/><host id=\"b\" speed=\"1e15f\"/>\n"
                               "<host id=\"c\" speed=\"1e15f\"/><host id=\"d\" speed=\"1e15f\"/>\n"
                               "<link id=\"l\" bandwidth=\"1e11Bps\" latency=\"0s\"/>\n";
/* After PLAT_HEAD: routes a -> b -> c -> d, none back to a. */
static const char *PLAT_RING = "<route src=\"a\" dst=\"b\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n"
                               "<route src=\"b\" dst=\"c\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n"
                               "<route src=\"c\" dst=\"d\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n"
                               "</zone></platform>\n";

RS_TEST_SUITE("sim_outcome")
RS_TEST(test_bad_inputs, "bad_inputs") {
    rs_machine_t m = machine(F_H100, W_NVL, 0, 0, 0, 0);
    rs_sim_config_t cfg;
    char *plat = sim_tmp_path("bad.xml"), *map = sim_tmp_path("bad.map"), text[4096];

    /* malformed XML: the file and line */
    snprintf(text, sizeof text, "%s<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route\n</zone></platform>\n", PLAT_HEAD);
    write_text(plat, text);
    rs_sim_config_default(&cfg);
    cfg.platform_path = plat;
    expect_bad(&cfg, &m, plat, NULL);

    /* a mapping naming a host that does not exist: hostmap file:line and the host */
    snprintf(text, sizeof text, "%s%s", PLAT_HEAD, PLAT_RING);
    write_text(plat, text);
    write_text(map, "a\nb\nzz\nd\n");
    cfg.hostmap_path = map;
    char where[600];
    snprintf(where, sizeof where, "%s:3", map);
    expect_bad(&cfg, &m, where, "'zz'");

    /* ranks with no route (d -> a is missing): both hosts and ranks */
    write_text(map, "a\nb\nc\nd\n");
    expect_bad(&cfg, &m, "no route from host 'd' (rank 3) to host 'a' (rank 0)", plat);

    /* no hostmap on a platform without gpu<p> hosts */
    cfg.hostmap_path = NULL;
    expect_bad(&cfg, &m, "no host 'gpu0'", plat);

    /* hostmap syntax: rank out of range, rank twice, rank missing */
    cfg.hostmap_path = map;
    write_text(map, "0 a\n1 b\n9 c\n3 d\n");
    expect_bad(&cfg, &m, "rank 9 out of range", NULL);
    write_text(map, "0 a\n1 b\n1 c\n3 d\n");
    expect_bad(&cfg, &m, "rank 1 already mapped at line 2", NULL);
    write_text(map, "0 a\n1 b\n3 d\n");
    expect_bad(&cfg, &m, "rank 2 is not mapped", NULL);

    /* unknown --cfg key: SimGrid's own message */
    rs_sim_config_default(&cfg);
    const char *bad_key = "network/no-such-key:1";
    cfg.cfg[0] = bad_key;
    cfg.n_cfg = 1;
    expect_bad(&cfg, &m, "Bad config key: network/no-such-key", NULL);

    /* unknown network model: SimGrid's list of valid ones */
    rs_sim_config_default(&cfg);
    cfg.network_model = "NoSuchModel";
    expect_bad(&cfg, &m, "NoSuchModel", "CM02");

    /* eta and sigma together (the walk rejects it too); eta on a user platform */
    rs_sim_config_default(&cfg);
    rs_machine_t mo = m;
    mo.cal.overlap = 0.5;
    mo.cal.comp_slowdown = 1.3;
    expect_bad(&cfg, &mo, "--overlap 0.5 with --slowdown 1.3", NULL);
    mo.cal.comp_slowdown = 1;
    cfg.platform_path = plat;
    cfg.hostmap_path = map;
    expect_bad(&cfg, &mo, "--overlap 0.5 needs a generated platform", NULL);
    unlink(plat);
    unlink(map);
}

/* The child's own refusals, whole: the missing host of a hostmap and the missing route, as the
 * child's 'X' record carries them (exit 2: code RS_ERR_BAD_INPUT). */
RS_TEST(test_child_refusals_exact, "child_refusals_exact") {
    rs_machine_t m = machine(F_H100, W_NVL, 0, 0, 0, 0);
    char *plat = sim_tmp_path("refuse.xml"), *map = sim_tmp_path("refuse.map"), text[4096], want[1200];
    snprintf(text, sizeof text, "%s%s", PLAT_HEAD, PLAT_RING);
    write_text(plat, text);
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.platform_path = plat;
    cfg.hostmap_path = map;
    rs_err_t err = {0};
    write_text(map, "a\nb\nzz\nd\n");
    CU_ASSERT_EQUAL(run_bad(&cfg, &m, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    snprintf(want, sizeof want, "%s:3: host 'zz' (rank 2) does not exist in platform %s", map, plat);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    write_text(map, "a\nb\nc\nd\n");
    CU_ASSERT_EQUAL(run_bad(&cfg, &m, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    snprintf(want, sizeof want, "platform %s: no route from host 'd' (rank 3) to host 'a' (rank 0)", plat);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    cfg.hostmap_path = NULL;
    CU_ASSERT_EQUAL(run_bad(&cfg, &m, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    snprintf(want, sizeof want, "platform %s has no host 'gpu0' for rank 0 (without --hostmap rank p runs on host gpu<p>)", plat);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    unlink(plat);
    unlink(map);
}

/* A setting SimGrid refuses while it initialises: the settings given quoted whole, then SimGrid's
 * message (bad input). */
RS_TEST(test_configuration_stage, "configuration_stage") {
    rs_machine_t m = machine(F_H100, W_NVL, 0, 0, 0, 0);
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.cfg[0] = "network/TCP-gamma:0";
    cfg.cfg[1] = "network/no-such-key:1";
    cfg.n_cfg = 2;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(run_bad(&cfg, &m, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    const char *want = "SimGrid configuration (--cfg network/TCP-gamma:0 --cfg network/no-such-key:1): ";
    CU_ASSERT_EQUAL(strncmp(err.msg, want, strlen(want)), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "Bad config key: network/no-such-key"));
}

/* The watchdog stops a child that runs past --timeout: code RS_ERR_TIMEOUT, the message names the
 * limit and the way out; the result holds nothing. */
RS_TEST(test_watchdog, "watchdog") {
    rs_problem_t p = rs_test_problem(512, 256, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    rs_machine_t m = machine(F_H100, W_NVL, 0, 0, 0, 0);
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.timeout_s = 0.02; /* 262144 rank-steps take far longer */
    cfg.no_fold = true;   /* every rank simulated: folded (ring_fold.h), one rank's 512 steps might not */
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_sim_result_t r;
    CU_ASSERT_EQUAL(rs_sim_run(s, &m, &cfg, NULL, &r, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_TIMEOUT);
    const char *want = "sim: the SimGrid child was stopped after 0.02 s (its watchdog) during ";
    CU_ASSERT_EQUAL(strncmp(err.msg, want, strlen(want)), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "; give --timeout S to allow more"));
    CU_ASSERT_PTR_NULL(r.step_end_s);
    CU_ASSERT_PTR_NULL(r.job);
    rs_sim_result_free(&r);
    rs_schedule_free(s);
}

/* The result of a run: its per-step figures (the step maxima are the steps' durations, their ends
 * grow to the makespan), freed twice safely; SimGrid's version as MAJOR.MINOR.PATCH. */
RS_TEST(test_result, "result") {
    rs_problem_t p = rs_test_problem(4, 1024, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    rs_machine_t m = machine(F_H100, W_NVL, 0, 0, 0, 0);
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    rs_sim_result_t r;
    CU_ASSERT_EQUAL_FATAL(rs_sim_run(s, &m, NULL, NULL, &r, &err), 0);
    CU_ASSERT_EQUAL(r.n_steps, 4);
    /* compute-bound at B = 1024 (T_comp = 17.37 us > T_comm = 9.32 us): every step lasts T_comp */
    const double tc = 4.0 * 128 * 32 * 1024.0 * 1024.0 / F_H100;
    for (int64_t k = 0; k < 4; k++) {
        RS_ASSERT_REL(r.step_max_s[k], tc, 1e-9);
        RS_ASSERT_REL(r.step_end_s[k], (double)(k + 1) * tc, 1e-9);
    }
    RS_ASSERT_REL(r.fig.makespan_s, 4 * tc, 1e-9);
    CU_ASSERT_EQUAL(r.fig.rank_steps, 16);
    CU_ASSERT(r.child_wall_s > 0 && r.peak_rss_bytes > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.platform, "flat ring of 4 (nvl 450 GB/s, 0 us)"));
    rs_sim_result_free(&r);
    CU_ASSERT_PTR_NULL(r.step_end_s);
    rs_sim_result_free(&r);
    rs_sim_result_free(NULL);
    rs_schedule_free(s);
    int a, b, c;
    char tail;
    CU_ASSERT_EQUAL(sscanf(rs_sim_simgrid_version(), "%d.%d.%d%c", &a, &b, &c, &tail), 3);
    CU_ASSERT(a == 3 && b >= 30);
}

RS_TEST_MAIN(.suite = NULL)
