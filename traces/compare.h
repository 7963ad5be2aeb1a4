/* compare.h - align two traces of the same problem and measure how far apart they are.
 *
 * `ringsim compare REF OTHER`: REF is the reference (usually the measurement), OTHER is compared
 * against it. Events are aligned by (rank, step, pass, kind). Per (rank, step, pass) three
 * durations are compared:
 *   T_comp  the compute event's duration;
 *   T_comm  the recv event's duration: post to the arrival of the step's incoming block(s) (the
 *           longest recv if a step has several). The send's end is when the sender learns that
 *           its block left, which an MPI rank without a progress engine sees only at its next MPI
 *           call; the ring's step waits for the arrival. (Model and simulator traces end the send
 *           and the recv of a hop together.)
 *   T_step  the step event's duration.
 * Relative error = (other - ref) / ref (signed; statistics use its absolute value). A pair whose
 * reference duration is 0 is not counted (n_undefined), unless both are 0 (error 0).
 * Makespan = latest end - earliest start of each trace (rs_trace_makespan).
 * Statistics: median (mean of the two middle values for an even count), p95 (nearest rank:
 * the ceil(0.95 n)-th smallest), max, and the (rank, step, pass) of the max.
 *
 * Per role (trace.h role events: attn, merge, cast, other), like with like: a role is compared only
 * where both traces have events of it; then per (rank, step, pass) where either has one (a missing
 * one is 0 busy: a trace with events of a role has one wherever that role ran) the busy times are a
 * point (metric RS_CMP_ROLE_METRIC(role)), and the role's ratio is other / reference of the summed
 * busy times. A role only one trace has is unmatched: its time is shown, in no ratio and no point.
 */
#ifndef RS_COMPARE_H
#define RS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stats.h"
#include "trace.h"

typedef enum { RS_CMP_COMP = 0, RS_CMP_COMM, RS_CMP_STEP, RS_CMP_METRIC_COUNT } rs_cmp_metric_t;
/* The metric of a role's busy time (rs_role_t r): after the three above. */
#define RS_CMP_ROLE_METRIC(r) ((rs_cmp_metric_t)(RS_CMP_METRIC_COUNT + (int)(r)))
/* "t_comp" | "t_comm" | "t_step" | "attn_busy" | "merge_busy" | "cast_busy" | "other_busy" */
const char *rs_cmp_metric_name(rs_cmp_metric_t m);

typedef struct {
    int32_t rank;            /* ring rank */
    int32_t step;            /* step within the pass */
    rs_pass_t pass;          /* forward / backward */
    rs_cmp_metric_t metric;  /* which duration */
    double ref_s;            /* duration in REF, seconds */
    double other_s;          /* duration in OTHER, seconds */
    double rel_err;          /* (other - ref) / ref; NaN when undefined */
} rs_cmp_point_t;

typedef struct {
    size_t n;                /* pairs with a defined error */
    size_t n_undefined;      /* pairs with ref 0 and other > 0 */
    double median_abs;       /* median |rel_err| */
    double p95_abs;          /* 95th percentile |rel_err| */
    double max_abs;          /* max |rel_err| */
    rs_cmp_point_t worst;    /* the worst pair (its signed error, durations, rank, step, pass);
                                worst.rank -1 when n == 0 */
} rs_cmp_stats_t;

/* Where a role's events are: in both traces (compared), in one only (unmatched), in neither. */
typedef enum { RS_CMP_ROLE_BOTH = 0, RS_CMP_ROLE_REF_ONLY, RS_CMP_ROLE_OTHER_ONLY, RS_CMP_ROLE_NEITHER } rs_cmp_role_status_t;
const char *rs_cmp_role_status_name(rs_cmp_role_status_t s); /* "compared" | "reference-only" | "other-only" | "absent" */

/* One role compared. */
typedef struct {
    rs_cmp_role_status_t status;
    rs_cmp_stats_t stats;    /* per (rank, step, pass) busy time |error| (BOTH only; else n 0) */
    double ref_busy_s;       /* REF's busy time of the role summed over its role events (0 without) */
    double other_busy_s;     /* OTHER's */
    double ratio;            /* other_busy_s / ref_busy_s: BOTH with ref_busy_s > 0, else NaN. >= 0,
                                unbounded: a ratio, not an efficiency */
    double ref_share;        /* ref_busy_s / REF's busy time over all roles, in [0, 1]; NaN without roles */
    double other_share;      /* the same in OTHER */
} rs_cmp_role_t;

typedef struct {
    rs_cmp_stats_t stats[RS_CMP_METRIC_COUNT]; /* per metric */
    rs_cmp_role_t role[RS_ROLE_COUNT];         /* per role (trace.h rs_role_t); a trace has role events iff
                                                  some role's status includes it */
    double makespan_ref_s;   /* REF makespan */
    double makespan_other_s; /* OTHER makespan */
    double makespan_rel;     /* (other - ref) / ref */
    size_t n_points;         /* per-(rank, step, pass, metric) points, sorted by pass, rank, step, metric;
                                then the roles' points, by role, pass, rank, step */
    rs_cmp_point_t *points;  /* [n_points] (owned) */
    size_t only_ref;         /* events present in REF only */
    size_t only_other;       /* events present in OTHER only */
} rs_compare_t;

/* Refuse traces of different problems, by their headers only: 0 if both describe the same problem,
 * else -1 with err listing every field that differs ("n_ranks 8 vs 16, layout zigzag vs striped") or
 * naming the trace whose header lacks a problem key. Names used in messages: name_ref, name_other.
 * For a caller that checked a trace's events already (validate --from-trace at load). */
int rs_compare_check_headers(const rs_trace_t *ref, const rs_trace_t *other, const char *name_ref,
                             const char *name_other, rs_err_t *err);
/* rs_compare_check_headers, then each trace's events against its header (rs_compare_check_events):
 * what `ringsim compare` checks of two traces it has just read. */
int rs_compare_check_problem(const rs_trace_t *ref, const rs_trace_t *other, const char *name_ref,
                             const char *name_other, rs_err_t *err);

/* Refuse a trace whose events do not match its header's problem (so that a trace cut at a line
 * boundary is not compared with half its events): every (rank, step) of ranks 0..N-1 and steps 0..n_steps-1
 * of the header's pass has events, one of them a 'step' event, and no event lies outside (another
 * pass, a rank >= N, a step >= n_steps). Returns 0, or -1 with err naming the first (rank, step) in
 * (rank, step) order: "x.csv: rank 3 step 2 has no events (the header's problem has 4 ranks x 4
 * forward steps): a cut or partial trace". rs_compare_check_problem calls it for both traces. The
 * refusals of all three carry RS_ERR_BAD_INPUT. */
int rs_compare_check_events(const rs_trace_t *t, const char *name, rs_err_t *err);

/* Align and compare (does not check the problem; call rs_compare_check_problem first). The traces
 * need not be sorted. Returns 0, or -1 with err when no event matches or on OOM. Free with
 * rs_compare_free(). */
int rs_compare_traces(const rs_trace_t *ref, const rs_trace_t *other, rs_compare_t *out, rs_err_t *err);
void rs_compare_free(rs_compare_t *c);

/* Typical step of one pass of a trace: medians over (rank, step) of the compute duration, of the
 * transfer duration (the recv, as T_comm above; steps without transfers are not
 * counted) and of the step duration; and the pass's makespan (latest end - earliest start of its
 * events). A median with no sample is NaN. */
typedef struct {
    double t_comp_s;     /* median compute duration */
    double t_comm_s;     /* median transfer duration */
    double t_step_s;     /* median step duration */
    double t_comp_xfer_s; /* median compute duration of the steps that also transfer (the compute a
                          * transfer must hide; NaN if none) */
    double t_comp_alone_s; /* median compute duration of the steps without a transfer (NaN if none) */
    double t_step_comp_s; /* median step duration of the steps that compute (the t_comp_s samples'
                          * steps, each at least its compute: t_comp_s / t_step_comp_s <= 1) */
    double busy_mean_s;  /* mean over the pass's ranks of their summed compute durations */
    size_t n_ranks;      /* ranks with an event of the pass */
    double makespan_s;   /* the pass's makespan */
    size_t n_comp;       /* samples behind each median */
    size_t n_comm;
    size_t n_step;
    size_t n_comp_xfer;
    size_t n_comp_alone;
} rs_trace_summary_t;

/* The overlap efficiency of a summarized pass (docs/model.md "Metrics"): t_comp_s / t_step_comp_s, the
 * median compute over the median duration of the same steps, in [0, 1]; NaN without such a step (the
 * sweep CSV's *_overlap_efficiency columns, the scaling figure's lower panel). Can't fail. */
double rs_trace_overlap_efficiency(const rs_trace_summary_t *s);
/* Summarize the events of pass. Returns 0, or -1 with err when the pass has no event or on OOM. */
int rs_trace_summarize(const rs_trace_t *t, rs_pass_t pass, rs_trace_summary_t *out, rs_err_t *err);

/* Crossover block size in measured data: points (b[i], t_comp[i], t_comm[i]) sorted by b; the first
 * i where t_comm - t_comp changes sign (comm-bound to compute-bound or back), interpolated linearly
 * in (log b, log(t_comm / t_comp)). Points with a non-positive or non-finite value are skipped. A
 * point with t_comm == t_comp exactly is the crossover. NaN when there is none. Can't fail. */
double rs_crossover_b(const double *b, const double *t_comp, const double *t_comm, size_t n);
/* The same crossing, estimated for noisy (measured) points: at the first sign change, a least-squares
 * line log(t_comm / t_comp) = a + s log b through up to `half` valid points on each side of it, and
 * the b where the line crosses 0. Where two curves cross at a shallow angle one noisy point moves the
 * interpolated crossing a lot; the line through 2 x half points moves it less. Falls back to
 * rs_crossover_b() when the line is flat, rises the other way, or crosses outside the points used.
 * NaN when there is no sign change. Can't fail. */
double rs_crossover_b_fit(const double *b, const double *t_comp, const double *t_comm, size_t n, int half);

/* Fixed-width summary table; then, when either trace has role events, one row per role: its points,
 * both busy times, the ratio, median and p95 |error|, each trace's share, and for an unmatched or
 * absent role what is missing ("model has no cast events: unmatched, in no ratio"). Can't fail. */
void rs_compare_print(const rs_compare_t *c, const char *name_ref, const char *name_other, FILE *out);
/* Per-point CSV ('#' summary lines, then rank,step,pass,metric,ref_s,other_s,rel_err), atomically:
 * version 1 without role events in either trace; version 2 adds a '# role ROLE: ...' summary line
 * per role and the roles' points (metric ROLE_busy). Returns 0 or -1 with err. */
int rs_compare_write_csv(const rs_compare_t *c, const char *name_ref, const char *name_other,
                         const char *path, rs_err_t *err);

#endif /* RS_COMPARE_H */
