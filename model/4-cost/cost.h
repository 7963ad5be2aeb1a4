/* cost.h - the analytic model: the seed's closed form, its calibrated form, and the critical-path walk.
 *
 * All formulas are derived once in docs/model.md; this file implements exactly those.
 *
 * Seed (per ring step, full non-causal block of B tokens):
 *   T_comp = c_f * B^2 / F        c_f = FLOPs per (q,k) pair = 4 * d * Hq * batch  (10* backward)
 *   T_comm = c_b * B / W          c_b = K,V bytes per token = 2 * Hkv * d * batch * act_bytes
 *   B_min  = F * c_b / (W * c_f)  (= F/W for MHA in 2-byte dtypes, the seed's threshold)
 * Calibrated: F -> F_eff(B) = F * eff(B); T_comp += launch_s; T_comm = latency_s + bytes / W
 * (alpha-beta); step time with overlap eta and compute slowdown sigma (docs/model.md, "Overlap").
 *
 * The walk (critical path): for every step, every rank posts the step's transfers at its step start;
 * a transfer on hop p starts when both ends have posted (max of the two step starts), waits the
 * hop's latency, then flows of one step sharing a hop share its bandwidth equally (processor
 * sharing); while the receiving rank computes they progress at eta times that rate. Compute runs
 * from the step start, at 1/sigma speed while any of the rank's transfers is in flight. A rank's step ends
 * when its compute and all its transfers (in and out) are done. The makespan is the latest step end.
 * A loopback machine (m->loopback) sends every rank's transfers to itself: each rank's timeline is
 * its own, the steps of one device playing that rank alone (exec --loopback).
 *
 * Files: cost_closed.c (the seed's formulas, the closed form, B*), cost_walk.c (the walk), their
 * shared step primitives in cost_step.h.
 */
#ifndef RS_COST_H
#define RS_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "estimate.h"
#include "event.h"
#include "machine.h"
#include "schedule.h"
#include "util.h"

/* ---------------------------------------------------------------------------------------------------
 * Closed form
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    int64_t block_tokens;   /* B = S / N */
    double flops_per_pair;  /* c_f */
    double bytes_per_token; /* c_b (K,V); the backward also moves dK,dV: see bytes_per_step */
    double bytes_per_step;  /* bytes on one hop in a middle step (bwd: K,V + dK,dV) */
    double f_peak_per_s;    /* F */
    double f_eff_per_s;     /* F * eff(B) */
    double w_bytes_per_s;   /* slowest hop's bandwidth W */
    double latency_s;       /* that hop's latency */
    double t_comp_s;        /* the layout's middle-step compute (model/4-cost/kernel.h's rule: its step
                               classes' calls and merges, or its FLOPs at F x eff(B) in the dense model) */
    double t_comm_s;        /* middle-step transfer, calibrated */
    double t_step_s;        /* middle step with overlap eta and slowdown sigma */
    double makespan_s;      /* balanced non-causal makespan of the pass (docs/model.md) */
    double b_min_tokens;    /* the seed's threshold F * c_b / (W * c_f) (continuous) */
    double b_star_tokens;   /* rs_model_b_star only (rs_model_closed leaves -1): the largest B at which
                               the layout's middle step is transfer-bound, T_comm(B) > T_comp(B), with
                               latency, the rates and launches; 0 if never, NaN if still at the
                               largest B searched (2^40 dense, 2^24 tokens with kernel curves) */
    bool comm_bound;        /* t_comm_s > t_comp_s */
    double a2a_s;           /* pass-q and decode: the all-to-all return of the partial outputs */
    double work_s;          /* the layout's middle step: its device work alone (calls and merges), and */
    double fixed_s;         /* its fixed costs alone: launches, host calls, syncs (kernel.h rs_kernel_layout_fixed) */
    double b_fixed_tokens;  /* rs_model_b_star only (rs_model_closed leaves -1): the smallest B at which that
                               step's work reaches its fixed costs (below it they dominate: docs/model.md
                               section 3b); 0 without fixed costs, NaN if still below at 2^24 tokens */
} rs_closed_t;

/* Evaluate the closed form for a validated problem on a machine: the layout's middle step (a causal
 * zigzag step computes about half a block) and the balanced non-causal makespan. B* is not computed
 * (b_star_tokens = -1): it is a search with kernel curves, for the callers that print it. The inference
 * variants (docs/inference.md), at the dense model (the kernel presets cost training rings): the mask
 * is ignored (full blocks), a middle step computes B (B + Bc) pairs (decode: ceil(b/N) sequences x Bc;
 * step 0 one more token) and moves the K,V block with its cache (pass-kv) or the Q block (pass-q,
 * decode; bytes_per_token then counts Q); makespan = T_step(step 0) + (N-2) T_step + T_comp (+ a2a_s);
 * B_min is in new tokens per rank at the problem's Bc. Returns 0 or -1 with err. */
int rs_model_closed(const rs_problem_t *p, const rs_machine_t *m, rs_closed_t *out, rs_err_t *err);
/* rs_model_closed and B* (b_star_tokens): the dense model solves T_comp(B) = T_comm(B) (a quadratic,
 * or a scan of the efficiency curve; an inference variant's in new tokens per rank at the problem's
 * Bc, decode 0: B = 1 is fixed); the kernel model scans whole granules of B up to 2^24 tokens and
 * bisects. Returns 0 or -1 with err. */
int rs_model_b_star(const rs_problem_t *p, const rs_machine_t *m, rs_closed_t *out, rs_err_t *err);

/* The seed's raw formulas, no calibration: seconds and tokens. Can't fail (inputs validated). */
double rs_seed_t_comp_s(double block_tokens, double flops_per_pair, double f_per_s);
double rs_seed_t_comm_s(double block_tokens, double bytes_per_token, double w_bytes_per_s);
double rs_seed_b_min(double f_per_s, double w_bytes_per_s, double flops_per_pair, double bytes_per_token);

/* Duration of one synchronous step (every rank starts together) with compute t_comp_s and n flows
 * on the rank's outgoing hop, each xfer_s[i] = bytes_i / W seconds at the full bandwidth, all
 * starting after latency_s and sharing the hop equally; eta and sigma as in the walk. With one flow,
 * eta = 1 and sigma = 1 this is max(t_comp, latency + xfer). This is the walk's own step primitive.
 * Can't fail. */
double rs_sync_step_s(double t_comp_s, double latency_s, const double *xfer_s, int n, double eta,
                      double sigma);
/* End of one transfer of xfer_s seconds at full rate, posted with a compute of t_comp_s (both from
 * 0), after latency_s, progressing at eta while the compute runs: the eta step of docs/model.md
 * (L + x / eta inside the compute, else t_c + the rest at full rate). */
double rs_xfer_end_s(double t_comp_s, double latency_s, double xfer_s, double eta);

/* ---------------------------------------------------------------------------------------------------
 * Critical-path walk
 * ------------------------------------------------------------------------------------------------- */
/* The figures of one run of a pass: the walk's, and every backend's (backend/backend.h: a
 * backend that cannot tell a figure leaves it 0). */
typedef struct {
    double makespan_s;       /* latest step end of the pass */
    double ideal_s;          /* total useful FLOPs / (N x the ideal rate: the kernel curve's rate on one B x B call of
                                the mask, or F_eff(B) without curves): perfect balance, hidden comm */
    double efficiency;       /* ideal_s / makespan_s */
    double t_comp_max_s;     /* longest single (rank, step) compute */
    double t_comm_max_s;     /* longest transfer, post to completion */
    double busy_max_s;       /* max over ranks of summed compute time */
    double busy_mean_s;      /* mean over ranks of summed compute time */
    uint64_t flops_useful;   /* totals over ranks and steps */
    uint64_t flops_exec;
    int64_t comm_bound_steps;/* (rank, step) whose transfers finished after its compute */
    int64_t rank_steps;      /* (rank, step) visited */
    double wall_s;           /* what the run cost: wall time of the simulation or execution (the walk: 0) */
} rs_walk_t;

/* What rs_model_walk of problem p costs (estimate.h): N x steps rank-steps at about 30 ns each and
 * O(N) memory; with trace (RS_EST_*: events kept, and written as a trace file), about 300 bytes
 * and 0.1 us (written: 30 us) per rank-step (docs/benchmarks.md). Can't fail. */
void rs_walk_estimate(const rs_problem_t *p, int trace, rs_estimate_t *e);

/* Walk the schedule on the machine. Compute, send, recv and step events (event.h; send/recv from
 * post to completion) go to sink (RS_NO_SINK: none are made). If rank_busy_s is non-NULL it must
 * hold N doubles and receives each rank's summed compute time. Memory O(N). Returns 0 or -1 with err
 * (the sink refused an event: out of memory). */
int rs_model_walk(const rs_schedule_t *s, const rs_machine_t *m, rs_event_sink_t sink, double *rank_busy_s,
                  rs_walk_t *out, rs_err_t *err);

#endif /* RS_COST_H */
