/* test_gpu_host.c - the host half of the GPU backend (exec/gpu/gpu_host.c, tile.h), on any machine (no
 * GPU needed):
 *  - tile classification against hand-derived cases; shapes and step descriptors, and their refusals;
 *  - the kernels' tile walk (rs_gpu_desc_exec_pairs with the kernel tile) against the schedule's
 *    executed pairs, for every layout, causal or not, every rank and step: the GPU executes exactly
 *    the tiles the schedule counts;
 *  - 16-bit conversions: hand-derived encodings and exhaustive round trips;
 *  - the float64 per-step reference driven by the schedule's descriptors, folded over a whole ring,
 *    against the executor's independent float64 full attention (rs_exec_reference): O, lse, dQ,
 *    dK, dV for every layout, causal and not, with GQA. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "exec_check.h"
#include "gpu_host.h"
#include "schedule.h"
#include "test_main.h"

/* ---------------------------------------------------------------------------------------------------
 * Tiles, shapes, descriptors
 * ------------------------------------------------------------------------------------------------- */
RS_TEST_SUITE("gpu_tiles")
RS_TEST(test_tile_class, "tile_class") {
    /* diag 0 (i >= j): the diagonal tile is partial, below it full, above it skipped */
    CU_ASSERT_EQUAL(rs_gpu_tile_class(RS_GPU_MASK_DIAG, 0, 0, 4, 0, 4), RS_GPU_TILE_PARTIAL);
    CU_ASSERT_EQUAL(rs_gpu_tile_class(RS_GPU_MASK_DIAG, 0, 4, 8, 0, 4), RS_GPU_TILE_FULL);
    CU_ASSERT_EQUAL(rs_gpu_tile_class(RS_GPU_MASK_DIAG, 0, 0, 4, 4, 8), RS_GPU_TILE_SKIP);
    /* a 1-row tile on the diagonal: i = j = 0 visible under diag 0 -> not skipped; j in [0,1) full */
    CU_ASSERT_EQUAL(rs_gpu_tile_class(RS_GPU_MASK_DIAG, 0, 0, 1, 0, 1), RS_GPU_TILE_FULL);
    /* diag 1 (i > j, striped with the KV rank after the Q rank) */
    CU_ASSERT_EQUAL(rs_gpu_tile_class(RS_GPU_MASK_DIAG, 1, 0, 1, 0, 1), RS_GPU_TILE_SKIP);
    CU_ASSERT_EQUAL(rs_gpu_tile_class(RS_GPU_MASK_DIAG, 1, 0, 4, 0, 4), RS_GPU_TILE_PARTIAL);
    CU_ASSERT_EQUAL(rs_gpu_tile_class(RS_GPU_MASK_DIAG, 1, 4, 8, 0, 4), RS_GPU_TILE_FULL);
    CU_ASSERT_EQUAL(rs_gpu_tile_class(RS_GPU_MASK_DIAG, 1, 3, 8, 0, 3), RS_GPU_TILE_FULL);
    CU_ASSERT_EQUAL(rs_gpu_tile_class(RS_GPU_MASK_DIAG, 1, 2, 8, 0, 3), RS_GPU_TILE_PARTIAL);
    CU_ASSERT_EQUAL(rs_gpu_tile_class(RS_GPU_MASK_FULL, 5, 0, 4, 100, 104), RS_GPU_TILE_FULL);
    CU_ASSERT_EQUAL(rs_gpu_tile_class(RS_GPU_MASK_SKIP, 0, 0, 4, 0, 4), RS_GPU_TILE_SKIP);
    CU_ASSERT(rs_gpu_pair_visible(RS_GPU_MASK_DIAG, 1, 3, 2));
    CU_ASSERT(!rs_gpu_pair_visible(RS_GPU_MASK_DIAG, 1, 2, 2));
    /* a single 10 x 10 causal block in 4 x 4 tiles: rows [0,4) see 2 tiles... counted by hand:
     * tile rows 0:(0,0) ; 1:(1,0),(1,1) ; 2:(2,0),(2,1),(2,2) -> 6 tiles; areas 16+16+16+8+8+4 = 68 */
    rs_gpu_step_desc_t d;
    rs_gpu_desc_single(10, 10, RS_GPU_MASK_DIAG, 0, &d);
    CU_ASSERT_EQUAL(rs_gpu_desc_exec_tiles(&d, 4, 4), 6);
    CU_ASSERT_EQUAL(rs_gpu_desc_exec_pairs(&d, 4, 4), 68);
    CU_ASSERT_EQUAL(rs_gpu_desc_pairs(&d), 55);
    CU_ASSERT_EQUAL(rs_gpu_desc_exec_pairs(&d, 4, 4), rs_diag_exec_pairs(10, 0, 4, 4));
}

/* Each field out of range is refused naming it and its range. */
RS_TEST(test_shape_validate, "shape_validate") {
    const rs_gpu_shape_t ok = {RS_GPU_BF16, 2, 8, 2, 64, 128, 256, 0.125f};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_gpu_shape_validate(&ok, &err), 0);
    CU_ASSERT_EQUAL(rs_gpu_shape_q_elems(&ok), 2u * 8 * 128 * 64);
    CU_ASSERT_EQUAL(rs_gpu_shape_kv_elems(&ok), 2u * 2 * 256 * 64);
    CU_ASSERT_EQUAL(rs_gpu_shape_row_elems(&ok), 2u * 8 * 128);
    rs_gpu_shape_t sh = ok;
    sh.kv_heads = 3;
    CU_ASSERT_EQUAL(rs_gpu_shape_validate(&sh, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "kv_heads 3: must be >= 1 and divide q_heads = 8");
    sh = ok, sh.head_dim = 12;
    CU_ASSERT_EQUAL(rs_gpu_shape_validate(&sh, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "head_dim 12: must be a multiple of 8 in [8, 256]");
    sh = ok, sh.scale = 0;
    CU_ASSERT_EQUAL(rs_gpu_shape_validate(&sh, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "scale 0: must be finite and > 0");
    sh = ok, sh.batch = 1 << 12, sh.q_rows = 1 << 13; /* 4096 x 8 x 8192 x 64 = 2^34 elements */
    CU_ASSERT_EQUAL(rs_gpu_shape_validate(&sh, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "batch x heads x rows x head_dim = 17179869184 elements: must be < 2^31 per tensor");
    rs_gpu_dtype_t t = RS_GPU_BF16;
    CU_ASSERT(rs_gpu_dtype_parse("fp16", &t) == 0 && t == RS_GPU_FP16);
    CU_ASSERT(rs_gpu_dtype_parse("fp8", &t) == -1 && t == RS_GPU_FP16);
    CU_ASSERT_STRING_EQUAL(rs_gpu_dtype_name(RS_GPU_BF16), "bf16");
    CU_ASSERT_STRING_EQUAL(rs_gpu_dtype_name(RS_GPU_FP16), "fp16");
}

/* A step's descriptor: its segments as row ranges one after the other, its blocks' masks (diag kept
 * only for DIAG); refused: a step with too many KV segments, a block naming a segment it has not. */
RS_TEST(test_desc_from_step, "desc_from_step") {
    rs_step_t st;
    memset(&st, 0, sizeof st);
    st.rank = 1, st.step = 2, st.has_compute = true, st.pass = RS_PASS_FORWARD;
    st.n_q_segs = 2, st.q_segs[0] = (rs_segment_t){0, 1, 5}, st.q_segs[1] = (rs_segment_t){20, 1, 7};
    st.n_kv_segs = 1, st.kv_segs[0] = (rs_segment_t){8, 1, 12};
    st.n_blocks = 2, st.blocks[0] = (rs_block_t){.q_seg = 0, .kv_seg = 0, .mask = RS_MASK_FULL, .diag = 3};
    st.blocks[1] = (rs_block_t){.q_seg = 1, .kv_seg = 0, .mask = RS_MASK_DIAG, .diag = -2};
    rs_gpu_step_desc_t d;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_gpu_desc_from_step(&st, &d, &err), 0);
    CU_ASSERT(d.n_q == 2 && d.q[0].off == 0 && d.q[0].len == 5 && d.q[1].off == 5 && d.q[1].len == 7);
    CU_ASSERT(d.n_kv == 1 && d.kv[0].off == 0 && d.kv[0].len == 12 && d.n_blocks == 2);
    CU_ASSERT(d.blocks[0].mask == RS_GPU_MASK_FULL && d.blocks[0].diag == 0);
    CU_ASSERT(d.blocks[1].mask == RS_GPU_MASK_DIAG && d.blocks[1].diag == -2 && d.blocks[1].q_seg == 1);
    st.blocks[1].kv_seg = 1;
    CU_ASSERT_EQUAL(rs_gpu_desc_from_step(&st, &d, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "rank 1 step 2: block 1 names segments (1, 1) out of range");
    st.blocks[1].kv_seg = 0, st.pass = RS_PASS_BACKWARD, st.n_kv_segs = 3;
    CU_ASSERT_EQUAL(rs_gpu_desc_from_step(&st, &d, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "rank 1 step 2: 3 KV segments, 2 blocks (1..4, <= 8 expected)");
    st.n_kv_segs = 1, st.q_segs[1].count = INT32_MAX;
    CU_ASSERT_EQUAL(rs_gpu_desc_from_step(&st, &d, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "rank 1: 2147483652 Q rows do not fit the 32-bit row index of the GPU kernels");
    st.q_segs[1].count = 7, st.has_compute = false; /* no compute: segments only */
    CU_ASSERT_EQUAL(rs_gpu_desc_from_step(&st, &d, &err), 0);
    CU_ASSERT(d.n_q == 2 && d.n_kv == 0 && d.n_blocks == 0);
}

/* S tokens on N ranks of a pass, in tiles of tile[0] x tile[1] (layout and mask: the caller's). */
static rs_problem_t tiled(int64_t S, int64_t N, rs_pass_t pass, const int64_t tile[2]) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = S, p.n_ranks = N, p.pass = pass, p.tile_q = tile[0], p.tile_k = tile[1];
    return p;
}

/* For every rank and step: pairs and executed pairs of the descriptor == the schedule's. */
static void check_schedule_tiles(const rs_problem_t *pp) {
    const rs_problem_t p = *pp;
    const int64_t S = p.seq_tokens, N = p.n_ranks, tq = p.tile_q, tk = p.tile_k;
    const bool causal = p.causal;
    const rs_layout_t lay = p.layout;
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    int bad = 0;
    for (int64_t r = 0; r < N; r++)
        for (int64_t k = 0; k < rs_schedule_n_steps(s); k++) {
            rs_step_t st;
            rs_gpu_step_desc_t d;
            rs_schedule_step(s, r, k, &st);
            CU_ASSERT_EQUAL_FATAL(rs_gpu_desc_from_step(&st, &d, &err), 0);
            uint64_t pairs = 0, exec = 0;
            for (int b = 0; b < st.n_blocks && st.has_compute; b++) {
                pairs += st.blocks[b].pairs;
                exec += st.blocks[b].exec_pairs;
            }
            uint64_t got_p = rs_gpu_desc_pairs(&d), got_e = rs_gpu_desc_exec_pairs(&d, (int32_t)tq, (int32_t)tk);
            if (got_p != pairs || got_e != exec) {
                if (bad++ < 3)
                    fprintf(stderr, "  %s causal=%d S=%lld N=%lld rank %lld step %lld: pairs %llu vs %llu, exec %llu vs %llu\n",
                            rs_layout_name(lay), causal, (long long)S, (long long)N, (long long)r, (long long)k,
                            (unsigned long long)got_p, (unsigned long long)pairs, (unsigned long long)got_e,
                            (unsigned long long)exec);
            }
        }
    CU_ASSERT_EQUAL(bad, 0);
    rs_schedule_free(s);
}

RS_TEST(test_tiles_match_schedule, "tiles_match_schedule") {
    const int64_t tiles[][2] = {{128, 64}, {64, 64}, {16, 16}, {48, 32}};
    for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++)
        for (int c = 0; c < 2; c++)
            for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
                rs_problem_t ps[3] = {tiled(8192, 8, RS_PASS_FORWARD, tiles[t]), tiled(3 * 1024, 6, RS_PASS_BACKWARD, tiles[t]),
                                      tiled(1000, 1 + (lay == RS_LAYOUT_ZIGZAG ? 0 : 1), RS_PASS_FORWARD, tiles[t])};
                for (int i = 0; i < 3; i++) {
                    ps[i].causal = c, ps[i].layout = (rs_layout_t)lay;
                    check_schedule_tiles(&ps[i]);
                }
            }
}

/* ---------------------------------------------------------------------------------------------------
 * 16-bit floats
 * ------------------------------------------------------------------------------------------------- */
RS_TEST_SUITE("gpu_half")
RS_TEST(test_half_conversions, "conversions") {
    CU_ASSERT_EQUAL(rs_gpu_f32_to_bf16(1.0f), 0x3f80);
    CU_ASSERT_EQUAL(rs_gpu_f32_to_bf16(-2.0f), 0xc000);
    CU_ASSERT_EQUAL(rs_gpu_f32_to_bf16(1.0f + 1.0f / 256), 0x3f80);  /* tie -> even */
    CU_ASSERT_EQUAL(rs_gpu_f32_to_bf16(1.0f + 3.0f / 256), 0x3f82);  /* tie -> even (up) */
    CU_ASSERT_EQUAL(rs_gpu_f32_to_f16(1.0f), 0x3c00);
    CU_ASSERT_EQUAL(rs_gpu_f32_to_f16(65504.0f), 0x7bff);
    CU_ASSERT_EQUAL(rs_gpu_f32_to_f16(65520.0f), 0x7c00);            /* rounds to infinity */
    CU_ASSERT_EQUAL(rs_gpu_f32_to_f16(ldexpf(1.0f, -24)), 0x0001);   /* smallest subnormal */
    CU_ASSERT_EQUAL(rs_gpu_f32_to_f16(ldexpf(1.0f, -25)), 0x0000);   /* tie -> even (zero) */
    CU_ASSERT_EQUAL(rs_gpu_f32_to_f16(0.1f), 0x2e66);
    CU_ASSERT_EQUAL(rs_gpu_f32_to_f16(-0.0f), 0x8000);
    CU_ASSERT_EQUAL(rs_gpu_f32_to_f16(1.0f + ldexpf(1.0f, -11)), 0x3c00); /* tie -> even */
    CU_ASSERT_EQUAL(rs_gpu_f32_to_f16(ldexpf(1.0f, -14) * (1.0f - ldexpf(1.0f, -11))), 0x0400); /* rounds up to normal */
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f16 = rs_gpu_f16_to_f32((uint16_t)h), b16 = rs_gpu_bf16_to_f32((uint16_t)h);
        if (!isnan(f16) && rs_gpu_f32_to_f16(f16) != h) bad++;
        if (!isnan(b16) && rs_gpu_f32_to_bf16(b16) != h) bad++;
        if (isnan(f16) != isnan((float)rs_gpu_f16_to_f32(rs_gpu_f32_to_f16(f16)))) bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(isnan(rs_gpu_bf16_to_f32(rs_gpu_f32_to_bf16(NAN))));
}

/* ---------------------------------------------------------------------------------------------------
 * Ring of float64 reference steps vs full attention; the checks
 * ------------------------------------------------------------------------------------------------- */
RS_TEST_SUITE("gpu_reference")
/* A rank's token segments: its local rows are theirs, one after the other. */
typedef struct {
    int n;
    rs_segment_t seg[RS_MAX_SEGMENTS];
} segs_t;

/* local (rank-segment) BHSD <-> global BHSD */
static void gather(const double *g, int64_t heads, const rs_problem_t *p, const segs_t *ss, double *l) {
    const int n = ss->n;
    const rs_segment_t *segs = ss->seg;
    int64_t rows = 0, d = p->head_dim;
    for (int s = 0; s < n; s++) rows += segs[s].count;
    for (int64_t bh = 0; bh < p->batch * heads; bh++) {
        int64_t r = 0;
        for (int s = 0; s < n; s++)
            for (int64_t i = 0; i < segs[s].count; i++, r++)
                memcpy(l + (bh * rows + r) * d, g + (bh * p->seq_tokens + segs[s].first + i * segs[s].stride) * d,
                       sizeof(double) * (size_t)d);
    }
}
static void scatter_add(const double *l, int64_t heads, const rs_problem_t *p, const segs_t *ss, int64_t width, double *g) {
    const int n = ss->n;
    const rs_segment_t *segs = ss->seg;
    int64_t rows = 0;
    for (int s = 0; s < n; s++) rows += segs[s].count;
    for (int64_t bh = 0; bh < p->batch * heads; bh++) {
        int64_t r = 0;
        for (int s = 0; s < n; s++)
            for (int64_t i = 0; i < segs[s].count; i++, r++)
                for (int64_t x = 0; x < width; x++)
                    g[(bh * p->seq_tokens + segs[s].first + i * segs[s].stride) * width + x] += l[(bh * rows + r) * width + x];
    }
}

static double max_rel(const double *a, const double *b, size_t n) {
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (isinf(a[i]) && a[i] == b[i]) continue;
        num = fmax(num, fabs(a[i] - b[i]));
        den = fmax(den, fabs(b[i]));
    }
    return den > 0 ? num / den : num;
}

static void ring_vs_reference(rs_layout_t lay, bool causal, int64_t S, int64_t N) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = S, p.n_ranks = N, p.batch = 2, p.q_heads = 4, p.kv_heads = 2, p.head_dim = 8;
    p.causal = causal, p.layout = lay, p.pass = RS_PASS_BACKWARD, p.tile_q = 4, p.tile_k = 4;
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    const int64_t d = p.head_dim, B = S / N;
    const size_t nq = (size_t)(p.batch * p.q_heads * S * d), nk = (size_t)(p.batch * p.kv_heads * S * d);
    const size_t nr = (size_t)(p.batch * p.q_heads * S);
    double *q = calloc(nq, 8), *k = calloc(nk, 8), *v = calloc(nk, 8), *dO = calloc(nq, 8);
    double *o = calloc(nq, 8), *lse = calloc(nr, 8), *dq = calloc(nq, 8), *dk = calloc(nk, 8), *dv = calloc(nk, 8);
    double *go = calloc(nq, 8), *glse = calloc(nr, 8), *gdq = calloc(nq, 8), *gdk = calloc(nk, 8), *gdv = calloc(nk, 8);
    const size_t lq = (size_t)(p.batch * p.q_heads * B * d), lk = (size_t)(p.batch * p.kv_heads * B * d);
    const size_t lr = (size_t)(p.batch * p.q_heads * B);
    double *Lq = calloc(lq, 8), *LdO = calloc(lq, 8), *Lk = calloc(lk, 8), *Lv = calloc(lk, 8), *Lo = calloc(lq, 8);
    double *Lm = calloc(lr, 8), *Ll = calloc(lr, 8), *Lout = calloc(lq, 8), *Llse = calloc(lr, 8), *LD = calloc(lr, 8);
    double *Ldq = calloc(lq, 8), *Ldk = calloc(lk, 8), *Ldv = calloc(lk, 8);
    CU_ASSERT_FATAL(q && k && v && dO && o && lse && dq && dk && dv && go && glse && gdq && gdk && gdv && Lq &&
                    LdO && Lk && Lv && Lo && Lm && Ll && Lout && Llse && LD && Ldq && Ldk && Ldv);
    for (size_t i = 0; i < nq; i++) q[i] = 2 * rs_hash_unit(7, 1, i) - 1, dO[i] = 2 * rs_hash_unit(7, 4, i) - 1;
    for (size_t i = 0; i < nk; i++) k[i] = 2 * rs_hash_unit(7, 2, i) - 1, v[i] = 2 * rs_hash_unit(7, 3, i) - 1;
    CU_ASSERT_EQUAL_FATAL(rs_exec_reference(&p, &(rs_exec_ref_t){q, k, v, dO, o, lse, dq, dk, dv}, &err), 0);

    rs_gpu_shape_t sh = {RS_GPU_BF16, (int32_t)p.batch, (int32_t)p.q_heads, (int32_t)p.kv_heads, (int32_t)d,
                         (int32_t)B, (int32_t)B, (float)(1.0 / sqrt((double)d))};
    const rs_gpu_ref_bufs_t rb = {Lq, Lk, Lv, LdO, Lo, Lm, Ll, Lout, Llse, LD, Ldq, Ldk, Ldv};
    for (int64_t r = 0; r < N; r++) {
        segs_t qs;
        qs.n = rs_schedule_rank_segments(s, r, qs.seg);
        gather(q, p.q_heads, &p, &qs, Lq);
        gather(dO, p.q_heads, &p, &qs, LdO);
        rs_gpu_ref_fwd_init(&sh, &rb);
        memset(Ldq, 0, lq * 8);
        /* forward: the N compute steps of the forward schedule equal the backward's first N */
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) {
                rs_gpu_ref_fwd_finalize(&sh, &rb);
                rs_gpu_ref_bwd_prep(&sh, &rb);
            }
            for (int64_t step = 0; step < rs_schedule_n_steps(s); step++) {
                rs_step_t st;
                rs_gpu_step_desc_t desc;
                rs_schedule_step(s, r, step, &st);
                if (!st.has_compute) continue;
                CU_ASSERT_EQUAL_FATAL(rs_gpu_desc_from_step(&st, &desc, &err), 0);
                segs_t ks;
                ks.n = rs_schedule_rank_segments(s, st.kv_owner, ks.seg);
                gather(k, p.kv_heads, &p, &ks, Lk);
                gather(v, p.kv_heads, &p, &ks, Lv);
                if (pass == 0) {
                    rs_gpu_ref_fwd_step(&sh, &desc, &rb);
                } else {
                    memset(Ldk, 0, lk * 8);
                    memset(Ldv, 0, lk * 8);
                    rs_gpu_ref_bwd_step(&sh, &desc, &rb);
                    scatter_add(Ldk, p.kv_heads, &p, &ks, d, gdk);
                    scatter_add(Ldv, p.kv_heads, &p, &ks, d, gdv);
                }
            }
        }
        scatter_add(Lout, p.q_heads, &p, &qs, d, go);
        scatter_add(Llse, p.q_heads, &p, &qs, 1, glse);
        scatter_add(Ldq, p.q_heads, &p, &qs, d, gdq);
    }
    /* the reference uses scale = 1/sqrt(d) in double; ours is the float of it: ~3e-8 relative */
    const double tol = 1e-6;
    double eo = max_rel(go, o, nq), el = max_rel(glse, lse, nr), eq = max_rel(gdq, dq, nq);
    double ek = max_rel(gdk, dk, nk), ev = max_rel(gdv, dv, nk);
    if (!(eo < tol && el < tol && eq < tol && ek < tol && ev < tol))
        fprintf(stderr, "  %s causal=%d S=%lld N=%lld: O %.3g lse %.3g dQ %.3g dK %.3g dV %.3g\n", rs_layout_name(lay),
                causal, (long long)S, (long long)N, eo, el, eq, ek, ev);
    CU_ASSERT(eo < tol && el < tol && eq < tol && ek < tol && ev < tol);
    free(q), free(k), free(v), free(dO), free(o), free(lse), free(dq), free(dk), free(dv), free(go), free(glse);
    free(gdq), free(gdk), free(gdv), free(Lq), free(LdO), free(Lk), free(Lv), free(Lo), free(Lm), free(Ll);
    free(Lout), free(Llse), free(LD), free(Ldq), free(Ldk), free(Ldv);
    rs_schedule_free(s);
}

RS_TEST(test_reference_ring, "ring_vs_full_attention") {
    for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++)
        for (int c = 0; c < 2; c++) {
            ring_vs_reference((rs_layout_t)lay, c, 48, 4);
            ring_vs_reference((rs_layout_t)lay, c, 24, 1 + (lay != RS_LAYOUT_ZIGZAG)); /* N = 1 or 2 */
        }
}

/* A wrong mask must be caught: flip one block's diag and the ring no longer matches. */
RS_TEST(test_reference_detects_bad_mask, "detects_bad_mask") {
    rs_gpu_shape_t sh = {RS_GPU_BF16, 1, 1, 1, 8, 8, 8, 0.35f};
    double q[64], k[64], v[64], o1[64], o2[64], m1[8], m2[8], l1[8], l2[8];
    for (int i = 0; i < 64; i++) q[i] = rs_hash_unit(3, 0, i), k[i] = rs_hash_unit(3, 1, i), v[i] = rs_hash_unit(3, 2, i);
    rs_gpu_step_desc_t d0, d1;
    rs_gpu_desc_single(8, 8, RS_GPU_MASK_DIAG, 0, &d0);
    rs_gpu_desc_single(8, 8, RS_GPU_MASK_DIAG, 1, &d1);
    const rs_gpu_ref_bufs_t b1 = {.q = q, .k = k, .v = v, .o = o1, .m = m1, .l = l1};
    const rs_gpu_ref_bufs_t b2 = {.q = q, .k = k, .v = v, .o = o2, .m = m2, .l = l2};
    rs_gpu_ref_fwd_init(&sh, &b1);
    rs_gpu_ref_fwd_init(&sh, &b2);
    rs_gpu_ref_fwd_step(&sh, &d0, &b1);
    rs_gpu_ref_fwd_step(&sh, &d1, &b2);
    CU_ASSERT(max_rel(o1, o2, 64) > 0.01);
    /* row 0 sees nothing under diag 1: its state stays (-inf, 0, 0) */
    CU_ASSERT(m2[0] == -INFINITY && l2[0] == 0 && o2[0] == 0);
    CU_ASSERT(l1[0] == 1.0);
}

RS_TEST(test_check_counts, "check_counts") {
    float got[4] = {1.0f, 2.0f, NAN, 4.5f};
    double ref[4] = {1.0, 2.001, 3.0, 4.0};
    rs_gpu_check_t c = rs_gpu_check_f32("x", got, ref, 4, (rs_gpu_tol_t){1e-3, 1e-2, 0});
    CU_ASSERT_EQUAL(c.n_bad, 2); /* NaN and 4.5 vs 4 */
    CU_ASSERT(!isfinite(c.rel_l2) || c.rel_l2 > 0.1);
}

/* A 16-bit check reads its values in the dtype: 1.0 as bf16 0x3f80, 2.0 as fp16 0x4000. */
RS_TEST(test_check_16, "check_16") {
    const uint16_t bf[2] = {0x3f80, 0x4000}, h[2] = {0x3c00, 0x4000};
    const double ref[2] = {1.0, 2.0};
    rs_gpu_check_t c = rs_gpu_check_16("b", RS_GPU_BF16, bf, ref, 2, (rs_gpu_tol_t){0, 0, 0});
    CU_ASSERT(c.n == 2 && c.n_bad == 0 && c.rel_l2 == 0 && c.max_abs_err == 0);
    c = rs_gpu_check_16("h", RS_GPU_FP16, h, ref, 2, (rs_gpu_tol_t){0, 0, 0});
    CU_ASSERT(c.n_bad == 0);
    c = rs_gpu_check_16("h", RS_GPU_FP16, bf, ref, 2, (rs_gpu_tol_t){1e-3, 0, 0}); /* bf16 bits read as fp16 */
    CU_ASSERT_EQUAL(c.n_bad, 1); /* 0x3f80 is 1.875 in fp16; 0x4000 is 2 in both */
}

RS_TEST_MAIN(.suite = NULL)
