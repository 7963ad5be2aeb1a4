/* sim_child.c - the SimGrid child's simulation (sim_child.h): SimGrid's setup, the rank actors (a
 * step's compute, transfers, partial overlap, polled progress, compute slowdown, pass-q's all-to-all
 * step) and their compute helpers, the statistics and events they send back (sim_pipe.h). */
#include "sim_child.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
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
#include <xbt/dynar.h>

#include "job_child.h"
#include "kernel.h"
#include "polls.h"
#include "sim_config.h"
#include "sim_pipe.h"
#include "util.h"

/* ================================================================================================
 * State
 * ============================================================================================== */
static struct {
    const rs_schedule_t *s;   /* the schedule */
    const rs_machine_t *m;    /* the machine */
    rs_pass_t pass;           /* the schedule's pass (for events) */
    int64_t n, steps, block;  /* N (ranks per ring), steps of the pass, B */
    int64_t total;            /* rank actors: rings x N; actor g is ring g / N's rank g mod N */
    bool job;                 /* a job of concurrent rings (job_child.h keeps its books) */
    bool slowdown;            /* compute slowdown sigma > 1 */
    bool partial;             /* partial overlap (eta < 1 for some transfers) */
    sg_host_t *host;          /* [total] host of each rank */
    rs_kmodel_t km;           /* the step cost (model/4-cost/kernel.h) */
    double f_eff;             /* F_eff(B): FLOPs per second of compute time */
    bool events;              /* stream events to the parent */
    bool exclusive;           /* generated platform: one rank per host, constant speed */
    FILE *out;                /* the pipe */
    int errc;                 /* the kind of the 'X' record sent (rs_errc_t) */
    sg_mailbox_t *mb;         /* [total] mailbox of each rank (its receives) */
    double *busy;             /* [total] summed compute time */
    double *step_end;         /* [steps] latest end */
    double *step_max;         /* [steps] longest duration */
    sim_summary_rec_t sum;    /* running totals */
    bool progress;            /* send 'P' records */
    double next_progress_s;   /* wall time of the next one */
    sg_bar_t a2a_barrier;     /* pass-q's return: every rank has posted it (NULL without) */
} C;

static char payload; /* SimGrid needs a non-NULL payload; nothing is read from it */

/* The child's error ('X') of kind code (rs_errc_t). Returns -1. */
static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sim_put_textv(C.out, 'X', code, fmt, ap);
    va_end(ap);
    C.errc = code;
    return -1;
}

/* After a rank-step: a 'P' record when SIM_PROGRESS_S have passed (the clock is read every 64). */
static void put_progress(void) {
    if (!C.progress || (C.sum.rank_steps & 63) != 0) return;
    const double now = rs_now_s();
    if (now < C.next_progress_s) return;
    C.next_progress_s = now + SIM_PROGRESS_S;
    const sim_progress_rec_t r = {simgrid_get_clock(), C.sum.rank_steps, C.total * C.steps};
    sim_put_progress(C.out, &r);
}

static void put_event(rs_event_t ev) { sim_put_event(C.out, &ev); }

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
    sg_link_t out_link; /* --overlap < 1: the bottleneck link of hop rank -> rank+1 */
    double out_bw;      /* its full bandwidth, bytes/s */
    int throttled;      /* 1 while the incoming hop's link (the previous rank's out_link) runs at
                         * eta x its bandwidth: this rank's compute of this step */
} compute_slot_t;

static compute_slot_t *g_slot; /* [total] */

/* Next and previous rank of actor g in its own ring. */
static int64_t next_of(int64_t g) {
    const int64_t p = g % C.n;
    return g - p + (p + 1) % C.n;
}
static int64_t prev_of(int64_t g) {
    const int64_t p = g % C.n;
    return g - p + (p + C.n - 1) % C.n;
}

/* Below this many seconds of remaining compute the exec is simply waited for. */
#define SIM_TINY_S 1e-15

static void slot_wake(compute_slot_t *sl) {
    if (sl->computing) sg_sem_release(sl->wake);
}

/* Hop h (h -> h+1) starts or stops carrying a transfer: both ends' in-flight counts change. */
static void hop_activity(int64_t h, int delta) {
    compute_slot_t *a = &g_slot[h], *b = &g_slot[next_of(h)];
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
    const double speed = sg_host_get_speed(sg_host_self()), sigma = C.m->cal.comp_slowdown;
    for (;;) {
        sg_sem_acquire(sl->go);
        if (sl->stop) return;
        if (sl->amount > 0) {
            if (sigma > 1) slowdown_exec(sl, sl->amount, speed, sigma);
            else sg_actor_execute(sl->amount);
        }
        sl->end_c = simgrid_get_clock();
        if (sl->throttled) { /* the receiver stopped computing: its incoming hop runs at full rate again */
            const compute_slot_t *in = &g_slot[prev_of(sl - g_slot)];
            sg_link_set_bandwidth(in->out_link, in->out_bw);
            sl->throttled = 0;
        }
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

/* The times of one rank-step. */
typedef struct {
    double t0;                 /* the step's start: the rank posts everything then */
    double tc;                 /* its compute time (the step's kernel calls, kernel.h) */
    double end_c;              /* the compute's end (t0 when there is none) */
    double end_send, end_recv; /* the last send's and the last receive's completion (t0 when none) */
    double end_cx;             /* both: the step's compute and transfers are done */
    double end_step;           /* the step event's end */
    double te;                 /* the rank's end of the step, the merges after it included */
} step_times_t;

/* pass-q's all-to-all step (the walk's semantics, model/4-cost/cost.h): the exchange starts when the
 * last rank has posted it (a barrier), then the rank puts its partial to every other rank and gets one
 * from each; on the all-pairs platform the flows share each device's links as rs_machine_a2a_s
 * counts. Statistics and events as the walk's. */
static void a2a_step(const rank_t *r, int64_t k, const rs_step_t *st) {
    const int64_t g = r->g, p = r->p, n = C.n;
    const double t0 = simgrid_get_clock();
    sg_barrier_wait(C.a2a_barrier);
    sg_comm_t *comm = malloc(sizeof(sg_comm_t) * (size_t)(2 * (n - 1)));
    void *got = NULL;
    int nc = 0;
    for (int64_t j = 1; j < n; j++) comm[nc++] = sg_mailbox_put_async(C.mb[g - p + (p + j) % n], &payload, (long)st->a2a_peer_bytes);
    for (int64_t j = 1; j < n; j++) comm[nc++] = sg_mailbox_get_async(C.mb[g], &got);
    sg_comm_wait_all(comm, (size_t)nc);
    free(comm);
    const double te = simgrid_get_clock();
    C.sum.rank_steps++;
    if (te - t0 > C.sum.t_comm_max_s) C.sum.t_comm_max_s = te - t0;
    C.sum.comm_bound_steps++;
    if (te > C.step_end[k]) C.step_end[k] = te;
    if (te - t0 > C.step_max[k]) C.step_max[k] = te - t0;
    if (C.events) {
        const int32_t rk = (int32_t)p, sk = (int32_t)k;
        put_event((rs_event_t){rk, sk, C.pass, RS_EV_SEND, -1, t0, te, 0, (double)st->send_bytes});
        put_event((rs_event_t){rk, sk, C.pass, RS_EV_RECV, -1, t0, te, 0, (double)st->recv_bytes});
        put_event((rs_event_t){rk, sk, C.pass, RS_EV_STEP, -1, t0, te, 0, 0});
    }
}

/* The step's compute time, and into *eta the rate its incoming transfers progress at while it
 * computes (only with partial overlap, where it matters; 1 otherwise). */
static double step_compute_s(rank_t *r, int64_t k, const rs_step_t *st, double *eta) {
    double recv_bytes = 0; /* the step's incoming bytes: host cost and the eta of the hop */
    for (int i = 0; i < st->n_recv; i++) recv_bytes += (double)st->recv[i].bytes;
    const double reused = (double)rs_schedule_step_reused_bytes(C.s, k); /* received into the buffer sent at k - 1 */
    const double tc = rs_kernel_step_s(&C.km, st, &r->acc, st->n_recv, recv_bytes, reused);
    *eta = 1;
    if (!C.partial || !(tc > 0) || st->n_recv == 0) return tc;
    /* the hop's eta; polled progress: from this rank's own polls (model/4-cost/polls.h) */
    *eta = rs_calibration_polled(&C.m->cal)
               ? rs_step_eta(C.m, recv_bytes,
                             recv_bytes * rs_machine_step_xfer_factor(C.m, recv_bytes, reused) / rs_machine_hop_bw(C.m, C.n, r->prev % C.n), tc,
                             rs_step_poll_frac(C.m, rs_schedule_problem(C.s), st, recv_bytes, reused))
               : rs_machine_overlap(C.m, recv_bytes);
    return tc;
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
    double send_bytes = 0; /* the transfer curve's g at the hop's bytes: SimGrid moves bytes x g (cost.c's walk) */
    for (int i = 0; i < st->n_send; i++) send_bytes += (double)st->send[i].bytes;
    const double gx = rs_machine_step_xfer_factor(C.m, send_bytes, (double)rs_schedule_step_reused_bytes(C.s, k));
    for (int i = 0; i < st->n_send; i++) {
        x->is_recv[x->n] = 0;
        x->comm[x->n++] = sg_mailbox_put_async(C.mb[r->next], &payload, (long)llround((double)st->send[i].bytes * gx));
    }
    for (int i = 0; i < st->n_recv; i++) {
        x->is_recv[x->n] = 1;
        x->comm[x->n++] = sg_mailbox_get_async(C.mb[r->g], &x->got);
    }
}

/* Post the step's transfers and wait for them, each completion an event end (one wait for all when
 * no end is needed), then for its exec: ex in this actor, or the helper's. Sets t's ends. */
static void wait_step(const rank_t *r, int64_t k, const rs_step_t *st, sg_exec_t ex, step_times_t *t) {
    transfers_t x;
    int n_send_left = st->n_send;
    post_transfers(r, k, st, &x);
    if (!C.events && !C.slowdown && !C.job) {
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
            if (--n_send_left == 0 && C.slowdown) hop_activity(r->g, -1); /* hop g drained */
            if (n_send_left == 0 && C.job) rs_jc_hop_done(r->g, k, t->t0, now, (double)st->send_bytes);
        }
        x.comm[idx] = x.comm[x.n - 1];
        x.is_recv[idx] = x.is_recv[x.n - 1];
        x.n--;
    }
    if (ex) {
        const double before = simgrid_get_clock();
        sg_exec_wait(ex);
        const double after = simgrid_get_clock();
        t->end_c = after > before ? after : fmin(before, t->t0 + t->tc * C.f_eff / r->speed);
    } else if (t->tc > 0) {
        compute_slot_t *sl = &g_slot[r->g];
        sg_sem_acquire(sl->done);
        t->end_c = sl->end_c;
    }
}

/* The statistics of a ring step, as rs_walk_t defines them, and its events. */
static void step_account(const rank_t *r, int64_t k, const rs_step_t *st, bool moves, const step_times_t *t) {
    const double end_x = fmax(t->end_send, t->end_recv);
    C.busy[r->g] += t->end_c - t->t0 + (t->te - t->end_cx);
    C.sum.rank_steps++;
    put_progress();
    C.sum.flops_useful += st->flops_useful;
    C.sum.flops_exec += st->flops_exec;
    if (t->end_c - t->t0 > C.sum.t_comp_max_s) C.sum.t_comp_max_s = t->end_c - t->t0;
    if (moves) {
        if (end_x - t->t0 > C.sum.t_comm_max_s) C.sum.t_comm_max_s = end_x - t->t0;
        if (end_x > t->end_c) C.sum.comm_bound_steps++;
    }
    if (t->te > C.step_end[k]) C.step_end[k] = t->te;
    if (t->te - t->t0 > C.step_max[k]) C.step_max[k] = t->te - t->t0;
    if (!C.events) return;
    const int32_t rk = (int32_t)r->p, sk = (int32_t)k;
    if (st->has_compute) /* it starts after the merges before the calls (kernel.h) */
        put_event((rs_event_t){rk, sk, C.pass, RS_EV_COMPUTE, -1, t->tc > 0 ? t->t0 + r->acc.before_s : t->t0, t->end_c,
                               (double)st->flops_exec, 0});
    if (moves) {
        put_event((rs_event_t){rk, sk, C.pass, RS_EV_SEND, st->send_peer, t->t0, t->end_send, 0, (double)st->send_bytes});
        put_event((rs_event_t){rk, sk, C.pass, RS_EV_RECV, st->recv_peer, t->t0, t->end_recv, 0, (double)st->recv_bytes});
    }
    put_event((rs_event_t){rk, sk, C.pass, RS_EV_STEP, -1, t->t0, t->end_step, 0, 0}); /* the arrived partial's merges follow it */
}

/* One step of the ring: the compute and the transfers start together; the step ends when both are
 * done, then the merges of an arrived partial (and, at the last step, the pass epilogue) run. */
static void ring_step(rank_t *r, int64_t k, const rs_step_t *st) {
    compute_slot_t *sl = &g_slot[r->g];
    step_times_t t = {.t0 = simgrid_get_clock()};
    if (C.job) rs_jc_step_start(r->g, k, t.t0);
    double eta;
    t.tc = step_compute_s(r, k, st, &eta);
    const bool moves = st->n_send + st->n_recv > 0;
    sl->started = k;
    if (C.slowdown && moves) { /* a hop is in flight once both its ends have started step k */
        if (g_slot[r->next].started >= k) hop_activity(r->g, +1);
        if (g_slot[r->prev].started >= k && r->prev != r->g) hop_activity(r->prev, +1);
    }
    if (C.partial && t.tc > 0 && st->n_recv > 0 && eta < 1) { /* incoming transfers progress at eta while computing */
        /* SimGrid cannot run a link at 0 B/s: eta = 0 becomes 1e-12 (moves 1e-12 of the bytes) */
        sg_link_set_bandwidth(g_slot[r->prev].out_link, fmax(eta, 1e-12) * g_slot[r->prev].out_bw);
        sl->throttled = 1;
    }
    t.end_send = t.end_recv = t.end_c = t.t0;
    if (!moves) { /* nothing to overlap: run the exec here */
        if (t.tc > 0) sg_actor_execute(t.tc * C.f_eff);
        t.end_c = simgrid_get_clock();
    } else {
        /* Fast path (generated platform: this rank alone on its host, constant speed): the exec
         * runs in this actor; if it ends before the last transfer (the wait returns at once) its
         * end is t0 + amount / speed, which is what SimGrid computed. Otherwise the helper runs it.
         * The exec is posted before the transfers, as in a bare ring (cheaper for SimGrid). */
        sg_exec_t ex = NULL;
        if (t.tc > 0 && C.exclusive && !C.slowdown && !C.partial) {
            ex = sg_actor_exec_async(t.tc * C.f_eff);
        } else if (t.tc > 0) {
            sl->amount = t.tc * C.f_eff;
            sg_sem_release(sl->go);
        }
        wait_step(r, k, st, ex, &t);
    }
    t.end_cx = fmax(t.end_c, fmax(t.end_send, t.end_recv));
    t.te = t.end_step = t.end_cx;
    if (r->acc.after_s > 0) { /* the merges of the arrived dK,dV partial, after both (kernel.h) */
        sg_actor_execute(r->acc.after_s * C.f_eff);
        t.te = simgrid_get_clock();
    }
    if (k == C.steps - 1) { /* the pass epilogue after the ring loop, in the last step's event (kernel.h) */
        const double epi = rs_kernel_rank_epilogue_s(&C.km, &r->acc, r->p);
        if (epi > 0) {
            sg_actor_execute(epi * C.f_eff);
            t.te = t.end_step = simgrid_get_clock();
        }
    }
    if (C.job) rs_jc_rank_end(r->g, t.te);
    step_account(r, k, st, moves, &t);
}

/* One rank. argv[1] is its actor index g (ring g / N, rank g mod N). */
static void rank_main(int argc, char **argv) {
    (void)argc;
    const int64_t g = strtoll(argv[1], NULL, 10);
    rank_t r = {.g = g, .p = g % C.n, .prev = prev_of(g), .next = next_of(g), .speed = sg_host_get_speed(sg_host_self())};
    compute_slot_t *sl = &g_slot[g];
    if (C.job) rs_jc_rank_route(g, C.host[g], C.host[r.next]);
    for (int64_t k = 0; k < C.steps; k++) {
        rs_step_t st;
        rs_schedule_step(C.s, r.p, k, &st);
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

/* ================================================================================================
 * Setup and results
 * ============================================================================================== */
/* SimGrid's engine and configuration: defaults first, the caller's --cfg after (they win). Returns
 * 0 or -1 (an 'X' record sent when SimGrid refuses an argument). */
static int init_simgrid(const rs_sim_config_t *cfg) {
    sim_settings_t set;
    sim_config_settings(cfg, &set);
    char *argv[SIM_MAX_SETTINGS + 3];
    int argc = 0;
    argv[argc++] = "ringsim-sim";
    argv[argc++] = "--log=root.thres:warning";
    for (int i = 0; i < set.n; i++) {
        size_t len = strlen(set.kv[i]) + 7;
        if (!(argv[argc] = malloc(len))) return -1; /* the child's memory: it ends with the child */
        snprintf(argv[argc++], len, "--cfg=%s", set.kv[i]);
    }
    argv[argc] = NULL;
    sim_put_text(C.out, 'S', SIM_STAGE_INIT, "SimGrid configuration");
    simgrid_init(&argc, argv);
    rs_sim_child_after_init();
    if (argc > 1)
        return fail(RS_ERR_BAD_INPUT, "SimGrid did not accept the argument '%s' (expected --cfg KEY:VALUE)", argv[1]);
    return 0;
}

/* Every rank's host exists (into host[]), every hop has a route (checked here for Full zones; a job's
 * fabric is a DijkstraCache zone, routed only once the simulation runs, and generated with every
 * path). Returns 0 or -1 (an 'X' record sent). */
static int check_platform(const rs_sim_config_t *cfg, const rs_hostmap_t *hm, sg_host_t *host) {
    sim_put_text(C.out, 'S', SIM_STAGE_CHECK, "checking hosts and routes");
    const char *plat_name = cfg->platform_path ? cfg->platform_path : "generated platform";
    for (int64_t r = 0; r < C.total; r++) {
        host[r] = sg_host_by_name(hm->host[r]);
        if (host[r]) continue;
        if (cfg->hostmap_path)
            return fail(RS_ERR_BAD_INPUT, "%s:%d: host '%s' (rank %" PRId64 ") does not exist in platform %s", cfg->hostmap_path,
                        hm->line[r], hm->host[r], r, plat_name);
        return fail(RS_ERR_BAD_INPUT, "platform %s has no host '%s' for rank %" PRId64 " (without --hostmap rank p runs on host gpu<p>)",
                    plat_name, hm->host[r], r);
    }
    if (C.job) return 0;
    xbt_dynar_t links = xbt_dynar_new(sizeof(void *), NULL);
    int rc = 0;
    const bool a2a = rs_schedule_step_a2a_bytes(C.s, C.n) > 0; /* pass-q's return: every pair talks */
    for (int64_t r = 0; r < C.n && C.n > 1 && rc == 0; r++)
        for (int64_t j = 1; j < (a2a ? C.n : 2) && rc == 0; j++) {
            const int64_t q = (r + j) % C.n;
            if (host[r] == host[q]) continue;
            sim_put_text(C.out, 'S', SIM_STAGE_CHECK, "platform %s: route from host '%s' (rank %" PRId64 ") to host '%s' (rank %" PRId64 ")", plat_name,
                  hm->host[r], r, hm->host[q], q);
            xbt_dynar_reset(links);
            sg_host_get_route(host[r], host[q], links);
            if (xbt_dynar_length(links) == 0)
                rc = fail(RS_ERR_BAD_INPUT, "platform %s: no route from host '%s' (rank %" PRId64 ") to host '%s' (rank %" PRId64 ")%s",
                          plat_name, hm->host[r], r, hm->host[q], q,
                          a2a ? " (pass-q's all-to-all return needs a route between every pair)" : "");
        }
    xbt_dynar_free(&links);
    return rc;
}

/* Mailboxes, compute slots and the actors of every rank (and a job's background collectives).
 * Returns 0 or -1. */
static int create_actors(const rs_machine_t *m, const rs_sim_config_t *cfg, sg_host_t *host) {
    char name[64], arg[32];
    C.exclusive = cfg->platform_path == NULL;
    g_slot = calloc((size_t)C.total, sizeof *g_slot);
    if (!g_slot) return -1;
    for (int64_t r = 0; r < C.total; r++) {
        snprintf(name, sizeof name, "rank%" PRId64, r);
        C.mb[r] = sg_mailbox_by_name(name);
        g_slot[r].go = sg_sem_init(0);
        g_slot[r].done = sg_sem_init(0);
        g_slot[r].wake = sg_sem_init(0);
        g_slot[r].started = -1;
    }
    if (C.partial && C.n > 1) /* one ring, generated (the parent checks): hop r's bottleneck link */
        for (int64_t r = 0; r < C.n; r++) {
            if (rs_machine_hop_inter(m, C.n, r)) snprintf(name, sizeof name, "nic%" PRId64 "-up", r);
            else if (cfg->routes == RS_PLATFORM_RING) snprintf(name, sizeof name, "hop%" PRId64, r);
            else snprintf(name, sizeof name, "nvl%" PRId64 "-up", r);
            g_slot[r].out_link = sg_link_by_name(name);
            if (!g_slot[r].out_link) return fail(RS_ERR_RUNTIME, "sim: the generated platform lacks link '%s'", name);
            g_slot[r].out_bw = sg_link_get_bandwidth(g_slot[r].out_link);
        }
    for (int64_t r = 0; r < C.total; r++) {
        snprintf(name, sizeof name, "rank%" PRId64, r);
        snprintf(arg, sizeof arg, "%" PRId64, r);
        const char *av[] = {name, arg};
        sg_actor_create_(name, host[r], rank_main, 2, av);
        snprintf(name, sizeof name, "compute%" PRId64, r);
        if (!C.exclusive || C.slowdown || C.partial) sg_actor_create_(name, host[r], compute_main, 2, av);
    }
    if (C.job && rs_jc_start_background() != 0) return fail(RS_ERR_RUNTIME, "sim: cannot start the background collectives");
    if (rs_schedule_step_a2a_bytes(C.s, C.n) > 0) C.a2a_barrier = sg_barrier_init((unsigned)C.total);
    return 0;
}

/* After the run: the totals, a job's 'J' record, the 'R' record. Returns 0 or -1. */
static int send_results(void) {
    double busy_sum = 0;
    for (int64_t r = 0; r < C.total; r++) {
        if (C.busy[r] > C.sum.busy_max_s) C.sum.busy_max_s = C.busy[r];
        busy_sum += C.busy[r];
    }
    C.sum.busy_mean_s = busy_sum / (double)C.total;
    for (int64_t k = 0; k < C.steps; k++)
        if (C.step_end[k] > C.sum.makespan_s) C.sum.makespan_s = C.step_end[k];
    C.sum.n_steps = C.steps;
    if (C.sum.rank_steps != C.total * C.steps)
        return fail(RS_ERR_RUNTIME, "sim: only %" PRId64 " of %" PRId64 " rank-steps completed (deadlock?)", C.sum.rank_steps,
                    C.total * C.steps);
    if (C.job && rs_jc_write(C.out) != 0) return -1;
    sim_put_results(C.out, &C.sum, C.step_end, C.step_max);
    sim_put_text(C.out, 'S', SIM_STAGE_DONE, "done");
    return ferror(C.out) ? -1 : 0;
}

/* The state for the run, SimGrid set up, the platform loaded and checked, the actors created.
 * Returns 0 or -1. */
static int setup(const sim_child_in_t *in, FILE *out) {
    const rs_problem_t *pb = rs_schedule_problem(in->s);
    memset(&C, 0, sizeof C);
    C.s = in->s;
    C.m = in->m;
    C.pass = pb->pass;
    C.n = pb->n_ranks;
    C.total = in->hm->n_ranks;
    C.job = in->cfg->job != NULL;
    C.slowdown = in->m->cal.comp_slowdown > 1;
    C.partial = rs_machine_partial_overlap(in->m);
    C.steps = rs_schedule_n_steps(in->s);
    C.block = rs_problem_block(pb);
    C.f_eff = rs_machine_flops_eff(in->m, (double)C.block);
    rs_kmodel_init(&C.km, pb, in->m);
    C.events = in->events;
    C.progress = in->progress;
    C.next_progress_s = rs_now_s() + SIM_PROGRESS_S;
    C.out = out;
    C.errc = RS_ERR_RUNTIME;
    C.mb = calloc((size_t)C.total, sizeof *C.mb);
    C.busy = calloc((size_t)C.total, sizeof *C.busy);
    C.step_end = calloc((size_t)C.steps, sizeof *C.step_end);
    C.step_max = calloc((size_t)C.steps, sizeof *C.step_max);
    C.host = calloc((size_t)C.total, sizeof *C.host);
    if (!C.mb || !C.busy || !C.step_end || !C.step_max || !C.host || (C.job && rs_jc_init(in->cfg->job, pb->pass, C.n) != 0))
        return fail(RS_ERR_RUNTIME, "sim: out of memory for %" PRId64 " ranks", C.total);
    if (init_simgrid(in->cfg) != 0) return -1;
    sim_put_text(C.out, 'S', SIM_STAGE_LOAD, "platform %s", in->cfg->platform_path ? in->cfg->platform_path : "(generated)");
    simgrid_load_platform(in->platform);
    if (check_platform(in->cfg, in->hm, C.host) != 0) return -1;
    return create_actors(in->m, in->cfg, C.host);
}

int sim_child_main(const sim_child_in_t *in, FILE *out) {
    if (setup(in, out) != 0) return C.errc == RS_ERR_BAD_INPUT ? RS_EXIT_USAGE : RS_EXIT_FAIL;
    sim_put_text(C.out, 'S', SIM_STAGE_RUN, "simulation");
    const double w0 = rs_now_s();
    simgrid_run();
    C.sum.sim_wall_s = rs_now_s() - w0;
    return send_results() == 0 ? RS_EXIT_OK : C.errc == RS_ERR_BAD_INPUT ? RS_EXIT_USAGE : RS_EXIT_FAIL;
}
