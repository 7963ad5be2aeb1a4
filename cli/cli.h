/* cli.h - the `ringsim` command: subcommand entry points and the options they share.
 *
 * Every subcommand is `int rs_cmd_NAME(int argc, char **argv)` (argv[0] is the subcommand name) in
 * cli/cmd_NAME.c, returns an exit code (0, 1 runtime failure, 2 bad input) and prints errors as one
 * line "ringsim NAME: message" on stderr. Options are parsed with getopt_long; sizes take K/M/G
 * suffixes (powers of 1024), rates take SI suffixes (450G = 450e9).
 *
 * Shared problem/machine options (rs_cli_common_t) are parsed by rs_cli_common_opt(); each command
 * appends RS_CLI_COMMON_LONGOPTS to its own option table and calls rs_cli_common_help() in --help.
 */
#ifndef RS_CLI_H
#define RS_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "hw.h"
#include "model.h"
#include "schedule.h"
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

/* Values of the shared options after parsing (before rs_cli_common_finish). */
typedef struct {
    rs_problem_t problem;          /* layout/pass fields are overwritten per entry of the lists */
    int n_layouts;                 /* layouts asked for (--layout a,b or all) */
    rs_layout_t layouts[RS_LAYOUT_COUNT];
    int n_passes;                  /* passes asked for (--pass forward|backward|both) */
    rs_pass_t passes[RS_PASS_COUNT];
    rs_dtype_t dtype;              /* --dtype (sets problem.act_bytes) */
    char profile[512];             /* --profile name or path */
    char inter[512];               /* --inter tier name or path ("" = the profile's) */
    int64_t gpus_per_node;         /* --gpus-per-node (-1 = the profile's; 0 = flat ring) */
    double flops_override;         /* --flops (0 = profile) */
    double bw_override;            /* --bw (0 = profile; applies to the intra tier) */
    double inter_bw_override;      /* --inter-bw */
    double latency_override;       /* --latency (< 0 = profile) */
    double launch_override;        /* --launch-overhead (< 0 = profile) */
    double overlap_override;       /* --overlap (< 0 = profile) */
    double slowdown_override;      /* --slowdown (< 0 = profile) */
    double host_xfer_override;     /* --host-cost S[:S_PER_BYTE] (< 0 = profile) */
    double host_byte_override;
    double jitter;                 /* --jitter */
    uint64_t seed;                 /* --seed */
    int n_stragglers;              /* --straggler RANK:FACTOR (repeatable) */
    int64_t straggler_rank[RS_MAX_PERTURB];
    double straggler_factor[RS_MAX_PERTURB];
    int n_degraded;                /* --degrade HOP:FACTOR (repeatable) */
    int64_t degraded_hop[RS_MAX_PERTURB];
    double degraded_factor[RS_MAX_PERTURB];
    char impl[32];                 /* --impl preset name ("" = the profile's default) */
    char kernel[64];               /* --kernel name ("" = the one the preset runs on the profile) */
    bool grad_bytes_given;         /* --grad-bytes was given (else the preset's dK,dV dtype) */
    char kernel_notes[768];        /* fallbacks the kernel curves take for this problem (printed once) */
    /* results of rs_cli_common_finish */
    rs_hw_t hw;                    /* the loaded profile (overrides applied) */
    rs_machine_t machine;          /* machine for model and sim */
} rs_cli_common_t;

/* Long option codes of the shared options start here; commands use codes below 256 or above
 * RS_OPT_COMMON_END for their own. */
enum {
    RS_OPT_COMMON_BEGIN = 1000,
    RS_OPT_SEQ, RS_OPT_RANKS, RS_OPT_BATCH, RS_OPT_HEADS, RS_OPT_KV_HEADS, RS_OPT_HEAD_DIM,
    RS_OPT_DTYPE, RS_OPT_GRAD_BYTES, RS_OPT_CAUSAL, RS_OPT_NO_CAUSAL, RS_OPT_LAYOUT, RS_OPT_PASS,
    RS_OPT_TILE, RS_OPT_PROFILE, RS_OPT_INTER, RS_OPT_GPUS_PER_NODE, RS_OPT_FLOPS, RS_OPT_BW,
    RS_OPT_INTER_BW, RS_OPT_LATENCY, RS_OPT_LAUNCH, RS_OPT_OVERLAP, RS_OPT_SLOWDOWN, RS_OPT_HOST_COST, RS_OPT_JITTER,
    RS_OPT_SEED, RS_OPT_STRAGGLER, RS_OPT_DEGRADE, RS_OPT_IMPL, RS_OPT_KERNEL,
    RS_OPT_COMMON_END
};

/* getopt_long entries of the shared options (no terminator). Short forms: -S seq, -N ranks,
 * -L layout, -P pass, -p profile. */
#define RS_CLI_COMMON_SHORTOPTS "S:N:L:P:p:"
extern const struct option rs_cli_common_longopts[];
extern const int rs_cli_common_n_longopts;

/* Defaults: rs_problem_default(), profile "h100-sxm", all three layouts? No: layouts {zigzag},
 * passes {forward}, dtype bf16, no overrides. Can't fail. */
void rs_cli_common_init(rs_cli_common_t *c);
/* Handle one getopt result. Returns 1 if it was a shared option (parsed), 0 if not shared, -1 with
 * err on a bad value (err names the option, the value and the accepted range). */
int rs_cli_common_opt(rs_cli_common_t *c, int opt, const char *arg, rs_err_t *err);
/* Load the profile, apply overrides, build the machine (its implementation preset and kernel: --impl,
 * --kernel, else the profile's default; --flops without --impl = the dense peak model), validate the
 * problem for every layout and pass asked for. The kernel curves' fallbacks are printed once each on
 * stderr as "ringsim: note: ...". Returns 0 or -1 with err. */
int rs_cli_common_finish(rs_cli_common_t *c, rs_err_t *err);
/* The problem for entry (layout i, pass j). */
rs_problem_t rs_cli_common_problem(const rs_cli_common_t *c, int layout_i, int pass_j);
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
/* Record the machine (profile name, F, tiers, perturbations) in a trace header. */
struct rs_trace;
int rs_cli_meta_machine(struct rs_trace *t, const rs_machine_t *m);
/* The machine's overlap model in one line: "overlap 0.5" or "overlap curve 65536:0.26 ..." (eta by
 * bytes), then ", slowdown S" when > 1 and ", host cost o s + O s/byte" when set. */
void rs_cli_overlap_desc(const rs_machine_t *m, char *dst, size_t len);

#endif /* RS_CLI_H */
