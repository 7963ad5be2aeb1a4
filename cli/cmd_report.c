/* cmd_report.c - `ringsim report`: the main job (the report study, studies/study_report.h). One
 * directory with traces, sweeps, figures and report.md / report.html stating the findings in numbers
 * (docs/report.md). Default (no arguments): 8 x H100-SXM over NVLink (preset h100-sxm), Llama-3-8B
 * attention, S = 128K, causal, bf16; all three layouts, forward and backward. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "study_report.h"

#define O(field) offsetof(rs_report_in_t, field)
static const rs_opt_t own_opts[] = {
    {"output", 'o', "DIR", "ringsim-report", "the report directory (refused if it exists)", RS_ARG_OUTDIR, O(dir), 0, 0, NULL,
     NULL, "Report:"},
    {"force", 0, NULL, "off", "write into an existing DIR (files are replaced)", RS_ARG_TRUE, O(force), 0, 0, NULL, NULL, NULL},
    {"no-sim", 0, NULL, "sim when built", "skip the SimGrid runs", RS_ARG_TRUE, O(no_sim), 0, 0, NULL, NULL, NULL},
    {"no-exec", 0, NULL, "run it", "skip the real CPU execution (ringsim validate)", RS_ARG_TRUE, O(no_exec), 0, 0, NULL, NULL,
     NULL},
    {"exec-timeout", 0, "S", "240", "time limit of ringsim validate, seconds", RS_ARG_SIZE, O(exec_timeout_s), 1, 86400, NULL,
     NULL, NULL},
    {"no-figures", 0, NULL, "render them", "skip the figures", RS_ARG_TRUE, O(no_figures), 0, 0, NULL, NULL, NULL},
    {"quick", 0, NULL, "off", "shorter sweeps (tests)", RS_ARG_TRUE, O(quick), 0, 0, NULL, NULL, NULL},
};
#undef O


int rs_cmd_report(int argc, char **argv) {
    rs_setup_t *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "ringsim report: out of memory\n");
        return RS_EXIT_FAIL;
    }
    rs_report_in_t in;
    rs_report_defaults(&in);
    rs_report_setup_default(c);
    in.setup = c;
    rs_opt_group_t groups[] = {RS_OPT_GROUP(own_opts, &in), rs_cli_shared_group(c, NULL)};
    int rc = rs_cli_run_parse("report", argc, argv, groups, 2, true);
    if (rc >= 0) {
        free(c);
        return rc;
    }
    rs_err_t err = {0};
    rc = RS_EXIT_OK;
    if (rs_setup_finish(c, &err) != 0) {
        fprintf(stderr, "ringsim report: %s\n", err.msg);
        rc = RS_EXIT_USAGE;
        goto done;
    }
    rs_cli_setup_warning("report", c);
    rs_io_plan_t io;
    rs_io_init(&io);
    rs_io_output_dir(&io, "-o", in.dir, false); /* the study stages it (a folder of its own until the end) */
    if ((rc = rs_cli_check_files("report", groups, 2, &io, "output", true)) >= 0) goto done;
    rc = RS_EXIT_OK;
    char cmdline[1024];
    in.command = rs_cli_command_line(cmdline, sizeof cmdline, argc, argv);
    const double t0_s = rs_now_s();
    rc = rs_study_report(&in, &err) == 0 ? RS_EXIT_OK : rs_err_exit_code(&err);
    if (rc != RS_EXIT_OK) fprintf(stderr, "ringsim report: %s\n", err.msg);
    else rs_cli_kernel_notes(c), rs_cli_closing_line("ringsim report: written to %s/report.md (and %s/report.html) in %.1f s", in.dir,
                                                     in.dir, rs_now_s() - t0_s);
done:
    free(c);
    return rc;
}
