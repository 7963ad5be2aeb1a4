/* test_presets.c - the shipped presets (presets.c, presets.h): device and tier names told apart by
 * content, case-insensitive lookup, every figure with its source, datasheet figures, the thresholds
 * F/W of the Ring Attention paper's Table 2, and the shipped kernel curves against their sources. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost.h"
#include "kernel.h"
#include "machine.h"
#include "test_main.h"
#include "model_fixtures.h"

RS_TEST(test_preset_names, "names") {
    const char *devices[] = {"a100-sxm", "h100-sxm", "h100-pcie", "h200", "b200", "gb200", "mi300x", "mi325x", "tpu-v5e", NULL};
    const char *tiers[] = {"nvlink3", "nvlink4", "nvlink5", "pcie4", "pcie5", "ib-hdr", "ib-ndr", "ib-xdr", "roce-400g", "xgmi", NULL};
    for (const char **d = devices; *d; d++) {
        if (!rs_test_has_name(rs_hw_preset_names(), *d)) fprintf(stderr, "  missing device preset %s\n", *d);
        CU_ASSERT(rs_test_has_name(rs_hw_preset_names(), *d));
        CU_ASSERT(!rs_test_has_name(rs_tier_preset_names(), *d));
    }
    for (const char **t = tiers; *t; t++) {
        CU_ASSERT(rs_test_has_name(rs_tier_preset_names(), *t));
        CU_ASSERT(!rs_test_has_name(rs_hw_preset_names(), *t));
    }
    /* the model presets (profiles/models) share the embedded table but are neither */
    for (const char *const *n = rs_hw_preset_names(); *n; n++) CU_ASSERT(!rs_test_has_name(rs_tier_preset_names(), *n));
}

/* Every preset loads; every figure has a source: its object's "source" or its own "<key>_source". */
static void check_sourced(const json_t *obj, const char *const *figures, const char *what) {
    bool obj_src = json_is_string(json_object_get(obj, "source"));
    for (const char *const *f = figures; *f; f++) {
        if (!json_object_get(obj, *f)) continue;
        char k[128];
        snprintf(k, sizeof k, "%s_source", *f);
        bool ok = obj_src || json_is_string(json_object_get(obj, k));
        if (!ok) fprintf(stderr, "  %s: %s has no source\n", what, *f);
        CU_ASSERT(ok);
    }
}

RS_TEST(test_presets_load_with_sources, "load_with_sources") {
    static const char *const rates[] = {"fp32", "tf32", "bf16", "fp16", "fp8", NULL};
    static const char *const dev[] = {"memory_bytes", "memory_bw_bytes_per_s", "devices_per_node", "price_per_device_hour", NULL};
    static const char *const tier[] = {"bw_bytes_per_s", "latency_s", NULL};
    int n = 0;
    for (const char *const *name = rs_hw_preset_names(); *name; name++, n++) {
        rs_hw_t hw = rs_test_hw(*name);
        CU_ASSERT(hw.flops_per_s[RS_DTYPE_BF16] > 0);
        CU_ASSERT(hw.intra.bw_bytes_per_s > 0);
        json_t *j = json_loads(rs_preset_text(*name), 0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        json_t *d = json_object_get(j, "device");
        check_sourced(json_object_get(d, "flops_per_s"), rates, *name);
        check_sourced(d, dev, *name);
        json_t *tiers = json_object_get(j, "tiers");
        for (const char *k = "intra"; k; k = strcmp(k, "intra") ? NULL : "inter") {
            json_t *t = json_object_get(tiers, k);
            if (json_is_object(t)) check_sourced(t, tier, *name);
            else if (t) CU_ASSERT(json_is_string(t)); /* a tier preset: checked below */
        }
        json_decref(j);
    }
    CU_ASSERT(n >= 9);
    for (const char *const *name = rs_tier_preset_names(); *name; name++) {
        rs_test_tier(*name);
        json_t *j = json_loads(rs_preset_text(*name), 0, NULL);
        check_sourced(j, tier, *name);
        json_decref(j);
    }
}

/* The presets' datasheet figures (each with its source in the profile: docs/profiles.md). */
RS_TEST(test_preset_figures, "figures") {
    rs_hw_t h = rs_test_hw("h100-sxm");
    RS_ASSERT_REL(h.flops_per_s[RS_DTYPE_BF16], 989e12, 0);
    RS_ASSERT_REL(h.flops_per_s[RS_DTYPE_FP16], 989e12, 0);
    RS_ASSERT_REL(h.flops_per_s[RS_DTYPE_FP8], 1979e12, 0);
    RS_ASSERT_REL(h.flops_per_s[RS_DTYPE_FP32], 67e12, 0);
    RS_ASSERT_REL(h.mem_bytes, 80e9, 0);
    RS_ASSERT_REL(h.mem_bw_bytes_per_s, 3.35e12, 0);
    CU_ASSERT_EQUAL(h.devices_per_node, 8);
    CU_ASSERT_STRING_EQUAL(h.intra.name, "nvlink4");
    RS_ASSERT_REL(h.intra.bw_bytes_per_s, 450e9, 0); /* per direction, as the seed */
    RS_ASSERT_REL(h.intra.latency_s, 3e-6, 0);
    CU_ASSERT(h.has_inter);
    CU_ASSERT_STRING_EQUAL(h.inter.name, "ib-ndr");
    RS_ASSERT_REL(h.inter.bw_bytes_per_s, 50e9, 0);
    CU_ASSERT_EQUAL(h.cal.n_eff, 0);
    RS_ASSERT_REL(h.cal.overlap, 1, 0);
    RS_ASSERT_REL(h.cal.comp_slowdown, 1, 0);

    rs_hw_t a = rs_test_hw("a100-sxm");
    RS_ASSERT_REL(a.flops_per_s[RS_DTYPE_BF16], 312e12, 0);
    CU_ASSERT_EQUAL(a.flops_per_s[RS_DTYPE_FP8], 0); /* no FP8 on A100 */
    RS_ASSERT_REL(a.mem_bw_bytes_per_s, 2.039e12, 0);
    RS_ASSERT_REL(a.intra.bw_bytes_per_s, 300e9, 0);
    RS_ASSERT_REL(a.inter.bw_bytes_per_s, 25e9, 0);

    rs_hw_t p = rs_test_hw("h100-pcie");
    RS_ASSERT_REL(p.flops_per_s[RS_DTYPE_BF16], 756e12, 0);
    RS_ASSERT_REL(p.intra.bw_bytes_per_s, 64e9, 0);

    rs_hw_t h2 = rs_test_hw("h200");
    RS_ASSERT_REL(h2.flops_per_s[RS_DTYPE_BF16], 989e12, 0);
    RS_ASSERT_REL(h2.mem_bytes, 141e9, 0);
    RS_ASSERT_REL(h2.mem_bw_bytes_per_s, 4.8e12, 0);

    rs_hw_t b = rs_test_hw("b200");
    RS_ASSERT_REL(b.flops_per_s[RS_DTYPE_BF16], 2250e12, 0);
    RS_ASSERT_REL(b.flops_per_s[RS_DTYPE_FP8], 4500e12, 0);
    RS_ASSERT_REL(b.intra.bw_bytes_per_s, 900e9, 0);
    RS_ASSERT_REL(b.mem_bytes, 180e9, 0);

    rs_hw_t g = rs_test_hw("gb200");
    RS_ASSERT_REL(g.flops_per_s[RS_DTYPE_BF16], 2500e12, 0);
    CU_ASSERT_EQUAL(g.devices_per_node, 72);
    RS_ASSERT_REL(g.intra.bw_bytes_per_s, 900e9, 0);

    /* the published context-parallel runs' H100 (arXiv 2411.01783): 502 TFLOP/s is 63% of its BF16 peak
     * (section 4.2.3), 96 GB at 2.4 TB/s (section 4.1); FlashAttention-3 at 540 TFLOP/s, 540 / 797 of the peak;
     * between hosts the 400 Gb/s NIC (50 GB/s) at the 0.53 its SendRecv reached (Table 5), 40 us */
    rs_hw_t gt = rs_test_hw("h100-gt");
    RS_ASSERT_REL(gt.flops_per_s[RS_DTYPE_BF16], 797e12, 0);
    CU_ASSERT(fabs(502e12 / gt.flops_per_s[RS_DTYPE_BF16] - 0.63) < 0.005);
    RS_ASSERT_REL(gt.flops_per_s[RS_DTYPE_FP8], 2 * 797e12, 0);
    RS_ASSERT_REL(gt.mem_bytes, 96e9, 0);
    RS_ASSERT_REL(gt.mem_bw_bytes_per_s, 2.4e12, 0);
    CU_ASSERT_EQUAL(gt.cal.n_eff, 1);
    RS_ASSERT_REL(gt.cal.eff[0].efficiency * gt.flops_per_s[RS_DTYPE_BF16], 540e12, 1e-4);
    RS_ASSERT_REL(gt.inter.bw_bytes_per_s, 50e9, 0);
    RS_ASSERT_REL(gt.inter.p2p_eff.point, 0.53, 0);
    RS_ASSERT_REL(gt.inter.latency_s, 40e-6, 0);
    /* Table 5's pass-KV SendRecv, 16.384 MB, at 40 us + bytes / (0.53 x 50 GB/s): 658 us against 627-631 measured */
    CU_ASSERT(fabs(40e-6 + 16.384e6 / (0.53 * 50e9) - 629e-6) < 0.05 * 629e-6);

    /* MI300X: the ring neighbour is ONE xGMI link (48-64 GB/s), never the 448 GB/s aggregate */
    rs_hw_t m = rs_test_hw("mi300x");
    RS_ASSERT_REL(m.flops_per_s[RS_DTYPE_BF16], 1307.4e12, 0);
    RS_ASSERT_REL(m.flops_per_s[RS_DTYPE_FP8], 2614.9e12, 0);
    RS_ASSERT_REL(m.mem_bytes, 192e9, 0);
    CU_ASSERT(m.intra.bw_bytes_per_s >= 48e9 && m.intra.bw_bytes_per_s <= 64e9);
    rs_hw_t m3 = rs_test_hw("mi325x");
    RS_ASSERT_REL(m3.mem_bytes, 256e9, 0);
    RS_ASSERT_REL(m3.intra.bw_bytes_per_s, m.intra.bw_bytes_per_s, 0);

    rs_hw_t t = rs_test_hw("tpu-v5e");
    RS_ASSERT_REL(t.flops_per_s[RS_DTYPE_BF16], 197e12, 0);
    RS_ASSERT_REL(t.mem_bw_bytes_per_s, 0.819e12, 1e-15);
    RS_ASSERT_REL(t.intra.bw_bytes_per_s, 50e9, 0);
    CU_ASSERT(!t.has_inter);

    RS_ASSERT_REL(rs_test_tier("ib-hdr").bw_bytes_per_s, 25e9, 0);
    RS_ASSERT_REL(rs_test_tier("ib-ndr").bw_bytes_per_s, 50e9, 0);
    RS_ASSERT_REL(rs_test_tier("ib-xdr").bw_bytes_per_s, 100e9, 0);
    RS_ASSERT_REL(rs_test_tier("roce-400g").bw_bytes_per_s, 50e9, 0);
    RS_ASSERT_REL(rs_test_tier("pcie4").bw_bytes_per_s, 32e9, 0);
    RS_ASSERT_REL(rs_test_tier("nvlink5").bw_bytes_per_s, 900e9, 0);
    /* measured variants (anchors: NCCL p2p ~370 GB/s on NVLink4, 46-48 per NDR NIC, ~48 per xGMI link) */
    RS_ASSERT_REL(rs_test_tier("nvlink4-measured").bw_bytes_per_s, 370e9, 0);
    RS_ASSERT_REL(rs_test_tier("ib-ndr-measured").bw_bytes_per_s, 47e9, 0);
    RS_ASSERT_REL(rs_test_tier("xgmi-measured").bw_bytes_per_s, 48e9, 0);
}

RS_TEST(test_preset_lookup, "lookup") {
    rs_hw_t a = rs_test_hw("H100-SXM"); /* case-insensitive */
    CU_ASSERT_STRING_EQUAL(a.name, "H100-SXM");
    rs_hw_t hw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_hw_load("h100", &hw, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown hardware profile 'h100'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "h100-sxm")); /* lists the presets */
    CU_ASSERT_EQUAL(rs_hw_load("nvlink4", &hw, &err), -1); /* a tier is not a device */
    CU_ASSERT_EQUAL(rs_hw_load("llama2-7b", &hw, &err), -1); /* nor a model shape */
    /* ends in .json: a path, not a preset */
    CU_ASSERT_EQUAL(rs_hw_load("h100-sxm.json", &hw, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "h100-sxm.json: cannot read"));
    rs_tier_t t;
    CU_ASSERT_EQUAL(rs_tier_load("h100-sxm", &t, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown tier 'h100-sxm'"));
    CU_ASSERT_PTR_NULL(rs_preset_text("no-such-preset"));
}

RS_TEST(test_b_min_h100, "b_min_h100") {
    rs_hw_t h = rs_test_hw("h100-sxm");
    double f = h.flops_per_s[RS_DTYPE_BF16], w = h.intra.bw_bytes_per_s;
    RS_ASSERT_REL(f / w, 2197.8, 2e-5); /* 2197.777... */
    /* the model's form with MHA, d = 128, 2-byte K and V: c_f = 4d, c_b = 2 * d * 2 */
    RS_ASSERT_REL(rs_seed_b_min(f, w, 4.0 * 128, 2.0 * 128 * 2), 989e12 / 450e9, 1e-15);
    /* across nodes the NIC paces the ring: 9x the NVLink threshold */
    RS_ASSERT_REL(f / h.inter.bw_bytes_per_s, 19780, 1e-12);
}

RS_TEST(test_paper_table2, "paper_table2") {
    /* A100 NVLink: from the presets */
    rs_hw_t a = rs_test_hw("a100-sxm");
    double c = a.flops_per_s[RS_DTYPE_BF16] / rs_test_tier("nvlink3").bw_bytes_per_s;
    RS_ASSERT_REL(c, 1040, 1e-12);
    RS_ASSERT_REL(6 * c, 6240, 1e-12);
    RS_ASSERT_REL(c, 1.0e3, 0.05); /* the paper prints 1.0e3 / 6.2e3 */
    /* A100 InfiniBand: the paper's W = 12.5 GB/s (100 Gb/s) as a tier file */
    rs_tier_t ib;
    rs_err_t err = {0};
    const char *path = RS_BINARY_DIR "/tests/test_hw_ib100.json";
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("{\"name\": \"ib-100g\", \"bw_bytes_per_s\": 12.5e9, \"latency_s\": 0, \"source\": \"Ring Attention paper\"}\n", fp);
    fclose(fp);
    CU_ASSERT_EQUAL_FATAL(rs_tier_load(path, &ib, &err), 0);
    remove(path);
    c = a.flops_per_s[RS_DTYPE_BF16] / ib.bw_bytes_per_s;
    RS_ASSERT_REL(c, 24960, 1e-12);
    RS_ASSERT_REL(6 * c, 149760, 1e-12);
    CU_ASSERT(fabs(c - 24.5e3) / 24.5e3 < 0.02); /* the paper's printed row is ~2% off its formula */
    /* TPU rows: the paper's F and W (its W for TPUs is not one ICI link) */
    struct { double f, w, c, paper_c, paper_s; } rows[] = {
        {123e12, 112e9, 1098.2, 1.1e3, 6.6e3},
        {275e12, 268e9, 1026.1, 1.0e3, 6.2e3},
        {196e12, 186e9, 1053.8, 1.1e3, 6.3e3},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        double ck = rows[k].f / rows[k].w;
        RS_ASSERT_REL(ck, rows[k].c, 1e-4);
        RS_ASSERT_REL(ck, rows[k].paper_c, 0.05);
        RS_ASSERT_REL(6 * ck, rows[k].paper_s, 0.01);
    }
    /* the TPU v4 preset carries the paper's F */
    RS_ASSERT_REL(rs_test_hw("tpu-v4").flops_per_s[RS_DTYPE_BF16], 275e12, 0);
}

/* Every shipped point: a single call of that shape and mask takes useful FLOPs / the source's rate,
 * so FLOPs / time gives back the source's TFLOP/s. */
RS_TEST(test_shipped_round_trip, "shipped curves round-trip their sources' TFLOP/s") {
    const char *const names[] = {"a100-sxm", "h100-sxm", "h200", "h800-sxm", "b200", "mi300x"};
    int points = 0;
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        rs_hw_t hw;
        rs_err_t err = {0};
        CU_ASSERT_EQUAL_FATAL(rs_hw_load(names[i], &hw, &err), 0);
        CU_ASSERT_TRUE(hw.kernels.n_curves > 0);
        CU_ASSERT_EQUAL(rs_kernel_table_validate(&hw.kernels, &err), 0);
        for (int c = 0; c < hw.kernels.n_curves; c++) {
            const rs_kcurve_t *cv = &hw.kernels.curve[c];
            for (int k = 0; k < cv->n; k++) {
                const rs_kpoint_t *pt = &cv->pt[k];
                const double flops = 4.0 * 128 * 32 * pt->q_tokens * pt->k_tokens / (cv->mask == RS_KMASK_FULL ? 1 : 2);
                /* the curve holds full-wave rates; at the point's own measurement its waves give its rate back */
                const double rate = rs_kcurve_rate(cv, pt->q_tokens, pt->k_tokens) * cv->util[k];
                RS_ASSERT_REL(rate, pt->flops_per_s, 1e-14);
                RS_ASSERT_REL(flops / (flops / rate), pt->flops_per_s, 1e-14);
                points++;
            }
        }
    }
    CU_ASSERT(points > 100);
    /* one value from each source, as printed there */
    rs_hw_t hw;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h200", &hw, NULL), 0);
    int k = rs_kernel_find(&hw.kernels, "ringsim-mma");
    CU_ASSERT_TRUE_FATAL(k >= 0);
    bool seen = false;
    for (int c = 0; c < hw.kernels.n_curves; c++) {
        const rs_kcurve_t *cv = &hw.kernels.curve[c];
        if (cv->kernel == k && cv->pass == RS_PASS_BACKWARD && cv->mask == RS_KMASK_SHIFTED) {
            CU_ASSERT_EQUAL(cv->pt[cv->n - 1].flops_per_s, 138.9e12); /* kernel-times.txt, striped, 16384 x 16384 */
            seen = true;
        }
    }
    CU_ASSERT_TRUE(seen);
    CU_ASSERT_EQUAL(hw.kernels.merge_bw_bytes_per_s, 4.117e12);
}

/* The h200 profile's ringsim-mma64 curves against their source file, row by row: every point is the
 * file's useful TFLOP/s for its (kernel row, q, k, mask) - forward rows fwd-v3 (mma64), backward rows
 * backward (mma) - and every square of the file is a point (rectangles: the full mask only); the
 * ringsim preset runs it. */
RS_TEST(test_h200_mma64_source, "h200 ringsim-mma64 == docs/data/2026-11-30-h200-run2-kernel-times.txt, point by point") {
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/data/2026-11-30-h200-run2-kernel-times.txt", RS_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    rs_hw_t hw;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h200", &hw, NULL), 0);
    const int k = rs_kernel_find(&hw.kernels, "ringsim-mma64");
    CU_ASSERT_TRUE_FATAL(k >= 0);
    CU_ASSERT_EQUAL(hw.kernels.impl_kernel[RS_IMPL_RINGSIM], k + 1);
    char line[256], name[32], mask[32];
    int matched = 0, wanted = 0;
    while (fgets(line, sizeof line, f)) {
        long q, kk, b, hq, hk, d;
        double ms, useful;
        if (sscanf(line, "%31s %ld %ld %ld %ld %ld %ld %31s %lf %lf", name, &q, &kk, &b, &hq, &hk, &d, mask, &ms, &useful) != 10) continue;
        const int pass = !strcmp(name, "fwd-v3") ? RS_PASS_FORWARD : !strcmp(name, "backward") ? RS_PASS_BACKWARD : -1;
        const int km = !strcmp(mask, "full") ? RS_KMASK_FULL : !strcmp(mask, "causal") ? RS_KMASK_CAUSAL : RS_KMASK_SHIFTED;
        if (pass < 0 || (km != RS_KMASK_FULL && q != kk)) continue;
        wanted++;
        for (int c = 0; c < hw.kernels.n_curves; c++) {
            const rs_kcurve_t *cv = &hw.kernels.curve[c];
            if (cv->kernel != k || cv->pass != pass || cv->mask != (rs_kmask_t)km || cv->head_dim != 128) continue;
            for (int i = 0; i < cv->n; i++)
                if (cv->pt[i].q_tokens == q && cv->pt[i].k_tokens == kk) {
                    RS_ASSERT_REL(cv->pt[i].flops_per_s, useful * 1e12, 1e-15);
                    matched++;
                }
        }
    }
    fclose(f);
    CU_ASSERT_EQUAL(wanted, 2 * (10 + 6 + 6));
    CU_ASSERT_EQUAL(matched, wanted);
    int points = 0;
    for (int c = 0; c < hw.kernels.n_curves; c++) points += hw.kernels.curve[c].kernel == k ? hw.kernels.curve[c].n : 0;
    CU_ASSERT_EQUAL(points, wanted); /* nothing in the profile that the file does not have */
}

/* No shipped device profile rates attention at the bare datasheet peak unless asked to, and then it
 * says so. For every preset and every dtype it rates: the default machine runs a kernel (published,
 * measured or estimated curves) or an efficiency curve, its attention source is sourced and names no
 * bare peak, and a perfect ring's rate (B x B calls, 128K causal over 8, forward and backward) is
 * below the peak; every implementation preset the profile names a kernel for runs that kernel (never
 * the dense model); --impl none (the dense model) is the only way to the bare peak, and its source
 * says "the bare datasheet peak F, an upper bound". */
RS_TEST(test_no_silent_peak, "every shipped device, dtype and preset: attention from a sourced kernel, the bare peak only when said") {
    int machines = 0, kernels = 0;
    for (const char *const *name = rs_hw_preset_names(); *name; name++) {
        const rs_hw_t hw = rs_test_hw(*name);
        for (int d = 0; d < RS_DTYPE_COUNT; d++) {
            if (!(hw.flops_per_s[d] > 0)) continue;
            rs_machine_t m;
            rs_err_t err = {0};
            if (rs_machine_from_hw(&hw, (rs_dtype_t)d, &m, &err) != 0) { /* refused (said), never the peak */
                CU_ASSERT_NOT_EQUAL(err.msg[0], '\0');
                continue;
            }
            machines++;
            const rs_rate_source_t *a = &m.src.rate[RS_RATE_ATTN];
            const bool ok = (m.kernel > 0 || m.cal.n_eff > 0) && a->kind != RS_RKIND_USER && a->source[0] && !strstr(a->source, "bare");
            if (!ok) fprintf(stderr, "  %s %s: attention %s (%s)\n", *name, rs_dtype_name((rs_dtype_t)d), rs_rate_kind_name(a->kind), a->source);
            CU_ASSERT(ok);
            for (int pass = RS_PASS_FORWARD; pass <= RS_PASS_BACKWARD; pass++) {
                rs_problem_t p = rs_test_kernel_problem(8, 16384, RS_LAYOUT_ZIGZAG, (rs_pass_t)pass, true);
                rs_kmodel_t km;
                rs_kmodel_init(&km, &p, &m);
                const double rate = rs_kernel_local_rate(&km);
                if (!(rate > 0 && rate < 0.9 * m.flops_per_s))
                    fprintf(stderr, "  %s %s %s: local call rate %.4g of peak %.4g\n", *name, rs_dtype_name((rs_dtype_t)d),
                            rs_pass_name((rs_pass_t)pass), rate, m.flops_per_s);
                CU_ASSERT(rate > 0 && rate < 0.9 * m.flops_per_s);
            }
            for (int impl = RS_IMPL_NONE + 1; impl < RS_IMPL_COUNT; impl++) {
                const int k = hw.kernels.impl_kernel[impl];
                if (k <= 0 || m.kernels.n_kernels < k) continue; /* the CLI refuses such an --impl, naming it */
                rs_machine_t mi = m;
                if (rs_machine_set_kernel(&mi, impl, k, NULL) != 0) continue;
                kernels++;
                CU_ASSERT(mi.kernel == k && !strstr(mi.src.rate[RS_RATE_ATTN].source, "bare"));
                CU_ASSERT(mi.src.rate[RS_RATE_ATTN].kind != RS_RKIND_USER);
            }
            rs_machine_t dense = m;
            CU_ASSERT_EQUAL_FATAL(rs_machine_set_kernel(&dense, RS_IMPL_NONE, 0, NULL), 0);
            if (dense.cal.n_eff == 0)
                CU_ASSERT_PTR_NOT_NULL(strstr(dense.src.rate[RS_RATE_ATTN].source, "the bare datasheet peak F, an upper bound"));
        }
    }
    CU_ASSERT(machines >= 14 * 2); /* 14 devices, two or more dtypes each */
    CU_ASSERT(kernels > 10);
}

RS_TEST_PROGRAM("presets")
