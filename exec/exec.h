/* exec.h - real execution of the ring schedule: one executor loop, two plug-in interfaces.
 *
 * The executor walks the schedule from model/ (rs_schedule_step: segments, masks, transfers) and,
 * every step, posts the step's transfers through a TRANSPORT, runs the step's attention through a
 * COMPUTE backend, waits for both and records timestamps. It never knows which backends run
 * (nccl-tests style: structs of function pointers). Backends:
 *   compute:   "cpu"  fp32, OpenBLAS sgemm + online softmax        (exec/cpu_compute.c)
 *              "gpu"  CUDA kernels, bf16/fp16, fp32 accumulation   (exec/gpu/)
 *   transport: "mpi"  MPI_Isend/Irecv, progress none|poll|thread   (exec/mpi_transport.c)
 *              "local" N ranks as N threads of one process         (exec/local_transport.c)
 *              "nccl" ncclSend/Recv on a comm stream               (exec/gpu/)
 *
 * ---------------------------------------------------------------------------------------------------
 * Data layout of one rank (the "rank-local" order; every backend uses it):
 *  - A rank's tokens are its schedule segments (rs_schedule_rank_segments) concatenated: local row r
 *    of segment s is token segs[s].first + (r - row0(s)) * segs[s].stride, row0(s) = sum of the
 *    counts of the segments before s. Rows of a block's Q (KV) segment i start at row0(q_seg)
 *    (row0(kv_seg) of the KV owner's segments).
 *  - Tensors are "BHSD": [batch][heads][B rows][head_dim], row-major. Q, O, dO, dQ have q_heads
 *    heads; K, V, dK, dV have kv_heads. GQA: q head h reads kv head h / (q_heads / kv_heads).
 *  - A KV transfer buffer holds K then V, each [batch][kv_heads][B][d] in the activation dtype:
 *    rs_problem_kv_bytes() bytes (the schedule's transfer size). A dKV buffer holds dK then dV in
 *    fp32 (grad_bytes = 4): rs_problem_dkv_bytes() bytes.
 *  - Statistics per (batch, q head, row): running max m and normaliser l during the forward; after
 *    fwd_end the log-sum-exp lse = m + log(l) (in the scaled-logit domain), used by the backward.
 *  - Logits are (q . k) * softmax_scale, softmax_scale = 1/sqrt(head_dim).
 *  - Masks come from the step's blocks (rs_block_t): FULL, SKIP (nothing to do), DIAG (row i of the
 *    Q segment sees column j of the KV segment iff i - j >= diag). A backend may skip whole
 *    tile_q x tile_k tiles with no visible pair (that is what the schedule's flops_exec counts).
 *
 * Forward (N steps): fwd_begin; for each step k: post(send KV cur -> p+1, recv KV nxt <- p-1),
 * fwd_step(KV cur), wait both, swap; fwd_end (O /= l, lse).
 * A cached prefix (problem.cached_tokens P): Q-like tensors keep B = S/N rows (the new tokens); K,V
 * and the KV buffers have kv_rows = Bc + B rows, the rank's K,V segments (cached, then new), so a KV
 * buffer is rs_problem_kv_bytes() bytes. Inputs of cached tokens are seeded like the others (their
 * global token is their position in [0, P)).
 * pass-q (schedules that circulate Q, rs_problem_passes_q): the rank's own Q goes into a Q buffer
 * (upload Q with a buffer: [q_seqs][q_heads][B][d] in the activation dtype, rs_problem_q_bytes bytes)
 * and its K,V into a KV buffer that stays. Step k < N: post(send Q cur -> p+1, recv Q nxt <- p-1),
 * q_step(Q cur, own K,V) writes the partial output of the Q owner into that owner's partial buffer
 * (O normalised over the keys seen, [q_seqs][q_heads][B][d] in the activation dtype, then its lse
 * [q_seqs][q_heads][B] in fp32: rs_problem_part_bytes bytes); wait; swap. Step N (the all-to-all):
 * every partial goes to its owner (N - 1 pairwise rounds: round j sends to p+j and receives from
 * p-j), then q_merge combines the rank's N partials into its O and lse (download as usual).
 * Decode: Q-like tensors hold q_seqs = ceil(batch / N) sequences, local sequence i being global
 * sequence rank + i N (rows of sequences the rank does not own stay 0); K,V hold every sequence,
 * the new-token row only for the rank's own sequences; a step's local Q sequence i reads the K,V of
 * sequence q_owner + i N.
 * Backward (N+1 steps, after a forward that produced O and lse): bwd_begin (D = rowsum(dO*O),
 * dQ = 0); step k: post(KV prefetch as forward for k < N-1; dKV partial of step k-1 -> p+1 and the
 * incoming partial <- p-1 for k >= 1), grad_zero(acc), bwd_step(KV cur, acc), wait, then
 * grad_add(acc, incoming) so acc is the partial sent at step k+1. The tail step N has no compute;
 * its incoming buffer is the rank's final dK, dV.
 *
 * Clocks: every timestamp is on the rs_now_s() clock (CLOCK_MONOTONIC, shared by the processes of
 * one host). Asynchronous backends (GPU) convert their event times to it.
 */
#ifndef RS_EXEC_H
#define RS_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calibration.h"
#include "cpu_blas.h"
#include "estimate.h"
#include "schedule.h"
#include "trace.h"
#include "util.h"

/* ---------------------------------------------------------------------------------------------------
 * What a backend knows about its rank
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    rs_problem_t problem;                  /* the problem (pass = the measured pass) */
    int64_t rank;                          /* this rank in the ring */
    int64_t block_tokens;                  /* B = S / N rows of Q per sequence */
    int n_segs;                            /* this rank's query token segments (Q rows) */
    rs_segment_t segs[RS_MAX_SEGMENTS];
    int64_t kv_rows;                       /* rows of K,V per sequence: Bc + B (= B without a cache) */
    int n_kv_segs;                         /* this rank's K,V segments: cached, then new */
    rs_segment_t kv_segs[RS_MAX_KV_SEGMENTS];
    int64_t q_seqs;                        /* sequences of the Q-like tensors (batch; decode ceil(b/N)) */
    double softmax_scale;                  /* 1 / sqrt(head_dim) */
    int local_rank;                        /* rank among the processes of this host (GPU ordinal) */
    void (*progress)(void *arg);           /* may be NULL: call between compute chunks so a transport
                                              without a progress thread can move data (MPI_Test) */
    void *progress_arg;                    /* argument of progress */
} rs_exec_rank_t;

/* Named tensors exchanged with the host (fp32 host arrays in rank-local BHSD order). */
typedef enum {
    RS_TENSOR_Q = 0, /* input, stored by the compute backend */
    RS_TENSOR_K,     /* input, written into a KV buffer (first half) */
    RS_TENSOR_V,     /* input, written into a KV buffer (second half) */
    RS_TENSOR_DO,    /* input (backward), stored by the compute backend */
    RS_TENSOR_O,     /* output of the forward (normalised) */
    RS_TENSOR_LSE,   /* output of the forward: [batch][q_heads][B] log-sum-exp */
    RS_TENSOR_DQ,    /* output of the backward */
    RS_TENSOR_DK,    /* output of the backward: read from a dKV buffer (first half) */
    RS_TENSOR_DV,    /* output of the backward: read from a dKV buffer (second half) */
    RS_TENSOR_COUNT
} rs_tensor_t;
const char *rs_tensor_name(rs_tensor_t t); /* "Q", "K", "V", "dO", "O", "lse", "dQ", "dK", "dV" */

/* ---------------------------------------------------------------------------------------------------
 * Compute backend. Every function returns 0 or -1 with err (one line naming the backend and what
 * failed, e.g. "cuda: exec/gpu/attn_fwd.cu:120: out of memory"). Launch functions may be asynchronous;
 * wait() blocks until the last launched work is done and returns its interval.
 * ------------------------------------------------------------------------------------------------- */
typedef struct rs_compute_ops {
    const char *name;         /* "cpu", "gpu" */
    const char *dtype_name;   /* activation dtype it computes in: "fp32", "bf16", "fp16" */
    int64_t act_bytes;        /* bytes per activation element; the problem's act_bytes must match */
    /* Create the rank's state (resident Q, O, dO, dQ, statistics, workspaces). */
    int (*create)(const rs_exec_rank_t *r, void **state, rs_err_t *err);
    void (*destroy)(void *state);
    /* Transfer buffers in the backend's memory space (host for cpu, device for gpu); zeroed. */
    int (*buf_alloc)(void *state, size_t bytes, void **buf, rs_err_t *err);
    void (*buf_free)(void *state, void *buf);
    /* Host fp32 -> backend. Q, dO: stored in the state (Q: into the Q buffer buf when buf is not
     * NULL); K, V: into the KV buffer buf. Host arrays are rank-local BHSD (K, V: kv_heads, kv_rows
     * rows; Q: q_seqs sequences). Synchronous. */
    int (*upload)(void *state, rs_tensor_t which, const float *host, void *buf, rs_err_t *err);
    /* Backend -> host fp32. O, LSE, dQ: from the state; dK, dV: from the dKV buffer buf. Synchronous. */
    int (*download)(void *state, rs_tensor_t which, float *host, const void *buf, rs_err_t *err);
    /* Forward: reset (m = -inf, l = 0, O = 0); one step on the KV block kv (layout above) with the
     * step's blocks/masks; final division O /= l and lse = m + log l. */
    int (*fwd_begin)(void *state, rs_err_t *err);
    int (*fwd_step)(void *state, const rs_step_t *step, const void *kv, rs_err_t *err);
    int (*fwd_end)(void *state, rs_err_t *err);
    /* Backward (needs O and lse of a forward on the same inputs, and dO): D = rowsum(dO * O),
     * dQ = 0; one step: recompute P = exp(S - lse), accumulate dQ (state) and dK, dV of the KV
     * block into dkv (fp32, dK then dV); end (nothing left, dQ final). */
    int (*bwd_begin)(void *state, rs_err_t *err);
    int (*bwd_step)(void *state, const rs_step_t *step, const void *kv, void *dkv, rs_err_t *err);
    int (*bwd_end)(void *state, rs_err_t *err);
    /* pass-q (may be NULL: the backend cannot run schedules that circulate Q). q_step: the queries in
     * the Q buffer qbuf (the step's Q owner's) against the K,V buffer kv for the step's blocks, from
     * scratch; writes their partial output and lse into the partial buffer part (layouts above).
     * q_merge: O and lse of this rank from its n partials parts[0..n) (the N owners' order, any
     * order is exact): lse = log sum exp lse_i, O = sum exp(lse_i - lse) O_i. */
    int (*q_step)(void *state, const rs_step_t *step, const void *qbuf, const void *kv, void *part, rs_err_t *err);
    int (*q_merge)(void *state, int n, void *const *parts, rs_err_t *err);
    /* dKV buffers: dst = 0; dst += src (fp32, rs_problem_dkv_bytes bytes). May be asynchronous,
     * ordered with the launches above. */
    int (*grad_zero)(void *state, void *dst, rs_err_t *err);
    int (*grad_add)(void *state, void *dst, const void *src, rs_err_t *err);
    /* Block until everything launched is done. *t_start_s / *t_end_s receive the interval of the
     * last fwd_step/bwd_step (rs_now_s clock); either may be NULL. */
    int (*wait)(void *state, double *t_start_s, double *t_end_s, rs_err_t *err);
    /* One line describing kernel and library (e.g. "OpenBLAS 0.3.21 SkylakeX; sgemm"). */
    const char *(*describe)(void *state);
    /* Where the step's compute calls the progress hook (model/4-cost/polls.h): the chunk columns
     * and FULL-block panel rows this state uses, into g (its curve untouched). May be NULL (the
     * backend does not poll: a device or a thread moves the data). */
    void (*poll_geometry)(void *state, rs_poll_model_t *g);
} rs_compute_ops_t;

/* ---------------------------------------------------------------------------------------------------
 * Transport. A step's transfers are posted together (post), then waited for together (wait). The
 * buffers are the compute backend's (device memory for NCCL). Same return convention.
 * ------------------------------------------------------------------------------------------------- */
typedef enum { RS_XFER_SEND = 0, RS_XFER_RECV } rs_xfer_dir_t;

typedef struct {
    rs_xfer_dir_t dir;     /* send to peer or receive from peer */
    int64_t peer;          /* ring rank of the other end */
    void *buf;             /* payload (backend memory) */
    uint64_t bytes;        /* payload bytes (> 0) */
    int tag;               /* distinguishes the KV (0) and dKV (1) streams of one step */
} rs_xfer_req_t;

typedef struct {
    double post_s;         /* when the transfer was posted (rs_now_s clock) */
    double done_s;         /* when its completion was observed (or, GPU, its end event) */
} rs_xfer_time_t;

#define RS_XFER_MAX_REQS 8 /* per post: up to 2 sends + 2 receives per step; margin */

typedef struct rs_transport_ops {
    const char *name;      /* "mpi", "local", "nccl" */
    int64_t (*rank)(void *state);
    int64_t (*size)(void *state);
    /* Post n <= RS_XFER_MAX_REQS transfers; at most one post outstanding per rank. */
    int (*post)(void *state, int n, const rs_xfer_req_t *reqs, rs_err_t *err);
    /* Make progress without blocking (MPI_Testall; no-op where a thread or a device does it).
     * Safe to call often. May be NULL. */
    void (*progress)(void *state);
    /* Wait for every posted transfer; times[i] for reqs[i] of the post. Gives up after timeout_s
     * (<= 0: never) with err "timeout after T s waiting for {send to|receive from} rank R"; the
     * executor adds the step. */
    int (*wait)(void *state, double timeout_s, rs_xfer_time_t *times, rs_err_t *err);
    /* Every rank enters before any leaves; timeout as above. */
    int (*barrier)(void *state, double timeout_s, rs_err_t *err);
    /* Rank 0 receives every rank's `bytes` host bytes, rank-major, into root_buf (ignored elsewhere). */
    int (*gather)(void *state, const void *host_buf, size_t bytes, void *root_buf, double timeout_s,
                  rs_err_t *err);
    /* Rank 0's `bytes` host bytes to every rank's host_buf (in place). May be NULL (calibration
     * then falls back to fixed choices). */
    int (*bcast)(void *state, void *host_buf, size_t bytes, double timeout_s, rs_err_t *err);
    /* Tear the whole job down after an error (MPI_Abort, ncclCommAbort). May not return. */
    void (*abort)(void *state, int exit_code);
    /* One line: library and version ("Open MPI v4.1.4, progress thread"). */
    const char *(*describe)(void *state);
    void (*destroy)(void *state);
    /* Loopback: true when this state plays ONE rank of the ring alone, every transfer going to itself
     * (one device emulating its rank of an N-rank ring: same buffers, sizes, masks and step order as
     * the real ring, but the blocks it computes on are its own). rank()/size() are the emulated rank
     * and N; barrier and gather involve this state only. May be NULL (= false). */
    bool (*loopback)(void *state);
    /* Test hook: the transfers of the next post do not complete until the transport gives up (its
     * watchdog fires at the wait's timeout). May be NULL (the transport cannot stall). */
    int (*inject_stall)(void *state, rs_err_t *err);
} rs_transport_ops_t;

/* ---------------------------------------------------------------------------------------------------
 * The executor
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    int warmup;               /* untimed repetitions before the measured ones (>= 0) */
    int reps;                 /* measured repetitions (>= 1); the trace holds per-event medians */
    double timeout_s;         /* per wait; <= 0: none */
    uint64_t seed;            /* inputs: x = input_scale * (2u - 1), u = rs_hash_unit(seed, ...) */
    double input_scale;       /* amplitude of Q, K, V (logits ~ scale^2 * sqrt(d)); dO uses 1 */
    bool check;               /* rank 0 compares against a float64 full-attention reference */
    double check_tol;         /* max |x - ref| / max |ref| allowed per tensor (default 1e-5) */
    const char *save_io_dir;  /* non-NULL: rank 0 writes Q K V O [dO dQ dK dV].npy, global order */
    int64_t fault_rank;       /* test hook: this rank stops answering at fault_step (-1: none) */
    int64_t fault_step;       /* step at which fault_rank stops (before posting) */
    int64_t stall_rank;       /* test hook: this rank's transfers of stall_step never complete (the
                                 transport's inject_stall; its watchdog must fire) (-1: none) */
    int64_t stall_step;       /* step of the measured pass whose transfers stall */
} rs_exec_opts_t;

/* Defaults: warmup 1, reps 3, timeout 60 s, seed 1, input_scale 1, no check (tol 1e-5), no save,
 * no fault, no stall. Can't fail. */
void rs_exec_opts_default(rs_exec_opts_t *o);

/* What executing problem p on this host costs (estimate.h): every rank's blocks (Q, K, V, O, dO,
 * the ring's double buffers, the gradients) in 4-byte elements, all ranks on this host; the float64
 * reference of o->check on rank 0; the time of (warmup + reps) runs at about 2e10 FLOP/s per core.
 * o NULL: the defaults. Can't fail. */
void rs_exec_estimate(const rs_problem_t *p, const rs_exec_opts_t *o, rs_estimate_t *e);

typedef struct {
    double err[RS_TENSOR_COUNT];   /* check: max|x - ref| / max|ref| per tensor (-1: not checked) */
    double ref_max[RS_TENSOR_COUNT]; /* check: max|ref| per tensor (absolute error = err * ref_max) */
    int64_t worst[RS_TENSOR_COUNT][4]; /* check: (batch, head, global token, dim) of the largest error */
    bool check_ok;                 /* every checked tensor within check_tol (true if no check) */
    bool finite;                   /* outputs contain no inf/NaN */
    bool faulted;                  /* this rank stopped by opts.fault_* (it returned -1 on purpose) */
    int64_t n_steps;               /* steps of the measured pass */
    int64_t fail_step;             /* on error: the step where this rank failed or timed out (-1) */
    double makespan_s;             /* median over reps of the latest step end (rank 0: over ranks) */
    double t_comp_median_s;        /* medians over (rank, step) of the trace's compute durations */
    double t_comm_median_s;        /* ... of the receive durations (post to completion) */
    double t_step_median_s;        /* ... of the step durations */
    char compute_desc[256];        /* the compute backend's describe() */
    char transport_desc[256];      /* the transport's describe() */
} rs_exec_result_t;

/* What one rank runs on: its compute backend and its transport. */
typedef struct {
    const rs_compute_ops_t *cops;   /* compute backend */
    const rs_transport_ops_t *tops; /* transport */
    void *ts;                       /* the transport's state of this rank */
    int local_rank;                 /* rank among the processes of this host (GPU ordinal) */
} rs_exec_backends_t;

/* Run the schedule's pass on this rank (every rank calls it, SPMD). For a backward pass, a forward
 * is run first (untimed) to produce O and lse. On rank 0, trace (if non-NULL) receives every rank's
 * events (medians over reps; times from the start of the pass) and header keys (problem, backends,
 * versions); res is filled on every rank (check fields and makespan on rank 0 only).
 * Returns 0, or -1 with err: a timeout names the rank, the step and the peer; a failed check says
 * which tensor and by how much (res->check_ok false, return 0 so the caller picks the exit code). */
int rs_exec_run(const rs_schedule_t *s, const rs_exec_backends_t *on, const rs_exec_opts_t *opts, rs_trace_t *trace,
                rs_exec_result_t *res, rs_err_t *err);

/* All N ranks in one process, one thread per rank (tests, one-node GPU runs). */
typedef struct {
    const rs_compute_ops_t *cops;   /* compute backend */
    const rs_transport_ops_t *tops; /* transport; NULL: the "local" transport (tstates unused) */
    void *const *tstates;           /* the N per-rank states: thread r uses tstates[r], local rank r */
} rs_exec_threads_t;

/* Run all N ranks of th, one thread per rank. Same outputs as rank 0 of rs_exec_run. A timeout
 * does not stop the other ranks (each times out by itself and says what it waited for); any other
 * failure aborts the transport. The error reported is the one closest to the cause: a real error
 * before a fault-injected stop or an abort by another rank, then the earliest step, then the
 * earliest in time. Returns 0 or -1 with err. */
int rs_exec_run_threads(const rs_schedule_t *s, const rs_exec_threads_t *th, const rs_exec_opts_t *opts, rs_trace_t *trace,
                        rs_exec_result_t *res, rs_err_t *err);

/* The ring rank by rank on one device. make(arg, r) returns a loopback transport state (tops->loopback
 * true, rank r of N) that rs_exec_run uses alone; the states are destroyed after their run. */
typedef void *(*rs_loopback_make_fn)(void *arg, int64_t rank, rs_err_t *err);
typedef struct {
    const rs_compute_ops_t *cops;   /* compute backend */
    const rs_transport_ops_t *tops; /* the transport of the states make() returns */
    rs_loopback_make_fn make;       /* a loopback state of rank r */
    void *make_arg;                 /* its argument */
    const int64_t *ranks;           /* the ranks to run, in order (NULL: all N) */
    int n_ranks;                    /* entries of ranks */
} rs_exec_loopback_t;

/* Run the ranks of lb in turn. trace (if non-NULL) receives every run's events (each rank's times
 * from its own pass start); res holds the medians over all of them and the makespan = the latest
 * step end of any rank. Each rank's timeline is the ring's with every hop going to itself: the model
 * predicts it with rs_machine_t.loopback (docs/model.md). --check is refused (the blocks are not the
 * ring's). Returns 0 or -1 with err. */
int rs_exec_run_loopback(const rs_schedule_t *s, const rs_exec_loopback_t *lb, const rs_exec_opts_t *opts, rs_trace_t *trace,
                         rs_exec_result_t *res, rs_err_t *err);

/* ---------------------------------------------------------------------------------------------------
 * Backends provided by exec/ (CPU build)
 * ------------------------------------------------------------------------------------------------- */
extern const rs_compute_ops_t rs_cpu_compute_ops; /* fp32, OpenBLAS sgemm, online softmax */
extern const rs_transport_ops_t rs_local_transport_ops;

/* Local transport: a world of n ranks in one process; rs_local_world_rank() is the state of rank r
 * (pass it as tstate). Returns NULL with err on OOM. */
typedef struct rs_local_world rs_local_world_t;
rs_local_world_t *rs_local_world_create(int64_t n_ranks, rs_err_t *err);
void *rs_local_world_rank(rs_local_world_t *w, int64_t rank);
void rs_local_world_free(rs_local_world_t *w);
/* Local loopback: one state playing rank `rank` of a ring of n_ranks alone (see loopback above);
 * each receive is a copy of the send of the same tag, made at post. Pass it to rs_exec_run with
 * rs_local_transport_ops; free it with rs_local_transport_ops.destroy. Returns NULL with err. */
void *rs_local_loopback_create(int64_t rank, int64_t n_ranks, rs_err_t *err);

typedef enum { RS_PROGRESS_NONE = 0, RS_PROGRESS_POLL, RS_PROGRESS_THREAD } rs_progress_t;
const char *rs_progress_name(rs_progress_t p);          /* "none" | "poll" | "thread" */
int rs_progress_parse(const char *s, rs_progress_t *out);

#ifdef RINGSIM_HAVE_MPI
extern const rs_transport_ops_t rs_mpi_transport_ops;
/* MPI_Init_thread (MPI_THREAD_MULTIPLE when progress is thread), one state for this process.
 * MPI_COMM_WORLD is the ring. Returns NULL with err. */
void *rs_mpi_transport_create(int *argc, char ***argv, rs_progress_t progress, rs_err_t *err);
#endif

/* GPU plug-in contract (exec/gpu/gpu.h). `ringsim exec --backend gpu` uses it when gpu.h
 * defines RS_GPU_EXEC_API:
 *   const rs_compute_ops_t *rs_gpu_compute_ops_for(rs_dtype_t dtype);  NULL if dtype unsupported
 *   extern const rs_transport_ops_t rs_nccl_transport_ops;
 *   void *rs_nccl_transport_create(int *argc, char ***argv, int local_rank, rs_err_t *err);
 *        one process per GPU under mpirun (MPI carries the ncclUniqueId)
 *   int rs_nccl_world_create(int64_t n_ranks, void **tstates, rs_err_t *err);
 *        one process, one thread per GPU: fills tstates[0..n) for rs_exec_run_threads()
 *   void rs_nccl_world_free(void **tstates, int64_t n_ranks);
 */

/* ---------------------------------------------------------------------------------------------------
 * Seeded inputs (shared with the GPU backend's checks; the float64 reference: exec_check.h)
 * ------------------------------------------------------------------------------------------------- */
/* One seeded input tensor: element x = scale * (2u - 1), u = rs_hash_unit(seed, tensor, its index in
 * the global BHSD array over every position, cached and new). */
typedef struct {
    uint64_t seed;                 /* rs_exec_opts_t.seed */
    rs_tensor_t tensor;            /* Q, K, V or DO */
    const rs_problem_t *problem;   /* its shape */
    double scale;                  /* amplitude: values in [-scale, scale) */
} rs_exec_input_t;

/* Deterministic input element of in at (batch b, head h, global token, dim). Can't fail. */
float rs_exec_input(const rs_exec_input_t *in, int64_t b, int64_t h, int64_t token, int64_t dim);
/* Fill a rank-local BHSD host array of in for the given segments, every sequence. Can't fail. */
void rs_exec_fill_local(const rs_exec_input_t *in, int n_segs, const rs_segment_t *segs, float *out);
/* The Q-like (Q, dO) or K,V host array of rank r as the executor lays it out (the layouts above:
 * decode's sequences by owner, the new-token row of K,V only for the rank's own sequences). Can't
 * fail. */
void rs_exec_fill_rank(uint64_t seed, rs_tensor_t t, const rs_schedule_t *s, int64_t rank, double scale, float *out);

#endif /* RS_EXEC_H */
