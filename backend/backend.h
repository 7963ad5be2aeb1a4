/* backend.h - one interface for every way of running a schedule (nccl-tests style: a table of
 * function pointers the caller never looks behind).
 *
 *   name     what runs                                           where it is defined
 *   "model"  the critical-path walk (model/4-cost)               backend/walk_backend.c
 *   "sim"    SimGrid, in a forked child (sim/)                   sim/sim_backend.c   (RINGSIM_HAVE_SIM)
 *   "cpu"    the executor: OpenBLAS + MPI or threads (exec/)     exec/exec_backend.c (RINGSIM_HAVE_EXEC)
 *   "gpu"    the executor: CUDA + NCCL (exec/gpu/)               exec/gpu/gpu_backend.c (RINGSIM_HAVE_GPU)
 *
 * can_run is THE rule for which backend runs which problem on which machine: callers ask it and
 * report its reason instead of deciding themselves. run() runs one schedule and appends its events
 * and header keys to a trace (docs/traces.md); how it runs (a function, a forked child, a
 * subprocess) stays inside the backend. The executors also expose the SPMD side that calibration
 * and validation run on (exec->..., exec/exec_backend.h).
 *
 * Adding a backend: implement rs_backend_ops_t in a new file of its folder, add it to the table in
 * studies/registry.c (under its RINGSIM_HAVE_* guard) - nothing else changes
 * (docs/architecture.md).
 */
#ifndef RS_BACKEND_H
#define RS_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "machine.h"
#include "cost.h"
#include "schedule.h"
#include "trace.h"
#include "util.h"

/* How to run (each backend reads what concerns it and ignores the rest). */
typedef struct {
    double *rank_busy_s;     /* model: NULL, or N doubles receiving each rank's summed compute time */
    const char *exec_bin;    /* executors: the ringsim binary run as `ringsim exec` (NULL: this one) */
    const char *exec_launch; /* executors: how that subprocess starts its ranks, "mpirun" (NULL) or "threads" */
    double timeout_s;        /* executors: the subprocess's watchdog, seconds (<= 0: none) */
} rs_backend_opts_t;

/* What a run found: the walk's figures (rs_walk_t, model/4-cost/cost.h), wall_s what it cost. */
typedef rs_walk_t rs_run_summary_t;

struct rs_exec_backend; /* exec/exec_backend.h */

typedef struct rs_backend_ops {
    const char *name;         /* "model", "sim", "cpu", "gpu" */
    const char *source;       /* the trace's source: "model", "sim", "exec-cpu", "exec-gpu" */
    /* Can this backend run problem p (validated) on machine m (validated)? 0, or -1 with why: one
     * line saying what it cannot do, e.g. "the cpu executor computes in fp32 (problem: 2-byte
     * activations)". Can't fail otherwise. */
    int (*can_run)(const rs_problem_t *p, const rs_machine_t *m, rs_err_t *why);
    /* Run the schedule's pass on the machine (the executors measure it on this host; m only names
     * it). Events and header keys go to trace when non-NULL (unsorted: rs_trace_sort before use).
     * Returns 0, or -1 with err: err.code is RS_ERR_BAD_INPUT when the input was refused, another
     * kind (runtime, timeout) when the run failed. On failure trace may hold a partial set of
     * events: callers must not write it. */
    int (*run)(const rs_schedule_t *s, const rs_machine_t *m, const rs_backend_opts_t *o, rs_trace_t *trace,
               rs_run_summary_t *out, rs_err_t *err);
    const struct rs_exec_backend *exec; /* executors: compute, transports and SPMD jobs; NULL otherwise */
    /* What run would cost for problem p (validated) on machine m, trace as RS_EST_* (estimate.h):
     * rank-steps, time and memory. Can't fail. */
    void (*estimate)(const rs_problem_t *p, const rs_machine_t *m, int trace, rs_estimate_t *e);
} rs_backend_ops_t;

/* Default options: no per-rank busy output, this binary, mpirun, no watchdog. Can't fail. */
void rs_backend_opts_default(rs_backend_opts_t *o);

/* The walk ("model"): exported for callers that always have it. */
extern const rs_backend_ops_t rs_walk_backend;

#endif /* RS_BACKEND_H */
