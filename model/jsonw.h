/* jsonw.h - writing JSON text by hand (profiles keep their key order, indentation and comments-like
 * "source" strings readable): numbers with the fewest digits that read back to the same double
 * (rs_fmt_exact), strings escaped by jansson. Shared by the profile writer (hw.c) and its kernels
 * section (kernel_json.c). */
#ifndef RS_JSONW_H
#define RS_JSONW_H

#include <stdbool.h>
#include <stdio.h>

typedef struct {
    FILE *fp; /* output */
    int bad;  /* a value could not be written (non-finite number, no memory): the caller fails */
} rs_jw_t;

/* x with the fewest digits that read back exactly; a non-finite x sets w->bad. */
void rs_jw_num(rs_jw_t *w, double x);
/* s as a JSON string (quoted, escaped); out of memory sets w->bad. */
void rs_jw_str(rs_jw_t *w, const char *s);
/* `"key": ` at an indentation of ind spaces, preceded by ",\n" unless first (then "\n"). */
void rs_jw_key(rs_jw_t *w, int ind, const char *key, bool first);

#endif /* RS_JSONW_H */
