/* ranges.c - the table of accepted ranges (ranges.h): one row per hardware quantity, built from the
 * same RS_RANGE_ macros the option rows and the profile reader check against. */
#include "ranges.h"

const rs_range_info_t rs_ranges[] = {
    {"peak FLOP/s of a dtype", RS_RANGE_FLOPS, 0, 0, "--flops", "device.flops_per_s.{fp32,tf32,bf16,fp16,fp8}, kernels.list[i].curves[j].points[k][2]"},
    {"exponentials per second of the special-function units", RS_RANGE_FLOPS, 0, 0, "-", "device.exp_per_s"},
    {"hop bandwidth, bytes/s per direction", RS_RANGE_BW, 0, 0, "--bw, --inter-bw", "tier bw_bytes_per_s"},
    {"latency per message, s", RS_RANGE_LATENCY, 0, 0, "--latency", "tier latency_s"},
    {"launch cost per kernel, s", RS_RANGE_LAUNCH, 0, 0, "--launch-overhead",
     "calibration.launch_s, device.launch_s, device.launch_latency_s (and their _lo, _hi)"},
    {"host time per framework call, s", RS_RANGE_LAUNCH, 0, 0, "--host-call", "calibration.host_call_s"},
    {"overlap eta", RS_RANGE_OVERLAP, 0, 0, "--overlap", "calibration.overlap, calibration.overlap_curve[i][1]"},
    {"compute slowdown sigma", RS_RANGE_SLOWDOWN, 0, 0, "--slowdown", "calibration.comp_slowdown"},
    {"host cost per transfer, s", RS_RANGE_HOST_XFER, 0, 0, "--host-cost S", "calibration.host_s_per_xfer"},
    {"host cost per byte, s", RS_RANGE_HOST_BYTE, 0, 0, "--host-cost S:S_PER_BYTE", "calibration.host_s_per_byte"},
    {"compute jitter J", RS_RANGE_JITTER, 0, 0, "--jitter", "-"},
    {"straggler / degraded-hop factor", RS_RANGE_FACTOR, 0, 0, "--straggler R:F, --degrade H:F", "-"},
    {"device memory, bytes", RS_RANGE_MEM_BYTES, 0, 0, "-", "device.memory_bytes"},
    {"device memory bandwidth, bytes/s", RS_RANGE_MEM_BW, 0, 0, "-", "device.memory_bw_bytes_per_s, kernels.merge_bw_bytes_per_s"},
    {"price per device-hour", RS_RANGE_PRICE, 0, 0, "plan --price", "device.price_per_device_hour"},
    {"devices per node", RS_RANGE_DEVICES_PER_NODE, 0, 1, "-", "device.devices_per_node"},
    {"devices per node (0 = one flat ring)", RS_RANGE_GPUS_PER_NODE, 0, 1, "--gpus-per-node", "-"},
    {"kernel efficiency", RS_RANGE_EFFICIENCY, 1, 0, "-", "calibration.efficiency[i][1], device.decode_bw_eff (and its _lo, _hi)"},
    {"polls to complete a transfer", RS_RANGE_POLLS, 1, 0, "-", "calibration.poll_curve[i][1], calibration.poll_curve_fresh[i][1]"},
    {"poll geometry, columns / rows", RS_RANGE_POLL_GEOM, 0, 1, "-",
     "calibration.poll_chunk_cols, calibration.poll_panel_rows_forward, calibration.poll_panel_rows_backward"},
    {"transfer curve factor g", RS_RANGE_XFER_FACTOR, 1, 0, "-", "calibration.xfer_curve[i][1], calibration.xfer_curve_reused[i][1]"},
    {"point-to-point efficiency of a tier", RS_RANGE_P2P_EFF, 1, 0, "-", "tier p2p_efficiency, p2p_efficiency_lo, p2p_efficiency_hi"},
    {"NICs per node", RS_RANGE_DEVICES_PER_NODE, 0, 1, "-", "device.nics_per_node (at most devices_per_node)"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

void rs_ranges_print(FILE *fp) {
    fprintf(fp, "| quantity | accepted | options | profile / tier fields |\n|---|---|---|---|\n");
    for (const rs_range_info_t *r = rs_ranges; r->quantity; r++)
        fprintf(fp, "| %s | %c%g, %g]%s | %s | %s |\n", r->quantity, r->open_min ? '(' : '[', r->min, r->max,
                r->integer ? ", an integer" : "", r->options, r->fields);
}
