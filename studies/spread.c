/* spread.c - a study's items over a launcher's processes (spread.h). */
#include "spread.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_launch.h"
#include "meter.h"
#include "registry.h"
#if defined(RINGSIM_HAVE_EXEC) && defined(RINGSIM_HAVE_MPI)
/* the cpu backend's executor (registry.h) carries the MPI transport the ranks talk over; its members
 * (mpi_create, mpi_ops) are the executor's API, exec/exec_backend.h */
#include "exec_backend.h"
#define RS_SPREAD_MPI 1
#endif

/* The MPI library has the last word (a singleton MPI job runs alone). */
int rs_spread_ranks(void) {
    const int n = rs_exec_env_size();
    return n > 1 ? n : 1;
}

int rs_spread_test_failure(size_t i, rs_err_t *err) {
    const char *fail = getenv("RINGSIM_SWEEP_FAIL_POINT");
    if (fail && *fail && strtoull(fail, NULL, 10) == i) return rs_errc(err, RS_ERR_RUNTIME, "failed on purpose (RINGSIM_SWEEP_FAIL_POINT)");
    return 0;
}

void rs_spread_name_failure(char *out, size_t len, const char *noun, int rank, int ranks, size_t n, const char *msg) {
    snprintf(out + strlen(out), len - strlen(out), "%srank %d (%s", out[0] ? "; " : "", rank, noun);
    for (size_t i = (size_t)rank; i < n; i += (size_t)ranks) snprintf(out + strlen(out), len - strlen(out), " %zu", i);
    snprintf(out + strlen(out), len - strlen(out), "): %s", msg);
}

#ifdef RS_SPREAD_MPI
/* What a rank tells rank 0 before its items. */
typedef struct {
    int32_t failed;      /* 1: an item failed (msg, code say how); the rank ran none after it */
    int32_t code;        /* rs_errc_t */
    char msg[512];
} rank_status_t;

/* Run this rank's items (i = rank, rank + size, ...) into its slots of buf (status, then the items
 * in that order), with a meter on rank 0. */
static void run_share(const rs_spread_t *sp, int rank, int size, char *buf) {
    rank_status_t *st = (rank_status_t *)(void *)buf;
    char *slot = buf + sizeof *st;
    char *items = sp->items;
    const size_t mine = sp->n > (size_t)rank ? (sp->n - (size_t)rank + (size_t)size - 1) / (size_t)size : 0;
    const bool bar = rank == 0 && sp->progress && mine > 0;
    rs_meter_t meter;
    if (bar) rs_meter_start(&meter, sp->meter, (double)mine, sp->noun);
    for (size_t j = 0; j < mine; j++) {
        const size_t i = (size_t)rank + j * (size_t)size;
        rs_err_t e = {0};
        if (sp->run(sp->ctx, i, items + i * sp->item_bytes, &e) != 0) {
            st->failed = 1, st->code = (int32_t)e.code;
            snprintf(st->msg, sizeof st->msg, "%.511s", e.msg);
            break;
        }
        memcpy(slot + j * sp->item_bytes, items + i * sp->item_bytes, sp->item_bytes);
        if (bar) rs_meter_update(&meter, (double)(j + 1), NULL);
    }
    if (bar) rs_meter_end(&meter);
}

/* Rank 0: the gathered items in item order. Returns 0, or -1 with err naming every rank that failed
 * (the first one's kind). */
static int collect(const rs_spread_t *sp, int size, const char *all, size_t bytes, rs_err_t *err) {
    const size_t per = (bytes - sizeof(rank_status_t)) / sp->item_bytes;
    char *items = sp->items;
    err->msg[0] = 0;
    bool failed = false;
    for (int r = 0; r < size; r++) {
        const rank_status_t *st = (const rank_status_t *)(const void *)(all + (size_t)r * bytes);
        const char *slot = all + (size_t)r * bytes + sizeof *st;
        for (size_t j = 0; j < per && (size_t)r + j * (size_t)size < sp->n; j++)
            memcpy(items + ((size_t)r + j * (size_t)size) * sp->item_bytes, slot + j * sp->item_bytes, sp->item_bytes);
        if (!st->failed) continue;
        if (!failed) err->code = (rs_errc_t)st->code;
        failed = true;
        rs_spread_name_failure(err->msg, sizeof err->msg, sp->noun, r, size, sp->n, st->msg);
    }
    return failed ? -1 : 0;
}

int rs_spread_run(const rs_spread_t *sp, bool *worker, rs_err_t *err) {
    *worker = false;
    const rs_exec_backend_t *be = rs_backend_find("cpu")->exec; /* its MPI transport */
    void *ts = be->mpi_create(NULL, NULL, RS_PROGRESS_NONE, 0, err);
    if (!ts) return rs_err_mark(err, RS_ERR_RUNTIME);
    const int rank = (int)be->mpi_ops->rank(ts), size = (int)be->mpi_ops->size(ts);
    const size_t per = (sp->n + (size_t)size - 1) / (size_t)size;
    const size_t bytes = sizeof(rank_status_t) + per * sp->item_bytes;
    char *buf = calloc(1, bytes), *all = rank == 0 ? calloc((size_t)size, bytes) : NULL;
    int rc = -1;
    if (!buf || (rank == 0 && !all)) {
        rs_errc(err, RS_ERR_RUNTIME, "rank %d: out of memory for the %s' results", rank, sp->noun);
        be->mpi_ops->abort(ts, RS_EXIT_FAIL);
    } else {
        run_share(sp, rank, size, buf);
        if (be->mpi_ops->gather(ts, buf, bytes, all, 0, err) != 0) be->mpi_ops->abort(ts, RS_EXIT_FAIL);
        *worker = rank != 0;
        rc = rank != 0 ? 0 : collect(sp, size, all, bytes, err);
    }
    free(buf), free(all);
    be->mpi_ops->destroy(ts);
    return rc;
}
#else
int rs_spread_run(const rs_spread_t *sp, bool *worker, rs_err_t *err) {
    (void)sp;
    *worker = false;
    return rs_errc(err, RS_ERR_BAD_INPUT, "started by a launcher (%d processes) but this build has no MPI: run it as one process",
                   rs_spread_ranks());
}
#endif
