/* sim_run.h - internal to sim/: the state of a run inside the SimGrid child and what its two engines
 * share (sim_child.c sets it up and sends the results; sim_actors.c and sim_dag.c simulate).
 *
 * A run simulates walkers: ring walkers (a rank of a ring; walker g is ring g / N's rank g mod N)
 * and, in a job, background walkers (a member of a collective).
 *
 * Two engines, the same semantics (sim.h, docs/sim.md "What is simulated"):
 *   actors (sim_actors.c): one SimGrid actor per walker posting an exec and mailbox transfers per
 *     step and waiting for them - the reference; every platform and flag;
 *   activities (sim_dag.c): no actor per walker; a step's transfers are started by the engine when
 *     both ends have started the step, its compute is a timer (exact where the host runs nothing
 *     else at a constant speed: a generated platform), the next step starts from their completion
 *     callbacks - used on generated platforms without compute slowdown or an all-to-all step.
 */
#ifndef RS_SIM_RUN_H
#define RS_SIM_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <simgrid/forward.h>

#include "kernel.h"
#include "machine.h"
#include "schedule.h"
#include "sim.h"
#include "sim_pipe.h"

typedef struct {
    const rs_schedule_t *s;   /* the schedule */
    const rs_machine_t *m;    /* the machine */
    rs_pass_t pass;           /* the schedule's pass (for events) */
    int64_t n, steps, block;  /* N (ranks per ring), steps of the pass, B */
    int64_t total;            /* ring walkers */
    bool job;                 /* a job of concurrent rings (job_child.h keeps its books) */
    bool slowdown;            /* compute slowdown sigma > 1 */
    bool partial;             /* partial overlap (eta < 1 for some transfers) */
    bool exclusive;           /* generated platform: one walker per host, constant speed */
    sg_host_t *host;          /* [total] host of each walker */
    rs_kmodel_t km;           /* the step cost (model/4-cost/kernel.h) */
    double f_eff;             /* F_eff(B): FLOPs per second of compute time */
    int64_t copies;           /* a folded job: rings each simulated ring stands for; a ring folded by its
                                 rotation: N, the ranks its one walker stands for (1: none folded) */
    bool rot;                 /* a ring folded by its rotation (ring_fold.h): walker 0 alone, its own next and
                                 previous walker, its sends over hop 0's route (to peer_host) */
    sg_host_t peer_host;      /* rot: host gpu1, the receiving end of hop 0 */
    sg_link_t *hop_link;      /* partial overlap: [N] the bottleneck link of each hop of the one ring */
    double *hop_bw;           /* and its full bandwidth */
    bool *throttled;          /* [total] walker g's incoming hop runs at eta x its bandwidth */
    bool events;              /* stream events to the parent */
    FILE *out;                /* the pipe */
    int errc;                 /* the kind of the 'X' record sent (rs_errc_t) */
    double *busy;             /* [total] summed compute time */
    double *step_end;         /* [steps] latest end */
    double *step_max;         /* [steps] longest duration */
    sim_summary_rec_t sum;    /* running totals (sum.activities: SimGrid activities the run started) */
    bool progress;            /* send 'P' records */
    double next_progress_s;   /* wall time of the next one */
} sim_run_t;

extern sim_run_t SR;

/* The times of one rank-step. */
typedef struct {
    double t0;                 /* the step's start: the rank posts everything then */
    double tc;                 /* its compute time (the step's kernel calls, kernel.h) */
    double end_c;              /* the compute's end (t0 when there is none) */
    double end_send, end_recv; /* the last send's and the last receive's completion (t0 when none) */
    double end_cx;             /* both: the step's compute and transfers are done */
    double end_step;           /* the step event's end */
    double te;                 /* the rank's end of the step, the merges after it included */
} sim_step_times_t;

/* Schedule rank, next and previous walker of walker g (ring g / N's rank g mod N; folded by its
 * rotation: g itself). */
int64_t sim_rank_of(int64_t g);
int64_t sim_next_of(int64_t g);
int64_t sim_prev_of(int64_t g);

/* The child's error ('X') of kind code (rs_errc_t). Returns -1. */
int sim_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The step's compute time for walker g (its merges in acc), and into *eta the rate its incoming
 * transfers progress at while it computes (only with partial overlap; 1 otherwise). */
double sim_step_compute_s(int64_t g, rs_krank_t *acc, int64_t k, const rs_step_t *st, double *eta);
/* The transfer curve's factor of step k's sends (st: its blocks): SimGrid moves bytes x it. Once per step. */
double sim_send_factor(int64_t k, const rs_step_t *st);
/* The bytes SimGrid moves for the step's i-th send at the step's factor gx (sim_send_factor). */
long sim_send_bytes(const rs_step_t *st, int i, double gx);
/* The statistics of a ring step of walker g, as rs_walk_t defines them, and its events (the compute
 * event starting before_s after the step's start; folded by its rotation: every rank's, relabelled). */
void sim_step_account(int64_t g, int64_t k, const rs_step_t *st, bool moves, double before_s, const sim_step_times_t *t);

/* Partial overlap on a generated platform: the table of each hop's bottleneck link (hop<r>, nic<r>-up
 * or nvl<r>-up) and bandwidth. Returns 0, or -1 after an 'X' record (out of memory, a missing link). */
int sim_hops_init(const rs_machine_t *m, const rs_sim_config_t *cfg);
/* Walker g computes step k while its incoming transfers progress at eta: their hop's link at eta x
 * its bandwidth (eta = 0 runs as 1e-12: SimGrid cannot run a link at 0 B/s) until
 * sim_unthrottle_in(g) at the compute's end (which does nothing when g was not throttled). */
void sim_throttle_in(int64_t g, double eta);
void sim_unthrottle_in(int64_t g);
/* What follows walker g's step k once its compute and transfers are done: the merges of an arrived
 * partial (acc->after_s) and, after the pass's last step, the epilogue (kernel.h), seconds. */
void sim_step_tail(int64_t g, int64_t k, const rs_krank_t *acc, double *merges_s, double *epilogue_s);

/* The engines: 0, or -1 (an 'X' record sent). sim_actors_create makes the actors (run by
 * simgrid_run); sim_dag_start sets the walkers going, sim_dag_end checks and frees after the run. */
int sim_actors_create(void);
int sim_dag_start(void);
int sim_dag_end(void);
/* True iff the activity engine runs this configuration (sim_dag.c's rules). */
bool sim_dag_eligible(const rs_sim_config_t *cfg);

#endif /* RS_SIM_RUN_H */
