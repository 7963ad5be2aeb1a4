/* test_cost_walk.c - the critical-path walk (cost_walk.c): walk == closed form on balanced rings
 * (latency, launch, eta, sigma, overlap and transfer curves, host cost), reused bytes by hand, causal
 * and loopback makespans by hand, the walk's compute against rs_machine_comp_time and against
 * rs_kernel_step_s (every preset), the arrived partial's merges, stragglers and slow hops, the
 * one-pass walk against the general one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "kernel.h"
#include "test_main.h"
#include "model_fixtures.h"
#include "trace.h"

/* optional extras for walk_vs_closed: an overlap curve (g_curve) and a host cost per transfer/byte */
static int g_curve, g_reused;
static double g_host_o, g_host_per_byte;

/* The walk of p on m equals the closed form's makespan (to 1e-12); *w the walk's figures. */
static void walk_equals_closed(const rs_problem_t *p, const rs_machine_t *m, rs_walk_t *w) {
    rs_schedule_t *s = rs_schedule_create(p, NULL);
    rs_closed_t c;
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(p, m, &c, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, m, RS_NO_SINK, NULL, w, NULL), 0);
    RS_ASSERT_REL(w->makespan_s, c.makespan_s, 1e-12);
    rs_schedule_free(s);
}

static void walk_vs_closed(rs_pass_t pass, double lat, double eta, double sigma, double launch) {
    const int64_t ns[] = {1, 2, 3, 8, 64};
    const double ws[] = {1e9, 450e9, 1e13}; /* comm-bound, near threshold, compute-bound */
    for (unsigned i = 0; i < 5; i++)
        for (unsigned j = 0; j < 3; j++)
            for (int l = 0; l < RS_LAYOUT_COUNT; l++) {
                rs_problem_t p = rs_test_mha(ns[i] * 2 * 1024, ns[i], false, (rs_layout_t)l, pass);
                rs_machine_t m = rs_test_link_machine(989e12, ws[j], lat);
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
                rs_walk_t w;
                walk_equals_closed(&p, &m, &w);
                RS_ASSERT_REL(w.efficiency, w.ideal_s / w.makespan_s, 1e-15);
            }
}

RS_TEST(test_walk_equals_closed_forward, "walk == closed form, forward") { walk_vs_closed(RS_PASS_FORWARD, 0, 1, 1, 0); }

RS_TEST(test_walk_equals_closed_backward, "walk == closed form, backward") { walk_vs_closed(RS_PASS_BACKWARD, 0, 1, 1, 0); }

RS_TEST(test_walk_equals_closed_latency, "walk == closed form, latency + launch") {
    walk_vs_closed(RS_PASS_FORWARD, 5e-6, 1, 1, 2e-6);
    walk_vs_closed(RS_PASS_BACKWARD, 5e-6, 1, 1, 2e-6);
}

RS_TEST(test_walk_equals_closed_overlap, "walk == closed form, overlap eta and slowdown sigma") {
    walk_vs_closed(RS_PASS_FORWARD, 1e-6, 0, 1, 0);
    walk_vs_closed(RS_PASS_FORWARD, 1e-6, 0.4, 1, 0);
    walk_vs_closed(RS_PASS_BACKWARD, 1e-6, 0.4, 1, 0);
    walk_vs_closed(RS_PASS_FORWARD, 1e-6, 1, 1.3, 0);
    walk_vs_closed(RS_PASS_BACKWARD, 1e-6, 1, 1.3, 0);
}

RS_TEST(test_walk_equals_closed_curve_host, "walk == closed form, overlap curve and host cost") {
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
RS_TEST(test_walk_equals_closed_reused, "walk == closed form, reused transfer curve") {
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
RS_TEST(test_reused_bytes_by_hand, "reused bytes and the step's transfer factor by hand") {
    for (int pass = 0; pass < 2; pass++)
        for (int64_t n = 2; n <= 4; n += 2) {
            rs_problem_t p = rs_test_mha(n * 1024, n, false, RS_LAYOUT_ZIGZAG, pass ? RS_PASS_BACKWARD : RS_PASS_FORWARD);
            rs_schedule_t *s = rs_schedule_create(&p, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(s);
            const uint64_t kv = rs_problem_kv_bytes(&p), dkv = rs_problem_dkv_bytes(&p);
            const uint64_t fwd4[] = {0, kv, kv, 0}, bwd4[] = {0, kv, kv + dkv, dkv, dkv}, fwd2[] = {0, 0}, bwd2[] = {0, 0, dkv};
            const uint64_t *want = pass ? (n == 4 ? bwd4 : bwd2) : (n == 4 ? fwd4 : fwd2);
            for (int64_t k = 0; k < rs_schedule_n_steps(s); k++) CU_ASSERT_EQUAL(rs_schedule_step_reused_bytes(s, k), want[k]);
            rs_schedule_free(s);
        }
    rs_machine_t m = rs_test_link_machine(1e12, 1e9, 0);
    CU_ASSERT_EQUAL(rs_machine_step_xfer_factor(&m, 4e6, 1e6), 1.0); /* no curves: g = 1 */
    m.cal.n_xfer = 1, m.cal.xfer_curve[0] = (rs_xfer_point_t){1e6, 1.0};
    CU_ASSERT_EQUAL(rs_machine_step_xfer_factor(&m, 4e6, 1e6), 1.0); /* no reused curve: the fresh one */
    m.cal.n_xfer_reused = 1, m.cal.xfer_curve_reused[0] = (rs_xfer_point_t){1e6, 3.0};
    RS_ASSERT_REL(rs_machine_step_xfer_factor(&m, 4e6, 1e6), 1.5, 1e-15);
    RS_ASSERT_REL(rs_machine_step_xfer_factor(&m, 4e6, 4e6), 3.0, 1e-15);
    CU_ASSERT_EQUAL(rs_machine_step_xfer_factor(&m, 4e6, 0), 1.0);
}

RS_TEST(test_causal_walk_hand_values, "causal makespans by hand") {
    const int64_t n = 8, b = 4;
    const double f = 1e12, fpp = 4 * 128;
    rs_machine_t m = rs_test_link_machine(f, 1e18, 0);
    rs_walk_t w;
    /* contiguous: rank N-1 computes its diagonal (10 pairs) and N-1 full blocks (16 pairs) */
    rs_problem_t p = rs_test_mha(n * b, n, true, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
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

RS_TEST(test_loopback_walk_hand_values, "loopback walk by hand (each rank alone)") {
    /* contiguous causal, N = 8, B = 4, d = 128: a diagonal block is 10 pairs (c10), a full one 16
     * (c16); a K,V block of 2 B d 2 = 2048 bytes takes x = 7 ns, between the two. Alone, rank 0
     * computes only its diagonal and then waits for its own transfers: max(c10, x) + 6 x; rank 7
     * computes everything: max(c10, x) + 6 max(c16, x) + c16 (its last step sends nothing). */
    const int64_t n = 8, b = 4;
    const double f = 1e12, fpp = 4 * 128, x = 7e-9;
    const double c10 = 10 * fpp / f, c16 = 16 * fpp / f;
    rs_machine_t m = rs_test_link_machine(f, 2048 / x, 0);
    m.loopback = true;
    rs_problem_t p = rs_test_mha(n * b, n, true, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
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

RS_TEST(test_walk_compute_matches_machine, "walk compute == rs_machine_comp_time") {
    rs_problem_t p = rs_test_mha(16 * 256, 16, true, RS_LAYOUT_STRIPED, RS_PASS_BACKWARD);
    p.tile_q = 64;
    p.tile_k = 32;
    rs_machine_t m = rs_test_link_machine(1e12, 1e10, 1e-6);
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

RS_TEST(test_straggler_and_slow_hop, "straggler and slow hop") {
    /* a 1.5x straggler in a compute-bound non-causal ring stretches every rank's end */
    rs_problem_t p = rs_test_mha(8 * 4096, 8, false, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD);
    rs_machine_t m = rs_test_link_machine(1e12, 1e13, 0);
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    rs_walk_t base, slow;
    rs_model_walk(s, &m, RS_NO_SINK, NULL, &base, NULL);
    m.perturb.n_stragglers = 1, m.perturb.straggler_rank[0] = 3, m.perturb.straggler_factor[0] = 1.5;
    rs_model_walk(s, &m, RS_NO_SINK, NULL, &slow, NULL);
    RS_ASSERT_REL(slow.makespan_s, 1.5 * base.makespan_s, 1e-12);
    /* a hop 9x slower sets the pace of a comm-bound ring: makespan ~ (N-1) * 9 T_comm */
    rs_machine_t m2 = rs_test_link_machine(1e15, 1e11, 0);
    rs_model_walk(s, &m2, RS_NO_SINK, NULL, &base, NULL);
    m2.perturb.n_degraded = 1, m2.perturb.degraded_hop[0] = 2, m2.perturb.degraded_factor[0] = 9;
    rs_model_walk(s, &m2, RS_NO_SINK, NULL, &slow, NULL);
    double tm = (double)rs_problem_kv_bytes(&p) / 1e11;
    RS_ASSERT_REL(slow.makespan_s, 7 * 9 * tm + 4096.0 * 4096 * 512 / 1e15, 1e-9);
    rs_schedule_free(s);
}

/* The one-pass walk (no trace, full overlap) against the general walk (taken when a trace is
 * recorded), on heterogeneous rings: every statistic must agree. */
RS_TEST(test_fused_walk_equals_general, "one-pass walk == general walk (multi-node, jitter, straggler)") {
    for (int l = 0; l < RS_LAYOUT_COUNT; l++)
        for (int ps = 0; ps < RS_PASS_COUNT; ps++) {
            rs_problem_t p = rs_test_mha(16 * 512, 16, true, (rs_layout_t)l, (rs_pass_t)ps);
            p.tile_q = p.tile_k = 64;
            rs_machine_t m = rs_test_link_machine(1e13, 2e9, 2e-6);
            m.devices_per_node = 4;
            m.inter = (rs_tier_t){"slow-nic", 3e8, 5e-6, {0, 0, 0}, 0};
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

/* The walk's compute of (rank, step) equals rs_kernel_step_s (the simulators' function), with
 * stragglers, jitter and a host cost, for every preset, layout and pass; and its merges after the
 * incoming partial (acc.after_s, straggler included) lie between the step event's end and the next
 * step's start: nothing in the forward and at the backward's step 0, > 0 at its later steps under a
 * preset (ringsim's always; a per-step preset's when the step calls its kernel, since
 * ring-flash-attn forwards the partial as is otherwise). */
RS_TEST(test_walk_equals_step_function, "walk compute == rs_kernel_step_s (every preset, layout, pass)") {
    for (int impl = 0; impl < RS_IMPL_COUNT; impl++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int pass = 0; pass < 2; pass++) {
                rs_machine_t m = rs_test_kernel_machine((rs_impl_t)impl, 2e-6);
                m.jitter = 0.2, m.seed = 7;
                m.perturb.n_stragglers = 1, m.perturb.straggler_rank[0] = 2, m.perturb.straggler_factor[0] = 1.3;
                m.cal.host_s_per_xfer = 1e-6, m.cal.host_s_per_byte = 1e-12;
                rs_problem_t p = rs_test_kernel_problem(5, 1024, (rs_layout_t)l, (rs_pass_t)pass, true);
                rs_schedule_t *s = rs_schedule_create(&p, NULL);
                rs_trace_t *t = rs_trace_create("model");
                rs_walk_t w;
                CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, rs_trace_sink(t), NULL, &w, NULL), 0);
                rs_kmodel_t km;
                rs_kmodel_init(&km, &p, &m);
                const rs_event_t *ev = rs_trace_events(t);
                int bad = 0, compared = 0, gaps = 0, bad_gap = 0;
                for (int64_t r = 0; r < 5; r++) {
                    rs_krank_t acc = {0};
                    for (int64_t k = 0; k < rs_schedule_n_steps(s); k++) {
                        rs_step_t st;
                        rs_schedule_step(s, r, k, &st);
                        double recv = 0;
                        for (int i = 0; i < st.n_recv; i++) recv += (double)st.recv[i].bytes;
                        double want = rs_kernel_step_s(&km, &st, &acc, st.n_recv, recv, (double)rs_schedule_step_reused_bytes(s, k));
                        double step_end = -1, next_start = -1;
                        for (size_t i = 0; i < rs_trace_count(t); i++) {
                            if (ev[i].rank == r && ev[i].step == k && ev[i].kind == RS_EV_COMPUTE) {
                                compared++;
                                /* the event starts after the merges before the calls (ringsim's grad_zero) */
                                bad += fabs((ev[i].end_s - ev[i].start_s) + acc.before_s - want) > 1e-12 * want;
                                bad += acc.before_s > 0 && (impl != RS_IMPL_RINGSIM || pass != RS_PASS_BACKWARD);
                            }
                            if (ev[i].rank == r && ev[i].kind == RS_EV_STEP && ev[i].step == k) step_end = ev[i].end_s;
                            if (ev[i].rank == r && ev[i].kind == RS_EV_STEP && ev[i].step == k + 1) next_start = ev[i].start_s;
                        }
                        rs_kstep_t ks; /* a per-step preset's step without a call forwards the partial as is */
                        rs_kernel_step(&km, &st, &ks);
                        const bool later_bwd = pass == RS_PASS_BACKWARD && k >= 1 && k < 5 &&
                                               (impl == RS_IMPL_RINGSIM || (impl != RS_IMPL_NONE && ks.n_calls > 0));
                        bad_gap += later_bwd != (acc.after_s > 0);
                        if (next_start >= 0) {
                            gaps++;
                            bad_gap += fabs(next_start - step_end - acc.after_s) > 1e-12 * next_start;
                        }
                    }
                }
                CU_ASSERT_EQUAL(bad, 0);
                CU_ASSERT_EQUAL(bad_gap, 0);
                CU_ASSERT_EQUAL(compared, 25); /* N = 5 ranks x 5 computing steps */
                CU_ASSERT_EQUAL(gaps, 5 * (rs_schedule_n_steps(s) - 1));
                rs_trace_free(t);
                rs_schedule_free(s);
            }
}

/* By hand: N = 2, contiguous, non-causal backward, ringsim preset, B = 2048, one head of d 128, no
 * launch or host cost, full overlap. Step k ends at max(c_k, L + bytes_k / W) (its flows share the
 * hop) and step 1 then adds the incoming partial: a = 12 e / merge bw (read 4 + 4, write 4 per element
 * of dK and dV, e = 2 B d elements); c_0 = c_1 = the full call + the partial's clearing (4 e / bw), the
 * tail computes nothing. Compute-bound (W = 100 GB/s) and transfer-bound (W = 0.1 GB/s), walk,
 * closed form and the trace's step 1: its event ends a before step 2 starts, and its compute event
 * starts after the clearing (4 e / bw: the executor's compute event is its kernel alone). */
RS_TEST(test_after_arrival_by_hand, "backward: the arrived partial's merges after compute and arrival, by hand") {
    const double ws[] = {100e9, 0.1e9};
    for (int i = 0; i < 4; i++) {
        rs_machine_t m = rs_test_kernel_machine(RS_IMPL_RINGSIM, 0);
        m.intra.bw_bytes_per_s = ws[i % 2];
        /* the clear (grad_zero) at the device memory's bandwidth when the profile has one (i >= 2: 4x
         * slower than the merges), else at the merge bandwidth */
        const double clear_bw = i >= 2 ? 2.5e11 : 1e12;
        m.mem_bw_bytes_per_s = i >= 2 ? 2.5e11 : 0;
        rs_problem_t p = rs_test_kernel_problem(2, 2048, RS_LAYOUT_CONTIGUOUS, RS_PASS_BACKWARD, false);
        rs_schedule_t *s = rs_schedule_create(&p, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        rs_kmodel_t km;
        rs_kmodel_init(&km, &p, &m);
        const double e = 2.0 * 2048 * 128, a = 12 * e / 1e12;
        const double c = 2048.0 * 2048 * 1280 / rs_test_loglog(80e12, 160e12, 2048.0 * 2048) + 4 * e / clear_bw;
        double want = 0;
        for (int64_t k = 0; k < 3; k++) {
            uint64_t bytes[RS_MAX_TRANSFERS], tot = 0;
            const int nx = rs_schedule_step_xfers(s, k, bytes);
            for (int j = 0; j < nx; j++) tot += bytes[j];
            want += fmax(k < 2 ? c : 0, 2e-6 + (double)tot / ws[i % 2]) + (k == 1 ? a : 0);
        }
        rs_trace_t *t = rs_trace_create("model");
        rs_walk_t w;
        rs_closed_t cl;
        CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, rs_trace_sink(t), NULL, &w, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &cl, NULL), 0);
        RS_ASSERT_REL(w.makespan_s, want, 1e-12);
        RS_ASSERT_REL(cl.makespan_s, want, 1e-12);
        double end1 = -1, start2 = -1, start1 = -1, comp1 = -1;
        for (size_t j = 0; j < rs_trace_count(t); j++) {
            const rs_event_t *ev = &rs_trace_events(t)[j];
            if (ev->rank == 0 && ev->kind == RS_EV_STEP && ev->step == 1) end1 = ev->end_s, start1 = ev->start_s;
            if (ev->rank == 0 && ev->kind == RS_EV_STEP && ev->step == 2) start2 = ev->start_s;
            if (ev->rank == 0 && ev->kind == RS_EV_COMPUTE && ev->step == 1) comp1 = ev->start_s;
        }
        RS_ASSERT_REL(start2 - end1, a, 1e-9);
        RS_ASSERT_REL(comp1 - start1, 4 * e / clear_bw, 1e-9); /* the kernel starts after grad_zero */
        rs_trace_free(t);
        rs_schedule_free(s);
    }
}

/* Non-causal (balanced) rings: the closed form's makespan equals the walk's for every preset. */
RS_TEST(test_closed_equals_walk, "closed form == walk (non-causal, every preset)") {
    const int64_t ns[] = {1, 2, 3, 8};
    const double ws[] = {1e9, 100e9, 1e13};
    for (int impl = 0; impl < RS_IMPL_COUNT; impl++)
        for (unsigned i = 0; i < 4; i++)
            for (unsigned j = 0; j < 3; j++)
                for (int l = 0; l < RS_LAYOUT_COUNT; l++)
                    for (int pass = 0; pass < 2; pass++) {
                        rs_machine_t m = rs_test_kernel_machine((rs_impl_t)impl, 1e-6);
                        m.intra.bw_bytes_per_s = m.inter.bw_bytes_per_s = ws[j];
                        rs_problem_t p = rs_test_kernel_problem(ns[i], 2048, (rs_layout_t)l, (rs_pass_t)pass, false);
                        rs_walk_t w;
                        walk_equals_closed(&p, &m, &w);
                    }
}

RS_TEST_PROGRAM("walk")
