/* test_study_report_figures.c - the report's figures (studies/study_report_figures.c): without the
 * simulator, each figure of the walk's data in PNG, SVG and PDF, the ones of the simulator's data
 * absent, the scripts copied, regenerate.sh executable, one line per figure drawn, and run from
 * another folder without ringsim on PATH redrawing every figure (as .tex at the column preset: the
 * walk's traces in place of the simulator's); the document shows each. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "studies_fixtures.h"
#include "test_main.h"

RS_TEST(test_figures, "figures of the walk's data, the scripts and regenerate.sh") {
    const char *dir = rs_test_report("rep", "--no-exec --no-sim --quick");
    static const char *const made[] = {"tcomm-vs-b", "tcomm-vs-b-causal", "timeline-zigzag-forward", "timeline-contiguous-forward",
                                       "layout-busy", "scaling-n", "scaling-b"};
    static const char *const absent[] = {"pred-vs-meas", "contention", "tcomm-vs-b-measured", "pred-vs-meas-exec"};
    static const char *const ext[] = {"png", "svg", "pdf"};
    char path[1200];
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
        for (int e = 0; e < 3; e++) {
            snprintf(path, sizeof path, "%s/figures/%s.%s", dir, made[i], ext[e]);
            if (rs_test_file_size(path) <= 0) fprintf(stderr, "  missing %s\n", path);
            CU_ASSERT(rs_test_file_size(path) > 0);
        }
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        snprintf(path, sizeof path, "%s/figures/%s.png", dir, absent[i]);
        CU_ASSERT_EQUAL(rs_test_file_size(path), -1);
    }
    snprintf(path, sizeof path, "%s/figures/scripts/style.gp", dir);
    CU_ASSERT(rs_test_file_size(path) > 0);
    snprintf(path, sizeof path, "%s/figures/regenerate.sh", dir);
    struct stat st;
    CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0755);
    char *sh = rs_test_report_file("figures/regenerate.sh");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sh);
    CU_ASSERT_EQUAL(strncmp(sh, "#!/bin/sh\n", 10), 0);
    rs_test_expect_all(sh, (const char *const[]){
        "export RINGSIM_PLOTS_DIR=\"$PWD/figures/scripts\"\n", "for ext in ${*:-png svg pdf}; do\n",
        "  \"$RINGSIM\" plot tcomm-vs-b data/sweep-b.csv ${SIZE:+--size \"$SIZE\"} -o figures/tcomm-vs-b.$ext\n",
        "  \"$RINGSIM\" plot timeline traces/model-zigzag-forward.csv ${SIZE:+--size \"$SIZE\"} -o figures/timeline-zigzag-forward.$ext\n",
        "  \"$RINGSIM\" plot layout-busy data/busy-forward.csv --title 'Per-rank compute time by layout (causal, forward)' "
        "${SIZE:+--size \"$SIZE\"} -o figures/layout-busy.$ext\n",
        "  \"$RINGSIM\" plot scaling data/scaling-b.csv --x block_tokens ${SIZE:+--size \"$SIZE\"} -o figures/scaling-b.$ext\n", NULL});
    /* one line per figure the report drew: 7 here */
    int lines = 0;
    for (const char *p = sh; (p = strstr(p, "\"$RINGSIM\" plot ")) != NULL; p++) lines++;
    CU_ASSERT_EQUAL(lines, (int)(sizeof made / sizeof made[0]));
    free(sh);
    /* run from another folder with neither RINGSIM nor ringsim on PATH: it finds the ringsim that
     * wrote the report and redraws every figure (here as .tex at the column preset, 7 .tex and 7
     * PDFs beside them); RINGSIM that is no ringsim fails the script */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd / && env -u RINGSIM PATH=/usr/bin:/bin SIZE=column sh '%s/figures/regenerate.sh' tex svg >/dev/null 2>&1", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) {
        snprintf(path, sizeof path, "%s/figures/%s.tex", dir, made[i]);
        CU_ASSERT(rs_test_file_size(path) > 1000);
        snprintf(path, sizeof path, "%s/figures/%s.pdf", dir, made[i]);
        CU_ASSERT(rs_test_file_size(path) > 1000);
    }
    snprintf(cmd, sizeof cmd, "RINGSIM=/bin/false sh '%s/figures/regenerate.sh' svg >/dev/null 2>&1", dir);
    CU_ASSERT_NOT_EQUAL(system(cmd), 0);
    char *md = rs_test_report_file("report.md");
    CU_ASSERT_PTR_NOT_NULL_FATAL(md);
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "![Timeline of the zigzag forward pass: compute, send and recv per rank and step]"
                                      "(figures/timeline-zigzag-forward.png)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "*(figure pred-vs-meas not rendered: see the note above)*"));
    CU_ASSERT_PTR_NULL(strstr(md, "Note: ")); /* no figure failed */
    free(md);
}

RS_TEST_MAIN(.suite = "report_figures", .scratch = "report_figures", .keep_failed = true)
