/* cli.h - the `ringsim` command: subcommand entry points and the options they share.
 *
 * Every subcommand is an rs_command_t rs_command_NAME in cli/cmd_NAME.c: its run() parses its
 * options (options.h: one table per command, plus the shared table rs_cli_shared_opts of the problem
 * and the hardware, which fills an rs_setup_t), calls one study or backend, prints, and returns an
 * exit code (0, 1 runtime failure, 2 bad input). Errors are one line
 * "ringsim NAME: message" on stderr. Sizes take K/M/G suffixes (powers of 1024), rates take SI
 * suffixes (450G = 450e9).
 */
#ifndef RS_CLI_H
#define RS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "machine.h"
#include "cost.h"
#include "options.h"
#include "registry.h"
#include "schedule.h"
#include "setup.h"
#include "study_sweep.h"
#include "util.h"
#include "job_opts.h" /* rs_cli_job_t (with SimGrid) */

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

/* The shared options: the problem (-S, -N, --heads, ..., -L, -P, --tile) and the hardware (-p,
 * --inter, --flops, --bw, ..., --straggler, --degrade), one table filling an rs_setup_t. */
extern const rs_opt_t rs_cli_shared_opts[];
extern const int rs_cli_shared_n;
/* The shared options as a group filling s; skip: the names another group of the command takes
 * over ("seq,ranks,profile" for sweep's ranges), or NULL. */
rs_opt_group_t rs_cli_shared_group(rs_setup_t *s, const char *skip);
/* A run that succeeded: keep the kernel curves' fallbacks (rs_setup_finish's kernel_notes) for
 * rs_cli_notes_print, which main calls once stdout and the outputs are safe (a run that fails ends
 * with its one error line, output.h). Can't fail. */
void rs_cli_kernel_notes(const rs_setup_t *s);
/* The kept notes once on stderr as "ringsim: note: ...", then forgotten. Can't fail. */
void rs_cli_notes_print(void);
/* Only the problem's options (the table's first section: -S ... --tile), filling s. */
rs_opt_group_t rs_cli_problem_group(rs_setup_t *s);
/* Only the limits (the table's last section: --max-time, --max-memory), filling s->limits: for a
 * command without the other shared options (plan). */
rs_opt_group_t rs_cli_limits_group(rs_setup_t *s);
/* An inference problem (--cached, --ring pass-q, --pass decode) runs the forward pass only unless
 * --pass was given in `shared` (the shared group it was parsed with). Call before rs_setup_finish.
 * Can't fail. */
void rs_cli_inference_passes(rs_setup_t *s, const rs_opt_group_t *shared);

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
/* A measuring study's command (calibrate, validate) as parsed: the setup (made from the study's
 * default problem: fp32, its layout and pass, N = the launcher's -np under mpirun), the executors'
 * options, the three option groups (own, executors', shared: rs_cli_given) and whether this process
 * talks (not under a launcher, or its rank 0). */
typedef struct {
    rs_setup_t c;
    rs_cli_exec_t x;
    rs_opt_group_t groups[3];
    bool loud;
} rs_cli_exec_cmd_t;
/* Parse its command line: its own options (own), the executors' (filling *job) and the shared ones.
 * stdout is line-buffered (a run cut short keeps what it printed). Returns as rs_cli_run_parse. */
int rs_cli_exec_parse(const char *name, int argc, char **argv, rs_opt_group_t own, const rs_problem_t *p,
                      rs_exec_spmd_t *job, rs_cli_exec_cmd_t *e);
/* Then: the executor (e->x.backend) into *backend, its own dtype unless --dtype was given, the setup
 * checked with each of the blocks (S = B N) before any rank starts, the study's problem (the last
 * block's) and dtype, the command line into the job (a re-launch under mpirun repeats it). Returns 0
 * or -1 with err. */
int rs_cli_exec_finish(rs_cli_exec_cmd_t *e, const int64_t *blocks, int n_blocks, const rs_backend_ops_t **backend,
                       rs_problem_t *problem, rs_dtype_t *dtype, rs_exec_spmd_t *job, int *argc, char ***argv, rs_err_t *err);
#include "study_fromtrace.h"
/* calibrate / validate --from-trace FIRST [FILE...]: the trace files (first, then the positional
 * arguments after optind) into paths[] and o, the problem of import's defaults (rs_setup_default)
 * with the problem options given on the command line (o->given says which), --dtype and --latency
 * when given. Any other option given is refused, except the command's own in applies (a comma list,
 * "out,name"): "--blocks cannot be used with --from-trace (the traces fix B: ...)". Returns 0 or -1
 * with err naming the option. */
int rs_cli_from_trace_opts(const rs_cli_exec_cmd_t *e, const char *first, const char *applies, int argc, char **argv,
                           const char *paths[RS_TFIT_MAX_TRACES], rs_tfit_opts_t *o, rs_err_t *err);
/* rs_cli_check_files for --from-trace: the command's given file options and o's trace files as
 * inputs, checked before any work. Returns -1 to go on, or RS_EXIT_USAGE (printed). */
int rs_cli_check_trace_inputs(const char *name, const rs_cli_exec_cmd_t *e, const rs_tfit_opts_t *o);
#endif

/* Parse the options of the command called name, and when that ends the command, its exit code:
 * --help (its usage, the groups' options, its notes; printed only when loud: under mpirun only rank
 * 0 talks) -> RS_EXIT_OK; a bad option or value, or more positional arguments than its max_args,
 * printed as "ringsim NAME: message" -> RS_EXIT_USAGE. -1: parsed, go on (optind is the first
 * positional). */
int rs_cli_run_parse(const char *name, int argc, char **argv, rs_opt_group_t *groups, int n_groups, bool loud);

/* How --help is answered: printed (hook NULL, the default), or the command's usage and option groups
 * handed to hook instead - the man page and completion generators (cli/docgen.c) run every command
 * with --help and read the same rows --help prints. The groups are valid during the call only. */
typedef void rs_cli_help_hook_fn(void *ctx, const rs_command_t *cmd, rs_opt_group_t *groups, int n_groups);
void rs_cli_set_help_hook(rs_cli_help_hook_fn *hook, void *ctx);

/* The man pages (ringsim.1 and ringsim-NAME.1 per command) into dir, and the completion script of
 * shell ("bash" or "zsh") on out: from rs_commands and the option tables (cli/docgen.c). Return 0 or
 * -1 with err. */
int rs_cli_write_man(const char *dir, rs_err_t *err);
int rs_cli_write_completion(FILE *out, const char *shell, rs_err_t *err);

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

/* The command's files checked before any work (output.h): every given IN, IN_BUF, OUT and OUTDIR
 * option of the groups but those named in skip, and what plan holds already (positional inputs,
 * output paths the command derives). Frees plan. Returns -1 to go on, or RS_EXIT_USAGE after
 * "ringsim NAME: --csv x.csv: the same file as the input ..." (printed when loud). */
int rs_cli_check_files(const char *name, const rs_opt_group_t *groups, int n_groups, rs_io_plan_t *plan, const char *skip,
                       bool loud);

/* rs_cli_check_files for a command that writes --trace and --chrome per (layout, pass) entry of the
 * setup (rs_cli_entry_path): those paths instead of the options' values. Returns as
 * rs_cli_check_files. */
int rs_cli_check_entry_files(const char *name, const rs_setup_t *c, const rs_opt_group_t *groups, int n_groups,
                             const char *trace, const char *chrome, bool loud);

/* rs_cli_parse for command cmd, then its positional arguments against cmd->max_args ("unexpected
 * argument 'x' (see ringsim NAME --help)"): what rs_cli_run_parse decides, without printing.
 * Returns 1 (--help), 0 (parsed: optind is the first positional) or -1 with err. */
int rs_cli_command_parse(const rs_command_t *cmd, int argc, char **argv, rs_opt_group_t *groups, int n_groups,
                         rs_err_t *err);

/* "ringsim NAME: message" (when loud); returns RS_EXIT_USAGE. */
int rs_cli_usage(const char *name, bool loud, const rs_err_t *err);

/* Write a jansson tree (a json_t *, taken: it is released) as indented JSON with exact reals to
 * path, atomically ("-" = stdout). Returns 0 or -1 with err. */
int rs_cli_write_json(const char *path, void *root, rs_err_t *err);

/* The command line as one string, "ringsim sweep -S 64K ..." (truncated to len). Returns buf. */
const char *rs_cli_command_line(char *buf, size_t len, int argc, char **argv);

/* The output path of one (layout, pass) entry: path itself when only one entry is written, else
 * "out.csv" -> "out-zigzag-forward.csv" (the suffix goes before the extension). Can't fail
 * (truncates to len). */
void rs_cli_entry_path(char *dst, size_t len, const char *path, const rs_problem_t *p, bool several);

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
