/* test_kernel.c - the kernel-call cost model (model/3-machine/kernel_table.h, model/4-cost/kernel.h): curve
 * interpolation by hand, a step's calls and merges by hand for every preset and layout, the classes
 * against every (rank, step), the walk against the per-step function, the closed form against the
 * walk, the layout-aware bound and B*, the shipped curves' round trip, and bad profile input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "machine.h"
#include "cost.h"
#include "test_main.h"
#include "harness.h"
#include "trace.h"

/* ------------------------------------------------------------------------------------------------
 * A hand-made machine: one kernel "k" with two-point curves (areas 2^20 and 2^24), 1 TB/s merges
 * ---------------------------------------------------------------------------------------------- */
static void add_curve(rs_kernel_table_t *t, rs_pass_t pass, rs_kmask_t mask, double r1k, double r4k) {
    rs_kcurve_t *c = &t->curve[t->n_curves++];
    memset(c, 0, sizeof *c);
    c->kernel = 0, c->dtypes = 1u << RS_DTYPE_BF16, c->head_dim = 128, c->pass = (int)pass, c->mask = mask;
    c->n = 2;
    c->pt[0] = (rs_kpoint_t){1024, 1024, r1k};
    c->pt[1] = (rs_kpoint_t){4096, 4096, r4k};
}

static rs_machine_t hand_machine(rs_impl_t impl, double launch_s) {
    rs_machine_t m = rs_machine_figures("hand", RS_DTYPE_BF16, 1e15, (rs_tier_t){"link", 100e9, 2e-6});
    m.cal.launch_s = launch_s;
    rs_kernel_table_t *t = &m.kernels;
    t->n_kernels = 1;
    snprintf(t->kernel[0].name, sizeof t->kernel[0].name, "k");
    add_curve(t, RS_PASS_FORWARD, RS_KMASK_FULL, 100e12, 200e12);
    add_curve(t, RS_PASS_FORWARD, RS_KMASK_CAUSAL, 50e12, 150e12);
    add_curve(t, RS_PASS_FORWARD, RS_KMASK_SHIFTED, 40e12, 140e12);
    add_curve(t, RS_PASS_BACKWARD, RS_KMASK_FULL, 80e12, 160e12);
    t->merge_bw_bytes_per_s = 1e12;
    t->impl_kernel[impl] = 1;
    CU_ASSERT_EQUAL(rs_machine_set_kernel(&m, (int)impl, impl == RS_IMPL_NONE ? 0 : 1, NULL), 0);
    return m;
}

/* The machine again after its curves changed (they are prepared and indexed by rs_machine_set_kernel). */
static void reset_kernel(rs_machine_t *m) { CU_ASSERT_EQUAL_FATAL(rs_machine_set_kernel(m, m->impl, m->kernel, NULL), 0); }

static rs_problem_t prob(int64_t n, int64_t b, rs_layout_t l, rs_pass_t pass, bool causal) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.n_ranks = n, p.seq_tokens = n * b, p.layout = l, p.pass = pass, p.causal = causal;
    p.q_heads = p.kv_heads = 1, p.head_dim = 128, p.batch = 1, p.act_bytes = 2, p.grad_bytes = 4;
    return p;
}

/* log-log interpolation between (2^20, r1k) and (2^24, r4k) at area a, clamped */
static double loglog(double r1k, double r4k, double area) {
    double t = (log(area) - log(1048576.0)) / (log(16777216.0) - log(1048576.0));
    if (t <= 0) return r1k;
    if (t >= 1) return r4k;
    return exp(log(r1k) + t * (log(r4k) - log(r1k)));
}

/* The step of (rank, step) of p on m. */
static void step_of(const rs_problem_t *p, const rs_machine_t *m, int64_t rank, int64_t step, rs_kstep_t *ks) {
    rs_schedule_t *s = rs_schedule_create(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_kmodel_t km;
    rs_kmodel_init(&km, p, m);
    rs_step_t st;
    rs_schedule_step(s, rank, step, &st);
    rs_kernel_step(&km, &st, ks);
    rs_schedule_free(s);
}

/* ------------------------------------------------------------------------------------------------
 * Curves
 * ---------------------------------------------------------------------------------------------- */
static void test_curve_interpolation(void) {
    static rs_kernel_table_t t; /* one kernel, one curve, prepared (its logs derived) */
    memset(&t, 0, sizeof t);
    t.n_kernels = 1, t.n_curves = 1;
    snprintf(t.kernel[0].name, sizeof t.kernel[0].name, "k");
    rs_kcurve_t *cv = &t.curve[0];
    cv->dtypes = 1u << RS_DTYPE_BF16, cv->head_dim = 128, cv->n = 5;
    cv->pt[0] = (rs_kpoint_t){512, 512, 100e12};
    cv->pt[1] = (rs_kpoint_t){1024, 2048, 174.6e12}; /* two points share the area 2M */
    cv->pt[2] = (rs_kpoint_t){2048, 1024, 165.9e12};
    cv->pt[3] = (rs_kpoint_t){2048, 2048, 180e12};
    cv->pt[4] = (rs_kpoint_t){8192, 8192, 200e12};
    CU_ASSERT_EQUAL_FATAL(rs_kernel_table_prepare(&t, NULL), 0);
    const rs_kcurve_t c = *cv;
    for (int i = 0; i < c.n; i++) /* every point's own shape: its own rate, exactly */
        CU_ASSERT_EQUAL(rs_kcurve_rate(&c, c.pt[i].q_tokens, c.pt[i].k_tokens), c.pt[i].flops_per_s);
    /* clamped outside */
    CU_ASSERT_EQUAL(rs_kcurve_rate(&c, 128, 128), 100e12);
    CU_ASSERT_EQUAL(rs_kcurve_rate(&c, 65536, 65536), 200e12);
    /* 1024 x 1024 (area 1M) between 512^2 (256K) and the 2M pair; a square call is as near 1Kx2K as
     * 2Kx1K in log aspect: the first (174.6) is used: log-log at t = ln 4 / ln 8 = 2/3 */
    double want = exp(log(100e12) + (2.0 / 3) * (log(174.6e12) - log(100e12)));
    RS_ASSERT_REL(rs_kcurve_rate(&c, 1024, 1024), want, 1e-14);
    /* 4096 x 512 (area 2M, aspect 8): the 2Kx1K point (aspect 2) is nearer than 1Kx2K */
    CU_ASSERT_EQUAL(rs_kcurve_rate(&c, 4096, 512), 165.9e12);
    /* 2048 x 4096 (area 8M): between 2048^2 (4M) and 8192^2 (64M) at t = ln 2 / ln 16 = 1/4 */
    RS_ASSERT_REL(rs_kcurve_rate(&c, 2048, 4096), exp(log(180e12) + 0.25 * (log(200e12) - log(180e12))), 1e-14);
}

static void test_resolve_fallbacks(void) {
    rs_machine_t m = hand_machine(RS_IMPL_FLASH_ATTN, 0);
    rs_kresolve_t r;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_kernel_resolve(&m.kernels, 0, RS_DTYPE_BF16, 128, &r, &err), 0);
    /* the backward has only a full curve: causal and shifted fall back to it, once each */
    CU_ASSERT_EQUAL(r.idx[RS_PASS_BACKWARD][RS_KMASK_CAUSAL], 3);
    CU_ASSERT_EQUAL(r.idx[RS_PASS_BACKWARD][RS_KMASK_SHIFTED], 3);
    CU_ASSERT_EQUAL(r.idx[RS_PASS_FORWARD][RS_KMASK_SHIFTED], 2);
    CU_ASSERT_STRING_EQUAL(r.notes, "kernel k has no backward causal curve: using its full curve; "
                                    "kernel k has no backward shifted curve: using its full curve");
    /* head_dim 64: the nearest (128) with a note; fp8: no curve at all */
    CU_ASSERT_EQUAL_FATAL(rs_kernel_resolve(&m.kernels, 0, RS_DTYPE_BF16, 64, &r, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.notes, "kernel k has no bf16 curve for head_dim 64: using its head_dim 128 curves"));
    CU_ASSERT_EQUAL(rs_kernel_resolve(&m.kernels, 0, RS_DTYPE_FP8, 128, &r, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "kernel k has no curve for dtype fp8");
    /* a pass without curves uses the other pass's */
    m.kernels.n_curves = 3; /* forward only */
    CU_ASSERT_EQUAL_FATAL(rs_kernel_resolve(&m.kernels, 0, RS_DTYPE_BF16, 128, &r, &err), 0);
    CU_ASSERT_EQUAL(r.idx[RS_PASS_BACKWARD][RS_KMASK_FULL], 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.notes, "kernel k has no backward curve: its forward curves stand in"));
}

/* ------------------------------------------------------------------------------------------------
 * One step by hand
 * ---------------------------------------------------------------------------------------------- */
/* Zigzag, causal, forward, N = 4, B = 2048 (chunks C = 1024), 1 head of d 128, bf16; c_f = 512 FLOPs
 * per pair; Q row = 128 elements, 1 row-head. flash-attn preset, merges at 1 TB/s, launch 1 us. */
static void test_zigzag_step_by_hand(void) {
    const double launch = 1e-6;
    rs_machine_t m = hand_machine(RS_IMPL_FLASH_ATTN, launch);
    rs_problem_t p = prob(4, 2048, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    rs_kstep_t ks;
    /* step 0: one causal call on B x B (2 C(C+1)/2 + C^2 visible pairs), rate at area 4M = 2^22;
     * merge: out = block_out.to(fp32): 2 + 4 bytes per element */
    step_of(&p, &m, 2, 0, &ks);
    CU_ASSERT_EQUAL_FATAL(ks.n_calls, 1);
    CU_ASSERT_EQUAL(ks.call[0].mask, RS_KMASK_CAUSAL);
    CU_ASSERT_EQUAL(ks.call[0].q_tokens, 2048); CU_ASSERT_EQUAL(ks.call[0].k_tokens, 2048);
    const double f0 = (2.0 * 1024 * 1024 + 1024) * 512;
    RS_ASSERT_REL(ks.call[0].flops_useful, f0, 1e-15);
    RS_ASSERT_REL(ks.calls_s, f0 / loglog(50e12, 150e12, 2048.0 * 2048), 1e-14);
    RS_ASSERT_REL(ks.merge_bytes, 2048.0 * 128 * 6, 1e-15);
    RS_ASSERT_REL(ks.scaled_s, ks.calls_s + 2048.0 * 128 * 6 / 1e12, 1e-15);
    CU_ASSERT_EQUAL(ks.launches, 2);
    /* KV owner before the rank (rank 3, step 1: owner 2): one full call (B, B/2) = 2 C^2 pairs at
     * area 2M = 2^21 (t = 1/4); merge (update_out_and_lse op by op): .to(fp32) 2 + 4, out - block_out
     * 4 + 4 + 4, the scaled difference 4 + 4, out - it 4 + 4 + 4 = 38 bytes per element; the lse ops
     * (5 + 8) x 4 = 52 bytes per row-head; the call and 9 launches */
    step_of(&p, &m, 3, 1, &ks);
    CU_ASSERT_EQUAL_FATAL(ks.n_calls, 1);
    CU_ASSERT_EQUAL(ks.call[0].mask, RS_KMASK_FULL);
    CU_ASSERT_EQUAL(ks.call[0].q_tokens, 2048); CU_ASSERT_EQUAL(ks.call[0].k_tokens, 1024);
    const double f1 = 2.0 * 1024 * 1024 * 512, r1 = 100e12 * pow(2.0, 0.25);
    RS_ASSERT_REL(loglog(100e12, 200e12, 2048.0 * 1024), r1, 1e-14);
    RS_ASSERT_REL(ks.calls_s, f1 / r1, 1e-14);
    RS_ASSERT_REL(ks.merge_bytes, 2048.0 * (128 * 38 + 52), 1e-15);
    CU_ASSERT_EQUAL(ks.launches, 10);
    /* the step's time = the sum of its calls at their rates + merge bytes / bandwidth + launches */
    rs_kmodel_t km;
    rs_kmodel_init(&km, &p, &m);
    RS_ASSERT_REL(rs_kernel_rank_step_s(&km, &(rs_step_t){.rank = 3, .step = 1}, &ks, 0, 0, 0), 10 * launch + f1 / r1 + 2048.0 * 4916 / 1e12,
                  1e-14);
    /* KV owner after the rank (rank 0, step 1: owner 3): one full call (B/2, B) on the second half of
     * the rows, same area; its merge covers 1024 rows and copies the slice back (4 + 4 bytes per
     * element, 2 x 4 per row-head) */
    step_of(&p, &m, 0, 1, &ks);
    CU_ASSERT_EQUAL(ks.call[0].q_tokens, 1024); CU_ASSERT_EQUAL(ks.call[0].k_tokens, 2048);
    RS_ASSERT_REL(ks.calls_s, f1 / r1, 1e-14);
    RS_ASSERT_REL(ks.merge_bytes, 1024.0 * (128 * 38 + 52) + 1024.0 * (128 * 8 + 8), 1e-15);
    CU_ASSERT_EQUAL(ks.launches, 12);
}

/* Striped, causal, forward, N = 4, B = 2048: the KV owner after the rank gives a shifted-causal B x B
 * block (B (B - 1) / 2 visible pairs). ringsim runs it with its own mask; flash-attn as a causal call
 * on the (B-1) x (B-1) slices, merging B - 1 rows with the copy-back. */
static void test_striped_shifted_by_hand(void) {
    rs_problem_t p = prob(4, 2048, RS_LAYOUT_STRIPED, RS_PASS_FORWARD, true);
    const double f = 2048.0 * 2047 / 2 * 512;
    rs_kstep_t ks;
    rs_machine_t m = hand_machine(RS_IMPL_RINGSIM, 0);
    step_of(&p, &m, 0, 1, &ks);
    CU_ASSERT_EQUAL_FATAL(ks.n_calls, 1);
    CU_ASSERT_EQUAL(ks.call[0].mask, RS_KMASK_SHIFTED);
    RS_ASSERT_REL(ks.calls_s, f / loglog(40e12, 140e12, 2048.0 * 2048), 1e-14);
    CU_ASSERT_EQUAL(ks.merge_bytes, 0); /* ringsim merges inside its kernel */
    CU_ASSERT_EQUAL(ks.launches, 1);
    m = hand_machine(RS_IMPL_FLASH_ATTN, 0);
    step_of(&p, &m, 0, 1, &ks);
    CU_ASSERT_EQUAL(ks.call[0].mask, RS_KMASK_CAUSAL);
    CU_ASSERT_EQUAL(ks.call[0].q_tokens, 2047); CU_ASSERT_EQUAL(ks.call[0].k_tokens, 2047);
    RS_ASSERT_REL(ks.calls_s, f / loglog(50e12, 150e12, 2047.0 * 2047), 1e-14);
    RS_ASSERT_REL(ks.merge_bytes, 2047.0 * (128 * 38 + 52) + 2047.0 * (128 * 8 + 8), 1e-15);
    /* the owner before the rank: a causal B x B call, B (B + 1) / 2 pairs, no slice */
    step_of(&p, &m, 3, 1, &ks);
    CU_ASSERT_EQUAL(ks.call[0].mask, RS_KMASK_CAUSAL);
    RS_ASSERT_REL(ks.calls_s, 2048.0 * 2049 / 2 * 512 / loglog(50e12, 150e12, 2048.0 * 2048), 1e-14);
    RS_ASSERT_REL(ks.merge_bytes, 2048.0 * (128 * 38 + 52), 1e-15);
}

/* Merge cost = bytes / bandwidth: ringsim's backward clears the fp32 dK,dV partial every step (4 bytes
 * per element of dK and dV, in the compute) and adds the incoming one from step 1 (4 + 4 + 4, after
 * its arrival: after_bytes); contiguous with the owner after the rank computes nothing but still does
 * both. The fused launch costs each block. */
static void test_merge_bytes_by_hand(void) {
    rs_machine_t m = hand_machine(RS_IMPL_RINGSIM, 0);
    rs_problem_t p = prob(4, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_BACKWARD, true);
    const double e = 2.0 * 2048 * 128; /* elements of dK and dV */
    rs_kstep_t ks;
    step_of(&p, &m, 1, 0, &ks); /* own block: causal B x B at the backward's full curve (fallback) */
    RS_ASSERT_REL(ks.merge_bytes, 4 * e, 1e-15);
    RS_ASSERT_REL(ks.scaled_s, 2048.0 * 2049 / 2 * 1280 / loglog(80e12, 160e12, 2048.0 * 2048) + 4 * e / 1e12, 1e-14);
    CU_ASSERT_EQUAL(ks.after_bytes, 0); /* step 0: no partial arrives */
    CU_ASSERT_EQUAL(ks.after_s, 0);
    CU_ASSERT_EQUAL(ks.launches, 2);
    step_of(&p, &m, 0, 1, &ks); /* owner 3 after rank 0: no call */
    CU_ASSERT_EQUAL(ks.n_calls, 0);
    RS_ASSERT_REL(ks.scaled_s, 4 * e / 1e12, 1e-15);
    RS_ASSERT_REL(ks.after_bytes, 12 * e, 1e-15);
    RS_ASSERT_REL(ks.after_s, 12 * e / 1e12, 1e-15);
    CU_ASSERT_EQUAL(ks.launches, 2);
    /* flash-attn backward, GQA 4:1 (4 query heads, 1 KV head): dq += (2 + 4 + 4 bytes per element of
     * the call's Q rows) and the kernel's group sum of the per-query-head dK, dV (read 4 heads, write
     * 1, 2 bytes each, for dK and dV) in the compute; dk = block_dk + next_dk and dv likewise (each 10
     * per element of its KV rows) after d_kv_comm.wait(): after the partial arrives */
    m = hand_machine(RS_IMPL_FLASH_ATTN, 0);
    m.kernels.kernel[0].gqa_expand_bwd = true;
    p.q_heads = 4;
    step_of(&p, &m, 3, 1, &ks); /* owner 2 before rank 3: full B x B */
    RS_ASSERT_REL(ks.merge_bytes, 2048.0 * 512 * 10 + 2 * 2048.0 * 128 * 2 * 5, 1e-15);
    RS_ASSERT_REL(ks.after_bytes, 2 * 2048.0 * 128 * 10, 1e-15);
    CU_ASSERT_EQUAL(ks.launches, 1 + 3 + 2);
    step_of(&p, &m, 3, 0, &ks); /* step 0: dk = block_dk.to(fp32) in the compute, nothing arrives */
    CU_ASSERT_EQUAL(ks.after_bytes, 0);
}

/* TE defers its forward output corrections to after the loop: rank r's epilogue is its step 0's plus
 * r steps with the owner before it plus N-1-r after it; the classes give the same as summing the
 * rank's own steps. */
static void test_te_epilogue(void) {
    rs_machine_t m = hand_machine(RS_IMPL_TE, 0);
    rs_problem_t p = prob(4, 2048, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    rs_kmodel_t km;
    rs_kmodel_init(&km, &p, &m);
    rs_kclasses_t kc;
    rs_kernel_classes(&km, true, &kc);
    for (int64_t r = 0; r < 4; r++) {
        double sum = 0;
        for (int64_t k = 0; k < 4; k++) {
            rs_step_t st;
            rs_kstep_t ks;
            rs_schedule_step(s, r, k, &st);
            rs_kernel_step(&km, &st, &ks);
            CU_ASSERT_EQUAL(ks.merge_bytes, 0); /* nothing inline */
            sum += ks.deferred_s;
        }
        double es;
        int el;
        rs_kernel_classes_epilogue(&km, &kc, r, &es, &el);
        RS_ASSERT_REL(es, sum, 1e-15);
        CU_ASSERT_EQUAL(el, 4 * 2);
    }
    /* by hand: step 0 2 x 2 bytes per element, 4 x 4 per row-head (B rows); later 3 x 2 and 5 x 4 */
    RS_ASSERT_REL(kc.cls[1].deferred_s, 2048.0 * (128 * 4 + 16) / 1e12, 1e-15);
    RS_ASSERT_REL(kc.cls[0].deferred_s, 2048.0 * (128 * 6 + 20) / 1e12, 1e-15);
    RS_ASSERT_REL(kc.cls[2].deferred_s, 1024.0 * (128 * 6 + 20) / 1e12, 1e-15);
    rs_schedule_free(s);
}

/* ------------------------------------------------------------------------------------------------
 * One truth: classes, walk, closed form
 * ---------------------------------------------------------------------------------------------- */
/* Every (rank, step) costs what its class does, for every preset, layout, pass, mask and N. */
static void test_classes_equal_every_step(void) {
    const int64_t ns[] = {1, 2, 3, 5}, bs[] = {1, 2, 256};
    for (int impl = 0; impl < RS_IMPL_COUNT; impl++)
        for (unsigned i = 0; i < 12; i++)
            for (int l = 0; l < RS_LAYOUT_COUNT; l++)
                for (int pass = 0; pass < 2; pass++)
                    for (int causal = 0; causal < 2; causal++) {
                        if (bs[i / 4] == 1 && l == RS_LAYOUT_ZIGZAG) continue; /* zigzag needs B even */
                        rs_machine_t m = hand_machine((rs_impl_t)impl, 1e-6);
                        rs_problem_t p = prob(ns[i % 4], bs[i / 4], (rs_layout_t)l, (rs_pass_t)pass, causal);
                        rs_schedule_t *s = rs_schedule_create(&p, NULL);
                        rs_kmodel_t km;
                        rs_kmodel_init(&km, &p, &m);
                        rs_kclasses_t kc, fast;
                        rs_kernel_classes(&km, true, &kc);
                        rs_kernel_classes(&km, false, &fast); /* the closed form's: executed FLOPs not counted */
                        int bad = 0;
                        for (int64_t r = 0; r < ns[i % 4]; r++)
                            for (int64_t k = 0; k < ns[i % 4]; k++) {
                                rs_step_t st;
                                rs_kstep_t ks;
                                rs_schedule_step(s, r, k, &st);
                                rs_kernel_step(&km, &st, &ks);
                                int64_t o = st.kv_owner;
                                const int cls = o < r ? 0 : o == r ? 1 : 2;
                                const rs_kstep_t *c = &kc.cls[cls], *f = &fast.cls[cls];
                                bad += ks.scaled_s != c->scaled_s || ks.launches != c->launches || ks.deferred_s != c->deferred_s;
                                bad += f->scaled_s != c->scaled_s || f->launches != c->launches || f->deferred_s != c->deferred_s;
                                bad += ks.after_s != c->after_s || f->after_s != c->after_s || ks.after_bytes != c->after_bytes;
                                bad += st.flops_useful != kc.useful[cls] || st.flops_exec != kc.exec[cls];
                                bad += st.flops_useful != fast.useful[cls] || (impl != RS_IMPL_NONE && fast.exec[cls] != 0);
                            }
                        if (bad)
                            fprintf(stderr, "  impl %d N %lld B %lld layout %d pass %d causal %d: %d steps differ\n", impl,
                                    (long long)ns[i % 4], (long long)bs[i / 4], l, pass, causal, bad);
                        CU_ASSERT_EQUAL(bad, 0);
                        rs_schedule_free(s);
                    }
}

/* Fields of two class sets that differ (0: identical to the last bit); calls compared where both list
 * them, the fixed epilogue where b has one (the fast path leaves it 0 when it lists no calls). */
static int classes_diff(const rs_kclasses_t *a, const rs_kclasses_t *b) {
    const bool listed = b->cls[0].n_calls + b->cls[1].n_calls + b->cls[2].n_calls > 0;
    int bad = listed && (a->epi_fixed_s != b->epi_fixed_s || a->epi_fixed_launches != b->epi_fixed_launches);
    bad += !listed && (b->epi_fixed_s != 0 || b->epi_fixed_launches != 0);
    for (int c = 0; c < 3; c++) {
        const rs_kstep_t *x = &a->cls[c], *y = &b->cls[c];
        bad += a->useful[c] != b->useful[c] || x->launches != y->launches ||
               x->deferred_launches != y->deferred_launches || x->calls_s != y->calls_s || x->merge_bytes != y->merge_bytes ||
               x->deferred_bytes != y->deferred_bytes || x->scaled_s != y->scaled_s || x->deferred_s != y->deferred_s ||
               x->after_bytes != y->after_bytes || x->after_s != y->after_s;
        for (int i = 0; i < x->n_calls && i < y->n_calls; i++) /* the fast path lists none (n_calls = 0) */
            bad += x->call[i].mask != y->call[i].mask || x->call[i].q_tokens != y->call[i].q_tokens ||
                   x->call[i].k_tokens != y->call[i].k_tokens || x->call[i].flops_useful != y->call[i].flops_useful ||
                   x->call[i].rate != y->call[i].rate || x->call[i].time_s != y->call[i].time_s;
    }
    return bad;
}

/* The closed form's fast path (rs_kernel_classes_fast: templates read once) gives the reference's
 * numbers (rs_kernel_classes) bit for bit: every preset, layout, mask, pass, N = 1, 2, 5, block sizes
 * from 1 token (the reference's own path) to 2^20, on the hand machine (GQA 32/8 heads: the backward's
 * expansion) and on the shipped h200 profile's curves (several points per area, other head dims). */
static void test_classes_fast_equal_reference(void) {
    const int64_t ns[] = {1, 2, 5}, bs[] = {1, 2, 3, 4, 6, 10, 130, 1000, 4096, 1 << 20};
    rs_hw_t hw;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h200", &hw, NULL), 0);
    int checked = 0;
    for (int impl = RS_IMPL_RINGSIM; impl < RS_IMPL_COUNT; impl++)
        for (int mach = 0; mach < 2; mach++) {
            rs_machine_t m = hand_machine((rs_impl_t)impl, 1e-6);
            if (mach == 1) {
                CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
                if (!hw.kernels.impl_kernel[impl]) continue;
                CU_ASSERT_EQUAL_FATAL(rs_machine_set_kernel(&m, impl, hw.kernels.impl_kernel[impl], NULL), 0);
            }
            for (size_t i = 0; i < 3 * sizeof bs / sizeof bs[0]; i++)
                for (int l = 0; l < RS_LAYOUT_COUNT; l++)
                    for (int pass = 0; pass < 2; pass++)
                        for (int causal = 0; causal < 2; causal++) {
                            const int64_t n = ns[i % 3], b = bs[i / 3];
                            if (b % 2 && l == RS_LAYOUT_ZIGZAG) continue; /* zigzag needs B even */
                            rs_problem_t p = prob(n, b, (rs_layout_t)l, (rs_pass_t)pass, causal);
                            p.q_heads = 32, p.kv_heads = 8;
                            rs_kmodel_t km;
                            rs_kmodel_init(&km, &p, &m);
                            CU_ASSERT_TRUE(km.curves);
                            rs_kclasses_t ref, fast;
                            rs_kernel_classes(&km, false, &ref);
                            rs_kernel_classes_fast(&km, &fast);
                            const int bad = classes_diff(&ref, &fast);
                            if (bad)
                                fprintf(stderr, "  impl %d machine %d N %lld B %lld layout %d pass %d causal %d: %d fields differ\n",
                                        impl, mach, (long long)n, (long long)b, l, pass, causal, bad);
                            CU_ASSERT_EQUAL(bad, 0);
                            checked++;
                        }
        }
    CU_ASSERT(checked > 600);
}

/* The walk's compute of (rank, step) equals rs_kernel_step_s (the simulators' function), with
 * stragglers, jitter and a host cost, for every preset, layout and pass; and its merges after the
 * incoming partial (acc.after_s, straggler included) lie between the step event's end and the next
 * step's start: nothing in the forward and at the backward's step 0, > 0 at its later steps under a
 * preset (ringsim's always; a per-step preset's when the step calls its kernel, since
 * ring-flash-attn forwards the partial as is otherwise). */
static void test_walk_equals_step_function(void) {
    for (int impl = 0; impl < RS_IMPL_COUNT; impl++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int pass = 0; pass < 2; pass++) {
                rs_machine_t m = hand_machine((rs_impl_t)impl, 2e-6);
                m.jitter = 0.2, m.seed = 7;
                m.perturb.n_stragglers = 1, m.perturb.straggler_rank[0] = 2, m.perturb.straggler_factor[0] = 1.3;
                m.cal.host_s_per_xfer = 1e-6, m.cal.host_s_per_byte = 1e-12;
                rs_problem_t p = prob(5, 1024, (rs_layout_t)l, (rs_pass_t)pass, true);
                rs_schedule_t *s = rs_schedule_create(&p, NULL);
                rs_trace_t *t = rs_trace_create("model");
                rs_walk_t w;
                CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, rs_trace_sink(t), NULL, &w, NULL), 0);
                rs_kmodel_t km;
                rs_kmodel_init(&km, &p, &m);
                const rs_event_t *ev = rs_trace_events(t);
                int bad = 0, compared = 0, gaps = 0, bad_gap = 0;
                for (int64_t r = 0; r < 5; r++) {
                    rs_krank_t acc = {0};
                    for (int64_t k = 0; k < rs_schedule_n_steps(s); k++) {
                        rs_step_t st;
                        rs_schedule_step(s, r, k, &st);
                        double recv = 0;
                        for (int i = 0; i < st.n_recv; i++) recv += (double)st.recv[i].bytes;
                        double want = rs_kernel_step_s(&km, &st, &acc, st.n_recv, recv, (double)rs_schedule_step_reused_bytes(s, k));
                        double step_end = -1, next_start = -1;
                        for (size_t i = 0; i < rs_trace_count(t); i++) {
                            if (ev[i].rank == r && ev[i].step == k && ev[i].kind == RS_EV_COMPUTE) {
                                compared++;
                                /* the event starts after the merges before the calls (ringsim's grad_zero) */
                                bad += fabs((ev[i].end_s - ev[i].start_s) + acc.before_s - want) > 1e-12 * want;
                                bad += acc.before_s > 0 && (impl != RS_IMPL_RINGSIM || pass != RS_PASS_BACKWARD);
                            }
                            if (ev[i].rank == r && ev[i].kind == RS_EV_STEP && ev[i].step == k) step_end = ev[i].end_s;
                            if (ev[i].rank == r && ev[i].kind == RS_EV_STEP && ev[i].step == k + 1) next_start = ev[i].start_s;
                        }
                        rs_kstep_t ks; /* a per-step preset's step without a call forwards the partial as is */
                        rs_kernel_step(&km, &st, &ks);
                        const bool later_bwd = pass == RS_PASS_BACKWARD && k >= 1 && k < 5 &&
                                               (impl == RS_IMPL_RINGSIM || (impl != RS_IMPL_NONE && ks.n_calls > 0));
                        bad_gap += later_bwd != (acc.after_s > 0);
                        if (next_start >= 0) {
                            gaps++;
                            bad_gap += fabs(next_start - step_end - acc.after_s) > 1e-12 * next_start;
                        }
                    }
                }
                CU_ASSERT_EQUAL(bad, 0);
                CU_ASSERT_EQUAL(bad_gap, 0);
                CU_ASSERT_EQUAL(compared, 25); /* N = 5 ranks x 5 computing steps */
                CU_ASSERT_EQUAL(gaps, 5 * (rs_schedule_n_steps(s) - 1));
                rs_trace_free(t);
                rs_schedule_free(s);
            }
}

/* By hand: N = 2, contiguous, non-causal backward, ringsim preset, B = 2048, one head of d 128, no
 * launch or host cost, full overlap. Step k ends at max(c_k, L + bytes_k / W) (its flows share the
 * hop) and step 1 then adds the incoming partial: a = 12 e / merge bw (read 4 + 4, write 4 per element
 * of dK and dV, e = 2 B d elements); c_0 = c_1 = the full call + the partial's clearing (4 e / bw), the
 * tail computes nothing. Compute-bound (W = 100 GB/s) and transfer-bound (W = 0.1 GB/s), walk,
 * closed form and the trace's step 1: its event ends a before step 2 starts, and its compute event
 * starts after the clearing (4 e / bw: the executor's compute event is its kernel alone). */
static void test_after_arrival_by_hand(void) {
    const double ws[] = {100e9, 0.1e9};
    for (int i = 0; i < 4; i++) {
        rs_machine_t m = hand_machine(RS_IMPL_RINGSIM, 0);
        m.intra.bw_bytes_per_s = ws[i % 2];
        /* the clear (grad_zero) at the device memory's bandwidth when the profile has one (i >= 2: 4x
         * slower than the merges), else at the merge bandwidth */
        const double clear_bw = i >= 2 ? 2.5e11 : 1e12;
        m.mem_bw_bytes_per_s = i >= 2 ? 2.5e11 : 0;
        rs_problem_t p = prob(2, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_BACKWARD, false);
        rs_schedule_t *s = rs_schedule_create(&p, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        rs_kmodel_t km;
        rs_kmodel_init(&km, &p, &m);
        const double e = 2.0 * 2048 * 128, a = 12 * e / 1e12;
        const double c = 2048.0 * 2048 * 1280 / loglog(80e12, 160e12, 2048.0 * 2048) + 4 * e / clear_bw;
        double want = 0;
        for (int64_t k = 0; k < 3; k++) {
            uint64_t bytes[RS_MAX_TRANSFERS], tot = 0;
            const int nx = rs_schedule_step_xfers(s, k, bytes);
            for (int j = 0; j < nx; j++) tot += bytes[j];
            want += fmax(k < 2 ? c : 0, 2e-6 + (double)tot / ws[i % 2]) + (k == 1 ? a : 0);
        }
        rs_trace_t *t = rs_trace_create("model");
        rs_walk_t w;
        rs_closed_t cl;
        CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, rs_trace_sink(t), NULL, &w, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &cl, NULL), 0);
        RS_ASSERT_REL(w.makespan_s, want, 1e-12);
        RS_ASSERT_REL(cl.makespan_s, want, 1e-12);
        double end1 = -1, start2 = -1, start1 = -1, comp1 = -1;
        for (size_t j = 0; j < rs_trace_count(t); j++) {
            const rs_event_t *ev = &rs_trace_events(t)[j];
            if (ev->rank == 0 && ev->kind == RS_EV_STEP && ev->step == 1) end1 = ev->end_s, start1 = ev->start_s;
            if (ev->rank == 0 && ev->kind == RS_EV_STEP && ev->step == 2) start2 = ev->start_s;
            if (ev->rank == 0 && ev->kind == RS_EV_COMPUTE && ev->step == 1) comp1 = ev->start_s;
        }
        RS_ASSERT_REL(start2 - end1, a, 1e-9);
        RS_ASSERT_REL(comp1 - start1, 4 * e / clear_bw, 1e-9); /* the kernel starts after grad_zero */
        rs_trace_free(t);
        rs_schedule_free(s);
    }
}

/* Non-causal (balanced) rings: the closed form's makespan equals the walk's for every preset. */
static void test_closed_equals_walk(void) {
    const int64_t ns[] = {1, 2, 3, 8};
    const double ws[] = {1e9, 100e9, 1e13};
    for (int impl = 0; impl < RS_IMPL_COUNT; impl++)
        for (unsigned i = 0; i < 4; i++)
            for (unsigned j = 0; j < 3; j++)
                for (int l = 0; l < RS_LAYOUT_COUNT; l++)
                    for (int pass = 0; pass < 2; pass++) {
                        rs_machine_t m = hand_machine((rs_impl_t)impl, 1e-6);
                        m.intra.bw_bytes_per_s = m.inter.bw_bytes_per_s = ws[j];
                        rs_problem_t p = prob(ns[i], 2048, (rs_layout_t)l, (rs_pass_t)pass, false);
                        rs_schedule_t *s = rs_schedule_create(&p, NULL);
                        rs_closed_t c;
                        rs_walk_t w;
                        CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &c, NULL), 0);
                        CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, RS_NO_SINK, NULL, &w, NULL), 0);
                        RS_ASSERT_REL(w.makespan_s, c.makespan_s, 1e-12);
                        rs_schedule_free(s);
                    }
}

/* The closed form's schedule-free classes equal the schedule's, every layout, mask, N and tile. */
static void test_problem_classes(void) {
    const int64_t ns[] = {1, 2, 5, 8}, tiles[] = {1, 64, 128};
    for (unsigned i = 0; i < 4; i++)
        for (unsigned t = 0; t < 3; t++)
            for (int l = 0; l < RS_LAYOUT_COUNT; l++)
                for (int causal = 0; causal < 2; causal++) {
                    rs_problem_t p = prob(ns[i], 1000, (rs_layout_t)l, RS_PASS_BACKWARD, causal);
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
static void test_problem_class_kinds(void) {
    const int64_t ns[] = {1, 2, 5, 8}, tiles[] = {1, 64, 128}, bs[] = {2, 1000, 1};
    int bad = 0, seen = 0;
    for (unsigned i = 0; i < 4; i++)
        for (unsigned t = 0; t < 3; t++)
            for (int l = 0; l < RS_LAYOUT_COUNT; l++)
                for (int pass = 0; pass < 2; pass++)
                    for (int causal = 0; causal < 2; causal++) {
                        if (bs[t] == 1 && l == RS_LAYOUT_ZIGZAG) continue; /* zigzag needs B even */
                        rs_problem_t p = prob(ns[i], bs[t], (rs_layout_t)l, (rs_pass_t)pass, causal);
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

/* The slowest hop in O(1) equals the hop-by-hop minimum (the first on a tie): flat rings, nodes of 1,
 * 2, 3 and N, a faster, slower and equal inter tier, a degraded hop. */
static void test_slowest_hop(void) {
    const int64_t gs[] = {0, 1, 2, 3, 8};
    const double inter[] = {50e9, 100e9, 400e9};
    int bad = 0;
    for (int64_t n = 1; n <= 9; n++)
        for (unsigned g = 0; g < 5; g++)
            for (unsigned w = 0; w < 3; w++)
                for (int deg = 0; deg < 2; deg++) {
                    rs_machine_t m = rs_machine_figures("hops", RS_DTYPE_BF16, 1e15, (rs_tier_t){"intra", 100e9, 2e-6});
                    m.inter = (rs_tier_t){"inter", inter[w], 5e-6};
                    m.devices_per_node = gs[g];
                    if (deg && n > 1) m.perturb.n_degraded = 1, m.perturb.degraded_hop[0] = n - 1, m.perturb.degraded_factor[0] = 3;
                    double want_bw = INFINITY, want_lat = 0, bw, lat;
                    for (int64_t h = 0; h < n; h++)
                        if (rs_machine_hop_bw(&m, n, h) < want_bw) want_bw = rs_machine_hop_bw(&m, n, h), want_lat = rs_machine_hop_latency(&m, n, h);
                    rs_machine_slowest_hop(&m, n, &bw, &lat);
                    bad += bw != want_bw || lat != want_lat;
                }
    CU_ASSERT_EQUAL(bad, 0);
}

/* ------------------------------------------------------------------------------------------------
 * Honest bounds
 * ---------------------------------------------------------------------------------------------- */
/* One rate for every call shape (flat curves), no latency, no merge (ringsim forward): a causal zigzag
 * step computes half a full block, so its threshold B* is twice the contiguous layout's (whose last
 * rank computes full blocks); at B between the two, zigzag is transfer-bound and contiguous is not. */
static void test_bound_rule_half_block(void) {
    rs_machine_t m = hand_machine(RS_IMPL_RINGSIM, 0);
    for (int i = 0; i < m.kernels.n_curves; i++)
        for (int k = 0; k < 2; k++) m.kernels.curve[i].pt[k].flops_per_s = 100e12;
    reset_kernel(&m);
    m.intra.latency_s = m.inter.latency_s = 0;
    rs_closed_t cz, cc;
    rs_problem_t p = prob(8, 4096, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &m, &cz, NULL), 0);
    p.layout = RS_LAYOUT_CONTIGUOUS;
    CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &m, &cc, NULL), 0);
    /* contiguous: c_f B^2 / R = c_b B / W -> B = R c_b / (W c_f) = 100e12 x 512 / (100e9 x 512) = 1000
     * (c_b = 2 x 128 x 2 bytes per token, c_f = 512 FLOPs per pair): the last B below it is 999 */
    CU_ASSERT_EQUAL(cc.b_star_tokens, 999);
    CU_ASSERT_EQUAL(cz.b_star_tokens, 1998); /* even (zigzag), below 2000 */
    CU_ASSERT_FALSE(cz.comm_bound); CU_ASSERT_FALSE(cc.comm_bound); /* B = 4096 */
    p.seq_tokens = 8 * 1500; /* B = 1500: zigzag transfer-bound, contiguous not */
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &cc, NULL), 0);
    p.layout = RS_LAYOUT_ZIGZAG;
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &cz, NULL), 0);
    CU_ASSERT_FALSE(cc.comm_bound);
    CU_ASSERT_TRUE(cz.comm_bound);
    RS_ASSERT_REL(cz.t_comp_s, 2.0 * 750 * 750 * 512 / 100e12, 1e-14);
    RS_ASSERT_REL(cc.t_comp_s, 1500.0 * 1500 * 512 / 100e12, 1e-14);
    /* the dense model follows the same rule: at peak 100e12 the same thresholds, continuous */
    m.flops_per_s = 100e12;
    CU_ASSERT_EQUAL_FATAL(rs_machine_set_kernel(&m, RS_IMPL_NONE, 0, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &m, &cz, NULL), 0);
    RS_ASSERT_REL(cz.b_star_tokens, 2000, 1e-12);
    CU_ASSERT_TRUE(cz.comm_bound);
}

/* ------------------------------------------------------------------------------------------------
 * Shipped profiles
 * ---------------------------------------------------------------------------------------------- */
/* Every shipped point: a single call of that shape and mask takes useful FLOPs / the source's rate,
 * so FLOPs / time gives back the source's TFLOP/s. */
static void test_shipped_round_trip(void) {
    const char *const names[] = {"a100-sxm", "h100-sxm", "h200", "h800-sxm"};
    int points = 0;
    for (unsigned i = 0; i < 4; i++) {
        rs_hw_t hw;
        rs_err_t err = {0};
        CU_ASSERT_EQUAL_FATAL(rs_hw_load(names[i], &hw, &err), 0);
        CU_ASSERT_TRUE(hw.kernels.n_curves > 0);
        CU_ASSERT_EQUAL(rs_kernel_table_validate(&hw.kernels, &err), 0);
        for (int c = 0; c < hw.kernels.n_curves; c++) {
            const rs_kcurve_t *cv = &hw.kernels.curve[c];
            for (int k = 0; k < cv->n; k++) {
                const rs_kpoint_t *pt = &cv->pt[k];
                const double flops = 4.0 * 128 * 32 * pt->q_tokens * pt->k_tokens / (cv->mask == RS_KMASK_FULL ? 1 : 2);
                const double rate = rs_kcurve_rate(cv, pt->q_tokens, pt->k_tokens);
                CU_ASSERT_EQUAL(rate, pt->flops_per_s);
                RS_ASSERT_REL(flops / (flops / rate), pt->flops_per_s, 1e-15);
                points++;
            }
        }
    }
    CU_ASSERT(points > 100);
    /* one value from each source, as printed there */
    rs_hw_t hw;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h200", &hw, NULL), 0);
    int k = rs_kernel_find(&hw.kernels, "ringsim-mma");
    CU_ASSERT_TRUE_FATAL(k >= 0);
    bool seen = false;
    for (int c = 0; c < hw.kernels.n_curves; c++) {
        const rs_kcurve_t *cv = &hw.kernels.curve[c];
        if (cv->kernel == k && cv->pass == RS_PASS_BACKWARD && cv->mask == RS_KMASK_SHIFTED) {
            CU_ASSERT_EQUAL(rs_kcurve_rate(cv, 16384, 16384), 138.9e12); /* kernel-times.txt, striped */
            seen = true;
        }
    }
    CU_ASSERT_TRUE(seen);
    CU_ASSERT_EQUAL(hw.kernels.merge_bw_bytes_per_s, 4.117e12);
}

/* The h200 profile's ringsim-mma64 curves against their source file, row by row: every point is the
 * file's useful TFLOP/s for its (kernel row, q, k, mask) - forward rows fwd-v3 (mma64), backward rows
 * backward (mma) - and every square of the file is a point (rectangles: the full mask only); the
 * ringsim preset runs it. */
static void test_h200_mma64_source(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/gpu-runs/2026-11-30-h200-run2-kernel-times.txt", RS_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    rs_hw_t hw;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h200", &hw, NULL), 0);
    const int k = rs_kernel_find(&hw.kernels, "ringsim-mma64");
    CU_ASSERT_TRUE_FATAL(k >= 0);
    CU_ASSERT_EQUAL(hw.kernels.impl_kernel[RS_IMPL_RINGSIM], k + 1);
    char line[256], name[32], mask[32];
    int matched = 0, wanted = 0;
    while (fgets(line, sizeof line, f)) {
        long q, kk, b, hq, hk, d;
        double ms, useful;
        if (sscanf(line, "%31s %ld %ld %ld %ld %ld %ld %31s %lf %lf", name, &q, &kk, &b, &hq, &hk, &d, mask, &ms, &useful) != 10) continue;
        const int pass = !strcmp(name, "fwd-v3") ? RS_PASS_FORWARD : !strcmp(name, "backward") ? RS_PASS_BACKWARD : -1;
        const int km = !strcmp(mask, "full") ? RS_KMASK_FULL : !strcmp(mask, "causal") ? RS_KMASK_CAUSAL : RS_KMASK_SHIFTED;
        if (pass < 0 || (km != RS_KMASK_FULL && q != kk)) continue;
        wanted++;
        for (int c = 0; c < hw.kernels.n_curves; c++) {
            const rs_kcurve_t *cv = &hw.kernels.curve[c];
            if (cv->kernel != k || cv->pass != pass || cv->mask != (rs_kmask_t)km || cv->head_dim != 128) continue;
            for (int i = 0; i < cv->n; i++)
                if (cv->pt[i].q_tokens == q && cv->pt[i].k_tokens == kk) {
                    RS_ASSERT_REL(cv->pt[i].flops_per_s, useful * 1e12, 1e-15);
                    matched++;
                }
        }
    }
    fclose(f);
    CU_ASSERT_EQUAL(wanted, 2 * (10 + 6 + 6));
    CU_ASSERT_EQUAL(matched, wanted);
    int points = 0;
    for (int c = 0; c < hw.kernels.n_curves; c++) points += hw.kernels.curve[c].kernel == k ? hw.kernels.curve[c].n : 0;
    CU_ASSERT_EQUAL(points, wanted); /* nothing in the profile that the file does not have */
}

/* The profile's default preset and kernel make the machine; --impl-like selection by hand. */
static void test_machine_from_profile(void) {
    rs_hw_t hw;
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &hw, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    CU_ASSERT_EQUAL(m.impl, RS_IMPL_FLASH_ATTN);
    CU_ASSERT_STRING_EQUAL(m.kernels.kernel[m.kernel - 1].name, "flash-attn-2");
    CU_ASSERT_EQUAL(m.kernels.merge_bw_bytes_per_s, 3.35e12);
    CU_ASSERT_STRING_EQUAL(m.kernels.kernel[hw.kernels.impl_kernel[RS_IMPL_TE] - 1].name, "cudnn");
    CU_ASSERT_EQUAL(rs_impl_grad_bytes(RS_IMPL_TE, 2), 2);
    CU_ASSERT_EQUAL(rs_impl_grad_bytes(RS_IMPL_FLASH_ATTN, 2), 4);
    CU_ASSERT_EQUAL(rs_impl_grad_bytes(RS_IMPL_NONE, 2), 0);
    /* a profile without a kernels section: the dense peak model */
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("mi300x", &hw, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    CU_ASSERT_EQUAL(m.impl, RS_IMPL_NONE);
    CU_ASSERT_EQUAL(m.kernel, 0);
}

/* ------------------------------------------------------------------------------------------------
 * Bad input: file:line:column and the key
 * ---------------------------------------------------------------------------------------------- */
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

static void test_bad_profile_input(void) {
    expect_parse("full", "[[512, 512, 1e14], [1024, 1024, 2e14]]", "", NULL);
    expect_parse("full", "[[512, 512, 1e14]]", "",
                 "t.json:9:10: kernels.list[0].curves[0].points: needs 2 to 24 points [q_tokens, k_tokens, flops_per_s], got 1");
    expect_parse("full", "[[1024, 1024, 1e14], [512, 512, 2e14]]", "",
                 "t.json:9:42: kernels.list[0].curves[0].points[1][0]: points must be sorted by area q*k, then by q (strictly): "
                 "512x512 after 1024x1024");
    expect_parse("full", "[[512, 512, 1e14], [1024, 1024, 0]]", "",
                 "t.json:9:52: kernels.list[0].curves[0].points[1][2]: flops_per_s must be in [1, 1e+20], got 0");
    expect_parse("full", "[[512, 512, -1e14], [1024, 1024, 1e14]]", "",
                 "t.json:9:32: kernels.list[0].curves[0].points[0][2]: flops_per_s must be in [1, 1e+20], got -1e+14");
    expect_parse("diag", "[[512, 512, 1e14], [1024, 1024, 2e14]]", "",
                 "t.json:8:63: kernels.list[0].curves[0].mask: must be full, causal or shifted");
    expect_parse("full", "[[512, 512, 1e14], [1024, 1024, 2e14]]", ",\n    \"default_impl\": \"te\"",
                 "t.json:12:5: kernels.default_impl: te runs no kernel here (add it to kernels.impl_kernels)");
    expect_parse("full", "[[512, 512, 1e14], [1024, 1024, 2e14]]", ",\n    \"impl_kernels\": {\"te\": \"cudnn\"}",
                 "t.json:12:22: kernels.impl_kernels.te: no kernel named 'cudnn' in kernels.list");
    expect_parse("full", "[[512, 512, 1e14], [1024, 1024, 2e14]]", ",\n    \"merge_bw\": 1e12",
                 "t.json:12:5: kernels.merge_bw: unknown key (accepted: list, impl_kernels, default_impl, merge_bw_bytes_per_s, "
                 "source, description, note, <figure>_source)");
}

/* A profile with curves writes and reads back identically (calibrate writes one). */
static void test_write_round_trip(void) {
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
    CU_ASSERT_EQUAL(memcmp(&hw.kernels, &back.kernels, sizeof hw.kernels), 0);
    CU_ASSERT_EQUAL_FATAL(rs_hw_write_json(&back, path, "test note", &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_hw_load(path, &again, &err), 0);
    CU_ASSERT_EQUAL(memcmp(&again.kernels, &back.kernels, sizeof hw.kernels), 0);
    remove(path);
}

int main(void) {
    static const rs_test_case_t curves[] = {
        {"interpolation by hand (log-log in area, nearest aspect, clamped, exact at points)", test_curve_interpolation},
        {"fallbacks: nearest mask, other pass, nearest head_dim, no dtype", test_resolve_fallbacks},
        {NULL, NULL}};
    static const rs_test_case_t steps[] = {
        {"zigzag step = sum of its calls at their rates + merge bytes / bandwidth", test_zigzag_step_by_hand},
        {"striped: shifted-causal call (ringsim) or (B-1)^2 causal slices (flash-attn)", test_striped_shifted_by_hand},
        {"merge and accumulate bytes by hand (ringsim backward, flash-attn GQA)", test_merge_bytes_by_hand},
        {"TE: deferred corrections in the epilogue", test_te_epilogue},
        {NULL, NULL}};
    static const rs_test_case_t truth[] = {
        {"every (rank, step) costs its class", test_classes_equal_every_step},
        {"closed form's fast classes == the reference, bit for bit (every preset, layout, mask, pass, N, B)", test_classes_fast_equal_reference},
        {"walk compute == rs_kernel_step_s (every preset, layout, pass)", test_walk_equals_step_function},
        {"backward: the arrived partial's merges after compute and arrival, by hand", test_after_arrival_by_hand},
        {"closed form == walk (non-causal, every preset)", test_closed_equals_walk},
        {"schedule-free step classes == the schedule's", test_problem_classes},
        {"a class's block kinds without a schedule == the schedule's step", test_problem_class_kinds},
        {"the slowest hop in O(1) == hop by hop", test_slowest_hop},
        {"bound rule: a causal zigzag step is half a block, B* twice", test_bound_rule_half_block},
        {NULL, NULL}};
    static const rs_test_case_t profiles[] = {
        {"shipped curves round-trip their sources' TFLOP/s", test_shipped_round_trip},
        {"h200 ringsim-mma64 == docs/gpu-runs/2026-11-30-h200-run2-kernel-times.txt, point by point", test_h200_mma64_source},
        {"machine from a profile: default preset and kernel", test_machine_from_profile},
        {"bad kernels input: file:line:column and key", test_bad_profile_input},
        {"write and read back exactly", test_write_round_trip},
        {NULL, NULL}};
    static const rs_test_suite_t suites[] = {
        {"kernel curves", curves}, {"kernel steps", steps}, {"kernel one truth", truth}, {"kernel profiles", profiles}};
    return rs_test_main(suites, 4);
}
