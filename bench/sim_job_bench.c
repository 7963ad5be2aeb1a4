/* sim_job_bench.c - concurrent rings against one long ring: R rings of N ranks (R N devices) simulated
 * together on a generated fabric, side by side with one ring of R N ranks (the target: 8 rings
 * of 64 ranks in under 3x the time of one 512-rank ring, peak memory under 1 GB).
 *
 * Both run as processes one after the other, --repeat times (back-to-back pairs), on h100-sxm with
 * nodes of 8 and ib-ndr between nodes, zigzag, forward, causal, B tokens per rank:
 *   ring: ringsim sim -N R*N -S R*N*B -L zigzag -P forward --csv -
 *   job:  ringsim sim -N N -S N*B -L zigzag -P forward --tp R [--args ...] --csv -
 * The job's default fabric is flat with one NIC per device, TP innermost: every ring crosses nodes at
 * every hop. Printed: wall and CPU time (best of --repeat), the job / ring ratios (best against best,
 * and the median of back-to-back CPU ratios), time per simulated rank-step, SimGrid's own time in the
 * child, peak RSS of each process tree, and the job's worst ring slowdown.
 *
 * usage: sim_job_bench [--rings 8] [--ranks 64] [--block 8192] [--repeat 1] [--args "--fabric rail ..."]
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_proc.h"

#define RINGSIM RS_BINARY_DIR "/bin/ringsim"
#define MAX_ARGS 64

/* Field k (0-based) of CSV line `row`. */
static double field(const char *row, int k) {
    for (int i = 0; i < k && row; i++) {
        row = strchr(row, ',');
        if (row) row++;
    }
    return row ? strtod(row, NULL) : NAN;
}

/* Largest field k over the data rows of a CSV (header first). */
static double max_field(const char *csv, int k) {
    double m = NAN;
    for (const char *row = strchr(csv, '\n'); row && row[1]; row = strchr(row + 1, '\n')) {
        const double v = field(row + 1, k);
        if (isnan(m) || v > m) m = v;
    }
    return m;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    long rings = 8, ranks = 64, block = 8192;
    int repeat = 1;
    char extra[1024] = "";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rings") && i + 1 < argc) rings = atol(argv[++i]);
        else if (!strcmp(argv[i], "--ranks") && i + 1 < argc) ranks = atol(argv[++i]);
        else if (!strcmp(argv[i], "--block") && i + 1 < argc) block = atol(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--args") && i + 1 < argc) snprintf(extra, sizeof extra, "%s", argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--rings 8] [--ranks 64] [--block 8192] [--repeat 1] [--args \"...\"]\n", argv[0]);
            return 2;
        }
    }
    if (rings < 1 || ranks < 1 || block < 2 || repeat < 1 || repeat > 64) {
        fprintf(stderr, "sim_job_bench: --rings, --ranks >= 1, --block >= 2, --repeat in [1, 64]\n");
        return 2;
    }
    char n_ring[32], s_ring[32], n_job[32], s_job[32], tp[32];
    snprintf(n_ring, sizeof n_ring, "%ld", rings * ranks);
    snprintf(s_ring, sizeof s_ring, "%ld", rings * ranks * block);
    snprintf(n_job, sizeof n_job, "%ld", ranks);
    snprintf(s_job, sizeof s_job, "%ld", ranks * block);
    snprintf(tp, sizeof tp, "%ld", rings);
    char *common[] = {"-L", "zigzag", "-P", "forward", "--gpus-per-node", "8", "--inter", "ib-ndr", "--csv", "-"};
    const int nc = (int)(sizeof common / sizeof common[0]);
    char *ring_argv[MAX_ARGS] = {RINGSIM, "sim", "-N", n_ring, "-S", s_ring};
    char *job_argv[MAX_ARGS] = {RINGSIM, "sim", "-N", n_job, "-S", s_job, "--tp", tp};
    int nr = 6, nj = 8;
    for (int i = 0; i < nc; i++) ring_argv[nr++] = job_argv[nj++] = common[i];
    char shown[1024];
    snprintf(shown, sizeof shown, "%s", extra); /* strtok cuts extra into the job's arguments */
    for (char *t = strtok(extra, " "); t && nj < MAX_ARGS - 1; t = strtok(NULL, " ")) job_argv[nj++] = t;

    printf("# sim_job_bench: %ld rings of %ld ranks (%ld devices) against one ring of %ld, zigzag causal forward,\n"
           "# B = %ld, h100-sxm, nodes of 8, ib-ndr; job args: --tp %ld %s\n",
           rings, ranks, rings * ranks, rings * ranks, block, rings, shown[0] ? shown : "(flat fabric, one NIC per device)");
    printf("# wall/cpu: best of %d; paired: median of back-to-back job/ring CPU ratios; sim_s: SimGrid in the child\n",
           repeat);
    char *buf = malloc(1 << 22);
    if (!buf) return 1;
    run_t best_ring = {INFINITY, INFINITY, 0, 0, 0}, best_job = {INFINITY, INFINITY, 0, 0, 0};
    double paired[64], slowdown = NAN;
    int n_paired = 0;
    for (int k = 0; k < repeat; k++) {
        run_t a, b;
        if (run(ring_argv, buf, 1 << 22, &a) != 0) {
            fprintf(stderr, "sim_job_bench: the one-ring run failed\n");
            return 1;
        }
        a.inner_s = max_field(buf, 15); /* ringsim sim --csv: sim_wall_s */
        if (run(job_argv, buf, 1 << 22, &b) != 0) {
            fprintf(stderr, "sim_job_bench: the job run failed\n");
            return 1;
        }
        b.inner_s = max_field(buf, 10); /* job rings CSV: sim_wall_s */
        slowdown = max_field(buf, 6);
        if (a.wall_s < best_ring.wall_s) best_ring.wall_s = a.wall_s, best_ring.inner_s = a.inner_s;
        if (b.wall_s < best_job.wall_s) best_job.wall_s = b.wall_s, best_job.inner_s = b.inner_s;
        if (a.cpu_s < best_ring.cpu_s) best_ring.cpu_s = a.cpu_s;
        if (b.cpu_s < best_job.cpu_s) best_job.cpu_s = b.cpu_s;
        if (a.rss_bytes > best_ring.rss_bytes) best_ring.rss_bytes = a.rss_bytes;
        if (b.rss_bytes > best_job.rss_bytes) best_job.rss_bytes = b.rss_bytes;
        if (a.cpu_s > 0) paired[n_paired++] = b.cpu_s / a.cpu_s;
    }
    qsort(paired, (size_t)n_paired, sizeof *paired, cmp_double);
    const double median = n_paired % 2 ? paired[n_paired / 2] : 0.5 * (paired[n_paired / 2 - 1] + paired[n_paired / 2]);
    const double rs_ring = (double)(rings * ranks) * (double)(rings * ranks), rs_job = (double)rings * ranks * ranks;
    printf("%-6s %10s %9s %9s %9s %12s %9s\n", "run", "rank_steps", "wall_s", "cpu_s", "sim_s", "per_rstep", "rss_MB");
    printf("%-6s %10.0f %9.3f %9.3f %9.3f %10.3fus %9.1f\n", "ring", rs_ring, best_ring.wall_s, best_ring.cpu_s,
           best_ring.inner_s, 1e6 * best_ring.wall_s / rs_ring, best_ring.rss_bytes / 1e6);
    printf("%-6s %10.0f %9.3f %9.3f %9.3f %10.3fus %9.1f\n", "job", rs_job, best_job.wall_s, best_job.cpu_s,
           best_job.inner_s, 1e6 * best_job.wall_s / rs_job, best_job.rss_bytes / 1e6);
    printf("# job / ring: wall %.3f, cpu %.3f, paired cpu %.3f (target < 3); job peak RSS %.1f MB (target < 1000);\n"
           "# worst ring slowdown in the job %.4f\n",
           best_job.wall_s / best_ring.wall_s, best_job.cpu_s / best_ring.cpu_s, median, best_job.rss_bytes / 1e6, slowdown);
    free(buf);
    return 0;
}
