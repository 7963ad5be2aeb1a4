/* job.h - a job of concurrent rings on a generated fabric: placement, background traffic, and what
 * the simulator reports per ring, per hop and per link.
 *
 * Context parallelism runs one ring (one CP group of N ranks) per tensor-parallel rank and per
 * data-parallel replica, all at once. A job is R rings of the one schedule (model/2-schedule): ring r's
 * rank p runs on device placement.device[r N + p]; every ring walks the same schedule with its own
 * hosts. Rings share whatever their routes share on the fabric (sim/fabric.h): NICs, leaf uplinks.
 *
 * Placement by degrees: D = tp x cp x dp devices, cp = N. A device's coordinates (t, c, d) give its
 * index by an order, innermost first (Megatron's default "tp-cp-dp": TP fastest, so TP groups sit
 * inside a node, CP across nodes): index = sum of coordinate x stride, strides growing in that
 * order. Ring (t, d) is the CP group {(t, c, d) : c < cp}, rank c; rings are numbered t + tp d.
 * Placement by a map file: one line per ring, the N device indices of its ranks in ring order
 * ('#' starts a comment); every line has N entries, a device appears at most once.
 *
 * Background traffic (optional): the collectives a framework issues while this attention layer runs,
 * sized from a model preset, started with the pass (t = 0) on their own stream and run as NCCL's ring
 * algorithm over the group's devices in device order (a step sends bytes / P to the next member and
 * receives from the previous; the next step starts when both are done):
 *   dp    data-parallel gradient all-reduce (backward only): 2 (P - 1) steps of g / P bytes, g = one
 *         layer's gradients held by a device (its TP shard) in grad_bytes per element;
 *   fsdp  forward: all-gather of the next layer's parameters, P - 1 steps of w / P (w = one layer's
 *         parameters of the TP shard in act_bytes per element); backward: that all-gather and, at the
 *         same time, the reduce-scatter of the finished layer's gradients (P - 1 steps of g / P).
 * Group: dp-cp (Megatron's data-parallel group with context parallelism and torch FSDP's dp_shard x
 * cp mesh: every device of the same TP rank) or dp (the same TP and CP rank). With a map file: dp =
 * rank p of every ring, dp-cp = every placed device.
 */
#ifndef RS_SIM_JOB_H
#define RS_SIM_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric.h"
#include "machine.h"
#include "memory.h"
#include "schedule.h"
#include "util.h"

/* ---------------------------------------------------------------------------------------------------
 * Placement
 * ------------------------------------------------------------------------------------------------- */
typedef enum { RS_DIM_TP = 0, RS_DIM_CP, RS_DIM_DP, RS_DIM_COUNT } rs_dim_t;

typedef struct {
    int64_t n_rings;      /* R */
    int64_t ring_ranks;   /* N */
    int64_t devices;      /* D: devices of the fabric (>= R N; unplaced devices idle) */
    int64_t *device;      /* [R N]: device of ring r's rank p at r N + p (malloc'd) */
    int64_t tp, cp, dp;   /* degrees; 0 when placed by a map file */
    rs_dim_t order[RS_DIM_COUNT]; /* innermost first (degrees only) */
    char source[512];     /* "tp 8 x cp 64 x dp 1, order tp-cp-dp" or "map FILE" */
} rs_placement_t;

/* Parse an order "tp-cp-dp" (any permutation of tp, cp, dp, '-' or ',' between). Returns 0 or -1
 * with err naming --order. */
int rs_placement_order_parse(const char *s, rs_dim_t order[RS_DIM_COUNT], rs_err_t *err);

/* A placement by degrees. */
typedef struct {
    int64_t tp, cp, dp;     /* degrees, each in [1, 2^24] */
    const rs_dim_t *order;  /* [RS_DIM_COUNT]: innermost first */
    int64_t devices;        /* 0: D = tp cp dp; else the degrees must multiply to it */
} rs_placement_degrees_t;

/* Place tp x cp x dp devices by order ("--tp 8 --cp 8 --dp 3: 192 devices, but --devices 256: the
 * degrees must multiply to the device count"). Returns 0 or -1 with err. */
int rs_placement_grid(const rs_placement_degrees_t *d, rs_placement_t *out, rs_err_t *err);

/* Load a map file for rings of ring_ranks ranks. devices = 0: D = the highest device + 1; else
 * every device must be < devices. Errors name FILE:LINE: a line with another count than N, a device
 * that is not a non-negative integer or out of range, a device named twice ("device 5 already holds
 * ring 0 rank 5 (line 1): a device holds one rank"), no ring at all. Returns 0 or -1 with err. */
int rs_placement_load_map(const char *path, int64_t ring_ranks, int64_t devices, rs_placement_t *out,
                          rs_err_t *err);
void rs_placement_free(rs_placement_t *p);

/* ---------------------------------------------------------------------------------------------------
 * Background traffic
 * ------------------------------------------------------------------------------------------------- */
typedef enum { RS_BG_NONE = 0, RS_BG_DP, RS_BG_FSDP, RS_BG_COUNT } rs_bg_kind_t;
typedef enum { RS_BG_GROUP_DP_CP = 0, RS_BG_GROUP_DP, RS_BG_GROUP_COUNT } rs_bg_group_t;
const char *rs_bg_kind_name(rs_bg_kind_t k);                  /* "none" | "dp" | "fsdp" */
int rs_bg_kind_parse(const char *s, rs_bg_kind_t *out);        /* 0 or -1 */
const char *rs_bg_group_name(rs_bg_group_t g);                 /* "dp-cp" | "dp" */
int rs_bg_group_parse(const char *s, rs_bg_group_t *out);      /* 0 or -1 */

typedef struct {
    rs_bg_kind_t kind;
    rs_bg_group_t group;
    double param_bytes;      /* one layer's parameters held by a device (its TP shard), bytes */
    double grad_bytes;       /* that layer's gradients as reduced, bytes */
    char model[RS_NAME_LEN]; /* the model preset they come from ("" = given in bytes) */
} rs_background_t;

/* Size one layer's traffic from a model: per device (matmul parameters / tp + the layer's norm
 * vectors) x act_bytes for parameters, x grad_bytes for gradients. Can't fail (t validated). */
void rs_background_size(rs_background_t *bg, const rs_transformer_t *t, int64_t tp, int64_t act_bytes,
                        int64_t grad_bytes);

/* ---------------------------------------------------------------------------------------------------
 * The job and its results
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    rs_placement_t placement;   /* rings over devices (owned) */
    rs_fabric_t fabric;         /* the fabric they run on; fabric.devices == placement.devices */
    rs_background_t background; /* collectives beside the rings */
} rs_job_t;

/* Check the job against itself: devices agree, every placed device exists, the fabric is valid.
 * Returns 0 or -1 with err. */
int rs_job_validate(const rs_job_t *j, rs_err_t *err);
void rs_job_free(rs_job_t *j);

/* Collectives of one background kind in a pass: count (0..2) and, for each, its name ("all-reduce",
 * "all-gather", "reduce-scatter"), steps per member for a group of P (P - 1 or 2 (P - 1)) and the
 * bytes a member sends per step (ceil(bytes / P)). Can't fail. */
#define RS_BG_MAX_COLL 2
typedef struct {
    const char *name;
    int64_t steps;
    uint64_t step_bytes;
} rs_bg_coll_t;
int rs_background_colls(const rs_background_t *bg, rs_pass_t pass, int64_t group_size, rs_bg_coll_t out[RS_BG_MAX_COLL]);

/* Background groups of a placement: members (device indices, ascending) of group i are
 * members[offset[i] .. offset[i+1]). Returns the group count (>= 0) or -1 on OOM; *members and
 * *offset are malloc'd. */
int64_t rs_background_groups(const rs_placement_t *p, rs_bg_group_t group, int64_t **members, int64_t **offset);

#define RS_JOB_ROUTE_MAX 4 /* shared links on one path: NVLink port up/down, or NIC up, uplink, downlink, NIC down */

typedef struct {
    double makespan_s;       /* latest step end of the ring's ranks */
    double walk_makespan_s;  /* the contention-free walk of this ring as placed (model/4-cost/cost.h) */
    double slowdown;         /* makespan / walk */
    int64_t inter_hops;      /* hops crossing nodes */
    int64_t worst_hop;       /* hop (rank) with the lowest achieved / nominal bandwidth */
    double worst_ratio;      /* that ratio (1 = the hop ran at its tier's bandwidth) */
} rs_ring_result_t;

typedef struct {
    int64_t ring, rank;      /* hop rank -> rank + 1 of ring */
    int64_t src, dst;        /* devices */
    bool inter;              /* crosses nodes */
    double nominal_bw;       /* its tier's bandwidth, bytes/s */
    double latency_s;        /* its route's latency */
    double bytes;            /* moved over the pass */
    double flow_s;           /* summed time its flows were flowing (after the latency) */
    double min_bw;           /* lowest achieved bandwidth of one step, bytes/s (0: nothing moved) */
    int32_t n_route;         /* shared links on its route */
    int32_t route[RS_JOB_ROUTE_MAX]; /* their indices in links */
    int32_t bottleneck;      /* the route's link with the highest busy utilisation (-1: none) */
} rs_hop_result_t;

typedef struct {
    char name[48];           /* SimGrid link id (fabric.h) */
    double capacity_bw;      /* bytes/s */
    double bytes;            /* carried over the pass */
    double busy_s;           /* time at least one flow was flowing through it */
    int64_t flows;           /* flows that crossed it */
} rs_link_result_t;

typedef struct {
    char name[32];           /* "all-reduce" ... */
    int64_t groups;          /* concurrent instances (one per group) */
    int64_t members;         /* P of the largest group */
    double bytes;            /* bytes one member sends over the collective */
    double end_s;            /* latest end over instances */
} rs_bg_result_t;

typedef struct {
    int64_t n_rings, n_hops, n_links, n_bg;
    rs_ring_result_t *rings;  /* [n_rings] */
    rs_hop_result_t *hops;    /* [n_hops]: ring r's hop p at r N + p */
    rs_link_result_t *links;  /* [n_links]: shared links that carried traffic, in discovery order */
    rs_bg_result_t bg[RS_BG_MAX_COLL];
    double makespan_s;        /* latest ring end */
} rs_job_result_t;

void rs_job_result_free(rs_job_result_t *r);

/* Busy utilisation of a link: bytes / (capacity x busy time), 1 when it ran at capacity whenever it
 * carried anything (0 when idle). Can't fail. */
double rs_link_busy_util(const rs_link_result_t *l);
/* Index of the link that saturates most: the highest bytes / capacity (time it would take at full
 * rate) among links whose busy utilisation is >= 1 - 1e-6; -1 when none. Can't fail. */
int64_t rs_job_saturated_link(const rs_job_result_t *r);

#endif /* RS_SIM_JOB_H */
