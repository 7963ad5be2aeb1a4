/* exec_threads.c - all N ranks of a run in one process, one thread per rank (rs_exec_run_threads,
 * exec.h): the local transport's world (or the caller's states), the threads, and the one error that
 * tells what went wrong first. */
#include <pthread.h>
#include <stdlib.h>

#include "exec.h"

/* One rank's thread: its run's inputs and what it returned. */
typedef struct {
    const rs_schedule_t *s;          /* the schedule (shared, read-only) */
    rs_exec_backends_t on;           /* this rank's backends (local rank = rank: one host) */
    const rs_exec_opts_t *o;         /* options (shared) */
    rs_trace_t *trace;               /* rank 0 only */
    rs_exec_result_t res;            /* this rank's result */
    rs_err_t err;                    /* this rank's error */
    int rc;                          /* rs_exec_run's return */
    double t_fail_s;                 /* when it failed (to report the first failure) */
} thread_arg_t;

static void *thread_main(void *arg) {
    thread_arg_t *a = arg;
    a->rc = rs_exec_run(a->s, &a->on, a->o, a->trace, &a->res, &a->err);
    if (a->rc < 0) {
        a->t_fail_s = rs_now_s();
        /* a timeout does not stop the others: each waiting rank times out by itself and says what
         * it waited for, and the report picks the earliest step; other errors stop everyone */
        if (!a->res.faulted && a->err.code != RS_ERR_TIMEOUT) a->on.tops->abort(a->on.ts, RS_EXIT_FAIL);
    }
    return NULL;
}

/* The failure to report of the n threads (-1: none failed): real errors before fault-injected stops
 * and "aborted by another rank"; then the earliest step (a timeout at a later step is a rank blocked
 * behind the one that stopped); then the earliest in time. */
static int64_t first_failure(const thread_arg_t *args, int64_t n) {
    int64_t best = -1;
    for (int64_t r = 0; r < n; r++) {
        if (args[r].rc == 0) continue;
        bool weak = args[r].res.faulted || args[r].err.code == RS_ERR_ABORTED;
        if (best < 0) { best = r; continue; }
        bool best_weak = args[best].res.faulted || args[best].err.code == RS_ERR_ABORTED;
        uint64_t sr = (uint64_t)args[r].res.fail_step, sb = (uint64_t)args[best].res.fail_step; /* -1 last */
        if (best_weak != weak) { if (!weak) best = r; continue; }
        if (sr != sb) { if (sr < sb) best = r; continue; }
        if (args[r].t_fail_s < args[best].t_fail_s) best = r;
    }
    return best;
}

int rs_exec_run_threads(const rs_schedule_t *s, const rs_exec_threads_t *w_in, const rs_exec_opts_t *opts, rs_trace_t *trace,
                        rs_exec_result_t *res, rs_err_t *err) {
    const int64_t n = rs_schedule_problem(s)->n_ranks;
    const rs_transport_ops_t *tops = w_in->tops;
    rs_local_world_t *w = NULL;
    if (!tops) {
        if (!(w = rs_local_world_create(n, err))) return -1;
        tops = &rs_local_transport_ops;
    }
    thread_arg_t *args = calloc((size_t)n, sizeof *args);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    if (!args || !th) {
        free(args), free(th), rs_local_world_free(w);
        return rs_errf(err, "out of memory for %lld threads", (long long)n);
    }
    int64_t started = 0;
    for (int64_t r = 0; r < n; r++) {
        args[r] = (thread_arg_t){.s = s, .on = {w_in->cops, tops, w ? rs_local_world_rank(w, r) : w_in->tstates[r], (int)r},
                                 .o = opts, .trace = r == 0 ? trace : NULL};
        if (pthread_create(&th[r], NULL, thread_main, &args[r]) != 0) break;
        started++;
    }
    int rc = 0;
    if (started < n) {
        tops->abort(args[0].on.ts, RS_EXIT_FAIL);
        rc = rs_errf(err, "could not start thread %lld of %lld", (long long)started, (long long)n);
    }
    for (int64_t r = 0; r < started; r++) pthread_join(th[r], NULL);
    if (rc == 0) {
        const int64_t best = first_failure(args, n);
        if (best >= 0) rc = rs_errc(err, args[best].err.code, "%s", args[best].err.msg);
        else if (!args[0].res.check_ok) rc = 0;
    }
    *res = args[0].res;
    if (rc == 0 && !res->check_ok) rs_errc(err, args[0].err.code, "%s", args[0].err.msg);
    free(args), free(th);
    rs_local_world_free(w);
    return rc;
}
