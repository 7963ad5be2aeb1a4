/* tp.h - tensor parallelism inside a node, as training (plan.h) and serving (infer.h) plan it: which
 * degrees a model and a node allow, the heads each device holds, and the all-reduces of a layer.
 *
 * A TP group is tp consecutive devices of one node (Megatron-LM's layout: Shoeybi et al. 2019, arXiv
 * 1909.08053, Section 3). Each device holds Hq/tp query heads and Hkv/tp KV heads, or one KV head,
 * replicated, when the node has more devices than the model has KV heads (tp a multiple of Hkv), and
 * 1/tp of every projection and FFN matrix and of the vocabulary (the LM head and the embedding are
 * split by vocabulary). Every layer combines its partial outputs with ring all-reduces over the group
 * (Megatron's "g" operator; with sequence parallelism an all-gather plus a reduce-scatter of the same
 * volume, Korthikanti et al. 2022, arXiv 2205.05198, Section 4.2.2), each costed on the node's tier as
 *   t_ar(M) = 2 (tp - 1) (L_intra + M / (tp W_intra))
 * (NCCL's ring all-reduce: 2 (tp - 1) steps of M / tp bytes), not overlapped with compute. Derivation:
 * docs/plan.md section 4a. */
#ifndef RS_TP_H
#define RS_TP_H

#include <stdbool.h>
#include <stdint.h>

#include "machine.h"
#include "memory.h"
#include "util.h"

/* Is tensor parallelism of degree tp possible for t on nodes of g devices: tp >= 1 divides g (a TP
 * group stays inside one node) and Hq, and divides Hkv or is a multiple of it (KV heads split, or one
 * replicated per device). err names --tp and the rule. Returns 0 or -1. */
int rs_tp_check(const rs_transformer_t *t, int64_t g, int64_t tp, rs_err_t *err);

/* Query and KV heads one device of a TP group holds: Hq/tp, and Hkv/tp or 1 (replicated). tp must pass
 * rs_tp_check. Can't fail. */
int64_t rs_tp_q_heads(const rs_transformer_t *t, int64_t tp);
int64_t rs_tp_kv_heads(const rs_transformer_t *t, int64_t tp);
/* The attention shape of one device: t with rs_tp_q_heads and rs_tp_kv_heads (every other field as
 * t's), what the sequence-parallel attention (alt.h, infer.h) is costed on. Can't fail. */
rs_transformer_t rs_tp_device_attention(const rs_transformer_t *t, int64_t tp);

/* The forward GEMMs of one layer on one device of a TP group, their (N, K) into nk (M is the tokens):
 * QKV (h -> q/tp + 2 Hkv' d), O (q/tp -> h), the FFN's up projection (gate and up fused under SwiGLU:
 * h -> 2f/tp; GELU h -> f/tp), its down projection (f/tp -> h). Returns their count (4). Can't fail. */
int rs_tp_layer_gemms(const rs_transformer_t *t, int64_t tp, double nk[4][2]);

/* The bytes one device streams through its memory per token of one layer for the layer's elementwise
 * operations, each reading its operands and writing its result once (unfused, as eager frameworks run
 * them; activations in e = 2 bytes): the two RMSNorms (read h, write h: 2 x 2 h e), the two residual
 * adds (read 2 h, write h: 2 x 3 h e), RoPE on the device's query and key heads (2 (q + k) e), the
 * FFN's activation (SwiGLU: read the gate and up halves, write their product, 3 f/tp e; GELU 2 f/tp e)
 * and, when the FFN runs in FP8, the quantization of its two inputs (read in e, write in one byte:
 * 3 h + 3 f/tp). The layer's structure is Llama's (Touvron et al. 2023, arXiv 2302.13971, section 2:
 * pre-normalization with RMSNorm, SwiGLU, rotary embeddings); docs/inference.md section 7. Can't fail. */
double rs_tp_pointwise_bytes(const rs_transformer_t *t, int64_t tp, bool fp8_ffn);

/* One ring all-reduce of `bytes` per device over a TP group of tp devices of machine m's node (the
 * formula above; 0 for tp = 1). Can't fail. */
double rs_tp_allreduce_s(const rs_machine_t *m, int64_t tp, double bytes);

#endif /* RS_TP_H */
