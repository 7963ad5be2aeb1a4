/* test_cmd_profiles.c - `ringsim profiles`: the listing, printing a preset, checking files, bad input
 * (the built binary, run through harness.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "test_main.h"
#include "harness.h"

/* Run `ringsim profiles ARGS...` (the built binary); stdout and stderr in malloc'd strings. */
static int run(char **out, char **errs, int argc, const char **args) {
    char line[4096] = "profiles";
    for (int k = 0; k < argc; k++) snprintf(line + strlen(line), sizeof line - strlen(line), " %s", args[k]);
    int rc = rs_test_ringsim(line);
    *out = strdup(rs_test_out);
    *errs = strdup(rs_test_err);
    return rc;
}

RS_TEST(test_list, "list") {
    char *o, *e;
    CU_ASSERT_EQUAL(run(&o, &e, 0, NULL), 0);
    /* h100-sxm: 989 TFLOP/s, nvlink4 450 GB/s, F/W 2197.8, over IB NDR 19780 */
    CU_ASSERT_PTR_NOT_NULL(strstr(o, "  h100-sxm        989.0      8 nvlink4           450.0 ib-ndr                 50.0    2197.8   19780.0\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o, "  mi300x         1307.4      8 xgmi               64.0 "));
    /* ib-xdr: 100 GB/s nominal x 0.94 (NDR's p2p ratio) = 94 GB/s, 22.4 us (NCCL's model of a network step) */
    CU_ASSERT_PTR_NOT_NULL(strstr(o, "  ib-xdr              100.0 0.94 (0.73-0.96)        94.0      22.40\n"));
    CU_ASSERT_STRING_EQUAL(e, "");
    free(o);
    free(e);
}

RS_TEST(test_print_and_check, "print_and_check") {
    char *o, *e;
    const char *a1[] = {"H100-SXM"};
    CU_ASSERT_EQUAL(run(&o, &e, 1, a1), 0);
    CU_ASSERT_STRING_EQUAL(o, rs_preset_text("h100-sxm"));
    free(o), free(e);
    const char *a2[] = {"ib-ndr"};
    CU_ASSERT_EQUAL(run(&o, &e, 1, a2), 0);
    CU_ASSERT_STRING_EQUAL(o, rs_preset_text("ib-ndr"));
    free(o), free(e);
    const char *a3[] = {RS_SOURCE_DIR "/profiles/devices/mi300x.json"};
    CU_ASSERT_EQUAL(run(&o, &e, 1, a3), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(o, "mi300x.json: ok: MI300X, bf16 1.3074e+15 FLOP/s, G = 8, intra xgmi 6.4e+10 bytes/s"));
    free(o), free(e);
    const char *a4[] = {"--tier", RS_SOURCE_DIR "/profiles/links/xgmi.json"};
    CU_ASSERT_EQUAL(run(&o, &e, 2, a4), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(o, "xgmi.json: ok: tier xgmi, 6.4e+10 bytes/s per direction, latency 3e-06 s"));
    free(o), free(e);
}

RS_TEST(test_bad_input, "bad_input") {
    char *o, *e;
    const char *path = RS_BINARY_DIR "/tests/test_hw_cli_bad.json";
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("{\n  \"name\": \"x\",\n  \"device\": {\"flops_per_s\": {\"bf16\": -1}}\n}\n", fp);
    fclose(fp);
    const char *a1[] = {path};
    CU_ASSERT_EQUAL(run(&o, &e, 1, a1), RS_EXIT_USAGE);
    char want[1024];
    snprintf(want, sizeof want, "ringsim profiles: %s:3:30: device.flops_per_s.bf16: must be in [1, 1e+20], got -1\n", path);
    CU_ASSERT_STRING_EQUAL(e, want);
    CU_ASSERT_STRING_EQUAL(o, "");
    free(o), free(e);
    remove(path);
    const char *a2[] = {"h100"};
    CU_ASSERT_EQUAL(run(&o, &e, 1, a2), RS_EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "ringsim profiles: unknown preset 'h100' (devices: a100-sxm "));
    free(o), free(e);
    const char *a3[] = {"h100-sxm", "h200"};
    CU_ASSERT_EQUAL(run(&o, &e, 2, a3), RS_EXIT_USAGE);
    CU_ASSERT_STRING_EQUAL(e, "ringsim profiles: one NAME or FILE at most, got 2 arguments\n");
    free(o), free(e);
    const char *a4[] = {"--bogus"};
    CU_ASSERT_EQUAL(run(&o, &e, 1, a4), RS_EXIT_USAGE);
    CU_ASSERT_STRING_EQUAL(e, "ringsim profiles: unknown option '--bogus' (see ringsim profiles --help)\n");
    free(o), free(e);
    const char *a5[] = {"--help"};
    CU_ASSERT_EQUAL(run(&o, &e, 1, a5), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(o, "--tier"));
    free(o), free(e);
}

RS_TEST_MAIN(.suite = "hw_cli_profiles", .scratch = "hw_cli")
