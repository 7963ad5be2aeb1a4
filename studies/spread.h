/* spread.h - a study's items (the points of a sweep, the jobs of a sweep of fabric knobs) divided
 * over the processes of a launcher (mpirun, srun): item i runs on rank i mod P, rank 0 gathers every
 * item in item order (the caller then writes its one output as one process would), and a failure is
 * named by its rank and that rank's items: "rank 2 (points 2 5 8 11): point 5: ...".
 * The items travel as plain bytes: a type with no pointers (or only pointers into what every rank
 * set up the same way). The transport is the CPU executor's MPI (exec/exec_backend.h); a build
 * without it refuses to run under a launcher. */
#ifndef RS_SPREAD_H
#define RS_SPREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* Processes the launcher started, from its environment (1 when none). */
int rs_spread_ranks(void);

typedef struct {
    const char *noun;           /* the items in messages, plural: "points", "job points" */
    const char *meter;          /* the progress meter's label ("sweep"): "sweep (rank 0's share)" */
    size_t n;                   /* items */
    size_t item_bytes;          /* one item's size */
    void *items;                /* n items; run(i) fills item i; on rank 0 afterwards: all of them */
    /* Run item i into item (= items[i]). Returns 0, or -1 with err: its message names the item
     * ("point 5: ...") and its code is the failure's kind. */
    int (*run)(const void *ctx, size_t i, void *item, rs_err_t *err);
    const void *ctx;
    bool progress;              /* a meter of rank 0's share, on a terminal */
} rs_spread_t;

/* Run sp's items over the launcher's rs_spread_ranks() processes (collective: every rank calls it).
 * A rank stops at its first failing item. Returns 0 with *worker false on rank 0 (every item in
 * sp->items) and true on the other ranks (their items went to rank 0), or -1 with err: on rank 0
 * every rank that failed, its items and its failure ("rank 2 (points 2 5 8): point 5: ...; rank 3
 * (...): ..."), the kind of the first; the transport (runtime); a build without MPI (bad input:
 * "started by a launcher (4 processes) but this build has no MPI: run it as one process"). */
int rs_spread_run(const rs_spread_t *sp, bool *worker, rs_err_t *err);

/* The studies' test hook: RINGSIM_SWEEP_FAIL_POINT=i makes item i fail as a runtime error would.
 * Returns -1 with err ("failed on purpose (RINGSIM_SWEEP_FAIL_POINT)") for that item, else 0. */
int rs_spread_test_failure(size_t i, rs_err_t *err);

/* The failure message of rank `rank` of `ranks` over n items (testable without a launcher): "rank 2
 * (points 2 5 8): MSG" appended to out (len bytes; "; " before it when out is not empty). Can't
 * fail (truncates). */
void rs_spread_name_failure(char *out, size_t len, const char *noun, int rank, int ranks, size_t n, const char *msg);

#endif /* RS_SPREAD_H */
