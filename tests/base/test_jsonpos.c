/* test_jsonpos.c - key paths to line:column (jsonpos.c): members, array elements, escaped keys and
 * UTF-8 columns; an error at a path, at the nearest enclosing path in the text, at 1:1 without one,
 * with its code; the JSON type names of messages. */
#include <jansson.h>
#include <string.h>

#include "jsonpos.h"
#include "test_main.h"

RS_TEST(test_jsonpos, "paths to line:column") {
    const char *text = "{\"a\": [1, {\"b\\\"c\": [true, \"x\"]}],\n \"\\u00e9\": {\"d\": null}}";
    rs_jsonpos_t *p = rs_jsonpos_scan(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    const struct {
        const char *path;
        int line, col;
    } at[] = {{"", 1, 1}, {"a", 1, 2}, {"a[1]", 1, 11}, {"a[1].b\"c", 1, 12}, {"a[1].b\"c[1]", 1, 27}, {"\xc3\xa9.d", 2, 13}};
    int l, c;
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        CU_ASSERT_EQUAL(rs_jsonpos_find(p, at[i].path, &l, &c), 0);
        CU_ASSERT(l == at[i].line && c == at[i].col);
    }
    CU_ASSERT_EQUAL(rs_jsonpos_find(p, "a[2]", &l, &c), -1);
    CU_ASSERT(l == 0 && c == 0);
    rs_jsonpos_free(p);
}

/* {"a": [1, {"b": 2}], "c": {}} over four lines: a at 2:3, a[0] at 2:9, a[1] at 2:12, a[1].b at 2:13,
 * c at 3:3. */
RS_TEST(test_errf_positions, "an error at a path, the nearest enclosing one, 1:1") {
    const char *text = "{\n  \"a\": [1, {\"b\": 2}],\n  \"c\": {}\n}";
    rs_jsonpos_t *p = rs_jsonpos_scan(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_jsonpos_errf(p, "x.json", "a[1].b", &err, "must be %s, got %d", "odd", 2), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "x.json:2:13: a[1].b: must be odd, got 2");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_jsonpos_errf(p, "x.json", "a[0]", &err, "bad");
    CU_ASSERT_STRING_EQUAL(err.msg, "x.json:2:9: a[0]: bad");
    /* a path not in the text: the nearest enclosing one that is */
    rs_jsonpos_errf(p, "x.json", "a[1].zz", &err, "missing");
    CU_ASSERT_STRING_EQUAL(err.msg, "x.json:2:12: a[1].zz: missing");
    rs_jsonpos_errf(p, "x.json", "c.d[3].e", &err, "missing");
    CU_ASSERT_STRING_EQUAL(err.msg, "x.json:3:3: c.d[3].e: missing");
    rs_jsonpos_errf(p, "x.json", "q", &err, "unknown");
    CU_ASSERT_STRING_EQUAL(err.msg, "x.json:1:1: q: unknown");
    rs_jsonpos_errf(p, "x.json", "", &err, "the top level");
    CU_ASSERT_STRING_EQUAL(err.msg, "x.json:1:1: the top level"); /* no path, no ": " */
    rs_jsonpos_free(p);
    rs_jsonpos_errf(NULL, "y.json", "a.b", &err, "no table"); /* no table: 1:1 */
    CU_ASSERT_STRING_EQUAL(err.msg, "y.json:1:1: a.b: no table");
    rs_jsonpos_free(NULL);
}

RS_TEST(test_type_names, "JSON type names") {
    const char *text = "[{}, [], \"s\", 1, 1.5, true, false, null]";
    json_t *j = json_loads(text, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    const char *want[] = {"an object", "an array", "a string", "an integer", "a number", "a boolean", "a boolean", "null"};
    for (size_t i = 0; i < 8; i++) CU_ASSERT_STRING_EQUAL(rs_json_type_name(json_array_get(j, i)), want[i]);
    json_decref(j);
}

RS_TEST_PROGRAM("jsonpos")
