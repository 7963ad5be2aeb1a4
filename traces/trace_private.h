/* trace_private.h - private to the files of traces/: what the CSV reader (trace_csv.c) needs of the
 * trace object (trace.c) beyond trace.h, and the growth of an array that the trace and the import's
 * raw store (import_raw.c) share. */
#ifndef RS_TRACE_PRIVATE_H
#define RS_TRACE_PRIVATE_H

#include "trace.h"

/* A header key is [a-z0-9_.-]+ and not the reserved "source" / "ringsim-trace": 1, else 0. */
int rs_trace_key_ok(const char *key);
/* Make source (malloc'd, taken) the trace's source. Can't fail. */
void rs_trace_take_source(rs_trace_t *t, char *source);
/* Room for one more element of size bytes in the array (*v, n used, *cap allocated): the capacity
 * doubles, first_cap the first time. 0, or -1 on OOM (the array as it was). */
int rs_trace_room(void **v, size_t n, size_t *cap, size_t size, size_t first_cap);

#endif /* RS_TRACE_PRIVATE_H */
