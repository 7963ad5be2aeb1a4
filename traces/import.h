/* import.h - read GPU traces of a real ring-attention run into ringsim's trace schema (trace.h).
 *
 * Inputs (docs/import.md):
 *  - PyTorch profiler / Kineto Chrome-trace JSON, one file per rank (plain or gzip), the format
 *    torch.profiler's export_chrome_trace writes: GPU kernels (cat "kernel", ts/dur in microseconds,
 *    args stream/correlation/device), CUDA runtime launches (cat "cuda_runtime"), record_function
 *    ranges (cat "user_annotation", "gpu_user_annotation"). Parsed as a stream (yajl): memory grows
 *    with the kernels kept, not with the file.
 *  - Nsight Systems SQLite exports (`nsys export --type sqlite`): CUPTI_ACTIVITY_KIND_KERNEL (ns
 *    integers, names through StringIds), CUPTI_ACTIVITY_KIND_RUNTIME, NVTX_EVENTS, TARGET_INFO_GPU,
 *    MPI_RANKS. One file may hold every rank (one process per GPU) or one.
 *
 * Kernels: attention kernels are recognised by name (flash-attn 2/3, cuDNN / TransformerEngine fused
 * attention, PyTorch's memory-efficient attention, ringsim's own; plus an optional extra POSIX ERE),
 * transfers by NCCL's SendRecv kernels (ncclDevKernel_SendRecv, ncclKernel_SendRecv_*, and Send-only
 * / Recv-only variants). Everything else in the trace is ignored.
 *
 * Steps: a kernel belongs to the step range (NVTX or record_function range whose name matches the
 * step pattern, e.g. "ring_step 3") that contains its launch; without step ranges, steps follow the
 * launch order of SendRecv groups and attention kernels on each rank (docs/import.md gives the exact
 * rules). N is the number of ranks; the pass comes from the kernel names (fwd/bwd); the problem
 * (S, heads, head_dim, layout, causal, dtype, tile) is given and written into the header. Each step
 * is checked against ringsim's schedule for that problem (which steps transfer, the backward's tail).
 *
 * Output: one rs_trace_t per pass imported (source "import"): per (rank, step) a compute event
 * (first to last attention kernel; FLOPs from the schedule), send and recv events (first to last
 * SendRecv kernel; bytes and peer from the schedule) and a step event (the span of the step's
 * kernels). Times in seconds from the pass's earliest kernel over all ranks. Behind every event: the
 * kernel intervals (rs_import_kernels), for calibration from a trace.
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
    RS_KROLE_SENDRECV,     /* NCCL kernel carrying sends and receives */
    RS_KROLE_SEND,         /* NCCL send-only kernel */
    RS_KROLE_RECV,         /* NCCL receive-only kernel */
    RS_KROLE_COUNT
} rs_kernel_role_t;
const char *rs_kernel_role_name(rs_kernel_role_t r); /* "attn-fwd" "attn-bwd" "sendrecv" "send" "recv" */

typedef struct rs_kclass rs_kclass_t; /* compiled name patterns */

/* Built-in patterns plus extra_regex (POSIX ERE matched against the whole demangled name, NULL =
 * none; its kernels are backward when the name contains bwd, backward, bprop or grad in any case,
 * else forward). NULL with err naming --kernel-regex on a bad pattern or OOM. */
rs_kclass_t *rs_kclass_create(const char *extra_regex, rs_err_t *err);
void rs_kclass_free(rs_kclass_t *c);
/* Role of a kernel name, or -1 when it is neither attention nor a SendRecv kernel. Can't fail. */
int rs_kclass_role(const rs_kclass_t *c, const char *name);

/* Default step-range pattern (POSIX ERE, case-insensitive): the number after "step" in a name
 * containing "ring", e.g. "ring_step 3", "ring-attn fwd step=3". */
#define RS_IMPORT_STEP_REGEX "ring.*step[^0-9]*([0-9]+)"

/* ---------------------------------------------------------------------------------------------------
 * Import
 * ------------------------------------------------------------------------------------------------- */
typedef enum { RS_IMPORT_AUTO = 0, RS_IMPORT_KINETO, RS_IMPORT_NSYS } rs_import_format_t;
const char *rs_import_format_name(rs_import_format_t f); /* "auto" | "kineto" | "nsys" */

typedef struct {
    rs_import_format_t format;   /* AUTO: by content (SQLite magic, else JSON, gzip or not) */
    const char *kernel_regex;    /* extra attention kernels (POSIX ERE), NULL = none */
    const char *step_regex;      /* step ranges: POSIX ERE, case-insensitive; the last group that
                                  * matched is the step number. NULL = RS_IMPORT_STEP_REGEX */
    bool use_ranges;             /* false: ignore step ranges, assign steps by launch order */
    int occurrence;              /* which ring pass of each kind to import, 0 = the first */
    int n_passes;                /* passes asked for; 0 = every pass found */
    rs_pass_t passes[RS_PASS_COUNT];
    rs_problem_t problem;        /* the traced problem; n_ranks and pass are set per import */
    bool check_ranks;            /* problem.n_ranks was given: the trace must have that many ranks */
} rs_import_opts_t;

/* Defaults: auto format, no extra regex, default step pattern, ranges used, occurrence 0, every
 * pass, rs_problem_default(). Can't fail. */
void rs_import_opts_default(rs_import_opts_t *o);

typedef struct {
    double start_s;          /* on the imported trace's clock (same origin as its events) */
    double end_s;
    const char *name;        /* demangled kernel name (owned by the import) */
    rs_kernel_role_t role;   /* attention or transfer */
    int64_t device;          /* CUDA device id */
    int64_t stream;          /* CUDA stream id */
} rs_import_kernel_t;

typedef struct {
    rs_import_format_t format;       /* what was read */
    size_t n_files;                  /* files read */
    int n_ranks;                     /* N: ranks found */
    bool ranges;                     /* steps came from step ranges (else from launch order) */
    int occurrences[RS_PASS_COUNT];  /* ring passes found per pass (every rank has as many) */
    size_t n_kernels;                /* attention + SendRecv kernels read over all ranks */
    char gpu_name[128];              /* GPU name from the trace, "" if none */
} rs_import_info_t;

typedef struct rs_import rs_import_t;

/* Read paths (files, or directories: their *.json, *.json.gz, *.sqlite files in name order) and
 * build one trace per pass. Ring rank = position of the process in the ring order: Kineto
 * distributedInfo.rank or nsys MPI_RANKS when every process has one, else (device, process) order
 * within a file and file order across files. Bad input (unreadable, truncated or non-JSON file,
 * SQLite without the kernel table, no attention kernel, ranks with different step counts, a step
 * without the SendRecv the schedule needs, a bad option, ...): NULL with err "FILE: what is
 * missing" and err.code RS_ERR_BAD_INPUT; OOM or a failed read: NULL with RS_ERR_RUNTIME. */
rs_import_t *rs_import_read(const char *const *paths, size_t n_paths, const rs_import_opts_t *o,
                            rs_err_t *err);
/* The files rs_import_read() reads for paths: files as given, directories expanded (natural order:
 * rank2 before rank10). Returns the count and *out (malloc'd strings in a malloc'd array: free
 * each, then the array), or -1 with err naming the path. */
long rs_import_list_files(const char *const *paths, size_t n_paths, char ***out, rs_err_t *err);
void rs_import_free(rs_import_t *im);

const rs_import_info_t *rs_import_info(const rs_import_t *im);
/* Traces built (one per pass, forward first). */
size_t rs_import_n_traces(const rs_import_t *im);
const rs_trace_t *rs_import_trace(const rs_import_t *im, size_t i);
/* Kernels behind (rank, step) of trace i, sorted by start: the attention kernels of its compute
 * event and the SendRecv kernels of its send/recv events. *out valid until rs_import_free().
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
