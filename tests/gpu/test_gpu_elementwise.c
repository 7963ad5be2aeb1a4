/* test_gpu_elementwise.c - the GPU backend's elementwise kernels (exec/gpu/gpu_elementwise.cu) on a GPU:
 * dst += src in fp32, the 16-bit <-> fp32 conversions against the host's (round to nearest even, NaN
 * staying NaN, every 16-bit value back exactly), the test hook's stall: released at once by its flag,
 * else ending by itself after its time. Without a GPU it prints "skipped: no GPU" and exits 77. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_fixtures.h"
#include "gpu_host.h"
#include "test_main.h"

enum { N = 70000 }; /* more than one grid-stride pass of 256-thread blocks */

RS_TEST(test_add_f32, "add_f32") {
    float *h = malloc(N * 4), *x = malloc(N * 4), *y = malloc(N * 4);
    CU_ASSERT_FATAL(h && x && y);
    for (int i = 0; i < N; i++) x[i] = (float)i * 0.5f - 100.0f, y[i] = 3.0f - (float)(i % 7);
    float *dx = rs_test_gpu_alloc(N * 4), *dy = rs_test_gpu_alloc(N * 4);
    CU_ASSERT_FATAL(cudaMemcpy(dx, x, N * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    CU_ASSERT_FATAL(cudaMemcpy(dy, y, N * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_gpu_add_f32(dx, dy, N, 0, &err), 0);
    CU_ASSERT_FATAL(cudaMemcpy(h, dx, N * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += h[i] != x[i] + y[i];
    CU_ASSERT_EQUAL(bad, 0);
    cudaFree(dx), cudaFree(dy), free(h), free(x), free(y);
}

/* f32 -> 16 bits as the host rounds (NaN: any NaN), and every 16-bit value -> f32 exactly. */
RS_TEST(test_conversions, "conversions") {
    float *x = malloc(65536 * 4), *back = malloc(65536 * 4);
    uint16_t *h16 = malloc(65536 * 2), *all = malloc(65536 * 2);
    CU_ASSERT_FATAL(x && back && h16 && all);
    for (int i = 0; i < 65536; i++) {
        x[i] = (float)(ldexp(2 * rs_hash_unit(17, 1, (uint64_t)i) - 1, (int)(rs_hash_unit(17, 2, (uint64_t)i) * 60) - 30));
        all[i] = (uint16_t)i;
    }
    x[0] = NAN, x[1] = INFINITY, x[2] = -0.0f, x[3] = 65520.0f, x[4] = ldexpf(1.0f, -25);
    float *dx = rs_test_gpu_alloc(65536 * 4), *df = rs_test_gpu_alloc(65536 * 4);
    void *d16 = rs_test_gpu_alloc(65536 * 2);
    for (int t = 0; t < 2; t++) {
        const rs_gpu_dtype_t dt = (rs_gpu_dtype_t)t;
        rs_err_t err = {0};
        CU_ASSERT_FATAL(cudaMemcpy(dx, x, 65536 * 4, cudaMemcpyHostToDevice) == cudaSuccess);
        CU_ASSERT_EQUAL_FATAL(rs_gpu_f32_to_16(dt, dx, d16, 65536, 0, &err), 0);
        CU_ASSERT_FATAL(cudaMemcpy(h16, d16, 65536 * 2, cudaMemcpyDeviceToHost) == cudaSuccess);
        int bad = 0;
        for (int i = 0; i < 65536; i++) {
            const uint16_t want = dt == RS_GPU_FP16 ? rs_gpu_f32_to_f16(x[i]) : rs_gpu_f32_to_bf16(x[i]);
            const float gv = dt == RS_GPU_FP16 ? rs_gpu_f16_to_f32(h16[i]) : rs_gpu_bf16_to_f32(h16[i]);
            bad += isnan(x[i]) ? !isnan(gv) : h16[i] != want;
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT_FATAL(cudaMemcpy(d16, all, 65536 * 2, cudaMemcpyHostToDevice) == cudaSuccess);
        CU_ASSERT_EQUAL_FATAL(rs_gpu_16_to_f32(dt, d16, df, 65536, 0, &err), 0);
        CU_ASSERT_FATAL(cudaMemcpy(back, df, 65536 * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
        bad = 0;
        for (int i = 0; i < 65536; i++) {
            const float want = dt == RS_GPU_FP16 ? rs_gpu_f16_to_f32(all[i]) : rs_gpu_bf16_to_f32(all[i]);
            bad += isnan(want) ? !isnan(back[i]) : memcmp(&back[i], &want, 4) != 0;
        }
        CU_ASSERT_EQUAL(bad, 0);
    }
    cudaFree(dx), cudaFree(df), cudaFree(d16), free(x), free(back), free(h16), free(all);
}

/* The stall: released by its flag it ends at once; left alone it ends by itself after max_s. */
RS_TEST(test_stall, "stall") {
    int *host = NULL, *dev = NULL;
    CU_ASSERT_FATAL(cudaHostAlloc((void **)&host, sizeof(int), cudaHostAllocMapped) == cudaSuccess);
    CU_ASSERT_FATAL(cudaHostGetDevicePointer((void **)&dev, host, 0) == cudaSuccess);
    rs_err_t err = {0};
    *(volatile int *)host = 1;
    double t0 = rs_now_s();
    CU_ASSERT_EQUAL(rs_gpu_stall(dev, 30.0, 0, &err), 0);
    CU_ASSERT(cudaDeviceSynchronize() == cudaSuccess);
    CU_ASSERT(rs_now_s() - t0 < 5.0);
    *(volatile int *)host = 0;
    t0 = rs_now_s();
    CU_ASSERT_EQUAL(rs_gpu_stall(dev, 0.3, 0, &err), 0);
    CU_ASSERT(cudaDeviceSynchronize() == cudaSuccess);
    const double dt = rs_now_s() - t0;
    CU_ASSERT(dt >= 0.25 && dt < 10.0);
    cudaFreeHost(host);
}

RS_TEST_MAIN(.suite = "gpu_elementwise", .setup = rs_test_need_gpu)
