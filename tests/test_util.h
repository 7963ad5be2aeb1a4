/* test_util.h - what the test programs share (tests/test_util.c, linked into every CUnit test):
 * a scratch directory per run, running the built `ringsim` with its output captured, and small
 * file helpers. */
#ifndef RS_TEST_UTIL_H
#define RS_TEST_UTIL_H

#include <stddef.h>

/* This run's scratch directory (rs_test_scratch). */
extern char rs_test_dir[512];
/* stdout and stderr of the last rs_test_ringsim (NUL-terminated, truncated to their size). */
extern char rs_test_out[1 << 20], rs_test_err[1 << 16];

/* Make RS_BINARY_DIR/tests/NAME-XXXXXX the scratch directory. Returns 0, or -1 (perror'd). */
int rs_test_scratch(const char *name);
/* Remove the scratch directory and everything in it. */
void rs_test_cleanup(void);
/* rs_test_dir/name. The string stays valid for the next 7 calls. */
const char *rs_test_path(const char *name);
/* An empty directory rs_test_dir/name (removed first if it exists); the string stays valid for
 * the next 7 calls (rs_test_path calls do not count). */
const char *rs_test_fresh_dir(const char *name);

/* Run `ringsim ARGS` (shell words; the built binary, 120 s at most) with stdout and stderr into
 * rs_test_path("out.txt") and ("err.txt") and into rs_test_out, rs_test_err. Returns its exit
 * code, -1 when it was killed. */
int rs_test_ringsim(const char *args);

/* The bytes of a file, NUL-terminated (malloc'd; *len = their count when len is non-NULL), or NULL
 * when it cannot be read. */
char *rs_test_slurp(const char *path, size_t *len);
/* Write text to path (a failed assertion when it cannot). */
void rs_test_write_text(const char *path, const char *text);
/* Entries of the scratch directory whose name holds ".tmp." (temporaries left behind). */
int rs_test_temp_files(void);
/* The size of a file, -1 when there is none. */
long rs_test_file_size(const char *path);

#endif /* RS_TEST_UTIL_H */
