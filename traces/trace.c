/* trace.c - the one trace schema: in-memory trace, CSV writer/reader, Chrome JSON writer (trace.h).
 *
 * File formats are documented in docs/traces.md. Every number is printed with %.17g (doubles) or
 * %d (integers), so a trace written twice gives identical bytes and a CSV round trip is exact.
 */
#include "trace.h"

#include "estimate.h"
#include "output.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RS_TRACE_VERSION 1
static const char RS_TRACE_COLUMNS[] = "source,rank,step,pass,kind,start_s,end_s,flops,bytes,peer";
#define RS_TRACE_NCOLS 10
/* |start_s|, |end_s| at most this (~31700 years): a difference of two times can't overflow */
#define RS_TRACE_MAX_ABS_TIME_S 1e12

struct rs_trace {
    char *source;          /* "model", "sim", "exec-cpu", ... (also every row's first column) */
    size_t n_meta;         /* header key/value pairs, in insertion order */
    size_t cap_meta;       /* allocated pairs */
    char **meta_keys;      /* [n_meta] */
    char **meta_values;    /* [n_meta] */
    size_t n_events;       /* events */
    size_t cap_events;     /* allocated events */
    rs_event_t *events;    /* [n_events] */
    int sorted;            /* 1 when events are known sorted by (pass, rank, step, kind) */
};

/* ------------------------------------------------------------------------------------------------
 * Trace object
 * ---------------------------------------------------------------------------------------------- */
rs_trace_t *rs_trace_create(const char *source) {
    rs_trace_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->source = strdup(source ? source : "unknown");
    if (!t->source) {
        free(t);
        return NULL;
    }
    t->sorted = 1;
    return t;
}

void rs_trace_free(rs_trace_t *t) {
    if (!t) return;
    for (size_t i = 0; i < t->n_meta; i++) {
        free(t->meta_keys[i]);
        free(t->meta_values[i]);
    }
    free(t->meta_keys);
    free(t->meta_values);
    free(t->events);
    free(t->source);
    free(t);
}

const char *rs_trace_source(const rs_trace_t *t) { return t->source; }

/* A key is [a-z0-9_.-]+ and not the reserved "source" / "ringsim-trace". */
static int meta_key_ok(const char *key) {
    if (!key || !*key) return 0;
    for (const char *c = key; *c; c++)
        if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_' || *c == '.' ||
              *c == '-'))
            return 0;
    return strcmp(key, "source") != 0 && strcmp(key, "ringsim-trace") != 0;
}

/* Store (key, value) taking ownership of value; replaces an existing key. Returns 0 or -1. */
static int meta_put(rs_trace_t *t, const char *key, char *value) {
    for (size_t i = 0; i < t->n_meta; i++)
        if (strcmp(t->meta_keys[i], key) == 0) {
            free(t->meta_values[i]);
            t->meta_values[i] = value;
            return 0;
        }
    if (t->n_meta == t->cap_meta) {
        size_t cap = t->cap_meta ? 2 * t->cap_meta : 16;
        char **k = realloc(t->meta_keys, cap * sizeof *k);
        if (!k) return -1;
        t->meta_keys = k;
        char **v = realloc(t->meta_values, cap * sizeof *v);
        if (!v) return -1;
        t->meta_values = v;
        t->cap_meta = cap;
    }
    char *kd = strdup(key);
    if (!kd) return -1;
    t->meta_keys[t->n_meta] = kd;
    t->meta_values[t->n_meta] = value;
    t->n_meta++;
    return 0;
}

int rs_trace_set_meta(rs_trace_t *t, const char *key, const char *fmt, ...) {
    if (!meta_key_ok(key)) return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return -1;
    char *v = malloc((size_t)n + 1);
    if (!v) return -1;
    va_start(ap, fmt);
    vsnprintf(v, (size_t)n + 1, fmt, ap);
    va_end(ap);
    for (char *c = v; *c; c++) /* one header line per key: no line breaks in values */
        if (*c == '\n' || *c == '\r') *c = ' ';
    if (meta_put(t, key, v) != 0) {
        free(v);
        return -1;
    }
    return 0;
}

const char *rs_trace_get_meta(const rs_trace_t *t, const char *key) {
    for (size_t i = 0; i < t->n_meta; i++)
        if (strcmp(t->meta_keys[i], key) == 0) return t->meta_values[i];
    return NULL;
}

size_t rs_trace_meta_count(const rs_trace_t *t) { return t->n_meta; }

void rs_trace_meta_at(const rs_trace_t *t, size_t i, const char **key, const char **value) {
    *key = t->meta_keys[i];
    *value = t->meta_values[i];
}

/* ------------------------------------------------------------------------------------------------
 * Problem <-> header keys
 * ---------------------------------------------------------------------------------------------- */
int rs_trace_meta_problem(rs_trace_t *t, const rs_problem_t *p) {
    int r = 0;
    r |= rs_trace_set_meta(t, "seq_tokens", "%lld", (long long)p->seq_tokens);
    r |= rs_trace_set_meta(t, "n_ranks", "%lld", (long long)p->n_ranks);
    r |= rs_trace_set_meta(t, "batch", "%lld", (long long)p->batch);
    r |= rs_trace_set_meta(t, "q_heads", "%lld", (long long)p->q_heads);
    r |= rs_trace_set_meta(t, "kv_heads", "%lld", (long long)p->kv_heads);
    r |= rs_trace_set_meta(t, "head_dim", "%lld", (long long)p->head_dim);
    r |= rs_trace_set_meta(t, "act_bytes", "%lld", (long long)p->act_bytes);
    r |= rs_trace_set_meta(t, "grad_bytes", "%lld", (long long)p->grad_bytes);
    r |= rs_trace_set_meta(t, "causal", "%d", p->causal ? 1 : 0);
    r |= rs_trace_set_meta(t, "layout", "%s", rs_layout_name(p->layout));
    r |= rs_trace_set_meta(t, "pass", "%s", rs_pass_name(p->pass));
    r |= rs_trace_set_meta(t, "tile_q", "%lld", (long long)p->tile_q);
    r |= rs_trace_set_meta(t, "tile_k", "%lld", (long long)p->tile_k);
    /* the inference variants (docs/inference.md) only when used: training traces keep their header */
    if (p->ring != RS_RING_PASS_KV) r |= rs_trace_set_meta(t, "ring", "%s", rs_ring_name(p->ring));
    if (p->cached_tokens > 0) r |= rs_trace_set_meta(t, "cached_tokens", "%lld", (long long)p->cached_tokens);
    if (p->decode) r |= rs_trace_set_meta(t, "decode", "1");
    return r ? -1 : 0;
}

/* Header integer key in [1, INT64_MAX]. */
static int meta_int(const rs_trace_t *t, const char *key, int64_t *out, rs_err_t *err) {
    const char *v = rs_trace_get_meta(t, key);
    if (!v) return rs_errf(err, "trace header: missing key '%s'", key);
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno == ERANGE || x < 1)
        return rs_errf(err, "trace header: %s=%s: expected a positive integer", key, v);
    *out = (int64_t)x;
    return 0;
}

int rs_trace_meta_machine(rs_trace_t *t, const rs_machine_t *m) {
    int rc = 0;
    rc |= rs_trace_set_meta(t, "hw", "%s", m->hw_name);
    rc |= rs_trace_set_meta(t, "dtype", "%s", rs_dtype_name(m->dtype));
    rc |= rs_trace_set_meta(t, "flops_per_s", "%.17g", m->flops_per_s);
    rc |= rs_trace_set_meta(t, "intra", "%s", m->intra.name);
    rc |= rs_trace_set_meta(t, "intra_bw_bytes_per_s", "%.17g", m->intra.bw_bytes_per_s);
    rc |= rs_trace_set_meta(t, "intra_latency_s", "%.17g", m->intra.latency_s);
    rc |= rs_trace_set_meta(t, "devices_per_node", "%lld", (long long)m->devices_per_node);
    if (m->devices_per_node > 0) {
        rc |= rs_trace_set_meta(t, "inter", "%s", m->inter.name);
        rc |= rs_trace_set_meta(t, "inter_bw_bytes_per_s", "%.17g", m->inter.bw_bytes_per_s);
        rc |= rs_trace_set_meta(t, "inter_latency_s", "%.17g", m->inter.latency_s);
    }
    rc |= rs_trace_set_meta(t, "launch_s", "%.17g", m->cal.launch_s);
    rc |= rs_trace_set_meta(t, "overlap", "%.17g", m->cal.overlap);
    rc |= rs_trace_set_meta(t, "comp_slowdown", "%.17g", m->cal.comp_slowdown);
    if (m->cal.n_overlap > 0) {
        char buf[RS_MAX_OVERLAP_POINTS * 48] = "";
        size_t n = 0;
        for (int k = 0; k < m->cal.n_overlap && n < sizeof buf; k++)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%.6g:%.6g", k ? " " : "", m->cal.overlap_curve[k].bytes,
                                  m->cal.overlap_curve[k].eta);
        rc |= rs_trace_set_meta(t, "overlap_curve", "%s", buf);
    }
    if (m->cal.host_s_per_xfer > 0 || m->cal.host_s_per_byte > 0) {
        rc |= rs_trace_set_meta(t, "host_s_per_xfer", "%.17g", m->cal.host_s_per_xfer);
        rc |= rs_trace_set_meta(t, "host_s_per_byte", "%.17g", m->cal.host_s_per_byte);
    }
    rc |= rs_trace_set_meta(t, "n_eff_points", "%d", m->cal.n_eff);
    rc |= rs_trace_set_meta(t, "impl", "%s", rs_impl_name((rs_impl_t)m->impl));
    rc |= rs_trace_set_meta(t, "kernel", "%s", m->kernel > 0 ? m->kernels.kernel[m->kernel - 1].name : "none");
    rc |= rs_trace_set_meta(t, "jitter", "%.17g", m->jitter);
    rc |= rs_trace_set_meta(t, "seed", "%llu", (unsigned long long)m->seed);
    char buf[1024] = "";
    size_t off = 0;
    for (int i = 0; i < m->perturb.n_stragglers && off < sizeof buf - 40; i++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%lld:%g", i ? "," : "", (long long)m->perturb.straggler_rank[i], m->perturb.straggler_factor[i]);
    rc |= rs_trace_set_meta(t, "stragglers", "%s", m->perturb.n_stragglers ? buf : "none");
    off = 0;
    buf[0] = 0;
    for (int i = 0; i < m->perturb.n_degraded && off < sizeof buf - 40; i++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%lld:%g", i ? "," : "", (long long)m->perturb.degraded_hop[i], m->perturb.degraded_factor[i]);
    rc |= rs_trace_set_meta(t, "degraded_hops", "%s", m->perturb.n_degraded ? buf : "none");
    return rc ? -1 : 0;
}

int rs_trace_problem(const rs_trace_t *t, rs_problem_t *p, rs_err_t *err) {
    rs_problem_t q;
    memset(&q, 0, sizeof q);
    if (meta_int(t, "seq_tokens", &q.seq_tokens, err) || meta_int(t, "n_ranks", &q.n_ranks, err) ||
        meta_int(t, "batch", &q.batch, err) || meta_int(t, "q_heads", &q.q_heads, err) ||
        meta_int(t, "kv_heads", &q.kv_heads, err) || meta_int(t, "head_dim", &q.head_dim, err) ||
        meta_int(t, "act_bytes", &q.act_bytes, err) || meta_int(t, "grad_bytes", &q.grad_bytes, err) ||
        meta_int(t, "tile_q", &q.tile_q, err) || meta_int(t, "tile_k", &q.tile_k, err))
        return -1;
    const char *v = rs_trace_get_meta(t, "causal");
    if (!v) return rs_errf(err, "trace header: missing key 'causal'");
    if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0) q.causal = true;
    else if (strcmp(v, "0") == 0 || strcmp(v, "false") == 0) q.causal = false;
    else return rs_errf(err, "trace header: causal=%s: expected 0 or 1", v);
    v = rs_trace_get_meta(t, "layout");
    if (!v) return rs_errf(err, "trace header: missing key 'layout'");
    if (rs_layout_parse(v, &q.layout) != 0)
        return rs_errf(err, "trace header: layout=%s: expected contiguous, striped or zigzag", v);
    v = rs_trace_get_meta(t, "pass");
    if (!v) return rs_errf(err, "trace header: missing key 'pass'");
    if (rs_pass_parse(v, &q.pass) != 0)
        return rs_errf(err, "trace header: pass=%s: expected forward or backward", v);
    q.ring = RS_RING_PASS_KV;
    if ((v = rs_trace_get_meta(t, "ring")) && rs_ring_parse(v, &q.ring) != 0)
        return rs_errf(err, "trace header: ring=%s: expected pass-kv or pass-q", v);
    if (rs_trace_get_meta(t, "cached_tokens") && meta_int(t, "cached_tokens", &q.cached_tokens, err)) return -1;
    if ((v = rs_trace_get_meta(t, "decode"))) {
        if (strcmp(v, "1") && strcmp(v, "0")) return rs_errf(err, "trace header: decode=%s: expected 0 or 1", v);
        q.decode = strcmp(v, "1") == 0;
    }
    *p = q;
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Events
 * ---------------------------------------------------------------------------------------------- */
int rs_trace_add(rs_trace_t *t, const rs_event_t *ev) {
    if (t->n_events == t->cap_events) {
        size_t cap = t->cap_events ? 2 * t->cap_events : 256;
        rs_event_t *e = realloc(t->events, cap * sizeof *e);
        if (!e) return -1;
        t->events = e;
        t->cap_events = cap;
    }
    if (t->sorted && t->n_events > 0 && rs_event_key_cmp(&t->events[t->n_events - 1], ev) > 0) t->sorted = 0;
    t->events[t->n_events++] = *ev;
    return 0;
}

static int trace_emit(void *ctx, const rs_event_t *ev) { return rs_trace_add(ctx, ev); }

rs_event_sink_t rs_trace_sink(rs_trace_t *t) { return t ? (rs_event_sink_t){trace_emit, t} : RS_NO_SINK; }

size_t rs_trace_count(const rs_trace_t *t) { return t->n_events; }
const rs_event_t *rs_trace_events(const rs_trace_t *t) { return t->events; }

rs_event_t *rs_trace_events_mut(rs_trace_t *t) {
    t->sorted = 0; /* the caller may reorder keys */
    return t->events;
}

void rs_trace_sort(rs_trace_t *t) {
    if (t->n_events > 1) qsort(t->events, t->n_events, sizeof *t->events, rs_event_key_qcmp);
    t->sorted = 1;
}

long rs_trace_find(const rs_trace_t *t, int32_t rank, int32_t step, rs_pass_t pass,
                   rs_event_kind_t kind) {
    rs_event_t key = {.rank = rank, .step = step, .pass = pass, .kind = kind};
    if (!t->sorted) { /* not known sorted: linear scan keeps the answer right */
        for (size_t i = 0; i < t->n_events; i++)
            if (rs_event_key_cmp(&t->events[i], &key) == 0) return (long)i;
        return -1;
    }
    size_t lo = 0, hi = t->n_events;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = rs_event_key_cmp(&t->events[mid], &key);
        if (c == 0) return (long)mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

double rs_trace_makespan(const rs_trace_t *t) {
    if (t->n_events == 0) return 0.0;
    double lo = t->events[0].start_s, hi = t->events[0].end_s;
    for (size_t i = 1; i < t->n_events; i++) {
        if (t->events[i].start_s < lo) lo = t->events[i].start_s;
        if (t->events[i].end_s > hi) hi = t->events[i].end_s;
    }
    return hi - lo;
}

/* ------------------------------------------------------------------------------------------------
 * CSV writer
 * ---------------------------------------------------------------------------------------------- */
int rs_trace_write_csv(const rs_trace_t *t, const char *path, rs_err_t *err) {
    rs_file_t f;
    if (rs_file_open(&f, path, err) != 0) return -1;
    FILE *fp = f.fp;
    fprintf(fp, "# ringsim-trace=%d\n# source=%s\n", RS_TRACE_VERSION, t->source);
    for (size_t i = 0; i < t->n_meta; i++) fprintf(fp, "# %s=%s\n", t->meta_keys[i], t->meta_values[i]);
    fprintf(fp, "%s\n", RS_TRACE_COLUMNS);
    for (size_t i = 0; i < t->n_events; i++) {
        const rs_event_t *e = &t->events[i];
        fprintf(fp, "%s,%d,%d,%s,%s,%.17g,%.17g,%.17g,%.17g,%d\n", t->source, (int)e->rank,
                (int)e->step, rs_pass_name(e->pass), rs_event_kind_name(e->kind), e->start_s, e->end_s,
                e->flops, e->bytes, (int)e->peer);
    }
    return rs_file_commit(&f, err);
}

/* ------------------------------------------------------------------------------------------------
 * CSV reader
 * ---------------------------------------------------------------------------------------------- */
/* Split line at commas in place; returns the field count (at most max, extra fields counted). */
static int split_csv(char *line, char **fields, int max) {
    int n = 0;
    char *s = line;
    for (;;) {
        char *c = strchr(s, ',');
        if (n < max) fields[n] = s;
        n++;
        if (!c) break;
        *c = '\0';
        s = c + 1;
    }
    return n;
}

static int parse_i32(const char *s, int32_t min, int32_t *out) {
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno == ERANGE || v < min || v > INT32_MAX) return -1;
    *out = (int32_t)v;
    return 0;
}

static int parse_num(const char *s, double *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

typedef struct {
    size_t idx;   /* event index */
    long line;    /* line number in the file */
    const rs_event_t *ev; /* the event */
} line_ref_t;

static int lref_cmp(const void *a, const void *b) {
    const line_ref_t *x = a, *y = b;
    int c = rs_event_key_cmp(x->ev, y->ev);
    if (c) return c;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Parse one data row into ev. Returns 0 or -1 with err "path:line: expected ...". */
static int parse_row(char *line, const char *path, long ln, const char *source, rs_event_t *ev,
                     rs_err_t *err) {
    char *f[RS_TRACE_NCOLS];
    int n = split_csv(line, f, RS_TRACE_NCOLS);
    if (n != RS_TRACE_NCOLS)
        return rs_errf(err, "%s:%ld: expected %d comma-separated columns (%s), got %d", path, ln,
                       RS_TRACE_NCOLS, RS_TRACE_COLUMNS, n);
    if (strcmp(f[0], source) != 0)
        return rs_errf(err, "%s:%ld: expected source '%s' (from the header), got '%s'", path, ln, source,
                       f[0]);
    memset(ev, 0, sizeof *ev);
    if (parse_i32(f[1], 0, &ev->rank))
        return rs_errf(err, "%s:%ld: expected rank as an integer >= 0, got '%s'", path, ln, f[1]);
    if (parse_i32(f[2], 0, &ev->step))
        return rs_errf(err, "%s:%ld: expected step as an integer >= 0, got '%s'", path, ln, f[2]);
    if (rs_pass_parse(f[3], &ev->pass))
        return rs_errf(err, "%s:%ld: expected pass forward or backward, got '%s'", path, ln, f[3]);
    if (rs_event_kind_parse(f[4], &ev->kind))
        return rs_errf(err, "%s:%ld: expected kind compute, send, recv or step, got '%s'", path, ln, f[4]);
    const char *names[4] = {"start_s", "end_s", "flops", "bytes"};
    double *dst[4] = {&ev->start_s, &ev->end_s, &ev->flops, &ev->bytes};
    for (int i = 0; i < 4; i++)
        if (parse_num(f[5 + i], dst[i]))
            return rs_errf(err, "%s:%ld: expected %s as a finite number, got '%s'", path, ln, names[i],
                           f[5 + i]);
    for (int i = 0; i < 2; i++) /* so that every duration and makespan of the trace is finite */
        if (!(fabs(*dst[i]) <= RS_TRACE_MAX_ABS_TIME_S))
            return rs_errf(err, "%s:%ld: expected %s in [-%g, %g] s (from the run's origin), got '%s'", path, ln,
                           names[i], RS_TRACE_MAX_ABS_TIME_S, RS_TRACE_MAX_ABS_TIME_S, f[5 + i]);
    if (ev->end_s < ev->start_s)
        return rs_errf(err, "%s:%ld: expected end_s >= start_s, got %s < %s", path, ln, f[6], f[5]);
    if (ev->flops < 0 || ev->bytes < 0)
        return rs_errf(err, "%s:%ld: expected flops and bytes >= 0", path, ln);
    if (parse_i32(f[9], -1, &ev->peer))
        return rs_errf(err, "%s:%ld: expected peer as an integer >= -1, got '%s'", path, ln, f[9]);
    return 0;
}

/* Check no two events share (pass, rank, step, kind). Returns 0 or -1 with the later line. */
static int check_duplicates(const rs_trace_t *t, const long *lines, const char *path, rs_err_t *err) {
    if (t->n_events < 2) return 0;
    line_ref_t *r = malloc(t->n_events * sizeof *r);
    if (!r) return rs_errf(err, "%s: out of memory", path);
    for (size_t i = 0; i < t->n_events; i++) r[i] = (line_ref_t){i, lines[i], &t->events[i]};
    qsort(r, t->n_events, sizeof *r, lref_cmp);
    int rc = 0;
    for (size_t i = 1; i < t->n_events; i++)
        if (rs_event_key_cmp(r[i - 1].ev, r[i].ev) == 0) {
            const rs_event_t *e = r[i].ev;
            rc = rs_errf(err,
                         "%s:%ld: expected one event per (rank, step, pass, kind); rank %d step %d %s %s "
                         "already on line %ld",
                         path, r[i].line, (int)e->rank, (int)e->step, rs_pass_name(e->pass),
                         rs_event_kind_name(e->kind), r[i - 1].line);
            break;
        }
    free(r);
    return rc;
}

rs_trace_t *rs_trace_read_csv(const char *path, rs_err_t *err) {
    /* its events take about 2/3 of its bytes in memory: at most the memory cap (estimate.h) */
    FILE *fp = rs_input_open(path, "ringsim trace", (uint64_t)rs_mem_cap_default(), err);
    if (!fp) return NULL;
    rs_trace_t *t = NULL;
    char *line = NULL, *source = NULL;
    size_t cap = 0;
    long ln = 0, *lines = NULL;
    size_t cap_lines = 0;
    int state = 0; /* 0: want version line, 1: header, 2: rows */
    ssize_t len;
    while ((len = getline(&line, &cap, fp)) != -1) {
        ln++;
        if ((size_t)len > RS_MAX_LINE_BYTES) {
            rs_errf(err, "%s:%ld: line longer than %zu bytes (not a ringsim trace)", path, ln, RS_MAX_LINE_BYTES);
            goto fail;
        }
        if ((size_t)len != strlen(line)) {
            rs_errf(err, "%s:%ld: expected text, found a NUL byte", path, ln);
            goto fail;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (state == 0) {
            int ver = 0;
            char tail = 0;
            if (sscanf(line, "# ringsim-trace=%d%c", &ver, &tail) != 1) {
                rs_errf(err, "%s:%ld: expected '# ringsim-trace=%d' (a ringsim CSV trace)", path, ln,
                        RS_TRACE_VERSION);
                goto fail;
            }
            if (ver != RS_TRACE_VERSION) {
                rs_errf(err, "%s:%ld: expected trace version %d, got %d", path, ln, RS_TRACE_VERSION, ver);
                goto fail;
            }
            state = 1;
            continue;
        }
        if (state == 1) {
            if (line[0] == '#') {
                const char *s = line + 1;
                while (*s == ' ') s++;
                const char *eq = strchr(s, '=');
                if (!eq || eq == s) {
                    rs_errf(err, "%s:%ld: expected a '# key=value' header line", path, ln);
                    goto fail;
                }
                size_t kl = (size_t)(eq - s);
                char key[128];
                if (kl >= sizeof key) {
                    rs_errf(err, "%s:%ld: expected a header key of at most %zu characters", path, ln,
                            sizeof key - 1);
                    goto fail;
                }
                memcpy(key, s, kl);
                key[kl] = '\0';
                if (strcmp(key, "source") == 0) {
                    if (source || !eq[1] || strchr(eq + 1, ',')) {
                        rs_errf(err, "%s:%ld: expected one non-empty source without commas", path, ln);
                        goto fail;
                    }
                    source = strdup(eq + 1);
                    if (!source) goto oom;
                    continue;
                }
                if (!meta_key_ok(key)) {
                    rs_errf(err, "%s:%ld: expected a header key of [a-z0-9_.-], got '%s'", path, ln, key);
                    goto fail;
                }
                if (!t && !(t = rs_trace_create("unknown"))) goto oom;
                if (rs_trace_set_meta(t, key, "%s", eq + 1) != 0) goto oom;
                continue;
            }
            if (strcmp(line, RS_TRACE_COLUMNS) != 0) {
                rs_errf(err, "%s:%ld: expected the column line '%s'", path, ln, RS_TRACE_COLUMNS);
                goto fail;
            }
            if (!source) {
                rs_errf(err, "%s:%ld: expected a '# source=NAME' header line before the columns", path, ln);
                goto fail;
            }
            if (!t && !(t = rs_trace_create(source))) goto oom;
            free(t->source);
            t->source = source;
            source = NULL;
            state = 2;
            continue;
        }
        if (len == 0) continue; /* tolerate blank lines (e.g. a trailing one) */
        rs_event_t ev;
        if (parse_row(line, path, ln, t->source, &ev, err) != 0) goto fail;
        if (rs_trace_add(t, &ev) != 0) goto oom;
        if (t->n_events > cap_lines) {
            size_t c = cap_lines ? 2 * cap_lines : 256;
            long *l = realloc(lines, c * sizeof *l);
            if (!l) goto oom;
            lines = l;
            cap_lines = c;
        }
        lines[t->n_events - 1] = ln;
    }
    if (ferror(fp)) {
        rs_errf(err, "%s: read error: %s", path, strerror(errno));
        goto fail;
    }
    if (state != 2) {
        rs_errf(err, "%s:%ld: expected %s before the end of the file", path, ln + 1,
                state == 0 ? "'# ringsim-trace=1'" : "the column line");
        goto fail;
    }
    if (check_duplicates(t, lines, path, err) != 0) goto fail;
    free(lines);
    free(line);
    fclose(fp);
    return t;
oom:
    rs_errf(err, "%s:%ld: out of memory", path, ln);
fail:
    free(source);
    free(lines);
    free(line);
    fclose(fp);
    rs_trace_free(t);
    return NULL;
}

/* ------------------------------------------------------------------------------------------------
 * Chrome / Perfetto JSON writer
 * ---------------------------------------------------------------------------------------------- */
/* Write s as a JSON string literal. */
static void json_str(FILE *fp, const char *s) {
    fputc('"', fp);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') fprintf(fp, "\\%c", *c);
        else if (*c < 0x20) fprintf(fp, "\\u%04x", *c);
        else fputc(*c, fp);
    }
    fputc('"', fp);
}

/* Lane of an event: kind for forward, 4 + kind for backward (a trace holding both passes keeps
 * each lane free of overlaps). */
static int ev_tid(const rs_event_t *e) { return (int)e->kind + (e->pass == RS_PASS_BACKWARD ? 4 : 0); }

typedef struct {
    int32_t pid;    /* rank */
    int tid;        /* lane */
    double start_s; /* start */
    double end_s;   /* end */
    size_t idx;     /* event index */
} lane_ev_t;

static int lane_cmp(const void *a, const void *b) {
    const lane_ev_t *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->start_s != y->start_s) return x->start_s < y->start_s ? -1 : 1;
    if (x->end_s != y->end_s) return x->end_s < y->end_s ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Order of (pid, tid). */
static int pidtid_cmp(const void *a, const void *b) {
    const int *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

int rs_trace_write_chrome(const rs_trace_t *t, const char *path, rs_err_t *err) {
    /* Lanes: an event goes to tid = lane + 8 k with the smallest k whose previous event has ended
     * (tolerance 1e-12 of the trace's time scale for rounding). A well-formed trace uses k = 0 only;
     * measured traces of medians can overlap by a little and get an overflow lane, so no tid ever
     * holds overlapping events and no time is altered. */
    size_t n = t->n_events;
    lane_ev_t *lv = n ? malloc(n * sizeof *lv) : NULL;
    int *tid_of = n ? malloc(n * sizeof *tid_of) : NULL;
    int *pt = n ? malloc(2 * n * sizeof *pt) : NULL; /* (pid, tid) pairs in use */
    double ends[64];                                  /* last end per overflow level of one lane */
    if (n && (!lv || !tid_of || !pt)) {
        free(lv), free(tid_of), free(pt);
        return rs_errf(err, "%s: out of memory", path);
    }
    double scale = 0;
    for (size_t i = 0; i < n; i++) {
        const rs_event_t *e = &t->events[i];
        lv[i] = (lane_ev_t){e->rank, ev_tid(e), e->start_s, e->end_s, i};
        scale = fmax(scale, fmax(fabs(e->start_s), fabs(e->end_s)));
    }
    if (n > 1) qsort(lv, n, sizeof *lv, lane_cmp);
    int levels = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || lv[i].pid != lv[i - 1].pid || lv[i].tid != lv[i - 1].tid) levels = 0;
        int k = 0;
        while (k < levels && lv[i].start_s < ends[k] - 1e-12 * scale) k++;
        if (k == 64) k = 63; /* pathological: 64 overlapping events on one lane share the last level */
        if (k == levels && levels < 64) levels++;
        ends[k] = lv[i].end_s;
        tid_of[lv[i].idx] = lv[i].tid + 8 * k;
    }
    for (size_t i = 0; i < n; i++) pt[2 * i] = t->events[i].rank, pt[2 * i + 1] = tid_of[i];
    if (n > 1) qsort(pt, n, 2 * sizeof *pt, pidtid_cmp);

    rs_file_t f;
    if (rs_file_open(&f, path, err) != 0) {
        free(lv), free(tid_of), free(pt);
        return -1;
    }
    FILE *fp = f.fp;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":", fp);
    json_str(fp, t->source);
    for (size_t i = 0; i < t->n_meta; i++) {
        fputc(',', fp);
        json_str(fp, t->meta_keys[i]);
        fputc(':', fp);
        json_str(fp, t->meta_values[i]);
    }
    fputs("},\n\"traceEvents\":[\n", fp);
    int first = 1;
    /* Metadata: one process per rank, one thread per lane in use. */
    for (size_t i = 0; i < n; i++) {
        int pid = pt[2 * i], tid = pt[2 * i + 1];
        int new_pid = i == 0 || pid != pt[2 * (i - 1)];
        int new_tid = new_pid || tid != pt[2 * (i - 1) + 1];
        if (new_pid) {
            fprintf(fp, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,"
                        "\"args\":{\"name\":\"rank %d\"}}",
                    first ? "" : ",\n", pid, pid);
            fprintf(fp, ",\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"tid\":0,"
                        "\"args\":{\"sort_index\":%d}}",
                    pid, pid);
            first = 0;
        }
        if (new_tid) {
            int lane = tid % 8, level = tid / 8;
            char name[64];
            snprintf(name, sizeof name, "%s%s", lane >= 4 ? "backward " : "", rs_event_kind_name((rs_event_kind_t)(lane % 4)));
            if (level) snprintf(name + strlen(name), sizeof name - strlen(name), " (overlap %d)", level);
            fprintf(fp, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
                        "\"args\":{\"name\":\"%s\"}}",
                    pid, tid, name);
            fprintf(fp, ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,"
                        "\"args\":{\"sort_index\":%d}}",
                    pid, tid, lane * 64 + level);
        }
    }
    /* Complete events in the trace's own order. ts and dur are derived from the same products so
     * ts + dur lands on end_s * 1e6. */
    for (size_t i = 0; i < n; i++) {
        const rs_event_t *e = &t->events[i];
        double ts_us = e->start_s * 1e6, end_us = e->end_s * 1e6;
        double dur_us = end_us - ts_us;
        if (dur_us < 0) dur_us = 0;
        fprintf(fp, "%s{\"ph\":\"X\",\"name\":\"%s %d\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,"
                    "\"ts\":%.17g,\"dur\":%.17g,\"args\":{\"step\":%d,\"pass\":\"%s\",\"flops\":%.17g,"
                    "\"bytes\":%.17g,\"peer\":%d}}",
                first ? "" : ",\n", rs_event_kind_name(e->kind), (int)e->step, rs_event_kind_name(e->kind),
                (int)e->rank, tid_of[i], ts_us, dur_us, (int)e->step, rs_pass_name(e->pass), e->flops,
                e->bytes, (int)e->peer);
        first = 0;
    }
    fputs("\n]}\n", fp);
    free(lv), free(tid_of), free(pt);
    return rs_file_commit(&f, err);
}
