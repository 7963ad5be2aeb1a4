/* cmd_exec.c - `ringsim exec` (stub: not implemented yet). */
#include <stdio.h>

#include "cli.h"

int rs_cmd_exec(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim exec: not implemented in this build\n");
    return RS_EXIT_FAIL;
}
