/* platform_check.c - a user's SimGrid platform checked before SimGrid reads it (platform_check.h). */
#include "platform_check.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The attributes checked: element, attribute, a rate (> 0) or a delay (>= 0), a list of pstates. */
static const struct {
    const char *elem, *attr;
    bool rate, list;
} checked[] = {
    {"host", "speed", true, true},        {"link", "bandwidth", true, false},  {"link", "latency", false, false},
    {"cluster", "speed", true, true},     {"cluster", "bw", true, false},      {"cluster", "lat", false, false},
    {"cluster", "bb_bw", true, false},    {"cluster", "bb_lat", false, false}, {"cluster", "loopback_bw", true, false},
    {"cluster", "loopback_lat", false, false}, {"cluster", "limiter_link", true, false},
    {"peer", "speed", true, true},        {"peer", "bw_in", true, false},      {"peer", "bw_out", true, false},
    {"peer", "lat", false, false},        {"backbone", "bandwidth", true, false}, {"backbone", "latency", false, false},
    {"cabinet", "speed", true, true},     {"cabinet", "bw", true, false},      {"cabinet", "lat", false, false},
};

/* One value "1.5Gf" (number, optional unit of letters): 0, or -1 with why. */
static int check_value(const char *v, size_t len, bool rate, const char **why) {
    char buf[128];
    if (len >= sizeof buf) return *why = "is too long", -1;
    memcpy(buf, v, len);
    buf[len] = 0;
    const char *s = buf;
    while (isspace((unsigned char)*s)) s++;
    char *end = NULL;
    const double x = strtod(s, &end);
    if (end == s) return *why = rate ? "a rate must be a number (with a unit), > 0" : "a delay must be a number (with a unit), >= 0", -1;
    while (isalpha((unsigned char)*end)) end++;
    while (isspace((unsigned char)*end)) end++;
    if (*end) return *why = "expected a number and a unit", -1;
    if (!isfinite(x)) return *why = "must be finite", -1;
    if (rate && !(x > 0)) return *why = "a rate (speed, bandwidth) must be > 0", -1;
    if (!rate && !(x >= 0)) return *why = "a delay (latency) must be >= 0", -1;
    return 0;
}

/* The attribute attr="..." of the tag text [tag, end), its value and length; NULL when absent. */
static const char *attr_value(const char *tag, const char *end, const char *attr, size_t *len) {
    const size_t al = strlen(attr);
    for (const char *p = tag; p + al < end; p++) {
        if (strncmp(p, attr, al) != 0 || (p > tag && !isspace((unsigned char)p[-1]))) continue;
        const char *q = p + al;
        while (q < end && isspace((unsigned char)*q)) q++;
        if (q >= end || *q != '=') continue;
        q++;
        while (q < end && isspace((unsigned char)*q)) q++;
        if (q >= end || (*q != '"' && *q != '\'')) continue;
        const char quote = *q++;
        const char *e = memchr(q, quote, (size_t)(end - q));
        if (!e) return NULL;
        *len = (size_t)(e - q);
        return q;
    }
    return NULL;
}

/* The tag [tag, end) of element elem at line: its checked attributes. */
static int check_tag(const char *tag, const char *end, const char *elem, const char *origin, int line, rs_err_t *err) {
    size_t idl = 0;
    const char *id = attr_value(tag, end, "id", &idl);
    for (size_t i = 0; i < sizeof checked / sizeof checked[0]; i++) {
        if (strcmp(checked[i].elem, elem) != 0) continue;
        size_t len;
        const char *v = attr_value(tag, end, checked[i].attr, &len);
        for (const char *item = v; item;) { /* a list of pstates: "1Gf,2Gf" */
            const char *comma = checked[i].list ? memchr(item, ',', len - (size_t)(item - v)) : NULL;
            const size_t il = comma ? (size_t)(comma - item) : len - (size_t)(item - v);
            const char *why = NULL;
            if (check_value(item, il, checked[i].rate, &why) != 0)
                return rs_errf(err, "%s:%d: <%s%s%.*s%s> %s=\"%.*s\": %s", origin, line, elem, id ? " id=\"" : "", (int)(id ? idl : 0),
                               id ? id : "", id ? "\"" : "", checked[i].attr, (int)(len < 200 ? len : 200), v, why);
            item = comma ? comma + 1 : NULL;
        }
    }
    return 0;
}

int rs_platform_check_text(const char *text, const char *origin, rs_err_t *err) {
    int line = 1;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') line++;
        if (*p != '<') continue;
        if (!strncmp(p, "<!--", 4)) { /* a comment */
            const char *e = strstr(p + 4, "-->");
            for (const char *q = p; q < (e ? e : p + strlen(p)); q++) line += *q == '\n';
            if (!e) break;
            p = e + 2;
            continue;
        }
        const char *name = p + 1, *ne = name;
        while (isalnum((unsigned char)*ne) || *ne == '_' || *ne == '-') ne++;
        const char *end = strchr(ne, '>');
        if (!end) break;
        char elem[32];
        const size_t nl = (size_t)(ne - name);
        if (nl > 0 && nl < sizeof elem) {
            memcpy(elem, name, nl);
            elem[nl] = 0;
            if (check_tag(ne, end, elem, origin, line, err) != 0) return -1;
        }
        for (const char *q = p; q < end; q++) line += *q == '\n';
        p = end;
    }
    return 0;
}

int rs_platform_check_file(const char *path, rs_err_t *err) {
    char *text = rs_read_text_file(path, (size_t)256 << 20, "SimGrid platform", err);
    if (!text) return -1;
    const int rc = rs_platform_check_text(text, path, err);
    free(text);
    return rc;
}
