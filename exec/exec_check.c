/* exec_check.c - the float64 check and --save-io (exec_check.h): the reference, the outputs in
 * global order against it, the .npy files. */
#include "exec_check.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec_npy.h"

/* ---------------------------------------------------------------------------------------------------
 * float64 reference: plain full attention, one (batch, q head) at a time.
 * ------------------------------------------------------------------------------------------------- */
int rs_exec_reference(const rs_problem_t *p, const rs_exec_ref_t *t, rs_err_t *err) {
    const double *q = t->q, *k = t->k, *v = t->v, *d_o = t->d_o;
    double *o = t->o, *lse = t->lse, *dq = t->dq, *dk = t->dk, *dv = t->dv;
    const int64_t S = p->seq_tokens, P = p->cached_tokens, SK = S + P, d = p->head_dim, Hq = p->q_heads;
    const int64_t Hkv = p->kv_heads, group = Hq / Hkv;
    const double scale = 1.0 / sqrt((double)d);
    double *prow = malloc(sizeof(double) * (size_t)SK);
    if (!prow) return rs_errf(err, "reference: out of memory (%" PRId64 " doubles)", SK);
    const bool bwd = d_o && dq && dk && dv && P == 0;
    if (bwd) {
        memset(dk, 0, sizeof(double) * (size_t)(p->batch * Hkv * S * d));
        memset(dv, 0, sizeof(double) * (size_t)(p->batch * Hkv * S * d));
    }
    for (int64_t b = 0; b < p->batch; b++)
        for (int64_t h = 0; h < Hq; h++) {
            const int64_t hk = h / group;
            const double *Q = q + (b * Hq + h) * S * d, *K = k + (b * Hkv + hk) * SK * d;
            const double *V = v + (b * Hkv + hk) * SK * d;
            double *O = o + (b * Hq + h) * S * d, *L = lse + (b * Hq + h) * S;
            for (int64_t i = 0; i < S; i++) {
                const int64_t jmax = p->causal ? P + i + 1 : SK;
                double mx = -INFINITY;
                for (int64_t j = 0; j < jmax; j++) {
                    double s = 0;
                    for (int64_t x = 0; x < d; x++) s += Q[i * d + x] * K[j * d + x];
                    prow[j] = s * scale;
                    if (prow[j] > mx) mx = prow[j];
                }
                double l = 0;
                for (int64_t j = 0; j < jmax; j++) l += (prow[j] = exp(prow[j] - mx));
                for (int64_t x = 0; x < d; x++) O[i * d + x] = 0;
                for (int64_t j = 0; j < jmax; j++)
                    for (int64_t x = 0; x < d; x++) O[i * d + x] += prow[j] / l * V[j * d + x];
                L[i] = mx + log(l);
            }
            if (!bwd) continue;
            const double *dO = d_o + (b * Hq + h) * S * d;
            double *dQ = dq + (b * Hq + h) * S * d, *dK = dk + (b * Hkv + hk) * S * d;
            double *dV = dv + (b * Hkv + hk) * S * d;
            for (int64_t i = 0; i < S; i++) {
                const int64_t jmax = p->causal ? i + 1 : S;
                double D = 0;
                for (int64_t x = 0; x < d; x++) D += dO[i * d + x] * O[i * d + x];
                for (int64_t x = 0; x < d; x++) dQ[i * d + x] = 0;
                for (int64_t j = 0; j < jmax; j++) {
                    double s = 0, dp = 0;
                    for (int64_t x = 0; x < d; x++) {
                        s += Q[i * d + x] * K[j * d + x];
                        dp += dO[i * d + x] * V[j * d + x];
                    }
                    double pij = exp(s * scale - L[i]);
                    double ds = pij * (dp - D);
                    for (int64_t x = 0; x < d; x++) {
                        dV[j * d + x] += pij * dO[i * d + x];
                        dQ[i * d + x] += scale * ds * K[j * d + x];
                        dK[j * d + x] += scale * ds * Q[i * d + x];
                    }
                }
            }
        }
    free(prow);
    return 0;
}

/* ---------------------------------------------------------------------------------------------------
 * The outputs against it, and --save-io
 * ------------------------------------------------------------------------------------------------- */
/* Scatter every rank's local BHSD rows of its new tokens (gathered rank-major, q_seqs sequences each;
 * decode: local sequence i of rank r is sequence r + i N) into a global BHSD array of the S new tokens. */
static void to_global(const rs_schedule_t *s, int64_t heads, int64_t width, const float *gathered, double *gd, float *gf) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const int64_t N = p->n_ranks, B = rs_problem_block(p), S = p->seq_tokens, P = p->cached_tokens;
    const int64_t qs = rs_problem_buf_seqs(p);
    for (int64_t r = 0; r < N; r++) {
        rs_segment_t segs[RS_MAX_SEGMENTS];
        int ns = rs_schedule_rank_segments(s, r, segs);
        const float *loc = gathered + (size_t)r * (size_t)(qs * heads * B * width);
        for (int64_t i = 0; i < qs; i++) {
            const int64_t b = p->decode ? r + i * N : i;
            if (b >= p->batch) continue;
            for (int64_t h = 0; h < heads; h++) {
                const int64_t bh = i * heads + h, gbh = b * heads + h;
                int64_t row = 0;
                for (int sg = 0; sg < ns; sg++)
                    for (int64_t j = 0; j < segs[sg].count; j++, row++) {
                        int64_t tok = segs[sg].first + j * segs[sg].stride - P;
                        for (int64_t x = 0; x < width; x++) {
                            float v = loc[(bh * B + row) * width + x];
                            size_t gi = (size_t)((gbh * S + tok) * width + x);
                            if (gd) gd[gi] = v;
                            if (gf) gf[gi] = v;
                        }
                    }
            }
        }
    }
}

static double rel_err(const double *x, const double *ref, size_t n, bool *finite, double *ref_max, size_t *worst) {
    double num = 0, den = 0;
    *worst = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(x[i] - ref[i]);
        if (!isfinite(x[i])) {
            if (*finite) *worst = i;
            *finite = false;
        }
        if (d > num && *finite) num = d, *worst = i;
        den = fmax(den, fabs(ref[i]));
    }
    *ref_max = den;
    return den > 0 ? num / den : num;
}

int rs_exec_check_and_save(const rs_schedule_t *s, const rs_exec_opts_t *o, const rs_exec_output_t *outs, int n_outs,
                           rs_exec_result_t *res, rs_err_t *err) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const bool bwd = p->pass == RS_PASS_BACKWARD;
    const int64_t S = p->seq_tokens, P = p->cached_tokens, d = p->head_dim;
    const size_t nq = (size_t)(p->batch * p->q_heads * S * d), nkv = (size_t)(p->batch * p->kv_heads * (S + P) * d);
    const size_t ns = (size_t)(p->batch * p->q_heads * S);
    int rc = -1;
    double *in[4] = {0}, *ref[RS_TENSOR_COUNT] = {0}, *got = NULL;
    float *gf = NULL;
    const rs_tensor_t ins[4] = {RS_TENSOR_Q, RS_TENSOR_K, RS_TENSOR_V, RS_TENSOR_DO};
    size_t maxn = nq > nkv ? nq : nkv;
    got = malloc(sizeof(double) * maxn);
    gf = malloc(sizeof(float) * maxn);
    if (!got || !gf) { rs_errf(err, "check: out of memory"); goto done; }
    /* inputs, global order, regenerated from the seed: Q-like rows are the new tokens (positions
     * P..P+S-1), K and V every position */
    for (int i = 0; i < (bwd ? 4 : 3); i++) {
        const bool kv = ins[i] == RS_TENSOR_K || ins[i] == RS_TENSOR_V;
        size_t n = kv ? nkv : nq;
        int64_t heads = kv ? p->kv_heads : p->q_heads, rows = kv ? S + P : S, first = kv ? 0 : P;
        in[i] = malloc(sizeof(double) * n);
        if (!in[i]) { rs_errf(err, "check: out of memory"); goto done; }
        const rs_exec_input_t src = {o->seed, ins[i], p, ins[i] == RS_TENSOR_DO ? 1.0 : o->input_scale};
        size_t j = 0;
        for (int64_t b = 0; b < p->batch; b++)
            for (int64_t h = 0; h < heads; h++)
                for (int64_t t = 0; t < rows; t++)
                    for (int64_t x = 0; x < d; x++, j++) {
                        float v = rs_exec_input(&src, b, h, first + t, x);
                        in[i][j] = v;
                        gf[j] = v;
                    }
        const int64_t shape[4] = {p->batch, heads, rows, d};
        if (o->save_io_dir && rs_npy_save_tensor(o->save_io_dir, rs_tensor_name(ins[i]), gf, shape, err) < 0) goto done;
    }
    if (o->check) {
        ref[RS_TENSOR_O] = malloc(sizeof(double) * nq);
        ref[RS_TENSOR_LSE] = malloc(sizeof(double) * ns);
        if (bwd) {
            ref[RS_TENSOR_DQ] = malloc(sizeof(double) * nq);
            ref[RS_TENSOR_DK] = malloc(sizeof(double) * nkv);
            ref[RS_TENSOR_DV] = malloc(sizeof(double) * nkv);
        }
        if (!ref[RS_TENSOR_O] || !ref[RS_TENSOR_LSE] || (bwd && (!ref[RS_TENSOR_DQ] || !ref[RS_TENSOR_DK] || !ref[RS_TENSOR_DV]))) {
            rs_errf(err, "check: out of memory");
            goto done;
        }
        const rs_exec_ref_t rt = {in[0], in[1], in[2], bwd ? in[3] : NULL, ref[RS_TENSOR_O], ref[RS_TENSOR_LSE],
                                  ref[RS_TENSOR_DQ], ref[RS_TENSOR_DK], ref[RS_TENSOR_DV]};
        if (rs_exec_reference(p, &rt, err) < 0) goto done;
    }
    for (int i = 0; i < n_outs; i++) {
        const rs_exec_output_t *ot = &outs[i];
        size_t n = (size_t)(p->batch * ot->heads * S * ot->width);
        to_global(s, ot->heads, ot->width, ot->gathered, got, gf);
        bool fin = true;
        if (o->check && ref[ot->t]) {
            size_t w;
            res->err[ot->t] = rel_err(got, ref[ot->t], n, &fin, &res->ref_max[ot->t], &w);
            const int64_t W = ot->width, Sx = p->seq_tokens;
            res->worst[ot->t][3] = (int64_t)w % W;
            res->worst[ot->t][2] = (int64_t)w / W % Sx + p->cached_tokens; /* the token's position */
            res->worst[ot->t][1] = (int64_t)w / W / Sx % ot->heads;
            res->worst[ot->t][0] = (int64_t)w / W / Sx / ot->heads;
            if (!(res->err[ot->t] <= o->check_tol)) res->check_ok = false;
        } else {
            for (size_t j = 0; j < n; j++) fin &= isfinite(got[j]) != 0;
        }
        if (!fin) res->finite = false, res->check_ok = false;
        const int64_t shape[4] = {p->batch, ot->heads, S, ot->width};
        if (o->save_io_dir && ot->t != RS_TENSOR_LSE && rs_npy_save_tensor(o->save_io_dir, rs_tensor_name(ot->t), gf, shape, err) < 0)
            goto done;
    }
    rc = 0;
done:
    for (int i = 0; i < 4; i++) free(in[i]);
    for (int i = 0; i < RS_TENSOR_COUNT; i++) free(ref[i]);
    free(got), free(gf);
    return rc;
}

void rs_exec_check_message(const rs_exec_opts_t *opts, const rs_exec_output_t *outs, int n_outs, const rs_exec_result_t *res,
                           rs_err_t *err) {
    char buf[512];
    int nb = 0;
    for (int i = 0; i < n_outs; i++) {
        const rs_tensor_t t = outs[i].t;
        if (res->err[t] < 0 || nb >= (int)sizeof buf - 1) continue;
        nb += snprintf(buf + nb, sizeof buf - (size_t)nb, "%s%s %.3g", nb ? ", " : "", rs_tensor_name(t), res->err[t]);
        if (nb < (int)sizeof buf - 1 && !(res->err[t] <= opts->check_tol))
            nb += snprintf(buf + nb, sizeof buf - (size_t)nb, " at (batch %lld, head %lld, token %lld, dim %lld)",
                           (long long)res->worst[t][0], (long long)res->worst[t][1], (long long)res->worst[t][2],
                           (long long)res->worst[t][3]);
    }
    rs_errf(err, "check failed: max|x - ref| / max|ref| = %s (tolerance %.3g)%s", nb ? buf : "?", opts->check_tol,
            res->finite ? "" : "; outputs hold inf or NaN");
}

