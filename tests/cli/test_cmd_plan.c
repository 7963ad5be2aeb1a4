/* test_cmd_plan.c - `ringsim plan` as a user runs it: exit codes (0 ok, 1 runtime failure, 2 bad input),
 * one-line messages, no half-written output; the table's CSV and the longest-context CSV and figure;
 * with SimGrid, the ring split simulated as a job on fabric knobs. */
#include <stdlib.h>
#include <string.h>

#include "cmd_test.h"

RS_TEST(test_plan_does_not_fit, "plan_does_not_fit") {
    char args[1024];
    const char *csv = rs_test_path("nofit.csv");
    snprintf(args, sizeof args, "plan -m llama3-405b -S 4M --max-ranks 64 -p h100-sxm,h200 --csv %s", csv);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_EQUAL(rs_cmd_lines(rs_test_err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "does not fit"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "short by"));
    CU_ASSERT(rs_test_file_size(csv) < 0); /* no output on failure */
}

RS_TEST(test_plan_bad_split, "plan_bad_split") {
    CU_ASSERT_EQUAL(rs_test_ringsim("plan -m llama3-8b -S 1000 -N 8"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "divisible by 2N = 16"));
    CU_ASSERT_EQUAL(rs_test_ringsim("plan -m llama3-8b --global-batch 4 --dp 3"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "--dp 3"));
    CU_ASSERT_EQUAL(rs_test_ringsim("plan -m llama3-8b --price b200=3"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "--price b200=3: no such candidate in --profile h100-sxm"));
    /* a node holds at least one device (the table both planners share, cli/plan_opts.c) */
    CU_ASSERT_EQUAL(rs_test_ringsim("plan -m llama3-8b --gpus-per-node 0"), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim plan: --gpus-per-node 0: must be in [1, 1048576]\n");
}

RS_TEST(test_plan_ok_csv, "plan_ok_csv") {
    char args[2048];
    const char *csv = rs_test_path("plan.csv"), *mc = rs_test_path("maxctx.csv");
    snprintf(args, sizeof args, "plan -m llama3-8b -S 128K -N 64 -p h100-sxm --price 2.5 --csv %s --maxctx-csv %s --max-ranks 64",
             csv, mc);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "wins"));
    rs_test_expect_in_file(csv, (const char *[]){"profile,devices_per_node,seq_tokens", "H100-SXM,8,131072,64,1,64,", NULL});
    rs_test_expect_in_file(mc, (const char *[]){"profile,n_ranks,max_seq_tokens", "H100-SXM,64,", NULL});
    /* an unwritable output is bad input, found before any work (exit 2, as in every command) */
    CU_ASSERT_EQUAL(rs_test_ringsim("plan -m llama3-8b --csv /nonexistent-dir/x.csv"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "/nonexistent-dir/x.csv"));
}

/* The max-context figure through gnuplot and plots/maxctx.gp (skipped without gnuplot). */
RS_TEST(test_plan_figure, "plan_figure") {
    if (!rs_cmd_have_gnuplot()) {
        fprintf(stderr, "  (no gnuplot: figure not tested)\n");
        return;
    }
    char args[2048];
    const char *png = rs_test_path("maxctx.png");
    setenv("RINGSIM_PLOTS_DIR", RS_SOURCE_DIR "/plots", 1);
    snprintf(args, sizeof args, "plan -m llama2-7b -S max -N 16 --max-ranks 16 -p h100-sxm,mi300x --figure %s", png);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT(rs_cmd_starts_with(png, "\x89PNG\r\n\x1a\n", 8));
    snprintf(args, sizeof args, "plan -m llama2-7b -S max -N 16 --figure %s", rs_test_path("x.gif"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, ".png, .pdf, .svg or .tex"));
}

#ifdef RINGSIM_HAVE_SIM
/* ringsim plan --sim with fabric knobs: the ring split (N = 8 on nodes of 4, 2 replicas) as a job per
 * pass and NICs value; without background the ring is alone on its NICs (slowdown 1), ZeRO-3's
 * all-gather on the same NICs slows it (the plan assumes FSDP hidden). Knobs without --sim: exit 2. */
RS_TEST(test_job_plan, "job_plan") {
    char args[4096], csv[800];
    snprintf(csv, sizeof csv, "%s", rs_test_path("plan-cont.csv"));
    for (int bg = 0; bg < 2; bg++) {
        snprintf(args, sizeof args,
                 "plan -m llama3-8b --seq 32K --ranks 8 --gpus-per-node 4 --inter ib-ndr --global-batch 2 --dp 2 --sim "
                 "--nics 1,4 %s --contention-csv %s",
                 bg ? "--background fsdp" : "", csv);
        CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
        CU_ASSERT(rs_cmd_contains(rs_test_path("out.txt"), "# the ring split as a job (SimGrid): N ranks x 2 replica(s)"));
        char *t = rs_test_slurp(csv, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        int rows = 0;
        for (char *l = strstr(t, "\nseries,"); l && (l = strchr(l + 1, '\n')) && l[1]; rows++) {
            char *f = l + 1;
            for (int k = 0; k < 17 && f; k++) f = strchr(f, ',') + 1; /* slowdown */
            const double slow = strtod(f, NULL);
            if (bg) {
                CU_ASSERT(slow > 1.1);
            } else {
                RS_ASSERT_REL(slow, 1, 1e-9);
            }
        }
        CU_ASSERT_EQUAL(rows, 4); /* forward and backward x K = 1, 4 */
        free(t);
    }
    rs_cmd_expect_usage("plan -m llama3-8b --nics 1,4", "need --sim", NULL, NULL);
}
#endif

RS_TEST_MAIN(.suite = "ringsim plan", .scratch = "cmd_plan")
