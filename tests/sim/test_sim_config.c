/* test_sim_config.c - the simulator's configuration (sim/sim_config.c): every refusal before a child
 * starts with its exact message and RS_ERR_BAD_INPUT (the machine, the platform options, the network
 * model and --cfg settings, the timeout, a job's limits, pass-q's all-to-all return's), the SimGrid
 * settings a run passes, and the configuration pass-q runs with. No simulation runs but the two
 * refusals checked through rs_sim_run. */
#include <math.h>
#include <string.h>

#include "sim.h"
#include "sim_config.h"
#include "sim_fixtures.h"
#include "test_main.h"

/* The refusal of cfg (and m, trace) on a forward ring of 4: -1, bad input, exactly want. */
static void expect_refused(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg, bool trace, const char *want) {
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(sim_config_check(s, m, cfg, trace, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    if (strcmp(err.msg, want) != 0) fprintf(stderr, "  got  '%s'\n  want '%s'\n", err.msg, want);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
}

/* A --cfg setting alone: refused with want, or accepted (want NULL). */
static void expect_setting(const rs_schedule_t *s, const rs_machine_t *m, const char *kv, const char *want) {
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.cfg[0] = kv;
    cfg.n_cfg = 1;
    if (want) {
        expect_refused(s, m, &cfg, false, want);
        return;
    }
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(sim_config_check(s, m, &cfg, false, &err), 0);
}

RS_TEST(test_default, "default") {
    rs_sim_config_t c;
    memset(&c, 0x5a, sizeof c);
    rs_sim_config_default(&c);
    CU_ASSERT_STRING_EQUAL(c.network_model, "CM02");
    CU_ASSERT_EQUAL(c.routes, RS_PLATFORM_RING);
    CU_ASSERT_EQUAL(c.n_cfg, 0);
    CU_ASSERT_PTR_NULL(c.platform_path);
    CU_ASSERT_PTR_NULL(c.hostmap_path);
    CU_ASSERT_PTR_NULL(c.platform_out);
    CU_ASSERT_PTR_NULL(c.job);
    CU_ASSERT_EQUAL(c.timeout_s, 0);
}

/* The machine and the platform options. */
RS_TEST(test_machine_and_platform, "machine_and_platform_refused") {
    rs_schedule_t *s = schedule_of(problem(4, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true));
    rs_machine_t m = machine(F_H100, W_NVL, 0, 0, 0, 0);
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(sim_config_check(s, &m, &cfg, true, &err), 0);
    rs_machine_t bad = m;
    bad.cal.overlap = 0.5, bad.cal.comp_slowdown = 1.3; /* the machine's own rule, marked bad input */
    expect_refused(s, &bad, &cfg, false, "--overlap 0.5 with --slowdown 1.3: the two overlap models cannot be combined "
                                         "(use --overlap < 1 or --slowdown > 1, not both)");
    bad = m;
    bad.loopback = true;
    expect_refused(s, &bad, &cfg, false, "loopback machine (each rank alone on one device): the walk predicts it; the simulator "
                                         "runs the real ring");
    bad = m;
    bad.cal.overlap = 0.5;
    cfg.platform_path = "p.xml";
    expect_refused(s, &bad, &cfg, false, "--overlap 0.5 needs a generated platform: on --platform p.xml the simulator cannot "
                                         "tell which link carries a hop");
    cfg.routes = RS_PLATFORM_ALL_PAIRS;
    expect_refused(s, &m, &cfg, false, "--all-pairs: a user platform (--platform p.xml) brings its own routes");
    rs_sim_config_default(&cfg);
    cfg.hostmap_path = "h.map";
    expect_refused(s, &m, &cfg, false, "--hostmap h.map: needs --platform FILE (generated platforms map rank p to gpu<p>)");
    cfg.platform_path = "p.xml";
    CU_ASSERT_EQUAL(sim_config_check(s, &m, &cfg, false, &err), 0); /* the files are read later */
    rs_sim_config_default(&cfg);
    cfg.timeout_s = -1;
    expect_refused(s, &m, &cfg, false, "--timeout -1: must be > 0 seconds");
    cfg.timeout_s = INFINITY;
    expect_refused(s, &m, &cfg, false, "--timeout inf: must be > 0 seconds");
    cfg.timeout_s = 0.5;
    CU_ASSERT_EQUAL(sim_config_check(s, &m, &cfg, false, &err), 0);
    rs_schedule_free(s);
}

/* The network model and the --cfg settings SimGrid hangs or crashes on. */
RS_TEST(test_settings_refused, "settings_refused") {
    rs_schedule_t *s = schedule_of(problem(4, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true));
    rs_machine_t m = machine(F_H100, W_NVL, 0, 0, 0, 0);
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    const char *models[] = {"CM02", "LV08", "SMPI", "IB", "Constant"};
    rs_err_t err = {0};
    for (int i = 0; i < 5; i++) {
        cfg.network_model = models[i];
        CU_ASSERT_EQUAL(sim_config_check(s, &m, &cfg, false, &err), 0);
    }
    cfg.network_model = "NoSuchModel";
    expect_refused(s, &m, &cfg, false, "--network-model NoSuchModel: unknown network model; expected CM02, LV08, SMPI, IB or Constant");
    cfg.network_model = "NS-3";
    expect_refused(s, &m, &cfg, false, "--network-model NS-3: ns-3 is not supported (this SimGrid has no ns-3: its child hangs); "
                                       "expected CM02, LV08, SMPI, IB or Constant");
    cfg.network_model = NULL; /* SimGrid's CM02 */
    CU_ASSERT_EQUAL(sim_config_check(s, &m, &cfg, false, &err), 0);
    expect_setting(s, &m, "surf/precision", "--cfg 'surf/precision': expected KEY:VALUE (e.g. network/model:LV08)");
    expect_setting(s, &m, ":1", "--cfg ':1': expected KEY:VALUE (e.g. network/model:LV08)");
    expect_setting(s, &m, "network/model:ns3", "--cfg network/model:ns3: ns-3 is not supported (this SimGrid has no ns-3: its "
                                               "child hangs); expected CM02, LV08, SMPI, IB or Constant");
    expect_setting(s, &m, "network/model:LV08", NULL);
    expect_setting(s, &m, "surf/precision:0", "--cfg surf/precision:0: expected a number > 0 (0 or below: SimGrid never converges)");
    expect_setting(s, &m, "surf/precision:1e-9", NULL);
    expect_setting(s, &m, "maxmin/precision:abc", "--cfg maxmin/precision:abc: expected a number > 0 (below: SimGrid crashes)");
    expect_setting(s, &m, "network/latency-factor:-1", "--cfg network/latency-factor:-1: expected a number > 0");
    expect_setting(s, &m, "network/bandwidth-factor:inf", "--cfg network/bandwidth-factor:inf: expected a number > 0");
    expect_setting(s, &m, "network/TCP-gamma:-0.5", "--cfg network/TCP-gamma:-0.5: expected a number >= 0");
    expect_setting(s, &m, "network/TCP-gamma:0", NULL);
    expect_setting(s, &m, "contexts/stack-size:32", "--cfg contexts/stack-size:32: expected a number of KiB >= 64 (smaller: the "
                                                    "actors crash)");
    expect_setting(s, &m, "contexts/stack-size:64", NULL);
    expect_setting(s, &m, "network/no-such-key:1", NULL); /* SimGrid's own message, in the child (test_sim.c) */
    rs_sim_config_default(&cfg);
    cfg.n_cfg = RS_SIM_MAX_CFG + 1;
    expect_refused(s, &m, &cfg, false, "--cfg: at most 32 settings");
    rs_schedule_free(s);
}

/* A job of concurrent rings: what it cannot be combined with, its ring size, its own consistency. */
RS_TEST(test_job_refused, "job_refused") {
    rs_problem_t p = problem(4, 512, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    rs_schedule_t *s = schedule_of(p);
    rs_machine_t m = nodes_of(4, 0, 0);
    rs_job_t j = grid_job(&m, &p, 2, 1, TP_CP_DP, (test_fabric_t){RS_FABRIC_FLAT, 0, 0, 1});
    rs_sim_config_t cfg = job_config(&j);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(sim_config_check(s, &m, &cfg, false, &err), 0);
    const char *pre = "concurrent rings (--tp/--dp/--map/--fabric...) cannot be combined with ";
    char want[600];
    snprintf(want, sizeof want, "%s--trace/--chrome (one trace holds one ring)", pre);
    expect_refused(s, &m, &cfg, true, want);
    cfg.routes = RS_PLATFORM_ALL_PAIRS;
    snprintf(want, sizeof want, "%s--all-pairs (the fabric routes every pair already)", pre);
    expect_refused(s, &m, &cfg, false, want);
    cfg.routes = RS_PLATFORM_RING;
    cfg.platform_path = "p.xml";
    snprintf(want, sizeof want, "%s--platform (a job runs on its generated fabric; map one ring with --hostmap)", pre);
    expect_refused(s, &m, &cfg, false, want);
    cfg.platform_path = NULL;
    rs_machine_t mm = m;
    mm.cal.overlap = 0.5;
    snprintf(want, sizeof want, "%san overlap below 1 (a shared link cannot slow one flow)", pre);
    expect_refused(s, &mm, &cfg, false, want);
    mm = m;
    mm.perturb.n_degraded = 1, mm.perturb.degraded_hop[0] = 1, mm.perturb.degraded_factor[0] = 2;
    snprintf(want, sizeof want, "%s--degrade (a hop of a shared fabric has no link of its own)", pre);
    expect_refused(s, &mm, &cfg, false, want);
    rs_schedule_t *s8 = schedule_of(problem(8, 512, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true));
    expect_refused(s8, &m, &cfg, false, "job: rings of 4 ranks, the problem has -N 8");
    rs_schedule_free(s8);
    j.fabric.oversub = 0.5; /* the job's own check (rs_job_validate), marked bad input */
    expect_refused(s, &m, &cfg, false, "--oversub 0.5: must be >= 1 (leaf downlink : uplink capacity; 1 = non-blocking)");
    j.fabric.oversub = 1;
    /* through rs_sim_run: a job with --degrade */
    rs_sim_result_t r;
    CU_ASSERT_EQUAL(rs_sim_run(s, &mm, &cfg, NULL, &r, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--degrade"));
    rs_schedule_free(s);
    rs_job_free(&j);
}

/* pass-q's all-to-all return: not in a job, not on a degraded link. */
RS_TEST(test_a2a_refused, "a2a_refused") {
    rs_problem_t p = rs_test_problem(2, 256, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    p.ring = RS_RING_PASS_Q, p.cached_tokens = 2048;
    rs_schedule_t *s = schedule_of(p);
    CU_ASSERT_FATAL(rs_schedule_step_a2a_bytes(s, 2) > 0);
    rs_machine_t flat = machine(F_H100, W_NVL, 3e-6, 0, 0, 0);
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(sim_config_check(s, &flat, &cfg, true, &err), 0);
    rs_machine_t deg = flat;
    deg.perturb.n_degraded = 1, deg.perturb.degraded_hop[0] = 1, deg.perturb.degraded_factor[0] = 2;
    expect_refused(s, &deg, &cfg, false, "--degrade with --ring pass-q or decode: the all-to-all return shares a degraded link with "
                                         "other flows, which the walk's all-to-all (tier bandwidths) does not model");
    rs_machine_t nodes = nodes_of(2, 0, 0);
    rs_job_t j = grid_job(&nodes, &p, 2, 1, TP_CP_DP, (test_fabric_t){RS_FABRIC_FLAT, 0, 0, 1});
    cfg.job = &j;
    expect_refused(s, &nodes, &cfg, false, "concurrent rings (--tp/--dp/--map/--fabric...) run pass-kv; --ring pass-q and decode "
                                           "return their partials in an all-to-all across the ring");
    rs_job_free(&j);
    /* through rs_sim_run: the all-to-all on a degraded link */
    rs_sim_result_t r;
    CU_ASSERT_EQUAL(rs_sim_run(s, &deg, NULL, NULL, &r, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--degrade with --ring pass-q"));
    rs_sim_result_free(&r);
    rs_schedule_free(s);
}

/* The settings SimGrid gets, in order: the model, the exact defaults, Full where flows may share a
 * first link, the caller's --cfg last. */
RS_TEST(test_settings, "settings") {
    static const char *const defaults[] = {"network/model:CM02", "network/TCP-gamma:0", "network/crosstraffic:0",
                                           "surf/precision:1e-15", "maxmin/precision:1e-15"};
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    sim_settings_t set;
    sim_config_settings(&cfg, &set);
    CU_ASSERT_EQUAL_FATAL(set.n, 5);
    for (int i = 0; i < 5; i++) CU_ASSERT_STRING_EQUAL(set.kv[i], defaults[i]);
    cfg.network_model = "LV08";
    cfg.routes = RS_PLATFORM_ALL_PAIRS;
    cfg.cfg[0] = "network/TCP-gamma:4194304";
    cfg.cfg[1] = "surf/precision:1e-9";
    cfg.n_cfg = 2;
    sim_config_settings(&cfg, &set);
    CU_ASSERT_EQUAL_FATAL(set.n, 8);
    CU_ASSERT_STRING_EQUAL(set.kv[0], "network/model:LV08");
    for (int i = 1; i < 5; i++) CU_ASSERT_STRING_EQUAL(set.kv[i], defaults[i]);
    CU_ASSERT_STRING_EQUAL(set.kv[5], "network/optim:Full");
    CU_ASSERT_STRING_EQUAL(set.kv[6], "network/TCP-gamma:4194304");
    CU_ASSERT_STRING_EQUAL(set.kv[7], "surf/precision:1e-9");
    rs_sim_config_default(&cfg); /* a user's platform: Full */
    cfg.network_model = NULL;
    cfg.platform_path = "p.xml";
    sim_config_settings(&cfg, &set);
    CU_ASSERT_EQUAL(set.n, 6);
    CU_ASSERT_STRING_EQUAL(set.kv[0], "network/model:CM02");
    CU_ASSERT_STRING_EQUAL(set.kv[5], "network/optim:Full");
    rs_sim_config_default(&cfg); /* a job: Full */
    rs_job_t j;
    memset(&j, 0, sizeof j);
    cfg.job = &j;
    sim_config_settings(&cfg, &set);
    CU_ASSERT_EQUAL(set.n, 6);
    CU_ASSERT_STRING_EQUAL(set.kv[5], "network/optim:Full");
}

/* pass-q's return on a generated ring platform runs on the all-pairs platform (a copy); pass-kv and
 * a user's platform keep the caller's configuration. */
RS_TEST(test_for_run, "for_run") {
    rs_problem_t q = rs_test_problem(4, 256, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    q.ring = RS_RING_PASS_Q, q.cached_tokens = 4096;
    rs_problem_t kv = rs_test_problem(4, 256, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    rs_schedule_t *sq = schedule_of(q), *skv = schedule_of(kv);
    rs_sim_config_t cfg, buf;
    rs_sim_config_default(&cfg);
    cfg.timeout_s = 7;
    const rs_sim_config_t *r = sim_config_for_run(sq, &cfg, &buf);
    CU_ASSERT_PTR_EQUAL(r, &buf);
    CU_ASSERT_EQUAL(r->routes, RS_PLATFORM_ALL_PAIRS);
    CU_ASSERT_EQUAL(r->timeout_s, 7);
    CU_ASSERT_EQUAL(cfg.routes, RS_PLATFORM_RING);
    CU_ASSERT_PTR_EQUAL(sim_config_for_run(skv, &cfg, &buf), &cfg);
    cfg.platform_path = "p.xml";
    CU_ASSERT_PTR_EQUAL(sim_config_for_run(sq, &cfg, &buf), &cfg);
    rs_schedule_free(sq);
    rs_schedule_free(skv);
}

RS_TEST_PROGRAM("sim_config")
