/* common.c - the options every command shares, as one table (rs_cli_shared_opts): the problem, the
 * hardware profile and what is changed on it. They fill an rs_setup_t (studies/setup.h). */
#include <stddef.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifdef RINGSIM_HAVE_EXEC
#include "exec_launch.h"
#endif

/* "RANK:FACTOR" */
static int parse_pair(const char *flag, const char *arg, int64_t *idx, double *factor, rs_err_t *err) {
    const char *colon = strchr(arg, ':');
    if (!colon) return rs_errf(err, "%s %s: expected INDEX:FACTOR, e.g. 3:1.5", flag, arg);
    char head[64];
    size_t len = (size_t)(colon - arg);
    if (len == 0 || len >= sizeof head) return rs_errf(err, "%s %s: expected INDEX:FACTOR, e.g. 3:1.5", flag, arg);
    memcpy(head, arg, len);
    head[len] = 0;
    if (rs_parse_size(flag, head, 0, INT32_MAX, idx, err) != 0) return -1;
    return rs_parse_double(flag, colon + 1, 1e-6, 1e6, factor, err);
}

static int parse_layouts(void *dst, const char *arg, rs_err_t *err) {
    rs_setup_t *c = dst;
    if (!strcmp(arg, "all")) {
        c->n_layouts = RS_LAYOUT_COUNT;
        for (int i = 0; i < RS_LAYOUT_COUNT; i++) c->layouts[i] = (rs_layout_t)i;
        return 0;
    }
    char buf[128];
    snprintf(buf, sizeof buf, "%s", arg);
    c->n_layouts = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        rs_layout_t l;
        if (rs_layout_parse(tok, &l) != 0 || c->n_layouts >= RS_LAYOUT_COUNT)
            return rs_errf(err, "--layout %s: expected contiguous, striped, zigzag, a comma list of them, or all", arg);
        c->layouts[c->n_layouts++] = l;
    }
    if (c->n_layouts == 0) return rs_errf(err, "--layout %s: empty list", arg);
    return 0;
}

static int parse_passes(void *dst, const char *arg, rs_err_t *err) {
    rs_setup_t *c = dst;
    if (!strcmp(arg, "both") || !strcmp(arg, "all")) {
        c->n_passes = 2;
        c->passes[0] = RS_PASS_FORWARD;
        c->passes[1] = RS_PASS_BACKWARD;
        return 0;
    }
    rs_pass_t p;
    if (rs_pass_parse(arg, &p) != 0) return rs_errf(err, "--pass %s: expected forward, backward or both", arg);
    c->n_passes = 1;
    c->passes[0] = p;
    return 0;
}

static int parse_dtype(void *dst, const char *arg, rs_err_t *err) {
    rs_dtype_t dtype;
    if (rs_dtype_parse(arg, &dtype) != 0) return rs_errf(err, "--dtype %s: expected fp32, tf32, bf16, fp16 or fp8", arg);
    rs_setup_dtype(dst, dtype);
    return 0;
}

/* "T" or "TQxTK" */
static int parse_tile(void *dst, const char *arg, rs_err_t *err) {
    rs_problem_t *p = &((rs_setup_t *)dst)->problem;
    int64_t v;
    const char *x = strchr(arg, 'x');
    if (!x) {
        if (rs_parse_size("--tile", arg, 1, 1 << 20, &v, err)) return -1;
        p->tile_q = p->tile_k = v;
        return 0;
    }
    char head[32];
    size_t len = (size_t)(x - arg);
    if (len == 0 || len >= sizeof head) return rs_errf(err, "--tile %s: expected T or TQxTK, e.g. 128x64", arg);
    memcpy(head, arg, len);
    head[len] = 0;
    if (rs_parse_size("--tile", head, 1, 1 << 20, &p->tile_q, err)) return -1;
    return rs_parse_size("--tile", x + 1, 1, 1 << 20, &p->tile_k, err);
}

/* "S" or "S:S_PER_BYTE" */
static int parse_host_cost(void *dst, const char *arg, rs_err_t *err) {
    rs_machine_spec_t *m = &((rs_setup_t *)dst)->spec;
    char head[64];
    const char *colon = strchr(arg, ':');
    size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
    if (len == 0 || len >= sizeof head)
        return rs_errf(err, "--host-cost %s: expected S or S:S_PER_BYTE (seconds per transfer, per byte), e.g. 5e-6:5e-11", arg);
    memcpy(head, arg, len);
    head[len] = 0;
    if (rs_parse_double("--host-cost", head, 0, 10, &m->host_xfer, err)) return -1;
    m->host_byte = 0;
    return colon ? rs_parse_double("--host-cost (per byte)", colon + 1, 0, 1e-3, &m->host_byte, err) : 0;
}

static int parse_grad_bytes(void *dst, const char *arg, rs_err_t *err) {
    rs_setup_t *s = dst;
    s->grad_bytes_given = true;
    return rs_parse_size("--grad-bytes", arg, 1, 8, &s->problem.grad_bytes, err);
}

static int parse_impl(void *dst, const char *arg, rs_err_t *err) {
    rs_impl_t i;
    if (rs_impl_parse(arg, &i) != 0) return rs_errf(err, "--impl %s: expected ringsim, flash-attn, te or none", arg);
    ((rs_setup_t *)dst)->spec.impl = (int)i;
    return 0;
}

static int parse_seed(void *dst, const char *arg, rs_err_t *err) {
    int64_t v;
    if (rs_parse_size("--seed", arg, 0, INT64_MAX, &v, err)) return -1;
    ((rs_setup_t *)dst)->spec.seed = (uint64_t)v;
    return 0;
}

static int parse_straggler(void *dst, const char *arg, rs_err_t *err) {
    rs_perturb_t *q = &((rs_setup_t *)dst)->spec.perturb;
    if (q->n_stragglers >= RS_MAX_PERTURB) return rs_errf(err, "--straggler: at most %d", RS_MAX_PERTURB);
    if (parse_pair("--straggler", arg, &q->straggler_rank[q->n_stragglers], &q->straggler_factor[q->n_stragglers], err))
        return -1;
    q->n_stragglers++;
    return 0;
}

static int parse_degrade(void *dst, const char *arg, rs_err_t *err) {
    rs_perturb_t *q = &((rs_setup_t *)dst)->spec.perturb;
    if (q->n_degraded >= RS_MAX_PERTURB) return rs_errf(err, "--degrade: at most %d", RS_MAX_PERTURB);
    if (parse_pair("--degrade", arg, &q->degraded_hop[q->n_degraded], &q->degraded_factor[q->n_degraded], err)) return -1;
    q->n_degraded++;
    return 0;
}

#define P(field) offsetof(rs_setup_t, problem.field)
#define M(field) offsetof(rs_setup_t, spec.field)
const rs_opt_t rs_cli_shared_opts[] = {
    {"seq", 'S', "TOKENS", "128K", "total sequence length S", RS_ARG_SIZE, P(seq_tokens), 1, (double)UINT32_MAX, NULL, NULL,
     "Problem (sizes take K/M/G = powers of 1024):"},
    {"ranks", 'N', "N", "8", "ranks in the ring", RS_ARG_SIZE, P(n_ranks), 1, INT32_MAX, NULL, NULL, NULL},
    {"batch", 0, "B", "1", "sequences per step", RS_ARG_SIZE, P(batch), 1, 1 << 20, NULL, NULL, NULL},
    {"heads", 0, "H", "32", "query heads", RS_ARG_SIZE, P(q_heads), 1, 1 << 16, NULL, NULL, NULL},
    {"kv-heads", 0, "H", "8", "key/value heads (divides --heads)", RS_ARG_SIZE, P(kv_heads), 1, 1 << 16, NULL, NULL, NULL},
    {"head-dim", 0, "D", "128", "head dimension", RS_ARG_SIZE, P(head_dim), 1, 1 << 16, NULL, NULL, NULL},
    {"dtype", 0, "T", "bf16", "fp32|tf32|bf16|fp16|fp8: activations and the peak F used", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_dtype, NULL},
    {"grad-bytes", 0, "N", "the preset's, else 4", "bytes per dK,dV element in flight", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_grad_bytes, NULL},
    {"causal", 0, NULL, "causal", "causal mask", RS_ARG_TRUE, P(causal), 0, 0, NULL, NULL, NULL},
    {"no-causal", 0, NULL, NULL, "no mask: every token sees every token", RS_ARG_FALSE, P(causal), 0, 0, NULL, NULL, NULL},
    {"layout", 'L', "L", "command default", "contiguous|striped|zigzag, comma list, or all", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_layouts, NULL},
    {"pass", 'P', "P", "command default", "forward|backward|both", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_passes, NULL},
    {"tile", 0, "T|TQxTK", "128", "kernel tile for executed FLOPs", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_tile, NULL},
    {"profile", 'p', "NAME|FILE", "h100-sxm", "device profile (ringsim profiles lists them)", RS_ARG_BUF, M(profile), 0,
     sizeof(((rs_machine_spec_t *)0)->profile), NULL, NULL, "Hardware (rates take SI suffixes: 450G = 450e9):"},
    {"inter", 0, "NAME|FILE", "the profile's", "inter-node tier preset (ib-ndr, roce-400g, ...)", RS_ARG_BUF, M(inter), 0,
     sizeof(((rs_machine_spec_t *)0)->inter), NULL, NULL, NULL},
    {"gpus-per-node", 0, "G", "the profile's", "devices per node; 0 = one flat ring", RS_ARG_SIZE, M(gpus_per_node), 0,
     INT32_MAX, NULL, NULL, NULL},
    {"flops", 0, "F", "the profile's", "peak FLOP/s for --dtype", RS_ARG_DOUBLE, M(flops), 1, 1e20, NULL, NULL, NULL},
    {"bw", 0, "W", "the profile's", "intra-node hop bandwidth, bytes/s per direction", RS_ARG_DOUBLE, M(bw), 1, 1e16, NULL,
     NULL, NULL},
    {"inter-bw", 0, "W", "the profile's", "inter-node hop bandwidth", RS_ARG_DOUBLE, M(inter_bw), 1, 1e16, NULL, NULL, NULL},
    {"latency", 0, "S", "the profile's", "per-message latency of every tier, s", RS_ARG_DOUBLE, M(latency), 0, 10, NULL,
     NULL, NULL},
    {"impl", 0, "NAME", "the profile's", "ring implementation preset costing the steps: ringsim|flash-attn|te|none\n"
     "(none: the dense peak F x eff(B); --flops alone implies it)", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_impl, NULL},
    {"kernel", 0, "NAME", "the preset's", "the profile's kernel whose curves rate the calls", RS_ARG_BUF, M(kernel), 0,
     sizeof(((rs_machine_spec_t *)0)->kernel), NULL, NULL, NULL},
    {"launch-overhead", 0, "S", "the profile's, else 0", "per-step (kernel) launch overhead, s", RS_ARG_DOUBLE, M(launch),
     0, 10, NULL, NULL, NULL},
    {"overlap", 0, "ETA", "1", "transfer progress rate while computing, [0,1]", RS_ARG_DOUBLE, M(overlap), 0, 1, NULL, NULL,
     NULL},
    {"slowdown", 0, "SIGMA", "1", "compute slowdown while a transfer is in flight, >= 1", RS_ARG_DOUBLE, M(slowdown), 1,
     1e6, NULL, NULL, NULL},
    {"host-cost", 0, "S[:S_PER_BYTE]", "the profile's, else 0",
     "compute time a rank loses per transfer it receives\n(and per byte: a CPU-driven copy) in a step", RS_ARG_CUSTOM, 0,
     0, 0, NULL, parse_host_cost, NULL},
    {"jitter", 0, "J", "0", "compute time x (1 + J*(2u-1)), u seeded per (rank, step)", RS_ARG_DOUBLE, M(jitter), 0, 0.99,
     NULL, NULL, NULL},
    {"seed", 0, "N", "1", "jitter seed", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_seed, NULL},
    {"straggler", 0, "R:F", "none", "rank R computes F times slower (repeatable)", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_straggler, NULL},
    {"degrade", 0, "H:F", "none", "hop H -> H+1 has 1/F of its bandwidth (repeatable)", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_degrade, NULL},
};
const int rs_cli_shared_n = RS_OPTS_N(rs_cli_shared_opts);
#undef P
#undef M

/* "16,32,1K": increasing sizes in [min, max], min_n..max_n of them. */
int rs_cli_parse_sizes(const char *name, const char *arg, int64_t min, int64_t max, int min_n, int max_n, int64_t *out,
                       int *n_out, rs_err_t *err) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", arg);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (n >= max_n) return rs_errf(err, "%s %s: at most %d sizes", name, arg, max_n);
        if (rs_parse_size(name, tok, min, max, &v, err) < 0) return -1;
        if (n && v <= out[n - 1]) return rs_errf(err, "%s %s: sizes must increase", name, arg);
        out[n++] = v;
    }
    if (n == 0 && min_n <= 1) return rs_errf(err, "%s %s: empty list", name, arg);
    if (n < min_n) return rs_errf(err, "%s %s: give at least %d sizes", name, arg, min_n);
    *n_out = n;
    return 0;
}

#ifdef RINGSIM_HAVE_EXEC
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
    return (rs_opt_group_t){rs_cli_exec_opts, RS_OPTS_N(rs_cli_exec_opts), x, NULL, 0};
}

int rs_cli_exec_parse(const char *name, int argc, char **argv, rs_opt_group_t own, const rs_problem_t *p,
                      rs_exec_spmd_t *job, rs_cli_exec_cmd_t *e) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    rs_setup_t *c = &e->c;
    rs_setup_default(c);
    c->problem = *p;
    rs_setup_dtype(c, RS_DTYPE_FP32);
    c->layouts[0] = p->layout;
    c->passes[0] = p->pass;
    const int env_size = rs_exec_env_size();
    if (env_size > 0) c->problem.n_ranks = env_size;
    e->loud = env_size <= 0 || rs_exec_env_rank() == 0;
    e->x = (rs_cli_exec_t){"cpu", *job};
    e->groups[0] = own, e->groups[1] = rs_cli_exec_group(&e->x), e->groups[2] = rs_cli_shared_group(c, NULL);
    const int rc = rs_cli_run_parse(name, argc, argv, e->groups, 3, e->loud);
    *job = e->x.job;
    return rc;
}

int rs_cli_exec_finish(rs_cli_exec_cmd_t *e, const int64_t *blocks, int n_blocks, const rs_backend_ops_t **backend,
                       rs_problem_t *problem, rs_dtype_t *dtype, rs_exec_spmd_t *job, int *argc, char ***argv, rs_err_t *err) {
    rs_setup_t *c = &e->c;
    if (rs_backend_get(e->x.backend, true, backend, err) < 0) return -1;
    if (!rs_cli_given(&e->groups[2], "dtype")) rs_setup_dtype(c, (*backend)->exec->default_dtype); /* the executor's own */
    for (int i = 0; i < n_blocks; i++) {
        c->problem = rs_problem_with_block(&c->problem, blocks[i]);
        if (rs_cli_setup_finish(c, err) < 0) return -1;
    }
    *problem = rs_setup_problem(c, 0, 0);
    *dtype = c->spec.dtype;
    job->argc = argc, job->argv = argv;
    return 0;
}
#endif

int rs_cli_setup_finish(rs_setup_t *s, rs_err_t *err) {
    if (rs_setup_finish(s, err) != 0) return -1;
    if (s->kernel_notes[0]) fprintf(stderr, "ringsim: note: %s\n", s->kernel_notes); /* the curves' fallbacks, once */
    return 0;
}

rs_opt_group_t rs_cli_shared_group(rs_setup_t *s, const char *skip) {
    return (rs_opt_group_t){rs_cli_shared_opts, rs_cli_shared_n, s, skip, 0};
}

rs_opt_group_t rs_cli_problem_group(rs_setup_t *s) {
    int n = 0;
    while (n < rs_cli_shared_n && strcmp(rs_cli_shared_opts[n].name, "profile") != 0) n++; /* the hardware's first */
    return (rs_opt_group_t){rs_cli_shared_opts, n, s, NULL, 0};
}

int rs_cli_command_parse(const rs_command_t *cmd, int argc, char **argv, rs_opt_group_t *groups, int n_groups,
                         rs_err_t *err) {
    int rc = rs_cli_parse(cmd->name, argc, argv, groups, n_groups, err);
    if (rc == 0 && cmd->max_args >= 0 && argc - optind > cmd->max_args)
        rc = rs_errf(err, "unexpected argument '%s' (see ringsim %s --help)", argv[optind + cmd->max_args], cmd->name);
    return rc;
}

int rs_cli_run_parse(const char *name, int argc, char **argv, rs_opt_group_t *groups, int n_groups, bool loud) {
    const rs_command_t *cmd = rs_cli_command(name);
    rs_err_t err = {{0}};
    int rc = rs_cli_command_parse(cmd, argc, argv, groups, n_groups, &err);
    if (rc == 1) {
        if (loud) {
            fputs(cmd->usage, stdout);
            rs_cli_print_opts(stdout, groups, n_groups);
            if (cmd->notes) printf("\n%s", cmd->notes);
        }
        return RS_EXIT_OK;
    }
    if (rc < 0) {
        if (loud) fprintf(stderr, "ringsim %s: %s\n", cmd->name, err.msg);
        return RS_EXIT_USAGE;
    }
    return -1;
}

int rs_cli_write_json(const char *path, void *root, rs_err_t *err) {
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (!text) return rs_errf(err, "out of memory");
    int rc = 0;
    if (!strcmp(path, "-")) {
        printf("%s\n", text);
    } else {
        rs_file_t f;
        rc = rs_file_open(&f, path, err);
        if (rc == 0) {
            fprintf(f.fp, "%s\n", text);
            rc = rs_file_commit(&f, err);
        }
    }
    free(text);
    return rc;
}

int rs_cli_usage(const char *name, bool loud, const rs_err_t *err) {
    if (loud) fprintf(stderr, "ringsim %s: %s\n", name, err->msg);
    return RS_EXIT_USAGE;
}

const char *rs_cli_command_line(char *buf, size_t len, int argc, char **argv) {
    snprintf(buf, len, "ringsim");
    for (int i = 0; i < argc && strlen(buf) + strlen(argv[i]) + 2 < len; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), " %s", argv[i]);
    return buf;
}

void rs_cli_entry_path(char *dst, size_t len, const char *path, const rs_problem_t *p, bool several) {
    if (!several) {
        snprintf(dst, len, "%s", path);
        return;
    }
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) dot = path + strlen(path);
    snprintf(dst, len, "%.*s-%s-%s%s", (int)(dot - path), path, rs_layout_name(p->layout), rs_pass_name(p->pass), dot);
}
