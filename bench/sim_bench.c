/* sim_bench.c - `ringsim sim` against a bare SimGrid C ring of the same shape (bench/sim_bare_ring.c).
 *
 * For each N (default 256, 512, 1024): a non-causal forward pass with B tokens per rank on the
 * h100-sxm profile (F = 989 TFLOP/s, W = 450 GB/s, 3 us), run as three processes one after the other:
 *   ringsim sim -N N -S N*B --no-causal -L contiguous -P forward --impl none --launch-overhead 0 --gpus-per-node 0 --csv -
 *   the same with --no-fold (every rank simulated instead of one: the ring's rotation fold, ring_fold.h)
 *   sim_bare_ring N FLOPS_PER_STEP BYTES_PER_STEP F W LATENCY
 * The step's FLOPs and bytes come from the schedule (rs_problem_flops_per_pair, rs_problem_kv_bytes)
 * and the machine from the same profile; --impl none makes ringsim cost a step at the dense
 * F_eff(B) the bare ring runs at (not the profile's kernel curves), --launch-overhead 0 drops the
 * profile's launch cost per step (the bare ring has none) and --gpus-per-node 0 makes the ring flat
 * (one link per hop, as the bare ring's), so both simulate the same ring. Printed per N: wall time of
 * each process (best of --repeat), time per simulated rank-step, peak RSS (wait4: the process and
 * its children, the one child-process helper), the ratios ringsim / bare (best against best, and the median of back-to-back pairs,
 * which cancels the drift of a shared machine), and the three makespans (they must agree).
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
    printf("# fold: ringsim sim (the ring folded by its rotation symmetry, docs/sim.md \"Folding a single ring\"); nofold:\n"
           "# ringsim sim --no-fold (every rank simulated); bare: the bare SimGrid ring; back to back in that order per repeat\n");
    printf("# wall: process wall time, best of %d; cpu: user+sys CPU time, best of %d; f/b, n/b: folded and --no-fold over\n"
           "# the bare ring; paired: median over repeats of (ringsim CPU / bare CPU) of back-to-back runs; rss: peak RSS\n"
           "# (wait4), MB; sim_s: SimGrid run inside ringsim's child, the bare ring's own init-to-end time\n",
           repeat, repeat);
    printf("%6s %10s %9s %9s %9s %6s %6s %9s %9s %9s %6s %6s %6s %6s %7s %7s %7s %9s %9s %9s %9s\n", "N", "rank_steps", "fold_wall",
           "nofold_wl", "bare_wall", "f/b", "n/b", "fold_cpu", "nofold_cp", "bare_cpu", "f/b", "n/b", "pair_f", "pair_n", "fold_rs",
           "nofld_rs", "bare_rs", "fold_sim", "nofld_sim", "bare_sim", "makespan");
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
                           "--impl", "none", "--launch-overhead", "0", "--gpus-per-node", "0", "--csv", "-", NULL, NULL};
        char *nofold_argv[sizeof rs_argv / sizeof rs_argv[0]];
        memcpy(nofold_argv, rs_argv, sizeof rs_argv);
        nofold_argv[sizeof rs_argv / sizeof rs_argv[0] - 2] = "--no-fold";
        char *bare_argv[] = {BARE, a_n, a_f, a_b, a_F, a_W, a_L, NULL};
        char *const *argvs[3] = {rs_argv, nofold_argv, bare_argv};
        const char *names[3] = {"ringsim sim", "ringsim sim --no-fold", "sim_bare_ring"};
        run_t best[3];
        for (int q = 0; q < 3; q++) best[q] = (run_t){INFINITY, INFINITY, 0, 0, 0};
        double paired[2][64]; /* CPU-time ratio to the bare ring of each back-to-back triple (drift cancels) */
        int n_paired = 0;
        for (int k = 0; k < repeat && rc == 0; k++) {
            run_t r[3];
            for (int q = 0; q < 3 && rc == 0; q++) {
                if (run(argvs[q], buf, 1 << 20, &r[q]) != 0) {
                    fprintf(stderr, "sim_bench: %s failed at N = %lld\n", names[q], (long long)n);
                    rc = 1;
                    break;
                }
                if (q < 2) { /* --csv - : a header line, then the row */
                    r[q].makespan_s = csv_field(buf, "makespan_s");
                    r[q].inner_s = csv_field(buf, "sim_wall_s");
                } else {
                    const char *ms = strstr(buf, "makespan_s="), *ws = strstr(buf, "wall_s=");
                    r[q].makespan_s = ms ? strtod(ms + 11, NULL) : NAN;
                    r[q].inner_s = ws ? strtod(ws + 7, NULL) : NAN;
                }
                if (r[q].wall_s < best[q].wall_s) best[q].wall_s = r[q].wall_s, best[q].inner_s = r[q].inner_s;
                if (r[q].cpu_s < best[q].cpu_s) best[q].cpu_s = r[q].cpu_s;
                if (r[q].rss_bytes > best[q].rss_bytes) best[q].rss_bytes = r[q].rss_bytes;
                best[q].makespan_s = r[q].makespan_s;
            }
            if (rc == 0 && n_paired < 64 && r[2].cpu_s > 0) {
                paired[0][n_paired] = r[0].cpu_s / r[2].cpu_s;
                paired[1][n_paired++] = r[1].cpu_s / r[2].cpu_s;
            }
        }
        if (rc) break;
        const double rank_steps = (double)n * (double)n;
        double median[2];
        for (int q = 0; q < 2; q++) {
            double *v = paired[q];
            for (int a = 1; a < n_paired; a++) /* median of the paired ratios */
                for (int b = a; b > 0 && v[b] < v[b - 1]; b--) {
                    double t = v[b];
                    v[b] = v[b - 1];
                    v[b - 1] = t;
                }
            median[q] = n_paired == 0 ? NAN : n_paired % 2 ? v[n_paired / 2] : 0.5 * (v[n_paired / 2 - 1] + v[n_paired / 2]);
        }
        const double ref = best[2].makespan_s;
        const bool same = fabs(best[0].makespan_s - ref) <= 1e-9 * ref && fabs(best[1].makespan_s - ref) <= 1e-9 * ref;
        printf("%6lld %10.0f %9.3f %9.3f %9.3f %6.3f %6.2f %9.3f %9.3f %9.3f %6.3f %6.2f %6.3f %6.2f %7.1f %7.1f %7.1f %9.3f %9.3f %9.3f %9s\n",
               (long long)n, rank_steps, best[0].wall_s, best[1].wall_s, best[2].wall_s, best[0].wall_s / best[2].wall_s,
               best[1].wall_s / best[2].wall_s, best[0].cpu_s, best[1].cpu_s, best[2].cpu_s, best[0].cpu_s / best[2].cpu_s,
               best[1].cpu_s / best[2].cpu_s, median[0], median[1], best[0].rss_bytes / 1e6, best[1].rss_bytes / 1e6,
               best[2].rss_bytes / 1e6, best[0].inner_s, best[1].inner_s, best[2].inner_s, same ? "equal" : "DIFFER");
        if (!same)
            fprintf(stderr, "sim_bench: N = %lld: makespans folded %.17g s, --no-fold %.17g s, bare ring %.17g s\n", (long long)n,
                    best[0].makespan_s, best[1].makespan_s, ref);
        fflush(stdout);
        if (!same) rc = 1;
    }
    free(buf);
    printf("# targets (docs/benchmarks.md): folded <= 0.5 x the bare ring at N = 1024 and 2048, --no-fold <= 1.2 x, peak RSS\n"
           "# < 200 MB at N = 1024: %s\n", rc ? "FAILED (see above)" : "see table");
    return rc;
}
