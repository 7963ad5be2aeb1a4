/* test_study_fromtrace_fit.c - the fit of a profile to traces (studies/study_fromtrace_fit.c): on
 * traces of a known profile (fromtrace_fixtures.h) it recovers F_eff(B), L, W and the host cost
 * within 1%, alpha-beta from one backward trace, W alone with the latency given, and the kernel
 * curves by call shape and mask; the refusal of one transfer size without --latency names the file. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fromtrace_fixtures.h"
#include "harness.h"
#include "test_main.h"

/* The fit recovers the known profile within 1%. */
RS_TEST(test_fit_recovers, "fit recovers F_eff(B), L, W, host cost of a known profile within 1%") {
    rs_tfit_opts_t o = fit_opts(0, N_TRACES);
    static rs_tfit_t f;
    rs_tset_t *ts = fit_traces(&o, &f);
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
RS_TEST(test_fit_one_b, "one B: a backward pass fits alpha-beta; a forward one needs --latency") {
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

/* The kernel table recovers the known curves by call shape and mask. */
RS_TEST(test_fit_kernel_table, "the kernel table: known curves by call shape and mask recovered within 1%") {
    CU_ASSERT_EQUAL_FATAL(make_kernel_traces(), 0);
    rs_tfit_opts_t o;
    rs_tfit_opts_default(&o);
    o.paths = kpath_ptr, o.n_paths = N_KTRACES;
    static rs_tfit_t f;
    rs_tset_t *ts = fit_traces(&o, &f);
    CU_ASSERT_EQUAL(f.one_shape, 0u);
    expect_known_curves(&f.kernels);
    rs_tset_free(ts);

}

/* The profile of the fit: F_peak for its dtype, L and W, the calibration, the kernel table. */
RS_TEST(test_to_hw, "the fit's profile") {
    rs_tfit_opts_t o = fit_opts(0, N_TRACES);
    static rs_tfit_t f;
    rs_tset_t *ts = fit_traces(&o, &f);
    rs_hw_t hw;
    rs_tfit_to_hw(&f, "fitted", "a note", &hw);
    CU_ASSERT_STRING_EQUAL(hw.name, "fitted");
    CU_ASSERT_EQUAL(hw.flops_per_s[RS_DTYPE_BF16], f.calib.flops_peak);
    CU_ASSERT_EQUAL(hw.intra.latency_s, f.calib.latency_s);
    CU_ASSERT_EQUAL(hw.intra.bw_bytes_per_s, f.calib.bw_bytes_per_s);
    CU_ASSERT_EQUAL(hw.cal.n_eff, 3);
    CU_ASSERT_EQUAL(hw.devices_per_node, 4);
    CU_ASSERT_EQUAL(hw.kernels.n_kernels, f.kernels.n_kernels);
    rs_tset_free(ts);
}

RS_TEST_MAIN(.suite = "fromtrace_fit", .scratch = "fromtrace_fit", .setup = ft_setup)
