/* exec_kernel.c - benchmark: the CPU attention kernel against plain OpenBLAS sgemm, side by side.
 *
 * For each B (default 512, 1024, 2048, 4096), d = 128, one head, one thread, one FULL B x B block:
 *   forward   sgemm:  the two products as two plain sgemm calls on the whole block,
 *                     S = Q K^T (B x B x d) and O = P V (B x d x B): 4 B^2 d FLOPs;
 *             kernel: the executor's forward step (rs_cpu_compute_ops: the same products per tile
 *                     and column chunk + the online softmax), the same FLOPs.
 *   backward  sgemm:  the five products on the whole block: S = Q K^T, dV = P^T dO, dP = dO V^T,
 *                     dQ = dS K, dK = dS^T Q: 10 B^2 d FLOPs;
 *             kernel: the executor's backward step (P recomputed from lse, dS, the five products
 *                     per tile and chunk), the same FLOPs.
 * Each repetition times sgemm, the kernel (fast path, RINGSIM_CPU_KERNEL as set, default auto) and
 * the plain reference kernel (RINGSIM_CPU_KERNEL=plain) back to back; a ratio is sgemm time / kernel
 * time of the same repetition (paired: the machine's speed may drift between repetitions), and the
 * printed ratio is the median of the pairs. GFLOP/s are medians of their own times.
 * The header names the CPU, its vector ISA, its caches, the OpenBLAS core and thread count, and
 * the kernel that ran (its describe() line). OPENBLAS_CORETYPE, if set, is printed, never set.
 * Times are this thread's CPU time by default (--clock cpu: on a machine shared with other jobs the
 * time the core was taken away is not counted; cache pollution still is), or wall time (--clock wall).
 * --shapes prints instead sgemm alone on the kernel's call shapes and the whole block's (the largest B).
 * usage: bench_exec_kernel [--pass forward|backward|both] [--no-plain] [--clock cpu|wall] [--min-s S]
 *                          [--shapes] [B ...]
 */
#include <cblas.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"
#include "exec.h"

#define MAX_REPS 64

static bool g_cpu_clock = true; /* --clock cpu (default) | wall */

/* Seconds on the chosen clock: this thread's CPU time (the time it ran: a machine shared with
 * other jobs takes the core away, not counted) or the wall clock (rs_now_s). */
static double clock_s(void) {
    if (!g_cpu_clock) return rs_now_s();
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The median of n samples, leaving them in place (rs_median sorts its input). */
static double median(const double *t, int n) {
    double s[MAX_REPS];
    memcpy(s, t, (size_t)n * sizeof *s);
    return rs_median(s, (size_t)n);
}

/* "AMD EPYC 7B12" from /proc/cpuinfo (or "unknown"). */
static void cpu_model(char *out, size_t n) {
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *v = strchr(line, ':');
        if (!v) break;
        for (v++; *v == ' ' || *v == '\t'; v++) {}
        snprintf(out, n, "%s", v);
        out[strcspn(out, "\n")] = 0;
        break;
    }
    fclose(f);
}

/* Size of cpu0's cache at `level` (data or unified) from /sys, in KiB; 0 if unknown. */
static long cache_kib(int level) {
    for (int i = 0; i < 8; i++) {
        char path[128], buf[64];
        long lv = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        if (fscanf(f, "%ld", &lv) != 1) lv = 0;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!(f = fopen(path, "r"))) continue;
        bool instr = fgets(buf, sizeof buf, f) && strncmp(buf, "Instruction", 11) == 0;
        fclose(f);
        if (lv != level || instr) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!(f = fopen(path, "r"))) continue;
        long kib = 0;
        char unit = 'K';
        int got = fscanf(f, "%ld%c", &kib, &unit);
        fclose(f);
        if (got >= 1) return unit == 'M' ? kib * 1024 : kib;
    }
    return 0;
}

static void print_header(void) {
    char model[256], isa[128] = "";
    cpu_model(model, sizeof model);
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    const char *feat[] = {"avx512f", "avx512bw", "avx512vl", "avx2", "fma", "avx", "sse4.2"};
    const int has[] = {__builtin_cpu_supports("avx512f"), __builtin_cpu_supports("avx512bw"),
                       __builtin_cpu_supports("avx512vl"), __builtin_cpu_supports("avx2"),
                       __builtin_cpu_supports("fma"), __builtin_cpu_supports("avx"), __builtin_cpu_supports("sse4.2")};
    for (size_t i = 0; i < sizeof has / sizeof has[0]; i++)
        if (has[i]) snprintf(isa + strlen(isa), sizeof isa - strlen(isa), "%s%s", isa[0] ? " " : "", feat[i]);
#endif
    const char *core = openblas_get_corename();
    const char *ct = getenv("OPENBLAS_CORETYPE");
    printf("# bench_exec_kernel: CPU attention kernel vs plain sgemm, d = 128, 1 head, 1 FULL block\n");
    printf("# CPU: %s; ISA: %s; caches L1d %ld KiB, L2 %ld KiB, L3 %ld KiB (cpu0, /sys)\n", model,
           isa[0] ? isa : "none of avx512f/avx2/fma/avx/sse4.2", cache_kib(1), cache_kib(2), cache_kib(3));
    printf("# OpenBLAS core %s, %d thread(s); OPENBLAS_CORETYPE=%s\n", core ? core : "?", openblas_get_num_threads(),
           ct ? ct : "unset");
    char why[512];
    if (rs_exec_blas_core_note(why, sizeof why)) printf("# warning: %s\n", why);
}

typedef struct {
    rs_problem_t p;
    rs_schedule_t *sf, *sb;  /* forward, backward schedules (N = 1) */
    rs_step_t stf, stb;      /* step 0 of each: one FULL B x B block */
    rs_exec_rank_t ri;
    float *q, *k, *v, *d_o;  /* host inputs */
} setup_t;

/* One kernel state with its inputs uploaded, a forward done (O, lse) and bwd_begin run (D). */
typedef struct {
    void *cs, *kv, *dkv;
} kernel_t;

static int kernel_make(const setup_t *s, const char *variant, kernel_t *k, rs_err_t *err) {
    const rs_compute_ops_t *o = &rs_cpu_compute_ops;
    const char *old = getenv("RINGSIM_CPU_KERNEL");
    char saved[64] = "";
    if (old) snprintf(saved, sizeof saved, "%s", old);
    if (variant) setenv("RINGSIM_CPU_KERNEL", variant, 1);
    int rc = o->create(&s->ri, &k->cs, err);
    if (variant) {
        if (old) setenv("RINGSIM_CPU_KERNEL", saved, 1);
        else unsetenv("RINGSIM_CPU_KERNEL");
    }
    if (rc < 0) return -1;
    if (o->buf_alloc(k->cs, rs_problem_kv_bytes(&s->p), &k->kv, err) < 0 ||
        o->buf_alloc(k->cs, rs_problem_dkv_bytes(&s->p), &k->dkv, err) < 0 ||
        o->upload(k->cs, RS_TENSOR_Q, s->q, NULL, err) < 0 || o->upload(k->cs, RS_TENSOR_K, s->k, k->kv, err) < 0 ||
        o->upload(k->cs, RS_TENSOR_V, s->v, k->kv, err) < 0 || o->upload(k->cs, RS_TENSOR_DO, s->d_o, NULL, err) < 0 ||
        o->fwd_begin(k->cs, err) < 0 || o->fwd_step(k->cs, &s->stf, k->kv, err) < 0 || o->fwd_end(k->cs, err) < 0 ||
        o->bwd_begin(k->cs, err) < 0)
        return -1;
    return 0;
}

static void kernel_free(kernel_t *k) {
    if (!k->cs) return;
    if (k->kv) rs_cpu_compute_ops.buf_free(k->cs, k->kv);
    if (k->dkv) rs_cpu_compute_ops.buf_free(k->cs, k->dkv);
    rs_cpu_compute_ops.destroy(k->cs);
    memset(k, 0, sizeof *k);
}

/* Time one forward (backward) step of k; the state's statistics are reset first (untimed). */
static double kernel_time(const setup_t *s, kernel_t *k, bool bwd) {
    const rs_compute_ops_t *o = &rs_cpu_compute_ops;
    rs_err_t err;
    double t0, t1;
    if (bwd) {
        o->grad_zero(k->cs, k->dkv, &err);
        o->bwd_begin(k->cs, &err);
        t0 = clock_s();
        o->bwd_step(k->cs, &s->stb, k->kv, k->dkv, &err);
    } else {
        o->fwd_begin(k->cs, &err);
        t0 = clock_s();
        o->fwd_step(k->cs, &s->stf, k->kv, &err);
    }
    o->wait(k->cs, NULL, NULL, &err); /* synchronous on the CPU: the step is done */
    t1 = clock_s();
    return t1 - t0;
}

/* The plain-sgemm baseline of one pass on the whole block (S, T: B x B scratch). */
static double sgemm_time(const setup_t *s, float *S, float *T, float *out, bool bwd) {
    const int B = (int)s->ri.block_tokens, d = (int)s->p.head_dim;
    double t0 = clock_s();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, B, d, 1.0f, s->q, d, s->k, d, 0.0f, S, B);
    if (!bwd) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, d, B, 1.0f, S, B, s->v, d, 0.0f, out, d);
        return clock_s() - t0;
    }
    const size_t n = (size_t)B * (size_t)d;
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, B, d, B, 1.0f, S, B, s->d_o, d, 0.0f, out, d);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, B, d, 1.0f, s->d_o, d, s->v, d, 0.0f, T, B);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, d, B, 1.0f, T, B, s->k, d, 0.0f, out + n, d);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, B, d, B, 1.0f, T, B, s->q, d, 0.0f, out + 2 * n, d);
    return clock_s() - t0;
}

static int setup_make(int64_t B, setup_t *s, rs_err_t *err) {
    memset(s, 0, sizeof *s);
    rs_problem_t *p = &s->p;
    rs_problem_default(p);
    p->seq_tokens = B, p->n_ranks = 1, p->batch = 1, p->q_heads = 1, p->kv_heads = 1, p->head_dim = 128;
    p->act_bytes = 4, p->grad_bytes = 4, p->causal = false, p->layout = RS_LAYOUT_CONTIGUOUS;
    p->pass = RS_PASS_FORWARD;
    if (!(s->sf = rs_schedule_create(p, err))) return -1;
    p->pass = RS_PASS_BACKWARD;
    if (!(s->sb = rs_schedule_create(p, err))) return -1;
    rs_schedule_step(s->sf, 0, 0, &s->stf);
    rs_schedule_step(s->sb, 0, 0, &s->stb);
    s->ri = (rs_exec_rank_t){.problem = *p, .rank = 0, .block_tokens = B, .softmax_scale = 1.0 / sqrt(128.0)};
    s->ri.n_segs = rs_schedule_rank_segments(s->sf, 0, s->ri.segs);
    const size_t n = (size_t)(B * p->head_dim);
    s->q = malloc(n * 4), s->k = malloc(n * 4), s->v = malloc(n * 4), s->d_o = malloc(n * 4);
    if (!s->q || !s->k || !s->v || !s->d_o) return rs_errf(err, "out of memory");
    const rs_tensor_t tn[4] = {RS_TENSOR_Q, RS_TENSOR_K, RS_TENSOR_V, RS_TENSOR_DO};
    float *const dst[4] = {s->q, s->k, s->v, s->d_o};
    for (int i = 0; i < 4; i++) rs_exec_fill_local(&(rs_exec_input_t){1, tn[i], p, 1.0}, s->ri.n_segs, s->ri.segs, dst[i]);
    return 0;
}

static void setup_free(setup_t *s) {
    rs_schedule_free(s->sf), rs_schedule_free(s->sb);
    free(s->q), free(s->k), free(s->v), free(s->d_o);
}

/* One row: pass bwd at block B, repetitions until min_s of kernel time (3..MAX_REPS). */
static int bench_row(const setup_t *s, kernel_t *fast, kernel_t *plain, bool bwd, double min_s) {
    const int64_t B = s->ri.block_tokens;
    const size_t bb = (size_t)B * (size_t)B, n = (size_t)B * (size_t)s->p.head_dim;
    float *S = malloc(bb * 4), *T = malloc(bb * 4), *out = malloc(3 * n * 4);
    if (!S || !T || !out) {
        free(S), free(T), free(out);
        return -1;
    }
    double tg[MAX_REPS], tk[MAX_REPS], tp[MAX_REPS], rk[MAX_REPS], rp[MAX_REPS], spent = 0;
    int reps = 0;
    for (int r = -1; r < MAX_REPS && (r < 3 || spent < min_s); r++) { /* r = -1: warm-up */
        double g = sgemm_time(s, S, T, out, bwd), k = kernel_time(s, fast, bwd);
        double pl = plain ? kernel_time(s, plain, bwd) : NAN;
        if (r < 0) continue;
        tg[r] = g, tk[r] = k, tp[r] = pl, rk[r] = g / k, rp[r] = g / pl;
        spent += k, reps = r + 1;
    }
    const double flops = (bwd ? 10.0 : 4.0) * (double)B * (double)B * (double)s->p.head_dim;
    const double exec = (double)(bwd ? s->stb.flops_exec : s->stf.flops_exec);
    printf("  %6lld %-8s %11.2f %12.2f %8.3f", (long long)B, bwd ? "backward" : "forward",
           flops / median(tg, reps) * 1e-9, exec / median(tk, reps) * 1e-9, median(rk, reps));
    if (plain) printf(" %12.2f %8.3f", exec / median(tp, reps) * 1e-9, median(rp, reps));
    else printf(" %12s %8s", "-", "-");
    printf(" %6d\n", reps);
    fflush(stdout);
    free(S), free(T), free(out);
    return 0;
}

/* --shapes: OpenBLAS sgemm alone on the kernel's call shapes against the whole-block shapes (d = 128,
 * operands hot in cache: repeated calls), best of 5 rounds of >= min_s / 10 each. Is any shape the
 * BLAS runs slowly (tall-skinny, transposed, beta = 1)? */
static int shapes_table(int64_t B, double min_s) {
    typedef struct {
        const char *what;
        bool ta, tb;
        int m, n, k;
        float beta;
    } shape_t;
    const int b = (int)B, d = 128;
    const shape_t sh[] = {
        {"whole block  S = Q K^T      (NT)", false, true, b, b, d, 0},
        {"whole block  O = P V        (NN)", false, false, b, d, b, 0},
        {"whole block  dV = P^T dO    (TN)", true, false, b, d, b, 0},
        {"tile 128, 512 cols: S   (NT)", false, true, 128, 512, d, 0},
        {"tile 128, 512 cols: PV  (NN, b1)", false, false, 128, d, 512, 1},
        {"tile 128, 512 cols: dV  (TN, b1)", true, false, 512, d, 128, 1},
        {"panel 512, 256 cols: S  (NT)", false, true, 512, 256, d, 0},
        {"panel 512, 256 cols: PV (NN, b1)", false, false, 512, d, 256, 1},
        {"panel 256, 256 cols: dV (TN, b1)", true, false, 256, d, 256, 1},
        {"panel 512, 512 cols: S  (NT)", false, true, 512, 512, d, 0},
        {"panel 512, 512 cols: PV (NN, b1)", false, false, 512, d, 512, 1}};
    const size_t big = (size_t)(b > 512 ? b : 512) * (size_t)(b > 512 ? b : 512);
    float *A = malloc(big * 4), *Bm = malloc(big * 4), *C = malloc(big * 4);
    if (!A || !Bm || !C) {
        free(A), free(Bm), free(C);
        return -1;
    }
    for (size_t i = 0; i < big; i++) A[i] = Bm[i] = C[i] = (float)((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
    printf("# sgemm alone per shape (M x N x K; b1: beta = 1), GFLOP/s, best of 5 rounds, operands hot\n");
    for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++) {
        const shape_t *x = &sh[i];
        const double fl = 2.0 * x->m * x->n * x->k;
        double best = 0;
        for (int round = 0; round < 5; round++) {
            double t0 = clock_s(), t = 0;
            int calls = 0;
            do {
                cblas_sgemm(CblasRowMajor, x->ta ? CblasTrans : CblasNoTrans, x->tb ? CblasTrans : CblasNoTrans, x->m,
                            x->n, x->k, 1.0f, A, x->ta ? x->m : x->k, Bm, x->tb ? x->k : x->n, x->beta, C, x->n);
                calls++, t = clock_s() - t0;
            } while (t < min_s / 10);
            best = fmax(best, fl * calls / t * 1e-9);
        }
        printf("  %-34s %5d x %5d x %5d  %8.2f\n", x->what, x->m, x->n, x->k, best);
    }
    free(A), free(Bm), free(C);
    return 0;
}

int main(int argc, char **argv) {
    int64_t blocks[16] = {512, 1024, 2048, 4096};
    int nb = 0;
    bool do_fwd = true, do_bwd = true, with_plain = true, shapes = false;
    double min_s = 1.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--pass") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            do_fwd = strcmp(v, "forward") == 0 || strcmp(v, "both") == 0;
            do_bwd = strcmp(v, "backward") == 0 || strcmp(v, "both") == 0;
            if (!do_fwd && !do_bwd) {
                fprintf(stderr, "bench_exec_kernel: --pass %s: must be forward, backward or both\n", v);
                return 2;
            }
        } else if (strcmp(argv[i], "--clock") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "cpu") != 0 && strcmp(v, "wall") != 0) {
                fprintf(stderr, "bench_exec_kernel: --clock %s: must be cpu or wall\n", v);
                return 2;
            }
            g_cpu_clock = strcmp(v, "cpu") == 0;
        } else if (strcmp(argv[i], "--shapes") == 0) {
            shapes = true;
        } else if (strcmp(argv[i], "--no-plain") == 0) {
            with_plain = false;
        } else if (strcmp(argv[i], "--min-s") == 0 && i + 1 < argc) {
            min_s = atof(argv[++i]);
            if (!(min_s >= 0 && min_s <= 600)) {
                fprintf(stderr, "bench_exec_kernel: --min-s %s: must be in [0, 600] seconds\n", argv[i]);
                return 2;
            }
        } else {
            char *end = NULL;
            long long b = strtoll(argv[i], &end, 10);
            if (!end || *end || b < 16 || b > 16384 || nb >= 16) {
                fprintf(stderr,
                        "bench_exec_kernel: %s: a block size B must be an integer in [16, 16384] (at most 16 of them); "
                        "options --pass forward|backward|both, --no-plain, --clock cpu|wall, --min-s SECONDS, "
                        "--shapes\n",
                        argv[i]);
                return 2;
            }
            blocks[nb++] = b;
        }
    }
    if (nb == 0) nb = 4;
    openblas_set_num_threads(1);
    print_header();
    if (shapes) return shapes_table(blocks[nb - 1], min_s) < 0 ? 1 : 0;
    bool described = false;
    printf("# times on the %s clock; ratio = sgemm time / kernel time, median of the per-repetition pairs;\n"
           "# plain = RINGSIM_CPU_KERNEL=plain (the reference kernel)\n",
           g_cpu_clock ? "thread CPU-time" : "wall");
    for (int i = 0; i < nb; i++) {
        setup_t s;
        kernel_t fast = {0}, plain = {0};
        rs_err_t err = {0};
        if (setup_make(blocks[i], &s, &err) < 0 || kernel_make(&s, NULL, &fast, &err) < 0 ||
            (with_plain && kernel_make(&s, "plain", &plain, &err) < 0)) {
            fprintf(stderr, "bench_exec_kernel: B=%lld: %s\n", (long long)blocks[i], err.msg);
            return 1;
        }
        if (!described) {
            printf("# kernel: %s\n", rs_cpu_compute_ops.describe(fast.cs));
            if (with_plain) printf("# plain:  %s\n", rs_cpu_compute_ops.describe(plain.cs));
            printf("# %6s %-8s %11s %12s %8s %12s %8s %6s\n", "B", "pass", "sgemm_GF/s", "kernel_GF/s", "ratio",
                   "plain_GF/s", "plain_r", "reps");
            described = true;
        }
        if ((do_fwd && bench_row(&s, &fast, with_plain ? &plain : NULL, false, min_s) < 0) ||
            (do_bwd && bench_row(&s, &fast, with_plain ? &plain : NULL, true, min_s) < 0)) {
            fprintf(stderr, "bench_exec_kernel: B=%lld: out of memory\n", (long long)blocks[i]);
            return 1;
        }
        kernel_free(&fast), kernel_free(&plain);
        setup_free(&s);
    }
    return 0;
}
