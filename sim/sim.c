/* sim.c - the SimGrid backend (sim.h): a forked child runs SimGrid, the parent collects results.
 *
 * Child/parent protocol on a pipe, one record = one tag byte + a fixed struct:
 *   'S' stage_rec   the child entered a stage (tells the parent what an abort means)
 *   'E' rs_event_t  one trace event (only when the caller wants a trace)
 *   'X' error_rec   the child found bad input itself (missing host, no route) and exits 2
 *   'R' summary_rec the results, followed by 2 * n_steps doubles (step ends, step maxima)
 * SimGrid's stderr goes to an unlinked temporary file; on an abort the parent quotes its first
 * CRITICAL/ERROR line. The child never returns into the caller: it leaves with _exit().
 */
#define _DEFAULT_SOURCE /* wait4(): the child's own peak RSS */
#include "sim.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <simgrid/version.h>
#include <xbt/dynar.h>

#include "kernel.h"

/* ================================================================================================
 * Records
 * ============================================================================================== */
enum { STAGE_INIT = 0, STAGE_LOAD, STAGE_CHECK, STAGE_RUN, STAGE_DONE };

typedef struct {
    int32_t stage;   /* STAGE_* */
    char text[480];  /* what is being done, for messages */
} stage_rec;

typedef struct {
    int32_t code;    /* RS_SIM_BAD_INPUT or -1 */
    char msg[1000];  /* one line */
} error_rec;

typedef struct {
    double makespan_s, t_comp_max_s, t_comm_max_s; /* as rs_sim_result_t */
    double busy_max_s, busy_mean_s;                 /* as rs_sim_result_t */
    double sim_wall_s;                              /* wall time of simgrid_run() */
    uint64_t flops_useful, flops_exec;              /* totals */
    int64_t comm_bound_steps, rank_steps, n_steps;  /* counts; n_steps doubles x 2 follow */
} summary_rec;

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
}

const char *rs_sim_simgrid_version(void) {
#define RS_STR2(x) #x
#define RS_STR(x) RS_STR2(x)
    return RS_STR(SIMGRID_VERSION_MAJOR) "." RS_STR(SIMGRID_VERSION_MINOR) "." RS_STR(SIMGRID_VERSION_PATCH);
}

/* ================================================================================================
 * Child: the simulation
 * ============================================================================================== */
static struct {
    const rs_schedule_t *s;   /* the schedule */
    const rs_machine_t *m;    /* the machine */
    int64_t n, steps, block;  /* N, steps of the pass, B */
    rs_kmodel_t km;           /* the step cost (model/kernel.h) */
    double f_eff;             /* F_eff(B): FLOPs per second of compute time */
    bool events;              /* stream events to the parent */
    bool exclusive;           /* generated platform: one rank per host, constant speed */
    FILE *out;                /* the pipe */
    sg_mailbox_t *mb;         /* [n] mailbox of each rank (its receives) */
    double *busy;             /* [n] summed compute time */
    double *step_end;         /* [steps] latest end */
    double *step_max;         /* [steps] longest duration */
    summary_rec sum;          /* running totals */
} C;

static void put_rec(char tag, const void *rec, size_t size) {
    fputc(tag, C.out);
    fwrite(rec, size, 1, C.out);
}

static void put_stage(int stage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_stage(int stage, const char *fmt, ...) {
    stage_rec r = {.stage = stage};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r.text, sizeof r.text, fmt, ap);
    va_end(ap);
    put_rec('S', &r, sizeof r);
    fflush(C.out); /* the parent must know the stage if SimGrid aborts next */
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
 * Compute slowdown sigma (the walk's semantics, model/model.h): the exec runs at speed / sigma
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

static compute_slot_t *g_slot; /* [n] */

/* Below this many seconds of remaining compute the exec is simply waited for. */
#define RS_SIM_TINY_S 1e-15

static void slot_wake(compute_slot_t *sl) {
    if (sl->computing) sg_sem_release(sl->wake);
}

/* Hop h (h -> h+1) starts or stops carrying a transfer: both ends' in-flight counts change. */
static void hop_activity(int64_t h, int delta) {
    compute_slot_t *a = &g_slot[h], *b = &g_slot[(h + 1) % C.n];
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
    const double speed = sg_host_get_speed(sg_host_self()), sigma = C.m->comp_slowdown;
    for (;;) {
        sg_sem_acquire(sl->go);
        if (sl->stop) return;
        if (sl->amount > 0) {
            if (sigma > 1) slowdown_exec(sl, sl->amount, speed, sigma);
            else sg_actor_execute(sl->amount);
        }
        sl->end_c = simgrid_get_clock();
        if (sl->throttled) { /* the receiver stopped computing: its incoming hop runs at full rate again */
            const compute_slot_t *in = &g_slot[(sl - g_slot + C.n - 1) % C.n];
            sg_link_set_bandwidth(in->out_link, in->out_bw);
            sl->throttled = 0;
        }
        sg_sem_release(sl->done);
    }
}

/* One rank. argv[1] is its index. */
static void rank_main(int argc, char **argv) {
    (void)argc;
    const int64_t p = strtoll(argv[1], NULL, 10);
    const int64_t prev = (p + C.n - 1) % C.n, next = (p + 1) % C.n;
    compute_slot_t *sl = &g_slot[p];
    const double speed = sg_host_get_speed(sg_host_self());
    const bool slowdown = C.m->comp_slowdown > 1, partial = rs_machine_partial_overlap(C.m);
    static char payload; /* SimGrid needs a non-NULL payload; nothing is read from it */
    rs_krank_t acc = {0, 0}; /* merges this rank defers to its epilogue */
    for (int64_t k = 0; k < C.steps; k++) {
        rs_step_t st;
        rs_schedule_step(C.s, p, k, &st);
        const double t0 = simgrid_get_clock();
        double recv_bytes = 0; /* the step's incoming bytes: host cost and the eta of the hop */
        for (int i = 0; i < st.n_recv; i++) recv_bytes += (double)st.recv[i].bytes;
        const double tc = rs_kernel_step_s(&C.km, &st, &acc, st.n_recv, recv_bytes);
        const double eta = rs_machine_overlap(C.m, recv_bytes);
        const bool moves = st.n_send + st.n_recv > 0;
        sl->started = k;
        if (slowdown && moves) { /* a hop is in flight once both its ends have started step k */
            if (g_slot[next].started >= k) hop_activity(p, +1);
            if (g_slot[prev].started >= k && prev != p) hop_activity(prev, +1);
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
        for (int i = 0; i < st.n_send; i++) {
            is_recv[nc] = 0;
            comm[nc++] = sg_mailbox_put_async(C.mb[st.send_peer], &payload, (long)st.send[i].bytes);
        }
        for (int i = 0; i < st.n_recv; i++) {
            is_recv[nc] = 1;
            comm[nc++] = sg_mailbox_get_async(C.mb[p], &got);
        }
        double end_send = t0, end_recv = t0, end_c = t0;
        if (!moves) { /* nothing to overlap: run the exec here */
            if (tc > 0) sg_actor_execute(tc * C.f_eff);
            end_c = simgrid_get_clock();
        } else {
            if (!C.events && !slowdown) { /* no per-transfer ends needed: one wait for all */
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
                    if (--n_send_left == 0 && slowdown) hop_activity(p, -1); /* hop p drained */
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
        const double end_x = fmax(end_send, end_recv), te = fmax(end_c, end_x);
        /* statistics, as rs_walk_t defines them */
        C.busy[p] += end_c - t0;
        C.sum.rank_steps++;
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
            if (st.has_compute) put_event(p, k, RS_EV_COMPUTE, -1, t0, end_c, (double)st.flops_exec, 0);
            if (moves) {
                put_event(p, k, RS_EV_SEND, st.send_peer, t0, end_send, 0, (double)st.send_bytes);
                put_event(p, k, RS_EV_RECV, st.recv_peer, t0, end_recv, 0, (double)st.recv_bytes);
            }
            put_event(p, k, RS_EV_STEP, -1, t0, te, 0, 0);
        }
    }
    sl->stop = 1;
    sg_sem_release(sl->go);
}

/* Child body; returns the exit code. */
static int child_main(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg,
                      const char *platform, const rs_hostmap_t *hm, bool events, FILE *out) {
    const rs_problem_t *pb = rs_schedule_problem(s);
    memset(&C, 0, sizeof C);
    C.s = s;
    C.m = m;
    C.n = pb->n_ranks;
    C.steps = rs_schedule_n_steps(s);
    C.block = rs_problem_block(pb);
    C.f_eff = rs_machine_flops_eff(m, (double)C.block);
    if (rs_kmodel_init(&C.km, pb, m, NULL) != 0) return RS_EXIT_FAIL; /* checked by the parent */
    C.events = events;
    C.out = out;
    C.mb = calloc((size_t)C.n, sizeof *C.mb);
    C.busy = calloc((size_t)C.n, sizeof *C.busy);
    C.step_end = calloc((size_t)C.steps, sizeof *C.step_end);
    C.step_max = calloc((size_t)C.steps, sizeof *C.step_max);
    if (!C.mb || !C.busy || !C.step_end || !C.step_max) {
        error_rec e = {.code = -1};
        snprintf(e.msg, sizeof e.msg, "sim: out of memory for N = %" PRId64, C.n);
        put_rec('X', &e, sizeof e);
        return RS_EXIT_FAIL;
    }

    /* engine and configuration: defaults first, the caller's --cfg after (they win) */
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
    char *user[RS_SIM_MAX_CFG];
    for (int i = 0; i < cfg->n_cfg && i < RS_SIM_MAX_CFG; i++) {
        size_t len = strlen(cfg->cfg[i]) + 7;
        user[i] = malloc(len);
        if (!user[i]) return RS_EXIT_FAIL;
        snprintf(user[i], len, "--cfg=%s", cfg->cfg[i]);
        argv[argc++] = user[i];
    }
    argv[argc] = NULL;
    put_stage(STAGE_INIT, "SimGrid configuration");
    simgrid_init(&argc, argv);
    rs_sim_child_after_init();
    if (argc > 1) {
        error_rec e = {.code = RS_SIM_BAD_INPUT};
        snprintf(e.msg, sizeof e.msg, "SimGrid did not accept the argument '%s' (expected --cfg KEY:VALUE)", argv[1]);
        put_rec('X', &e, sizeof e);
        return RS_EXIT_USAGE;
    }

    put_stage(STAGE_LOAD, "platform %s", cfg->platform_path ? cfg->platform_path : "(generated)");
    simgrid_load_platform(platform);

    /* every rank's host exists, every hop has a route */
    put_stage(STAGE_CHECK, "checking hosts and routes");
    sg_host_t *host = calloc((size_t)C.n, sizeof *host);
    if (!host) return RS_EXIT_FAIL;
    const char *plat_name = cfg->platform_path ? cfg->platform_path : "generated platform";
    for (int64_t r = 0; r < C.n; r++) {
        host[r] = sg_host_by_name(hm->host[r]);
        if (!host[r]) {
            error_rec e = {.code = RS_SIM_BAD_INPUT};
            if (cfg->hostmap_path)
                snprintf(e.msg, sizeof e.msg, "%s:%d: host '%s' (rank %" PRId64 ") does not exist in platform %s",
                         cfg->hostmap_path, hm->line[r], hm->host[r], r, plat_name);
            else
                snprintf(e.msg, sizeof e.msg,
                         "platform %s has no host '%s' for rank %" PRId64 " (without --hostmap rank p runs on host gpu<p>)",
                         plat_name, hm->host[r], r);
            put_rec('X', &e, sizeof e);
            return RS_EXIT_USAGE;
        }
    }
    xbt_dynar_t links = xbt_dynar_new(sizeof(void *), NULL);
    for (int64_t r = 0; r < C.n && C.n > 1; r++) {
        const int64_t q = (r + 1) % C.n;
        if (host[r] == host[q]) continue;
        put_stage(STAGE_CHECK, "platform %s: route from host '%s' (rank %" PRId64 ") to host '%s' (rank %" PRId64 ")",
                  plat_name, hm->host[r], r, hm->host[q], q);
        xbt_dynar_reset(links);
        sg_host_get_route(host[r], host[q], links);
        if (xbt_dynar_length(links) == 0) {
            error_rec e = {.code = RS_SIM_BAD_INPUT};
            snprintf(e.msg, sizeof e.msg, "platform %s: no route from host '%s' (rank %" PRId64 ") to host '%s' (rank %" PRId64 ")",
                     plat_name, hm->host[r], r, hm->host[q], q);
            put_rec('X', &e, sizeof e);
            return RS_EXIT_USAGE;
        }
    }
    xbt_dynar_free(&links);

    char name[64], arg[32];
    C.exclusive = cfg->platform_path == NULL;
    g_slot = calloc((size_t)C.n, sizeof *g_slot);
    if (!g_slot) return RS_EXIT_FAIL;
    for (int64_t r = 0; r < C.n; r++) {
        snprintf(name, sizeof name, "rank%" PRId64, r);
        C.mb[r] = sg_mailbox_by_name(name);
        g_slot[r].go = sg_sem_init(0);
        g_slot[r].done = sg_sem_init(0);
        g_slot[r].wake = sg_sem_init(0);
        g_slot[r].started = -1;
    }
    if (rs_machine_partial_overlap(m) && C.n > 1) /* generated platform (the parent checks): hop r's bottleneck link */
        for (int64_t r = 0; r < C.n; r++) {
            if (rs_machine_hop_inter(m, C.n, r)) snprintf(name, sizeof name, "nic%" PRId64 "-up", r);
            else if (cfg->routes == RS_PLATFORM_RING) snprintf(name, sizeof name, "hop%" PRId64, r);
            else snprintf(name, sizeof name, "nvl%" PRId64 "-up", r);
            g_slot[r].out_link = sg_link_by_name(name);
            if (!g_slot[r].out_link) {
                error_rec e = {.code = -1};
                snprintf(e.msg, sizeof e.msg, "sim: the generated platform lacks link '%s'", name);
                put_rec('X', &e, sizeof e);
                return RS_EXIT_FAIL;
            }
            g_slot[r].out_bw = sg_link_get_bandwidth(g_slot[r].out_link);
        }
    for (int64_t r = 0; r < C.n; r++) {
        snprintf(name, sizeof name, "rank%" PRId64, r);
        snprintf(arg, sizeof arg, "%" PRId64, r);
        const char *av[] = {name, arg};
        sg_actor_create_(name, host[r], rank_main, 2, av);
        snprintf(name, sizeof name, "compute%" PRId64, r);
        if (!C.exclusive || m->comp_slowdown > 1 || rs_machine_partial_overlap(m)) sg_actor_create_(name, host[r], compute_main, 2, av);
    }
    put_stage(STAGE_RUN, "simulation");
    const double w0 = rs_now_s();
    simgrid_run();
    C.sum.sim_wall_s = rs_now_s() - w0;

    double busy_sum = 0;
    for (int64_t r = 0; r < C.n; r++) {
        if (C.busy[r] > C.sum.busy_max_s) C.sum.busy_max_s = C.busy[r];
        busy_sum += C.busy[r];
    }
    C.sum.busy_mean_s = busy_sum / (double)C.n;
    for (int64_t k = 0; k < C.steps; k++)
        if (C.step_end[k] > C.sum.makespan_s) C.sum.makespan_s = C.step_end[k];
    C.sum.n_steps = C.steps;
    if (C.sum.rank_steps != C.n * C.steps) {
        error_rec e = {.code = -1};
        snprintf(e.msg, sizeof e.msg, "sim: only %" PRId64 " of %" PRId64 " rank-steps completed (deadlock?)",
                 C.sum.rank_steps, C.n * C.steps);
        put_rec('X', &e, sizeof e);
        return RS_EXIT_FAIL;
    }
    put_rec('R', &C.sum, sizeof C.sum);
    fwrite(C.step_end, sizeof(double), (size_t)C.steps, C.out);
    fwrite(C.step_max, sizeof(double), (size_t)C.steps, C.out);
    put_stage(STAGE_DONE, "done");
    return ferror(C.out) ? RS_EXIT_FAIL : RS_EXIT_OK;
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
    for (int i = 0; i < cfg->n_cfg; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, sizeof buf - l, " %s", cfg->cfg[i]);
    }
    rs_trace_set_meta(t, "sim.cfg", "%s", buf);
}

void rs_sim_child_after_init(void) { signal(SIGINT, SIG_DFL); }

void rs_sim_child_prepare(FILE *log) {
    struct rlimit nocore = {0, 0};
    setrlimit(RLIMIT_CORE, &nocore); /* SimGrid aborts on bad input: no core file */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);          /* Ctrl-C ends the simulation, whatever handler the caller set */
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* and so does the end of the caller: no orphan runs on */
    dup2(fileno(log), STDERR_FILENO);
    dup2(fileno(log), STDOUT_FILENO);
}

int rs_sim_run(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg_in,
               rs_trace_t *trace, rs_sim_result_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    rs_sim_config_t defcfg;
    rs_sim_config_default(&defcfg);
    const rs_sim_config_t *cfg = cfg_in ? cfg_in : &defcfg;
    const rs_problem_t *pb = rs_schedule_problem(s);
    const int64_t n = pb->n_ranks, steps = rs_schedule_n_steps(s);

    if (rs_machine_validate(m, n, err) != 0) return RS_SIM_BAD_INPUT;
    {
        rs_kmodel_t km;
        if (rs_kmodel_init(&km, pb, m, err) != 0) return RS_SIM_BAD_INPUT;
    }
    if (m->loopback)
        return rs_errf(err, "loopback machine (each rank alone on one device): the walk predicts it; the "
                            "simulator runs the real ring"), RS_SIM_BAD_INPUT;
    if (rs_machine_partial_overlap(m) && cfg->platform_path)
        return rs_errf(err, "--overlap %g needs a generated platform: on --platform %s the simulator cannot tell "
                            "which link carries a hop", m->overlap, cfg->platform_path), RS_SIM_BAD_INPUT;
    if (cfg->n_cfg > RS_SIM_MAX_CFG)
        return rs_errf(err, "--cfg: at most %d settings", RS_SIM_MAX_CFG), RS_SIM_BAD_INPUT;
    if (cfg->hostmap_path && !cfg->platform_path)
        return rs_errf(err, "--hostmap %s: needs --platform FILE (generated platforms map rank p to gpu<p>)",
                       cfg->hostmap_path), RS_SIM_BAD_INPUT;
    if (cfg->platform_path && cfg->routes != RS_PLATFORM_RING)
        return rs_errf(err, "--all-pairs: a user platform (--platform %s) brings its own routes", cfg->platform_path),
               RS_SIM_BAD_INPUT;
    for (int i = 0; i < cfg->n_cfg; i++)
        if (!strchr(cfg->cfg[i], ':'))
            return rs_errf(err, "--cfg '%s': expected KEY:VALUE (e.g. network/model:LV08)", cfg->cfg[i]),
                   RS_SIM_BAD_INPUT;

    /* rank-to-host map */
    rs_hostmap_t hm;
    if (cfg->platform_path) {
        if (access(cfg->platform_path, R_OK) != 0)
            return rs_errf(err, "--platform %s: %s", cfg->platform_path, strerror(errno)), RS_SIM_BAD_INPUT;
        int rc = cfg->hostmap_path ? rs_hostmap_load(cfg->hostmap_path, n, &hm, err) : rs_hostmap_identity(n, &hm, err);
        if (rc != 0) return cfg->hostmap_path ? RS_SIM_BAD_INPUT : -1;
    } else if (rs_hostmap_identity(n, &hm, err) != 0) {
        return -1;
    }

    /* platform file */
    char tmpdir[4096] = "", platform[4200];
    if (cfg->platform_path) {
        snprintf(out->platform, sizeof out->platform, "%s", cfg->platform_path);
        snprintf(platform, sizeof platform, "%s", cfg->platform_path);
    } else {
        const char *base = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/ringsim-sim-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(tmpdir)) {
            rs_hostmap_free(&hm);
            return rs_errf(err, "sim: cannot create a temporary directory in %s: %s", base && *base ? base : "/tmp",
                           strerror(errno));
        }
        snprintf(platform, sizeof platform, "%s/platform.xml", tmpdir);
        rs_platform_describe(m, n, out->platform, sizeof out->platform);
        int rc = rs_platform_write_file(platform, m, n, (double)rs_problem_block(pb), cfg->routes, err);
        if (rc == 0 && cfg->platform_out)
            rc = rs_platform_write_file(cfg->platform_out, m, n, (double)rs_problem_block(pb), cfg->routes, err);
        if (rc != 0) {
            unlink(platform);
            rmdir(tmpdir);
            rs_hostmap_free(&hm);
            return -1;
        }
    }
    if (trace) fill_meta(trace, s, cfg, out->platform);

    int rc = 0, fds[2] = {-1, -1};
    FILE *errf = tmpfile();
    if (!errf || pipe(fds) != 0) {
        rc = rs_errf(err, "sim: cannot create the pipe or log file: %s", strerror(errno));
        goto done;
    }
    fflush(NULL);
    const double w0 = rs_now_s();
    pid_t pid = fork();
    if (pid < 0) {
        rc = rs_errf(err, "sim: fork failed: %s", strerror(errno));
        goto done;
    }
    if (pid == 0) { /* child */
        close(fds[0]);
        rs_sim_child_prepare(errf);
        FILE *pf = fdopen(fds[1], "w");
        if (!pf) _exit(RS_EXIT_FAIL);
        setvbuf(pf, NULL, _IOFBF, 1 << 16);
        int code = child_main(s, m, cfg, platform, &hm, trace != NULL, pf);
        fflush(pf);
        fflush(stderr);
        _exit(code);
    }
    close(fds[1]);
    fds[1] = -1;

    /* collect */
    stage_rec stage = {.stage = -1, .text = "starting"};
    error_rec child_err = {.code = 0};
    summary_rec sum;
    bool have_sum = false, io_bad = false, oom = false;
    for (;;) {
        char tag;
        int r = read_full(fds[0], &tag, 1);
        if (r <= 0) {
            io_bad = r < 0;
            break;
        }
        if (tag == 'S') {
            if (read_full(fds[0], &stage, sizeof stage) != 1) { io_bad = true; break; }
        } else if (tag == 'E') {
            rs_event_t ev;
            if (read_full(fds[0], &ev, sizeof ev) != 1) { io_bad = true; break; }
            if (trace && !oom && rs_trace_add(trace, &ev) != 0) oom = true;
        } else if (tag == 'X') {
            if (read_full(fds[0], &child_err, sizeof child_err) != 1) { io_bad = true; break; }
        } else if (tag == 'R') {
            if (read_full(fds[0], &sum, sizeof sum) != 1 || sum.n_steps != steps) { io_bad = true; break; }
            out->step_end_s = malloc(sizeof(double) * (size_t)steps);
            out->step_max_s = malloc(sizeof(double) * (size_t)steps);
            if (!out->step_end_s || !out->step_max_s) { oom = true; break; }
            if (read_full(fds[0], out->step_end_s, sizeof(double) * (size_t)steps) != 1 ||
                read_full(fds[0], out->step_max_s, sizeof(double) * (size_t)steps) != 1) { io_bad = true; break; }
            have_sum = true;
        } else {
            io_bad = true;
            break;
        }
    }
    close(fds[0]);
    fds[0] = -1;
    if (oom || io_bad) kill(pid, SIGKILL);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {}
    out->child_wall_s = rs_now_s() - w0;
    out->peak_rss_bytes = ru.ru_maxrss * 1024L;

    if (oom) {
        rc = rs_errf(err, "sim: out of memory while collecting the results");
    } else if (child_err.code != 0) {
        rc = child_err.code == RS_SIM_BAD_INPUT ? RS_SIM_BAD_INPUT : -1;
        rs_errf(err, "%s", child_err.msg);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && have_sum && !io_bad) {
        out->makespan_s = sum.makespan_s;
        out->t_comp_max_s = sum.t_comp_max_s;
        out->t_comm_max_s = sum.t_comm_max_s;
        out->busy_max_s = sum.busy_max_s;
        out->busy_mean_s = sum.busy_mean_s;
        out->flops_useful = sum.flops_useful;
        out->flops_exec = sum.flops_exec;
        out->comm_bound_steps = sum.comm_bound_steps;
        out->rank_steps = sum.rank_steps;
        out->n_steps = sum.n_steps;
        out->sim_wall_s = sum.sim_wall_s;
    } else {
        char msg[700];
        simgrid_message(errf, msg, sizeof msg);
        const char *how = WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "exited";
        if (stage.stage == STAGE_INIT) {
            rc = RS_SIM_BAD_INPUT;
            rs_errf(err, "SimGrid configuration: %s", msg);
        } else if (stage.stage == STAGE_LOAD || stage.stage == STAGE_CHECK) {
            rc = RS_SIM_BAD_INPUT;
            rs_errf(err, "%s: %s", stage.text, msg);
        } else {
            rc = -1;
            rs_errf(err, "sim: the SimGrid child failed during %s (%s, status %d): %s", stage.text, how,
                    WIFEXITED(status) ? WEXITSTATUS(status) : -1, msg);
        }
    }

done:
    if (fds[0] >= 0) close(fds[0]);
    if (fds[1] >= 0) close(fds[1]);
    if (errf) fclose(errf);
    if (tmpdir[0]) {
        unlink(platform);
        rmdir(tmpdir);
    }
    rs_hostmap_free(&hm);
    if (rc != 0) rs_sim_result_free(out);
    return rc;
}
