/* budget_serve.h - the buyer's question for serving (budget.c, docs/inference.md section 7): with a
 * budget of G devices, which TP x CP split, layout and prefill variant (pass-KV, pass-Q, Ulysses, USP)
 * has the shortest time to first token, decode step or cost per prefill, and why each other one loses.
 * The training budget's module (budget.h): one order, one bound (rs_limit_t), one TP enumeration. */
#ifndef RS_BUDGET_SERVE_H
#define RS_BUDGET_SERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "budget.h"
#include "infer.h"

/* TP inside a node: every tp dividing the node's devices (G itself when G is less than a node) that
 * the model's heads allow (tp.h, as rs_infer_config_validate); CP = G / tp ranks over G / (devices per
 * node) nodes (G above a node must be whole nodes); each layout asked for where a ring runs. Each
 * split is costed by rs_infer_point (infer.h: the one TTFT, KV cache and decode model) and gives an
 * entry per prefill variant it can run: pass-KV, pass-Q, Ulysses (no ring: the first layout only) and
 * the point's fastest USP; one CP rank runs its local kernel, one entry (pass-KV's). Memory (weights +
 * KV cache + the runtime's reserve within the usable fraction) is the split's, the same for each of its
 * variants. */
typedef enum { RS_BUDGET_BY_TTFT = 0, RS_BUDGET_BY_DECODE, RS_BUDGET_BY_COST } rs_budget_rank_t;
const char *rs_budget_rank_name(rs_budget_rank_t r); /* "TTFT" | "decode step" | "cost per prefill" */

/* One serving configuration: the candidate (the caller's index), the split, the variant and its costs. */
typedef struct {
    int cand;
    int64_t tp, cp, nodes, ulysses, ring; /* tp x cp = G; U x R = cp */
    rs_layout_t layout;       /* of the ring (a variant without a ring: the first layout asked) */
    rs_infer_kind_t kind;
    bool fits, hidden;        /* hidden: every ring transfer behind its step's compute */
    double weight_bytes, kv_cache_bytes, runtime_bytes, usable_bytes; /* per device */
    double ttft_s;
    double linear_s, attn_s, a2a_s, allreduce_s; /* TTFT's terms: L x each per-layer term (the LM head with
                                 linear); attn_s the attention without its all-to-alls; they sum to ttft_s */
    double decode_step_s;     /* 0 without a decode batch (pass-q whatever the prefill variant) */
    double decode_linear_s, decode_attn_s, decode_allreduce_s; /* its terms, the same way */
    double usd_per_device_hour; /* the candidate's price (0: none) */
    double cost_per_prefill;  /* ttft_s x G x usd_per_device_hour / 3600; NaN without a price */
    double flops_util;        /* fraction of peak of the prefill (infer.h's flops_util at this TTFT) */
    int64_t block_tokens;     /* new tokens a ring rank holds (T / R) */
    double step_bytes, comm_s, comp_s; /* a middle ring step: bytes, transfer and compute (0 without a ring) */
} rs_budget_serve_t;

typedef struct {
    int n, cap;
    rs_budget_serve_t *e;     /* malloc'd: rs_budget_serve_free */
    int n_fit;
} rs_budget_serving_t;

/* A candidate: the caller's index, its profile and machine (plan --inference's: bf16 attention). */
typedef struct {
    int index;
    const rs_hw_t *hw;
    const rs_machine_t *m;
} rs_budget_cand_t;

/* The budget asked: G devices, the layouts to try (at least one). */
typedef struct {
    int64_t gpus;
    const rs_layout_t *layouts;
    int n_layouts;
} rs_budget_ask_t;

/* Append every serving configuration of ask on candidate k for c (model, T, P, decode batch, dtype,
 * efficiencies, usable fraction; c->tp > 0 searches that TP alone; c->nodes and c->layout are the
 * search's) to b. Returns 0, or -1 with err: bad input (G below 1, above a node and not whole nodes, no
 * TP the node and heads allow, no split that T and P divide over: the first reason), runtime. */
int rs_budget_serve_add(rs_budget_serving_t *b, const rs_budget_cand_t *k, const rs_infer_config_t *c, const rs_budget_ask_t *ask,
                        rs_err_t *err);
/* Sort b: fitting first (those that do not by memory), then by rank (a configuration without a price
 * after those with one), then TTFT. Can't fail. */
void rs_budget_serve_sort(rs_budget_serving_t *b, rs_budget_rank_t rank);
/* The bound of entry o: the largest term of its TTFT (or of its decode step, by_decode), or memory. */
rs_limit_t rs_budget_serve_limit(const rs_budget_serve_t *o, bool by_decode);
/* Why entry o loses to the best (b->e[0]), one phrase into buf: "does not fit: 92.1 GiB > 80.0 GiB
 * usable (+12.1 GiB: weights ..., KV cache ..., runtime ...)", or how much longer (dearer) it is and
 * the term it spends most more on, with the ring step's transfer and compute when exposed. Returns buf. */
const char *rs_budget_serve_loses(const rs_budget_serving_t *b, const rs_budget_serve_t *o, rs_budget_rank_t rank, char *buf, size_t len);
/* "does not fit: 92.1 GiB > 80.0 GiB usable (+12.1 GiB: ...)" of o into buf. Returns buf. */
const char *rs_budget_serve_overflow(const rs_budget_serve_t *o, char *buf, size_t len);
/* What rs_budget_serve_add of these would walk (rs_infer_estimate of every split), added to e. Can't fail. */
void rs_budget_serve_estimate(const rs_infer_config_t *c, const rs_machine_t *m, const rs_budget_ask_t *ask, rs_estimate_t *e);
void rs_budget_serve_free(rs_budget_serving_t *b);

#endif /* RS_BUDGET_SERVE_H */
