/* jsonw.h - writing JSON text by hand, so that written profiles keep their key order, indentation and
 * "source" strings readable: numbers with the fewest digits that read back to the same double, in
 * the engineering form of the shipped presets (989e12, 3e-6), strings escaped by jansson. The one
 * writer of the profile (profile_write.c) and of its kernels section (kernel_json.c).
 */
#ifndef RS_JSONW_H
#define RS_JSONW_H

#include <stdbool.h>
#include <stdio.h>

typedef struct {
    FILE *fp; /* output */
    int bad;  /* a value could not be written (non-finite number, no memory): the caller fails */
} rs_jw_t;

/* x with the fewest digits that read back (strtod) to the identical value, in engineering form
 * outside [1e-3, 1e4); a non-finite x writes nothing and sets w->bad. */
void rs_jw_num(rs_jw_t *w, double x);
/* s as a JSON string (quoted, escaped); out of memory sets w->bad. */
void rs_jw_str(rs_jw_t *w, const char *s);
/* `"key": ` at an indentation of ind spaces, preceded by ",\n" unless first (then "\n"). */
void rs_jw_key(rs_jw_t *w, int ind, const char *key, bool first);
/* `"key": "s"` and `"key": x`: rs_jw_key, then the value. */
void rs_jw_str_at(rs_jw_t *w, int ind, const char *key, const char *s, bool first);
void rs_jw_num_at(rs_jw_t *w, int ind, const char *key, double x, bool first);
/* `"source": "note"` when note is non-NULL, else nothing. */
void rs_jw_source(rs_jw_t *w, int ind, const char *note, bool first);

#endif /* RS_JSONW_H */
