/* ranges.h - the accepted range of every hardware quantity, in one place: the command-line options
 * (cli/common.c: each option row's min, max) and the profile and tier readers (profile.c) take
 * them from here, so a quantity has the same range and the same message ("must be in [1, 1e+20]")
 * wherever it is given (issue 13: a profile's "bf16": 1e-300 passed as > 0 and printed "inf s").
 *
 * Each RS_RANGE_X expands to "min, max" (an option row's two fields, or rs_range_t's).
 */
#ifndef RS_RANGES_H
#define RS_RANGES_H

#define RS_RANGE_FLOPS 1, 1e20              /* peak FLOP/s of a dtype: --flops, device.flops_per_s.* */
#define RS_RANGE_BW 1, 1e16                 /* bytes/s per direction: --bw, --inter-bw, a tier's bw_bytes_per_s */
#define RS_RANGE_LATENCY 0, 10              /* seconds per message: --latency, a tier's latency_s */
#define RS_RANGE_LAUNCH 0, 10               /* seconds per step: --launch-overhead, calibration.launch_s */
#define RS_RANGE_OVERLAP 0, 1               /* eta: --overlap, calibration.overlap */
#define RS_RANGE_SLOWDOWN 1, 1e6            /* sigma: --slowdown, calibration.comp_slowdown */
#define RS_RANGE_HOST_XFER 0, 10            /* seconds per transfer: --host-cost S, calibration.host_s_per_xfer */
#define RS_RANGE_HOST_BYTE 0, 1e-3          /* seconds per byte: --host-cost :S, calibration.host_s_per_byte */
#define RS_RANGE_JITTER 0, 0.99             /* J: --jitter */
#define RS_RANGE_FACTOR 1, 1e6              /* a straggler's or a degraded hop's factor: --straggler R:F, --degrade H:F */
#define RS_RANGE_MEM_BYTES 1, 1e18          /* device memory: device.memory_bytes */
#define RS_RANGE_MEM_BW 1, 1e16             /* device memory bandwidth: device.memory_bw_bytes_per_s */
#define RS_RANGE_PRICE 0, 1e6               /* per device-hour: --price, device.price_per_device_hour */
#define RS_RANGE_DEVICES_PER_NODE 1, 1e6    /* device.devices_per_node (--gpus-per-node also takes 0: one flat ring) */

typedef struct {
    double min, max;                        /* accepted: min <= x <= max, finite */
} rs_range_t;

/* true when x is finite and in r. Can't fail. */
static inline int rs_range_ok(rs_range_t r, double x) { return x >= r.min && x <= r.max; }

#endif /* RS_RANGES_H */
