/* cmd_sweep.c - `ringsim sweep`: the model, the simulator and (when asked) the real execution over
 * ranges of B, N, S, layouts, passes and hardware profiles; one CSV (the sweep study,
 * studies/study_sweep.h). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "study_sweep.h"

enum { OPT_OUT = 2000, OPT_BLOCK, OPT_SIM, OPT_NO_SIM, OPT_EXEC, OPT_EXEC_BIN, OPT_EXEC_MAX, OPT_EXEC_LAUNCH, OPT_QUIET, OPT_HELP };
static const struct option own_opts[] = {
    {"output", required_argument, NULL, OPT_OUT},   {"block", required_argument, NULL, OPT_BLOCK},
    {"sim", no_argument, NULL, OPT_SIM},            {"no-sim", no_argument, NULL, OPT_NO_SIM},
    {"exec", no_argument, NULL, OPT_EXEC},          {"exec-bin", required_argument, NULL, OPT_EXEC_BIN},
    {"exec-max-ranks", required_argument, NULL, OPT_EXEC_MAX},
    {"exec-launch", required_argument, NULL, OPT_EXEC_LAUNCH},
    {"quiet", no_argument, NULL, OPT_QUIET},        {"help", no_argument, NULL, OPT_HELP},
};

static void help(void) {
    printf("usage: ringsim sweep [options] -o FILE.csv\n\n"
           "Run the model (closed form + critical-path walk), the SimGrid simulator and, with --exec, the\n"
           "real CPU execution over ranges of B, N, S, layouts, passes and profiles; write one CSV row per\n"
           "point (columns: docs/report.md) and, at the end, '# crossover' lines: the B where T_comm\n"
           "crosses T_comp in the predicted, simulated and measured data (interpolated in log-log).\n"
           "Ranges: START:STOP:xF (geometric), START:STOP:+D (arithmetic), a,b,c, or one value; K/M/G.\n"
           "Ctrl-C stops after the current point and keeps the finished points in a valid file.\n\n"
           "Sweep:\n"
           "  -o, --output FILE        the CSV (written atomically; \"-\" = stdout)  [-]\n"
           "      --block RANGE        B = tokens per rank; S = B * N (excludes --seq ranges) [none]\n"
           "  -N, --ranks RANGE        ring sizes                                    [8]\n"
           "  -S, --seq RANGE          total tokens (with --block: not allowed)      [128K]\n"
           "  -L, --layout L           contiguous|striped|zigzag, list, or all       [zigzag]\n"
           "  -P, --pass P             forward|backward|both                         [forward]\n"
           "  -p, --profile A,B,C      hardware profiles, one series each; NAME:gG sets G devices\n"
           "                           per node (h100-sxm:g1: every hop over the inter-node tier) [h100-sxm]\n"
           "      --sim / --no-sim     simulate each point with SimGrid (when built) [--sim]\n"
           "      --exec               also run `ringsim exec` per point (a subprocess)  [off]\n"
           "      --exec-launch L      mpirun|threads: how ringsim exec starts its ranks [mpirun]\n"
           "      --exec-bin PATH      the ringsim binary for --exec                 [this one]\n"
           "      --exec-max-ranks N   skip --exec points with more ranks            [8]\n"
           "  -q, --quiet              no progress bar (it shows only on a terminal) [off]\n"
           "  -h, --help               this help\n\n");
    rs_cli_common_help(stdout);
}

int rs_cmd_sweep(int argc, char **argv) {
    rs_sweep_spec_t *spec = calloc(1, sizeof *spec);
    if (!spec) return RS_EXIT_FAIL;
    rs_setup_default(&spec->common);
    spec->run_sim = true;
    spec->exec_max_ranks = 8;
    const char *out_path = "-";
    bool quiet = false;
    rs_err_t err = {{0}};
    int rc = RS_EXIT_OK;
    struct option *opts = rs_cli_merge_longopts(own_opts, (int)(sizeof own_opts / sizeof own_opts[0]));
    rs_sweep_point_t *pts = NULL;
    if (!opts) {
        free(spec);
        return RS_EXIT_FAIL;
    }
    char cmdline[2048] = "ringsim sweep";
    for (int i = 1; i < argc && strlen(cmdline) < sizeof cmdline - 300; i++)
        snprintf(cmdline + strlen(cmdline), sizeof cmdline - strlen(cmdline), " %s", argv[i]);
    rs_cli_getopt_reset();
    int o;
    while ((o = getopt_long(argc, argv, "o:qh" RS_CLI_COMMON_SHORTOPTS, opts, NULL)) != -1) {
        int r = 0;
        switch (o) {
        case 'o':
        case OPT_OUT: out_path = optarg; break;
        case OPT_BLOCK:
            r = spec->n_blocks = rs_sweep_parse_range("--block", optarg, 1, (int64_t)UINT32_MAX, spec->blocks,
                                                      RS_SWEEP_MAX_VALUES, &err);
            break;
        case 'N':
        case RS_OPT_RANKS:
            r = spec->n_ranks = rs_sweep_parse_range("--ranks", optarg, 1, INT32_MAX, spec->ranks, RS_SWEEP_MAX_VALUES, &err);
            break;
        case 'S':
        case RS_OPT_SEQ:
            r = spec->n_seqs = rs_sweep_parse_range("--seq", optarg, 1, (int64_t)UINT32_MAX, spec->seqs, RS_SWEEP_MAX_VALUES, &err);
            break;
        case 'p':
        case RS_OPT_PROFILE: {
            char buf[4096];
            snprintf(buf, sizeof buf, "%s", optarg);
            spec->n_profiles = 0;
            for (char *s = buf, *e; s; s = e) {
                e = strchr(s, ',');
                if (e) *e++ = 0;
                if (!*s || spec->n_profiles == RS_SWEEP_MAX_PROFILES) {
                    r = rs_errf(&err, "--profile %s: expected 1 to %d comma-separated names", optarg, RS_SWEEP_MAX_PROFILES);
                    break;
                }
                snprintf(spec->profiles[spec->n_profiles++], sizeof spec->profiles[0], "%.511s", s);
            }
            break;
        }
        case OPT_SIM: spec->run_sim = true; break;
        case OPT_NO_SIM: spec->run_sim = false; break;
        case OPT_EXEC: spec->run_exec = true; break;
        case OPT_EXEC_BIN: spec->exec_cmd = optarg; break;
        case OPT_EXEC_LAUNCH:
            if (strcmp(optarg, "mpirun") != 0 && strcmp(optarg, "threads") != 0) {
                r = rs_errf(&err, "--exec-launch %s: expected mpirun or threads", optarg);
                break;
            }
            spec->exec_launch = optarg;
            break;
        case OPT_EXEC_MAX: r = rs_parse_size("--exec-max-ranks", optarg, 1, 1024, &spec->exec_max_ranks, &err); break;
        case 'q':
        case OPT_QUIET: quiet = true; break;
        case 'h':
        case OPT_HELP: help(); goto done;
        default:
            r = rs_cli_common_opt(&spec->common, o, optarg, &err);
            if (r == 0) {
                fprintf(stderr, "ringsim sweep: unknown option '%s' or missing value (see ringsim sweep --help)\n", argv[optind - 1]);
                rc = RS_EXIT_USAGE;
                goto done;
            }
            r = r < 0 ? -1 : 0;
        }
        if (r < 0) {
            fprintf(stderr, "ringsim sweep: %s\n", err.msg);
            rc = RS_EXIT_USAGE;
            goto done;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ringsim sweep: unexpected argument '%s'\n", argv[optind]);
        rc = RS_EXIT_USAGE;
        goto done;
    }
    if (spec->n_blocks && spec->n_seqs) {
        fprintf(stderr, "ringsim sweep: --block and --seq: give one (S = B * N)\n");
        rc = RS_EXIT_USAGE;
        goto done;
    }
    rs_sweep_in_t in = {spec, out_path, cmdline, !quiet, true, true};
    rs_sweep_out_t out;
    rc = rs_study_sweep(&in, &out, &err);
    pts = out.points;
    if (rc != RS_EXIT_OK && err.msg[0]) fprintf(stderr, "ringsim sweep: %s\n", err.msg);
    const bool to_file = strcmp(out_path, "-") != 0;
    if (out.interrupted)
        fprintf(stderr, "ringsim sweep: interrupted: %zu of %zu points kept%s%s\n", out.done, out.n, to_file ? " in " : "",
                to_file ? out_path : "");
    if (!quiet && rc == RS_EXIT_OK) {
        for (size_t i = 0; i < out.done; i++) {
            bool first = true;
            for (size_t j = 0; j < i; j++)
                if (!strcmp(pts[j].series, pts[i].series)) first = false;
            if (!first) continue;
            double bp = rs_sweep_crossover(pts, out.done, pts[i].series, 0);
            double bs = rs_sweep_crossover(pts, out.done, pts[i].series, 1);
            double be = rs_sweep_crossover(pts, out.done, pts[i].series, 2);
            fprintf(stderr, "%s: B_min = %.1f, B* = %.1f, crossover in the data: model %.1f, sim %.1f, exec %.1f tokens\n",
                    pts[i].series, pts[i].closed.b_min_tokens, pts[i].closed.b_star_tokens, bp, bs, be);
        }
        if (to_file) fprintf(stderr, "ringsim sweep: %zu points written to %s\n", out.done, out_path);
    }
done:
    free(pts);
    free(opts);
    free(spec);
    return rc;
}
