/* sim.c - the SimGrid backend (sim.h): a forked child runs SimGrid, the parent collects results.
 *
 * Child/parent protocol on a pipe, one record = one tag byte + a fixed struct:
 *   'S' text_rec    the child entered a stage (code; tells the parent what an abort means)
 *   'E' rs_event_t  one trace event (only when the caller wants a trace)
 *   'X' text_rec    the child found bad input itself (code RS_ERR_BAD_INPUT: missing host, no route;
 *                   exit 2) or failed (RS_ERR_RUNTIME)
 *   'R' summary_rec the results, followed by 2 * n_steps doubles (step ends, step maxima)
 *   'J' a job's per ring, hop and link results (job_child.h), before 'R'
 *   'P' progress_rec how far the simulation is (simulated time, rank-steps done), every
 *                   RS_SIM_PROGRESS_S of wall time, only when the caller draws a meter (meter.h)
 * SimGrid's stderr goes to an unlinked temporary file; on an abort the parent quotes its first
 * CRITICAL/ERROR line. The child never returns into the caller: it leaves with _exit().
 */
#define _DEFAULT_SOURCE /* mkdtemp, strsignal */
#include "sim.h"

#include "job_child.h"
#include "kernel.h"
#include "meter.h"
#include "output.h"
#include "platform_check.h"
#include "polls.h"
#include "subprocess.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <simgrid/version.h>
#include <xbt/dynar.h>

/* ================================================================================================
 * Records
 * ============================================================================================== */
enum { STAGE_INIT = 0, STAGE_LOAD, STAGE_CHECK, STAGE_RUN, STAGE_DONE };

typedef struct {
    int32_t code;    /* 'S': STAGE_*; 'X': the error's rs_errc_t */
    char text[1000]; /* 'S': what is being done, for messages; 'X': the error, one line */
} text_rec;

typedef struct {
    double makespan_s, t_comp_max_s, t_comm_max_s; /* as rs_sim_result_t */
    double busy_max_s, busy_mean_s;                 /* as rs_sim_result_t */
    double sim_wall_s;                              /* wall time of simgrid_run() */
    uint64_t flops_useful, flops_exec;              /* totals */
    int64_t comm_bound_steps, rank_steps, n_steps;  /* counts; n_steps doubles x 2 follow */
} summary_rec;

typedef struct {
    double sim_time_s;                              /* simulated clock */
    int64_t rank_steps, total;                      /* done, to do */
} progress_rec;

#define RS_SIM_PROGRESS_S 0.2 /* wall seconds between 'P' records */

void rs_sim_config_default(rs_sim_config_t *c) {
    memset(c, 0, sizeof *c);
    c->network_model = "CM02";
    c->routes = RS_PLATFORM_RING;
}

void rs_sim_result_free(rs_sim_result_t *r) {
    if (!r) return;
    free(r->step_end_s);
    free(r->step_max_s);
    r->step_end_s = r->step_max_s = NULL;
    if (r->job) rs_job_result_free(r->job);
    free(r->job);
    r->job = NULL;
}

const char *rs_sim_simgrid_version(void) {
#define RS_STR2(x) #x
#define RS_STR(x) RS_STR2(x)
    return RS_STR(SIMGRID_VERSION_MAJOR) "." RS_STR(SIMGRID_VERSION_MINOR) "." RS_STR(SIMGRID_VERSION_PATCH);
}

/* ================================================================================================
 * Estimates (docs/benchmarks.md: a CM02 ring of N ranks costs about 30 us + 0.05 us x N per
 * rank-step in the child (0.05: an upper bound), whose resident memory grows by about 24 KiB per rank actor)
 * ============================================================================================== */
void rs_sim_estimate_rings(int64_t ring_ranks, int64_t rings, rs_pass_t pass, int trace, bool all_pairs, rs_estimate_t *e) {
    const double n = (double)ring_ranks * (double)rings, steps = pass == RS_PASS_BACKWARD ? (double)ring_ranks + 1 : (double)ring_ranks;
    e->rank_steps = n * steps;
    e->time_s = 0.3 + e->rank_steps * (30e-6 + 0.05e-6 * n + (trace == RS_EST_TRACE_FILE ? 30e-6 : 0));
    e->mem_bytes = 16e6 + n * 24e3 + steps * 16 + (trace ? e->rank_steps * 300 : 0);
    if (all_pairs) e->mem_bytes += n * n * 256; /* a route per pair */
}

void rs_sim_estimate(const rs_problem_t *p, const rs_sim_config_t *cfg, int trace, rs_estimate_t *e) {
    rs_sim_estimate_rings(p->n_ranks, cfg && cfg->job ? cfg->job->placement.n_rings : 1, p->pass, trace,
                          cfg && cfg->routes == RS_PLATFORM_ALL_PAIRS, e);
}

double rs_sim_timeout(const rs_problem_t *p, const rs_sim_config_t *cfg) {
    if (cfg && cfg->timeout_s > 0) return cfg->timeout_s;
    rs_estimate_t e;
    rs_sim_estimate(p, cfg, RS_EST_NO_TRACE, &e);
    return fmax(60, 10 * e.time_s);
}

/* ================================================================================================
 * Child: the simulation
 * ============================================================================================== */
static struct {
    const rs_schedule_t *s;   /* the schedule */
    const rs_machine_t *m;    /* the machine */
    int64_t n, steps, block;  /* N (ranks per ring), steps of the pass, B */
    int64_t total;            /* rank actors: rings x N; actor g is ring g / N's rank g mod N */
    bool job;                 /* a job of concurrent rings (job_child.h keeps its books) */
    sg_host_t *host;          /* [total] host of each rank */
    rs_kmodel_t km;           /* the step cost (model/4-cost/kernel.h) */
    double f_eff;             /* F_eff(B): FLOPs per second of compute time */
    bool events;              /* stream events to the parent */
    bool exclusive;           /* generated platform: one rank per host, constant speed */
    FILE *out;                /* the pipe */
    sg_mailbox_t *mb;         /* [total] mailbox of each rank (its receives) */
    double *busy;             /* [total] summed compute time */
    double *step_end;         /* [steps] latest end */
    double *step_max;         /* [steps] longest duration */
    summary_rec sum;          /* running totals */
    bool progress;            /* send 'P' records */
    double next_progress_s;   /* wall time of the next one */
    sg_bar_t a2a_barrier;     /* pass-q's return: every rank has posted it (NULL without) */
} C;

static void put_rec(char tag, const void *rec, size_t size) {
    fputc(tag, C.out);
    fwrite(rec, size, 1, C.out);
}

/* A text record, flushed (the parent must know the stage if SimGrid aborts next): 'S' entering stage
 * `code`, or 'X' the child's error `code`. Returns the exit code that goes with an 'X' record. */
static int put_text(char tag, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int put_text(char tag, int code, const char *fmt, ...) {
    text_rec r = {.code = code};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r.text, sizeof r.text, fmt, ap);
    va_end(ap);
    put_rec(tag, &r, sizeof r);
    fflush(C.out);
    return code == RS_ERR_BAD_INPUT ? RS_EXIT_USAGE : RS_EXIT_FAIL;
}

/* After a rank-step: a 'P' record when RS_SIM_PROGRESS_S have passed (the clock is read every 64). */
static void put_progress(void) {
    if (!C.progress || (C.sum.rank_steps & 63) != 0) return;
    const double now = rs_now_s();
    if (now < C.next_progress_s) return;
    C.next_progress_s = now + RS_SIM_PROGRESS_S;
    progress_rec r = {simgrid_get_clock(), C.sum.rank_steps, C.total * C.steps};
    put_rec('P', &r, sizeof r);
    fflush(C.out);
}

static void put_event(int64_t rank, int64_t step, rs_event_kind_t kind, int64_t peer, double t0, double t1,
                      double flops, double bytes) {
    rs_event_t ev = {(int32_t)rank, (int32_t)step, rs_schedule_problem(C.s)->pass, kind, (int32_t)peer,
                     t0, t1, flops, bytes};
    put_rec('E', &ev, sizeof ev);
}

/* Per-rank compute helper. SimGrid 3.32's C API has no wait over an exec and comms together (and
 * its sg_comm_wait_any_for() frees the comms when it times out), so a rank that cannot predict its
 * exec's end (user platform: hosts may be shared or vary in speed; --slowdown: the rate changes)
 * has a second actor on its host that runs the step's exec: the rank posts the work (go), waits for
 * its transfers one by one, then for the helper (done). Both activities start at the step start.
 *
 * Compute slowdown sigma (the walk's semantics, model/4-cost/cost.h): the exec runs at speed / sigma
 * while any of the rank's hops (out: p -> p+1, in: p-1 -> p) has a transfer in flight, i.e. from
 * the moment both ends of the hop have posted the step (the later step start) to the completion of
 * the hop's last flow; at full speed otherwise. Hop activity is counted in g_active[rank]; every
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
#define RS_SIM_TINY_S 1e-15

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
            if (dt <= RS_SIM_TINY_S) {
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

/* pass-q's all-to-all step (the walk's semantics, model/4-cost/cost.h): the exchange starts when the
 * last rank has posted it (a barrier), then the rank puts its partial to every other rank and gets one
 * from each; on the all-pairs platform the flows share each device's links as rs_machine_a2a_s
 * counts. Statistics and events as the walk's. */
static void a2a_step(int64_t g, int64_t k, const rs_step_t *st) {
    static char payload;
    const int64_t p = g % C.n, n = C.n;
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
        put_event(p, k, RS_EV_SEND, -1, t0, te, 0, (double)st->send_bytes);
        put_event(p, k, RS_EV_RECV, -1, t0, te, 0, (double)st->recv_bytes);
        put_event(p, k, RS_EV_STEP, -1, t0, te, 0, 0);
    }
}

/* One rank. argv[1] is its actor index g (ring g / N, rank g mod N). */
static void rank_main(int argc, char **argv) {
    (void)argc;
    const int64_t g = strtoll(argv[1], NULL, 10), p = g % C.n;
    const int64_t prev = prev_of(g), next = next_of(g);
    compute_slot_t *sl = &g_slot[g];
    const double speed = sg_host_get_speed(sg_host_self());
    const bool slowdown = C.m->cal.comp_slowdown > 1, partial = rs_machine_partial_overlap(C.m);
    static char payload; /* SimGrid needs a non-NULL payload; nothing is read from it */
    if (C.job) rs_jc_rank_route(g, C.host[g], C.host[next]);
    rs_krank_t acc = {0}; /* merges this rank defers to its epilogue */
    for (int64_t k = 0; k < C.steps; k++) {
        rs_step_t st;
        rs_schedule_step(C.s, p, k, &st);
        if (st.a2a) {
            sl->started = k;
            a2a_step(g, k, &st);
            continue;
        }
        const double t0 = simgrid_get_clock();
        if (C.job) rs_jc_step_start(g, k, t0);
        double recv_bytes = 0; /* the step's incoming bytes: host cost and the eta of the hop */
        for (int i = 0; i < st.n_recv; i++) recv_bytes += (double)st.recv[i].bytes;
        const double reused = (double)rs_schedule_step_reused_bytes(C.s, k); /* received into the buffer sent at k - 1 */
        const double tc = rs_kernel_step_s(&C.km, &st, &acc, st.n_recv, recv_bytes, reused);
        /* the hop's eta; polled progress: from this rank's own polls (model/4-cost/polls.h) */
        const double eta = st.n_recv > 0 && tc > 0 && rs_calibration_polled(&C.m->cal)
                               ? rs_step_eta(C.m, recv_bytes,
                                             recv_bytes * rs_machine_step_xfer_factor(C.m, recv_bytes, reused) / rs_machine_hop_bw(C.m, C.n, prev % C.n), tc,
                                             rs_step_poll_frac(C.m, rs_schedule_problem(C.s), &st, recv_bytes, reused))
                               : rs_machine_overlap(C.m, recv_bytes);
        const bool moves = st.n_send + st.n_recv > 0;
        sl->started = k;
        if (slowdown && moves) { /* a hop is in flight once both its ends have started step k */
            if (g_slot[next].started >= k) hop_activity(g, +1);
            if (g_slot[prev].started >= k && prev != g) hop_activity(prev, +1);
        }
        if (partial && tc > 0 && st.n_recv > 0 && eta < 1) { /* incoming transfers progress at eta while computing */
            /* SimGrid cannot run a link at 0 B/s: eta = 0 becomes 1e-12 (moves 1e-12 of the bytes) */
            sg_link_set_bandwidth(g_slot[prev].out_link, fmax(eta, 1e-12) * g_slot[prev].out_bw);
            sl->throttled = 1;
        }
        /* Fast path (generated platform: this rank alone on its host, constant speed): the exec
         * runs in this actor; if it ends before the last transfer (the wait below returns at once)
         * its end is t0 + amount / speed, which is what SimGrid computed. Otherwise the helper runs
         * it. The exec is posted before the transfers, as in a bare ring (cheaper for SimGrid). */
        sg_exec_t ex = NULL;
        if (moves && tc > 0 && C.exclusive && !slowdown && !partial) {
            ex = sg_actor_exec_async(tc * C.f_eff);
        } else if (moves && tc > 0) {
            sl->amount = tc * C.f_eff;
            sg_sem_release(sl->go);
        }
        sg_comm_t comm[2 * RS_MAX_TRANSFERS];
        int is_recv[2 * RS_MAX_TRANSFERS], nc = 0, n_send_left = st.n_send;
        void *got = NULL;
        double send_bytes = 0; /* the transfer curve's g at the hop's bytes: SimGrid moves bytes x g (cost.c's walk) */
        for (int i = 0; i < st.n_send; i++) send_bytes += (double)st.send[i].bytes;
        const double gx = rs_machine_step_xfer_factor(C.m, send_bytes, reused);
        for (int i = 0; i < st.n_send; i++) {
            is_recv[nc] = 0;
            comm[nc++] = sg_mailbox_put_async(C.mb[next], &payload, (long)llround((double)st.send[i].bytes * gx));
        }
        for (int i = 0; i < st.n_recv; i++) {
            is_recv[nc] = 1;
            comm[nc++] = sg_mailbox_get_async(C.mb[g], &got);
        }
        double end_send = t0, end_recv = t0, end_c = t0;
        if (!moves) { /* nothing to overlap: run the exec here */
            if (tc > 0) sg_actor_execute(tc * C.f_eff);
            end_c = simgrid_get_clock();
        } else {
            if (!C.events && !slowdown && !C.job) { /* no per-transfer ends needed: one wait for all */
                sg_comm_wait_all(comm, (size_t)nc);
                end_send = end_recv = simgrid_get_clock();
                nc = 0;
            }
            while (nc > 0) { /* each completion time is an event end */
                ssize_t idx = sg_comm_wait_any(comm, (size_t)nc);
                const double t = simgrid_get_clock();
                if (is_recv[idx]) {
                    end_recv = t;
                } else {
                    end_send = t;
                    if (--n_send_left == 0 && slowdown) hop_activity(g, -1); /* hop g drained */
                    if (n_send_left == 0 && C.job) rs_jc_hop_done(g, k, t0, t, (double)st.send_bytes);
                }
                comm[idx] = comm[nc - 1];
                is_recv[idx] = is_recv[nc - 1];
                nc--;
            }
            if (ex) {
                const double before = simgrid_get_clock();
                sg_exec_wait(ex);
                const double after = simgrid_get_clock();
                end_c = after > before ? after : fmin(before, t0 + tc * C.f_eff / speed);
            } else if (tc > 0) {
                sg_sem_acquire(sl->done);
                end_c = sl->end_c;
            }
        }
        const double end_x = fmax(end_send, end_recv), end_cx = fmax(end_c, end_x);
        double te = end_cx;
        if (acc.after_s > 0) { /* the merges of the arrived dK,dV partial, after both (kernel.h) */
            sg_actor_execute(acc.after_s * C.f_eff);
            te = simgrid_get_clock();
        }
        double end_step = end_cx; /* the step event's end */
        if (k == C.steps - 1) { /* the pass epilogue after the ring loop, in the last step's event (kernel.h) */
            const double epi = rs_kernel_rank_epilogue_s(&C.km, &acc, p);
            if (epi > 0) {
                sg_actor_execute(epi * C.f_eff);
                te = end_step = simgrid_get_clock();
            }
        }
        if (C.job) rs_jc_rank_end(g, te);
        /* statistics, as rs_walk_t defines them */
        C.busy[g] += end_c - t0 + (te - end_cx);
        C.sum.rank_steps++;
        put_progress();
        C.sum.flops_useful += st.flops_useful;
        C.sum.flops_exec += st.flops_exec;
        if (end_c - t0 > C.sum.t_comp_max_s) C.sum.t_comp_max_s = end_c - t0;
        if (moves) {
            if (end_x - t0 > C.sum.t_comm_max_s) C.sum.t_comm_max_s = end_x - t0;
            if (end_x > end_c) C.sum.comm_bound_steps++;
        }
        if (te > C.step_end[k]) C.step_end[k] = te;
        if (te - t0 > C.step_max[k]) C.step_max[k] = te - t0;
        if (C.events) {
            if (st.has_compute) /* it starts after the merges before the calls (kernel.h) */
                put_event(p, k, RS_EV_COMPUTE, -1, tc > 0 ? t0 + acc.before_s : t0, end_c, (double)st.flops_exec, 0);
            if (moves) {
                put_event(p, k, RS_EV_SEND, st.send_peer, t0, end_send, 0, (double)st.send_bytes);
                put_event(p, k, RS_EV_RECV, st.recv_peer, t0, end_recv, 0, (double)st.recv_bytes);
            }
            put_event(p, k, RS_EV_STEP, -1, t0, end_step, 0, 0); /* the arrived partial's merges follow it */
        }
    }
    sl->stop = 1;
    sg_sem_release(sl->go);
}

/* SimGrid's engine and configuration: defaults first, the caller's --cfg after (they win). Returns
 * 0 or the exit code. */
static int child_init_simgrid(const rs_sim_config_t *cfg) {
    char *argv[RS_SIM_MAX_CFG + 16];
    char model_arg[160];
    int argc = 0;
    argv[argc++] = "ringsim-sim";
    argv[argc++] = "--log=root.thres:warning";
    snprintf(model_arg, sizeof model_arg, "--cfg=network/model:%s", cfg->network_model ? cfg->network_model : "CM02");
    argv[argc++] = model_arg;
    argv[argc++] = "--cfg=network/TCP-gamma:0";
    argv[argc++] = "--cfg=network/crosstraffic:0";
    argv[argc++] = "--cfg=surf/precision:1e-15";
    argv[argc++] = "--cfg=maxmin/precision:1e-15";
    /* SimGrid 3.32's lazy network update re-solves, when a flow starts, only the constraints reached
     * from its route's first link; a flow whose first link another starting flow already marked keeps
     * its other links out of the solve (it ran through a shared NIC at full rate: docs/sim.md). Full
     * update is exact. Generated ring platforms give each flow its hop's own first link. */
    if (cfg->job || cfg->platform_path || cfg->routes == RS_PLATFORM_ALL_PAIRS) argv[argc++] = "--cfg=network/optim:Full";
    char *user[RS_SIM_MAX_CFG];
    for (int i = 0; i < cfg->n_cfg && i < RS_SIM_MAX_CFG; i++) {
        size_t len = strlen(cfg->cfg[i]) + 7;
        user[i] = malloc(len);
        if (!user[i]) return RS_EXIT_FAIL;
        snprintf(user[i], len, "--cfg=%s", cfg->cfg[i]);
        argv[argc++] = user[i];
    }
    argv[argc] = NULL;
    put_text('S', STAGE_INIT, "SimGrid configuration");
    simgrid_init(&argc, argv);
    rs_sim_child_after_init();
    if (argc > 1)
        return put_text('X', RS_ERR_BAD_INPUT, "SimGrid did not accept the argument '%s' (expected --cfg KEY:VALUE)", argv[1]);
    return 0;
}

/* Every rank's host exists (into host[]), every hop has a route (checked here for Full zones; a job's
 * fabric is a DijkstraCache zone, routed only once the simulation runs, and generated with every
 * path). Returns 0 or the exit code. */
static int child_check_platform(const rs_sim_config_t *cfg, const rs_hostmap_t *hm, sg_host_t *host) {
    put_text('S', STAGE_CHECK, "checking hosts and routes");
    const char *plat_name = cfg->platform_path ? cfg->platform_path : "generated platform";
    for (int64_t r = 0; r < C.total; r++) {
        host[r] = sg_host_by_name(hm->host[r]);
        if (host[r]) continue;
        if (cfg->hostmap_path)
            return put_text('X', RS_ERR_BAD_INPUT, "%s:%d: host '%s' (rank %" PRId64 ") does not exist in platform %s",
                             cfg->hostmap_path, hm->line[r], hm->host[r], r, plat_name);
        return put_text('X', RS_ERR_BAD_INPUT,
                         "platform %s has no host '%s' for rank %" PRId64 " (without --hostmap rank p runs on host gpu<p>)",
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
            put_text('S', STAGE_CHECK, "platform %s: route from host '%s' (rank %" PRId64 ") to host '%s' (rank %" PRId64 ")",
                     plat_name, hm->host[r], r, hm->host[q], q);
            xbt_dynar_reset(links);
            sg_host_get_route(host[r], host[q], links);
            if (xbt_dynar_length(links) == 0)
                rc = put_text('X', RS_ERR_BAD_INPUT,
                              "platform %s: no route from host '%s' (rank %" PRId64 ") to host '%s' (rank %" PRId64 ")%s",
                              plat_name, hm->host[r], r, hm->host[q], q,
                              a2a ? " (pass-q's all-to-all return needs a route between every pair)" : "");
        }
    xbt_dynar_free(&links);
    return rc;
}

/* Mailboxes, compute slots and the actors of every rank (and a job's background collectives).
 * Returns 0 or the exit code. */
static int child_create_actors(const rs_machine_t *m, const rs_sim_config_t *cfg, sg_host_t *host) {
    char name[64], arg[32];
    C.exclusive = cfg->platform_path == NULL;
    g_slot = calloc((size_t)C.total, sizeof *g_slot);
    if (!g_slot) return RS_EXIT_FAIL;
    for (int64_t r = 0; r < C.total; r++) {
        snprintf(name, sizeof name, "rank%" PRId64, r);
        C.mb[r] = sg_mailbox_by_name(name);
        g_slot[r].go = sg_sem_init(0);
        g_slot[r].done = sg_sem_init(0);
        g_slot[r].wake = sg_sem_init(0);
        g_slot[r].started = -1;
    }
    if (rs_machine_partial_overlap(m) && C.n > 1) /* one ring, generated (the parent checks): hop r's bottleneck link */
        for (int64_t r = 0; r < C.n; r++) {
            if (rs_machine_hop_inter(m, C.n, r)) snprintf(name, sizeof name, "nic%" PRId64 "-up", r);
            else if (cfg->routes == RS_PLATFORM_RING) snprintf(name, sizeof name, "hop%" PRId64, r);
            else snprintf(name, sizeof name, "nvl%" PRId64 "-up", r);
            g_slot[r].out_link = sg_link_by_name(name);
            if (!g_slot[r].out_link) return put_text('X', RS_ERR_RUNTIME, "sim: the generated platform lacks link '%s'", name);
            g_slot[r].out_bw = sg_link_get_bandwidth(g_slot[r].out_link);
        }
    for (int64_t r = 0; r < C.total; r++) {
        snprintf(name, sizeof name, "rank%" PRId64, r);
        snprintf(arg, sizeof arg, "%" PRId64, r);
        const char *av[] = {name, arg};
        sg_actor_create_(name, host[r], rank_main, 2, av);
        snprintf(name, sizeof name, "compute%" PRId64, r);
        if (!C.exclusive || m->cal.comp_slowdown > 1 || rs_machine_partial_overlap(m)) sg_actor_create_(name, host[r], compute_main, 2, av);
    }
    if (C.job && rs_jc_start_background() != 0) return put_text('X', RS_ERR_RUNTIME, "sim: cannot start the background collectives");
    if (rs_schedule_step_a2a_bytes(C.s, C.n) > 0) C.a2a_barrier = sg_barrier_init((unsigned)C.total);
    return 0;
}

/* After the run: the totals, the 'R' record and the per-step figures. Returns the exit code. */
static int child_results(void) {
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
        return put_text('X', RS_ERR_RUNTIME, "sim: only %" PRId64 " of %" PRId64 " rank-steps completed (deadlock?)", C.sum.rank_steps,
                         C.total * C.steps);
    if (C.job && rs_jc_write(C.out) != 0) return RS_EXIT_FAIL;
    put_rec('R', &C.sum, sizeof C.sum);
    fwrite(C.step_end, sizeof(double), (size_t)C.steps, C.out);
    fwrite(C.step_max, sizeof(double), (size_t)C.steps, C.out);
    put_text('S', STAGE_DONE, "done");
    return ferror(C.out) ? RS_EXIT_FAIL : RS_EXIT_OK;
}

/* Child body; returns the exit code. hm maps every rank actor (rings x N) to its host. */
static int child_main(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg,
                      const char *platform, const rs_hostmap_t *hm, bool events, bool progress, FILE *out) {
    const rs_problem_t *pb = rs_schedule_problem(s);
    memset(&C, 0, sizeof C);
    C.s = s;
    C.m = m;
    C.n = pb->n_ranks;
    C.total = hm->n_ranks;
    C.job = cfg->job != NULL;
    C.steps = rs_schedule_n_steps(s);
    C.block = rs_problem_block(pb);
    C.f_eff = rs_machine_flops_eff(m, (double)C.block);
    rs_kmodel_init(&C.km, pb, m);
    C.events = events;
    C.progress = progress;
    C.next_progress_s = rs_now_s() + RS_SIM_PROGRESS_S;
    C.out = out;
    C.mb = calloc((size_t)C.total, sizeof *C.mb);
    C.busy = calloc((size_t)C.total, sizeof *C.busy);
    C.step_end = calloc((size_t)C.steps, sizeof *C.step_end);
    C.step_max = calloc((size_t)C.steps, sizeof *C.step_max);
    sg_host_t *host = C.host = calloc((size_t)C.total, sizeof *host);
    if (!C.mb || !C.busy || !C.step_end || !C.step_max || !host || (C.job && rs_jc_init(cfg->job, pb->pass, C.n) != 0))
        return put_text('X', RS_ERR_RUNTIME, "sim: out of memory for %" PRId64 " ranks", C.total);
    int rc = child_init_simgrid(cfg);
    if (rc != 0) return rc;
    put_text('S', STAGE_LOAD, "platform %s", cfg->platform_path ? cfg->platform_path : "(generated)");
    simgrid_load_platform(platform);
    if ((rc = child_check_platform(cfg, hm, host)) != 0 || (rc = child_create_actors(m, cfg, host)) != 0) return rc;
    put_text('S', STAGE_RUN, "simulation");
    const double w0 = rs_now_s();
    simgrid_run();
    C.sum.sim_wall_s = rs_now_s() - w0;
    return child_results();
}

/* ================================================================================================
 * Parent
 * ============================================================================================== */
/* Read exactly n bytes. Returns 1, 0 on EOF before the first byte, -1 on error or short read. */
static int read_full(int fd, void *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) return got == 0 ? 0 : -1;
        got += (size_t)r;
    }
    return 1;
}

/* First CRITICAL/ERROR line SimGrid wrote, without its "[time] file:line: [category/LEVEL] "
 * prefix, skipping "Exiting now." and backtraces. */
static void simgrid_message(FILE *errf, char *msg, size_t len) {
    snprintf(msg, len, "SimGrid aborted without a message");
    if (!errf) return;
    rewind(errf);
    char line[2048];
    while (fgets(line, sizeof line, errf)) {
        char *lvl = strstr(line, "/CRITICAL] ");
        if (!lvl) lvl = strstr(line, "/ERROR] ");
        if (!lvl) continue;
        char *text = strchr(lvl, ']') + 2;
        text[strcspn(text, "\r\n")] = '\0';
        if (strncmp(text, "Exiting now", 11) == 0 || strncmp(text, "Current backtrace", 17) == 0) continue;
        if (strncmp(text, "Uncaught exception ", 19) == 0) {
            char *colon = strstr(text, ": ");
            if (colon) text = colon + 2;
        }
        snprintf(msg, len, "%s", text);
        return;
    }
}

static void fill_meta(rs_trace_t *t, const rs_schedule_t *s, const rs_sim_config_t *cfg, const char *platform_desc) {
    rs_trace_meta_problem(t, rs_schedule_problem(s));
    rs_trace_set_meta(t, "backend", "simgrid");
    rs_trace_set_meta(t, "sim.simgrid_version", "%s", rs_sim_simgrid_version());
    rs_trace_set_meta(t, "sim.platform", "%s", platform_desc);
    if (cfg->hostmap_path) rs_trace_set_meta(t, "sim.hostmap", "%s", cfg->hostmap_path);
    rs_trace_set_meta(t, "sim.network_model", "%s", cfg->network_model ? cfg->network_model : "CM02");
    char buf[1024] = "network/TCP-gamma:0 network/crosstraffic:0 surf/precision:1e-15 maxmin/precision:1e-15";
    if (cfg->job || cfg->platform_path || cfg->routes == RS_PLATFORM_ALL_PAIRS)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), " network/optim:Full");
    for (int i = 0; i < cfg->n_cfg; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, sizeof buf - l, " %s", cfg->cfg[i]);
    }
    rs_trace_set_meta(t, "sim.cfg", "%s", buf);
}

void rs_sim_child_after_init(void) { signal(SIGINT, SIG_DFL); }

FILE *rs_sim_child_pipe(FILE *log, const int fds[2]) {
    close(fds[0]);
    rs_sim_child_prepare(log);
    return fdopen(fds[1], "w");
}

void rs_sim_child_prepare(FILE *log) {
    struct rlimit nocore = {0, 0};
    setrlimit(RLIMIT_CORE, &nocore); /* SimGrid aborts on bad input: no core file */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);          /* Ctrl-C ends the simulation, whatever handler the caller set */
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* and so does the end of the caller: no orphan runs on */
    dup2(fileno(log), STDERR_FILENO);
    dup2(fileno(log), STDOUT_FILENO);
}

/* What a job cannot run with, and its own consistency. Returns 0 or -1 with err (bad input). */
static int job_check(const rs_machine_t *m, const rs_sim_config_t *cfg, int64_t n, bool trace, rs_err_t *err) {
    const rs_job_t *j = cfg->job;
    if (rs_job_validate(j, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    const char *why = cfg->platform_path ? "--platform (a job runs on its generated fabric; map one ring with --hostmap)"
                      : cfg->routes != RS_PLATFORM_RING ? "--all-pairs (the fabric routes every pair already)"
                      : m->perturb.n_degraded > 0 ? "--degrade (a hop of a shared fabric has no link of its own)"
                      : rs_machine_partial_overlap(m) ? "an overlap below 1 (a shared link cannot slow one flow)"
                      : trace ? "--trace/--chrome (one trace holds one ring)" : NULL;
    if (why) return rs_errc(err, RS_ERR_BAD_INPUT, "concurrent rings (--tp/--dp/--map/--fabric...) cannot be combined with %s", why);
    if (j->placement.ring_ranks != n)
        return rs_errc(err, RS_ERR_BAD_INPUT, "job: rings of %" PRId64 " ranks, the problem has -N %" PRId64, j->placement.ring_ranks, n);
    return 0;
}

/* Every rank actor of a job (rings x N) on host gpu<device>. Returns 0 or -1 with err. */
static int job_hostmap(const rs_job_t *j, rs_hostmap_t *hm, rs_err_t *err) {
    const int64_t total = j->placement.n_rings * j->placement.ring_ranks;
    if (rs_hostmap_identity(total, hm, err) != 0) return -1;
    char name[64];
    for (int64_t g = 0; g < total; g++) {
        snprintf(name, sizeof name, "gpu%" PRId64, j->placement.device[g]);
        char *dup = strdup(name);
        if (!dup) {
            rs_hostmap_free(hm);
            return rs_errf(err, "job: out of memory");
        }
        free(hm->host[g]);
        hm->host[g] = dup;
    }
    return 0;
}

/* The generated platform into path (and cfg->platform_out); its description into desc. Returns 0 or
 * -1 with err. */
static int write_platform(const char *path, const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg,
                          char *desc, size_t len, rs_err_t *err) {
    const rs_problem_t *pb = rs_schedule_problem(s);
    if (cfg->job) {
        rs_fabric_describe(&cfg->job->fabric, desc, len);
        if (rs_fabric_write_file(path, &cfg->job->fabric, err) != 0) return -1;
        return cfg->platform_out ? rs_fabric_write_file(cfg->platform_out, &cfg->job->fabric, err) : 0;
    }
    rs_platform_describe(m, pb->n_ranks, desc, len);
    int rc = rs_platform_write_file(path, m, pb->n_ranks, (double)rs_problem_block(pb), cfg->routes, err);
    if (rc == 0 && cfg->platform_out)
        rc = rs_platform_write_file(cfg->platform_out, m, pb->n_ranks, (double)rs_problem_block(pb), cfg->routes, err);
    return rc;
}

/* What pass-q's all-to-all return cannot run with. Returns 0 or -1 with err (bad input). */
static int check_a2a(const rs_machine_t *m, const rs_sim_config_t *cfg, rs_err_t *err) {
    if (cfg->job)
        return rs_errc(err, RS_ERR_BAD_INPUT, "concurrent rings (--tp/--dp/--map/--fabric...) run pass-kv; --ring pass-q and decode return "
                            "their partials in an all-to-all across the ring");
    if (m->perturb.n_degraded > 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--degrade with --ring pass-q or decode: the all-to-all return shares a degraded link with "
                            "other flows, which the walk's all-to-all (tier bandwidths) does not model");
    return 0;
}

/* SimGrid network models this backend runs: ns-3 (not built into this SimGrid: it hangs) and unknown
 * names are refused before a child starts. */
static const char *const net_models[] = {"CM02", "LV08", "SMPI", "IB", "Constant", NULL};

static int check_net_model(const char *opt, const char *m, rs_err_t *err) {
    for (const char *const *k = net_models; *k; k++)
        if (!strcmp(m, *k)) return 0;
    if (!strcasecmp(m, "ns-3") || !strcasecmp(m, "ns3"))
        return rs_errf(err, "%s%s: ns-3 is not supported (this SimGrid has no ns-3: its child hangs); expected CM02, LV08, "
                            "SMPI, IB or Constant", opt, m);
    return rs_errf(err, "%s%s: unknown network model; expected CM02, LV08, SMPI, IB or Constant", opt, m);
}

/* A --cfg KEY:VALUE that SimGrid hangs or crashes on, refused with the accepted range. */
static int check_setting(const char *kv, rs_err_t *err) {
    const char *colon = strchr(kv, ':');
    if (!colon || colon == kv) return rs_errf(err, "--cfg '%s': expected KEY:VALUE (e.g. network/model:LV08)", kv);
    const size_t kl = (size_t)(colon - kv);
    const char *v = colon + 1;
    char opt[300];
    snprintf(opt, sizeof opt, "--cfg %.*s:", (int)kl, kv);
    if (kl == 13 && !strncmp(kv, "network/model", kl)) return check_net_model(opt, v, err);
    static const struct {
        const char *key;
        double min;
        bool open;          /* min itself refused */
        const char *rule;
    } num[] = {{"surf/precision", 0, true, "a number > 0 (0 or below: SimGrid never converges)"},
               {"maxmin/precision", 0, true, "a number > 0 (below: SimGrid crashes)"},
               {"network/latency-factor", 0, true, "a number > 0"},
               {"network/bandwidth-factor", 0, true, "a number > 0"},
               {"network/TCP-gamma", 0, false, "a number >= 0"},
               {"contexts/stack-size", 64, false, "a number of KiB >= 64 (smaller: the actors crash)"}};
    for (size_t i = 0; i < sizeof num / sizeof num[0]; i++) {
        if (strlen(num[i].key) != kl || strncmp(kv, num[i].key, kl)) continue;
        char *end = NULL;
        const double x = strtod(v, &end);
        if (end == v || *end || !isfinite(x) || x < num[i].min || (num[i].open && x == num[i].min))
            return rs_errf(err, "--cfg %s: expected %s", kv, num[i].rule);
    }
    return 0;
}

/* What the caller asked for, before anything is started. Returns 0 or -1 with err (bad input). */
static int check_input(const rs_machine_t *m, int64_t n, const rs_sim_config_t *cfg, bool trace, rs_err_t *err) {
    if (rs_machine_validate(m, n, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    if (m->loopback)
        return rs_errc(err, RS_ERR_BAD_INPUT, "loopback machine (each rank alone on one device): the walk predicts it; the "
                            "simulator runs the real ring");
    if (rs_machine_partial_overlap(m) && cfg->platform_path)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--overlap %g needs a generated platform: on --platform %s the simulator cannot tell "
                            "which link carries a hop", m->cal.overlap, cfg->platform_path);
    if (cfg->n_cfg > RS_SIM_MAX_CFG)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--cfg: at most %d settings", RS_SIM_MAX_CFG);
    if (cfg->hostmap_path && !cfg->platform_path)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--hostmap %s: needs --platform FILE (generated platforms map rank p to gpu<p>)",
                       cfg->hostmap_path);
    if (cfg->platform_path && cfg->routes != RS_PLATFORM_RING)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--all-pairs: a user platform (--platform %s) brings its own routes", cfg->platform_path);
    if (cfg->network_model && check_net_model("--network-model ", cfg->network_model, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    for (int i = 0; i < cfg->n_cfg; i++)
        if (check_setting(cfg->cfg[i], err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    if (cfg->timeout_s < 0 || !isfinite(cfg->timeout_s))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--timeout %g: must be > 0 seconds", cfg->timeout_s);
    return cfg->job ? job_check(m, cfg, n, trace, err) : 0;
}

/* The platform file (the user's, or generated into a new temporary directory tmpdir, "" when none)
 * and the rank-to-host map. Returns 0, or -1 with err (bad input or runtime; nothing to free then). */
static int prepare_platform(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg, rs_hostmap_t *hm,
                            char *tmpdir, size_t tmplen, char *platform, size_t platlen, rs_sim_result_t *out,
                            rs_err_t *err) {
    const rs_problem_t *pb = rs_schedule_problem(s);
    const int64_t n = pb->n_ranks;
    tmpdir[0] = 0;
    if (cfg->platform_path) {
        if (rs_platform_check_file(cfg->platform_path, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT); /* before SimGrid aborts on it */
        int rc = cfg->hostmap_path ? rs_hostmap_load(cfg->hostmap_path, n, hm, err) : rs_hostmap_identity(n, hm, err);
        if (rc != 0) return cfg->hostmap_path ? rs_err_mark(err, RS_ERR_BAD_INPUT) : -1;
        snprintf(out->platform, sizeof out->platform, "%s", cfg->platform_path);
        snprintf(platform, platlen, "%s", cfg->platform_path);
        return 0;
    }
    if ((cfg->job ? job_hostmap(cfg->job, hm, err) : rs_hostmap_identity(n, hm, err)) != 0) return -1;
    if (rs_out_tmpdir("sim", tmpdir, tmplen, err) != 0) { /* removed by a signal, or below */
        tmpdir[0] = 0;
        rs_hostmap_free(hm);
        return -1;
    }
    snprintf(platform, platlen, "%s/platform.xml", tmpdir);
    if (write_platform(platform, s, m, cfg, out->platform, sizeof out->platform, err) != 0) {
        rs_out_tmpdir_remove(tmpdir);
        tmpdir[0] = 0;
        rs_hostmap_free(hm);
        return -1;
    }
    return 0;
}

/* The SimGrid child: its arguments (rs_spawn_t's fn). */
typedef struct {
    const rs_schedule_t *s;
    const rs_machine_t *m;
    const rs_sim_config_t *cfg;
    const char *platform;
    const rs_hostmap_t *hm;
    bool events;
    int fds[2];   /* the pipe */
    FILE *errf;   /* SimGrid's stdout and stderr */
    rs_meter_t *meter; /* drawn from the child's 'P' records; NULL: none are sent */
} child_arg_t;

static int child_run(void *arg) {
    child_arg_t *a = arg;
    FILE *pf = rs_sim_child_pipe(a->errf, a->fds);
    if (!pf) return RS_EXIT_FAIL;
    setvbuf(pf, NULL, _IOFBF, 1 << 16);
    int code = child_main(a->s, a->m, a->cfg, a->platform, a->hm, a->events, a->meter != NULL, pf);
    fflush(pf);
    fflush(stderr);
    return code;
}

/* What the parent read from the pipe. */
typedef struct {
    text_rec stage;        /* the last stage the child entered */
    text_rec child_err;    /* its 'X' record (when have_err) */
    summary_rec sum;       /* its 'R' record */
    bool have_err, have_sum, io_bad, oom;
} collected_t;

/* Read the child's records until EOF: events into trace, the results into out and c, progress into
 * meter. */
static void collect(int fd, int64_t steps, rs_trace_t *trace, rs_meter_t *meter, rs_sim_result_t *out, collected_t *c) {
    for (;;) {
        char tag;
        int r = read_full(fd, &tag, 1);
        if (r <= 0) {
            c->io_bad = r < 0;
            return;
        }
        if (tag == 'S') {
            if (read_full(fd, &c->stage, sizeof c->stage) != 1) { c->io_bad = true; return; }
        } else if (tag == 'E') {
            rs_event_t ev;
            if (read_full(fd, &ev, sizeof ev) != 1) { c->io_bad = true; return; }
            if (trace && !c->oom && rs_trace_add(trace, &ev) != 0) c->oom = true;
        } else if (tag == 'X') {
            if (read_full(fd, &c->child_err, sizeof c->child_err) != 1) { c->io_bad = true; return; }
            c->have_err = true;
        } else if (tag == 'P') {
            progress_rec p;
            if (read_full(fd, &p, sizeof p) != 1) { c->io_bad = true; return; }
            char t[32];
            if (meter) rs_meter_update(meter, (double)p.rank_steps, "%s simulated", rs_fmt_time(p.sim_time_s, t, sizeof t));
        } else if (tag == 'J') {
            if (out->job || !(out->job = calloc(1, sizeof *out->job))) { c->oom = true; return; }
            if (rs_jc_read(fd, read_full, out->job) != 0) { c->io_bad = true; return; }
        } else if (tag == 'R') {
            if (read_full(fd, &c->sum, sizeof c->sum) != 1 || c->sum.n_steps != steps) { c->io_bad = true; return; }
            out->step_end_s = malloc(sizeof(double) * (size_t)steps);
            out->step_max_s = malloc(sizeof(double) * (size_t)steps);
            if (!out->step_end_s || !out->step_max_s) { c->oom = true; return; }
            if (read_full(fd, out->step_end_s, sizeof(double) * (size_t)steps) != 1 ||
                read_full(fd, out->step_max_s, sizeof(double) * (size_t)steps) != 1) { c->io_bad = true; return; }
            c->have_sum = true;
        } else {
            c->io_bad = true;
            return;
        }
    }
}

/* The child's outcome: the results, or what went wrong. Returns 0, or -1 with err and its kind. */
static int outcome(const collected_t *c, const rs_child_status_t *st, FILE *errf, const rs_sim_config_t *cfg, rs_sim_result_t *out,
                   rs_err_t *err) {
    if (c->oom) return rs_errf(err, "sim: out of memory while collecting the results");
    if (c->have_err) {
        return rs_errc(err, c->child_err.code == RS_ERR_BAD_INPUT ? RS_ERR_BAD_INPUT : RS_ERR_RUNTIME, "%s", c->child_err.text);
    }
    if (st->exit_code == 0 && c->have_sum && !c->io_bad) {
        const summary_rec *sum = &c->sum;
        out->fig = (rs_walk_t){.makespan_s = sum->makespan_s, .t_comp_max_s = sum->t_comp_max_s,
                               .t_comm_max_s = sum->t_comm_max_s, .busy_max_s = sum->busy_max_s,
                               .busy_mean_s = sum->busy_mean_s, .flops_useful = sum->flops_useful,
                               .flops_exec = sum->flops_exec, .comm_bound_steps = sum->comm_bound_steps,
                               .rank_steps = sum->rank_steps};
        out->n_steps = sum->n_steps;
        out->sim_wall_s = sum->sim_wall_s;
        return 0;
    }
    char msg[700];
    simgrid_message(errf, msg, sizeof msg);
    const char *how = st->term_signal ? strsignal(st->term_signal) : "exited";
    if (c->stage.code == STAGE_INIT) { /* the settings given (--cfg), quoted whole */
        char given[600] = "";
        for (int i = 0; cfg && i < cfg->n_cfg && i < RS_SIM_MAX_CFG; i++)
            snprintf(given + strlen(given), sizeof given - strlen(given), "%s--cfg %s", i ? " " : " (", cfg->cfg[i]);
        if (given[0]) snprintf(given + strlen(given), sizeof given - strlen(given), ")");
        return rs_errc(err, RS_ERR_BAD_INPUT, "SimGrid configuration%s: %s", given, msg);
    }
    if (c->stage.code == STAGE_LOAD || c->stage.code == STAGE_CHECK)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s", c->stage.text, msg);
    return rs_errf(err, "sim: the SimGrid child failed during %s (%s, status %d): %s", c->stage.text, how, st->exit_code,
                   msg);
}

/* Fork the SimGrid child (the one child-process helper) under a watchdog of timeout_s and collect
 * what it sends. */
static int run_child(child_arg_t *a, int64_t steps, double timeout_s, rs_trace_t *trace, rs_sim_result_t *out, rs_err_t *err) {
    rs_spawn_t sp;
    rs_spawn_init(&sp);
    sp.fn = child_run;
    sp.arg = a;
    rs_child_t child;
    if (rs_spawn_start(&sp, "the SimGrid child", &child, err) != 0) return -1;
    if (rs_spawn_watchdog(&child, timeout_s, err) != 0) {
        kill(child.pid, SIGKILL);
        rs_child_status_t st;
        rs_spawn_wait(&child, 0, &st, NULL);
        return -1;
    }
    close(a->fds[1]);
    a->fds[1] = -1;
    collected_t c = {.stage = {.code = -1, .text = "starting"}};
    collect(a->fds[0], steps, trace, a->meter, out, &c);
    close(a->fds[0]);
    a->fds[0] = -1;
    if (c.oom || c.io_bad) kill(child.pid, SIGKILL);
    rs_child_status_t st;
    if (rs_spawn_wait(&child, 0, &st, err) != 0) return -1;
    out->child_wall_s = st.wall_s;
    out->peak_rss_bytes = st.peak_rss_bytes;
    if (st.timed_out)
        return rs_errf(err, "sim: the SimGrid child was stopped after %g s (its watchdog) during %s: %s; give --timeout S to "
                            "allow more", timeout_s, c.stage.text, c.stage.code == STAGE_RUN ? "the simulation did not end"
                            : "SimGrid did not get past this stage");
    return outcome(&c, &st, a->errf, a->cfg, out, err);
}

int rs_sim_run(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg_in,
               rs_trace_t *trace, rs_sim_result_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    rs_err_clear(err);
    rs_sim_config_t defcfg;
    rs_sim_config_default(&defcfg);
    const rs_sim_config_t *cfg = cfg_in ? cfg_in : &defcfg;
    const int64_t n = rs_schedule_problem(s)->n_ranks;
    int rc = check_input(m, n, cfg, trace != NULL, err);
    if (rc == 0 && rs_schedule_step_a2a_bytes(s, n) > 0) rc = check_a2a(m, cfg, err);
    if (rc != 0) return rc;
    rs_sim_config_t a2a_cfg; /* pass-q's return: a generated platform routes every pair */
    if (rs_schedule_step_a2a_bytes(s, n) > 0 && !cfg->platform_path && cfg->routes == RS_PLATFORM_RING) {
        a2a_cfg = *cfg;
        a2a_cfg.routes = RS_PLATFORM_ALL_PAIRS;
        cfg = &a2a_cfg;
    }
    rs_hostmap_t hm;
    char tmpdir[4096], platform[4200];
    if ((rc = prepare_platform(s, m, cfg, &hm, tmpdir, sizeof tmpdir, platform, sizeof platform, out, err)) != 0) return rc;
    if (trace) fill_meta(trace, s, cfg, out->platform);
    rs_meter_t meter; /* on a terminal: simulated time and rank-steps, from the child's 'P' records */
    const rs_problem_t *pb = rs_schedule_problem(s);
    char what[64];
    snprintf(what, sizeof what, "sim %s %s N=%lld", rs_layout_name(pb->layout), rs_pass_name(pb->pass), (long long)pb->n_ranks);
    rs_meter_start(&meter, what, (double)hm.n_ranks * (double)rs_schedule_n_steps(s), "rank-steps");
    child_arg_t a = {s, m, cfg, platform, &hm, trace != NULL, {-1, -1}, tmpfile(), meter.active ? &meter : NULL};
    if (!a.errf || pipe(a.fds) != 0) rc = rs_errf(err, "sim: cannot create the pipe or log file: %s", strerror(errno));
    else rc = run_child(&a, rs_schedule_n_steps(s), rs_sim_timeout(rs_schedule_problem(s), cfg), trace, out, err);
    rs_meter_end(&meter);
    if (rc == 0 && cfg->job && (!out->job || rs_job_finish(cfg->job, s, m, out->job, err) != 0))
        rc = out->job ? -1 : rs_errf(err, "sim: the child sent no job results");
    if (a.fds[0] >= 0) close(a.fds[0]);
    if (a.fds[1] >= 0) close(a.fds[1]);
    if (a.errf) fclose(a.errf);
    rs_out_tmpdir_remove(tmpdir);
    rs_hostmap_free(&hm);
    if (rc != 0) rs_sim_result_free(out);
    return rc;
}
