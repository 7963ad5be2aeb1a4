/* machine.h - the machine: everything the critical-path walk and the simulator need to cost a
 * schedule, built from a hardware profile (profile.h) plus overrides and realism flags.
 */
#ifndef RS_MACHINE_H
#define RS_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "util.h"

/* Efficiency at block size B: 1 without a curve; log-linear interpolation in B between points,
 * clamped to the end points outside. Can't fail. */
double rs_hw_efficiency(const rs_hw_t *hw, double block_tokens);

/* ---------------------------------------------------------------------------------------------------
 * The machine: everything the critical-path walk and the simulator need to cost a schedule.
 * Built from a profile plus CLI overrides and realism flags. Hop p is the link p -> p+1 (mod N).
 * Ranks fill nodes in order: rank r is on node r / G; hop p crosses nodes iff (p+1) mod N is on
 * another node than p (flat ring when G >= N or G == 0).
 * ------------------------------------------------------------------------------------------------- */
#define RS_MAX_PERTURB 64

/* Ranks that compute slower and hops that carry less than the profile says (the realism flags
 * --straggler R:F and --degrade H:F). */
typedef struct {
    int n_stragglers;                        /* ranks whose compute is slower by a factor */
    int64_t straggler_rank[RS_MAX_PERTURB];
    double straggler_factor[RS_MAX_PERTURB];
    int n_degraded;                          /* hops whose bandwidth is divided by a factor */
    int64_t degraded_hop[RS_MAX_PERTURB];
    double degraded_factor[RS_MAX_PERTURB];
} rs_perturb_t;

typedef struct {
    char hw_name[RS_NAME_LEN];     /* profile name, for trace headers */
    rs_dtype_t dtype;              /* picks the peak rate */
    double flops_per_s;            /* peak F, FLOP/s */
    rs_calibration_t cal;          /* the profile's calibration (profile.h), whole */
    int64_t devices_per_node;      /* G; 0 = flat ring */
    rs_tier_t intra;               /* tier of hops inside a node (the flat ring's only tier); bw_bytes_per_s:
                                      the rate point-to-point transfers reach (rs_machine_set_bound) */
    rs_tier_t inter;               /* tier of hops crossing nodes: one NIC's rate */
    double nics_per_node;          /* NICs of the inter tier per node (0 = one per device; the planner's
                                      per-CP-node machines may hold a fraction) */
    double nic_share;              /* the share of its NIC a node-crossing hop gets (0 = 1): 1 for a ring alone
                                      on its node's NICs; the slow bound: every device of the node crossing at
                                      once (rs_machine_nic_share) */
    rs_bound_t bound;              /* the end of every uncertain figure this machine uses (profile.h) */
    rs_span_t launch_span_s;       /* the device's launch cost per kernel (hw->launch_s) */
    rs_span_t launch_latency_span_s; /* the device's launch latency after a host sync (hw->launch_latency_s) */
    bool launch_given;             /* cal.launch_s is the calibration's or --launch-overhead's (not the device's) */
    double launch_latency_s;       /* launch_latency_span_s at bound: paid once per host sync (model/4-cost/kernel.h) */
    bool host_call_given;          /* host_call_s replaces the preset's host time per framework call */
    double host_call_s;            /* (--host-call) */
    double jitter;                 /* compute time x (1 + jitter * (2u - 1)), u = rs_hash_unit(seed, rank, step) */
    uint64_t seed;                 /* jitter seed */
    rs_perturb_t perturb;          /* stragglers and degraded hops */
    bool loopback;                 /* every rank alone, its hop p going to itself (one device playing
                                      each rank in turn: exec --loopback); the walk only */
    const bool *hop_inter;         /* borrowed, optional: hop_inter[p] tells whether hop p -> p+1 crosses
                                      nodes, for a ring placed on a fabric (sim/job.h) whose ranks do not
                                      fill nodes in order; NULL = by devices_per_node. n_ranks entries. */
    rs_kernel_table_t kernels;     /* the profile's kernel curves (merge bandwidth: the device's when the
                                      profile gives none) */
    double mem_bw_bytes_per_s;     /* the device's memory bandwidth (profile device.memory_bw_bytes_per_s;
                                      0: the merge bandwidth): a clear of a buffer out of use for a step */
    int impl;                      /* rs_impl_t costing the steps (model/4-cost/kernel.h); RS_IMPL_NONE = the
                                      dense peak model: F x eff(B), one launch per computing step */
    int kernel;                    /* index + 1 of the kernel whose curves rate the calls; 0 = F x eff(B) */
    rs_kindex_t kindex;            /* that kernel's curves for dtype by head_dim (rs_machine_set_kernel) */
    rs_rate_sources_t src;         /* where each rate comes from (rate_source.h): the profile's, the
                                      overrides', the attention rate's set by rs_machine_set_kernel */
    rs_rate_source_t peak_src, eff_src; /* the profile's peak and efficiency curve sources */
    bool flops_given;              /* --flops: the dense model's F is the user's */
} rs_machine_t;

/* Machine from a profile and a dtype: peak F for that dtype, tiers, calibration, kernel curves with the
 * profile's default implementation preset and the kernel it runs there; a profile with neither a
 * curve for dtype nor an efficiency curve gets the estimated kernel of its class (rs_kernel_estimate:
 * never the bare peak); no perturbations. The rates' sources (m->src) are the profile's. Returns 0 or
 * -1 if the profile has no rate for dtype. */
int rs_machine_from_hw(const rs_hw_t *hw, rs_dtype_t dtype, rs_machine_t *m, rs_err_t *err);
/* Cost the steps as preset impl (rs_impl_t) issues them, at the curves of kernel (an index + 1 into
 * m->kernels; 0 = at F x eff(B)): prepares the table (rs_kernel_table_prepare) and indexes the
 * kernel's curves for m->dtype, and sets the attention rate's source (the kernel's kind and source;
 * the dense model: the user's --flops, the efficiency curve's, or the datasheet peak said as such).
 * Call it again after changing m->dtype or a curve. Returns 0 or -1 with err (impl or kernel out of
 * range, an invalid table, no curve for the dtype). */
int rs_machine_set_kernel(rs_machine_t *m, int impl, int kernel, rs_err_t *err);
/* The curve fallbacks a problem with head_dim takes on m's kernel (rs_kernel_resolve's notes), "" when
 * none or when m has no kernel. Returns buf. */
const char *rs_machine_kernel_notes(const rs_machine_t *m, int64_t head_dim, char *buf, size_t len);
/* The rates a ring of n_ranks is costed at on m, with their sources, in one line (rate_source.h
 * rs_rate_sources_line): the inter-node hop only when the ring crosses nodes, the merge bandwidth only
 * under an implementation preset. Returns buf. */
const char *rs_machine_rates_line(const rs_machine_t *m, int64_t n_ranks, char *buf, size_t len);
/* The rates' records that line leaves out for a ring of n_ranks (a bit per rs_rate_t). Can't fail. */
unsigned rs_machine_rates_skip(const rs_machine_t *m, int64_t n_ranks);

/* Machine from its figures instead of a profile (tests, benchmarks): peak F for dtype, every hop on
 * tier (intra = inter), one flat ring, full overlap, no slowdown, no calibration, no perturbations.
 * Can't fail. */
rs_machine_t rs_machine_figures(const char *name, rs_dtype_t dtype, double flops_per_s, rs_tier_t tier);
/* Resolve every uncertain figure of m at bound b (profile.h): each tier's rate = its nominal figure x
 * its p2p efficiency at b, the device's launch cost per kernel (cal.launch_s, unless launch_given) and
 * launch latency at b, the NIC share of a crossing hop (1, or at RS_BOUND_SLOW the share when every
 * device of a node crosses at once: rs_machine_nic_share(m, G)). rs_machine_from_hw calls it with
 * RS_BOUND_POINT. Can't fail. */
void rs_machine_set_bound(rs_machine_t *m, rs_bound_t b);
/* The share of a NIC each of `crossing` concurrent node-crossing flows of a node gets: min(1, NICs per
 * node / crossing) (docs/model.md, "Transfers"); 1 for crossing <= 0. Can't fail. */
double rs_machine_nic_share(const rs_machine_t *m, double crossing);
/* Validate ranges (positive finite rates, eta in [0,1], sigma >= 1, ranks/hops < n_ranks, ...) and
 * that eta < 1 (scalar or curve) is not combined with sigma > 1. */
int rs_machine_validate(const rs_machine_t *m, int64_t n_ranks, rs_err_t *err);

/* Bandwidth (bytes/s, after degradation) and latency (s) of hop p -> p+1 in a ring of n ranks. */
double rs_machine_hop_bw(const rs_machine_t *m, int64_t n_ranks, int64_t hop);
double rs_machine_hop_latency(const rs_machine_t *m, int64_t n_ranks, int64_t hop);
/* The slowest hop of a ring of n ranks, the one that paces it: the smallest rs_machine_hop_bw over the
 * hops (the first hop on a tie) and its latency. O(1) unless the machine has degraded hops or a
 * hop_inter array (then O(n); tested equal). Can't fail. */
void rs_machine_slowest_hop(const rs_machine_t *m, int64_t n_ranks, double *bw_bytes_per_s, double *latency_s);
/* true iff hop p -> p+1 crosses a node boundary (hop_inter[p] when the machine has the array). */
bool rs_machine_hop_inter(const rs_machine_t *m, int64_t n_ranks, int64_t hop);

/* Effective compute rate F_eff(B) = F_peak * eff(B), FLOP/s. */
double rs_machine_flops_eff(const rs_machine_t *m, double block_tokens);
/* The compute-time factor of (rank, step) under the machine's jitter J: 1 + J (2u - 1), u =
 * rs_hash_unit(seed, rank, step), in [1 - J, 1 + J]; exactly 1 without jitter (J = 0). The one
 * draw every cost of a step's compute takes. Can't fail. */
double rs_machine_jitter(const rs_machine_t *m, int64_t rank, int64_t step);
/* Compute duration of (rank, step) when nothing is in flight: 0 if flops_exec == 0, else
 * launch_s + flops_exec / F_eff(B) * straggler(rank) * rs_machine_jitter(rank, step). */
double rs_machine_comp_time(const rs_machine_t *m, int64_t block_tokens, int64_t rank, int64_t step,
                            uint64_t flops_exec);
/* Overlap factor eta for a step whose hop carries `bytes`: the curve (log-linear in bytes between
 * points, clamped outside) when the machine has one, else the scalar `overlap`. */
double rs_machine_overlap(const rs_machine_t *m, double bytes);
/* true iff some step may get eta < 1 (scalar or any curve point). */
bool rs_machine_partial_overlap(const rs_machine_t *m);
/* The factor of a step whose hop carries `bytes`, `reused_bytes` of them received into the buffer
 * sent at the step before (rs_schedule_step_reused_bytes): the two curves at the step's bytes,
 * weighed by bytes. The walk, SimGrid and the closed form all take a step's g from here. */
double rs_machine_step_xfer_factor(const rs_machine_t *m, double bytes, double reused_bytes);
/* Host cost (LogGOPS o and O) of receiving n_xfers transfers of `bytes` in all during a step:
 * n_xfers o + bytes O seconds, added to the step's compute when the step computes. */
double rs_machine_host_s(const rs_machine_t *m, int n_xfers, double bytes, double reused_bytes);

/* An all-to-all over `group` consecutive ranks starting on a node boundary (ranks fill nodes of
 * devices_per_node in order): each device holds bytes_per_device M before the exchange, keeps M/group
 * and sends M/group to every other member; each device injects on its own links and the two tiers run
 * concurrently (docs/plan.md, docs/inference.md): with G' = min(group, G) members in a node, all crossing
 * at once (each NIC shared by them: s = rs_machine_nic_share(m, G')),
 *   t = max(L_intra + M (G' - 1) / (group W_intra), L_inter + M (group - G') / (group s W_inter))
 * for full nodes (tier bandwidths; --degrade is not applied). 0 for group 1 or no bytes; *crosses_nodes (may be NULL)
 * tells whether the inter tier is used. Used by Ulysses/USP (model/5-plan/alt.h) and by pass-q's return
 * (the walk). Can't fail. */
double rs_machine_a2a_s(const rs_machine_t *m, int64_t group, double bytes_per_device, bool *crosses_nodes);
/* When member `rank` of that all-to-all is done, also when the last node is not full: its intra flows
 * (its node's size - 1 of them) and the inter flows, which all end with the busiest NIC's, that of
 * the smallest node, (group - smallest) flows (max-min sharing: every member sends to it). The walk
 * uses this per rank; rs_machine_a2a_s is rank 0's (in a full node, the slowest). Can't fail. */
double rs_machine_a2a_rank_s(const rs_machine_t *m, int64_t group, double bytes_per_device, int64_t rank);

/* The machine's overlap model in one line: "overlap 0.5" or "overlap curve (bytes:eta) 65536:0.26 ...",
 * then ", slowdown S" when > 1 and ", host cost o s + O s/byte per received transfer" when set.
 * Returns dst (truncated to len). */
const char *rs_machine_overlap_desc(const rs_machine_t *m, char *dst, size_t len);

/* ---------------------------------------------------------------------------------------------------
 * A machine as asked for: a profile (a preset name or a file) and what is changed on it - the shared
 * options of every command and the machine of every study. Messages name those options.
 * ------------------------------------------------------------------------------------------------- */

typedef struct {
    char profile[512];             /* --profile: name or path */
    char inter[512];               /* --inter: tier name or path ("" = the profile's) */
    rs_dtype_t dtype;              /* --dtype: picks the peak rate */
    int64_t gpus_per_node;         /* --gpus-per-node (-1 = the profile's; 0 = flat ring) */
    double flops;                  /* --flops for dtype (0 = the profile's) */
    double bw;                     /* --bw: intra-node tier (0 = the profile's) */
    double inter_bw;               /* --inter-bw (0 = the profile's) */
    double latency;                /* --latency of every tier (< 0 = the profile's) */
    double launch;                 /* --launch-overhead (< 0 = the profile's) */
    double host_call;              /* --host-call: host time per framework call (< 0 = the preset's) */
    double overlap;                /* --overlap (< 0 = the profile's; replaces an overlap curve) */
    double slowdown;               /* --slowdown (< 0 = the profile's) */
    double host_xfer;              /* --host-cost S[:S_PER_BYTE] (< 0 = the profile's) */
    double host_byte;
    double jitter;                 /* --jitter */
    uint64_t seed;                 /* --seed */
    rs_perturb_t perturb;          /* --straggler, --degrade */
    int impl;                      /* --impl: rs_impl_t (-1 = the profile's default; with --flops: none) */
    char kernel[RS_KNAME_LEN];     /* --kernel: a kernel of the profile ("" = the one the preset runs) */
    bool allow_implausible;        /* --allow-implausible: a figure above its device's physics is a
                                      warning, not a refusal (plausible.h) */
    rs_bound_t bound;              /* --bound: the end of the uncertain figures (RS_BOUND_POINT) */
} rs_machine_spec_t;

/* Profile h100-sxm, bf16, nothing changed, seed 1. Can't fail. */
void rs_machine_spec_default(rs_machine_spec_t *s);
/* --impl NAME and --kernel NAME into s (either NULL: left as it is), checked as the command line checks
 * them. Returns 0, or -1 with err (bad input: "--impl fast: expected ringsim, flash-attn, te or none",
 * a kernel name longer than the spec holds). */
int rs_machine_spec_impl(rs_machine_spec_t *s, const char *impl, const char *kernel, rs_err_t *err);
/* The profile as used: s->profile loaded (JSON is read here and only here), the inter tier loaded
 * when given, the overrides applied. Returns 0 or -1 with err naming the file ("PATH:LINE: ...") or
 * the option and its value ("--profile nosuch: unknown hardware profile 'nosuch' (presets: ...)"). */
int rs_machine_spec_profile(const rs_machine_spec_t *s, rs_hw_t *hw, rs_err_t *err);
/* rs_machine_spec_profile with every figure that enters checked against the device it names
 * (plausible.h): a profile file's against the device preset its name names, --flops against that
 * device's datasheet peak for the dtype x 1.05 (the profile's own when it is a preset), --bw and
 * --inter-bw against their links' nominal rates. Refused (bad input, naming the option or file, the
 * figure and its bound) unless s->allow_implausible; then the warnings go to warn (len bytes, ""
 * when none; NULL: dropped). Returns 0 or -1 with err. */
int rs_machine_spec_profile_checked(const rs_machine_spec_t *s, rs_hw_t *hw, char *warn, size_t len, rs_err_t *err);
/* The machine of that profile (from rs_machine_spec_profile) for a ring of n_ranks: peak for
 * s->dtype, perturbations, the preset and kernel (--impl, --kernel; else the profile's default; --flops
 * without --impl: the dense peak model); refused when n_ranks spans nodes the profile has no
 * inter-node tier for, when the preset or kernel asked for does not exist or has no curve for the
 * dtype, and by rs_machine_validate. Returns 0 or -1 with err. */
int rs_machine_spec_build(const rs_machine_spec_t *s, const rs_hw_t *hw, int64_t n_ranks, rs_machine_t *m, rs_err_t *err);

#endif /* RS_MACHINE_H */
