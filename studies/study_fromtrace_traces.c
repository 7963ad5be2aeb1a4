/* study_fromtrace_traces.c - the traces the --from-trace studies read (study_fromtrace_traces.h):
 * a step's mask kind and call shape, the problem of each header against the options and the first
 * trace, every event inside its schedule; the set of them. */
#include "study_fromtrace_traces.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* ------------------------------------------------------------------------------------------------
 * Kinds and keys
 * ---------------------------------------------------------------------------------------------- */
const char *rs_tfit_kind_name(rs_tfit_kind_t k) {
    static const char *const names[] = {"full", "causal", "shifted", "skip"};
    return rs_enum_name(names, RS_TFIT_KIND_COUNT, (int)k);
}

rs_tfit_kind_t rs_tfit_step_kind(const rs_step_t *st, int64_t *q_tokens, int64_t *k_tokens) {
    bool q_used[RS_MAX_SEGMENTS] = {false}, k_used[RS_MAX_SEGMENTS] = {false}, full = false, causal = false, shifted = false;
    for (int i = 0; st->has_compute && i < st->n_blocks; i++) {
        const rs_block_t *b = &st->blocks[i];
        if (b->mask == RS_MASK_SKIP) continue;
        q_used[b->q_seg] = k_used[b->kv_seg] = true;
        if (b->mask == RS_MASK_FULL) full = true;
        else if (b->diag == 0) causal = true;
        else shifted = true;
    }
    *q_tokens = *k_tokens = 0;
    for (int i = 0; i < RS_MAX_SEGMENTS; i++) {
        if (q_used[i] && i < st->n_q_segs) *q_tokens += st->q_segs[i].count;
        if (k_used[i] && i < st->n_kv_segs) *k_tokens += st->kv_segs[i].count;
    }
    return causal ? RS_TFIT_CAUSAL : shifted ? RS_TFIT_SHIFTED : full ? RS_TFIT_FULL : RS_TFIT_SKIP;
}

static const char *const key_names[RS_TFIT_KEY_COUNT] = {"seq_tokens", "n_ranks",  "batch",  "q_heads",
                                                          "kv_heads",   "head_dim", "act_bytes", "grad_bytes",
                                                          "causal",     "layout",   "pass",   "tile"};

/* Field `key` of p as text. */
static const char *field_text(const rs_problem_t *p, int key, char *buf, size_t len) {
    const int64_t v[] = {p->seq_tokens, p->n_ranks, p->batch, p->q_heads, p->kv_heads, p->head_dim, p->act_bytes, p->grad_bytes};
    if (key < RS_TFIT_KEY_CAUSAL) snprintf(buf, len, "%lld", (long long)v[key]);
    else if (key == RS_TFIT_KEY_CAUSAL) snprintf(buf, len, "%d", p->causal ? 1 : 0);
    else if (key == RS_TFIT_KEY_LAYOUT) snprintf(buf, len, "%s", rs_layout_name(p->layout));
    else if (key == RS_TFIT_KEY_PASS) snprintf(buf, len, "%s", rs_pass_name(p->pass));
    else snprintf(buf, len, "%lldx%lld", (long long)p->tile_q, (long long)p->tile_k);
    return buf;
}

/* 0 if a and b agree on `key`, else -1 with their values in va, vb. */
static int field_cmp(const rs_problem_t *a, const rs_problem_t *b, int key, char *va, char *vb, size_t len) {
    field_text(a, key, va, len), field_text(b, key, vb, len);
    return strcmp(va, vb) ? -1 : 0;
}

void rs_tfit_opts_default(rs_tfit_opts_t *o) {
    memset(o, 0, sizeof *o);
    rs_problem_default(&o->problem);
    o->latency_s = -1;
    o->dtype = RS_DTYPE_BF16;
}

/* ------------------------------------------------------------------------------------------------
 * The traces
 * ---------------------------------------------------------------------------------------------- */
struct rs_tset {
    int n;
    const char *path[RS_TFIT_MAX_TRACES];
    rs_trace_t *t[RS_TFIT_MAX_TRACES];
    rs_problem_t p[RS_TFIT_MAX_TRACES];
    rs_schedule_t *s[RS_TFIT_MAX_TRACES];
};

void rs_tset_free(rs_tset_t *ts) {
    if (!ts) return;
    for (int i = 0; i < ts->n; i++) rs_trace_free(ts->t[i]), rs_schedule_free(ts->s[i]);
    free(ts);
}
int rs_tset_count(const rs_tset_t *ts) { return ts->n; }
const rs_trace_t *rs_tset_trace(const rs_tset_t *ts, int i) { return ts->t[i]; }
const char *rs_tset_path(const rs_tset_t *ts, int i) { return ts->path[i]; }
const rs_problem_t *rs_tset_problem(const rs_tset_t *ts, int i) { return &ts->p[i]; }
const rs_schedule_t *rs_tset_schedule(const rs_tset_t *ts, int i) { return ts->s[i]; }

/* The problem of trace i of ts (read, its path set) into ts->p[i]: its header's, the missing keys
 * taken from the options; checked against the given options and, after the first, the first trace's
 * shape. Returns 0 or -1 with err naming the path (bad input; out of memory: runtime). */
static int trace_problem(rs_tset_t *ts, int i, const rs_tfit_opts_t *o, rs_err_t *err) {
    rs_trace_t *t = ts->t[i];
    const char *path = ts->path[i], *first_path = ts->path[0];
    const rs_problem_t *first = i ? &ts->p[0] : NULL;
    rs_problem_t *p = &ts->p[i];
    rs_trace_t *opt = rs_trace_create("options");
    if (!opt || rs_trace_meta_problem(opt, &o->problem) != 0) {
        rs_trace_free(opt);
        return rs_errc(err, RS_ERR_RUNTIME, "%s: out of memory", path);
    }
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < rs_trace_meta_count(opt); k++) {
        const char *key, *value;
        rs_trace_meta_at(opt, k, &key, &value);
        if (!rs_trace_get_meta(t, key) && rs_trace_set_meta(t, key, "%s", value) != 0)
            rc = rs_errc(err, RS_ERR_RUNTIME, "%s: out of memory", path);
    }
    rs_trace_free(opt);
    rs_err_t e = {0};
    if (rc == 0 && rs_trace_problem(t, p, &e) != 0) rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s", path, e.msg);
    if (rc == 0 && rs_problem_validate(p, &e) != 0) rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: the header's problem: %s", path, e.msg);
    char va[64], vb[64];
    for (int key = 0; rc == 0 && key < RS_TFIT_KEY_COUNT; key++) {
        if ((o->given >> key & 1u) && field_cmp(p, &o->problem, key, va, vb, sizeof va) != 0)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s=%s in the header, but %s was given as an option: a trace of another problem", path,
                         key_names[key], va, vb);
        else if (first && key != RS_TFIT_KEY_SEQ && key != RS_TFIT_KEY_PASS && field_cmp(p, first, key, va, vb, sizeof va) != 0)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s=%s, but %s has %s=%s: traces of one problem shape (only S and the pass may differ)", path,
                         key_names[key], va, first_path, key_names[key], vb);
    }
    return rc;
}

/* Every event inside the schedule of the trace's problem and pass; recv events where the schedule
 * moves bytes, with those bytes; every (rank, step) of the schedule with its events (no cut trace). Returns 0 or -1 with err naming path (bad input). */
static int check_events(const rs_trace_t *t, const char *path, const rs_problem_t *p, const rs_schedule_t *s,
                        rs_err_t *err) {
    const rs_event_t *ev = rs_trace_events(t);
    const int64_t n_steps = rs_schedule_n_steps(s);
    for (size_t i = 0; i < rs_trace_count(t); i++) {
        const rs_event_t *e = &ev[i];
        if (e->pass != p->pass)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: a %s event in a trace whose header says pass=%s: one pass per file (as ringsim import "
                           "writes them)", path, rs_pass_name(e->pass), rs_pass_name(p->pass));
        if (e->rank < 0 || e->rank >= p->n_ranks || e->step < 0 || e->step >= n_steps)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: event (rank %d, step %d) outside the schedule of its header's problem (%lld ranks, %lld "
                           "steps)", path, (int)e->rank, (int)e->step, (long long)p->n_ranks, (long long)n_steps);
        if (e->kind != RS_EV_RECV) continue;
        rs_step_t st;
        rs_schedule_step(s, e->rank, e->step, &st);
        if (st.recv_bytes == 0)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d step %d: a recv event at a step that moves 0 bytes in the schedule of its "
                           "header's problem: a transfer of 0 bytes cannot be fitted", path, (int)e->rank, (int)e->step);
        if (!(e->bytes > 0))
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d step %d: the recv event's byte count is 0 (the schedule moves %llu bytes): a "
                           "transfer of 0 bytes cannot be fitted", path, (int)e->rank, (int)e->step,
                           (unsigned long long)st.recv_bytes);
        if (fabs(e->bytes - (double)st.recv_bytes) > 0.5)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d step %d: the recv carries %.17g bytes, the schedule of its header's problem "
                           "%llu: a trace of another problem", path, (int)e->rank, (int)e->step, e->bytes,
                           (unsigned long long)st.recv_bytes);
    }
    return rs_compare_check_events(t, path, err); /* every (rank, step) there: a fit refuses a cut trace as validate does */
}

rs_tset_t *rs_tset_load(const rs_tfit_opts_t *o, rs_err_t *err) {
    if (o->n_paths < 1 || o->n_paths > RS_TFIT_MAX_TRACES) {
        rs_errc(err, RS_ERR_BAD_INPUT, "--from-trace: give 1 to %d trace files, got %d", RS_TFIT_MAX_TRACES, o->n_paths);
        return NULL;
    }
    rs_tset_t *ts = calloc(1, sizeof *ts);
    if (!ts) {
        rs_errc(err, RS_ERR_RUNTIME, "out of memory");
        return NULL;
    }
    for (int i = 0; i < o->n_paths; i++) {
        const char *path = o->paths[i];
        ts->path[i] = path;
        if (!(ts->t[i] = rs_trace_read_csv(path, err))) {
            rs_err_mark(err, RS_ERR_BAD_INPUT);
            break;
        }
        ts->n = i + 1;
        if (trace_problem(ts, i, o, err) != 0) break;
        if (!(ts->s[i] = rs_schedule_create(&ts->p[i], err))) {
            rs_err_mark(err, RS_ERR_BAD_INPUT);
            break;
        }
        rs_trace_sort(ts->t[i]);
        if (check_events(ts->t[i], path, &ts->p[i], ts->s[i], err) != 0) break;
        if (i == o->n_paths - 1) return ts;
    }
    rs_tset_free(ts);
    return NULL;
}

rs_dtype_t rs_tfit_dtype(const rs_tfit_opts_t *o, const rs_problem_t *p) {
    if (o->dtype_given) return o->dtype;
    return p->act_bytes == 4 ? RS_DTYPE_FP32 : p->act_bytes == 1 ? RS_DTYPE_FP8 : RS_DTYPE_BF16;
}
