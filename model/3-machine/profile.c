/* profile.c - hardware profiles: JSON via jansson, embedded presets, writing (profile.h; file format
 * and validation rules: docs/profiles.md). */
#include "profile.h"
#include "ranges.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "embed.h"
#include "jsonpos.h"
#include "jsonw.h"
#include "kernel_json.h"
#include "output.h"

#define RS_PROFILE_MAX_BYTES (16 << 20) /* a profile larger than this is not a profile */
#define RS_MAX_PRESETS 256

/* ------------------------------------------------------------------------------------------------
 * Validation context: every message is "origin:line:column: key.path: what is wrong"
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
    const char *origin;       /* file name (or "preset:NAME") used in messages */
    const rs_jsonpos_t *pos;  /* key path -> line:column */
    rs_err_t *err;            /* where the message goes */
} vctx_t;

static int vfail(const vctx_t *v, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Fail at path: its position, or the nearest enclosing one that is in the text, or 1:1. */
static int vfail(const vctx_t *v, const char *path, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rs_jsonpos_errf(v->pos, v->origin, path, v->err, "%s", msg);
}

/* child path "parent.key" (or "key" at the root) into buf */
static const char *join(char *buf, size_t len, const char *parent, const char *key) {
    if (*parent) snprintf(buf, len, "%s.%s", parent, key);
    else snprintf(buf, len, "%s", key);
    return buf;
}

static const char *type_name(const json_t *j) { return rs_json_type_name(j); }

static bool in_list(const char *key, const char *const *list) {
    for (; list && *list; list++)
        if (!strcmp(key, *list)) return true;
    return false;
}

/* Check obj's keys: each must be in `fields` or be "source" or "<figure>_source" for a figure in
 * `figures`; every source must be a string. Returns 0 or -1 (unknown key or non-string source). */
static int check_keys(const vctx_t *v, const char *path, const json_t *obj, const char *const *fields,
                      const char *const *figures) {
    const char *key;
    json_t *val;
    char kp[512];
    json_object_foreach((json_t *)obj, key, val) {
        join(kp, sizeof kp, path, key);
        size_t kl = strlen(key);
        bool is_source = !strcmp(key, "source");
        if (!is_source && kl > 7 && !strcmp(key + kl - 7, "_source")) {
            char fig[128];
            if (kl - 7 < sizeof fig) {
                memcpy(fig, key, kl - 7);
                fig[kl - 7] = '\0';
                is_source = in_list(fig, figures);
            }
        }
        if (is_source) {
            if (!json_is_string(val)) return vfail(v, kp, "must be a string, got %s", type_name(val));
            continue;
        }
        if (in_list(key, fields)) continue;
        char acc[512] = "";
        size_t n = 0;
        for (const char *const *f = fields; f && *f && n < sizeof acc; f++)
            n += (size_t)snprintf(acc + n, sizeof acc - n, "%s, ", *f);
        if (n < sizeof acc) snprintf(acc + n, sizeof acc - n, "source%s", figures && *figures ? ", <figure>_source" : "");
        return vfail(v, kp, "unknown key (accepted: %s)", acc);
    }
    return 0;
}


/* obj.key, its path into kp; NULL when absent (*rc 0, or -1 with a message when required). */
static json_t *member(const vctx_t *v, const char *path, const json_t *obj, const char *key, bool required, char *kp,
                      size_t kp_len, int *rc) {
    join(kp, kp_len, path, key);
    json_t *j = json_object_get(obj, key);
    *rc = !j && required ? vfail(v, path, "missing key '%s'", key) : 0;
    return j;
}

/* Read obj.key as a finite number in range (ranges.h: the range the command line has for the same
 * quantity). Returns 1 if present (value in *out), 0 if absent and optional, -1 with a message
 * otherwise. */
static int get_num(const vctx_t *v, const char *path, const json_t *obj, const char *key, bool required,
                   rs_range_t range, double *out) {
    char kp[512];
    int rc;
    json_t *j = member(v, path, obj, key, required, kp, sizeof kp, &rc);
    if (!j) return rc;
    if (!json_is_number(j)) return vfail(v, kp, "must be a number, got %s", type_name(j));
    double x = json_number_value(j);
    if (!isfinite(x)) return vfail(v, kp, "must be finite, got %g", x);
    if (!rs_range_ok(range, x)) return vfail(v, kp, "must be in [%g, %g], got %g", range.min, range.max, x);
    *out = x;
    return 1;
}

/* Read obj.key as a string of at most cap-1 bytes (non-empty when nonempty). Same returns as get_num. */
static int get_str(const vctx_t *v, const char *path, const json_t *obj, const char *key, bool required,
                   bool nonempty, char *out, size_t cap) {
    char kp[512];
    int rc;
    json_t *j = member(v, path, obj, key, required, kp, sizeof kp, &rc);
    if (!j) return rc;
    if (!json_is_string(j)) return vfail(v, kp, "must be a string, got %s", type_name(j));
    const char *s = json_string_value(j);
    size_t n = strlen(s);
    if (nonempty && n == 0) return vfail(v, kp, "must not be empty");
    if (n >= cap) return vfail(v, kp, "must be at most %zu characters, got %zu", cap - 1, n);
    if (out) memcpy(out, s, n + 1);
    return 1;
}

/* obj.key must be an object (required) or absent. Returns the object, NULL when absent (*bad = 0)
 * or on a type error (*bad = 1, message set). */
static json_t *get_obj(const vctx_t *v, const char *path, const json_t *obj, const char *key, bool required,
                       int *bad) {
    char kp[512];
    join(kp, sizeof kp, path, key);
    json_t *j = json_object_get(obj, key);
    *bad = 0;
    if (!j) {
        if (required) {
            *bad = 1;
            vfail(v, path, "missing key '%s'", key);
        }
        return NULL;
    }
    if (!json_is_object(j)) {
        *bad = 1;
        vfail(v, kp, "must be an object, got %s", type_name(j));
        return NULL;
    }
    return j;
}

/* Parse text into a jansson tree and a position table; syntax errors name origin:line:column. */
static json_t *load_text(const char *text, const char *origin, rs_jsonpos_t **pos, rs_err_t *err) {
    json_error_t je;
    *pos = NULL;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        rs_errf(err, "%s:%d:%d: %s", origin, je.line, je.column, je.text);
        return NULL;
    }
    *pos = rs_jsonpos_scan(text);
    if (!*pos) {
        json_decref(root);
        rs_errf(err, "%s: out of memory", origin);
        return NULL;
    }
    if (!json_is_object(root)) {
        vctx_t v = {origin, *pos, err};
        vfail(&v, "", "the top level must be an object, got %s", type_name(root));
        json_decref(root);
        rs_jsonpos_free(*pos);
        *pos = NULL;
        return NULL;
    }
    return root;
}

/* ------------------------------------------------------------------------------------------------
 * Presets: the embedded table holds devices, links and models; devices have a top-level "device"
 * object, tiers a top-level "bw_bytes_per_s"; anything else (models/) is not ours.
 * ---------------------------------------------------------------------------------------------- */
static const char *device_names[RS_MAX_PRESETS + 1];
static const char *tier_names[RS_MAX_PRESETS + 1];
static pthread_once_t presets_once = PTHREAD_ONCE_INIT;

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sort the embedded presets into device and tier name lists, each in strcmp order. */
static void classify_presets(void) {
    int nd = 0, nt = 0;
    for (const rs_embedded_file_t *f = rs_presets(); f->name; f++) {
        json_t *j = json_loads(f->text, 0, NULL);
        if (!j) continue;
        if (json_is_object(j)) {
            if (json_object_get(j, "device") && nd < RS_MAX_PRESETS) device_names[nd++] = f->name;
            else if (json_object_get(j, "bw_bytes_per_s") && nt < RS_MAX_PRESETS) tier_names[nt++] = f->name;
        }
        json_decref(j);
    }
    qsort(device_names, (size_t)nd, sizeof device_names[0], cmp_names);
    qsort(tier_names, (size_t)nt, sizeof tier_names[0], cmp_names);
    device_names[nd] = NULL;
    tier_names[nt] = NULL;
}

const char *const *rs_hw_preset_names(void) {
    pthread_once(&presets_once, classify_presets);
    return device_names;
}

const char *const *rs_tier_preset_names(void) {
    pthread_once(&presets_once, classify_presets);
    return tier_names;
}

const char *rs_preset_text(const char *name) {
    if (!name) return NULL;
    for (const rs_embedded_file_t *f = rs_presets(); f->name; f++)
        if (!strcasecmp(f->name, name)) return f->text;
    return NULL;
}

/* The canonical preset name among names matching `name` case-insensitively, or NULL. */
static const char *find_in(const char *const *names, const char *name) {
    for (; *names; names++)
        if (!strcasecmp(*names, name)) return *names;
    return NULL;
}

static void list_names(char *buf, size_t len, const char *const *names) {
    size_t n = 0;
    buf[0] = '\0';
    for (; *names && n < len; names++) n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", *names);
}

/* A name without '/' that does not end in ".json" is a preset name. */
static bool is_preset_name(const char *s) {
    size_t n = strlen(s);
    return !strchr(s, '/') && !(n >= 5 && !strcasecmp(s + n - 5, ".json"));
}

/* ------------------------------------------------------------------------------------------------
 * Tiers
 * ---------------------------------------------------------------------------------------------- */
static const char *const tier_fields[] = {"name", "description", "bw_bytes_per_s", "latency_s", NULL};
static const char *const tier_figures[] = {"bw_bytes_per_s", "latency_s", NULL};

static int parse_tier_text(const char *text, const char *origin, rs_tier_t *out, rs_err_t *err);

/* A tier at path: an object, or a string naming a tier preset. */
static int parse_tier_value(const vctx_t *v, const char *path, const json_t *j, rs_tier_t *out) {
    memset(out, 0, sizeof *out);
    if (json_is_string(j)) {
        const char *want = json_string_value(j);
        const char *name = find_in(rs_tier_preset_names(), want);
        if (!name) {
            char known[1024];
            list_names(known, sizeof known, rs_tier_preset_names());
            return vfail(v, path, "unknown tier preset '%s' (known: %s)", want, known);
        }
        char origin[RS_NAME_LEN + 16];
        snprintf(origin, sizeof origin, "preset:%s", name);
        return parse_tier_text(rs_preset_text(name), origin, out, v->err);
    }
    if (!json_is_object(j))
        return vfail(v, path, "must be an object or a tier preset name, got %s", type_name(j));
    if (check_keys(v, path, j, tier_fields, tier_figures)) return -1;
    if (get_str(v, path, j, "name", true, true, out->name, sizeof out->name) < 0) return -1;
    if (get_str(v, path, j, "description", false, false, NULL, 4096) < 0) return -1;
    if (get_num(v, path, j, "bw_bytes_per_s", true, (rs_range_t){RS_RANGE_BW}, &out->bw_bytes_per_s) < 0) return -1;
    if (get_num(v, path, j, "latency_s", true, (rs_range_t){RS_RANGE_LATENCY}, &out->latency_s) < 0) return -1;
    return 0;
}

static int parse_tier_text(const char *text, const char *origin, rs_tier_t *out, rs_err_t *err) {
    rs_jsonpos_t *pos;
    json_t *root = load_text(text, origin, &pos, err);
    if (!root) return -1;
    vctx_t v = {origin, pos, err};
    int rc = parse_tier_value(&v, "", root, out);
    json_decref(root);
    rs_jsonpos_free(pos);
    return rc;
}

/* The JSON text of a preset among names, or of a file, and its origin for messages ("preset:NAME" or
 * the path); *owned is the text to free (NULL for a preset). NULL with err: "unknown KIND 'x'
 * (presets: ...; or a path to a .json file)", or the file's error. */
static const char *load_text_of(const char *name_or_path, const char *const *names, const char *kind, char *origin,
                                size_t origin_len, char **owned, rs_err_t *err) {
    *owned = NULL;
    if (!is_preset_name(name_or_path)) {
        snprintf(origin, origin_len, "%s", name_or_path);
        return *owned = rs_read_text_file(name_or_path, RS_PROFILE_MAX_BYTES, "JSON text", err);
    }
    const char *name = find_in(names, name_or_path);
    if (!name) {
        char known[1024];
        list_names(known, sizeof known, names);
        rs_errf(err, "unknown %s '%s' (presets: %s; or a path to a .json file)", kind, name_or_path, known);
        return NULL;
    }
    snprintf(origin, origin_len, "preset:%s", name);
    return rs_preset_text(name);
}

static int tier_parse(const char *text, const char *origin, void *out, rs_err_t *err) {
    return parse_tier_text(text, origin, out, err);
}

/* A preset among names or a file, parsed by parse into out; what names it when empty ("tier"), kind
 * when unknown ("hardware profile"). Returns 0 or -1 with err. */
static int load(const char *name_or_path, const char *const *names, const char *what, const char *kind,
                int (*parse)(const char *text, const char *origin, void *out, rs_err_t *err), void *out, rs_err_t *err) {
    if (!name_or_path || !*name_or_path) return rs_errf(err, "%s: empty name", what);
    char origin[1100], *owned;
    const char *text = load_text_of(name_or_path, names, kind, origin, sizeof origin, &owned, err);
    int rc = text ? parse(text, origin, out, err) : -1;
    free(owned);
    return rc;
}

int rs_tier_load(const char *name_or_path, rs_tier_t *out, rs_err_t *err) {
    return load(name_or_path, rs_tier_preset_names(), "tier", "tier", tier_parse, out, err);
}

/* ------------------------------------------------------------------------------------------------
 * Device profiles
 * ---------------------------------------------------------------------------------------------- */
static const char *const root_fields[] = {"name", "description", "device", "tiers", "calibration", "kernels", NULL};
static const char *const device_fields[] = {"flops_per_s", "memory_bytes", "memory_bw_bytes_per_s",
                                            "devices_per_node", "price_per_device_hour", NULL};
static const char *const tiers_fields[] = {"intra", "inter", NULL};
static const char *const calib_fields[] = {"efficiency",      "launch_s",        "overlap", "overlap_curve", "comp_slowdown",
                                           "host_s_per_xfer", "host_s_per_byte", "note",    "poll_curve", "poll_curve_fresh", "poll_chunk_cols",
                                           "poll_panel_rows_forward", "poll_panel_rows_backward", "xfer_curve",
                                           "xfer_curve_reused", NULL};
static const char *const rate_keys[] = {"fp32", "tf32", "bf16", "fp16", "fp8", NULL}; /* dtype_names + NULL */
static const char *const calib_figures[] = {"efficiency",    "launch_s",        "overlap",         "overlap_curve",
                                            "comp_slowdown", "host_s_per_xfer", "host_s_per_byte", "poll_curve", "poll_curve_fresh",
                                            "poll_chunk_cols", "poll_panel_rows_forward", "poll_panel_rows_backward", "xfer_curve",
                                            "xfer_curve_reused", NULL};

/* A calibration curve: an array of 1..max [x, y] pairs, x > 0 and strictly increasing, y in
 * (ylo, yhi] (ylo_open) or [ylo, yhi]. Messages name the pair's fields (xname, yname). */
typedef struct {
    const char *path, *xname, *yname;
    int max;
    double ylo, yhi;
    bool ylo_open;
} pairs_spec_t;

static int parse_pairs(const vctx_t *v, const json_t *j, const pairs_spec_t *sp, double *xs, double *ys, int *n_out) {
    char ep[128], vp[160];
    if (!json_is_array(j))
        return vfail(v, sp->path, "must be an array of [%s, %s] pairs, got %s", sp->xname, sp->yname, type_name(j));
    size_t n = json_array_size(j);
    if (n < 1 || n > (size_t)sp->max)
        return vfail(v, sp->path, "must hold 1 to %d [%s, %s] pairs, got %zu", sp->max, sp->xname, sp->yname, n);
    for (size_t k = 0; k < n; k++) {
        json_t *pt = json_array_get(j, k);
        snprintf(ep, sizeof ep, "%s[%zu]", sp->path, k);
        if (!json_is_array(pt) || json_array_size(pt) != 2)
            return vfail(v, ep, "must be a pair [%s, %s], got %s", sp->xname, sp->yname, type_name(pt));
        double x[2];
        for (size_t c = 0; c < 2; c++) {
            json_t *e = json_array_get(pt, c);
            snprintf(vp, sizeof vp, "%s[%zu]", ep, c);
            if (!json_is_number(e)) return vfail(v, vp, "must be a number, got %s", type_name(e));
            x[c] = json_number_value(e);
            if (!isfinite(x[c])) return vfail(v, vp, "must be finite, got %g", x[c]);
        }
        snprintf(vp, sizeof vp, "%s[0]", ep);
        if (!(x[0] > 0)) return vfail(v, vp, "%s must be > 0, got %g", sp->xname, x[0]);
        if (k > 0 && !(x[0] > xs[k - 1]))
            return vfail(v, vp, "%s must increase strictly, got %g after %g", sp->xname, x[0], xs[k - 1]);
        snprintf(vp, sizeof vp, "%s[1]", ep);
        if (!((sp->ylo_open ? x[1] > sp->ylo : x[1] >= sp->ylo) && x[1] <= sp->yhi))
            return vfail(v, vp, "%s must be in %c%g, %g], got %g", sp->yname, sp->ylo_open ? '(' : '[', sp->ylo, sp->yhi, x[1]);
        xs[k] = x[0], ys[k] = x[1];
    }
    *n_out = (int)n;
    return 0;
}

/* calibration.efficiency: [[block_tokens, efficiency], ...], efficiency in (0, 1.5]; and
 * calibration.overlap_curve: [[bytes, eta], ...], eta in [0, 1]; x > 0 strictly increasing. */
static int parse_curve(const vctx_t *v, const json_t *j, bool overlap, rs_calibration_t *cal) {
    const pairs_spec_t sp = overlap ? (pairs_spec_t){"calibration.overlap_curve", "bytes", "eta", RS_MAX_OVERLAP_POINTS, RS_RANGE_OVERLAP, false}
                                    : (pairs_spec_t){"calibration.efficiency", "block_tokens", "efficiency", RS_MAX_EFF_POINTS,
                                                     RS_RANGE_EFFICIENCY, true};
    double xs[RS_MAX_EFF_POINTS + RS_MAX_OVERLAP_POINTS], ys[RS_MAX_EFF_POINTS + RS_MAX_OVERLAP_POINTS];
    int n = 0;
    if (parse_pairs(v, j, &sp, xs, ys, &n)) return -1;
    for (int k = 0; k < n; k++)
        if (overlap) cal->overlap_curve[k] = (rs_overlap_point_t){xs[k], ys[k]};
        else cal->eff[k] = (rs_eff_point_t){xs[k], ys[k]};
    *(overlap ? &cal->n_overlap : &cal->n_eff) = n;
    return 0;
}

/* parse_pairs into points of two doubles (x, y) `stride` bytes apart (calibration.h's point
 * structs); *n their count. */
static int parse_points(const vctx_t *v, const json_t *j, const pairs_spec_t *sp, void *pts, size_t stride, int *n) {
    double xs[RS_MAX_EFF_POINTS], ys[RS_MAX_EFF_POINTS];
    int k = 0;
    if (sp->max > RS_MAX_EFF_POINTS || parse_pairs(v, j, sp, xs, ys, &k)) return -1;
    for (int i = 0; i < k; i++) {
        double *p = (double *)(void *)((char *)pts + (size_t)i * stride);
        p[0] = xs[i], p[1] = ys[i];
    }
    *n = k;
    return 0;
}

/* calibration.poll_*: the polled-progress model (calibration.h), all four keys or none. */
static int parse_poll(const vctx_t *v, const json_t *cal, rs_poll_model_t *pm) {
    static const char *const geom[] = {"poll_chunk_cols", "poll_panel_rows_forward", "poll_panel_rows_backward"};
    const json_t *curve = json_object_get(cal, "poll_curve"), *fresh = json_object_get(cal, "poll_curve_fresh");
    int n_geom = 0;
    for (int i = 0; i < 3; i++) n_geom += json_object_get(cal, geom[i]) != NULL;
    if (fresh && !curve)
        return vfail(v, "calibration.poll_curve_fresh", "needs calibration.poll_curve (the curve of the reused transfers)");
    if (!curve && n_geom == 0) return 0;
    if (!curve || n_geom < 3)
        return vfail(v, "calibration.poll_curve", "the poll model needs poll_curve, poll_chunk_cols, poll_panel_rows_forward "
                                                  "and poll_panel_rows_backward together");
    int64_t *dst[3] = {&pm->chunk_cols, &pm->panel_rows[0], &pm->panel_rows[1]};
    const rs_range_t gr = {RS_RANGE_POLL_GEOM};
    for (int i = 0; i < 3; i++) {
        double x = 0;
        if (get_num(v, "calibration", cal, geom[i], true, gr, &x) < 0) return -1;
        char kp[64];
        snprintf(kp, sizeof kp, "calibration.%s", geom[i]);
        if (x != floor(x)) return vfail(v, kp, "must be an integer in [%g, %g], got %g", gr.min, gr.max, x);
        *dst[i] = (int64_t)x;
    }
    const pairs_spec_t sp = {"calibration.poll_curve", "bytes", "polls", RS_MAX_OVERLAP_POINTS, RS_RANGE_POLLS, true};
    const pairs_spec_t spf = {"calibration.poll_curve_fresh", "bytes", "polls", RS_MAX_OVERLAP_POINTS, RS_RANGE_POLLS, true};
    if (parse_points(v, curve, &sp, pm->curve, sizeof pm->curve[0], &pm->n) < 0) return -1;
    return fresh ? parse_points(v, fresh, &spf, pm->fresh, sizeof pm->fresh[0], &pm->n_fresh) : 0;
}

/* calibration.xfer_curve: [[bytes, g], ...], the transfer curve (calibration.h); absent: g = 1. */
static int parse_xfer(const vctx_t *v, const json_t *cal, rs_calibration_t *out) {
    const json_t *curve = json_object_get(cal, "xfer_curve");
    if (!curve && json_object_get(cal, "xfer_curve_reused"))
        return vfail(v, "calibration.xfer_curve_reused", "needs calibration.xfer_curve (the curve of the other transfers)");
    if (!curve) return 0;
    const pairs_spec_t sp = {"calibration.xfer_curve", "bytes", "g", RS_MAX_OVERLAP_POINTS, RS_RANGE_XFER_FACTOR, true};
    if (parse_points(v, curve, &sp, out->xfer_curve, sizeof out->xfer_curve[0], &out->n_xfer)) return -1;
    /* calibration.xfer_curve_reused: the same for a receive into the buffer sent at the step before */
    const json_t *reused = json_object_get(cal, "xfer_curve_reused");
    if (!reused) return 0;
    const pairs_spec_t sr = {"calibration.xfer_curve_reused", "bytes", "g", RS_MAX_OVERLAP_POINTS, RS_RANGE_XFER_FACTOR, true};
    return parse_points(v, reused, &sr, out->xfer_curve_reused, sizeof out->xfer_curve_reused[0], &out->n_xfer_reused);
}

static int parse_device(const vctx_t *v, const json_t *root, rs_hw_t *out) {
    int bad;
    if (check_keys(v, "", root, root_fields, NULL)) return -1;
    if (get_str(v, "", root, "name", true, true, out->name, sizeof out->name) < 0) return -1;
    if (get_str(v, "", root, "description", false, false, NULL, 4096) < 0) return -1;

    json_t *dev = get_obj(v, "", root, "device", true, &bad);
    if (bad) return -1;
    if (check_keys(v, "device", dev, device_fields, device_fields)) return -1;
    json_t *fl = get_obj(v, "device", dev, "flops_per_s", true, &bad);
    if (bad) return -1;
    if (check_keys(v, "device.flops_per_s", fl, rate_keys, rate_keys)) return -1;
    int n_rates = 0;
    for (int k = 0; k < RS_DTYPE_COUNT; k++) {
        int got = get_num(v, "device.flops_per_s", fl, rs_dtype_name((rs_dtype_t)k), false, (rs_range_t){RS_RANGE_FLOPS}, &out->flops_per_s[k]);
        if (got < 0) return -1;
        n_rates += got;
    }
    if (!n_rates) return vfail(v, "device.flops_per_s", "needs at least one rate (keys: fp32, tf32, bf16, fp16, fp8)");
    if (get_num(v, "device", dev, "memory_bytes", true, (rs_range_t){RS_RANGE_MEM_BYTES}, &out->mem_bytes) < 0) return -1;
    if (get_num(v, "device", dev, "memory_bw_bytes_per_s", true, (rs_range_t){RS_RANGE_MEM_BW}, &out->mem_bw_bytes_per_s) < 0) return -1;
    json_t *g = json_object_get(dev, "devices_per_node");
    if (!g) return vfail(v, "device", "missing key 'devices_per_node'");
    if (!json_is_integer(g)) return vfail(v, "device.devices_per_node", "must be an integer, got %s", type_name(g));
    json_int_t gv = json_integer_value(g);
    const rs_range_t gr = {RS_RANGE_DEVICES_PER_NODE};
    if (!rs_range_ok(gr, (double)gv))
        return vfail(v, "device.devices_per_node", "must be in [%g, %g], got %lld", gr.min, gr.max, (long long)gv);
    out->devices_per_node = (int64_t)gv;
    if (get_num(v, "device", dev, "price_per_device_hour", false, (rs_range_t){RS_RANGE_PRICE}, &out->price_per_device_hour) < 0) return -1;

    json_t *tiers = get_obj(v, "", root, "tiers", true, &bad);
    if (bad) return -1;
    if (check_keys(v, "tiers", tiers, tiers_fields, NULL)) return -1;
    json_t *intra = json_object_get(tiers, "intra");
    if (!intra) return vfail(v, "tiers", "missing key 'intra'");
    if (parse_tier_value(v, "tiers.intra", intra, &out->intra)) return -1;
    json_t *inter = json_object_get(tiers, "inter");
    if (inter) {
        if (parse_tier_value(v, "tiers.inter", inter, &out->inter)) return -1;
        out->has_inter = true;
    }

    out->cal.overlap = 1.0;
    out->cal.comp_slowdown = 1.0;
    json_t *cal = get_obj(v, "", root, "calibration", false, &bad);
    if (bad) return -1;
    if (cal) {
        if (check_keys(v, "calibration", cal, calib_fields, calib_figures)) return -1;
        json_t *eff = json_object_get(cal, "efficiency");
        if (eff && parse_curve(v, eff, false, &out->cal)) return -1;
        if (get_num(v, "calibration", cal, "launch_s", false, (rs_range_t){RS_RANGE_LAUNCH}, &out->cal.launch_s) < 0) return -1;
        if (get_num(v, "calibration", cal, "overlap", false, (rs_range_t){RS_RANGE_OVERLAP}, &out->cal.overlap) < 0) return -1;
        if (get_num(v, "calibration", cal, "comp_slowdown", false, (rs_range_t){RS_RANGE_SLOWDOWN}, &out->cal.comp_slowdown) < 0) return -1;
        json_t *oc = json_object_get(cal, "overlap_curve");
        if (oc && json_object_get(cal, "overlap"))
            return vfail(v, "calibration.overlap_curve", "give either 'overlap' (one eta) or 'overlap_curve', not both");
        if (oc && parse_curve(v, oc, true, &out->cal)) return -1;
        if (get_num(v, "calibration", cal, "host_s_per_xfer", false, (rs_range_t){RS_RANGE_HOST_XFER}, &out->cal.host_s_per_xfer) < 0) return -1;
        if (get_num(v, "calibration", cal, "host_s_per_byte", false, (rs_range_t){RS_RANGE_HOST_BYTE}, &out->cal.host_s_per_byte) < 0) return -1;
        if (parse_poll(v, cal, &out->cal.poll)) return -1;
        if (parse_xfer(v, cal, &out->cal)) return -1;
        if (get_str(v, "calibration", cal, "note", false, false, out->calibration_note,
                    sizeof out->calibration_note) < 0)
            return -1;
    }
    json_t *kern = json_object_get(root, "kernels");
    if (kern && rs_kernel_json_parse(kern, v->origin, v->pos, &out->kernels, v->err)) return -1;
    return 0;
}

int rs_hw_parse(const char *text, const char *origin, rs_hw_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    if (!text) return rs_errf(err, "%s: no text", origin ? origin : "profile");
    if (!origin) origin = "profile";
    rs_jsonpos_t *pos;
    json_t *root = load_text(text, origin, &pos, err);
    if (!root) return -1;
    vctx_t v = {origin, pos, err};
    rs_hw_t hw;
    memset(&hw, 0, sizeof hw);
    int rc = parse_device(&v, root, &hw);
    json_decref(root);
    rs_jsonpos_free(pos);
    if (rc == 0) *out = hw;
    return rc;
}

static int hw_parse(const char *text, const char *origin, void *out, rs_err_t *err) {
    return rs_hw_parse(text, origin, out, err);
}

int rs_hw_load(const char *name_or_path, rs_hw_t *out, rs_err_t *err) {
    return load(name_or_path, rs_hw_preset_names(), "profile", "hardware profile", hw_parse, out, err);
}

/* ------------------------------------------------------------------------------------------------
 * Writing: each double is printed with the fewest digits that read back to the same value
 * (checked with strtod), so reading a written profile is exact and the file stays readable.
 * ---------------------------------------------------------------------------------------------- */
/* A curve as [[x, y], ...]: n structs of two doubles (x first) `stride` bytes apart (as the calibration curves, calibration.c). */
static void put_pairs(rs_jw_t *w, const void *pts, size_t stride, int n) {
    fputs("[", w->fp);
    for (int k = 0; k < n; k++) {
        const double *xy = (const double *)(const void *)((const char *)pts + (size_t)k * stride);
        fputs(k ? ", [" : "[", w->fp);
        rs_jw_num(w, xy[0]);
        fputs(", ", w->fp);
        rs_jw_num(w, xy[1]);
        fputs("]", w->fp);
    }
    fputs("]", w->fp);
}

static void put_tier(rs_jw_t *w, const char *key, const rs_tier_t *t, const char *source, bool first) {
    rs_jw_key(w, 4, key, first);
    fputs("{", w->fp);
    rs_jw_str_at(w, 6, "name", t->name, true);
    rs_jw_num_at(w, 6, "bw_bytes_per_s", t->bw_bytes_per_s, false);
    rs_jw_num_at(w, 6, "latency_s", t->latency_s, false);
    rs_jw_source(w, 6, source, false);
    fputs("\n    }", w->fp);
}

/* The device object of a profile. */
static void put_device(rs_jw_t *w, const rs_hw_t *hw, const char *source_note) {
    rs_jw_key(w, 2, "device", false);
    fputs("{", w->fp);
    rs_jw_key(w, 4, "flops_per_s", true);
    fputs("{", w->fp);
    bool first = true;
    for (int k = 0; k < RS_DTYPE_COUNT; k++) {
        if (hw->flops_per_s[k] == 0) continue;
        rs_jw_num_at(w, 6, rs_dtype_name((rs_dtype_t)k), hw->flops_per_s[k], first);
        first = false;
    }
    rs_jw_source(w, 6, source_note, first);
    fputs("\n    }", w->fp);
    rs_jw_num_at(w, 4, "memory_bytes", hw->mem_bytes, false);
    rs_jw_num_at(w, 4, "memory_bw_bytes_per_s", hw->mem_bw_bytes_per_s, false);
    rs_jw_key(w, 4, "devices_per_node", false);
    fprintf(w->fp, "%lld", (long long)hw->devices_per_node);
    if (hw->price_per_device_hour != 0) rs_jw_num_at(w, 4, "price_per_device_hour", hw->price_per_device_hour, false);
    rs_jw_source(w, 4, source_note, false);
    fputs("\n  }", w->fp);
}

/* The calibration object of a profile. */
static void put_calibration(rs_jw_t *w, const rs_hw_t *hw, const char *source_note) {
    rs_jw_key(w, 2, "calibration", false);
    fputs("{", w->fp);
    bool first = true;
    if (hw->cal.n_eff > 0) {
        rs_jw_key(w, 4, "efficiency", true);
        put_pairs(w, hw->cal.eff, sizeof hw->cal.eff[0], hw->cal.n_eff < RS_MAX_EFF_POINTS ? hw->cal.n_eff : RS_MAX_EFF_POINTS);
        first = false;
    }
    rs_jw_num_at(w, 4, "launch_s", hw->cal.launch_s, first);
    if (hw->cal.n_overlap > 0) {
        rs_jw_key(w, 4, "overlap_curve", false);
        put_pairs(w, hw->cal.overlap_curve, sizeof hw->cal.overlap_curve[0],
                  hw->cal.n_overlap < RS_MAX_OVERLAP_POINTS ? hw->cal.n_overlap : RS_MAX_OVERLAP_POINTS);
    } else {
        rs_jw_num_at(w, 4, "overlap", hw->cal.overlap, false);
    }
    rs_jw_num_at(w, 4, "comp_slowdown", hw->cal.comp_slowdown, false);
    rs_jw_num_at(w, 4, "host_s_per_xfer", hw->cal.host_s_per_xfer, false);
    rs_jw_num_at(w, 4, "host_s_per_byte", hw->cal.host_s_per_byte, false);
    if (rs_calibration_polled(&hw->cal)) {
        rs_jw_key(w, 4, "poll_curve", false);
        put_pairs(w, hw->cal.poll.curve, sizeof hw->cal.poll.curve[0],
                  hw->cal.poll.n < RS_MAX_OVERLAP_POINTS ? hw->cal.poll.n : RS_MAX_OVERLAP_POINTS);
        rs_jw_num_at(w, 4, "poll_chunk_cols", (double)hw->cal.poll.chunk_cols, false);
        rs_jw_num_at(w, 4, "poll_panel_rows_forward", (double)hw->cal.poll.panel_rows[0], false);
        rs_jw_num_at(w, 4, "poll_panel_rows_backward", (double)hw->cal.poll.panel_rows[1], false);
        if (hw->cal.poll.n_fresh > 0) {
            rs_jw_key(w, 4, "poll_curve_fresh", false);
            put_pairs(w, hw->cal.poll.fresh, sizeof hw->cal.poll.fresh[0],
                      hw->cal.poll.n_fresh < RS_MAX_OVERLAP_POINTS ? hw->cal.poll.n_fresh : RS_MAX_OVERLAP_POINTS);
        }
    }
    if (hw->cal.n_xfer > 0) {
        rs_jw_key(w, 4, "xfer_curve", false);
        put_pairs(w, hw->cal.xfer_curve, sizeof hw->cal.xfer_curve[0],
                  hw->cal.n_xfer < RS_MAX_OVERLAP_POINTS ? hw->cal.n_xfer : RS_MAX_OVERLAP_POINTS);
        if (hw->cal.n_xfer_reused > 0) {
            rs_jw_key(w, 4, "xfer_curve_reused", false);
            put_pairs(w, hw->cal.xfer_curve_reused, sizeof hw->cal.xfer_curve_reused[0],
                      hw->cal.n_xfer_reused < RS_MAX_OVERLAP_POINTS ? hw->cal.n_xfer_reused : RS_MAX_OVERLAP_POINTS);
        }
    }
    rs_jw_str_at(w, 4, "note", hw->calibration_note, false);
    rs_jw_source(w, 4, source_note, false);
    fputs("\n  }", w->fp);
}

int rs_hw_write_json(const rs_hw_t *hw, const char *path, const char *source_note, rs_err_t *err) {
    rs_file_t f;
    if (rs_file_open(&f, path, err)) return -1;
    rs_jw_t w = {f.fp, 0};
    fputs("{", w.fp);
    rs_jw_str_at(&w, 2, "name", hw->name, true);
    if (source_note) rs_jw_str_at(&w, 2, "description", source_note, false);
    put_device(&w, hw, source_note);
    rs_jw_key(&w, 2, "tiers", false);
    fputs("{", w.fp);
    put_tier(&w, "intra", &hw->intra, source_note, true);
    if (hw->has_inter) put_tier(&w, "inter", &hw->inter, source_note, false);
    fputs("\n  }", w.fp);
    put_calibration(&w, hw, source_note);
    if (hw->kernels.n_kernels > 0) rs_kernel_json_write(&w, &hw->kernels, 2, source_note);
    fputs("\n}\n", w.fp);
    if (w.bad) {
        rs_file_abort(&f);
        return rs_errf(err, "%s: profile %s has a non-finite figure; nothing written", path, hw->name);
    }
    return rs_file_commit(&f, err);
}
