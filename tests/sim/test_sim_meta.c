/* test_sim_meta.c - the trace header of a simulated run (sim/sim_meta.c): every key's value for the
 * default configuration and for a user's platform with a host map, another model and --cfg. */
#include <string.h>

#include "sim.h"
#include "sim_fixtures.h"
#include "sim_meta.h"
#include "test_main.h"
#include "trace.h"

RS_TEST(test_default, "default") {
    rs_schedule_t *s = schedule_of(problem(4, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true));
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    rs_trace_t *t = rs_trace_create("sim");
    sim_meta_fill(t, s, &cfg, "flat ring of 4 (nvl 450 GB/s, 0 us)");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "backend"), "simgrid");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "sim.simgrid_version"), rs_sim_simgrid_version());
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "sim.platform"), "flat ring of 4 (nvl 450 GB/s, 0 us)");
    CU_ASSERT_PTR_NULL(rs_trace_get_meta(t, "sim.hostmap"));
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "sim.network_model"), "CM02");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "sim.cfg"),
                           "network/TCP-gamma:0 network/crosstraffic:0 surf/precision:1e-15 maxmin/precision:1e-15");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "n_ranks"), "4"); /* the problem's keys */
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "pass"), "backward");
    rs_trace_free(t);
    rs_schedule_free(s);
}

RS_TEST(test_user_platform, "user_platform") {
    rs_schedule_t *s = schedule_of(problem(4, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true));
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.platform_path = "p.xml";
    cfg.hostmap_path = "h.map";
    cfg.network_model = NULL;
    cfg.cfg[0] = "network/TCP-gamma:4194304";
    cfg.cfg[1] = "maxmin/precision:1e-9";
    cfg.n_cfg = 2;
    rs_trace_t *t = rs_trace_create("sim");
    sim_meta_fill(t, s, &cfg, "p.xml");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "sim.platform"), "p.xml");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "sim.hostmap"), "h.map");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "sim.network_model"), "CM02");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "sim.cfg"),
                           "network/TCP-gamma:0 network/crosstraffic:0 surf/precision:1e-15 maxmin/precision:1e-15 "
                           "network/optim:Full network/TCP-gamma:4194304 maxmin/precision:1e-9");
    cfg.network_model = "LV08";
    sim_meta_fill(t, s, &cfg, "p.xml"); /* replaces the keys */
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "sim.network_model"), "LV08");
    rs_trace_free(t);
    rs_schedule_free(s);
}

RS_TEST_PROGRAM("sim_meta")
