/* cmd_profiles.c - `ringsim profiles [NAME|FILE]`: list the shipped hardware presets, print one, or
 * check a profile file (format: docs/profiles.md). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "ranges.h"

typedef struct {
    bool tier;   /* --tier */
    bool ranges; /* --ranges */
} profiles_opts_t;

static const rs_opt_t own_opts[] = {
    {"tier", 0, NULL, "off", "FILE is an interconnect tier file, not a device profile", RS_ARG_TRUE,
     offsetof(profiles_opts_t, tier), 0, 0, NULL, NULL, "options:"},
    {"ranges", 0, NULL, "off", "print the accepted range of every hardware quantity (options and\nprofile fields), as Markdown",
     RS_ARG_TRUE, offsetof(profiles_opts_t, ranges), 0, 0, NULL, NULL, NULL},
};


/* One line per device preset (tiers: false) or tier preset (true). Returns 0, or 1 when a preset does
 * not load (a build defect). */
static int list(bool tiers) {
    int rc = 0;
    for (const char *const *n = tiers ? rs_tier_preset_names() : rs_hw_preset_names(); *n; n++) {
        rs_err_t err = {0};
        rs_hw_t hw;
        rs_tier_t t;
        if (tiers ? rs_tier_load(*n, &t, &err) : rs_hw_load(*n, &hw, &err)) {
            fprintf(stderr, "ringsim profiles: %s\n", err.msg);
            rc = 1;
        } else if (tiers) {
            char eff[32] = "-";
            if (rs_span_given(t.p2p_eff) && t.p2p_eff.lo < t.p2p_eff.hi) snprintf(eff, sizeof eff, "%.3g (%.3g-%.3g)", t.p2p_eff.point, t.p2p_eff.lo, t.p2p_eff.hi);
            else if (rs_span_given(t.p2p_eff)) snprintf(eff, sizeof eff, "%.3g", t.p2p_eff.point);
            printf("  %-16s %8.1f %-19s %8.1f %10.2f\n", *n, t.bw_bytes_per_s / 1e9, eff,
                   t.bw_bytes_per_s * rs_span_at(t.p2p_eff, RS_BOUND_POINT, true, 1.0) / 1e9, t.latency_s * 1e6);
        } else {
            const double f = hw.flops_per_s[RS_DTYPE_BF16];
            printf("  %-10s %10.1f %6lld %-12s %10.1f ", *n, f / 1e12, (long long)hw.devices_per_node, hw.intra.name,
                   hw.intra.bw_bytes_per_s / 1e9);
            if (hw.has_inter)
                printf("%-16s %10.1f %9.1f %9.1f\n", hw.inter.name, hw.inter.bw_bytes_per_s / 1e9,
                       f / hw.intra.bw_bytes_per_s, f / hw.inter.bw_bytes_per_s);
            else
                printf("%-16s %10s %9.1f %9s\n", "-", "-", f / hw.intra.bw_bytes_per_s, "-");
        }
    }
    return rc;
}

static int list_presets(void) {
    printf("# device presets (ringsim profiles NAME prints one; rates dense, bandwidths per direction;\n"
           "# F/W in tokens = the seed's B_min for MHA with 2-byte K,V: F/W_inter paces rings that cross nodes)\n");
    printf("# %-10s %10s %6s %-12s %10s %-16s %10s %9s %9s\n", "name", "bf16_TF/s", "G", "intra", "intra_GB/s",
           "inter", "inter_GB/s", "F/W_intra", "F/W_inter");
    int rc = list(false);
    printf("\n# tier presets (--inter NAME, or \"intra\"/\"inter\": \"NAME\" in a profile; GB/s_dir nominal, p2p_eff the fraction\n"
           "# NCCL's point-to-point transfers reach (its range), p2p_GB/s the rate a ring's hop uses)\n");
    printf("# %-16s %8s %-19s %8s %10s\n", "name", "GB/s_dir", "p2p_eff", "p2p_GB/s", "latency_us");
    return rc | list(true);
}

static bool is_path(const char *s) {
    size_t n = strlen(s);
    return strchr(s, '/') || (n >= 5 && !strcmp(s + n - 5, ".json"));
}

int rs_cmd_profiles(int argc, char **argv) {
    profiles_opts_t o = {false, false};
    rs_opt_group_t groups[] = {RS_OPT_GROUP(own_opts, &o)};
    int rc = rs_cli_run_parse("profiles", argc, argv, groups, 1, true);
    if (rc >= 0) return rc;
    const bool tier = o.tier;
    if (o.ranges) {
        if (optind != argc) return fprintf(stderr, "ringsim profiles: --ranges takes no NAME or FILE\n"), RS_EXIT_USAGE;
        rs_ranges_print(stdout);
        return RS_EXIT_OK;
    }
    if (optind == argc) return list_presets() ? RS_EXIT_FAIL : RS_EXIT_OK;
    if (optind + 1 < argc) {
        fprintf(stderr, "ringsim profiles: one NAME or FILE at most, got %d arguments\n", argc - optind);
        return RS_EXIT_USAGE;
    }
    const char *arg = argv[optind];
    rs_err_t err = {0};
    if (is_path(arg)) {
        if (tier) {
            rs_tier_t t;
            if (rs_tier_load(arg, &t, &err)) {
                fprintf(stderr, "ringsim profiles: %s\n", err.msg);
                return RS_EXIT_USAGE;
            }
            printf("%s: ok: tier %s, %g bytes/s per direction, latency %g s\n", arg, t.name, t.bw_bytes_per_s, t.latency_s);
            return RS_EXIT_OK;
        }
        rs_hw_t hw;
        if (rs_hw_load(arg, &hw, &err)) {
            fprintf(stderr, "ringsim profiles: %s\n", err.msg);
            return RS_EXIT_USAGE;
        }
        printf("%s: ok: %s, bf16 %g FLOP/s, G = %lld, intra %s %g bytes/s, inter %s %g bytes/s, %d efficiency points\n",
               arg, hw.name, hw.flops_per_s[RS_DTYPE_BF16], (long long)hw.devices_per_node, hw.intra.name,
               hw.intra.bw_bytes_per_s, hw.has_inter ? hw.inter.name : "-", hw.has_inter ? hw.inter.bw_bytes_per_s : 0.0,
               hw.cal.n_eff);
        return RS_EXIT_OK;
    }
    const char *text = NULL;
    for (const char *const *n = rs_hw_preset_names(); *n && !text; n++)
        if (!strcasecmp(*n, arg)) text = rs_preset_text(*n);
    for (const char *const *n = rs_tier_preset_names(); *n && !text; n++)
        if (!strcasecmp(*n, arg)) text = rs_preset_text(*n);
    if (!text) {
        fprintf(stderr, "ringsim profiles: unknown preset '%s' (devices:", arg);
        for (const char *const *n = rs_hw_preset_names(); *n; n++) fprintf(stderr, " %s", *n);
        fprintf(stderr, "; tiers:");
        for (const char *const *n = rs_tier_preset_names(); *n; n++) fprintf(stderr, " %s", *n);
        fprintf(stderr, ")\n");
        return RS_EXIT_USAGE;
    }
    fputs(text, stdout);
    return RS_EXIT_OK;
}
