/* fuzz_profile.c - the profile JSON readers (model/3-machine/profile.h): rs_hw_parse (device profiles
 * and their calibration block), rs_tier_load (tier files), rs_hw_load (the file path: size and NUL
 * checks) and the position table (rs_jsonpos_scan, jsonpos.h) on any text.
 *
 * Contract checked: a refused input gives a one-line message starting with the file's name; an
 * accepted profile has every figure in the range docs/profiles.md states, gives a machine for every
 * dtype it has a rate for (model/3-machine/machine.h: its checks pass or refuse it in one line), and
 * writing it (rs_hw_write_json) and reading it back gives the same profile. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "jsonpos.h"
#include "machine.h"
#include "profile.h"

static void check_refused(int rc, const rs_err_t *err, const char *origin, const uint8_t *data, size_t size) {
    RS_FUZZ_CHECK(strlen(err->msg) < sizeof err->msg);
    rs_fuzz_check_refused_at(rc, err->msg, origin, data, size);
}

static void check_name(const char *s, size_t cap) {
    RS_FUZZ_CHECK(memchr(s, '\0', cap) != NULL);
    RS_FUZZ_CHECK(s[0] != '\0');
}

static void check_tier(const rs_tier_t *t) {
    check_name(t->name, sizeof t->name);
    RS_FUZZ_CHECK(isfinite(t->bw_bytes_per_s) && t->bw_bytes_per_s > 0);
    RS_FUZZ_CHECK(isfinite(t->latency_s) && t->latency_s >= 0);
}

static void check_hw(const rs_hw_t *hw) {
    check_name(hw->name, sizeof hw->name);
    int rates = 0;
    for (int k = 0; k < RS_DTYPE_COUNT; k++) {
        RS_FUZZ_CHECK(isfinite(hw->flops_per_s[k]) && hw->flops_per_s[k] >= 0);
        rates += hw->flops_per_s[k] > 0;
    }
    RS_FUZZ_CHECK(rates > 0);
    RS_FUZZ_CHECK(isfinite(hw->mem_bytes) && hw->mem_bytes > 0);
    RS_FUZZ_CHECK(isfinite(hw->mem_bw_bytes_per_s) && hw->mem_bw_bytes_per_s > 0);
    RS_FUZZ_CHECK(hw->devices_per_node >= 1 && hw->devices_per_node <= 1000000);
    check_tier(&hw->intra);
    if (hw->has_inter) check_tier(&hw->inter);
    RS_FUZZ_CHECK(isfinite(hw->price_per_device_hour) && hw->price_per_device_hour >= 0);
    const rs_calibration_t *c = &hw->cal;
    RS_FUZZ_CHECK(c->n_eff >= 0 && c->n_eff <= RS_MAX_EFF_POINTS);
    for (int k = 0; k < c->n_eff; k++) {
        RS_FUZZ_CHECK(isfinite(c->eff[k].block_tokens) && c->eff[k].block_tokens > 0);
        RS_FUZZ_CHECK(k == 0 || c->eff[k].block_tokens > c->eff[k - 1].block_tokens);
        RS_FUZZ_CHECK(c->eff[k].efficiency > 0 && c->eff[k].efficiency <= 1.5);
    }
    RS_FUZZ_CHECK(isfinite(c->launch_s) && c->launch_s >= 0);
    RS_FUZZ_CHECK(c->overlap >= 0 && c->overlap <= 1);
    RS_FUZZ_CHECK(isfinite(c->comp_slowdown) && c->comp_slowdown >= 1);
    RS_FUZZ_CHECK(c->n_overlap >= 0 && c->n_overlap <= RS_MAX_OVERLAP_POINTS);
    for (int k = 0; k < c->n_overlap; k++) {
        RS_FUZZ_CHECK(isfinite(c->overlap_curve[k].bytes) && c->overlap_curve[k].bytes > 0);
        RS_FUZZ_CHECK(k == 0 || c->overlap_curve[k].bytes > c->overlap_curve[k - 1].bytes);
        RS_FUZZ_CHECK(c->overlap_curve[k].eta >= 0 && c->overlap_curve[k].eta <= 1);
    }
    RS_FUZZ_CHECK(isfinite(c->host_s_per_xfer) && c->host_s_per_xfer >= 0);
    RS_FUZZ_CHECK(isfinite(c->host_s_per_byte) && c->host_s_per_byte >= 0);
    RS_FUZZ_CHECK(memchr(hw->calibration_note, '\0', sizeof hw->calibration_note) != NULL);
    /* the efficiency curve is defined everywhere */
    RS_FUZZ_CHECK(isfinite(rs_calibration_efficiency(c, 1)) && isfinite(rs_calibration_efficiency(c, 1e9)));
    RS_FUZZ_CHECK(isfinite(rs_calibration_overlap(c, 1)) && isfinite(rs_calibration_overlap(c, 1e12)));
}

/* The machine of each dtype: built iff the profile has its rate; its checks (a ring of 8 ranks) pass
 * or say why in one line; eta stays in [0, 1]. */
static void check_machines(const rs_hw_t *hw) {
    for (int k = 0; k < RS_DTYPE_COUNT; k++) {
        rs_machine_t m;
        rs_err_t err = {0};
        int rc = rs_machine_from_hw(hw, (rs_dtype_t)k, &m, &err);
        if (hw->flops_per_s[k] <= 0) {
            rs_fuzz_check_refused(rc, err.msg);
            continue;
        }
        RS_FUZZ_CHECK(rc == 0);
        rc = rs_machine_validate(&m, 8, &err);
        rs_fuzz_note("rs_machine_validate", rc, err.msg);
        if (rc != 0) {
            rs_fuzz_check_refused(rc, err.msg);
            continue;
        }
        for (double bytes = 1; bytes < 1e13; bytes *= 1000) {
            const double eta = rs_machine_overlap(&m, bytes);
            RS_FUZZ_CHECK(eta >= 0 && eta <= 1);
        }
    }
}

static bool same_tier(const rs_tier_t *a, const rs_tier_t *b) {
    return !strcmp(a->name, b->name) && a->bw_bytes_per_s == b->bw_bytes_per_s && a->latency_s == b->latency_s;
}

static bool same_cal(const rs_calibration_t *a, const rs_calibration_t *b) {
    bool same = a->n_eff == b->n_eff && a->launch_s == b->launch_s && a->overlap == b->overlap &&
                a->comp_slowdown == b->comp_slowdown && a->n_overlap == b->n_overlap &&
                a->host_s_per_xfer == b->host_s_per_xfer && a->host_s_per_byte == b->host_s_per_byte;
    for (int k = 0; same && k < a->n_eff; k++)
        same = a->eff[k].block_tokens == b->eff[k].block_tokens && a->eff[k].efficiency == b->eff[k].efficiency;
    for (int k = 0; same && k < a->n_overlap; k++)
        same = a->overlap_curve[k].bytes == b->overlap_curve[k].bytes && a->overlap_curve[k].eta == b->overlap_curve[k].eta;
    return same;
}

/* Every field the writer records is equal (the description is not kept). */
static bool same_hw(const rs_hw_t *a, const rs_hw_t *b) {
    bool same = !strcmp(a->name, b->name) && a->mem_bytes == b->mem_bytes &&
                a->mem_bw_bytes_per_s == b->mem_bw_bytes_per_s && a->devices_per_node == b->devices_per_node &&
                same_tier(&a->intra, &b->intra) && a->has_inter == b->has_inter &&
                (!a->has_inter || same_tier(&a->inter, &b->inter)) &&
                a->price_per_device_hour == b->price_per_device_hour && same_cal(&a->cal, &b->cal) &&
                !strcmp(a->calibration_note, b->calibration_note);
    for (int k = 0; k < RS_DTYPE_COUNT; k++) same = same && a->flops_per_s[k] == b->flops_per_s[k];
    return same;
}

static void round_trip(const rs_hw_t *hw) {
    const char *out = rs_fuzz_path("written", ".json");
    rs_err_t err = {0};
    int rc = rs_hw_write_json(hw, out, NULL, &err);
    if (rc != 0) fprintf(stderr, "write: %s\n", err.msg);
    RS_FUZZ_CHECK(rc == 0);
    rs_hw_t back;
    rc = rs_hw_load(out, &back, &err);
    if (rc != 0) fprintf(stderr, "read back: %s\n", err.msg);
    RS_FUZZ_CHECK(rc == 0);
    RS_FUZZ_CHECK(same_hw(hw, &back));
}

/* The position table takes any text (jsonpos.h: on malformed text it records what it could read). */
static void positions(const char *text) {
    rs_jsonpos_t *p = rs_jsonpos_scan(text);
    RS_FUZZ_CHECK(p != NULL);
    static const char *const probe[] = {"", "name", "device", "device.flops_per_s.bf16", "tiers.intra",
                                        "calibration.efficiency[0][1]", NULL};
    for (int i = 0; probe[i]; i++) {
        int line, col;
        if (rs_jsonpos_find(p, probe[i], &line, &col) == 0) RS_FUZZ_CHECK(line >= 1 && col >= 1);
        else RS_FUZZ_CHECK(line == 0 && col == 0);
    }
    rs_jsonpos_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = rs_fuzz_text(data, size);
    positions(text);

    rs_hw_t hw;
    rs_err_t err = {0};
    const int rc_text = rs_hw_parse(text, "fuzz.json", &hw, &err);
    rs_fuzz_note("rs_hw_parse", rc_text, err.msg);
    if (rc_text == 0) {
        check_hw(&hw);
        check_machines(&hw);
        round_trip(&hw);
    } else {
        check_refused(rc_text, &err, "fuzz.json", data, size);
    }

    /* the same bytes as files: a tier, then a device profile (read_file: NUL bytes, size) */
    const char *path = rs_fuzz_file("input", ".json", data, size);
    rs_tier_t tier;
    memset(&err, 0, sizeof err);
    int rc = rs_tier_load(path, &tier, &err);
    rs_fuzz_note("rs_tier_load", rc, err.msg);
    if (rc == 0) check_tier(&tier);
    else check_refused(rc, &err, path, data, size);

    rs_hw_t hw2;
    memset(&err, 0, sizeof err);
    rc = rs_hw_load(path, &hw2, &err);
    rs_fuzz_note("rs_hw_load", rc, err.msg);
    if (rc == 0) {
        RS_FUZZ_CHECK(memchr(data, '\0', size) == NULL); /* then the file is the text */
        RS_FUZZ_CHECK(rc_text == 0 && same_hw(&hw, &hw2));
    } else {
        check_refused(rc, &err, path, data, size);
    }
    free(text);
    return 0;
}
