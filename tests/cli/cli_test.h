/* cli_test.h - what the command layer's unit tests share: a command line from words, the check of a
 * refused one, and the text a call prints on stdout or stderr (caught in a temporary file behind the
 * descriptor). */
#ifndef RS_TEST_CLI_TEST_H
#define RS_TEST_CLI_TEST_H

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* argv of command cmd and the space-separated words (no quoting), NULL-terminated, into static
 * storage (valid until the next call); *argc its count. */
static inline char **rs_cli_test_argv(const char *cmd, const char *words, int *argc) {
    static char buf[8192];
    static char *argv[256];
    snprintf(buf, sizeof buf, "%s", words);
    int n = 0;
    argv[n++] = (char *)cmd;
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && n < 255; t = strtok_r(NULL, " ", &save)) argv[n++] = t;
    argv[n] = NULL;
    *argc = n;
    return argv;
}

/* The parse of words returned rc = -1 with exactly msg in err (the words and both messages on
 * stderr when not). */
static inline void rs_cli_test_expect_refused(const char *words, int rc, const rs_err_t *err, const char *msg) {
    CU_ASSERT_EQUAL(rc, -1);
    if (strcmp(err->msg, msg)) fprintf(stderr, "\n  '%s': '%s', want '%s'\n", words, err->msg, msg);
    CU_ASSERT_STRING_EQUAL(err->msg, msg);
}

typedef struct {
    int fd;      /* 1 or 2 */
    int saved;   /* the descriptor it had */
    FILE *tmp;   /* where it points meanwhile */
} rs_capture_t;

/* Point descriptor fd (1: stdout, 2: stderr) at a temporary file. */
static inline void rs_capture_begin(rs_capture_t *c, int fd) {
    fflush(fd == 1 ? stdout : stderr);
    c->fd = fd;
    c->saved = dup(fd);
    c->tmp = tmpfile();
    dup2(fileno(c->tmp), fd);
}

/* Restore the descriptor; the text printed meanwhile, malloc'd and NUL-terminated. */
static inline char *rs_capture_end(rs_capture_t *c) {
    fflush(c->fd == 1 ? stdout : stderr);
    dup2(c->saved, c->fd);
    close(c->saved);
    const long n = ftell(c->tmp);
    char *text = calloc((size_t)(n > 0 ? n : 0) + 1, 1);
    rewind(c->tmp);
    if (text && n > 0 && fread(text, 1, (size_t)n, c->tmp) != (size_t)n) text[0] = 0;
    fclose(c->tmp);
    return text;
}

#endif /* RS_TEST_CLI_TEST_H */
