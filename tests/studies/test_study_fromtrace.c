/* test_fromtrace.c - calibrate and validate from traces (studies/study_fromtrace.h, issue 14 item 2).
 *
 * Traces of a KNOWN profile: the walk's traces of a zigzag causal ring (N = 4, 32/8 heads, d 128,
 * bf16) at B = 1024, 2048, 4096 (forward) and 2048 (backward) on a machine of peak F with an
 * efficiency curve, alpha-beta (L, W) and a host cost per received transfer, exported to Kineto JSON
 * (rs_import_export_kineto) and imported back (rs_import_read), as a user's run would come in. The
 * fit must recover F_eff(B), L, W and the host cost within 1% (the check), validate must
 * predict them with ~0 error, and a profile off by a known factor must show that factor. Bad input:
 * exit 2, one line naming the file, no output.
 *
 * The kernel table: traces of a machine whose attention kernel has KNOWN curves by call shape and
 * mask (forward and backward at B = 1024, 2048, 4096, run by the flash-attn preset: one call per step
 * over its rows; merges at 1e30 B/s and no launch cost, so a step's compute is its call) must give back
 * each curve's points, shape by shape, within 1% - in rs_tfit_t and in the profile calibrate writes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "cost.h"
#include "study_fromtrace.h"
#include "test_main.h"
#include "harness.h"

#define F_PEAK 400e12
#define W_BPS 150e9
#define L_S 4e-6
#define HOST_S 2e-6
#define N_TRACES 4
static const int64_t blocks[N_TRACES] = {1024, 2048, 4096, 2048};
static const rs_pass_t passes[N_TRACES] = {RS_PASS_FORWARD, RS_PASS_FORWARD, RS_PASS_FORWARD, RS_PASS_BACKWARD};
static const double effs[3] = {0.6, 0.8, 0.95}; /* at B = 1024, 2048, 4096 */
static char paths[N_TRACES][600];
static const char *path_ptr[N_TRACES];

static double known_eff(int64_t B) { return B == 1024 ? effs[0] : B == 2048 ? effs[1] : effs[2]; }

static rs_machine_t known_machine(void) {
    rs_tier_t tier = {"known", W_BPS, L_S};
    rs_machine_t m = rs_machine_figures("known", RS_DTYPE_BF16, F_PEAK, tier);
    m.cal.n_eff = 3;
    for (int i = 0; i < 3; i++) m.cal.eff[i] = (rs_eff_point_t){(double)(1024 << i), effs[i]};
    m.cal.host_s_per_xfer = HOST_S;
    return m;
}

static rs_problem_t trace_problem(int i) {
    rs_problem_t p = rs_test_problem(4, blocks[i], RS_LAYOUT_ZIGZAG, passes[i], true);
    return p;
}

/* The walk's trace of problem p on machine m, through Kineto (DIR/kinetoTAG) and back, as CSV into path. */
static int make_trace_on(const rs_problem_t *pp, const rs_machine_t *mm, const char *tag, char *path, size_t path_len) {
    rs_err_t err = {0};
    const rs_problem_t p = *pp;
    const rs_machine_t m = *mm;
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    rs_trace_t *t = rs_trace_create("model");
    rs_walk_t w;
    int rc = s && t && rs_model_walk(s, &m, rs_trace_sink(t), NULL, &w, &err) == 0 ? 0 : -1;
    if (rc == 0) rc = rs_trace_meta_problem(t, &p);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/kineto%s", rs_test_dir, tag);
    if (rc == 0) rc = rs_import_export_kineto(t, dir, &err);
    rs_import_opts_t o;
    rs_import_opts_default(&o);
    o.problem = p;
    const char *in[1] = {dir};
    rs_import_t *im = rc == 0 ? rs_import_read(in, 1, &o, &err) : NULL;
    snprintf(path, path_len, "%s/trace%s-B%lld-%s.csv", rs_test_dir, tag, (long long)rs_problem_block(&p), rs_pass_name(p.pass));
    rc = im && rs_import_n_traces(im) == 1 && rs_trace_write_csv(rs_import_trace(im, 0), path, &err) == 0 ? 0 : -1;
    if (rc) fprintf(stderr, "  trace %s: %s\n", tag, err.msg);
    rs_import_free(im);
    rs_trace_free(t);
    rs_schedule_free(s);
    return rc;
}

/* The walk's trace of trace i's problem on the known machine, through Kineto and back, as CSV. */
static int make_trace(int i) {
    const rs_problem_t p = trace_problem(i);
    const rs_machine_t m = known_machine();
    char tag[16];
    snprintf(tag, sizeof tag, "%d", i);
    path_ptr[i] = paths[i];
    return make_trace_on(&p, &m, tag, paths[i], sizeof paths[i]);
}

/* The known kernel: its curves, one per (pass, mask kind) a zigzag ring calls at B = 1024, 2048, 4096,
 * at exactly the call shapes the flash-attn preset issues there (zigzag: B x B/2 and B/2 x B full,
 * B x B causal), useful TFLOP/s different per shape and aspect. */
#define N_KTRACES 6
static char kpaths[N_KTRACES][600];
static const char *kpath_ptr[N_KTRACES];
typedef struct {
    rs_pass_t pass;
    rs_kmask_t mask;
    int n;
    rs_kpoint_t pt[6];
} known_curve_t;
static const known_curve_t known_curves[4] = {
    {RS_PASS_FORWARD, RS_KMASK_FULL, 6,
     {{512, 1024, 150e12}, {1024, 512, 165e12}, {1024, 2048, 205e12}, {2048, 1024, 215e12}, {2048, 4096, 240e12}, {4096, 2048, 252e12}}},
    {RS_PASS_FORWARD, RS_KMASK_CAUSAL, 3, {{1024, 1024, 110e12}, {2048, 2048, 160e12}, {4096, 4096, 215e12}}},
    {RS_PASS_BACKWARD, RS_KMASK_FULL, 6,
     {{512, 1024, 90e12}, {1024, 512, 95e12}, {1024, 2048, 130e12}, {2048, 1024, 140e12}, {2048, 4096, 170e12}, {4096, 2048, 175e12}}},
    {RS_PASS_BACKWARD, RS_KMASK_CAUSAL, 3, {{1024, 1024, 60e12}, {2048, 2048, 100e12}, {4096, 4096, 140e12}}},
};

static rs_machine_t known_kernel_machine(void) {
    rs_tier_t tier = {"known", W_BPS, L_S};
    rs_machine_t m = rs_machine_figures("known-kernel", RS_DTYPE_BF16, F_PEAK, tier);
    rs_kernel_table_t *t = &m.kernels;
    memset(t, 0, sizeof *t);
    t->n_kernels = 1;
    snprintf(t->kernel[0].name, sizeof t->kernel[0].name, "known");
    for (int i = 0; i < 4; i++) {
        rs_kcurve_t *c = &t->curve[t->n_curves++];
        c->kernel = 0, c->dtypes = 1u << RS_DTYPE_BF16, c->head_dim = 128, c->pass = known_curves[i].pass;
        c->mask = known_curves[i].mask, c->n = known_curves[i].n;
        memcpy(c->pt, known_curves[i].pt, sizeof known_curves[i].pt);
    }
    t->impl_kernel[RS_IMPL_FLASH_ATTN] = 1;
    t->merge_bw_bytes_per_s = 1e30; /* merges cost nothing: a step's compute is its call */
    rs_err_t err = {0};
    if (rs_machine_set_kernel(&m, RS_IMPL_FLASH_ATTN, 1, &err) != 0) fprintf(stderr, "  known kernel: %s\n", err.msg);
    return m;
}

/* Forward and backward traces of the known kernel machine at B = 1024, 2048, 4096. */
static int make_kernel_traces(void) {
    const rs_machine_t m = known_kernel_machine();
    for (int i = 0; i < N_KTRACES; i++) {
        const rs_problem_t p = rs_test_problem(4, 1024 << (i % 3), RS_LAYOUT_ZIGZAG, i < 3 ? RS_PASS_FORWARD : RS_PASS_BACKWARD, true);
        char tag[16];
        snprintf(tag, sizeof tag, "k%d", i);
        kpath_ptr[i] = kpaths[i];
        if (make_trace_on(&p, &m, tag, kpaths[i], sizeof kpaths[i]) != 0) return -1;
    }
    return 0;
}

/* t's curves are the known kernel's, point by point within 1%. */
static void expect_known_curves(const rs_kernel_table_t *t) {
    CU_ASSERT_EQUAL_FATAL(t->n_kernels, 1);
    CU_ASSERT_STRING_EQUAL(t->kernel[0].name, RS_TFIT_KERNEL);
    CU_ASSERT_EQUAL(t->default_impl, RS_IMPL_NONE);
    for (int i = RS_IMPL_RINGSIM; i < RS_IMPL_COUNT; i++) CU_ASSERT_EQUAL(t->impl_kernel[i], 1);
    CU_ASSERT_EQUAL_FATAL(t->n_curves, 4);
    for (int i = 0; i < 4; i++) {
        const known_curve_t *k = &known_curves[i];
        const rs_kcurve_t *c = NULL;
        for (int j = 0; j < t->n_curves; j++)
            if (t->curve[j].pass == (int)k->pass && t->curve[j].mask == k->mask) c = &t->curve[j];
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        CU_ASSERT_EQUAL(c->dtypes, 1u << RS_DTYPE_BF16);
        CU_ASSERT_EQUAL(c->head_dim, 128);
        CU_ASSERT_EQUAL_FATAL(c->n, k->n);
        for (int j = 0; j < k->n; j++) {
            CU_ASSERT_EQUAL(c->pt[j].q_tokens, k->pt[j].q_tokens);
            CU_ASSERT_EQUAL(c->pt[j].k_tokens, k->pt[j].k_tokens);
            RS_ASSERT_REL(c->pt[j].flops_per_s, k->pt[j].flops_per_s, 0.01);
        }
    }
}

/* calibrate --from-trace's kernel table recovers the known curves (in the fit and in the written
 * profile, which `ringsim model --impl flash-attn` then runs on). */
static void test_fit_kernel_table(void) {
    CU_ASSERT_EQUAL_FATAL(make_kernel_traces(), 0);
    rs_tfit_opts_t o;
    rs_tfit_opts_default(&o);
    o.paths = kpath_ptr, o.n_paths = N_KTRACES;
    rs_err_t err = {0};
    rs_tset_t *ts = rs_tset_load(&o, &err);
    if (!ts) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    static rs_tfit_t f;
    CU_ASSERT_EQUAL_FATAL(rs_tfit_run(ts, &o, &f, &err), 0);
    CU_ASSERT_EQUAL(f.one_shape, 0u);
    expect_known_curves(&f.kernels);
    rs_tset_free(ts);

    char args[8192], prof[600];
    snprintf(prof, sizeof prof, "%s", rs_test_path("kfit.json"));
    int u = snprintf(args, sizeof args, "calibrate --out %s --from-trace", prof);
    for (int i = 0; i < N_KTRACES; i++) u += snprintf(args + u, sizeof args - (size_t)u, " %s", kpaths[i]);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# kernel table (kernel from-trace, bf16, d 128)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, ", 4 kernel curves"));
    rs_hw_t hw;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load(prof, &hw, &err), 0);
    expect_known_curves(&hw.kernels);
    snprintf(args, sizeof args, "model -p %s --impl flash-attn -S 8K -N 4 -L zigzag -P both", prof);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "kernel from-trace's measured/published rates"));
    /* one B: every (pass, kind) at one shape but the forward's full calls (B x B/2, B/2 x B) - said */
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s --latency %g", rs_test_path("kfit1.json"), kpaths[1], L_S);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# kernel table: forward causal calls at one shape only: no curve"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, ", 1 kernel curves"));
}

static rs_tfit_opts_t fit_opts(int first, int n) {
    rs_tfit_opts_t o;
    rs_tfit_opts_default(&o);
    o.paths = path_ptr + first, o.n_paths = n;
    return o;
}

/* ------------------------------------------------------------------------------------------------ */
/* Kinds and call shapes, from the schedule by hand. */
static void test_step_kinds(void) {
    rs_err_t err;
    struct {
        rs_layout_t layout;
        int64_t rank, step;
        rs_tfit_kind_t kind;
        int64_t q, k;
    } cases[] = {
        /* zigzag, B = 1024 (chunks of 512): step 0 diagonal; owner < rank: all Q x the first KV chunk;
         * owner > rank: the second Q chunk x all KV */
        {RS_LAYOUT_ZIGZAG, 2, 0, RS_TFIT_CAUSAL, 1024, 1024},
        {RS_LAYOUT_ZIGZAG, 2, 1, RS_TFIT_FULL, 1024, 512},
        {RS_LAYOUT_ZIGZAG, 1, 2, RS_TFIT_FULL, 512, 1024},
        /* contiguous: the own block diagonal, an earlier block full, a later one skipped */
        {RS_LAYOUT_CONTIGUOUS, 1, 0, RS_TFIT_CAUSAL, 1024, 1024},
        {RS_LAYOUT_CONTIGUOUS, 1, 1, RS_TFIT_FULL, 1024, 1024},
        {RS_LAYOUT_CONTIGUOUS, 1, 2, RS_TFIT_SKIP, 0, 0},
        /* striped: a KV owner after the rank is the shifted diagonal (j < i) */
        {RS_LAYOUT_STRIPED, 0, 1, RS_TFIT_SHIFTED, 1024, 1024},
        {RS_LAYOUT_STRIPED, 1, 1, RS_TFIT_CAUSAL, 1024, 1024},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        rs_problem_t p = rs_test_problem(4, 1024, cases[c].layout, RS_PASS_FORWARD, true);
        rs_schedule_t *s = rs_schedule_create(&p, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        rs_step_t st;
        rs_schedule_step(s, cases[c].rank, cases[c].step, &st);
        int64_t q, k;
        const rs_tfit_kind_t kind = rs_tfit_step_kind(&st, &q, &k);
        if (kind != cases[c].kind || q != cases[c].q || k != cases[c].k)
            fprintf(stderr, "  case %zu: %s %lldx%lld\n", c, rs_tfit_kind_name(kind), (long long)q, (long long)k);
        CU_ASSERT_EQUAL(kind, cases[c].kind);
        CU_ASSERT_EQUAL(q, cases[c].q);
        CU_ASSERT_EQUAL(k, cases[c].k);
        rs_schedule_free(s);
    }
    /* the backward's tail computes nothing */
    rs_problem_t p = rs_test_problem(4, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    rs_step_t st;
    rs_schedule_step(s, 0, 4, &st);
    int64_t q, k;
    CU_ASSERT_EQUAL(rs_tfit_step_kind(&st, &q, &k), RS_TFIT_SKIP);
    rs_schedule_free(s);
}

/* The fit recovers the known profile within 1%. */
static void test_fit_recovers(void) {
    rs_tfit_opts_t o = fit_opts(0, N_TRACES);
    rs_err_t err = {0};
    rs_tset_t *ts = rs_tset_load(&o, &err);
    if (!ts) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    static rs_tfit_t f;
    CU_ASSERT_EQUAL_FATAL(rs_tfit_run(ts, &o, &f, &err), 0);
    const rs_calib_t *c = &f.calib;
    CU_ASSERT_EQUAL(f.dtype, RS_DTYPE_BF16);
    CU_ASSERT_EQUAL_FATAL(c->n_blocks, 3);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(c->blocks[i], 1024 << i);
        RS_ASSERT_REL(c->flops_eff[i], F_PEAK * effs[i], 0.01);
        RS_ASSERT_REL(c->model.eff[i].efficiency, effs[i] / effs[2], 0.01);
    }
    RS_ASSERT_REL(c->flops_peak, F_PEAK * effs[2], 0.01);
    RS_ASSERT_REL(c->latency_s, L_S, 0.01);
    RS_ASSERT_REL(c->bw_bytes_per_s, W_BPS, 0.01);
    /* sizes: K,V at each B (4, 8, 16 MiB; the backward's at 2048 too), the backward's dK,dV (fp32: twice
     * K,V, 16 MiB as K,V at 4096) and both together (24 MiB) */
    CU_ASSERT_EQUAL(c->n_sizes, 4);
    CU_ASSERT(f.host_fitted);
    RS_ASSERT_REL(c->model.host_s_per_xfer, HOST_S, 0.01);
    CU_ASSERT(c->model.host_s_per_byte * 64e6 < 0.01 * HOST_S); /* none per byte: 64 MB cost < 1% of o */
    CU_ASSERT(c->model.n_overlap > 0);                          /* eta 1 everywhere (to the ns of the export) */
    for (int i = 0; i < c->model.n_overlap; i++) CU_ASSERT(c->model.overlap_curve[i].eta > 0.9999);
    /* every point's rate is F_eff(B); the useful rate scales by useful / executed FLOPs */
    int kinds[RS_TFIT_KIND_COUNT] = {0};
    for (int i = 0; i < f.n_points; i++) {
        const rs_tfit_point_t *p = &f.pt[i];
        RS_ASSERT_REL(p->flops_exec_per_s, F_PEAK * known_eff(p->block), 0.01);
        RS_ASSERT_REL(p->flops_useful_per_s, p->flops_exec_per_s * (double)p->flops_useful / (double)p->flops_exec, 1e-12);
        kinds[p->kind]++;
        if (i) CU_ASSERT(f.pt[i - 1].block <= p->block);
    }
    /* per (B, pass): the diagonal and two full shapes; B = 2048 has both passes */
    CU_ASSERT_EQUAL(f.n_points, 12);
    CU_ASSERT_EQUAL(kinds[RS_TFIT_CAUSAL], 4);
    CU_ASSERT_EQUAL(kinds[RS_TFIT_FULL], 8);
    CU_ASSERT_EQUAL(f.n_comp_zero, 0);
    rs_tset_free(ts);
}

/* One backward trace has three transfer sizes (K,V; dK,dV; both): alpha-beta from one B. One forward
 * trace needs --latency, then W alone. */
static void test_fit_one_b(void) {
    static rs_tfit_t f;
    rs_err_t err = {0};
    rs_tfit_opts_t o = fit_opts(3, 1);
    rs_tset_t *ts = rs_tset_load(&o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    CU_ASSERT_EQUAL_FATAL(rs_tfit_run(ts, &o, &f, &err), 0);
    CU_ASSERT_EQUAL(f.calib.n_sizes, 3);
    RS_ASSERT_REL(f.calib.latency_s, L_S, 0.01);
    RS_ASSERT_REL(f.calib.bw_bytes_per_s, W_BPS, 0.01);
    CU_ASSERT(!f.host_fitted); /* every computing backward step receives: no host cost */
    rs_tset_free(ts);

    o = fit_opts(1, 1);
    ts = rs_tset_load(&o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    CU_ASSERT_EQUAL(rs_tfit_run(ts, &o, &f, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "W needs two sizes"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, paths[1]));
    o.latency_s = L_S;
    CU_ASSERT_EQUAL_FATAL(rs_tfit_run(ts, &o, &f, &err), 0);
    CU_ASSERT(f.latency_given);
    CU_ASSERT_EQUAL(f.calib.latency_s, L_S);
    RS_ASSERT_REL(f.calib.bw_bytes_per_s, W_BPS, 0.01);
    RS_ASSERT_REL(f.calib.flops_eff[0], F_PEAK * effs[1], 0.01);
    rs_tset_free(ts);
}

/* The fitted profile predicts the traces with ~0 error; a profile of half the bandwidth and twice the
 * peak shows it: T_comp -50%, and T_comm (L + m / W) grows by m / W / (L + m / W) at each size. */
static void test_validate(void) {
    rs_tfit_opts_t o = fit_opts(0, N_TRACES);
    rs_err_t err = {0};
    rs_tset_t *ts = rs_tset_load(&o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    static rs_tfit_t f;
    CU_ASSERT_EQUAL_FATAL(rs_tfit_run(ts, &o, &f, &err), 0);
    rs_hw_t hw;
    rs_tfit_to_hw(&f, "fitted", "test", &hw);
    rs_tval_row_t rows[N_TRACES];
    CU_ASSERT_EQUAL_FATAL(rs_tval_run(ts, &hw, RS_DTYPE_BF16, NULL, rows, &err), 0);
    for (int i = 0; i < N_TRACES; i++) {
        for (int m = 0; m < RS_CMP_METRIC_COUNT; m++) {
            CU_ASSERT(rows[i].cmp.stats[m].n > 0);
            CU_ASSERT(rows[i].cmp.stats[m].p95_abs < 1e-3);
        }
        CU_ASSERT(fabs(rows[i].cmp.makespan_rel) < 1e-3);
        CU_ASSERT_EQUAL(rows[i].cmp.only_ref + rows[i].cmp.only_other, 0);
        rs_compare_free(&rows[i].cmp);
    }
    /* twice the peak, no host cost: every compute exactly half the traced compute less its host cost */
    hw.flops_per_s[RS_DTYPE_BF16] *= 2;
    hw.cal.host_s_per_xfer = 0;
    hw.intra.bw_bytes_per_s /= 2;
    CU_ASSERT_EQUAL_FATAL(rs_tval_run(ts, &hw, RS_DTYPE_BF16, NULL, rows, &err), 0);
    for (int i = 0; i < N_TRACES; i++) {
        const rs_compare_t *c = &rows[i].cmp;
        for (size_t k = 0; k < c->n_points; k++) {
            const rs_cmp_point_t *pt = &c->points[k];
            if (pt->metric == RS_CMP_COMP && pt->ref_s > 0) {
                rs_step_t st;
                rs_schedule_t *s = rs_schedule_create(rs_tset_problem(ts, i), &err);
                rs_schedule_step(s, pt->rank, pt->step, &st);
                const double host = st.n_recv * HOST_S; /* per received transfer: 2 in a backward middle step */
                RS_ASSERT_REL(pt->other_s, (pt->ref_s - host) / 2, 1e-3);
                rs_schedule_free(s);
            } else if (pt->metric == RS_CMP_COMM) {
                RS_ASSERT_REL(pt->other_s - L_S, 2 * (pt->ref_s - L_S), 2e-3);
            }
        }
        rs_compare_free(&rows[i].cmp);
    }
    rs_tset_free(ts);
}

/* The commands: a profile `ringsim model -p` accepts, validate's table and files. */
static void test_cli(void) {
    char args[4096], prof[600];
    snprintf(prof, sizeof prof, "%s", rs_test_path("fit.json"));
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s %s %s", prof, paths[0], paths[1], paths[2], paths[3]);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# alpha-beta fit: L = "));
    rs_hw_t hw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_load(prof, &hw, &err), 0);
    RS_ASSERT_REL(hw.flops_per_s[RS_DTYPE_BF16], F_PEAK * effs[2], 0.01);
    RS_ASSERT_REL(hw.intra.latency_s, L_S, 0.01);
    RS_ASSERT_REL(hw.intra.bw_bytes_per_s, W_BPS, 0.01);
    RS_ASSERT_REL(hw.cal.host_s_per_xfer, HOST_S, 0.01);
    CU_ASSERT_EQUAL(hw.cal.n_eff, 3);
    CU_ASSERT_EQUAL(hw.devices_per_node, 4);
    snprintf(args, sizeof args, "model -p %s -S 8K -N 4 -L zigzag -P forward", prof);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "zigzag"));

    const char *dir = rs_test_fresh_dir("val");
    snprintf(args, sizeof args, "validate --from-trace %s %s %s %s --calibrated %s --trace-dir %s", paths[0], paths[1], paths[2],
             paths[3], prof, dir);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "median / p95; makespan signed"));
    CU_ASSERT_PTR_NULL(strstr(rs_test_out, "nan"));
    char f[1200];
    snprintf(f, sizeof f, "%s/pred-vs-meas3-B2048-backward.png", dir);
    CU_ASSERT(rs_test_file_size(f) > 1000);
    snprintf(f, sizeof f, "%s/cmp0-B1024-forward.csv", dir);
    CU_ASSERT(rs_test_file_size(f) > 0);
    snprintf(f, sizeof f, "%s/pred2-B4096-forward.csv", dir);
    CU_ASSERT(rs_test_file_size(f) > 0);
    /* without --calibrated: fitted from the same traces, the same ~0 errors */
    snprintf(args, sizeof args, "validate --from-trace %s %s --save-profile %s", paths[0], paths[2], rs_test_path("saved.json"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "0.000% / 0.000%"));
    CU_ASSERT(rs_test_file_size(rs_test_path("saved.json")) > 0);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
}

/* A command that must refuse: exit 2, one line on stderr holding `needle` (the file), no output. */
static void refused(const char *args, const char *needle, const char *output) {
    const int rc = rs_test_ringsim(args);
    if (rc != 2 || !strstr(rs_test_err, needle)) fprintf(stderr, "  '%s': rc %d, stderr '%s'\n", args, rc, rs_test_err);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, needle));
    const char *nl = strchr(rs_test_err, '\n');
    CU_ASSERT(nl && nl[1] == 0);
    CU_ASSERT_EQUAL(rs_test_file_size(output), -1);
}

/* A copy of src without the lines holding `drop`, or with `from` replaced by `to` in every line. */
static void edited_copy(const char *src, const char *dst, const char *drop, const char *from, const char *to) {
    char *text = rs_test_slurp(src, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    FILE *out = fopen(dst, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (drop && strstr(line, drop)) continue;
        char *at = from ? strstr(line, from) : NULL;
        if (at) fprintf(out, "%.*s%s%s\n", (int)(at - line), line, to, at + strlen(from));
        else fprintf(out, "%s\n", line);
    }
    fclose(out);
    free(text);
}

static void test_bad_input(void) {
    char args[4096], nocomp[600], zero[600], other[600], prof[600];
    snprintf(prof, sizeof prof, "%s", rs_test_path("bad.json"));
    snprintf(nocomp, sizeof nocomp, "%s", rs_test_path("nocomp.csv"));
    snprintf(zero, sizeof zero, "%s", rs_test_path("zero.csv"));
    snprintf(other, sizeof other, "%s", rs_test_path("other.csv"));
    edited_copy(paths[1], nocomp, ",compute,", NULL, NULL);
    edited_copy(paths[1], zero, NULL, ",0,8388608,", ",0,0,"); /* the recv (and send) events' bytes: K,V at B = 2048 */
    edited_copy(paths[1], other, NULL, "# head_dim=128", "# head_dim=64");

    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s", prof, paths[0], nocomp);
    refused(args, "nocomp.csv: no compute events", prof);
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s", prof, paths[1]);
    refused(args, "W needs two sizes", prof);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, paths[1]));
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s", prof, paths[0], other);
    refused(args, "other.csv: head_dim=64, but", prof);
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s --heads 16", prof, paths[0], paths[1]);
    refused(args, "q_heads=32 in the header, but 16 was given", prof);
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s/missing.csv", prof, paths[0], rs_test_dir);
    refused(args, "missing.csv", prof);
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s", prof, paths[0], zero);
    refused(args, "zero.csv: rank 0 step 0: the recv event's byte count is 0", prof);
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s", paths[0], paths[0], paths[1]);
    refused(args, "an output never replaces an input", prof);
    /* validate: the same refusals, no profile saved and no files in the directory */
    const char *dir = rs_test_fresh_dir("badval");
    snprintf(args, sizeof args, "validate --from-trace %s %s --save-profile %s --trace-dir %s", paths[0], nocomp, prof, dir);
    refused(args, "nocomp.csv: no compute events", prof);
    snprintf(args, sizeof args, "validate --from-trace %s %s/missing.csv --trace-dir %s", paths[0], rs_test_dir, dir);
    refused(args, "missing.csv", prof);
    snprintf(args, sizeof args, "validate --from-trace %s --calibrated %s/missing.json", paths[0], rs_test_dir);
    refused(args, "missing.json", prof);
    snprintf(args, sizeof args, "ls -A %s | wc -l", dir);
    FILE *p = popen(args, "r");
    int n = -1;
    CU_ASSERT(p && fscanf(p, "%d", &n) == 1);
    if (p) pclose(p);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
}

int main(void) {
    if (rs_test_scratch("fromtrace") != 0) return 1;
    for (int i = 0; i < N_TRACES; i++)
        if (make_trace(i) != 0) return 1;
    static const rs_test_case_t cases[] = {
        {"mask kind and call shape of a step", test_step_kinds},
        {"fit recovers F_eff(B), L, W, host cost of a known profile within 1%", test_fit_recovers},
        {"one B: a backward pass fits alpha-beta; a forward one needs --latency", test_fit_one_b},
        {"validate: ~0 error with the fit, the known error with a profile off by 2x", test_validate},
        {"calibrate/validate --from-trace commands: profile, table, files", test_cli},
        {"the kernel table: known curves by call shape and mask recovered within 1%", test_fit_kernel_table},
        {"bad input: exit 2, the file named, no output", test_bad_input},
        {NULL, NULL},
    };
    const int rc = rs_test_main1("fromtrace", cases);
    rs_test_cleanup();
    return rc;
}
