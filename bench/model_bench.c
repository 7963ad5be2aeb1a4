/* model_bench.c - throughput of the analytic model (a benchmark, not a test).
 *
 *   build/bin/bench_model [N ...]
 *
 * Prints closed-form evaluations per second (one core) and the critical-path walk's wall time and
 * peak RSS for causal zigzag forward at N = 4096 and 16384 (or the N given), Llama-3-8B attention
 * (32/8 heads, d = 128), B = 1024 tokens per rank (S = 16M at N = 16384: larger S overflows the 64-bit FLOP total), H100-SXM figures. Targets (issue 2): >= 1e7
 * closed-form evaluations/s; walk < 0.1 s at N = 4096 and < 2 s at N = 16384 with O(N) memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "model.h"

static rs_machine_t h100(void) {
    return rs_machine_figures("H100-SXM (figures inline)", RS_DTYPE_BF16, 989e12, (rs_tier_t){"nvlink4", 450e9, 3e-6});
}

static long peak_rss_kb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(int argc, char **argv) {
    rs_machine_t m = h100();
    rs_problem_t p;
    rs_problem_default(&p);
    p.causal = true;
    p.layout = RS_LAYOUT_ZIGZAG;

    /* closed form: vary S so nothing is hoisted out of the loop */
    const int evals = 2000000;
    double sink = 0, t0 = rs_now_s();
    for (int i = 0; i < evals; i++) {
        p.n_ranks = 8;
        p.seq_tokens = 16 * (1024 + (i & 1023));
        rs_closed_t c;
        if (rs_model_closed(&p, &m, &c, NULL) != 0) return 1;
        sink += c.t_step_s;
    }
    double dt = rs_now_s() - t0;
    printf("# ringsim model benchmark (one core)\n");
    printf("%-34s %14.3e evals/s   (%d evals, %.3f s; target >= 1e7/s)\n", "closed form (rs_model_closed)",
           evals / dt, evals, dt);

    /* the seed's raw formulas alone */
    t0 = rs_now_s();
    for (int i = 0; i < evals * 10; i++) sink += rs_seed_t_comp_s(1024 + (i & 1023), 4 * 128 * 32, 989e12) +
                                                 rs_seed_t_comm_s(1024 + (i & 1023), 4 * 128 * 8, 450e9);
    dt = rs_now_s() - t0;
    printf("%-34s %14.3e evals/s\n", "seed formulas (T_comp + T_comm)", evals * 10 / dt);

    int64_t ns[8] = {4096, 16384};
    int n_ns = 2;
    if (argc > 1) {
        n_ns = 0;
        for (int i = 1; i < argc && n_ns < 8; i++) ns[n_ns++] = atoll(argv[i]);
    }
    printf("%-8s %-10s %12s %12s %14s %12s\n", "N", "layout", "rank-steps", "walk_s", "ns/rank-step", "peak_rss_MB");
    for (int i = 0; i < n_ns; i++) {
        p.n_ranks = ns[i];
        p = rs_problem_with_block(&p, 1024);
        rs_schedule_t *s = rs_schedule_create(&p, NULL);
        rs_walk_t w;
        t0 = rs_now_s();
        rs_err_t err;
        if (!s || rs_model_walk(s, &m, RS_NO_SINK, NULL, &w, &err) != 0) {
            fprintf(stderr, "walk failed\n");
            return 1;
        }
        dt = rs_now_s() - t0;
        printf("%-8lld %-10s %12lld %12.4f %14.2f %12.1f\n", (long long)ns[i], "zigzag", (long long)w.rank_steps, dt,
               1e9 * dt / (double)w.rank_steps, peak_rss_kb() / 1024.0);
        sink += w.makespan_s;
        rs_schedule_free(s);
    }
    fprintf(stderr, "(checksum %g)\n", sink);
    return 0;
}
