/* sim_alt.c - Ulysses and USP (and, for U = 1, the ring) simulated in SimGrid: one layer's attention
 * pass (sim_alt.h). The platform is sim/platform.h's all-pairs platform; the ring part
 * walks the same ring sub-schedule as model/5-plan/alt.c (rs_sp_ring_problem). A forked child runs SimGrid
 * with the backend's exact settings (sim_config.h) and writes one result record to a pipe. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#include "sim_alt.h"

#include "kernel.h"
#include "output.h"
#include "platform.h"
#include "sim.h"
#include "sim_config.h"
#include "sim_pipe.h"
#include "subprocess.h"

/* ================================================================================================
 * Child
 * ============================================================================================== */
static struct {
    const rs_schedule_t *s;   /* ring sub-schedule (R ranks, Hq/U heads) */
    const rs_machine_t *rm;   /* the ring's machine (compute time) */
    rs_kmodel_t km;           /* the ring step's cost (model/4-cost/kernel.h) */
    int64_t u_deg, r_deg;     /* U, R */
    int64_t steps;            /* steps of the ring pass */
    int64_t block;            /* B = S / R */
    rs_sp_a2a_t calls;        /* the all-to-alls before and after the attention, one per tensor (alt.h) */
    sg_mailbox_t *mb_in[RS_SP_A2A_MAX], *mb_ring, *mb_out[RS_SP_A2A_MAX]; /* [N] per rank; one set per call */
    double end_in, end_attn, end_out;       /* latest over ranks */
    int64_t finished;         /* ranks that reached the end */
} A;

static char payload; /* SimGrid needs a non-NULL payload; nothing is read from it */

/* All-to-all inside rank p's Ulysses group: U-1 puts of bytes/U, U-1 gets, wait for all. */
static void a2a(int64_t p, sg_mailbox_t *mb, double bytes) {
    if (A.u_deg <= 1 || bytes <= 0) return;
    int64_t g0 = (p / A.u_deg) * A.u_deg, n = 0;
    sg_comm_t *c = malloc(sizeof *c * (size_t)(2 * A.u_deg));
    void *got = NULL;
    long msg = (long)llround(bytes / (double)A.u_deg);
    for (int64_t v = g0; v < g0 + A.u_deg; v++)
        if (v != p) c[n++] = sg_mailbox_put_async(mb[v], &payload, msg);
    for (int64_t v = 0; v < A.u_deg - 1; v++) c[n++] = sg_mailbox_get_async(mb[p], &got);
    sg_comm_wait_all(c, (size_t)n);
    free(c);
}

static void rank_main(int argc, char **argv) {
    (void)argc;
    const int64_t p = strtoll(argv[1], NULL, 10);
    const int64_t r = p / A.u_deg, u = p % A.u_deg;
    const double speed = sg_host_get_speed(sg_host_self());
    for (int i = 0; i < A.calls.n_in; i++) a2a(p, A.mb_in[i], A.calls.in_bytes[i]); /* one after the other */
    rs_krank_t acc = {0};
    double t = simgrid_get_clock();
    if (t > A.end_in) A.end_in = t;
    for (int64_t k = 0; k < A.steps; k++) {
        rs_step_t st;
        rs_schedule_step(A.s, r, k, &st);
        const double tc = rs_kernel_step_s(&A.km, &st, &acc, 0, 0, 0);
        sg_comm_t comm[2 * RS_MAX_TRANSFERS];
        int nc = 0;
        void *got = NULL;
        for (int i = 0; i < st.n_send; i++)
            comm[nc++] = sg_mailbox_put_async(A.mb_ring[st.send_peer * A.u_deg + u], &payload, (long)st.send[i].bytes);
        for (int i = 0; i < st.n_recv; i++) comm[nc++] = sg_mailbox_get_async(A.mb_ring[p], &got);
        sg_exec_t ex = tc > 0 ? sg_actor_exec_async(tc * speed) : NULL;
        if (nc) sg_comm_wait_all(comm, (size_t)nc);
        if (ex) sg_exec_wait(ex);
        if (acc.after_s > 0) sg_actor_execute(acc.after_s * speed); /* the arrived partial's merges (kernel.h) */
    }
    const double epi = rs_kernel_rank_epilogue_s(&A.km, &acc, r);
    if (epi > 0) sg_actor_execute(epi * speed); /* the pass epilogue after the ring loop */
    t = simgrid_get_clock();
    if (t > A.end_attn) A.end_attn = t;
    for (int i = 0; i < A.calls.n_out; i++) a2a(p, A.mb_out[i], A.calls.out_bytes[i]);
    t = simgrid_get_clock();
    if (t > A.end_out) A.end_out = t;
    A.finished++;
}

static int child_main(const char *platform, int64_t n, FILE *out) {
    rs_sim_config_t cfg; /* the exact defaults of a ring-route run (sim_config.h) */
    rs_sim_config_default(&cfg);
    sim_settings_t set;
    sim_config_settings(&cfg, &set);
    char *argv[SIM_MAX_SETTINGS + 3], kv[SIM_MAX_SETTINGS][200];
    int argc = 0;
    argv[argc++] = "ringsim-sim-alt";
    argv[argc++] = "--log=root.thres:critical";
    for (int i = 0; i < set.n; i++) {
        snprintf(kv[i], sizeof kv[i], "--cfg=%s", set.kv[i]);
        argv[argc++] = kv[i];
    }
    argv[argc] = NULL;
    simgrid_init(&argc, argv);
    rs_sim_child_after_init();
    simgrid_load_platform(platform);
    A.mb_ring = calloc((size_t)n, sizeof *A.mb_ring);
    if (!A.mb_ring) return RS_EXIT_FAIL;
    for (int i = 0; i < RS_SP_A2A_MAX; i++) {
        A.mb_in[i] = calloc((size_t)n, sizeof *A.mb_in[i]);
        A.mb_out[i] = calloc((size_t)n, sizeof *A.mb_out[i]);
        if (!A.mb_in[i] || !A.mb_out[i]) return RS_EXIT_FAIL;
    }
    char name[64], host[64], arg[32];
    for (int64_t p = 0; p < n; p++) {
        for (int i = 0; i < RS_SP_A2A_MAX; i++) { /* a call's own mailboxes: no message of the next one is taken for it */
            snprintf(name, sizeof name, "in%d_%lld", i, (long long)p);
            A.mb_in[i][p] = sg_mailbox_by_name(name);
            snprintf(name, sizeof name, "out%d_%lld", i, (long long)p);
            A.mb_out[i][p] = sg_mailbox_by_name(name);
        }
        snprintf(name, sizeof name, "ring%lld", (long long)p);
        A.mb_ring[p] = sg_mailbox_by_name(name);
    }
    for (int64_t p = 0; p < n; p++) {
        sg_host_t h = sg_host_by_name(rs_platform_host_name(p, host, sizeof host));
        if (!h) return RS_EXIT_FAIL;
        snprintf(name, sizeof name, "rank%lld", (long long)p);
        snprintf(arg, sizeof arg, "%lld", (long long)p);
        const char *av[] = {name, arg};
        sg_actor_create_(name, h, rank_main, 2, av);
    }
    const double w0 = rs_now_s();
    simgrid_run();
    if (A.finished != n) return RS_EXIT_FAIL;
    rs_sim_alt_result_t res = {A.end_in, A.end_attn, A.end_out, rs_now_s() - w0};
    if (fwrite(&res, sizeof res, 1, out) != 1) return RS_EXIT_FAIL;
    return RS_EXIT_OK;
}

/* The child (rs_spawn_t's fn): SimGrid on the platform, the result on the pipe. */
typedef struct {
    const char *platform;
    int64_t n;
    int fds[2];
    FILE *errf;
} alt_child_t;

static int alt_child(void *arg) {
    alt_child_t *a = arg;
    FILE *pf = rs_sim_child_pipe(a->errf, a->fds);
    if (!pf) return RS_EXIT_FAIL;
    int code = child_main(a->platform, a->n, pf);
    fflush(pf);
    return code;
}

/* ================================================================================================
 * Parent
 * ============================================================================================== */
void rs_sim_alt_estimate(const rs_sp_config_t *c, rs_pass_t pass, rs_estimate_t *e) {
    rs_sim_estimate_rings(c->ring, c->ulysses, pass, RS_EST_NO_TRACE, true, e);
}

int rs_sim_alt_run(const rs_transformer_t *t, const rs_machine_t *m, const rs_sp_config_t *c, rs_pass_t pass,
                   rs_sim_alt_result_t *out, rs_err_t *err) {
    rs_sp_ring_t ring;
    rs_err_clear(err);
    if (rs_sp_ring_problem(t, m, c, pass, &ring, err)) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    const rs_problem_t p = ring.problem;
    rs_machine_t rm = ring.machine;
    const int64_t n = c->ulysses * c->ring;
    if (rs_machine_validate(m, n, err)) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    rs_schedule_t *s = rs_schedule_create(&p, err);
    if (!s) return rs_err_mark(err, RS_ERR_BAD_INPUT);

    memset(&A, 0, sizeof A);
    A.s = s;
    A.rm = &rm;
    A.u_deg = c->ulysses;
    A.r_deg = c->ring;
    A.steps = rs_schedule_n_steps(s);
    A.block = rs_problem_block(&p);
    rs_kmodel_init(&A.km, &p, A.rm);
    rs_sp_a2a_calls(t, c, pass, &A.calls); /* bytes a device holds before each all-to-all (docs/plan.md) */

    char dir[1024], platform[1100];
    int rc = -1, fds[2] = {-1, -1};
    FILE *errf = NULL;
    if (rs_out_tmpdir("alt", dir, sizeof dir, err) != 0) { /* removed by a signal, or below */
        rs_schedule_free(s);
        return -1;
    }
    snprintf(platform, sizeof platform, "%s/platform.xml", dir);
    /* host speed F_eff(B), as the ring's compute time assumes */
    const rs_platform_spec_t spec = {m, n, (double)A.block, RS_PLATFORM_ALL_PAIRS, 0};
    if (rs_platform_write_file(platform, &spec, err)) goto done;
    errf = tmpfile(); /* SimGrid's own messages: quoted on failure, silent otherwise */
    if (!errf || pipe(fds)) {
        rs_errf(err, "sim alt: pipe or log file: %s", strerror(errno));
        if (errf) fclose(errf);
        errf = NULL;
        goto done;
    }
    alt_child_t ca = {platform, n, {fds[0], fds[1]}, errf};
    rs_spawn_t sp;
    rs_spawn_init(&sp);
    sp.fn = alt_child;
    sp.arg = &ca;
    rs_child_t child;
    if (rs_spawn_start(&sp, "the SimGrid child (sim alt)", &child, err) != 0) goto done;
    close(fds[1]);
    fds[1] = -1;
    rs_sim_alt_result_t res;
    const bool got = sim_read_full(fds[0], &res, sizeof res) == 1;
    rs_child_status_t st;
    if (rs_spawn_wait(&child, 0, &st, err) != 0) goto done;
    if (!got || st.exit_code != 0) {
        char line[300] = "", first[300] = "";
        rewind(errf);
        while (fgets(line, sizeof line, errf)) {
            if (!first[0] && (strstr(line, "rror") || strstr(line, "CRITICAL"))) {
                line[strcspn(line, "\n")] = '\0';
                snprintf(first, sizeof first, ": %.280s", line);
            }
        }
        rs_errf(err, "sim alt: the SimGrid child failed (U=%lld, R=%lld, %s; status %d)%s", (long long)c->ulysses,
                (long long)c->ring, rs_pass_name(pass), st.exit_code, first);
        goto done;
    }
    *out = res;
    rc = 0;
done:
    if (errf) fclose(errf);
    if (fds[0] >= 0) close(fds[0]);
    if (fds[1] >= 0) close(fds[1]);
    rs_out_tmpdir_remove(dir);
    rs_schedule_free(s);
    return rc;
}
