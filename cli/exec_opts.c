/* exec_opts.c - the executors' options and a measuring study's command line (exec_opts.h). */
#ifdef RINGSIM_HAVE_EXEC
#include "exec_opts.h"

#include <stddef.h>
#include <stdio.h>

#include "command_run.h"
#include "exec_launch.h"
#include "registry.h"
#include "shared_opts.h"

static int parse_progress(void *dst, const char *arg, rs_err_t *err) {
    if (rs_progress_parse(arg, &((rs_cli_exec_t *)dst)->job.progress) < 0)
        return rs_errf(err, "--progress %s: expected none, poll or thread", arg);
    return 0;
}

#define X(field) offsetof(rs_cli_exec_t, field)
const rs_opt_t rs_cli_exec_opts[] = {
    {"backend", 0, "cpu|gpu", "cpu", "the executor: CPU (MPI + OpenBLAS) or GPU (NCCL + CUDA)", RS_ARG_STRING, X(backend), 0, 0,
     NULL, NULL, "Execution:"},
    {"launch", 0, "L", "mpirun if on PATH",
     "mpirun|threads: ranks as MPI processes (re-started under\nmpirun when not already) or as threads of this process",
     RS_ARG_CHOICE, X(job.launch), 0, 0, "mpirun|threads", NULL, NULL},
    {"progress", 0, "P", "poll",
     "none|poll|thread: MPI progress while computing: none (data\nmoves in the wait after compute), poll (MPI_Testsome after\n"
     "every column chunk of the kernel), a progress thread",
     RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_progress, NULL},
    {"loopback", 0, "KIND", "off",
     "one device plays every rank of the ring in turn, its\ntransfers to itself: cpu: local (memcpy); gpu: nccl\n"
     "(ncclSend/Recv to itself) or copy (cudaMemcpyAsync)",
     RS_ARG_STRING, X(job.loopback), 0, 0, NULL, NULL, NULL},
};
#undef X

rs_opt_group_t rs_cli_exec_group(rs_cli_exec_t *x) {
    return (rs_opt_group_t){rs_cli_exec_opts, RS_OPTS_N(rs_cli_exec_opts), x, NULL, 0, false};
}

int rs_cli_exec_parse(const char *name, int argc, char **argv, rs_opt_group_t own, rs_cli_measure_t study,
                      rs_cli_exec_cmd_t *e) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    const rs_problem_t *p = study.problem;
    rs_exec_spmd_t *job = study.job;
    e->study = study;
    e->argc = argc, e->argv = argv;
    rs_setup_t *c = &e->c;
    rs_setup_default(c);
    c->problem = *p;
    rs_setup_dtype(c, RS_DTYPE_FP32);
    c->layouts[0] = p->layout;
    c->passes[0] = p->pass;
    const int env_size = rs_exec_env_size();
    if (env_size > 0) c->problem.n_ranks = env_size;
    e->launcher_size = env_size;
    e->loud = env_size <= 0 || rs_exec_env_rank() == 0;
    e->x = (rs_cli_exec_t){"cpu", *job};
    e->groups[0] = own, e->groups[1] = rs_cli_exec_group(&e->x), e->groups[2] = rs_cli_shared_group(c, NULL);
    const int rc = rs_cli_run_parse(name, argc, argv, e->groups, 3, e->loud);
    *job = e->x.job;
    return rc;
}

int rs_cli_exec_finish(rs_cli_exec_cmd_t *e, const int64_t *blocks, int n_blocks, rs_err_t *err) {
    rs_setup_t *c = &e->c;
    const rs_backend_ops_t **backend = e->study.backend;
    if (rs_backend_get(e->x.backend, true, backend, err) < 0) return -1;
    if (!rs_cli_given(&e->groups[2], "dtype")) rs_setup_dtype(c, (*backend)->exec->default_dtype); /* the executor's own */
    for (int i = 0; i < n_blocks; i++) {
        c->problem = rs_problem_with_block(&c->problem, blocks[i]);
        if (rs_setup_finish(c, err) < 0) return -1;
    }
    *e->study.problem = rs_setup_problem(c, 0, 0);
    *e->study.dtype = c->spec.dtype;
    e->study.job->argc = &e->argc, e->study.job->argv = &e->argv;
    return 0;
}
#endif
