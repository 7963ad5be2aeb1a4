/* profile.c - reading hardware profiles and tiers (profile.h; file format and validation rules:
 * docs/profiles.md): a preset name or a file (presets.h), its JSON checked key by key with every
 * message at origin:line:column (profile_json.h), the device, its tiers and its calibration; the
 * "kernels" section by kernel_json.c. Writing: profile_write.c. */
#include "profile.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpos.h"
#include "kernel_json.h"
#include "presets.h"
#include "profile_json.h"
#include "ranges.h"

/* ------------------------------------------------------------------------------------------------
 * Tiers
 * ---------------------------------------------------------------------------------------------- */
static const char *const source_key[] = {"source", NULL}; /* the text every object may carry */
static const char *const tier_fields[] = {"name", "description", "bw_bytes_per_s", "latency_s", "p2p_efficiency",
                                          "p2p_efficiency_lo", "p2p_efficiency_hi", NULL};
static const char *const tier_figures[] = {"bw_bytes_per_s", "latency_s", "p2p_efficiency", "p2p_efficiency_lo",
                                           "p2p_efficiency_hi", NULL};

static const char *const bound_names[RS_BOUND_COUNT] = {"point", "fast", "slow"};
const char *rs_bound_name(rs_bound_t b) { return rs_enum_name(bound_names, RS_BOUND_COUNT, (int)b); }
int rs_bound_parse(const char *s, rs_bound_t *out) {
    const int k = rs_enum_parse(bound_names, RS_BOUND_COUNT, s);
    if (k >= 0) *out = (rs_bound_t)k;
    return k >= 0 ? 0 : -1;
}

double rs_span_at(rs_span_t s, rs_bound_t b, bool higher_is_faster, double none) {
    if (!rs_span_given(s)) return none;
    if (b == RS_BOUND_POINT) return s.point;
    return (b == RS_BOUND_FAST) == higher_is_faster ? s.hi : s.lo;
}

/* o.key with o.key_lo and o.key_hi, each in range: a figure and the range its sources leave. The
 * point alone stands for all three; a bound needs the point; lo <= point <= hi. Returns 1 if given,
 * 0 if absent, -1 with a message. */
static int parse_span(pj_obj_t o, const char *key, rs_range_t range, rs_span_t *out) {
    char klo[64], khi[64], path[160];
    snprintf(klo, sizeof klo, "%s_lo", key), snprintf(khi, sizeof khi, "%s_hi", key);
    *out = (rs_span_t){0, 0, 0};
    const int got = pj_num(o, key, false, range, &out->point);
    const int glo = got < 0 ? -1 : pj_num(o, klo, false, range, &out->lo);
    const int ghi = glo < 0 ? -1 : pj_num(o, khi, false, range, &out->hi);
    if (ghi < 0) return -1;
    if (!got && (glo || ghi)) return pj_fail(o.v, pj_join(path, sizeof path, o.path, glo ? klo : khi), "needs %s (the value used)", key);
    if (!got) return 0;
    if (!glo) out->lo = out->point;
    if (!ghi) out->hi = out->point;
    if (!(out->lo <= out->point)) return pj_fail(o.v, pj_join(path, sizeof path, o.path, klo), "must be <= %s = %g, got %g", key, out->point, out->lo);
    if (!(out->point <= out->hi)) return pj_fail(o.v, pj_join(path, sizeof path, o.path, khi), "must be >= %s = %g, got %g", key, out->point, out->hi);
    return 1;
}

static int parse_tier_text(const char *text, const char *origin, rs_tier_t *out, rs_rate_source_t *src, rs_err_t *err);

static bool is_preset(const char *origin) { return origin && !strncmp(origin, "preset:", 7); }

/* The source of figure key of obj (its "<key>_source", else the object's "source") and the kind it
 * says (rs_rate_kind_of_text; the user's own file is user-given unless ringsim measured it). */
static void figure_source(const char *origin, const json_t *obj, const char *key, rs_rate_source_t *out) {
    char sk[96];
    snprintf(sk, sizeof sk, "%s_source", key);
    const json_t *t = json_object_get(obj, sk);
    if (!json_is_string(t)) t = json_object_get(obj, "source");
    const char *text = json_is_string(t) ? json_string_value(t) : "";
    out->kind = rs_rate_kind_of_text(text, is_preset(origin));
    if (out->kind == RS_RKIND_USER) snprintf(out->source, sizeof out->source, "%s%s%s", origin, *text ? ": " : "", text);
    else snprintf(out->source, sizeof out->source, "%s", *text ? text : "not given");
}

/* A tier at path: an object, or a string naming a tier preset; src (may be NULL) gets the sources of
 * its bandwidth [0] and latency [1]. */
static int parse_tier_value(const pj_ctx_t *v, const char *path, const json_t *j, rs_tier_t *out, rs_rate_source_t *src) {
    memset(out, 0, sizeof *out);
    if (json_is_string(j)) {
        const char *want = json_string_value(j);
        const char *name = preset_find(rs_tier_preset_names(), want);
        if (!name) {
            char known[1024];
            preset_list(known, sizeof known, rs_tier_preset_names());
            return pj_fail(v, path, "unknown tier preset '%s' (known: %s)", want, known);
        }
        char origin[RS_NAME_LEN + 16];
        snprintf(origin, sizeof origin, "preset:%s", name);
        return parse_tier_text(rs_preset_text(name), origin, out, src, v->err);
    }
    if (!json_is_object(j))
        return pj_fail(v, path, "must be an object or a tier preset name, got %s", rs_json_type_name(j));
    const pj_obj_t tier = {v, path, j};
    if (pj_check_keys(tier, tier_fields, source_key, tier_figures)) return -1;
    if (pj_str(tier, "name", true, true, out->name, sizeof out->name) < 0) return -1;
    if (pj_str(tier, "description", false, false, NULL, 4096) < 0) return -1;
    if (pj_num(tier, "bw_bytes_per_s", true, (rs_range_t){RS_RANGE_BW}, &out->bw_bytes_per_s) < 0) return -1;
    if (pj_num(tier, "latency_s", true, (rs_range_t){RS_RANGE_LATENCY}, &out->latency_s) < 0) return -1;
    if (src) figure_source(v->origin, j, "bw_bytes_per_s", &src[0]), figure_source(v->origin, j, "latency_s", &src[1]);
    if (parse_span(tier, "p2p_efficiency", (rs_range_t){RS_RANGE_P2P_EFF}, &out->p2p_eff) < 0) return -1;
    if (rs_span_given(out->p2p_eff) && !(out->p2p_eff.lo > 0))
        return pj_fail(v, pj_join((char[160]){0}, 160, path, "p2p_efficiency_lo"), "must be > 0, got %g", out->p2p_eff.lo);
    if (src && rs_span_given(out->p2p_eff)) { /* the rate costed is the nominal one times the efficiency: both sources */
        rs_rate_source_t eff;
        figure_source(v->origin, j, "p2p_efficiency", &eff);
        char nominal[RS_RATE_SOURCE_LEN];
        snprintf(nominal, sizeof nominal, "%s", src[0].source);
        snprintf(src[0].source, sizeof src[0].source, "the nominal rate x the p2p efficiency %.3g (%.150s); nominal: %.150s", out->p2p_eff.point,
                 eff.source, nominal);
        if (eff.kind == RS_RKIND_ESTIMATED || eff.kind == RS_RKIND_USER) src[0].kind = eff.kind;
    }
    return 0;
}

static int parse_tier_text(const char *text, const char *origin, rs_tier_t *out, rs_rate_source_t *src, rs_err_t *err) {
    rs_jsonpos_t *pos;
    json_t *root = pj_load(text, origin, &pos, err);
    if (!root) return -1;
    pj_ctx_t v = {origin, pos, err};
    int rc = parse_tier_value(&v, "", root, out, src);
    json_decref(root);
    rs_jsonpos_free(pos);
    return rc;
}

/* A tier and where to put its sources, for load(). */
typedef struct {
    rs_tier_t *tier;
    rs_rate_source_t *src;
} tier_out_t;

static int tier_parse(const char *text, const char *origin, void *out, rs_err_t *err) {
    const tier_out_t *o = out;
    return parse_tier_text(text, origin, o->tier, o->src, err);
}

/* A kind of profile: its presets, what names it when empty ("tier"), what when unknown ("hardware
 * profile"), and its parser. */
typedef struct {
    const char *const *names;
    const char *what, *kind;
    int (*parse)(const char *text, const char *origin, void *out, rs_err_t *err);
} profile_kind_t;

/* A preset of kind k or a file, parsed into out. Returns 0 or -1 with err. */
static int load(const char *name_or_path, const profile_kind_t *k, void *out, rs_err_t *err) {
    if (!name_or_path || !*name_or_path) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: empty name", k->what);
    preset_text_t pt;
    int rc = preset_text_of(name_or_path, k->names, k->kind, &pt, err) == 0 ? k->parse(pt.text, pt.origin, out, err) : -1;
    free(pt.owned);
    return rc;
}

int rs_tier_load_src(const char *name_or_path, rs_tier_t *out, rs_rate_source_t src[2], rs_err_t *err) {
    const profile_kind_t k = {rs_tier_preset_names(), "tier", "tier", tier_parse};
    tier_out_t o = {out, src};
    return load(name_or_path, &k, &o, err);
}

int rs_tier_load(const char *name_or_path, rs_tier_t *out, rs_err_t *err) { return rs_tier_load_src(name_or_path, out, NULL, err); }

/* ------------------------------------------------------------------------------------------------
 * Device profiles
 * ---------------------------------------------------------------------------------------------- */
static const char *const root_fields[] = {"name", "description", "device", "tiers", "calibration", "kernels", NULL};
static const char *const device_fields[] = {"flops_per_s", "memory_bytes", "memory_bw_bytes_per_s", "devices_per_node",
                                            "price_per_device_hour", "nics_per_node", "launch_s", "launch_s_lo",
                                            "launch_s_hi", "launch_latency_s", "launch_latency_s_lo",
                                            "launch_latency_s_hi", "sm_count", "decode_bw_eff", "decode_bw_eff_lo",
                                            "decode_bw_eff_hi", NULL};
static const char *const tiers_fields[] = {"intra", "inter", NULL};
static const char *const calib_fields[] = {"efficiency",      "launch_s",        "overlap", "overlap_curve", "comp_slowdown",
                                           "host_s_per_xfer", "host_s_per_byte", "host_call_s", "note",    "poll_curve", "poll_curve_fresh", "poll_chunk_cols",
                                           "poll_panel_rows_forward", "poll_panel_rows_backward", "xfer_curve",
                                           "xfer_curve_reused", NULL};
static const char *const rate_keys[] = {"fp32", "tf32", "bf16", "fp16", "fp8", NULL}; /* dtype_names + NULL */
static const char *const calib_figures[] = {"efficiency",    "launch_s",        "overlap",         "overlap_curve",
                                            "comp_slowdown", "host_s_per_xfer", "host_s_per_byte", "host_call_s", "poll_curve", "poll_curve_fresh",
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

static int parse_pairs(const pj_ctx_t *v, const json_t *j, const pairs_spec_t *sp, double *xs, double *ys, int *n_out) {
    char ep[128], vp[160];
    if (!json_is_array(j))
        return pj_fail(v, sp->path, "must be an array of [%s, %s] pairs, got %s", sp->xname, sp->yname, rs_json_type_name(j));
    size_t n = json_array_size(j);
    if (n < 1 || n > (size_t)sp->max)
        return pj_fail(v, sp->path, "must hold 1 to %d [%s, %s] pairs, got %zu", sp->max, sp->xname, sp->yname, n);
    for (size_t k = 0; k < n; k++) {
        json_t *pt = json_array_get(j, k);
        snprintf(ep, sizeof ep, "%s[%zu]", sp->path, k);
        if (!json_is_array(pt) || json_array_size(pt) != 2)
            return pj_fail(v, ep, "must be a pair [%s, %s], got %s", sp->xname, sp->yname, rs_json_type_name(pt));
        double x[2];
        for (size_t c = 0; c < 2; c++) {
            json_t *e = json_array_get(pt, c);
            snprintf(vp, sizeof vp, "%s[%zu]", ep, c);
            if (!json_is_number(e)) return pj_fail(v, vp, "must be a number, got %s", rs_json_type_name(e));
            x[c] = json_number_value(e);
            if (!isfinite(x[c])) return pj_fail(v, vp, "must be finite, got %g", x[c]);
        }
        snprintf(vp, sizeof vp, "%s[0]", ep);
        if (!(x[0] > 0)) return pj_fail(v, vp, "%s must be > 0, got %g", sp->xname, x[0]);
        if (k > 0 && !(x[0] > xs[k - 1]))
            return pj_fail(v, vp, "%s must increase strictly, got %g after %g", sp->xname, x[0], xs[k - 1]);
        snprintf(vp, sizeof vp, "%s[1]", ep);
        if (!((sp->ylo_open ? x[1] > sp->ylo : x[1] >= sp->ylo) && x[1] <= sp->yhi))
            return pj_fail(v, vp, "%s must be in %c%g, %g], got %g", sp->yname, sp->ylo_open ? '(' : '[', sp->ylo, sp->yhi, x[1]);
        xs[k] = x[0], ys[k] = x[1];
    }
    *n_out = (int)n;
    return 0;
}

/* calibration.efficiency: [[block_tokens, efficiency], ...], efficiency in (0, 1] (a fraction of the peak); and
 * calibration.overlap_curve: [[bytes, eta], ...], eta in [0, 1]; x > 0 strictly increasing. */
static int parse_curve(const pj_ctx_t *v, const json_t *j, bool overlap, rs_calibration_t *cal) {
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
static int parse_points(const pj_ctx_t *v, const json_t *j, const pairs_spec_t *sp, void *pts, size_t stride, int *n) {
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
static int parse_poll(const pj_ctx_t *v, const json_t *cal, rs_poll_model_t *pm) {
    static const char *const geom[] = {"poll_chunk_cols", "poll_panel_rows_forward", "poll_panel_rows_backward"};
    const json_t *curve = json_object_get(cal, "poll_curve"), *fresh = json_object_get(cal, "poll_curve_fresh");
    int n_geom = 0;
    for (int i = 0; i < 3; i++) n_geom += json_object_get(cal, geom[i]) != NULL;
    if (fresh && !curve)
        return pj_fail(v, "calibration.poll_curve_fresh", "needs calibration.poll_curve (the curve of the reused transfers)");
    if (!curve && n_geom == 0) return 0;
    if (!curve || n_geom < 3)
        return pj_fail(v, "calibration.poll_curve", "the poll model needs poll_curve, poll_chunk_cols, poll_panel_rows_forward "
                                                  "and poll_panel_rows_backward together");
    int64_t *dst[3] = {&pm->chunk_cols, &pm->panel_rows[0], &pm->panel_rows[1]};
    const rs_range_t gr = {RS_RANGE_POLL_GEOM};
    for (int i = 0; i < 3; i++) {
        double x = 0;
        if (pj_num((pj_obj_t){v, "calibration", cal}, geom[i], true, gr, &x) < 0) return -1;
        char kp[64];
        snprintf(kp, sizeof kp, "calibration.%s", geom[i]);
        if (x != floor(x)) return pj_fail(v, kp, "must be an integer in [%g, %g], got %g", gr.min, gr.max, x);
        *dst[i] = (int64_t)x;
    }
    const pairs_spec_t sp = {"calibration.poll_curve", "bytes", "polls", RS_MAX_OVERLAP_POINTS, RS_RANGE_POLLS, true};
    const pairs_spec_t spf = {"calibration.poll_curve_fresh", "bytes", "polls", RS_MAX_OVERLAP_POINTS, RS_RANGE_POLLS, true};
    if (parse_points(v, curve, &sp, pm->curve, sizeof pm->curve[0], &pm->n) < 0) return -1;
    return fresh ? parse_points(v, fresh, &spf, pm->fresh, sizeof pm->fresh[0], &pm->n_fresh) : 0;
}

/* calibration.xfer_curve: [[bytes, g], ...], the transfer curve (calibration.h); absent: g = 1. */
static int parse_xfer(const pj_ctx_t *v, const json_t *cal, rs_calibration_t *out) {
    const json_t *curve = json_object_get(cal, "xfer_curve");
    if (!curve && json_object_get(cal, "xfer_curve_reused"))
        return pj_fail(v, "calibration.xfer_curve_reused", "needs calibration.xfer_curve (the curve of the other transfers)");
    if (!curve) return 0;
    const pairs_spec_t sp = {"calibration.xfer_curve", "bytes", "g", RS_MAX_OVERLAP_POINTS, RS_RANGE_XFER_FACTOR, true};
    if (parse_points(v, curve, &sp, out->xfer_curve, sizeof out->xfer_curve[0], &out->n_xfer)) return -1;
    /* calibration.xfer_curve_reused: the same for a receive into the buffer sent at the step before */
    const json_t *reused = json_object_get(cal, "xfer_curve_reused");
    if (!reused) return 0;
    const pairs_spec_t sr = {"calibration.xfer_curve_reused", "bytes", "g", RS_MAX_OVERLAP_POINTS, RS_RANGE_XFER_FACTOR, true};
    return parse_points(v, reused, &sr, out->xfer_curve_reused, sizeof out->xfer_curve_reused[0], &out->n_xfer_reused);
}

/* Where the device's rates come from (rs_hw_t.src): the tiers' records, the merge bandwidth (the
 * kernels' own figure, else the device's memory bandwidth), the launch cost (calibration.launch_s, else
 * device.launch_s),
 * the peak and the efficiency curve (the machine picks the attention rate's record from these and
 * its kernel: rs_machine_set_kernel). */
static void rate_sources(const char *origin, const json_t *dev, const json_t *rates, const json_t *cal, const json_t *kern, rs_hw_t *hw) {
    const bool preset = is_preset(origin);
    hw->preset = preset;
    hw->src.rate[RS_RATE_INTRA_BW] = hw->tier_src[0][0];
    if (hw->has_inter) hw->src.rate[RS_RATE_INTER_BW] = hw->tier_src[1][0];
    else rs_rate_set(&hw->src, RS_RATE_INTER_BW, RS_RKIND_ESTIMATED, "no inter-node tier in the profile");
    hw->src.rate[RS_RATE_LATENCY] = hw->tier_src[0][1];
    figure_source(origin, rates, "bf16", &hw->peak_src);
    if (dev && json_object_get(dev, "decode_bw_eff")) figure_source(origin, dev, "decode_bw_eff", &hw->decode_src);
    if (kern && json_object_get(kern, "merge_bw_bytes_per_s")) figure_source(origin, kern, "merge_bw_bytes_per_s", &hw->src.rate[RS_RATE_MERGE_BW]);
    else figure_source(origin, dev, "memory_bw_bytes_per_s", &hw->src.rate[RS_RATE_MERGE_BW]);
    rs_rate_source_t *launch = &hw->src.rate[RS_RATE_LAUNCH];
    if (cal && json_object_get(cal, "launch_s")) {
        figure_source(origin, cal, "launch_s", launch);
        if (launch->kind == RS_RKIND_USER && hw->calibration_note[0]) /* calibrate's note in calibration.note */
            launch->kind = rs_rate_kind_of_text(hw->calibration_note, false);
    } else if (dev && json_object_get(dev, "launch_s")) { /* the device's launch cost (a range) */
        figure_source(origin, dev, "launch_s", launch);
    } else {
        rs_rate_set(&hw->src, RS_RATE_LAUNCH, RS_RKIND_ESTIMATED, "not given, 0 s per launch: the profile has no launch cost");
    }
    if (cal && json_object_get(cal, "efficiency")) {
        figure_source(origin, cal, "efficiency", &hw->eff_src);
        if (hw->eff_src.kind == RS_RKIND_USER && hw->calibration_note[0]) hw->eff_src.kind = rs_rate_kind_of_text(hw->calibration_note, false);
    }
    hw->src.rate[RS_RATE_ATTN] = hw->peak_src;
}

static int parse_device(const pj_ctx_t *v, const json_t *root, rs_hw_t *out) {
    int bad;
    const pj_obj_t top = {v, "", root};
    if (pj_check_keys(top, root_fields, source_key, NULL)) return -1;
    if (pj_str(top, "name", true, true, out->name, sizeof out->name) < 0) return -1;
    if (pj_str(top, "description", false, false, NULL, 4096) < 0) return -1;

    json_t *dev = pj_obj(top, "device", true, &bad);
    if (bad) return -1;
    const pj_obj_t device = {v, "device", dev};
    if (pj_check_keys(device, device_fields, source_key, device_fields)) return -1;
    json_t *fl = pj_obj(device, "flops_per_s", true, &bad);
    if (bad) return -1;
    const pj_obj_t rates = {v, "device.flops_per_s", fl};
    if (pj_check_keys(rates, rate_keys, source_key, rate_keys)) return -1;
    int n_rates = 0;
    for (int k = 0; k < RS_DTYPE_COUNT; k++) {
        int got = pj_num(rates, rs_dtype_name((rs_dtype_t)k), false, (rs_range_t){RS_RANGE_FLOPS}, &out->flops_per_s[k]);
        if (got < 0) return -1;
        n_rates += got;
    }
    if (!n_rates) return pj_fail(v, "device.flops_per_s", "needs at least one rate (keys: fp32, tf32, bf16, fp16, fp8)");
    if (pj_num(device, "memory_bytes", true, (rs_range_t){RS_RANGE_MEM_BYTES}, &out->mem_bytes) < 0) return -1;
    if (pj_num(device, "memory_bw_bytes_per_s", true, (rs_range_t){RS_RANGE_MEM_BW}, &out->mem_bw_bytes_per_s) < 0) return -1;
    json_t *g = json_object_get(dev, "devices_per_node");
    if (!g) return pj_fail(v, "device", "missing key 'devices_per_node'");
    if (!json_is_integer(g)) return pj_fail(v, "device.devices_per_node", "must be an integer, got %s", rs_json_type_name(g));
    json_int_t gv = json_integer_value(g);
    const rs_range_t gr = {RS_RANGE_DEVICES_PER_NODE};
    if (!rs_range_ok(gr, (double)gv))
        return pj_fail(v, "device.devices_per_node", "must be in [%g, %g], got %lld", gr.min, gr.max, (long long)gv);
    out->devices_per_node = (int64_t)gv;
    if (pj_num(device, "price_per_device_hour", false, (rs_range_t){RS_RANGE_PRICE}, &out->price_per_device_hour) < 0) return -1;
    const json_t *sm = json_object_get(dev, "sm_count");
    if (sm && (!json_is_integer(sm) || json_integer_value(sm) < 1 || json_integer_value(sm) > 1000000))
        return pj_fail(v, "device.sm_count", "must be an integer in [1, 1000000] (SMs or CUs of the device)");
    out->sm_count = sm ? (int64_t)json_integer_value(sm) : 0;
    double nics = 0;
    const int got_nics = pj_num(device, "nics_per_node", false, (rs_range_t){RS_RANGE_DEVICES_PER_NODE}, &nics);
    if (got_nics < 0) return -1;
    if (got_nics && (nics != floor(nics) || nics > (double)out->devices_per_node))
        return pj_fail(v, "device.nics_per_node", "must be an integer in [1, devices_per_node = %lld], got %g",
                       (long long)out->devices_per_node, nics);
    out->nics_per_node = (int64_t)nics;
    if (parse_span(device, "launch_s", (rs_range_t){RS_RANGE_LAUNCH}, &out->launch_s) < 0) return -1;
    if (parse_span(device, "launch_latency_s", (rs_range_t){RS_RANGE_LAUNCH}, &out->launch_latency_s) < 0) return -1;
    if (parse_span(device, "decode_bw_eff", (rs_range_t){RS_RANGE_EFFICIENCY}, &out->decode_bw_eff) < 0) return -1;
    if (rs_span_given(out->decode_bw_eff) && !(out->decode_bw_eff.lo > 0))
        return pj_fail(v, "device.decode_bw_eff", "must be in (0, 1] (a fraction of the memory bandwidth), got %g", out->decode_bw_eff.lo);

    json_t *tiers = pj_obj(top, "tiers", true, &bad);
    if (bad) return -1;
    const pj_obj_t tier_set = {v, "tiers", tiers};
    if (pj_check_keys(tier_set, tiers_fields, source_key, NULL)) return -1;
    json_t *intra = json_object_get(tiers, "intra");
    if (!intra) return pj_fail(v, "tiers", "missing key 'intra'");
    if (parse_tier_value(v, "tiers.intra", intra, &out->intra, out->tier_src[0])) return -1;
    json_t *inter = json_object_get(tiers, "inter");
    if (inter) {
        if (parse_tier_value(v, "tiers.inter", inter, &out->inter, out->tier_src[1])) return -1;
        out->has_inter = true;
    }

    out->cal.overlap = 1.0;
    out->cal.comp_slowdown = 1.0;
    json_t *cal = pj_obj(top, "calibration", false, &bad);
    if (bad) return -1;
    if (cal) {
        const pj_obj_t calib = {v, "calibration", cal};
        if (pj_check_keys(calib, calib_fields, source_key, calib_figures)) return -1;
        json_t *eff = json_object_get(cal, "efficiency");
        if (eff && parse_curve(v, eff, false, &out->cal)) return -1;
        if (pj_num(calib, "launch_s", false, (rs_range_t){RS_RANGE_LAUNCH}, &out->cal.launch_s) < 0) return -1;
        if (pj_num(calib, "overlap", false, (rs_range_t){RS_RANGE_OVERLAP}, &out->cal.overlap) < 0) return -1;
        if (pj_num(calib, "comp_slowdown", false, (rs_range_t){RS_RANGE_SLOWDOWN}, &out->cal.comp_slowdown) < 0) return -1;
        json_t *oc = json_object_get(cal, "overlap_curve");
        if (oc && json_object_get(cal, "overlap"))
            return pj_fail(v, "calibration.overlap_curve", "give either 'overlap' (one eta) or 'overlap_curve', not both");
        if (oc && parse_curve(v, oc, true, &out->cal)) return -1;
        if (pj_num(calib, "host_s_per_xfer", false, (rs_range_t){RS_RANGE_HOST_XFER}, &out->cal.host_s_per_xfer) < 0) return -1;
        if (pj_num(calib, "host_s_per_byte", false, (rs_range_t){RS_RANGE_HOST_BYTE}, &out->cal.host_s_per_byte) < 0) return -1;
        const int hc = pj_num(calib, "host_call_s", false, (rs_range_t){RS_RANGE_LAUNCH}, &out->cal.host_call_s);
        if (hc < 0) return -1;
        out->cal.host_call_given = hc > 0;
        if (parse_poll(v, cal, &out->cal.poll)) return -1;
        if (parse_xfer(v, cal, &out->cal)) return -1;
        if (pj_str(calib, "note", false, false, out->calibration_note,
                    sizeof out->calibration_note) < 0)
            return -1;
    }
    json_t *kern = json_object_get(root, "kernels");
    if (kern && rs_kernel_json_parse(kern, v->origin, v->pos, out, &out->kernels, v->err)) return -1;
    out->kernels.sm_count = out->sm_count;
    rate_sources(v->origin, dev, fl, cal, kern, out);
    return 0;
}

int rs_hw_parse(const char *text, const char *origin, rs_hw_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    if (!text) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: no text", origin ? origin : "profile");
    if (!origin) origin = "profile";
    rs_jsonpos_t *pos;
    json_t *root = pj_load(text, origin, &pos, err);
    if (!root) return -1;
    pj_ctx_t v = {origin, pos, err};
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

int rs_hw_load_as(const char *path, const char *display, rs_hw_t *out, rs_err_t *err) {
    char *text = rs_read_text_file(path, RS_PROFILE_MAX_BYTES, "JSON text", err);
    if (!text) return -1;
    const int rc = rs_hw_parse(text, display, out, err);
    free(text);
    return rc;
}

int rs_hw_load(const char *name_or_path, rs_hw_t *out, rs_err_t *err) {
    const profile_kind_t k = {rs_hw_preset_names(), "profile", "hardware profile", hw_parse};
    return load(name_or_path, &k, out, err);
}

