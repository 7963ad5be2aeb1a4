/* svg_layout.h - where the pieces of a gnuplot SVG lie (test_plot_scripts.c): every text's box
 * (from its anchor, font size and DejaVu Sans' advance widths), the key's entries (the text and
 * sample of each titled plot) and the data (the points, line segments and filled boxes of every
 * plot), so that a test can say whether the key covers data, or two texts touch, or a text leaves
 * the canvas. It reads what gnuplot 5.4's svg terminal writes: a <g id="gnuplot_plot_N"> per plot,
 * its key entry first (a <text> in a translated <g>, then its sample), then its data (paths, point
 * markers, rects and polygons). */
#ifndef RS_TEST_SVG_LAYOUT_H
#define RS_TEST_SVG_LAYOUT_H

#include <stddef.h>

typedef struct {
    double x0, y0, x1, y1; /* x0 <= x1, y0 <= y1 (SVG: y grows downwards) */
} svg_box_t;

typedef struct {
    svg_box_t box;
    char text[160]; /* the text, tspans joined */
    int key;        /* a key entry's text */
} svg_text_t;

typedef struct {
    double w, h;          /* the canvas (viewBox) */
    svg_text_t *texts;    /* every text */
    size_t n_texts;
    svg_box_t *data;      /* points, filled boxes and each line segment's box: the plotted data */
    size_t n_data;
    svg_box_t *key;       /* the key entries: text and sample of each */
    size_t n_key;
    svg_box_t key_box;    /* their union (the key's box); x0 > x1 without a key */
    char fonts[256];      /* the font families and sizes of the texts, "family size;" each once */
} svg_layout_t;

/* Read path. Returns 0, or -1 with why (the file cannot be read, or is not gnuplot's SVG). */
int svg_layout_read(const char *path, svg_layout_t *l, char *why, size_t len);
void svg_layout_free(svg_layout_t *l);
/* The first fault of the layout into why: a text outside the canvas, two texts that overlap, a
 * text or the key's box over data. Returns 0 when there is none, else 1. */
int svg_layout_check(const svg_layout_t *l, char *why, size_t len);

#endif /* RS_TEST_SVG_LAYOUT_H */
