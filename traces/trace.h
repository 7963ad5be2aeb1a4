/* trace.h - the one trace schema every backend writes (model, sim, exec-cpu, exec-gpu, import).
 *
 * One event per (rank, step, pass, kind): kind is compute, send, recv or step; start and end in
 * seconds from the run's origin; FLOPs (compute: executed FLOPs), bytes (send/recv: payload summed
 * over the step's transfers), peer rank (send/recv; -1 otherwise). send/recv span post to
 * completion. Beside them, optional role events: what a step's compute is made of (attention,
 * merge/correction, cast/copy, other kernels), one per (rank, step, pass, role), each with its span
 * and its busy time. Schema and file formats: docs/traces.md.
 *
 * CSV file (version 2; version 1, without the last two columns, is read as well):
 *   # ringsim-trace=2
 *   # key=value            (problem, hardware, backend, versions: self-describing; gnuplot skips '#')
 *   source,rank,step,pass,kind,start_s,end_s,flops,bytes,peer,role,busy_s
 *   model,0,0,forward,compute,0,1.25e-05,8.6e+09,0,-1,-,-
 *   import,0,1,forward,compute,1.3e-05,1.6e-05,0,0,-1,merge,2.9e-06
 * Chrome/Perfetto JSON: {"traceEvents":[...]} with ph "X", ts/dur in microseconds, pid = rank,
 * tid 0 compute, 1 send, 2 recv, 3 step (events on one tid never overlap).
 */
#ifndef RS_TRACE_H
#define RS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "machine.h"
#include "schedule.h"
#include "util.h"

typedef struct rs_trace rs_trace_t; /* opaque: header key/values + growable event array */

/* New empty trace; source is "model", "sim", "exec-cpu", "exec-gpu", ... Returns NULL on OOM. */
rs_trace_t *rs_trace_create(const char *source);
void rs_trace_free(rs_trace_t *t);

const char *rs_trace_source(const rs_trace_t *t);
/* Set (or replace) a header key; value is formatted (line breaks become spaces). Keys: [a-z0-9_.-]+,
 * "source" is reserved (it is the trace's source). Returns 0, or -1 on OOM or a bad key. */
int rs_trace_set_meta(rs_trace_t *t, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Header value or NULL. */
const char *rs_trace_get_meta(const rs_trace_t *t, const char *key);
size_t rs_trace_meta_count(const rs_trace_t *t);
void rs_trace_meta_at(const rs_trace_t *t, size_t i, const char **key, const char **value);

/* Record the problem's fields under the standard keys (seq_tokens, n_ranks, batch, q_heads, kv_heads,
 * head_dim, act_bytes, grad_bytes, causal, layout, pass, tile_q, tile_k). Returns 0 or -1 on OOM. */
int rs_trace_meta_problem(rs_trace_t *t, const rs_problem_t *p);
/* Record the machine: profile name, dtype, F, tiers, launch, overlap (scalar or curve), slowdown, host
 * cost, efficiency points, jitter and seed, stragglers and degraded hops. Returns 0 or -1 on OOM. */
int rs_trace_meta_machine(rs_trace_t *t, const rs_machine_t *m);
/* Rebuild a problem from those keys. Returns 0 or -1 with err naming the missing/bad key
 * (RS_ERR_BAD_INPUT). */
int rs_trace_problem(const rs_trace_t *t, rs_problem_t *p, rs_err_t *err);

/* Append an event. Returns 0 or -1 on OOM. */
int rs_trace_add(rs_trace_t *t, const rs_event_t *ev);
/* A sink (event.h) that appends every event to t; RS_NO_SINK when t is NULL. Can't fail. */
rs_event_sink_t rs_trace_sink(rs_trace_t *t);
size_t rs_trace_count(const rs_trace_t *t);
const rs_event_t *rs_trace_events(const rs_trace_t *t);
rs_event_t *rs_trace_events_mut(rs_trace_t *t);
/* Sort events by (pass, rank, step, kind), role events by (pass, rank, step, role). Can't fail. */
void rs_trace_sort(rs_trace_t *t);
/* Index of the event (rank, step, pass, kind) in a sorted trace, or -1. O(log n) (O(n) if events
 * were added out of order since the last sort). */
long rs_trace_find(const rs_trace_t *t, int32_t rank, int32_t step, rs_pass_t pass, rs_event_kind_t kind);
/* Latest end_s minus earliest start_s over all events (0 when empty). Can't fail. */
double rs_trace_makespan(const rs_trace_t *t);

/* ---------------------------------------------------------------------------------------------------
 * Role events: the parts of a step's compute (docs/traces.md, "Role events")
 * ------------------------------------------------------------------------------------------------- */
typedef enum { RS_ROLE_ATTN = 0, RS_ROLE_MERGE, RS_ROLE_CAST, RS_ROLE_OTHER, RS_ROLE_COUNT } rs_role_t;

/* One role of one (rank, step, pass): its kernels' span and busy time. */
typedef struct {
    int32_t rank;          /* ring rank */
    int32_t step;          /* step index within the pass */
    rs_pass_t pass;        /* forward / backward */
    rs_role_t role;        /* attention, merge/correction, cast/copy, other */
    double start_s;        /* the role's first kernel's start in the step */
    double end_s;          /* its last kernel's end (>= start_s) */
    double busy_s;         /* the union of its kernels' intervals: 0 <= busy_s <= end_s - start_s */
} rs_role_event_t;

const char *rs_role_name(rs_role_t r);          /* "attn" | "merge" | "cast" | "other" */
int rs_role_parse(const char *s, rs_role_t *out); /* 0 or -1 */

/* Append a role event. Returns 0 or -1 on OOM. */
int rs_trace_add_role(rs_trace_t *t, const rs_role_event_t *r);
size_t rs_trace_role_count(const rs_trace_t *t);
const rs_role_event_t *rs_trace_roles(const rs_trace_t *t);
/* The order of role events: (pass, rank, step, role). -1, 0, 1 (qsort form: rs_role_event_qcmp). */
int rs_role_event_cmp(const rs_role_event_t *a, const rs_role_event_t *b);
int rs_role_event_qcmp(const void *a, const void *b);
/* Busy seconds of role at (rank, step, pass), or -1 when the trace has no such role event. O(log n)
 * in a sorted trace. Can't fail. */
double rs_trace_role_busy(const rs_trace_t *t, int32_t rank, int32_t step, rs_pass_t pass, rs_role_t role);

/* Write CSV / Chrome JSON atomically (temp + rename). Numbers use %.17g, so the same trace gives the
 * same bytes. Return 0 or -1 with err naming the path. */
int rs_trace_write_csv(const rs_trace_t *t, const char *path, rs_err_t *err);
int rs_trace_write_chrome(const rs_trace_t *t, const char *path, rs_err_t *err);
/* Chrome lanes: tid = kind (forward) or 4 + kind (backward), role events 8 + role (forward) or
 * 12 + role (backward); an event that overlaps the previous one of its lane (measured traces of
 * medians can) goes to tid + 16 k, thread "KIND (overlap k)", so no tid holds overlapping events and
 * no time is altered. */
/* Read a CSV trace (version 1 or 2). Malformed input: NULL with err "path:line: expected ..." (bad
 * header, column count, number, pass, kind, role, busy time, source, duplicate (rank, step, pass,
 * kind) or (rank, step, pass, role)) and err.code
 * RS_ERR_BAD_INPUT; a file that cannot be read or OOM: NULL with err from the failing call. */
rs_trace_t *rs_trace_read_csv(const char *path, rs_err_t *err);

#endif /* RS_TRACE_H */
