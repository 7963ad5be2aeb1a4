/* test_budget.c - a budget of devices (budget.c): the TP x CP x DP splits and the Ring / Ulysses / USP
 * splits of each counted by hand, every configuration the one step cost of plan.c, the ranking by time
 * and by cost, and why each loses. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "budget.h"
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

RS_TEST_PROGRAM("budget")
