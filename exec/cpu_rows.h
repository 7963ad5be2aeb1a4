/* cpu_rows.h - the CPU compute's row kernels (cpu_compute.c's softmax rows): the exp it uses, the
 * vectorisable helpers, and the row-kernel variants selected by RINGSIM_CPU_KERNEL - plain (the
 * reference: portable C the compiler vectorises where it can) and the fast paths written with
 * AVX2+FMA or AVX-512F intrinsics. Every variant computes the same Cephes polynomial with the same
 * clamp: exactly 0 below -87.3 and for -inf, NaN for NaN. */
#ifndef RS_CPU_ROWS_H
#define RS_CPU_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

/* exp(x) for x <= 88, 0 below -87.3 (and for -inf), NaN for NaN; Cephes polynomial, ~2 ulp. */
static inline float rs_cpu_exp_f32(float x) {
    const float lo = -87.33654475f, hi = 88.37626266f;
    float xc = x >= lo ? (x > hi ? hi : x) : lo; /* NaN -> lo: the int conversion below stays defined */
    float fx = xc * 1.44269504088896341f;
    fx = (fx + 12582912.0f) - 12582912.0f; /* round to nearest */
    int32_t n = (int32_t)fx;
    float r = xc - fx * 0.693359375f - fx * -2.12194440e-4f;
    float y = 1.9875691500e-4f;
    y = y * r + 1.3981999507e-3f;
    y = y * r + 8.3334519073e-3f;
    y = y * r + 4.1665795894e-2f;
    y = y * r + 1.6666665459e-1f;
    y = y * r + 5.0000001201e-1f;
    y = y * r * r + r + 1.0f;
    int32_t bits = (n + 127) << 23;
    float p2;
    memcpy(&p2, &bits, sizeof p2);
    return x >= lo ? y * p2 : (x < lo ? 0.0f : x);
}

/* ds[j] = p[j] * (ds[j] - dd) over n. */
void rs_cpu_row_ds(const float *p, float *ds, int64_t n, float dd);
/* x[j] *= a over n. */
void rs_cpu_vec_scale(float *x, int64_t n, float a);
/* x[j] += y[j] over n. */
void rs_cpu_vec_add(float *x, const float *y, size_t n);

/* The row kernels one compute state uses: plain (the reference) or a fast path. */
typedef struct rs_cpu_rows {
    const char *name;                                  /* "plain", "avx2+fma", "avx512f" */
    float (*row_max)(const float *s, int64_t n);       /* max of s[0..n) (-inf if all are) */
    float (*exp_sum)(float *s, int64_t n, float m);    /* s = exp(s - m); returns the sum */
    void (*exp_sub)(float *s, int64_t n, float lse);   /* s = exp(s - lse) */
} rs_cpu_rows_t;

extern const rs_cpu_rows_t rs_cpu_rows_plain;

/* The row kernels for RINGSIM_CPU_KERNEL (auto | plain | avx2 | avx512f; unset = auto: the widest the
 * CPU has). Returns NULL with err when the value is unknown or the CPU lacks the ISA:
 * "RINGSIM_CPU_KERNEL=X: unknown (accepted: auto, plain, avx2, avx512f)" or "...: this CPU lacks Y
 * (accepted: ...)". */
const rs_cpu_rows_t *rs_cpu_rows_pick(rs_err_t *err);

#endif /* RS_CPU_ROWS_H */
