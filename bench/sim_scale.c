/* sim_scale.c - the simulator at datacenter scale: one job shape at growing sizes, what each run costs.
 *
 * For each DP degree P of --dp (default 16,64,256: 1,024, 4,096 and 16,384 GPUs) one process
 *   ringsim sim -p h100-sxm --tp 8 --cp 8 --dp P -S 128K -L zigzag --fabric rail --model llama3-8b
 *               [--oversub 2 -P backward --background dp (--backward)] [--args ...] --timeout T
 *               --max-time T --csv -
 * (Llama-3-8B attention, B = 16K tokens per rank, rings of 8 across nodes on rail leaves), run one
 * after the other. Printed per size: GPUs, rank-steps, SimGrid activities the child started (the
 * events the engine handled: transfers, timers, execs), the engine that ran, the process wall time,
 * SimGrid's own time in the child, the time per rank-step and the peak RSS of the process tree (wait4),
 * the copies the job folded into (docs/sim.md, "Folding"; 1: every ring simulated, as with
 * --args --no-fold) and the simulated job makespan. Memory per GPU shows whether the memory grows
 * linearly.
 *
 * usage: sim_scale [--dp 16,64,256] [--backward] [--timeout 3600] [--args "--nics 4 ..."]
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_proc.h"

#define RINGSIM RS_BINARY_DIR "/bin/ringsim"
#define MAX_ARGS 64

int main(int argc, char **argv) {
    const char *dps = "16,64,256", *extra = "", *timeout = "3600";
    bool backward = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dp") && i + 1 < argc) dps = argv[++i];
        else if (!strcmp(argv[i], "--backward")) backward = true;
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) timeout = argv[++i];
        else if (!strcmp(argv[i], "--args") && i + 1 < argc) extra = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--dp 16,64,256] [--backward] [--timeout 3600] [--args \"--nics 4 ...\"]\n", argv[0]);
            return 2;
        }
    }
    printf("# sim_scale: ringsim sim -p h100-sxm --tp 8 --cp 8 --dp P -S 128K -L zigzag --fabric rail --model llama3-8b%s%s%s\n",
           backward ? " --oversub 2 -P backward --background dp" : " -P forward", extra[0] ? " " : "", extra);
    printf("# activities: SimGrid activities the child started (transfers, timers, execs); wall: the process;\n"
           "# sim_s: SimGrid's run in the child; rss: peak RSS of the process tree (wait4)\n");
    printf("%7s %11s %12s %9s %9s %9s %12s %9s %9s %7s %12s\n", "gpus", "rank_steps", "activities", "engine", "wall_s",
           "sim_s", "per_rstep", "rss_MB", "KB/gpu", "copies", "makespan");
    char *buf = malloc(1 << 20), *words = strdup(extra);
    if (!buf || !words) return 1;
    int rc = 0;
    for (const char *s = dps; *s;) {
        const long long dp = atoll(s);
        const char *comma = strchr(s, ',');
        s = comma ? comma + 1 : s + strlen(s);
        if (dp < 1) continue;
        char dpa[32];
        snprintf(dpa, sizeof dpa, "%lld", dp);
        char *av[MAX_ARGS];
        int n = 0;
        const char *fixed[] = {RINGSIM, "sim", "-p", "h100-sxm", "--tp", "8", "--cp", "8", "--dp", dpa, "-S", "128K", "-L", "zigzag",
                               "--fabric", "rail", "--model", "llama3-8b", "--timeout", timeout, "--max-time", timeout, "-q"};
        for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) av[n++] = (char *)fixed[i];
        const char *bw[] = {"--oversub", "2", "-P", "backward", "--background", "dp"}, *fw[] = {"-P", "forward"};
        for (size_t i = 0; backward && i < 6; i++) av[n++] = (char *)bw[i];
        for (size_t i = 0; !backward && i < 2; i++) av[n++] = (char *)fw[i];
        strcpy(words, extra);
        for (char *w = strtok(words, " "); w && n < MAX_ARGS - 1; w = strtok(NULL, " ")) av[n++] = w;
        av[n] = NULL;
        run_t r = {0};
        if (run(av, buf, 1 << 20, &r) != 0) {
            fprintf(stderr, "sim_scale: dp %lld: ringsim sim failed (run it by hand for its message)\n", dp);
            rc = 1;
            continue;
        }
        /* the job report's cost line (cli/job_report.c) */
        const char *cost = strstr(buf, "# simulated ");
        long long steps = 0, acts = 0;
        char engine[16] = "";
        double sim_s = 0;
        if (!cost || sscanf(cost, "# simulated %lld rank-steps (%lld SimGrid activities, %15s engine) in %lf s", &steps, &acts, engine,
                            &sim_s) != 4) {
            fprintf(stderr, "sim_scale: dp %lld: no cost line in ringsim's output\n", dp);
            rc = 1;
            continue;
        }
        const char *fold = strstr(buf, "# folded: ");
        long long copies = 1;
        if (fold) sscanf(fold, "# folded: %lld", &copies);
        const char *mk = strstr(buf, "job makespan ");
        const long long gpus = 64 * dp;
        char mks[32] = "?";
        if (mk) sscanf(mk, "job makespan %31[^,]", mks);
        printf("%7lld %11lld %12lld %9s %9.2f %9.2f %10.2fus %9.1f %9.1f %7lld %12s\n", gpus, steps, acts, engine, r.wall_s, sim_s,
               steps > 0 ? 1e6 * r.wall_s / (double)steps : 0, (double)r.rss_bytes / 1e6, (double)r.rss_bytes / 1e3 / (double)gpus, copies,
               mks);
        fflush(stdout);
    }
    free(buf);
    free(words);
    return rc;
}
