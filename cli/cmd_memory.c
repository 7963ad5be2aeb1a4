/* cmd_memory.c - `ringsim memory`: per-device memory of training a transformer with ring attention
 * (or Ulysses / USP with --ulysses), term by term (model/plan/memory.h, docs/memory.md). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "alt.h"
#include "memory.h"

enum { OPT_MODEL = 2000, OPT_SEQ, OPT_RANKS, OPT_ULYSSES, OPT_BATCH, OPT_SHARD, OPT_PRECISION, OPT_CKPT,
       OPT_CHUNK, OPT_PROFILE, OPT_CSV, OPT_LIST, OPT_HELP };

static const struct option opts[] = {
    {"model", required_argument, NULL, OPT_MODEL},   {"seq", required_argument, NULL, OPT_SEQ},
    {"ranks", required_argument, NULL, OPT_RANKS},   {"ulysses", required_argument, NULL, OPT_ULYSSES},
    {"batch", required_argument, NULL, OPT_BATCH},   {"shard", required_argument, NULL, OPT_SHARD},
    {"precision", required_argument, NULL, OPT_PRECISION}, {"ckpt", required_argument, NULL, OPT_CKPT},
    {"chunk", required_argument, NULL, OPT_CHUNK},   {"profile", required_argument, NULL, OPT_PROFILE},
    {"csv", required_argument, NULL, OPT_CSV},       {"list", no_argument, NULL, OPT_LIST},
    {"help", no_argument, NULL, OPT_HELP},           {NULL, 0, NULL, 0},
};

static void help(void) {
    printf("usage: ringsim memory --model NAME|FILE [options]\n\n"
           "Per-device memory of training with ring attention (Ulysses/USP with --ulysses): weights,\n"
           "gradients and optimizer state sharded by ZeRO-3/FSDP, saved activations by checkpointing\n"
           "mode, the ring's buffers, chunked FFN and loss. Formulas: docs/memory.md.\n\n"
           "  -m, --model NAME|FILE    model preset or JSON file (--list shows presets)  [required]\n"
           "  -S, --seq TOKENS         sequence length S (K/M suffixes)              [128K]\n"
           "  -N, --ranks N            sequence-parallel degree N (S/N tokens per device) [8]\n"
           "      --ulysses U          Ulysses degree inside N (1 = pure ring)        [1]\n"
           "      --batch B            sequences resident per sequence-parallel group [1]\n"
           "      --shard D            ZeRO-3/FSDP group size (devices sharing the state) [N]\n"
           "      --precision P        mixed (bf16 + fp32 master + Adam) | fp32      [mixed]\n"
           "      --ckpt C             none | selective | full                        [full]\n"
           "      --chunk TOKENS       blockwise FFN / loss chunk                     [2048]\n"
           "  -p, --profile NAME|FILE  compare with this device's memory              [none]\n"
           "      --csv FILE           also write term,bytes as CSV (\"-\" = stdout)    [none]\n"
           "      --list               list the model presets and exit\n"
           "  -h, --help               this help\n");
}

static int write_csv(const char *path, const rs_mem_t *m, rs_err_t *err) {
    rs_file_t f = {0};
    FILE *fp = stdout;
    if (strcmp(path, "-")) {
        if (rs_file_open(&f, path, err)) return -1;
        fp = f.fp;
    }
    struct {
        const char *name;
        double v;
    } rows[] = {
        {"weights", m->weights_bytes},         {"gradients", m->grads_bytes},
        {"optimizer", m->optim_bytes},         {"fsdp_unit", m->fsdp_unit_bytes},
        {"activations_saved", m->act_saved_bytes}, {"layer_working_set", m->layer_work_bytes},
        {"ring_forward", m->ring_fwd_bytes},   {"ring_backward", m->ring_bwd_bytes},
        {"ring", m->ring_bytes},               {"ring_shared_with_saved", 0.0 - m->ring_shared_bytes},
        {"all_to_all_staging", m->a2a_bytes},  {"ffn_chunk", m->ffn_chunk_bytes},
        {"logits_chunk", m->logits_chunk_bytes}, {"total", m->total_bytes},
    };
    fprintf(fp, "term,bytes\n");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) fprintf(fp, "%s,%.0f\n", rows[i].name, rows[i].v);
    if (fp != stdout) return rs_file_commit(&f, err);
    return 0;
}

int rs_cmd_memory(int argc, char **argv) {
    rs_err_t err = {{0}};
    rs_mem_config_t c;
    rs_mem_config_default(&c);
    const char *model = NULL, *profile = NULL, *csv = NULL;
    bool shard_given = false;
    int opt;
    rs_cli_getopt_reset();
    while ((opt = getopt_long(argc, argv, ":m:S:N:p:h", opts, NULL)) != -1) {
        int rc = 0;
        switch (opt) {
        case 'm': case OPT_MODEL: model = optarg; break;
        case 'S': case OPT_SEQ: rc = rs_parse_size("--seq", optarg, 1, (int64_t)1 << 40, &c.seq_tokens, &err); break;
        case 'N': case OPT_RANKS: rc = rs_parse_size("--ranks", optarg, 1, 1 << 24, &c.sp_degree, &err); break;
        case OPT_ULYSSES: rc = rs_parse_size("--ulysses", optarg, 1, 1 << 24, &c.ulysses_degree, &err); break;
        case OPT_BATCH: rc = rs_parse_size("--batch", optarg, 1, 1 << 20, &c.batch, &err); break;
        case OPT_SHARD:
            rc = rs_parse_size("--shard", optarg, 1, (int64_t)1 << 30, &c.shard_devices, &err);
            shard_given = true;
            break;
        case OPT_PRECISION:
            if (rs_precision_parse(optarg, &c.precision)) rc = rs_errf(&err, "--precision %s: expected mixed or fp32", optarg);
            break;
        case OPT_CKPT:
            if (rs_ckpt_parse(optarg, &c.ckpt)) rc = rs_errf(&err, "--ckpt %s: expected none, selective or full", optarg);
            break;
        case OPT_CHUNK: rc = rs_parse_size("--chunk", optarg, 1, (int64_t)1 << 30, &c.chunk_tokens, &err); break;
        case 'p': case OPT_PROFILE: profile = optarg; break;
        case OPT_CSV: csv = optarg; break;
        case OPT_LIST:
            for (const char *const *p = rs_transformer_preset_names(); *p; p++) {
                rs_transformer_t t;
                if (rs_transformer_load(*p, &t, &err) == 0)
                    printf("%-14s %6.1fB params  L=%-3lld h=%-5lld Hq=%-3lld Hkv=%-3lld d=%-3lld ffn=%-5lld V=%lld\n", *p,
                           (double)rs_transformer_params(&t) / 1e9, (long long)t.layers, (long long)t.hidden,
                           (long long)t.q_heads, (long long)t.kv_heads, (long long)t.head_dim, (long long)t.ffn,
                           (long long)t.vocab);
            }
            return RS_EXIT_OK;
        case 'h': case OPT_HELP: help(); return RS_EXIT_OK;
        case ':': rc = rs_errf(&err, "%s: missing value", argv[optind - 1]); break;
        default: rc = rs_errf(&err, "%s: unknown option (see ringsim memory --help)", argv[optind - 1]); break;
        }
        if (rc) {
            fprintf(stderr, "ringsim memory: %s\n", err.msg);
            return RS_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ringsim memory: unexpected argument '%s'\n", argv[optind]);
        return RS_EXIT_USAGE;
    }
    if (!model) {
        fprintf(stderr, "ringsim memory: --model is required (presets: ringsim memory --list)\n");
        return RS_EXIT_USAGE;
    }
    if (!shard_given) c.shard_devices = c.sp_degree;
    rs_transformer_t t;
    if (rs_transformer_load(model, &t, &err)) {
        fprintf(stderr, "ringsim memory: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }
    if (c.ulysses_degree > 1 && c.sp_degree % c.ulysses_degree == 0) { /* Ulysses' head bound, S divisibility */
        rs_machine_t flat;
        memset(&flat, 0, sizeof flat);
        rs_sp_config_t sc;
        rs_sp_config_default(&sc);
        sc.seq_tokens = c.seq_tokens;
        sc.ulysses = c.ulysses_degree;
        sc.ring = c.sp_degree / c.ulysses_degree;
        if (rs_sp_check(&t, &flat, &sc, &err)) {
            fprintf(stderr, "ringsim memory: %s\n", err.msg);
            return RS_EXIT_USAGE;
        }
    }
    rs_hw_t hw;
    double dev_mem = 0;
    if (profile) {
        if (rs_hw_load(profile, &hw, &err)) {
            fprintf(stderr, "ringsim memory: %s\n", err.msg);
            return RS_EXIT_USAGE;
        }
        dev_mem = hw.mem_bytes;
    }
    rs_mem_t m;
    if (rs_memory_ring(&t, &c, &m, &err)) {
        fprintf(stderr, "ringsim memory: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }
    if (csv && write_csv(csv, &m, &err)) {
        fprintf(stderr, "ringsim memory: %s\n", err.msg);
        return RS_EXIT_FAIL;
    }
    if (!csv || strcmp(csv, "-")) rs_memory_print(stdout, &t, &c, &m, dev_mem);
    return RS_EXIT_OK;
}
