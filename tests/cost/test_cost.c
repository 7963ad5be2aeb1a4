/* test_model.c - the analytic model: the seed's numbers, closed form vs critical-path walk,
 * hand-derived causal makespans, thresholds, the walk's fast compute path vs rs_machine_comp_time. */
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "test_main.h"
#include "trace.h"

static rs_machine_t machine(double f, double w, double lat) {
    return rs_machine_figures("test", RS_DTYPE_BF16, f, (rs_tier_t){"test-link", w, lat});
}

static rs_problem_t mha(int64_t s, int64_t n, bool causal, rs_layout_t layout, rs_pass_t pass) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = s;
    p.n_ranks = n;
    p.q_heads = p.kv_heads = 1;
    p.head_dim = 128;
    p.act_bytes = 2;
    p.causal = causal;
    p.layout = layout;
    p.pass = pass;
    p.tile_q = p.tile_k = 1;
    return p;
}

/* ---- the seed's equations ------------------------------------------------------------------ */
static void test_seed_equations(void) {
    /* T_comp = 4 B^2 d / F: B = 2048, d = 128, F = 989e12 -> 2147483648 / 989e12 s */
    RS_ASSERT_REL(rs_seed_t_comp_s(2048, 4 * 128, 989e12), 2147483648.0 / 989e12, 1e-15);
    /* T_comm = 4 B d / W (K and V, 2 bytes): B = 2048, d = 128, W = 450e9 -> 1048576 / 450e9 s */
    RS_ASSERT_REL(rs_seed_t_comm_s(2048, 4 * 128, 450e9), 1048576.0 / 450e9, 1e-15);
    /* B_min = F / W on H100-SXM: 989e12 / 450e9 = 2197.78 tokens */
    RS_ASSERT_REL(rs_seed_b_min(989e12, 450e9, 4 * 128, 4 * 128), 2197.7777777777778, 1e-12);
}

static void test_paper_table2(void) {
    /* Ring Attention paper, Table 2: c = F / W (MHA, 2-byte K,V) */
    const struct { double f, w, c; } rows[] = {
        {312e12, 300e9, 1040}, {312e12, 12.5e9, 24960}, {123e12, 112e9, 1098.2142857142858},
        {275e12, 268e9, 1026.1194029850747}, {196e12, 186e9, 1053.763440860215}};
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        rs_problem_t p = mha(8 * 65536, 8, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
        rs_machine_t m = machine(rows[i].f, rows[i].w, 0);
        rs_closed_t c;
        CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &c, NULL), 0);
        RS_ASSERT_REL(c.b_min_tokens, rows[i].c, 1e-12);
        RS_ASSERT_REL(6 * c.b_min_tokens, 6 * rows[i].c, 1e-12); /* s = 6c */
    }
}

static void test_closed_form_gqa_and_b_star(void) {
    /* Llama-3-8B attention on H100: 32 q heads, 8 kv heads -> B_min = F/W * 8/32 */
    rs_problem_t p = mha(128 * 1024, 8, false, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD);
    p.q_heads = 32;
    p.kv_heads = 8;
    rs_machine_t m = machine(989e12, 450e9, 0);
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

/* With an efficiency curve B* is found numerically: T_comp(B*) = T_comm(B*), transfer-bound just
 * below it, compute-bound just above. */
static void test_b_star_with_efficiency_curve(void) {
    rs_problem_t p = mha(8 * 4096, 8, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
    rs_machine_t m = machine(989e12, 450e9, 5e-6);
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

/* ---- closed form == walk in the balanced non-causal case --------------------------------------- */
/* optional extras for walk_vs_closed: an overlap curve (g_curve) and a host cost per transfer/byte */
static int g_curve, g_reused;
static double g_host_o, g_host_per_byte;

static void walk_vs_closed(rs_pass_t pass, double lat, double eta, double sigma, double launch) {
    const int64_t ns[] = {1, 2, 3, 8, 64};
    const double ws[] = {1e9, 450e9, 1e13}; /* comm-bound, near threshold, compute-bound */
    for (unsigned i = 0; i < 5; i++)
        for (unsigned j = 0; j < 3; j++)
            for (int l = 0; l < RS_LAYOUT_COUNT; l++) {
                rs_problem_t p = mha(ns[i] * 2 * 1024, ns[i], false, (rs_layout_t)l, pass);
                rs_machine_t m = machine(989e12, ws[j], lat);
                m.cal.overlap = eta;
                m.cal.comp_slowdown = sigma;
                m.cal.launch_s = launch;
                if (g_curve) { /* K,V here: 2 * B * 128 * 2 bytes = 1 MiB; dK,dV 2 MiB; both 3 MiB */
                    m.cal.n_overlap = 3;
                    m.cal.overlap_curve[0] = (rs_overlap_point_t){524288, 0.1};
                    m.cal.overlap_curve[1] = (rs_overlap_point_t){2097152, 0.5};
                    m.cal.overlap_curve[2] = (rs_overlap_point_t){8388608, 0.9};
                }
                m.cal.host_s_per_xfer = g_host_o, m.cal.host_s_per_byte = g_host_per_byte;
                if (g_reused) { /* transfer curves, the reused one apart: fresh and reused steps differ */
                    m.cal.n_xfer = 2, m.cal.n_xfer_reused = 2;
                    m.cal.xfer_curve[0] = (rs_xfer_point_t){524288, 0.9}, m.cal.xfer_curve[1] = (rs_xfer_point_t){8388608, 1.2};
                    m.cal.xfer_curve_reused[0] = (rs_xfer_point_t){524288, 2.1};
                    m.cal.xfer_curve_reused[1] = (rs_xfer_point_t){8388608, 1.5};
                }
                rs_schedule_t *s = rs_schedule_create(&p, NULL);
                rs_closed_t c;
                rs_walk_t w;
                CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &c, NULL), 0);
                CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, RS_NO_SINK, NULL, &w, NULL), 0);
                RS_ASSERT_REL(w.makespan_s, c.makespan_s, 1e-12);
                RS_ASSERT_REL(w.efficiency, w.ideal_s / w.makespan_s, 1e-15);
                rs_schedule_free(s);
            }
}

static void test_walk_equals_closed_forward(void) { walk_vs_closed(RS_PASS_FORWARD, 0, 1, 1, 0); }
static void test_walk_equals_closed_backward(void) { walk_vs_closed(RS_PASS_BACKWARD, 0, 1, 1, 0); }
static void test_walk_equals_closed_latency(void) {
    walk_vs_closed(RS_PASS_FORWARD, 5e-6, 1, 1, 2e-6);
    walk_vs_closed(RS_PASS_BACKWARD, 5e-6, 1, 1, 2e-6);
}
static void test_walk_equals_closed_overlap(void) {
    walk_vs_closed(RS_PASS_FORWARD, 1e-6, 0, 1, 0);
    walk_vs_closed(RS_PASS_FORWARD, 1e-6, 0.4, 1, 0);
    walk_vs_closed(RS_PASS_BACKWARD, 1e-6, 0.4, 1, 0);
    walk_vs_closed(RS_PASS_FORWARD, 1e-6, 1, 1.3, 0);
    walk_vs_closed(RS_PASS_BACKWARD, 1e-6, 1, 1.3, 0);
}

static void test_walk_equals_closed_curve_host(void) {
    g_host_o = 3e-6, g_host_per_byte = 2e-11; /* host cost alone (full overlap: the one-pass walk) */
    walk_vs_closed(RS_PASS_FORWARD, 1e-6, 1, 1, 1e-6);
    walk_vs_closed(RS_PASS_BACKWARD, 1e-6, 1, 1, 1e-6);
    walk_vs_closed(RS_PASS_FORWARD, 1e-6, 1, 1.3, 0); /* with the slowdown sigma */
    g_curve = 1; /* eta by bytes: the K,V, dK,dV and shared steps get different eta */
    walk_vs_closed(RS_PASS_FORWARD, 1e-6, 1, 1, 0);
    walk_vs_closed(RS_PASS_BACKWARD, 1e-6, 1, 1, 0);
    g_host_o = g_host_per_byte = 0;
    walk_vs_closed(RS_PASS_BACKWARD, 1e-6, 1, 1, 0);
    g_curve = 0;
}

/* The reused transfer curve (calibration.h): the closed form's fresh and reused steps (K,V from step
 * 1, dK,dV from step 2, the tail) equal the walk's, which takes each step's bytes from the schedule,
 * at N = 1, 2, 3, 8, 64, with eta, an overlap curve and host cost. */
static void test_walk_equals_closed_reused(void) {
    g_reused = 1;
    walk_vs_closed(RS_PASS_FORWARD, 1e-6, 1, 1, 0);
    walk_vs_closed(RS_PASS_BACKWARD, 1e-6, 1, 1, 0);
    walk_vs_closed(RS_PASS_BACKWARD, 2e-6, 0.4, 1, 1e-6);
    g_curve = 1, g_host_o = 3e-6;
    walk_vs_closed(RS_PASS_FORWARD, 1e-6, 1, 1, 0);
    walk_vs_closed(RS_PASS_BACKWARD, 1e-6, 1, 1, 0);
    g_curve = 0, g_host_o = 0, g_reused = 0;
}

/* Which bytes of a step arrive in the buffer sent at the step before, by hand (K,V = kv, dK,dV = dkv
 * bytes): forward N = 4: 0, kv, kv, - (no transfer); backward N = 4: 0, kv, kv + dkv, dkv, dkv (the
 * tail); backward N = 2: 0, 0 (the first dK,dV), dkv. A step's factor weighs the curves by bytes:
 * fresh g = 1 and reused g = 3 at every size, a step with 1/4 of its bytes reused: 1.5. */
static void test_reused_bytes_by_hand(void) {
    for (int pass = 0; pass < 2; pass++)
        for (int64_t n = 2; n <= 4; n += 2) {
            rs_problem_t p = mha(n * 1024, n, false, RS_LAYOUT_ZIGZAG, pass ? RS_PASS_BACKWARD : RS_PASS_FORWARD);
            rs_schedule_t *s = rs_schedule_create(&p, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(s);
            const uint64_t kv = rs_problem_kv_bytes(&p), dkv = rs_problem_dkv_bytes(&p);
            const uint64_t fwd4[] = {0, kv, kv, 0}, bwd4[] = {0, kv, kv + dkv, dkv, dkv}, fwd2[] = {0, 0}, bwd2[] = {0, 0, dkv};
            const uint64_t *want = pass ? (n == 4 ? bwd4 : bwd2) : (n == 4 ? fwd4 : fwd2);
            for (int64_t k = 0; k < rs_schedule_n_steps(s); k++) CU_ASSERT_EQUAL(rs_schedule_step_reused_bytes(s, k), want[k]);
            rs_schedule_free(s);
        }
    rs_machine_t m = machine(1e12, 1e9, 0);
    CU_ASSERT_EQUAL(rs_machine_step_xfer_factor(&m, 4e6, 1e6), 1.0); /* no curves: g = 1 */
    m.cal.n_xfer = 1, m.cal.xfer_curve[0] = (rs_xfer_point_t){1e6, 1.0};
    CU_ASSERT_EQUAL(rs_machine_step_xfer_factor(&m, 4e6, 1e6), 1.0); /* no reused curve: the fresh one */
    m.cal.n_xfer_reused = 1, m.cal.xfer_curve_reused[0] = (rs_xfer_point_t){1e6, 3.0};
    RS_ASSERT_REL(rs_machine_step_xfer_factor(&m, 4e6, 1e6), 1.5, 1e-15);
    RS_ASSERT_REL(rs_machine_step_xfer_factor(&m, 4e6, 4e6), 3.0, 1e-15);
    CU_ASSERT_EQUAL(rs_machine_step_xfer_factor(&m, 4e6, 0), 1.0);
}

/* Host cost and an overlap curve by hand: forward, N = 4, B = 1024, d = 128, bf16: K,V = 524288
 * bytes; T_comp = 537 us, T_comm = 1049 us (F = 1e12, W = 5e8, L = 0). Host o = 10 us, O = 1e-10
 * s/byte: 62.43 us added to every step that receives. Curve (262144, 0.2), (1048576, 0.6): eta at
 * 524288 (halfway in log) = 0.4. Step: t_c' = T_comp + host; the hop moves 0.4 t_c' worth while
 * computing, the rest after: T_step = t_c' + T_comm - 0.4 t_c'. Last step: T_comp alone. */
static void test_closed_hand_curve_host(void) {
    rs_problem_t p = mha(4096, 4, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
    rs_machine_t m = machine(1e12, 5e8, 0);
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

static void test_closed_hand_values(void) {
    /* forward, N = 4, B = 1024, d = 128, 1 head, F = 1e12, W = 5e8, L = 0:
     * T_comp = 512 * 1024^2 / 1e12 = 537 us; T_comm = 512 * 1024 / 5e8 = 1049 us; comm-bound:
     * makespan = 3 * T_comm + T_comp */
    rs_problem_t p = mha(4096, 4, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
    rs_machine_t m = machine(1e12, 5e8, 0);
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
    p = mha(2048, 2, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_BACKWARD);
    m = machine(1e12, 1e9, 0);
    rs_model_closed(&p, &m, &c, NULL);
    double tcb = 1280.0 * 1024 * 1024 / 1e12, kv = 512.0 * 1024 / 1e9, dkv = 1024.0 * 1024 / 1e9;
    RS_ASSERT_REL(c.makespan_s, fmax(tcb, kv) + fmax(tcb, dkv) + dkv, 1e-15);
    /* backward middle step: K,V (bf16) and dK,dV (fp32) share the hop: the larger ends at (kv+dkv)/W */
    double both[2] = {kv, dkv};
    RS_ASSERT_REL(rs_sync_step_s(0, 0, both, 2, 1, 1), kv + dkv, 1e-15);
}

/* ---- causal makespans by hand (W infinite, tile 1) ------------------------------------------- */
static void test_causal_walk_hand_values(void) {
    const int64_t n = 8, b = 4;
    const double f = 1e12, fpp = 4 * 128;
    rs_machine_t m = machine(f, 1e18, 0);
    rs_walk_t w;
    /* contiguous: rank N-1 computes its diagonal (10 pairs) and N-1 full blocks (16 pairs) */
    rs_problem_t p = mha(n * b, n, true, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    rs_model_walk(s, &m, RS_NO_SINK, NULL, &w, NULL);
    RS_ASSERT_REL(w.makespan_s, (10 + 16 * (n - 1)) * fpp / f, 1e-9);
    RS_ASSERT_REL(w.busy_max_s, (10 + 16 * 7) * fpp / f, 1e-12);
    RS_ASSERT_REL(w.busy_mean_s, (double)rs_problem_total_flops(&p) / n / f, 1e-12);
    rs_schedule_free(s);
    /* zigzag: chunks of 2; step 0: 2 diagonals (3 pairs) + 1 full (4); later steps 2 full chunks */
    p.layout = RS_LAYOUT_ZIGZAG;
    s = rs_schedule_create(&p, NULL);
    rs_model_walk(s, &m, RS_NO_SINK, NULL, &w, NULL);
    RS_ASSERT_REL(w.makespan_s, (2 * 3 + 4 + (n - 1) * 8) * fpp / f, 1e-9);
    RS_ASSERT_REL(w.busy_max_s, w.busy_mean_s, 1e-12); /* perfectly balanced */
    rs_schedule_free(s);
}

/* ---- loopback: every rank alone, its transfers to itself ---------------------------------------- */
static void test_loopback_walk_hand_values(void) {
    /* contiguous causal, N = 8, B = 4, d = 128: a diagonal block is 10 pairs (c10), a full one 16
     * (c16); a K,V block of 2 B d 2 = 2048 bytes takes x = 7 ns, between the two. Alone, rank 0
     * computes only its diagonal and then waits for its own transfers: max(c10, x) + 6 x; rank 7
     * computes everything: max(c10, x) + 6 max(c16, x) + c16 (its last step sends nothing). */
    const int64_t n = 8, b = 4;
    const double f = 1e12, fpp = 4 * 128, x = 7e-9;
    const double c10 = 10 * fpp / f, c16 = 16 * fpp / f;
    rs_machine_t m = machine(f, 2048 / x, 0);
    m.loopback = true;
    rs_problem_t p = mha(n * b, n, true, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    rs_trace_t *t = rs_trace_create("model");
    rs_walk_t w;
    CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, rs_trace_sink(t), NULL, &w, NULL), 0);
    rs_trace_sort(t);
    const rs_event_t *ev = rs_trace_events(t);
    long e0 = rs_trace_find(t, 0, 7, RS_PASS_FORWARD, RS_EV_STEP), e7 = rs_trace_find(t, 7, 7, RS_PASS_FORWARD, RS_EV_STEP);
    CU_ASSERT_FATAL(e0 >= 0 && e7 >= 0);
    RS_ASSERT_REL(ev[e0].end_s, fmax(c10, x) + 6 * x, 1e-12);
    RS_ASSERT_REL(ev[e7].end_s, fmax(c10, x) + 6 * fmax(c16, x) + c16, 1e-12);
    RS_ASSERT_REL(w.makespan_s, fmax(c10, x) + 6 * fmax(c16, x) + c16, 1e-12);
    /* the ring itself couples the ranks: rank 0 cannot end before rank 1 has posted */
    m.loopback = false;
    rs_walk_t wr;
    CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, RS_NO_SINK, NULL, &wr, NULL), 0);
    CU_ASSERT(wr.makespan_s >= w.makespan_s);
    /* the receive's peer stays the ring's (p - 1), as the executor writes it */
    long r3 = rs_trace_find(t, 3, 1, RS_PASS_FORWARD, RS_EV_RECV);
    CU_ASSERT_FATAL(r3 >= 0);
    CU_ASSERT_EQUAL(ev[r3].peer, 2);
    rs_trace_free(t);
    rs_schedule_free(s);
}

/* ---- the walk's inline compute == rs_machine_comp_time --------------------------------------- */
static void test_walk_compute_matches_machine(void) {
    rs_problem_t p = mha(16 * 256, 16, true, RS_LAYOUT_STRIPED, RS_PASS_BACKWARD);
    p.tile_q = 64;
    p.tile_k = 32;
    rs_machine_t m = machine(1e12, 1e10, 1e-6);
    m.cal.launch_s = 3e-6;
    m.jitter = 0.2;
    m.seed = 42;
    m.perturb.n_stragglers = 1, m.perturb.straggler_rank[0] = 5, m.perturb.straggler_factor[0] = 1.5;
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    rs_trace_t *t = rs_trace_create("model");
    rs_walk_t w;
    CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, rs_trace_sink(t), NULL, &w, NULL), 0);
    size_t n_ev = rs_trace_count(t), n_comp = 0;
    const rs_event_t *ev = rs_trace_events(t);
    for (size_t i = 0; i < n_ev; i++) {
        if (ev[i].kind != RS_EV_COMPUTE) continue;
        n_comp++;
        rs_step_t st;
        rs_schedule_step(s, ev[i].rank, ev[i].step, &st);
        double want = rs_machine_comp_time(&m, rs_problem_block(&p), ev[i].rank, ev[i].step, st.flops_exec);
        RS_ASSERT_REL(ev[i].end_s - ev[i].start_s, want, 1e-12);
        CU_ASSERT_EQUAL(ev[i].flops, (double)st.flops_exec);
    }
    CU_ASSERT_EQUAL(n_comp, 16 * 16);
    CU_ASSERT_EQUAL(n_ev, 16 * 16 + 17 * 16 + 2 * 17 * 16); /* compute, step, send+recv (every step moves data) */
    rs_trace_free(t);
    rs_schedule_free(s);
}

static void test_straggler_and_slow_hop(void) {
    /* a 1.5x straggler in a compute-bound non-causal ring stretches every rank's end */
    rs_problem_t p = mha(8 * 4096, 8, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
    rs_machine_t m = machine(1e12, 1e13, 0);
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    rs_walk_t base, slow;
    rs_model_walk(s, &m, RS_NO_SINK, NULL, &base, NULL);
    m.perturb.n_stragglers = 1, m.perturb.straggler_rank[0] = 3, m.perturb.straggler_factor[0] = 1.5;
    rs_model_walk(s, &m, RS_NO_SINK, NULL, &slow, NULL);
    RS_ASSERT_REL(slow.makespan_s, 1.5 * base.makespan_s, 1e-12);
    /* a hop 9x slower sets the pace of a comm-bound ring: makespan ~ (N-1) * 9 T_comm */
    rs_machine_t m2 = machine(1e15, 1e11, 0);
    rs_model_walk(s, &m2, RS_NO_SINK, NULL, &base, NULL);
    m2.perturb.n_degraded = 1, m2.perturb.degraded_hop[0] = 2, m2.perturb.degraded_factor[0] = 9;
    rs_model_walk(s, &m2, RS_NO_SINK, NULL, &slow, NULL);
    double tm = (double)rs_problem_kv_bytes(&p) / 1e11;
    RS_ASSERT_REL(slow.makespan_s, 7 * 9 * tm + 4096.0 * 4096 * 512 / 1e15, 1e-9);
    rs_schedule_free(s);
}

/* The one-pass walk (no trace, full overlap) against the general walk (taken when a trace is
 * recorded), on heterogeneous rings: every statistic must agree. */
static void test_fused_walk_equals_general(void) {
    for (int l = 0; l < RS_LAYOUT_COUNT; l++)
        for (int ps = 0; ps < RS_PASS_COUNT; ps++) {
            rs_problem_t p = mha(16 * 512, 16, true, (rs_layout_t)l, (rs_pass_t)ps);
            p.tile_q = p.tile_k = 64;
            rs_machine_t m = machine(1e13, 2e9, 2e-6);
            m.devices_per_node = 4;
            m.inter = (rs_tier_t){"slow-nic", 3e8, 5e-6};
            m.cal.launch_s = 1e-6;
            m.jitter = 0.1;
            m.perturb.n_stragglers = 1, m.perturb.straggler_rank[0] = 6, m.perturb.straggler_factor[0] = 1.7;
            m.perturb.n_degraded = 1, m.perturb.degraded_hop[0] = 9, m.perturb.degraded_factor[0] = 3;
            rs_schedule_t *s = rs_schedule_create(&p, NULL);
            rs_trace_t *t = rs_trace_create("model");
            double busy_a[16], busy_b[16];
            rs_walk_t a, b;
            CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, RS_NO_SINK, busy_a, &a, NULL), 0);
            CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, rs_trace_sink(t), busy_b, &b, NULL), 0);
            RS_ASSERT_REL(a.makespan_s, b.makespan_s, 1e-15);
            /* durations: the general walk subtracts absolute times, so allow rounding */
            RS_ASSERT_REL(a.t_comp_max_s, b.t_comp_max_s, 1e-12);
            RS_ASSERT_REL(a.t_comm_max_s, b.t_comm_max_s, 1e-12);
            RS_ASSERT_REL(a.busy_max_s, b.busy_max_s, 1e-12);
            CU_ASSERT_EQUAL(a.comm_bound_steps, b.comm_bound_steps);
            CU_ASSERT_EQUAL(a.flops_useful, b.flops_useful);
            CU_ASSERT_EQUAL(a.flops_exec, b.flops_exec);
            CU_ASSERT_EQUAL(a.rank_steps, b.rank_steps);
            for (int r = 0; r < 16; r++) RS_ASSERT_REL(busy_a[r], busy_b[r], 1e-12);
            CU_ASSERT(a.comm_bound_steps > 0); /* the slow NIC hops do bind */
            rs_trace_free(t);
            rs_schedule_free(s);
        }
}

static void test_bad_machine(void) {
    rs_problem_t p = mha(4096, 4, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
    rs_machine_t m = machine(1e12, 1e9, 0);
    m.cal.overlap = 0.5;
    m.cal.comp_slowdown = 2;
    rs_closed_t c;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_model_closed(&p, &m, &c, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--overlap"));
    m = machine(-1, 1e9, 0);
    CU_ASSERT_EQUAL(rs_model_closed(&p, &m, &c, &err), -1);
}

int main(void) {
    static const rs_test_case_t seed[] = {
        {"seed equations (T_comp, T_comm, B_min = 2197.8 on H100)", test_seed_equations},
        {"Ring Attention paper Table 2 thresholds", test_paper_table2},
        {"GQA bytes and B* with latency", test_closed_form_gqa_and_b_star},
        {"closed form by hand (fwd, eta, bwd)", test_closed_hand_values},
        {"B* with an efficiency curve (numeric)", test_b_star_with_efficiency_curve},
        {"host cost and overlap curve by hand", test_closed_hand_curve_host},
        {NULL, NULL}};
    static const rs_test_case_t walk[] = {
        {"walk == closed form, forward", test_walk_equals_closed_forward},
        {"walk == closed form, backward", test_walk_equals_closed_backward},
        {"walk == closed form, latency + launch", test_walk_equals_closed_latency},
        {"walk == closed form, overlap eta and slowdown sigma", test_walk_equals_closed_overlap},
        {"walk == closed form, overlap curve and host cost", test_walk_equals_closed_curve_host},
        {"walk == closed form, reused transfer curve", test_walk_equals_closed_reused},
        {"reused bytes and the step's transfer factor by hand", test_reused_bytes_by_hand},
        {"causal makespans by hand", test_causal_walk_hand_values},
        {"loopback walk by hand (each rank alone)", test_loopback_walk_hand_values},
        {"walk compute == rs_machine_comp_time", test_walk_compute_matches_machine},
        {"straggler and slow hop", test_straggler_and_slow_hop},
        {"one-pass walk == general walk (multi-node, jitter, straggler)", test_fused_walk_equals_general},
        {"bad machine rejected", test_bad_machine},
        {NULL, NULL}};
    static const rs_test_suite_t suites[] = {{"model closed form", seed}, {"model walk", walk}};
    return rs_test_main(suites, 2);
}
