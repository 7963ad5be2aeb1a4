/* test_budget.c - a budget of devices (budget.c): the TP x CP x DP splits and the Ring / Ulysses / USP
 * splits of each counted by hand, every configuration the one step cost of plan.c, the ranking by time
 * and by cost, and why each loses; for serving, the TP x CP splits and variants counted by hand, one
 * TTFT derived by hand, every entry the inference planner's own point, the ranking by TTFT, cost per
 * prefill and decode step, and what does not fit. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "budget_serve.h"
#include "test_main.h"
#include "model_fixtures.h"

static rs_hw_t round_hw(double price) {
    rs_hw_t hw = {.name = "round", .mem_bytes = 80e9, .mem_bw_bytes_per_s = 4e12, .price_per_device_hour = price};
    hw.flops_per_s[RS_DTYPE_BF16] = 1e15, hw.flops_per_s[RS_DTYPE_FP8] = 2e15;
    return hw;
}

static rs_plan_config_t config(int64_t global_batch) {
    rs_plan_config_t c;
    rs_plan_config_default(&c);
    c.model = rs_test_transformer("llama3-8b");
    c.seq_tokens = 1 << 17, c.global_batch = global_batch, c.layout = RS_LAYOUT_CONTIGUOUS;
    c.linear_eff = 0.7;
    return c;
}

/* 16 devices, nodes of 8, llama3-8b (32 query, 8 KV heads), global batch 2, one layout: TP 1, 2, 4, 8
 * (each divides G and the heads) x DP 1, 2 leave CP 16, 8 | 8, 4 | 4, 2 | 2, 1; the CP ranks split into
 * U x R with U dividing the Hkv / TP KV heads of a device: U in {1, 2, 4, 8} at TP 1 (4 + 4), {1, 2, 4}
 * at TP 2 (3 + 3), {1, 2} at TP 4 (2 + 2), {1} at TP 8 (1 + 1, the last one a single CP rank): 20. */
RS_TEST(test_budget_splits, "the budget's configurations counted by hand, each the plan's own option") {
    rs_plan_config_t c = config(2);
    const rs_hw_t hw = round_hw(3.6);
    const rs_machine_t m = rs_test_round_machine();
    const rs_layout_t layouts[] = {RS_LAYOUT_CONTIGUOUS};
    rs_budget_t b = {0};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_budget_add(&b, 0, &c, &hw, &m, 16, layouts, 1, &err), 0);
    CU_ASSERT_EQUAL(b.n, 20);
    int per_tp[9] = {0};
    for (int i = 0; i < b.n; i++) {
        const rs_plan_option_t *o = &b.e[i].opt;
        CU_ASSERT_EQUAL(o->tp * o->ulysses * o->ring * o->dp, 16);
        CU_ASSERT_EQUAL((8 / o->tp) % o->ulysses == 0 || o->ulysses == 1, true);
        if (o->tp >= 1 && o->tp <= 8) per_tp[o->tp]++;
    }
    CU_ASSERT_EQUAL(per_tp[1], 8);
    CU_ASSERT_EQUAL(per_tp[2], 6);
    CU_ASSERT_EQUAL(per_tp[4], 4);
    CU_ASSERT_EQUAL(per_tp[8], 2);
    /* one of them against rs_plan_option called directly: TP 2, DP 1, CP 8 as USP 2 x 4 */
    rs_plan_config_t cc = c;
    cc.tp = 2, cc.dp = 1, cc.fixed_sp = 8;
    rs_plan_option_t want;
    CU_ASSERT_EQUAL_FATAL(rs_plan_option(&cc, &hw, &m, &(rs_plan_split_t){c.seq_tokens, 2, 4}, &want, &err), 0);
    int found = 0;
    for (int i = 0; i < b.n; i++) {
        const rs_plan_option_t *o = &b.e[i].opt;
        if (o->tp == 2 && o->dp == 1 && o->ulysses == 2 && o->ring == 4) {
            found++;
            RS_ASSERT_REL(o->t_step_s, want.t_step_s, 1e-15);
            RS_ASSERT_REL(o->mem_bytes, want.mem_bytes, 1e-15);
        }
    }
    CU_ASSERT_EQUAL(found, 1);
    rs_budget_free(&b);
    /* 12 devices: TP 1, 2, 4 divide it, but no CP of 12, 6 or 3 ranks divides S = 2^17 */
    b = (rs_budget_t){0};
    CU_ASSERT_EQUAL_FATAL(rs_budget_add(&b, 0, &c, &hw, &m, 12, layouts, 1, &err), 0);
    int tp8 = 0;
    for (int i = 0; i < b.n; i++) tp8 += b.e[i].opt.tp == 8;
    CU_ASSERT_EQUAL(tp8, 0); /* 8 does not divide 12 */
    rs_budget_free(&b);
}

/* Ranked by time, then by cost: candidate 1 has twice the rates at 3x the price, so it is faster
 * (at most 2x) and dearer per step (3 x its time). The losers' phrases quote the ratios. */
RS_TEST(test_budget_rank, "ranked by step time and by cost per step, and why each loses") {
    rs_plan_config_t c = config(1);
    const rs_layout_t layouts[] = {RS_LAYOUT_CONTIGUOUS};
    rs_hw_t slow = round_hw(1.0), fast = round_hw(3.0);
    fast.flops_per_s[RS_DTYPE_BF16] *= 2, fast.flops_per_s[RS_DTYPE_FP8] *= 2, fast.mem_bw_bytes_per_s *= 2;
    const rs_machine_t ms = rs_test_round_machine();
    rs_machine_t mf = ms;
    mf.flops_per_s *= 2;
    rs_budget_t b = {0};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_budget_add(&b, 0, &c, &slow, &ms, 8, layouts, 1, &err), 0);
    const int n0 = b.n;
    CU_ASSERT_EQUAL_FATAL(rs_budget_add(&b, 1, &c, &fast, &mf, 8, layouts, 1, &err), 0);
    CU_ASSERT_EQUAL(b.n, 2 * n0);
    rs_budget_sort(&b, false);
    CU_ASSERT_EQUAL(b.e[0].cand, 1);
    for (int i = 1; i < b.n; i++) CU_ASSERT(b.e[i].opt.t_step_s >= b.e[i - 1].opt.t_step_s);
    char why[256], want[64];
    CU_ASSERT_STRING_EQUAL(rs_budget_loses(&b, &b.e[0], false, why, sizeof why), "-");
    rs_budget_loses(&b, &b.e[1], false, why, sizeof why);
    snprintf(want, sizeof want, "%+.1f%%", 100.0 * (b.e[1].opt.t_step_s / b.e[0].opt.t_step_s - 1));
    CU_ASSERT_EQUAL(strncmp(why, want, strlen(want)), 0);
    rs_budget_sort(&b, true);
    CU_ASSERT_EQUAL(b.e[0].cand, 0);
    for (int i = 1; i < b.n; i++) CU_ASSERT(b.e[i].opt.cost_per_step >= b.e[i - 1].opt.cost_per_step);
    /* cost per step = devices x price x step / 3600 */
    RS_ASSERT_REL(b.e[0].opt.cost_per_step, 8 * 1.0 * b.e[0].opt.t_step_s / 3600, 1e-12);
    const rs_budget_entry_t *f = NULL;
    for (int i = 0; i < b.n && !f; i++)
        if (b.e[i].cand == 1) f = &b.e[i];
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    rs_budget_loses(&b, f, true, why, sizeof why);
    snprintf(want, sizeof want, "%+.1f%% cost per step (step %+.1f%%)", 100.0 * (f->opt.cost_per_step / b.e[0].opt.cost_per_step - 1),
             100.0 * (f->opt.t_step_s / b.e[0].opt.t_step_s - 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, want));
    CU_ASSERT(f->opt.t_step_s < b.e[0].opt.t_step_s); /* faster, and still dearer */
    rs_budget_free(&b);
}

/* A device too small for some splits: those rank last, and say by how much they miss. */
RS_TEST(test_budget_does_not_fit, "what does not fit ranks last and says by how much") {
    rs_plan_config_t c = config(1);
    c.usable_frac = 1;
    const rs_layout_t layouts[] = {RS_LAYOUT_CONTIGUOUS};
    rs_hw_t hw = round_hw(1.0);
    const rs_machine_t m = rs_test_round_machine();
    rs_budget_t b = {0};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_budget_add(&b, 0, &c, &hw, &m, 16, layouts, 1, &err), 0);
    /* the device's memory between the smallest and the largest need: some fit, some do not */
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < b.n; i++) lo = fmin(lo, b.e[i].opt.mem_bytes), hi = fmax(hi, b.e[i].opt.mem_bytes);
    CU_ASSERT_FATAL(hi > lo);
    hw.mem_bytes = (lo + hi) / 2;
    rs_budget_free(&b);
    b = (rs_budget_t){0};
    CU_ASSERT_EQUAL_FATAL(rs_budget_add(&b, 0, &c, &hw, &m, 16, layouts, 1, &err), 0);
    int n_fit = 0;
    for (int i = 0; i < b.n; i++) n_fit += b.e[i].opt.fits;
    CU_ASSERT_EQUAL(b.n_fit, n_fit);
    CU_ASSERT(n_fit > 0 && n_fit < b.n);
    rs_budget_sort(&b, false);
    for (int i = 0; i < b.n; i++) CU_ASSERT_EQUAL(b.e[i].opt.fits, i < n_fit);
    const rs_plan_option_t *x = &b.e[n_fit].opt;
    CU_ASSERT(x->mem_bytes > hw.mem_bytes);
    char why[256], want[128];
    snprintf(want, sizeof want, "does not fit: %.1f GiB > %.1f GiB usable", x->mem_bytes / 1073741824.0, hw.mem_bytes / 1073741824.0);
    CU_ASSERT_STRING_EQUAL(rs_budget_loses(&b, &b.e[n_fit], false, why, sizeof why), want);
    rs_budget_free(&b);
}

/* ---------------------------------------------------------------------------------------------------
 * Serving: plan --inference --gpus
 * ------------------------------------------------------------------------------------------------- */
/* The tiny model on 4-device nodes (model_fixtures.h): T = 1024 on P = 2048, full attention,
 * contiguous, GEMMs at 0.5 and attention at 0.25 of peak, half the memory usable. */
static rs_infer_config_t serve_config(void) {
    rs_infer_config_t c;
    rs_infer_config_default(&c);
    c.model = rs_test_infer_tiny();
    c.new_tokens = 1024, c.cached_tokens = 2048, c.causal = false, c.layout = RS_LAYOUT_CONTIGUOUS;
    c.linear_eff = 0.5, c.attn_eff = 0.25, c.usable_frac = 0.5, c.tile = 8;
    return c;
}

static const rs_budget_serve_t *find_serve(const rs_budget_serving_t *b, int cand, int64_t tp, rs_infer_kind_t kind) {
    for (int i = 0; i < b->n; i++)
        if (b->e[i].cand == cand && b->e[i].tp == tp && b->e[i].kind == kind) return &b->e[i];
    return NULL;
}

/* 8 devices on nodes of 4: 2 nodes, TP 1, 2, 4 (each divides the node and the 8/4 heads), CP 8, 4, 2.
 * TP 1: Hkv 4 a device, Ulysses over 8 impossible, USP 2 x 4 or 4 x 2: pass-kv, pass-q, usp (3);
 * TP 2: Hkv 2, Ulysses over 4 impossible, USP 2 x 2: 3; TP 4: Hkv 1, no Ulysses, no USP (2 CP ranks): 2.
 * TP 2's pass-kv by hand (the point of test_infer.c's test_point_by_hand): per layer the linear layers
 * 2 x 36864 x 256 / TP 2 FLOPs at 0.5 x 1e12 plus 256 tokens' 1856 elementwise bytes at 1e11 B/s, the
 * all-reduces 4 (1e-6 + 32768 / 2e10), the attention 4 steps of 4 x 8 x 4 x 256 x 768 / 2.5e11 (hidden);
 * TTFT = 2 layers x their sum + the LM head 6628 / 1e11. */
RS_TEST(test_serve_splits, "the serving budget's splits counted by hand; one TTFT derived by hand; cost per prefill") {
    rs_hw_t hw = rs_test_infer_hw(2e-6);
    hw.price_per_device_hour = 3.6;
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    const rs_infer_config_t c = serve_config();
    const rs_layout_t layouts[] = {RS_LAYOUT_CONTIGUOUS};
    rs_budget_serving_t b = {0};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_budget_serve_add(&b, &(rs_budget_cand_t){0, &hw, &m}, &c, &(rs_budget_ask_t){8, layouts, 1}, &err), 0);
    CU_ASSERT_EQUAL(b.n, 8);
    int per_tp[5] = {0};
    for (int i = 0; i < b.n; i++) {
        CU_ASSERT_EQUAL(b.e[i].tp * b.e[i].cp, 8);
        CU_ASSERT_EQUAL(b.e[i].nodes, 2);
        CU_ASSERT_EQUAL(b.e[i].ulysses * b.e[i].ring, b.e[i].cp);
        if (b.e[i].tp <= 4) per_tp[b.e[i].tp]++;
    }
    CU_ASSERT_EQUAL(per_tp[1], 3);
    CU_ASSERT_EQUAL(per_tp[2], 3);
    CU_ASSERT_EQUAL(per_tp[4], 2);
    CU_ASSERT_PTR_NULL(find_serve(&b, 0, 1, RS_INFER_ULYSSES));
    const rs_budget_serve_t *o = find_serve(&b, 0, 2, RS_INFER_PASS_KV);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(o->cp, 4);
    const double lin = 9437184.0 / 5e11 + 256 * 1856.0 / 1e11, ar = 4 * (1e-6 + 32768.0 / 2e10), attn = 4 * (25165824.0 / 2.5e11);
    const double head = 6628.0 / 1e11, ttft = 2 * (lin + ar + attn) + head;
    RS_ASSERT_REL(o->ttft_s, ttft, 1e-12);
    RS_ASSERT_REL(o->linear_s, 2 * lin + head, 1e-12);
    RS_ASSERT_REL(o->allreduce_s, 2 * ar, 1e-12);
    RS_ASSERT_REL(o->attn_s + o->a2a_s, 2 * attn, 1e-12);
    CU_ASSERT(o->hidden);
    RS_ASSERT_REL(o->cost_per_prefill, ttft * 8 * 3.6 / 3600, 1e-12); /* TTFT x devices x price per device-hour */
    /* memory is the split's: weights 86848 x 2 / TP 2, the KV cache 2 x 768 x 2 x 2 x 8 x 2 */
    RS_ASSERT_REL(o->weight_bytes, 86848.0, 1e-15);
    RS_ASSERT_REL(o->kv_cache_bytes, 98304.0, 1e-15);
    RS_ASSERT_REL(o->usable_bytes, 5e9, 1e-15);
    /* every entry the inference planner's own point: TP 4 on 2 nodes, pass-q */
    rs_infer_config_t cc = c;
    cc.tp = 4, cc.nodes = 2;
    rs_infer_point_t pt;
    CU_ASSERT_EQUAL_FATAL(rs_infer_point(&cc, &hw, &m, &pt, &err), 0);
    o = find_serve(&b, 0, 4, RS_INFER_PASS_Q);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    RS_ASSERT_REL(o->ttft_s, pt.opt[RS_INFER_PASS_Q].ttft_s, 1e-15);
    RS_ASSERT_REL(o->linear_s + o->attn_s + o->a2a_s + o->allreduce_s, o->ttft_s, 1e-12);
    rs_budget_serve_free(&b);
    /* two layouts: each ring variant twice, Ulysses (no ring) once */
    const rs_layout_t two[] = {RS_LAYOUT_CONTIGUOUS, RS_LAYOUT_ZIGZAG};
    CU_ASSERT_EQUAL_FATAL(rs_budget_serve_add(&b, &(rs_budget_cand_t){0, &hw, &m}, &c, &(rs_budget_ask_t){8, two, 2}, &err), 0);
    CU_ASSERT_EQUAL(b.n, 16);
    rs_budget_serve_free(&b);
    /* a budget below a node: one node of its devices (TP 1, 2), CP 2 and 1 */
    CU_ASSERT_EQUAL_FATAL(rs_budget_serve_add(&b, &(rs_budget_cand_t){0, &hw, &m}, &c, &(rs_budget_ask_t){2, layouts, 1}, &err), 0);
    for (int i = 0; i < b.n; i++) CU_ASSERT(b.e[i].nodes == 1 && b.e[i].tp * b.e[i].cp == 2);
    CU_ASSERT_PTR_NOT_NULL(find_serve(&b, 0, 2, RS_INFER_PASS_KV));
    rs_budget_serve_free(&b);
}

RS_TEST(test_serve_bad, "a serving budget refuses G below 1, part of a node above one, a TP the heads refuse") {
    const rs_hw_t hw = rs_test_infer_hw(2e-6);
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    rs_infer_config_t c = serve_config();
    const rs_layout_t layouts[] = {RS_LAYOUT_CONTIGUOUS};
    rs_budget_serving_t b = {0};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_budget_serve_add(&b, &(rs_budget_cand_t){0, &hw, &m}, &c, &(rs_budget_ask_t){6, layouts, 1}, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_STRING_EQUAL(err.msg, "--gpus 6: above one node it must be whole nodes of 4 devices (a multiple of 4)");
    CU_ASSERT_EQUAL(rs_budget_serve_add(&b, &(rs_budget_cand_t){0, &hw, &m}, &c, &(rs_budget_ask_t){0, layouts, 1}, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--gpus 0: must be >= 1");
    c.tp = 3;
    CU_ASSERT_EQUAL(rs_budget_serve_add(&b, &(rs_budget_cand_t){0, &hw, &m}, &c, &(rs_budget_ask_t){8, layouts, 1}, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no TP inside a node of 4 devices"));
    /* T = 1001 splits over no CP of 8, 4 or 2 ranks: the first reason */
    c = serve_config();
    c.new_tokens = 1001, c.cached_tokens = 0;
    CU_ASSERT_EQUAL(rs_budget_serve_add(&b, &(rs_budget_cand_t){0, &hw, &m}, &c, &(rs_budget_ask_t){8, layouts, 1}, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--gpus 8: no TP x CP split of it runs on hand: "));
    CU_ASSERT_EQUAL(b.n, 0);
    rs_budget_serve_free(&b);
}

/* Ranked by TTFT, by cost, by decode: candidate 1 has twice the compute at 3x the price, so it is
 * faster and dearer per prefill (3 x its devices' hours over at most 2x less time). */
RS_TEST(test_serve_rank, "ranked by TTFT, by cost per prefill and by decode step, and why each loses") {
    rs_hw_t slow = rs_test_infer_hw(2e-6), fast = slow;
    slow.price_per_device_hour = 1, fast.price_per_device_hour = 3;
    fast.flops_per_s[RS_DTYPE_BF16] *= 2, fast.flops_per_s[RS_DTYPE_FP8] *= 2;
    rs_machine_t ms, mf;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&slow, RS_DTYPE_BF16, &ms, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&fast, RS_DTYPE_BF16, &mf, NULL), 0);
    rs_infer_config_t c = serve_config();
    c.causal = true, c.decode_batch = 4;
    const rs_layout_t layouts[] = {RS_LAYOUT_CONTIGUOUS, RS_LAYOUT_ZIGZAG};
    const rs_budget_ask_t ask = {8, layouts, 2};
    rs_budget_serving_t b = {0};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_budget_serve_add(&b, &(rs_budget_cand_t){0, &slow, &ms}, &c, &ask, &err), 0);
    const int n0 = b.n;
    CU_ASSERT_EQUAL_FATAL(rs_budget_serve_add(&b, &(rs_budget_cand_t){1, &fast, &mf}, &c, &ask, &err), 0);
    CU_ASSERT_EQUAL(b.n, 2 * n0);
    CU_ASSERT_EQUAL(b.n_fit, b.n);
    rs_budget_serve_sort(&b, RS_BUDGET_BY_TTFT);
    CU_ASSERT_EQUAL(b.e[0].cand, 1);
    for (int i = 1; i < b.n; i++) CU_ASSERT(b.e[i].ttft_s >= b.e[i - 1].ttft_s);
    char why[512], want[96];
    CU_ASSERT_STRING_EQUAL(rs_budget_serve_loses(&b, &b.e[0], RS_BUDGET_BY_TTFT, why, sizeof why), "-");
    const rs_budget_serve_t *last = &b.e[b.n - 1];
    rs_budget_serve_loses(&b, last, RS_BUDGET_BY_TTFT, why, sizeof why);
    snprintf(want, sizeof want, "%+.1f%%: ", 100.0 * (last->ttft_s / b.e[0].ttft_s - 1));
    CU_ASSERT_EQUAL(strncmp(why, want, strlen(want)), 0);
    rs_budget_serve_sort(&b, RS_BUDGET_BY_COST);
    CU_ASSERT_EQUAL(b.e[0].cand, 0);
    for (int i = 1; i < b.n; i++) CU_ASSERT(b.e[i].cost_per_prefill >= b.e[i - 1].cost_per_prefill);
    const rs_budget_serve_t *f = NULL;
    for (int i = 0; i < b.n && !f; i++)
        if (b.e[i].cand == 1) f = &b.e[i];
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT(f->ttft_s < b.e[0].ttft_s); /* faster, and still dearer */
    rs_budget_serve_loses(&b, f, RS_BUDGET_BY_COST, why, sizeof why);
    snprintf(want, sizeof want, "%+.1f%% cost per prefill (TTFT %+.1f%%); ", 100.0 * (f->cost_per_prefill / b.e[0].cost_per_prefill - 1),
             100.0 * (f->ttft_s / b.e[0].ttft_s - 1));
    CU_ASSERT_EQUAL(strncmp(why, want, strlen(want)), 0);
    rs_budget_serve_sort(&b, RS_BUDGET_BY_DECODE);
    for (int i = 1; i < b.n; i++) {
        CU_ASSERT(b.e[i].decode_step_s > 0);
        CU_ASSERT(b.e[i].decode_step_s >= b.e[i - 1].decode_step_s);
        if (b.e[i].decode_step_s == b.e[i - 1].decode_step_s) CU_ASSERT(b.e[i].ttft_s >= b.e[i - 1].ttft_s); /* then by TTFT */
    }
    rs_budget_serve_free(&b);
}

/* A device too small for the wider CP splits (each CP rank's NCCL buffers grow with its all-to-all
 * peers): those rank after every split that fits, by memory, and say by how much they miss. */
RS_TEST(test_serve_does_not_fit, "what does not fit ranks last and says by how much, weights, KV cache and runtime") {
    rs_hw_t hw = rs_test_infer_hw(2e-6);
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    const rs_infer_config_t c = serve_config();
    const rs_layout_t layouts[] = {RS_LAYOUT_CONTIGUOUS};
    const rs_budget_ask_t ask = {8, layouts, 1};
    rs_budget_serving_t b = {0};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_budget_serve_add(&b, &(rs_budget_cand_t){0, &hw, &m}, &c, &ask, &err), 0);
    const double need4 = find_serve(&b, 0, 4, RS_INFER_PASS_KV)->weight_bytes + find_serve(&b, 0, 4, RS_INFER_PASS_KV)->kv_cache_bytes +
                         find_serve(&b, 0, 4, RS_INFER_PASS_KV)->runtime_bytes;
    const rs_budget_serve_t *t2 = find_serve(&b, 0, 2, RS_INFER_PASS_KV);
    const double need2 = t2->weight_bytes + t2->kv_cache_bytes + t2->runtime_bytes;
    CU_ASSERT_FATAL(need2 > need4);
    rs_budget_serve_free(&b);
    hw.mem_bytes = (need4 + need2); /* half of it usable: between TP 4's need and TP 2's */
    CU_ASSERT_EQUAL_FATAL(rs_budget_serve_add(&b, &(rs_budget_cand_t){0, &hw, &m}, &c, &ask, &err), 0);
    CU_ASSERT_EQUAL(b.n_fit, 2); /* TP 4's pass-kv and pass-q */
    rs_budget_serve_sort(&b, RS_BUDGET_BY_TTFT);
    for (int i = 0; i < b.n; i++) CU_ASSERT_EQUAL(b.e[i].fits, i < 2);
    for (int i = 0; i < 2; i++) CU_ASSERT_EQUAL(b.e[i].tp, 4);
    for (int i = 3; i < b.n; i++) CU_ASSERT(b.e[i].runtime_bytes >= b.e[i - 1].runtime_bytes); /* the smaller need first */
    const rs_budget_serve_t *x = &b.e[2];
    CU_ASSERT_EQUAL(x->tp, 2);
    const double gib = 1073741824.0;
    char why[512], want[256];
    snprintf(want, sizeof want, "does not fit: %.1f GiB > %.1f GiB usable (%+.1f GiB: weights %.1f, KV cache %.1f, runtime %.1f GiB)",
             need2 / gib, hw.mem_bytes / 2 / gib, (need2 - hw.mem_bytes / 2) / gib, 86848.0 / gib, 98304.0 / gib, x->runtime_bytes / gib);
    CU_ASSERT_STRING_EQUAL(rs_budget_serve_loses(&b, x, RS_BUDGET_BY_TTFT, why, sizeof why), want);
    CU_ASSERT_EQUAL(rs_budget_serve_limit(x, false), RS_LIMIT_MEMORY);
    rs_budget_serve_free(&b);
}

RS_TEST_PROGRAM("budget")
