/* sim_alt.h - Ring, Ulysses and USP (model/5-plan/alt.h) simulated in SimGrid: one layer's attention
 * pass of a sequence-parallel split on the all-pairs platform (sim/platform.h). Defined in
 * sim/sim_alt.c; the model's side of the same question is rs_sp_cost (alt.h).
 */
#ifndef RS_SIM_ALT_H
#define RS_SIM_ALT_H

#include "alt.h"
#include "estimate.h"
#include "machine.h"
#include "memory.h"
#include "schedule.h"
#include "util.h"

/* ---------------------------------------------------------------------------------------------------
 * Simulation (only in builds with SimGrid: RINGSIM_HAVE_SIM)
 *
 * One layer's attention pass for the split simulated in SimGrid on the all-pairs platform of
 * sim/platform.h (N = U x R hosts gpu<p>, intra ports and NICs per device, CM02 exact settings): every
 * rank posts its all-to-alls in (rs_sp_a2a_calls, one per tensor, each U-1 messages of M/U bytes to its
 * group, waited for before the next), walks the ring sub-schedule (rs_schedule_step of rs_sp_ring_problem:
 * compute exec + transfers to the ring neighbour U ranks away), then posts the all-to-alls out the same way. Runs in a forked child (SimGrid initialises
 * once per process). Times are the latest over ranks.
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    double a2a_in_end_s;  /* latest end of the all-to-alls in (0 for a pure ring) */
    double attn_end_s;    /* latest end of the ring/attention phase */
    double makespan_s;    /* latest end of the all-to-alls out: the layer's attention pass */
    double sim_wall_s;    /* wall time of the child */
} rs_sim_alt_result_t;

/* Simulate one pass (forward: Q,K,V in / O out; backward: dO in / dQ,dK,dV out) of the split on the
 * machine. Returns 0, or -1 with err: code RS_ERR_BAD_INPUT for a split that cannot run
 * (rs_sp_check's messages), RS_ERR_RUNTIME on a runtime failure (fork, SimGrid abort). */
int rs_sim_alt_run(const rs_transformer_t *t, const rs_machine_t *m, const rs_sp_config_t *c, rs_pass_t pass,
                   rs_sim_alt_result_t *out, rs_err_t *err);

/* What rs_sim_alt_run of the split costs (estimate.h): U rings of R ranks on the all-pairs platform
 * of N = U x R hosts (sim.h's constants; the all-to-alls are a few steps more). Can't fail. */
void rs_sim_alt_estimate(const rs_sp_config_t *c, rs_pass_t pass, rs_estimate_t *e);

#endif /* RS_SIM_ALT_H */
