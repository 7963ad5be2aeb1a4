/* calibrate_kernels.c - the kernel table of this machine (calibrate_kernels.h): single calls of each
 * mask kind and block size, timed with the real compute backend. */
#include "calibrate_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One B x B block of the given mask kind as the only block of a one-rank step (N = 1, S = B,
 * contiguous): full (non-causal), causal (diag 0) or shifted (the causal block with diag 1). */
typedef struct {
    rs_schedule_t *s;
    rs_step_t st;
    void *cs, *kv, *dkv;
    bool bwd;
} kblock_t;

static void kblock_free(const rs_compute_ops_t *cops, kblock_t *b) {
    if (b->cs) {
        if (b->kv) cops->buf_free(b->cs, b->kv);
        if (b->dkv) cops->buf_free(b->cs, b->dkv);
        cops->destroy(b->cs);
    }
    rs_schedule_free(b->s);
    memset(b, 0, sizeof *b);
}

static int kblock_init(const rs_problem_t *prob, int64_t B, rs_kmask_t mask, const rs_compute_ops_t *cops, int local_rank,
                       kblock_t *b, rs_err_t *err) {
    memset(b, 0, sizeof *b);
    rs_problem_t p = *prob;
    p.seq_tokens = B, p.n_ranks = 1, p.causal = mask != RS_KMASK_FULL, p.layout = RS_LAYOUT_CONTIGUOUS;
    if (!(b->s = rs_schedule_create(&p, err))) return -1;
    b->bwd = p.pass == RS_PASS_BACKWARD;
    rs_schedule_step(b->s, 0, 0, &b->st);
    if (mask == RS_KMASK_SHIFTED) { /* row i sees keys j < i */
        rs_block_t *blk = &b->st.blocks[0];
        blk->diag = 1;
        blk->pairs = rs_diag_pairs(B, 1);
        blk->exec_pairs = rs_diag_exec_pairs(B, 1, p.tile_q, p.tile_k);
        b->st.flops_useful = blk->pairs * rs_problem_flops_per_pair(&p);
        b->st.flops_exec = blk->exec_pairs * rs_problem_flops_per_pair(&p);
    }
    rs_exec_rank_t ri = {.problem = p, .rank = 0, .block_tokens = B, .softmax_scale = 1.0 / sqrt((double)p.head_dim),
                         .local_rank = local_rank};
    ri.n_segs = rs_schedule_rank_segments(b->s, 0, ri.segs);
    rs_err_t e = {{0}};
    size_t nq = (size_t)(p.batch * p.q_heads * B * p.head_dim), nkv = (size_t)(p.batch * p.kv_heads * B * p.head_dim);
    float *h = malloc(sizeof(float) * (nq > nkv ? nq : nkv));
    int rc = -1;
    if (!h) { rs_errf(err, "calibrate: out of memory"); goto out; }
    if (cops->create(&ri, &b->cs, &e) < 0 || cops->buf_alloc(b->cs, rs_problem_kv_bytes(&p), &b->kv, &e) < 0 ||
        (b->bwd && cops->buf_alloc(b->cs, rs_problem_dkv_bytes(&p), &b->dkv, &e) < 0))
        goto fail;
    const rs_tensor_t tn[4] = {RS_TENSOR_Q, RS_TENSOR_K, RS_TENSOR_V, RS_TENSOR_DO};
    for (int i = 0; i < 4; i++) {
        rs_exec_fill_local(11, tn[i], &p, ri.n_segs, ri.segs, 1.0, h);
        if (cops->upload(b->cs, tn[i], h, b->kv, &e) < 0) goto fail;
    }
    /* the backward needs O and lse of the same mask */
    if (b->bwd && (cops->fwd_begin(b->cs, &e) < 0 || cops->fwd_step(b->cs, &b->st, b->kv, &e) < 0 ||
                   cops->fwd_end(b->cs, &e) < 0 || cops->wait(b->cs, NULL, NULL, &e) < 0 || cops->bwd_begin(b->cs, &e) < 0))
        goto fail;
    rc = 0;
    goto out;
fail:
    rs_errf(err, "calibrate: %s", e.msg);
out:
    free(h);
    if (rc < 0) kblock_free(cops, b);
    return rc;
}

/* Median time of the block's step (the accumulators reset before each, as the executor does). */
static int kblock_time(const rs_compute_ops_t *cops, kblock_t *b, double min_time_s, int min_reps, double *median_s,
                       rs_err_t *err) {
    double samples[256];
    int n = 0;
    rs_err_t e = {{0}};
    const double t_first = rs_now_s();
    for (int k = -1; (k < min_reps || rs_now_s() - t_first < min_time_s) && n < 256; k++) { /* k = -1: warm-up */
        double t0, t1;
        int rc = b->bwd ? cops->grad_zero(b->cs, b->dkv, &e) : cops->fwd_begin(b->cs, &e);
        if (rc == 0) rc = b->bwd ? cops->bwd_step(b->cs, &b->st, b->kv, b->dkv, &e) : cops->fwd_step(b->cs, &b->st, b->kv, &e);
        if (rc < 0 || cops->wait(b->cs, &t0, &t1, &e) < 0) return rs_errf(err, "calibrate: %s", e.msg);
        if (k >= 0) samples[n++] = t1 - t0;
    }
    qsort(samples, (size_t)n, sizeof samples[0], cmp_d);
    *median_s = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    return 0;
}

int rs_calib_kernel_table(const rs_problem_t *problem, const rs_compute_ops_t *cops, int local_rank,
                          const rs_calib_kernel_opts_t *o, rs_kernel_table_t *t, rs_err_t *err) {
    memset(t, 0, sizeof *t);
    if (o->n_blocks < 2 || o->n_blocks > RS_KMAX_POINTS)
        return rs_errf(err, "calibrate: the kernel table needs 2 to %d block sizes, got %d", RS_KMAX_POINTS, o->n_blocks);
    t->n_kernels = 1;
    snprintf(t->kernel[0].name, sizeof t->kernel[0].name, "%s", o->name);
    for (int pass = 0; pass < 2; pass++)
        for (int mask = 0; mask < RS_KMASK_COUNT; mask++) {
            rs_kcurve_t *c = &t->curve[t->n_curves++];
            c->kernel = 0, c->dtypes = 1u << o->dtype, c->head_dim = problem->head_dim, c->pass = pass, c->mask = (rs_kmask_t)mask;
            rs_problem_t p = *problem;
            p.pass = (rs_pass_t)pass;
            for (int i = 0; i < o->n_blocks; i++) {
                kblock_t b;
                double med = 0;
                if (kblock_init(&p, o->blocks[i], (rs_kmask_t)mask, cops, local_rank, &b, err) < 0) return -1;
                int rc = kblock_time(cops, &b, o->min_time_s, o->min_reps, &med, err);
                const double useful = (double)b.st.flops_useful;
                kblock_free(cops, &b);
                if (rc < 0) return -1;
                if (!(med > 0)) return rs_errf(err, "calibrate: a %lld-token %s call took no measurable time", (long long)o->blocks[i],
                                               rs_kmask_name((rs_kmask_t)mask));
                c->pt[c->n++] = (rs_kpoint_t){(double)o->blocks[i], (double)o->blocks[i], useful / med};
            }
        }
    t->impl_kernel[RS_IMPL_RINGSIM] = 1;
    t->default_impl = RS_IMPL_RINGSIM;
    t->merge_bw_bytes_per_s = o->merge_bw_bytes_per_s;
    return rs_kernel_table_validate(t, err);
}
