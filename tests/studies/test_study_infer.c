/* test_study_infer.c - the inference planning study (studies/study_infer.c), in the library: its CSV
 * is rs_infer_point's plan of each (candidate, nodes, T, P), the parallel efficiency against the
 * list's first node count; refusals are bad input with their messages: too many points, a boundary
 * without a cached prefix, an unknown candidate. */
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

/* Nodes 1, 2 at T = 32K: each row's TTFT is rs_infer_point's best option; the efficiency of 2 nodes
 * is TTFT(1) / (2 TTFT(2)). */
RS_TEST(test_csv_is_the_plan, "the CSV is rs_infer_point's plan, the parallel efficiency") {
    rs_infer_in_t in;
    RS_TEST_PLANNING_IN(&in, rs_infer_defaults);
    in.n_nodes = 2, in.nodes[1] = 2, in.new_tokens[0] = 32768;
    in.csv = rs_test_path("infer.csv");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_study_infer(&in, &err), 0);
    rs_machine_spec_t spec;
    rs_machine_spec_default(&spec);
    spec.dtype = RS_DTYPE_BF16;
    rs_hw_t hw;
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_machine_spec_profile(&spec, &hw, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, &err), 0);
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
