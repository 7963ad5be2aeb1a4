/* calibrate.h - measure this machine with the real kernel and transport, for the model's profile.
 *
 * SPMD: every rank of the transport calls rs_calibrate(); rank 0 receives the result.
 *  1. Kernel: for every B of the list, every rank at once runs the compute backend's step on one
 *     FULL B x B block (the problem's heads, head_dim, batch, pass), in 5 rounds over all B (so a
 *     burst of outside load spreads over the sizes), min_time_s per B in total;
 *     F_eff(B) = flops_exec / median time (median over repetitions, then over ranks).
 *  2. Transport: for message sizes m, every rank at once sends m bytes to p+1 and receives m from
 *     p-1 (the ring step's pattern, no compute); the receive's post-to-completion time is the
 *     sample. Fit t(m) = L + m / W by least squares on relative error.
 *  3. Overlap: at every B whose compute takes <= 0.1 s, the block step with the pass's own ring
 *     transfers posted at its start: those of the pass's computing step that moves the most bytes on
 *     this ring (rs_calib_step_flows: the forward's K,V; the backward's K,V and dK,dV partial
 *     together when N > 2); per point the receives' completion E (from their post: the step's
 *     blocks' arrival) and the compute with and without the transfers.
 *     Host cost: the compute time the transfers take from the rank, t_busy - t_alone = n o + O m
 *     (n flows of m bytes in all), fitted by least squares on the relative error of the predicted
 *     busy compute (o, O >= 0).
 *     Overlap: each point's eta inverts docs/model.md's eta step with the model's own compute
 *     (t_alone + o + O m); the points form the overlap curve eta(bytes). One eta for all points
 *     (minimising the median |relative error| of the completions, grid 0.001) is reported too, and
 *     sigma (median t_busy / t_alone) for reference.
 * The profile: F_peak(fp32) = the largest F_eff(B), eff(B) = F_eff(B) / F_peak, the intra tier
 * (L, W), the overlap curve and the host cost (comp_slowdown 1: the host cost describes the busy
 * compute).
 * The parts, each with its header (all included here): the data (calib_types.h), the measurements on
 * one block (calib_block.h) and over the transport (calib_transfer.h), the fits (calib_fit.h), the
 * profile (calib_profile.h), the printed tables (calib_print.h); the run itself is calibrate.c.
 */
#ifndef RS_CALIBRATE_H
#define RS_CALIBRATE_H

#include "calib_block.h"
#include "calib_fit.h"
#include "calib_print.h"
#include "calib_profile.h"
#include "calib_transfer.h"
#include "calib_types.h"
#include "exec_backend.h"

/* Defaults: B = 16, 32, ..., 2048; sizes derived; 0.05 s per point, 3 reps, timeout 60 s. */
void rs_calib_opts_default(rs_calib_opts_t *o);

/* Run the calibration on every rank of job (SPMD: its compute backend, transport and local rank).
 * `problem` gives heads, kv_heads, head_dim, batch, act/grad bytes, pass and tile (S, N, layout,
 * causal are ignored). Results on rank 0 (others get their own partial view). Returns 0 or -1 with
 * err. */
int rs_calibrate(const rs_problem_t *problem, const rs_exec_job_t *job, const rs_calib_opts_t *o, rs_calib_t *out,
                 rs_err_t *err);

#endif /* RS_CALIBRATE_H */
