/* traces_check.c - what the tests of traces/ share (traces_check.h). */
#include "traces_check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

rs_trace_t *tc_ring_trace(int n, double T, double tc, double tm) {
    rs_trace_t *t = rs_trace_create("model");
    rs_problem_t p;
    rs_problem_default(&p);
    p.n_ranks = n;
    p.seq_tokens = 1024 * n;
    rs_trace_meta_problem(t, &p);
    rs_trace_set_meta(t, "profile", "h100-sxm");
    for (int r = 0; r < n; r++)
        for (int k = 0; k < n; k++) {
            double t0 = k * T + r * 1e-7 / 3.0;
            rs_event_t c = {r, k, RS_PASS_FORWARD, RS_EV_COMPUTE, -1, t0, t0 + tc, 8.6e9 / 3.0, 0};
            rs_event_t s = {r, k, RS_PASS_FORWARD, RS_EV_SEND, (r + 1) % n, t0, t0 + tm, 0, 1048576.0};
            rs_event_t v = {r, k, RS_PASS_FORWARD, RS_EV_RECV, (r + n - 1) % n, t0, t0 + tm, 0, 1048576.0};
            rs_event_t st = {r, k, RS_PASS_FORWARD, RS_EV_STEP, -1, t0, t0 + T, 0, 0};
            rs_trace_add(t, &c);
            if (k < n - 1) {
                rs_trace_add(t, &s);
                rs_trace_add(t, &v);
            }
            rs_trace_add(t, &st);
        }
    return t;
}

void tc_contains(const char *text, const char *const *needles, size_t n, bool in_order) {
    const char *at = text;
    for (size_t i = 0; i < n; i++) {
        const char *f = strstr(in_order ? at : text, needles[i]);
        if (!f) fprintf(stderr, "  missing%s: %s\n", in_order ? " (in order)" : "", needles[i]);
        CU_ASSERT_PTR_NOT_NULL(f);
        if (f && in_order) at = f + strlen(needles[i]);
    }
    if (in_order) CU_ASSERT_EQUAL(*at, 0);
}

void tc_dir_refused(int (*write)(const rs_trace_t *t, const char *path, rs_err_t *err), const rs_trace_t *t) {
    rs_err_t err = {0};
    mkdir(rs_test_path("adir"), 0777);
    CU_ASSERT_EQUAL(write(t, rs_test_path("adir"), &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "adir: cannot write: is a directory"));
    struct stat st;
    CU_ASSERT(stat(rs_test_path("adir"), &st) == 0 && S_ISDIR(st.st_mode));
    rmdir(rs_test_path("adir"));
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
}

void tc_table(const char *table, int nf, void (*fn)(char **f, void *ctx), void *ctx) {
    char *copy = strdup(table), *save = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[8];
        int n = 0;
        for (char *c = line; n < 8;) {
            f[n++] = c;
            char *sep = strstr(c, " | ");
            if (!sep) break;
            *sep = '\0';
            c = sep + 3;
        }
        CU_ASSERT_EQUAL(n, nf);
        if (n == nf) fn(f, ctx);
    }
    free(copy);
}
