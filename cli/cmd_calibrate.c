/* cmd_calibrate.c - `ringsim calibrate`: measure F_eff(B), the transport's alpha-beta and the overlap
 * factor on this machine with the real kernel and transport, and write a hardware profile that
 * `ringsim model --profile FILE` and `ringsim sim --profile FILE` read (exec/calibrate.h). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifdef RINGSIM_HAVE_EXEC
#include "exec_launch.h"
#include "study_calibrate.h"

enum { OPT_OUT = 2000, OPT_NAME, OPT_BLOCKS, OPT_LAUNCH, OPT_PROGRESS, OPT_MIN_TIME, OPT_TIMEOUT, OPT_BACKEND, OPT_LOOPBACK,
       OPT_HELP };

static const struct option own_opts[] = {
    {"out", required_argument, NULL, OPT_OUT},
    {"name", required_argument, NULL, OPT_NAME},
    {"blocks", required_argument, NULL, OPT_BLOCKS},
    {"launch", required_argument, NULL, OPT_LAUNCH},
    {"progress", required_argument, NULL, OPT_PROGRESS},
    {"min-time", required_argument, NULL, OPT_MIN_TIME},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"loopback", required_argument, NULL, OPT_LOOPBACK},
    {"help", no_argument, NULL, OPT_HELP},
};

static void help(void) {
    printf("usage: ringsim calibrate --out FILE [options]\n\n"
           "Measure this machine with the real CPU kernel and MPI transport (exec/calibrate.h):\n"
           "F_eff(B) of a full B x B block step, the ring exchange's latency and bandwidth (alpha-beta\n"
           "fit over message sizes) and the overlap factor eta (or the compute slowdown sigma), and\n"
           "write a profile JSON for `ringsim model|sim --profile FILE`.\n\n"
           "      --out FILE           profile to write (atomically)            [required]\n"
           "      --name NAME          profile name                             [cpu-<host>]\n"
           "      --blocks LIST        block sizes B, comma list (K suffix)     [16,32,...,2048]\n"
           "      --launch mpirun|threads  ranks as MPI processes or threads    [mpirun if on PATH]\n"
           "      --progress none|poll|thread  MPI progress mode to calibrate  [poll]\n"
           "      --min-time S         measuring time per block size            [0.05]\n"
           "      --timeout S          give up a wait after S seconds           [60]\n"
           "      --backend cpu|gpu    the executor to calibrate                [cpu]\n"
           "      --loopback KIND      one device plays rank 0 of the ring alone, its transfers to\n"
           "                           itself: cpu: local; gpu: nccl or copy    [off]\n"
           "  -h, --help               this help\n\n"
           "Defaults here: --ranks 2 (under mpirun: its -np) --heads 2 --kv-heads 2 --head-dim 128 --dtype fp32\n"
           "(gpu: bf16) --pass forward. Only the shape options matter (heads, head-dim, batch, pass, tile).\n\n");
    rs_cli_common_help(stdout);
}

/* "16,32,1K" -> blocks. */
static int parse_blocks(const char *arg, rs_calib_opts_t *co, rs_err_t *err) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", arg);
    co->n_blocks = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (co->n_blocks >= RS_MAX_EFF_POINTS) return rs_errf(err, "--blocks %s: at most %d sizes", arg, RS_MAX_EFF_POINTS);
        if (rs_parse_size("--blocks", tok, 1, 1 << 20, &v, err) < 0) return -1;
        if (co->n_blocks && v <= co->blocks[co->n_blocks - 1]) return rs_errf(err, "--blocks %s: sizes must increase", arg);
        co->blocks[co->n_blocks++] = v;
    }
    return co->n_blocks ? 0 : rs_errf(err, "--blocks %s: empty list", arg);
}

int rs_cmd_calibrate(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut short (a timeout) keeps what it printed */
    rs_calibrate_in_t j;
    rs_calibrate_defaults(&j);
    rs_setup_t c;
    rs_setup_default(&c);
    c.problem = j.problem;
    rs_setup_dtype(&c, RS_DTYPE_FP32);
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
        case OPT_OUT: j.out_path = optarg; break;
        case OPT_BACKEND: backend = optarg; break;
        case OPT_LOOPBACK: j.job.loopback = optarg; break;
        case OPT_NAME:
            if (strlen(optarg) >= RS_NAME_LEN) { rs_errf(&err, "--name %s: at most %d characters", optarg, RS_NAME_LEN - 1); goto usage; }
            j.name = optarg;
            break;
        case OPT_BLOCKS:
            if (parse_blocks(optarg, &j.calib, &err) < 0) goto usage;
            break;
        case OPT_LAUNCH:
            if (strcmp(optarg, "mpirun") && strcmp(optarg, "threads")) { rs_errf(&err, "--launch %s: expected mpirun or threads", optarg); goto usage; }
            j.job.launch = optarg;
            break;
        case OPT_PROGRESS:
            if (rs_progress_parse(optarg, &j.job.progress) < 0) { rs_errf(&err, "--progress %s: expected none, poll or thread", optarg); goto usage; }
            break;
        case OPT_MIN_TIME:
            if (rs_parse_double("--min-time", optarg, 0, 60, &j.calib.min_time_s, &err) < 0) goto usage;
            break;
        case OPT_TIMEOUT:
            if (rs_parse_double("--timeout", optarg, 0.001, 1e6, &j.calib.timeout_s, &err) < 0) goto usage;
            break;
        case OPT_HELP:
        case 'h':
            free(opts);
            if (loud) help();
            return RS_EXIT_OK;
        default:
            free(opts);
            if (loud) fprintf(stderr, "ringsim calibrate: unknown option '%s' or missing value (see ringsim calibrate --help)\n", argv[optind - 1]);
            return RS_EXIT_USAGE;
        }
    }
    free(opts);
    opts = NULL;
    if (optind < argc) { rs_errf(&err, "unexpected argument '%s'", argv[optind]); goto usage; }
    if (!j.out_path) { rs_errf(&err, "--out FILE is required (the profile to write)"); goto usage; }
    if (rs_exec_check_out("out", j.out_path, false, &err) < 0) goto usage;
    if (rs_backend_get(backend, true, &j.backend, &err) < 0) goto usage;
    if (!dtype_given) rs_setup_dtype(&c, j.backend->exec->default_dtype); /* the executor's own dtype */
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
    free(opts);
    if (loud) fprintf(stderr, "ringsim calibrate: %s\n", err.msg);
    return RS_EXIT_USAGE;
}

#else

int rs_cmd_calibrate(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim calibrate: this build has no CPU executor (needs OpenBLAS)\n");
    return RS_EXIT_FAIL;
}

#endif
