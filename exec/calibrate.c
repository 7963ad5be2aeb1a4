/* calibrate.c - F_eff(B), alpha-beta transport fit and overlap factor, measured (see calibrate.h). */
#include "calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "meter.h"
#include "cost.h"
#include "polls.h"
#include "ranges.h"
#include "stats.h"

/* The problem on one rank with B tokens (S = B). */
static rs_problem_t one_rank(const rs_problem_t *p, int64_t B) {
    rs_problem_t q = *p;
    q.n_ranks = 1;
    return rs_problem_with_block(&q, B);
}

void rs_calib_opts_default(rs_calib_opts_t *o) {
    memset(o, 0, sizeof *o);
    for (int64_t b = 16; b <= 2048; b *= 2) o->blocks[o->n_blocks++] = b;
    o->min_time_s = 0.05;
    o->min_reps = 3;
    o->timeout_s = 60;
}

/* Median over ranks of one value per rank, on rank 0 (others: their own value). A loopback state
 * (one rank alone) gathers its own value only. */
static int rank_median(const rs_transport_ops_t *tops, void *ts, double v, double timeout_s, double *out, rs_err_t *err) {
    const bool alone = tops->loopback && tops->loopback(ts);
    int64_t n = alone ? 1 : tops->size(ts), rank = alone ? 0 : tops->rank(ts);
    double *all = rank == 0 ? malloc(sizeof(double) * (size_t)n) : NULL;
    if (rank == 0 && !all) return rs_errf(err, "calibrate: out of memory");
    if (tops->gather(ts, &v, sizeof v, all, timeout_s, err) < 0) {
        free(all);
        return -1;
    }
    *out = rank == 0 ? rs_median(all, (size_t)n) : v;
    free(all);
    return 0;
}

/* ---------------------------------------------------------------------------------------------------
 * A compute state holding one full B x B block (N = 1, S = B, non-causal)
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    rs_schedule_t *s;      /* the N = 1 schedule */
    rs_step_t st;          /* its compute step */
    void *cs;              /* compute state */
    void *kv, *dkv;        /* buffers */
    float *hk, *hv;        /* K and V on the host (uploaded into kv at init) */
    bool bwd;              /* measuring the backward step */
} block_t;

static void block_free(const rs_compute_ops_t *cops, block_t *b) {
    if (b->cs) {
        if (b->kv) cops->buf_free(b->cs, b->kv);
        if (b->dkv) cops->buf_free(b->cs, b->dkv);
        cops->destroy(b->cs);
    }
    rs_schedule_free(b->s);
    free(b->hk), free(b->hv);
    memset(b, 0, sizeof *b);
}

/* The block of mask kind `mask`: full (non-causal), causal (diag 0) or shifted (the causal block with
 * diag 1: row i sees keys j < i, as striped rings issue it). */
static int block_init_mask(const rs_problem_t *prob, int64_t B, rs_kmask_t mask, const rs_compute_ops_t *cops,
                           int local_rank, const rs_transport_ops_t *tops, void *ts, block_t *b, rs_err_t *err) {
    memset(b, 0, sizeof *b);
    rs_problem_t p = one_rank(prob, B);
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
                         .local_rank = local_rank, .progress = tops ? tops->progress : NULL, .progress_arg = ts};
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
        rs_exec_fill_local(7, tn[i], &p, ri.n_segs, ri.segs, 1.0, h);
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
    if (rc < 0) block_free(cops, b);
    return rc;
}

/* A full (non-causal) block. */
static int block_init(const rs_problem_t *prob, int64_t B, const rs_compute_ops_t *cops, int local_rank,
                      const rs_transport_ops_t *tops, void *ts, block_t *b, rs_err_t *err) {
    return block_init_mask(prob, B, RS_KMASK_FULL, cops, local_rank, tops, ts, b, err);
}

/* Reset the accumulators (the forward's O, m, l; the backward's dK,dV partial): what the executor does
 * before a pass's first post. */
static int block_begin(const rs_compute_ops_t *cops, block_t *b, rs_err_t *err) {
    rs_err_t e = {0};
    if ((b->bwd ? cops->grad_zero(b->cs, b->dkv, &e) : cops->fwd_begin(b->cs, &e)) < 0) return rs_errc(err, e.code, "calibrate: %s", e.msg);
    return 0;
}

/* Run the step (after block_begin) and wait; returns its compute interval. */
static int block_run(const rs_compute_ops_t *cops, block_t *b, double *t0, double *t1, rs_err_t *err) {
    rs_err_t e = {0};
    int rc = b->bwd ? cops->bwd_step(b->cs, &b->st, b->kv, b->dkv, &e) : cops->fwd_step(b->cs, &b->st, b->kv, &e);
    if (rc < 0 || cops->wait(b->cs, t0, t1, &e) < 0) return rs_errc(err, e.code, "calibrate: %s", e.msg);
    return 0;
}

/* Launch one step and wait; returns its compute interval. */
static int block_step(const rs_compute_ops_t *cops, block_t *b, double *t0, double *t1, rs_err_t *err) {
    return block_begin(cops, b, err) < 0 ? -1 : block_run(cops, b, t0, t1, err);
}

/* Time the block of mask kind `mask` (the accumulators reset before each step): one warm-up, then
 * min_reps repetitions and at least min_time_s, durations appended to samples[*n..cap); its useful
 * and executed FLOPs. */
static int time_block(const rs_problem_t *problem, int64_t B, rs_kmask_t mask, const rs_compute_ops_t *cops, int local_rank,
                      double min_time_s, int min_reps, double *samples, size_t cap, size_t *n, uint64_t *useful,
                      uint64_t *exec, rs_err_t *err) {
    block_t b;
    if (block_init_mask(problem, B, mask, cops, local_rank, NULL, NULL, &b, err) < 0) return -1;
    double t0, t1;
    int rc = block_step(cops, &b, &t0, &t1, err); /* warm-up */
    const double t_first = rs_now_s();
    for (int k = 0; rc == 0 && (k < min_reps || rs_now_s() - t_first < min_time_s) && *n < cap; k++) {
        rc = block_step(cops, &b, &t0, &t1, err);
        if (rc == 0) samples[(*n)++] = t1 - t0;
    }
    *useful = b.st.flops_useful, *exec = b.st.flops_exec;
    block_free(cops, &b);
    return rc;
}

int rs_calib_kernel_point(const rs_problem_t *problem, int64_t B, const rs_compute_ops_t *cops, int local_rank,
                          double min_time_s, int min_reps, double *samples, size_t cap, size_t *n, uint64_t *flops,
                          rs_err_t *err) {
    uint64_t useful;
    return time_block(problem, B, RS_KMASK_FULL, cops, local_rank, min_time_s, min_reps, samples, cap, n, &useful, flops, err);
}

int rs_calib_call_median(const rs_problem_t *problem, int64_t B, rs_kmask_t mask, const rs_compute_ops_t *cops, int local_rank,
                         double min_time_s, int min_reps, double *median_s, uint64_t *flops_useful, rs_err_t *err) {
    double samples[256];
    size_t n = 0;
    uint64_t exec;
    if (time_block(problem, B, mask, cops, local_rank, min_time_s, min_reps, samples, 256, &n, flops_useful, &exec, err) < 0)
        return -1;
    *median_s = rs_median(samples, n);
    return 0;
}

int rs_calib_merge_bw(const rs_problem_t *problem, int64_t B, const rs_compute_ops_t *cops, int local_rank, double min_time_s,
                      double *bytes_per_s, rs_err_t *err) {
    rs_problem_t p = *problem;
    p.pass = RS_PASS_BACKWARD;
    block_t b;
    if (block_init(&p, B, cops, local_rank, NULL, NULL, &b, err) < 0) return -1;
    const uint64_t bytes = rs_problem_dkv_bytes(rs_schedule_problem(b.s));
    rs_err_t e = {0};
    void *src = NULL;
    double samples[64], spent = 0;
    size_t n = 0;
    int rc = cops->buf_alloc(b.cs, bytes, &src, &e);
    enum { LAUNCHES = 16 }; /* per timing: a launch's overhead is paid once per batch on a device */
    for (int r = 0; rc == 0 && r <= 64 && (r <= 4 || spent < min_time_s); r++) {
        const double t0 = rs_now_s();
        for (int k = 0; rc == 0 && k < LAUNCHES; k++) rc = cops->grad_add(b.cs, b.dkv, src, &e);
        if (rc == 0) rc = cops->wait(b.cs, NULL, NULL, &e);
        const double dt = rs_now_s() - t0;
        if (rc == 0 && r > 0) samples[n++] = dt / LAUNCHES, spent += dt; /* r = 0: warm-up */
    }
    if (rc < 0) rs_errc(err, e.code, "calibrate: %s", e.msg);
    else *bytes_per_s = 3.0 * (double)bytes / rs_median(samples, n); /* dst += src: read 2, write 1 */
    if (src) cops->buf_free(b.cs, src);
    block_free(cops, &b);
    return rc < 0 ? -1 : 0;
}

int rs_calib_step_flows(const rs_problem_t *problem, int64_t B, int64_t n_ranks, rs_xfer_kind_t kind[RS_MAX_TRANSFERS],
                        uint64_t bytes[RS_MAX_TRANSFERS], rs_err_t *err) {
    if (n_ranks < 2) return 0;
    rs_problem_t p = *problem;
    p.n_ranks = n_ranks, p.causal = false, p.layout = RS_LAYOUT_CONTIGUOUS;
    p = rs_problem_with_block(&p, B);
    rs_schedule_t *s = rs_schedule_create(&p, err);
    if (!s) return -1;
    rs_step_t best = {0}, st;
    for (int64_t k = 0; k < n_ranks; k++) { /* the computing steps; the first with the most bytes */
        rs_schedule_step(s, 0, k, &st);
        if (st.has_compute && st.send_bytes > best.send_bytes) best = st;
    }
    rs_schedule_free(s);
    for (int i = 0; i < best.n_send; i++) kind[i] = best.send[i].kind, bytes[i] = best.send[i].bytes;
    return best.n_send;
}

/* Tag of the timed exchanges (the untimed one that primes a fresh exchange: RS_CALIB_TAG_PRIME). */
enum { TAG_EXCHANGE = 5, TAG_PRIME = RS_CALIB_TAG_PRIME };

/* A fresh transfer's buffers by role (fresh_exchange): the priming exchange receives into b[0] and
 * sends b[2], which nothing writes; the timed one sends b[0] and receives into b[1], never sent. */
static void *fresh_buf(void *const b[3], bool prime, rs_xfer_dir_t dir) {
    return dir == RS_XFER_RECV ? b[prime ? 0 : 1] : b[prime ? 2 : 0];
}

/* The ring's buffers after a step: the block received is the one sent (and computed on) next, and the
 * block sent receives next. The transport's times depend on it: an exchange of 64 KiB over Open MPI's
 * shared memory on a 2-core EPYC took 7.2 us with the same two buffers every time and 15 us with
 * the ring's rotation (128 KiB: 12.5 and 27.5 us; 512 KiB: 46 and 68 us), which the CPU ring's own
 * transfers showed: its dK,dV tail step ran 2-3x the fixed-buffer calibration's time. */
static void xfer_rotate(void **send_buf, void **recv_buf) {
    void *t = *send_buf;
    *send_buf = *recv_buf, *recv_buf = t;
}

/* The buffers of an overlap sample: a receive buffer per flow, and the dK,dV partial sent (the
 * executor sends the partial of the previous step, not the one being accumulated); per flow three
 * more for the fresh transfers alone (fresh_exchange's roles). */
typedef struct {
    int n;                                   /* flows */
    rs_xfer_kind_t kind[RS_MAX_TRANSFERS];
    uint64_t bytes[RS_MAX_TRANSFERS];
    void *rbuf[RS_MAX_TRANSFERS], *dsend;
    void *fresh[RS_MAX_TRANSFERS][3];
} flows_t;

static void flows_free(const rs_compute_ops_t *cops, const block_t *blk, flows_t *f) {
    for (int i = 0; i < f->n; i++) {
        if (f->rbuf[i]) cops->buf_free(blk->cs, f->rbuf[i]);
        for (int k = 0; k < 3; k++)
            if (f->fresh[i][k]) cops->buf_free(blk->cs, f->fresh[i][k]);
    }
    if (f->dsend) cops->buf_free(blk->cs, f->dsend);
}

/* A ring step's requests: receive every flow from p-1, send to p+1 the K,V being computed on and the
 * dK,dV partial. */
static void step_reqs(const flows_t *f, const block_t *blk, int64_t rank, int64_t nn, rs_xfer_req_t *q) {
    for (int i = 0; i < f->n; i++) {
        q[i] = (rs_xfer_req_t){RS_XFER_RECV, (rank - 1 + nn) % nn, f->rbuf[i], f->bytes[i], 6 + i};
        q[f->n + i] = (rs_xfer_req_t){RS_XFER_SEND, (rank + 1) % nn, f->kind[i] == RS_XFER_KV ? blk->kv : f->dsend, f->bytes[i], 6 + i};
    }
}

/* The step's flows as fresh transfers (fresh_buf's roles): prime = the untimed exchange, else the
 * timed one. */
static void fresh_reqs(const flows_t *f, int64_t rank, int64_t nn, bool prime, rs_xfer_req_t *q) {
    for (int i = 0; i < f->n; i++) {
        const int tag = prime ? TAG_PRIME : 6 + i;
        q[i] = (rs_xfer_req_t){RS_XFER_RECV, (rank - 1 + nn) % nn, fresh_buf(f->fresh[i], prime, RS_XFER_RECV), f->bytes[i], tag};
        q[f->n + i] = (rs_xfer_req_t){RS_XFER_SEND, (rank + 1) % nn, fresh_buf(f->fresh[i], prime, RS_XFER_SEND), f->bytes[i], tag};
    }
}

/* After a step's transfers the buffers rotate as the executor's do (xfer_rotate): the K,V received is
 * computed on and sent next, the dK,dV received is sent next; what was sent receives. */
static void flows_rotate(flows_t *f, block_t *blk) {
    for (int i = 0; i < f->n; i++) xfer_rotate(f->kind[i] == RS_XFER_KV ? &blk->kv : &f->dsend, &f->rbuf[i]);
}

/* The last receive's completion from the first post of a step's transfers (the trace's recv). */
static double recv_span(const rs_xfer_time_t *tm, int n_recv) {
    double p0 = INFINITY, p1 = -INFINITY;
    for (int i = 0; i < n_recv; i++) p0 = fmin(p0, tm[i].post_s), p1 = fmax(p1, tm[i].done_s);
    return p1 - p0;
}

int rs_calib_overlap_samples(const rs_problem_t *problem, int64_t B, const rs_compute_ops_t *cops, int local_rank,
                             const rs_transport_ops_t *tops, void *ts, int reps, double timeout_s, double *end_s,
                             double *end_fresh_s, double *busy_s, double *alone_s, double *xfer_s, double *xfer_reused_s, size_t cap, size_t *n,
                             rs_calib_flows_t *flows, rs_err_t *err) {
    const int64_t nn = tops->size(ts), rank = tops->rank(ts);
    if (flows) memset(flows, 0, sizeof *flows);
    if (nn < 2) return 0;
    flows_t f = {0};
    if ((f.n = rs_calib_step_flows(problem, B, nn, f.kind, f.bytes, err)) < 0) return -1;
    block_t blk;
    if (block_init(problem, B, cops, local_rank, tops, ts, &blk, err) < 0) return -1;
    rs_err_t e = {0};
    int rc = -1;
    /* a K,V receive buffer becomes the block computed on (flows_rotate): at least the block's size */
    const uint64_t kv_bytes = rs_problem_kv_bytes(rs_schedule_problem(blk.s));
    for (int i = 0; i < f.n; i++)
        if (cops->buf_alloc(blk.cs, f.kind[i] == RS_XFER_KV && kv_bytes > f.bytes[i] ? kv_bytes : f.bytes[i], &f.rbuf[i], &e) < 0 ||
            (f.kind[i] == RS_XFER_DKV && cops->buf_alloc(blk.cs, f.bytes[i], &f.dsend, &e) < 0) ||
            cops->buf_alloc(blk.cs, f.bytes[i], &f.fresh[i][0], &e) < 0 || cops->buf_alloc(blk.cs, f.bytes[i], &f.fresh[i][1], &e) < 0 ||
            cops->buf_alloc(blk.cs, f.bytes[i], &f.fresh[i][2], &e) < 0) {
            rs_errc(err, e.code, "calibrate: %s", e.msg);
            goto out;
        }
    /* as in a ring step: the K,V being computed on is the block sent, the next block is received from
     * p-1, and the buffers rotate (flows_rotate); a backward step also sends the previous step's dK,dV
     * partial and receives one */
    rs_xfer_req_t q[2 * RS_MAX_TRANSFERS];
    for (int r = 0; r < reps + 1; r++) {
        double t0, t1, c0, c1;
        rs_xfer_time_t tm[2 * RS_MAX_TRANSFERS], tx[2 * RS_MAX_TRANSFERS], tf[2 * RS_MAX_TRANSFERS];
        rs_xfer_req_t qp[2 * RS_MAX_TRANSFERS], qf[2 * RS_MAX_TRANSFERS];
        step_reqs(&f, &blk, rank, nn, q);
        fresh_reqs(&f, rank, nn, true, qp), fresh_reqs(&f, rank, nn, false, qf);
        if (tops->barrier(ts, timeout_s, err) < 0 || tops->post(ts, 2 * f.n, q, err) < 0 || /* the transfers alone, reused */
            tops->wait(ts, timeout_s, tx, err) < 0 || tops->post(ts, 2 * f.n, qp, err) < 0 || /* fresh: primed, */
            tops->wait(ts, timeout_s, tf, err) < 0 || tops->barrier(ts, timeout_s, err) < 0 ||
            tops->post(ts, 2 * f.n, qf, err) < 0 || tops->wait(ts, timeout_s, tf, err) < 0 || /* then timed */
            tops->barrier(ts, timeout_s, err) < 0)
            goto out;
        flows_rotate(&f, &blk);
        if (block_step(cops, &blk, &c0, &c1, err) < 0 || /* the compute alone */
            tops->barrier(ts, timeout_s, err) < 0)
            goto out;
        step_reqs(&f, &blk, rank, nn, q);
        if (block_begin(cops, &blk, err) < 0 || tops->post(ts, 2 * f.n, q, err) < 0 || block_run(cops, &blk, &t0, &t1, err) < 0 ||
            tops->wait(ts, timeout_s, tm, err) < 0)
            goto out;
        flows_rotate(&f, &blk);
        /* the step again with fresh transfers (primed, then posted at its start) */
        rs_xfer_time_t tmf[2 * RS_MAX_TRANSFERS];
        double u0, u1;
        if (end_fresh_s &&
            (tops->post(ts, 2 * f.n, qp, err) < 0 || tops->wait(ts, timeout_s, tmf, err) < 0 || tops->barrier(ts, timeout_s, err) < 0 ||
             block_begin(cops, &blk, err) < 0 || tops->post(ts, 2 * f.n, qf, err) < 0 || block_run(cops, &blk, &u0, &u1, err) < 0 ||
             tops->wait(ts, timeout_s, tmf, err) < 0))
            goto out;
        if (r == 0 || *n >= cap) continue; /* warm-up */
        if (end_fresh_s) end_fresh_s[*n] = recv_span(tmf, f.n);
        end_s[*n] = recv_span(tm, f.n); /* the receives: the step's blocks' arrival, as the trace's recv */
        busy_s[*n] = t1 - t0;
        alone_s[*n] = c1 - c0;
        if (xfer_s) xfer_s[*n] = recv_span(tf, f.n);
        if (xfer_reused_s) xfer_reused_s[*n] = recv_span(tx, f.n);
        (*n)++;
    }
    if (flows) {
        flows->n = f.n;
        for (int i = 0; i < f.n; i++) flows->bytes += f.bytes[i];
        if (cops->poll_geometry) {
            cops->poll_geometry(blk.cs, &flows->geom);
            flows->polls = rs_step_polls(rs_schedule_problem(blk.s), &blk.st, &flows->geom);
            flows->poll_first = rs_poll_first_frac(problem->pass);
        }
    }
    rc = 0;
out:
    flows_free(cops, &blk, &f);
    block_free(cops, &blk);
    return rc;
}

void rs_calib_rank_factors(const double *t, int n_b, int64_t n_ranks, double *fastest, double *factor) {
    double *ratio = malloc(sizeof(double) * (size_t)(n_b > 0 ? n_b : 1));
    for (int i = 0; i < n_b; i++) {
        fastest[i] = INFINITY;
        for (int64_t r = 0; r < n_ranks; r++) fastest[i] = fmin(fastest[i], t[(size_t)i * (size_t)n_ranks + (size_t)r]);
    }
    for (int64_t r = 0; r < n_ranks; r++) {
        for (int i = 0; ratio && i < n_b; i++) ratio[i] = t[(size_t)i * (size_t)n_ranks + (size_t)r] / fastest[i];
        factor[r] = ratio && n_b > 0 ? rs_median(ratio, (size_t)n_b) : 1.0;
    }
    free(ratio);
}

int rs_calib_rank_values(const rs_transport_ops_t *tops, void *ts, double *samples, size_t n, double timeout_s,
                         double *all, rs_err_t *err) {
    double v = rs_median(samples, n);
    return tops->gather(ts, &v, sizeof v, all, timeout_s, err) < 0 ? -1 : 0;
}

int rs_calib_rank_median(const rs_transport_ops_t *tops, void *ts, double *samples, size_t n, double timeout_s,
                         double *out, rs_err_t *err) {
    return rank_median(tops, ts, rs_median(samples, n), timeout_s, out, err);
}

/* ---------------------------------------------------------------------------------------------------
 * Ring exchange of m bytes: the receive's post-to-completion time
 * ------------------------------------------------------------------------------------------------- */
static int exchange(const rs_transport_ops_t *tops, void *ts, void *sbuf, void *rbuf, uint64_t m, int tag, double timeout_s,
                    double *t_s, rs_err_t *err) {
    int64_t n = tops->size(ts), r = tops->rank(ts);
    rs_xfer_req_t q[2] = {{RS_XFER_RECV, (r - 1 + n) % n, rbuf, m, tag}, {RS_XFER_SEND, (r + 1) % n, sbuf, m, tag}};
    rs_xfer_time_t tm[2];
    if (tops->post(ts, 2, q, err) < 0 || tops->wait(ts, timeout_s, tm, err) < 0) return -1;
    *t_s = tm[0].done_s - tm[0].post_s;
    return 0;
}

/* A fresh transfer as the ring's are (the K,V staged for step 0, the dK,dV partial the kernel just
 * wrote): the block sent was just written by its sender, and it lands in a buffer only its receiver
 * writes. An untimed exchange receives the block the timed one then sends (fresh_buf's roles).
 * Measured on a 2-core Zen 4 EPYC (Open MPI, shared memory): 16 KiB 3.4 us and 64 KiB 7.2 us, against
 * 3.3 and 6.5 us re-sending a block the peer had already read (the same two buffers every time, the
 * calibration before 2026-12-01). */
static int fresh_exchange(const rs_transport_ops_t *tops, void *ts, void *const b[3], uint64_t m, double timeout_s,
                          double *t_s, rs_err_t *err) {
    double unused;
    return exchange(tops, ts, fresh_buf(b, true, RS_XFER_SEND), fresh_buf(b, true, RS_XFER_RECV), m, TAG_PRIME, timeout_s,
                    &unused, err) < 0
               ? -1
               : exchange(tops, ts, fresh_buf(b, false, RS_XFER_SEND), fresh_buf(b, false, RS_XFER_RECV), m, TAG_EXCHANGE,
                          timeout_s, t_s, err);
}

/* The median over ranks of the median receive time of `reps` exchanges of m bytes (after 3 unmeasured):
 * fresh (fresh_exchange over b[0..2]), or with b[3], b[4] rotating as in the ring (a rank sends what
 * it received at the exchange before and receives into what it sent: xfer_rotate; the reused curve).
 * samples holds reps doubles. Collective. */
static int time_exchange(const rs_transport_ops_t *tops, void *ts, void *b[5], uint64_t m, int reps, bool rotate,
                         double timeout_s, double *samples, double *t_med_s, rs_err_t *err) {
    double t;
    for (int r = 0; r < 3 + reps; r++) {
        if (rotate ? exchange(tops, ts, b[3], b[4], m, TAG_EXCHANGE, timeout_s, &t, err) : fresh_exchange(tops, ts, b, m, timeout_s, &t, err))
            return -1;
        if (rotate) xfer_rotate(&b[3], &b[4]);
        if (r >= 3) samples[r - 3] = t;
    }
    return rank_median(tops, ts, rs_median(samples, (size_t)reps), timeout_s, t_med_s, err);
}

/* Least squares of t = L + m u on relative error with L given: u minimising sum ((L + m u - t) / t)^2. */
static double fit_inv_bw(const uint64_t *m, const double *t, int n, double L) {
    double num = 0, den = 0;
    for (int i = 0; i < n; i++) {
        double w = 1.0 / (t[i] * t[i]);
        num += w * (double)m[i] * (t[i] - L), den += w * (double)m[i] * (double)m[i];
    }
    return num / den;
}

/* Least squares of t = L + m / W on relative error: minimise sum ((L + m u - t) / t)^2, u = 1/W. */
static void fit_alpha_beta(const uint64_t *m, const double *t, int n, double *L, double *W) {
    double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
    for (int i = 0; i < n; i++) {
        double w = 1.0 / (t[i] * t[i]), x = (double)m[i];
        a11 += w, a12 += w * x, a22 += w * x * x, b1 += w * t[i], b2 += w * x * t[i];
    }
    double det = a11 * a22 - a12 * a12;
    double l = (b1 * a22 - b2 * a12) / det, u = (a11 * b2 - a12 * b1) / det;
    if (!(u > 0)) u = t[n - 1] / (double)m[n - 1], l = 0; /* degenerate: bandwidth from the largest */
    if (l < 0) l = 0, u = fit_inv_bw(m, t, n, 0); /* refit through the origin */
    *L = l, *W = 1.0 / u;
}

/* After the (L, W) fit: its largest relative error over the sizes, the transfer curve g(bytes)
 * (calibration.h) through every measured size, g = (t - L) W / m (in [0.05, the range's max]: a
 * time below the latency, or a load burst), and the overlap points' transfer alone from the curve,
 * so that the overlap and poll fits and the model read the same transfer time. */
static void transport_fitted(rs_calib_t *c) {
    rs_calibration_t *cal = &c->model;
    cal->n_xfer = cal->n_xfer_reused = 0;
    for (int i = 0; i < c->n_sizes; i++) {
        const double m = (double)c->sizes[i], f = c->latency_s + m / c->bw_bytes_per_s, r = fabs(f - c->t_msg_s[i]) / c->t_msg_s[i];
        if (r > c->fit_err_max) c->fit_err_max = r;
        if (!(m > 0) || !isfinite(c->bw_bytes_per_s) || cal->n_xfer >= RS_MAX_OVERLAP_POINTS ||
            (cal->n_xfer > 0 && !(m > cal->xfer_curve[cal->n_xfer - 1].bytes)))
            continue;
        /* within the profile's range (a calibration on a loaded machine can put L above a size's time, or
         * a small size thousands of times above the line), so that what is written loads back */
        const rs_range_t gr = {RS_RANGE_XFER_FACTOR};
        const double g = (c->t_msg_s[i] - c->latency_s) * c->bw_bytes_per_s / m;
        cal->xfer_curve[cal->n_xfer++] = (rs_xfer_point_t){m, fmin(gr.max, fmax(0.05, g))};
        if (c->t_msg_reused_s[i] > 0 && (cal->n_xfer_reused == 0 || m > cal->xfer_curve_reused[cal->n_xfer_reused - 1].bytes)) {
            const double gu = (c->t_msg_reused_s[i] - c->latency_s) * c->bw_bytes_per_s / m;
            cal->xfer_curve_reused[cal->n_xfer_reused++] = (rs_xfer_point_t){m, fmin(gr.max, fmax(0.05, gu))};
        }
    }
    /* the overlap samples rotate their buffers as the ring's (rs_calib_overlap_samples): the reused curve */
    for (int i = 0; i < c->n_ov; i++)
        c->ov[i].t_xfer_s = c->latency_s + (double)c->ov[i].bytes * rs_calibration_xfer_factor_reused(cal, (double)c->ov[i].bytes) /
                                               c->bw_bytes_per_s;
}

void rs_calib_fit_transport(rs_calib_t *c) {
    c->fit_err_max = 0;
    if (c->n_sizes < 1) return;
    fit_alpha_beta(c->sizes, c->t_msg_s, c->n_sizes, &c->latency_s, &c->bw_bytes_per_s);
    transport_fitted(c);
}

void rs_calib_fit_transport_latency(rs_calib_t *c, double latency_s) {
    c->fit_err_max = 0;
    if (c->n_sizes < 1) return;
    const double u = fit_inv_bw(c->sizes, c->t_msg_s, c->n_sizes, latency_s);
    c->latency_s = latency_s;
    c->bw_bytes_per_s = u > 0 ? 1.0 / u : INFINITY;
    if (u > 0) transport_fitted(c);
}

static double memcpy_bw(void) {
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

/* The model's efficiency curve from the kernel measurements: eff(B) = F_eff(B) / F_peak. */
static void model_efficiency(rs_calib_t *c) {
    c->model.n_eff = 0;
    for (int i = 0; i < c->n_blocks && c->model.n_eff < RS_MAX_EFF_POINTS; i++)
        c->model.eff[c->model.n_eff++] = (rs_eff_point_t){(double)c->blocks[i], c->flops_eff[i] / c->flops_peak};
}

/* Sort idx[0..n) (indices into c->ov) by the points' bytes (insertion sort: a few points). */
static void sort_ov_by_bytes(const rs_calib_t *c, int *idx, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && c->ov[idx[j]].bytes < c->ov[idx[j - 1]].bytes; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1], idx[j - 1] = t;
        }
}

/* The model's overlap curve from the overlap points: one point per measured size whose eta is
 * determined (a compute shorter than the latency leaves it NaN), sizes strictly increasing. The
 * host cost describes the busy compute and the curve the transfer's progress, so no scalar eta
 * (1) and no slowdown (1). */
static void model_overlap_curve(rs_calib_t *c) {
    c->model.overlap = 1.0;
    c->model.comp_slowdown = 1.0;
    c->model.n_overlap = 0;
    int idx[RS_CALIB_MAX_OV];
    for (int i = 0; i < c->n_ov; i++) idx[i] = i;
    sort_ov_by_bytes(c, idx, c->n_ov);
    for (int k = 0; k < c->n_ov && c->model.n_overlap < RS_MAX_OVERLAP_POINTS; k++) {
        const rs_calib_overlap_t *v = &c->ov[idx[k]];
        if (isnan(v->eta)) continue;
        if (c->model.n_overlap > 0 && !((double)v->bytes > c->model.overlap_curve[c->model.n_overlap - 1].bytes)) continue;
        c->model.overlap_curve[c->model.n_overlap++] = (rs_overlap_point_t){(double)v->bytes, v->eta};
    }
}

/* The eta of a step whose transfer (L + x alone) posted with a compute of tc ended at E: the walk's
 * L + x / eta while the compute runs, L + tc + (x - (tc - L) eta) after it; NAN when the compute is
 * over before the latency (any eta predicts L + x), else clamped to [0, 1]. */
static double invert_eta(double tc, double L, double x, double E) {
    double eta;
    if (tc <= L) return NAN;
    if (E >= tc) eta = (tc + x - E) / (tc - L);
    else eta = E - L > 0 ? x / (E - L) : 1;
    return fmin(1.0, fmax(0.0, eta));
}

/* Host cost o + O m from the busy compute (least squares on relative error, o, O >= 0), then each
 * point's eta with the model's compute (t_alone + o + O m), the one-eta fit and sigma. */
void rs_calib_fit_overlap(rs_calib_t *out) {
    const int n = out->n_ov;
    double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
    for (int i = 0; i < n; i++) { /* d = t_busy - t_alone = o nf + O m */
        const rs_calib_overlap_t *v = &out->ov[i];
        const double w = 1.0 / (v->t_comp_busy_s * v->t_comp_busy_s), mb = (double)v->bytes, nf = v->n_flows,
                     d = v->t_comp_busy_s - v->t_comp_s;
        a11 += w * nf * nf, a12 += w * nf * mb, a22 += w * mb * mb, b1 += w * nf * d, b2 += w * mb * d;
    }
    double o = 0, ob = 0, det = a11 * a22 - a12 * a12;
    if (n >= 2 && det > 0) o = (b1 * a22 - b2 * a12) / det, ob = (a11 * b2 - a12 * b1) / det;
    if (n < 2 || !(det > 0) || o < 0 || ob < 0) { /* one parameter at a time, the better of the two */
        double o1 = a11 > 0 ? fmax(0, b1 / a11) : 0, ob1 = a22 > 0 ? fmax(0, b2 / a22) : 0, e1 = 0, e2 = 0;
        for (int i = 0; i < n; i++) {
            const rs_calib_overlap_t *v = &out->ov[i];
            const double d = v->t_comp_busy_s - v->t_comp_s, w = 1.0 / (v->t_comp_busy_s * v->t_comp_busy_s),
                         nf = v->n_flows, mb = (double)v->bytes;
            e1 += w * (o1 * nf - d) * (o1 * nf - d), e2 += w * (ob1 * mb - d) * (ob1 * mb - d);
        }
        if (e1 <= e2) o = o1, ob = 0;
        else o = 0, ob = ob1;
    }
    out->model.host_s_per_xfer = o, out->model.host_s_per_byte = ob;
    /* each point's compute as the walk has it: alone plus the host cost of its rotating (reused) flows */
    double errs[RS_CALIB_MAX_OV], sg[RS_CALIB_MAX_OV], tcs[RS_CALIB_MAX_OV];
    const double L = out->latency_s;
    for (int i = 0; i < n; i++) {
        rs_calib_overlap_t *v = &out->ov[i];
        tcs[i] = v->t_comp_s + rs_calibration_host_s(&out->model, v->n_flows, (double)v->bytes, (double)v->bytes);
        errs[i] = fabs(tcs[i] - v->t_comp_busy_s) / v->t_comp_busy_s;
        v->eta = invert_eta(tcs[i], L, v->t_xfer_s - L, v->t_end_s);
        sg[i] = v->sigma;
    }
    out->host_fit_err = rs_median(errs, (size_t)n);
    /* one eta for every point, minimising the median |relative error| of the completions */
    double best = INFINITY, best_eta = 1;
    for (int g = 0; g <= 1000; g++) {
        const double eta = g / 1000.0;
        for (int i = 0; i < n; i++) {
            const rs_calib_overlap_t *v = &out->ov[i];
            errs[i] = fabs(rs_xfer_end_s(tcs[i], L, v->t_xfer_s - L, eta) - v->t_end_s) / v->t_end_s;
        }
        const double e = rs_median(errs, (size_t)n);
        if (e < best - 1e-12) best = e, best_eta = eta;
    }
    out->eta = best_eta;
    out->eta_fit_err = best;
    out->sigma = rs_median(sg, (size_t)n);
    model_overlap_curve(out);
    rs_calib_fit_polls(out);
}

/* One poll curve over the overlap points (sorted by bytes) into curve; fresh: from each point's
 * step with fresh transfers (t_end_fresh_s), its transfer and host cost at the fresh curve's factor as
 * the walk charges a fresh step (rs_calibration_host_s); else from the rotating (reused) step, whose eta
 * rs_calib_fit_overlap inverted. Returns the curve's points. */
static int fit_poll_curve(const rs_calib_t *out, const int *idx, int n, bool fresh, rs_poll_point_t *curve) {
    const rs_calibration_t *cal = &out->model;
    const double L = out->latency_s, W = out->bw_bytes_per_s;
    int m = 0;
    for (int k = 0; k < n && m < RS_MAX_OVERLAP_POINTS; k++) {
        const rs_calib_overlap_t *v = &out->ov[idx[k]];
        const double b = (double)v->bytes;
        const double tc = v->t_comp_s + rs_calibration_host_s(cal, v->n_flows, b, fresh ? 0 : b);
        const double x = fresh ? b * rs_calibration_step_xfer_factor(cal, b, 0) / W : v->t_xfer_s - L;
        const double eta = fresh ? (v->t_end_fresh_s > 0 ? invert_eta(tc, L, x, v->t_end_fresh_s) : NAN) : v->eta;
        if (!(tc > 0) || !(eta > 0) || !(x > 0)) continue; /* NAN or 0: no poll position to take */
        /* the eta step ends at L + x / eta; the poll model at L + t_k + x, t_k at the k-th poll */
        const double polls = fmax(1e-3, rs_full_poll_k(x * (1 / eta - 1) / tc, v->polls, v->poll_first > 0 ? v->poll_first : 0.5));
        if (!isfinite(polls) || (m > 0 && !(b > curve[m - 1].bytes))) continue;
        curve[m++] = (rs_poll_point_t){b, polls};
    }
    return m;
}

void rs_calib_fit_polls(rs_calib_t *out) {
    rs_poll_model_t *pm = &out->model.poll;
    pm->n = pm->n_fresh = 0;
    if (pm->chunk_cols <= 0) return;
    int idx[RS_CALIB_MAX_OV], n = 0;
    for (int i = 0; i < out->n_ov; i++)
        if (out->ov[i].polls > 0) idx[n++] = i;
    sort_ov_by_bytes(out, idx, n);
    pm->n = fit_poll_curve(out, idx, n, false, pm->curve);
    if (pm->n > 0) pm->n_fresh = fit_poll_curve(out, idx, n, true, pm->fresh);
}

/* ---------------------------------------------------------------------------------------------------
 * The calibration
 * ------------------------------------------------------------------------------------------------- */
int rs_calibrate(const rs_problem_t *problem, const rs_compute_ops_t *cops, const rs_transport_ops_t *tops,
                 void *ts, const rs_calib_opts_t *o, rs_calib_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    rs_calibration_default(&out->model);
    const int64_t n = tops->size(ts), rank = tops->rank(ts);
    const int local_rank = (int)rank;
    double *samples = malloc(sizeof(double) * 100000);
    if (!samples) return rs_errf(err, "calibrate: out of memory");
    int rc = -1;
    void *xb[5] = {NULL, NULL, NULL, NULL, NULL}; /* the exchanges' buffers (time_exchange) */
    rs_err_t e = {0};
    block_t scratch = {0};
    const int rounds = 5;
    rs_meter_t meter = {.active = false}; /* rank 0, on a terminal: the points measured */
    if (rank == 0) rs_meter_start(&meter, "calibrate", rounds * o->n_blocks + (n >= 2 ? 2 * o->n_blocks : 0), "points");

    /* 1. kernel: rounds over all block sizes, so a burst of load elsewhere on the machine hits
     * every size a little instead of one size entirely; median per size over all its samples */
    {
        block_t *blks = calloc((size_t)o->n_blocks, sizeof *blks);
        double **smp = calloc((size_t)o->n_blocks, sizeof *smp);
        size_t *nsmp = calloc((size_t)o->n_blocks, sizeof *nsmp);
        const size_t cap = 20000;
        int ok = blks && smp && nsmp;
        for (int i = 0; ok && i < o->n_blocks; i++) {
            if (block_init(problem, o->blocks[i], cops, local_rank, tops, ts, &blks[i], err) < 0) ok = 0;
            else if (!(smp[i] = malloc(sizeof(double) * cap))) ok = 0, rs_errf(err, "calibrate: out of memory");
        }
        if (!blks || !smp || !nsmp) rs_errf(err, "calibrate: out of memory");
        for (int r = 0; ok && r < rounds; r++)
            for (int i = 0; ok && i < o->n_blocks; i++) {
                double t0, t1;
                if (tops->barrier(ts, o->timeout_s, err) < 0 || block_step(cops, &blks[i], &t0, &t1, err) < 0) { ok = 0; break; }
                const double t_first = rs_now_s();
                int k = 0;
                while ((k < (o->min_reps + rounds - 1) / rounds || rs_now_s() - t_first < o->min_time_s / rounds) && nsmp[i] < cap) {
                    if (block_step(cops, &blks[i], &t0, &t1, err) < 0) { ok = 0; break; }
                    smp[i][nsmp[i]++] = t1 - t0, k++;
                }
                rs_meter_update(&meter, r * o->n_blocks + i + 1, "kernel B=%lld", (long long)o->blocks[i]);
            }
        for (int i = 0; ok && i < o->n_blocks; i++) {
            double all;
            if (rank_median(tops, ts, rs_median(smp[i], nsmp[i]), o->timeout_s, &all, err) < 0) { ok = 0; break; }
            out->blocks[out->n_blocks] = o->blocks[i];
            out->t_block_s[out->n_blocks] = all;
            out->flops_eff[out->n_blocks] = (double)blks[i].st.flops_exec / all;
            if (out->flops_eff[out->n_blocks] > out->flops_peak) out->flops_peak = out->flops_eff[out->n_blocks];
            out->n_blocks++;
        }
        for (int i = 0; blks && i < o->n_blocks; i++) block_free(cops, &blks[i]);
        for (int i = 0; smp && i < o->n_blocks; i++) free(smp[i]);
        free(blks), free(smp), free(nsmp);
        if (!ok) goto done;
        model_efficiency(out);
    }

    /* 2. transport (needs a ring of >= 2) */
    out->latency_s = 0, out->bw_bytes_per_s = 0, out->eta = 1, out->sigma = 1;
    if (n >= 2) {
        if (o->n_sizes > 0) {
            out->n_sizes = o->n_sizes;
            memcpy(out->sizes, o->sizes, sizeof(uint64_t) * (size_t)o->n_sizes);
        } else {
            rs_problem_t p = one_rank(problem, o->blocks[o->n_blocks - 1]);
            uint64_t top = rs_problem_kv_bytes(&p) * 4;
            if (top < (1u << 20)) top = 1u << 20;
            for (uint64_t m = 1024; m <= top && out->n_sizes < RS_CALIB_MAX_SIZES; m *= 4) out->sizes[out->n_sizes++] = m;
        }
        uint64_t maxm = out->sizes[out->n_sizes - 1];
        /* buffers for the largest message and the largest block's K,V */
        rs_problem_t pb = one_rank(problem, o->blocks[o->n_blocks - 1]);
        uint64_t bufm = maxm > rs_problem_kv_bytes(&pb) ? maxm : rs_problem_kv_bytes(&pb);
        if (!(scratch.cs = NULL, block_init(problem, o->blocks[0], cops, local_rank, tops, ts, &scratch, err) == 0)) goto done;
        for (int k = 0; k < 5; k++)
            if (cops->buf_alloc(scratch.cs, bufm, &xb[k], &e) < 0) {
                rs_errc(err, e.code, "calibrate: %s", e.msg);
                goto done;
            }
        for (int i = 0; i < out->n_sizes; i++) {
            const uint64_t m = out->sizes[i];
            const int reps = m <= (1u << 20) ? 30 : 8; /* the same on every rank */
            if (tops->barrier(ts, o->timeout_s, err) < 0 ||
                time_exchange(tops, ts, xb, m, reps, false, o->timeout_s, samples, &out->t_msg_s[i], err) < 0 ||
                time_exchange(tops, ts, xb, m, reps, true, o->timeout_s, samples, &out->t_msg_reused_s[i], err) < 0)
                goto done;
            rs_meter_update(&meter, rounds * o->n_blocks + (o->n_blocks * (i + 1)) / out->n_sizes, "transport %llu bytes",
                            (unsigned long long)m);
        }
        if (rank == 0) rs_calib_fit_transport(out);

        /* 3. overlap: at every block whose compute takes <= 0.1 s, the block step with the pass's own
         * ring transfers posted at its start; eta is then fitted over all the points (below) */
        for (int bi = 0; bi < out->n_blocks && bi < RS_CALIB_MAX_OV; bi++) {
            rs_meter_update(&meter, (rounds + 1) * o->n_blocks + bi, "overlap B=%lld", (long long)o->blocks[bi]);
            /* rank 0's numbers decide for everyone (the others hold their own, not the median):
             * whether to measure and how many repetitions, so every rank makes the same calls */
            double go[2] = {out->t_block_s[bi] <= 0.1 ? 1 : 0, out->t_block_s[bi] < 0.01 ? 15 : 7};
            if (tops->bcast) {
                if (tops->bcast(ts, go, sizeof go, o->timeout_s, err) < 0) goto done;
            } else { /* no broadcast: a rule on B alone */
                go[0] = o->blocks[bi] <= 512, go[1] = 7;
            }
            if (!go[0]) continue;
            double ends[16], ends_fresh[16], comps[16], alone[16];
            size_t ns = 0;
            const int reps = (int)go[1];
            rs_calib_flows_t fl;
            if (rs_calib_overlap_samples(problem, o->blocks[bi], cops, local_rank, tops, ts, reps, o->timeout_s, ends, ends_fresh,
                                         comps, alone, NULL, NULL, 16, &ns, &fl, err) < 0)
                goto done;
            double E, EF, TC, TA;
            if (rank_median(tops, ts, rs_median(ends, ns), o->timeout_s, &E, err) < 0 ||
                rank_median(tops, ts, rs_median(ends_fresh, ns), o->timeout_s, &EF, err) < 0 ||
                rank_median(tops, ts, rs_median(comps, ns), o->timeout_s, &TC, err) < 0 ||
                rank_median(tops, ts, rs_median(alone, ns), o->timeout_s, &TA, err) < 0)
                goto done;
            if (rank == 0) {
                const double L = out->latency_s, x = (double)fl.bytes / out->bw_bytes_per_s;
                out->ov[out->n_ov++] = (rs_calib_overlap_t){o->blocks[bi], fl.bytes, fl.n, TA, TC, L + x, E, EF, 1,
                                                             TA > 0 ? fmax(1.0, TC / TA) : 1, o->polled ? fl.polls : 0,
                                                             fl.poll_first};
                if (o->polled && fl.geom.chunk_cols > 0) out->model.poll = fl.geom;
            }
        }
        if (rank == 0 && out->n_ov > 0) rs_calib_fit_overlap(out);
    }
    out->mem_bw_bytes_per_s = memcpy_bw();
    rc = 0;
done:
    if (scratch.cs) {
        for (int k = 0; k < 5; k++)
            if (xb[k]) cops->buf_free(scratch.cs, xb[k]);
    }
    block_free(cops, &scratch);
    free(samples);
    if (rank == 0) rs_meter_end(&meter);
    return rc;
}

void rs_calib_to_hw(const rs_calib_t *c, const char *name, const char *note, int64_t n_ranks, rs_dtype_t dtype,
                    rs_hw_t *hw) {
    memset(hw, 0, sizeof *hw);
    snprintf(hw->name, sizeof hw->name, "%s", name);
    hw->flops_per_s[dtype] = c->flops_peak;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    hw->mem_bytes = pages > 0 && psz > 0 ? (double)pages * (double)psz : 1e9;
    hw->mem_bw_bytes_per_s = c->mem_bw_bytes_per_s > 0 ? c->mem_bw_bytes_per_s : 1e9;
    hw->devices_per_node = n_ranks;
    snprintf(hw->intra.name, sizeof hw->intra.name, "measured");
    hw->intra.bw_bytes_per_s = c->bw_bytes_per_s > 0 ? c->bw_bytes_per_s : 1e12;
    hw->intra.latency_s = c->latency_s;
    hw->has_inter = false;
    hw->cal = c->model;
    snprintf(hw->calibration_note, sizeof hw->calibration_note, "%s", note);
}

void rs_calib_print(const rs_calib_t *c, FILE *out) {
    fprintf(out, "# kernel: F_eff(B) of one full B x B block step (median over repetitions and ranks)\n");
    fprintf(out, "# %8s %14s %12s %8s\n", "B", "t_block_s", "GFLOP/s", "eff");
    for (int i = 0; i < c->n_blocks; i++)
        fprintf(out, "  %8lld %14.6g %12.3f %8.3f\n", (long long)c->blocks[i], c->t_block_s[i], c->flops_eff[i] * 1e-9,
                c->flops_eff[i] / c->flops_peak);
    if (c->n_sizes > 0) {
        fprintf(out, "# transport: ring exchange (send to p+1, receive from p-1), receive post to completion; t_s fresh (a\n"
                     "# block its sender just wrote, into a buffer the peer never read), reused_s with the buffers rotating as\n"
                     "# the ring's (g_reused: its curve)\n");
        fprintf(out, "# %12s %14s %14s %10s %8s %14s %9s\n", "bytes", "t_s", "fit_s", "GB/s", "g", "reused_s", "g_reused");
        for (int i = 0; i < c->n_sizes; i++) {
            char tr[24] = "-", gr[24] = "-";
            if (c->t_msg_reused_s[i] > 0) {
                snprintf(tr, sizeof tr, "%.6g", c->t_msg_reused_s[i]);
                snprintf(gr, sizeof gr, "%.3f", rs_calibration_xfer_factor_reused(&c->model, (double)c->sizes[i]));
            }
            fprintf(out, "  %12llu %14.6g %14.6g %10.3f %8.3f %14s %9s\n", (unsigned long long)c->sizes[i], c->t_msg_s[i],
                    c->latency_s + (double)c->sizes[i] / c->bw_bytes_per_s, (double)c->sizes[i] / c->t_msg_s[i] * 1e-9,
                    rs_calibration_xfer_factor(&c->model, (double)c->sizes[i]), tr, gr);
        }
        fprintf(out, "# alpha-beta fit: latency %.3g s, bandwidth %.4g GB/s (max fit error %.1f%%); the transfer curve g (the "
                     "model's L + m g(m) / W) goes through every measured size\n",
                c->latency_s, c->bw_bytes_per_s * 1e-9, 100 * c->fit_err_max);
        fprintf(out, "# overlap: each block step with its pass's ring transfers (flows, bytes in all) posted at its start, the\n"
                     "# buffers rotating (t_end_s), and again with fresh transfers (t_end_fresh_s)\n");
        fprintf(out, "# %8s %5s %12s %14s %14s %14s %14s %14s %8s %8s\n", "B", "flows", "bytes", "t_comp_s", "t_comp_busy_s",
                "t_xfer_s", "t_end_s", "t_end_fresh_s", "eta_pt", "sigma");
        for (int i = 0; i < c->n_ov; i++) {
            const rs_calib_overlap_t *v = &c->ov[i];
            char eta[16], ef[24] = "-";
            if (v->t_end_fresh_s > 0) snprintf(ef, sizeof ef, "%.6g", v->t_end_fresh_s);
            fprintf(out, "  %8lld %5d %12llu %14.6g %14.6g %14.6g %14.6g %14s %8s %8.3f\n", (long long)v->block, v->n_flows,
                    (unsigned long long)v->bytes, v->t_comp_s, v->t_comp_busy_s, v->t_xfer_s, v->t_end_s, ef,
                    rs_fmt_num(v->eta, "%.3f", eta, sizeof eta), v->sigma);
        }
        fprintf(out, "# host cost (compute lost per received transfer): %.3g s + %.3g s/byte (median |error| of the "
                     "busy compute %.1f%%)\n", c->model.host_s_per_xfer, c->model.host_s_per_byte, 100 * c->host_fit_err);
        fprintf(out, "# overlap curve: eta_pt by bytes (profile's overlap_curve); one eta for all points would be %.3f "
                     "(median |error| of the completion %.1f%%); sigma (median) %.3f\n", c->eta, 100 * c->eta_fit_err, c->sigma);
    }
    fprintf(out, "# memcpy bandwidth (read + write, one rank): %.3g GB/s\n", c->mem_bw_bytes_per_s * 1e-9);
}
