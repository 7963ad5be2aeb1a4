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
    {"calibrated", 0, "FILE", "calibrate now", "use this calibrated profile instead of calibrating now", RS_ARG_IN,
     O(calibrated), 0, 0, NULL, NULL, NULL},
    {"save-profile", 0, "FILE", "none", "write the profile the predictions used", RS_ARG_OUT, O(save_profile), 0, 0, NULL,
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
    {"csv", 0, "FILE", "none", "per-B rows as CSV", RS_ARG_OUT, O(csv), 0, 0, NULL, NULL, NULL},
    {"trace-dir", 0, "DIR", "none", "write measured and predicted traces per B", RS_ARG_OUTDIR, O(trace_dir), 0, 0, NULL, NULL,
     NULL},
    {"timeout", 0, "S", "60", "give up a wait after S seconds", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_timeout, NULL},
};
#undef O

int rs_cmd_validate(int argc, char **argv) {
    rs_cli_exec_cmd_t e;
    rs_validate_in_t j;
    rs_validate_defaults(&j);
    int rc = rs_cli_exec_parse("validate", argc, argv, (rs_opt_group_t){own_opts, RS_OPTS_N(own_opts), &j, NULL, 0}, &j.problem,
                               &j.job, &e);
    if (rc >= 0) return rc;
    rs_err_t err = {{0}};
    if (e.c.n_layouts != 1 || e.c.n_passes != 1) rs_errf(&err, "--layout and --pass: give one of each");
    /* the problem and the hardware options: every B valid before any rank starts */
    if (!err.msg[0] && (rc = rs_cli_check_files("validate", e.groups, 3, &(rs_io_plan_t){0}, NULL, e.loud)) >= 0) return rc;
    if (err.msg[0] || rs_cli_exec_finish(&e, j.b, j.n_b, &j.backend, &j.problem, &j.dtype, &j.job, &argc, &argv, &err) < 0 ||
        rs_validate_finish(&j, &err) < 0)
        return rs_cli_usage("validate", e.loud, &err);
    return rs_study_validate(&j);
}

#endif
