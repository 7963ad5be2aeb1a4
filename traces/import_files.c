/* import_files.c - the input files of an import (import_files.h): directory trees walked in natural
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
    return f == RS_IMPORT_KINETO ? "kineto" : f == RS_IMPORT_NSYS ? "nsys" : f == RS_IMPORT_ROCPROF ? "rocprof" : "auto";
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

/* Append s (taken: freed on failure) with its flag; -1 when s is NULL or on OOM. */
static int strlist_add(rs_strlist_t *l, char *s, bool listed) {
    if (!s) return -1;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (v) l->v = v;
        bool *f = v ? realloc(l->listed, cap * sizeof *f) : NULL;
        if (!v || !f) {
            free(s);
            return -1;
        }
        l->listed = f;
        l->cap = cap;
    }
    l->listed[l->n] = listed;
    l->v[l->n++] = s;
    return 0;
}

void rs_strlist_free(rs_strlist_t *l) {
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    free(l->listed);
}

/* The trace files of directory dir's tree into out. 0, or -1 with err. */
static int walk_dir(const char *dir, int depth, rs_strlist_t *out, rs_err_t *err) {
    DIR *d = opendir(dir);
    if (!d) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: cannot open directory: %s", dir, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(len);
        if (!p) {
            rc = rs_errf(err, "out of memory");
            break;
        }
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (depth < 16) rc = walk_dir(p, depth + 1, out, err);
            free(p);
            continue;
        }
        if (!ends_with(e->d_name, ".json") && !ends_with(e->d_name, ".json.gz") && !ends_with(e->d_name, ".sqlite") &&
            !ends_with(e->d_name, "kernel_trace.csv")) {
            free(p);
            continue;
        }
        if (strlist_add(out, p, true) != 0) rc = rs_errf(err, "out of memory");
    }
    closedir(d);
    return rc;
}

int rs_import_expand_paths(const char *const *paths, size_t n, rs_strlist_t *out, rs_err_t *err) {
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: cannot open: %s", paths[i], strerror(errno));
        if (!S_ISDIR(st.st_mode)) {
            if (strlist_add(out, strdup(paths[i]), false) != 0) return rs_errf(err, "out of memory");
            continue;
        }
        size_t first = out->n;
        if (walk_dir(paths[i], 0, out, err) != 0) return -1;
        if (out->n == first)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: no trace files in the directory tree (expected *.json, *.json.gz, *.sqlite or *_kernel_trace.csv)",
                           paths[i]);
        /* natural order of the paths, their flags alongside (all set) */
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
    free(l.listed);
    return (long)l.n;
}

/* Whether the first line of path (up to 4 KiB) is a CSV header naming Kernel_Name: rocprofv3's
 * kernel trace (the column is checked by the reader). */
static bool csv_kernel_header(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return false;
    char line[4096];
    bool found = fgets(line, sizeof line, fp) && (strstr(line, "\"Kernel_Name\"") || strstr(line, ",Kernel_Name,") || !strncmp(line, "Kernel_Name,", 12));
    fclose(fp);
    return found;
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
    if (csv_kernel_header(path)) {
        *f = RS_IMPORT_ROCPROF;
        return 0;
    }
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s: not a Kineto JSON trace (plain or gzip), an Nsight Systems SQLite export "
                                          "(.nsys-rep reports: convert with nsys export --type sqlite) nor a rocprofv3 kernel trace CSV "
                                          "(its header names Kernel_Name)", path);
}
