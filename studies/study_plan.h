/* study_plan.h - the capacity-planning study behind `ringsim plan` (model/5-plan/plan.h, docs/plan.md):
 * for every candidate profile (and every layout asked for), the smallest sequence-parallel N that fits
 * memory (or the longest context at N), the predicted attention and layer times, whether the ring's
 * transfers hide, MFU and cost; Ring against Ulysses and USP at that N with the winner and why;
 * optionally every split simulated in SimGrid and the longest context against N; written as a table,
 * CSVs and a figure. With a budget of devices (gpus > 0): every TP x CP x DP split, layout and Ring /
 * Ulysses / USP of it on every candidate ranked by step time or cost, the best few and why each loses
 * (model/5-plan/budget.h). With compare: the candidates' best side by side.
 */
#ifndef RS_STUDY_PLAN_H
#define RS_STUDY_PLAN_H

#include <stdbool.h>
#include <stdio.h>

#include "budget.h"
#include "plan.h"

#define RS_PLAN_MAX_CANDIDATES 32
#define RS_PLAN_MAX_PRICES 32
#define RS_PLAN_SIM_MAX_N 512 /* simulate: the all-pairs platform has N^2 routes */
#define RS_PLAN_MAX_CURVE 32

typedef struct {
    char name[256];           /* profile name or spec; "" = every candidate */
    double usd;               /* per device-hour */
    const char *arg;          /* --price as given, quoted by messages (NULL: set by a caller) */
} rs_plan_price_t;

struct rs_contention_knobs; /* studies/study_contention.h (with the simulator) */

typedef struct {
    rs_plan_config_t config;  /* the plan: model, S (0 = the longest that fits), batch, dp, N, ... */
    const char *profiles;     /* candidates: a comma list of profile names or files */
    const char *inter;        /* inter-node tier of every candidate (NULL: each profile's) */
    const char *impl;         /* the implementation preset of every candidate (NULL: each profile's default) */
    const char *kernel;       /* the kernel of every candidate (NULL: the one the preset runs there) */
    int64_t gpus_per_node;    /* devices per node of every candidate (-1: each profile's) */
    int n_prices;             /* prices per device-hour (override the profiles') */
    rs_plan_price_t prices[RS_PLAN_MAX_PRICES];
    bool simulate;            /* also simulate every split in SimGrid (N <= RS_PLAN_SIM_MAX_N) */
    const struct rs_contention_knobs *knobs; /* with simulate: also the ring split as a job of its dp replicas
                                 (as many as fit in RS_PLAN_SIM_MAX_N devices) on each fabric of the
                                 knobs' lists, ZeRO-3 traffic when its background is fsdp; NULL: no */
    const char *contention_csv;    /* those points as CSV ("-" = stdout instead of their table; NULL: table only) */
    const char *contention_figure; /* efficiency vs NICs per node or ratio (needs contention_csv; NULL: none) */
    const char *csv;          /* the table as CSV ("-" = stdout instead of the table; NULL: none) */
    const char *maxctx_csv;   /* the longest context against N per candidate (NULL: none) */
    const char *figure;       /* that curve drawn (.png/.pdf/.svg; NULL: none) */
    bool progress;            /* a progress meter on a terminal (model/1-base/meter.h) */
    rs_limits_t limits;       /* --max-time, --max-memory: the plan's walks and simulations, estimated before
                                 any runs (estimate.h; 0: the defaults) */
    int n_layouts;            /* layouts to plan (0: config.layout alone) */
    rs_layout_t layouts[RS_LAYOUT_COUNT];
    int64_t gpus;             /* a budget of devices: every split of it ranked (0: no budget) */
    bool by_cost;             /* rank the budget's splits by cost per step (needs prices), else step time */
    int64_t top;              /* how many of the budget's best to print (0: 5) */
    bool compare;             /* the candidates' best side by side (needs two or more) */
    double attn_eff;          /* --attn-eff: attention at this x peak (0: the kernel model) */
    bool allow_implausible;   /* --allow-implausible: a candidate's figure beyond its device's physics is
                                 taken as given with a warning (plausible.h), not refused */
    FILE *out;                /* the table */
} rs_plan_in_t;

typedef struct {
    char spec[512];           /* as given */
    rs_hw_t hw;               /* loaded, overrides applied */
    rs_machine_t machine;     /* cost parameters */
    char warning[1024];       /* the figures --allow-implausible took as given ("" when none) */
    rs_layout_t layout;       /* the layout of this plan (one candidate is planned once per layout) */
    rs_plan_result_t res;     /* the plan */
    int n_curve;              /* longest context per N = 1, 2, 4, ... */
    int64_t curve_n[RS_PLAN_MAX_CURVE];
    int64_t curve_seq[RS_PLAN_MAX_CURVE];
    bool curve_capped[RS_PLAN_MAX_CURVE]; /* the 64-bit FLOP limit, not memory, stopped the search */
    double sim_attn_s[RS_PLAN_MAX_OPTIONS]; /* SimGrid: attention per layer as t_attn_layer_s; NaN = not run */
} rs_plan_candidate_t;

/* The price per device-hour of the candidate given as spec with the profile name `name`: the last of
 * prices that names either or none, else *usd as it was. Can't fail. */
void rs_plan_price_apply(const rs_plan_price_t *prices, int n_prices, const char *spec, const char *name, double *usd);
/* Every price that names a candidate names one of names (the candidates' specs and profile names);
 * profiles: the --profile list quoted. Returns 0, or -1 with err "--price X: no such candidate in
 * --profile LIST". */
int rs_plan_prices_check(const rs_plan_price_t *prices, int n_prices, const char *const *names, int n_names, const char *profiles,
                         rs_err_t *err);

/* Defaults: the plan defaults (rs_plan_config_default), candidate h100-sxm, out = stdout. */
void rs_plan_defaults(rs_plan_in_t *in);
/* Run the study and write its outputs. Returns 0, or -1 with err: RS_ERR_BAD_INPUT (a candidate, a
 * price, the estimated work above in->limits, or nothing fits: err names the closest candidate and
 * its shortfall), RS_ERR_RUNTIME (SimGrid, writing; the contention jobs: their own kind). */
int rs_study_plan(const rs_plan_in_t *in, rs_err_t *err);

#endif /* RS_STUDY_PLAN_H */
