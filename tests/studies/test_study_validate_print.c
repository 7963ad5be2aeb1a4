/* test_study_validate_print.c - the validation study's tables (studies/study_validate_print.c) on a
 * planted state: the refit's tables (per-rank factors, F_eff, transfers and overlap, the kernel
 * table at the sweep's B) and a configuration's summary (per-B rows, errors over the sweep, the
 * held-out row), line by line; the crossover in words. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "setup.h"
#include "studies_fixtures.h"
#include "study_validate_state.h"
#include "test_main.h"

static rs_validate_in_t in;
static rs_exec_job_t job = {.n_ranks = 2, .n_procs = 2, .launch = "threads"};
static val_t v;

/* A state of one pass and one configuration (zigzag forward causal, 2/2 heads) at B = 8, 16. */
static void planted(void) {
    memset(&v, 0, sizeof v);
    rs_validate_defaults(&in);
    in.n_b = 2, in.b[0] = 8, in.b[1] = 16;
    v.in = &in, v.job = &job, v.mode = "threads", v.rounds = 1, v.np = 1, v.nc = 1, v.cores = 4;
    snprintf(v.sim_note, sizeof v.sim_note, "not built");
    v.out = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(v.out);
    rs_problem_t p;
    rs_setup_measure_problem(&p);
    p.layout = RS_LAYOUT_ZIGZAG, p.causal = true;
    v.ps[0].prob = p;
    rs_tier_t tier = {"t", 1e9, 1e-6, {0, 0, 0}, 0};
    v.ps[0].m = rs_machine_figures("t", RS_DTYPE_FP32, 2e9, tier);
    v.ps[0].m.cal.n_eff = 2;
    v.ps[0].m.cal.eff[0] = (rs_eff_point_t){8, 0.5}, v.ps[0].m.cal.eff[1] = (rs_eff_point_t){16, 1};
}

/* What was printed since planted() (malloc'd). */
static char *printed(void) { return rs_test_read_back(v.out); }

RS_TEST(test_refit_tables, "the refit's tables, line by line") {
    planted();
    const double fr[2] = {1, 1.2}, kt[4] = {1, 1.1, 2, 2.6}, fastest[2] = {1, 2};
    rs_val_print_rank_factors(&v, &v.ps[0], fr, kt, fastest);
    rs_val_print_eff(&v, &v.ps[0]);
    rs_calib_t *c = &v.ps[0].calib;
    c->n_ov = 1, c->ov[0] = (rs_calib_overlap_t){64, 1000, 2, 2e-3, 3e-3, 0, 5e-3, 0, 0.5, 1.5, 0, 0};
    c->n_sizes = 1, c->sizes[0] = 1000, c->t_msg_s[0] = 1.5e-3;
    c->latency_s = 1e-6, c->bw_bytes_per_s = 2e9, c->fit_err_max = 0.05, c->host_fit_err = 0.1;
    c->model.host_s_per_xfer = 1e-6, c->model.host_s_per_byte = 2e-10;
    rs_val_print_overlap(&v, &v.ps[0]);
    rs_kcurve_t full = {.n = 2};
    full.pt[0].q_tokens = 8, full.pt[1].q_tokens = 16;
    double rate[RS_KMASK_COUNT][RS_KMAX_POINTS] = {{1e9, 2e9}, {0.5e9, 1e9}, {0.25e9, 0.5e9}};
    rs_val_print_kernel_rates(&v, &v.ps[0], &full, rate);
    char *out = printed();
    CU_ASSERT_STRING_EQUAL(out,
        "# forward: per-rank kernel time over the fastest rank's (median over the sweep): rank 0 x1.000 rank 1 x1.200; at each B "
        "(the stragglers of that B's model):\n"
        "#   B      8: rank 0 x1.000 rank 1 x1.100\n"
        "#   B     16: rank 0 x1.000 rank 1 x1.300\n"
        "# forward: F_eff(B) from kernel samples interleaved with the runs:\n#      B      GFLOP/s\n"
        "       8        1.000\n"
        "      16        2.000\n"
        "# forward: transfers alone and overlap points from samples interleaved with the runs (transport, host cost and curve "
        "fitted again; t_xfer_s: fresh, reused_s: rotating as the ring's; the step's receive t_end_s\n"
        "# with rotating buffers, t_end_fresh_s with fresh transfers):\n"
        "#      B flows        bytes    t_xfer_s   reused_s      t_comp_s  t_comp_busy_s        t_end_s  t_end_fresh_s   eta_pt\n"
        "      64     2         1000      0.0015          -         0.002          0.003          0.005              -    0.500\n"
        "# alpha-beta fit: latency 1e-06 s, bandwidth 2 GB/s (max fit error 5.0%); host cost 1e-06 s per flow + 2e-10 s/byte "
        "(median |error| of the busy compute 10.0%)\n"
        "# forward: kernel table at the sweep's B from samples interleaved with the runs (useful GFLOP/s; causal and shifted from "
        "their own calls, full from F_eff(B)):\n#      B         full       causal      shifted\n"
        "       8        1.000        0.500        0.250\n"
        "      16        2.000        1.000        0.500\n");
    free(out);
}

/* One configuration: its per-B rows, the |errors| over the sweep, one round (no spread), no
 * simulator, and its row of the held-out table. */
RS_TEST(test_configuration, "a configuration's summary and its held-out row") {
    planted();
    val_cfg_t *cf = &v.cs[0];
    cf->prob = v.ps[0].prob;
    const double me[2][5] = {{1e-3, 2e-3, 2e-3, 0.01, 1.5e-3}, {4e-3, 4e-3, 4e-3, 0.04, 4e-3}};
    const double pr[2][5] = {{1.1e-3, 1.8e-3, 2.2e-3, 0.011, 1.2e-3}, {4e-3, 3e-3, 4e-3, 0.03, 4e-3}};
    for (int i = 0; i < 2; i++) {
        rs_trace_summary_t *m = &cf->rows[i].meas, *p = &cf->rows[i].pred;
        m->t_comp_s = me[i][0], m->t_comm_s = me[i][1], m->t_step_s = me[i][2], m->makespan_s = me[i][3];
        m->t_comp_xfer_s = me[i][4], m->t_comp_alone_s = me[i][0];
        p->t_comp_s = pr[i][0], p->t_comm_s = pr[i][1], p->t_step_s = pr[i][2], p->makespan_s = pr[i][3];
        p->t_comp_xfer_s = pr[i][4], p->t_comp_alone_s = pr[i][0];
    }
    cf->mk_err[0] = 0.1, cf->mk_err[1] = -0.25;
    static double e[RS_CMP_METRIC_COUNT][2];
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) e[k][0] = 0.2, e[k][1] = 0.1, cf->ec[k] = e[k], cf->nec[k] = 2;
    cf->spread.mk = cf->mk_spread;
    rs_val_print(&v);
    char *out = printed();
    const char *head = "# ringsim validate: N=2 heads=2/2 d=128 batch=1 zigzag forward causal, reps 7 (warmup 1), progress "
                       "threads\n# profile: F_peak 2 GFLOP/s, W 1 GB/s, L 1e-06 s, 2 eff points; ";
    CU_ASSERT_EQUAL(strncmp(out, head, strlen(head)), 0);
    static const char *const lines[] = {
        "\n       8       0.001      0.0011  +0.100       0.002      0.0018  -0.100       0.002      0.0022  +0.100        0.01       "
        "0.011  +0.100        -\n      16       0.004       0.004  +0.000       0.004       0.003  -0.250       0.004       0.004  "
        "+0.000        0.04        0.03  -0.250        -\n",
        "\n  t_comp          2    0.150    0.200    0.200\n  t_comm          2    0.150    0.200    0.200\n",
        "\n  makespan        2    0.175    0.250    0.250\n",
        "\n# the measurement's own spread: one round, nothing to compare it with (--rounds 2 or more)\n",
        "\n# simulator: not run (not built)\n",
        "\n   2     4 zigzag     forward  causal       2/2 held-out   0.150   0.200   0.150   0.200   0.150   0.200   0.175   0.250 ",
        NULL,
    };
    rs_test_expect_all(out, lines);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "       -       -       -       -\n")); /* the spread columns of one round */
    CU_ASSERT_PTR_NULL(strstr(out, "nan"));
    free(out);
}

RS_TEST(test_crossover_text, "the crossover in words") {
    char buf[96];
    CU_ASSERT_STRING_EQUAL(rs_validate_crossover_text(64.23, 8, 1024, buf, sizeof buf), "B = 64.23");
    CU_ASSERT_STRING_EQUAL(rs_validate_crossover_text(NAN, 8, 1024, buf, sizeof buf), "not reached in the swept range (B = 8..1024)");
}

RS_TEST_PROGRAM("validate_print")
