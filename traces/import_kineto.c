/* import_kineto.c - the reader of PyTorch profiler / Kineto Chrome-trace JSON (import_readers.h): a
 * streaming parse (yajl, through zlib so .json.gz reads the same) that keeps only attention and
 * SendRecv kernels, their launches and step ranges, into the raw store (import_raw.h). The other
 * direction, a ringsim trace as Kineto files, is kineto_export.c.
 *
 * The format, as libkineto's ChromeTraceLogger writes it:
 *   {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", ...}],
 *    "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8, ...},   (before or after traceEvents)
 *    "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000,
 *    "traceEvents": [
 *      {"ph": "X", "cat": "kernel", "name": "void flash_fwd_kernel<...>(Flash_fwd_params)", "pid": 0, "tid": 7,
 *       "ts": 5029783.925, "dur": 412.160, "args": {"External id": 29, "queued": 0, "device": 0,
 *       "context": 1, "stream": 7, "correlation": 312, "registers per thread": 255, ...}},
 *      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": ...,
 *       "args": {"cbid": 211, "correlation": 312, "External id": 29}},
 *      {"ph": "s", "id": 312, "pid": 4242, "tid": 4242, "ts": ..., "cat": "ac2g", "name": "ac2g"}, ...
 *      {"ph": "X", "cat": "user_annotation", "name": "ring_step 3", "pid": 4242, "tid": 4242, ...}, ...],
 *    "traceName": "..."}
 * ts/dur are microseconds with 3 decimals (ns resolution), relative to baseTimeNanoseconds (older
 * files: absolute, no base). Older Kineto writes cat "Kernel" and tid "stream 7".
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "import_readers.h"

/* ------------------------------------------------------------------------------------------------
 * Reader state
 * ---------------------------------------------------------------------------------------------- */
enum { TK_OTHER = 0, TK_EVENTS, TK_BASE, TK_DIST, TK_DEVPROPS };
enum { EK_OTHER = 0, EK_PH, EK_CAT, EK_NAME, EK_TS, EK_DUR, EK_PID, EK_TID, EK_ARGS };
enum { AK_OTHER = 0, AK_STREAM, AK_CORR, AK_DEVICE };

typedef struct {
    int64_t corr;      /* correlation id */
    int64_t ts_ns;     /* host launch time (relative to the file's base) */
    int64_t tid;       /* launching thread, -1 unknown */
} launch_t;

typedef struct {
    rs_raw_range_t g;  /* times relative to the file's base */
    int64_t tid;       /* its thread */
} trange_t;

typedef struct {
    rs_raw_t *raw;
    const char *path;
    int depth;             /* nesting depth: 1 = top object */
    int top_key, ev_key, arg_key, sub_key;
    bool saw_events, oom;
    int64_t base_ns;       /* baseTimeNanoseconds (0 when absent) */
    int64_t dist_rank;     /* distributedInfo.rank, -1 when absent */
    /* current event */
    char ph[4], cat[32];
    char *name;
    size_t name_len, name_cap;
    int64_t ts_ns, dur_ns, pid, tid, stream, corr, device;
    bool has_ts, has_dur, pid_num, tid_num, has_stream, has_corr, has_device;
    launch_t *launch;      /* launches seen */
    size_t n_launch, cap_launch;
    rs_raw_kernel_t *kern; /* ring kernels seen (times relative to the base) */
    size_t n_kern, cap_kern;
    trange_t *rng;         /* step ranges seen */
    size_t n_rng, cap_rng;
} kparse_t;

#define KEY_IS(k, len, lit) ((len) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

/* Microseconds text ("5029783.925", "12", "1.5e3") -> integer nanoseconds, exact for plain decimals. */
static int us_text_to_ns(const char *s, size_t len, int64_t *ns) {
    char buf[64];
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (strpbrk(buf, "eE")) {
        char *end;
        double v = strtod(buf, &end);
        if (*end || !isfinite(v) || fabs(v) > 9e12) return -1;
        *ns = llround(v * 1e3);
        return 0;
    }
    const char *p = buf;
    bool neg = *p == '-';
    if (neg) p++;
    int64_t ip = 0, frac = 0;
    int nd = 0;
    for (; isdigit((unsigned char)*p); p++, nd++) {
        if (ip > INT64_MAX / 10000) return -1;
        ip = 10 * ip + (*p - '0');
    }
    if (*p == '.') {
        p++;
        int k = 0;
        for (; isdigit((unsigned char)*p); p++, k++) {
            if (k < 3) frac = 10 * frac + (*p - '0');
            else if (k == 3 && *p >= '5') frac++; /* round at the ns digit */
        }
        for (; k < 3; k++) frac *= 10;
    }
    if (*p || nd == 0) return -1;
    *ns = (neg ? -1 : 1) * (ip * 1000 + frac);
    return 0;
}

static int text_to_i64(const char *s, size_t len, int64_t *v) {
    char buf[32];
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    long long x = strtoll(buf, &end, 10); /* exact: baseTimeNanoseconds needs all 19 digits */
    if (!*end && errno == 0) {
        *v = x;
        return 0;
    }
    errno = 0;
    double d = strtod(buf, &end); /* ids written as "7.0" */
    if (*end || errno || !isfinite(d) || d != floor(d) || fabs(d) > 9e15) return -1;
    *v = (int64_t)d;
    return 0;
}

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

static void event_reset(kparse_t *k) {
    k->ph[0] = k->cat[0] = '\0';
    k->name_len = 0;
    k->has_ts = k->has_dur = k->pid_num = k->tid_num = k->has_stream = k->has_corr = k->has_device = false;
}

static bool cat_is(const char *cat, const char *want) {
    for (; *cat && *want; cat++, want++)
        if (tolower((unsigned char)*cat) != *want) return false;
    return *cat == '\0' && *want == '\0';
}

/* A complete traceEvents entry: keep it if it is an attention/SendRecv kernel, a kernel launch or a
 * step range. */
static int event_done(kparse_t *k) {
    if (strcmp(k->ph, "X") != 0 || !k->has_ts) return 0;
    rs_raw_t *raw = k->raw;
    int64_t dur = k->has_dur && k->dur_ns > 0 ? k->dur_ns : 0;
    if (cat_is(k->cat, "kernel")) {
        uint32_t id = rs_raw_intern(raw, k->name ? k->name : "", k->name_len);
        if (id == UINT32_MAX) return -1;
        if (rs_raw_role(raw, id) < 0) return 0;
        rs_raw_kernel_t x = {k->ts_ns, k->ts_ns + dur, RS_RAW_NO_TIME, k->has_corr ? k->corr : -1,
                             k->has_device ? k->device : (k->pid_num ? k->pid : -1),
                             k->has_stream ? k->stream : (k->tid_num ? k->tid : -1), id, (uint8_t)rs_raw_role(raw, id)};
        return rs_raw_grow((void **)&k->kern, &k->n_kern, &k->cap_kern, sizeof x, &x);
    }
    if ((cat_is(k->cat, "cuda_runtime") || cat_is(k->cat, "cuda_driver")) && k->has_corr && k->name &&
        strstr(k->name, "Launch")) {
        launch_t l = {k->corr, k->ts_ns, k->tid_num ? k->tid : -1};
        return rs_raw_grow((void **)&k->launch, &k->n_launch, &k->cap_launch, sizeof l, &l);
    }
    if (cat_is(k->cat, "user_annotation") && k->name) {
        int32_t step;
        int8_t hint;
        if (!rs_raw_step_range(raw, k->name, &step, &hint)) return 0;
        uint32_t id = rs_raw_intern(raw, k->name, k->name_len);
        if (id == UINT32_MAX) return -1;
        trange_t g = {{k->ts_ns, k->ts_ns + dur, id, step, hint}, k->tid_num ? k->tid : -1};
        return rs_raw_grow((void **)&k->rng, &k->n_rng, &k->cap_rng, sizeof g, &g);
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * yajl callbacks
 * ---------------------------------------------------------------------------------------------- */
static int on_number(void *ctx, const char *s, size_t len) {
    kparse_t *k = ctx;
    int64_t v;
    if (k->depth == 1 && k->top_key == TK_BASE) {
        if (text_to_i64(s, len, &v) == 0) k->base_ns = v;
    } else if (k->depth == 2 && k->top_key == TK_DIST && k->sub_key == 1) {
        if (text_to_i64(s, len, &v) == 0) k->dist_rank = v;
    } else if (k->depth == 3 && k->top_key == TK_EVENTS) {
        switch (k->ev_key) {
        case EK_TS: k->has_ts = us_text_to_ns(s, len, &k->ts_ns) == 0; break;
        case EK_DUR: k->has_dur = us_text_to_ns(s, len, &k->dur_ns) == 0; break;
        case EK_PID: k->pid_num = text_to_i64(s, len, &k->pid) == 0; break;
        case EK_TID: k->tid_num = text_to_i64(s, len, &k->tid) == 0; break;
        default: break;
        }
    } else if (k->depth == 4 && k->top_key == TK_EVENTS && k->ev_key == EK_ARGS) {
        switch (k->arg_key) {
        case AK_STREAM: k->has_stream = text_to_i64(s, len, &k->stream) == 0; break;
        case AK_CORR: k->has_corr = text_to_i64(s, len, &k->corr) == 0; break;
        case AK_DEVICE: k->has_device = text_to_i64(s, len, &k->device) == 0; break;
        default: break;
        }
    }
    return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t len) {
    kparse_t *k = ctx;
    if (k->depth == 3 && k->top_key == TK_EVENTS) {
        switch (k->ev_key) {
        case EK_PH: copy_small(k->ph, sizeof k->ph, s, len); break;
        case EK_CAT: copy_small(k->cat, sizeof k->cat, s, len); break;
        case EK_NAME:
            if (len + 1 > k->name_cap) {
                size_t cap = 2 * (len + 1) > 256 ? 2 * (len + 1) : 256;
                char *n = realloc(k->name, cap);
                if (!n) {
                    k->oom = true;
                    return 0;
                }
                k->name = n;
                k->name_cap = cap;
            }
            memcpy(k->name, s, len);
            k->name[len] = '\0';
            k->name_len = len;
            break;
        case EK_PID: k->pid_num = false; break;
        case EK_TID: k->tid_num = tid_text(s, len, &k->tid) == 0; break; /* "stream 7" */
        default: break;
        }
    } else if (k->depth == 2 && k->top_key == TK_DIST && k->sub_key == 1) {
        int64_t v;
        if (tid_text(s, len, &v) == 0) k->dist_rank = v; /* "rank": "3" */
    } else if (k->depth == 3 && k->top_key == TK_DEVPROPS && k->sub_key == 1 && !k->raw->gpu_name[0]) {
        copy_small(k->raw->gpu_name, sizeof k->raw->gpu_name, s, len);
    }
    return 1;
}

static int on_map_key(void *ctx, const unsigned char *s, size_t len) {
    kparse_t *k = ctx;
    if (k->depth == 1) {
        k->top_key = KEY_IS(s, len, "traceEvents")           ? TK_EVENTS
                     : KEY_IS(s, len, "baseTimeNanoseconds") ? TK_BASE
                     : KEY_IS(s, len, "distributedInfo")     ? TK_DIST
                     : KEY_IS(s, len, "deviceProperties")    ? TK_DEVPROPS
                                                             : TK_OTHER;
    } else if (k->depth == 3 && k->top_key == TK_EVENTS) {
        k->ev_key = KEY_IS(s, len, "ph")     ? EK_PH
                    : KEY_IS(s, len, "cat")  ? EK_CAT
                    : KEY_IS(s, len, "name") ? EK_NAME
                    : KEY_IS(s, len, "ts")   ? EK_TS
                    : KEY_IS(s, len, "dur")  ? EK_DUR
                    : KEY_IS(s, len, "pid")  ? EK_PID
                    : KEY_IS(s, len, "tid")  ? EK_TID
                    : KEY_IS(s, len, "args") ? EK_ARGS
                                             : EK_OTHER;
    } else if (k->depth == 4 && k->top_key == TK_EVENTS && k->ev_key == EK_ARGS) {
        k->arg_key = KEY_IS(s, len, "stream")        ? AK_STREAM
                     : KEY_IS(s, len, "correlation") ? AK_CORR
                     : KEY_IS(s, len, "device")      ? AK_DEVICE
                                                     : AK_OTHER;
    } else if (k->depth == 2 && k->top_key == TK_DIST) {
        k->sub_key = KEY_IS(s, len, "rank") ? 1 : 0;
    } else if (k->depth == 3 && k->top_key == TK_DEVPROPS) {
        k->sub_key = KEY_IS(s, len, "name") ? 1 : 0;
    }
    return 1;
}

static int on_start_map(void *ctx) {
    kparse_t *k = ctx;
    k->depth++;
    if (k->depth == 3 && k->top_key == TK_EVENTS) {
        event_reset(k);
        k->ev_key = EK_OTHER;
    }
    if (k->depth == 4) k->arg_key = AK_OTHER;
    k->sub_key = 0;
    return 1;
}

static int on_end_map(void *ctx) {
    kparse_t *k = ctx;
    if (k->depth == 3 && k->top_key == TK_EVENTS && event_done(k) != 0) {
        k->oom = true;
        return 0;
    }
    k->depth--;
    return 1;
}

static int on_start_array(void *ctx) {
    kparse_t *k = ctx;
    k->depth++;
    if (k->depth == 2 && k->top_key == TK_EVENTS) k->saw_events = true;
    return 1;
}

static int on_end_array(void *ctx) {
    ((kparse_t *)ctx)->depth--;
    return 1;
}

static int on_scalar(void *ctx) { (void)ctx; return 1; }
static int on_bool(void *ctx, int b) { (void)b; return on_scalar(ctx); }

static const yajl_callbacks kineto_callbacks = {
    on_scalar, on_bool, NULL, NULL, on_number, on_string, on_start_map, on_map_key, on_end_map, on_start_array, on_end_array,
};

static int launch_cmp(const void *a, const void *b) {
    const launch_t *x = a, *y = b;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

/* After the parse: shift by the base, attach launch times by correlation id, and split the file into
 * ranks, one per CUDA device (a process driving several GPUs from one thread each, as ringsim's
 * `exec --launch threads`, is several ranks); a step range goes to the device its thread launches on.
 * 0, or -1 on OOM or kernels on more than MAXDEV devices. */
static int finish_file(kparse_t *k) {
    rs_raw_t *raw = k->raw;
    enum { MAXDEV = 64 };
    int64_t dev[MAXDEV], tid_of[MAXDEV * 4], tid_dev[MAXDEV * 4];
    int n_dev = 0, n_tid = 0;
    if (k->n_launch > 1) qsort(k->launch, k->n_launch, sizeof *k->launch, launch_cmp);
    for (size_t i = 0; i < k->n_kern; i++) {
        rs_raw_kernel_t *x = &k->kern[i];
        int d = 0;
        while (d < n_dev && dev[d] != x->device) d++;
        if (d == n_dev) {
            if (n_dev == MAXDEV) return -1;
            dev[n_dev++] = x->device;
        }
        x->start_ns += k->base_ns;
        x->end_ns += k->base_ns;
        if (x->order < 0 || k->n_launch == 0) continue;
        launch_t key = {x->order, 0, 0};
        const launch_t *l = bsearch(&key, k->launch, k->n_launch, sizeof *k->launch, launch_cmp);
        if (!l) continue;
        x->launch_ns = l->ts_ns + k->base_ns;
        int t = 0;
        while (t < n_tid && tid_of[t] != l->tid) t++;
        if (t == n_tid && n_tid < MAXDEV * 4) tid_of[n_tid] = l->tid, tid_dev[n_tid++] = x->device;
    }
    for (int a = 1; a < n_dev; a++) /* ranks in device order */
        for (int b = a; b > 0 && dev[b - 1] > dev[b]; b--) {
            int64_t t = dev[b];
            dev[b] = dev[b - 1], dev[b - 1] = t;
        }
    size_t first = raw->n_ranks;
    for (int d = 0; d < (n_dev ? n_dev : 1); d++) { /* a file without ring kernels is one (empty) rank */
        rs_raw_rank_t *r = rs_raw_add_rank(raw, k->path);
        if (!r) return -1;
        r->device = n_dev ? dev[d] : -1;
        r->rank_key = n_dev <= 1 ? k->dist_rank : -1;
    }
    for (size_t i = 0; i < k->n_kern; i++) {
        int d = 0;
        while (dev[d] != k->kern[i].device) d++;
        if (rs_raw_add_kernel(&raw->ranks[first + d], &k->kern[i]) != 0) return -1;
    }
    for (size_t i = 0; i < k->n_rng; i++) {
        rs_raw_range_t g = k->rng[i].g;
        g.start_ns += k->base_ns;
        g.end_ns += k->base_ns;
        int d = 0;
        if (n_dev > 1) {
            int t = 0;
            while (t < n_tid && tid_of[t] != k->rng[i].tid) t++;
            if (t == n_tid) continue; /* a thread that launches no ring kernel */
            while (dev[d] != tid_dev[t]) d++;
        }
        if (rs_raw_add_range(&raw->ranks[first + d], &g) != 0) return -1;
    }
    return 0;
}

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
    kparse_t k = {0};
    k.raw = raw;
    k.path = path;
    k.dist_rank = -1;
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
            if (k.oom) rc = rs_errf(err, "%s: out of memory", path);
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
    if (rc == 0 && !k.saw_events)
        rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: no \"traceEvents\" array: not a PyTorch profiler (Kineto) trace", path);
    if (rc == 0 && finish_file(&k) != 0) rc = rs_errf(err, "%s: out of memory (or kernels on more than 64 devices)", path);
    if (h) yajl_free(h);
    free(buf);
    free(k.name);
    free(k.launch);
    free(k.kern);
    free(k.rng);
    gzclose(gz);
    return rc;
}
