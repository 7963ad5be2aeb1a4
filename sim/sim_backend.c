/* sim_backend.c - the SimGrid simulator (sim.h) as a backend (backend/backend.h): the default
 * configuration (a platform generated from the machine, ring routes, CM02 with the exact settings).
 * The forked child stays inside rs_sim_run. */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "sim.h"

/* The one rule for the simulator: it runs every valid machine that is a real ring - partial overlap
 * (eta, one value or a curve) and the compute slowdown sigma included (docs/sim.md) - but not a
 * loopback machine (each rank alone on one device), which only the walk describes. */
static int sim_can_run(const rs_problem_t *p, const rs_machine_t *m, rs_err_t *why) {
    if (rs_problem_validate(p, why) != 0 || rs_machine_validate(m, p->n_ranks, why) != 0) return -1;
    if (m->loopback)
        return rs_errf(why, "a loopback machine (each rank alone on one device): the walk predicts it; the simulator "
                            "runs the real ring");
    return 0;
}

/* Header keys: the simulator's (problem, backend=simgrid, sim.*), then the machine. */
static int sim_backend_run(const rs_schedule_t *s, const rs_machine_t *m, const rs_backend_opts_t *o, rs_trace_t *trace,
                           rs_run_summary_t *out, rs_err_t *err) {
    (void)o;
    memset(out, 0, sizeof *out);
    rs_sim_result_t r;
    if (rs_sim_run(s, m, NULL, trace, &r, err) != 0) return -1; /* err.code says bad input or runtime */
    *out = r.fig;
    out->wall_s = r.child_wall_s;
    rs_sim_result_free(&r);
    if (trace && rs_trace_meta_machine(trace, m)) return rs_errf(err, "out of memory");
    return 0;
}

static void sim_estimate(const rs_problem_t *p, const rs_machine_t *m, int trace, rs_estimate_t *e) {
    rs_sim_estimate(p, m, NULL, trace, e);
}

const rs_backend_ops_t rs_sim_backend = {
    .name = "sim", .source = "sim", .can_run = sim_can_run, .run = sim_backend_run, .exec = NULL, .estimate = sim_estimate,
};
