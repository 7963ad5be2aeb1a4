/* event.h - what every way of running a schedule produces: one timed event per (rank, step, pass,
 * kind), handed to a sink.
 *
 * The event is the trace schema's row (docs/traces.md): kind is compute, send, recv or step; start
 * and end in seconds from the run's origin; FLOPs (compute: executed FLOPs), bytes (send/recv:
 * payload summed over the step's transfers), peer rank (send/recv; -1 otherwise). send/recv span
 * post to completion.
 *
 * A sink is a callback: the critical-path walk (model/4-cost) emits its events through one without
 * knowing where they go; traces/ provides the sink that appends them to a trace (rs_trace_sink).
 * RS_NO_SINK discards everything (and lets a producer skip the work of making events).
 */
#ifndef RS_EVENT_H
#define RS_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "schedule.h"

typedef enum { RS_EV_COMPUTE = 0, RS_EV_SEND, RS_EV_RECV, RS_EV_STEP, RS_EV_KIND_COUNT } rs_event_kind_t;
const char *rs_event_kind_name(rs_event_kind_t k);  /* "compute" | "send" | "recv" | "step" */
int rs_event_kind_parse(const char *s, rs_event_kind_t *out); /* 0 or -1 */

typedef struct {
    int32_t rank;          /* ring rank */
    int32_t step;          /* step index within the pass */
    rs_pass_t pass;        /* forward / backward */
    rs_event_kind_t kind;  /* compute, send, recv, step */
    int32_t peer;          /* send: destination; recv: source; else -1 */
    double start_s;        /* seconds from the run origin */
    double end_s;          /* >= start_s */
    double flops;          /* compute: executed FLOPs; else 0 */
    double bytes;          /* send/recv: payload bytes; else 0 */
} rs_event_t;

/* The order of traces: (pass, rank, step, kind); times do not count. -1, 0 or 1; the second for
 * qsort over rs_event_t arrays. */
int rs_event_key_cmp(const rs_event_t *a, const rs_event_t *b);
int rs_event_key_qcmp(const void *a, const void *b);

/* Where events go. emit returns 0, or -1 when it cannot take the event (out of memory): the
 * producer stops and reports the error. */
typedef struct {
    int (*emit)(void *ctx, const rs_event_t *ev); /* NULL: events are discarded */
    void *ctx;                                    /* emit's first argument */
} rs_event_sink_t;

#define RS_NO_SINK ((rs_event_sink_t){NULL, NULL})

/* true when the sink keeps events (a producer may skip making them otherwise). Can't fail. */
static inline bool rs_sink_wants(rs_event_sink_t k) { return k.emit != NULL; }
/* Hand ev to the sink: emit's result, 0 for RS_NO_SINK. */
static inline int rs_sink_emit(rs_event_sink_t k, const rs_event_t *ev) { return k.emit ? k.emit(k.ctx, ev) : 0; }

#endif /* RS_EVENT_H */
