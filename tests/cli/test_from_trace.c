/* test_from_trace.c - calibrate / validate --from-trace (cli/from_trace.c): the trace files (the
 * option's and the positional ones), the problem options given over import's defaults, --dtype and
 * --latency, every option that cannot apply refused with its reason, the traces checked as inputs. */
#include <stdlib.h>
#include <string.h>

#include "cli_test.h"
#include "from_trace.h"
#include "harness.h"
#include "study_calibrate.h"
#include "test_main.h"

#ifdef RINGSIM_HAVE_EXEC
typedef struct {
    const char *out, *from_trace, *calibrated;
    int64_t blocks;
} own_t;
#define O(field) offsetof(own_t, field)
static const rs_opt_t own_opts[] = {
    {"out", 0, "FILE", NULL, "the profile", RS_ARG_OUT, O(out), 0, 0, NULL, NULL, NULL},
    {"calibrated", 0, "FILE", NULL, "a profile", RS_ARG_IN, O(calibrated), 0, 0, NULL, NULL, NULL},
    {"blocks", 0, "B", NULL, "a block size", RS_ARG_SIZE, O(blocks), 1, 1 << 20, NULL, NULL, NULL},
    {"from-trace", 0, "FILE", NULL, "a trace", RS_ARG_STRING, O(from_trace), 0, 0, NULL, NULL, NULL},
};
#undef O

static rs_calibrate_in_t j;
static rs_cli_exec_cmd_t e;
static own_t own;

static void parse(const char *words) {
    int argc;
    char **argv = rs_cli_test_argv("calibrate", words, &argc);
    rs_calibrate_defaults(&j);
    memset(&own, 0, sizeof own);
    CU_ASSERT_EQUAL_FATAL(rs_cli_exec_parse("calibrate", argc, argv, RS_OPT_GROUP(own_opts, &own),
                                            (rs_cli_measure_t){&j.backend, &j.problem, &j.dtype, &j.job}, &e),
                          -1);
}

static void expect_refused(const char *words, const char *applies, const char *msg) {
    parse(words);
    const char *paths[RS_TFIT_MAX_TRACES];
    rs_tfit_opts_t o;
    rs_err_t err = {0};
    rs_cli_test_expect_refused(words, rs_cli_from_trace_opts(&e, own.from_trace, applies, paths, &o, &err), &err, msg);
}

RS_TEST(test_traces_and_problem, "the traces and the problem options given") {
    parse("--out p.json --from-trace a.csv b.csv c.csv -S 8K --no-causal --dtype bf16 --latency 2e-6");
    const char *paths[RS_TFIT_MAX_TRACES];
    rs_tfit_opts_t o;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_cli_from_trace_opts(&e, own.from_trace, "out", paths, &o, &err), 0);
    CU_ASSERT_EQUAL_FATAL(o.n_paths, 3);
    CU_ASSERT_STRING_EQUAL(o.paths[0], "a.csv");
    CU_ASSERT_STRING_EQUAL(o.paths[2], "c.csv");
    CU_ASSERT_EQUAL(o.given, (1u << RS_TFIT_KEY_SEQ) | (1u << RS_TFIT_KEY_CAUSAL) | (1u << RS_TFIT_KEY_ACT_BYTES));
    CU_ASSERT_EQUAL(o.problem.seq_tokens, 8192);
    CU_ASSERT(!o.problem.causal);
    CU_ASSERT_EQUAL(o.problem.act_bytes, 2);
    rs_setup_t d;
    rs_setup_default(&d);
    CU_ASSERT_EQUAL(o.problem.q_heads, d.problem.q_heads); /* not given: import's default, not the measurement's */
    CU_ASSERT(o.dtype_given);
    CU_ASSERT_EQUAL(o.dtype, RS_DTYPE_BF16);
    RS_ASSERT_REL(o.latency_s, 2e-6, 1e-15);
    parse("--from-trace a.csv");
    CU_ASSERT_EQUAL_FATAL(rs_cli_from_trace_opts(&e, own.from_trace, "", paths, &o, &err), 0);
    CU_ASSERT_EQUAL(o.n_paths, 1);
    CU_ASSERT_EQUAL(o.given, 0u);
    CU_ASSERT(!o.dtype_given);
    CU_ASSERT(o.latency_s < 0); /* fitted */
}

RS_TEST(test_refusals, "options that cannot apply, refused with the reason") {
    /* the words, the command's own options, the message */
    static const char *const refused[][3] = {
        {"--from-trace a.csv --blocks 8", "out", "--blocks cannot be used with --from-trace (the traces fix B: one trace per block size)"},
        {"--from-trace a.csv --backend cpu", "out",
         "--backend cannot be used with --from-trace (nothing runs on this machine: the traces are the measurements)"},
        {"--from-trace a.csv --ring pass-q", "out",
         "--ring cannot be used with --from-trace (the traces' headers give the ring and the cached tokens)"},
        {"--from-trace a.csv --max-time 9", "out",
         "--max-time cannot be used with --from-trace (nothing runs: there is no run to estimate)"},
        {"--from-trace a.csv -p h200", "out", "--profile cannot be used with --from-trace (the profile is fitted from the traces)"},
        {"--from-trace a.csv -p h200", "out,calibrated",
         "--profile cannot be used with --from-trace (the profile is fitted from the traces or read from --calibrated)"},
        {"--from-trace a.csv --calibrated p.json", "out",
         "--calibrated cannot be used with --from-trace (the profile is fitted from the traces)"},
        {"--from-trace a.csv -L zigzag,striped", "out", "--from-trace: give one --layout and one --pass (or none)"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) expect_refused(refused[i][0], refused[i][1], refused[i][2]);
    char many[4096] = "--from-trace t.csv";
    for (int i = 0; i < RS_TFIT_MAX_TRACES; i++) strcat(many, " t.csv");
    expect_refused(many, "out", "--from-trace: at most 64 trace files, got 65");
}

RS_TEST(test_inputs, "the traces checked as inputs") {
    CU_ASSERT_EQUAL_FATAL(rs_test_scratch("from_trace"), 0);
    const char *t = rs_test_path("t.csv");
    rs_test_write_text(t, "# ringsim-trace=1\n");
    char words[2400];
    snprintf(words, sizeof words, "--out %s --from-trace %s", t, t);
    parse(words);
    const char *paths[RS_TFIT_MAX_TRACES];
    rs_tfit_opts_t o;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_cli_from_trace_opts(&e, own.from_trace, "out", paths, &o, &err), 0);
    rs_capture_t c;
    rs_capture_begin(&c, 2);
    CU_ASSERT_EQUAL(rs_cli_check_trace_inputs("calibrate", &e, &o), RS_EXIT_USAGE);
    char *text = rs_capture_end(&c);
    char want[3000];
    snprintf(want, sizeof want, "ringsim calibrate: --out %s: the same file as the input --from-trace %s: an output never replaces "
             "an input\n", t, t);
    CU_ASSERT_STRING_EQUAL(text, want);
    free(text);
    snprintf(words, sizeof words, "--out %s --from-trace %s", rs_test_path("p.json"), t);
    parse(words);
    CU_ASSERT_EQUAL_FATAL(rs_cli_from_trace_opts(&e, own.from_trace, "out", paths, &o, &err), 0);
    CU_ASSERT_EQUAL(rs_cli_check_trace_inputs("calibrate", &e, &o), -1);
    rs_test_cleanup();
}

RS_TEST_PROGRAM("from trace")
#else
RS_TEST_SKIPPED("no executor in this build")
#endif
