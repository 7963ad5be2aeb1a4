/* plausible.c - figures against the device they name (plausible.h). */
#include "plausible.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "presets.h"

/* A GPU's name, as CUDA and ROCm report it, to a device preset: every `all` substring present, none
 * of `none` (upper case, with spaces, '-' and '_' removed). The first row that matches decides;
 * preset NULL: a variant without a preset. */
typedef struct {
    const char *all[2];
    const char *none;
    const char *preset;
} gpu_row_t;

static const gpu_row_t gpu_rows[] = {
    {{"GB200", NULL}, NULL, "gb200"},
    {{"B200", NULL}, NULL, "b200"},
    {{"H100", "PCIE"}, NULL, "h100-pcie"},
    {{"H100", "NVL"}, NULL, NULL},
    {{"H100", NULL}, NULL, "h100-sxm"}, /* "NVIDIA H100 80GB HBM3" is the SXM5 part */
    {{"H200", "NVL"}, NULL, NULL},
    {{"H200", NULL}, NULL, "h200"},
    {{"H800", NULL}, "PCIE", "h800-sxm"},
    {{"A100", NULL}, "PCIE", "a100-sxm"},
    {{"MI325X", NULL}, NULL, "mi325x"},
    {{"MI300X", NULL}, NULL, "mi300x"},
    {{"GAUDI3", NULL}, NULL, "gaudi3"},
    {{"HL325", NULL}, NULL, "gaudi3"},
    {{"TPUV4", NULL}, NULL, "tpu-v4"},
    {{"TPUV5E", NULL}, NULL, "tpu-v5e"},
    {{"TPUV5LITE", NULL}, NULL, "tpu-v5e"},
    {{"TPUV5P", NULL}, NULL, "tpu-v5p"},
    {{"TPUV6E", NULL}, NULL, "tpu-v6e"},
};

/* The memory size a name gives ("80GB", "40 GB"), bytes; 0 when none. */
static double name_memory(const char *name) {
    for (const char *p = name; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > name && isdigit((unsigned char)p[-1]))) continue;
        char *end;
        const double gb = strtod(p, &end);
        while (*end == ' ') end++;
        if (end != p && !strncasecmp(end, "GB", 2)) return gb * 1e9;
    }
    return 0;
}

const char *rs_device_preset(const char *name) {
    if (!name || !*name) return NULL;
    const char *const *names = rs_hw_preset_names();
    const char *own = preset_find(names, name);
    for (int i = 0; !own && names[i]; i++) { /* a preset's profile name ("H100-SXM") */
        rs_hw_t hw;
        if (rs_hw_load(names[i], &hw, NULL) == 0 && !strcasecmp(hw.name, name)) own = names[i];
    }
    if (own) return own;
    char up[RS_NAME_LEN * 2];
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof up; p++)
        if (*p != ' ' && *p != '-' && *p != '_') up[n++] = (char)toupper((unsigned char)*p);
    up[n] = 0;
    for (size_t r = 0; r < sizeof gpu_rows / sizeof gpu_rows[0]; r++) {
        const gpu_row_t *g = &gpu_rows[r];
        if (!strstr(up, g->all[0]) || (g->all[1] && !strstr(up, g->all[1])) || (g->none && strstr(up, g->none))) continue;
        rs_hw_t hw;
        const double mem = name_memory(name);
        if (!g->preset || rs_hw_load(g->preset, &hw, NULL) != 0) return NULL;
        if (mem > 0 && fabs(mem - hw.mem_bytes) > RS_PLAUSIBLE_MEM_TOLERANCE * hw.mem_bytes) return NULL;
        return preset_find(names, g->preset);
    }
    return NULL;
}

double rs_tier_nominal_bw(const char *tier_name) {
    const char *const *names = rs_tier_preset_names();
    char base[RS_NAME_LEN];
    snprintf(base, sizeof base, "%s", tier_name ? tier_name : "");
    const size_t n = strlen(base), k = strlen("-measured");
    if (n > k && !strcasecmp(base + n - k, "-measured")) base[n - k] = 0; /* a measured rate's nominal */
    const char *t = preset_find(names, base);
    rs_tier_t tier;
    return t && rs_tier_load(t, &tier, NULL) == 0 ? tier.bw_bytes_per_s : 0;
}

int rs_plausible(const rs_plausible_t *pl, bool ok, const char *what, const char *why, rs_err_t *err) {
    if (ok) return 0;
    if (pl->allow) {
        if (pl->warn && pl->len) {
            const size_t u = strlen(pl->warn);
            snprintf(pl->warn + u, pl->len - u, "%s%s: %s; taken as given (--allow-implausible)", u ? "; " : "", what, why);
        }
        return 0;
    }
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s (--allow-implausible takes it as given)", what, why);
}

int rs_hw_device(const rs_hw_t *hw, rs_hw_t *device) {
    const char *p = rs_device_preset(hw->name);
    return p && rs_hw_load(p, device, NULL) == 0;
}

/* A tier's W against its nominal rate: its own name's, else the device's tier of that role. */
static int tier_plausible(const rs_tier_t *t, const char *role, const char *origin, const rs_tier_t *dev_tier,
                          const rs_plausible_t *pl, rs_err_t *err) {
    double nominal = rs_tier_nominal_bw(t->name);
    const char *of = t->name;
    if (nominal <= 0 && dev_tier) {
        nominal = rs_tier_nominal_bw(dev_tier->name);
        if (nominal <= 0) nominal = dev_tier->bw_bytes_per_s; /* the preset's own inline tier */
        of = dev_tier->name;
    }
    char what[1200], why[256];
    snprintf(what, sizeof what, "%s: tiers.%s.bw_bytes_per_s %.4g", origin, role, t->bw_bytes_per_s);
    snprintf(why, sizeof why, "above the nominal rate of %s, %.4g bytes/s per direction", of, nominal);
    return rs_plausible(pl, nominal <= 0 || t->bw_bytes_per_s <= nominal * (1 + 1e-9), what, why, err);
}

/* Every peak F, and the highest point of the kernel curves for each dtype, against the datasheet's. */
static int flops_plausible(const rs_hw_t *hw, const char *origin, const rs_hw_t *device, const rs_plausible_t *pl, rs_err_t *err) {
    char what[1200], why[256];
    for (int d = 0; d < RS_DTYPE_COUNT; d++) {
        const double peak = device->flops_per_s[d], bound = RS_PLAUSIBLE_PEAK_FACTOR * peak;
        if (!(peak > 0)) continue;
        snprintf(why, sizeof why, "above %s's datasheet %s peak x %.2f (%.4g FLOP/s)", device->name, rs_dtype_name((rs_dtype_t)d),
                 RS_PLAUSIBLE_PEAK_FACTOR, bound);
        const double f = hw->flops_per_s[d];
        snprintf(what, sizeof what, "%s: device.flops_per_s.%s %.4g", origin, rs_dtype_name((rs_dtype_t)d), f);
        if (f > 0 && rs_plausible(pl, f <= bound, what, why, err) != 0) return -1;
        const rs_kernel_table_t *t = &hw->kernels; /* a call's useful rate: at most the peak too */
        int top_c = -1, top_k = 0, j = 0;
        for (int c = 0; c < t->n_curves; c++)
            for (int k = 0; (t->curve[c].dtypes >> d & 1u) && k < t->curve[c].n; k++)
                if (top_c < 0 || t->curve[c].pt[k].flops_per_s > t->curve[top_c].pt[top_k].flops_per_s) top_c = c, top_k = k;
        if (top_c < 0) continue;
        for (int e = 0; e < top_c; e++) j += t->curve[e].kernel == t->curve[top_c].kernel; /* its index in its kernel's list */
        const double top = t->curve[top_c].pt[top_k].flops_per_s;
        snprintf(what, sizeof what, "%s: kernels.list[%d].curves[%d].points[%d] %.4g FLOP/s (the highest %s point)", origin,
                 t->curve[top_c].kernel, j, top_k, top, rs_dtype_name((rs_dtype_t)d));
        if (rs_plausible(pl, top <= bound, what, why, err) != 0) return -1;
    }
    return 0;
}

int rs_hw_plausible(const rs_hw_t *hw, const char *origin, const rs_hw_t *device, const rs_plausible_t *pl, rs_err_t *err) {
    char what[1200], why[256];
    if (device && flops_plausible(hw, origin, device, pl, err) != 0) return -1;
    if (tier_plausible(&hw->intra, "intra", origin, device ? &device->intra : NULL, pl, err) != 0) return -1;
    if (hw->has_inter &&
        tier_plausible(&hw->inter, "inter", origin, device && device->has_inter ? &device->inter : NULL, pl, err) != 0)
        return -1;
    if (!device) return 0;
    const double mem = device->mem_bytes, bw = device->mem_bw_bytes_per_s;
    snprintf(what, sizeof what, "%s: device.memory_bytes %.4g", origin, hw->mem_bytes);
    snprintf(why, sizeof why, "not %s's %.4g bytes within %.0f%% (a host's figure?)", device->name, mem, 100 * RS_PLAUSIBLE_MEM_TOLERANCE);
    if (rs_plausible(pl, fabs(hw->mem_bytes - mem) <= RS_PLAUSIBLE_MEM_TOLERANCE * mem, what, why, err) != 0) return -1;
    const double bws[2] = {hw->mem_bw_bytes_per_s, hw->kernels.merge_bw_bytes_per_s};
    const char *keys[2] = {"device.memory_bw_bytes_per_s", "kernels.merge_bw_bytes_per_s"};
    for (int i = 0; i < 2; i++) {
        if (!(bws[i] > 0)) continue; /* no merge bandwidth: the memory's */
        snprintf(what, sizeof what, "%s: %s %.4g", origin, keys[i], bws[i]);
        snprintf(why, sizeof why, "outside [%.2f, %.2f] x %s's memory bandwidth %.4g bytes/s (a host's figure?)", RS_PLAUSIBLE_BW_LOW,
                 RS_PLAUSIBLE_PEAK_FACTOR, device->name, bw);
        if (rs_plausible(pl, bws[i] >= RS_PLAUSIBLE_BW_LOW * bw && bws[i] <= RS_PLAUSIBLE_PEAK_FACTOR * bw, what, why, err) != 0)
            return -1;
    }
    return 0;
}
