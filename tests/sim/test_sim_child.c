/* test_sim_child.c - the SimGrid child's rank actors (sim/sim_child.c) against the critical-path walk,
 * and the realism flags' effects against hand-derived values.
 *
 * Every simulation here runs in its own forked child (rs_sim_run), many per process. The walk
 * (rs_model_walk) is the reference: under the default configuration every event of the simulated
 * trace must equal the walk's to 1e-9 of the makespan (sim_fixtures.h: check_exact). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost.h"
#include "kernel.h"
#include "sim.h"
#include "sim_fixtures.h"
#include "test_main.h"
#include "harness.h"
#include "trace.h"

/* ------------------------------------------------------------------------------------------------
 * Exactness against the walk
 * ---------------------------------------------------------------------------------------------- */
/* All layouts x passes x causal, two block sizes (compute- and transfer-bound: the NVLink threshold
 * is F c_b / (W c_f) = 549 tokens for 32/8 heads, d = 128), with and without latency. */
static void exact_matrix(double lat) {
    for (int l = 0; l < RS_LAYOUT_COUNT; l++)
        for (int pass = 0; pass < RS_PASS_COUNT; pass++)
            for (int causal = 0; causal < 2; causal++)
                for (int bi = 0; bi < 2; bi++) {
                    const int64_t b = bi ? 4096 : 256;
                    rs_problem_t p = rs_test_problem(8, b, (rs_layout_t)l, (rs_pass_t)pass, causal);
                    rs_machine_t m = machine(F_H100, W_NVL, lat, 0, 0, 0);
                    char what[128];
                    snprintf(what, sizeof what, "%s %s %s B=%lld lat=%g", rs_layout_name(p.layout), rs_pass_name(p.pass),
                             causal ? "causal" : "full", (long long)b, lat);
                    check_exact(&p, &m, NULL, what);
                }
}

RS_TEST_SUITE("sim_exact")
RS_TEST(test_exact_no_latency, "exact_no_latency (3 layouts x 2 passes x causal x 2 B)") { exact_matrix(0); }

RS_TEST(test_exact_latency, "exact_latency (3 layouts x 2 passes x causal x 2 B, 5 us)") { exact_matrix(5e-6); }

/* MHA (kv_heads = q_heads), batch 2, a 64x128 tile; N = 1 (no transfers) and N = 2. */
RS_TEST(test_exact_shapes, "exact_shapes (MHA, batch, tile, N=1, N=2)") {
    rs_machine_t m = machine(F_H100, W_NVL, 3e-6, 0, 0, 0);
    rs_problem_t p = rs_test_problem(4, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    p.kv_heads = p.q_heads;
    p.batch = 2;
    p.tile_q = 64;
    check_exact(&p, &m, NULL, "mha batch 2 tile 64x128");
    for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
        rs_problem_t p1 = rs_test_problem(1, 2048, RS_LAYOUT_CONTIGUOUS, (rs_pass_t)pass, true);
        check_exact(&p1, &m, NULL, "N=1");
        rs_problem_t p2 = rs_test_problem(2, 2048, RS_LAYOUT_STRIPED, (rs_pass_t)pass, true);
        check_exact(&p2, &m, NULL, "N=2");
    }
}

/* Launch overhead, jitter, a straggler and a degraded hop together: still the walk, event by event. */
RS_TEST(test_exact_realism, "exact_realism (launch, jitter, straggler, degrade)") {
    rs_machine_t m = machine(F_H100, W_NVL, 2e-6, 0, 0, 0);
    m.cal.launch_s = 4e-6;
    m.jitter = 0.3;
    m.seed = 11;
    m.perturb.n_stragglers = 1, m.perturb.straggler_rank[0] = 2, m.perturb.straggler_factor[0] = 1.5;
    m.perturb.n_degraded = 1, m.perturb.degraded_hop[0] = 5, m.perturb.degraded_factor[0] = 3;
    for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
        rs_problem_t p = rs_test_problem(8, 1024, RS_LAYOUT_ZIGZAG, (rs_pass_t)pass, true);
        check_exact(&p, &m, NULL, "launch+jitter+straggler+degrade");
    }
}

/* Compute slowdown sigma while a transfer is in flight and partial overlap eta (transfers at eta
 * of their rate while the sender computes), each over layouts x passes x causal, flat and on nodes
 * of 4 with a slower NIC: event by event equal to the walk (eta = 0 runs at 1e-12 in SimGrid). */
RS_TEST(test_exact_slowdown_overlap, "exact_slowdown_overlap (sigma 1.4, eta 0.5 and 0; flat and nodes)") {
    for (int v = 0; v < 4; v++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int pass = 0; pass < RS_PASS_COUNT; pass++)
                for (int causal = 0; causal < 2; causal++) {
                    rs_machine_t m = v & 1 ? machine(F_H100, W_NVL, 2e-6, 4, 50e9, 5e-6) : machine(F_H100, W_NVL, 3e-6, 0, 0, 0);
                    if (v < 2) m.cal.comp_slowdown = 1.4;
                    else m.cal.overlap = v == 2 ? 0.5 : 0.0;
                    rs_problem_t p = rs_test_problem(8, 1024, (rs_layout_t)l, (rs_pass_t)pass, causal);
                    char what[160];
                    snprintf(what, sizeof what, "%s %s %s sigma=%g eta=%g G=%lld", rs_layout_name(p.layout),
                             rs_pass_name(p.pass), causal ? "causal" : "full", m.cal.comp_slowdown, m.cal.overlap,
                             (long long)m.devices_per_node);
                    check_exact(&p, &m, NULL, what);
                }
    /* eta with a straggler: a hop's transfer progresses at eta while its receiver computes, so the
     * hop into the slow rank stays slow longer than the hop out of it */
    for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
        rs_machine_t m = machine(F_H100, 20e9, 3e-6, 0, 0, 0);
        m.cal.overlap = 0.3;
        m.perturb.n_stragglers = 1, m.perturb.straggler_rank[0] = 3, m.perturb.straggler_factor[0] = 1.8;
        rs_problem_t p = rs_test_problem(8, 1024, RS_LAYOUT_CONTIGUOUS, (rs_pass_t)pass, false);
        check_exact(&p, &m, NULL, "eta 0.3 with a 1.8x straggler");
    }
    /* eta on the all-pairs platform (ports) */
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.routes = RS_PLATFORM_ALL_PAIRS;
    rs_machine_t m = machine(F_H100, W_NVL, 2e-6, 4, 50e9, 5e-6);
    m.cal.overlap = 0.3;
    rs_problem_t p = rs_test_problem(8, 2048, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    check_exact(&p, &m, &cfg, "all-pairs eta=0.3");
}


/* Polled progress (model/4-cost/polls.h): every receiver's eta from its own step's polls, so the
 * causal and zigzag steps (more, smaller calls) differ from the full ones. Every layout x pass x
 * mask, flat and in nodes, with a host cost: event by event equal to the walk; and the poll model
 * changes the answer (a causal zigzag ring against the same machine with its overlap curve only). */
RS_TEST(test_exact_polls, "exact_polls (polled progress; every layout, pass, mask; flat and nodes)") {
    int changed = 0;
    for (int v = 0; v < 2; v++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int pass = 0; pass < RS_PASS_COUNT; pass++)
                for (int causal = 0; causal < 2; causal++) {
                    rs_machine_t m = poll_machine(v);
                    rs_problem_t p = rs_test_problem(8, 1024, (rs_layout_t)l, (rs_pass_t)pass, causal);
                    char what[160];
                    snprintf(what, sizeof what, "polls %s %s %s G=%lld", rs_layout_name(p.layout), rs_pass_name(p.pass),
                             causal ? "causal" : "full", (long long)m.devices_per_node);
                    check_exact(&p, &m, NULL, what);
                    if (v == 0 && causal && l == RS_LAYOUT_ZIGZAG) {
                        rs_err_t err = {0};
                        rs_schedule_t *s = rs_schedule_create(&p, &err);
                        rs_walk_t a, b;
                        CU_ASSERT_EQUAL(rs_model_walk(s, &m, (rs_event_sink_t){0}, NULL, &a, &err), 0);
                        m.cal.poll.n = 0;
                        CU_ASSERT_EQUAL(rs_model_walk(s, &m, (rs_event_sink_t){0}, NULL, &b, &err), 0);
                        changed += fabs(a.makespan_s - b.makespan_s) > 1e-6 * b.makespan_s;
                        rs_schedule_free(s);
                    }
                }
    CU_ASSERT_EQUAL(changed, 2);
}

/* An overlap curve eta(bytes) (K,V, dK,dV and shared steps get different eta) with a host cost per
 * received transfer and byte, and the host cost with sigma: event by event equal to the walk. */
RS_TEST(test_exact_curve_host, "exact_curve_host (eta by bytes, host cost; with sigma)") {
    for (int v = 0; v < 3; v++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
                rs_machine_t m = v & 1 ? machine(F_H100, W_NVL, 2e-6, 4, 50e9, 5e-6) : machine(F_H100, W_NVL, 3e-6, 0, 0, 0);
                m.cal.host_s_per_xfer = 4e-6, m.cal.host_s_per_byte = 3e-12;
                if (v < 2) {
                    m.cal.n_overlap = 2;
                    m.cal.overlap_curve[0] = (rs_overlap_point_t){1e5, 0.2};
                    m.cal.overlap_curve[1] = (rs_overlap_point_t){1e8, 0.8};
                } else {
                    m.cal.comp_slowdown = 1.3;
                }
                rs_problem_t p = rs_test_problem(8, 1024, (rs_layout_t)l, (rs_pass_t)pass, true);
                char what[160];
                snprintf(what, sizeof what, "%s %s curve=%d host G=%lld", rs_layout_name(p.layout), rs_pass_name(p.pass),
                         m.cal.n_overlap, (long long)m.devices_per_node);
                check_exact(&p, &m, NULL, what);
            }
}

/* The transfer curve (calibration.h): a hop's m bytes take L + m g(m) / W. With g = 2 at every size
 * (two points, clamped) every layout, pass and mask walks exactly as on a hop of W / 2, and the closed
 * form's T_comm is L + 2 m / W by hand; with a curve that changes along the sizes (and polls with a
 * fresh poll curve apart, an overlap curve, host cost), flat and in nodes, SimGrid equals the walk
 * event by event (to 1e-6 of the makespan: SimGrid's payload is m g rounded to a whole byte). */
RS_TEST(test_exact_xfer_curve, "exact_xfer_curve (g = 2 is W / 2 by hand; a curve with polls, flat and nodes)") {
    for (int l = 0; l < RS_LAYOUT_COUNT; l++)
        for (int pass = 0; pass < RS_PASS_COUNT; pass++)
            for (int causal = 0; causal < 2; causal++) {
                rs_problem_t p = rs_test_problem(4, 1024, (rs_layout_t)l, (rs_pass_t)pass, causal);
                rs_machine_t m = machine(F_H100, 20e9, 3e-6, 0, 0, 0), half = machine(F_H100, 10e9, 3e-6, 0, 0, 0);
                m.cal.n_xfer = 2;
                m.cal.xfer_curve[0] = (rs_xfer_point_t){1e3, 2.0};
                m.cal.xfer_curve[1] = (rs_xfer_point_t){1e9, 2.0};
                rs_err_t err = {0};
                rs_schedule_t *s = rs_schedule_create(&p, &err);
                CU_ASSERT_PTR_NOT_NULL_FATAL(s);
                rs_walk_t a, b;
                CU_ASSERT_EQUAL(rs_model_walk(s, &m, (rs_event_sink_t){0}, NULL, &a, &err), 0);
                CU_ASSERT_EQUAL(rs_model_walk(s, &half, (rs_event_sink_t){0}, NULL, &b, &err), 0);
                RS_ASSERT_REL(a.makespan_s, b.makespan_s, 1e-12);
                rs_schedule_free(s);
                rs_closed_t c;
                CU_ASSERT_EQUAL(rs_model_closed(&p, &m, &c, &err), 0);
                RS_ASSERT_REL(c.t_comm_s, 3e-6 + 2 * c.bytes_per_step / 20e9, 1e-12);
                for (int v = 0; v < 2; v++) {
                    rs_machine_t q = v ? machine(F_H100, 20e9, 2e-6, 2, 5e9, 5e-6) : machine(F_H100, 20e9, 3e-6, 0, 0, 0);
                    q.cal.n_xfer = 3;
                    q.cal.xfer_curve[0] = (rs_xfer_point_t){1e5, 0.8};
                    q.cal.xfer_curve[1] = (rs_xfer_point_t){1e6, 1.1};
                    q.cal.xfer_curve[2] = (rs_xfer_point_t){4e6, 1.6};
                    q.cal.n_xfer_reused = 2; /* the steady state's receives apart (rs_schedule_step_reused_bytes) */
                    q.cal.xfer_curve_reused[0] = (rs_xfer_point_t){1e5, 1.9};
                    q.cal.xfer_curve_reused[1] = (rs_xfer_point_t){4e6, 1.3};
                    if (v) {
                        q.cal.host_s_per_xfer = 4e-6, q.cal.n_overlap = 2;
                        q.cal.overlap_curve[0] = (rs_overlap_point_t){1e5, 0.2};
                        q.cal.overlap_curve[1] = (rs_overlap_point_t){1e8, 0.8};
                        q.cal.poll = (rs_poll_model_t){.chunk_cols = 256, .panel_rows = {512, 256}, .n = 1};
                        q.cal.poll.curve[0] = (rs_poll_point_t){1e6, 2.5};
                        q.cal.poll.n_fresh = 2; /* fresh transfers picked up at other polls */
                        q.cal.poll.fresh[0] = (rs_poll_point_t){1e5, 0.7};
                        q.cal.poll.fresh[1] = (rs_poll_point_t){4e6, 1.6};
                    }
                    char what[160];
                    snprintf(what, sizeof what, "xfer curve %s %s %s v=%d", rs_layout_name(p.layout), rs_pass_name(p.pass),
                             causal ? "causal" : "full", v);
                    /* SimGrid moves whole bytes: m g is rounded, half a byte of a >= 100 KB transfer */
                    check_close(&p, &q, NULL, 1e-6, what);
                }
            }
}

/* Two poll curves (calibration.h, rs_calibration_step_polls): on a compute-bound ring (1e13 FLOP/s,
 * N = 4, B = 1024) whose steps poll, fresh transfers (step 0, the backward's step-1 partials) picked
 * up at other polls than reused ones: every layout, pass and mask, flat and in nodes, SimGrid equals
 * the walk event by event, and the fresh curve moves the walk's step-0 receives in every one. */
RS_TEST(test_exact_fresh_polls, "exact_fresh_polls (fresh transfers at their own polls, flat and nodes)") {
    int changed = 0, n = 0;
    for (int v = 0; v < 2; v++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int pass = 0; pass < RS_PASS_COUNT; pass++)
                for (int causal = 0; causal < 2; causal++) {
                    rs_machine_t m = v ? machine(1e13, 20e9, 2e-6, 2, 5e9, 5e-6) : machine(1e13, 20e9, 3e-6, 0, 0, 0);
                    m.cal.host_s_per_xfer = 4e-6, m.cal.n_overlap = 1;
                    m.cal.overlap_curve[0] = (rs_overlap_point_t){1e6, 0.5};
                    m.cal.poll = (rs_poll_model_t){.chunk_cols = 256, .panel_rows = {512, 256}, .n = 1, .n_fresh = 2};
                    m.cal.poll.curve[0] = (rs_poll_point_t){1e6, 6.0};
                    m.cal.poll.fresh[0] = (rs_poll_point_t){1e5, 1.0};
                    m.cal.poll.fresh[1] = (rs_poll_point_t){1e8, 2.0};
                    rs_problem_t p = rs_test_problem(4, 1024, (rs_layout_t)l, (rs_pass_t)pass, causal);
                    char what[160];
                    snprintf(what, sizeof what, "fresh polls %s %s %s v=%d", rs_layout_name(p.layout), rs_pass_name(p.pass),
                             causal ? "causal" : "full", v);
                    check_exact(&p, &m, NULL, what);
                    rs_err_t err = {0};
                    rs_schedule_t *s = rs_schedule_create(&p, &err);
                    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
                    rs_walk_t a, b;
                    rs_trace_t *ta = rs_trace_create("model"), *tb = rs_trace_create("model");
                    CU_ASSERT_EQUAL(rs_model_walk(s, &m, rs_trace_sink(ta), NULL, &a, &err), 0);
                    m.cal.poll.n_fresh = 0;
                    CU_ASSERT_EQUAL(rs_model_walk(s, &m, rs_trace_sink(tb), NULL, &b, &err), 0);
                    /* step 0's receives end elsewhere (its transfers are fresh) */
                    double d = 0;
                    CU_ASSERT_EQUAL_FATAL(rs_trace_count(ta), rs_trace_count(tb));
                    for (size_t e = 0; e < rs_trace_count(ta); e++) {
                        const rs_event_t *x = &rs_trace_events(ta)[e], *y = &rs_trace_events(tb)[e];
                        if (x->kind == RS_EV_RECV && x->step == 0) d += fabs(x->end_s - y->end_s);
                    }
                    changed += d > 1e-9 * b.makespan_s, n++;
                    rs_trace_free(ta), rs_trace_free(tb);
                    rs_schedule_free(s);
                }
    CU_ASSERT_EQUAL(changed, n);
}

/* The kernel-call cost model (model/4-cost/kernel.h): every implementation preset (ringsim, flash-attn,
 * te) with the H200 profile's kernel curves, every layout, pass and mask, two block sizes (B = 256:
 * transfer-bound over a 20 GB/s hop; B = 2048), on a flat ring and on nodes of 2 with latency,
 * launches, jitter and a straggler: event by event equal to the walk. */
RS_TEST(test_exact_kernel_presets, "exact_kernel_presets (3 presets x 3 layouts x 2 passes x causal; flat, nodes + realism)") {
    rs_hw_t hw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h200", &hw, &err), 0);
    for (int impl = RS_IMPL_RINGSIM; impl < RS_IMPL_COUNT; impl++)
        for (int v = 0; v < 2; v++)
            for (int l = 0; l < RS_LAYOUT_COUNT; l++)
                for (int pass = 0; pass < RS_PASS_COUNT; pass++)
                    for (int causal = 0; causal < 2; causal++) {
                        rs_machine_t m = v ? machine(F_H100, W_NVL, 2e-6, 2, 20e9, 5e-6) : machine(F_H100, W_NVL, 0, 0, 0, 0);
                        m.kernels = hw.kernels;
                        CU_ASSERT_TRUE_FATAL(hw.kernels.impl_kernel[impl] > 0);
                        CU_ASSERT_EQUAL_FATAL(rs_machine_set_kernel(&m, impl, hw.kernels.impl_kernel[impl], NULL), 0);
                        if (v) {
                            m.cal.launch_s = 3e-6, m.jitter = 0.1, m.seed = 5;
                            m.perturb.n_stragglers = 1, m.perturb.straggler_rank[0] = 1, m.perturb.straggler_factor[0] = 1.25;
                        }
                        rs_problem_t p = problem(4, v ? 256 : 2048, (rs_layout_t)l, (rs_pass_t)pass, causal);
                        p.grad_bytes = rs_impl_grad_bytes((rs_impl_t)impl, p.act_bytes);
                        char what[160];
                        snprintf(what, sizeof what, "%s %s %s %s v=%d", rs_impl_name((rs_impl_t)impl), rs_layout_name(p.layout),
                                 rs_pass_name(p.pass), causal ? "causal" : "full", v);
                        check_exact(&p, &m, NULL, what);
                    }
}

/* sigma has an effect: a transfer-bound-ish ring with sigma = 2 is slower than without. */
RS_TEST(test_slowdown_effect, "slowdown_hand_derived") {
    rs_problem_t p = rs_test_problem(8, 1024, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    rs_machine_t m = machine(F_H100, W_NVL, 0, 0, 0, 0);
    sim_pair_t a, b;
    CU_ASSERT_EQUAL_FATAL(run_pair(&p, &m, NULL, &a), 0);
    m.cal.comp_slowdown = 2;
    CU_ASSERT_EQUAL_FATAL(run_pair(&p, &m, NULL, &b), 0);
    /* hand-derived: T_comp = 17.37 us > T_comm = 9.32 us; every middle step computes T_comm at half
     * speed and the rest at full: T_comm + (T_comp - T_comm / 2) */
    const double tc = 4.0 * 128 * 32 * 1024.0 * 1024.0 / F_H100, tx = 2.0 * 8 * 128 * 2 * 1024.0 / W_NVL;
    RS_ASSERT_REL(a.sim.fig.makespan_s, 8 * tc, 1e-9);
    RS_ASSERT_REL(b.sim.fig.makespan_s, 7 * (tx + (tc - tx / 2)) + tc, 1e-9);
    pair_free(&a);
    pair_free(&b);
}

/* ------------------------------------------------------------------------------------------------
 * Inference: pass-q's all-to-all step
 * ---------------------------------------------------------------------------------------------- */
/* The inference variants (docs/inference.md): pass-kv and pass-q over a cached prefix, pass-q without
 * one, decode with uneven sequences per rank; every layout, causal and not; flat, two nodes, realism
 * (latency, launch, jitter, straggler, sigma, eta). pass-q's all-to-all runs on the all-pairs platform
 * the simulator generates for it: still the walk, event by event. */
RS_TEST(test_exact_inference, "exact_inference (cached pass-kv/pass-q, decode; all-to-all on all pairs)") {
    rs_machine_t flat = machine(F_H100, W_NVL, 3e-6, 0, 0, 0);
    rs_machine_t nodes = machine(F_H100, W_NVL, 3e-6, 2, 50e9, 5e-6);
    rs_machine_t real = nodes;
    real.cal.launch_s = 4e-6, real.jitter = 0.2, real.seed = 5;
    real.perturb.n_stragglers = 1, real.perturb.straggler_rank[0] = 1, real.perturb.straggler_factor[0] = 1.4;
    rs_machine_t sig = nodes, eta = flat;
    sig.cal.comp_slowdown = 1.3;
    eta.cal.overlap = 0.5;
    const rs_machine_t *ms[] = {&flat, &nodes, &real, &sig, &eta};
    const char *names[] = {"flat", "2 nodes", "realism", "sigma", "eta"};
    for (int mi = 0; mi < 5; mi++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int ring = 0; ring < RS_RING_COUNT; ring++)
                for (int causal = 0; causal < 2; causal++) {
                    rs_problem_t p = rs_test_problem(5, 256, (rs_layout_t)l, RS_PASS_FORWARD, causal);
                    p.ring = (rs_ring_t)ring;
                    p.cached_tokens = 5 * 1024;
                    char what[160];
                    snprintf(what, sizeof what, "%s %s %s %s cached", names[mi], rs_ring_name(p.ring), rs_layout_name(p.layout),
                             causal ? "causal" : "full");
                    check_exact(&p, ms[mi], NULL, what);
                    if (ring == RS_RING_PASS_Q && l == RS_LAYOUT_ZIGZAG && causal) {
                        p.cached_tokens = 0;
                        check_exact(&p, ms[mi], NULL, "pass-q without a cache");
                    }
                }
    for (int mi = 0; mi < 5; mi++) {
        rs_problem_t d = rs_test_problem(4, 256, RS_LAYOUT_STRIPED, RS_PASS_FORWARD, true);
        d.decode = true, d.ring = RS_RING_PASS_Q, d.seq_tokens = 1, d.cached_tokens = 4 * 4096, d.batch = 6;
        check_exact(&d, ms[mi], NULL, "decode, 6 sequences on 4 ranks");
    }
    rs_problem_t p = rs_test_problem(2, 256, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true); /* N = 2: the ring's own routes */
    p.ring = RS_RING_PASS_Q, p.cached_tokens = 2048;
    check_exact(&p, &nodes, NULL, "pass-q N=2");
}

/* ------------------------------------------------------------------------------------------------
 * Realism effects
 * ---------------------------------------------------------------------------------------------- */
/* Last step end of each rank, from a sorted trace. */
static void rank_ends(const rs_trace_t *t, int64_t n, int64_t steps, rs_pass_t pass, double *end) {
    for (int64_t r = 0; r < n; r++) {
        long i = rs_trace_find(t, (int32_t)r, (int32_t)(steps - 1), pass, RS_EV_STEP);
        CU_ASSERT_FATAL(i >= 0);
        end[r] = rs_trace_events(t)[i].end_s;
    }
}

RS_TEST_SUITE("sim_realism")
/* One straggler at 1.5x slows every rank's makespan. The ring is synchronous: a late post delays
 * the neighbours' transfers, one hop per step in both directions. At B = 512 (just below the NVLink
 * threshold of 549 tokens: T_comm = 4.66 us > T_comp = 4.34 us, no slack) the delay reaches every
 * rank within the N - 1 transferring steps; with much slack (B >> threshold) far ranks absorb it. */
RS_TEST(test_straggler, "straggler_1.5x_slows_every_rank") {
    const int64_t n = 8, b = 512;
    rs_problem_t p = rs_test_problem(n, b, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    rs_machine_t m = machine(F_H100, W_NVL, 0, 0, 0, 0);
    sim_pair_t base, slow;
    CU_ASSERT_EQUAL_FATAL(run_pair(&p, &m, NULL, &base), 0);
    m.perturb.n_stragglers = 1, m.perturb.straggler_rank[0] = 3, m.perturb.straggler_factor[0] = 1.5;
    CU_ASSERT_EQUAL_FATAL(run_pair(&p, &m, NULL, &slow), 0);
    double e0[8], e1[8];
    rank_ends(base.st, n, n, p.pass, e0);
    rank_ends(slow.st, n, n, p.pass, e1);
    /* hand-derived: T_comp = 4 d Hq B^2 / F, T_comm = 2 Hkv d 2 B / W; unperturbed every rank ends at
     * (N-1) T_comm + T_comp */
    const double tc = 4.0 * 128 * 32 * (double)b * (double)b / F_H100, tx = 2.0 * 8 * 128 * 2 * (double)b / W_NVL;
    CU_ASSERT_FATAL(tx > tc && 1.5 * tc > tx);
    for (int64_t r = 0; r < n; r++) {
        RS_ASSERT_REL(e0[r], (double)(n - 1) * tx + tc, 1e-9);
        CU_ASSERT(e1[r] > e0[r] * 1.05);
    }
    /* the straggler computes 1.5 T_comp > T_comm every step and never waits */
    RS_ASSERT_REL(e1[3], 1.5 * (double)n * tc, 1e-9);
    RS_ASSERT_REL(slow.sim.fig.makespan_s, slow.walk.makespan_s, 1e-9);
    CU_ASSERT_EQUAL(compare_traces(slow.wt, slow.st, 1e-9 * slow.walk.makespan_s, "straggler"), 0);
    pair_free(&base);
    pair_free(&slow);
}

/* Nodes of 8 on NVLink (450 GB/s) joined by a NIC 9x slower (50 GB/s). The NVLink threshold is
 * B = 549 tokens, the NIC's 9x that (4945). At B = 2048 (above NVLink's, below the NIC's) every
 * middle step lasts the inter-node hop's transfer, latency + c_b B / W_inter, on every rank; at
 * B = 8192 (above both) it lasts T_comp. */
RS_TEST(test_multinode_threshold, "multinode_9x_nic_sets_step_below_threshold") {
    const int64_t n = 16;
    rs_machine_t m = machine(F_H100, W_NVL, 2e-6, 8, W_NVL / 9, 5e-6);
    for (int bi = 0; bi < 2; bi++) {
        const int64_t b = bi ? 8192 : 2048;
        rs_problem_t p = rs_test_problem(n, b, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
        sim_pair_t r;
        CU_ASSERT_EQUAL_FATAL(run_pair(&p, &m, NULL, &r), 0);
        const double tc = 4.0 * 128 * 32 * (double)b * (double)b / F_H100;
        const double kv_bytes = 2.0 * 8 * 128 * 2 * (double)b;
        const double t_inter = 5e-6 + kv_bytes / (W_NVL / 9), t_intra = 2e-6 + kv_bytes / W_NVL;
        const double expect = bi ? tc : t_inter;
        CU_ASSERT(bi ? tc > t_inter : t_inter > tc && tc > t_intra);
        for (int64_t k = 1; k < n - 1; k++) RS_ASSERT_REL(r.sim.step_max_s[k], expect, 1e-9);
        /* makespan: (N-1) steps paced by the slowest hop, then the last step's compute */
        RS_ASSERT_REL(r.sim.fig.makespan_s, (double)(n - 1) * (bi ? tc : t_inter) + tc, 1e-9);
        CU_ASSERT_EQUAL(compare_traces(r.wt, r.st, 1e-9 * r.walk.makespan_s, "multinode"), 0);
        pair_free(&r);
    }
}

/* Seeded jitter: the same seed gives a byte-identical trace file, another seed a different one. */
RS_TEST(test_jitter_seeded, "jitter_same_seed_byte_identical") {
    rs_problem_t p = rs_test_problem(8, 2048, RS_LAYOUT_STRIPED, RS_PASS_FORWARD, true);
    rs_machine_t m = machine(F_H100, W_NVL, 1e-6, 0, 0, 0);
    m.jitter = 0.2;
    char path[3][256];
    for (int i = 0; i < 3; i++) {
        m.seed = i < 2 ? 42 : 43;
        sim_pair_t r;
        CU_ASSERT_EQUAL_FATAL(run_pair(&p, &m, NULL, &r), 0);
        RS_ASSERT_REL(r.sim.fig.makespan_s, r.walk.makespan_s, 1e-9);
        snprintf(path[i], sizeof path[i], "%s/tests/sim_jitter_%d_%d.csv", RS_BINARY_DIR, (int)getpid(), i);
        rs_err_t err;
        CU_ASSERT_EQUAL(rs_trace_write_csv(r.st, path[i], &err), 0);
        pair_free(&r);
    }
    char *text[3];
    size_t len[3];
    for (int i = 0; i < 3; i++) {
        FILE *fp = fopen(path[i], "rb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        fseek(fp, 0, SEEK_END);
        len[i] = (size_t)ftell(fp);
        rewind(fp);
        text[i] = malloc(len[i] + 1);
        CU_ASSERT_EQUAL(fread(text[i], 1, len[i], fp), len[i]);
        fclose(fp);
        unlink(path[i]);
    }
    CU_ASSERT(len[0] == len[1] && memcmp(text[0], text[1], len[0]) == 0);
    CU_ASSERT(len[0] != len[2] || memcmp(text[0], text[2], len[0]) != 0);
    for (int i = 0; i < 3; i++) free(text[i]);
}

/* A degraded hop (bandwidth / 4) in a transfer-bound ring paces every step. */
RS_TEST(test_degraded_hop, "degraded_hop_paces_ring") {
    const int64_t n = 8, b = 256;
    rs_problem_t p = rs_test_problem(n, b, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    rs_machine_t m = machine(F_H100, W_NVL, 0, 0, 0, 0);
    m.perturb.n_degraded = 1, m.perturb.degraded_hop[0] = 6, m.perturb.degraded_factor[0] = 4;
    sim_pair_t r;
    CU_ASSERT_EQUAL_FATAL(run_pair(&p, &m, NULL, &r), 0);
    const double kv_bytes = 2.0 * 8 * 128 * 2 * (double)b, tc = 4.0 * 128 * 32 * (double)b * (double)b / F_H100;
    RS_ASSERT_REL(r.sim.fig.makespan_s, (double)(n - 1) * kv_bytes / (W_NVL / 4) + tc, 1e-9);
    RS_ASSERT_REL(r.sim.fig.makespan_s, r.walk.makespan_s, 1e-9);
    pair_free(&r);
}

/* ------------------------------------------------------------------------------------------------
 * The activity engine against the actor engine
 * ---------------------------------------------------------------------------------------------- */
RS_TEST_SUITE("sim_engines")
/* One problem on both engines (rs_sim_engine_t): the engine that ran is the one expected (FAST only
 * where sim_dag.c's rules allow it), both equal the walk to 1e-9 of the makespan event by event, and
 * each other to 1e-12 of it with the same counts. Returns 1 when the activity engine ran. */
static int check_engines(const rs_problem_t *p, const rs_machine_t *m, const rs_sim_config_t *base, bool want_fast,
                         const char *what) {
    rs_sim_config_t cfg[2];
    sim_pair_t r[2];
    for (int e = 0; e < 2; e++) {
        if (base) cfg[e] = *base;
        else rs_sim_config_default(&cfg[e]);
        cfg[e].engine = e ? RS_SIM_ENGINE_REFERENCE : RS_SIM_ENGINE_FAST;
        CU_ASSERT_EQUAL_FATAL(run_pair(p, m, &cfg[e], &r[e]), 0);
        RS_ASSERT_REL(r[e].sim.fig.makespan_s, r[e].walk.makespan_s, 1e-9);
        CU_ASSERT_EQUAL(compare_traces(r[e].wt, r[e].st, 1e-9 * r[e].walk.makespan_s, what), 0);
        CU_ASSERT_EQUAL(r[e].sim.fig.rank_steps, r[e].walk.rank_steps);
    }
    CU_ASSERT_EQUAL(r[0].sim.engine, want_fast ? RS_SIM_ENGINE_FAST : RS_SIM_ENGINE_REFERENCE);
    CU_ASSERT_EQUAL(r[1].sim.engine, RS_SIM_ENGINE_REFERENCE);
    CU_ASSERT_EQUAL(compare_traces(r[1].st, r[0].st, 1e-12 * r[1].sim.fig.makespan_s, what), 0);
    RS_ASSERT_REL(r[0].sim.fig.makespan_s, r[1].sim.fig.makespan_s, 1e-12);
    RS_ASSERT_REL(r[0].sim.fig.busy_max_s, r[1].sim.fig.busy_max_s, 1e-12);
    CU_ASSERT_EQUAL(r[0].sim.fig.flops_exec, r[1].sim.fig.flops_exec);
    CU_ASSERT_EQUAL(r[0].sim.fig.comm_bound_steps, r[1].sim.fig.comm_bound_steps);
    const int fast = r[0].sim.engine == RS_SIM_ENGINE_FAST;
    for (int e = 0; e < 2; e++) pair_free(&r[e]);
    return fast;
}

/* Every layout x pass x mask, compute- and transfer-bound, flat and on nodes of 4 with a slower NIC,
 * with latency, launch cost, jitter, a straggler and a degraded hop, partial overlap (eta 0.5 and 0)
 * and polled progress: the activity engine runs and equals the actor engine and the walk. Compute
 * slowdown and a user's platform run on the actor engine (sim_dag_eligible). */
RS_TEST(test_engines_agree, "engines_agree (activity engine = actor engine = walk; who runs what)") {
    int fast = 0;
    const int cases = 4 * RS_LAYOUT_COUNT * RS_PASS_COUNT * 2; /* machine variant x layout x pass x mask */
    for (int c = 0; c < cases; c++) {
        const int v = c / (2 * RS_PASS_COUNT * RS_LAYOUT_COUNT), l = c / (2 * RS_PASS_COUNT) % RS_LAYOUT_COUNT;
        const int pass = c / 2 % RS_PASS_COUNT, causal = c % 2;
        rs_machine_t m = v & 1 ? machine(F_H100, W_NVL, 2e-6, 4, 50e9, 5e-6) : machine(F_H100, W_NVL, 3e-6, 0, 0, 0);
        if (v >= 2) {
            m.cal.launch_s = 4e-6, m.jitter = 0.3, m.seed = 7;
            m.perturb.n_stragglers = 1, m.perturb.straggler_rank[0] = 2, m.perturb.straggler_factor[0] = 1.5;
            m.perturb.n_degraded = 1, m.perturb.degraded_hop[0] = 5, m.perturb.degraded_factor[0] = 3;
            m.cal.overlap = v == 2 ? 0.5 : 0.0;
        }
        rs_problem_t p = rs_test_problem(8, causal ? 4096 : 256, (rs_layout_t)l, (rs_pass_t)pass, causal);
        char what[160];
        snprintf(what, sizeof what, "engines v%d %s %s %s", v, rs_layout_name(p.layout), rs_pass_name(p.pass),
                 causal ? "causal" : "full");
        fast += check_engines(&p, &m, NULL, true, what);
    }
    CU_ASSERT_EQUAL(fast, cases);
    rs_machine_t m = poll_machine(true);
    rs_problem_t p = rs_test_problem(8, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    CU_ASSERT_EQUAL(check_engines(&p, &m, NULL, true, "engines polls"), 1);
    m = machine(F_H100, W_NVL, 3e-6, 0, 0, 0);
    m.cal.comp_slowdown = 1.4;
    CU_ASSERT_EQUAL(check_engines(&p, &m, NULL, false, "engines sigma (actor engine)"), 0);
}

RS_TEST_MAIN(.suite = NULL)
