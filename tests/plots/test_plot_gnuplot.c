/* test_plot_gnuplot.c - the gnuplot process (plots/plot_gnuplot.c), most of it with a fake gnuplot
 * (RINGSIM_GNUPLOT: a shell script that records its arguments and writes, warns, fails or stays
 * silent as FAKE_MODE says): the arguments rs_plot_render passes (the -e text, the script), the
 * committed output, each failure with its exact message and RS_ERR_RUNTIME and no file left; the
 * formats by extension; RINGSIM_GNUPLOT and RINGSIM_PLOTS_DIR refused with their messages; the
 * scripts' folder and their copy (rendered with the real gnuplot when there is one). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datadir.h"
#include "harness.h"
#include "plot.h"
#include "plot_gnuplot.h"
#include "test_main.h"

static char fake[1024], args_path[1024], scripts[1024], busy_csv[1024], trace_csv[1024];

static const char fake_text[] =
    "#!/bin/sh\n"
    "# a fake gnuplot: its arguments one a line into $FAKE_ARGS, then as $FAKE_MODE says\n"
    "printf '%s\\n' \"$@\" > \"$FAKE_ARGS\"\n"
    "out=$(printf '%s' \"$2\" | sed -n \"s/.*;out='\\([^']*\\)';.*/\\1/p\")\n"
    "case \"$FAKE_MODE\" in\n"
    "  ok) printf 'figure' > \"$out\" ;;\n"
    "  warn) printf 'figure' > \"$out\"; printf '\\n   \\n\"x.gp\" line 3: warning: empty x range\\nmore\\n' >&2 ;;\n"
    "  iconv) printf 'figure' > \"$out\"; echo 'line 0: warning: iconv failed to convert degree sign' >&2 ;;\n"
    "  fail) echo 'line 1: undefined variable: foo' >&2; exit 3 ;;\n"
    "  noexec) exit 127 ;;\n"
    "  empty) : > \"$out\" ;;\n"
    "  tex) d=${out%.tex}; printf 'a\\\\includegraphics{%s}b{%s}' \"$d\" \"$d\" > \"$out\"; printf 'pdf' > \"$d.pdf\" ;;\n"
    "esac\n";

/* The fake as gnuplot, in mode. */
static void use_fake(const char *mode) {
    setenv("RINGSIM_GNUPLOT", fake, 1);
    setenv("FAKE_MODE", mode, 1);
}

/* rs_plot_render with the fake in mode fails with want ("@" stands for the script's path), a
 * runtime failure, and leaves neither the output nor a temporary. */
static void fails(const char *mode, const char *want) {
    use_fake(mode);
    const char *out = rs_test_path("f.svg");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_plot_render(RS_PLOT_LAYOUT_BUSY, busy_csv, out, NULL, &err), -1);
    char script[1200], expect[2400] = "";
    snprintf(script, sizeof script, "%s/layout_busy.gp", scripts);
    for (const char *s = want; *s; s++) {
        const size_t n = strlen(expect);
        if (*s == '@') snprintf(expect + n, sizeof expect - n, "%s", script);
        else snprintf(expect + n, sizeof expect - n, "%c", *s);
    }
    if (strcmp(err.msg, expect) != 0) fprintf(stderr, "  got  %s\n  want %s\n", err.msg, expect);
    CU_ASSERT_STRING_EQUAL(err.msg, expect);
    CU_ASSERT_EQUAL(err.code, RS_ERR_RUNTIME);
    CU_ASSERT_EQUAL(access(out, F_OK), -1);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
}

/* gnuplot -e TEXT SCRIPT: the figure's variables, then the run's (data, the temporary output, the
 * style, the format, the size); the output committed under its name */
RS_TEST(test_arguments, "the arguments and the committed output") {
    use_fake("ok");
    const char *out = rs_test_path("busy.svg");
    rs_plot_opts_t o = {.width_px = 640, .height_px = 480, .title = "t"};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_plot_render(RS_PLOT_LAYOUT_BUSY, busy_csv, out, &o, &err), 0);
    rs_test_expect_text(out, "figure");
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    char *args = rs_test_slurp(args_path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(args);
    /* line 1: -e; line 2: the text, whose out= is the temporary beside the output; line 3: the script */
    char head[2400], tail[2400];
    snprintf(head, sizeof head, "-e\ntitle='t';data='%s';out='%s.tmp.", busy_csv, out);
    snprintf(tail, sizeof tail, ".ringsim';style='%s/style.gp';fmt='svg';w_px=640;h_px=480;w_in=6.666666666666667;h_in=5;dpi=96;\n"
                                "%s/layout_busy.gp\n", scripts,
             scripts);
    if (strncmp(args, head, strlen(head)) != 0 || strlen(args) < strlen(tail) ||
        strcmp(args + strlen(args) - strlen(tail), tail) != 0)
        fprintf(stderr, "  args: %s\n  want: %s...%s\n", args, head, tail);
    CU_ASSERT_EQUAL(strncmp(args, head, strlen(head)), 0);
    CU_ASSERT_STRING_EQUAL(args + strlen(args) - strlen(tail), tail);
    free(args);
}

/* the size: 1200 x 750 by default (12.5 x 7.8125 in at 96 per inch), the timeline's 160 + 60 per
 * rank (12 here), the format from the extension in any case; the column preset 3.3 x 2.5 in with no
 * automatic title, at 300 per inch in a PNG; its height grown 1.4 times for scaling's two panels
 * and to 880 / 1200 of the width for the timeline's ranks (12 here: 2.42 in, so 2.5 stays);
 * centimetres (a size, not a preset: the automatic title stays, no title='' follows the size, and
 * no h_grow: a preset's height grows for a tall key, a size's does not) */
RS_TEST(test_size_and_format, "size by kind, format by extension") {
    use_fake("ok");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_plot_render(RS_PLOT_LAYOUT_BUSY, busy_csv, rs_test_path("b.PNG"), NULL, &err), 0);
    rs_test_expect_in_file(args_path, (const char *[]){";fmt='png';w_px=1200;h_px=750;w_in=12.5;h_in=7.8125;dpi=96;\n", NULL});
    CU_ASSERT_EQUAL_FATAL(rs_plot_render(RS_PLOT_TIMELINE, trace_csv, rs_test_path("tl.pdf"), NULL, &err), 0);
    rs_test_expect_in_file(args_path, (const char *[]){"-e\npass_sel='forward';n_ranks=12;",
                                                       ";fmt='pdf';w_px=1200;h_px=880;w_in=12.5;h_in=9.1666666666666661;dpi=96;\n",
                                                       "/timeline.gp\n", NULL});
    rs_plot_opts_t o = {0};
    CU_ASSERT_EQUAL_FATAL(rs_plot_size_parse("column", &o, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_plot_render(RS_PLOT_LAYOUT_BUSY, busy_csv, rs_test_path("c.png"), &o, &err), 0);
    rs_test_expect_in_file(args_path, (const char *[]){";fmt='png';w_px=990;h_px=750;w_in=3.2999999999999998;h_in=2.5;dpi=300;h_grow=1;title='';\n",
                                                       NULL});
    CU_ASSERT_EQUAL_FATAL(rs_plot_render(RS_PLOT_TIMELINE, trace_csv, rs_test_path("c.svg"), &o, &err), 0);
    rs_test_expect_in_file(args_path, (const char *[]){";fmt='svg';w_px=317;h_px=240;w_in=3.2999999999999998;h_in=2.5;dpi=96;", NULL});
    CU_ASSERT_EQUAL_FATAL(rs_plot_size_parse("8.5cmx5.08cm", &o, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_plot_render(RS_PLOT_LAYOUT_BUSY, busy_csv, rs_test_path("cm.pdf"), &o, &err), 0);
    rs_test_expect_in_file(args_path, (const char *[]){";fmt='pdf';w_px=321;h_px=192;w_in=3.3464566929133857;h_in=2;dpi=96;\n", NULL});
    CU_ASSERT_EQUAL_FATAL(rs_plot_size_parse("slide", &o, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_plot_render(RS_PLOT_LAYOUT_BUSY, busy_csv, rs_test_path("s.pdf"), &o, &err), 0);
    rs_test_expect_in_file(args_path, (const char *[]){";fmt='pdf';w_px=576;h_px=324;w_in=6;h_in=3.375;dpi=96;h_grow=1;\n", NULL});
}

/* .tex: the LaTeX text committed with its graphics named as the output minus .tex (not the scratch
 * folder gnuplot wrote into), and the PDF beside it; nothing else left */
RS_TEST(test_tex, "the .tex output and its PDF") {
    use_fake("tex");
    rs_err_t err = {0};
    const char *out = rs_test_path("fig.tex");
    CU_ASSERT_EQUAL_FATAL(rs_plot_render(RS_PLOT_LAYOUT_BUSY, busy_csv, out, NULL, &err), 0);
    char want[2400];
    snprintf(want, sizeof want, "a\\includegraphics{%.*s}b{%.*s}", (int)strlen(out) - 4, out, (int)strlen(out) - 4, out);
    rs_test_expect_text(out, want);
    rs_test_expect_text(rs_test_path("fig.pdf"), "pdf");
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    /* a gnuplot that writes no PDF: neither file is left */
    use_fake("ok");
    CU_ASSERT_EQUAL(rs_plot_render(RS_PLOT_LAYOUT_BUSY, busy_csv, rs_test_path("g.tex"), NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "fig.pdf: cannot read"));
    CU_ASSERT_EQUAL(access(rs_test_path("g.tex"), F_OK), -1);
    CU_ASSERT_EQUAL(access(rs_test_path("g.pdf"), F_OK), -1);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
}

RS_TEST(test_failures, "gnuplot warns, fails, cannot run, writes nothing") {
    /* a warning alone is not a failure (the C locale's iconv warning): the figure is committed */
    use_fake("iconv");
    const char *out = rs_test_path("w.svg");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_plot_render(RS_PLOT_LAYOUT_BUSY, busy_csv, out, NULL, &err), 0);
    rs_test_expect_text(out, "figure");
    remove(out);
    /* a line that is not a warning is: the first such line is quoted */
    fails("warn", "gnuplot @ wrote to stderr (treated as a failure): more");
    fails("fail", "gnuplot @ failed (status 3): line 1: undefined variable: foo");
    char want[1200];
    snprintf(want, sizeof want, "%s: cannot execute gnuplot", fake);
    fails("noexec", want);
    snprintf(want, sizeof want, "gnuplot wrote no output to %s", rs_test_path("f.svg"));
    fails("empty", want);
}

/* the private runner alone: 0 on a quiet success, the arguments as given */
RS_TEST(test_run, "the runner alone") {
    use_fake("quiet");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(plot_gnuplot_run(fake, "a=1;", "s.gp", &err), 0);
    rs_test_expect_text(args_path, "-e\na=1;\ns.gp\n");
    setenv("FAKE_MODE", "fail", 1);
    CU_ASSERT_EQUAL(plot_gnuplot_run(fake, "a=1;", "s.gp", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "gnuplot s.gp failed (status 3): line 1: undefined variable: foo");
    CU_ASSERT_EQUAL(err.code, RS_ERR_RUNTIME);
}

RS_TEST(test_formats, "formats by extension") {
    rs_plot_format_t f = RS_PLOT_FORMAT_COUNT;
    rs_err_t err = {0};
    CU_ASSERT(rs_plot_format_of("a/b.svg", &f, &err) == 0 && f == RS_PLOT_SVG);
    CU_ASSERT(rs_plot_format_of("x.PNG", &f, &err) == 0 && f == RS_PLOT_PNG);
    CU_ASSERT(rs_plot_format_of("fig.v2.Pdf", &f, &err) == 0 && f == RS_PLOT_PDF);
    CU_ASSERT(rs_plot_format_of("fig.tex", &f, &err) == 0 && f == RS_PLOT_TEX);
    CU_ASSERT_EQUAL(rs_plot_format_of("dir.png/fig", &f, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "-o dir.png/fig: expected a file name ending in .png, .pdf, .svg or .tex");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(rs_plot_format_of("fig.jpg", &f, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "-o fig.jpg: expected a file name ending in .png, .pdf, .svg or .tex");
    CU_ASSERT_STRING_EQUAL(rs_plot_format_ext(RS_PLOT_PNG), "png");
    CU_ASSERT_STRING_EQUAL(rs_plot_format_ext(RS_PLOT_PDF), "pdf");
    CU_ASSERT_STRING_EQUAL(rs_plot_format_ext(RS_PLOT_SVG), "svg");
    CU_ASSERT_STRING_EQUAL(rs_plot_format_ext(RS_PLOT_TEX), "tex");
    CU_ASSERT_STRING_EQUAL(rs_plot_format_ext(RS_PLOT_FORMAT_COUNT), "?");
    /* rs_plot_render refuses the extension before anything runs */
    use_fake("ok");
    unlink(args_path);
    CU_ASSERT_EQUAL(rs_plot_render(RS_PLOT_LAYOUT_BUSY, busy_csv, rs_test_path("x.gif"), NULL, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(access(args_path, F_OK), -1);
}

/* RINGSIM_GNUPLOT that is no executable: refused input, nothing written; RINGSIM_PLOTS_DIR without
 * style.gp: a runtime failure; a copy of the scripts (as a report ships them) renders */
RS_TEST(test_no_gnuplot_is_clear, "gnuplot missing: clear message, no file") {
    const char *real = getenv("RS_REAL_GNUPLOT");
    setenv("RINGSIM_GNUPLOT", "/nonexistent/gnuplot", 1);
    rs_plot_opts_t o = {0};
    rs_err_t err = {0};
    CU_ASSERT_PTR_NULL(rs_gnuplot_path(&err));
    CU_ASSERT_STRING_EQUAL(err.msg, "RINGSIM_GNUPLOT=/nonexistent/gnuplot: not an executable (unset it to use gnuplot from PATH)");
    CU_ASSERT_EQUAL(rs_plot_render(RS_PLOT_LAYOUT_BUSY, busy_csv, rs_test_path("x.png"), &o, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "RINGSIM_GNUPLOT=/nonexistent/gnuplot: not an executable"));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(access(rs_test_path("x.png"), F_OK), -1);
    if (real) setenv("RINGSIM_GNUPLOT", real, 1);
    else unsetenv("RINGSIM_GNUPLOT");
    setenv("RINGSIM_PLOTS_DIR", "/nonexistent", 1);
    CU_ASSERT_EQUAL(rs_plot_render(RS_PLOT_LAYOUT_BUSY, busy_csv, rs_test_path("x.png"), &o, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "RINGSIM_PLOTS_DIR=/nonexistent: no style.gp there");
    CU_ASSERT_EQUAL(err.code, RS_ERR_RUNTIME);
    CU_ASSERT_EQUAL(access(rs_test_path("x.png"), F_OK), -1);
    setenv("RINGSIM_PLOTS_DIR", scripts, 1);
    if (!real) {
        printf("(no gnuplot: the copied scripts are not rendered) ");
        return;
    }
    CU_ASSERT_EQUAL(rs_plot_render(RS_PLOT_LAYOUT_BUSY, busy_csv, rs_test_path("x.png"), &o, &err), 0);
    CU_ASSERT(rs_test_file_size(rs_test_path("x.png")) > 1000);
}

/* the scripts' folder: RINGSIM_PLOTS_DIR when set, else an installation's, else the source tree's;
 * the copy holds style.gp and every kind's script, byte for byte */
RS_TEST(test_scripts_dir_and_copy, "the scripts' folder and their copy") {
    rs_err_t err = {0};
    CU_ASSERT_STRING_EQUAL(rs_plot_scripts_dir(&err), scripts);
    unsetenv("RINGSIM_PLOTS_DIR");
    char installed[4096];
    const char *want = rs_data_path(installed, sizeof installed, "plots") ? installed : RS_SOURCE_DIR "/plots";
    CU_ASSERT_STRING_EQUAL(rs_plot_scripts_dir(&err), want);
    for (int k = -1; k < RS_PLOT_KIND_COUNT; k++) {
        const char *name = k < 0 ? "style.gp" : rs_plot_script_name((rs_plot_kind_t)k);
        char a[4200], b[1200];
        snprintf(a, sizeof a, "%s/%s", want, name);
        snprintf(b, sizeof b, "%s/%s", scripts, name);
        size_t na = 0, nb = 0;
        char *ta = rs_test_slurp(a, &na), *tb = rs_test_slurp(b, &nb);
        CU_ASSERT_PTR_NOT_NULL(ta);
        CU_ASSERT(ta && tb && na == nb && na > 100 && memcmp(ta, tb, na) == 0);
        free(ta), free(tb);
    }
    setenv("RINGSIM_PLOTS_DIR", scripts, 1);
    CU_ASSERT_EQUAL(rs_plot_copy_scripts(rs_test_path("nodir/sub"), &err), -1); /* no such folder */
}

/* Write text to path outside a test (rs_test_write_text asserts). Returns 0 or -1. */
static int put(const char *path, const char *text) {
    FILE *fp = fopen(path, "w");
    if (!fp) return -1;
    fputs(text, fp);
    return fclose(fp);
}

/* The fake gnuplot, the scripts' copy and the data in the scratch directory. */
static int setup(void) {
    rs_err_t err = {0};
    const char *real = rs_gnuplot_path(&err); /* the build's or PATH's, before the fake replaces it */
    if (real) setenv("RS_REAL_GNUPLOT", real, 1);
    snprintf(fake, sizeof fake, "%s", rs_test_path("fake-gnuplot"));
    if (put(fake, fake_text) != 0 || chmod(fake, 0755) != 0) return 1;
    snprintf(args_path, sizeof args_path, "%s", rs_test_path("args.txt"));
    setenv("FAKE_ARGS", args_path, 1);
    snprintf(scripts, sizeof scripts, "%s", rs_test_fresh_dir("scripts"));
    if (rs_plot_copy_scripts(scripts, &err) != 0) {
        fprintf(stderr, "copy of the scripts: %s\n", err.msg);
        return 1;
    }
    setenv("RINGSIM_PLOTS_DIR", scripts, 1);
    snprintf(busy_csv, sizeof busy_csv, "%s", rs_test_path("busy.csv"));
    int bad = put(busy_csv, "# per-rank busy time\nrank,contiguous,striped,zigzag\n0,1e-3,4e-3,4e-3\n1,3e-3,4e-3,4e-3\n");
    snprintf(trace_csv, sizeof trace_csv, "%s", rs_test_path("trace.csv"));
    bad |= put(trace_csv, "# ringsim-trace=1\n# source=model\nsource,rank,step,pass,kind,start_s,end_s,flops,bytes,peer\n"
                                  "model,0,0,forward,compute,0,0.001,1,0,-1\nmodel,0,0,forward,send,0,0.001,0,8,11\n"
                                  "model,11,0,forward,recv,0,0.001,0,8,0\nmodel,0,0,forward,step,0,0.001,0,0,-1\n");
    return bad ? 1 : 0;
}

RS_TEST_MAIN(.suite = "plot_gnuplot", .scratch = "plot_gnuplot", .keep_failed = true, .setup = setup)
