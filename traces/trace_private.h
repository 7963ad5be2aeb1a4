/* trace_private.h - private to traces/trace*.c: what the CSV reader (trace_csv.c) needs of the trace
 * object (trace.c) beyond trace.h. */
#ifndef RS_TRACE_PRIVATE_H
#define RS_TRACE_PRIVATE_H

#include "trace.h"

/* A header key is [a-z0-9_.-]+ and not the reserved "source" / "ringsim-trace": 1, else 0. */
int rs_trace_key_ok(const char *key);
/* Make source (malloc'd, taken) the trace's source. Can't fail. */
void rs_trace_take_source(rs_trace_t *t, char *source);

#endif /* RS_TRACE_PRIVATE_H */
