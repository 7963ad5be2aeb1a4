/* mpi_transport.c - the "mpi" transport: MPI_Isend / MPI_Irecv on MPI_COMM_WORLD (see exec.h).
 *
 * Progress modes (a fact of Open MPI's shared-memory transport: data moves only inside MPI calls):
 *  - none:   nothing between post and wait; a transfer posted at step start moves when the rank
 *            waits after its compute (the model's eta = 0);
 *  - poll:   the compute backend calls progress() between tiles (MPI_Testsome), so data moves
 *            in the gaps of the computation;
 *  - thread: a progress thread calls MPI_Testsome every poll interval while transfers are in
 *            flight (MPI_THREAD_MULTIPLE; every MPI call is also serialised by one mutex, so the
 *            library's thread level only needs to be SERIALIZED).
 * Completion times are recorded by whoever observes the completion (thread or caller). Waits,
 * barriers and gathers give up after the timeout and name the peer.
 */
#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "exec.h"
#include "exec_launch.h"

#define MPICHECK(call, err)                                                                         \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            char s_[MPI_MAX_ERROR_STRING];                                                         \
            int n_ = 0;                                                                            \
            MPI_Error_string(rc_, s_, &n_);                                                        \
            return rs_errf(err, "mpi: %s:%d: %s: %s", __FILE__, __LINE__, #call, s_);              \
        }                                                                                          \
    } while (0)

/* vader BTL flags asked for (no "put": receivers pull their incoming blocks) */
#define RS_MPI_VADER_FLAGS "send,get,inplace,atomics,fetching-atomics"

typedef struct {
    int rank, size;                  /* in MPI_COMM_WORLD */
    rs_progress_t mode;              /* none | poll | thread */
    double poll_s;                   /* progress thread interval */
    pthread_mutex_t mu;              /* serialises MPI calls and guards the fields below */
    pthread_cond_t cv;               /* posted work / completions */
    int n;                           /* requests of the current post */
    int n_done;                      /* completed so far */
    MPI_Request req[RS_XFER_MAX_REQS];
    rs_xfer_req_t xr[RS_XFER_MAX_REQS];
    rs_xfer_time_t times[RS_XFER_MAX_REQS];
    bool stop;                       /* progress thread: exit */
    bool has_thread;                 /* progress thread running */
    pthread_t thread;                /* the progress thread */
    char desc[512];                  /* describe() */
} mpi_state_t;

/* Test the outstanding requests; record completion times. Called with mu held. A Testsome that
 * finds nothing complete progresses the library and returns without looking again (Open MPI), so a
 * transfer its progress completed would be seen only at the next poll, up to a column chunk of the
 * kernel later: a second Testsome right after sees it now. */
static void test_some(mpi_state_t *m) {
    if (m->n_done >= m->n) return;
    int idx[RS_XFER_MAX_REQS], outc = 0;
    if (MPI_Testsome(m->n, m->req, &outc, idx, MPI_STATUSES_IGNORE) != MPI_SUCCESS || outc == MPI_UNDEFINED) return;
    if (outc == 0 && (MPI_Testsome(m->n, m->req, &outc, idx, MPI_STATUSES_IGNORE) != MPI_SUCCESS || outc == MPI_UNDEFINED))
        return;
    if (outc > 0) {
        double now = rs_now_s();
        for (int i = 0; i < outc; i++) m->times[idx[i]].done_s = now;
        m->n_done += outc;
        pthread_cond_broadcast(&m->cv);
    }
}

/* The progress thread: while transfers are in flight, MPI_Testsome every interval; the interval
 * starts at poll_s and doubles (up to 32x) while nothing completes, so a long compute is not
 * interrupted every few microseconds; it drops back after a completion or a new post. */
static void *progress_main(void *arg) {
    mpi_state_t *m = arg;
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* sleep for the interval asked, not +50 us */
    double interval = m->poll_s;
    pthread_mutex_lock(&m->mu);
    while (!m->stop) {
        if (m->n_done >= m->n) {
            pthread_cond_wait(&m->cv, &m->mu);
            interval = m->poll_s;
            continue;
        }
        int before = m->n_done;
        test_some(m);
        interval = m->n_done > before ? m->poll_s : fmin(interval * 2, 32 * m->poll_s);
        pthread_mutex_unlock(&m->mu);
        struct timespec ts = {0, (long)(interval * 1e9)};
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&m->mu);
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

void *rs_mpi_transport_create(int *argc, char ***argv, rs_progress_t progress, rs_err_t *err) {
    int inited = 0, provided = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        /* Open MPI's shared-memory BTL (vader, 4.x) moves a large message with one CMA copy, a GET by
         * the receiver or a PUT by the sender depending on which side posted first, so the copy's CPU
         * time lands on a random rank of each pair. Without PUT every rank copies its own incoming
         * block: the same cost on every rank, which is the model's host cost per received transfer
         * (docs/exec.md section 3). A value set by the user is kept. */
        setenv("OMPI_MCA_btl_vader_flags", RS_MPI_VADER_FLAGS, 0);
        rs_exec_mpi_prepare(); /* a plain mpirun job's shared memory in its session directory */
        int want = progress == RS_PROGRESS_THREAD ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;
        if (MPI_Init_thread(argc, argv, want, &provided) != MPI_SUCCESS) {
            rs_errf(err, "mpi: MPI_Init_thread failed");
            return NULL;
        }
    } else {
        MPI_Query_thread(&provided);
    }
    if (progress == RS_PROGRESS_THREAD && provided < MPI_THREAD_SERIALIZED) {
        rs_errf(err, "mpi: --progress thread needs MPI_THREAD_SERIALIZED or better (library gives %d)", provided);
        return NULL;
    }
    mpi_state_t *m = calloc(1, sizeof *m);
    if (!m) {
        rs_errf(err, "mpi: out of memory");
        return NULL;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    m->mode = progress;
    const char *ps = getenv("RINGSIM_PROGRESS_US");
    m->poll_s = (ps ? atof(ps) : 20.0) * 1e-6;
    if (!(m->poll_s > 0)) m->poll_s = 20e-6;
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    lib[0] = 0;
    int len = 0, ver = 0, sub = 0;
    MPI_Get_library_version(lib, &len);
    MPI_Get_version(&ver, &sub);
    char *nl = strpbrk(lib, ",\n");
    if (nl) *nl = 0;
    if (progress == RS_PROGRESS_THREAD)
        snprintf(m->desc, sizeof m->desc, "mpi: %.200s (MPI %d.%d), progress thread every %.0f us", lib, ver, sub, m->poll_s * 1e6);
    else
        snprintf(m->desc, sizeof m->desc, "mpi: %.200s (MPI %d.%d), progress %s", lib, ver, sub, rs_progress_name(progress));
    const char *vf = getenv("OMPI_MCA_btl_vader_flags");
    if (vf) {
        size_t dl = strlen(m->desc);
        snprintf(m->desc + dl, sizeof m->desc - dl, ", btl_vader_flags %.80s", vf);
    }
    if (progress == RS_PROGRESS_THREAD) {
        if (pthread_create(&m->thread, NULL, progress_main, m) != 0) {
            rs_errf(err, "mpi: could not start the progress thread");
            free(m);
            return NULL;
        }
        m->has_thread = true;
    }
    return m;
}

static int64_t mt_rank(void *st) { return ((mpi_state_t *)st)->rank; }
static int64_t mt_size(void *st) { return ((mpi_state_t *)st)->size; }

static int mt_post_locked(mpi_state_t *m, int n, const rs_xfer_req_t *reqs, rs_err_t *err) {
    if (n > RS_XFER_MAX_REQS) return rs_errf(err, "mpi: %d transfers in one post (max %d)", n, RS_XFER_MAX_REQS);
    for (int i = 0; i < n; i++)
        if (reqs[i].bytes > (uint64_t)INT32_MAX)
            return rs_errf(err, "mpi: message of %llu bytes exceeds the MPI count limit 2^31-1",
                           (unsigned long long)reqs[i].bytes);
    double now = rs_now_s();
    /* receives first, so a matching send finds its receive posted */
    int order[RS_XFER_MAX_REQS], k = 0;
    for (int i = 0; i < n; i++)
        if (reqs[i].dir == RS_XFER_RECV) order[k++] = i;
    for (int i = 0; i < n; i++)
        if (reqs[i].dir == RS_XFER_SEND) order[k++] = i;
    for (int j = 0; j < n; j++) {
        int i = order[j];
        m->xr[i] = reqs[i];
        m->times[i] = (rs_xfer_time_t){now, 0};
        if (reqs[i].dir == RS_XFER_RECV)
            MPICHECK(MPI_Irecv(reqs[i].buf, (int)reqs[i].bytes, MPI_BYTE, (int)reqs[i].peer, reqs[i].tag, MPI_COMM_WORLD, &m->req[i]), err);
        else
            MPICHECK(MPI_Isend(reqs[i].buf, (int)reqs[i].bytes, MPI_BYTE, (int)reqs[i].peer, reqs[i].tag, MPI_COMM_WORLD, &m->req[i]), err);
    }
    m->n = n, m->n_done = 0;
    return 0;
}

static int mt_post(void *st, int n, const rs_xfer_req_t *reqs, rs_err_t *err) {
    mpi_state_t *m = st;
    pthread_mutex_lock(&m->mu);
    int rc = mt_post_locked(m, n, reqs, err);
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    return rc;
}

static void mt_progress(void *st) {
    mpi_state_t *m = st;
    if (m->mode != RS_PROGRESS_POLL) return;
    pthread_mutex_lock(&m->mu);
    test_some(m);
    pthread_mutex_unlock(&m->mu);
}

static int mt_wait(void *st, double timeout_s, rs_xfer_time_t *times, rs_err_t *err) {
    mpi_state_t *m = st;
    const double t_end = rs_now_s() + (timeout_s > 0 ? timeout_s : 1e12);
    int rc = 0;
    pthread_mutex_lock(&m->mu);
    /* the caller has nothing else to do: it polls itself (also with a progress thread, so no
     * condition-variable wake-up sits between a completion and the next step) */
    while (m->n_done < m->n) {
        test_some(m);
        if (m->n_done < m->n) {
            pthread_mutex_unlock(&m->mu);
            sched_yield();
            pthread_mutex_lock(&m->mu);
        }
        if (m->n_done < m->n && rs_now_s() > t_end) {
            int pending = 0;
            for (int i = 0; i < m->n; i++)
                if (m->req[i] != MPI_REQUEST_NULL) { pending = i; break; }
            rc = rs_errc(err, RS_ERR_TIMEOUT, "timeout after %g s waiting for %s rank %lld", timeout_s,
                         m->xr[pending].dir == RS_XFER_SEND ? "send to" : "receive from", (long long)m->xr[pending].peer);
            break;
        }
    }
    if (rc == 0) {
        if (times) memcpy(times, m->times, sizeof(rs_xfer_time_t) * (size_t)m->n);
        m->n = m->n_done = 0;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

/* Complete a nonblocking collective with a deadline. */
static int finish(mpi_state_t *m, MPI_Request *r, double timeout_s, const char *what, rs_err_t *err) {
    const double t_end = rs_now_s() + (timeout_s > 0 ? timeout_s : 1e12);
    for (;;) {
        int flag = 0;
        pthread_mutex_lock(&m->mu);
        int rc = MPI_Test(r, &flag, MPI_STATUS_IGNORE);
        pthread_mutex_unlock(&m->mu);
        if (rc != MPI_SUCCESS) return rs_errf(err, "mpi: %s failed", what);
        if (flag) return 0;
        if (rs_now_s() > t_end) return rs_errc(err, RS_ERR_TIMEOUT, "timeout after %g s in %s (a rank stopped answering)", timeout_s, what);
        sched_yield();
    }
}

static int mt_barrier(void *st, double timeout_s, rs_err_t *err) {
    mpi_state_t *m = st;
    MPI_Request r;
    pthread_mutex_lock(&m->mu);
    int rc = MPI_Ibarrier(MPI_COMM_WORLD, &r);
    pthread_mutex_unlock(&m->mu);
    if (rc != MPI_SUCCESS) return rs_errf(err, "mpi: MPI_Ibarrier failed");
    return finish(m, &r, timeout_s, "a barrier", err);
}

static int mt_gather(void *st, const void *host_buf, size_t bytes, void *root_buf, double timeout_s, rs_err_t *err) {
    mpi_state_t *m = st;
    if (bytes > (size_t)INT32_MAX) return rs_errf(err, "mpi: gather of %zu bytes per rank exceeds 2^31-1", bytes);
    MPI_Request r;
    pthread_mutex_lock(&m->mu);
    int rc = MPI_Igather(host_buf, (int)bytes, MPI_BYTE, root_buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &r);
    pthread_mutex_unlock(&m->mu);
    if (rc != MPI_SUCCESS) return rs_errf(err, "mpi: MPI_Igather failed");
    return finish(m, &r, timeout_s, "gathering results on rank 0", err);
}

static int mt_bcast(void *st, void *host_buf, size_t bytes, double timeout_s, rs_err_t *err) {
    mpi_state_t *m = st;
    if (bytes > (size_t)INT32_MAX) return rs_errf(err, "mpi: broadcast of %zu bytes exceeds 2^31-1", bytes);
    MPI_Request r;
    pthread_mutex_lock(&m->mu);
    int rc = MPI_Ibcast(host_buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &r);
    pthread_mutex_unlock(&m->mu);
    if (rc != MPI_SUCCESS) return rs_errf(err, "mpi: MPI_Ibcast failed");
    return finish(m, &r, timeout_s, "a broadcast from rank 0", err);
}

static void mt_abort(void *st, int exit_code) {
    (void)st;
    MPI_Abort(MPI_COMM_WORLD, exit_code);
}

static const char *mt_describe(void *st) { return ((mpi_state_t *)st)->desc; }

static void stop_progress_thread(mpi_state_t *m) {
    pthread_mutex_lock(&m->mu);
    m->stop = true;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    pthread_join(m->thread, NULL);
}

static void mt_destroy(void *st) {
    mpi_state_t *m = st;
    if (!m) return;
    if (m->has_thread) stop_progress_thread(m);
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->cv);
    free(m);
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Finalize();
}

const rs_transport_ops_t rs_mpi_transport_ops = {
    .name = "mpi", .rank = mt_rank, .size = mt_size, .post = mt_post, .progress = mt_progress, .wait = mt_wait,
    .barrier = mt_barrier, .gather = mt_gather, .bcast = mt_bcast, .abort = mt_abort, .describe = mt_describe,
    .destroy = mt_destroy,
};
