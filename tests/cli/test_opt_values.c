/* test_opt_values.c - the option values with a syntax of their own (cli/opt_values.c): increasing
 * size lists, INDEX:FACTOR pairs, layout lists, --runtime and --loss-chunk (memory's and plan's one
 * parser), what they store and the exact message of each refusal. */
#include <stdio.h>
#include <string.h>

#include "opt_values.h"
#include "test_main.h"

static const rs_cli_sizes_t blocks = {"--blocks", 2, 1 << 16, 2, 4};
static const rs_cli_sizes_t nodes = {"--nodes", 1, 1 << 20, 1, 8};

static void expect_sizes_refused(const rs_cli_sizes_t *l, const char *arg, const char *msg) {
    int64_t out[8];
    int n = -7;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_cli_parse_sizes(l, arg, out, &n, &err), -1);
    if (strcmp(err.msg, msg)) fprintf(stderr, "\n  '%s': '%s', want '%s'\n", arg, err.msg, msg);
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    CU_ASSERT_EQUAL(n, -7); /* the count is set on success only */
}

RS_TEST(test_sizes, "size lists: values and refusals") {
    int64_t out[8];
    int n = 0;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_cli_parse_sizes(&blocks, "16,32,1K", out, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(out[0], 16);
    CU_ASSERT_EQUAL(out[1], 32);
    CU_ASSERT_EQUAL(out[2], 1024);
    CU_ASSERT_EQUAL_FATAL(rs_cli_parse_sizes(&nodes, "4", out, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(out[0], 4);
    expect_sizes_refused(&blocks, "16", "--blocks 16: give at least 2 sizes");
    expect_sizes_refused(&blocks, "32,16", "--blocks 32,16: sizes must increase");
    expect_sizes_refused(&blocks, "16,16", "--blocks 16,16: sizes must increase");
    expect_sizes_refused(&blocks, "16,x", "--blocks 16,x: 'x' is not a size in [2, 65536] (K/M/G suffixes)");
    expect_sizes_refused(&blocks, "1,2", "--blocks 1,2: '1' is not a size in [2, 65536] (K/M/G suffixes)");
    expect_sizes_refused(&blocks, "128K,256K", "--blocks 128K,256K: '128K' is not a size in [2, 65536] (K/M/G suffixes)");
    expect_sizes_refused(&blocks, "2,3,4,5,6", "--blocks 2,3,4,5,6: at most 4 sizes");
    expect_sizes_refused(&blocks, "", "--blocks : give at least 2 sizes");
    expect_sizes_refused(&nodes, "", "--nodes : empty list");
    expect_sizes_refused(&nodes, ",,", "--nodes ,,: empty list");
}

static void expect_pair_refused(rs_cli_pairs_t *l, const char *arg, const char *msg) {
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_cli_parse_pair(l, arg, &err), -1);
    if (strcmp(err.msg, msg)) fprintf(stderr, "\n  '%s': '%s', want '%s'\n", arg, err.msg, msg);
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
}

RS_TEST(test_pairs, "INDEX:FACTOR pairs: values and refusals") {
    int64_t idx[4] = {0};
    double fac[4] = {0};
    rs_cli_pairs_t l = {"--straggler", "rank", idx, fac, 0};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_cli_parse_pair(&l, "3:1.5", &err), 0);
    CU_ASSERT_EQUAL(idx[0], 3);
    RS_ASSERT_REL(fac[0], 1.5, 1e-15);
    l.n = 1;
    CU_ASSERT_EQUAL_FATAL(rs_cli_parse_pair(&l, "0:2k", &err), 0); /* the factor takes SI suffixes */
    CU_ASSERT_EQUAL(idx[1], 0);
    RS_ASSERT_REL(fac[1], 2000, 1e-15);
    l.n = 2;
    expect_pair_refused(&l, "3:2", "--straggler 3:2: rank 3 already has factor 1.5 (given once per rank; factors do not multiply)");
    expect_pair_refused(&l, "3", "--straggler 3: expected RANK:FACTOR, one colon, e.g. 3:1.5");
    expect_pair_refused(&l, ":2", "--straggler :2: expected RANK:FACTOR, one colon, e.g. 3:1.5");
    expect_pair_refused(&l, "1:2:3", "--straggler 1:2:3: expected RANK:FACTOR, one colon, e.g. 3:1.5");
    expect_pair_refused(&l, "1:0.5", "--straggler 1:0.5: the factor must be a number in [1, 1e+06], got '0.5'");
    l = (rs_cli_pairs_t){"--degrade", "hop", idx, fac, 0};
    expect_pair_refused(&l, "x:2", "--degrade x:2: the hop must be an integer >= 0, got 'x'");
    expect_pair_refused(&l, "-1:2", "--degrade -1:2: the hop must be an integer >= 0, got '-1'");
    expect_pair_refused(&l, "2", "--degrade 2: expected HOP:FACTOR, one colon, e.g. 3:1.5");
    expect_pair_refused(&l, "2:nan", "--degrade 2:nan: the factor must be a number in [1, 1e+06], got 'nan'");
}

/* One layout, a list in the order given, all in the enum's order; every malformed list refused with
 * the same words (model, sim and plan share them). */
RS_TEST(test_layouts, "layout lists: values and refusals") {
    rs_layout_t l[RS_LAYOUT_COUNT];
    int n = -1;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_cli_parse_layouts("zigzag", l, &n, &err), 0);
    CU_ASSERT(n == 1 && l[0] == RS_LAYOUT_ZIGZAG);
    CU_ASSERT_EQUAL(rs_cli_parse_layouts("striped,contiguous", l, &n, &err), 0);
    CU_ASSERT(n == 2 && l[0] == RS_LAYOUT_STRIPED && l[1] == RS_LAYOUT_CONTIGUOUS);
    CU_ASSERT_EQUAL(rs_cli_parse_layouts("all", l, &n, &err), 0);
    CU_ASSERT_EQUAL(n, RS_LAYOUT_COUNT);
    for (int i = 0; i < n; i++) CU_ASSERT_EQUAL(l[i], (rs_layout_t)i);
    static const char *const bad[] = {"", ",", "zigzag,", ",zigzag", "zigzag,,striped", "diagonal", "all,zigzag"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char want[200];
        snprintf(want, sizeof want, "--layout %s: expected contiguous, striped, zigzag, a comma list of them, or all", bad[i]);
        CU_ASSERT_EQUAL(rs_cli_parse_layouts(bad[i], l, &n, &err), -1);
        CU_ASSERT_STRING_EQUAL(err.msg, want);
    }
    CU_ASSERT_EQUAL(rs_cli_parse_layouts("zigzag,striped,zigzag", l, &n, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--layout zigzag,striped,zigzag: zigzag is given twice (each layout once)");
}

RS_TEST(test_runtime_loss_chunk, "--runtime and --loss-chunk: values and refusals") {
    rs_runtime_t r = RS_RT_PYTORCH;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_cli_parse_runtime("jax-gpu", &r, &err), 0);
    CU_ASSERT_EQUAL(r, RS_RT_JAX_GPU);
    CU_ASSERT_EQUAL(rs_cli_parse_runtime("none", &r, &err), 0);
    CU_ASSERT_EQUAL(r, RS_RT_NONE);
    CU_ASSERT_EQUAL(rs_cli_parse_runtime("tf", &r, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--runtime tf: expected pytorch, jax-gpu, jax-tpu or none");
    int64_t t = -1;
    CU_ASSERT_EQUAL(rs_cli_parse_loss_chunk("4K", &t, &err), 0);
    CU_ASSERT_EQUAL(t, 4096);
    CU_ASSERT_EQUAL(rs_cli_parse_loss_chunk("none", &t, &err), 0);
    CU_ASSERT_EQUAL(t, 0);
    CU_ASSERT_EQUAL(rs_cli_parse_loss_chunk("0", &t, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--loss-chunk 0: must be in [1, 1073741824]"));
}

RS_TEST_PROGRAM("option values")
