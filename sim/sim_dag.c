/* sim_dag.c - the activity engine (sim_run.h): no actor per walker. A walker's step is its SimGrid
 * activities - one transfer per message to its next walker (sgx.h) and a timer at the end of its
 * compute - and the next step starts from their completions, in SimGrid's maestro.
 *
 * The rules are the actor engine's, so the answer is the same (tested event by event):
 *   - a walker starts step k when its step k - 1 is done (t0 = that time; step 0 at t = 0);
 *   - the transfers of hop g -> next(g) at step k start when both ends have started step k (the
 *     mailbox rendezvous of the actors: the later start posts them);
 *   - the compute of a step lasts its compute time: on a generated platform every walker is alone
 *     on its host, which runs at F_eff(B), so an exec of tc F_eff FLOPs would end at t0 + tc - the
 *     timer's date;
 *   - the step is done when its compute, its sends and its receives are; then the merges of an
 *     arrived partial and, after the last step, the epilogue (compute on the same host: durations),
 *     then the next step;
 *   - partial overlap: the incoming hop's bottleneck link runs at eta x its bandwidth from the step
 *     start to the compute's end (as the compute helper does);
 *   - a job's hops keep their books (job_child.h) from the same starts and completions.
 * A job's background collectives run the same way (job_child.c), each member an owner beside the
 * walkers; in a folded job only the fold's rings and members run (job_fold.h), in a ring folded by
 * its rotation only rank 0, its own next and previous walker (ring_fold.h: a transfer it sends is
 * the one it receives, settling both its send and its receive). Compute
 * slowdown (the exec's rate changes while transfers fly) and pass-q's all-to-all step run on the
 * actor engine, as does a user's platform (hosts may be shared or vary in speed). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/engine.h>
#include <simgrid/link.h>

#include "job_child.h"
#include "sgx.h"
#include "sim_run.h"

/* One transfer in flight: its walker (sender) and which of the walker's sends. */
typedef struct {
    int64_t w;
    int i;
} xfer_tag_t;

typedef struct {
    int64_t k;            /* the step started (-1 before the first) */
    int pending;          /* what the step still waits for: its compute, sends and receives */
    int sends_left;       /* its sends not done */
    rs_step_t st;         /* the step */
    sim_step_times_t t;   /* its times */
    rs_krank_t acc;       /* the merges deferred (kernel.h) */
    double send_factor;   /* the step's transfer factor (sim_send_factor), once per step */
    xfer_tag_t tag[RS_MAX_TRANSFERS];
} walker_t;

static struct {
    walker_t *w;          /* [SR.total] ring walkers */
    int failed;           /* out of memory inside the run */
} D;

static void start_step(int64_t g, int64_t k);
static void transfer_done(void *tag);

static void send(int64_t g, int i) {
    walker_t *w = &D.w[g];
    const int64_t to = sim_next_of(g);
    w->tag[i] = (xfer_tag_t){g, i};
    sg_host_t dst = SR.rot ? SR.peer_host : SR.host[to]; /* folded by its rotation: over hop 0's route */
    if (sgx_transfer(g, SR.host[g], dst, (double)sim_send_bytes(&w->st, i, w->send_factor), transfer_done, &w->tag[i]) != 0)
        D.failed = 1;
}

/* Walker g's step is done: its books, then the next step (or its end). */
static void finish_step(void *arg) {
    const int64_t g = (int64_t)(intptr_t)arg;
    walker_t *w = &D.w[g];
    const bool moves = w->st.n_send + w->st.n_recv > 0;
    if (SR.job) rs_jc_rank_end(g, w->t.te);
    sim_step_account(g, w->k, &w->st, moves, w->acc.before_s, &w->t);
    if (w->k + 1 < SR.steps) start_step(g, w->k + 1);
    else sgx_owner_done(g);
}

/* Walker g's compute and transfers are done: the merges after them and the epilogue, then its end. */
static void step_done(int64_t g) {
    walker_t *w = &D.w[g];
    sim_step_times_t *t = &w->t;
    t->end_cx = fmax(t->end_c, fmax(t->end_send, t->end_recv));
    t->te = t->end_step = t->end_cx;
    double merges, epi;
    sim_step_tail(g, w->k, &w->acc, &merges, &epi);
    if (merges > 0) t->te = t->end_cx + merges;
    if (epi > 0) t->te = t->end_step = t->te + epi; /* the pass epilogue, in the last step's event */
    if (t->te > t->end_cx) {
        if (sgx_timer(t->te, finish_step, (void *)(intptr_t)g) != 0) D.failed = 1;
    } else {
        finish_step((void *)(intptr_t)g);
    }
}

static void settle(int64_t g) {
    if (--D.w[g].pending == 0) step_done(g);
}

static void compute_done(void *arg) {
    const int64_t g = (int64_t)(intptr_t)arg;
    walker_t *w = &D.w[g];
    w->t.end_c = w->t.t0 + w->t.tc;
    sim_unthrottle_in(g); /* the receiver stopped computing: its incoming hop at full rate again */
    settle(g);
}

static void transfer_done(void *tag) {
    const xfer_tag_t *x = tag;
    const double now = simgrid_get_clock();
    walker_t *w = &D.w[x->w];
    const int64_t to = sim_next_of(x->w);
    w->t.end_send = now;
    if (--w->sends_left == 0 && SR.job) rs_jc_hop_done(x->w, w->k, w->t.t0, now, (double)w->st.send_bytes);
    D.w[to].t.end_recv = now;
    settle(x->w);
    settle(to);
}

static void start_step(int64_t g, int64_t k) {
    walker_t *w = &D.w[g];
    const double t0 = simgrid_get_clock();
    rs_schedule_step(SR.s, sim_rank_of(g), k, &w->st);
    if (SR.job) rs_jc_step_start(g, k, t0);
    double eta;
    const double tc = sim_step_compute_s(g, &w->acc, k, &w->st, &eta);
    w->k = k;
    w->t = (sim_step_times_t){.t0 = t0, .tc = tc, .end_c = t0, .end_send = t0, .end_recv = t0};
    w->sends_left = w->st.n_send;
    w->send_factor = w->st.n_send > 0 ? sim_send_factor(k, &w->st) : 1;
    w->pending = (tc > 0) + w->st.n_send + w->st.n_recv;
    if (SR.partial && tc > 0 && w->st.n_recv > 0 && eta < 1) sim_throttle_in(g, eta); /* incoming transfers at eta while computing */
    if (tc > 0 && sgx_timer(t0 + tc, compute_done, (void *)(intptr_t)g) != 0) D.failed = 1;
    const int64_t next = sim_next_of(g), prev = sim_prev_of(g);
    if (w->st.n_send > 0 && D.w[next].k == k) /* the receiver is there: post them */
        for (int i = 0; i < w->st.n_send; i++) send(g, i);
    if (w->st.n_recv > 0 && prev != g && D.w[prev].k == k) /* the sender was there first: this start posts its sends */
        for (int i = 0; i < D.w[prev].st.n_send; i++) send(prev, i);
    if (w->pending == 0) step_done(g);
}

static void start_all(void *arg) {
    (void)arg;
    for (int64_t g = 0; SR.job && g < SR.total; g++) /* each rank's hop, for the job's link table */
        rs_jc_rank_route(g, SR.host[g], SR.host[sim_next_of(g)]);
    if (SR.job && rs_jc_engine_start() != 0) D.failed = 1;
    for (int64_t g = 0; g < SR.total; g++) start_step(g, 0);
}

bool sim_dag_eligible(const rs_sim_config_t *cfg) {
    return cfg->engine == RS_SIM_ENGINE_FAST && SR.exclusive && !SR.slowdown && rs_schedule_step_a2a_bytes(SR.s, SR.n) == 0;
}

int sim_dag_start(void) {
    memset(&D, 0, sizeof D);
    D.w = calloc((size_t)SR.total, sizeof *D.w);
    if (!D.w) return sim_fail(RS_ERR_RUNTIME, "sim: out of memory for %" PRId64 " ranks", SR.total);
    for (int64_t g = 0; g < SR.total; g++) D.w[g].k = -1;
    const int64_t bg = SR.job ? rs_jc_engine_walkers(NULL, SR.total) : 0;
    sg_host_t *owner = bg >= 0 ? malloc(sizeof *owner * (size_t)(SR.total + bg + 1)) : NULL;
    if (!owner) return sim_fail(RS_ERR_RUNTIME, "sim: cannot start the background collectives");
    memcpy(owner, SR.host, sizeof *owner * (size_t)SR.total);
    if (bg > 0) rs_jc_engine_walkers(owner + SR.total, SR.total);
    const int rc = sgx_init(SR.total + bg, owner);
    free(owner);
    if (rc != 0 || sgx_timer(0, start_all, NULL) != 0)
        return sim_fail(RS_ERR_RUNTIME, "sim: out of memory for %" PRId64 " ranks", SR.total);
    return 0;
}

int sim_dag_end(void) {
    int64_t transfers, timers;
    sgx_counts(&transfers, &timers);
    SR.sum.activities += transfers + timers;
    sgx_free();
    const int rc = D.failed || (SR.job && rs_jc_engine_failed()) ? sim_fail(RS_ERR_RUNTIME, "sim: out of memory during the simulation") : 0;
    free(D.w);
    memset(&D, 0, sizeof D);
    return rc;
}
