/* test_plot_table.c - the CSV table reader (plots/plot_table.c): notes anywhere, the header, rows
 * with their line numbers, CR and blank lines, cells split at every comma (quotes kept), the notes'
 * key=value pairs, and each refusal with its exact message, its code and an empty table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "plot_table.h"
#include "test_main.h"

/* Write text to the scratch file name and return its path (valid for the next 7 rs_test_path calls). */
static const char *csv(const char *name, const char *text) {
    const char *p = rs_test_path(name);
    rs_test_write_text(p, text);
    return p;
}

/* rs_table_read of text (written to name) succeeds into t. */
static void read_ok(const char *name, const char *text, rs_table_t *t) {
    rs_err_t err = {0};
    const int rc = rs_table_read(csv(name, text), t, &err);
    if (rc != 0) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/* rs_table_read of path fails with "path" + tail as the message, with code (-1: the opening's, not
 * the reader's), and leaves t empty. */
static void refused(const char *path, const char *tail, int code) {
    rs_table_t t;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_table_read(path, &t, &err), -1);
    char want[1200];
    snprintf(want, sizeof want, "%s%s", path, tail);
    if (strcmp(err.msg, want) != 0) fprintf(stderr, "  got  %s\n  want %s\n", err.msg, want);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    if (code >= 0) CU_ASSERT_EQUAL(err.code, (rs_errc_t)code);
    CU_ASSERT_EQUAL(t.n_cols, 0);
    CU_ASSERT_EQUAL(t.n_rows, 0);
    CU_ASSERT_PTR_NULL(t.cols);
    CU_ASSERT_PTR_NULL(t.notes);
}

/* notes before and between rows, a CRLF header, a blank line, an empty last cell, a quoted cell kept
 * with its quotes */
RS_TEST(test_read, "notes, header, rows, lines, CR, blank lines, quotes kept") {
    rs_table_t t;
    read_ok("t.csv", "# first note\n#   reference=sim other=model_x\na,b,c\r\n1,\"x\",3\n\n# late note key=v\n4,5,\n", &t);
    CU_ASSERT_EQUAL(t.n_cols, 3);
    CU_ASSERT_STRING_EQUAL(t.cols[0], "a");
    CU_ASSERT_STRING_EQUAL(t.cols[2], "c"); /* the CR is dropped */
    CU_ASSERT_EQUAL(t.header_line, 3);
    CU_ASSERT_EQUAL_FATAL(t.n_rows, 2);
    CU_ASSERT_STRING_EQUAL(t.cells[0][0], "1");
    CU_ASSERT_STRING_EQUAL(t.cells[0][1], "\"x\"");
    CU_ASSERT_STRING_EQUAL(t.cells[0][2], "3");
    CU_ASSERT_STRING_EQUAL(t.cells[1][1], "5");
    CU_ASSERT_STRING_EQUAL(t.cells[1][2], "");
    CU_ASSERT_EQUAL(t.lines[0], 4);
    CU_ASSERT_EQUAL(t.lines[1], 7); /* after the blank line and the late note */
    CU_ASSERT_EQUAL_FATAL(t.n_notes, 3);
    CU_ASSERT_STRING_EQUAL(t.notes[0], "first note");
    CU_ASSERT_STRING_EQUAL(t.notes[1], "reference=sim other=model_x"); /* leading spaces dropped */
    CU_ASSERT_STRING_EQUAL(t.notes[2], "late note key=v");
    rs_table_free(&t);
    CU_ASSERT_EQUAL(t.n_rows, 0);
    CU_ASSERT_PTR_NULL(t.cells);
}

/* rs_table_col and rs_table_note: the first match, a key after other words, its value the rest of
 * the note, a word that is not a key */
RS_TEST(test_col_and_note, "column lookup and note pairs") {
    rs_table_t t;
    read_ok("n.csv", "# run a=1 b=two words\n# a=3 note=x\nx,y,x\n1,2,3\n", &t);
    CU_ASSERT_EQUAL(rs_table_col(&t, "x"), 0); /* the first of two */
    CU_ASSERT_EQUAL(rs_table_col(&t, "y"), 1);
    CU_ASSERT_EQUAL(rs_table_col(&t, "z"), -1);
    CU_ASSERT_EQUAL(rs_table_col(&t, ""), -1);
    char buf[64];
    CU_ASSERT_STRING_EQUAL(rs_table_note(&t, "a", buf, sizeof buf), "1 b=two words"); /* the first note's, to its end */
    CU_ASSERT_STRING_EQUAL(rs_table_note(&t, "b", buf, sizeof buf), "two words");
    CU_ASSERT_STRING_EQUAL(rs_table_note(&t, "note", buf, sizeof buf), "x");
    CU_ASSERT_PTR_NULL(rs_table_note(&t, "run", buf, sizeof buf)); /* a word, not a pair */
    CU_ASSERT_PTR_NULL(rs_table_note(&t, "c", buf, sizeof buf));
    char small[3];
    CU_ASSERT_STRING_EQUAL(rs_table_note(&t, "b", small, sizeof small), "tw"); /* cut to the buffer */
    rs_table_free(&t);
}

/* a header alone is a table without rows */
RS_TEST(test_header_only, "a header without rows") {
    rs_table_t t;
    read_ok("h.csv", "# n\nonly\n", &t);
    CU_ASSERT_EQUAL(t.n_cols, 1);
    CU_ASSERT_EQUAL(t.n_rows, 0);
    CU_ASSERT_EQUAL(t.header_line, 2);
    rs_table_free(&t);
}

RS_TEST(test_refused, "refused: width, header, NUL, long line, absent file") {
    /* a comma inside quotes still splits: the row is one column too wide */
    refused(csv("q.csv", "a,b,c\n1,2,3\n7,\"8,9\",10\n"), ":3: expected 3 comma-separated columns (as the header line), got 4",
            RS_ERR_BAD_INPUT);
    refused(csv("short.csv", "a,b\n1\n"), ":2: expected 2 comma-separated columns (as the header line), got 1", RS_ERR_BAD_INPUT);
    refused(csv("notes.csv", "# a\n\n"), ":3: expected a header line of column names", RS_ERR_BAD_INPUT);
    refused(csv("empty.csv", ""), ":1: expected a header line of column names", RS_ERR_BAD_INPUT);
    const char *p = rs_test_path("nul.csv");
    FILE *fp = fopen(p, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    static const char nul[] = "a,b\n1,\0002\n";
    CU_ASSERT_EQUAL(fwrite(nul, 1, sizeof nul - 1, fp), 9);
    fclose(fp);
    refused(p, ":2: expected text, found a NUL byte", RS_ERR_BAD_INPUT);
    char *big = malloc(70000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    memset(big, 'x', 69998);
    big[69998] = '\n';
    big[69999] = 0;
    refused(csv("long.csv", big), ":1: line longer than 65536 bytes (not a CSV table)", RS_ERR_BAD_INPUT);
    free(big);
    refused(rs_test_path("absent.csv"), ": cannot read: No such file or directory", -1);
}

RS_TEST_MAIN(.suite = "plot_table", .scratch = "plot_table", .keep_failed = true)
