/* cmd_test.h - what the end-to-end tests of the commands share (tests/cli/test_cmd_*.c): a file's
 * text against a fragment, a refused command line (exit 2, the message, no output, no temporary), the
 * numbers of a CSV row, a figure's format by its first bytes, a text's line count, a run as a
 * terminal shows it (its notes before its table, a refusal alone). The command runs through
 * rs_test_ringsim (tests/fixtures/harness.h) or script(1). */
#ifndef RS_TEST_CLI_CMD_TEST_H
#define RS_TEST_CLI_CMD_TEST_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"
#include "test_main.h"

/* true when the file at path holds needle (said on stderr when not). */
static inline bool rs_cmd_contains(const char *path, const char *needle) {
    char *t = rs_test_slurp(path, NULL);
    const bool ok = t && strstr(t, needle);
    if (!ok) fprintf(stderr, "  %s lacks '%s': %s\n", path, needle, t ? t : "(missing)");
    free(t);
    return ok;
}

/* `ringsim ARGS` exits 2 with needle1 (and needle2 when not NULL) on stderr, leaves no file at out
 * (when not NULL) and no temporary. */
static inline void rs_cmd_expect_usage(const char *args, const char *needle1, const char *needle2, const char *out) {
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT(rs_cmd_contains(rs_test_path("err.txt"), needle1));
    if (needle2) CU_ASSERT(rs_cmd_contains(rs_test_path("err.txt"), needle2));
    if (out) CU_ASSERT(rs_test_file_size(out) < 0);
    CU_ASSERT(rs_test_temp_files() == 0);
}

/* The first n comma-separated fields of line as numbers into v (a text field reads as 0). */
static inline void rs_cmd_csv_numbers(const char *line, double *v, int n) {
    const char *f = line;
    for (int k = 0; k < n; k++) {
        v[k] = f ? strtod(f, NULL) : 0;
        if (f && (f = strchr(f, ','))) f++;
    }
}

/* true when the file at path begins with the n bytes of magic ("\x89PNG\r\n\x1a\n"). */
static inline bool rs_cmd_starts_with(const char *path, const char *magic, size_t n) {
    size_t len = 0;
    char *t = rs_test_slurp(path, &len);
    const bool ok = t && len >= n && memcmp(t, magic, n) == 0;
    free(t);
    return ok;
}

/* Lines of s (its '\n's). */
static inline int rs_cmd_lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* `ringsim ARGS` on a terminal (script(1)'s pseudo-terminal for stdout and stderr both: stdout is
 * line-buffered there, so the two streams' lines interleave as they were printed; RINGSIM_METER=0:
 * no progress line). Returns its exit code, -1 when script failed; *text = what the terminal showed,
 * without its '\r's (malloc'd; NULL when unreadable). */
static inline int rs_cmd_tty(const char *args, char **text) {
    char cmd[4096];
    const char *path = rs_test_path("tty.txt");
    snprintf(cmd, sizeof cmd, "cd '%s' && RINGSIM_METER=0 timeout 120 script -qec '%s/bin/ringsim %s' /dev/null > '%s' 2>&1",
             rs_test_dir, RS_BINARY_DIR, args, path);
    const int st = system(cmd);
    *text = rs_test_slurp(path, NULL);
    if (*text) { /* drop the terminal's '\r's */
        char *w = *text;
        for (const char *r = *text; *r; r++)
            if (*r != '\r') *w++ = *r;
        *w = '\0';
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `ringsim ARGS` (a run whose setup has notes) as a terminal shows it: exit 0, its first line the one
 * line of the kernel curves' note (once), the next one first_out (the table's first line, up to its
 * length). */
static inline void rs_cmd_expect_notes_first(const char *args, const char *first_out) {
    char *t = NULL;
    CU_ASSERT_EQUAL(rs_cmd_tty(args, &t), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(strncmp(t, "ringsim: note: kernel ", 22), 0);
    CU_ASSERT_PTR_NULL(strstr(t + 1, "ringsim: note:"));
    const char *nl = strchr(t, '\n');
    CU_ASSERT(nl && !strncmp(nl + 1, first_out, strlen(first_out)));
    if (!nl || strncmp(nl + 1, first_out, strlen(first_out))) fprintf(stderr, "  ringsim %s showed:\n%.2000s\n", args, t);
    free(t);
}

/* `ringsim ARGS` on a terminal is refused: exit 2 and one line, holding needle (no note before it). */
static inline void rs_cmd_expect_refused_alone(const char *args, const char *needle) {
    char *t = NULL;
    CU_ASSERT_EQUAL(rs_cmd_tty(args, &t), 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(rs_cmd_lines(t), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, needle));
    if (rs_cmd_lines(t) != 1) fprintf(stderr, "  ringsim %s showed:\n%.2000s\n", args, t);
    free(t);
}

/* The model's traces of a 4-rank contiguous forward ring without the mask at S = 8K (into a) and
 * S = 32K (into b): what calibrate and validate --from-trace read back. */
static inline void rs_cmd_model_traces(const char *a, const char *b) {
    char args[2048];
    snprintf(args, sizeof args, "model -N 4 -S 8K -L contiguous -P forward --no-causal --trace %s", a);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    snprintf(args, sizeof args, "model -N 4 -S 32K -L contiguous -P forward --no-causal --trace %s", b);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
}

/* gnuplot on PATH (the figures' tests are skipped without it). */
static inline bool rs_cmd_have_gnuplot(void) { return system("command -v gnuplot > /dev/null 2>&1") == 0; }

#endif /* RS_TEST_CLI_CMD_TEST_H */
