/* sim_estimate.c - what a simulation costs before it runs (rs_sim_estimate*, sim.h) and the child's
 * watchdog (rs_sim_timeout).
 *
 * The cost model, its constants from the sim benchmarks (docs/benchmarks.md): a CM02 ring of N
 * ranks costs the child 30 us + 0.05 us x N per rank-step (0.05: an upper bound), 30 us more per
 * rank-step when the events go to a trace file, after 0.3 s of start; its resident memory is 16 MB,
 * 24 KB per rank actor, 16 bytes per step, 300 bytes per kept event and 256 bytes per route of an
 * all-pairs platform. A job's background collectives add, per transfer (every member of a group
 * sends once per step of each collective: 2 (P - 1) for a ring all-reduce over P), what a
 * rank-step costs, and 24 KB per member actor. A single ring the run will fold by its rotation
 * (ring_fold.h; the schedule is made and checked here as the run checks it) costs the child one
 * rank's steps, and the parent 0.1 us per rank-step of the whole ring for the check, plus the whole
 * ring's events with a trace.
 */
#include <math.h>
#include <stdlib.h>

#include "job.h"
#include "job_fold.h"
#include "ring_fold.h"
#include "sim.h"
#include "sim_config.h"

/* A job's background transfers in pass (*members: the collectives' actors). 0 when the groups
 * can't be listed (out of memory: the estimate then leaves them out). */
static double background_transfers(const rs_job_t *j, rs_pass_t pass, double *members) {
    *members = 0;
    if (j->background.kind == RS_BG_NONE) return 0;
    int64_t *member = NULL, *offset = NULL;
    const int64_t groups = rs_background_groups(&j->placement, j->background.group, &member, &offset);
    double n = 0;
    for (int64_t i = 0; i < groups; i++) {
        const int64_t size = offset[i + 1] - offset[i];
        rs_bg_coll_t c[RS_BG_MAX_COLL];
        const int nc = rs_background_colls(&j->background, pass, size, c);
        for (int k = 0; k < nc; k++) n += (double)size * (double)c[k].steps;
        if (nc > 0) *members += (double)size;
    }
    free(member);
    free(offset);
    return n;
}

/* The simulator's time per rank-step (or per transfer) with n ranks simulated at once. */
static double rank_step_s(double n) { return 30e-6 + 0.05e-6 * n; }

void rs_sim_estimate_rings(int64_t ring_ranks, int64_t rings, rs_pass_t pass, int trace, bool all_pairs, rs_estimate_t *e) {
    const double n = (double)ring_ranks * (double)rings, steps = pass == RS_PASS_BACKWARD ? (double)ring_ranks + 1 : (double)ring_ranks;
    e->rank_steps = n * steps;
    e->time_s = 0.3 + e->rank_steps * (rank_step_s(n) + (trace == RS_EST_TRACE_FILE ? 30e-6 : 0));
    e->mem_bytes = 16e6 + n * 24e3 + steps * 16 + (trace ? e->rank_steps * 300 : 0);
    if (all_pairs) e->mem_bytes += n * n * 256; /* a route per pair */
}

void sim_estimate_folded(const rs_problem_t *p, const rs_sim_config_t *cfg, int trace, int64_t copies, rs_estimate_t *e) {
    const int64_t rings = cfg && cfg->job ? cfg->job->placement.n_rings : 1;
    const double c = copies > 1 ? (double)copies : 1;
    rs_sim_estimate_rings(p->n_ranks, rings, p->pass, trace, cfg && cfg->routes == RS_PLATFORM_ALL_PAIRS, e);
    if (!cfg || !cfg->job) return;
    rs_estimate_t one; /* what the child simulates: one copy of every class */
    rs_sim_estimate_rings(p->n_ranks, (int64_t)((double)rings / c), p->pass, trace, false, &one);
    double members = 0;
    const double bg = background_transfers(cfg->job, p->pass, &members) / c;
    e->time_s = one.time_s + bg * rank_step_s((double)p->n_ranks * (double)rings / c);
    /* the child's own state shrinks with the fold; the job's books (per ring, hop and link, and a host
     * per device) stay whole: 2 KB per device */
    e->mem_bytes = one.mem_bytes + members / c * 24e3 + (c > 1 ? (double)cfg->job->fabric.devices * 2e3 : 0);
}

/* The copies a job folds into on the engine that will run it (1 when it does not fold, or runs on
 * the actor engine - --slowdown or REFERENCE, which never fold -, or the fold can't be listed). */
static int64_t estimate_copies(const rs_problem_t *p, const rs_machine_t *m, const rs_sim_config_t *cfg) {
    if (!cfg || !sim_job_may_fold(m, cfg)) return 1;
    rs_job_fold_t own;
    const rs_job_fold_t *f = rs_job_fold_of(cfg, p->pass, &own); /* cfg->folds keeps it for the run */
    const int64_t c = f ? f->copies : 1;
    rs_job_fold_free(&own);
    return c;
}

/* The ranks one simulated rank stands for where the run will fold the single ring p by its
 * rotation (the run's own check, on its schedule); 1 otherwise (a job, no machine, no schedule). */
static int64_t estimate_ring_copies(const rs_problem_t *p, const rs_machine_t *m, const rs_sim_config_t *cfg) {
    rs_sim_config_t def, buf;
    if (!cfg) rs_sim_config_default(&def);
    const rs_sim_config_t *c = cfg ? cfg : &def;
    if (!m || !rs_ring_fold_may(c) || p->n_ranks < 2) return 1;
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(p, &err);
    if (!s) return 1;
    const int64_t copies = rs_ring_fold_copies(s, m, sim_config_for_run(s, c, &buf));
    rs_schedule_free(s);
    return copies;
}

void rs_sim_estimate(const rs_problem_t *p, const rs_machine_t *m, const rs_sim_config_t *cfg, int trace, rs_estimate_t *e) {
    if (estimate_ring_copies(p, m, cfg) == 1) {
        sim_estimate_folded(p, cfg, trace, estimate_copies(p, m, cfg), e);
        return;
    }
    const double n = (double)p->n_ranks, steps = p->pass == RS_PASS_BACKWARD ? n + 1 : n;
    e->rank_steps = n * steps; /* the ring's, one rank's simulated */
    e->time_s = 0.3 + steps * rank_step_s(1) + e->rank_steps * (0.1e-6 + (trace == RS_EST_TRACE_FILE ? 30e-6 : 0));
    e->mem_bytes = 16e6 + 24e3 + steps * 16 + (trace ? e->rank_steps * 300 : 0);
}

double sim_timeout_folded(const rs_problem_t *p, const rs_sim_config_t *cfg, int64_t copies) {
    if (cfg && cfg->timeout_s > 0) return cfg->timeout_s;
    rs_estimate_t e;
    sim_estimate_folded(p, cfg, RS_EST_NO_TRACE, copies, &e);
    return fmax(60, 10 * e.time_s);
}

double rs_sim_timeout(const rs_problem_t *p, const rs_sim_config_t *cfg) { return sim_timeout_folded(p, cfg, estimate_copies(p, NULL, cfg)); }
