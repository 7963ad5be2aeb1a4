/* cmd_calibrate.c - `ringsim calibrate`: measure F_eff(B), the transport's alpha-beta and the overlap
 * factor on this machine with the real kernel and transport, and write a hardware profile that
 * `ringsim model --profile FILE` and `ringsim sim --profile FILE` read (exec/calibrate.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "cli.h"

#ifdef RINGSIM_HAVE_EXEC
#include "calibrate.h"
#include "calibrate_kernels.h"
#include "exec.h"
#include "exec_launch.h"

enum { OPT_OUT = 2000, OPT_NAME, OPT_BLOCKS, OPT_LAUNCH, OPT_PROGRESS, OPT_MIN_TIME, OPT_TIMEOUT, OPT_HELP };

static const struct option own_opts[] = {
    {"out", required_argument, NULL, OPT_OUT},
    {"name", required_argument, NULL, OPT_NAME},
    {"blocks", required_argument, NULL, OPT_BLOCKS},
    {"launch", required_argument, NULL, OPT_LAUNCH},
    {"progress", required_argument, NULL, OPT_PROGRESS},
    {"min-time", required_argument, NULL, OPT_MIN_TIME},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"help", no_argument, NULL, OPT_HELP},
};

static void help(void) {
    printf("usage: ringsim calibrate --out FILE [options]\n\n"
           "Measure this machine with the real CPU kernel and MPI transport (exec/calibrate.h):\n"
           "F_eff(B) of a full B x B block step, the ring exchange's latency and bandwidth (alpha-beta\n"
           "fit over message sizes) and the overlap factor eta (or the compute slowdown sigma), and the\n"
           "kernel table (one B x B call per mask kind - full, causal, shifted - and pass: the ringsim\n"
           "preset's curves, docs/model.md section 3), and write a profile JSON for\n"
           "`ringsim model|sim --profile FILE`.\n\n"
           "      --out FILE           profile to write (atomically)            [required]\n"
           "      --name NAME          profile name                             [cpu-<host>]\n"
           "      --blocks LIST        block sizes B, comma list (K suffix)     [16,32,...,2048]\n"
           "      --launch mpirun|threads  ranks as MPI processes or threads    [mpirun if on PATH]\n"
           "      --progress none|poll|thread  MPI progress mode to calibrate  [poll]\n"
           "      --min-time S         measuring time per block size            [0.05]\n"
           "      --timeout S          give up a wait after S seconds           [60]\n"
           "  -h, --help               this help\n\n"
           "Defaults here: --ranks 2 (under mpirun: its -np) --heads 2 --kv-heads 2 --head-dim 128 --dtype fp32\n"
           "--pass forward. Only the shape options matter (heads, head-dim, batch, pass, tile).\n\n");
    rs_cli_common_help(stdout);
}

typedef struct {
    rs_problem_t problem;   /* shape */
    rs_calib_opts_t co;     /* calibration options */
    const char *out, *name; /* profile path and name */
    const char *progress;   /* progress mode name (for the note) */
    rs_err_t err;           /* rank 0's error */
} calib_job_t;

/* The kernel table (exec/calibrate_kernels.h) on this rank (0) alone, into the profile: the block
 * sizes of the calibration (at most RS_KMAX_POINTS, from the largest down), a quarter of its time per
 * point. Prints the table. */
static int calib_kernels(const calib_job_t *j, const rs_calib_t *c, rs_hw_t *hw) {
    rs_calib_kernel_opts_t ko = {.min_time_s = j->co.min_time_s / 4, .min_reps = 3, .dtype = RS_DTYPE_FP32,
                                 .merge_bw_bytes_per_s = c->mem_bw_bytes_per_s > 0 ? c->mem_bw_bytes_per_s : 1e9};
    snprintf(ko.name, sizeof ko.name, "ringsim-cpu");
    const int skip = j->co.n_blocks > RS_KMAX_POINTS ? j->co.n_blocks - RS_KMAX_POINTS : 0;
    for (int i = skip; i < j->co.n_blocks; i++) ko.blocks[ko.n_blocks++] = j->co.blocks[i];
    if (ko.n_blocks < 2) return 0; /* one size: no curve (the dense model stays) */
    rs_err_t err = {{0}};
    if (rs_calib_kernel_table(&j->problem, &rs_cpu_compute_ops, 0, &ko, &hw->kernels, &err) < 0) {
        fprintf(stderr, "ringsim calibrate: %s\n", err.msg);
        return -1;
    }
    printf("# kernel table: useful GFLOP/s of one B x B call per mask kind (the profile's kernels.list[0], preset ringsim)\n");
    printf("# %8s %-8s %12s %12s %12s\n", "B", "pass", "full", "causal", "shifted");
    for (int i = 0; i < ko.n_blocks; i++)
        for (int pass = 0; pass < 2; pass++)
            printf("  %8lld %-8s %12.3f %12.3f %12.3f\n", (long long)ko.blocks[i], rs_pass_name((rs_pass_t)pass),
                   hw->kernels.curve[pass * 3 + 0].pt[i].flops_per_s * 1e-9, hw->kernels.curve[pass * 3 + 1].pt[i].flops_per_s * 1e-9,
                   hw->kernels.curve[pass * 3 + 2].pt[i].flops_per_s * 1e-9);
    return 0;
}

static int calib_body(const rs_transport_ops_t *tops, void *ts, void *arg) {
    calib_job_t *j = arg;
    rs_calib_t c;
    rs_err_t err = {{0}};
    int64_t rank = tops->rank(ts);
    if (rs_calibrate(&j->problem, &rs_cpu_compute_ops, tops, ts, &j->co, &c, &err) < 0) {
        fprintf(stderr, "ringsim calibrate: rank %lld: %s\n", (long long)rank, err.msg);
        return RS_EXIT_FAIL;
    }
    if (rank != 0) return 0;
    char name[RS_NAME_LEN], note[256], date[32];
    struct utsname u;
    if (uname(&u) != 0) snprintf(u.nodename, sizeof u.nodename, "host");
    snprintf(name, sizeof name, "%s", j->name ? j->name : "");
    if (!j->name) snprintf(name, sizeof name, "cpu-%.40s", u.nodename);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", gmtime(&now));
    snprintf(note, sizeof note, "ringsim calibrate %s UTC, %lld ranks, %s; %.80s; transport %.60s", date,
             (long long)tops->size(ts), j->progress, rs_exec_blas_version(), tops->describe(ts));
    printf("# ringsim calibrate: %lld ranks, heads %lld/%lld, d %lld, %s pass\n# %s\n", (long long)tops->size(ts),
           (long long)j->problem.q_heads, (long long)j->problem.kv_heads, (long long)j->problem.head_dim,
           rs_pass_name(j->problem.pass), note);
    rs_calib_print(&c, stdout);
    rs_hw_t hw;
    rs_calib_to_hw(&c, name, note, tops->size(ts), &hw);
    if (calib_kernels(j, &c, &hw) < 0) return RS_EXIT_FAIL;
    if (rs_hw_write_json(&hw, j->out, note, &err) < 0) {
        fprintf(stderr, "ringsim calibrate: %s\n", err.msg);
        return RS_EXIT_FAIL;
    }
    rs_hw_t back;
    if (rs_hw_load(j->out, &back, &err) < 0) {
        fprintf(stderr, "ringsim calibrate: the profile written does not load back: %s\n", err.msg);
        return RS_EXIT_FAIL;
    }
    rs_machine_t mb;
    char ovd[RS_MAX_OVERLAP_POINTS * 24 + 160] = "";
    if (rs_machine_from_hw(&back, RS_DTYPE_FP32, &mb, &err) == 0) rs_cli_overlap_desc(&mb, ovd, sizeof ovd);
    printf("# profile %s: F_peak(fp32) %.4g GFLOP/s, %d efficiency points, W %.4g GB/s, L %.3g s; %s\n", j->out,
           back.flops_per_s[RS_DTYPE_FP32] * 1e-9, back.n_eff, back.intra.bw_bytes_per_s * 1e-9, back.intra.latency_s, ovd);
    fflush(stdout);
    return 0;
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
    rs_cli_common_t c;
    rs_cli_common_init(&c);
    c.problem.seq_tokens = 4096, c.problem.n_ranks = 2, c.problem.q_heads = 2, c.problem.kv_heads = 2;
    c.problem.act_bytes = 4, c.dtype = RS_DTYPE_FP32, c.problem.causal = false;
    const int env_size = rs_exec_env_size(), env_rank = rs_exec_env_rank();
    const bool under_mpi = env_size > 0, loud = !under_mpi || env_rank == 0;
    if (under_mpi) c.problem.n_ranks = env_size;
    calib_job_t j = {0};
    rs_calib_opts_default(&j.co);
    int launch_threads = 0;
    bool launch_given = false;
    rs_progress_t progress = RS_PROGRESS_POLL;
    rs_err_t err = {{0}};
    struct option *opts = rs_cli_merge_longopts(own_opts, (int)(sizeof own_opts / sizeof own_opts[0]));
    if (!opts) return RS_EXIT_FAIL;
    rs_cli_getopt_reset();
    int opt, rc;
    while ((opt = getopt_long(argc, argv, RS_CLI_COMMON_SHORTOPTS "h", opts, NULL)) != -1) {
        rc = rs_cli_common_opt(&c, opt, optarg, &err);
        if (rc < 0) goto usage;
        if (rc == 1) continue;
        switch (opt) {
        case OPT_OUT: j.out = optarg; break;
        case OPT_NAME:
            if (strlen(optarg) >= RS_NAME_LEN) { rs_errf(&err, "--name %s: at most %d characters", optarg, RS_NAME_LEN - 1); goto usage; }
            j.name = optarg;
            break;
        case OPT_BLOCKS:
            if (parse_blocks(optarg, &j.co, &err) < 0) goto usage;
            break;
        case OPT_LAUNCH:
            if (!strcmp(optarg, "mpirun")) launch_threads = 0;
            else if (!strcmp(optarg, "threads")) launch_threads = 1;
            else { rs_errf(&err, "--launch %s: expected mpirun or threads", optarg); goto usage; }
            launch_given = true;
            break;
        case OPT_PROGRESS:
            if (rs_progress_parse(optarg, &progress) < 0) { rs_errf(&err, "--progress %s: expected none, poll or thread", optarg); goto usage; }
            break;
        case OPT_MIN_TIME:
            if (rs_parse_double("--min-time", optarg, 0, 60, &j.co.min_time_s, &err) < 0) goto usage;
            break;
        case OPT_TIMEOUT:
            if (rs_parse_double("--timeout", optarg, 0.001, 1e6, &j.co.timeout_s, &err) < 0) goto usage;
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
    if (!j.out) { rs_errf(&err, "--out FILE is required (the profile to write)"); goto usage; }
    if (rs_exec_check_out("out", j.out, false, &err) < 0) goto usage;
    /* every block size must be a valid problem for this shape */
    c.problem.seq_tokens = c.problem.n_ranks * j.co.blocks[j.co.n_blocks - 1];
    c.n_layouts = 1;
    c.layouts[0] = RS_LAYOUT_CONTIGUOUS;
    if (rs_cli_common_finish(&c, &err) < 0) goto usage;
    if (c.problem.act_bytes != 4) { rs_errf(&err, "--dtype %s: the CPU kernel computes in fp32 (use --dtype fp32)", rs_dtype_name(c.dtype)); goto usage; }
    if (under_mpi && c.problem.n_ranks != env_size) {
        rs_errf(&err, "--ranks %lld: mpirun started %d processes; they must agree", (long long)c.problem.n_ranks, env_size);
        goto usage;
    }
    j.problem = rs_cli_common_problem(&c, 0, 0);
    j.progress = rs_progress_name(progress);
    return rs_exec_spmd_main("calibrate", c.problem.n_ranks, under_mpi, launch_threads, launch_given, (int)progress,
                             &argc, &argv, calib_body, &j, &j.progress);
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
