/* import_fixtures.h - synthetic traces of a ring-attention run, written exactly as the profilers
 * write them, for the import tests (tests/test_import.c) and the import benchmark (bench/).
 *
 * A run: N ranks, L "layers" (ring passes of each kind, in time order: every forward pass, then every
 * backward pass), in the shape of ring-flash-attn / TransformerEngine context parallelism:
 *  - forward step k: one ncclDevKernel_SendRecv on stream 21 (k < N-1), one flash-attn 2
 *    flash_fwd_kernel on stream 7 or 13 (alternating per step, as TE's two compute streams), then
 *    two elementwise kernels (the out/lse update; not attention);
 *  - backward step k: the K,V SendRecv (stream 21, k < N-1) and the dK,dV SendRecv (stream 25,
 *    k >= 1) overlap; three flash-attn 2 backward kernels (dot_do_o, dq_dk_dv, convert_dq); the tail
 *    step N moves dK,dV only;
 *  - launches in program order (transfers first), correlation ids increasing; every rank runs each
 *    step at the same time plus a skew; steps are separated by a barrier;
 *  - filler: unrelated CPU ops, launches, GEMM / elementwise / AllReduce kernels and memcpys.
 * Kineto: one JSON per rank (plain or gzip), ts/dur in microseconds with 3 decimals relative to a
 * per-process baseTimeNanoseconds, distributedInfo before or after traceEvents (odd ranks after).
 * nsys: one SQLite script (every rank one process, one GPU; pid order != rank order), with the real
 * schema's tables and columns (CUPTI_ACTIVITY_KIND_KERNEL with StringIds names, RUNTIME, NVTX_EVENTS
 * eventType 59 with text or textId, TARGET_INFO_GPU, TARGET_INFO_SESSION_START_TIME, MPI_RANKS).
 */
#ifndef RS_IMPORT_FIXTURES_H
#define RS_IMPORT_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace.h"

typedef struct {
    int n_ranks;          /* N >= 2 */
    int n_layers;         /* ring passes of each kind */
    bool forward, backward;
    bool ranges;          /* a step range per step: record_function (Kineto) / NVTX push-pop (nsys) */
    bool nvtx_text_id;    /* nsys: range names as registered strings (textId) */
    bool mpi_ranks;       /* nsys: devices permuted, the ring order given by MPI_RANKS */
    bool one_process;     /* every rank a thread of one process driving N GPUs (ringsim exec
                           * --launch threads): one Kineto file, one nsys process */
    bool no_attention;    /* attention kernels get names no built-in pattern knows */
    int filler;           /* unrelated kernels (+ CPU ops) per step */
    int drop_comm_rank;   /* this rank loses its SendRecv kernels in drop_comm_step of the first */
    int drop_comm_step;   /*   forward pass (-1: none) */
    int short_rank;       /* this rank loses the last step of the first forward pass (-1: none) */
    uint64_t seed;        /* durations and skews */
} fx_opts_t;

/* N = 4, one layer, both passes, ranges, no faults, filler 3, seed 7. */
void fx_opts_default(fx_opts_t *o);

typedef struct {
    int rank, layer, step;   /* ring step (layer, step < 0 for filler) */
    int pass;                /* rs_pass_t */
    int role;                /* rs_kernel_role_t, or -1 for filler kernels */
    const char *name;        /* demangled name */
    const char *short_name;  /* nsys shortName */
    int64_t start_ns, end_ns;/* GPU execution, absolute ns */
    int64_t launch_ns;       /* host launch */
    int64_t corr;            /* correlation id (per process) */
    int stream;
} fx_kernel_t;

typedef struct {
    int rank, pass, layer, step;
    int64_t start_ns, end_ns;  /* host clock, absolute ns */
    char name[64];
} fx_range_t;

typedef struct {
    fx_opts_t o;
    fx_kernel_t *k;  /* in launch order per rank */
    size_t nk, ck;
    fx_range_t *g;
    size_t ng, cg;
} fx_run_t;

/* Build the run's timeline. 0 or -1 on OOM. */
int fx_generate(const fx_opts_t *o, fx_run_t *run);
void fx_free(fx_run_t *run);

/* Kineto: DIR/rankR.pt.trace.json (gzip: .json.gz), or DIR/process.pt.trace.json with one_process.
 * pad_bytes > 0: each file gets filler CPU events until it holds at least that many bytes
 * (benchmarks). 0 or -1. */
int fx_write_kineto(const fx_run_t *run, const char *dir, bool gzip, uint64_t pad_bytes);
/* nsys: the SQL script of the export (CREATE TABLE + INSERT). 0 or -1. */
int fx_write_nsys_sql(const fx_run_t *run, FILE *fp);
/* Execute an SQL script file into a new SQLite database (replaced). 0 or -1 (message on stderr). */
int fx_sql_to_sqlite(const char *sql_path, const char *db_path);

/* What the import must produce for (pass, layer): events from the ring kernels (compute = first to
 * last attention kernel, send/recv = the step's SendRecv kernels, step = their span; FLOPs, bytes,
 * peers from the schedule of p with n_ranks and pass set), times from the instance's earliest
 * kernel. Caller frees. NULL on error. */
rs_trace_t *fx_expected(const fx_run_t *run, int pass, int layer, const rs_problem_t *p);

#endif /* RS_IMPORT_FIXTURES_H */
