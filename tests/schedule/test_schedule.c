/* test_schedule.c - the ring schedule (schedule.c): diagonal pairs and executed tiles against brute
 * force and by hand, invariants over every layout, pass and mask (every block visits every rank once,
 * transfers match and dK,dV come home, useful FLOPs are full attention, the fast path equals the
 * reference), N = 65536 in O(1) memory, and the step classes without a schedule. */
#include <stdlib.h>
#include <string.h>

#include "schedule.h"
#include "test_main.h"
#include "model_fixtures.h"

RS_TEST(test_diag_pairs_bruteforce, "diagonal pairs and tiles vs brute force") {
    for (int64_t n = 0; n <= 9; n++)
        for (int64_t d = -11; d <= 11; d++) {
            uint64_t want = 0;
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++) want += (i - j >= d);
            CU_ASSERT_EQUAL(rs_diag_pairs(n, d), want);
            for (int64_t tq = 1; tq <= 4; tq++)
                for (int64_t tk = 1; tk <= 4; tk++) {
                    uint64_t exec = 0;
                    for (int64_t r0 = 0; r0 < n; r0 += tq)
                        for (int64_t c0 = 0; c0 < n; c0 += tk) {
                            int vis = 0;
                            int64_t r1 = r0 + tq < n ? r0 + tq : n, c1 = c0 + tk < n ? c0 + tk : n;
                            for (int64_t i = r0; i < r1; i++)
                                for (int64_t j = c0; j < c1; j++) vis |= (i - j >= d);
                            if (vis) exec += (uint64_t)((r1 - r0) * (c1 - c0));
                        }
                    CU_ASSERT_EQUAL(rs_diag_exec_pairs(n, d, tq, tk), exec);
                }
        }
}

RS_TEST(test_tile_hand_value, "tile counts by hand") {
    /* n = 4, 2x2 tiles, causal diagonal: tiles (0,0), (1,0), (1,1) run = 4 + 8 = 12 pairs; 10 visible */
    CU_ASSERT_EQUAL(rs_diag_pairs(4, 0), 10);
    CU_ASSERT_EQUAL(rs_diag_exec_pairs(4, 0, 2, 2), 12);
    /* 128-token tiles on a 16384-token diagonal block: 128 tiles per row, 128*129/2 tiles run */
    CU_ASSERT_EQUAL(rs_diag_exec_pairs(16384, 0, 128, 128), 128ULL * 129 / 2 * 128 * 128);
}

typedef void (*check_fn)(const rs_problem_t *p, rs_schedule_t *s);

static void for_all(check_fn fn) {
    static const int64_t ns[] = {1, 2, 3, 4, 7, 8};
    for (unsigned ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int c = 0; c < 2; c++)
                for (int ps = 0; ps < RS_PASS_COUNT; ps++) {
                    int64_t n = ns[ni];
                    int64_t s = 2 * n * 5; /* B = 10, zigzag chunks of 5 (not multiples of the tile) */
                    rs_problem_t p = rs_test_small_problem(s, n, (rs_layout_t)l, c, (rs_pass_t)ps);
                    rs_schedule_t *sch = rs_schedule_create(&p, NULL);
                    CU_ASSERT_PTR_NOT_NULL_FATAL(sch);
                    fn(&p, sch);
                    rs_schedule_free(sch);
                }
}

static void check_visits(const rs_problem_t *p, rs_schedule_t *s) {
    const int64_t n = p->n_ranks;
    char *seen = calloc((size_t)n, 1);
    for (int64_t r = 0; r < n; r++) {
        memset(seen, 0, (size_t)n);
        int computes = 0;
        for (int64_t k = 0; k < rs_schedule_n_steps(s); k++) {
            rs_step_t st;
            rs_schedule_step(s, r, k, &st);
            if (!st.has_compute) continue;
            computes++;
            CU_ASSERT(st.kv_owner >= 0 && st.kv_owner < n);
            seen[st.kv_owner]++;
        }
        CU_ASSERT_EQUAL(computes, n);
        for (int64_t o = 0; o < n; o++) CU_ASSERT_EQUAL(seen[o], 1); /* every block once per pass */
    }
    free(seen);
}

static void check_transfers(const rs_problem_t *p, rs_schedule_t *s) {
    const int64_t n = p->n_ranks, steps = rs_schedule_n_steps(s);
    for (int64_t r = 0; r < n; r++)
        for (int64_t k = 0; k < steps; k++) {
            rs_step_t st, nx, later;
            rs_schedule_step(s, r, k, &st);
            rs_schedule_step(s, (r + 1) % n, k, &nx);
            /* what r sends at step k is what r+1 receives at step k */
            CU_ASSERT_EQUAL(st.n_send, nx.n_recv);
            for (int i = 0; i < st.n_send && i < nx.n_recv; i++) {
                CU_ASSERT_EQUAL(st.send[i].kind, nx.recv[i].kind);
                CU_ASSERT_EQUAL(st.send[i].block_owner, nx.recv[i].block_owner);
                CU_ASSERT_EQUAL(st.send[i].bytes, nx.recv[i].bytes);
            }
            if (n > 1 && st.n_send) {
                CU_ASSERT_EQUAL(st.send_peer, (r + 1) % n);
                CU_ASSERT_EQUAL(st.recv_peer, (r + n - 1) % n);
            }
            for (int i = 0; i < st.n_send; i++) {
                if (st.send[i].kind == RS_XFER_KV) {
                    /* the K,V sent is the one computed now; the one received is computed next step */
                    CU_ASSERT_EQUAL(st.send[i].block_owner, st.kv_owner);
                    rs_schedule_step(s, r, k + 1, &later);
                    CU_ASSERT_EQUAL(st.recv[i].block_owner, later.kv_owner);
                    CU_ASSERT_EQUAL(st.send[i].bytes, rs_problem_kv_bytes(p));
                } else {
                    CU_ASSERT_EQUAL(p->pass, RS_PASS_BACKWARD);
                    CU_ASSERT_EQUAL(st.send[i].bytes, rs_problem_dkv_bytes(p));
                    /* dK,dV received at step k belong to the block this rank computes at step k, or
                     * (tail step) to this rank itself: they come home */
                    int64_t want = k < n ? st.kv_owner : r;
                    CU_ASSERT_EQUAL(st.recv[i].block_owner, want);
                }
            }
            if (n == 1) CU_ASSERT_EQUAL(st.n_send + st.n_recv, 0);
            /* forward: the last step sends nothing */
            if (p->pass == RS_PASS_FORWARD && k == n - 1) CU_ASSERT_EQUAL(st.n_send, 0);
            /* backward tail: dK,dV only */
            if (p->pass == RS_PASS_BACKWARD && k == n && n > 1) {
                CU_ASSERT_EQUAL(st.n_send, 1);
                CU_ASSERT_EQUAL(st.send[0].kind, RS_XFER_DKV);
                CU_ASSERT(!st.has_compute);
            }
        }
}

static void check_flops(const rs_problem_t *p, rs_schedule_t *s) {
    const int64_t n = p->n_ranks;
    uint64_t total = 0, total_fast = 0, first_rank = 0;
    bool balanced = true;
    for (int64_t r = 0; r < n; r++) {
        uint64_t rank_total = 0;
        for (int64_t k = 0; k < rs_schedule_n_steps(s); k++) {
            rs_step_t st;
            uint64_t fu, fx;
            rs_schedule_step(s, r, k, &st);
            rs_schedule_flops(s, r, k, &fu, &fx);
            CU_ASSERT_EQUAL(fu, st.flops_useful); /* fast path == reference */
            CU_ASSERT_EQUAL(fx, st.flops_exec);
            CU_ASSERT(st.flops_exec >= st.flops_useful);
            total += st.flops_useful;
            total_fast += fu;
            rank_total += st.flops_useful;
        }
        if (r == 0) first_rank = rank_total;
        else if (rank_total != first_rank) balanced = false;
    }
    CU_ASSERT_EQUAL(total, rs_problem_total_flops(p)); /* exactly the full-attention total */
    CU_ASSERT_EQUAL(total_fast, total);
    if (!p->causal || p->layout == RS_LAYOUT_ZIGZAG) CU_ASSERT(balanced);
    if (p->causal && p->layout == RS_LAYOUT_CONTIGUOUS && n > 1) CU_ASSERT(!balanced);
}

/* Striped balances work up to the diagonal: rank r meets r+1 blocks with diag 0 (B(B+1)/2 pairs)
 * and N-1-r with diag 1 (B(B-1)/2 pairs), so rank N-1 does exactly (N-1)*B pairs more than rank 0,
 * a relative spread of about 2/B (docs/model.md, "Causal work per step"). */
static void check_striped_spread(const rs_problem_t *p, rs_schedule_t *s) {
    if (p->layout != RS_LAYOUT_STRIPED || !p->causal) return;
    const int64_t n = p->n_ranks, b = rs_problem_block(p);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int64_t r = 0; r < n; r++) {
        uint64_t t = 0;
        for (int64_t k = 0; k < n; k++) {
            uint64_t fu, fx;
            rs_schedule_flops(s, r, k, &fu, &fx);
            t += fu;
        }
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
    }
    /* rank r: (r+1) blocks with diag 0 and N-1-r with diag 1; a diag-0 block has B more pairs */
    CU_ASSERT_EQUAL(hi - lo, (uint64_t)(n - 1) * (uint64_t)b * rs_problem_flops_per_pair(p));
}

RS_TEST(test_every_block_visits_every_rank_once, "every KV block visits every rank once") { for_all(check_visits); }

RS_TEST(test_transfers_match_and_dkv_come_home, "transfers match; dK,dV come home") { for_all(check_transfers); }

RS_TEST(test_flops_sum_to_full_attention_and_balance, "useful FLOPs = full attention; balance; fast == reference") {
    for_all(check_flops);
}

RS_TEST(test_striped_spread, "striped spread is one diagonal per rank") { for_all(check_striped_spread); }

RS_TEST(test_zigzag_striped_equal_work_large, "zigzag equal, contiguous unequal (N=64)") {
    /* Llama-3-8B-like, N = 64: zigzag exactly balanced; contiguous rank N-1 does ~2x the mean */
    for (int l = 0; l < RS_LAYOUT_COUNT; l++) {
        rs_problem_t p = rs_test_small_problem(64 * 1024, 64, (rs_layout_t)l, true, RS_PASS_FORWARD);
        rs_schedule_t *s = rs_schedule_create(&p, NULL);
        uint64_t first = 0, last = 0;
        for (int64_t k = 0; k < 64; k++) {
            uint64_t fu, fx;
            rs_schedule_flops(s, 0, k, &fu, &fx);
            first += fu;
            rs_schedule_flops(s, 63, k, &fu, &fx);
            last += fu;
        }
        if (l == RS_LAYOUT_ZIGZAG) CU_ASSERT_EQUAL(first, last);
        if (l == RS_LAYOUT_CONTIGUOUS) {
            uint64_t b = 1024, fpp = rs_problem_flops_per_pair(&p);
            CU_ASSERT_EQUAL(first, b * (b + 1) / 2 * fpp);              /* rank 0: its own diagonal only */
            CU_ASSERT_EQUAL(last, (63 * b * b + b * (b + 1) / 2) * fpp); /* rank 63: everything before it */
        }
        rs_schedule_free(s);
    }
}

RS_TEST(test_identical_input_identical_schedule, "identical input, identical schedule") {
    rs_problem_t p = rs_test_small_problem(4096, 16, RS_LAYOUT_ZIGZAG, true, RS_PASS_BACKWARD);
    rs_schedule_t *a = rs_schedule_create(&p, NULL), *b = rs_schedule_create(&p, NULL);
    for (int64_t r = 0; r < 16; r++)
        for (int64_t k = 0; k < rs_schedule_n_steps(a); k++) {
            rs_step_t x, y;
            rs_schedule_step(a, r, k, &x);
            rs_schedule_step(b, r, k, &y);
            CU_ASSERT_EQUAL(memcmp(&x, &y, sizeof x), 0);
        }
    rs_schedule_free(a);
    rs_schedule_free(b);
}

RS_TEST(test_huge_ring_is_o1, "N = 65536 without N^2 memory") {
    /* N = 65,536: creation is O(1); spot-check steps and per-rank totals of zigzag (= total / N) */
    rs_problem_t p = rs_test_small_problem(65536LL * 2 * 64, 65536, RS_LAYOUT_ZIGZAG, true, RS_PASS_FORWARD);
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    uint64_t want = rs_problem_total_flops(&p) / 65536;
    const int64_t ranks[] = {0, 1, 32767, 65535};
    for (int i = 0; i < 4; i++) {
        uint64_t t = 0;
        for (int64_t k = 0; k < 65536; k++) {
            uint64_t fu, fx;
            rs_schedule_flops(s, ranks[i], k, &fu, &fx);
            t += fu;
        }
        CU_ASSERT_EQUAL(t, want);
    }
    rs_step_t st;
    rs_schedule_step(s, 65535, 65535, &st);
    CU_ASSERT_EQUAL(st.kv_owner, 0);
    CU_ASSERT_EQUAL(st.n_send, 0);
    rs_schedule_free(s);
}

/* The closed form's schedule-free classes equal the schedule's, every layout, mask, N and tile. */
RS_TEST(test_problem_classes, "schedule-free step classes == the schedule's") {
    const int64_t ns[] = {1, 2, 5, 8}, tiles[] = {1, 64, 128};
    for (unsigned i = 0; i < 4; i++)
        for (unsigned t = 0; t < 3; t++)
            for (int l = 0; l < RS_LAYOUT_COUNT; l++)
                for (int causal = 0; causal < 2; causal++) {
                    rs_problem_t p = rs_test_kernel_problem(ns[i], 1000, (rs_layout_t)l, RS_PASS_BACKWARD, causal);
                    p.tile_q = tiles[t], p.tile_k = tiles[t] ? tiles[t] / 2 + 1 : 1;
                    rs_schedule_t *s = rs_schedule_create(&p, NULL);
                    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
                    uint64_t u1[3], x1[3], u2[3], x2[3];
                    rs_schedule_flops_classes(s, u1, x1);
                    for (unsigned want = 1; want < 8; want++) {
                        rs_problem_flops_classes(&p, want, u2, x2);
                        for (int c = 0; c < 3; c++) {
                            CU_ASSERT_EQUAL(u2[c], want >> c & 1u ? u1[c] : 0);
                            CU_ASSERT_EQUAL(x2[c], want >> c & 1u ? x1[c] : 0);
                        }
                    }
                    rs_schedule_free(s);
                }
}

/* A class's block kinds without a schedule are the masks of the schedule's step at its representative
 * (rank, step). Every layout, mask, pass, N, B and tile (B = 1, 2: a diagonal block of one token is
 * full, a shifted one skipped). */
RS_TEST(test_problem_class_kinds, "a class's block kinds without a schedule == the schedule's step") {
    const int64_t ns[] = {1, 2, 5, 8}, tiles[] = {1, 64, 128}, bs[] = {2, 1000, 1};
    int bad = 0, seen = 0;
    for (unsigned i = 0; i < 4; i++)
        for (unsigned t = 0; t < 3; t++)
            for (int l = 0; l < RS_LAYOUT_COUNT; l++)
                for (int pass = 0; pass < 2; pass++)
                    for (int causal = 0; causal < 2; causal++) {
                        if (bs[t] == 1 && l == RS_LAYOUT_ZIGZAG) continue; /* zigzag needs B even */
                        rs_problem_t p = rs_test_kernel_problem(ns[i], bs[t], (rs_layout_t)l, (rs_pass_t)pass, causal);
                        p.tile_q = tiles[t], p.tile_k = tiles[t] / 2 + 1;
                        rs_schedule_t *s = rs_schedule_create(&p, NULL);
                        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
                        const int64_t n = ns[i], rep[3][2] = {{n - 1, 1}, {0, 0}, {0, 1}};
                        for (int c = 0; c < 3; c++) {
                            unsigned char kinds[RS_MAX_BLOCKS];
                            const int segs = rs_problem_class_kinds(&p, c, kinds);
                            if (n < 2 && c != 1) {
                                bad += segs != 0;
                                continue;
                            }
                            rs_step_t w;
                            rs_schedule_step(s, rep[c][0], rep[c][1], &w);
                            bad += segs != w.n_q_segs || segs != w.n_kv_segs || segs * segs != w.n_blocks;
                            for (int q = 0; q < w.n_q_segs; q++) bad += w.q_segs[q].count * segs != bs[t] || w.kv_segs[q].count * segs != bs[t];
                            for (int b = 0; b < w.n_blocks && b < segs * segs; b++) {
                                const rs_block_t *wb = &w.blocks[b];
                                const int want = wb->mask == RS_MASK_FULL   ? RS_KIND_FULL
                                                 : wb->mask == RS_MASK_SKIP ? RS_KIND_SKIP
                                                 : wb->diag == 0            ? RS_KIND_DIAG0
                                                 : wb->diag == 1            ? RS_KIND_DIAG1
                                                                            : -1;
                                bad += kinds[b] != want || wb->q_seg != b / segs || wb->kv_seg != b % segs;
                                seen += wb->mask == RS_MASK_DIAG;
                            }
                        }
                        rs_schedule_free(s);
                    }
    CU_ASSERT_EQUAL(bad, 0);
    if (seen <= 50) fprintf(stderr, "  %d diagonal blocks\n", seen);
    CU_ASSERT(seen > 50);
}

RS_TEST_PROGRAM("schedule")
