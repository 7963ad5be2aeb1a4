/* walk_backend.c - the critical-path walk (model/4-cost/cost.h) as a backend (backend.h). */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "cost.h"

/* The walk costs every problem on every valid machine, the loopback included. */
static int walk_can_run(const rs_problem_t *p, const rs_machine_t *m, rs_err_t *why) {
    if (rs_problem_validate(p, why) != 0) return -1;
    return rs_machine_validate(m, p->n_ranks, why);
}

/* Header keys: the problem, the machine, backend=model (what report and sweep wrote before). */
static int walk_run(const rs_schedule_t *s, const rs_machine_t *m, const rs_backend_opts_t *o, rs_trace_t *trace,
                    rs_run_summary_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    rs_walk_t w;
    const double t0 = rs_now_s();
    if (rs_model_walk(s, m, rs_trace_sink(trace), o ? o->rank_busy_s : NULL, &w, err) != 0) return -1;
    *out = w;
    out->wall_s = rs_now_s() - t0;
    if (trace && (rs_trace_meta_problem(trace, rs_schedule_problem(s)) || rs_trace_meta_machine(trace, m) ||
                  rs_trace_set_meta(trace, "backend", "model")))
        return rs_errf(err, "out of memory");
    return 0;
}

static void walk_estimate(const rs_problem_t *p, const rs_machine_t *m, int trace, rs_estimate_t *e) {
    (void)m;
    rs_walk_estimate(p, trace, e);
}

const rs_backend_ops_t rs_walk_backend = {
    .name = "model", .source = "model", .can_run = walk_can_run, .run = walk_run, .exec = NULL, .estimate = walk_estimate,
};
