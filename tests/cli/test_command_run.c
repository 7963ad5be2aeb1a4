/* test_command_run.c - how a command reads its command line (cli/command_run.c): positional
 * arguments against the command's entry, the exit codes and lines of --help and of a bad option,
 * the help hook, the usage line, the command line as text, the kernel notes kept for the end. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli_test.h"
#include "command_run.h"
#include "test_main.h"

typedef struct {
    int64_t k;
} demo_t;

static const rs_opt_t demo_opts[] = {
    {"k", 'k', "K", "2", "a number", RS_ARG_SIZE, offsetof(demo_t, k), 1, 9, NULL, NULL, NULL},
};

static const rs_command_t demo_cmd = {"demo", "a demo", NULL, NULL, 1, "usage: ringsim demo [options] [X]\n\n", NULL};

RS_TEST(test_positional, "positional arguments against the command's entry") {
    demo_t d = {0};
    rs_opt_group_t g = RS_OPT_GROUP(demo_opts, &d);
    rs_err_t err = {0};
    char *one[] = {"demo", "-k", "3", "x", NULL}, *two[] = {"demo", "x", "y", NULL}, *help[] = {"demo", "y", "z", "-h", NULL};
    CU_ASSERT_EQUAL(rs_cli_command_parse(&demo_cmd, 4, one, &g, 1, &err), 0);
    CU_ASSERT_EQUAL(d.k, 3);
    CU_ASSERT_EQUAL(optind, 3);
    CU_ASSERT_EQUAL(rs_cli_command_parse(&demo_cmd, 3, two, &g, 1, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "unexpected argument 'y' (see ringsim demo --help)");
    CU_ASSERT_EQUAL(rs_cli_command_parse(&demo_cmd, 4, help, &g, 1, &err), 1); /* --help: no count checked */
    const rs_command_t any = {"any", "", NULL, NULL, -1, "", NULL};                 /* -1: the command checks them */
    CU_ASSERT_EQUAL(rs_cli_command_parse(&any, 3, two, &g, 1, &err), 0);
}

static int hook_calls;
static const char *hook_name;
static int hook_groups;
static void hook(void *ctx, const rs_command_t *cmd, rs_opt_group_t *groups, int n_groups) {
    (void)groups;
    hook_calls += *(int *)ctx;
    hook_name = cmd->name;
    hook_groups = n_groups;
}

/* rs_cli_run_parse on a real command (memory: no positional argument) with a table of its own. */
RS_TEST(test_run_parse, "exit codes and lines: parsed, bad, --help, the hook") {
    demo_t d = {0};
    rs_opt_group_t g = RS_OPT_GROUP(demo_opts, &d);
    char *ok[] = {"memory", "-k", "4", NULL}, *bad[] = {"memory", "-k", "10", NULL}, *extra[] = {"memory", "x", NULL},
         *help[] = {"memory", "--help", NULL};
    CU_ASSERT_EQUAL(rs_cli_run_parse("memory", 3, ok, &g, 1, true), -1); /* parsed: go on */
    CU_ASSERT_EQUAL(d.k, 4);
    rs_capture_t c;
    rs_capture_begin(&c, 2);
    CU_ASSERT_EQUAL(rs_cli_run_parse("memory", 3, bad, &g, 1, true), RS_EXIT_USAGE);
    CU_ASSERT_EQUAL(rs_cli_run_parse("memory", 3, bad, &g, 1, false), RS_EXIT_USAGE); /* not loud: silent */
    CU_ASSERT_EQUAL(rs_cli_run_parse("memory", 2, extra, &g, 1, true), RS_EXIT_USAGE);
    char *text = rs_capture_end(&c);
    CU_ASSERT_STRING_EQUAL(text, "ringsim memory: --k 10: must be in [1, 9]\n"
                                 "ringsim memory: unexpected argument 'x' (see ringsim memory --help)\n");
    free(text);
    /* --help: the usage, the rows, the notes; exit 0 */
    rs_capture_begin(&c, 1);
    CU_ASSERT_EQUAL(rs_cli_run_parse("memory", 2, help, &g, 1, true), RS_EXIT_OK);
    text = rs_capture_end(&c);
    const rs_command_t *m = rs_cli_command("memory");
    char want[4096];
    snprintf(want, sizeof want,
             "%s  -k, --k K                a number                                     [2]\n"
             "  -h, --help               this help\n"
             "  -q, --quiet              no progress on stderr (it shows only on a terminal) [off]\n",
             m->usage);
    CU_ASSERT_STRING_EQUAL(text, want);
    free(text);
    /* under the hook: handed the groups, nothing printed */
    int one = 1;
    rs_cli_set_help_hook(hook, &one);
    rs_capture_begin(&c, 1);
    CU_ASSERT_EQUAL(rs_cli_run_parse("memory", 2, help, &g, 1, true), RS_EXIT_OK);
    text = rs_capture_end(&c);
    rs_cli_set_help_hook(NULL, NULL);
    CU_ASSERT_EQUAL(hook_calls, 1);
    CU_ASSERT_STRING_EQUAL(hook_name, "memory");
    CU_ASSERT_EQUAL(hook_groups, 1);
    CU_ASSERT_STRING_EQUAL(text, "");
    free(text);
}

RS_TEST(test_usage_and_line, "the usage line and the command line as text") {
    rs_err_t err = {0};
    rs_errf(&err, "--seq 3: must be even");
    rs_capture_t c;
    rs_capture_begin(&c, 2);
    CU_ASSERT_EQUAL(rs_cli_usage("model", true, &err), RS_EXIT_USAGE);
    CU_ASSERT_EQUAL(rs_cli_usage("model", false, &err), RS_EXIT_USAGE);
    char *text = rs_capture_end(&c);
    CU_ASSERT_STRING_EQUAL(text, "ringsim model: --seq 3: must be even\n");
    free(text);
    char *argv[] = {"sweep", "-S", "64K", NULL};
    char buf[64];
    CU_ASSERT_STRING_EQUAL(rs_cli_command_line(buf, sizeof buf, 3, argv), "ringsim sweep -S 64K");
    /* a word that would not fit ends the line: "ringsim sweep" + " -S" needs 17 bytes */
    CU_ASSERT_STRING_EQUAL(rs_cli_command_line(buf, 16, 3, argv), "ringsim sweep");
    CU_ASSERT_STRING_EQUAL(rs_cli_command_line(buf, sizeof buf, 0, argv), "ringsim");
}

RS_TEST(test_notes, "kernel notes and the closing line: kept, printed once, the notes first") {
    static rs_setup_t s;
    rs_setup_default(&s);
    snprintf(s.kernel_notes, sizeof s.kernel_notes, "kernel k has no backward curve");
    rs_cli_kernel_notes(&s);
    rs_capture_t c;
    rs_capture_begin(&c, 2);
    rs_cli_notes_print();
    rs_cli_notes_print(); /* once */
    char *text = rs_capture_end(&c);
    CU_ASSERT_STRING_EQUAL(text, "ringsim: note: kernel k has no backward curve\n");
    free(text);
    /* the closing line: on stdout after the notes, once */
    rs_cli_kernel_notes(&s);
    rs_cli_closing_line("ringsim report: written to %s in %.1f s", "R/report.md", 2.25);
    rs_capture_t o;
    rs_capture_begin(&c, 2);
    rs_capture_begin(&o, 1);
    rs_cli_notes_print();
    rs_cli_notes_print();
    fflush(stdout);
    char *out = rs_capture_end(&o);
    text = rs_capture_end(&c);
    CU_ASSERT_STRING_EQUAL(text, "ringsim: note: kernel k has no backward curve\n");
    CU_ASSERT_STRING_EQUAL(out, "ringsim report: written to R/report.md in 2.2 s\n");
    free(out);
    free(text);
}

RS_TEST_PROGRAM("command run")
