/* shared_opts.h - the options most commands share (shared_opts.c), one table filling an rs_setup_t
 * (studies/setup.h): the problem (-S, -N, --heads, ..., -L, -P, --tile), the hardware (-p, --inter,
 * --flops, --bw, ..., --straggler, --degrade) and the limits (--max-time, --max-memory), each
 * section also offered alone. */
#ifndef RS_CLI_SHARED_OPTS_H
#define RS_CLI_SHARED_OPTS_H

#include "options.h"
#include "setup.h"

/* --allow-implausible's help, one text for every command that takes it (the shared table's row, the
 * planners', memory's) */
#define RS_CLI_ALLOW_IMPLAUSIBLE_HELP                                                                   \
    "take a figure beyond its device's physics as given, with a warning\n"                             \
    "(F above the datasheet peak x 1.05, W above the link's nominal rate)"

extern const rs_opt_t rs_cli_shared_opts[];
extern const int rs_cli_shared_n;
/* The shared options as a group filling s; skip: the names another group of the command takes
 * over ("seq,ranks,profile" for sweep's ranges), or NULL. */
rs_opt_group_t rs_cli_shared_group(rs_setup_t *s, const char *skip);
/* Only the problem's options (the table's first section: -S ... --tile), filling s. */
rs_opt_group_t rs_cli_problem_group(rs_setup_t *s);
/* Only the limits (the table's last section: --max-time, --max-memory), filling s->limits: for a
 * command without the other shared options (plan). */
rs_opt_group_t rs_cli_limits_group(rs_setup_t *s);
/* An inference problem (--cached, --ring pass-q, --pass decode) runs the forward pass only unless
 * --pass was given in `shared` (the shared group it was parsed with). Call before rs_setup_finish.
 * Can't fail. */
void rs_cli_inference_passes(rs_setup_t *s, const rs_opt_group_t *shared);

#endif /* RS_CLI_SHARED_OPTS_H */
