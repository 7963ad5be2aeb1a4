/* commands.h - the subcommands as data (commands.c): name, summary, entry point (cmd_NAME.c) and the
 * text of `ringsim NAME --help` around its option tables; the program's own description for
 * `ringsim --help` and ringsim(1). */
#ifndef RS_CLI_COMMANDS_H
#define RS_CLI_COMMANDS_H

/* The subcommands' entry points: argv[0] is the command's name; they return the exit code. */
typedef int rs_cmd_fn(int argc, char **argv);
rs_cmd_fn rs_cmd_model, rs_cmd_sim, rs_cmd_exec, rs_cmd_calibrate, rs_cmd_validate, rs_cmd_compare, rs_cmd_import,
    rs_cmd_sweep, rs_cmd_plot, rs_cmd_report, rs_cmd_memory, rs_cmd_plan, rs_cmd_profiles,
    rs_cmd_plan_infer; /* ringsim plan --inference */

/* A subcommand, as data (cli/commands.c): `ringsim --help` lists the summaries, `ringsim NAME
 * --help` prints usage, the option tables and notes. run is NULL when this build lacks what the
 * command needs (missing says what, e.g. "this build has no CPU executor (needs OpenBLAS)"). */
typedef struct {
    const char *name;                  /* "sweep" */
    const char *summary;               /* one line */
    rs_cmd_fn *run;                    /* the entry point, or NULL */
    const char *missing;               /* why run is NULL */
    int max_args;                      /* positional arguments allowed (more: "unexpected argument");
                                          -1: the command checks them */
    const char *usage;                 /* --help before the options: usage line and description */
    const char *notes;                 /* --help after them, or NULL */
} rs_command_t;

/* Every subcommand, in `ringsim --help` order; the last has name NULL. */
extern const rs_command_t rs_commands[];
/* The subcommand called name, or NULL. */
const rs_command_t *rs_cli_command(const char *name);

/* The program, as `ringsim --help` and ringsim(1) describe it: one line, a paragraph, the
 * environment variables it reads (a table ending with name NULL) and the files it uses. */
extern const char rs_cli_about[];
extern const char rs_cli_description[];
typedef struct {
    const char *name;                  /* "RINGSIM_PLOTS_DIR" */
    const char *text;                  /* what it does, one sentence */
} rs_cli_env_t;
extern const rs_cli_env_t rs_cli_environment[];
extern const char rs_cli_files[];

#endif /* RS_CLI_COMMANDS_H */
