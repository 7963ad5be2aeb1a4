/* test_study_fromtrace_validate.c - traces predicted and compared (studies/study_fromtrace_validate.c):
 * the fitted profile predicts the known traces with ~0 error, a profile off by a known factor shows
 * that factor, the model's roles against the traced ones (attention like with like, merges by hand
 * under the flash-attn preset, a role the model or the trace lacks said and in no ratio), the files
 * of each trace land in the directory, a profile that cannot run the problem is refused naming the
 * trace. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fromtrace_fixtures.h"
#include "harness.h"
#include "test_main.h"

/* The attention points of c: each prediction is the traced attention less the host cost of the
 * step's received transfers (the fit takes it off the rate; the model's attention role has none),
 * within rel. */
static void expect_attn_less_host(const rs_tset_t *ts, int i, const rs_compare_t *c, double rel) {
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(rs_tset_problem(ts, i), &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    size_t n = 0;
    for (size_t k = 0; k < c->n_points; k++) {
        const rs_cmp_point_t *pt = &c->points[k];
        if (pt->metric != RS_CMP_ROLE_METRIC(RS_ROLE_ATTN) || !(pt->ref_s > 0)) continue;
        rs_step_t st;
        rs_schedule_step(s, pt->rank, pt->step, &st);
        RS_ASSERT_REL(pt->other_s, pt->ref_s - st.n_recv * HOST_S, rel);
        n++;
    }
    CU_ASSERT_EQUAL(n, c->role[RS_ROLE_ATTN].stats.n);
    CU_ASSERT(n > 0);
    rs_schedule_free(s);
}

/* Trace i with a merge role event of busy frac x its attention at every step (to the rounding of its
 * span), into path. */
static void with_merges(int i, double frac, const char *path) {
    rs_err_t err = {0};
    rs_trace_t *t = rs_trace_read_csv(paths[i], &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    const size_t n = rs_trace_role_count(t);
    for (size_t k = 0; k < n; k++) {
        rs_role_event_t r = rs_trace_roles(t)[k];
        if (r.role != RS_ROLE_ATTN) continue;
        r.role = RS_ROLE_MERGE, r.start_s = r.end_s, r.end_s += r.busy_s * frac, r.busy_s = r.end_s - r.start_s;
        CU_ASSERT_EQUAL_FATAL(rs_trace_add_role(t, &r), 0);
    }
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_csv(t, path, &err), 0);
    rs_trace_free(t);
}

/* The profile fitted from the forward traces at B = 1024 and 2048 (W needs two sizes) into hw, with
 * the flash-attn preset and merges at 1 TB/s when preset; trace 0 predicted and compared into *row. */
static void fit_and_run(bool preset, rs_hw_t *hw, rs_tval_row_t *row) {
    rs_tfit_opts_t o = fit_opts(0, 2);
    static rs_tfit_t f;
    rs_tset_t *ts = fit_profile(&o, &f, hw);
    if (preset) hw->kernels.default_impl = RS_IMPL_FLASH_ATTN, hw->kernels.merge_bw_bytes_per_s = 1e12;
    rs_tval_row_t rows[2];
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_tval_run(ts, hw, RS_DTYPE_BF16, NULL, rows, &err), 0);
    if (!preset) expect_attn_less_host(ts, 0, &rows[0].cmp, 1e-3);
    *row = rows[0];
    rs_compare_free(&rows[1].cmp);
    rs_tset_free(ts);
}

/* Trace 0 with merges of 10% of each step's attention (with_merges, into the scratch file name),
 * predicted with hw and compared into *row; the set, for the caller to free. */
static rs_tset_t *run_with_merges(const char *name, const rs_hw_t *hw, rs_tval_row_t *row) {
    static char mpath[700];
    snprintf(mpath, sizeof mpath, "%s", rs_test_path(name));
    with_merges(0, 0.1, mpath);
    static const char *mp[1];
    mp[0] = mpath;
    rs_tfit_opts_t o = fit_opts(0, 1);
    o.paths = mp;
    rs_err_t err = {0};
    rs_tset_t *ts = rs_tset_load(&o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    CU_ASSERT_EQUAL_FATAL(rs_tval_run(ts, hw, RS_DTYPE_BF16, NULL, row, &err), 0);
    return ts;
}

/* The dense model (the fitted profile's default) against the traces' roles. The traces (the walk's,
 * exported and imported) have one attention kernel per step: attn is compared, each prediction the
 * traced one less the host cost; the dense model has no merge term and the traces no merge kernel:
 * absent in both. With merges of 10% of each step's attention added to the trace, attn is unchanged
 * and merge is the trace's only, 0.1 / 1.1 of its busy time, unmatched, in the summary and in no ratio. */
RS_TEST(test_roles_dense, "validate per role, dense model: attention like with like, merges unmatched") {
    rs_hw_t hw;
    rs_tval_row_t row;
    fit_and_run(false, &hw, &row);
    const rs_compare_t *c = &row.cmp;
    CU_ASSERT_EQUAL(c->role[RS_ROLE_ATTN].status, RS_CMP_ROLE_BOTH);
    const double ratio = c->role[RS_ROLE_ATTN].ratio;
    CU_ASSERT(ratio < 1 && ratio > 0.9);
    for (int r = RS_ROLE_MERGE; r < RS_ROLE_COUNT; r++) CU_ASSERT_EQUAL(c->role[r].status, RS_CMP_ROLE_NEITHER);
    rs_compare_free(&row.cmp);
    /* the same trace with merges */
    rs_tset_t *ts = run_with_merges("merges.csv", &hw, &row);
    c = &row.cmp;
    RS_ASSERT_REL(c->role[RS_ROLE_ATTN].ratio, ratio, 1e-12);
    CU_ASSERT_EQUAL(c->role[RS_ROLE_MERGE].status, RS_CMP_ROLE_REF_ONLY);
    CU_ASSERT(isnan(c->role[RS_ROLE_MERGE].ratio));
    RS_ASSERT_REL(c->role[RS_ROLE_MERGE].ref_share, 0.1 / 1.1, 1e-9);
    FILE *fp = fopen(rs_test_path("dense.txt"), "w");
    CU_ASSERT_FATAL(fp != NULL);
    rs_tval_print(ts, &row, fp);
    fclose(fp);
    char *text = rs_test_slurp(rs_test_path("dense.txt"), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT(strstr(text, "\nmerge          0 ") != NULL);
    CU_ASSERT(strstr(text, "  model has no merge events: unmatched, in no ratio\n") != NULL);
    char line[64];
    snprintf(line, sizeof line, " %7.3f       -  merge 9.1%%\n", ratio);
    CU_ASSERT(strstr(text, line) != NULL);
    free(text);
    rs_compare_free(&row.cmp);
    rs_tset_free(ts);
}

/* The flash-attn preset with merges at 1 TB/s against the forward trace at B = 1024 (N = 4, zigzag,
 * 32 query heads of d 128, bf16: 4096 Q elements and 32 row-heads per token; docs/model.md section
 * 3a's bytes). Per rank, step 0 (a B x B call): out = block_out.to(fp32), a + 4 = 6 B per element:
 * 1024 x 4096 x 6 B = 25.165824 us; a later step whose KV owner precedes the rank (a call over all B
 * rows): a + 36 = 38 B per element and 52 B per row-head, 1024 x (4096 x 38 + 32 x 52) B = 161.087488
 * us; one whose owner follows (the second half, B/2 rows, copied back: + 8 B and + 8 B): 512 x (4096 x
 * 46 + 32 x 60) B = 97.452032 us. Over the 4 ranks: 4 step 0s, 6 steps of each other kind:
 * 1651.900416 us of predicted merges; the trace has none (said), then merges of known busy time. The
 * pass epilogue's out.to(q.dtype) (read 4, write 2 B per element: 25.165824 us a rank) is in no role:
 * a trace has it as a cast kernel (direct_copy_kernel), not a merge. */
RS_TEST(test_roles_preset, "validate per role, flash-attn preset: the model's merge cost by hand against the trace's merges") {
    rs_hw_t hw;
    rs_tval_row_t row;
    fit_and_run(true, &hw, &row);
    const rs_compare_t *c = &row.cmp;
    const double want = 1651.900416e-6;
    CU_ASSERT_EQUAL(c->role[RS_ROLE_MERGE].status, RS_CMP_ROLE_OTHER_ONLY);
    RS_ASSERT_REL(c->role[RS_ROLE_MERGE].other_busy_s, want, 1e-9);
    CU_ASSERT(isnan(c->role[RS_ROLE_MERGE].ratio));
    CU_ASSERT_EQUAL(c->role[RS_ROLE_ATTN].status, RS_CMP_ROLE_BOTH);
    rs_compare_free(&row.cmp);
    /* the trace with merges of 10% of its attention: compared, ratio = the model's / the trace's */
    rs_tset_t *ts = run_with_merges("merges-fa.csv", &hw, &row);
    c = &row.cmp;
    double traced = 0;
    const rs_trace_t *t = rs_tset_trace(ts, 0);
    for (size_t k = 0; k < rs_trace_role_count(t); k++)
        if (rs_trace_roles(t)[k].role == RS_ROLE_MERGE) traced += rs_trace_roles(t)[k].busy_s;
    CU_ASSERT_EQUAL(c->role[RS_ROLE_MERGE].status, RS_CMP_ROLE_BOTH);
    CU_ASSERT_EQUAL(c->role[RS_ROLE_MERGE].stats.n, 16);
    RS_ASSERT_REL(c->role[RS_ROLE_MERGE].ratio, want / traced, 1e-9);
    /* rank 3, step 1: the owner (2) precedes the rank */
    int seen = 0;
    for (size_t k = 0; k < c->n_points; k++)
        if (c->points[k].metric == RS_CMP_ROLE_METRIC(RS_ROLE_MERGE) && c->points[k].rank == 3 && c->points[k].step == 1) {
            RS_ASSERT_REL(c->points[k].other_s, 161.087488e-6, 1e-9);
            seen++;
        }
    CU_ASSERT_EQUAL(seen, 1);
    rs_compare_free(&row.cmp);
    rs_tset_free(ts);
}

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
    /* the prediction carries the model's roles: attn at every computing step (4 ranks x 4 forward steps) */
    char pred[1200];
    snprintf(pred, sizeof pred, "%s/%s", dir, names[0]);
    rs_trace_t *t = rs_trace_read_csv(pred, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(rs_trace_role_count(t), 16);
    CU_ASSERT(rs_trace_role_busy(t, 3, 1, RS_PASS_FORWARD, RS_ROLE_ATTN) > 0);
    rs_trace_free(t);
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
