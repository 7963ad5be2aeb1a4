/* study_validate.h - the validation study behind `ringsim validate`: calibrate this machine with an
 * executor (cpu or gpu, through the backend interface), then for a sweep of B across the overlap
 * threshold predict (the model's walk, and the simulator when its rule allows) and measure (the
 * executor) the same schedule, and compare them (traces/compare.h): per B the typical T_comp, T_comm,
 * T_step and the makespan; over the sweep the per-(rank, step) errors (median, p95, max) and the
 * crossover B where T_comm overtakes T_comp, predicted against measured.
 *
 * One SPMD job (exec/exec_backend.h): under mpirun each process is a rank; started by hand it
 * re-starts itself under mpirun, or runs threads, or (loopback) one device plays every rank in turn.
 * Calibration and measurement see the same processes, cores and transport. Measurement is
 * interleaved with calibration samples (`rounds` rounds over the sweep), so the model's inputs and
 * the runs see the machine in the same state (docs/exec.md section 5).
 */
#ifndef RS_STUDY_VALIDATE_H
#define RS_STUDY_VALIDATE_H

#include <stdbool.h>
#include <stdio.h>

#include "backend.h"
#include "calibrate.h"
#include "exec_backend.h"

#define RS_VALIDATE_MAX_B 32     /* block sizes of the sweep */
#define RS_VALIDATE_MAX_ROUNDS 16

typedef struct {
    const rs_backend_ops_t *backend; /* the executor: cpu or gpu (its exec part) */
    rs_problem_t problem;            /* heads, head_dim, batch, dtypes, layout, pass, causal (S = B N per B) */
    rs_dtype_t dtype;                /* what the executor computes in */
    rs_exec_spmd_t job;              /* ranks: N, launch, MPI progress, loopback, command line */
    int n_b;                         /* the sweep, increasing, >= 2 */
    int64_t b[RS_VALIDATE_MAX_B];
    int rounds;                      /* rounds over the sweep (1..RS_VALIDATE_MAX_ROUNDS used) */
    rs_calib_opts_t calib;           /* calibration (its blocks span the sweep: rs_validate_finish) */
    rs_exec_opts_t exec;             /* reps, warmup, timeout of each measured run */
    const char *calibrated;          /* a calibrated profile to use instead of calibrating (NULL: calibrate) */
    const char *save_profile;        /* write the profile the predictions used (NULL: no) */
    const char *csv;                 /* per-B rows as CSV (NULL: no) */
    const char *trace_dir;           /* measured, predicted and simulated traces per B (NULL: none) */
    bool no_sim;                     /* skip the simulator */
    FILE *out;                       /* the report (rank 0): calibration, per-B table, errors, crossovers */
} rs_validate_in_t;

/* Defaults: the cpu backend, the measurement problem (rs_setup_measure_problem), B = 8, 16, ..., 1024 (spans the crossover), 5
 * rounds, 7 reps after 1 warm-up, calibration defaults, MPI progress poll, out = stdout. */
void rs_validate_defaults(rs_validate_in_t *in);
/* Check what every rank needs before any starts (every B a valid problem, a ring of >= 2, the
 * executor computes the dtype, the calibrated profile loads) and make the calibration's blocks span
 * the sweep. Returns 0 or -1 with err naming the option. */
int rs_validate_finish(rs_validate_in_t *in, rs_err_t *err);
/* Run the study (an SPMD job). Returns the exit code: 0; 1 runtime failure; 2 bad input. */
int rs_study_validate(const rs_validate_in_t *in);

#endif /* RS_STUDY_VALIDATE_H */
