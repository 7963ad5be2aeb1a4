/* test_import_value.c - the validating accessors of the trace readers (traces/import_value.c): a
 * JSON value (microseconds text to exact nanoseconds, integers, a number written as a string where
 * the rule allows it, every wrong type, a negative or underflowing literal, the range) and an SQLite
 * column (INTEGER, a REAL holding an integer, NULL optional or required, TEXT, BLOB), each refusal's
 * exact message; an interval's order; the span of a file's kernels at and past 24 h; a value that
 * must be text; a kernel's grid and block (three integers, each at least 1); a rank list (distinct
 * ranks, ranges, a list the profiler cut, every malformed one refused with its message). */
#include <stdio.h>
#include <string.h>

#include "import_value.h"
#include "test_main.h"
#include "traces_check.h"

static const rs_vat_t AT = {"f.json", NULL, 7};

static int json(const rs_vrule_t *r, rs_jv_type_t t, const char *text, int64_t *out, rs_err_t *err) {
    rs_jv_t v;
    rs_jv_set(&v, t, text, text ? strlen(text) : 0);
    rs_err_clear(err);
    return rs_value_json(&AT, r, &v, out, err);
}

RS_TEST(test_json, "a JSON value under its rule") {
    rs_err_t err = {0};
    int64_t v = -1;
    CU_ASSERT(json(&RS_V_KINETO_TS, RS_JV_NUMBER, "5029783.925", &v, &err) == 0 && v == 5029783925LL); /* exact, no double */
    CU_ASSERT(json(&RS_V_KINETO_TS, RS_JV_NUMBER, "10.0005", &v, &err) == 0 && v == 10001);           /* rounded at the ns digit */
    CU_ASSERT(json(&RS_V_KINETO_TS, RS_JV_NUMBER, "1.5e1", &v, &err) == 0 && v == 15000);
    CU_ASSERT(json(&RS_V_KINETO_TS, RS_JV_NUMBER, "0", &v, &err) == 0 && v == 0);
    CU_ASSERT(json(&RS_V_KINETO_TS, RS_JV_NUMBER, "4e15", &v, &err) == 0 && v == 4000000000000000000LL); /* the top of the range */
    CU_ASSERT(json(&RS_V_KINETO_BASE, RS_JV_NUMBER, "1700000000000000123", &v, &err) == 0 && v == 1700000000000000123LL); /* all 19 digits */
    CU_ASSERT(json(&RS_V_KINETO_BASE, RS_JV_STRING, "1000", &v, &err) == 0 && v == 1000);
    v = 42;
    CU_ASSERT(json(&RS_V_KINETO_BASE, RS_JV_ABSENT, NULL, &v, &err) == 1 && v == 42); /* optional: absent, untouched */
    const struct {
        const rs_vrule_t *r;
        rs_jv_type_t t;
        const char *text, *msg;
    } bad[] = {
        {&RS_V_KINETO_TS, RS_JV_ABSENT, NULL, "ts missing: expected a number of microseconds in [0, 4e+15]"},
        {&RS_V_KINETO_TS, RS_JV_NULL, "null", "ts null: expected a number of microseconds in [0, 4e+15]"},
        {&RS_V_KINETO_TS, RS_JV_BOOL, "false", "ts false: expected a number of microseconds in [0, 4e+15]"},
        {&RS_V_KINETO_TS, RS_JV_CONTAINER, NULL, "ts an array or object: expected a number of microseconds in [0, 4e+15]"},
        {&RS_V_KINETO_TS, RS_JV_STRING, "12", "ts \"12\": expected a number of microseconds in [0, 4e+15]"}, /* no text for times */
        {&RS_V_KINETO_TS, RS_JV_NUMBER, "4.0000001e15", "ts 4.0000001e15: expected a number of microseconds in [0, 4e+15]"},
        {&RS_V_KINETO_TS, RS_JV_NUMBER, "-0", "ts -0: expected a number of microseconds in [0, 4e+15]"},
        {&RS_V_KINETO_TS, RS_JV_NUMBER, "12345678901234567890123", "ts 12345678901234567890123: expected a number of microseconds in [0, 4e+15]"},
        {&RS_V_KINETO_TS, RS_JV_NUMBER, "2.5e-500", "ts 2.5e-500: not representable as a double (it underflows): expected a number of "
                                                    "microseconds in [0, 4e+15]"},
        {&RS_V_KINETO_DUR, RS_JV_NUMBER, "86400000000.001", "dur 86400000000.001: expected a number of microseconds in [0, 8.64e+10]"},
        {&RS_V_KINETO_BASE, RS_JV_STRING, "soon\x1b[31m", "baseTimeNanoseconds \"soon?[31m\": expected an integer of nanoseconds in [0, 4e+18]"},
        {&RS_V_KINETO_BASE, RS_JV_NUMBER, "1.5", "baseTimeNanoseconds 1.5: expected an integer of nanoseconds in [0, 4e+18]"},
        {&RS_V_KINETO_BASE, RS_JV_STRING, "0123456789012345678901234567890123456789012345678901234567890123456789",
         "baseTimeNanoseconds \"012345678901234567890123456789012345678901234567890123456789...\": expected an integer of nanoseconds in [0, 4e+18]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(json(bad[i].r, bad[i].t, bad[i].text, &v, &err), -1);
        char want[400];
        snprintf(want, sizeof want, "f.json: traceEvents[7]: %s", bad[i].msg);
        CU_ASSERT_STRING_EQUAL(err.msg, want);
        CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    }
}

RS_TEST(test_sql, "an SQLite column under its rule") {
    sqlite3 *db;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(":memory:", &db), SQLITE_OK);
    sqlite3_stmt *st;
    CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(db, "SELECT 1700000000000000123, 2.0, NULL, 'x\ny', x'00', 2.5, -1", -1, &st, NULL), SQLITE_OK);
    CU_ASSERT_EQUAL_FATAL(sqlite3_step(st), SQLITE_ROW);
    const rs_vat_t at = {"f.sqlite", "T", 3};
    rs_err_t err = {0};
    int64_t v = -1;
    CU_ASSERT(rs_value_sql(&at, &RS_V_NSYS_START, st, 0, &v, &err) == 0 && v == 1700000000000000123LL);
    CU_ASSERT(rs_value_sql(&at, &RS_V_NSYS_START, st, 1, &v, &err) == 0 && v == 2); /* a REAL holding an integer */
    v = 9;
    CU_ASSERT(rs_value_sql(&at, &RS_V_NSYS_EPOCH, st, 2, &v, &err) == 1 && v == 9); /* optional NULL */
    const char *want[] = {NULL, NULL, "f.sqlite: T row 3: start NULL: expected an integer of nanoseconds in [0, 4e+18]",
                          "f.sqlite: T row 3: start the text \"x?y\": expected an integer of nanoseconds in [0, 4e+18]",
                          "f.sqlite: T row 3: start a blob: expected an integer of nanoseconds in [0, 4e+18]",
                          "f.sqlite: T row 3: start 2.5: expected an integer of nanoseconds in [0, 4e+18]",
                          "f.sqlite: T row 3: start -1: expected an integer of nanoseconds in [0, 4e+18]"};
    for (int c = 2; c < 7; c++) {
        rs_err_clear(&err);
        CU_ASSERT_EQUAL(rs_value_sql(&at, &RS_V_NSYS_START, st, c, &v, &err), -1);
        CU_ASSERT_STRING_EQUAL(err.msg, want[c]);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

RS_TEST(test_order_span, "end >= start; the span of a file's kernels") {
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_value_order(&AT, "start", 5, "end", 5, &err), 0);
    CU_ASSERT_EQUAL(rs_value_order(&AT, "start", 5, "end", 4, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "f.json: traceEvents[7]: end 4 ns is before start 5 ns: expected end >= start");
    rs_vspan_t s;
    rs_vspan_init(&s);
    const rs_vat_t at = {"f.sqlite", "K", -1};
    CU_ASSERT_EQUAL(rs_vspan_check(&s, &at, &err), 0); /* no kernel */
    rs_vspan_add(&s, 1000, 2000, 1);
    rs_vspan_add(&s, 500, 600, 2);
    rs_vspan_add(&s, 3000, 1000 + RS_V_MAX_SPAN_NS - 500, 3); /* exactly 24 h from the first start */
    CU_ASSERT(s.lo_ns == 500 && s.lo_at == 2 && s.hi_at == 3);
    CU_ASSERT_EQUAL(rs_vspan_check(&s, &at, &err), 0);
    rs_vspan_add(&s, 3000, 1000 + RS_V_MAX_SPAN_NS, 4);
    rs_err_clear(&err);
    CU_ASSERT_EQUAL(rs_vspan_check(&s, &at, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "f.sqlite: K row 2 starts 86400 s (1 days) before K row 4 ends: the kernels of one trace span at most 86400 s (24 h): "
                                    "a time out of line");
    int64_t x;
    CU_ASSERT(rs_value_i64_text("7.0", 3, &x) == 0 && x == 7);
    CU_ASSERT(rs_value_i64_text("-3", 2, &x) == 0 && x == -3);
    CU_ASSERT_EQUAL(rs_value_i64_text("7.5", 3, &x), -1);
    CU_ASSERT_EQUAL(rs_value_i64_text("", 0, &x), -1);
}

static rs_jv_t jv(rs_jv_type_t t, const char *text) {
    rs_jv_t v;
    rs_jv_set(&v, t, text, text ? strlen(text) : 0);
    return v;
}

RS_TEST(test_text_dims, "a value that must be text; a grid or block of three integers") {
    rs_err_t err = {0};
    rs_jv_t v = jv(RS_JV_STRING, "send");
    CU_ASSERT_EQUAL(rs_value_json_text(&AT, "args.Collective name", &v, &err), 0);
    v = jv(RS_JV_ABSENT, NULL);
    CU_ASSERT_EQUAL(rs_value_json_text(&AT, "args.Collective name", &v, &err), 1);
    const struct {
        rs_jv_type_t t;
        const char *text, *msg;
    } bad_text[] = {{RS_JV_NUMBER, "42", "42"}, {RS_JV_STRING, "", "\"\""}, {RS_JV_NULL, "null", "null"}, {RS_JV_CONTAINER, NULL, "an array or object"}};
    for (size_t i = 0; i < sizeof bad_text / sizeof bad_text[0]; i++) {
        v = jv(bad_text[i].t, bad_text[i].text);
        rs_err_clear(&err);
        CU_ASSERT_EQUAL(rs_value_json_text(&AT, "args.dtype", &v, &err), -1);
        char want[200];
        snprintf(want, sizeof want, "f.json: traceEvents[7]: args.dtype %s: expected a non-empty string", bad_text[i].msg);
        CU_ASSERT_STRING_EQUAL(err.msg, want);
        CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    }
    rs_jv_dim3_t d = {.whole = jv(RS_JV_CONTAINER, NULL), .array = true, .n = 3, .v = {jv(RS_JV_NUMBER, "132"), jv(RS_JV_NUMBER, "1"), jv(RS_JV_NUMBER, "2147483647")}};
    int32_t g[3] = {0, 0, 0};
    CU_ASSERT_EQUAL(rs_value_json_dim3(&AT, RS_V_KINETO_GRID, &d, g, &err), 0);
    CU_ASSERT(g[0] == 132 && g[1] == 1 && g[2] == 2147483647);
    rs_jv_dim3_t none = {.whole = jv(RS_JV_ABSENT, NULL)};
    g[0] = 5;
    CU_ASSERT(rs_value_json_dim3(&AT, RS_V_KINETO_GRID, &none, g, &err) == 1 && g[0] == 5); /* absent: untouched */
    /* one entry out of range (each entry's rule: test_import_kineto reads them all from JSON), an
     * array of 2, not an array */
    struct {
        rs_jv_dim3_t d;
        const rs_vrule_t *r;
        const char *msg;
    } bad[] = {
        {{jv(RS_JV_CONTAINER, NULL), true, 3, {jv(RS_JV_NUMBER, "64"), jv(RS_JV_NUMBER, "0"), jv(RS_JV_NUMBER, "1")}}, RS_V_KINETO_GRID,
         "args.grid[1] 0: expected an integer in [1, 2147483647]"},
        {{jv(RS_JV_CONTAINER, NULL), true, 2, {jv(RS_JV_NUMBER, "64"), jv(RS_JV_NUMBER, "1")}}, RS_V_KINETO_GRID,
         "args.grid: an array of 2 entries: expected an array of 3 integers (x, y, z), each in [1, 2147483647]"},
        {{jv(RS_JV_STRING, "64x1x1"), false, 0, {{0}}}, RS_V_KINETO_BLOCK, "args.block \"64x1x1\": expected an array of 3 integers (x, y, z), each in [1, 1024]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rs_err_clear(&err);
        g[0] = g[1] = g[2] = 7;
        CU_ASSERT_EQUAL(rs_value_json_dim3(&AT, bad[i].r, &bad[i].d, g, &err), -1);
        CU_ASSERT(g[0] == 7 && g[1] == 7 && g[2] == 7); /* nothing written on a refusal */
        char want[300];
        snprintf(want, sizeof want, "f.json: traceEvents[7]: %s", bad[i].msg);
        CU_ASSERT_STRING_EQUAL(err.msg, want);
        CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    }
}

/* One case of test_ranks's table (f: the list, the start of its refusal). */
static void ranks_refused(char **f, void *unused) {
    (void)unused;
    rs_err_t err = {0};
    int32_t r[8];
    int n;
    bool cut;
    int64_t max;
    CU_ASSERT_EQUAL(rs_value_ranks(&AT, "L", f[0], r, 8, &n, &cut, &max, &err), -1);
    char want[300];
    snprintf(want, sizeof want, "f.json: traceEvents[7]: %sexpected a list of distinct ranks in [0, 16777215] (\"[0, 2, 4, 6]\")", f[1]);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
}

RS_TEST(test_ranks, "a rank list: distinct ranks in range, ranges, a cut list; every malformed one refused") {
    rs_err_t err = {0};
    int32_t r[8];
    int n = -1;
    bool cut = true;
    int64_t max = -9;
    CU_ASSERT(rs_value_ranks(&AT, "L", "[0, 2, 4, 6]", r, 8, &n, &cut, &max, &err) == 0 && n == 4 && !cut && max == 6 && r[1] == 2 && r[3] == 6);
    CU_ASSERT(rs_value_ranks(&AT, "L", "[6, 4, 2, 0]", r, 8, &n, &cut, &max, &err) == 0 && n == 4 && r[0] == 6 && max == 6); /* order kept */
    CU_ASSERT(rs_value_ranks(&AT, "L", "0-3, 8", r, 8, &n, &cut, &max, &err) == 0 && n == 5 && r[3] == 3 && r[4] == 8 && max == 8);
    CU_ASSERT(rs_value_ranks(&AT, "L", "[]", r, 8, &n, &cut, &max, &err) == 0 && n == 0 && !cut && max == -1);
    CU_ASSERT(rs_value_ranks(&AT, "L", " [ 3 ] ", r, 8, &n, &cut, &max, &err) == 0 && n == 1 && r[0] == 3);
    CU_ASSERT(rs_value_ranks(&AT, "L", "[0, 1, 2, ...]", r, 8, &n, &cut, &max, &err) == 0 && n == 3 && cut && max == 2); /* the profiler's cut */
    CU_ASSERT(rs_value_ranks(&AT, "L", "0-20", r, 8, &n, &cut, &max, &err) == 0 && n == 8 && cut && max == 20);      /* more than the room */
    CU_ASSERT(rs_value_ranks(&AT, "L", "[16777215]", r, 8, &n, &cut, &max, &err) == 0 && max == RS_V_MAX_RANK);
    /* each case: the list | the start of its refusal */
    static const char bad[] =
        "[0, 0, 1] | L \"[0, 0, 1]\": rank 0 appears twice: \n"
        "[0, 1-3, 2] | L \"[0, 1-3, 2]\": rank 2 appears twice: \n"
        "[0, -1] | L \"[0, -1]\": \n"
        "[0, x] | L \"[0, x]\": \n"
        "[0, 1.5] | L \"[0, 1.5]\": \n"
        "[0, 1 | L \"[0, 1\": \n"
        "[0 1] | L \"[0 1]\": \n"
        "[0, 1] 2 | L \"[0, 1] 2\": \n"
        "[0, ] | L \"[0, ]\": \n"
        "[0, 16777216] | L \"[0, 16777216]\": a rank out of range: \n"
        "[7-3] | L \"[7-3]\": a range that runs backwards: \n"
        "all | L \"all\": \n";
    tc_table(bad, 2, ranks_refused, NULL);
    const int32_t twice[] = {3, 1, 3};
    const rs_vat_t hdr = {"f.json", NULL, -1};
    CU_ASSERT_EQUAL(rs_value_ranks_distinct(&hdr, "distributedInfo.pg_config[0].ranks", NULL, twice, 2, &err), 0);
    CU_ASSERT_EQUAL(rs_value_ranks_distinct(&hdr, "distributedInfo.pg_config[0].ranks", NULL, twice, 3, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "f.json: distributedInfo.pg_config[0].ranks: rank 3 appears twice: expected a list of distinct ranks in [0, 16777215] "
                                    "(\"[0, 2, 4, 6]\")");
}

RS_TEST_PROGRAM("import_value")
