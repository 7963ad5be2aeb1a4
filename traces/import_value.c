/* import_value.c - the validating accessors of the trace readers (import_value.h): a JSON value or an
 * SQLite column under a rule (type, finite, representable, range), an interval's order, and the span
 * of a file's kernels. Every refusal names the file, the event or row, the field, the value and what
 * is accepted. */
#include "import_value.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kineto writes ts / dur in microseconds with 3 decimals (relative to baseTimeNanoseconds, or in
 * older files absolute: microseconds since the epoch, about 1.7e15); nsys writes integer
 * nanoseconds relative to the session start, whose utcEpochNs is about 1.7e18. The ranges keep the
 * sum of a base and a time inside int64 (9.2e18 ns). */
const rs_vrule_t RS_V_KINETO_TS = {"ts", "microseconds", 0, 4e15, 1000, true, false};
const rs_vrule_t RS_V_KINETO_DUR = {"dur", "microseconds", 0, 86400e6, 1000, true, false};
const rs_vrule_t RS_V_KINETO_BASE = {"baseTimeNanoseconds", "nanoseconds", 0, 4e18, 1, false, true};
const rs_vrule_t RS_V_NSYS_START = {"start", "nanoseconds", 0, 4e18, 1, true, false};
const rs_vrule_t RS_V_NSYS_END = {"end", "nanoseconds", 0, 4e18, 1, true, false};
const rs_vrule_t RS_V_NSYS_EPOCH = {"utcEpochNs", "nanoseconds", 0, 4e18, 1, false, false};
/* rocprofv3's kernel trace CSV (rocprofiler-sdk's kernel_trace.csv): integer nanoseconds of the
 * ROCm runtime's clock; an agent (its node id, or "Agent N"), a queue handle or a HIP stream id, the
 * correlation and dispatch ids, the grid and workgroup sizes in work-items (HSA's 32-bit fields). */
const rs_vrule_t RS_V_ROCPROF_START = {"Start_Timestamp", "nanoseconds", 0, 4e18, 1, true, false};
const rs_vrule_t RS_V_ROCPROF_END = {"End_Timestamp", "nanoseconds", 0, 4e18, 1, true, false};
const rs_vrule_t RS_V_ROCPROF_AGENT = {"Agent_Id", NULL, 0, 65535, 1, true, false};
const rs_vrule_t RS_V_ROCPROF_QUEUE = {"Queue_Id", NULL, 0, 9e18, 1, true, false};
const rs_vrule_t RS_V_ROCPROF_STREAM = {"Stream_Id", NULL, 0, 9e18, 1, true, false};
const rs_vrule_t RS_V_ROCPROF_CORR = {"Correlation_Id", NULL, 0, 4e18, 1, true, false};
const rs_vrule_t RS_V_ROCPROF_DISPATCH = {"Dispatch_Id", NULL, 0, 4e18, 1, false, false};
const rs_vrule_t RS_V_ROCPROF_GRID = {"Grid_Size_X/Y/Z", NULL, 0, 4294967295.0, 1, false, false};
const rs_vrule_t RS_V_ROCPROF_WORKGROUP = {"Workgroup_Size_X/Y/Z", NULL, 0, 4294967295.0, 1, false, false};
/* A kernel's ids: a CUDA device (ringsim reads at most 64 per file), a stream, a CUPTI correlation
 * id, an nsys serialized globalPid, a grid dimension (CUDA's limit, 2^31 - 1). */
const rs_vrule_t RS_V_KINETO_DEVICE = {"args.device", NULL, 0, 65535, 1, false, false};
const rs_vrule_t RS_V_KINETO_STREAM = {"args.stream", NULL, 0, 4294967295.0, 1, false, false};
const rs_vrule_t RS_V_KINETO_CORR = {"args.correlation", NULL, 0, 4e18, 1, false, false};
const rs_vrule_t RS_V_NSYS_DEVICE = {"deviceId", NULL, 0, 65535, 1, true, false};
const rs_vrule_t RS_V_NSYS_STREAM = {"streamId", NULL, 0, 4294967295.0, 1, true, false};
const rs_vrule_t RS_V_NSYS_CORR = {"correlationId", NULL, 0, 4e18, 1, false, false};
const rs_vrule_t RS_V_NSYS_PID = {"globalPid", NULL, 0, 9e18, 1, true, false};
const rs_vrule_t RS_V_NSYS_GRID = {"gridX/Y/Z", NULL, 0, 2147483647.0, 1, false, false};
/* A communication's arguments, as torch/csrc/profiler/util.cpp (saveNcclMeta) writes them: element
 * counts (at most 2^53, exact in the double a JSON reader may make of them), the group's size and a
 * peer's global rank (a world of at most 2^24 ranks), each an integer or a string holding one ("Dst
 * Rank": "2"). */
const rs_vrule_t RS_V_KINETO_IN_NELEMS = {"args.In msg nelems", NULL, 0, 9007199254740992.0, 1, false, true};
const rs_vrule_t RS_V_KINETO_OUT_NELEMS = {"args.Out msg nelems", NULL, 0, 9007199254740992.0, 1, false, true};
const rs_vrule_t RS_V_KINETO_GROUP_SIZE = {"args.Group size", NULL, 1, RS_V_MAX_RANK + 1.0, 1, false, true};
const rs_vrule_t RS_V_KINETO_SRC = {"args.Src Rank", NULL, 0, RS_V_MAX_RANK, 1, false, true};
const rs_vrule_t RS_V_KINETO_DST = {"args.Dst Rank", NULL, 0, RS_V_MAX_RANK, 1, false, true};
const rs_vrule_t RS_V_KINETO_RANK = {"distributedInfo.rank", NULL, 0, RS_V_MAX_RANK, 1, false, true};
const rs_vrule_t RS_V_KINETO_WORLD = {"distributedInfo.world_size", NULL, 1, RS_V_MAX_RANK + 1.0, 1, false, true};
/* A kernel's launch shape, per dimension: at least 1; a grid dimension at most 2^31 - 1 (CUDA's
 * limit of gridDim.x, CUDA C++ Programming Guide, "Technical Specifications per Compute
 * Capability"; the same bound for y and z, which ROCm traces give in work-items), a block dimension
 * at most 1024 threads (CUDA's and HIP's maxThreadsPerBlock). */
const rs_vrule_t RS_V_KINETO_GRID[3] = {{"args.grid", NULL, 1, 2147483647.0, 1, false, false},
                                        {"args.grid", NULL, 1, 2147483647.0, 1, false, false},
                                        {"args.grid", NULL, 1, 2147483647.0, 1, false, false}};
const rs_vrule_t RS_V_KINETO_BLOCK[3] = {{"args.block", NULL, 1, 1024, 1, false, false},
                                         {"args.block", NULL, 1, 1024, 1, false, false},
                                         {"args.block", NULL, 1, 1024, 1, false, false}};

const char RS_VAT_LINE[] = "line";

void rs_jv_set(rs_jv_t *v, rs_jv_type_t type, const char *s, size_t len) {
    v->type = (uint8_t)type;
    size_t n = s ? len : 0;
    v->cut = n >= sizeof v->text;
    if (v->cut) n = sizeof v->text - 1;
    if (n) memcpy(v->text, s, n);
    v->text[n] = '\0';
    v->len = (uint8_t)n;
}

/* "FILE: traceEvents[12]" / "FILE: CUPTI_ACTIVITY_KIND_KERNEL row 3" / "FILE" */
static void where(const rs_vat_t *at, char *dst, size_t cap) {
    const char *f = at->file ? at->file : "", *sep = at->file ? ": " : "";
    if (at->index < 0) snprintf(dst, cap, "%s", f);
    else if (at->table == RS_VAT_LINE) snprintf(dst, cap, "%s:%lld", f, (long long)at->index);
    else if (!at->table) snprintf(dst, cap, "%s%straceEvents[%lld]", f, sep, (long long)at->index);
    else snprintf(dst, cap, "%s%s%s row %lld", f, sep, at->table, (long long)at->index);
}

/* The value shown in a message: printable ASCII, quoted when it was a string. */
static void shown(const char *s, bool quoted, bool cut, char *dst, size_t cap) {
    size_t j = 0;
    if (quoted && j + 1 < cap) dst[j++] = '"';
    for (; *s && j + 5 < cap; s++) dst[j++] = isprint((unsigned char)*s) ? *s : '?';
    if (cut && j + 4 < cap) dst[j++] = '.', dst[j++] = '.', dst[j++] = '.';
    if (quoted && j + 1 < cap) dst[j++] = '"';
    dst[j] = '\0';
}

/* A bound as shown: 10 significant digits (4e+15), all of them when that would change it (2^53). */
static void bound(double v, char *dst, size_t cap) {
    snprintf(dst, cap, "%.10g", v);
    if (strtod(dst, NULL) != v) snprintf(dst, cap, "%.17g", v);
}

static int refuse(const rs_vat_t *at, const rs_vrule_t *r, const char *got, rs_err_t *err) {
    char w[600], lo[32], hi[32];
    where(at, w, sizeof w);
    bound(r->lo, lo, sizeof lo), bound(r->hi, hi, sizeof hi);
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s %s: expected %s%s%s in [%s, %s]", w, r->field, got, r->scale == 1 ? "an integer" : "a number",
                   r->unit ? " of " : "", r->unit ? r->unit : "", lo, hi);
}

/* Microseconds text ("5029783.925", "12", "1.5e3") -> integer nanoseconds, exact for plain decimals.
 * 0, -1 when it is not a number that fits, -2 when it underflows (a non-zero literal read as 0). */
static int us_text_to_ns(const char *buf, int64_t *ns) {
    if (strpbrk(buf, "eE")) {
        char *end;
        errno = 0;
        double v = strtod(buf, &end);
        if (*end || !isfinite(v) || fabs(v) > 9e15) return -1;
        if (errno == ERANGE) return -2;
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

int rs_value_i64_text(const char *s, size_t len, int64_t *v) {
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

/* Whether a value read as v (file units times r->scale) is within the rule's range. */
static bool in_range(const rs_vrule_t *r, int64_t v) {
    const double lo = r->lo * (double)r->scale, hi = r->hi * (double)r->scale;
    if ((double)v < lo || (double)v > hi) return false;
    return !((fabs(lo) < 9e18 && v < (int64_t)lo) || (fabs(hi) < 9e18 && v > (int64_t)hi)); /* exact past 2^53 */
}

/* A string or number value refused, shown as it was read (quoted when a string). */
static int refuse_jv(const rs_vat_t *at, const rs_vrule_t *r, const rs_jv_t *v, rs_err_t *err) {
    char got[96];
    shown(v->text, v->type == RS_JV_STRING, v->cut, got, sizeof got);
    return refuse(at, r, got, err);
}

int rs_value_json(const rs_vat_t *at, const rs_vrule_t *r, const rs_jv_t *v, int64_t *out, rs_err_t *err) {
    switch ((rs_jv_type_t)v->type) {
    case RS_JV_ABSENT: return r->required ? refuse(at, r, "missing", err) : 1;
    case RS_JV_NULL: return refuse(at, r, "null", err);
    case RS_JV_CONTAINER: return refuse(at, r, "an array or object", err);
    case RS_JV_BOOL: return refuse(at, r, v->text, err);
    case RS_JV_STRING:
        if (!r->text_ok) return refuse_jv(at, r, v, err);
        break;
    case RS_JV_NUMBER: break;
    default: return refuse(at, r, "?", err);
    }
    if (v->cut || v->len == 0) return refuse_jv(at, r, v, err);
    if (r->lo >= 0 && v->text[0] == '-') return refuse_jv(at, r, v, err); /* -0.0 too: no profiler writes it */
    int64_t x;
    const int rc = r->scale == 1000 ? us_text_to_ns(v->text, &x) : rs_value_i64_text(v->text, v->len, &x);
    if (rc == -2) {
        char w[600], got[96];
        where(at, w, sizeof w);
        shown(v->text, v->type == RS_JV_STRING, v->cut, got, sizeof got);
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s %s: not representable as a double (it underflows): expected a number of %s in [%.6g, %.6g]", w,
                       r->field, got, r->unit, r->lo, r->hi);
    }
    if (rc != 0 || !in_range(r, x)) return refuse_jv(at, r, v, err);
    *out = x;
    return 0;
}

int rs_value_text(const rs_vat_t *at, const rs_vrule_t *r, const char *s, size_t len, int64_t *out, rs_err_t *err) {
    if (!s || len == 0) return r->required ? refuse(at, r, "missing", err) : 1;
    int64_t x;
    if (!(r->lo >= 0 && s[0] == '-') && rs_value_i64_text(s, len, &x) == 0 && in_range(r, x)) {
        *out = x;
        return 0;
    }
    char lit[40], got[96];
    snprintf(lit, sizeof lit, "%.*s", (int)(len < sizeof lit ? len : sizeof lit - 1), s);
    shown(lit, true, len >= sizeof lit, got, sizeof got);
    return refuse(at, r, got, err);
}

/* v as shown in a message: its literal (quoted when a string), "null", "an array or object". */
static void jv_shown(const rs_jv_t *v, char *dst, size_t cap) {
    if (v->type == RS_JV_CONTAINER) snprintf(dst, cap, "an array or object");
    else if (v->type == RS_JV_NULL) snprintf(dst, cap, "null");
    else shown(v->text, v->type == RS_JV_STRING, v->cut, dst, cap);
}

int rs_value_json_text(const rs_vat_t *at, const char *field, const rs_jv_t *v, rs_err_t *err) {
    if (v->type == RS_JV_ABSENT) return 1;
    if (v->type == RS_JV_STRING && v->len > 0) return 0;
    char w[600], got[96];
    where(at, w, sizeof w);
    jv_shown(v, got, sizeof got);
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s %s: expected a non-empty string", w, field, got);
}

int rs_value_json_dim3(const rs_vat_t *at, const rs_vrule_t r[3], const rs_jv_dim3_t *d, int32_t out[3], rs_err_t *err) {
    if (d->whole.type == RS_JV_ABSENT) return 1;
    if (!d->array || d->n != 3) {
        char w[600], got[96];
        where(at, w, sizeof w);
        if (d->array) snprintf(got, sizeof got, ": an array of %d entries", d->n);
        else jv_shown(&d->whole, got + 1, sizeof got - 1), got[0] = ' ';
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s%s: expected an array of 3 integers (x, y, z), each in [%.10g, %.10g]", w, r[0].field, got, r[0].lo,
                       r[0].hi);
    }
    int32_t v3[3];
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s[%d]", r[i].field, i);
        rs_vrule_t e = r[i];
        e.field = name, e.required = true;
        int64_t x;
        if (rs_value_json(at, &e, &d->v[i], &x, err) != 0) return -1;
        v3[i] = (int32_t)x;
    }
    memcpy(out, v3, sizeof v3);
    return 0;
}

static int ranks_refuse(const rs_vat_t *at, const char *field, const char *s, const char *why, rs_err_t *err) {
    char w[600], head[61], got[96];
    where(at, w, sizeof w);
    got[0] = '\0';
    if (s) { /* at most 60 bytes shown, then "..." */
        snprintf(head, sizeof head, "%s", s);
        shown(head, true, strlen(s) >= sizeof head, got + 1, sizeof got - 1), got[0] = ' ';
    }
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s%s: %sexpected a list of distinct ranks in [0, %d] (\"[0, 2, 4, 6]\")", w, field, got, why, RS_V_MAX_RANK);
}

int rs_value_ranks(const rs_vat_t *at, const char *field, const char *s, int32_t *out, int cap, int *n, bool *cut, int64_t *max_rank, rs_err_t *err) {
    const char *p = s;
    int k = 0;
    *cut = false;
    *max_rank = -1;
    while (isspace((unsigned char)*p)) p++;
    const bool bracket = *p == '[';
    if (bracket) p++;
    for (bool first = true;; first = false) {
        while (isspace((unsigned char)*p)) p++;
        if (bracket && *p == ']' && first) {
            p++;
            break;
        }
        if (!bracket && !*p && first) break;
        if (!strncmp(p, "...", 3)) { /* the profiler cut the list here */
            *cut = true;
            p += 3;
            while (isspace((unsigned char)*p)) p++;
            if (bracket && *p == ']') p++;
            break;
        }
        if (!isdigit((unsigned char)*p)) return ranks_refuse(at, field, s, "", err);
        int64_t a = 0, b;
        for (; isdigit((unsigned char)*p); p++)
            if ((a = 10 * a + (*p - '0')) > RS_V_MAX_RANK) return ranks_refuse(at, field, s, "a rank out of range: ", err);
        b = a;
        if (*p == '-') { /* a range a-b */
            p++;
            if (!isdigit((unsigned char)*p)) return ranks_refuse(at, field, s, "", err);
            for (b = 0; isdigit((unsigned char)*p); p++)
                if ((b = 10 * b + (*p - '0')) > RS_V_MAX_RANK) return ranks_refuse(at, field, s, "a rank out of range: ", err);
            if (b < a) return ranks_refuse(at, field, s, "a range that runs backwards: ", err);
        }
        if (b > *max_rank) *max_rank = b;
        for (int64_t v = a; v <= b; v++) {
            if (k == cap) {
                *cut = true;
                break;
            }
            out[k++] = (int32_t)v;
        }
        while (isspace((unsigned char)*p)) p++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (bracket && *p == ']') p++;
        else if (bracket || *p) return ranks_refuse(at, field, s, "", err);
        break;
    }
    while (isspace((unsigned char)*p)) p++;
    if (*p) return ranks_refuse(at, field, s, "", err);
    *n = k;
    return rs_value_ranks_distinct(at, field, s, out, k, err);
}

static int i32_cmp(const void *a, const void *b) {
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int rs_value_ranks_distinct(const rs_vat_t *at, const char *field, const char *shown_as, const int32_t *ranks, int n, rs_err_t *err) {
    if (n < 2) return 0;
    int32_t *c = malloc((size_t)n * sizeof *c);
    if (!c) return rs_errf(err, "%s: out of memory", at->file ? at->file : "");
    memcpy(c, ranks, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, i32_cmp);
    int32_t twice = -1;
    for (int i = 1; i < n && twice < 0; i++)
        if (c[i] == c[i - 1]) twice = c[i];
    free(c);
    if (twice < 0) return 0;
    char why[64];
    snprintf(why, sizeof why, "rank %d appears twice: ", (int)twice);
    return ranks_refuse(at, field, shown_as, why, err);
}

int rs_value_sql(const rs_vat_t *at, const rs_vrule_t *r, sqlite3_stmt *st, int col, int64_t *out, rs_err_t *err) {
    char got[96];
    switch (sqlite3_column_type(st, col)) {
    case SQLITE_NULL: return r->required ? refuse(at, r, "NULL", err) : 1;
    case SQLITE_INTEGER: {
        const int64_t x = sqlite3_column_int64(st, col);
        if (!in_range(r, x * r->scale)) {
            snprintf(got, sizeof got, "%lld", (long long)x);
            return refuse(at, r, got, err);
        }
        *out = x * r->scale;
        return 0;
    }
    case SQLITE_FLOAT: {
        const double d = sqlite3_column_double(st, col);
        snprintf(got, sizeof got, "%.17g", d);
        if (!isfinite(d) || d != floor(d) || d < r->lo || d > r->hi) return refuse(at, r, got, err);
        *out = (int64_t)d * r->scale;
        return 0;
    }
    case SQLITE_TEXT: {
        const char *s = (const char *)sqlite3_column_text(st, col);
        char lit[40];
        snprintf(lit, sizeof lit, "%s", s ? s : "");
        char q[64];
        shown(lit, true, s && strlen(s) >= sizeof lit, q, sizeof q);
        snprintf(got, sizeof got, "the text %s", q);
        return refuse(at, r, got, err);
    }
    default: return refuse(at, r, "a blob", err);
    }
}

int rs_value_order(const rs_vat_t *at, const char *start_field, int64_t start_ns, const char *end_field, int64_t end_ns, rs_err_t *err) {
    if (end_ns >= start_ns) return 0;
    char w[600];
    where(at, w, sizeof w);
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s %lld ns is before %s %lld ns: expected %s >= %s", w, end_field, (long long)end_ns, start_field,
                   (long long)start_ns, end_field, start_field);
}

void rs_vspan_init(rs_vspan_t *s) { *s = (rs_vspan_t){INT64_MAX, INT64_MIN, -1, -1}; }

void rs_vspan_add(rs_vspan_t *s, int64_t start_ns, int64_t end_ns, int64_t at) {
    if (start_ns < s->lo_ns) s->lo_ns = start_ns, s->lo_at = at;
    if (end_ns > s->hi_ns) s->hi_ns = end_ns, s->hi_at = at;
}

int rs_vspan_check(const rs_vspan_t *s, const rs_vat_t *at, rs_err_t *err) {
    if (s->lo_at < 0 || s->hi_ns - s->lo_ns <= RS_V_MAX_SPAN_NS) return 0;
    const rs_vat_t a = {at->file, at->table, s->lo_at}, b = {NULL, at->table, s->hi_at};
    char wa[600], wb[200];
    where(&a, wa, sizeof wa);
    where(&b, wb, sizeof wb);
    const double span_s = (double)(s->hi_ns - s->lo_ns) * 1e-9;
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s starts %.6g s (%.3g days) before %s ends: the kernels of one trace span at most %.0f s (24 h): a time out of line",
                   wa, span_s, span_s / 86400, wb, (double)RS_V_MAX_SPAN_NS * 1e-9);
}
