/* calib_transfer.h - the transport side of a calibration (collective: every rank of the job calls
 * these together): ring exchanges of m bytes, fresh or with the ring's rotating buffers; the
 * transfers a ring step of the pass posts and the overlap samples of a block step with them in
 * flight; medians over ranks. */
#ifndef RS_CALIB_TRANSFER_H
#define RS_CALIB_TRANSFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calib_block.h"
#include "exec_backend.h"
#include "polls.h"

/* The transfers a ring step of the problem's pass moves at B on n_ranks ranks (contiguous, non-causal:
 * every rank alike): those of the computing step with the most bytes - the forward's K,V block; the
 * backward's K,V block and dK,dV partial together when N > 2 (at N = 2 one of them per step). Their
 * kinds and bytes into kind[], bytes[]. Returns their count (0 on a ring of 1), or -1 with err. */
int rs_calib_step_flows(const rs_problem_t *problem, int64_t B, int64_t n_ranks, rs_xfer_kind_t kind[RS_MAX_TRANSFERS],
                        uint64_t bytes[RS_MAX_TRANSFERS], rs_err_t *err);

/* What an overlap sample posted: its flows and their bytes in all. */
typedef struct {
    int n;
    uint64_t bytes;
    rs_poll_model_t geom;                  /* the compute's poll geometry (chunk_cols 0: it does not poll) */
    double polls;                          /* polls of the block step under it (rs_step_polls) */
    double poll_first;                     /* where in a unit its first poll falls (rs_poll_first_frac) */
} rs_calib_flows_t;

/* The tag of the untimed exchange that primes a fresh one: it receives the block the timed exchange
 * then sends, so that what a fresh transfer sends was just written by its sender, as in the ring; the
 * timed one receives into a buffer the rank never sends (the transport sizes of rs_calibrate, and the
 * fresh transfers alone of rs_calib_overlap_samples). */
#define RS_CALIB_TAG_PRIME 4

/* Which overlap samples to take: the block step at B of the problem's pass, reps times. */
typedef struct {
    const rs_problem_t *problem;    /* the pass and shape (S, N, layout, causal ignored) */
    int64_t block;                  /* B */
    int reps;                       /* measured repetitions, after one warm-up */
    double timeout_s;               /* transport waits */
} rs_calib_overlap_req_t;

/* Where the overlap samples go: per repetition one value appended to each array [*n, cap). */
typedef struct {
    double *end_s;                  /* the receives' completion with the compute (the last one's, from their post) */
    double *end_fresh_s;            /* the same with fresh transfers posted at the step's start (NULL: not run) */
    double *busy_s;                 /* the compute with the transfers in flight */
    double *alone_s;                /* the compute alone */
    double *xfer_s;                 /* the receive completion of the fresh transfers alone (NULL: not kept) */
    double *xfer_reused_s;          /* ... of the transfers alone with the ring's rotating buffers (NULL: not kept) */
    size_t cap;                     /* capacity of each array */
    size_t *n;                      /* samples in them (in: before, out: after) */
    rs_calib_flows_t *flows;        /* what was posted (NULL: not wanted) */
} rs_calib_overlap_samples_t;

/* Overlap samples on every rank of job (collective; nothing on a ring of 1): rq->reps repetitions
 * after one warm-up of: the pass's ring transfers alone (rs_calib_step_flows: sent to p+1, the same
 * received from p-1), the FULL B x B block step alone, then the step with the transfers posted at
 * its start (the K,V sent is the block being computed on). The buffers rotate after every exchange
 * as the ring's do (what was received is computed on and sent next; what was sent receives), so the
 * transfers alone and the step's run in the ring's steady state (the reused curve); the transfers
 * alone run once more as fresh ones (RS_CALIB_TAG_PRIME: a block its sender just wrote, received
 * into a buffer the peer never read: the fresh curve); then (out->end_fresh_s non-NULL) the step
 * once more with fresh transfers posted at its start, as the ring's step 0 (and the backward's step
 * 1) posts them. Returns 0 or -1 with err. */
int rs_calib_overlap_samples(const rs_exec_job_t *job, const rs_calib_overlap_req_t *rq, const rs_calib_overlap_samples_t *out,
                             rs_err_t *err);

/* Each rank's median of its samples (sorted in place), gathered on rank 0 into all[rank] (N values;
 * others may pass NULL). Collective. Returns 0 or -1 with err. */
int rs_calib_rank_values(const rs_exec_job_t *job, double *samples, size_t n, double timeout_s, double *all, rs_err_t *err);
/* Median of this rank's samples, then the median over ranks on rank 0 (others: their own median); a
 * loopback state (one rank alone) gathers its own value only. Collective. Returns 0 or -1 with err. */
int rs_calib_rank_median(const rs_exec_job_t *job, double *samples, size_t n, double timeout_s, double *out, rs_err_t *err);

/* ---------------------------------------------------------------------------------------------------
 * The transport measurement's ring exchanges (for rs_calibrate)
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    const rs_exec_job_t *job;       /* its transport */
    double timeout_s;               /* transport waits */
    rs_calib_block_t owner;         /* the compute state the buffers belong to */
    void *buf[5];                   /* fresh: 0..2 (by role: fresh_buf); rotating as the ring's: 3, 4 */
} rs_calib_exchanges_t;

/* Five buffers of `bytes` on a compute state of pt's block (the backend's memory: device memory on a
 * GPU). Returns 0, or -1 with err (x closed). */
int rs_calib_exchanges_open(rs_calib_exchanges_t *x, const rs_exec_job_t *job, const rs_calib_point_t *pt, uint64_t bytes,
                            double timeout_s, rs_err_t *err);
void rs_calib_exchanges_close(rs_calib_exchanges_t *x);
/* The median over ranks of the median receive time of ring exchanges of m bytes (send to p+1, receive
 * from p-1; 3 unmeasured, then 30 up to 1 MiB and 8 above): fresh (RS_CALIB_TAG_PRIME), or (rotate)
 * with buffers rotating as in the ring (a rank sends what it received at the exchange before and
 * receives into what it sent). Collective. Returns 0 or -1 with err. */
int rs_calib_time_exchange(rs_calib_exchanges_t *x, uint64_t m, bool rotate, double *t_med_s, rs_err_t *err);

#endif /* RS_CALIB_TRANSFER_H */
