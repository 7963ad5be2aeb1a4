/* doc.c - a document written as Markdown and HTML at once (doc.h). */
#include "doc.h"

#include <stdarg.h>
#include <string.h>

void rs_doc_html_text(FILE *fp, const char *s) {
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", fp);
        else if (*s == '>') fputs("&gt;", fp);
        else if (*s == '&') fputs("&amp;", fp);
        else if (*s == '`') continue;
        else if (*s == '*' && s[1] == '*') s++; /* bold markers: plain in HTML */
        else fputc(*s, fp);
    }
}

void rs_doc_h(rs_doc_t *d, int level, const char *text) {
    fprintf(d->md, "\n%.*s %s\n\n", level, "######", text);
    fprintf(d->html, "<h%d>", level);
    rs_doc_html_text(d->html, text);
    fprintf(d->html, "</h%d>\n", level);
}

/* The marks around a block of text: "md_pre TEXT md_post" in Markdown, "html_open TEXT html_close"
 * in HTML. */
typedef struct {
    const char *md_pre, *md_post, *html_open, *html_close;
} block_marks_t;

static const block_marks_t PARAGRAPH = {"", "\n\n", "<p>", "</p>\n"};
static const block_marks_t ITEM = {"- ", "\n", "<ul><li>", "</li></ul>\n"};

/* One block of text (printf format) between its marks. */
static void block(rs_doc_t *d, const block_marks_t *m, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
static void block(rs_doc_t *d, const block_marks_t *m, const char *fmt, va_list ap) {
    char buf[4096];
    vsnprintf(buf, sizeof buf, fmt, ap);
    fprintf(d->md, "%s%s%s", m->md_pre, buf, m->md_post);
    fputs(m->html_open, d->html);
    rs_doc_html_text(d->html, buf);
    fputs(m->html_close, d->html);
}

void rs_doc_p(rs_doc_t *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    block(d, &PARAGRAPH, fmt, ap);
    va_end(ap);
}

/* Bullet list item (consecutive items form one list in Markdown; HTML gets one-item lists). */
void rs_doc_li(rs_doc_t *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    block(d, &ITEM, fmt, ap);
    va_end(ap);
}
void rs_doc_end_list(rs_doc_t *d) { fputs("\n", d->md); }

/* Table: cells are '|'-separated strings; the first row is the header. */
void rs_doc_table(rs_doc_t *d, const char *const *rows, int n) {
    fputs("<table>\n", d->html);
    for (int r = 0; r < n; r++) {
        fprintf(d->md, "| %s |\n", rows[r]);
        if (r == 0) {
            int cols = 1;
            for (const char *c = rows[0]; *c; c++) cols += *c == '|';
            for (int i = 0; i < cols; i++) fputs(i ? "---|" : "|---|", d->md);
            fputs("\n", d->md);
        }
        fputs("<tr>", d->html);
        const char *s = rows[r];
        while (1) {
            const char *e = strchr(s, '|');
            char cell[512];
            snprintf(cell, sizeof cell, "%.*s", (int)(e ? e - s : (long)strlen(s)), s);
            fputs(r == 0 ? "<th>" : "<td>", d->html);
            rs_doc_html_text(d->html, cell);
            fputs(r == 0 ? "</th>" : "</td>", d->html);
            if (!e) break;
            s = e + 1;
        }
        fputs("</tr>\n", d->html);
    }
    fputs("</table>\n", d->html);
    fputs("\n", d->md);
}

void rs_doc_fig(rs_doc_t *d, const char *name, const char *caption, bool have) {
    if (!have) {
        rs_doc_p(d, "*(figure %s not rendered: see the note above)*", name);
        return;
    }
    fprintf(d->md, "![%s](figures/%s.png)\n\n*%s* (also [SVG](figures/%s.svg), [PDF](figures/%s.pdf))\n\n", caption, name,
            caption, name, name);
    fprintf(d->html, "<figure><img src=\"figures/%s.svg\" alt=\"", name);
    rs_doc_html_text(d->html, caption);
    fprintf(d->html, "\" width=\"900\"><figcaption>");
    rs_doc_html_text(d->html, caption);
    fprintf(d->html, " (<a href=\"figures/%s.png\">PNG</a>, <a href=\"figures/%s.pdf\">PDF</a>)</figcaption></figure>\n",
            name, name);
}
