/* exec_kernel.c - benchmark: the CPU attention kernel against plain OpenBLAS sgemm, side by side.
 *
 * For each B (default 512, 1024, 2048, 4096), d = 128, one head, one thread:
 *   sgemm   the two products of a full block as two plain sgemm calls on the whole block:
 *           S = Q K^T (B x B x d) and O = P V (B x d x B): 4 B^2 d FLOPs;
 *   kernel  the executor's forward step on one FULL B x B block (rs_cpu_compute_ops: the same two
 *           products per tile of 128 rows + the online softmax), same FLOPs.
 * Prints GFLOP/s of both (median of repetitions) and the ratio, with the OpenBLAS core that ran.
 * Set OPENBLAS_CORETYPE (e.g. SkylakeX, Haswell) to pick the BLAS kernel; the core is printed.
 * usage: bench_exec_kernel [B ...]
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_time(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp);
    return t[n / 2];
}

int main(int argc, char **argv) {
    int64_t blocks[16] = {512, 1024, 2048, 4096};
    int nb = 4;
    if (argc > 1) {
        nb = 0;
        for (int i = 1; i < argc && nb < 16; i++) blocks[nb++] = atoll(argv[i]);
    }
    openblas_set_num_threads(1);
    const int64_t d = 128;
    printf("# bench_exec_kernel: CPU attention kernel vs plain sgemm, d = %lld, 1 head, 1 thread\n", (long long)d);
    printf("# BLAS: %s (OPENBLAS_CORETYPE=%s)\n", rs_exec_blas_version(), getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "unset");
    printf("# %6s %12s %12s %8s %8s\n", "B", "sgemm_GF/s", "kernel_GF/s", "ratio", "reps");
    for (int i = 0; i < nb; i++) {
        const int64_t B = blocks[i];
        rs_problem_t p;
        rs_problem_default(&p);
        p.seq_tokens = B, p.n_ranks = 1, p.batch = 1, p.q_heads = 1, p.kv_heads = 1, p.head_dim = d;
        p.act_bytes = 4, p.grad_bytes = 4, p.causal = false, p.layout = RS_LAYOUT_CONTIGUOUS, p.pass = RS_PASS_FORWARD;
        rs_err_t err;
        rs_schedule_t *s = rs_schedule_create(&p, &err);
        if (!s) {
            fprintf(stderr, "bench_exec_kernel: B=%lld: %s\n", (long long)B, err.msg);
            return 2;
        }
        rs_step_t st;
        rs_schedule_step(s, 0, 0, &st);
        rs_exec_rank_t ri = {.problem = p, .rank = 0, .block_tokens = B, .softmax_scale = 1.0 / sqrt((double)d)};
        ri.n_segs = rs_schedule_rank_segments(s, 0, ri.segs);
        void *cs = NULL, *kv = NULL;
        const size_t n = (size_t)(B * d);
        float *q = malloc(n * 4), *k = malloc(n * 4), *v = malloc(n * 4), *S = malloc((size_t)(B * B) * 4), *o = malloc(n * 4);
        if (!q || !k || !v || !S || !o || rs_cpu_compute_ops.create(&ri, &cs, &err) < 0 ||
            rs_cpu_compute_ops.buf_alloc(cs, rs_problem_kv_bytes(&p), &kv, &err) < 0) {
            fprintf(stderr, "bench_exec_kernel: B=%lld: out of memory or %s\n", (long long)B, err.msg);
            return 1;
        }
        rs_exec_fill_local(1, RS_TENSOR_Q, &p, ri.n_segs, ri.segs, 1.0, q);
        rs_exec_fill_local(1, RS_TENSOR_K, &p, ri.n_segs, ri.segs, 1.0, k);
        rs_exec_fill_local(1, RS_TENSOR_V, &p, ri.n_segs, ri.segs, 1.0, v);
        rs_cpu_compute_ops.upload(cs, RS_TENSOR_Q, q, NULL, &err);
        rs_cpu_compute_ops.upload(cs, RS_TENSOR_K, k, kv, &err);
        rs_cpu_compute_ops.upload(cs, RS_TENSOR_V, v, kv, &err);
        const double flops = 4.0 * (double)B * (double)B * (double)d;
        int reps = (int)fmax(3, fmin(30, 2e10 / flops));
        double tg[32], tk[32];
        for (int r = 0; r <= reps; r++) { /* interleaved, first round is warm-up */
            double t0 = rs_now_s();
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)B, (int)B, (int)d, 1.0f, q, (int)d, k, (int)d, 0.0f, S, (int)B);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)B, (int)d, (int)B, 1.0f, S, (int)B, v, (int)d, 0.0f, o, (int)d);
            double t1 = rs_now_s();
            rs_cpu_compute_ops.fwd_begin(cs, &err);
            rs_cpu_compute_ops.fwd_step(cs, &st, kv, &err);
            double c0, c1;
            rs_cpu_compute_ops.wait(cs, &c0, &c1, &err);
            if (r > 0) tg[r - 1] = t1 - t0, tk[r - 1] = c1 - c0;
        }
        double gs = flops / median_time(tg, reps) * 1e-9, gk = (double)st.flops_exec / median_time(tk, reps) * 1e-9;
        printf("  %6lld %12.2f %12.2f %8.3f %8d\n", (long long)B, gs, gk, gk / gs, reps);
        fflush(stdout);
        rs_cpu_compute_ops.buf_free(cs, kv);
        rs_cpu_compute_ops.destroy(cs);
        rs_schedule_free(s);
        free(q), free(k), free(v), free(S), free(o);
    }
    return 0;
}
