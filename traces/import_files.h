/* import_files.h - private to traces/import*.c: the input files of an import (import_files.c): paths
 * expanded (a directory gives its trace files in natural order) and each file's format told by its
 * first bytes. rs_import_list_files and rs_import_format_name (import.h) are defined there too. */
#ifndef RS_IMPORT_FILES_H
#define RS_IMPORT_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "import.h"

/* A growable list of malloc'd strings; listed[i]: v[i] was found in a directory (not named). */
typedef struct {
    char **v;
    bool *listed;
    size_t n, cap;
} rs_strlist_t;

void rs_strlist_free(rs_strlist_t *l);

/* Natural order: digit runs compare as numbers ("rank2" < "rank10", "a07" = "a7"), other bytes as
 * unsigned chars. <0, 0, >0 as strcmp. Can't fail. */
int rs_natural_cmp(const char *a, const char *b);

/* Append the files of paths to out: a file as given, a directory the *.json, *.json.gz and *.sqlite
 * files of its tree (not hidden ones, at most 16 levels deep) in natural order of their paths. 0, or
 * -1 with err naming the path (cannot open, a directory without trace files, no path at all); out
 * then holds what was added so far. */
int rs_import_expand_paths(const char *const *paths, size_t n, rs_strlist_t *out, rs_err_t *err);

/* The format of path by its first 16 bytes: the SQLite header is nsys; gzip magic or a '{' after
 * white space is Kineto. 0, or -1 with err "path: ..." (not readable, too large, empty, another
 * format). */
int rs_import_sniff_format(const char *path, rs_import_format_t *f, rs_err_t *err);

#endif /* RS_IMPORT_FILES_H */
