// common.h - shared by the dev/cuda programs (llm.c pattern): argument helpers, device buffers,
// CUDA-event timing (median of reps after warm-up), the schedule-driven check cases.
#pragma once
#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
