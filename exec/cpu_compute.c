/* cpu_compute.c - the CPU compute backend: blockwise attention in fp32 with the seed's online softmax.
 *
 * Per step, per (batch, q head), per (Q segment, KV segment) block of the schedule, per panel of
 * query rows (a DIAG block: one tile of tile_q rows; a FULL block: a panel of several tiles), per
 * chunk of columns:
 *   forward   S = scale * Q_t K^T              (cblas_sgemm, tile_q x n_cols x d)
 *             m' = max(m, rowmax S); P = exp(S - m'); l = exp(m - m') l + rowsum P
 *             O = diag(exp(m - m')) O + P V     (cblas_sgemm, tile_q x d x n_cols)
 *   backward  P = exp(scale * Q_t K^T - lse)    (recomputed from the saved statistics)
 *             dV += P^T dO_t; dP = dO_t V^T; dS = P * (dP - D); dQ_t += scale dS K; dK += scale dS^T Q_t
 * where n_cols is the visible column extent rounded up to tile_k (the tiles the schedule counts in
 * flops_exec); a DIAG block masks (i, j) with i - j < diag to -inf before the softmax. One OpenBLAS
 * thread per rank (one rank = one core). Twice per column chunk (after the logits and after the
 * update) the rank's transport progress hook runs (MPI_Testsome in --progress poll).
 *
 * The softmax rows run on the row kernels of cpu_rows.h (RINGSIM_CPU_KERNEL, default auto = the
 * widest fast path the CPU has): plain, the reference, with one tile of rows at a time and 512-column
 * chunks; a fast path with chunk columns and the rows of a FULL block's panels derived from the L2
 * size (chunk_sizes). Same arithmetic otherwise; tests/exec/test_cpu_compute.c checks every variant
 * against float64 for every mask kind, both passes.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_rows.h"
#include "exec.h"

typedef struct {
    rs_exec_rank_t r;      /* rank description */
    int64_t B, d, Hq, Hkv, batch, group; /* shape: Q rows, head dim, heads, batch, q heads per kv head */
    int64_t Bkv, qseqs;    /* K,V rows (cache included); sequences of the Q-like tensors */
    int64_t tq, tk;        /* tile rows / columns */
    int64_t kc;            /* columns per chunk: a multiple of tk (see chunk_sizes) */
    int64_t mq_fwd, mq_bwd; /* rows per panel of a FULL block, forward / backward: multiples of tq */
    int64_t l2_bytes;      /* the L2 size the sizes were derived from (0: plain, fixed sizes) */
    int64_t row0[RS_MAX_SEGMENTS]; /* first local row of each of the rank's segments */
    float *q, *o, *d_o, *dq;       /* [qseqs][Hq][B][d] */
    float *m, *l, *lse, *dd;       /* [qseqs][Hq][B]: running max, normaliser, log-sum-exp, D */
    float *po, *pm, *pl;           /* pass-q: one owner's partial O, m, l while a step runs */
    float *ws_s, *ws_dp;           /* [tq][kc] workspaces (logits/P, dP/dS) */
    const rs_cpu_rows_t *rows;     /* softmax row kernels: plain or a fast path */
    size_t kv_elems;               /* elements of one of K or V in a KV buffer */
    double t_start_s, t_end_s;     /* interval of the last step */
    char desc[512];                /* describe() text */
} cpu_state_t;

/* ---------------------------------------------------------------------------------------------------
 * Lifecycle
 * ------------------------------------------------------------------------------------------------- */
static void cpu_destroy(void *state) {
    cpu_state_t *c = state;
    if (!c) return;
    free(c->q), free(c->o), free(c->d_o), free(c->dq);
    free(c->m), free(c->l), free(c->lse), free(c->dd);
    free(c->po), free(c->pm), free(c->pl);
    free(c->ws_s), free(c->ws_dp);
    free(c);
}

/* This core's L2 in bytes: sysconf, else /sys (cpu0), else 1 MiB; clamped to [256 KiB, 8 MiB]. */
static int64_t l2_cache_bytes(void) {
    long b = 0;
#ifdef _SC_LEVEL2_CACHE_SIZE
    b = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    if (b <= 0) {
        FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index2/size", "r");
        long kib = 0;
        char unit = 'K';
        if (f && fscanf(f, "%ld%c", &kib, &unit) >= 1) b = unit == 'M' ? kib << 20 : kib << 10;
        if (f) fclose(f);
    }
    if (b <= 0) b = 1 << 20;
    return b < (256 << 10) ? 256 << 10 : (b > (8 << 20) ? 8 << 20 : b);
}

/* Chunk and panel sizes. Plain (the reference): one tile of rows, 512 columns. Fast paths, from the
 * L2 size: the packed K and V chunks take half of L2 (kc = L2 / (16 d) columns, at most 4096: 256 on
 * a 512 KiB L2, 512 on 1 MiB), and a FULL block runs panels of several tiles whose score workspace
 * fills L2 (forward S: L2 / (4 kc) rows; backward P and dS: half that), so OpenBLAS packs each K,V
 * chunk once per panel instead of once per tile. DIAG blocks always go tile by tile (the schedule's
 * executed tiles). RINGSIM_CPU_KC overrides the columns (rounded up to a multiple of tile_k, as is
 * 512); RINGSIM_CPU_PANEL_ROWS the fast paths' panel rows of both passes (rounded up to a multiple of
 * tile_q). */
static void chunk_sizes(cpu_state_t *c) {
    const char *kce = getenv("RINGSIM_CPU_KC");
    int64_t kc_want = 512;
    c->mq_fwd = c->mq_bwd = c->tq, c->l2_bytes = 0;
    if (c->rows != &rs_cpu_rows_plain) {
        c->l2_bytes = l2_cache_bytes();
        kc_want = c->l2_bytes / (16 * c->d);
        if (kc_want > 4096) kc_want = 4096; /* small head_dim: bound the workspaces */
    }
    if (c->l2_bytes) kc_want = kc_want / c->tk * c->tk; /* derived: round down (stay inside L2) */
    if (kce && atoll(kce) > 0) kc_want = atoll(kce);
    c->kc = (kc_want + c->tk - 1) / c->tk * c->tk;      /* a multiple of tile_k, at least one tile */
    if (c->kc < c->tk) c->kc = c->tk;
    if (c->rows != &rs_cpu_rows_plain) {
        int64_t f = c->l2_bytes / (4 * c->kc) / c->tq, b = f / 2;
        const char *pe = getenv("RINGSIM_CPU_PANEL_ROWS");
        if (pe && atoll(pe) > 0) f = b = (atoll(pe) + c->tq - 1) / c->tq;
        c->mq_fwd = (f > 1 ? f : 1) * c->tq, c->mq_bwd = (b > 1 ? b : 1) * c->tq;
    }
}

static float *falloc(size_t n) { return calloc(n ? n : 1, sizeof(float)); }

static int cpu_create(const rs_exec_rank_t *r, void **state, rs_err_t *err) {
    const rs_problem_t *p = &r->problem;
    if (p->act_bytes != 4) return rs_errf(err, "cpu backend: computes in fp32; use --dtype fp32 (act_bytes 4, got %lld)", (long long)p->act_bytes);
    if (p->grad_bytes != 4) return rs_errf(err, "cpu backend: dK,dV travel in fp32; use --grad-bytes 4 (got %lld)", (long long)p->grad_bytes);
    const rs_cpu_rows_t *rows = rs_cpu_rows_pick(err);
    if (!rows) return -1;
    cpu_state_t *c = calloc(1, sizeof *c);
    if (!c) return rs_errf(err, "cpu backend: out of memory");
    c->rows = rows;
    c->r = *r;
    c->B = r->block_tokens, c->d = p->head_dim, c->Hq = p->q_heads, c->Hkv = p->kv_heads, c->batch = p->batch;
    c->Bkv = r->kv_rows > 0 ? r->kv_rows : r->block_tokens, c->qseqs = r->q_seqs > 0 ? r->q_seqs : p->batch;
    c->group = c->Hq / c->Hkv;
    c->tq = p->tile_q, c->tk = p->tile_k;
    chunk_sizes(c);
    int64_t acc = 0;
    for (int s = 0; s < r->n_segs; s++) c->row0[s] = acc, acc += r->segs[s].count;
    size_t nq = (size_t)(c->qseqs * c->Hq * c->B * c->d), ns = (size_t)(c->qseqs * c->Hq * c->B);
    c->kv_elems = (size_t)(c->batch * c->Hkv * c->Bkv * c->d);
    int64_t mq = c->mq_fwd > c->mq_bwd ? c->mq_fwd : c->mq_bwd;
    if (mq > c->B) mq = c->B;
    c->q = falloc(nq), c->o = falloc(nq), c->d_o = falloc(nq), c->dq = falloc(nq);
    c->m = falloc(ns), c->l = falloc(ns), c->lse = falloc(ns), c->dd = falloc(ns);
    if (rs_problem_passes_q(p)) c->po = falloc(nq), c->pm = falloc(ns), c->pl = falloc(ns);
    int64_t kc = c->kc < c->Bkv ? c->kc : c->Bkv;
    c->ws_s = falloc((size_t)(mq * kc)), c->ws_dp = falloc((size_t)(mq * kc));
    if (!c->q || !c->o || !c->d_o || !c->dq || !c->m || !c->l || !c->lse || !c->dd || !c->ws_s || !c->ws_dp ||
        (rs_problem_passes_q(p) && (!c->po || !c->pm || !c->pl))) {
        rs_errf(err, "cpu backend: out of memory for B=%lld, d=%lld, %lld heads", (long long)c->B, (long long)c->d,
                (long long)c->Hq);
        cpu_destroy(c);
        return -1;
    }
    openblas_set_num_threads(1);
    if (c->l2_bytes)
        snprintf(c->desc, sizeof c->desc,
                 "cpu fp32: sgemm (%s) + online softmax (%s exp), tile %lldx%lld, %lld-column chunks, full blocks in "
                 "panels of %lld/%lld rows (fwd/bwd; from L2 %lld KiB), 1 thread/rank",
                 rs_exec_blas_version(), c->rows->name, (long long)c->tq, (long long)c->tk, (long long)c->kc,
                 (long long)c->mq_fwd, (long long)c->mq_bwd, (long long)(c->l2_bytes / 1024));
    else
        snprintf(c->desc, sizeof c->desc,
                 "cpu fp32: sgemm (%s) + online softmax (%s exp), tile %lldx%lld, %lld-column chunks, 1 thread/rank",
                 rs_exec_blas_version(), c->rows->name, (long long)c->tq, (long long)c->tk, (long long)c->kc);
    *state = c;
    return 0;
}

static int cpu_buf_alloc(void *state, size_t bytes, void **buf, rs_err_t *err) {
    (void)state;
    *buf = calloc(1, bytes ? bytes : 1);
    return *buf ? 0 : rs_errf(err, "cpu backend: out of memory (%zu bytes)", bytes);
}

static void cpu_buf_free(void *state, void *buf) {
    (void)state;
    free(buf);
}

static int cpu_upload(void *state, rs_tensor_t which, const float *host, void *buf, rs_err_t *err) {
    cpu_state_t *c = state;
    size_t nq = (size_t)(c->qseqs * c->Hq * c->B * c->d);
    switch (which) {
    case RS_TENSOR_Q: memcpy(buf ? buf : c->q, host, nq * sizeof(float)); return 0;
    case RS_TENSOR_DO: memcpy(c->d_o, host, nq * sizeof(float)); return 0;
    case RS_TENSOR_K: memcpy(buf, host, c->kv_elems * sizeof(float)); return 0;
    case RS_TENSOR_V: memcpy((float *)buf + c->kv_elems, host, c->kv_elems * sizeof(float)); return 0;
    default: return rs_errf(err, "cpu backend: cannot upload tensor %s", rs_tensor_name(which));
    }
}

static int cpu_download(void *state, rs_tensor_t which, float *host, const void *buf, rs_err_t *err) {
    cpu_state_t *c = state;
    size_t nq = (size_t)(c->qseqs * c->Hq * c->B * c->d), ns = (size_t)(c->qseqs * c->Hq * c->B);
    switch (which) {
    case RS_TENSOR_O: memcpy(host, c->o, nq * sizeof(float)); return 0;
    case RS_TENSOR_DQ: memcpy(host, c->dq, nq * sizeof(float)); return 0;
    case RS_TENSOR_LSE: memcpy(host, c->lse, ns * sizeof(float)); return 0;
    case RS_TENSOR_DK: memcpy(host, buf, c->kv_elems * sizeof(float)); return 0;
    case RS_TENSOR_DV: memcpy(host, (const float *)buf + c->kv_elems, c->kv_elems * sizeof(float)); return 0;
    default: return rs_errf(err, "cpu backend: cannot download tensor %s", rs_tensor_name(which));
    }
}

/* ---------------------------------------------------------------------------------------------------
 * Geometry of a block: rows of the Q segment, columns of the KV segment, visible extent per row tile
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    int64_t q0, nq;   /* first local Q row, rows */
    int64_t k0, nk;   /* first row of the KV segment inside the KV buffer, columns */
} block_geom_t;

static block_geom_t block_geom(const cpu_state_t *c, const rs_step_t *st, const rs_block_t *bl) {
    block_geom_t g;
    g.q0 = c->row0[bl->q_seg];
    g.nq = st->q_segs[bl->q_seg].count;
    g.k0 = 0;
    for (int s = 0; s < bl->kv_seg; s++) g.k0 += st->kv_segs[s].count;
    g.nk = st->kv_segs[bl->kv_seg].count;
    return g;
}

/* Columns of the executed tiles for rows [i0, i1) of a block: the union of tile_k tiles holding at
 * least one visible pair (0 if none). */
static int64_t tile_cols(const cpu_state_t *c, const rs_block_t *bl, int64_t i0, int64_t i1, int64_t nk) {
    (void)i0;
    if (bl->mask == RS_MASK_FULL) return nk;
    if (bl->mask == RS_MASK_SKIP) return 0;
    int64_t last = i1 - 1 - bl->diag; /* largest visible column of the tile's last row */
    if (last < 0) return 0;
    int64_t cols = (last / c->tk + 1) * c->tk;
    return cols < nk ? cols : nk;
}

/* Mask logits of block rows [i0, i1) and block columns [c0, c0 + ncols) (stored from column 0 of
 * the tile, ncols per row) to -inf where i - j < diag. */
static void apply_diag(float *s, int64_t i0, int64_t i1, int64_t c0, int64_t ncols, int64_t diag) {
    for (int64_t i = i0; i < i1; i++) {
        int64_t jfirst = i - diag + 1 - c0; /* first masked column of the chunk */
        if (jfirst < 0) jfirst = 0;
        float *row = s + (i - i0) * ncols;
        for (int64_t j = jfirst; j < ncols; j++) row[j] = -INFINITY;
    }
}

/* A row whose max is -inf holds only -inf (masked) or also NaN (from NaN inputs; max skips NaN):
 * true if any element is not -inf. */
static bool nan_row(const float *row, int64_t n) {
    for (int64_t j = 0; j < n; j++)
        if (row[j] != -INFINITY) return true;
    return false;
}

static void progress(const cpu_state_t *c) {
    if (c->r.progress) c->r.progress(c->r.progress_arg);
}

/* One panel of a block: rows [i0, i1) of the block's Q segment of local sequence b, q head h,
 * against the first nc columns of its KV segment of K,V sequence kvb. */
typedef struct {
    const rs_block_t *bl;  /* the block */
    block_geom_t g;        /* its rows and columns */
    int64_t h, kvb;        /* q head; K,V sequence */
    int64_t i0, i1, nc;    /* rows in the block; visible columns (tile_cols) */
    size_t r0;             /* the panel's first row in the rank's Q-like arrays */
} panel_t;

/* Where the panel's K rows start in a K,V (or dK,dV) buffer: its K,V sequence, kv head and block
 * column 0. */
static size_t kv_offset(const cpu_state_t *c, const panel_t *pn) {
    return (size_t)(((pn->kvb * c->Hkv + pn->h / c->group) * c->Bkv + pn->g.k0) * c->d);
}

/* Every panel of the step's blocks with a visible column (SKIP blocks have none), for local
 * sequences [0, seqs) (decode: local sequence b reads the K,V of sequence q_owner + b N), mq_full
 * rows per panel in FULL blocks and one tile of rows in DIAG ones; fn(c, panel, arg) on each. */
static void for_each_panel(cpu_state_t *c, const rs_step_t *st, int64_t seqs, int64_t mq_full,
                           void (*fn)(cpu_state_t *, const panel_t *, void *), void *arg) {
    const bool decode = c->r.problem.decode;
    for (int bi = 0; bi < st->n_blocks; bi++) {
        const rs_block_t *bl = &st->blocks[bi];
        if (bl->mask == RS_MASK_SKIP) continue;
        const block_geom_t g = block_geom(c, st, bl);
        const int64_t mq = bl->mask == RS_MASK_FULL ? mq_full : c->tq; /* rows per panel */
        for (int64_t b = 0; b < seqs; b++)
            for (int64_t h = 0; h < c->Hq; h++) {
                panel_t pn = {.bl = bl, .g = g, .h = h, .kvb = decode ? st->q_owner + b * c->r.problem.n_ranks : b};
                const size_t qh = (size_t)((b * c->Hq + h) * c->B);
                for (pn.i0 = 0; pn.i0 < g.nq; pn.i0 += mq) {
                    pn.i1 = pn.i0 + mq < g.nq ? pn.i0 + mq : g.nq;
                    pn.nc = tile_cols(c, bl, pn.i0, pn.i1, g.nk);
                    if (pn.nc == 0) continue;
                    pn.r0 = qh + (size_t)(g.q0 + pn.i0);
                    fn(c, &pn, arg);
                }
            }
    }
}

/* ---------------------------------------------------------------------------------------------------
 * Forward
 * ------------------------------------------------------------------------------------------------- */
static int cpu_fwd_begin(void *state, rs_err_t *err) {
    (void)err;
    cpu_state_t *c = state;
    size_t nq = (size_t)(c->qseqs * c->Hq * c->B * c->d), ns = (size_t)(c->qseqs * c->Hq * c->B);
    memset(c->o, 0, nq * sizeof(float));
    memset(c->l, 0, ns * sizeof(float));
    for (size_t i = 0; i < ns; i++) c->m[i] = -INFINITY;
    return 0;
}

/* What the forward of one step reads and folds into: the queries ([qseqs][Hq][B][d]), the K,V buffer,
 * the running (o, m, l). */
typedef struct {
    const float *q;        /* the queries (the state's Q, or pass-q's visiting ones) */
    const float *kv;       /* the K,V buffer */
    float *o, *m, *l;      /* the running output, row max and normaliser */
} fwd_io_t;

/* The forward of one panel, folded into (o, m, l) with the seed's recurrence. Its start is a
 * deliberate twin of bwd_panel's: the same panel geometry, read for each pass's own buffers. */
static void fwd_panel(cpu_state_t *c, const panel_t *pn, void *arg) {
    const fwd_io_t *io = arg;
    const float scale = (float)c->r.softmax_scale;
    const int64_t d = c->d, nr = pn->i1 - pn->i0, nc = pn->nc, i0 = pn->i0, i1 = pn->i1;
    const rs_block_t *bl = pn->bl;
    const float *K = io->kv + kv_offset(c, pn), *V = K + c->kv_elems;
    const float *Q = io->q + pn->r0 * (size_t)d;
    float *O = io->o + pn->r0 * (size_t)d;
    float *m = io->m + pn->r0, *l = io->l + pn->r0;
    for (int64_t c0 = 0; c0 < nc; c0 += c->kc) { /* column chunks: the seed's recurrence */
        const int64_t ncc = c0 + c->kc < nc ? c->kc : nc - c0;
        float *S = c->ws_s;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nr, (int)ncc, (int)d, scale, Q, (int)d, K + c0 * d, (int)d, 0.0f,
                    S, (int)ncc);
        if (bl->mask == RS_MASK_DIAG) apply_diag(S, i0, i1, c0, ncc, bl->diag);
        progress(c);
        for (int64_t i = 0; i < nr; i++) {
            float *row = S + i * ncc;
            float mt = c->rows->row_max(row, ncc);
            float mn = mt > m[i] ? mt : m[i];
            if (mn == -INFINITY) { /* nothing visible yet in this row, or NaN logits */
                if (nan_row(row, ncc)) m[i] = l[i] = NAN; /* the row stays NaN: O sees it */
                else memset(row, 0, (size_t)ncc * sizeof(float));
                continue;
            }
            float alpha = m[i] == -INFINITY ? 0.0f : rs_cpu_exp_f32(m[i] - mn);
            float sum = c->rows->exp_sum(row, ncc, mn);
            l[i] = alpha * l[i] + sum;
            m[i] = mn;
            if (alpha != 1.0f) rs_cpu_vec_scale(O + i * d, d, alpha);
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nr, (int)d, (int)ncc, 1.0f, S, (int)ncc, V + c0 * d, (int)d,
                    1.0f, O, (int)d);
        progress(c);
    }
}

/* The forward of one step: the step's blocks of io's queries against its K,V buffer folded into its
 * (o, m, l). Local query sequence i reads the K,V of sequence i (decode: q_owner + i N). */
static void fwd_core(cpu_state_t *c, const rs_step_t *st, const fwd_io_t *io) {
    for_each_panel(c, st, c->r.problem.decode ? st->n_seqs : c->qseqs, c->mq_fwd, fwd_panel, (void *)io);
}

static int cpu_fwd_step(void *state, const rs_step_t *st, const void *kvbuf, rs_err_t *err) {
    (void)err;
    cpu_state_t *c = state;
    c->t_start_s = rs_now_s();
    fwd_core(c, st, &(fwd_io_t){c->q, kvbuf, c->o, c->m, c->l});
    c->t_end_s = rs_now_s();
    return 0;
}

/* o /= l and lse = m + log l over ns rows of o (d wide); a row that saw nothing gets 0 and -inf. */
static void finalize_rows(const cpu_state_t *c, size_t ns, float *o, const float *m, const float *l, float *lse) {
    for (size_t i = 0; i < ns; i++) {
        float inv = l[i] > 0 ? 1.0f / l[i] : 0.0f;
        rs_cpu_vec_scale(o + i * (size_t)c->d, c->d, inv);
        lse[i] = l[i] > 0 ? m[i] + logf(l[i]) : (isnan(l[i]) ? NAN : -INFINITY);
    }
}

/* pass-q: the visiting queries' partial output into part (O [qseqs][Hq][B][d], then lse). */
static int cpu_q_step(void *state, const rs_step_t *st, const void *qbuf, const void *kvbuf, void *part, rs_err_t *err) {
    (void)err;
    cpu_state_t *c = state;
    c->t_start_s = rs_now_s();
    const size_t nq = (size_t)(c->qseqs * c->Hq * c->B * c->d), ns = (size_t)(c->qseqs * c->Hq * c->B);
    memset(c->po, 0, nq * sizeof(float));
    memset(c->pl, 0, ns * sizeof(float));
    for (size_t i = 0; i < ns; i++) c->pm[i] = -INFINITY;
    fwd_core(c, st, &(fwd_io_t){qbuf, kvbuf, c->po, c->pm, c->pl});
    float *out = part;
    memcpy(out, c->po, nq * sizeof(float));
    finalize_rows(c, ns, out, c->pm, c->pl, out + nq);
    c->t_end_s = rs_now_s();
    return 0;
}

/* pass-q: O and lse from the rank's n partials (exec.h). */
static int cpu_q_merge(void *state, int n, void *const *parts, rs_err_t *err) {
    (void)err;
    cpu_state_t *c = state;
    const size_t nq = (size_t)(c->qseqs * c->Hq * c->B * c->d), ns = (size_t)(c->qseqs * c->Hq * c->B);
    for (size_t i = 0; i < ns; i++) {
        float mx = -INFINITY;
        bool nan = false;
        for (int r = 0; r < n; r++) {
            const float v = ((const float *)parts[r])[nq + i];
            nan |= isnan(v);
            mx = v > mx ? v : mx;
        }
        float *o = c->o + i * (size_t)c->d;
        memset(o, 0, (size_t)c->d * sizeof(float));
        if (nan || mx == -INFINITY) { /* NaN stays NaN (the check must see it); nothing visible: 0, -inf */
            c->lse[i] = nan ? NAN : -INFINITY;
            if (nan) o[0] = NAN;
            continue;
        }
        double sum = 0;
        for (int r = 0; r < n; r++) sum += exp((double)((const float *)parts[r])[nq + i] - mx);
        const float lse = mx + (float)log(sum);
        for (int r = 0; r < n; r++) {
            const float *pr = parts[r];
            const float w = rs_cpu_exp_f32(pr[nq + i] - lse);
            if (w != 0.0f)
                for (int64_t x = 0; x < c->d; x++) o[x] += w * pr[i * (size_t)c->d + (size_t)x];
        }
        c->lse[i] = lse;
    }
    return 0;
}

static int cpu_fwd_end(void *state, rs_err_t *err) {
    (void)err;
    cpu_state_t *c = state;
    finalize_rows(c, (size_t)(c->qseqs * c->Hq * c->B), c->o, c->m, c->l, c->lse);
    return 0;
}

/* ---------------------------------------------------------------------------------------------------
 * Backward
 * ------------------------------------------------------------------------------------------------- */
static int cpu_bwd_begin(void *state, rs_err_t *err) {
    (void)err;
    cpu_state_t *c = state;
    size_t nq = (size_t)(c->qseqs * c->Hq * c->B * c->d), ns = (size_t)(c->qseqs * c->Hq * c->B);
    memset(c->dq, 0, nq * sizeof(float));
    /* D = rowsum(dO o O), accumulated in float64 by BLAS dsdot: vectorised, where a plain loop would
     * be one chain of dependent double adds */
    for (size_t i = 0; i < ns; i++)
        c->dd[i] = (float)cblas_dsdot((int)c->d, c->o + i * (size_t)c->d, 1, c->d_o + i * (size_t)c->d, 1);
    return 0;
}

/* What the backward of one step reads and accumulates into: the K,V buffer and the dK,dV buffer. */
typedef struct {
    const float *kv;
    float *dkv;
} bwd_io_t;

/* The backward of one panel: P recomputed from lse, dV, dS, dQ and dK accumulated. Its start is a
 * deliberate twin of fwd_panel's (the same panel geometry). */
static void bwd_panel(cpu_state_t *c, const panel_t *pn, void *arg) {
    const bwd_io_t *io = arg;
    const float scale = (float)c->r.softmax_scale;
    const int64_t d = c->d, nr = pn->i1 - pn->i0, nc = pn->nc, i0 = pn->i0, i1 = pn->i1;
    const rs_block_t *bl = pn->bl;
    const size_t koff = kv_offset(c, pn);
    const float *K = io->kv + koff, *V = io->kv + c->kv_elems + koff;
    float *dK = io->dkv + koff, *dV = io->dkv + c->kv_elems + koff;
    const size_t r0 = pn->r0;
    const float *Q = c->q + r0 * (size_t)d, *dO = c->d_o + r0 * (size_t)d;
    float *dQ = c->dq + r0 * (size_t)d;
    for (int64_t c0 = 0; c0 < nc; c0 += c->kc) {
        const int64_t ncc = c0 + c->kc < nc ? c->kc : nc - c0;
        const float *Kc = K + c0 * d, *Vc = V + c0 * d;
        float *dKc = dK + c0 * d, *dVc = dV + c0 * d;
        float *P = c->ws_s, *dS = c->ws_dp;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nr, (int)ncc, (int)d, scale, Q, (int)d, Kc, (int)d, 0.0f, P,
                    (int)ncc);
        if (bl->mask == RS_MASK_DIAG) apply_diag(P, i0, i1, c0, ncc, bl->diag);
        for (int64_t i = 0; i < nr; i++) { /* a row that saw nothing (lse -inf) has P = 0 */
            const float lse = c->lse[r0 + (size_t)i];
            if (lse == -INFINITY) memset(P + i * ncc, 0, (size_t)ncc * sizeof(float));
            else c->rows->exp_sub(P + i * ncc, ncc, lse);
        }
        /* dV += P^T dO */
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)ncc, (int)d, (int)nr, 1.0f, P, (int)ncc, dO, (int)d, 1.0f, dVc,
                    (int)d);
        /* dP = dO V^T; dS = P (dP - D) */
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nr, (int)ncc, (int)d, 1.0f, dO, (int)d, Vc, (int)d, 0.0f, dS,
                    (int)ncc);
        for (int64_t i = 0; i < nr; i++) rs_cpu_row_ds(P + i * ncc, dS + i * ncc, ncc, c->dd[r0 + (size_t)i]);
        progress(c);
        /* dQ += scale dS K; dK += scale dS^T Q */
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nr, (int)d, (int)ncc, scale, dS, (int)ncc, Kc, (int)d, 1.0f, dQ,
                    (int)d);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)ncc, (int)d, (int)nr, scale, dS, (int)ncc, Q, (int)d, 1.0f, dKc,
                    (int)d);
        progress(c);
    }
}

static int cpu_bwd_step(void *state, const rs_step_t *st, const void *kvbuf, void *dkvbuf, rs_err_t *err) {
    (void)err;
    cpu_state_t *c = state;
    c->t_start_s = rs_now_s();
    const bwd_io_t io = {kvbuf, dkvbuf};
    for_each_panel(c, st, c->batch, c->mq_bwd, bwd_panel, (void *)&io);
    c->t_end_s = rs_now_s();
    return 0;
}

static int cpu_bwd_end(void *state, rs_err_t *err) {
    (void)state;
    (void)err;
    return 0;
}

static int cpu_grad_zero(void *state, void *dst, rs_err_t *err) {
    (void)err;
    cpu_state_t *c = state;
    memset(dst, 0, 2 * c->kv_elems * sizeof(float));
    return 0;
}

static int cpu_grad_add(void *state, void *dst, const void *src, rs_err_t *err) {
    (void)err;
    cpu_state_t *c = state;
    rs_cpu_vec_add(dst, src, 2 * c->kv_elems);
    return 0;
}

static int cpu_wait(void *state, double *t_start_s, double *t_end_s, rs_err_t *err) {
    (void)err;
    cpu_state_t *c = state;
    if (t_start_s) *t_start_s = c->t_start_s;
    if (t_end_s) *t_end_s = c->t_end_s;
    return 0;
}

static const char *cpu_describe(void *state) { return ((cpu_state_t *)state)->desc; }

static void cpu_poll_geometry(void *state, rs_poll_model_t *g) {
    const cpu_state_t *c = state;
    g->chunk_cols = c->kc, g->panel_rows[0] = c->mq_fwd, g->panel_rows[1] = c->mq_bwd;
}

const rs_compute_ops_t rs_cpu_compute_ops = {
    .name = "cpu",
    .dtype_name = "fp32",
    .act_bytes = 4,
    .create = cpu_create,
    .destroy = cpu_destroy,
    .buf_alloc = cpu_buf_alloc,
    .buf_free = cpu_buf_free,
    .upload = cpu_upload,
    .download = cpu_download,
    .fwd_begin = cpu_fwd_begin,
    .fwd_step = cpu_fwd_step,
    .fwd_end = cpu_fwd_end,
    .bwd_begin = cpu_bwd_begin,
    .bwd_step = cpu_bwd_step,
    .bwd_end = cpu_bwd_end,
    .q_step = cpu_q_step,
    .q_merge = cpu_q_merge,
    .grad_zero = cpu_grad_zero,
    .grad_add = cpu_grad_add,
    .wait = cpu_wait,
    .describe = cpu_describe,
    .poll_geometry = cpu_poll_geometry,
};
