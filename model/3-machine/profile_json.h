/* profile_json.h - checking a profile's JSON text, for the readers of profiles and tiers (profile.c)
 * and of their "kernels" section (kernel_json.c): every message is "origin:line:column: key.path:
 * what is wrong" (rs_jsonpos_errf), keys are checked against the accepted ones, members are read
 * with their type and range. Internal to model/3-machine (not exported: pj_*). */
#ifndef RS_PROFILE_JSON_H
#define RS_PROFILE_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "jsonpos.h"
#include "ranges.h"
#include "util.h"

/* The file being checked. */
typedef struct {
    const char *origin;       /* file name (or "preset:NAME") used in messages */
    const rs_jsonpos_t *pos;  /* key path -> line:column */
    rs_err_t *err;            /* where the message goes */
} pj_ctx_t;

/* An object of that file at its key path ("" for the root). */
typedef struct {
    const pj_ctx_t *v;
    const char *path;
    const json_t *obj;
} pj_obj_t;

/* Fail at path: its position, or the nearest enclosing one that is in the text, or 1:1. Always
 * returns -1. */
int pj_fail(const pj_ctx_t *v, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The child path "parent.key" (or "key" at the root) into buf. Returns buf. */
const char *pj_join(char *buf, size_t len, const char *parent, const char *key);
/* Check o's keys: each must be in fields, or in texts (a string), or be "<figure>_source" for a figure
 * in figures (a string; figures may be NULL). Returns 0 or -1: "K: unknown key (accepted: FIELDS,
 * TEXTS[, <figure>_source])", "K: must be a string, got a number". */
int pj_check_keys(pj_obj_t o, const char *const *fields, const char *const *texts, const char *const *figures);
/* o.key as a finite number in range (ranges.h: the range the command line has for the same
 * quantity). Returns 1 if present (value in *out), 0 if absent and optional, -1 with a message
 * otherwise. */
int pj_num(pj_obj_t o, const char *key, bool required, rs_range_t range, double *out);
/* o.key as a string of at most cap-1 bytes (non-empty when nonempty) into out (may be NULL: only
 * checked). Same returns as pj_num. */
int pj_str(pj_obj_t o, const char *key, bool required, bool nonempty, char *out, size_t cap);
/* o.key must be an object (required) or absent. Returns the object, NULL when absent (*bad = 0) or on
 * a type error (*bad = 1, message set). */
json_t *pj_obj(pj_obj_t o, const char *key, bool required, int *bad);
/* Parse text into a jansson tree whose top level is an object, and its position table (*pos);
 * syntax errors name origin:line:column. NULL with err (and *pos NULL). */
json_t *pj_load(const char *text, const char *origin, rs_jsonpos_t **pos, rs_err_t *err);

#endif /* RS_PROFILE_JSON_H */
