/* command_run.h - how a command reads its command line (command_run.c): its option groups against
 * its entry in the command table (commands.h), --help (printed, or handed to the man page and
 * completion generators), the one usage line of a bad option, the command line as text, and the
 * setup's notes: said before a table, or kept until the run's end. */
#ifndef RS_CLI_COMMAND_RUN_H
#define RS_CLI_COMMAND_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "commands.h"
#include "options.h"
#include "setup.h"
#include "util.h"

/* rs_cli_parse for command cmd, then its positional arguments against cmd->max_args ("unexpected
 * argument 'x' (see ringsim NAME --help)"): what rs_cli_run_parse decides, without printing.
 * Returns 1 (--help), 0 (parsed: optind is the first positional) or -1 with err. */
int rs_cli_command_parse(const rs_command_t *cmd, int argc, char **argv, rs_opt_group_t *groups, int n_groups,
                         rs_err_t *err);

/* Parse the options of the command called name, and when that ends the command, its exit code:
 * --help (its usage, the groups' options, its notes; printed only when loud: under mpirun only rank
 * 0 talks) -> RS_EXIT_OK; a bad option or value, or more positional arguments than its max_args,
 * printed as "ringsim NAME: message" -> RS_EXIT_USAGE. -1: parsed, go on (optind is the first
 * positional). */
int rs_cli_run_parse(const char *name, int argc, char **argv, rs_opt_group_t *groups, int n_groups, bool loud);

/* How --help is answered: printed (hook NULL, the default), or the command's usage and option groups
 * handed to hook instead - the man page and completion generators (docgen.h) run every command
 * with --help and read the same rows --help prints. The groups are valid during the call only. */
typedef void rs_cli_help_hook_fn(void *ctx, const rs_command_t *cmd, rs_opt_group_t *groups, int n_groups);
void rs_cli_set_help_hook(rs_cli_help_hook_fn *hook, void *ctx);

/* "ringsim NAME: message" (when loud); returns RS_EXIT_USAGE. */
int rs_cli_usage(const char *name, bool loud, const rs_err_t *err);

/* The command line as one string, "ringsim sweep -S 64K ..." (truncated to len). Returns buf. */
const char *rs_cli_command_line(char *buf, size_t len, int argc, char **argv);

/* A run that succeeded: keep the kernel curves' fallbacks (rs_setup_finish's kernel_notes) for
 * rs_cli_notes_print, which main calls once stdout and the outputs are safe (a run that fails ends
 * with its one error line, output.h). Can't fail. */
void rs_cli_kernel_notes(const rs_setup_t *s);
/* The command's last line (as printf; "ringsim report: written to ..."), kept for rs_cli_notes_print:
 * said on stdout only once the outputs are committed, after the notes. Can't fail. */
void rs_cli_closing_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The kept notes once on stderr as "ringsim: note: ...", then the closing line on stdout, then both
 * forgotten: the notes come before the command's last line. Can't fail. */
void rs_cli_notes_print(void);
/* The figures --allow-implausible took as given (rs_setup_finish's warning), at once on stderr as
 * "ringsim NAME: warning: ..." (one line); nothing when there are none. Can't fail. */
void rs_cli_setup_warning(const char *name, const rs_setup_t *s);
/* A command whose stdout is its table (model, sim): every warning and note of its setup at once on
 * stderr, each one line ending with a newline - the warning above, the problem's note ("ringsim
 * NAME: note: ..."), the extra note when not NULL or empty (the same form), the kernel curves'
 * fallbacks ("ringsim: note: ...", as rs_cli_notes_print words them; nothing is kept for it). Called
 * once, after the command's last refusal of bad input and before its first output: a refused run
 * prints only its error line, a table comes after its notes, and a write failing later still ends
 * the run with its error line. Can't fail. */
void rs_cli_notes_now(const char *name, const rs_setup_t *s, const char *extra);

#endif /* RS_CLI_COMMAND_RUN_H */
