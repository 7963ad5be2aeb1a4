/* test_commands.c - the subcommands as data (cli/commands.c): the commands in `ringsim --help` order,
 * each with a one-line summary, a usage text that opens with its own name and ends in a blank line,
 * a reason whenever this build lacks it; lookup by name; the program's description, environment and
 * files for ringsim(1). */
#include <string.h>

#include "commands.h"
#include "test_main.h"

RS_TEST(test_table, "every command's entry") {
    static const char *const order[] = {"model", "sim",    "exec",   "calibrate", "validate", "compare", "import",
                                        "sweep", "plot",   "report", "memory",    "plan",     "profiles"};
    const int n_want = (int)(sizeof order / sizeof order[0]);
    int n = 0;
    for (const rs_command_t *c = rs_commands; c->name; c++, n++) {
        CU_ASSERT_FATAL(n < n_want);
        CU_ASSERT_STRING_EQUAL(c->name, order[n]);
        CU_ASSERT(c->summary[0] && !strchr(c->summary, '\n'));
        char head[64];
        snprintf(head, sizeof head, "usage: ringsim %s ", c->name);
        CU_ASSERT_EQUAL(strncmp(c->usage, head, strlen(head)), 0);
        const size_t u = strlen(c->usage);
        CU_ASSERT(u >= 2 && !strcmp(c->usage + u - 2, "\n\n")); /* the options follow a blank line */
        CU_ASSERT(c->run || (c->missing && c->missing[0]));     /* what this build lacks, said */
        CU_ASSERT(c->max_args >= -1 && c->max_args <= 0);
        if (c->notes) CU_ASSERT(c->notes[strlen(c->notes) - 1] == '\n');
        CU_ASSERT_PTR_EQUAL(rs_cli_command(c->name), c);
    }
    CU_ASSERT_EQUAL(n, n_want);
    CU_ASSERT_PTR_NULL(rs_cli_command("nosuch"));
    CU_ASSERT_PTR_NULL(rs_cli_command("plan --inference"));
    /* the commands that check their own positional arguments (traces, a kind, a profile) */
    CU_ASSERT_EQUAL(rs_cli_command("compare")->max_args, -1);
    CU_ASSERT_EQUAL(rs_cli_command("plot")->max_args, -1);
    CU_ASSERT_EQUAL(rs_cli_command("model")->max_args, 0);
}

RS_TEST(test_program, "the program's description, environment and files") {
    CU_ASSERT_STRING_EQUAL(rs_cli_about, "predicts, simulates and measures Ring Attention");
    const size_t d = strlen(rs_cli_description), f = strlen(rs_cli_files);
    CU_ASSERT(d > 0 && rs_cli_description[d - 1] == '\n');
    CU_ASSERT(f > 0 && rs_cli_files[f - 1] == '\n');
    int n = 0;
    for (const rs_cli_env_t *e = rs_cli_environment; e->name; e++, n++) {
        CU_ASSERT(strspn(e->name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == strlen(e->name));
        CU_ASSERT(e->text[0] && !strchr(e->text, '\n'));
    }
    CU_ASSERT_EQUAL(n, 5);
    CU_ASSERT_STRING_EQUAL(rs_cli_environment[0].name, "RINGSIM_PLOTS_DIR");
}

RS_TEST_PROGRAM("commands")
