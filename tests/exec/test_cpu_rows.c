/* test_cpu_rows.c - the CPU compute's row kernels (exec/cpu_rows.c) on their own: the exp against
 * float64, and each variant the CPU has (plain, AVX2+FMA, AVX-512F) on rows of every length up to 70
 * (every vector tail) against float64 - the row max exactly, exp(s - m) and its float sum, exp(s - lse);
 * -inf giving exactly 0, NaN staying NaN; the plain helpers against scalar loops; the choice by
 * RINGSIM_CPU_KERNEL and its refusals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_rows.h"
#include "exec.h"
#include "exec_fixtures.h"
#include "test_main.h"

/* The exp: within 2 ulp (4e-7 relative) of float64 over [-87, 88], exactly 0 at and below -87.34 and
 * for -inf, exactly 1 at 0, NaN for NaN. */
RS_TEST(test_exp_f32, "exp_f32") {
    double worst = 0;
    for (double x = -87.0; x <= 88.0; x += 0.0137) {
        const float y = rs_cpu_exp_f32((float)x);
        const double ref = exp((double)(float)x);
        worst = fmax(worst, fabs(y - ref) / ref);
    }
    fprintf(stderr, "  exp_f32: worst relative error %.3g\n", worst);
    CU_ASSERT(worst < 4e-7);
    CU_ASSERT_EQUAL(rs_cpu_exp_f32(0.0f), 1.0f);
    CU_ASSERT_EQUAL(rs_cpu_exp_f32(-87.5f), 0.0f);
    CU_ASSERT_EQUAL(rs_cpu_exp_f32(-1e4f), 0.0f);
    CU_ASSERT_EQUAL(rs_cpu_exp_f32(-INFINITY), 0.0f);
    CU_ASSERT(isnan(rs_cpu_exp_f32(NAN)));
}

/* The variant named `name` (plain, avx2, avx512f) or NULL when this CPU lacks it. */
static const rs_cpu_rows_t *variant(const char *name) {
    rs_err_t err = {0};
    rs_test_env_set("RINGSIM_CPU_KERNEL", name);
    const rs_cpu_rows_t *r = rs_cpu_rows_pick(&err);
    rs_test_env_set("RINGSIM_CPU_KERNEL", NULL);
    return r;
}

/* Each variant on rows of n = 1..70 of fresh random logits in [-20, 5], every seventh -inf (masked):
 * row_max exact; exp_sum's elements within 4e-7 of float64 of the same float difference (masked ones
 * exactly 0) and its float sum within 5e-6 of theirs (n ulp of the sum); exp_sub likewise. */
RS_TEST(test_variants_rows, "variants_rows_vs_float64") {
    const uint64_t seed = rs_test_fresh_seed();
    fprintf(stderr, "  row kernels: seed %llu (RINGSIM_TEST_SEED repeats it)\n", (unsigned long long)seed);
    const char *names[3] = {"plain", "avx2", "avx512f"};
    int ran = 0;
    for (int v = 0; v < 3; v++) {
        const rs_cpu_rows_t *r = variant(names[v]);
        if (!r) continue;
        ran++;
        double worst = 0, worst_sum = 0;
        int bad = 0;
        for (int64_t n = 1; n <= 70; n++) {
            float s[70], e[70];
            double mx = -INFINITY;
            for (int64_t j = 0; j < n; j++) {
                s[j] = j % 7 == 3 ? -INFINITY : (float)(25 * rs_hash_unit(seed, (uint64_t)n, (uint64_t)j) - 20);
                mx = fmax(mx, s[j]);
            }
            if (mx == -INFINITY) s[0] = -1.0f, mx = -1.0; /* a row with something visible */
            bad += r->row_max(s, n) != (float)mx;
            memcpy(e, s, sizeof(float) * (size_t)n);
            const float sum = r->exp_sum(e, n, (float)mx);
            double ref_sum = 0;
            for (int64_t j = 0; j < n; j++) {
                const double ref = s[j] == -INFINITY ? 0 : exp((double)(s[j] - (float)mx)); /* the float difference */
                if (s[j] == -INFINITY) bad += e[j] != 0.0f;
                else worst = fmax(worst, fabs(e[j] - ref) / ref);
                ref_sum += e[j];
            }
            worst_sum = fmax(worst_sum, fabs(sum - ref_sum) / ref_sum);
            memcpy(e, s, sizeof(float) * (size_t)n);
            r->exp_sub(e, n, 2.5f);
            for (int64_t j = 0; j < n; j++) {
                if (s[j] == -INFINITY) bad += e[j] != 0.0f;
                else worst = fmax(worst, fabs(e[j] - exp((double)(s[j] - 2.5f))) / exp((double)(s[j] - 2.5f)));
            }
        }
        fprintf(stderr, "  %-8s rows 1..70: worst element %.3g, sum %.3g\n", r->name, worst, worst_sum);
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(worst < 4e-7);
        CU_ASSERT(worst_sum < 5e-6);
    }
    CU_ASSERT(ran >= 1);
}

/* Rows that saw nothing and NaN logits: a fast path gives P = 0 for a max or lse of -inf (never
 * exp(-inf + inf)); every variant keeps a NaN logit NaN (the executor's finiteness check must see it). */
RS_TEST(test_variants_edges, "variants_edges") {
    const char *names[3] = {"plain", "avx2", "avx512f"};
    for (int v = 0; v < 3; v++) {
        const rs_cpu_rows_t *r = variant(names[v]);
        if (!r) continue;
        for (int64_t n = 1; n <= 40; n += 13) {
            float s[40];
            for (int64_t j = 0; j < n; j++) s[j] = -1.0f - (float)j;
            s[n / 2] = NAN;
            float e[40];
            memcpy(e, s, sizeof e);
            r->exp_sum(e, n, -1.0f);
            CU_ASSERT(isnan(e[n / 2]));
            memcpy(e, s, sizeof e);
            r->exp_sub(e, n, 0.0f);
            CU_ASSERT(isnan(e[n / 2]));
            if (v == 0) continue; /* the plain kernels are never called with -inf (the kernel skips such rows) */
            for (int64_t j = 0; j < n; j++) e[j] = -INFINITY;
            CU_ASSERT_EQUAL(r->exp_sum(e, n, -INFINITY), 0.0f);
            for (int64_t j = 0; j < n; j++) CU_ASSERT_EQUAL(e[j], 0.0f);
            for (int64_t j = 0; j < n; j++) e[j] = 1.0f;
            r->exp_sub(e, n, -INFINITY);
            for (int64_t j = 0; j < n; j++) CU_ASSERT_EQUAL(e[j], 0.0f);
        }
    }
}

/* The plain helpers equal their scalar loops exactly (one rounding each). */
RS_TEST(test_helpers, "plain_helpers") {
    float p[37], ds[37], want[37], x[37], y[37];
    for (int j = 0; j < 37; j++) p[j] = 0.1f * (float)j, ds[j] = 1.5f - 0.07f * (float)j, x[j] = (float)j - 9.5f, y[j] = 0.25f * (float)j;
    for (int j = 0; j < 37; j++) want[j] = p[j] * (ds[j] - 0.3f);
    rs_cpu_row_ds(p, ds, 37, 0.3f);
    CU_ASSERT_EQUAL(memcmp(ds, want, sizeof want), 0);
    for (int j = 0; j < 37; j++) want[j] = x[j] * 1.75f;
    rs_cpu_vec_scale(x, 37, 1.75f);
    CU_ASSERT_EQUAL(memcmp(x, want, sizeof want), 0);
    for (int j = 0; j < 37; j++) want[j] = x[j] + y[j];
    rs_cpu_vec_add(x, y, 37);
    CU_ASSERT_EQUAL(memcmp(x, want, sizeof want), 0);
}

/* RINGSIM_CPU_KERNEL: unset and auto give the widest the CPU has, plain the reference; an unknown name
 * and an ISA the CPU lacks are refused with the accepted values. */
RS_TEST(test_pick, "pick") {
    rs_err_t err = {0};
    rs_test_env_set("RINGSIM_CPU_KERNEL", NULL);
    const rs_cpu_rows_t *dflt = rs_cpu_rows_pick(&err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dflt);
    const rs_cpu_rows_t *a512 = variant("avx512f"), *a2 = variant("avx2");
    CU_ASSERT_PTR_EQUAL(dflt, a512 ? a512 : a2 ? a2 : &rs_cpu_rows_plain);
    CU_ASSERT_PTR_EQUAL(variant("auto"), dflt);
    CU_ASSERT_PTR_EQUAL(variant("plain"), &rs_cpu_rows_plain);
    CU_ASSERT_STRING_EQUAL(rs_cpu_rows_plain.name, "plain");
    if (a2) CU_ASSERT_STRING_EQUAL(a2->name, "avx2+fma");
    if (a512) CU_ASSERT_STRING_EQUAL(a512->name, "avx512f");
    rs_test_env_set("RINGSIM_CPU_KERNEL", "sse9");
    CU_ASSERT_PTR_NULL(rs_cpu_rows_pick(&err));
    CU_ASSERT_STRING_EQUAL(err.msg, "RINGSIM_CPU_KERNEL=sse9: unknown (accepted: auto, plain, avx2, avx512f)");
    if (!a512) {
        rs_test_env_set("RINGSIM_CPU_KERNEL", "avx512f");
        CU_ASSERT_PTR_NULL(rs_cpu_rows_pick(&err));
        CU_ASSERT_STRING_EQUAL(err.msg, "RINGSIM_CPU_KERNEL=avx512f: this CPU lacks avx512f (accepted: auto, plain, avx2, avx512f)");
    }
    rs_test_env_set("RINGSIM_CPU_KERNEL", NULL);
}

/* An unknown variant is refused with the accepted values. */
RS_TEST(test_kernel_variant_bad, "kernel_variant_bad") {
    rs_problem_t p = rs_test_exec_problem(24, 2, RS_LAYOUT_ZIGZAG, true, RS_PASS_FORWARD, 2);
    rs_exec_opts_t o = rs_test_exec_opts_check();
    rs_exec_result_t res;
    rs_err_t err = {0};
    setenv("RINGSIM_CPU_KERNEL", "sse9", 1);
    int rc = rs_test_exec_run(&p, &o, NULL, &res, &err);
    unsetenv("RINGSIM_CPU_KERNEL");
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "RINGSIM_CPU_KERNEL=sse9"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "accepted: auto, plain, avx2, avx512f"));
}

RS_TEST_PROGRAM("cpu_rows")
