/* import_steps.h - private to traces/import*.c: step assignment (import_steps.c). Every raw kernel of
 * every rank gets the ring pass instance it belongs to and its step in it. */
#ifndef RS_IMPORT_STEPS_H
#define RS_IMPORT_STEPS_H

#include <stdbool.h>
#include <stdint.h>

#include "import_raw.h"

/* A ring pass found on a rank. */
typedef struct {
    rs_pass_t pass;   /* forward or backward */
    int n_steps;      /* steps seen */
} rs_steps_inst_t;

/* The steps of one rank's raw kernels. */
typedef struct {
    int32_t *inst;           /* [nk] instance of each kernel, -1 = not in a ring step */
    int32_t *step;           /* [nk] step within its instance */
    rs_steps_inst_t *insts;  /* [n_insts] ring passes found, in order */
    int n_insts, cap_insts;
} rs_steps_t;

/* Assign the kernels of every rank of raw (as[0..n_ranks), zeroed) to ring passes and steps: by step
 * ranges when use_ranges and some rank has ranges (*ranges = true; every rank must have them; the
 * ranges of each rank get sorted by start), else by the launch order (*ranges = false). Every rank
 * needs an attention kernel, N steps per forward and N + 1 per backward ring pass (N = raw->n_ranks),
 * and as many passes of each kind as rank 0. 0, or -1 with err "FILE: rank R ...". Free each as[r]
 * with rs_steps_free, also after a failure. */
int rs_import_assign_steps(rs_raw_t *raw, bool use_ranges, rs_steps_t *as, bool *ranges, rs_err_t *err);
void rs_steps_free(rs_steps_t *a);

#endif /* RS_IMPORT_STEPS_H */
