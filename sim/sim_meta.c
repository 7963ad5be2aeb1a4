/* sim_meta.c - the trace header of a simulated run (sim_meta.h). */
#include "sim_meta.h"

#include <string.h>

#include "sim_config.h"

void sim_meta_fill(rs_trace_t *t, const rs_schedule_t *s, const rs_sim_config_t *cfg, const char *platform_desc) {
    rs_trace_meta_problem(t, rs_schedule_problem(s));
    rs_trace_set_meta(t, "backend", "simgrid");
    rs_trace_set_meta(t, "sim.simgrid_version", "%s", rs_sim_simgrid_version());
    rs_trace_set_meta(t, "sim.platform", "%s", platform_desc);
    if (cfg->hostmap_path) rs_trace_set_meta(t, "sim.hostmap", "%s", cfg->hostmap_path);
    rs_trace_set_meta(t, "sim.network_model", "%s", cfg->network_model ? cfg->network_model : "CM02");
    sim_settings_t set;
    sim_config_settings(cfg, &set);
    char buf[1024] = "";
    for (int i = 1; i < set.n; i++) { /* kv[0] is the model, the key above */
        size_t l = strlen(buf);
        snprintf(buf + l, sizeof buf - l, "%s%s", i > 1 ? " " : "", set.kv[i]);
    }
    rs_trace_set_meta(t, "sim.cfg", "%s", buf);
}
