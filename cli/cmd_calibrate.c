/* cmd_calibrate.c - `ringsim calibrate`: measure F_eff(B), the transport's alpha-beta and the overlap
 * factor on this machine with the real kernel and transport, and write a hardware profile that
 * `ringsim model --profile FILE` and `ringsim sim --profile FILE` read (exec/calibrate.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifdef RINGSIM_HAVE_EXEC
#include "exec.h" /* rs_exec_estimate */
#include "study_calibrate.h"

static int parse_blocks(void *dst, const char *arg, rs_err_t *err) {
    rs_calibrate_in_t *j = dst;
    return rs_cli_parse_sizes(&(rs_cli_sizes_t){"--blocks", RS_CLI_BLOCK_RANGE, 1, RS_MAX_EFF_POINTS}, arg, j->calib.blocks,
                              &j->calib.n_blocks, err);
}

/* Every block size's run (at least one pass, and min_time_s of measuring) against --max-time and
 * --max-memory, before anything runs. Returns 0 or -1 with err. */
static int check_estimate(const rs_calibrate_in_t *j, const rs_cli_exec_cmd_t *e, rs_err_t *err) {
    rs_estimate_t sum = {0, 0, 0}, est;
    for (int i = 0; i < j->calib.n_blocks; i++) {
        const rs_problem_t p = rs_problem_with_block(e->study.problem, j->calib.blocks[i]);
        rs_exec_estimate(&p, NULL, &est);
        est.time_s += j->calib.min_time_s;
        rs_estimate_then(&sum, &est);
    }
    return rs_limits_check("this calibration", &sum, &e->c.limits, err);
}

#define O(field) offsetof(rs_calibrate_in_t, field)
static const rs_opt_t own_opts[] = {
    {"out", 0, "FILE", "required", "profile to write (atomically)", RS_ARG_OUT, O(out_path), 0, 0, NULL, NULL,
     "Calibration:"},
    {"name", 0, "NAME", "BACKEND-<host>", "profile name", RS_ARG_BUF, O(name), 0, RS_NAME_LEN, NULL, NULL, NULL},
    {"blocks", 0, "LIST", "16,32,...,2048", "block sizes B, comma list (K suffix)", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_blocks,
     NULL},
    {"min-time", 0, "S", "0.05", "measuring time per block size", RS_ARG_DOUBLE, O(calib.min_time_s), 0, 60, NULL, NULL, NULL},
    {"timeout", 0, "S", "60", "give up a wait after S seconds", RS_ARG_DOUBLE, O(calib.timeout_s), 0.001, 1e6, NULL, NULL,
     NULL},
    {"from-trace", 0, "FILE", "measure", "fit from this trace and the FILEs after the options\n(ringsim traces, e.g. from ringsim "
     "import) instead", RS_ARG_STRING, O(from_trace), 0, 0, NULL, NULL, NULL},
};
#undef O

int rs_cmd_calibrate(int argc, char **argv) {
    rs_calibrate_in_t j;
    rs_calibrate_defaults(&j);
    rs_cli_exec_cmd_t e;
    int rc = rs_cli_exec_parse("calibrate", argc, argv, RS_OPT_GROUP(own_opts, &j),
                               (rs_cli_measure_t){&j.backend, &j.problem, &j.dtype, &j.job}, &e);
    if (rc >= 0) return rc;
    rs_err_t err = {0};
    if (!j.out_path) rs_errf(&err, "--out FILE is required (the profile to write)");
    else if (j.from_trace) {
        const char *paths[RS_TFIT_MAX_TRACES];
        rs_tfit_opts_t o;
        if (rs_cli_from_trace_opts(&e, j.from_trace, "out,name", paths, &o, &err) < 0)
            return rs_cli_usage("calibrate", true, &err);
        if ((rc = rs_cli_check_trace_inputs("calibrate", &e, &o)) >= 0) return rc;
        if (rs_study_calibrate_from_trace(&o, j.out_path, j.name, stdout, &err) == 0) return RS_EXIT_OK;
        fprintf(stderr, "ringsim calibrate: %s\n", err.msg);
        return rs_err_exit_code(&err);
    } else if (optind < argc) {
        rs_errf(&err, "unexpected argument '%s' (trace files go with --from-trace)", argv[optind]);
    }
    e.c.n_layouts = 1;
    e.c.layouts[0] = RS_LAYOUT_CONTIGUOUS;
    /* the largest block size must be a valid problem for this shape */
    if (!err.msg[0] && (rc = rs_cli_check_files("calibrate", e.groups, 3, &(rs_io_plan_t){0}, NULL, e.loud)) >= 0) return rc;
    if (err.msg[0] || rs_cli_exec_finish(&e, &j.calib.blocks[j.calib.n_blocks - 1], 1, &err) < 0 ||
        rs_calibrate_finish(&j, &err) < 0 || check_estimate(&j, &e, &err) < 0)
        return rs_cli_usage("calibrate", e.loud, &err);
    return rs_study_calibrate(&j, &err) == 0 ? RS_EXIT_OK : rs_err_exit_code(&err); /* the ranks printed what failed */
}

#endif
