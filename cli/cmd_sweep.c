/* cmd_sweep.c - `ringsim sweep` (stub: not implemented yet). */
#include <stdio.h>

#include "cli.h"

int rs_cmd_sweep(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim sweep: not implemented in this build\n");
    return RS_EXIT_FAIL;
}
