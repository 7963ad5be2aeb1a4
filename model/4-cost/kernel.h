/* kernel.h - what one ring step costs on a GPU-style machine: its attention calls at their own
 * rates, the merge/accumulate kernels of the implementation, and launches. The ONE cost function of
 * a step: the critical-path walk and the closed form (cost_walk.c, cost_closed.c), the simulators
 * (sim/sim.c, sim/sim_alt.c) and the planner (model/5-plan) all call it. Derivation and the presets' byte counts:
 * docs/model.md section 3a ("Kernel calls, merges and presets").
 *
 * A step's calls come from its schedule blocks (rs_step_t):
 *  - fused presets (ringsim: its own kernel runs all of a step's blocks in one launch) cost each
 *    non-skipped block as a call of its own shape (n x n) and mask kind, at its own rate;
 *  - per-step presets (flash-attn, te) issue ONE call over the non-skipped blocks' Q rows x KV rows
 *    (zigzag: causal B x B at step 0, full (B, B/2) when the KV owner precedes the rank, full
 *    (B/2, B) when it follows); a shifted-causal block is a causal call on (B-1) x (B-1) slices when
 *    the preset cannot shift the mask.
 * A call's time is its useful FLOPs over the kernel curve's rate at its shape (model/3-machine/kernel_table.h) when
 * the machine has a kernel selected, else its executed FLOPs over F x eff(B) (the dense model).
 * Merge/accumulate work is bytes moved through HBM over the merge bandwidth. A backward step's
 * merges that read the incoming dK,dV partial (every preset's dK,dV accumulation at a later step:
 * ringsim's grad_add, ring-flash-attn's dk = block_dk + next_dk after d_kv_comm.wait(), TE's in-place
 * add) run after that partial arrives, not inside the compute: after_bytes, which the walk, the
 * simulators and the closed form add after max(compute end, arrival). The fixed costs of a step
 * (kernel launches on the device, the preset's host calls, host syncs) combine with its work in
 * rs_kernel_fixed_s. With RS_IMPL_NONE and no kernel a step costs the dense model's
 * launch_s + executed FLOPs / (F eff(B)) (one launch per computing step).
 */
#ifndef RS_KERNEL_H
#define RS_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel_table.h"
#include "machine.h"
#include "schedule.h"
#include "util.h"

/* Bytes per element moved by a merge/accumulate kernel: act x act_bytes + f32 x 4. */
typedef struct {
    double act, f32;
} rs_elem_bytes_t;

/* The host side of a preset (docs/model.md section 3b, "Fixed costs"): what its ring loop does on the
 * CPU in a step besides launching the step's kernels, and what one framework call costs there. [pass]
 * is forward/backward, [.][0] step 0, [.][1] a later step. */
typedef struct {
    rs_span_t call_s;                  /* host time of one framework call (a kernel launch or a host-only op) */
    int calls[2][2];                   /* host-only calls of a computing step: allocations, views, P2P
                                          submissions and their waits */
    int syncs[2][2];                   /* host syncs of a computing step (the loop waits for the device) */
    int call_extra_launches[2];        /* kernels an attention call launches beyond its main one */
    int epi_calls[2];                  /* host-only calls of the pass epilogue */
} rs_impl_host_t;

/* An implementation preset: how it issues calls and what it moves through HBM around them. Rows are
 * the call's rows; an element is one (row, head, dim) of Q (Hq heads) or of K/V (Hkv heads); a row-head
 * is one (row, head) of the softmax statistics. [0] = step 0 (first), [1] = a later step. */
typedef struct {
    rs_impl_t impl;
    bool fused;                        /* one launch per step, each block a call at its own rate */
    bool shifted_native;               /* shifted-causal blocks keep their mask (else (n-1)^2 causal slices) */
    bool fwd_deferred;                 /* the forward's merges run after the ring loop (the epilogue) */
    bool grad_in_act;                  /* dK,dV travel in the activation dtype (else fp32) */
    rs_elem_bytes_t fwd_q[2];          /* forward output merge per element of the call's Q rows */
    rs_elem_bytes_t fwd_rh[2];         /* ... per row-head (lse) */
    rs_elem_bytes_t fwd_part_q, fwd_part_rh; /* extra when the call covers part of the rank's rows (copy-back) */
    int fwd_launch[2], fwd_part_launch;
    rs_elem_bytes_t bwd_q[2];          /* dQ accumulation per element of the call's Q rows */
    rs_elem_bytes_t bwd_kv[2];         /* dK and dV (each) per element of the call's KV rows */
    int bwd_launch[2];
    rs_elem_bytes_t step_kv[2];        /* backward, every step on the rank's whole dK,dV block: [0] every
                                          computing-range step, [1] steps with an incoming partial */
    int step_launch[2];
    rs_elem_bytes_t epi_fwd_q, epi_fwd_rh, epi_bwd_q, epi_bwd_kv; /* once per pass on the rank's rows */
    int epi_launch[2];                 /* [pass] */
    rs_impl_host_t host;               /* its host-side fixed costs */
} rs_impl_preset_t;

/* The preset's definition (NULL for RS_IMPL_NONE). */
const rs_impl_preset_t *rs_impl_preset(rs_impl_t impl);
/* Bytes per dK,dV element in flight under the preset (4, or act_bytes when grad_in_act); 0 for
 * RS_IMPL_NONE (the problem's own grad_bytes stands). */
int64_t rs_impl_grad_bytes(rs_impl_t impl, int64_t act_bytes);

/* The host time of one framework call of m's preset at m's bound (the preset's host.call_s, or the
 * machine's host_call_s when given: --host-call); 0 for RS_IMPL_NONE. Can't fail. */
double rs_kernel_call_s(const rs_machine_t *m);

/* One line for headers: how the calls are costed and where their rate comes from - "as the
 * flash-attn preset issues its calls, at kernel flash-attn-2's published rates by call shape and mask
 * (with the wave term)", "at the bare datasheet peak F = 989 TFLOP/s (an upper bound, not a kernel
 * rate: --impl none)", "at the user-given --flops ...", "at F x eff(B), eff(B) measured ...".
 * Returns buf. */
const char *rs_kernel_describe(const rs_machine_t *m, char *buf, size_t len);

/* Everything a step's cost needs, resolved once for (problem, machine): a few comparisons (the
 * machine indexed its kernel's curves, rs_machine_set_kernel), so the closed form builds one per
 * evaluation. Holds pointers into the machine (which must outlive it). */
typedef struct {
    const rs_machine_t *m;
    const rs_impl_preset_t *pre;       /* NULL: RS_IMPL_NONE (then only m, pre, n, block, f_eff are set) */
    rs_problem_t p;
    bool curves;                       /* call rates from curves (machine kernel > 0) */
    const rs_kcurve_t *curve[2][RS_KMASK_COUNT]; /* the curve per (pass, mask) when curves */
    bool gqa_expand;                   /* the kernel's backward expands GQA (and Hq != Hkv) */
    double cf;                         /* FLOPs per visible pair, all heads and batch */
    double f_eff;                      /* F x eff(B), FLOP/s (the dense rate) */
    double bw;                         /* merge bandwidth, bytes/s */
    double clear_bw;                   /* the clear before the calls (before_bytes): the device memory's
                                          bandwidth, the merge bandwidth without one, bytes/s */
    double eq, ekv, rh;                /* elements per token row of Q, of K (or V); row-heads per row */
    double act;                        /* activation bytes */
    int64_t n, block;                  /* N, B */
    double slots[RS_KMASK_COUNT];      /* CTA slots of the device for the pass's curve of each mask (the
                                          wave term, rs_kernel_slots); 0: none for that curve */
    double launch_s;                   /* device side, per kernel launch (the machine's cal.launch_s) */
    double call_s;                     /* host side, per framework call (the preset's call_s at the machine's
                                          bound; 0 without a preset) */
    double latency_s;                  /* an idle device's launch latency after a host sync (the machine's) */
} rs_kmodel_t;

/* Resolve the machine's preset and kernel for the problem (the curves' fallbacks are the machine's
 * index; rs_machine_kernel_notes says which were taken). Can't fail (machine validated). */
void rs_kmodel_init(rs_kmodel_t *km, const rs_problem_t *p, const rs_machine_t *m);

typedef struct {
    rs_kmask_t mask;                   /* the kind the call runs with */
    double q_tokens, k_tokens;         /* its shape */
    double flops_useful, flops_exec;   /* of its blocks */
    double rate;                       /* FLOP/s it runs at (useful with curves, else executed): the
                                          curve's full-wave rate x util */
    double util;                       /* the wave utilisation of the launch it is part of (1 without) */
    double time_s;                     /* its compute time (no launch) */
} rs_kcall_t;

typedef struct {
    int n_calls;
    rs_kcall_t call[RS_MAX_BLOCKS];
    double calls_s;                    /* sum of the calls' times */
    double merge_bytes;                /* merge/accumulate bytes in the step's compute */
    double before_bytes;               /* part of merge_bytes run before the calls (ringsim's grad_zero) */
    double before_s;                   /* before_bytes / bw: the compute event starts after it */
    double after_bytes;                /* backward: merge bytes of the incoming dK,dV partial, after its arrival */
    double after_s;                    /* after_bytes / bw: scaled by straggler (not jitter) */
    double deferred_bytes;             /* merge bytes deferred to the pass epilogue */
    double scaled_s;                   /* calls_s + merge_bytes / bw: scaled by straggler and jitter */
    double deferred_s;                 /* deferred_bytes / bw */
    int launches;                      /* kernel launches in the step (each launch_s) */
    int deferred_launches;
    int host_calls;                    /* host-only framework calls of the step (each call_s) */
    int syncs;                         /* host syncs of the step */
} rs_kstep_t;

/* The time a step's compute takes from its device work work_s (its calls and merges, straggler and
 * jitter applied), its kernel launches, host-only calls and host syncs (docs/model.md section 3b):
 *   G = work_s + launches t_launch            (the device: its kernels queued one behind the other)
 *   H = (launches + calls) t_call             (the host issuing them)
 *   max(G, H)                                 no sync: the host runs ahead of the device
 *   max(G + t_call, H) + t_lat + (syncs - 1)(t_lat + t_call)    syncs >= 1: the device idles while the
 *                                             host wakes and issues again
 * 0 when there is nothing (no work, launch or call). Without a preset (call_s = t_lat = 0, no calls)
 * it is work_s + launches t_launch. The one formula of a step's compute: the walk, the closed form,
 * the simulators and the planner reach it through rs_kernel_rank_step_s or call it. Can't fail. */
static inline double rs_kernel_fixed_s(const rs_kmodel_t *km, double work_s, int launches, int calls, int syncs) {
    if (!(work_s > 0) && launches == 0 && calls == 0) return 0;
    const double g = work_s + (double)launches * km->launch_s, h = (double)(launches + calls) * km->call_s;
    if (syncs <= 0) return g > h ? g : h;
    const double gs = g + km->call_s;
    return (gs > h ? gs : h) + km->latency_s + (double)(syncs - 1) * (km->latency_s + km->call_s);
}

/* The cost of (rank, step) st: its calls and the merges it runs inline or defers. No epilogue, no
 * straggler, jitter or host cost. Can't fail. */
void rs_kernel_step(const rs_kmodel_t *km, const rs_step_t *st, rs_kstep_t *out);

/* The rank's pass epilogue, run after its last step (after the ring loop, as every implementation
 * does: ringsim's fwd_end, ring-flash-attn's out.to(q.dtype), TE's deferred corrections), outside
 * every step event and inside the makespan: the preset's conversions over the rank's rows plus the
 * deferred merges (deferred_s, deferred_launches summed over its steps). Seconds of scaled work into
 * *scaled_s, launches into *launches. Can't fail. */
void rs_kernel_epilogue(const rs_kmodel_t *km, double deferred_s, int deferred_launches, double *scaled_s,
                        int *launches, int *calls);

/* Duration of the compute of (st->rank, st->step) doing ks's work (its scaled_s, launches, host calls
 * and syncs) when nothing is in flight:
 *   rs_kernel_fixed_s(ks->scaled_s x straggler(rank) x jitter(rank, step), launches, calls, syncs)
 *   + host cost of the n_xfers transfers (bytes in all, reused_bytes of them into the buffer sent at
 *     the step before: rs_machine_host_s) it receives,
 * 0 when the step has no work. The walk inlines this per class (tested equal). Can't fail. */
double rs_kernel_rank_step_s(const rs_kmodel_t *km, const rs_step_t *st, const rs_kstep_t *ks, int n_xfers, double bytes,
                             double reused_bytes);
/* The straggler factor of rank (the product of the machine's factors for it; 1 when none). */
double rs_kernel_rank_slow(const rs_kmodel_t *km, int64_t rank);

/* A rank's running state through a pass, for callers that walk its steps in order (the simulators):
 * the merges deferred so far. Zero it before step 0. */
typedef struct {
    double deferred_s;
    int deferred_launches;
    double after_s;                    /* the last step costed: its after-arrival merges x straggler */
    double before_s;                   /* ... and its merges before the calls x straggler (in the compute) */
} rs_krank_t;
/* Compute duration of (st->rank, st->step) receiving n_xfers transfers of `bytes` in all: its calls
 * and merges (rs_kernel_step), straggler, jitter, launches and host cost (rs_kernel_rank_step_s). Updates *acc, and sets acc->after_s to the
 * step's merges after the incoming partial's arrival (after_s x straggler), which the caller adds
 * after max(compute end, arrival), and acc->before_s to the part of the returned duration run before
 * the calls (before_s x straggler): the compute event starts after it. The walk computes the same by class (tested equal). Can't fail. */
double rs_kernel_step_s(const rs_kmodel_t *km, const rs_step_t *st, rs_krank_t *acc, int n_xfers, double bytes,
                        double reused_bytes);
/* The rank's pass epilogue after its last step, from the merges *acc deferred over its steps
 * (rs_kernel_epilogue): rs_kernel_fixed_s(its work x straggler, launches, calls, 0); 0 when none.
 * Can't fail. */
double rs_kernel_rank_epilogue_s(const rs_kmodel_t *km, const rs_krank_t *acc, int64_t rank);

/* The three classes of a step (rs_schedule_flops_classes: KV owner before, equal to, after the
 * rank), each costed by rs_kernel_step on its representative step (rs_problem_class_step): every step
 * of a class has the same blocks, so the same cost (tested for every rank and step). */
typedef struct {
    rs_kstep_t cls[3];
    uint64_t useful[3], exec[3];       /* FLOPs per class (exec 0 when not counted, see below) */
    double epi_fixed_s;                /* conversions of the epilogue (no deferred part) */
    int epi_fixed_launches, epi_fixed_calls;
} rs_kclasses_t;
/* Fill the classes of km's problem (N = 1: class 1 only, the others zero). A call shape that recurs
 * among the classes is rated once. With exec false the executed FLOPs of diagonal blocks are not
 * counted: callers that read only times under curves (the closed form) skip their O(B / tile) count.
 * Can't fail. */
void rs_kernel_classes(const rs_kmodel_t *km, bool exec, rs_kclasses_t *out);
/* rs_kernel_classes(km, false, out) by templates of the classes (read once per process off
 * rs_kernel_classes's own rules at two segment lengths): the closed form's per-evaluation path. Fills
 * what the closed form reads - per class calls_s, scaled_s, merge, after and deferred bytes, after_s, deferred_s,
 * launches, deferred launches and useful FLOPs - with the reference's numbers bit for bit (tested for
 * every preset, layout, mask, pass and several B); the calls are not listed (n_calls = 0), exec and
 * the fixed epilogue are 0 (rs_kernel_classes_epilogue computes the epilogue). Falls back to the reference (calls listed) without a preset or curves,
 * or below 2 tokens per segment. Thread-safe. Can't fail. */
void rs_kernel_classes_fast(const rs_kmodel_t *km, rs_kclasses_t *out);
/* The epilogue of rank r from the classes: steps 1..N-1 are class 0 for k <= r (r of them), class 2
 * for k > r (N-1-r), step 0 is class 1. */
void rs_kernel_classes_epilogue(const rs_kmodel_t *km, const rs_kclasses_t *c, int64_t rank, double *scaled_s,
                                int *launches, int *calls);

/* The shapes a problem's calls take that lie outside the measured shapes of their curves, one
 * sentence each naming the nearest measured shape ("kernel K's forward causal curve (head_dim 128)
 * was measured from 512x512 to 16384x16384 tokens: a 32768x32768 call is rated at 16384x16384, the
 * nearest measured shape"), appended to buf after "; " (buf keeps what it holds); "" when none or
 * without curves. Returns buf. */
const char *rs_kernel_range_notes(const rs_kmodel_t *km, char *buf, size_t len);

/* The rate of a perfect ring: the useful FLOP/s of one B x B call with the problem's mask (causal or
 * full) at the kernel's curve, or F x eff(B) without curves. ideal = useful FLOPs / (N x this rate):
 * balanced, transfers hidden, no merge, each rank running its kernel as one device runs its local
 * block. Can't fail. */
double rs_kernel_ideal_rate(const rs_kmodel_t *km);
/* ideal_s of a run (model/4-cost/cost.h rs_walk_t): flops_useful / (N x rs_kernel_ideal_rate) for
 * problem p on machine m - the one definition every backend's efficiency uses. Can't fail. */
double rs_kernel_ideal_s(const rs_problem_t *p, const rs_machine_t *m, double flops_useful);

/* ---------------------------------------------------------------------------------------------------
 * Honest bounds: ONE rule for "compute- or transfer-bound" and B*, used by the model table and JSON,
 * the report's findings and the planner's "hidden" column.
 *
 * The layout's step compute T_comp is that of the step pacing a synchronous ring's middle steps: the
 * largest over the step classes present there (owner before or after the rank; the own block when
 * N = 1), launches included, no straggler or host cost: a causal zigzag step computes about half a
 * full block, a contiguous one a full block (rank N-1). A step is transfer-bound iff
 * T_comm = latency + bytes / W > T_comp. B* is the largest B at which it is (docs/model.md).
 * ------------------------------------------------------------------------------------------------- */
/* T_comp of the layout from its classes (the rule above). */
double rs_kernel_layout_comp_s(const rs_kmodel_t *km, const rs_kclasses_t *c);
/* The pacing step of that rule split in two: *work_s its device work (calls and merges), *fixed_s its
 * compute with no work (launches, host calls and syncs alone: rs_kernel_fixed_s(km, 0, ...)). The
 * fixed costs dominate while work_s < fixed_s (docs/model.md section 3b, B_fixed). Can't fail. */
void rs_kernel_layout_fixed(const rs_kmodel_t *km, const rs_kclasses_t *c, double *work_s, double *fixed_s);

#endif /* RS_KERNEL_H */
