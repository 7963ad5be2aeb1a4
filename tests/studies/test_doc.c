/* test_doc.c - a document written as Markdown and HTML at once (studies/doc.c): each block's exact
 * text in both files - headings, paragraphs, list items, tables, figures - with <, >, & escaped and
 * the Markdown marks dropped in the HTML. */
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "studies_fixtures.h"
#include "test_main.h"

/* The document's two files, and their text once written. */
typedef struct {
    rs_doc_t d;
    char *md, *html; /* malloc'd */
} doc_t;

static void doc_open(doc_t *x) {
    x->d.md = tmpfile(), x->d.html = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->d.md);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->d.html);
}

static void doc_close(doc_t *x) {
    x->md = rs_test_read_back(x->d.md);
    x->html = rs_test_read_back(x->d.html);
}

RS_TEST(test_text_blocks, "heading, paragraph, list: Markdown and escaped HTML") {
    doc_t x;
    doc_open(&x);
    rs_doc_h(&x.d, 2, "A <b> & `c`");
    rs_doc_p(&x.d, "x **%d** y", 5);
    rs_doc_li(&x.d, "a %s", "one");
    rs_doc_li(&x.d, "b");
    rs_doc_end_list(&x.d);
    doc_close(&x);
    CU_ASSERT_STRING_EQUAL(x.md, "\n## A <b> & `c`\n\nx **5** y\n\n- a one\n- b\n\n");
    CU_ASSERT_STRING_EQUAL(x.html, "<h2>A &lt;b&gt; &amp; c</h2>\n<p>x 5 y</p>\n<ul><li>a one</li></ul>\n<ul><li>b</li></ul>\n");
    free(x.md), free(x.html);
}

RS_TEST(test_table, "table: header rule in Markdown, th and td in HTML") {
    doc_t x;
    doc_open(&x);
    const char *rows[] = {"a|b", "1|<2>"};
    rs_doc_table(&x.d, rows, 2);
    doc_close(&x);
    CU_ASSERT_STRING_EQUAL(x.md, "| a|b |\n|---|---|\n| 1|<2> |\n\n");
    CU_ASSERT_STRING_EQUAL(x.html, "<table>\n<tr><th>a</th><th>b</th></tr>\n<tr><td>1</td><td>&lt;2&gt;</td></tr>\n</table>\n");
    free(x.md), free(x.html);
}

RS_TEST(test_figures, "figure: rendered, and the note when it is not") {
    doc_t x;
    doc_open(&x);
    rs_doc_fig(&x.d, "f1", "T & B", true);
    rs_doc_fig(&x.d, "f2", "none", false);
    doc_close(&x);
    CU_ASSERT_STRING_EQUAL(x.md, "![T & B](figures/f1.png)\n\n*T & B* (also [SVG](figures/f1.svg), [PDF](figures/f1.pdf))\n\n"
                                 "*(figure f2 not rendered: see the note above)*\n\n");
    CU_ASSERT_STRING_EQUAL(x.html, "<figure><img src=\"figures/f1.svg\" alt=\"T &amp; B\" width=\"900\"><figcaption>T &amp; B "
                                   "(<a href=\"figures/f1.png\">PNG</a>, <a href=\"figures/f1.pdf\">PDF</a>)</figcaption></figure>\n"
                                   "<p>*(figure f2 not rendered: see the note above)*</p>\n");
    free(x.md), free(x.html);
}

RS_TEST_PROGRAM("doc")
