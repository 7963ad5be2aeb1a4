/* exec_common.c - what the executor and its backends share (exec.h): tensor and progress names,
 * options and the run's estimate, the seeded inputs. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "output.h"

/* ---------------------------------------------------------------------------------------------------
 * Names and options
 * ------------------------------------------------------------------------------------------------- */
static const char *const tensor_names[RS_TENSOR_COUNT] = {"Q", "K", "V", "dO", "O", "lse", "dQ", "dK", "dV"};
static const char *const progress_names[] = {"none", "poll", "thread"}; /* RS_PROGRESS_NONE, _POLL, _THREAD */

const char *rs_tensor_name(rs_tensor_t t) { return rs_enum_name(tensor_names, RS_TENSOR_COUNT, (int)t); }
const char *rs_progress_name(rs_progress_t p) { return rs_enum_name(progress_names, 3, (int)p); }

int rs_progress_parse(const char *s, rs_progress_t *out) {
    const int i = rs_enum_parse(progress_names, 3, s);
    if (i >= 0) *out = (rs_progress_t)i;
    return i < 0 ? -1 : 0;
}

void rs_exec_estimate(const rs_problem_t *p, const rs_exec_opts_t *o, rs_estimate_t *e) {
    rs_exec_opts_t def;
    if (!o) rs_exec_opts_default(&def), o = &def;
    const double n = (double)p->n_ranks, b = (double)rs_problem_block(p), d = (double)p->head_dim;
    const double steps = p->pass == RS_PASS_BACKWARD ? n + 1 : n, bwd = p->pass == RS_PASS_BACKWARD;
    const double nq = (double)p->batch * (double)p->q_heads * b * d, nkv = (double)p->batch * (double)p->kv_heads * b * d;
    e->rank_steps = n * steps;
    e->mem_bytes = 32e6 * n + n * 4 * ((3 + 2 * bwd) * nq + (6 + 4 * bwd) * nkv);
    const double s_tok = (double)p->seq_tokens, full = (double)p->batch * s_tok * d * (double)(p->q_heads + p->kv_heads);
    if (o->check) e->mem_bytes += 8 * 4 * full + 4 * n * nq;
    const double flops = (p->causal ? 2.0 : 4.0) * s_tok * s_tok * d * (double)p->batch * (double)p->q_heads * (1 + 1.5 * bwd);
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const double par = fmin(n, cores > 0 ? (double)cores : 1);
    e->time_s = 0.5 + flops * (o->warmup + o->reps) / (2e10 * par) + (o->check ? flops / 1e9 : 0);
}

void rs_exec_opts_default(rs_exec_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->warmup = 1, o->reps = 3, o->timeout_s = 60.0, o->seed = 1, o->input_scale = 1.0, o->check_tol = 1e-5;
    o->fault_rank = -1, o->fault_step = -1, o->stall_rank = -1, o->stall_step = -1;
}

/* ---------------------------------------------------------------------------------------------------
 * Seeded inputs
 * ------------------------------------------------------------------------------------------------- */
static int64_t tensor_heads(rs_tensor_t t, const rs_problem_t *p) {
    return (t == RS_TENSOR_K || t == RS_TENSOR_V || t == RS_TENSOR_DK || t == RS_TENSOR_DV) ? p->kv_heads
                                                                                            : p->q_heads;
}

float rs_exec_input(const rs_exec_input_t *in, int64_t b, int64_t h, int64_t token, int64_t dim) {
    const rs_problem_t *p = in->problem;
    const uint64_t positions = (uint64_t)p->seq_tokens + (uint64_t)p->cached_tokens;
    uint64_t idx = (((uint64_t)b * (uint64_t)tensor_heads(in->tensor, p) + (uint64_t)h) * positions + (uint64_t)token) *
                       (uint64_t)p->head_dim + (uint64_t)dim;
    double u = rs_hash_unit(in->seed, 0x5eed0000u + (uint64_t)in->tensor, idx);
    return (float)(in->scale * (2.0 * u - 1.0));
}

void rs_exec_fill_local(const rs_exec_input_t *in, int n_segs, const rs_segment_t *segs, float *out) {
    const rs_problem_t *p = in->problem;
    int64_t heads = tensor_heads(in->tensor, p), d = p->head_dim, rows = 0;
    for (int s = 0; s < n_segs; s++) rows += segs[s].count;
    for (int64_t b = 0; b < p->batch; b++)
        for (int64_t h = 0; h < heads; h++) {
            float *base = out + ((b * heads + h) * rows) * d;
            int64_t r = 0;
            for (int s = 0; s < n_segs; s++)
                for (int64_t i = 0; i < segs[s].count; i++, r++) {
                    int64_t tok = segs[s].first + i * segs[s].stride;
                    for (int64_t x = 0; x < d; x++) base[r * d + x] = rs_exec_input(in, b, h, tok, x);
                }
        }
}

void rs_exec_fill_rank(uint64_t seed, rs_tensor_t t, const rs_schedule_t *s, int64_t rank, double scale, float *out) {
    const rs_problem_t *p = rs_schedule_problem(s);
    rs_segment_t segs[RS_MAX_KV_SEGMENTS];
    const bool kv = t == RS_TENSOR_K || t == RS_TENSOR_V;
    const int n_segs = kv ? rs_schedule_rank_kv_segments(s, rank, segs) : rs_schedule_rank_segments(s, rank, segs);
    const rs_exec_input_t in = {.seed = seed, .tensor = t, .problem = p, .scale = scale};
    if (!p->decode) {
        rs_exec_fill_local(&in, n_segs, segs, out);
        return;
    }
    /* decode: Q-like rows of the rank's own sequences rank + i N; K,V of every sequence, whose new
     * token (the last row) lives on its owner only */
    const int64_t heads = tensor_heads(t, p), d = p->head_dim, seqs = kv ? p->batch : rs_problem_buf_seqs(p);
    int64_t rows = 0;
    for (int g = 0; g < n_segs; g++) rows += segs[g].count;
    memset(out, 0, sizeof(float) * (size_t)(seqs * heads * rows * d));
    for (int64_t i = 0; i < seqs; i++) {
        const int64_t b = kv ? i : rank + i * p->n_ranks;
        if (b >= p->batch) continue;
        for (int64_t h = 0; h < heads; h++) {
            float *base = out + ((i * heads + h) * rows) * d;
            int64_t r = 0;
            for (int g = 0; g < n_segs; g++)
                for (int64_t j = 0; j < segs[g].count; j++, r++) {
                    const int64_t tok = segs[g].first + j * segs[g].stride;
                    if (kv && tok >= p->cached_tokens && b % p->n_ranks != rank) continue; /* another's new token */
                    for (int64_t x = 0; x < d; x++) base[r * d + x] = rs_exec_input(&in, b, h, tok, x);
                }
        }
    }
}
