/* test_infer_plan.c - inference planning (model/5-plan/infer.h, docs/inference.md) against hand-derived
 * numbers: the KV cache and weights per device, the linear layers (GEMMs, the fp8 FFN, the elementwise
 * operations), the TP all-reduces, the LM head,
 * the TTFT sum, the model FLOPs and utilisation, the ring variants' attention on the CP ring (hidden
 * transfers: N t_comp; pass-q's all-to-all across nodes), USP's all-to-alls, Ulysses refused for whole
 * KV heads, the decode step (weight-bound linear on ceil(b/CP) tokens, attention at min(F eff, I x
 * memory bandwidth), an NCCL operation's latency across nodes, pass-q's merge), a flash kernel's query
 * padding, the pass-kv/pass-q crossing when both rings are transfer-bound, and the
 * configuration's bad input (the option named). */
#include <math.h>
#include <string.h>

#include "infer.h"
#include "cost.h"
#include "test_main.h"
#include "model_fixtures.h"

/* TP 2 (2 CP ranks a node) on 2 nodes: CP = 4; T = 1024 on P = 2048, full attention, contiguous. */
static rs_infer_config_t hand_config(void) {
    rs_infer_config_t c;
    rs_infer_config_default(&c);
    c.model = rs_test_infer_tiny();
    c.tp = 2, c.nodes = 2, c.new_tokens = 1024, c.cached_tokens = 2048, c.causal = false, c.layout = RS_LAYOUT_CONTIGUOUS;
    c.linear_eff = 0.5, c.attn_eff = 0.25, c.usable_frac = 0.5, c.tile = 8;
    return c;
}

RS_TEST(test_point_by_hand, "one point by hand: memory, linear, all-reduce, head, rings, USP, TTFT, FLOPs") {
    rs_hw_t hw = rs_test_infer_hw(2e-6);
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    rs_infer_config_t c = hand_config();
    rs_infer_point_t pt;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_infer_point(&c, &hw, &m, &pt, &err), 0);
    CU_ASSERT_EQUAL(pt.tp, 2);
    CU_ASSERT_EQUAL(pt.cp, 4);
    /* weights: 86848 x 2 bytes / TP 2; KV cache: L (P + T) / CP x 2 x Hkv/TP x d x 2 = 2 x 768 x 2 x 2 x 8 x 2 */
    RS_ASSERT_REL(pt.weight_bytes, 86848.0, 1e-15);
    RS_ASSERT_REL(pt.kv_cache_bytes, 98304.0, 1e-15);
    /* the runtime: the CUDA context, TP's and CP's NCCL communicators, pass-q's all-to-all to 3 peers */
    RS_ASSERT_REL(pt.runtime_bytes, 287047680.0 + 2 * 1.06e9 + 3 * 3.28e9 / 7, 1e-15);
    CU_ASSERT(pt.fits); /* 185152 + 3.81e9 <= 0.5 x 10 GB */
    /* linear: 2 x 36864 x 256 tokens / TP 2 FLOPs at 0.5 x 1e12 (compute-bound: 36864 weight bytes take 3.7e-7 s),
     * plus the elementwise operations: per token two RMSNorms 2 x 2 x 64 x 2, two residual adds 2 x 3 x 64 x 2,
     * RoPE on 4 + 2 heads of 8: 2 x 48 x 2, SwiGLU 3 x 64 x 2 = 1856 bytes, 256 tokens at 1e11 B/s */
    RS_ASSERT_REL(pt.pointwise_layer_s, 256 * 1856.0 / 1e11, 1e-15);
    RS_ASSERT_REL(pt.linear_layer_s, 9437184.0 / 5e11 + 256 * 1856.0 / 1e11, 1e-15);
    /* two all-reduces of 256 x 64 x 2 bytes over TP 2: 2 x 2 (2 - 1) (1e-6 + 32768 / (2 x 1e10)) */
    RS_ASSERT_REL(pt.allreduce_layer_s, 4 * (1e-6 + 32768.0 / 2e10), 1e-15);
    /* LM head on one token, the GEMM 1 x 50 over 64 (vocabulary / TP 2): it reads 64 + 3200 and writes 50
     * elements of 2 bytes at 1e11 B/s (memory-bound: 6400 FLOPs take 1.3e-8 s) */
    RS_ASSERT_REL(pt.head_s, 6628.0 / 1e11, 1e-15);
    /* pass-kv: B = 256, Bc = 512; t_comp = 4 d Hq/TP B (B + Bc) / (0.25 x 1e12) = 4 x 8 x 4 x 256 x 768 / 2.5e11;
     * a K,V block of 768 x 2 x 2 x 8 x 2 = 49152 bytes crosses a node in 2e-6 + 4.9152e-5 s < t_comp: hidden */
    const double tc = 25165824.0 / 2.5e11;
    const rs_infer_option_t *kv = &pt.opt[RS_INFER_PASS_KV], *q = &pt.opt[RS_INFER_PASS_Q];
    CU_ASSERT(kv->feasible && q->feasible);
    RS_ASSERT_REL(kv->attn_layer_s, 4 * tc, 1e-12);
    CU_ASSERT(kv->hidden);
    RS_ASSERT_REL(kv->step_bytes, 49152.0, 1e-15);
    /* pass-q: Q blocks of 256 x 4 x 8 x 2 = 16384 bytes (hidden), then the all-to-all of partials of
     * 256 x 4 x (8 x 2 + 4) = 20480 bytes per peer: 2 peers on the other node through one NIC,
     * 2e-6 + 2 x 20480 / 1e9 (the node's own peer over the intra tier is faster) */
    const double a2a = 2e-6 + 2 * 20480.0 / 1e9;
    RS_ASSERT_REL(q->step_bytes, 16384.0, 1e-15);
    RS_ASSERT_REL(q->a2a_layer_s, a2a, 1e-12);
    /* and each owner merges its 4 partials and writes O: (4 + 1) x 256 rows x 4 heads x (8 x 2 + 4) bytes */
    const double merge = 5 * 256 * 4 * 20.0 / 1e11;
    RS_ASSERT_REL(q->attn_layer_s, 4 * tc + a2a + merge, 1e-12);
    /* Ulysses over 4 CP ranks needs Hkv/TP = 2 divisible by 4 */
    CU_ASSERT(!pt.opt[RS_INFER_ULYSSES].feasible);
    CU_ASSERT_PTR_NOT_NULL(strstr(pt.opt[RS_INFER_ULYSSES].why_not, "not divisible by U = 4"));
    /* USP U = 2 inside a node, R = 2 across: one all-to-all per tensor, Q in 256 x 4 x 8 x 2 = 16384 bytes,
     * K and V 256 x 2 x 8 x 2 = 8192 each, O out 16384, each a pair exchange of half over the intra tier
     * with its own latency; the ring of 2 on 2/1 heads: B = 512, Bc = 1024,
     * t_comp = 4 x 8 x 2 x 512 x 1536 / 2.5e11, hidden (49152 bytes on the inter tier) */
    const rs_infer_option_t *usp = &pt.opt[RS_INFER_USP];
    CU_ASSERT_FATAL(usp->feasible);
    CU_ASSERT_EQUAL(usp->ulysses, 2);
    CU_ASSERT_EQUAL(usp->ring, 2);
    const double usp_a2a = 2 * (1e-6 + 8192.0 / 1e10) + 2 * (1e-6 + 4096.0 / 1e10);
    RS_ASSERT_REL(usp->a2a_layer_s, usp_a2a, 1e-12);
    RS_ASSERT_REL(usp->attn_layer_s, usp_a2a + 2 * (50331648.0 / 2.5e11), 1e-12);
    /* TTFT = L (linear + all-reduce + attention) + head; pass-kv wins */
    for (int i = 0; i < RS_INFER_COUNT; i++)
        if (pt.opt[i].feasible)
            RS_ASSERT_REL(pt.opt[i].ttft_s, 2 * (pt.linear_layer_s + pt.allreduce_layer_s + pt.opt[i].attn_layer_s) + pt.head_s,
                          1e-15);
    CU_ASSERT_EQUAL(pt.best, RS_INFER_PASS_KV);
    CU_ASSERT_PTR_NOT_NULL(strstr(pt.why, "pass-kv wins"));
    /* model FLOPs: L (2 P_m T + 4 d Hq T (P + T)) + 2 V h = 2 (75497472 + 256 x 1024 x 3072) + 12800 */
    const double mf = 2 * (75497472.0 + 256.0 * 1024 * 3072) + 12800;
    RS_ASSERT_REL(pt.model_flops, mf, 1e-15);
    RS_ASSERT_REL(pt.flops_util, mf / (kv->ttft_s * 8 * 1e12), 1e-15); /* bf16 GEMMs: one peak */
    /* causal: T (P + (T + 1) / 2) pairs */
    c.causal = true;
    CU_ASSERT_EQUAL_FATAL(rs_infer_point(&c, &hw, &m, &pt, &err), 0);
    RS_ASSERT_REL(pt.model_flops, 2 * (75497472.0 + 256.0 * (1024.0 * 2048 + 1024.0 * 1025 / 2)) + 12800, 1e-15);
}

/* fp8 weights for the FFN only (Llama 3's recipe): its bytes halved and its GEMMs at the fp8 peak; the
 * attention projections and the LM head stay bf16. */
RS_TEST(test_fp8_linear, "fp8 FFN: its weight bytes halved at the fp8 peak, projections and head in bf16") {
    rs_hw_t hw = rs_test_infer_hw(2e-6);
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    rs_infer_config_t c = hand_config();
    c.linear_dtype = RS_DTYPE_FP8;
    rs_infer_point_t pt;
    CU_ASSERT_EQUAL_FATAL(rs_infer_point(&c, &hw, &m, &pt, NULL), 0);
    /* the FFN's 2 x 3 x 64 x 128 = 49152 parameters in one byte, the other 37696 in two, over TP 2 */
    RS_ASSERT_REL(pt.weight_bytes, (49152.0 + 2 * 37696.0) / 2, 1e-15);
    /* per token: QKV 2 x 64 x 64 and O 2 x 64 x 32 FLOPs at 0.5 x 1e12, up 2 x 128 x 64 and down 2 x 64 x 64 at
     * 0.5 x 2e12; the elementwise 1856 bytes plus the FFN inputs' quantization 3 x (64 + 64): 2240 bytes */
    RS_ASSERT_REL(pt.linear_layer_s, 256 * (12288.0 / 5e11 + 24576.0 / 1e12 + 2240.0 / 1e11), 1e-15);
    RS_ASSERT_REL(pt.head_s, (64 + 3200 + 50) * 2.0 / 1e11, 1e-15); /* bf16 */
    /* the fraction of peak: the FFN's FLOPs at the fp8 peak, the rest and the attention's at the bf16 peak */
    const double ffn = 2 * 2 * 24576.0 * 1024, lin = 2 * 2 * 36864.0 * 1024 + 2 * 100.0 * 64, attn = 2 * 4.0 * 8 * 8 * 1024 * 3072;
    RS_ASSERT_REL(pt.flops_util, (ffn / 2e12 + (lin - ffn + attn) / 1e12) / (pt.opt[pt.best].ttft_s * 8), 1e-12);
    CU_ASSERT(pt.flops_util <= 1);
}

/* Decode, 8 sequences over CP 4 at a context of P + T = 3072: 2 tokens per CP rank through the linear
 * layers' four GEMMs, each weight-bound: QKV reads 2 x 64 + 64 x 64 and writes 2 x 64, O 2 x 32 +
 * 32 x 64 and 2 x 64, up 2 x 64 + 64 x 128 and 2 x 128, down as QKV: 19520 elements of 2 bytes at 1e11
 * B/s (against 147456 FLOPs at 5e11); the all-reduces of 2 x 64 x 2 bytes; the head on 2 tokens,
 * weight-bound; attention: the decode schedule memory-bound, KV bytes at the profile's decode_bw_eff 0.5 of
 * 1e11 B/s: the rate min(1e12, I x 1e11 x 0.5) with I = 2 Hq / (Hkv e) = 2 FLOPs per KV byte: 1e11, its
 * messages across nodes at an NCCL operation's 19.9 us (above the tier's 2 us), then the merge of 4
 * partials of 2 rows. */
RS_TEST(test_decode_by_hand, "decode step by hand: weight-bound linear, memory-bound attention at decode_bw_eff") {
    rs_hw_t hw = rs_test_infer_hw(2e-6);
    hw.decode_bw_eff = (rs_span_t){0.5, 0.5, 0.5};
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    rs_infer_config_t c = hand_config();
    c.causal = true, c.decode_batch = 8;
    rs_infer_point_t pt;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_infer_point(&c, &hw, &m, &pt, &err), 0);
    RS_ASSERT_REL(pt.decode_linear_layer_s, (39040.0 + 2 * 1856.0) / 1e11, 1e-15); /* + 2 tokens' elementwise bytes */
    RS_ASSERT_REL(pt.decode_bw_eff, 0.5, 1e-15);
    /* the attention: the decode problem's closed form on the CP ring at 1e11 FLOP/s */
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 1, p.cached_tokens = 3072, p.n_ranks = 4, p.batch = 8, p.decode = true, p.ring = RS_RING_PASS_Q;
    p.q_heads = 4, p.kv_heads = 2, p.head_dim = 8, p.act_bytes = 2, p.causal = true, p.layout = RS_LAYOUT_CONTIGUOUS;
    p.tile_q = p.tile_k = 8;
    rs_machine_t rm = m;
    rm.devices_per_node = 2, rm.flops_per_s = 1e11, rm.inter.latency_s = 19.9e-6;
    rs_closed_t cl;
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &rm, &cl, &err), 0);
    const double merge = 5 * 2 * 4 * 20.0 / 1e11;
    RS_ASSERT_REL(pt.decode_attn_layer_s, cl.makespan_s + merge, 1e-12);
    const double ar = 4 * (1e-6 + 256.0 / 2e10), head = (2 * 64 + 64 * 50 + 2 * 50) * 2.0 / 1e11;
    RS_ASSERT_REL(pt.decode_step_s, 2 * ((39040.0 + 2 * 1856.0) / 1e11 + ar + cl.makespan_s + merge) + head, 1e-12);
    /* with the tier's latency alone (2 us) the step would be shorter by the ring's and the all-to-all's difference */
    rm.inter.latency_s = 2e-6;
    rs_closed_t cl2;
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &rm, &cl2, &err), 0);
    CU_ASSERT(cl2.makespan_s < cl.makespan_s);
    /* 6 sequences: still 2 tokens on the busiest CP rank (ceil(6 / 4)) */
    c.decode_batch = 6;
    CU_ASSERT_EQUAL_FATAL(rs_infer_point(&c, &hw, &m, &pt, &err), 0);
    RS_ASSERT_REL(pt.decode_linear_layer_s, (39040.0 + 2 * 1856.0) / 1e11, 1e-15);
}

/* hand_hw with one kernel (the flash-attn preset's) of the given name and kind and a forward full-mask
 * curve of two points, 256 x 256 at 2e11 and 1024 x 1024 at 8e11 FLOP/s, head_dim 8. */
static rs_hw_t curve_hw(const char *name, rs_rate_kind_t kind) {
    rs_hw_t hw = rs_test_infer_hw(2e-6);
    rs_kernel_table_t *t = &hw.kernels;
    t->n_kernels = 1, t->n_curves = 1;
    snprintf(t->kernel[0].name, sizeof t->kernel[0].name, "%s", name);
    t->kernel[0].kind = kind;
    snprintf(t->kernel[0].source, sizeof t->kernel[0].source, "a hand curve");
    rs_kcurve_t *cv = &t->curve[0];
    cv->kernel = 0, cv->dtypes = 1u << RS_DTYPE_BF16, cv->head_dim = 8, cv->pass = RS_PASS_FORWARD, cv->mask = RS_KMASK_FULL, cv->n = 2;
    cv->pt[0] = (rs_kpoint_t){256, 256, 2e11};
    cv->pt[1] = (rs_kpoint_t){1024, 1024, 8e11};
    t->impl_kernel[RS_IMPL_FLASH_ATTN] = 1, t->default_impl = RS_IMPL_FLASH_ATTN;
    CU_ASSERT_EQUAL(rs_kernel_table_prepare(t, NULL), 0);
    return hw;
}

/* The prefill's rate from the profile's kernel curve: one kernel (the flash-attn preset's) with a forward
 * full-mask curve of two points, 256 x 256 at 2e11 and 1024 x 1024 at 8e11 FLOP/s (full waves). The hand
 * point's pass-kv calls (whole tiles: no padding) are a rank's 256 query rows against a K,V block of (1024 + 2048) / 4 = 768 tokens:
 * area 196608 = 3 x 65536, log-log between the points: 2e11 x 4^(ln 3 / ln 16) = 2e11 sqrt(3), an
 * efficiency of 0.2 sqrt(3) of the 1e12 peak; pass-kv's four hidden steps then take 4 x 25165824 FLOPs at
 * that rate. --attn-eff replaces the curve (user-given). */
RS_TEST(test_prefill_kernel_curve, "prefill attention at the preset's forward kernel curve, by hand") {
    rs_hw_t hw = curve_hw("hand-fa", RS_RKIND_PUBLISHED);
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(m.kernel, 1);
    rs_infer_config_t c = hand_config();
    c.attn_eff = 0; /* the kernel model */
    rs_infer_point_t pt;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_infer_point(&c, &hw, &m, &pt, &err), 0);
    const double rate = 2e11 * sqrt(3.0);
    RS_ASSERT_REL(pt.opt[RS_INFER_PASS_KV].attn_layer_s, 4 * 25165824.0 / rate, 1e-9);
    CU_ASSERT(pt.opt[RS_INFER_PASS_KV].hidden);
    char line[1024];
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_infer_rates_describe(&c, &hw, &m, line, sizeof line),
                                  "prefill attention at the published forward full-mask rates by call shape (head_dim 8, full "
                                  "waves: split-KV) x the query padding (kernel hand-fa, "));
    /* a shipped profile's sources are printed whole, not cut at a fixed width */
    {
        rs_hw_t h100 = rs_test_hw("h100-sxm");
        rs_machine_t m100;
        CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&h100, RS_DTYPE_BF16, &m100, NULL), 0);
        rs_infer_config_t c100 = c;
        c100.decode_batch = 1;
        char whole[4096];
        rs_infer_rates_describe(&c100, &h100, &m100, whole, sizeof whole);
        rs_rate_source_t d;
        (void)rs_infer_decode_bw_eff(&h100, &d);
        CU_ASSERT(strlen(d.source) > 200);
        CU_ASSERT_PTR_NOT_NULL(strstr(whole, d.source));
        CU_ASSERT_PTR_NOT_NULL(strstr(whole, "with ring-flash-attention's H800 run for the causal backward)"));
    }
    /* --attn-eff 0.25: the dense model at 0.25 x 1e12 (test_point_by_hand's), said user-given */
    c.attn_eff = 0.25;
    CU_ASSERT_EQUAL_FATAL(rs_infer_point(&c, &hw, &m, &pt, &err), 0);
    RS_ASSERT_REL(pt.opt[RS_INFER_PASS_KV].attn_layer_s, 4 * 25165824.0 / 2.5e11, 1e-12);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_infer_rates_describe(&c, &hw, &m, line, sizeof line), "--attn-eff 0.25"));
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "(user-given)"));
    /* no kernel (--impl none): the machine's own attention record, the bare peak said so, once */
    c.attn_eff = 0;
    CU_ASSERT_EQUAL_FATAL(rs_machine_set_kernel(&m, RS_IMPL_NONE, 0, &err), 0);
    char want[600];
    snprintf(want, sizeof want, "prefill attention at F = 1 TFLOP/s, %s: %s", rs_rate_kind_name(m.src.rate[RS_RATE_ATTN].kind),
             m.src.rate[RS_RATE_ATTN].source);
    CU_ASSERT_STRING_EQUAL(rs_infer_rates_describe(&c, &hw, &m, line, sizeof line), want);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "the bare datasheet peak F, an upper bound and not a kernel rate"));
}

/* An estimated kernel curve (borrowed from another device) against a calibration published on this device:
 * the calibration rates the prefill (4 x 25165824 FLOPs at 0.3 x 1e12), and the rate line names its source;
 * a published curve keeps its place. */
RS_TEST(test_prefill_calibration_first, "prefill: a device's published calibration outranks an estimated kernel curve") {
    rs_hw_t hw = curve_hw("borrowed-fa", RS_RKIND_ESTIMATED);
    rs_kernel_table_t *t = &hw.kernels;
    hw.cal.n_eff = 1, hw.cal.eff[0] = (rs_eff_point_t){8192, 0.3};
    hw.eff_src.kind = RS_RKIND_PUBLISHED;
    snprintf(hw.eff_src.source, sizeof hw.eff_src.source, "a paper's kernel rate on this device");
    for (int published = 0; published < 2; published++) {
        t->kernel[0].kind = published ? RS_RKIND_PUBLISHED : RS_RKIND_ESTIMATED;
        rs_machine_t m;
        CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
        rs_infer_config_t c = hand_config();
        c.attn_eff = 0;
        rs_infer_point_t pt;
        rs_err_t err = {0};
        CU_ASSERT_EQUAL_FATAL(rs_infer_point(&c, &hw, &m, &pt, &err), 0);
        RS_ASSERT_REL(pt.opt[RS_INFER_PASS_KV].attn_layer_s, 4 * 25165824.0 / (published ? 2e11 * sqrt(3.0) : 3e11), 1e-9);
        char line[1024];
        rs_infer_rates_describe(&c, &hw, &m, line, sizeof line);
        CU_ASSERT_PTR_NOT_NULL(strstr(line, published ? "at the published forward full-mask rates by call shape (head_dim 8, full waves: split-KV) x the query padding (kernel borrowed-fa" : "eff(B) published (a paper's kernel rate on this device)"));
    }
}

/* The decode kernel's bandwidth fraction: the h100-sxm preset's is published (0.552: FlashAttention-3's
 * 1849 GB/s of 3.35 TB/s); a profile without the figure borrows the preset's, estimated, and says whose. */
RS_TEST(test_decode_bw_eff_sources, "decode bandwidth fraction: the preset's published figure, else an estimate naming it") {
    rs_hw_t h100;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &h100, NULL), 0);
    rs_rate_source_t src;
    RS_ASSERT_REL(rs_infer_decode_bw_eff(&h100, &src), 1849.0 / 3350.0, 1e-3);
    CU_ASSERT_EQUAL(src.kind, RS_RKIND_PUBLISHED);
    CU_ASSERT_PTR_NOT_NULL(strstr(src.source, "flash-attention issue 1572"));
    rs_hw_t hw = rs_test_infer_hw(2e-6); /* a profile that names no device preset and gives no figure */
    RS_ASSERT_REL(rs_infer_decode_bw_eff(&hw, &src), h100.decode_bw_eff.point, 1e-15);
    CU_ASSERT_EQUAL(src.kind, RS_RKIND_ESTIMATED);
    CU_ASSERT_PTR_NOT_NULL(strstr(src.source, "the profile gives no device.decode_bw_eff: H100-SXM's 0.552"));
}

/* The query padding of a flash kernel's tiles: 16 new tokens over CP 4 (contiguous) are calls of 4 query
 * rows; with transfers free the attention is compute alone, 4 d rows keys heads = 4 x 8 x 4 x 2064 x 4
 * FLOPs a rank (full mask, every cached and new key) at 0.25 x 1e12 when the tile is 4 rows, and four
 * times as long when the tile is 16 rows (each call runs a whole tile: 4/16 of it useful). */
RS_TEST(test_query_padding, "a call of fewer query rows than the kernel's tile pays the whole tile") {
    rs_hw_t hw = rs_test_infer_hw(0);
    hw.intra = (rs_tier_t){"intra", 1e30, 0, {0, 0, 0}, 0}, hw.inter = (rs_tier_t){"inter", 1e30, 0, {0, 0, 0}, 0};
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    rs_infer_config_t c = hand_config();
    c.new_tokens = 16, c.cached_tokens = 2048, c.tile = 4;
    const rs_infer_ring_case_t rc = {RS_RING_PASS_KV, 16, 2048};
    double t4, t16;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_infer_ring_attn(&c, &m, &rc, &t4, NULL, &err), 0);
    RS_ASSERT_REL(t4, 4.0 * 8 * 4 * 2064 * 4 / (0.25 * 1e12), 1e-9);
    c.tile = 16;
    CU_ASSERT_EQUAL_FATAL(rs_infer_ring_attn(&c, &m, &rc, &t16, NULL, &err), 0);
    RS_ASSERT_REL(t16, 4 * t4, 1e-9);
}

/* With compute free and no latency on the CP ring (TP = G: one CP rank a node, every hop and the whole
 * all-to-all on the NIC) both rings are transfer-bound: pass-kv moves (B + Bc) 2 Hkv d e per step,
 * pass-q B Hq d e per step and B Hq (d e + 4) to each of the N - 1 peers at the end. With Hq = 2, Hkv = 1
 * per device (TP 4 of 8/4 heads), d e = 16 and N = 2: pass-kv 32 (B + Bc) bytes, pass-q 32 B + 40 B; they
 * cross at T / P = 2 Hkv d e / (2 Hq d e + 4 Hq - 2 Hkv d e) = 32 / 40 = 0.8 (the transfer-bound line).
 * pass-q also merges its N partials: (N + 1) B Hq (d e + 4) = 120 B bytes through 1e11 B/s, 1.2 B
 * bytes' worth at the NIC's 1e9: the crossing is 32 (B + Bc) = 73.2 B, B = 32 x 502 / 41.2 = 389.9,
 * T = 779.8: the smallest multiple of the zigzag granule 2 N = 4 above it is 780. */
RS_TEST(test_crossing_transfer_bound, "pass-kv/pass-q crossing, both transfer-bound, with the merge: T = 780 on P = 1004") {
    rs_hw_t hw = rs_test_infer_hw(0);
    hw.flops_per_s[RS_DTYPE_BF16] = 1e30;
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    rs_infer_config_t c = hand_config();
    c.tp = 4, c.nodes = 2, c.attn_eff = 1, c.causal = true, c.layout = RS_LAYOUT_ZIGZAG, c.cached_tokens = 1004;
    c.new_tokens = 4;
    int64_t t = 0;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_infer_crossing(&c, &m, &t, &err), 0);
    CU_ASSERT_EQUAL(t, 780);
    RS_ASSERT_REL(rs_infer_comm_bound_ratio(&c, &m), 0.8, 1e-15); /* 32 / (64 + 8 - 32) */
    CU_ASSERT_EQUAL(rs_infer_cp_ranks(&c, &m), 2);
    /* one granule below it, by hand: pass-kv (B + Bc) 32 / W, pass-q B (32 + 40) / W + the merge */
    double kv, q;
    CU_ASSERT_EQUAL_FATAL(rs_infer_ring_attn(&c, &m, &(rs_infer_ring_case_t){RS_RING_PASS_KV, 776, 1004}, &kv, NULL, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_infer_ring_attn(&c, &m, &(rs_infer_ring_case_t){RS_RING_PASS_Q, 776, 1004}, &q, NULL, &err), 0);
    RS_ASSERT_REL(kv, 32.0 * (388 + 502) / 1e9, 1e-9);
    RS_ASSERT_REL(q, 72.0 * 388 / 1e9 + 3 * 388 * 2 * 20.0 / 1e11, 1e-9);
    CU_ASSERT(q < kv);
    /* without a cache pass-kv is no slower at the smallest T */
    c.cached_tokens = 0;
    CU_ASSERT_EQUAL_FATAL(rs_infer_crossing(&c, &m, &t, &err), 0);
    CU_ASSERT_EQUAL(t, 0);
}

/* The crossing on a realistic profile: pass-kv no slower at T, pass-q faster one granule below. */
RS_TEST(test_crossing_brackets, "the crossing brackets the switch on h100-sxm / llama3-70b") {
    rs_hw_t hw;
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &hw, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    rs_infer_config_t c;
    rs_infer_config_default(&c);
    CU_ASSERT_EQUAL_FATAL(rs_transformer_load("llama3-70b", &c.model, NULL), 0);
    c.nodes = 4, c.cached_tokens = 65536;
    int64_t t = 0;
    CU_ASSERT_EQUAL_FATAL(rs_infer_crossing(&c, &m, &t, NULL), 0);
    CU_ASSERT_FATAL(t > 8 && t % 8 == 0); /* 2 x CP */
    double kv, q;
    CU_ASSERT_EQUAL(rs_infer_ring_attn(&c, &m, &(rs_infer_ring_case_t){RS_RING_PASS_KV, t, 65536}, &kv, NULL, NULL), 0);
    CU_ASSERT_EQUAL(rs_infer_ring_attn(&c, &m, &(rs_infer_ring_case_t){RS_RING_PASS_Q, t, 65536}, &q, NULL, NULL), 0);
    CU_ASSERT(kv <= q);
    CU_ASSERT_EQUAL(rs_infer_ring_attn(&c, &m, &(rs_infer_ring_case_t){RS_RING_PASS_KV, t - 8, 65536}, &kv, NULL, NULL), 0);
    CU_ASSERT_EQUAL(rs_infer_ring_attn(&c, &m, &(rs_infer_ring_case_t){RS_RING_PASS_Q, t - 8, 65536}, &q, NULL, NULL), 0);
    CU_ASSERT(kv > q);
}

static void expect_bad(const rs_infer_config_t *c, const rs_machine_t *m, const char *msg) {
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_infer_config_validate(c, m, &err), -1);
    if (!strstr(err.msg, msg)) fprintf(stderr, "\n  expected '%s' in '%s'\n", msg, err.msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, msg));
}

RS_TEST(test_bad_config, "bad configurations name the option and the rule") {
    rs_hw_t hw = rs_test_infer_hw(2e-6);
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    rs_infer_config_t c = hand_config();
    CU_ASSERT_EQUAL(rs_infer_config_validate(&c, &m, NULL), 0);
    c.tp = 3;
    expect_bad(&c, &m, "--tp 3: must divide the 4 devices of a node");
    c = hand_config(), c.model.q_heads = 6, c.model.kv_heads = 2, c.tp = 4; /* 6 heads, TP 4 */
    expect_bad(&c, &m, "--tp 4: must divide the 6 query heads of tiny");
    c = hand_config(), c.new_tokens = 1022; /* contiguous over CP 4 */
    expect_bad(&c, &m, "--seq 1022: must be divisible by N = 4");
    expect_bad(&c, &m, "(N = 4 CP ranks: 2 nodes x 4 devices / TP 2)");
    c = hand_config(), c.layout = RS_LAYOUT_ZIGZAG, c.causal = true, c.cached_tokens = 2044;
    expect_bad(&c, &m, "--cached 2044: must be divisible by 2*N = 8");
    c = hand_config(), c.decode_batch = 4;
    expect_bad(&c, &m, "--decode-batch 4: decode needs the causal mask");
    c = hand_config(), c.linear_eff = 1.5;
    expect_bad(&c, &m, "--linear-eff 1.5: must be in (0, 1]");
    c = hand_config(), c.nodes = 0;
    expect_bad(&c, &m, "--nodes 0: must be in [1, 1048576]");
}

/* The estimate before the point runs (estimate.h), by hand: CP = 4, forward walks of R x R rank-steps -
 * pass-kv and pass-q 2 x 16, Ulysses (R = 1) 1, USP U = 2 (R = 2) 4; the crossing (P > 0): T doubled
 * from one granule (4 tokens, contiguous) up to 2^26 / 4 = 2^24 granules - 24 doublings - then a
 * bisection as long, 2 walks each: 2 (2 x 24 + 1) x 16 = 1568; decode one more walk of 16. */
RS_TEST(test_estimate_by_hand, "the estimate of a point's walks by hand") {
    rs_hw_t hw = rs_test_infer_hw(2e-6);
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    rs_infer_config_t c = hand_config();
    c.cached_tokens = 0;
    rs_estimate_t e = {0, 0, 0};
    rs_infer_estimate(&c, &m, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 37);
    RS_ASSERT_REL(e.time_s, 37 * 30e-9, 1e-12);
    c.cached_tokens = 2048;
    e = (rs_estimate_t){0, 0, 0};
    rs_infer_estimate(&c, &m, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 37 + 1568);
    e = (rs_estimate_t){0, 0, 0};
    rs_infer_crossing_estimate(&c, &m, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 1568);
    c.decode_batch = 4, c.causal = true;
    e = (rs_estimate_t){0, 0, 0};
    rs_infer_estimate(&c, &m, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 37 + 1568 + 16);
    /* 12 CP ranks: divisors 2, 3, 4, 6 (R = 6, 4, 3, 2) and 12 (R = 1): 2 x 144 + 36 + 16 + 9 + 4 + 1 */
    c.cached_tokens = 0, c.decode_batch = 0, c.nodes = 6;
    e = (rs_estimate_t){0, 0, 0};
    rs_infer_estimate(&c, &m, &e);
    CU_ASSERT_EQUAL(rs_infer_cp_ranks(&c, &m), 12);
    CU_ASSERT_EQUAL(e.rank_steps, 2 * 144 + 36 + 16 + 9 + 4 + 1);
}

RS_TEST_PROGRAM("inference planning")
