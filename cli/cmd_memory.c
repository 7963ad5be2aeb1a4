/* cmd_memory.c - `ringsim memory` (stub: not implemented yet). */
#include <stdio.h>

#include "cli.h"

int rs_cmd_memory(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim memory: not implemented in this build\n");
    return RS_EXIT_FAIL;
}
