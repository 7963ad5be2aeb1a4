/* alt.h - sequence parallelism alternatives costed with the same machine: Ring, Ulysses and USP.
 *
 * One layer's attention for a sequence of S tokens split over N = U * R devices (derivation:
 * docs/plan.md, "Ring, Ulysses, USP"):
 *   - Ring (U = 1, R = N): the ring schedule (model/2-schedule/schedule.h) walked by rs_model_walk on the machine.
 *   - Ulysses (U = N, R = 1): an all-to-all turns S/U tokens x all heads into S tokens x Hq/U heads,
 *     one local attention kernel, an all-to-all back. Needs U <= Hkv and U | Hkv (each device owns
 *     whole KV heads). Forward moves Q, K, V in and O out; backward moves dO in and dQ, dK, dV out,
 *     one all-to-all per tensor (rs_sp_a2a_calls), each paying its own latency: what the implementations
 *     issue (feifeibear/long-context-attention, yunchang/hybrid/attn_layer.py LongContextAttention.forward
 *     and yunchang/ulysses/attn_layer.py UlyssesAttention.forward: one SeqAllToAll4D each for query, key,
 *     value and the output; SeqAllToAll4D.backward, yunchang/comm/all_to_all.py, one per gradient; the
 *     same in DeepSpeed-Ulysses' DistributedAttention.forward, _SeqAllToAll per tensor).
 *   - USP (1 < U < N): Ulysses inside groups of U consecutive ranks, a ring of R = N / U ranks across
 *     groups; each ring rank holds S/R tokens of Hq/U query and Hkv/U KV heads. The ring walks the same
 *     schedule with those heads on a machine whose "node" holds G/U ring ranks (U | G) or one (G | U).
 * Ranks fill nodes of G devices in order (model/3-machine/machine.h). An all-to-all of M bytes per device over a group
 * of U ranks (rs_machine_a2a_s, model/3-machine/machine.h) keeps M/U, sends M (G'-1)/U inside the node and M (U-G')/U across nodes, G' = min(U, G):
 *   t_a2a = max(lat_intra + M (G'-1) / (U W_intra),  lat_inter + M (U-G') / (U W_inter))
 * (each device injects on its own links; the two tiers run concurrently). The all-to-alls of Ulysses do
 * not overlap its attention (data dependency); the ring's transfers overlap as the walk says.
 */
#ifndef RS_ALT_H
#define RS_ALT_H

#include <stdbool.h>
#include <stdint.h>

#include "machine.h"
#include "memory.h"
#include "cost.h"
#include "schedule.h"
#include "util.h"

typedef enum { RS_SP_RING = 0, RS_SP_ULYSSES, RS_SP_USP, RS_SP_COUNT } rs_sp_kind_t;
const char *rs_sp_kind_name(rs_sp_kind_t k); /* "ring" | "ulysses" | "usp" */

typedef struct {
    int64_t seq_tokens;  /* S */
    int64_t batch;       /* sequences per sequence-parallel group */
    int64_t ulysses;     /* U (1 = pure ring) */
    int64_t ring;        /* R (1 = pure Ulysses); N = U * R */
    bool causal;         /* causal mask */
    rs_layout_t layout;  /* ring layout (R > 1) */
    int64_t act_bytes;   /* Q, K, V, O, dO element bytes (also the all-to-all payload) */
    int64_t grad_bytes;  /* dK, dV in flight on the ring */
    int64_t tile;        /* kernel tile (tokens, square) */
} rs_sp_config_t;

/* Defaults: S 128K, batch 1, U 1, R 8, causal, zigzag, bf16 activations, fp32 grads, tile 128. */
void rs_sp_config_default(rs_sp_config_t *c);

typedef struct {
    rs_sp_kind_t kind;         /* from U and R */
    int64_t ulysses, ring;     /* U, R */
    bool a2a_inter;            /* the Ulysses group spans nodes */
    bool ring_inter;           /* the ring has inter-node hops */
    double a2a_fwd_bytes;      /* per device per layer: Q, K, V in + O out */
    double a2a_bwd_bytes;      /* dO in + dQ, dK, dV out */
    double a2a_fwd_s;          /* all-to-all time, forward, per layer: the 4 calls' (rs_sp_a2a_calls) */
    double a2a_bwd_s;          /* backward */
    double attn_fwd_s;         /* attention core: ring walk makespan (R > 1) or the local kernel */
    double attn_bwd_s;
    double fwd_s, bwd_s;       /* per layer: all-to-all + attention */
    int64_t ring_block_tokens; /* B = S / R tokens per ring rank (R > 1), else S */
    double ring_t_comp_s;      /* the layout's middle-step compute, forward (kernel.h's rule; R > 1, else 0) */
    double ring_t_comm_s;
    double ring_b_star_tokens; /* B*: largest B whose forward middle step is transfer-bound (kernel.h's rule) */
    int64_t comm_bound_fwd;    /* walk: (rank, step) of the forward whose transfers outlast the compute */
    int64_t comm_bound_bwd;    /* the same, backward, not counting the R tail steps (no compute) */
    bool ring_hidden_fwd;      /* the layout's middle step hides its transfers (kernel.h's rule, forward) */
    bool ring_hidden_bwd;      /* the same, backward */
    double walk_eff_fwd;       /* walk efficiency (perfect balance / makespan), forward */
    double flops_useful_fwd;   /* attention FLOPs of the whole sequence (all devices), forward */
    double flops_useful_bwd;   /* backward */
} rs_sp_cost_t;

/* Is the split possible? Checks U, R >= 1; U <= Hkv and U | Hkv (Ulysses' head bound); S divisible
 * by N = U * R (and by 2R for the zigzag ring); G and U nested (one divides the other) when the
 * machine has nodes. err explains which bound fails and why, e.g. "--ulysses 16: Ulysses splits
 * whole KV heads; llama3-8b has 8, so U must divide 8 (use a ring or USP for N > 8)".
 * Returns 0 or -1. */
int rs_sp_check(const rs_transformer_t *t, const rs_machine_t *m, const rs_sp_config_t *c, rs_err_t *err);

/* The ring part of a split: its sub-problem and the machine it runs on. */
typedef struct {
    rs_problem_t problem;     /* S tokens, R ranks, Hq/U and Hkv/U heads */
    rs_machine_t machine;     /* devices_per_node = G/U or 1, no perturbations when U > 1 */
} rs_sp_ring_t;

/* The ring sub-problem of a split for one pass into out. Returns 0 or -1 (rs_sp_check's errors). */
int rs_sp_ring_problem(const rs_transformer_t *t, const rs_machine_t *m, const rs_sp_config_t *c, rs_pass_t pass,
                       rs_sp_ring_t *out, rs_err_t *err);

/* The all-to-alls of one Ulysses group around one pass's attention, in the order issued: each call's
 * bytes per device (M of rs_machine_a2a_s) for the n_in before the attention and the n_out after it.
 * Forward: Q, K, V in (S/N tokens x Hq d, Hkv d, Hkv d x act_bytes), O out (Hq d); backward: dO in (Hq d),
 * dQ, dK, dV out (Hq d, Hkv d, Hkv d). U = 1: none. rs_sp_cost sums rs_machine_a2a_s over them and the
 * simulator (sim/sim_alt.c) issues the same calls one after the other. Can't fail. */
#define RS_SP_A2A_MAX 3
typedef struct {
    int n_in, n_out;
    double in_bytes[RS_SP_A2A_MAX], out_bytes[RS_SP_A2A_MAX];
} rs_sp_a2a_t;
void rs_sp_a2a_calls(const rs_transformer_t *t, const rs_sp_config_t *c, rs_pass_t pass, rs_sp_a2a_t *out);
/* The same calls from one device's tensors: q_bytes = tokens x Hq d x act_bytes, kv_bytes = tokens x
 * Hkv d x act_bytes (rs_sp_a2a_calls and the inference planner, model/5-plan/infer.c, both use it). */
void rs_sp_a2a_of_tensors(double q_bytes, double kv_bytes, rs_pass_t pass, rs_sp_a2a_t *out);
/* The calls' time on a group of u ranks, one after the other: the sum of rs_machine_a2a_s over them.
 * bytes (their sum) and inter (any call crosses nodes) are written when not NULL. */
double rs_sp_a2a_time_s(const rs_machine_t *m, int64_t u, const rs_sp_a2a_t *calls, double *bytes, bool *inter);

/* Cost one layer's attention for the split. Returns 0 or -1 with err. */
int rs_sp_cost(const rs_transformer_t *t, const rs_machine_t *m, const rs_sp_config_t *c, rs_sp_cost_t *out,
               rs_err_t *err);

/* Memory per device of the split c describes (rs_memory_ring, memory.h), after the split's own
 * checks when c->ulysses_degree > 1 and divides N: Ulysses' head bound and S divisible by N
 * (rs_sp_check; no machine needed for them). Returns 0 or -1 with err naming the parameter. */
int rs_sp_memory(const rs_transformer_t *t, const rs_mem_config_t *c, rs_mem_t *out, rs_err_t *err);

#endif /* RS_ALT_H */
