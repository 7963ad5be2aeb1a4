/* polls.h - polled progress: where a step's compute polls the transport and what that makes of
 * the overlap of its incoming transfer (docs/model.md, "Polled progress").
 *
 * With polled MPI progress (the CPU executor, --progress poll) a transfer moves only inside the
 * receiver's polls, which the executor makes twice per column chunk of every panel of every block
 * it computes. A transfer is then done at about the k-th poll after its post (k from the profile's
 * poll curve, by the bytes on the hop), so how soon it is hidden depends on how often the step polls,
 * not on its FLOPs: a causal diagonal block runs tile by tile and polls many times per FLOP; one
 * full block polls a few times. The model places a step's polls where the executor makes them
 * (rs_step_poll_at), by the work of its units.
 */
#ifndef RS_POLLS_H
#define RS_POLLS_H

#include "calibration.h"
#include "machine.h"
#include "schedule.h"

/* Polls the CPU executor makes computing step `st` of problem p (its pass; per block, per sequence
 * and query head, per panel of rows with visible columns: 2 per chunk of g->chunk_cols columns; a
 * FULL block's panels are g->panel_rows[pass] rows, a DIAG block's tile_q rows, executed columns
 * rounded up to tile_k as the executor does). 0 without a geometry (chunk_cols 0) or without
 * compute. Can't fail. */
double rs_step_polls(const rs_problem_t *p, const rs_step_t *st, const rs_poll_model_t *g);

/* Where the polls fall: the fraction of a unit's work (one column chunk of one panel of one block,
 * for one sequence and query head) done at its first poll. The CPU kernel polls after the chunk's
 * first product (forward: S = Q K^T, 1 of 2 equal products) and after its last (backward: after P,
 * dV and dP, 3 of its 5 equal products). Can't fail. */
double rs_poll_first_frac(rs_pass_t pass);

/* The fraction of step st's compute done at its k-th poll (k real >= 0), polls placed where the
 * executor makes them: units in its order (blocks, sequences, query heads, panels, chunks), each of
 * work rows x executed columns, polls at rs_poll_first_frac of a unit and at its end; linear in k
 * between polls (the 0th at 0); past the last poll the average spacing on (> 1). A step's first
 * polls come early when its first units are small: a causal diagonal block's first panels hold few
 * columns. 0 without polls. Can't fail. */
double rs_step_poll_at(const rs_problem_t *p, const rs_step_t *st, const rs_poll_model_t *g, double k);

/* The inverse for a step of `polls` polls over equal units (a FULL block, the calibration's step):
 * the k at which `frac` of the compute is done, first = rs_poll_first_frac. Can't fail. */
double rs_full_poll_k(double frac, double polls, double first);

/* The fraction of st's compute at which a transfer of `bytes` (reused_bytes of them into the buffer
 * sent at the step before) is picked up with m's poll model: rs_step_poll_at(p, st, geometry,
 * k = rs_calibration_step_polls(bytes, reused_bytes)); 0 without a poll model. */
double rs_step_poll_frac(const rs_machine_t *m, const rs_problem_t *p, const rs_step_t *st, double bytes, double reused_bytes);

/* The eta the walk and the simulator use for a transfer of `bytes` (xfer_s = bytes / W at the hop's
 * rate) received by a rank whose step computes for t_comp_s. With a poll model the transfer waits
 * for the k-th poll (k = rs_calibration_polls(bytes)), at t_k = k_frac x t_comp_s (k_frac =
 * rs_step_poll_frac), and then moves at the hop's rate (the receiver's copy inside that poll): done
 * at L + t_k + x, which the eta step gives with eta = xfer_s / (xfer_s + t_k). A step that does not
 * compute or poll (k_frac 0): 1. Without a poll model: the overlap curve's rs_machine_overlap(m,
 * bytes). Can't fail. */
double rs_step_eta(const rs_machine_t *m, double bytes, double xfer_s, double t_comp_s, double k_frac);

#endif /* RS_POLLS_H */
