/* sim_bare_ring.c - a bare SimGrid C ring, the yardstick of bench/sim_bench.c.
 *
 * Same shape as `ringsim sim` for a non-causal forward pass with no realism flags: N hosts, one
 * per-direction link per hop p -> p+1, one actor per rank; each of N steps is an async exec of
 * flops_per_step and (except the last step) an async put of bytes_per_step to the next rank and an
 * async get from the previous, then waits for all. Nothing from ringsim is used: this is what the
 * simulation costs with no schedule, no events and no child process.
 *
 * Usage: sim_bare_ring N FLOPS_PER_STEP BYTES_PER_STEP F_PER_S W_BYTES_PER_S [LATENCY_S]
 * Prints "makespan_s=<g> wall_s=<g>" on stdout. Exit 2 on bad arguments.
 */
#define _DEFAULT_SOURCE /* mkstemps */
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <xbt/config.h>
#include <xbt/log.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long g_n;              /* ranks */
static double g_flops;        /* FLOPs per step */
static long g_bytes;          /* bytes per step */
static double g_end_s;        /* latest rank end */
static sg_mailbox_t *g_mb;    /* mailbox of each rank */

/* One rank: argv[1] is its index. */
static void rank_main(int argc, char **argv) {
    (void)argc;
    long p = atol(argv[1]);
    static char payload;
    void *got = NULL;
    for (long k = 0; k < g_n; k++) {
        sg_exec_t ex = sg_actor_exec_async(g_flops);
        if (k < g_n - 1 && g_n > 1) {
            sg_comm_t c[2];
            c[0] = sg_mailbox_put_async(g_mb[(p + 1) % g_n], &payload, g_bytes);
            c[1] = sg_mailbox_get_async(g_mb[p], &got);
            sg_comm_wait_all(c, 2);
        }
        sg_exec_wait(ex);
    }
    if (simgrid_get_clock() > g_end_s) g_end_s = simgrid_get_clock();
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s N FLOPS_PER_STEP BYTES_PER_STEP F_PER_S W_BYTES_PER_S [LATENCY_S]\n", argv[0]);
        return 2;
    }
    g_n = atol(argv[1]);
    g_flops = atof(argv[2]);
    g_bytes = atol(argv[3]);
    double f = atof(argv[4]), w = atof(argv[5]), lat = argc > 6 ? atof(argv[6]) : 0.0;
    if (g_n < 1 || g_flops <= 0 || g_bytes < 0 || f <= 0 || w <= 0 || lat < 0) {
        fprintf(stderr, "%s: bad argument\n", argv[0]);
        return 2;
    }
    char path[] = "/tmp/sim_bare_ring_XXXXXX.xml";
    int fd = mkstemps(path, 4);
    if (fd < 0) return 1;
    FILE *x = fdopen(fd, "w");
    fprintf(x, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
               "<platform version=\"4.1\">\n<zone id=\"ring\" routing=\"Full\">\n");
    for (long p = 0; p < g_n; p++) fprintf(x, "<host id=\"h%ld\" speed=\"%.17gf\"/>\n", p, f);
    for (long p = 0; p < g_n; p++)
        fprintf(x, "<link id=\"l%ld\" bandwidth=\"%.17gBps\" latency=\"%.17gs\"/>\n", p, w, lat);
    for (long p = 0; p < g_n && g_n > 1; p++)
        fprintf(x, "<route src=\"h%ld\" dst=\"h%ld\" symmetrical=\"NO\"><link_ctn id=\"l%ld\"/></route>\n", p,
                (p + 1) % g_n, p);
    fprintf(x, "</zone>\n</platform>\n");
    fclose(x);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int sargc = 1;
    char *sargv[] = {argv[0], NULL};
    simgrid_init(&sargc, sargv);
    xbt_log_control_set("root.thresh:warning");
    sg_cfg_set_string("network/model", "CM02");
    sg_cfg_set_double("network/TCP-gamma", 0.0);
    sg_cfg_set_boolean("network/crosstraffic", "no");
    sg_cfg_set_double("surf/precision", 1e-15);
    sg_cfg_set_double("maxmin/precision", 1e-15);
    simgrid_load_platform(path);
    unlink(path);
    g_mb = malloc(sizeof *g_mb * (size_t)g_n);
    char name[64];
    for (long p = 0; p < g_n; p++) {
        snprintf(name, sizeof name, "mb%ld", p);
        g_mb[p] = sg_mailbox_by_name(name);
    }
    for (long p = 0; p < g_n; p++) {
        char arg[32];
        snprintf(name, sizeof name, "h%ld", p);
        snprintf(arg, sizeof arg, "%ld", p);
        const char *av[] = {"rank", arg};
        sg_actor_create_("rank", sg_host_by_name(name), rank_main, 2, av);
    }
    simgrid_run();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("makespan_s=%.17g wall_s=%.6f\n", g_end_s,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    free(g_mb);
    return 0;
}
