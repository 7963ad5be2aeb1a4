/* fromtrace_fixtures.c - the traces of a known profile the tests of the --from-trace studies read
 * (fromtrace_fixtures.h). */
#include "fromtrace_fixtures.h"

#include <stdio.h>
#include <string.h>

#include "cost.h"
#include "harness.h"
#include "import.h"
#include "test_main.h"

const int64_t blocks[N_TRACES] = {1024, 2048, 4096, 2048};
const rs_pass_t passes[N_TRACES] = {RS_PASS_FORWARD, RS_PASS_FORWARD, RS_PASS_FORWARD, RS_PASS_BACKWARD};
const double effs[3] = {0.6, 0.8, 0.95}; /* at B = 1024, 2048, 4096 */
char paths[N_TRACES][600];
const char *path_ptr[N_TRACES];

double known_eff(int64_t B) { return B == 1024 ? effs[0] : B == 2048 ? effs[1] : effs[2]; }

static rs_machine_t known_machine(void) {
    rs_tier_t tier = {"known", W_BPS, L_S, {0, 0, 0}, 0};
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
int make_trace(int i) {
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
char kpaths[N_KTRACES][600];
const char *kpath_ptr[N_KTRACES];
const known_curve_t known_curves[4] = {
    {RS_PASS_FORWARD, RS_KMASK_FULL, 6,
     {{512, 1024, 150e12}, {1024, 512, 165e12}, {1024, 2048, 205e12}, {2048, 1024, 215e12}, {2048, 4096, 240e12}, {4096, 2048, 252e12}}},
    {RS_PASS_FORWARD, RS_KMASK_CAUSAL, 3, {{1024, 1024, 110e12}, {2048, 2048, 160e12}, {4096, 4096, 215e12}}},
    {RS_PASS_BACKWARD, RS_KMASK_FULL, 6,
     {{512, 1024, 90e12}, {1024, 512, 95e12}, {1024, 2048, 130e12}, {2048, 1024, 140e12}, {2048, 4096, 170e12}, {4096, 2048, 175e12}}},
    {RS_PASS_BACKWARD, RS_KMASK_CAUSAL, 3, {{1024, 1024, 60e12}, {2048, 2048, 100e12}, {4096, 4096, 140e12}}},
};

static rs_machine_t known_kernel_machine(void) {
    rs_tier_t tier = {"known", W_BPS, L_S, {0, 0, 0}, 0};
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
    m.host_call_given = true, m.host_call_s = 0; /* nor the preset's host calls */
    return m;
}

/* Forward and backward traces of the known kernel machine at B = 1024, 2048, 4096. */
int make_kernel_traces(void) {
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
void expect_known_curves(const rs_kernel_table_t *t) {
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

rs_tfit_opts_t fit_opts(int first, int n) {
    rs_tfit_opts_t o;
    rs_tfit_opts_default(&o);
    o.paths = path_ptr + first, o.n_paths = n;
    return o;
}

rs_tset_t *fit_traces(const rs_tfit_opts_t *o, rs_tfit_t *f) {
    rs_err_t err = {0};
    rs_tset_t *ts = rs_tset_load(o, &err);
    if (!ts) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    const int rc = rs_tfit_run(ts, o, f, &err);
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return ts;
}

int ft_setup(void) {
    for (int i = 0; i < N_TRACES; i++)
        if (make_trace(i) != 0) return 1;
    return 0;
}

rs_tset_t *fit_profile(const rs_tfit_opts_t *o, rs_tfit_t *f, rs_hw_t *hw) {
    rs_tset_t *ts = fit_traces(o, f);
    rs_tfit_to_hw(f, "fitted", "test", hw);
    return ts;
}
