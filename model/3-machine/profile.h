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

typedef struct {
    char name[RS_NAME_LEN];  /* e.g. "nvlink4", "ib-ndr" */
    double bw_bytes_per_s;   /* per direction, bytes/s (> 0) */
    double latency_s;        /* per message, seconds (>= 0) */
} rs_tier_t;

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
    int64_t sm_count;                     /* SMs (CUs) of the device, for the kernels' wave term; 0 = not given */
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
