/* test_cmd_memory.c - `ringsim memory` end to end: the CSV of Llama-3-8B at S = 1M over N = 32 term by
 * term against the library (rs_sp_memory) and the terms that are one product by hand, the table and
 * the device's verdict, --list; bad input exits 2 with one line and writes nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alt.h"
#include "cmd_test.h"
#include "memory.h"

static double csv_value(const char *csv, const char *term) {
    char key[64];
    snprintf(key, sizeof key, "\n%s,", term);
    const char *at = strstr(csv, key);
    CU_ASSERT_PTR_NOT_NULL(at);
    return at ? strtod(at + strlen(key), NULL) : -1;
}

RS_TEST(test_terms, "the CSV term by term") {
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("memory -m llama3-8b -S 1M -N 32 -p h100-sxm --csv -"), 0);
    CU_ASSERT_EQUAL(strncmp(rs_test_out, "term,bytes\n", 11), 0);
    CU_ASSERT_EQUAL(rs_cmd_lines(rs_test_out), 20); /* header, 19 terms; no table with --csv - */
    rs_transformer_t t;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_transformer_load("llama3-8b", &t, &err), 0);
    rs_mem_config_t c;
    rs_mem_config_default(&c);
    c.seq_tokens = 1 << 20, c.sp_degree = 32, c.shard_devices = 32;
    rs_mem_t m;
    CU_ASSERT_EQUAL_FATAL(rs_sp_memory(&t, &c, &m, &err), 0);
    const struct {
        const char *term;
        double v;
    } rows[] = {{"weights", m.weights_bytes},         {"gradients", m.grads_bytes},      {"optimizer", m.optim_bytes},
                {"fsdp_unit", m.fsdp_unit_bytes},     {"activations_saved", m.act_saved_bytes},
                {"layer_working_set", m.layer_work_bytes}, {"ring_forward", m.ring_fwd_bytes},
                {"ring_backward", m.ring_bwd_bytes},  {"ring", m.ring_bytes},            {"all_to_all_staging", m.a2a_bytes},
                {"ffn_chunk", m.ffn_chunk_bytes},     {"logits_chunk", m.logits_chunk_bytes},
                {"attention_workspace", m.attn_workspace_bytes}, {"tensors", m.model_bytes},
                {"fragmentation", m.fragmentation_bytes}, {"cuda_context", m.context_bytes},
                {"nccl_buffers", m.comm_bytes},       {"total", m.total_bytes}};
    /* the CSV writes whole bytes */
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) RS_ASSERT_REL(csv_value(rs_test_out, rows[i].term), floor(rows[i].v + 0.5), 1e-15);
    /* by hand: P = 8030261248 parameters over 32 devices; T = 1M / 32 = 32768 tokens per device */
    const double P = 8030261248.0, T = 32768;
    CU_ASSERT_EQUAL(rs_transformer_params(&t), 8030261248u);
    RS_ASSERT_REL(csv_value(rs_test_out, "weights"), P * 2 / 32, 1e-15);   /* bf16 */
    RS_ASSERT_REL(csv_value(rs_test_out, "optimizer"), P * 12 / 32, 1e-15); /* fp32 master, Adam m and v */
    RS_ASSERT_REL(csv_value(rs_test_out, "activations_saved"), 32 * T * 4096 * 2, 1e-15); /* full ckpt: each layer's input */
    RS_ASSERT_REL(csv_value(rs_test_out, "ring_forward"), T * (2 * 4096 + 4 * 1024) * 2, 1e-15); /* Q, O, K, V, incoming K, V */
    RS_ASSERT_REL(csv_value(rs_test_out, "logits_chunk"), 2048.0 * 128256 * 4 * 2, 1e-15);       /* a chunk's fp32 logits + grads */
    /* PyTorch's runtime: the flash backward's fp32 workspace T (4 q + 4 Hq), 15% fragmentation of the
     * tensors, one NCCL communicator for FSDP and one for the ring */
    RS_ASSERT_REL(csv_value(rs_test_out, "attention_workspace"), T * (4 * 4096 + 4 * 32), 1e-15);
    RS_ASSERT_REL(csv_value(rs_test_out, "fragmentation"), floor(0.15 * csv_value(rs_test_out, "tensors") + 0.5), 1e-15);
    RS_ASSERT_REL(csv_value(rs_test_out, "nccl_buffers"), 2 * 1.06e9, 1e-15);
}

RS_TEST(test_table, "the table, the device's verdict, --list") {
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("memory -m llama3-8b -S 1M -N 32 -p h100-sxm"), 0);
    /* 27608519066 B of H100-SXM's 80e9 B = 74.506 GiB, all of it usable under PyTorch */
    rs_test_expect_all(rs_test_out, (const char *[]){"  optimizer                         2.805 GiB           3011347968 B   P*12/shard",
                                                     "  total                            25.712 GiB          27608519066 B",
                                                     "# device memory 74.506 GiB, usable 74.506 GiB (1.00): fits (34.5% of usable; headroom 48.793 GiB)\n",
                                                     "# seq=1048576 N=32 ulysses=1 ring=32 tp=1 batch=1 local_tokens=32768 shard=32", NULL});
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("memory --list"), 0);
    int presets = 0;
    for (const char *const *p = rs_transformer_preset_names(); *p; p++) presets++;
    CU_ASSERT_EQUAL(rs_cmd_lines(rs_test_out), presets);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "llama3-8b         8.0B params  L=32  h=4096  Hq=32  Hkv=8   d=128 ffn=14336 V=128256\n"));
}

RS_TEST(test_bad, "bad input") {
    CU_ASSERT_EQUAL(rs_test_ringsim("memory -m llama3-8b -S 1M -N 32 --ulysses 16"), 2);
    CU_ASSERT_EQUAL(rs_cmd_lines(rs_test_err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "KV heads"));
    const char *path = rs_test_path("model.json");
    rs_test_write_text(path, "{\n  \"transformer\": {\n    \"name\": \"x\",\n    \"heads\": 2\n  }\n}\n");
    char args[1024];
    snprintf(args, sizeof args, "memory -m %s --csv %s", path, rs_test_path("m.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, ":4:5: transformer.heads: unknown key"));
    CU_ASSERT(rs_test_file_size(rs_test_path("m.csv")) < 0);
    CU_ASSERT_EQUAL(rs_test_ringsim("memory -m llama3-8b -S 1000 -N 3"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "--seq 1000"));
    CU_ASSERT_EQUAL(rs_test_ringsim("memory -S 1M"), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim memory: --model is required (presets: ringsim memory --list)\n");
}

RS_TEST_MAIN(.suite = "ringsim memory", .scratch = "cmd_memory")
