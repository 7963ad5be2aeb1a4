/* sim_child.h - internal to sim/: the simulation inside the forked SimGrid child (sim_child.c;
 * rs_sim_run forks the child and calls it there).
 *
 * SimGrid is initialised with the run's settings (sim_config.h), the platform loaded, every rank's
 * host and (on Full zones) every hop's route checked, then one actor per rank (ring r's rank p is
 * actor g = r N + p, on hm->host[g]) walks the schedule step by step as sim.h describes, beside a
 * compute helper where the exec's end cannot be predicted, and a job's background collectives
 * (job_child.h). Stages, events, progress, errors and the results go to the parent as records
 * (sim_pipe.h).
 */
#ifndef RS_SIM_CHILD_H
#define RS_SIM_CHILD_H

#include <stdbool.h>
#include <stdio.h>

#include "job_fold.h"
#include "machine.h"
#include "platform.h"
#include "schedule.h"
#include "sim.h"

typedef struct {
    const rs_schedule_t *s;     /* the schedule every ring runs */
    const rs_machine_t *m;      /* the machine */
    const rs_sim_config_t *cfg; /* the run's configuration (sim_config_for_run) */
    const char *platform;       /* the platform file to load */
    const rs_hostmap_t *hm;     /* every rank actor (rings x N; a fold's rings only) on its host */
    const rs_job_fold_t *fold;  /* a job's fold on the activity engine (NULL: none) */
    int64_t ring_copies;        /* a single ring folded by its rotation symmetry (ring_fold.h): N, rank 0
                                   alone simulated, its own neighbour; 1: every rank simulated */
    bool events;                /* send the trace events ('E') */
    bool progress;              /* send 'P' records */
} sim_child_in_t;

/* The child process's body: simulate, with the records written to out. Returns its exit code:
 * RS_EXIT_OK; RS_EXIT_USAGE after an 'X' record of bad input; RS_EXIT_FAIL otherwise. */
int sim_child_main(const sim_child_in_t *in, FILE *out);

#endif /* RS_SIM_CHILD_H */
