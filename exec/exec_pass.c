/* exec_pass.c - the pass loops (exec_pass.h): staging a pass's inputs, the forward and backward
 * pass over the ring, the pass that circulates Q and its all-to-all, each step's events recorded. */
#include "exec_pass.h"

#include <math.h>
#include <string.h>

/* A step's posted transfers and when each was posted and completed. */
typedef struct {
    int n;                                   /* requests (0: the step moves nothing) */
    rs_xfer_req_t req[RS_XFER_MAX_REQS];
    rs_xfer_time_t time[RS_XFER_MAX_REQS];
} posted_t;

/* A step's clock readings: the repetition's origin, the compute's interval (0, 0 without compute),
 * the step's start and end. */
typedef struct {
    double origin, comp0, comp1, step0, step1;
} step_clock_t;

/* Record the step's events into its slots (send/recv: first post to last completion). */
static void record_slots(rs_exec_slot_t *sl, const rs_step_t *st, const posted_t *x, const step_clock_t *t) {
    const double t0 = t->origin;
    memset(sl, 0, sizeof(rs_exec_slot_t) * RS_EXEC_KINDS);
    if (st->has_compute) sl[RS_EV_COMPUTE] = (rs_exec_slot_t){t->comp0 - t0, t->comp1 - t0, true, -1, (double)st->flops_exec, 0};
    for (int dir = 0; dir < 2; dir++) {
        double a = INFINITY, b = -INFINITY;
        for (int i = 0; i < x->n; i++)
            if ((int)x->req[i].dir == dir) a = fmin(a, x->time[i].post_s), b = fmax(b, x->time[i].done_s);
        if (a <= b) {
            rs_event_kind_t kind = dir == RS_XFER_SEND ? RS_EV_SEND : RS_EV_RECV;
            sl[kind] = (rs_exec_slot_t){a - t0, b - t0, true, (int32_t)(dir == RS_XFER_SEND ? st->send_peer : st->recv_peer), 0,
                                        (double)(dir == RS_XFER_SEND ? st->send_bytes : st->recv_bytes)};
        }
    }
    sl[RS_EV_STEP] = (rs_exec_slot_t){t->step0 - t0, t->step1 - t0, true, -1, 0, 0};
}

/* pass-q's return: every partial to its owner in N - 1 pairwise rounds (round j: to p+j, from p-j).
 * x receives one send and one receive spanning the first post to the last completion. */
static int a2a_return(rs_exec_ctx_t *c, const rs_step_t *st, posted_t *x, rs_err_t *err) {
    const int64_t n = c->n, p = c->rank;
    rs_err_t e = {0};
    x->n = 2;
    x->time[0] = x->time[1] = (rs_xfer_time_t){INFINITY, -INFINITY};
    for (int64_t j = 1; j < n; j++) {
        const int64_t to = (p + j) % n, from = (p - j + n) % n;
        rs_xfer_time_t tt[2];
        x->req[0] = (rs_xfer_req_t){RS_XFER_SEND, to, c->part[to], st->a2a_peer_bytes, 2};
        x->req[1] = (rs_xfer_req_t){RS_XFER_RECV, from, c->part[n + from], st->a2a_peer_bytes, 2};
        if (c->tops->post(c->ts, 2, x->req, &e) < 0 || c->tops->wait(c->ts, c->o->timeout_s, tt, &e) < 0)
            return rs_errc(err, e.code, "rank %lld, all-to-all round %lld (to %lld, from %lld): %s", (long long)p, (long long)j,
                           (long long)to, (long long)from, e.msg);
        for (int i = 0; i < 2; i++)
            x->time[i].post_s = fmin(x->time[i].post_s, tt[i].post_s), x->time[i].done_s = fmax(x->time[i].done_s, tt[i].done_s);
    }
    return 0;
}

/* The ring overwrites the buffers a pass starts from, so every pass needs its inputs again. They are
 * staged before the barrier that starts a pass, outside the measured time: a pass starts with its
 * inputs resident, as in a training step (K,V are the projection's outputs) and as the model's step 0
 * does. */
int rs_exec_stage_inputs(rs_exec_ctx_t *c, bool pass_q, bool dkv, rs_err_t *err) {
    rs_err_t e = {0};
    if (c->cops->upload(c->cs, RS_TENSOR_K, c->k_host, c->kv[0], &e) < 0 ||
        c->cops->upload(c->cs, RS_TENSOR_V, c->v_host, c->kv[0], &e) < 0 ||
        (pass_q && c->cops->upload(c->cs, RS_TENSOR_Q, c->q_host, c->qbuf[0], &e) < 0))
        return rs_errc(err, e.code, "rank %lld: %s", (long long)c->rank, e.msg);
    /* the backward's dK,dV buffers start the pass cleared by this rank, as a step's gradient
       buffers do. Left as the pass before left them, the buffer that pass sent last (its peer read
       it) would be the one step 1 clears and accumulates into: clearing memory a peer has just read
       costs several times a clear of memory this rank owns, and it would delay step 1's compute and
       every poll in it (docs/exec.md). */
    for (int i = 0; dkv && i < 3; i++)
        if (c->cops->grad_zero(c->cs, c->dkv[i], &e) < 0 || c->cops->wait(c->cs, NULL, NULL, &e) < 0)
            return rs_errc(err, e.code, "rank %lld: %s", (long long)c->rank, e.msg);
    return 0;
}

/* A fault injected at step k of the measured pass (opts.fault_*): the rank stops there, on purpose. */
static int fault_at(const rs_exec_ctx_t *c, rs_pass_t pass, int64_t k, rs_exec_result_t *res, rs_err_t *err) {
    res->faulted = true;
    return rs_errf(err, "rank %lld stopped at %s step %lld (fault injection)", (long long)c->rank, rs_pass_name(pass),
                   (long long)k);
}

int rs_exec_pass_q(rs_exec_ctx_t *c, const rs_schedule_t *s, rs_exec_slot_t *slots, double t0, rs_exec_result_t *res,
                   rs_err_t *err) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const int64_t n_steps = rs_schedule_n_steps(s), n = c->n;
    rs_err_t e = {0};
    int cur = 0;
    for (int64_t k = 0; k < n_steps; k++) {
        rs_step_t st;
        rs_schedule_step(s, c->rank, k, &st);
        res->fail_step = k;
        if (c->o->fault_rank == c->rank && c->o->fault_step == k) return fault_at(c, p->pass, k, res, err);
        posted_t x;
        x.n = 0;
        step_clock_t tc = {.origin = t0, .step0 = rs_now_s()};
        if (st.a2a) {
            if (a2a_return(c, &st, &x, err) < 0) return -1;
        } else {
            for (int i = 0; i < st.n_send; i++)
                x.req[x.n++] = (rs_xfer_req_t){RS_XFER_SEND, st.send_peer, c->qbuf[cur], st.send[i].bytes, 0};
            for (int i = 0; i < st.n_recv; i++)
                x.req[x.n++] = (rs_xfer_req_t){RS_XFER_RECV, st.recv_peer, c->qbuf[1 - cur], st.recv[i].bytes, 0};
            if (x.n > 0 && c->tops->post(c->ts, x.n, x.req, &e) < 0)
                return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(p->pass), (long long)k, e.msg);
            if (st.has_compute && (c->cops->q_step(c->cs, &st, c->qbuf[cur], c->kv[0], c->part[st.q_owner], &e) < 0 ||
                                   c->cops->wait(c->cs, &tc.comp0, &tc.comp1, &e) < 0))
                return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(p->pass), (long long)k, e.msg);
            if (x.n > 0 && c->tops->wait(c->ts, c->o->timeout_s, x.time, &e) < 0)
                return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(p->pass), (long long)k, e.msg);
            if (st.n_recv) cur = 1 - cur;
        }
        if (k == n_steps - 1) { /* the rank's partials are home: merge them */
            c->part[n + c->rank] = c->part[c->rank];
            if (c->cops->q_merge(c->cs, (int)n, c->part + n, &e) < 0 || c->cops->wait(c->cs, NULL, NULL, &e) < 0)
                return rs_errc(err, e.code, "rank %lld, merging the partials: %s", (long long)c->rank, e.msg);
            c->part[n + c->rank] = NULL;
        }
        tc.step1 = rs_now_s();
        if (slots) record_slots(slots + k * RS_EXEC_KINDS, &st, &x, &tc);
    }
    res->fail_step = -1;
    return 0;
}

/* --stall at step k of the measured pass: the transport's next post stalls until its watchdog fires. */
static int stall_at(rs_exec_ctx_t *c, const rs_step_t *st, rs_pass_t pass, int64_t k, rs_err_t *err) {
    rs_err_t e = {0};
    if (st->n_send + st->n_recv == 0)
        return rs_errf(err, "rank %lld: --stall at %s step %lld: that step moves nothing (N = %lld)", (long long)c->rank,
                       rs_pass_name(pass), (long long)k, (long long)c->n);
    if (!c->tops->inject_stall)
        return rs_errf(err, "rank %lld: the %s transport cannot inject a stall", (long long)c->rank, c->tops->name);
    if (c->tops->inject_stall(c->ts, &e) < 0)
        return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(pass), (long long)k, e.msg);
    return 0;
}

int rs_exec_pass(rs_exec_ctx_t *c, const rs_schedule_t *s, rs_exec_slot_t *slots, double t0, rs_exec_result_t *res,
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
        res->fail_step = k;
        const bool measured = p->pass == c->measured;
        if (c->o->fault_rank == c->rank && c->o->fault_step == k && measured) return fault_at(c, p->pass, k, res, err);
        if (c->o->stall_rank == c->rank && c->o->stall_step == k && measured && stall_at(c, &st, p->pass, k, err) < 0) return -1;
        posted_t x;
        x.n = 0;
        int kv_recv = 0;
        for (int i = 0; i < st.n_send; i++)
            x.req[x.n++] = (rs_xfer_req_t){RS_XFER_SEND, st.send_peer, st.send[i].kind == RS_XFER_KV ? c->kv[cur] : dsend,
                                           st.send[i].bytes, st.send[i].kind == RS_XFER_KV ? 0 : 1};
        for (int i = 0; i < st.n_recv; i++) {
            bool kvk = st.recv[i].kind == RS_XFER_KV;
            kv_recv |= kvk;
            x.req[x.n++] = (rs_xfer_req_t){RS_XFER_RECV, st.recv_peer, kvk ? c->kv[1 - cur] : din, st.recv[i].bytes,
                                           kvk ? 0 : 1};
        }
        step_clock_t tc = {.origin = t0, .step0 = rs_now_s()};
        if (x.n > 0 && c->tops->post(c->ts, x.n, x.req, &e) < 0)
            return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(p->pass), (long long)k, e.msg);
        if (st.has_compute) {
            int rc = fwd ? c->cops->fwd_step(c->cs, &st, c->kv[cur], &e)
                         : (c->cops->grad_zero(c->cs, acc, &e) < 0 ? -1 : c->cops->bwd_step(c->cs, &st, c->kv[cur], acc, &e));
            if (rc < 0 || c->cops->wait(c->cs, &tc.comp0, &tc.comp1, &e) < 0)
                return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(p->pass), (long long)k, e.msg);
        }
        if (x.n > 0 && c->tops->wait(c->ts, c->o->timeout_s, x.time, &e) < 0)
            return rs_errc(err, e.code, "rank %lld, %s step %lld: %s", (long long)c->rank, rs_pass_name(p->pass), (long long)k, e.msg);
        tc.step1 = rs_now_s(); /* the step event: compute and transfers; the merges below follow it */
        bool dkv_in = false;
        for (int i = 0; i < st.n_recv; i++) dkv_in |= st.recv[i].kind == RS_XFER_DKV;
        const bool tail = !fwd && k == n_steps - 1; /* brings every dK,dV home; nothing to add */
        if (!fwd && !tail && (dkv_in || !st.has_compute)) {
            /* acc += the incoming partial (a step without compute just forwards it) */
            if ((!st.has_compute && c->cops->grad_zero(c->cs, acc, &e) < 0) ||
                (dkv_in && c->cops->grad_add(c->cs, acc, din, &e) < 0) || c->cops->wait(c->cs, NULL, NULL, &e) < 0)
                return rs_errc(err, e.code, "rank %lld, backward step %lld: %s", (long long)c->rank, (long long)k, e.msg);
        }
        if (slots) record_slots(slots + k * RS_EXEC_KINDS, &st, &x, &tc);
        if (kv_recv) cur = 1 - cur;
        if (!fwd) {
            if (tail) {                       /* the incoming partial is complete */
                c->dkv_final = dkv_in ? din : dsend;
            } else { /* acc becomes the partial sent at the next step; the next acc is din, whose
                        partial was just added (this rank wrote it: its cache lines are here), and the
                        buffer just sent receives next: clearing the buffer just sent instead (its peer
                        has read it) costs many times a clear of memory this rank owns. */
                void *t = dsend;
                dsend = acc, acc = din, din = t;
            }
        }
    }
    res->fail_step = -1;
    if ((fwd ? c->cops->fwd_end(c->cs, &e) : c->cops->bwd_end(c->cs, &e)) < 0 || c->cops->wait(c->cs, NULL, NULL, &e) < 0)
        return rs_errc(err, e.code, "rank %lld: %s", (long long)c->rank, e.msg);
    /* the pass epilogue (fwd_end: O / l, lse) ends the last step's event, as the model puts it */
    if (slots && n_steps > 0) slots[(n_steps - 1) * RS_EXEC_KINDS + RS_EV_STEP].end_s = rs_now_s() - t0;
    if (!fwd && !c->dkv_final) c->dkv_final = dsend;
    return 0;
}
