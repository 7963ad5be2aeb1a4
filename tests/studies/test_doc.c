/* test_doc.c - a document written as Markdown and HTML at once (studies/doc.c): each block's exact
 * text in both files - headings, paragraphs, list items, tables, figures - with <, >, & escaped and
 * the Markdown marks dropped in the HTML. */
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "studies_fixtures.h"
#include "test_main.h"

/* A document's two files (temporaries). */
static void doc_open(rs_doc_t *d) {
    d->md = tmpfile(), d->html = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(d->md);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d->html);
}

/* The document's files hold exactly md and html (read back and closed). */
static void expect_doc(rs_doc_t *d, const char *md, const char *html) {
    char *m = rs_test_read_back(d->md), *h = rs_test_read_back(d->html);
    CU_ASSERT_STRING_EQUAL(m, md);
    CU_ASSERT_STRING_EQUAL(h, html);
    free(m), free(h);
}

RS_TEST(test_text_blocks, "heading, paragraph, list: Markdown and escaped HTML") {
    rs_doc_t d;
    doc_open(&d);
    rs_doc_h(&d, 2, "A <b> & `c`");
    rs_doc_p(&d, "x **%d** y", 5);
    rs_doc_li(&d, "a %s", "one");
    rs_doc_li(&d, "b");
    rs_doc_end_list(&d);
    expect_doc(&d, "\n## A <b> & `c`\n\nx **5** y\n\n- a one\n- b\n\n",
               "<h2>A &lt;b&gt; &amp; c</h2>\n<p>x 5 y</p>\n<ul><li>a one</li></ul>\n<ul><li>b</li></ul>\n");
}

RS_TEST(test_table, "table: header rule in Markdown, th and td in HTML") {
    rs_doc_t d;
    doc_open(&d);
    const char *rows[] = {"a|b", "1|<2>"};
    rs_doc_table(&d, rows, 2);
    expect_doc(&d, "| a|b |\n|---|---|\n| 1|<2> |\n\n",
               "<table>\n<tr><th>a</th><th>b</th></tr>\n<tr><td>1</td><td>&lt;2&gt;</td></tr>\n</table>\n");
}

RS_TEST(test_figures, "figure: rendered, and the note when it is not") {
    rs_doc_t d;
    doc_open(&d);
    rs_doc_fig(&d, "f1", "T & B", true);
    rs_doc_fig(&d, "f2", "none", false);
    expect_doc(&d,
               "![T & B](figures/f1.png)\n\n*T & B* (also [SVG](figures/f1.svg), [PDF](figures/f1.pdf))\n\n"
               "*(figure f2 not rendered: see the note above)*\n\n",
               "<figure><img src=\"figures/f1.svg\" alt=\"T &amp; B\" width=\"900\"><figcaption>T &amp; B "
               "(<a href=\"figures/f1.png\">PNG</a>, <a href=\"figures/f1.pdf\">PDF</a>)</figcaption></figure>\n"
               "<p>*(figure f2 not rendered: see the note above)*</p>\n");
}

RS_TEST_PROGRAM("doc")
