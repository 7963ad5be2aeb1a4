/* cmd_memory.c - `ringsim memory`: per-device memory of training a transformer with ring attention
 * (or Ulysses / USP with --ulysses), term by term (model/5-plan/memory.h, docs/memory.md). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "alt.h"
#include "memory.h"
#include "output.h"

/* memory's options. */
typedef struct {
    rs_mem_config_t c;      /* what is costed */
    const char *model;      /* -m */
    const char *profile;    /* -p */
    const char *csv;        /* --csv */
    bool list;              /* --list */
    double usable;          /* --usable (0: the runtime's) */
    bool allow_implausible; /* --allow-implausible: the profile's figures beyond its device's physics taken
                               as given, with a warning (plausible.h) */
} mem_cli_t;

static int parse_precision(void *dst, const char *arg, rs_err_t *err) {
    if (rs_precision_parse(arg, &((mem_cli_t *)dst)->c.precision)) return rs_errf(err, "--precision %s: expected mixed or fp32", arg);
    return 0;
}

static int parse_ckpt(void *dst, const char *arg, rs_err_t *err) {
    if (rs_ckpt_parse(arg, &((mem_cli_t *)dst)->c.ckpt)) return rs_errf(err, "--ckpt %s: expected none, selective or full", arg);
    return 0;
}

static int parse_runtime(void *dst, const char *arg, rs_err_t *err) {
    return rs_cli_parse_runtime(arg, &((mem_cli_t *)dst)->c.runtime, err);
}

static int parse_loss_chunk(void *dst, const char *arg, rs_err_t *err) {
    return rs_cli_parse_loss_chunk(arg, &((mem_cli_t *)dst)->c.loss_chunk_tokens, err);
}

#define O(field) offsetof(mem_cli_t, field)
static const rs_opt_t own_opts[] = {
    {"model", 'm', "NAME|FILE", "required", "model preset or JSON file (--list shows presets)", RS_ARG_IN, O(model), 0, 0,
     NULL, NULL, NULL},
    {"seq", 'S', "TOKENS", "128K", "sequence length S (K/M suffixes)", RS_ARG_SIZE, O(c.seq_tokens), 1, (double)(1LL << 40),
     NULL, NULL, NULL},
    {"ranks", 'N', "N", "8", "sequence-parallel degree N (S/N tokens per device)", RS_ARG_SIZE, O(c.sp_degree), 1, 1 << 24,
     NULL, NULL, NULL},
    {"ulysses", 0, "U", "1", "Ulysses degree inside N (1 = pure ring)", RS_ARG_SIZE, O(c.ulysses_degree), 1, 1 << 24, NULL,
     NULL, NULL},
    {"batch", 0, "B", "1", "sequences resident per sequence-parallel group", RS_ARG_SIZE, O(c.batch), 1, 1 << 20, NULL, NULL,
     NULL},
    {"shard", 0, "D", "N", "ZeRO-3/FSDP group size (devices sharing the state)", RS_ARG_SIZE, O(c.shard_devices), 1,
     (double)(1LL << 30), NULL, NULL, NULL},
    {"precision", 0, "P", "mixed", "mixed (bf16 + fp32 master + Adam) | fp32", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_precision,
     NULL},
    {"ckpt", 0, "C", "full", "none | selective | full", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_ckpt, NULL},
    {"chunk", 0, "TOKENS", "2048", "blockwise FFN / loss chunk", RS_ARG_SIZE, O(c.chunk_tokens), 1, (double)(1LL << 30), NULL,
     NULL, NULL},
    {"loss-chunk", 0, "TOKENS|none", "--chunk", "chunked loss (none: every local token's logits at once)", RS_ARG_CUSTOM, 0, 0, 0,
     NULL, parse_loss_chunk, NULL},
    {"tp", 0, "TP", "1", "tensor parallelism (Megatron with sequence parallelism): 1/TP of each device's state", RS_ARG_SIZE,
     O(c.tp_degree), 1, 1 << 20, NULL, NULL, NULL},
    {"runtime", 0, "R", "pytorch", "memory beside the tensors: pytorch | jax-gpu | jax-tpu | none", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_runtime, NULL},
    {"usable", 0, "F", "the runtime's", "usable fraction of device memory (pytorch 1, jax-gpu 0.75)", RS_ARG_DOUBLE, O(usable),
     1e-6, 1, NULL, NULL, NULL},
    {"profile", 'p', "NAME|FILE", "none", "compare with this device's memory", RS_ARG_IN, O(profile), 0, 0, NULL, NULL,
     NULL},
    {"allow-implausible", 0, NULL, "refuse", RS_CLI_ALLOW_IMPLAUSIBLE_HELP, RS_ARG_TRUE, O(allow_implausible), 0, 0, NULL, NULL,
     NULL},
    {"csv", 0, "FILE", "none", "also write term,bytes as CSV (\"-\" = stdout)", RS_ARG_OUT, O(csv), 0, 0, NULL, NULL, NULL},
    {"list", 0, NULL, NULL, "list the model presets and exit", RS_ARG_TRUE, O(list), 0, 0, NULL, NULL, NULL},
};
#undef O


static int list_models(void) {
    rs_err_t err = {0};
    for (const char *const *p = rs_transformer_preset_names(); *p; p++) {
        rs_transformer_t t;
        if (rs_transformer_load(*p, &t, &err) == 0)
            printf("%-14s %6.1fB params  L=%-3lld h=%-5lld Hq=%-3lld Hkv=%-3lld d=%-3lld ffn=%-5lld V=%lld\n", *p,
                   (double)rs_transformer_params(&t) / 1e9, (long long)t.layers, (long long)t.hidden, (long long)t.q_heads,
                   (long long)t.kv_heads, (long long)t.head_dim, (long long)t.ffn, (long long)t.vocab);
    }
    return RS_EXIT_OK;
}

static int write_csv(const char *path, const rs_mem_t *m, rs_err_t *err) {
    rs_output_t out;
    if (rs_output_open(&out, path, err) != 0) return -1;
    FILE *fp = out.fp;
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
        {"logits_chunk", m->logits_chunk_bytes}, {"attention_workspace", m->attn_workspace_bytes},
        {"tensors", m->model_bytes},           {"fragmentation", m->fragmentation_bytes},
        {"cuda_context", m->context_bytes},    {"nccl_buffers", m->comm_bytes},
        {"total", m->total_bytes},
    };
    fprintf(fp, "term,bytes\n");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) fprintf(fp, "%s,%.0f\n", rows[i].name, rows[i].v);
    return rs_output_close(&out, err);
}

int rs_cmd_memory(int argc, char **argv) {
    rs_err_t err = {0};
    mem_cli_t mc = {0};
    rs_mem_config_default(&mc.c);
    rs_opt_group_t groups[] = {RS_OPT_GROUP(own_opts, &mc)};
    int rc = rs_cli_run_parse("memory", argc, argv, groups, 1, true);
    if (rc >= 0) return rc;
    if (mc.list) return list_models();
    if ((rc = rs_cli_check_files("memory", groups, 1, &(rs_io_plan_t){0}, NULL, true)) >= 0) return rc;
    rs_mem_config_t c = mc.c;
    const char *model = mc.model, *profile = mc.profile, *csv = mc.csv;
    const bool shard_given = rs_cli_given(&groups[0], "shard");
    if (!model) {
        fprintf(stderr, "ringsim memory: --model is required (presets: ringsim memory --list)\n");
        return RS_EXIT_USAGE;
    }
    if (!shard_given) c.shard_devices = c.sp_degree;
    if (!rs_cli_given(&groups[0], "loss-chunk")) c.loss_chunk_tokens = c.chunk_tokens; /* --chunk's */
    rs_transformer_t t;
    if (rs_transformer_load(model, &t, &err)) {
        fprintf(stderr, "ringsim memory: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }
    rs_hw_t hw;
    double dev_mem = 0;
    char warning[1024] = "";
    if (profile) {
        rs_machine_spec_t spec; /* the profile as every command loads it (messages name --profile) */
        rs_machine_spec_default(&spec);
        snprintf(spec.profile, sizeof spec.profile, "%s", profile);
        spec.allow_implausible = mc.allow_implausible;
        if (rs_machine_spec_profile_checked(&spec, &hw, warning, sizeof warning, &err)) {
            fprintf(stderr, "ringsim memory: %s\n", err.msg);
            return RS_EXIT_USAGE;
        }
        dev_mem = hw.mem_bytes;
    }
    rs_mem_t m;
    if (rs_sp_memory(&t, &c, &m, &err)) {
        fprintf(stderr, "ringsim memory: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }
    if (csv && write_csv(csv, &m, &err)) {
        fprintf(stderr, "ringsim memory: %s\n", err.msg);
        return RS_EXIT_FAIL;
    }
    if (warning[0]) fprintf(stderr, "ringsim memory: warning: %s\n", warning);
    if (!csv || strcmp(csv, "-")) {
        rs_memory_print(stdout, &t, &c, &m, dev_mem, mc.usable > 0 ? mc.usable : rs_runtime_usable(c.runtime));
        if (warning[0]) printf("# warning: %s\n", warning); /* the device memory above is a figure taken as given */
    }
    return RS_EXIT_OK;
}
