/* common.c - options shared by the subcommands: the problem, the hardware profile, the machine. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kernel.h"
#include "trace.h"

const struct option rs_cli_common_longopts[] = {
    {"seq", required_argument, NULL, RS_OPT_SEQ},
    {"ranks", required_argument, NULL, RS_OPT_RANKS},
    {"batch", required_argument, NULL, RS_OPT_BATCH},
    {"heads", required_argument, NULL, RS_OPT_HEADS},
    {"kv-heads", required_argument, NULL, RS_OPT_KV_HEADS},
    {"head-dim", required_argument, NULL, RS_OPT_HEAD_DIM},
    {"dtype", required_argument, NULL, RS_OPT_DTYPE},
    {"grad-bytes", required_argument, NULL, RS_OPT_GRAD_BYTES},
    {"causal", no_argument, NULL, RS_OPT_CAUSAL},
    {"no-causal", no_argument, NULL, RS_OPT_NO_CAUSAL},
    {"layout", required_argument, NULL, RS_OPT_LAYOUT},
    {"pass", required_argument, NULL, RS_OPT_PASS},
    {"tile", required_argument, NULL, RS_OPT_TILE},
    {"profile", required_argument, NULL, RS_OPT_PROFILE},
    {"inter", required_argument, NULL, RS_OPT_INTER},
    {"gpus-per-node", required_argument, NULL, RS_OPT_GPUS_PER_NODE},
    {"flops", required_argument, NULL, RS_OPT_FLOPS},
    {"bw", required_argument, NULL, RS_OPT_BW},
    {"inter-bw", required_argument, NULL, RS_OPT_INTER_BW},
    {"latency", required_argument, NULL, RS_OPT_LATENCY},
    {"launch-overhead", required_argument, NULL, RS_OPT_LAUNCH},
    {"overlap", required_argument, NULL, RS_OPT_OVERLAP},
    {"slowdown", required_argument, NULL, RS_OPT_SLOWDOWN},
    {"host-cost", required_argument, NULL, RS_OPT_HOST_COST},
    {"jitter", required_argument, NULL, RS_OPT_JITTER},
    {"seed", required_argument, NULL, RS_OPT_SEED},
    {"straggler", required_argument, NULL, RS_OPT_STRAGGLER},
    {"degrade", required_argument, NULL, RS_OPT_DEGRADE},
    {"impl", required_argument, NULL, RS_OPT_IMPL},
    {"kernel", required_argument, NULL, RS_OPT_KERNEL},
};
const int rs_cli_common_n_longopts = (int)(sizeof rs_cli_common_longopts / sizeof rs_cli_common_longopts[0]);

void rs_cli_common_init(rs_cli_common_t *c) {
    memset(c, 0, sizeof *c);
    rs_problem_default(&c->problem);
    c->n_layouts = 1;
    c->layouts[0] = RS_LAYOUT_ZIGZAG;
    c->n_passes = 1;
    c->passes[0] = RS_PASS_FORWARD;
    c->dtype = RS_DTYPE_BF16;
    snprintf(c->profile, sizeof c->profile, "h100-sxm");
    c->gpus_per_node = -1;
    c->latency_override = -1;
    c->launch_override = -1;
    c->overlap_override = -1;
    c->slowdown_override = -1;
    c->host_xfer_override = c->host_byte_override = -1;
    c->seed = 1;
}

void rs_cli_getopt_reset(void) {
    optind = 1;
    opterr = 0;
}

struct option *rs_cli_merge_longopts(const struct option *own, int n_own) {
    int n = n_own + rs_cli_common_n_longopts + 1;
    struct option *all = calloc((size_t)n, sizeof *all);
    if (!all) return NULL;
    memcpy(all, own, sizeof *own * (size_t)n_own);
    memcpy(all + n_own, rs_cli_common_longopts, sizeof *own * (size_t)rs_cli_common_n_longopts);
    return all; /* last entry zeroed by calloc */
}

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

static int parse_layouts(rs_cli_common_t *c, const char *arg, rs_err_t *err) {
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

static int parse_passes(rs_cli_common_t *c, const char *arg, rs_err_t *err) {
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

int rs_cli_common_opt(rs_cli_common_t *c, int opt, const char *arg, rs_err_t *err) {
    rs_problem_t *p = &c->problem;
    int64_t v;
    switch (opt) {
    case 'S':
    case RS_OPT_SEQ: return rs_parse_size("--seq", arg, 1, (int64_t)UINT32_MAX, &p->seq_tokens, err) ? -1 : 1;
    case 'N':
    case RS_OPT_RANKS: return rs_parse_size("--ranks", arg, 1, INT32_MAX, &p->n_ranks, err) ? -1 : 1;
    case RS_OPT_BATCH: return rs_parse_size("--batch", arg, 1, 1 << 20, &p->batch, err) ? -1 : 1;
    case RS_OPT_HEADS: return rs_parse_size("--heads", arg, 1, 1 << 16, &p->q_heads, err) ? -1 : 1;
    case RS_OPT_KV_HEADS: return rs_parse_size("--kv-heads", arg, 1, 1 << 16, &p->kv_heads, err) ? -1 : 1;
    case RS_OPT_HEAD_DIM: return rs_parse_size("--head-dim", arg, 1, 1 << 16, &p->head_dim, err) ? -1 : 1;
    case RS_OPT_GRAD_BYTES:
        c->grad_bytes_given = true;
        return rs_parse_size("--grad-bytes", arg, 1, 8, &p->grad_bytes, err) ? -1 : 1;
    case RS_OPT_IMPL: {
        rs_impl_t i;
        if (rs_impl_parse(arg, &i) != 0) return rs_errf(err, "--impl %s: expected ringsim, flash-attn, te or none", arg);
        snprintf(c->impl, sizeof c->impl, "%s", arg);
        return 1;
    }
    case RS_OPT_KERNEL:
        if (strlen(arg) >= sizeof c->kernel) return rs_errf(err, "--kernel %s: at most %zu characters", arg, sizeof c->kernel - 1);
        snprintf(c->kernel, sizeof c->kernel, "%s", arg);
        return 1;
    case RS_OPT_DTYPE:
        if (rs_dtype_parse(arg, &c->dtype) != 0)
            return rs_errf(err, "--dtype %s: expected fp32, tf32, bf16, fp16 or fp8", arg);
        p->act_bytes = rs_dtype_bytes(c->dtype);
        return 1;
    case RS_OPT_CAUSAL: p->causal = true; return 1;
    case RS_OPT_NO_CAUSAL: p->causal = false; return 1;
    case 'L':
    case RS_OPT_LAYOUT: return parse_layouts(c, arg, err) ? -1 : 1;
    case 'P':
    case RS_OPT_PASS: return parse_passes(c, arg, err) ? -1 : 1;
    case RS_OPT_TILE: {
        const char *x = strchr(arg, 'x');
        if (!x) {
            if (rs_parse_size("--tile", arg, 1, 1 << 20, &v, err)) return -1;
            p->tile_q = p->tile_k = v;
            return 1;
        }
        char head[32];
        size_t len = (size_t)(x - arg);
        if (len == 0 || len >= sizeof head) return rs_errf(err, "--tile %s: expected T or TQxTK, e.g. 128x64", arg);
        memcpy(head, arg, len);
        head[len] = 0;
        if (rs_parse_size("--tile", head, 1, 1 << 20, &p->tile_q, err)) return -1;
        return rs_parse_size("--tile", x + 1, 1, 1 << 20, &p->tile_k, err) ? -1 : 1;
    }
    case 'p':
    case RS_OPT_PROFILE: snprintf(c->profile, sizeof c->profile, "%s", arg); return 1;
    case RS_OPT_INTER: snprintf(c->inter, sizeof c->inter, "%s", arg); return 1;
    case RS_OPT_GPUS_PER_NODE: return rs_parse_size("--gpus-per-node", arg, 0, INT32_MAX, &c->gpus_per_node, err) ? -1 : 1;
    case RS_OPT_FLOPS: return rs_parse_double("--flops", arg, 1, 1e20, &c->flops_override, err) ? -1 : 1;
    case RS_OPT_BW: return rs_parse_double("--bw", arg, 1, 1e16, &c->bw_override, err) ? -1 : 1;
    case RS_OPT_INTER_BW: return rs_parse_double("--inter-bw", arg, 1, 1e16, &c->inter_bw_override, err) ? -1 : 1;
    case RS_OPT_LATENCY: return rs_parse_double("--latency", arg, 0, 10, &c->latency_override, err) ? -1 : 1;
    case RS_OPT_LAUNCH: return rs_parse_double("--launch-overhead", arg, 0, 10, &c->launch_override, err) ? -1 : 1;
    case RS_OPT_OVERLAP: return rs_parse_double("--overlap", arg, 0, 1, &c->overlap_override, err) ? -1 : 1;
    case RS_OPT_SLOWDOWN: return rs_parse_double("--slowdown", arg, 1, 1e6, &c->slowdown_override, err) ? -1 : 1;
    case RS_OPT_HOST_COST: {
        char head[64];
        const char *colon = strchr(arg, ':');
        size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
        if (len == 0 || len >= sizeof head)
            return rs_errf(err, "--host-cost %s: expected S or S:S_PER_BYTE (seconds per transfer, per byte), e.g. 5e-6:5e-11", arg);
        memcpy(head, arg, len);
        head[len] = 0;
        if (rs_parse_double("--host-cost", head, 0, 10, &c->host_xfer_override, err)) return -1;
        c->host_byte_override = 0;
        if (colon && rs_parse_double("--host-cost (per byte)", colon + 1, 0, 1e-3, &c->host_byte_override, err)) return -1;
        return 1;
    }
    case RS_OPT_JITTER: return rs_parse_double("--jitter", arg, 0, 0.99, &c->jitter, err) ? -1 : 1;
    case RS_OPT_SEED:
        if (rs_parse_size("--seed", arg, 0, INT64_MAX, &v, err)) return -1;
        c->seed = (uint64_t)v;
        return 1;
    case RS_OPT_STRAGGLER:
        if (c->n_stragglers >= RS_MAX_PERTURB) return rs_errf(err, "--straggler: at most %d", RS_MAX_PERTURB);
        if (parse_pair("--straggler", arg, &c->straggler_rank[c->n_stragglers], &c->straggler_factor[c->n_stragglers], err))
            return -1;
        c->n_stragglers++;
        return 1;
    case RS_OPT_DEGRADE:
        if (c->n_degraded >= RS_MAX_PERTURB) return rs_errf(err, "--degrade: at most %d", RS_MAX_PERTURB);
        if (parse_pair("--degrade", arg, &c->degraded_hop[c->n_degraded], &c->degraded_factor[c->n_degraded], err))
            return -1;
        c->n_degraded++;
        return 1;
    default: return 0;
    }
}

/* Kernel list of a profile, for messages. */
static void kernel_names(const rs_kernel_table_t *t, char *buf, size_t len) {
    size_t n = 0;
    buf[0] = 0;
    for (int k = 0; k < t->n_kernels && n < len; k++) n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? ", " : "", t->kernel[k].name);
    if (!t->n_kernels) snprintf(buf, len, "none");
}

/* The machine's implementation preset and kernel (rs_cli_common_finish), and the preset's dK,dV
 * dtype in flight unless --grad-bytes was given. */
static int rs_cli_kernel_select(rs_cli_common_t *c, rs_err_t *err) {
    rs_machine_t *m = &c->machine;
    const rs_kernel_table_t *t = &m->kernels;
    char names[512];
    kernel_names(t, names, sizeof names);
    if (c->impl[0]) {
        rs_impl_t i = RS_IMPL_NONE;
        rs_impl_parse(c->impl, &i);
        m->impl = (int)i;
        m->kernel = i == RS_IMPL_NONE || c->flops_override > 0 ? 0 : t->impl_kernel[i];
        if (i != RS_IMPL_NONE && !m->kernel && !c->kernel[0] && c->flops_override <= 0)
            return rs_errf(err, "--impl %s: profile %s names no kernel for it (its kernels: %s); give --kernel NAME, or "
                                "--flops F for the dense peak", c->impl, c->hw.name, names);
    } else if (c->flops_override > 0) { /* --flops alone: the dense peak model, as before presets */
        m->impl = RS_IMPL_NONE, m->kernel = 0;
    }
    if (c->kernel[0]) {
        int k = rs_kernel_find(t, c->kernel);
        if (k < 0) return rs_errf(err, "--kernel %s: profile %s has no such kernel (its kernels: %s)", c->kernel, c->hw.name, names);
        if (m->impl == RS_IMPL_NONE)
            return rs_errf(err, "--kernel %s: needs an implementation preset (--impl ringsim, flash-attn or te)", c->kernel);
        m->kernel = k + 1;
    }
    if (m->kernel > 0) { /* the curves must cover the dtype; print the fallbacks taken once */
        rs_kresolve_t r;
        rs_err_t e = {{0}};
        if (rs_kernel_resolve(t, m->kernel - 1, (int)c->dtype, c->problem.head_dim, &r, &e) != 0) {
            if (c->impl[0] || c->kernel[0]) return rs_errf(err, "--impl %s: %s", rs_impl_name((rs_impl_t)m->impl), e.msg);
            m->impl = RS_IMPL_NONE, m->kernel = 0; /* no curve for the dtype: the dense peak model (headers say so) */
        } else {
            snprintf(c->kernel_notes, sizeof c->kernel_notes, "%s", r.notes);
        }
    }
    const int64_t gb = rs_impl_grad_bytes((rs_impl_t)m->impl, c->problem.act_bytes);
    if (gb > 0 && !c->grad_bytes_given) c->problem.grad_bytes = gb;
    return 0;
}

int rs_cli_common_finish(rs_cli_common_t *c, rs_err_t *err) {
    rs_hw_t *hw = &c->hw;
    if (rs_hw_load(c->profile, hw, err) != 0) return -1;
    if (c->inter[0]) {
        if (rs_tier_load(c->inter, &hw->inter, err) != 0) return -1;
        hw->has_inter = true;
    }
    if (c->flops_override > 0) hw->flops_per_s[c->dtype] = c->flops_override;
    if (c->bw_override > 0) hw->intra.bw_bytes_per_s = c->bw_override;
    if (c->inter_bw_override > 0) {
        hw->inter.bw_bytes_per_s = c->inter_bw_override;
        if (!hw->has_inter) {
            hw->has_inter = true;
            snprintf(hw->inter.name, sizeof hw->inter.name, "custom");
            hw->inter.latency_s = hw->intra.latency_s;
        }
    }
    if (c->latency_override >= 0) hw->intra.latency_s = hw->inter.latency_s = c->latency_override;
    if (c->launch_override >= 0) hw->launch_s = c->launch_override;
    if (c->overlap_override >= 0) hw->overlap = c->overlap_override, hw->n_overlap = 0; /* replaces a curve */
    if (c->host_xfer_override >= 0) hw->host_s_per_xfer = c->host_xfer_override, hw->host_s_per_byte = c->host_byte_override;
    if (c->slowdown_override >= 0) hw->comp_slowdown = c->slowdown_override;
    if (c->gpus_per_node >= 0) hw->devices_per_node = c->gpus_per_node;
    rs_machine_t *m = &c->machine;
    if (rs_machine_from_hw(hw, c->dtype, m, err) != 0) return -1;
    if (rs_cli_kernel_select(c, err) != 0) return -1;
    m->jitter = c->jitter;
    m->seed = c->seed;
    m->n_stragglers = c->n_stragglers;
    memcpy(m->straggler_rank, c->straggler_rank, sizeof c->straggler_rank);
    memcpy(m->straggler_factor, c->straggler_factor, sizeof c->straggler_factor);
    m->n_degraded = c->n_degraded;
    memcpy(m->degraded_hop, c->degraded_hop, sizeof c->degraded_hop);
    memcpy(m->degraded_factor, c->degraded_factor, sizeof c->degraded_factor);
    if (m->devices_per_node > 0 && m->devices_per_node < c->problem.n_ranks && !hw->has_inter)
        return rs_errf(err, "--ranks %lld exceeds --gpus-per-node %lld but profile %s has no inter-node tier "
                            "(give --inter TIER, e.g. ib-ndr, or --inter-bw)",
                       (long long)c->problem.n_ranks, (long long)m->devices_per_node, hw->name);
    if (rs_machine_validate(m, c->problem.n_ranks, err) != 0) return -1;
    for (int i = 0; i < c->n_layouts; i++)
        for (int j = 0; j < c->n_passes; j++) {
            rs_problem_t p = rs_cli_common_problem(c, i, j);
            if (rs_problem_validate(&p, err) != 0) return -1;
        }
    if (c->kernel_notes[0]) fprintf(stderr, "ringsim: note: %s\n", c->kernel_notes); /* the curves' fallbacks, once */
    return 0;
}

rs_problem_t rs_cli_common_problem(const rs_cli_common_t *c, int layout_i, int pass_j) {
    rs_problem_t p = c->problem;
    p.layout = c->layouts[layout_i];
    p.pass = c->passes[pass_j];
    return p;
}

void rs_cli_common_help(FILE *out) {
    fprintf(out,
            "Problem (sizes take K/M/G = powers of 1024):\n"
            "  -S, --seq TOKENS         total sequence length S                 [128K]\n"
            "  -N, --ranks N            ranks in the ring                        [8]\n"
            "      --batch B            sequences per step                       [1]\n"
            "      --heads H            query heads                              [32]\n"
            "      --kv-heads H         key/value heads (divides --heads)        [8]\n"
            "      --head-dim D         head dimension                           [128]\n"
            "      --dtype T            fp32|tf32|bf16|fp16|fp8: activations and the peak F used [bf16]\n"
            "      --grad-bytes N       bytes per dK,dV element in flight        [4]\n"
            "      --causal|--no-causal causal mask                              [causal]\n"
            "  -L, --layout L           contiguous|striped|zigzag, comma list, or all [command default]\n"
            "  -P, --pass P             forward|backward|both                    [command default]\n"
            "      --tile T|TQxTK       kernel tile for executed FLOPs           [128]\n"
            "Hardware (rates take SI suffixes: 450G = 450e9):\n"
            "  -p, --profile NAME|FILE  device profile (ringsim profiles lists them) [h100-sxm]\n"
            "      --inter NAME|FILE    inter-node tier preset (ib-ndr, roce-400g, ...) [the profile's]\n"
            "      --gpus-per-node G    devices per node; 0 = one flat ring      [the profile's]\n"
            "      --flops F            peak FLOP/s for --dtype                  [the profile's]\n"
            "      --bw W               intra-node hop bandwidth, bytes/s per direction [the profile's]\n"
            "      --inter-bw W         inter-node hop bandwidth                 [the profile's]\n"
            "      --latency S          per-message latency of every tier, s     [the profile's]\n"
            "      --launch-overhead S  per-step (kernel) launch overhead, s     [the profile's, else 0]\n"
            "      --overlap ETA        transfer progress rate while computing, [0,1] [1]\n"
            "      --slowdown SIGMA     compute slowdown while a transfer is in flight, >= 1 [1]\n"
            "      --host-cost S[:S_PER_BYTE]  compute time a rank loses per transfer it receives\n"
            "                           (and per byte: a CPU-driven copy) in a step [the profile's, else 0]\n"
            "      --jitter J           compute time x (1 + J*(2u-1)), u seeded per (rank, step) [0]\n"
            "      --seed N             jitter seed                              [1]\n"
            "      --straggler R:F      rank R computes F times slower (repeatable) [none]\n"
            "      --degrade H:F        hop H -> H+1 has 1/F of its bandwidth (repeatable) [none]\n"
            "Attention kernels (docs/model.md section 3):\n"
            "      --impl P             ringsim|flash-attn|te: how the ring issues its calls and merges,\n"
            "                           none: the dense peak F x eff(B)        [the profile's default]\n"
            "      --kernel NAME        the kernel curves the calls run at     [the preset's on the profile]\n"
            "                           (--flops without --impl: the dense peak model)\n");
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

void rs_cli_overlap_desc(const rs_machine_t *m, char *dst, size_t len) {
    size_t n = 0;
    if (!len) return;
    dst[0] = 0;
#define PUT(...)                                                                        \
    do {                                                                                \
        if (n < len) n += (size_t)snprintf(dst + n, len - n, __VA_ARGS__);              \
    } while (0)
    if (m->n_overlap > 0) {
        PUT("overlap curve (bytes:eta)");
        for (int k = 0; k < m->n_overlap; k++) PUT(" %.0f:%.3f", m->overlap_curve[k].bytes, m->overlap_curve[k].eta);
    } else {
        PUT("overlap %.3f", m->overlap);
    }
    if (m->comp_slowdown > 1) PUT(", slowdown %.3f", m->comp_slowdown);
    if (m->host_s_per_xfer > 0 || m->host_s_per_byte > 0)
        PUT(", host cost %.3g s + %.3g s/byte per received transfer", m->host_s_per_xfer, m->host_s_per_byte);
#undef PUT
}

int rs_cli_meta_machine(struct rs_trace *t, const rs_machine_t *m) {
    int rc = 0;
    rc |= rs_trace_set_meta(t, "hw", "%s", m->hw_name);
    rc |= rs_trace_set_meta(t, "dtype", "%s", rs_dtype_name(m->dtype));
    rc |= rs_trace_set_meta(t, "flops_per_s", "%.17g", m->flops_per_s);
    rc |= rs_trace_set_meta(t, "intra", "%s", m->intra.name);
    rc |= rs_trace_set_meta(t, "intra_bw_bytes_per_s", "%.17g", m->intra.bw_bytes_per_s);
    rc |= rs_trace_set_meta(t, "intra_latency_s", "%.17g", m->intra.latency_s);
    rc |= rs_trace_set_meta(t, "devices_per_node", "%lld", (long long)m->devices_per_node);
    if (m->devices_per_node > 0) {
        rc |= rs_trace_set_meta(t, "inter", "%s", m->inter.name);
        rc |= rs_trace_set_meta(t, "inter_bw_bytes_per_s", "%.17g", m->inter.bw_bytes_per_s);
        rc |= rs_trace_set_meta(t, "inter_latency_s", "%.17g", m->inter.latency_s);
    }
    rc |= rs_trace_set_meta(t, "launch_s", "%.17g", m->launch_s);
    rc |= rs_trace_set_meta(t, "overlap", "%.17g", m->overlap);
    rc |= rs_trace_set_meta(t, "comp_slowdown", "%.17g", m->comp_slowdown);
    if (m->n_overlap > 0) {
        char buf[RS_MAX_OVERLAP_POINTS * 48] = "";
        size_t n = 0;
        for (int k = 0; k < m->n_overlap && n < sizeof buf; k++)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%.6g:%.6g", k ? " " : "", m->overlap_curve[k].bytes,
                                  m->overlap_curve[k].eta);
        rc |= rs_trace_set_meta(t, "overlap_curve", "%s", buf);
    }
    if (m->host_s_per_xfer > 0 || m->host_s_per_byte > 0) {
        rc |= rs_trace_set_meta(t, "host_s_per_xfer", "%.17g", m->host_s_per_xfer);
        rc |= rs_trace_set_meta(t, "host_s_per_byte", "%.17g", m->host_s_per_byte);
    }
    rc |= rs_trace_set_meta(t, "n_eff_points", "%d", m->n_eff);
    rc |= rs_trace_set_meta(t, "impl", "%s", rs_impl_name((rs_impl_t)m->impl));
    rc |= rs_trace_set_meta(t, "kernel", "%s", m->kernel > 0 ? m->kernels.kernel[m->kernel - 1].name : "none");
    rc |= rs_trace_set_meta(t, "jitter", "%.17g", m->jitter);
    rc |= rs_trace_set_meta(t, "seed", "%llu", (unsigned long long)m->seed);
    char buf[1024] = "";
    size_t off = 0;
    for (int i = 0; i < m->n_stragglers && off < sizeof buf - 40; i++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%lld:%g", i ? "," : "", (long long)m->straggler_rank[i], m->straggler_factor[i]);
    rc |= rs_trace_set_meta(t, "stragglers", "%s", m->n_stragglers ? buf : "none");
    off = 0;
    buf[0] = 0;
    for (int i = 0; i < m->n_degraded && off < sizeof buf - 40; i++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%lld:%g", i ? "," : "", (long long)m->degraded_hop[i], m->degraded_factor[i]);
    rc |= rs_trace_set_meta(t, "degraded_hops", "%s", m->n_degraded ? buf : "none");
    return rc ? -1 : 0;
}
