/* cli.h - the `ringsim` command: what its commands share.
 *
 * Every subcommand is an rs_command_t in the table of commands.h, its entry point rs_cmd_NAME in
 * cli/cmd_NAME.c: run() parses its options (options.h: one table per command, plus the tables it
 * shares - shared_opts.h for the problem and the hardware, filling an rs_setup_t; exec_opts.h,
 * job_opts.h, plan_opts.h), checks its files (command_files.h), calls one study or backend, prints,
 * and returns an exit code (0, 1 runtime failure, 2 bad input). Errors are one line
 * "ringsim NAME: message" on stderr (command_run.h). Sizes take K/M/G suffixes (powers of 1024),
 * rates take SI suffixes (450G = 450e9).
 */
#ifndef RS_CLI_H
#define RS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "command_files.h"
#include "command_run.h"
#include "commands.h"
#include "cost.h"
#include "docgen.h"
#include "exec_opts.h"
#include "from_trace.h"
#include "job_opts.h" /* rs_cli_job_t (with SimGrid) */
#include "machine.h"
#include "opt_values.h"
#include "options.h"
#include "registry.h"
#include "schedule.h"
#include "setup.h"
#include "shared_opts.h"
#include "study_sweep.h"
#include "util.h"

/* The command lines of `ringsim model` and `ringsim sweep` as data: the command's defaults and its
 * option groups, through which the command parses (rs_cli_run_parse) and so does the option
 * parser's fuzz harness (tests/fuzz/fuzz_opts.c). */
typedef struct {
    rs_setup_t c;                            /* the shared options (defaults: every layout, both passes) */
    const char *csv, *json, *trace, *chrome; /* --csv, --json, --trace, --chrome (NULL: not given) */
} rs_cli_model_t;
/* m's defaults and its groups (model's own, the shared) into groups[0..1]. Returns the group count. */
int rs_cli_model_groups(rs_cli_model_t *m, rs_opt_group_t *groups);

typedef struct {
    rs_sweep_spec_t spec;   /* what to sweep: ranges replace the shared --seq, --ranks, --profile */
    const char *out_path;   /* -o: the CSV ("-" = stdout) */
    const char *figure;     /* --figure: a job sweep's figure (efficiency vs NICs per node or ratio) */
    bool quiet;             /* -q: no progress bar */
#ifdef RINGSIM_HAVE_SIM
    rs_cli_job_t job;       /* fabric knobs (job_opts.h): any given makes every point a job of rings */
#endif
} rs_cli_sweep_t;
#define RS_CLI_SWEEP_GROUPS 3
/* s's defaults and its groups (sweep's own, the job's with SimGrid, the shared) into
 * groups[0..RS_CLI_SWEEP_GROUPS). Returns the group count. */
int rs_cli_sweep_groups(rs_cli_sweep_t *s, rs_opt_group_t *groups);

#endif /* RS_CLI_H */
