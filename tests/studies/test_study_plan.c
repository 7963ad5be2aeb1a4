/* test_study_plan.c - the capacity-planning study (studies/study_plan.c), in the library: its CSV is
 * the plan of each candidate (rs_plan_run's numbers, one row per split, the best marked), its table
 * marks the best, the max-context CSV lists N = 1, 2, 4, ...; refusals are bad input with their
 * messages: an unknown candidate, a price of no candidate, nothing fits, the estimated work above
 * the limit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "plot.h"
#include "study_plan.h"
#include "studies_fixtures.h"
#include "test_main.h"

/* s begins with prefix. */
static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

RS_TEST(test_defaults, "defaults") {
    rs_plan_in_t in;
    rs_plan_defaults(&in);
    CU_ASSERT_STRING_EQUAL(in.profiles, "h100-sxm");
    CU_ASSERT_EQUAL(in.gpus_per_node, -1);
    CU_ASSERT_EQUAL(in.config.seq_tokens, 128 * 1024);
    CU_ASSERT_EQUAL(in.config.max_sp, 4096);
    CU_ASSERT(!in.simulate);
    CU_ASSERT_PTR_EQUAL(in.out, stdout);
}

/* The CSV's rows are rs_plan_run's options of the candidate, at full precision. */
RS_TEST(test_csv_is_the_plan, "the CSV is rs_plan_run's plan; the max-context CSV; the table marks the best") {
    rs_plan_in_t in;
    RS_TEST_PLANNING_IN(&in, rs_plan_defaults);
    in.csv = rs_test_path("plan.csv");
    in.maxctx_csv = rs_test_path("maxctx.csv");
    in.config.max_sp = 64;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_study_plan(&in, &err), 0);
    rs_hw_t hw;
    rs_machine_t m;
    rs_plan_result_t res;
    CU_ASSERT_EQUAL_FATAL(rs_plan_candidate(&(rs_plan_candidate_spec_t){"h100-sxm", in.config.precision, -1, NULL, -1, NULL, NULL, 0, false}, &hw, &m, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_plan_run(&in.config, &hw, &m, &res, &err), 0);
    rs_table_t t;
    CU_ASSERT_EQUAL_FATAL(rs_table_read(in.csv, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL((int)t.n_rows, res.n_options);
    const int cs = rs_table_col(&t, "step_s"), cb = rs_table_col(&t, "best"), cn = rs_table_col(&t, "n_ranks"),
              cp = rs_table_col(&t, "profile"), cm = rs_table_col(&t, "mem_bytes");
    CU_ASSERT_FATAL(cs >= 0 && cb >= 0 && cn >= 0 && cp >= 0 && cm >= 0);
    for (int j = 0; j < res.n_options; j++) {
        CU_ASSERT_EQUAL(strtod(t.cells[j][cs], NULL), res.options[j].t_step_s);
        CU_ASSERT_EQUAL(strtod(t.cells[j][cm], NULL), res.options[j].mem_bytes);
        CU_ASSERT_EQUAL(atoi(t.cells[j][cb]), j == res.best);
        CU_ASSERT_EQUAL(strtoll(t.cells[j][cn], NULL, 10), res.options[j].ulysses * res.options[j].ring);
        CU_ASSERT_STRING_EQUAL(t.cells[j][cp], res.hw_name);
    }
    rs_table_free(&t);
    CU_ASSERT_EQUAL_FATAL(rs_table_read(in.maxctx_csv, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(t.n_rows, 7); /* N = 1, 2, ..., 64 */
    for (size_t i = 0; i < t.n_rows; i++) CU_ASSERT_EQUAL(strtoll(t.cells[i][rs_table_col(&t, "n_ranks")], NULL, 10), 1 << i);
    rs_table_free(&t);
    char *tab = rs_test_read_back(in.out);
    char want[160];
    snprintf(want, sizeof want, "\n* %-10.10s ", res.hw_name); /* the best split's line */
    CU_ASSERT_PTR_NOT_NULL(strstr(tab, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(tab, "# model=llama3-8b seq=given global_batch=1 precision=mixed"));
    free(tab);
}

RS_TEST(test_refused, "refusals are bad input with their messages") {
    rs_plan_in_t in;
    RS_TEST_PLANNING_IN(&in, rs_plan_defaults);
    rs_err_t err = {0};
    in.profiles = "h100-sxm,nosuch";
    CU_ASSERT_EQUAL(rs_study_plan(&in, &err), -1);
    CU_ASSERT(starts(err.msg, "--profile h100-sxm,nosuch: unknown hardware profile 'nosuch'"));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    in.profiles = "h100-sxm";
    in.n_prices = 1;
    snprintf(in.prices[0].name, sizeof in.prices[0].name, "foo");
    in.prices[0].usd = 2;
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_study_plan(&in, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--price foo=...: no such candidate in --profile h100-sxm");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    in.prices[0].arg = "foo=2";
    CU_ASSERT_EQUAL(rs_study_plan(&in, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--price foo=2: no such candidate in --profile h100-sxm");
    in.n_prices = 0;
    in.config.seq_tokens = 16 * 1024 * 1024, in.config.fixed_sp = 64;
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_study_plan(&in, &err), -1);
    CU_ASSERT(starts(err.msg, "llama3-8b does not fit at S=16777216 on any candidate even at N=64: the closest, H100-SXM, needs "));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    in.config.seq_tokens = 128 * 1024, in.config.fixed_sp = 0;
    in.limits.max_time_s = 1e-12;
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_study_plan(&in, &err), -1);
    CU_ASSERT(starts(err.msg, "this plan: an estimated "));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    fclose(in.out);
}

RS_TEST_MAIN(.suite = "study_plan", .scratch = "study_plan", .keep_failed = true)
