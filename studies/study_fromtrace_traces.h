/* study_fromtrace_traces.h - the traces the --from-trace studies read (study_fromtrace_traces.c):
 * ringsim-schema traces (trace.h; `ringsim import` makes them from PyTorch-profiler and Nsight Systems
 * traces), possibly at several block sizes B (one file per B and pass), read, checked against the
 * schedule of their problem and kept together with it; and what a step of a schedule computes (its
 * mask kind and call shape), by which the fit groups the compute events.
 *
 * The problem comes from each header (the keys rs_trace_meta_problem writes); a key a header lacks
 * comes from the problem options, and a problem option given on the command line must agree with
 * every header. All traces must describe one problem shape: only S (hence B) and the pass may differ.
 */
#ifndef RS_STUDY_FROMTRACE_TRACES_H
#define RS_STUDY_FROMTRACE_TRACES_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"
#include "schedule.h"
#include "trace.h"
#include "util.h"

/* The mask kind of a step: what its attention call(s) compute. full: every computed block is FULL;
 * causal: a block on the diagonal (DIAG, diag 0); shifted: a diagonal block with diag 1 (striped,
 * the KV owner after the rank: row i sees keys j < i); skip: nothing is computed (every block SKIP,
 * or the backward's tail). */
typedef enum { RS_TFIT_FULL = 0, RS_TFIT_CAUSAL, RS_TFIT_SHIFTED, RS_TFIT_SKIP, RS_TFIT_KIND_COUNT } rs_tfit_kind_t;
const char *rs_tfit_kind_name(rs_tfit_kind_t k); /* "full" | "causal" | "shifted" | "skip" */

/* The kind of (rank, step) from the schedule's blocks (schedule.h) and its call shape: q_tokens the
 * query tokens and k_tokens the key tokens of the segments that take part in a computed (non-SKIP)
 * block (0 x 0 for skip). Can't fail. */
rs_tfit_kind_t rs_tfit_step_kind(const rs_step_t *st, int64_t *q_tokens, int64_t *k_tokens);

#define RS_TFIT_MAX_TRACES 64

/* What the fit reads: the trace files, and the problem options for what a header lacks. */
typedef struct {
    const char *const *paths;    /* trace CSV files (ringsim's schema) */
    int n_paths;                 /* 1..RS_TFIT_MAX_TRACES */
    rs_problem_t problem;        /* the problem options (their defaults where not given) */
    unsigned given;              /* bits (1u << rs_tfit_key_t) of the problem's fields given as options */
    double latency_s;            /* --latency: < 0 fit it */
    bool dtype_given;            /* --dtype given: the profile's peak is for it; else from act_bytes */
    rs_dtype_t dtype;
    bool allow_implausible;      /* --allow-implausible: a fitted figure beyond the traced device's
                                    datasheet is a warning, not a refusal (plausible.h) */
} rs_tfit_opts_t;

/* The problem's fields as header keys (trace.h rs_trace_meta_problem), for rs_tfit_opts_t.given. */
typedef enum {
    RS_TFIT_KEY_SEQ = 0, RS_TFIT_KEY_RANKS, RS_TFIT_KEY_BATCH, RS_TFIT_KEY_HEADS, RS_TFIT_KEY_KV_HEADS, RS_TFIT_KEY_HEAD_DIM,
    RS_TFIT_KEY_ACT_BYTES, RS_TFIT_KEY_GRAD_BYTES, RS_TFIT_KEY_CAUSAL, RS_TFIT_KEY_LAYOUT, RS_TFIT_KEY_PASS, RS_TFIT_KEY_TILE,
    RS_TFIT_KEY_COUNT
} rs_tfit_key_t;

/* Defaults: no files, rs_problem_default, nothing given, latency fitted, dtype from act_bytes, an
 * implausible fit refused. */
void rs_tfit_opts_default(rs_tfit_opts_t *o);
/* The dtype a profile fitted from traces of problem p has its peak for: o's when given, else p's
 * activations' (4 bytes fp32, 1 fp8, else bf16). Can't fail. */
rs_dtype_t rs_tfit_dtype(const rs_tfit_opts_t *o, const rs_problem_t *p);

/* The traces, read and checked (every (rank, step) inside its problem's schedule). */
typedef struct rs_tset rs_tset_t;
/* Read and check o->paths. Returns the set, or NULL with err "FILE: what is wrong" (bad input; out
 * of memory: runtime). */
rs_tset_t *rs_tset_load(const rs_tfit_opts_t *o, rs_err_t *err);
void rs_tset_free(rs_tset_t *ts);
int rs_tset_count(const rs_tset_t *ts);
const rs_trace_t *rs_tset_trace(const rs_tset_t *ts, int i);
const char *rs_tset_path(const rs_tset_t *ts, int i);
/* The problem of trace i (its header, completed from the options), and its schedule. */
const rs_problem_t *rs_tset_problem(const rs_tset_t *ts, int i);
const rs_schedule_t *rs_tset_schedule(const rs_tset_t *ts, int i);

#endif /* RS_STUDY_FROMTRACE_TRACES_H */
