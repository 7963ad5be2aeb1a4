/* options.h - command-line options as data: one table row per option drives parsing (getopt_long),
 * the validation message of a bad value, the --help text of every command and the man pages and
 * shell completion (docgen.h). A command hands rs_cli_parse its option groups: its own table (filling
 * its own struct) and tables it shares with other commands (the problem and hardware options of
 * shared_opts.h, filling an rs_setup_t; the executors', the job's, the planners').
 *
 * Values land at `offset` in the group's struct, by kind:
 *   TRUE / FALSE   bool = true / false (no argument)
 *   SIZE           int64_t, K/M/G suffixes (powers of 1024), in [min, max]   (rs_parse_size)
 *   INT            int, as SIZE
 *   DOUBLE         double, SI suffixes (450G), finite, in [min, max]           (rs_parse_double)
 *   STRING         const char *: the argument itself
 *   BUF            char[max]: a copy of the argument (at most max - 1 characters)
 *   CHOICE         const char *: the argument, one of choices "a|b|c"
 *                  (else "--NAME X: expected a, b or c")
 *   CUSTOM         parse(the group's struct, the argument, err)
 *   IN             const char *: an input file (or NAME|FILE; a comma list is split)  \  checked by
 *   IN_BUF         char[max]: as BUF, an input file or NAME|FILE                       | rs_cli_check_files
 *   OUT            const char *: an output file ("-" = stdout)                         | (output.h) before
 *   OUTDIR         const char *: an output folder (created then)                      /  any work
 * Messages name the option and the value: "--seq 12Q: unknown suffix", "--launch x: expected
 * mpirun or threads".
 */
#ifndef RS_OPTIONS_H
#define RS_OPTIONS_H

#include <getopt.h> /* optind */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"
#include "util.h"

typedef enum {
    RS_ARG_TRUE = 0,
    RS_ARG_FALSE,
    RS_ARG_SIZE,
    RS_ARG_INT,
    RS_ARG_DOUBLE,
    RS_ARG_STRING,
    RS_ARG_BUF,
    RS_ARG_CHOICE,
    RS_ARG_CUSTOM,
    RS_ARG_IN,
    RS_ARG_IN_BUF,
    RS_ARG_OUT,
    RS_ARG_OUTDIR,
} rs_arg_kind_t;

typedef struct {
    const char *name;        /* long name without the dashes: "seq" */
    char short_name;         /* 'S', or 0 */
    const char *arg;         /* the argument in --help ("TOKENS"); NULL for TRUE / FALSE */
    const char *def;         /* the default as --help shows it ("128K"); NULL: none shown */
    const char *help;        /* what it does; '\n' continues on the next help line */
    rs_arg_kind_t kind;      /* how the argument is read */
    size_t offset;           /* where the value goes in the group's struct (offsetof) */
    double min, max;         /* SIZE, INT, DOUBLE: the accepted range; BUF: max = buffer size */
    const char *choices;     /* CHOICE: "a|b|c" */
    int (*parse)(void *dst, const char *arg, rs_err_t *err); /* CUSTOM: dst = the group's struct */
    const char *section;     /* a heading printed before this option in --help, or NULL */
} rs_opt_t;

/* One table of options and the struct its values go to. */
typedef struct {
    const rs_opt_t *opts;    /* the table */
    int n;                   /* its rows */
    void *dst;               /* the values */
    const char *skip;        /* names of rows not offered, comma-separated ("seq,ranks": another group's
                                rows take them), or NULL */
    uint64_t seen;           /* out: bit i set when opts[i] was given */
    bool own;                /* the command's own options go on in this group (a table shared by two
                                commands, between rows of their own): --help lists the built-in rows
                                after the last of group 0 and the own groups that follow it */
} rs_opt_group_t;

#define RS_OPTS_N(table) ((int)(sizeof(table) / sizeof(table)[0]))
/* A table as a group filling dst (every row offered, not marked own): RS_OPT_GROUP(own_opts, &o). */
#define RS_OPT_GROUP(table, dst) ((rs_opt_group_t){(table), RS_OPTS_N(table), (dst), NULL, 0, false})

/* Parse argv[1..] of command cmd (argv[0]) against the groups (at most 64 options each), then
 * optind is the first positional argument. -h / --help anywhere: returns 1 (nothing else is
 * checked). -q / --quiet (offered by every command; a command's own "quiet" row keeps its meaning
 * too) silences the progress meter (model/1-base/meter.h). Returns 0, or -1 with err: the value's
 * message, "unknown option '--x' (see ringsim CMD --help)" or "option '--seq' needs a value". */
int rs_cli_parse(const char *cmd, int argc, char **argv, rs_opt_group_t *groups, int n_groups, rs_err_t *err);
/* true when the option called name was given. */
bool rs_cli_given(const rs_opt_group_t *g, const char *name);
/* The value of the given file option (IN, IN_BUF, OUT, OUTDIR) called name of the groups, or NULL
 * when none was given. */
const char *rs_cli_given_path(const rs_opt_group_t *groups, int n_groups, const char *name);
/* Every given option of kind IN, IN_BUF, OUT or OUTDIR of the groups, except the names in skip
 * ("trace,chrome": the command adds the paths it derives from them), into plan. Returns 0 or -1
 * (out of memory). */
int rs_cli_io_add(rs_io_plan_t *plan, const rs_opt_group_t *groups, int n_groups, const char *skip);
/* The groups' options as --help lists them: sections, "  -S, --seq TOKENS  help  [default]"; the
 * built-in rows (-h, --help; -q, --quiet) after the command's own options (rs_cli_own_groups). */
void rs_cli_print_opts(FILE *out, const rs_opt_group_t *groups, int n_groups);
/* How many of the first groups hold the command's own options: group 0 and the groups marked own
 * right after it (at least 1 when n_groups > 0). */
int rs_cli_own_groups(const rs_opt_group_t *groups, int n_groups);
/* true when name is one of the items of the comma list (NULL: none). */
bool rs_cli_in_list(const char *list, const char *name);
/* true when row o of group g is offered (not in the group's skip list). */
bool rs_cli_offered(const rs_opt_group_t *g, const rs_opt_t *o);
/* The built-in rows the groups get (--help, and --quiet unless a group has its own): their count,
 * the rows into out[0..2). */
int rs_cli_builtins(const rs_opt_group_t *groups, int n_groups, const rs_opt_t **out);

#endif /* RS_OPTIONS_H */
