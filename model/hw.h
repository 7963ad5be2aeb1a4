/* hw.h - hardware profiles (JSON, parsed with jansson) and the machine cost parameters built from them.
 *
 * A profile names a device (peak dense FLOP/s per dtype, memory, memory bandwidth, devices per node),
 * its ring tiers (intra-node hop and inter-node NIC hop: per-direction bandwidth and latency), and
 * optional calibration written by `ringsim calibrate` (an efficiency curve F_eff(B) = eff(B) * F_peak,
 * per-step launch overhead, overlap factor). Every figure in a shipped profile carries its source.
 * Format and validation rules: docs/profiles.md. Presets live in profiles/ and are embedded in the
 * binary; a name without '/' or ".json" is looked up among the presets.
 */
#ifndef RS_HW_H
#define RS_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel_table.h"
#include "util.h"

typedef enum { RS_DTYPE_FP32 = 0, RS_DTYPE_TF32, RS_DTYPE_BF16, RS_DTYPE_FP16, RS_DTYPE_FP8, RS_DTYPE_COUNT } rs_dtype_t;
const char *rs_dtype_name(rs_dtype_t t);              /* "fp32", "tf32", "bf16", "fp16", "fp8" */
int rs_dtype_parse(const char *s, rs_dtype_t *out);    /* 0 or -1 */
int64_t rs_dtype_bytes(rs_dtype_t t);                  /* 4, 4, 2, 2, 1 */

#define RS_NAME_LEN 64
#define RS_MAX_EFF_POINTS 64

typedef struct {
    char name[RS_NAME_LEN];  /* e.g. "nvlink4", "ib-ndr" */
    double bw_bytes_per_s;   /* per direction, bytes/s (> 0) */
    double latency_s;        /* per message, seconds (>= 0) */
} rs_tier_t;

typedef struct {
    double block_tokens;     /* B, tokens per rank */
    double efficiency;       /* F_eff(B) / F_peak, in (0, 1.5] */
} rs_eff_point_t;

/* Overlap curve: eta as a function of the bytes a hop carries in the step (calibrated: on a CPU
 * with polled MPI progress the fraction of the link rate a transfer gets while the ranks compute
 * depends on the message size). */
#define RS_MAX_OVERLAP_POINTS 16
typedef struct {
    double bytes;            /* bytes on the hop in the step (the sum of its flows) */
    double eta;              /* overlap factor in [0, 1] at that size */
} rs_overlap_point_t;

typedef struct {
    char name[RS_NAME_LEN];               /* e.g. "H100-SXM" */
    double flops_per_s[RS_DTYPE_COUNT];   /* peak dense FLOP/s per dtype; 0 = unsupported */
    double mem_bytes;                     /* device memory, bytes */
    double mem_bw_bytes_per_s;            /* device memory bandwidth, bytes/s */
    int64_t devices_per_node;             /* G */
    rs_tier_t intra;                      /* ring hop inside a node */
    bool has_inter;                       /* an inter-node tier is given */
    rs_tier_t inter;                      /* ring hop between nodes (one NIC per device) */
    double price_per_device_hour;         /* currency units per device-hour; 0 = unknown */
    /* calibration (optional; defaults: no curve = efficiency 1, launch 0, overlap 1, slowdown 1) */
    int n_eff;                            /* points of the efficiency curve, sorted by block */
    rs_eff_point_t eff[RS_MAX_EFF_POINTS];
    double launch_s;                      /* per-step launch overhead, seconds */
    double overlap;                       /* eta in [0,1]: transfer progress rate while computing */
    double comp_slowdown;                 /* sigma >= 1: compute slowdown while a transfer is in flight */
    int n_overlap;                        /* overlap curve eta(bytes), sorted; replaces `overlap` when > 0 */
    rs_overlap_point_t overlap_curve[RS_MAX_OVERLAP_POINTS];
    double host_s_per_xfer;               /* o: host CPU seconds per received transfer, taken from compute */
    double host_s_per_byte;               /* O: host CPU seconds per received byte (a CPU-driven copy) */
    char calibration_note[256];           /* free text recorded by calibrate (BLAS kernel, date) */
    rs_kernel_table_t kernels;            /* attention kernel curves and implementation presets (optional) */
} rs_hw_t;

/* Load a device profile: a preset name ("h100-sxm") or a path. Returns 0 or -1 with err naming
 * file:line:column and the key for unknown keys, wrong types and out-of-range values. */
int rs_hw_load(const char *name_or_path, rs_hw_t *out, rs_err_t *err);
/* Parse profile text; origin is the file name used in messages. */
int rs_hw_parse(const char *text, const char *origin, rs_hw_t *out, rs_err_t *err);
/* Load an interconnect tier preset ("ib-ndr") or file. Same error rules. */
int rs_tier_load(const char *name_or_path, rs_tier_t *out, rs_err_t *err);
/* Write a profile (including calibration) as JSON, atomically. Returns 0 or -1. */
int rs_hw_write_json(const rs_hw_t *hw, const char *path, const char *source_note, rs_err_t *err);
/* Names of the embedded device and tier presets, NULL-terminated. */
const char *const *rs_hw_preset_names(void);
const char *const *rs_tier_preset_names(void);
/* Raw text of an embedded preset (device or tier) or NULL. */
const char *rs_preset_text(const char *name);

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

typedef struct {
    char hw_name[RS_NAME_LEN];     /* profile name, for trace headers */
    rs_dtype_t dtype;              /* picks the peak rate */
    double flops_per_s;            /* peak F, FLOP/s */
    int n_eff;                     /* efficiency curve (copied from the profile) */
    rs_eff_point_t eff[RS_MAX_EFF_POINTS];
    double launch_s;               /* per-step launch overhead (only steps with compute) */
    double overlap;                /* eta in [0,1]; 1 = transfers fully overlap compute */
    double comp_slowdown;          /* sigma >= 1; 1 = no slowdown */
    int n_overlap;                 /* overlap curve eta(bytes); when > 0 it replaces `overlap` */
    rs_overlap_point_t overlap_curve[RS_MAX_OVERLAP_POINTS];
    double host_s_per_xfer;        /* o: compute time taken per transfer a rank receives in a step */
    double host_s_per_byte;        /* O: compute time taken per byte a rank receives in a step */
    int64_t devices_per_node;      /* G; 0 = flat ring */
    rs_tier_t intra;               /* tier of hops inside a node (the flat ring's only tier) */
    rs_tier_t inter;               /* tier of hops crossing nodes */
    double jitter;                 /* compute time x (1 + jitter * (2u - 1)), u = rs_hash_unit(seed, rank, step) */
    uint64_t seed;                 /* jitter seed */
    int n_stragglers;              /* ranks whose compute is slower by a factor */
    int64_t straggler_rank[RS_MAX_PERTURB];
    double straggler_factor[RS_MAX_PERTURB];
    int n_degraded;                /* hops whose bandwidth is divided by a factor */
    int64_t degraded_hop[RS_MAX_PERTURB];
    double degraded_factor[RS_MAX_PERTURB];
    bool loopback;                 /* every rank alone, its hop p going to itself (one device playing
                                      each rank in turn: exec --loopback); the walk only */
    rs_kernel_table_t kernels;     /* the profile's kernel curves (merge_bw: the device's when 0 there) */
    int impl;                      /* rs_impl_t costing the steps (model/kernel.h); RS_IMPL_NONE = dense peak */
    int kernel;                    /* kernel index + 1 whose curves rate the calls; 0 = F x eff(B) */
} rs_machine_t;

/* Machine from a profile and a dtype: peak F for that dtype, tiers, calibration, kernel curves with
 * the profile's default implementation preset and the kernel it runs there; no perturbations.
 * Returns 0 or -1 if the profile has no rate for dtype. */
int rs_machine_from_hw(const rs_hw_t *hw, rs_dtype_t dtype, rs_machine_t *m, rs_err_t *err);
/* Validate ranges (positive finite rates, eta in [0,1], sigma >= 1, ranks/hops < n_ranks, ...) and
 * that eta < 1 (scalar or curve) is not combined with sigma > 1. */
int rs_machine_validate(const rs_machine_t *m, int64_t n_ranks, rs_err_t *err);

/* Bandwidth (bytes/s, after degradation) and latency (s) of hop p -> p+1 in a ring of n ranks. */
double rs_machine_hop_bw(const rs_machine_t *m, int64_t n_ranks, int64_t hop);
double rs_machine_hop_latency(const rs_machine_t *m, int64_t n_ranks, int64_t hop);
/* true iff hop p -> p+1 crosses a node boundary. */
bool rs_machine_hop_inter(const rs_machine_t *m, int64_t n_ranks, int64_t hop);

/* Effective compute rate F_eff(B) = F_peak * eff(B), FLOP/s. */
double rs_machine_flops_eff(const rs_machine_t *m, double block_tokens);
/* Compute duration of (rank, step) when nothing is in flight: 0 if flops_exec == 0, else
 * launch_s + flops_exec / F_eff(B) * straggler(rank) * jitter(rank, step). */
double rs_machine_comp_time(const rs_machine_t *m, int64_t block_tokens, int64_t rank, int64_t step,
                            uint64_t flops_exec);
/* Overlap factor eta for a step whose hop carries `bytes`: the curve (log-linear in bytes between
 * points, clamped outside) when the machine has one, else the scalar `overlap`. */
double rs_machine_overlap(const rs_machine_t *m, double bytes);
/* true iff some step may get eta < 1 (scalar or any curve point). */
bool rs_machine_partial_overlap(const rs_machine_t *m);
/* Host cost (LogGOPS o and O) of receiving n_xfers transfers of `bytes` in all during a step:
 * n_xfers o + bytes O seconds, added to the step's compute when the step computes. */
double rs_machine_host_s(const rs_machine_t *m, int n_xfers, double bytes);
/* Compute duration of (rank, step) that receives n_xfers transfers of `bytes` in all:
 * rs_machine_comp_time() + rs_machine_host_s() when the step computes, else 0. */
double rs_machine_step_comp_time(const rs_machine_t *m, int64_t block_tokens, int64_t rank, int64_t step,
                                 uint64_t flops_exec, int n_xfers, double bytes);

#endif /* RS_HW_H */
