/* main.c - `ringsim COMMAND [options]`: dispatch to the subcommands (cli/cmd_*.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} rs_command_t;

static const rs_command_t commands[] = {
    {"model", rs_cmd_model, "analytic model: T_comp, T_comm, threshold, critical-path makespan"},
    {"sim", rs_cmd_sim, "simulate the schedule in SimGrid and write its trace"},
    {"exec", rs_cmd_exec, "execute the schedule for real (CPU: MPI + OpenBLAS; GPU: NCCL + CUDA)"},
    {"calibrate", rs_cmd_calibrate, "measure F_eff(B), transport alpha-beta and overlap; write a profile"},
    {"validate", rs_cmd_validate, "calibrate, then predict (model, sim) and measure (exec) a B sweep"},
    {"compare", rs_cmd_compare, "per-step and makespan errors between two traces"},
    {"import", rs_cmd_import, "read PyTorch-profiler (Kineto) / Nsight Systems traces into ringsim's schema"},
    {"sweep", rs_cmd_sweep, "sweep B, N, S, layout, pass, profile; write one CSV"},
    {"plot", rs_cmd_plot, "render a figure with gnuplot (PNG, PDF, SVG)"},
    {"report", rs_cmd_report, "the main job: traces, sweeps, figures and report.md/html"},
    {"memory", rs_cmd_memory, "per-device memory breakdown for training with ring attention"},
    {"plan", rs_cmd_plan, "capacity planning: smallest N, step time, cost; Ring vs Ulysses vs USP"},
    {"profiles", rs_cmd_profiles, "list or print the shipped hardware profiles"},
};
static const int n_commands = (int)(sizeof commands / sizeof commands[0]);

static void usage(FILE *out) {
    fprintf(out, "usage: ringsim COMMAND [options]   (ringsim COMMAND --help for its options)\n\n");
    for (int i = 0; i < n_commands; i++) fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nringsim %s: predicts, simulates and measures Ring Attention.\n", RINGSIM_VERSION);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return RS_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return RS_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("ringsim %s\n", RINGSIM_VERSION);
        return RS_EXIT_OK;
    }
    for (int i = 0; i < n_commands; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "ringsim: unknown command '%s' (expected one of:", argv[1]);
    for (int i = 0; i < n_commands; i++) fprintf(stderr, " %s", commands[i].name);
    fprintf(stderr, ")\n");
    return RS_EXIT_USAGE;
}
