/* nccl_transport.c - the "nccl" transport of exec/exec.h: a step's sends and receives in one
 * ncclGroupStart/End on the device's communication stream, CUDA events around it, a watchdog that
 * aborts the communicator on a hang. Barrier and gather (host data) go through the MPI transport
 * (mpirun) or the local transport (threads). Contracts: gpu.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nccl.h>

#include "attn.h"
#include "check.h"
#include "gpu.h"

#ifdef RINGSIM_HAVE_MPI
#include <mpi.h>
#endif

typedef struct {
    int64_t rank, size;                 /* ring rank and size */
    rs_gpu_ctx_t *ctx;                  /* device, compute and comm streams */
    ncclComm_t comm;                    /* non-blocking communicator */
    const rs_transport_ops_t *host_ops; /* MPI or local transport: barrier, gather, abort */
    void *host_state;                   /* its state */
    bool own_host_state;                /* destroy host_state with this state (MPI mode) */
    cudaEvent_t ev_ready;               /* compute stream position at post (orders sends after it) */
    cudaEvent_t ev_start, ev_end;       /* around the group on the comm stream */
    int n_posted;                       /* requests of the outstanding post (0: none) */
    rs_xfer_req_t reqs[RS_XFER_MAX_REQS];
    uint64_t post_count;                /* posts since creation (named by the watchdog) */
    uint64_t seq_at_post;               /* ctx->step_seq when the outstanding post was made */
    /* watchdog */
    pthread_t wd_thread;                /* the watchdog thread */
    bool wd_running;                    /* the thread exists */
    pthread_mutex_t wd_mu;              /* guards the fields below and every use of comm while armed */
    pthread_cond_t wd_cv;               /* wakes the watchdog (arm, disarm, stop) */
    bool wd_armed, wd_stop, wd_fired;   /* state */
    double wd_deadline_s;               /* rs_now_s() deadline while armed */
    char wd_what[160];                  /* what is being waited for, for the message */
    rs_local_world_t *world;            /* threads mode, rank 0's state: the local world to free */
    char desc[256];                     /* describe() */
    rs_gpu_loop_t loop;                 /* loopback: 0 none, NCCL self send/recv or a device copy */
    bool stall_next;                    /* test hook: the next post stalls on the device */
    int *stall_host, *stall_dev;        /* host-mapped release flag of an injected stall */
} nstate_t;

/* ---------------------------------------------------------------------------------------------------
 * Watchdog
 * ------------------------------------------------------------------------------------------------- */
static void *wd_main(void *arg) {
    nstate_t *s = arg;
    pthread_mutex_lock(&s->wd_mu);
    while (!s->wd_stop) {
        if (s->wd_armed && !s->wd_fired && rs_now_s() > s->wd_deadline_s) {
            s->wd_fired = true;
            fprintf(stderr, "ringsim: nccl watchdog: rank %lld: %s not done after the timeout (post #%llu): "
                            "aborting the communicator\n",
                    (long long)s->rank, s->wd_what, (unsigned long long)s->post_count);
            fflush(stderr);
            /* an injected stall ends first, so nothing queued behind it can keep the abort waiting */
            if (s->stall_host) *(volatile int *)s->stall_host = 1;
            if (s->comm) ncclCommAbort(s->comm); /* under wd_mu: the waiting thread no longer touches comm */
            s->comm = NULL;
            pthread_cond_broadcast(&s->wd_cv);
            continue;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20 * 1000 * 1000; /* 20 ms */
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&s->wd_cv, &s->wd_mu, &ts);
    }
    pthread_mutex_unlock(&s->wd_mu);
    return NULL;
}

static void wd_arm(nstate_t *s, double timeout_s, const char *what) {
    pthread_mutex_lock(&s->wd_mu);
    s->wd_armed = timeout_s > 0;
    s->wd_deadline_s = rs_now_s() + timeout_s;
    snprintf(s->wd_what, sizeof s->wd_what, "%s", what);
    pthread_cond_broadcast(&s->wd_cv);
    pthread_mutex_unlock(&s->wd_mu);
}

static void wd_disarm(nstate_t *s) {
    pthread_mutex_lock(&s->wd_mu);
    s->wd_armed = false;
    pthread_mutex_unlock(&s->wd_mu);
}

static void nap(void) {
    struct timespec ts = {0, 10 * 1000}; /* 10 us */
    nanosleep(&ts, NULL);
}

/* Poll the communicator until its last operation left ncclInProgress. Returns 0, or -1 with err on
 * an NCCL error or when the watchdog fired (timeout_s <= 0: wait forever). */
static int comm_settle(nstate_t *s, double timeout_s, const char *what, rs_err_t *err) {
    wd_arm(s, timeout_s, what);
    for (;;) {
        pthread_mutex_lock(&s->wd_mu);
        if (s->wd_fired) {
            pthread_mutex_unlock(&s->wd_mu);
            return rs_errc(err, RS_ERR_TIMEOUT, "nccl: timeout after %g s waiting for %s (communicator aborted)", timeout_s, what);
        }
        ncclResult_t st = ncclInProgress;
        ncclResult_t r = ncclCommGetAsyncError(s->comm, &st);
        pthread_mutex_unlock(&s->wd_mu);
        if (r != ncclSuccess) {
            wd_disarm(s);
            return rs_errf(err, "nccl: %s:%d: ncclCommGetAsyncError: %s", __FILE__, __LINE__, ncclGetErrorString(r));
        }
        if (st == ncclSuccess) break;
        if (st != ncclInProgress) {
            wd_disarm(s);
            return rs_errf(err, "nccl: %s: %s (%s)", what, ncclGetErrorString(st), ncclGetLastError(s->comm));
        }
        nap();
    }
    wd_disarm(s);
    return 0;
}

/* ---------------------------------------------------------------------------------------------------
 * Creation
 * ------------------------------------------------------------------------------------------------- */
static double init_timeout_s(void) {
    const char *e = getenv("RINGSIM_NCCL_INIT_TIMEOUT");
    double t = e ? atof(e) : 120.0;
    return t > 0 ? t : 120.0;
}

/* State with streams, events and watchdog; the communicator is created by the caller. */
static nstate_t *state_new(int64_t rank, int64_t size, int device, rs_err_t *err) {
    nstate_t *s = calloc(1, sizeof *s);
    if (!s) {
        rs_errf(err, "nccl: out of memory");
        return NULL;
    }
    s->rank = rank, s->size = size;
    pthread_mutex_init(&s->wd_mu, NULL);
    pthread_cond_init(&s->wd_cv, NULL);
    s->ctx = rs_gpu_ctx_get(device, err);
    if (!s->ctx || cudaEventCreateWithFlags(&s->ev_ready, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventCreate(&s->ev_start) != cudaSuccess || cudaEventCreate(&s->ev_end) != cudaSuccess) {
        if (s->ctx) rs_errf(err, "cuda: %s:%d: cudaEventCreate failed on device %d", __FILE__, __LINE__, device);
        free(s);
        return NULL;
    }
    if (pthread_create(&s->wd_thread, NULL, wd_main, s) != 0) {
        rs_errf(err, "nccl: cannot start the watchdog thread: %s", strerror(errno));
        free(s);
        return NULL;
    }
    s->wd_running = true;
    int v = 0;
    ncclGetVersion(&v);
    snprintf(s->desc, sizeof s->desc, "NCCL %d.%d.%d: ncclSend/Recv in a group on a comm stream (GPU %d), non-blocking comm + watchdog",
             v / 10000, (v / 100) % 100, v % 100, device);
    return s;
}

/* A non-blocking communicator of size ranks (this one: rank) from id into s->comm, settled within the
 * init timeout (what names it in the watchdog's message). Returns 0 or -1 with err. */
static int comm_init(nstate_t *s, int size, ncclUniqueId id, int rank, const char *what, rs_err_t *err) {
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    cfg.blocking = 0;
    ncclResult_t r = ncclCommInitRankConfig(&s->comm, size, id, rank, &cfg);
    if (r != ncclSuccess && r != ncclInProgress)
        return rs_errf(err, "nccl: %s:%d: ncclCommInitRankConfig: %s (%s)", __FILE__, __LINE__, ncclGetErrorString(r),
                       ncclGetLastError(NULL));
    return comm_settle(s, init_timeout_s(), what, err);
}

static void state_free(nstate_t *s) {
    if (!s) return;
    if (s->comm) { /* finalize while the watchdog still runs, so a hung peer cannot hang us */
        rs_err_t e;
        cudaSetDevice(s->ctx->device);
        ncclResult_t r = ncclCommFinalize(s->comm);
        if ((r == ncclSuccess || r == ncclInProgress) && comm_settle(s, 30.0, "communicator finalize", &e) == 0)
            ncclCommDestroy(s->comm);
        else if (s->comm)
            ncclCommAbort(s->comm);
        s->comm = NULL;
    }
    if (s->wd_running) {
        pthread_mutex_lock(&s->wd_mu);
        s->wd_stop = true;
        pthread_cond_broadcast(&s->wd_cv);
        pthread_mutex_unlock(&s->wd_mu);
        pthread_join(s->wd_thread, NULL);
    }
    if (s->stall_host) {
        *(volatile int *)s->stall_host = 1;
        cudaStreamSynchronize(s->ctx->comm); /* the stall kernel reads the flag until it sees it */
        cudaFreeHost(s->stall_host);
    }
    if (s->world && s->loop) rs_local_world_free(s->world); /* a loopback owns its world of one */
    if (s->ev_ready) cudaEventDestroy(s->ev_ready);
    if (s->ev_start) cudaEventDestroy(s->ev_start);
    if (s->ev_end) cudaEventDestroy(s->ev_end);
    if (s->own_host_state && s->host_ops) s->host_ops->destroy(s->host_state);
    pthread_mutex_destroy(&s->wd_mu);
    pthread_cond_destroy(&s->wd_cv);
    free(s);
}

#ifdef RINGSIM_HAVE_MPI
void *rs_nccl_transport_create(int *argc, char ***argv, int local_rank, rs_err_t *err) {
    void *mpi = rs_mpi_transport_create(argc, argv, RS_PROGRESS_NONE, err);
    if (!mpi) return NULL;
    const int64_t rank = rs_mpi_transport_ops.rank(mpi), size = rs_mpi_transport_ops.size(mpi);
    const int ngpu = rs_gpu_device_count();
    if (local_rank < 0 || local_rank >= ngpu) {
        rs_errf(err, "rank %lld: local rank %d but %d GPU(s) visible on this host (one GPU per process)", (long long)rank,
                local_rank, ngpu);
        rs_mpi_transport_ops.abort(mpi, RS_EXIT_FAIL);
        return NULL;
    }
    nstate_t *s = state_new(rank, size, local_rank, err);
    if (!s) {
        rs_mpi_transport_ops.abort(mpi, RS_EXIT_FAIL);
        return NULL;
    }
    s->host_ops = &rs_mpi_transport_ops, s->host_state = mpi, s->own_host_state = true;
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (rank == 0 && ncclGetUniqueId(&id) != ncclSuccess) {
        rs_errf(err, "nccl: rank 0: ncclGetUniqueId failed: %s", ncclGetLastError(NULL));
        rs_mpi_transport_ops.abort(mpi, RS_EXIT_FAIL);
        return NULL;
    }
    if (MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
        rs_errf(err, "mpi: MPI_Bcast of the ncclUniqueId failed");
        rs_mpi_transport_ops.abort(mpi, RS_EXIT_FAIL);
        return NULL;
    }
    if (comm_init(s, (int)size, id, (int)rank, "communicator creation (ncclCommInitRankConfig)", err) < 0) {
        fprintf(stderr, "ringsim exec: rank %lld: %s\n", (long long)rank, err->msg);
        rs_mpi_transport_ops.abort(mpi, RS_EXIT_FAIL);
        return NULL;
    }
    return s;
}
#endif

int rs_nccl_world_create(int64_t n_ranks, void **tss, rs_err_t *err) {
    const int ngpu = rs_gpu_device_count();
    if (ngpu == 0) return rs_errf(err, "--backend gpu: no GPU visible (cudaGetDeviceCount found none)");
    if (n_ranks < 1 || n_ranks > ngpu)
        return rs_errf(err, "--ranks %lld: one GPU per rank, and %d GPU(s) are visible (--launch threads)",
                       (long long)n_ranks, ngpu);
    rs_local_world_t *w = rs_local_world_create(n_ranks, err);
    if (!w) return -1;
    memset(tss, 0, sizeof(void *) * (size_t)n_ranks);
    for (int64_t r = 0; r < n_ranks; r++) {
        nstate_t *s = state_new(r, n_ranks, (int)r, err);
        if (!s) goto fail;
        s->host_ops = &rs_local_transport_ops, s->host_state = rs_local_world_rank(w, r);
        tss[r] = s;
    }
    ncclUniqueId id;
    if (ncclGetUniqueId(&id) != ncclSuccess) {
        rs_errf(err, "nccl: ncclGetUniqueId failed: %s", ncclGetLastError(NULL));
        goto fail;
    }
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    cfg.blocking = 0;
    ncclGroupStart();
    for (int64_t r = 0; r < n_ranks; r++) {
        nstate_t *s = tss[r];
        cudaSetDevice(s->ctx->device);
        ncclResult_t rr = ncclCommInitRankConfig(&s->comm, (int)n_ranks, id, (int)r, &cfg);
        if (rr != ncclSuccess && rr != ncclInProgress) {
            ncclGroupEnd();
            rs_errf(err, "nccl: %s:%d: ncclCommInitRankConfig rank %lld: %s (%s)", __FILE__, __LINE__, (long long)r,
                    ncclGetErrorString(rr), ncclGetLastError(NULL));
            goto fail;
        }
    }
    ncclResult_t ge = ncclGroupEnd();
    if (ge != ncclSuccess && ge != ncclInProgress) {
        rs_errf(err, "nccl: %s:%d: ncclGroupEnd (communicator creation): %s", __FILE__, __LINE__, ncclGetErrorString(ge));
        goto fail;
    }
    for (int64_t r = 0; r < n_ranks; r++)
        if (comm_settle(tss[r], init_timeout_s(), "communicator creation (ncclCommInitRankConfig)", err) < 0) goto fail;
    ((nstate_t *)tss[0])->world = w; /* freed by rs_nccl_world_free */
    return 0;
fail:
    for (int64_t r = 0; r < n_ranks; r++) {
        state_free(tss[r]);
        tss[r] = NULL;
    }
    rs_local_world_free(w);
    return -1;
}

void rs_nccl_world_free(void **tss, int64_t n_ranks) {
    if (!tss || n_ranks < 1 || !tss[0]) return;
    rs_local_world_t *w = ((nstate_t *)tss[0])->world;
    for (int64_t r = 0; r < n_ranks; r++) {
        state_free(tss[r]);
        tss[r] = NULL;
    }
    rs_local_world_free(w);
}

/* ---------------------------------------------------------------------------------------------------
 * Transport operations
 * ------------------------------------------------------------------------------------------------- */
static int64_t nt_rank(void *st) { return ((nstate_t *)st)->rank; }
static int64_t nt_size(void *st) { return ((nstate_t *)st)->size; }

/* Loopback by device copies: each receive is a cudaMemcpyAsync of the send with the same tag, on the
 * comm stream (the copy engines), between the events of the post. */
static int post_copies(nstate_t *s, int n, const rs_xfer_req_t *reqs, rs_err_t *err) {
    for (int i = 0; i < n; i++) {
        const rs_xfer_req_t *q = &reqs[i];
        if (q->dir != RS_XFER_RECV) continue;
        const rs_xfer_req_t *src = NULL;
        for (int j = 0; j < n && !src; j++)
            if (reqs[j].dir == RS_XFER_SEND && reqs[j].tag == q->tag) src = &reqs[j];
        if (!src || src->bytes != q->bytes)
            return rs_errf(err, "nccl loopback: receive %d (tag %d, %llu bytes) has no send of the same tag and size", i,
                           q->tag, (unsigned long long)q->bytes);
        RS_CUDA_TRY(err, cudaMemcpyAsync(q->buf, src->buf, (size_t)q->bytes, cudaMemcpyDeviceToDevice, s->ctx->comm));
    }
    s->post_count++;
    s->seq_at_post = s->ctx->step_seq;
    memcpy(s->reqs, reqs, sizeof *reqs * (size_t)n);
    s->n_posted = n;
    RS_CUDA_TRY(err, cudaEventRecord(s->ev_end, s->ctx->comm));
    return 0;
}

static int nt_post(void *st, int n, const rs_xfer_req_t *reqs, rs_err_t *err) {
    nstate_t *s = st;
    if (n < 1 || n > RS_XFER_MAX_REQS) return rs_errf(err, "nccl: post of %d transfers (1..%d)", n, RS_XFER_MAX_REQS);
    if (s->n_posted) return rs_errf(err, "nccl: post while the previous post is not waited for");
    if ((!s->comm && s->loop != RS_GPU_LOOP_COPY) || s->wd_fired)
        return rs_errf(err, "nccl: rank %lld: the communicator was aborted", (long long)s->rank);
    RS_CUDA_TRY(err, cudaSetDevice(s->ctx->device));
    /* sends start after everything the compute stream has queued (the dK,dV partial's grad_add) */
    RS_CUDA_TRY(err, cudaEventRecord(s->ev_ready, s->ctx->compute));
    RS_CUDA_TRY(err, cudaStreamWaitEvent(s->ctx->comm, s->ev_ready, 0));
    RS_CUDA_TRY(err, cudaEventRecord(s->ev_start, s->ctx->comm));
    if (s->stall_next) { /* test hook: the transfers queue behind a kernel that waits for the watchdog */
        s->stall_next = false;
        *(volatile int *)s->stall_host = 0;
        if (rs_gpu_stall(s->stall_dev, 120.0, s->ctx->comm, err) < 0) return -1; /* ends by itself at worst */
    }
    if (s->loop == RS_GPU_LOOP_COPY) return post_copies(s, n, reqs, err);
    pthread_mutex_lock(&s->wd_mu);
    ncclResult_t r = ncclGroupStart();
    for (int i = 0; i < n && (r == ncclSuccess || r == ncclInProgress); i++) {
        const rs_xfer_req_t *q = &reqs[i];
        if (q->peer < 0 || q->peer >= s->size || !q->buf || q->bytes == 0) {
            ncclGroupEnd();
            pthread_mutex_unlock(&s->wd_mu);
            return rs_errf(err, "nccl: transfer %d: peer %lld of %lld, %llu bytes", i, (long long)q->peer,
                           (long long)s->size, (unsigned long long)q->bytes);
        }
        const int peer = s->loop ? 0 : (int)q->peer; /* loopback: every transfer to itself */
        r = q->dir == RS_XFER_SEND ? ncclSend(q->buf, (size_t)q->bytes, ncclUint8, peer, s->comm, s->ctx->comm)
                                   : ncclRecv(q->buf, (size_t)q->bytes, ncclUint8, peer, s->comm, s->ctx->comm);
    }
    ncclResult_t ge = ncclGroupEnd();
    pthread_mutex_unlock(&s->wd_mu);
    if (r != ncclSuccess && r != ncclInProgress)
        return rs_errf(err, "nccl: %s:%d: ncclSend/ncclRecv: %s (%s)", __FILE__, __LINE__, ncclGetErrorString(r),
                       ncclGetLastError(s->comm));
    if (ge != ncclSuccess && ge != ncclInProgress)
        return rs_errf(err, "nccl: %s:%d: ncclGroupEnd: %s (%s)", __FILE__, __LINE__, ncclGetErrorString(ge),
                       ncclGetLastError(s->comm));
    s->post_count++;
    s->seq_at_post = s->ctx->step_seq;
    memcpy(s->reqs, reqs, sizeof *reqs * (size_t)n);
    s->n_posted = n;
    /* the group is enqueued once the communicator leaves ncclInProgress (non-blocking mode) */
    if (comm_settle(s, init_timeout_s(), "ncclGroupEnd of a step's send/recv", err) < 0) return -1;
    RS_CUDA_TRY(err, cudaEventRecord(s->ev_end, s->ctx->comm));
    return 0;
}

static int nt_wait(void *st, double timeout_s, rs_xfer_time_t *times, rs_err_t *err) {
    nstate_t *s = st;
    if (!s->n_posted) return rs_errf(err, "nccl: wait without a post");
    const rs_xfer_req_t *first_recv = NULL;
    for (int i = 0; i < s->n_posted; i++)
        if (s->reqs[i].dir == RS_XFER_RECV && !first_recv) first_recv = &s->reqs[i];
    /* The executor posts a step's transfers, then launches its compute, then waits: if a compute
     * step was launched since the post it is this step; otherwise (the backward tail) the next. */
    char what[160], where[64] = "";
    if (s->ctx->last_step >= 0)
        snprintf(where, sizeof where, " (%s step %lld)", rs_pass_name(s->ctx->last_pass),
                 (long long)(s->ctx->last_step + (s->ctx->step_seq == s->seq_at_post)));
    if (first_recv)
        snprintf(what, sizeof what, "receive from rank %lld%s", (long long)first_recv->peer, where);
    else
        snprintf(what, sizeof what, "send to rank %lld%s", (long long)s->reqs[0].peer, where);
    RS_CUDA_TRY(err, cudaSetDevice(s->ctx->device));
    wd_arm(s, timeout_s, what);
    for (;;) {
        cudaError_t q = cudaEventQuery(s->ev_end);
        if (q == cudaSuccess) break;
        if (q != cudaErrorNotReady) {
            wd_disarm(s);
            s->n_posted = 0;
            return rs_errf(err, "cuda: %s:%d: cudaEventQuery (end of the transfers): %s", __FILE__, __LINE__,
                           cudaGetErrorString(q));
        }
        pthread_mutex_lock(&s->wd_mu);
        bool fired = s->wd_fired;
        ncclResult_t as = ncclSuccess;
        if (!fired && s->comm) ncclCommGetAsyncError(s->comm, &as);
        pthread_mutex_unlock(&s->wd_mu);
        if (fired) {
            s->n_posted = 0;
            return rs_errc(err, RS_ERR_TIMEOUT, "timeout after %g s waiting for %s (NCCL communicator aborted by the watchdog)", timeout_s,
                           what);
        }
        if (as != ncclSuccess && as != ncclInProgress) {
            wd_disarm(s);
            s->n_posted = 0;
            return rs_errf(err, "nccl: %s failed: %s (%s)", what, ncclGetErrorString(as), ncclGetLastError(s->comm));
        }
        nap();
    }
    wd_disarm(s);
    double a = 0, b = 0;
    if (rs_gpu_ctx_event_time(s->ctx, s->ev_start, &a, err) < 0 || rs_gpu_ctx_event_time(s->ctx, s->ev_end, &b, err) < 0) {
        s->n_posted = 0;
        return -1;
    }
    for (int i = 0; i < s->n_posted; i++) times[i] = (rs_xfer_time_t){a, b}; /* one group: one interval */
    s->n_posted = 0;
    return 0;
}

static int nt_barrier(void *st, double timeout_s, rs_err_t *err) {
    nstate_t *s = st;
    return s->host_ops->barrier(s->host_state, timeout_s, err);
}

static int nt_gather(void *st, const void *host_buf, size_t bytes, void *root_buf, double timeout_s, rs_err_t *err) {
    nstate_t *s = st;
    return s->host_ops->gather(s->host_state, host_buf, bytes, root_buf, timeout_s, err);
}

static void nt_abort(void *st, int exit_code) {
    nstate_t *s = st;
    pthread_mutex_lock(&s->wd_mu);
    if (s->comm && !s->wd_fired) {
        ncclCommAbort(s->comm);
        s->comm = NULL;
        s->wd_fired = true;
    }
    pthread_mutex_unlock(&s->wd_mu);
    s->host_ops->abort(s->host_state, exit_code);
}

static const char *nt_describe(void *st) { return ((nstate_t *)st)->desc; }

static void nt_destroy(void *st) { state_free(st); }

static bool nt_loopback(void *st) { return ((nstate_t *)st)->loop != 0; }

static int nt_inject_stall(void *st, rs_err_t *err) {
    nstate_t *s = st;
    if (!s->stall_host) {
        RS_CUDA_TRY(err, cudaSetDevice(s->ctx->device));
        RS_CUDA_TRY(err, cudaHostAlloc((void **)&s->stall_host, sizeof(int), cudaHostAllocMapped));
        *(volatile int *)s->stall_host = 0;
        RS_CUDA_TRY(err, cudaHostGetDevicePointer((void **)&s->stall_dev, s->stall_host, 0));
    }
    s->stall_next = true;
    return 0;
}

static int nt_bcast(void *st, void *host_buf, size_t bytes, double timeout_s, rs_err_t *err) {
    nstate_t *s = st;
    if (!s->host_ops->bcast) return rs_errf(err, "nccl: the %s host transport has no bcast", s->host_ops->name);
    return s->host_ops->bcast(s->host_state, host_buf, bytes, timeout_s, err);
}

const rs_transport_ops_t rs_nccl_transport_ops = {
    .name = "nccl",
    .rank = nt_rank,
    .size = nt_size,
    .post = nt_post,
    .progress = NULL, /* the device moves the data */
    .wait = nt_wait,
    .barrier = nt_barrier,
    .gather = nt_gather,
    .bcast = nt_bcast,
    .abort = nt_abort,
    .describe = nt_describe,
    .destroy = nt_destroy,
    .loopback = nt_loopback,
    .inject_stall = nt_inject_stall,
};

/* ---------------------------------------------------------------------------------------------------
 * Loopback: one rank of an N-rank ring alone on one GPU
 * ------------------------------------------------------------------------------------------------- */
static const char *const loop_names[] = {"nccl", "copy"}; /* RS_GPU_LOOP_NCCL, RS_GPU_LOOP_COPY */

const char *rs_gpu_loop_name(rs_gpu_loop_t how) { return loop_names[how == RS_GPU_LOOP_COPY]; }

int rs_gpu_loop_parse(const char *text, rs_gpu_loop_t *out) {
    const int i = rs_enum_parse(loop_names, 2, text);
    if (i >= 0) *out = (rs_gpu_loop_t)(RS_GPU_LOOP_NCCL + i);
    return i < 0 ? -1 : 0;
}

void *rs_nccl_loopback_create(int64_t rank, int64_t n_ranks, int device, rs_gpu_loop_t how, rs_err_t *err) {
    if (n_ranks < 1 || rank < 0 || rank >= n_ranks || (how != RS_GPU_LOOP_NCCL && how != RS_GPU_LOOP_COPY))
        return rs_errf(err, "gpu loopback: rank %lld of N = %lld", (long long)rank, (long long)n_ranks), NULL;
    const int ngpu = rs_gpu_device_count();
    if (device < 0 || device >= ngpu)
        return rs_errf(err, "gpu loopback: device %d but %d GPU(s) visible", device, ngpu), NULL;
    rs_local_world_t *w = rs_local_world_create(1, err);
    if (!w) return NULL;
    nstate_t *s = state_new(rank, n_ranks, device, err);
    if (!s) {
        rs_local_world_free(w);
        return NULL;
    }
    s->loop = how;
    s->world = w;
    s->host_ops = &rs_local_transport_ops, s->host_state = rs_local_world_rank(w, 0);
    if (how == RS_GPU_LOOP_COPY) {
        snprintf(s->desc, sizeof s->desc, "loopback copy: cudaMemcpyAsync device to device on a comm stream (GPU %d), "
                 "rank %lld of %lld alone", device, (long long)rank, (long long)n_ranks);
        return s;
    }
    int v = 0;
    ncclGetVersion(&v);
    snprintf(s->desc, sizeof s->desc, "loopback nccl %d.%d.%d: ncclSend/Recv to itself on a comm stream (GPU %d), "
             "rank %lld of %lld alone, watchdog", v / 10000, (v / 100) % 100, v % 100, device, (long long)rank,
             (long long)n_ranks);
    ncclUniqueId id;
    if (ncclGetUniqueId(&id) != ncclSuccess) {
        rs_errf(err, "nccl: ncclGetUniqueId failed: %s", ncclGetLastError(NULL));
        state_free(s);
        return NULL;
    }
    if (comm_init(s, 1, id, 0, "communicator creation (ncclCommInitRankConfig, loopback)", err) < 0) {
        state_free(s);
        return NULL;
    }
    return s;
}
