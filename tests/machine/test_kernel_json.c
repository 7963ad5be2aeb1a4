/* test_kernel_json.c - a profile's "kernels" section (kernel_json.c): bad input named by
 * file:line:column and key path, and a profile with curves written and read back identically. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel_table.h"
#include "profile.h"
#include "schedule.h"
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

/* hw written to a file and read back has the same kernel table, byte for byte. */
static bool writes_back_identically(const rs_hw_t *hw) {
    static rs_hw_t back;
    rs_err_t err = {0};
    char path[] = "/tmp/ringsim-kernel-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return false;
    close(fd);
    const bool same = rs_hw_write_json(hw, path, "test note", &err) == 0 && rs_hw_load(path, &back, &err) == 0 &&
                      memcmp(&hw->kernels, &back.kernels, sizeof hw->kernels) == 0;
    if (err.msg[0]) fprintf(stderr, "  %s\n", err.msg);
    remove(path);
    return same;
}

/* "backward_from": a forward-only kernel's backward at its forward rates times another preset's backward /
 * forward ratio of the same kernel, shape by shape (the H100 SXM's cuDNN at head_dim 128, full mask:
 * FlashAttention-3 paper Figures 5 and 6, 574 forward and 408 backward TFLOP/s at 1K, 600 and 518 at 8K). */
static const char *const bf_profile =
    "{\n"
    "  \"name\": \"t\",\n"
    "  \"device\": {\"flops_per_s\": {\"bf16\": 1e15}, \"memory_bytes\": 8e10, \"memory_bw_bytes_per_s\": 3e12, "
    "\"devices_per_node\": 8},\n"
    "  \"tiers\": {\"intra\": {\"name\": \"l\", \"bw_bytes_per_s\": 4e11, \"latency_s\": 0}},\n"
    "  \"kernels\": {\"list\": [{\"name\": \"%s\", \"source\": \"k\", %s\"curves\": [\n"
    "    {\"dtype\": \"bf16\", \"head_dim\": 128, \"pass\": \"forward\", \"mask\": \"full\", "
    "\"points\": [[1024, 1024, 8e14], [8192, 8192, 9e14]], \"source\": \"s\"}%s]}]}\n"
    "}\n";

static int bf_parse(const char *kernel, const char *keys, const char *more, rs_hw_t *hw, rs_err_t *err) {
    char text[4096];
    snprintf(text, sizeof text, bf_profile, kernel, keys, more);
    memset(err, 0, sizeof *err);
    return rs_hw_parse(text, "t.json", hw, err);
}

RS_TEST(test_backward_from, "backward_from: forward rates x a preset's backward/forward ratio, refused where it cannot hold") {
    static const char *const ok = "\"backward_from\": \"h100-sxm\", \"backward_from_source\": \"why\", ";
    rs_hw_t hw;
    rs_err_t err;
    CU_ASSERT_EQUAL_FATAL(bf_parse("cudnn", ok, "", &hw, &err), 0);
    const rs_kernel_table_t *t = &hw.kernels;
    CU_ASSERT_EQUAL_FATAL(t->n_curves, 2);
    const rs_kcurve_t *b = &t->curve[1];
    CU_ASSERT_TRUE(b->derived);
    CU_ASSERT_EQUAL(b->pass, RS_PASS_BACKWARD);
    CU_ASSERT_EQUAL(b->head_dim, 128);
    CU_ASSERT_EQUAL(b->n, 2);
    CU_ASSERT_DOUBLE_EQUAL(b->pt[0].flops_per_s / (8e14 * 408.0 / 574.0), 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(b->pt[1].flops_per_s / (9e14 * 518.0 / 600.0), 1.0, 1e-9);
    rs_kresolve_t r;
    CU_ASSERT_EQUAL_FATAL(rs_kernel_resolve(t, 0, RS_DTYPE_BF16, 128, &r, &err), 0);
    CU_ASSERT_EQUAL(r.idx[RS_PASS_BACKWARD][RS_KMASK_FULL], 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.notes, "its backward rates are its forward rates times h100-sxm's cudnn backward / forward ratio"));

    /* written and read back: the key again, not the derived curves, and the same table */
    CU_ASSERT_TRUE(writes_back_identically(&hw));

    /* refused: no source; not a preset; a kernel the preset lacks; a kernel with a backward of its own */
    CU_ASSERT_EQUAL(bf_parse("cudnn", "\"backward_from\": \"h100-sxm\", ", "", &hw, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "kernels.list[0].backward_from: needs \"backward_from_source\""));
    CU_ASSERT_EQUAL(bf_parse("cudnn", "\"backward_from\": \"h900\", \"backward_from_source\": \"why\", ", "", &hw, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "backward_from: 'h900' is not a device preset"));
    CU_ASSERT_EQUAL(bf_parse("mine", ok, "", &hw, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "preset h100-sxm has no kernel named 'mine'"));
    CU_ASSERT_EQUAL(bf_parse("cudnn", ok,
                             ",\n    {\"dtype\": \"bf16\", \"head_dim\": 128, \"pass\": \"backward\", \"mask\": \"full\", "
                             "\"points\": [[1024, 1024, 5e14]]}",
                             &hw, &err),
                    -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "kernel cudnn has backward curves of its own: derive none"));
}

/* The shipped B200 and GB200 (imported from it) rate cuDNN's backward so, and write back identically; a
 * kernel's head_dim without a backward takes the kernel's own ratio at another head_dim. */
RS_TEST(test_backward_from_presets, "b200/gb200 cudnn backward derived once, written back identically") {
    rs_hw_t b2, gb;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("b200", &b2, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("gb200", &gb, &err), 0);
    const int kb = rs_kernel_find(&b2.kernels, "cudnn"), kg = rs_kernel_find(&gb.kernels, "cudnn");
    CU_ASSERT_TRUE_FATAL(kb >= 0 && kg >= 0);
    int nb[2] = {0}, ng[2] = {0}; /* across passes, across masks */
    for (int i = 0; i < b2.kernels.n_curves; i++)
        if (b2.kernels.curve[i].kernel == kb && b2.kernels.curve[i].derived) nb[b2.kernels.curve[i].mask_of > 0]++;
    for (int i = 0; i < gb.kernels.n_curves; i++)
        if (gb.kernels.curve[i].kernel == kg && gb.kernels.curve[i].derived) ng[gb.kernels.curve[i].mask_of > 0]++;
    CU_ASSERT_EQUAL(nb[0], 3); /* one per forward curve: d64 full and causal, d128 full */
    CU_ASSERT_EQUAL(ng[0], 3);
    CU_ASSERT_EQUAL(nb[1], 2); /* d128 causal, forward and backward, from the d64 causal / full ratio */
    CU_ASSERT_EQUAL(ng[1], 2);
    /* the B200's flash-attn-2 has a backward at head_dim 64 only: its head_dim 128 backward is the head_dim
     * 128 forward times its own head_dim 64 backward / forward ratio (issue 1589's 8K figures 329.09 / 343.07;
     * the two passes' waves at 8K are within 1% of full) */
    const int kf = rs_kernel_find(&b2.kernels, "flash-attn-2");
    CU_ASSERT_TRUE_FATAL(kf >= 0);
    const rs_kcurve_t *d128 = NULL;
    for (int i = 0; i < b2.kernels.n_curves; i++) {
        const rs_kcurve_t *c = &b2.kernels.curve[i];
        if (c->kernel == kf && c->derived && c->head_dim == 128 && c->pass == RS_PASS_BACKWARD) d128 = c;
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(d128);
    CU_ASSERT_EQUAL(d128->ratio_head_dim, 64);
    CU_ASSERT_EQUAL(d128->pt[4].q_tokens, 8192);
    CU_ASSERT_DOUBLE_EQUAL(d128->pt[4].flops_per_s / (361.591e12 * 329.09 / 343.07), 1.0, 0.02);
    CU_ASSERT_TRUE(writes_back_identically(&b2));
}

/* Full <-> causal from the other mask: a head_dim with one mask takes the other mask's ratio of the other
 * pass at that head_dim, else of the nearest head_dim with both (by hand: 6e14 x 2/4 at 1K, 7e14 x 4.5/5 at
 * 8K); a ratio that would make a causal call faster than a full one is held at 1. */
RS_TEST(test_mask_from_other_mask, "a missing causal curve: the present full one times another head_dim's causal/full ratio") {
    static const char *const fmt =
        "{\n"
        "  \"name\": \"t\",\n"
        "  \"device\": {\"flops_per_s\": {\"bf16\": 1e15}, \"memory_bytes\": 8e10, \"memory_bw_bytes_per_s\": 3e12, "
        "\"devices_per_node\": 8},\n"
        "  \"tiers\": {\"intra\": {\"name\": \"l\", \"bw_bytes_per_s\": 4e11, \"latency_s\": 0}},\n"
        "  \"kernels\": {\"list\": [{\"name\": \"k\", \"source\": \"k\", \"curves\": [\n"
        "    {\"dtype\": \"bf16\", \"head_dim\": 64, \"pass\": \"forward\", \"mask\": \"full\", "
        "\"points\": [[1024, 1024, 4e14], [8192, 8192, 5e14]], \"source\": \"s\"},\n"
        "    {\"dtype\": \"bf16\", \"head_dim\": 64, \"pass\": \"forward\", \"mask\": \"causal\", "
        "\"points\": [[1024, 1024, 2e14], [8192, 8192, %s]], \"source\": \"s\"},\n"
        "    {\"dtype\": \"bf16\", \"head_dim\": 128, \"pass\": \"forward\", \"mask\": \"full\", "
        "\"points\": [[1024, 1024, 6e14], [8192, 8192, 7e14]], \"source\": \"s\"}]}]}\n"
        "}\n";
    const char *const causal8k[] = {"4.5e14", "6e14"};
    const double want8k[] = {7e14 * 4.5 / 5.0, 7e14};
    for (int v = 0; v < 2; v++) {
        char text[4096];
        snprintf(text, sizeof text, fmt, causal8k[v]);
        rs_hw_t hw;
        rs_err_t err = {0};
        CU_ASSERT_EQUAL_FATAL(rs_hw_parse(text, "t.json", &hw, &err), 0);
        const rs_kernel_table_t *t = &hw.kernels;
        CU_ASSERT_EQUAL_FATAL(t->n_curves, 4);
        const rs_kcurve_t *c = &t->curve[3];
        CU_ASSERT_TRUE(c->derived);
        CU_ASSERT_EQUAL(c->head_dim, 128);
        CU_ASSERT_EQUAL(c->mask, RS_KMASK_CAUSAL);
        CU_ASSERT_EQUAL(c->ratio_head_dim, 64);
        CU_ASSERT_DOUBLE_EQUAL(c->pt[0].flops_per_s / (6e14 * 2.0 / 4.0), 1.0, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(c->pt[1].flops_per_s / want8k[v], 1.0, 1e-12);
        rs_kresolve_t r;
        CU_ASSERT_EQUAL_FATAL(rs_kernel_resolve(t, 0, RS_DTYPE_BF16, 128, &r, &err), 0);
        CU_ASSERT_EQUAL(r.idx[RS_PASS_FORWARD][RS_KMASK_CAUSAL], 3);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.notes, "kernel k has no forward causal curve for head_dim 128: its full curve times its head_dim 64 "
                                               "causal / full ratio at each shape"));
    }
}

RS_TEST_PROGRAM("kernel json")
