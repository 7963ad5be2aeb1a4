/* profile_write.c - a profile written as JSON (rs_hw_write_json, profile.h): each double with the
 * fewest digits that read back to the same value (rs_jw_num, checked with strtod), so reading a
 * written profile is exact and the file stays readable; the kernels section by kernel_json.c. */
#include "profile.h"

#include <stdbool.h>
#include <stdio.h>

#include "jsonw.h"
#include "kernel_json.h"
#include "output.h"

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

/* A span (profile.h) as key, key_lo, key_hi when given. */
static void put_span(rs_jw_t *w, int ind, const char *key, rs_span_t s) {
    if (!rs_span_given(s)) return;
    char k[64];
    rs_jw_num_at(w, ind, key, s.point, false);
    snprintf(k, sizeof k, "%s_lo", key), rs_jw_num_at(w, ind, k, s.lo, false);
    snprintf(k, sizeof k, "%s_hi", key), rs_jw_num_at(w, ind, k, s.hi, false);
}

static void put_tier(rs_jw_t *w, const char *key, const rs_tier_t *t, const char *source, bool first) {
    rs_jw_key(w, 4, key, first);
    fputs("{", w->fp);
    rs_jw_str_at(w, 6, "name", t->name, true);
    rs_jw_num_at(w, 6, "bw_bytes_per_s", t->bw_bytes_per_s, false);
    rs_jw_num_at(w, 6, "latency_s", t->latency_s, false);
    put_span(w, 6, "p2p_efficiency", t->p2p_eff);
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
    if (hw->sm_count > 0) rs_jw_key(w, 4, "sm_count", false), fprintf(w->fp, "%lld", (long long)hw->sm_count);
    if (hw->exp_per_s > 0) {
        rs_jw_num_at(w, 4, "exp_per_s", hw->exp_per_s, false);
        if (hw->exp_src.source[0]) rs_jw_str_at(w, 4, "exp_per_s_source", hw->exp_src.source, false);
    }
    if (hw->price_per_device_hour != 0) rs_jw_num_at(w, 4, "price_per_device_hour", hw->price_per_device_hour, false);
    if (hw->nics_per_node > 0) {
        rs_jw_key(w, 4, "nics_per_node", false);
        fprintf(w->fp, "%lld", (long long)hw->nics_per_node);
    }
    put_span(w, 4, "launch_s", hw->launch_s);
    put_span(w, 4, "launch_latency_s", hw->launch_latency_s);
    put_span(w, 4, "decode_bw_eff", hw->decode_bw_eff);
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
    if (hw->cal.host_call_given) rs_jw_num_at(w, 4, "host_call_s", hw->cal.host_call_s, false);
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
