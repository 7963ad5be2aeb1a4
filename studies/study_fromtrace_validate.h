/* study_fromtrace_validate.h - traces of a run predicted with a profile and compared
 * (study_fromtrace_validate.c): each trace predicted by the walk (the "model" backend) on the
 * trace's own problem and compared with it by traces/compare.h, as `ringsim compare TRACE PREDICTED`
 * does; optionally the predicted trace, the per-step CSV and the pred-vs-meas figure (plots/plot.h)
 * of each trace into a directory.
 */
#ifndef RS_STUDY_FROMTRACE_VALIDATE_H
#define RS_STUDY_FROMTRACE_VALIDATE_H

#include <stdio.h>

#include "compare.h"
#include "profile.h"
#include "study_fromtrace_traces.h"

/* One trace predicted and compared. */
typedef struct {
    rs_problem_t problem;        /* the trace's */
    rs_compare_t cmp;            /* the trace (REF) against the prediction (OTHER), traces/compare.h */
} rs_tval_row_t;

/* Predict every trace of ts on hw (peak for dtype) with the walk and compare: rows[i] for trace i
 * (free each with rs_compare_free(&rows[i].cmp)). out_dir (NULL: none, must exist): per trace i
 * DIR/predI-B<B>-<pass>.csv (predicted trace), DIR/cmpI-B<B>-<pass>.csv (the per-step points,
 * rs_compare_write_csv) and DIR/pred-vs-measI-B<B>-<pass>.png (plots/plot.h). Returns 0, or -1 with
 * err: RS_ERR_BAD_INPUT (the profile cannot run a problem: err names the trace), RS_ERR_RUNTIME (the
 * walk, writing the files). */
int rs_tval_run(const rs_tset_t *ts, const rs_hw_t *hw, rs_dtype_t dtype, const char *out_dir, rs_tval_row_t *rows,
                rs_err_t *err);
/* The model's role events (docs/traces.md "Role events") in t, the walk's predicted trace of schedule
 * s on machine m, sorted here: per (rank, step) with a compute event, attn = its attention calls'
 * time and, with a kernel preset, merge = its merges (inline, after the dK,dV arrival, deferred to the
 * epilogue; docs/model.md section 3a), as validate --from-trace predicts them; the model has no cast
 * or other term. 0 or -1 on OOM. */
int rs_tval_model_roles(const rs_schedule_t *s, const rs_machine_t *m, rs_trace_t *t);
/* Per trace: the compare table (rs_compare_print), then one summary line per trace. Can't fail. */
void rs_tval_print(const rs_tset_t *ts, const rs_tval_row_t *rows, FILE *out);

#endif /* RS_STUDY_FROMTRACE_VALIDATE_H */
