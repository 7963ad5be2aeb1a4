/* study_validate_refit.h - the refit maths of the validation study (study_validate_refit.c): the
 * model's inputs of one pass taken again from the calibration samples interleaved with the measured
 * runs, so that the model and the runs see the machine in the same state. Each function works on
 * values already gathered from the ranks (the study gathers, study_validate.c): F_eff at the
 * sweep's B, the stragglers, the transport and overlap points, the level of the kernel table, the
 * renormalised peak. No I/O, no collective.
 */
#ifndef RS_STUDY_VALIDATE_REFIT_H
#define RS_STUDY_VALIDATE_REFIT_H

#include <stdbool.h>
#include <stdint.h>

#include "calibrate.h" /* rs_calib_t and its fits, refitted here */
#include "machine.h"

/* F_eff at the sweep's B: the efficiency of model's point at b[i] (i < n_b) becomes
 * flops[i] / t_fastest[i] / flops_peak (the fastest rank's rate over the calibration's peak). Points
 * at other B keep theirs. Can't fail. */
void rs_validate_refit_eff(rs_calibration_t *model, double flops_peak, const int64_t *b, const uint64_t *flops,
                           const double *t_fastest, int n_b);
/* Renormalise model's efficiencies to the largest (it becomes 1) and *flops_peak by the same factor:
 * the peak is the largest measured rate. Can't fail. */
void rs_validate_renormalise(rs_calibration_t *model, double *flops_peak);

/* The stragglers of factors[0..n) (each rank's kernel time over the fastest's): every rank more than
 * 0.5% slower (factor > 1.005), at most RS_MAX_PERTURB of them, replace q's. Can't fail. */
void rs_validate_stragglers(const double *factors, int64_t n, rs_perturb_t *q);
/* factors[i n + r] = t[i n + r] / t_fastest[i] for the n_b sweep points and n ranks. Can't fail. */
void rs_validate_factors_at(const double *t, const double *t_fastest, int n_b, int64_t n, double *factors);

/* One sweep point's overlap sample: the medians over the ranks. */
typedef struct {
    int64_t block;                   /* B */
    double t_end_s, t_end_fresh_s;   /* the step's receive end from its post: rotating buffers, fresh transfers */
    double t_busy_s, t_alone_s;      /* the block's compute with the transfers in flight, and alone */
    double t_xfer_s, t_xfer_reused_s; /* the transfers alone: fresh, and rotating as the ring's */
    const rs_calib_flows_t *flows;   /* what the samples posted */
} rs_validate_overlap_t;
/* Add point pt to c: its transfer size as c->sizes[*n_sizes] (the sweep's own list, *n_sizes
 * counting; at most RS_CALIB_MAX_SIZES), its overlap point replacing c's point at the same B or
 * joining them (at most RS_CALIB_MAX_OV), with the poll geometry when polled (MPI moves data only
 * inside the compute's polls, and the compute polls). Can't fail. */
void rs_validate_add_overlap(rs_calib_t *c, int *n_sizes, const rs_validate_overlap_t *pt, bool polled);
/* The sweep's transfers replace the calibration's when there are two sizes or more (n_sizes); then
 * the alpha-beta transport and the host cost and overlap curve are fitted again (exec/calibrate.h).
 * Can't fail. */
void rs_validate_refit_transport(rs_calib_t *c, int n_sizes);

/* The kernel calls sampled with the runs, per sweep point i < n_b. */
typedef struct {
    int n_b;
    const int64_t *b;                /* the sweep's B */
    bool masks;                      /* causal and shifted calls were sampled (a causal configuration ran) */
    const double *t_mask;            /* [i * 2 + k]: the fastest rank's median call time now, k = 0 causal,
                                        1 shifted (0: none) */
    const uint64_t *useful;          /* [i * 2 + k]: those calls' useful FLOPs */
} rs_validate_kernels_t;
/* The kernel table of m follows the samples: at every B of the sweep the pass's full curve is scaled
 * by F_eff(B) of m now over the table's full-call rate at B, and the causal and shifted curves (of as
 * many points), when sampled, by their own calls' rate now over the table's, else by the full call's
 * factor; a point outside the sweep takes its nearest sweep point's factor. The table keeps the
 * shape (mask, size), the samples set the level. rate[mask][j] receives each curve's rate now at the
 * full curve's point j, *full that curve. Returns false (nothing changed) when m runs no kernel or
 * has no full curve of the pass. Can't fail. */
bool rs_validate_refit_kernels(rs_machine_t *m, rs_pass_t pass, const rs_validate_kernels_t *ks,
                               double rate[RS_KMASK_COUNT][RS_KMAX_POINTS], const rs_kcurve_t **full);

#endif /* RS_STUDY_VALIDATE_REFIT_H */
