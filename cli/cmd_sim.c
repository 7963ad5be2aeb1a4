/* cmd_sim.c - `ringsim sim` (stub: not implemented yet). */
#include <stdio.h>

#include "cli.h"

int rs_cmd_sim(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim sim: not implemented in this build\n");
    return RS_EXIT_FAIL;
}
