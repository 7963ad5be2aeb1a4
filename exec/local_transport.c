/* local_transport.c - the "local" transport: N ranks as N threads of one process (see exec.h).
 *
 * A send deposits (buffer, bytes, tag) in the destination's inbox and returns; the receiver copies
 * the payload when it waits (or progresses) and marks the send done, so a send completes when its
 * data has been delivered, as with a rendezvous protocol. One mutex and one condition variable
 * guard the world; waits use a deadline and give up naming the peer. abort() wakes every waiter.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec.h"

#define INBOX_MAX 16

typedef struct local_rank local_rank_t;

typedef struct {
    int64_t src;            /* sending rank */
    int tag;                /* stream */
    const void *buf;        /* sender's payload */
    uint64_t bytes;         /* payload size */
    local_rank_t *sender;   /* to mark the send done */
    int sender_req;         /* index of the send in the sender's post */
} message_t;

struct local_rank {
    rs_local_world_t *w;    /* the world */
    int64_t rank;           /* this rank */
    int n;                  /* requests of the current post */
    rs_xfer_req_t reqs[RS_XFER_MAX_REQS];
    rs_xfer_time_t times[RS_XFER_MAX_REQS];
    bool done[RS_XFER_MAX_REQS];
    int n_inbox;            /* messages deposited for this rank, not yet received */
    message_t inbox[INBOX_MAX];
    bool loop;              /* loopback: this state plays rank loop_rank of loop_n alone and owns w */
    int64_t loop_rank, loop_n;
};

struct rs_local_world {
    int64_t n_ranks;               /* ranks */
    pthread_mutex_t mu;            /* guards everything below */
    pthread_cond_t cv;             /* any state change */
    bool aborted;                  /* abort() was called */
    int64_t barrier_count;         /* ranks inside the current barrier */
    uint64_t barrier_gen;          /* barrier generation */
    const void **gather_src;       /* per rank: host buffer offered to gather */
    local_rank_t *ranks;           /* per-rank states */
};

rs_local_world_t *rs_local_world_create(int64_t n_ranks, rs_err_t *err) {
    rs_local_world_t *w = calloc(1, sizeof *w);
    if (!w) goto oom;
    w->n_ranks = n_ranks;
    w->ranks = calloc((size_t)n_ranks, sizeof *w->ranks);
    w->gather_src = calloc((size_t)n_ranks, sizeof *w->gather_src);
    if (!w->ranks || !w->gather_src) goto oom;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    for (int64_t r = 0; r < n_ranks; r++) w->ranks[r].w = w, w->ranks[r].rank = r;
    return w;
oom:
    if (w) free(w->ranks), free(w->gather_src);
    free(w);
    rs_errf(err, "local transport: out of memory for %lld ranks", (long long)n_ranks);
    return NULL;
}

void *rs_local_world_rank(rs_local_world_t *w, int64_t rank) { return &w->ranks[rank]; }

void rs_local_world_free(rs_local_world_t *w) {
    if (!w) return;
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w->ranks);
    free(w->gather_src);
    free(w);
}

static int64_t lt_rank(void *st) {
    local_rank_t *r = st;
    return r->loop ? r->loop_rank : r->rank;
}
static int64_t lt_size(void *st) {
    local_rank_t *r = st;
    return r->loop ? r->loop_n : r->w->n_ranks;
}
static bool lt_loopback(void *st) { return ((local_rank_t *)st)->loop; }

static int lt_post(void *st, int n, const rs_xfer_req_t *reqs, rs_err_t *err) {
    local_rank_t *r = st;
    rs_local_world_t *w = r->w;
    if (n > RS_XFER_MAX_REQS) return rs_errf(err, "local transport: %d transfers in one post (max %d)", n, RS_XFER_MAX_REQS);
    pthread_mutex_lock(&w->mu);
    r->n = n;
    double now = rs_now_s();
    for (int i = 0; i < n; i++) {
        r->reqs[i] = reqs[i];
        r->times[i].post_s = now;
        r->times[i].done_s = 0;
        r->done[i] = false;
        if (reqs[i].dir == RS_XFER_SEND) {
            local_rank_t *dst = r->loop ? r : &w->ranks[reqs[i].peer]; /* loopback: to itself */
            if (dst->n_inbox >= INBOX_MAX) {
                pthread_mutex_unlock(&w->mu);
                return rs_errf(err, "local transport: inbox of rank %lld full", (long long)reqs[i].peer);
            }
            dst->inbox[dst->n_inbox++] = (message_t){r->rank, reqs[i].tag, reqs[i].buf, reqs[i].bytes, r, i};
        }
    }
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

/* Deliver every matching message to this rank's pending receives. Called with the mutex held.
 * Returns the number of transfers that completed. */
static int deliver(local_rank_t *r, rs_err_t *err, int *bad) {
    int completed = 0;
    for (int i = 0; i < r->n; i++) {
        if (r->done[i] || r->reqs[i].dir != RS_XFER_RECV) continue;
        for (int m = 0; m < r->n_inbox; m++) {
            message_t *msg = &r->inbox[m];
            if ((!r->loop && msg->src != r->reqs[i].peer) || msg->tag != r->reqs[i].tag) continue;
            if (msg->bytes != r->reqs[i].bytes) {
                rs_errf(err, "local transport: rank %lld expected %llu bytes from rank %lld, got %llu",
                        (long long)r->rank, (unsigned long long)r->reqs[i].bytes, (long long)msg->src,
                        (unsigned long long)msg->bytes);
                *bad = 1;
                return completed;
            }
            memcpy(r->reqs[i].buf, msg->buf, msg->bytes);
            double now = rs_now_s();
            r->done[i] = true, r->times[i].done_s = now;
            msg->sender->done[msg->sender_req] = true, msg->sender->times[msg->sender_req].done_s = now;
            r->inbox[m] = r->inbox[--r->n_inbox];
            completed += 2;
            break;
        }
    }
    return completed;
}

static void lt_progress(void *st) {
    local_rank_t *r = st;
    int bad = 0;
    pthread_mutex_lock(&r->w->mu);
    if (deliver(r, NULL, &bad) > 0) pthread_cond_broadcast(&r->w->cv);
    pthread_mutex_unlock(&r->w->mu);
}

static struct timespec deadline_ts(double timeout_s) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double t = (double)ts.tv_sec + ts.tv_nsec * 1e-9 + timeout_s;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    return ts;
}

static int lt_wait(void *st, double timeout_s, rs_xfer_time_t *times, rs_err_t *err) {
    local_rank_t *r = st;
    rs_local_world_t *w = r->w;
    struct timespec dl = deadline_ts(timeout_s > 0 ? timeout_s : 1e9);
    int rc = 0, bad = 0;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        if (deliver(r, err, &bad) > 0) pthread_cond_broadcast(&w->cv);
        if (bad) { rc = -1; break; }
        int pending = -1;
        for (int i = 0; i < r->n; i++)
            if (!r->done[i]) { pending = i; break; }
        if (pending < 0) break;
        if (w->aborted) { rc = rs_errc(err, RS_ERR_ABORTED, "aborted by another rank"); break; }
        if (pthread_cond_timedwait(&w->cv, &w->mu, &dl) == ETIMEDOUT) {
            bool snd = r->reqs[pending].dir == RS_XFER_SEND;
            rc = rs_errc(err, RS_ERR_TIMEOUT, "timeout after %g s waiting for %s rank %lld", timeout_s,
                         snd ? "send to" : "receive from", (long long)r->reqs[pending].peer);
            break;
        }
    }
    if (rc == 0 && times) memcpy(times, r->times, sizeof(rs_xfer_time_t) * (size_t)r->n);
    if (rc == 0) r->n = 0;
    pthread_mutex_unlock(&w->mu);
    return rc;
}

static int lt_barrier(void *st, double timeout_s, rs_err_t *err) {
    local_rank_t *r = st;
    rs_local_world_t *w = r->w;
    struct timespec dl = deadline_ts(timeout_s > 0 ? timeout_s : 1e9);
    int rc = 0;
    pthread_mutex_lock(&w->mu);
    uint64_t gen = w->barrier_gen;
    if (++w->barrier_count == w->n_ranks) {
        w->barrier_count = 0;
        w->barrier_gen++;
        pthread_cond_broadcast(&w->cv);
    } else {
        while (w->barrier_gen == gen) {
            if (w->aborted) { rc = rs_errc(err, RS_ERR_ABORTED, "aborted by another rank"); break; }
            if (pthread_cond_timedwait(&w->cv, &w->mu, &dl) == ETIMEDOUT) {
                rc = rs_errc(err, RS_ERR_TIMEOUT, "timeout after %g s in a barrier (%lld of %lld ranks arrived)", timeout_s,
                             (long long)w->barrier_count, (long long)w->n_ranks);
                break;
            }
        }
    }
    pthread_mutex_unlock(&w->mu);
    return rc;
}

/* Every rank shows its host buffer to the others (gather_src) and enters a barrier; after it the
 * collective copies (rank 0 every rank's buffer for a gather, every other rank rank 0's for a
 * broadcast), then a second barrier ends it. */
static int lt_show(local_rank_t *r, const void *host_buf, double timeout_s, rs_err_t *err) {
    rs_local_world_t *w = r->w;
    pthread_mutex_lock(&w->mu);
    w->gather_src[r->rank] = host_buf;
    pthread_mutex_unlock(&w->mu);
    return lt_barrier(r, timeout_s, err);
}

static int lt_gather(void *st, const void *host_buf, size_t bytes, void *root_buf, double timeout_s, rs_err_t *err) {
    local_rank_t *r = st;
    rs_local_world_t *w = r->w;
    if (lt_show(r, host_buf, timeout_s, err) < 0) return -1;
    if (r->rank == 0)
        for (int64_t i = 0; i < w->n_ranks; i++) memcpy((char *)root_buf + (size_t)i * bytes, w->gather_src[i], bytes);
    return lt_barrier(st, timeout_s, err);
}

static int lt_bcast(void *st, void *host_buf, size_t bytes, double timeout_s, rs_err_t *err) {
    local_rank_t *r = st;
    if (lt_show(r, host_buf, timeout_s, err) < 0) return -1;
    if (r->rank != 0) memcpy(host_buf, r->w->gather_src[0], bytes);
    return lt_barrier(st, timeout_s, err);
}

static void lt_abort(void *st, int exit_code) {
    (void)exit_code;
    local_rank_t *r = st;
    pthread_mutex_lock(&r->w->mu);
    r->w->aborted = true;
    pthread_cond_broadcast(&r->w->cv);
    pthread_mutex_unlock(&r->w->mu);
}

static const char *lt_describe(void *st) {
    return ((local_rank_t *)st)->loop ? "local loopback: one rank alone, each receive a memcpy of its own send"
                                      : "local: threads of one process, memcpy on delivery";
}

static void lt_destroy(void *st) {
    local_rank_t *r = st;
    if (r->loop) rs_local_world_free(r->w); /* a loopback state owns its world of one */
}

void *rs_local_loopback_create(int64_t rank, int64_t n_ranks, rs_err_t *err) {
    if (n_ranks < 1 || rank < 0 || rank >= n_ranks)
        return rs_errf(err, "local loopback: rank %lld of %lld", (long long)rank, (long long)n_ranks), NULL;
    rs_local_world_t *w = rs_local_world_create(1, err);
    if (!w) return NULL;
    local_rank_t *r = &w->ranks[0];
    r->loop = true, r->loop_rank = rank, r->loop_n = n_ranks;
    return r;
}

const rs_transport_ops_t rs_local_transport_ops = {
    .name = "local", .rank = lt_rank, .size = lt_size, .post = lt_post, .progress = lt_progress, .wait = lt_wait,
    .barrier = lt_barrier, .gather = lt_gather, .bcast = lt_bcast, .abort = lt_abort, .describe = lt_describe,
    .destroy = lt_destroy, .loopback = lt_loopback, .inject_stall = NULL,
};
