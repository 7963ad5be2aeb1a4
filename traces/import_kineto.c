/* import_kineto.c - the reader of PyTorch profiler / Kineto Chrome-trace JSON (import_readers.h): a
 * streaming parse (yajl, through zlib so .json.gz reads the same) that keeps the GPU kernels (and
 * memcpy / memset activities), their launches, the NCCL kernels' arguments and the record_param_comms
 * point-to-point operations, the step and ProfilerStep ranges and the header's distributed info,
 * into the raw store (import_raw.h); import_kineto_file.c turns one parsed file into raw ranks. The
 * other direction, a ringsim trace as Kineto files, is kineto_export.c.
 *
 * The format, as libkineto's ChromeTraceLogger writes it (PyTorch 2.x):
 *   {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", ...}],
 *    "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8, "pg_count": 2,
 *                        "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "pg_size": 8, "ranks": [0, ...]}]},
 *    "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000,
 *    "traceEvents": [
 *      {"ph": "X", "cat": "kernel", "name": "void flash_fwd_kernel<...>(Flash_fwd_params)", "pid": 0, "tid": 7,
 *       "ts": 5029783.925, "dur": 412.160, "args": {"External id": 29, "device": 0, "stream": 7,
 *       "correlation": 312, "grid": [64, 1, 32], ...}},
 *      {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv(...)", ..., "args": {..., "Collective name": "send",
 *       "In msg nelems": 8388608, "Out msg nelems": 8388608, "Group size": 4, "dtype": "BFloat16",
 *       "Process Group Name": "1", "Process Group Description": "cp", "Process Group Ranks": "[0, 2, 4, 6]",
 *       "Dst Rank": "2"}},
 *      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": ...,
 *       "args": {"cbid": 211, "correlation": 312, "External id": 29}},
 *      {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", ..., "args": {"Collective name": "recv", ...}},
 *      {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", ...},
 *      {"ph": "X", "cat": "user_annotation", "name": "ring_step 3", "pid": 4242, "tid": 4242, ...}, ...],
 *    "traceName": "..."}
 * ts/dur are microseconds with 3 decimals (ns resolution), relative to baseTimeNanoseconds (older
 * files: absolute, no base). Older Kineto writes cat "Kernel" / "Runtime" and tid "stream 7"; on ROCm
 * the launches are hipLaunchKernel / hipExtModuleLaunchKernel with the same categories.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "import_kineto.h"

/* ------------------------------------------------------------------------------------------------
 * Reader state
 * ---------------------------------------------------------------------------------------------- */
enum { TK_OTHER = 0, TK_EVENTS, TK_BASE, TK_DIST, TK_DEVPROPS };
enum { EK_OTHER = 0, EK_PH, EK_CAT, EK_NAME, EK_TS, EK_DUR, EK_PID, EK_TID, EK_ARGS };
enum { DK_OTHER = 0, DK_RANK, DK_WORLD, DK_PG_CONFIG };
enum { PK_OTHER = 0, PK_NAME, PK_DESC, PK_RANKS };


/* "stream 7" / "7" -> 7 */
static int tid_text(const unsigned char *s, size_t len, int64_t *v) {
    size_t i = 0;
    while (i < len && !isdigit(s[i])) i++;
    if (i == len) return -1;
    int64_t x = 0;
    for (; i < len && isdigit(s[i]); i++) x = 10 * x + (s[i] - '0');
    *v = x;
    return 0;
}

static void copy_small(char *dst, size_t cap, const unsigned char *s, size_t len) {
    size_t n = len < cap - 1 ? len : cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

int rs_kbuf_set(rs_kbuf_t *b, const unsigned char *s, size_t len) {
    if (len + 1 > b->cap) {
        size_t cap = 2 * (len + 1) > 256 ? 2 * (len + 1) : 256;
        char *n = realloc(b->s, cap);
        if (!n) return -1;
        b->s = n;
        b->cap = cap;
    }
    memcpy(b->s, s, len);
    b->s[len] = '\0';
    b->len = len;
    return 0;
}

static void event_reset(rs_kparse_t *k) {
    k->ph[0] = k->cat[0] = '\0';
    k->name.len = 0;
    k->pid_num = k->tid_num = k->has_stream = k->has_corr = k->has_device = false;
    k->ts_v.type = k->dur_v.type = RS_JV_ABSENT;
    for (int a = 0; a < AK_COUNT; a++) k->arg_v[a].type = RS_JV_ABSENT;
    k->grid_v.whole.type = k->block_v.whole.type = RS_JV_ABSENT;
    k->ev.coll.len = k->ev.pg_name.len = k->ev.pg_desc.len = k->ev.pg_ranks.len = k->ev.in_split.len = k->ev.out_split.len = 0;
    k->ev.dtype[0] = '\0';
    k->ev.src = k->ev.dst = -1;
    k->ev.in_nelems = k->ev.out_nelems = -1;
    k->grid[0] = k->grid[1] = k->grid[2] = 0;
}

static bool cat_is(const char *cat, const char *want) {
    for (; *cat && *want; cat++, want++)
        if (tolower((unsigned char)*cat) != *want) return false;
    return *cat == '\0' && *want == '\0';
}

/* A complete traceEvents entry: kept when it is a GPU kernel or memory activity, a launch, a step or
 * ProfilerStep range, or a record_param_comms point-to-point operation; CPU operators are counted. */
/* The kept event's ts (and dur when with_dur; else 0) into k->ts_ns, k->dur_ns. 0, or -1 with k->err
 * (k->failed set). */
static int event_times(rs_kparse_t *k, bool with_dur) {
    const rs_vat_t at = {k->path, NULL, k->ev_index};
    k->dur_ns = 0;
    if (rs_value_json(&at, &RS_V_KINETO_TS, &k->ts_v, &k->ts_ns, k->err) < 0 ||
        (with_dur && rs_value_json(&at, &RS_V_KINETO_DUR, &k->dur_v, &k->dur_ns, k->err) < 0)) {
        k->failed = true;
        return -1;
    }
    return 0;
}

/* The kernel's or launch's args.stream, .correlation, .device (each optional) into k->stream,
 * k->corr, k->device and their has_ flags. 0, or -1 with k->err (k->failed set). */
static int event_ids(rs_kparse_t *k) {
    const rs_vat_t at = {k->path, NULL, k->ev_index};
    const int s = rs_value_json(&at, &RS_V_KINETO_STREAM, &k->arg_v[AK_STREAM], &k->stream, k->err);
    const int c = s < 0 ? -1 : rs_value_json(&at, &RS_V_KINETO_CORR, &k->arg_v[AK_CORR], &k->corr, k->err);
    const int d = c < 0 ? -1 : rs_value_json(&at, &RS_V_KINETO_DEVICE, &k->arg_v[AK_DEVICE], &k->device, k->err);
    if (d < 0) {
        k->failed = true;
        return -1;
    }
    k->has_stream = s == 0, k->has_corr = c == 0, k->has_device = d == 0;
    return 0;
}

/* A GPU event's args.grid and args.block (each optional) into k->grid (the block is only checked).
 * 0, or -1 with k->err (k->failed set). */
static int event_shape(rs_kparse_t *k) {
    const rs_vat_t at = {k->path, NULL, k->ev_index};
    int32_t block[3];
    if (rs_value_json_dim3(&at, RS_V_KINETO_GRID, &k->grid_v, k->grid, k->err) < 0 ||
        rs_value_json_dim3(&at, RS_V_KINETO_BLOCK, &k->block_v, block, k->err) < 0) {
        k->failed = true;
        return -1;
    }
    return 0;
}

/* The event's collective name is text (the caller saw the key). 0, or -1 with k->err (k->failed). */
static int event_coll_text(rs_kparse_t *k) {
    const rs_vat_t at = {k->path, NULL, k->ev_index};
    if (rs_value_json_text(&at, "args.Collective name", &k->arg_v[AK_COLL], k->err) < 0) {
        k->failed = true;
        return -1;
    }
    return 0;
}

static int event_done(rs_kparse_t *k) {
    if (strcmp(k->ph, "X") != 0) return 0;
    rs_raw_t *raw = k->raw;
    const char *name = k->name.s ? k->name.s : "";
    if (k->name.len == 0) name = "";
    const bool gpu = cat_is(k->cat, "kernel") || cat_is(k->cat, "gpu_memcpy") || cat_is(k->cat, "gpu_memset");
    const bool runtime = cat_is(k->cat, "cuda_runtime") || cat_is(k->cat, "cuda_driver") || cat_is(k->cat, "runtime");
    if ((gpu || runtime) && event_ids(k) != 0) return -1;
    if (gpu) {
        if (event_times(k, true) != 0 || event_shape(k) != 0) return -1;
        const int64_t dur = k->dur_ns;
        rs_vspan_add(&k->span, k->ts_ns, k->ts_ns + dur, k->ev_index);
        uint32_t id = rs_raw_intern(raw, name, k->name.len);
        if (id == UINT32_MAX) return -1;
        rs_kkernel_t x = {{k->ts_ns, k->ts_ns + dur, RS_RAW_NO_TIME, k->has_corr ? k->corr : -1,
                           k->has_device ? k->device : (k->pid_num ? k->pid : -1), k->has_stream ? k->stream : (k->tid_num ? k->tid : -1),
                           {k->grid[0], k->grid[1], k->grid[2]}, id, RS_RAW_NONE, (uint8_t)rs_raw_role(raw, id)},
                          -1};
        if (!cat_is(k->cat, "kernel")) x.k.role = RS_KROLE_CAST; /* a memcpy / memset on its stream */
        if (rs_krole_is_comm(x.k.role) && k->arg_v[AK_COLL].type != RS_JV_ABSENT && rs_kineto_comm_args(k, &x.k) != 0) return -1;
        return rs_raw_grow((void **)&k->kern, &k->n_kern, &k->cap_kern, sizeof x, &x);
    }
    if (runtime && k->has_corr &&
        (strstr(name, "Launch") || strstr(name, "Memcpy") || strstr(name, "Memset"))) {
        if (event_times(k, false) != 0) return -1;
        rs_klaunch_t l = {k->corr, k->ts_ns, k->tid_num ? k->tid : -1};
        return rs_raw_grow((void **)&k->launch, &k->n_launch, &k->cap_launch, sizeof l, &l);
    }
    if (cat_is(k->cat, "user_annotation") && k->name.len) {
        rs_krange_t g = {{0}, k->tid_num ? k->tid : -1};
        if (!rs_raw_range_kind(raw, name, &g.g)) return 0;
        if (event_times(k, true) != 0) return -1;
        g.g.start_ns = k->ts_ns, g.g.end_ns = k->ts_ns + k->dur_ns;
        if ((g.g.name = rs_raw_intern(raw, name, k->name.len)) == UINT32_MAX) return -1;
        return rs_raw_grow((void **)&k->rng, &k->n_rng, &k->cap_rng, sizeof g, &g);
    }
    if (cat_is(k->cat, "cpu_op")) {
        k->n_cpu_ops++;
        if (k->arg_v[AK_COLL].type == RS_JV_ABSENT || strcmp(name, "record_param_comms") != 0) return 0;
        if (event_coll_text(k) != 0) return -1;
        if (rs_coll_of_name(k->ev.coll.s) == RS_COLL_P2P) return event_times(k, false) != 0 ? -1 : rs_kineto_p2p_op(k);
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * yajl callbacks
 * ---------------------------------------------------------------------------------------------- */
/* A value of type t (literal s[0..len)) about to be read at the current depth: counts the entries
 * of traceEvents, keeps an event's ts and dur as written, and validates baseTimeNanoseconds. Returns
 * 1 when the value is taken here (ts, dur, the base), 0 when the callback goes on, -1 when the base is
 * refused (k->failed). */
static int value_seen(rs_kparse_t *k, rs_jv_type_t t, const char *s, size_t len) {
    if (k->depth == 2 && k->top_key == TK_EVENTS) k->ev_index++;
    if (k->depth == 3 && k->top_key == TK_EVENTS && (k->ev_key == EK_TS || k->ev_key == EK_DUR)) {
        rs_jv_set(k->ev_key == EK_TS ? &k->ts_v : &k->dur_v, t, s, len);
        return 1;
    }
    if (k->depth == 4 && k->top_key == TK_EVENTS && k->ev_key == EK_ARGS && k->arg_key != AK_OTHER) {
        rs_jv_dim3_t *d = k->arg_key == AK_GRID ? &k->grid_v : k->arg_key == AK_BLOCK ? &k->block_v : NULL;
        rs_jv_set(d ? &d->whole : &k->arg_v[k->arg_key], t, s, len);
        if (d) d->array = false, d->n = 0; /* (on_start_array marks an array) */
        /* numbers are taken here; text goes on to on_string, which keeps it whole */
        return t != RS_JV_CONTAINER && !d && (k->arg_key < AK_COLL || (k->arg_key >= AK_IN_NELEMS && k->arg_key <= AK_GROUP_SIZE) ||
                                              k->arg_key == AK_SRC || k->arg_key == AK_DST);
    }
    if (k->depth == 5 && k->top_key == TK_EVENTS && k->ev_key == EK_ARGS && (k->arg_key == AK_GRID || k->arg_key == AK_BLOCK)) {
        rs_jv_dim3_t *d = k->arg_key == AK_GRID ? &k->grid_v : &k->block_v;
        if (!d->array) return t != RS_JV_CONTAINER; /* inside an object: refused as a whole */
        if (d->n < 3) rs_jv_set(&d->v[d->n], t, s, len);
        d->n++;
        return t != RS_JV_CONTAINER;
    }
    if (k->depth == 2 && k->top_key == TK_DIST && (k->sub_key == DK_RANK || k->sub_key == DK_WORLD)) {
        rs_jv_set(&k->dist_v[k->sub_key == DK_WORLD], t, s, len); /* checked once the file is read */
        return t != RS_JV_CONTAINER;
    }
    if (k->depth == 1 && k->top_key == TK_BASE) {
        rs_jv_t v;
        rs_jv_set(&v, t, s, len);
        const rs_vat_t at = {k->path, NULL, -1};
        if (rs_value_json(&at, &RS_V_KINETO_BASE, &v, &k->base_ns, k->err) < 0) {
            k->failed = true;
            return -1;
        }
        return 1;
    }
    return 0;
}

static int on_number(void *ctx, const char *s, size_t len) {
    rs_kparse_t *k = ctx;
    int64_t v;
    const int taken = value_seen(k, RS_JV_NUMBER, s, len);
    if (taken) return taken > 0;
    if (k->depth == 2 && k->top_key == TK_DIST) {
    } else if (k->depth == 5 && k->top_key == TK_DIST && k->sub_key == DK_PG_CONFIG && k->pg_key == PK_RANKS) {
        if (rs_value_i64_text(s, len, &v) != 0 || v < 0 || v > RS_V_MAX_RANK) {
            if (!k->pg_bad[0]) copy_small(k->pg_bad, sizeof k->pg_bad, (const unsigned char *)s, len);
        } else if (k->pg_n < RS_KMAX_GROUP) {
            k->pg_ranks[k->pg_n++] = (int32_t)v;
        } else {
            k->pg_over = true; /* more than the reader keeps: the group by its name only */
        }
    } else if (k->depth == 3 && k->top_key == TK_DEVPROPS && k->dev_key == 1) {
        if (rs_value_i64_text(s, len, &v) == 0) k->dev_id = v;
    } else if (k->depth == 3 && k->top_key == TK_EVENTS) {
        switch (k->ev_key) {
        case EK_PID: k->pid_num = rs_value_i64_text(s, len, &k->pid) == 0; break;
        case EK_TID: k->tid_num = rs_value_i64_text(s, len, &k->tid) == 0; break;
        default: break;
        }
    }
    return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t len) {
    rs_kparse_t *k = ctx;
    rs_kbuf_t *dst = NULL;
    const int taken = value_seen(k, RS_JV_STRING, (const char *)s, len);
    if (taken) return taken > 0;
    if (k->depth == 3 && k->top_key == TK_EVENTS) {
        switch (k->ev_key) {
        case EK_PH: copy_small(k->ph, sizeof k->ph, s, len); break;
        case EK_CAT: copy_small(k->cat, sizeof k->cat, s, len); break;
        case EK_NAME: dst = &k->name; break;
        case EK_PID: k->pid_num = false; break;
        case EK_TID: k->tid_num = tid_text(s, len, &k->tid) == 0; break; /* "stream 7" */
        default: break;
        }
    } else if (k->depth == 4 && k->top_key == TK_EVENTS && k->ev_key == EK_ARGS) {
        switch (k->arg_key) {
        case AK_COLL: dst = &k->ev.coll; break;
        case AK_PG_NAME: dst = &k->ev.pg_name; break;
        case AK_PG_DESC: dst = &k->ev.pg_desc; break;
        case AK_PG_RANKS: dst = &k->ev.pg_ranks; break;
        case AK_IN_SPLIT: dst = &k->ev.in_split; break;
        case AK_OUT_SPLIT: dst = &k->ev.out_split; break;
        case AK_DTYPE: copy_small(k->ev.dtype, sizeof k->ev.dtype, s, len); break;
        default: break;
        }
    } else if (k->depth == 4 && k->top_key == TK_DIST && k->sub_key == DK_PG_CONFIG) {
        if (k->pg_key == PK_NAME) dst = &k->pg_name;
        if (k->pg_key == PK_DESC) dst = &k->pg_desc;
        if (k->pg_key == PK_RANKS) dst = &k->pg_rank_text; /* "ranks": "all" or a list as text */
    } else if (k->depth == 3 && k->top_key == TK_DEVPROPS && k->dev_key == 2) {
        if (rs_kbuf_set(&k->dev_name, s, len) != 0) k->oom = true;
    }
    if (dst && rs_kbuf_set(dst, s, len) != 0) {
        k->oom = true;
        return 0;
    }
    return 1;
}

/* Keys the reader knows at one level of the document, and the value each gives. */
typedef struct {
    const char *name;
    size_t len;
    int value;
} key_def_t;
#define KEY(lit, v) {lit, sizeof(lit) - 1, v}
static const key_def_t TOP_KEYS[] = {KEY("traceEvents", TK_EVENTS), KEY("baseTimeNanoseconds", TK_BASE), KEY("distributedInfo", TK_DIST),
                                     KEY("deviceProperties", TK_DEVPROPS)};
static const key_def_t EVENT_KEYS[] = {KEY("ph", EK_PH),   KEY("cat", EK_CAT), KEY("name", EK_NAME), KEY("ts", EK_TS),
                                       KEY("dur", EK_DUR), KEY("pid", EK_PID), KEY("tid", EK_TID),   KEY("args", EK_ARGS)};
static const key_def_t ARG_KEYS[] = {
    KEY("stream", AK_STREAM),           KEY("correlation", AK_CORR),
    KEY("device", AK_DEVICE),           KEY("grid", AK_GRID),
    KEY("block", AK_BLOCK),             KEY("Group size", AK_GROUP_SIZE),
    KEY("Collective name", AK_COLL),    KEY("Process Group Name", AK_PG_NAME),
    KEY("Process Group Description", AK_PG_DESC), KEY("Process Group Ranks", AK_PG_RANKS),
    KEY("In msg nelems", AK_IN_NELEMS), KEY("Out msg nelems", AK_OUT_NELEMS),
    KEY("dtype", AK_DTYPE),             KEY("Src Rank", AK_SRC),
    KEY("Dst Rank", AK_DST),            KEY("In split size", AK_IN_SPLIT),
    KEY("Out split size", AK_OUT_SPLIT)};
static const key_def_t DIST_KEYS[] = {KEY("rank", DK_RANK), KEY("world_size", DK_WORLD), KEY("pg_config", DK_PG_CONFIG)};
static const key_def_t PG_KEYS[] = {KEY("pg_name", PK_NAME), KEY("pg_desc", PK_DESC), KEY("ranks", PK_RANKS)};
static const key_def_t DEV_KEYS[] = {KEY("id", 1), KEY("name", 2)};
#undef KEY
#define N_KEYS(t) (sizeof(t) / sizeof((t)[0]))

/* The value of key s[0..len) in table t[0..n), other when it is none of them. */
static int key_value(const unsigned char *s, size_t len, const key_def_t *t, size_t n, int other) {
    for (size_t i = 0; i < n; i++)
        if (t[i].len == len && memcmp(s, t[i].name, len) == 0) return t[i].value;
    return other;
}

static int on_map_key(void *ctx, const unsigned char *s, size_t len) {
    rs_kparse_t *k = ctx;
    if (k->depth == 1) {
        k->top_key = key_value(s, len, TOP_KEYS, N_KEYS(TOP_KEYS), TK_OTHER);
    } else if (k->depth == 3 && k->top_key == TK_EVENTS) {
        k->ev_key = key_value(s, len, EVENT_KEYS, N_KEYS(EVENT_KEYS), EK_OTHER);
    } else if (k->depth == 4 && k->top_key == TK_EVENTS && k->ev_key == EK_ARGS) {
        k->arg_key = key_value(s, len, ARG_KEYS, N_KEYS(ARG_KEYS), AK_OTHER);
    } else if (k->depth == 2 && k->top_key == TK_DIST) {
        k->sub_key = key_value(s, len, DIST_KEYS, N_KEYS(DIST_KEYS), DK_OTHER);
    } else if (k->depth == 4 && k->top_key == TK_DIST && k->sub_key == DK_PG_CONFIG) {
        k->pg_key = key_value(s, len, PG_KEYS, N_KEYS(PG_KEYS), PK_OTHER);
    } else if (k->depth == 3 && k->top_key == TK_DEVPROPS) {
        k->dev_key = key_value(s, len, DEV_KEYS, N_KEYS(DEV_KEYS), 0);
    }
    return 1;
}

static int on_start_map(void *ctx) {
    rs_kparse_t *k = ctx;
    if (value_seen(k, RS_JV_CONTAINER, NULL, 0) < 0) return 0;
    k->depth++;
    if (k->depth == 3 && k->top_key == TK_EVENTS) {
        event_reset(k);
        k->ev_key = EK_OTHER;
    }
    if (k->depth == 4) k->arg_key = AK_OTHER;
    if (k->depth == 2) k->sub_key = 0;
    if (k->depth == 3 && k->top_key == TK_DEVPROPS) {
        k->dev_key = 0;
        k->dev_id = -1;
        k->dev_name.len = 0;
    }
    if (k->depth == 4 && k->top_key == TK_DIST) {
        k->pg_key = PK_OTHER;
        k->pg_n = 0;
        k->pg_bad[0] = '\0';
        k->pg_over = false;
        k->pg_name.len = k->pg_desc.len = k->pg_rank_text.len = 0;
    }
    return 1;
}

static int on_end_map(void *ctx) {
    rs_kparse_t *k = ctx;
    if (k->depth == 3 && k->top_key == TK_EVENTS && event_done(k) != 0) {
        k->oom = !k->failed;
        return 0;
    }
    if (k->depth == 3 && k->top_key == TK_DEVPROPS && rs_kineto_devprop(k) != 0) {
        k->oom = true;
        return 0;
    }
    if (k->depth == 4 && k->top_key == TK_DIST && k->sub_key == DK_PG_CONFIG && rs_kineto_pg_config(k) != 0) {
        k->oom = !k->failed;
        return 0;
    }
    if (k->depth == 4 && k->top_key == TK_DIST && k->sub_key == DK_PG_CONFIG) k->pg_i++;
    k->depth--;
    return 1;
}

static int on_start_array(void *ctx) {
    rs_kparse_t *k = ctx;
    if (value_seen(k, RS_JV_CONTAINER, NULL, 0) < 0) return 0;
    k->depth++;
    if (k->depth == 2 && k->top_key == TK_EVENTS) k->saw_events = true;
    if (k->depth == 5 && k->top_key == TK_EVENTS && k->ev_key == EK_ARGS && (k->arg_key == AK_GRID || k->arg_key == AK_BLOCK))
        (k->arg_key == AK_GRID ? &k->grid_v : &k->block_v)->array = true;
    return 1;
}

static int on_end_array(void *ctx) {
    ((rs_kparse_t *)ctx)->depth--;
    return 1;
}

static int on_null(void *ctx) { return value_seen(ctx, RS_JV_NULL, "null", 4) >= 0; }
static int on_bool(void *ctx, int b) { return value_seen(ctx, RS_JV_BOOL, b ? "true" : "false", b ? 4 : 5) >= 0; }

static const yajl_callbacks kineto_callbacks = {
    on_null, on_bool, NULL, NULL, on_number, on_string, on_start_map, on_map_key, on_end_map, on_start_array, on_end_array,
};

/* One line from yajl's message (it ends with a newline and may point into the text). */
static void yajl_msg(yajl_handle h, char *dst, size_t cap) {
    unsigned char *m = yajl_get_error(h, 0, NULL, 0);
    snprintf(dst, cap, "%s", m ? (const char *)m : "parse error");
    if (m) yajl_free_error(h, m);
    for (char *c = dst; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
    size_t n = strlen(dst);
    while (n > 0 && dst[n - 1] == ' ') dst[--n] = '\0';
}

int rs_import_read_kineto(rs_raw_t *raw, const char *path, rs_err_t *err) {
    gzFile gz = gzopen(path, "rb");
    if (!gz) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: cannot open: %s", path, strerror(errno ? errno : ENOMEM));
    gzbuffer(gz, 1 << 18);
    rs_kparse_t k = {0};
    k.raw = raw;
    k.path = path;
    k.err = err;
    k.dist_rank = k.world_size = -1;
    k.ev_index = -1;
    k.last_group.group = RS_RAW_NONE;
    rs_vspan_init(&k.span);
    yajl_handle h = yajl_alloc(&kineto_callbacks, NULL, &k);
    enum { CHUNK = 1 << 16 };
    unsigned char *buf = malloc(CHUNK);
    int rc = 0;
    if (!h || !buf) rc = rs_errf(err, "%s: out of memory", path);
    uint64_t fed = 0;
    while (rc == 0) {
        int n = gzread(gz, buf, CHUNK);
        if (n < 0) {
            int e;
            const char *m = gzerror(gz, &e);
            rc = rs_errc(err, e == Z_ERRNO ? RS_ERR_RUNTIME : RS_ERR_BAD_INPUT, "%s: read error: %s", path, e == Z_ERRNO ? strerror(errno) : m);
            break;
        }
        yajl_status s = n > 0 ? yajl_parse(h, buf, (size_t)n) : yajl_complete_parse(h);
        if (s != yajl_status_ok) {
            char m[256];
            yajl_msg(h, m, sizeof m);
            uint64_t at = fed + (n > 0 ? yajl_get_bytes_consumed(h) : 0);
            if (k.failed) rc = -1; /* err says which value */
            else if (k.oom) rc = rs_errf(err, "%s: out of memory", path);
            else if (n == 0) rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: truncated JSON: the text ends at byte %llu inside a value (%s)", path, (unsigned long long)at, m);
            else rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: not valid JSON at byte %llu (%s)", path, (unsigned long long)at, m);
            break;
        }
        if (n == 0) break;
        fed += (uint64_t)n;
    }
    if (rc == 0) {
        int e;
        const char *m = gzerror(gz, &e);
        if (e == Z_BUF_ERROR) rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: truncated gzip stream (%s)", path, m);
    }
    if (rc == 0 && !k.saw_events) {
        rs_errc(err, RS_ERR_BAD_INPUT, "%s: no \"traceEvents\" array: not a PyTorch profiler (Kineto) trace", path);
        rc = -2;
    }
    const rs_vat_t at = {path, NULL, -1};
    if (rc == 0 && (rs_vspan_check(&k.span, &at, err) != 0 || rs_kineto_check_world(&k) != 0)) rc = -1;
    if (rc == 0 && rs_kineto_finish(&k) != 0) rc = rs_errf(err, "%s: out of memory (or kernels on more than 64 devices)", path);
    if (h) yajl_free(h);
    free(buf);
    rs_kineto_parse_free(&k);
    gzclose(gz);
    return rc;
}
