/* import_raw.h - private to traces/import*.c: the raw store, what a trace reader hands to the
 * assembly steps (defined in import_raw.c).
 *
 * A reader (import_kineto.c, import_nsys.c; import_readers.h) appends "raw ranks": the GPU kernels
 * of one process and device (execution interval, host launch time, launch order, stream, grid,
 * interned name, role), the arguments of its communication kernels (collective, process group,
 * messages, peers), its ring step ranges and ProfilerStep#N ranges, and what its header says (global
 * rank, world size, GPU). import_select.c narrows the kernels to what was asked for, import_groups.c
 * finds the ring's process group and order, import_steps.c assigns the kernels to ring steps,
 * import_checks.c checks them against the problem, and import.c turns them into traces (import.h).
 * Times are integer nanoseconds on the file's own clock, already shifted by the file's base (Kineto
 * baseTimeNanoseconds, nsys session start) so ranks align.
 */
#ifndef RS_IMPORT_RAW_H
#define RS_IMPORT_RAW_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "import.h"

#define RS_RAW_NO_TIME INT64_MIN /* launch_ns of a kernel whose launch was not recorded */
#define RS_RAW_NONE UINT32_MAX   /* no index */

typedef struct {
    int64_t start_ns;   /* GPU execution start */
    int64_t end_ns;     /* GPU execution end (>= start_ns) */
    int64_t launch_ns;  /* host launch (runtime API call) time, or RS_RAW_NO_TIME */
    int64_t order;      /* launch order: the CUPTI correlation id, or -1 when unknown */
    int64_t device;     /* CUDA device id */
    int64_t stream;     /* CUDA stream id */
    int32_t grid[3];    /* launch grid (0 when not recorded) */
    uint32_t name;      /* index into rs_raw_t names */
    uint32_t comm;      /* communication kernels: index into rs_raw_t comms, RS_RAW_NONE without arguments */
    uint8_t role;       /* rs_kernel_role_t */
} rs_raw_kernel_t;

/* What a communication kernel's arguments say (Kineto: the NCCL kernel's "Collective name", "Process
 * Group Name" / "Ranks", "In msg nelems", "dtype", "Dst Rank" / "Src Rank"; for a coalesced batch of
 * point-to-point operations, whose kernel carries no arguments, the record_param_comms send / recv
 * operations its thread queued since its previous NCCL launch). */
typedef enum {
    RS_COLL_P2P = 0, RS_COLL_ALL_TO_ALL, RS_COLL_ALL_GATHER, RS_COLL_REDUCE_SCATTER, RS_COLL_ALL_REDUCE,
    RS_COLL_BROADCAST, RS_COLL_OTHER, RS_COLL_COUNT
} rs_coll_t;
/* "p2p" "all_to_all" "all_gather" "reduce_scatter" "all_reduce" "broadcast" "other" */
const char *rs_coll_name(rs_coll_t c);
/* The kind of a PyTorch collective name ("send", "recv", "all_to_allv", "_allgather_base", ...). */
rs_coll_t rs_coll_of_name(const char *name);

typedef struct {
    uint32_t group;          /* index into rs_raw_t groups, RS_RAW_NONE when not said */
    uint32_t name;           /* interned collective name ("send", "all_to_all", ...), RS_RAW_NONE */
    int8_t coll;             /* rs_coll_t */
    int32_t n_send, n_recv;  /* p2p messages sent / received by the kernel */
    int32_t send_peer;       /* global rank its (last) send goes to, -1 unknown */
    int32_t recv_peer;       /* global rank its (last) receive comes from, -1 unknown */
    int64_t send_bytes;      /* bytes of its sends (p2p) or of its input message (collectives); -1 unknown */
    int64_t recv_bytes;      /* bytes of its receives (p2p) or of its output message; -1 unknown */
} rs_raw_comm_t;

/* A process group: its name, description and global ranks in group order. */
typedef struct {
    char *name;
    char *desc;
    int32_t *ranks;
    int n;
} rs_raw_group_t;

enum { RS_RANGE_STEP = 0, RS_RANGE_PROFILER = 1 };

typedef struct {
    int64_t start_ns;   /* range start, host clock (same clock as kernels in these files) */
    int64_t end_ns;     /* range end */
    uint32_t name;      /* index into rs_raw_t names */
    int32_t step;       /* step index parsed from the name (ProfilerStep#N: N) */
    int8_t pass_hint;   /* RS_PASS_FORWARD / RS_PASS_BACKWARD from the name, -1 when it says neither */
    uint8_t kind;       /* RS_RANGE_STEP or RS_RANGE_PROFILER */
} rs_raw_range_t;

typedef struct {
    char *file;            /* the file it came from (owned) */
    int64_t proc;          /* process id (nsys) or -1 */
    int64_t rank_key;      /* the process's global rank when known (distributedInfo.rank, MPI_RANKS), else -1 */
    int64_t world_size;    /* distributedInfo.world_size, -1 unknown */
    int64_t device;        /* CUDA device of its kernels (-1 unknown) */
    uint32_t gpu;          /* interned GPU name of its device, RS_RAW_NONE unknown */
    size_t n_cpu_ops;      /* CPU operator events its file holds (for messages on files without kernels) */
    rs_raw_kernel_t *k;    /* [nk] its kernels, in file order */
    size_t nk, ck;
    rs_raw_range_t *r;     /* [nr] ring step ranges */
    size_t nr, cr;
    rs_raw_range_t *ps;    /* [nps] ProfilerStep#N ranges */
    size_t nps, cps;
} rs_raw_rank_t;

typedef struct {
    char **names;          /* interned strings (kernel, range, collective and GPU names) */
    int16_t *roles;        /* [n_names] kernel role of each name (classified once) */
    uint32_t n_names, cap_names;
    uint32_t *hash;        /* open-addressing table of name indices + 1 (0 = empty) */
    uint32_t cap_hash;     /* power of two */
    rs_raw_rank_t *ranks;  /* [n_ranks] */
    size_t n_ranks, cap_ranks;
    rs_raw_comm_t *comms;  /* [n_comms] communication kernels' arguments, all ranks */
    size_t n_comms, cap_comms;
    rs_raw_group_t *groups; /* [n_groups] process groups seen */
    size_t n_groups, cap_groups;
    char **notes;          /* [n_notes] what was skipped or chosen, for the user (owned) */
    size_t n_notes, cap_notes;
    rs_kclass_t *kc;       /* kernel classifier (owned) */
    regex_t step_re;       /* step range pattern (REG_EXTENDED | REG_ICASE) */
    char gpu_name[128];    /* first GPU name seen ("" unknown) */
} rs_raw_t;

/* Empty store with the classifier of the extra role patterns (import.h rs_kclass_create; NULL = none)
 * and the step range pattern step_regex (NULL = RS_IMPORT_STEP_REGEX). 0, or -1 with err naming
 * --role-regex or --step-regex (bad pattern, no group around the step number) or OOM; then nothing
 * is left to free. */
int rs_raw_init(rs_raw_t *raw, const char *const extra[RS_ROLE_COUNT], const char *step_regex, rs_err_t *err);
/* Free what one rank holds (its file name, kernels, ranges, profiler steps). Can't fail. */
void rs_raw_rank_free(rs_raw_rank_t *r);
/* Free everything raw holds (the names too, unless taken). Can't fail. */
void rs_raw_free(rs_raw_t *raw);
/* Hand the interned names to the caller (*n_names of them; free each, then the array); raw keeps
 * none. Can't fail. */
char **rs_raw_take_names(rs_raw_t *raw, uint32_t *n_names);

/* Intern s[0..len) (kernel names are classified on first sight). Returns the index, or UINT32_MAX
 * on OOM. */
uint32_t rs_raw_intern(rs_raw_t *raw, const char *s, size_t len);
/* Role of interned name i (rs_kernel_role_t). */
static inline int rs_raw_role(const rs_raw_t *raw, uint32_t i) { return raw->roles[i]; }
/* If name is a ring step range, fill step and pass_hint and return 1; else 0. */
int rs_raw_step_range(const rs_raw_t *raw, const char *name, int32_t *step, int8_t *pass_hint);
/* If name is "ProfilerStep#N", set *n and return 1; else 0. */
int rs_raw_profiler_step(const char *name, int32_t *n);
/* What a range named name is: a ProfilerStep#N (kind RS_RANGE_PROFILER, step N) or a ring step
 * (RS_RANGE_STEP, its step and pass hint) into g's step, pass_hint and kind, returning 1; 0 when it
 * is neither (g untouched). */
int rs_raw_range_kind(const rs_raw_t *raw, const char *name, rs_raw_range_t *g);

/* New raw rank for file (copied). NULL on OOM. The pointer stays valid until the next call. */
rs_raw_rank_t *rs_raw_add_rank(rs_raw_t *raw, const char *file);
/* Append *x (size bytes) to the growable array (*v, *n, *cap). 0 or -1 on OOM. */
int rs_raw_grow(void **v, size_t *n, size_t *cap, size_t size, const void *x);
/* Append to a rank. 0 or -1 on OOM. */
int rs_raw_add_kernel(rs_raw_rank_t *r, const rs_raw_kernel_t *k);
int rs_raw_add_range(rs_raw_rank_t *r, const rs_raw_range_t *g);
/* Append a communication kernel's arguments; returns its index, RS_RAW_NONE on OOM. */
uint32_t rs_raw_add_comm(rs_raw_t *raw, const rs_raw_comm_t *c);
/* The group named name with these global ranks (n of them; desc may be NULL), added on first sight.
 * Returns its index, RS_RAW_NONE on OOM. */
uint32_t rs_raw_group(rs_raw_t *raw, const char *name, const char *desc, const int32_t *ranks, int n);
/* Parse a rank list as Kineto writes it ("[0, 1, 2]", also "0,1,2" and ranges "0-7"): at most cap
 * ranks into out. Returns the count, or -1 when the text is not such a list or holds more. */
int rs_raw_parse_ranks(const char *s, int32_t *out, int cap);
/* A note for the user (printf-style; printed by the command on stderr). 0 or -1 on OOM. */
int rs_raw_note(rs_raw_t *raw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Bytes of one element of a PyTorch dtype name as Kineto writes it ("Float", "BFloat16", "Half",
 * "Long", ...), 0 when unknown. */
int rs_raw_dtype_bytes(const char *dtype);

#endif /* RS_IMPORT_RAW_H */
