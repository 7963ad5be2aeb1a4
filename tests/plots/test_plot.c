/* test_plot.c - the figure kinds and rs_plot_render (plots/plot.c) with the real gnuplot: every kind
 * renders in every format (gnuplot exits 0 with an empty stderr, rs_plot_render fails otherwise),
 * the files are non-empty and of the right type, and the PNG has the requested pixel size (IHDR).
 * Data comes from the ringsim CLI (sweep, model, compare, plan: figure_data.c). Refused data leaves no file, and
 * `ringsim plot` exits 2 on refused input, 1 on a failed run. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "figure_data.h"
#include "harness.h"
#include "plot.h"
#include "test_main.h"

/* PNG width and height from the IHDR chunk; 0 on error. */
static int png_size(const char *path, uint32_t *w, uint32_t *h) {
    unsigned char b[24];
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    size_t n = fread(b, 1, sizeof b, fp);
    fclose(fp);
    if (n != 24 || memcmp(b, "\x89PNG\r\n\x1a\n", 8) != 0 || memcmp(b + 12, "IHDR", 4) != 0) return 0;
    *w = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 | b[19];
    *h = (uint32_t)b[20] << 24 | (uint32_t)b[21] << 16 | (uint32_t)b[22] << 8 | b[23];
    return 1;
}

static int starts_with(const char *path, const char *magic, size_t len, const char *contains) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = 0;
    if (n < len || memcmp(buf, magic, len) != 0) return 0;
    return !contains || strstr(buf, contains) != NULL;
}

static void render_all(rs_plot_kind_t kind, const char *data, const rs_plot_opts_t *o) {
    static const char *const ext[3] = {"png", "pdf", "svg"};
    for (int f = 0; f < 3; f++) {
        char name[128];
        snprintf(name, sizeof name, "%s.%s", rs_plot_kind_name(kind), ext[f]);
        const char *out = rs_test_path(name);
        rs_err_t err = {0};
        int rc = rs_plot_render(kind, data, out, o, &err);
        if (rc != 0) fprintf(stderr, "  %s: %s\n", name, err.msg);
        CU_ASSERT_EQUAL(rc, 0);
        struct stat st;
        CU_ASSERT(stat(out, &st) == 0 && st.st_size > 1000);
        if (f == 0) {
            uint32_t w = 0, h = 0;
            CU_ASSERT(png_size(out, &w, &h));
            CU_ASSERT_EQUAL(w, (uint32_t)o->width_px);
            CU_ASSERT_EQUAL(h, (uint32_t)o->height_px);
        } else if (f == 1) {
            CU_ASSERT(starts_with(out, "%PDF", 4, NULL));
        } else {
            CU_ASSERT(starts_with(out, "<?xml", 5, "<svg"));
        }
    }
}

/* rs_plot_render refuses the data text (written to a scratch file) with a message holding want, as
 * refused input, and writes no figure. */
static void refused(rs_plot_kind_t kind, const char *text, const char *want) {
    char data[1100], out[1100];
    snprintf(data, sizeof data, "%s", rs_test_path("bad.csv"));
    snprintf(out, sizeof out, "%s", rs_test_path("bad.svg"));
    rs_test_write_text(data, text);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_plot_render(kind, data, out, NULL, &err), -1);
    if (!strstr(err.msg, want)) fprintf(stderr, "  got %s\n  want ...%s...\n", err.msg, want);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(access(out, F_OK), -1);
}

#define sweep_csv figure_data[RS_PLOT_TCOMM_VS_B]
#define scaling_csv figure_data[RS_PLOT_SCALING]
#define trace_csv figure_data[RS_PLOT_TIMELINE]
#define cmp_csv figure_data[RS_PLOT_PRED_VS_MEAS]
#define busy_csv figure_data[RS_PLOT_LAYOUT_BUSY]
#define cont_csv figure_data[RS_PLOT_CONTENTION]
#define ttft_csv figure_data[RS_PLOT_TTFT]
#define bound_csv figure_data[RS_PLOT_PASS_BOUNDARY]
#define val_csv figure_data[RS_PLOT_VALIDATION]

/* render_all in a size of w x h */
static void render_sized(rs_plot_kind_t kind, const char *data, int w, int h) {
    const rs_plot_opts_t o = {.width_px = w, .height_px = h};
    render_all(kind, data, &o);
}

RS_TEST(test_tcomm_vs_b, "tcomm-vs-b: png pdf svg") { render_sized(RS_PLOT_TCOMM_VS_B, sweep_csv, 800, 500); }
RS_TEST(test_timeline, "timeline: png pdf svg") { render_sized(RS_PLOT_TIMELINE, trace_csv, 1000, 600); }
RS_TEST(test_pred_vs_meas, "pred-vs-meas: png pdf svg") { render_sized(RS_PLOT_PRED_VS_MEAS, cmp_csv, 700, 700); }
RS_TEST(test_layout_busy, "layout-busy: png pdf svg") {
    const rs_plot_opts_t o = {.width_px = 900, .height_px = 500, .title = "busy"};
    render_all(RS_PLOT_LAYOUT_BUSY, busy_csv, &o);
}
RS_TEST(test_scaling, "scaling: png pdf svg") { render_sized(RS_PLOT_SCALING, scaling_csv, 900, 900); }
RS_TEST(test_maxctx, "maxctx: png pdf svg") { render_sized(RS_PLOT_MAXCTX, figure_data[RS_PLOT_MAXCTX], 800, 500); }

/* a sweep of two profiles: tcomm-vs-b draws one series, so it is refused without --series (naming
 * both), and drawn with it */
RS_TEST(test_tcomm_two_series, "tcomm-vs-b: two series, refused or picked") {
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_plot_render(RS_PLOT_TCOMM_VS_B, figure_data_sweep2, rs_test_path("t2.svg"), NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "sweep2.csv: 2 series (h100-sxm/zigzag/forward/full/N=8, "
                                    "mi300x/zigzag/forward/full/N=8): pick one with --series NAME"));
    CU_ASSERT_EQUAL(access(rs_test_path("t2.svg"), F_OK), -1);
    const rs_plot_opts_t o = {.series = "mi300x/zigzag/forward/full/N=8"};
    CU_ASSERT_EQUAL(rs_plot_render(RS_PLOT_TCOMM_VS_B, figure_data_sweep2, rs_test_path("t2.svg"), &o, &err), 0);
}

/* efficiency vs NICs per node, two series (the contention study's columns); against the ratio; a
 * series name with a space is refused with its line */
RS_TEST(test_contention, "contention: png pdf svg") {
    rs_plot_opts_t o = {.width_px = 900, .height_px = 560};
    render_all(RS_PLOT_CONTENTION, cont_csv, &o);
    o.x = "oversub";
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_plot_render(RS_PLOT_CONTENTION, cont_csv, rs_test_path("c2.svg"), &o, &err), 0);
    refused(RS_PLOT_CONTENTION, "series,nics,oversub,balance_efficiency,balance_efficiency_free\nleaf spine,1,1,0.5,0.9\n",
            ":2: expected a series name without spaces");
}

/* TTFT against context (ringsim plan --inference --csv): the variants that run, an empty cell skipped;
 * a TTFT <= 0 refused with its line */
RS_TEST(test_ttft, "ttft: png pdf svg") {
    rs_plot_opts_t o = {.width_px = 900, .height_px = 560};
    render_all(RS_PLOT_TTFT, ttft_csv, &o);
    refused(RS_PLOT_TTFT,
            "series,context_tokens,ttft_pass_kv_s,ttft_pass_q_s,ttft_ulysses_s,ttft_usp_s\nh:n1,1024,0.5,,,\nh:n1,2048,-1,,,\n",
            ":3: expected a TTFT in (0, 1e30) s (or empty) in column 'ttft_pass_kv_s', got '-1'");
}

/* the pass-kv/pass-q boundary (ringsim plan --inference --boundary-csv); a file without a crossing is
 * refused */
RS_TEST(test_pass_boundary, "pass-boundary: png pdf svg") {
    rs_plot_opts_t o = {.width_px = 900, .height_px = 560};
    render_all(RS_PLOT_PASS_BOUNDARY, bound_csv, &o);
    refused(RS_PLOT_PASS_BOUNDARY, "series,cached_tokens,cross_tokens,comm_bound_ratio\nh:n1,4096,0,0.066\n",
            "expected a crossing (cross_tokens > 0) in at least one row");
}

/* predicted against published, two sources, with and without the prediction's range (error bars) */
RS_TEST(test_validation, "validation: png pdf svg") {
    rs_plot_opts_t o = {.width_px = 700, .height_px = 700};
    render_all(RS_PLOT_VALIDATION, val_csv, &o);
    rs_test_write_text(rs_test_path("val-nobars.csv"), "case,source,published,predicted\na,p1,10,11\nb,p2,20,18\n");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_plot_render(RS_PLOT_VALIDATION, rs_test_path("val-nobars.csv"), rs_test_path("v2.svg"), &o, &err), 0);
}

/* names and scripts of every kind, parsed back; an unknown name and kind */
RS_TEST(test_kinds, "kinds: names, scripts, parse") {
    static const char *const names[RS_PLOT_KIND_COUNT] = {"tcomm-vs-b", "timeline", "pred-vs-meas", "layout-busy", "scaling",
                                                          "maxctx", "contention", "ttft", "pass-boundary", "validation"};
    static const char *const scripts[RS_PLOT_KIND_COUNT] = {"tcomm_vs_b.gp", "timeline.gp", "pred_vs_meas.gp",
                                                            "layout_busy.gp", "scaling.gp", "maxctx.gp",
                                                            "contention.gp", "ttft.gp", "pass_boundary.gp", "validation.gp"};
    for (int k = 0; k < RS_PLOT_KIND_COUNT; k++) {
        CU_ASSERT_STRING_EQUAL(rs_plot_kind_name((rs_plot_kind_t)k), names[k]);
        CU_ASSERT_STRING_EQUAL(rs_plot_script_name((rs_plot_kind_t)k), scripts[k]);
        rs_plot_kind_t got = RS_PLOT_KIND_COUNT;
        CU_ASSERT(rs_plot_kind_parse(names[k], &got) == 0 && got == (rs_plot_kind_t)k);
    }
    rs_plot_kind_t got = RS_PLOT_TTFT;
    CU_ASSERT_EQUAL(rs_plot_kind_parse("gantt", &got), -1);
    CU_ASSERT_EQUAL(got, RS_PLOT_TTFT);
    CU_ASSERT_STRING_EQUAL(rs_plot_script_name(RS_PLOT_KIND_COUNT), "?");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_plot_render(RS_PLOT_KIND_COUNT, busy_csv, rs_test_path("k.svg"), NULL, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "unknown figure kind");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
}

/* `ringsim plot`: 0 and the file; 2 on refused data, an unknown extension or a missing file; 1 when
 * gnuplot fails (here: a scripts folder without style.gp), each with its message */
RS_TEST(test_cli_exit_codes, "ringsim plot: exit codes and messages") {
    char args[4096];
    snprintf(args, sizeof args, "plot layout-busy %s -o %s", busy_csv, rs_test_path("cli.svg"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT(rs_test_file_size(rs_test_path("cli.svg")) > 1000);
    snprintf(args, sizeof args, "plot layout-busy %s -o %s", busy_csv, rs_test_path("cli.gif"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "ringsim plot: -o "));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "cli.gif: expected a file name ending in .png, .pdf, .svg or .tex\n"));
    snprintf(args, sizeof args, "plot scaling %s -o %s", busy_csv, rs_test_path("cli2.svg"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, ":2: expected a column named 'profile' in the header line\n"));
    snprintf(args, sizeof args, "RINGSIM_PLOTS_DIR=/nonexistent %s/bin/ringsim plot layout-busy %s -o %s >/dev/null 2>%s", RS_BINARY_DIR,
             busy_csv, rs_test_path("cli3.svg"), rs_test_path("cli3.err"));
    const int st = system(args);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    rs_test_expect_text(rs_test_path("cli3.err"), "ringsim plot: RINGSIM_PLOTS_DIR=/nonexistent: no style.gp there\n");
    CU_ASSERT_EQUAL(access(rs_test_path("cli3.svg"), F_OK), -1);
}

/* The data of the figures (figure_data.c); "skipped" without gnuplot. */
static int setup(void) {
    rs_err_t err;
    if (!rs_gnuplot_path(&err)) return rs_test_skip(err.msg);
    return figure_data_make();
}

RS_TEST_MAIN(.suite = "figures", .scratch = "plots", .keep_failed = true, .setup = setup)
