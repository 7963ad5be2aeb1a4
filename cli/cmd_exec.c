/* cmd_exec.c - `ringsim exec`: run the schedule for real and measure it (exec/exec.h).
 *
 * Ranks: under mpirun every process is one rank (MPI transport). Started by hand with N > 1 and
 * --launch mpirun (the default when mpirun is on PATH), ringsim re-starts itself as
 * `mpirun -np N ringsim exec ...`; --launch threads runs N ranks as threads of this process.
 * Every input is validated before any rank starts. Rank 0 prints one row per (layout, pass),
 * the check, and writes the trace. Exit: 0 ok, 1 runtime failure or failed check, 2 bad input.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "trace.h"

#ifdef RINGSIM_HAVE_EXEC
#include "exec.h"
#include "exec_launch.h"
#if defined(RINGSIM_HAVE_GPU) && __has_include("gpu.h")
#include "gpu.h"
#endif

enum {
    OPT_BACKEND = 2000, OPT_LAUNCH, OPT_PROGRESS, OPT_CHECK, OPT_TOL, OPT_SAVE_IO, OPT_REPS, OPT_WARMUP,
    OPT_TIMEOUT, OPT_SCALE, OPT_TRACE, OPT_CHROME, OPT_FAULT, OPT_STALL, OPT_LOOPBACK, OPT_HELP
};

static const struct option own_opts[] = {
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"launch", required_argument, NULL, OPT_LAUNCH},
    {"progress", required_argument, NULL, OPT_PROGRESS},
    {"check", no_argument, NULL, OPT_CHECK},
    {"tol", required_argument, NULL, OPT_TOL},
    {"save-io", required_argument, NULL, OPT_SAVE_IO},
    {"reps", required_argument, NULL, OPT_REPS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"input-scale", required_argument, NULL, OPT_SCALE},
    {"trace", required_argument, NULL, OPT_TRACE},
    {"chrome", required_argument, NULL, OPT_CHROME},
    {"fault", required_argument, NULL, OPT_FAULT},
    {"stall", required_argument, NULL, OPT_STALL},
    {"loopback", required_argument, NULL, OPT_LOOPBACK},
    {"help", no_argument, NULL, OPT_HELP},
};

static void help(void) {
    printf("usage: ringsim exec [options]      (or: mpirun -np N ringsim exec [options])\n\n"
           "Execute the ring schedule for real: every step posts the K,V (and, backward, dK,dV) transfers\n"
           "to p+1 / from p-1, runs the step's blockwise attention, waits, and records timestamps.\n"
           "Per (rank, step): compute, transfer (post to completion) and step time, medians over --reps\n"
           "after --warmup. CPU: fp32, OpenBLAS sgemm + online softmax, one core per rank.\n\n"
           "Execution:\n"
           "      --backend cpu|gpu    compute backend                           [cpu]\n"
           "      --launch mpirun|threads  ranks as MPI processes (re-started under mpirun when not\n"
           "                           already) or as threads of this process   [mpirun if on PATH]\n"
           "      --progress none|poll|thread  MPI progress while computing: none (data moves in the\n"
           "                           wait after compute), poll (MPI_Testsome after every column\n"
           "                           chunk of the kernel), a progress\n"
           "                           thread (RINGSIM_PROGRESS_US interval, 20 us, backing off) [poll]\n"
           "      --reps N             measured repetitions (medians)            [3]\n"
           "      --warmup N           unmeasured repetitions first              [1]\n"
           "      --timeout S          give up a wait after S seconds, naming rank and step [60]\n"
           "      --loopback KIND      one device plays every rank in turn, alone, each step's transfers\n"
           "                           to itself: cpu: local (memcpy); gpu: nccl (ncclSend/Recv to\n"
           "                           itself) or copy (cudaMemcpyAsync); --check is refused [off]\n"
           "Checking and output:\n"
           "      --check              compare O (and dQ, dK, dV) with a float64 full-attention\n"
           "                           reference on rank 0                       [off]\n"
           "      --tol X              max|x - ref| / max|ref| allowed per tensor [1e-5]\n"
           "      --input-scale X      Q, K, V uniform in [-X, X) (logits ~ X^2 sqrt(d)) [1]\n"
           "      --seed N             input seed (shared option)                [1]\n"
           "      --save-io DIR        write Q K V O (dO dQ dK dV) .npy, shape (batch, heads, S, d)\n"
           "      --trace FILE         measured trace, CSV (docs/traces.md)     [none]\n"
           "      --chrome FILE        measured trace, Chrome/Perfetto JSON      [none]\n"
           "      --fault R:K          testing: rank R stops answering at step K [none]\n"
           "      --stall R:K          testing: rank R's step-K transfers stall on the device until\n"
           "                           the watchdog gives up (GPU transports)    [none]\n"
           "  -h, --help               this help\n\n"
           "Defaults here: --seq 4K --ranks 4 (under mpirun: its -np) --heads 2 --kv-heads 2 --dtype fp32\n"
           "--layout zigzag --pass forward --causal. The hardware options are ignored (nothing is predicted).\n\n");
    rs_cli_common_help(stdout);
}

typedef struct {
    int backend_gpu;        /* 0 cpu, 1 gpu */
    int launch_threads;     /* 1: threads of this process */
    bool launch_given;      /* --launch given */
    rs_progress_t progress; /* MPI progress */
    rs_exec_opts_t o;       /* executor options */
    const char *trace, *chrome;
    bool ranks_given;       /* --ranks given */
    const char *loopback;   /* --loopback kind, or NULL */
} exec_args_t;

/* RANK:STEP of --fault and --stall. Returns 0 or -1 with err. */
static int parse_rank_step(const char *name, const char *text, int64_t *rank, int64_t *step, rs_err_t *err) {
    char *end, *e2;
    long long r = strtoll(text, &end, 10);
    if (end == text || *end != ':') return rs_errf(err, "%s %s: expected RANK:STEP", name, text);
    long long k = strtoll(end + 1, &e2, 10);
    if (e2 == end + 1 || *e2 || r < 0 || k < 0) return rs_errf(err, "%s %s: expected RANK:STEP, both >= 0", name, text);
    *rank = r, *step = k;
    return 0;
}

/* Loopback transports for rs_exec_run_loopback: {kind, N}. */
typedef struct {
    const char *kind; /* local | nccl | copy */
    int64_t n;        /* ring size */
} loop_arg_t;

static void *make_loopback(void *arg, int64_t rank, rs_err_t *err) {
    const loop_arg_t *la = arg;
#ifdef RS_GPU_EXEC_API
    rs_gpu_loop_t how;
    if (rs_gpu_loop_parse(la->kind, &how) == 0) return rs_nccl_loopback_create(rank, la->n, 0, how, err);
#endif
    return rs_local_loopback_create(rank, la->n, err);
}

static int write_trace(rs_trace_t *t, const char *csv, const char *chrome, const rs_problem_t *p, bool several,
                       rs_err_t *err) {
    char path[1200];
    for (int i = 0; i < 2; i++) {
        const char *base = i ? chrome : csv;
        if (!base) continue;
        rs_cli_entry_path(path, sizeof path, base, p, several);
        if ((i ? rs_trace_write_chrome(t, path, err) : rs_trace_write_csv(t, path, err)) < 0) return -1;
    }
    return 0;
}

int rs_cmd_exec(int argc, char **argv) {
    rs_setup_t c;
    rs_setup_default(&c);
    c.problem.seq_tokens = 4096, c.problem.n_ranks = 4, c.problem.q_heads = 2, c.problem.kv_heads = 2;
    rs_setup_dtype(&c, RS_DTYPE_FP32);
    const int env_size = rs_exec_env_size(), env_rank = rs_exec_env_rank();
    const bool under_mpi = env_size > 0;
    const bool loud = !under_mpi || env_rank == 0; /* only rank 0 talks */
    if (under_mpi) c.problem.n_ranks = env_size;
    exec_args_t a = {0};
    a.progress = RS_PROGRESS_POLL;
    rs_exec_opts_default(&a.o);
    rs_err_t err = {{0}};
    struct option *opts = rs_cli_merge_longopts(own_opts, (int)(sizeof own_opts / sizeof own_opts[0]));
    if (!opts) return RS_EXIT_FAIL;
    rs_cli_getopt_reset();
    int opt, rc;
    while ((opt = getopt_long(argc, argv, RS_CLI_COMMON_SHORTOPTS "h", opts, NULL)) != -1) {
        if (opt == RS_OPT_RANKS || opt == 'N') a.ranks_given = true;
        rc = rs_cli_common_opt(&c, opt, optarg, &err);
        if (rc < 0) goto usage;
        if (rc == 1) continue;
        switch (opt) {
        case OPT_BACKEND:
            if (!strcmp(optarg, "cpu")) a.backend_gpu = 0;
            else if (!strcmp(optarg, "gpu")) a.backend_gpu = 1;
            else { rs_errf(&err, "--backend %s: expected cpu or gpu", optarg); goto usage; }
            break;
        case OPT_LAUNCH:
            if (!strcmp(optarg, "mpirun")) a.launch_threads = 0;
            else if (!strcmp(optarg, "threads")) a.launch_threads = 1;
            else { rs_errf(&err, "--launch %s: expected mpirun or threads", optarg); goto usage; }
            a.launch_given = true;
            break;
        case OPT_PROGRESS:
            if (rs_progress_parse(optarg, &a.progress) < 0) { rs_errf(&err, "--progress %s: expected none, poll or thread", optarg); goto usage; }
            break;
        case OPT_CHECK: a.o.check = true; break;
        case OPT_TOL: {
            double v;
            if (rs_parse_double("--tol", optarg, 0, 1e300, &v, &err) < 0) goto usage;
            a.o.check_tol = v;
            break;
        }
        case OPT_SAVE_IO: a.o.save_io_dir = optarg; break;
        case OPT_REPS:
        case OPT_WARMUP: {
            int64_t v;
            if (rs_parse_size(opt == OPT_REPS ? "--reps" : "--warmup", optarg, opt == OPT_REPS ? 1 : 0, 100000, &v, &err) < 0) goto usage;
            if (opt == OPT_REPS) a.o.reps = (int)v;
            else a.o.warmup = (int)v;
            break;
        }
        case OPT_TIMEOUT:
            if (rs_parse_double("--timeout", optarg, 0.001, 1e6, &a.o.timeout_s, &err) < 0) goto usage;
            break;
        case OPT_SCALE:
            if (rs_parse_double("--input-scale", optarg, 1e-30, 1e15, &a.o.input_scale, &err) < 0) goto usage;
            break;
        case OPT_TRACE: a.trace = optarg; break;
        case OPT_CHROME: a.chrome = optarg; break;
        case OPT_FAULT:
            if (parse_rank_step("--fault", optarg, &a.o.fault_rank, &a.o.fault_step, &err) < 0) goto usage;
            break;
        case OPT_STALL:
            if (parse_rank_step("--stall", optarg, &a.o.stall_rank, &a.o.stall_step, &err) < 0) goto usage;
            break;
        case OPT_LOOPBACK: a.loopback = optarg; break;
        case OPT_HELP:
        case 'h':
            free(opts);
            if (loud) help();
            return RS_EXIT_OK;
        default:
            free(opts);
            if (loud) fprintf(stderr, "ringsim exec: unknown option '%s' or missing value (see ringsim exec --help)\n", argv[optind - 1]);
            return RS_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        rs_errf(&err, "unexpected argument '%s'", argv[optind]);
        goto usage;
    }
    free(opts);
    opts = NULL;
    a.o.seed = c.spec.seed;
    /* ---- validate everything before any rank starts ---- */
    if (rs_setup_finish(&c, &err) < 0) goto usage;
    if (under_mpi && c.problem.n_ranks != env_size) {
        rs_errf(&err, "--ranks %lld: mpirun started %d processes; they must agree", (long long)c.problem.n_ranks, env_size);
        goto usage;
    }
    const rs_compute_ops_t *cops = &rs_cpu_compute_ops;
    if (a.backend_gpu) {
#ifdef RS_GPU_EXEC_API
        cops = rs_gpu_compute_ops_for(c.spec.dtype);
        if (!cops) { rs_errf(&err, "--backend gpu: --dtype %s is not supported by the GPU kernels", rs_dtype_name(c.spec.dtype)); goto usage; }
#else
        if (loud) fprintf(stderr, "ringsim exec: --backend gpu: this build has no GPU executor (needs nvcc, NCCL and exec/gpu/gpu.h)\n");
        return RS_EXIT_USAGE;
#endif
    }
    if (c.problem.act_bytes != cops->act_bytes) {
        rs_errf(&err, "--dtype %s: the %s backend computes in %s (use --dtype %s)", rs_dtype_name(c.spec.dtype), cops->name,
                cops->dtype_name, cops->dtype_name);
        goto usage;
    }
    if (c.problem.grad_bytes != 4) {
        rs_errf(&err, "--grad-bytes %lld: dK,dV travel in fp32 here (use --grad-bytes 4)", (long long)c.problem.grad_bytes);
        goto usage;
    }
    if (a.o.check && c.problem.seq_tokens > 65536) {
        rs_errf(&err, "--check with --seq %lld: the float64 reference is O(S^2); use --seq <= 64K", (long long)c.problem.seq_tokens);
        goto usage;
    }
    if (a.loopback) {
        const bool ok = a.backend_gpu ? !strcmp(a.loopback, "nccl") || !strcmp(a.loopback, "copy") : !strcmp(a.loopback, "local");
        if (!ok) {
            rs_errf(&err, "--loopback %s: expected %s with --backend %s", a.loopback, a.backend_gpu ? "nccl or copy" : "local",
                    a.backend_gpu ? "gpu" : "cpu");
            goto usage;
        }
        if (under_mpi || (a.launch_given && !a.launch_threads)) {
            rs_errf(&err, "--loopback %s: one process plays every rank in turn (not under mpirun)", a.loopback);
            goto usage;
        }
        if (a.o.check || a.o.save_io_dir) {
            rs_errf(&err, "--loopback %s: --check and --save-io need the real ring (a loopback rank computes on its own blocks)",
                    a.loopback);
            goto usage;
        }
        a.launch_threads = 1;
    }
    if (a.o.stall_rank >= c.problem.n_ranks) {
        rs_errf(&err, "--stall %lld:%lld: rank must be < N = %lld", (long long)a.o.stall_rank, (long long)a.o.stall_step,
                (long long)c.problem.n_ranks);
        goto usage;
    }
    if (a.o.fault_rank >= c.problem.n_ranks) {
        rs_errf(&err, "--fault %lld:%lld: rank must be < N = %lld", (long long)a.o.fault_rank, (long long)a.o.fault_step,
                (long long)c.problem.n_ranks);
        goto usage;
    }
    if (rs_exec_check_out("save-io", a.o.save_io_dir, true, &err) < 0 || rs_exec_check_out("trace", a.trace, false, &err) < 0 ||
        rs_exec_check_out("chrome", a.chrome, false, &err) < 0)
        goto usage;
    /* ---- start ranks ---- */
    if (!under_mpi && !a.launch_threads && c.problem.n_ranks > 1) {
        if (rs_exec_have_mpirun()) {
            int st = rs_exec_mpirun(c.problem.n_ranks, argc, argv, "exec", &err);
            if (st < 0) {
                fprintf(stderr, "ringsim exec: %s\n", err.msg);
                return RS_EXIT_FAIL;
            }
            return st;
        }
        if (a.launch_given) {
            fprintf(stderr, "ringsim exec: --launch mpirun: mpirun not found on PATH (or MPI not built); use --launch threads\n");
            return RS_EXIT_USAGE;
        }
        a.launch_threads = 1;
    }
    int exit_code = RS_EXIT_OK;
    void *ts = NULL;
    const rs_transport_ops_t *tops = NULL;
    if (!a.launch_threads) {
#ifdef RINGSIM_HAVE_MPI
#ifdef RS_GPU_EXEC_API
        if (a.backend_gpu) {
            tops = &rs_nccl_transport_ops;
            ts = rs_nccl_transport_create(&argc, &argv, rs_exec_env_local_rank(), &err);
        } else
#endif
        {
            tops = &rs_mpi_transport_ops;
            ts = rs_mpi_transport_create(&argc, &argv, a.progress, &err);
        }
        if (!ts) {
            fprintf(stderr, "ringsim exec: %s\n", err.msg);
            return RS_EXIT_FAIL;
        }
#else
        fprintf(stderr, "ringsim exec: this build has no MPI; use --launch threads\n");
        return RS_EXIT_USAGE;
#endif
    }
    const int rank = tops ? (int)tops->rank(ts) : 0;
    const bool several = c.n_layouts * c.n_passes > 1;
    char cdesc[256] = "", tdesc[256] = "";
    if (rank == 0)
        printf("# ringsim exec: S=%lld N=%lld B=%lld batch=%lld heads=%lld/%lld d=%lld %s %s, reps %d (warmup %d)\n"
               "# %-10s %-8s %12s %12s %12s %12s %10s %s\n",
               (long long)c.problem.seq_tokens, (long long)c.problem.n_ranks, (long long)rs_problem_block(&c.problem),
               (long long)c.problem.batch, (long long)c.problem.q_heads, (long long)c.problem.kv_heads,
               (long long)c.problem.head_dim, c.problem.causal ? "causal" : "non-causal", cops->dtype_name, a.o.reps,
               a.o.warmup, "layout", "pass", "t_comp_s", "t_comm_s", "t_step_s", "makespan_s", "GFLOP/s/rk", "check");
    for (int li = 0; li < c.n_layouts && exit_code == RS_EXIT_OK; li++)
        for (int pj = 0; pj < c.n_passes && exit_code == RS_EXIT_OK; pj++) {
            rs_problem_t p = rs_setup_problem(&c, li, pj);
#ifdef RS_GPU_EXEC_API
            /* the GPU kernels run their own tile: count executed FLOPs at that tile */
            if (a.backend_gpu) rs_gpu_kernel_tile(p.pass, p.head_dim, &p.tile_q, &p.tile_k);
#endif
            rs_schedule_t *s = rs_schedule_create(&p, &err);
            if (!s) {
                fprintf(stderr, "ringsim exec: %s\n", err.msg);
                exit_code = RS_EXIT_USAGE;
                break;
            }
            rs_trace_t *t = rank == 0 ? rs_trace_create(a.backend_gpu ? "exec-gpu" : "exec-cpu") : NULL;
            rs_exec_result_t res;
            int rr;
            if (a.loopback) {
                loop_arg_t la = {a.loopback, p.n_ranks};
                const rs_transport_ops_t *lops = &rs_local_transport_ops;
#ifdef RS_GPU_EXEC_API
                if (a.backend_gpu) lops = &rs_nccl_transport_ops;
#endif
                rr = rs_exec_run_loopback(s, cops, lops, make_loopback, &la, NULL, 0, &a.o, t, &res, &err);
            } else if (tops)
                rr = rs_exec_run(s, cops, tops, ts, &a.o, rs_exec_env_local_rank(), t, &res, &err);
            else {
#ifdef RS_GPU_EXEC_API
                if (a.backend_gpu) {
                    void **tss = calloc((size_t)p.n_ranks, sizeof *tss);
                    rr = tss && rs_nccl_world_create(p.n_ranks, tss, &err) == 0
                             ? rs_exec_run_threads(s, cops, &rs_nccl_transport_ops, tss, &a.o, t, &res, &err)
                             : -1;
                    if (tss) rs_nccl_world_free(tss, p.n_ranks);
                    free(tss);
                } else
#endif
                    rr = rs_exec_run_threads(s, cops, NULL, NULL, &a.o, t, &res, &err);
            }
            if (rr < 0) {
                if (res.faulted && tops) {
                    /* "stops answering": stay silent until the others time out and abort the job */
                    double until = rs_now_s() + 4 * a.o.timeout_s + 10;
                    while (rs_now_s() < until) sleep(1);
                }
                fprintf(stderr, "ringsim exec: %s\n", err.msg);
                fflush(stderr);
                rs_trace_free(t);
                rs_schedule_free(s);
                if (tops && strstr(err.msg, "timeout")) {
                    /* let the other waiting ranks time out and say what they waited for before
                     * the job is torn down (the one nearest the cause may not be the first) */
                    double until = rs_now_s() + (a.o.timeout_s < 10 ? a.o.timeout_s : 10);
                    struct timespec nap = {0, 20000000};
                    while (rs_now_s() < until) nanosleep(&nap, NULL);
                }
                if (tops) tops->abort(ts, RS_EXIT_FAIL);
                return RS_EXIT_FAIL;
            }
            if (rank == 0) {
                double flops = 0, busy = 0;
                for (size_t i = 0; i < rs_trace_count(t); i++) {
                    const rs_event_t *e = &rs_trace_events(t)[i];
                    if (e->kind == RS_EV_COMPUTE) flops += e->flops, busy += e->end_s - e->start_s;
                }
                char chk[256] = "-";
                if (a.o.check) {
                    int n = snprintf(chk, sizeof chk, "%s", res.check_ok ? "OK" : "FAILED");
                    const rs_tensor_t shown[] = {RS_TENSOR_O, RS_TENSOR_DQ, RS_TENSOR_DK, RS_TENSOR_DV};
                    for (int i = 0; i < 4; i++)
                        if (res.err[shown[i]] >= 0)
                            n += snprintf(chk + n, sizeof chk - (size_t)n, " %s=%.2e", rs_tensor_name(shown[i]), res.err[shown[i]]);
                }
                printf("  %-10s %-8s %12.6g %12.6g %12.6g %12.6g %10.3f %s\n", rs_layout_name(p.layout), rs_pass_name(p.pass),
                       res.t_comp_median_s, res.t_comm_median_s, res.t_step_median_s, res.makespan_s,
                       busy > 0 ? flops / busy * 1e-9 : 0.0, chk);
                snprintf(cdesc, sizeof cdesc, "%s", res.compute_desc);
                snprintf(tdesc, sizeof tdesc, "%s", res.transport_desc);
                rs_trace_set_meta(t, "backend", "%s", a.backend_gpu ? "exec-gpu" : "exec-cpu");
                rs_trace_set_meta(t, "blas", "%s", rs_exec_blas_version());
                rs_trace_set_meta(t, "ringsim_version", "%s", RINGSIM_VERSION);
                rs_trace_set_meta(t, "launch", "%s", a.loopback ? "loopback" : tops ? tops->name : "threads");
                if (write_trace(t, a.trace, a.chrome, &p, several, &err) < 0) {
                    fprintf(stderr, "ringsim exec: %s\n", err.msg);
                    exit_code = RS_EXIT_FAIL;
                }
                if (!res.check_ok) {
                    fprintf(stderr, "ringsim exec: %s: %s\n", rs_layout_name(p.layout), err.msg);
                    exit_code = RS_EXIT_FAIL;
                }
            }
            rs_trace_free(t);
            rs_schedule_free(s);
        }
    if (rank == 0) {
        printf("# compute: %s\n# transport: %s\n", cdesc, tdesc);
        fflush(stdout);
    }
    if (tops) {
        /* every rank learns rank 0's verdict through the exit code of mpirun: rank 0 exits with it */
        tops->destroy(ts);
    }
    return exit_code;
usage:
    free(opts);
    if (loud) fprintf(stderr, "ringsim exec: %s\n", err.msg);
    return RS_EXIT_USAGE;
}

#else /* !RINGSIM_HAVE_EXEC */

int rs_cmd_exec(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim exec: this build has no CPU executor (needs OpenBLAS)\n");
    return RS_EXIT_FAIL;
}

#endif
