/* calib_block.c - the compute side of a calibration on this rank alone (calib_block.h): a compute
 * state holding one B x B block, the kernel points, single calls and accumulation bandwidth measured
 * on it, and the host's memcpy bandwidth. */
#include "calib_block.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* The problem on one rank with B tokens (S = B). */
static rs_problem_t one_rank(const rs_problem_t *p, int64_t B) {
    rs_problem_t q = *p;
    q.n_ranks = 1;
    return rs_problem_with_block(&q, B);
}

void rs_calib_block_free(rs_calib_block_t *b) {
    if (b->cs) {
        if (b->kv) b->cops->buf_free(b->cs, b->kv);
        if (b->dkv) b->cops->buf_free(b->cs, b->dkv);
        b->cops->destroy(b->cs);
    }
    rs_schedule_free(b->s);
    free(b->hk), free(b->hv);
    memset(b, 0, sizeof *b);
}

int rs_calib_block_init(const rs_calib_point_t *pt, rs_kmask_t mask, const rs_exec_job_t *job, rs_calib_block_t *b,
                        rs_err_t *err) {
    const rs_compute_ops_t *cops = pt->cops;
    const int64_t B = pt->block;
    memset(b, 0, sizeof *b);
    b->cops = cops;
    rs_problem_t p = one_rank(pt->problem, B);
    p.causal = mask != RS_KMASK_FULL, p.layout = RS_LAYOUT_CONTIGUOUS;
    if (!(b->s = rs_schedule_create(&p, err))) return -1;
    b->bwd = p.pass == RS_PASS_BACKWARD;
    rs_schedule_step(b->s, 0, 0, &b->st);
    if (mask == RS_KMASK_SHIFTED) {
        rs_block_t *blk = &b->st.blocks[0];
        blk->diag = 1;
        blk->pairs = rs_diag_pairs(B, 1);
        blk->exec_pairs = rs_diag_exec_pairs(B, 1, p.tile_q, p.tile_k);
        b->st.flops_useful = blk->pairs * rs_problem_flops_per_pair(&p);
        b->st.flops_exec = blk->exec_pairs * rs_problem_flops_per_pair(&p);
    }
    rs_exec_rank_t ri = {.problem = p, .rank = 0, .block_tokens = B, .softmax_scale = 1.0 / sqrt((double)p.head_dim),
                         .local_rank = pt->local_rank, .progress = job ? job->tops->progress : NULL,
                         .progress_arg = job ? job->ts : NULL};
    ri.n_segs = rs_schedule_rank_segments(b->s, 0, ri.segs);
    rs_err_t e = {0};
    size_t nq = (size_t)(p.batch * p.q_heads * B * p.head_dim), nkv = (size_t)(p.batch * p.kv_heads * B * p.head_dim);
    float *h = malloc(sizeof(float) * (nq > nkv ? nq : nkv));
    int rc = -1;
    if (!h) { rs_errf(err, "calibrate: out of memory"); goto out; }
    if (cops->create(&ri, &b->cs, &e) < 0 || cops->buf_alloc(b->cs, rs_problem_kv_bytes(&p), &b->kv, &e) < 0 ||
        (b->bwd && cops->buf_alloc(b->cs, rs_problem_dkv_bytes(&p), &b->dkv, &e) < 0)) {
        rs_errc(err, e.code, "calibrate: %s", e.msg);
        goto out;
    }
    const rs_tensor_t tn[4] = {RS_TENSOR_Q, RS_TENSOR_K, RS_TENSOR_V, RS_TENSOR_DO};
    for (int i = 0; i < 4; i++) {
        const rs_exec_input_t in = {.seed = 7, .tensor = tn[i], .problem = &p, .scale = 1.0};
        rs_exec_fill_local(&in, ri.n_segs, ri.segs, h);
        if (cops->upload(b->cs, tn[i], h, b->kv, &e) < 0) { rs_errc(err, e.code, "calibrate: %s", e.msg); goto out; }
        if (tn[i] == RS_TENSOR_K || tn[i] == RS_TENSOR_V) {
            float **dst = tn[i] == RS_TENSOR_K ? &b->hk : &b->hv;
            if (!(*dst = malloc(sizeof(float) * nkv))) { rs_errf(err, "calibrate: out of memory"); goto out; }
            memcpy(*dst, h, sizeof(float) * nkv);
        }
    }
    if (b->bwd) { /* the backward needs O and lse (of the same mask) */
        if (cops->fwd_begin(b->cs, &e) < 0 || cops->fwd_step(b->cs, &b->st, b->kv, &e) < 0 || cops->fwd_end(b->cs, &e) < 0 ||
            cops->wait(b->cs, NULL, NULL, &e) < 0 || cops->bwd_begin(b->cs, &e) < 0) {
            rs_errc(err, e.code, "calibrate: %s", e.msg);
            goto out;
        }
    }
    rc = 0;
out:
    free(h);
    if (rc < 0) rs_calib_block_free(b);
    return rc;
}

int rs_calib_block_begin(rs_calib_block_t *b, rs_err_t *err) {
    rs_err_t e = {0};
    if ((b->bwd ? b->cops->grad_zero(b->cs, b->dkv, &e) : b->cops->fwd_begin(b->cs, &e)) < 0)
        return rs_errc(err, e.code, "calibrate: %s", e.msg);
    return 0;
}

int rs_calib_block_run(rs_calib_block_t *b, double *t0, double *t1, rs_err_t *err) {
    rs_err_t e = {0};
    int rc = b->bwd ? b->cops->bwd_step(b->cs, &b->st, b->kv, b->dkv, &e) : b->cops->fwd_step(b->cs, &b->st, b->kv, &e);
    if (rc < 0 || b->cops->wait(b->cs, t0, t1, &e) < 0) return rs_errc(err, e.code, "calibrate: %s", e.msg);
    return 0;
}

int rs_calib_block_step(rs_calib_block_t *b, double *t0, double *t1, rs_err_t *err) {
    return rs_calib_block_begin(b, err) < 0 ? -1 : rs_calib_block_run(b, t0, t1, err);
}

/* The durations of a block's repeated steps (appended to samples[n..cap)) and its FLOPs. */
typedef struct {
    double *samples;   /* durations, appended */
    size_t cap, n;     /* capacity; filled */
    uint64_t useful;   /* the step's useful FLOPs */
    uint64_t exec;     /* ... and executed FLOPs */
} block_times_t;

/* Time the block of pt of mask kind `mask` (the accumulators reset before each step): one warm-up,
 * then min_reps repetitions and at least min_time_s, into *bt. */
static int time_block(const rs_calib_point_t *pt, rs_kmask_t mask, block_times_t *bt, rs_err_t *err) {
    rs_calib_block_t b;
    if (rs_calib_block_init(pt, mask, NULL, &b, err) < 0) return -1;
    double t0, t1;
    int rc = rs_calib_block_step(&b, &t0, &t1, err); /* warm-up */
    const double t_first = rs_now_s();
    for (int k = 0; rc == 0 && (k < pt->min_reps || rs_now_s() - t_first < pt->min_time_s) && bt->n < bt->cap; k++) {
        rc = rs_calib_block_step(&b, &t0, &t1, err);
        if (rc == 0) bt->samples[bt->n++] = t1 - t0;
    }
    bt->useful = b.st.flops_useful, bt->exec = b.st.flops_exec;
    rs_calib_block_free(&b);
    return rc;
}

int rs_calib_kernel_point(const rs_calib_point_t *pt, double *samples, size_t cap, size_t *n, uint64_t *flops,
                          rs_err_t *err) {
    block_times_t bt = {samples, cap, *n, 0, 0};
    const int rc = time_block(pt, RS_KMASK_FULL, &bt, err);
    *n = bt.n, *flops = bt.exec;
    return rc;
}

int rs_calib_call_median(const rs_calib_point_t *pt, rs_kmask_t mask, double *median_s, uint64_t *flops_useful,
                         rs_err_t *err) {
    double samples[256];
    block_times_t bt = {samples, 256, 0, 0, 0};
    const int rc = time_block(pt, mask, &bt, err);
    *flops_useful = bt.useful;
    if (rc < 0) return -1;
    *median_s = rs_median(samples, bt.n);
    return 0;
}

int rs_calib_merge_bw(const rs_calib_point_t *pt, double *bytes_per_s, rs_err_t *err) {
    rs_problem_t p = *pt->problem;
    p.pass = RS_PASS_BACKWARD;
    rs_calib_point_t bp = *pt;
    bp.problem = &p;
    rs_calib_block_t b;
    if (rs_calib_block_init(&bp, RS_KMASK_FULL, NULL, &b, err) < 0) return -1;
    const rs_compute_ops_t *cops = pt->cops;
    const uint64_t bytes = rs_problem_dkv_bytes(rs_schedule_problem(b.s));
    rs_err_t e = {0};
    void *src = NULL;
    double samples[64], spent = 0;
    size_t n = 0;
    int rc = cops->buf_alloc(b.cs, bytes, &src, &e);
    enum { LAUNCHES = 16 }; /* per timing: a launch's overhead is paid once per batch on a device */
    for (int r = 0; rc == 0 && r <= 64 && (r <= 4 || spent < pt->min_time_s); r++) {
        const double t0 = rs_now_s();
        for (int k = 0; rc == 0 && k < LAUNCHES; k++) rc = cops->grad_add(b.cs, b.dkv, src, &e);
        if (rc == 0) rc = cops->wait(b.cs, NULL, NULL, &e);
        const double dt = rs_now_s() - t0;
        if (rc == 0 && r > 0) samples[n++] = dt / LAUNCHES, spent += dt; /* r = 0: warm-up */
    }
    if (rc < 0) rs_errc(err, e.code, "calibrate: %s", e.msg);
    else *bytes_per_s = 3.0 * (double)bytes / rs_median(samples, n); /* dst += src: read 2, write 1 */
    if (src) cops->buf_free(b.cs, src);
    rs_calib_block_free(&b);
    return rc < 0 ? -1 : 0;
}

double rs_calib_memcpy_bw(void) {
    size_t n = 64u << 20;
    char *a = malloc(n), *b = malloc(n);
    if (!a || !b) {
        free(a), free(b);
        return 0;
    }
    memset(a, 1, n), memset(b, 2, n);
    double best = 0;
    for (int i = 0; i < 3; i++) {
        double t0 = rs_now_s();
        memcpy(b, a, n);
        double dt = rs_now_s() - t0;
        if (dt > 0 && 2.0 * (double)n / dt > best) best = 2.0 * (double)n / dt; /* read + write */
    }
    volatile char sink = b[n / 2];
    (void)sink;
    free(a), free(b);
    return best;
}
