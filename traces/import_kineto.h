/* import_kineto.h - private to traces/import_kineto*.c: the state of one Kineto file's parse
 * (import_kineto.c, the yajl callbacks) and what becomes of it (import_kineto_file.c: the
 * communication arguments, the record_param_comms operations of coalesced point-to-point kernels,
 * the header's groups and devices, launches matched, one raw rank per device). */
#ifndef RS_IMPORT_KINETO_H
#define RS_IMPORT_KINETO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "import_readers.h"
#include "import_value.h"

#define RS_KMAX_GROUP 4096 /* ranks of a process group the reader keeps */

/* The keys of an event's args the reader knows (AK_OTHER: any other). */
enum {
    AK_OTHER = 0, AK_STREAM, AK_CORR, AK_DEVICE, AK_GRID, AK_BLOCK, AK_COLL, AK_PG_NAME, AK_PG_DESC, AK_PG_RANKS, AK_IN_NELEMS,
    AK_OUT_NELEMS, AK_GROUP_SIZE, AK_DTYPE, AK_SRC, AK_DST, AK_IN_SPLIT, AK_OUT_SPLIT, AK_COUNT
};

typedef struct {
    char *s;
    size_t len, cap;
} rs_kbuf_t;

/* Copy s[0..len) into the growable buffer b (NUL-terminated). 0 or -1 on OOM. */
int rs_kbuf_set(rs_kbuf_t *b, const unsigned char *s, size_t len);

typedef struct {
    int64_t corr;      /* correlation id */
    int64_t ts_ns;     /* host launch time (relative to the file's base) */
    int64_t tid;       /* launching thread, -1 unknown */
} rs_klaunch_t;

typedef struct {
    rs_raw_range_t g;  /* times relative to the file's base */
    int64_t tid;       /* its thread */
} rs_krange_t;

typedef struct {
    rs_raw_kernel_t k; /* times relative to the file's base */
    int64_t tid;       /* launching thread (after the launches are matched), -1 unknown */
} rs_kkernel_t;

/* A record_param_comms send or recv on a CPU thread: one message of the next coalesced kernel. */
typedef struct {
    int64_t ts_ns, tid;
    bool is_send;
    int32_t peer;      /* global rank, -1 unknown */
    int64_t bytes;     /* -1 unknown */
    uint32_t group;    /* raw group, RS_RAW_NONE */
} rs_kp2p_t;

/* The most ranks the file's arguments need (a peer or a listed rank r needs r + 1, a group size n
 * needs n), checked against distributedInfo.world_size once the whole file is read (the header may
 * come after the events). */
typedef struct {
    int64_t need;      /* 0: none yet */
    int64_t at;        /* its event index, -1 the header */
    char what[96];     /* "args.Dst Rank 9", "args.Process Group Ranks (rank 9)", "args.Group size 9" */
    bool size;         /* a group size, not a rank */
} rs_kneed_t;

/* The last group an event named (its name, description and rank text) and its index: NCCL kernels
 * name the same few groups over and over (group RS_RAW_NONE: none yet). */
typedef struct {
    rs_kbuf_t name, desc, ranks;
    uint32_t group;
} rs_klast_group_t;

typedef struct {
    int64_t id;        /* deviceProperties id */
    uint32_t name;     /* interned name */
} rs_kdev_t;

typedef struct {
    rs_raw_t *raw;
    const char *path;
    rs_err_t *err;         /* a refused value (failed set) */
    int depth;             /* nesting depth: 1 = top object */
    int top_key, ev_key, arg_key, sub_key, pg_key, dev_key;
    bool saw_events, oom, failed;
    int64_t ev_index;      /* index of the current traceEvents entry */
    rs_vspan_t span;       /* of the kept kernels (times relative to the base) */
    int64_t base_ns;       /* baseTimeNanoseconds (0 when absent) */
    int64_t dist_rank;     /* distributedInfo.rank, -1 when absent */
    int64_t world_size;    /* distributedInfo.world_size, -1 when absent */
    size_t n_cpu_ops;      /* cpu_op events */
    /* the current event */
    char ph[4], cat[32];
    rs_kbuf_t name;
    rs_jv_t ts_v, dur_v;   /* its ts and dur as written, validated when the event is kept */
    rs_jv_t arg_v[AK_COUNT]; /* its args as written (the type and literal of each known key) */
    rs_jv_dim3_t grid_v, block_v; /* its args.grid and args.block as written */
    int64_t ts_ns, dur_ns, pid, tid, stream, corr, device;
    bool pid_num, tid_num, has_stream, has_corr, has_device;
    int32_t grid[3];
    struct {               /* its collective arguments (text as written; numbers once validated, -1 absent) */
        rs_kbuf_t coll, pg_name, pg_desc, pg_ranks, in_split, out_split;
        char dtype[24];
        int64_t in_nelems, out_nelems, src, dst;
    } ev;
    rs_klast_group_t last_group;
    rs_kneed_t need;       /* ranks the arguments need */
    /* the current distributedInfo.pg_config entry (pg_i: its index) */
    rs_kbuf_t pg_name, pg_desc, pg_rank_text;
    int32_t pg_ranks[RS_KMAX_GROUP];
    int pg_n, pg_i;
    char pg_bad[64];       /* a ranks entry that is no rank, as written ("" none) */
    bool pg_over;          /* more ranks than RS_KMAX_GROUP */
    rs_jv_t dist_v[2];     /* distributedInfo.rank and .world_size as written */
    /* the current deviceProperties entry, and the devices seen */
    int64_t dev_id;
    rs_kbuf_t dev_name;
    rs_kdev_t *devs;
    size_t n_devs, cap_devs;
    /* kept events */
    rs_klaunch_t *launch;
    size_t n_launch, cap_launch;
    rs_kkernel_t *kern;
    size_t n_kern, cap_kern;
    rs_krange_t *rng;
    size_t n_rng, cap_rng;
    rs_kp2p_t *p2p;
    size_t n_p2p, cap_p2p;
} rs_kparse_t;

/* The current kernel event's collective arguments (validated: import_value.h) into a raw comm entry of
 * x (x->comm, x->role: send, recv, a single-peer all_to_all (a rotation: SendRecv) or another
 * communication). 0, or -1 on OOM or with k->err for a refused argument (k->failed). */
int rs_kineto_comm_args(rs_kparse_t *k, rs_raw_kernel_t *x);
/* The current record_param_comms event, a send or a recv (its collective name is point-to-point: the
 * caller checked), kept. 0, or -1 as rs_kineto_comm_args. */
int rs_kineto_p2p_op(rs_kparse_t *k);
/* The deviceProperties entry just parsed. 0 or -1 on OOM. */
int rs_kineto_devprop(rs_kparse_t *k);
/* The distributedInfo.pg_config entry just parsed, as a raw group (its ranks validated). 0, or -1 as
 * rs_kineto_comm_args. */
int rs_kineto_pg_config(rs_kparse_t *k);
/* distributedInfo.rank and .world_size (each optional) into k->dist_rank, k->world_size, then the
 * ranks the file's arguments name against the world size (when given). 0, or -1 with k->err. */
int rs_kineto_check_world(rs_kparse_t *k);
/* After the parse: shift by the base, match launches by correlation id, give coalesced point-to-point
 * kernels their queued messages, and split the file into raw ranks, one per CUDA device. 0, or -1 on
 * OOM or kernels on more than 64 devices. */
int rs_kineto_finish(rs_kparse_t *k);
/* Free what the parse holds. Can't fail. */
void rs_kineto_parse_free(rs_kparse_t *k);

#endif /* RS_IMPORT_KINETO_H */
