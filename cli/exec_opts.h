/* exec_opts.h - the executors' options (--backend, --launch, --progress, --loopback) and the command
 * line of a measuring study's command (calibrate, validate): its own options, the executors' and
 * the shared ones, then the executor and the setup checked before any rank starts (exec_opts.c).
 * They fill the SPMD job of exec/exec_backend.h that those studies run on. */
#ifndef RS_CLI_EXEC_OPTS_H
#define RS_CLI_EXEC_OPTS_H

#ifdef RINGSIM_HAVE_EXEC
#include <stdbool.h>
#include <stdint.h>

#include "exec_backend.h"
#include "options.h"
#include "setup.h"

/* The executors' options (exec, calibrate, validate): --backend, --launch, --progress, --loopback. */
typedef struct {
    const char *backend;     /* --backend: cpu or gpu (rs_backend_get checks it) */
    rs_exec_spmd_t job;      /* --launch, --progress, --loopback */
} rs_cli_exec_t;
extern const rs_opt_t rs_cli_exec_opts[];
rs_opt_group_t rs_cli_exec_group(rs_cli_exec_t *x);

/* What a measuring study takes from its command line: the fields of the same names of its input
 * (rs_calibrate_in_t, rs_validate_in_t). */
typedef struct {
    const rs_backend_ops_t **backend;  /* out: the executor (--backend) */
    rs_problem_t *problem;             /* in: the study's default problem; out: the last block's */
    rs_dtype_t *dtype;                 /* out: what the executor computes in */
    rs_exec_spmd_t *job;               /* in: the study's defaults; out: --launch, --progress, --loopback
                                          and the command line (a re-launch under mpirun repeats it) */
} rs_cli_measure_t;

/* A measuring study's command (calibrate, validate) as parsed: the setup (made from the study's
 * default problem: fp32, its layout and pass, N = the launcher's -np under mpirun), the executors'
 * options, the three option groups (own, executors', shared: rs_cli_given), whether this process
 * talks (not under a launcher, or its rank 0), the launcher's process count (-1: none), the study's
 * fields and the command line (kept for --from-trace's files and the job). */
typedef struct {
    rs_setup_t c;
    rs_cli_exec_t x;
    rs_opt_group_t groups[3];
    bool loud;
    int launcher_size;
    rs_cli_measure_t study;
    int argc;
    char **argv;
} rs_cli_exec_cmd_t;

/* Parse its command line: its own options (own), the executors' (filling *study.job) and the shared
 * ones. stdout is line-buffered (a run cut short keeps what it printed). Returns as rs_cli_run_parse. */
int rs_cli_exec_parse(const char *name, int argc, char **argv, rs_opt_group_t own, rs_cli_measure_t study,
                      rs_cli_exec_cmd_t *e);
/* Then: the executor (e->x.backend) into the study, its own dtype unless --dtype was given, the setup
 * checked with each of the blocks (S = B N) before any rank starts, the study's problem (the last
 * block's) and dtype, the command line into the job. Returns 0 or -1 with err. */
int rs_cli_exec_finish(rs_cli_exec_cmd_t *e, const int64_t *blocks, int n_blocks, rs_err_t *err);
#endif

#endif /* RS_CLI_EXEC_OPTS_H */
