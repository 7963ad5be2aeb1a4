/* calibrate.h - measure this machine with the real kernel and transport, for the model's profile.
 *
 * SPMD: every rank of the transport calls rs_calibrate(); rank 0 receives the result.
 *  1. Kernel: for every B of the list, every rank at once runs the compute backend's step on one
 *     FULL B x B block (the problem's heads, head_dim, batch, pass), in 5 rounds over all B (so a
 *     burst of outside load spreads over the sizes), min_time_s per B in total;
 *     F_eff(B) = flops_exec / median time (median over repetitions, then over ranks).
 *  2. Transport: for message sizes m, every rank at once sends m bytes to p+1 and receives m from
 *     p-1 (the ring step's pattern, no compute); the receive's post-to-completion time is the
 *     sample. Fit t(m) = L + m / W by least squares on relative error.
 *  3. Overlap: at every B whose compute takes <= 0.1 s, the block step with the pass's own ring
 *     transfers posted at its start: those of the pass's computing step that moves the most bytes on
 *     this ring (rs_calib_step_flows: the forward's K,V; the backward's K,V and dK,dV partial
 *     together when N > 2); per point the receives' completion E (from their post: the step's
 *     blocks' arrival) and the compute with and without the transfers.
 *     Host cost: the compute time the transfers take from the rank, t_busy - t_alone = n o + O m
 *     (n flows of m bytes in all), fitted by least squares on the relative error of the predicted
 *     busy compute (o, O >= 0).
 *     Overlap: each point's eta inverts docs/model.md's eta step with the model's own compute
 *     (t_alone + o + O m); the points form the overlap curve eta(bytes). One eta for all points
 *     (minimising the median |relative error| of the completions, grid 0.001) is reported too, and
 *     sigma (median t_busy / t_alone) for reference.
 * The profile: F_peak(fp32) = the largest F_eff(B), eff(B) = F_eff(B) / F_peak, the intra tier
 * (L, W), the overlap curve and the host cost (comp_slowdown 1: the host cost describes the busy
 * compute).
 */
#ifndef RS_CALIBRATE_H
#define RS_CALIBRATE_H

#include "exec.h"
#include "machine.h"

#define RS_CALIB_MAX_SIZES 24
#define RS_CALIB_MAX_OV RS_MAX_EFF_POINTS

typedef struct {
    int n_blocks;                         /* block sizes to measure (<= RS_MAX_EFF_POINTS) */
    int64_t blocks[RS_MAX_EFF_POINTS];    /* B values, increasing */
    int n_sizes;                          /* message sizes (0: derived from the blocks) */
    uint64_t sizes[RS_CALIB_MAX_SIZES];   /* bytes, increasing */
    double min_time_s;                    /* per measurement point (default 0.05 s) */
    int min_reps;                         /* at least this many repetitions (default 3) */
    double timeout_s;                     /* transport waits */
    bool polled;                          /* the transport moves data only when the compute polls it
                                           * (MPI, --progress poll): fit the poll model too */
} rs_calib_opts_t;

typedef struct {
    int64_t block;                         /* B of the compute */
    uint64_t bytes;                        /* the transfers posted with it, in all (rs_calib_step_flows) */
    int n_flows;                           /* how many (1, or 2: K,V and dK,dV) */
    double t_comp_s;                       /* compute alone */
    double t_comp_busy_s;                  /* compute with the transfer in flight */
    double t_xfer_s;                       /* transfer alone by the fit: L + bytes / W */
    double t_end_s;                        /* measured completion of the receive, from its post */
    double t_end_fresh_s;                  /* ... of the same step with fresh transfers (0: not measured) */
    double eta;                            /* inverted overlap factor (with the fitted host cost) */
    double sigma;                          /* t_comp_busy_s / t_comp_s (>= 1) */
    double polls;                          /* polls of the receiver's block step (0: not polled) */
    double poll_first;                     /* rs_poll_first_frac of its pass (0: even spacing, 0.5) */
} rs_calib_overlap_t;

typedef struct {
    int n_blocks;                          /* measured F_eff(B) */
    int64_t blocks[RS_MAX_EFF_POINTS];
    double t_block_s[RS_MAX_EFF_POINTS];   /* median step time of a full block */
    double flops_eff[RS_MAX_EFF_POINTS];   /* FLOP/s */
    double flops_peak;                     /* max F_eff */
    int n_sizes;                           /* transport samples */
    uint64_t sizes[RS_CALIB_MAX_SIZES];
    double t_msg_s[RS_CALIB_MAX_SIZES];    /* median post-to-completion time of a fresh transfer (RS_CALIB_TAG_PRIME) */
    double t_msg_reused_s[RS_CALIB_MAX_SIZES]; /* ... the buffers rotating as the ring's (0: not measured) */
    double latency_s, bw_bytes_per_s;      /* alpha-beta fit */
    double fit_err_max;                    /* max |fit - measured| / measured over the sizes */
    double eta;                            /* one overlap factor fitted over all points */
    double sigma;                          /* measured compute slowdown (median, for reference) */
    double host_fit_err;                   /* median |relative error| of the busy compute with o + O m */
    double mem_bw_bytes_per_s;             /* memcpy bandwidth (one rank) */
    int n_ov;                              /* overlap measurements, one per block (compute <= 0.1 s) */
    rs_calib_overlap_t ov[RS_CALIB_MAX_OV];
    double eta_fit_err;                    /* median |relative error| of the fitted eta's completions */
    rs_calibration_t model;                /* what the model takes from these measurements (calibration.h):
                                            * eff(B) = F_eff(B) / flops_peak, the overlap curve (points with
                                            * an eta) and the fitted host cost o + O m (host_s_per_xfer,
                                            * host_s_per_byte); launch 0, overlap 1, slowdown 1 */
} rs_calib_t;

/* The transfers a ring step of the problem's pass moves at B on n_ranks ranks (contiguous, non-causal:
 * every rank alike): those of the computing step with the most bytes - the forward's K,V block; the
 * backward's K,V block and dK,dV partial together when N > 2 (at N = 2 one of them per step). Their
 * kinds and bytes into kind[], bytes[]. Returns their count (0 on a ring of 1), or -1 with err. */
int rs_calib_step_flows(const rs_problem_t *problem, int64_t B, int64_t n_ranks, rs_xfer_kind_t kind[RS_MAX_TRANSFERS],
                        uint64_t bytes[RS_MAX_TRANSFERS], rs_err_t *err);

/* What an overlap sample posted: its flows and their bytes in all. */
typedef struct {
    int n;
    uint64_t bytes;
    rs_poll_model_t geom;                  /* the compute's poll geometry (chunk_cols 0: it does not poll) */
    double polls;                          /* polls of the block step under it (rs_step_polls) */
    double poll_first;                     /* where in a unit its first poll falls (rs_poll_first_frac) */
} rs_calib_flows_t;

/* The tag of the untimed exchange that primes a fresh one: it receives the block the timed exchange
 * then sends, so that what a fresh transfer sends was just written by its sender, as in the ring; the
 * timed one receives into a buffer the rank never sends (rs_calibrate's transport sizes, and the
 * fresh transfers alone of rs_calib_overlap_samples). */
#define RS_CALIB_TAG_PRIME 4

/* Overlap samples at B on every rank (SPMD, collective; nothing on a ring of 1): `reps` repetitions
 * after one warm-up of: the pass's ring transfers alone (rs_calib_step_flows: sent to p+1, the same
 * received from p-1), the FULL B x B block step alone, then the step with the transfers posted at
 * its start (the K,V sent is the block being computed on). The buffers rotate after every
 * exchange as the ring's do (what was received is computed on and sent next; what was sent
 * receives), so the transfers alone and the step's run in the ring's steady state (the reused
 * curve); the transfers alone run once more as fresh ones (RS_CALIB_TAG_PRIME: a block its sender
 * just wrote, received into a buffer the peer never read: the fresh curve). Appends this rank's
 * receive completion with the compute (the last receive's, from their post), busy compute, alone
 * compute and (xfer_s, xfer_reused_s may be NULL) the receive completions of the transfers alone,
 * fresh and reused, per repetition to end_s, busy_s, alone_s, xfer_s, xfer_reused_s [*n, cap); then
 * (end_fresh_s may be NULL) the step once more with fresh transfers posted at its start, as the
 * ring's step 0 (and the backward's step 1) posts them, its receive completion to end_fresh_s.
 * *flows (may be NULL) says what was posted. Returns 0 or -1 with err. */
int rs_calib_overlap_samples(const rs_problem_t *problem, int64_t B, const rs_compute_ops_t *cops, int local_rank,
                             const rs_transport_ops_t *tops, void *ts, int reps, double timeout_s, double *end_s,
                             double *end_fresh_s, double *busy_s, double *alone_s, double *xfer_s, double *xfer_reused_s, size_t cap, size_t *n,
                             rs_calib_flows_t *flows, rs_err_t *err);

/* The alpha-beta fit t = L + m / W of out->sizes / out->t_msg_s (least squares on relative error;
 * fit_err_max the largest |relative error|), and every overlap point's t_xfer_s = L + bytes / W
 * with it. Can't fail. */
void rs_calib_fit_transport(rs_calib_t *c);
/* The same with the latency given (latency_s >= 0, e.g. --latency): W alone, u = 1/W minimising
 * sum ((L + m u - t) / t)^2 - one size suffices. bw_bytes_per_s is INFINITY when the samples do not
 * exceed the latency (u <= 0; callers refuse it). Can't fail. */
void rs_calib_fit_transport_latency(rs_calib_t *c, double latency_s);

/* From out->ov[] (block, bytes, n_flows, t_comp_s, t_comp_busy_s, t_xfer_s, t_end_s) and
 * out->latency_s: the host cost n o + O m (least squares on the relative error of t_comp_busy_s,
 * o, O >= 0, into out->model), every point's eta (the eta step of the walk's flows inverted with
 * t_comp_s + n o + O m: flows sharing a hop with equal starts end with their sum, so the last
 * receive inverts on the bytes in all) and the model's overlap curve from them (by bytes; points
 * need not be sorted), the one-eta fit and sigma. Can't fail. */
void rs_calib_fit_overlap(rs_calib_t *out);
/* Polled progress: when out->model.poll has a geometry (chunk_cols > 0), each point with polls > 0
 * also gives the polls after which its transfer started to move: t_k = x (1 / eta - 1) (the eta
 * step's completion L + x / eta = L + t_k + x) is the fraction t_k / t_c of its own compute t_c =
 * t_comp_s + n o + O m, and k = rs_full_poll_k(t_k / t_c, polls, poll_first) places it among the
 * block's polls where the executor makes them (at least 1e-3); those points (by bytes) form
 * out->model.poll's curve, and rs_step_eta of a step like the calibration's (same bytes, compute and
 * polls: rs_step_poll_frac) gives the point's own eta back. The points whose step also ran with fresh
 * transfers (t_end_fresh_s > 0) give the fresh curve (poll.fresh) the same way, with the fresh
 * copy x and the host cost of a fresh step (rs_machine_host_s). Called by rs_calib_fit_overlap.
 * Can't fail. */
void rs_calib_fit_polls(rs_calib_t *out);

/* Defaults: B = 16, 32, ..., 2048; sizes derived; 0.05 s per point, 3 reps, timeout 60 s. */
void rs_calib_opts_default(rs_calib_opts_t *o);

/* Run the calibration on every rank (SPMD). `problem` gives heads, kv_heads, head_dim, batch,
 * act/grad bytes, pass and tile (S, N, layout, causal are ignored). Results on rank 0 (others get
 * their own partial view). Returns 0 or -1 with err. */
int rs_calibrate(const rs_problem_t *problem, const rs_compute_ops_t *cops, const rs_transport_ops_t *tops,
                 void *ts, const rs_calib_opts_t *o, rs_calib_t *out, rs_err_t *err);

/* One kernel measurement point on this rank alone: a full B x B block step repeated for
 * min_time_s (and min_reps), durations appended to samples[*n..cap); *flops = its executed FLOPs.
 * Used by validate to interleave kernel samples with the measured runs. Returns 0 or -1. */
int rs_calib_kernel_point(const rs_problem_t *problem, int64_t B, const rs_compute_ops_t *cops, int local_rank,
                          double min_time_s, int min_reps, double *samples, size_t cap, size_t *n, uint64_t *flops,
                          rs_err_t *err);
/* One call of mask kind `mask` (full, causal, shifted: kernel_table.h) on a B x B block on this rank
 * alone, timed as rs_calib_kernel_point does (at most 256 repetitions): *median_s the median
 * duration, *flops_useful its useful FLOPs. Used by the kernel table (calibrate_kernels.h). Returns
 * 0 or -1 with err. */
int rs_calib_call_median(const rs_problem_t *problem, int64_t B, rs_kmask_t mask, const rs_compute_ops_t *cops, int local_rank,
                         double min_time_s, int min_reps, double *median_s, uint64_t *flops_useful, rs_err_t *err);
/* The bandwidth of the backend's accumulation kernel on this rank alone: grad_add (dst += src, fp32:
 * 3 x rs_problem_dkv_bytes bytes moved through its memory) on the dK,dV buffer of a B-token block,
 * launched 16 times per timing, median over at least 4 timings and min_time_s - the merges of the
 * kernel table (calibrate_kernels.h) run at it. Returns 0 or -1 with err. */
int rs_calib_merge_bw(const rs_problem_t *problem, int64_t B, const rs_compute_ops_t *cops, int local_rank, double min_time_s,
                      double *bytes_per_s, rs_err_t *err);
/* Ranks of unequal speed: t[i * n_ranks + r] is rank r's kernel time at block i. fastest[i] = the
 * smallest time at block i; factor[r] = the median over the blocks of t / fastest (>= 1; 1 for the
 * fastest rank), the rank's straggler factor in the model. */
void rs_calib_rank_factors(const double *t, int n_b, int64_t n_ranks, double *fastest, double *factor);

/* Each rank's median of its samples (sorted in place), gathered on rank 0 into all[rank] (N values;
 * others may pass NULL). Collective. Returns 0 or -1 with err. */
int rs_calib_rank_values(const rs_transport_ops_t *tops, void *ts, double *samples, size_t n, double timeout_s,
                         double *all, rs_err_t *err);

/* Median of this rank's samples, then the median over ranks on rank 0 (collective). */
int rs_calib_rank_median(const rs_transport_ops_t *tops, void *ts, double *samples, size_t n, double timeout_s,
                         double *out, rs_err_t *err);

/* Turn a calibration into a profile (name, note, N ranks per node = n_ranks): the peak rate for dtype
 * (the compute backend's), the measured intra tier, and c->model as the profile's calibration.
 * Can't fail. */
void rs_calib_to_hw(const rs_calib_t *c, const char *name, const char *note, int64_t n_ranks, rs_dtype_t dtype,
                    rs_hw_t *hw);

/* Print the calibration tables ('#' header lines, fixed width). Can't fail. */
void rs_calib_print(const rs_calib_t *c, FILE *out);

#endif /* RS_CALIBRATE_H */
