/* test_gpu_backend.c - the GPU executor's tables (exec/gpu/gpu_backend.c) and the host-side answers of
 * the GPU backend, on any machine where it builds (no GPU needed): the compute backends by dtype, the
 * kernel tile a pass runs (RINGSIM_GPU_KERNEL), the kernel and loopback names, and the refusals - no
 * GPU to run on, a loopback kind it does not have, a rank outside the ring. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"
#include "exec_backend.h"
#include "gpu.h"
#include "test_main.h"

extern const rs_exec_backend_t rs_gpu_exec_backend;
extern const rs_backend_ops_t rs_gpu_backend;

RS_TEST(test_tables, "tables_and_names") {
    CU_ASSERT_PTR_NULL(rs_gpu_compute_ops_for(RS_DTYPE_FP32));
    const rs_compute_ops_t *bf = rs_gpu_compute_ops_for(RS_DTYPE_BF16), *h = rs_gpu_compute_ops_for(RS_DTYPE_FP16);
    CU_ASSERT_FATAL(bf && h);
    CU_ASSERT(!strcmp(bf->name, "gpu") && !strcmp(bf->dtype_name, "bf16") && bf->act_bytes == 2);
    CU_ASSERT(!strcmp(h->dtype_name, "fp16") && h->q_step && h->q_merge && !h->poll_geometry);
    CU_ASSERT_STRING_EQUAL(rs_gpu_exec_backend.name, "gpu");
    CU_ASSERT_STRING_EQUAL(rs_gpu_exec_backend.loopback_kinds, "nccl|copy");
    CU_ASSERT_EQUAL(rs_gpu_exec_backend.default_dtype, RS_DTYPE_BF16);
    CU_ASSERT_PTR_EQUAL(rs_gpu_backend.exec, &rs_gpu_exec_backend);
    const char *names[] = {"ref", "mma", "mma-ldsm", "mma64"};
    for (int k = 0; k < RS_GPU_KERNEL_COUNT; k++) CU_ASSERT_STRING_EQUAL(rs_gpu_kernel_name((rs_gpu_kernel_t)k), names[k]);
    CU_ASSERT_STRING_EQUAL(rs_gpu_kernel_name(RS_GPU_KERNEL_COUNT), "?");
    rs_gpu_loop_t how = RS_GPU_LOOP_NCCL;
    CU_ASSERT(rs_gpu_loop_parse("copy", &how) == 0 && how == RS_GPU_LOOP_COPY);
    CU_ASSERT(rs_gpu_loop_parse("nccl", &how) == 0 && how == RS_GPU_LOOP_NCCL);
    CU_ASSERT(rs_gpu_loop_parse("dma", &how) == -1 && how == RS_GPU_LOOP_NCCL);
    CU_ASSERT_STRING_EQUAL(rs_gpu_loop_name(RS_GPU_LOOP_COPY), "copy");
    CU_ASSERT_STRING_EQUAL(rs_gpu_loop_name(RS_GPU_LOOP_NCCL), "nccl");
}

/* The tile of the kernel a pass runs: the default (mma64: forward 64 x 64, backward 64 x 64) where it
 * supports head_dim (64, 128), else the reference (1 x 1); RINGSIM_GPU_KERNEL picks another. */
RS_TEST(test_kernel_tile, "kernel_tile") {
    int64_t tq = 0, tk = 0;
    unsetenv("RINGSIM_GPU_KERNEL");
    rs_gpu_kernel_tile(RS_PASS_FORWARD, 128, &tq, &tk);
    CU_ASSERT(tq == 64 && tk == 64);
    rs_gpu_kernel_tile(RS_PASS_BACKWARD, 64, &tq, &tk);
    CU_ASSERT(tq == 64 && tk == 64);
    rs_gpu_kernel_tile(RS_PASS_FORWARD, 96, &tq, &tk);
    CU_ASSERT(tq == 1 && tk == 1);
    setenv("RINGSIM_GPU_KERNEL", "mma", 1);
    rs_gpu_kernel_tile(RS_PASS_FORWARD, 128, &tq, &tk);
    CU_ASSERT(tq == 128 && tk == 64);
    setenv("RINGSIM_GPU_KERNEL", "ref", 1);
    rs_gpu_kernel_tile(RS_PASS_BACKWARD, 128, &tq, &tk);
    CU_ASSERT(tq == 1 && tk == 1);
    unsetenv("RINGSIM_GPU_KERNEL");
}

/* The refusals that need no GPU; without one, also "no GPU" from every way to start. */
RS_TEST(test_refusals, "refusals") {
    rs_err_t err = {0};
    CU_ASSERT_PTR_NULL(rs_gpu_exec_backend.loopback_create(0, 2, "dma", &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "--loopback dma: expected nccl or copy");
    CU_ASSERT_PTR_NULL(rs_nccl_loopback_create(5, 4, 0, RS_GPU_LOOP_NCCL, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "gpu loopback: rank 5 of N = 4");
    rs_problem_t p;
    rs_problem_default(&p);
    p.act_bytes = 4;
    if (rs_gpu_device_count() > 0) {
        CU_ASSERT_EQUAL(rs_gpu_backend.can_run(&p, NULL, &err), -1);
        CU_ASSERT_STRING_EQUAL(err.msg, "the gpu executor computes in bf16 (problem: 4-byte activations)");
        p.act_bytes = 2;
        CU_ASSERT_EQUAL(rs_gpu_backend.can_run(&p, NULL, &err), 0);
        return;
    }
    CU_ASSERT_EQUAL(rs_gpu_backend.can_run(&p, NULL, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "no GPU on this machine");
    void *ts[2];
    CU_ASSERT_EQUAL(rs_nccl_world_create(2, ts, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--backend gpu: no GPU visible (cudaGetDeviceCount found none)");
    CU_ASSERT_PTR_NULL(rs_nccl_loopback_create(0, 2, 0, RS_GPU_LOOP_COPY, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "gpu loopback: device 0 but 0 GPU(s) visible");
    CU_ASSERT_PTR_NULL(rs_gpu_ctx_get(0, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "gpu: device 0 requested but 0 GPU(s) visible (one GPU per rank: local rank r uses GPU r)");
}

RS_TEST_PROGRAM("gpu_backend")
