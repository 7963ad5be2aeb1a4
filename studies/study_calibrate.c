/* study_calibrate.c - the calibration study (study_calibrate.h). */
#include "study_calibrate.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "calibrate_kernels.h" /* the executor measures the kernel table (rank 0) */
#include "exec_launch.h"      /* how many processes the launcher started */
#include "registry.h"
#include "output.h"
#include "setup.h"

void rs_measure_defaults(const char *subcommand, const rs_backend_ops_t **backend, rs_problem_t *problem, rs_dtype_t *dtype,
                         rs_exec_spmd_t *job) {
    *backend = rs_backend_find("cpu");
    rs_setup_measure_problem(problem);
    *dtype = RS_DTYPE_FP32;
    *job = (rs_exec_spmd_t){subcommand, problem->n_ranks, NULL, RS_PROGRESS_POLL, NULL, RS_DTYPE_FP32, NULL, NULL};
}

int rs_measure_check(const rs_backend_ops_t *backend, const rs_problem_t *problem, rs_dtype_t dtype, rs_exec_spmd_t *job,
                     rs_err_t *err) {
    job->n_ranks = problem->n_ranks;
    job->dtype = dtype;
    if (rs_exec_spmd_check(backend->exec, job, problem->grad_bytes, err) < 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    const int env_size = rs_exec_env_size();
    if (env_size > 0 && problem->n_ranks != env_size)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--ranks %lld: mpirun started %d processes; they must agree",
                       (long long)problem->n_ranks, env_size);
    return 0;
}

int rs_measure_run(const rs_backend_ops_t *backend, const rs_exec_spmd_t *job, int (*body)(const rs_exec_job_t *, void *),
                   void *arg, rs_err_t *err) {
    rs_err_clear(err);
    const int status = rs_exec_spmd(backend->exec, job, body, arg);
    if (status == RS_EXIT_OK) return 0;
    err->code = status == RS_EXIT_USAGE ? RS_ERR_BAD_INPUT : RS_ERR_RUNTIME; /* the ranks printed what failed */
    return -1;
}

void rs_calibrate_defaults(rs_calibrate_in_t *in) {
    memset(in, 0, sizeof *in);
    rs_measure_defaults("calibrate", &in->backend, &in->problem, &in->dtype, &in->job);
    rs_calib_opts_default(&in->calib);
    in->out = stdout;
}

int rs_calibrate_finish(rs_calibrate_in_t *in, rs_err_t *err) {
    return rs_measure_check(in->backend, &in->problem, in->dtype, &in->job, err);
}

/* The kernel table of this backend (calibrate_kernels.h) on rank 0 alone, into the profile: the block
 * sizes of the calibration (at most RS_KMAX_POINTS, the largest), a quarter of its time per point, in
 * the backend's compute dtype. One block size: no curve (the profile keeps the dense model). Returns
 * 0 or -1 with err (a runtime failure). */
static int calib_kernels(const rs_calibrate_in_t *j, const rs_exec_job_t *job, const rs_problem_t *p, rs_hw_t *hw,
                         rs_err_t *err) {
    rs_calib_kernel_opts_t ko = {.min_time_s = j->calib.min_time_s / 4, .min_reps = 3, .dtype = j->dtype};
    snprintf(ko.name, sizeof ko.name, "ringsim-%s", job->be->name);
    const int skip = j->calib.n_blocks > RS_KMAX_POINTS ? j->calib.n_blocks - RS_KMAX_POINTS : 0;
    for (int i = skip; i < j->calib.n_blocks; i++) ko.blocks[ko.n_blocks++] = j->calib.blocks[i];
    if (ko.n_blocks < 2) return 0;
    if (rs_calib_kernel_table(p, job->cops, job->local_rank, &ko, &hw->kernels, err) < 0) return rs_err_mark(err, RS_ERR_RUNTIME);
    rs_calib_kernel_print(&hw->kernels, j->out);
    return 0;
}

/* The SPMD body (rs_exec_spmd runs it on every rank): calibrate, and on rank 0 write the profile and
 * read it back. Returns the rank's exit code (RS_EXIT_*), its errors printed here. */
static int calib_body(const rs_exec_job_t *job, void *arg) {
    const rs_calibrate_in_t *j = arg;
    rs_calib_t c;
    rs_err_t err = {0};
    const int64_t rank = job->rank;
    rs_problem_t p = j->problem;
    if (job->be->kernel_tile) job->be->kernel_tile(p.pass, p.head_dim, &p.tile_q, &p.tile_k);
    rs_calib_opts_t co = j->calib; /* MPI moving data only inside the compute's polls: the poll model too */
    co.polled = !strcmp(job->launch, "mpirun") && j->job.progress == RS_PROGRESS_POLL;
    if (rs_calibrate(&p, job, &co, &c, &err) < 0) {
        fprintf(stderr, "ringsim calibrate: rank %lld: %s\n", (long long)rank, err.msg);
        return RS_EXIT_FAIL;
    }
    if (rank != 0) return 0;
    char name[RS_NAME_LEN], note[256], date[32];
    struct utsname u;
    if (uname(&u) != 0) snprintf(u.nodename, sizeof u.nodename, "host");
    snprintf(name, sizeof name, "%s", j->name);
    if (!j->name[0]) snprintf(name, sizeof name, "%s-%.40s", job->be->name, u.nodename);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", gmtime(&now));
    const char *kernel = job->be->compute_for(RS_DTYPE_FP32) ? rs_exec_blas_version() : job->cops->name;
    /* threads, loopback, or the MPI progress mode */
    const char *mode = strcmp(job->launch, "mpirun") ? job->launch : rs_progress_name(j->job.progress);
    snprintf(note, sizeof note, "ringsim calibrate %s UTC, %lld ranks, %s; %.80s; transport %.60s", date,
             (long long)job->n_ranks, mode, kernel, job->tops->describe(job->ts));
    fprintf(j->out, "# ringsim calibrate: %lld ranks, heads %lld/%lld, d %lld, %s pass\n# %s\n", (long long)job->n_ranks,
           (long long)p.q_heads, (long long)p.kv_heads, (long long)p.head_dim, rs_pass_name(p.pass), note);
    char why[512];
    if (job->be->compute_for(RS_DTYPE_FP32) && rs_exec_blas_core_note(why, sizeof why)) {
        fprintf(j->out, "# warning: %s\n", why);
        fprintf(stderr, "ringsim calibrate: warning: %s\n", why);
    }
    rs_calib_print(&c, j->out);
    rs_hw_t hw;
    rs_calib_to_hw(&c, name, note, job->n_ranks, j->dtype, &hw);
    if (calib_kernels(j, job, &p, &hw, &err) < 0) {
        fprintf(stderr, "ringsim calibrate: %s\n", err.msg);
        return RS_EXIT_FAIL;
    }
    if (rs_hw_write_json(&hw, j->out_path, note, &err) < 0) {
        fprintf(stderr, "ringsim calibrate: %s\n", err.msg);
        return RS_EXIT_FAIL;
    }
    rs_hw_t back;
    char pending[4200]; /* the profile is committed at the end of the run: read it where it is now */
    if (rs_hw_load(rs_out_read_path(j->out_path, pending, sizeof pending), &back, &err) < 0) {
        fprintf(stderr, "ringsim calibrate: the profile written does not load back: %s\n", err.msg);
        return RS_EXIT_FAIL;
    }
    rs_machine_t mb;
    char ovd[RS_MAX_OVERLAP_POINTS * 24 + 160] = "";
    if (rs_machine_from_hw(&back, j->dtype, &mb, &err) == 0) rs_machine_overlap_desc(&mb, ovd, sizeof ovd);
    fprintf(j->out, "# profile %s: F_peak(%s) %.4g GFLOP/s, %d efficiency points, W %.4g GB/s, L %.3g s; %s\n", j->out_path,
           rs_dtype_name(j->dtype), back.flops_per_s[j->dtype] * 1e-9, back.cal.n_eff, back.intra.bw_bytes_per_s * 1e-9,
           back.intra.latency_s, ovd);
    fflush(j->out);
    return 0;
}

int rs_study_calibrate(const rs_calibrate_in_t *in, rs_err_t *err) {
    return rs_measure_run(in->backend, &in->job, calib_body, (void *)in, err);
}
