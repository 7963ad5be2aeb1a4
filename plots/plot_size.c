/* plot_size.c - a figure's size (plot.h, plot_size.h): `--size` in pixels, inches or centimetres,
 * or a preset for papers and slides, and the size each format is drawn at. A size is a physical
 * one: pixels count 96 to the inch (CSS pixels, SVG's unit, the one pngcairo sets its text at), so
 * that a figure looks the same in every format and its text scales with it (plots/style.gp). */
#include "plot_size.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The presets: the widths of the common two-column formats (IEEE: columns of 3.5 in in a 7.16 in
 * text block; ACM: 3.33 in and 7.0 in; Springer LNCS: 84 mm and 174 mm), and a 16:9 slide's body
 * (beamer's 16:9 frame is 160 x 90 mm; PowerPoint's 13.33 x 7.5 in slide shows it scaled up). */
static const struct {
    const char *name;
    double w_in, h_in;
    bool paper; /* a paper's figure: the caption is its title, none is drawn unless given */
} presets[] = {
    {"column", 3.3, 2.5, true},
    {"double", 7.0, 3.5, true},
    {"slide", 6.0, 3.375, false},
};

static const char size_forms[] = "expected WxH in pixels (1200x750), inches (3.3inx2.2in) or centimetres "
                                 "(8.5cmx5cm), or column, double or slide";

/* One side: a number and its unit ("", "px", "in", "cm"); *phys: the unit is a length. Returns the
 * size in pixels or inches, or NaN when the text is no such number. */
static double side(const char *s, size_t n, int *phys) {
    char buf[64];
    if (n == 0 || n >= sizeof buf) return NAN;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end = NULL;
    const double v = rs_strtod(buf, &end);
    if (end == buf || !isfinite(v)) return NAN;
    if (!*end || !strcmp(end, "px")) return *phys = 0, v;
    if (!strcmp(end, "in")) return *phys = 1, v;
    if (!strcmp(end, "cm")) return *phys = 1, v / 2.54;
    return NAN;
}

int rs_plot_size_parse(const char *arg, rs_plot_opts_t *o, rs_err_t *err) {
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (!strcmp(arg, presets[i].name)) {
            o->width_px = o->height_px = 0;
            o->width_in = presets[i].w_in, o->height_in = presets[i].h_in;
            o->height_auto = true;
            o->no_auto_title = presets[i].paper;
            return 0;
        }
    const char *x = strchr(arg, 'x');
    int pw = -1, ph = -1;
    const double w = x ? side(arg, (size_t)(x - arg), &pw) : NAN, h = x ? side(x + 1, strlen(x + 1), &ph) : NAN;
    if (isnan(w) || isnan(h)) return rs_errc(err, RS_ERR_BAD_INPUT, "--size %s: %s", arg, size_forms);
    if (pw != ph) return rs_errc(err, RS_ERR_BAD_INPUT, "--size %s: give both sides in pixels, or both in inches or centimetres", arg);
    if (!pw) {
        if (!(w >= 100 && w <= 10000 && h >= 100 && h <= 10000 && w == floor(w) && h == floor(h)))
            return rs_errc(err, RS_ERR_BAD_INPUT, "--size %s: width and height must be integers in [100, 10000] pixels, e.g. 1200x750",
                           arg);
        o->width_px = (int)w, o->height_px = (int)h;
        o->width_in = o->height_in = 0;
    } else {
        if (!(w >= 1 && w <= 20 && h >= 1 && h <= 20))
            return rs_errc(err, RS_ERR_BAD_INPUT,
                           "--size %s: width and height must be in [1, 20] in ([2.54, 50.8] cm), e.g. 3.3inx2.2in", arg);
        o->width_px = o->height_px = 0;
        o->width_in = w, o->height_in = h;
    }
    o->height_auto = o->no_auto_title = false;
    return 0;
}

plot_size_t plot_size(rs_plot_kind_t kind, rs_plot_format_t fmt, const rs_plot_opts_t *o, int height_px) {
    plot_size_t s;
    if (o && o->width_in > 0) {
        s.w_in = o->width_in, s.h_in = o->height_in;
        if (o->height_auto && kind == RS_PLOT_SCALING) s.h_in *= 1.4; /* two panels */
        if (o->height_auto && height_px > 0) s.h_in = fmax(s.h_in, s.w_in * height_px / 1200.0);
        s.dpi = fmt == RS_PLOT_PNG ? 300 : 96; /* a paper's raster */
        s.w_px = (int)lround(s.w_in * s.dpi), s.h_px = (int)lround(s.h_in * s.dpi);
        s.h_grow = o->height_auto;
        return s;
    }
    s.w_px = o && o->width_px > 0 ? o->width_px : 1200;
    s.h_px = o && o->height_px > 0 ? o->height_px : (height_px > 0 ? height_px : (kind == RS_PLOT_SCALING ? 1000 : 750));
    s.dpi = 96;
    s.h_grow = false;
    s.w_in = s.w_px / 96.0, s.h_in = s.h_px / 96.0;
    return s;
}
