/* test_profile_json.c - checking a profile's JSON (profile_json.c): child paths, accepted keys (fields,
 * texts, <figure>_source) with the exact list in the message, typed members - numbers in range,
 * strings by length, objects - each refusal at its line:column with its code, and loading text whose
 * top level must be an object. */
#include <jansson.h>
#include <string.h>

#include "profile_json.h"
#include "test_main.h"

/* {"dev": {"n": "abcde", "x": 11, "s": "", "note": 3}} on one line: dev at 1:2, dev.n at 1:10, dev.x at
 * 1:24, dev.s at 1:33, dev.note at 1:42. */
static const char *const TEXT = "{\"dev\": {\"n\": \"abcde\", \"x\": 11, \"s\": \"\", \"note\": 3}}";

typedef struct {
    json_t *root;
    rs_jsonpos_t *pos;
    rs_err_t err;
    pj_ctx_t v;
} doc_t;

static void doc_open(doc_t *d, const char *text) {
    memset(d, 0, sizeof *d);
    d->root = pj_load(text, "o.json", &d->pos, &d->err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d->root);
    d->v = (pj_ctx_t){"o.json", d->pos, &d->err};
}

static void doc_close(doc_t *d) {
    json_decref(d->root);
    rs_jsonpos_free(d->pos);
}

static void expect_msg(const doc_t *d, const char *want) {
    if (strcmp(d->err.msg, want)) fprintf(stderr, "  got  '%s'\n  want '%s'\n", d->err.msg, want);
    CU_ASSERT_STRING_EQUAL(d->err.msg, want);
    CU_ASSERT_EQUAL(d->err.code, RS_ERR_BAD_INPUT);
}

RS_TEST(test_join, "child paths") {
    char buf[32];
    CU_ASSERT_STRING_EQUAL(pj_join(buf, sizeof buf, "", "a"), "a");
    CU_ASSERT_STRING_EQUAL(pj_join(buf, sizeof buf, "dev", "x"), "dev.x");
    CU_ASSERT_STRING_EQUAL(pj_join(buf, 6, "dev", "xyz"), "dev.x"); /* truncated */
}

RS_TEST(test_keys, "accepted keys, texts and <figure>_source") {
    static const char *const fields[] = {"a", "b", NULL}, *const texts[] = {"source", "note", NULL}, *const figs[] = {"b", NULL};
    doc_t d;
    doc_open(&d, "{\"a\": 1, \"b_source\": \"s\", \"note\": \"n\", \"b\": 2}");
    CU_ASSERT_EQUAL(pj_check_keys((pj_obj_t){&d.v, "", d.root}, fields, texts, figs), 0);
    doc_close(&d);
    doc_open(&d, "{\"a\": 1,\n \"zz\": 2}");
    CU_ASSERT_EQUAL(pj_check_keys((pj_obj_t){&d.v, "", d.root}, fields, texts, figs), -1);
    expect_msg(&d, "o.json:2:2: zz: unknown key (accepted: a, b, source, note, <figure>_source)");
    CU_ASSERT_EQUAL(pj_check_keys((pj_obj_t){&d.v, "", d.root}, fields, texts, NULL), -1);
    expect_msg(&d, "o.json:2:2: zz: unknown key (accepted: a, b, source, note)"); /* no figures */
    doc_close(&d);
    doc_open(&d, TEXT);
    const pj_obj_t dev = {&d.v, "dev", json_object_get(d.root, "dev")};
    static const char *const dev_fields[] = {"n", "x", "s", NULL};
    CU_ASSERT_EQUAL(pj_check_keys(dev, dev_fields, texts, NULL), -1);
    expect_msg(&d, "o.json:1:42: dev.note: must be a string, got an integer");
    doc_close(&d);
}

RS_TEST(test_members, "numbers, strings and objects with their refusals") {
    doc_t d;
    doc_open(&d, TEXT);
    const pj_obj_t dev = {&d.v, "dev", json_object_get(d.root, "dev")};
    double x = -1;
    CU_ASSERT_EQUAL(pj_num(dev, "y", false, (rs_range_t){0, 10}, &x), 0); /* absent, optional */
    CU_ASSERT_EQUAL(x, -1);
    CU_ASSERT_EQUAL(pj_num(dev, "y", true, (rs_range_t){0, 10}, &x), -1);
    expect_msg(&d, "o.json:1:2: dev: missing key 'y'");
    CU_ASSERT_EQUAL(pj_num(dev, "x", true, (rs_range_t){0, 10}, &x), -1);
    expect_msg(&d, "o.json:1:24: dev.x: must be in [0, 10], got 11");
    CU_ASSERT_EQUAL(pj_num(dev, "x", true, (rs_range_t){0, 20}, &x), 1);
    CU_ASSERT_EQUAL(x, 11);
    CU_ASSERT_EQUAL(pj_num(dev, "n", true, (rs_range_t){0, 20}, &x), -1);
    expect_msg(&d, "o.json:1:10: dev.n: must be a number, got a string");
    char s[8] = "?";
    CU_ASSERT_EQUAL(pj_str(dev, "n", true, true, s, 4), -1);
    expect_msg(&d, "o.json:1:10: dev.n: must be at most 3 characters, got 5");
    CU_ASSERT_EQUAL(pj_str(dev, "n", true, true, s, sizeof s), 1);
    CU_ASSERT_STRING_EQUAL(s, "abcde");
    CU_ASSERT_EQUAL(pj_str(dev, "s", true, true, s, sizeof s), -1);
    expect_msg(&d, "o.json:1:33: dev.s: must not be empty");
    CU_ASSERT_EQUAL(pj_str(dev, "s", true, false, NULL, 4), 1); /* only checked */
    CU_ASSERT_EQUAL(pj_str(dev, "x", false, false, s, sizeof s), -1);
    expect_msg(&d, "o.json:1:24: dev.x: must be a string, got an integer");
    int bad = -1;
    const pj_obj_t top = {&d.v, "", d.root};
    CU_ASSERT_PTR_EQUAL(pj_obj(top, "dev", true, &bad), json_object_get(d.root, "dev"));
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_PTR_NULL(pj_obj(top, "tiers", false, &bad));
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_PTR_NULL(pj_obj(top, "tiers", true, &bad));
    CU_ASSERT_EQUAL(bad, 1);
    expect_msg(&d, "o.json:1:1: missing key 'tiers'");
    CU_ASSERT_PTR_NULL(pj_obj(dev, "x", true, &bad));
    CU_ASSERT_EQUAL(bad, 1);
    expect_msg(&d, "o.json:1:24: dev.x: must be an object, got an integer");
    doc_close(&d);
}

RS_TEST(test_load, "the top level must be an object; jansson's syntax errors") {
    rs_jsonpos_t *pos = (rs_jsonpos_t *)1;
    rs_err_t err = {0};
    CU_ASSERT_PTR_NULL(pj_load("[1, 2]", "o.json", &pos, &err));
    CU_ASSERT_PTR_NULL(pos);
    CU_ASSERT_STRING_EQUAL(err.msg, "o.json:1:1: the top level must be an object, got an array");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_err_clear(&err);
    CU_ASSERT_PTR_NULL(pj_load("{\"a\": 1, \"a\": 2}", "o.json", &pos, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "o.json:1:12: duplicate object key near '\"a\"'");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
}

RS_TEST_PROGRAM("profile json")
