/* test_cpu_compute.c - the CPU compute backend (exec/cpu_compute.c) on one block: every row-kernel
 * variant (plain reference, AVX2, AVX-512, auto) x every mask kind x chunking, forward and backward,
 * against float64 on fresh random inputs; the exp element by element through the kernel, and NaN
 * inputs giving NaN outputs. (Where it polls: test_cpu_compute_polls.c; the row kernels alone:
 * test_cpu_rows.c.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "exec_fixtures.h"
#include "test_main.h"

typedef struct {
    int64_t B, d, Hq, Hkv;                  /* one block: B x B, heads (GQA when Hq > Hkv) */
    float *q, *k, *v, *d_o;                 /* inputs, BHSD */
    double *o, *lse, *dq, *dk, *dv;         /* float64 reference */
} kblock_t;

static bool visible(rs_mask_t mask, int64_t diag, int64_t i, int64_t j) {
    return mask == RS_MASK_FULL || (mask == RS_MASK_DIAG && i - j >= diag);
}

/* float64 attention of one block under (mask, diag): O, lse (-inf for a row that sees nothing), and
 * the gradients of sum(O * dO) through the softmax (dK, dV summed over the q heads of a kv head). */
static void kblock_reference(kblock_t *t, rs_mask_t mask, int64_t diag) {
    const int64_t B = t->B, d = t->d, g = t->Hq / t->Hkv;
    const double scale = 1.0 / sqrt((double)d);
    double *p = calloc((size_t)B, sizeof(double)), *dp = calloc((size_t)B, sizeof(double));
    memset(t->dk, 0, (size_t)(t->Hkv * B * d) * sizeof(double));
    memset(t->dv, 0, (size_t)(t->Hkv * B * d) * sizeof(double));
    for (int64_t h = 0; h < t->Hq; h++) {
        const float *Q = t->q + h * B * d, *K = t->k + h / g * B * d, *V = t->v + h / g * B * d;
        const float *G = t->d_o + h * B * d;
        double *dK = t->dk + h / g * B * d, *dV = t->dv + h / g * B * d;
        for (int64_t i = 0; i < B; i++) {
            double m = -INFINITY, l = 0, D = 0;
            for (int64_t j = 0; j < B; j++) {
                p[j] = -INFINITY;
                if (!visible(mask, diag, i, j)) continue;
                double s = 0;
                for (int64_t x = 0; x < d; x++) s += (double)Q[i * d + x] * K[j * d + x];
                p[j] = s * scale, m = fmax(m, p[j]);
            }
            for (int64_t j = 0; j < B; j++) l += p[j] == -INFINITY ? 0 : exp(p[j] - m);
            double *O = t->o + (h * B + i) * d, *dQ = t->dq + (h * B + i) * d;
            t->lse[h * B + i] = l > 0 ? m + log(l) : -INFINITY;
            for (int64_t j = 0; j < B; j++) p[j] = p[j] == -INFINITY ? 0 : exp(p[j] - m) / l;
            for (int64_t x = 0; x < d; x++) {
                O[x] = 0, dQ[x] = 0;
                for (int64_t j = 0; j < B; j++) O[x] += p[j] * V[j * d + x];
                D += O[x] * G[i * d + x];
            }
            for (int64_t j = 0; j < B; j++) {
                dp[j] = 0;
                for (int64_t x = 0; x < d; x++) dp[j] += (double)G[i * d + x] * V[j * d + x];
                const double ds = p[j] * (dp[j] - D);
                for (int64_t x = 0; x < d; x++) {
                    dV[j * d + x] += p[j] * G[i * d + x];
                    dQ[x] += scale * ds * K[j * d + x];
                    dK[j * d + x] += scale * ds * Q[i * d + x];
                }
            }
        }
    }
    free(p), free(dp);
}

/* max |x - ref| / max |ref| over n values; -inf must match -inf exactly; a zero reference must be
 * matched exactly (returns max |x|). */
static double rel_err(const float *x, const double *ref, size_t n) {
    double dmax = 0, rmax = 0;
    for (size_t i = 0; i < n; i++) {
        if (isinf(ref[i]) || isinf(x[i])) {
            if (!(isinf(ref[i]) && isinf(x[i]) && ref[i] == x[i])) return INFINITY;
            continue;
        }
        if (isnan(x[i])) return INFINITY;
        dmax = fmax(dmax, fabs(x[i] - ref[i])), rmax = fmax(rmax, fabs(ref[i]));
    }
    return rmax > 0 ? dmax / rmax : dmax;
}

/* How to run the backend on a block: its mask and the kernel's switches. */
typedef struct {
    rs_mask_t mask;
    int64_t diag;
    const char *variant, *kc, *panel; /* RINGSIM_CPU_KERNEL, _KC, _PANEL_ROWS (NULL: unset) */
} kblock_cfg_t;

/* Run the backend on one block (forward, then backward) as cfg says; errors (O, lse, dQ, dK, dV)
 * against the reference into e[5]. Returns 0, or -1 with err when the backend refuses the variant
 * (create). desc (512 bytes) receives its describe() line. */
static int kblock_run(kblock_t *t, const kblock_cfg_t *cfg, double e[5], char *desc, rs_err_t *err) {
    const rs_mask_t mask = cfg->mask;
    const int64_t diag = cfg->diag;
    rs_problem_t p = rs_test_exec_problem(t->B, 1, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_BACKWARD, t->Hkv);
    p.q_heads = t->Hq, p.head_dim = t->d, p.tile_q = 6, p.tile_k = 4;
    rs_exec_rank_t ri = {.problem = p, .rank = 0, .block_tokens = t->B, .softmax_scale = 1.0 / sqrt((double)t->d)};
    ri.n_segs = 1, ri.segs[0] = (rs_segment_t){0, 1, t->B};
    rs_step_t st;
    memset(&st, 0, sizeof st);
    st.pass = RS_PASS_BACKWARD, st.has_compute = true, st.kv_owner = 0, st.send_peer = st.recv_peer = -1;
    st.n_q_segs = st.n_kv_segs = 1, st.q_segs[0] = st.kv_segs[0] = ri.segs[0];
    st.n_blocks = 1, st.blocks[0] = (rs_block_t){.q_seg = 0, .kv_seg = 0, .mask = mask, .diag = diag};
    rs_test_cpu_kernel_env(cfg->variant, cfg->kc, cfg->panel);
    const rs_compute_ops_t *o = &rs_cpu_compute_ops;
    void *cs = NULL, *kv = NULL, *dkv = NULL;
    int rc = o->create(&ri, &cs, err);
    rs_test_cpu_kernel_env(NULL, NULL, NULL);
    if (rc < 0) return -1;
    snprintf(desc, 512, "%s", o->describe(cs));
    const size_t nq = (size_t)(t->Hq * t->B * t->d), nk = (size_t)(t->Hkv * t->B * t->d), ns = (size_t)(t->Hq * t->B);
    float *out = malloc((nq + ns + nq + 2 * nk) * sizeof(float));
    float *O = out, *L = O + nq, *dQ = L + ns, *dK = dQ + nq, *dV = dK + nk;
    CU_ASSERT_FATAL(out != NULL);
    CU_ASSERT_EQUAL_FATAL(o->buf_alloc(cs, rs_problem_kv_bytes(&p), &kv, err), 0);
    CU_ASSERT_EQUAL_FATAL(o->buf_alloc(cs, rs_problem_dkv_bytes(&p), &dkv, err), 0);
    rc = o->upload(cs, RS_TENSOR_Q, t->q, NULL, err) | o->upload(cs, RS_TENSOR_K, t->k, kv, err) |
         o->upload(cs, RS_TENSOR_V, t->v, kv, err) | o->upload(cs, RS_TENSOR_DO, t->d_o, NULL, err) |
         o->fwd_begin(cs, err) | o->fwd_step(cs, &st, kv, err) | o->fwd_end(cs, err) |
         o->download(cs, RS_TENSOR_O, O, NULL, err) | o->download(cs, RS_TENSOR_LSE, L, NULL, err) |
         o->bwd_begin(cs, err) | o->grad_zero(cs, dkv, err) | o->bwd_step(cs, &st, kv, dkv, err) |
         o->bwd_end(cs, err) | o->download(cs, RS_TENSOR_DQ, dQ, NULL, err) |
         o->download(cs, RS_TENSOR_DK, dK, dkv, err) | o->download(cs, RS_TENSOR_DV, dV, dkv, err);
    CU_ASSERT_EQUAL(rc, 0);
    e[0] = rel_err(O, t->o, nq), e[1] = rel_err(L, t->lse, ns), e[2] = rel_err(dQ, t->dq, nq);
    e[3] = rel_err(dK, t->dk, nk), e[4] = rel_err(dV, t->dv, nk);
    o->buf_free(cs, kv), o->buf_free(cs, dkv), o->destroy(cs);
    free(out);
    return 0;
}

/* Does this CPU have the ISA a variant needs? */
static bool cpu_has(const char *variant) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (strcmp(variant, "avx2") == 0) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (strcmp(variant, "avx512f") == 0) return __builtin_cpu_supports("avx512f");
    return true;
#else
    return strcmp(variant, "avx2") != 0 && strcmp(variant, "avx512f") != 0;
#endif
}

/* Every variant x mask kind (FULL, SKIP, DIAG with diag 0, 1, -9, 5: rows that see nothing, B + 3:
 * nothing visible) x chunking (one chunk and panel; 12-column chunks and 12-row panels: several of
 * each, vector tails) on B = 37, d = 24, 2 q heads on 1 kv head, tile 6x4: O, lse, dQ, dK, dV within
 * 2e-6 of float64 (a margin of about 3 over fp32 with a ~2-ulp exp). A variant the CPU lacks must be refused with a message
 * naming the variable. */
RS_TEST(test_kernel_variants_masks, "kernel_variants_masks") {
    const uint64_t seed = rs_test_fresh_seed();
    fprintf(stderr, "  kernel variants: seed %llu (RINGSIM_TEST_SEED=%llu repeats this run)\n",
            (unsigned long long)seed, (unsigned long long)seed);
    kblock_t t = {.B = 37, .d = 24, .Hq = 2, .Hkv = 1};
    const size_t nq = (size_t)(t.Hq * t.B * t.d), nk = (size_t)(t.Hkv * t.B * t.d);
    t.q = malloc(nq * 4), t.d_o = malloc(nq * 4), t.k = malloc(nk * 4), t.v = malloc(nk * 4);
    t.o = malloc(nq * 8), t.dq = malloc(nq * 8), t.lse = malloc((size_t)(t.Hq * t.B) * 8);
    t.dk = malloc(nk * 8), t.dv = malloc(nk * 8);
    CU_ASSERT_FATAL(t.q && t.d_o && t.k && t.v && t.o && t.dq && t.lse && t.dk && t.dv);
    for (size_t i = 0; i < nq; i++) {
        t.q[i] = (float)(4 * rs_hash_unit(seed, 1, i) - 2), t.d_o[i] = (float)(2 * rs_hash_unit(seed, 4, i) - 1);
    }
    for (size_t i = 0; i < nk; i++) {
        t.k[i] = (float)(4 * rs_hash_unit(seed, 2, i) - 2), t.v[i] = (float)(2 * rs_hash_unit(seed, 3, i) - 1);
    }
    const struct {
        rs_mask_t mask;
        int64_t diag;
    } masks[] = {{RS_MASK_FULL, 0}, {RS_MASK_SKIP, 0},  {RS_MASK_DIAG, 0},         {RS_MASK_DIAG, 1},
                 {RS_MASK_DIAG, -9}, {RS_MASK_DIAG, 5}, {RS_MASK_DIAG, 37 + 3}};
    const char *variants[] = {"plain", "avx2", "avx512f", "auto"};
    const char *chunking[][2] = {{NULL, NULL}, {"12", "12"}};
    const char *tname[] = {"O", "lse", "dQ", "dK", "dV"};
    int ran = 0;
    for (size_t mi = 0; mi < sizeof masks / sizeof masks[0]; mi++) {
        kblock_reference(&t, masks[mi].mask, masks[mi].diag);
        for (int vi = 0; vi < 4; vi++)
            for (int ci = 0; ci < 2; ci++) {
                double e[5];
                char desc[512] = "";
                rs_err_t err = {0};
                const kblock_cfg_t cfg = {masks[mi].mask, masks[mi].diag, variants[vi], chunking[ci][0], chunking[ci][1]};
                int rc = kblock_run(&t, &cfg, e, desc, &err);
                if (!cpu_has(variants[vi])) { /* refused, with a message */
                    CU_ASSERT_EQUAL(rc, -1);
                    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "RINGSIM_CPU_KERNEL"));
                    if (mi == 0 && ci == 0)
                        fprintf(stderr, "  %s: skipped, this CPU lacks it (%s)\n", variants[vi], err.msg);
                    continue;
                }
                CU_ASSERT_EQUAL_FATAL(rc, 0);
                ran++;
                if (vi < 3) { /* the variant asked for is the one that ran */
                    char want[32];
                    snprintf(want, sizeof want, "(%s exp)", vi == 1 ? "avx2+fma" : variants[vi]);
                    CU_ASSERT_PTR_NOT_NULL(strstr(desc, want));
                }
                for (int x = 0; x < 5; x++) {
                    if (!(e[x] <= 2e-6))
                        fprintf(stderr, "  %s %s diag %lld chunking %d: %s error %.3g > 2e-6\n", variants[vi],
                                rs_mask_name(masks[mi].mask), (long long)masks[mi].diag, ci, tname[x], e[x]);
                    CU_ASSERT(e[x] <= 2e-6);
                }
                if (ci == 1 && (mi == 0 || mi == 5))
                    fprintf(stderr, "  %-7s %s diag %lld, small chunks: O %.2g lse %.2g dQ %.2g dK %.2g dV %.2g\n",
                            variants[vi], rs_mask_name(masks[mi].mask), (long long)masks[mi].diag, e[0], e[1], e[2],
                            e[3], e[4]);
            }
    }
    CU_ASSERT(ran >= 2 * 2 * 7); /* at least plain and auto, both chunkings, every mask */
    free(t.q), free(t.k), free(t.v), free(t.d_o), free(t.o), free(t.lse), free(t.dq), free(t.dk), free(t.dv);
}

/* The exp of every variant, element by element, through the kernel: d = 1, FULL block of B = 64.
 * Column 0 has logit 0, column 1 logit x_i (row i: x from -80 to -0.01), columns 2.. logits <= -100,
 * whose exp must be exactly 0 (their V is 1e38: any residue shows). V = (0, 1, 1e38, ...), dO = 1:
 *   O_i = e^x / (1 + e^x)                        (forward: the relative error of O_i is that of e^x)
 *   dQ_i = -scale P_i1 (1 - O_i), P_i1 = e^(x - lse)   (backward: the recomputed P)
 * Checked row by row against float64: O and dQ relative within 1e-6 (Cephes is ~2 ulp = 2.4e-7), lse
 * = log(1 + e^x) absolute within 2 ulp of 1. Then NaN inputs must give NaN outputs, never a silent 0:
 * a NaN query its row of O, a NaN key every row. */
RS_TEST(test_kernel_exp_rows, "kernel_exp_rows") {
    enum { B = 64 };
    float q[B], k[B], v[B], g[B], O[B], L[B], dQ[B], dK[B], dV[B];
    for (int i = 0; i < B; i++) {
        const double x = -0.01 - 79.99 * i / (B - 1); /* row i's logit of column 1 */
        q[i] = (float)-x, g[i] = 1.0f;
        k[i] = i == 0 ? 0.0f : (i == 1 ? -1.0f : -1e4f);
        v[i] = i == 0 ? 0.0f : (i == 1 ? 1.0f : 1e38f);
    }
    const char *variants[] = {"plain", "avx2", "avx512f"};
    for (int vi = 0; vi < 3; vi++) {
        if (!cpu_has(variants[vi])) continue; /* the refusal is tested in kernel_variants_masks */
        rs_problem_t p = rs_test_exec_problem(B, 1, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_BACKWARD, 1);
        p.q_heads = 1, p.head_dim = 1, p.tile_q = 16, p.tile_k = 16;
        rs_exec_rank_t ri = {.problem = p, .rank = 0, .block_tokens = B, .softmax_scale = 1.0};
        ri.n_segs = 1, ri.segs[0] = (rs_segment_t){0, 1, B};
        rs_step_t st;
        memset(&st, 0, sizeof st);
        st.pass = RS_PASS_BACKWARD, st.has_compute = true, st.send_peer = st.recv_peer = -1;
        st.n_q_segs = st.n_kv_segs = 1, st.q_segs[0] = st.kv_segs[0] = ri.segs[0];
        st.n_blocks = 1, st.blocks[0] = (rs_block_t){.q_seg = 0, .kv_seg = 0, .mask = RS_MASK_FULL};
        const rs_compute_ops_t *o = &rs_cpu_compute_ops;
        void *cs = NULL, *kv = NULL, *dkv = NULL;
        rs_err_t err = {0};
        setenv("RINGSIM_CPU_KERNEL", variants[vi], 1);
        int rc = o->create(&ri, &cs, &err);
        unsetenv("RINGSIM_CPU_KERNEL");
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        rc = o->buf_alloc(cs, rs_problem_kv_bytes(&p), &kv, &err) |
             o->buf_alloc(cs, rs_problem_dkv_bytes(&p), &dkv, &err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        rc = o->upload(cs, RS_TENSOR_Q, q, NULL, &err) | o->upload(cs, RS_TENSOR_K, k, kv, &err) |
             o->upload(cs, RS_TENSOR_V, v, kv, &err) | o->upload(cs, RS_TENSOR_DO, g, NULL, &err) |
             o->fwd_begin(cs, &err) | o->fwd_step(cs, &st, kv, &err) | o->fwd_end(cs, &err) |
             o->download(cs, RS_TENSOR_O, O, NULL, &err) | o->download(cs, RS_TENSOR_LSE, L, NULL, &err) |
             o->bwd_begin(cs, &err) | o->grad_zero(cs, dkv, &err) | o->bwd_step(cs, &st, kv, dkv, &err) |
             o->download(cs, RS_TENSOR_DQ, dQ, NULL, &err) | o->download(cs, RS_TENSOR_DK, dK, dkv, &err) |
             o->download(cs, RS_TENSOR_DV, dV, dkv, &err);
        CU_ASSERT_EQUAL(rc, 0);
        double worst_o = 0, worst_dq = 0, worst_l = 0;
        for (int i = 0; i < B; i++) {
            const double x = (double)-q[i], ex = exp(x), o_ref = ex / (1 + ex), lse = log1p(ex);
            const double dq_ref = -exp(x - lse) * (1 - o_ref);
            worst_o = fmax(worst_o, fabs(O[i] - o_ref) / o_ref);
            worst_dq = fmax(worst_dq, fabs(dQ[i] - dq_ref) / fabs(dq_ref));
            worst_l = fmax(worst_l, fabs(L[i] - lse)); /* absolute: lse = log(1 + e^x) -> 0 */
        }
        fprintf(stderr, "  exp rows %-7s: max relative error O %.3g, dQ %.3g; absolute lse %.3g\n", variants[vi],
                worst_o, worst_dq, worst_l);
        CU_ASSERT(worst_o <= 1e-6);
        CU_ASSERT(worst_l <= 2.4e-7); /* 2 ulp of 1 */
        CU_ASSERT(worst_dq <= 1e-6);
        /* a NaN query gives a NaN row (never a silent 0: the executor's finiteness check must see it) */
        float qn[B];
        memcpy(qn, q, sizeof qn);
        qn[3] = NAN;
        rc = o->upload(cs, RS_TENSOR_Q, qn, NULL, &err) | o->fwd_begin(cs, &err) | o->fwd_step(cs, &st, kv, &err) |
             o->fwd_end(cs, &err) | o->download(cs, RS_TENSOR_O, O, NULL, &err);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(isnan(O[3]));
        CU_ASSERT(isfinite(O[2]) && isfinite(O[4]));
        /* a NaN key (column 5 of every row, beside finite logits): every row of O is NaN */
        float kn[B];
        memcpy(kn, k, sizeof kn);
        kn[5] = NAN;
        rc = o->upload(cs, RS_TENSOR_Q, q, NULL, &err) | o->upload(cs, RS_TENSOR_K, kn, kv, &err) |
             o->fwd_begin(cs, &err) | o->fwd_step(cs, &st, kv, &err) | o->fwd_end(cs, &err) |
             o->download(cs, RS_TENSOR_O, O, NULL, &err);
        CU_ASSERT_EQUAL(rc, 0);
        int n_nan = 0;
        for (int i = 0; i < B; i++) n_nan += isnan(O[i]) != 0;
        CU_ASSERT_EQUAL(n_nan, B);
        o->buf_free(cs, kv), o->buf_free(cs, dkv), o->destroy(cs);
    }
}

RS_TEST_PROGRAM("cpu_compute")
