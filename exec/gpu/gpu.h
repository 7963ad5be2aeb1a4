/* gpu.h - the GPU backend as seen by the executor and `ringsim exec` (exec/exec.h interfaces):
 *
 *   compute "gpu":    rs_gpu_compute_ops_for(dtype) - CUDA kernels of attn.h on the rank's GPU,
 *                     bf16 or fp16 activations, fp32 statistics and gradients; each step's compute is
 *                     bracketed by CUDA events (converted to the rs_now_s clock).
 *   transport "nccl": rs_nccl_transport_ops - ncclSend/ncclRecv of a step inside one
 *                     ncclGroupStart/End on a dedicated communication stream, ordered after the compute
 *                     stream's pending work by an event; CUDA events around every post.
 *                     One process per GPU under mpirun (MPI carries the ncclUniqueId; barrier and
 *                     gather go through the MPI transport) or one thread per GPU in one process
 *                     (rs_nccl_world_create; barrier and gather through the local transport).
 *   hangs:            every communicator is non-blocking (ncclConfig_t.blocking = 0); a watchdog
 *                     thread per rank aborts it (ncclCommAbort) when a wait, an init or a group end
 *                     exceeds its timeout, printing the rank, the pass and step and the peer; the waiting
 *                     call returns "timeout after T s waiting for receive from rank R" and the executor
 *                     adds the step.
 *
 * Streams: one compute and one communication stream per device and process (rs_gpu_ctx_get), shared
 * by the compute state and the transport of that device. The executor waits for compute and transfers
 * before the next step, so the only cross-stream order needed is "a send starts after the compute
 * stream's last write of its buffer" (grad_add into the dK,dV partial), given by that event.
 *
 * Environment: RINGSIM_GPU_KERNEL=ref|mma|mma-ldsm|mma64 (default RS_GPU_KERNEL_DEFAULT where it supports
 * head_dim, else ref);
 * RINGSIM_NCCL_INIT_TIMEOUT seconds for communicator creation (default 120).
 */
#ifndef RS_GPU_H
#define RS_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "exec.h"
#include "hw.h"

#define RS_GPU_EXEC_API 1 /* cmd_exec.c: this header provides the functions below */

/* The compute backend for an activation dtype: bf16 or fp16; NULL for any other dtype. */
const rs_compute_ops_t *rs_gpu_compute_ops_for(rs_dtype_t dtype);

/* Kernel tile (rows of Q x rows of KV) of the kernel the compute backend will use for a pass with
 * this head_dim: set the problem's tile_q x tile_k to it so the schedule's executed FLOPs are what
 * the kernel runs (forward mma 128 x 64, backward mma 64 x 64, ref 1 x 1). Can't fail. */
void rs_gpu_kernel_tile(rs_pass_t pass, int64_t head_dim, int64_t *tile_q, int64_t *tile_k);

extern const rs_transport_ops_t rs_nccl_transport_ops;

#ifdef RINGSIM_HAVE_MPI
/* Under mpirun: MPI_Init (through the MPI transport), cudaSetDevice(local_rank), ncclUniqueId from
 * rank 0 by MPI_Bcast, non-blocking communicator over MPI_COMM_WORLD. Returns the state or NULL with
 * err ("--ranks ...: local rank 3 but only 2 GPUs visible", NCCL errors with file:line). */
void *rs_nccl_transport_create(int *argc, char ***argv, int local_rank, rs_err_t *err);
#endif

/* One process, one thread per GPU: n_ranks communicators on GPUs 0..n_ranks-1 (ncclCommInitRank per
 * rank inside one group) and a local world for barrier/gather. tss[r] receives rank r's state.
 * Returns 0, or -1 with err (e.g. more ranks than GPUs). */
int rs_nccl_world_create(int64_t n_ranks, void **tss, rs_err_t *err);
/* Destroy the states made by rs_nccl_world_create (communicators, watchdogs, the local world). */
void rs_nccl_world_free(void **tss, int64_t n_ranks);

/* Loopback (exec.h): one process plays rank `rank` of a ring of n_ranks alone on GPU `device`, every
 * transfer of a step going to itself - by NCCL send/recv to itself in a one-rank communicator
 * (RS_GPU_LOOP_NCCL: NCCL's copy kernels share the SMs with the attention kernel, as on a real ring)
 * or by a device-to-device cudaMemcpyAsync (RS_GPU_LOOP_COPY: the copy engines). Same buffers,
 * sizes, events and watchdog as the ring. Use with rs_nccl_transport_ops and rs_exec_run (or
 * rs_exec_run_loopback for every rank in turn); destroy with rs_nccl_transport_ops.destroy.
 * Returns NULL with err. */
typedef enum { RS_GPU_LOOP_NCCL = 1, RS_GPU_LOOP_COPY = 2 } rs_gpu_loop_t;
const char *rs_gpu_loop_name(rs_gpu_loop_t how);      /* "nccl" | "copy" */
int rs_gpu_loop_parse(const char *text, rs_gpu_loop_t *out); /* 0 or -1 */
void *rs_nccl_loopback_create(int64_t rank, int64_t n_ranks, int device, rs_gpu_loop_t how, rs_err_t *err);

/* ---------------------------------------------------------------------------------------------------
 * Per-device context shared by the compute backend and the transport of one device (internal).
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    int device;             /* CUDA ordinal */
    cudaStream_t compute;   /* attention kernels, grad_zero/add */
    cudaStream_t comm;      /* NCCL send/recv */
    cudaEvent_t anchor;     /* event whose host time is anchor_s */
    double anchor_s;        /* rs_now_s() at which `anchor` completed (midpoint of the bracket) */
    /* the step the compute backend last launched, so the transport's watchdog can name it */
    uint64_t step_seq;      /* compute steps launched on this device so far */
    int64_t last_step;      /* their last step index (-1: none yet) */
    rs_pass_t last_pass;    /* and its pass */
} rs_gpu_ctx_t;

/* The context of `device` (created on first use; thread-safe). cudaSetDevice(device) is called.
 * Returns NULL with err on CUDA errors or an ordinal outside the visible GPUs. */
rs_gpu_ctx_t *rs_gpu_ctx_get(int device, rs_err_t *err);
/* Re-anchor the event clock (call with nothing in flight on the device). Returns 0 or -1. */
int rs_gpu_ctx_anchor(rs_gpu_ctx_t *ctx, rs_err_t *err);
/* Host time (rs_now_s clock) of a completed event recorded on ctx's device. Returns 0 or -1. */
int rs_gpu_ctx_event_time(const rs_gpu_ctx_t *ctx, cudaEvent_t ev, double *t_s, rs_err_t *err);

/* Number of visible GPUs (0 when the driver or runtime fails). Can't fail. */
int rs_gpu_device_count(void);

#endif /* RS_GPU_H */
