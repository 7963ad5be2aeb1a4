/* cli.h - the `ringsim` command: subcommand entry points and the options they share.
 *
 * Every subcommand is `int rs_cmd_NAME(int argc, char **argv)` (argv[0] is the subcommand name) in
 * cli/cmd_NAME.c: it parses its options (options.h: one table per command, plus the shared table
 * rs_cli_shared_opts of the problem and the hardware, which fills an rs_setup_t), calls one study or
 * backend, prints, and returns an exit code (0, 1 runtime failure, 2 bad input). Errors are one line
 * "ringsim NAME: message" on stderr. Sizes take K/M/G suffixes (powers of 1024), rates take SI
 * suffixes (450G = 450e9).
 */
#ifndef RS_CLI_H
#define RS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "machine.h"
#include "model.h"
#include "options.h"
#include "schedule.h"
#include "setup.h"
#include "util.h"

int rs_cmd_model(int argc, char **argv);
int rs_cmd_sim(int argc, char **argv);
int rs_cmd_exec(int argc, char **argv);
int rs_cmd_calibrate(int argc, char **argv);
int rs_cmd_validate(int argc, char **argv);
int rs_cmd_compare(int argc, char **argv);
int rs_cmd_import(int argc, char **argv);
int rs_cmd_sweep(int argc, char **argv);
int rs_cmd_plot(int argc, char **argv);
int rs_cmd_report(int argc, char **argv);
int rs_cmd_memory(int argc, char **argv);
int rs_cmd_plan(int argc, char **argv);
int rs_cmd_profiles(int argc, char **argv);

/* The shared options: the problem (-S, -N, --heads, ..., -L, -P, --tile) and the hardware (-p,
 * --inter, --flops, --bw, ..., --straggler, --degrade), one table filling an rs_setup_t. */
extern const rs_opt_t rs_cli_shared_opts[];
extern const int rs_cli_shared_n;
/* The shared options as a group filling s; skip: the names another group of the command takes
 * over ("seq,ranks,profile" for sweep's ranges), or NULL. */
rs_opt_group_t rs_cli_shared_group(rs_setup_t *s, const char *skip);
/* Only the problem's options (the table's first section: -S ... --tile), filling s. */
rs_opt_group_t rs_cli_problem_group(rs_setup_t *s);

/* "16,32,1K": increasing sizes in [min, max], at least min_n and at most max_n of them, into out and
 * *n_out. Returns 0 or -1 with err "--blocks 64: give at least 2 sizes". */
int rs_cli_parse_sizes(const char *name, const char *arg, int64_t min, int64_t max, int min_n, int max_n, int64_t *out,
                       int *n_out, rs_err_t *err);

#ifdef RINGSIM_HAVE_EXEC
#include "exec_backend.h"
/* The executors' options (exec, calibrate, validate): --backend, --launch, --progress, --loopback. */
typedef struct {
    const char *backend;     /* --backend: cpu or gpu (rs_backend_get checks it) */
    rs_exec_spmd_t job;      /* --launch, --progress, --loopback */
} rs_cli_exec_t;
extern const rs_opt_t rs_cli_exec_opts[];
rs_opt_group_t rs_cli_exec_group(rs_cli_exec_t *x);
#endif

/* Parse, and when that ends the command, its exit code: --help printed by help(groups, n) (only
 * when loud: under mpirun only rank 0 talks) -> RS_EXIT_OK; a bad option or value printed as
 * "ringsim CMD: message" -> RS_EXIT_USAGE. -1: parsed, go on (optind is the first positional). */
int rs_cli_run_parse(const char *cmd, int argc, char **argv, rs_opt_group_t *groups, int n_groups, bool loud,
                     void (*help)(const rs_opt_group_t *groups, int n_groups));

/* The output path of one (layout, pass) entry: path itself when only one entry is written, else
 * "out.csv" -> "out-zigzag-forward.csv" (the suffix goes before the extension). Can't fail
 * (truncates to len). */
void rs_cli_entry_path(char *dst, size_t len, const char *path, const rs_problem_t *p, bool several);

#endif /* RS_CLI_H */
