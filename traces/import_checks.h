/* import_checks.h - private to traces/import*.c: the import's consistency checks (import_checks.c):
 * traces of one run (world size, GPU), every trace with GPU kernels, the problem against what the
 * kernels show (FlashAttention-2's head dimension and head count from its template and grid), a
 * step's transfer bytes against the messages, and what the step computes against its kernels. Each
 * refusal says what was seen and which option to check (RS_ERR_BAD_INPUT). */
#ifndef RS_IMPORT_CHECKS_H
#define RS_IMPORT_CHECKS_H

#include "import_raw.h"

/* Every raw rank holds GPU kernels; the ranks' world sizes and GPU names agree; their kernels lie within
 * RS_V_MAX_SPAN_NS (the files' clocks agree). 0 or -1 with err. */
int rs_import_check_run(const rs_raw_t *raw, rs_err_t *err);
/* The problem's head_dim and q_heads against the FlashAttention-2 kernels of every rank (the head
 * dimension of their Flash_fwd/bwd_kernel_traits, the grid's z = query heads). 0 or -1 with err. */
int rs_import_check_shapes(const rs_raw_t *raw, const rs_problem_t *p, rs_err_t *err);

/* Where a step is, for messages. */
typedef struct {
    const char *file;
    int rank, step, inst;
    rs_pass_t pass;
} rs_step_where_t;

/* A step's transfers: the bytes its messages carry (sent, received; -1 unknown) against the
 * schedule's st (problem p). 0 or -1 with err naming the options that set the bytes and the -S the
 * messages would match. */
int rs_import_check_bytes(const rs_step_where_t *w, const rs_step_t *st, const rs_problem_t *p, int64_t sent, int64_t received, rs_err_t *err);
/* A step's compute: n_attn attention kernels against the executed FLOPs of the schedule. 0 or -1 with
 * err (attention where the layout computes nothing; none where it computes). */
int rs_import_check_compute(const rs_step_where_t *w, const rs_step_t *st, const rs_problem_t *p, size_t n_attn, rs_err_t *err);

#endif /* RS_IMPORT_CHECKS_H */
