/* cmd_plan.c - `ringsim plan` (stub: not implemented yet). */
#include <stdio.h>

#include "cli.h"

int rs_cmd_plan(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim plan: not implemented in this build\n");
    return RS_EXIT_FAIL;
}
