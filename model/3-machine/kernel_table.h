/* kernel_table.h - attention kernel throughput by call shape and mask: a profile's "kernels" section.
 *
 * A profile may carry, per attention kernel (FlashAttention-2, cuDNN, ringsim's own mma kernel, ...),
 * curves of its throughput in USEFUL FLOP/s (visible (q, k) pairs x FLOPs per pair, the convention of
 * the papers: a causal call counts half) as a function of the call's shape (q_tokens x k_tokens),
 * per (dtype, head_dim, pass, mask kind), and which kernel each ring implementation preset runs on
 * this device. The cost of the calls (model/4-cost/kernel.h) reads these curves. Format, interpolation and
 * fallbacks: docs/profiles.md ("Kernel curves") and docs/model.md section 3a. The machine layer holds
 * the table (profile.h reads and writes it, machine.h selects the kernel a machine runs); the cost
 * layer (model/4-cost/kernel.h) reads its rates.
 *
 * Interpolation of a curve at a call of q x k tokens: points are sorted by area q*k (then q); the
 * rate is piecewise linear in (log area, log rate) between the two areas bracketing q*k; where several
 * points share an area, the one whose log(q/k) is nearest the call's is used; outside the points the
 * end rate holds (clamped). A point's own shape returns its own rate exactly.
 */
#ifndef RS_KERNEL_TABLE_H
#define RS_KERNEL_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "rate_source.h"
#include "util.h"

#define RS_KMAX_KERNELS 8    /* kernels per profile */
#define RS_KMAX_CURVES 64    /* curves per profile, all kernels together */
#define RS_KMAX_TWINS 16     /* flat twins of one-point curves (rs_kernel_table_t.n_twins) */
#define RS_KMAX_POINTS 24    /* points per curve */
#define RS_KMAX_KNOTS (RS_KMAX_POINTS + 1) /* knots of a curve's rate: its points, or a donor's and its one point */
#define RS_KNAME_LEN 64
#define RS_KSOURCE_LEN 768   /* a curve's or a kernel's source text, as stored */

/* Mask kinds of one attention call: full (every pair), causal (diagonal: row i sees keys j <= i,
 * aligned at the top-left corner), shifted (shifted-causal: j < i, the striped layout's block whose
 * KV owner comes after the rank). */
typedef enum { RS_KMASK_FULL = 0, RS_KMASK_CAUSAL, RS_KMASK_SHIFTED, RS_KMASK_COUNT } rs_kmask_t;
const char *rs_kmask_name(rs_kmask_t m);              /* "full" | "causal" | "shifted" */
int rs_kmask_parse(const char *s, rs_kmask_t *out);   /* 0 or -1 */

/* Ring attention implementation presets (model/4-cost/kernel.c has their call lists and byte counts;
 * docs/model.md section 3 derives them). RS_IMPL_NONE is the dense-peak model of before: one launch
 * per computing step, executed FLOPs at F x eff(B), no merge cost. */
typedef enum { RS_IMPL_NONE = 0, RS_IMPL_RINGSIM, RS_IMPL_FLASH_ATTN, RS_IMPL_TE, RS_IMPL_COUNT } rs_impl_t;
const char *rs_impl_name(rs_impl_t i);                /* "none" | "ringsim" | "flash-attn" | "te" */
int rs_impl_parse(const char *s, rs_impl_t *out);     /* 0 or -1 */

typedef struct {
    double q_tokens;       /* query rows of the call (per sequence) */
    double k_tokens;       /* key rows of the call */
    double flops_per_s;    /* useful FLOP/s measured or published at that shape (> 0) */
} rs_kpoint_t;

typedef struct {
    int kernel;            /* index into rs_kernel_table_t.kernel */
    unsigned dtypes;       /* bit (1u << dtype) per data type (profile.h rs_dtype_t) the curve applies to */
    int64_t head_dim;      /* d */
    int pass;              /* rs_pass_t */
    rs_kmask_t mask;       /* mask kind */
    int n;                 /* >= 1 points, strictly sorted by (area q*k, q) */
    rs_kpoint_t pt[RS_KMAX_POINTS];
    /* the measurement's parallelism, for the wave term (docs/model.md section 3a, "Waves"); 0 = not
     * known, then the curve is taken as given for every head count and batch: */
    int64_t heads, kv_heads;         /* query and key/value heads of the measured calls */
    double batch;                    /* sequences per measured call (a point's own pt_batch wins) */
    double pt_batch[RS_KMAX_POINTS]; /* a point's own batch (0: the curve's) */
    double tokens_per_batch;         /* or: batch = tokens_per_batch / q (the papers' batch x seqlen) */
    int64_t cta_rows;                /* rows a CTA owns: query rows forward, key rows backward */
    int64_t ctas_per_sm;             /* CTAs one SM runs at once */
    bool cta_per_kv_head;            /* a CTA per key/value head (else per query head) */
    char source[RS_KSOURCE_LEN];     /* where the points come from */
    bool derived;                    /* made from another curve of the kernel times a ratio of two others
                                        (docs/model.md section 3a, "Backward from forward", "Masks from the
                                        other mask"); not written back, lends no shape */
    int64_t ratio_head_dim;          /* derived: the head_dim whose ratio it took */
    int mask_of;                     /* derived across masks: 1 + the mask of the curve it scales (0: across passes) */
    /* derived by rs_kernel_table_prepare from pt (call it again after changing a point): */
    bool wave;                       /* the wave term applies (all of the above known, and the SMs) */
    double util[RS_KMAX_POINTS];     /* point j's measured call's wave utilisation (rs_kwave_util; 1 without the term) */
    /* The knots the rate interpolates: the points' shapes with their full-wave rates - or, for a curve
     * of one point, its shape over sequence length borrowed from another curve of the kernel
     * (shape_from): that curve's knots scaled so that they pass through the one point, plus the point
     * (rs_kernel_table_prepare; docs/model.md section 3a, "One point"). */
    int shape_from;                  /* index + 1 into the table's curves of the shape's donor; 0 = the curve's own points */
    int twin_of;                     /* a flat twin (rs_kernel_table_t.n_twins): index + 1 of its one-point curve; else 0 */
    int nk;                          /* knots, >= 1, sorted by (area, q) */
    double kq[RS_KMAX_KNOTS], kk[RS_KMAX_KNOTS]; /* a knot's q and k tokens */
    double area[RS_KMAX_KNOTS];      /* q k */
    double log_area[RS_KMAX_KNOTS];  /* log(q k) */
    double full[RS_KMAX_KNOTS];      /* the rate of full waves (a point's flops_per_s / util) */
    double log_rate[RS_KMAX_KNOTS];  /* log(full) */
    bool shared_areas;               /* two knots have one area (then the nearest aspect decides) */
} rs_kcurve_t;

typedef struct {
    char name[RS_KNAME_LEN];  /* e.g. "flash-attn-2" */
    bool gqa_expand_bwd;      /* with GQA the backward computes dK, dV per query head and sums the
                                 groups in a separate reduction (FlashAttention-2's mha_bwd) */
    rs_rate_kind_t kind;      /* measured, published or estimated (its curves' rates) */
    int64_t sm_count;         /* SMs of the device its curves were measured on (0: this device's) */
    char source[RS_KSOURCE_LEN]; /* what the curves are, in one sentence ("" = the first curve's source) */
    /* A kernel measured forward only: its backward curves are its forward ones times the backward /
     * forward ratio of the kernel of the same name on this device preset, shape by shape ("" = none;
     * profile key "backward_from", docs/model.md section 3a, "Backward from forward"). */
    char backward_from[RS_KNAME_LEN];
    char backward_from_source[RS_KSOURCE_LEN];
} rs_kernel_info_t;

typedef struct {
    int n_kernels;
    rs_kernel_info_t kernel[RS_KMAX_KERNELS];
    int n_curves;
    /* curve[n_curves + i], i < n_twins (derived by rs_kernel_table_prepare): the flat twin of each
     * one-point curve whose shape is borrowed - the same point, clamped everywhere - which the
     * fallbacks use where that curve stands in for a full-mask curve or a full-mask curve for a
     * causal or shifted one (its borrowed shape is its own mask class's). Never read, written or
     * validated as curves of the profile. */
    int n_twins;
    rs_kcurve_t curve[RS_KMAX_CURVES + RS_KMAX_TWINS];
    int impl_kernel[RS_IMPL_COUNT];  /* kernel index + 1 each preset runs on this device; 0 = none */
    int default_impl;                /* rs_impl_t used when none is asked for (RS_IMPL_NONE: dense peak) */
    double merge_bw_bytes_per_s;     /* HBM bandwidth of the merge/accumulate kernels; 0 = the device's */
    int64_t sm_count;                /* SMs (CUs) of this device (profile device.sm_count); 0 = not known */
    char from[RS_KNAME_LEN];         /* the preset the table was imported from ("kernels.from"), "" = its own */
} rs_kernel_table_t;

/* Useful FLOP/s of full waves of a q x k call on curve c (interpolation above of the knots' full-wave
 * rates, rs_kcurve_t.full; without the wave term the points' own rates), from its derived logs (c
 * prepared). Can't fail. */
double rs_kcurve_rate(const rs_kcurve_t *c, double q_tokens, double k_tokens);
/* Whether head_dim d is nearer `target` than `best` (the smaller on a tie; any d when best < 0): the one
 * rule by which a head_dim without curves picks another's. Can't fail. */
bool rs_kdim_nearer(int64_t d, int64_t best, int64_t target);
/* The useful rate of a q x k call of head_dim d on curve c measured at head_dim d_c (docs/model.md
 * section 3a, "Head dims"). A call computes one exponential per score (forward: the softmax; backward:
 * its recomputation) beside its 4 d (forward) or 10 d (backward) FLOPs per score, on the special-function
 * units, which FlashAttention-2 does not overlap with its matmuls (FlashAttention-3 paper, arXiv
 * 2407.08608, section 3.1); the curve's time per FLOP holds d_c's share of them, so a smaller head_dim
 * adds the rest: 1 / rate = 1 / rs_kcurve_rate + (1 / (c d) - 1 / (c d_c)) / exp_per_s, c = 4 forward,
 * 10 backward. Only below the curve's head_dim (above it other limits set in: register pressure, smaller
 * tiles) and with exp_per_s > 0; else rs_kcurve_rate. Can't fail. */
double rs_kcurve_rate_dim(const rs_kcurve_t *c, double q_tokens, double k_tokens, int64_t head_dim, double exp_per_s);
/* Where a q x k call lies against c's knots (its measured shapes, or its borrowed shape's): -1 below
 * the smallest area, +1 above the largest, 0 inside (a clamped rate is the end knot's). Can't fail. */
int rs_kcurve_outside(const rs_kcurve_t *c, double q_tokens, double k_tokens);

/* Waves: a call of `ctas` CTAs on `slots` CTA slots (SMs x CTAs per SM) runs ceil(ctas / slots)
 * waves, the last one as long as a full one, so its slots are busy ctas / (waves slots) of the time:
 * the utilisation, in (0, 1]; 1 when either is <= 0. Can't fail. */
double rs_kwave_util(double ctas, double slots);
/* CTAs of a call on curve c's kernel: batch x heads x ceil(rows / cta_rows), rows = q_tokens forward,
 * k_tokens backward, heads = kv_heads when a CTA is per key/value head (else q_heads); 0 when c has
 * no wave term. Can't fail. */
double rs_kcurve_ctas(const rs_kcurve_t *c, double q_tokens, double k_tokens, double batch, int64_t q_heads,
                      int64_t kv_heads);

/* The CTA slots of this device for curve c: the table's sm_count (else the SMs c was measured on) x
 * c's CTAs per SM; 0 when c has no wave term. Can't fail. */
double rs_kernel_slots(const rs_kernel_table_t *t, const rs_kcurve_t *c);

/* Index of the kernel called `name` (case-sensitive), or -1. */
int rs_kernel_find(const rs_kernel_table_t *t, const char *name);

/* Check a table's invariants: kernel indices, >= 1 point sorted strictly by (area, q), positive
 * finite values, head_dim >= 1, impl_kernel indices in range, one curve per (kernel, dtype, head_dim,
 * pass, mask). err names the kernel and curve. Returns 0 or -1. (The JSON reader names file:line.) */
int rs_kernel_table_validate(const rs_kernel_table_t *t, rs_err_t *err);
/* Validate t and derive every curve's logs and wave utilisations (the reader, the calibration and a
 * table built by hand call it once the points are set; the measured device's SMs are the kernel's
 * sm_count, else the table's). A curve of one point takes its shape over sequence length from the
 * nearest curve of the same kernel with several points that shares a dtype: the same mask, then the
 * nearest kind (rs_kernel_resolve's order); then the same pass before the other; then the same
 * head_dim before another (the nearest, the smaller on a tie). Its knots are that curve's full-wave knots
 * times (its point's full-wave rate / that curve's rate at the point's shape), plus the point itself
 * (a donor knot of the point's shape replaced), so a call of the point's shape gets the point's rate
 * and a call elsewhere the rate that falls or rises as the donor's does. No such curve: its own point,
 * clamped. Returns 0 or -1 with err (rs_kernel_table_validate's message). */
int rs_kernel_table_prepare(rs_kernel_table_t *t, rs_err_t *err);

/* The curves a kernel uses for a problem's (dtype, head_dim), one per (pass, mask), after the
 * fallbacks of docs/model.md section 3: the exact head_dim, else the nearest one the kernel has for the
 * dtype; a pass without curves uses the other pass's; a missing mask kind the nearest kind (shifted ->
 * causal -> full, full -> causal -> shifted, causal -> shifted -> full). Each fallback appends one
 * sentence to notes ("" when none), and so does each curve used whose shape is borrowed (shape_from:
 * "... its shape over sequence length borrowed from its forward causal curve (head_dim 128) ..."); a
 * one-point curve standing in across full and the diagonal kinds (causal, shifted) is its flat twin
 * (rs_kernel_table_t.n_twins).
 * idx[pass][mask] = index into t->curve. Returns 0, or -1 with err when the kernel has no curve at all
 * for the dtype. */
typedef struct {
    int idx[2][RS_KMASK_COUNT];      /* [rs_pass_t][rs_kmask_t] */
    char notes[1024];                /* fallbacks taken, sentences separated by "; " */
} rs_kresolve_t;
int rs_kernel_resolve(const rs_kernel_table_t *t, int kernel, int dtype, int64_t head_dim, rs_kresolve_t *out,
                      rs_err_t *err);

/* rs_kernel_resolve of one kernel and dtype for every head_dim it has, so that a problem's curves are
 * found in a few comparisons (the closed form resolves them per evaluation): head_dim[i] increasing,
 * idx[i] the resolution at head_dim[i]. A problem's head_dim d resolves as rs_kernel_resolve does: the
 * exact entry, else the nearest (the smaller on a tie). */
#define RS_KMAX_HEAD_DIMS 8
typedef struct {
    int n;                                         /* 0: no kernel indexed */
    int64_t head_dim[RS_KMAX_HEAD_DIMS];
    signed char idx[RS_KMAX_HEAD_DIMS][2][RS_KMASK_COUNT];
} rs_kindex_t;
/* Index kernel (an index into t->kernel) for dtype. Returns 0, or -1 with err when the kernel has no
 * curve for the dtype or more than RS_KMAX_HEAD_DIMS head_dims for it. */
int rs_kernel_index(const rs_kernel_table_t *t, int kernel, int dtype, rs_kindex_t *out, rs_err_t *err);
/* The curves [pass][mask] for head_dim d (x->n > 0). Can't fail. */
const signed char (*rs_kindex_find(const rs_kindex_t *x, int64_t head_dim))[RS_KMASK_COUNT];

#endif /* RS_KERNEL_TABLE_H */
