/* jsonpos.h - where each value sits in a JSON text: maps key paths to line:column.
 *
 * jansson reports positions only for syntax errors; profile validation needs them for semantic errors
 * too ("x.json:7:5: device.flops_per_s.bf16: must be > 0"). rs_jsonpos_scan() reads the text once and
 * records, for every object member and array element, its path and position:
 *   - path: members joined with '.', array elements as "[i]": "device.flops_per_s.bf16",
 *     "calibration.efficiency[2][0]"; the root is "";
 *   - position: 1-based line and column (columns count characters: UTF-8 continuation bytes do not
 *     advance it, as in jansson's own messages) of a member's key (its opening quote), or of an array
 *     element's first character, or of the root value's first character.
 * Meant for text jansson has already accepted; on malformed text it records what it could read.
 */
#ifndef RS_JSONPOS_H
#define RS_JSONPOS_H

#include <jansson.h>

#include "util.h"

typedef struct rs_jsonpos rs_jsonpos_t;

/* Scan text (NUL-terminated). Returns a table to free with rs_jsonpos_free, or NULL when out of memory. */
rs_jsonpos_t *rs_jsonpos_scan(const char *text);
/* Position of path. Returns 0 and sets *line, *col, or -1 when the path is not in the text (then
 * *line = *col = 0). p may be NULL (always -1). */
int rs_jsonpos_find(const rs_jsonpos_t *p, const char *path, int *line, int *col);
/* An error at key path: err = "origin:line:column: path: message" (path and its ": " left out when
 * path is ""), the position that of path or, when path is not in the text, of the nearest enclosing
 * path that is (1:1 when none). Always returns -1. */
int rs_jsonpos_errf(const rs_jsonpos_t *p, const char *origin, const char *path, rs_err_t *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* "an object", "an array", "a string", "an integer", "a number", "a boolean", "null": j's JSON type
 * for messages ("must be a string, got a number"). Can't fail. */
const char *rs_json_type_name(const json_t *j);
/* Release the table. NULL is fine. Can't fail. */
void rs_jsonpos_free(rs_jsonpos_t *p);

#endif /* RS_JSONPOS_H */
