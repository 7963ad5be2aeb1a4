/* gpu_host.c - host half of the GPU backend: descriptors, 16-bit floats, float64 reference, checks.
 * Contracts are in gpu_host.h. */
#include "gpu_host.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

_Static_assert(RS_GPU_MASK_FULL == (int)RS_MASK_FULL, "mask codes must match rs_mask_t");
_Static_assert(RS_GPU_MASK_SKIP == (int)RS_MASK_SKIP, "mask codes must match rs_mask_t");
_Static_assert(RS_GPU_MASK_DIAG == (int)RS_MASK_DIAG, "mask codes must match rs_mask_t");
_Static_assert(RS_GPU_MAX_SEGS == RS_MAX_SEGMENTS, "segment limits must match");
_Static_assert(RS_GPU_MAX_KV_SEGS == RS_MAX_KV_SEGMENTS, "K,V segment limits must match");
_Static_assert(RS_GPU_MAX_BLOCKS == RS_MAX_BLOCKS, "block limits must match");
_Static_assert(sizeof(rs_gpu_step_desc_t) == 192, "descriptor is passed by value to kernels");

/* ---------------------------------------------------------------------------------------------------
 * Shapes
 * ------------------------------------------------------------------------------------------------- */
static const char *const dtype_names[] = {"bf16", "fp16"}; /* RS_GPU_BF16, RS_GPU_FP16 */

const char *rs_gpu_dtype_name(rs_gpu_dtype_t t) { return dtype_names[t == RS_GPU_FP16]; }

int rs_gpu_dtype_parse(const char *s, rs_gpu_dtype_t *out) {
    const int i = rs_enum_parse(dtype_names, 2, s);
    if (i >= 0) *out = (rs_gpu_dtype_t)i;
    return i < 0 ? -1 : 0;
}

int rs_gpu_shape_validate(const rs_gpu_shape_t *sh, rs_err_t *err) {
    if (sh->dtype != RS_GPU_BF16 && sh->dtype != RS_GPU_FP16)
        return rs_errf(err, "dtype %d: must be bf16 or fp16", (int)sh->dtype);
    if (sh->batch < 1) return rs_errf(err, "batch %d: must be >= 1", sh->batch);
    if (sh->q_heads < 1) return rs_errf(err, "q_heads %d: must be >= 1", sh->q_heads);
    if (sh->kv_heads < 1 || sh->q_heads % sh->kv_heads)
        return rs_errf(err, "kv_heads %d: must be >= 1 and divide q_heads = %d", sh->kv_heads, sh->q_heads);
    if (sh->head_dim < 8 || sh->head_dim > 256 || sh->head_dim % 8)
        return rs_errf(err, "head_dim %d: must be a multiple of 8 in [8, 256]", sh->head_dim);
    if (sh->q_rows < 1) return rs_errf(err, "q_rows %d: must be >= 1", sh->q_rows);
    if (sh->kv_rows < 1) return rs_errf(err, "kv_rows %d: must be >= 1", sh->kv_rows);
    if (!(sh->scale > 0.0f) || !isfinite(sh->scale))
        return rs_errf(err, "scale %g: must be finite and > 0", (double)sh->scale);
    double qe = (double)sh->batch * sh->q_heads * sh->q_rows * sh->head_dim;
    double ke = (double)sh->batch * sh->kv_heads * sh->kv_rows * sh->head_dim;
    if (qe >= 2147483648.0 || ke >= 2147483648.0)
        return rs_errf(err, "batch x heads x rows x head_dim = %.0f elements: must be < 2^31 per tensor",
                       fmax(qe, ke));
    return 0;
}

size_t rs_gpu_shape_q_elems(const rs_gpu_shape_t *sh) {
    return (size_t)sh->batch * sh->q_heads * sh->q_rows * sh->head_dim;
}
size_t rs_gpu_shape_kv_elems(const rs_gpu_shape_t *sh) {
    return (size_t)sh->batch * sh->kv_heads * sh->kv_rows * sh->head_dim;
}
size_t rs_gpu_shape_row_elems(const rs_gpu_shape_t *sh) {
    return (size_t)sh->batch * sh->q_heads * sh->q_rows;
}

/* ---------------------------------------------------------------------------------------------------
 * Descriptors
 * ------------------------------------------------------------------------------------------------- */
/* The n segments segs of a step (what: "Q" | "KV") as row ranges of the local buffer, one after the
 * other, into out[0..n). Returns 0, or -1 with err when the rows exceed a 32-bit index. */
static int rows_of(const rs_step_t *st, const rs_segment_t *segs, int n, const char *what, rs_gpu_seg_t *out, rs_err_t *err) {
    int64_t off = 0;
    for (int s = 0; s < n; s++) {
        if (segs[s].count > INT32_MAX - off)
            return rs_errf(err, "rank %lld: %lld %s rows do not fit the 32-bit row index of the GPU kernels", (long long)st->rank,
                           (long long)(off + segs[s].count), what);
        out[s].off = (int32_t)off;
        out[s].len = (int32_t)segs[s].count;
        off += segs[s].count;
    }
    return 0;
}

int rs_gpu_desc_from_step(const rs_step_t *st, rs_gpu_step_desc_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    if (st->n_q_segs < 1 || st->n_q_segs > RS_GPU_MAX_SEGS)
        return rs_errf(err, "rank %lld step %lld: %d Q segments (1..2 expected)", (long long)st->rank,
                       (long long)st->step, st->n_q_segs);
    out->n_q = st->n_q_segs;
    if (rows_of(st, st->q_segs, st->n_q_segs, "Q", out->q, err) < 0) return -1;
    if (!st->has_compute) return 0;
    const int max_kv = st->pass == RS_PASS_BACKWARD ? RS_GPU_MAX_SEGS : RS_GPU_MAX_KV_SEGS; /* bwd kernels: 2 */
    if (st->n_kv_segs < 1 || st->n_kv_segs > max_kv || st->n_blocks > RS_GPU_MAX_BLOCKS)
        return rs_errf(err, "rank %lld step %lld: %d KV segments, %d blocks (1..4, <= 8 expected)",
                       (long long)st->rank, (long long)st->step, st->n_kv_segs, st->n_blocks);
    out->n_kv = st->n_kv_segs;
    if (rows_of(st, st->kv_segs, st->n_kv_segs, "KV", out->kv, err) < 0) return -1;
    out->n_blocks = st->n_blocks;
    for (int b = 0; b < st->n_blocks; b++) {
        const rs_block_t *bl = &st->blocks[b];
        if (bl->q_seg < 0 || bl->q_seg >= out->n_q || bl->kv_seg < 0 || bl->kv_seg >= out->n_kv)
            return rs_errf(err, "rank %lld step %lld: block %d names segments (%d, %d) out of range",
                           (long long)st->rank, (long long)st->step, b, bl->q_seg, bl->kv_seg);
        out->blocks[b].q_seg = bl->q_seg;
        out->blocks[b].kv_seg = bl->kv_seg;
        out->blocks[b].mask = (int32_t)bl->mask;
        out->blocks[b].diag = (int32_t)(bl->mask == RS_MASK_DIAG ? bl->diag : 0);
    }
    return 0;
}

void rs_gpu_desc_single(int32_t q_rows, int32_t kv_rows, int32_t mask, int32_t diag,
                        rs_gpu_step_desc_t *out) {
    memset(out, 0, sizeof *out);
    out->n_q = out->n_kv = out->n_blocks = 1;
    out->q[0].len = q_rows;
    out->kv[0].len = kv_rows;
    out->blocks[0].mask = mask;
    out->blocks[0].diag = mask == RS_GPU_MASK_DIAG ? diag : 0;
}

uint64_t rs_gpu_desc_pairs(const rs_gpu_step_desc_t *d) {
    uint64_t n = 0;
    for (int b = 0; b < d->n_blocks; b++) {
        const rs_gpu_blk_t *bl = &d->blocks[b];
        int32_t nq = d->q[bl->q_seg].len, nk = d->kv[bl->kv_seg].len;
        if (bl->mask == RS_GPU_MASK_FULL) n += (uint64_t)nq * nk;
        if (bl->mask != RS_GPU_MASK_DIAG) continue;
        for (int32_t i = 0; i < nq; i++) { /* keys j <= i - diag, clipped to [0, nk) */
            int64_t hi = (int64_t)i - bl->diag + 1;
            if (hi > nk) hi = nk;
            if (hi > 0) n += (uint64_t)hi;
        }
    }
    return n;
}

/* Walk the executed tiles of d; add their clipped area to *pairs and count them in *tiles. */
static void desc_walk_tiles(const rs_gpu_step_desc_t *d, int32_t tq, int32_t tk, uint64_t *pairs,
                            uint64_t *tiles) {
    *pairs = *tiles = 0;
    for (int b = 0; b < d->n_blocks; b++) {
        const rs_gpu_blk_t *bl = &d->blocks[b];
        int32_t nq = d->q[bl->q_seg].len, nk = d->kv[bl->kv_seg].len;
        for (int32_t i0 = 0; i0 < nq; i0 += tq) {
            int32_t i1 = i0 + tq < nq ? i0 + tq : nq;
            for (int32_t j0 = 0; j0 < nk; j0 += tk) {
                int32_t j1 = j0 + tk < nk ? j0 + tk : nk;
                if (rs_gpu_tile_class(bl->mask, bl->diag, i0, i1, j0, j1) == RS_GPU_TILE_SKIP) continue;
                *pairs += (uint64_t)(i1 - i0) * (uint64_t)(j1 - j0);
                *tiles += 1;
            }
        }
    }
}

uint64_t rs_gpu_desc_exec_pairs(const rs_gpu_step_desc_t *d, int32_t tq, int32_t tk) {
    uint64_t p, t;
    desc_walk_tiles(d, tq, tk, &p, &t);
    return p;
}

uint64_t rs_gpu_desc_exec_tiles(const rs_gpu_step_desc_t *d, int32_t tq, int32_t tk) {
    uint64_t p, t;
    desc_walk_tiles(d, tq, tk, &p, &t);
    return t;
}

/* ---------------------------------------------------------------------------------------------------
 * 16-bit floats
 * ------------------------------------------------------------------------------------------------- */
uint16_t rs_gpu_f32_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

float rs_gpu_bf16_to_f32(uint16_t h) {
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

uint16_t rs_gpu_f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return sign | 0x7e00u;  /* NaN */
    if (a >= 0x477ff000u) return sign | 0x7c00u; /* >= 65520 rounds to infinity */
    if (a < 0x38800000u) {                       /* below 2^-14: subnormal or zero */
        float v;
        memcpy(&v, &a, 4);
        return sign | (uint16_t)nearbyint((double)v * 16777216.0); /* units of 2^-24, ties to even */
    }
    uint32_t h = (((a >> 23) - 112u) << 10) | ((a & 0x7fffffu) >> 13);
    uint32_t rem = a & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++; /* carries into the exponent correctly */
    return sign | (uint16_t)h;
}

float rs_gpu_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    float f;
    if (e == 0) {
        f = ldexpf((float)m, -24);
        return sign ? -f : f;
    }
    uint32_t x = e == 31 ? sign | 0x7f800000u | (m << 13) : sign | ((e + 112u) << 23) | (m << 13);
    memcpy(&f, &x, 4);
    return f;
}

void rs_gpu_pack(rs_gpu_dtype_t t, const float *in, uint16_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = t == RS_GPU_FP16 ? rs_gpu_f32_to_f16(in[i]) : rs_gpu_f32_to_bf16(in[i]);
}

void rs_gpu_unpack(rs_gpu_dtype_t t, const uint16_t *in, double *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = t == RS_GPU_FP16 ? rs_gpu_f16_to_f32(in[i]) : rs_gpu_bf16_to_f32(in[i]);
}

void rs_gpu_fill_random(rs_gpu_dtype_t t, uint16_t *out, size_t n, double amp, uint64_t seed) {
    for (size_t i = 0; i < n; i++) {
        float v = (float)(amp * (2.0 * rs_hash_unit(seed, i, 0x9e3779b9u) - 1.0));
        out[i] = t == RS_GPU_FP16 ? rs_gpu_f32_to_f16(v) : rs_gpu_f32_to_bf16(v);
    }
}

/* ---------------------------------------------------------------------------------------------------
 * float64 reference
 * ------------------------------------------------------------------------------------------------- */
/* Pointers to row r of head h in batch b (BHSD). */
static const double *q_row(const rs_gpu_shape_t *sh, const double *q, int b, int h, int r) {
    return q + (((size_t)b * sh->q_heads + h) * sh->q_rows + r) * sh->head_dim;
}
static const double *kv_row(const rs_gpu_shape_t *sh, const double *k, int b, int h, int r) {
    return k + (((size_t)b * sh->kv_heads + h) * sh->kv_rows + r) * sh->head_dim;
}
static double dot(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

void rs_gpu_ref_fwd_init(const rs_gpu_shape_t *sh, const rs_gpu_ref_bufs_t *b) {
    size_t nr = rs_gpu_shape_row_elems(sh);
    memset(b->o, 0, rs_gpu_shape_q_elems(sh) * sizeof *b->o);
    for (size_t i = 0; i < nr; i++) {
        b->m[i] = -INFINITY;
        b->l[i] = 0;
    }
}

void rs_gpu_ref_fwd_step(const rs_gpu_shape_t *sh, const rs_gpu_step_desc_t *desc, const rs_gpu_ref_bufs_t *bufs) {
    const double *q = bufs->q, *k = bufs->k, *v = bufs->v;
    double *o = bufs->o, *m = bufs->m, *l = bufs->l;
    int d = sh->head_dim, group = sh->q_heads / sh->kv_heads;
    for (int b = 0; b < sh->batch; b++)
        for (int h = 0; h < sh->q_heads; h++)
            for (int qs = 0; qs < desc->n_q; qs++)
                for (int32_t i = 0; i < desc->q[qs].len; i++) {
                    int r = desc->q[qs].off + i;
                    const double *qr = q_row(sh, q, b, h, r);
                    size_t ri = ((size_t)b * sh->q_heads + h) * sh->q_rows + r;
                    double *orow = o + ri * d;
                    /* pass 1: the row max of this step's visible scores */
                    double mx = -INFINITY;
                    for (int bl = 0; bl < desc->n_blocks; bl++) {
                        const rs_gpu_blk_t *B = &desc->blocks[bl];
                        if (B->q_seg != qs) continue;
                        for (int32_t j = 0; j < desc->kv[B->kv_seg].len; j++) {
                            if (!rs_gpu_pair_visible(B->mask, B->diag, i, j)) continue;
                            double s = sh->scale * dot(qr, kv_row(sh, k, b, h / group, desc->kv[B->kv_seg].off + j), d);
                            if (s > mx) mx = s;
                        }
                    }
                    if (mx == -INFINITY) continue; /* nothing visible: state unchanged */
                    double m_new = m[ri] > mx ? m[ri] : mx;
                    double alpha = m[ri] == -INFINITY ? 0.0 : exp(m[ri] - m_new);
                    double lsum = 0;
                    for (int x = 0; x < d; x++) orow[x] *= alpha;
                    for (int bl = 0; bl < desc->n_blocks; bl++) {
                        const rs_gpu_blk_t *B = &desc->blocks[bl];
                        if (B->q_seg != qs) continue;
                        for (int32_t j = 0; j < desc->kv[B->kv_seg].len; j++) {
                            if (!rs_gpu_pair_visible(B->mask, B->diag, i, j)) continue;
                            int kr = desc->kv[B->kv_seg].off + j;
                            double p = exp(sh->scale * dot(qr, kv_row(sh, k, b, h / group, kr), d) - m_new);
                            const double *vr = kv_row(sh, v, b, h / group, kr);
                            lsum += p;
                            for (int x = 0; x < d; x++) orow[x] += p * vr[x];
                        }
                    }
                    l[ri] = alpha * l[ri] + lsum;
                    m[ri] = m_new;
                }
}

void rs_gpu_ref_fwd_finalize(const rs_gpu_shape_t *sh, const rs_gpu_ref_bufs_t *b) {
    const double *o = b->o, *m = b->m, *l = b->l;
    double *out = b->out, *lse = b->lse;
    size_t nr = rs_gpu_shape_row_elems(sh);
    int d = sh->head_dim;
    for (size_t r = 0; r < nr; r++) {
        double inv = l[r] > 0 ? 1.0 / l[r] : 0.0;
        for (int x = 0; x < d; x++) out[r * d + x] = o[r * d + x] * inv;
        lse[r] = l[r] > 0 ? m[r] + log(l[r]) : -INFINITY;
    }
}

void rs_gpu_ref_bwd_prep(const rs_gpu_shape_t *sh, const rs_gpu_ref_bufs_t *b) {
    size_t nr = rs_gpu_shape_row_elems(sh);
    int d = sh->head_dim;
    for (size_t r = 0; r < nr; r++) b->dvec[r] = dot(b->out + r * d, b->dout + r * d, d);
}

void rs_gpu_ref_bwd_step(const rs_gpu_shape_t *sh, const rs_gpu_step_desc_t *desc, const rs_gpu_ref_bufs_t *bufs) {
    const double *q = bufs->q, *k = bufs->k, *v = bufs->v, *dout = bufs->dout, *lse = bufs->lse, *dvec = bufs->dvec;
    double *dq = bufs->dq, *dk = bufs->dk, *dv = bufs->dv;
    int d = sh->head_dim, group = sh->q_heads / sh->kv_heads;
    for (int b = 0; b < sh->batch; b++)
        for (int h = 0; h < sh->q_heads; h++)
            for (int bl = 0; bl < desc->n_blocks; bl++) {
                const rs_gpu_blk_t *B = &desc->blocks[bl];
                const rs_gpu_seg_t *qs = &desc->q[B->q_seg], *ks = &desc->kv[B->kv_seg];
                for (int32_t i = 0; i < qs->len; i++) {
                    int r = qs->off + i;
                    size_t ri = ((size_t)b * sh->q_heads + h) * sh->q_rows + r;
                    const double *qr = q_row(sh, q, b, h, r), *dor = q_row(sh, dout, b, h, r);
                    double *dqr = dq + ri * d;
                    for (int32_t j = 0; j < ks->len; j++) {
                        if (!rs_gpu_pair_visible(B->mask, B->diag, i, j)) continue;
                        int kr = ks->off + j;
                        const double *kk = kv_row(sh, k, b, h / group, kr), *vv = kv_row(sh, v, b, h / group, kr);
                        size_t ki = ((size_t)b * sh->kv_heads + h / group) * sh->kv_rows + kr;
                        double p = exp(sh->scale * dot(qr, kk, d) - lse[ri]);
                        double ds = p * (dot(dor, vv, d) - dvec[ri]);
                        for (int x = 0; x < d; x++) {
                            dqr[x] += sh->scale * ds * kk[x];
                            dk[ki * d + x] += sh->scale * ds * qr[x];
                            dv[ki * d + x] += p * dor[x];
                        }
                    }
                }
            }
}

/* ---------------------------------------------------------------------------------------------------
 * Checking
 * ------------------------------------------------------------------------------------------------- */
/* What a check compares: fp32 values, or 16-bit ones of dtype t. */
typedef struct {
    const float *g32;
    const uint16_t *g16;
    rs_gpu_dtype_t t;
} got_t;

static rs_gpu_check_t check_core(const char *name, const got_t *got, const double *ref, size_t n, rs_gpu_tol_t tol) {
    const float *g32 = got->g32;
    const uint16_t *g16 = got->g16;
    const rs_gpu_dtype_t t = got->t;
    const double atol = tol.atol, rtol = tol.rtol;
    const int max_print = tol.max_print;
    rs_gpu_check_t c = {n, 0, 0, 0};
    double num = 0, den = 0;
    int printed = 0;
    for (size_t i = 0; i < n; i++) {
        double g = g32 ? (double)g32[i]
                       : (t == RS_GPU_FP16 ? rs_gpu_f16_to_f32(g16[i]) : rs_gpu_bf16_to_f32(g16[i]));
        double e = fabs(g - ref[i]);
        bool ok = isfinite(g) && e <= atol + rtol * fabs(ref[i]);
        if (isinf(ref[i]) && g == ref[i]) ok = true, e = 0; /* -inf == -inf (empty rows' lse) */
        if (!ok) {
            c.n_bad++;
            if (printed++ < max_print) fprintf(stderr, "  %s[%zu]: got %.9g ref %.9g\n", name, i, g, ref[i]);
        }
        if (isfinite(ref[i])) {
            num += isfinite(e) ? e * e : INFINITY;
            den += ref[i] * ref[i];
        }
        if (!(e <= c.max_abs_err)) c.max_abs_err = e; /* NaN propagates */
    }
    c.rel_l2 = den > 0 ? sqrt(num / den) : sqrt(num);
    if (c.n_bad) c.rel_l2 = isnan(c.rel_l2) ? INFINITY : c.rel_l2;
    return c;
}

rs_gpu_check_t rs_gpu_check_f32(const char *name, const float *got, const double *ref, size_t n, rs_gpu_tol_t tol) {
    return check_core(name, &(got_t){got, NULL, RS_GPU_BF16}, ref, n, tol);
}

rs_gpu_check_t rs_gpu_check_16(const char *name, rs_gpu_dtype_t t, const uint16_t *got, const double *ref, size_t n,
                               rs_gpu_tol_t tol) {
    return check_core(name, &(got_t){NULL, got, t}, ref, n, tol);
}
