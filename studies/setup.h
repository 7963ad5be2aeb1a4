/* setup.h - what a study (and a command) runs on: the problem, the layouts and passes asked for,
 * and the machine - as asked for (a profile and what is changed on it) and as built.
 *
 * Filled from the shared options (cli/options.c) or by a caller, then rs_setup_finish loads the
 * profile, builds the machine and validates the problem of every (layout, pass) entry, so a study
 * starts from inputs known to be valid.
 */
#ifndef RS_SETUP_H
#define RS_SETUP_H

#include "estimate.h"
#include "machine.h"
#include "schedule.h"
#include "util.h"

typedef struct {
    rs_problem_t problem;                  /* layout/pass fields are overwritten per entry of the lists */
    int n_layouts;                         /* layouts asked for */
    rs_layout_t layouts[RS_LAYOUT_COUNT];
    int n_passes;                          /* passes asked for */
    rs_pass_t passes[RS_PASS_COUNT];
    rs_machine_spec_t spec;                /* the machine as asked for: profile, overrides, perturbations */
    bool grad_bytes_given;                 /* problem.grad_bytes was asked for (else the preset's) */
    bool ring_given;                       /* --ring was given (else decode runs pass-q by itself) */
    rs_limits_t limits;                    /* --max-time, --max-memory (estimate.h; 0: the defaults) */
    const char *model;                     /* -m: the model whose attention shape the problem took (argv; NULL: none) */
    const char *perturb_args[2][RS_MAX_PERTURB]; /* spec.perturb's --straggler [0] and --degrade [1] values as
                                              given (argv, quoted by messages; NULL: made by a caller) */
    /* results of rs_setup_finish */
    rs_hw_t hw;                            /* the profile as used (overrides applied) */
    rs_machine_t machine;                  /* the machine of model, sim and the studies */
    char kernel_notes[2048];               /* the kernel curves' fallbacks and the calls outside their measured shapes (or that an
                                              inference variant runs the dense model), "" if none */
    char note[512];                        /* a valid but costlier choice to tell the user about
                                              (rs_problem_note of the first entry that has one), or "" */
} rs_setup_t;

/* The default problem (rs_problem_default), layout zigzag, pass forward, the default machine spec
 * (rs_machine_spec_default) with act_bytes from its dtype. Can't fail. */
void rs_setup_default(rs_setup_t *s);
/* The problem the executors measure by default (calibrate, validate, and the report's validation):
 * the seed's full-block analysis on a CPU - N 2, 2 query and 2 KV heads, head_dim 128, fp32,
 * contiguous, forward, non-causal, S 4K (calibration and validation set S = B N per block). Can't
 * fail. */
void rs_setup_measure_problem(rs_problem_t *p);
/* Set the activations' dtype: the machine's peak rate and the problem's act_bytes. Can't fail. */
void rs_setup_dtype(rs_setup_t *s, rs_dtype_t dtype);
/* Load the profile, build the machine for the problem's N (its implementation preset and kernel:
 * rs_machine_spec_build; an inference variant - a cache, pass-q, decode - runs the dense model: the
 * presets cost training rings), set the problem's grad_bytes to the preset's dK,dV dtype unless
 * grad_bytes_given, note the curves' fallbacks (kernel_notes), validate the problem of every
 * (layout, pass) (decode without --ring runs pass-q), fill note. Returns 0 or -1 with err (bad
 * input: err names the option or file). */
int rs_setup_finish(rs_setup_t *s, rs_err_t *err);
/* The perturbations of s->spec against a ring of n_ranks: every straggler rank and degraded hop in
 * [0, N - 1]. Returns 0 or -1 with err (bad input) quoting the option's whole value: "--straggler 9:2:
 * rank 9 must be in [0, 7] (N = 8 ranks)". Called by rs_setup_finish; a study that changes N calls it per N. */
int rs_setup_check_perturb(const rs_setup_t *s, int64_t n_ranks, rs_err_t *err);
/* An error about one item of a comma list given to an option (--profile a,b): "OPT ITEM: why" becomes
 * "OPT LIST: why", the user's whole value (why names the item); other messages are kept. Can't fail. */
void rs_setup_list_err(rs_err_t *err, const char *opt, const char *item, const char *list);
/* The problem of entry (layout i, pass j). */
rs_problem_t rs_setup_problem(const rs_setup_t *s, int layout_i, int pass_j);

#endif /* RS_SETUP_H */
