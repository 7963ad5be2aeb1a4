/* main.c - `ringsim COMMAND [options]`: dispatch to the subcommands (cli/cmd_*.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out) {
    fprintf(out, "usage: ringsim COMMAND [options]   (ringsim COMMAND --help for its options)\n\n");
    for (const rs_command_t *c = rs_commands; c->name; c++) fprintf(out, "  %-10s %s\n", c->name, c->summary);
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
    const rs_command_t *c = rs_cli_command(argv[1]);
    if (c && c->run) return c->run(argc - 1, argv + 1);
    if (c) {
        fprintf(stderr, "ringsim %s: %s\n", c->name, c->missing);
        return RS_EXIT_FAIL;
    }
    fprintf(stderr, "ringsim: unknown command '%s' (expected one of:", argv[1]);
    for (c = rs_commands; c->name; c++) fprintf(stderr, " %s", c->name);
    fprintf(stderr, ")\n");
    return RS_EXIT_USAGE;
}
