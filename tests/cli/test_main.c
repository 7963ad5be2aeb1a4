/* test_main.c - the `ringsim` program itself (cli/main.c) through the built binary: no command, --help,
 * --version, an unknown command, the build-time --man-dir and --completion, and the end of a run: a
 * stdout that cannot be written exits 1 with its error as the last line on stderr. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cmd_test.h"

RS_TEST(test_dispatch, "dispatch: no command, --help, --version, unknown") {
    CU_ASSERT_EQUAL(rs_test_ringsim(""), 2);
    CU_ASSERT_EQUAL(strncmp(rs_test_err, "usage: ringsim COMMAND [options]   (ringsim COMMAND --help for its options)\n\n", 77), 0);
    CU_ASSERT_STRING_EQUAL(rs_test_out, "");
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("--version"), 0);
    char version[128];
    snprintf(version, sizeof version, "%.100s", rs_test_out); /* "ringsim X.Y.Z\n" */
    CU_ASSERT_EQUAL(strncmp(version, "ringsim ", 8), 0);
    CU_ASSERT_EQUAL(rs_cmd_lines(version), 1);
    version[strlen(version) - 1] = 0;
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("--help"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "\n  model      analytic model: T_comp, T_comm, threshold, critical-path makespan\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "\n  profiles   list or print the shipped hardware profiles\n"));
    char tail[256];
    snprintf(tail, sizeof tail, "\n%s: predicts, simulates and measures Ring Attention.\n", version);
    const size_t n = strlen(rs_test_out), m = strlen(tail);
    CU_ASSERT(n > m && !strcmp(rs_test_out + n - m, tail));
    CU_ASSERT_EQUAL(rs_test_ringsim("help"), 0); /* as --help */
    CU_ASSERT_EQUAL(rs_test_ringsim("bogus"), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim: unknown command 'bogus' (expected one of: model sim exec calibrate validate compare "
                                        "import sweep plot report memory plan profiles)\n");
}

RS_TEST(test_docs, "--man-dir and --completion") {
    CU_ASSERT_EQUAL(rs_test_ringsim("--man-dir"), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim: usage: ringsim --man-dir DIR | ringsim --completion bash|zsh [FILE]\n");
    CU_ASSERT_EQUAL(rs_test_ringsim("--completion fish"), 1);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim: --completion fish: expected bash or zsh\n");
    char args[1024], path[600];
    snprintf(path, sizeof path, "%s", rs_test_path("ringsim.bash"));
    snprintf(args, sizeof args, "--completion bash %s", path);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT(rs_cmd_starts_with(path, "# bash completion for ringsim", 29));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("--completion zsh"), 0); /* on stdout */
    CU_ASSERT_EQUAL(strncmp(rs_test_out, "#compdef ringsim\n", 17), 0);
    snprintf(args, sizeof args, "--man-dir %s", rs_test_path("man"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    snprintf(path, sizeof path, "%s/ringsim-plan.1", rs_test_path("man"));
    CU_ASSERT(rs_cmd_contains(path, ".SH NAME\nringsim\\-plan \\- capacity planning"));
}

/* `ringsim model ARGS --csv m.csv > /dev/full`: exit 1, no m.csv kept; its stderr (NUL-terminated,
 * owned) in *err. */
static void model_to_full(const char *args, char **err) {
    char cmd[2048];
    const char *csv = rs_test_path("m.csv");
    snprintf(cmd, sizeof cmd, "%s/bin/ringsim model %s --csv %s > /dev/full 2> %s", RS_BINARY_DIR, args, csv,
             rs_test_path("full.txt"));
    const int st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    CU_ASSERT(rs_test_file_size(csv) < 0);
    *err = rs_test_slurp(rs_test_path("full.txt"), NULL);
}

/* stdout to /dev/full: the command's end finds the write error, exit 1, no output file kept, and the
 * error is the last line on stderr. A run without notes says only that line; one whose kernel curves
 * fall back said its note before its table (once, as a run that succeeds says it), then the error. */
RS_TEST(test_stdout_error, "a stdout that cannot be written") {
    static const char want[] = "ringsim model: stdout: write error: No space left on device\n";
    char *err = NULL;
    model_to_full("-L zigzag -P forward --impl none", &err); /* the dense model: no kernel curve, no note */
    CU_ASSERT_STRING_EQUAL(err ? err : "", want);
    free(err);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("model -L zigzag -P forward"), 0);
    CU_ASSERT_EQUAL_FATAL(strncmp(rs_test_err, "ringsim: note: kernel flash-attn-2 has no forward shifted curve", 63), 0);
    CU_ASSERT_EQUAL_FATAL(rs_cmd_lines(rs_test_err), 1);
    static char both[sizeof rs_test_err + sizeof want];
    snprintf(both, sizeof both, "%s%s", rs_test_err, want); /* the note of the run that succeeded, then the error */
    model_to_full("-L zigzag -P forward", &err);
    CU_ASSERT_STRING_EQUAL(err ? err : "", both);
    free(err);
}

RS_TEST(test_launcher, "under a launcher: a one-process command is refused by rank 0 in one line, before any work") {
    setenv("PMI_SIZE", "3", 1);
    CU_ASSERT_EQUAL(rs_test_ringsim("model -N 4 -S 16K"), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_out, "");
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim model: started by a launcher (3 processes): model runs as one process and every rank "
                                        "would repeat it; run it without mpirun/srun (exec, calibrate, validate and sweep divide their "
                                        "work over a launcher's ranks)\n");
    const char *const one[] = {"sim -N 4 -S 16K", "plan -m llama3-8b -S 128K", "report --force", "memory -m llama3-8b -S 128K",
                               "profiles", "plot --help-kinds", "import x.json", "compare a.csv b.csv"};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        CU_ASSERT_EQUAL(rs_test_ringsim(one[i]), 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "started by a launcher (3 processes)"));
        CU_ASSERT_EQUAL(rs_cmd_lines(rs_test_err), 1);
    }
    CU_ASSERT_EQUAL(rs_test_ringsim("model --help"), 0); /* help still answers */
    setenv("PMI_RANK", "1", 1); /* the other ranks exit quietly */
    CU_ASSERT_EQUAL(rs_test_ringsim("model -N 4 -S 16K"), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "");
    unsetenv("PMI_RANK");
    unsetenv("PMI_SIZE");
    CU_ASSERT_EQUAL(rs_test_ringsim("model -N 4 -S 16K -q"), 0);
}

RS_TEST_MAIN(.suite = "ringsim", .scratch = "cli_main")
