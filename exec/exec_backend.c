/* exec_backend.c - the executors behind the backend interface (exec_backend.h): SPMD jobs over a
 * launcher, threads or a loopback; `ringsim exec` as a subprocess; the CPU executor's tables. */
#include "exec_backend.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec_launch.h"
#include "output.h"
#include "subprocess.h"

/* ---------------------------------------------------------------------------------------------------
 * Checks
 * ------------------------------------------------------------------------------------------------- */
static bool kind_known(const char *kinds, const char *kind) {
    const size_t n = strlen(kind);
    for (const char *k = kinds; k && *k;) {
        const size_t m = strcspn(k, "|");
        if (m == n && strncmp(k, kind, n) == 0) return true;
        k += m + (k[m] == '|');
    }
    return false;
}

int rs_exec_can_run(const rs_exec_backend_t *be, const rs_problem_t *p, const rs_machine_t *m, rs_err_t *why) {
    (void)m;
    const rs_compute_ops_t *cops = be->compute_for(be->default_dtype);
    for (int d = 0; d < RS_DTYPE_COUNT; d++) /* the dtype of the problem's activations that be computes in */
        if (rs_dtype_bytes((rs_dtype_t)d) == p->act_bytes && be->compute_for((rs_dtype_t)d)) cops = be->compute_for((rs_dtype_t)d);
    if (!cops || cops->act_bytes != p->act_bytes)
        return rs_errf(why, "the %s executor computes in %s (problem: %lld-byte activations)", be->name,
                       cops ? cops->dtype_name : "?", (long long)p->act_bytes);
    if (p->grad_bytes != 4)
        return rs_errf(why, "the %s executor moves dK,dV in fp32 (problem: %lld-byte gradients)", be->name,
                       (long long)p->grad_bytes);
    return 0;
}

int rs_exec_spmd_check(const rs_exec_backend_t *be, const rs_exec_spmd_t *o, int64_t grad_bytes, rs_err_t *err) {
    const rs_compute_ops_t *cops = be->compute_for(o->dtype);
    if (!cops) {
        const rs_compute_ops_t *def = be->compute_for(be->default_dtype);
        return rs_errc(err, RS_ERR_BAD_INPUT, "--dtype %s: the %s executor computes in %s (use --dtype %s)", rs_dtype_name(o->dtype), be->name,
                       def ? def->dtype_name : "?", def ? def->dtype_name : "?");
    }
    if (grad_bytes != 4) return rs_errc(err, RS_ERR_BAD_INPUT, "--grad-bytes %lld: dK,dV travel in fp32 here", (long long)grad_bytes);
    if (o->loopback) {
        if (!kind_known(be->loopback_kinds, o->loopback))
            return rs_errc(err, RS_ERR_BAD_INPUT, "--loopback %s: expected %s with --backend %s", o->loopback, be->loopback_kinds, be->name);
        if (rs_exec_env_size() > 0 || (o->launch && strcmp(o->launch, "mpirun") == 0))
            return rs_errc(err, RS_ERR_BAD_INPUT, "--loopback %s: one process plays every rank in turn (not under mpirun)", o->loopback);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------------
 * SPMD jobs
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    int (*body)(const rs_exec_job_t *job, void *arg); /* the SPMD body */
    void *arg;                                         /* its argument */
    rs_exec_job_t job;                                 /* this rank */
    int rc;                                            /* the body's return */
} spmd_thread_t;

static void *spmd_thread(void *p) {
    spmd_thread_t *a = p;
    a->rc = a->body(&a->job, a->arg);
    if (a->rc != 0) a->job.tops->abort(a->job.ts, 1); /* the others must not wait for this rank */
    return NULL;
}

/* n ranks as threads of this process over be's world transport; rank 0's return. */
static int spmd_threads(const rs_exec_backend_t *be, const rs_exec_spmd_t *o, const rs_exec_job_t *proto,
                        int (*body)(const rs_exec_job_t *, void *), void *arg, rs_err_t *err) {
    const int64_t n = o->n_ranks;
    void **tss = calloc((size_t)n, sizeof *tss);
    spmd_thread_t *a = calloc((size_t)n, sizeof *a);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    void *world = tss && a && th ? be->world_create(n, tss, err) : NULL;
    if (!world) {
        if (!tss || !a || !th) rs_errf(err, "out of memory for %lld ranks", (long long)n);
        free(tss), free(a), free(th);
        return -1;
    }
    int64_t started = 0;
    for (; started < n; started++) {
        a[started] = (spmd_thread_t){body, arg, *proto, 0};
        a[started].job.tops = be->world_ops, a[started].job.ts = tss[started];
        a[started].job.rank = started, a[started].job.local_rank = (int)started;
        if (pthread_create(&th[started], NULL, spmd_thread, &a[started]) != 0) break;
    }
    if (started < n && started > 0) be->world_ops->abort(tss[0], 1);
    for (int64_t i = 0; i < started; i++) pthread_join(th[i], NULL);
    int rc = started < n ? rs_errf(err, "could not start %lld threads", (long long)n) : a[0].rc;
    be->world_free(world, tss, n);
    free(tss), free(a), free(th);
    return rc;
}

/* One thread: this device plays rank 0 of the ring alone. */
static int spmd_loopback(const rs_exec_backend_t *be, const rs_exec_spmd_t *o, rs_exec_job_t *job,
                         int (*body)(const rs_exec_job_t *, void *), void *arg, rs_err_t *err) {
    job->ts = be->loopback_create(0, o->n_ranks, o->loopback, err);
    if (!job->ts) return -1;
    job->tops = be->loopback_ops;
    job->n_procs = 1;
    job->loopback = o->loopback;
    job->launch = "loopback";
    int rc = body(job, arg);
    be->loopback_ops->destroy(job->ts);
    return rc;
}

/* This process is one rank of a job started by a launcher. */
static int spmd_mpi(const rs_exec_backend_t *be, const rs_exec_spmd_t *o, rs_exec_job_t *job,
                    int (*body)(const rs_exec_job_t *, void *), void *arg, rs_err_t *err) {
    if (!be->mpi_create) return rs_errf(err, "this build has no MPI; use --launch threads");
    job->local_rank = rs_exec_env_local_rank();
    job->ts = be->mpi_create(o->argc, o->argv, o->progress, job->local_rank, err);
    if (!job->ts) return -1;
    job->tops = be->mpi_ops;
    job->rank = job->tops->rank(job->ts);
    job->launch = "mpirun";
    int rc = body(job, arg);
    if (rc != 0) job->tops->abort(job->ts, rc);
    job->tops->destroy(job->ts);
    return rc;
}

int rs_exec_spmd(const rs_exec_backend_t *be, const rs_exec_spmd_t *o, int (*body)(const rs_exec_job_t *job, void *arg),
                 void *arg) {
    rs_err_t err = {0};
    rs_exec_job_t job = {.be = be, .cops = be->compute_for(o->dtype), .n_ranks = o->n_ranks, .n_procs = o->n_ranks,
                         .launch = "threads"};
    const bool under_mpi = rs_exec_env_size() > 0;
    const bool threads = o->launch && strcmp(o->launch, "threads") == 0;
    const bool relaunch = !under_mpi && !threads && o->n_ranks > 1; /* this process is not a rank */
    int rc;
    if (o->loopback) {
        rc = spmd_loopback(be, o, &job, body, arg, &err);
    } else if (relaunch && rs_exec_have_mpirun()) {
        rc = rs_exec_mpirun(o->n_ranks, *o->argc, *o->argv, o->subcommand, &err); /* its exit status */
    } else if (relaunch && o->launch) {
        rc = rs_errc(&err, RS_ERR_BAD_INPUT, "--launch mpirun: mpirun not found (use --launch threads)");
    } else if (!under_mpi || threads || o->n_ranks == 1) {
        rc = spmd_threads(be, o, &job, body, arg, &err);
    } else {
        rc = spmd_mpi(be, o, &job, body, arg, &err);
    }
    if (rc < 0) {
        fprintf(stderr, "ringsim %s: %s\n", o->subcommand, err.msg);
        return rs_err_exit_code(&err);
    }
    return rc;
}

/* A loopback state for rs_exec_run_loopback: {backend, kind}. */
typedef struct {
    const rs_exec_backend_t *be;
    const char *kind;
    int64_t n;
} loop_make_t;

static void *loop_make(void *arg, int64_t rank, rs_err_t *err) {
    const loop_make_t *lm = arg;
    return lm->be->loopback_create(rank, lm->n, lm->kind, err);
}

int rs_exec_job_run(const rs_exec_job_t *job, const rs_schedule_t *s, const rs_exec_opts_t *o, rs_trace_t *trace,
                    rs_exec_result_t *res, rs_err_t *err) {
    if (!job->loopback) return rs_exec_run(s, &(rs_exec_backends_t){job->cops, job->tops, job->ts, job->local_rank}, o, trace, res, err);
    loop_make_t lm = {job->be, job->loopback, rs_schedule_problem(s)->n_ranks};
    const rs_exec_loopback_t lb = {job->cops, job->be->loopback_ops, loop_make, &lm, NULL, 0};
    return rs_exec_run_loopback(s, &lb, o, trace, res, err);
}

/* ---------------------------------------------------------------------------------------------------
 * `ringsim exec` as a subprocess
 * ------------------------------------------------------------------------------------------------- */
/* The launcher's own variables: a subprocess started inside an MPI rank is not that rank. */
static const char *const launcher_env[] = {"OMPI_", "PMI_", "PMIX_", "MPI_LOCALRANKID", NULL};

int rs_exec_subprocess_run(const rs_exec_backend_t *be, const rs_schedule_t *s, const rs_backend_opts_t *o,
                           rs_trace_t *trace, rs_run_summary_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    char self[1024];
    const char *bin = o && o->exec_bin && *o->exec_bin ? o->exec_bin : NULL;
    if (!bin) {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) return rs_errf(err, "exec skipped: cannot find the ringsim binary");
        self[n] = 0;
        bin = self;
    }
    /* the child's trace, in a registered temporary folder of this run: removed at the end, on a signal,
     * or by a later run once this PID is gone (output.h) */
    char dir[PATH_MAX], trace_path[PATH_MAX + 16];
    if (rs_out_tmpdir("sweep-exec", dir, sizeof dir, err) != 0) return rs_errf(err, "exec skipped: %.900s", err->msg);
    snprintf(trace_path, sizeof trace_path, "%s/trace.csv", dir);
    const rs_problem_t *p = rs_schedule_problem(s);
    char a[19][80];
    int k = 0;
    snprintf(a[k++], 80, "--backend=%s", be->name);
    snprintf(a[k++], 80, "--launch=%s", o && o->exec_launch && *o->exec_launch ? o->exec_launch : "mpirun");
    snprintf(a[k++], 80, "--seq=%lld", (long long)p->seq_tokens);
    snprintf(a[k++], 80, "--ranks=%lld", (long long)p->n_ranks);
    snprintf(a[k++], 80, "--batch=%lld", (long long)p->batch);
    snprintf(a[k++], 80, "--heads=%lld", (long long)p->q_heads);
    snprintf(a[k++], 80, "--kv-heads=%lld", (long long)p->kv_heads);
    snprintf(a[k++], 80, "--head-dim=%lld", (long long)p->head_dim);
    snprintf(a[k++], 80, "--layout=%s", rs_layout_name(p->layout));
    snprintf(a[k++], 80, "--pass=%s", p->decode ? "decode" : rs_pass_name(p->pass));
    snprintf(a[k++], 80, "--ring=%s", rs_ring_name(p->ring));
    snprintf(a[k++], 80, "--cached=%lld", (long long)p->cached_tokens);
    snprintf(a[k++], 80, "%s", p->causal ? "--causal" : "--no-causal");
    snprintf(a[k++], 80, "--tile=%lldx%lld", (long long)p->tile_q, (long long)p->tile_k);
    snprintf(a[k++], 80, "--dtype=%s", p->act_bytes == 4 ? "fp32" : (p->act_bytes == 1 ? "fp8" : "bf16"));
    char trace_arg[PATH_MAX + 32];
    snprintf(trace_arg, sizeof trace_arg, "--trace=%s", trace_path);
    char *argv[24] = {(char *)bin, "exec"};
    for (int i = 0; i < k; i++) argv[2 + i] = a[i];
    argv[2 + k] = trace_arg;
    argv[3 + k] = NULL;
    rs_spawn_t sp;
    rs_spawn_init(&sp);
    sp.argv = argv;
    sp.stdin_fd = sp.stdout_fd = sp.stderr_fd = RS_SPAWN_NULL;
    const double timeout = o ? o->timeout_s : 0;
    sp.new_group = true; /* a watchdog (the timeout, or the child bound) ends mpirun and its ranks together */
    sp.drop_env = launcher_env;
    rs_child_status_t st;
    int rc = -1;
    if (rs_spawn_run(&sp, "ringsim exec", timeout, &st, err) == 0) {
        if (st.exit_code == 0) {
            rs_err_t e;
            rs_trace_t *t = rs_trace_read_csv(trace_path, &e);
            if (!t) {
                rs_errc(err, e.code, "exec trace unusable: %.200s", e.msg);
            } else {
                rc = 0;
                for (size_t i = 0; rc == 0 && trace && i < rs_trace_meta_count(t); i++) {
                    const char *key, *val;
                    rs_trace_meta_at(t, i, &key, &val);
                    if (strcmp(key, "source") != 0 && rs_trace_set_meta(trace, key, "%s", val) != 0) rc = -1;
                }
                for (size_t i = 0; rc == 0 && trace && i < rs_trace_count(t); i++)
                    if (rs_trace_add(trace, &rs_trace_events(t)[i]) != 0) rc = -1;
                if (rc != 0) rs_errf(err, "exec: out of memory");
                out->makespan_s = rs_trace_makespan(t);
                for (size_t i = 0; i < rs_trace_count(t); i++)
                    if (rs_trace_events(t)[i].kind == RS_EV_COMPUTE) out->flops_exec += (uint64_t)rs_trace_events(t)[i].flops;
                out->wall_s = st.wall_s;
                rs_trace_free(t);
            }
        } else {
            char how[64];
            rs_errf(err, "exec failed (ringsim exec --launch=%s %s)", o && o->exec_launch && *o->exec_launch ? o->exec_launch : "mpirun",
                    rs_child_status_text(&st, timeout, how, sizeof how));
        }
    }
    rs_out_tmpdir_remove(dir);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------
 * The CPU executor
 * ------------------------------------------------------------------------------------------------- */
static const rs_compute_ops_t *cpu_compute_for(rs_dtype_t dtype) {
    return dtype == RS_DTYPE_FP32 ? &rs_cpu_compute_ops : NULL;
}

#ifdef RINGSIM_HAVE_MPI
static void *cpu_mpi_create(int *argc, char ***argv, rs_progress_t progress, int local_rank, rs_err_t *err) {
    (void)local_rank;
    return rs_mpi_transport_create(argc, argv, progress, err);
}
#endif

static void *cpu_world_create(int64_t n, void **tss, rs_err_t *err) {
    rs_local_world_t *w = rs_local_world_create(n, err);
    for (int64_t r = 0; w && r < n; r++) tss[r] = rs_local_world_rank(w, r);
    return w;
}

static void cpu_world_free(void *world, void **tss, int64_t n) {
    (void)tss, (void)n;
    rs_local_world_free(world);
}

static void *cpu_loopback_create(int64_t rank, int64_t n, const char *kind, rs_err_t *err) {
    (void)kind; /* "local": each receive is a copy of the send of the same tag */
    return rs_local_loopback_create(rank, n, err);
}

const rs_exec_backend_t rs_cpu_exec_backend = {
    .name = "cpu", .source = "exec-cpu", .default_dtype = RS_DTYPE_FP32, .loopback_kinds = "local", .no_host_calls = true,
    .compute_for = cpu_compute_for, .kernel_tile = NULL,
#ifdef RINGSIM_HAVE_MPI
    .mpi_ops = &rs_mpi_transport_ops, .mpi_create = cpu_mpi_create,
#endif
    .world_ops = &rs_local_transport_ops, .world_create = cpu_world_create, .world_free = cpu_world_free,
    .loopback_ops = &rs_local_transport_ops, .loopback_create = cpu_loopback_create,
};

void rs_exec_backend_estimate(const rs_problem_t *p, const rs_machine_t *m, int trace, rs_estimate_t *e) {
    (void)m, (void)trace;
    rs_exec_estimate(p, NULL, e);
}

/* deliberate twin of gpu_can_run and gpu_run (exec/gpu/gpu_backend.c): the backend interface's calls
 * carry no state, so each executor passes its own table to the shared functions */
static int cpu_can_run(const rs_problem_t *p, const rs_machine_t *m, rs_err_t *why) {
    return rs_exec_can_run(&rs_cpu_exec_backend, p, m, why);
}

static int cpu_run(const rs_schedule_t *s, const rs_machine_t *m, const rs_backend_opts_t *o, rs_trace_t *trace,
                   rs_run_summary_t *out, rs_err_t *err) {
    (void)m;
    return rs_exec_subprocess_run(&rs_cpu_exec_backend, s, o, trace, out, err);
}

const rs_backend_ops_t rs_cpu_backend = {
    .name = "cpu", .source = "exec-cpu", .can_run = cpu_can_run, .run = cpu_run, .exec = &rs_cpu_exec_backend,
    .estimate = rs_exec_backend_estimate,
};
