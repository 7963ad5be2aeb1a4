/* test_machine.c - the machine a backend runs on (machine.c): built from a profile and a dtype (its
 * default preset and kernel), validated with exact messages, its hops (intra/inter, degraded), the
 * slowest hop, the efficiency curve, overlap, host cost and compute time, the all-to-all formula, and
 * a machine spec's messages naming the option. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "machine.h"
#include "test_main.h"
#include "model_fixtures.h"

RS_TEST(test_efficiency, "efficiency") {
    rs_hw_t hw;
    memset(&hw, 0, sizeof hw);
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 1234), 1.0, 0); /* no curve */
    hw.cal.n_eff = 3;
    hw.cal.eff[0] = (rs_eff_point_t){1024, 0.4};
    hw.cal.eff[1] = (rs_eff_point_t){4096, 0.8};
    hw.cal.eff[2] = (rs_eff_point_t){16384, 1.0};
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 2048), 0.6, 1e-14);  /* halfway in log B */
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 8192), 0.9, 1e-14);
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 1024), 0.4, 0);
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 4096), 0.8, 0);
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 16384), 1.0, 0);
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 1448.1546878700494), 0.5, 1e-12); /* 1024 * 2^(1/2), t = 1/4 */
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 16), 0.4, 0);    /* clamped */
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 0), 0.4, 0);
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 1e9), 1.0, 0);
    hw.cal.n_eff = 1;
    RS_ASSERT_REL(rs_hw_efficiency(&hw, 1e9), 0.4, 0);

    rs_machine_t m;
    rs_err_t err = {0};
    hw.cal.n_eff = 3;
    hw.flops_per_s[RS_DTYPE_BF16] = 1e15;
    hw.intra.bw_bytes_per_s = 1e11;
    hw.cal.overlap = hw.cal.comp_slowdown = 1;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, &err), 0);
    RS_ASSERT_REL(rs_machine_flops_eff(&m, 2048), 0.6e15, 1e-14);
    RS_ASSERT_REL(rs_machine_flops_eff(&m, 2896.3093757400989), 0.7e15, 1e-12); /* 2048 * 2^(1/2) */
}

static rs_machine_t machine_2x4(void) {
    rs_hw_t hw = rs_test_hw("h100-sxm");
    hw.devices_per_node = 4;
    rs_machine_t m;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, &err), 0);
    return m;
}

RS_TEST(test_machine_hops, "hops_2x4") {
    rs_machine_t m = machine_2x4();
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_machine_validate(&m, 8, &err), 0);
    /* N = 8, G = 4: ranks 0-3 on node 0, 4-7 on node 1; hops 3 (3->4) and 7 (7->0) cross */
    for (int64_t p = 0; p < 8; p++) {
        bool x = (p == 3 || p == 7);
        CU_ASSERT_EQUAL(rs_machine_hop_inter(&m, 8, p), x);
        /* the rates p2p transfers reach: ib-ndr 50 GB/s x 0.94, nvlink4 450 GB/s x 0.822 (the tiers' p2p_efficiency) */
        RS_ASSERT_REL(rs_machine_hop_bw(&m, 8, p), x ? 47e9 : 369.9e9, 1e-15);
        RS_ASSERT_REL(rs_machine_hop_latency(&m, 8, p), x ? 22.4e-6 : 3e-6, 0);
    }
    CU_ASSERT(rs_machine_hop_inter(&m, 8, -1)); /* wraps to hop 7 */
    /* N = 6, G = 4: nodes {0..3}, {4, 5}: hops 3 and 5 cross */
    for (int64_t p = 0; p < 6; p++) CU_ASSERT_EQUAL(rs_machine_hop_inter(&m, 6, p), p == 3 || p == 5);
    /* one node holds the whole ring, or a flat ring: no crossing */
    for (int64_t p = 0; p < 4; p++) CU_ASSERT(!rs_machine_hop_inter(&m, 4, p));
    m.devices_per_node = 0;
    for (int64_t p = 0; p < 8; p++) CU_ASSERT(!rs_machine_hop_inter(&m, 8, p));
    m.devices_per_node = 4;
    /* degraded hops divide the bandwidth; repeated entries multiply */
    m.perturb.n_degraded = 3;
    m.perturb.degraded_hop[0] = 5, m.perturb.degraded_factor[0] = 2;
    m.perturb.degraded_hop[1] = 7, m.perturb.degraded_factor[1] = 4;
    m.perturb.degraded_hop[2] = 5, m.perturb.degraded_factor[2] = 1.5;
    CU_ASSERT_EQUAL(rs_machine_validate(&m, 8, &err), 0);
    RS_ASSERT_REL(rs_machine_hop_bw(&m, 8, 5), 369.9e9 / 3, 1e-15);
    RS_ASSERT_REL(rs_machine_hop_bw(&m, 8, 7), 47e9 / 4, 1e-15);
    RS_ASSERT_REL(rs_machine_hop_bw(&m, 8, 6), 369.9e9, 1e-15);
    RS_ASSERT_REL(rs_machine_hop_latency(&m, 8, 7), 22.4e-6, 0); /* latency unchanged */
    /* without an inter tier, crossing hops use the intra tier */
    rs_hw_t t = rs_test_hw("tpu-v5e");
    t.devices_per_node = 4;
    rs_machine_t mt;
    CU_ASSERT_EQUAL(rs_machine_from_hw(&t, RS_DTYPE_BF16, &mt, &err), 0);
    RS_ASSERT_REL(rs_machine_hop_bw(&mt, 8, 3), 50e9, 0);
}

RS_TEST(test_machine_comp_time, "comp_time") {
    rs_machine_t m = machine_2x4();
    m.cal.launch_s = 4e-6;
    const uint64_t fl = 4ull * 4096 * 4096 * 128; /* one seed step at B = 4096, d = 128 */
    CU_ASSERT_EQUAL(rs_machine_comp_time(&m, 4096, 0, 0, 0), 0.0); /* nothing to do: no launch */
    RS_ASSERT_REL(rs_machine_comp_time(&m, 4096, 0, 0, fl), 4e-6 + (double)fl / 989e12, 1e-15);
    m.perturb.n_stragglers = 1;
    m.perturb.straggler_rank[0] = 2, m.perturb.straggler_factor[0] = 3;
    RS_ASSERT_REL(rs_machine_comp_time(&m, 4096, 2, 5, fl), 4e-6 + 3 * (double)fl / 989e12, 1e-15);
    RS_ASSERT_REL(rs_machine_comp_time(&m, 4096, 1, 5, fl), 4e-6 + (double)fl / 989e12, 1e-15);
    m.jitter = 0.1;
    m.seed = 42;
    double lo = 1, hi = 1;
    for (int64_t s = 0; s < 64; s++) {
        double u = rs_hash_unit(42, 1, (uint64_t)s);
        double t = rs_machine_comp_time(&m, 4096, 1, s, fl);
        RS_ASSERT_REL(t, 4e-6 + (double)fl / 989e12 * (1 + 0.1 * (2 * u - 1)), 1e-14);
        double f = (t - 4e-6) / ((double)fl / 989e12);
        lo = fmin(lo, f), hi = fmax(hi, f);
        CU_ASSERT_EQUAL(t, rs_machine_comp_time(&m, 4096, 1, s, fl)); /* deterministic */
    }
    CU_ASSERT(lo >= 0.9 && lo < 0.95 && hi <= 1.1 && hi > 1.05); /* the draws spread over the range */
    /* the factor itself: 1 + J (2u - 1) for (rank, step), by hand at two draws; 1 without jitter */
    const double u7 = rs_hash_unit(42, 3, 7), u0 = rs_hash_unit(42, 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(rs_machine_jitter(&m, 3, 7), 1 + 0.1 * (2 * u7 - 1), 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(rs_machine_jitter(&m, 0, 0), 1 + 0.1 * (2 * u0 - 1), 1e-15);
    CU_ASSERT(rs_machine_jitter(&m, 3, 7) != rs_machine_jitter(&m, 7, 3)); /* (rank, step), not a symmetric draw */
    m.seed = 43;
    CU_ASSERT(rs_machine_jitter(&m, 3, 7) != 1 + 0.1 * (2 * u7 - 1)); /* the machine's seed */
    m.jitter = 0;
    CU_ASSERT_EQUAL(rs_machine_jitter(&m, 3, 7), 1.0);
    /* the efficiency curve slows compute: F_eff = 0.5 F at B = 4096 */
    m.jitter = 0, m.perturb.n_stragglers = 0;
    m.cal.n_eff = 1;
    m.cal.eff[0] = (rs_eff_point_t){4096, 0.5};
    RS_ASSERT_REL(rs_machine_comp_time(&m, 4096, 0, 0, fl), 4e-6 + 2 * (double)fl / 989e12, 1e-15);
}

/* eta(bytes): log-linear between points, clamped outside; host cost n o + bytes O; the step's
 * compute adds the host cost only when it computes. Values derived by hand. */
RS_TEST(test_machine_overlap_curve_host, "overlap_curve_host_cost") {
    rs_machine_t m = machine_2x4();
    rs_err_t err;
    RS_ASSERT_REL(rs_machine_overlap(&m, 12345), 1.0, 0); /* no curve: the scalar */
    CU_ASSERT(!rs_machine_partial_overlap(&m));
    m.cal.n_overlap = 3;
    m.cal.overlap_curve[0] = (rs_overlap_point_t){1024, 0.2};
    m.cal.overlap_curve[1] = (rs_overlap_point_t){4096, 0.6};
    m.cal.overlap_curve[2] = (rs_overlap_point_t){65536, 1.0};
    CU_ASSERT_EQUAL(rs_machine_validate(&m, 8, &err), 0);
    CU_ASSERT(rs_machine_partial_overlap(&m));
    RS_ASSERT_REL(rs_machine_overlap(&m, 100), 0.2, 0);     /* clamped below */
    RS_ASSERT_REL(rs_machine_overlap(&m, 2048), 0.4, 1e-15); /* halfway in log2: 10 -> 11 -> 12 */
    RS_ASSERT_REL(rs_machine_overlap(&m, 16384), 0.8, 1e-15); /* log2 12 -> 14 -> 16 */
    RS_ASSERT_REL(rs_machine_overlap(&m, 1e9), 1.0, 0);     /* clamped above */
    m.cal.overlap_curve[1].eta = 1.5;
    CU_ASSERT_EQUAL(rs_machine_validate(&m, 8, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "overlap curve point 1: eta 1.5 must be in [0, 1]");
    m.cal.overlap_curve[1].eta = 0.6;
    m.cal.host_s_per_xfer = 5e-6, m.cal.host_s_per_byte = 1e-10;
    CU_ASSERT_EQUAL(rs_machine_validate(&m, 8, &err), 0);
    RS_ASSERT_REL(rs_machine_host_s(&m, 2, 3e6, 0), 2 * 5e-6 + 3e-4, 1e-15);
    RS_ASSERT_REL(rs_machine_host_s(&m, 2, 3e6, 3e6), 2 * 5e-6 + 3e-4, 1e-15); /* no reused curve: one O */
    CU_ASSERT_EQUAL(rs_machine_host_s(&m, 0, 0, 0), 0.0);
    { /* O was fitted on reused (rotating) copies, g = 2 there; a fresh copy (g = 1) costs half per byte,
         a step with a third of its bytes reused (g = 4/3) two thirds */
        rs_machine_t q = m;
        q.cal.n_xfer = 1, q.cal.xfer_curve[0] = (rs_xfer_point_t){1e6, 1.0};
        q.cal.n_xfer_reused = 1, q.cal.xfer_curve_reused[0] = (rs_xfer_point_t){1e6, 2.0};
        RS_ASSERT_REL(rs_machine_host_s(&q, 2, 3e6, 3e6), 2 * 5e-6 + 3e-4, 1e-15);
        RS_ASSERT_REL(rs_machine_host_s(&q, 2, 3e6, 0), 2 * 5e-6 + 1.5e-4, 1e-15);
        RS_ASSERT_REL(rs_machine_host_s(&q, 2, 3e6, 1e6), 2 * 5e-6 + 2e-4, 1e-15);
    }
    const uint64_t fl = 4ull * 4096 * 4096 * 128;
    /* a step's compute with the host cost of its receives (what the walk and the simulators add) */
    /* ... plus the device's launch cost, 0.9 us (h100-sxm device.launch_s) */
    RS_ASSERT_REL(rs_machine_comp_time(&m, 4096, 0, 0, fl) + rs_machine_host_s(&m, 1, 2e6, 0),
                  (double)fl / 989e12 + 0.9e-6 + 5e-6 + 2e-4, 1e-15);
    CU_ASSERT_EQUAL(rs_machine_comp_time(&m, 4096, 0, 0, 0), 0.0); /* no compute, no cost */
    m.cal.host_s_per_byte = -1;
    CU_ASSERT_EQUAL(rs_machine_validate(&m, 8, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "host cost per byte -1: must be finite and >= 0 s/byte");
}

RS_TEST(test_machine_from_hw_and_validate, "from_hw_validate") {
    rs_err_t err = {0};
    rs_machine_t m;
    rs_hw_t h = rs_test_hw("h100-sxm");
    CU_ASSERT_EQUAL(rs_machine_from_hw(&h, RS_DTYPE_FP8, &m, &err), 0);
    RS_ASSERT_REL(m.flops_per_s, 1979e12, 0);
    CU_ASSERT_STRING_EQUAL(m.hw_name, "H100-SXM");
    CU_ASSERT_EQUAL(m.devices_per_node, 8);
    RS_ASSERT_REL(m.inter.bw_bytes_per_s, 47e9, 1e-15);           /* 50 GB/s x 0.94 */
    RS_ASSERT_REL(m.inter.nominal_bw_bytes_per_s, 50e9, 0);
    rs_hw_t t = rs_test_hw("gaudi3");
    CU_ASSERT_EQUAL(rs_machine_from_hw(&t, RS_DTYPE_FP32, &m, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "dtype fp32: profile Gaudi3 has no fp32 rate (it has: bf16, fp8)");
    /* a TPU's fp32 is JAX's default precision: one bf16 pass, at the bf16 rate */
    rs_hw_t tpu = rs_test_hw("tpu-v5e");
    CU_ASSERT_EQUAL(rs_machine_from_hw(&tpu, RS_DTYPE_FP32, &m, &err), 0);
    RS_ASSERT_REL(m.flops_per_s, 197e12, 0);

    rs_machine_t base = machine_2x4(), b;
#define BAD(stmt, n, want)                                                   \
    do {                                                                     \
        b = base;                                                            \
        stmt;                                                                \
        CU_ASSERT_EQUAL(rs_machine_validate(&b, n, &err), -1);               \
        if (strcmp(err.msg, want)) fprintf(stderr, "  got '%s'\n", err.msg); \
        CU_ASSERT_STRING_EQUAL(err.msg, want);                               \
    } while (0)
    BAD((void)0, 0, "ranks 0: must be >= 1");
    BAD(b.flops_per_s = -1, 8, "flops -1: must be finite and > 0 FLOP/s");
    BAD(b.flops_per_s = NAN, 8, "flops nan: must be finite and > 0 FLOP/s");
    BAD(b.intra.bw_bytes_per_s = INFINITY, 8, "intra-node bandwidth (nvlink4): must be finite and > 0 bytes/s, got inf");
    BAD(b.inter.latency_s = -1e-6, 8, "inter-node latency (ib-ndr): must be finite and >= 0 s, got -1e-06");
    BAD(b.cal.overlap = 1.5, 8, "overlap 1.5: must be in [0, 1]");
    BAD(b.cal.comp_slowdown = 0.5, 8, "slowdown 0.5: must be finite and >= 1");
    BAD(b.cal.launch_s = -1, 8, "launch -1: must be finite and >= 0 s");
    BAD(b.jitter = 1, 8, "jitter 1: must be in [0, 1)");
    BAD((b.perturb.n_stragglers = 1, b.perturb.straggler_rank[0] = 8, b.perturb.straggler_factor[0] = 2), 8, "straggler rank 8: must be in [0, 7]");
    BAD((b.perturb.n_stragglers = 1, b.perturb.straggler_rank[0] = 3, b.perturb.straggler_factor[0] = 0.5), 8,
        "straggler factor 0.5 (rank 3): must be finite and >= 1");
    BAD((b.perturb.n_degraded = 1, b.perturb.degraded_hop[0] = -1, b.perturb.degraded_factor[0] = 2), 8,
        "degraded hop -1: must be in [0, 7] (hop p is the link p -> p+1 mod N)");
    BAD((b.perturb.n_degraded = 1, b.perturb.degraded_hop[0] = 1, b.perturb.degraded_factor[0] = 0), 8, "degrade factor 0 (hop 1): must be finite and >= 1");
    BAD((b.cal.n_eff = 2, b.cal.eff[0] = (rs_eff_point_t){4096, 0.5}, b.cal.eff[1] = (rs_eff_point_t){1024, 0.5}), 8,
        "efficiency curve point 1: block 1024 must be finite, > 0 and increasing");
    BAD(b.devices_per_node = -1, 8, "gpus-per-node -1: must be >= 0 (0 = flat ring)");
#undef BAD
}

/* A profile or tier the machine spec cannot load: the message names the option and its whole value,
 * unless it is a file's own ("PATH: cannot read", "PATH:LINE: ..."), which names the file already. */
RS_TEST(test_spec_messages_name_the_option, "a spec that cannot load names the option and value") {
    rs_machine_spec_t spec;
    rs_machine_spec_default(&spec);
    rs_hw_t hw;
    rs_err_t err = {0};
    snprintf(spec.profile, sizeof spec.profile, "nosuch");
    CU_ASSERT_EQUAL(rs_machine_spec_profile(&spec, &hw, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--profile nosuch: unknown hardware profile 'nosuch' (presets: "));
    snprintf(spec.profile, sizeof spec.profile, "/nonexistent/p.json");
    CU_ASSERT_EQUAL(rs_machine_spec_profile(&spec, &hw, &err), -1);
    CU_ASSERT_EQUAL(strncmp(err.msg, "/nonexistent/p.json: cannot read", 32), 0);
    snprintf(spec.profile, sizeof spec.profile, "h100-sxm");
    snprintf(spec.inter, sizeof spec.inter, "foo");
    CU_ASSERT_EQUAL(rs_machine_spec_profile(&spec, &hw, &err), -1);
    CU_ASSERT_EQUAL(strncmp(err.msg, "--inter foo: unknown tier 'foo' (presets: ", 41), 0);
}

/* The slowest hop in O(1) equals the hop-by-hop minimum (the first on a tie): flat rings, nodes of 1,
 * 2, 3 and N, a faster, slower and equal inter tier, a degraded hop. */
RS_TEST(test_slowest_hop, "the slowest hop in O(1) == hop by hop") {
    const int64_t gs[] = {0, 1, 2, 3, 8};
    const double inter[] = {50e9, 100e9, 400e9};
    int bad = 0;
    for (int64_t n = 1; n <= 9; n++)
        for (unsigned g = 0; g < 5; g++)
            for (unsigned w = 0; w < 3; w++)
                for (int deg = 0; deg < 2; deg++) {
                    rs_machine_t m = rs_machine_figures("hops", RS_DTYPE_BF16, 1e15, (rs_tier_t){"intra", 100e9, 2e-6, {0, 0, 0}, 0});
                    m.inter = (rs_tier_t){"inter", inter[w], 5e-6, {0, 0, 0}, 0};
                    m.devices_per_node = gs[g];
                    if (deg && n > 1) m.perturb.n_degraded = 1, m.perturb.degraded_hop[0] = n - 1, m.perturb.degraded_factor[0] = 3;
                    double want_bw = INFINITY, want_lat = 0, bw, lat;
                    for (int64_t h = 0; h < n; h++)
                        if (rs_machine_hop_bw(&m, n, h) < want_bw) want_bw = rs_machine_hop_bw(&m, n, h), want_lat = rs_machine_hop_latency(&m, n, h);
                    rs_machine_slowest_hop(&m, n, &bw, &lat);
                    bad += bw != want_bw || lat != want_lat;
                }
    CU_ASSERT_EQUAL(bad, 0);
}

/* The profile's default preset and kernel make the machine; --impl-like selection by hand. */
RS_TEST(test_machine_from_profile, "machine from a profile: default preset and kernel") {
    rs_hw_t hw = rs_test_hw("h100-sxm");
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    CU_ASSERT_EQUAL(m.impl, RS_IMPL_FLASH_ATTN);
    CU_ASSERT_STRING_EQUAL(m.kernels.kernel[m.kernel - 1].name, "flash-attn-2");
    CU_ASSERT_EQUAL(m.kernels.merge_bw_bytes_per_s, 3.35e12);
    CU_ASSERT_STRING_EQUAL(m.kernels.kernel[hw.kernels.impl_kernel[RS_IMPL_TE] - 1].name, "cudnn");
    CU_ASSERT_EQUAL(rs_impl_grad_bytes(RS_IMPL_TE, 2), 2);
    CU_ASSERT_EQUAL(rs_impl_grad_bytes(RS_IMPL_FLASH_ATTN, 2), 4);
    CU_ASSERT_EQUAL(rs_impl_grad_bytes(RS_IMPL_NONE, 2), 0);
    CU_ASSERT_EQUAL(m.src.rate[RS_RATE_ATTN].kind, RS_RKIND_PUBLISHED);
    /* a profile without a kernels section: the estimated kernel of its class, never the bare peak */
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("gaudi3", &hw, NULL), 0);
    CU_ASSERT_EQUAL(hw.kernels.n_kernels, 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    CU_ASSERT_EQUAL(m.impl, RS_IMPL_FLASH_ATTN);
    CU_ASSERT_TRUE_FATAL(m.kernel > 0);
    CU_ASSERT_STRING_EQUAL(m.kernels.kernel[m.kernel - 1].name, "median-of-published");
    CU_ASSERT_EQUAL(m.src.rate[RS_RATE_ATTN].kind, RS_RKIND_ESTIMATED);
    CU_ASSERT_EQUAL(m.kernels.merge_bw_bytes_per_s, hw.mem_bw_bytes_per_s);
    /* --impl none: the dense model at the datasheet peak, said as such */
    CU_ASSERT_EQUAL_FATAL(rs_machine_set_kernel(&m, RS_IMPL_NONE, 0, NULL), 0);
    CU_ASSERT_EQUAL(m.src.rate[RS_RATE_ATTN].kind, RS_RKIND_PUBLISHED);
    CU_ASSERT_PTR_NOT_NULL(strstr(m.src.rate[RS_RATE_ATTN].source, "the bare datasheet peak F, an upper bound"));
}

/* t_a2a = max(M (G'-1) / (U W_intra), M (U-G') / (U W_inter)), no latency here. */
RS_TEST(test_a2a_formula, "the all-to-all by hand (inside a node, across nodes, latency)") {
    rs_machine_t m = rs_test_round_machine();
    bool x = true;
    RS_ASSERT_REL(rs_machine_a2a_s(&m, 8, 1e9, &x), 7.0 / 8.0 * 1e9 / 400e9, 1e-12);
    CU_ASSERT_FALSE(x);
    RS_ASSERT_REL(rs_machine_a2a_s(&m, 16, 1e9, &x), 8.0 / 16.0 * 1e9 / 50e9, 1e-12);
    CU_ASSERT_TRUE(x);
    CU_ASSERT_EQUAL(rs_machine_a2a_s(&m, 1, 1e9, &x), 0.0);
    m.intra.latency_s = 1e-5;
    RS_ASSERT_REL(rs_machine_a2a_s(&m, 2, 1e9, NULL), 1e-5 + 0.5e9 / 400e9, 1e-12);
}


RS_TEST(test_spec_impl, "--impl and --kernel into a spec: named, checked, NULL left as it is") {
    rs_machine_spec_t s;
    rs_machine_spec_default(&s);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_machine_spec_impl(&s, "te", "cudnn", &err), 0);
    CU_ASSERT_EQUAL(s.impl, (int)RS_IMPL_TE);
    CU_ASSERT_STRING_EQUAL(s.kernel, "cudnn");
    CU_ASSERT_EQUAL(rs_machine_spec_impl(&s, NULL, NULL, &err), 0);
    CU_ASSERT_EQUAL(s.impl, (int)RS_IMPL_TE);
    CU_ASSERT_STRING_EQUAL(s.kernel, "cudnn");
    CU_ASSERT_EQUAL(rs_machine_spec_impl(&s, "fast", NULL, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--impl fast: expected ringsim, flash-attn, te or none");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    char longname[300];
    memset(longname, 'k', sizeof longname - 1), longname[sizeof longname - 1] = 0;
    CU_ASSERT_EQUAL(rs_machine_spec_impl(&s, NULL, longname, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a kernel name has at most"));
}

RS_TEST_PROGRAM("machine")
