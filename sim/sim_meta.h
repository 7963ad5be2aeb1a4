/* sim_meta.h - internal to sim/: what a simulated trace's header says about the run (sim_meta.c;
 * rs_sim_run calls it). */
#ifndef RS_SIM_META_H
#define RS_SIM_META_H

#include "schedule.h"
#include "sim.h"
#include "trace.h"

/* The problem's keys (rs_trace_meta_problem), then backend=simgrid, sim.simgrid_version,
 * sim.platform (platform_desc), sim.hostmap (with --hostmap), sim.network_model and sim.cfg: the
 * SimGrid settings after the model, space-separated (sim_config.h). Best effort: a key
 * rs_trace_set_meta cannot store (out of memory) is left out. */
void sim_meta_fill(rs_trace_t *t, const rs_schedule_t *s, const rs_sim_config_t *cfg, const char *platform_desc);

#endif /* RS_SIM_META_H */
