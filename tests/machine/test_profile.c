/* test_hw.c - hardware profiles: presets and their datasheet figures, the threshold F/W, the Ring
 * Attention paper's Table 2, every validation error with its exact file:line:column and key, the
 * write/read round trip, the efficiency curve, and the machine's hop and compute-time functions. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine.h"
#include "jsonpos.h"
#include "cost.h"
#include "test_main.h"

/* ------------------------------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------------------------------- */
static rs_hw_t load_ok(const char *name) {
    rs_hw_t hw;
    rs_err_t err = {0};
    int rc = rs_hw_load(name, &hw, &err);
    if (rc) fprintf(stderr, "  load %s: %s\n", name, err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return hw;
}

static rs_tier_t tier_ok(const char *name) {
    rs_tier_t t;
    rs_err_t err = {0};
    int rc = rs_tier_load(name, &t, &err);
    if (rc) fprintf(stderr, "  tier %s: %s\n", name, err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return t;
}

static bool has_name(const char *const *names, const char *want) {
    for (; *names; names++)
        if (!strcmp(*names, want)) return true;
    return false;
}

/* A profile exercising every section; line numbers matter to the error tests below. */
static const char *const BASE =
    "{\n"                                                                            /* 1 */
    "  \"name\": \"T\",\n"                                                           /* 2 */
    "  \"device\": {\n"                                                              /* 3 */
    "    \"flops_per_s\": {\n"                                                       /* 4 */
    "      \"bf16\": 100e12,\n"                                                      /* 5 */
    "      \"source\": \"test\"\n"                                                   /* 6 */
    "    },\n"                                                                       /* 7 */
    "    \"memory_bytes\": 80e9,\n"                                                  /* 8 */
    "    \"memory_bw_bytes_per_s\": 3e12,\n"                                         /* 9 */
    "    \"devices_per_node\": 4\n"                                                  /* 10 */
    "  },\n"                                                                         /* 11 */
    "  \"tiers\": {\n"                                                               /* 12 */
    "    \"intra\": {\"name\": \"t-intra\", \"bw_bytes_per_s\": 100e9, \"latency_s\": 1e-6},\n" /* 13 */
    "    \"inter\": \"ib-ndr\"\n"                                                    /* 14 */
    "  },\n"                                                                         /* 15 */
    "  \"calibration\": {\n"                                                         /* 16 */
    "    \"efficiency\": [[1024, 0.5], [4096, 0.8]],\n"                              /* 17 */
    "    \"launch_s\": 5e-6,\n"                                                      /* 18 */
    "    \"overlap\": 0.9,\n"                                                        /* 19 */
    "    \"comp_slowdown\": 1.1\n"                                                   /* 20 */
    "  }\n"                                                                          /* 21 */
    "}\n";                                                                           /* 22 */

/* BASE with the first occurrence of `from` replaced by `to` (static buffer). */
static const char *subst(const char *from, const char *to) {
    static char buf[4096];
    const char *at = strstr(BASE, from);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    size_t pre = (size_t)(at - BASE);
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)pre, BASE, to, at + strlen(from));
    return buf;
}

/* Parse text as "t.json" and expect exactly the message want. */
static void expect_error(const char *text, const char *want) {
    rs_hw_t hw;
    rs_err_t err = {0};
    int rc = rs_hw_parse(text, "t.json", &hw, &err);
    CU_ASSERT_EQUAL(rc, -1);
    if (strcmp(err.msg, want)) fprintf(stderr, "  got  '%s'\n  want '%s'\n", err.msg, want);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
}

/* ------------------------------------------------------------------------------------------------
 * Presets
 * ---------------------------------------------------------------------------------------------- */
static void test_preset_names(void) {
    const char *devices[] = {"a100-sxm", "h100-sxm", "h100-pcie", "h200", "b200", "gb200", "mi300x", "mi325x", "tpu-v5e", NULL};
    const char *tiers[] = {"nvlink3", "nvlink4", "nvlink5", "pcie4", "pcie5", "ib-hdr", "ib-ndr", "ib-xdr", "roce-400g", "xgmi", NULL};
    for (const char **d = devices; *d; d++) {
        if (!has_name(rs_hw_preset_names(), *d)) fprintf(stderr, "  missing device preset %s\n", *d);
        CU_ASSERT(has_name(rs_hw_preset_names(), *d));
        CU_ASSERT(!has_name(rs_tier_preset_names(), *d));
    }
    for (const char **t = tiers; *t; t++) {
        CU_ASSERT(has_name(rs_tier_preset_names(), *t));
        CU_ASSERT(!has_name(rs_hw_preset_names(), *t));
    }
    /* the model presets (profiles/models) share the embedded table but are neither */
    for (const char *const *n = rs_hw_preset_names(); *n; n++) CU_ASSERT(!has_name(rs_tier_preset_names(), *n));
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

static void test_presets_load_with_sources(void) {
    static const char *const rates[] = {"fp32", "tf32", "bf16", "fp16", "fp8", NULL};
    static const char *const dev[] = {"memory_bytes", "memory_bw_bytes_per_s", "devices_per_node", "price_per_device_hour", NULL};
    static const char *const tier[] = {"bw_bytes_per_s", "latency_s", NULL};
    int n = 0;
    for (const char *const *name = rs_hw_preset_names(); *name; name++, n++) {
        rs_hw_t hw = load_ok(*name);
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
        tier_ok(*name);
        json_t *j = json_loads(rs_preset_text(*name), 0, NULL);
        check_sourced(j, tier, *name);
        json_decref(j);
    }
}

/* The figures of /work/shared/reference/hardware.md. */
static void test_preset_figures(void) {
    rs_hw_t h = load_ok("h100-sxm");
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

    rs_hw_t a = load_ok("a100-sxm");
    RS_ASSERT_REL(a.flops_per_s[RS_DTYPE_BF16], 312e12, 0);
    CU_ASSERT_EQUAL(a.flops_per_s[RS_DTYPE_FP8], 0); /* no FP8 on A100 */
    RS_ASSERT_REL(a.mem_bw_bytes_per_s, 2.039e12, 0);
    RS_ASSERT_REL(a.intra.bw_bytes_per_s, 300e9, 0);
    RS_ASSERT_REL(a.inter.bw_bytes_per_s, 25e9, 0);

    rs_hw_t p = load_ok("h100-pcie");
    RS_ASSERT_REL(p.flops_per_s[RS_DTYPE_BF16], 756e12, 0);
    RS_ASSERT_REL(p.intra.bw_bytes_per_s, 64e9, 0);

    rs_hw_t h2 = load_ok("h200");
    RS_ASSERT_REL(h2.flops_per_s[RS_DTYPE_BF16], 989e12, 0);
    RS_ASSERT_REL(h2.mem_bytes, 141e9, 0);
    RS_ASSERT_REL(h2.mem_bw_bytes_per_s, 4.8e12, 0);

    rs_hw_t b = load_ok("b200");
    RS_ASSERT_REL(b.flops_per_s[RS_DTYPE_BF16], 2250e12, 0);
    RS_ASSERT_REL(b.flops_per_s[RS_DTYPE_FP8], 4500e12, 0);
    RS_ASSERT_REL(b.intra.bw_bytes_per_s, 900e9, 0);
    RS_ASSERT_REL(b.mem_bytes, 180e9, 0);

    rs_hw_t g = load_ok("gb200");
    RS_ASSERT_REL(g.flops_per_s[RS_DTYPE_BF16], 2500e12, 0);
    CU_ASSERT_EQUAL(g.devices_per_node, 72);
    RS_ASSERT_REL(g.intra.bw_bytes_per_s, 900e9, 0);

    /* MI300X: the ring neighbour is ONE xGMI link (48-64 GB/s), never the 448 GB/s aggregate */
    rs_hw_t m = load_ok("mi300x");
    RS_ASSERT_REL(m.flops_per_s[RS_DTYPE_BF16], 1307.4e12, 0);
    RS_ASSERT_REL(m.flops_per_s[RS_DTYPE_FP8], 2614.9e12, 0);
    RS_ASSERT_REL(m.mem_bytes, 192e9, 0);
    CU_ASSERT(m.intra.bw_bytes_per_s >= 48e9 && m.intra.bw_bytes_per_s <= 64e9);
    rs_hw_t m3 = load_ok("mi325x");
    RS_ASSERT_REL(m3.mem_bytes, 256e9, 0);
    RS_ASSERT_REL(m3.intra.bw_bytes_per_s, m.intra.bw_bytes_per_s, 0);

    rs_hw_t t = load_ok("tpu-v5e");
    RS_ASSERT_REL(t.flops_per_s[RS_DTYPE_BF16], 197e12, 0);
    RS_ASSERT_REL(t.mem_bw_bytes_per_s, 0.819e12, 1e-15);
    RS_ASSERT_REL(t.intra.bw_bytes_per_s, 50e9, 0);
    CU_ASSERT(!t.has_inter);

    RS_ASSERT_REL(tier_ok("ib-hdr").bw_bytes_per_s, 25e9, 0);
    RS_ASSERT_REL(tier_ok("ib-ndr").bw_bytes_per_s, 50e9, 0);
    RS_ASSERT_REL(tier_ok("ib-xdr").bw_bytes_per_s, 100e9, 0);
    RS_ASSERT_REL(tier_ok("roce-400g").bw_bytes_per_s, 50e9, 0);
    RS_ASSERT_REL(tier_ok("pcie4").bw_bytes_per_s, 32e9, 0);
    RS_ASSERT_REL(tier_ok("nvlink5").bw_bytes_per_s, 900e9, 0);
    /* measured variants (anchors: NCCL p2p ~370 GB/s on NVLink4, 46-48 per NDR NIC, ~48 per xGMI link) */
    RS_ASSERT_REL(tier_ok("nvlink4-measured").bw_bytes_per_s, 370e9, 0);
    RS_ASSERT_REL(tier_ok("ib-ndr-measured").bw_bytes_per_s, 47e9, 0);
    RS_ASSERT_REL(tier_ok("xgmi-measured").bw_bytes_per_s, 48e9, 0);
}

static void test_preset_lookup(void) {
    rs_hw_t a = load_ok("H100-SXM"); /* case-insensitive */
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

/* A profile or tier the machine spec cannot load: the message names the option and its whole value,
 * unless it is a file's own ("PATH: cannot read", "PATH:LINE: ..."), which names the file already. */
static void test_spec_messages_name_the_option(void) {
    rs_machine_spec_t spec;
    rs_machine_spec_default(&spec);
    rs_hw_t hw;
    rs_err_t err = {0};
    snprintf(spec.profile, sizeof spec.profile, "nosuch");
    CU_ASSERT_EQUAL(rs_machine_spec_profile(&spec, &hw, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--profile nosuch: unknown hardware profile 'nosuch' (presets: "));
    snprintf(spec.profile, sizeof spec.profile, "/nonexistent/p.json");
    CU_ASSERT_EQUAL(rs_machine_spec_profile(&spec, &hw, &err), -1);
    CU_ASSERT_EQUAL(strncmp(err.msg, "/nonexistent/p.json: cannot read", 32), 0);
    snprintf(spec.profile, sizeof spec.profile, "h100-sxm");
    snprintf(spec.inter, sizeof spec.inter, "foo");
    CU_ASSERT_EQUAL(rs_machine_spec_profile(&spec, &hw, &err), -1);
    CU_ASSERT_EQUAL(strncmp(err.msg, "--inter foo: unknown tier 'foo' (presets: ", 41), 0);
    /* rs_err_option: once; a message that starts with the value is kept */
    rs_errf(&err, "bad thing");
    rs_err_option(&err, "--x", "v");
    CU_ASSERT_STRING_EQUAL(err.msg, "--x v: bad thing");
    rs_errf(&err, "v:3: bad line");
    rs_err_option(&err, "--x", "v");
    CU_ASSERT_STRING_EQUAL(err.msg, "v:3: bad line");
    CU_ASSERT_EQUAL(rs_err_option(NULL, "--x", "v"), -1);
}

/* ------------------------------------------------------------------------------------------------
 * Thresholds: the seed's B_min and the Ring Attention paper's Table 2 (c = F/W, s = 6c)
 * ---------------------------------------------------------------------------------------------- */
static void test_b_min_h100(void) {
    rs_hw_t h = load_ok("h100-sxm");
    double f = h.flops_per_s[RS_DTYPE_BF16], w = h.intra.bw_bytes_per_s;
    RS_ASSERT_REL(f / w, 2197.8, 2e-5); /* 2197.777... */
    /* the model's form with MHA, d = 128, 2-byte K and V: c_f = 4d, c_b = 2 * d * 2 */
    RS_ASSERT_REL(rs_seed_b_min(f, w, 4.0 * 128, 2.0 * 128 * 2), 989e12 / 450e9, 1e-15);
    /* across nodes the NIC paces the ring: 9x the NVLink threshold */
    RS_ASSERT_REL(f / h.inter.bw_bytes_per_s, 19780, 1e-12);
}

static void test_paper_table2(void) {
    /* A100 NVLink: from the presets */
    rs_hw_t a = load_ok("a100-sxm");
    double c = a.flops_per_s[RS_DTYPE_BF16] / tier_ok("nvlink3").bw_bytes_per_s;
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
    RS_ASSERT_REL(load_ok("tpu-v4").flops_per_s[RS_DTYPE_BF16], 275e12, 0);
}

/* ------------------------------------------------------------------------------------------------
 * Validation errors: exact file:line:column and key path
 * ---------------------------------------------------------------------------------------------- */
static void test_base_parses(void) {
    rs_hw_t hw;
    rs_err_t err = {0};
    int rc = rs_hw_parse(BASE, "t.json", &hw, &err);
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(hw.name, "T");
    RS_ASSERT_REL(hw.flops_per_s[RS_DTYPE_BF16], 100e12, 0);
    CU_ASSERT_EQUAL(hw.flops_per_s[RS_DTYPE_FP32], 0);
    CU_ASSERT_EQUAL(hw.devices_per_node, 4);
    CU_ASSERT_STRING_EQUAL(hw.intra.name, "t-intra");
    RS_ASSERT_REL(hw.intra.latency_s, 1e-6, 0);
    CU_ASSERT_STRING_EQUAL(hw.inter.name, "ib-ndr"); /* resolved from the tier preset */
    RS_ASSERT_REL(hw.inter.bw_bytes_per_s, 50e9, 0);
    CU_ASSERT_EQUAL(hw.cal.n_eff, 2);
    RS_ASSERT_REL(hw.cal.eff[1].block_tokens, 4096, 0);
    RS_ASSERT_REL(hw.cal.eff[1].efficiency, 0.8, 0);
    RS_ASSERT_REL(hw.cal.launch_s, 5e-6, 0);
    RS_ASSERT_REL(hw.cal.overlap, 0.9, 0);
    RS_ASSERT_REL(hw.cal.comp_slowdown, 1.1, 0);
}

static void test_errors_values(void) {
    expect_error(subst("\"bf16\": 100e12", "\"bf16\": -1"), "t.json:5:7: device.flops_per_s.bf16: must be in [1, 1e+20], got -1");
    expect_error(subst("\"bf16\": 100e12", "\"bf16\": 0"), "t.json:5:7: device.flops_per_s.bf16: must be in [1, 1e+20], got 0");
    /* 1e-300 would pass a check "> 0" and print "inf s"; the range is --flops' */
    expect_error(subst("\"bf16\": 100e12", "\"bf16\": 1e-300"), "t.json:5:7: device.flops_per_s.bf16: must be in [1, 1e+20], got 1e-300");
    expect_error(subst("\"bf16\": 100e12", "\"bf16\": 1e21"), "t.json:5:7: device.flops_per_s.bf16: must be in [1, 1e+20], got 1e+21");
    expect_error(subst("\"memory_bytes\": 80e9", "\"memory_bytes\": -8"), "t.json:8:5: device.memory_bytes: must be in [1, 1e+18], got -8");
    expect_error(subst("\"devices_per_node\": 4", "\"devices_per_node\": 0"),
                 "t.json:10:5: device.devices_per_node: must be in [1, 1e+06], got 0");
    expect_error(subst("\"bw_bytes_per_s\": 100e9", "\"bw_bytes_per_s\": -100e9"),
                 "t.json:13:34: tiers.intra.bw_bytes_per_s: must be in [1, 1e+16], got -1e+11");
    expect_error(subst("\"latency_s\": 1e-6", "\"latency_s\": -1e-6"),
                 "t.json:13:59: tiers.intra.latency_s: must be in [0, 10], got -1e-06");
    expect_error(subst("\"overlap\": 0.9", "\"overlap\": 1.5"), "t.json:19:5: calibration.overlap: must be in [0, 1], got 1.5");
    expect_error(subst("\"overlap\": 0.9", "\"overlap\": -0.1"), "t.json:19:5: calibration.overlap: must be in [0, 1], got -0.1");
    expect_error(subst("\"comp_slowdown\": 1.1", "\"comp_slowdown\": 0.9"),
                 "t.json:20:5: calibration.comp_slowdown: must be in [1, 1e+06], got 0.9");
    expect_error(subst("\"launch_s\": 5e-6", "\"launch_s\": -5e-6"), "t.json:18:5: calibration.launch_s: must be in [0, 10], got -5e-06");
    /* efficiency points: value positions inside the array */
    expect_error(subst("[4096, 0.8]", "[4096, 1.6]"),
                 "t.json:17:40: calibration.efficiency[1][1]: efficiency must be in (0, 1.5], got 1.6");
    expect_error(subst("[1024, 0.5]", "[1024, 0]"),
                 "t.json:17:27: calibration.efficiency[0][1]: efficiency must be in (0, 1.5], got 0");
    expect_error(subst("[4096, 0.8]", "[512, 0.8]"),
                 "t.json:17:34: calibration.efficiency[1][0]: block_tokens must increase strictly, got 512 after 1024");
    expect_error(subst("[1024, 0.5]", "[-1, 0.5]"),
                 "t.json:17:21: calibration.efficiency[0][0]: block_tokens must be > 0, got -1");
    expect_error(subst("[[1024, 0.5], [4096, 0.8]]", "[]"),
                 "t.json:17:5: calibration.efficiency: must hold 1 to 64 [block_tokens, efficiency] pairs, got 0");
    expect_error(subst("[4096, 0.8]", "[4096]"),
                 "t.json:17:33: calibration.efficiency[1]: must be a pair [block_tokens, efficiency], got an array");
    /* overlap curve and host cost */
    expect_error(subst("\"overlap\": 0.9", "\"overlap\": 0.9, \"overlap_curve\": [[65536, 0.2]]"),
                 "t.json:19:21: calibration.overlap_curve: give either 'overlap' (one eta) or 'overlap_curve', not both");
    expect_error(subst("\"overlap\": 0.9", "\"overlap_curve\": [[65536, 0.2], [1048576, 1.2]]"),
                 "t.json:19:47: calibration.overlap_curve[1][1]: eta must be in [0, 1], got 1.2");
    expect_error(subst("\"overlap\": 0.9", "\"overlap_curve\": [[65536, 0.2], [65536, 0.5]]"),
                 "t.json:19:38: calibration.overlap_curve[1][0]: bytes must increase strictly, got 65536 after 65536");
    expect_error(subst("\"overlap\": 0.9", "\"poll_curve\": [[65536, 2.5]]"),
                 "t.json:19:5: calibration.poll_curve: the poll model needs poll_curve, poll_chunk_cols, poll_panel_rows_forward "
                 "and poll_panel_rows_backward together");
    expect_error(subst("\"overlap\": 0.9", "\"poll_curve_fresh\": [[65536, 2]]"),
                 "t.json:19:5: calibration.poll_curve_fresh: needs calibration.poll_curve (the curve of the reused transfers)");
    expect_error(subst("\"overlap\": 0.9", "\"poll_curve\": [[65536, 2]], \"poll_curve_fresh\": [[65536, -1]], \"poll_chunk_cols\": 256, "
                       "\"poll_panel_rows_forward\": 512, \"poll_panel_rows_backward\": 256"),
                 "t.json:19:62: calibration.poll_curve_fresh[0][1]: polls must be in (0, 1e+06], got -1");
    expect_error(subst("\"overlap\": 0.9", "\"poll_curve\": [[65536, 0]], \"poll_chunk_cols\": 256, \"poll_panel_rows_forward\": 512, "
                       "\"poll_panel_rows_backward\": 256"),
                 "t.json:19:28: calibration.poll_curve[0][1]: polls must be in (0, 1e+06], got 0");
    expect_error(subst("\"overlap\": 0.9", "\"poll_curve\": [[65536, 2]], \"poll_chunk_cols\": 25.5, \"poll_panel_rows_forward\": 512, "
                       "\"poll_panel_rows_backward\": 256"),
                 "t.json:19:33: calibration.poll_chunk_cols: must be an integer in [1, 1e+06], got 25.5");
    expect_error(subst("\"overlap\": 0.9", "\"xfer_curve\": [[16384, 0.8], [1048576, 0]]"),
                 "t.json:19:44: calibration.xfer_curve[1][1]: g must be in (0, 1e+06], got 0");
    expect_error(subst("\"overlap\": 0.9", "\"xfer_curve\": [[16384, 0.8]], \"xfer_curve_reused\": [[16384, 1.5], [8192, 2]]"),
                 "t.json:19:72: calibration.xfer_curve_reused[1][0]: bytes must increase strictly, got 8192 after 16384");
    expect_error(subst("\"overlap\": 0.9", "\"xfer_curve_reused\": [[16384, 1.5]]"),
                 "t.json:19:5: calibration.xfer_curve_reused: needs calibration.xfer_curve (the curve of the other transfers)");
    expect_error(subst("\"overlap\": 0.9", "\"host_s_per_byte\": -1e-10"),
                 "t.json:19:5: calibration.host_s_per_byte: must be in [0, 0.001], got -1e-10");
    expect_error(subst("\"bf16\": 100e12,", ""), "t.json:4:5: device.flops_per_s: needs at least one rate (keys: fp32, tf32, bf16, fp16, fp8)");
}

static void test_errors_keys_types(void) {
    expect_error(subst("\"name\": \"T\",", "\"name\": \"T\", \"colour\": 1,"),
                 "t.json:2:16: colour: unknown key (accepted: name, description, device, tiers, calibration, kernels, source)");
    expect_error(subst("\"bf16\": 100e12", "\"bf61\": 100e12"),
                 "t.json:5:7: device.flops_per_s.bf61: unknown key (accepted: fp32, tf32, bf16, fp16, fp8, source, <figure>_source)");
    expect_error(subst("\"overlap\": 0.9", "\"overlap_s\": 0.9"),
                 "t.json:19:5: calibration.overlap_s: unknown key (accepted: efficiency, launch_s, overlap, overlap_curve, "
                 "comp_slowdown, host_s_per_xfer, host_s_per_byte, note, poll_curve, poll_curve_fresh, poll_chunk_cols, poll_panel_rows_forward, poll_panel_rows_backward, xfer_curve, xfer_curve_reused, source, <figure>_source)");
    expect_error(subst("\"bf16\": 100e12", "\"bf16\": \"989e12\""),
                 "t.json:5:7: device.flops_per_s.bf16: must be a number, got a string");
    expect_error(subst("\"source\": \"test\"", "\"source\": 3"), "t.json:6:7: device.flops_per_s.source: must be a string, got an integer");
    expect_error(subst("\"devices_per_node\": 4", "\"devices_per_node\": 4.5"),
                 "t.json:10:5: device.devices_per_node: must be an integer, got a number");
    expect_error(subst("\"name\": \"T\"", "\"name\": 7"), "t.json:2:3: name: must be a string, got an integer");
    expect_error(subst("\"name\": \"T\"", "\"name\": \"\""), "t.json:2:3: name: must not be empty");
    expect_error(subst("\"name\": \"T\"", "\"name\": \"0123456789012345678901234567890123456789012345678901234567890123\""),
                 "t.json:2:3: name: must be at most 63 characters, got 64");
    expect_error(subst("\"inter\": \"ib-ndr\"", "\"inter\": \"ib-ndx\""),
                 "t.json:14:5: tiers.inter: unknown tier preset 'ib-ndx' (known: gaudi3-roce, ib-hdr, ib-ndr, ib-ndr-measured, "
                 "ib-xdr, ici-v4, ici-v5e, ici-v5p, ici-v6e, nvlink3, nvlink4, nvlink4-measured, nvlink5, pcie4, pcie5, "
                 "roce-400g, xgmi, xgmi-measured)");
    expect_error(subst("\"inter\": \"ib-ndr\"", "\"inter\": 5"), "t.json:14:5: tiers.inter: must be an object or a tier preset name, got an integer");
    expect_error(subst("\"intra\": {\"name\": \"t-intra\", ", "\"intra\": {"), "t.json:13:5: tiers.intra: missing key 'name'");
    expect_error("{\"name\": \"T\", \"device\": 3, \"tiers\": {}}", "t.json:1:15: device: must be an object, got an integer");
    expect_error(subst("\"intra\"", "\"intro\""), "t.json:13:5: tiers.intro: unknown key (accepted: intra, inter, source)");
    expect_error("[1, 2]\n", "t.json:1:1: the top level must be an object, got an array");
    /* a missing section points at the enclosing object */
    expect_error(subst("\"tiers\"", "\"tiers_\""), "t.json:12:3: tiers_: unknown key (accepted: name, description, device, tiers, calibration, kernels, source)");
    /* unicode in a key: columns count characters, as jansson's do */
    expect_error(subst("\"name\": \"T\",", "\"name\": \"T\xc3\xa9\", \"colour\": 1,"),
                 "t.json:2:17: colour: unknown key (accepted: name, description, device, tiers, calibration, kernels, source)");
    expect_error(subst("\"name\": \"T\",", "\"name\": \"T\", \"\xc3\xa9t\xc3\xa9\": 1, \"x\": 2,"),
                 "t.json:2:16: \xc3\xa9t\xc3\xa9: unknown key (accepted: name, description, device, tiers, calibration, kernels, source)");
}

static void test_errors_syntax(void) {
    /* jansson's own position (the end of the offending token) and text */
    expect_error(subst("\"memory_bytes\": 80e9,", "\"memory_bytes\": 80e9"), "t.json:9:27: '}' expected");
    expect_error(subst("100e12", "1e999"), "t.json:5:19: real number overflow near '1e999'");
    expect_error(subst("\"source\": \"test\"", "\"bf16\": 2"), "t.json:6:12: duplicate object key near '\"bf16\"'");
    expect_error(subst("100e12", "NaN"), "t.json:5:17: invalid token near 'NaN'");
    expect_error("", "t.json:1:0: '[' or '{' expected near end of file");
}

static void test_errors_files(void) {
    rs_hw_t hw;
    rs_tier_t t;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_hw_load("/nonexistent/x.json", &hw, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "/nonexistent/x.json: cannot read: No such file or directory");
    const char *path = RS_BINARY_DIR "/tests/test_hw_tier.json";
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("{\n  \"name\": \"x\",\n  \"bw_bytes_per_s\": 1e9,\n  \"latency_s\": -1\n}\n", fp);
    fclose(fp);
    CU_ASSERT_EQUAL(rs_tier_load(path, &t, &err), -1);
    char want[1024];
    snprintf(want, sizeof want, "%s:4:3: latency_s: must be in [0, 10], got -1", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    fp = fopen(path, "w");
    fputs("{\"name\": \"x\", \"bw_bytes_per_s\": 1e9}\n", fp);
    fclose(fp);
    CU_ASSERT_EQUAL(rs_tier_load(path, &t, &err), -1);
    snprintf(want, sizeof want, "%s:1:1: missing key 'latency_s'", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    remove(path);
}

static void test_jsonpos(void) {
    const char *text = "{\"a\": [1, {\"b\\\"c\": [true, \"x\"]}],\n \"\\u00e9\": {\"d\": null}}";
    rs_jsonpos_t *p = rs_jsonpos_scan(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    int l, c;
    CU_ASSERT_EQUAL(rs_jsonpos_find(p, "", &l, &c), 0);
    CU_ASSERT(l == 1 && c == 1);
    CU_ASSERT_EQUAL(rs_jsonpos_find(p, "a", &l, &c), 0);
    CU_ASSERT(l == 1 && c == 2);
    CU_ASSERT_EQUAL(rs_jsonpos_find(p, "a[1]", &l, &c), 0);
    CU_ASSERT(l == 1 && c == 11);
    CU_ASSERT_EQUAL(rs_jsonpos_find(p, "a[1].b\"c", &l, &c), 0);
    CU_ASSERT(l == 1 && c == 12);
    CU_ASSERT_EQUAL(rs_jsonpos_find(p, "a[1].b\"c[1]", &l, &c), 0);
    CU_ASSERT(l == 1 && c == 27);
    CU_ASSERT_EQUAL(rs_jsonpos_find(p, "\xc3\xa9.d", &l, &c), 0);
    CU_ASSERT(l == 2 && c == 13);
    CU_ASSERT_EQUAL(rs_jsonpos_find(p, "a[2]", &l, &c), -1);
    CU_ASSERT(l == 0 && c == 0);
    rs_jsonpos_free(p);
}

/* ------------------------------------------------------------------------------------------------
 * Write / read round trip
 * ---------------------------------------------------------------------------------------------- */
static void test_round_trip(void) {
    rs_hw_t hw = load_ok("mi300x");
    hw.cal.n_eff = 3;
    hw.cal.eff[0] = (rs_eff_point_t){256, 0.1 + 0.2};
    hw.cal.eff[1] = (rs_eff_point_t){1000.5, 1.0 / 3.0};
    hw.cal.eff[2] = (rs_eff_point_t){65536, 1.4999999999999998};
    hw.cal.launch_s = 1e-5 / 3;
    hw.cal.overlap = 0.7;
    hw.cal.comp_slowdown = 1.0000000000000002;
    hw.price_per_device_hour = 2.49;
    hw.intra.latency_s = 2.9e-6 + 1e-22;
    hw.inter.latency_s = 5e-324; /* denormal */
    hw.inter.bw_bytes_per_s = 9999999999999998.0; /* the largest double below the range's 1e16 */
    hw.mem_bytes = 123456789.123456789;
    hw.mem_bw_bytes_per_s = 999.9999999999999e12; /* rounds up to 1000 in a short mantissa */
    snprintf(hw.calibration_note, sizeof hw.calibration_note, "OpenBLAS sgemm, \"quoted\", 2026-11-29");
    const char *path = RS_BINARY_DIR "/tests/test_hw_roundtrip.json";
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_write_json(&hw, path, "calibrated by test_hw", &err), 0);
    rs_hw_t back = load_ok(path);
    CU_ASSERT_STRING_EQUAL(back.name, hw.name);
    for (int k = 0; k < RS_DTYPE_COUNT; k++) CU_ASSERT_EQUAL(back.flops_per_s[k], hw.flops_per_s[k]);
    CU_ASSERT_EQUAL(back.mem_bytes, hw.mem_bytes);
    CU_ASSERT_EQUAL(back.mem_bw_bytes_per_s, hw.mem_bw_bytes_per_s);
    CU_ASSERT_EQUAL(back.devices_per_node, hw.devices_per_node);
    CU_ASSERT_STRING_EQUAL(back.intra.name, hw.intra.name);
    CU_ASSERT_EQUAL(back.intra.bw_bytes_per_s, hw.intra.bw_bytes_per_s);
    CU_ASSERT_EQUAL(back.intra.latency_s, hw.intra.latency_s);
    CU_ASSERT_EQUAL(back.has_inter, hw.has_inter);
    CU_ASSERT_STRING_EQUAL(back.inter.name, hw.inter.name);
    CU_ASSERT_EQUAL(back.inter.bw_bytes_per_s, hw.inter.bw_bytes_per_s);
    CU_ASSERT_EQUAL(back.inter.latency_s, hw.inter.latency_s);
    CU_ASSERT_EQUAL(back.price_per_device_hour, hw.price_per_device_hour);
    CU_ASSERT_EQUAL_FATAL(back.cal.n_eff, 3);
    for (int k = 0; k < 3; k++) {
        CU_ASSERT_EQUAL(back.cal.eff[k].block_tokens, hw.cal.eff[k].block_tokens);
        CU_ASSERT_EQUAL(back.cal.eff[k].efficiency, hw.cal.eff[k].efficiency);
    }
    CU_ASSERT_EQUAL(back.cal.launch_s, hw.cal.launch_s);
    CU_ASSERT_EQUAL(back.cal.overlap, hw.cal.overlap);
    CU_ASSERT_EQUAL(back.cal.comp_slowdown, hw.cal.comp_slowdown);
    CU_ASSERT_STRING_EQUAL(back.calibration_note, hw.calibration_note);
    CU_ASSERT_EQUAL(back.cal.n_overlap, 0);
    CU_ASSERT_EQUAL(back.cal.host_s_per_xfer, 0.0);
    {   /* an overlap curve (written instead of the scalar) and the host cost */
        rs_hw_t c = hw;
        c.cal.n_overlap = 2;
        c.cal.overlap_curve[0] = (rs_overlap_point_t){65536, 0.1 + 0.2};
        c.cal.overlap_curve[1] = (rs_overlap_point_t){2097152, 1.0 / 3.0};
        c.cal.host_s_per_xfer = 7e-6 / 3, c.cal.host_s_per_byte = 1e-10 / 3;
        c.cal.poll = (rs_poll_model_t){.chunk_cols = 256, .panel_rows = {512, 256}, .n = 2};
        c.cal.poll.curve[0] = (rs_poll_point_t){65536, 7.0 / 3.0};
        c.cal.poll.curve[1] = (rs_poll_point_t){1048576, 2.0};
        c.cal.poll.n_fresh = 1; /* ... and the fresh transfers' */
        c.cal.poll.fresh[0] = (rs_poll_point_t){262144, 4.0 / 3.0};
        c.cal.n_xfer = 2; /* the transfer curve */
        c.cal.xfer_curve[0] = (rs_xfer_point_t){16384, 0.1 + 0.7};
        c.cal.xfer_curve[1] = (rs_xfer_point_t){1048576, 4.0 / 3.0};
        c.cal.n_xfer_reused = 1; /* ... and the reused one */
        c.cal.xfer_curve_reused[0] = (rs_xfer_point_t){65536, 2.0 / 3.0 + 1};
        const char *pc = RS_BINARY_DIR "/tests/test_hw_roundtrip_curve.json";
        CU_ASSERT_EQUAL_FATAL(rs_hw_write_json(&c, pc, "calibrated by test_hw", &err), 0);
        rs_hw_t cb = load_ok(pc);
        CU_ASSERT_EQUAL_FATAL(cb.cal.n_overlap, 2);
        for (int k = 0; k < 2; k++) {
            CU_ASSERT_EQUAL(cb.cal.overlap_curve[k].bytes, c.cal.overlap_curve[k].bytes);
            CU_ASSERT_EQUAL(cb.cal.overlap_curve[k].eta, c.cal.overlap_curve[k].eta);
        }
        CU_ASSERT_EQUAL(cb.cal.host_s_per_xfer, c.cal.host_s_per_xfer);
        CU_ASSERT_EQUAL(cb.cal.host_s_per_byte, c.cal.host_s_per_byte);
        CU_ASSERT_EQUAL(cb.cal.overlap, 1.0); /* the scalar is not written next to a curve */
        CU_ASSERT_EQUAL_FATAL(cb.cal.poll.n, 2); /* the poll model */
        CU_ASSERT_EQUAL(cb.cal.poll.chunk_cols, 256);
        CU_ASSERT_EQUAL(cb.cal.poll.panel_rows[0], 512);
        CU_ASSERT_EQUAL(cb.cal.poll.panel_rows[1], 256);
        for (int k = 0; k < 2; k++) {
            CU_ASSERT_EQUAL(cb.cal.poll.curve[k].bytes, c.cal.poll.curve[k].bytes);
            CU_ASSERT_EQUAL(cb.cal.poll.curve[k].polls, c.cal.poll.curve[k].polls);
        }
        CU_ASSERT_EQUAL_FATAL(cb.cal.poll.n_fresh, 1);
        CU_ASSERT_EQUAL(cb.cal.poll.fresh[0].bytes, 262144);
        CU_ASSERT_EQUAL(cb.cal.poll.fresh[0].polls, c.cal.poll.fresh[0].polls);
        CU_ASSERT_EQUAL_FATAL(cb.cal.n_xfer, 2);
        for (int k = 0; k < 2; k++) {
            CU_ASSERT_EQUAL(cb.cal.xfer_curve[k].bytes, c.cal.xfer_curve[k].bytes);
            CU_ASSERT_EQUAL(cb.cal.xfer_curve[k].factor, c.cal.xfer_curve[k].factor);
        }
        CU_ASSERT_EQUAL_FATAL(cb.cal.n_xfer_reused, 1);
        CU_ASSERT_EQUAL(cb.cal.xfer_curve_reused[0].bytes, 65536);
        CU_ASSERT_EQUAL(cb.cal.xfer_curve_reused[0].factor, c.cal.xfer_curve_reused[0].factor);
    }
    CU_ASSERT_EQUAL(back.cal.n_xfer, 0); /* none written: the affine model */
    /* a second write of what was read is byte-identical */
    const char *path2 = RS_BINARY_DIR "/tests/test_hw_roundtrip2.json";
    CU_ASSERT_EQUAL_FATAL(rs_hw_write_json(&back, path2, "calibrated by test_hw", &err), 0);
    char *t1 = NULL, *t2 = NULL;
    size_t n1 = 0, n2 = 0;
    FILE *f1 = fopen(path, "r"), *f2 = fopen(path2, "r");
    CU_ASSERT_FATAL(f1 && f2);
    CU_ASSERT(getdelim(&t1, &n1, '\0', f1) > 0 && getdelim(&t2, &n2, '\0', f2) > 0);
    CU_ASSERT_STRING_EQUAL(t1, t2);
    free(t1);
    free(t2);
    fclose(f1);
    fclose(f2);
    remove(path);
    remove(path2);
    /* an unwritable path fails and leaves nothing behind */
    CU_ASSERT_EQUAL(rs_hw_write_json(&hw, "/nonexistent-dir/x.json", NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent-dir/x.json"));
    CU_ASSERT_EQUAL(access(path, F_OK), -1);
}

/* ------------------------------------------------------------------------------------------------
 * Efficiency curve, machine, dtypes
 * ---------------------------------------------------------------------------------------------- */
static void test_efficiency(void) {
    rs_hw_t hw;
    memset(&hw, 0, sizeof hw);
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 1234), 1.0, 0); /* no curve */
    hw.cal.n_eff = 3;
    hw.cal.eff[0] = (rs_eff_point_t){1024, 0.4};
    hw.cal.eff[1] = (rs_eff_point_t){4096, 0.8};
    hw.cal.eff[2] = (rs_eff_point_t){16384, 1.0};
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 2048), 0.6, 1e-14);  /* halfway in log B */
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 8192), 0.9, 1e-14);
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 1024), 0.4, 0);
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 4096), 0.8, 0);
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 16384), 1.0, 0);
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 1448.1546878700494), 0.5, 1e-12); /* 1024 * 2^(1/2), t = 1/4 */
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 16), 0.4, 0);    /* clamped */
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 0), 0.4, 0);
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 1e9), 1.0, 0);
    hw.cal.n_eff = 1;
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 1e9), 0.4, 0);

    rs_machine_t m;
    rs_err_t err = {0};
    hw.cal.n_eff = 3;
    hw.flops_per_s[RS_DTYPE_BF16] = 1e15;
    hw.intra.bw_bytes_per_s = 1e11;
    hw.cal.overlap = hw.cal.comp_slowdown = 1;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, &err), 0);
    RS_ASSERT_REL(rs_machine_flops_eff(&m, 2048), 0.6e15, 1e-14);
    RS_ASSERT_REL(rs_machine_flops_eff(&m, 2896.3093757400989), 0.7e15, 1e-12); /* 2048 * 2^(1/2) */
}

static rs_machine_t machine_2x4(void) {
    rs_hw_t hw = load_ok("h100-sxm");
    hw.devices_per_node = 4;
    rs_machine_t m;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, &err), 0);
    return m;
}

static void test_machine_hops(void) {
    rs_machine_t m = machine_2x4();
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_machine_validate(&m, 8, &err), 0);
    /* N = 8, G = 4: ranks 0-3 on node 0, 4-7 on node 1; hops 3 (3->4) and 7 (7->0) cross */
    for (int64_t p = 0; p < 8; p++) {
        bool x = (p == 3 || p == 7);
        CU_ASSERT_EQUAL(rs_machine_hop_inter(&m, 8, p), x);
        RS_ASSERT_REL(rs_machine_hop_bw(&m, 8, p), x ? 50e9 : 450e9, 0);
        RS_ASSERT_REL(rs_machine_hop_latency(&m, 8, p), x ? 5e-6 : 3e-6, 0);
    }
    CU_ASSERT(rs_machine_hop_inter(&m, 8, -1)); /* wraps to hop 7 */
    /* N = 6, G = 4: nodes {0..3}, {4, 5}: hops 3 and 5 cross */
    for (int64_t p = 0; p < 6; p++) CU_ASSERT_EQUAL(rs_machine_hop_inter(&m, 6, p), p == 3 || p == 5);
    /* one node holds the whole ring, or a flat ring: no crossing */
    for (int64_t p = 0; p < 4; p++) CU_ASSERT(!rs_machine_hop_inter(&m, 4, p));
    m.devices_per_node = 0;
    for (int64_t p = 0; p < 8; p++) CU_ASSERT(!rs_machine_hop_inter(&m, 8, p));
    m.devices_per_node = 4;
    /* degraded hops divide the bandwidth; repeated entries multiply */
    m.perturb.n_degraded = 3;
    m.perturb.degraded_hop[0] = 5, m.perturb.degraded_factor[0] = 2;
    m.perturb.degraded_hop[1] = 7, m.perturb.degraded_factor[1] = 4;
    m.perturb.degraded_hop[2] = 5, m.perturb.degraded_factor[2] = 1.5;
    CU_ASSERT_EQUAL(rs_machine_validate(&m, 8, &err), 0);
    RS_ASSERT_REL(rs_machine_hop_bw(&m, 8, 5), 150e9, 1e-15);
    RS_ASSERT_REL(rs_machine_hop_bw(&m, 8, 7), 12.5e9, 0);
    RS_ASSERT_REL(rs_machine_hop_bw(&m, 8, 6), 450e9, 0);
    RS_ASSERT_REL(rs_machine_hop_latency(&m, 8, 7), 5e-6, 0); /* latency unchanged */
    /* without an inter tier, crossing hops use the intra tier */
    rs_hw_t t = load_ok("tpu-v5e");
    t.devices_per_node = 4;
    rs_machine_t mt;
    CU_ASSERT_EQUAL(rs_machine_from_hw(&t, RS_DTYPE_BF16, &mt, &err), 0);
    RS_ASSERT_REL(rs_machine_hop_bw(&mt, 8, 3), 50e9, 0);
}

/* eta(bytes): log-linear between points, clamped outside; host cost n o + bytes O; the step's
 * compute adds the host cost only when it computes. Values derived by hand. */
static void test_machine_overlap_curve_host(void) {
    rs_machine_t m = machine_2x4();
    rs_err_t err;
    RS_ASSERT_REL(rs_machine_overlap(&m, 12345), 1.0, 0); /* no curve: the scalar */
    CU_ASSERT(!rs_machine_partial_overlap(&m));
    m.cal.n_overlap = 3;
    m.cal.overlap_curve[0] = (rs_overlap_point_t){1024, 0.2};
    m.cal.overlap_curve[1] = (rs_overlap_point_t){4096, 0.6};
    m.cal.overlap_curve[2] = (rs_overlap_point_t){65536, 1.0};
    CU_ASSERT_EQUAL(rs_machine_validate(&m, 8, &err), 0);
    CU_ASSERT(rs_machine_partial_overlap(&m));
    RS_ASSERT_REL(rs_machine_overlap(&m, 100), 0.2, 0);     /* clamped below */
    RS_ASSERT_REL(rs_machine_overlap(&m, 2048), 0.4, 1e-15); /* halfway in log2: 10 -> 11 -> 12 */
    RS_ASSERT_REL(rs_machine_overlap(&m, 16384), 0.8, 1e-15); /* log2 12 -> 14 -> 16 */
    RS_ASSERT_REL(rs_machine_overlap(&m, 1e9), 1.0, 0);     /* clamped above */
    m.cal.overlap_curve[1].eta = 1.5;
    CU_ASSERT_EQUAL(rs_machine_validate(&m, 8, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "overlap curve point 1: eta 1.5 must be in [0, 1]");
    m.cal.overlap_curve[1].eta = 0.6;
    m.cal.host_s_per_xfer = 5e-6, m.cal.host_s_per_byte = 1e-10;
    CU_ASSERT_EQUAL(rs_machine_validate(&m, 8, &err), 0);
    RS_ASSERT_REL(rs_machine_host_s(&m, 2, 3e6, 0), 2 * 5e-6 + 3e-4, 1e-15);
    RS_ASSERT_REL(rs_machine_host_s(&m, 2, 3e6, 3e6), 2 * 5e-6 + 3e-4, 1e-15); /* no reused curve: one O */
    CU_ASSERT_EQUAL(rs_machine_host_s(&m, 0, 0, 0), 0.0);
    { /* O was fitted on reused (rotating) copies, g = 2 there; a fresh copy (g = 1) costs half per byte,
         a step with a third of its bytes reused (g = 4/3) two thirds */
        rs_machine_t q = m;
        q.cal.n_xfer = 1, q.cal.xfer_curve[0] = (rs_xfer_point_t){1e6, 1.0};
        q.cal.n_xfer_reused = 1, q.cal.xfer_curve_reused[0] = (rs_xfer_point_t){1e6, 2.0};
        RS_ASSERT_REL(rs_machine_host_s(&q, 2, 3e6, 3e6), 2 * 5e-6 + 3e-4, 1e-15);
        RS_ASSERT_REL(rs_machine_host_s(&q, 2, 3e6, 0), 2 * 5e-6 + 1.5e-4, 1e-15);
        RS_ASSERT_REL(rs_machine_host_s(&q, 2, 3e6, 1e6), 2 * 5e-6 + 2e-4, 1e-15);
    }
    const uint64_t fl = 4ull * 4096 * 4096 * 128;
    /* a step's compute with the host cost of its receives (what the walk and the simulators add) */
    RS_ASSERT_REL(rs_machine_comp_time(&m, 4096, 0, 0, fl) + rs_machine_host_s(&m, 1, 2e6, 0), (double)fl / 989e12 + 5e-6 + 2e-4,
                  1e-15);
    CU_ASSERT_EQUAL(rs_machine_comp_time(&m, 4096, 0, 0, 0), 0.0); /* no compute, no cost */
    m.cal.host_s_per_byte = -1;
    CU_ASSERT_EQUAL(rs_machine_validate(&m, 8, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "host cost per byte -1: must be finite and >= 0 s/byte");
}

static void test_machine_comp_time(void) {
    rs_machine_t m = machine_2x4();
    m.cal.launch_s = 4e-6;
    const uint64_t fl = 4ull * 4096 * 4096 * 128; /* one seed step at B = 4096, d = 128 */
    CU_ASSERT_EQUAL(rs_machine_comp_time(&m, 4096, 0, 0, 0), 0.0); /* nothing to do: no launch */
    RS_ASSERT_REL(rs_machine_comp_time(&m, 4096, 0, 0, fl), 4e-6 + (double)fl / 989e12, 1e-15);
    m.perturb.n_stragglers = 1;
    m.perturb.straggler_rank[0] = 2, m.perturb.straggler_factor[0] = 3;
    RS_ASSERT_REL(rs_machine_comp_time(&m, 4096, 2, 5, fl), 4e-6 + 3 * (double)fl / 989e12, 1e-15);
    RS_ASSERT_REL(rs_machine_comp_time(&m, 4096, 1, 5, fl), 4e-6 + (double)fl / 989e12, 1e-15);
    m.jitter = 0.1;
    m.seed = 42;
    double lo = 1, hi = 1;
    for (int64_t s = 0; s < 64; s++) {
        double u = rs_hash_unit(42, 1, (uint64_t)s);
        double t = rs_machine_comp_time(&m, 4096, 1, s, fl);
        RS_ASSERT_REL(t, 4e-6 + (double)fl / 989e12 * (1 + 0.1 * (2 * u - 1)), 1e-14);
        double f = (t - 4e-6) / ((double)fl / 989e12);
        lo = fmin(lo, f), hi = fmax(hi, f);
        CU_ASSERT_EQUAL(t, rs_machine_comp_time(&m, 4096, 1, s, fl)); /* deterministic */
    }
    CU_ASSERT(lo >= 0.9 && lo < 0.95 && hi <= 1.1 && hi > 1.05); /* the draws spread over the range */
    /* the efficiency curve slows compute: F_eff = 0.5 F at B = 4096 */
    m.jitter = 0, m.perturb.n_stragglers = 0;
    m.cal.n_eff = 1;
    m.cal.eff[0] = (rs_eff_point_t){4096, 0.5};
    RS_ASSERT_REL(rs_machine_comp_time(&m, 4096, 0, 0, fl), 4e-6 + 2 * (double)fl / 989e12, 1e-15);
}

static void test_machine_from_hw_and_validate(void) {
    rs_err_t err = {0};
    rs_machine_t m;
    rs_hw_t h = load_ok("h100-sxm");
    CU_ASSERT_EQUAL(rs_machine_from_hw(&h, RS_DTYPE_FP8, &m, &err), 0);
    RS_ASSERT_REL(m.flops_per_s, 1979e12, 0);
    CU_ASSERT_STRING_EQUAL(m.hw_name, "H100-SXM");
    CU_ASSERT_EQUAL(m.devices_per_node, 8);
    RS_ASSERT_REL(m.inter.bw_bytes_per_s, 50e9, 0);
    rs_hw_t t = load_ok("tpu-v5e");
    CU_ASSERT_EQUAL(rs_machine_from_hw(&t, RS_DTYPE_FP32, &m, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "dtype fp32: profile TPU-v5e has no fp32 rate (it has: bf16)");

    rs_machine_t base = machine_2x4(), b;
#define BAD(stmt, n, want)                                                   \
    do {                                                                     \
        b = base;                                                            \
        stmt;                                                                \
        CU_ASSERT_EQUAL(rs_machine_validate(&b, n, &err), -1);               \
        if (strcmp(err.msg, want)) fprintf(stderr, "  got '%s'\n", err.msg); \
        CU_ASSERT_STRING_EQUAL(err.msg, want);                               \
    } while (0)
    BAD((void)0, 0, "ranks 0: must be >= 1");
    BAD(b.flops_per_s = -1, 8, "flops -1: must be finite and > 0 FLOP/s");
    BAD(b.flops_per_s = NAN, 8, "flops nan: must be finite and > 0 FLOP/s");
    BAD(b.intra.bw_bytes_per_s = INFINITY, 8, "intra-node bandwidth (nvlink4): must be finite and > 0 bytes/s, got inf");
    BAD(b.inter.latency_s = -1e-6, 8, "inter-node latency (ib-ndr): must be finite and >= 0 s, got -1e-06");
    BAD(b.cal.overlap = 1.5, 8, "overlap 1.5: must be in [0, 1]");
    BAD(b.cal.comp_slowdown = 0.5, 8, "slowdown 0.5: must be finite and >= 1");
    BAD(b.cal.launch_s = -1, 8, "launch -1: must be finite and >= 0 s");
    BAD(b.jitter = 1, 8, "jitter 1: must be in [0, 1)");
    BAD((b.perturb.n_stragglers = 1, b.perturb.straggler_rank[0] = 8, b.perturb.straggler_factor[0] = 2), 8, "straggler rank 8: must be in [0, 7]");
    BAD((b.perturb.n_stragglers = 1, b.perturb.straggler_rank[0] = 3, b.perturb.straggler_factor[0] = 0.5), 8,
        "straggler factor 0.5 (rank 3): must be finite and >= 1");
    BAD((b.perturb.n_degraded = 1, b.perturb.degraded_hop[0] = -1, b.perturb.degraded_factor[0] = 2), 8,
        "degraded hop -1: must be in [0, 7] (hop p is the link p -> p+1 mod N)");
    BAD((b.perturb.n_degraded = 1, b.perturb.degraded_hop[0] = 1, b.perturb.degraded_factor[0] = 0), 8, "degrade factor 0 (hop 1): must be finite and >= 1");
    BAD((b.cal.n_eff = 2, b.cal.eff[0] = (rs_eff_point_t){4096, 0.5}, b.cal.eff[1] = (rs_eff_point_t){1024, 0.5}), 8,
        "efficiency curve point 1: block 1024 must be finite, > 0 and increasing");
    BAD(b.devices_per_node = -1, 8, "gpus-per-node -1: must be >= 0 (0 = flat ring)");
#undef BAD
}

static void test_dtypes(void) {
    const char *names[] = {"fp32", "tf32", "bf16", "fp16", "fp8"};
    const int64_t bytes[] = {4, 4, 2, 2, 1};
    for (int k = 0; k < RS_DTYPE_COUNT; k++) {
        CU_ASSERT_STRING_EQUAL(rs_dtype_name((rs_dtype_t)k), names[k]);
        CU_ASSERT_EQUAL(rs_dtype_bytes((rs_dtype_t)k), bytes[k]);
        rs_dtype_t t;
        CU_ASSERT_EQUAL(rs_dtype_parse(names[k], &t), 0);
        CU_ASSERT_EQUAL(t, (rs_dtype_t)k);
    }
    rs_dtype_t t;
    CU_ASSERT_EQUAL(rs_dtype_parse("BF16", &t), 0);
    CU_ASSERT_EQUAL(t, RS_DTYPE_BF16);
    CU_ASSERT_EQUAL(rs_dtype_parse("int8", &t), -1);
}

int main(void) {
    static const rs_test_case_t presets[] = {
        {"names", test_preset_names},
        {"load_with_sources", test_presets_load_with_sources},
        {"figures", test_preset_figures},
        {"lookup", test_preset_lookup},
        {"a spec that cannot load names the option and value", test_spec_messages_name_the_option},
        {"b_min_h100", test_b_min_h100},
        {"paper_table2", test_paper_table2},
        {NULL, NULL}};
    static const rs_test_case_t parse[] = {
        {"base_parses", test_base_parses},
        {"errors_values", test_errors_values},
        {"errors_keys_types", test_errors_keys_types},
        {"errors_syntax", test_errors_syntax},
        {"errors_files", test_errors_files},
        {"jsonpos", test_jsonpos},
        {"round_trip", test_round_trip},
        {NULL, NULL}};
    static const rs_test_case_t machine[] = {
        {"efficiency", test_efficiency},
        {"hops_2x4", test_machine_hops},
        {"comp_time", test_machine_comp_time},
        {"overlap_curve_host_cost", test_machine_overlap_curve_host},
        {"from_hw_validate", test_machine_from_hw_and_validate},
        {"dtypes", test_dtypes},
        {NULL, NULL}};
    static const rs_test_suite_t suites[] = {{"hw_presets", presets}, {"hw_parse", parse}, {"hw_machine", machine}};
    return rs_test_main(suites, 3);
}
