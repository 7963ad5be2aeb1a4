/* test_cmd_plan_infer.c - `ringsim plan --inference` as a user runs it: bad input exits 2 with one line
 * naming the option and the rule and writes nothing; the CSV's KV cache and weights by hand and the
 * pass-KV/pass-Q boundary; the two figures through the plot module. */
#include <stdlib.h>
#include <string.h>

#include "cmd_test.h"

RS_TEST(test_infer_bad, "infer_bad") {
    const char *csv = rs_test_path("bad.csv"), *gif = rs_test_path("t.gif"), *bpng = rs_test_path("b.png");
    char bcsv[700];
    snprintf(bcsv, sizeof bcsv, "--boundary-csv %s", csv);
    char fig[700], bfig[700], cbfig[800];
    snprintf(fig, sizeof fig, "--figure %s", gif);
    snprintf(bfig, sizeof bfig, "--boundary-figure %s", bpng);
    snprintf(cbfig, sizeof cbfig, "--cached 64K --boundary-figure %s", bpng);
    char want_fig[800], want_bcsv[800];
    snprintf(want_fig, sizeof want_fig, "--figure %s: expected a file name ending in .png", gif);
    snprintf(want_bcsv, sizeof want_bcsv, "--boundary-csv %s: the same file as the output --csv", csv);
    const struct {
        const char *args;
        const char *msg;
    } cases[] = {
        {"--tp 3", "--tp 3: must divide the 8 devices of a node"},
        {"--nodes 2 -S 1002", "--seq 1002: must be divisible by 2*N = 4 for the zigzag layout (N = 2 CP ranks"},
        {"--nodes 2 --cached 102", "--cached 102: must be divisible by 2*N = 4: the cache is sharded"},
        {"--decode-batch 4 --no-causal", "--decode-batch 4: decode needs the causal mask"},
        {"--nodes 2,1", "--nodes 2,1: sizes must increase"},
        {"--nodes 0", "--nodes 0: '0' is not a size in [1, 1048576]"},
        {"--linear-dtype fp16", "--linear-dtype fp16: expected bf16 or fp8"},
        {"--linear-eff 2", "--linear-eff"},
        {fig, want_fig},
        {bcsv, want_bcsv},
        {"-p no-such-gpu", "no-such-gpu"},
        {bfig, "--boundary-figure: the pass-kv/pass-q boundary needs a cached prefix"},
        {cbfig, "no (profile, nodes, P > 0) has a crossing to draw"},
        {"--gpus-per-node 0", "--gpus-per-node 0: must be in [1, 1048576]"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char args[2048];
        snprintf(args, sizeof args, "plan --inference -m llama3-8b --csv %s %s", csv, cases[k].args);
        CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
        CU_ASSERT_EQUAL(rs_cmd_lines(rs_test_err), 1);
        if (!strstr(rs_test_err, cases[k].msg)) fprintf(stderr, "\n  expected '%s' in '%s'\n", cases[k].msg, rs_test_err);
        CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, cases[k].msg));
        CU_ASSERT(rs_test_file_size(csv) < 0);
    }
    CU_ASSERT_EQUAL(rs_test_ringsim("plan --inference"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "--model is required"));
    /* the model, profile and tier files are inputs: no output replaces one */
    char tier[600], args[2048];
    snprintf(tier, sizeof tier, "%s", rs_test_path("tier.json"));
    snprintf(args, sizeof args, "cp %s/profiles/links/ib-ndr.json %s", RS_SOURCE_DIR, tier);
    CU_ASSERT_EQUAL_FATAL(system(args), 0);
    snprintf(args, sizeof args, "plan --inference -m llama3-8b --inter %s --csv %s", tier, tier);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    char want[2048];
    snprintf(want, sizeof want, "ringsim plan: --csv %s: the same file as the input --inter %s: an output never replaces an input\n",
             tier, tier);
    CU_ASSERT_STRING_EQUAL(rs_test_err, want);
    CU_ASSERT(rs_cmd_contains(tier, "\"bw_bytes_per_s\"")); /* untouched */
    /* --help lists the inference options */
    CU_ASSERT_EQUAL(rs_test_ringsim("plan --inference --help"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "--cached P,P,..."));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "--boundary-figure"));
}

/* The CSV's KV cache and weights of Llama-3-405B on one node, TP 8, T = 128K by hand:
 * 126 layers x 131072 tokens x 2 x 1 KV head x 128 x 2 bytes = 8455716864; 405.85e9 parameters x 2 / 8. */
RS_TEST(test_infer_csv, "infer_csv") {
    char csv[600], bcsv[600], args[2048];
    snprintf(csv, sizeof csv, "%s", rs_test_path("infer.csv"));
    snprintf(bcsv, sizeof bcsv, "%s", rs_test_path("infer_b.csv"));
    snprintf(args, sizeof args, "plan --inference -m llama3-405b --nodes 1,2 -S 128K --cached 0,64K --csv %s --boundary-csv %s", csv,
             bcsv);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "pass-kv wins"));
    char *buf = rs_test_slurp(csv, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "series,profile,devices_per_node,tp,nodes,cp,new_tokens,cached_tokens,context_tokens,best"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "H100-SXM:n1,H100-SXM,8,8,1,1,131072,0,131072,pass-kv,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",8455716864,"));
    CU_ASSERT_EQUAL(rs_cmd_lines(buf), 5);
    free(buf);
    /* the crossing ratio, TP 8 of 128/8 heads: Hq 16, Hkv 1 per device, d e = 256:
     * 2 x 256 / (2 x 16 x 256 + 64 - 2 x 256) */
    rs_test_expect_in_file(bcsv, (const char *[]){"series,profile,nodes,cp,cached_tokens,cross_tokens,cross_ratio,comm_bound_ratio",
                                                  "H100-SXM:n2,H100-SXM,2,2,65536,", ",0.066115702479338845\n", NULL});
}

/* The two figures through the plot module (skipped without gnuplot). */
RS_TEST(test_infer_figures, "infer_figures") {
    if (!rs_cmd_have_gnuplot()) {
        fprintf(stderr, "  (no gnuplot: figures not tested)\n");
        return;
    }
    char png[600], svg[600], args[2048];
    snprintf(png, sizeof png, "%s", rs_test_path("ttft.png"));
    snprintf(svg, sizeof svg, "%s", rs_test_path("boundary.svg"));
    setenv("RINGSIM_PLOTS_DIR", RS_SOURCE_DIR "/plots", 1);
    snprintf(args, sizeof args,
             "plan --inference -m llama3-70b --nodes 1,2 -S 8K,32K,128K --cached 16K --figure %s --boundary-figure %s", png, svg);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT(rs_cmd_starts_with(png, "\x89PNG\r\n\x1a\n", 8));
    CU_ASSERT(rs_cmd_contains(svg, "<svg"));
}

RS_TEST_MAIN(.suite = "ringsim plan --inference", .scratch = "cmd_plan_infer")
