/* import_files.c - the input files of an import (import_files.h): directories walked in natural
 * order (rank2 before rank10), each file's format sniffed from its first bytes. */
#include "import_files.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "estimate.h"

const char *rs_import_format_name(rs_import_format_t f) {
    return f == RS_IMPORT_KINETO ? "kineto" : f == RS_IMPORT_NSYS ? "nsys" : "auto";
}

int rs_natural_cmp(const char *a, const char *b) {
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0') a++;
            while (*b == '0') b++;
            size_t la = 0, lb = 0;
            while (isdigit((unsigned char)a[la])) la++;
            while (isdigit((unsigned char)b[lb])) lb++;
            if (la != lb) return la < lb ? -1 : 1;
            int c = strncmp(a, b, la);
            if (c) return c;
            a += la, b += lb;
            continue;
        }
        if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++, b++;
    }
    return (*a != 0) - (*b != 0);
}

static int natural_qcmp(const void *a, const void *b) { return rs_natural_cmp(*(char *const *)a, *(char *const *)b); }

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Append s (taken: freed on failure); -1 when s is NULL or on OOM. */
static int strlist_add(rs_strlist_t *l, char *s) {
    if (!s) return -1;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            free(s);
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return 0;
}

void rs_strlist_free(rs_strlist_t *l) {
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
}

int rs_import_expand_paths(const char *const *paths, size_t n, rs_strlist_t *out, rs_err_t *err) {
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: cannot open: %s", paths[i], strerror(errno));
        if (!S_ISDIR(st.st_mode)) {
            if (strlist_add(out, strdup(paths[i])) != 0) return rs_errf(err, "out of memory");
            continue;
        }
        DIR *d = opendir(paths[i]);
        if (!d) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: cannot open directory: %s", paths[i], strerror(errno));
        size_t first = out->n;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            if (!ends_with(e->d_name, ".json") && !ends_with(e->d_name, ".json.gz") && !ends_with(e->d_name, ".sqlite"))
                continue;
            size_t len = strlen(paths[i]) + strlen(e->d_name) + 2;
            char *p = malloc(len);
            if (p) snprintf(p, len, "%s/%s", paths[i], e->d_name);
            if (strlist_add(out, p) != 0) {
                closedir(d);
                return rs_errf(err, "out of memory");
            }
        }
        closedir(d);
        if (out->n == first)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: no trace files in the directory (expected *.json, *.json.gz or *.sqlite)",
                           paths[i]);
        qsort(out->v + first, out->n - first, sizeof *out->v, natural_qcmp);
    }
    if (out->n == 0) return rs_errc(err, RS_ERR_BAD_INPUT, "no trace file given");
    return 0;
}

long rs_import_list_files(const char *const *paths, size_t n_paths, char ***out, rs_err_t *err) {
    rs_strlist_t l = {0};
    if (rs_import_expand_paths(paths, n_paths, &l, err) != 0) {
        rs_strlist_free(&l);
        return -1;
    }
    *out = l.v;
    return (long)l.n;
}

int rs_import_sniff_format(const char *path, rs_import_format_t *f, rs_err_t *err) {
    if (rs_input_check(path, "trace of a real run", (uint64_t)rs_mem_cap_default(), false, err) != 0)
        return rs_err_mark(err, RS_ERR_BAD_INPUT);
    FILE *fp = fopen(path, "rb");
    if (!fp) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: cannot open: %s", path, strerror(errno));
    unsigned char b[16] = {0};
    size_t n = fread(b, 1, sizeof b, fp);
    fclose(fp);
    if (n == 16 && memcmp(b, "SQLite format 3", 16) == 0) {
        *f = RS_IMPORT_NSYS;
        return 0;
    }
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        *f = RS_IMPORT_KINETO;
        return 0;
    }
    size_t i = 0;
    while (i < n && isspace(b[i])) i++;
    if (i < n && b[i] == '{') {
        *f = RS_IMPORT_KINETO;
        return 0;
    }
    if (n == 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: empty file (expected a Kineto JSON trace or an Nsight Systems SQLite export)", path);
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s: not a Kineto JSON trace (plain or gzip) nor an Nsight Systems SQLite export "
                                          "(.nsys-rep reports: convert with nsys export --type sqlite)", path);
}
