/* job_child.h - internal to sim/: a job's bookkeeping inside the simulation child, and the parent's
 * reader of what the child sends back (sim.c calls both; see job.h for the job itself).
 *
 * Global rank g = r N + p is ring r's rank p. The child records, per hop (g -> its ring's next rank),
 * the bytes moved, the time its flows were flowing (from max(both step starts) + the route's
 * latency to the send's completion) and the lowest per-step bandwidth; per shared link (not
 * FATPIPE) of the routes, the bytes carried and the union of the intervals in which a flow was
 * flowing through it (its busy time); per background collective, its latest end. The actors call
 * these from inside the simulation.
 */
#ifndef RS_SIM_JOB_CHILD_H
#define RS_SIM_JOB_CHILD_H

#include <stdint.h>
#include <stdio.h>

#include <simgrid/forward.h>

#include "job.h"
#include "job_fold.h"
#include "schedule.h"

/* Child. Set up for a pass of the job with rings of ring_ranks; with a fold (NULL: none) only its
 * simulated rings and members run (walker g is ring fold->ring[g / N]'s rank g mod N) and the
 * results are unfolded onto every ring, hop and link. Returns 0 or -1 (out of memory). */
int rs_jc_init(const rs_job_t *job, const rs_job_fold_t *fold, rs_pass_t pass, int64_t ring_ranks);
/* Rank g's actor starts: its hop's route (latency, shared links) from src to dst. */
void rs_jc_rank_route(int64_t g, sg_host_t src, sg_host_t dst);
/* Rank g starts step k at t0 (before posting anything). */
void rs_jc_step_start(int64_t g, int64_t k, double t0);
/* Rank g's sends of step k (bytes in all), posted at t0, completed at end_s. */
void rs_jc_hop_done(int64_t g, int64_t k, double t0, double end_s, double bytes);
/* Rank g ended a step at te. */
void rs_jc_rank_end(int64_t g, double te);
/* What job_child.c's books and job_bg.c share: a transfer's route from src to dst (latency and shared
 * links, at most RS_JOB_ROUTE_MAX), and a flow of `bytes` through those links from s to e. */
void rs_jc_route(sg_host_t src, sg_host_t dst, double *lat, int32_t *n_route, int32_t route[RS_JOB_ROUTE_MAX]);
void rs_jc_flow(const int32_t *route, int32_t n_route, double s, double e, double bytes);
/* The background collectives (job_bg.c): set up for the pass (rs_jc_init calls it; 0 or -1 out of
 * memory), their count, the groups' members (slot i of group k at offset[k] + i; returns the slots,
 * 0 without a background) and their results after the 'J' record's links. */
int rs_jc_bg_init(const rs_job_t *job, const rs_job_fold_t *fold, rs_pass_t pass);
int rs_jc_bg_colls(void);
int64_t rs_jc_bg_slots(const int64_t **member, const int64_t **offset);
void rs_jc_bg_write(FILE *out);
/* Create the background collectives' actors (one per member and collective; the actor engine).
 * Returns 0 or -1. */
int rs_jc_start_background(void);
/* The activity engine's background members (the fold's only): their count (-1: out of memory or a
 * missing host), their hosts into host[] when not NULL; their sgx owners are owner0 + i. */
int64_t rs_jc_engine_walkers(sg_host_t *host, int64_t owner0);
/* From the engine at t = 0, after the ring routes: every member's route and first step. Returns 0
 * or -1 (out of memory); rs_jc_engine_failed() after the run says whether a later step ran out. */
int rs_jc_engine_start(void);
int rs_jc_engine_failed(void);
/* After the run: write tag 'J' and the results to out. Returns 0 or -1 (write error). */
int rs_jc_write(FILE *out);

/* Parent. Read what follows a 'J' tag into out (allocates its arrays; rings, hops and links only
 * carry what the child measured). rd reads exactly n bytes and returns 1. Returns 0 or -1. */
typedef int (*rs_jc_read_fn)(int fd, void *buf, size_t n);
int rs_jc_read(int fd, rs_jc_read_fn rd, rs_job_result_t *out);

/* Parent, after rs_jc_read: hop identities and tiers, bottleneck links, each ring's contention-free
 * walk (the machine with the ring's own hop tiers) and slowdown, the worst hop. Returns 0 or -1
 * with err. */
int rs_job_finish(const rs_job_t *job, const rs_schedule_t *s, const rs_machine_t *m, rs_job_result_t *r,
                  rs_err_t *err);

#endif /* RS_SIM_JOB_CHILD_H */
