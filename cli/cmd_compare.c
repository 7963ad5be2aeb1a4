/* cmd_compare.c - `ringsim compare` (stub: not implemented yet). */
#include <stdio.h>

#include "cli.h"

int rs_cmd_compare(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim compare: not implemented in this build\n");
    return RS_EXIT_FAIL;
}
