/* study_csv.c - a study's CSV table (study_csv.h). */
#include "study_csv.h"

#include "output.h"

int rs_study_write_csv(const char *path, const char *header, void (*rows)(FILE *fp, const void *items, size_t i),
                       const void *items, size_t n, rs_err_t *err) {
    rs_output_t out;
    if (rs_output_open(&out, path, err) != 0) return -1;
    fputs(header, out.fp);
    for (size_t i = 0; i < n; i++) rows(out.fp, items, i);
    return rs_output_close(&out, err);
}
