/* model_bench.c - throughput of the analytic model (a benchmark, not a test).
 *
 *   build/bin/bench_model [N ...]
 *
 * Prints closed-form evaluations per second (one core) and the critical-path walk's wall time and
 * peak RSS for causal zigzag forward at N = 4096 and 16384 (or the N given), Llama-3-8B attention
 * (32/8 heads, d = 128), B = 1024 tokens per rank (S = 16M at N = 16384: larger S overflows the 64-bit FLOP total), H100-SXM figures. Targets (issue 2): >= 1e7
 * closed-form evaluations/s; walk < 0.1 s at N = 4096 and < 2 s at N = 16384 with O(N) memory.
 * Also the kernel model (issue 12: the H100-SXM profile's curves, flash-attn preset): the closed form
 * (B* included), one step's cost, and the walk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kernel.h"
#include "model.h"

static rs_machine_t h100(void) {
    rs_machine_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.hw_name, sizeof m.hw_name, "H100-SXM (figures inline)");
    m.dtype = RS_DTYPE_BF16;
    m.flops_per_s = 989e12;
    m.overlap = 1;
    m.comp_slowdown = 1;
    m.intra = (rs_tier_t){"nvlink4", 450e9, 3e-6};
    m.inter = m.intra;
    return m;
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

    /* the same with the H100-SXM profile's kernel curves (flash-attn preset, FlashAttention-2 curves):
     * the step classes come from a schedule and B* from a search over block sizes */
    rs_hw_t hw;
    rs_machine_t mk;
    rs_err_t kerr;
    if (rs_hw_load("h100-sxm", &hw, &kerr) != 0 || rs_machine_from_hw(&hw, RS_DTYPE_BF16, &mk, &kerr) != 0) {
        fprintf(stderr, "%s\n", kerr.msg);
        return 1;
    }
    const int kevals = 2000;
    t0 = rs_now_s();
    for (int i = 0; i < kevals; i++) {
        p.n_ranks = 8;
        p.seq_tokens = 16 * (1024 + (i & 1023));
        rs_closed_t c;
        if (rs_model_closed(&p, &mk, &c, NULL) != 0) return 1;
        sink += c.t_step_s + c.b_star_tokens;
    }
    dt = rs_now_s() - t0;
    printf("%-34s %14.3e evals/s   (%d evals, %.3f s; kernel curves, flash-attn, B* included)\n",
           "closed form, kernel model", kevals / dt, kevals, dt);
    /* one step's cost alone (the function every backend calls per step) */
    {
        p.n_ranks = 8;
        p.seq_tokens = 8 * 8192;
        rs_schedule_t *s = rs_schedule_create(&p, NULL);
        rs_kmodel_t km;
        if (!s || rs_kmodel_init(&km, &p, &mk, NULL) != 0) return 1;
        rs_step_t st;
        rs_schedule_step(s, 5, 2, &st);
        const int steps = 2000000;
        t0 = rs_now_s();
        for (int i = 0; i < steps; i++) {
            rs_kstep_t ks;
            st.step = 1 + (i & 3);
            rs_kernel_step(&km, &st, &ks);
            sink += ks.scaled_s;
        }
        dt = rs_now_s() - t0;
        printf("%-34s %14.3e evals/s\n", "step cost (rs_kernel_step)", steps / dt);
        rs_schedule_free(s);
    }

    int64_t ns[8] = {4096, 16384};
    int n_ns = 2;
    if (argc > 1) {
        n_ns = 0;
        for (int i = 1; i < argc && n_ns < 8; i++) ns[n_ns++] = atoll(argv[i]);
    }
    printf("%-8s %-10s %12s %12s %14s %12s\n", "N", "layout", "rank-steps", "walk_s", "ns/rank-step", "peak_rss_MB");
    for (int i = 0; i < n_ns; i++) {
        p.n_ranks = ns[i];
        p.seq_tokens = 1024 * ns[i];
        rs_schedule_t *s = rs_schedule_create(&p, NULL);
        rs_walk_t w;
        t0 = rs_now_s();
        rs_err_t err;
        if (!s || rs_model_walk(s, &m, NULL, NULL, &w, &err) != 0) {
            fprintf(stderr, "walk failed\n");
            return 1;
        }
        dt = rs_now_s() - t0;
        printf("%-8lld %-10s %12lld %12.4f %14.2f %12.1f\n", (long long)ns[i], "zigzag", (long long)w.rank_steps, dt,
               1e9 * dt / (double)w.rank_steps, peak_rss_kb() / 1024.0);
        sink += w.makespan_s;
        t0 = rs_now_s();
        if (rs_model_walk(s, &mk, NULL, NULL, &w, &err) != 0) {
            fprintf(stderr, "walk failed: %s\n", err.msg);
            return 1;
        }
        dt = rs_now_s() - t0;
        printf("%-8lld %-10s %12lld %12.4f %14.2f %12.1f   (kernel curves, flash-attn)\n", (long long)ns[i], "zigzag",
               (long long)w.rank_steps, dt, 1e9 * dt / (double)w.rank_steps, peak_rss_kb() / 1024.0);
        sink += w.makespan_s;
        rs_schedule_free(s);
    }
    fprintf(stderr, "(checksum %g)\n", sink);
    return 0;
}
