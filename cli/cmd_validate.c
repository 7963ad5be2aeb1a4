/* cmd_validate.c - `ringsim validate` (stub: not implemented yet). */
#include <stdio.h>

#include "cli.h"

int rs_cmd_validate(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim validate: not implemented in this build\n");
    return RS_EXIT_FAIL;
}
