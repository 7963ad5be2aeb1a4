/* import_rocprof.c - rocprofv3 kernel traces (`rocprofv3 --kernel-trace --output-format csv`:
 * PREFIX_kernel_trace.csv), read with libcsv (RFC 4180: quoted kernel names hold commas) into the raw
 * store (import_readers.h). Columns are found by their header name, so the headers of every
 * rocprofv3 version read alike (docs/import.md "rocprofv3"): an unknown column is ignored, a missing
 * required one refused naming the column and the versions that write it. Used:
 *   Kind                          KERNEL_DISPATCH rows only (every version)
 *   Agent_Id                      the GPU: its node id ("4"), or "Agent 4" in the newer header
 *   Stream_Id, else Queue_Id      the HIP stream (newer header), else the HSA queue
 *   Correlation_Id, Dispatch_Id   launch order: the correlation id (every version)
 *   Kernel_Name                   the (demangled) kernel name
 *   Start_Timestamp, End_Timestamp  integer nanoseconds
 *   Grid_Size_X/Y/Z, Workgroup_Size_X/Y/Z  the grid in workgroups (HSA's grid counts work-items)
 * A file is one process; each agent it dispatched to is one rank (sorted by agent). Beside it, when
 * rocprofv3 wrote them: PREFIX_hip_api_trace.csv (--hip-trace) gives each kernel's launch (the HIP
 * call of its Correlation_Id), PREFIX_marker_api_trace.csv (--marker-trace) the ROCTx ranges (step
 * ranges, ProfilerStep#N; each the process's, so every agent's of the file). Without them steps
 * follow the launch order. The traces name no process group nor device. Every number goes through
 * import_value.h (rs_value_text), each refusal naming FILE:LINE. */
#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_readers.h"
#include "import_value.h"

typedef enum {
    C_KIND = 0, C_AGENT, C_QUEUE, C_STREAM, C_CORR, C_DISPATCH, C_NAME, C_START, C_END,
    C_GRID_X, C_GRID_Y, C_GRID_Z, C_WG_X, C_WG_Y, C_WG_Z, C_COUNT
} col_t;

/* The columns read, and which rocprofv3 headers have them (rocprofiler-sdk's
 * source/lib/rocprofiler-sdk-tool/generateCSV.cpp at tag rocm-6.2.0 and at 8ab1ed7, Oct 2024; the
 * develop documentation's how-to/kernel-naming-filtering sample with Stream_Id). */
static const char *const KCOLS[C_COUNT] = {"Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Correlation_Id", "Dispatch_Id", "Kernel_Name",
                                           "Start_Timestamp", "End_Timestamp", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z",
                                           "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z"};
static const char *const KCOL_VERSIONS[C_COUNT] = {
    "every rocprofv3 version (ROCm 6.2 and later)",
    "every rocprofv3 version (ROCm 6.2 and later)",
    "every rocprofv3 version (ROCm 6.2 and later)",
    "the newer rocprofv3 header (rocprofiler-sdk after October 2024)",
    "every rocprofv3 version (ROCm 6.2 and later)",
    "rocprofv3 after ROCm 6.2.2",
    "every rocprofv3 version (ROCm 6.2 and later)",
    "every rocprofv3 version (ROCm 6.2 and later)",
    "every rocprofv3 version (ROCm 6.2 and later)",
    "every rocprofv3 version",
    "every rocprofv3 version",
    "every rocprofv3 version",
    "every rocprofv3 version",
    "every rocprofv3 version",
    "every rocprofv3 version",
};

/* The API traces beside it (PREFIX_hip_api_trace.csv of --hip-trace: the launch of each kernel,
 * the call with its Correlation_Id; PREFIX_marker_api_trace.csv of --marker-trace: ROCTx ranges,
 * their message in Function): the same header in every version (generateCSV.cpp, as above). */
enum { A_FUNC = 0, A_CORR, A_START, A_END, A_COUNT };
static const char *const API_COLS[A_COUNT] = {"Function", "Correlation_Id", "Start_Timestamp", "End_Timestamp"};

#define RP_MAX_COLS 256 /* header fields looked at (rocprofv3 writes 16 to 22) */

typedef struct {
    rs_raw_kernel_t k;
    int64_t agent;
} akernel_t;

typedef struct {
    int64_t corr, start_ns;
} launch_t;

typedef struct rp rp_t;
struct rp {
    const char *path;
    rs_raw_t *raw;
    rs_err_t *err;
    const char *const *names;  /* the table's columns: KCOLS or API_COLS */
    int n_cols;
    int (*check)(rp_t *x);      /* the header (0, -1, -2 not this table) */
    int (*rec)(rp_t *x);        /* a record (0 or -1) */
    int8_t map[RP_MAX_COLS];   /* header field index -> col_t, -1 unused */
    int n_hdr;
    bool have[C_COUNT];
    bool header_done;
    int rc;                     /* 0, or -1 / -2 once refused (the rest of the file is ignored) */
    int64_t line;               /* the line being parsed, from 1 */
    int field;                  /* index of the next field in the record */
    size_t ofs[C_COUNT], len[C_COUNT];
    bool set[C_COUNT];
    char *buf;                  /* the current record's used fields */
    size_t buf_n, buf_cap;
    akernel_t *k;
    size_t nk, ck;
    size_t n_other_kind;        /* rows of another Kind */
    rs_vspan_t span;
    launch_t *l;                /* hip_api_trace: calls by correlation id */
    size_t nl, cl;
    rs_raw_range_t *g;          /* marker_api_trace: step and ProfilerStep ranges */
    size_t ng, cg;
};

static int oom(rp_t *x) { return x->rc = rs_errf(x->err, "%s: out of memory", x->path); }

static void on_field(void *s, size_t len, void *data) {
    rp_t *x = data;
    const int f = x->field++;
    if (x->rc != 0) return;
    if (!x->header_done) {
        if (f >= RP_MAX_COLS) return;
        x->map[f] = -1;
        x->n_hdr = f + 1;
        for (int c = 0; c < x->n_cols; c++)
            if (s && strlen(x->names[c]) == len && !memcmp(s, x->names[c], len) && !x->have[c]) x->map[f] = (int8_t)c, x->have[c] = true;
        return;
    }
    if (f >= x->n_hdr || x->map[f] < 0) return;
    const int c = x->map[f];
    if (x->buf_n + len + 1 > x->buf_cap) {
        size_t cap = x->buf_cap ? x->buf_cap : 1024;
        while (cap < x->buf_n + len + 1) cap *= 2;
        char *b = realloc(x->buf, cap);
        if (!b) {
            oom(x);
            return;
        }
        x->buf = b, x->buf_cap = cap;
    }
    if (len) memcpy(x->buf + x->buf_n, s, len);
    x->buf[x->buf_n + len] = '\0';
    x->ofs[c] = x->buf_n, x->len[c] = len, x->set[c] = true;
    x->buf_n += len + 1;
}

static const char *val(const rp_t *x, int c, size_t *len) {
    *len = x->set[c] ? x->len[c] : 0;
    return x->set[c] ? x->buf + x->ofs[c] : NULL;
}

/* Column c of the record under rule r: rs_value_text (0, 1 when absent and allowed, -1). */
static int col_value(rp_t *x, const rs_vat_t *at, const rs_vrule_t *r, int c, int64_t *out) {
    size_t len;
    const char *s = val(x, c, &len);
    return rs_value_text(at, r, s, len, out, x->err);
}

/* The header's checks: the required columns present. */
static int check_header(rp_t *x) {
    if (!x->have[C_NAME]) {
        rs_errc(x->err, RS_ERR_BAD_INPUT, "%s:1: no Kernel_Name column: not a rocprofv3 kernel trace (give the *_kernel_trace.csv files of "
                "rocprofv3 --kernel-trace)", x->path);
        return -2;
    }
    static const col_t req[] = {C_AGENT, C_CORR, C_START, C_END};
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++)
        if (!x->have[req[i]])
            return rs_errc(x->err, RS_ERR_BAD_INPUT, "%s:1: the kernel trace has no %s column (%s writes it): not read", x->path, KCOLS[req[i]],
                           KCOL_VERSIONS[req[i]]);
    if (!x->have[C_STREAM] && !x->have[C_QUEUE])
        return rs_errc(x->err, RS_ERR_BAD_INPUT, "%s:1: the kernel trace has neither a Stream_Id (%s) nor a Queue_Id column (%s): not read", x->path,
                       KCOL_VERSIONS[C_STREAM], KCOL_VERSIONS[C_QUEUE]);
    return 0;
}

/* One workgroup count of a grid: ceil(grid / workgroup) work-items, 0 when not recorded. */
static int grid_dim(rp_t *x, const rs_vat_t *at, col_t g, col_t w, int32_t *out) {
    int64_t ng = 0, nw = 0;
    if (col_value(x, at, &RS_V_ROCPROF_GRID, g, &ng) < 0 || col_value(x, at, &RS_V_ROCPROF_WORKGROUP, w, &nw) < 0) return -1;
    *out = nw > 0 ? (int32_t)((ng + nw - 1) / nw) : 0;
    return 0;
}

/* A data record: a kernel dispatch kept, another kind counted. 0 or -1 with err. */
static int record(rp_t *x) {
    const rs_vat_t at = {x->path, RS_VAT_LINE, x->line};
    size_t len;
    const char *s = val(x, C_KIND, &len);
    if (x->have[C_KIND] && !(s && len == 15 && !memcmp(s, "KERNEL_DISPATCH", 15))) {
        x->n_other_kind++;
        return 0;
    }
    int64_t t0, t1, agent, stream, corr;
    if (col_value(x, &at, &RS_V_ROCPROF_START, C_START, &t0) != 0 || col_value(x, &at, &RS_V_ROCPROF_END, C_END, &t1) != 0 ||
        rs_value_order(&at, "Start_Timestamp", t0, "End_Timestamp", t1, x->err) != 0)
        return -1;
    s = val(x, C_AGENT, &len);
    if (s && len > 6 && !memcmp(s, "Agent ", 6)) s += 6, len -= 6; /* "Agent 4" */
    if (rs_value_text(&at, &RS_V_ROCPROF_AGENT, s, len, &agent, x->err) != 0) return -1;
    const col_t sc = x->have[C_STREAM] ? C_STREAM : C_QUEUE;
    int64_t dispatch;
    if (col_value(x, &at, sc == C_STREAM ? &RS_V_ROCPROF_STREAM : &RS_V_ROCPROF_QUEUE, sc, &stream) != 0 ||
        col_value(x, &at, &RS_V_ROCPROF_CORR, C_CORR, &corr) != 0 || col_value(x, &at, &RS_V_ROCPROF_DISPATCH, C_DISPATCH, &dispatch) < 0)
        return -1;
    int32_t grid[3];
    if (grid_dim(x, &at, C_GRID_X, C_WG_X, &grid[0]) != 0 || grid_dim(x, &at, C_GRID_Y, C_WG_Y, &grid[1]) != 0 ||
        grid_dim(x, &at, C_GRID_Z, C_WG_Z, &grid[2]) != 0)
        return -1;
    s = val(x, C_NAME, &len);
    if (!s || len == 0) return rs_errc(x->err, RS_ERR_BAD_INPUT, "%s:%lld: Kernel_Name empty: expected the kernel's name", x->path, (long long)x->line);
    const uint32_t name = rs_raw_intern(x->raw, s, len);
    if (name == UINT32_MAX) return oom(x);
    rs_vspan_add(&x->span, t0, t1, x->line);
    const akernel_t ak = {{t0, t1, RS_RAW_NO_TIME, corr, agent, stream, {grid[0], grid[1], grid[2]}, name, RS_RAW_NONE,
                           (uint8_t)rs_raw_role(x->raw, name)},
                          agent};
    return rs_raw_grow((void **)&x->k, &x->nk, &x->ck, sizeof ak, &ak) != 0 ? oom(x) : 0;
}

static void on_row(int c, void *data) {
    (void)c;
    rp_t *x = data;
    const bool empty = x->field == 0;
    x->field = 0;
    if (x->rc != 0 || empty) return;
    if (!x->header_done) {
        x->header_done = true;
        x->rc = x->check(x);
        return;
    }
    if (x->rec(x) != 0 && x->rc == 0) x->rc = -1;
    memset(x->set, 0, sizeof x->set);
    x->buf_n = 0;
}

/* An API trace's header: every API_COLS column. */
static int check_api_header(rp_t *x) {
    for (int c = 0; c < A_COUNT; c++)
        if (!x->have[c])
            return rs_errc(x->err, RS_ERR_BAD_INPUT, "%s:1: the API trace has no %s column (every rocprofv3 version writes it): not read", x->path,
                           API_COLS[c]);
    return 0;
}

/* A call's start and end, validated. */
static int api_times(rp_t *x, const rs_vat_t *at, int64_t *t0, int64_t *t1) {
    return col_value(x, at, &RS_V_ROCPROF_START, A_START, t0) != 0 || col_value(x, at, &RS_V_ROCPROF_END, A_END, t1) != 0 ||
                   rs_value_order(at, "Start_Timestamp", *t0, "End_Timestamp", *t1, x->err) != 0
               ? -1
               : 0;
}

/* A HIP API call: its correlation id and start (the launch of the kernel with that id, if any). */
static int launch_record(rp_t *x) {
    const rs_vat_t at = {x->path, RS_VAT_LINE, x->line};
    launch_t l;
    int64_t t1;
    if (api_times(x, &at, &l.start_ns, &t1) != 0 || col_value(x, &at, &RS_V_ROCPROF_CORR, A_CORR, &l.corr) != 0) return -1;
    return rs_raw_grow((void **)&x->l, &x->nl, &x->cl, sizeof l, &l) != 0 ? oom(x) : 0;
}

/* A ROCTx range: kept when its message names a ring step or a ProfilerStep#N. */
static int range_record(rp_t *x) {
    const rs_vat_t at = {x->path, RS_VAT_LINE, x->line};
    size_t len;
    const char *s = val(x, A_FUNC, &len);
    rs_raw_range_t g;
    if (!s || !rs_raw_range_kind(x->raw, s, &g)) return 0;
    if (api_times(x, &at, &g.start_ns, &g.end_ns) != 0) return -1;
    g.name = rs_raw_intern(x->raw, s, len);
    if (g.name == UINT32_MAX) return oom(x);
    return rs_raw_grow((void **)&x->g, &x->ng, &x->cg, sizeof g, &g) != 0 ? oom(x) : 0;
}

static int launch_cmp(const void *a, const void *b) {
    const launch_t *x = a, *y = b;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

static int ak_cmp(const void *a, const void *b) { /* by agent, then start, then launch order */
    const akernel_t *x = a, *y = b;
    if (x->agent != y->agent) return x->agent < y->agent ? -1 : 1;
    if (x->k.start_ns != y->k.start_ns) return x->k.start_ns < y->k.start_ns ? -1 : 1;
    return (x->k.order > y->k.order) - (x->k.order < y->k.order);
}

/* Parse the file line by line (so each refusal names its line). */
static int parse(rp_t *x, FILE *fp) {
    x->line = 0, x->field = 0, x->header_done = false, x->buf_n = 0;
    memset(x->have, 0, sizeof x->have);
    memset(x->set, 0, sizeof x->set);
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) return rs_errf(x->err, "%s: out of memory", x->path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while (x->rc == 0 && (n = getline(&line, &cap, fp)) != -1) {
        x->line++;
        if (csv_parse(&p, line, (size_t)n, on_field, on_row, x) != (size_t)n && x->rc == 0)
            x->rc = rs_errc(x->err, RS_ERR_BAD_INPUT, "%s:%lld: not CSV: %s", x->path, (long long)x->line, csv_strerror(csv_error(&p)));
    }
    if (x->rc == 0 && ferror(fp)) x->rc = rs_errc(x->err, RS_ERR_RUNTIME, "%s: read error: %s", x->path, strerror(errno));
    if (x->rc == 0 && csv_fini(&p, on_field, on_row, x) != 0 && x->rc == 0)
        x->rc = rs_errc(x->err, RS_ERR_BAD_INPUT, "%s:%lld: not CSV: %s (a quoted field not closed)", x->path, (long long)x->line,
                        csv_strerror(csv_error(&p)));
    csv_free(&p);
    free(line);
    return x->rc;
}

/* The API trace beside path (its "kernel_trace.csv" replaced by what) into x under the table given:
 * 0 (also when there is none), or -1 with err. */
static int read_beside(rp_t *x, const char *path, const char *what, const char *const *names, int n_cols, int (*rec)(rp_t *)) {
    static const char kt[] = "kernel_trace.csv";
    const size_t n = strlen(path);
    if (n < sizeof kt - 1 || strcmp(path + n - (sizeof kt - 1), kt) != 0) return 0;
    char *p = malloc(n - (sizeof kt - 1) + strlen(what) + 1);
    if (!p) return rs_errf(x->err, "%s: out of memory", path);
    memcpy(p, path, n - (sizeof kt - 1));
    strcpy(p + n - (sizeof kt - 1), what);
    FILE *fp = fopen(p, "rb");
    int rc = 0;
    if (fp) {
        x->path = p, x->names = names, x->n_cols = n_cols, x->check = check_api_header, x->rec = rec;
        rc = parse(x, fp);
        fclose(fp);
        x->path = path;
    }
    free(p);
    return rc;
}

int rs_import_read_rocprof(rs_raw_t *raw, const char *path, rs_err_t *err) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: cannot open: %s", path, strerror(errno));
    rp_t x;
    memset(&x, 0, sizeof x);
    x.path = path, x.raw = raw, x.err = err, x.names = KCOLS, x.n_cols = C_COUNT, x.check = check_header, x.rec = record;
    rs_vspan_init(&x.span);
    int rc = parse(&x, fp);
    fclose(fp);
    if (rc == 0 && !x.header_done) {
        rs_errc(err, RS_ERR_BAD_INPUT, "%s: empty file (expected a rocprofv3 kernel trace CSV)", path);
        rc = -2;
    }
    if (rc == 0) rc = rs_vspan_check(&x.span, &(rs_vat_t){path, RS_VAT_LINE, -1}, err);
    if (rc == 0 && x.nk == 0)
        rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: holds no KERNEL_DISPATCH row (%zu rows of another Kind): profile with rocprofv3 --kernel-trace", path,
                     x.n_other_kind);
    /* the launches (--hip-trace) and step ranges (--marker-trace) beside it, when there */
    if (rc == 0) rc = read_beside(&x, path, "hip_api_trace.csv", API_COLS, A_COUNT, launch_record);
    if (rc == 0) rc = read_beside(&x, path, "marker_api_trace.csv", API_COLS, A_COUNT, range_record);
    if (rc == 0 && x.nl > 0) {
        qsort(x.l, x.nl, sizeof *x.l, launch_cmp);
        for (size_t i = 0; i < x.nk; i++) {
            const launch_t key = {x.k[i].k.order, 0}, *m = bsearch(&key, x.l, x.nl, sizeof *x.l, launch_cmp);
            if (m) x.k[i].k.launch_ns = m->start_ns;
        }
    }
    if (rc == 0) qsort(x.k, x.nk, sizeof *x.k, ak_cmp);
    const size_t first = raw->n_ranks;
    for (size_t i = 0; rc == 0 && i < x.nk; i++) {
        if (i == 0 || x.k[i].agent != x.k[i - 1].agent) { /* one rank per agent */
            rs_raw_rank_t *r = rs_raw_add_rank(raw, path);
            if (!r) {
                rc = rs_errf(err, "%s: out of memory", path);
                break;
            }
            r->device = x.k[i].agent;
        }
        if (rs_raw_add_kernel(&raw->ranks[raw->n_ranks - 1], &x.k[i].k) != 0) rc = rs_errf(err, "%s: out of memory", path);
    }
    for (size_t r = first; rc == 0 && r < raw->n_ranks; r++) /* the process's ranges: each of its agents' */
        for (size_t j = 0; rc == 0 && j < x.ng; j++)
            if (rs_raw_add_range(&raw->ranks[r], &x.g[j]) != 0) rc = rs_errf(err, "%s: out of memory", path);
    free(x.k);
    free(x.l);
    free(x.g);
    free(x.buf);
    return rc;
}
