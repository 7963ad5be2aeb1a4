/* util.c - errors, number parsing, atomic files, clocks, hashing (see util.h). */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int rs_errf(rs_err_t *err, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
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
    if (a == 0) snprintf(buf, len, "0 s");
    else if (a < 1e-6) snprintf(buf, len, "%.3g ns", t_s * 1e9);
    else if (a < 1e-3) snprintf(buf, len, "%.4g us", t_s * 1e6);
    else if (a < 1) snprintf(buf, len, "%.4g ms", t_s * 1e3);
    else snprintf(buf, len, "%.4g s", t_s);
    return buf;
}

const char *rs_fmt_exact(double x, char *buf, size_t len) {
    if (!isfinite(x)) return NULL;
    double ax = fabs(x);
    if (ax != 0 && (ax >= 1e4 || ax < 1e-3)) {
        /* engineering form, as in the shipped presets: 989e12, 3.35e12, 3e-6 */
        int e3 = (int)floor(log10(ax) / 3) * 3;
        double mant = x / pow(10, e3);
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(buf, len, "%.*ge%d", prec, mant, e3);
            char *end = NULL;
            if (strtod(buf, &end) == x && *end == '\0') return buf;
        }
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, x);
        if (strtod(buf, NULL) == x) break;
    }
    return buf;
}
