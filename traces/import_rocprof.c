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
 * A file is one process; each agent it dispatched to is one rank (sorted by agent). The trace has no
 * launch times, step ranges, process groups nor device names: steps follow the launch order. Every
 * number goes through import_value.h (rs_value_text), each refusal naming FILE:LINE. */
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
static const struct {
    const char *name;
    const char *versions;
} COLS[C_COUNT] = {
    {"Kind", "every rocprofv3 version (ROCm 6.2 and later)"},
    {"Agent_Id", "every rocprofv3 version (ROCm 6.2 and later)"},
    {"Queue_Id", "every rocprofv3 version (ROCm 6.2 and later)"},
    {"Stream_Id", "the newer rocprofv3 header (rocprofiler-sdk after October 2024)"},
    {"Correlation_Id", "every rocprofv3 version (ROCm 6.2 and later)"},
    {"Dispatch_Id", "rocprofv3 after ROCm 6.2.2"},
    {"Kernel_Name", "every rocprofv3 version (ROCm 6.2 and later)"},
    {"Start_Timestamp", "every rocprofv3 version (ROCm 6.2 and later)"},
    {"End_Timestamp", "every rocprofv3 version (ROCm 6.2 and later)"},
    {"Grid_Size_X", "every rocprofv3 version"}, {"Grid_Size_Y", "every rocprofv3 version"}, {"Grid_Size_Z", "every rocprofv3 version"},
    {"Workgroup_Size_X", "every rocprofv3 version"}, {"Workgroup_Size_Y", "every rocprofv3 version"},
    {"Workgroup_Size_Z", "every rocprofv3 version"},
};

#define RP_MAX_COLS 256 /* header fields looked at (rocprofv3 writes 16 to 22) */

typedef struct {
    rs_raw_kernel_t k;
    int64_t agent;
} akernel_t;

typedef struct {
    const char *path;
    rs_raw_t *raw;
    rs_err_t *err;
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
} rp_t;

static int oom(rp_t *x) { return x->rc = rs_errf(x->err, "%s: out of memory", x->path); }

static void on_field(void *s, size_t len, void *data) {
    rp_t *x = data;
    const int f = x->field++;
    if (x->rc != 0) return;
    if (!x->header_done) {
        if (f >= RP_MAX_COLS) return;
        x->map[f] = -1;
        x->n_hdr = f + 1;
        for (int c = 0; c < C_COUNT; c++)
            if (s && strlen(COLS[c].name) == len && !memcmp(s, COLS[c].name, len) && !x->have[c]) x->map[f] = (int8_t)c, x->have[c] = true;
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

static const char *val(const rp_t *x, col_t c, size_t *len) {
    *len = x->set[c] ? x->len[c] : 0;
    return x->set[c] ? x->buf + x->ofs[c] : NULL;
}

/* Column c of the record under rule r: rs_value_text (0, 1 when absent and allowed, -1). */
static int col_value(rp_t *x, const rs_vat_t *at, const rs_vrule_t *r, col_t c, int64_t *out) {
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
            return rs_errc(x->err, RS_ERR_BAD_INPUT, "%s:1: the kernel trace has no %s column (%s writes it): not read", x->path, COLS[req[i]].name,
                           COLS[req[i]].versions);
    if (!x->have[C_STREAM] && !x->have[C_QUEUE])
        return rs_errc(x->err, RS_ERR_BAD_INPUT, "%s:1: the kernel trace has neither a Stream_Id (%s) nor a Queue_Id column (%s): not read", x->path,
                       COLS[C_STREAM].versions, COLS[C_QUEUE].versions);
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
        x->rc = check_header(x);
        return;
    }
    if (record(x) != 0 && x->rc == 0) x->rc = -1;
    memset(x->set, 0, sizeof x->set);
    x->buf_n = 0;
}

static int ak_cmp(const void *a, const void *b) { /* by agent, then start, then launch order */
    const akernel_t *x = a, *y = b;
    if (x->agent != y->agent) return x->agent < y->agent ? -1 : 1;
    if (x->k.start_ns != y->k.start_ns) return x->k.start_ns < y->k.start_ns ? -1 : 1;
    return (x->k.order > y->k.order) - (x->k.order < y->k.order);
}

/* Parse the file line by line (so each refusal names its line). */
static int parse(rp_t *x, FILE *fp) {
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

int rs_import_read_rocprof(rs_raw_t *raw, const char *path, rs_err_t *err) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: cannot open: %s", path, strerror(errno));
    rp_t x;
    memset(&x, 0, sizeof x);
    x.path = path, x.raw = raw, x.err = err;
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
    if (rc == 0) qsort(x.k, x.nk, sizeof *x.k, ak_cmp);
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
    free(x.k);
    free(x.buf);
    return rc;
}
