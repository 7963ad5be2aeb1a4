/* plan_opts.c - the options both planners take: the model and the candidate hardware (plan_opts.h). */
#include "plan_opts.h"

#include <stddef.h>

#include "shared_opts.h"

/* --gpus-per-node overrides a profile's devices per node, which is at least 1: both planners count
 * the devices of a node (plan --inference: CP ranks = nodes x G / TP). */
#define O(field) offsetof(rs_cli_planned_t, field)
static const rs_opt_t planned_opts[] = {
    {"model", 'm', "NAME|FILE", "required", "model preset or JSON (ringsim memory --list)", RS_ARG_IN, O(model), 0, 0, NULL,
     NULL, NULL},
    {"profile", 'p', "A,B,...", "h100-sxm", "candidate hardware profiles (names or files)", RS_ARG_IN, O(profiles), 0, 0,
     NULL, NULL, NULL},
    {"gpus-per-node", 0, "G", "profile's", "devices per node, all candidates", RS_ARG_SIZE, O(gpus_per_node), 1, 1 << 20,
     NULL, NULL, NULL},
    {"inter", 0, "TIER", "profile's", "inter-node tier, all candidates (e.g. ib-ndr)", RS_ARG_IN, O(inter), 0, 0, NULL,
     NULL, NULL},
    {"allow-implausible", 0, NULL, "refuse", RS_CLI_ALLOW_IMPLAUSIBLE_HELP, RS_ARG_TRUE, O(allow_implausible), 0, 0, NULL, NULL,
     NULL},
};
#undef O

rs_opt_group_t rs_cli_plan_model_group(rs_cli_planned_t *x) { return (rs_opt_group_t){planned_opts, 1, x, NULL, 0, true}; }

rs_opt_group_t rs_cli_plan_hw_group(rs_cli_planned_t *x) {
    return (rs_opt_group_t){planned_opts + 1, RS_OPTS_N(planned_opts) - 1, x, NULL, 0, true};
}
