/* profile.h - hardware profiles: devices and interconnect tiers as JSON (parsed with jansson), the
 * embedded presets, and the calibration state a profile carries.
 *
 * A profile names a device (peak dense FLOP/s per dtype, memory, memory bandwidth, devices per node),
 * its ring tiers (intra-node hop and inter-node NIC hop: per-direction bandwidth and latency), and
 * optional calibration written by `ringsim calibrate` (an efficiency curve F_eff(B) = eff(B) * F_peak,
 * per-step launch overhead, overlap factor, host cost), and optional attention kernel curves by call
 * shape and mask with the kernel each ring implementation preset runs (kernel_table.h; written by
 * calibrate too). Every figure in a shipped profile carries its source.
 * Format and validation rules: docs/profiles.md. Presets live in profiles/ and are embedded in the
 * binary; a name without '/' or ".json" is looked up among the presets.
 */
#ifndef RS_PROFILE_H
#define RS_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "calibration.h"
#include "dtype.h"
#include "kernel_table.h"
#include "rate_source.h"
#include "util.h"


#define RS_NAME_LEN 64

/* An uncertain figure: the value a prediction uses and the range its sources leave (lo <= point <= hi;
 * all three equal when a source gives one number; all 0 = not given). */
typedef struct {
    double point, lo, hi;
} rs_span_t;

/* Which end of every uncertain figure a machine is built at (docs/model.md, "Ranges"): the point
 * values, or every mechanism at the end that makes the ring faster (FAST) or slower (SLOW). */
typedef enum { RS_BOUND_POINT = 0, RS_BOUND_FAST, RS_BOUND_SLOW, RS_BOUND_COUNT } rs_bound_t;
const char *rs_bound_name(rs_bound_t b); /* "point" | "fast" | "slow" */
int rs_bound_parse(const char *s, rs_bound_t *out); /* 0 or -1 */

/* The span's value at bound b: point, or the end that makes the ring faster (`higher_is_faster`: a
 * rate's hi, a cost's lo) or slower; `none` when the span is not given (all 0). Can't fail. */
double rs_span_at(rs_span_t s, rs_bound_t b, bool higher_is_faster, double none);
/* true when the span was given (any of its figures non-zero). Can't fail. */
static inline bool rs_span_given(rs_span_t s) { return s.point != 0 || s.lo != 0 || s.hi != 0; }

typedef struct {
    char name[RS_NAME_LEN];  /* e.g. "nvlink4", "ib-ndr" */
    double bw_bytes_per_s;   /* per direction, bytes/s (> 0): in a profile the tier's nominal figure; in a
                                machine (machine.h) the rate point-to-point transfers reach, nominal x
                                p2p_eff at the machine's bound */
    double latency_s;        /* per message, seconds (>= 0) */
    rs_span_t p2p_eff;       /* the fraction of the nominal figure NCCL's point-to-point transfers reach
                                with large messages (tier p2p_efficiency, _lo, _hi); not given = 1 */
    double nominal_bw_bytes_per_s; /* in a machine: the nominal figure bw_bytes_per_s came from (0 in a profile) */
} rs_tier_t;

typedef struct {
    char name[RS_NAME_LEN];               /* e.g. "H100-SXM" */
    double flops_per_s[RS_DTYPE_COUNT];   /* peak dense FLOP/s per dtype; 0 = unsupported */
    double mem_bytes;                     /* device memory, bytes */
    double mem_bw_bytes_per_s;            /* device memory bandwidth, bytes/s */
    int64_t devices_per_node;             /* G */
    int64_t nics_per_node;                /* NICs of the inter tier in a node (device.nics_per_node; 0 = one per device) */
    rs_span_t launch_s;                   /* device side: what one kernel launch adds to its stream behind others
                                             (device.launch_s, _lo, _hi; calibration.launch_s replaces it) */
    rs_span_t launch_latency_s;           /* device side: a launch call to the kernel's start on an idle device,
                                             paid after each host sync (device.launch_latency_s, _lo, _hi) */
    rs_tier_t intra;                      /* ring hop inside a node */
    bool has_inter;                       /* an inter-node tier is given */
    rs_tier_t inter;                      /* ring hop between nodes (one NIC per device) */
    double price_per_device_hour;         /* currency units per device-hour; 0 = unknown */
    int64_t sm_count;                     /* SMs (CUs) of the device, for the kernels' wave term; 0 = not given */
    rs_span_t decode_bw_eff;              /* the fraction of memory_bw_bytes_per_s a decode attention kernel reads
                                             the KV cache at (device.decode_bw_eff, _lo, _hi; 0 = not given) */
    rs_rate_source_t decode_src;          /* its source (device.decode_bw_eff_source) */
    rs_calibration_t cal;                 /* calibration (optional in the file; defaults when absent) */
    char calibration_note[256];           /* free text recorded by calibrate (BLAS kernel, date) */
    rs_kernel_table_t kernels;            /* attention kernel curves and presets (optional; prepared) */
    rs_rate_sources_t src;                /* where each rate comes from (the intra/inter/latency records
                                             from the tiers, merge_bw and launch from their sources;
                                             attention: the machine sets it, rs_machine_set_kernel) */
    rs_rate_source_t peak_src, eff_src;   /* the peak FLOP/s's source; calibration.efficiency's */
    rs_rate_source_t tier_src[2][2];      /* [intra, inter][bandwidth, latency]: the tiers' sources */
    bool preset;                          /* read from an embedded preset (else the user's file) */
} rs_hw_t;

/* Load a device profile: a preset name ("h100-sxm") or a path. Returns 0 or -1 with err naming
 * file:line:column and the key for unknown keys, wrong types and out-of-range values. */
int rs_hw_load(const char *name_or_path, rs_hw_t *out, rs_err_t *err);
/* The profile in the file at path, its messages naming display instead of path (file:line:column and
 * the key, as rs_hw_load's): a profile written under a temporary name and committed at the run's end
 * (output.h) is read back and reported by the name it will have. Never a preset. Returns 0 or -1
 * with err. */
int rs_hw_load_as(const char *path, const char *display, rs_hw_t *out, rs_err_t *err);
/* Parse profile text; origin is the file name used in messages. */
int rs_hw_parse(const char *text, const char *origin, rs_hw_t *out, rs_err_t *err);
/* Load an interconnect tier preset ("ib-ndr") or file. Same error rules. */
int rs_tier_load(const char *name_or_path, rs_tier_t *out, rs_err_t *err);
/* rs_tier_load, and where its bandwidth (src[0]) and latency (src[1]) come from (rate_source.h). */
int rs_tier_load_src(const char *name_or_path, rs_tier_t *out, rs_rate_source_t src[2], rs_err_t *err);
/* Write a profile (including calibration) as JSON, atomically. Returns 0 or -1. */
int rs_hw_write_json(const rs_hw_t *hw, const char *path, const char *source_note, rs_err_t *err);
/* Names of the embedded device and tier presets, NULL-terminated. */
const char *const *rs_hw_preset_names(void);
const char *const *rs_tier_preset_names(void);
/* Raw text of an embedded preset (device or tier) or NULL. */
const char *rs_preset_text(const char *name);

#endif /* RS_PROFILE_H */
