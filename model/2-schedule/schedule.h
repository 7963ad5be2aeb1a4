/* schedule.h - the ring schedule: the one object every backend walks.
 *
 * A problem (S tokens over N ranks, heads, dtypes, causal or not, layout, pass, kernel tile) is turned
 * once into an rs_schedule_t. The schedule is a cheap function of (rank, step): nothing is stored per
 * rank pair, so N = 65,536 needs O(1) memory. model/, sim/ and exec/ all call rs_schedule_step() (or
 * the fast rs_schedule_flops()) and never re-derive who holds which block.
 * The problem (names, validation, sizes) is implemented in problem.c, the schedule in schedule.c.
 *
 * Conventions (derived in docs/model.md):
 *  - B = S / N tokens per rank. Rank p's KV block circulates to p+1; at step k rank p holds the KV
 *    block owned by rank (p - k) mod N. Sends go to (p+1) mod N, receives come from (p-1) mod N.
 *  - Layouts: contiguous (rank p holds tokens [pB, (p+1)B)); striped (token t on rank t mod N);
 *    zigzag (2N chunks of C = B/2 tokens, rank p holds chunks p and 2N-1-p).
 *  - A rank's tokens are 1 or 2 "segments": arithmetic progressions {first + i*stride, i < count}.
 *  - Mask of a (Q segment, KV segment) pair, with i the Q index and j the KV index inside them:
 *    FULL (every pair visible), SKIP (every pair masked), DIAG (visible iff i - j >= diag).
 *    Under a causal mask only diag 0 and 1 occur (1: striped, KV rank after Q rank).
 *  - Useful FLOPs count visible (q, k) pairs only: forward 4*head_dim per pair per query head
 *    (2 for QK^T, 2 for PV); backward 10*head_dim (recompute QK^T 2, dV 2, dP 2, dQ 2, dK 2) = 2.5x.
 *  - Executed FLOPs: the kernel runs tile_q x tile_k tiles; a tile with at least one visible pair
 *    costs its whole (edge-clipped) area, a tile with none is skipped.
 *  - Forward: N steps. Step k < N-1 sends the K,V block it holds to p+1 (and receives the next);
 *    the last step sends nothing (the seed's convention), so the balanced makespan is
 *    (N-1) * max(T_comp, T_comm) + T_comp.
 *  - Backward: N + 1 steps. Step k < N-1 prefetches K,V as in the forward; steps 1..N carry the
 *    dK,dV partial of the block computed at step k-1 to p+1, where it is accumulated; step N (the
 *    tail) has no compute and brings every dK,dV home (rank p's last block is owned by p+1).
 *    dQ stays home. dK,dV travel in grad_bytes per element (default 4: fp32 accumulation).
 *  - Every transfer of a step is posted at the step's start; a step ends when its compute and all
 *    its transfers (in and out) are done. N = 1 has no transfers.
 *
 * Inference variants (derived in docs/inference.md):
 *  - A cached prefix of P tokens per sequence (cached_tokens): positions [0, P) hold K,V only; the S
 *    new tokens sit at positions [P, P + S). Both are sharded by the same layout rule, separately:
 *    rank p holds the layout's share of [0, P) (Bc = P / N tokens) and of [P, P + S) (B = S / N).
 *    Queries are the new tokens only; a rank's K,V are its cached segments then its new segments
 *    (up to 4). A new token sees every cached token (the block is FULL) and, under the causal mask,
 *    the new tokens up to itself, exactly as in training (the masks above, positions shifted by P).
 *  - pass-kv (ring RS_RING_PASS_KV, the training ring): Q stays, the K,V block of B + Bc tokens
 *    circulates. Forward only when P > 0 (a cache is an inference input).
 *  - pass-q (RS_RING_PASS_Q): K,V (cached + new) stay, the Q block of B tokens circulates: at step k
 *    rank p computes the queries of rank (p - k) mod N (q_owner) against its own K,V and keeps the
 *    partial output and log-sum-exp of that owner. Steps 0..N-1 compute; step k < N-1 sends the Q
 *    block it holds to p+1. Step N (N > 1) returns the partials as an ALL-TO-ALL, as the real
 *    implementations do (Meta's context-parallel inference, vLLM's decode context parallelism): every
 *    rank sends each other rank the partial O (activation dtype) and LSE (fp32) of that rank's
 *    queries, a2a_peer_bytes = B * Hq * batch * (d * act_bytes + 4) per peer, no compute; each owner
 *    then merges its N partials (O = sum_i exp(lse_i - lse) O_i, lse = log sum_i exp lse_i).
 *  - decode (a problem flag, --pass decode): one new token per sequence (S = 1) at position P, the
 *    cache sharded by the layout; sequence s's query (and its new K,V) belongs to rank s mod N. It
 *    runs as pass-q: at step k rank p computes the queries of the n_seqs = b_o sequences of owner
 *    o = (p - k) mod N against its cache shard of those sequences (and, at step 0, their new tokens),
 *    then the all-to-all and the merge. Q and partial buffers hold ceil(batch / N) sequences on every
 *    rank (fixed-size messages). Blocks count pairs per (sequence, head) of the step's sequences.
 */
#ifndef RS_SCHEDULE_H
#define RS_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

typedef enum { RS_LAYOUT_CONTIGUOUS = 0, RS_LAYOUT_STRIPED, RS_LAYOUT_ZIGZAG, RS_LAYOUT_COUNT } rs_layout_t;
typedef enum { RS_PASS_FORWARD = 0, RS_PASS_BACKWARD, RS_PASS_COUNT } rs_pass_t;
typedef enum { RS_MASK_FULL = 0, RS_MASK_SKIP, RS_MASK_DIAG } rs_mask_t;
typedef enum { RS_RING_PASS_KV = 0, RS_RING_PASS_Q, RS_RING_COUNT } rs_ring_t;

const char *rs_layout_name(rs_layout_t l);           /* "contiguous" | "striped" | "zigzag" */
const char *rs_pass_name(rs_pass_t p);               /* "forward" | "backward" */
const char *rs_mask_name(rs_mask_t m);               /* "full" | "skip" | "diag" */
const char *rs_ring_name(rs_ring_t r);               /* "pass-kv" | "pass-q" */
int rs_layout_parse(const char *s, rs_layout_t *out); /* 0 or -1 */
int rs_pass_parse(const char *s, rs_pass_t *out);     /* 0 or -1 */
int rs_ring_parse(const char *s, rs_ring_t *out);     /* 0 or -1 */

/* ---------------------------------------------------------------------------------------------------
 * Problem
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    int64_t seq_tokens;    /* S: total tokens of the sequence */
    int64_t n_ranks;       /* N: ranks in the ring */
    int64_t batch;         /* sequences per step (each ranked identically) */
    int64_t q_heads;       /* query heads */
    int64_t kv_heads;      /* key/value heads (GQA/MQA: divides q_heads) */
    int64_t head_dim;      /* d per head */
    int64_t act_bytes;     /* bytes per element of Q, K, V, O, dO (2 = bf16/fp16) */
    int64_t grad_bytes;    /* bytes per element of dK, dV in flight (4 = fp32 accumulation) */
    bool causal;           /* causal mask (token t sees t' <= t) */
    rs_layout_t layout;    /* token-to-rank assignment */
    rs_pass_t pass;        /* forward or backward */
    int64_t tile_q;        /* kernel tile rows (query tokens) */
    int64_t tile_k;        /* kernel tile columns (key tokens) */
    rs_ring_t ring;        /* what circulates: K,V (pass-kv) or Q (pass-q) */
    int64_t cached_tokens; /* P: K,V cache before the S new tokens, per sequence (0: none) */
    bool decode;           /* decode step: S = 1 new token per sequence, pass-q, forward, causal */
} rs_problem_t;

/* Defaults: S=128K, N=8, batch 1, 32/8 heads, d=128, bf16 activations, fp32 grads, causal, zigzag,
 * forward, tile 128x128, pass-kv, no cache, no decode. Can't fail. */
/* The accepted range of each integer field of the problem: one table, read by rs_problem_validate,
 * the command line's option rows (cli/shared_opts.c) and the Python package (rs_problem_field_range). */
#define RS_SEQ_TOKENS_MIN 1
#define RS_SEQ_TOKENS_MAX ((int64_t)UINT32_MAX)
#define RS_N_RANKS_MIN 1
#define RS_N_RANKS_MAX ((int64_t)INT32_MAX)
#define RS_BATCH_MIN 1
#define RS_BATCH_MAX ((int64_t)1 << 20)
#define RS_HEADS_MIN 1 /* q_heads and kv_heads */
#define RS_HEADS_MAX ((int64_t)1 << 16)
#define RS_HEAD_DIM_MIN 1
#define RS_HEAD_DIM_MAX ((int64_t)1 << 16)
#define RS_ELEM_BYTES_MIN 1 /* act_bytes and grad_bytes */
#define RS_ELEM_BYTES_MAX 8
#define RS_TILE_MIN 1 /* tile_q and tile_k */
#define RS_TILE_MAX ((int64_t)1 << 20)
#define RS_CACHED_TOKENS_MIN 0
#define RS_CACHED_TOKENS_MAX ((int64_t)UINT32_MAX) /* with seq_tokens: their sum at most UINT32_MAX */

/* The range of the problem's integer field called field ("seq_tokens", "n_ranks", "batch", "q_heads",
 * "kv_heads", "head_dim", "act_bytes", "grad_bytes", "tile_q", "tile_k", "cached_tokens") into *min
 * and *max. Returns 0, or -1 for another name. */
int rs_problem_field_range(const char *field, int64_t *min, int64_t *max);

void rs_problem_default(rs_problem_t *p);

/* Validate every field; on error err names the parameter, the value and the accepted range
 * (e.g. "--seq 1000: must be divisible by 2*N = 16 for the zigzag layout"; "--cached 1000: must be
 * divisible by 2*N = 16: the cache is sharded by the zigzag layout like the new tokens"; "--pass
 * decode: needs the causal mask ..."). Also rejects sizes whose FLOP or byte counts would overflow
 * 64 bits. Returns 0 or -1. */
int rs_problem_validate(const rs_problem_t *p, rs_err_t *err);
/* A valid problem that is a costlier equivalent of a simpler one: pass-q without a cache (the same
 * FLOPs as pass-kv, Q instead of K,V per step, plus the all-to-all return). One line into buf with
 * the pass-kv equivalent and both byte counts, or "" when there is nothing to say. Returns buf. */
const char *rs_problem_note(const rs_problem_t *p, char *buf, size_t len);

/* New tokens per rank B = S / N (decode: 1, the new token of each sequence a rank owns). */
static inline int64_t rs_problem_block(const rs_problem_t *p) { return p->decode ? 1 : p->seq_tokens / p->n_ranks; }
/* Cached tokens per rank Bc = P / N. */
static inline int64_t rs_problem_cached_block(const rs_problem_t *p) { return p->cached_tokens / p->n_ranks; }
/* Does the problem circulate Q (pass-q or decode)? */
static inline bool rs_problem_passes_q(const rs_problem_t *p) { return p->ring == RS_RING_PASS_Q || p->decode; }
/* Is the problem an inference variant (a cached prefix, pass-q or decode) rather than a training ring? */
static inline bool rs_problem_is_inference(const rs_problem_t *p) { return p->cached_tokens > 0 || rs_problem_passes_q(p); }
/* Sequences whose queries rank r owns: batch, or in decode those s < batch with s mod N = r. */
int64_t rs_problem_rank_seqs(const rs_problem_t *p, int64_t rank);
/* Sequences a Q or partial buffer holds: batch, or in decode ceil(batch / N). */
int64_t rs_problem_buf_seqs(const rs_problem_t *p);
/* The problem with B tokens per rank: S = B * N (saturated at INT64_MAX, which validation refuses).
 * The one place a block size becomes a sequence length. Can't fail. */
rs_problem_t rs_problem_with_block(const rs_problem_t *p, int64_t block_tokens);

/* Full-attention totals over all ranks and steps (exact integers): visible (q,k) pairs per
 * (sequence, head) (with a cache: S P + the new tokens' own pairs; decode: P + 1) and useful FLOPs
 * of the pass (all sequences). */
uint64_t rs_problem_total_pairs(const rs_problem_t *p);
uint64_t rs_problem_total_flops(const rs_problem_t *p);
/* FLOPs per visible (q,k) pair summed over query heads and batch: 4*d*Hq*batch fwd, 10*d*Hq*batch bwd. */
uint64_t rs_problem_flops_per_pair(const rs_problem_t *p);
/* Bytes of one rank's K,V block, cached tokens included (2 * (B + Bc) * kv_heads * head_dim * batch
 * * act_bytes; decode: the cache shard and the new token of every sequence) and of one dK,dV block. */
uint64_t rs_problem_kv_bytes(const rs_problem_t *p);
uint64_t rs_problem_dkv_bytes(const rs_problem_t *p);
/* Bytes of one Q block as pass-q moves it (B * q_heads * head_dim * buf_seqs * act_bytes) and of the
 * partial output one rank returns to another in the all-to-all (B * q_heads * buf_seqs *
 * (head_dim * act_bytes + 4): O in the activation dtype, LSE in fp32). */
uint64_t rs_problem_q_bytes(const rs_problem_t *p);
uint64_t rs_problem_part_bytes(const rs_problem_t *p);

/* The seed's memory figures: bytes of Q, K and V for the whole sequence
 * (S * (Hq + 2 Hkv) * d * batch * act_bytes) and of one materialised score matrix per head and
 * sequence (S^2 * Hq * batch * act_bytes), which blockwise attention never stores. */
uint64_t rs_problem_qkv_bytes(const rs_problem_t *p);
uint64_t rs_problem_scores_bytes(const rs_problem_t *p);

/* ---------------------------------------------------------------------------------------------------
 * Schedule
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    int64_t first;   /* first token index */
    int64_t stride;  /* token stride (1 contiguous/zigzag, N striped) */
    int64_t count;   /* tokens in the segment */
} rs_segment_t;

#define RS_MAX_SEGMENTS 2    /* Q segments; also the segments of one token range (new or cached) */
#define RS_MAX_KV_SEGMENTS 4 /* K,V segments: cached then new */
#define RS_MAX_BLOCKS 8      /* Q segments x KV segments */
#define RS_MAX_TRANSFERS 2   /* per direction per step: K,V and dK,dV (pass-q: Q) */

typedef enum { RS_XFER_KV = 0, RS_XFER_DKV, RS_XFER_Q } rs_xfer_kind_t;

typedef struct {
    int q_seg;           /* index into the step's Q segments */
    int kv_seg;          /* index into the step's KV segments */
    rs_mask_t mask;      /* FULL, SKIP or DIAG */
    int64_t diag;        /* DIAG only: (i, j) visible iff i - j >= diag */
    uint64_t pairs;      /* visible (q, k) pairs per (sequence, head) */
    uint64_t exec_pairs; /* pairs inside executed tiles per (sequence, head) */
} rs_block_t;

typedef struct {
    rs_xfer_kind_t kind; /* K,V block, dK,dV partial or Q block */
    int64_t block_owner; /* whose block travels */
    uint64_t bytes;      /* payload bytes */
} rs_xfer_t;

typedef struct {
    int64_t rank, step;                 /* this entry */
    rs_pass_t pass;
    int64_t q_owner;                    /* whose queries: the rank (pass-kv), (p - k) mod N (pass-q);
                                           -1 when the step computes nothing */
    int n_q_segs;                       /* the Q owner's query tokens (the rank's when none) */
    rs_segment_t q_segs[RS_MAX_SEGMENTS];
    int64_t n_seqs;                     /* sequences whose queries are computed: batch; decode: the
                                           Q owner's (0: nothing to compute) */
    bool has_compute;                   /* false for the backward tail step and pass-q's return */
    int64_t kv_owner;                   /* owner of the KV block computed on (-1 if none) */
    int n_kv_segs;                      /* its tokens: cached segments, then new ones */
    rs_segment_t kv_segs[RS_MAX_KV_SEGMENTS];
    int n_blocks;                       /* (Q seg, KV seg) pairs with their masks */
    rs_block_t blocks[RS_MAX_BLOCKS];
    uint64_t flops_useful;              /* visible pairs x flops per pair x n_seqs */
    uint64_t flops_exec;                /* executed-tile pairs x flops per pair x n_seqs */
    int64_t send_peer, recv_peer;       /* (p+1) mod N, (p-1) mod N; -1 when nothing moves or a2a */
    int n_send;                         /* ring transfers to send_peer, posted at step start */
    rs_xfer_t send[RS_MAX_TRANSFERS];
    int n_recv;                         /* ring transfers from recv_peer, posted at step start */
    rs_xfer_t recv[RS_MAX_TRANSFERS];
    bool a2a;                           /* pass-q's all-to-all return: no ring transfer, the rank
                                           sends a2a_peer_bytes to and receives them from each other
                                           rank, posted at the step start */
    uint64_t a2a_peer_bytes;            /* per peer and direction (0 unless a2a) */
    uint64_t send_bytes, recv_bytes;    /* sums over the step's transfers ((N-1) x a2a_peer_bytes) */
} rs_step_t;

typedef struct rs_schedule rs_schedule_t; /* opaque; O(1) size in N */

/* Build the schedule for a validated problem. Returns NULL with err on invalid input or OOM. */
rs_schedule_t *rs_schedule_create(const rs_problem_t *p, rs_err_t *err);
void rs_schedule_free(rs_schedule_t *s);

const rs_problem_t *rs_schedule_problem(const rs_schedule_t *s);
/* N forward, N + 1 backward; pass-q and decode N + 1 (the all-to-all return) for N > 1, else 1. */
int64_t rs_schedule_n_steps(const rs_schedule_t *s);

/* Query (new) token segments of rank; decode: {P, 1, 1}, the new token of each sequence the rank
 * owns. Returns the segment count (1 or 2). */
int rs_schedule_rank_segments(const rs_schedule_t *s, int64_t rank, rs_segment_t segs[RS_MAX_SEGMENTS]);
/* K,V token segments resident on rank: its cached segments, then its new ones (decode: the new token
 * of its own sequences). Without a cache, the same as rs_schedule_rank_segments. Returns the count
 * (1..4). */
int rs_schedule_rank_kv_segments(const rs_schedule_t *s, int64_t rank, rs_segment_t segs[RS_MAX_KV_SEGMENTS]);

/* The full description of (rank, step). Plain reference; O(1). rank in [0,N), step in [0,n_steps). */
void rs_schedule_step(const rs_schedule_t *s, int64_t rank, int64_t step, rs_step_t *out);

/* Fast path used by the critical-path walk: the two FLOP counts of (rank, step) only. Must agree
 * with rs_schedule_step() exactly (tested). */
void rs_schedule_flops(const rs_schedule_t *s, int64_t rank, int64_t step, uint64_t *flops_useful,
                       uint64_t *flops_exec);

/* Fast path of the fast path: for every step that computes (step < N), the FLOPs of (rank, step)
 * depend only on the order of the step's moving block's owner o = (rank - step) mod N and the rank:
 * class 0 if o < rank, 1 if o == rank, 2 if o > rank (pass-kv: o owns the K,V; pass-q: the Q, and
 * the classes are pass-kv's mirrored). Fills the three values and returns 0; returns -1 (values
 * undefined) when the work is not a function of the class: decode with batch not a multiple of N
 * (each owner has its own number of sequences). O(1). */
int rs_schedule_flops_classes(const rs_schedule_t *s, uint64_t useful[3], uint64_t exec[3]);

/* The same three classes for a validated problem without building a schedule (no allocation): the
 * classes whose bit is set in want (bit c = class c; 7 = all) equal rs_schedule_flops_classes
 * (tested), the others are 0; returns what it returns (-1: decode with uneven sequences per rank). The
 * executed pairs of a diagonal block cost O(B / tile) and are counted only where a wanted class has
 * one. */
int rs_problem_flops_classes(const rs_problem_t *p, unsigned want, uint64_t useful[3], uint64_t exec[3]);

/* The blocks of a step class (as above) of a validated problem without building a schedule, by kind:
 * full, skipped, or diagonal with (i, j) visible iff i - j >= 0 (DIAG0) or >= 1 (DIAG1): the masks of
 * rs_schedule_step at the class's representative (rank, step) - class 0 (N-1, 1), class 1 (0, 0),
 * class 2 (0, 1) - which every (rank, step) of the class shares (tested). kinds[i] is block
 * (i / segs, i % segs) of the rank's and the KV owner's segments, each of B / segs tokens. Returns
 * segs (1, or 2 for zigzag), or 0 when the class does not exist (N = 1: class 1 only). A training
 * ring's blocks only (pass-kv, no cache, not decode: rs_problem_is_inference false), the only problems
 * the kernel model (model/4-cost/kernel.h) costs by calls. O(1). */
typedef enum { RS_KIND_FULL = 0, RS_KIND_SKIP, RS_KIND_DIAG0, RS_KIND_DIAG1 } rs_block_kind_t;
int rs_problem_class_kinds(const rs_problem_t *p, int cls, unsigned char kinds[RS_MAX_BLOCKS]);

/* Payload bytes of the ring transfers posted at `step` (K,V or Q first, then dK,dV). They are the
 * same on every rank at a given step; only the block owners differ. Returns the count (0..2). An
 * all-to-all step has none (rs_schedule_step_a2a_bytes). O(1). */
int rs_schedule_step_xfers(const rs_schedule_t *s, int64_t step, uint64_t bytes[RS_MAX_TRANSFERS]);
/* Of the ring transfers posted at `step`, the bytes whose kind (K,V, Q or dK,dV) the rank also sent
 * at step - 1: the ring's double buffers (and the dK,dV rotation, docs/exec.md) receive them into the
 * buffer sent at the step before, which the peer has just read. On a CPU that makes the copy slower
 * (calibration.h, the reused transfer curve). K,V (Q) from step 1, dK,dV from step 2. O(1). */
uint64_t rs_schedule_step_reused_bytes(const rs_schedule_t *s, int64_t step);
/* Bytes each rank sends to (and receives from) each other rank at `step`: pass-q's all-to-all step
 * N, else 0. O(1). */
uint64_t rs_schedule_step_a2a_bytes(const rs_schedule_t *s, int64_t step);

/* Count of visible pairs among {(i,j): 0<=i,j<n, i-j>=diag} and of pairs inside executed
 * tile_q x tile_k tiles. Exposed for tests. */
uint64_t rs_diag_pairs(int64_t n, int64_t diag);
uint64_t rs_diag_exec_pairs(int64_t n, int64_t diag, int64_t tile_q, int64_t tile_k);

#endif /* RS_SCHEDULE_H */
