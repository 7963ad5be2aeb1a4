/* cmd_calibrate.c - `ringsim calibrate` (stub: not implemented yet). */
#include <stdio.h>

#include "cli.h"

int rs_cmd_calibrate(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim calibrate: not implemented in this build\n");
    return RS_EXIT_FAIL;
}
