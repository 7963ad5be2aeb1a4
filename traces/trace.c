/* trace.c - the one trace schema in memory (trace.h): the trace object, its header keys (the
 * problem's and the machine's fields among them), its events (appended, sorted, found, and an event
 * sink that appends them). Its files: trace_csv.c (CSV writer and reader), trace_chrome.c (Chrome
 * JSON writer); docs/traces.md documents both formats.
 */
#include "trace.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_private.h"

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
    size_t n_roles;        /* role events */
    size_t cap_roles;
    rs_role_event_t *roles; /* [n_roles] */
    int roles_sorted;      /* 1 when role events are known sorted by (pass, rank, step, role) */
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
    t->roles_sorted = 1;
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
    free(t->roles);
    free(t->source);
    free(t);
}

const char *rs_trace_source(const rs_trace_t *t) { return t->source; }

void rs_trace_take_source(rs_trace_t *t, char *source) {
    free(t->source);
    t->source = source;
}

int rs_trace_key_ok(const char *key) {
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
    if (!rs_trace_key_ok(key)) return -1;
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
    if (!v) return rs_errc(err, RS_ERR_BAD_INPUT, "trace header: missing key '%s'", key);
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno == ERANGE || x < 1)
        return rs_errc(err, RS_ERR_BAD_INPUT, "trace header: %s=%s: expected a positive integer", key, v);
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
    if (!v) return rs_errc(err, RS_ERR_BAD_INPUT, "trace header: missing key 'causal'");
    if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0) q.causal = true;
    else if (strcmp(v, "0") == 0 || strcmp(v, "false") == 0) q.causal = false;
    else return rs_errc(err, RS_ERR_BAD_INPUT, "trace header: causal=%s: expected 0 or 1", v);
    v = rs_trace_get_meta(t, "layout");
    if (!v) return rs_errc(err, RS_ERR_BAD_INPUT, "trace header: missing key 'layout'");
    if (rs_layout_parse(v, &q.layout) != 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "trace header: layout=%s: expected contiguous, striped or zigzag", v);
    v = rs_trace_get_meta(t, "pass");
    if (!v) return rs_errc(err, RS_ERR_BAD_INPUT, "trace header: missing key 'pass'");
    if (rs_pass_parse(v, &q.pass) != 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "trace header: pass=%s: expected forward or backward", v);
    q.ring = RS_RING_PASS_KV;
    if ((v = rs_trace_get_meta(t, "ring")) && rs_ring_parse(v, &q.ring) != 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "trace header: ring=%s: expected pass-kv or pass-q", v);
    if (rs_trace_get_meta(t, "cached_tokens") && meta_int(t, "cached_tokens", &q.cached_tokens, err)) return -1;
    if ((v = rs_trace_get_meta(t, "decode"))) {
        if (strcmp(v, "1") && strcmp(v, "0")) return rs_errc(err, RS_ERR_BAD_INPUT, "trace header: decode=%s: expected 0 or 1", v);
        q.decode = strcmp(v, "1") == 0;
    }
    *p = q;
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Events
 * ---------------------------------------------------------------------------------------------- */
/* Room for one more item in *v (n items of size bytes, *cap allocated; first_cap the first time). 0 or
 * -1 on OOM (*v unchanged). */
int rs_trace_room(void **v, size_t n, size_t *cap, size_t size, size_t first_cap) {
    if (n < *cap) return 0;
    const size_t c = *cap ? 2 * *cap : first_cap;
    void *p = realloc(*v, c * size);
    if (!p) return -1;
    *v = p;
    *cap = c;
    return 0;
}

int rs_trace_add(rs_trace_t *t, const rs_event_t *ev) {
    if (rs_trace_room((void **)&t->events, t->n_events, &t->cap_events, sizeof *t->events, 256) != 0) return -1;
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
    if (t->n_roles > 1) qsort(t->roles, t->n_roles, sizeof *t->roles, rs_role_event_qcmp);
    t->sorted = 1;
    t->roles_sorted = 1;
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
 * Role events
 * ---------------------------------------------------------------------------------------------- */
static const char *const role_names[RS_ROLE_COUNT] = {"attn", "merge", "cast", "other"};

const char *rs_role_name(rs_role_t r) { return rs_enum_name(role_names, RS_ROLE_COUNT, (int)r); }

int rs_role_parse(const char *s, rs_role_t *out) {
    const int r = rs_enum_parse(role_names, RS_ROLE_COUNT, s);
    if (r >= 0) *out = (rs_role_t)r;
    return r >= 0 ? 0 : -1;
}

int rs_role_event_cmp(const rs_role_event_t *a, const rs_role_event_t *b) {
    if (a->pass != b->pass) return a->pass < b->pass ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->step != b->step) return a->step < b->step ? -1 : 1;
    return (a->role > b->role) - (a->role < b->role);
}

int rs_role_event_qcmp(const void *a, const void *b) { return rs_role_event_cmp(a, b); }

int rs_trace_add_role(rs_trace_t *t, const rs_role_event_t *r) {
    if (rs_trace_room((void **)&t->roles, t->n_roles, &t->cap_roles, sizeof *t->roles, 64) != 0) return -1;
    if (t->roles_sorted && t->n_roles > 0 && rs_role_event_cmp(&t->roles[t->n_roles - 1], r) > 0) t->roles_sorted = 0;
    t->roles[t->n_roles++] = *r;
    return 0;
}

size_t rs_trace_role_count(const rs_trace_t *t) { return t->n_roles; }
const rs_role_event_t *rs_trace_roles(const rs_trace_t *t) { return t->roles; }

double rs_trace_role_busy(const rs_trace_t *t, int32_t rank, int32_t step, rs_pass_t pass, rs_role_t role) {
    const rs_role_event_t key = {rank, step, pass, role, 0, 0, 0};
    if (!t->roles_sorted) {
        for (size_t i = 0; i < t->n_roles; i++)
            if (rs_role_event_cmp(&t->roles[i], &key) == 0) return t->roles[i].busy_s;
        return -1;
    }
    const rs_role_event_t *r = t->n_roles ? bsearch(&key, t->roles, t->n_roles, sizeof *t->roles, rs_role_event_qcmp) : NULL;
    return r ? r->busy_s : -1;
}
