/* study_contention.h - the contention study: a job of concurrent rings (sim/job.h) simulated over the
 * knobs a planner buys - NICs per node, leaf-spine oversubscription, fabric kind, placement order -
 * one CSV row per point, and the figure of balance efficiency against NICs per node (or oversubscription).
 * Behind `ringsim sweep` with fabric knobs, `ringsim plan --sim` with them and the one-point job of
 * `ringsim sim` (which builds its job here too). Jobs exist only in the simulator, so this study
 * calls it directly (sim/sim.h): the backend interface runs one ring.
 *
 * A point is (case, fabric, order, oversubscription, NICs): a case is a problem (one layout and
 * pass) on a machine; the job places tp x N x dp devices by the order (or a map file) on nodes of
 * the machine's G with the point's K NICs, fabric and ratio. Per point: the job's makespan, the
 * contention-free makespan (the slowest ring's walk alone as placed), the worst ring slowdown, the
 * balance efficiency (one ring's mean per-rank compute, which contention leaves as it is, over the
 * makespan; docs/model.md "Metrics") with and without contention, the worst hop's achieved / nominal bandwidth, the link that saturates,
 * the background's end, and what the simulation cost.
 */
#ifndef RS_STUDY_CONTENTION_H
#define RS_STUDY_CONTENTION_H

#ifdef RINGSIM_HAVE_SIM
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "job.h" /* jobs of concurrent rings exist only in the simulator: the backend interface runs one ring */
#include "setup.h"
#include "sim.h" /* rs_sim_run with a job, rs_sim_estimate */

#define RS_CONT_MAX_VALUES 16

/* The knobs and the job around them; lists are swept, one value each for a single job. */
typedef struct rs_contention_knobs {
    int64_t tp, dp;                     /* degrees (cp = the problem's N) */
    int64_t devices;                    /* 0 = tp N dp (or the map's) */
    const char *map;                    /* a map file instead of degrees and orders (NULL: degrees) */
    int n_orders;                       /* placement orders, innermost first (>= 1) */
    rs_dim_t orders[RS_CONT_MAX_VALUES][RS_DIM_COUNT];
    int n_fabrics;                      /* fabric kinds (>= 1) */
    rs_fabric_kind_t fabrics[RS_CONT_MAX_VALUES];
    int n_nics;                         /* NICs per node; 0 entries = G (>= 1 value) */
    int64_t nics[RS_CONT_MAX_VALUES];
    int n_oversubs;                     /* leaf downlink : uplink ratios >= 1 (>= 1 value) */
    double oversubs[RS_CONT_MAX_VALUES];
    int64_t nodes_per_leaf;             /* 0 = the fabric's default */
    rs_background_t background;         /* sized by the caller (rs_background_size or bytes) */
} rs_contention_knobs_t;

/* One job, tp = dp = 1, order tp-cp-dp, flat, K = G, non-blocking, no background. Can't fail. */
void rs_contention_knobs_default(rs_contention_knobs_t *k);

/* Order i of the knobs as "tp-cp-dp" ("map" with a map file) into buf. Returns buf. */
const char *rs_contention_order_name(const rs_contention_knobs_t *k, int i, char *buf, size_t len);

/* The values of one point. */
typedef struct {
    rs_fabric_kind_t fabric;
    int order;                          /* index into knobs.orders */
    double oversub;
    int64_t nics;                       /* 0 = G */
} rs_contention_pick_t;

/* Build the job of one pick for problem p on machine m (validated): placement, fabric (m's G and
 * tiers, host speed F_eff(B)), the knobs' background. Returns 0 or -1 with err naming the option
 * and the rule (degrees against --devices, K against G, a map file's line). */
int rs_contention_job(const rs_contention_knobs_t *k, const rs_contention_pick_t *pick, const rs_problem_t *p,
                      const rs_machine_t *m, rs_job_t *job, rs_err_t *err);

/* A case: what the knobs are swept on. */
typedef struct {
    char profile[512];                  /* the profile as named (CSV column) */
    rs_problem_t problem;               /* one layout and pass */
    rs_machine_t machine;               /* built for the problem's N */
} rs_contention_case_t;

typedef struct {
    size_t case_index;
    rs_contention_pick_t pick;
    int64_t devices, rings;
    char series[192];                   /* fabric/order/ratio (and what else differs between cases) */
    double makespan_s;                  /* the job's */
    double free_s;                      /* the slowest ring's contention-free walk */
    double slowdown;                    /* worst ring: makespan / its own walk */
    double busy_mean_s;                 /* one ring's mean per-rank compute, alone (the walk) */
    double balance_efficiency;          /* busy_mean_s / makespan_s (docs/model.md "Metrics") */
    double balance_efficiency_free;     /* busy_mean_s / free_s */
    double worst_ratio;                 /* lowest achieved / nominal bandwidth of a hop */
    char saturated[48];                 /* the link at capacity that carried most ("" = none) */
    double bg_end_s;                    /* the background's latest end (0 = none) */
    double sim_wall_s;                  /* SimGrid in the child */
    long peak_rss_bytes;                /* the child's */
} rs_contention_point_t;

typedef struct {
    const rs_contention_case_t *cases;  /* at least one */
    size_t n_cases;
    const rs_contention_knobs_t *knobs;
    const char *csv;                    /* the points as CSV, atomically; "-" = stdout; NULL: none */
    const char *figure;                 /* balance efficiency vs NICs (or ratio): .png/.pdf/.svg; needs csv; NULL: none */
    const char *command;                /* the CSV's "# command=" line (NULL: none) */
    bool progress;                      /* a progress meter on a terminal (model/1-base/meter.h) */
    bool distribute;                    /* under a launcher (mpirun, srun: MPI) divide the points over its
                                           processes (spread.h): point i on rank i mod P, rank 0 gathers
                                           them and writes the CSV and the figure, what one process
                                           writes but for the run's own cost (sim_wall_s, peak_rss_bytes);
                                           a failed point on any rank: no file, -1 on rank 0 with err
                                           naming the rank, its points and the failure */
} rs_contention_in_t;

typedef struct {
    rs_contention_point_t *points;      /* malloc'd: free() it */
    size_t n;                           /* points set up */
    size_t done;                        /* points simulated */
    bool worker;                        /* a rank > 0 of a distributed study: rank 0 wrote (done = 0 here) */
} rs_contention_out_t;

/* Points of a study: cases x fabrics x orders x ratios x NICs (NICs fastest). */
size_t rs_contention_count(const rs_contention_in_t *in);

/* What simulating every point costs, one after the other (estimate.h: each point's job through
 * rs_sim_estimate). Returns 0, or -1 with err when a point's job cannot be built (bad input). */
int rs_contention_estimate(const rs_contention_in_t *in, rs_estimate_t *e, rs_err_t *err);
/* Check every point's job (nothing runs on bad input), simulate them in order (or spread over a
 * launcher's ranks: in->distribute), write the CSV and the figure. Testing: RINGSIM_SWEEP_FAIL_POINT=i
 * makes point i fail as a runtime error would. Returns 0, or -1 with err: RS_ERR_BAD_INPUT (a point's job), a simulation's own kind
 * ("point 3 (...): ...": bad input when its job or schedule is refused, else runtime or timeout),
 * RS_ERR_RUNTIME (writing). out is filled in every case. */
int rs_study_contention(const rs_contention_in_t *in, rs_contention_out_t *out, rs_err_t *err);

#endif /* RINGSIM_HAVE_SIM */
#endif /* RS_STUDY_CONTENTION_H */
