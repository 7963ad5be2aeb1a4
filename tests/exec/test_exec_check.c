/* test_exec_check.c - the float64 check and --save-io (exec/exec_check.c): the reference against
 * hand-derived values (a cached prefix too) and its backward against finite differences of its
 * forward; a run's check against it, a too-tight tolerance caught with where, extreme logits; the
 * failed check's message; the --save-io files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"
#include "exec_check.h"
#include "exec_fixtures.h"
#include "exec_npy.h"
#include "test_main.h"

/* The reference itself against a hand-computable case: S = 2, d = 1, causal. */
RS_TEST(test_reference_hand, "reference_hand") {
    rs_problem_t p = rs_test_exec_problem(2, 1, RS_LAYOUT_CONTIGUOUS, true, RS_PASS_FORWARD, 1);
    p.q_heads = 1, p.head_dim = 1;
    double q[2] = {1, 2}, k[2] = {1, 3}, v[2] = {10, 20}, o[2], lse[2];
    rs_err_t err;
    CU_ASSERT_EQUAL(rs_exec_reference(&p, &(rs_exec_ref_t){q, k, v, NULL, o, lse, NULL, NULL, NULL}, &err), 0);
    RS_ASSERT_REL(o[0], 10.0, 1e-15);
    /* row 1: logits 2*1, 2*3 -> weights e^2, e^6 */
    double w0 = exp(2.0), w1 = exp(6.0);
    RS_ASSERT_REL(o[1], (10 * w0 + 20 * w1) / (w0 + w1), 1e-14);
    RS_ASSERT_REL(lse[1], log(w0 + w1), 1e-14);
}

/* A cached prefix (P = 1, S = 1, d = 1, causal): the new token sees the cached key and its own,
 * logits 0 and 2, so O = (10 + 20 e^2) / (1 + e^2) and lse = log(1 + e^2). */
RS_TEST(test_reference_cached_hand, "reference_cached_hand") {
    rs_problem_t p = rs_test_exec_problem(1, 1, RS_LAYOUT_CONTIGUOUS, true, RS_PASS_FORWARD, 1);
    p.q_heads = 1, p.head_dim = 1, p.cached_tokens = 1;
    double q[1] = {2}, k[2] = {0, 1}, v[2] = {10, 20}, o[1], lse[1];
    rs_err_t err;
    CU_ASSERT_EQUAL(rs_exec_reference(&p, &(rs_exec_ref_t){.q = q, .k = k, .v = v, .o = o, .lse = lse}, &err), 0);
    const double e2 = exp(2.0);
    RS_ASSERT_REL(o[0], (10 + 20 * e2) / (1 + e2), 1e-14);
    RS_ASSERT_REL(lse[0], log(1 + e2), 1e-14);
}

/* sum(O * dO) of the reference's forward on t's q, k, v (into t's o and lse), over nq elements of O. */
static double loss(const rs_problem_t *p, const rs_exec_ref_t *t, size_t nq) {
    rs_err_t err;
    CU_ASSERT_EQUAL_FATAL(rs_exec_reference(p, &(rs_exec_ref_t){.q = t->q, .k = t->k, .v = t->v, .o = t->o, .lse = t->lse}, &err), 0);
    double l = 0;
    for (size_t i = 0; i < nq; i++) l += t->o[i] * t->d_o[i];
    return l;
}

/* The reference's backward is the gradient of sum(O * dO): against central differences of its own
 * forward (h = 1e-5: truncation ~1e-10), on fresh random inputs, causal and not, GQA 2/1. */
RS_TEST(test_reference_backward_gradient, "reference_backward_is_the_gradient") {
    const uint64_t seed = rs_test_fresh_seed();
    fprintf(stderr, "  reference gradient: seed %llu (RINGSIM_TEST_SEED repeats it)\n", (unsigned long long)seed);
    for (int causal = 0; causal < 2; causal++) {
        rs_problem_t p = rs_test_exec_problem(5, 1, RS_LAYOUT_CONTIGUOUS, causal, RS_PASS_BACKWARD, 1);
        p.head_dim = 3;
        enum { NQ = 2 * 5 * 3, NK = 5 * 3, NR = 2 * 5 };
        double q[NQ], k[NK], v[NK], d_o[NQ], o[NQ], lse[NR], dq[NQ], dk[NK], dv[NK];
        for (int i = 0; i < NQ; i++) q[i] = 2 * rs_hash_unit(seed, 1, i) - 1, d_o[i] = 2 * rs_hash_unit(seed, 4, i) - 1;
        for (int i = 0; i < NK; i++) k[i] = 2 * rs_hash_unit(seed, 2, i) - 1, v[i] = 2 * rs_hash_unit(seed, 3, i) - 1;
        rs_err_t err;
        CU_ASSERT_EQUAL_FATAL(rs_exec_reference(&p, &(rs_exec_ref_t){q, k, v, d_o, o, lse, dq, dk, dv}, &err), 0);
        double *const x[3] = {q, k, v};
        const double *const g[3] = {dq, dk, dv};
        const int n[3] = {NQ, NK, NK};
        double worst = 0;
        for (int t = 0; t < 3; t++)
            for (int i = 0; i < n[t]; i++) {
                const double h = 1e-5, x0 = x[t][i];
                double o2[NQ], l2[NR];
                const rs_exec_ref_t fwd = {.q = q, .k = k, .v = v, .d_o = d_o, .o = o2, .lse = l2};
                x[t][i] = x0 + h;
                const double up = loss(&p, &fwd, NQ);
                x[t][i] = x0 - h;
                const double down = loss(&p, &fwd, NQ);
                x[t][i] = x0;
                worst = fmax(worst, fabs((up - down) / (2 * h) - g[t][i]));
            }
        if (!(worst < 1e-8)) fprintf(stderr, "  causal=%d: worst |numeric - analytic| %.3g\n", causal, worst);
        CU_ASSERT(worst < 1e-8);
    }
}

/* A wrong answer must be caught: a reference on other inputs (tolerance 0) fails the check. */
RS_TEST(test_check_can_fail, "check_can_fail") {
    rs_problem_t p = rs_test_exec_problem(32, 4, RS_LAYOUT_STRIPED, true, RS_PASS_FORWARD, 2);
    rs_exec_opts_t o = rs_test_exec_opts_check();
    o.check_tol = 1e-12; /* fp32 cannot reach this: the check must say so */
    rs_exec_result_t res;
    rs_err_t err = {0};
    int rc = rs_test_exec_run(&p, &o, NULL, &res, &err);
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
RS_TEST(test_extreme_logits, "extreme_logits") {
    for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
        rs_problem_t p = rs_test_exec_problem(32, 4, RS_LAYOUT_ZIGZAG, true, (rs_pass_t)pass, 2);
        rs_exec_opts_t o = rs_test_exec_opts_check();
        o.input_scale = 100.0;
        o.check_tol = 1e300; /* judged below */
        rs_exec_result_t res;
        rs_err_t err = {0};
        int rc = rs_test_exec_run(&p, &o, NULL, &res, &err);
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

/* The failed check's message: each checked tensor with its error, where the ones beyond the
 * tolerance are worst, the tolerance, and whether outputs hold inf or NaN. */
RS_TEST(test_check_message, "check_message") {
    rs_exec_opts_t o;
    rs_exec_opts_default(&o);
    o.check_tol = 1e-3;
    const rs_exec_output_t outs[3] = {{RS_TENSOR_O, 2, 16, NULL}, {RS_TENSOR_LSE, 2, 1, NULL}, {RS_TENSOR_DQ, 2, 16, NULL}};
    rs_exec_result_t res;
    memset(&res, 0, sizeof res);
    for (int i = 0; i < RS_TENSOR_COUNT; i++) res.err[i] = -1;
    res.err[RS_TENSOR_O] = 0.002, res.err[RS_TENSOR_LSE] = 1e-7, res.finite = true;
    res.worst[RS_TENSOR_O][0] = 0, res.worst[RS_TENSOR_O][1] = 1, res.worst[RS_TENSOR_O][2] = 5, res.worst[RS_TENSOR_O][3] = 3;
    rs_err_t err = {0};
    rs_exec_check_message(&o, outs, 3, &res, &err);
    CU_ASSERT_STRING_EQUAL(err.msg, "check failed: max|x - ref| / max|ref| = O 0.002 at (batch 0, head 1, token 5, dim 3), "
                                    "lse 1e-07 (tolerance 0.001)");
    res.finite = false;
    res.err[RS_TENSOR_O] = res.err[RS_TENSOR_LSE] = -1; /* nothing compared */
    rs_exec_check_message(&o, outs, 3, &res, &err);
    CU_ASSERT_STRING_EQUAL(err.msg, "check failed: max|x - ref| / max|ref| = ? (tolerance 0.001); outputs hold inf or NaN");
}

/* --save-io: eight .npy files with the right header, and Q's data equals the seeded input. */
RS_TEST(test_save_io, "save_io_npy") {
    char dir[] = "/tmp/rs_test_exec_XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    rs_problem_t p = rs_test_exec_problem(24, 3, RS_LAYOUT_STRIPED, true, RS_PASS_BACKWARD, 1);
    rs_exec_opts_t o = rs_test_exec_opts_check();
    o.save_io_dir = dir;
    rs_exec_result_t res;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_test_exec_run(&p, &o, NULL, &res, &err), 0);
    const char *names[] = {"Q", "K", "V", "O", "dO", "dQ", "dK", "dV"};
    const int64_t heads[] = {2, 1, 1, 2, 2, 2, 1, 1};
    for (int i = 0; i < 8; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s.npy", dir, names[i]);
        rs_npy_header_t h;
        CU_ASSERT_EQUAL(rs_npy_read_header(path, &h, &err), 0);
        CU_ASSERT_STRING_EQUAL(h.descr, "<f4");
        CU_ASSERT_EQUAL(h.ndim, 4);
        CU_ASSERT(h.shape[0] == 1 && h.shape[1] == heads[i] && h.shape[2] == 24 && h.shape[3] == 16);
        struct stat stt;
        CU_ASSERT_EQUAL(stat(path, &stt), 0);
        CU_ASSERT_EQUAL(stt.st_size % 64, (1 * heads[i] * 24 * 16 * 4) % 64); /* header padded to 64 */
        if (i == 0) { /* Q[0, 1, 5, 3] */
            FILE *fp = fopen(path, "rb");
            float x = 0;
            CU_ASSERT_EQUAL(fseek(fp, (long)(stt.st_size - 1 * 2 * 24 * 16 * 4 + ((1 * 24 + 5) * 16 + 3) * 4), SEEK_SET), 0);
            CU_ASSERT_EQUAL(fread(&x, 4, 1, fp), 1);
            fclose(fp);
            CU_ASSERT_EQUAL(x, rs_exec_input(&(rs_exec_input_t){o.seed, RS_TENSOR_Q, &p, 1.0}, 0, 1, 5, 3));
        }
        unlink(path);
    }
    rmdir(dir);
}

RS_TEST_PROGRAM("exec_check")
