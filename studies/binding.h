/* binding.h - libringsim for callers in other languages: the Python package python/ringsim calls it
 * through ctypes (docs/python.md); any FFI can.
 *
 * Struct layouts by name: rs_abi_fields() describes, field by field, the structs a caller fills or
 * reads (the problem, the machine as asked for, the setup, the closed form, the walk, events, the
 * memory and plan configurations and results), with offsets and sizes taken from the compiler, so
 * a binding builds its structs from this table instead of keeping a second copy of the layouts. Every
 * function below takes and returns pointers (no struct passes by value).
 */
#ifndef RS_BINDING_H
#define RS_BINDING_H

#include <stddef.h>

#include "event.h"
#include "cost.h"
#include "setup.h"
#include "util.h"

/* The version of the library this program runs with ("0.1.0"). Can't fail. */
const char *rs_version(void);

/* One field of a described struct; a row with field NULL gives the struct's size (size) first. kind:
 * 'q' int64, 'Q' uint64, 'i' int32, 'I' uint32 or an enum, 'd' double, '?' bool, 's' char[size]
 * (a NUL-terminated string), 'T' a struct of type sub, 'x' bytes the table does not describe. A
 * field of n elements (an array) has size = n x the element's size. */
typedef struct {
    const char *type;   /* "rs_problem_t" */
    const char *field;  /* "seq_tokens", or NULL: the struct's own row */
    size_t offset;      /* bytes from the start of the struct */
    size_t size;        /* bytes of the field (all its elements), or of the struct */
    char kind;          /* see above */
    const char *sub;    /* 'T': the type of its elements */
} rs_abi_field_t;

/* The table, nested types before the types that hold them; ends with a row of type NULL. Can't fail. */
const rs_abi_field_t *rs_abi_fields(void);

/* Where rate r (rs_rate_t) of the setup's machine comes from (rate_source.h) into *out; skipped (when
 * non-NULL) tells whether the setup's ring does not use it (rs_machine_rates_skip: the inter-node hop
 * of a ring inside one node, the merges of the dense model). Returns 0, or -1 with err for r out of
 * range. */
int rs_binding_rate(const rs_setup_t *s, int r, rs_rate_source_t *out, bool *skipped, rs_err_t *err);
/* The number of rates (RS_RATE_COUNT): r of rs_binding_rate is in [0, it). Can't fail. */
int rs_binding_rate_count(void);

/* The problem of the setup's entry (layout i, pass j) into *out (rs_setup_problem). Can't fail. */
/* The accepted range of the machine's field called field, the one the command line's option takes
 * (model/3-machine/ranges.h): "flops", "bw", "inter_bw", "latency", "launch", "overlap", "slowdown",
 * "host_xfer", "host_byte", "jitter", "factor" (a straggler's or degraded hop's), "gpus_per_node",
 * into *min and *max. Returns 0, or -1 for another name. */
int rs_binding_machine_range(const char *field, double *min, double *max);

void rs_binding_problem(const rs_setup_t *s, int layout_i, int pass_j, rs_problem_t *out);
/* The closed form of entry (i, j) on the setup's machine (rs_setup_finish done), B* included
 * (rs_model_b_star). Returns 0 or -1 with err. */
int rs_binding_closed(const rs_setup_t *s, int layout_i, int pass_j, rs_closed_t *out, rs_err_t *err);
/* Events the walk of entry (i, j) makes at most: ranks x steps x 4 (compute, send, recv, step). */
size_t rs_binding_walk_events(const rs_setup_t *s, int layout_i, int pass_j);
/* Which entry of a setup a walk runs, and the room for its events. */
typedef struct {
    int32_t layout_i; /* the setup's layout index */
    int32_t pass_j;   /* the setup's pass index */
    uint64_t cap;     /* events[] holds at most cap events (0 with events NULL: none kept) */
} rs_binding_walk_in_t;

/* The critical-path walk of entry (in->layout_i, in->pass_j): its figures into *out and, when events
 * is non-NULL, its events in the order made into events[0..in->cap) and their count into *n_events
 * (when non-NULL). Returns 0 or -1 with err (bad input, cap too small: "walk: N events, room for M"). */
int rs_binding_walk(const rs_setup_t *s, const rs_binding_walk_in_t *in, rs_event_t *events, size_t *n_events, rs_walk_t *out,
                    rs_err_t *err);

#endif /* RS_BINDING_H */
