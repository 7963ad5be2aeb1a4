/* test_study_fromtrace_validate.c - traces predicted and compared (studies/study_fromtrace_validate.c):
 * the fitted profile predicts the known traces with ~0 error, a profile off by a known factor shows
 * that factor, the files of each trace land in the directory, a profile that cannot run the problem
 * is refused naming the trace. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fromtrace_fixtures.h"
#include "harness.h"
#include "test_main.h"

/* The fitted profile predicts the traces with ~0 error; a profile of half the bandwidth and twice the
 * peak shows it: T_comp -50%, and T_comm (L + m / W) grows by m / W / (L + m / W) at each size. */
RS_TEST(test_validate, "validate: ~0 error with the fit, the known error with a profile off by 2x") {
    rs_tfit_opts_t o = fit_opts(0, N_TRACES);
    rs_err_t err = {0};
    static rs_tfit_t f;
    rs_hw_t hw;
    rs_tset_t *ts = fit_profile(&o, &f, &hw);
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

/* With a directory: per trace its predicted trace, per-step CSV and figure, named by index, B, pass. */
RS_TEST(test_files, "the files of each trace in the directory") {
    rs_tfit_opts_t o = fit_opts(2, 2);
    static rs_tfit_t f;
    rs_hw_t hw;
    rs_tset_t *ts = fit_profile(&o, &f, &hw);
    rs_tval_row_t rows[2];
    rs_err_t err = {0};
    const char *dir = rs_test_fresh_dir("files");
    CU_ASSERT_EQUAL_FATAL(rs_tval_run(ts, &hw, RS_DTYPE_BF16, dir, rows, &err), 0);
    static const char *const names[] = {"pred0-B4096-forward.csv", "cmp0-B4096-forward.csv", "pred-vs-meas0-B4096-forward.png",
                                        "pred1-B2048-backward.csv", "cmp1-B2048-backward.csv", "pred-vs-meas1-B2048-backward.png"};
    for (int i = 0; i < 6; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        CU_ASSERT(rs_test_file_size(path) > 0);
    }
    CU_ASSERT_EQUAL(rows[1].problem.pass, RS_PASS_BACKWARD);
    for (int i = 0; i < 2; i++) rs_compare_free(&rows[i].cmp);
    /* a directory that does not exist: a runtime failure */
    CU_ASSERT_EQUAL(rs_tval_run(ts, &hw, RS_DTYPE_BF16, rs_test_path("none/below"), rows, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_RUNTIME);
    for (int i = 0; i < 2; i++) rs_compare_free(&rows[i].cmp);
    rs_tset_free(ts);
}

/* A profile whose dtype has no peak cannot build the machine: bad input, "the profile: ...". */
RS_TEST(test_refused, "a profile that cannot build the machine is refused") {
    rs_tfit_opts_t o = fit_opts(3, 1); /* the backward trace: three transfer sizes */
    static rs_tfit_t f;
    rs_hw_t hw;
    rs_tset_t *ts = fit_profile(&o, &f, &hw);
    rs_tval_row_t rows[1];
    rs_err_t err = {0};
    hw.flops_per_s[RS_DTYPE_FP8] = 0;
    CU_ASSERT_EQUAL(rs_tval_run(ts, &hw, RS_DTYPE_FP8, NULL, rows, &err), -1);
    CU_ASSERT_EQUAL(strncmp(err.msg, "the profile: ", 13), 0);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_tset_free(ts);
}

RS_TEST_MAIN(.suite = "fromtrace_validate", .scratch = "fromtrace_validate", .setup = ft_setup)
