/* calib_print.c - the calibration tables (calib_print.h). */
#include "calib_print.h"

#include "calibration.h"
#include "util.h"

void rs_calib_print(const rs_calib_t *c, FILE *out) {
    fprintf(out, "# kernel: F_eff(B) of one full B x B block step (median over repetitions and ranks)\n");
    fprintf(out, "# %8s %14s %12s %8s\n", "B", "t_block_s", "GFLOP/s", "eff");
    for (int i = 0; i < c->n_blocks; i++)
        fprintf(out, "  %8lld %14.6g %12.3f %8.3f\n", (long long)c->blocks[i], c->t_block_s[i], c->flops_eff[i] * 1e-9,
                c->flops_eff[i] / c->flops_peak);
    if (c->n_sizes > 0) {
        fprintf(out, "# transport: ring exchange (send to p+1, receive from p-1), receive post to completion; t_s fresh (a\n"
                     "# block its sender just wrote, into a buffer the peer never read), reused_s with the buffers rotating as\n"
                     "# the ring's (g_reused: its curve)\n");
        fprintf(out, "# %12s %14s %14s %10s %8s %14s %9s\n", "bytes", "t_s", "fit_s", "GB/s", "g", "reused_s", "g_reused");
        for (int i = 0; i < c->n_sizes; i++) {
            char tr[24] = "-", gr[24] = "-";
            if (c->t_msg_reused_s[i] > 0) {
                snprintf(tr, sizeof tr, "%.6g", c->t_msg_reused_s[i]);
                snprintf(gr, sizeof gr, "%.3f", rs_calibration_xfer_factor_reused(&c->model, (double)c->sizes[i]));
            }
            fprintf(out, "  %12llu %14.6g %14.6g %10.3f %8.3f %14s %9s\n", (unsigned long long)c->sizes[i], c->t_msg_s[i],
                    c->latency_s + (double)c->sizes[i] / c->bw_bytes_per_s, (double)c->sizes[i] / c->t_msg_s[i] * 1e-9,
                    rs_calibration_xfer_factor(&c->model, (double)c->sizes[i]), tr, gr);
        }
        fprintf(out, "# alpha-beta fit: latency %.3g s, bandwidth %.4g GB/s (max fit error %.1f%%); the transfer curve g (the "
                     "model's L + m g(m) / W) goes through every measured size\n",
                c->latency_s, c->bw_bytes_per_s * 1e-9, 100 * c->fit_err_max);
        fprintf(out, "# overlap: each block step with its pass's ring transfers (flows, bytes in all) posted at its start, the\n"
                     "# buffers rotating (t_end_s), and again with fresh transfers (t_end_fresh_s)\n");
        fprintf(out, "# %8s %5s %12s %14s %14s %14s %14s %14s %8s %8s\n", "B", "flows", "bytes", "t_comp_s", "t_comp_busy_s",
                "t_xfer_s", "t_end_s", "t_end_fresh_s", "eta_pt", "sigma");
        for (int i = 0; i < c->n_ov; i++) {
            const rs_calib_overlap_t *v = &c->ov[i];
            char eta[16], ef[24] = "-";
            if (v->t_end_fresh_s > 0) snprintf(ef, sizeof ef, "%.6g", v->t_end_fresh_s);
            fprintf(out, "  %8lld %5d %12llu %14.6g %14.6g %14.6g %14.6g %14s %8s %8.3f\n", (long long)v->block, v->n_flows,
                    (unsigned long long)v->bytes, v->t_comp_s, v->t_comp_busy_s, v->t_xfer_s, v->t_end_s, ef,
                    rs_fmt_num(v->eta, "%.3f", eta, sizeof eta), v->sigma);
        }
        fprintf(out, "# host cost (compute lost per received transfer): %.3g s + %.3g s/byte (median |error| of the "
                     "busy compute %.1f%%)\n", c->model.host_s_per_xfer, c->model.host_s_per_byte, 100 * c->host_fit_err);
        fprintf(out, "# overlap curve: eta_pt by bytes (profile's overlap_curve); one eta for all points would be %.3f "
                     "(median |error| of the completion %.1f%%); sigma (median) %.3f\n", c->eta, 100 * c->eta_fit_err, c->sigma);
    }
    fprintf(out, "# memcpy bandwidth (read + write, one rank): %.3g GB/s\n", c->mem_bw_bytes_per_s * 1e-9);
}
