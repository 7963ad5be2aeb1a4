/* ranges.h - the accepted range of every hardware quantity, in one place: the command-line options
 * (cli/shared_opts.c: each option row's min, max; plan's --price, cli/cmd_plan.c) and the profile
 * and tier readers (profile.c) take them from here, so a quantity has the same range and the same
 * message ("must be in [1, 1e+20]") wherever it is given (a check "> 0" alone lets a profile's
 * "bf16": 1e-300 through, which prints "inf s").
 *
 * Each RS_RANGE_X expands to "min, max" (an option row's two fields, or rs_range_t's): a constant
 * expression, so option tables can use it. rs_ranges[] lists the same macros with the options and
 * profile fields that take each quantity: `ringsim profiles --ranges` prints it, docs/profiles.md
 * carries that output (CTest docs_generated compares the two).
 */
#ifndef RS_RANGES_H
#define RS_RANGES_H

#include <stdio.h>

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
#define RS_RANGE_GPUS_PER_NODE 0, 1e6       /* --gpus-per-node: 0 = one flat ring */
#define RS_RANGE_EFFICIENCY 0, 1            /* calibration.efficiency[i][1], above 0: a fraction of the peak */
#define RS_RANGE_POLLS 0, 1e6               /* calibration.poll_curve[i][1], above 0 */
#define RS_RANGE_POLL_GEOM 1, 1e6           /* calibration.poll_chunk_cols, poll_panel_rows_*: integers */
#define RS_RANGE_XFER_FACTOR 0, 1e6         /* calibration.xfer_curve[i][1], g above 0 */
#define RS_RANGE_P2P_EFF 0, 1               /* a tier's p2p_efficiency (_lo, _hi), above 0 */

typedef struct {
    double min, max;                        /* accepted: min <= x <= max, finite */
} rs_range_t;

/* true when x is finite and in r. Can't fail. */
static inline int rs_range_ok(rs_range_t r, double x) { return x >= r.min && x <= r.max; }

typedef struct {
    const char *quantity;   /* "peak FLOP/s of a dtype" */
    double min, max;        /* the RS_RANGE_ macro's */
    int open_min;           /* 1: min itself is refused, "(0, 1]" */
    int integer;            /* 1: an integer */
    const char *options;    /* the command-line options, "-" when none */
    const char *fields;     /* the profile / tier fields, "-" when none */
} rs_range_info_t;

/* Every row of the table, NULL-quantity terminated. */
extern const rs_range_info_t rs_ranges[];

/* The table as Markdown rows (the header, then one row per quantity) into fp. Can't fail. */
void rs_ranges_print(FILE *fp);

#endif /* RS_RANGES_H */
