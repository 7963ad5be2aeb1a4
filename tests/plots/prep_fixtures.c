/* prep_fixtures.c - the tests of the figures' preparation share these (prep_fixtures.h). */
#include "prep_fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_main.h"

const char *csv(const char *name, const char *text) {
    const char *p = rs_test_path(name);
    rs_test_write_text(p, text);
    return p;
}

void prepared(rs_plot_kind_t kind, const char *path, const rs_plot_opts_t *o, const char *want) {
    char *vars = NULL;
    rs_err_t err = {0};
    const int rc = rs_plot_prepare(kind, path, o, &vars, &err);
    if (rc != 0) fprintf(stderr, "  %s: %s\n", rs_plot_kind_name(kind), err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    const char *got = vars ? vars : "";
    if (strcmp(got, want) != 0) fprintf(stderr, "  got  %s\n  want %s\n", got, want);
    CU_ASSERT_STRING_EQUAL(got, want);
    free(vars);
}

const char *prepared_csv(rs_plot_kind_t kind, const char *name, const char *text, const rs_plot_opts_t *o,
                         const char *want) {
    const char *p = csv(name, text);
    prepared(kind, p, o, want);
    return p;
}

void refused(rs_plot_kind_t kind, const char *path, const rs_plot_opts_t *o, const char *want) {
    char expect[2048] = "";
    for (const char *s = want; *s; s++) {
        const size_t n = strlen(expect);
        if (*s == '@') snprintf(expect + n, sizeof expect - n, "%s", path);
        else snprintf(expect + n, sizeof expect - n, "%c", *s);
    }
    char *vars = (char *)"unchanged";
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_plot_prepare(kind, path, o, &vars, &err), -1);
    if (strcmp(err.msg, expect) != 0) fprintf(stderr, "  got  %s\n  want %s\n", err.msg, expect);
    CU_ASSERT_STRING_EQUAL(err.msg, expect);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_PTR_NULL(vars);
}

void refused_rows(rs_plot_kind_t kind, const char *head, const bad_t *bad) {
    for (int i = 0; bad[i].rows; i++) {
        char name[64], text[2048];
        snprintf(name, sizeof name, "bad-%s-%d.csv", rs_plot_kind_name(kind), i);
        snprintf(text, sizeof text, "%s%s", head, bad[i].rows);
        refused(kind, csv(name, text), NULL, bad[i].want);
    }
}

const char *var(const char *vars, const char *name, char *buf, size_t len) {
    char key[64];
    snprintf(key, sizeof key, "%s=", name);
    const char *s = vars;
    buf[0] = 0;
    while (s && *s) {
        if (!strncmp(s, key, strlen(key))) {
            s += strlen(key);
            snprintf(buf, len, "%.*s", (int)strcspn(s, ";"), s);
            return buf;
        }
        s = strchr(s, ';');
        if (s) s++;
    }
    return buf;
}

