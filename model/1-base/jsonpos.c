/* jsonpos.c - one pass over a JSON text recording the line:column of every member and element
 * (see jsonpos.h). A small recursive-descent reader: strings are decoded (escapes, \u surrogate pairs)
 * so that paths match the keys jansson hands out. */
#include "jsonpos.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RS_JSONPOS_MAX_DEPTH 256

typedef struct {
    char *path; /* key path, see jsonpos.h */
    int line;   /* 1-based line */
    int col;    /* 1-based column in characters */
} rs_jsonpos_entry_t;

struct rs_jsonpos {
    rs_jsonpos_entry_t *e; /* entries in text order */
    size_t n, cap;         /* used, allocated */
};

typedef struct {
    const unsigned char *s; /* text */
    size_t i;               /* read offset */
    int line, col;          /* position of s[i] */
    rs_jsonpos_t *out;      /* table being filled */
    int oom;                /* allocation failed */
    char *path;             /* current path (grows) */
    size_t path_len, path_cap;
} scan_t;

/* ------------------------------------------------------------------------------------------------
 * Reading characters
 * ---------------------------------------------------------------------------------------------- */
static int peek(const scan_t *sc) { return sc->s[sc->i]; }

static void advance(scan_t *sc) {
    unsigned char c = sc->s[sc->i];
    if (!c) return;
    sc->i++;
    if (c == '\n') {
        sc->line++;
        sc->col = 1;
    } else if ((c & 0xC0) != 0x80) {
        sc->col++;
    }
}

static void skip_ws(scan_t *sc) {
    for (;;) {
        int c = peek(sc);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') advance(sc);
        else return;
    }
}

/* ------------------------------------------------------------------------------------------------
 * Path buffer and table
 * ---------------------------------------------------------------------------------------------- */
static int path_reserve(scan_t *sc, size_t need) {
    if (need + 1 <= sc->path_cap) return 0;
    size_t cap = sc->path_cap ? sc->path_cap : 64;
    while (cap < need + 1) cap *= 2;
    char *p = realloc(sc->path, cap);
    if (!p) {
        sc->oom = 1;
        return -1;
    }
    sc->path = p;
    sc->path_cap = cap;
    return 0;
}

/* Append text (len bytes) to the path; returns the old length to restore, or (size_t)-1 on OOM. */
static size_t path_push(scan_t *sc, const char *sep, const char *text, size_t len) {
    size_t old = sc->path_len, sl = strlen(sep);
    if (path_reserve(sc, old + sl + len)) return (size_t)-1;
    memcpy(sc->path + old, sep, sl);
    memcpy(sc->path + old + sl, text, len);
    sc->path_len = old + sl + len;
    sc->path[sc->path_len] = '\0';
    return old;
}

static void path_pop(scan_t *sc, size_t old) {
    sc->path_len = old;
    if (sc->path) sc->path[old] = '\0';
}

static void record(scan_t *sc, int line, int col) {
    rs_jsonpos_t *t = sc->out;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        rs_jsonpos_entry_t *e = realloc(t->e, cap * sizeof *e);
        if (!e) {
            sc->oom = 1;
            return;
        }
        t->e = e;
        t->cap = cap;
    }
    char *p = strdup(sc->path ? sc->path : "");
    if (!p) {
        sc->oom = 1;
        return;
    }
    t->e[t->n].path = p;
    t->e[t->n].line = line;
    t->e[t->n].col = col;
    t->n++;
}

/* ------------------------------------------------------------------------------------------------
 * Values
 * ---------------------------------------------------------------------------------------------- */
static int hex4(scan_t *sc, unsigned *out) {
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        int c = peek(sc);
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
        advance(sc);
    }
    *out = v;
    return 0;
}

static void put_utf8(char *buf, size_t *n, unsigned cp) {
    if (cp < 0x80) {
        buf[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        buf[(*n)++] = (char)(0xC0 | (cp >> 6));
        buf[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        buf[(*n)++] = (char)(0xE0 | (cp >> 12));
        buf[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        buf[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        buf[(*n)++] = (char)(0xF0 | (cp >> 18));
        buf[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        buf[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        buf[(*n)++] = (char)(0x80 | (cp & 0x3F));
    }
}

/* Read a string at '"'. If out is not NULL, *out receives the decoded text (malloc'd) and *len its
 * length. Returns 0 or -1 (malformed or OOM). */
static int read_string(scan_t *sc, char **out, size_t *len) {
    if (peek(sc) != '"') return -1;
    advance(sc);
    size_t start = sc->i, cap = 0, n = 0;
    const unsigned char *p = sc->s + start;
    while (*p && *p != '"') p += (*p == '\\' && p[1]) ? 2 : 1; /* upper bound on decoded size */
    cap = (size_t)(p - (sc->s + start)) + 1;
    char *buf = out ? malloc(cap) : NULL;
    if (out && !buf) {
        sc->oom = 1;
        return -1;
    }
    for (;;) {
        int c = peek(sc);
        if (!c) goto bad;
        if (c == '"') {
            advance(sc);
            break;
        }
        if (c != '\\') {
            if (buf) buf[n++] = (char)c;
            advance(sc);
            continue;
        }
        advance(sc);
        c = peek(sc);
        unsigned cp = 0;
        switch (c) {
        case '"': case '\\': case '/': cp = (unsigned)c; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u':
            advance(sc);
            if (hex4(sc, &cp)) goto bad;
            if (cp >= 0xD800 && cp < 0xDC00 && peek(sc) == '\\' && sc->s[sc->i + 1] == 'u') {
                unsigned lo;
                advance(sc);
                advance(sc);
                if (hex4(sc, &lo)) goto bad;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            /* \uXXXX takes 6 input bytes and at most 4 output bytes: the bound holds */
            if (buf) put_utf8(buf, &n, cp);
            continue;
        default: goto bad;
        }
        if (buf) buf[n++] = (char)cp;
        advance(sc);
    }
    if (out) {
        buf[n] = '\0';
        *out = buf;
        *len = n;
    }
    return 0;
bad:
    free(buf);
    return -1;
}

static int scan_value(scan_t *sc, int depth, int rec);

/* Past the opening '{' or '['; true (and past close) when the container is empty. */
static bool opens_empty(scan_t *sc, int close) {
    advance(sc);
    skip_ws(sc);
    if (peek(sc) != close) return false;
    advance(sc);
    return true;
}

/* After a member or element: back to the container's path, then ',' (1: another follows), the
 * closing character (0: done) or anything else (-1). */
static int next_item(scan_t *sc, size_t old, int close) {
    path_pop(sc, old);
    skip_ws(sc);
    int c = peek(sc);
    advance(sc);
    return c == close ? 0 : c == ',' ? 1 : -1;
}

static int scan_object(scan_t *sc, int depth) {
    if (opens_empty(sc, '}')) return 0;
    for (;;) {
        skip_ws(sc);
        int line = sc->line, col = sc->col;
        char *key = NULL;
        size_t klen = 0;
        if (read_string(sc, &key, &klen)) return -1;
        size_t old = path_push(sc, sc->path_len ? "." : "", key, klen);
        free(key);
        if (old == (size_t)-1) return -1;
        record(sc, line, col);
        skip_ws(sc);
        if (peek(sc) != ':') return -1;
        advance(sc);
        if (scan_value(sc, depth + 1, 0)) return -1;
        const int more = next_item(sc, old, '}');
        if (more <= 0) return more;
    }
}

static int scan_array(scan_t *sc, int depth) {
    if (opens_empty(sc, ']')) return 0;
    for (size_t k = 0;; k++) {
        char idx[32];
        int m = snprintf(idx, sizeof idx, "[%zu]", k);
        size_t old = path_push(sc, "", idx, (size_t)m);
        if (old == (size_t)-1) return -1;
        if (scan_value(sc, depth + 1, 1)) return -1;
        const int more = next_item(sc, old, ']');
        if (more <= 0) return more;
    }
}

/* Scan one value; rec: record its position under the current path (array elements and the root;
 * members are recorded by scan_object at their key). */
static int scan_value(scan_t *sc, int depth, int rec) {
    if (depth > RS_JSONPOS_MAX_DEPTH || sc->oom) return -1;
    skip_ws(sc);
    if (rec) record(sc, sc->line, sc->col);
    int c = peek(sc);
    if (c == '{') return scan_object(sc, depth);
    if (c == '[') return scan_array(sc, depth);
    if (c == '"') return read_string(sc, NULL, NULL);
    if (!c) return -1;
    /* number, true, false, null: read to the next delimiter */
    while ((c = peek(sc)) && c != ',' && c != '}' && c != ']' && c != ' ' && c != '\t' && c != '\n' &&
           c != '\r')
        advance(sc);
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Public API
 * ---------------------------------------------------------------------------------------------- */
rs_jsonpos_t *rs_jsonpos_scan(const char *text) {
    rs_jsonpos_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    scan_t sc = {(const unsigned char *)(text ? text : ""), 0, 1, 1, t, 0, NULL, 0, 0};
    if (path_reserve(&sc, 0) == 0) {
        sc.path[0] = '\0';
        (void)scan_value(&sc, 0, 1);
    }
    free(sc.path);
    if (sc.oom) {
        rs_jsonpos_free(t);
        return NULL;
    }
    return t;
}

int rs_jsonpos_find(const rs_jsonpos_t *p, const char *path, int *line, int *col) {
    *line = *col = 0;
    if (!p || !path) return -1;
    for (size_t k = 0; k < p->n; k++) {
        if (!strcmp(p->e[k].path, path)) {
            *line = p->e[k].line;
            *col = p->e[k].col;
            return 0;
        }
    }
    return -1;
}

void rs_jsonpos_free(rs_jsonpos_t *p) {
    if (!p) return;
    for (size_t k = 0; k < p->n; k++) free(p->e[k].path);
    free(p->e);
    free(p);
}

int rs_jsonpos_errf(const rs_jsonpos_t *p, const char *origin, const char *path, rs_err_t *err, const char *fmt, ...) {
    char msg[768], probe[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = 0, col = 0;
    snprintf(probe, sizeof probe, "%s", path);
    while (rs_jsonpos_find(p, probe, &line, &col) != 0) { /* the nearest enclosing path in the text */
        char *cut = strrchr(probe, '.');
        char *br = strrchr(probe, '[');
        if (br && (!cut || br > cut)) cut = br;
        if (!cut) {
            if (rs_jsonpos_find(p, "", &line, &col) != 0) line = col = 1;
            break;
        }
        *cut = '\0';
    }
    if (*path) return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%d:%d: %s: %s", origin, line, col, path, msg);
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%d:%d: %s", origin, line, col, msg);
}

const char *rs_json_type_name(const json_t *j) {
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}
