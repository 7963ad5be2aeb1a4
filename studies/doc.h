/* doc.h - a document written as Markdown and HTML at once: headings, paragraphs, bullet lists,
 * tables and figures go to both files with the same text (the report, studies/study_report.c).
 * Markdown's backquotes and bold markers are plain in the HTML; <, > and & are escaped there.
 */
#ifndef RS_DOC_H
#define RS_DOC_H

#include <stdbool.h>
#include <stdio.h>

typedef struct {
    FILE *md;   /* report.md */
    FILE *html; /* report.html */
} rs_doc_t;

/* text into HTML: <, >, & escaped, backquotes and ** dropped. Can't fail. */
void rs_doc_html_text(FILE *fp, const char *s);
/* A heading of level 1..6. */
void rs_doc_h(rs_doc_t *d, int level, const char *text);
/* A paragraph (printf format). */
void rs_doc_p(rs_doc_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A bullet item: consecutive items form one list in Markdown (end it with rs_doc_end_list); HTML
 * gets one-item lists. */
void rs_doc_li(rs_doc_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rs_doc_end_list(rs_doc_t *d);
/* A table: n rows of '|'-separated cells, the first row the header. */
void rs_doc_table(rs_doc_t *d, const char *const *rows, int n);
/* The figure figures/NAME.{png,svg,pdf} with its caption; when !have, a note that it was not
 * rendered. */
void rs_doc_fig(rs_doc_t *d, const char *name, const char *caption, bool have);

#endif /* RS_DOC_H */
