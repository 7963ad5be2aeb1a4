/* memory.h - transformer shapes (model presets) and the per-device memory of training with ring attention.
 *
 * A transformer description (profiles/models/<name>.json, embedded like the hardware presets) gives
 * layers, hidden size, query and KV heads, head_dim, FFN size and kind, vocabulary. From it and a
 * training setup (S, ring degree N, sequences per ring, ZeRO-3 group, precision, checkpointing) the
 * memory model returns, per device, one figure per term. Every term is derived once in docs/memory.md;
 * this file implements exactly those formulas:
 *
 *   weights, grads, optimizer   P * {2,2,12} bytes (mixed: bf16 weights/grads, fp32 master + Adam m,v)
 *                               or P * {4,4,8} (fp32), divided by the ZeRO-3/FSDP group size
 *   fsdp_unit                   one unsharded unit being used: 2 gathered copies (current + prefetch)
 *                               plus its unsharded gradient, unit = max(layer, embedding) parameters
 *   activations (saved)         L * T * a_saved(ckpt), T = local tokens = batch * S / N
 *   layer working set           T * a_work(ckpt): norm/residual tensors of the layer being recomputed
 *   ring buffers                T * max(forward, backward) working set of the ring (below)
 *   ring blocks already saved   minus the resident Q, K, V, O that no/selective checkpointing also saves
 *   all-to-all staging          Ulysses/USP (U > 1) only: T * (q + 2k) * a, the transposed Q, K, V
 *   ffn chunk                   blockwise FFN: min(chunk, T) tokens of FFN intermediates (and grads)
 *   logits chunk                chunked loss: min(loss chunk, T) tokens x vocab x fp32 logits and grads
 *   runtime                     what the framework and libraries hold beside the tensors (rs_runtime_t):
 *                               the CUDA context, NCCL's buffers per communicator, the flash kernels'
 *                               fp32 workspace, the caching allocator's fragmentation; the framework's
 *                               reserve is the usable fraction of device memory (rs_runtime_usable)
 * With tensor parallelism of degree tp (sequence parallelism on: Megatron-SP) every term is one device's:
 * 1/tp of the matrices and of the vocabulary, Hq/tp and Hkv/tp (or one replicated) heads, and the
 * hidden-size activations split by tokens over the TP group.
 *
 * Ring working set per local token (q = Hq*d, k = Hkv*d, a = activation bytes, g = grad bytes):
 *   forward  (2q + 4k) * a          resident Q, O, own K, V and the incoming K, V (double buffer):
 *                                   six blocks of B*hidden under MHA, the paper's "6 blocks resident"
 *   backward 3q*a + q*g + 4k*a + 6k*g  resident Q, O, dO, dQ accumulator; current + incoming K, V;
 *                                   dK, dV accumulating, incoming partial, outgoing partial
 * Without a ring (pure Ulysses, N / U = 1) there is nothing incoming: forward (2q + 2k) * a, backward
 * 3q*a + q*g + 2k*a + 2k*g (the local dK, dV accumulators).
 */
#ifndef RS_MEMORY_H
#define RS_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "util.h"

/* ---------------------------------------------------------------------------------------------------
 * Transformer shapes
 * ------------------------------------------------------------------------------------------------- */
typedef enum { RS_FFN_SWIGLU = 0, RS_FFN_GELU, RS_FFN_COUNT } rs_ffn_kind_t;
const char *rs_ffn_kind_name(rs_ffn_kind_t k);            /* "swiglu" | "gelu" */
int rs_ffn_kind_parse(const char *s, rs_ffn_kind_t *out);  /* 0 or -1 */

typedef struct {
    char name[RS_NAME_LEN];   /* e.g. "llama3-8b" */
    int64_t layers;           /* L transformer blocks */
    int64_t hidden;           /* h model width */
    int64_t q_heads;          /* Hq */
    int64_t kv_heads;         /* Hkv (divides Hq) */
    int64_t head_dim;         /* d */
    int64_t ffn;              /* f FFN inner width */
    rs_ffn_kind_t ffn_kind;   /* swiglu: 3 h x f matrices; gelu: 2 */
    int64_t vocab;            /* V */
    bool tied_embeddings;     /* LM head shares the embedding matrix */
    double params_reference;  /* published parameter count (0 = none given) */
    char source[512];         /* where the shapes come from */
} rs_transformer_t;

/* Load a model description: a preset name ("llama3-8b") or a path (contains '/' or ends in ".json").
 * Returns 0 or -1 with err; semantic errors name file:line:column and the key (unknown keys, wrong
 * types, values out of range), e.g. "x.json:5:5: transformer.kv_heads: 3 must divide q_heads = 32". */
int rs_transformer_load(const char *name_or_path, rs_transformer_t *out, rs_err_t *err);
/* Parse model text; origin is the file name used in messages. Same rules. */
int rs_transformer_parse(const char *text, const char *origin, rs_transformer_t *out, rs_err_t *err);
/* Validate ranges (positive sizes, kv_heads | q_heads, sizes small enough for exact 64-bit counts).
 * Messages name the key. Returns 0 or -1. */
int rs_transformer_validate(const rs_transformer_t *t, rs_err_t *err);
/* Names of the embedded model presets (files with a top-level "transformer" key), NULL-terminated,
 * sorted. Can't fail. */
const char *const *rs_transformer_preset_names(void);

/* Parameter counts (exact). Layer: Wq, Wk, Wv, Wo, FFN matrices and 2 norm vectors. Total: L layers +
 * embedding + LM head (unless tied) + final norm. Matmul parameters per layer exclude the norms. */
uint64_t rs_transformer_layer_params(const rs_transformer_t *t);
uint64_t rs_transformer_layer_matmul_params(const rs_transformer_t *t);
/* The FFN matrices of one layer: 3 x hidden x ffn (SwiGLU: gate, up, down), else 2 x (fc1, fc2). */
uint64_t rs_transformer_layer_ffn_params(const rs_transformer_t *t);
uint64_t rs_transformer_params(const rs_transformer_t *t);

/* ---------------------------------------------------------------------------------------------------
 * Memory per device
 * ------------------------------------------------------------------------------------------------- */
typedef enum { RS_PREC_MIXED = 0, RS_PREC_FP32, RS_PREC_COUNT } rs_precision_t;
/* The runtime a job runs under, for the terms beside its tensors (docs/memory.md section 3.6): PyTorch
 * on GPUs (CUDA context, NCCL, flash-attn workspace, caching-allocator fragmentation), JAX on GPUs (CUDA
 * context, NCCL; XLA assigns a program's buffers statically: no fragmentation term; 75% of the device
 * preallocated), JAX on TPUs (none of them), or none (the tensors alone). */
typedef enum { RS_RT_PYTORCH = 0, RS_RT_JAX_GPU, RS_RT_JAX_TPU, RS_RT_NONE, RS_RT_COUNT } rs_runtime_t;
const char *rs_runtime_name(rs_runtime_t r);               /* "pytorch" | "jax-gpu" | "jax-tpu" | "none" */
int rs_runtime_parse(const char *s, rs_runtime_t *out);    /* 0 or -1 */
/* The fraction of device memory the runtime lets a job allocate (1 - the framework's reserve): 0.75
 * for JAX on GPUs (its default preallocation), 1 otherwise. The one default of --usable in memory,
 * plan and plan --inference. Can't fail. */
double rs_runtime_usable(rs_runtime_t r);
/* The runtime's fixed bytes of one device: the CUDA context and n_comms NCCL communicators with
 * a2a_peers all-to-all peers (GPU runtimes; 0 otherwise). Can't fail. */
double rs_runtime_fixed_bytes(rs_runtime_t r, int n_comms, int64_t a2a_peers);
/* The runtime's allocator fragmentation as a fraction of the tensors: its average (high false) or the
 * top of its published range (high true; the bottom is 0): PyTorch 0.15, 0.33; 0 otherwise. Can't fail. */
double rs_runtime_fragmentation(rs_runtime_t r, bool high);
typedef enum { RS_CKPT_NONE = 0, RS_CKPT_SELECTIVE, RS_CKPT_FULL, RS_CKPT_COUNT } rs_ckpt_t;
const char *rs_precision_name(rs_precision_t p);           /* "mixed" | "fp32" */
int rs_precision_parse(const char *s, rs_precision_t *out);
const char *rs_ckpt_name(rs_ckpt_t c);                     /* "none" | "selective" | "full" */
int rs_ckpt_parse(const char *s, rs_ckpt_t *out);

typedef struct {
    int64_t seq_tokens;       /* S: tokens of one sequence */
    int64_t sp_degree;        /* N: devices one sequence is split over (ring; Ulysses x ring for USP) */
    int64_t ulysses_degree;   /* U: Ulysses part of N (1 = pure ring, N = pure Ulysses; U divides N) */
    int64_t batch;            /* sequences resident per sequence-parallel group (micro-batch) */
    int64_t shard_devices;    /* ZeRO-3/FSDP group size dividing weights, grads, optimizer (>= 1) */
    rs_precision_t precision; /* mixed (bf16 + fp32 master + Adam) or fp32 (+ Adam) */
    rs_ckpt_t ckpt;           /* activation checkpointing */
    int64_t chunk_tokens;     /* blockwise FFN chunk, tokens */
    int64_t loss_chunk_tokens; /* chunked loss, tokens; 0: the loss over every local token at once */
    int64_t tp_degree;        /* tensor parallelism inside a node (tp.h); 1: none */
    rs_runtime_t runtime;     /* what the runtime adds (rs_runtime_t) */
} rs_mem_config_t;

/* Defaults: S 128K, N 8, U 1, batch 1, shard_devices 8, mixed, full checkpointing, chunk and loss chunk
 * 2048 tokens, no TP, PyTorch. */
void rs_mem_config_default(rs_mem_config_t *c);

/* Bytes per element implied by the precision. */
int64_t rs_precision_act_bytes(rs_precision_t p);          /* 2 mixed, 4 fp32 */
int64_t rs_precision_grad_bytes(rs_precision_t p);         /* dK,dV in flight, dQ accumulator: 4 */

typedef struct {
    int64_t local_tokens;         /* T = batch * S / N */
    double params;                /* P */
    double params_device;         /* P on one device: 1/tp of the matrices and vocabulary, norms whole */
    double weights_bytes;         /* sharded weights */
    double grads_bytes;           /* sharded gradients */
    double optim_bytes;           /* sharded optimizer state (master copy if mixed, Adam m, v) */
    double fsdp_unit_bytes;       /* unsharded unit: 2 gathered copies + its gradient */
    double act_per_token_layer_bytes; /* a_saved(ckpt) per token per layer */
    double act_saved_bytes;       /* L * T * a_saved */
    double layer_work_bytes;      /* T * a_work(ckpt) */
    double ring_fwd_bytes;        /* forward ring working set, T tokens */
    double ring_bwd_bytes;        /* backward ring working set, T tokens */
    double ring_bytes;            /* max of the two */
    double ring_shared_bytes;     /* resident Q, K, V, O also counted in act_saved (none/selective) */
    double a2a_bytes;             /* Ulysses all-to-all staging (0 for a pure ring) */
    double ffn_chunk_bytes;       /* blockwise FFN working set */
    double logits_chunk_bytes;    /* chunked loss working set */
    double model_bytes;           /* the tensors: the terms above, ring_shared subtracted, with attn_workspace */
    double attn_workspace_bytes;  /* the flash kernels' fp32 backward workspace (PyTorch): T (4 q + 4 Hq) */
    double context_bytes;         /* the CUDA context (GPU runtimes) */
    double comm_bytes;            /* NCCL's buffers: per communicator, and per all-to-all peer */
    double fragmentation_bytes;   /* the caching allocator's fragmentation of model_bytes (PyTorch: 15%) */
    double total_bytes;           /* model + fragmentation + context + comm: what fits is judged on */
    double total_low_bytes, total_high_bytes; /* the range: no fragmentation .. the published worst (33%) */
} rs_mem_t;

/* Memory per device of sequence-parallel training (ring, Ulysses or USP by c->ulysses_degree).
 * Validates c (S divisible by N, U divides N, sizes >= 1) with err naming the parameter. The head-count
 * bound of Ulysses is checked by model/5-plan/alt.h, not here. Returns 0 or -1. */
int rs_memory_ring(const rs_transformer_t *t, const rs_mem_config_t *c, rs_mem_t *out, rs_err_t *err);

/* The attention's forward working set per local token (bytes), see the header comment; has_ring = false
 * for a pure Ulysses split (nothing circulates). Can't fail. */
double rs_memory_ring_fwd_per_token(const rs_transformer_t *t, int64_t act_bytes, bool has_ring);

/* Print the breakdown as an aligned table ("# " header lines, one term per line, GiB and bytes), then,
 * with a device (device_mem_bytes > 0), whether the total fits usable_frac of it. */
void rs_memory_print(FILE *out, const rs_transformer_t *t, const rs_mem_config_t *c, const rs_mem_t *m,
                     double device_mem_bytes, double usable_frac);

#endif /* RS_MEMORY_H */
