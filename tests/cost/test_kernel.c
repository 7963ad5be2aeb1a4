/* test_kernel.c - what one ring step costs (kernel.c): a step's calls and merges by hand for every
 * preset and layout (zigzag, striped's shifted-causal calls, ringsim's backward and flash-attn's GQA
 * merge bytes, TE's deferred corrections), every (rank, step) costing its class, and the closed form's
 * fast classes equal to the reference bit for bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "machine.h"
#include "test_main.h"
#include "model_fixtures.h"

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

/* Zigzag, causal, forward, N = 4, B = 2048 (chunks C = 1024), 1 head of d 128, bf16; c_f = 512 FLOPs
 * per pair; Q row = 128 elements, 1 row-head. flash-attn preset, merges at 1 TB/s, launch 1 us. */
RS_TEST(test_zigzag_step_by_hand, "zigzag step = sum of its calls at their rates + merge bytes / bandwidth") {
    const double launch = 1e-6;
    rs_machine_t m = rs_test_kernel_machine(RS_IMPL_FLASH_ATTN, launch);
    m.host_call_s = 8e-6; /* the flash-attn preset's point figure (eager PyTorch) */
    rs_problem_t p = rs_test_kernel_problem(4, 2048, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    rs_kstep_t ks;
    /* step 0: one causal call on B x B (2 C(C+1)/2 + C^2 visible pairs), rate at area 4M = 2^22;
     * merge: out = block_out.to(fp32): 2 + 4 bytes per element */
    step_of(&p, &m, 2, 0, &ks);
    CU_ASSERT_EQUAL_FATAL(ks.n_calls, 1);
    CU_ASSERT_EQUAL(ks.call[0].mask, RS_KMASK_CAUSAL);
    CU_ASSERT_EQUAL(ks.call[0].q_tokens, 2048); CU_ASSERT_EQUAL(ks.call[0].k_tokens, 2048);
    const double f0 = (2.0 * 1024 * 1024 + 1024) * 512;
    RS_ASSERT_REL(ks.call[0].flops_useful, f0, 1e-15);
    RS_ASSERT_REL(ks.calls_s, f0 / rs_test_loglog(50e12, 150e12, 2048.0 * 2048), 1e-14);
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
    RS_ASSERT_REL(rs_test_loglog(100e12, 200e12, 2048.0 * 1024), r1, 1e-14);
    RS_ASSERT_REL(ks.calls_s, f1 / r1, 1e-14);
    RS_ASSERT_REL(ks.merge_bytes, 2048.0 * (128 * 38 + 52), 1e-15);
    CU_ASSERT_EQUAL(ks.launches, 10);
    /* the device's time = the sum of its calls at their rates + merge bytes / bandwidth + launches; the
     * step's: the larger of it and the host's, (10 launches + 15 host-only calls) x 8 us (docs/model.md
     * 3b), host-bound here */
    rs_kmodel_t km;
    rs_kmodel_init(&km, &p, &m);
    const double dev = 10 * launch + f1 / r1 + 2048.0 * 4916 / 1e12;
    CU_ASSERT_EQUAL(ks.host_calls, 15);
    CU_ASSERT_EQUAL(ks.syncs, 0);
    CU_ASSERT(dev < 25 * 8e-6);
    RS_ASSERT_REL(rs_kernel_rank_step_s(&km, &(rs_step_t){.rank = 3, .step = 1}, &ks, 0, 0, 0), 25 * 8e-6, 1e-14);
    km.call_s = 0; /* without the host: the device's */
    RS_ASSERT_REL(rs_kernel_rank_step_s(&km, &(rs_step_t){.rank = 3, .step = 1}, &ks, 0, 0, 0), dev, 1e-14);
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
RS_TEST(test_striped_shifted_by_hand, "striped: shifted-causal call (ringsim) or (B-1)^2 causal slices (flash-attn)") {
    rs_problem_t p = rs_test_kernel_problem(4, 2048, RS_LAYOUT_STRIPED, RS_PASS_FORWARD, true);
    const double f = 2048.0 * 2047 / 2 * 512;
    rs_kstep_t ks;
    rs_machine_t m = rs_test_kernel_machine(RS_IMPL_RINGSIM, 0);
    step_of(&p, &m, 0, 1, &ks);
    CU_ASSERT_EQUAL_FATAL(ks.n_calls, 1);
    CU_ASSERT_EQUAL(ks.call[0].mask, RS_KMASK_SHIFTED);
    RS_ASSERT_REL(ks.calls_s, f / rs_test_loglog(40e12, 140e12, 2048.0 * 2048), 1e-14);
    CU_ASSERT_EQUAL(ks.merge_bytes, 0); /* ringsim merges inside its kernel */
    CU_ASSERT_EQUAL(ks.launches, 1);
    m = rs_test_kernel_machine(RS_IMPL_FLASH_ATTN, 0);
    step_of(&p, &m, 0, 1, &ks);
    CU_ASSERT_EQUAL(ks.call[0].mask, RS_KMASK_CAUSAL);
    CU_ASSERT_EQUAL(ks.call[0].q_tokens, 2047); CU_ASSERT_EQUAL(ks.call[0].k_tokens, 2047);
    RS_ASSERT_REL(ks.calls_s, f / rs_test_loglog(50e12, 150e12, 2047.0 * 2047), 1e-14);
    RS_ASSERT_REL(ks.merge_bytes, 2047.0 * (128 * 38 + 52) + 2047.0 * (128 * 8 + 8), 1e-15);
    /* the owner before the rank: a causal B x B call, B (B + 1) / 2 pairs, no slice */
    step_of(&p, &m, 3, 1, &ks);
    CU_ASSERT_EQUAL(ks.call[0].mask, RS_KMASK_CAUSAL);
    RS_ASSERT_REL(ks.calls_s, 2048.0 * 2049 / 2 * 512 / rs_test_loglog(50e12, 150e12, 2048.0 * 2048), 1e-14);
    RS_ASSERT_REL(ks.merge_bytes, 2048.0 * (128 * 38 + 52), 1e-15);
}

/* Merge cost = bytes / bandwidth: ringsim's backward clears the fp32 dK,dV partial every step (4 bytes
 * per element of dK and dV, in the compute) and adds the incoming one from step 1 (4 + 4 + 4, after
 * its arrival: after_bytes); contiguous with the owner after the rank computes nothing but still does
 * both. The fused launch costs each block. */
RS_TEST(test_merge_bytes_by_hand, "merge and accumulate bytes by hand (ringsim backward, flash-attn GQA)") {
    rs_machine_t m = rs_test_kernel_machine(RS_IMPL_RINGSIM, 0);
    rs_problem_t p = rs_test_kernel_problem(4, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_BACKWARD, true);
    const double e = 2.0 * 2048 * 128; /* elements of dK and dV */
    rs_kstep_t ks;
    step_of(&p, &m, 1, 0, &ks); /* own block: causal B x B at the backward's full curve (fallback) */
    RS_ASSERT_REL(ks.merge_bytes, 4 * e, 1e-15);
    RS_ASSERT_REL(ks.scaled_s, 2048.0 * 2049 / 2 * 1280 / rs_test_loglog(80e12, 160e12, 2048.0 * 2048) + 4 * e / 1e12, 1e-14);
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
    m = rs_test_kernel_machine(RS_IMPL_FLASH_ATTN, 0);
    m.kernels.kernel[0].gqa_expand_bwd = true;
    p.q_heads = 4;
    step_of(&p, &m, 3, 1, &ks); /* owner 2 before rank 3: full B x B */
    RS_ASSERT_REL(ks.merge_bytes, 2048.0 * 512 * 10 + 2 * 2048.0 * 128 * 2 * 5, 1e-15);
    RS_ASSERT_REL(ks.after_bytes, 2 * 2048.0 * 128 * 10, 1e-15);
    CU_ASSERT_EQUAL(ks.launches, 3 + 3 + 2); /* FlashAttention-2's backward call is 3 kernels, the 3 adds, the group sum's 2 */
    step_of(&p, &m, 3, 0, &ks); /* step 0: dk = block_dk.to(fp32) in the compute, nothing arrives */
    CU_ASSERT_EQUAL(ks.after_bytes, 0);
}

/* TE defers its forward output corrections to after the loop: rank r's epilogue is its step 0's plus
 * r steps with the owner before it plus N-1-r after it; the classes give the same as summing the
 * rank's own steps. */
RS_TEST(test_te_epilogue, "TE: deferred corrections in the epilogue") {
    rs_machine_t m = rs_test_kernel_machine(RS_IMPL_TE, 0);
    rs_problem_t p = rs_test_kernel_problem(4, 2048, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
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
        int el, ec;
        rs_kernel_classes_epilogue(&km, &kc, r, &es, &el, &ec);
        RS_ASSERT_REL(es, sum, 1e-15);
        CU_ASSERT_EQUAL(el, 4 * 2);
    }
    /* by hand: step 0 2 x 2 bytes per element, 4 x 4 per row-head (B rows); later 3 x 2 and 5 x 4 */
    RS_ASSERT_REL(kc.cls[1].deferred_s, 2048.0 * (128 * 4 + 16) / 1e12, 1e-15);
    RS_ASSERT_REL(kc.cls[0].deferred_s, 2048.0 * (128 * 6 + 20) / 1e12, 1e-15);
    RS_ASSERT_REL(kc.cls[2].deferred_s, 1024.0 * (128 * 6 + 20) / 1e12, 1e-15);
    rs_schedule_free(s);
}

/* Every (rank, step) costs what its class does, for every preset, layout, pass, mask and N. */
RS_TEST(test_classes_equal_every_step, "every (rank, step) costs its class") {
    const int64_t ns[] = {1, 2, 3, 5}, bs[] = {1, 2, 256};
    for (int impl = 0; impl < RS_IMPL_COUNT; impl++)
        for (unsigned i = 0; i < 12; i++)
            for (int l = 0; l < RS_LAYOUT_COUNT; l++)
                for (int pass = 0; pass < 2; pass++)
                    for (int causal = 0; causal < 2; causal++) {
                        if (bs[i / 4] == 1 && l == RS_LAYOUT_ZIGZAG) continue; /* zigzag needs B even */
                        rs_machine_t m = rs_test_kernel_machine((rs_impl_t)impl, 1e-6);
                        rs_problem_t p = rs_test_kernel_problem(ns[i % 4], bs[i / 4], (rs_layout_t)l, (rs_pass_t)pass, causal);
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
RS_TEST(test_classes_fast_equal_reference,
        "closed form's fast classes == the reference, bit for bit (every preset, layout, mask, pass, N, B)") {
    const int64_t ns[] = {1, 2, 5}, bs[] = {1, 2, 3, 4, 6, 10, 130, 1000, 4096, 1 << 20};
    rs_hw_t hw;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h200", &hw, NULL), 0);
    int checked = 0;
    for (int impl = RS_IMPL_RINGSIM; impl < RS_IMPL_COUNT; impl++)
        for (int mach = 0; mach < 2; mach++) {
            rs_machine_t m = rs_test_kernel_machine((rs_impl_t)impl, 1e-6);
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
                            rs_problem_t p = rs_test_kernel_problem(n, b, (rs_layout_t)l, (rs_pass_t)pass, causal);
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

/* The A100's flash-attn-2 curves are measured at head_dim 128 only: a head_dim-32 call is rated at the
 * d-128 curve plus the exponential term (kernel_table.h rs_kcurve_rate_dim, by hand in test_kernel_table.c)
 * at the profile's device.exp_per_s (16 a clock x 108 SMs x 1.41 GHz), and the notes say so; at --bound fast the
 * exponentials are hidden (the d-128 rate), at slow they are not (the point's rate); without the
 * figure the d-128 rate stands and the notes call it an upper bound. */
RS_TEST(test_head_dim_exp_term, "a call below the curves' head_dim: the d-128 rate plus the exponential term, said in the notes") {
    const rs_hw_t hw = rs_test_hw("a100-sxm");
    CU_ASSERT_EQUAL(hw.exp_per_s, 2.43648e12);
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_set_kernel(&m, RS_IMPL_FLASH_ATTN, hw.kernels.impl_kernel[RS_IMPL_FLASH_ATTN], NULL), 0);
    rs_problem_t p = rs_test_kernel_problem(1, 4096, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    p.q_heads = p.kv_heads = 64, p.head_dim = 32;
    rs_kmodel_t km;
    rs_kmodel_init(&km, &p, &m);
    const rs_kcurve_t *cv = km.curve[RS_PASS_FORWARD][RS_KMASK_FULL];
    CU_ASSERT_EQUAL_FATAL(cv->head_dim, 128);
    const double full = rs_kcurve_rate(cv, 4096, 4096), per_flop = (1.0 / 128 - 1.0 / 512) / 2.43648e12;
    const double util = km.slots[RS_KMASK_FULL] > 0 ? rs_kwave_util(rs_kcurve_ctas(cv, 4096, 4096, 1, 64, 64), km.slots[RS_KMASK_FULL]) : 1;
    RS_ASSERT_REL(rs_kernel_local_rate(&km), util / (1.0 / full + per_flop), 1e-12);
    char notes[2048];
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_machine_kernel_notes(&m, 32, notes, sizeof notes),
                                  "calls at head_dim 32 add one exponential per score at the device's 2.436e+12 per s (CUDA C++"));
    CU_ASSERT_PTR_NULL(strstr(rs_machine_kernel_notes(&m, 128, notes, sizeof notes), "exponential")); /* its own head_dim */
    rs_machine_set_bound(&m, RS_BOUND_FAST); /* the fast end: the exponentials hidden behind the matmuls */
    rs_kmodel_init(&km, &p, &m);
    RS_ASSERT_REL(rs_kernel_local_rate(&km), util * full, 1e-12);
    rs_machine_set_bound(&m, RS_BOUND_SLOW); /* the slow end: not hidden, as at the point */
    rs_kmodel_init(&km, &p, &m);
    RS_ASSERT_REL(rs_kernel_local_rate(&km), util / (1.0 / full + per_flop), 1e-12);
    m.exp_per_s = 0;
    rs_machine_set_bound(&m, RS_BOUND_POINT);
    rs_kmodel_init(&km, &p, &m);
    RS_ASSERT_REL(rs_kernel_local_rate(&km), util * full, 1e-12);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_machine_kernel_notes(&m, 32, notes, sizeof notes), "an upper bound"));
}

RS_TEST_PROGRAM("kernel")
