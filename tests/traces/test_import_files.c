/* test_import_files.c - the input files of an import (traces/import_files.c): natural order (rank2
 * before rank10), a directory tree's trace files listed in that order (others and hidden ones left out),
 * the format told from the first bytes (gzip, plain JSON, SQLite, other bytes) with the exact
 * refusals; through the import too (one line, RS_ERR_BAD_INPUT). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "import_check.h"
#include "import_files.h"
#include "test_main.h"
#include "traces_check.h"

static int sign(int x) { return (x > 0) - (x < 0); }

RS_TEST(test_natural_order, "natural order") {
    struct {
        const char *a, *b;
        int cmp;
    } cases[] = {
        {"rank2", "rank10", -1},  {"rank10", "rank9", 1}, {"rank10", "rank10", 0}, {"a07", "a7", 0},
        {"a007b", "a7c", -1},     {"a", "a1", -1},         {"a1", "a", 1},          {"x.json", "x.json.gz", -1},
        {"r1_s10", "r1_s2", 1},   {"r2_s1", "r10_s0", -1}, {"B", "a", -1},          {"a\xe9", "az", 1}, /* bytes unsigned */
        {"", "", 0},              {"", "0", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int c = sign(rs_natural_cmp(cases[i].a, cases[i].b));
        if (c != cases[i].cmp) fprintf(stderr, "  '%s' vs '%s': %d, want %d\n", cases[i].a, cases[i].b, c, cases[i].cmp);
        CU_ASSERT_EQUAL(c, cases[i].cmp);
    }
}

RS_TEST(test_list_files, "a directory's trace files in natural order; refusals") {
    const char *dir = rs_test_fresh_dir("walk");
    const char *names[] = {"rank10.json", "rank2.json.gz", "rank1.sqlite", "rank9.json", "notes.txt", ".hidden.json", "rank3.json.bak"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        rs_test_write_text(p, "{}");
    }
    char sub[1200], deep[1300];
    snprintf(sub, sizeof sub, "%s/sub.json", dir); /* a directory, even one named like a trace, is searched */
    mkdir(sub, 0777);
    snprintf(deep, sizeof deep, "%s/rank4.json", sub);
    rs_test_write_text(deep, "{}");
    snprintf(deep, sizeof deep, "%s/notes.txt", sub);
    rs_test_write_text(deep, "{}");
    char file[1200];
    snprintf(file, sizeof file, "%s/rank9.json", dir);
    const char *paths[2] = {file, dir};
    char **out = NULL;
    rs_err_t err = {0};
    long n = rs_import_list_files(paths, 2, &out, &err);
    CU_ASSERT_EQUAL_FATAL(n, 6);
    const char *want[6] = {"rank9.json", "rank1.sqlite", "rank2.json.gz", "rank9.json", "rank10.json", "sub.json/rank4.json"};
    for (long i = 0; i < n; i++) {
        char w[1200];
        snprintf(w, sizeof w, "%s/%s", dir, want[i]);
        CU_ASSERT_STRING_EQUAL(out[i], w);
        free(out[i]);
    }
    free(out);
    /* refusals */
    const char *empty = rs_test_fresh_dir("walk_empty");
    char msg[1300];
    const char *p1[1] = {empty};
    CU_ASSERT_EQUAL(rs_import_list_files(p1, 1, &out, &err), -1);
    snprintf(msg, sizeof msg, "%s: no trace files in the directory tree (expected *.json, *.json.gz, *.sqlite or *_kernel_trace.csv)", empty);
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    const char *p2[1] = {rs_test_path("nowhere")};
    rs_err_clear(&err);
    CU_ASSERT_EQUAL(rs_import_list_files(p2, 1, &out, &err), -1);
    snprintf(msg, sizeof msg, "%s: cannot open: No such file or directory", p2[0]);
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(rs_import_list_files(NULL, 0, &out, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "no trace file given");
}

/* The format of a file holding bytes[0..n). */
static int sniff(const char *name, const void *bytes, size_t n, rs_import_format_t *f, rs_err_t *err) {
    FILE *fp = fopen(rs_test_path(name), "wb");
    CU_ASSERT_FATAL(fp != NULL);
    fwrite(bytes, 1, n, fp);
    fclose(fp);
    *f = RS_IMPORT_AUTO;
    rs_err_clear(err);
    return rs_import_sniff_format(rs_test_path(name), f, err);
}

RS_TEST(test_sniff, "format from the first bytes; refusals") {
    rs_import_format_t f;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(sniff("a.json", "{\"traceEvents\": []}", 19, &f, &err), 0);
    CU_ASSERT_EQUAL(f, RS_IMPORT_KINETO);
    CU_ASSERT_EQUAL(sniff("b.json", " \n\t\r {", 6, &f, &err), 0); /* white space before the object */
    CU_ASSERT_EQUAL(f, RS_IMPORT_KINETO);
    const unsigned char gz[] = {0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0};
    CU_ASSERT_EQUAL(sniff("c.json.gz", gz, sizeof gz, &f, &err), 0);
    CU_ASSERT_EQUAL(f, RS_IMPORT_KINETO);
    CU_ASSERT_EQUAL(sniff("d.sqlite", "SQLite format 3\0\x10\0\x01\x01", 21, &f, &err), 0);
    CU_ASSERT_EQUAL(f, RS_IMPORT_NSYS);
    /* refusals */
    char msg[1300];
    CU_ASSERT_EQUAL(sniff("e.sqlite", "SQLite format 2\0", 16, &f, &err), -1);
    snprintf(msg, sizeof msg, "%s: not a Kineto JSON trace (plain or gzip), an Nsight Systems SQLite export "
                              "(.nsys-rep reports: convert with nsys export --type sqlite) nor a rocprofv3 kernel trace CSV "
                              "(its header names Kernel_Name)", rs_test_path("e.sqlite"));
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(sniff("f.nsys-rep", "\x01\x02\x03\x04", 4, &f, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "f.nsys-rep: not a Kineto JSON trace (plain or gzip), an Nsight"));
    CU_ASSERT_EQUAL(sniff("g.json", "  [1, 2]", 8, &f, &err), -1); /* JSON, but not an object */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "g.json: not a Kineto JSON trace"));
    CU_ASSERT_EQUAL(sniff("h.json", "", 0, &f, &err), -1);
    snprintf(msg, sizeof msg, "%s: empty file (expected a Kineto JSON trace or an Nsight Systems SQLite export)", rs_test_path("h.json"));
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(f, RS_IMPORT_AUTO); /* untouched */
    rs_err_clear(&err);
    CU_ASSERT_EQUAL(rs_import_sniff_format(rs_test_path("nowhere.json"), &f, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nowhere.json: cannot read"));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_STRING_EQUAL(rs_import_format_name(RS_IMPORT_AUTO), "auto");
    CU_ASSERT_STRING_EQUAL(rs_import_format_name(RS_IMPORT_KINETO), "kineto");
    CU_ASSERT_STRING_EQUAL(rs_import_format_name(RS_IMPORT_NSYS), "nsys");
}

/* The same refusals through the import: one line naming the file. */
RS_TEST(test_import_refusals, "refused files through the import") {
    rs_import_opts_t o = it_opts();
    rs_test_write_text(rs_test_path("text.json"), "rank,step\n0,1\n");
    it_expect_fail(rs_test_path("text.json"), &o, "text.json: not a Kineto JSON trace", RS_ERR_BAD_INPUT);
    rs_test_write_text(rs_test_path("empty.json"), "");
    it_expect_fail(rs_test_path("empty.json"), &o, "empty.json: empty file", RS_ERR_BAD_INPUT);
    it_expect_fail(rs_test_path("no-such-file.json"), &o, "no-such-file.json: cannot open", RS_ERR_BAD_INPUT);
}

RS_TEST_PROGRAM_IN("import_files")
