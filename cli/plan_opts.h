/* plan_opts.h - the options both planners take: the model and the candidate hardware of `ringsim plan`
 * (cmd_plan.c) and `ringsim plan --inference` (cmd_plan_infer.c). One table (plan_opts.c), offered as
 * two groups so that each command lists its rows among its own options, where its --help has them:
 * --model, then (after rows of the command's own) --profile, --gpus-per-node, --inter and
 * --allow-implausible. The
 * studies take the values (rs_plan_in_t, rs_infer_in_t: profiles, gpus_per_node, inter,
 * allow_implausible) from
 * rs_cli_planned_t after parsing.
 */
#ifndef RS_CLI_PLAN_OPTS_H
#define RS_CLI_PLAN_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"
#include "study_plan.h"

typedef struct {
    const char *model;        /* -m: a model preset or JSON file (NULL: not given) */
    const char *profiles;     /* -p: the candidates, a comma list of profile names or files */
    int64_t gpus_per_node;    /* devices per node of every candidate (-1: each profile's) */
    const char *inter;        /* inter-node tier of every candidate (NULL: each profile's) */
    bool allow_implausible;   /* --allow-implausible: a candidate's figure beyond its device's physics
                                 taken as given, with a warning (plausible.h) */
} rs_cli_planned_t;

/* The --model row, and the candidates' rows (--profile, --gpus-per-node, --inter, --allow-implausible), as groups filling
 * x, both marked own (options.h). Every value is an input file when it names one (checked by
 * rs_cli_check_files: no output replaces it). Can't fail. */
rs_opt_group_t rs_cli_plan_model_group(rs_cli_planned_t *x);
rs_opt_group_t rs_cli_plan_hw_group(rs_cli_planned_t *x);

/* --price [NAME=]USD (repeatable): appended to prices (RS_PLAN_MAX_PRICES), *n counting them. arg
 * must live as long as prices (quoted by later messages). Returns 0 or -1 with err "--price X: the
 * price per device-hour must be a number in [0, 1e+06], got 'Y'". */
int rs_cli_parse_price(const char *arg, rs_plan_price_t *prices, int *n, rs_err_t *err);

#endif /* RS_CLI_PLAN_OPTS_H */
