/* test_exec_opts.c - the executors' options and a measuring command's line (cli/exec_opts.c): what
 * --backend, --launch, --progress and --loopback store in the study's job, the problem made from the
 * study's default (fp32, N from the launcher's size, who talks), the executor and dtype after
 * finishing with the blocks (S = B N of the last), and the refusals. */
#include <stdlib.h>
#include <string.h>

#include "cli_test.h"
#include "exec_opts.h"
#include "study_calibrate.h"
#include "test_main.h"

#ifdef RINGSIM_HAVE_EXEC
typedef struct {
    const char *out;
} own_t;
static const rs_opt_t own_opts[] = {
    {"out", 0, "FILE", NULL, "the profile", RS_ARG_OUT, offsetof(own_t, out), 0, 0, NULL, NULL, NULL},
};

static rs_calibrate_in_t j;
static rs_cli_exec_cmd_t e;
static own_t own;
static char **words_argv;
static int words_argc;

/* calibrate's line of words (no quoting), parsed into e for the study j (defaults first). */
static int parse(const char *words) {
    words_argv = rs_cli_test_argv("calibrate", words, &words_argc);
    rs_calibrate_defaults(&j);
    memset(&own, 0, sizeof own);
    return rs_cli_exec_parse("calibrate", words_argc, words_argv, RS_OPT_GROUP(own_opts, &own),
                             (rs_cli_measure_t){&j.backend, &j.problem, &j.dtype, &j.job}, &e);
}

RS_TEST(test_parse, "the executors' options and the study's problem") {
    CU_ASSERT_EQUAL_FATAL(parse("--backend cpu --launch threads --progress thread --loopback local -N 3 --heads 4 --kv-heads 4 "
                                "--out p.json"),
                          -1);
    CU_ASSERT_STRING_EQUAL(e.x.backend, "cpu");
    CU_ASSERT_STRING_EQUAL(j.job.launch, "threads");
    CU_ASSERT_EQUAL(j.job.progress, RS_PROGRESS_THREAD);
    CU_ASSERT_STRING_EQUAL(j.job.loopback, "local");
    CU_ASSERT_STRING_EQUAL(own.out, "p.json");
    CU_ASSERT_EQUAL(e.c.problem.n_ranks, 3);
    CU_ASSERT_EQUAL(e.c.problem.q_heads, 4);
    CU_ASSERT_EQUAL(e.c.spec.dtype, RS_DTYPE_FP32); /* the measurement problem's dtype */
    CU_ASSERT(e.loud);
    CU_ASSERT_EQUAL(e.launcher_size, -1);
    CU_ASSERT_EQUAL(e.argc, words_argc);
    CU_ASSERT_PTR_EQUAL(e.argv, words_argv);
    CU_ASSERT(rs_cli_given(&e.groups[2], "heads"));
    CU_ASSERT(rs_cli_given(&e.groups[1], "loopback"));
    /* under a launcher: its size is N, only its rank 0 talks */
    setenv("OMPI_COMM_WORLD_SIZE", "5", 1);
    setenv("OMPI_COMM_WORLD_RANK", "1", 1);
    CU_ASSERT_EQUAL(parse(""), -1);
    unsetenv("OMPI_COMM_WORLD_SIZE");
    unsetenv("OMPI_COMM_WORLD_RANK");
    CU_ASSERT_EQUAL(e.c.problem.n_ranks, 5);
    CU_ASSERT_EQUAL(e.launcher_size, 5);
    CU_ASSERT(!e.loud);
    /* refusals: one line each, exit 2 */
    rs_capture_t c;
    rs_capture_begin(&c, 2);
    CU_ASSERT_EQUAL(parse("--progress fast"), RS_EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("--launch ssh"), RS_EXIT_USAGE);
    char *text = rs_capture_end(&c);
    CU_ASSERT_STRING_EQUAL(text, "ringsim calibrate: --progress fast: expected none, poll or thread\n"
                                 "ringsim calibrate: --launch ssh: expected mpirun or threads\n");
    free(text);
}

RS_TEST(test_finish, "the executor, dtype and problem after the blocks") {
    const int64_t blocks[2] = {16, 32};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(parse("-N 3 --heads 2 --kv-heads 2"), -1);
    CU_ASSERT_EQUAL_FATAL(rs_cli_exec_finish(&e, blocks, 2, &err), 0);
    CU_ASSERT_STRING_EQUAL(j.backend->name, "cpu");
    CU_ASSERT_EQUAL(j.dtype, RS_DTYPE_FP32);  /* the cpu executor's own */
    CU_ASSERT_EQUAL(j.problem.seq_tokens, 96); /* the last block: S = 32 x 3 */
    CU_ASSERT_EQUAL(j.problem.n_ranks, 3);
    CU_ASSERT_PTR_EQUAL(j.job.argc, &e.argc); /* a re-launch repeats the command line */
    CU_ASSERT_PTR_EQUAL(j.job.argv, &e.argv);
    CU_ASSERT_EQUAL_FATAL(parse("--backend tpu"), -1);
    CU_ASSERT_EQUAL(rs_cli_exec_finish(&e, blocks, 2, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--backend tpu: expected cpu or gpu");
    CU_ASSERT_EQUAL_FATAL(parse("--heads 3 --kv-heads 2"), -1);
    CU_ASSERT_EQUAL(rs_cli_exec_finish(&e, blocks, 2, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--heads 3: must be a multiple of --kv-heads 2 (GQA/MQA groups)");
    /* --dtype given: kept (the cpu executor refuses bf16 later, rs_calibrate_finish) */
    CU_ASSERT_EQUAL_FATAL(parse("--dtype bf16"), -1);
    CU_ASSERT_EQUAL_FATAL(rs_cli_exec_finish(&e, blocks, 1, &err), 0);
    CU_ASSERT_EQUAL(j.dtype, RS_DTYPE_BF16);
    CU_ASSERT_EQUAL(j.problem.seq_tokens, 16 * 2);
}

RS_TEST_PROGRAM("exec options")
#else
RS_TEST_SKIPPED("no executor in this build")
#endif
