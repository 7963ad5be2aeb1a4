/* cmd_validate.c - `ringsim validate`: calibrate this machine, then for a sweep of B across the
 * overlap threshold predict (the model's critical-path walk, and the SimGrid simulator when built)
 * and measure (the CPU executor over MPI) the same schedule, and compare them (traces/compare.h):
 * per B the typical T_comp, T_comm, T_step and the makespan; over the sweep the per-(rank, step)
 * errors (median, p95, max) and the crossover B where T_comm overtakes T_comp, predicted vs
 * measured. Runs as one MPI job (it re-starts itself under mpirun), so calibration and measurement
 * see the same processes, cores and transport. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifdef RINGSIM_HAVE_EXEC
#include "exec_launch.h"
#include "study_validate.h"

enum { OPT_ROUNDS = 1999, OPT_BLOCKS = 2000, OPT_LAUNCH, OPT_PROGRESS, OPT_REPS, OPT_WARMUP, OPT_CALIBRATED, OPT_SAVE_PROFILE, OPT_CSV,
       OPT_TRACE_DIR, OPT_NO_SIM, OPT_TIMEOUT, OPT_MIN_TIME, OPT_BACKEND, OPT_LOOPBACK, OPT_HELP };

static const struct option own_opts[] = {
    {"blocks", required_argument, NULL, OPT_BLOCKS},
    {"rounds", required_argument, NULL, OPT_ROUNDS},
    {"launch", required_argument, NULL, OPT_LAUNCH},
    {"progress", required_argument, NULL, OPT_PROGRESS},
    {"reps", required_argument, NULL, OPT_REPS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"calibrated", required_argument, NULL, OPT_CALIBRATED},
    {"save-profile", required_argument, NULL, OPT_SAVE_PROFILE},
    {"csv", required_argument, NULL, OPT_CSV},
    {"trace-dir", required_argument, NULL, OPT_TRACE_DIR},
    {"no-sim", no_argument, NULL, OPT_NO_SIM},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"min-time", required_argument, NULL, OPT_MIN_TIME},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"loopback", required_argument, NULL, OPT_LOOPBACK},
    {"help", no_argument, NULL, OPT_HELP},
};

static void help(void) {
    printf("usage: ringsim validate [options]\n\n"
           "Calibrate (ringsim calibrate), then for every B of a sweep across the overlap threshold: predict\n"
           "(critical-path walk; SimGrid when built and the overlap model allows it) and measure (CPU executor,\n"
           "MPI) the same schedule; print per-B T_comp, T_comm, T_step and makespan, predicted vs measured, the\n"
           "per-(rank, step) errors over the sweep (median, p95, max) and the crossover B where T_comm\n"
           "overtakes T_comp. One MPI job: re-started under mpirun when not already.\n\n"
           "      --blocks LIST        B sweep, comma list (K suffix)           [8,16,...,1024]\n"
           "      --calibrated FILE    use this calibrated profile instead of calibrating now\n"
           "      --save-profile FILE  write the profile the predictions used  [none]\n"
           "      --min-time S         calibration time per block size          [0.05]\n"
           "      --rounds R           rounds over the sweep; each B is measured --reps times per\n"
           "                           round and the medians are taken over all rounds, so a burst of\n"
           "                           load elsewhere hits every B a little         [5]\n"
           "      --reps N             measured repetitions per B and round     [7]\n"
           "      --warmup N           unmeasured repetitions per B             [1]\n"
           "      --progress none|poll|thread  MPI progress                     [poll]\n"
           "      --launch mpirun|threads  ranks as MPI processes or threads    [mpirun if on PATH]\n"
           "      --no-sim             skip the simulator                       [sim when built]\n"
           "      --csv FILE           per-B rows as CSV                        [none]\n"
           "      --trace-dir DIR      write measured and predicted traces per B [none]\n"
           "      --timeout S          give up a wait after S seconds           [60]\n"
           "      --backend cpu|gpu    the executor to calibrate and measure     [cpu]\n"
           "      --loopback KIND      one device plays every rank of the ring in turn, its transfers\n"
           "                           to itself: cpu: local; gpu: nccl or copy  [off]\n"
           "  -h, --help               this help\n\n"
           "Defaults here: --ranks 2 (under mpirun: its -np) --heads 2 --kv-heads 2 --head-dim 128 --dtype fp32 (gpu: bf16)\n"
           "--no-causal --layout contiguous --pass forward (the seed's full-block analysis). S = N * B.\n\n");
    rs_cli_common_help(stdout);
}

static int parse_blocks(const char *arg, rs_validate_in_t *j, rs_err_t *err) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", arg);
    j->n_b = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (j->n_b >= RS_VALIDATE_MAX_B) return rs_errf(err, "--blocks %s: at most %d sizes", arg, RS_VALIDATE_MAX_B);
        if (rs_parse_size("--blocks", tok, 2, 1 << 16, &v, err) < 0) return -1;
        if (j->n_b && v <= j->b[j->n_b - 1]) return rs_errf(err, "--blocks %s: sizes must increase", arg);
        j->b[j->n_b++] = v;
    }
    return j->n_b >= 2 ? 0 : rs_errf(err, "--blocks %s: give at least 2 sizes", arg);
}

int rs_cmd_validate(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut short (a timeout) keeps what it printed */
    rs_validate_in_t j;
    rs_validate_defaults(&j);
    rs_setup_t c;
    rs_setup_default(&c);
    c.problem = j.problem;
    rs_setup_dtype(&c, RS_DTYPE_FP32);
    c.layouts[0] = RS_LAYOUT_CONTIGUOUS;
    const int env_size = rs_exec_env_size(), env_rank = rs_exec_env_rank();
    const bool under_mpi = env_size > 0, loud = !under_mpi || env_rank == 0;
    if (under_mpi) c.problem.n_ranks = env_size;
    const char *backend = "cpu";
    bool dtype_given = false;
    rs_err_t err = {{0}};
    struct option *opts = rs_cli_merge_longopts(own_opts, (int)(sizeof own_opts / sizeof own_opts[0]));
    if (!opts) return RS_EXIT_FAIL;
    rs_cli_getopt_reset();
    int opt, rc;
    while ((opt = getopt_long(argc, argv, RS_CLI_COMMON_SHORTOPTS "h", opts, NULL)) != -1) {
        dtype_given |= opt == RS_OPT_DTYPE;
        rc = rs_cli_common_opt(&c, opt, optarg, &err);
        if (rc < 0) goto usage;
        if (rc == 1) continue;
        switch (opt) {
        case OPT_BACKEND: backend = optarg; break;
        case OPT_LOOPBACK: j.job.loopback = optarg; break;
        case OPT_BLOCKS:
            if (parse_blocks(optarg, &j, &err) < 0) goto usage;
            break;
        case OPT_LAUNCH:
            if (strcmp(optarg, "mpirun") && strcmp(optarg, "threads")) { rs_errf(&err, "--launch %s: expected mpirun or threads", optarg); goto usage; }
            j.job.launch = optarg;
            break;
        case OPT_PROGRESS:
            if (rs_progress_parse(optarg, &j.job.progress) < 0) { rs_errf(&err, "--progress %s: expected none, poll or thread", optarg); goto usage; }
            break;
        case OPT_REPS:
        case OPT_WARMUP: {
            int64_t v;
            if (rs_parse_size(opt == OPT_REPS ? "--reps" : "--warmup", optarg, opt == OPT_REPS ? 1 : 0, 10000, &v, &err) < 0) goto usage;
            if (opt == OPT_REPS) j.exec.reps = (int)v;
            else j.exec.warmup = (int)v;
            break;
        }
        case OPT_ROUNDS: {
            int64_t v;
            if (rs_parse_size("--rounds", optarg, 1, 1000, &v, &err) < 0) goto usage;
            j.rounds = (int)v;
            break;
        }
        case OPT_CALIBRATED: j.calibrated = optarg; break;
        case OPT_SAVE_PROFILE: j.save_profile = optarg; break;
        case OPT_CSV: j.csv = optarg; break;
        case OPT_TRACE_DIR: j.trace_dir = optarg; break;
        case OPT_NO_SIM: j.no_sim = true; break;
        case OPT_TIMEOUT:
            if (rs_parse_double("--timeout", optarg, 0.001, 1e6, &j.exec.timeout_s, &err) < 0) goto usage;
            j.calib.timeout_s = j.exec.timeout_s;
            break;
        case OPT_MIN_TIME:
            if (rs_parse_double("--min-time", optarg, 0, 60, &j.calib.min_time_s, &err) < 0) goto usage;
            break;
        case OPT_HELP:
        case 'h':
            free(opts);
            if (loud) help();
            return RS_EXIT_OK;
        default:
            free(opts);
            if (loud) fprintf(stderr, "ringsim validate: unknown option '%s' or missing value (see ringsim validate --help)\n", argv[optind - 1]);
            return RS_EXIT_USAGE;
        }
    }
    free(opts);
    opts = NULL;
    if (optind < argc) { rs_errf(&err, "unexpected argument '%s'", argv[optind]); goto usage; }
    if (c.n_layouts != 1 || c.n_passes != 1) { rs_errf(&err, "--layout and --pass: give one of each"); goto usage; }
    if (rs_exec_check_out("csv", j.csv, false, &err) < 0 || rs_exec_check_out("trace-dir", j.trace_dir, true, &err) < 0 ||
        rs_exec_check_out("save-profile", j.save_profile, false, &err) < 0)
        goto usage;
    if (rs_backend_get(backend, true, &j.backend, &err) < 0) goto usage;
    if (!dtype_given) rs_setup_dtype(&c, j.backend->exec->default_dtype); /* the executor's own dtype */
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
    free(opts);
    if (loud) fprintf(stderr, "ringsim validate: %s\n", err.msg);
    return RS_EXIT_USAGE;
}

#else

int rs_cmd_validate(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim validate: this build has no CPU executor (needs OpenBLAS)\n");
    return RS_EXIT_FAIL;
}

#endif
