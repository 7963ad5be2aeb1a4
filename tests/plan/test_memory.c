/* test_memory.c - the memory model against hand-computed numbers, the model presets, and the Ring
 * Attention paper's minimum sequence per device (s = 6c) from the ring-buffer term. */
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "cost.h"
#include "test_main.h"

/* The small model of docs/memory.md, "Worked example": L=2, h=64, Hq=4, Hkv=2, d=16 (q=64, k=32),
 * f=128 SwiGLU, V=100, untied. */
static rs_transformer_t small_model(void) {
    return (rs_transformer_t){.name = "small", .layers = 2, .hidden = 64, .q_heads = 4, .kv_heads = 2, .head_dim = 16,
                              .ffn = 128, .ffn_kind = RS_FFN_SWIGLU, .vocab = 100};
}

static rs_mem_config_t small_config(rs_ckpt_t ckpt, rs_precision_t prec) {
    rs_mem_config_t c;
    rs_mem_config_default(&c);
    c.seq_tokens = 1024, c.sp_degree = 4, c.batch = 1, c.shard_devices = 4;
    c.precision = prec, c.ckpt = ckpt, c.chunk_tokens = 64, c.loss_chunk_tokens = 64;
    c.runtime = RS_RT_NONE; /* the tensors alone: the worked example's terms */
    return c;
}

/* The worked example's model under c (a fatal assertion when it is refused). */
static rs_mem_t worked(const rs_mem_config_t *c) {
    const rs_transformer_t t = small_model();
    rs_mem_t m;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, c, &m, &err), 0);
    return m;
}

/* c is refused with a message naming want. */
static void expect_refused(const rs_transformer_t *t, const rs_mem_config_t *c, const char *want) {
    rs_mem_t m;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_memory_ring(t, c, &m, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
}

RS_TEST(test_params_small, "params_small") {
    rs_transformer_t t = small_model();
    /* Wq 64x64 + Wk,Wv 2x64x32 + Wo 64x64 = 12288; FFN 3x64x128 = 24576 */
    CU_ASSERT_EQUAL(rs_transformer_layer_matmul_params(&t), 36864u);
    CU_ASSERT_EQUAL(rs_transformer_layer_ffn_params(&t), 24576u);
    CU_ASSERT_EQUAL(rs_transformer_layer_params(&t), 36992u); /* + 2 norms of 64 */
    /* 2 layers 73984 + embedding 6400 + head 6400 + final norm 64 */
    CU_ASSERT_EQUAL(rs_transformer_params(&t), 86848u);
    t.tied_embeddings = true;
    CU_ASSERT_EQUAL(rs_transformer_params(&t), 80448u);
    t.tied_embeddings = false;
    t.ffn_kind = RS_FFN_GELU; /* 2 FFN matrices: 36992 - 8192 = 28800 per layer */
    CU_ASSERT_EQUAL(rs_transformer_layer_params(&t), 28800u);
}

RS_TEST(test_memory_full_mixed, "memory_full_mixed") {
    rs_transformer_t t = small_model();
    rs_mem_config_t c = small_config(RS_CKPT_FULL, RS_PREC_MIXED);
    rs_mem_t m;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, &c, &m, &err), 0);
    CU_ASSERT_EQUAL(m.local_tokens, 256);      /* T = 1024 / 4 */
    CU_ASSERT_EQUAL(m.weights_bytes, 43424.0); /* 86848 * 2 / 4 */
    CU_ASSERT_EQUAL(m.grads_bytes, 43424.0);
    CU_ASSERT_EQUAL(m.optim_bytes, 260544.0);   /* 86848 * 12 / 4 */
    CU_ASSERT_EQUAL(m.fsdp_unit_bytes, 221952.0); /* layer 36992 > emb 6400; x (2*2 + 2) */
    CU_ASSERT_EQUAL(m.act_per_token_layer_bytes, 128.0); /* h * 2 */
    CU_ASSERT_EQUAL(m.act_saved_bytes, 65536.0);  /* 2 * 256 * 128 */
    CU_ASSERT_EQUAL(m.layer_work_bytes, 98304.0); /* 256 * 3 * 64 * 2 */
    CU_ASSERT_EQUAL(m.ring_fwd_bytes, 131072.0);  /* 256 * (2*64 + 4*32) * 2 */
    /* 256 * (3*64*2 + 64*4 + 4*32*2 + 6*32*4) = 256 * 1664 */
    CU_ASSERT_EQUAL(m.ring_bwd_bytes, 425984.0);
    CU_ASSERT_EQUAL(m.ring_bytes, 425984.0);
    CU_ASSERT_EQUAL(m.ring_shared_bytes, 0.0);
    CU_ASSERT_EQUAL(m.ffn_chunk_bytes, 81920.0);   /* 64 * (2*128 + 3*128) * 2 */
    CU_ASSERT_EQUAL(m.logits_chunk_bytes, 51200.0); /* 64 * 100 * 4 * 2 */
    CU_ASSERT_EQUAL(m.total_bytes, 1292288.0);
}

RS_TEST(test_memory_none_selective_fp32, "memory_none_selective_fp32") {
    rs_transformer_t t = small_model();
    rs_err_t err = {0};
    rs_mem_t m;
    rs_mem_config_t c = small_config(RS_CKPT_NONE, RS_PREC_MIXED);
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, &c, &m, &err), 0);
    /* 4h*2 = 512, (2q+2k)*2 = 384, LSE 4*4 = 16, 3f*2 = 768 */
    CU_ASSERT_EQUAL(m.act_per_token_layer_bytes, 1680.0);
    CU_ASSERT_EQUAL(m.act_saved_bytes, 860160.0);
    CU_ASSERT_EQUAL(m.layer_work_bytes, 0.0);
    CU_ASSERT_EQUAL(m.ring_shared_bytes, 98304.0); /* 256 * 384 */
    CU_ASSERT_EQUAL(m.ffn_chunk_bytes, 32768.0);   /* 64 * 2f * 2 */
    CU_ASSERT_EQUAL(m.total_bytes, 43424.0 * 2 + 260544 + 221952 + 860160 + 0 + 425984 - 98304 + 32768 + 51200);

    c = small_config(RS_CKPT_SELECTIVE, RS_PREC_MIXED);
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, &c, &m, &err), 0);
    CU_ASSERT_EQUAL(m.act_per_token_layer_bytes, 656.0); /* 2h*2 + 384 + 16 */
    CU_ASSERT_EQUAL(m.layer_work_bytes, 65536.0);        /* 256 * 2h*2 */
    CU_ASSERT_EQUAL(m.ring_shared_bytes, 98304.0);

    c = small_config(RS_CKPT_FULL, RS_PREC_FP32);
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, &c, &m, &err), 0);
    CU_ASSERT_EQUAL(m.weights_bytes, 86848.0);   /* P * 4 / 4 */
    CU_ASSERT_EQUAL(m.optim_bytes, 173696.0);    /* P * 8 / 4 */
    CU_ASSERT_EQUAL(m.fsdp_unit_bytes, 443904.0); /* 36992 * (2*4 + 4) */
    CU_ASSERT_EQUAL(m.ring_fwd_bytes, 262144.0); /* 256 * 256 * 4 */
    /* 256 * (3*64*4 + 64*4 + 4*32*4 + 6*32*4) = 256 * (768 + 256 + 512 + 768) = 256 * 2304 */
    CU_ASSERT_EQUAL(m.ring_bwd_bytes, 589824.0);
}

/* USP (U = 2 of N = 4) adds the all-to-all staging; pure Ulysses (U = N) has no incoming blocks. */
RS_TEST(test_memory_ulysses, "memory_ulysses") {
    rs_mem_config_t c = small_config(RS_CKPT_FULL, RS_PREC_MIXED);
    c.ulysses_degree = 2;
    rs_transformer_t t = small_model();
    rs_mem_t m;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, &c, &m, &err), 0);
    CU_ASSERT_EQUAL(m.a2a_bytes, 256.0 * (64 + 2 * 32) * 2);  /* 65536 */
    CU_ASSERT_EQUAL(m.ring_bytes, 425984.0);                  /* a ring of 2 remains */
    CU_ASSERT_EQUAL(m.total_bytes, 1292288.0 + 65536.0);
    c.ulysses_degree = 4;
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, &c, &m, &err), 0);
    CU_ASSERT_EQUAL(m.ring_fwd_bytes, 256.0 * (2 * 64 + 2 * 32) * 2); /* 98304 */
    /* 256 * (3*64*2 + 64*4 + 2*32*2 + 2*32*4) = 256 * (384 + 256 + 128 + 256) */
    CU_ASSERT_EQUAL(m.ring_bwd_bytes, 262144.0);
    c.ulysses_degree = 3;
    expect_refused(&t, &c, "--ulysses 3");
}

/* The runtime's terms on the worked example (docs/memory.md section 3.6): PyTorch adds the flash kernels'
 * fp32 backward workspace T (4q + 4 Hq) = 256 x 272, 15% fragmentation of the tensors, the CUDA context
 * and one NCCL communicator for FSDP (D = 4) and one for the ring's send/recv (R = 4); JAX on GPUs the
 * context and the communicators alone, with 75% of the device usable; JAX on TPUs nothing. */
RS_TEST(test_memory_runtime, "the runtime's terms by hand") {
    const rs_transformer_t t = small_model();
    rs_mem_config_t c = small_config(RS_CKPT_FULL, RS_PREC_MIXED);
    rs_mem_t m;
    rs_err_t err = {0};
    c.runtime = RS_RT_PYTORCH;
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, &c, &m, &err), 0);
    CU_ASSERT_EQUAL(m.attn_workspace_bytes, 256.0 * (4 * 64 + 4 * 4));
    CU_ASSERT_EQUAL(m.model_bytes, 1292288.0 + 69632.0);
    RS_ASSERT_REL(m.fragmentation_bytes, 0.15 * 1361920.0, 1e-15);
    CU_ASSERT_EQUAL(m.context_bytes, 287047680.0);
    RS_ASSERT_REL(m.comm_bytes, 2 * 1.06e9, 1e-15);
    RS_ASSERT_REL(m.total_bytes, 1361920.0 * 1.15 + 287047680.0 + 2.12e9, 1e-15);
    RS_ASSERT_REL(m.total_low_bytes, 1361920.0 + 287047680.0 + 2.12e9, 1e-15);
    RS_ASSERT_REL(m.total_high_bytes, 1361920.0 * 1.33 + 287047680.0 + 2.12e9, 1e-15);
    CU_ASSERT_EQUAL(rs_runtime_usable(RS_RT_PYTORCH), 1.0);
    c.ulysses_degree = 4; /* pure Ulysses: no ring communicator, all-to-all channels to 3 peers */
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, &c, &m, &err), 0);
    RS_ASSERT_REL(m.comm_bytes, 1.06e9 + 3 * 3.28e9 / 7, 1e-15);
    c.ulysses_degree = 1, c.runtime = RS_RT_JAX_GPU;
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, &c, &m, &err), 0);
    CU_ASSERT_EQUAL(m.attn_workspace_bytes, 0);
    CU_ASSERT_EQUAL(m.fragmentation_bytes, 0);
    RS_ASSERT_REL(m.total_bytes, 1292288.0 + 287047680.0 + 2.12e9, 1e-15);
    CU_ASSERT_EQUAL(rs_runtime_usable(RS_RT_JAX_GPU), 0.75);
    c.runtime = RS_RT_JAX_TPU;
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, &c, &m, &err), 0);
    CU_ASSERT_EQUAL(m.total_bytes, 1292288.0);
}

/* TP 2 with sequence parallelism on the worked example, term by term: 2 query and 1 KV head a device
 * (q = 32, k = 16), half of every matrix and of the vocabulary, the hidden-size activations split by
 * tokens; the norms (2 x 2 x 64 + 64 = 320 parameters) whole. */
RS_TEST(test_memory_tp, "TP x CP memory by hand") {
    const rs_transformer_t t = small_model();
    rs_mem_config_t c = small_config(RS_CKPT_FULL, RS_PREC_MIXED);
    c.tp_degree = 2;
    rs_mem_t m = worked(&c);
    CU_ASSERT_EQUAL(m.params_device, (86848.0 - 320) / 2 + 320); /* 43584 */
    CU_ASSERT_EQUAL(m.weights_bytes, 43584.0 * 2 / 4);
    CU_ASSERT_EQUAL(m.optim_bytes, 43584.0 * 12 / 4);
    CU_ASSERT_EQUAL(m.fsdp_unit_bytes, (36864.0 / 2 + 128) * 6); /* the layer's half (18560) over the embedding's (3200) */
    CU_ASSERT_EQUAL(m.act_saved_bytes, 2 * 256 * 64.0);          /* L T h a / tp */
    CU_ASSERT_EQUAL(m.layer_work_bytes, 256 * 3 * 32 * 2.0);     /* T 3 (h / tp) a */
    CU_ASSERT_EQUAL(m.ring_fwd_bytes, 256 * (2 * 32 + 4 * 16) * 2.0);
    CU_ASSERT_EQUAL(m.ring_bwd_bytes, 256 * (3 * 32 * 2 + 32 * 4 + 4 * 16 * 2 + 6 * 16 * 4.0));
    CU_ASSERT_EQUAL(m.ffn_chunk_bytes, 64 * (128 + 192) * 2.0);  /* (2f + 3f) / tp */
    CU_ASSERT_EQUAL(m.logits_chunk_bytes, 64 * 50 * 8.0);        /* V / tp */
    CU_ASSERT_EQUAL(m.total_bytes, 647168.0);
    c.tp_degree = 4; /* 4 > 2 KV heads: one replicated a device */
    m = worked(&c);
    CU_ASSERT_EQUAL(m.ring_fwd_bytes, 256 * (2 * 16 + 4 * 16) * 2.0);
    c.tp_degree = 3;
    expect_refused(&t, &c, "--tp 3");
}

/* An unchunked loss (the Ring Attention paper's code) holds every local token's logits and their gradient. */
RS_TEST(test_memory_loss_unchunked, "an unchunked loss") {
    rs_mem_config_t c = small_config(RS_CKPT_FULL, RS_PREC_MIXED);
    c.loss_chunk_tokens = 0;
    const rs_mem_t m = worked(&c);
    CU_ASSERT_EQUAL(m.logits_chunk_bytes, 256 * 100 * 8.0);
    CU_ASSERT_EQUAL(m.ffn_chunk_bytes, 81920.0); /* the FFN's chunk stays 64 */
}

/* Fits at S, or not: the total of model at S tokens over n A100-80GB devices under the Ring Attention
 * paper's setting (JAX on GPUs: 75% usable; full precision, full checkpointing, FSDP over all n, the
 * loss over every local token), S rounded down to a multiple of n. */
static bool paper_fits(const char *model, int64_t n, double seq, rs_mem_t *out) {
    rs_transformer_t t;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_transformer_load(model, &t, &err), 0);
    rs_mem_config_t c;
    rs_mem_config_default(&c);
    c.seq_tokens = (int64_t)(seq / (double)n) * n, c.sp_degree = n, c.shard_devices = n;
    c.precision = RS_PREC_FP32, c.ckpt = RS_CKPT_FULL, c.loss_chunk_tokens = 0, c.runtime = RS_RT_JAX_GPU;
    rs_mem_t m;
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, &c, &m, &err), 0);
    if (out) *out = m;
    return m.total_bytes <= rs_runtime_usable(RS_RT_JAX_GPU) * 80e9;
}

/* The Ring Attention paper's Table 3 (Liu, Zaharia, Abbeel, arXiv 2310.01889), 8x A100 NVLink rows:
 * the longest context is 512K, 256K, 128K tokens for the 3B, 7B and 13B LLaMA shapes. The model's
 * longest context lies within 1.5x of each: it fits at S / 1.5 and does not at 1.5 S (memory grows
 * with S). The 32x A100 rows (7B 4096K, 13B 2048K) cannot be reproduced in full precision: the saved
 * fp32 layer inputs alone at 7B and 4M / 32 = 128K tokens a device are L T h 4 = 68.7 GB, more than
 * the 60 GB JAX allows; the model says so (docs/memory.md section 7). */
RS_TEST(test_memory_paper_table3, "the Ring Attention paper's Table 3, 8x A100 rows, within 1.5x") {
    const struct {
        const char *model;
        double seq;
    } rows[] = {{"ringattn-3b", 512 * 1024.0}, {"ringattn-7b", 256 * 1024.0}, {"ringattn-13b", 128 * 1024.0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        CU_ASSERT_TRUE(paper_fits(rows[i].model, 8, rows[i].seq / 1.5, NULL));
        CU_ASSERT_FALSE(paper_fits(rows[i].model, 8, rows[i].seq * 1.5, NULL));
    }
    rs_mem_t m;
    CU_ASSERT_FALSE(paper_fits("ringattn-7b", 32, 4096 * 1024.0, &m));
    CU_ASSERT_EQUAL(m.act_saved_bytes, 32.0 * 131072 * 4096 * 4); /* the saved layer inputs quoted above */
    CU_ASSERT(m.act_saved_bytes > 0.75 * 80e9);
}

RS_TEST(test_memory_scaling, "memory_scaling") {
    /* Doubling N halves every per-token term and leaves the static terms alone. */
    rs_transformer_t t = small_model();
    rs_err_t err = {0};
    rs_mem_t a, b;
    rs_mem_config_t c = small_config(RS_CKPT_FULL, RS_PREC_MIXED);
    c.chunk_tokens = 16;
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, &c, &a, &err), 0);
    c.sp_degree = 8;
    CU_ASSERT_EQUAL_FATAL(rs_memory_ring(&t, &c, &b, &err), 0);
    CU_ASSERT_EQUAL(b.act_saved_bytes * 2, a.act_saved_bytes);
    CU_ASSERT_EQUAL(b.ring_bytes * 2, a.ring_bytes);
    CU_ASSERT_EQUAL(b.weights_bytes, a.weights_bytes);
}

RS_TEST(test_memory_bad_input, "memory_bad_input") {
    rs_transformer_t t = small_model();
    rs_err_t err = {0};
    rs_mem_t m;
    rs_mem_config_t c = small_config(RS_CKPT_FULL, RS_PREC_MIXED);
    c.seq_tokens = 1000;
    c.sp_degree = 3;
    CU_ASSERT_EQUAL(rs_memory_ring(&t, &c, &m, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--seq 1000"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "divisible"));
    t.kv_heads = 3;
    c = small_config(RS_CKPT_FULL, RS_PREC_MIXED);
    CU_ASSERT_EQUAL(rs_memory_ring(&t, &c, &m, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "kv_heads"));
}

/* Every shipped model parses; its parameter count agrees with the published one within 1%. */
RS_TEST(test_presets, "presets") {
    const char *const *names = rs_transformer_preset_names();
    int n = 0;
    const char *want[] = {"llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b", "llama3-405b",
                          "ringattn-3b", "ringattn-7b", "ringattn-13b", "ringattn-30b", "ringattn-65b"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        bool found = false;
        for (const char *const *p = names; *p; p++) found |= !strcmp(*p, want[i]);
        if (!found) fprintf(stderr, "  missing preset %s\n", want[i]);
        CU_ASSERT(found);
    }
    for (const char *const *p = names; *p; p++, n++) {
        rs_transformer_t t;
        rs_err_t err = {0};
        int rc = rs_transformer_load(*p, &t, &err);
        if (rc) fprintf(stderr, "  %s: %s\n", *p, err.msg);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        CU_ASSERT_STRING_EQUAL(t.name, *p);
        CU_ASSERT(t.source[0] != '\0');
        if (t.params_reference > 0) RS_ASSERT_REL((double)rs_transformer_params(&t), t.params_reference, 0.01);
    }
    CU_ASSERT(n >= 11);
    rs_transformer_t t;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_transformer_load("llama3-8b", &t, &err), 0);
    CU_ASSERT_EQUAL(rs_transformer_params(&t), 8030261248ull); /* Meta-Llama-3-8B */
    CU_ASSERT_EQUAL(t.kv_heads, 8);
    CU_ASSERT_EQUAL(rs_transformer_load("no-such-model", &t, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no-such-model"));
}

RS_TEST(test_parse_errors, "parse_errors") {
    rs_transformer_t t;
    rs_err_t err = {0};
    const char *unknown = "{\n  \"transformer\": {\n    \"name\": \"x\",\n    \"layerz\": 2\n  }\n}\n";
    CU_ASSERT_EQUAL(rs_transformer_parse(unknown, "t.json", &t, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "t.json:4:5: transformer.layerz: unknown key"));
    const char *type = "{\"transformer\": {\"name\": \"x\", \"layers\": \"2\"}}";
    CU_ASSERT_EQUAL(rs_transformer_parse(type, "t.json", &t, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "transformer.layers: must be an integer"));
    const char *range = "{\"transformer\": {\"name\": \"x\", \"layers\": 0}}";
    CU_ASSERT_EQUAL(rs_transformer_parse(range, "t.json", &t, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "transformer.layers: 0 out of range"));
    const char *kv = "{\"transformer\": {\"name\": \"x\", \"layers\": 2, \"hidden\": 64, \"q_heads\": 4,"
                     " \"kv_heads\": 3, \"head_dim\": 16, \"ffn\": 128, \"vocab\": 100}}";
    CU_ASSERT_EQUAL(rs_transformer_parse(kv, "t.json", &t, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "transformer.kv_heads: 3 must divide q_heads = 4"));
    const char *missing = "{\"transformer\": {\"name\": \"x\", \"layers\": 2}}";
    CU_ASSERT_EQUAL(rs_transformer_parse(missing, "t.json", &t, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "missing key \"hidden\""));
    CU_ASSERT_EQUAL(rs_transformer_parse("{\"transformer\": {", "t.json", &t, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "t.json:1:"));
    CU_ASSERT_EQUAL(rs_transformer_parse("{\"device\": {}}", "t.json", &t, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "device: unknown key"));
}

/* The paper's Table 2 (Liu, Zaharia, Abbeel, arXiv 2310.01889; docs/plan.md): c = F/W and s = 6c. The
 * forward ring buffer of an MHA model in a 2-byte dtype at B = c tokens holds exactly 6c tokens' worth
 * of hidden vectors. c comes from the model's seed threshold (cost.h), not re-derived here. */
RS_TEST(test_paper_six_blocks, "paper_six_blocks") {
    struct {
        const char *setup;
        double f, w, s_ref;
    } rows[] = {
        {"A100 NVLink", 312e12, 300e9, 6240}, {"A100 InfiniBand", 312e12, 12.5e9, 149760},
        {"TPU v3", 123e12, 112e9, 6589},      {"TPU v4", 275e12, 268e9, 6157},
        {"TPU v5e", 196e12, 186e9, 6323},
    };
    rs_transformer_t t;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_transformer_load("ringattn-7b", &t, &err), 0);
    double c_f = 4.0 * (double)(t.head_dim * t.q_heads);        /* cost.h c_f, batch 1 forward */
    double c_b = 2.0 * (double)(t.kv_heads * t.head_dim) * 2.0; /* cost.h c_b, bf16 */
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double c = rs_seed_b_min(rows[i].f, rows[i].w, c_f, c_b);
        RS_ASSERT_REL(c, rows[i].f / rows[i].w, 1e-12); /* MHA, 2 bytes: the paper's c = F/W */
        double ring_bytes = c * rs_memory_ring_fwd_per_token(&t, 2, true);
        double s = ring_bytes / ((double)t.hidden * 2.0); /* in tokens of one hidden vector */
        RS_ASSERT_REL(s, 6.0 * c, 1e-12);
        RS_ASSERT_REL(s, rows[i].s_ref, 1e-3);
    }
}

RS_TEST_PROGRAM("memory")
