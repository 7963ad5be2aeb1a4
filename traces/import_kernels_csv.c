/* import_kernels_csv.c - the kernel list of an imported trace as CSV (import.h,
 * rs_import_write_kernels_csv): one row per kernel behind the trace's events, through the import's
 * public accessors. */
#include <stdio.h>

#include "import.h"
#include "output.h"

/* s as a CSV field in double quotes: quotes doubled, line breaks as spaces. */
static void csv_quoted(FILE *fp, const char *s) {
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"') fputc('"', fp);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, fp);
    }
    fputc('"', fp);
}

int rs_import_write_kernels_csv(const rs_import_t *im, size_t i, const char *path, rs_err_t *err) {
    const rs_trace_t *t = rs_import_trace(im, i);
    if (!t) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: no trace %zu to write", path, i);
    rs_file_t f;
    if (rs_file_open(&f, path, err) != 0) return -1;
    const char *pass = rs_trace_get_meta(t, "pass");
    const int n_ranks = rs_import_info(im)->n_ranks;
    fprintf(f.fp, "rank,step,pass,role,device,stream,start_s,end_s,name\n");
    for (int r = 0; r < n_ranks; r++)
        for (int k = 0; k <= n_ranks; k++) { /* up to N + 1 steps: none for a step the pass lacks */
            const rs_import_kernel_t *ks;
            size_t n = rs_import_kernels(im, i, r, k, &ks);
            for (size_t j = 0; j < n; j++) {
                fprintf(f.fp, "%d,%d,%s,%s,%lld,%lld,%.17g,%.17g,", r, k, pass ? pass : "?", rs_kernel_role_name(ks[j].role),
                        (long long)ks[j].device, (long long)ks[j].stream, ks[j].start_s, ks[j].end_s);
                csv_quoted(f.fp, ks[j].name);
                fputc('\n', f.fp);
            }
        }
    return rs_file_commit(&f, err);
}
