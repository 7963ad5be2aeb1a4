/* test_study_fromtrace_traces.c - the traces the --from-trace studies read
 * (studies/study_fromtrace_traces.c): a step's mask kind and call shape from the schedule by hand;
 * a set of the known traces (fromtrace_fixtures.h) and its problems; the refusals of a trace that
 * is not of the problem, each naming the file, as bad input; the profile's dtype. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fromtrace_fixtures.h"
#include "harness.h"
#include "test_main.h"

/* Kinds and call shapes, from the schedule by hand. */
RS_TEST(test_step_kinds, "mask kind and call shape of a step") {
    rs_err_t err;
    struct {
        rs_layout_t layout;
        int64_t rank, step;
        rs_tfit_kind_t kind;
        int64_t q, k;
    } cases[] = {
        /* zigzag, B = 1024 (chunks of 512): step 0 diagonal; owner < rank: all Q x the first KV chunk;
         * owner > rank: the second Q chunk x all KV */
        {RS_LAYOUT_ZIGZAG, 2, 0, RS_TFIT_CAUSAL, 1024, 1024},
        {RS_LAYOUT_ZIGZAG, 2, 1, RS_TFIT_FULL, 1024, 512},
        {RS_LAYOUT_ZIGZAG, 1, 2, RS_TFIT_FULL, 512, 1024},
        /* contiguous: the own block diagonal, an earlier block full, a later one skipped */
        {RS_LAYOUT_CONTIGUOUS, 1, 0, RS_TFIT_CAUSAL, 1024, 1024},
        {RS_LAYOUT_CONTIGUOUS, 1, 1, RS_TFIT_FULL, 1024, 1024},
        {RS_LAYOUT_CONTIGUOUS, 1, 2, RS_TFIT_SKIP, 0, 0},
        /* striped: a KV owner after the rank is the shifted diagonal (j < i) */
        {RS_LAYOUT_STRIPED, 0, 1, RS_TFIT_SHIFTED, 1024, 1024},
        {RS_LAYOUT_STRIPED, 1, 1, RS_TFIT_CAUSAL, 1024, 1024},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        rs_problem_t p = rs_test_problem(4, 1024, cases[c].layout, RS_PASS_FORWARD, true);
        rs_schedule_t *s = rs_schedule_create(&p, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        rs_step_t st;
        rs_schedule_step(s, cases[c].rank, cases[c].step, &st);
        int64_t q, k;
        const rs_tfit_kind_t kind = rs_tfit_step_kind(&st, &q, &k);
        if (kind != cases[c].kind || q != cases[c].q || k != cases[c].k)
            fprintf(stderr, "  case %zu: %s %lldx%lld\n", c, rs_tfit_kind_name(kind), (long long)q, (long long)k);
        CU_ASSERT_EQUAL(kind, cases[c].kind);
        CU_ASSERT_EQUAL(q, cases[c].q);
        CU_ASSERT_EQUAL(k, cases[c].k);
        rs_schedule_free(s);
    }
    /* the backward's tail computes nothing */
    rs_problem_t p = rs_test_problem(4, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    rs_step_t st;
    rs_schedule_step(s, 0, 4, &st);
    int64_t q, k;
    CU_ASSERT_EQUAL(rs_tfit_step_kind(&st, &q, &k), RS_TFIT_SKIP);
    rs_schedule_free(s);
}

RS_TEST(test_set, "the set: paths, problems, schedules; the profile's dtype") {
    rs_tfit_opts_t o = fit_opts(0, N_TRACES);
    rs_err_t err = {0};
    rs_tset_t *ts = rs_tset_load(&o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    CU_ASSERT_EQUAL(rs_tset_count(ts), N_TRACES);
    for (int i = 0; i < N_TRACES; i++) {
        CU_ASSERT_STRING_EQUAL(rs_tset_path(ts, i), paths[i]);
        const rs_problem_t *p = rs_tset_problem(ts, i);
        CU_ASSERT_EQUAL(rs_problem_block(p), blocks[i]);
        CU_ASSERT_EQUAL(p->pass, passes[i]);
        CU_ASSERT_EQUAL(p->n_ranks, 4);
        CU_ASSERT_EQUAL(p->layout, RS_LAYOUT_ZIGZAG);
        CU_ASSERT_EQUAL(rs_schedule_n_steps(rs_tset_schedule(ts, i)), passes[i] == RS_PASS_BACKWARD ? 5 : 4);
        CU_ASSERT(rs_trace_count(rs_tset_trace(ts, i)) > 0);
    }
    CU_ASSERT_EQUAL(rs_tfit_dtype(&o, rs_tset_problem(ts, 0)), RS_DTYPE_BF16);
    rs_tset_free(ts);
    rs_problem_t p;
    rs_problem_default(&p);
    p.act_bytes = 4;
    CU_ASSERT_EQUAL(rs_tfit_dtype(&o, &p), RS_DTYPE_FP32);
    p.act_bytes = 1;
    CU_ASSERT_EQUAL(rs_tfit_dtype(&o, &p), RS_DTYPE_FP8);
    o.dtype_given = true, o.dtype = RS_DTYPE_FP16;
    CU_ASSERT_EQUAL(rs_tfit_dtype(&o, &p), RS_DTYPE_FP16);
}

/* A copy of src with `from` replaced by `to` in every line (NULL: as it is), appending extra. */
static const char *edited(const char *name, const char *src, const char *from, const char *to, const char *extra) {
    char *text = rs_test_slurp(src, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    const char *dst = rs_test_path(name);
    FILE *out = fopen(dst, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *at = from ? strstr(line, from) : NULL;
        if (at) fprintf(out, "%.*s%s%s\n", (int)(at - line), line, to, at + strlen(from));
        else fprintf(out, "%s\n", line);
    }
    if (extra) fputs(extra, out);
    fclose(out);
    free(text);
    return dst;
}

/* Each refusal names the file and says what is wrong; the kind is bad input. */
static void expect_refused(const char *a, const char *b, unsigned given, const char *want) {
    const char *p[2] = {a, b};
    rs_tfit_opts_t o;
    rs_tfit_opts_default(&o);
    o.paths = p, o.n_paths = b ? 2 : 1, o.given = given;
    if (given) o.problem.q_heads = 16;
    rs_err_t err = {0};
    CU_ASSERT_PTR_NULL(rs_tset_load(&o, &err));
    if (!strstr(err.msg, want)) fprintf(stderr, "  '%s' lacks '%s'\n", err.msg, want);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
}

RS_TEST(test_refused, "refusals name the file, as bad input") {
    char want[1400];
    const char *other = edited("other.csv", paths[1], "# head_dim=128", "# head_dim=64", NULL);
    snprintf(want, sizeof want, "%s: head_dim=64, but %s has head_dim=128: traces of one problem shape (only S and the pass may "
                                "differ)", other, paths[0]);
    expect_refused(paths[0], other, 0, want);
    snprintf(want, sizeof want, "%s: q_heads=32 in the header, but 16 was given as an option: a trace of another problem", paths[0]);
    expect_refused(paths[0], NULL, 1u << RS_TFIT_KEY_HEADS, want);
    const char *outside = edited("outside.csv", paths[0], NULL, NULL, "import,9,0,forward,compute,0,1,0,0,-1\n");
    snprintf(want, sizeof want, "%s: event (rank 9, step 0) outside the schedule of its header's problem (4 ranks, 4 steps)", outside);
    expect_refused(outside, NULL, 0, want);
    const char *pass = edited("pass.csv", paths[0], NULL, NULL, "import,0,0,backward,compute,0,1,0,0,-1\n");
    snprintf(want, sizeof want, "%s: a backward event in a trace whose header says pass=forward: one pass per file (as ringsim "
                                "import writes them)", pass);
    expect_refused(pass, NULL, 0, want);
    const char *zero = edited("zero.csv", paths[1], ",0,8388608,", ",0,0,", NULL);
    snprintf(want, sizeof want, "%s: rank 0 step 0: the recv event's byte count is 0 (the schedule moves 8388608 bytes): a transfer "
                                "of 0 bytes cannot be fitted", zero);
    expect_refused(zero, NULL, 0, want);
    expect_refused(rs_test_path("missing.csv"), NULL, 0, "missing.csv");
    rs_tfit_opts_t o;
    rs_tfit_opts_default(&o);
    rs_err_t err = {0};
    CU_ASSERT_PTR_NULL(rs_tset_load(&o, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "--from-trace: give 1 to 64 trace files, got 0");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
}

RS_TEST_MAIN(.suite = "fromtrace_traces", .scratch = "fromtrace_traces", .setup = ft_setup)
