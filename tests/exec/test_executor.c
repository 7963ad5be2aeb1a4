/* test_exec.c - the executor on the CPU backend, N ranks as threads (no mpirun needed):
 * numerics against the float64 reference for every layout x causal x pass x GQA, N = 1, extreme
 * logits, .npy files, a rank that stops answering, and the trace against the schedule; the kernel's
 * variants (plain reference and fast paths) on one block of every mask kind against float64. */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "calibrate.h"
#include "calibrate_kernels.h"
#include "profile.h"
#include "polls.h"
#include "ranges.h"
#include "exec.h"
#include "exec_check.h"
#include "exec_fixtures.h"
#include "exec_npy.h"
#include "cost.h"
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


/* Set (value non-NULL) or unset an environment variable. */
static void env_set(const char *name, const char *value) {
    if (value) setenv(name, value, 1);
    else unsetenv(name);
}

/* Every layout x causal x pass x (MHA, GQA) at N = 4: O, dQ, dK, dV within 1e-5 of float64; with the
 * default kernel, the plain reference, and the default kernel in 4-column chunks and 8-row panels
 * (several chunks and panels per 12-row block). */
static void test_numerics_all(void) {
    const char *cfg[][3] = {{NULL, NULL, NULL}, {"plain", NULL, NULL}, {NULL, "4", "8"}}; /* KERNEL, KC, PANEL_ROWS */
    for (int ci = 0; ci < 3; ci++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int causal = 0; causal < 2; causal++)
                for (int pass = 0; pass < RS_PASS_COUNT; pass++)
                    for (int kvh = 1; kvh <= 2; kvh++) {
                        rs_problem_t p = small(48, 4, (rs_layout_t)l, causal, (rs_pass_t)pass, kvh);
                        rs_exec_opts_t o = rs_test_exec_opts_check();
                        rs_exec_result_t res;
                        rs_err_t err = {0};
                        env_set("RINGSIM_CPU_KERNEL", cfg[ci][0]), env_set("RINGSIM_CPU_KC", cfg[ci][1]);
                        env_set("RINGSIM_CPU_PANEL_ROWS", cfg[ci][2]);
                        int rc = rs_test_exec_run(&p, &o, NULL, &res, &err);
                        env_set("RINGSIM_CPU_KERNEL", NULL), env_set("RINGSIM_CPU_KC", NULL);
                        env_set("RINGSIM_CPU_PANEL_ROWS", NULL);
                        if (rc != 0 || !res.check_ok)
                            fprintf(stderr, "  config %d: %s causal=%d %s kv_heads=%d: rc %d: %s\n", ci,
                                    rs_layout_name(p.layout), causal, rs_pass_name(p.pass), kvh, rc, err.msg);
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
            rs_exec_opts_t o = rs_test_exec_opts_check();
            rs_exec_result_t res;
            rs_err_t err = {0};
            int rc = rs_test_exec_run(&p, &o, NULL, &res, &err);
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
static void test_extreme_logits(void) {
    for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
        rs_problem_t p = small(32, 4, RS_LAYOUT_ZIGZAG, true, (rs_pass_t)pass, 2);
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

/* --save-io: eight .npy files with the right header, and Q's data equals the seeded input. */
static void test_save_io(void) {
    char dir[] = "/tmp/rs_test_exec_XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    rs_problem_t p = small(24, 3, RS_LAYOUT_STRIPED, true, RS_PASS_BACKWARD, 1);
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

/* Rank 2 stops answering at step 1: the others give up after the timeout, naming rank and step. */
static void test_dead_rank_timeout(void) {
    rs_problem_t p = small(32, 4, RS_LAYOUT_ZIGZAG, false, RS_PASS_FORWARD, 2);
    rs_exec_opts_t o = rs_test_exec_opts_check();
    o.check = false;
    o.timeout_s = 0.5, o.fault_rank = 2, o.fault_step = 1;
    rs_exec_result_t res;
    rs_err_t err = {0};
    double t0 = rs_now_s();
    int rc = rs_test_exec_run(&p, &o, NULL, &res, &err);
    double dt = rs_now_s() - t0;
    fprintf(stderr, "  dead rank: %s (%.2f s)\n", err.msg, dt);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_TIMEOUT); /* the transport's kind, through the step's and the run's context */
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
        rs_exec_opts_t o = rs_test_exec_opts_check();
        o.check = false, o.reps = 3, o.warmup = 1;
        rs_trace_t *t = rs_trace_create("exec-cpu");
        rs_exec_result_t res;
        rs_err_t err = {0};
        CU_ASSERT_EQUAL_FATAL(rs_test_exec_run(&p, &o, t, &res, &err), 0);
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
    CU_ASSERT_EQUAL(rs_exec_reference(&p, &(rs_exec_ref_t){q, k, v, NULL, o, lse, NULL, NULL, NULL}, &err), 0);
    RS_ASSERT_REL(o[0], 10.0, 1e-15);
    /* row 1: logits 2*1, 2*3 -> weights e^2, e^6 */
    double w0 = exp(2.0), w1 = exp(6.0);
    RS_ASSERT_REL(o[1], (10 * w0 + 20 * w1) / (w0 + w1), 1e-14);
    RS_ASSERT_REL(lse[1], log(w0 + w1), 1e-14);
}

/* ---------------------------------------------------------------------------------------------------
 * The kernel's variants (RINGSIM_CPU_KERNEL: plain = the reference, avx2, avx512f, auto) on one block
 * of every mask kind, forward and backward, against float64 on fresh random inputs.
 * ------------------------------------------------------------------------------------------------- */
/* Fresh inputs each run: RINGSIM_TEST_SEED repeats a run (the seed is printed). */
static uint64_t fresh_seed(void) {
    const char *e = getenv("RINGSIM_TEST_SEED");
    if (e && *e) return strtoull(e, NULL, 0);
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return ((uint64_t)t.tv_sec * 1000000007ull) ^ (uint64_t)t.tv_nsec ^ ((uint64_t)getpid() << 32);
}

typedef struct {
    int64_t B, d, Hq, Hkv;                  /* one block: B x B, heads (GQA when Hq > Hkv) */
    float *q, *k, *v, *d_o;                 /* inputs, BHSD */
    double *o, *lse, *dq, *dk, *dv;         /* float64 reference */
} kblock_t;

static bool visible(rs_mask_t mask, int64_t diag, int64_t i, int64_t j) {
    return mask == RS_MASK_FULL || (mask == RS_MASK_DIAG && i - j >= diag);
}

/* float64 attention of one block under (mask, diag): O, lse (-inf for a row that sees nothing), and
 * the gradients of sum(O * dO) through the softmax (dK, dV summed over the q heads of a kv head). */
static void kblock_reference(kblock_t *t, rs_mask_t mask, int64_t diag) {
    const int64_t B = t->B, d = t->d, g = t->Hq / t->Hkv;
    const double scale = 1.0 / sqrt((double)d);
    double *p = calloc((size_t)B, sizeof(double)), *dp = calloc((size_t)B, sizeof(double));
    memset(t->dk, 0, (size_t)(t->Hkv * B * d) * sizeof(double));
    memset(t->dv, 0, (size_t)(t->Hkv * B * d) * sizeof(double));
    for (int64_t h = 0; h < t->Hq; h++) {
        const float *Q = t->q + h * B * d, *K = t->k + h / g * B * d, *V = t->v + h / g * B * d;
        const float *G = t->d_o + h * B * d;
        double *dK = t->dk + h / g * B * d, *dV = t->dv + h / g * B * d;
        for (int64_t i = 0; i < B; i++) {
            double m = -INFINITY, l = 0, D = 0;
            for (int64_t j = 0; j < B; j++) {
                p[j] = -INFINITY;
                if (!visible(mask, diag, i, j)) continue;
                double s = 0;
                for (int64_t x = 0; x < d; x++) s += (double)Q[i * d + x] * K[j * d + x];
                p[j] = s * scale, m = fmax(m, p[j]);
            }
            for (int64_t j = 0; j < B; j++) l += p[j] == -INFINITY ? 0 : exp(p[j] - m);
            double *O = t->o + (h * B + i) * d, *dQ = t->dq + (h * B + i) * d;
            t->lse[h * B + i] = l > 0 ? m + log(l) : -INFINITY;
            for (int64_t j = 0; j < B; j++) p[j] = p[j] == -INFINITY ? 0 : exp(p[j] - m) / l;
            for (int64_t x = 0; x < d; x++) {
                O[x] = 0, dQ[x] = 0;
                for (int64_t j = 0; j < B; j++) O[x] += p[j] * V[j * d + x];
                D += O[x] * G[i * d + x];
            }
            for (int64_t j = 0; j < B; j++) {
                dp[j] = 0;
                for (int64_t x = 0; x < d; x++) dp[j] += (double)G[i * d + x] * V[j * d + x];
                const double ds = p[j] * (dp[j] - D);
                for (int64_t x = 0; x < d; x++) {
                    dV[j * d + x] += p[j] * G[i * d + x];
                    dQ[x] += scale * ds * K[j * d + x];
                    dK[j * d + x] += scale * ds * Q[i * d + x];
                }
            }
        }
    }
    free(p), free(dp);
}

/* max |x - ref| / max |ref| over n values; -inf must match -inf exactly; a zero reference must be
 * matched exactly (returns max |x|). */
static double rel_err(const float *x, const double *ref, size_t n) {
    double dmax = 0, rmax = 0;
    for (size_t i = 0; i < n; i++) {
        if (isinf(ref[i]) || isinf(x[i])) {
            if (!(isinf(ref[i]) && isinf(x[i]) && ref[i] == x[i])) return INFINITY;
            continue;
        }
        if (isnan(x[i])) return INFINITY;
        dmax = fmax(dmax, fabs(x[i] - ref[i])), rmax = fmax(rmax, fabs(ref[i]));
    }
    return rmax > 0 ? dmax / rmax : dmax;
}

/* Run the backend on one block (forward, then backward) with variant/kc/panel in the environment;
 * errors (O, lse, dQ, dK, dV) against the reference into e[5]. Returns 0, or -1 with err when the
 * backend refuses the variant (create). desc receives its describe() line. */
static int kblock_run(kblock_t *t, rs_mask_t mask, int64_t diag, const char *variant, const char *kc,
                      const char *panel, double e[5], char *desc, size_t desc_len, rs_err_t *err) {
    rs_problem_t p = small(t->B, 1, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_BACKWARD, t->Hkv);
    p.q_heads = t->Hq, p.head_dim = t->d, p.tile_q = 6, p.tile_k = 4;
    rs_exec_rank_t ri = {.problem = p, .rank = 0, .block_tokens = t->B, .softmax_scale = 1.0 / sqrt((double)t->d)};
    ri.n_segs = 1, ri.segs[0] = (rs_segment_t){0, 1, t->B};
    rs_step_t st;
    memset(&st, 0, sizeof st);
    st.pass = RS_PASS_BACKWARD, st.has_compute = true, st.kv_owner = 0, st.send_peer = st.recv_peer = -1;
    st.n_q_segs = st.n_kv_segs = 1, st.q_segs[0] = st.kv_segs[0] = ri.segs[0];
    st.n_blocks = 1, st.blocks[0] = (rs_block_t){.q_seg = 0, .kv_seg = 0, .mask = mask, .diag = diag};
    env_set("RINGSIM_CPU_KERNEL", variant), env_set("RINGSIM_CPU_KC", kc), env_set("RINGSIM_CPU_PANEL_ROWS", panel);
    const rs_compute_ops_t *o = &rs_cpu_compute_ops;
    void *cs = NULL, *kv = NULL, *dkv = NULL;
    int rc = o->create(&ri, &cs, err);
    env_set("RINGSIM_CPU_KERNEL", NULL), env_set("RINGSIM_CPU_KC", NULL), env_set("RINGSIM_CPU_PANEL_ROWS", NULL);
    if (rc < 0) return -1;
    snprintf(desc, desc_len, "%s", o->describe(cs));
    const size_t nq = (size_t)(t->Hq * t->B * t->d), nk = (size_t)(t->Hkv * t->B * t->d), ns = (size_t)(t->Hq * t->B);
    float *out = malloc((nq + ns + nq + 2 * nk) * sizeof(float));
    float *O = out, *L = O + nq, *dQ = L + ns, *dK = dQ + nq, *dV = dK + nk;
    CU_ASSERT_FATAL(out != NULL);
    CU_ASSERT_EQUAL_FATAL(o->buf_alloc(cs, rs_problem_kv_bytes(&p), &kv, err), 0);
    CU_ASSERT_EQUAL_FATAL(o->buf_alloc(cs, rs_problem_dkv_bytes(&p), &dkv, err), 0);
    rc = o->upload(cs, RS_TENSOR_Q, t->q, NULL, err) | o->upload(cs, RS_TENSOR_K, t->k, kv, err) |
         o->upload(cs, RS_TENSOR_V, t->v, kv, err) | o->upload(cs, RS_TENSOR_DO, t->d_o, NULL, err) |
         o->fwd_begin(cs, err) | o->fwd_step(cs, &st, kv, err) | o->fwd_end(cs, err) |
         o->download(cs, RS_TENSOR_O, O, NULL, err) | o->download(cs, RS_TENSOR_LSE, L, NULL, err) |
         o->bwd_begin(cs, err) | o->grad_zero(cs, dkv, err) | o->bwd_step(cs, &st, kv, dkv, err) |
         o->bwd_end(cs, err) | o->download(cs, RS_TENSOR_DQ, dQ, NULL, err) |
         o->download(cs, RS_TENSOR_DK, dK, dkv, err) | o->download(cs, RS_TENSOR_DV, dV, dkv, err);
    CU_ASSERT_EQUAL(rc, 0);
    e[0] = rel_err(O, t->o, nq), e[1] = rel_err(L, t->lse, ns), e[2] = rel_err(dQ, t->dq, nq);
    e[3] = rel_err(dK, t->dk, nk), e[4] = rel_err(dV, t->dv, nk);
    o->buf_free(cs, kv), o->buf_free(cs, dkv), o->destroy(cs);
    free(out);
    return 0;
}

/* Does this CPU have the ISA a variant needs? */
static bool cpu_has(const char *variant) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (strcmp(variant, "avx2") == 0) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (strcmp(variant, "avx512f") == 0) return __builtin_cpu_supports("avx512f");
    return true;
#else
    return strcmp(variant, "avx2") != 0 && strcmp(variant, "avx512f") != 0;
#endif
}

/* Every variant x mask kind (FULL, SKIP, DIAG with diag 0, 1, -9, 5: rows that see nothing, B + 3:
 * nothing visible) x chunking (one chunk and panel; 12-column chunks and 12-row panels: several of
 * each, vector tails) on B = 37, d = 24, 2 q heads on 1 kv head, tile 6x4: O, lse, dQ, dK, dV within
 * 2e-6 of float64 (100 seeds: at most 7.1e-7). A variant the CPU lacks must be refused with a message
 * naming the variable. */
static void test_kernel_variants_masks(void) {
    const uint64_t seed = fresh_seed();
    fprintf(stderr, "  kernel variants: seed %llu (RINGSIM_TEST_SEED=%llu repeats this run)\n",
            (unsigned long long)seed, (unsigned long long)seed);
    kblock_t t = {.B = 37, .d = 24, .Hq = 2, .Hkv = 1};
    const size_t nq = (size_t)(t.Hq * t.B * t.d), nk = (size_t)(t.Hkv * t.B * t.d);
    t.q = malloc(nq * 4), t.d_o = malloc(nq * 4), t.k = malloc(nk * 4), t.v = malloc(nk * 4);
    t.o = malloc(nq * 8), t.dq = malloc(nq * 8), t.lse = malloc((size_t)(t.Hq * t.B) * 8);
    t.dk = malloc(nk * 8), t.dv = malloc(nk * 8);
    CU_ASSERT_FATAL(t.q && t.d_o && t.k && t.v && t.o && t.dq && t.lse && t.dk && t.dv);
    for (size_t i = 0; i < nq; i++) {
        t.q[i] = (float)(4 * rs_hash_unit(seed, 1, i) - 2), t.d_o[i] = (float)(2 * rs_hash_unit(seed, 4, i) - 1);
    }
    for (size_t i = 0; i < nk; i++) {
        t.k[i] = (float)(4 * rs_hash_unit(seed, 2, i) - 2), t.v[i] = (float)(2 * rs_hash_unit(seed, 3, i) - 1);
    }
    const struct {
        rs_mask_t mask;
        int64_t diag;
    } masks[] = {{RS_MASK_FULL, 0}, {RS_MASK_SKIP, 0},  {RS_MASK_DIAG, 0},         {RS_MASK_DIAG, 1},
                 {RS_MASK_DIAG, -9}, {RS_MASK_DIAG, 5}, {RS_MASK_DIAG, 37 + 3}};
    const char *variants[] = {"plain", "avx2", "avx512f", "auto"};
    const char *chunking[][2] = {{NULL, NULL}, {"12", "12"}};
    const char *tname[] = {"O", "lse", "dQ", "dK", "dV"};
    int ran = 0;
    for (size_t mi = 0; mi < sizeof masks / sizeof masks[0]; mi++) {
        kblock_reference(&t, masks[mi].mask, masks[mi].diag);
        for (int vi = 0; vi < 4; vi++)
            for (int ci = 0; ci < 2; ci++) {
                double e[5];
                char desc[512] = "";
                rs_err_t err = {0};
                int rc = kblock_run(&t, masks[mi].mask, masks[mi].diag, variants[vi], chunking[ci][0],
                                    chunking[ci][1], e, desc, sizeof desc, &err);
                if (!cpu_has(variants[vi])) { /* refused, with a message */
                    CU_ASSERT_EQUAL(rc, -1);
                    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "RINGSIM_CPU_KERNEL"));
                    if (mi == 0 && ci == 0)
                        fprintf(stderr, "  %s: skipped, this CPU lacks it (%s)\n", variants[vi], err.msg);
                    continue;
                }
                CU_ASSERT_EQUAL_FATAL(rc, 0);
                ran++;
                if (vi < 3) { /* the variant asked for is the one that ran */
                    char want[32];
                    snprintf(want, sizeof want, "(%s exp)", vi == 1 ? "avx2+fma" : variants[vi]);
                    CU_ASSERT_PTR_NOT_NULL(strstr(desc, want));
                }
                for (int x = 0; x < 5; x++) {
                    if (!(e[x] <= 2e-6))
                        fprintf(stderr, "  %s %s diag %lld chunking %d: %s error %.3g > 2e-6\n", variants[vi],
                                rs_mask_name(masks[mi].mask), (long long)masks[mi].diag, ci, tname[x], e[x]);
                    CU_ASSERT(e[x] <= 2e-6);
                }
                if (ci == 1 && (mi == 0 || mi == 5))
                    fprintf(stderr, "  %-7s %s diag %lld, small chunks: O %.2g lse %.2g dQ %.2g dK %.2g dV %.2g\n",
                            variants[vi], rs_mask_name(masks[mi].mask), (long long)masks[mi].diag, e[0], e[1], e[2],
                            e[3], e[4]);
            }
    }
    CU_ASSERT(ran >= 2 * 2 * 7); /* at least plain and auto, both chunkings, every mask */
    free(t.q), free(t.k), free(t.v), free(t.d_o), free(t.o), free(t.lse), free(t.dq), free(t.dk), free(t.dv);
}

/* The exp of every variant, element by element, through the kernel: d = 1, FULL block of B = 64.
 * Column 0 has logit 0, column 1 logit x_i (row i: x from -80 to -0.01), columns 2.. logits <= -100,
 * whose exp must be exactly 0 (their V is 1e38: any residue shows). V = (0, 1, 1e38, ...), dO = 1:
 *   O_i = e^x / (1 + e^x)                        (forward: the relative error of O_i is that of e^x)
 *   dQ_i = -scale P_i1 (1 - O_i), P_i1 = e^(x - lse)   (backward: the recomputed P)
 * Checked row by row against float64: O and dQ relative within 1e-6 (Cephes is ~2 ulp = 2.4e-7), lse
 * = log(1 + e^x) absolute within 2 ulp of 1. Then NaN inputs must give NaN outputs, never a silent 0:
 * a NaN query its row of O, a NaN key every row. */
static void test_kernel_exp_rows(void) {
    enum { B = 64 };
    float q[B], k[B], v[B], g[B], O[B], L[B], dQ[B], dK[B], dV[B];
    for (int i = 0; i < B; i++) {
        const double x = -0.01 - 79.99 * i / (B - 1); /* row i's logit of column 1 */
        q[i] = (float)-x, g[i] = 1.0f;
        k[i] = i == 0 ? 0.0f : (i == 1 ? -1.0f : -1e4f);
        v[i] = i == 0 ? 0.0f : (i == 1 ? 1.0f : 1e38f);
    }
    const char *variants[] = {"plain", "avx2", "avx512f"};
    for (int vi = 0; vi < 3; vi++) {
        if (!cpu_has(variants[vi])) continue; /* the refusal is tested in kernel_variants_masks */
        rs_problem_t p = small(B, 1, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_BACKWARD, 1);
        p.q_heads = 1, p.head_dim = 1, p.tile_q = 16, p.tile_k = 16;
        rs_exec_rank_t ri = {.problem = p, .rank = 0, .block_tokens = B, .softmax_scale = 1.0};
        ri.n_segs = 1, ri.segs[0] = (rs_segment_t){0, 1, B};
        rs_step_t st;
        memset(&st, 0, sizeof st);
        st.pass = RS_PASS_BACKWARD, st.has_compute = true, st.send_peer = st.recv_peer = -1;
        st.n_q_segs = st.n_kv_segs = 1, st.q_segs[0] = st.kv_segs[0] = ri.segs[0];
        st.n_blocks = 1, st.blocks[0] = (rs_block_t){.q_seg = 0, .kv_seg = 0, .mask = RS_MASK_FULL};
        const rs_compute_ops_t *o = &rs_cpu_compute_ops;
        void *cs = NULL, *kv = NULL, *dkv = NULL;
        rs_err_t err = {0};
        setenv("RINGSIM_CPU_KERNEL", variants[vi], 1);
        int rc = o->create(&ri, &cs, &err);
        unsetenv("RINGSIM_CPU_KERNEL");
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        rc = o->buf_alloc(cs, rs_problem_kv_bytes(&p), &kv, &err) |
             o->buf_alloc(cs, rs_problem_dkv_bytes(&p), &dkv, &err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        rc = o->upload(cs, RS_TENSOR_Q, q, NULL, &err) | o->upload(cs, RS_TENSOR_K, k, kv, &err) |
             o->upload(cs, RS_TENSOR_V, v, kv, &err) | o->upload(cs, RS_TENSOR_DO, g, NULL, &err) |
             o->fwd_begin(cs, &err) | o->fwd_step(cs, &st, kv, &err) | o->fwd_end(cs, &err) |
             o->download(cs, RS_TENSOR_O, O, NULL, &err) | o->download(cs, RS_TENSOR_LSE, L, NULL, &err) |
             o->bwd_begin(cs, &err) | o->grad_zero(cs, dkv, &err) | o->bwd_step(cs, &st, kv, dkv, &err) |
             o->download(cs, RS_TENSOR_DQ, dQ, NULL, &err) | o->download(cs, RS_TENSOR_DK, dK, dkv, &err) |
             o->download(cs, RS_TENSOR_DV, dV, dkv, &err);
        CU_ASSERT_EQUAL(rc, 0);
        double worst_o = 0, worst_dq = 0, worst_l = 0;
        for (int i = 0; i < B; i++) {
            const double x = (double)-q[i], ex = exp(x), o_ref = ex / (1 + ex), lse = log1p(ex);
            const double dq_ref = -exp(x - lse) * (1 - o_ref);
            worst_o = fmax(worst_o, fabs(O[i] - o_ref) / o_ref);
            worst_dq = fmax(worst_dq, fabs(dQ[i] - dq_ref) / fabs(dq_ref));
            worst_l = fmax(worst_l, fabs(L[i] - lse)); /* absolute: lse = log(1 + e^x) -> 0 */
        }
        fprintf(stderr, "  exp rows %-7s: max relative error O %.3g, dQ %.3g; absolute lse %.3g\n", variants[vi],
                worst_o, worst_dq, worst_l);
        CU_ASSERT(worst_o <= 1e-6);
        CU_ASSERT(worst_l <= 2.4e-7); /* 2 ulp of 1 */
        CU_ASSERT(worst_dq <= 1e-6);
        /* a NaN query gives a NaN row (never a silent 0: the executor's finiteness check must see it) */
        float qn[B];
        memcpy(qn, q, sizeof qn);
        qn[3] = NAN;
        rc = o->upload(cs, RS_TENSOR_Q, qn, NULL, &err) | o->fwd_begin(cs, &err) | o->fwd_step(cs, &st, kv, &err) |
             o->fwd_end(cs, &err) | o->download(cs, RS_TENSOR_O, O, NULL, &err);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(isnan(O[3]));
        CU_ASSERT(isfinite(O[2]) && isfinite(O[4]));
        /* a NaN key (column 5 of every row, beside finite logits): every row of O is NaN */
        float kn[B];
        memcpy(kn, k, sizeof kn);
        kn[5] = NAN;
        rc = o->upload(cs, RS_TENSOR_Q, q, NULL, &err) | o->upload(cs, RS_TENSOR_K, kn, kv, &err) |
             o->fwd_begin(cs, &err) | o->fwd_step(cs, &st, kv, &err) | o->fwd_end(cs, &err) |
             o->download(cs, RS_TENSOR_O, O, NULL, &err);
        CU_ASSERT_EQUAL(rc, 0);
        int n_nan = 0;
        for (int i = 0; i < B; i++) n_nan += isnan(O[i]) != 0;
        CU_ASSERT_EQUAL(n_nan, B);
        o->buf_free(cs, kv), o->buf_free(cs, dkv), o->destroy(cs);
    }
}

/* An unknown variant is refused with the accepted values. */
static void test_kernel_variant_bad(void) {
    rs_problem_t p = small(24, 2, RS_LAYOUT_ZIGZAG, true, RS_PASS_FORWARD, 2);
    rs_exec_opts_t o = rs_test_exec_opts_check();
    rs_exec_result_t res;
    rs_err_t err = {0};
    setenv("RINGSIM_CPU_KERNEL", "sse9", 1);
    int rc = rs_test_exec_run(&p, &o, NULL, &res, &err);
    unsetenv("RINGSIM_CPU_KERNEL");
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "RINGSIM_CPU_KERNEL=sse9"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "accepted: auto, plain, avx2, avx512f"));
}

/* The OpenBLAS core against the CPU's ISA: an SSE fallback core on an AVX-512 or AVX2 CPU is named
 * with what selects the CPU's kernels; a matching, wider or unknown core says nothing. */
static void test_blas_core_note(void) {
    char buf[512];
    CU_ASSERT_EQUAL(rs_blas_core_isa("Prescott"), RS_ISA_SSE);
    CU_ASSERT_EQUAL(rs_blas_core_isa("skylakex"), RS_ISA_AVX512);
    CU_ASSERT_EQUAL(rs_blas_core_isa("Zen"), RS_ISA_AVX2);
    CU_ASSERT_EQUAL(rs_blas_core_isa("Sandybridge"), RS_ISA_AVX);
    CU_ASSERT_EQUAL(rs_blas_core_isa("NoSuchCore"), RS_ISA_UNKNOWN);
    CU_ASSERT_EQUAL(rs_blas_core_isa(NULL), RS_ISA_UNKNOWN);
    CU_ASSERT_EQUAL(rs_blas_core_note("Prescott", RS_ISA_AVX512, buf, sizeof buf), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "core Prescott (SSE kernels) on a CPU with AVX-512"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "OPENBLAS_CORETYPE=SkylakeX"));
    CU_ASSERT_EQUAL(rs_blas_core_note("Haswell", RS_ISA_AVX512, buf, sizeof buf), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "core Haswell (AVX2 kernels)"));
    CU_ASSERT_EQUAL(rs_blas_core_note("Nehalem", RS_ISA_AVX2, buf, sizeof buf), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "OPENBLAS_CORETYPE=Haswell"));
    const struct {
        const char *core;
        rs_isa_t cpu;
    } quiet[] = {{"Zen", RS_ISA_AVX2}, {"Haswell", RS_ISA_AVX2}, {"Cooperlake", RS_ISA_AVX512},
                 {"SkylakeX", RS_ISA_AVX2}, {"NoSuchCore", RS_ISA_AVX512}, {"Prescott", RS_ISA_UNKNOWN}};
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++) {
        strcpy(buf, "x");
        CU_ASSERT_EQUAL(rs_blas_core_note(quiet[i].core, quiet[i].cpu, buf, sizeof buf), 0);
        CU_ASSERT_STRING_EQUAL(buf, "");
    }
    /* this machine: the note agrees with the linked core and the CPU */
    const int mine = rs_exec_blas_core_note(buf, sizeof buf);
    CU_ASSERT_EQUAL(mine, rs_blas_core_isa(openblas_get_corename()) != RS_ISA_UNKNOWN &&
                              rs_blas_core_isa(openblas_get_corename()) < rs_cpu_isa());
}

/* Calibration's overlap fit on synthetic points made by the model itself: a host cost n o + O m on
 * top of the compute alone (n flows of m bytes in all: points 1 and 3 carry two flows, a backward
 * step's K,V and dK,dV), and completions from the eta step with a different eta per size (the last
 * point's transfer outlasts its compute: the E >= t_c branch); the points are given out of order.
 * The fit must give back o, O and every eta, and the profile built from it must reproduce each
 * point's compute and, with the walk's sharing of the flows, its completion. */
static void test_calib_fit_overlap(void) {
    rs_calib_t c;
    memset(&c, 0, sizeof c);
    const double L = 5e-6, W = 20e9, o = 4e-6, ob = 1e-10;
    const double ta[5] = {1e-5, 4e-5, 1.6e-4, 6.4e-4, 1e-4}, eta[5] = {0.3, 0.25, 0.2, 0.15, 0.05};
    const int nf[5] = {1, 2, 1, 2, 1}, order[5] = {3, 0, 4, 1, 2};
    const double polls[5] = {4, 8, 16, 6, 40}; /* the receiver's polls in each point's step */
    c.latency_s = L, c.bw_bytes_per_s = W;
    c.model.poll = (rs_poll_model_t){.chunk_cols = 256, .panel_rows = {512, 256}}; /* a polled transport */
    for (int k = 0; k < 5; k++) {
        const int i = order[k];
        const uint64_t m = 65536ull << i;
        const double x = (double)m / W, tc = ta[i] + nf[i] * o + ob * (double)m;
        double end;
        if (x <= eta[i] * (tc - L)) end = L + x / eta[i];
        else end = tc + (x - eta[i] * (tc - L));
        c.ov[c.n_ov++] = (rs_calib_overlap_t){16 << i, m, nf[i], ta[i], tc, L + x, end, 0, 0, 1, polls[i], 0};
    }
    CU_ASSERT(c.ov[2].t_end_s > c.ov[2].t_comp_busy_s); /* the branch after compute is exercised */
    /* a sixth point whose compute (with its host cost) ends before the latency: its eta is
     * undetermined (any eta predicts L + x) and it stays out of the curve */
    const double x6 = 1000 / W;
    c.ov[c.n_ov++] = (rs_calib_overlap_t){4, 1000, 1, 1e-7, 1e-7 + o + ob * 1000, L + x6, L + x6, 0, 0, 1, 2, 0};
    CU_ASSERT(c.ov[5].t_comp_busy_s < L);
    rs_calib_fit_overlap(&c);
    CU_ASSERT(isnan(c.ov[5].eta));
    RS_ASSERT_REL(c.model.host_s_per_xfer, o, 1e-9);
    RS_ASSERT_REL(c.model.host_s_per_byte, ob, 1e-9);
    CU_ASSERT(c.host_fit_err < 1e-12);
    for (int k = 0; k < 5; k++) RS_ASSERT_REL(c.ov[k].eta, eta[order[k]], 1e-9);
    /* the profile: curve by bytes, host cost, no slowdown; the model reproduces every point */
    rs_hw_t hw;
    rs_calib_to_hw(&c, "fit-test", "synthetic", 2, RS_DTYPE_FP32, &hw);
    CU_ASSERT_EQUAL_FATAL(hw.cal.n_overlap, 5);
    for (int k = 1; k < 5; k++) CU_ASSERT(hw.cal.overlap_curve[k].bytes > hw.cal.overlap_curve[k - 1].bytes);
    CU_ASSERT_EQUAL(hw.cal.comp_slowdown, 1.0);
    rs_machine_t m;
    memset(&m, 0, sizeof m);
    m.flops_per_s = 1e12;
    m.cal = hw.cal;
    for (int k = 0; k < 5; k++) {
        const rs_calib_overlap_t *v = &c.ov[k];
        const double x = (double)v->bytes / W, xs[2] = {0.5 * x, 0.5 * x}; /* two flows: K,V and dK,dV alike */
        const double tc = v->t_comp_s + rs_machine_host_s(&m, v->n_flows, (double)v->bytes, (double)v->bytes); /* rotating: reused */
        const double e = rs_machine_overlap(&m, (double)v->bytes);
        RS_ASSERT_REL(tc, v->t_comp_busy_s, 1e-9);
        RS_ASSERT_REL(e, eta[order[k]], 1e-9);
        /* one step: the step ends at max(compute, completion of the last flow) */
        RS_ASSERT_REL(v->n_flows == 2 ? rs_sync_step_s(tc, L, xs, 2, e, 1) : rs_sync_step_s(tc, L, &x, 1, e, 1),
                      fmax(tc, v->t_end_s), 1e-9);
        /* the poll model (polls evenly spaced: poll_first 0): k = x (1 / eta - 1) polls / t_c, and the
         * k-th of the step's own polls gives its eta back */
        const double kp = rs_calibration_polls(&m.cal, (double)v->bytes);
        RS_ASSERT_REL(kp, x * (1 / eta[order[k]] - 1) * v->polls / tc, 1e-9);
        RS_ASSERT_REL(rs_step_eta(&m, (double)v->bytes, x, tc, kp / v->polls), eta[order[k]], 1e-9);
        /* twice the polls in the same compute: the k-th poll comes at half the time, then x */
        const double t_k = kp * tc / (2 * v->polls);
        RS_ASSERT_REL(rs_step_eta(&m, (double)v->bytes, x, tc, kp / (2 * v->polls)), x / (x + t_k), 1e-12);
        RS_ASSERT_REL(L + x / rs_step_eta(&m, (double)v->bytes, x, tc, kp / (2 * v->polls)), L + t_k + x, 1e-12);
    }
    CU_ASSERT_EQUAL(hw.cal.poll.n, 5);
    CU_ASSERT_EQUAL(hw.cal.poll.chunk_cols, 256);
    /* no geometry (a transport that does not poll): no poll curve, the overlap curve alone */
    c.model.poll = (rs_poll_model_t){0};
    rs_calib_fit_overlap(&c);
    CU_ASSERT_EQUAL(c.model.poll.n, 0);
    CU_ASSERT(!rs_calibration_polled(&c.model));
}

/* The two poll curves by hand (rs_calib_fit_polls): three points whose rotating step (reused copy,
 * g = 2) ended at L + x_r / eta_r and whose fresh step (g = 1, the host cost's per-byte term at half,
 * as rs_machine_host_s charges a fresh step) at L + x_f / eta_f. Each curve gives k = x (1 / eta - 1)
 * polls / t_c with its own x and t_c; a step takes them by its reused bytes; the walk's eta of a
 * fresh step at the fresh k gives eta_f back; without the fresh steps there is one curve. */
static void test_calib_fit_fresh_polls(void) {
    rs_calib_t c;
    memset(&c, 0, sizeof c);
    const double L = 2e-6, W = 10e9, o = 3e-6, ob = 2e-10;
    const double ta[3] = {4e-5, 4e-4, 4e-3}, eta_r[3] = {0.4, 0.3, 0.2}, eta_f[3] = {0.6, 0.5, 0.25}, P[3] = {4, 8, 16};
    c.latency_s = L, c.bw_bytes_per_s = W;
    c.model.poll = (rs_poll_model_t){.chunk_cols = 256, .panel_rows = {512, 256}};
    c.model.host_s_per_xfer = o, c.model.host_s_per_byte = ob;
    c.model.n_xfer = 1, c.model.xfer_curve[0] = (rs_xfer_point_t){1e6, 1.0};
    c.model.n_xfer_reused = 1, c.model.xfer_curve_reused[0] = (rs_xfer_point_t){1e6, 2.0};
    double k_r[3], k_f[3], tcf[3], xf[3];
    for (int i = 0; i < 3; i++) {
        const uint64_t m = 65536ull << (2 * i);
        const double xr = 2.0 * (double)m / W, tcr = ta[i] + o + ob * (double)m;
        xf[i] = (double)m / W, tcf[i] = ta[i] + o + 0.5 * ob * (double)m;
        CU_ASSERT_FATAL(xr <= eta_r[i] * (tcr - L) && xf[i] <= eta_f[i] * (tcf[i] - L)); /* both end inside the compute */
        c.ov[c.n_ov++] = (rs_calib_overlap_t){.block = 64 << i, .bytes = m, .n_flows = 1, .t_comp_s = ta[i], .t_comp_busy_s = tcr,
                                               .t_xfer_s = L + xr, .t_end_s = L + xr / eta_r[i], .t_end_fresh_s = L + xf[i] / eta_f[i],
                                               .eta = eta_r[i], .sigma = 1, .polls = P[i], .poll_first = 0};
        k_r[i] = xr * (1 / eta_r[i] - 1) * P[i] / tcr, k_f[i] = xf[i] * (1 / eta_f[i] - 1) * P[i] / tcf[i];
    }
    rs_calib_fit_polls(&c);
    CU_ASSERT_EQUAL_FATAL(c.model.poll.n, 3);
    CU_ASSERT_EQUAL_FATAL(c.model.poll.n_fresh, 3);
    rs_machine_t mach;
    memset(&mach, 0, sizeof mach);
    mach.flops_per_s = 1e12, mach.cal = c.model;
    for (int i = 0; i < 3; i++) {
        const double m = (double)c.ov[i].bytes;
        RS_ASSERT_REL(rs_calibration_step_polls(&c.model, m, m), k_r[i], 1e-9);
        RS_ASSERT_REL(rs_calibration_step_polls(&c.model, m, 0), k_f[i], 1e-9);
        RS_ASSERT_REL(rs_calibration_step_polls(&c.model, m, 0.25 * m), 0.25 * k_r[i] + 0.75 * k_f[i], 1e-9);
        RS_ASSERT_REL(rs_calibration_polls(&c.model, m), k_r[i], 1e-9);
        /* the walk's fresh step: its compute with the fresh host cost, its eta from the fresh k */
        RS_ASSERT_REL(c.ov[i].t_comp_s + rs_machine_host_s(&mach, 1, m, 0), tcf[i], 1e-9);
        RS_ASSERT_REL(rs_step_eta(&mach, m, xf[i], tcf[i], rs_calibration_step_polls(&c.model, m, 0) / P[i]), eta_f[i], 1e-9);
    }
    for (int i = 0; i < 3; i++) c.ov[i].t_end_fresh_s = 0; /* not measured: the one curve serves both */
    rs_calib_fit_polls(&c);
    CU_ASSERT_EQUAL(c.model.poll.n, 3);
    CU_ASSERT_EQUAL(c.model.poll.n_fresh, 0);
    RS_ASSERT_REL(rs_calibration_step_polls(&c.model, (double)c.ov[1].bytes, 0), k_r[1], 1e-9);
}

/* The model's poll count (rs_step_polls) is the executor's: the CPU compute's progress hook counted
 * over every (rank, step) of every layout x causal x pass x (MHA, GQA), at N = 2, 3 and 4, with
 * blocks that are not whole tiles or chunks, for the plain kernel (one tile per panel) and the fast
 * path with several tiles per panel and chunks of a few tiles. */
static void count_poll(void *arg) { ++*(long *)arg; }

/* Where the polls fall (rs_step_poll_at), by hand. B = 8, 2 query heads, tiles of 4.
 * A FULL 8 x 8 block, chunks of 4 columns, panels of 8 rows: 2 units of 8 x 4 per head, 4 in all,
 * 8 polls; forward (first poll at 1/2 of a unit) at work 16, 32, ..., 128 of 128: even, k / 8;
 * backward (3/5) at 19.2, 32, 51.2, 64, ...: the 1st at 0.15, the 2nd at 0.25, the 1.5th at 0.2.
 * The causal diagonal 8 x 8 block (step 0), chunks of 8, panels of 4 rows: per head a 4 x 4 unit
 * (its rows see columns 0-3) and a 4 x 8 one, 48 of the 96 work; forward polls at 8, 16, 32, 48,
 * 56, ...: the 1st at 1/12 (even spacing over its 8 polls: 1/8), the 2.5th at 1/4, the 3rd at 1/3.
 * Past the last poll: the average spacing on. rs_full_poll_k inverts a FULL block's. */
static void test_poll_positions(void) {
    const rs_poll_model_t g = {.chunk_cols = 4, .panel_rows = {8, 8}};
    for (int pass = 0; pass < 2; pass++) {
        rs_problem_t p = small(16, 2, RS_LAYOUT_CONTIGUOUS, false, pass ? RS_PASS_BACKWARD : RS_PASS_FORWARD, 2);
        rs_schedule_t *s = rs_schedule_create(&p, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        rs_step_t st;
        rs_schedule_step(s, 0, 0, &st);
        CU_ASSERT_EQUAL(rs_step_polls(&p, &st, &g), 8.0);
        if (!pass) {
            for (int k = 1; k <= 8; k++) RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, k), k / 8.0, 1e-12);
            RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, 1.5), 1.5 / 8, 1e-12);
        } else {
            RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, 1), 0.15, 1e-12);
            RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, 2), 0.25, 1e-12);
            RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, 1.5), 0.2, 1e-12);
            RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, 3), 0.4, 1e-12);
        }
        RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, 12), 1.5, 1e-12); /* 4 polls past the 8th: + 4 / 8 */
        CU_ASSERT_EQUAL(rs_step_poll_at(&p, &st, &g, 0), 0.0);
        const rs_poll_model_t none = {0};
        CU_ASSERT_EQUAL(rs_step_poll_at(&p, &st, &none, 2), 0.0);
        /* the calibration's inverse on the same FULL block, and back */
        for (double f = 0.03; f < 1.4; f += 0.07) {
            const double k = rs_full_poll_k(f, 8, rs_poll_first_frac(p.pass));
            RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, k), f, 1e-9);
        }
        rs_schedule_free(s);
    }
    rs_problem_t p = small(16, 2, RS_LAYOUT_CONTIGUOUS, true, RS_PASS_FORWARD, 2);
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_step_t st;
    rs_schedule_step(s, 0, 0, &st);
    const rs_poll_model_t gd = {.chunk_cols = 8, .panel_rows = {8, 8}};
    CU_ASSERT_EQUAL(rs_step_polls(&p, &st, &gd), 8.0);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &gd, 1), 1.0 / 12, 1e-12);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &gd, 2.5), 0.25, 1e-12);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &gd, 3), 1.0 / 3, 1e-12);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &gd, 8), 1.0, 1e-12);
    rs_schedule_free(s);
}

/* The pass starts with its inputs resident: the executor stages K,V (pass-q: Q) before the barrier
 * that starts a pass, so a slow upload (here 40 ms per call) is not in the measured makespan, which
 * the model's step 0 (starting at 0) could not predict. Measured: an upload inside the pass put step
 * 0 at 9 us (B = 8) to 400 us (B = 512) on a 2-core EPYC, 1.5x the model's makespan at B = 8. */
static int (*real_upload)(void *, rs_tensor_t, const float *, void *, rs_err_t *);
static int slow_upload(void *st, rs_tensor_t which, const float *host, void *buf, rs_err_t *err) {
    const struct timespec ts = {0, 40 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return real_upload(st, which, host, buf, err);
}

static void test_inputs_staged(void) {
    rs_compute_ops_t slow = rs_cpu_compute_ops;
    real_upload = slow.upload, slow.upload = slow_upload;
    for (int pass = 0; pass < 2; pass++) {
        rs_problem_t p = small(32, 2, RS_LAYOUT_ZIGZAG, true, pass ? RS_PASS_BACKWARD : RS_PASS_FORWARD, 2);
        rs_err_t err = {0};
        rs_schedule_t *s = rs_schedule_create(&p, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        rs_exec_opts_t o;
        rs_exec_opts_default(&o);
        o.warmup = 0, o.reps = 1, o.check = true;
        rs_exec_result_t res;
        const double t0 = rs_now_s();
        int rc = rs_exec_run_threads(s, &(rs_exec_threads_t){&slow, NULL, NULL}, &o, NULL, &res, &err);
        const double wall_s = rs_now_s() - t0;
        if (rc) fprintf(stderr, "  %s\n", err.msg);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(res.check_ok); /* the staged inputs are the ones computed on */
        CU_ASSERT(wall_s >= 0.04); /* the uploads ran ... */
        CU_ASSERT(res.makespan_s > 0 && res.makespan_s < 0.02); /* ... outside the measured pass */
        rs_schedule_free(s);
    }
}

static void test_poll_count(void) {
    static const char *const variants[][3] = {{"plain", "8", NULL}, {"auto", "8", "12"}, {"auto", "12", "4"}};
    int checked = 0, differ = 0;
    for (size_t vi = 0; vi < sizeof variants / sizeof variants[0]; vi++) {
        env_set("RINGSIM_CPU_KERNEL", variants[vi][0]);
        env_set("RINGSIM_CPU_KC", variants[vi][1]);
        env_set("RINGSIM_CPU_PANEL_ROWS", variants[vi][2]);
        for (int64_t N = 2; N <= 4; N++)
            for (int cfg = 0; cfg < 3 * 2 * 2 * 2; cfg++) {
                const rs_layout_t layout = (rs_layout_t)(cfg % 3);
                const bool causal = (cfg / 3) % 2;
                const rs_pass_t pass = (cfg / 6) % 2 ? RS_PASS_BACKWARD : RS_PASS_FORWARD;
                const int64_t kvh = (cfg / 12) % 2 ? 1 : 2;
                rs_problem_t p = small(44 * N, N, layout, causal, pass, kvh); /* 44-token blocks: 11 tiles of 4 */
                if (layout != RS_LAYOUT_CONTIGUOUS) p.seq_tokens = 40 * N; /* even halves for zigzag */
                rs_err_t err = {0};
                rs_schedule_t *sch = rs_schedule_create(&p, &err);
                CU_ASSERT_PTR_NOT_NULL_FATAL(sch);
                for (int64_t r = 0; r < N; r++) {
                    long polls = 0;
                    rs_exec_rank_t ri = {.problem = p, .rank = r, .block_tokens = rs_problem_block(&p), .softmax_scale = 0.25,
                                         .progress = count_poll, .progress_arg = &polls};
                    ri.n_segs = rs_schedule_rank_segments(sch, r, ri.segs);
                    const rs_compute_ops_t *o = &rs_cpu_compute_ops;
                    void *cs = NULL, *kv = NULL, *dkv = NULL;
                    CU_ASSERT_FATAL(o->create(&ri, &cs, &err) == 0);
                    CU_ASSERT_FATAL(o->buf_alloc(cs, rs_problem_kv_bytes(&p), &kv, &err) == 0);
                    CU_ASSERT_FATAL(o->buf_alloc(cs, rs_problem_dkv_bytes(&p), &dkv, &err) == 0);
                    rs_poll_model_t g = {0};
                    o->poll_geometry(cs, &g);
                    CU_ASSERT(g.chunk_cols > 0 && g.panel_rows[0] > 0 && g.panel_rows[1] > 0);
                    for (int64_t k = 0; k < rs_schedule_n_steps(sch); k++) {
                        rs_step_t st;
                        rs_schedule_step(sch, r, k, &st);
                        if (!st.has_compute) continue;
                        polls = 0;
                        int rc = pass == RS_PASS_BACKWARD ? o->bwd_step(cs, &st, kv, dkv, &err) : o->fwd_step(cs, &st, kv, &err);
                        CU_ASSERT(rc == 0 && o->wait(cs, NULL, NULL, &err) == 0);
                        const double model = rs_step_polls(&p, &st, &g);
                        CU_ASSERT_EQUAL(model, (double)polls);
                        checked++, differ += model != (double)polls;
                    }
                    o->buf_free(cs, kv), o->buf_free(cs, dkv), o->destroy(cs);
                }
                rs_schedule_free(sch);
            }
    }
    env_set("RINGSIM_CPU_KERNEL", NULL), env_set("RINGSIM_CPU_KC", NULL), env_set("RINGSIM_CPU_PANEL_ROWS", NULL);
    CU_ASSERT(checked > 300);
    if (differ) fprintf(stderr, "poll count: %d of %d (rank, step) differ\n", differ, checked);
    /* no geometry: no polls (a backend that does not poll) */
    rs_problem_t p = small(16, 2, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_FORWARD, 2);
    rs_err_t err = {0};
    rs_schedule_t *sch = rs_schedule_create(&p, &err);
    rs_step_t st;
    rs_schedule_step(sch, 0, 0, &st);
    const rs_poll_model_t none = {0};
    CU_ASSERT_EQUAL(rs_step_polls(&p, &st, &none), 0.0);
    /* by hand: one FULL 8 x 8 block, 2 heads, chunks of 4 columns, panels of 8 rows: 2 x 2 x 2 = 8 */
    const rs_poll_model_t g = {.chunk_cols = 4, .panel_rows = {8, 8}};
    CU_ASSERT_EQUAL(rs_step_polls(&p, &st, &g), 8.0);
    rs_schedule_free(sch);
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

/* The transfer curve from the transport fit: sizes whose times are not affine (a copy that leaves the
 * cache: 4 GB/s up to 256 KiB, 2.7 GB/s beyond, 30% off the best (L, W) at 1 MiB). The curve goes
 * through every size (L + m g(m) / W = t), an overlap point's transfer alone reads it, a size
 * between two points is log-linear in g, and one outside takes its end point's g. Affine times give
 * g = 1 at every size. */
static void test_calib_xfer_curve(void) {
    rs_calib_t c;
    memset(&c, 0, sizeof c);
    const uint64_t m[5] = {16384, 65536, 262144, 524288, 1048576};
    for (int i = 0; i < 5; i++) {
        c.sizes[c.n_sizes] = m[i];
        c.t_msg_s[c.n_sizes++] = 2e-6 + (m[i] <= 262144 ? (double)m[i] / 4e9 : 262144 / 4e9 + (double)(m[i] - 262144) / 2.7e9);
    }
    c.ov[c.n_ov++] = (rs_calib_overlap_t){.block = 512, .bytes = 1048576, .n_flows = 1};
    rs_calib_fit_transport(&c);
    CU_ASSERT(c.fit_err_max > 0.05); /* the affine fit cannot follow the times */
    CU_ASSERT_EQUAL_FATAL(c.model.n_xfer, 5);
    for (int i = 0; i < 5; i++)
        RS_ASSERT_REL(c.latency_s + (double)m[i] * rs_calibration_xfer_factor(&c.model, (double)m[i]) / c.bw_bytes_per_s,
                      c.t_msg_s[i], 1e-12);
    RS_ASSERT_REL(c.ov[0].t_xfer_s, c.t_msg_s[4], 1e-12);
    const double g1 = c.model.xfer_curve[1].factor, g2 = c.model.xfer_curve[2].factor;
    RS_ASSERT_REL(rs_calibration_xfer_factor(&c.model, 131072), 0.5 * (g1 + g2), 1e-12); /* halfway in log bytes */
    RS_ASSERT_REL(rs_calibration_xfer_factor(&c.model, 4096), c.model.xfer_curve[0].factor, 1e-12);
    RS_ASSERT_REL(rs_calibration_xfer_factor(&c.model, 1e9), c.model.xfer_curve[4].factor, 1e-12);
    /* the exchange with rotating buffers (the ring's): its own curve with the same L and W, through
     * every size; the overlap samples (which rotate) read it */
    for (int i = 0; i < 5; i++) c.t_msg_reused_s[i] = 1.5 * c.t_msg_s[i] + 1e-6;
    rs_calib_fit_transport(&c);
    CU_ASSERT_EQUAL_FATAL(c.model.n_xfer_reused, 5);
    for (int i = 0; i < 5; i++) {
        RS_ASSERT_REL(c.latency_s + (double)m[i] * rs_calibration_xfer_factor_reused(&c.model, (double)m[i]) / c.bw_bytes_per_s,
                      c.t_msg_reused_s[i], 1e-12);
        RS_ASSERT_REL(c.latency_s + (double)m[i] * rs_calibration_xfer_factor(&c.model, (double)m[i]) / c.bw_bytes_per_s,
                      c.t_msg_s[i], 1e-12);
    }
    RS_ASSERT_REL(c.ov[0].t_xfer_s, c.t_msg_reused_s[4], 1e-12);
    memset(c.t_msg_reused_s, 0, sizeof c.t_msg_reused_s);
    for (int i = 0; i < 5; i++) c.t_msg_s[i] = 3e-6 + (double)m[i] / 5e9;
    rs_calib_fit_transport(&c);
    RS_ASSERT_REL(c.latency_s, 3e-6, 1e-9);
    for (int i = 0; i < 5; i++) RS_ASSERT_REL(c.model.xfer_curve[i].factor, 1.0, 1e-9);
    /* a loaded machine (as measured under ASan): ~2 ms at every size, one size far below the rest.
     * g stays in the profile's range, so the profile written loads back */
    const double tl[5] = {5.4e-4, 1.92e-3, 2.0e-3, 1.9e-3, 2.09e-3};
    for (int i = 0; i < 5; i++) c.sizes[i] = (uint64_t[]){1024, 4096, 16384, 65536, 1048576}[i], c.t_msg_s[i] = tl[i];
    rs_calib_fit_transport(&c);
    const rs_range_t gr = {RS_RANGE_XFER_FACTOR};
    CU_ASSERT_EQUAL(c.model.n_xfer, 5);
    for (int i = 0; i < c.model.n_xfer; i++) CU_ASSERT(c.model.xfer_curve[i].factor > gr.min && c.model.xfer_curve[i].factor <= gr.max);
    rs_hw_t hw;
    memset(&hw, 0, sizeof hw);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &hw, &err), 0);
    hw.cal.n_xfer = c.model.n_xfer;
    memcpy(hw.cal.xfer_curve, c.model.xfer_curve, sizeof hw.cal.xfer_curve);
    const char *path = RS_BINARY_DIR "/tests/test_exec_xfer_loaded.json";
    CU_ASSERT_EQUAL_FATAL(rs_hw_write_json(&hw, path, "test", &err), 0);
    rs_hw_t back;
    CU_ASSERT_EQUAL(rs_hw_load(path, &back, &err), 0);
    if (err.msg[0]) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL(back.cal.n_xfer, 5);
}

/* The kernel table of one pass (validate measures only the pass it predicts): with passes = the
 * backward bit, three backward curves (full, causal, shifted) of every block size, each point's
 * rate positive; the forward resolves to them and says so. Both bits (0): six curves. */
static void test_kernel_table_one_pass(void) {
    rs_problem_t p = small(64, 1, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_BACKWARD, 2);
    rs_calib_kernel_opts_t ko = {.n_blocks = 2, .blocks = {8, 16}, .min_time_s = 1e-4, .min_reps = 2, .dtype = RS_DTYPE_FP32,
                                 .passes = 1u << RS_PASS_BACKWARD};
    snprintf(ko.name, sizeof ko.name, "ringsim-cpu");
    rs_kernel_table_t t;
    rs_err_t err;
    CU_ASSERT_EQUAL_FATAL(rs_calib_kernel_table(&p, &rs_cpu_compute_ops, 0, &ko, &t, &err), 0);
    CU_ASSERT_EQUAL(t.n_curves, RS_KMASK_COUNT);
    for (int c = 0; c < t.n_curves; c++) {
        CU_ASSERT_EQUAL(t.curve[c].pass, RS_PASS_BACKWARD);
        CU_ASSERT_EQUAL(t.curve[c].mask, (rs_kmask_t)c);
        CU_ASSERT_EQUAL(t.curve[c].n, 2);
        for (int i = 0; i < t.curve[c].n; i++) CU_ASSERT(t.curve[c].pt[i].flops_per_s > 0);
    }
    rs_kresolve_t r;
    CU_ASSERT_EQUAL_FATAL(rs_kernel_resolve(&t, 0, RS_DTYPE_FP32, p.head_dim, &r, &err), 0);
    for (int m = 0; m < RS_KMASK_COUNT; m++) CU_ASSERT_EQUAL(r.idx[RS_PASS_FORWARD][m], r.idx[RS_PASS_BACKWARD][m]);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.notes, "has no forward curve"));
    ko.passes = 0;
    CU_ASSERT_EQUAL_FATAL(rs_calib_kernel_table(&p, &rs_cpu_compute_ops, 0, &ko, &t, &err), 0);
    CU_ASSERT_EQUAL(t.n_curves, 2 * RS_KMASK_COUNT);
}

int main(void) {
    static const rs_test_case_t numerics[] = {{"reference_hand", test_reference_hand},
                                              {"all_layouts_causal_pass_gqa", test_numerics_all},
                                              {"sizes_n1_n2_n3", test_numerics_sizes},
                                              {"check_can_fail", test_check_can_fail},
                                              {"extreme_logits", test_extreme_logits},
                                              {"kernel_variants_masks", test_kernel_variants_masks},
                                              {"kernel_exp_rows", test_kernel_exp_rows},
                                              {"kernel_variant_bad", test_kernel_variant_bad},
                                              {"blas_core_note", test_blas_core_note},
                                              {NULL, NULL}};
    static const rs_test_case_t runs[] = {{"save_io_npy", test_save_io},
                                          {"dead_rank_timeout", test_dead_rank_timeout},
                                          {"trace_schema", test_trace_schema},
                                          {"calib_fit_overlap", test_calib_fit_overlap},
                                          {"calib_fit_fresh_polls", test_calib_fit_fresh_polls},
                                          {"poll_count_is_the_executors", test_poll_count},
                                          {"calib_rank_factors", test_calib_rank_factors},
                                          {"kernel_table_one_pass", test_kernel_table_one_pass},
                                          {"calib_xfer_curve", test_calib_xfer_curve},
                                          {"inputs_staged_outside_the_pass", test_inputs_staged},
                                          {"poll_positions_by_hand", test_poll_positions},
                                          {NULL, NULL}};
    const rs_test_suite_t suites[] = {{"exec_numerics", numerics}, {"exec_runs", runs}};
    return rs_test_main(suites, 2);
}
