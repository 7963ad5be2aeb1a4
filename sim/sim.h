/* sim.h - the SimGrid backend: the ring schedule simulated on a SimGrid platform.
 *
 * One actor per rank (on host gpu<p>, or the host a --hostmap names). Each step, from
 * rs_schedule_step() only: an asynchronous exec of the step's compute (the step's time by the one
 * per-step cost function, rs_kernel_step_s() in model/4-cost/kernel.h, x F_eff(B) FLOPs, so launch,
 * host cost, stragglers and jitter are part of it; on a generated platform the host speed is F_eff(B)
 * and the exec lasts exactly that time), an asynchronous put of each
 * of the step's transfers to the next rank's mailbox and a get of each from the previous rank, then
 * a wait for all. A step ends when its compute and all its transfers (in and out) are done; the next
 * step starts then. Events: compute (step start to exec end; every step that has compute, also with
 * 0 FLOPs), send and recv (step start = post to the last completion, bytes summed over the step's
 * transfers), step (start to end) - the same events as rs_model_walk().
 *
 * Semantics equal to the walk (model/4-cost/cost.h) under the default configuration (CM02, TCP-gamma 0,
 * no cross-traffic, precision 1e-15): a transfer starts when both ends have posted, waits its
 * route's latency, then flows sharing a link share it equally. Compute slowdown sigma: the exec
 * runs at speed / sigma while one of the rank's hops (in or out) is in flight (both ends posted,
 * last flow not done). Partial overlap eta: the hop's bottleneck link runs at eta x its bandwidth
 * while the sender computes (generated platforms only; eta = 0 is run as 1e-12). sigma and eta
 * together are rejected, as by the walk (docs/sim.md).
 *
 * SimGrid's engine can be initialised once per process and aborts on bad input, so every run
 * happens in a forked child: rs_sim_run() may be called any number of times in one process, and a
 * SimGrid abort becomes an error message. Results and events come back through a pipe.
 */
#ifndef RS_SIM_H
#define RS_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "estimate.h"
#include "job.h"
#include "machine.h"
#include "cost.h"
#include "platform.h"
#include "schedule.h"
#include "trace.h"
#include "util.h"

#define RS_SIM_MAX_CFG 32

/* How the child simulates (docs/sim.md, "How it is simulated"). FAST: on a generated platform (one
 * ring or a job's rings) without compute slowdown or an all-to-all step, no actor per rank (a step's
 * transfers and compute are SimGrid activities started from the completions of the previous ones,
 * sim_dag.c; a job's collectives too); elsewhere as REFERENCE. REFERENCE: one SimGrid actor per rank and per collective
 * member posting an exec and mailbox transfers each step - the plain reference the fast one is
 * tested against. */
typedef enum { RS_SIM_ENGINE_FAST = 0, RS_SIM_ENGINE_REFERENCE } rs_sim_engine_t;

/* A job's folds (docs/sim.md "Folding"), each pass's computed once and kept, so that an estimate
 * and the run that follows it share one: rs_sim_folds_new gives an empty one for cfg->folds
 * (NULL: out of memory), rs_sim_folds_free releases it. It keeps the folds of the job it first
 * served (another job empties it first): the job must not change while it is set. It keeps a
 * single ring's rotation check too (sim/ring_fold.h), for an equal problem and machine. */
typedef struct rs_sim_folds rs_sim_folds_t;
rs_sim_folds_t *rs_sim_folds_new(void);
void rs_sim_folds_free(rs_sim_folds_t *f);
/* "activity" (FAST) or "actor" (REFERENCE). */
const char *rs_sim_engine_name(rs_sim_engine_t e);

typedef struct {
    const char *platform_path;        /* user's SimGrid platform XML; NULL = generate from the machine */
    const char *hostmap_path;         /* rank-to-host map for platform_path (platform.h); NULL = gpu<p> */
    const char *platform_out;         /* also write the generated platform XML here; NULL = don't */
    const char *network_model;        /* SimGrid network/model: "CM02" (default, exact), "LV08", ... */
    int n_cfg;                        /* entries of cfg */
    const char *cfg[RS_SIM_MAX_CFG];  /* "KEY:VALUE" SimGrid settings applied after the defaults */
    rs_platform_routes_t routes;      /* generated platform: ring routes (default) or all pairs */
    const rs_job_t *job;              /* concurrent rings on a generated fabric (job.h); NULL = one ring */
    double timeout_s;                 /* the child's watchdog, seconds; 0 = rs_sim_timeout's default */
    rs_sim_engine_t engine;           /* FAST (default) or REFERENCE */
    bool no_fold;                     /* simulate every ring, member and rank even where the job's or the
                                         ring's symmetry folds them (FAST engine; job_fold.h, ring_fold.h,
                                         docs/sim.md "Folding") */
    rs_sim_folds_t *folds;            /* a job's folds and a single ring's rotation checks kept across
                                         calls (rs_sim_folds_new); NULL: each rs_sim_estimate and
                                         rs_sim_run computes its own */
} rs_sim_config_t;

typedef struct {
    rs_walk_t fig;            /* makespan, longest compute and transfer set, busy times, FLOPs, counts as
                                 the walk's (model/4-cost/cost.h), the metrics from these figures
                                 (rs_walk_metrics; a job: 0), wall_s 0 */
    int64_t n_steps;          /* steps of the pass */
    double *step_end_s;       /* [n_steps]: latest end of step k over ranks (malloc'd) */
    double *step_max_s;       /* [n_steps]: longest duration of step k over ranks (malloc'd) */
    double sim_wall_s;        /* wall time inside the child: engine init to end of simulation */
    int64_t activities;       /* SimGrid activities the child started: execs, transfers, timers */
    rs_sim_engine_t engine;   /* the engine that ran: FAST only where its rules allow (sim.h above) */
    double child_wall_s;      /* wall time of the child process, fork to exit */
    long peak_rss_bytes;      /* the child's peak resident set (getrusage via wait4) */
    char platform[512];       /* what was simulated: generated description or the user's file */
    rs_job_result_t *job;     /* with a job: per ring, hop and link (malloc'd; NULL without) */
    int64_t fold_copies;      /* a job: copies of each simulated ring and member; one ring folded by its
                                 rotation symmetry: N, the ranks its one simulated rank stands for
                                 (ring_fold.h; 1: every one simulated) */
} rs_sim_result_t;

/* Defaults: generated platform with ring routes, CM02, no extra settings. Can't fail. */
void rs_sim_config_default(rs_sim_config_t *c);

/* What simulating problem p on machine m costs (estimate.h): rank-steps over every ring of the job,
 * the child's time and memory (a job's background collectives included; a job folded only where the
 * engine that will run folds it: not with m's --slowdown; a single ring folded by its rotation where
 * the run will fold it, ring_fold.h, checked on p's schedule: O(N x steps)), and with trace the
 * events the parent keeps. m NULL: a machine without compute slowdown, a ring unfolded. Can't fail. */
void rs_sim_estimate(const rs_problem_t *p, const rs_machine_t *m, const rs_sim_config_t *cfg, int trace, rs_estimate_t *e);
/* The same for `rings` concurrent rings of ring_ranks ranks each running pass, on an all-pairs
 * platform (a route per pair of hosts) or a ring's. Can't fail. */
void rs_sim_estimate_rings(int64_t ring_ranks, int64_t rings, rs_pass_t pass, int trace, bool all_pairs, rs_estimate_t *e);
/* The child's watchdog: cfg->timeout_s when set, else 10 x the estimated time (rs_sim_estimate's
 * without a machine), at least 60 s. */
double rs_sim_timeout(const rs_problem_t *p, const rs_sim_config_t *cfg);

/* In a freshly forked simulation child (rs_sim_run, sim/sim_alt.c): no core dumps, default SIGPIPE and
 * SIGINT (Ctrl-C ends the simulation), killed when the caller dies, stdout and stderr into log.
 * Can't fail (best effort). */
void rs_sim_child_prepare(FILE *log);
/* rs_sim_child_prepare, then the child's end of a pipe (fds as pipe() made them: the read end is
 * closed) as a FILE. NULL when fdopen fails. */
FILE *rs_sim_child_pipe(FILE *log, const int fds[2]);
/* In a simulation child right after simgrid_init(): SimGrid installs a SIGINT handler that calls
 * exit(), which is not async-signal-safe (a child interrupted inside malloc can deadlock in free()
 * at exit, and its caller then waits forever); put SIG_DFL back so Ctrl-C simply ends the child. */
void rs_sim_child_after_init(void);

/* Simulate the schedule on the machine in a forked child process. With cfg->job, every ring of the
 * job runs the schedule at once on the job's fabric (job.h; rank p of ring r on its placed device),
 * the background collectives beside them; the makespan, step ends and totals then cover every ring,
 * and out->job holds per ring (with its contention-free walk), per hop and per link results. A job
 * needs a generated platform and rejects --degrade and an overlap below 1 (a shared link cannot run
 * one flow at eta), a trace (ranks of several rings), --all-pairs and a loopback machine. If trace is non-NULL its events
 * are appended (in simulation order; sort with rs_trace_sort) and its header receives the problem
 * (rs_trace_meta_problem) and sim.* keys: backend, simgrid version, platform, network model, cfg.
 * Returns 0 on success; -1 with err (code RS_ERR_BAD_INPUT) naming the file and host or route, the bad
 * key or the bad value (unknown --cfg key: SimGrid's own message; malformed platform; host missing
 * from the platform; ranks with no route; --overlap with --slowdown or with a user platform); -1 with
 * err (code RS_ERR_TIMEOUT) when the child's watchdog (cfg->timeout_s, rs_sim_timeout) stopped it;
 * -1 with err (code RS_ERR_RUNTIME) on a runtime failure (fork, pipe, out of memory, SimGrid abort
 * during the run). On failure trace may hold a partial set of events: callers must not write it.
 * rs_sim_result_free() releases out's arrays (also on failure). */
int rs_sim_run(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg,
               rs_trace_t *trace, rs_sim_result_t *out, rs_err_t *err);

/* Free the arrays of a result (safe on a zeroed or freed result). Can't fail. */
void rs_sim_result_free(rs_sim_result_t *r);

/* SimGrid's version string, "3.32" (from the library this was linked against). */
const char *rs_sim_simgrid_version(void);

#endif /* RS_SIM_H */
