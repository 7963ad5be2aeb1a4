/* sim_bench.c - `ringsim sim` against a bare SimGrid C ring of the same shape (bench/sim_bare_ring.c).
 *
 * For each N (default 256, 512, 1024): a non-causal forward pass with B tokens per rank on the
 * h100-sxm profile (F = 989 TFLOP/s, W = 450 GB/s, 3 us), run as two processes one after the other:
 *   ringsim sim -N N -S N*B --no-causal -L contiguous -P forward --impl none --launch-overhead 0 --gpus-per-node 0 --csv -
 *   sim_bare_ring N FLOPS_PER_STEP BYTES_PER_STEP F W LATENCY
 * The step's FLOPs and bytes come from the schedule (rs_problem_flops_per_pair, rs_problem_kv_bytes)
 * and the machine from the same profile; --impl none makes ringsim cost a step at the dense
 * F_eff(B) the bare ring runs at (not the profile's kernel curves), --launch-overhead 0 drops the
 * profile's launch cost per step (the bare ring has none) and --gpus-per-node 0 makes the ring flat
 * (one link per hop, as the bare ring's), so both simulate the same ring. Printed per N: wall time of
 * each process (best of --repeat), time per simulated rank-step, peak RSS (wait4: the process and
 * its children, the one child-process helper), the ratios ringsim / bare (best against best, and the median of back-to-back pairs,
 * which cancels the drift of a shared machine), and both makespans (they must agree).
 *
 * usage: sim_bench [--sizes 256,512,1024] [--block 8192] [--repeat 1]
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_proc.h"
#include "machine.h"
#include "schedule.h"
#include "subprocess.h"
#include "util.h"

#define RINGSIM RS_BINARY_DIR "/bin/ringsim"
#define BARE RS_BINARY_DIR "/bench/sim_bare_ring"

/* The value of column `name` in the first row after the CSV header in buf (NAN when missing). */
static double csv_field(const char *buf, const char *name) {
    const char *hdr = strstr(buf, "layout,pass,");
    const char *row = hdr ? strchr(hdr, '\n') : NULL;
    if (!row) return NAN;
    row++;
    const size_t len = strlen(name);
    for (const char *h = hdr; h < row - 1;) {
        const char *comma = strpbrk(h, ",\n");
        if (!comma) break;
        if ((size_t)(comma - h) == len && !strncmp(h, name, len)) return strtod(row, NULL);
        h = comma + 1;
        row = strchr(row, ',');
        if (!row) return NAN;
        row++;
    }
    return NAN;
}

int main(int argc, char **argv) {
    const char *sizes = "256,512,1024";
    int64_t block = 8192;
    int repeat = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = argv[++i];
        else if (!strcmp(argv[i], "--block") && i + 1 < argc) block = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--sizes 256,512,1024] [--block 8192] [--repeat 1]\n", argv[0]);
            return 2;
        }
    }
    if (block < 1 || repeat < 1) {
        fprintf(stderr, "sim_bench: --block and --repeat must be >= 1\n");
        return 2;
    }
    rs_err_t err;
    rs_machine_t m;
    if (bench_h100_machine("sim_bench: ", &m) != 0) return 1;
    printf("# sim_bench: ringsim sim vs a bare SimGrid C ring, non-causal forward, B = %lld, h100-sxm\n",
           (long long)block);
    printf("# wall: process wall time, best of %d; cpu: user+sys CPU time, best of %d; per_rstep: wall / (N * N\n"
           "# rank-steps); rss: peak RSS (wait4); rs_sim_s: SimGrid run inside ringsim's child; bare_inner_s: the\n"
           "# bare ring's own init-to-end time\n",
           repeat, repeat);
    printf("# paired: median over repeats of (ringsim CPU / bare CPU) of back-to-back runs\n");
    printf("%6s %10s %10s %10s %6s %10s %10s %6s %7s %12s %12s %10s %10s %10s %10s %9s\n", "N", "rank_steps",
           "rs_wall_s", "bare_wall", "ratio", "rs_cpu_s", "bare_cpu", "ratio", "paired", "rs_per_rstep", "bare_rstep",
           "rs_rss_MB", "bare_rssMB", "rs_sim_s", "bare_in_s", "makespan");
    char *buf = malloc(1 << 20);
    if (!buf) return 1;
    int rc = 0;
    for (const char *s = sizes; *s;) {
        int64_t n = atoll(s);
        const char *comma = strchr(s, ',');
        s = comma ? comma + 1 : s + strlen(s);
        if (n < 1) continue;
        rs_problem_t p;
        rs_problem_default(&p);
        p.n_ranks = n;
        p = rs_problem_with_block(&p, block);
        p.causal = false;
        p.layout = RS_LAYOUT_CONTIGUOUS;
        p.pass = RS_PASS_FORWARD;
        if (rs_problem_validate(&p, &err) != 0) {
            fprintf(stderr, "sim_bench: %s\n", err.msg);
            return 2;
        }
        char a_n[32], a_s[32], a_f[64], a_b[64], a_F[64], a_W[64], a_L[64];
        snprintf(a_n, sizeof a_n, "%lld", (long long)n);
        snprintf(a_s, sizeof a_s, "%lld", (long long)p.seq_tokens);
        snprintf(a_f, sizeof a_f, "%.17g", (double)rs_problem_flops_per_pair(&p) * (double)block * (double)block);
        snprintf(a_b, sizeof a_b, "%llu", (unsigned long long)rs_problem_kv_bytes(&p));
        snprintf(a_F, sizeof a_F, "%.17g", rs_machine_flops_eff(&m, (double)block));
        snprintf(a_W, sizeof a_W, "%.17g", m.intra.bw_bytes_per_s);
        snprintf(a_L, sizeof a_L, "%.17g", m.intra.latency_s);
        char *rs_argv[] = {RINGSIM, "sim", "-N", a_n, "-S", a_s, "--no-causal", "-L", "contiguous", "-P", "forward",
                           "--impl", "none", "--launch-overhead", "0", "--gpus-per-node", "0", "--csv", "-", NULL};
        char *bare_argv[] = {BARE, a_n, a_f, a_b, a_F, a_W, a_L, NULL};
        run_t best_rs = {INFINITY, INFINITY, 0, 0, 0}, best_bare = {INFINITY, INFINITY, 0, 0, 0};
        double paired[64]; /* CPU-time ratio of each back-to-back pair (drift cancels) */
        int n_paired = 0;
        double rs_cpu_k = 0;
        for (int k = 0; k < repeat; k++) {
            run_t r;
            if (run(rs_argv, buf, 1 << 20, &r) != 0) {
                fprintf(stderr, "sim_bench: ringsim sim failed at N = %lld\n", (long long)n);
                rc = 1;
                break;
            }
            /* --csv - : a header line, then the row */
            r.makespan_s = csv_field(buf, "makespan_s");
            r.inner_s = csv_field(buf, "sim_wall_s");
            if (r.wall_s < best_rs.wall_s) best_rs.wall_s = r.wall_s, best_rs.inner_s = r.inner_s;
            if (r.cpu_s < best_rs.cpu_s) best_rs.cpu_s = r.cpu_s;
            rs_cpu_k = r.cpu_s;
            if (r.rss_bytes > best_rs.rss_bytes) best_rs.rss_bytes = r.rss_bytes;
            best_rs.makespan_s = r.makespan_s;
            if (run(bare_argv, buf, 1 << 20, &r) != 0) {
                fprintf(stderr, "sim_bench: sim_bare_ring failed at N = %lld\n", (long long)n);
                rc = 1;
                break;
            }
            const char *ms = strstr(buf, "makespan_s="), *ws = strstr(buf, "wall_s=");
            r.makespan_s = ms ? strtod(ms + 11, NULL) : NAN;
            r.inner_s = ws ? strtod(ws + 7, NULL) : NAN;
            if (r.wall_s < best_bare.wall_s) best_bare.wall_s = r.wall_s, best_bare.inner_s = r.inner_s;
            if (r.cpu_s < best_bare.cpu_s) best_bare.cpu_s = r.cpu_s;
            if (n_paired < 64 && r.cpu_s > 0) paired[n_paired++] = rs_cpu_k / r.cpu_s;
            if (r.rss_bytes > best_bare.rss_bytes) best_bare.rss_bytes = r.rss_bytes;
            best_bare.makespan_s = r.makespan_s;
        }
        if (rc) break;
        const double rank_steps = (double)n * (double)n;
        for (int i = 1; i < n_paired; i++) /* median of the paired ratios */
            for (int j = i; j > 0 && paired[j] < paired[j - 1]; j--) {
                double t = paired[j];
                paired[j] = paired[j - 1];
                paired[j - 1] = t;
            }
        const double median = n_paired == 0 ? NAN
                              : n_paired % 2 ? paired[n_paired / 2]
                                             : 0.5 * (paired[n_paired / 2 - 1] + paired[n_paired / 2]);
        const bool same = fabs(best_rs.makespan_s - best_bare.makespan_s) <= 1e-9 * best_bare.makespan_s;
        printf("%6lld %10.0f %10.3f %10.3f %6.2f %10.3f %10.3f %6.2f %7.2f %10.3fus %10.3fus %10.1f %10.1f %10.3f %10.3f %9s\n",
               (long long)n, rank_steps, best_rs.wall_s, best_bare.wall_s, best_rs.wall_s / best_bare.wall_s,
               best_rs.cpu_s, best_bare.cpu_s, best_rs.cpu_s / best_bare.cpu_s, median, 1e6 * best_rs.wall_s / rank_steps,
               1e6 * best_bare.wall_s / rank_steps, best_rs.rss_bytes / 1e6, best_bare.rss_bytes / 1e6,
               best_rs.inner_s, best_bare.inner_s, same ? "equal" : "DIFFER");
        if (!same) fprintf(stderr, "sim_bench: N = %lld: ringsim's makespan %.17g s, the bare ring's %.17g s\n", (long long)n,
                           best_rs.makespan_s, best_bare.makespan_s);
        fflush(stdout);
        if (!same) rc = 1;
    }
    free(buf);
    printf("# targets: ratio <= 1.2, ringsim peak RSS < 200 MB at N = 1024 : %s\n", rc ? "FAILED (see above)" : "see table");
    return rc;
}
