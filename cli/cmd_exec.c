/* cmd_exec.c - `ringsim exec`: run the schedule for real and measure it (exec/exec.h), on the
 * executor --backend names (exec/exec_backend.h: its compute backend and transports).
 *
 * Ranks: under mpirun every process is one rank (the executor's MPI transport). Started by hand with
 * N > 1 and --launch mpirun (the default when mpirun is on PATH), ringsim re-starts itself as
 * `mpirun -np N ringsim exec ...`; --launch threads runs N ranks as threads of this process;
 * --loopback runs every rank in turn on this device. Every input is validated before any rank
 * starts. Rank 0 prints one row per (layout, pass), the check, and writes the trace. Exit: 0 ok,
 * 1 runtime failure or failed check, 2 bad input.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "trace.h"

#ifdef RINGSIM_HAVE_EXEC
#include "exec.h"
#include "exec_launch.h"

/* exec's own options. */
typedef struct {
    rs_exec_opts_t o;          /* the executor's options */
    const char *trace, *chrome; /* measured traces to write */
    const char *fault, *stall; /* --fault, --stall as given (messages quote them) */
} exec_own_t;

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

static int parse_fault(void *dst, const char *arg, rs_err_t *err) {
    rs_exec_opts_t *o = &((exec_own_t *)dst)->o;
    ((exec_own_t *)dst)->fault = arg;
    return parse_rank_step("--fault", arg, &o->fault_rank, &o->fault_step, err);
}

static int parse_stall(void *dst, const char *arg, rs_err_t *err) {
    rs_exec_opts_t *o = &((exec_own_t *)dst)->o;
    ((exec_own_t *)dst)->stall = arg;
    return parse_rank_step("--stall", arg, &o->stall_rank, &o->stall_step, err);
}

#define O(field) offsetof(exec_own_t, field)
static const rs_opt_t own_opts[] = {
    {"reps", 0, "N", "3", "measured repetitions (medians)", RS_ARG_INT, O(o.reps), 1, 100000, NULL, NULL, "Measuring:"},
    {"warmup", 0, "N", "1", "unmeasured repetitions first", RS_ARG_INT, O(o.warmup), 0, 100000, NULL, NULL, NULL},
    {"timeout", 0, "S", "60", "give up a wait after S seconds, naming rank and step", RS_ARG_DOUBLE, O(o.timeout_s), 0.001,
     1e6, NULL, NULL, NULL},
    {"check", 0, NULL, "off", "compare O (and dQ, dK, dV) with a float64 full-attention\nreference on rank 0", RS_ARG_TRUE,
     O(o.check), 0, 0, NULL, NULL, "Checking and output:"},
    {"tol", 0, "X", "1e-5", "max|x - ref| / max|ref| allowed per tensor", RS_ARG_DOUBLE, O(o.check_tol), 0, 1e300, NULL, NULL,
     NULL},
    {"input-scale", 0, "X", "1", "Q, K, V uniform in [-X, X) (logits ~ X^2 sqrt(d));\n--seed seeds them", RS_ARG_DOUBLE,
     O(o.input_scale), 1e-30, 1e15, NULL, NULL, NULL},
    {"save-io", 0, "DIR", "none", "write Q K V O (dO dQ dK dV) .npy, shape (batch, heads, S, d)", RS_ARG_OUTDIR,
     O(o.save_io_dir), 0, 0, NULL, NULL, NULL},
    {"trace", 0, "FILE", "none", "measured trace, CSV (docs/traces.md)", RS_ARG_OUT, O(trace), 0, 0, NULL, NULL, NULL},
    {"chrome", 0, "FILE", "none", "measured trace, Chrome/Perfetto JSON", RS_ARG_OUT, O(chrome), 0, 0, NULL, NULL, NULL},
    {"fault", 0, "R:K", "none", "testing: rank R stops answering at step K", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_fault, NULL},
    {"stall", 0, "R:K", "none",
     "testing: rank R's step-K transfers stall on the device until\nthe watchdog gives up (GPU transports)", RS_ARG_CUSTOM,
     0, 0, 0, NULL, parse_stall, NULL},
};
#undef O


/* A parsed `ringsim exec`. */
typedef struct {
    rs_setup_t c;                  /* the problem, layouts and passes */
    exec_own_t a;                  /* exec's options */
    rs_cli_exec_t x;               /* --backend, --launch, --progress, --loopback */
    const rs_exec_backend_t *be;   /* the executor */
    const rs_compute_ops_t *cops;  /* its compute backend for the dtype */
    bool threads;                  /* ranks are threads of this process */
    /* at run time */
    const rs_transport_ops_t *tops; /* under mpirun: this process's transport, else NULL */
    void *ts;
    int rank;                      /* this process's rank (0 unless under mpirun) */
    bool failed;                   /* a run failed: no summary lines */
    char cdesc[256], tdesc[256];   /* the compute and transport descriptions (rank 0) */
} exec_cmd_t;

/* Everything checked before any rank starts. Returns 0 or -1 with err. */
static int check(exec_cmd_t *e, int env_size, rs_err_t *err) {
    const rs_problem_t *p = &e->c.problem;
    const rs_exec_opts_t *o = &e->a.o;
    const rs_backend_ops_t *b;
    if (rs_setup_finish(&e->c, err) < 0) return -1;
    if (env_size > 0 && p->n_ranks != env_size)
        return rs_errf(err, "--ranks %lld: mpirun started %d processes; they must agree", (long long)p->n_ranks, env_size);
    if (rs_backend_get(e->x.backend, true, &b, err) < 0) return -1;
    e->be = b->exec;
    rs_exec_spmd_t job = e->x.job;
    job.dtype = e->c.spec.dtype;
    if (rs_exec_spmd_check(e->be, &job, p->grad_bytes, err) < 0) return -1;
    e->cops = e->be->compute_for(e->c.spec.dtype);
    if (o->check && p->seq_tokens > 65536)
        return rs_errf(err, "--check with --seq %lld: the float64 reference is O(S^2); use --seq <= 64K", (long long)p->seq_tokens);
    if (job.loopback && (o->check || o->save_io_dir))
        return rs_errf(err, "--loopback %s: --check and --save-io need the real ring (a loopback rank computes on its own blocks)",
                       job.loopback);
    if (rs_problem_passes_q(p) && job.loopback)
        return rs_errf(err, "--loopback %s: --ring pass-q and decode return their partial outputs in an all-to-all, which "
                            "needs the real ring", job.loopback);
    if (rs_problem_passes_q(p) && (!e->cops || !e->cops->q_step || !e->cops->q_merge))
        return rs_errf(err, "--ring pass-q / decode: the %s backend has no partial-output kernels", e->x.backend);
    if (o->stall_rank >= p->n_ranks)
        return rs_errf(err, "--stall %s: rank %lld must be < N = %lld", e->a.stall, (long long)o->stall_rank, (long long)p->n_ranks);
    if (o->fault_rank >= p->n_ranks)
        return rs_errf(err, "--fault %s: rank %lld must be < N = %lld", e->a.fault, (long long)o->fault_rank, (long long)p->n_ranks);
    e->threads = job.loopback || (job.launch && strcmp(job.launch, "threads") == 0);
    return 0;
}

/* Start the ranks: re-launch under mpirun (returns its exit code), or create this process's MPI
 * transport, or go on with threads. Returns -1 to go on, else the exit code. */
static int start_ranks(exec_cmd_t *e, bool under_mpi, int *argc, char ***argv) {
    rs_err_t err = {0};
    if (!under_mpi && !e->threads && e->c.problem.n_ranks > 1) {
        if (rs_exec_have_mpirun()) {
            int st = rs_exec_mpirun(e->c.problem.n_ranks, *argc, *argv, "exec", &err);
            if (st < 0) fprintf(stderr, "ringsim exec: %s\n", err.msg);
            return st < 0 ? rs_err_exit_code(&err) : st;
        }
        if (e->x.job.launch) {
            fprintf(stderr, "ringsim exec: --launch mpirun: mpirun not found on PATH (or MPI not built); use --launch threads\n");
            return RS_EXIT_USAGE;
        }
        e->threads = true;
    }
    if (e->threads) return -1;
    if (!e->be->mpi_create) {
        fprintf(stderr, "ringsim exec: this build has no MPI; use --launch threads\n");
        return RS_EXIT_USAGE;
    }
    e->tops = e->be->mpi_ops;
    e->ts = e->be->mpi_create(argc, argv, e->x.job.progress, rs_exec_env_local_rank(), &err);
    if (!e->ts) {
        fprintf(stderr, "ringsim exec: %s\n", err.msg);
        return rs_err_exit_code(&err);
    }
    e->rank = (int)e->tops->rank(e->ts);
    return -1;
}

/* Run the schedule on this process's ranks: its MPI rank, N threads, or the loopback. */
static int run_schedule(const exec_cmd_t *e, const rs_schedule_t *s, rs_trace_t *t, rs_exec_result_t *res, rs_err_t *err) {
    const rs_exec_backend_t *be = e->be;
    const int64_t n = rs_schedule_problem(s)->n_ranks;
    if (e->tops || e->x.job.loopback) {
        rs_exec_job_t job = {.be = be, .cops = e->cops, .tops = e->tops, .ts = e->ts, .local_rank = rs_exec_env_local_rank(),
                             .rank = e->rank, .n_ranks = n, .loopback = e->x.job.loopback};
        return rs_exec_job_run(&job, s, &e->a.o, t, res, err);
    }
    void **tss = calloc((size_t)n, sizeof *tss);
    void *world = tss ? be->world_create(n, tss, err) : NULL;
    int rc = world ? rs_exec_run_threads(s, &(rs_exec_threads_t){e->cops, be->world_ops, tss}, &e->a.o, t, res, err) : -1;
    if (!tss) rc = rs_errf(err, "out of memory for %lld ranks", (long long)n);
    if (world) be->world_free(world, tss, n);
    free(tss);
    return rc;
}

/* A rank that failed: say why and tear the job down with the exit code of the failure's kind. */
static int fail(exec_cmd_t *e, const rs_exec_result_t *res, const rs_err_t *err) {
    const int rc = rs_err_exit_code(err);
    e->failed = true;
    if (res->faulted && e->tops) {
        /* "stops answering": stay silent until the others time out and abort the job */
        double until = rs_now_s() + 4 * e->a.o.timeout_s + 10;
        while (rs_now_s() < until) sleep(1);
    }
    fprintf(stderr, "ringsim exec: %s\n", err->msg);
    fflush(stderr);
    if (e->tops && err->code == RS_ERR_TIMEOUT) {
        /* let the other waiting ranks time out and say what they waited for before the job is torn
         * down (the one nearest the cause may not be the first) */
        double until = rs_now_s() + (e->a.o.timeout_s < 10 ? e->a.o.timeout_s : 10);
        struct timespec nap = {0, 20000000};
        while (rs_now_s() < until) nanosleep(&nap, NULL);
    }
    if (e->tops) e->tops->abort(e->ts, rc);
    return rc;
}

/* Rank 0: the row of one (layout, pass), its trace files. Returns the exit code. */
static int report_entry(exec_cmd_t *e, const rs_problem_t *p, rs_trace_t *t, const rs_exec_result_t *res, rs_err_t *err) {
    double flops = 0, busy = 0;
    for (size_t i = 0; i < rs_trace_count(t); i++) {
        const rs_event_t *ev = &rs_trace_events(t)[i];
        if (ev->kind == RS_EV_COMPUTE) flops += ev->flops, busy += ev->end_s - ev->start_s;
    }
    char chk[256] = "-";
    if (e->a.o.check) {
        int n = snprintf(chk, sizeof chk, "%s", res->check_ok ? "OK" : "FAILED");
        const rs_tensor_t shown[] = {RS_TENSOR_O, RS_TENSOR_DQ, RS_TENSOR_DK, RS_TENSOR_DV};
        for (int i = 0; i < 4; i++)
            if (res->err[shown[i]] >= 0)
                n += snprintf(chk + n, sizeof chk - (size_t)n, " %s=%.2e", rs_tensor_name(shown[i]), res->err[shown[i]]);
    }
    printf("  %-10s %-8s %12.6g %12.6g %12.6g %12.6g %10.3f %s\n", rs_layout_name(p->layout), rs_pass_name(p->pass),
           res->t_comp_median_s, res->t_comm_median_s, res->t_step_median_s, res->makespan_s, busy > 0 ? flops / busy * 1e-9 : 0.0,
           chk);
    snprintf(e->cdesc, sizeof e->cdesc, "%s", res->compute_desc);
    snprintf(e->tdesc, sizeof e->tdesc, "%s", res->transport_desc);
    rs_trace_set_meta(t, "backend", "%s", e->be->source);
    rs_trace_set_meta(t, "blas", "%s", rs_exec_blas_version());
    rs_trace_set_meta(t, "ringsim_version", "%s", RINGSIM_VERSION);
    rs_trace_set_meta(t, "launch", "%s", e->x.job.loopback ? "loopback" : e->tops ? e->tops->name : "threads");
    int rc = RS_EXIT_OK;
    char path[1200];
    const bool several = e->c.n_layouts * e->c.n_passes > 1;
    for (int i = 0; i < 2 && rc == RS_EXIT_OK; i++) {
        const char *base = i ? e->a.chrome : e->a.trace;
        if (!base) continue;
        rs_cli_entry_path(path, sizeof path, base, p, several);
        if ((i ? rs_trace_write_chrome(t, path, err) : rs_trace_write_csv(t, path, err)) < 0) {
            fprintf(stderr, "ringsim exec: %s\n", err->msg);
            rc = RS_EXIT_FAIL;
        }
    }
    if (!res->check_ok) {
        fprintf(stderr, "ringsim exec: %s: %s\n", rs_layout_name(p->layout), err->msg);
        rc = RS_EXIT_FAIL;
    }
    return rc;
}

/* One (layout, pass): schedule, run, and on rank 0 the row. Returns the exit code. */
static int run_entry(exec_cmd_t *e, int li, int pj) {
    rs_err_t err = {0};
    rs_problem_t p = rs_setup_problem(&e->c, li, pj);
    /* a GPU kernel runs its own tile: count executed FLOPs at that tile */
    if (e->be->kernel_tile) e->be->kernel_tile(p.pass, p.head_dim, &p.tile_q, &p.tile_k);
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    if (!s) {
        fprintf(stderr, "ringsim exec: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }
    rs_trace_t *t = e->rank == 0 ? rs_trace_create(e->be->source) : NULL;
    rs_exec_result_t res;
    int rc = run_schedule(e, s, t, &res, &err);
    if (rc < 0) {
        rs_trace_free(t);
        rs_schedule_free(s);
        return fail(e, &res, &err); /* under mpirun: does not return */
    }
    rc = e->rank == 0 ? report_entry(e, &p, t, &res, &err) : RS_EXIT_OK;
    rs_trace_free(t);
    rs_schedule_free(s);
    return rc;
}

int rs_cmd_exec(int argc, char **argv) {
    exec_cmd_t *e = calloc(1, sizeof *e);
    if (!e) return RS_EXIT_FAIL;
    rs_setup_t *c = &e->c;
    rs_setup_default(c);
    rs_setup_measure_problem(&c->problem); /* the measurement problem, on a causal ring of 4 */
    c->problem.n_ranks = 4, c->problem.causal = true;
    rs_setup_dtype(c, RS_DTYPE_FP32);
    const int env_size = rs_exec_env_size(), env_rank = rs_exec_env_rank();
    const bool under_mpi = env_size > 0;
    const bool loud = !under_mpi || env_rank == 0; /* only rank 0 talks */
    if (under_mpi) c->problem.n_ranks = env_size;
    rs_exec_opts_default(&e->a.o);
    e->x.backend = "cpu";
    e->x.job.progress = RS_PROGRESS_POLL;
    rs_opt_group_t groups[] = {RS_OPT_GROUP(own_opts, &e->a), rs_cli_exec_group(&e->x),
                               rs_cli_shared_group(c, NULL)};
    int rc = rs_cli_run_parse("exec", argc, argv, groups, 3, loud);
    rs_err_t err = {0};
    e->a.o.seed = c->spec.seed;
    if (rc < 0 && (err.msg[0] || check(e, env_size, &err) < 0)) {
        if (loud) fprintf(stderr, "ringsim exec: %s\n", err.msg);
        rc = RS_EXIT_USAGE;
    }
    if (rc < 0) rc = rs_cli_check_entry_files("exec", c, groups, 3, loud);
    if (rc < 0) { /* every entry, one after the other, against --max-time and --max-memory */
        rs_estimate_t sum = {0, 0, 0}, est;
        for (int li = 0; li < c->n_layouts; li++)
            for (int pj = 0; pj < c->n_passes; pj++) {
                const rs_problem_t p = rs_setup_problem(c, li, pj);
                rs_exec_estimate(&p, &e->a.o, &est);
                rs_estimate_then(&sum, &est);
            }
        if (rs_limits_check("this run", &sum, &c->limits, &err) != 0) rc = rs_cli_usage("exec", loud, &err);
    }
    if (rc < 0 && loud && c->note[0]) fprintf(stderr, "ringsim exec: note: %s\n", c->note);
    if (rc < 0) rc = start_ranks(e, under_mpi, &argc, &argv);
    if (rc >= 0) {
        free(e);
        return rc;
    }
    const rs_problem_t *p = &c->problem;
    if (e->rank == 0 && (p->cached_tokens > 0 || rs_problem_passes_q(p)))
        printf("# inference: %s, %lld cached tokens per sequence%s\n", rs_ring_name(p->ring), (long long)p->cached_tokens,
               p->decode ? ", decode (one new token per sequence)" : "");
    if (e->rank == 0)
        printf("# ringsim exec: S=%lld N=%lld B=%lld batch=%lld heads=%lld/%lld d=%lld %s %s, reps %d (warmup %d)\n"
               "# %-10s %-8s %12s %12s %12s %12s %10s %s\n",
               (long long)p->seq_tokens, (long long)p->n_ranks, (long long)rs_problem_block(p), (long long)p->batch,
               (long long)p->q_heads, (long long)p->kv_heads, (long long)p->head_dim, p->causal ? "causal" : "non-causal",
               e->cops->dtype_name, e->a.o.reps, e->a.o.warmup, "layout", "pass", "t_comp_s", "t_comm_s", "t_step_s",
               "makespan_s", "GFLOP/s/rk", "check");
    rc = RS_EXIT_OK;
    for (int li = 0; li < c->n_layouts && rc == RS_EXIT_OK; li++)
        for (int pj = 0; pj < c->n_passes && rc == RS_EXIT_OK; pj++) rc = run_entry(e, li, pj);
    if (e->rank == 0 && !e->failed) {
        printf("# compute: %s\n# transport: %s\n", e->cdesc, e->tdesc);
        fflush(stdout);
    }
    /* every rank learns rank 0's verdict through the exit code of mpirun: rank 0 exits with it */
    if (e->tops && !e->failed) e->tops->destroy(e->ts);
    free(e);
    return rc;
}

#endif
