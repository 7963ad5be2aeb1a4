/* test_plot_scripts.c - the scripts (the plots/ scripts, and their one style, plots/style.gp) with the real
 * gnuplot: every figure kind at every size (the presets column, double and slide, 1200 x 750 and
 * 500 x 320 pixels) drawn as SVG and read back (svg_layout.c): no text leaves the canvas, no two texts
 * overlap, neither a text nor the key's box covers plotted data; one style: a base font changed in
 * a copy of style.gp changes the font size of every kind's text by that ratio, and no script but
 * style.gp names a font; the .tex output of every kind compiles in a minimal LaTeX document
 * (pdflatex; "skipped: no pdflatex" without it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "figure_data.h"
#include "harness.h"
#include "plot.h"
#include "svg_layout.h"
#include "test_main.h"

/* The options each kind needs for its data (tcomm-vs-b's sweep has one series; the rest none). */
static rs_plot_opts_t size_opts(const char *size) {
    rs_plot_opts_t o = {0};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_plot_size_parse(size, &o, &err), 0);
    return o;
}

/* kind drawn as SVG at size into name; its layout read back. Returns 0 or -1 (asserted). */
static int draw_svg(rs_plot_kind_t kind, const char *size, const char *name, svg_layout_t *l) {
    const rs_plot_opts_t o = size_opts(size);
    rs_err_t err = {0};
    const char *out = rs_test_path(name);
    const int rc = rs_plot_render(kind, figure_data[kind], out, &o, &err);
    if (rc != 0) fprintf(stderr, "  %s at %s: %s\n", rs_plot_kind_name(kind), size, err.msg);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc != 0) return -1;
    char why[512];
    const int rd = svg_layout_read(out, l, why, sizeof why);
    if (rd != 0) fprintf(stderr, "  %s\n", why);
    CU_ASSERT_EQUAL(rd, 0);
    return rd;
}

/* every kind at every size: a clean layout, and something drawn (data, and a key where the kind has
 * one) */
RS_TEST(test_layout, "every kind at every preset: no text or key over data or another text") {
    static const char *const sizes[] = {"column", "double", "slide", "1200x750", "500x320"};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int k = 0; k < RS_PLOT_KIND_COUNT; k++) {
            char name[128], why[512];
            snprintf(name, sizeof name, "%s-%s.svg", rs_plot_kind_name((rs_plot_kind_t)k), sizes[s]);
            svg_layout_t l;
            if (draw_svg((rs_plot_kind_t)k, sizes[s], name, &l) != 0) continue;
            const int bad = svg_layout_check(&l, why, sizeof why);
            if (bad) fprintf(stderr, "  %s: %s\n", name, why);
            CU_ASSERT_EQUAL(bad, 0);
            if (l.n_data <= 10) fprintf(stderr, "  %s: %zu data boxes\n", name, l.n_data);
            CU_ASSERT(l.n_data > 10);
            CU_ASSERT(l.n_texts > 5);
            svg_layout_free(&l);
        }
}

/* The checker itself finds what it is for: a key placed inside the graph over the data, and two
 * texts on one spot. */
RS_TEST(test_layout_detects, "the layout check finds a key over data and texts that overlap") {
    const char *gp = rs_test_path("bad.gp"), *svg = rs_test_path("bad.svg");
    char text[2048];
    snprintf(text, sizeof text,
             "set terminal svg size 400,300 font 'DejaVu Sans,12'; set output '%s'; set key top left;"
             "set label 1 'overlap' at screen 0.5, screen 0.95; set label 2 'overlap' at screen 0.52, screen 0.95;"
             "plot [0:1] x with lines title 'a long key title over the line', 1 - x with points title 'b'\n", svg);
    rs_test_write_text(gp, text);
    char cmd[4200];
    rs_err_t err = {0};
    snprintf(cmd, sizeof cmd, "'%s' '%s' 2>/dev/null", rs_gnuplot_path(&err), gp);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    svg_layout_t l;
    char why[512] = "";
    CU_ASSERT_EQUAL_FATAL(svg_layout_read(svg, &l, why, sizeof why), 0);
    CU_ASSERT_EQUAL(l.n_key, 2);
    CU_ASSERT_EQUAL(svg_layout_check(&l, why, sizeof why), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "texts 'overlap' and 'overlap' overlap"));
    svg_layout_free(&l);
    snprintf(text, sizeof text,
             "set terminal svg size 400,300 font 'DejaVu Sans,12'; set output '%s'; set key top left;"
             "plot [0:1] x with lines title 'a long key title over the line', 1 - x with points title 'b'\n", svg);
    rs_test_write_text(gp, text);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    CU_ASSERT_EQUAL_FATAL(svg_layout_read(svg, &l, why, sizeof why), 0);
    CU_ASSERT_EQUAL(svg_layout_check(&l, why, sizeof why), 1);
    if (!strstr(why, "covers data")) fprintf(stderr, "  %s\n", why);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "covers data"));
    svg_layout_free(&l);
}

/* The font sizes of l's texts: the smallest and the largest. */
static void font_range(const svg_layout_t *l, double *lo, double *hi) {
    *lo = INFINITY, *hi = 0;
    for (const char *p = l->fonts; (p = strchr(p, ' ')) != NULL;) {
        const double pt = atof(++p);
        if (pt > 0) *lo = fmin(*lo, pt), *hi = fmax(*hi, pt);
    }
}

/* one style: font_base 8.5 -> 9.5 in a copy of style.gp scales every kind's text by 9.5 / 8.5 (the
 * sizes are written with 2 decimals) */
RS_TEST(test_one_style, "a changed base font in style.gp changes every figure") {
    rs_err_t err = {0};
    const char *dir = rs_test_fresh_dir("style-copy");
    char dirbuf[1024], style[1100];
    snprintf(dirbuf, sizeof dirbuf, "%s", dir);
    CU_ASSERT_EQUAL_FATAL(rs_plot_copy_scripts(dirbuf, &err), 0);
    snprintf(style, sizeof style, "%s/style.gp", dirbuf);
    size_t n = 0;
    char *text = rs_test_slurp(style, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char *at = strstr(text, "\nfont_base = 8.5 ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    memcpy(at + 13, "9.5", 3);
    rs_test_write_text(style, text);
    free(text);
    for (int k = 0; k < RS_PLOT_KIND_COUNT; k++) {
        svg_layout_t a, b;
        char name[128];
        unsetenv("RINGSIM_PLOTS_DIR");
        snprintf(name, sizeof name, "%s-base.svg", rs_plot_kind_name((rs_plot_kind_t)k));
        if (draw_svg((rs_plot_kind_t)k, "column", name, &a) != 0) continue;
        setenv("RINGSIM_PLOTS_DIR", dirbuf, 1);
        snprintf(name, sizeof name, "%s-9.5pt.svg", rs_plot_kind_name((rs_plot_kind_t)k));
        if (draw_svg((rs_plot_kind_t)k, "column", name, &b) != 0) {
            svg_layout_free(&a);
            continue;
        }
        double alo, ahi, blo, bhi;
        font_range(&a, &alo, &ahi), font_range(&b, &blo, &bhi);
        if (fabs(blo / alo - 9.5 / 8.5) > 0.01 || fabs(bhi / ahi - 9.5 / 8.5) > 0.01)
            fprintf(stderr, "  %s: fonts %s -> %s\n", rs_plot_kind_name((rs_plot_kind_t)k), a.fonts, b.fonts);
        CU_ASSERT_DOUBLE_EQUAL(blo / alo, 9.5 / 8.5, 0.01);
        CU_ASSERT_DOUBLE_EQUAL(bhi / ahi, 9.5 / 8.5, 0.01);
        svg_layout_free(&a), svg_layout_free(&b);
    }
    unsetenv("RINGSIM_PLOTS_DIR");
    /* no script but style.gp names a font, a font size or a colour of its own */
    for (int k = 0; k < RS_PLOT_KIND_COUNT; k++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", RS_SOURCE_DIR "/plots", rs_plot_script_name((rs_plot_kind_t)k));
        char *s = rs_test_slurp(path, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        const int own = strstr(s, "font '") || strstr(s, "font \"") || strstr(s, "rgb '#") || strstr(s, "rgb \"#");
        if (own) fprintf(stderr, "  %s names a font or a colour of its own\n", path);
        CU_ASSERT_FALSE(own);
        free(s);
    }
}

/* every kind as .tex (cairolatex) at the column preset, with its PDF beside it, \input in one
 * minimal article that pdflatex compiles without an error */
RS_TEST(test_tex_compiles, "every kind's .tex compiles with pdflatex") {
    if (system("command -v pdflatex >/dev/null 2>&1") != 0) {
        printf("skipped: no pdflatex ");
        return;
    }
    const rs_plot_opts_t o = size_opts("column");
    char doc[8192] = "\\documentclass{article}\n\\usepackage{graphicx}\n\\usepackage{color}\n\\begin{document}\n";
    for (int k = 0; k < RS_PLOT_KIND_COUNT; k++) {
        char name[128], pdf[128];
        snprintf(name, sizeof name, "fig-%d.tex", k);
        snprintf(pdf, sizeof pdf, "fig-%d.pdf", k);
        rs_err_t err = {0};
        const int rc = rs_plot_render((rs_plot_kind_t)k, figure_data[k], rs_test_path(name), &o, &err);
        if (rc != 0) fprintf(stderr, "  %s: %s\n", rs_plot_kind_name((rs_plot_kind_t)k), err.msg);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(rs_test_file_size(rs_test_path(pdf)) > 1000);
        snprintf(doc + strlen(doc), sizeof doc - strlen(doc), "\\input{%s}\n\n", rs_test_path(name));
    }
    strcat(doc, "\\end{document}\n");
    rs_test_write_text(rs_test_path("paper.tex"), doc);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "cd '%s' && pdflatex -interaction=nonstopmode -halt-on-error paper.tex >pdflatex.log 2>&1",
             rs_test_path(""));
    const int st = system(cmd);
    if (st != 0) fprintf(stderr, "  pdflatex failed: see %s\n", rs_test_path("pdflatex.log"));
    CU_ASSERT_EQUAL(st, 0);
    CU_ASSERT(rs_test_file_size(rs_test_path("paper.pdf")) > 10000);
}

/* The data (figure_data.c); "skipped" without gnuplot. */
static int setup(void) {
    rs_err_t err;
    if (!rs_gnuplot_path(&err)) return rs_test_skip(err.msg);
    return figure_data_make();
}

RS_TEST_MAIN(.suite = "plot_scripts", .scratch = "plot_scripts", .keep_failed = true, .setup = setup)
