/* kernel_json.h - a profile's "kernels" section in JSON (format: docs/profiles.md, "Kernel curves").
 *
 * Called by the profile reader and writer (profile.c, profile_write.c) with the jansson tree and the key-path position
 * table of the file, so every message names origin:line:column and the key path, e.g.
 *   x.json:14:11: kernels.list[0].curves[2].points[1][2]: flops_per_s must be > 0, got 0
 */
#ifndef RS_KERNEL_JSON_H
#define RS_KERNEL_JSON_H

#include <jansson.h>
#include <stdio.h>

#include "jsonpos.h"
#include "jsonw.h"
#include "kernel_table.h"
#include "profile.h"
#include "util.h"

/* Parse the value of a profile's "kernels" member into t (zeroed first) for the device dev (its peaks
 * and sm_count, already read; t may be &dev->kernels). origin names the file in messages, pos
 * locates key paths. Unknown keys, wrong types, curves without points or points not sorted by (area,
 * q), non-positive throughput or one above the device's peak for the curve's dtype, unknown
 * kernel/implementation/dtype names and duplicate curves are errors; "from" imports another preset's
 * table (docs/profiles.md); the table is prepared (rs_kernel_table_prepare). Returns 0 or -1 with err. */
int rs_kernel_json_parse(const json_t *j, const char *origin, const rs_jsonpos_t *pos, const rs_hw_t *dev, rs_kernel_table_t *t,
                         rs_err_t *err);

/* Write t as `"kernels": {...}` at indentation ind (spaces), the member preceded by ",\n"; numbers
 * with the fewest digits that read back exactly; source (may be NULL) becomes the "source" of every
 * object. A non-finite number sets w->bad (the caller writes nothing). */
void rs_kernel_json_write(rs_jw_t *w, const rs_kernel_table_t *t, int ind, const char *source);

#endif /* RS_KERNEL_JSON_H */
