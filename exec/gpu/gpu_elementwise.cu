// gpu_elementwise.cu - the elementwise kernels of the GPU backend: dst += src in fp32 (the dK,dV
// merges), 16-bit <-> fp32 conversions (uploads, downloads), and the test hook's stall. Contracts:
// attn.h.
#include "attn.h"
#include "attn_launch.cuh"
#include "check.h"
#include "mma.cuh"

using namespace rsg;

__global__ void add_f32_kernel(float *dst, const float *src, size_t n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) dst[i] += src[i];
}
template <typename T>
__global__ void f32_to_16_kernel(const float *src, T *dst, size_t n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) dst[i] = from_f32<T>(src[i]);
}
template <typename T>
__global__ void f16_to_32_kernel(const T *src, float *dst, size_t n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) dst[i] = to_f32<T>(src[i]);
}

// Spin until *release != 0 or max_ns of %globaltimer have passed (a stall that always ends).
__global__ void stall_kernel(const volatile int *release, unsigned long long max_ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (;;) {
        if (*release) return;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > max_ns) return;
        __nanosleep(1000);
    }
}

extern "C" {

int rs_gpu_stall(const volatile int *release, double max_s, cudaStream_t stream, rs_err_t *err) {
    stall_kernel<<<1, 1, 0, stream>>>(release, (unsigned long long)(max_s * 1e9));
    RS_CUDA_TRY(err, cudaGetLastError());
    return 0;
}

int rs_gpu_add_f32(float *dst, const float *src, size_t n, cudaStream_t stream, rs_err_t *err) {
    add_f32_kernel<<<grid_for(n), 256, 0, stream>>>(dst, src, n);
    RS_CUDA_TRY(err, cudaGetLastError());
    return 0;
}

int rs_gpu_f32_to_16(rs_gpu_dtype_t t, const float *src, void *dst, size_t n, cudaStream_t stream, rs_err_t *err) {
    if (t == RS_GPU_BF16) f32_to_16_kernel<__nv_bfloat16><<<grid_for(n), 256, 0, stream>>>(src, (__nv_bfloat16 *)dst, n);
    else f32_to_16_kernel<__half><<<grid_for(n), 256, 0, stream>>>(src, (__half *)dst, n);
    RS_CUDA_TRY(err, cudaGetLastError());
    return 0;
}

int rs_gpu_16_to_f32(rs_gpu_dtype_t t, const void *src, float *dst, size_t n, cudaStream_t stream, rs_err_t *err) {
    if (t == RS_GPU_BF16) f16_to_32_kernel<__nv_bfloat16><<<grid_for(n), 256, 0, stream>>>((const __nv_bfloat16 *)src, dst, n);
    else f16_to_32_kernel<__half><<<grid_for(n), 256, 0, stream>>>((const __half *)src, dst, n);
    RS_CUDA_TRY(err, cudaGetLastError());
    return 0;
}

} // extern "C"
