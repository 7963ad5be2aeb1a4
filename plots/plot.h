/* plot.h - figures with gnuplot: the C driver behind `ringsim plot KIND DATA -o FILE`.
 *
 * Each kind is an editable gnuplot script in plots/ (loading plots/style.gp) fed by a ringsim CSV:
 *   tcomm-vs-b    T_comp, T_comm vs B (log-log), predicted lines, measured points, B_min and the
 *                 measured crossover marked                   data: `ringsim sweep` CSV
 *   timeline      Gantt chart per rank: compute/send/recv per step   data: a trace CSV
 *   pred-vs-meas  predicted vs measured per step, y = x, +-10% band  data: `ringsim compare --csv` CSV
 *   layout-busy   per-rank busy time of contiguous/striped/zigzag    data: CSV rank,contiguous,striped,zigzag
 *   scaling       step time and overlap efficiency vs N or B per series (profile, and layout,
 *                 pass, mask or size where they vary)       data: `ringsim sweep` CSV
 *   maxctx        the longest context that fits against N per profile     data: `ringsim plan --maxctx-csv` CSV
 *   contention    balance efficiency of concurrent rings against NICs per node (or oversubscription),
 *                 one line per series, the contention-free one dashed   data: a contention CSV
 *                 (`ringsim sweep --nics ...`, studies/study_contention.h)
 *   ttft          time to first token against context length P + T, one line per series (profile and
 *                 node count) and CP variant (pass-KV, pass-Q, Ulysses, USP)
 *                                                             data: `ringsim plan --inference --csv` CSV
 *   pass-boundary the smallest T at which pass-KV is no slower than pass-Q against P, one line per
 *                 series, T = r P of docs/inference.md dashed  data: `ringsim plan --inference --boundary-csv`
 *   validation    predicted against published or measured per case, log-log, y = x, +-10% band, one
 *                 marker per source, the prediction's range as an error bar when the CSV has one
 *                                   data: CSV case,source,published,predicted[,predicted_low,predicted_high]
 * The format follows the output's extension: .png (pngcairo), .pdf (pdfcairo), .svg, .tex (cairolatex:
 * the text set by LaTeX in the document's font, the graphics in FILE.pdf beside it, which the .tex
 * includes by the name given minus its extension, as gnuplot does).
 *
 * Sizes are physical: pixels count 96 to the inch, so a figure looks the same in every format, and
 * the text scales with the width (plots/style.gp: 8.5 pt at a paper's column width). A size in
 * inches draws a PNG at 300 per inch.
 *
 * Scripts are taken from $RINGSIM_PLOTS_DIR, else an installation's share/ringsim/plots (found
 * relative to the binary: model/1-base/datadir.h), else the source tree's plots/ (so edits there
 * apply without a rebuild), else the copies embedded in the binary. gnuplot is the one CMake found
 * (GNUPLOT_EXECUTABLE), else `gnuplot` on PATH. Output is atomic (temporary + rename) and any
 * text gnuplot writes on stderr (warnings included) is treated as a failure.
 *
 * The parts: plot.c (the kinds, rs_plot_render), plot_prep.c and plot_prep_identity.c (each kind's
 * checks and variables), plot_size.c (the sizes), plot_gnuplot.c (formats, gnuplot, the scripts,
 * running gnuplot), plot_vars.c (gnuplot's -e text), plot_table.c (the CSV table reader, plot_table.h).
 */
#ifndef RS_PLOT_H
#define RS_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "plot_table.h" /* the CSV table reader the figures use, for the studies that read one too */
#include "util.h"

typedef enum {
    RS_PLOT_TCOMM_VS_B = 0,
    RS_PLOT_TIMELINE,
    RS_PLOT_PRED_VS_MEAS,
    RS_PLOT_LAYOUT_BUSY,
    RS_PLOT_SCALING,
    RS_PLOT_MAXCTX,
    RS_PLOT_CONTENTION,
    RS_PLOT_TTFT,
    RS_PLOT_PASS_BOUNDARY,
    RS_PLOT_VALIDATION,
    RS_PLOT_KIND_COUNT
} rs_plot_kind_t;
const char *rs_plot_kind_name(rs_plot_kind_t k); /* "tcomm-vs-b", "timeline", ... */
int rs_plot_kind_parse(const char *s, rs_plot_kind_t *out); /* 0 or -1 */

typedef enum { RS_PLOT_PNG = 0, RS_PLOT_PDF, RS_PLOT_SVG, RS_PLOT_TEX, RS_PLOT_FORMAT_COUNT } rs_plot_format_t;
const char *rs_plot_format_ext(rs_plot_format_t f); /* "png", "pdf", "svg", "tex" */
/* Format from a path's extension (case-insensitive). Returns 0 or -1 with err (RS_ERR_BAD_INPUT). */
int rs_plot_format_of(const char *path, rs_plot_format_t *out, rs_err_t *err);

typedef struct {
    int width_px;          /* width in pixels, 96 to the inch; 0 = 1200 (or width_in) */
    int height_px;         /* height; 0 = 750 (timeline: grows with the rank count; scaling: 1000) */
    double width_in;       /* width in inches (a paper's size); > 0: wins over the pixels */
    double height_in;      /* its height */
    bool height_auto;      /* height_in is a preset's: the timeline's ranks and scaling's two panels grow it */
    bool no_auto_title;    /* no title unless title is given (a paper's preset: the caption is the title) */
    const char *title;     /* figure title; NULL = automatic */
    const char *series;    /* tcomm-vs-b: value of the sweep's 'series' column; scaling: a line's legend;
                              NULL = every line (tcomm-vs-b: the only series; several are refused) */
    const char *x;         /* scaling: "n_ranks" | "block_tokens"; contention: "nics" | "oversub"; NULL = the one
                              that varies */
    const char *pass;      /* timeline: "forward" | "backward"; NULL = the only pass (both are refused) */
    const char *xlabel;    /* pred-vs-meas, validation: axis labels; NULL = from the CSV's notes */
    const char *ylabel;
} rs_plot_opts_t;

/* Parse `--size` text into o's size: "WxH" in pixels (integers in [100, 10000]; "px" optional),
 * inches or centimetres ("3.3inx2.2in", "8.5cmx5cm": in [1, 20] in), or a preset: "column" (3.3 x
 * 2.5 in) and "double" (7.0 x 3.5 in), a paper's (no automatic title: the caption is one), "slide"
 * (6.0 x 3.375 in). Returns 0, or -1 with err ("--size TEXT: ...", RS_ERR_BAD_INPUT) leaving o alone. */
int rs_plot_size_parse(const char *arg, rs_plot_opts_t *o, rs_err_t *err);

/* Path of the gnuplot executable or NULL (with err saying how to install it, RS_ERR_BAD_INPUT). */
const char *rs_gnuplot_path(rs_err_t *err);

/* Render kind from data into out (format from out's extension). Returns 0, or -1 with err: its code
 * RS_ERR_BAD_INPUT when the input is refused (data missing or malformed: "path:line: expected ...";
 * an unknown extension; no gnuplot; an output that cannot be created), RS_ERR_RUNTIME when the run
 * fails (no scripts; gnuplot failed or wrote to stderr: err quotes its first line; no output). No
 * output file is left behind on failure. */
int rs_plot_render(rs_plot_kind_t kind, const char *data, const char *out, const rs_plot_opts_t *opts,
                   rs_err_t *err);

/* The checks rs_plot_render makes on data before it starts gnuplot (columns, numbers, rows), alone:
 * no gnuplot, no output. On success *vars (when vars is not NULL) receives the script's variables as
 * gnuplot -e text ("name=value;...", malloc'd: free it). Returns 0, or -1 with err as rs_plot_render's
 * bad-input case. */
int rs_plot_prepare(rs_plot_kind_t kind, const char *data, const rs_plot_opts_t *opts, char **vars, rs_err_t *err);

/* Directory holding style.gp and the scripts in use (see above), or NULL with err (RS_ERR_RUNTIME).
 * The embedded copies are extracted once per process into a temporary directory removed at exit. */
const char *rs_plot_scripts_dir(rs_err_t *err);
/* Copy style.gp and every script into dir (for a report a user can re-render). Returns 0 or -1. */
int rs_plot_copy_scripts(const char *dir, rs_err_t *err);
/* Script file name of a kind ("tcomm_vs_b.gp"). */
const char *rs_plot_script_name(rs_plot_kind_t k);

#endif /* RS_PLOT_H */
