/* progress.h - polled progress: where a step's compute polls the transport and what that makes of
 * the overlap of its incoming transfer (docs/model.md, "Polled progress").
 *
 * With polled MPI progress (the CPU executor, --progress poll) a transfer moves only inside the
 * receiver's polls, which the executor makes twice per column chunk of every panel of every block
 * it computes. A transfer is then done at about the k-th poll after its post (k from the profile's
 * poll curve, by the bytes on the hop), so how soon it is hidden depends on how often the step polls,
 * not on its FLOPs: a causal diagonal block runs tile by tile and polls many times per FLOP; one
 * full block polls a few times. The model spreads a step's polls evenly over its compute.
 */
#ifndef RS_PROGRESS_H
#define RS_PROGRESS_H

#include "calibration.h"
#include "machine.h"
#include "schedule.h"

/* Polls the CPU executor makes computing step `st` of problem p (its pass; per block, per sequence
 * and query head, per panel of rows with visible columns: 2 per chunk of g->chunk_cols columns; a
 * FULL block's panels are g->panel_rows[pass] rows, a DIAG block's tile_q rows, executed columns
 * rounded up to tile_k as the executor does). 0 without a geometry (chunk_cols 0) or without
 * compute. Can't fail. */
double rs_step_polls(const rs_problem_t *p, const rs_step_t *st, const rs_poll_model_t *g);

/* The eta the walk and the simulator use for a transfer of `bytes` (xfer_s = bytes / W at the hop's
 * rate) received by a rank whose step computes for t_comp_s with `polls` polls. With a poll model
 * the transfer waits for the k-th poll (k = rs_calibration_polls(bytes), polls evenly spread:
 * t_k = k t_comp_s / polls) and then moves at the hop's rate (the receiver's copy inside that poll):
 * done at L + t_k + xfer_s, which the eta step gives with eta = xfer_s / (xfer_s + t_k). A step that
 * does not compute or poll: 1. Without a poll model: the overlap curve's rs_machine_overlap(m,
 * bytes). Can't fail. */
double rs_step_eta(const rs_machine_t *m, double bytes, double xfer_s, double t_comp_s, double polls);

#endif /* RS_PROGRESS_H */
