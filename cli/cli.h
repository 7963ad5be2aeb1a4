/* cli.h - the `ringsim` command: subcommand entry points and the options they share.
 *
 * Every subcommand is `int rs_cmd_NAME(int argc, char **argv)` (argv[0] is the subcommand name) in
 * cli/cmd_NAME.c, returns an exit code (0, 1 runtime failure, 2 bad input) and prints errors as one
 * line "ringsim NAME: message" on stderr. Options are parsed with getopt_long; sizes take K/M/G
 * suffixes (powers of 1024), rates take SI suffixes (450G = 450e9).
 *
 * Shared problem/machine options (rs_setup_t) are parsed by rs_cli_common_opt(); each command
 * appends RS_CLI_COMMON_LONGOPTS to its own option table and calls rs_cli_common_help() in --help.
 */
#ifndef RS_CLI_H
#define RS_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "machine.h"
#include "model.h"
#include "schedule.h"
#include "setup.h"
#include "util.h"

int rs_cmd_model(int argc, char **argv);
int rs_cmd_sim(int argc, char **argv);
int rs_cmd_exec(int argc, char **argv);
int rs_cmd_calibrate(int argc, char **argv);
int rs_cmd_validate(int argc, char **argv);
int rs_cmd_compare(int argc, char **argv);
int rs_cmd_sweep(int argc, char **argv);
int rs_cmd_plot(int argc, char **argv);
int rs_cmd_report(int argc, char **argv);
int rs_cmd_memory(int argc, char **argv);
int rs_cmd_plan(int argc, char **argv);
int rs_cmd_profiles(int argc, char **argv);

/* Long option codes of the shared options start here; commands use codes below 256 or above
 * RS_OPT_COMMON_END for their own. */
enum {
    RS_OPT_COMMON_BEGIN = 1000,
    RS_OPT_SEQ, RS_OPT_RANKS, RS_OPT_BATCH, RS_OPT_HEADS, RS_OPT_KV_HEADS, RS_OPT_HEAD_DIM,
    RS_OPT_DTYPE, RS_OPT_GRAD_BYTES, RS_OPT_CAUSAL, RS_OPT_NO_CAUSAL, RS_OPT_LAYOUT, RS_OPT_PASS,
    RS_OPT_TILE, RS_OPT_PROFILE, RS_OPT_INTER, RS_OPT_GPUS_PER_NODE, RS_OPT_FLOPS, RS_OPT_BW,
    RS_OPT_INTER_BW, RS_OPT_LATENCY, RS_OPT_LAUNCH, RS_OPT_OVERLAP, RS_OPT_SLOWDOWN, RS_OPT_HOST_COST, RS_OPT_JITTER,
    RS_OPT_SEED, RS_OPT_STRAGGLER, RS_OPT_DEGRADE,
    RS_OPT_COMMON_END
};

/* getopt_long entries of the shared options (no terminator). Short forms: -S seq, -N ranks,
 * -L layout, -P pass, -p profile. */
#define RS_CLI_COMMON_SHORTOPTS "S:N:L:P:p:"
extern const struct option rs_cli_common_longopts[];
extern const int rs_cli_common_n_longopts;

/* Handle one getopt result into the setup (setup.h). Returns 1 if it was a shared option (parsed), 0
 * if not shared, -1 with err on a bad value (err names the option, the value and the accepted range). */
int rs_cli_common_opt(rs_setup_t *c, int opt, const char *arg, rs_err_t *err);
/* Print the shared options with their defaults. */
void rs_cli_common_help(FILE *out);
/* Reset getopt for a new parse (subcommands may run several times in one process, e.g. in tests)
 * and silence its own messages: every subcommand reports a bad option itself, in one line. */
void rs_cli_getopt_reset(void);
/* Build a struct option table = own + shared + terminator into a malloc'd array. Free with free(). */
struct option *rs_cli_merge_longopts(const struct option *own, int n_own);
/* The output path of one (layout, pass) entry: path itself when only one entry is written, else
 * "out.csv" -> "out-zigzag-forward.csv" (the suffix goes before the extension). Can't fail
 * (truncates to len). */
void rs_cli_entry_path(char *dst, size_t len, const char *path, const rs_problem_t *p, bool several);

#endif /* RS_CLI_H */
