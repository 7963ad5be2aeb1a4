/* plan.h - capacity planning: the smallest sequence-parallel degree that fits, the longest context, and
 * the predicted step time, MFU and cost of Ring, Ulysses and USP on a candidate machine.
 *
 * Derivation and assumptions: docs/plan.md. In short, per candidate (a hardware profile turned into a
 * machine, nodes of G devices, an inter-node tier):
 *   - memory per device: model/5-plan/memory.h with ZeRO-3 over the N x dp devices holding one TP shard,
 *     the runtime's terms included; fits iff total <= usable x device memory (usable: the runtime's,
 *     rs_runtime_usable, or usable_frac when given);
 *   - tensor parallelism of degree tp inside a node (tp.h): the attention of one device on Hq/tp heads
 *     over a CP ring whose nodes hold G/tp ranks, 1/tp of every GEMM, the layer's TP all-reduces;
 *   - N: the smallest power of two <= max_sp whose ring memory fits (or the N given); with seq = 0
 *     ("max") the longest S that fits at that N (a multiple of 2N, binary search: memory grows with S);
 *   - attention time per layer: model/5-plan/alt.h (the ring walk of model/4-cost/cost.h, Ulysses' all-to-alls);
 *   - projections + FFN: each GEMM of the layer forward, its two backward GEMMs, and the forward again
 *     under selective and full checkpointing, timed by shape and dtype (gemm.h; bf16, or fp8 with
 *     fp8_linear), or at a flat linear_eff x peak when given; attention forward recomputed under full
 *     checkpointing; LM head forward + backward likewise; FSDP collectives assumed hidden;
 *   - step = accumulation x (L x layer + head), accumulation = global_batch / dp;
 *   - MFU = (6 x matmul params x tokens + 3 x useful attention FLOPs of the forward) / (step x devices x
 *     peak), model FLOPs only (no recompute; the kernel's backward recomputation of QK^T excluded); with
 *     fp8 GEMMs each part at its own dtype's datasheet peak (linear FLOPs / fp8 peak + attention FLOPs
 *     / bf16 peak) over step x devices, so MFU <= 1; cost = devices x price_per_device_hour x step / 3600.
 */
#ifndef RS_PLAN_H
#define RS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alt.h"
#include "estimate.h"
#include "gemm.h"
#include "machine.h"
#include "memory.h"
#include "tp.h"
#include "util.h"

#define RS_PLAN_MAX_OPTIONS 24

typedef struct {
    rs_transformer_t model;   /* the transformer */
    int64_t seq_tokens;       /* S; 0 = the longest that fits ("max") */
    int64_t global_batch;     /* sequences per optimizer step */
    int64_t dp;               /* data-parallel replicas (sequence-parallel groups); 0 = global_batch */
    int64_t max_sp;           /* largest N searched (power of two) */
    int64_t fixed_sp;         /* 0 = search the smallest N; else plan at this N */
    rs_precision_t precision; /* mixed or fp32 */
    rs_ckpt_t ckpt;           /* activation checkpointing */
    int64_t chunk_tokens;     /* blockwise FFN / loss chunk */
    bool causal;              /* causal mask */
    rs_layout_t layout;       /* ring layout */
    int64_t tile;             /* attention kernel tile */
    double usable_frac;       /* fraction of device memory a job may allocate; 0: the runtime's (rs_runtime_usable) */
    double linear_eff;        /* projections/FFN GEMM efficiency against peak, user-given; 0: by shape (gemm.h) */
    bool alternatives;        /* also cost Ulysses and USP at the chosen N */
    int64_t tp;               /* tensor parallelism inside a node (tp.h); 1: none */
    bool fp8_linear;          /* the projections', FFN's and LM head's GEMMs in fp8 (attention stays bf16) */
    int64_t loss_chunk_tokens; /* chunked loss (memory.h); 0: unchunked */
    rs_runtime_t runtime;     /* the runtime's memory terms and reserve (memory.h) */
} rs_plan_config_t;

/* Defaults: S 128K, global batch 1, dp 0, max_sp 4096, mixed, full checkpointing, chunk and loss chunk
 * 2048, causal, zigzag, tile 128, usable 0 (the runtime's), GEMMs by shape, alternatives on, tp 1, bf16
 * GEMMs, PyTorch. model is zeroed. */
void rs_plan_config_default(rs_plan_config_t *c);

typedef struct {
    rs_sp_kind_t kind;        /* ring, ulysses or usp */
    int64_t ulysses, ring;    /* U x R = N */
    bool fits;                /* memory fits */
    double mem_bytes;         /* per device */
    rs_sp_cost_t attn;        /* attention per layer (alt.h) */
    double t_attn_layer_s;    /* attention forward + backward (+ recompute) per layer */
    double t_linear_layer_s;  /* projections + FFN forward + backward (+ recompute) per layer */
    double t_layer_s;         /* sum */
    double t_head_s;          /* LM head forward + backward per micro-batch */
    double t_micro_s;         /* one micro-batch: L layers + head */
    double t_step_s;          /* optimizer step: accumulation x micro-batch */
    double model_flops_step;  /* model FLOPs of a step: 6 P_m per token + 3 x useful attention forward */
    double mfu;               /* model_flops_step / (t_step x devices x peak) */
    double cost_per_step;     /* currency units; NaN without a price */
    double cost_per_mtok;     /* per million tokens; NaN without a price */
    int64_t tp, dp, accum;    /* TP degree, replicas, micro-batches per step: devices = tp x U x R x dp */
    rs_layout_t layout;       /* the ring's layout */
    double usable_bytes;      /* what fits is judged against */
    double t_tp_layer_s;      /* TP all-reduces per layer (forward, backward, recompute), not overlapped */
    double linear_eff;        /* the layer's GEMMs: their FLOPs / (their time x peak) */
} rs_plan_option_t;

typedef struct {
    char hw_name[RS_NAME_LEN];  /* the profile */
    int64_t devices_per_node;   /* G of the machine */
    double usable_bytes;        /* usable_frac x device memory */
    int64_t seq_tokens;         /* S planned (the longest that fits when asked for "max") */
    bool seq_capped;            /* "max" stopped at the schedule's 64-bit FLOP limit, not memory */
    int64_t seq_tokens_low;     /* "max": the longest S at the memory terms' high end (total_high_bytes: most memory) */
    int64_t seq_tokens_high;    /* "max": the longest S at their low end (total_low_bytes: least memory); both 0 when S is given */
    int64_t sp;                 /* N chosen */
    int64_t dp;                 /* replicas */
    int64_t accum;              /* micro-batches per step per replica */
    int64_t devices;            /* N x dp */
    bool fits;                  /* the ring fits at N */
    double shortfall_bytes;     /* when nothing fits: memory over the usable amount at the largest N */
    char n_limit[160];          /* why the search stopped below max_sp ("" if it did not) */
    rs_mem_t mem;               /* ring memory at N */
    int n_options;              /* ring first, then Ulysses/USP splits */
    rs_plan_option_t options[RS_PLAN_MAX_OPTIONS];
    int best;                   /* index of the fastest option that fits, -1 if none */
    char why[768];              /* which option wins and why, one line */
} rs_plan_result_t;

/* Validate the configuration (batch divisible by dp, ranges); err names the option. Returns 0 or -1. */
int rs_plan_config_validate(const rs_plan_config_t *c, rs_err_t *err);
/* The usable fraction of c: usable_frac, or the runtime's when 0. Can't fail. */
double rs_plan_usable(const rs_plan_config_t *c);
/* The time of one layer's projections and FFN on one device (forward, its backward, and the forward
 * again under checkpointing) for T tokens at TP degree c->tp, with GEMM model g; *flops (may be NULL):
 * their FLOPs. Can't fail. */
double rs_plan_linear_layer_s(const rs_plan_config_t *c, const rs_gemm_t *g, double tokens, double *flops);

/* Memory of N devices (Ulysses degree U) at S tokens on a device of mem_bytes. Returns 0 or -1. */
int rs_plan_memory(const rs_plan_config_t *c, int64_t seq_tokens, int64_t sp, int64_t ulysses, rs_mem_t *out,
                   rs_err_t *err);
/* Longest S (a multiple of 2N) whose ring memory fits usable_bytes at N and whose schedule is
 * representable (rs_problem_validate: FLOP counts within 64 bits, at most 2^36 tokens); 0 if none.
 * *capped (may be NULL) is set when the representable limit, not memory, stopped the search.
 * Returns 0 or -1. */
int rs_plan_max_seq(const rs_plan_config_t *c, double usable_bytes, int64_t sp, int64_t *max_seq, bool *capped,
                    rs_err_t *err);
/* Which total of rs_mem_t a fit is judged on: total_bytes, total_low_bytes or total_high_bytes (the
 * memory model's range, memory.h: fragmentation 0 .. 33% under PyTorch). */
typedef enum { RS_PLAN_MEM_NOMINAL, RS_PLAN_MEM_LOW, RS_PLAN_MEM_HIGH } rs_plan_mem_end_t;
/* rs_plan_max_seq judged on the total of end (RS_PLAN_MEM_NOMINAL: rs_plan_max_seq). */
int rs_plan_max_seq_at(const rs_plan_config_t *c, double usable_bytes, int64_t sp, rs_plan_mem_end_t end, int64_t *max_seq,
                       bool *capped, rs_err_t *err);

/* The first half of rs_plan_run, no walk: validate c, choose N and S on the machine (memory only:
 * cheap), fill out but for the options (n_options 0, best -1, why ""). Returns 0 or -1 with err as
 * rs_plan_run. */
int rs_plan_choose(const rs_plan_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, rs_plan_result_t *out,
                   rs_err_t *err);
/* The sequence granule at N = sp: a zigzag ring needs S divisible by 2N, every split by N. Can't fail. */
int64_t rs_plan_granule(const rs_plan_config_t *c, int64_t sp);
/* The splits rs_plan_run costs at (S, N): their Ulysses degrees into ulysses[] - 1 (the ring) first,
 * then (with c->alternatives) every U | N that rs_sp_check accepts, at most RS_PLAN_MAX_OPTIONS.
 * Returns their count (>= 1). */
int rs_plan_splits(const rs_plan_config_t *c, const rs_machine_t *m, int64_t seq_tokens, int64_t sp,
                   int64_t ulysses[RS_PLAN_MAX_OPTIONS]);
/* What rs_plan_run costs after rs_plan_choose gave chosen (estimate.h): the walks of every split's
 * ring (R = N / U ranks), forward and backward. Can't fail. */
void rs_plan_estimate(const rs_plan_config_t *c, const rs_machine_t *m, const rs_plan_result_t *chosen, rs_estimate_t *e);

/* Plan on one machine (built from hw with the dtype of c->precision; hw gives memory and price).
 * Does not fail when nothing fits: result->fits = false with the shortfall. Returns -1 with err only
 * on invalid input (bad split, S not divisible, invalid machine). */
int rs_plan_run(const rs_plan_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, rs_plan_result_t *out,
                rs_err_t *err);

/* Bytes per dK,dV element the ring moves on machine m: its implementation preset's (fp32, or the
 * activations' under TE: model/4-cost/kernel.h), else the precision's. The plan's attention runs at m's
 * own rates (its kernel curves, or F x eff(B) without them). Can't fail. */
int64_t rs_plan_grad_bytes(const rs_plan_config_t *c, const rs_machine_t *m);

/* One split of N = U x R devices at S tokens (TP degree, replicas and layout: c's). */
typedef struct {
    int64_t seq_tokens;       /* S */
    int64_t ulysses, ring;    /* U, R */
} rs_plan_split_t;

/* Cost one split on the machine: memory, times, MFU, cost, with c's TP degree (the CP ranks tp devices
 * of one node each), replicas and layout. Returns 0 or -1 (invalid split). */
int rs_plan_option(const rs_plan_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, const rs_plan_split_t *split,
                   rs_plan_option_t *out, rs_err_t *err);

/* A candidate machine of a plan. */
typedef struct {
    const char *profile;      /* a preset name or a file */
    rs_precision_t precision; /* the machine runs at the peak of its dtype (bf16 for mixed, fp32) */
    int64_t gpus_per_node;    /* devices per node; -1: the profile's */
    const char *inter;        /* the inter-node tier; NULL or "": the profile's */
    double price;             /* per device-hour when >= 0; else the profile's */
    const char *impl;         /* the implementation preset costing attention (ringsim, flash-attn, te, none);
                                 NULL: the profile's default */
    const char *kernel;       /* the profile's kernel whose curves rate the calls; NULL: the one the preset runs */
    double attn_eff;          /* --attn-eff: attention at this x peak, the dense model (user-given); 0: none */
    bool allow_implausible;   /* --allow-implausible: a profile figure beyond its device's physics is a
                                 warning, not a refusal (plausible.h) */
} rs_plan_candidate_spec_t;

/* The candidate's profile and machine into *hw, *m. The plan study's candidates and foreign callers
 * (binding.h) load them here; the profile's figures are checked against the device it names
 * (rs_machine_spec_profile_checked): refused unless c->allow_implausible, then their warnings go to
 * warn (len bytes, "" when none; NULL: dropped). Returns 0 or -1 with err naming the file or option. */
int rs_plan_candidate(const rs_plan_candidate_spec_t *c, rs_hw_t *hw, rs_machine_t *m, rs_err_t *err);
int rs_plan_candidate_checked(const rs_plan_candidate_spec_t *c, rs_hw_t *hw, rs_machine_t *m, char *warn, size_t len, rs_err_t *err);

#endif /* RS_PLAN_H */
