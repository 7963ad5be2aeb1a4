/* test_cmd_report.c - `ringsim report` end to end: the report's files (report.md and .html, the data,
 * the traces of every layout and pass), its problem and threshold by hand, a trace's makespan as
 * `ringsim model` predicts it; an existing folder refused without --force; with SimGrid, its
 * contention section. */
#include <stdlib.h>
#include <string.h>

#include "cmd_test.h"
#include "trace.h"

RS_TEST(test_files, "the report's files and numbers") {
    char args[2048], dir[600], path[900];
    snprintf(dir, sizeof dir, "%s", rs_test_path("rep"));
    snprintf(args, sizeof args, "report --quick --no-exec --no-sim --no-figures -q -o %s", dir);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    static const char *const files[] = {"report.md", "report.html", "summary.csv", "data/sweep-b.csv", "data/scaling-n.csv",
                                        "data/busy-forward.csv", "traces/model-zigzag-forward.csv",
                                        "traces/model-contiguous-backward.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        CU_ASSERT(rs_test_file_size(path) > 0);
    }
    /* the default problem: S = 128K over N = 8 (B = 16K) on H100-SXM; B_min = 989e12 / (450e9 x 0.822) / 4 */
    snprintf(path, sizeof path, "%s/report.md", dir);
    CU_ASSERT(rs_cmd_contains(path, "Problem: S = 131072 tokens over N = 8 ranks (B = 16384 tokens per rank), batch 1, 32 query "
                                    "heads, 8 KV heads, head_dim 128"));
    CU_ASSERT(rs_cmd_contains(path, "B_min = F c_b / (W c_f) = 668.4 tokens"));
    snprintf(path, sizeof path, "%s/report.html", dir);
    CU_ASSERT(rs_cmd_contains(path, "<html"));
    /* the zigzag forward trace is the walk of ringsim model on the same problem */
    snprintf(path, sizeof path, "%s/traces/model-zigzag-forward.csv", dir);
    rs_err_t err = {0};
    rs_trace_t *t = rs_trace_read_csv(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "n_ranks"), "8");
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("model -L zigzag -P forward --csv -"), 0);
    const char *row = strstr(rs_test_out, "\nzigzag,forward,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    double v[10];
    rs_cmd_csv_numbers(row + 1, v, 10);
    RS_ASSERT_REL(rs_trace_makespan(t), v[9], 1e-12);
    rs_trace_free(t);
    /* again into the same folder: refused without --force */
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    char want[2400];
    snprintf(want, sizeof want, "ringsim report: -o %s: exists; give --force to write into it, or another directory\n", dir);
    CU_ASSERT_STRING_EQUAL(rs_test_err, want);
    /* stdout and stderr together: the curves' note once, then "written to" as the last line */
    snprintf(path, sizeof path, "%s.both", dir);
    snprintf(args, sizeof args, "timeout 120 %s/bin/ringsim report --quick --no-exec --no-sim --no-figures -q --force -o %s >%s 2>&1",
             RS_BINARY_DIR, dir, path);
    CU_ASSERT_EQUAL(system(args), 0);
    char *both = rs_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(both);
    snprintf(want, sizeof want, "\nringsim report: written to %s/report.md (and %s/report.html) in ", dir, dir);
    const char *last = strstr(both, want), *note = strstr(both, "ringsim: note: kernel flash-attn-2");
    CU_ASSERT_PTR_NOT_NULL_FATAL(last);
    CU_ASSERT(note != NULL && note < last && strstr(note + 1, "ringsim: note:") == NULL);
    CU_ASSERT(strchr(last + 1, '\n') != NULL && strchr(last + 1, '\n')[1] == '\0');
    free(both);
}

#ifdef RINGSIM_HAVE_SIM
/* The report's contention section: data/contention.csv with NICs 1, 2, 4, 8 at 1:1 and 2:1 (h100-sxm:
 * nodes of 8), K = G at 1:1 as efficient as without contention, the sentence in report.md. */
RS_TEST(test_job_report, "job_report") {
    char args[4096], dir[800], path[1000];
    snprintf(dir, sizeof dir, "%s", rs_test_path("rep-contention"));
    snprintf(args, sizeof args, "report --quick --no-exec --no-figures -o %s", dir);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    snprintf(path, sizeof path, "%s/report.md", dir);
    CU_ASSERT(rs_cmd_contains(path, "8 rings (TP 8 fills each node) of N = 8 ranks"));
    snprintf(path, sizeof path, "%s/data/contention.csv", dir);
    char *t = rs_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    int rows = 0;
    for (char *l = strstr(t, "\nseries,"); l && (l = strchr(l + 1, '\n')) && l[1]; rows++) {
        double v[20];
        rs_cmd_csv_numbers(l + 1, v, 20);
        if (v[13] == 8 && v[14] == 1) RS_ASSERT_REL(v[18], v[19], 1e-9);
        CU_ASSERT(v[18] <= v[19] * (1 + 1e-9));
    }
    CU_ASSERT_EQUAL(rows, 8);
    free(t);
}
#endif

RS_TEST_MAIN(.suite = "ringsim report", .scratch = "cmd_report")
