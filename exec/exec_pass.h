/* exec_pass.h - the pass loops of the executor (exec.h's per-step protocol): one rank's state during
 * a run, staging its inputs before a pass, the forward and backward pass over the ring (K,V
 * circulating, dK,dV partials returning), the pass of a schedule that circulates Q and its closing
 * all-to-all. rs_exec_run (executor.c) sets the state up and repeats the passes. */
#ifndef RS_EXEC_PASS_H
#define RS_EXEC_PASS_H

#include <stdbool.h>
#include <stdint.h>

#include "exec.h"
#include "exec_results.h"

/* One rank's run: its backends, options and the buffers the passes read, fill and swap. */
typedef struct {
    const rs_compute_ops_t *cops;   /* compute backend */
    void *cs;                       /* its state */
    const rs_transport_ops_t *tops; /* transport */
    void *ts;                       /* its state */
    const rs_exec_opts_t *o;        /* options */
    int64_t rank, n;                /* ring rank, ring size */
    const float *k_host, *v_host;   /* this rank's own K, V (staged before every pass: rs_exec_stage_inputs) */
    const float *q_host;            /* this rank's own Q (pass-q: staged into qbuf before every pass) */
    void *kv[2];                    /* K,V double buffer (pass-q: kv[0] holds the rank's own) */
    void *qbuf[2];                  /* pass-q: Q double buffer */
    void **part;                    /* pass-q: [N] partial outputs of every owner's queries, then [N]
                                       received from every rank (part[n + r]) */
    void *dkv[3];                   /* dK,dV: accumulate, send, receive */
    void *dkv_final;                /* after a backward pass: this rank's dK,dV */
    rs_pass_t measured;             /* the measured pass (fault injection applies to it) */
} rs_exec_ctx_t;

/* Put the rank's own K,V (pass_q: and Q) into the buffers a pass starts from, and (dkv) clear the
 * dK,dV buffers. Returns 0 or -1 with err ("rank R: ..."). */
int rs_exec_stage_inputs(rs_exec_ctx_t *c, bool pass_q, bool dkv, rs_err_t *err);

/* One pass of schedule s (forward or backward: its problem's pass) on this rank. slots (NULL: not
 * recorded) receives its events, [n_steps][RS_EXEC_KINDS], times from t0. res->faulted is set when
 * opts' fault injection stopped the rank, res->fail_step to the step of a failure (-1 after a pass
 * that completed). Returns 0, or -1 with err naming the rank and the step. */
int rs_exec_pass(rs_exec_ctx_t *c, const rs_schedule_t *s, rs_exec_slot_t *slots, double t0, rs_exec_result_t *res,
                 rs_err_t *err);
/* The same for a schedule that circulates Q (rs_problem_passes_q): its steps, the all-to-all that
 * returns every partial to its owner, the merge into O and lse. */
int rs_exec_pass_q(rs_exec_ctx_t *c, const rs_schedule_t *s, rs_exec_slot_t *slots, double t0, rs_exec_result_t *res,
                   rs_err_t *err);

#endif /* RS_EXEC_PASS_H */
