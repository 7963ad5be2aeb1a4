/* sim_actors.c - the actor engine (sim_run.h): one SimGrid actor per ring walker posting its step's
 * exec and mailbox transfers and waiting for them, beside a compute helper where the exec's end
 * cannot be predicted (a user's platform, compute slowdown, partial overlap), pass-q's all-to-all
 * step, and a job's background collectives (job_child.c). The reference every platform and flag
 * runs on. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>

#include "job_child.h"
#include "sim_run.h"

static char payload; /* SimGrid needs a non-NULL payload; nothing is read from it */

static sg_mailbox_t *g_mb;     /* [total] mailbox of each rank (its receives) */
static sg_bar_t g_a2a_barrier; /* pass-q's return: every rank has posted it (NULL without) */

/* ================================================================================================
 * Compute helpers
 * ============================================================================================== */
/* Per-rank compute helper. SimGrid 3.32's C API has no wait over an exec and comms together (and
 * its sg_comm_wait_any_for() frees the comms when it times out), so a rank that cannot predict its
 * exec's end (user platform: hosts may be shared or vary in speed; --slowdown: the rate changes)
 * has a second actor on its host that runs the step's exec: the rank posts the work (go), waits for
 * its transfers one by one, then for the helper (done). Both activities start at the step start.
 *
 * Compute slowdown sigma (the walk's semantics, model/4-cost/cost.h): the exec runs at speed / sigma
 * while any of the rank's hops (out: p -> p+1, in: p-1 -> p) has a transfer in flight, i.e. from
 * the moment both ends of the hop have posted the step (the later step start) to the completion of
 * the hop's last flow; at full speed otherwise. Hop activity is counted in the slots' active; every
 * change wakes the helpers of both ends, which restart the exec's remainder at the new rate. */
typedef struct {
    sg_sem_t go;      /* released by the rank: amount is set (or stop) */
    sg_sem_t done;    /* released by the helper: end_c is set */
    sg_sem_t wake;    /* released when the rank's in-flight state changes while computing */
    double amount;    /* FLOPs of this step's exec (0 = none) */
    double end_c;     /* simulated time the exec ended */
    int computing;    /* 1 while the helper runs a slowdown-aware exec */
    int active;       /* hops of this rank (in and out) with a transfer in flight */
    int64_t started;  /* last step this rank has started (-1 before the first) */
    int stop;         /* 1: the helper returns */
} compute_slot_t;

static compute_slot_t *g_slot; /* [total] */

/* Below this many seconds of remaining compute the exec is simply waited for. */
#define SIM_TINY_S 1e-15

static void slot_wake(compute_slot_t *sl) {
    if (sl->computing) sg_sem_release(sl->wake);
}

/* Hop h (h -> h+1) starts or stops carrying a transfer: both ends' in-flight counts change. */
static void hop_activity(int64_t h, int delta) {
    compute_slot_t *a = &g_slot[h], *b = &g_slot[sim_next_of(h)];
    a->active += delta;
    b->active += delta;
    slot_wake(a);
    slot_wake(b);
}

/* Run `amount` FLOPs at speed / sigma while sl->active > 0, at full speed otherwise. */
static void slowdown_exec(compute_slot_t *sl, double amount, double speed, double sigma) {
    double rem = amount;
    sl->computing = 1;
    while (rem > 0) {
        const int slow = sl->active > 0;
        const double rate = slow ? speed / sigma : speed;
        sg_exec_t ex = sg_actor_exec_init(rem);
        if (slow) sg_exec_set_bound(ex, rate);
        sg_exec_start(ex);
        SR.sum.activities++;
        for (;;) {
            const double dt = sg_exec_get_remaining(ex) / rate;
            if (dt <= SIM_TINY_S) {
                sg_exec_wait(ex);
                rem = 0;
                break;
            }
            if (sg_sem_acquire_timeout(sl->wake, dt)) { /* timeout: the exec's predicted end */
                if (sg_exec_test(ex)) {
                    rem = 0;
                    break;
                }
                continue; /* a shared host runs slower than predicted */
            }
            if ((sl->active > 0) == slow) continue; /* woken, same rate */
            rem = sg_exec_get_remaining(ex);
            sg_exec_cancel(ex);
            break;
        }
    }
    sl->computing = 0;
}

static void compute_main(int argc, char **argv) {
    (void)argc;
    compute_slot_t *sl = &g_slot[strtoll(argv[1], NULL, 10)];
    const double speed = sg_host_get_speed(sg_host_self()), sigma = SR.m->cal.comp_slowdown;
    for (;;) {
        sg_sem_acquire(sl->go);
        if (sl->stop) return;
        if (sl->amount > 0) {
            if (sigma > 1) slowdown_exec(sl, sl->amount, speed, sigma);
            else sg_actor_execute(sl->amount), SR.sum.activities++;
        }
        sl->end_c = simgrid_get_clock();
        sim_unthrottle_in(sl - g_slot); /* the receiver stopped computing: its incoming hop at full rate again */
        sg_sem_release(sl->done);
    }
}

/* ================================================================================================
 * Rank actors
 * ============================================================================================== */
/* One rank actor. */
typedef struct {
    int64_t g, p;          /* actor index, rank in its ring */
    int64_t prev, next;    /* actors of the previous and next rank in the ring */
    double speed;          /* its host's speed, FLOP/s */
    rs_krank_t acc;        /* merges this rank defers to its epilogue (kernel.h) */
} rank_t;

/* pass-q's all-to-all step (the walk's semantics, model/4-cost/cost.h): the exchange starts when the
 * last rank has posted it (a barrier), then the rank puts its partial to every other rank and gets one
 * from each; on the all-pairs platform the flows share each device's links as rs_machine_a2a_s
 * counts. Statistics and events as the walk's. */
static void a2a_step(const rank_t *r, int64_t k, const rs_step_t *st) {
    const int64_t g = r->g, p = r->p, n = SR.n;
    const double t0 = simgrid_get_clock();
    sg_barrier_wait(g_a2a_barrier);
    sg_comm_t *comm = malloc(sizeof(sg_comm_t) * (size_t)(2 * (n - 1)));
    void *got = NULL;
    int nc = 0;
    for (int64_t j = 1; j < n; j++) comm[nc++] = sg_mailbox_put_async(g_mb[g - p + (p + j) % n], &payload, (long)st->a2a_peer_bytes);
    for (int64_t j = 1; j < n; j++) comm[nc++] = sg_mailbox_get_async(g_mb[g], &got);
    sg_comm_wait_all(comm, (size_t)nc);
    free(comm);
    SR.sum.activities += n - 1;
    const double te = simgrid_get_clock();
    SR.sum.rank_steps++;
    if (te - t0 > SR.sum.t_comm_max_s) SR.sum.t_comm_max_s = te - t0;
    SR.sum.comm_bound_steps++;
    if (te > SR.step_end[k]) SR.step_end[k] = te;
    if (te - t0 > SR.step_max[k]) SR.step_max[k] = te - t0;
    if (SR.events) {
        const int32_t rk = (int32_t)p, sk = (int32_t)k;
        sim_put_event(SR.out, &(rs_event_t){rk, sk, SR.pass, RS_EV_SEND, -1, t0, te, 0, (double)st->send_bytes});
        sim_put_event(SR.out, &(rs_event_t){rk, sk, SR.pass, RS_EV_RECV, -1, t0, te, 0, (double)st->recv_bytes});
        sim_put_event(SR.out, &(rs_event_t){rk, sk, SR.pass, RS_EV_STEP, -1, t0, te, 0, 0});
    }
}

/* The transfers of a step in flight. */
typedef struct {
    sg_comm_t comm[2 * RS_MAX_TRANSFERS];
    int is_recv[2 * RS_MAX_TRANSFERS]; /* comm[i] is a receive */
    int n;                             /* not completed yet */
    void *got;                         /* where SimGrid puts a received payload (never read) */
} transfers_t;

/* Post the step's sends to the next rank and its receives from the previous one. */
static void post_transfers(const rank_t *r, int64_t k, const rs_step_t *st, transfers_t *x) {
    x->n = 0;
    x->got = NULL;
    const double gx = st->n_send > 0 ? sim_send_factor(k, st) : 1;
    for (int i = 0; i < st->n_send; i++) {
        x->is_recv[x->n] = 0;
        x->comm[x->n++] = sg_mailbox_put_async(g_mb[r->next], &payload, sim_send_bytes(st, i, gx));
    }
    for (int i = 0; i < st->n_recv; i++) {
        x->is_recv[x->n] = 1;
        x->comm[x->n++] = sg_mailbox_get_async(g_mb[r->g], &x->got);
    }
    SR.sum.activities += st->n_send;
}

/* Post the step's transfers and wait for them, each completion an event end (one wait for all when
 * no end is needed), then for its exec: ex in this actor, or the helper's. Sets t's ends. */
static void wait_step(const rank_t *r, int64_t k, const rs_step_t *st, sg_exec_t ex, sim_step_times_t *t) {
    transfers_t x;
    int n_send_left = st->n_send;
    post_transfers(r, k, st, &x);
    if (!SR.events && !SR.slowdown && !SR.job) {
        sg_comm_wait_all(x.comm, (size_t)x.n);
        t->end_send = t->end_recv = simgrid_get_clock();
        x.n = 0;
    }
    while (x.n > 0) {
        ssize_t idx = sg_comm_wait_any(x.comm, (size_t)x.n);
        const double now = simgrid_get_clock();
        if (x.is_recv[idx]) {
            t->end_recv = now;
        } else {
            t->end_send = now;
            if (--n_send_left == 0 && SR.slowdown) hop_activity(r->g, -1); /* hop g drained */
            if (n_send_left == 0 && SR.job) rs_jc_hop_done(r->g, k, t->t0, now, (double)st->send_bytes);
        }
        x.comm[idx] = x.comm[x.n - 1];
        x.is_recv[idx] = x.is_recv[x.n - 1];
        x.n--;
    }
    if (ex) {
        const double before = simgrid_get_clock();
        sg_exec_wait(ex);
        const double after = simgrid_get_clock();
        t->end_c = after > before ? after : fmin(before, t->t0 + t->tc * SR.f_eff / r->speed);
    } else if (t->tc > 0) {
        compute_slot_t *sl = &g_slot[r->g];
        sg_sem_acquire(sl->done);
        t->end_c = sl->end_c;
    }
}

/* Execute `seconds` of compute in this actor (the merges after a step, the epilogue). */
static void execute_s(double seconds) {
    sg_actor_execute(seconds * SR.f_eff);
    SR.sum.activities++;
}

/* One step of the ring: the compute and the transfers start together; the step ends when both are
 * done, then the merges of an arrived partial (and, at the last step, the pass epilogue) run. */
static void ring_step(rank_t *r, int64_t k, const rs_step_t *st) {
    compute_slot_t *sl = &g_slot[r->g];
    sim_step_times_t t = {.t0 = simgrid_get_clock()};
    if (SR.job) rs_jc_step_start(r->g, k, t.t0);
    double eta;
    t.tc = sim_step_compute_s(r->g, &r->acc, k, st, &eta);
    const bool moves = st->n_send + st->n_recv > 0;
    sl->started = k;
    if (SR.slowdown && moves) { /* a hop is in flight once both its ends have started step k */
        if (g_slot[r->next].started >= k) hop_activity(r->g, +1);
        if (g_slot[r->prev].started >= k && r->prev != r->g) hop_activity(r->prev, +1);
    }
    if (SR.partial && t.tc > 0 && st->n_recv > 0 && eta < 1) sim_throttle_in(r->g, eta); /* incoming transfers at eta while computing */
    t.end_send = t.end_recv = t.end_c = t.t0;
    if (!moves) { /* nothing to overlap: run the exec here */
        if (t.tc > 0) execute_s(t.tc);
        t.end_c = simgrid_get_clock();
    } else {
        /* Fast path (generated platform: this rank alone on its host, constant speed): the exec
         * runs in this actor; if it ends before the last transfer (the wait returns at once) its
         * end is t0 + amount / speed, which is what SimGrid computed. Otherwise the helper runs it.
         * The exec is posted before the transfers, as in a bare ring (cheaper for SimGrid). */
        sg_exec_t ex = NULL;
        if (t.tc > 0 && SR.exclusive && !SR.slowdown && !SR.partial) {
            ex = sg_actor_exec_async(t.tc * SR.f_eff);
            SR.sum.activities++;
        } else if (t.tc > 0) {
            sl->amount = t.tc * SR.f_eff;
            sg_sem_release(sl->go);
        }
        wait_step(r, k, st, ex, &t);
    }
    t.end_cx = fmax(t.end_c, fmax(t.end_send, t.end_recv));
    t.te = t.end_step = t.end_cx;
    double merges, epi;
    sim_step_tail(r->g, k, &r->acc, &merges, &epi);
    if (merges > 0) { /* the merges of the arrived dK,dV partial, after both (kernel.h) */
        execute_s(merges);
        t.te = simgrid_get_clock();
    }
    if (epi > 0) { /* the pass epilogue after the ring loop, in the last step's event */
        execute_s(epi);
        t.te = t.end_step = simgrid_get_clock();
    }
    if (SR.job) rs_jc_rank_end(r->g, t.te);
    sim_step_account(r->g, k, st, moves, r->acc.before_s, &t);
}

/* One rank. argv[1] is its actor index g (ring g / N, rank g mod N). */
static void rank_main(int argc, char **argv) {
    (void)argc;
    const int64_t g = strtoll(argv[1], NULL, 10);
    rank_t r = {.g = g, .p = sim_rank_of(g), .prev = sim_prev_of(g), .next = sim_next_of(g), .speed = sg_host_get_speed(sg_host_self())};
    compute_slot_t *sl = &g_slot[g];
    if (SR.job) rs_jc_rank_route(g, SR.host[g], SR.host[r.next]);
    for (int64_t k = 0; k < SR.steps; k++) {
        rs_step_t st;
        rs_schedule_step(SR.s, r.p, k, &st);
        if (st.a2a) {
            sl->started = k;
            a2a_step(&r, k, &st);
        } else {
            ring_step(&r, k, &st);
        }
    }
    sl->stop = 1;
    sg_sem_release(sl->go);
}

int sim_actors_create(void) {
    char name[64], arg[32];
    g_slot = calloc((size_t)SR.total, sizeof *g_slot);
    g_mb = calloc((size_t)SR.total, sizeof *g_mb);
    if (!g_slot || !g_mb) return sim_fail(RS_ERR_RUNTIME, "sim: out of memory for %" PRId64 " ranks", SR.total);
    for (int64_t r = 0; r < SR.total; r++) {
        snprintf(name, sizeof name, "rank%" PRId64, r);
        g_mb[r] = sg_mailbox_by_name(name);
        g_slot[r].go = sg_sem_init(0);
        g_slot[r].done = sg_sem_init(0);
        g_slot[r].wake = sg_sem_init(0);
        g_slot[r].started = -1;
    }
    for (int64_t r = 0; r < SR.total; r++) {
        snprintf(name, sizeof name, "rank%" PRId64, r);
        snprintf(arg, sizeof arg, "%" PRId64, r);
        const char *av[] = {name, arg};
        sg_actor_create_(name, SR.host[r], rank_main, 2, av);
        snprintf(name, sizeof name, "compute%" PRId64, r);
        if (!SR.exclusive || SR.slowdown || SR.partial) sg_actor_create_(name, SR.host[r], compute_main, 2, av);
    }
    if (SR.job && rs_jc_start_background() != 0) return sim_fail(RS_ERR_RUNTIME, "sim: cannot start the background collectives");
    if (rs_schedule_step_a2a_bytes(SR.s, SR.n) > 0) g_a2a_barrier = sg_barrier_init((unsigned)SR.total);
    return 0;
}
