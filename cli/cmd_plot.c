/* cmd_plot.c - `ringsim plot` (stub: not implemented yet). */
#include <stdio.h>

#include "cli.h"

int rs_cmd_plot(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim plot: not implemented in this build\n");
    return RS_EXIT_FAIL;
}
