/* util.c - errors, number parsing, atomic files, clocks, hashing (see util.h). */
#include "util.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int rs_errf(rs_err_t *err, const char *fmt, ...) {
    if (err) {
        char raw[sizeof err->msg]; /* not err->msg itself: callers pass err->msg as an argument */
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        /* one line of text: control bytes a message quotes from a file or an argument (a JSON key's
         * \n, a CR, ESC) are written as escapes */
        size_t n = 0, cap = sizeof err->msg;
        for (const unsigned char *c = (const unsigned char *)raw; *c; c++) {
            if (*c >= 0x20 && *c != 0x7f) {
                if (n + 1 >= cap) break;
                err->msg[n++] = (char)*c;
                continue;
            }
            char esc[8];
            int k = snprintf(esc, sizeof esc, *c == '\n' ? "\\n" : *c == '\r' ? "\\r" : *c == '\t' ? "\\t" : "\\x%02x", (unsigned)*c);
            if (n + (size_t)k >= cap) break;
            memcpy(err->msg + n, esc, (size_t)k);
            n += (size_t)k;
        }
        err->msg[n] = '\0';
    }
    return -1;
}

int rs_parse_size(const char *name, const char *text, int64_t min, int64_t max, int64_t *out,
                  rs_err_t *err) {
    if (!text || !*text) return rs_errf(err, "%s: empty value (expected an integer in [%lld, %lld])", name, (long long)min, (long long)max);
    const char *s = text;
    while (isspace((unsigned char)*s)) s++;
    if (*s == '-') return rs_errf(err, "%s %s: must be in [%lld, %lld]", name, text, (long long)min, (long long)max);
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno == ERANGE)
        return rs_errf(err, "%s %s: not an integer (expected e.g. 4096, 128K, 1M; range [%lld, %lld])", name, text, (long long)min, (long long)max);
    unsigned long long mult = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mult = 1ULL << 10; break;
        case 'M': mult = 1ULL << 20; break;
        case 'G': mult = 1ULL << 30; break;
        case 'T': mult = 1ULL << 40; break;
        default:
            return rs_errf(err, "%s %s: unknown suffix '%s' (accepted: K, M, G, T = powers of 1024)", name, text, end);
        }
        end++;
        if (*end) return rs_errf(err, "%s %s: trailing characters '%s'", name, text, end);
    }
    if (v > (unsigned long long)INT64_MAX / mult)
        return rs_errf(err, "%s %s: too large (range [%lld, %lld])", name, text, (long long)min, (long long)max);
    int64_t r = (int64_t)(v * mult);
    if (r < min || r > max)
        return rs_errf(err, "%s %s: must be in [%lld, %lld]", name, text, (long long)min, (long long)max);
    *out = r;
    return 0;
}

int rs_parse_double(const char *name, const char *text, double min, double max, double *out,
                    rs_err_t *err) {
    if (!text || !*text) return rs_errf(err, "%s: empty value (expected a number in [%g, %g])", name, min, max);
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text) return rs_errf(err, "%s %s: not a number (expected e.g. 989e12 or 450G; range [%g, %g])", name, text, min, max);
    if (*end) {
        double mult;
        switch (*end) {
        case 'k': case 'K': mult = 1e3; break;
        case 'M': mult = 1e6; break;
        case 'G': mult = 1e9; break;
        case 'T': mult = 1e12; break;
        case 'P': mult = 1e15; break;
        default: return rs_errf(err, "%s %s: unknown suffix '%s' (accepted: k, M, G, T, P)", name, text, end);
        }
        if (end[1]) return rs_errf(err, "%s %s: trailing characters '%s'", name, text, end + 1);
        v *= mult;
    }
    if (!isfinite(v)) return rs_errf(err, "%s %s: must be finite, in [%g, %g]", name, text, min, max);
    if (v < min || v > max) return rs_errf(err, "%s %s: must be in [%g, %g]", name, text, min, max);
    *out = v;
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Atomic files
 * ---------------------------------------------------------------------------------------------- */
int rs_file_open(rs_file_t *f, const char *path, rs_err_t *err) {
    memset(f, 0, sizeof *f);
    size_t n = strlen(path) + 64;
    f->path = strdup(path);
    f->tmp_path = malloc(n);
    if (!f->path || !f->tmp_path) {
        rs_file_abort(f);
        return rs_errf(err, "%s: out of memory", path);
    }
    snprintf(f->tmp_path, n, "%s.tmp.%ld", path, (long)getpid());
    f->fp = fopen(f->tmp_path, "w");
    if (!f->fp) {
        int e = errno;
        rs_file_abort(f);
        return rs_errf(err, "%s: cannot write: %s", path, strerror(e));
    }
    return 0;
}

int rs_file_commit(rs_file_t *f, rs_err_t *err) {
    int bad = ferror(f->fp);
    if (fclose(f->fp) != 0) bad = 1;
    f->fp = NULL;
    if (bad) {
        int e = errno;
        rs_errf(err, "%s: write failed: %s", f->path, strerror(e));
        rs_file_abort(f);
        return -1;
    }
    if (rename(f->tmp_path, f->path) != 0) {
        int e = errno;
        rs_errf(err, "%s: cannot rename temporary file: %s", f->path, strerror(e));
        rs_file_abort(f);
        return -1;
    }
    free(f->path);
    free(f->tmp_path);
    memset(f, 0, sizeof *f);
    return 0;
}

void rs_file_abort(rs_file_t *f) {
    if (f->fp) fclose(f->fp);
    if (f->tmp_path) remove(f->tmp_path);
    free(f->path);
    free(f->tmp_path);
    memset(f, 0, sizeof *f);
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

char *rs_read_text_file(const char *path, size_t max_bytes, const char *what, rs_err_t *err) {
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        rs_errf(err, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (size_t got = 1; buf && got > 0;) {
        if (n + 1 >= cap) {
            char *nb = cap <= max_bytes ? realloc(buf, cap * 2) : NULL;
            if (!nb && cap <= max_bytes) rs_errf(err, "%s: out of memory", path);
            if (!nb && cap > max_bytes) rs_errf(err, "%s: larger than %zu bytes: not a %s", path, max_bytes, what);
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
        rs_errf(err, "%s: contains a NUL byte: not a %s", path, what);
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
    if (len == -2) return rs_errf(err, "%s:%d: expected a line of at most %zu characters", path, *lineno, cap - 1);
    if (len == -3) return rs_errf(err, "%s:%d: expected text, found a NUL byte", path, *lineno);
    return 1;
}

const char *rs_enum_name(const char *const *names, int n, int i) { return i >= 0 && i < n ? names[i] : "?"; }

int rs_enum_parse(const char *const *names, int n, const char *s) {
    for (int i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0) return i;
    return -1;
}
