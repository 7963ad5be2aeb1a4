/* calib_profile.c - a calibration as a hardware profile (calib_profile.h). */
#include "calib_profile.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void rs_calib_to_hw(const rs_calib_t *c, const char *name, const char *note, int64_t n_ranks, rs_dtype_t dtype,
                    rs_hw_t *hw) {
    memset(hw, 0, sizeof *hw);
    snprintf(hw->name, sizeof hw->name, "%s", name);
    hw->flops_per_s[dtype] = c->flops_peak;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    hw->mem_bytes = pages > 0 && psz > 0 ? (double)pages * (double)psz : 1e9;
    hw->mem_bw_bytes_per_s = c->mem_bw_bytes_per_s > 0 ? c->mem_bw_bytes_per_s : 1e9;
    hw->devices_per_node = n_ranks;
    snprintf(hw->intra.name, sizeof hw->intra.name, "measured");
    hw->intra.bw_bytes_per_s = c->bw_bytes_per_s > 0 ? c->bw_bytes_per_s : 1e12;
    hw->intra.latency_s = c->latency_s;
    hw->has_inter = false;
    hw->cal = c->model;
    snprintf(hw->calibration_note, sizeof hw->calibration_note, "%s", note);
}
