/* cmd_report.c - `ringsim report` (stub: not implemented yet). */
#include <stdio.h>

#include "cli.h"

int rs_cmd_report(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim report: not implemented in this build\n");
    return RS_EXIT_FAIL;
}
