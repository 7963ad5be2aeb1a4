/* test_tp.c - tensor parallelism inside a node (tp.c): the degrees a model and a node allow, the heads a
 * device holds, the ring all-reduce and a layer's elementwise bytes by hand. */
#include <string.h>

#include "test_main.h"
#include "model_fixtures.h"
#include "tp.h"

RS_TEST(test_degrees, "which TP degrees llama3-70b and llama2-7b allow on nodes of 8") {
    const rs_transformer_t t = rs_test_transformer("llama3-70b"); /* 64 query, 8 KV heads */
    rs_err_t err = {0};
    for (int64_t tp = 1; tp <= 8; tp *= 2) CU_ASSERT_EQUAL(rs_tp_check(&t, 8, tp, &err), 0);
    CU_ASSERT_EQUAL(rs_tp_check(&t, 8, 3, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--tp 3: must divide the 8 devices of a node"));
    CU_ASSERT_EQUAL(rs_tp_check(&t, 16, 16, &err), 0); /* 16 > 8 KV heads: each replicated twice */
    CU_ASSERT_EQUAL(rs_tp_q_heads(&t, 16), 4);
    CU_ASSERT_EQUAL(rs_tp_kv_heads(&t, 16), 1);
    rs_transformer_t odd = t;
    odd.q_heads = 48, odd.kv_heads = 6;
    CU_ASSERT_EQUAL(rs_tp_check(&odd, 8, 4, &err), -1); /* 4 neither divides 6 nor is a multiple of it */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "must divide the 6 KV heads"));
    CU_ASSERT_EQUAL(rs_tp_check(&odd, 16, 16, &err), -1); /* 48 / 16 = 3 query heads, but 16 % 6 != 0 */
    const rs_transformer_t d = rs_tp_device_attention(&t, 8);
    CU_ASSERT_EQUAL(d.q_heads, 8);
    CU_ASSERT_EQUAL(d.kv_heads, 1);
    CU_ASSERT_EQUAL(d.hidden, t.hidden);
}

/* 2 (tp - 1) steps of M / tp bytes, each paying the tier's latency: TP 8 over 400 GB/s and 3 us on
 * 64 MiB: 14 x (3e-6 + 8 MiB / 400e9). */
RS_TEST(test_allreduce_by_hand, "the ring all-reduce by hand") {
    rs_machine_t m = rs_test_round_machine();
    m.intra.latency_s = 3e-6;
    RS_ASSERT_REL(rs_tp_allreduce_s(&m, 8, 64.0 * 1048576), 14 * (3e-6 + 8.0 * 1048576 / 400e9), 1e-12);
    CU_ASSERT_EQUAL(rs_tp_allreduce_s(&m, 1, 1e9), 0);
}

/* Llama 3 405B on TP 8 (h 16384, 16 + 1 heads of d 128 a device, FFN 53248 / 8 = 6656, SwiGLU), per token
 * of a layer: RMSNorms 2 x 2 x 16384 x 2 = 131072, residual adds 2 x 3 x 16384 x 2 = 196608, RoPE
 * 2 x 17 x 128 x 2 = 8704, SwiGLU 3 x 6656 x 2 = 39936: 376320 bytes; an fp8 FFN adds the quantization of
 * its inputs, 3 x (16384 + 6656) = 69120. */
RS_TEST(test_pointwise_by_hand, "the elementwise bytes of a Llama layer by hand, bf16 and fp8 FFN") {
    const rs_transformer_t t = rs_test_transformer("llama3-405b");
    RS_ASSERT_REL(rs_tp_pointwise_bytes(&t, 8, false), 376320.0, 1e-15);
    RS_ASSERT_REL(rs_tp_pointwise_bytes(&t, 8, true), 376320.0 + 69120.0, 1e-15);
    /* TP 1: the whole FFN width and all 128 + 8 heads on one device */
    RS_ASSERT_REL(rs_tp_pointwise_bytes(&t, 1, false), 131072.0 + 196608.0 + 2 * 136 * 128 * 2.0 + 3 * 53248 * 2.0, 1e-15);
}

RS_TEST_PROGRAM("tp")
