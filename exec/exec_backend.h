/* exec_backend.h - the executors behind the backend interface (backend/backend.h): what an
 * executor is made of (its compute backend per dtype, its transports), the SPMD job that calibration
 * and validation run on, and running a schedule as a `ringsim exec` subprocess (what run() of an
 * executor does for sweep and report).
 *
 *   executor  compute          transports: mpirun          threads of one process   loopback
 *   "cpu"     cpu (fp32)       mpi (exec/mpi_transport.c)  local                    local
 *   "gpu"     gpu (bf16, fp16) nccl over MPI (exec/gpu/)   nccl, one GPU per thread nccl | copy
 *
 * A job is SPMD: the body runs once per rank, each with its own rs_exec_job_t, and rank 0's return
 * is the job's exit code. Under a launcher (mpirun, srun) this process is one rank; started by
 * hand with N > 1 ranks it re-starts itself under mpirun (when on PATH and not --launch threads),
 * else runs N threads. A loopback job is one thread: this device plays rank 0 of the N-rank ring
 * alone (its transfers to itself); rs_exec_job_run then runs every rank in turn.
 */
#ifndef RS_EXEC_BACKEND_H
#define RS_EXEC_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "exec.h"
#include "machine.h"

/* One rank's view of an SPMD job. */
typedef struct {
    const struct rs_exec_backend *be;   /* the executor */
    const rs_compute_ops_t *cops;       /* its compute backend for the job's dtype */
    const rs_transport_ops_t *tops;     /* this rank's transport */
    void *ts;                           /* its state */
    int local_rank;                     /* rank among the processes of this host (GPU ordinal) */
    int64_t rank;                       /* this rank */
    int64_t n_ranks;                    /* N: the ring */
    int64_t n_procs;                    /* ranks taking part in collectives: N, or 1 for a loopback */
    const char *loopback;               /* NULL, or how this device plays every rank (a loopback kind) */
    const char *launch;                 /* what runs the ranks: "mpirun", "threads" or "loopback" */
} rs_exec_job_t;

/* How to start a job. */
typedef struct {
    const char *subcommand;   /* the ringsim command (messages, re-launch under mpirun) */
    int64_t n_ranks;          /* N */
    const char *launch;       /* "mpirun", "threads", or NULL: mpirun when on PATH, else threads */
    rs_progress_t progress;   /* MPI progress mode (cpu) */
    const char *loopback;     /* NULL, or a kind of be->loopback_kinds */
    rs_dtype_t dtype;         /* activations: picks the compute backend */
    int *argc;                /* the command line, for the re-launch and MPI_Init */
    char ***argv;
} rs_exec_spmd_t;

typedef struct rs_exec_backend {
    const char *name;                     /* "cpu" | "gpu" */
    const char *source;                   /* trace source: "exec-cpu" | "exec-gpu" */
    rs_dtype_t default_dtype;             /* what it computes in when not told: fp32 | bf16 */
    const char *loopback_kinds;           /* "local" | "nccl|copy" */
    bool no_host_calls;                   /* makes none of the preset's host-side calls (CUDA runtime, NCCL;
                                           * model/4-cost/impl_presets.c): its host work per step is the
                                           * calibrated cost per transfer, so its calibrations give
                                           * calibration.host_call_s = 0 */
    /* The compute backend for activations of dtype, or NULL when it does not compute in it. */
    const rs_compute_ops_t *(*compute_for)(rs_dtype_t dtype);
    /* The kernel tile the compute backend runs for a pass (for the schedule's executed FLOPs), or
     * NULL: the problem's tile. */
    void (*kernel_tile)(rs_pass_t pass, int64_t head_dim, int64_t *tile_q, int64_t *tile_k);
    /* Under mpirun: this process's rank (MPI_Init inside). NULL without MPI. */
    const rs_transport_ops_t *mpi_ops;
    void *(*mpi_create)(int *argc, char ***argv, rs_progress_t progress, int local_rank, rs_err_t *err);
    /* One process, n threads: tss[r] receives rank r's state; returns a handle for world_free, or
     * NULL with err. */
    const rs_transport_ops_t *world_ops;
    void *(*world_create)(int64_t n, void **tss, rs_err_t *err);
    void (*world_free)(void *world, void **tss, int64_t n);
    /* Loopback: rank `rank` of an n-rank ring alone on this device, kind from loopback_kinds. */
    const rs_transport_ops_t *loopback_ops;
    void *(*loopback_create)(int64_t rank, int64_t n, const char *kind, rs_err_t *err);
} rs_exec_backend_t;

/* Check what a job of be needs before any rank starts: the dtype computed (err "--dtype X: the cpu
 * executor computes in fp32 (use --dtype fp32)"), dK,dV in fp32, a loopback kind it knows and no
 * loopback under a launcher. Returns 0 or -1 with err (RS_ERR_BAD_INPUT). */
int rs_exec_spmd_check(const rs_exec_backend_t *be, const rs_exec_spmd_t *o, int64_t grad_bytes, rs_err_t *err);

/* Run body(job, arg) as an SPMD job of o->n_ranks ranks (see the top of this file) and return the
 * command's exit code - this is the SPMD commands' main: rank 0's return, mpirun's status after a
 * re-launch, or, when the ranks cannot be started (printed as "ringsim SUBCOMMAND: message"), the
 * exit code of that error (rs_err_exit_code: 2 when they cannot be started as asked, mpirun missing
 * with --launch mpirun; else 1). A rank whose body returns non-zero tears the job down (the
 * transport's abort). */
int rs_exec_spmd(const rs_exec_backend_t *be, const rs_exec_spmd_t *o, int (*body)(const rs_exec_job_t *job, void *arg),
                 void *arg);

/* Run the schedule on the job: rs_exec_run on every rank (SPMD), or, on a loopback job, every rank
 * of the ring in turn on this device (rs_exec_run_loopback). trace (rank 0) and res as rs_exec_run.
 * Returns 0 or -1 with err. */
int rs_exec_job_run(const rs_exec_job_t *job, const rs_schedule_t *s, const rs_exec_opts_t *o, rs_trace_t *trace,
                    rs_exec_result_t *res, rs_err_t *err);

/* run() of an executor: `ringsim exec --backend=NAME` as a subprocess (its own ranks: mpirun or
 * threads, o->exec_launch) on the schedule's problem, its trace read back into trace (header and
 * events) and summarized. Errors say what went wrong in one line meant for a sweep's note:
 * "exec failed (ringsim exec --launch=mpirun exit 2)", "exec trace unusable: ...". Returns 0 or -1. */
int rs_exec_subprocess_run(const rs_exec_backend_t *be, const rs_schedule_t *s, const rs_backend_opts_t *o,
                           rs_trace_t *trace, rs_run_summary_t *out, rs_err_t *err);

/* The executors' can-run rule: be computes the problem's activations (its dtype) and dK,dV travel
 * in fp32. The machine is this host; m only names what the model predicts. */
int rs_exec_can_run(const rs_exec_backend_t *be, const rs_problem_t *p, const rs_machine_t *m, rs_err_t *why);

/* estimate() of an executor: rs_exec_estimate of the problem with the default options (host memory of
 * the ranks' blocks and of the checking side; a device's own memory is the device's). Can't fail. */
void rs_exec_backend_estimate(const rs_problem_t *p, const rs_machine_t *m, int trace, rs_estimate_t *e);

extern const rs_exec_backend_t rs_cpu_exec_backend;
extern const rs_backend_ops_t rs_cpu_backend;

#endif /* RS_EXEC_BACKEND_H */
