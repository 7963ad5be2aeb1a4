/* executor.c - rs_exec_run (exec.h): one rank's run of the schedule - its state and buffers, the
 * warm-up and measured repetitions of the pass loops (exec_pass.c), the medians of its events and
 * their gathering on rank 0 (exec_results.c), and, for --check and --save-io, its outputs gathered
 * there for the float64 check (exec_check.c). The runners of N ranks in one process: exec_threads.c
 * (one thread per rank) and exec_loopback.c (one device playing every rank in turn). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "exec_check.h"
#include "exec_pass.h"
#include "exec_results.h"

#define TRY(x)                                                                                      \
    do {                                                                                           \
        if ((x) < 0) goto fail;                                                                    \
    } while (0)

/* --check / --save-io: every rank's outputs gathered on rank 0 (into outs[0..*n_outs), which the
 * caller frees), checked and saved there. Returns 0 (a failed check: res->check_ok false, err says
 * why) or -1 with err. */
static int gather_outputs(const rs_exec_ctx_t *c, const rs_schedule_t *s, rs_exec_output_t *outs, int *n_outs, rs_exec_result_t *res,
                          rs_err_t *err) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const rs_exec_opts_t *opts = c->o;
    const int64_t B = rs_problem_block(p);
    const rs_tensor_t which[5] = {RS_TENSOR_O, RS_TENSOR_LSE, RS_TENSOR_DQ, RS_TENSOR_DK, RS_TENSOR_DV};
    const int n_which = p->pass == RS_PASS_BACKWARD ? 5 : 2;
    const int64_t heads = p->q_heads > p->kv_heads ? p->q_heads : p->kv_heads, qs = rs_problem_buf_seqs(p);
    rs_err_t e = {0};
    float *host_out = malloc(sizeof(float) * (size_t)(qs * heads * B * p->head_dim));
    int rc = host_out ? 0 : rs_errf(err, "rank %lld: out of memory", (long long)c->rank);
    for (int i = 0; i < n_which && rc == 0; i++) {
        rs_exec_output_t cur = {which[i], which[i] == RS_TENSOR_DK || which[i] == RS_TENSOR_DV ? p->kv_heads : p->q_heads,
                     which[i] == RS_TENSOR_LSE ? 1 : p->head_dim, NULL};
        size_t n = (size_t)(qs * cur.heads * B * cur.width);
        if (c->cops->download(c->cs, cur.t, host_out, c->dkv_final, &e) < 0) {
            rc = rs_errc(err, e.code, "rank %lld: %s", (long long)c->rank, e.msg);
            break;
        }
        if (c->rank == 0 && !(cur.gathered = malloc(sizeof(float) * n * (size_t)c->n))) {
            rc = rs_errf(err, "rank 0: out of memory");
            break;
        }
        outs[(*n_outs)++] = cur;
        if (c->tops->gather(c->ts, host_out, sizeof(float) * n, cur.gathered, opts->timeout_s, &e) < 0)
            rc = rs_errc(err, e.code, "rank %lld, gathering %s: %s", (long long)c->rank, rs_tensor_name(cur.t), e.msg);
    }
    free(host_out);
    if (rc == 0 && c->rank == 0 && rs_exec_check_and_save(s, opts, outs, *n_outs, res, err) < 0) rc = -1;
    if (rc == 0 && c->rank == 0 && !res->check_ok) rs_exec_check_message(opts, outs, *n_outs, res, err);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------
 * rs_exec_run
 * ------------------------------------------------------------------------------------------------- */
/* What rs_exec_run refuses before it allocates anything. Returns 0 or -1 with err. */
static int refuse(const rs_exec_ctx_t *c, const rs_problem_t *p, bool alone, rs_err_t *err) {
    const rs_exec_opts_t *opts = c->o;
    const rs_compute_ops_t *cops = c->cops;
    if (alone && (opts->check || opts->save_io_dir))
        return rs_errf(err, "--check and --save-io need the real ring: a loopback rank computes on its own blocks");
    if (c->n != p->n_ranks)
        return rs_errf(err, "the transport has %lld ranks but the problem asks for N = %lld", (long long)c->n, (long long)p->n_ranks);
    if (cops->act_bytes != p->act_bytes)
        return rs_errf(err, "compute backend %s works in %s (%lld bytes) but the problem has act_bytes %lld",
                       cops->name, cops->dtype_name, (long long)cops->act_bytes, (long long)p->act_bytes);
    if (opts->reps < 1 || opts->warmup < 0) return rs_errf(err, "reps must be >= 1 and warmup >= 0");
    const bool passes_q = rs_problem_passes_q(p);
    if (passes_q && (!cops->q_step || !cops->q_merge))
        return rs_errf(err, "compute backend %s: cannot run --ring pass-q or decode (no partial-output kernels)", cops->name);
    if (passes_q && alone)
        return rs_errf(err, "--loopback: --ring pass-q and decode return their partials in an all-to-all, which needs "
                            "the real ring");
    return 0;
}

/* pass-q's buffers: the Q double buffer, a partial per owner and one per other rank's return. */
static int alloc_q_buffers(rs_exec_ctx_t *c, const rs_problem_t *p, rs_err_t *err) {
    rs_err_t e = {0};
    if (!(c->part = calloc((size_t)(2 * c->n), sizeof *c->part))) return rs_errf(err, "rank %lld: out of memory", (long long)c->rank);
    for (int i = 0; i < 2; i++)
        if (c->cops->buf_alloc(c->cs, rs_problem_q_bytes(p), &c->qbuf[i], &e) < 0)
            return rs_errc(err, e.code, "rank %lld: %s", (long long)c->rank, e.msg);
    for (int64_t i = 0; i < 2 * c->n; i++)
        if (i != c->n + c->rank && c->cops->buf_alloc(c->cs, rs_problem_part_bytes(p), &c->part[i], &e) < 0)
            return rs_errc(err, e.code, "rank %lld: %s", (long long)c->rank, e.msg);
    return 0;
}

/* This rank's seeded inputs on the host: Q and dO (the Q-like tensors), K and V. */
typedef struct {
    float *q, *k, *v, *dout;
} host_inputs_t;

/* The compute state's resident inputs and transfer buffers: Q (pass-q: the Q buffers and partials)
 * and, for a backward, dO and the dK,dV buffers; the K,V buffers. Returns 0 or -1 with err. */
static int alloc_buffers(rs_exec_ctx_t *c, const rs_problem_t *p, const host_inputs_t *h, rs_err_t *err) {
    const rs_compute_ops_t *cops = c->cops;
    const bool passes_q = rs_problem_passes_q(p), bwd = p->pass == RS_PASS_BACKWARD;
    rs_err_t e = {0};
    if (passes_q && alloc_q_buffers(c, p, err) < 0) return -1;
    if ((!passes_q && cops->upload(c->cs, RS_TENSOR_Q, h->q, NULL, &e) < 0) ||
        (bwd && cops->upload(c->cs, RS_TENSOR_DO, h->dout, NULL, &e) < 0))
        return rs_errc(err, e.code, "rank %lld: %s", (long long)c->rank, e.msg);
    for (int i = 0; i < (passes_q ? 1 : 2); i++)
        if (cops->buf_alloc(c->cs, rs_problem_kv_bytes(p), &c->kv[i], &e) < 0)
            return rs_errc(err, e.code, "rank %lld: %s", (long long)c->rank, e.msg);
    for (int i = 0; bwd && i < 3; i++)
        if (cops->buf_alloc(c->cs, rs_problem_dkv_bytes(p), &c->dkv[i], &e) < 0)
            return rs_errc(err, e.code, "rank %lld: %s", (long long)c->rank, e.msg);
    return 0;
}

static void free_buffers(rs_exec_ctx_t *c) {
    const rs_compute_ops_t *cops = c->cops;
    if (c->cs) {
        for (int i = 0; i < 2; i++) {
            if (c->kv[i]) cops->buf_free(c->cs, c->kv[i]);
            if (c->qbuf[i]) cops->buf_free(c->cs, c->qbuf[i]);
        }
        for (int64_t i = 0; c->part && i < 2 * c->n; i++)
            if (c->part[i]) cops->buf_free(c->cs, c->part[i]);
        for (int i = 0; i < 3; i++)
            if (c->dkv[i]) cops->buf_free(c->cs, c->dkv[i]);
        cops->destroy(c->cs);
    }
    free(c->part);
}

/* The warm-up and measured repetitions of schedule s (a backward's forward fs runs first, untimed),
 * the measured ones' events into rec ([reps][n_steps][RS_EXEC_KINDS]). Returns 0 or -1 with err. */
static int repetitions(rs_exec_ctx_t *c, const rs_schedule_t *s, const rs_schedule_t *fs, rs_exec_slot_t *rec,
                       rs_exec_result_t *res, rs_err_t *err) {
    const rs_exec_opts_t *opts = c->o;
    const rs_problem_t *p = rs_schedule_problem(s);
    const bool passes_q = rs_problem_passes_q(p), bwd = p->pass == RS_PASS_BACKWARD;
    const int64_t n_steps = rs_schedule_n_steps(s);
    rs_err_t e = {0};
    for (int r = 0; r < opts->warmup + opts->reps; r++) {
        if (rs_exec_stage_inputs(c, passes_q && !bwd, false, err) < 0) return -1;
        if (c->tops->barrier(c->ts, opts->timeout_s, &e) < 0)
            return rs_errc(err, e.code, "rank %lld, before repetition %d: %s", (long long)c->rank, r, e.msg);
        if (bwd && rs_exec_pass(c, fs, NULL, 0, res, err) < 0) return -1;
        if (bwd && rs_exec_stage_inputs(c, passes_q, true, err) < 0) return -1; /* the forward's ring moved K,V */
        if (bwd && c->tops->barrier(c->ts, opts->timeout_s, &e) < 0)
            return rs_errc(err, e.code, "rank %lld, before the backward of repetition %d: %s", (long long)c->rank, r, e.msg);
        const double t0 = rs_now_s();
        rs_exec_slot_t *slots = r >= opts->warmup ? rec + (size_t)(r - opts->warmup) * (size_t)n_steps * RS_EXEC_KINDS : NULL;
        if ((passes_q ? rs_exec_pass_q : rs_exec_pass)(c, s, slots, t0, res, err) < 0) return -1;
    }
    return 0;
}

/* This rank's events ev ([n_steps][RS_EXEC_KINDS]) gathered on the root (rank 0 of all ranks, or a
 * loopback state alone), whose result gets their medians and whose trace (if non-NULL) the events and
 * the header. Returns 0 or -1 with err. */
static int gather_events(const rs_exec_ctx_t *c, const rs_schedule_t *s, const rs_event_t *ev, rs_trace_t *trace,
                         rs_exec_result_t *res, rs_err_t *err) {
    const int64_t n_steps = rs_schedule_n_steps(s);
    const bool alone = c->tops->loopback && c->tops->loopback(c->ts);
    const int64_t n_here = alone ? 1 : c->n;
    const bool root = alone || c->rank == 0;
    const size_t ev_bytes = sizeof(rs_event_t) * (size_t)n_steps * RS_EXEC_KINDS, total = (size_t)n_here * (size_t)n_steps * RS_EXEC_KINDS;
    rs_event_t *all_ev = NULL;
    rs_err_t e = {0};
    if (root && !(all_ev = malloc(ev_bytes * (size_t)n_here)))
        return rs_errf(err, "rank %lld: out of memory for %lld events", (long long)c->rank, (long long)(n_here * n_steps * RS_EXEC_KINDS));
    int rc = 0;
    if (c->tops->gather(c->ts, ev, ev_bytes, all_ev, c->o->timeout_s, &e) < 0)
        rc = rs_errc(err, e.code, "rank %lld, gathering events: %s", (long long)c->rank, e.msg);
    if (rc == 0) {
        snprintf(res->compute_desc, sizeof res->compute_desc, "%s", c->cops->describe(c->cs));
        snprintf(res->transport_desc, sizeof res->transport_desc, "%s", c->tops->describe(c->ts));
    }
    if (rc == 0 && root && (rs_exec_summarize(all_ev, total, res, err) < 0 || (trace && rs_exec_trace_events(trace, all_ev, total, err) < 0)))
        rc = -1;
    if (rc == 0 && root && trace) rs_exec_trace_header(trace, rs_schedule_problem(s), c->cops, c->o, res);
    free(all_ev);
    return rc;
}

int rs_exec_run(const rs_schedule_t *s, const rs_exec_backends_t *on, const rs_exec_opts_t *opts, rs_trace_t *trace,
                rs_exec_result_t *res, rs_err_t *err) {
    const rs_problem_t *p = rs_schedule_problem(s);
    memset(res, 0, sizeof *res);
    for (int i = 0; i < RS_TENSOR_COUNT; i++) res->err[i] = -1;
    res->check_ok = true, res->finite = true, res->fail_step = -1;
    rs_exec_ctx_t c = {.cops = on->cops, .tops = on->tops, .ts = on->ts, .o = opts, .measured = p->pass};
    c.rank = on->tops->rank(on->ts), c.n = on->tops->size(on->ts);
    /* loopback: this state plays its rank alone; gather and the trace cover that rank only */
    const bool alone = on->tops->loopback && on->tops->loopback(on->ts);
    if (refuse(&c, p, alone, err) < 0) return -1;
    const int64_t B = rs_problem_block(p), n_steps = rs_schedule_n_steps(s);
    res->n_steps = n_steps;
    rs_exec_rank_t ri = {.problem = *p, .rank = c.rank, .block_tokens = B, .softmax_scale = 1.0 / sqrt((double)p->head_dim),
                         .local_rank = on->local_rank, .progress = on->tops->progress, .progress_arg = on->ts};
    ri.n_segs = rs_schedule_rank_segments(s, c.rank, ri.segs);
    ri.n_kv_segs = rs_schedule_rank_kv_segments(s, c.rank, ri.kv_segs);
    ri.kv_rows = B + rs_problem_cached_block(p);
    ri.q_seqs = rs_problem_buf_seqs(p);
    rs_err_t e = {0};
    if (c.cops->create(&ri, &c.cs, &e) < 0) return rs_errc(err, e.code, "rank %lld: %s", (long long)c.rank, e.msg);

    int rc = -1;
    rs_schedule_t *fs = NULL;
    rs_exec_slot_t *rec = NULL;
    rs_event_t *ev = NULL;
    rs_exec_output_t outs[5] = {{0}};
    int n_outs = 0;
    const size_t nq = (size_t)(ri.q_seqs * p->q_heads * B * p->head_dim),
                 nkv = (size_t)(p->batch * p->kv_heads * ri.kv_rows * p->head_dim);
    host_inputs_t h = {malloc(sizeof(float) * nq), malloc(sizeof(float) * nkv), malloc(sizeof(float) * nkv),
                       malloc(sizeof(float) * nq)};
    rec = calloc((size_t)opts->reps * (size_t)n_steps * RS_EXEC_KINDS, sizeof *rec);
    ev = calloc((size_t)n_steps * RS_EXEC_KINDS, sizeof *ev);
    if (!h.q || !h.dout || !h.k || !h.v || !rec || !ev) {
        rs_errf(err, "rank %lld: out of memory", (long long)c.rank);
        goto fail;
    }
    rs_exec_fill_rank(opts->seed, RS_TENSOR_Q, s, c.rank, opts->input_scale, h.q);
    rs_exec_fill_rank(opts->seed, RS_TENSOR_K, s, c.rank, opts->input_scale, h.k);
    rs_exec_fill_rank(opts->seed, RS_TENSOR_V, s, c.rank, opts->input_scale, h.v);
    rs_exec_fill_rank(opts->seed, RS_TENSOR_DO, s, c.rank, 1.0, h.dout);
    c.k_host = h.k, c.v_host = h.v, c.q_host = h.q;
    TRY(alloc_buffers(&c, p, &h, err));
    if (p->pass == RS_PASS_BACKWARD) {
        rs_problem_t fp = *p;
        fp.pass = RS_PASS_FORWARD;
        if (!(fs = rs_schedule_create(&fp, err))) goto fail;
    }
    TRY(repetitions(&c, s, fs, rec, res, err));
    rs_exec_median_events(rec, opts->reps, n_steps, c.rank, p->pass, ev);
    TRY(gather_events(&c, s, ev, trace, res, err));
    /* gather outputs for --check / --save-io */
    if ((opts->check || opts->save_io_dir) && gather_outputs(&c, s, outs, &n_outs, res, err) < 0) goto fail;
    rc = 0;
fail:
    for (int i = 0; i < n_outs; i++) free(outs[i].gathered);
    free_buffers(&c);
    rs_schedule_free(fs);
    free(h.q), free(h.k), free(h.v), free(h.dout), free(rec), free(ev);
    return rc;
}
