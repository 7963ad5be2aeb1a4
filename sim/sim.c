/* sim.c - the SimGrid backend (sim.h) in the parent: rs_sim_run checks the input (sim_config.h),
 * makes the platform ready (sim_prepare.h), forks a child that simulates (sim_child.h) under a
 * watchdog, collects what it sends on a pipe (sim_pipe.h) and says what its end means; the child
 * process's setup, shared with sim_alt.c.
 *
 * SimGrid's stderr goes to an unlinked temporary file; on an abort the parent quotes its first
 * CRITICAL/ERROR line. The child never returns into the caller: it leaves with _exit().
 */
#define _DEFAULT_SOURCE /* strsignal */
#include "sim.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <xbt/base.h> /* simgrid/version.h needs its SG_BEGIN_DECL */
#include <simgrid/version.h>

#include "job_child.h"
#include "job_fold.h"
#include "meter.h"
#include "output.h"
#include "ring_fold.h"
#include "sim_child.h"
#include "sim_config.h"
#include "sim_meta.h"
#include "sim_pipe.h"
#include "sim_prepare.h"
#include "subprocess.h"

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
 * The child process
 * ============================================================================================== */
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

/* The SimGrid child: its arguments (rs_spawn_t's fn). */
typedef struct {
    sim_child_in_t in;  /* what it simulates */
    int fds[2];         /* the pipe */
    FILE *errf;         /* SimGrid's stdout and stderr */
    rs_meter_t *meter;  /* drawn from the child's 'P' records; NULL: none are sent */
} child_arg_t;

static int child_run(void *arg) {
    child_arg_t *a = arg;
    FILE *pf = rs_sim_child_pipe(a->errf, a->fds);
    if (!pf) return RS_EXIT_FAIL;
    setvbuf(pf, NULL, _IOFBF, 1 << 16);
    int code = sim_child_main(&a->in, pf);
    fflush(pf);
    fflush(stderr);
    return code;
}

/* ================================================================================================
 * The parent
 * ============================================================================================== */
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

/* The child's outcome: the results, or what went wrong. Returns 0, or -1 with err and its kind. */
static int outcome(const sim_collected_t *c, const rs_child_status_t *st, FILE *errf, const rs_sim_config_t *cfg, rs_sim_result_t *out,
                   rs_err_t *err) {
    if (c->oom) return rs_errf(err, "sim: out of memory while collecting the results");
    if (c->have_err) {
        return rs_errc(err, c->child_err.code == RS_ERR_BAD_INPUT ? RS_ERR_BAD_INPUT : RS_ERR_RUNTIME, "%s", c->child_err.text);
    }
    if (st->exit_code == 0 && c->have_sum && !c->io_bad) {
        const sim_summary_rec_t *sum = &c->sum;
        out->fig = (rs_walk_t){.makespan_s = sum->makespan_s, .t_comp_max_s = sum->t_comp_max_s,
                               .t_comm_max_s = sum->t_comm_max_s, .busy_max_s = sum->busy_max_s,
                               .busy_mean_s = sum->busy_mean_s, .flops_useful = sum->flops_useful,
                               .flops_exec = sum->flops_exec, .comm_bound_steps = sum->comm_bound_steps,
                               .rank_steps = sum->rank_steps};
        out->n_steps = sum->n_steps;
        out->sim_wall_s = sum->sim_wall_s;
        out->activities = sum->activities;
        out->engine = (rs_sim_engine_t)sum->engine;
        return 0;
    }
    char msg[700];
    simgrid_message(errf, msg, sizeof msg);
    const char *how = st->term_signal ? strsignal(st->term_signal) : "exited";
    if (c->stage.code == SIM_STAGE_INIT) { /* the settings given (--cfg), quoted whole */
        char given[600] = "";
        for (int i = 0; cfg && i < cfg->n_cfg && i < RS_SIM_MAX_CFG; i++)
            snprintf(given + strlen(given), sizeof given - strlen(given), "%s--cfg %s", i ? " " : " (", cfg->cfg[i]);
        if (given[0]) snprintf(given + strlen(given), sizeof given - strlen(given), ")");
        return rs_errc(err, RS_ERR_BAD_INPUT, "SimGrid configuration%s: %s", given, msg);
    }
    if (c->stage.code == SIM_STAGE_LOAD || c->stage.code == SIM_STAGE_CHECK)
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
    sim_collected_t c = {.stage = {.code = -1, .text = "starting"}};
    sim_collect(a->fds[0], steps, trace, a->meter, out, &c);
    close(a->fds[0]);
    a->fds[0] = -1;
    if (c.oom || c.io_bad) kill(child.pid, SIGKILL);
    rs_child_status_t st;
    if (rs_spawn_wait(&child, 0, &st, err) != 0) return -1;
    out->child_wall_s = st.wall_s;
    out->peak_rss_bytes = st.peak_rss_bytes;
    if (st.timed_out)
        return rs_errc(err, RS_ERR_TIMEOUT, "sim: the SimGrid child was stopped after %g s (its watchdog) during %s: %s; give --timeout S to "
                            "allow more", timeout_s, c.stage.text, c.stage.code == SIM_STAGE_RUN ? "the simulation did not end"
                            : "SimGrid did not get past this stage");
    return outcome(&c, &st, a->errf, a->in.cfg, out, err);
}

int rs_sim_run(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg_in,
               rs_trace_t *trace, rs_sim_result_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    rs_err_clear(err);
    rs_sim_config_t defcfg, run_cfg;
    rs_sim_config_default(&defcfg);
    const rs_sim_config_t *cfg = cfg_in ? cfg_in : &defcfg;
    if (sim_config_check(s, m, cfg, trace != NULL, err) != 0) return -1;
    cfg = sim_config_for_run(s, cfg, &run_cfg);
    rs_job_fold_t fold = {0};
    const rs_job_fold_t *fd = sim_job_folds(s, m, cfg) ? rs_job_fold_of(cfg, rs_schedule_problem(s)->pass, &fold) : &fold;
    if (!fd) return rs_errf(err, "sim: out of memory for the job's fold");
    out->fold_copies = fd->copies > 1 ? fd->copies : 1;
    if (out->fold_copies == 1) fd = NULL; /* a fold of 1 copy: the job as it is */
    const int64_t ring_copies = rs_ring_fold_copies(s, m, cfg); /* one ring: its rotation (ring_fold.h; 1 for a job) */
    if (ring_copies > 1) out->fold_copies = ring_copies;
    sim_platform_t pl;
    if (sim_prepare_platform(s, m, cfg, fd, ring_copies, &pl, err) != 0) {
        rs_job_fold_free(&fold);
        return -1;
    }
    snprintf(out->platform, sizeof out->platform, "%s", pl.desc);
    if (trace) sim_meta_fill(trace, s, cfg, out->platform);
    rs_meter_t meter; /* on a terminal: simulated time and rank-steps, from the child's 'P' records */
    const rs_problem_t *pb = rs_schedule_problem(s);
    char what[64];
    snprintf(what, sizeof what, "sim %s %s N=%lld", rs_layout_name(pb->layout), rs_pass_name(pb->pass), (long long)pb->n_ranks);
    const double simulated = ring_copies > 1 ? 1 : (double)pl.hm.n_ranks; /* ranks the child runs */
    rs_meter_start(&meter, what, simulated * (double)rs_schedule_n_steps(s), "rank-steps");
    child_arg_t a = {{s, m, cfg, pl.path, &pl.hm, fd, ring_copies, trace != NULL, meter.active}, {-1, -1}, tmpfile(),
                     meter.active ? &meter : NULL};
    int rc;
    if (!a.errf || pipe(a.fds) != 0) rc = rs_errf(err, "sim: cannot create the pipe or log file: %s", strerror(errno));
    else rc = run_child(&a, rs_schedule_n_steps(s), sim_timeout_folded(pb, cfg, out->fold_copies), trace, out, err);
    rs_meter_end(&meter);
    if (rc == 0 && !cfg->job) rs_walk_metrics(pb, m, &out->fig); /* from the simulation's own figures */
    if (rc == 0 && cfg->job && (!out->job || rs_job_finish(cfg->job, s, m, out->job, err) != 0))
        rc = out->job ? -1 : rs_errf(err, "sim: the child sent no job results");
    if (a.fds[0] >= 0) close(a.fds[0]);
    if (a.fds[1] >= 0) close(a.fds[1]);
    if (a.errf) fclose(a.errf);
    sim_platform_release(&pl);
    rs_job_fold_free(&fold);
    if (rc != 0) rs_sim_result_free(out);
    return rc;
}
