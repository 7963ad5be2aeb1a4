/* exec_results.h - what a run of the executor reports: the events recorded per (repetition, step,
 * kind), their medians over repetitions into one event each, the result's medians over (rank, step)
 * and makespan, and the trace's header. */
#ifndef RS_EXEC_RESULTS_H
#define RS_EXEC_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec.h"

/* Event slots per step, in rs_event_kind_t order (compute, send, recv, step). */
#define RS_EXEC_KINDS RS_EV_KIND_COUNT

/* One recorded event of one step of one repetition. */
typedef struct {
    double start_s, end_s;  /* relative to the repetition's origin */
    bool valid;             /* the step has this event */
    int32_t peer;           /* send/recv peer */
    double flops, bytes;    /* compute FLOPs (executed) / payload bytes */
} rs_exec_slot_t;

/* This rank's events from rec ([reps][n_steps][RS_EXEC_KINDS] slots): per (step, kind) the median
 * start and the median duration over the repetitions, into ev[n_steps][RS_EXEC_KINDS] (rank and pass
 * as given); a slot no step has (valid false) gets rank -1. The slot's peer, FLOPs and bytes come
 * from repetition 0. Can't fail (out of memory: every event rank -1). */
void rs_exec_median_events(const rs_exec_slot_t *rec, int reps, int64_t n_steps, int64_t rank, rs_pass_t pass,
                           rs_event_t *ev);

/* The result's medians over the n events ev (those with rank < 0 skipped): of the compute, receive
 * and step durations (0 for a kind with no event: a ring of one rank receives nothing), and the
 * makespan raised to the latest step end. Returns 0 or -1 with err "rank 0: out of memory". */
int rs_exec_summarize(const rs_event_t *ev, size_t n, rs_exec_result_t *res, rs_err_t *err);

/* Add the n events ev with rank >= 0 to trace. Returns 0 or -1 with err "rank 0: out of memory for
 * the trace". */
int rs_exec_trace_events(rs_trace_t *trace, const rs_event_t *ev, size_t n, rs_err_t *err);

/* The trace's header of a run: the problem, the backends' descriptions (res), the compute dtype, the
 * options that shaped the timing (reps, warmup, seed, input_scale), how times are taken and this
 * host. Can't fail. */
void rs_exec_trace_header(rs_trace_t *trace, const rs_problem_t *p, const rs_compute_ops_t *cops, const rs_exec_opts_t *o,
                          const rs_exec_result_t *res);

#endif /* RS_EXEC_RESULTS_H */
