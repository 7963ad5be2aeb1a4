/* test_ranges.c - the table of accepted ranges (ranges.c): each row carries its RS_RANGE_ macro's
 * bounds, rs_range_ok's edges, and the Markdown rows `ringsim profiles --ranges` prints. */
#define _GNU_SOURCE /* open_memstream */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "test_main.h"

/* The row of quantity q. */
static const rs_range_info_t *row(const char *q) {
    for (const rs_range_info_t *r = rs_ranges; r->quantity; r++)
        if (!strcmp(r->quantity, q)) return r;
    CU_FAIL_FATAL("no such row");
    return NULL;
}

static void check(const char *q, rs_range_t want) {
    const rs_range_info_t *r = row(q);
    CU_ASSERT_EQUAL(r->min, want.min);
    CU_ASSERT_EQUAL(r->max, want.max);
}

RS_TEST(test_rows, "the rows carry their macros' bounds") {
    int n = 0;
    for (const rs_range_info_t *r = rs_ranges; r->quantity; r++) n++;
    CU_ASSERT_EQUAL(n, 23);
    check("peak FLOP/s of a dtype", (rs_range_t){RS_RANGE_FLOPS});
    check("exponentials per second of the special-function units", (rs_range_t){RS_RANGE_FLOPS});
    check("hop bandwidth, bytes/s per direction", (rs_range_t){RS_RANGE_BW});
    check("latency per message, s", (rs_range_t){RS_RANGE_LATENCY});
    check("host time per framework call, s", (rs_range_t){RS_RANGE_LAUNCH});
    check("overlap eta", (rs_range_t){RS_RANGE_OVERLAP});
    check("device memory bandwidth, bytes/s", (rs_range_t){RS_RANGE_MEM_BW});
    check("devices per node", (rs_range_t){RS_RANGE_DEVICES_PER_NODE});
    check("devices per node (0 = one flat ring)", (rs_range_t){RS_RANGE_GPUS_PER_NODE});
    check("kernel efficiency", (rs_range_t){RS_RANGE_EFFICIENCY});
    check("transfer curve factor g", (rs_range_t){RS_RANGE_XFER_FACTOR});
    check("point-to-point efficiency of a tier", (rs_range_t){RS_RANGE_P2P_EFF});
    check("launch cost per kernel, s", (rs_range_t){RS_RANGE_LAUNCH});
    CU_ASSERT_EQUAL(row("point-to-point efficiency of a tier")->open_min, 1);
    CU_ASSERT_EQUAL(row("NICs per node")->integer, 1);
    CU_ASSERT_EQUAL(row("kernel efficiency")->open_min, 1);
    CU_ASSERT_EQUAL(row("devices per node")->integer, 1);
    CU_ASSERT_STRING_EQUAL(row("peak FLOP/s of a dtype")->options, "--flops");
    CU_ASSERT_STRING_EQUAL(row("device memory, bytes")->options, "-");
    const rs_range_t bw = {RS_RANGE_BW};
    CU_ASSERT_TRUE(rs_range_ok(bw, 1));
    CU_ASSERT_TRUE(rs_range_ok(bw, 1e16));
    CU_ASSERT_FALSE(rs_range_ok(bw, 0.5));
    CU_ASSERT_FALSE(rs_range_ok(bw, 1.0000000000000002e16));
    CU_ASSERT_FALSE(rs_range_ok(bw, NAN));
}

RS_TEST(test_print, "the Markdown rows") {
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    rs_ranges_print(fp);
    fclose(fp);
    static const char head[] = "| quantity | accepted | options | profile / tier fields |\n|---|---|---|---|\n"
                               "| peak FLOP/s of a dtype | [1, 1e+20] | --flops | device.flops_per_s.{fp32,tf32,bf16,fp16,fp8}, "
                               "kernels.list[i].curves[j].points[k][2] |\n";
    CU_ASSERT_EQUAL(strncmp(buf, head, sizeof head - 1), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\n| kernel efficiency | (0, 1] | - | calibration.efficiency[i][1], device.decode_bw_eff (and its _lo, _hi) |\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\n| devices per node | [1, 1e+06], an integer | - | device.devices_per_node |\n"));
    int lines = 0;
    for (const char *c = buf; *c; c++) lines += *c == '\n';
    CU_ASSERT_EQUAL(lines, 2 + 23);
    free(buf);
}

RS_TEST_PROGRAM("ranges")
