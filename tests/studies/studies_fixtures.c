/* studies_fixtures.c - what the tests of studies/ share (studies_fixtures.h). */
#include "studies_fixtures.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cost.h"
#include "harness.h"
#include "test_main.h"

void rs_test_h100(rs_machine_t *m, bool dense) {
    rs_hw_t hw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &hw, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, m, &err), 0);
    if (dense) CU_ASSERT_EQUAL_FATAL(rs_machine_set_kernel(m, RS_IMPL_NONE, 0, NULL), 0);
}

rs_trace_t *rs_test_model_trace(const rs_problem_t *p) {
    rs_machine_t m;
    rs_test_h100(&m, true);
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_trace_t *t = rs_trace_create("model");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    rs_walk_t w;
    CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, rs_trace_sink(t), NULL, &w, &err), 0);
    rs_trace_meta_problem(t, p);
    rs_trace_sort(t);
    rs_schedule_free(s);
    return t;
}

bool rs_test_no_nan_word(const char *s) {
    for (const char *q = s; *q; q++) {
        const bool start = q == s || !(isalnum((unsigned char)q[-1]) || q[-1] == '_');
        if (!start) continue;
        if ((!strncasecmp(q, "nan", 3) && !isalnum((unsigned char)q[3])) || (!strncasecmp(q, "inf", 3) && !isalnum((unsigned char)q[3])))
            return false;
    }
    return true;
}

static char report_dir[600];

const char *rs_test_report(const char *name, const char *opts) {
    snprintf(report_dir, sizeof report_dir, "%s", rs_test_path(name));
    char args[2048];
    snprintf(args, sizeof args, "report -o %s %s", report_dir, opts);
    const int rc = rs_test_ringsim(args);
    if (rc != 0) fprintf(stderr, "  ringsim %s: exit %d: %s\n", args, rc, rs_test_err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return report_dir;
}

char *rs_test_report_file(const char *rel) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", report_dir, rel);
    return rs_test_slurp(path, NULL);
}

void rs_test_setup_finish(rs_setup_t *s) {
    rs_err_t err = {0};
    const int rc = rs_setup_finish(s, &err);
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}

FILE *rs_test_planning_inputs(rs_transformer_t *model) {
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_transformer_load("llama3-8b", model, &err), 0);
    FILE *out = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    return out;
}

char *rs_test_read_back(FILE *fp) {
    const long n = ftell(fp);
    char *buf = calloc((size_t)(n > 0 ? n : 0) + 1, 1);
    rewind(fp);
    if (buf && n > 0) CU_ASSERT_EQUAL(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    return buf;
}
