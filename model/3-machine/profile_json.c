/* profile_json.c - checking a profile's JSON text: positions in messages, accepted keys, typed
 * members (profile_json.h). */
#include "profile_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int pj_fail(const pj_ctx_t *v, const char *path, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rs_jsonpos_errf(v->pos, v->origin, path, v->err, "%s", msg);
}

const char *pj_join(char *buf, size_t len, const char *parent, const char *key) {
    if (*parent) snprintf(buf, len, "%s.%s", parent, key);
    else snprintf(buf, len, "%s", key);
    return buf;
}

static bool in_list(const char *key, const char *const *list) {
    for (; list && *list; list++)
        if (!strcmp(key, *list)) return true;
    return false;
}

int pj_check_keys(pj_obj_t o, const char *const *fields, const char *const *texts, const char *const *figures) {
    const char *key;
    json_t *val;
    char kp[512];
    json_object_foreach((json_t *)o.obj, key, val) {
        pj_join(kp, sizeof kp, o.path, key);
        size_t kl = strlen(key);
        bool is_text = in_list(key, texts);
        if (!is_text && kl > 7 && !strcmp(key + kl - 7, "_source")) {
            char fig[128];
            if (kl - 7 < sizeof fig) {
                memcpy(fig, key, kl - 7);
                fig[kl - 7] = '\0';
                is_text = in_list(fig, figures);
            }
        }
        if (is_text) {
            if (!json_is_string(val)) return pj_fail(o.v, kp, "must be a string, got %s", rs_json_type_name(val));
            continue;
        }
        if (in_list(key, fields)) continue;
        char acc[512] = "";
        size_t n = 0;
        for (const char *const *f = fields; f && *f && n < sizeof acc; f++) n += (size_t)snprintf(acc + n, sizeof acc - n, "%s, ", *f);
        for (const char *const *t = texts; t && *t && n < sizeof acc; t++)
            n += (size_t)snprintf(acc + n, sizeof acc - n, "%s%s", t == texts ? "" : ", ", *t);
        if (n < sizeof acc && figures && *figures) snprintf(acc + n, sizeof acc - n, ", <figure>_source");
        return pj_fail(o.v, kp, "unknown key (accepted: %s)", acc);
    }
    return 0;
}

/* o.key, its path into kp; NULL when absent (*rc 0, or -1 with a message when required). */
static json_t *member(pj_obj_t o, const char *key, bool required, char *kp, size_t kp_len, int *rc) {
    pj_join(kp, kp_len, o.path, key);
    json_t *j = json_object_get(o.obj, key);
    *rc = !j && required ? pj_fail(o.v, o.path, "missing key '%s'", key) : 0;
    return j;
}

int pj_num(pj_obj_t o, const char *key, bool required, rs_range_t range, double *out) {
    char kp[512];
    int rc;
    json_t *j = member(o, key, required, kp, sizeof kp, &rc);
    if (!j) return rc;
    if (!json_is_number(j)) return pj_fail(o.v, kp, "must be a number, got %s", rs_json_type_name(j));
    double x = json_number_value(j);
    if (!isfinite(x)) return pj_fail(o.v, kp, "must be finite, got %g", x);
    if (!rs_range_ok(range, x)) return pj_fail(o.v, kp, "must be in [%g, %g], got %g", range.min, range.max, x);
    *out = x;
    return 1;
}

int pj_str(pj_obj_t o, const char *key, bool required, bool nonempty, char *out, size_t cap) {
    char kp[512];
    int rc;
    json_t *j = member(o, key, required, kp, sizeof kp, &rc);
    if (!j) return rc;
    if (!json_is_string(j)) return pj_fail(o.v, kp, "must be a string, got %s", rs_json_type_name(j));
    const char *s = json_string_value(j);
    size_t n = strlen(s);
    if (nonempty && n == 0) return pj_fail(o.v, kp, "must not be empty");
    if (n >= cap) return pj_fail(o.v, kp, "must be at most %zu characters, got %zu", cap - 1, n);
    if (out) memcpy(out, s, n + 1);
    return 1;
}

json_t *pj_obj(pj_obj_t o, const char *key, bool required, int *bad) {
    char kp[512];
    pj_join(kp, sizeof kp, o.path, key);
    json_t *j = json_object_get(o.obj, key);
    *bad = 0;
    if (!j) {
        if (required) {
            *bad = 1;
            pj_fail(o.v, o.path, "missing key '%s'", key);
        }
        return NULL;
    }
    if (!json_is_object(j)) {
        *bad = 1;
        pj_fail(o.v, kp, "must be an object, got %s", rs_json_type_name(j));
        return NULL;
    }
    return j;
}

json_t *pj_load(const char *text, const char *origin, rs_jsonpos_t **pos, rs_err_t *err) {
    json_error_t je;
    *pos = NULL;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        rs_errc(err, RS_ERR_BAD_INPUT, "%s:%d:%d: %s", origin, je.line, je.column, je.text);
        return NULL;
    }
    *pos = rs_jsonpos_scan(text);
    if (!*pos) {
        json_decref(root);
        rs_errf(err, "%s: out of memory", origin);
        return NULL;
    }
    if (!json_is_object(root)) {
        const pj_ctx_t v = {origin, *pos, err};
        pj_fail(&v, "", "the top level must be an object, got %s", rs_json_type_name(root));
        json_decref(root);
        rs_jsonpos_free(*pos);
        *pos = NULL;
        return NULL;
    }
    return root;
}
