/* study_calibrate.h - the calibration study behind `ringsim calibrate`: measure this machine with an
 * executor (cpu or gpu, through the backend interface) - F_eff(B) of a full B x B block step, the
 * ring exchange's alpha-beta, the overlap curve and host cost (exec/calibrate.h) - and write a
 * hardware profile that `ringsim model|sim --profile FILE` read. One SPMD job
 * (exec/exec_backend.h); rank 0 writes the profile and reads it back.
 */
#ifndef RS_STUDY_CALIBRATE_H
#define RS_STUDY_CALIBRATE_H

#include <stdio.h>

#include "backend.h"
#include "calibrate.h"    /* what the executor measures and fits: rs_calib_opts_t */
#include "exec_backend.h" /* the SPMD job the measuring studies run on (the backend's exec part) */

typedef struct {
    const rs_backend_ops_t *backend; /* the executor: cpu or gpu */
    rs_problem_t problem;            /* the shape: heads, head_dim, batch, dtypes, pass, tile */
    rs_dtype_t dtype;                /* what the executor computes in (the profile's peak is for it) */
    rs_exec_spmd_t job;              /* ranks: N, launch, MPI progress, loopback, command line */
    rs_calib_opts_t calib;           /* block sizes, time per point, timeout */
    const char *out_path;            /* the profile to write (atomically) */
    char name[RS_NAME_LEN];          /* its name ("": "<backend>-<host>") */
    FILE *out;                       /* the report (rank 0): the calibration tables */
    const char *from_trace;          /* --from-trace FILE: fit from traces instead (study_fromtrace.h) */
} rs_calibrate_in_t;

/* What the measuring studies (calibrate, validate) share. Defaults: the cpu backend, the measurement
 * problem (rs_setup_measure_problem) in fp32, its job (N ranks, MPI progress poll). Can't fail. */
void rs_measure_defaults(const char *subcommand, const rs_backend_ops_t **backend, rs_problem_t *problem, rs_dtype_t *dtype,
                         rs_exec_spmd_t *job);
/* Before any rank starts: the job takes the problem's N and dtype, the executor computes that dtype
 * (rs_exec_spmd_check), a launcher started N processes. Returns 0 or -1 with err (bad input). */
int rs_measure_check(const rs_backend_ops_t *backend, const rs_problem_t *problem, rs_dtype_t dtype, rs_exec_spmd_t *job,
                     rs_err_t *err);
/* Run body as the SPMD job of the backend's executor (rs_exec_spmd: every rank runs it, or this
 * process re-starts itself under mpirun); body returns its rank's exit code and prints its own
 * errors, as rs_exec_spmd prints those of starting the ranks. Returns 0, or -1 with err.code from
 * the job's exit code (RS_EXIT_USAGE: RS_ERR_BAD_INPUT, any other failure: RS_ERR_RUNTIME) and
 * err.msg empty: the message is printed already, by the rank that failed. */
int rs_measure_run(const rs_backend_ops_t *backend, const rs_exec_spmd_t *job, int (*body)(const rs_exec_job_t *, void *),
                   void *arg, rs_err_t *err);

/* Defaults: the cpu backend; the measurement problem (rs_setup_measure_problem); calibration
 * defaults; MPI progress poll; out = stdout. */
void rs_calibrate_defaults(rs_calibrate_in_t *in);
/* Check before any rank starts: the executor computes the dtype, the loopback, mpirun's rank count.
 * Returns 0 or -1 with err (bad input). */
int rs_calibrate_finish(rs_calibrate_in_t *in, rs_err_t *err);
/* Run the study (rs_measure_run: its errors are printed by the ranks). Returns 0, or -1 with
 * err.code (bad input or runtime) and err.msg empty. */
int rs_study_calibrate(const rs_calibrate_in_t *in, rs_err_t *err);

#endif /* RS_STUDY_CALIBRATE_H */
