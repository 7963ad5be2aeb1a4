/* sim_child.c - the SimGrid child's simulation (sim_child.h): SimGrid's setup, the platform's
 * checks, the run state and what both engines share (sim_run.h: a step's compute time, its
 * statistics and events), the engine's choice, the results sent back (sim_pipe.h). */
#include "sim_child.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

#include "job_child.h"
#include "kernel.h"
#include "polls.h"
#include "ring_fold.h"
#include "sim_config.h"
#include "sim_pipe.h"
#include "sim_run.h"
#include "sgx_fabric.h"
#include "util.h"

sim_run_t SR;

int64_t sim_rank_of(int64_t g) { return g % SR.n; }
int64_t sim_next_of(int64_t g) {
    if (SR.rot) return g;
    const int64_t p = g % SR.n;
    return g - p + (p + 1) % SR.n;
}
int64_t sim_prev_of(int64_t g) {
    if (SR.rot) return g;
    const int64_t p = g % SR.n;
    return g - p + (p + SR.n - 1) % SR.n;
}

int sim_fail(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sim_put_textv(SR.out, 'X', code, fmt, ap);
    va_end(ap);
    SR.errc = code;
    return -1;
}

/* After a rank-step: a 'P' record when SIM_PROGRESS_S have passed (the clock is read every 64). */
static void put_progress(void) {
    if (!SR.progress || (SR.sum.rank_steps & 63) != 0) return;
    const double now = rs_now_s();
    if (now < SR.next_progress_s) return;
    SR.next_progress_s = now + SIM_PROGRESS_S;
    const sim_progress_rec_t r = {simgrid_get_clock(), SR.sum.rank_steps, SR.total * SR.steps};
    sim_put_progress(SR.out, &r);
}

static void put_event(rs_event_t ev) { sim_put_event(SR.out, &ev); }

/* ================================================================================================
 * What both engines share
 * ============================================================================================== */
double sim_step_compute_s(int64_t g, rs_krank_t *acc, int64_t k, const rs_step_t *st, double *eta) {
    double recv_bytes = 0; /* the step's incoming bytes: host cost and the eta of the hop */
    for (int i = 0; i < st->n_recv; i++) recv_bytes += (double)st->recv[i].bytes;
    const double reused = (double)rs_schedule_step_reused_bytes(SR.s, k); /* received into the buffer sent at k - 1 */
    const double tc = rs_kernel_step_s(&SR.km, st, acc, st->n_recv, recv_bytes, reused);
    const int64_t p = sim_rank_of(g); /* the hop into it: folded by its rotation, rank 0's own (ring_fold.h) */
    *eta = rs_ring_recv_eta(SR.m, rs_schedule_problem(SR.s), SR.n, (p + SR.n - 1) % SR.n, st, tc, recv_bytes, reused);
    return tc;
}

int sim_hops_init(const rs_machine_t *m, const rs_sim_config_t *cfg) {
    SR.throttled = calloc((size_t)SR.total, sizeof *SR.throttled);
    SR.hop_link = calloc((size_t)SR.n, sizeof *SR.hop_link);
    SR.hop_bw = calloc((size_t)SR.n, sizeof *SR.hop_bw);
    if (!SR.throttled || !SR.hop_link || !SR.hop_bw) return sim_fail(RS_ERR_RUNTIME, "sim: out of memory for %" PRId64 " ranks", SR.total);
    for (int64_t r = 0; r < (SR.rot ? 1 : SR.n); r++) { /* folded by its rotation: hop 0 alone (its platform's) */
        char name[64];
        if (rs_machine_hop_inter(m, SR.n, r)) snprintf(name, sizeof name, "nic%" PRId64 "-up", r);
        else if (cfg->routes == RS_PLATFORM_RING) snprintf(name, sizeof name, "hop%" PRId64, r);
        else snprintf(name, sizeof name, "nvl%" PRId64 "-up", r);
        if (!(SR.hop_link[r] = sg_link_by_name(name))) return sim_fail(RS_ERR_RUNTIME, "sim: the generated platform lacks link '%s'", name);
        SR.hop_bw[r] = sg_link_get_bandwidth(SR.hop_link[r]);
    }
    return 0;
}

void sim_throttle_in(int64_t g, double eta) {
    const int64_t h = sim_rank_of(sim_prev_of(g));
    sg_link_set_bandwidth(SR.hop_link[h], fmax(eta, 1e-12) * SR.hop_bw[h]);
    SR.throttled[g] = true;
}

void sim_unthrottle_in(int64_t g) {
    if (!SR.throttled || !SR.throttled[g]) return;
    const int64_t h = sim_rank_of(sim_prev_of(g));
    sg_link_set_bandwidth(SR.hop_link[h], SR.hop_bw[h]);
    SR.throttled[g] = false;
}

void sim_step_tail(int64_t g, int64_t k, const rs_krank_t *acc, double *merges_s, double *epilogue_s) {
    *merges_s = acc->after_s > 0 ? acc->after_s : 0; /* the arrived dK,dV partial's merges, after both (kernel.h) */
    *epilogue_s = k == SR.steps - 1 ? rs_kernel_rank_epilogue_s(&SR.km, acc, sim_rank_of(g)) : 0; /* after the ring loop */
}

double sim_send_factor(int64_t k, const rs_step_t *st) {
    double send_bytes = 0; /* the transfer curve's g at the hop's bytes: SimGrid moves bytes x g (cost.c's walk) */
    for (int j = 0; j < st->n_send; j++) send_bytes += (double)st->send[j].bytes;
    return rs_machine_step_xfer_factor(SR.m, send_bytes, (double)rs_schedule_step_reused_bytes(SR.s, k));
}

long sim_send_bytes(const rs_step_t *st, int i, double gx) { return (long)llround((double)st->send[i].bytes * gx); }

void sim_step_account(int64_t g, int64_t k, const rs_step_t *st, bool moves, double before_s, const sim_step_times_t *t) {
    const double end_x = fmax(t->end_send, t->end_recv);
    SR.busy[g] += t->end_c - t->t0 + (t->te - t->end_cx);
    SR.sum.rank_steps++;
    put_progress();
    SR.sum.flops_useful += st->flops_useful;
    SR.sum.flops_exec += st->flops_exec;
    if (t->end_c - t->t0 > SR.sum.t_comp_max_s) SR.sum.t_comp_max_s = t->end_c - t->t0;
    if (moves) {
        if (end_x - t->t0 > SR.sum.t_comm_max_s) SR.sum.t_comm_max_s = end_x - t->t0;
        if (end_x > t->end_c) SR.sum.comm_bound_steps++;
    }
    if (t->te > SR.step_end[k]) SR.step_end[k] = t->te;
    if (t->te - t->t0 > SR.step_max[k]) SR.step_max[k] = t->te - t->t0;
    if (!SR.events) return;
    const int64_t p0 = sim_rank_of(g), copies = SR.rot ? SR.n : 1; /* folded: rank q's events are rank 0's at q */
    for (int64_t q = p0; q < p0 + copies; q++) {
        const int32_t rk = (int32_t)q, sk = (int32_t)k;
        const int64_t to = st->send_peer < 0 ? -1 : (st->send_peer + q - p0) % SR.n;
        const int64_t from = st->recv_peer < 0 ? -1 : (st->recv_peer + q - p0) % SR.n;
        if (st->has_compute) /* it starts after the merges before the calls (kernel.h) */
            put_event((rs_event_t){rk, sk, SR.pass, RS_EV_COMPUTE, -1, t->tc > 0 ? t->t0 + before_s : t->t0, t->end_c,
                                   (double)st->flops_exec, 0});
        if (moves) {
            put_event((rs_event_t){rk, sk, SR.pass, RS_EV_SEND, to, t->t0, t->end_send, 0, (double)st->send_bytes});
            put_event((rs_event_t){rk, sk, SR.pass, RS_EV_RECV, from, t->t0, t->end_recv, 0, (double)st->recv_bytes});
        }
        put_event((rs_event_t){rk, sk, SR.pass, RS_EV_STEP, -1, t->t0, t->end_step, 0, 0}); /* the arrived partial's merges follow it */
    }
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
    sim_put_text(SR.out, 'S', SIM_STAGE_INIT, "SimGrid configuration");
    simgrid_init(&argc, argv);
    rs_sim_child_after_init();
    if (argc > 1)
        return sim_fail(RS_ERR_BAD_INPUT, "SimGrid did not accept the argument '%s' (expected --cfg KEY:VALUE)", argv[1]);
    return 0;
}

/* Every rank's host exists (into host[]), every hop has a route (checked here for Full zones; a job's
 * fabric routes every pair by construction). Returns 0 or -1 (an 'X' record sent). */
static int check_platform(const rs_sim_config_t *cfg, const rs_hostmap_t *hm, sg_host_t *host) {
    sim_put_text(SR.out, 'S', SIM_STAGE_CHECK, "checking hosts and routes");
    const char *plat_name = cfg->platform_path ? cfg->platform_path : "generated platform";
    for (int64_t r = 0; r < SR.total; r++) {
        host[r] = sg_host_by_name(hm->host[r]);
        if (host[r]) continue;
        if (cfg->hostmap_path)
            return sim_fail(RS_ERR_BAD_INPUT, "%s:%d: host '%s' (rank %" PRId64 ") does not exist in platform %s", cfg->hostmap_path,
                        hm->line[r], hm->host[r], r, plat_name);
        return sim_fail(RS_ERR_BAD_INPUT, "platform %s has no host '%s' for rank %" PRId64 " (without --hostmap rank p runs on host gpu<p>)",
                    plat_name, hm->host[r], r);
    }
    if (SR.job) return 0;
    if (SR.rot) /* the generated ring's routes; the representative sends over hop 0's */
        return (SR.peer_host = sg_host_by_name("gpu1")) ? 0 : sim_fail(RS_ERR_RUNTIME, "sim: the generated platform lacks host 'gpu1'");
    xbt_dynar_t links = xbt_dynar_new(sizeof(void *), NULL);
    int rc = 0;
    const bool a2a = rs_schedule_step_a2a_bytes(SR.s, SR.n) > 0; /* pass-q's return: every pair talks */
    for (int64_t r = 0; r < SR.n && SR.n > 1 && rc == 0; r++)
        for (int64_t j = 1; j < (a2a ? SR.n : 2) && rc == 0; j++) {
            const int64_t q = (r + j) % SR.n;
            if (host[r] == host[q]) continue;
            sim_put_text(SR.out, 'S', SIM_STAGE_CHECK, "platform %s: route from host '%s' (rank %" PRId64 ") to host '%s' (rank %" PRId64 ")", plat_name,
                  hm->host[r], r, hm->host[q], q);
            xbt_dynar_reset(links);
            sg_host_get_route(host[r], host[q], links);
            if (xbt_dynar_length(links) == 0)
                rc = sim_fail(RS_ERR_BAD_INPUT, "platform %s: no route from host '%s' (rank %" PRId64 ") to host '%s' (rank %" PRId64 ")%s",
                          plat_name, hm->host[r], r, hm->host[q], q,
                          a2a ? " (pass-q's all-to-all return needs a route between every pair)" : "");
        }
    xbt_dynar_free(&links);
    return rc;
}

/* After the run: the totals, a job's 'J' record, the 'R' record. Returns 0 or -1. */
static int send_results(void) {
    double busy_sum = 0;
    for (int64_t r = 0; r < SR.total; r++) {
        if (SR.busy[r] > SR.sum.busy_max_s) SR.sum.busy_max_s = SR.busy[r];
        busy_sum += SR.busy[r];
    }
    SR.sum.busy_mean_s = busy_sum / (double)SR.total;
    for (int64_t k = 0; k < SR.steps; k++)
        if (SR.step_end[k] > SR.sum.makespan_s) SR.sum.makespan_s = SR.step_end[k];
    SR.sum.n_steps = SR.steps;
    const int64_t want = SR.total * SR.steps;
    if (SR.sum.rank_steps != want)
        return sim_fail(RS_ERR_RUNTIME, "sim: only %" PRId64 " of %" PRId64 " rank-steps completed (deadlock?)", SR.sum.rank_steps, want);
    /* a fold: every simulated ring stands for SR.copies rings with the same figures (job_fold.h), a
     * ring's one walker for its SR.copies ranks (ring_fold.h) */
    SR.sum.rank_steps *= SR.copies;
    SR.sum.comm_bound_steps *= SR.copies;
    SR.sum.flops_useful *= (uint64_t)SR.copies;
    SR.sum.flops_exec *= (uint64_t)SR.copies;
    if (SR.job && rs_jc_write(SR.out) != 0) return -1;
    sim_put_results(SR.out, &SR.sum, SR.step_end, SR.step_max);
    sim_put_text(SR.out, 'S', SIM_STAGE_DONE, "done");
    return ferror(SR.out) ? -1 : 0;
}

/* The state for the run, SimGrid set up, the platform loaded and checked, the engine ready.
 * Returns 0 or -1. */
static int setup(const sim_child_in_t *in, FILE *out, bool *dag) {
    const rs_problem_t *pb = rs_schedule_problem(in->s);
    memset(&SR, 0, sizeof SR);
    SR.s = in->s;
    SR.m = in->m;
    SR.pass = pb->pass;
    SR.n = pb->n_ranks;
    SR.rot = in->ring_copies > 1 && !in->cfg->job;
    SR.total = SR.rot ? 1 : in->hm->n_ranks;
    SR.job = in->cfg->job != NULL;
    SR.slowdown = in->m->cal.comp_slowdown > 1;
    SR.partial = rs_machine_partial_overlap(in->m);
    SR.steps = rs_schedule_n_steps(in->s);
    SR.block = rs_problem_block(pb);
    SR.f_eff = rs_machine_flops_eff(in->m, (double)SR.block);
    rs_kmodel_init(&SR.km, pb, in->m);
    SR.events = in->events;
    SR.progress = in->progress;
    SR.next_progress_s = rs_now_s() + SIM_PROGRESS_S;
    SR.out = out;
    SR.errc = RS_ERR_RUNTIME;
    SR.copies = in->fold ? in->fold->copies : SR.rot ? SR.n : 1;
    SR.busy = calloc((size_t)SR.total, sizeof *SR.busy);
    SR.step_end = calloc((size_t)SR.steps, sizeof *SR.step_end);
    SR.step_max = calloc((size_t)SR.steps, sizeof *SR.step_max);
    SR.host = calloc((size_t)SR.total, sizeof *SR.host);
    if (!SR.busy || !SR.step_end || !SR.step_max || !SR.host || (SR.job && rs_jc_init(in->cfg->job, in->fold, pb->pass, SR.n) != 0))
        return sim_fail(RS_ERR_RUNTIME, "sim: out of memory for %" PRId64 " ranks", SR.total);
    if (init_simgrid(in->cfg) != 0) return -1;
    sim_put_text(SR.out, 'S', SIM_STAGE_LOAD, "platform %s", in->cfg->platform_path ? in->cfg->platform_path : "(generated)");
    if (SR.job) { /* the generated fabric, routed from its known paths (sgx_fabric.h) */
        if (sgx_fabric_build(&in->cfg->job->fabric, in->fold) != 0) return sim_fail(RS_ERR_RUNTIME, "sim: out of memory for the fabric");
    } else {
        simgrid_load_platform(in->platform);
    }
    if (check_platform(in->cfg, in->hm, SR.host) != 0) return -1;
    SR.exclusive = in->cfg->platform_path == NULL;
    if (SR.partial && SR.n > 1 && sim_hops_init(in->m, in->cfg) != 0) return -1;
    *dag = sim_dag_eligible(in->cfg);
    if ((in->fold || SR.rot) && !*dag) return sim_fail(RS_ERR_RUNTIME, "sim: a folded %s runs only on the activity engine", SR.rot ? "ring" : "job");
    SR.sum.engine = *dag ? RS_SIM_ENGINE_FAST : RS_SIM_ENGINE_REFERENCE;
    return *dag ? sim_dag_start() : sim_actors_create();
}

int sim_child_main(const sim_child_in_t *in, FILE *out) {
    bool dag = false;
    if (setup(in, out, &dag) != 0) return SR.errc == RS_ERR_BAD_INPUT ? RS_EXIT_USAGE : RS_EXIT_FAIL;
    sim_put_text(SR.out, 'S', SIM_STAGE_RUN, "simulation");
    const double w0 = rs_now_s();
    simgrid_run();
    SR.sum.sim_wall_s = rs_now_s() - w0;
    if (dag && sim_dag_end() != 0) return RS_EXIT_FAIL;
    return send_results() == 0 ? RS_EXIT_OK : SR.errc == RS_ERR_BAD_INPUT ? RS_EXIT_USAGE : RS_EXIT_FAIL;
}
