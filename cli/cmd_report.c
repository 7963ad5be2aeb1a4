/* cmd_report.c - `ringsim report`: the main job (the report study, studies/study_report.h). One
 * directory with traces, sweeps, figures and report.md / report.html stating the findings in numbers
 * (docs/report.md). Default (no arguments): 8 x H100-SXM over NVLink (preset h100-sxm), Llama-3-8B
 * attention, S = 128K, causal, bf16; all three layouts, forward and backward. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "study_report.h"

enum { OPT_OUT = 2000, OPT_FORCE, OPT_NO_SIM, OPT_NO_EXEC, OPT_NO_FIGURES, OPT_QUICK, OPT_EXEC_TIMEOUT, OPT_HELP };
static const struct option own_opts[] = {
    {"output", required_argument, NULL, OPT_OUT}, {"force", no_argument, NULL, OPT_FORCE},
    {"no-sim", no_argument, NULL, OPT_NO_SIM},    {"no-exec", no_argument, NULL, OPT_NO_EXEC},
    {"no-figures", no_argument, NULL, OPT_NO_FIGURES}, {"quick", no_argument, NULL, OPT_QUICK},
    {"exec-timeout", required_argument, NULL, OPT_EXEC_TIMEOUT}, {"help", no_argument, NULL, OPT_HELP},
};

static void help(void) {
    printf("usage: ringsim report [options]\n\n"
           "The main job: model, simulate and (where available) execute Ring Attention for one problem,\n"
           "sweep B across the overlap threshold and N across hardware, and write a directory with the\n"
           "traces (CSV + Chrome JSON), the data, the figures (PNG, SVG, PDF) and report.md / report.html\n"
           "stating the findings in numbers. See docs/report.md.\n\n"
           "Default problem: 8 x H100-SXM over NVLink, Llama-3-8B attention (32 q heads, 8 kv heads,\n"
           "head_dim 128), S = 128K, causal, bf16, all layouts, forward and backward.\n\n"
           "Report:\n"
           "  -o, --output DIR         the report directory (refused if it exists)   [ringsim-report]\n"
           "      --force              write into an existing DIR (files are replaced) [off]\n"
           "      --no-sim             skip the SimGrid runs                          [sim when built]\n"
           "      --no-exec            skip the real CPU execution (ringsim validate) [run it]\n"
           "      --exec-timeout S     time limit of ringsim validate, seconds        [240]\n"
           "      --no-figures         skip the figures                               [render them]\n"
           "      --quick              shorter sweeps (tests)                         [off]\n"
           "  -h, --help               this help\n\n"
           "Defaults here: --layout all --pass both.\n");
    rs_cli_common_help(stdout);
}

int rs_cmd_report(int argc, char **argv) {
    rs_setup_t *c = calloc(1, sizeof *c);
    struct option *opts = rs_cli_merge_longopts(own_opts, (int)(sizeof own_opts / sizeof own_opts[0]));
    int rc = RS_EXIT_OK;
    rs_err_t err = {{0}};
    if (!c || !opts) {
        fprintf(stderr, "ringsim report: out of memory\n");
        rc = RS_EXIT_FAIL;
        goto done;
    }
    rs_report_in_t in;
    rs_report_defaults(&in);
    rs_report_setup_default(c);
    in.setup = c;
    rs_cli_getopt_reset();
    int o;
    while ((o = getopt_long(argc, argv, "o:h" RS_CLI_COMMON_SHORTOPTS, opts, NULL)) != -1) {
        int r = 0;
        switch (o) {
        case 'o':
        case OPT_OUT: in.dir = optarg; break;
        case OPT_FORCE: in.force = true; break;
        case OPT_NO_SIM: in.no_sim = true; break;
        case OPT_NO_EXEC: in.no_exec = true; break;
        case OPT_NO_FIGURES: in.no_figures = true; break;
        case OPT_QUICK: in.quick = true; break;
        case OPT_EXEC_TIMEOUT: r = rs_parse_size("--exec-timeout", optarg, 1, 86400, &in.exec_timeout_s, &err); break;
        case 'h':
        case OPT_HELP: help(); goto done;
        default:
            r = rs_cli_common_opt(c, o, optarg, &err);
            if (r == 0) {
                fprintf(stderr, "ringsim report: unknown option '%s' or missing value (see ringsim report --help)\n", argv[optind - 1]);
                rc = RS_EXIT_USAGE;
                goto done;
            }
            r = r < 0 ? -1 : 0;
        }
        if (r < 0) {
            fprintf(stderr, "ringsim report: %s\n", err.msg);
            rc = RS_EXIT_USAGE;
            goto done;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ringsim report: unexpected argument '%s'\n", argv[optind]);
        rc = RS_EXIT_USAGE;
        goto done;
    }
    if (rs_setup_finish(c, &err) != 0) {
        fprintf(stderr, "ringsim report: %s\n", err.msg);
        rc = RS_EXIT_USAGE;
        goto done;
    }
    char cmdline[1024] = "ringsim report";
    for (int i = 1; i < argc && strlen(cmdline) < sizeof cmdline - 200; i++)
        snprintf(cmdline + strlen(cmdline), sizeof cmdline - strlen(cmdline), " %s", argv[i]);
    in.command = cmdline;
    rc = rs_study_report(&in, &err);
    if (rc != RS_EXIT_OK) fprintf(stderr, "ringsim report: %s\n", err.msg);
done:
    free(opts);
    free(c);
    return rc;
}
