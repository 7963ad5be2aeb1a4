/* test_cmd_sweep.c - `ringsim sweep` end to end: the CSV's header and a point's row - the seed's closed
 * form by hand, the calibrated closed form as `ringsim model` gives it for the same problem - and the
 * refusals; with SimGrid, fabric knobs sweep jobs of concurrent rings. */
#include <stdlib.h>
#include <string.h>

#include "cmd_test.h"

static const char header[] =
    "point,series,profile,layout,pass,causal,seq_tokens,n_ranks,block_tokens,f_per_s,w_bytes_per_s,latency_s,b_min_tokens,"
    "b_star_tokens,seed_t_comp_s,seed_t_comm_s,closed_t_comp_s,closed_t_comm_s,closed_t_step_s,closed_bound,pred_t_comp_s,"
    "pred_t_comm_s,pred_t_step_s,pred_makespan_s,pred_bound,pred_efficiency,pred_overlap_eff,sim_t_comp_s,sim_t_comm_s,"
    "sim_t_step_s,sim_makespan_s,sim_bound,sim_efficiency";

RS_TEST(test_csv_row, "the CSV's header and a point's row") {
    char args[2048], csv[600];
    snprintf(csv, sizeof csv, "%s", rs_test_path("s.csv"));
    snprintf(args, sizeof args, "sweep --block 1K,4K -N 4 --no-sim -o %s", csv);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "ringsim sweep: 2 points written to "));
    char *t = rs_test_slurp(csv, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(strncmp(t, "# ringsim-sweep=1\n", 18), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, header));
    const char *row = strstr(t, "\n0,h100-sxm/zigzag/forward/causal/N=4,h100-sxm,zigzag,forward,1,4096,4,1024,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    double v[19];
    rs_cmd_csv_numbers(row + 1, v, 19);
    /* H100-SXM: F = 989e12 (bf16), W = 450e9 x 0.822 (NVLink 4 at the rate p2p reaches), latency 3 us;
     * Llama-3-8B attention: 32 q and 8 kv heads of 128 */
    const double wl = 450e9 * 0.822;
    RS_ASSERT_REL(v[9], 989e12, 1e-15);
    RS_ASSERT_REL(v[10], wl, 1e-15);
    RS_ASSERT_REL(v[11], 3e-6, 1e-15);
    RS_ASSERT_REL(v[12], 989e12 / wl / 4, 1e-15);                      /* B_min = F c_b / (W c_f) */
    RS_ASSERT_REL(v[14], 4.0 * 1024 * 1024 * 128 * 32 / 989e12, 1e-15); /* seed T_comp: 4 B^2 d Hq / F */
    RS_ASSERT_REL(v[15], 2.0 * 1024 * 8 * 128 * 2 / wl, 1e-15);         /* seed T_comm: K,V of B tokens / W */
    RS_ASSERT_REL(v[17], 3e-6 + 2.0 * 1024 * 8 * 128 * 2 / wl, 1e-15);   /* closed T_comm: + the latency */
    /* the calibrated T_comp is ringsim model's for the same problem (S = B N) */
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("model -S 4K -N 4 -L zigzag -P forward --csv -"), 0);
    const char *m = strstr(rs_test_out, "\nzigzag,forward,4096,4,1024,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    double w[7];
    rs_cmd_csv_numbers(m + 1, w, 7);
    RS_ASSERT_REL(v[16], w[5], 1e-15);
    RS_ASSERT_REL(v[17], w[6], 1e-15);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\n# crossover series=h100-sxm/zigzag/forward/causal/N=4 b_min_tokens=668.424 b_star_tokens=0 "
                                     "pred_b=- sim_b=- exec_b=-\n"));
    /* where the rates come from, before the column line: the H100's published FlashAttention-2 curves */
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\n# rates profile=h100-sxm: attention published (kernel flash-attn-2, FlashAttention-3 paper Figures 5-6"));
    CU_ASSERT_TRUE(strstr(t, "\n# rates profile=") < strstr(t, header));
    CU_ASSERT_EQUAL(rs_cmd_lines(t), 8 + 1 + 1 + 2 + 1); /* comments, rates, header, 2 points, crossover */
    free(t);
}

RS_TEST(test_refusals, "refusals") {
    rs_cmd_expect_usage("sweep --block 64:16:x2", "ringsim sweep: --block 64:16:x2: STOP must be >= START", NULL, NULL);
    rs_cmd_expect_usage("sweep --block 64 -S 4K", "ringsim sweep: --block and --seq: give one (S = B * N)", NULL, NULL);
    rs_cmd_expect_usage("sweep -N 4 -p a,,b", "ringsim sweep: --profile a,,b: expected 1 to 16 comma-separated names", NULL, NULL);
    rs_cmd_expect_usage("sweep -N 4 x", "ringsim sweep: unexpected argument 'x' (see ringsim sweep --help)", NULL, NULL);
}

#ifdef RINGSIM_HAVE_SIM
/* ringsim sweep with fabric knobs: one row per NICs value, the worst hop at K / 8 of the NIC, the
 * efficiency growing with K up to the contention-free one; the figure when gnuplot is there. */
RS_TEST(test_job_sweep, "job_sweep") {
    char args[4096], csv[800], fig[800];
    snprintf(csv, sizeof csv, "%s", rs_test_path("cont.csv"));
    snprintf(fig, sizeof fig, "%s", rs_test_path("cont.svg"));
    const bool plot = rs_cmd_have_gnuplot();
    snprintf(args, sizeof args, "sweep -S 16K -N 4 --tp 8 --gpus-per-node 8 --inter ib-ndr --nics 1,2,4,8 -q -o %s%s%s", csv,
             plot ? " --figure " : "", plot ? fig : "");
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    char *t = rs_test_slurp(csv, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char *row = strstr(t, "\nseries,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    int rows = 0;
    double prev = 0, free_eff = 0;
    for (char *l = strchr(row + 1, '\n'); l && l[1]; l = strchr(l + 1, '\n'), rows++) {
        double v[21];
        rs_cmd_csv_numbers(l + 1, v, 21);
        RS_ASSERT_REL(v[13], (double)(1 << rows), 1e-15);         /* nics */
        RS_ASSERT_REL(v[20], (double)(1 << rows) / 8, 1e-9);       /* worst_hop_ratio */
        CU_ASSERT(v[18] > prev);                                     /* efficiency */
        prev = v[18];
        free_eff = v[19];
    }
    CU_ASSERT_EQUAL(rows, 4);
    RS_ASSERT_REL(prev, free_eff, 1e-9); /* K = G: no contention left */
    free(t);
    if (plot) CU_ASSERT(rs_cmd_contains(fig, "<svg"));
    rs_cmd_expect_usage("sweep -S 16K -N 4 --tp 2 --oversub 1,0.5", "--oversub 1,0.5: '0.5': must be >= 1", NULL, NULL);
    rs_cmd_expect_usage("sweep -S 16K -N 4 --figure x.png", "--figure draws a sweep of fabric knobs", NULL, NULL);
}
#endif

RS_TEST_MAIN(.suite = "ringsim sweep", .scratch = "cmd_sweep")
