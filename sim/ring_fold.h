/* ring_fold.h - internal to sim/: a single ring folded by its rotation symmetry, so that the
 * simulator runs one representative rank instead of N (docs/sim.md, "Folding").
 *
 * A ring is rotation symmetric when rank p's run is rank 0's shifted by p: every rank-step costs
 * what rank 0's step costs - its compute seconds (the step's kernel calls with the rank's own merges,
 * straggler and jitter: rs_kernel_step_s), its merges before and after, the epilogue, its FLOPs, the
 * number and bytes of its transfers and its peers at the same offsets - and every hop p -> p + 1
 * runs on links of the same kind, bandwidth and latency. rs_ring_fold_copies checks this from the
 * actual per-(rank, step) cost table (not from the mask's or layout's name: a zigzag's two halves
 * may cost differently on kernel curves, a causal contiguous or striped ring is not symmetric) on
 * a generated platform, where every host runs at F_eff(B) and every hop has links of its own.
 *
 * Then every rank starts step k at the same time (induction on k: all start step 0 at t = 0; step
 * k's transfers start when both ends have started it, i.e. at once, each on its own hop's links
 * with one flow on each, so they end together, and so do the computes, merges and the next
 * starts): every rank's timeline is rank 0's. The activity engine simulates rank 0 alone with
 * itself as its neighbour on both sides, its sends over hop 0's route (gpu0 -> gpu1), and
 * replicates it: every rank's events are rank 0's with the rank and peers relabelled, every rank's
 * statistics are rank 0's (sums over rank-steps times N). test_ring_fold compares folded and full
 * simulations to 1e-9.
 *
 * Partial overlap folds too: a rank's incoming hop runs at eta while it computes, and rank 1's hop
 * 0 (the representative's sends) is throttled when rank 0 computes, by the same eta (part of the
 * compared cost).
 *
 * It does not fold (copies 1): a job (job_fold.h folds those), --no-fold, the actor engine, a user's
 * platform, compute slowdown (the actor engine runs it), an all-to-all step (pass-q's return),
 * N < 2, hops of different links, and any rank-step whose cost differs from rank 0's.
 */
#ifndef RS_SIM_RING_FOLD_H
#define RS_SIM_RING_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "machine.h"
#include "schedule.h"
#include "sim.h"

/* The rate, as a fraction of its bandwidth, at which a step's incoming transfers progress while its
 * rank computes (partial overlap: --overlap, an overlap curve or polled progress): st's receives of
 * recv_bytes in all (reused_bytes of them into the buffer sent at the step before) over hop
 * prev_rank -> rank of a ring of n, during tc_s of compute; 1 without partial overlap, compute or
 * receives. The one rule of sim_step_compute_s (sim_run.h) and this fold's check. Can't fail. */
double rs_ring_recv_eta(const rs_machine_t *m, const rs_problem_t *p, int64_t n, int64_t prev_rank, const rs_step_t *st, double tc_s,
                        double recv_bytes, double reused_bytes);

/* What the config decides alone: whether a single ring may fold at all (not a job, not --no-fold, the
 * activity engine, a generated platform). Can't fail. */
bool rs_ring_fold_may(const rs_sim_config_t *cfg);

/* The ranks one simulated rank stands for when the run of s on m under cfg (as sim_config_for_run
 * gives it) folds by the ring's rotation symmetry: N, or 1 when it does not fold (above; also when
 * the check runs out of memory). O(N x steps) step costs. With cfg->folds, the answer of an earlier
 * check on an equal problem (every field; the schedule is made from it alone) and machine (byte for
 * byte) is reused: the --max-time estimate's check serves the run (rs_sim_estimate, then rs_sim_run); cfg's
 * fields that decide (job, no_fold, engine, platform_path) are read on every call. */
int64_t rs_ring_fold_copies(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg);
/* The unkept check: rs_ring_fold_copies without cfg->folds (the reference tests compare it with). */
int64_t rs_ring_fold_copies_check(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg);

/* cfg->folds' kept checks (job_fold.c holds them beside the jobs' folds): find copies of problem p on
 * machine m (true), keep them (at most 16; none for a machine with a borrowed hop_inter, whose
 * contents a byte copy would not compare), and the number of checks run so far. */
bool sim_folds_ring_find(const rs_sim_folds_t *f, const rs_problem_t *p, const rs_machine_t *m, int64_t *copies);
void sim_folds_ring_keep(rs_sim_folds_t *f, const rs_problem_t *p, const rs_machine_t *m, int64_t copies);
int64_t sim_folds_ring_checks(const rs_sim_folds_t *f);

#endif /* RS_SIM_RING_FOLD_H */
