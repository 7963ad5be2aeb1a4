/* study_csv.h - a study's CSV table (study_csv.c): its column line, then its rows, to a file or to
 * stdout ("-") through the output module (output.h: a file is written to a temporary name and
 * committed with the run). The planning studies write their tables with it. */
#ifndef RS_STUDY_CSV_H
#define RS_STUDY_CSV_H

#include <stdio.h>

#include "util.h"

/* Write the CSV at path ("-": stdout): the header (the column line, with its '\n'), then
 * rows(fp, items, i) for each item i < n (its line or lines). Returns 0 or -1 with err (the
 * output's). */
int rs_study_write_csv(const char *path, const char *header, void (*rows)(FILE *fp, const void *items, size_t i),
                       const void *items, size_t n, rs_err_t *err);

#endif /* RS_STUDY_CSV_H */
