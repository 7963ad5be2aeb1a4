/* study_infer.h - the inference planning study behind `ringsim plan --inference` (model/5-plan/infer.h,
 * docs/inference.md): for every candidate profile, node count, prompt length T and cached prefix P, the
 * TTFT of pass-KV, pass-Q, Ulysses and USP with TP inside a node and CP across nodes, the best and why,
 * the KV cache per device, the decode step latency, parallel efficiency and FLOPS utilisation; written
 * as a table, a CSV per point, the pass-KV/pass-Q boundary in (T, P) and two figures (plots/ttft.gp,
 * plots/pass_boundary.gp).
 */
#ifndef RS_STUDY_INFER_H
#define RS_STUDY_INFER_H

#include <stdio.h>

#include "budget_serve.h"
#include "infer.h"
#include "study_plan.h"

#define RS_INFER_MAX_LIST 64      /* values per list (nodes, T, P) */
#define RS_INFER_MAX_CANDIDATES 16

typedef struct {
    rs_infer_config_t config;  /* model, tp, layout, dtypes, efficiencies, decode batch (nodes, T, P per point) */
    const char *profiles;      /* candidates: a comma list of profile names or files */
    const char *inter;         /* inter-node tier of every candidate (NULL: each profile's) */
    int64_t gpus_per_node;     /* devices per node of every candidate (-1: each profile's) */
    int n_nodes;               /* node counts */
    int64_t nodes[RS_INFER_MAX_LIST];
    int n_new;                 /* prompt lengths T */
    int64_t new_tokens[RS_INFER_MAX_LIST];
    int n_cached;              /* cached prefixes P */
    int64_t cached[RS_INFER_MAX_LIST];
    const char *csv;           /* every point as CSV ("-" = stdout instead of the table; NULL: none) */
    const char *figure;        /* TTFT against context length per variant and candidate (needs a list of T) */
    const char *boundary_csv;  /* the pass-kv/pass-q crossing T per (candidate, nodes, P) (NULL: none) */
    const char *boundary_figure; /* that boundary drawn in (T, P) */
    rs_limits_t limits;        /* --max-time, --max-memory: the walks, estimated before any runs (estimate.h;
                                  0: the defaults) */
    const char *impl;          /* --impl: the implementation preset whose kernel rates the prefill (NULL: each
                                  profile's default) */
    const char *kernel;        /* --kernel: the profile's kernel whose forward curves rate it (NULL: the preset's) */
    bool allow_implausible;    /* --allow-implausible: a candidate's figure beyond its device's physics is
                                  taken as given with a warning (plausible.h), not refused */
    int64_t gpus;              /* a budget of devices: every TP x CP split, layout and variant ranked (0: none;
                                  then one T, one P, nodes and layout the search's) */
    rs_budget_rank_t rank;     /* the budget's order: TTFT, decode step (needs a decode batch), cost (needs prices) */
    int64_t top;               /* the budget's best printed (0: 5) */
    int n_layouts;             /* the budget's layouts (0: config.layout alone) */
    rs_layout_t layouts[RS_LAYOUT_COUNT];
    int n_prices;              /* prices per device-hour (override the profiles') */
    rs_plan_price_t prices[RS_PLAN_MAX_PRICES];
    FILE *out;                 /* the table */
} rs_infer_in_t;

/* Defaults: rs_infer_config_default, candidate h100-sxm, nodes 1, T 128K, P 0, out = stdout. */
void rs_infer_defaults(rs_infer_in_t *in);
/* Run the study and write its outputs (with in->gpus: the budget's ranking, its --csv every split).
 * Returns 0, or -1 with err: RS_ERR_BAD_INPUT (a candidate, a configuration, a price, the estimated work
 * above in->limits, a budget nothing of which fits: err names the closest), RS_ERR_RUNTIME (writing,
 * gnuplot). */
int rs_study_infer(const rs_infer_in_t *in, rs_err_t *err);

#endif /* RS_STUDY_INFER_H */
