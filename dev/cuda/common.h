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

static inline DevCase dev_case(rs_layout_t lay, bool causal, int64_t seq, int64_t n, int64_t rank, rs_pass_t pass,
                               int batch, int hq, int hkv, int d, int tq, int tk) {
    DevCase c;
    rs_problem_default(&c.prob);
    c.prob.seq_tokens = seq, c.prob.n_ranks = n, c.prob.layout = lay, c.prob.causal = causal, c.prob.pass = pass;
    c.prob.batch = batch, c.prob.q_heads = hq, c.prob.kv_heads = hkv, c.prob.head_dim = d;
    c.prob.tile_q = tq, c.prob.tile_k = tk;
    rs_err_t err = {{0}};
    c.sched = rs_schedule_create(&c.prob, &err);
    if (!c.sched) {
        fprintf(stderr, "schedule: %s\n", err.msg);
        exit(2);
    }
    c.rank = rank;
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

// "512,1K,2Kx1K" -> shapes (QxK, or Q alone for a square call). Exits 2 on a bad item.
static inline std::vector<DevShape> dev_shapes(const char *prog, const char *text) {
    std::vector<DevShape> out;
    std::string s(text);
    size_t pos = 0;
    while (pos <= s.size()) {
        size_t comma = s.find(',', pos);
        std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        size_t x = item.find('x');
        DevShape sh;
        sh.q = dev_int(prog, "--rows", item.substr(0, x).c_str(), 1, 1 << 20);
        sh.k = x == std::string::npos ? sh.q : dev_int(prog, "--rows", item.substr(x + 1).c_str(), 1, 1 << 20);
        out.push_back(sh);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return out;
}

// "full,causal,striped" -> masks. Exits 2 on an unknown name.
static inline std::vector<DevMask> dev_masks(const char *prog, const char *text) {
    std::vector<DevMask> out;
    std::string s(text);
    size_t pos = 0;
    while (pos <= s.size()) {
        size_t comma = s.find(',', pos);
        std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        if (item == "full") out.push_back({"full", RS_GPU_MASK_FULL, 0});
        else if (item == "causal") out.push_back({"causal", RS_GPU_MASK_DIAG, 0});
        else if (item == "striped") out.push_back({"striped", RS_GPU_MASK_DIAG, 1});
        else dev_usage(prog, "--mask: each item must be full, causal or striped");
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return out;
}

// One row of the timing table (the header is dev_time_header()); gnuplot-readable.
static inline void dev_time_header(void) {
    printf("# %-8s %6s %6s %5s %5s %5s %4s %-8s %10s %12s %12s\n", "pass", "q", "k", "batch", "hq", "hkv", "d", "mask",
           "time_ms", "TFLOPs_usef", "TFLOPs_exec");
}
static inline void dev_time_row(const char *pass, const DevShape &s, int batch, int hq, int hkv, int d,
                                const DevMask &m, double t_s, double useful, double exec) {
    printf("  %-8s %6d %6d %5d %5d %5d %4d %-8s %10.4f %12.1f %12.1f\n", pass, s.q, s.k, batch, hq, hkv, d, m.name,
           t_s * 1e3, useful / t_s * 1e-12, exec / t_s * 1e-12);
    fflush(stdout);
}
