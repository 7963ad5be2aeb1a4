/* check.h - one CHECK macro per foreign library (CUDA, NCCL), nccl-tests style: every failure arrives
 * with file:line, the call and the library's own error string.
 *
 *  RS_CUDA_TRY(err, call)  library code: on failure fill err ("cuda: file:line: call: string") and
 *                          `return -1` from the enclosing function (result codes passed upward).
 *  RS_NCCL_TRY(err, call)  the same for NCCL (ncclGetErrorString + ncclGetLastError's detail).
 *  RS_CUDA_CHECK(call)     programs (dev/cuda, tests): print the same line and exit(1).
 */
#ifndef RS_GPU_CHECK_H
#define RS_GPU_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif
#include "util.h"
#ifdef __cplusplus
}
#endif

#define RS_CUDA_TRY(err, call)                                                                      \
    do {                                                                                            \
        cudaError_t rs_e_ = (call);                                                                 \
        if (rs_e_ != cudaSuccess)                                                                   \
            return rs_errf((err), "cuda: %s:%d: %s: %s", __FILE__, __LINE__, #call,                 \
                           cudaGetErrorString(rs_e_));                                              \
    } while (0)

#define RS_CUDA_CHECK(call)                                                                         \
    do {                                                                                            \
        cudaError_t rs_e_ = (call);                                                                 \
        if (rs_e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "cuda: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,                     \
                    cudaGetErrorString(rs_e_));                                                     \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

#ifdef RS_GPU_WITH_NCCL
#include <nccl.h>
#define RS_NCCL_TRY(err, comm, call)                                                                \
    do {                                                                                            \
        ncclResult_t rs_r_ = (call);                                                                \
        if (rs_r_ != ncclSuccess && rs_r_ != ncclInProgress)                                        \
            return rs_errf((err), "nccl: %s:%d: %s: %s (%s)", __FILE__, __LINE__, #call,            \
                           ncclGetErrorString(rs_r_), ncclGetLastError(comm));                      \
    } while (0)
#endif

#endif /* RS_GPU_CHECK_H */
