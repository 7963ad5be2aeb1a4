/* import.h - read GPU traces of a real ring-attention run into ringsim's trace schema (trace.h).
 *
 * Inputs (docs/import.md):
 *  - PyTorch profiler / Kineto Chrome-trace JSON, one file per rank (plain or gzip; CUDA or ROCm), the
 *    format torch.profiler's export_chrome_trace writes: GPU kernels and memcpy/memset (ts/dur in
 *    microseconds, args stream/correlation/device/grid, and an NCCL kernel's collective arguments),
 *    runtime launches, record_param_comms operations, record_function ranges (step ranges,
 *    ProfilerStep#N), distributedInfo (rank, world size, process groups), deviceProperties. Parsed as a
 *    stream (yajl): memory grows with the kernels kept, not with the file.
 *  - Nsight Systems SQLite exports (`nsys export --type sqlite`): CUPTI_ACTIVITY_KIND_KERNEL (ns
 *    integers, names through StringIds), CUPTI_ACTIVITY_KIND_RUNTIME, NVTX_EVENTS, TARGET_INFO_GPU,
 *    MPI_RANKS. One file may hold every rank (one process per GPU) or one.
 *  - rocprofv3 kernel traces (`rocprofv3 --kernel-trace --output-format csv`, PREFIX_kernel_trace.csv),
 *    one file per process: columns by header name (Agent_Id, Queue_Id / Stream_Id, Correlation_Id,
 *    Kernel_Name, Start_Timestamp / End_Timestamp in ns, grid and workgroup sizes); one rank per agent.
 *
 * Kernels by name (docs/import.md section 3): attention (FlashAttention 2/3/4, cuDNN and
 * TransformerEngine fused attention, PyTorch's memory-efficient, composable_kernel / aiter, Triton,
 * flashinfer, ringsim's own), communication (NCCL, RCCL, MSCCL), and the rest of a step's compute:
 * merges / corrections, casts / copies, other. The ring's traffic: the point-to-point kernels of the
 * ring's process group (from the NCCL kernels' arguments where the trace has them).
 *
 * Steps: a kernel belongs to the step range (NVTX or record_function range whose name matches the
 * step pattern, e.g. "ring_step 3") that contains its launch; without step ranges, steps follow the
 * launch order of the ring's p2p groups and attention kernels on each rank, the other kernels of the
 * compute streams going to the step they are launched in. N is the ring group's size; the pass comes
 * from the kernel names (fwd/bwd); the problem (S, heads, head_dim, layout, causal, dtype, tile) is
 * given and written into the header, and checked against what the trace shows (message sizes, the
 * kernels' grid and template arguments, which steps compute, world size, GPU).
 *
 * Output: one rs_trace_t per pass imported (source "import"): per (rank, step) a compute event
 * (first to last compute kernel of the step; FLOPs from the schedule) with a role event per role
 * (attention, merge, cast, other: span and busy time), send and recv events (first to last
 * point-to-point kernel; bytes from the messages where the trace says them, else the schedule's;
 * peers from the schedule) and a step event (the span of the step's kernels). Times in seconds from
 * the pass's earliest kernel over all ranks. Behind every event: the kernel intervals
 * (rs_import_kernels), for calibration from a trace.
 */
#ifndef RS_IMPORT_H
#define RS_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"
#include "trace.h"
#include "util.h"

/* ---------------------------------------------------------------------------------------------------
 * Kernel names
 * ------------------------------------------------------------------------------------------------- */
typedef enum {
    RS_KROLE_ATTN_FWD = 0, /* forward attention kernel */
    RS_KROLE_ATTN_BWD,     /* backward attention kernel */
    RS_KROLE_SENDRECV,     /* NCCL/RCCL kernel carrying point-to-point sends and receives */
    RS_KROLE_SEND,         /* ... sends only */
    RS_KROLE_RECV,         /* ... receives only */
    RS_KROLE_MERGE,        /* merge / correction of partial results (out, lse, dq, dk, dv) */
    RS_KROLE_CAST,         /* cast, copy, fill, memcpy, memset */
    RS_KROLE_OTHER,        /* any other compute kernel (GEMM, norm, ...) */
    RS_KROLE_XCOMM,        /* communication that is not the ring's: collectives, all_to_all, another group's p2p */
    RS_KROLE_COUNT
} rs_kernel_role_t;
/* "attn-fwd" "attn-bwd" "sendrecv" "send" "recv" "merge" "cast" "other" "other-comm" */
const char *rs_kernel_role_name(rs_kernel_role_t r);

typedef struct rs_kclass rs_kclass_t; /* compiled name patterns */

/* Built-in patterns plus extra ones (POSIX ERE matched anywhere in the demangled name, NULL = none):
 * extra[RS_ROLE_ATTN] more attention kernels (backward when the name contains bwd, backward, bprop
 * or grad in any case, else forward), extra[RS_ROLE_MERGE|CAST|OTHER] more kernels of that role;
 * the extra patterns are tried before the built-in ones of the compute roles. NULL with err naming
 * --role-regex (or --kernel-regex for the attention pattern) on a bad pattern or OOM. */
rs_kclass_t *rs_kclass_create(const char *const extra[RS_ROLE_COUNT], rs_err_t *err);
void rs_kclass_free(rs_kclass_t *c);
/* Role of a kernel name: attention, an NCCL/RCCL/MSCCL kernel (by its name: SendRecv, Send, Recv, a
 * collective; RCCL's Generic kernel counts as SendRecv until its arguments say otherwise), or a
 * compute role (merge, cast, other). Can't fail. */
int rs_kclass_role(const rs_kclass_t *c, const char *name);
/* A communication kernel's role (SENDRECV, SEND, RECV, COLL). */
static inline bool rs_krole_is_comm(int role) { return (role >= RS_KROLE_SENDRECV && role <= RS_KROLE_RECV) || role == RS_KROLE_XCOMM; }

/* Default step-range pattern (POSIX ERE, case-insensitive): the number after "step" in a name
 * containing "ring", e.g. "ring_step 3", "ring-attn fwd step=3". */
#define RS_IMPORT_STEP_REGEX "ring.*step[^0-9]*([0-9]+)"

/* ---------------------------------------------------------------------------------------------------
 * Import
 * ------------------------------------------------------------------------------------------------- */
typedef enum { RS_IMPORT_AUTO = 0, RS_IMPORT_KINETO, RS_IMPORT_NSYS, RS_IMPORT_ROCPROF } rs_import_format_t;
const char *rs_import_format_name(rs_import_format_t f); /* "auto" | "kineto" | "nsys" | "rocprof" */

typedef struct {
    rs_import_format_t format;   /* AUTO: by content (SQLite magic, JSON (gzip or not), a CSV header with Kernel_Name) */
    const char *kernel_regex;    /* extra attention kernels (POSIX ERE), NULL = none (as role_regex[RS_ROLE_ATTN]) */
    const char *role_regex[RS_ROLE_COUNT]; /* extra names per role (POSIX ERE), NULL = none (--role-regex ROLE=RE) */
    const char *step_regex;      /* step ranges: POSIX ERE, case-insensitive; the last group that
                                  * matched is the step number. NULL = RS_IMPORT_STEP_REGEX */
    bool use_ranges;             /* false: ignore step ranges, assign steps by launch order */
    int occurrence;              /* which ring pass of each kind to import, 0 = the first */
    int layer;                   /* >= 0: the ring pass of each kind inside the profiler step (--layer) */
    int profiler_step;           /* >= 0: only the kernels launched inside ProfilerStep#N */
    double window_s[2];          /* window_s[1] > window_s[0]: only kernels starting in [T0, T1) s from
                                  * the traces' first kernel */
    const char *group;           /* the ring's process group: name or rank list; NULL = the group with the
                                  * most point-to-point kernels */
    int n_passes;                /* passes asked for; 0 = every pass found */
    rs_pass_t passes[RS_PASS_COUNT];
    rs_problem_t problem;        /* the traced problem; n_ranks and pass are set per import */
    bool check_ranks;            /* problem.n_ranks was given: the trace must have that many ranks */
} rs_import_opts_t;

/* Defaults: auto format, no extra regex, default step pattern, ranges used, occurrence 0, no layer,
 * profiler step or window, the default group, every pass, rs_problem_default(). Can't fail. */
void rs_import_opts_default(rs_import_opts_t *o);

typedef struct {
    double start_s;          /* on the imported trace's clock (same origin as its events) */
    double end_s;
    const char *name;        /* demangled kernel name (owned by the import) */
    rs_kernel_role_t role;   /* attention, transfer, merge, cast, other */
    int64_t device;          /* CUDA device id */
    int64_t stream;          /* CUDA stream id */
    int64_t bytes_sent;      /* ring transfers: bytes its messages send (its arguments), -1 unknown */
    int64_t bytes_received;  /* ... receive, -1 unknown */
} rs_import_kernel_t;

typedef struct {
    rs_import_format_t format;       /* what was read */
    size_t n_files;                  /* files read */
    int n_ranks;                     /* N: ranks found */
    bool ranges;                     /* steps came from step ranges (else from launch order) */
    int occurrences[RS_PASS_COUNT];  /* ring passes found per pass (every rank has as many) */
    int occurrence;                  /* the ring pass imported (--occurrence or --layer) */
    size_t n_kernels;                /* kernels of the ring's ranks after the selection */
    char gpu_name[128];              /* GPU name from the trace, "" if none */
    char group[200];                 /* the ring's process group ("'1' (cp) [0, 2, 4, 6]"), "" if the trace names none */
    int64_t world_size;              /* the run's world size (distributedInfo), -1 unknown */
    size_t n_notes;                  /* notes for the user: files skipped, the group chosen, ... */
    const char *const *notes;
} rs_import_info_t;

typedef struct rs_import rs_import_t;

/* Read paths (files, or directories searched recursively for *.json, *.json.gz, *.sqlite and
 * *kernel_trace.csv files, in
 * natural order; a file there that is not a trace is skipped with a note) and build one trace per
 * pass. Ring rank = position of the process in the ring order: the ring's process group's rank
 * list when the trace names it, else Kineto distributedInfo.rank or nsys MPI_RANKS when every process
 * has one, else (device, process) order within a file and file order across files. Bad input
 * (unreadable, truncated or non-JSON file, SQLite without the kernel table, no attention kernel,
 * traces of different runs, a missing rank of the ring's group, ranks with different step counts, a
 * step without the transfer the schedule needs, a problem the trace contradicts, a bad option, ...):
 * NULL with err "FILE: what is wrong, what was seen" and err.code RS_ERR_BAD_INPUT; OOM or a failed
 * read: NULL with RS_ERR_RUNTIME. */
rs_import_t *rs_import_read(const char *const *paths, size_t n_paths, const rs_import_opts_t *o,
                            rs_err_t *err);
/* The files rs_import_read() considers for paths: files as given, directories expanded recursively
 * (natural order: rank2 before rank10). Returns the count and *out (malloc'd strings in a malloc'd
 * array: free each, then the array), or -1 with err naming the path. */
long rs_import_list_files(const char *const *paths, size_t n_paths, char ***out, rs_err_t *err);
void rs_import_free(rs_import_t *im);

const rs_import_info_t *rs_import_info(const rs_import_t *im);
/* Traces built (one per pass, forward first). */
size_t rs_import_n_traces(const rs_import_t *im);
const rs_trace_t *rs_import_trace(const rs_import_t *im, size_t i);
/* Kernels behind (rank, step) of trace i, sorted by start: the compute kernels of its compute event
 * (attention, merge, cast, other) and the ring's point-to-point kernels of its send/recv events. *out
 * valid until rs_import_free().
 * Returns the count (0 when the step has none or does not exist). */
size_t rs_import_kernels(const rs_import_t *im, size_t i, int32_t rank, int32_t step,
                         const rs_import_kernel_t **out);
/* The kernels of trace i as CSV (rank,step,pass,role,device,stream,start_s,end_s,name; name quoted),
 * atomically. 0 or -1 with err naming the path. */
int rs_import_write_kernels_csv(const rs_import_t *im, size_t i, const char *path, rs_err_t *err);

/* Kineto export of a ringsim trace: DIR/rankR.pt.trace.json per rank, as torch.profiler writes
 * them: compute events become ringsim's attention kernels (attn_fwd_mma / attn_bwd_mma), send/recv
 * events one ncclDevKernel_SendRecv kernel (or a Send and a Recv kernel when their spans differ),
 * each with its cuda_runtime launch, correlation ids in launch order (transfers before compute), ac2g
 * flows, and a record_function range "ringsim PASS step K" per step; the device's name is the
 * trace's hw (the profile it was made for; "ringsim export" when it has none). Importing the export
 * gives the trace back (to 1 ns). Creates DIR if missing; each file written atomically. 0 or -1 with err. */
int rs_import_export_kineto(const rs_trace_t *t, const char *dir, rs_err_t *err);

#endif /* RS_IMPORT_H */
