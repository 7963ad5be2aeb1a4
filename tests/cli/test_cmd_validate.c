/* test_cmd_validate.c - `ringsim validate` end to end: --from-trace with the profile that predicted the
 * traces finds every error 0; --ranks-list 2,3 runs one child per N (ranks as threads) and gathers
 * their held-out rows, the per-N CSVs beside --csv; the refusals. */
#include <stdlib.h>
#include <string.h>

#include "cmd_test.h"

#ifdef RINGSIM_HAVE_EXEC
RS_TEST(test_from_trace, "--from-trace with the profile that made the traces") {
    const char *a = rs_test_path("v8k.csv"), *b = rs_test_path("v32k.csv");
    rs_cmd_model_traces(a, b);
    char args[2048];
    snprintf(args, sizeof args, "validate --from-trace %s %s --calibrated %s/profiles/devices/h100-sxm.json --trace-dir %s", a, b,
             RS_SOURCE_DIR, rs_test_path("td"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    /* the walk with the profile that made the traces predicts them exactly; the model's traces carry
     * the model's role events (attn, and the flash-attn preset's merges), so each role's ratio is 1 */
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "\n0       2048 forward         0.000% / 0.000%        0.000% / 0.000%        "
                                               "0.000% / 0.000%    +0.000%   1.000   1.000  -\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "\n1       8192 forward         0.000% / 0.000%        0.000% / 0.000%        "
                                               "0.000% / 0.000%    +0.000%   1.000   1.000  -\n"));
    CU_ASSERT_PTR_NULL(strstr(rs_test_out, "has no role events"));
    CU_ASSERT(rs_test_file_size(rs_test_path("td")) >= 0);
}

RS_TEST(test_ranks_list, "--ranks-list: one child per N") {
    char args[2048], csv[600], sum[600];
    snprintf(csv, sizeof csv, "%s", rs_test_path("v.csv"));
    snprintf(sum, sizeof sum, "%s", rs_test_path("s.csv"));
    snprintf(args, sizeof args,
             "validate --launch threads --blocks 8,16 --rounds 1 --reps 1 --warmup 0 --min-time 0.001 --no-sim -q --ranks-list 2,3 "
             "--csv %s --summary %s",
             csv, sum);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# ringsim validate --ranks-list: every N\n"));
    char *t = rs_test_slurp(sum, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(strncmp(t, "n_ranks,cores,layout,pass,mask,q_heads,kv_heads,fitted,", 55), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\n2,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\n3,"));
    CU_ASSERT_EQUAL(rs_cmd_lines(t), 3); /* header, one row per N */
    free(t);
    for (int n = 2; n <= 3; n++) {
        char per[700];
        snprintf(per, sizeof per, "%s/v-N%d.csv", rs_test_dir, n);
        CU_ASSERT(rs_cmd_contains(per, "\ncontiguous,forward,full,8,"));
        CU_ASSERT(rs_cmd_contains(per, "\ncontiguous,forward,full,16,"));
    }
    CU_ASSERT(rs_test_file_size(csv) < 0); /* only the per-N files */
    CU_ASSERT(rs_test_temp_files() == 0);
}

RS_TEST(test_refusals, "refusals") {
    rs_cmd_expect_usage("validate x.csv", "ringsim validate: unexpected argument 'x.csv' (trace files go with --from-trace)", NULL, NULL);
    rs_cmd_expect_usage("validate --blocks 8", "ringsim validate: --blocks 8: give at least 2 sizes", NULL, NULL);
    rs_cmd_expect_usage("validate --mask half", "ringsim validate: --mask half: expected full, causal or both", NULL, NULL);
    rs_cmd_expect_usage("validate --ranks-list 1", "ringsim validate: --ranks-list 1: '1' is not a size in [2, 4096] (K/M/G suffixes)",
                        NULL, NULL);
    rs_cmd_expect_usage("validate --from-trace a.csv --blocks 8,16",
                        "ringsim validate: --blocks cannot be used with --from-trace (the traces fix B: one trace per block size)", NULL,
                        NULL);
}

RS_TEST_MAIN(.suite = "ringsim validate", .scratch = "cmd_validate")
#else
RS_TEST_SKIPPED("no executor in this build")
#endif
