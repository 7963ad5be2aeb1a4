/* plausible.h - every figure that enters against the physics of the device it names
 * (docs/profiles.md "Plausibility"): a profile's, a flag's (--flops, --bw, --inter-bw), a fit's
 * (`ringsim calibrate`, `calibrate --from-trace`).
 *
 * The device a figure belongs to is a device preset: the profile itself when it is one, else the
 * preset its name names (rs_device_preset: "H100-SXM", or a GPU's own name, "NVIDIA H100 80GB HBM3").
 * Against it:
 *   - a peak F per dtype, and every point of a kernel curve for it, at most RS_PLAUSIBLE_PEAK_FACTOR x
 *     the preset's datasheet peak;
 *   - a link's W at most its nominal rate (the tier preset of its name, a "-measured" tier's base;
 *     else the device preset's tier);
 *   - device memory within RS_PLAUSIBLE_MEM_TOLERANCE of the preset's, the memory and merge
 *     bandwidths in [RS_PLAUSIBLE_BW_LOW, RS_PLAUSIBLE_PEAK_FACTOR] x the preset's memory bandwidth
 *     (a host's figures written into a GPU's profile fail these).
 * A figure outside is refused (bad input, the figure and its bound quoted) unless the caller allows
 * it (--allow-implausible), then it is one warning of the same words. An efficiency above 1 is the
 * reader's to refuse (profile.c), not a matter of --allow-implausible.
 */
#ifndef RS_PLAUSIBLE_H
#define RS_PLAUSIBLE_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

#define RS_PLAUSIBLE_PEAK_FACTOR 1.05   /* F above the datasheet peak by more: a wrong S, a wrong device */
#define RS_PLAUSIBLE_MEM_TOLERANCE 0.10 /* a device's memory: its datasheet's within 10% */
#define RS_PLAUSIBLE_BW_LOW 0.5         /* a device's memory bandwidth: at least half its datasheet's */

/* The device preset a device name names, or NULL: a preset's own name or its profile name
 * (case-insensitive: "h100-sxm", "H100-SXM"), or the name a GPU reports as traces carry it
 * ("NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H200", "NVIDIA A100-SXM4-80GB", "AMD Instinct
 * MI300X", ...; the variants without a preset - H100 NVL, H200 NVL, A100 and H800 PCIe - name none).
 * A name that gives a memory size ("A100-SXM4-40GB") other than the preset's names none. Can't fail. */
const char *rs_device_preset(const char *name);

/* The nominal per-direction bandwidth of the link called tier_name (a tier preset, or the base of a
 * "-measured" one), or 0 when no preset names it. Can't fail. */
double rs_tier_nominal_bw(const char *tier_name);

/* Where the warnings of an allowed figure go. */
typedef struct {
    bool allow;                 /* --allow-implausible: warn instead of refusing */
    char *warn;                 /* warnings, "; "-joined (NULL: dropped) */
    size_t len;
} rs_plausible_t;

/* One figure: nothing when ok; else, allowed, the warning "WHAT: WHY; taken as given
 * (--allow-implausible)" appended to pl->warn and 0; refused, -1 with err (bad input) "WHAT: WHY
 * (--allow-implausible takes it as given)". */
int rs_plausible(const rs_plausible_t *pl, bool ok, const char *what, const char *why, rs_err_t *err);

/* A profile's figures (origin: the file, for messages) against device, its device preset (NULL: only
 * the links' nominal rates by their names): every F, the tiers' W, memory and memory bandwidths, the
 * merge bandwidth. Returns 0, or -1 with err as rs_plausible. */
int rs_hw_plausible(const rs_hw_t *hw, const char *origin, const rs_hw_t *device, const rs_plausible_t *pl, rs_err_t *err);

/* The device preset of profile hw (rs_device_preset of its name) into *device. Returns 1 when there
 * is one, else 0. Can't fail. */
int rs_hw_device(const rs_hw_t *hw, rs_hw_t *device);

#endif /* RS_PLAUSIBLE_H */
