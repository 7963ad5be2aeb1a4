/* model_bench.c - throughput of the analytic model (a benchmark, not a test).
 *
 *   build/bin/bench_model [N ...]
 *
 * Prints closed-form evaluations per second (one core) and the critical-path walk's wall time and
 * peak RSS for causal zigzag forward at N = 4096 and 16384 (or the N given), Llama-3-8B attention
 * (32/8 heads, d = 128), B = 1024 tokens per rank (S = 16M at N = 16384: larger S overflows the 64-bit
 * FLOP total). Two machines: H100-SXM figures inline (the dense model: F x eff(B)) and the h100-sxm
 * profile with its kernel curves (its default preset, flash-attn, on FlashAttention-2's curves).
 * Targets: >= 1e7 closed-form evaluations/s with either; walk < 0.1 s at N = 4096
 * and < 2 s at N = 16384 with O(N) memory. B* (rs_model_b_star, a search with kernel curves) and one
 * step's cost (rs_kernel_step, what the simulators call per step) are timed as well. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_proc.h"
#include "cost.h"
#include "kernel.h"

static long peak_rss_kb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* evals closed forms (or B* searches) of p at S = 16 x (1024 + i mod 1024): nothing hoisted. */
static int closed_loop(rs_problem_t p, const rs_machine_t *m, int evals, bool b_star, const char *what, double *sink) {
    const double t0 = rs_now_s();
    for (int i = 0; i < evals; i++) {
        p.n_ranks = 8;
        p.seq_tokens = 16 * (1024 + (i & 1023));
        rs_closed_t c;
        if ((b_star ? rs_model_b_star : rs_model_closed)(&p, m, &c, NULL) != 0) return -1;
        *sink += c.t_step_s + (b_star ? c.b_star_tokens : 0);
    }
    const double dt = rs_now_s() - t0;
    printf("%-40s %14.3e evals/s   (%d evals, %.3f s%s)\n", what, evals / dt, evals, dt, b_star ? "" : "; target >= 1e7/s");
    return 0;
}

/* The walk of p at N = n, B = 1024 on m. */
static int walk(rs_problem_t p, const rs_machine_t *m, int64_t n, const char *what, double *sink) {
    p.n_ranks = n;
    p = rs_problem_with_block(&p, 1024);
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    rs_walk_t w;
    rs_err_t err;
    const double t0 = rs_now_s();
    if (!s || rs_model_walk(s, m, RS_NO_SINK, NULL, &w, &err) != 0) {
        fprintf(stderr, "walk failed\n");
        rs_schedule_free(s);
        return -1;
    }
    const double dt = rs_now_s() - t0;
    printf("%-8lld %-10s %12lld %12.4f %14.2f %12.1f   (%s)\n", (long long)n, "zigzag", (long long)w.rank_steps, dt,
           1e9 * dt / (double)w.rank_steps, peak_rss_kb() / 1024.0, what);
    *sink += w.makespan_s;
    rs_schedule_free(s);
    return 0;
}

int main(int argc, char **argv) {
    const rs_machine_t m = rs_machine_figures("H100-SXM (figures inline)", RS_DTYPE_BF16, 989e12, (rs_tier_t){"nvlink4", 450e9, 3e-6, {0, 0, 0}, 0});
    rs_machine_t mk;
    if (bench_h100_machine("", &mk) != 0) return 1;
    rs_problem_t p;
    rs_problem_default(&p);
    p.causal = true;
    p.layout = RS_LAYOUT_ZIGZAG;
    double sink = 0;
    printf("# ringsim model benchmark (one core); kernel curves: h100-sxm, preset %s, kernel %s\n", rs_impl_name((rs_impl_t)mk.impl),
           mk.kernel > 0 ? mk.kernels.kernel[mk.kernel - 1].name : "none");
    if (closed_loop(p, &m, 2000000, false, "closed form, dense (rs_model_closed)", &sink) ||
        closed_loop(p, &mk, 2000000, false, "closed form, kernel curves", &sink) ||
        closed_loop(p, &mk, 2000, true, "B*, kernel curves (rs_model_b_star)", &sink))
        return 1;

    /* the seed's raw formulas alone */
    const int evals = 20000000;
    double t0 = rs_now_s();
    for (int i = 0; i < evals; i++) sink += rs_seed_t_comp_s(1024 + (i & 1023), 4 * 128 * 32, 989e12) +
                                            rs_seed_t_comm_s(1024 + (i & 1023), 4 * 128 * 8, 450e9);
    double dt = rs_now_s() - t0;
    printf("%-40s %14.3e evals/s\n", "seed formulas (T_comp + T_comm)", evals / dt);

    /* one step's cost alone (what the simulators call per rank and step) */
    {
        rs_problem_t q = p;
        q.n_ranks = 8, q.seq_tokens = 8 * 8192;
        rs_schedule_t *s = rs_schedule_create(&q, NULL);
        if (!s) return 1;
        rs_kmodel_t km;
        rs_kmodel_init(&km, &q, &mk);
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
        printf("%-40s %14.3e evals/s\n", "step cost, kernel curves (rs_kernel_step)", steps / dt);
        rs_schedule_free(s);
    }

    int64_t ns[8] = {4096, 16384};
    int n_ns = 2;
    if (argc > 1) {
        n_ns = 0;
        for (int i = 1; i < argc && n_ns < 8; i++) ns[n_ns++] = atoll(argv[i]);
    }
    printf("%-8s %-10s %12s %12s %14s %12s\n", "N", "layout", "rank-steps", "walk_s", "ns/rank-step", "peak_rss_MB");
    for (int i = 0; i < n_ns; i++)
        if (walk(p, &m, ns[i], "dense", &sink) || walk(p, &mk, ns[i], "kernel curves", &sink)) return 1;
    fprintf(stderr, "(checksum %g)\n", sink);
    return 0;
}
