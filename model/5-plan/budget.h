/* budget.h - the buyer's question: with a budget of G devices, which tensor x context x data split
 * (TP inside a node, CP = Ulysses x ring, DP), which layout and which of Ring, Ulysses and USP trains
 * fastest or cheapest, and why each other one loses (docs/plan.md section 4c). The same for serving:
 * budget_serve.h (budget.c).
 *
 * Every configuration with tp x cp x dp = G is costed by rs_plan_option (plan.h: the one step cost, the
 * one memory model): tp a divisor of the node's devices that the model's heads allow (tp.h), dp a
 * divisor of the global batch, cp = G / (tp dp) split into every U x R the heads and the node allow,
 * each layout asked for; S must divide over the ring (2R for zigzag). They are ranked by step time or
 * by cost per step (different candidates, different prices); what does not fit ranks after what
 * does. */
#ifndef RS_BUDGET_H
#define RS_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"

/* What a configuration is limited by: the largest share of its step, or memory. */
typedef enum {
    RS_LIMIT_LINEAR = 0,  /* the projections' and FFN's GEMMs */
    RS_LIMIT_ATTENTION,   /* the attention kernels, transfers hidden */
    RS_LIMIT_RING,        /* the attention with ring transfers exposed (transfer-bound) */
    RS_LIMIT_A2A,         /* Ulysses' all-to-alls */
    RS_LIMIT_TP,          /* TP all-reduces */
    RS_LIMIT_MEMORY,      /* does not fit */
    RS_LIMIT_COUNT
} rs_limit_t;
const char *rs_limit_name(rs_limit_t b); /* "linear", "attention", "ring-transfers", "all-to-all", "tp-allreduce", "memory" */
/* The bound of o (plan.h's option). Can't fail. */
rs_limit_t rs_plan_limit(const rs_plan_option_t *o);

/* One configuration of a budget: the candidate it runs on (an index of the caller's), its option. */
typedef struct {
    int cand;
    rs_plan_option_t opt;
} rs_budget_entry_t;

typedef struct {
    int n, cap;
    rs_budget_entry_t *e;     /* malloc'd: rs_budget_free */
    int n_fit;                /* how many fit */
} rs_budget_t;

/* Append every configuration of G = gpus devices on candidate cand (hw, m) for c (its model, S,
 * global batch, precision, ckpt, runtime; c->tp, c->dp and c->layout are the search's; layouts: the
 * ones to try) to b. S must be given (not max). Returns 0, or -1 with err: bad input (no divisor of
 * gpus leaves a TP group inside a node, S 0), runtime (out of memory). */
int rs_budget_add(rs_budget_t *b, int cand, const rs_plan_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, int64_t gpus,
                  const rs_layout_t *layouts, int n_layouts, rs_err_t *err);
/* Sort b: fitting first, then by cost per step (by_cost; a configuration without a price after those
 * with one) or step time. Can't fail. */
void rs_budget_sort(rs_budget_t *b, bool by_cost);
/* Why entry o loses to the best (b->e[0]), one phrase into buf: "does not fit: 92.1 GiB > 80.0 GiB
 * usable", or the share of the step it spends most more on ("+18%: TP all-reduces +3.21 ms a layer"),
 * with its ring's B and B* when transfer-bound. Returns buf. */
const char *rs_budget_loses(const rs_budget_t *b, const rs_budget_entry_t *o, bool by_cost, char *buf, size_t len);
/* What rs_budget_add of these would walk (estimate.h), added to e. Can't fail. */
void rs_budget_estimate(const rs_plan_config_t *c, const rs_machine_t *m, int64_t gpus, int n_layouts, rs_estimate_t *e);
void rs_budget_free(rs_budget_t *b);

#endif /* RS_BUDGET_H */
