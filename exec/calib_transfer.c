/* calib_transfer.c - the transport side of a calibration (calib_transfer.h): ring exchanges, fresh
 * and rotating, the ring step's flows and the overlap samples of a block step with them in flight,
 * medians over ranks. */
#include "calib_transfer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polls.h"
#include "stats.h"

/* ---------------------------------------------------------------------------------------------------
 * Medians over ranks
 * ------------------------------------------------------------------------------------------------- */
/* Median over ranks of one value per rank, on rank 0 (others: their own value). A loopback state
 * (one rank alone) gathers its own value only. */
static int rank_median(const rs_exec_job_t *job, double v, double timeout_s, double *out, rs_err_t *err) {
    const rs_transport_ops_t *tops = job->tops;
    void *ts = job->ts;
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

int rs_calib_rank_values(const rs_exec_job_t *job, double *samples, size_t n, double timeout_s, double *all, rs_err_t *err) {
    double v = rs_median(samples, n);
    return job->tops->gather(job->ts, &v, sizeof v, all, timeout_s, err) < 0 ? -1 : 0;
}

int rs_calib_rank_median(const rs_exec_job_t *job, double *samples, size_t n, double timeout_s, double *out, rs_err_t *err) {
    return rank_median(job, rs_median(samples, n), timeout_s, out, err);
}

/* ---------------------------------------------------------------------------------------------------
 * The ring step's flows
 * ------------------------------------------------------------------------------------------------- */
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
 * block sent receives next. The transport's times depend on it (a transfer into a buffer the peer has
 * just read, or of one the sender did not just write, takes another time than the same two buffers
 * every time), so the calibration's exchanges and overlap samples rotate them as the ring does. */
static void xfer_rotate(void **send_buf, void **recv_buf) {
    void *t = *send_buf;
    *send_buf = *recv_buf, *recv_buf = t;
}

/* ---------------------------------------------------------------------------------------------------
 * Overlap samples
 * ------------------------------------------------------------------------------------------------- */
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

static void flows_free(const rs_calib_block_t *blk, flows_t *f) {
    for (int i = 0; i < f->n; i++) {
        if (f->rbuf[i]) blk->cops->buf_free(blk->cs, f->rbuf[i]);
        for (int k = 0; k < 3; k++)
            if (f->fresh[i][k]) blk->cops->buf_free(blk->cs, f->fresh[i][k]);
    }
    if (f->dsend) blk->cops->buf_free(blk->cs, f->dsend);
}

/* A ring step's requests: receive every flow from p-1, send to p+1 the K,V being computed on and the
 * dK,dV partial. */
static void step_reqs(const flows_t *f, const rs_calib_block_t *blk, int64_t rank, int64_t nn, rs_xfer_req_t *q) {
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
static void flows_rotate(flows_t *f, rs_calib_block_t *blk) {
    for (int i = 0; i < f->n; i++) xfer_rotate(f->kind[i] == RS_XFER_KV ? &blk->kv : &f->dsend, &f->rbuf[i]);
}

/* The last receive's completion from the first post of a step's transfers (the trace's recv). */
static double recv_span(const rs_xfer_time_t *tm, int n_recv) {
    double p0 = INFINITY, p1 = -INFINITY;
    for (int i = 0; i < n_recv; i++) p0 = fmin(p0, tm[i].post_s), p1 = fmax(p1, tm[i].done_s);
    return p1 - p0;
}

int rs_calib_overlap_samples(const rs_exec_job_t *job, const rs_calib_overlap_req_t *rq, const rs_calib_overlap_samples_t *out,
                             rs_err_t *err) {
    const rs_transport_ops_t *tops = job->tops;
    void *ts = job->ts;
    const double timeout_s = rq->timeout_s;
    const int64_t nn = tops->size(ts), rank = tops->rank(ts);
    rs_calib_flows_t *flows = out->flows;
    size_t *n = out->n;
    if (flows) memset(flows, 0, sizeof *flows);
    if (nn < 2) return 0;
    flows_t f = {0};
    if ((f.n = rs_calib_step_flows(rq->problem, rq->block, nn, f.kind, f.bytes, err)) < 0) return -1;
    const rs_calib_point_t pt = {.problem = rq->problem, .block = rq->block, .cops = job->cops, .local_rank = job->local_rank};
    rs_calib_block_t blk;
    if (rs_calib_block_init(&pt, RS_KMASK_FULL, job, &blk, err) < 0) return -1;
    const rs_compute_ops_t *cops = job->cops;
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
    for (int r = 0; r < rq->reps + 1; r++) {
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
        if (rs_calib_block_step(&blk, &c0, &c1, err) < 0 || /* the compute alone */
            tops->barrier(ts, timeout_s, err) < 0)
            goto out;
        step_reqs(&f, &blk, rank, nn, q);
        if (rs_calib_block_begin(&blk, err) < 0 || tops->post(ts, 2 * f.n, q, err) < 0 || rs_calib_block_run(&blk, &t0, &t1, err) < 0 ||
            tops->wait(ts, timeout_s, tm, err) < 0)
            goto out;
        flows_rotate(&f, &blk);
        /* the step again with fresh transfers (primed, then posted at its start) */
        rs_xfer_time_t tmf[2 * RS_MAX_TRANSFERS];
        double u0, u1;
        if (out->end_fresh_s &&
            (tops->post(ts, 2 * f.n, qp, err) < 0 || tops->wait(ts, timeout_s, tmf, err) < 0 || tops->barrier(ts, timeout_s, err) < 0 ||
             rs_calib_block_begin(&blk, err) < 0 || tops->post(ts, 2 * f.n, qf, err) < 0 || rs_calib_block_run(&blk, &u0, &u1, err) < 0 ||
             tops->wait(ts, timeout_s, tmf, err) < 0))
            goto out;
        if (r == 0 || *n >= out->cap) continue; /* warm-up */
        if (out->end_fresh_s) out->end_fresh_s[*n] = recv_span(tmf, f.n);
        out->end_s[*n] = recv_span(tm, f.n); /* the receives: the step's blocks' arrival, as the trace's recv */
        out->busy_s[*n] = t1 - t0;
        out->alone_s[*n] = c1 - c0;
        if (out->xfer_s) out->xfer_s[*n] = recv_span(tf, f.n);
        if (out->xfer_reused_s) out->xfer_reused_s[*n] = recv_span(tx, f.n);
        (*n)++;
    }
    if (flows) {
        flows->n = f.n;
        for (int i = 0; i < f.n; i++) flows->bytes += f.bytes[i];
        if (cops->poll_geometry) {
            cops->poll_geometry(blk.cs, &flows->geom);
            flows->polls = rs_step_polls(rs_schedule_problem(blk.s), &blk.st, &flows->geom);
            flows->poll_first = rs_poll_first_frac(rq->problem->pass);
        }
    }
    rc = 0;
out:
    flows_free(&blk, &f);
    rs_calib_block_free(&blk);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------
 * Ring exchanges of m bytes: the receive's post-to-completion time
 * ------------------------------------------------------------------------------------------------- */
/* One exchange: send sr[0] to p+1, receive into sr[1] from p-1. */
static int exchange(const rs_calib_exchanges_t *x, void *const sr[2], uint64_t m, int tag, double *t_s, rs_err_t *err) {
    const rs_transport_ops_t *tops = x->job->tops;
    void *ts = x->job->ts;
    int64_t n = tops->size(ts), r = tops->rank(ts);
    rs_xfer_req_t q[2] = {{RS_XFER_RECV, (r - 1 + n) % n, sr[1], m, tag}, {RS_XFER_SEND, (r + 1) % n, sr[0], m, tag}};
    rs_xfer_time_t tm[2];
    if (tops->post(ts, 2, q, err) < 0 || tops->wait(ts, x->timeout_s, tm, err) < 0) return -1;
    *t_s = tm[0].done_s - tm[0].post_s;
    return 0;
}

/* A fresh transfer as the ring's are (the K,V staged for step 0, the dK,dV partial the kernel just
 * wrote): the block sent was just written by its sender, and it lands in a buffer only its receiver
 * writes. An untimed exchange receives the block the timed one then sends (fresh_buf's roles on
 * x->buf[0..2]). */
static int fresh_exchange(const rs_calib_exchanges_t *x, uint64_t m, double *t_s, rs_err_t *err) {
    double unused;
    void *const prime[2] = {fresh_buf(x->buf, true, RS_XFER_SEND), fresh_buf(x->buf, true, RS_XFER_RECV)};
    void *const timed[2] = {fresh_buf(x->buf, false, RS_XFER_SEND), fresh_buf(x->buf, false, RS_XFER_RECV)};
    return exchange(x, prime, m, TAG_PRIME, &unused, err) < 0 ? -1 : exchange(x, timed, m, TAG_EXCHANGE, t_s, err);
}

int rs_calib_time_exchange(rs_calib_exchanges_t *x, uint64_t m, bool rotate, double *t_med_s, rs_err_t *err) {
    const int reps = m <= (1u << 20) ? 30 : 8; /* the same on every rank */
    double samples[30], t;
    for (int r = 0; r < 3 + reps; r++) {
        void *const sr[2] = {x->buf[3], x->buf[4]};
        if (rotate ? exchange(x, sr, m, TAG_EXCHANGE, &t, err) : fresh_exchange(x, m, &t, err)) return -1;
        if (rotate) xfer_rotate(&x->buf[3], &x->buf[4]);
        if (r >= 3) samples[r - 3] = t;
    }
    return rank_median(x->job, rs_median(samples, (size_t)reps), x->timeout_s, t_med_s, err);
}

int rs_calib_exchanges_open(rs_calib_exchanges_t *x, const rs_exec_job_t *job, const rs_calib_point_t *pt, uint64_t bytes,
                            double timeout_s, rs_err_t *err) {
    memset(x, 0, sizeof *x);
    x->job = job, x->timeout_s = timeout_s;
    if (rs_calib_block_init(pt, RS_KMASK_FULL, job, &x->owner, err) < 0) return -1;
    rs_err_t e = {0};
    for (int k = 0; k < 5; k++)
        if (x->owner.cops->buf_alloc(x->owner.cs, bytes, &x->buf[k], &e) < 0) {
            rs_errc(err, e.code, "calibrate: %s", e.msg);
            rs_calib_exchanges_close(x);
            return -1;
        }
    return 0;
}

void rs_calib_exchanges_close(rs_calib_exchanges_t *x) {
    if (x->owner.cs)
        for (int k = 0; k < 5; k++)
            if (x->buf[k]) x->owner.cops->buf_free(x->owner.cs, x->buf[k]);
    rs_calib_block_free(&x->owner);
    memset(x->buf, 0, sizeof x->buf);
}
