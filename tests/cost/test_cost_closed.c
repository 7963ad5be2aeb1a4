/* test_cost_closed.c - the closed form and B* (cost_closed.c): the seed's equations and thresholds
 * (B_min = 2197.8 on H100, the Ring Attention paper's Table 2), the closed form by hand (forward,
 * eta, backward, host cost and overlap curve), GQA bytes, B* with latency, an efficiency curve and
 * kernel curves (a causal zigzag step is half a block), the synchronous step, bad machines. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "kernel.h"
#include "test_main.h"
#include "model_fixtures.h"
#include "trace.h"

RS_TEST(test_seed_equations, "seed equations (T_comp, T_comm, B_min = 2197.8 on H100)") {
    /* T_comp = 4 B^2 d / F: B = 2048, d = 128, F = 989e12 -> 2147483648 / 989e12 s */
    RS_ASSERT_REL(rs_seed_t_comp_s(2048, 4 * 128, 989e12), 2147483648.0 / 989e12, 1e-15);
    /* T_comm = 4 B d / W (K and V, 2 bytes): B = 2048, d = 128, W = 450e9 -> 1048576 / 450e9 s */
    RS_ASSERT_REL(rs_seed_t_comm_s(2048, 4 * 128, 450e9), 1048576.0 / 450e9, 1e-15);
    /* B_min = F / W on H100-SXM: 989e12 / 450e9 = 2197.78 tokens */
    RS_ASSERT_REL(rs_seed_b_min(989e12, 450e9, 4 * 128, 4 * 128), 2197.7777777777778, 1e-12);
}

RS_TEST(test_paper_table2, "Ring Attention paper Table 2 thresholds") {
    /* Ring Attention paper, Table 2: c = F / W (MHA, 2-byte K,V) */
    const struct { double f, w, c; } rows[] = {
        {312e12, 300e9, 1040}, {312e12, 12.5e9, 24960}, {123e12, 112e9, 1098.2142857142858},
        {275e12, 268e9, 1026.1194029850747}, {196e12, 186e9, 1053.763440860215}};
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        rs_problem_t p = rs_test_mha(8 * 65536, 8, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
        rs_machine_t m = rs_test_link_machine(rows[i].f, rows[i].w, 0);
        rs_closed_t c;
        CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &c, NULL), 0);
        RS_ASSERT_REL(c.b_min_tokens, rows[i].c, 1e-12);
        RS_ASSERT_REL(6 * c.b_min_tokens, 6 * rows[i].c, 1e-12); /* s = 6c */
    }
}

RS_TEST(test_closed_form_gqa_and_b_star, "GQA bytes and B* with latency") {
    /* Llama-3-8B attention on H100: 32 q heads, 8 kv heads -> B_min = F/W * 8/32 */
    rs_problem_t p = rs_test_mha(128 * 1024, 8, false, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD);
    p.q_heads = 32;
    p.kv_heads = 8;
    rs_machine_t m = rs_test_link_machine(989e12, 450e9, 0);
    rs_closed_t c;
    CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &m, &c, NULL), 0);
    RS_ASSERT_REL(c.b_min_tokens, 989e12 / 450e9 / 4, 1e-12);
    RS_ASSERT_REL(c.b_star_tokens, c.b_min_tokens, 1e-9); /* no latency/launch/eff: B* = B_min */
    /* B = 16384: T_comp = 4*128*32*B^2/F, T_comm = 2*2*128*8*B/W */
    RS_ASSERT_REL(c.t_comp_s, 4.0 * 128 * 32 * 16384.0 * 16384.0 / 989e12, 1e-14);
    RS_ASSERT_REL(c.t_comm_s, 4.0 * 128 * 8 * 16384.0 / 450e9, 1e-14);
    CU_ASSERT(!c.comm_bound);
    /* latency moves the threshold up: solve T_comp(b) = L + c_b b / W for b by hand (quadratic) */
    m.intra.latency_s = 10e-6;
    CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &m, &c, NULL), 0);
    double a = 4.0 * 128 * 32 / 989e12, b = 4.0 * 128 * 8 / 450e9, l = 10e-6;
    double root = (b + sqrt(b * b + 4 * a * l)) / (2 * a);
    RS_ASSERT_REL(c.b_star_tokens, root, 1e-9);
    CU_ASSERT(c.b_star_tokens > c.b_min_tokens);
}

RS_TEST(test_closed_hand_values, "closed form by hand (fwd, eta, bwd)") {
    /* forward, N = 4, B = 1024, d = 128, 1 head, F = 1e12, W = 5e8, L = 0:
     * T_comp = 512 * 1024^2 / 1e12 = 537 us; T_comm = 512 * 1024 / 5e8 = 1049 us; comm-bound:
     * makespan = 3 * T_comm + T_comp */
    rs_problem_t p = rs_test_mha(4096, 4, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
    rs_machine_t m = rs_test_link_machine(1e12, 5e8, 0);
    rs_closed_t c;
    rs_model_closed(&p, &m, &c, NULL);
    double tc = 512.0 * 1024 * 1024 / 1e12, tm = 512.0 * 1024 / 5e8;
    RS_ASSERT_REL(c.makespan_s, 3 * tm + tc, 1e-15);
    CU_ASSERT(c.comm_bound);
    /* serialised (eta = 0): each middle step is T_comp + T_comm */
    m.cal.overlap = 0;
    rs_model_closed(&p, &m, &c, NULL);
    RS_ASSERT_REL(c.makespan_s, 3 * (tm + tc) + tc, 1e-15);
    /* eta = 0.5 with T_comm > T_comp: half of T_comp's duration moves data, the rest after */
    m.cal.overlap = 0.5;
    rs_model_closed(&p, &m, &c, NULL);
    RS_ASSERT_REL(c.t_step_s, tc + (tm - 0.5 * tc), 1e-15);
    /* backward, N = 2, fp32 grads: step0 K,V; step1 dK,dV with compute; tail dK,dV alone */
    p = rs_test_mha(2048, 2, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_BACKWARD);
    m = rs_test_link_machine(1e12, 1e9, 0);
    rs_model_closed(&p, &m, &c, NULL);
    double tcb = 1280.0 * 1024 * 1024 / 1e12, kv = 512.0 * 1024 / 1e9, dkv = 1024.0 * 1024 / 1e9;
    RS_ASSERT_REL(c.makespan_s, fmax(tcb, kv) + fmax(tcb, dkv) + dkv, 1e-15);
    /* backward middle step: K,V (bf16) and dK,dV (fp32) share the hop: the larger ends at (kv+dkv)/W */
    double both[2] = {kv, dkv};
    RS_ASSERT_REL(rs_sync_step_s(0, 0, both, 2, 1, 1), kv + dkv, 1e-15);
}

/* With an efficiency curve B* is found numerically: T_comp(B*) = T_comm(B*), transfer-bound just
 * below it, compute-bound just above. */
RS_TEST(test_b_star_with_efficiency_curve, "B* with an efficiency curve (numeric)") {
    rs_problem_t p = rs_test_mha(8 * 4096, 8, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
    rs_machine_t m = rs_test_link_machine(989e12, 450e9, 5e-6);
    m.cal.n_eff = 3;
    m.cal.eff[0] = (rs_eff_point_t){256, 0.3};
    m.cal.eff[1] = (rs_eff_point_t){2048, 0.6};
    m.cal.eff[2] = (rs_eff_point_t){16384, 0.85};
    rs_closed_t c;
    CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &m, &c, NULL), 0);
    const double bs = c.b_star_tokens;
    CU_ASSERT(bs > c.b_min_tokens);
#define T_COMP(b) (c.flops_per_pair * (b) * (b) / rs_machine_flops_eff(&m, (b)))
#define T_COMM(b) (5e-6 + c.bytes_per_token * (b) / 450e9)
    RS_ASSERT_REL(T_COMP(bs), T_COMM(bs), 1e-9);
    CU_ASSERT(T_COMP(bs * 0.99) < T_COMM(bs * 0.99));
    CU_ASSERT(T_COMP(bs * 1.01) > T_COMM(bs * 1.01));
#undef T_COMP
#undef T_COMM
    /* efficiency interpolates log-linearly: at B = sqrt(256 * 2048) it is (0.3 + 0.6) / 2 */
    RS_ASSERT_REL(rs_machine_flops_eff(&m, sqrt(256.0 * 2048)), 0.45 * 989e12, 1e-12);
}

/* Host cost and an overlap curve by hand: forward, N = 4, B = 1024, d = 128, bf16: K,V = 524288
 * bytes; T_comp = 537 us, T_comm = 1049 us (F = 1e12, W = 5e8, L = 0). Host o = 10 us, O = 1e-10
 * s/byte: 62.43 us added to every step that receives. Curve (262144, 0.2), (1048576, 0.6): eta at
 * 524288 (halfway in log) = 0.4. Step: t_c' = T_comp + host; the hop moves 0.4 t_c' worth while
 * computing, the rest after: T_step = t_c' + T_comm - 0.4 t_c'. Last step: T_comp alone. */
RS_TEST(test_closed_hand_curve_host, "host cost and overlap curve by hand") {
    rs_problem_t p = rs_test_mha(4096, 4, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
    rs_machine_t m = rs_test_link_machine(1e12, 5e8, 0);
    m.cal.host_s_per_xfer = 10e-6, m.cal.host_s_per_byte = 1e-10;
    m.cal.n_overlap = 2;
    m.cal.overlap_curve[0] = (rs_overlap_point_t){262144, 0.2};
    m.cal.overlap_curve[1] = (rs_overlap_point_t){1048576, 0.6};
    rs_closed_t c;
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &c, NULL), 0);
    const double tc = 512.0 * 1024 * 1024 / 1e12, tm = 512.0 * 1024 / 5e8, host = 10e-6 + 524288 * 1e-10;
    const double tcp = tc + host, step = tcp + tm - 0.4 * tcp;
    RS_ASSERT_REL(c.t_step_s, step, 1e-14);
    RS_ASSERT_REL(c.makespan_s, 3 * step + tc, 1e-14);
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    rs_walk_t w;
    rs_trace_t *t = rs_trace_create("model");
    CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, rs_trace_sink(t), NULL, &w, NULL), 0);
    RS_ASSERT_REL(w.makespan_s, 3 * step + tc, 1e-14);
    RS_ASSERT_REL(w.t_comp_max_s, tcp, 1e-14); /* the host cost is compute time */
    rs_trace_free(t);
    rs_schedule_free(s);
    /* B* with the host cost (constant F, L = 0): c_f B^2 / F + o + O c_b B = c_b B / W at B* */
    m.cal.n_overlap = 0;
    m.cal.host_s_per_xfer = 1e-6, m.cal.host_s_per_byte = 2e-10;
    CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &m, &c, NULL), 0);
    const double b = c.b_star_tokens, cf = 512, cb = 512;
    CU_ASSERT(b > 0);
    RS_ASSERT_REL(cf * b * b / 1e12 + 1e-6 + 2e-10 * cb * b, cb * b / 5e8, 1e-9);
    /* host cost and sigma combine; an eta < 1 on the curve with sigma > 1 does not */
    m.cal.n_overlap = 1;
    m.cal.overlap_curve[0] = (rs_overlap_point_t){1e6, 0.5};
    m.cal.comp_slowdown = 2;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_model_closed(&p, &m, &c, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "overlap_curve"));
}

RS_TEST(test_bad_machine, "bad machine rejected") {
    rs_problem_t p = rs_test_mha(4096, 4, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
    rs_machine_t m = rs_test_link_machine(1e12, 1e9, 0);
    m.cal.overlap = 0.5;
    m.cal.comp_slowdown = 2;
    rs_closed_t c;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_model_closed(&p, &m, &c, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--overlap"));
    m = rs_test_link_machine(-1, 1e9, 0);
    CU_ASSERT_EQUAL(rs_model_closed(&p, &m, &c, &err), -1);
}

/* One rate for every call shape (flat curves), no latency, no merge (ringsim forward): a causal zigzag
 * step computes half a full block, so its threshold B* is twice the contiguous layout's (whose last
 * rank computes full blocks); at B between the two, zigzag is transfer-bound and contiguous is not. */
RS_TEST(test_bound_rule_half_block, "bound rule: a causal zigzag step is half a block, B* twice") {
    rs_machine_t m = rs_test_kernel_machine(RS_IMPL_RINGSIM, 0);
    for (int i = 0; i < m.kernels.n_curves; i++)
        for (int k = 0; k < 2; k++) m.kernels.curve[i].pt[k].flops_per_s = 100e12;
    rs_test_kernel_reset(&m);
    m.intra.latency_s = m.inter.latency_s = 0;
    rs_closed_t cz, cc;
    rs_problem_t p = rs_test_kernel_problem(8, 4096, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &m, &cz, NULL), 0);
    p.layout = RS_LAYOUT_CONTIGUOUS;
    CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &m, &cc, NULL), 0);
    /* contiguous: c_f B^2 / R = c_b B / W -> B = R c_b / (W c_f) = 100e12 x 512 / (100e9 x 512) = 1000
     * (c_b = 2 x 128 x 2 bytes per token, c_f = 512 FLOPs per pair): the last B below it is 999 */
    CU_ASSERT_EQUAL(cc.b_star_tokens, 999);
    CU_ASSERT_EQUAL(cz.b_star_tokens, 1998); /* even (zigzag), below 2000 */
    CU_ASSERT_FALSE(cz.comm_bound); CU_ASSERT_FALSE(cc.comm_bound); /* B = 4096 */
    p.seq_tokens = 8 * 1500; /* B = 1500: zigzag transfer-bound, contiguous not */
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &cc, NULL), 0);
    p.layout = RS_LAYOUT_ZIGZAG;
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &cz, NULL), 0);
    CU_ASSERT_FALSE(cc.comm_bound);
    CU_ASSERT_TRUE(cz.comm_bound);
    RS_ASSERT_REL(cz.t_comp_s, 2.0 * 750 * 750 * 512 / 100e12, 1e-14);
    RS_ASSERT_REL(cc.t_comp_s, 1500.0 * 1500 * 512 / 100e12, 1e-14);
    /* the dense model follows the same rule: at peak 100e12 the same thresholds, continuous */
    m.flops_per_s = 100e12;
    CU_ASSERT_EQUAL_FATAL(rs_machine_set_kernel(&m, RS_IMPL_NONE, 0, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &m, &cz, NULL), 0);
    RS_ASSERT_REL(cz.b_star_tokens, 2000, 1e-12);
    CU_ASSERT_TRUE(cz.comm_bound);
}

/* B_fixed against its definition, checked at its neighbours (the plain reference of the granule scan):
 * the smallest block (a whole granule: even for zigzag) at which the layout step's work reaches its
 * fixed costs, rs_model_closed's work_s and fixed_s at S = B N; both passes, three layouts, the
 * flash-attn preset with a launch of 5 us and a host call of 8 us; 0 without fixed costs. */
RS_TEST(test_b_fixed_neighbours, "B_fixed: the smallest granule whose work reaches its fixed costs") {
    rs_machine_t m = rs_test_kernel_machine(RS_IMPL_FLASH_ATTN, 5e-6);
    m.host_call_s = 8e-6;
    const rs_layout_t ls[] = {RS_LAYOUT_CONTIGUOUS, RS_LAYOUT_ZIGZAG, RS_LAYOUT_STRIPED};
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 3; i++) {
            rs_problem_t p = rs_test_kernel_problem(8, 4096, ls[i], (rs_pass_t)pass, true);
            const int64_t g = ls[i] == RS_LAYOUT_ZIGZAG ? 2 : 1;
            rs_closed_t c, at, below;
            CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &m, &c, NULL), 0);
            const double bf = c.b_fixed_tokens;
            CU_ASSERT_FATAL(bf > 2 * g && bf < 16777216 && bf == floor(bf));
            CU_ASSERT_EQUAL(fmod(bf, (double)g), 0);
            p.seq_tokens = 8 * (int64_t)bf;
            CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &at, NULL), 0);
            p.seq_tokens = 8 * ((int64_t)bf - g);
            CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &below, NULL), 0);
            CU_ASSERT(at.fixed_s > 0 && at.work_s >= at.fixed_s);
            CU_ASSERT(below.work_s < below.fixed_s);
            if (!(at.work_s >= at.fixed_s && below.work_s < below.fixed_s))
                fprintf(stderr, "  %s %s: B_fixed %.0f: work %g / fixed %g, below %g / %g\n", rs_layout_name(ls[i]),
                        rs_pass_name((rs_pass_t)pass), bf, at.work_s, at.fixed_s, below.work_s, below.fixed_s);
        }
    /* no fixed costs (the dense model without a launch): B_fixed 0 */
    rs_machine_t z = rs_test_kernel_machine(RS_IMPL_NONE, 0);
    rs_problem_t p = rs_test_kernel_problem(8, 4096, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    rs_closed_t c;
    CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &z, &c, NULL), 0);
    CU_ASSERT_EQUAL(c.fixed_s, 0);
    CU_ASSERT_EQUAL(c.b_fixed_tokens, 0);
}

RS_TEST_PROGRAM("closed form")
