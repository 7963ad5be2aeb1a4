/* exec_check.h - the executor's float64 check (`ringsim exec --check`) and --save-io: the plain full
 * attention reference, every rank's outputs scattered into global order, compared with it per
 * tensor, and the inputs and outputs written as .npy files. */
#ifndef RS_EXEC_CHECK_H
#define RS_EXEC_CHECK_H

#include <stdint.h>

#include "exec.h"

/* The tensors of the float64 reference, global BHSD arrays (heads as in the problem): q, o, d_o, dq
 * [batch][Hq][S][d] for the S new tokens (positions P..P+S-1, P = cached_tokens), lse [batch][Hq][S],
 * k, v, dk, dv [batch][Hkv][P+S][d]. */
typedef struct {
    const double *q, *k, *v;  /* inputs */
    const double *d_o;        /* dO (NULL: forward only) */
    double *o, *lse;          /* the forward's outputs */
    double *dq, *dk, *dv;     /* the backward's (P = 0; NULL: none) */
} rs_exec_ref_t;

/* float64 full attention on t (causal from the problem: query i sees keys j <= P + i, else all);
 * the backward when d_o, dq, dk, dv are all given and P = 0. Returns 0 or -1 with err on OOM. */
int rs_exec_reference(const rs_problem_t *p, const rs_exec_ref_t *t, rs_err_t *err);

/* One output of the ranks gathered on rank 0 for the check and --save-io. */
typedef struct {
    rs_tensor_t t;         /* which output */
    int64_t heads, width;  /* its heads and row width (lse: 1) */
    float *gathered;       /* every rank's local array, rank-major (rank 0) */
} rs_exec_output_t;

/* On rank 0: the inputs regenerated from the seed in global order (and saved with o->save_io_dir),
 * the reference of o->check, then each of outs[0..n_outs) scattered into global order, compared
 * (res->err, ref_max, worst; check_ok false beyond o->check_tol; finite false on inf or NaN) and
 * saved (lse is not). Returns 0 or -1 with err (out of memory, a file that cannot be written). */
int rs_exec_check_and_save(const rs_schedule_t *s, const rs_exec_opts_t *o, const rs_exec_output_t *outs, int n_outs,
                           rs_exec_result_t *res, rs_err_t *err);
/* After a failed check: err says which tensors, by how much, where ("check failed: max|x - ref| /
 * max|ref| = O 0.001 at (batch 0, head 1, token 5, dim 3) (tolerance 1e-05)"). Can't fail. */
void rs_exec_check_message(const rs_exec_opts_t *o, const rs_exec_output_t *outs, int n_outs, const rs_exec_result_t *res,
                           rs_err_t *err);

#endif /* RS_EXEC_CHECK_H */
