/* schedule.h - the ring schedule: the one object every backend walks.
 *
 * A problem (S tokens over N ranks, heads, dtypes, causal or not, layout, pass, kernel tile) is turned
 * once into an rs_schedule_t. The schedule is a cheap function of (rank, step): nothing is stored per
 * rank pair, so N = 65,536 needs O(1) memory. model/, sim/ and exec/ all call rs_schedule_step() (or
 * the fast rs_schedule_flops()) and never re-derive who holds which block.
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
 */
#ifndef RS_SCHEDULE_H
#define RS_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

typedef enum { RS_LAYOUT_CONTIGUOUS = 0, RS_LAYOUT_STRIPED, RS_LAYOUT_ZIGZAG, RS_LAYOUT_COUNT } rs_layout_t;
typedef enum { RS_PASS_FORWARD = 0, RS_PASS_BACKWARD, RS_PASS_COUNT } rs_pass_t;
typedef enum { RS_MASK_FULL = 0, RS_MASK_SKIP, RS_MASK_DIAG } rs_mask_t;

const char *rs_layout_name(rs_layout_t l);           /* "contiguous" | "striped" | "zigzag" */
const char *rs_pass_name(rs_pass_t p);               /* "forward" | "backward" */
const char *rs_mask_name(rs_mask_t m);               /* "full" | "skip" | "diag" */
int rs_layout_parse(const char *s, rs_layout_t *out); /* 0 or -1 */
int rs_pass_parse(const char *s, rs_pass_t *out);     /* 0 or -1 */

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
} rs_problem_t;

/* Defaults: S=128K, N=8, batch 1, 32/8 heads, d=128, bf16 activations, fp32 grads, causal, zigzag,
 * forward, tile 128x128. Can't fail. */
void rs_problem_default(rs_problem_t *p);

/* Validate every field; on error err names the parameter, the value and the accepted range
 * (e.g. "--seq 1000: must be divisible by 2*N = 16 for the zigzag layout"). Also rejects sizes whose
 * FLOP or byte counts would overflow 64 bits. Returns 0 or -1. */
int rs_problem_validate(const rs_problem_t *p, rs_err_t *err);

/* Tokens per rank B = S / N. */
static inline int64_t rs_problem_block(const rs_problem_t *p) { return p->seq_tokens / p->n_ranks; }
/* The problem with B tokens per rank: S = B * N (saturated at INT64_MAX, which validation refuses).
 * The one place a block size becomes a sequence length. Can't fail. */
rs_problem_t rs_problem_with_block(const rs_problem_t *p, int64_t block_tokens);

/* Full-attention totals over all ranks and steps (exact integers): visible (q,k) pairs per
 * (batch, head) and useful FLOPs of the pass. */
uint64_t rs_problem_total_pairs(const rs_problem_t *p);
uint64_t rs_problem_total_flops(const rs_problem_t *p);
/* FLOPs per visible (q,k) pair summed over query heads and batch: 4*d*Hq*batch fwd, 10*d*Hq*batch bwd. */
uint64_t rs_problem_flops_per_pair(const rs_problem_t *p);
/* Bytes of one K,V block (2 * B * kv_heads * head_dim * batch * act_bytes) and of one dK,dV block. */
uint64_t rs_problem_kv_bytes(const rs_problem_t *p);
uint64_t rs_problem_dkv_bytes(const rs_problem_t *p);

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

#define RS_MAX_SEGMENTS 2
#define RS_MAX_BLOCKS 4    /* Q segments x KV segments */
#define RS_MAX_TRANSFERS 2 /* per direction per step: K,V and dK,dV */

typedef enum { RS_XFER_KV = 0, RS_XFER_DKV } rs_xfer_kind_t;

typedef struct {
    int q_seg;           /* index into the rank's Q segments */
    int kv_seg;          /* index into the KV owner's segments */
    rs_mask_t mask;      /* FULL, SKIP or DIAG */
    int64_t diag;        /* DIAG only: (i, j) visible iff i - j >= diag */
    uint64_t pairs;      /* visible (q, k) pairs per (batch, head) */
    uint64_t exec_pairs; /* pairs inside executed tiles per (batch, head) */
} rs_block_t;

typedef struct {
    rs_xfer_kind_t kind; /* K,V block or dK,dV partial */
    int64_t block_owner; /* whose block travels */
    uint64_t bytes;      /* payload bytes */
} rs_xfer_t;

typedef struct {
    int64_t rank, step;                 /* this entry */
    rs_pass_t pass;
    int n_q_segs;                       /* Q tokens resident on rank */
    rs_segment_t q_segs[RS_MAX_SEGMENTS];
    bool has_compute;                   /* false for the backward tail step */
    int64_t kv_owner;                   /* owner of the KV block computed on (-1 if none) */
    int n_kv_segs;
    rs_segment_t kv_segs[RS_MAX_SEGMENTS];
    int n_blocks;                       /* (Q seg, KV seg) pairs with their masks */
    rs_block_t blocks[RS_MAX_BLOCKS];
    uint64_t flops_useful;              /* visible pairs x flops per pair */
    uint64_t flops_exec;                /* executed-tile pairs x flops per pair */
    int64_t send_peer, recv_peer;       /* (p+1) mod N, (p-1) mod N; -1 when nothing moves */
    int n_send;                         /* transfers to send_peer, posted at step start */
    rs_xfer_t send[RS_MAX_TRANSFERS];
    int n_recv;                         /* transfers from recv_peer, posted at step start */
    rs_xfer_t recv[RS_MAX_TRANSFERS];
    uint64_t send_bytes, recv_bytes;    /* sums of the above */
} rs_step_t;

typedef struct rs_schedule rs_schedule_t; /* opaque; O(1) size in N */

/* Build the schedule for a validated problem. Returns NULL with err on invalid input or OOM. */
rs_schedule_t *rs_schedule_create(const rs_problem_t *p, rs_err_t *err);
void rs_schedule_free(rs_schedule_t *s);

const rs_problem_t *rs_schedule_problem(const rs_schedule_t *s);
int64_t rs_schedule_n_steps(const rs_schedule_t *s); /* N forward, N + 1 backward */

/* Token segments resident on rank (Q, and the KV block it owns). Returns the segment count. */
int rs_schedule_rank_segments(const rs_schedule_t *s, int64_t rank, rs_segment_t segs[RS_MAX_SEGMENTS]);

/* The full description of (rank, step). Plain reference; O(1). rank in [0,N), step in [0,n_steps). */
void rs_schedule_step(const rs_schedule_t *s, int64_t rank, int64_t step, rs_step_t *out);

/* Fast path used by the critical-path walk: the two FLOP counts of (rank, step) only. Must agree
 * with rs_schedule_step() exactly (tested). */
void rs_schedule_flops(const rs_schedule_t *s, int64_t rank, int64_t step, uint64_t *flops_useful,
                       uint64_t *flops_exec);

/* Fast path of the fast path: for every step that computes (step < N), the FLOPs of (rank, step)
 * depend only on the order of the step's KV owner o and the rank: class 0 if o < rank, 1 if
 * o == rank, 2 if o > rank. Fills the three values. O(1). */
void rs_schedule_flops_classes(const rs_schedule_t *s, uint64_t useful[3], uint64_t exec[3]);

/* The same three classes for a validated problem without building a schedule (no allocation): the
 * classes whose bit is set in want (bit c = class c; 7 = all) equal rs_schedule_flops_classes
 * (tested), the others are 0. The executed pairs of a diagonal block cost O(B / tile) and are counted
 * only where a wanted class has one. */
void rs_problem_flops_classes(const rs_problem_t *p, unsigned want, uint64_t useful[3], uint64_t exec[3]);

/* The blocks of a step class (as above) of a validated problem without building a schedule, by kind:
 * full, skipped, or diagonal with (i, j) visible iff i - j >= 0 (DIAG0) or >= 1 (DIAG1): the masks of
 * rs_schedule_step at the class's representative (rank, step) - class 0 (N-1, 1), class 1 (0, 0),
 * class 2 (0, 1) - which every (rank, step) of the class shares (tested). kinds[i] is block
 * (i / segs, i % segs) of the rank's and the KV owner's segments, each of B / segs tokens. Returns
 * segs (1, or 2 for zigzag), or 0 when the class does not exist (N = 1: class 1 only). O(1). */
typedef enum { RS_KIND_FULL = 0, RS_KIND_SKIP, RS_KIND_DIAG0, RS_KIND_DIAG1 } rs_block_kind_t;
int rs_problem_class_kinds(const rs_problem_t *p, int cls, unsigned char kinds[RS_MAX_BLOCKS]);

/* Payload bytes of the transfers posted at `step` (K,V first, then dK,dV). They are the same on
 * every rank at a given step; only the block owners differ. Returns the count (0..2). O(1). */
int rs_schedule_step_xfers(const rs_schedule_t *s, int64_t step, uint64_t bytes[RS_MAX_TRANSFERS]);

/* Count of visible pairs among {(i,j): 0<=i,j<n, i-j>=diag} and of pairs inside executed
 * tile_q x tile_k tiles. Exposed for tests. */
uint64_t rs_diag_pairs(int64_t n, int64_t diag);
uint64_t rs_diag_exec_pairs(int64_t n, int64_t diag, int64_t tile_q, int64_t tile_k);

#endif /* RS_SCHEDULE_H */
