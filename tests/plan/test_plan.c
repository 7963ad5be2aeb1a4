/* test_plan.c - capacity planning (plan.c): the ring over Ulysses and back, one option's arithmetic
 * by hand, the smallest N and the longest S that fit, a plan that does not fit, and the plan's
 * estimate against its walks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alt.h"
#include "cost.h"
#include "plan.h"
#include "harness.h"
#include "test_main.h"
#include "model_fixtures.h"

static rs_hw_t round_hw(void) {
    rs_hw_t hw = {.name = "round", .mem_bytes = 80e9, .mem_bw_bytes_per_s = 4e12, .price_per_device_hour = 3.6};
    hw.flops_per_s[RS_DTYPE_BF16] = 1e15, hw.flops_per_s[RS_DTYPE_FP8] = 2e15;
    return hw;
}

/* A plan of model at S tokens on the round machine (80 GB devices at 3.6 USD/h). */
typedef struct {
    rs_plan_config_t c;
    rs_hw_t hw;
    rs_machine_t m;
} fixture_t;

static fixture_t fixture(const char *model, int64_t seq) {
    fixture_t f = {.hw = round_hw(), .m = rs_test_round_machine()};
    rs_plan_config_default(&f.c);
    f.c.model = rs_test_transformer(model);
    f.c.seq_tokens = seq;
    f.c.usable_frac = 0.9; /* 72 GB of the 80 */
    f.c.linear_eff = 0.7;  /* a flat GEMM efficiency: the hand formulas below */
    return f;
}

/* f's plan into r (a fatal assertion when it fails, its message on stderr). */
static void plan_ok(fixture_t *f, rs_plan_result_t *r) {
    rs_err_t err = {0};
    const int rc = rs_plan_run(&f->c, &f->hw, &f->m, r, &err);
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/* When N exceeds the KV heads, pure Ulysses is not an option and the plan never picks it. With 8 KV
 * heads and N = 32 across nodes of 8, the ring is chosen unless a USP split is faster. */
RS_TEST(test_ring_over_ulysses, "ring_over_ulysses") {
    fixture_t f = fixture("llama3-8b", 1 << 20);
    f.c.fixed_sp = 32;
    rs_plan_result_t *r = malloc(sizeof *r);
    plan_ok(&f, r);
    CU_ASSERT_EQUAL(r->sp, 32);
    CU_ASSERT(r->best >= 0);
    for (int i = 0; i < r->n_options; i++) {
        CU_ASSERT(r->options[i].kind != RS_SP_ULYSSES);
        CU_ASSERT(r->options[i].ulysses <= 8);
    }
    CU_ASSERT_NOT_EQUAL(r->options[r->best].kind, RS_SP_ULYSSES);
    CU_ASSERT_PTR_NOT_NULL(strstr(r->why, "pure Ulysses impossible: N=32 > 8 KV heads"));
    /* without USP the ring is the only choice and wins */
    f.c.alternatives = false;
    plan_ok(&f, r);
    CU_ASSERT_EQUAL(r->n_options, 1);
    CU_ASSERT_EQUAL(r->best, 0);
    CU_ASSERT_EQUAL(r->options[0].kind, RS_SP_RING);
    CU_ASSERT_PTR_NOT_NULL(strstr(r->why, "ring N=32 wins"));
    /* N = 8 <= 8 KV heads inside one node: Ulysses is costed */
    f.c.alternatives = true;
    f.c.fixed_sp = 8;
    plan_ok(&f, r);
    bool has_ulysses = false;
    for (int i = 0; i < r->n_options; i++) has_ulysses |= r->options[i].kind == RS_SP_ULYSSES;
    CU_ASSERT_TRUE(has_ulysses);
    free(r);
}

/* The choice is real: on one node with a slow link (64 GB/s, PCIe-like) an MHA model's 4K-token ring
 * blocks cannot hide their transfers, and Ulysses (one all-to-all each way, then one kernel) wins. */
RS_TEST(test_ulysses_wins_when_ring_exposed, "ulysses_wins_when_ring_exposed") {
    fixture_t f = fixture("llama2-7b", 1 << 15);
    f.c.fixed_sp = 8;
    f.m.intra.bw_bytes_per_s = 64e9;
    rs_plan_result_t *r = malloc(sizeof *r);
    plan_ok(&f, r);
    CU_ASSERT_EQUAL(r->options[0].kind, RS_SP_RING);
    CU_ASSERT_FALSE(r->options[0].attn.ring_hidden_fwd);
    CU_ASSERT_TRUE_FATAL(r->best >= 0);
    CU_ASSERT_EQUAL(r->options[r->best].kind, RS_SP_ULYSSES);
    CU_ASSERT(r->options[r->best].t_attn_layer_s < r->options[0].t_attn_layer_s);
    CU_ASSERT_PTR_NOT_NULL(strstr(r->why, "ulysses U=8 wins"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r->why, "ring transfers exposed at B=4096"));
    free(r);
}

/* Linear layers, head, step, MFU and cost by hand for one option. */
RS_TEST(test_option_arithmetic, "option_arithmetic") {
    fixture_t f = fixture("llama2-7b", 1 << 16);
    f.c.global_batch = 4;
    f.c.dp = 2; /* 2 micro-batches per replica */
    f.c.ckpt = RS_CKPT_FULL;
    rs_plan_option_t o;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_plan_option(&f.c, &f.hw, &f.m, &(rs_plan_split_t){1 << 16, 1, 8}, &o, &err), 0);
    double p_lin = 202375168.0; /* 4 x 4096^2 + 3 x 4096 x 11008 */
    double tok = 65536.0 / 8;
    RS_ASSERT_REL(o.t_linear_layer_s, 4 * 2 * p_lin * tok / (1e15 * 0.7), 1e-12);
    RS_ASSERT_REL(o.t_attn_layer_s, 2 * o.attn.fwd_s + o.attn.bwd_s, 1e-12);
    RS_ASSERT_REL(o.t_head_s, 6 * 32000.0 * 4096 * tok / (1e15 * 0.7), 1e-12);
    RS_ASSERT_REL(o.t_micro_s, 32 * (o.t_linear_layer_s + o.t_attn_layer_s) + o.t_head_s, 1e-12);
    RS_ASSERT_REL(o.t_step_s, 2 * o.t_micro_s, 1e-12);
    /* model FLOPs: attention backward counted as 2 x forward (no recomputation) */
    double flops = 4 * (6 * (32 * p_lin + 32000.0 * 4096) * 65536 + 32 * 3 * o.attn.flops_useful_fwd);
    RS_ASSERT_REL(o.model_flops_step, flops, 1e-12);
    RS_ASSERT_REL(o.mfu, flops / (o.t_step_s * 16 * 1e15), 1e-12);
    RS_ASSERT_REL(o.cost_per_step, 16 * 3.6 * o.t_step_s / 3600, 1e-12);
    RS_ASSERT_REL(o.cost_per_mtok, o.cost_per_step / (4 * 65536 / 1e6), 1e-12);
    CU_ASSERT(o.mfu > 0 && o.mfu < 0.7);
    /* the machine has no kernel curves: the attention runs at its peak; the forward ring step of the
     * causal zigzag layout computes half a block (2 (B/2)^2 pairs) */
    RS_ASSERT_REL(o.attn.ring_t_comp_s, 4.0 * 128 * 32 * tok * tok / 2 / 1e15, 1e-9);
}

/* Smallest N and max context: memory grows with S and shrinks with N. */
RS_TEST(test_smallest_n_and_max_seq, "smallest_n_and_max_seq") {
    fixture_t f = fixture("llama2-7b", 1 << 20);
    rs_plan_result_t *r = malloc(sizeof *r);
    rs_err_t err = {0};
    plan_ok(&f, r);
    CU_ASSERT_TRUE(r->fits);
    int64_t n = r->sp;
    CU_ASSERT(n >= 2);
    rs_mem_t a, b;
    CU_ASSERT_EQUAL(rs_plan_memory(&f.c, 1 << 20, n, 1, &a, &err), 0);
    CU_ASSERT_EQUAL(rs_plan_memory(&f.c, 1 << 20, n / 2, 1, &b, &err), 0);
    CU_ASSERT(a.total_bytes <= 0.9 * 80e9);
    CU_ASSERT(b.total_bytes > 0.9 * 80e9); /* N/2 does not fit: N is the smallest */

    int64_t s1 = 0, s2 = 0;
    bool capped = true;
    CU_ASSERT_EQUAL(rs_plan_max_seq(&f.c, 0.9 * 80e9, 8, &s1, &capped, &err), 0);
    CU_ASSERT_FALSE(capped);
    CU_ASSERT_EQUAL(rs_plan_max_seq(&f.c, 0.9 * 80e9, 16, &s2, NULL, &err), 0);
    CU_ASSERT(s1 > 0 && s1 % 16 == 0);
    CU_ASSERT(s2 > s1);
    CU_ASSERT_EQUAL(rs_plan_memory(&f.c, s1, 8, 1, &a, &err), 0);
    CU_ASSERT_EQUAL(rs_plan_memory(&f.c, s1 + 16, 8, 1, &b, &err), 0);
    CU_ASSERT(a.total_bytes <= 0.9 * 80e9 && b.total_bytes > 0.9 * 80e9);
    /* at N = 4096 memory would allow ~0.5G tokens, but the causal backward's FLOP count
     * S^2/2 x 10 d Hq must stay below 2^64: S <= ~31M for d = 128, Hq = 32 */
    CU_ASSERT_EQUAL(rs_plan_max_seq(&f.c, 0.9 * 80e9, 4096, &s1, &capped, &err), 0);
    CU_ASSERT_TRUE(capped);
    CU_ASSERT(s1 > 20000000 && s1 < 40000000 && s1 % 8192 == 0);
    double pairs = (double)s1 * ((double)s1 + 1) / 2, pairs_next = (double)(s1 + 8192) * (double)(s1 + 8193) / 2;
    CU_ASSERT(pairs * 10 * 128 * 32 < 18446744073709551616.0);
    CU_ASSERT(pairs_next * 10 * 128 * 32 > 18446744073709551616.0 * 0.999);
    f.c.seq_tokens = 0;
    f.c.fixed_sp = 4096;
    plan_ok(&f, r);
    CU_ASSERT_TRUE(r->seq_capped);
    CU_ASSERT_EQUAL(r->seq_tokens, s1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r->why, "64-bit FLOP counts"));
    free(r);
}

/* The longest context's range by hand: docs/memory.md's worked example (L 2, h 64, Hq 4, Hkv 2, d 16,
 * f 128 SwiGLU, V 100) at N = 4 (ZeRO-3 over 4), mixed, full checkpointing, chunk and loss chunk 64,
 * PyTorch. For T = S/4 >= 64 local tokens the tensors are affine in T:
 *   static  43424 + 43424 + 260544 + 221952 (fsdp_unit) + 81920 (ffn_chunk) + 51200 (logits) = 702464
 *   per token  256 (saved) + 384 (working set) + 1664 (ring backward) + 272 (flash workspace) = 2576
 * and the fixed terms are the CUDA context and 2 communicators (FSDP, ring): 287047680 + 2.12e9 B.
 * A device of those plus 1e8 B holds (702464 + 2576 T) (1 + frag) <= 1e8; T even (S a multiple of 2N):
 *   frag 0.15: T <= 33483.7 -> 33482, S 133928;  0: T <= 38547.1 -> 38546, S 154184;
 *   0.33: T <= 28915.2 -> 28914, S 115656. */
RS_TEST(test_max_seq_range, "max_seq_range") {
    fixture_t f = fixture("llama2-7b", 0);
    f.c.model = (rs_transformer_t){.name = "small", .layers = 2, .hidden = 64, .q_heads = 4, .kv_heads = 2, .head_dim = 16,
                                   .ffn = 128, .ffn_kind = RS_FFN_SWIGLU, .vocab = 100};
    f.c.fixed_sp = 4, f.c.chunk_tokens = 64, f.c.loss_chunk_tokens = 64, f.c.usable_frac = 1;
    f.c.alternatives = false;
    const double fixed = 287047680.0 + 2 * 1.06e9;
    f.hw.mem_bytes = fixed + 1e8;
    rs_err_t err = {0};
    rs_mem_t m;
    CU_ASSERT_EQUAL_FATAL(rs_plan_memory(&f.c, 4 * 1000, 4, 1, &m, &err), 0); /* the affine form at T = 1000 */
    RS_ASSERT_REL(m.total_bytes, (702464.0 + 2576.0 * 1000) * 1.15 + fixed, 1e-15);
    int64_t s = 0;
    const struct {
        rs_plan_mem_end_t end;
        int64_t want;
    } ends[] = {{RS_PLAN_MEM_NOMINAL, 133928}, {RS_PLAN_MEM_LOW, 154184}, {RS_PLAN_MEM_HIGH, 115656}};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        CU_ASSERT_EQUAL(rs_plan_max_seq_at(&f.c, f.hw.mem_bytes, 4, ends[i].end, &s, NULL, &err), 0);
        CU_ASSERT_EQUAL(s, ends[i].want);
    }
    rs_plan_result_t *r = malloc(sizeof *r);
    plan_ok(&f, r);
    CU_ASSERT_TRUE(r->fits);
    CU_ASSERT_EQUAL(r->seq_tokens, 133928);
    CU_ASSERT_EQUAL(r->seq_tokens_low, 115656);  /* fragmentation 33%: the most memory */
    CU_ASSERT_EQUAL(r->seq_tokens_high, 154184); /* no fragmentation */
    /* JAX on GPUs: no fragmentation at either end, so no range; the same fixed terms, no flash workspace:
     * 702464 + 2304 T <= 1e8, T <= 43097.9 -> 43096, S 172384 */
    f.c.runtime = RS_RT_JAX_GPU;
    plan_ok(&f, r);
    CU_ASSERT_EQUAL(r->seq_tokens, 172384);
    CU_ASSERT_EQUAL(r->seq_tokens_low, r->seq_tokens);
    CU_ASSERT_EQUAL(r->seq_tokens_high, r->seq_tokens);
    /* a given S has no range */
    f.c.runtime = RS_RT_PYTORCH, f.c.seq_tokens = 4096;
    plan_ok(&f, r);
    CU_ASSERT_EQUAL(r->seq_tokens_low, 0);
    CU_ASSERT_EQUAL(r->seq_tokens_high, 0);
    free(r);
}

/* A model that cannot fit says by how much. */
RS_TEST(test_does_not_fit, "does_not_fit") {
    fixture_t f = fixture("llama3-405b", 1 << 20);
    f.c.max_sp = 8;
    rs_plan_result_t *r = malloc(sizeof *r);
    rs_err_t err = {0};
    plan_ok(&f, r);
    CU_ASSERT_FALSE(r->fits);
    CU_ASSERT_EQUAL(r->best, -1);
    CU_ASSERT_EQUAL(r->sp, 8);
    RS_ASSERT_REL(r->shortfall_bytes, r->mem.total_bytes - 0.9 * 80e9, 1e-12);
    CU_ASSERT(r->shortfall_bytes > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r->why, "nothing fits"));
    f.c.dp = 3; /* does not divide the global batch 1 */
    CU_ASSERT_EQUAL(rs_plan_run(&f.c, &f.hw, &f.m, r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--dp 3"));
    free(r);
}

/* The estimate before a plan runs (estimate.h): N and S chosen without a walk, as rs_plan_run chooses
 * them; the splits rs_plan_run costs; their walks' rank-steps by hand. Llama-3 8B (8 KV heads) at N = 8
 * on nodes of 8: U = 1, 2, 4, 8 (R = 8, 4, 2, 1), each ring walked forward (R x R) and backward
 * (R x (R + 1)): 136 + 36 + 10 + 3 = 185 rank-steps at 30 ns. */
RS_TEST(test_plan_estimate, "plan_estimate") {
    fixture_t f = fixture("llama3-8b", 1 << 20);
    f.c.fixed_sp = 8;
    rs_plan_result_t *chosen = malloc(sizeof *chosen), *r = malloc(sizeof *r);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_plan_choose(&f.c, &f.hw, &f.m, chosen, &err), 0);
    plan_ok(&f, r);
    CU_ASSERT_EQUAL(chosen->n_options, 0);
    CU_ASSERT_EQUAL(chosen->best, -1);
    CU_ASSERT_EQUAL(chosen->sp, r->sp);
    CU_ASSERT_EQUAL(chosen->seq_tokens, r->seq_tokens);
    CU_ASSERT_EQUAL(chosen->fits, r->fits);
    CU_ASSERT_EQUAL(chosen->mem.total_bytes, r->mem.total_bytes);
    int64_t u[RS_PLAN_MAX_OPTIONS];
    const int n = rs_plan_splits(&f.c, &f.m, chosen->seq_tokens, chosen->sp, u);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT_EQUAL_FATAL(r->n_options, n); /* exactly the splits the plan costs */
    for (int i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(u[i], (int64_t)1 << i);
        CU_ASSERT_EQUAL(r->options[i].ulysses, u[i]);
        CU_ASSERT_EQUAL(r->options[i].ring, 8 >> i);
    }
    rs_estimate_t e;
    rs_plan_estimate(&f.c, &f.m, chosen, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 185);
    RS_ASSERT_REL(e.time_s, 185 * 30e-9, 1e-12);
    CU_ASSERT(e.mem_bytes > 0 && e.mem_bytes < 64e6);
    f.c.alternatives = false; /* the ring alone: 64 + 72 */
    CU_ASSERT_EQUAL(rs_plan_splits(&f.c, &f.m, chosen->seq_tokens, chosen->sp, u), 1);
    rs_plan_estimate(&f.c, &f.m, chosen, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 136);
    /* a million ranks: 2 x 2^40 rank-steps, refused by the default cap of 600 s */
    f.c.fixed_sp = 1 << 20, f.c.seq_tokens = 1 << 30;
    CU_ASSERT_EQUAL_FATAL(rs_plan_choose(&f.c, &f.hw, &f.m, chosen, &err), 0);
    rs_plan_estimate(&f.c, &f.m, chosen, &e);
    CU_ASSERT_EQUAL(e.rank_steps, 2.0 * 1099511627776.0 + 1048576.0);
    CU_ASSERT_EQUAL(rs_limits_check("this plan", &e, NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "this plan: an estimated 2.2e+12 rank-steps would take about"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "(above --max-time 600 s: give --max-time to allow more)"));
    free(chosen), free(r);
}

/* MFU (docs/model.md "Metrics") of every option of a plan on every shipped device, every shipped
 * model, a short and a long S, with and without checkpointing and with the GEMMs at the full peak (linear
 * efficiency 1: the largest MFU the plan can give): each in (0, 1]. */
RS_TEST(test_mfu_bounded_on_every_device, "MFU in (0, 1] over every candidate option on every shipped device and model") {
    const char *const *dev = rs_hw_preset_names();
    const char *const *models = rs_transformer_preset_names();
    const int64_t seqs[] = {32768, 1048576};
    int options = 0, bad = 0, n_models = 0;
    while (models[n_models]) n_models++;
    CU_ASSERT(n_models >= 11);
    for (int d = 0; dev[d]; d++)
        for (int i = 0; i < n_models; i++)
            for (unsigned j = 0; j < 2; j++)
                for (int ck = 0; ck < 2; ck++) {
                    rs_hw_t hw;
                    rs_machine_t m;
                    const rs_plan_candidate_spec_t cs = {dev[d], RS_PREC_MIXED, -1, NULL, -1, NULL, NULL, 0, false};
                    CU_ASSERT_EQUAL_FATAL(rs_plan_candidate(&cs, &hw, &m, NULL), 0);
                    rs_plan_config_t c;
                    rs_plan_config_default(&c);
                    c.model = rs_test_transformer(models[i]);
                    c.seq_tokens = seqs[j], c.max_sp = 256, c.linear_eff = 1.0;
                    c.ckpt = ck ? RS_CKPT_FULL : RS_CKPT_NONE;
                    rs_plan_result_t *r = malloc(sizeof *r);
                    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
                    rs_err_t err = {0};
                    if (rs_plan_run(&c, &hw, &m, r, &err) == 0)
                        for (int k = 0; k < r->n_options; k++, options++)
                            if (!(r->options[k].mfu > 0 && r->options[k].mfu <= 1)) {
                                fprintf(stderr, "  %s %s S=%lld: option %d MFU %.17g\n", dev[d], models[i], (long long)seqs[j], k,
                                        r->options[k].mfu);
                                bad++;
                            }
                    free(r);
                }
    CU_ASSERT(options > 500);
    CU_ASSERT_EQUAL(bad, 0);
}

/* A candidate's preset and kernel: the profile's default, or --impl / --kernel as model takes them
 * (the same machine as rs_machine_spec_build's); a bad name is refused naming the option. */
RS_TEST(test_candidate_impl_kernel, "candidate: the profile's preset, --impl te, --kernel, --impl none, refusals") {
    rs_hw_t *hw = malloc(sizeof *hw);
    rs_machine_t *m = malloc(sizeof *m);
    rs_err_t err = {0};
    rs_plan_candidate_spec_t c = {"h100-sxm", RS_PREC_MIXED, -1, NULL, -1, NULL, NULL, 0, false};
    CU_ASSERT_EQUAL_FATAL(rs_plan_candidate(&c, hw, m, &err), 0);
    CU_ASSERT_EQUAL(m->impl, RS_IMPL_FLASH_ATTN);
    CU_ASSERT_STRING_EQUAL(m->kernels.kernel[m->kernel - 1].name, "flash-attn-2");
    c.impl = "te";
    CU_ASSERT_EQUAL_FATAL(rs_plan_candidate(&c, hw, m, &err), 0);
    CU_ASSERT_EQUAL(m->impl, RS_IMPL_TE);
    CU_ASSERT_STRING_EQUAL(m->kernels.kernel[m->kernel - 1].name, "cudnn");
    CU_ASSERT_EQUAL(m->src.rate[RS_RATE_ATTN].kind, RS_RKIND_PUBLISHED);
    c.impl = NULL, c.kernel = "flash-attn-3";
    CU_ASSERT_EQUAL_FATAL(rs_plan_candidate(&c, hw, m, &err), 0);
    CU_ASSERT_EQUAL(m->impl, RS_IMPL_FLASH_ATTN);
    CU_ASSERT_STRING_EQUAL(m->kernels.kernel[m->kernel - 1].name, "flash-attn-3");
    c.impl = "none", c.kernel = NULL;
    CU_ASSERT_EQUAL_FATAL(rs_plan_candidate(&c, hw, m, &err), 0);
    CU_ASSERT_EQUAL(m->kernel, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(m->src.rate[RS_RATE_ATTN].source, "the bare datasheet peak F, an upper bound"));
    c.impl = "bogus";
    CU_ASSERT_EQUAL(rs_plan_candidate(&c, hw, m, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--impl bogus: expected ringsim, flash-attn, te or none");
    c.impl = NULL, c.kernel = "nope";
    CU_ASSERT_EQUAL(rs_plan_candidate(&c, hw, m, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--kernel nope: profile H100-SXM has no such kernel"));
    free(hw);
    free(m);
}

/* The sequence granule: 2N for a zigzag ring (each rank two chunks), N otherwise, 1 without a ring. */
RS_TEST(test_granule, "the sequence granule by layout and N") {
    rs_plan_config_t c;
    rs_plan_config_default(&c);
    c.layout = RS_LAYOUT_ZIGZAG;
    CU_ASSERT_EQUAL(rs_plan_granule(&c, 8), 16);
    CU_ASSERT_EQUAL(rs_plan_granule(&c, 1), 1);
    c.layout = RS_LAYOUT_STRIPED;
    CU_ASSERT_EQUAL(rs_plan_granule(&c, 8), 8);
    c.layout = RS_LAYOUT_CONTIGUOUS;
    CU_ASSERT_EQUAL(rs_plan_granule(&c, 32), 32);
}

/* A candidate whose profile gives a bf16 peak of 2000 TFLOP/s, above the H100 SXM datasheet's 989 x 1.05:
 * refused naming the figure and its bound; allowed (--allow-implausible), taken as given with the
 * warning of the same words. */
RS_TEST(test_candidate_implausible, "candidate: an implausible profile refused, or allowed with its warning") {
    char *text = strdup(rs_preset_text("h100-sxm"));
    char *at = strstr(text, "\"bf16\": 989e12");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    memcpy(at, "\"bf16\": 2e15  ", strlen("\"bf16\": 989e12"));
    const char *path = rs_test_path("fast.json");
    rs_test_write_text(path, text);
    free(text);
    rs_hw_t *hw = malloc(sizeof *hw);
    rs_machine_t *m = malloc(sizeof *m);
    rs_err_t err = {0};
    rs_plan_candidate_spec_t c = {path, RS_PREC_MIXED, -1, NULL, -1, NULL, NULL, 0, false};
    char warn[1024];
    CU_ASSERT_EQUAL(rs_plan_candidate_checked(&c, hw, m, warn, sizeof warn, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "device.flops_per_s.bf16 2e+15: above H100-SXM's datasheet bf16 peak x 1.05 (1.038e+15 FLOP/s) "
                                           "(--allow-implausible takes it as given)"));
    c.allow_implausible = true;
    CU_ASSERT_EQUAL_FATAL(rs_plan_candidate_checked(&c, hw, m, warn, sizeof warn, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(warn, "device.flops_per_s.bf16 2e+15: above H100-SXM's datasheet bf16 peak x 1.05 (1.038e+15 FLOP/s); "
                                        "taken as given (--allow-implausible)"));
    RS_ASSERT_REL(m->flops_per_s, 2e15, 1e-15);
    free(hw), free(m);
}

RS_TEST_PROGRAM_IN("plan")
