/* executor.c - the one executor loop over the schedule (see exec.h for the data layout and the
 * per-step protocol), repetitions and medians, gathering events and outputs on rank 0, the float64
 * check and --save-io files, and the thread runner for N ranks in one process.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "exec.h"
#include "stats.h"

/* Event slots per step, in rs_event_kind_t order (compute, send, recv, step). */
#define KINDS RS_EV_KIND_COUNT

typedef struct {
    double start_s, end_s;  /* relative to the repetition's origin */
    bool valid;             /* the step has this event */
    int32_t peer;           /* send/recv peer */
    double flops, bytes;    /* compute FLOPs (executed) / payload bytes */
} slot_t;

typedef struct {
    const rs_compute_ops_t *cops;   /* compute backend */
    void *cs;                       /* its state */
    const rs_transport_ops_t *tops; /* transport */
    void *ts;                       /* its state */
    const rs_exec_opts_t *o;        /* options */
    int64_t rank, n;                /* ring rank, ring size */
    const float *k_host, *v_host;   /* this rank's own K, V (staged before every pass: stage_inputs) */
    const float *q_host;            /* this rank's own Q (pass-q: staged into qbuf before every pass) */
    void *kv[2];                    /* K,V double buffer (pass-q: kv[0] holds the rank's own) */
    void *qbuf[2];                  /* pass-q: Q double buffer */
    void **part;                    /* pass-q: [N] partial outputs of every owner's queries, then [N]
                                       received from every rank (part[n + r]) */
    void *dkv[3];                   /* dK,dV: accumulate, send, receive */
    void *dkv_final;                /* after a backward pass: this rank's dK,dV */
    rs_pass_t measured;             /* the measured pass (fault injection applies to it) */
} ctx_t;

#define TRY(x)                                                                                      \
    do {                                                                                           \
        if ((x) < 0) goto fail;                                                                    \
    } while (0)

/* ---------------------------------------------------------------------------------------------------
 * One pass
 * ------------------------------------------------------------------------------------------------- */
/* Record the step's events into its slots (send/recv: first post to last completion). */
static void record_slots(slot_t *sl, const rs_step_t *st, const rs_xfer_req_t *reqs, const rs_xfer_time_t *times, int nr,
                         double t0, double cs0, double cs1, double t_step0, double t_step1) {
    memset(sl, 0, sizeof(slot_t) * KINDS);
    if (st->has_compute) sl[RS_EV_COMPUTE] = (slot_t){cs0 - t0, cs1 - t0, true, -1, (double)st->flops_exec, 0};
    for (int dir = 0; dir < 2; dir++) {
        double a = INFINITY, b = -INFINITY;
        for (int i = 0; i < nr; i++)
            if ((int)reqs[i].dir == dir) a = fmin(a, times[i].post_s), b = fmax(b, times[i].done_s);
        if (a <= b) {
            rs_event_kind_t kind = dir == RS_XFER_SEND ? RS_EV_SEND : RS_EV_RECV;
            sl[kind] = (slot_t){a - t0, b - t0, true, (int32_t)(dir == RS_XFER_SEND ? st->send_peer : st->recv_peer), 0,
                                (double)(dir == RS_XFER_SEND ? st->send_bytes : st->recv_bytes)};
        }
    }
    sl[RS_EV_STEP] = (slot_t){t_step0 - t0, t_step1 - t0, true, -1, 0, 0};
}

/* pass-q's return: every partial to its owner in N - 1 pairwise rounds (round j: to p+j, from p-j).
 * reqs/times receive one send and one receive spanning the first post to the last completion. */
static int a2a_return(ctx_t *c, const rs_step_t *st, rs_xfer_req_t reqs[2], rs_xfer_time_t times[2], rs_err_t *err) {
    const int64_t n = c->n, p = c->rank;
    rs_err_t e = {0};
    times[0] = times[1] = (rs_xfer_time_t){INFINITY, -INFINITY};
    for (int64_t j = 1; j < n; j++) {
        const int64_t to = (p + j) % n, from = (p - j + n) % n;
        rs_xfer_time_t tt[2];
        reqs[0] = (rs_xfer_req_t){RS_XFER_SEND, to, c->part[to], st->a2a_peer_bytes, 2};
        reqs[1] = (rs_xfer_req_t){RS_XFER_RECV, from, c->part[n + from], st->a2a_peer_bytes, 2};
        if (c->tops->post(c->ts, 2, reqs, &e) < 0 || c->tops->wait(c->ts, c->o->timeout_s, tt, &e) < 0)
            return rs_errc(err, e.code, "rank %lld, all-to-all round %lld (to %lld, from %lld): %s", (long long)p, (long long)j,
                           (long long)to, (long long)from, e.msg);
        for (int i = 0; i < 2; i++)
            times[i].post_s = fmin(times[i].post_s, tt[i].post_s), times[i].done_s = fmax(times[i].done_s, tt[i].done_s);
    }
    return 0;
}

/* Put the rank's own K,V (pass-q: and Q) into the buffers a pass starts from: the ring overwrites
 * them, so every pass needs them again. It runs before the barrier that starts a pass, outside the
 * measured time: a pass starts with its inputs resident, as in a training step (K,V are the
 * projection's outputs) and as the model's step 0 does. */
static int stage_inputs(ctx_t *c, bool pass_q, bool dkv, rs_err_t *err) {
    rs_err_t e = {0};
    if (c->cops->upload(c->cs, RS_TENSOR_K, c->k_host, c->kv[0], &e) < 0 ||
        c->cops->upload(c->cs, RS_TENSOR_V, c->v_host, c->kv[0], &e) < 0 ||
        (pass_q && c->cops->upload(c->cs, RS_TENSOR_Q, c->q_host, c->qbuf[0], &e) < 0))
        return rs_errc(err, e.code, "rank %lld: %s", (long long)c->rank, e.msg);
    /* the backward's dK,dV buffers start the pass cleared by this rank, as a step's gradient
       buffers do. Left as the pass before left them, the buffer that pass sent last (its peer read
       it) is the one step 1 clears and accumulates into: on a 2-core EPYC that clear took 27 us for
       64 KiB (B = 32) and 48-54 us for 128 KiB in some runs, against 5-7 us for memory this rank
       owns, and it delayed step 1's compute and every poll in it (docs/exec.md). */
    for (int i = 0; dkv && i < 3; i++)
        if (c->cops->grad_zero(c->cs, c->dkv[i], &e) < 0 || c->cops->wait(c->cs, NULL, NULL, &e) < 0)
            return rs_errc(err, e.code, "rank %lld: %s", (long long)c->rank, e.msg);
    return 0;
}

/* The pass of a schedule that circulates Q (exec.h, "pass-q"). */
static int run_pass_q(ctx_t *c, const rs_schedule_t *s, slot_t *slots, double t0, bool *faulted, int64_t *fail_step,
                      rs_err_t *err) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const int64_t n_steps = rs_schedule_n_steps(s), n = c->n;
    rs_err_t e = {0};
    int cur = 0;
    for (int64_t k = 0; k < n_steps; k++) {
        rs_step_t st;
        rs_schedule_step(s, c->rank, k, &st);
        *fail_step = k;
        if (c->o->fault_rank == c->rank && c->o->fault_step == k) {
            *faulted = true;
            return rs_errf(err, "rank %lld stopped at %s step %lld (fault injection)", (long long)c->rank,
                           rs_pass_name(p->pass), (long long)k);
        }
        rs_xfer_req_t reqs[RS_XFER_MAX_REQS];
        rs_xfer_time_t times[RS_XFER_MAX_REQS];
        int nr = 0;
        double cs0 = 0, cs1 = 0;
        const double t_step0 = rs_now_s();
        if (st.a2a) {
            if (a2a_return(c, &st, reqs, times, err) < 0) return -1;
            nr = 2;
        } else {
            for (int i = 0; i < st.n_send; i++)
                reqs[nr++] = (rs_xfer_req_t){RS_XFER_SEND, st.send_peer, c->qbuf[cur], st.send[i].bytes, 0};
            for (int i = 0; i < st.n_recv; i++)
                reqs[nr++] = (rs_xfer_req_t){RS_XFER_RECV, st.recv_peer, c->qbuf[1 - cur], st.recv[i].bytes, 0};
            if (nr > 0 && c->tops->post(c->ts, nr, reqs, &e) < 0)
                return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(p->pass), (long long)k, e.msg);
            if (st.has_compute && (c->cops->q_step(c->cs, &st, c->qbuf[cur], c->kv[0], c->part[st.q_owner], &e) < 0 ||
                                   c->cops->wait(c->cs, &cs0, &cs1, &e) < 0))
                return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(p->pass), (long long)k, e.msg);
            if (nr > 0 && c->tops->wait(c->ts, c->o->timeout_s, times, &e) < 0)
                return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(p->pass), (long long)k, e.msg);
            if (st.n_recv) cur = 1 - cur;
        }
        if (k == n_steps - 1) { /* the rank's partials are home: merge them */
            c->part[n + c->rank] = c->part[c->rank];
            if (c->cops->q_merge(c->cs, (int)n, c->part + n, &e) < 0 || c->cops->wait(c->cs, NULL, NULL, &e) < 0)
                return rs_errc(err, e.code, "rank %lld, merging the partials: %s", (long long)c->rank, e.msg);
            c->part[n + c->rank] = NULL;
        }
        if (slots) record_slots(slots + k * KINDS, &st, reqs, times, nr, t0, cs0, cs1, t_step0, rs_now_s());
    }
    *fail_step = -1;
    return 0;
}

static int run_pass(ctx_t *c, const rs_schedule_t *s, slot_t *slots, double t0, bool *faulted, int64_t *fail_step,
                    rs_err_t *err) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const bool fwd = p->pass == RS_PASS_FORWARD;
    const int64_t n_steps = rs_schedule_n_steps(s);
    rs_err_t e = {0};
    if ((fwd ? c->cops->fwd_begin(c->cs, &e) : c->cops->bwd_begin(c->cs, &e)) < 0)
        return rs_errc(err, e.code, "rank %lld: %s", (long long)c->rank, e.msg);
    int cur = 0;
    void *acc = c->dkv[0], *dsend = c->dkv[1], *din = c->dkv[2];
    c->dkv_final = NULL;
    for (int64_t k = 0; k < n_steps; k++) {
        rs_step_t st;
        rs_schedule_step(s, c->rank, k, &st);
        *fail_step = k;
        if (c->o->fault_rank == c->rank && c->o->fault_step == k && p->pass == c->measured) {
            *faulted = true;
            return rs_errf(err, "rank %lld stopped at %s step %lld (fault injection)", (long long)c->rank,
                           rs_pass_name(p->pass), (long long)k);
        }
        if (c->o->stall_rank == c->rank && c->o->stall_step == k && p->pass == c->measured) {
            if (st.n_send + st.n_recv == 0)
                return rs_errf(err, "rank %lld: --stall at %s step %lld: that step moves nothing (N = %lld)", (long long)c->rank,
                               rs_pass_name(p->pass), (long long)k, (long long)c->n);
            if (!c->tops->inject_stall)
                return rs_errf(err, "rank %lld: the %s transport cannot inject a stall", (long long)c->rank, c->tops->name);
            if (c->tops->inject_stall(c->ts, &e) < 0)
                return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(p->pass), (long long)k, e.msg);
        }
        rs_xfer_req_t reqs[RS_XFER_MAX_REQS];
        int nr = 0, kv_recv = 0;
        for (int i = 0; i < st.n_send; i++)
            reqs[nr++] = (rs_xfer_req_t){RS_XFER_SEND, st.send_peer, st.send[i].kind == RS_XFER_KV ? c->kv[cur] : dsend,
                                         st.send[i].bytes, st.send[i].kind == RS_XFER_KV ? 0 : 1};
        for (int i = 0; i < st.n_recv; i++) {
            bool kvk = st.recv[i].kind == RS_XFER_KV;
            kv_recv |= kvk;
            reqs[nr++] = (rs_xfer_req_t){RS_XFER_RECV, st.recv_peer, kvk ? c->kv[1 - cur] : din, st.recv[i].bytes,
                                         kvk ? 0 : 1};
        }
        const double t_step0 = rs_now_s();
        if (nr > 0 && c->tops->post(c->ts, nr, reqs, &e) < 0)
            return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(p->pass), (long long)k, e.msg);
        double cs0 = 0, cs1 = 0;
        if (st.has_compute) {
            int rc = fwd ? c->cops->fwd_step(c->cs, &st, c->kv[cur], &e)
                         : (c->cops->grad_zero(c->cs, acc, &e) < 0 ? -1 : c->cops->bwd_step(c->cs, &st, c->kv[cur], acc, &e));
            if (rc < 0 || c->cops->wait(c->cs, &cs0, &cs1, &e) < 0)
                return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(p->pass), (long long)k, e.msg);
        }
        rs_xfer_time_t times[RS_XFER_MAX_REQS];
        if (nr > 0 && c->tops->wait(c->ts, c->o->timeout_s, times, &e) < 0)
            return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(p->pass), (long long)k, e.msg);
        const double t_step1 = rs_now_s(); /* the step event: compute and transfers; the merges below follow it */
        bool dkv_in = false;
        for (int i = 0; i < st.n_recv; i++) dkv_in |= st.recv[i].kind == RS_XFER_DKV;
        const bool tail = !fwd && k == n_steps - 1; /* brings every dK,dV home; nothing to add */
        if (!fwd && !tail && (dkv_in || !st.has_compute)) {
            /* acc += the incoming partial (a step without compute just forwards it) */
            if ((!st.has_compute && c->cops->grad_zero(c->cs, acc, &e) < 0) ||
                (dkv_in && c->cops->grad_add(c->cs, acc, din, &e) < 0) || c->cops->wait(c->cs, NULL, NULL, &e) < 0)
                return rs_errc(err, e.code, "rank %lld, backward step %lld: %s", (long long)c->rank, (long long)k, e.msg);
        }
        if (slots) record_slots(slots + k * KINDS, &st, reqs, times, nr, t0, cs0, cs1, t_step0, t_step1);
        if (kv_recv) cur = 1 - cur;
        if (!fwd) {
            if (tail) {                       /* the incoming partial is complete */
                c->dkv_final = dkv_in ? din : dsend;
            } else { /* acc becomes the partial sent at the next step; the next acc is din, whose
                        partial was just added (this rank wrote it: its cache lines are here), and the
                        buffer just sent receives next. Clearing the buffer just sent instead (the
                        peer had read it) took 4.5 us for 16 KiB (B = 8) and 110-200 us for 1 MiB
                        (B = 512) on a 2-core EPYC, 10-30x a clear of memory this rank owns. */
                void *t = dsend;
                dsend = acc, acc = din, din = t;
            }
        }
    }
    *fail_step = -1;
    if ((fwd ? c->cops->fwd_end(c->cs, &e) : c->cops->bwd_end(c->cs, &e)) < 0 || c->cops->wait(c->cs, NULL, NULL, &e) < 0)
        return rs_errc(err, e.code, "rank %lld: %s", (long long)c->rank, e.msg);
    /* the pass epilogue (fwd_end: O / l, lse) ends the last step's event, as the model puts it */
    if (slots && n_steps > 0) slots[(n_steps - 1) * KINDS + RS_EV_STEP].end_s = rs_now_s() - t0;
    if (!fwd && !c->dkv_final) c->dkv_final = dsend;
    return 0;
}

/* ---------------------------------------------------------------------------------------------------
 * Medians and results
 * ------------------------------------------------------------------------------------------------- */
/* The result's medians: 0 when a kind has no event (a ring of one rank sends nothing). */
static double median_or_0(double *v, size_t n) { return n ? rs_median(v, n) : 0; }


/* Events of this rank: per (step, kind) the median start and median duration over reps. Invalid
 * slots get rank -1. */
static void median_events(const slot_t *rec, int reps, int64_t n_steps, int64_t rank, rs_pass_t pass, rs_event_t *ev) {
    double *a = malloc(sizeof(double) * (size_t)reps), *b = malloc(sizeof(double) * (size_t)reps);
    for (int64_t k = 0; k < n_steps; k++)
        for (int kind = 0; kind < KINDS; kind++) {
            rs_event_t *e = &ev[k * KINDS + kind];
            const slot_t *s0 = &rec[k * KINDS + kind];
            memset(e, 0, sizeof *e);
            e->rank = -1;
            if (!s0->valid || !a || !b) continue;
            for (int r = 0; r < reps; r++) {
                const slot_t *s = &rec[((size_t)r * (size_t)n_steps + (size_t)k) * KINDS + (size_t)kind];
                a[r] = s->start_s, b[r] = s->end_s - s->start_s;
            }
            double st = rs_median(a, (size_t)reps), du = rs_median(b, (size_t)reps);
            *e = (rs_event_t){(int32_t)rank, (int32_t)k, pass, (rs_event_kind_t)kind, s0->peer, st, st + du, s0->flops, s0->bytes};
        }
    free(a), free(b);
}

/* ---------------------------------------------------------------------------------------------------
 * Check and --save-io on rank 0
 * ------------------------------------------------------------------------------------------------- */
/* Scatter every rank's local BHSD rows of its new tokens (gathered rank-major, q_seqs sequences each;
 * decode: local sequence i of rank r is sequence r + i N) into a global BHSD array of the S new tokens. */
static void to_global(const rs_schedule_t *s, int64_t heads, int64_t width, const float *gathered, double *gd, float *gf) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const int64_t N = p->n_ranks, B = rs_problem_block(p), S = p->seq_tokens, P = p->cached_tokens;
    const int64_t qs = rs_problem_buf_seqs(p);
    for (int64_t r = 0; r < N; r++) {
        rs_segment_t segs[RS_MAX_SEGMENTS];
        int ns = rs_schedule_rank_segments(s, r, segs);
        const float *loc = gathered + (size_t)r * (size_t)(qs * heads * B * width);
        for (int64_t i = 0; i < qs; i++) {
            const int64_t b = p->decode ? r + i * N : i;
            if (b >= p->batch) continue;
            for (int64_t h = 0; h < heads; h++) {
                const int64_t bh = i * heads + h, gbh = b * heads + h;
                int64_t row = 0;
                for (int sg = 0; sg < ns; sg++)
                    for (int64_t j = 0; j < segs[sg].count; j++, row++) {
                        int64_t tok = segs[sg].first + j * segs[sg].stride - P;
                        for (int64_t x = 0; x < width; x++) {
                            float v = loc[(bh * B + row) * width + x];
                            size_t gi = (size_t)((gbh * S + tok) * width + x);
                            if (gd) gd[gi] = v;
                            if (gf) gf[gi] = v;
                        }
                    }
            }
        }
    }
}

static double rel_err(const double *x, const double *ref, size_t n, bool *finite, double *ref_max, size_t *worst) {
    double num = 0, den = 0;
    *worst = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(x[i] - ref[i]);
        if (!isfinite(x[i])) {
            if (*finite) *worst = i;
            *finite = false;
        }
        if (d > num && *finite) num = d, *worst = i;
        den = fmax(den, fabs(ref[i]));
    }
    *ref_max = den;
    return den > 0 ? num / den : num;
}

typedef struct {
    rs_tensor_t t;         /* which output */
    int64_t heads, width;  /* its heads and row width */
    float *gathered;       /* rank-major local arrays (rank 0) */
} out_t;

static int check_and_save(const rs_schedule_t *s, const rs_exec_opts_t *o, out_t *outs, int n_outs,
                          rs_exec_result_t *res, rs_err_t *err) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const bool bwd = p->pass == RS_PASS_BACKWARD;
    const int64_t S = p->seq_tokens, P = p->cached_tokens, d = p->head_dim;
    const size_t nq = (size_t)(p->batch * p->q_heads * S * d), nkv = (size_t)(p->batch * p->kv_heads * (S + P) * d);
    const size_t ns = (size_t)(p->batch * p->q_heads * S);
    int rc = -1;
    double *in[4] = {0}, *ref[RS_TENSOR_COUNT] = {0}, *got = NULL;
    float *gf = NULL;
    const rs_tensor_t ins[4] = {RS_TENSOR_Q, RS_TENSOR_K, RS_TENSOR_V, RS_TENSOR_DO};
    size_t maxn = nq > nkv ? nq : nkv;
    got = malloc(sizeof(double) * maxn);
    gf = malloc(sizeof(float) * maxn);
    if (!got || !gf) { rs_errf(err, "check: out of memory"); goto done; }
    /* inputs, global order, regenerated from the seed: Q-like rows are the new tokens (positions
     * P..P+S-1), K and V every position */
    for (int i = 0; i < (bwd ? 4 : 3); i++) {
        const bool kv = ins[i] == RS_TENSOR_K || ins[i] == RS_TENSOR_V;
        size_t n = kv ? nkv : nq;
        int64_t heads = kv ? p->kv_heads : p->q_heads, rows = kv ? S + P : S, first = kv ? 0 : P;
        in[i] = malloc(sizeof(double) * n);
        if (!in[i]) { rs_errf(err, "check: out of memory"); goto done; }
        const rs_exec_input_t src = {o->seed, ins[i], p, ins[i] == RS_TENSOR_DO ? 1.0 : o->input_scale};
        size_t j = 0;
        for (int64_t b = 0; b < p->batch; b++)
            for (int64_t h = 0; h < heads; h++)
                for (int64_t t = 0; t < rows; t++)
                    for (int64_t x = 0; x < d; x++, j++) {
                        float v = rs_exec_input(&src, b, h, first + t, x);
                        in[i][j] = v;
                        gf[j] = v;
                    }
        if (o->save_io_dir) {
            char path[1200];
            snprintf(path, sizeof path, "%s/%s.npy", o->save_io_dir, rs_tensor_name(ins[i]));
            int64_t shape[4] = {p->batch, heads, rows, d};
            if (rs_npy_write_f32(path, gf, 4, shape, err) < 0) goto done;
        }
    }
    if (o->check) {
        ref[RS_TENSOR_O] = malloc(sizeof(double) * nq);
        ref[RS_TENSOR_LSE] = malloc(sizeof(double) * ns);
        if (bwd) {
            ref[RS_TENSOR_DQ] = malloc(sizeof(double) * nq);
            ref[RS_TENSOR_DK] = malloc(sizeof(double) * nkv);
            ref[RS_TENSOR_DV] = malloc(sizeof(double) * nkv);
        }
        if (!ref[RS_TENSOR_O] || !ref[RS_TENSOR_LSE] || (bwd && (!ref[RS_TENSOR_DQ] || !ref[RS_TENSOR_DK] || !ref[RS_TENSOR_DV]))) {
            rs_errf(err, "check: out of memory");
            goto done;
        }
        if (rs_exec_reference(p, in[0], in[1], in[2], bwd ? in[3] : NULL, ref[RS_TENSOR_O], ref[RS_TENSOR_LSE],
                              ref[RS_TENSOR_DQ], ref[RS_TENSOR_DK], ref[RS_TENSOR_DV], err) < 0)
            goto done;
    }
    for (int i = 0; i < n_outs; i++) {
        out_t *ot = &outs[i];
        size_t n = (size_t)(p->batch * ot->heads * S * ot->width);
        to_global(s, ot->heads, ot->width, ot->gathered, got, gf);
        bool fin = true;
        if (o->check && ref[ot->t]) {
            size_t w;
            res->err[ot->t] = rel_err(got, ref[ot->t], n, &fin, &res->ref_max[ot->t], &w);
            const int64_t W = ot->width, Sx = p->seq_tokens;
            res->worst[ot->t][3] = (int64_t)w % W;
            res->worst[ot->t][2] = (int64_t)w / W % Sx + p->cached_tokens; /* the token's position */
            res->worst[ot->t][1] = (int64_t)w / W / Sx % ot->heads;
            res->worst[ot->t][0] = (int64_t)w / W / Sx / ot->heads;
            if (!(res->err[ot->t] <= o->check_tol)) res->check_ok = false;
        } else {
            for (size_t j = 0; j < n; j++) fin &= isfinite(got[j]) != 0;
        }
        if (!fin) res->finite = false, res->check_ok = false;
        if (o->save_io_dir && ot->t != RS_TENSOR_LSE) {
            char path[1200];
            snprintf(path, sizeof path, "%s/%s.npy", o->save_io_dir, rs_tensor_name(ot->t));
            int64_t shape[4] = {p->batch, ot->heads, S, ot->width};
            if (rs_npy_write_f32(path, gf, 4, shape, err) < 0) goto done;
        }
    }
    rc = 0;
done:
    for (int i = 0; i < 4; i++) free(in[i]);
    for (int i = 0; i < RS_TENSOR_COUNT; i++) free(ref[i]);
    free(got), free(gf);
    return rc;
}

/* Root: the medians of the gathered events (all_ev, total slots, unused ones have rank < 0) into
 * res, the events and the header into trace. Returns 0 or -1 with err. */
static int summarize_events(const rs_problem_t *p, const rs_compute_ops_t *cops, const rs_exec_opts_t *opts,
                            const rs_event_t *all_ev, size_t total, rs_trace_t *trace, rs_exec_result_t *res, rs_err_t *err) {
    size_t nc = 0, nm = 0, nst = 0;
    double *tc = malloc(sizeof(double) * total), *tm = malloc(sizeof(double) * total), *tt = malloc(sizeof(double) * total);
    int rc = tc && tm && tt ? 0 : rs_errf(err, "rank 0: out of memory");
    for (size_t i = 0; i < total && rc == 0; i++) {
        const rs_event_t *x = &all_ev[i];
        if (x->rank < 0) continue;
        if (x->kind == RS_EV_COMPUTE) tc[nc++] = x->end_s - x->start_s;
        if (x->kind == RS_EV_RECV) tm[nm++] = x->end_s - x->start_s;
        if (x->kind == RS_EV_STEP) {
            tt[nst++] = x->end_s - x->start_s;
            res->makespan_s = fmax(res->makespan_s, x->end_s);
        }
        if (trace && rs_trace_add(trace, x) < 0) rc = rs_errf(err, "rank 0: out of memory for the trace");
    }
    if (rc == 0)
        res->t_comp_median_s = median_or_0(tc, nc), res->t_comm_median_s = median_or_0(tm, nm), res->t_step_median_s = median_or_0(tt, nst);
    free(tc), free(tm), free(tt);
    if (rc == 0 && trace) {
        struct utsname u;
        rs_trace_meta_problem(trace, p);
        rs_trace_set_meta(trace, "compute", "%s", res->compute_desc);
        rs_trace_set_meta(trace, "transport", "%s", res->transport_desc);
        rs_trace_set_meta(trace, "dtype", "%s", cops->dtype_name);
        rs_trace_set_meta(trace, "reps", "%d", opts->reps);
        rs_trace_set_meta(trace, "warmup", "%d", opts->warmup);
        rs_trace_set_meta(trace, "seed", "%" PRIu64, opts->seed);
        rs_trace_set_meta(trace, "input_scale", "%g", opts->input_scale);
        rs_trace_set_meta(trace, "timing", "per-event median over reps; times from each rank's pass start");
        if (uname(&u) == 0) rs_trace_set_meta(trace, "host", "%s %s %s", u.nodename, u.sysname, u.machine);
    }
    return rc;
}

/* Rank 0 after a failed check: which tensors, by how much, where. */
static void check_message(const rs_exec_opts_t *opts, const out_t *outs, int n_outs, const rs_exec_result_t *res,
                          rs_err_t *err) {
    char buf[512];
    int nb = 0;
    for (int i = 0; i < n_outs; i++) {
        const rs_tensor_t t = outs[i].t;
        if (res->err[t] < 0 || nb >= (int)sizeof buf - 1) continue;
        nb += snprintf(buf + nb, sizeof buf - (size_t)nb, "%s%s %.3g", nb ? ", " : "", rs_tensor_name(t), res->err[t]);
        if (nb < (int)sizeof buf - 1 && !(res->err[t] <= opts->check_tol))
            nb += snprintf(buf + nb, sizeof buf - (size_t)nb, " at (batch %lld, head %lld, token %lld, dim %lld)",
                           (long long)res->worst[t][0], (long long)res->worst[t][1], (long long)res->worst[t][2],
                           (long long)res->worst[t][3]);
    }
    rs_errf(err, "check failed: max|x - ref| / max|ref| = %s (tolerance %.3g)%s", nb ? buf : "?", opts->check_tol,
            res->finite ? "" : "; outputs hold inf or NaN");
}

/* --check / --save-io: every rank's outputs gathered on rank 0 (into outs[0..*n_outs), which the
 * caller frees), checked and saved there. Returns 0 (a failed check: res->check_ok false, err says
 * why) or -1 with err. */
static int gather_outputs(const ctx_t *c, const rs_schedule_t *s, out_t *outs, int *n_outs, rs_exec_result_t *res,
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
        out_t cur = {which[i], which[i] == RS_TENSOR_DK || which[i] == RS_TENSOR_DV ? p->kv_heads : p->q_heads,
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
    if (rc == 0 && c->rank == 0 && check_and_save(s, opts, outs, *n_outs, res, err) < 0) rc = -1;
    if (rc == 0 && c->rank == 0 && !res->check_ok) check_message(opts, outs, *n_outs, res, err);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------
 * rs_exec_run
 * ------------------------------------------------------------------------------------------------- */
/* pass-q's buffers: the Q double buffer, a partial per owner and one per other rank's return. */
static int alloc_q_buffers(ctx_t *c, const rs_problem_t *p, rs_err_t *err) {
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

int rs_exec_run(const rs_schedule_t *s, const rs_compute_ops_t *cops, const rs_transport_ops_t *tops,
                void *tstate, const rs_exec_opts_t *opts, int local_rank, rs_trace_t *trace,
                rs_exec_result_t *res, rs_err_t *err) {
    const rs_problem_t *p = rs_schedule_problem(s);
    memset(res, 0, sizeof *res);
    for (int i = 0; i < RS_TENSOR_COUNT; i++) res->err[i] = -1;
    res->check_ok = true, res->finite = true, res->fail_step = -1;
    ctx_t c = {.cops = cops, .tops = tops, .ts = tstate, .o = opts, .measured = p->pass};
    c.rank = tops->rank(tstate), c.n = tops->size(tstate);
    /* loopback: this state plays its rank alone; gather and the trace cover that rank only */
    const bool alone = tops->loopback && tops->loopback(tstate);
    const bool root = alone || c.rank == 0;
    const int64_t n_here = alone ? 1 : c.n;
    if (alone && (opts->check || opts->save_io_dir))
        return rs_errf(err, "--check and --save-io need the real ring: a loopback rank computes on its own blocks");
    if (c.n != p->n_ranks)
        return rs_errf(err, "the transport has %lld ranks but the problem asks for N = %lld", (long long)c.n, (long long)p->n_ranks);
    if (cops->act_bytes != p->act_bytes)
        return rs_errf(err, "compute backend %s works in %s (%lld bytes) but the problem has act_bytes %lld",
                       cops->name, cops->dtype_name, (long long)cops->act_bytes, (long long)p->act_bytes);
    if (opts->reps < 1 || opts->warmup < 0) return rs_errf(err, "reps must be >= 1 and warmup >= 0");
    const bool bwd = p->pass == RS_PASS_BACKWARD;
    const int64_t B = rs_problem_block(p), n_steps = rs_schedule_n_steps(s);
    res->n_steps = n_steps;
    rs_exec_rank_t ri = {.problem = *p, .rank = c.rank, .block_tokens = B, .softmax_scale = 1.0 / sqrt((double)p->head_dim),
                         .local_rank = local_rank, .progress = tops->progress, .progress_arg = tstate};
    ri.n_segs = rs_schedule_rank_segments(s, c.rank, ri.segs);
    ri.n_kv_segs = rs_schedule_rank_kv_segments(s, c.rank, ri.kv_segs);
    ri.kv_rows = B + rs_problem_cached_block(p);
    ri.q_seqs = rs_problem_buf_seqs(p);
    const bool passes_q = rs_problem_passes_q(p);
    if (passes_q && (!cops->q_step || !cops->q_merge))
        return rs_errf(err, "compute backend %s: cannot run --ring pass-q or decode (no partial-output kernels)", cops->name);
    if (passes_q && alone)
        return rs_errf(err, "--loopback: --ring pass-q and decode return their partials in an all-to-all, which needs "
                            "the real ring");

    int rc = -1;
    rs_schedule_t *fs = NULL;
    float *q = NULL, *k = NULL, *v = NULL, *dout = NULL;
    slot_t *rec = NULL;
    rs_event_t *ev = NULL, *all_ev = NULL;
    out_t outs[5] = {{0}};
    int n_outs = 0;
    rs_err_t e = {0};
    if (cops->create(&ri, &c.cs, &e) < 0) {
        rs_errc(err, e.code, "rank %lld: %s", (long long)c.rank, e.msg);
        return -1;
    }
    const size_t nq = (size_t)(ri.q_seqs * p->q_heads * B * p->head_dim),
                 nkv = (size_t)(p->batch * p->kv_heads * ri.kv_rows * p->head_dim);
    q = malloc(sizeof(float) * nq), dout = malloc(sizeof(float) * nq);
    k = malloc(sizeof(float) * nkv), v = malloc(sizeof(float) * nkv);
    rec = calloc((size_t)opts->reps * (size_t)n_steps * KINDS, sizeof *rec);
    ev = calloc((size_t)n_steps * KINDS, sizeof *ev);
    if (!q || !dout || !k || !v || !rec || !ev) {
        rs_errf(err, "rank %lld: out of memory", (long long)c.rank);
        goto fail;
    }
    rs_exec_fill_rank(opts->seed, RS_TENSOR_Q, s, c.rank, opts->input_scale, q);
    rs_exec_fill_rank(opts->seed, RS_TENSOR_K, s, c.rank, opts->input_scale, k);
    rs_exec_fill_rank(opts->seed, RS_TENSOR_V, s, c.rank, opts->input_scale, v);
    rs_exec_fill_rank(opts->seed, RS_TENSOR_DO, s, c.rank, 1.0, dout);
    c.k_host = k, c.v_host = v, c.q_host = q;
    if (passes_q && alloc_q_buffers(&c, p, err) < 0) goto fail;
    if ((!passes_q && cops->upload(c.cs, RS_TENSOR_Q, q, NULL, &e) < 0) ||
        (bwd && cops->upload(c.cs, RS_TENSOR_DO, dout, NULL, &e) < 0)) {
        rs_errc(err, e.code, "rank %lld: %s", (long long)c.rank, e.msg);
        goto fail;
    }
    for (int i = 0; i < (passes_q ? 1 : 2); i++)
        if (cops->buf_alloc(c.cs, rs_problem_kv_bytes(p), &c.kv[i], &e) < 0) {
            rs_errc(err, e.code, "rank %lld: %s", (long long)c.rank, e.msg);
            goto fail;
        }
    if (bwd) {
        for (int i = 0; i < 3; i++)
            if (cops->buf_alloc(c.cs, rs_problem_dkv_bytes(p), &c.dkv[i], &e) < 0) {
                rs_errc(err, e.code, "rank %lld: %s", (long long)c.rank, e.msg);
                goto fail;
            }
        rs_problem_t fp = *p;
        fp.pass = RS_PASS_FORWARD;
        if (!(fs = rs_schedule_create(&fp, err))) goto fail;
    }

    /* repetitions: warm-up, then measured */
    for (int r = 0; r < opts->warmup + opts->reps; r++) {
        TRY(stage_inputs(&c, passes_q && !bwd, false, err));
        if (tops->barrier(tstate, opts->timeout_s, &e) < 0) {
            rs_errc(err, e.code, "rank %lld, before repetition %d: %s", (long long)c.rank, r, e.msg);
            goto fail;
        }
        if (bwd) TRY(run_pass(&c, fs, NULL, 0, &res->faulted, &res->fail_step, err));
        if (bwd) TRY(stage_inputs(&c, passes_q, true, err)); /* the forward's ring moved K,V */
        if (bwd && tops->barrier(tstate, opts->timeout_s, &e) < 0) {
            rs_errc(err, e.code, "rank %lld, before the backward of repetition %d: %s", (long long)c.rank, r, e.msg);
            goto fail;
        }
        const double t0 = rs_now_s();
        slot_t *slots = r >= opts->warmup ? rec + (size_t)(r - opts->warmup) * (size_t)n_steps * KINDS : NULL;
        TRY((passes_q ? run_pass_q : run_pass)(&c, s, slots, t0, &res->faulted, &res->fail_step, err));
    }
    median_events(rec, opts->reps, n_steps, c.rank, p->pass, ev);

    /* gather events */
    const size_t ev_bytes = sizeof(rs_event_t) * (size_t)n_steps * KINDS;
    if (root && !(all_ev = malloc(ev_bytes * (size_t)n_here))) {
        rs_errf(err, "rank %lld: out of memory for %lld events", (long long)c.rank, (long long)(n_here * n_steps * KINDS));
        goto fail;
    }
    if (tops->gather(tstate, ev, ev_bytes, all_ev, opts->timeout_s, &e) < 0) {
        rs_errc(err, e.code, "rank %lld, gathering events: %s", (long long)c.rank, e.msg);
        goto fail;
    }
    snprintf(res->compute_desc, sizeof res->compute_desc, "%s", cops->describe(c.cs));
    snprintf(res->transport_desc, sizeof res->transport_desc, "%s", tops->describe(tstate));
    if (root && summarize_events(p, cops, opts, all_ev, (size_t)n_here * (size_t)n_steps * KINDS, trace, res, err) < 0)
        goto fail;

    /* gather outputs for --check / --save-io */
    if ((opts->check || opts->save_io_dir) && gather_outputs(&c, s, outs, &n_outs, res, err) < 0) goto fail;
    rc = 0;
fail:
    for (int i = 0; i < n_outs; i++) free(outs[i].gathered);
    if (c.cs) {
        for (int i = 0; i < 2; i++) {
            if (c.kv[i]) cops->buf_free(c.cs, c.kv[i]);
            if (c.qbuf[i]) cops->buf_free(c.cs, c.qbuf[i]);
        }
        for (int64_t i = 0; c.part && i < 2 * c.n; i++)
            if (c.part[i]) cops->buf_free(c.cs, c.part[i]);
        for (int i = 0; i < 3; i++)
            if (c.dkv[i]) cops->buf_free(c.cs, c.dkv[i]);
        cops->destroy(c.cs);
    }
    rs_schedule_free(fs);
    free(c.part);
    free(q), free(k), free(v), free(dout), free(rec), free(ev), free(all_ev);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------
 * N ranks as threads
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    const rs_schedule_t *s;          /* the schedule (shared, read-only) */
    const rs_compute_ops_t *cops;    /* compute backend */
    const rs_transport_ops_t *tops;  /* transport */
    void *ts;                        /* this thread's transport state */
    const rs_exec_opts_t *o;         /* options (shared) */
    int local_rank;                  /* = rank (one host) */
    rs_trace_t *trace;               /* rank 0 only */
    rs_exec_result_t res;            /* this rank's result */
    rs_err_t err;                    /* this rank's error */
    int rc;                          /* rs_exec_run's return */
    double t_fail_s;                 /* when it failed (to report the first failure) */
} thread_arg_t;

static void *thread_main(void *arg) {
    thread_arg_t *a = arg;
    a->rc = rs_exec_run(a->s, a->cops, a->tops, a->ts, a->o, a->local_rank, a->trace, &a->res, &a->err);
    if (a->rc < 0) {
        a->t_fail_s = rs_now_s();
        /* a timeout does not stop the others: each waiting rank times out by itself and says what
         * it waited for, and the report picks the earliest step; other errors stop everyone */
        if (!a->res.faulted && a->err.code != RS_ERR_TIMEOUT) a->tops->abort(a->ts, RS_EXIT_FAIL);
    }
    return NULL;
}

int rs_exec_run_threads(const rs_schedule_t *s, const rs_compute_ops_t *cops, const rs_transport_ops_t *tops,
                        void *const *tstates, const rs_exec_opts_t *opts, rs_trace_t *trace,
                        rs_exec_result_t *res, rs_err_t *err) {
    const int64_t n = rs_schedule_problem(s)->n_ranks;
    rs_local_world_t *w = NULL;
    if (!tops) {
        if (!(w = rs_local_world_create(n, err))) return -1;
        tops = &rs_local_transport_ops;
    }
    thread_arg_t *args = calloc((size_t)n, sizeof *args);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    if (!args || !th) {
        free(args), free(th), rs_local_world_free(w);
        return rs_errf(err, "out of memory for %lld threads", (long long)n);
    }
    int64_t started = 0;
    for (int64_t r = 0; r < n; r++) {
        args[r] = (thread_arg_t){.s = s, .cops = cops, .tops = tops, .ts = w ? rs_local_world_rank(w, r) : tstates[r],
                                 .o = opts, .local_rank = (int)r, .trace = r == 0 ? trace : NULL};
        if (pthread_create(&th[r], NULL, thread_main, &args[r]) != 0) break;
        started++;
    }
    int rc = 0;
    if (started < n) {
        tops->abort(args[0].ts, RS_EXIT_FAIL);
        rc = rs_errf(err, "could not start thread %lld of %lld", (long long)started, (long long)n);
    }
    for (int64_t r = 0; r < started; r++) pthread_join(th[r], NULL);
    if (rc == 0) {
        /* report the failure closest to the cause: real errors before fault-injected stops and
         * "aborted by another rank"; then the earliest step (a timeout at a later step is a rank
         * blocked behind the one that stopped); then the earliest in time */
        int64_t best = -1;
        for (int64_t r = 0; r < n; r++) {
            if (args[r].rc == 0) continue;
            bool weak = args[r].res.faulted || args[r].err.code == RS_ERR_ABORTED;
            if (best < 0) { best = r; continue; }
            bool best_weak = args[best].res.faulted || args[best].err.code == RS_ERR_ABORTED;
            uint64_t sr = (uint64_t)args[r].res.fail_step, sb = (uint64_t)args[best].res.fail_step; /* -1 last */
            if (best_weak != weak) { if (!weak) best = r; continue; }
            if (sr != sb) { if (sr < sb) best = r; continue; }
            if (args[r].t_fail_s < args[best].t_fail_s) best = r;
        }
        if (best >= 0) rc = rs_errc(err, args[best].err.code, "%s", args[best].err.msg);
        else if (!args[0].res.check_ok) rc = 0;
    }
    *res = args[0].res;
    if (rc == 0 && !res->check_ok) rs_errc(err, args[0].err.code, "%s", args[0].err.msg);
    free(args), free(th);
    rs_local_world_free(w);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------
 * Loopback: the ring rank by rank on one device
 * ------------------------------------------------------------------------------------------------- */
int rs_exec_run_loopback(const rs_schedule_t *s, const rs_compute_ops_t *cops, const rs_transport_ops_t *tops,
                         rs_loopback_make_fn make, void *make_arg, const int64_t *ranks, int n_ranks_run,
                         const rs_exec_opts_t *opts, rs_trace_t *trace, rs_exec_result_t *res, rs_err_t *err) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const int64_t n = p->n_ranks;
    const int count = ranks ? n_ranks_run : (int)n;
    if (count < 1) return rs_errf(err, "loopback: no rank to run");
    if (opts->check || opts->save_io_dir)
        return rs_errf(err, "--check and --save-io need the real ring: a loopback rank computes on its own blocks");
    rs_trace_t *all = trace ? trace : rs_trace_create("exec");
    if (!all) return rs_errf(err, "loopback: out of memory");
    const size_t first = rs_trace_count(all);
    double makespan = 0;
    int rc = 0;
    memset(res, 0, sizeof *res);
    for (int i = 0; i < count && rc == 0; i++) {
        const int64_t r = ranks ? ranks[i] : i;
        if (r < 0 || r >= n) {
            rc = rs_errf(err, "loopback: rank %lld of N = %lld", (long long)r, (long long)n);
            break;
        }
        void *ts = make(make_arg, r, err);
        if (!ts) {
            rc = -1;
            break;
        }
        rs_exec_result_t one;
        rs_err_t e = {0};
        if (!tops->loopback || !tops->loopback(ts)) {
            rc = rs_errf(err, "loopback: the %s state made for rank %lld is not a loopback", tops->name, (long long)r);
        } else if (rs_exec_run(s, cops, tops, ts, opts, 0, all, &one, &e) < 0) {
            rc = rs_errc(err, e.code, "%s", e.msg);
            *res = one;
        } else {
            makespan = fmax(makespan, one.makespan_s);
            *res = one; /* descriptions, n_steps, finite */
        }
        tops->destroy(ts);
    }
    if (rc == 0) {
        /* medians over every run's events */
        const size_t total = rs_trace_count(all) - first;
        const rs_event_t *ev = rs_trace_events(all) + first;
        double *v = malloc(sizeof(double) * (total ? total : 1));
        if (!v) {
            rc = rs_errf(err, "loopback: out of memory");
        } else {
            const rs_event_kind_t kinds[3] = {RS_EV_COMPUTE, RS_EV_RECV, RS_EV_STEP};
            double *dst[3] = {&res->t_comp_median_s, &res->t_comm_median_s, &res->t_step_median_s};
            for (int kk = 0; kk < 3; kk++) {
                size_t m = 0;
                for (size_t i = 0; i < total; i++)
                    if (ev[i].kind == kinds[kk]) v[m++] = ev[i].end_s - ev[i].start_s;
                *dst[kk] = median_or_0(v, m);
            }
            free(v);
            res->makespan_s = makespan;
        }
        if (trace) rs_trace_set_meta(trace, "loopback", "each rank alone on one device, its transfers to itself");
    }
    if (!trace) rs_trace_free(all);
    return rc;
}
