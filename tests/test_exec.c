/* test_exec.c - the executor on the CPU backend, N ranks as threads (no mpirun needed):
 * numerics against the float64 reference for every layout x causal x pass x GQA, N = 1, extreme
 * logits, .npy files, a rank that stops answering, and the trace against the schedule. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate.h"
#include "exec.h"
#include "model.h"
#include "test_main.h"

/* A small problem: S tokens over N ranks, 2 q heads, d 16, fp32, tile 4x4 (so DIAG blocks skip tiles). */
static rs_problem_t small(int64_t S, int64_t N, rs_layout_t layout, bool causal, rs_pass_t pass, int64_t kvh) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = S, p.n_ranks = N, p.batch = 1, p.q_heads = 2, p.kv_heads = kvh, p.head_dim = 16;
    p.act_bytes = 4, p.grad_bytes = 4, p.causal = causal, p.layout = layout, p.pass = pass;
    p.tile_q = 4, p.tile_k = 4;
    return p;
}

static int run(const rs_problem_t *p, rs_exec_opts_t *o, rs_trace_t *trace, rs_exec_result_t *res, rs_err_t *err) {
    rs_schedule_t *s = rs_schedule_create(p, err);
    if (!s) return -2;
    int rc = rs_exec_run_threads(s, &rs_cpu_compute_ops, NULL, NULL, o, trace, res, err);
    rs_schedule_free(s);
    return rc;
}

static rs_exec_opts_t opts_check(void) {
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    o.warmup = 0, o.reps = 1, o.timeout_s = 20, o.check = true, o.check_tol = 1e-5;
    return o;
}

/* Every layout x causal x pass x (MHA, GQA) at N = 4: O, dQ, dK, dV within 1e-5 of float64. */
static void test_numerics_all(void) {
    for (int l = 0; l < RS_LAYOUT_COUNT; l++)
        for (int causal = 0; causal < 2; causal++)
            for (int pass = 0; pass < RS_PASS_COUNT; pass++)
                for (int kvh = 1; kvh <= 2; kvh++) {
                    rs_problem_t p = small(48, 4, (rs_layout_t)l, causal, (rs_pass_t)pass, kvh);
                    rs_exec_opts_t o = opts_check();
                    rs_exec_result_t res;
                    rs_err_t err = {{0}};
                    int rc = run(&p, &o, NULL, &res, &err);
                    if (rc != 0 || !res.check_ok)
                        fprintf(stderr, "  %s causal=%d %s kv_heads=%d: rc %d: %s\n", rs_layout_name(p.layout), causal,
                                rs_pass_name(p.pass), kvh, rc, err.msg);
                    CU_ASSERT_EQUAL(rc, 0);
                    CU_ASSERT(res.check_ok);
                    CU_ASSERT(res.finite);
                    CU_ASSERT(res.err[RS_TENSOR_O] >= 0 && res.err[RS_TENSOR_O] <= 1e-5);
                    /* the check must have compared something real: a wrong layout mapping gives O(1) */
                    CU_ASSERT(res.err[RS_TENSOR_O] < 1e-5);
                    if (pass == RS_PASS_BACKWARD) {
                        CU_ASSERT(res.err[RS_TENSOR_DQ] >= 0 && res.err[RS_TENSOR_DQ] <= 1e-5);
                        CU_ASSERT(res.err[RS_TENSOR_DK] >= 0 && res.err[RS_TENSOR_DK] <= 1e-5);
                        CU_ASSERT(res.err[RS_TENSOR_DV] >= 0 && res.err[RS_TENSOR_DV] <= 1e-5);
                    }
                }
}

/* N = 1 (no transfers), N = 2, and an odd N = 3 with tiles that do not divide B. */
static void test_numerics_sizes(void) {
    const int64_t cfg[][2] = {{16, 1}, {24, 2}, {42, 3}};
    for (int i = 0; i < 3; i++)
        for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
            rs_problem_t p = small(cfg[i][0], cfg[i][1], RS_LAYOUT_ZIGZAG, true, (rs_pass_t)pass, 2);
            p.tile_q = 5, p.tile_k = 3;
            rs_exec_opts_t o = opts_check();
            rs_exec_result_t res;
            rs_err_t err = {{0}};
            int rc = run(&p, &o, NULL, &res, &err);
            if (rc) fprintf(stderr, "  S=%lld N=%lld: %s\n", (long long)cfg[i][0], (long long)cfg[i][1], err.msg);
            CU_ASSERT_EQUAL(rc, 0);
            CU_ASSERT(res.check_ok);
            CU_ASSERT(res.err[RS_TENSOR_O] >= 0 && res.err[RS_TENSOR_O] <= 1e-5);
            if (pass == RS_PASS_BACKWARD) CU_ASSERT(res.err[RS_TENSOR_DK] >= 0 && res.err[RS_TENSOR_DK] <= 1e-5);
        }
}

/* A wrong answer must be caught: a reference on other inputs (tolerance 0) fails the check. */
static void test_check_can_fail(void) {
    rs_problem_t p = small(32, 4, RS_LAYOUT_STRIPED, true, RS_PASS_FORWARD, 2);
    rs_exec_opts_t o = opts_check();
    o.check_tol = 1e-12; /* fp32 cannot reach this: the check must say so */
    rs_exec_result_t res;
    rs_err_t err = {{0}};
    int rc = run(&p, &o, NULL, &res, &err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(!res.check_ok);
    CU_ASSERT(res.err[RS_TENSOR_O] > 1e-12);
    CU_ASSERT(strstr(err.msg, "check failed") != NULL);
    CU_ASSERT(strstr(err.msg, "at (batch 0, head ") != NULL); /* says where */
    CU_ASSERT(res.worst[RS_TENSOR_O][2] >= 0 && res.worst[RS_TENSOR_O][2] < 32);
    CU_ASSERT(res.worst[RS_TENSOR_O][3] >= 0 && res.worst[RS_TENSOR_O][3] < 16);
}

/* Inputs scaled by 100: logits reach ~1e4 (|q.k| / sqrt(d) up to 100^2 * sqrt(16)). No inf, no NaN.
 * The softmax is one-hot there, so O = V exactly and dQ, dK vanish up to cancellation
 * (dS = P (dO.V - dO.O) with O = V): their relative error is meaningless and is bounded in
 * absolute terms against the size of one term, scale * |dO.V| * |K| ~ 0.25 * 16 * 100 * 100. */
static void test_extreme_logits(void) {
    for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
        rs_problem_t p = small(32, 4, RS_LAYOUT_ZIGZAG, true, (rs_pass_t)pass, 2);
        rs_exec_opts_t o = opts_check();
        o.input_scale = 100.0;
        o.check_tol = 1e300; /* judged below */
        rs_exec_result_t res;
        rs_err_t err = {{0}};
        int rc = run(&p, &o, NULL, &res, &err);
        if (rc || !res.check_ok) fprintf(stderr, "  extreme %s: %s\n", rs_pass_name(p.pass), err.msg);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(res.finite);
        CU_ASSERT(res.err[RS_TENSOR_O] >= 0 && res.err[RS_TENSOR_O] <= 1e-5);
        CU_ASSERT(res.err[RS_TENSOR_LSE] >= 0 && res.err[RS_TENSOR_LSE] <= 1e-6);
        CU_ASSERT(res.ref_max[RS_TENSOR_LSE] > 1e3); /* the logits really are extreme */
        if (pass == RS_PASS_BACKWARD) {
            const double term = 0.25 * 16 * 100 * 100;
            CU_ASSERT(res.err[RS_TENSOR_DV] >= 0 && res.err[RS_TENSOR_DV] <= 1e-5);
            CU_ASSERT(res.err[RS_TENSOR_DQ] * res.ref_max[RS_TENSOR_DQ] <= 1e-6 * term);
            CU_ASSERT(res.err[RS_TENSOR_DK] * res.ref_max[RS_TENSOR_DK] <= 1e-6 * term);
        }
        fprintf(stderr, "  extreme logits %s: max lse %.3g; rel err O %.3g dV %.3g; abs err dQ %.3g dK %.3g\n",
                rs_pass_name(p.pass), res.ref_max[RS_TENSOR_LSE], res.err[RS_TENSOR_O], res.err[RS_TENSOR_DV],
                res.err[RS_TENSOR_DQ] * res.ref_max[RS_TENSOR_DQ], res.err[RS_TENSOR_DK] * res.ref_max[RS_TENSOR_DK]);
    }
}

/* --save-io: eight .npy files with the right header, and Q's data equals the seeded input. */
static void test_save_io(void) {
    char dir[] = "/tmp/rs_test_exec_XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    rs_problem_t p = small(24, 3, RS_LAYOUT_STRIPED, true, RS_PASS_BACKWARD, 1);
    rs_exec_opts_t o = opts_check();
    o.save_io_dir = dir;
    rs_exec_result_t res;
    rs_err_t err = {{0}};
    CU_ASSERT_EQUAL(run(&p, &o, NULL, &res, &err), 0);
    const char *names[] = {"Q", "K", "V", "O", "dO", "dQ", "dK", "dV"};
    const int64_t heads[] = {2, 1, 1, 2, 2, 2, 1, 1};
    for (int i = 0; i < 8; i++) {
        char path[256], descr[16];
        snprintf(path, sizeof path, "%s/%s.npy", dir, names[i]);
        int ndim = 0;
        int64_t shape[8];
        CU_ASSERT_EQUAL(rs_npy_read_header(path, descr, sizeof descr, &ndim, shape, 8, &err), 0);
        CU_ASSERT_STRING_EQUAL(descr, "<f4");
        CU_ASSERT_EQUAL(ndim, 4);
        CU_ASSERT(shape[0] == 1 && shape[1] == heads[i] && shape[2] == 24 && shape[3] == 16);
        struct stat stt;
        CU_ASSERT_EQUAL(stat(path, &stt), 0);
        CU_ASSERT_EQUAL(stt.st_size % 64, (1 * heads[i] * 24 * 16 * 4) % 64); /* header padded to 64 */
        if (i == 0) { /* Q[0, 1, 5, 3] */
            FILE *fp = fopen(path, "rb");
            float x = 0;
            CU_ASSERT_EQUAL(fseek(fp, (long)(stt.st_size - 1 * 2 * 24 * 16 * 4 + ((1 * 24 + 5) * 16 + 3) * 4), SEEK_SET), 0);
            CU_ASSERT_EQUAL(fread(&x, 4, 1, fp), 1);
            fclose(fp);
            CU_ASSERT_EQUAL(x, rs_exec_input(o.seed, RS_TENSOR_Q, &p, 0, 1, 5, 3, 1.0));
        }
        unlink(path);
    }
    rmdir(dir);
}

/* Rank 2 stops answering at step 1: the others give up after the timeout, naming rank and step. */
static void test_dead_rank_timeout(void) {
    rs_problem_t p = small(32, 4, RS_LAYOUT_ZIGZAG, false, RS_PASS_FORWARD, 2);
    rs_exec_opts_t o = opts_check();
    o.check = false;
    o.timeout_s = 0.5, o.fault_rank = 2, o.fault_step = 1;
    rs_exec_result_t res;
    rs_err_t err = {{0}};
    double t0 = rs_now_s();
    int rc = run(&p, &o, NULL, &res, &err);
    double dt = rs_now_s() - t0;
    fprintf(stderr, "  dead rank: %s (%.2f s)\n", err.msg, dt);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT(strstr(err.msg, "timeout") != NULL);
    CU_ASSERT(strstr(err.msg, "step 1") != NULL);
    CU_ASSERT(strstr(err.msg, "rank 2") != NULL); /* the peer that stopped */
    CU_ASSERT(dt < 5.0);
}

/* The trace: one compute/send/recv/step event per schedule entry, FLOPs and bytes from the schedule,
 * events ordered inside each step, header with the problem and the backends. */
static void test_trace_schema(void) {
    for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
        rs_problem_t p = small(32, 4, RS_LAYOUT_ZIGZAG, true, (rs_pass_t)pass, 2);
        rs_exec_opts_t o = opts_check();
        o.check = false, o.reps = 3, o.warmup = 1;
        rs_trace_t *t = rs_trace_create("exec-cpu");
        rs_exec_result_t res;
        rs_err_t err = {{0}};
        CU_ASSERT_EQUAL_FATAL(run(&p, &o, t, &res, &err), 0);
        rs_schedule_t *s = rs_schedule_create(&p, &err);
        rs_trace_sort(t);
        size_t expect = 0;
        for (int64_t r = 0; r < p.n_ranks; r++)
            for (int64_t k = 0; k < rs_schedule_n_steps(s); k++) {
                rs_step_t st;
                rs_schedule_step(s, r, k, &st);
                expect += 1 + (st.has_compute ? 1 : 0) + (st.n_send ? 1 : 0) + (st.n_recv ? 1 : 0);
                long ic = rs_trace_find(t, (int32_t)r, (int32_t)k, p.pass, RS_EV_COMPUTE);
                long is = rs_trace_find(t, (int32_t)r, (int32_t)k, p.pass, RS_EV_STEP);
                long ir = rs_trace_find(t, (int32_t)r, (int32_t)k, p.pass, RS_EV_RECV);
                CU_ASSERT(is >= 0);
                CU_ASSERT_EQUAL(ic >= 0, st.has_compute);
                CU_ASSERT_EQUAL(ir >= 0, st.n_recv > 0);
                const rs_event_t *ev = rs_trace_events(t);
                if (ic >= 0) {
                    CU_ASSERT_EQUAL(ev[ic].flops, (double)st.flops_exec);
                    CU_ASSERT(ev[ic].end_s >= ev[ic].start_s);
                }
                if (ir >= 0) {
                    CU_ASSERT_EQUAL(ev[ir].bytes, (double)st.recv_bytes);
                    CU_ASSERT_EQUAL(ev[ir].peer, st.recv_peer);
                }
                if (is >= 0 && k > 0) { /* steps of one rank follow each other */
                    long ip = rs_trace_find(t, (int32_t)r, (int32_t)(k - 1), p.pass, RS_EV_STEP);
                    CU_ASSERT(ev[is].start_s >= ev[ip].start_s);
                }
            }
        CU_ASSERT_EQUAL(rs_trace_count(t), expect);
        CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "layout"), "zigzag");
        CU_ASSERT_PTR_NOT_NULL(rs_trace_get_meta(t, "compute"));
        CU_ASSERT_PTR_NOT_NULL(strstr(rs_trace_get_meta(t, "compute"), "core"));
        CU_ASSERT(res.makespan_s > 0);
        rs_schedule_free(s);
        rs_trace_free(t);
    }
}

/* The reference itself against a hand-computable case: S = 2, d = 1, causal. */
static void test_reference_hand(void) {
    rs_problem_t p = small(2, 1, RS_LAYOUT_CONTIGUOUS, true, RS_PASS_FORWARD, 1);
    p.q_heads = 1, p.head_dim = 1;
    double q[2] = {1, 2}, k[2] = {1, 3}, v[2] = {10, 20}, o[2], lse[2];
    rs_err_t err;
    CU_ASSERT_EQUAL(rs_exec_reference(&p, q, k, v, NULL, o, lse, NULL, NULL, NULL, &err), 0);
    RS_ASSERT_REL(o[0], 10.0, 1e-15);
    /* row 1: logits 2*1, 2*3 -> weights e^2, e^6 */
    double w0 = exp(2.0), w1 = exp(6.0);
    RS_ASSERT_REL(o[1], (10 * w0 + 20 * w1) / (w0 + w1), 1e-14);
    RS_ASSERT_REL(lse[1], log(w0 + w1), 1e-14);
}

/* Calibration's overlap fit on synthetic points made by the model itself: a host cost o + O m on
 * top of the compute alone, and completions from the eta step with a different eta per size (the
 * last point's transfer outlasts its compute: the E >= t_c branch). The fit must give back o, O and
 * every eta, and the profile built from it must reproduce each point's compute and completion. */
static void test_calib_fit_overlap(void) {
    rs_calib_t c;
    memset(&c, 0, sizeof c);
    const double L = 5e-6, W = 20e9, o = 4e-6, ob = 1e-10;
    const double ta[5] = {1e-5, 4e-5, 1.6e-4, 6.4e-4, 1e-4}, eta[5] = {0.3, 0.25, 0.2, 0.15, 0.05};
    c.latency_s = L, c.bw_bytes_per_s = W;
    for (int i = 0; i < 5; i++) {
        const uint64_t m = 65536ull << i;
        const double x = (double)m / W, tc = ta[i] + o + ob * (double)m;
        double end;
        if (x <= eta[i] * (tc - L)) end = L + x / eta[i];
        else end = tc + (x - eta[i] * (tc - L));
        c.ov[c.n_ov++] = (rs_calib_overlap_t){16 << i, m, ta[i], tc, L + x, end, 0, 1};
    }
    CU_ASSERT(c.ov[4].t_end_s > c.ov[4].t_comp_busy_s); /* the branch after compute is exercised */
    /* a sixth point whose compute (with its host cost) ends before the latency: its eta is
     * undetermined (any eta predicts L + x) and it stays out of the curve */
    const double x6 = 1000 / W;
    c.ov[c.n_ov++] = (rs_calib_overlap_t){4, 1000, 1e-7, 1e-7 + o + ob * 1000, L + x6, L + x6, 0, 1};
    CU_ASSERT(c.ov[5].t_comp_busy_s < L);
    rs_calib_fit_overlap(&c);
    CU_ASSERT(isnan(c.ov[5].eta));
    RS_ASSERT_REL(c.model.host_s_per_xfer, o, 1e-9);
    RS_ASSERT_REL(c.model.host_s_per_byte, ob, 1e-9);
    CU_ASSERT(c.host_fit_err < 1e-12);
    for (int i = 0; i < 5; i++) RS_ASSERT_REL(c.ov[i].eta, eta[i], 1e-9);
    /* the profile: curve by bytes, host cost, no slowdown; the model reproduces every point */
    rs_hw_t hw;
    rs_calib_to_hw(&c, "fit-test", "synthetic", 2, RS_DTYPE_FP32, &hw);
    CU_ASSERT_EQUAL_FATAL(hw.cal.n_overlap, 5);
    CU_ASSERT_EQUAL(hw.cal.comp_slowdown, 1.0);
    rs_machine_t m;
    memset(&m, 0, sizeof m);
    m.flops_per_s = 1e12;
    m.cal = hw.cal;
    for (int i = 0; i < 5; i++) {
        const double x = (double)c.ov[i].bytes / W;
        const double tc = c.ov[i].t_comp_s + rs_machine_host_s(&m, 1, (double)c.ov[i].bytes);
        RS_ASSERT_REL(tc, c.ov[i].t_comp_busy_s, 1e-9);
        RS_ASSERT_REL(rs_machine_overlap(&m, (double)c.ov[i].bytes), eta[i], 1e-9);
        /* one step: the step ends at max(compute, completion) */
        RS_ASSERT_REL(rs_sync_step_s(tc, L, &x, 1, rs_machine_overlap(&m, (double)c.ov[i].bytes), 1),
                      fmax(tc, c.ov[i].t_end_s), 1e-9);
    }
}

/* Ranks of unequal speed: rank 1 is 10% slower at every block but one, rank 2 5% slower; the
 * factors are the medians of the ratios to the fastest rank at each block. */
static void test_calib_rank_factors(void) {
    /* blocks x ranks: times */
    const double t[4 * 3] = {1.0, 1.1, 1.05,   /* B0 */
                             2.0, 2.2, 2.1,    /* B1 */
                             4.0, 4.4, 4.2,    /* B2 */
                             8.8, 8.0, 8.4};   /* B3: rank 1 fastest here */
    double fastest[4], f[3];
    rs_calib_rank_factors(t, 4, 3, fastest, f);
    RS_ASSERT_REL(fastest[0], 1.0, 0);
    RS_ASSERT_REL(fastest[3], 8.0, 0);
    RS_ASSERT_REL(f[0], 1.0, 1e-15);  /* ratios 1, 1, 1, 1.1 -> median 1 */
    RS_ASSERT_REL(f[1], 1.1, 1e-12);  /* 1.1, 1.1, 1.1, 1 -> 1.1 */
    RS_ASSERT_REL(f[2], 1.05, 1e-12); /* 1.05, 1.05, 1.05, 1.05 */
}

int main(void) {
    static const rs_test_case_t numerics[] = {{"reference_hand", test_reference_hand},
                                              {"all_layouts_causal_pass_gqa", test_numerics_all},
                                              {"sizes_n1_n2_n3", test_numerics_sizes},
                                              {"check_can_fail", test_check_can_fail},
                                              {"extreme_logits", test_extreme_logits},
                                              {NULL, NULL}};
    static const rs_test_case_t runs[] = {{"save_io_npy", test_save_io},
                                          {"dead_rank_timeout", test_dead_rank_timeout},
                                          {"trace_schema", test_trace_schema},
                                          {"calib_fit_overlap", test_calib_fit_overlap},
                                          {"calib_rank_factors", test_calib_rank_factors},
                                          {NULL, NULL}};
    const rs_test_suite_t suites[] = {{"exec_numerics", numerics}, {"exec_runs", runs}};
    return rs_test_main(suites, 2);
}
