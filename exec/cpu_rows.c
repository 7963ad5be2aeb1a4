/* cpu_rows.c - the CPU compute's row kernels (cpu_rows.h): the plain reference helpers (compiled for
 * AVX-512F, AVX2 and baseline, picked at load time), the AVX2+FMA and AVX-512F fast paths, and the
 * choice among them. */
#include "cpu_rows.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------------
 * Vectorisable helpers (compiled for AVX-512F, AVX2 and baseline; picked at load time)
 * ------------------------------------------------------------------------------------------------- */
/* feature-based clones ("arch=" clones dispatch on the CPU model and never fire on AMD) */
#define RS_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

/* Row max of s[0..n). */
RS_CLONES static float row_max(const float *s, int64_t n) {
    float mx = -INFINITY;
#pragma omp simd reduction(max : mx)
    for (int64_t j = 0; j < n; j++) mx = s[j] > mx ? s[j] : mx;
    return mx;
}

/* s[j] = exp(s[j] - m); returns the sum. */
RS_CLONES static float row_exp_sum(float *s, int64_t n, float m) {
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int64_t j = 0; j < n; j++) {
        float e = rs_cpu_exp_f32(s[j] - m);
        s[j] = e;
        sum += e;
    }
    return sum;
}

/* s[j] = exp(s[j] - lse) (backward P). */
RS_CLONES static void row_exp(float *s, int64_t n, float lse) {
#pragma omp simd
    for (int64_t j = 0; j < n; j++) s[j] = rs_cpu_exp_f32(s[j] - lse);
}

RS_CLONES void rs_cpu_row_ds(const float *p, float *ds, int64_t n, float dd) {
#pragma omp simd
    for (int64_t j = 0; j < n; j++) ds[j] = p[j] * (ds[j] - dd);
}

RS_CLONES void rs_cpu_vec_scale(float *x, int64_t n, float a) {
#pragma omp simd
    for (int64_t j = 0; j < n; j++) x[j] *= a;
}

RS_CLONES void rs_cpu_vec_add(float *x, const float *y, size_t n) {
#pragma omp simd
    for (size_t j = 0; j < n; j++) x[j] += y[j];
}

/* ---------------------------------------------------------------------------------------------------
 * Fast row kernels: the same exp (Cephes polynomial, same clamp, exact 0 below -87.3) written with
 * intrinsics for AVX2+FMA and AVX-512F. The plain functions above are their reference: GCC vectorises
 * rs_cpu_exp_f32 only for AVX-512 (masked if-conversion), so on an AVX2-only CPU the plain clone is
 * scalar. A row whose max (or lse) is -inf has seen nothing: its P is 0 (never exp(-inf + inf)). A NaN
 * logit stays NaN, as in rs_cpu_exp_f32 (the executor's finiteness check must see it).
 * The AVX2 and AVX-512 functions are deliberate twins, one per vector width: the same steps in 8-lane
 * and 16-lane intrinsics (and 16-lane masks for the tails), which no portable code expresses.
 * ------------------------------------------------------------------------------------------------- */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RS_HAVE_X86_FAST 1

#define RS_AVX2 __attribute__((target("avx2,fma")))
/* deliberate twin of exp16_avx512 (8 lanes instead of 16) */
RS_AVX2 static inline __m256 exp8_avx2(__m256 x) {
    const __m256 lo = _mm256_set1_ps(-87.33654475f), hi = _mm256_set1_ps(88.37626266f);
    __m256 xc = _mm256_min_ps(hi, _mm256_max_ps(lo, x)); /* operand order: a NaN x stays NaN */
    __m256 fx = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), xc);
    r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 y = _mm256_set1_ps(1.9875691500e-4f);
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(1.3981999507e-3f));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(8.3334519073e-3f));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(4.1665795894e-2f));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(1.6666665459e-1f));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(5.0000001201e-1f));
    y = _mm256_add_ps(_mm256_fmadd_ps(y, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
    __m256i n = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
    __m256 e = _mm256_mul_ps(y, _mm256_castsi256_ps(n));
    return _mm256_and_ps(e, _mm256_cmp_ps(x, lo, _CMP_NLT_UQ)); /* exact 0 below lo and for -inf */
}

/* deliberate twin of row_max_avx512 */
RS_AVX2 static float row_max_avx2(const float *s, int64_t n) {
    __m256 m0 = _mm256_set1_ps(-INFINITY), m1 = m0;
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        m0 = _mm256_max_ps(m0, _mm256_loadu_ps(s + j));
        m1 = _mm256_max_ps(m1, _mm256_loadu_ps(s + j + 8));
    }
    if (j + 8 <= n) m0 = _mm256_max_ps(m0, _mm256_loadu_ps(s + j)), j += 8;
    m0 = _mm256_max_ps(m0, m1);
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m0), _mm256_extractf128_ps(m0, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
    float mx = _mm_cvtss_f32(h);
    for (; j < n; j++) mx = s[j] > mx ? s[j] : mx;
    return mx;
}

/* s[j] = exp(s[j] - m) (0 everywhere when m = -inf); returns the sum. */
/* deliberate twin of row_exp_sum_avx512 */
RS_AVX2 static float row_exp_sum_avx2(float *s, int64_t n, float m) {
    if (m == -INFINITY) {
        memset(s, 0, (size_t)n * sizeof(float));
        return 0.0f;
    }
    const __m256 vm = _mm256_set1_ps(m);
    __m256 a0 = _mm256_setzero_ps(), a1 = a0;
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        __m256 e0 = exp8_avx2(_mm256_sub_ps(_mm256_loadu_ps(s + j), vm));
        __m256 e1 = exp8_avx2(_mm256_sub_ps(_mm256_loadu_ps(s + j + 8), vm));
        _mm256_storeu_ps(s + j, e0), _mm256_storeu_ps(s + j + 8, e1);
        a0 = _mm256_add_ps(a0, e0), a1 = _mm256_add_ps(a1, e1);
    }
    if (n - j >= 8) {
        __m256 e0 = exp8_avx2(_mm256_sub_ps(_mm256_loadu_ps(s + j), vm));
        _mm256_storeu_ps(s + j, e0);
        a0 = _mm256_add_ps(a0, e0), j += 8;
    }
    if (j < n) { /* tail: masked load/store of the last n - j (< 8) elements */
        const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - j)), idx);
        __m256 e0 = exp8_avx2(_mm256_sub_ps(_mm256_maskload_ps(s + j, mask), vm));
        e0 = _mm256_and_ps(e0, _mm256_castsi256_ps(mask));
        _mm256_maskstore_ps(s + j, mask, e0);
        a0 = _mm256_add_ps(a0, e0);
    }
    a0 = _mm256_add_ps(a0, a1);
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(a0), _mm256_extractf128_ps(a0, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
    return _mm_cvtss_f32(h);
}

/* s[j] = exp(s[j] - lse) (backward P; 0 when lse = -inf). */
/* deliberate twin of row_exp_avx512 */
RS_AVX2 static void row_exp_avx2(float *s, int64_t n, float lse) {
    if (lse == -INFINITY) {
        memset(s, 0, (size_t)n * sizeof(float));
        return;
    }
    const __m256 vl = _mm256_set1_ps(lse);
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(s + j, exp8_avx2(_mm256_sub_ps(_mm256_loadu_ps(s + j), vl)));
    if (j < n) {
        const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - j)), idx);
        _mm256_maskstore_ps(s + j, mask, exp8_avx2(_mm256_sub_ps(_mm256_maskload_ps(s + j, mask), vl)));
    }
}

#define RS_AVX512 __attribute__((target("avx512f")))
/* deliberate twin of exp8_avx2 (16 lanes instead of 8) */
RS_AVX512 static inline __m512 exp16_avx512(__m512 x) {
    const __m512 lo = _mm512_set1_ps(-87.33654475f), hi = _mm512_set1_ps(88.37626266f);
    __m512 xc = _mm512_min_ps(hi, _mm512_max_ps(lo, x)); /* operand order: a NaN x stays NaN */
    __m512 fx = _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693359375f), xc);
    r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 y = _mm512_set1_ps(1.9875691500e-4f);
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.3981999507e-3f));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(8.3334519073e-3f));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(4.1665795894e-2f));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.6666665459e-1f));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(5.0000001201e-1f));
    y = _mm512_add_ps(_mm512_fmadd_ps(y, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
    __m512i n = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(fx), _mm512_set1_epi32(127)), 23);
    __m512 e = _mm512_mul_ps(y, _mm512_castsi512_ps(n));
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, lo, _CMP_NLT_UQ), e); /* exact 0 below lo and for -inf */
}

static inline __mmask16 tail_mask16(int64_t left) { return (__mmask16)((1u << left) - 1u); }

/* deliberate twin of row_max_avx2 */
RS_AVX512 static float row_max_avx512(const float *s, int64_t n) {
    __m512 m0 = _mm512_set1_ps(-INFINITY), m1 = m0;
    int64_t j = 0;
    for (; j + 32 <= n; j += 32) {
        m0 = _mm512_max_ps(m0, _mm512_loadu_ps(s + j));
        m1 = _mm512_max_ps(m1, _mm512_loadu_ps(s + j + 16));
    }
    for (; j < n; j += 16) {
        __mmask16 k = n - j >= 16 ? (__mmask16)0xffff : tail_mask16(n - j);
        m0 = _mm512_mask_max_ps(m0, k, m0, _mm512_maskz_loadu_ps(k, s + j));
    }
    return _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
}

/* deliberate twin of row_exp_sum_avx2 */
RS_AVX512 static float row_exp_sum_avx512(float *s, int64_t n, float m) {
    if (m == -INFINITY) {
        memset(s, 0, (size_t)n * sizeof(float));
        return 0.0f;
    }
    const __m512 vm = _mm512_set1_ps(m);
    __m512 a0 = _mm512_setzero_ps(), a1 = a0;
    int64_t j = 0;
    for (; j + 32 <= n; j += 32) {
        __m512 e0 = exp16_avx512(_mm512_sub_ps(_mm512_loadu_ps(s + j), vm));
        __m512 e1 = exp16_avx512(_mm512_sub_ps(_mm512_loadu_ps(s + j + 16), vm));
        _mm512_storeu_ps(s + j, e0), _mm512_storeu_ps(s + j + 16, e1);
        a0 = _mm512_add_ps(a0, e0), a1 = _mm512_add_ps(a1, e1);
    }
    for (; j < n; j += 16) {
        __mmask16 k = n - j >= 16 ? (__mmask16)0xffff : tail_mask16(n - j);
        __m512 e0 = _mm512_maskz_mov_ps(k, exp16_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, s + j), vm)));
        _mm512_mask_storeu_ps(s + j, k, e0);
        a0 = _mm512_add_ps(a0, e0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
}

/* deliberate twin of row_exp_avx2 */
RS_AVX512 static void row_exp_avx512(float *s, int64_t n, float lse) {
    if (lse == -INFINITY) {
        memset(s, 0, (size_t)n * sizeof(float));
        return;
    }
    const __m512 vl = _mm512_set1_ps(lse);
    for (int64_t j = 0; j < n; j += 16) {
        __mmask16 k = n - j >= 16 ? (__mmask16)0xffff : tail_mask16(n - j);
        _mm512_mask_storeu_ps(s + j, k, exp16_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, s + j), vl)));
    }
}
#endif

const rs_cpu_rows_t rs_cpu_rows_plain = {"plain", row_max, row_exp_sum, row_exp};
#ifdef RS_HAVE_X86_FAST
static const rs_cpu_rows_t rows_avx2 = {"avx2+fma", row_max_avx2, row_exp_sum_avx2, row_exp_avx2};
static const rs_cpu_rows_t rows_avx512 = {"avx512f", row_max_avx512, row_exp_sum_avx512, row_exp_avx512};
#endif

const rs_cpu_rows_t *rs_cpu_rows_pick(rs_err_t *err) {
    const char *want = getenv("RINGSIM_CPU_KERNEL");
    if (!want || !*want) want = "auto";
    bool is_auto = strcmp(want, "auto") == 0;
    if (strcmp(want, "plain") == 0) return &rs_cpu_rows_plain;
#ifdef RS_HAVE_X86_FAST
    __builtin_cpu_init();
    bool has512 = __builtin_cpu_supports("avx512f");
    bool has2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if ((is_auto && has512) || (strcmp(want, "avx512f") == 0 && has512)) return &rows_avx512;
    if ((is_auto && has2) || (strcmp(want, "avx2") == 0 && has2)) return &rows_avx2;
    if (strcmp(want, "avx512f") == 0 || strcmp(want, "avx2") == 0) {
        rs_errf(err, "RINGSIM_CPU_KERNEL=%s: this CPU lacks %s (accepted: auto, plain, avx2, avx512f)", want,
                strcmp(want, "avx2") == 0 ? "avx2+fma" : "avx512f");
        return NULL;
    }
#endif
    if (is_auto) return &rs_cpu_rows_plain;
    rs_errf(err, "RINGSIM_CPU_KERNEL=%s: unknown (accepted: auto, plain, avx2, avx512f)", want);
    return NULL;
}
