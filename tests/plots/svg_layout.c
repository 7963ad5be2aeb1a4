/* svg_layout.c - where the pieces of a gnuplot SVG lie (svg_layout.h). */
#include "svg_layout.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* DejaVu Sans' advance widths of ASCII 32..126 in thousandths of an em (its hmtx table, 2048 units
 * to the em); any other character counts as a digit's 0.636 em. */
static const short dejavu_adv[95] = {
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636, 636, 636,
    636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787,
    603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635,
    634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838};
#define ASCENT 0.76  /* em above the baseline */
#define DESCENT 0.24 /* em below it */

/* The width of UTF-8 text in ems. */
static double text_em(const char *s) {
    double w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= 32 && *p < 127) w += dejavu_adv[*p - 32] / 1000.0;
        else if ((*p & 0xC0) != 0x80) w += 0.636; /* the lead byte of a character outside ASCII */
    }
    return w;
}

/* ------------------------------------------------------------------------------------------------
 * A tiny reader of gnuplot's SVG: tags, their attributes, the text between them
 * ---------------------------------------------------------------------------------------------- */
/* Attribute name of the tag text [s, e) into buf ("" if absent); quotes ' or ". */
static const char *attr(const char *s, const char *e, const char *name, char *buf, size_t len) {
    buf[0] = 0;
    const size_t n = strlen(name);
    for (const char *p = s; p + n + 2 < e; p++) {
        if (strncmp(p, name, n) != 0 || p[n] != '=' || (p[n + 1] != '"' && p[n + 1] != '\'') || (p > s && !isspace((unsigned char)p[-1])))
            continue;
        const char q = p[n + 1];
        const char *v = p + n + 2, *ve = memchr(v, q, (size_t)(e - v));
        if (!ve) return buf;
        snprintf(buf, len, "%.*s", (int)(ve - v), v);
        return buf;
    }
    return buf;
}

/* Append the text of [s, e) with the XML entities decoded. */
static void append_text(char *dst, size_t len, const char *s, const char *e) {
    size_t k = strlen(dst);
    while (s < e && k + 1 < len) {
        if (*s == '&') {
            static const struct { const char *ent, *ch; } ents[] = {{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}, {"&quot;", "\""},
                                                                   {"&apos;", "'"}};
            int done = 0;
            for (size_t i = 0; i < sizeof ents / sizeof ents[0] && !done; i++)
                if (!strncmp(s, ents[i].ent, strlen(ents[i].ent))) dst[k++] = ents[i].ch[0], s += strlen(ents[i].ent), done = 1;
            if (!done) {
                const char *semi = memchr(s, ';', (size_t)(e - s));
                dst[k++] = '?'; /* a numeric entity: one character */
                s = semi ? semi + 1 : e;
            }
            continue;
        }
        dst[k++] = *s++;
    }
    dst[k] = 0;
}

static int grow(void **v, size_t n, size_t *cap, size_t size) {
    if (n < *cap) return 0;
    size_t c = *cap ? 2 * *cap : 64;
    void *p = realloc(*v, c * size);
    if (!p) return -1;
    *v = p, *cap = c;
    return 0;
}

static svg_box_t box_of(double x0, double y0, double x1, double y1) {
    svg_box_t b = {fmin(x0, x1), fmin(y0, y1), fmax(x0, x1), fmax(y0, y1)};
    return b;
}

static void box_join(svg_box_t *a, svg_box_t b) {
    if (a->x0 > a->x1) {
        *a = b;
        return;
    }
    a->x0 = fmin(a->x0, b.x0), a->y0 = fmin(a->y0, b.y0), a->x1 = fmax(a->x1, b.x1), a->y1 = fmax(a->y1, b.y1);
}

/* The reader's state: the open groups (their translation, rotation, font and anchor; whether one is
 * a plot's), and in a plot with a key entry, whether its sample is still being drawn. */
enum { MAXG = 64 };
typedef struct {
    double tx, ty, fs;
    int rot, plot;
    char anchor[16], family[64];
} frame_t;

typedef struct {
    svg_layout_t *l;
    size_t cap_t, cap_d, cap_k;
    frame_t g[MAXG];
    int depth;
    int in_plot;        /* the depth of the open plot group, 0 if none */
    int plot_titled;    /* it has a key entry */
    int in_sample;      /* its key text was read: elements beside it on its row are its sample */
    svg_box_t text_box; /* that text */
    svg_box_t entry;    /* the key entry being read (text and sample) */
    int oom;
} reader_t;

static void add_data(reader_t *r, svg_box_t b) {
    svg_layout_t *l = r->l;
    if (r->in_sample) { /* the sample: what lies on the key text's row, beside it (drawn before or after the data) */
        const svg_box_t t = r->text_box;
        const double h = t.y1 - t.y0;
        if (b.y0 >= t.y0 - 0.5 * h && b.y1 <= t.y1 + 0.5 * h && b.x1 >= t.x0 - 5 * h && b.x0 <= t.x1 + 5 * h) {
            box_join(&r->entry, b);
            return;
        }
    }
    if (grow((void **)&l->data, l->n_data, &r->cap_d, sizeof *l->data)) {
        r->oom = 1;
        return;
    }
    l->data[l->n_data++] = b;
}

/* The end of a key entry: its box into the key. */
static void end_entry(reader_t *r) {
    svg_layout_t *l = r->l;
    if (r->entry.x0 > r->entry.x1) return;
    if (grow((void **)&l->key, l->n_key, &r->cap_k, sizeof *l->key)) {
        r->oom = 1;
        return;
    }
    l->key[l->n_key++] = r->entry;
    box_join(&l->key_box, r->entry);
    r->entry.x0 = 1, r->entry.x1 = 0;
    r->in_sample = 0;
}

/* A path's d: each closed subpath a filled box, each segment of an open one a box. */
static void add_path(reader_t *r, const char *d) {
    double x0 = NAN, y0 = NAN, px = NAN, py = NAN, bx0 = 0, by0 = 0, bx1 = 0, by1 = 0;
    const char *s = d;
    char cmd = 'M';
    int n_sub = 0;
    while (*s) {
        while (*s && (isspace((unsigned char)*s) || *s == ',')) s++;
        if (!*s) break;
        if (isalpha((unsigned char)*s)) {
            cmd = *s++;
            if (cmd == 'Z' || cmd == 'z') {
                if (n_sub > 1) add_data(r, box_of(bx0, by0, bx1, by1));
                n_sub = 0, px = x0, py = y0;
            }
            continue;
        }
        char *e;
        const double x = strtod(s, &e);
        if (e == s) break;
        s = e;
        while (*s && (isspace((unsigned char)*s) || *s == ',')) s++;
        const double y = strtod(s, &e);
        if (e == s) break;
        s = e;
        if (cmd == 'M') {
            x0 = px = x, y0 = py = y, bx0 = bx1 = x, by0 = by1 = y, n_sub = 1;
            cmd = 'L';
            continue;
        }
        if (cmd != 'L') continue; /* gnuplot draws with M, L and Z only */
        /* a segment as boxes no longer than 4 units (a diagonal's own box would cover the graph) */
        const int n = isnan(px) ? 0 : 1 + (int)(hypot(x - px, y - py) / 4);
        for (int i = 0; i < n; i++)
            add_data(r, box_of(px + (x - px) * i / n, py + (y - py) * i / n, px + (x - px) * (i + 1) / n, py + (y - py) * (i + 1) / n));
        bx0 = fmin(bx0, x), bx1 = fmax(bx1, x), by0 = fmin(by0, y), by1 = fmax(by1, y), n_sub++;
        px = x, py = y;
    }
}

/* A text drawn in the innermost frame with a translation: its box. */
static void add_text(reader_t *r, const char *text, double w_em, double fs, double below_em) {
    svg_layout_t *l = r->l;
    const frame_t *f = &r->g[r->depth > 0 ? r->depth - 1 : 0];
    const double w = w_em * fs;
    double a = 0; /* the start's offset from the anchor along the text */
    if (!strcmp(f->anchor, "end")) a = -w;
    else if (!strcmp(f->anchor, "middle")) a = -w / 2;
    svg_box_t b;
    if (f->rot == 270) /* reads upwards: x is the baseline's, the text runs towards -y */
        b = box_of(f->tx - ASCENT * fs, f->ty - a, f->tx + below_em * fs, f->ty - a - w);
    else if (f->rot == 90)
        b = box_of(f->tx - below_em * fs, f->ty + a, f->tx + ASCENT * fs, f->ty + a + w);
    else b = box_of(f->tx + a, f->ty - ASCENT * fs, f->tx + a + w, f->ty + below_em * fs);
    if (grow((void **)&l->texts, l->n_texts, &r->cap_t, sizeof *l->texts)) {
        r->oom = 1;
        return;
    }
    svg_text_t *t = &l->texts[l->n_texts++];
    t->box = b;
    snprintf(t->text, sizeof t->text, "%s", text);
    t->key = r->in_plot && r->plot_titled && r->entry.x0 > r->entry.x1;
    if (t->key) r->entry = r->text_box = b, r->in_sample = 1;
    char font[96];
    snprintf(font, sizeof font, "%s %.2f;", f->family, f->fs);
    if (!strstr(l->fonts, font) && strlen(l->fonts) + strlen(font) < sizeof l->fonts) strcat(l->fonts, font);
}

/* A <text> element [s, e): its tspans (each with its own font size and baseline shift). */
static void read_text(reader_t *r, const char *s, const char *e) {
    const frame_t *f = &r->g[r->depth > 0 ? r->depth - 1 : 0];
    char text[160] = "", buf[64];
    double w_em = 0, below = DESCENT, dy = 0;
    for (const char *p = s; p < e;) {
        const char *lt = memchr(p, '<', (size_t)(e - p));
        if (!lt) break;
        const char *gt = memchr(lt, '>', (size_t)(e - lt));
        if (!gt) break;
        if (!strncmp(lt, "<tspan", 6)) {
            const double fs = atof(attr(lt, gt, "font-size", buf, sizeof buf)) > 0 ? atof(buf) : f->fs;
            attr(lt, gt, "dy", buf, sizeof buf);
            dy += atof(buf);
            const char *end = strstr(gt, "</tspan>");
            if (!end || end > e) break;
            char piece[160] = "";
            append_text(piece, sizeof piece, gt + 1, end);
            w_em += text_em(piece) * fs / f->fs;
            below = fmax(below, (dy + DESCENT * fs) / f->fs);
            append_text(text, sizeof text, gt + 1, end);
            p = end + 8;
        } else {
            p = gt + 1;
            const char *nx = memchr(p, '<', (size_t)(e - p));
            if (nx && nx > p && !strncmp(lt, "<text", 5)) { /* text outside a tspan */
                char piece[160] = "";
                append_text(piece, sizeof piece, p, nx);
                w_em += text_em(piece);
                append_text(text, sizeof text, p, nx);
            }
        }
    }
    if (text[0]) add_text(r, text, w_em, f->fs, below);
}

static void open_group(reader_t *r, const char *s, const char *e) {
    char buf[256];
    frame_t f = r->depth > 0 ? r->g[r->depth - 1] : (frame_t){0};
    f.plot = 0;
    if (*attr(s, e, "transform", buf, sizeof buf)) {
        f.rot = 0;
        sscanf(buf, "translate(%lf,%lf) rotate(%d)", &f.tx, &f.ty, &f.rot);
        if (f.rot < 0) f.rot += 360;
    }
    if (*attr(s, e, "font-size", buf, sizeof buf)) f.fs = atof(buf);
    if (*attr(s, e, "font-family", buf, sizeof buf)) snprintf(f.family, sizeof f.family, "%.63s", buf);
    if (*attr(s, e, "text-anchor", buf, sizeof buf)) snprintf(f.anchor, sizeof f.anchor, "%.15s", buf);
    if (!strncmp(attr(s, e, "id", buf, sizeof buf), "gnuplot_plot_", 13)) {
        f.plot = 1;
        end_entry(r);
        r->in_plot = r->depth + 1;
        r->plot_titled = 0;
        const char *t = strstr(e, "<title>"), *te = t ? strstr(t, "</title>") : NULL;
        if (t && te) r->plot_titled = strncmp(t + 7, "gnuplot_plot_", 13) != 0;
    }
    if (r->depth < MAXG) r->g[r->depth++] = f;
}

int svg_layout_read(const char *path, svg_layout_t *l, char *why, size_t len) {
    memset(l, 0, sizeof *l);
    l->key_box.x0 = 1, l->key_box.x1 = 0;
    FILE *fp = fopen(path, "r");
    if (!fp) return snprintf(why, len, "%s: cannot read", path), -1;
    fseek(fp, 0, SEEK_END);
    const long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *svg = size > 0 ? malloc((size_t)size + 1) : NULL;
    if (!svg || fread(svg, 1, (size_t)size, fp) != (size_t)size) {
        fclose(fp);
        free(svg);
        return snprintf(why, len, "%s: cannot read", path), -1;
    }
    fclose(fp);
    svg[size] = 0;
    reader_t r = {.l = l};
    r.entry.x0 = 1, r.entry.x1 = 0;
    const char *vb = strstr(svg, "viewBox=\"");
    if (!vb || sscanf(vb, "viewBox=\"0 0 %lf %lf\"", &l->w, &l->h) != 2) {
        free(svg);
        return snprintf(why, len, "%s: no viewBox (not gnuplot's SVG)", path), -1;
    }
    const char *defs_end = strstr(svg, "</defs>");
    for (const char *p = defs_end ? defs_end : svg; (p = strchr(p, '<')) != NULL && !r.oom;) {
        const char *e = strchr(p, '>');
        if (!e) break;
        char buf[64], d[1 << 16];
        if (!strncmp(p, "<g", 2) && isspace((unsigned char)p[2])) {
            open_group(&r, p, e);
        } else if (!strncmp(p, "</g>", 4)) {
            if (r.depth > 0) r.depth--;
            if (r.in_plot && r.depth < r.in_plot) end_entry(&r), r.in_plot = 0;
        } else if (!strncmp(p, "<text", 5)) {
            const char *te = strstr(e, "</text>");
            if (te) read_text(&r, p, te), e = te + 6;
        } else if (r.in_plot && !strncmp(p, "<path", 5)) {
            const char *de = p;
            while (de && (de = strstr(de, " d='")) != NULL && de < e) {
                const char *dend = strchr(de + 4, '\'');
                if (!dend) break;
                snprintf(d, sizeof d, "%.*s", (int)(dend - de - 4), de + 4);
                add_path(&r, d);
                e = strchr(dend, '>');
                break;
            }
            if (!e) break;
        } else if (r.in_plot && !strncmp(p, "<use", 4)) {
            double x, y, s = 1;
            if (sscanf(attr(p, e, "transform", d, sizeof d), "translate(%lf,%lf) scale(%lf)", &x, &y, &s) >= 2)
                add_data(&r, box_of(x - 1.2 * s, y - 1.2 * s, x + 1.2 * s, y + 1.2 * s));
        } else if (r.in_plot && !strncmp(p, "<polygon", 8)) { /* a filled area (histogram bars): its box */
            const char *pt = strstr(p, "points");
            if (pt && pt < e) pt = strpbrk(pt, "'\"");
            double x, y, x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
            int used = 0;
            for (const char *q = pt ? pt + 1 : e; q < e && sscanf(q, "%lf,%lf%n", &x, &y, &used) == 2; q += used)
                x0 = fmin(x0, x), y0 = fmin(y0, y), x1 = fmax(x1, x), y1 = fmax(y1, y);
            if (x0 <= x1) add_data(&r, box_of(x0, y0, x1, y1));
        } else if (r.in_plot && !strncmp(p, "<rect", 5)) {
            const double x = atof(attr(p, e, "x", buf, sizeof buf)), y = atof(attr(p, e, "y", buf, sizeof buf));
            add_data(&r, box_of(x, y, x + atof(attr(p, e, "width", buf, sizeof buf)), y + atof(attr(p, e, "height", buf, sizeof buf))));
        }
        p = e + 1;
    }
    end_entry(&r);
    free(svg);
    if (r.oom) {
        svg_layout_free(l);
        return snprintf(why, len, "%s: out of memory", path), -1;
    }
    return 0;
}

void svg_layout_free(svg_layout_t *l) {
    free(l->texts), free(l->data), free(l->key);
    memset(l, 0, sizeof *l);
}

/* Boxes that share more than a sliver (tol on each side). */
static int overlap(svg_box_t a, svg_box_t b, double tol) {
    return a.x0 + tol < b.x1 && b.x0 + tol < a.x1 && a.y0 + tol < b.y1 && b.y0 + tol < a.y1;
}

int svg_layout_check(const svg_layout_t *l, char *why, size_t len) {
    const double tol = 0.5;
    for (size_t i = 0; i < l->n_texts; i++) {
        const svg_box_t b = l->texts[i].box;
        if (b.x0 < -tol || b.y0 < -tol || b.x1 > l->w + tol || b.y1 > l->h + tol)
            return snprintf(why, len, "text '%s' leaves the canvas (%.1f..%.1f x %.1f..%.1f of %.0f x %.0f)", l->texts[i].text, b.x0,
                            b.x1, b.y0, b.y1, l->w, l->h),
                   1;
        for (size_t j = i + 1; j < l->n_texts; j++)
            if (overlap(b, l->texts[j].box, tol))
                return snprintf(why, len, "texts '%s' and '%s' overlap", l->texts[i].text, l->texts[j].text), 1;
        for (size_t k = 0; k < l->n_data; k++)
            if (overlap(b, l->data[k], tol))
                return snprintf(why, len, "text '%s' covers data at (%.1f, %.1f)", l->texts[i].text, l->data[k].x0, l->data[k].y0), 1;
    }
    for (size_t k = 0; l->key_box.x0 <= l->key_box.x1 && k < l->n_data; k++)
        if (overlap(l->key_box, l->data[k], tol))
            return snprintf(why, len, "the key's box (%.1f..%.1f x %.1f..%.1f) covers data at (%.1f..%.1f, %.1f..%.1f)", l->key_box.x0,
                            l->key_box.x1, l->key_box.y0, l->key_box.y1, l->data[k].x0, l->data[k].x1, l->data[k].y0, l->data[k].y1),
                   1;
    for (size_t i = 0; i < l->n_key; i++)
        for (size_t j = i + 1; j < l->n_key; j++)
            if (overlap(l->key[i], l->key[j], tol)) return snprintf(why, len, "key entries %zu and %zu overlap", i + 1, j + 1), 1;
    return 0;
}
