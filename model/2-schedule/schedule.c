/* schedule.c - the ring schedule of a validated problem (schedule.h for the conventions): who holds
 * which block at each (rank, step), the masks and pair counts of its blocks, its transfers, and the
 * step classes the fast paths cost once. The problem itself (names, validation, sizes): problem.c. */
#include "schedule.h"

#include <stdlib.h>
#include <string.h>

/* ================================================================================================
 * Visible and executed pairs of a diagonal mask
 * ============================================================================================== */
uint64_t rs_diag_pairs(int64_t n, int64_t diag) {
    if (n <= 0) return 0;
    uint64_t un = (uint64_t)n;
    if (diag <= -(n - 1)) return un * un;
    if (diag >= n) return 0;
    if (diag >= 0) {
        uint64_t m = (uint64_t)(n - diag);
        return m * (m + 1) / 2;
    }
    uint64_t m = (uint64_t)(n - (1 - diag)); /* hidden pairs: j - i >= 1 - diag */
    return un * un - m * (m + 1) / 2;
}

uint64_t rs_diag_exec_pairs(int64_t n, int64_t diag, int64_t tile_q, int64_t tile_k) {
    if (n <= 0) return 0;
    uint64_t total = 0;
    for (int64_t r0 = 0; r0 < n; r0 += tile_q) {
        int64_t r1 = r0 + tile_q < n ? r0 + tile_q : n;
        int64_t imax = r1 - 1;
        if (imax - diag < 0) continue; /* even column 0 is hidden for every row of this tile */
        int64_t last_tile = (imax - diag) / tile_k;
        int64_t cols = (last_tile + 1) * tile_k;
        if (cols > n) cols = n;
        total += (uint64_t)(r1 - r0) * (uint64_t)cols;
    }
    return total;
}

/* ================================================================================================
 * Schedule
 * ============================================================================================== */
struct rs_schedule {
    rs_problem_t p;          /* validated copy */
    int64_t block;           /* B: new tokens per rank (decode: 1) */
    int64_t cblock;          /* Bc: cached tokens per rank */
    int64_t seg_len;         /* tokens per new segment: B (contiguous, striped) or B/2 (zigzag) */
    uint64_t fpp;            /* FLOPs per visible pair (all heads, one sequence) */
    uint64_t kv_bytes;       /* one K,V block (cache included) */
    uint64_t dkv_bytes;      /* one dK,dV block */
    uint64_t q_bytes;        /* one Q block (pass-q) */
    uint64_t part_bytes;     /* one partial output to one peer (pass-q's all-to-all) */
    bool passes_q;           /* pass-q or decode */
    uint64_t pairs_full;     /* seg_len^2 */
    uint64_t pairs_diag[2];  /* visible pairs, diag 0 and 1 */
    uint64_t exec_diag[2];   /* executed-tile pairs, diag 0 and 1 */
};

/* The schedule of a validated problem; the executed pairs of the diagonal blocks (O(B / tile)) only
 * when exec (else 0). */
static void schedule_init(rs_schedule_t *s, const rs_problem_t *p, bool exec) {
    s->p = *p;
    s->block = rs_problem_block(p);
    s->cblock = rs_problem_cached_block(p);
    s->seg_len = p->layout == RS_LAYOUT_ZIGZAG && !p->decode ? s->block / 2 : s->block;
    s->fpp = rs_problem_flops_per_pair(p) / (uint64_t)p->batch;
    s->kv_bytes = rs_problem_kv_bytes(p);
    s->dkv_bytes = rs_problem_dkv_bytes(p);
    s->q_bytes = rs_problem_q_bytes(p);
    s->part_bytes = rs_problem_part_bytes(p);
    s->passes_q = rs_problem_passes_q(p);
    s->pairs_full = (uint64_t)s->seg_len * (uint64_t)s->seg_len;
    for (int d = 0; d < 2; d++) {
        s->pairs_diag[d] = rs_diag_pairs(s->seg_len, d);
        s->exec_diag[d] = exec ? rs_diag_exec_pairs(s->seg_len, d, p->tile_q, p->tile_k) : 0;
    }
}

rs_schedule_t *rs_schedule_create(const rs_problem_t *p, rs_err_t *err) {
    if (rs_problem_validate(p, err) != 0) return NULL;
    rs_schedule_t *s = calloc(1, sizeof *s);
    if (!s) {
        rs_errf(err, "schedule: out of memory");
        return NULL;
    }
    schedule_init(s, p, true);
    return s;
}

void rs_schedule_free(rs_schedule_t *s) { free(s); }

const rs_problem_t *rs_schedule_problem(const rs_schedule_t *s) { return &s->p; }

int64_t rs_schedule_n_steps(const rs_schedule_t *s) {
    if (s->passes_q) return s->p.n_ranks > 1 ? s->p.n_ranks + 1 : 1;
    return s->p.pass == RS_PASS_BACKWARD ? s->p.n_ranks + 1 : s->p.n_ranks;
}

static inline int64_t mod_n(int64_t x, int64_t n) {
    int64_t r = x % n;
    return r < 0 ? r + n : r;
}

/* The layout's share of rank among `total` tokens starting at position `offset`. Returns the count. */
static int layout_segments(const rs_schedule_t *s, int64_t rank, int64_t total, int64_t offset,
                           rs_segment_t segs[RS_MAX_SEGMENTS]) {
    const int64_t n = s->p.n_ranks, b = total / n, c = b / 2;
    switch (s->p.layout) {
    case RS_LAYOUT_CONTIGUOUS:
        segs[0] = (rs_segment_t){offset + rank * b, 1, b};
        return 1;
    case RS_LAYOUT_STRIPED:
        segs[0] = (rs_segment_t){offset + rank, n, b};
        return 1;
    default: /* zigzag */
        segs[0] = (rs_segment_t){offset + rank * c, 1, c};
        segs[1] = (rs_segment_t){offset + (2 * n - 1 - rank) * c, 1, c};
        return 2;
    }
}

int rs_schedule_rank_segments(const rs_schedule_t *s, int64_t rank, rs_segment_t segs[RS_MAX_SEGMENTS]) {
    if (s->p.decode) {
        segs[0] = (rs_segment_t){s->p.cached_tokens, 1, 1};
        return 1;
    }
    return layout_segments(s, rank, s->p.seq_tokens, s->p.cached_tokens, segs);
}

int rs_schedule_rank_kv_segments(const rs_schedule_t *s, int64_t rank, rs_segment_t segs[RS_MAX_KV_SEGMENTS]) {
    int n = s->p.cached_tokens > 0 ? layout_segments(s, rank, s->p.cached_tokens, 0, segs) : 0;
    return n + rs_schedule_rank_segments(s, rank, segs + n);
}

/* ceil(a / b) for b > 0 and any sign of a. */
static inline int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

/* Mask of Q segment q against KV segment k: a KV segment wholly before the queries (the cache) is
 * FULL, a (rectangular) block; otherwise both are new-token segments of equal stride and count, the
 * training case. */
static void classify(const rs_schedule_t *s, const rs_segment_t *q, const rs_segment_t *k, rs_block_t *blk) {
    const int64_t n = q->count;
    if (!s->p.causal || k->first + (k->count - 1) * k->stride <= q->first) {
        blk->mask = RS_MASK_FULL;
        blk->diag = 0;
        blk->pairs = blk->exec_pairs = (uint64_t)q->count * (uint64_t)k->count;
        return;
    }
    int64_t diag = ceil_div(k->first - q->first, q->stride); /* visible iff i - j >= diag */
    blk->diag = diag;
    if (diag <= -(n - 1)) blk->mask = RS_MASK_FULL;
    else if (diag >= n) blk->mask = RS_MASK_SKIP;
    else blk->mask = RS_MASK_DIAG;
    switch (blk->mask) {
    case RS_MASK_FULL:
        blk->pairs = blk->exec_pairs = (uint64_t)n * (uint64_t)n;
        blk->diag = 0;
        break;
    case RS_MASK_SKIP:
        blk->pairs = blk->exec_pairs = 0;
        blk->diag = 0;
        break;
    case RS_MASK_DIAG:
        blk->pairs = rs_diag_pairs(n, blk->diag);
        blk->exec_pairs = (blk->diag == 0 || blk->diag == 1) && n == s->seg_len
                              ? s->exec_diag[blk->diag]
                              : rs_diag_exec_pairs(n, blk->diag, s->p.tile_q, s->p.tile_k);
        break;
    }
}

/* Transfers of a step (identical on every rank but for the block owners). */
static void step_transfers(const rs_schedule_t *s, int64_t rank, int64_t step, rs_step_t *o) {
    const int64_t n = s->p.n_ranks;
    o->n_send = o->n_recv = 0;
    o->send_bytes = o->recv_bytes = 0;
    o->send_peer = o->recv_peer = -1;
    o->a2a = false;
    o->a2a_peer_bytes = 0;
    if (n == 1) return;
    if (s->passes_q && step == n) { /* the partial outputs go home: an all-to-all */
        o->a2a = true;
        o->a2a_peer_bytes = s->part_bytes;
        o->send_bytes = o->recv_bytes = (uint64_t)(n - 1) * s->part_bytes;
        return;
    }
    const bool bwd = s->p.pass == RS_PASS_BACKWARD;
    if (step < n - 1) { /* K,V (pass-q: Q) for the next step */
        const rs_xfer_kind_t kind = s->passes_q ? RS_XFER_Q : RS_XFER_KV;
        const uint64_t bytes = s->passes_q ? s->q_bytes : s->kv_bytes;
        o->send[o->n_send++] = (rs_xfer_t){kind, mod_n(rank - step, n), bytes};
        o->recv[o->n_recv++] = (rs_xfer_t){kind, mod_n(rank - 1 - step, n), bytes};
    }
    if (bwd && step >= 1) { /* dK,dV partial of the block computed at step - 1 */
        o->send[o->n_send++] = (rs_xfer_t){RS_XFER_DKV, mod_n(rank - (step - 1), n), s->dkv_bytes};
        o->recv[o->n_recv++] = (rs_xfer_t){RS_XFER_DKV, mod_n(rank - step, n), s->dkv_bytes};
    }
    for (int i = 0; i < o->n_send; i++) o->send_bytes += o->send[i].bytes;
    for (int i = 0; i < o->n_recv; i++) o->recv_bytes += o->recv[i].bytes;
    if (o->n_send) o->send_peer = mod_n(rank + 1, n);
    if (o->n_recv) o->recv_peer = mod_n(rank - 1, n);
}

void rs_schedule_step(const rs_schedule_t *s, int64_t rank, int64_t step, rs_step_t *o) {
    memset(o, 0, sizeof *o);
    const int64_t n = s->p.n_ranks;
    o->rank = rank;
    o->step = step;
    o->pass = s->p.pass;
    o->has_compute = step < n;
    o->kv_owner = o->q_owner = -1;
    if (!o->has_compute) {
        o->n_q_segs = rs_schedule_rank_segments(s, rank, o->q_segs);
    } else {
        const int64_t owner = mod_n(rank - step, n); /* of the block that moved here */
        o->q_owner = s->passes_q ? owner : rank;
        o->kv_owner = s->passes_q ? rank : owner;
        o->n_q_segs = rs_schedule_rank_segments(s, o->q_owner, o->q_segs);
        o->n_kv_segs = rs_schedule_rank_kv_segments(s, o->kv_owner, o->kv_segs);
        if (s->p.decode && step > 0) o->n_kv_segs--; /* another owner's sequences: no new token here */
        o->n_seqs = rs_problem_rank_seqs(&s->p, o->q_owner);
        uint64_t pairs = 0, exec_pairs = 0;
        for (int qi = 0; qi < o->n_q_segs; qi++)
            for (int ki = 0; ki < o->n_kv_segs; ki++) {
                rs_block_t *blk = &o->blocks[o->n_blocks++];
                blk->q_seg = qi;
                blk->kv_seg = ki;
                classify(s, &o->q_segs[qi], &o->kv_segs[ki], blk);
                pairs += blk->pairs;
                exec_pairs += blk->exec_pairs;
            }
        o->flops_useful = pairs * s->fpp * (uint64_t)o->n_seqs;
        o->flops_exec = exec_pairs * s->fpp * (uint64_t)o->n_seqs;
    }
    step_transfers(s, rank, step, o);
}

int rs_schedule_step_xfers(const rs_schedule_t *s, int64_t step, uint64_t bytes[RS_MAX_TRANSFERS]) {
    rs_step_t o;
    step_transfers(s, 0, step, &o);
    for (int i = 0; i < o.n_send; i++) bytes[i] = o.send[i].bytes;
    return o.n_send;
}

uint64_t rs_schedule_step_reused_bytes(const rs_schedule_t *s, int64_t step) {
    if (step < 1) return 0;
    rs_step_t o, prev;
    step_transfers(s, 0, step, &o);
    step_transfers(s, 0, step - 1, &prev);
    uint64_t reused = 0;
    for (int i = 0; i < o.n_send; i++)
        for (int j = 0; j < prev.n_send; j++)
            if (prev.send[j].kind == o.send[i].kind) {
                reused += o.send[i].bytes;
                break;
            }
    return reused;
}

uint64_t rs_schedule_step_a2a_bytes(const rs_schedule_t *s, int64_t step) {
    return s->passes_q && s->p.n_ranks > 1 && step == s->p.n_ranks ? s->part_bytes : 0;
}

/* Fast path: the case analysis of docs/model.md ("Causal work per step") and docs/inference.md. For
 * a step that computes, the work of (rank, step) depends only on whether the owner of the block that
 * moved comes before, is, or comes after the rank. Tested against rs_schedule_step() for every
 * layout and variant. The classes from a problem and its blocks' pair counts (block_pairs_t). Returns
 * -1 when the work is not a function of the class (decode, batch not a multiple of N). */
typedef struct {
    int64_t block, cblock; /* B, Bc */
    uint64_t full;         /* seg^2 (seg the tokens per new segment) */
    uint64_t pd[2], xd[2]; /* visible and executed pairs of a diagonal block with diag 0 and 1 (xd[1] read
                              for striped only) */
    uint64_t fpp;          /* FLOPs per pair of one sequence */
} block_pairs_t;

static int flops_classes(const rs_problem_t *p, const block_pairs_t *bp, uint64_t useful[3], uint64_t exec[3]) {
    const int64_t block = bp->block, cblock = bp->cblock;
    const uint64_t full = bp->full, *pd = bp->pd, *xd = bp->xd, fpp = bp->fpp;
    uint64_t pu[3], px[3];
    uint64_t seqs = (uint64_t)p->batch;
    if (p->decode) { /* each owner's b/N queries against the cache shard (and, own step, themselves) */
        if (p->batch % p->n_ranks != 0) return -1;
        seqs = (uint64_t)(p->batch / p->n_ranks);
        pu[0] = pu[2] = px[0] = px[2] = (uint64_t)cblock;
        pu[1] = px[1] = (uint64_t)cblock + 1;
    } else if (!p->causal) {
        pu[0] = pu[1] = pu[2] = px[0] = px[1] = px[2] = (uint64_t)block * (uint64_t)block;
    } else {
        switch (p->layout) {
        case RS_LAYOUT_CONTIGUOUS: /* before: full; own: diagonal; after: hidden */
            pu[0] = px[0] = full;
            pu[1] = pd[0], px[1] = xd[0];
            pu[2] = px[2] = 0;
            break;
        case RS_LAYOUT_STRIPED: /* diag 0 when the owner's tokens precede in each stripe, else diag 1 */
            pu[0] = pu[1] = pd[0], px[0] = px[1] = xd[0];
            pu[2] = pd[1], px[2] = xd[1];
            break;
        default: /* zigzag: (early, early) + (late, early) + (late, late); (early, late) is hidden */
            pu[0] = px[0] = pu[2] = px[2] = 2 * full;
            pu[1] = 2 * pd[0] + full;
            px[1] = 2 * xd[0] + full;
            break;
        }
    }
    if (!p->decode) {
        /* every query sees every cached token of the K,V block: B x Bc more, full tiles */
        const uint64_t cached = (uint64_t)block * (uint64_t)cblock;
        for (int i = 0; i < 3; i++) pu[i] += cached, px[i] += cached;
        if (rs_problem_passes_q(p)) { /* the moving block holds the queries: owner before the rank = KV after the Q */
            uint64_t t = pu[0];
            pu[0] = pu[2], pu[2] = t;
            t = px[0], px[0] = px[2], px[2] = t;
        }
    }
    for (int i = 0; i < 3; i++) {
        useful[i] = pu[i] * fpp * seqs;
        exec[i] = px[i] * fpp * seqs;
    }
    return 0;
}

int rs_schedule_flops_classes(const rs_schedule_t *s, uint64_t useful[3], uint64_t exec[3]) {
    const block_pairs_t bp = {s->block, s->cblock, s->pairs_full, {s->pairs_diag[0], s->pairs_diag[1]},
                              {s->exec_diag[0], s->exec_diag[1]}, s->fpp};
    return flops_classes(&s->p, &bp, useful, exec);
}

int rs_problem_flops_classes(const rs_problem_t *p, unsigned want, uint64_t useful[3], uint64_t exec[3]) {
    const int64_t block = rs_problem_block(p), seg = p->layout == RS_LAYOUT_ZIGZAG && !p->decode ? block / 2 : block;
    block_pairs_t bp = {block, rs_problem_cached_block(p), (uint64_t)seg * (uint64_t)seg, {0, 0}, {0, 0},
                        rs_problem_flops_per_pair(p) / (uint64_t)p->batch};
    uint64_t *pd = bp.pd, *xd = bp.xd;
    /* the diagonal blocks' pairs (O(B / tile) for the executed ones) only where a wanted class has one:
     * class 1 in every causal layout, every class of a causal striped ring (pass-q: mirrored) */
    const bool striped = p->layout == RS_LAYOUT_STRIPED;
    if (p->causal && !p->decode && ((want & 2u) || striped)) {
        pd[0] = rs_diag_pairs(seg, 0), xd[0] = rs_diag_exec_pairs(seg, 0, p->tile_q, p->tile_k);
        if (striped && (want & 5u)) pd[1] = rs_diag_pairs(seg, 1), xd[1] = rs_diag_exec_pairs(seg, 1, p->tile_q, p->tile_k);
    }
    const int rc = flops_classes(p, &bp, useful, exec);
    for (int c = 0; c < 3; c++)
        if (!(want >> c & 1u)) useful[c] = exec[c] = 0;
    return rc;
}

int rs_problem_class_kinds(const rs_problem_t *p, int cls, unsigned char kinds[RS_MAX_BLOCKS]) {
    /* the case analysis of flops_classes, block by block (Q segment major): zigzag's (early, early),
     * (early, late), (late, early), (late, late); one block otherwise */
    enum { F = RS_KIND_FULL, S = RS_KIND_SKIP, D0 = RS_KIND_DIAG0, D1 = RS_KIND_DIAG1 };
    static const unsigned char zigzag[3][4] = {{F, S, F, S},    /* owner before the rank */
                                               {D0, S, F, D0},  /* its own block */
                                               {S, S, F, F}};   /* owner after */
    static const unsigned char one[2][3] = {{F, D0, S}, {D0, D0, D1}}; /* contiguous, striped */
    if (p->n_ranks < 2 && cls != 1) return 0;
    const int segs = p->layout == RS_LAYOUT_ZIGZAG ? 2 : 1;
    const int64_t seg = rs_problem_block(p) / segs;
    for (int i = 0; i < segs * segs; i++) {
        unsigned char k = !p->causal ? F : segs == 2 ? zigzag[cls][i] : one[p->layout == RS_LAYOUT_STRIPED][cls];
        if (seg == 1 && k == D0) k = F; /* classify: a diagonal of one token is full, a shifted one empty */
        if (seg == 1 && k == D1) k = S;
        kinds[i] = k;
    }
    return segs;
}

void rs_schedule_flops(const rs_schedule_t *s, int64_t rank, int64_t step, uint64_t *flops_useful,
                       uint64_t *flops_exec) {
    const int64_t n = s->p.n_ranks;
    if (step >= n) {
        *flops_useful = *flops_exec = 0;
        return;
    }
    const int64_t owner = mod_n(rank - step, n);
    if (s->p.decode) { /* owner o's sequences against this rank's cache shard (+ their new token at step 0) */
        const uint64_t w = s->fpp * (uint64_t)rs_problem_rank_seqs(&s->p, owner) * (uint64_t)(s->cblock + (step == 0));
        *flops_useful = *flops_exec = w;
        return;
    }
    uint64_t u[3], x[3];
    rs_schedule_flops_classes(s, u, x);
    const int cls = owner < rank ? 0 : owner == rank ? 1 : 2;
    *flops_useful = u[cls];
    *flops_exec = x[cls];
}
