/* test_exec_common.c - what the executor and its backends share (exec/exec_common.c): the names, the
 * default options, the run's estimate against hand-derived numbers, the seeded inputs against their
 * formula and the rank-local layouts they are filled in (segments, decode's sequences by owner). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "exec_fixtures.h"
#include "test_main.h"

RS_TEST(test_names, "names") {
    const char *want[RS_TENSOR_COUNT] = {"Q", "K", "V", "dO", "O", "lse", "dQ", "dK", "dV"};
    for (int t = 0; t < RS_TENSOR_COUNT; t++) CU_ASSERT_STRING_EQUAL(rs_tensor_name((rs_tensor_t)t), want[t]);
    CU_ASSERT_STRING_EQUAL(rs_tensor_name(RS_TENSOR_COUNT), "?");
    rs_progress_t pr = RS_PROGRESS_NONE;
    CU_ASSERT_EQUAL(rs_progress_parse("thread", &pr), 0);
    CU_ASSERT_EQUAL(pr, RS_PROGRESS_THREAD);
    CU_ASSERT_EQUAL(rs_progress_parse("poll", &pr), 0);
    CU_ASSERT_EQUAL(pr, RS_PROGRESS_POLL);
    CU_ASSERT_EQUAL(rs_progress_parse("often", &pr), -1);
    CU_ASSERT_EQUAL(pr, RS_PROGRESS_POLL); /* untouched */
    CU_ASSERT_STRING_EQUAL(rs_progress_name(RS_PROGRESS_NONE), "none");
}

RS_TEST(test_opts_default, "opts_default") {
    rs_exec_opts_t o;
    memset(&o, 0x5a, sizeof o);
    rs_exec_opts_default(&o);
    CU_ASSERT(o.warmup == 1 && o.reps == 3 && o.timeout_s == 60.0 && o.seed == 1 && o.input_scale == 1.0);
    CU_ASSERT(!o.check && o.check_tol == 1e-5 && o.save_io_dir == NULL);
    CU_ASSERT(o.fault_rank == -1 && o.fault_step == -1 && o.stall_rank == -1 && o.stall_step == -1);
}

/* S = 64 on N = 2 (B = 32), 2 q heads on 1, d 16, causal forward: nq = 2 x 32 x 16 = 1024 and nkv =
 * 512 elements per rank; memory 32 MB per rank plus, per rank, 3 nq + 6 nkv elements of 4 bytes;
 * 2 S^2 d Hq = 262144 FLOPs per run, 4 runs at 2e10 FLOP/s per core on min(N, cores) cores. The
 * check adds the global float64 arrays and 1e9 FLOP/s for the reference; the backward 2 more Q-like
 * and 4 more K,V-like blocks, N + 1 steps and 2.5x the FLOPs. */
RS_TEST(test_estimate, "estimate_by_hand") {
    rs_problem_t p = rs_test_exec_problem(64, 2, RS_LAYOUT_ZIGZAG, true, RS_PASS_FORWARD, 1);
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const double par = fmin(2, cores > 0 ? (double)cores : 1);
    rs_estimate_t e;
    rs_exec_estimate(&p, NULL, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 4.0);
    CU_ASSERT_EQUAL(e.mem_bytes, 64e6 + 2 * 4 * (3 * 1024 + 6 * 512));
    RS_ASSERT_REL(e.time_s, 0.5 + 262144.0 * 4 / (2e10 * par), 1e-12);
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    o.check = true, o.warmup = 0, o.reps = 2;
    rs_exec_estimate(&p, &o, &e);
    CU_ASSERT_EQUAL(e.mem_bytes, 64e6 + 2 * 4 * (3 * 1024 + 6 * 512) + 8 * 4 * (64.0 * 16 * 3) + 4 * 2 * 1024);
    RS_ASSERT_REL(e.time_s, 0.5 + 262144.0 * 2 / (2e10 * par) + 262144.0 / 1e9, 1e-12);
    p.pass = RS_PASS_BACKWARD;
    rs_exec_estimate(&p, NULL, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 6.0);
    CU_ASSERT_EQUAL(e.mem_bytes, 64e6 + 2 * 4 * (5 * 1024 + 10 * 512));
    RS_ASSERT_REL(e.time_s, 0.5 + 262144.0 * 2.5 * 4 / (2e10 * par), 1e-12);
}

/* An input element is scale (2u - 1), u = rs_hash_unit(seed, 0x5eed0000 + tensor, its index in the
 * global BHSD array over the cached and new positions). */
RS_TEST(test_input_formula, "input_formula") {
    rs_problem_t p = rs_test_exec_problem(8, 2, RS_LAYOUT_CONTIGUOUS, true, RS_PASS_FORWARD, 1);
    p.cached_tokens = 4, p.batch = 2;
    const rs_exec_input_t in = {.seed = 3, .tensor = RS_TENSOR_V, .problem = &p, .scale = 0.5};
    const uint64_t idx = ((1 * 1 + 0) * 12 + 9) * 16 + 7; /* batch 1, kv head 0, token 9 of 12, dim 7 */
    CU_ASSERT_EQUAL(rs_exec_input(&in, 1, 0, 9, 7), (float)(0.5 * (2 * rs_hash_unit(3, 0x5eed0000u + RS_TENSOR_V, idx) - 1)));
    const rs_exec_input_t qin = {.seed = 3, .tensor = RS_TENSOR_Q, .problem = &p, .scale = 2.0};
    const uint64_t qidx = ((1 * 2 + 1) * 12 + 9) * 16 + 7; /* Q has 2 heads */
    CU_ASSERT_EQUAL(rs_exec_input(&qin, 1, 1, 9, 7), (float)(2.0 * (2 * rs_hash_unit(3, 0x5eed0000u + RS_TENSOR_Q, qidx) - 1)));
    for (int64_t t = 0; t < 12; t++) {
        const float x = rs_exec_input(&in, 0, 0, t, 3);
        CU_ASSERT(x >= -0.5f && x < 0.5f);
    }
}

/* A rank-local array: rows of the segments one after the other, every (batch, head) block of them. */
RS_TEST(test_fill_local, "fill_local_layout") {
    rs_problem_t p = rs_test_exec_problem(16, 1, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_FORWARD, 1);
    p.batch = 2;
    const rs_segment_t segs[2] = {{0, 1, 2}, {10, 2, 3}}; /* tokens 0, 1, then 10, 12, 14 */
    const int64_t toks[5] = {0, 1, 10, 12, 14};
    float out[2 * 2 * 5 * 16];
    const rs_exec_input_t in = {.seed = 9, .tensor = RS_TENSOR_Q, .problem = &p, .scale = 1.0};
    rs_exec_fill_local(&in, 2, segs, out);
    int bad = 0;
    for (int64_t b = 0; b < 2; b++)
        for (int64_t h = 0; h < 2; h++)
            for (int r = 0; r < 5; r++)
                for (int64_t x = 0; x < 16; x++) bad += out[((b * 2 + h) * 5 + r) * 16 + x] != rs_exec_input(&in, b, h, toks[r], x);
    CU_ASSERT_EQUAL(bad, 0);
}

/* Decode on 2 ranks, 3 sequences: rank 1 owns sequence 1 (and would own 3): its Q-like array holds
 * sequence 1 in slot 0 and zeros in slot 1; its K,V hold every sequence's cache, and the new token's
 * row only of sequence 1. Without decode a rank's K is fill_local of its K,V segments. */
RS_TEST(test_fill_rank, "fill_rank_decode_and_not") {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 1, p.cached_tokens = 32, p.n_ranks = 2, p.batch = 3, p.q_heads = 2, p.kv_heads = 1, p.head_dim = 8;
    p.layout = RS_LAYOUT_ZIGZAG, p.ring = RS_RING_PASS_Q, p.decode = true, p.causal = true, p.act_bytes = 4;
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    if (!s) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_segment_t qs[RS_MAX_SEGMENTS], ks[RS_MAX_KV_SEGMENTS];
    const int nqs = rs_schedule_rank_segments(s, 1, qs), nks = rs_schedule_rank_kv_segments(s, 1, ks);
    int64_t qrows = 0, krows = 0;
    for (int i = 0; i < nqs; i++) qrows += qs[i].count;
    for (int i = 0; i < nks; i++) krows += ks[i].count;
    const int64_t d = 8, qseqs = rs_problem_buf_seqs(&p);
    CU_ASSERT_EQUAL_FATAL(qseqs, 2);
    CU_ASSERT_FATAL(qrows == 1 && krows > 1); /* one new token per sequence; the cache's rows and it */
    float *q = malloc(sizeof(float) * (size_t)(qseqs * 2 * qrows * d)), *k = malloc(sizeof(float) * (size_t)(3 * krows * d));
    CU_ASSERT_FATAL(q && k);
    rs_exec_fill_rank(5, RS_TENSOR_Q, s, 1, 1.0, q);
    rs_exec_fill_rank(5, RS_TENSOR_K, s, 1, 1.0, k);
    const rs_exec_input_t qin = {5, RS_TENSOR_Q, &p, 1.0}, kin = {5, RS_TENSOR_K, &p, 1.0};
    int bad = 0, zero = 0, new_rows = 0;
    for (int64_t i = 0; i < qseqs; i++)
        for (int64_t h = 0; h < 2; h++) {
            int64_t r = 0;
            for (int g = 0; g < nqs; g++)
                for (int64_t j = 0; j < qs[g].count; j++, r++)
                    for (int64_t x = 0; x < d; x++) {
                        const float got = q[((i * 2 + h) * qrows + r) * d + x];
                        const float want = i == 0 ? rs_exec_input(&qin, 1, h, qs[g].first + j * qs[g].stride, x) : 0.0f;
                        bad += got != want, zero += got == 0;
                    }
        }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(zero, (int)(2 * qrows * d)); /* slot 1 (sequence 3) only */
    for (int64_t b = 0; b < 3; b++) {
        int64_t r = 0;
        for (int g = 0; g < nks; g++)
            for (int64_t j = 0; j < ks[g].count; j++, r++) {
                const int64_t tok = ks[g].first + j * ks[g].stride;
                const bool other_new = tok >= p.cached_tokens && b % 2 != 1;
                new_rows += tok >= p.cached_tokens;
                for (int64_t x = 0; x < d; x++)
                    bad += k[(b * krows + r) * d + x] != (other_new ? 0.0f : rs_exec_input(&kin, b, 0, tok, x));
            }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(new_rows > 0); /* the layout gives rank 1 a new-token row to leave empty */
    free(q), free(k);
    rs_schedule_free(s);
    /* no decode: K is the rank's K,V segments filled */
    rs_problem_t p2 = rs_test_exec_problem(24, 3, RS_LAYOUT_STRIPED, true, RS_PASS_FORWARD, 1);
    rs_schedule_t *s2 = rs_schedule_create(&p2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s2);
    const int n2 = rs_schedule_rank_kv_segments(s2, 2, ks);
    float a[8 * 16], b2[8 * 16];
    rs_exec_fill_rank(1, RS_TENSOR_K, s2, 2, 1.0, a);
    rs_exec_fill_local(&(rs_exec_input_t){1, RS_TENSOR_K, &p2, 1.0}, n2, ks, b2);
    CU_ASSERT_EQUAL(memcmp(a, b2, sizeof a), 0);
    rs_schedule_free(s2);
}

RS_TEST_PROGRAM("exec_common")
