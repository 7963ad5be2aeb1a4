/* util.c - errors, number parsing, clocks, hashing (see util.h; the output files: output.h). */
#define _GNU_SOURCE /* strtod_l, newlocale, uselocale */
#include "util.h"

#include <ctype.h>
#include <locale.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void err_vset(rs_err_t *err, const char *fmt, va_list ap) {
    char raw[sizeof err->msg]; /* not err->msg itself: callers pass err->msg as an argument */
    vsnprintf(raw, sizeof raw, fmt, ap);
    rs_escape(raw, err->msg, sizeof err->msg);
}

int rs_errf(rs_err_t *err, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err_vset(err, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int rs_errc(rs_err_t *err, rs_errc_t code, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err_vset(err, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return -1;
}

int rs_err_mark(rs_err_t *err, rs_errc_t code) {
    if (err) err->code = code;
    return -1;
}

void rs_err_clear(rs_err_t *err) {
    if (err) {
        err->msg[0] = 0;
        err->code = RS_ERR_RUNTIME;
    }
}

int rs_err_exit_code(const rs_err_t *err) { return err && err->code == RS_ERR_BAD_INPUT ? RS_EXIT_USAGE : RS_EXIT_FAIL; }

const char *rs_errc_name(rs_errc_t code) {
    static const char *const names[] = {"runtime", "bad input", "timeout", "aborted"};
    return code >= 0 && (size_t)code < sizeof names / sizeof names[0] ? names[code] : "?";
}

int rs_err_option(rs_err_t *err, const char *opt, const char *value) {
    if (!err || !value) return -1;
    const size_t n = strlen(value);
    if (strncmp(err->msg, value, n) == 0 && err->msg[n] == ':') return -1;
    return rs_errf(err, "%s %s: %s", opt, value, err->msg);
}

const char *rs_escape(const char *s, char *out, size_t len) {
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)s; len && *c; c++) {
        char esc[8] = {(char)*c, 0};
        if (*c == '\n' || *c == '\r' || *c == '\t') snprintf(esc, sizeof esc, "\\%c", *c == '\n' ? 'n' : *c == '\r' ? 'r' : 't');
        else if (*c < 0x20 || *c == 0x7f) snprintf(esc, sizeof esc, "\\x%02x", (unsigned)*c);
        const size_t k = strlen(esc);
        if (n + k >= len) break;
        memcpy(out + n, esc, k);
        n += k;
    }
    if (len) out[n] = 0;
    return out;
}

int rs_parse_size(const char *name, const char *text, int64_t min, int64_t max, int64_t *out,
                  rs_err_t *err) {
    if (!text || !*text) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: empty value (expected an integer in [%lld, %lld])", name, (long long)min, (long long)max);
    const char *s = text;
    while (isspace((unsigned char)*s)) s++;
    if (*s == '-') return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: must be in [%lld, %lld]", name, text, (long long)min, (long long)max);
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno == ERANGE)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: not an integer (expected e.g. 4096, 128K, 1M; range [%lld, %lld])", name, text, (long long)min, (long long)max);
    unsigned long long mult = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mult = 1ULL << 10; break;
        case 'M': mult = 1ULL << 20; break;
        case 'G': mult = 1ULL << 30; break;
        case 'T': mult = 1ULL << 40; break;
        default:
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: unknown suffix '%s' (accepted: K, M, G, T = powers of 1024); range [%lld, %lld]", name,
                           text, end, (long long)min, (long long)max);
        }
        end++;
        if (*end)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: trailing characters '%s' (expected an integer in [%lld, %lld])", name, text, end,
                           (long long)min, (long long)max);
    }
    if (v > (unsigned long long)INT64_MAX / mult)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: too large (range [%lld, %lld])", name, text, (long long)min, (long long)max);
    int64_t r = (int64_t)(v * mult);
    if (r < min || r > max)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: must be in [%lld, %lld]", name, text, (long long)min, (long long)max);
    *out = r;
    return 0;
}

/* The "C" locale, made once (newlocale) and kept for the life of the process. */
static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static void c_locale_make(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

static locale_t c_locale_get(void) {
    pthread_once(&c_locale_once, c_locale_make);
    return c_locale;
}

double rs_strtod(const char *text, char **end) {
    const locale_t c = c_locale_get();
    if (c) return strtod_l(text, end, c);
    /* no locale object (out of memory at the first call): strtod, which is right in the "C" locale */
    return strtod(text, end);
}

void *rs_locale_c_enter(void) {
    const locale_t c = c_locale_get();
    if (!c) return NULL;
    const locale_t old = uselocale(c);
    return old == (locale_t)0 ? NULL : (void *)old;
}

void rs_locale_c_leave(void *old) {
    if (old) uselocale((locale_t)old);
}

int rs_parse_double(const char *name, const char *text, double min, double max, double *out,
                    rs_err_t *err) {
    if (!text || !*text) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: empty value (expected a number in [%g, %g])", name, min, max);
    errno = 0;
    char *end = NULL;
    double v = rs_strtod(text, &end);
    if (end == text) return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: not a number (expected e.g. 989e12 or 450G; range [%g, %g])", name, text, min, max);
    if (*end) {
        double mult;
        switch (*end) {
        case 'k': case 'K': mult = 1e3; break;
        case 'M': mult = 1e6; break;
        case 'G': mult = 1e9; break;
        case 'T': mult = 1e12; break;
        case 'P': mult = 1e15; break;
        default: return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: unknown suffix '%s' (accepted: k, M, G, T, P); range [%g, %g]", name, text, end, min, max);
        }
        if (end[1]) return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: trailing characters '%s' (expected a number in [%g, %g])", name, text, end + 1, min, max);
        v *= mult;
    }
    if (!isfinite(v)) return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: must be finite, in [%g, %g]", name, text, min, max);
    if (v < min || v > max) return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: must be in [%g, %g]", name, text, min, max);
    *out = v;
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Clock, hash, formatting
 * ---------------------------------------------------------------------------------------------- */
double rs_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

double rs_hash_unit(uint64_t seed, uint64_t a, uint64_t b) {
    uint64_t h = splitmix64(seed ^ splitmix64(a ^ splitmix64(b)));
    return (double)(h >> 11) * 0x1.0p-53;
}

const char *rs_fmt_time(double t_s, char *buf, size_t len) {
    double a = fabs(t_s);
    if (!isfinite(t_s)) snprintf(buf, len, "-");
    else if (a == 0) snprintf(buf, len, "0 s");
    else if (a < 1e-6) snprintf(buf, len, "%.3g ns", t_s * 1e9);
    else if (a < 1e-3) snprintf(buf, len, "%.4g us", t_s * 1e6);
    else if (a < 1) snprintf(buf, len, "%.4g ms", t_s * 1e3);
    else snprintf(buf, len, "%.4g s", t_s);
    return buf;
}

const char *rs_fmt_num(double x, const char *fmt, char *buf, size_t len) {
    if (!isfinite(x)) snprintf(buf, len, "-");
    else snprintf(buf, len, fmt, x);
    return buf;
}

/* "1.5 GiB" */
static const char *bytes_text(double b, char *buf, size_t len) {
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (b >= 1024 && u < 6) b /= 1024, u++;
    snprintf(buf, len, u ? "%.3g %s" : "%.0f %s", b, unit[u]);
    return buf;
}

/* Classify an open input: 0, or -1 with err. */
static int input_kind(const char *path, const char *what, const struct stat *st, uint64_t max_bytes, bool fifo_ok,
                      rs_err_t *err) {
    char a[32], b[32];
    if (S_ISREG(st->st_mode)) {
        if ((uint64_t)st->st_size > max_bytes)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s is larger than the %s a %s may have", path, bytes_text((double)st->st_size, a, sizeof a),
                           bytes_text((double)max_bytes, b, sizeof b), what);
        return 0;
    }
    if (S_ISFIFO(st->st_mode) && fifo_ok) return 0;
    const char *kind = S_ISDIR(st->st_mode) ? "a directory" : S_ISCHR(st->st_mode) ? "a character device"
                       : S_ISBLK(st->st_mode) ? "a block device" : S_ISSOCK(st->st_mode) ? "a socket" : "a FIFO";
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s: is %s, not a %s (a regular file%s is expected)", path, kind, what, fifo_ok ? " or a pipe" : "");
}

int rs_input_check(const char *path, const char *what, uint64_t max_bytes, bool fifo_ok, rs_err_t *err) {
    struct stat st;
    if (stat(path, &st) != 0) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: cannot read: %s", path, strerror(errno));
    return input_kind(path, what, &st, max_bytes, fifo_ok, err);
}

FILE *rs_input_open(const char *path, const char *what, uint64_t max_bytes, rs_err_t *err) {
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO without a writer: not a hang */
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        rs_errc(err, RS_ERR_BAD_INPUT, "%s: cannot read: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return NULL;
    }
    if (input_kind(path, what, &st, max_bytes, true, err) != 0) {
        close(fd);
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (S_ISREG(st.st_mode)) {
        FILE *fp = fdopen(fd, "rb");
        if (!fp) close(fd), rs_errf(err, "%s: out of memory", path);
        return fp;
    }
    FILE *tmp = tmpfile(); /* the pipe's bytes, bounded */
    char buf[1 << 16], a[32];
    uint64_t total = 0;
    for (ssize_t n; tmp && (n = read(fd, buf, sizeof buf)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 || (total += (uint64_t)n) > max_bytes || fwrite(buf, 1, (size_t)n, tmp) != (size_t)n) {
            if (n < 0) rs_errf(err, "%s: read error: %s", path, strerror(errno));
            else if (total > max_bytes) rs_errc(err, RS_ERR_BAD_INPUT, "%s: more than the %s a %s may have", path, bytes_text((double)max_bytes, a, sizeof a), what);
            else rs_errf(err, "%s: cannot keep the pipe's data: %s", path, strerror(errno));
            fclose(tmp);
            close(fd);
            return NULL;
        }
    }
    close(fd);
    if (!tmp) rs_errf(err, "%s: cannot keep the pipe's data: %s", path, strerror(errno));
    else rewind(tmp);
    return tmp;
}

char *rs_read_text_file(const char *path, size_t max_bytes, const char *what, rs_err_t *err) {
    FILE *fp = rs_input_open(path, what, max_bytes, err);
    if (!fp) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (size_t got = 1; buf && got > 0;) {
        if (n + 1 >= cap) {
            char *nb = cap <= max_bytes ? realloc(buf, cap * 2) : NULL;
            if (!nb && cap <= max_bytes) rs_errf(err, "%s: out of memory", path);
            if (!nb && cap > max_bytes) rs_errc(err, RS_ERR_BAD_INPUT, "%s: larger than %zu bytes: not a %s", path, max_bytes, what);
            if (!nb) free(buf);
            buf = nb;
            cap *= 2;
            if (!buf) break;
        }
        got = fread(buf + n, 1, cap - 1 - n, fp);
        n += got;
    }
    const bool bad = buf && ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        rs_errf(err, "%s: read error", path);
        return NULL;
    }
    if (buf) buf[n] = '\0';
    if (buf && strlen(buf) != n) {
        free(buf);
        rs_errc(err, RS_ERR_BAD_INPUT, "%s: contains a NUL byte: not a %s", path, what);
        return NULL;
    }
    return buf;
}

long rs_read_line(FILE *fp, char *buf, size_t cap) {
    size_t len = 0;
    int c;
    while ((c = getc(fp)) != EOF && c != '\n') {
        if (c == '\0') return -3;
        if (len + 1 >= cap) return -2;
        buf[len++] = (char)c;
    }
    if (c == EOF && len == 0) return -1;
    buf[len] = '\0';
    return (long)len;
}

int rs_read_text_line(FILE *fp, char *buf, size_t cap, const char *path, int *lineno, rs_err_t *err) {
    const long len = rs_read_line(fp, buf, cap);
    if (len == -1) return 0;
    ++*lineno;
    if (len == -2) return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%d: expected a line of at most %zu characters", path, *lineno, cap - 1);
    if (len == -3) return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%d: expected text, found a NUL byte", path, *lineno);
    return 1;
}

const char *rs_enum_name(const char *const *names, int n, int i) { return i >= 0 && i < n ? names[i] : "?"; }

int rs_enum_parse(const char *const *names, int n, const char *s) {
    for (int i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0) return i;
    return -1;
}
