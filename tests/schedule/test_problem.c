/* test_problem.c - the problem of a ring (problem.c): the seed's memory figures, and every bad
 * problem named with its option and the accepted range - training rings and the inference variants
 * (a cache, pass-q, decode) - and the note of pass-q without a cache. */
#include <stdlib.h>
#include <string.h>

#include "schedule.h"
#include "test_main.h"
#include "model_fixtures.h"

RS_TEST(test_seed_memory_figures, "seed memory figures (49.15 GB, 2 TB)") {
    rs_problem_t p = rs_test_small_problem(1000000, 1, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_FORWARD);
    p.q_heads = p.kv_heads = 1;
    p.head_dim = 8192; /* the seed's "hidden dimension d = 8192" as one head */
    CU_ASSERT_EQUAL(rs_problem_validate(&p, NULL), 0);
    /* 3 * 10^6 * 8192 * 2 bytes = 49.152 GB */
    CU_ASSERT_EQUAL(rs_problem_qkv_bytes(&p), 49152000000ULL);
    /* 10^12 elements * 2 bytes = 2 TB */
    CU_ASSERT_EQUAL(rs_problem_scores_bytes(&p), 2000000000000ULL);
}

static void expect_invalid(rs_problem_t p, const char *needle) {
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_problem_validate(&p, &err), -1);
    if (!strstr(err.msg, needle)) fprintf(stderr, "  message '%s' lacks '%s'\n", err.msg, needle);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, needle));
    CU_ASSERT_PTR_NULL(rs_schedule_create(&p, NULL));
}

RS_TEST(test_validation_messages, "bad problems are named") {
    rs_problem_t p = rs_test_small_problem(1024, 8, RS_LAYOUT_ZIGZAG, true, RS_PASS_FORWARD);
    rs_problem_t q = p;
    q.n_ranks = 0;
    expect_invalid(q, "--ranks 0: must be in [1,");
    q = p;
    q.seq_tokens = 1000;
    expect_invalid(q, "--seq 1000: must be divisible by 2*N = 16 for the zigzag layout");
    q = p;
    q.layout = RS_LAYOUT_CONTIGUOUS;
    q.seq_tokens = 1001;
    expect_invalid(q, "must be divisible by N = 8");
    q = p;
    q.q_heads = 6;
    q.kv_heads = 4;
    expect_invalid(q, "--heads 6: must be a multiple of --kv-heads 4");
    q = p;
    q.head_dim = -1;
    expect_invalid(q, "--head-dim -1");
    q = p;
    q.seq_tokens = 1LL << 31;
    q.batch = 1 << 20;
    q.q_heads = 1 << 10;
    expect_invalid(q, "overflows 64 bits");
}

RS_TEST(test_validation, "bad variants are named") {
    rs_problem_t p = rs_test_infer_problem(1024, 1000, 8, RS_LAYOUT_ZIGZAG, RS_RING_PASS_Q);
    expect_invalid(p, "--cached 1000: must be divisible by 2*N = 16: the cache is sharded by the zigzag layout");
    p.cached_tokens = 1004, p.layout = RS_LAYOUT_STRIPED;
    expect_invalid(p, "--cached 1004: must be divisible by N = 8");
    p = rs_test_infer_problem(1000, 1024, 8, RS_LAYOUT_ZIGZAG, RS_RING_PASS_Q);
    expect_invalid(p, "--seq 1000: must be divisible by 2*N = 16");
    p = rs_test_infer_problem(1024, 1024, 8, RS_LAYOUT_ZIGZAG, RS_RING_PASS_KV);
    p.pass = RS_PASS_BACKWARD;
    expect_invalid(p, "--cached 1024: a KV cache is an inference input");
    p.cached_tokens = 0, p.ring = RS_RING_PASS_Q;
    expect_invalid(p, "--ring pass-q: only inference passes");
    rs_problem_t d = rs_test_decode_problem(1024, 8, 4, RS_LAYOUT_ZIGZAG);
    d.causal = false;
    expect_invalid(d, "--pass decode: needs the causal mask");
    d = rs_test_decode_problem(1024, 8, 4, RS_LAYOUT_ZIGZAG);
    d.ring = RS_RING_PASS_KV;
    expect_invalid(d, "--pass decode: runs as --ring pass-q");
    d = rs_test_decode_problem(1024, 8, 4, RS_LAYOUT_ZIGZAG);
    d.seq_tokens = 4;
    expect_invalid(d, "--seq 4: a decode step adds one token per sequence");
    d = rs_test_decode_problem(1004, 8, 4, RS_LAYOUT_CONTIGUOUS);
    expect_invalid(d, "--cached 1004: must be divisible by N = 8");
    d = rs_test_decode_problem(1024, 8, 4, RS_LAYOUT_ZIGZAG);
    CU_ASSERT_EQUAL(rs_problem_validate(&d, NULL), 0);
    d.pass = RS_PASS_BACKWARD;
    expect_invalid(d, "--pass decode: a decode step is a forward pass");
}

/* pass-q without a cache is valid; the note names the pass-kv equivalent and both byte counts. */
RS_TEST(test_pass_q_without_cache_note, "pass-q without a cache says its pass-kv equivalent") {
    char buf[512];
    rs_problem_t p = rs_test_infer_problem(1024, 0, 8, RS_LAYOUT_ZIGZAG, RS_RING_PASS_Q);
    CU_ASSERT_EQUAL(rs_problem_validate(&p, NULL), 0);
    rs_problem_note(&p, buf, sizeof buf);
    /* Q: 128 x 4 x 16 x 2 = 16384; K,V: 2 x 128 x 2 x 16 x 2 = 16384; all-to-all 7 x 128 x 4 x 36 = 129024 */
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "--ring pass-kv, which is its equivalent"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "Q block (16384 bytes) instead of K,V (16384 bytes)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "all-to-all of 129024 bytes"));
    p.cached_tokens = 1024;
    CU_ASSERT_STRING_EQUAL(rs_problem_note(&p, buf, sizeof buf), "");
    p = rs_test_infer_problem(1024, 0, 8, RS_LAYOUT_ZIGZAG, RS_RING_PASS_KV);
    CU_ASSERT_STRING_EQUAL(rs_problem_note(&p, buf, sizeof buf), "");
}

RS_TEST_PROGRAM("problem")
