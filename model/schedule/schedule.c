/* schedule.c - the ring schedule (see schedule.h for the conventions). */
#include "schedule.h"

#include <stdlib.h>
#include <string.h>

/* ================================================================================================
 * Names
 * ============================================================================================== */
static const char *const layout_names[RS_LAYOUT_COUNT] = {"contiguous", "striped", "zigzag"};
static const char *const pass_names[RS_PASS_COUNT] = {"forward", "backward"};

static const char *const mask_names[] = {"full", "skip", "diag"}; /* RS_MASK_FULL, _SKIP, _DIAG */

const char *rs_layout_name(rs_layout_t l) { return rs_enum_name(layout_names, RS_LAYOUT_COUNT, (int)l); }
const char *rs_pass_name(rs_pass_t p) { return rs_enum_name(pass_names, RS_PASS_COUNT, (int)p); }
const char *rs_mask_name(rs_mask_t m) { return rs_enum_name(mask_names, 3, (int)m); }

int rs_layout_parse(const char *s, rs_layout_t *out) {
    const int i = rs_enum_parse(layout_names, RS_LAYOUT_COUNT, s);
    if (i >= 0) *out = (rs_layout_t)i;
    return i < 0 ? -1 : 0;
}

int rs_pass_parse(const char *s, rs_pass_t *out) {
    static const char *const short_names[RS_PASS_COUNT] = {"fwd", "bwd"};
    int i = rs_enum_parse(pass_names, RS_PASS_COUNT, s);
    if (i < 0) i = rs_enum_parse(short_names, RS_PASS_COUNT, s);
    if (i >= 0) *out = (rs_pass_t)i;
    return i < 0 ? -1 : 0;
}

/* ================================================================================================
 * Problem
 * ============================================================================================== */
void rs_problem_default(rs_problem_t *p) {
    memset(p, 0, sizeof *p); /* the padding too: problems are compared with memcmp */
    p->seq_tokens = 128 * 1024, p->n_ranks = 8, p->batch = 1, p->q_heads = 32, p->kv_heads = 8, p->head_dim = 128;
    p->act_bytes = 2, p->grad_bytes = 4, p->causal = true, p->layout = RS_LAYOUT_ZIGZAG, p->pass = RS_PASS_FORWARD;
    p->tile_q = 128, p->tile_k = 128;
}

uint64_t rs_problem_flops_per_pair(const rs_problem_t *p) {
    uint64_t per_head = (p->pass == RS_PASS_BACKWARD ? 10u : 4u) * (uint64_t)p->head_dim;
    return per_head * (uint64_t)p->q_heads * (uint64_t)p->batch;
}

uint64_t rs_problem_total_pairs(const rs_problem_t *p) {
    uint64_t s = (uint64_t)p->seq_tokens;
    return p->causal ? s * (s + 1) / 2 : s * s;
}

uint64_t rs_problem_total_flops(const rs_problem_t *p) {
    return rs_problem_total_pairs(p) * rs_problem_flops_per_pair(p);
}

static uint64_t kv_like_bytes(const rs_problem_t *p, int64_t elem_bytes) {
    return 2u * (uint64_t)rs_problem_block(p) * (uint64_t)p->kv_heads * (uint64_t)p->head_dim *
           (uint64_t)p->batch * (uint64_t)elem_bytes;
}
uint64_t rs_problem_kv_bytes(const rs_problem_t *p) { return kv_like_bytes(p, p->act_bytes); }
uint64_t rs_problem_dkv_bytes(const rs_problem_t *p) { return kv_like_bytes(p, p->grad_bytes); }

uint64_t rs_problem_qkv_bytes(const rs_problem_t *p) {
    return (uint64_t)p->seq_tokens * (uint64_t)(p->q_heads + 2 * p->kv_heads) * (uint64_t)p->head_dim *
           (uint64_t)p->batch * (uint64_t)p->act_bytes;
}

uint64_t rs_problem_scores_bytes(const rs_problem_t *p) {
    return (uint64_t)p->seq_tokens * (uint64_t)p->seq_tokens * (uint64_t)p->q_heads * (uint64_t)p->batch *
           (uint64_t)p->act_bytes;
}

#define RANGE_CHECK(field, flag, lo, hi)                                                           \
    do {                                                                                           \
        if (p->field < (lo) || p->field > (hi))                                                    \
            return rs_errf(err, "%s %lld: must be in [%lld, %lld]", flag, (long long)p->field,     \
                           (long long)(lo), (long long)(hi));                                      \
    } while (0)

rs_problem_t rs_problem_with_block(const rs_problem_t *p, int64_t block_tokens) {
    rs_problem_t q = *p;
    q.seq_tokens = block_tokens > 0 && p->n_ranks > 0 && block_tokens > INT64_MAX / p->n_ranks ? INT64_MAX
                                                                                              : block_tokens * p->n_ranks;
    return q;
}

int rs_problem_validate(const rs_problem_t *p, rs_err_t *err) {
    RANGE_CHECK(n_ranks, "--ranks", 1, INT32_MAX);
    RANGE_CHECK(seq_tokens, "--seq", 1, (int64_t)UINT32_MAX);
    RANGE_CHECK(batch, "--batch", 1, 1 << 20);
    RANGE_CHECK(q_heads, "--heads", 1, 1 << 16);
    RANGE_CHECK(kv_heads, "--kv-heads", 1, 1 << 16);
    RANGE_CHECK(head_dim, "--head-dim", 1, 1 << 16);
    RANGE_CHECK(act_bytes, "--act-bytes", 1, 8);
    RANGE_CHECK(grad_bytes, "--grad-bytes", 1, 8);
    RANGE_CHECK(tile_q, "--tile (rows)", 1, 1 << 20);
    RANGE_CHECK(tile_k, "--tile (columns)", 1, 1 << 20);
    if ((unsigned)p->layout >= RS_LAYOUT_COUNT) return rs_errf(err, "--layout %d: must be contiguous, striped or zigzag", (int)p->layout);
    if ((unsigned)p->pass >= RS_PASS_COUNT) return rs_errf(err, "--pass %d: must be forward or backward", (int)p->pass);
    if (p->q_heads % p->kv_heads != 0)
        return rs_errf(err, "--heads %lld: must be a multiple of --kv-heads %lld (GQA/MQA groups)",
                       (long long)p->q_heads, (long long)p->kv_heads);
    int64_t div = p->layout == RS_LAYOUT_ZIGZAG ? 2 * p->n_ranks : p->n_ranks;
    if (p->seq_tokens % div != 0)
        return rs_errf(err, "--seq %lld: must be divisible by %s = %lld for the %s layout",
                       (long long)p->seq_tokens, p->layout == RS_LAYOUT_ZIGZAG ? "2*N" : "N",
                       (long long)div, rs_layout_name(p->layout));
    /* Overflow: total useful FLOPs and the bytes of one block must fit in 64 bits. */
    uint64_t fpp = 10u * (uint64_t)p->head_dim, tmp;
    if (__builtin_mul_overflow(fpp, (uint64_t)p->q_heads, &fpp) ||
        __builtin_mul_overflow(fpp, (uint64_t)p->batch, &fpp) ||
        __builtin_mul_overflow(rs_problem_total_pairs(p), fpp, &tmp))
        return rs_errf(err, "--seq %lld with --batch %lld, --heads %lld, --head-dim %lld: the FLOP count "
                            "overflows 64 bits (S^2 * 10 * d * heads * batch must stay below 1.8e19)",
                       (long long)p->seq_tokens, (long long)p->batch, (long long)p->q_heads, (long long)p->head_dim);
    uint64_t bytes = 2u * (uint64_t)p->seq_tokens;
    if (__builtin_mul_overflow(bytes, (uint64_t)p->kv_heads, &bytes) ||
        __builtin_mul_overflow(bytes, (uint64_t)p->head_dim, &bytes) ||
        __builtin_mul_overflow(bytes, (uint64_t)p->batch, &bytes) ||
        __builtin_mul_overflow(bytes, (uint64_t)(p->act_bytes > p->grad_bytes ? p->act_bytes : p->grad_bytes), &bytes))
        return rs_errf(err, "--seq %lld: the K,V byte count overflows 64 bits", (long long)p->seq_tokens);
    return 0;
}

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
    int64_t block;           /* B */
    int64_t seg_len;         /* tokens per segment: B (contiguous, striped) or B/2 (zigzag) */
    uint64_t fpp;            /* FLOPs per visible pair (all heads, batch) */
    uint64_t kv_bytes;       /* one K,V block */
    uint64_t dkv_bytes;      /* one dK,dV block */
    uint64_t pairs_full;     /* seg_len^2 */
    uint64_t pairs_diag[2];  /* visible pairs, diag 0 and 1 */
    uint64_t exec_diag[2];   /* executed-tile pairs, diag 0 and 1 */
};

/* The schedule of a validated problem; the executed pairs of the diagonal blocks (O(B / tile)) only
 * when exec (else 0). */
static void schedule_init(rs_schedule_t *s, const rs_problem_t *p, bool exec) {
    s->p = *p;
    s->block = rs_problem_block(p);
    s->seg_len = p->layout == RS_LAYOUT_ZIGZAG ? s->block / 2 : s->block;
    s->fpp = rs_problem_flops_per_pair(p);
    s->kv_bytes = rs_problem_kv_bytes(p);
    s->dkv_bytes = rs_problem_dkv_bytes(p);
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
    return s->p.pass == RS_PASS_BACKWARD ? s->p.n_ranks + 1 : s->p.n_ranks;
}

static inline int64_t mod_n(int64_t x, int64_t n) {
    int64_t r = x % n;
    return r < 0 ? r + n : r;
}

int rs_schedule_rank_segments(const rs_schedule_t *s, int64_t rank, rs_segment_t segs[RS_MAX_SEGMENTS]) {
    const int64_t n = s->p.n_ranks, b = s->block, c = s->seg_len;
    switch (s->p.layout) {
    case RS_LAYOUT_CONTIGUOUS:
        segs[0] = (rs_segment_t){rank * b, 1, b};
        return 1;
    case RS_LAYOUT_STRIPED:
        segs[0] = (rs_segment_t){rank, n, b};
        return 1;
    default: /* zigzag */
        segs[0] = (rs_segment_t){rank * c, 1, c};
        segs[1] = (rs_segment_t){(2 * n - 1 - rank) * c, 1, c};
        return 2;
    }
}

/* ceil(a / b) for b > 0 and any sign of a. */
static inline int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

/* Mask of Q segment q against KV segment k (equal stride and count in every layout). */
static void classify(const rs_schedule_t *s, const rs_segment_t *q, const rs_segment_t *k, rs_block_t *blk) {
    const int64_t n = q->count;
    if (!s->p.causal) {
        blk->mask = RS_MASK_FULL;
        blk->diag = 0;
    } else {
        int64_t diag = ceil_div(k->first - q->first, q->stride); /* visible iff i - j >= diag */
        blk->diag = diag;
        if (diag <= -(n - 1)) blk->mask = RS_MASK_FULL;
        else if (diag >= n) blk->mask = RS_MASK_SKIP;
        else blk->mask = RS_MASK_DIAG;
    }
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
    if (n == 1) return;
    const bool bwd = s->p.pass == RS_PASS_BACKWARD;
    if (step < n - 1) { /* K,V for the next step */
        o->send[o->n_send++] = (rs_xfer_t){RS_XFER_KV, mod_n(rank - step, n), s->kv_bytes};
        o->recv[o->n_recv++] = (rs_xfer_t){RS_XFER_KV, mod_n(rank - 1 - step, n), s->kv_bytes};
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
    o->n_q_segs = rs_schedule_rank_segments(s, rank, o->q_segs);
    o->has_compute = step < n;
    o->kv_owner = -1;
    if (o->has_compute) {
        o->kv_owner = mod_n(rank - step, n);
        o->n_kv_segs = rs_schedule_rank_segments(s, o->kv_owner, o->kv_segs);
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
        o->flops_useful = pairs * s->fpp;
        o->flops_exec = exec_pairs * s->fpp;
    }
    step_transfers(s, rank, step, o);
}

int rs_schedule_step_xfers(const rs_schedule_t *s, int64_t step, uint64_t bytes[RS_MAX_TRANSFERS]) {
    rs_step_t o;
    step_transfers(s, 0, step, &o);
    for (int i = 0; i < o.n_send; i++) bytes[i] = o.send[i].bytes;
    return o.n_send;
}

/* Fast path: the case analysis of docs/model.md ("Causal work per step"). For a step that computes,
 * the work of (rank, step) depends only on whether the KV owner comes before, is, or comes after
 * the rank. Tested against rs_schedule_step() for every layout. */
/* The classes from a problem and its blocks' pair counts: seg = tokens per segment, full = seg^2, pd
 * and xd = visible and executed pairs of a diagonal block with diag 0 and 1 (xd[1] read for striped
 * only). */
static void flops_classes(const rs_problem_t *p, int64_t block, uint64_t full, const uint64_t pd[2], const uint64_t xd[2],
                          uint64_t fpp, uint64_t useful[3], uint64_t exec[3]) {
    uint64_t pu[3], px[3];
    if (!p->causal) {
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
    for (int i = 0; i < 3; i++) {
        useful[i] = pu[i] * fpp;
        exec[i] = px[i] * fpp;
    }
}

void rs_schedule_flops_classes(const rs_schedule_t *s, uint64_t useful[3], uint64_t exec[3]) {
    flops_classes(&s->p, s->block, s->pairs_full, s->pairs_diag, s->exec_diag, s->fpp, useful, exec);
}

void rs_problem_flops_classes(const rs_problem_t *p, unsigned want, uint64_t useful[3], uint64_t exec[3]) {
    const int64_t block = rs_problem_block(p), seg = p->layout == RS_LAYOUT_ZIGZAG ? block / 2 : block;
    uint64_t pd[2] = {0, 0}, xd[2] = {0, 0};
    /* the diagonal blocks' pairs (O(B / tile) for the executed ones) only where a wanted class has one:
     * class 1 in every causal layout, every class of a causal striped ring */
    const bool striped = p->layout == RS_LAYOUT_STRIPED;
    if (p->causal && ((want & 2u) || striped)) {
        pd[0] = rs_diag_pairs(seg, 0), xd[0] = rs_diag_exec_pairs(seg, 0, p->tile_q, p->tile_k);
        if (striped && (want & 5u)) pd[1] = rs_diag_pairs(seg, 1), xd[1] = rs_diag_exec_pairs(seg, 1, p->tile_q, p->tile_k);
    }
    flops_classes(p, block, (uint64_t)seg * (uint64_t)seg, pd, xd, rs_problem_flops_per_pair(p), useful, exec);
    for (int c = 0; c < 3; c++)
        if (!(want >> c & 1u)) useful[c] = exec[c] = 0;
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
    uint64_t u[3], x[3];
    rs_schedule_flops_classes(s, u, x);
    const int64_t owner = mod_n(rank - step, n);
    const int cls = owner < rank ? 0 : owner == rank ? 1 : 2;
    *flops_useful = u[cls];
    *flops_exec = x[cls];
}
