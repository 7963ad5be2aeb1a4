/* calib_fit.h - the fits of a calibration (rs_calib_t, calib_types.h) into the model's calibration:
 * the alpha-beta transport fit and its transfer curves, the efficiency curve, the host cost and the
 * overlap factors, the poll curves, the ranks' straggler factors. Pure arithmetic on measured (or
 * synthetic) points: nothing here runs a kernel or a transfer. */
#ifndef RS_CALIB_FIT_H
#define RS_CALIB_FIT_H

#include <stdint.h>

#include "calib_types.h"

/* The alpha-beta fit t = L + m / W of c->sizes / c->t_msg_s (least squares on relative error;
 * fit_err_max the largest |relative error|), the transfer curves through every measured size, and
 * every overlap point's t_xfer_s = L + bytes g(bytes) / W with the reused curve. Can't fail. */
void rs_calib_fit_transport(rs_calib_t *c);
/* The same with the latency given (latency_s >= 0, e.g. --latency): W alone, u = 1/W minimising
 * sum ((L + m u - t) / t)^2 - one size suffices. bw_bytes_per_s is INFINITY when the samples do not
 * exceed the latency (u <= 0; callers refuse it). Can't fail. */
void rs_calib_fit_transport_latency(rs_calib_t *c, double latency_s);

/* The model's efficiency curve from the kernel measurements: eff(B) = F_eff(B) / F_peak. Can't fail. */
void rs_calib_fit_efficiency(rs_calib_t *c);

/* From out->ov[] (block, bytes, n_flows, t_comp_s, t_comp_busy_s, t_xfer_s, t_end_s) and
 * out->latency_s: the host cost n o + O m (least squares on the relative error of t_comp_busy_s,
 * o, O >= 0, into out->model), every point's eta (the eta step of the walk's flows inverted with
 * t_comp_s + n o + O m: flows sharing a hop with equal starts end with their sum, so the last
 * receive inverts on the bytes in all) and the model's overlap curve from them (by bytes; points
 * need not be sorted), the one-eta fit and sigma, then rs_calib_fit_polls. Can't fail. */
void rs_calib_fit_overlap(rs_calib_t *out);
/* Polled progress: when out->model.poll has a geometry (chunk_cols > 0), each point with polls > 0
 * also gives the polls after which its transfer started to move: t_k = x (1 / eta - 1) (the eta
 * step's completion L + x / eta = L + t_k + x) is the fraction t_k / t_c of its own compute t_c =
 * t_comp_s + n o + O m, and k = rs_full_poll_k(t_k / t_c, polls, poll_first) places it among the
 * block's polls where the executor makes them (at least 1e-3); those points (by bytes) form
 * out->model.poll's curve, and rs_step_eta of a step like the calibration's (same bytes, compute and
 * polls: rs_step_poll_frac) gives the point's own eta back. The points whose step also ran with fresh
 * transfers (t_end_fresh_s > 0) give the fresh curve (poll.fresh) the same way, with the fresh
 * copy x and the host cost of a fresh step (rs_machine_host_s). Can't fail. */
void rs_calib_fit_polls(rs_calib_t *out);

/* Ranks of unequal speed: t[i * n_ranks + r] is rank r's kernel time at block i. fastest[i] = the
 * smallest time at block i; factor[r] = the median over the blocks of t / fastest (>= 1; 1 for the
 * fastest rank), the rank's straggler factor in the model. Can't fail. */
void rs_calib_rank_factors(const double *t, int n_b, int64_t n_ranks, double *fastest, double *factor);

#endif /* RS_CALIB_FIT_H */
