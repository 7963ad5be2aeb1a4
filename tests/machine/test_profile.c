/* test_profile.c - reading hardware profiles and tiers (profile.c): a profile exercising every
 * section, and every validation error with its exact file:line:column, key path and code. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"
#include "test_main.h"

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

RS_TEST(test_base_parses, "base_parses") {
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

RS_TEST(test_errors_values, "errors_values") {
    /* BASE with `from` replaced by `to` must fail with exactly `want` */
    static const struct {
        const char *from, *to, *want;
    } cases[] = {
        {"\"bf16\": 100e12", "\"bf16\": -1", "t.json:5:7: device.flops_per_s.bf16: must be in [1, 1e+20], got -1"},
        {"\"bf16\": 100e12", "\"bf16\": 0", "t.json:5:7: device.flops_per_s.bf16: must be in [1, 1e+20], got 0"},
        /* 1e-300 would pass a check "> 0" and print "inf s"; the range is --flops' */
        {"\"bf16\": 100e12", "\"bf16\": 1e-300", "t.json:5:7: device.flops_per_s.bf16: must be in [1, 1e+20], got 1e-300"},
        {"\"bf16\": 100e12", "\"bf16\": 1e21", "t.json:5:7: device.flops_per_s.bf16: must be in [1, 1e+20], got 1e+21"},
        {"\"memory_bytes\": 80e9", "\"memory_bytes\": -8", "t.json:8:5: device.memory_bytes: must be in [1, 1e+18], got -8"},
        {"\"devices_per_node\": 4", "\"devices_per_node\": 0", "t.json:10:5: device.devices_per_node: must be in [1, 1e+06], got 0"},
        {"\"bw_bytes_per_s\": 100e9", "\"bw_bytes_per_s\": -100e9", "t.json:13:34: tiers.intra.bw_bytes_per_s: must be in [1, 1e+16], got -1e+11"},
        {"\"latency_s\": 1e-6", "\"latency_s\": -1e-6", "t.json:13:59: tiers.intra.latency_s: must be in [0, 10], got -1e-06"},
        {"\"overlap\": 0.9", "\"overlap\": 1.5", "t.json:19:5: calibration.overlap: must be in [0, 1], got 1.5"},
        {"\"overlap\": 0.9", "\"overlap\": -0.1", "t.json:19:5: calibration.overlap: must be in [0, 1], got -0.1"},
        {"\"comp_slowdown\": 1.1", "\"comp_slowdown\": 0.9", "t.json:20:5: calibration.comp_slowdown: must be in [1, 1e+06], got 0.9"},
        {"\"launch_s\": 5e-6", "\"launch_s\": -5e-6", "t.json:18:5: calibration.launch_s: must be in [0, 10], got -5e-06"},
        /* efficiency points: value positions inside the array */
        {"[4096, 0.8]", "[4096, 1.6]", "t.json:17:40: calibration.efficiency[1][1]: efficiency must be in (0, 1], got 1.6"},
        {"[4096, 0.8]", "[4096, 1.4]", "t.json:17:40: calibration.efficiency[1][1]: efficiency must be in (0, 1], got 1.4"},
        {"[1024, 0.5]", "[1024, 0]", "t.json:17:27: calibration.efficiency[0][1]: efficiency must be in (0, 1], got 0"},
        {"[4096, 0.8]", "[512, 0.8]", "t.json:17:34: calibration.efficiency[1][0]: block_tokens must increase strictly, got 512 after 1024"},
        {"[1024, 0.5]", "[-1, 0.5]", "t.json:17:21: calibration.efficiency[0][0]: block_tokens must be > 0, got -1"},
        {"[[1024, 0.5], [4096, 0.8]]", "[]", "t.json:17:5: calibration.efficiency: must hold 1 to 64 [block_tokens, efficiency] pairs, got 0"},
        {"[4096, 0.8]", "[4096]", "t.json:17:33: calibration.efficiency[1]: must be a pair [block_tokens, efficiency], got an array"},
        /* overlap curve and host cost */
        {"\"overlap\": 0.9", "\"overlap\": 0.9, \"overlap_curve\": [[65536, 0.2]]", "t.json:19:21: calibration.overlap_curve: give either 'overlap' (one eta) or 'overlap_curve', not both"},
        {"\"overlap\": 0.9", "\"overlap_curve\": [[65536, 0.2], [1048576, 1.2]]", "t.json:19:47: calibration.overlap_curve[1][1]: eta must be in [0, 1], got 1.2"},
        {"\"overlap\": 0.9", "\"overlap_curve\": [[65536, 0.2], [65536, 0.5]]", "t.json:19:38: calibration.overlap_curve[1][0]: bytes must increase strictly, got 65536 after 65536"},
        {"\"overlap\": 0.9", "\"poll_curve\": [[65536, 2.5]]", "t.json:19:5: calibration.poll_curve: the poll model needs poll_curve, poll_chunk_cols, poll_panel_rows_forward and poll_panel_rows_backward together"},
        {"\"overlap\": 0.9", "\"poll_curve_fresh\": [[65536, 2]]", "t.json:19:5: calibration.poll_curve_fresh: needs calibration.poll_curve (the curve of the reused transfers)"},
        {"\"overlap\": 0.9", "\"poll_curve\": [[65536, 2]], \"poll_curve_fresh\": [[65536, -1]], \"poll_chunk_cols\": 256, \"poll_panel_rows_forward\": 512, \"poll_panel_rows_backward\": 256", "t.json:19:62: calibration.poll_curve_fresh[0][1]: polls must be in (0, 1e+06], got -1"},
        {"\"overlap\": 0.9", "\"poll_curve\": [[65536, 0]], \"poll_chunk_cols\": 256, \"poll_panel_rows_forward\": 512, \"poll_panel_rows_backward\": 256", "t.json:19:28: calibration.poll_curve[0][1]: polls must be in (0, 1e+06], got 0"},
        {"\"overlap\": 0.9", "\"poll_curve\": [[65536, 2]], \"poll_chunk_cols\": 25.5, \"poll_panel_rows_forward\": 512, \"poll_panel_rows_backward\": 256", "t.json:19:33: calibration.poll_chunk_cols: must be an integer in [1, 1e+06], got 25.5"},
        {"\"overlap\": 0.9", "\"xfer_curve\": [[16384, 0.8], [1048576, 0]]", "t.json:19:44: calibration.xfer_curve[1][1]: g must be in (0, 1e+06], got 0"},
        {"\"overlap\": 0.9", "\"xfer_curve\": [[16384, 0.8]], \"xfer_curve_reused\": [[16384, 1.5], [8192, 2]]", "t.json:19:72: calibration.xfer_curve_reused[1][0]: bytes must increase strictly, got 8192 after 16384"},
        {"\"overlap\": 0.9", "\"xfer_curve_reused\": [[16384, 1.5]]", "t.json:19:5: calibration.xfer_curve_reused: needs calibration.xfer_curve (the curve of the other transfers)"},
        {"\"overlap\": 0.9", "\"host_call_s\": -1e-6", "t.json:19:5: calibration.host_call_s: must be in [0, 10], got -1e-06"},
        {"\"overlap\": 0.9", "\"host_s_per_byte\": -1e-10", "t.json:19:5: calibration.host_s_per_byte: must be in [0, 0.001], got -1e-10"},
        {"\"bf16\": 100e12,", "", "t.json:4:5: device.flops_per_s: needs at least one rate (keys: fp32, tf32, bf16, fp16, fp8)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) expect_error(subst(cases[i].from, cases[i].to), cases[i].want);
}

RS_TEST(test_errors_keys_types, "errors_keys_types") {
    expect_error(subst("\"name\": \"T\",", "\"name\": \"T\", \"colour\": 1,"),
                 "t.json:2:16: colour: unknown key (accepted: name, description, device, tiers, calibration, kernels, source)");
    expect_error(subst("\"bf16\": 100e12", "\"bf61\": 100e12"),
                 "t.json:5:7: device.flops_per_s.bf61: unknown key (accepted: fp32, tf32, bf16, fp16, fp8, source, <figure>_source)");
    expect_error(subst("\"overlap\": 0.9", "\"overlap_s\": 0.9"),
                 "t.json:19:5: calibration.overlap_s: unknown key (accepted: efficiency, launch_s, overlap, overlap_curve, "
                 "comp_slowdown, host_s_per_xfer, host_s_per_byte, host_call_s, note, poll_curve, poll_curve_fresh, poll_chunk_cols, poll_panel_rows_forward, poll_panel_rows_backward, xfer_curve, xfer_curve_reused, source, <figure>_source)");
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

RS_TEST(test_errors_syntax, "errors_syntax") {
    /* jansson's own position (the end of the offending token) and text */
    expect_error(subst("\"memory_bytes\": 80e9,", "\"memory_bytes\": 80e9"), "t.json:9:27: '}' expected");
    expect_error(subst("100e12", "1e999"), "t.json:5:19: real number overflow near '1e999'");
    expect_error(subst("\"source\": \"test\"", "\"bf16\": 2"), "t.json:6:12: duplicate object key near '\"bf16\"'");
    expect_error(subst("100e12", "NaN"), "t.json:5:17: invalid token near 'NaN'");
    expect_error("", "t.json:1:0: '[' or '{' expected near end of file");
}

RS_TEST(test_errors_files, "errors_files") {
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

/* A file read under one name and reported by another (a profile written under a temporary name):
 * its messages name the display name, file:line:column as rs_hw_load's; a valid one reads as
 * rs_hw_load reads it; a name that would be a preset's is still a file; a missing file names the path
 * read. */
RS_TEST(test_load_as, "rs_hw_load_as: the messages name the display name") {
    const char *path = RS_BINARY_DIR "/tests/test_hw_load_as.tmp";
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(subst("100e12", "-1"), fp);
    fclose(fp);
    rs_hw_t hw, ref;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_hw_load_as(path, "out/fit.json", &hw, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "out/fit.json:5:7: device.flops_per_s.bf16: must be in [1, 1e+20], got -1");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    fp = fopen(path, "w");
    fputs(BASE, fp);
    fclose(fp);
    CU_ASSERT_EQUAL(rs_hw_load_as(path, "h100-sxm", &hw, &err), 0); /* the file, not the preset of that name */
    CU_ASSERT_EQUAL_FATAL(rs_hw_parse(BASE, "t.json", &ref, &err), 0);
    CU_ASSERT_STRING_EQUAL(hw.name, "T");
    CU_ASSERT_EQUAL(hw.flops_per_s[RS_DTYPE_BF16], ref.flops_per_s[RS_DTYPE_BF16]);
    CU_ASSERT_EQUAL(hw.intra.bw_bytes_per_s, ref.intra.bw_bytes_per_s);
    remove(path);
    CU_ASSERT_EQUAL(rs_hw_load_as(path, "out/fit.json", &hw, &err), -1);
    char want[1024];
    snprintf(want, sizeof want, "%s: cannot read: No such file or directory", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
}

RS_TEST_PROGRAM("profile")
