/* test_plot_vars.c - gnuplot's -e text (plots/plot_vars.c): each variable ends in ';', strings are
 * single-quoted with '' for a quote, the enhanced-text characters escaped only when asked, numbers
 * with every digit or NaN, and the buffer grows over many additions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_vars.h"
#include "test_main.h"

RS_TEST(test_strings, "strings: quotes, enhanced escapes") {
    plot_vars_t v = {0};
    CU_ASSERT_PTR_NULL(v.buf);
    plot_vars_str(&v, "a", "it's", false);
    CU_ASSERT_STRING_EQUAL(v.buf, "a='it''s';");
    plot_vars_str(&v, "b", "x_1^2{y}@&~", false);
    plot_vars_str(&v, "c", "x_1^2{y}@&~ 'q'", true);
    plot_vars_str(&v, "d", "", true);
    CU_ASSERT_STRING_EQUAL(v.buf, "a='it''s';b='x_1^2{y}@&~';c='x\\_1\\^2\\{y\\}\\@\\&\\~ ''q''';d='';");
    CU_ASSERT_EQUAL(v.len, strlen(v.buf));
    CU_ASSERT_FALSE(v.oom);
    free(v.buf);
}

RS_TEST(test_numbers, "numbers: 17 digits, NaN, printf text") {
    plot_vars_t v = {0};
    plot_vars_num(&v, "x", 0.1);
    plot_vars_num(&v, "n", NAN);
    plot_vars_num(&v, "k", 1024);
    plot_vars_num(&v, "s", -2.5e-7);
    plot_vars_add(&v, "w_px=%d", 640);
    CU_ASSERT_STRING_EQUAL(v.buf, "x=0.10000000000000001;n=NaN;k=1024;s=-2.4999999999999999e-07;w_px=640;");
    free(v.buf);
}

/* 2000 additions: every one kept, in order */
RS_TEST(test_growth, "growth over 2000 additions") {
    plot_vars_t v = {0};
    for (int i = 0; i < 2000; i++) plot_vars_add(&v, "v%d=%d", i, i * 3);
    CU_ASSERT_FALSE(v.oom);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v.buf);
    CU_ASSERT(strncmp(v.buf, "v0=0;v1=3;v2=6;", 15) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(v.buf, ";v1000=3000;v1001=3003;"));
    const char *tail = ";v1999=5997;";
    CU_ASSERT_STRING_EQUAL(v.buf + v.len - strlen(tail), tail);
    size_t want = 0;
    char one[32];
    for (int i = 0; i < 2000; i++) want += (size_t)snprintf(one, sizeof one, "v%d=%d;", i, i * 3);
    CU_ASSERT_EQUAL(v.len, want);
    CU_ASSERT(v.cap > v.len);
    free(v.buf);
}

/* after a failed allocation nothing more is added (the caller checks oom once) */
RS_TEST(test_oom_sticks, "oom is sticky") {
    plot_vars_t v = {0};
    plot_vars_add(&v, "a=%d", 1);
    v.oom = 1;
    plot_vars_add(&v, "b=%d", 2);
    plot_vars_num(&v, "c", 3);
    CU_ASSERT_STRING_EQUAL(v.buf, "a=1;");
    free(v.buf);
}

RS_TEST_PROGRAM("plot_vars")
