/* exec_launch.h - starting ranks: re-launching ringsim under mpirun, and where MPI put this process. */
#ifndef RS_EXEC_LAUNCH_H
#define RS_EXEC_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

/* Rank / size / rank on this host from the launcher's environment (Open MPI, PMI, PMIx), read
 * before MPI_Init. -1 (local rank: 0) when not started by a launcher. Can't fail. */
int rs_exec_env_rank(void);
int rs_exec_env_size(void);
int rs_exec_env_local_rank(void);

/* true when MPI is built in and mpirun is on PATH. */
bool rs_exec_have_mpirun(void);

/* Run `mpirun [--allow-run-as-root] --oversubscribe -np NP <this executable> SUBCOMMAND argv[1..]`
 * and wait for it. Returns mpirun's exit status (0, 1, 2, ...), or -1 with err if it could not be
 * started. */
int rs_exec_mpirun(int64_t np, int argc, char **argv, const char *subcommand, rs_err_t *err);

/* Check before any rank starts that an output can be written: is_dir, path is a writable directory;
 * else path's directory is. Returns 0 or -1 with err "--OPT PATH: ...". */
int rs_exec_check_out(const char *opt, const char *path, bool is_dir, rs_err_t *err);

/* Run fn(tops, ts, arg) as an SPMD program: n threads of this process over the "local" transport.
 * Returns rank 0's return value, or -1 with err if the threads could not start. Use for commands
 * that are otherwise run under mpirun (calibrate, validate) with --launch threads. */
struct rs_transport_ops;
int rs_exec_spmd_threads(int64_t n, int (*fn)(const struct rs_transport_ops *tops, void *ts, void *arg), void *arg,
                         rs_err_t *err);

/* Run an SPMD command body (calibrate, validate) on n ranks and return the command's exit code.
 * Under mpirun (under_mpi) the body runs in this process over the MPI transport with `progress`.
 * Otherwise, for n > 1 and unless threads were asked for, the command re-launches itself under
 * mpirun and returns mpirun's status; without mpirun it falls back to n threads over the local
 * transport (or fails if --launch mpirun was given explicitly). *label (may be NULL) is set to
 * "threads" when threads run, before the body starts. Errors are printed as
 * "ringsim SUBCOMMAND: message"; returns RS_EXIT_FAIL / RS_EXIT_USAGE then. */
int rs_exec_spmd_main(const char *subcommand, int64_t n, bool under_mpi, bool launch_threads, bool launch_given,
                      int progress, int *argc, char ***argv,
                      int (*fn)(const struct rs_transport_ops *tops, void *ts, void *arg), void *arg,
                      const char **label);

#endif /* RS_EXEC_LAUNCH_H */
