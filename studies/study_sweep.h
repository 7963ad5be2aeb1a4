/* study_sweep.h - the sweep study: the engine behind `ringsim sweep` and `ringsim report`.
 *
 * A point is (profile, layout, pass, N, B): S = B * N. For each point the engine evaluates
 *   seed_*    the seed's closed form for a full block: T_comp = c_f B^2 / F, T_comm = c_b B / W;
 *   closed_*  the calibrated closed form (rs_model_closed: latency, F_eff(B), launch, overlap);
 *   pred_*    the model's critical-path walk (backend "model"), summarized from its trace exactly as
 *             a measured trace is (rs_trace_summarize: medians over (rank, step) of compute,
 *             transfer and step durations; makespan);
 *   sim_*     the SimGrid run (backend "sim") summarized the same way, when built, asked and its
 *             can_run rule allows;
 *   exec_*    the real CPU execution (backend "cpu": `ringsim exec`, a subprocess), when asked.
 * Bound: "comm" when the median transfer outlasts the median compute, else "compute".
 * Efficiency: the walk's ideal time (useful FLOPs / (N F_eff)) over the backend's makespan.
 * Overlap efficiency: T_comp / T_step (medians): 1 when transfers are hidden.
 */
#ifndef RS_STUDY_SWEEP_H
#define RS_STUDY_SWEEP_H

#include <stdbool.h>
#include <stdio.h>

#include "backend.h"
#include "compare.h"
#include "cost.h"
#include "setup.h"

#define RS_SWEEP_MAX_VALUES 256 /* values per axis */
#define RS_SWEEP_MAX_PROFILES 16

typedef struct {
    rs_setup_t common;                           /* problem + hardware shared by all points (common.spec.profile
                                                    when no profiles are listed) */
    int n_profiles;                              /* --profile a,b,c (0 = common.profile) */
    char profiles[RS_SWEEP_MAX_PROFILES][512];
    int n_blocks;                                /* --block values (0 = none) */
    int64_t blocks[RS_SWEEP_MAX_VALUES];
    int n_ranks;                                 /* --ranks values (0 = common.problem.n_ranks) */
    int64_t ranks[RS_SWEEP_MAX_VALUES];
    int n_seqs;                                  /* --seq values (0 = common.problem.seq_tokens) */
    int64_t seqs[RS_SWEEP_MAX_VALUES];
    bool run_sim;                                /* simulate each point (when built) */
    bool run_exec;                               /* execute each point for real (when available) */
    const char *exec_cmd;                        /* ringsim binary for --exec ("" = /proc/self/exe) */
    const char *exec_launch;                     /* ringsim exec --launch: "mpirun" (NULL) or "threads" */
    int64_t exec_max_ranks;                      /* refuse --exec points above this N */
} rs_sweep_spec_t;

typedef struct {
    char profile[512];        /* profile name or path as given */
    char series[700];         /* profile/layout/pass/mask/N=: the points that differ only in B (or S) */
    rs_problem_t problem;     /* the point's problem */
    rs_machine_t machine;     /* the point's machine */
    rs_closed_t closed;       /* calibrated closed form */
    double seed_t_comp_s;     /* the seed's T_comp for a full block */
    double seed_t_comm_s;     /* the seed's T_comm */
    rs_run_summary_t walk;    /* critical-path walk (the model backend) */
    rs_trace_summary_t pred;  /* the walk's trace, summarized */
    bool has_sim;             /* sim ran */
    rs_trace_summary_t sim;   /* the simulated trace, summarized */
    rs_run_summary_t sim_run; /* the simulation's figures (its balance efficiency) */
    bool has_exec;            /* exec ran */
    rs_trace_summary_t exec;  /* the measured trace, summarized */
    char note[256];           /* why sim/exec did not run ("" = nothing to say) */
} rs_sweep_point_t;

/* A range option's values: the option, the bounds of each value and where the values go. */
typedef struct {
    const char *name;            /* the option, for messages: "--block" */
    int64_t min, max;            /* every value in [min, max] */
    int64_t *out;                /* the values, in order */
    int max_out;                 /* room in out */
} rs_sweep_range_t;

/* Parse a range of sizes into r->out: "256:64K:x2" (start:stop:xFACTOR, geometric), "1K:8K:+1K" or
 * "1K:8K:1K" (arithmetic), "a,b,c" (a list), or one value. Returns the count (>= 1) or -1 with err
 * (bad input) quoting the option and its value: "--block 64K:256:x2: STOP must be >= START". */
int rs_sweep_range_parse(const rs_sweep_range_t *r, const char *text, rs_err_t *err);
/* rs_sweep_range_parse with the range spelled out (the command's option parsers). */
#define rs_sweep_parse_range(name, text, min, max, out, max_out, err) \
    rs_sweep_range_parse(&(rs_sweep_range_t){(name), (min), (max), (out), (max_out)}, (text), (err))

/* Count of points. Points are enumerated profile-major, then layout, pass, N, and B (or S) last. */
size_t rs_sweep_count(const rs_sweep_spec_t *spec);

/* Build and validate every point (problem and machine; nothing is run), pts[0..rs_sweep_count).
 * Each profile is read once. Returns 0, or -1 with err naming the first bad point's parameter (bad
 * input). */
int rs_sweep_points_setup(const rs_sweep_spec_t *spec, rs_sweep_point_t *pts, rs_err_t *err);

/* Run point pt (set up): closed form, walk, summaries; sim/exec as spec asks. If traces is
 * non-NULL, traces[0] receives the walk's trace and traces[1] the simulated one (NULL when not run);
 * the caller frees them. Returns 0 or -1 with err (runtime failure). */
int rs_sweep_point_run(const rs_sweep_spec_t *spec, rs_sweep_point_t *pt, rs_trace_t **traces, rs_err_t *err);

/* CSV output: header ('#' notes, one "# rates profile=NAME: ..." line per profile of pts[0..n) saying
 * where each rate its points are costed at comes from (rs_machine_rates_line over the largest ring of
 * its points), the column line), one row per point, and the crossover notes found in the data
 * (rs_crossover_b per series: pred, sim, exec). */
void rs_sweep_write_header(FILE *fp, const rs_sweep_spec_t *spec, const char *command, const rs_sweep_point_t *pts, size_t n);
void rs_sweep_write_row(FILE *fp, size_t index, const rs_sweep_point_t *pt);
void rs_sweep_write_crossovers(FILE *fp, const rs_sweep_point_t *pts, size_t n);

/* Crossover of one series in points: which = 0 pred, 1 sim, 2 exec. NaN when none. */
double rs_sweep_crossover(const rs_sweep_point_t *pts, size_t n, const char *series, int which);

/* ---------------------------------------------------------------------------------------------------
 * The study: one sweep into one CSV
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    const rs_sweep_spec_t *spec;  /* what to sweep */
    const char *out_path;         /* the CSV, written to a temporary name and renamed; "-" = stdout */
    const char *command;          /* the header's "# command=" line (NULL: none) */
    bool progress;                /* a progress meter on a terminal (model/1-base/meter.h) */
    bool interruptible;           /* Ctrl-C (SIGINT) stops after the current point */
    bool keep_partial;            /* after a failed or interrupted point the finished ones are kept, in
                                     rs_out_partial_name(out_path) beside the output ("out.partial.csv":
                                     a previous complete output is never replaced by a partial one;
                                     written when at least one point ran); else nothing is */
    bool distribute;              /* under a launcher (mpirun, srun: MPI) divide the points over its
                                     processes: point i runs on rank i mod P (its SimGrid children
                                     too), rank 0 gathers them and writes the one CSV, byte for byte
                                     what one process writes; a failed point on any rank: no file,
                                     -1 on rank 0 with err naming the rank, its points and the
                                     failure (interrupts and keep_partial do not apply) */
} rs_sweep_in_t;

/* rs_sweep_out_t.kept's size: a path (Linux's PATH_MAX, which a strict C17 <limits.h> does not
 * declare) and ".partial". */
enum { RS_SWEEP_KEPT_LEN = 4096 + 16 };

typedef struct {
    rs_sweep_point_t *points;     /* every point set up, the first `done` run (malloc'd: free() it) */
    size_t n;                     /* points */
    size_t done;                  /* points run and written, in order */
    bool interrupted;             /* stopped by Ctrl-C */
    bool worker;                  /* a rank > 0 of a distributed sweep: rank 0 wrote (done = 0 here) */
    char kept[RS_SWEEP_KEPT_LEN]; /* where the finished points of a failed or interrupted sweep went: the
                                     partial file beside the output, or the output itself when that is
                                     a device or descriptor; "" when none were kept in a file */
} rs_sweep_out_t;

/* Set up every point (nothing runs on bad input), then run them in order into the CSV: header, one
 * row per point, the crossover lines; "# interrupted after K of N points" when interrupted. Returns
 * 0, or -1 with err: RS_ERR_BAD_INPUT (a point, the output path, the estimated work above the
 * limits), RS_ERR_RUNTIME ("point 3: ...") when a point failed, or when Ctrl-C interrupted the
 * sweep (err's message empty then, out->interrupted). out is filled in every case (out->points NULL
 * only when nothing was set up). */
int rs_study_sweep(const rs_sweep_in_t *in, rs_sweep_out_t *out, rs_err_t *err);

#endif /* RS_STUDY_SWEEP_H */
