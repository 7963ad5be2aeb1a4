/* test_kernel_json.c - a profile's "kernels" section (kernel_json.c): bad input named by
 * file:line:column and key path, and a profile with curves written and read back identically. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"
#include "test_main.h"

static const char *const base_head =
    "{\n"
    "  \"name\": \"t\",\n"
    "  \"device\": {\"flops_per_s\": {\"bf16\": 1e15}, \"memory_bytes\": 8e10, \"memory_bw_bytes_per_s\": 3e12, "
    "\"devices_per_node\": 8},\n"
    "  \"tiers\": {\"intra\": {\"name\": \"l\", \"bw_bytes_per_s\": 4e11, \"latency_s\": 0}},\n"
    "  \"kernels\": {\n"
    "    \"list\": [\n"
    "      {\"name\": \"k\", \"curves\": [\n"
    "        {\"dtype\": \"bf16\", \"head_dim\": 128, \"pass\": \"forward\", \"mask\": \"%s\",\n"
    "         \"points\": %s}\n"
    "      ]}\n"
    "    ]%s\n"
    "  }\n"
    "}\n";

static void expect_parse(const char *mask, const char *points, const char *tail, const char *want) {
    char text[4096];
    snprintf(text, sizeof text, base_head, mask, points, tail);
    rs_hw_t hw;
    rs_err_t err = {0};
    int rc = rs_hw_parse(text, "t.json", &hw, &err);
    if (!want) {
        if (rc) fprintf(stderr, "  unexpected: %s\n", err.msg);
        CU_ASSERT_EQUAL(rc, 0);
        return;
    }
    CU_ASSERT_EQUAL(rc, -1);
    if (strcmp(err.msg, want)) fprintf(stderr, "  got  '%s'\n  want '%s'\n", err.msg, want);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
}

RS_TEST(test_bad_profile_input, "bad kernels input: file:line:column and key") {
    /* the mask, the points, what follows the kernel list, the message (NULL: accepted) */
    static const char *const cases[][4] = {
        {"full", "[[512, 512, 1e14], [1024, 1024, 2e14]]", "", NULL},
        {"full", "[[512, 512, 1e14]]", "", NULL}, /* one point: that rate at every shape, a note says where it was measured */
        {"full", "[]", "",
         "t.json:9:10: kernels.list[0].curves[0].points: needs 1 to 24 points [q_tokens, k_tokens, flops_per_s], got 0"},
        {"full", "[[1024, 1024, 1e14], [512, 512, 2e14]]", "",
         "t.json:9:42: kernels.list[0].curves[0].points[1][0]: points must be sorted by area q*k, then by q (strictly): "
         "512x512 after 1024x1024"},
        {"full", "[[512, 512, 1e14], [1024, 1024, 0]]", "",
         "t.json:9:52: kernels.list[0].curves[0].points[1][2]: flops_per_s must be in [1, 1e+20], got 0"},
        {"full", "[[512, 512, -1e14], [1024, 1024, 1e14]]", "",
         "t.json:9:32: kernels.list[0].curves[0].points[0][2]: flops_per_s must be in [1, 1e+20], got -1e+14"},
        {"diag", "[[512, 512, 1e14], [1024, 1024, 2e14]]", "",
         "t.json:8:63: kernels.list[0].curves[0].mask: must be full, causal or shifted"},
        {"full", "[[512, 512, 1e14], [1024, 1024, 2e14]]", ",\n    \"default_impl\": \"te\"",
         "t.json:12:5: kernels.default_impl: te runs no kernel here (add it to kernels.impl_kernels)"},
        {"full", "[[512, 512, 1e14], [1024, 1024, 2e14]]", ",\n    \"impl_kernels\": {\"te\": \"cudnn\"}",
         "t.json:12:22: kernels.impl_kernels.te: no kernel named 'cudnn' in kernels.list"},
        {"full", "[[512, 512, 1e14], [1024, 1024, 2e14]]", ",\n    \"merge_bw\": 1e12",
         "t.json:12:5: kernels.merge_bw: unknown key (accepted: list, impl_kernels, default_impl, merge_bw_bytes_per_s, "
         "source, description, note, <figure>_source)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) expect_parse(cases[i][0], cases[i][1], cases[i][2], cases[i][3]);
}

/* A profile with curves writes and reads back identically (calibrate writes one). */
RS_TEST(test_write_round_trip, "write and read back exactly") {
    rs_hw_t hw, back, again;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h200", &hw, &err), 0);
    char path[] = "/tmp/ringsim-kernel-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_TRUE_FATAL(fd >= 0);
    close(fd);
    CU_ASSERT_EQUAL_FATAL(rs_hw_write_json(&hw, path, "test note", &err), 0);
    if (rs_hw_load(path, &back, &err)) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rs_hw_load(path, &back, &err), 0);
    CU_ASSERT_STRING_EQUAL(hw.kernels.from, "h100-sxm"); /* the h200 imports the h100's curves; the file written holds them all */
    CU_ASSERT_STRING_EQUAL(back.kernels.from, "");
    memset(hw.kernels.from, 0, sizeof hw.kernels.from);
    CU_ASSERT_EQUAL(memcmp(&hw.kernels, &back.kernels, sizeof hw.kernels), 0);
    CU_ASSERT_EQUAL_FATAL(rs_hw_write_json(&back, path, "test note", &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_hw_load(path, &again, &err), 0);
    CU_ASSERT_EQUAL(memcmp(&again.kernels, &back.kernels, sizeof hw.kernels), 0);
    remove(path);
}

RS_TEST_PROGRAM("kernel json")
