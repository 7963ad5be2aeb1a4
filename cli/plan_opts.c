/* plan_opts.c - the options both planners take: the model and the candidate hardware (plan_opts.h). */
#include "plan_opts.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ranges.h"
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

int rs_cli_parse_price(const char *arg, rs_plan_price_t *prices, int *n, rs_err_t *err) {
    if (*n >= RS_PLAN_MAX_PRICES) return rs_errf(err, "--price: at most %d", RS_PLAN_MAX_PRICES);
    const char *eq = strrchr(arg, '=');
    rs_plan_price_t *p = &prices[*n];
    p->name[0] = '\0';
    p->arg = arg;
    if (eq) snprintf(p->name, sizeof p->name, "%.*s", (int)(eq - arg), arg);
    (*n)++;
    rs_err_t e;
    const rs_range_t r = {RS_RANGE_PRICE};
    if (rs_parse_double("--price", eq ? eq + 1 : arg, r.min, r.max, &p->usd, &e) != 0)
        return rs_errf(err, "--price %s: the price per device-hour must be a number in [%g, %g], got '%s'", arg, r.min, r.max,
                       eq ? eq + 1 : arg);
    return 0;
}
