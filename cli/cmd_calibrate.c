/* cmd_calibrate.c - `ringsim calibrate`: measure F_eff(B), the transport's alpha-beta and the overlap
 * factor on this machine with the real kernel and transport, and write a hardware profile that
 * `ringsim model --profile FILE` and `ringsim sim --profile FILE` read (exec/calibrate.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifdef RINGSIM_HAVE_EXEC
#include "exec_launch.h"
#include "study_calibrate.h"

static int parse_blocks(void *dst, const char *arg, rs_err_t *err) {
    rs_calibrate_in_t *j = dst;
    return rs_cli_parse_sizes("--blocks", arg, 1, 1 << 20, 1, RS_MAX_EFF_POINTS, j->calib.blocks, &j->calib.n_blocks, err);
}

#define O(field) offsetof(rs_calibrate_in_t, field)
static const rs_opt_t own_opts[] = {
    {"out", 0, "FILE", "required", "profile to write (atomically)", RS_ARG_STRING, O(out_path), 0, 0, NULL, NULL,
     "Calibration:"},
    {"name", 0, "NAME", "BACKEND-<host>", "profile name", RS_ARG_BUF, O(name), 0, RS_NAME_LEN, NULL, NULL, NULL},
    {"blocks", 0, "LIST", "16,32,...,2048", "block sizes B, comma list (K suffix)", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_blocks,
     NULL},
    {"min-time", 0, "S", "0.05", "measuring time per block size", RS_ARG_DOUBLE, O(calib.min_time_s), 0, 60, NULL, NULL, NULL},
    {"timeout", 0, "S", "60", "give up a wait after S seconds", RS_ARG_DOUBLE, O(calib.timeout_s), 0.001, 1e6, NULL, NULL,
     NULL},
};
#undef O

int rs_cmd_calibrate(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut short (a timeout) keeps what it printed */
    rs_calibrate_in_t j;
    rs_calibrate_defaults(&j);
    rs_setup_t c;
    const bool loud = rs_cli_exec_setup(&c, &j.problem);
    rs_cli_exec_t x = {"cpu", j.job};
    rs_opt_group_t groups[] = {{own_opts, RS_OPTS_N(own_opts), &j, NULL, 0}, rs_cli_exec_group(&x), rs_cli_shared_group(&c, NULL)};
    int rc = rs_cli_run_parse("calibrate", argc, argv, groups, 3, loud);
    if (rc >= 0) return rc;
    rs_err_t err = {{0}};
    j.job = x.job;
    if (!j.out_path) { rs_errf(&err, "--out FILE is required (the profile to write)"); goto usage; }
    if (rs_exec_check_out("out", j.out_path, false, &err) < 0) goto usage;
    if (rs_backend_get(x.backend, true, &j.backend, &err) < 0) goto usage;
    if (!rs_cli_given(&groups[2], "dtype")) rs_setup_dtype(&c, j.backend->exec->default_dtype); /* the executor's own */
    /* every block size must be a valid problem for this shape */
    c.problem = rs_problem_with_block(&c.problem, j.calib.blocks[j.calib.n_blocks - 1]);
    c.n_layouts = 1;
    c.layouts[0] = RS_LAYOUT_CONTIGUOUS;
    if (rs_setup_finish(&c, &err) < 0) goto usage;
    j.problem = rs_setup_problem(&c, 0, 0);
    j.dtype = c.spec.dtype;
    j.job.argc = &argc, j.job.argv = &argv;
    if (rs_calibrate_finish(&j, &err) < 0) goto usage;
    return rs_study_calibrate(&j);
usage:
    if (loud) fprintf(stderr, "ringsim calibrate: %s\n", err.msg);
    return RS_EXIT_USAGE;
}

#endif
