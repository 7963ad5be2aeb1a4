/* test_plot_prep.c - each figure kind's preparation (plots/plot_prep.c) on a hand-made table: the
 * exact gnuplot variables it hands the script (rs_plot_prepare), the timeline's height
 * (plot_prepare), and the refusals with their exact messages, RS_ERR_BAD_INPUT and no variables.
 * No gnuplot runs here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "plot.h"
#include "plot_prep.h"
#include "prep_fixtures.h"
#include "test_main.h"
#include "trace.h"

static const char tcomm_head[] = "# sweep\nseries,block_tokens,b_min_tokens,b_star_tokens,seed_t_comp_s,seed_t_comm_s,"
                                 "pred_t_comp_s,pred_t_comm_s,sim_t_comp_s,sim_t_comm_s";

/* two series: refused without --series (naming both); --series h100_sxm sorted by B; the measured
 * crossover where exec's T_comp = T_comm (2048, found only after sorting); B* outside the data's B
 * range left out; the automatic title escaped */
RS_TEST(test_tcomm, "tcomm-vs-b: series, sort, measured crossover, marks in range") {
    char text[2048];
    snprintf(text, sizeof text,
             "%s,exec_t_comp_s,exec_t_comm_s\n"
             "h100_sxm,4096,1000,9000,4,1,4,1,4,1,4,2\n"
             "h100_sxm,1024,1000,9000,1,1,1,1,1,2,1,2\n"
             "other,512,10,20,1,1,1,1,,,,\n"
             "h100_sxm,2048,1000,9000,2,1,2,1,2,1,2,2\n",
             tcomm_head);
    const char *p = csv("tcomm.csv", text);
    refused(RS_PLOT_TCOMM_VS_B, p, NULL, "@: 2 series (h100_sxm, other): pick one with --series NAME");
    rs_plot_opts_t o = {.series = "h100_sxm"};
    prepared(RS_PLOT_TCOMM_VS_B, p, &o,
                                 "series='h100_sxm';bmin=1000;bstar=NaN;bx=2048;bx_label='measured';has_sim=1;has_exec=1;"
                                 "title='Ring step: compute vs transfer (h100\\_sxm)';");
    /* --series: that series' rows; B_min below its only B / 1.05 left out; no measured points */
    o = (rs_plot_opts_t){.series = "other", .title = "My_T"};
    prepared(RS_PLOT_TCOMM_VS_B, p, &o,
             "series='other';bmin=NaN;bstar=NaN;bx=NaN;bx_label='measured';has_sim=0;has_exec=0;title='My_T';");
    o.series = "nosuch";
    refused(RS_PLOT_TCOMM_VS_B, p, &o, "--series nosuch: @ has no rows of that series");
}

/* no exec columns: the simulated crossover, interpolated in log B between 1024 and 2048 where
 * log(T_comm / T_comp) goes from log 2 to -log 2: B = 1024 sqrt 2 */
RS_TEST(test_tcomm_simulated, "tcomm-vs-b: the simulated crossover interpolated") {
    char text[2048];
    snprintf(text, sizeof text, "%s\na,1024,1000,1500,1,1,1,1,1,2\na,2048,1000,1500,2,1,2,1,2,1\n", tcomm_head);
    const char *p = csv("tcomm-sim.csv", text);
    char *vars = NULL;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_plot_prepare(RS_PLOT_TCOMM_VS_B, p, NULL, &vars, &err), 0);
    char buf[128];
    CU_ASSERT_STRING_EQUAL(var(vars, "bx_label", buf, sizeof buf), "'simulated'");
    RS_ASSERT_REL(atof(var(vars, "bx", buf, sizeof buf)), 1024 * sqrt(2.0), 1e-14);
    CU_ASSERT_STRING_EQUAL(var(vars, "bstar", buf, sizeof buf), "1500");
    CU_ASSERT_STRING_EQUAL(var(vars, "has_exec", buf, sizeof buf), "0");
    free(vars);
}

RS_TEST(test_tcomm_refused, "tcomm-vs-b: refusals") {
    refused(RS_PLOT_TCOMM_VS_B, csv("t1.csv", "# sweep\nseries,block_tokens,b_min_tokens\na,1,1\n"), NULL,
            "@:2: expected a column named 'b_star_tokens' in the header line");
    char head[512];
    snprintf(head, sizeof head, "%s\n", tcomm_head);
    REFUSED_ROWS(RS_PLOT_TCOMM_VS_B, head,
                 {"", "@:3: expected at least one data row"},
                 {"a,0,1,1,1,1,1,1,,\n", "@:3: expected block_tokens > 0, got '0'"},
                 {"a,1,1,1,abc,1,1,1,,\n", "@:3: expected a number in column 'seed_t_comp_s', got 'abc'"},
                 {"a,1,1,1,1,inf,1,1,,\n", "@:3: expected a number in column 'seed_t_comm_s', got 'inf'"},
                 {"a,1,1,1,1,1,0,1,,\n", "@: series 'a' has no positive pred_t_comp_s/pred_t_comm_s to plot"},
                 {"a,1,nan,1,1,1,1,1,,\n", "@: series 'a': expected b_min_tokens > 0"});
}

/* a trace with 12 ranks in the forward pass (rank 11 only receives): the figure grows to 160 + 60 x
 * 12 = 880 px; both passes refused without --pass; without the problem's keys the title is the source, the pass and the hardware */
RS_TEST(test_timeline, "timeline: ranks, height, title, pass") {
    const rs_plot_opts_t fwd = {.pass = "forward"};
    const char *p = prepared_csv(RS_PLOT_TIMELINE, "trace.csv", "# ringsim-trace=1\n# source=model\n# hw=h100_sxm\n"
                                 "source,rank,step,pass,kind,start_s,end_s,flops,bytes,peer\n"
                                 "model,0,0,forward,compute,0,0.001,1,0,-1\n"
                                 "model,0,0,forward,send,0,0.001,0,8,11\n"
                                 "model,11,0,forward,recv,0,0.001,0,8,0\n"
                                 "model,0,0,forward,step,0,0.001,0,0,-1\n"
                                 "model,2,0,backward,compute,0,0.001,1,0,-1\n", &fwd,
                                 "pass_sel='forward';n_ranks=12;title='model: forward pass, h100\\_sxm';");
    refused(RS_PLOT_TIMELINE, p, NULL,
            "@: events of the forward and the backward pass: pick one with --pass forward or --pass backward");
    plot_vars_t v = {0};
    int height = 0;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(plot_prepare(RS_PLOT_TIMELINE, p, &fwd, &v, &height, &err), 0);
    CU_ASSERT_EQUAL(height, 880);
    free(v.buf);
    rs_plot_opts_t o = {.pass = "backward"};
    refused(RS_PLOT_TIMELINE, p, &o,
            "@: expected compute, send, recv and step events in the backward pass (N = 1 has no transfers to draw)");
    o.pass = "sideways";
    refused(RS_PLOT_TIMELINE, p, &o, "--pass sideways: expected forward or backward");
    refused(RS_PLOT_TIMELINE, csv("trace0.csv", "# ringsim-trace=1\n# source=model\n"
                                                "source,rank,step,pass,kind,start_s,end_s,flops,bytes,peer\n"),
            NULL, "@: expected at least one event to draw");
}

/* a trace with its problem (rs_trace_meta_problem): the title names layout, pass, mask, S and N;
 * 2 ranks keep the 750 px minimum */
RS_TEST(test_timeline_problem, "timeline: the problem in the title") {
    rs_trace_t *t = rs_trace_create("sim");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    const rs_problem_t pb = rs_test_problem(2, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    CU_ASSERT_EQUAL(rs_trace_meta_problem(t, &pb), 0);
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < RS_EV_KIND_COUNT; k++) {
            const rs_event_t ev = {.rank = r, .step = 0, .pass = RS_PASS_BACKWARD, .kind = (rs_event_kind_t)k,
                                   .peer = k == RS_EV_SEND || k == RS_EV_RECV ? 1 - r : -1, .start_s = 0, .end_s = 1e-3};
            CU_ASSERT_EQUAL(rs_trace_add(t, &ev), 0);
        }
    const char *p = rs_test_path("trace-pb.csv");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_csv(t, p, &err), 0);
    rs_trace_free(t);
    prepared(RS_PLOT_TIMELINE, p, NULL, "pass_sel='backward';n_ranks=2;title='sim: zigzag backward, causal, S = 2048, N = 2';");
    plot_vars_t v = {0};
    int height = 0;
    CU_ASSERT_EQUAL(plot_prepare(RS_PLOT_TIMELINE, p, NULL, &v, &height, &err), 0);
    CU_ASSERT_EQUAL(height, 750);
    free(v.buf);
}

RS_TEST(test_layout_busy, "layout-busy: times, title") {
    const char *p = prepared_csv(RS_PLOT_LAYOUT_BUSY, "busy.csv", "# busy\nrank,contiguous,striped,zigzag\n0,1,2,3\n1,2,2,2\n",
                                 NULL, "");
    rs_plot_opts_t o = {.title = "busy 'B'"};
    prepared(RS_PLOT_LAYOUT_BUSY, p, &o, "title='busy ''B''';");
    REFUSED_ROWS(RS_PLOT_LAYOUT_BUSY, "rank,contiguous,striped,zigzag\n",
                 {"0,1,-1,1\n", "@:2: expected a time >= 0 in column 'striped', got '-1'"},
                 {"0,1,1,nan\n", "@:2: expected a time >= 0 in column 'zigzag', got 'nan'"},
                 {"", "@:2: expected at least one data row"});
}

/* N varies: x = n_ranks, one line per profile; simulated points only when every line has them;
 * against B each (profile, N) is a line of its own (N makes B unique within a line) */
RS_TEST(test_scaling, "scaling: x, profiles, simulated points") {
    const char *p = prepared_csv(RS_PLOT_SCALING, "scaling.csv",
                                 "profile,n_ranks,block_tokens,pred_t_step_s,pred_overlap_efficiency,sim_t_step_s,sim_overlap_efficiency\n"
                                 "h100,2,1024,1,0.5,1,0.5\nh100,4,1024,2,0.5,2,0.5\nmi300x,2,1024,1,0.5,,\n", NULL,
                                 "keycols='profile';lines='h100 mi300x';titles='h100 mi300x';xcol='n_ranks';"
                                 "col_step='pred_t_step_s';col_eff='pred_overlap_efficiency';col_sim_step='sim_t_step_s';col_sim_eff='sim_overlap_efficiency';has_sim=0;"
                                 "title='Step time and overlap efficiency vs ranks N';");
    rs_plot_opts_t o = {.x = "block_tokens"};
    prepared(RS_PLOT_SCALING, p, &o,
             "keycols='profile n_ranks';lines='h100|2 h100|4 mi300x|2';titles='h100/N=2 h100/N=4 mi300x/N=2';"
             "xcol='block_tokens';col_step='pred_t_step_s';col_eff='pred_overlap_efficiency';col_sim_step='sim_t_step_s';col_sim_eff='sim_overlap_efficiency';has_sim=0;"
             "title='Step time and overlap efficiency vs block size B';");
    prepared_csv(RS_PLOT_SCALING, "scaling-b.csv",
                 "profile,n_ranks,block_tokens,pred_t_step_s,pred_overlap_efficiency,sim_t_step_s,sim_overlap_efficiency\n"
                 "h100,2,1024,1,0.5,1,0.5\nh100,2,2048,2,0.5,2,0.5\n", NULL,
                 "keycols='profile';lines='h100';titles='h100';xcol='block_tokens';col_step='pred_t_step_s';col_eff='pred_overlap_efficiency';col_sim_step='sim_t_step_s';col_sim_eff='sim_overlap_efficiency';has_sim=1;"
                 "title='Step time and overlap efficiency vs block size B';");
    o.x = "seq";
    refused(RS_PLOT_SCALING, p, &o, "--x seq: expected n_ranks or block_tokens");
    REFUSED_ROWS(RS_PLOT_SCALING, "profile,n_ranks,block_tokens,pred_t_step_s,pred_overlap_efficiency\n",
                 {"h100,2,1024,1,0.5\nh100,2,1024,2,0.5\n", "@: expected n_ranks or block_tokens to vary across rows"},
                 {"h 100,2,1024,1,0.5\n", "@:2: expected a profile name without spaces or quotes, got 'h 100'"},
                 {"a,2,1024,1,0.5\nb,4,1024,0,0.5\n", "@: series b has no positive pred_t_step_s"});
}

/* the profiles as they come (a profile again after another is listed again) */
RS_TEST(test_maxctx, "maxctx: profiles in order") {
    prepared_csv(RS_PLOT_MAXCTX, "maxctx.csv", "profile,n_ranks,max_seq_tokens\na,1,100\na,2,200\nb,1,50\nb,2,90\n", NULL,
                 "profiles='a b';profiles_t='a b';");
    rs_plot_opts_t o = {.title = "Max"};
    prepared_csv(RS_PLOT_MAXCTX, "maxctx2.csv", "profile,n_ranks,max_seq_tokens\na,1,100\nb,1,50\na,2,200\n", &o,
                 "profiles='a b a';profiles_t='a b a';title='Max';");
    REFUSED_ROWS(RS_PLOT_MAXCTX, "profile,n_ranks,max_seq_tokens\n",
                 {"a'b,1,100\n", "@:2: expected a profile name without spaces or quotes, got 'a'b'"},
                 {"a,1,x\n", "@:2: expected a number in column 'max_seq_tokens', got 'x'"});
}

/* each series once, in order; x = the column that varies (nics unless only oversub does) */
RS_TEST(test_contention, "contention: series, x") {
    const char *p = prepared_csv(RS_PLOT_CONTENTION, "cont.csv",
                                 "series,nics,oversub,balance_efficiency,balance_efficiency_free\ns1,1,1,0.5,0.9\ns1,2,1,0.6,0.9\n"
                                 "s2,1,2,0.4,0.9\ns2,2,2,0.5,0.9\n", NULL,
                                 "series='s1 s2';series_t='s1 s2';xcol='nics';col_eff='balance_efficiency';col_eff_free='balance_efficiency_free';"
                                 "title='Concurrent rings vs NICs per node';");
    const char *q = prepared_csv(RS_PLOT_CONTENTION, "cont2.csv",
                                 "series,nics,oversub,balance_efficiency,balance_efficiency_free\ns1,1,1,0.5,0.9\ns1,1,2,0.6,0.9\n", NULL,
                                 "series='s1';series_t='s1';xcol='oversub';col_eff='balance_efficiency';col_eff_free='balance_efficiency_free';"
                                 "title='Concurrent rings vs spine oversubscription';");
    rs_plot_opts_t o = {.x = "nics", .title = "C"};
    prepared(RS_PLOT_CONTENTION, q, &o, "series='s1';series_t='s1';xcol='nics';col_eff='balance_efficiency';col_eff_free='balance_efficiency_free';title='C';");
    o.x = "ranks";
    refused(RS_PLOT_CONTENTION, p, &o, "--x ranks: expected nics or oversub");
    refused(RS_PLOT_CONTENTION, csv("cont3.csv", "series,nics,oversub,balance_efficiency,balance_efficiency_free\nleaf spine,1,1,0.5,0.9\n"),
            NULL, "@:2: expected a series name without spaces or quotes, got 'leaf spine'");
}

/* one line per series and variant with a TTFT > 0 (empty cells: the variant cannot run), in series
 * then variant order: colour by series, dash by variant (the key lists each once: snames, vused),
 * a line per series and P where the CSV has several P;
 * the ranges with 25% margins */
RS_TEST(test_ttft, "ttft: lines per series and variant, ranges") {
    static const char head[] = "series,context_tokens,ttft_pass_kv_s,ttft_pass_q_s,ttft_ulysses_s,ttft_usp_s\n";
    char text[512];
    snprintf(text, sizeof text, "%sh:n1,1000,0.5,0.4,,\nh:n1,4000,2,1.5,,0.8\ng:n2,2000,1,,,\n", head);
    prepared_csv(RS_PLOT_TTFT, "ttft.csv", text, NULL,
                 "pser='h:n1 h:n1 h:n1 g:n2';pcol='ttft_pass_kv_s ttft_pass_q_s ttft_usp_s ttft_pass_kv_s';"
                 "snames='h:n1 g:n2';vused='1 2 4';pdash='1 2 4 1';pcolor='1 1 1 2';by_p=0;"
                 "xmin=800;xmax=5000;ymin=0.32000000000000001;ymax=2.5;");
    /* two cached P in one series: a line per series and P (TTFT depends on both, not on P + T) */
    static const char headp[] = "series,cached_tokens,context_tokens,ttft_pass_kv_s,ttft_pass_q_s,ttft_ulysses_s,ttft_usp_s\n";
    snprintf(text, sizeof text, "%sh:n1,100,1000,0.5,,,\nh:n1,100,4000,2,,,\nh:n1,900,1000,0.7,,,\nh:n1,900,4000,2.5,,,\n", headp);
    prepared_csv(RS_PLOT_TTFT, "ttft-p.csv", text, NULL,
                 "pser='h:n1|100 h:n1|900';pcol='ttft_pass_kv_s ttft_pass_kv_s';snames='h:n1/P=100 h:n1/P=900';vused='1';"
                 "pdash='1 1';pcolor='1 2';by_p=1;xmin=800;xmax=5000;ymin=0.40000000000000002;ymax=3.125;");
    REFUSED_ROWS(RS_PLOT_TTFT, head,
                 {"h:n1,1024,0.5,,,\nh:n1,2048,-1,,,\n",
                  "@:3: expected a TTFT in (0, 1e30) s (or empty) in column 'ttft_pass_kv_s', got '-1'"},
                 {"h:n1,0,0.5,,,\n", "@:2: expected context_tokens in (0, 1e30), got '0'"},
                 {"\"h\",1,0.5,,,\n", "@:2: expected a series name without spaces or quotes, got '\"h\"'"},
                 {"h:n1,1,,,,\n", "@: expected a TTFT > 0 in at least one row"});
}

/* the series with a crossing, once each; r from the first row; the P range with 25% margins */
RS_TEST(test_pass_boundary, "pass-boundary: series with a crossing, ratio, range") {
    static const char head[] = "series,cached_tokens,cross_tokens,comm_bound_ratio\n";
    char text[512];
    snprintf(text, sizeof text, "%sa:n1,1000,0,0.5\na:n1,2000,300,0.25\nb:n2,4000,0,0.5\nc:n1,8000,100,0.5\na:n1,3000,400,0.5\n",
             head);
    prepared_csv(RS_PLOT_PASS_BOUNDARY, "bound.csv", text, NULL,
                 "series='a:n1 c:n1';series_t='a:n1 c:n1';ratio=0.5;pmin=800;pmax=10000;");
    REFUSED_ROWS(RS_PLOT_PASS_BOUNDARY, head,
                 {"h:n1,4096,0,0.066\n", "@: expected a crossing (cross_tokens > 0) in at least one row"},
                 {"h:n1,4096,1,0\n", "@:2: expected comm_bound_ratio in (0, 1e30), got '0'"},
                 {"h:n1,1e31,1,1\n", "@:2: expected cached_tokens in (0, 1e30), got '1e31'"});
}

/* an absent file and an unknown kind are refused input as well */
RS_TEST(test_refused_input, "unknown kind, absent file") {
    char *vars = NULL;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_plot_prepare(RS_PLOT_KIND_COUNT, rs_test_path("busy.csv"), NULL, &vars, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "unknown figure kind");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(rs_plot_prepare(RS_PLOT_SCALING, rs_test_path("absent.csv"), NULL, &vars, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "absent.csv: cannot read"));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_PTR_NULL(vars);
}

RS_TEST_MAIN(.suite = "plot_prep", .scratch = "plot_prep", .keep_failed = true)
