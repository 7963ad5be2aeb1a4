/* plot_table.c - the CSV table reader (plot_table.h): notes, a header line, rows of its width. */
#include "plot_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static char **split_dup(const char *line, int *n) {
    int cnt = 1;
    for (const char *c = line; *c; c++) cnt += *c == ',';
    char **v = calloc((size_t)cnt, sizeof *v);
    if (!v) return NULL;
    const char *s = line;
    for (int i = 0; i < cnt; i++) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        v[i] = malloc(len + 1);
        if (!v[i]) {
            for (int j = 0; j < i; j++) free(v[j]);
            free(v);
            return NULL;
        }
        memcpy(v[i], s, len);
        v[i][len] = 0;
        s = e ? e + 1 : s + len;
    }
    *n = cnt;
    return v;
}

static void free_strs(char **v, int n) {
    if (!v) return;
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

void rs_table_free(rs_table_t *t) {
    free_strs(t->cols, t->n_cols);
    for (size_t r = 0; r < t->n_rows; r++) free_strs(t->cells[r], t->n_cols);
    free(t->cells);
    free(t->lines);
    for (size_t i = 0; i < t->n_notes; i++) free(t->notes[i]);
    free(t->notes);
    memset(t, 0, sizeof *t);
}

int rs_table_read(const char *path, rs_table_t *t, rs_err_t *err) {
    memset(t, 0, sizeof *t);
    FILE *fp = rs_input_open(path, "CSV table", (uint64_t)1 << 30, err);
    if (!fp) return -1;
    char *line = NULL;
    size_t cap = 0, cap_rows = 0, cap_notes = 0;
    long ln = 0;
    ssize_t len;
    int rc = 0;
    while ((len = getline(&line, &cap, fp)) != -1) {
        ln++;
        if ((size_t)len > RS_MAX_LINE_BYTES) {
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: line longer than %zu bytes (not a CSV table)", path, ln, RS_MAX_LINE_BYTES);
            goto done;
        }
        if ((size_t)len != strlen(line)) { /* a NUL would cut the line short silently */
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected text, found a NUL byte", path, ln);
            goto done;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (line[0] == '#') {
            if (t->n_notes == cap_notes) {
                cap_notes = cap_notes ? 2 * cap_notes : 32;
                char **nn = realloc(t->notes, cap_notes * sizeof *nn);
                if (!nn) goto oom;
                t->notes = nn;
            }
            const char *s = line + 1;
            while (*s == ' ') s++;
            if (!(t->notes[t->n_notes] = strdup(s))) goto oom;
            t->n_notes++;
            continue;
        }
        if (len == 0) continue;
        int n = 0;
        char **cells = split_dup(line, &n);
        if (!cells) goto oom;
        if (!t->cols) {
            t->cols = cells;
            t->n_cols = n;
            t->header_line = ln;
            continue;
        }
        if (n != t->n_cols) {
            free_strs(cells, n);
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected %d comma-separated columns (as the header line), got %d", path, ln,
                         t->n_cols, n);
            goto done;
        }
        if (t->n_rows == cap_rows) {
            cap_rows = cap_rows ? 2 * cap_rows : 64;
            char ***c = realloc(t->cells, cap_rows * sizeof *c);
            long *l = c ? realloc(t->lines, cap_rows * sizeof *l) : NULL;
            if (c) t->cells = c;
            if (!c || !l) {
                free_strs(cells, n);
                goto oom;
            }
            t->lines = l;
        }
        t->cells[t->n_rows] = cells;
        t->lines[t->n_rows] = ln;
        t->n_rows++;
    }
    if (!t->cols) rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s:%ld: expected a header line of column names", path, ln + 1);
    goto done;
oom:
    rc = rs_errc(err, RS_ERR_RUNTIME, "%s:%ld: out of memory", path, ln);
done:
    free(line);
    fclose(fp);
    if (rc) rs_table_free(t);
    return rc;
}

int rs_table_col(const rs_table_t *t, const char *name) {
    for (int i = 0; i < t->n_cols; i++)
        if (strcmp(t->cols[i], name) == 0) return i;
    return -1;
}

const char *rs_table_note(const rs_table_t *t, const char *key, char *buf, size_t len) {
    size_t kl = strlen(key);
    for (size_t i = 0; i < t->n_notes; i++) {
        const char *s = t->notes[i];
        while (s && *s) {
            while (*s == ' ') s++;
            if (strncmp(s, key, kl) == 0 && s[kl] == '=') {
                snprintf(buf, len, "%s", s + kl + 1);
                return buf;
            }
            s = strchr(s, ' ');
        }
    }
    return NULL;
}
