/* import_select.h - private to traces/import*.c: what to import (import_select.c): every rank's
 * kernels narrowed to one ProfilerStep#N range (--profiler-step N; --layer K without it: the first
 * ProfilerStep holding attention) and to a time window (--window T0:T1, seconds from the traces'
 * earliest kernel, by GPU start), and the ring pass to import (--occurrence K over the selection, or
 * --layer K inside the profiler step). */
#ifndef RS_IMPORT_SELECT_H
#define RS_IMPORT_SELECT_H

#include "import_raw.h"

/* Narrow raw's kernels to what o selects; *occurrence = the ring pass to import (o->layer when given,
 * else o->occurrence). 0, or -1 with err (RS_ERR_BAD_INPUT): a rank without the ProfilerStep asked
 * for (naming the ones it has), a window holding no kernel. */
int rs_import_select(rs_raw_t *raw, const rs_import_opts_t *o, int *occurrence, rs_err_t *err);
/* For each step range of r, whether one of r's kernels was launched inside it (holds[r->nr]; a
 * kernel without a recorded launch counts at its GPU start): by binary search over the sorted launch
 * times, or (reference) by the plain scan of every kernel for every range. 0, or -1 on OOM. */
int rs_import_ranges_with_launch(const rs_raw_rank_t *r, bool *holds, bool reference);

#endif /* RS_IMPORT_SELECT_H */
