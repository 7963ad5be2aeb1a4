/* util.h - errors, number parsing and input files shared by every module (output files: output.h).
 *
 * Conventions used across ringsim (docs/architecture.md, "Errors"):
 *  - library functions return 0 on success and -1 on error, after filling an rs_err_t with one line
 *    that names the parameter or file:line and the accepted range, and with what kind of failure it
 *    is (rs_errc_t: bad input, a timeout, ...); callers branch on err.code, never on the message and
 *    never on other return values; only main() (and a child process's own main) decides to exit;
 *  - exit codes: 0 ok, 1 runtime failure, 2 bad input (RS_EXIT_USAGE), from err.code by
 *    rs_err_exit_code;
 *  - names carry units: *_s seconds, *_bytes, *_flops, *_per_s rates.
 */
#ifndef RS_UTIL_H
#define RS_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RS_EXIT_OK 0
#define RS_EXIT_FAIL 1
#define RS_EXIT_USAGE 2

/* What kind of failure an error is. RS_ERR_RUNTIME is 0, so a zeroed rs_err_t is a runtime failure
 * until something says otherwise. */
typedef enum {
    RS_ERR_RUNTIME = 0, /* the run failed (a write, a child, a library call): exit 1 */
    RS_ERR_BAD_INPUT,   /* the input was refused (an option, a file's content, a combination): exit 2 */
    RS_ERR_TIMEOUT,     /* a watchdog expired (a peer that stopped answering, a child that hung): exit 1 */
    RS_ERR_ABORTED,     /* stopped because another part failed first (a peer rank's failure): exit 1 */
} rs_errc_t;

typedef struct {
    char msg[1024]; /* one line, no trailing newline; empty when no error */
    rs_errc_t code; /* what kind of failure (meaningful once msg is set) */
} rs_err_t;

/* Format an error into err (may be NULL); control bytes in the result (quoted from a file or an
 * argument) are written as escapes (rs_escape), so the message stays one line of text. The code is
 * left as it is, so a caller that adds context to a callee's message keeps the callee's kind.
 * Always returns -1 so callers can `return rs_errf(...)`. */
int rs_errf(rs_err_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* rs_errf with the kind of failure. Always returns -1. */
int rs_errc(rs_err_t *err, rs_errc_t code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Set the kind of an error whose message is already written (a callee's "must be in [1, 8]" that is
 * bad input where it is called from). err may be NULL. Always returns -1. */
int rs_err_mark(rs_err_t *err, rs_errc_t code);
/* No error: empty message, RS_ERR_RUNTIME. err may be NULL. Can't fail. */
void rs_err_clear(rs_err_t *err);
/* The exit code for err: RS_EXIT_USAGE for bad input, RS_EXIT_FAIL otherwise. Can't fail. */
int rs_err_exit_code(const rs_err_t *err);
/* "runtime", "bad input", "timeout", "aborted". Can't fail. */
const char *rs_errc_name(rs_errc_t code);
/* err, about the value of option opt, names both ("--inter foo: unknown tier 'foo' (...)") unless it
 * starts with "VALUE:" already (a file's "PATH:LINE: ..." or "PATH: cannot read"). err may be NULL.
 * Always returns -1. */
int rs_err_option(rs_err_t *err, const char *opt, const char *value);
/* s with control bytes written as escapes (\n, \r, \t, \xNN; bytes >= 0x80 kept: UTF-8) into out
 * (truncated to len). Returns out. */
const char *rs_escape(const char *s, char *out, size_t len);

/* Parse a non-negative integer with an optional K/M/G/T suffix (powers of 1024: 1K = 1024,
 * 128K = 131072, 1M = 1048576). `name` is the parameter name used in the message.
 * Returns 0 and sets *out, or -1 with err naming the parameter, the value and the accepted range. */
int rs_parse_size(const char *name, const char *text, int64_t min, int64_t max, int64_t *out,
                  rs_err_t *err);

/* Parse a finite double with an optional SI suffix (k, M, G, T, P = 1e3..1e15; e.g. "450G" = 450e9).
 * Rejects NaN, infinities and values outside [min, max]. Returns 0 or -1 with err. */
int rs_parse_double(const char *name, const char *text, double min, double max, double *out,
                    rs_err_t *err);

/* Numbers are read and written the same in every locale (a caller - Python, a program that called
 * setlocale - may have chosen one whose decimal point is ','): rs_strtod is strtod in the "C" locale
 * whatever the caller's, and every reader of a number in ringsim goes through it or rs_parse_double.
 * rs_locale_c_enter switches the calling thread to the "C" locale (uselocale) until
 * rs_locale_c_leave(the value it returned): printf's "%g" then writes '.' (the Python package wraps
 * every call into the library in them). rs_locale_c_enter returns NULL when the locale cannot be made
 * (out of memory: the thread's locale is left as it was); rs_locale_c_leave(NULL) does nothing. */
double rs_strtod(const char *text, char **end);
void *rs_locale_c_enter(void);
void rs_locale_c_leave(void *old);

/* Enumerations by name: names[i] for 0 <= i < n, else "?"; the index of s among names[0..n), -1
 * when it is none of them. Can't fail. */
const char *rs_enum_name(const char *const *names, int n, int i);
int rs_enum_parse(const char *const *names, int n, const char *s);

/* Inputs: every reader opens its file through these, so that a directory, a device (an
 * endless /dev/zero or /dev/urandom, a terminal) or a socket is refused at once, a regular file
 * larger than max_bytes is refused before it is read, and a FIFO (a pipe, <(...)) is read up to
 * max_bytes. what names the kind in messages: "PATH: is a character device, not a ringsim trace",
 * "PATH: 5.2 GiB is larger than the 4 GiB a ringsim trace may have". */
/* Check path: exists, and is a regular file of at most max_bytes (or a FIFO when fifo_ok). Returns
 * 0 or -1 with err. */
int rs_input_check(const char *path, const char *what, uint64_t max_bytes, bool fifo_ok, rs_err_t *err);
/* rs_input_check, then open for reading; a FIFO's bytes (at most max_bytes) are first copied into
 * an unlinked temporary, so a reader sees a bounded regular file. NULL with err. */
FILE *rs_input_open(const char *path, const char *what, uint64_t max_bytes, rs_err_t *err);
/* The line-length cap of the text readers (traces, tables, maps): a longer line is refused with its
 * file:line. */
#define RS_MAX_LINE_BYTES ((size_t)1 << 16)

/* The whole text file at path, NUL-terminated (malloc'd), at most max_bytes. what names its kind in
 * the messages: "PATH: cannot read: No such file or directory", "PATH: larger than N bytes: not a
 * WHAT", "PATH: contains a NUL byte: not a WHAT", "PATH: read error". NULL with err. */
char *rs_read_text_file(const char *path, size_t max_bytes, const char *what, rs_err_t *err);

/* One line of fp into buf (cap bytes) without its '\n', NUL-terminated, for readers that go line by
 * line (hostmap, device map). Returns its length; -1 at the end of the file (nothing left); -2 when
 * it holds more than cap - 1 characters; -3 when it holds a NUL byte (not text: fgets would cut the
 * line there silently). After -2 or -3 the rest of the line is left unread. Can't fail. */
long rs_read_line(FILE *fp, char *buf, size_t cap);

/* rs_read_line for a file path (for its messages) whose lines are counted in *lineno: returns 1 with
 * the next line in buf (*lineno advanced), 0 at the end of the file, -1 with err "PATH:LINE: expected
 * a line of at most N characters" or "PATH:LINE: expected text, found a NUL byte". */
int rs_read_text_line(FILE *fp, char *buf, size_t cap, const char *path, int *lineno, rs_err_t *err);

/* Monotonic wall clock in seconds. Can't fail. */
double rs_now_s(void);

/* Deterministic hash of (seed, a, b) into [0, 1) (splitmix64). Used for seeded jitter so that the
 * model's walk and the simulator draw the same value for the same rank and step. Can't fail. */
double rs_hash_unit(uint64_t seed, uint64_t a, uint64_t b);

/* Format seconds with an adaptive unit (ns/us/ms/s) into buf; "-" when t_s is not finite (no nan or
 * inf reaches a reader). Returns buf. */
const char *rs_fmt_time(double t_s, char *buf, size_t len);
/* x with the printf format fmt (one double conversion, e.g. "%.3f") into buf, or "-" when x is NaN
 * or infinite (a text table's cell). Returns buf. */
const char *rs_fmt_num(double x, const char *fmt, char *buf, size_t len);

#endif /* RS_UTIL_H */
