/* test_jsonw.c - writing JSON by hand (jsonw.c): the bytes of numbers (the fewest digits that read back,
 * engineering form outside [1e-3, 1e4)), of escaped strings, keys at an indentation, the optional
 * source, and a non-finite number refused. */
#define _GNU_SOURCE /* open_memstream */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "test_main.h"

/* What f writes, as a string (freed by the caller); *bad its rs_jw_t's flag. */
static char *written(void (*f)(rs_jw_t *w, const void *arg), const void *arg, int *bad) {
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    rs_jw_t w = {fp, 0};
    f(&w, arg);
    fclose(fp);
    *bad = w.bad;
    return buf;
}

static void put_num(rs_jw_t *w, const void *arg) { rs_jw_num(w, *(const double *)arg); }

static void expect_num(double x, const char *want) {
    int bad;
    char *s = written(put_num, &x, &bad);
    if (strcmp(s, want)) fprintf(stderr, "  %.17g: got '%s', want '%s'\n", x, s, want);
    CU_ASSERT_STRING_EQUAL(s, want);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(strtod(s, NULL), x); /* reads back exactly */
    free(s);
}

RS_TEST(test_numbers, "numbers: fewest digits, engineering form, non-finite refused") {
    expect_num(989e12, "989e12");
    expect_num(3.35e12, "3.35e12");
    expect_num(3e-6, "3e-6");
    expect_num(-2.5e-4, "-250e-6");
    expect_num(1e4, "10e3");
    expect_num(450e9, "450e9");
    expect_num(0.5, "0.5");
    expect_num(1234.5, "1234.5");
    expect_num(0.001, "0.001");
    expect_num(0, "0");
    expect_num(-3, "-3");
    expect_num(0.1 + 0.2, "0.30000000000000004"); /* 17 digits when fewer do not read back */
    double third = 1.0 / 3.0;
    int bad;
    char *s = written(put_num, &third, &bad);
    CU_ASSERT_EQUAL(strtod(s, NULL), third);
    CU_ASSERT_STRING_EQUAL(s, "0.3333333333333333"); /* 16 digits read back */
    free(s);
    const double inf = INFINITY, nan = NAN;
    s = written(put_num, &inf, &bad);
    CU_ASSERT_STRING_EQUAL(s, ""); /* nothing written */
    CU_ASSERT_EQUAL(bad, 1);
    free(s);
    s = written(put_num, &nan, &bad);
    CU_ASSERT_EQUAL(bad, 1);
    free(s);
}

static void put_str(rs_jw_t *w, const void *arg) { rs_jw_str(w, arg); }

static void put_object(rs_jw_t *w, const void *arg) {
    (void)arg;
    fputs("{", w->fp);
    rs_jw_str_at(w, 2, "name", "H100", true);
    rs_jw_num_at(w, 2, "bw", 450e9, false);
    rs_jw_source(w, 2, NULL, false); /* no note: nothing */
    rs_jw_key(w, 2, "tier", false);
    fputs("{", w->fp);
    rs_jw_source(w, 4, "datasheet", true);
    fputs("\n  }\n}", w->fp);
}

RS_TEST(test_strings_and_keys, "strings escaped, keys indented, the optional source") {
    int bad;
    char *s = written(put_str, "a\"b\\c\nd\t", &bad);
    CU_ASSERT_STRING_EQUAL(s, "\"a\\\"b\\\\c\\nd\\t\"");
    free(s);
    s = written(put_str, "caf\xc3\xa9", &bad);
    CU_ASSERT_STRING_EQUAL(s, "\"caf\xc3\xa9\""); /* UTF-8 as it is */
    CU_ASSERT_EQUAL(bad, 0);
    free(s);
    s = written(put_object, NULL, &bad);
    CU_ASSERT_STRING_EQUAL(s, "{\n  \"name\": \"H100\",\n  \"bw\": 450e9,\n  \"tier\": {\n    \"source\": \"datasheet\"\n  }\n}");
    CU_ASSERT_EQUAL(bad, 0);
    free(s);
}

RS_TEST_PROGRAM("jsonw")
