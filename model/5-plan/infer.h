/* infer.h - inference planning (docs/inference.md): the time to first token (TTFT) of a prompt of T new
 * tokens on P cached ones, the KV cache per device, the decode step latency, and which context-parallel
 * attention is fastest per point - ring pass-KV, ring pass-Q, Ulysses or USP across the context-parallel
 * (CP) ranks - in the deployment of long-context serving: tensor parallelism (TP) inside a node, CP
 * across nodes.
 *
 * A CP rank is `tp` devices of one node; nodes x (G / tp) CP ranks, filling nodes in order. Each device
 * holds Hq/tp query heads and Hkv/tp KV heads (one KV head, replicated, when Hkv < tp) and runs, per
 * layer (everything per device):
 *   linear     the layer's matmuls on its T/CP tokens with 1/tp of the weights, each GEMM by its shape
 *              (gemm.h): the FFN's in the linear dtype, the attention projections and the LM head in bf16
 *              (FP8 serving quantizes the FFN only: Llama 3's recipe), plus the layer's elementwise
 *              operations streamed through memory (tp.h rs_tp_pointwise_bytes, at the memory bandwidth);
 *   all-reduce two tensor-parallel ring all-reduces (attention output and FFN down projections) of
 *              (T/CP) h e_a bytes over the node's tier, 2 (tp-1) (L + M / (tp W)) each, not overlapped;
 *   attention  the ring schedule of model/2-schedule (pass-kv or pass-q, the cache sharded like the new
 *              tokens) walked by rs_model_walk on the CP ring (its hops the inter-node NICs, one per
 *              device), or Ulysses / USP: rs_machine_a2a_s all-to-alls around a local attention (or a
 *              ring of R = CP / U) on Hq/(tp U) heads.
 * TTFT = L (linear + all-reduce + attention) + the LM head on the first token.
 * Decode: `decode_batch` sequences decode one token each at a context of P + T; per layer the linear
 * roofline on ceil(b/CP) tokens (weight-bound), the all-reduces, and the decode schedule (pass-q) walked
 * memory-bound, at KV bytes / (memory bandwidth x decode_bw_eff): the rate min(F, I x bandwidth x
 * decode_bw_eff), I = 2 Hq/(Hkv e_a) FLOPs per KV byte.
 * Prefill attention rates (every variant, one compute model): the forward full-mask kernel curve of the
 * profile's implementation preset at each call's shape (a rank's query rows against the (T + P) / R
 * tokens of a K,V block) with the wave term, as a fraction of the peak on executed FLOPs; --attn-eff
 * (attn_eff > 0) replaces it, user-given; a machine without kernel curves runs its calibration curve
 * eff(B), else the bare peak (said so).
 */
#ifndef RS_INFER_H
#define RS_INFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "estimate.h"
#include "machine.h"
#include "memory.h"
#include "schedule.h"
#include "util.h"

typedef enum { RS_INFER_PASS_KV = 0, RS_INFER_PASS_Q, RS_INFER_ULYSSES, RS_INFER_USP, RS_INFER_COUNT } rs_infer_kind_t;
const char *rs_infer_kind_name(rs_infer_kind_t k); /* "pass-kv" | "pass-q" | "ulysses" | "usp" */

typedef struct {
    rs_transformer_t model;   /* the transformer */
    int64_t tp;               /* devices of a CP rank (tensor parallelism); 0 = the node's G */
    int64_t nodes;            /* nodes; CP ranks = nodes x G / tp */
    int64_t new_tokens;       /* T: the prompt's new tokens */
    int64_t cached_tokens;    /* P: tokens already in the KV cache */
    int64_t decode_batch;     /* sequences decoding one token each per step (0: no decode figures) */
    rs_layout_t layout;       /* ring layout of new and cached tokens */
    bool causal;              /* causal mask */
    rs_dtype_t linear_dtype;  /* the FFN's weights and GEMMs: bf16 or fp8 (projections, head, attention, activations: bf16) */
    double linear_eff;        /* GEMM efficiency against the linear dtype's peak */
    double attn_eff;          /* --attn-eff: attention at this x peak x the query padding, user-given (replaces
                                 the kernel curves); 0: the kernel model (rs_infer_rates_describe) */
    double usable_frac;       /* fraction of device memory for weights and the KV cache */
    int64_t tile;             /* attention kernel tile */
} rs_infer_config_t;

/* Defaults: tp 0 (G), 1 node, T 128K, P 0, no decode, zigzag, causal, bf16 linear, linear_eff 0 (by
 * shape), attn_eff 0 (the kernel model), usable 0 (the runtime's), tile 128; model zeroed. Can't fail. */
void rs_infer_config_default(rs_infer_config_t *c);

typedef struct {
    rs_infer_kind_t kind;
    bool feasible;            /* the split exists (heads, divisibility) */
    char why_not[1100];       /* when not */
    int64_t ulysses, ring;    /* U x R = CP ranks */
    double attn_layer_s;      /* attention per layer: the walk (+ all-to-alls) */
    double a2a_layer_s;       /* its all-to-alls (pass-q's return; Ulysses' in and out) */
    double step_bytes;        /* what a ring step moves per device (0 without a ring) */
    double comm_s, comp_s;    /* a middle ring step's transfer and compute, closed form (0 without a ring) */
    bool hidden;              /* every ring transfer hides behind its step's compute (the walk) */
    double ttft_s;            /* L (linear + all-reduce + attention) + head */
} rs_infer_option_t;

typedef struct {
    char hw_name[RS_NAME_LEN];
    int64_t devices_per_node, tp, cp, nodes, new_tokens, cached_tokens;
    double linear_layer_s;    /* prefill, per device: the GEMMs and the elementwise operations */
    double pointwise_layer_s; /* the elementwise operations' part of linear_layer_s */
    double allreduce_layer_s; /* both TP all-reduces of a layer */
    double head_s;            /* LM head on the first token */
    double kv_cache_bytes;    /* per device, P + T tokens, every layer */
    double weight_bytes;      /* per device */
    double usable_bytes;
    double runtime_bytes;     /* the CUDA context and NCCL's buffers (memory.h's runtime terms) */
    bool fits;                /* weights + KV cache + runtime <= usable */
    rs_infer_option_t opt[RS_INFER_COUNT];
    int best;                 /* fastest feasible option (-1: none) */
    int64_t cross_tokens;     /* the T at which pass-kv catches up with pass-q at this P (0: pass-kv is
                                 faster at every T tried; -1: not within 2^26 tokens) */
    double model_flops;       /* prefill: L (2 P_m T + useful attention FLOPs) + 2 V h */
    double flops_util;        /* the best option's fraction of peak: its model FLOPs at each part's datasheet peak (linear
                                 layers' dtype, attention bf16) over TTFT x devices; <= 1 */
    double decode_step_s;     /* one decode step (pass-q), 0 without decode */
    double decode_bw_eff;     /* the fraction of the memory bandwidth its attention reads the KV cache at
                                 (rs_infer_decode_bw_eff; 0 without decode) */
    double decode_attn_layer_s, decode_linear_layer_s;
    double decode_allreduce_layer_s; /* both TP all-reduces of a decode layer */
    double decode_head_s;     /* the decode step's LM head */
    char why[2048];           /* the winner and why, one line */
} rs_infer_point_t;

/* Check the configuration against the machine (tp divides G and Hq; T, P; ranges); err names the
 * option. Returns 0 or -1. */
int rs_infer_config_validate(const rs_infer_config_t *c, const rs_machine_t *m, rs_err_t *err);

/* Plan one point: every option, the best, the crossing, decode. hw gives memory, its bandwidth and the
 * linear dtype's peak; m is the node machine (G, intra and inter tiers, calibration). Returns 0 or -1
 * with err (invalid configuration). */
int rs_infer_point(const rs_infer_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, rs_infer_point_t *out,
                   rs_err_t *err);

/* A ring variant at a size: what circulates (pass-kv or pass-q), T new tokens on P cached. */
typedef struct {
    rs_ring_t ring;
    int64_t new_tokens, cached_tokens;
} rs_infer_ring_case_t;

/* Attention per layer of the ring variant rc (c's other fields): the walk's makespan into *attn_s.
 * *hidden (may be NULL) whether no compute step is transfer-bound. Returns 0 or -1 with err (sizes
 * the layout cannot split). */
int rs_infer_ring_attn(const rs_infer_config_t *c, const rs_machine_t *m, const rs_infer_ring_case_t *rc, double *attn_s,
                       bool *hidden, rs_err_t *err);

/* The pass-kv / pass-q boundary at c->cached_tokens: the smallest T (a multiple of the layout's
 * granule, up to 2^26) with pass-kv's attention no slower than pass-q's; 0 when pass-kv is no slower at
 * the smallest T, -1 when pass-q stays faster up to 2^26. Returns 0 or -1 with err. */
int rs_infer_crossing(const rs_infer_config_t *c, const rs_machine_t *m, int64_t *t_cross, rs_err_t *err);

/* What rs_infer_point of c costs (estimate.h), added to e: its walks - pass-kv, pass-q, Ulysses and every
 * USP split, the crossing's search when c has a cache, the decode step. And what one
 * rs_infer_crossing costs (at most: the doubling of T up to 2^26 and a bisection as long). c must be
 * valid (rs_infer_config_validate). Can't fail. */
void rs_infer_estimate(const rs_infer_config_t *c, const rs_machine_t *m, rs_estimate_t *e);
void rs_infer_crossing_estimate(const rs_infer_config_t *c, const rs_machine_t *m, rs_estimate_t *e);

/* The fraction of the memory bandwidth a decode attention kernel reads the KV cache at on hw: the
 * profile's device.decode_bw_eff, else (estimated) the device preset's its name names, else the
 * h100-sxm preset's; *src (may be NULL) gets where it comes from. Can't fail. */
double rs_infer_decode_bw_eff(const rs_hw_t *hw, rs_rate_source_t *src);

/* The attention rates of the plan of c on hw, m, one line for table headers: the prefill's (the kernel,
 * its curve and source, or --attn-eff user-given, or the calibration curve, or the bare peak) and, with
 * decode, the decode kernel's fraction of the memory bandwidth and its source. Returns buf. */
const char *rs_infer_rates_describe(const rs_infer_config_t *c, const rs_hw_t *hw, const rs_machine_t *m, char *buf, size_t len);

/* CP ranks of the configuration: nodes x G / tp (G: the machine's devices per node). Can't fail. */
int64_t rs_infer_cp_ranks(const rs_infer_config_t *c, const rs_machine_t *m);

/* The T/P at which pass-kv and pass-q cost the same when both are transfer-bound on one NIC per CP
 * rank (docs/inference.md): 2 Hkv d e / (2 Hq d e + 4 Hq - 2 Hkv d e), heads per device, e = 2 bytes.
 * Can't fail (the configuration validated). */
double rs_infer_comm_bound_ratio(const rs_infer_config_t *c, const rs_machine_t *m);

#endif /* RS_INFER_H */
