/* test_cmd_plot.c - `ringsim plot KIND DATA -o FILE` end to end: a sweep's T_comp/T_comm figure as SVG
 * at the default 1200 x 750, a trace's timeline as PNG at --size 800x500 (its header's width and
 * height), and the refusals (kind, arguments, format, data, size) with their one line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_test.h"

#ifdef RINGSIM_HAVE_PLOTS
static void make_data(void) {
    char args[1024];
    snprintf(args, sizeof args, "sweep --block 1K,4K,16K -N 4 --no-sim -q -o %s", rs_test_path("s.csv"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    snprintf(args, sizeof args, "model -S 32K -N 4 -L zigzag -P forward --trace %s", rs_test_path("t.csv"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
}

RS_TEST(test_figures, "a sweep's figure and a trace's timeline") {
    if (!rs_cmd_have_gnuplot()) {
        fprintf(stderr, "  (no gnuplot: figures not tested)\n");
        return;
    }
    setenv("RINGSIM_PLOTS_DIR", RS_SOURCE_DIR "/plots", 1);
    make_data();
    char args[2048], svg[600], png[600];
    snprintf(svg, sizeof svg, "%s", rs_test_path("b.svg"));
    snprintf(png, sizeof png, "%s", rs_test_path("t.png"));
    snprintf(args, sizeof args, "plot tcomm-vs-b %s -o %s", rs_test_path("s.csv"), svg);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT(rs_cmd_contains(svg, "viewBox=\"0 0 1200 750\""));
    snprintf(args, sizeof args, "plot timeline %s -o %s --size 800x500 --title Ring", rs_test_path("t.csv"), png);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    size_t len = 0;
    unsigned char *p = (unsigned char *)rs_test_slurp(png, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_FATAL(len > 24);
    CU_ASSERT_EQUAL(memcmp(p, "\x89PNG\r\n\x1a\n", 8), 0);
    /* the IHDR chunk: width and height, big-endian, at bytes 16 and 20 */
    const uint32_t w = (uint32_t)p[16] << 24 | (uint32_t)p[17] << 16 | (uint32_t)p[18] << 8 | p[19];
    const uint32_t h = (uint32_t)p[20] << 24 | (uint32_t)p[21] << 16 | (uint32_t)p[22] << 8 | p[23];
    CU_ASSERT_EQUAL(w, 800u);
    CU_ASSERT_EQUAL(h, 500u);
    free(p);
}

RS_TEST(test_refusals, "refusals") {
    make_data();
    char args[2048], want[1200];
    const char *out = rs_test_path("x.svg");
    char s[600];
    snprintf(s, sizeof s, "%s", rs_test_path("s.csv"));
    snprintf(args, sizeof args, "plot nokind %s -o %s", s, out);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim plot: unknown kind 'nokind' (expected tcomm-vs-b, timeline, pred-vs-meas, "
                                        "layout-busy, scaling, maxctx, contention, ttft, pass-boundary or validation)\n");
    snprintf(args, sizeof args, "plot tcomm-vs-b %s", s);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim plot: expected KIND DATA -o FILE (see ringsim plot --help)\n");
    snprintf(args, sizeof args, "plot tcomm-vs-b %s -o %s", s, rs_test_path("x.gif"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    snprintf(want, sizeof want, "ringsim plot: -o %s: expected a file name ending in .png, .pdf, .svg or .tex\n", rs_test_path("x.gif"));
    CU_ASSERT_STRING_EQUAL(rs_test_err, want);
    snprintf(args, sizeof args, "plot timeline %s -o %s", s, rs_test_path("x.svg"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2); /* a sweep is no trace */
    snprintf(want, sizeof want, "ringsim plot: %s:1: expected '# ringsim-trace=2' (a ringsim CSV trace)\n", s);
    CU_ASSERT_STRING_EQUAL(rs_test_err, want);
    snprintf(args, sizeof args, "plot timeline %s -o %s --size 8x5", rs_test_path("t.csv"), rs_test_path("x.png"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err,
                           "ringsim plot: --size 8x5: width and height must be integers in [100, 10000] pixels, e.g. 1200x750\n");
    snprintf(args, sizeof args, "plot tcomm-vs-b %s -o %s", s, s);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2); /* the figure may not replace its data */
    CU_ASSERT(rs_test_temp_files() == 0);
    CU_ASSERT(rs_cmd_contains(s, "# ringsim-sweep=1"));
}

RS_TEST_MAIN(.suite = "ringsim plot", .scratch = "cmd_plot")
#else
RS_TEST_SKIPPED("no plots in this build")
#endif
