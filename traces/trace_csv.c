/* trace_csv.c - the trace schema's CSV file (trace.h; the format: docs/traces.md): the writer (version
 * 2, events and role events, when the trace has role events; else version 1) and the reader (versions 1 and 2), which refuses malformed input naming
 * path:line. Every number is printed with %.17g (doubles) or %d (integers), so a trace written twice
 * gives identical bytes and a round trip is exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimate.h"
#include "output.h"
#include "trace_private.h"

#define RS_TRACE_VERSION 2
static const char RS_TRACE_COLUMNS[] = "source,rank,step,pass,kind,start_s,end_s,flops,bytes,peer,role,busy_s";
#define RS_TRACE_NCOLS 12
/* version 1: the same without role and busy_s (every row an event) */
static const char RS_TRACE_COLUMNS_V1[] = "source,rank,step,pass,kind,start_s,end_s,flops,bytes,peer";
#define RS_TRACE_NCOLS_V1 10
/* |start_s|, |end_s| at most this (~31700 years): a difference of two times can't overflow */
#define RS_TRACE_MAX_ABS_TIME_S 1e12

/* ------------------------------------------------------------------------------------------------
 * CSV writer
 * ---------------------------------------------------------------------------------------------- */
int rs_trace_write_csv(const rs_trace_t *t, const char *path, rs_err_t *err) {
    rs_file_t f;
    if (rs_file_open(&f, path, err) != 0) return -1;
    FILE *fp = f.fp;
    const char *source = rs_trace_source(t);
    const bool v2 = rs_trace_role_count(t) > 0; /* version 1 when there is no role event: the same bytes as before roles */
    fprintf(fp, "# ringsim-trace=%d\n# source=%s\n", v2 ? RS_TRACE_VERSION : 1, source);
    for (size_t i = 0; i < rs_trace_meta_count(t); i++) {
        const char *key, *value;
        rs_trace_meta_at(t, i, &key, &value);
        fprintf(fp, "# %s=%s\n", key, value);
    }
    fprintf(fp, "%s\n", v2 ? RS_TRACE_COLUMNS : RS_TRACE_COLUMNS_V1);
    const rs_event_t *ev = rs_trace_events(t);
    for (size_t i = 0; i < rs_trace_count(t); i++) {
        const rs_event_t *e = &ev[i];
        fprintf(fp, "%s,%d,%d,%s,%s,%.17g,%.17g,%.17g,%.17g,%d%s\n", source, (int)e->rank,
                (int)e->step, rs_pass_name(e->pass), rs_event_kind_name(e->kind), e->start_s, e->end_s,
                e->flops, e->bytes, (int)e->peer, v2 ? ",-,-" : "");
    }
    const rs_role_event_t *ro = rs_trace_roles(t);
    for (size_t i = 0; i < rs_trace_role_count(t); i++)
        fprintf(fp, "%s,%d,%d,%s,compute,%.17g,%.17g,0,0,-1,%s,%.17g\n", source, (int)ro[i].rank, (int)ro[i].step,
                rs_pass_name(ro[i].pass), ro[i].start_s, ro[i].end_s, rs_role_name(ro[i].role), ro[i].busy_s);
    return rs_file_commit(&f, err);
}

/* ------------------------------------------------------------------------------------------------
 * CSV reader
 * ---------------------------------------------------------------------------------------------- */
/* Split line at commas in place; returns the field count (at most max, extra fields counted). */
static int split_csv(char *line, char **fields, int max) {
    int n = 0;
    char *s = line;
    for (;;) {
        char *c = strchr(s, ',');
        if (n < max) fields[n] = s;
        n++;
        if (!c) break;
        *c = '\0';
        s = c + 1;
    }
    return n;
}

static int parse_i32(const char *s, int32_t min, int32_t *out) {
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno == ERANGE || v < min || v > INT32_MAX) return -1;
    *out = (int32_t)v;
    return 0;
}

static int parse_num(const char *s, double *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* Parse one data row of a version-`ver` file: an event into *ev (*is_role 0) or a role event into *ro
 * (*is_role 1). Returns 0 or -1 with err "path:line: expected ...". */
static int parse_row(char *line, const char *path, long ln, const char *source, int ver, rs_event_t *ev, rs_role_event_t *ro,
                     int *is_role, rs_err_t *err) {
    char *f[RS_TRACE_NCOLS];
    const int want = ver == 1 ? RS_TRACE_NCOLS_V1 : RS_TRACE_NCOLS;
    const char *cols = ver == 1 ? RS_TRACE_COLUMNS_V1 : RS_TRACE_COLUMNS;
    int n = split_csv(line, f, RS_TRACE_NCOLS);
    if (n != want && !(ver > 1 && n == RS_TRACE_NCOLS_V1)) /* a version-2 row may omit role and busy_s */
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected %d comma-separated columns (%s), got %d", path, ln, want, cols, n);
    if (strcmp(f[0], source) != 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected source '%s' (from the header), got '%s'", path, ln, source,
                       f[0]);
    memset(ev, 0, sizeof *ev);
    if (parse_i32(f[1], 0, &ev->rank))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected rank as an integer >= 0, got '%s'", path, ln, f[1]);
    if (parse_i32(f[2], 0, &ev->step))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected step as an integer >= 0, got '%s'", path, ln, f[2]);
    if (rs_pass_parse(f[3], &ev->pass))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected pass forward or backward, got '%s'", path, ln, f[3]);
    if (rs_event_kind_parse(f[4], &ev->kind))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected kind compute, send, recv or step, got '%s'", path, ln, f[4]);
    const char *names[4] = {"start_s", "end_s", "flops", "bytes"};
    double *dst[4] = {&ev->start_s, &ev->end_s, &ev->flops, &ev->bytes};
    for (int i = 0; i < 4; i++)
        if (parse_num(f[5 + i], dst[i]))
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected %s as a finite number, got '%s'", path, ln, names[i],
                           f[5 + i]);
    for (int i = 0; i < 2; i++) /* so that every duration and makespan of the trace is finite */
        if (!(fabs(*dst[i]) <= RS_TRACE_MAX_ABS_TIME_S))
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected %s in [-%g, %g] s (from the run's origin), got '%s'", path, ln,
                           names[i], RS_TRACE_MAX_ABS_TIME_S, RS_TRACE_MAX_ABS_TIME_S, f[5 + i]);
    if (ev->end_s < ev->start_s)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected end_s >= start_s, got %s < %s", path, ln, f[6], f[5]);
    if (ev->flops < 0 || ev->bytes < 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected flops and bytes >= 0", path, ln);
    if (parse_i32(f[9], -1, &ev->peer))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected peer as an integer >= -1, got '%s'", path, ln, f[9]);
    *is_role = 0;
    if (n == RS_TRACE_NCOLS_V1 || (!strcmp(f[10], "-") && !strcmp(f[11], "-"))) return 0;
    rs_role_t role;
    double busy;
    if (!strcmp(f[10], "-"))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected busy_s '-' for an event without a role, got '%s'", path, ln, f[11]);
    if (rs_role_parse(f[10], &role))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected role attn, merge, cast, other or '-', got '%s'", path, ln, f[10]);
    if (ev->kind != RS_EV_COMPUTE)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected kind compute for a role event (role %s), got '%s'", path, ln, f[10], f[4]);
    if (parse_num(f[11], &busy) || busy < 0 || busy > ev->end_s - ev->start_s)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected busy_s in [0, end_s - start_s] for role %s, got '%s'", path, ln, f[10], f[11]);
    *ro = (rs_role_event_t){ev->rank, ev->step, ev->pass, role, ev->start_s, ev->end_s, busy};
    *is_role = 1;
    return 0;
}

/* An item of a file (an event or a role event) and its line, for finding duplicates. */
typedef struct {
    const void *item;
    long line;
    int (*cmp)(const void *, const void *); /* the items' key order */
} line_ref_t;

static int lref_cmp(const void *a, const void *b) {
    const line_ref_t *x = a, *y = b;
    int c = x->cmp(x->item, y->item);
    if (c) return c;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* The first pair of items[0..n) (size bytes each, line lines[i]) with equal keys under cmp: 1 with
 * *later the later one's item and *lines_ab its line and the earlier one's; 0 when none; -1 on OOM. */
static int first_duplicate(const void *items, size_t n, size_t size, int (*cmp)(const void *, const void *), const long *lines,
                           const void **later, long lines_ab[2]) {
    if (n < 2) return 0;
    line_ref_t *r = malloc(n * sizeof *r);
    if (!r) return -1;
    for (size_t i = 0; i < n; i++) r[i] = (line_ref_t){(const char *)items + i * size, lines[i], cmp};
    qsort(r, n, sizeof *r, lref_cmp);
    int found = 0;
    for (size_t i = 1; i < n && !found; i++)
        if (cmp(r[i - 1].item, r[i].item) == 0) {
            *later = r[i].item, lines_ab[0] = r[i].line, lines_ab[1] = r[i - 1].line;
            found = 1;
        }
    free(r);
    return found;
}

static int event_key_qcmp(const void *a, const void *b) { return rs_event_key_cmp(a, b); }

/* Check no two events share (pass, rank, step, kind), no two role events (pass, rank, step, role).
 * Returns 0 or -1 with the later line. */
static int check_duplicates(const rs_trace_t *t, const long *lines, const long *rlines, const char *path, rs_err_t *err) {
    const void *x;
    long ln[2];
    int d = first_duplicate(rs_trace_events(t), rs_trace_count(t), sizeof(rs_event_t), event_key_qcmp, lines, &x, ln);
    if (d > 0) {
        const rs_event_t *e = x;
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected one event per (rank, step, pass, kind); rank %d step %d %s %s already on line %ld",
                       path, ln[0], (int)e->rank, (int)e->step, rs_pass_name(e->pass), rs_event_kind_name(e->kind), ln[1]);
    }
    if (d == 0) d = first_duplicate(rs_trace_roles(t), rs_trace_role_count(t), sizeof(rs_role_event_t), rs_role_event_qcmp, rlines, &x, ln);
    if (d > 0) {
        const rs_role_event_t *r = x;
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected one role event per (rank, step, pass, role); rank %d step %d %s %s already on line %ld",
                       path, ln[0], (int)r->rank, (int)r->step, rs_pass_name(r->pass), rs_role_name(r->role), ln[1]);
    }
    return d < 0 ? rs_errf(err, "%s: out of memory", path) : 0;
}

/* Record line ln as entry n - 1 of *v (grown as needed). 0 or -1 on OOM. */
static int put_line(long **v, size_t *cap, size_t n, long ln) {
    if (n > *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        long *l = realloc(*v, c * sizeof *l);
        if (!l) return -1;
        *v = l;
        *cap = c;
    }
    (*v)[n - 1] = ln;
    return 0;
}

rs_trace_t *rs_trace_read_csv(const char *path, rs_err_t *err) {
    /* its events take about 2/3 of its bytes in memory: at most the memory cap (estimate.h) */
    FILE *fp = rs_input_open(path, "ringsim trace", (uint64_t)rs_mem_cap_default(), err);
    if (!fp) return NULL;
    rs_trace_t *t = NULL;
    char *line = NULL, *source = NULL;
    size_t cap = 0;
    long ln = 0, *lines = NULL, *rlines = NULL;
    size_t cap_lines = 0, cap_rlines = 0;
    int state = 0, ver = 0; /* state 0: want version line, 1: header, 2: rows */
    ssize_t len;
    while ((len = getline(&line, &cap, fp)) != -1) {
        ln++;
        if ((size_t)len > RS_MAX_LINE_BYTES) {
            rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: line longer than %zu bytes (not a ringsim trace)", path, ln, RS_MAX_LINE_BYTES);
            goto fail;
        }
        if ((size_t)len != strlen(line)) {
            rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected text, found a NUL byte", path, ln);
            goto fail;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (state == 0) {
            char tail = 0;
            if (sscanf(line, "# ringsim-trace=%d%c", &ver, &tail) != 1) {
                rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected '# ringsim-trace=%d' (a ringsim CSV trace)", path, ln,
                        RS_TRACE_VERSION);
                goto fail;
            }
            if (ver != 1 && ver != RS_TRACE_VERSION) {
                rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected trace version 1 or %d, got %d", path, ln, RS_TRACE_VERSION, ver);
                goto fail;
            }
            state = 1;
            continue;
        }
        if (state == 1) {
            if (line[0] == '#') {
                const char *s = line + 1;
                while (*s == ' ') s++;
                const char *eq = strchr(s, '=');
                if (!eq || eq == s) {
                    rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected a '# key=value' header line", path, ln);
                    goto fail;
                }
                size_t kl = (size_t)(eq - s);
                char key[128];
                if (kl >= sizeof key) {
                    rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected a header key of at most %zu characters", path, ln,
                            sizeof key - 1);
                    goto fail;
                }
                memcpy(key, s, kl);
                key[kl] = '\0';
                if (strcmp(key, "source") == 0) {
                    if (source || !eq[1] || strchr(eq + 1, ',')) {
                        rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected one non-empty source without commas", path, ln);
                        goto fail;
                    }
                    source = strdup(eq + 1);
                    if (!source) goto oom;
                    continue;
                }
                if (!rs_trace_key_ok(key)) {
                    rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected a header key of [a-z0-9_.-], got '%s'", path, ln, key);
                    goto fail;
                }
                if (!t && !(t = rs_trace_create("unknown"))) goto oom;
                if (rs_trace_set_meta(t, key, "%s", eq + 1) != 0) goto oom;
                continue;
            }
            if (strcmp(line, ver == 1 ? RS_TRACE_COLUMNS_V1 : RS_TRACE_COLUMNS) != 0) {
                rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected the column line '%s' (version %d)", path, ln,
                        ver == 1 ? RS_TRACE_COLUMNS_V1 : RS_TRACE_COLUMNS, ver);
                goto fail;
            }
            if (!source) {
                rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected a '# source=NAME' header line before the columns", path, ln);
                goto fail;
            }
            if (!t && !(t = rs_trace_create(source))) goto oom;
            rs_trace_take_source(t, source);
            source = NULL;
            state = 2;
            continue;
        }
        if (len == 0) continue; /* tolerate blank lines (e.g. a trailing one) */
        rs_event_t ev;
        rs_role_event_t ro;
        int is_role = 0;
        if (parse_row(line, path, ln, rs_trace_source(t), ver, &ev, &ro, &is_role, err) != 0) goto fail;
        if (is_role ? rs_trace_add_role(t, &ro) != 0 || put_line(&rlines, &cap_rlines, rs_trace_role_count(t), ln) != 0
                    : rs_trace_add(t, &ev) != 0 || put_line(&lines, &cap_lines, rs_trace_count(t), ln) != 0)
            goto oom;
    }
    if (ferror(fp)) {
        rs_errf(err, "%s: read error: %s", path, strerror(errno));
        goto fail;
    }
    if (state != 2) {
        rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected %s before the end of the file", path, ln + 1,
                state == 0 ? "'# ringsim-trace=2'" : "the column line");
        goto fail;
    }
    if (check_duplicates(t, lines, rlines, path, err) != 0) goto fail;
    free(lines);
    free(rlines);
    free(line);
    fclose(fp);
    return t;
oom:
    rs_errf(err, "%s:%ld: out of memory", path, ln);
fail:
    free(source);
    free(lines);
    free(rlines);
    free(line);
    fclose(fp);
    rs_trace_free(t);
    return NULL;
}
