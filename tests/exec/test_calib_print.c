/* test_calib_print.c - the calibration tables (exec/calib_print.c) of a hand-made calibration, line for
 * line: the kernel, the transport (a size without a rotating time prints "-"), the overlap points (an
 * undetermined eta and a missing fresh step print "-"), the host cost and overlap summary, memcpy; and
 * a ring of one, which prints no transport. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib_print.h"
#include "test_main.h"

static char *printed(const rs_calib_t *c) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    rs_calib_print(c, f);
    fclose(f);
    return text;
}

RS_TEST(test_print, "print_by_hand") {
    rs_calib_t c;
    memset(&c, 0, sizeof c);
    rs_calibration_default(&c.model);
    c.n_blocks = 1, c.blocks[0] = 64, c.t_block_s[0] = 0.001, c.flops_eff[0] = 2e9, c.flops_peak = 4e9;
    c.mem_bw_bytes_per_s = 2.5e10;
    char *text = printed(&c);
    CU_ASSERT_STRING_EQUAL(text,
        "# kernel: F_eff(B) of one full B x B block step (median over repetitions and ranks)\n"
        "#        B      t_block_s      GFLOP/s      eff\n"
        "        64          0.001        2.000    0.500\n"
        "# memcpy bandwidth (read + write, one rank): 25 GB/s\n");
    free(text);
    c.n_sizes = 2, c.sizes[0] = 1024, c.sizes[1] = 4096, c.t_msg_s[0] = 2e-6, c.t_msg_s[1] = 5e-6, c.t_msg_reused_s[0] = 3e-6;
    c.latency_s = 1e-6, c.bw_bytes_per_s = 1e9, c.fit_err_max = 0.05;
    c.n_ov = 2;
    c.ov[0] = (rs_calib_overlap_t){.block = 64, .bytes = 65536, .n_flows = 1, .t_comp_s = 1e-4, .t_comp_busy_s = 1.2e-4,
                                   .t_xfer_s = 5e-5, .t_end_s = 8e-5, .eta = NAN, .sigma = 1.2};
    c.ov[1] = (rs_calib_overlap_t){.block = 128, .bytes = 262144, .n_flows = 2, .t_comp_s = 4e-4, .t_comp_busy_s = 4.5e-4,
                                   .t_xfer_s = 2e-4, .t_end_s = 3e-4, .t_end_fresh_s = 2.5e-4, .eta = 0.25, .sigma = 1.125};
    c.model.host_s_per_xfer = 4e-6, c.model.host_s_per_byte = 1e-10, c.host_fit_err = 0.02;
    c.eta = 0.3, c.eta_fit_err = 0.1, c.sigma = 1.2;
    text = printed(&c);
    CU_ASSERT_STRING_EQUAL(text,
        "# kernel: F_eff(B) of one full B x B block step (median over repetitions and ranks)\n"
        "#        B      t_block_s      GFLOP/s      eff\n"
        "        64          0.001        2.000    0.500\n"
        "# transport: ring exchange (send to p+1, receive from p-1), receive post to completion; t_s fresh (a\n"
        "# block its sender just wrote, into a buffer the peer never read), reused_s with the buffers rotating as\n"
        "# the ring's (g_reused: its curve)\n"
        "#        bytes            t_s          fit_s       GB/s        g       reused_s  g_reused\n"
        "          1024          2e-06      2.024e-06      0.512    1.000          3e-06     1.000\n"
        "          4096          5e-06      5.096e-06      0.819    1.000              -         -\n"
        "# alpha-beta fit: latency 1e-06 s, bandwidth 1 GB/s (max fit error 5.0%); the transfer curve g (the model's L + m g(m) / W) goes through every measured size\n"
        "# overlap: each block step with its pass's ring transfers (flows, bytes in all) posted at its start, the\n"
        "# buffers rotating (t_end_s), and again with fresh transfers (t_end_fresh_s)\n"
        "#        B flows        bytes       t_comp_s  t_comp_busy_s       t_xfer_s        t_end_s  t_end_fresh_s   eta_pt    sigma\n"
        "        64     1        65536         0.0001        0.00012          5e-05          8e-05              -        -    1.200\n"
        "       128     2       262144         0.0004        0.00045         0.0002         0.0003        0.00025    0.250    1.125\n"
        "# host cost (compute lost per received transfer): 4e-06 s + 1e-10 s/byte (median |error| of the busy compute 2.0%)\n"
        "# overlap curve: eta_pt by bytes (profile's overlap_curve); one eta for all points would be 0.300 (median |error| of the completion 10.0%); sigma (median) 1.200\n"
        "# memcpy bandwidth (read + write, one rank): 25 GB/s\n");
    free(text);
}

RS_TEST_PROGRAM("calib_print")
