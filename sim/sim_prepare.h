/* sim_prepare.h - internal to sim/: the platform a run simulates, made ready in the parent before the
 * child starts (sim_prepare.c; rs_sim_run calls it).
 *
 * A user's platform (--platform FILE) is checked (platform_check.h: SimGrid would abort on a bad
 * rate without naming it) and its ranks mapped by --hostmap or onto gpu<p>. A generated platform -
 * the machine's ring or all-pairs platform (platform.h) or a job's fabric (fabric.h), every rank
 * actor of a job on host gpu<device> - is written into a new temporary folder (removed by
 * sim_platform_release, or by a signal: output.h) and, with --platform-out, to that file too.
 */
#ifndef RS_SIM_PREPARE_H
#define RS_SIM_PREPARE_H

#include "machine.h"
#include "platform.h"
#include "job_fold.h"
#include "schedule.h"
#include "sim.h"
#include "util.h"

typedef struct {
    rs_hostmap_t hm;     /* every rank actor (rings x N; a fold's rings only) on its host */
    char tmpdir[4096];   /* the temporary folder of a generated platform ("" for a user's and a job's) */
    char path[4200];     /* the platform file the child loads (a job's is not written: the child builds it) */
    char desc[512];      /* what is simulated: the generated platform's description or the user's file */
} sim_platform_t;

/* Make the platform of the run (cfg as sim_config_for_run gives it; ring_copies > 1: a ring folded
 * by its rotation, whose child loads hosts gpu0 and gpu1 and hop 0 alone - --platform-out still gets
 * the whole ring). Returns 0, or -1 with err (code RS_ERR_BAD_INPUT for a bad platform or host map
 * file, else RS_ERR_RUNTIME); nothing is left to release then. */
int sim_prepare_platform(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg, const rs_job_fold_t *fold,
                         int64_t ring_copies, sim_platform_t *pl, rs_err_t *err);
/* Remove the temporary folder and free the host map. Can't fail. */
void sim_platform_release(sim_platform_t *pl);

#endif /* RS_SIM_PREPARE_H */
