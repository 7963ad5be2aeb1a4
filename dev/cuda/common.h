// common.h - shared by the dev/cuda programs (llm.c pattern): argument helpers, device buffers,
// CUDA-event timing (median of reps after warm-up), the schedule-driven check cases.
#pragma once
#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "attn.h"
#include "check.h"

// Exit with a usage error (exit code 2).
[[noreturn]] static inline void dev_usage(const char *prog, const char *msg) {
    fprintf(stderr, "%s: %s (see %s --help)\n", prog, msg, prog);
    exit(2);
}

static inline int dev_int(const char *prog, const char *name, const char *text, long lo, long hi) {
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (end && (*end == 'K' || *end == 'k')) v *= 1024, end++;
    if (!end || *end || v < lo || v > hi) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s %s: must be an integer in [%ld, %ld] (K suffix allowed)", name, text, lo, hi);
        dev_usage(prog, msg);
    }
    return (int)v;
}

// Device buffer of n elements of T, poisoned with 0xff bytes (NaN for every float type).
template <typename T> static inline T *dev_alloc(size_t n) {
    T *p = NULL;
    RS_CUDA_CHECK(cudaMalloc(&p, n * sizeof(T) + 16));
    RS_CUDA_CHECK(cudaMemset(p, 0xff, n * sizeof(T) + 16));
    return p;
}
template <typename T> static inline void dev_upload(T *dst, const T *src, size_t n) {
    RS_CUDA_CHECK(cudaMemcpy(dst, src, n * sizeof(T), cudaMemcpyHostToDevice));
}
template <typename T> static inline void dev_download(T *dst, const T *src, size_t n) {
    RS_CUDA_CHECK(cudaMemcpy(dst, src, n * sizeof(T), cudaMemcpyDeviceToHost));
}

// Abort on a library error from the attn.h API.
static inline void dev_try(int rc, const rs_err_t *err) {
    if (rc) {
        fprintf(stderr, "%s\n", err->msg);
        exit(1);
    }
}

// Median time in seconds of `reps` runs of fn (after `warmup`), with CUDA events on stream 0.
template <typename F> static inline double dev_time_median(F fn, int warmup, int reps) {
    for (int i = 0; i < warmup; i++) fn();
    RS_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> t;
    cudaEvent_t a, b;
    RS_CUDA_CHECK(cudaEventCreate(&a));
    RS_CUDA_CHECK(cudaEventCreate(&b));
    for (int i = 0; i < reps; i++) {
        RS_CUDA_CHECK(cudaEventRecord(a, 0));
        fn();
        RS_CUDA_CHECK(cudaEventRecord(b, 0));
        RS_CUDA_CHECK(cudaEventSynchronize(b));
        float ms = 0;
        RS_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1e-3);
    }
    RS_CUDA_CHECK(cudaEventDestroy(a));
    RS_CUDA_CHECK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

static inline void dev_print_device(void) {
    int dev = 0, drv = 0, rt = 0;
    cudaDeviceProp prop;
    RS_CUDA_CHECK(cudaGetDevice(&dev));
    RS_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    RS_CUDA_CHECK(cudaDriverGetVersion(&drv));
    RS_CUDA_CHECK(cudaRuntimeGetVersion(&rt));
    printf("# device: %s (sm_%d%d, %d SMs, %.0f MB L2), driver %d, runtime %d\n", prop.name, prop.major,
           prop.minor, prop.multiProcessorCount, prop.l2CacheSize / 1048576.0, drv, rt);
}

// A check case: the steps of one rank of a small ring, straight from the schedule.
struct DevCase {
    rs_problem_t prob;       // the problem (pass as asked)
    rs_schedule_t *sched;    // its schedule
    int64_t rank;            // the rank whose steps are folded
};

// What a check case is: the ring, its shape and the kernel's tile.
struct DevCaseSpec {
    rs_layout_t lay;         // layout
    bool causal;             // causal mask
    int64_t seq, n, rank;    // S tokens over N ranks; the rank whose steps are folded
    rs_pass_t pass;          // the pass
    int batch, hq, hkv, d;   // shape
    int tq, tk;              // the kernel's tile (the schedule's executed FLOPs)
};

static inline DevCase dev_case(const DevCaseSpec &sp) {
    DevCase c;
    rs_problem_default(&c.prob);
    c.prob.seq_tokens = sp.seq, c.prob.n_ranks = sp.n, c.prob.layout = sp.lay, c.prob.causal = sp.causal, c.prob.pass = sp.pass;
    c.prob.batch = sp.batch, c.prob.q_heads = sp.hq, c.prob.kv_heads = sp.hkv, c.prob.head_dim = sp.d;
    c.prob.tile_q = sp.tq, c.prob.tile_k = sp.tk;
    rs_err_t err = {};
    c.sched = rs_schedule_create(&c.prob, &err);
    if (!c.sched) {
        fprintf(stderr, "schedule: %s\n", err.msg);
        exit(2);
    }
    c.rank = sp.rank;
    return c;
}

// ---- timing sweeps: lists of call shapes and masks ------------------------------------------------
// A timed call is one kernel launch on q x k rows (one Q segment, one KV segment) under one mask:
//   full     every pair visible                                  (RS_GPU_MASK_FULL)
//   causal   the causal diagonal i - j >= 0 (contiguous/zigzag)  (RS_GPU_MASK_DIAG, diag 0)
//   striped  the shifted causal mask i - j >= 1 (striped layout, KV rank after the Q rank)
struct DevShape {
    int q, k; // query rows, key rows
};
struct DevMask {
    const char *name;
    int mask, diag;
};
// A timed call's FLOPs: useful (visible pairs) and executed (the kernel's tiles, masked pairs included).
struct DevFlops {
    double useful, exec;
};

// n random 16-bit values (rs_gpu_fill_random's amp and seed) made in the host buffer h, copied to dst.
static inline void dev_random_upload(rs_gpu_dtype_t dtype, std::vector<uint16_t> &h, uint16_t *dst, size_t n,
                                     double amp, uint64_t seed) {
    rs_gpu_fill_random(dtype, h.data(), n, amp, seed);
    dev_upload(dst, h.data(), n);
}

// Step `step` of the case's rank: its schedule entry and kernel descriptor. Returns whether it computes.
static inline bool dev_step(const DevCase &dc, int64_t step, rs_step_t *s, rs_gpu_step_desc_t *desc) {
    rs_err_t err;
    rs_schedule_step(dc.sched, dc.rank, step, s);
    if (!s->has_compute) return false;
    dev_try(rs_gpu_desc_from_step(s, desc, &err), &err);
    return true;
}

// One timed call of shape shp and mask mk: its descriptor, and its FLOPs *f at per_pair FLOPs per
// (query, key) pair (executed: the kernel's tq x tk tiles).
static inline rs_gpu_step_desc_t dev_call(const DevShape &shp, const DevMask &mk, double per_pair, int tq, int tk, DevFlops *f) {
    rs_gpu_step_desc_t desc;
    rs_gpu_desc_single(shp.q, shp.k, mk.mask, mk.diag, &desc);
    f->useful = per_pair * (double)rs_gpu_desc_pairs(&desc);
    f->exec = per_pair * (double)rs_gpu_desc_exec_pairs(&desc, tq, tk);
    return desc;
}

// The K,V block a step attends to on the host: its 16-bit values (k16, v16) and their float64 (k, v).
struct DevKV {
    std::vector<uint16_t> k16, v16;
    std::vector<double> k, v;
    explicit DevKV(size_t n) : k16(n), v16(n), k(n), v(n) {}
};

// The K,V block of step s, made as the checks make it: 16-bit values of n elements each, seeded by
// the block's owner, and their float64 unpacking.
static inline void dev_step_kv(rs_gpu_dtype_t dtype, const rs_step_t &s, size_t n, DevKV &kv) {
    rs_gpu_fill_random(dtype, kv.k16.data(), n, 2.0, 100 + s.kv_owner);
    rs_gpu_fill_random(dtype, kv.v16.data(), n, 1.0, 200 + s.kv_owner);
    rs_gpu_unpack(dtype, kv.k16.data(), kv.k.data(), n);
    rs_gpu_unpack(dtype, kv.v16.data(), kv.v.data(), n);
}

// "a,b,c" -> {"a", "b", "c"} (an empty text gives one empty item).
static inline std::vector<std::string> dev_split(const char *text) {
    std::vector<std::string> out;
    std::string s(text);
    size_t pos = 0;
    for (;;) {
        size_t comma = s.find(',', pos);
        out.push_back(s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
        if (comma == std::string::npos) return out;
        pos = comma + 1;
    }
}

// "512,1K,2Kx1K" -> shapes (QxK, or Q alone for a square call). Exits 2 on a bad item.
static inline std::vector<DevShape> dev_shapes(const char *prog, const char *text) {
    std::vector<DevShape> out;
    for (const std::string &item : dev_split(text)) {
        size_t x = item.find('x');
        if (item.empty() || x == 0 || (x != std::string::npos && x + 1 == item.size())) {
            std::string msg = "--rows " + std::string(text) + ": each item must be Q or QxK (K suffix allowed)";
            dev_usage(prog, msg.c_str());
        }
        DevShape sh;
        sh.q = dev_int(prog, "--rows", item.substr(0, x).c_str(), 1, 1 << 20);
        sh.k = x == std::string::npos ? sh.q : dev_int(prog, "--rows", item.substr(x + 1).c_str(), 1, 1 << 20);
        out.push_back(sh);
    }
    return out;
}

// "full,causal,striped" -> masks. Exits 2 on an unknown name.
static inline std::vector<DevMask> dev_masks(const char *prog, const char *text) {
    std::vector<DevMask> out;
    for (const std::string &item : dev_split(text)) {
        if (item == "full") out.push_back({"full", RS_GPU_MASK_FULL, 0});
        else if (item == "causal") out.push_back({"causal", RS_GPU_MASK_DIAG, 0});
        else if (item == "striped") out.push_back({"striped", RS_GPU_MASK_DIAG, 1});
        else dev_usage(prog, "--mask: each item must be full, causal or striped");
    }
    return out;
}

// ---- the command line both programs share -----------------------------------------------------
struct DevArgs {
    rs_gpu_kernel_t kern = RS_GPU_KERNEL_MMA; // VARIANT
    rs_gpu_dtype_t dtype = RS_GPU_BF16;
    int batch = 1, hq = 16, hkv = -1, dim = 128, warmup = 3, reps = 20;
    bool do_check = true, do_time = true;
    std::vector<DevShape> shapes; // --rows
    std::vector<DevMask> masks;   // --mask
};

// One row of the timing table (the header is dev_time_header()); gnuplot-readable.
static inline void dev_time_header(void) {
    printf("# %-8s %6s %6s %5s %5s %5s %4s %-8s %10s %12s %12s\n", "pass", "q", "k", "batch", "hq", "hkv", "d", "mask",
           "time_ms", "TFLOPs_usef", "TFLOPs_exec");
}
static inline void dev_time_row(const char *pass, const DevArgs &a, const DevShape &s, const DevMask &m, double t_s,
                                DevFlops f) {
    printf("  %-8s %6d %6d %5d %5d %5d %4d %-8s %10.4f %12.1f %12.1f\n", pass, s.q, s.k, a.batch, a.hq, a.hkv, a.dim, m.name,
           t_s * 1e3, f.useful / t_s * 1e-12, f.exec / t_s * 1e-12);
    fflush(stdout);
}

static inline void dev_usage_text(const char *prog) {
    printf("usage: %s [VARIANT] [options]\n"
           "  VARIANT          0 = ref (one warp per row, fp32), 1 = mma (tensor cores),  [1]\n"
           "                   2 = mma-ldsm (K by ldmatrix), 3 = mma64 (64-row CTAs)\n"
           "  --dtype T        bf16 | fp16                                              [bf16]\n"
           "  --rows L         timed call shapes: Q or QxK, comma list (K suffix)       [8K]\n"
           "  --batch n        sequences                                                [1]\n"
           "  --heads H        query heads                                              [16]\n"
           "  --kv-heads G     key/value heads (divides H)                              [H]\n"
           "  --dim d          head_dim (mma: 64 or 128)                                [128]\n"
           "  --mask M         timed masks: full,causal,striped (comma list)            [full]\n"
           "  --warmup n       untimed runs                                             [3]\n"
           "  --reps n         timed runs (median)                                      [20]\n"
           "  --no-check       skip the check;  --no-time  skip the timing\n"
           "exit: 0 ok, 1 check failed or CUDA error, 2 bad arguments, 77 no GPU\n",
           prog);
}

// Parse the shared command line; --help prints the usage and exits 0, a bad argument exits 2 with a
// message, no GPU prints "skipped: no GPU" and exits 77. Then the device line and the program's
// header are printed.
static inline DevArgs dev_parse(int argc, char **argv, const char *prog) {
    DevArgs d;
    const char *rows_text = "8K", *mask_text = "full";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) dev_usage_text(prog), exit(0);
        else if (!strcmp(a, "--no-check")) d.do_check = false;
        else if (!strcmp(a, "--no-time")) d.do_time = false;
        else if (a[0] != '-' && i == 1) d.kern = (rs_gpu_kernel_t)dev_int(prog, "VARIANT", a, 0, RS_GPU_KERNEL_COUNT - 1);
        else if (!v) dev_usage(prog, "missing value or unknown argument");
        else if (!strcmp(a, "--dtype")) {
            if (rs_gpu_dtype_parse(v, &d.dtype)) dev_usage(prog, "--dtype: must be bf16 or fp16");
            i++;
        } else if (!strcmp(a, "--rows")) rows_text = argv[++i];
        else if (!strcmp(a, "--batch")) d.batch = dev_int(prog, a, argv[++i], 1, 4096);
        else if (!strcmp(a, "--heads")) d.hq = dev_int(prog, a, argv[++i], 1, 4096);
        else if (!strcmp(a, "--kv-heads")) d.hkv = dev_int(prog, a, argv[++i], 1, 4096);
        else if (!strcmp(a, "--dim")) d.dim = dev_int(prog, a, argv[++i], 8, 256);
        else if (!strcmp(a, "--warmup")) d.warmup = dev_int(prog, a, argv[++i], 0, 1000);
        else if (!strcmp(a, "--reps")) d.reps = dev_int(prog, a, argv[++i], 1, 10000);
        else if (!strcmp(a, "--mask")) mask_text = argv[++i];
        else dev_usage(prog, "unknown argument");
    }
    if (d.hkv < 0) d.hkv = d.hq;
    if (d.hq % d.hkv) dev_usage(prog, "--kv-heads must divide --heads");
    d.shapes = dev_shapes(prog, rows_text);
    d.masks = dev_masks(prog, mask_text);
    rs_gpu_shape_t probe = {d.dtype, d.batch, d.hq, d.hkv, d.dim, d.shapes[0].q, d.shapes[0].k, 1.0f / sqrtf((float)d.dim)};
    if (!rs_gpu_kernel_supports(d.kern, &probe)) dev_usage(prog, "--dim: this variant supports 64 or 128 only");
    int ndev = 0;
    cudaError_t dc = cudaGetDeviceCount(&ndev);
    if (dc != cudaSuccess || ndev == 0) {
        printf("skipped: no GPU (cudaGetDeviceCount: %s)\n", dc != cudaSuccess ? cudaGetErrorString(dc) : "0 devices");
        exit(77);
    }
    dev_print_device();
    printf("# %s variant=%s dtype=%s dim=%d\n", prog, rs_gpu_kernel_name(d.kern), rs_gpu_dtype_name(d.dtype), d.dim);
    return d;
}
