/* exec_launch.h - starting ranks: re-launching ringsim under mpirun, and where MPI put this process. */
#ifndef RS_EXEC_LAUNCH_H
#define RS_EXEC_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

/* Rank / size / rank on this host from the launcher's environment (Open MPI, PMI, PMIx, Slurm's
 * SLURM_PROCID / SLURM_STEP_NUM_TASKS), read before MPI_Init. -1 (local rank: 0) when not started by a
 * launcher: the one test of "a launcher started this process" (main's PR_SET_PDEATHSIG, sweep's rank
 * 0). Can't fail. */
int rs_exec_env_rank(void);
int rs_exec_env_size(void);
int rs_exec_env_local_rank(void);

/* true when MPI is built in and mpirun is on PATH. */
bool rs_exec_have_mpirun(void);

/* Run `mpirun [--allow-run-as-root] --oversubscribe -np NP <this executable> SUBCOMMAND argv[1..]`
 * and wait for it. Returns mpirun's exit status (0, 1, 2, ...), or -1 with err if it could not be
 * started. */
int rs_exec_mpirun(int64_t np, int argc, char **argv, const char *subcommand, rs_err_t *err);

/* Before MPI_Init, in a rank of a job that mpirun started directly (`mpirun -np 2 ringsim exec ...`,
 * not rs_exec_mpirun, whose job works in the launching run's folder): Open MPI's shared-memory
 * backing files (btl_vader, osc_sm, osc_rdma; /dev/shm by default, where a killed rank leaves them)
 * go into mpirun's session directory of the job (a setting of the user's stays), and local rank 0
 * leaves a watcher (its own session, no descriptors) that removes that session directory once mpirun
 * is gone, when mpirun left it (Open MPI 4.1's mpirun does after a SIGINT to its process group).
 * Nothing without mpirun's session directory in the environment (another launcher). Can't fail. */
void rs_exec_mpi_prepare(void);

#endif /* RS_EXEC_LAUNCH_H */
