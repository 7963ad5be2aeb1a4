/* job_opts.h - the options of a job of concurrent rings (sim/job.h): placement, fabric, background.
 *
 * Shared by the commands that simulate jobs (ringsim sim, sweep, plan --sim). Every value is checked with a message
 * that names the option and the rule; rs_cli_job_build() turns them into an rs_job_t once the shared
 * options are final (the machine gives G and the tiers, the problem gives N and B).
 */
#ifndef RS_CLI_JOB_OPTS_H
#define RS_CLI_JOB_OPTS_H

#ifdef RINGSIM_HAVE_SIM
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "job.h"
#include "options.h"
#include "setup.h"
#include "sim.h"
#include "study_contention.h"

typedef struct {
    bool any;                  /* some job option was given: simulate a job (the caller sets it from
                                  the group's seen bits) */
    rs_contention_knobs_t k;   /* degrees, map, lists of orders, fabrics, NICs, ratios; background kind
                                  and group (sized by rs_cli_job_background) */
    int64_t cp;                /* --cp (0 = -N) */
    const char *model;         /* --model preset or path */
    double bg_bytes;           /* --bg-bytes: parameters and gradients of the layer, bytes (0 = from the model) */
} rs_cli_job_t;

/* The job's options as a table (cli/options.h) filling j; skip: names not offered ("cp": the
 * command sets N itself), or NULL. */
extern const rs_opt_t rs_cli_job_opts[];
extern const int rs_cli_job_n;
rs_opt_group_t rs_cli_job_group(rs_cli_job_t *j, const char *skip);

/* Defaults: tp 1, dp 1, cp = -N, order tp-cp-dp, flat fabric, K = G, non-blocking, no background
 * (rs_contention_knobs_default). --order, --fabric, --nics and --oversub take comma lists (swept by
 * ringsim sweep and plan --sim; one value for ringsim sim). Can't fail. */
void rs_cli_job_init(rs_cli_job_t *j);
/* Before rs_setup_finish: --cp sets the ring size -N (both given and different: error). */
int rs_cli_job_apply(const rs_cli_job_t *j, rs_setup_t *c, bool ranks_given, rs_err_t *err);
/* After rs_setup_finish: the background sized from --model (layer of a TP shard: tp, the problem's
 * activation and gradient bytes) or --bg-bytes into j->k.background. Returns 0 or -1 with err. */
int rs_cli_job_background(rs_cli_job_t *j, const rs_problem_t *p, rs_err_t *err);
/* After rs_setup_finish: the passes asked for against the background's collectives (a pass without
 * any, e.g. dp's all-reduce in the forward). None of them has one: -1 with err; some lack one: 0 and
 * one line for a note (else note ""). */
int rs_cli_job_background_passes(const rs_cli_job_t *j, const rs_setup_t *c, char *note, size_t note_len, rs_err_t *err);
/* After rs_setup_finish and rs_cli_job_background: the one job of ringsim sim (every list holds one
 * value: else "--nics 1,2: ringsim sim simulates one fabric; sweep lists with ringsim sweep"). Checks
 * the profile has an inter-node tier when the job spans nodes. Returns 0 or -1 with err. */
int rs_cli_job_build(const rs_cli_job_t *j, const rs_setup_t *c, rs_job_t *job, rs_err_t *err);
/* ---------------------------------------------------------------------------------------------------
 * Output of a simulated job (job_report.c): one entry per (layout, pass).
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    const rs_problem_t *problem;
    const rs_sim_result_t *sim;  /* with sim->job */
} rs_cli_job_entry_t;

/* The job, the fabric and the background in '#' lines, then per entry: one line per ring (up to 32;
 * else the 16 slowest and a summary), the most loaded links, the link that saturates, the background
 * collectives and whether they end after the rings. Can't fail. */
void rs_cli_job_print(FILE *out, const rs_job_t *job, const rs_cli_job_entry_t *es, int n);
/* CSV: one row per ring / per hop / per link of every entry ("-" = stdout). Returns 0 or -1 with err. */
int rs_cli_job_write_rings(const char *path, const rs_cli_job_entry_t *es, int n, rs_err_t *err);
int rs_cli_job_write_hops(const char *path, const rs_cli_job_entry_t *es, int n, rs_err_t *err);
int rs_cli_job_write_links(const char *path, const rs_cli_job_entry_t *es, int n, rs_err_t *err);

#endif /* RINGSIM_HAVE_SIM */
#endif /* RS_CLI_JOB_OPTS_H */
