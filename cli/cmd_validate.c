/* cmd_validate.c - `ringsim validate`: calibrate this machine, then for a sweep of B across the
 * overlap threshold predict (the model's critical-path walk, and the SimGrid simulator when built)
 * and measure (the CPU executor over MPI) the same schedule, and compare them (traces/compare.h):
 * per B the typical T_comp, T_comm, T_step and the makespan; over the sweep the per-(rank, step)
 * errors (median, p95, max) and the crossover B where T_comm overtakes T_comp, predicted vs
 * measured. Runs as one MPI job (it re-starts itself under mpirun), so calibration and measurement
 * see the same processes, cores and transport. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifdef RINGSIM_HAVE_EXEC
#include "exec_launch.h"
#include "study_validate.h"

static int parse_blocks(void *dst, const char *arg, rs_err_t *err) {
    rs_validate_in_t *j = dst;
    return rs_cli_parse_sizes("--blocks", arg, 2, 1 << 16, 2, RS_VALIDATE_MAX_B, j->b, &j->n_b, err);
}

static int parse_timeout(void *dst, const char *arg, rs_err_t *err) {
    rs_validate_in_t *j = dst;
    if (rs_parse_double("--timeout", arg, 0.001, 1e6, &j->exec.timeout_s, err) < 0) return -1;
    j->calib.timeout_s = j->exec.timeout_s; /* calibration's waits too */
    return 0;
}

#define O(field) offsetof(rs_validate_in_t, field)
static const rs_opt_t own_opts[] = {
    {"blocks", 0, "LIST", "8,16,...,1024", "B sweep, comma list (K suffix)", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_blocks,
     "Validation:"},
    {"calibrated", 0, "FILE", "calibrate now", "use this calibrated profile instead of calibrating now", RS_ARG_STRING,
     O(calibrated), 0, 0, NULL, NULL, NULL},
    {"save-profile", 0, "FILE", "none", "write the profile the predictions used", RS_ARG_STRING, O(save_profile), 0, 0, NULL,
     NULL, NULL},
    {"min-time", 0, "S", "0.05", "calibration time per block size", RS_ARG_DOUBLE, O(calib.min_time_s), 0, 60, NULL, NULL,
     NULL},
    {"rounds", 0, "R", "5",
     "rounds over the sweep; each B is measured --reps times per\nround and the medians are taken over all rounds, so a burst "
     "of\nload elsewhere hits every B a little",
     RS_ARG_INT, O(rounds), 1, 1000, NULL, NULL, NULL},
    {"reps", 0, "N", "7", "measured repetitions per B and round", RS_ARG_INT, O(exec.reps), 1, 10000, NULL, NULL, NULL},
    {"warmup", 0, "N", "1", "unmeasured repetitions per B", RS_ARG_INT, O(exec.warmup), 0, 10000, NULL, NULL, NULL},
    {"no-sim", 0, NULL, "sim when built", "skip the simulator", RS_ARG_TRUE, O(no_sim), 0, 0, NULL, NULL, NULL},
    {"csv", 0, "FILE", "none", "per-B rows as CSV", RS_ARG_STRING, O(csv), 0, 0, NULL, NULL, NULL},
    {"trace-dir", 0, "DIR", "none", "write measured and predicted traces per B", RS_ARG_STRING, O(trace_dir), 0, 0, NULL, NULL,
     NULL},
    {"timeout", 0, "S", "60", "give up a wait after S seconds", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_timeout, NULL},
};
#undef O

int rs_cmd_validate(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut short (a timeout) keeps what it printed */
    rs_validate_in_t j;
    rs_validate_defaults(&j);
    rs_setup_t c;
    const bool loud = rs_cli_exec_setup(&c, &j.problem);
    rs_cli_exec_t x = {"cpu", j.job};
    rs_opt_group_t groups[] = {{own_opts, RS_OPTS_N(own_opts), &j, NULL, 0}, rs_cli_exec_group(&x), rs_cli_shared_group(&c, NULL)};
    int rc = rs_cli_run_parse("validate", argc, argv, groups, 3, loud);
    if (rc >= 0) return rc;
    rs_err_t err = {{0}};
    j.job = x.job;
    if (c.n_layouts != 1 || c.n_passes != 1) { rs_errf(&err, "--layout and --pass: give one of each"); goto usage; }
    if (rs_exec_check_out("csv", j.csv, false, &err) < 0 || rs_exec_check_out("trace-dir", j.trace_dir, true, &err) < 0 ||
        rs_exec_check_out("save-profile", j.save_profile, false, &err) < 0)
        goto usage;
    if (rs_backend_get(x.backend, true, &j.backend, &err) < 0) goto usage;
    if (!rs_cli_given(&groups[2], "dtype")) rs_setup_dtype(&c, j.backend->exec->default_dtype); /* the executor's own */
    /* the problem and the hardware options: every B valid before any rank starts */
    for (int i = 0; i < j.n_b; i++) {
        c.problem = rs_problem_with_block(&c.problem, j.b[i]);
        if (rs_setup_finish(&c, &err) < 0) goto usage;
    }
    j.problem = rs_setup_problem(&c, 0, 0);
    j.dtype = c.spec.dtype;
    j.job.argc = &argc, j.job.argv = &argv;
    if (rs_validate_finish(&j, &err) < 0) goto usage;
    return rs_study_validate(&j);
usage:
    if (loud) fprintf(stderr, "ringsim validate: %s\n", err.msg);
    return RS_EXIT_USAGE;
}

#endif
