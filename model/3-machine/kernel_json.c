/* kernel_json.c - a profile's "kernels" section: read and write (kernel_json.h). */
#include "kernel_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "presets.h"
#include "profile_json.h"
#include "ranges.h"
#include "schedule.h"

#define KFAIL(k, path, ...) rs_jsonpos_errf((k)->pos, (k)->origin, (path), (k)->err, __VA_ARGS__)

/* The texts any object of the section may carry besides its fields. */
static const char *const text_keys[] = {"source", "description", "note", NULL};

/* obj's keys must be in fields, or be one of text_keys (strings), or "<figure>_source" for a figure
 * in figures (a string). */
static int check_keys(const pj_ctx_t *k, const char *path, const json_t *obj, const char *const *fields,
                      const char *const *figures) {
    return pj_check_keys((pj_obj_t){k, path, obj}, fields, text_keys, figures);
}

static int get_string(const pj_ctx_t *k, const char *path, const json_t *j, char *out, size_t cap) {
    if (!json_is_string(j)) return KFAIL(k, path, "must be a string, got %s", rs_json_type_name(j));
    const char *s = json_string_value(j);
    if (!*s || strlen(s) >= cap) return KFAIL(k, path, "must be 1 to %zu characters, got %zu", cap - 1, strlen(s));
    snprintf(out, cap, "%s", s);
    return 0;
}

/* "dtype": "bf16" or ["bf16", "fp16"] -> bit set */
static int parse_dtypes(const pj_ctx_t *k, const char *path, const json_t *j, unsigned *out) {
    *out = 0;
    size_t n = json_is_array(j) ? json_array_size(j) : 1;
    if (!json_is_string(j) && !(json_is_array(j) && n > 0))
        return KFAIL(k, path, "must be a dtype name or a non-empty array of them (fp32, tf32, bf16, fp16, fp8), got %s", rs_json_type_name(j));
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_is_array(j) ? json_array_get(j, i) : j;
        char ep[480];
        if (json_is_array(j)) snprintf(ep, sizeof ep, "%s[%zu]", path, i);
        else snprintf(ep, sizeof ep, "%s", path);
        rs_dtype_t d;
        if (!json_is_string(e) || rs_dtype_parse(json_string_value(e), &d) != 0)
            return KFAIL(k, ep, "must be one of fp32, tf32, bf16, fp16, fp8");
        *out |= 1u << d;
    }
    return 0;
}

/* A text member (a source) copied into out, cut to cap - 1 bytes ("" when absent; the keys'
 * check already made it a string). */
static void copy_text(const json_t *obj, const char *key, char *out, size_t cap) {
    const json_t *v = json_object_get(obj, key);
    snprintf(out, cap, "%s", json_is_string(v) ? json_string_value(v) : "");
}

/* obj.key as an integer in [lo, hi] into *out (left as it is when absent). Returns 0 or -1. */
static int get_int(const pj_ctx_t *k, const char *path, const json_t *obj, const char *key, int64_t lo, int64_t hi, int64_t *out) {
    const json_t *v = json_object_get(obj, key);
    if (!v) return 0;
    char kp[512];
    snprintf(kp, sizeof kp, "%s.%s", path, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return KFAIL(k, kp, "must be an integer in [%lld, %lld]", (long long)lo, (long long)hi);
    *out = (int64_t)json_integer_value(v);
    return 0;
}

/* obj.key as a number in [lo, hi] into *out (left as it is when absent). Returns 0 or -1. */
static int get_num(const pj_ctx_t *k, const char *path, const json_t *obj, const char *key, double lo, double hi, double *out) {
    const json_t *v = json_object_get(obj, key);
    if (!v) return 0;
    char kp[512];
    snprintf(kp, sizeof kp, "%s.%s", path, key);
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < lo || json_number_value(v) > hi)
        return KFAIL(k, kp, "must be a number in [%g, %g]", lo, hi);
    *out = json_number_value(v);
    return 0;
}

/* obj.key, "q" or "kv" (the heads a CTA belongs to), into *per_kv (left as it is when absent). */
static int get_heads(const pj_ctx_t *k, const char *path, const json_t *obj, const char *key, bool *per_kv) {
    const json_t *v = json_object_get(obj, key);
    if (!v) return 0;
    char kp[512];
    snprintf(kp, sizeof kp, "%s.%s", path, key);
    if (!json_is_string(v) || (strcmp(json_string_value(v), "q") && strcmp(json_string_value(v), "kv")))
        return KFAIL(k, kp, "must be \"q\" (a CTA per query head) or \"kv\" (per key/value head)");
    *per_kv = !strcmp(json_string_value(v), "kv");
    return 0;
}

/* The measurement and CTA figures a curve takes from its kernel unless it gives its own. */
typedef struct {
    int64_t heads, kv_heads;
    double batch, tokens_per_batch;
    int64_t cta_rows[2], ctas_per_sm[2];
    bool per_kv[2];
} kdefaults_t;

#define KMAX_INT 1000000 /* heads, CTA rows, CTAs per SM: up to a million */

/* The measurement's parallelism (heads, kv_heads, batch, tokens_per_batch) of obj at path into d. */
static int parse_measure(const pj_ctx_t *k, const char *path, const json_t *obj, kdefaults_t *d) {
    if (get_int(k, path, obj, "heads", 1, KMAX_INT, &d->heads) || get_int(k, path, obj, "kv_heads", 1, KMAX_INT, &d->kv_heads) ||
        get_num(k, path, obj, "batch", 1, 1e9, &d->batch) || get_num(k, path, obj, "tokens_per_batch", 1, 1e12, &d->tokens_per_batch))
        return -1;
    return 0;
}

/* "points": [[q, k, flops_per_s(, batch)], ...]: 1 to RS_KMAX_POINTS, sorted strictly by (area, q),
 * tokens > 0, rates in RS_RANGE_FLOPS, a batch >= 1 when given */
static int parse_points(const pj_ctx_t *k, const char *path, const json_t *j, rs_kcurve_t *c) {
    if (!json_is_array(j)) return KFAIL(k, path, "must be an array of [q_tokens, k_tokens, flops_per_s] points, got %s", rs_json_type_name(j));
    size_t n = json_array_size(j);
    if (n < 1 || n > RS_KMAX_POINTS)
        return KFAIL(k, path, "needs 1 to %d points [q_tokens, k_tokens, flops_per_s], got %zu", RS_KMAX_POINTS, n);
    static const char *const what[4] = {"q_tokens", "k_tokens", "flops_per_s", "batch"};
    for (size_t i = 0; i < n; i++) {
        char ep[480], vp[512];
        snprintf(ep, sizeof ep, "%s[%zu]", path, i);
        const json_t *pt = json_array_get(j, i);
        const size_t m = json_is_array(pt) ? json_array_size(pt) : 0;
        if (m != 3 && m != 4)
            return KFAIL(k, ep, "must be a point [q_tokens, k_tokens, flops_per_s] or [q_tokens, k_tokens, flops_per_s, batch], got %s",
                         rs_json_type_name(pt));
        double x[4] = {0, 0, 0, 0};
        for (size_t e = 0; e < m; e++) {
            snprintf(vp, sizeof vp, "%s[%zu]", ep, e);
            const json_t *v = json_array_get(pt, e);
            if (!json_is_number(v)) return KFAIL(k, vp, "%s must be a number, got %s", what[e], rs_json_type_name(v));
            x[e] = json_number_value(v);
            if (e == 2) { /* a rate: the peak FLOP/s's range (ranges.h) */
                const rs_range_t r = {RS_RANGE_FLOPS};
                if (!(isfinite(x[e]) && rs_range_ok(r, x[e])))
                    return KFAIL(k, vp, "%s must be in [%g, %g], got %g", what[e], r.min, r.max, x[e]);
            } else if (!(isfinite(x[e]) && x[e] > 0) || (e == 3 && x[e] < 1)) {
                return KFAIL(k, vp, "%s must be %s, got %g", what[e], e == 3 ? ">= 1" : "> 0", x[e]);
            }
        }
        c->pt[i] = (rs_kpoint_t){x[0], x[1], x[2]};
        c->pt_batch[i] = x[3];
        if (i > 0) {
            const rs_kpoint_t *o = &c->pt[i - 1];
            double a = x[0] * x[1], ao = o->q_tokens * o->k_tokens;
            if (!(a > ao || (a == ao && x[0] > o->q_tokens))) {
                snprintf(vp, sizeof vp, "%s[0]", ep);
                return KFAIL(k, vp, "points must be sorted by area q*k, then by q (strictly): %gx%g after %gx%g", x[0], x[1],
                             o->q_tokens, o->k_tokens);
            }
        }
    }
    c->n = (int)n;
    return 0;
}

/* In a shipped preset a point's rate must not exceed the device's datasheet peak for any dtype the
 * curve holds for: a kernel cannot run faster than its tensor cores. (A calibrated file's "peak" is its
 * fastest dense step, which another call's rate may pass: not checked.) */
static int check_peak(const pj_ctx_t *k, const char *path, const rs_kcurve_t *c, const double *peaks) {
    if (strncmp(k->origin, "preset:", 7) != 0) return 0;
    for (int d = 0; d < RS_DTYPE_COUNT; d++) {
        if (!(c->dtypes >> d & 1u) || !(peaks[d] > 0)) continue;
        for (int i = 0; i < c->n; i++)
            if (c->pt[i].flops_per_s > peaks[d]) {
                char vp[512];
                snprintf(vp, sizeof vp, "%s.points[%d][2]", path, i);
                return KFAIL(k, vp, "%g FLOP/s is above the device's %s peak %g FLOP/s (device.flops_per_s.%s)", c->pt[i].flops_per_s,
                             rs_dtype_name((rs_dtype_t)d), peaks[d], rs_dtype_name((rs_dtype_t)d));
            }
    }
    return 0;
}

static int parse_curve(const pj_ctx_t *k, const char *path, const json_t *j, int kernel, const kdefaults_t *kd, const double *peaks,
                       rs_kernel_table_t *t) {
    static const char *const fields[] = {"dtype", "head_dim", "pass", "mask", "points", "heads", "kv_heads", "batch", "tokens_per_batch",
                                         "cta_rows", "ctas_per_sm", "cta_heads", NULL};
    static const char *const figures[] = {"heads", "kv_heads", "batch", "tokens_per_batch", "cta_rows", "ctas_per_sm", "cta_heads", NULL};
    if (!json_is_object(j)) return KFAIL(k, path, "must be an object, got %s", rs_json_type_name(j));
    if (check_keys(k, path, j, fields, figures)) return -1;
    for (const char *const *f = fields; f - fields < 5; f++)
        if (!json_object_get(j, *f)) return KFAIL(k, path, "missing key '%s'", *f);
    if (t->n_curves >= RS_KMAX_CURVES) return KFAIL(k, path, "at most %d curves per profile", RS_KMAX_CURVES);
    rs_kcurve_t *c = &t->curve[t->n_curves];
    memset(c, 0, sizeof *c);
    c->kernel = kernel;
    char kp[448];
    snprintf(kp, sizeof kp, "%s.dtype", path);
    if (parse_dtypes(k, kp, json_object_get(j, "dtype"), &c->dtypes)) return -1;
    snprintf(kp, sizeof kp, "%s.head_dim", path);
    const json_t *hd = json_object_get(j, "head_dim");
    if (!json_is_integer(hd) || json_integer_value(hd) < 1 || json_integer_value(hd) > 65536)
        return KFAIL(k, kp, "must be an integer in [1, 65536]");
    c->head_dim = (int64_t)json_integer_value(hd);
    snprintf(kp, sizeof kp, "%s.pass", path);
    rs_pass_t pass;
    const json_t *pj = json_object_get(j, "pass");
    if (!json_is_string(pj) || rs_pass_parse(json_string_value(pj), &pass) != 0) return KFAIL(k, kp, "must be forward or backward");
    c->pass = (int)pass;
    snprintf(kp, sizeof kp, "%s.mask", path);
    const json_t *mj = json_object_get(j, "mask");
    if (!json_is_string(mj) || rs_kmask_parse(json_string_value(mj), &c->mask) != 0)
        return KFAIL(k, kp, "must be full, causal or shifted");
    snprintf(kp, sizeof kp, "%s.points", path);
    if (parse_points(k, kp, json_object_get(j, "points"), c)) return -1;
    kdefaults_t m = *kd; /* the kernel's, then the curve's own */
    if (parse_measure(k, path, j, &m)) return -1;
    c->heads = m.heads, c->kv_heads = m.kv_heads, c->batch = m.batch, c->tokens_per_batch = m.tokens_per_batch;
    c->cta_rows = m.cta_rows[pass], c->ctas_per_sm = m.ctas_per_sm[pass], c->cta_per_kv_head = m.per_kv[pass];
    if (get_int(k, path, j, "cta_rows", 1, KMAX_INT, &c->cta_rows) || get_int(k, path, j, "ctas_per_sm", 1, KMAX_INT, &c->ctas_per_sm) ||
        get_heads(k, path, j, "cta_heads", &c->cta_per_kv_head))
        return -1;
    copy_text(j, "source", c->source, sizeof c->source);
    if (check_peak(k, path, c, peaks)) return -1;
    for (int i = 0; i < t->n_curves; i++) {
        const rs_kcurve_t *o = &t->curve[i];
        if (o->kernel == kernel && (o->dtypes & c->dtypes) && o->head_dim == c->head_dim && o->pass == c->pass && o->mask == c->mask)
            return KFAIL(k, path, "a second %s %s curve for the same dtype and head_dim %lld", rs_pass_name(pass),
                         rs_kmask_name(c->mask), (long long)c->head_dim);
    }
    t->n_curves++;
    return 0;
}

static int parse_kernel(const pj_ctx_t *k, const char *path, const json_t *j, const double *peaks, rs_kernel_table_t *t) {
    static const char *const fields[] = {"name", "gqa_expand_bwd", "curves", "kind", "sm_count", "heads", "kv_heads", "batch",
                                         "tokens_per_batch", "cta_rows_forward", "cta_rows_backward", "ctas_per_sm_forward",
                                         "ctas_per_sm_backward", "cta_heads_forward", "cta_heads_backward", "backward_from", NULL};
    if (!json_is_object(j)) return KFAIL(k, path, "must be an object, got %s", rs_json_type_name(j));
    if (check_keys(k, path, j, fields, fields + 1)) return -1;
    if (t->n_kernels >= RS_KMAX_KERNELS) return KFAIL(k, path, "at most %d kernels", RS_KMAX_KERNELS);
    rs_kernel_info_t *ki = &t->kernel[t->n_kernels];
    memset(ki, 0, sizeof *ki);
    char kp[256];
    snprintf(kp, sizeof kp, "%s.name", path);
    const json_t *nm = json_object_get(j, "name");
    if (!nm) return KFAIL(k, path, "missing key 'name'");
    if (get_string(k, kp, nm, ki->name, sizeof ki->name)) return -1;
    if (rs_kernel_find(t, ki->name) >= 0)
        return KFAIL(k, kp, "kernel '%s' is listed twice%s%s%s", ki->name, t->from[0] ? " (or imported from " : "", t->from, t->from[0] ? ")" : "");
    const json_t *g = json_object_get(j, "gqa_expand_bwd");
    if (g && !json_is_boolean(g)) {
        snprintf(kp, sizeof kp, "%s.gqa_expand_bwd", path);
        return KFAIL(k, kp, "must be true or false, got %s", rs_json_type_name(g));
    }
    ki->gqa_expand_bwd = g && json_is_true(g);
    const json_t *kind = json_object_get(j, "kind");
    ki->kind = RS_RKIND_USER; /* a kernel that does not say is the user's own */
    snprintf(kp, sizeof kp, "%s.kind", path);
    if (kind && (!json_is_string(kind) || rs_rate_kind_parse(json_string_value(kind), &ki->kind) != 0))
        return KFAIL(k, kp, "must be measured, published, estimated or user-given");
    if (get_int(k, path, j, "sm_count", 1, KMAX_INT, &ki->sm_count)) return -1;
    copy_text(j, "source", ki->source, sizeof ki->source);
    const json_t *bf = json_object_get(j, "backward_from");
    if (bf) {
        snprintf(kp, sizeof kp, "%s.backward_from", path);
        if (get_string(k, kp, bf, ki->backward_from, sizeof ki->backward_from)) return -1;
        copy_text(j, "backward_from_source", ki->backward_from_source, sizeof ki->backward_from_source);
        if (!ki->backward_from_source[0])
            return KFAIL(k, kp, "needs \"backward_from_source\" saying why that device's backward / forward ratio applies here");
    }
    kdefaults_t d = {0};
    if (parse_measure(k, path, j, &d) || get_int(k, path, j, "cta_rows_forward", 1, KMAX_INT, &d.cta_rows[0]) ||
        get_int(k, path, j, "cta_rows_backward", 1, KMAX_INT, &d.cta_rows[1]) ||
        get_int(k, path, j, "ctas_per_sm_forward", 1, KMAX_INT, &d.ctas_per_sm[0]) ||
        get_int(k, path, j, "ctas_per_sm_backward", 1, KMAX_INT, &d.ctas_per_sm[1]) ||
        get_heads(k, path, j, "cta_heads_forward", &d.per_kv[0]) || get_heads(k, path, j, "cta_heads_backward", &d.per_kv[1]))
        return -1;
    const json_t *cv = json_object_get(j, "curves");
    snprintf(kp, sizeof kp, "%s.curves", path);
    if (!cv) return KFAIL(k, path, "missing key 'curves'");
    if (!json_is_array(cv) || json_array_size(cv) == 0) return KFAIL(k, kp, "must be a non-empty array of curves");
    const int index = t->n_kernels++;
    for (size_t i = 0; i < json_array_size(cv); i++) {
        char cp[320];
        snprintf(cp, sizeof cp, "%s[%zu]", kp, i);
        if (parse_curve(k, cp, json_array_get(cv, i), index, &d, peaks, t)) return -1;
    }
    return 0;
}

static int parse_impls(const pj_ctx_t *k, const json_t *j, rs_kernel_table_t *t) {
    static const char *const fields[] = {"ringsim", "flash-attn", "te", NULL};
    if (!json_is_object(j)) return KFAIL(k, "kernels.impl_kernels", "must be an object, got %s", rs_json_type_name(j));
    if (check_keys(k, "kernels.impl_kernels", j, fields, NULL)) return -1;
    for (int i = RS_IMPL_RINGSIM; i < RS_IMPL_COUNT; i++) {
        const json_t *v = json_object_get(j, rs_impl_name((rs_impl_t)i));
        if (!v) continue;
        char kp[128], name[RS_KNAME_LEN];
        snprintf(kp, sizeof kp, "kernels.impl_kernels.%s", rs_impl_name((rs_impl_t)i));
        if (get_string(k, kp, v, name, sizeof name)) return -1;
        int ki = rs_kernel_find(t, name);
        if (ki < 0) return KFAIL(k, kp, "no kernel named '%s' in kernels.list", name);
        t->impl_kernel[i] = ki + 1;
    }
    return 0;
}

/* The lowest dtype of a non-empty bit set of them. */
static int first_dtype(unsigned dtypes) {
    int d = 0;
    while (!(dtypes >> d & 1u)) d++;
    return d;
}

/* Device preset `name` into a new *out (free it), for key path kp: "'NAME' is not a device preset<what>"
 * otherwise. */
static int load_preset(const pj_ctx_t *k, const char *kp, const char *name, const char *what, rs_hw_t **out) {
    *out = malloc(sizeof **out);
    if (!*out) return KFAIL(k, kp, "out of memory");
    rs_err_t e = {0};
    if (preset_find(rs_hw_preset_names(), name) && rs_hw_load(name, *out, &e) == 0) return 0;
    free(*out);
    *out = NULL;
    return KFAIL(k, kp, "'%s' is not a device preset%s%s%s", name, what, e.msg[0] ? ": " : "", e.msg);
}

/* "from": "PRESET" - the kernel table of another device preset (one of its own, not imported itself),
 * each rate scaled by this device's peak over that one's for the curve's dtype when "scale" is
 * "peak" (the same kernels at the same fraction of peak on a sibling: its kernels become estimated)
 * or kept as they are ("none": the same compute silicon; the kinds stay). "source" (required) says
 * what is borrowed and why and leads each kernel's source; the SMs the curves were measured on stay
 * the source device's; the merge bandwidth is this device's unless given; the file's own "list"
 * adds kernels and its "impl_kernels" overrides the source's. */
static int import_from(const pj_ctx_t *k, const json_t *j, const rs_hw_t *dev, rs_kernel_table_t *t) {
    char name[RS_KNAME_LEN];
    if (get_string(k, "kernels.from", json_object_get(j, "from"), name, sizeof name)) return -1;
    const json_t *scale = json_object_get(j, "scale");
    if (!scale || !json_is_string(scale) || (strcmp(json_string_value(scale), "peak") && strcmp(json_string_value(scale), "none")))
        return KFAIL(k, scale ? "kernels.scale" : "kernels", "%s",
                     scale ? "must be \"peak\" or \"none\"" : "kernels.from needs \"scale\": \"peak\" or \"none\"");
    char src[RS_KSOURCE_LEN];
    copy_text(j, "source", src, sizeof src);
    if (!src[0]) return KFAIL(k, "kernels", "kernels.from needs a \"source\" saying what is borrowed and why");
    rs_hw_t *o;
    if (load_preset(k, "kernels.from", name, " with kernels", &o)) return -1;
    int rc = 0;
    if (o->kernels.n_kernels == 0 || o->kernels.from[0]) {
        rc = KFAIL(k, "kernels.from", "preset %s has %s", name, o->kernels.from[0] ? "an imported table itself (import from its source)" : "no kernels");
    } else {
        const bool peak = !strcmp(json_string_value(scale), "peak");
        *t = o->kernels;
        snprintf(t->from, sizeof t->from, "%s", name);
        t->merge_bw_bytes_per_s = 0, t->sm_count = dev->sm_count;
        for (int i = 0; i < t->n_kernels; i++) {
            rs_kernel_info_t *ki = &t->kernel[i];
            if (peak) ki->kind = RS_RKIND_ESTIMATED;
            if (ki->sm_count == 0) ki->sm_count = o->sm_count;
            char orig[RS_KSOURCE_LEN];
            snprintf(orig, sizeof orig, "%s", ki->source);
            snprintf(ki->source, sizeof ki->source, "%.380s - %.380s", src, orig);
        }
        int n = 0;
        for (int i = 0; i < t->n_curves; i++) { /* the dtypes both devices rate, scaled by the first one's peaks */
            rs_kcurve_t c = t->curve[i];
            if (c.derived) continue; /* derived again here, after this file's own curves, as a written table is */
            unsigned keep = 0;
            for (int d = 0; d < RS_DTYPE_COUNT; d++)
                if ((c.dtypes >> d & 1u) && dev->flops_per_s[d] > 0 && o->flops_per_s[d] > 0) keep |= 1u << d;
            if (!keep) continue;
            const int d0 = first_dtype(keep);
            const double f = peak ? dev->flops_per_s[d0] / o->flops_per_s[d0] : 1.0;
            c.dtypes = keep;
            for (int p = 0; p < c.n; p++) c.pt[p].flops_per_s *= f;
            t->curve[n++] = c;
        }
        t->n_curves = n;
        if (n == 0) rc = KFAIL(k, "kernels.from", "preset %s has no curve for a dtype this device rates", name);
        for (int i = 0; rc == 0 && i < RS_IMPL_COUNT; i++) /* a kernel left without curves runs no preset */
            if (t->impl_kernel[i] > 0) {
                bool any = false;
                for (int c = 0; c < n; c++) any |= t->curve[c].kernel == t->impl_kernel[i] - 1;
                if (!any) t->impl_kernel[i] = 0;
            }
        if (t->default_impl > 0 && t->impl_kernel[t->default_impl] == 0) t->default_impl = RS_IMPL_NONE;
    }
    free(o);
    return rc;
}

static int parse_bw(const pj_ctx_t *k, const json_t *j, rs_kernel_table_t *t) {
    const json_t *bw = json_object_get(j, "merge_bw_bytes_per_s");
    if (!bw) return 0;
    if (!json_is_number(bw)) return KFAIL(k, "kernels.merge_bw_bytes_per_s", "must be a number, got %s", rs_json_type_name(bw));
    t->merge_bw_bytes_per_s = json_number_value(bw);
    const rs_range_t r = {RS_RANGE_MEM_BW}; /* an HBM bandwidth: the device's memory bandwidth's range */
    if (!(isfinite(t->merge_bw_bytes_per_s) && rs_range_ok(r, t->merge_bw_bytes_per_s)))
        return KFAIL(k, "kernels.merge_bw_bytes_per_s", "must be in [%g, %g], got %g", r.min, r.max, t->merge_bw_bytes_per_s);
    return 0;
}

static int parse_default(const pj_ctx_t *k, const json_t *j, rs_kernel_table_t *t) {
    const json_t *di = json_object_get(j, "default_impl");
    if (!di) return 0;
    rs_impl_t imp;
    if (!json_is_string(di) || rs_impl_parse(json_string_value(di), &imp) != 0)
        return KFAIL(k, "kernels.default_impl", "must be none, ringsim, flash-attn or te");
    if (imp != RS_IMPL_NONE && t->impl_kernel[imp] == 0)
        return KFAIL(k, "kernels.default_impl", "%s runs no kernel here (add it to kernels.impl_kernels)", rs_impl_name(imp));
    t->default_impl = (int)imp;
    return 0;
}

/* A prepared copy of t in a new *own (free it; NULL on failure), whose curves' rates the derivations read. */
static int prepared_copy(const pj_ctx_t *k, const rs_kernel_table_t *t, rs_kernel_table_t **own) {
    *own = malloc(sizeof **own);
    if (!*own) return KFAIL(k, "kernels", "out of memory");
    **own = *t;
    rs_err_t e = {0};
    return rs_kernel_table_prepare(*own, &e) ? KFAIL(k, "kernels", "%s", e.msg) : 0;
}

/* Backward curves from forward ones (docs/model.md section 3a, "Backward from forward"): forward curves
 * of kernel ki in t get a backward twin - the same shapes, at the forward rate times the backward / forward
 * ratio of kernel ok in table ot at that shape and mask, the ratio taken within one mask (where ot has no
 * backward curve of the mask, the mask that stands in for it in both passes).
 * - donor, a preset's name (ot that preset's table): every forward curve, ot resolved at its head_dim; a
 *   ratio ot cannot give is refused.
 * - donor NULL (ot t's own table, prepared): the forward curves at head_dims without a backward curve, ot
 *   resolved at the nearest head_dim with a backward of its own; where there is none, nothing. */
static int derive_curves(const pj_ctx_t *k, const char *kp, rs_kernel_table_t *t, int ki, const rs_kernel_table_t *ot, int ok,
                         const char *donor) {
    const int n0 = t->n_curves;
    for (int i = 0; i < n0; i++) {
        const rs_kcurve_t *f = &t->curve[i];
        if (f->kernel != ki || f->pass != RS_PASS_FORWARD) continue;
        const int dt = first_dtype(f->dtypes);
        int64_t d = donor ? f->head_dim : -1;
        for (int j = 0; !donor && j < ot->n_curves; j++) { /* the nearest head_dim with a backward of its own */
            const rs_kcurve_t *c = &ot->curve[j];
            if (c->kernel != ok || c->pass != RS_PASS_BACKWARD || c->derived) continue;
            if (c->head_dim == f->head_dim && (c->dtypes & f->dtypes)) { /* this head_dim has one */
                d = -1;
                break;
            }
            if ((c->dtypes >> dt & 1u) && rs_kdim_nearer(c->head_dim, d, f->head_dim)) d = c->head_dim;
        }
        if (d < 0) continue;
        rs_kresolve_t r;
        rs_err_t e = {0};
        if (rs_kernel_resolve(ot, ok, dt, d, &r, &e)) {
            if (donor) return KFAIL(k, kp, "preset %s: %s", donor, e.msg);
            continue;
        }
        const rs_kcurve_t *ob = &ot->curve[r.idx[RS_PASS_BACKWARD][f->mask]];
        const rs_kcurve_t *of = ob->pass == RS_PASS_BACKWARD ? &ot->curve[r.idx[RS_PASS_FORWARD][ob->mask]] : NULL;
        if (!of || of->pass != RS_PASS_FORWARD || of->mask != ob->mask) {
            if (donor)
                return KFAIL(k, kp, "preset %s's kernel %s has no backward and forward curves of one mask for %s", donor, ot->kernel[ok].name,
                             rs_dtype_name((rs_dtype_t)dt));
            continue;
        }
        if (t->n_curves >= RS_KMAX_CURVES) return KFAIL(k, kp, "at most %d curves", RS_KMAX_CURVES);
        rs_kcurve_t *b = &t->curve[t->n_curves++];
        *b = *f;
        b->pass = RS_PASS_BACKWARD, b->derived = true, b->ratio_head_dim = ob->head_dim;
        for (int p = 0; p < b->n; p++)
            b->pt[p].flops_per_s *= rs_kcurve_rate(ob, f->pt[p].q_tokens, f->pt[p].k_tokens) /
                                    rs_kcurve_rate(of, f->pt[p].q_tokens, f->pt[p].k_tokens);
        char src[RS_KSOURCE_LEN]; /* f and the kernel's text lie in t, as b does */
        snprintf(src, sizeof src, "%.280s x the %.60s %.60s backward / forward ratio at each shape (head_dim %lld%s%.280s)", f->source,
                 donor ? donor : "kernel's own", ot->kernel[ok].name, (long long)ob->head_dim, donor ? ": " : "",
                 donor ? t->kernel[ki].backward_from_source : "");
        snprintf(b->source, sizeof b->source, "%s", src);
    }
    return 0;
}

/* "backward_from": "PRESET" on a kernel measured forward only: its backward curves from its forward ones
 * at the ratio of the kernel of the same name on PRESET (derive_curves). The same kernel's two passes keep
 * their ratio across GPUs far better than either pass keeps its rate: the ratio is the kernel's algorithm
 * (the backward's 2.5x FLOPs over more passes through memory, its atomics), the rate the silicon. Refused:
 * the kernel has a backward curve of its own; PRESET lacks the kernel or derives its backward itself.
 * Then every kernel's forward curves at a head_dim without a backward curve take the kernel's own ratio at
 * its nearest head_dim that has both passes (t prepared first, and again after). */
static int derive_backward(const pj_ctx_t *k, rs_kernel_table_t *t) {
    for (int ki = 0; ki < t->n_kernels; ki++) {
        rs_kernel_info_t *info = &t->kernel[ki];
        if (!info->backward_from[0]) continue;
        char kp[RS_KNAME_LEN + 64];
        snprintf(kp, sizeof kp, "kernels.list[%s].backward_from", info->name);
        for (int i = 0; i < t->n_curves; i++) /* none is derived yet: an imported table ("from") dropped its */
            if (t->curve[i].kernel == ki && t->curve[i].pass == RS_PASS_BACKWARD)
                return KFAIL(k, kp, "kernel %s has backward curves of its own: derive none", info->name);
        rs_hw_t *o;
        if (load_preset(k, kp, info->backward_from, "", &o)) return -1;
        const int ok = rs_kernel_find(&o->kernels, info->name);
        int rc = ok < 0 ? KFAIL(k, kp, "preset %s has no kernel named '%s'", info->backward_from, info->name)
                 : o->kernels.kernel[ok].backward_from[0]
                     ? KFAIL(k, kp, "preset %s derives its %s backward itself (name a preset that measured it)", info->backward_from, info->name)
                     : 0;
        if (rc == 0) rc = derive_curves(k, kp, t, ki, &o->kernels, ok, info->backward_from);
        free(o);
        if (rc) return rc;
    }
    rs_kernel_table_t *own;
    int rc = prepared_copy(k, t, &own);
    for (int ki = 0; rc == 0 && ki < t->n_kernels; ki++)
        if (!t->kernel[ki].backward_from[0]) rc = derive_curves(k, "kernels", t, ki, own, ki, NULL);
    free(own);
    return rc;
}

/* Full <-> causal curves from each other (docs/model.md section 3a, "Masks from the other mask"): where a
 * kernel has, for a pass and dtype, a curve of one of the two masks at head_dim d but not the other, the
 * missing curve is the present one's points times the other-mask / this-mask rate ratio at each shape of
 * the other pass at d, else of this pass at the nearest head_dim with both (the smaller on a tie): how much
 * a causal call loses is the diagonal tiles' share, a matter of the tile and the sequence, which the
 * passes share (FlashAttention-2 paper Figure 7, H100 forward + backward causal / full at d 128: 0.66,
 * 0.83, 0.92 at 512, 2K, 8K; FlashAttention-3 paper Figure 5, forward only: 0.62, 0.82, 0.90) and so do
 * the head_dims of one kernel (Figure 5: 0.59, 0.63, 0.59 at 512 for head_dim 64, 128, 256; 0.81, 0.83,
 * 0.76 at 2K). The curves present before this step count (a derived backward has its forward's masks);
 * t prepared first (a copy), and again after. */
static int derive_masks(const pj_ctx_t *k, rs_kernel_table_t *t) {
    rs_kernel_table_t *own;
    int rc = prepared_copy(k, t, &own);
    const int n0 = rc == 0 ? own->n_curves : 0;
    for (int i = 0; rc == 0 && i < n0; i++) {
        const rs_kcurve_t *c = &own->curve[i];
        if (c->mask == RS_KMASK_SHIFTED) continue;
        const rs_kmask_t want = c->mask == RS_KMASK_FULL ? RS_KMASK_CAUSAL : RS_KMASK_FULL;
        const int dt = first_dtype(c->dtypes);
        bool have = false; /* the other mask at c's head_dim, of the profile or derived in this loop */
        for (int j = 0; j < t->n_curves && !have; j++) {
            const rs_kcurve_t *o = &t->curve[j];
            have = o->kernel == c->kernel && o->pass == c->pass && o->head_dim == c->head_dim && o->mask == want && (o->dtypes >> dt & 1u);
        }
        if (have) continue;
        /* the ratio's curves: the other pass at this head_dim (how much a causal call loses is the same in
         * both passes), else this pass at the nearest other head_dim (the smaller on a tie) */
        int num = -1, den = -1;
        for (int j = 0; j < n0; j++) {
            const rs_kcurve_t *o = &own->curve[j];
            if (o->kernel != c->kernel || o->mask != want || !(o->dtypes >> dt & 1u) || (o->pass == c->pass) == (o->head_dim == c->head_dim))
                continue;
            int m = -1;
            for (int q = 0; q < n0 && m < 0; q++) {
                const rs_kcurve_t *x = &own->curve[q];
                if (x->kernel == c->kernel && x->pass == o->pass && x->head_dim == o->head_dim && x->mask == c->mask && (x->dtypes >> dt & 1u))
                    m = q;
            }
            if (m < 0) continue;
            const rs_kcurve_t *cur = num < 0 ? NULL : &own->curve[num];
            if (!cur || (cur->pass == c->pass && (o->pass != c->pass || rs_kdim_nearer(o->head_dim, cur->head_dim, c->head_dim))))
                num = j, den = m;
        }
        if (num < 0) continue;
        if (t->n_curves >= RS_KMAX_CURVES) {
            rc = KFAIL(k, "kernels", "at most %d curves", RS_KMAX_CURVES);
            break;
        }
        const rs_kcurve_t *on = &own->curve[num], *od = &own->curve[den];
        rs_kcurve_t *b = &t->curve[t->n_curves++];
        *b = t->curve[i];
        b->mask = want, b->derived = true, b->ratio_head_dim = on->head_dim, b->mask_of = (int)c->mask + 1, b->dtypes = c->dtypes & on->dtypes & od->dtypes;
        for (int p = 0; p < b->n; p++) { /* a causal call never runs faster per useful FLOP than a full one */
            const double r = rs_kcurve_rate(on, c->pt[p].q_tokens, c->pt[p].k_tokens) / rs_kcurve_rate(od, c->pt[p].q_tokens, c->pt[p].k_tokens);
            b->pt[p].flops_per_s *= want == RS_KMASK_CAUSAL ? fmin(r, 1.0) : fmax(r, 1.0);
        }
        snprintf(b->source, sizeof b->source, "%.400s x the kernel's head_dim %lld %s / %s ratio at each shape", c->source,
                 (long long)on->head_dim, rs_kmask_name(want), rs_kmask_name(c->mask)); /* c lies in own, not t */
    }
    free(own);
    return rc;
}

int rs_kernel_json_parse(const json_t *j, const char *origin, const rs_jsonpos_t *pos, const rs_hw_t *dev, rs_kernel_table_t *t,
                         rs_err_t *err) {
    static const char *const fields[] = {"list", "impl_kernels", "default_impl", "merge_bw_bytes_per_s", NULL};
    static const char *const from_fields[] = {"from", "scale", "list", "impl_kernels", "default_impl", "merge_bw_bytes_per_s", NULL};
    static const char *const figures[] = {"impl_kernels", "default_impl", "merge_bw_bytes_per_s", NULL};
    const pj_ctx_t k = {origin, pos, err};
    const int64_t sms = dev->sm_count;
    memset(t, 0, sizeof *t);
    t->sm_count = sms;
    if (!json_is_object(j)) return KFAIL(&k, "kernels", "must be an object, got %s", rs_json_type_name(j));
    const bool from = json_object_get(j, "from") != NULL;
    if (check_keys(&k, "kernels", j, from ? from_fields : fields, figures)) return -1;
    if (from && import_from(&k, j, dev, t)) return -1;
    const json_t *list = json_object_get(j, "list");
    if (!list && !from) return KFAIL(&k, "kernels", "missing key 'list'");
    if (list && (!json_is_array(list) || json_array_size(list) == 0)) return KFAIL(&k, "kernels.list", "must be a non-empty array of kernels");
    for (size_t i = 0; list && i < json_array_size(list); i++) {
        char kp[64];
        snprintf(kp, sizeof kp, "kernels.list[%zu]", i);
        if (parse_kernel(&k, kp, json_array_get(list, i), dev->flops_per_s, t)) return -1;
    }
    const json_t *im = json_object_get(j, "impl_kernels");
    if (im && parse_impls(&k, im, t)) return -1;
    if (!from) t->default_impl = RS_IMPL_NONE;
    if (parse_bw(&k, j, t) || parse_default(&k, j, t) || derive_backward(&k, t) || derive_masks(&k, t)) return -1;
    rs_err_t e = {0};
    return rs_kernel_table_prepare(t, &e) ? KFAIL(&k, "kernels", "%s", e.msg) : 0;
}

/* ------------------------------------------------------------------------------------------------
 * Writing
 * ---------------------------------------------------------------------------------------------- */
static void write_curve(rs_jw_t *w, const rs_kcurve_t *c, int ind, const char *source) {
    fprintf(w->fp, "%*s{", ind, "");
    rs_jw_key(w, ind + 2, "dtype", true);
    fputs("[", w->fp);
    bool first = true;
    for (int d = 0; d < RS_DTYPE_COUNT; d++)
        if (c->dtypes >> d & 1u) {
            if (!first) fputs(", ", w->fp);
            rs_jw_str(w, rs_dtype_name((rs_dtype_t)d));
            first = false;
        }
    fputs("]", w->fp);
    rs_jw_key(w, ind + 2, "head_dim", false);
    fprintf(w->fp, "%lld", (long long)c->head_dim);
    rs_jw_str_at(w, ind + 2, "pass", rs_pass_name((rs_pass_t)c->pass), false);
    rs_jw_str_at(w, ind + 2, "mask", rs_kmask_name(c->mask), false);
    rs_jw_key(w, ind + 2, "points", false);
    fputs("[", w->fp);
    for (int i = 0; i < c->n; i++) {
        fputs(i ? ", [" : "[", w->fp);
        rs_jw_num(w, c->pt[i].q_tokens);
        fputs(", ", w->fp);
        rs_jw_num(w, c->pt[i].k_tokens);
        fputs(", ", w->fp);
        rs_jw_num(w, c->pt[i].flops_per_s);
        if (c->pt_batch[i] > 0) fputs(", ", w->fp), rs_jw_num(w, c->pt_batch[i]);
        fputs("]", w->fp);
    }
    fputs("]", w->fp);
    static const char *const ints[] = {"heads", "kv_heads", "cta_rows", "ctas_per_sm"};
    const int64_t iv[] = {c->heads, c->kv_heads, c->cta_rows, c->ctas_per_sm};
    for (int i = 0; i < 4; i++)
        if (iv[i] > 0) rs_jw_key(w, ind + 2, ints[i], false), fprintf(w->fp, "%lld", (long long)iv[i]);
    if (c->batch > 0) rs_jw_num_at(w, ind + 2, "batch", c->batch, false);
    if (c->tokens_per_batch > 0) rs_jw_num_at(w, ind + 2, "tokens_per_batch", c->tokens_per_batch, false);
    if (c->cta_per_kv_head) rs_jw_str_at(w, ind + 2, "cta_heads", "kv", false);
    rs_jw_source(w, ind + 2, c->source[0] ? c->source : source, false);
    fprintf(w->fp, "\n%*s}", ind, "");
}

/* The kernels of the list, each with its curves. */
static void write_list(rs_jw_t *w, const rs_kernel_table_t *t, int ind, const char *source) {
    rs_jw_key(w, ind, "list", true);
    fputs("[", w->fp);
    for (int k = 0; k < t->n_kernels; k++) {
        fprintf(w->fp, "%s\n%*s{", k ? "," : "", ind + 2, "");
        rs_jw_str_at(w, ind + 4, "name", t->kernel[k].name, true);
        rs_jw_key(w, ind + 4, "gqa_expand_bwd", false);
        fputs(t->kernel[k].gqa_expand_bwd ? "true" : "false", w->fp);
        rs_jw_str_at(w, ind + 4, "kind", rs_rate_kind_name(t->kernel[k].kind), false);
        if (t->kernel[k].sm_count > 0) rs_jw_key(w, ind + 4, "sm_count", false), fprintf(w->fp, "%lld", (long long)t->kernel[k].sm_count);
        if (t->kernel[k].backward_from[0]) {
            rs_jw_str_at(w, ind + 4, "backward_from", t->kernel[k].backward_from, false);
            rs_jw_str_at(w, ind + 4, "backward_from_source", t->kernel[k].backward_from_source, false);
        }
        rs_jw_key(w, ind + 4, "curves", false);
        fputs("[", w->fp);
        bool first = true;
        for (int i = 0; i < t->n_curves; i++) {
            if (t->curve[i].kernel != k || t->curve[i].derived) continue;
            fputs(first ? "\n" : ",\n", w->fp);
            write_curve(w, &t->curve[i], ind + 6, source);
            first = false;
        }
        fprintf(w->fp, "\n%*s]", ind + 4, "");
        rs_jw_source(w, ind + 4, t->kernel[k].source[0] ? t->kernel[k].source : source, false);
        fprintf(w->fp, "\n%*s}", ind + 2, "");
    }
    fprintf(w->fp, "\n%*s]", ind, "");
}

void rs_kernel_json_write(rs_jw_t *w, const rs_kernel_table_t *t, int ind, const char *source) {
    rs_jw_key(w, ind, "kernels", false);
    fputs("{", w->fp);
    write_list(w, t, ind + 2, source);
    bool first = true;
    for (int i = RS_IMPL_RINGSIM; i < RS_IMPL_COUNT; i++) {
        if (t->impl_kernel[i] <= 0) continue;
        if (first) {
            rs_jw_key(w, ind + 2, "impl_kernels", false);
            fputs("{", w->fp);
        }
        rs_jw_str_at(w, ind + 4, rs_impl_name((rs_impl_t)i), t->kernel[t->impl_kernel[i] - 1].name, first);
        first = false;
    }
    if (!first) fprintf(w->fp, "\n%*s}", ind + 2, "");
    rs_jw_str_at(w, ind + 2, "default_impl", rs_impl_name((rs_impl_t)t->default_impl), false);
    if (t->merge_bw_bytes_per_s > 0) rs_jw_num_at(w, ind + 2, "merge_bw_bytes_per_s", t->merge_bw_bytes_per_s, false);
    rs_jw_source(w, ind + 2, source, false);
    fprintf(w->fp, "\n%*s}", ind, "");
}
