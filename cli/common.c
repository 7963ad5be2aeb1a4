/* common.c - options shared by the subcommands: the problem, the hardware profile, the machine. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
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
};
const int rs_cli_common_n_longopts = (int)(sizeof rs_cli_common_longopts / sizeof rs_cli_common_longopts[0]);

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

static int parse_layouts(rs_setup_t *c, const char *arg, rs_err_t *err) {
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

static int parse_passes(rs_setup_t *c, const char *arg, rs_err_t *err) {
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

int rs_cli_common_opt(rs_setup_t *c, int opt, const char *arg, rs_err_t *err) {
    rs_problem_t *p = &c->problem;
    rs_machine_spec_t *m = &c->spec;
    rs_dtype_t dtype;
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
    case RS_OPT_GRAD_BYTES: return rs_parse_size("--grad-bytes", arg, 1, 8, &p->grad_bytes, err) ? -1 : 1;
    case RS_OPT_DTYPE:
        if (rs_dtype_parse(arg, &dtype) != 0)
            return rs_errf(err, "--dtype %s: expected fp32, tf32, bf16, fp16 or fp8", arg);
        rs_setup_dtype(c, dtype);
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
    case RS_OPT_PROFILE: snprintf(m->profile, sizeof m->profile, "%s", arg); return 1;
    case RS_OPT_INTER: snprintf(m->inter, sizeof m->inter, "%s", arg); return 1;
    case RS_OPT_GPUS_PER_NODE: return rs_parse_size("--gpus-per-node", arg, 0, INT32_MAX, &m->gpus_per_node, err) ? -1 : 1;
    case RS_OPT_FLOPS: return rs_parse_double("--flops", arg, 1, 1e20, &m->flops, err) ? -1 : 1;
    case RS_OPT_BW: return rs_parse_double("--bw", arg, 1, 1e16, &m->bw, err) ? -1 : 1;
    case RS_OPT_INTER_BW: return rs_parse_double("--inter-bw", arg, 1, 1e16, &m->inter_bw, err) ? -1 : 1;
    case RS_OPT_LATENCY: return rs_parse_double("--latency", arg, 0, 10, &m->latency, err) ? -1 : 1;
    case RS_OPT_LAUNCH: return rs_parse_double("--launch-overhead", arg, 0, 10, &m->launch, err) ? -1 : 1;
    case RS_OPT_OVERLAP: return rs_parse_double("--overlap", arg, 0, 1, &m->overlap, err) ? -1 : 1;
    case RS_OPT_SLOWDOWN: return rs_parse_double("--slowdown", arg, 1, 1e6, &m->slowdown, err) ? -1 : 1;
    case RS_OPT_HOST_COST: {
        char head[64];
        const char *colon = strchr(arg, ':');
        size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
        if (len == 0 || len >= sizeof head)
            return rs_errf(err, "--host-cost %s: expected S or S:S_PER_BYTE (seconds per transfer, per byte), e.g. 5e-6:5e-11", arg);
        memcpy(head, arg, len);
        head[len] = 0;
        if (rs_parse_double("--host-cost", head, 0, 10, &m->host_xfer, err)) return -1;
        m->host_byte = 0;
        if (colon && rs_parse_double("--host-cost (per byte)", colon + 1, 0, 1e-3, &m->host_byte, err)) return -1;
        return 1;
    }
    case RS_OPT_JITTER: return rs_parse_double("--jitter", arg, 0, 0.99, &m->jitter, err) ? -1 : 1;
    case RS_OPT_SEED:
        if (rs_parse_size("--seed", arg, 0, INT64_MAX, &v, err)) return -1;
        m->seed = (uint64_t)v;
        return 1;
    case RS_OPT_STRAGGLER:
        if (m->perturb.n_stragglers >= RS_MAX_PERTURB) return rs_errf(err, "--straggler: at most %d", RS_MAX_PERTURB);
        if (parse_pair("--straggler", arg, &m->perturb.straggler_rank[m->perturb.n_stragglers],
                       &m->perturb.straggler_factor[m->perturb.n_stragglers], err))
            return -1;
        m->perturb.n_stragglers++;
        return 1;
    case RS_OPT_DEGRADE:
        if (m->perturb.n_degraded >= RS_MAX_PERTURB) return rs_errf(err, "--degrade: at most %d", RS_MAX_PERTURB);
        if (parse_pair("--degrade", arg, &m->perturb.degraded_hop[m->perturb.n_degraded],
                       &m->perturb.degraded_factor[m->perturb.n_degraded], err))
            return -1;
        m->perturb.n_degraded++;
        return 1;
    default: return 0;
    }
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
            "      --degrade H:F        hop H -> H+1 has 1/F of its bandwidth (repeatable) [none]\n");
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

