/* gpu_backend.c - the GPU executor (CUDA kernels + NCCL, gpu.h) behind the backend interface
 * (backend/backend.h, exec/exec_backend.h). Built only with the GPU backend (RINGSIM_HAVE_GPU);
 * it uses gpu.h's API and nothing inside it. */
#include "exec_backend.h"
#include "gpu.h"

#ifdef RINGSIM_HAVE_MPI
static void *gpu_mpi_create(int *argc, char ***argv, rs_progress_t progress, int local_rank, rs_err_t *err) {
    (void)progress; /* NCCL progresses on its own stream */
    return rs_nccl_transport_create(argc, argv, local_rank, err);
}
#endif

/* One thread per GPU: the communicators of GPUs 0..n-1 in one group. The handle is tss itself. */
static void *gpu_world_create(int64_t n, void **tss, rs_err_t *err) {
    return rs_nccl_world_create(n, tss, err) == 0 ? (void *)tss : NULL;
}

static void gpu_world_free(void *world, void **tss, int64_t n) {
    (void)world;
    rs_nccl_world_free(tss, n);
}

/* GPU 0 plays rank `rank` alone: NCCL send/recv to itself ("nccl") or device copies ("copy"). */
static void *gpu_loopback_create(int64_t rank, int64_t n, const char *kind, rs_err_t *err) {
    rs_gpu_loop_t how;
    if (rs_gpu_loop_parse(kind, &how) != 0) {
        rs_errf(err, "--loopback %s: expected nccl or copy", kind);
        return NULL;
    }
    return rs_nccl_loopback_create(rank, n, 0, how, err);
}

const rs_exec_backend_t rs_gpu_exec_backend = {
    .name = "gpu", .source = "exec-gpu", .default_dtype = RS_DTYPE_BF16, .loopback_kinds = "nccl|copy",
    .compute_for = rs_gpu_compute_ops_for, .kernel_tile = rs_gpu_kernel_tile,
#ifdef RINGSIM_HAVE_MPI
    .mpi_ops = &rs_nccl_transport_ops, .mpi_create = gpu_mpi_create,
#endif
    .world_ops = &rs_nccl_transport_ops, .world_create = gpu_world_create, .world_free = gpu_world_free,
    .loopback_ops = &rs_nccl_transport_ops, .loopback_create = gpu_loopback_create,
};

/* deliberate twin of cpu_can_run and cpu_run (exec/exec_backend.c): the backend interface's calls
 * carry no state, so each executor passes its own table to the shared functions */
static int gpu_can_run(const rs_problem_t *p, const rs_machine_t *m, rs_err_t *why) {
    if (rs_gpu_device_count() == 0) return rs_errf(why, "no GPU on this machine");
    return rs_exec_can_run(&rs_gpu_exec_backend, p, m, why);
}

static int gpu_run(const rs_schedule_t *s, const rs_machine_t *m, const rs_backend_opts_t *o, rs_trace_t *trace,
                   rs_run_summary_t *out, rs_err_t *err) {
    (void)m;
    return rs_exec_subprocess_run(&rs_gpu_exec_backend, s, o, trace, out, err);
}

const rs_backend_ops_t rs_gpu_backend = {
    .name = "gpu", .source = "exec-gpu", .can_run = gpu_can_run, .run = gpu_run, .exec = &rs_gpu_exec_backend,
    .estimate = rs_exec_backend_estimate,
};
