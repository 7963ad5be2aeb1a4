/* import_nsys.c - Nsight Systems SQLite exports (`nsys export --type sqlite`), read with libsqlite3
 * (import.h). Tables used (schema: the Nsight Systems user guide, "SQLite Schema Reference"):
 *   CUPTI_ACTIVITY_KIND_KERNEL  start, end (ns), deviceId, streamId, correlationId, globalPid,
 *                               demangledName / shortName (StringIds ids), gridX/Y/Z (required but the grid)
 *   StringIds                   id, value                                          (required)
 *   CUPTI_ACTIVITY_KIND_RUNTIME start, correlationId, globalTid: the launch of each kernel
 *   NVTX_EVENTS                 start, end, eventType (59 push/pop, 60 start/end range), text or
 *                               textId (StringIds), globalTid: step ranges
 *   MPI_RANKS                   globalTid, rank: ring order when present
 *   TARGET_INFO_GPU             id, name: each rank's GPU, recorded in the header
 *   TARGET_INFO_SESSION_START_TIME utcEpochNs: aligns several files (one per node)
 * A serialized globalTid / globalPid holds the process id in bits 24..47. One process = one rank
 * (a process driving several GPUs: one rank per device). The kernels and ranges go to the raw store
 * (import_raw.h).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "import_kclass.h"
#include "import_readers.h"
#include "import_value.h"

/* Every statement runs under a progress handler (called each RS_NSYS_PROGRESS_OPS virtual-machine
 * operations): the reading of one file stops after RS_NSYS_STEPS_PER_BYTE operations per byte of the
 * file (at least RS_NSYS_MIN_STEPS; a real export's queries scan each table a few times) or after
 * RS_NSYS_MAX_S seconds, whichever comes first, so that a view or trigger that never ends (a
 * recursive CTE) is refused instead of hanging. */
#define RS_NSYS_PROGRESS_OPS 1000
#define RS_NSYS_STEPS_PER_BYTE 1000.0
#define RS_NSYS_MIN_STEPS 2e7
#define RS_NSYS_MAX_S 600.0

#define PID_OF(g) (((g) >> 24) & 0xFFFFFF)

typedef struct {
    int64_t tid;     /* serialized globalTid */
    int64_t device;  /* the device its launches go to */
} tid_dev_t;

/* The budget of one file's reading (the progress handler's state). */
typedef struct {
    double steps, max_steps;  /* virtual-machine operations so far, and allowed */
    double t0_s, max_s;       /* when the reading started (CLOCK_MONOTONIC), and the seconds allowed */
    bool over;                /* the handler stopped a statement */
    bool said;                /* and err says so */
} budget_t;

typedef struct {
    sqlite3 *db;
    const char *path;
    rs_raw_t *raw;
    rs_err_t *err;
    tid_dev_t *tids;  /* threads that launch ring kernels */
    size_t n_tids, cap_tids;
    budget_t budget;
    int64_t row;      /* the row each_row hands over: its place in the result, from 1 */
} nsys_t;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int on_progress(void *ctx) {
    budget_t *b = ctx;
    b->steps += RS_NSYS_PROGRESS_OPS;
    if (b->steps > b->max_steps || now_s() - b->t0_s > b->max_s) b->over = true;
    return b->over;
}

static int has_table(sqlite3 *db, const char *name) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

static int has_column(sqlite3 *db, const char *table, const char *col) {
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT 1 FROM pragma_table_info('%s') WHERE name = ?1", table);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return 0;
    sqlite3_bind_text(st, 1, col, -1, SQLITE_STATIC);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

static int sql_fail(nsys_t *x, const char *what) {
    budget_t *b = &x->budget;
    b->said = b->said || b->over;
    if (b->over)
        return rs_errc(x->err, RS_ERR_BAD_INPUT, "%s: %s stopped after %.3g SQLite steps and %.3g s (the budget of this file: %.3g steps, %.0f s): "
                       "a view or trigger that does not end; not an nsys export", x->path, what, b->steps, now_s() - b->t0_s, b->max_steps, b->max_s);
    return rs_errc(x->err, RS_ERR_BAD_INPUT, "%s: SQLite error %s: %s", x->path, what, sqlite3_errmsg(x->db));
}

static int out_of_memory(nsys_t *x) { return rs_errf(x->err, "%s: out of memory", x->path); }

/* Run sql and hand each row to row(x, st, ctx): it returns 0 to go on, or -1 (err set) to stop.
 * 0, or -1 with err: the row's, or "SQLite error reading WHAT" when the statement fails. */
static int each_row(nsys_t *x, const char *sql, const char *what, int (*row)(nsys_t *x, sqlite3_stmt *st, void *ctx), void *ctx) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) != SQLITE_OK) return sql_fail(x, what);
    int rc = 0, s = SQLITE_DONE;
    x->row = 0;
    while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
        x->row++;
        rc = row(x, st, ctx);
    }
    if (rc == 0 && s != SQLITE_DONE) rc = sql_fail(x, what);
    sqlite3_finalize(st);
    return rc;
}

/* A single integer (or def when the query returns nothing). */
static int64_t query_i64(sqlite3 *db, const char *sql, int64_t def) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return def;
    int64_t v = def;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

typedef struct {
    int64_t id;      /* StringIds id */
    uint32_t name;   /* interned name */
} name_map_t;

static int nmap_cmp(const void *a, const void *b) {
    const name_map_t *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

typedef struct {
    name_map_t *v;
    size_t n, cap;
} name_maps_t;

/* A row (id, value) of the kernel names, interned (and so classified). */
static int name_row(nsys_t *x, sqlite3_stmt *st, void *ctx) {
    name_maps_t *m = ctx;
    const char *name = (const char *)sqlite3_column_text(st, 1);
    if (!name) return 0;
    uint32_t id = rs_raw_intern(x->raw, name, strlen(name));
    if (id == UINT32_MAX) return out_of_memory(x);
    const name_map_t e = {sqlite3_column_int64(st, 0), id};
    return rs_raw_grow((void **)&m->v, &m->n, &m->cap, sizeof e, &e) != 0 ? out_of_memory(x) : 0;
}

/* The kernel names: StringIds ids of the name column and their interned strings, sorted by id. */
static int relevant_names(nsys_t *x, const char *col, name_map_t **out, size_t *n_out) {
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT k.id, s.value FROM (SELECT DISTINCT %s AS id FROM CUPTI_ACTIVITY_KIND_KERNEL) AS k "
             "LEFT JOIN StringIds AS s ON s.id = k.id",
             col);
    name_maps_t m = {NULL, 0, 0};
    if (each_row(x, sql, "reading kernel names", name_row, &m) != 0) {
        free(m.v);
        return -1;
    }
    if (m.n > 1) qsort(m.v, m.n, sizeof *m.v, nmap_cmp);
    *out = m.v;
    *n_out = m.n;
    return 0;
}

typedef struct {
    rs_raw_kernel_t k;
    int64_t pid;
} pkernel_t;

typedef struct {
    int64_t pid, device, mpi_rank;
    size_t first, n;     /* its kernels in the sorted pkernel array */
} proc_t;

static int pk_cmp(const void *a, const void *b) { /* by (process, device), then file order */
    const pkernel_t *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->k.device != y->k.device) return x->k.device < y->k.device ? -1 : 1;
    if (x->k.start_ns != y->k.start_ns) return x->k.start_ns < y->k.start_ns ? -1 : 1;
    return (x->k.order > y->k.order) - (x->k.order < y->k.order);
}

static int pk_corr_cmp(const void *a, const void *b) { /* by process, then correlation id */
    const pkernel_t *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    return (x->k.order > y->k.order) - (x->k.order < y->k.order);
}

static int proc_cmp(const void *a, const void *b) { /* ring order inside a file */
    const proc_t *x = a, *y = b;
    if (x->mpi_rank != y->mpi_rank) return x->mpi_rank < y->mpi_rank ? -1 : 1;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

typedef struct {
    const name_map_t *names; /* the kernel names that matter, sorted by id */
    size_t n_names;
    int64_t offset;          /* the session start */
    pkernel_t *v;            /* the kept kernels */
    size_t n, cap;
    rs_vspan_t span;         /* of the kernels (times relative to the session start) */
} kernels_t;

static const char *const KERNEL_TABLE = "CUPTI_ACTIVITY_KIND_KERNEL";

/* Columns c0 (start) and c1 (end) of row at: validated times, end >= start. 0 or -1 with err. */
static int row_times(nsys_t *x, const rs_vat_t *at, sqlite3_stmt *st, int c0, int c1, int64_t *t0, int64_t *t1) {
    if (rs_value_sql(at, &RS_V_NSYS_START, st, c0, t0, x->err) != 0) return -1;
    if (c1 < 0) return 0;
    if (rs_value_sql(at, &RS_V_NSYS_END, st, c1, t1, x->err) != 0) return -1;
    return rs_value_order(at, "start", *t0, "end", *t1, x->err);
}

/* A row (start, end, name id, device, stream, correlation, globalPid, gridX, gridY, gridZ) of the
 * kernel table. */
static int kernel_row(nsys_t *x, sqlite3_stmt *st, void *ctx) {
    kernels_t *c = ctx;
    const rs_vat_t at = {x->path, KERNEL_TABLE, x->row};
    int64_t t0, t1;
    if (row_times(x, &at, st, 0, 1, &t0, &t1) != 0) return -1;
    rs_vspan_add(&c->span, t0, t1, x->row);
    name_map_t key = {sqlite3_column_int64(st, 2), 0};
    const name_map_t *m = c->n_names ? bsearch(&key, c->names, c->n_names, sizeof *c->names, nmap_cmp) : NULL;
    if (!m) return 0;
    int64_t dev, stream, corr = -1, gpid, grid[3] = {0, 0, 0};
    if (rs_value_sql(&at, &RS_V_NSYS_DEVICE, st, 3, &dev, x->err) != 0 || rs_value_sql(&at, &RS_V_NSYS_STREAM, st, 4, &stream, x->err) != 0 ||
        rs_value_sql(&at, &RS_V_NSYS_CORR, st, 5, &corr, x->err) < 0 || rs_value_sql(&at, &RS_V_NSYS_PID, st, 6, &gpid, x->err) != 0)
        return -1;
    for (int g = 0; g < 3; g++)
        if (rs_value_sql(&at, &RS_V_NSYS_GRID, st, 7 + g, &grid[g], x->err) < 0) return -1;
    const pkernel_t pk = {{t0 + c->offset, t1 + c->offset, RS_RAW_NO_TIME, corr, dev, stream, {(int32_t)grid[0], (int32_t)grid[1], (int32_t)grid[2]},
                           m->name, RS_RAW_NONE, (uint8_t)rs_raw_role(x->raw, m->name)},
                          PID_OF(gpid)};
    return rs_raw_grow((void **)&c->v, &c->n, &c->cap, sizeof pk, &pk) != 0 ? out_of_memory(x) : 0;
}

/* Kept kernels of the file. */
static int read_kernels(nsys_t *x, const name_map_t *names, size_t n_names, int64_t offset, pkernel_t **out, size_t *n_out) {
    const char *col = has_column(x->db, "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName") ? "demangledName" : "shortName";
    char sql[512];
    const bool grid = has_column(x->db, "CUPTI_ACTIVITY_KIND_KERNEL", "gridX");
    snprintf(sql, sizeof sql, "SELECT start, end, %s, %s, %s, %s, %s, %s FROM CUPTI_ACTIVITY_KIND_KERNEL", col,
             has_column(x->db, "CUPTI_ACTIVITY_KIND_KERNEL", "deviceId") ? "deviceId" : "0",
             has_column(x->db, "CUPTI_ACTIVITY_KIND_KERNEL", "streamId") ? "streamId" : "0",
             has_column(x->db, "CUPTI_ACTIVITY_KIND_KERNEL", "correlationId") ? "correlationId" : "NULL",
             has_column(x->db, "CUPTI_ACTIVITY_KIND_KERNEL", "globalPid") ? "globalPid" : "0",
             grid ? "gridX, gridY, gridZ" : "0, 0, 0");
    kernels_t c = {names, n_names, offset, NULL, 0, 0, {0, 0, 0, 0}};
    rs_vspan_init(&c.span);
    const rs_vat_t at = {x->path, KERNEL_TABLE, -1};
    if (each_row(x, sql, "reading CUPTI_ACTIVITY_KIND_KERNEL", kernel_row, &c) != 0 || rs_vspan_check(&c.span, &at, x->err) != 0) {
        free(c.v);
        return -1;
    }
    *out = c.v;
    *n_out = c.n;
    return 0;
}

typedef struct {
    pkernel_t *k;      /* the kept kernels, sorted by (process, correlation id) */
    size_t n;
    int64_t offset;    /* the session start */
} launches_t;

/* A row (correlation id, start, globalTid) of the runtime table: the launch of the kept kernel it
 * names, if any (the first one counts); its thread is recorded with the kernel's device. */
static int launch_row(nsys_t *x, sqlite3_stmt *st, void *ctx) {
    launches_t *c = ctx;
    const rs_vat_t at = {x->path, "CUPTI_ACTIVITY_KIND_RUNTIME", x->row};
    int64_t t0;
    if (row_times(x, &at, st, 1, -1, &t0, NULL) != 0) return -1;
    int64_t tid = sqlite3_column_int64(st, 2);
    pkernel_t key = {.pid = PID_OF(tid)};
    key.k.order = sqlite3_column_int64(st, 0);
    pkernel_t *m = bsearch(&key, c->k, c->n, sizeof *c->k, pk_corr_cmp);
    if (!m || m->k.launch_ns != RS_RAW_NO_TIME) return 0;
    m->k.launch_ns = t0 + c->offset;
    if (!rs_krole_is_ring(m->k.role)) return 0;
    size_t t = 0;
    while (t < x->n_tids && x->tids[t].tid != tid) t++;
    const tid_dev_t td = {tid, m->k.device};
    if (t == x->n_tids && rs_raw_grow((void **)&x->tids, &x->n_tids, &x->cap_tids, sizeof td, &td) != 0) return out_of_memory(x);
    return 0;
}

/* Launch times from CUPTI_ACTIVITY_KIND_RUNTIME (streamed; matched by process and correlation id). */
static int read_launches(nsys_t *x, pkernel_t *k, size_t n, int64_t offset) {
    if (n == 0 || !has_table(x->db, "CUPTI_ACTIVITY_KIND_RUNTIME") || !has_column(x->db, "CUPTI_ACTIVITY_KIND_RUNTIME", "correlationId"))
        return 0;
    qsort(k, n, sizeof *k, pk_corr_cmp);
    launches_t c = {k, n, offset};
    return each_row(x, "SELECT correlationId, start, globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS NOT NULL",
                    "reading CUPTI_ACTIVITY_KIND_RUNTIME", launch_row, &c);
}

typedef struct {
    const proc_t *procs;  /* the file's ranks, in ring order */
    size_t n_procs;
    size_t first_rank;    /* the raw rank of procs[0] */
    int64_t offset;       /* the session start */
} ranges_t;

/* A row (start, end, text, globalTid) of NVTX_EVENTS: a step (or ProfilerStep#N) range goes to the
 * rank of its process (of its thread's device when the process drives several GPUs). */
static int range_row(nsys_t *x, sqlite3_stmt *st, void *ctx) {
    const ranges_t *c = ctx;
    const rs_vat_t at = {x->path, "NVTX_EVENTS", x->row};
    const char *name = (const char *)sqlite3_column_text(st, 2);
    rs_raw_range_t g;
    if (!name || !rs_raw_range_kind(x->raw, name, &g)) return 0;
    int64_t tid = sqlite3_column_int64(st, 3), pid = PID_OF(tid), dev = -1;
    for (size_t t = 0; t < x->n_tids; t++)
        if (x->tids[t].tid == tid) dev = x->tids[t].device;
    const proc_t *procs = c->procs;
    const size_t n_procs = c->n_procs;
    size_t p = 0, n_of_pid = 0, any = n_procs;
    for (size_t q = 0; q < n_procs; q++)
        if (procs[q].pid == pid) n_of_pid++, any = q;
    if (n_of_pid == 1) { /* one GPU per process: the range is that rank's */
        p = any;
    } else { /* a process driving several GPUs: the rank of the device its thread launches on */
        while (p < n_procs && !(procs[p].pid == pid && procs[p].device == dev)) p++;
    }
    if (p == n_procs) return 0; /* a thread or process without ring kernels */
    if (row_times(x, &at, st, 0, 1, &g.start_ns, &g.end_ns) != 0) return -1;
    g.start_ns += c->offset, g.end_ns += c->offset;
    g.name = rs_raw_intern(x->raw, name, strlen(name));
    if (g.name == UINT32_MAX || rs_raw_add_range(&x->raw->ranks[c->first_rank + p], &g) != 0) return out_of_memory(x);
    return 0;
}

/* NVTX push/pop and start/end ranges that name a step, to the rank of their process. */
static int read_ranges(nsys_t *x, const proc_t *procs, size_t n_procs, size_t first_rank, int64_t offset) {
    if (!has_table(x->db, "NVTX_EVENTS")) return 0;
    bool text_id = has_column(x->db, "NVTX_EVENTS", "textId");
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT n.start, n.end, %s, n.globalTid FROM NVTX_EVENTS AS n %s "
             "WHERE n.eventType IN (59, 60) AND n.end IS NOT NULL",
             text_id ? "COALESCE(n.text, s.value)" : "n.text", text_id ? "LEFT JOIN StringIds AS s ON s.id = n.textId" : "");
    ranges_t c = {procs, n_procs, first_rank, offset};
    return each_row(x, sql, "reading NVTX_EVENTS", range_row, &c);
}

/* Processes of the kept kernels (k sorted by process), in ring order; MPI_RANKS gives the order when
 * every process has an entry. */
static int make_procs(nsys_t *x, const pkernel_t *k, size_t n, proc_t **out, size_t *n_out) {
    size_t np = 0;
#define NEW_GROUP(i) ((i) == 0 || k[i].pid != k[(i) - 1].pid || k[i].k.device != k[(i) - 1].k.device)
    for (size_t i = 0; i < n; i++) np += NEW_GROUP(i);
    proc_t *p = calloc(np ? np : 1, sizeof *p);
    if (!p) return out_of_memory(x);
    np = 0;
    for (size_t i = 0; i < n; i++) {
        if (NEW_GROUP(i)) p[np++] = (proc_t){k[i].pid, k[i].k.device, -1, i, 0};
        p[np - 1].n++;
    }
#undef NEW_GROUP
    if (has_table(x->db, "MPI_RANKS")) {
        for (size_t i = 0; i < np; i++) {
            char sql[160];
            snprintf(sql, sizeof sql, "SELECT MIN(rank) FROM MPI_RANKS WHERE ((globalTid >> 24) & 16777215) = %lld", (long long)p[i].pid);
            p[i].mpi_rank = query_i64(x->db, sql, -1);
        }
        bool all = true; /* MPI ranks order processes of one GPU each */
        for (size_t i = 0; i < np; i++) all = all && p[i].mpi_rank >= 0 && (i == 0 || p[i].pid != p[i - 1].pid);
        if (!all)
            for (size_t i = 0; i < np; i++) p[i].mpi_rank = -1;
    }
    qsort(p, np, sizeof *p, proc_cmp);
    *out = p;
    *n_out = np;
    return 0;
}

/* The GPU name of device d (TARGET_INFO_GPU's row of that id, else its first row), interned;
 * RS_RAW_NONE when the table is missing. */
static uint32_t gpu_of(nsys_t *x, int64_t d) {
    if (!has_table(x->db, "TARGET_INFO_GPU") || !has_column(x->db, "TARGET_INFO_GPU", "name")) return RS_RAW_NONE;
    sqlite3_stmt *st;
    uint32_t id = RS_RAW_NONE;
    if (sqlite3_prepare_v2(x->db, "SELECT name FROM TARGET_INFO_GPU WHERE name IS NOT NULL ORDER BY (id = ?1) DESC, id LIMIT 1", -1, &st, NULL) != SQLITE_OK)
        return id;
    sqlite3_bind_int64(st, 1, d);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *n = (const char *)sqlite3_column_text(st, 0);
        id = rs_raw_intern(x->raw, n, strlen(n));
        if (id == UINT32_MAX) id = RS_RAW_NONE;
    }
    sqlite3_finalize(st);
    return id;
}

/* utcEpochNs of TARGET_INFO_SESSION_START_TIME's first row into *ns (left 0 without one, or NULL).
 * 0 or -1 with err. */
static int epoch_row(nsys_t *x, sqlite3_stmt *st, void *ns) {
    return rs_value_sql(&(rs_vat_t){x->path, "TARGET_INFO_SESSION_START_TIME", x->row}, &RS_V_NSYS_EPOCH, st, 0, ns, x->err) < 0 ? -1 : 0;
}

static int session_start(nsys_t *x, int64_t *ns) {
    return each_row(x, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1", "reading TARGET_INFO_SESSION_START_TIME", epoch_row, ns);
}

/* Kernels and ranges of one open database into raw ranks. */
static int read_db(nsys_t *x) {
    sqlite3_stmt *st;
    int s = sqlite3_prepare_v2(x->db, "SELECT name FROM sqlite_master", -1, &st, NULL);
    while (s == SQLITE_OK && (s = sqlite3_step(st)) == SQLITE_ROW) s = SQLITE_OK;
    sqlite3_finalize(st);
    if (s != SQLITE_DONE) return sql_fail(x, "reading the schema");
    if (!has_table(x->db, "CUPTI_ACTIVITY_KIND_KERNEL")) {
        rs_errc(x->err, RS_ERR_BAD_INPUT, "%s: no CUPTI_ACTIVITY_KIND_KERNEL table: no CUDA kernels were traced (profile with nsys profile -t cuda,nvtx)",
                x->path);
        return -2;
    }
    if (!has_table(x->db, "StringIds")) {
        rs_errc(x->err, RS_ERR_BAD_INPUT, "%s: no StringIds table (the kernel names): not an nsys SQLite export", x->path);
        return -2;
    }
    if (!has_column(x->db, "CUPTI_ACTIVITY_KIND_KERNEL", "start") || !has_column(x->db, "CUPTI_ACTIVITY_KIND_KERNEL", "end") ||
        (!has_column(x->db, "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName") && !has_column(x->db, "CUPTI_ACTIVITY_KIND_KERNEL", "shortName")))
        return rs_errc(x->err, RS_ERR_BAD_INPUT, "%s: CUPTI_ACTIVITY_KIND_KERNEL lacks start, end or demangledName/shortName columns", x->path);
    int64_t offset = 0;
    if (has_table(x->db, "TARGET_INFO_SESSION_START_TIME") && session_start(x, &offset) != 0) return -1;
    if (!x->raw->gpu_name[0] && has_table(x->db, "TARGET_INFO_GPU") && has_column(x->db, "TARGET_INFO_GPU", "name")) {
        if (sqlite3_prepare_v2(x->db, "SELECT name FROM TARGET_INFO_GPU WHERE name IS NOT NULL LIMIT 1", -1, &st, NULL) == SQLITE_OK) {
            if (sqlite3_step(st) == SQLITE_ROW)
                snprintf(x->raw->gpu_name, sizeof x->raw->gpu_name, "%s", (const char *)sqlite3_column_text(st, 0));
            sqlite3_finalize(st);
        }
    }
    const char *col = has_column(x->db, "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName") ? "demangledName" : "shortName";
    name_map_t *names = NULL;
    size_t n_names = 0, nk = 0, np = 0;
    pkernel_t *k = NULL;
    proc_t *procs = NULL;
    int rc = relevant_names(x, col, &names, &n_names);
    if (rc == 0) rc = read_kernels(x, names, n_names, offset, &k, &nk);
    if (rc == 0 && nk == 0) rc = rs_errc(x->err, RS_ERR_BAD_INPUT, "%s: CUPTI_ACTIVITY_KIND_KERNEL holds no kernel (profile the run with nsys profile -t cuda,nvtx)", x->path);
    if (rc == 0) rc = read_launches(x, k, nk, offset);
    if (rc == 0) {
        qsort(k, nk, sizeof *k, pk_cmp);
        rc = make_procs(x, k, nk, &procs, &np);
    }
    size_t first = x->raw->n_ranks;
    for (size_t p = 0; rc == 0 && p < np; p++) {
        rs_raw_rank_t *r = rs_raw_add_rank(x->raw, x->path);
        if (!r) {
            rc = out_of_memory(x);
            break;
        }
        r->proc = procs[p].pid;
        r->device = procs[p].device;
        r->rank_key = procs[p].mpi_rank;
        r->gpu = gpu_of(x, procs[p].device);
        for (size_t i = 0; i < procs[p].n && rc == 0; i++)
            if (rs_raw_add_kernel(r, &k[procs[p].first + i].k) != 0) rc = out_of_memory(x);
    }
    if (rc == 0) rc = read_ranges(x, procs, np, first, offset);
    free(names), free(k), free(procs);
    return rc;
}

int rs_import_read_nsys(rs_raw_t *raw, const char *path, rs_err_t *err) {
    nsys_t x = {NULL, path, raw, err, NULL, 0, 0, {0, 0, 0, 0, false, false}, 0};
    if (sqlite3_open_v2(path, &x.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        int rc = rs_errc(err, x.db ? RS_ERR_BAD_INPUT : RS_ERR_RUNTIME, "%s: cannot open as SQLite: %s", path, x.db ? sqlite3_errmsg(x.db) : "out of memory");
        sqlite3_close(x.db);
        return rc;
    }
    struct stat sb;
    const double bytes = stat(path, &sb) == 0 ? (double)sb.st_size : 0;
    x.budget = (budget_t){0, bytes * RS_NSYS_STEPS_PER_BYTE > RS_NSYS_MIN_STEPS ? bytes * RS_NSYS_STEPS_PER_BYTE : RS_NSYS_MIN_STEPS, now_s(), RS_NSYS_MAX_S,
                          false, false};
    sqlite3_progress_handler(x.db, RS_NSYS_PROGRESS_OPS, on_progress, &x.budget);
    int rc = read_db(&x);
    if (x.budget.over && !x.budget.said) rc = sql_fail(&x, "the reading"); /* a helper query that was stopped */
    sqlite3_close(x.db);
    free(x.tids);
    return rc;
}
