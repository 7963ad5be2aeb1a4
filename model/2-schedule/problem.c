/* problem.c - the problem of a ring (schedule.h): the names of its enumerations, its defaults, the
 * accepted ranges and combinations of its fields (rs_problem_validate: every message names the
 * option), and the sizes derived from it - pairs, FLOPs, bytes of the blocks that move. */
#include "schedule.h"

#include <stdio.h>
#include <string.h>

/* ================================================================================================
 * Names
 * ============================================================================================== */
static const char *const layout_names[RS_LAYOUT_COUNT] = {"contiguous", "striped", "zigzag"};
static const char *const pass_names[RS_PASS_COUNT] = {"forward", "backward"};

static const char *const mask_names[] = {"full", "skip", "diag"}; /* RS_MASK_FULL, _SKIP, _DIAG */
static const char *const ring_names[RS_RING_COUNT] = {"pass-kv", "pass-q"};

const char *rs_layout_name(rs_layout_t l) { return rs_enum_name(layout_names, RS_LAYOUT_COUNT, (int)l); }
const char *rs_pass_name(rs_pass_t p) { return rs_enum_name(pass_names, RS_PASS_COUNT, (int)p); }
const char *rs_mask_name(rs_mask_t m) { return rs_enum_name(mask_names, 3, (int)m); }
const char *rs_ring_name(rs_ring_t r) { return rs_enum_name(ring_names, RS_RING_COUNT, (int)r); }

int rs_ring_parse(const char *s, rs_ring_t *out) {
    const int i = rs_enum_parse(ring_names, RS_RING_COUNT, s);
    if (i >= 0) *out = (rs_ring_t)i;
    return i < 0 ? -1 : 0;
}

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
    p->ring = RS_RING_PASS_KV, p->cached_tokens = 0, p->decode = false;
}

uint64_t rs_problem_flops_per_pair(const rs_problem_t *p) {
    uint64_t per_head = (p->pass == RS_PASS_BACKWARD ? 10u : 4u) * (uint64_t)p->head_dim;
    return per_head * (uint64_t)p->q_heads * (uint64_t)p->batch;
}

int64_t rs_problem_rank_seqs(const rs_problem_t *p, int64_t rank) {
    if (!p->decode) return p->batch;
    return rank < p->batch ? (p->batch - 1 - rank) / p->n_ranks + 1 : 0;
}

int64_t rs_problem_buf_seqs(const rs_problem_t *p) {
    return p->decode ? (p->batch + p->n_ranks - 1) / p->n_ranks : p->batch;
}

uint64_t rs_problem_total_pairs(const rs_problem_t *p) {
    uint64_t s = (uint64_t)p->seq_tokens, c = (uint64_t)p->cached_tokens;
    return s * c + (p->causal ? s * (s + 1) / 2 : s * s);
}

uint64_t rs_problem_total_flops(const rs_problem_t *p) {
    return rs_problem_total_pairs(p) * rs_problem_flops_per_pair(p);
}

/* 2 x rows x Hkv x d x seqs x elem_bytes: rows of K and V of seqs sequences. */
static uint64_t kv_like_bytes(const rs_problem_t *p, int64_t rows, int64_t seqs, int64_t elem_bytes) {
    return 2u * (uint64_t)rows * (uint64_t)p->kv_heads * (uint64_t)p->head_dim * (uint64_t)seqs * (uint64_t)elem_bytes;
}
uint64_t rs_problem_kv_bytes(const rs_problem_t *p) {
    return kv_like_bytes(p, rs_problem_block(p) + rs_problem_cached_block(p), p->batch, p->act_bytes);
}
uint64_t rs_problem_dkv_bytes(const rs_problem_t *p) {
    return kv_like_bytes(p, rs_problem_block(p) + rs_problem_cached_block(p), p->batch, p->grad_bytes);
}

uint64_t rs_problem_q_bytes(const rs_problem_t *p) {
    return (uint64_t)rs_problem_block(p) * (uint64_t)p->q_heads * (uint64_t)p->head_dim * (uint64_t)rs_problem_buf_seqs(p) *
           (uint64_t)p->act_bytes;
}

uint64_t rs_problem_part_bytes(const rs_problem_t *p) {
    return (uint64_t)rs_problem_block(p) * (uint64_t)p->q_heads * (uint64_t)rs_problem_buf_seqs(p) *
           ((uint64_t)p->head_dim * (uint64_t)p->act_bytes + 4u);
}

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
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s %lld: must be in [%lld, %lld]", flag, (long long)p->field,     \
                           (long long)(lo), (long long)(hi));                                      \
    } while (0)

rs_problem_t rs_problem_with_block(const rs_problem_t *p, int64_t block_tokens) {
    rs_problem_t q = *p;
    q.seq_tokens = block_tokens > 0 && p->n_ranks > 0 && block_tokens > INT64_MAX / p->n_ranks ? INT64_MAX
                                                                                              : block_tokens * p->n_ranks;
    return q;
}

/* The inference variants' rules (docs/inference.md): what a cache, pass-q and decode allow. */
static int validate_variant(const rs_problem_t *p, int64_t div, rs_err_t *err) {
    const char *div_name = p->layout == RS_LAYOUT_ZIGZAG ? "2*N" : "N";
    if ((unsigned)p->ring >= RS_RING_COUNT) return rs_errc(err, RS_ERR_BAD_INPUT, "--ring %d: must be pass-kv or pass-q", (int)p->ring);
    if (p->cached_tokens < 0 || p->cached_tokens > (int64_t)UINT32_MAX - p->seq_tokens)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--cached %lld: must be in [0, %lld] (cached + new tokens are positions below 2^32)",
                       (long long)p->cached_tokens, (long long)((int64_t)UINT32_MAX - p->seq_tokens));
    if (p->cached_tokens % div != 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--cached %lld: must be divisible by %s = %lld: the cache is sharded by the %s layout "
                            "like the new tokens",
                       (long long)p->cached_tokens, div_name, (long long)div, rs_layout_name(p->layout));
    if (p->pass == RS_PASS_BACKWARD && p->decode)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--pass decode: a decode step is a forward pass (it has no backward)");
    if (p->pass == RS_PASS_BACKWARD && p->cached_tokens > 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--cached %lld: a KV cache is an inference input; the backward pass (training) has none "
                            "(use --pass forward or decode)", (long long)p->cached_tokens);
    if (p->pass == RS_PASS_BACKWARD && p->ring == RS_RING_PASS_Q)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--ring pass-q: only inference passes (forward prefill, decode); the backward circulates "
                            "K,V and dK,dV (pass-kv)");
    if (!p->decode) return 0;
    if (!p->causal)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--pass decode: needs the causal mask (a new token sees the cache and itself; "
                            "drop --no-causal)");
    if (p->ring != RS_RING_PASS_Q)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--pass decode: runs as --ring pass-q (the cache stays, the queries move); "
                            "--ring pass-kv would move the whole cache for one token per sequence");
    if (p->seq_tokens != 1)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld: a decode step adds one token per sequence (--seq 1); decode more tokens "
                            "per step with --batch (one sequence per token)", (long long)p->seq_tokens);
    return 0;
}

int rs_problem_field_range(const char *field, int64_t *min, int64_t *max) {
    static const struct {
        const char *name;
        int64_t min, max;
    } t[] = {{"seq_tokens", RS_SEQ_TOKENS_MIN, RS_SEQ_TOKENS_MAX}, {"n_ranks", RS_N_RANKS_MIN, RS_N_RANKS_MAX},
             {"batch", RS_BATCH_MIN, RS_BATCH_MAX},                {"q_heads", RS_HEADS_MIN, RS_HEADS_MAX},
             {"kv_heads", RS_HEADS_MIN, RS_HEADS_MAX},             {"head_dim", RS_HEAD_DIM_MIN, RS_HEAD_DIM_MAX},
             {"act_bytes", RS_ELEM_BYTES_MIN, RS_ELEM_BYTES_MAX},  {"grad_bytes", RS_ELEM_BYTES_MIN, RS_ELEM_BYTES_MAX},
             {"tile_q", RS_TILE_MIN, RS_TILE_MAX},                 {"tile_k", RS_TILE_MIN, RS_TILE_MAX},
             {"cached_tokens", RS_CACHED_TOKENS_MIN, RS_CACHED_TOKENS_MAX}};
    for (size_t i = 0; field && i < sizeof t / sizeof t[0]; i++)
        if (strcmp(field, t[i].name) == 0) {
            *min = t[i].min;
            *max = t[i].max;
            return 0;
        }
    return -1;
}

int rs_problem_validate(const rs_problem_t *p, rs_err_t *err) {
    RANGE_CHECK(n_ranks, "--ranks", RS_N_RANKS_MIN, RS_N_RANKS_MAX);
    RANGE_CHECK(seq_tokens, "--seq", RS_SEQ_TOKENS_MIN, RS_SEQ_TOKENS_MAX);
    RANGE_CHECK(batch, "--batch", RS_BATCH_MIN, RS_BATCH_MAX);
    RANGE_CHECK(q_heads, "--heads", RS_HEADS_MIN, RS_HEADS_MAX);
    RANGE_CHECK(kv_heads, "--kv-heads", RS_HEADS_MIN, RS_HEADS_MAX);
    RANGE_CHECK(head_dim, "--head-dim", RS_HEAD_DIM_MIN, RS_HEAD_DIM_MAX);
    RANGE_CHECK(act_bytes, "--act-bytes", RS_ELEM_BYTES_MIN, RS_ELEM_BYTES_MAX);
    RANGE_CHECK(grad_bytes, "--grad-bytes", RS_ELEM_BYTES_MIN, RS_ELEM_BYTES_MAX);
    RANGE_CHECK(tile_q, "--tile (rows)", RS_TILE_MIN, RS_TILE_MAX);
    RANGE_CHECK(tile_k, "--tile (columns)", RS_TILE_MIN, RS_TILE_MAX);
    if ((unsigned)p->layout >= RS_LAYOUT_COUNT) return rs_errc(err, RS_ERR_BAD_INPUT, "--layout %d: must be contiguous, striped or zigzag", (int)p->layout);
    if ((unsigned)p->pass >= RS_PASS_COUNT) return rs_errc(err, RS_ERR_BAD_INPUT, "--pass %d: must be forward or backward", (int)p->pass);
    if (p->q_heads % p->kv_heads != 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--heads %lld: must be a multiple of --kv-heads %lld (GQA/MQA groups)",
                       (long long)p->q_heads, (long long)p->kv_heads);
    int64_t div = p->layout == RS_LAYOUT_ZIGZAG ? 2 * p->n_ranks : p->n_ranks;
    if (validate_variant(p, div, err) != 0) return -1;
    if (!p->decode && p->seq_tokens % div != 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld: must be divisible by %s = %lld for the %s layout",
                       (long long)p->seq_tokens, p->layout == RS_LAYOUT_ZIGZAG ? "2*N" : "N",
                       (long long)div, rs_layout_name(p->layout));
    /* Overflow: total useful FLOPs and the bytes of one block must fit in 64 bits. */
    const uint64_t s_new = (uint64_t)p->seq_tokens, s_all = s_new + (uint64_t)p->cached_tokens;
    const uint64_t own = p->causal ? s_new * (s_new + 1) / 2 : s_new * s_new; /* < 2^64: S <= 2^32 */
    uint64_t fpp = 10u * (uint64_t)p->head_dim, tmp, pairs;
    if (__builtin_mul_overflow(s_new, (uint64_t)p->cached_tokens, &pairs) || __builtin_add_overflow(pairs, own, &pairs) ||
        __builtin_mul_overflow(fpp, (uint64_t)p->q_heads, &fpp) || __builtin_mul_overflow(fpp, (uint64_t)p->batch, &fpp) ||
        __builtin_mul_overflow(pairs, fpp, &tmp))
        return p->cached_tokens > 0
                   ? rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld with --cached %lld, --batch %lld, --heads %lld, --head-dim %lld: the FLOP "
                                  "count overflows 64 bits (S (S/2 + P) * 10 * d * heads * batch must stay below 1.8e19)",
                             (long long)p->seq_tokens, (long long)p->cached_tokens, (long long)p->batch,
                             (long long)p->q_heads, (long long)p->head_dim)
                   : rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld with --batch %lld, --heads %lld, --head-dim %lld: the FLOP count "
                                  "overflows 64 bits (S^2 * 10 * d * heads * batch must stay below 1.8e19)",
                             (long long)p->seq_tokens, (long long)p->batch, (long long)p->q_heads,
                             (long long)p->head_dim);
    uint64_t bytes = 2u * s_all;
    if (__builtin_mul_overflow(bytes, (uint64_t)p->kv_heads, &bytes) ||
        __builtin_mul_overflow(bytes, (uint64_t)p->head_dim, &bytes) ||
        __builtin_mul_overflow(bytes, (uint64_t)p->batch, &bytes) ||
        __builtin_mul_overflow(bytes, (uint64_t)(p->act_bytes > p->grad_bytes ? p->act_bytes : p->grad_bytes), &bytes))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld: the K,V byte count overflows 64 bits", (long long)p->seq_tokens);
    bytes = s_new; /* pass-q's Q blocks and partial outputs: S x Hq x (d x act_bytes + 4) x batch */
    if (rs_problem_passes_q(p) &&
        (__builtin_mul_overflow(bytes, (uint64_t)p->q_heads, &bytes) ||
         __builtin_mul_overflow(bytes, (uint64_t)p->head_dim * (uint64_t)p->act_bytes + 4u, &bytes) ||
         __builtin_mul_overflow(bytes, (uint64_t)p->batch, &bytes)))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld: the Q byte count overflows 64 bits", (long long)p->seq_tokens);
    return 0;
}

const char *rs_problem_note(const rs_problem_t *p, char *buf, size_t len) {
    buf[0] = '\0';
    if (p->ring != RS_RING_PASS_Q || p->decode || p->cached_tokens > 0 || p->n_ranks == 1) return buf;
    rs_problem_t kv = *p;
    kv.ring = RS_RING_PASS_KV;
    snprintf(buf, len,
             "--ring pass-q without a cache (--cached 0): the same FLOPs as --ring pass-kv, which is its equivalent; "
             "each step moves the Q block (%llu bytes) instead of K,V (%llu bytes), and the partial outputs return in "
             "an all-to-all of %llu bytes per rank that pass-kv does not need",
             (unsigned long long)rs_problem_q_bytes(p), (unsigned long long)rs_problem_kv_bytes(&kv),
             (unsigned long long)((uint64_t)(p->n_ranks - 1) * rs_problem_part_bytes(p)));
    return buf;
}
