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
#include "exec.h"
#include "exec_backend.h"
#include "exec_launch.h"

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

typedef struct {
    rs_problem_t problem;   /* shape */
    rs_calib_opts_t co;     /* calibration options */
    const char *out, *name; /* profile path and name */
    const char *progress;   /* MPI progress mode name (for the note) */
    rs_dtype_t dtype;       /* what the executor computes in */
    rs_err_t err;           /* rank 0's error */
} calib_job_t;

static int calib_body(const rs_exec_job_t *job, void *arg) {
    calib_job_t *j = arg;
    rs_calib_t c;
    rs_err_t err = {{0}};
    const int64_t rank = job->rank;
    rs_problem_t p = j->problem;
    if (job->be->kernel_tile) job->be->kernel_tile(p.pass, p.head_dim, &p.tile_q, &p.tile_k);
    if (rs_calibrate(&p, job->cops, job->tops, job->ts, &j->co, &c, &err) < 0) {
        fprintf(stderr, "ringsim calibrate: rank %lld: %s\n", (long long)rank, err.msg);
        return RS_EXIT_FAIL;
    }
    if (rank != 0) return 0;
    char name[RS_NAME_LEN], note[256], date[32];
    struct utsname u;
    if (uname(&u) != 0) snprintf(u.nodename, sizeof u.nodename, "host");
    snprintf(name, sizeof name, "%s", j->name ? j->name : "");
    if (!j->name) snprintf(name, sizeof name, "%s-%.40s", job->be->name, u.nodename);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", gmtime(&now));
    const char *kernel = job->be->compute_for(RS_DTYPE_FP32) ? rs_exec_blas_version() : job->cops->name;
    const char *mode = strcmp(job->launch, "mpirun") ? job->launch : j->progress; /* threads, loopback, or MPI progress */
    snprintf(note, sizeof note, "ringsim calibrate %s UTC, %lld ranks, %s; %.80s; transport %.60s", date,
             (long long)job->n_ranks, mode, kernel, job->tops->describe(job->ts));
    printf("# ringsim calibrate: %lld ranks, heads %lld/%lld, d %lld, %s pass\n# %s\n", (long long)job->n_ranks,
           (long long)p.q_heads, (long long)p.kv_heads, (long long)p.head_dim, rs_pass_name(p.pass), note);
    rs_calib_print(&c, stdout);
    rs_hw_t hw;
    rs_calib_to_hw(&c, name, note, job->n_ranks, j->dtype, &hw);
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
    if (rs_machine_from_hw(&back, j->dtype, &mb, &err) == 0) rs_machine_overlap_desc(&mb, ovd, sizeof ovd);
    printf("# profile %s: F_peak(%s) %.4g GFLOP/s, %d efficiency points, W %.4g GB/s, L %.3g s; %s\n", j->out,
           rs_dtype_name(j->dtype), back.flops_per_s[j->dtype] * 1e-9, back.cal.n_eff, back.intra.bw_bytes_per_s * 1e-9,
           back.intra.latency_s, ovd);
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
    rs_setup_t c;
    rs_setup_default(&c);
    c.problem.seq_tokens = 4096, c.problem.n_ranks = 2, c.problem.q_heads = 2, c.problem.kv_heads = 2;
    rs_setup_dtype(&c, RS_DTYPE_FP32), c.problem.causal = false;
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut short (a timeout) keeps what it printed */
    const int env_size = rs_exec_env_size(), env_rank = rs_exec_env_rank();
    const bool under_mpi = env_size > 0, loud = !under_mpi || env_rank == 0;
    if (under_mpi) c.problem.n_ranks = env_size;
    calib_job_t j = {0};
    rs_calib_opts_default(&j.co);
    const char *launch = NULL, *backend = "cpu", *loopback = NULL;
    bool dtype_given = false;
    rs_progress_t progress = RS_PROGRESS_POLL;
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
        case OPT_OUT: j.out = optarg; break;
        case OPT_BACKEND: backend = optarg; break;
        case OPT_LOOPBACK: loopback = optarg; break;
        case OPT_NAME:
            if (strlen(optarg) >= RS_NAME_LEN) { rs_errf(&err, "--name %s: at most %d characters", optarg, RS_NAME_LEN - 1); goto usage; }
            j.name = optarg;
            break;
        case OPT_BLOCKS:
            if (parse_blocks(optarg, &j.co, &err) < 0) goto usage;
            break;
        case OPT_LAUNCH:
            if (strcmp(optarg, "mpirun") && strcmp(optarg, "threads")) { rs_errf(&err, "--launch %s: expected mpirun or threads", optarg); goto usage; }
            launch = optarg;
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
    const rs_backend_ops_t *be;
    if (rs_backend_get(backend, true, &be, &err) < 0) goto usage;
    if (!dtype_given) { /* the executor's own dtype */
        rs_setup_dtype(&c, be->exec->default_dtype);
    }
    /* every block size must be a valid problem for this shape */
    c.problem.seq_tokens = c.problem.n_ranks * j.co.blocks[j.co.n_blocks - 1];
    c.n_layouts = 1;
    c.layouts[0] = RS_LAYOUT_CONTIGUOUS;
    if (rs_setup_finish(&c, &err) < 0) goto usage;
    rs_exec_spmd_t sp = {"calibrate", c.problem.n_ranks, launch, progress, loopback, c.spec.dtype, &argc, &argv};
    if (rs_exec_spmd_check(be->exec, &sp, c.problem.grad_bytes, &err) < 0) goto usage;
    if (under_mpi && c.problem.n_ranks != env_size) {
        rs_errf(&err, "--ranks %lld: mpirun started %d processes; they must agree", (long long)c.problem.n_ranks, env_size);
        goto usage;
    }
    j.problem = rs_setup_problem(&c, 0, 0);
    j.dtype = c.spec.dtype;
    j.progress = rs_progress_name(progress);
    return rs_exec_spmd(be->exec, &sp, calib_body, &j);
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
