/* test_util.c - errors, number parsing, input files and formatting (util.c): the error convention
 * (message, code, exit code), escapes, an option's context added once, sizes and numbers with their
 * suffixes and every refusal's exact message and code, enumerations, line and file readers, the clock,
 * the seeded hash against a plain splitmix64, time and number cells. */
#define _GNU_SOURCE /* newlocale, uselocale */
#include <locale.h>
#include <math.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "test_main.h"
#include "util.h"

/* ------------------------------------------------------------------------------------------------
 * Errors
 * ---------------------------------------------------------------------------------------------- */
RS_TEST(test_error_convention, "message, code and exit code") {
    rs_err_t err;
    rs_err_clear(&err);
    CU_ASSERT_STRING_EQUAL(err.msg, "");
    CU_ASSERT_EQUAL(err.code, RS_ERR_RUNTIME);
    CU_ASSERT_EQUAL(rs_err_exit_code(&err), RS_EXIT_FAIL);
    /* rs_errc writes both; rs_errf then keeps the code (context added by a caller) */
    CU_ASSERT_EQUAL(rs_errc(&err, RS_ERR_BAD_INPUT, "--seq %d: must be in [1, 8]", 9), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--seq 9: must be in [1, 8]");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(rs_err_exit_code(&err), RS_EXIT_USAGE);
    CU_ASSERT_EQUAL(rs_errf(&err, "model: %s", "x"), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "model: x");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    /* rs_err_mark classifies what a callee wrote */
    rs_err_clear(&err);
    rs_errf(&err, "peer stopped answering");
    CU_ASSERT_EQUAL(rs_err_mark(&err, RS_ERR_TIMEOUT), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "peer stopped answering");
    CU_ASSERT_EQUAL(err.code, RS_ERR_TIMEOUT);
    CU_ASSERT_EQUAL(rs_err_exit_code(&err), RS_EXIT_FAIL);
    /* a NULL err is allowed everywhere */
    CU_ASSERT_EQUAL(rs_errf(NULL, "x"), -1);
    CU_ASSERT_EQUAL(rs_errc(NULL, RS_ERR_ABORTED, "x"), -1);
    CU_ASSERT_EQUAL(rs_err_mark(NULL, RS_ERR_ABORTED), -1);
    rs_err_clear(NULL);
    CU_ASSERT_EQUAL(rs_err_exit_code(NULL), RS_EXIT_FAIL);
    CU_ASSERT_STRING_EQUAL(rs_errc_name(RS_ERR_RUNTIME), "runtime");
    CU_ASSERT_STRING_EQUAL(rs_errc_name(RS_ERR_BAD_INPUT), "bad input");
    CU_ASSERT_STRING_EQUAL(rs_errc_name(RS_ERR_TIMEOUT), "timeout");
    CU_ASSERT_STRING_EQUAL(rs_errc_name(RS_ERR_ABORTED), "aborted");
    CU_ASSERT_STRING_EQUAL(rs_errc_name((rs_errc_t)7), "?");
}

/* Control bytes quoted into a message are escaped: the message stays one line. */
RS_TEST(test_escape, "control bytes are escaped") {
    rs_err_t err = {0};
    rs_errf(&err, "%s: bad", "a\nb\tc\rd\x01" "e\x7f");
    CU_ASSERT_STRING_EQUAL(err.msg, "a\\nb\\tc\\rd\\x01e\\x7f: bad");
    char out[8];
    CU_ASSERT_STRING_EQUAL(rs_escape("caf\xc3\xa9", out, sizeof out), "caf\xc3\xa9"); /* UTF-8 kept */
    CU_ASSERT_STRING_EQUAL(rs_escape("abcdefghij", out, sizeof out), "abcdefg");     /* truncated to len */
    CU_ASSERT_STRING_EQUAL(rs_escape("abcdef\n", out, sizeof out), "abcdef");        /* an escape is not split */
}

/* rs_err_option: once; a message that starts with the value (a file's own) is kept. */
RS_TEST(test_err_option, "an option's context is added once") {
    rs_err_t err = {0};
    rs_errf(&err, "bad thing");
    rs_err_option(&err, "--x", "v");
    CU_ASSERT_STRING_EQUAL(err.msg, "--x v: bad thing");
    rs_errf(&err, "v:3: bad line");
    rs_err_option(&err, "--x", "v");
    CU_ASSERT_STRING_EQUAL(err.msg, "v:3: bad line");
    CU_ASSERT_EQUAL(rs_err_option(NULL, "--x", "v"), -1);
}

/* ------------------------------------------------------------------------------------------------
 * Numbers
 * ---------------------------------------------------------------------------------------------- */
static void expect_size_error(const char *text, const char *want) {
    rs_err_t err = {0};
    int64_t v = -7;
    CU_ASSERT_EQUAL(rs_parse_size("--seq", text, 1, 1 << 20, &v, &err), -1);
    if (strcmp(err.msg, want)) fprintf(stderr, "  got  '%s'\n  want '%s'\n", err.msg, want);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(v, -7); /* untouched */
}

RS_TEST(test_parse_size, "sizes with K/M/G/T and every refusal") {
    int64_t v = 0;
    CU_ASSERT_EQUAL(rs_parse_size("--seq", "4096", 1, 1 << 20, &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 4096);
    CU_ASSERT_EQUAL(rs_parse_size("--seq", "128K", 1, 1 << 20, &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 131072);
    CU_ASSERT_EQUAL(rs_parse_size("--seq", "1m", 1, 1 << 20, &v, NULL), 0); /* suffixes in either case */
    CU_ASSERT_EQUAL(v, 1048576);
    CU_ASSERT_EQUAL(rs_parse_size("--mem", "2G", 1, INT64_MAX, &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 2147483648LL);
    CU_ASSERT_EQUAL(rs_parse_size("--mem", "3T", 1, INT64_MAX, &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 3LL << 40);
    expect_size_error("", "--seq: empty value (expected an integer in [1, 1048576])");
    expect_size_error("-5", "--seq -5: must be in [1, 1048576]");
    expect_size_error("abc", "--seq abc: not an integer (expected e.g. 4096, 128K, 1M; range [1, 1048576])");
    expect_size_error("12X", "--seq 12X: unknown suffix 'X' (accepted: K, M, G, T = powers of 1024); range [1, 1048576]");
    expect_size_error("12KB", "--seq 12KB: trailing characters 'B' (expected an integer in [1, 1048576])");
    expect_size_error("99999999999T", "--seq 99999999999T: too large (range [1, 1048576])");
    expect_size_error("2M", "--seq 2M: must be in [1, 1048576]");
    expect_size_error("0", "--seq 0: must be in [1, 1048576]");
}

static void expect_double_error(const char *text, const char *want) {
    rs_err_t err = {0};
    double v = -7;
    CU_ASSERT_EQUAL(rs_parse_double("--bw", text, 1, 1e16, &v, &err), -1);
    if (strcmp(err.msg, want)) fprintf(stderr, "  got  '%s'\n  want '%s'\n", err.msg, want);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(v, -7);
}

RS_TEST(test_parse_double, "numbers with k/M/G/T/P and every refusal") {
    double v = 0;
    CU_ASSERT_EQUAL(rs_parse_double("--bw", "450G", 1, 1e16, &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 450e9);
    CU_ASSERT_EQUAL(rs_parse_double("--bw", "1.5k", 1, 1e16, &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 1500);
    CU_ASSERT_EQUAL(rs_parse_double("--bw", "2P", 1, 1e16, &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 2e15);
    CU_ASSERT_EQUAL(rs_parse_double("--bw", "989e12", 1, 1e16, &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 989e12);
    CU_ASSERT_EQUAL(rs_parse_double("--bw", "3M", 1, 1e16, &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 3e6);
    expect_double_error("", "--bw: empty value (expected a number in [1, 1e+16])");
    expect_double_error("fast", "--bw fast: not a number (expected e.g. 989e12 or 450G; range [1, 1e+16])");
    expect_double_error("4x", "--bw 4x: unknown suffix 'x' (accepted: k, M, G, T, P); range [1, 1e+16]");
    expect_double_error("4Gb", "--bw 4Gb: trailing characters 'b' (expected a number in [1, 1e+16])");
    expect_double_error("nan", "--bw nan: must be finite, in [1, 1e+16]");
    expect_double_error("1e400", "--bw 1e400: must be finite, in [1, 1e+16]");
    expect_double_error("0.5", "--bw 0.5: must be in [1, 1e+16]");
    expect_double_error("20P", "--bw 20P: must be in [1, 1e+16]");
}

/* A locale whose decimal point is ',' (de_DE: the system's, else compiled by localedef into the
 * test's folder and found through LOCPATH), or 0 when this machine cannot make one. glibc keeps the
 * LOCPATH list it parses for good (LeakSanitizer would count it): not checked while loading. */
static locale_t comma_locale(void) {
#ifdef __SANITIZE_ADDRESS__
    __lsan_disable();
#endif
    locale_t l = newlocale(LC_ALL_MASK, "de_DE.UTF-8", (locale_t)0);
    if (!l) {
        const char *dir = rs_test_fresh_dir("locales");
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1", dir);
        if (system(cmd) == 0) {
            setenv("LOCPATH", dir, 1);
            l = newlocale(LC_ALL_MASK, "de_DE.UTF-8", (locale_t)0);
        }
    }
#ifdef __SANITIZE_ADDRESS__
    __lsan_enable();
#endif
    return l;
}

RS_TEST(test_locale_independent, "numbers read and printed with '.' while the caller's locale writes ','") {
    const locale_t de = comma_locale();
    if (!de) {
        printf("skipped: no de_DE locale on this machine (localedef failed)\n");
        return;
    }
    const locale_t old = uselocale(de);
    char buf[32];
    snprintf(buf, sizeof buf, "%.1f", 0.5);
    CU_ASSERT_STRING_EQUAL(buf, "0,5");         /* the locale bites: printf writes ',' */
    CU_ASSERT_EQUAL(strtod("0.5", NULL), 0.0);  /* and strtod stops at the '.' */
    char *end = NULL;
    CU_ASSERT_EQUAL(rs_strtod("4.5e11", &end), 4.5e11);
    CU_ASSERT_EQUAL(*end, '\0');
    double v = 0;
    CU_ASSERT_EQUAL(rs_parse_double("--overlap", "0.5", 0, 1, &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 0.5);
    CU_ASSERT_EQUAL(rs_parse_double("--flops", "1.5G", 1, 1e20, &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 1.5e9);
    void *prev = rs_locale_c_enter();
    snprintf(buf, sizeof buf, "%.1f", 0.5);
    CU_ASSERT_STRING_EQUAL(buf, "0.5");         /* inside: the "C" locale */
    rs_locale_c_leave(prev);
    snprintf(buf, sizeof buf, "%.1f", 0.5);
    CU_ASSERT_STRING_EQUAL(buf, "0,5");         /* after: the caller's locale again */
    uselocale(old);
    freelocale(de);
}

RS_TEST(test_enums, "enumerations by name") {
    static const char *const names[] = {"zero", "one", "two"};
    CU_ASSERT_STRING_EQUAL(rs_enum_name(names, 3, 1), "one");
    CU_ASSERT_STRING_EQUAL(rs_enum_name(names, 3, 3), "?");
    CU_ASSERT_STRING_EQUAL(rs_enum_name(names, 3, -1), "?");
    CU_ASSERT_EQUAL(rs_enum_parse(names, 3, "two"), 2);
    CU_ASSERT_EQUAL(rs_enum_parse(names, 3, "Two"), -1); /* exact */
    CU_ASSERT_EQUAL(rs_enum_parse(names, 3, NULL), -1);
}

/* ------------------------------------------------------------------------------------------------
 * Input files
 * ---------------------------------------------------------------------------------------------- */
RS_TEST(test_read_line, "lines: too long, a NUL byte, the last without a newline") {
    const char *path = rs_test_path("lines.txt");
    FILE *fp = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    static const char lines[] = "ab\n\nlong-line\nx\0y\nlast";
    fwrite(lines, 1, sizeof lines - 1, fp);
    fclose(fp);
    fp = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char buf[6];
    CU_ASSERT_EQUAL(rs_read_line(fp, buf, sizeof buf), 2);
    CU_ASSERT_STRING_EQUAL(buf, "ab");
    CU_ASSERT_EQUAL(rs_read_line(fp, buf, sizeof buf), 0); /* an empty line is not the end */
    CU_ASSERT_STRING_EQUAL(buf, "");
    CU_ASSERT_EQUAL(rs_read_line(fp, buf, sizeof buf), -2); /* "long-line" holds more than 5 */
    rewind(fp);
    int lineno = 0;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_read_text_line(fp, buf, sizeof buf, "lines.txt", &lineno, &err), 1);
    CU_ASSERT_EQUAL(rs_read_text_line(fp, buf, sizeof buf, "lines.txt", &lineno, &err), 1);
    CU_ASSERT_EQUAL(rs_read_text_line(fp, buf, sizeof buf, "lines.txt", &lineno, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "lines.txt:3: expected a line of at most 5 characters");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    for (int c; (c = getc(fp)) != '\n' && c != EOF;) { /* the rest of line 3 is left unread */
    }
    CU_ASSERT_EQUAL(rs_read_text_line(fp, buf, sizeof buf, "lines.txt", &lineno, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "lines.txt:4: expected text, found a NUL byte");
    for (int c; (c = getc(fp)) != '\n' && c != EOF;) {
    }
    CU_ASSERT_EQUAL(rs_read_text_line(fp, buf, sizeof buf, "lines.txt", &lineno, &err), 1);
    CU_ASSERT_STRING_EQUAL(buf, "last"); /* a last line without '\n' */
    CU_ASSERT_EQUAL(lineno, 5);
    CU_ASSERT_EQUAL(rs_read_text_line(fp, buf, sizeof buf, "lines.txt", &lineno, &err), 0);
    CU_ASSERT_EQUAL(rs_read_line(fp, buf, sizeof buf), -1);
    fclose(fp);
}

RS_TEST(test_text_files, "text files: size cap, NUL byte, directory, missing, FIFO, device") {
    rs_err_t err = {0};
    char want[1024];
    const char *path = rs_test_path("t.json");
    rs_test_write_text(path, "{\"a\": 1}\n");
    char *text = rs_read_text_file(path, 100, "JSON text", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_STRING_EQUAL(text, "{\"a\": 1}\n");
    free(text);
    CU_ASSERT_PTR_NULL(rs_read_text_file(path, 4, "JSON text", &err)); /* 9 bytes, at most 4 */
    snprintf(want, sizeof want, "%s: 9 bytes is larger than the 4 bytes a JSON text may have", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    FILE *fp = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fwrite("ab\0cd", 1, 5, fp);
    fclose(fp);
    CU_ASSERT_PTR_NULL(rs_read_text_file(path, 100, "JSON text", &err));
    snprintf(want, sizeof want, "%s: contains a NUL byte: not a JSON text", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_PTR_NULL(rs_read_text_file(rs_test_dir, 100, "JSON text", &err));
    snprintf(want, sizeof want, "%s: is a directory, not a JSON text (a regular file or a pipe is expected)", rs_test_dir);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_PTR_NULL(rs_read_text_file("/nonexistent/t.json", 100, "JSON text", &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "/nonexistent/t.json: cannot read: No such file or directory");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    /* rs_input_check: a FIFO only where one is accepted; a character device never */
    const char *fifo = rs_test_path("pipe");
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    CU_ASSERT_EQUAL(rs_input_check(fifo, "trace", 100, true, &err), 0);
    CU_ASSERT_EQUAL(rs_input_check(fifo, "trace", 100, false, &err), -1);
    snprintf(want, sizeof want, "%s: is a FIFO, not a trace (a regular file is expected)", fifo);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    unlink(fifo);
    CU_ASSERT_EQUAL(rs_input_check("/dev/null", "trace", 100, true, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "/dev/null: is a character device, not a trace (a regular file or a pipe is expected)");
    CU_ASSERT_EQUAL(rs_input_check(path, "trace", 100, false, &err), 0);
}

/* ------------------------------------------------------------------------------------------------
 * Clock, hash, formatting
 * ---------------------------------------------------------------------------------------------- */
/* splitmix64, written out from its definition (Steele, Lea, Flood 2014). */
static uint64_t ref_splitmix(uint64_t x) {
    uint64_t z = x + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

RS_TEST(test_hash_unit, "the seeded hash == splitmix64 by hand; the clock") {
    for (uint64_t a = 0; a < 50; a++)
        for (uint64_t b = 0; b < 50; b += 7) {
            const uint64_t h = ref_splitmix(42 ^ ref_splitmix(a ^ ref_splitmix(b)));
            const double u = rs_hash_unit(42, a, b);
            CU_ASSERT_EQUAL(u, (double)(h >> 11) / 9007199254740992.0); /* the top 53 bits over 2^53 */
            CU_ASSERT(u >= 0 && u < 1);
            CU_ASSERT_EQUAL(u, rs_hash_unit(42, a, b));
        }
    CU_ASSERT(rs_hash_unit(1, 2, 3) != rs_hash_unit(1, 3, 2)); /* rank and step are not interchangeable */
    const double t0 = rs_now_s(), t1 = rs_now_s();
    CU_ASSERT(t1 >= t0 && t0 > 0);
}

RS_TEST(test_fmt, "time and number cells") {
    char buf[32];
    CU_ASSERT_STRING_EQUAL(rs_fmt_time(0, buf, sizeof buf), "0 s");
    CU_ASSERT_STRING_EQUAL(rs_fmt_time(1.5e-9, buf, sizeof buf), "1.5 ns");
    CU_ASSERT_STRING_EQUAL(rs_fmt_time(2.5e-6, buf, sizeof buf), "2.5 us");
    CU_ASSERT_STRING_EQUAL(rs_fmt_time(0.0123, buf, sizeof buf), "12.3 ms");
    CU_ASSERT_STRING_EQUAL(rs_fmt_time(12.5, buf, sizeof buf), "12.5 s");
    CU_ASSERT_STRING_EQUAL(rs_fmt_time(-2e-3, buf, sizeof buf), "-2 ms");
    CU_ASSERT_STRING_EQUAL(rs_fmt_time(NAN, buf, sizeof buf), "-");
    CU_ASSERT_STRING_EQUAL(rs_fmt_time(INFINITY, buf, sizeof buf), "-");
    CU_ASSERT_STRING_EQUAL(rs_fmt_num(1.5, "%.2f", buf, sizeof buf), "1.50");
    CU_ASSERT_STRING_EQUAL(rs_fmt_num(NAN, "%.2f", buf, sizeof buf), "-");
    CU_ASSERT_STRING_EQUAL(rs_fmt_num(-INFINITY, "%g", buf, sizeof buf), "-");
}

RS_TEST_PROGRAM_IN("util")
