/* rate_source.c - the source of each rate (rate_source.h). */
#include "rate_source.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static const char *const kind_names[RS_RKIND_COUNT] = {"measured", "published", "estimated", "user-given"};
static const char *const rate_names[RS_RATE_COUNT] = {"attention", "merge_bw", "intra_bw", "inter_bw", "latency", "launch"};

const char *rs_rate_kind_name(rs_rate_kind_t k) { return rs_enum_name(kind_names, RS_RKIND_COUNT, (int)k); }

int rs_rate_kind_parse(const char *s, rs_rate_kind_t *out) {
    const int i = rs_enum_parse(kind_names, RS_RKIND_COUNT, s);
    if (i >= 0) *out = (rs_rate_kind_t)i;
    return i >= 0 ? 0 : -1;
}

const char *rs_rate_name(rs_rate_t r) { return rs_enum_name(rate_names, RS_RATE_COUNT, (int)r); }

void rs_rate_set(rs_rate_sources_t *s, rs_rate_t r, rs_rate_kind_t kind, const char *fmt, ...) {
    if ((int)r < 0 || r >= RS_RATE_COUNT) return;
    rs_rate_source_t *d = &s->rate[r];
    char tmp[RS_RATE_SOURCE_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap); /* through tmp: fmt's arguments may be d->source itself */
    va_end(ap);
    d->kind = kind;
    memcpy(d->source, tmp, sizeof tmp);
}

/* s starts with prefix, ignoring case. */
static int starts_with(const char *s, const char *prefix) {
    for (; *prefix; s++, prefix++)
        if (tolower((unsigned char)*s) != *prefix) return 0;
    return 1;
}

rs_rate_kind_t rs_rate_kind_of_text(const char *source, bool preset) {
    if (source && (starts_with(source, "measured by ringsim") || starts_with(source, "ringsim calibrate"))) return RS_RKIND_MEASURED;
    if (!preset) return RS_RKIND_USER;
    if (!source || !*source || starts_with(source, "assumption") || starts_with(source, "estimate")) return RS_RKIND_ESTIMATED;
    return RS_RKIND_PUBLISHED;
}

/* The first clause of src (up to ':', ';', '(' or ". ", at most max characters, cut at a space) into
 * out; "..." when cut short of the text's end. */
static void first_clause(const char *src, char *out, size_t len, size_t max) {
    size_t n = 0;
    while (src[n] && src[n] != ';' && src[n] != ':' && src[n] != '(' && !(src[n] == '.' && src[n + 1] == ' ')) n++;
    bool cut = src[n] != '\0';
    if (n > max) {
        size_t k = max;
        while (k > max / 2 && src[k] != ' ') k--;
        n = k, cut = true;
    }
    while (n > 0 && (src[n - 1] == ' ' || src[n - 1] == ',')) n--;
    snprintf(out, len, "%.*s%s", (int)n, src, cut ? "..." : "");
}

const char *rs_rate_sources_line(const rs_rate_sources_t *s, unsigned skip, char *buf, size_t len) {
    size_t n = 0;
    if (!len) return buf;
    buf[0] = '\0';
    for (int r = 0; r < RS_RATE_COUNT && n < len; r++) {
        if (skip >> r & 1u) continue;
        const rs_rate_source_t *x = &s->rate[r];
        char clause[128];
        first_clause(x->source, clause, sizeof clause, 90);
        n += (size_t)snprintf(buf + n, len - n, "%s%s %s%s%s%s", n ? "; " : "", rate_names[r], rs_rate_kind_name(x->kind),
                              clause[0] ? " (" : "", clause, clause[0] ? ")" : "");
    }
    return buf;
}
