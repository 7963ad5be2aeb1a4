/* test_schedule_infer.c - the inference variants of the schedule (schedule.c; docs/inference.md): a
 * cached prefix, pass-kv and pass-q, decode. Hand-derived bytes and FLOPs per (rank, step), the masks
 * against a brute-force count over token positions, invariants over every layout. */
#include <stdlib.h>
#include <string.h>

#include "schedule.h"
#include "test_main.h"
#include "model_fixtures.h"

static void step(const rs_problem_t *p, int64_t r, int64_t k, rs_step_t *st) {
    rs_schedule_t *s = rs_schedule_create(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_schedule_step(s, r, k, st);
    rs_schedule_free(s);
}

/* T = 4 new tokens on P = 4 cached, N = 2, contiguous, 4/2 heads, d = 16, bf16: B = Bc = 2. Rank 0
 * holds cached {0,1} and new {4,5}, rank 1 cached {2,3} and new {6,7}. FLOPs per pair 4 d Hq = 256. */
RS_TEST(test_pass_kv_cached_by_hand, "pass-kv with a cache: bytes and FLOPs per step by hand") {
    rs_problem_t p = rs_test_infer_problem(4, 4, 2, RS_LAYOUT_CONTIGUOUS, RS_RING_PASS_KV);
    rs_step_t st;
    /* K,V block: 2 x (2 + 2) tokens x 2 heads x 16 x 2 bytes = 512 */
    CU_ASSERT_EQUAL(rs_problem_kv_bytes(&p), 512);
    step(&p, 0, 0, &st); /* own: Q {4,5} x cached {0,1} full (4) + new {4,5} diagonal (3) */
    CU_ASSERT_EQUAL(st.q_owner, 0);
    CU_ASSERT_EQUAL(st.kv_owner, 0);
    CU_ASSERT_EQUAL(st.n_kv_segs, 2);
    CU_ASSERT_EQUAL(st.kv_segs[0].first, 0);
    CU_ASSERT_EQUAL(st.kv_segs[1].first, 4);
    CU_ASSERT_EQUAL(st.blocks[0].mask, RS_MASK_FULL);
    CU_ASSERT_EQUAL(st.blocks[1].mask, RS_MASK_DIAG);
    CU_ASSERT_EQUAL(st.flops_useful, 7 * 256);
    CU_ASSERT_EQUAL(st.n_send, 1);
    CU_ASSERT_EQUAL(st.send[0].kind, RS_XFER_KV);
    CU_ASSERT_EQUAL(st.send_bytes, 512);
    step(&p, 0, 1, &st); /* rank 1's block: cached {2,3} full (4), new {6,7} after the queries (0) */
    CU_ASSERT_EQUAL(st.kv_owner, 1);
    CU_ASSERT_EQUAL(st.blocks[1].mask, RS_MASK_SKIP);
    CU_ASSERT_EQUAL(st.flops_useful, 4 * 256);
    CU_ASSERT_EQUAL(st.n_send, 0); /* the last step sends nothing */
    step(&p, 1, 1, &st);           /* rank 0's block for Q {6,7}: 4 + 4 */
    CU_ASSERT_EQUAL(st.flops_useful, 8 * 256);
    CU_ASSERT_EQUAL(rs_problem_total_pairs(&p), 26); /* T P + T (T+1) / 2 = 16 + 10 */
}

RS_TEST(test_pass_q_cached_by_hand, "pass-q with a cache: bytes, FLOPs and the all-to-all by hand") {
    rs_problem_t p = rs_test_infer_problem(4, 4, 2, RS_LAYOUT_CONTIGUOUS, RS_RING_PASS_Q);
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(rs_schedule_n_steps(s), 3);
    rs_schedule_free(s);
    /* Q block: 2 tokens x 4 heads x 16 x 2 bytes = 256; partial: 2 x 4 x (16 x 2 + 4) = 288 */
    CU_ASSERT_EQUAL(rs_problem_q_bytes(&p), 256);
    CU_ASSERT_EQUAL(rs_problem_part_bytes(&p), 288);
    rs_step_t st;
    step(&p, 0, 0, &st); /* own queries on own K,V: 7 pairs */
    CU_ASSERT_EQUAL(st.q_owner, 0);
    CU_ASSERT_EQUAL(st.kv_owner, 0);
    CU_ASSERT_EQUAL(st.flops_useful, 7 * 256);
    CU_ASSERT_EQUAL(st.send[0].kind, RS_XFER_Q);
    CU_ASSERT_EQUAL(st.send_bytes, 256);
    step(&p, 0, 1, &st); /* rank 1's queries {6,7} on rank 0's K,V: cached 4 + new {4,5} full 4 */
    CU_ASSERT_EQUAL(st.q_owner, 1);
    CU_ASSERT_EQUAL(st.kv_owner, 0);
    CU_ASSERT_EQUAL(st.q_segs[0].first, 6);
    CU_ASSERT_EQUAL(st.flops_useful, 8 * 256);
    step(&p, 1, 1, &st); /* rank 0's queries {4,5} on rank 1's: cached {2,3} 4, new {6,7} none */
    CU_ASSERT_EQUAL(st.flops_useful, 4 * 256);
    step(&p, 1, 2, &st); /* the return: one partial to the one other rank */
    CU_ASSERT(!st.has_compute);
    CU_ASSERT(st.a2a);
    CU_ASSERT_EQUAL(st.n_send + st.n_recv, 0);
    CU_ASSERT_EQUAL(st.a2a_peer_bytes, 288);
    CU_ASSERT_EQUAL(st.send_bytes, 288);
    CU_ASSERT_EQUAL(st.send_peer, -1);
    /* N = 4: each rank returns 3 partials */
    rs_problem_t q = rs_test_infer_problem(8, 8, 4, RS_LAYOUT_CONTIGUOUS, RS_RING_PASS_Q);
    step(&q, 3, 4, &st);
    CU_ASSERT(st.a2a);
    CU_ASSERT_EQUAL(st.recv_bytes, 3 * rs_problem_part_bytes(&q));
}

/* Decode: 3 sequences on N = 2, P = 4 (contiguous): rank 0 owns sequences 0 and 2, rank 1 owns 1. */
RS_TEST(test_decode_by_hand, "decode: sequences per owner, bytes and FLOPs by hand") {
    rs_problem_t p = rs_test_decode_problem(4, 2, 3, RS_LAYOUT_CONTIGUOUS);
    CU_ASSERT_EQUAL(rs_problem_rank_seqs(&p, 0), 2);
    CU_ASSERT_EQUAL(rs_problem_rank_seqs(&p, 1), 1);
    /* buffers hold ceil(3/2) = 2 sequences: Q 2 x 4 x 16 x 2 = 256, partial 2 x 4 x 36 = 288 */
    CU_ASSERT_EQUAL(rs_problem_q_bytes(&p), 256);
    CU_ASSERT_EQUAL(rs_problem_part_bytes(&p), 288);
    rs_step_t st;
    step(&p, 0, 0, &st); /* its 2 queries on its 2 cached tokens and their own new token: 2 x 3 */
    CU_ASSERT_EQUAL(st.n_seqs, 2);
    CU_ASSERT_EQUAL(st.n_kv_segs, 2);
    CU_ASSERT_EQUAL(st.kv_segs[1].first, 4);
    CU_ASSERT_EQUAL(st.flops_useful, 6 * 256);
    step(&p, 1, 0, &st);
    CU_ASSERT_EQUAL(st.flops_useful, 3 * 256);
    step(&p, 0, 1, &st); /* rank 1's one query on rank 0's cache shard: 2 pairs, no new token */
    CU_ASSERT_EQUAL(st.n_seqs, 1);
    CU_ASSERT_EQUAL(st.n_kv_segs, 1);
    CU_ASSERT_EQUAL(st.flops_useful, 2 * 256);
    step(&p, 1, 1, &st);
    CU_ASSERT_EQUAL(st.flops_useful, 4 * 256);
    CU_ASSERT_EQUAL(rs_problem_total_flops(&p), 15 * 256); /* b (P + 1) pairs */
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    uint64_t u[3], x[3];
    CU_ASSERT_EQUAL(rs_schedule_flops_classes(s, u, x), -1); /* 3 sequences on 2 ranks: no classes */
    rs_schedule_free(s);
    p.batch = 4; /* 2 each: classes of b/N (Bc, Bc + 1, Bc) pairs */
    s = rs_schedule_create(&p, NULL);
    CU_ASSERT_EQUAL(rs_schedule_flops_classes(s, u, x), 0);
    CU_ASSERT_EQUAL(u[0], 2 * 2 * 256);
    CU_ASSERT_EQUAL(u[1], 2 * 3 * 256);
    CU_ASSERT_EQUAL(u[2], 2 * 2 * 256);
    rs_schedule_free(s);
}

/* Every block of every (rank, step): its pair count and mask agree with a brute-force count over the
 * token positions (query at position a sees key b iff b <= a, or always without the mask). */
static void check_masks(const rs_problem_t *p) {
    rs_schedule_t *s = rs_schedule_create(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    for (int64_t r = 0; r < p->n_ranks; r++)
        for (int64_t k = 0; k < rs_schedule_n_steps(s); k++) {
            rs_step_t st;
            rs_schedule_step(s, r, k, &st);
            for (int b = 0; b < st.n_blocks; b++) {
                const rs_block_t *bl = &st.blocks[b];
                const rs_segment_t *q = &st.q_segs[bl->q_seg], *kv = &st.kv_segs[bl->kv_seg];
                uint64_t vis = 0;
                bool agree = true;
                for (int64_t i = 0; i < q->count; i++)
                    for (int64_t j = 0; j < kv->count; j++) {
                        const bool v = !p->causal || kv->first + j * kv->stride <= q->first + i * q->stride;
                        const bool m = bl->mask == RS_MASK_FULL || (bl->mask == RS_MASK_DIAG && i - j >= bl->diag);
                        vis += v;
                        agree &= v == m;
                    }
                CU_ASSERT(agree);
                CU_ASSERT_EQUAL(bl->pairs, vis);
                CU_ASSERT(bl->exec_pairs >= bl->pairs);
                /* a cached K,V segment is wholly visible */
                if (kv->first + (kv->count - 1) * kv->stride < p->cached_tokens) CU_ASSERT_EQUAL(bl->mask, RS_MASK_FULL);
            }
        }
    rs_schedule_free(s);
}

RS_TEST(test_masks_with_cache, "masks with a cached prefix vs token positions") {
    for (int l = 0; l < RS_LAYOUT_COUNT; l++)
        for (int ring = 0; ring < RS_RING_COUNT; ring++)
            for (int c = 0; c < 2; c++)
                for (int64_t n = 1; n <= 4; n++) {
                    rs_problem_t p = rs_test_infer_problem(2 * n * 3, 2 * n * 5, n, (rs_layout_t)l, (rs_ring_t)ring);
                    p.causal = c;
                    check_masks(&p);
                }
    for (int l = 0; l < RS_LAYOUT_COUNT; l++) check_masks((rs_problem_t[]){rs_test_decode_problem(24, 3, 5, (rs_layout_t)l)});
}

/* Every (query owner, K,V owner) pair is computed once; FLOPs sum to full attention with the cache;
 * the fast path equals the reference; what r sends at step k, r+1 receives; an all-to-all only at
 * pass-q's step N. */
static void check_variant(const rs_problem_t *p) {
    rs_schedule_t *s = rs_schedule_create(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    const int64_t n = p->n_ranks, steps = rs_schedule_n_steps(s);
    char *seen = calloc((size_t)(n * n), 1);
    uint64_t total = 0, u[3], x[3];
    const int classes = rs_schedule_flops_classes(s, u, x);
    for (int64_t r = 0; r < n; r++)
        for (int64_t k = 0; k < steps; k++) {
            rs_step_t st, nx;
            uint64_t fu, fx;
            rs_schedule_step(s, r, k, &st);
            rs_schedule_step(s, (r + 1) % n, k, &nx);
            rs_schedule_flops(s, r, k, &fu, &fx);
            CU_ASSERT_EQUAL(fu, st.flops_useful);
            CU_ASSERT_EQUAL(fx, st.flops_exec);
            if (classes == 0 && k < n) {
                const int64_t o = (r - k + n) % n;
                const int cls = o < r ? 0 : o == r ? 1 : 2;
                CU_ASSERT_EQUAL(u[cls], fu);
                CU_ASSERT_EQUAL(x[cls], fx);
            }
            total += st.flops_useful;
            if (st.has_compute) {
                CU_ASSERT_EQUAL(rs_problem_passes_q(p) ? st.kv_owner : st.q_owner, r);
                seen[st.q_owner * n + st.kv_owner]++;
            }
            CU_ASSERT_EQUAL(st.n_send, nx.n_recv);
            for (int i = 0; i < st.n_send && i < nx.n_recv; i++) {
                CU_ASSERT_EQUAL(st.send[i].block_owner, nx.recv[i].block_owner);
                CU_ASSERT_EQUAL(st.send[i].bytes, nx.recv[i].bytes);
                CU_ASSERT_EQUAL(st.send[i].kind, rs_problem_passes_q(p) ? RS_XFER_Q : RS_XFER_KV);
                CU_ASSERT_EQUAL(st.send[i].bytes, rs_problem_passes_q(p) ? rs_problem_q_bytes(p) : rs_problem_kv_bytes(p));
            }
            const bool want_a2a = rs_problem_passes_q(p) && n > 1 && k == n;
            CU_ASSERT_EQUAL(st.a2a, want_a2a);
            CU_ASSERT_EQUAL(rs_schedule_step_a2a_bytes(s, k), want_a2a ? rs_problem_part_bytes(p) : 0);
            if (want_a2a) CU_ASSERT_EQUAL(st.send_bytes, (uint64_t)(n - 1) * rs_problem_part_bytes(p));
        }
    for (int64_t i = 0; i < n * n; i++) CU_ASSERT_EQUAL(seen[i], 1);
    CU_ASSERT_EQUAL(total, rs_problem_total_flops(p));
    free(seen);
    rs_schedule_free(s);
}

RS_TEST(test_variant_invariants, "variant invariants (every pair once, totals, fast path, transfers)") {
    static const int64_t ns[] = {1, 2, 3, 5, 8};
    for (unsigned ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int ring = 0; ring < RS_RING_COUNT; ring++)
                for (int c = 0; c < 2; c++) {
                    const int64_t n = ns[ni];
                    rs_problem_t p = rs_test_infer_problem(2 * n * 5, 2 * n * 7, n, (rs_layout_t)l, (rs_ring_t)ring);
                    p.causal = c;
                    p.batch = 2;
                    check_variant(&p);
                    p.cached_tokens = 0; /* pass-q without a cache: the same work as pass-kv */
                    check_variant(&p);
                }
    for (int l = 0; l < RS_LAYOUT_COUNT; l++)
        for (int64_t b = 1; b <= 9; b += 4) check_variant((rs_problem_t[]){rs_test_decode_problem(2 * 3 * 4, 3, b, (rs_layout_t)l)});
}

/* pass-q computes exactly the pass-kv work, moved between ranks: same total, the per-rank totals of
 * the balanced layouts equal. */
RS_TEST(test_pass_q_same_work_as_pass_kv, "pass-q does pass-kv's work, mirrored") {
    for (int l = 0; l < RS_LAYOUT_COUNT; l++) {
        rs_problem_t a = rs_test_infer_problem(64, 128, 4, (rs_layout_t)l, RS_RING_PASS_KV), b = a;
        b.ring = RS_RING_PASS_Q;
        CU_ASSERT_EQUAL(rs_problem_total_flops(&a), rs_problem_total_flops(&b));
        rs_schedule_t *sa = rs_schedule_create(&a, NULL), *sb = rs_schedule_create(&b, NULL);
        uint64_t ua[3], xa[3], ub[3], xb[3];
        CU_ASSERT_EQUAL(rs_schedule_flops_classes(sa, ua, xa), 0);
        CU_ASSERT_EQUAL(rs_schedule_flops_classes(sb, ub, xb), 0);
        CU_ASSERT_EQUAL(ua[0], ub[2]);
        CU_ASSERT_EQUAL(ua[1], ub[1]);
        CU_ASSERT_EQUAL(ua[2], ub[0]);
        /* each class gains B x Bc = 16 x 32 cached pairs over the training table */
        rs_problem_t t = a;
        t.cached_tokens = 0;
        rs_schedule_t *st = rs_schedule_create(&t, NULL);
        uint64_t ut[3], xt[3];
        rs_schedule_flops_classes(st, ut, xt);
        for (int i = 0; i < 3; i++) CU_ASSERT_EQUAL(ua[i] - ut[i], 16u * 32u * rs_problem_flops_per_pair(&a));
        rs_schedule_free(sa), rs_schedule_free(sb), rs_schedule_free(st);
    }
}

RS_TEST_PROGRAM("schedule inference")
