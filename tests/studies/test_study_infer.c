/* test_study_infer.c - the inference planning study (studies/study_infer.c), in the library: its CSV
 * is rs_infer_point's plan of each (candidate, nodes, T, P), the parallel efficiency against the
 * list's first node count; a budget's CSV is the budget module's entries in rank order; refusals are
 * bad input with their messages: too many points, a boundary without a cached prefix, an unknown
 * candidate, a decode ranking without a decode batch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "plot.h"
#include "study_infer.h"
#include "studies_fixtures.h"
#include "test_main.h"

RS_TEST(test_defaults, "defaults") {
    rs_infer_in_t in;
    rs_infer_defaults(&in);
    CU_ASSERT_STRING_EQUAL(in.profiles, "h100-sxm");
    CU_ASSERT_EQUAL(in.n_nodes, 1);
    CU_ASSERT_EQUAL(in.nodes[0], 1);
    CU_ASSERT_EQUAL(in.new_tokens[0], in.config.new_tokens);
    CU_ASSERT_EQUAL(in.cached[0], 0);
}

/* Run the study *in into the scratch file csv, then build its default candidate (h100-sxm, bf16) as the
 * study builds it. */
static void run_study(rs_infer_in_t *in, const char *csv, rs_hw_t *hw, rs_machine_t *m) {
    in->csv = rs_test_path(csv);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_study_infer(in, &err), 0);
    rs_machine_spec_t spec;
    rs_machine_spec_default(&spec);
    spec.dtype = RS_DTYPE_BF16;
    CU_ASSERT_EQUAL_FATAL(rs_machine_spec_profile(&spec, hw, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_spec_build(&spec, hw, 1, m, &err), 0);
}

/* Nodes 1, 2 at T = 32K: each row's TTFT is rs_infer_point's best option; the efficiency of 2 nodes
 * is TTFT(1) / (2 TTFT(2)). */
RS_TEST(test_csv_is_the_plan, "the CSV is rs_infer_point's plan, the parallel efficiency") {
    rs_infer_in_t in;
    RS_TEST_PLANNING_IN(&in, rs_infer_defaults);
    in.n_nodes = 2, in.nodes[1] = 2, in.new_tokens[0] = 32768;
    rs_hw_t hw;
    rs_machine_t m;
    run_study(&in, "infer.csv", &hw, &m);
    rs_err_t err = {0};
    rs_table_t t;
    CU_ASSERT_EQUAL_FATAL(rs_table_read(in.csv, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(t.n_rows, 2);
    const int ct = rs_table_col(&t, "ttft_s"), cn = rs_table_col(&t, "nodes"), ce = rs_table_col(&t, "parallel_eff");
    CU_ASSERT_FATAL(ct >= 0 && cn >= 0 && ce >= 0);
    double ttft[2];
    for (size_t i = 0; i < 2; i++) {
        rs_infer_config_t c = in.config;
        c.nodes = in.nodes[i], c.new_tokens = 32768, c.cached_tokens = 0;
        static rs_infer_point_t pt;
        CU_ASSERT_EQUAL_FATAL(rs_infer_point(&c, &hw, &m, &pt, &err), 0);
        CU_ASSERT_FATAL(pt.best >= 0);
        ttft[i] = strtod(t.cells[i][ct], NULL);
        CU_ASSERT_EQUAL(ttft[i], pt.opt[pt.best].ttft_s);
        CU_ASSERT_EQUAL(strtoll(t.cells[i][cn], NULL, 10), in.nodes[i]);
    }
    CU_ASSERT_EQUAL(strtod(t.cells[0][ce], NULL), 1);
    RS_ASSERT_REL(strtod(t.cells[1][ce], NULL), ttft[0] / (2 * ttft[1]), 1e-15);
    rs_table_free(&t);
    fclose(in.out);
}

/* A budget of 16 devices for llama3-8b at T = 32K, two layouts, a price: the CSV holds every split in
 * the order rs_budget_serve_sort gives the entries of rs_budget_serve_add, each with its cost per
 * prefill; --rank decode without a decode batch is refused, and nothing is written. */
RS_TEST(test_budget_csv, "the budget's CSV is rs_budget_serve_add's entries in rank order, with the cost per prefill") {
    rs_infer_in_t in;
    RS_TEST_PLANNING_IN(&in, rs_infer_defaults);
    in.new_tokens[0] = 32768, in.gpus = 16;
    in.n_layouts = 2, in.layouts[0] = RS_LAYOUT_CONTIGUOUS, in.layouts[1] = RS_LAYOUT_ZIGZAG;
    in.n_prices = 1, in.prices[0] = (rs_plan_price_t){"", 2.0, "2"};
    rs_hw_t hw;
    rs_machine_t m;
    run_study(&in, "budget.csv", &hw, &m);
    rs_err_t err = {0};
    hw.price_per_device_hour = 2;
    rs_infer_config_t c = in.config;
    c.new_tokens = 32768;
    rs_budget_serving_t b = {0};
    CU_ASSERT_EQUAL_FATAL(rs_budget_serve_add(&b, &(rs_budget_cand_t){0, &hw, &m}, &c, &(rs_budget_ask_t){16, in.layouts, 2}, &err), 0);
    rs_budget_serve_sort(&b, RS_BUDGET_BY_TTFT);
    rs_table_t t;
    CU_ASSERT_EQUAL_FATAL(rs_table_read(in.csv, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(t.n_rows, (size_t)b.n);
    CU_ASSERT(b.n > 8);
    const int ct = rs_table_col(&t, "ttft_s"), cc = rs_table_col(&t, "usd_per_prefill"), cp = rs_table_col(&t, "tp"), cw = rs_table_col(&t, "why");
    CU_ASSERT_FATAL(ct >= 0 && cc >= 0 && cp >= 0 && cw >= 0);
    CU_ASSERT_STRING_EQUAL(t.cells[0][cw], "-");
    for (size_t i = 0; i < t.n_rows; i++) {
        CU_ASSERT_EQUAL(strtod(t.cells[i][ct], NULL), b.e[i].ttft_s);
        CU_ASSERT_EQUAL(strtoll(t.cells[i][cp], NULL, 10), b.e[i].tp);
        RS_ASSERT_REL(strtod(t.cells[i][cc], NULL), b.e[i].ttft_s * 16 * 2.0 / 3600, 1e-15);
        if (i > 0) CU_ASSERT(b.e[i].ttft_s >= b.e[i - 1].ttft_s);
    }
    rs_table_free(&t);
    rs_budget_serve_free(&b);
    remove(in.csv);
    in.rank = RS_BUDGET_BY_DECODE;
    CU_ASSERT_EQUAL(rs_study_infer(&in, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--rank decode: ranks by the decode step (give --decode-batch B)");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(rs_test_file_size(in.csv), -1);
    fclose(in.out);
}

RS_TEST(test_refused, "refusals are bad input with their messages") {
    rs_infer_in_t in;
    RS_TEST_PLANNING_IN(&in, rs_infer_defaults);
    rs_err_t err = {0};
    in.n_nodes = 64, in.n_new = 64, in.n_cached = 2;
    for (int i = 0; i < 64; i++) in.nodes[i] = 1, in.new_tokens[i] = 1024;
    in.cached[0] = in.cached[1] = 0;
    CU_ASSERT_EQUAL(rs_study_infer(&in, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "8192 points (candidates x --nodes x --seq x --cached): at most 4096");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    in.n_nodes = in.n_new = in.n_cached = 1;
    in.boundary_csv = rs_test_path("boundary.csv");
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_study_infer(&in, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--boundary-csv: the pass-kv/pass-q boundary needs a cached prefix (--cached P > 0)");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(rs_test_file_size(in.boundary_csv), -1);
    in.boundary_csv = NULL;
    in.profiles = "nosuch";
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_study_infer(&in, &err), -1);
    CU_ASSERT_EQUAL(strncmp(err.msg, "--profile nosuch: unknown hardware profile 'nosuch'", 51), 0);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    in.profiles = "";
    CU_ASSERT_EQUAL(rs_study_infer(&in, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--profile: no candidate given");
    fclose(in.out);
}

RS_TEST_MAIN(.suite = "study_infer", .scratch = "study_infer", .keep_failed = true)
