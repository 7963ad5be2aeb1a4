/* gpu_compute.c - the "gpu" compute backend of exec/exec.h on the kernels of attn.h, and the
 * per-device context (streams, event clock) it shares with the NCCL transport. Contracts: gpu.h. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"
#include "check.h"
#include "gpu.h"

/* ---------------------------------------------------------------------------------------------------
 * Device contexts
 * ------------------------------------------------------------------------------------------------- */
#define MAX_DEVICES 64
static pthread_mutex_t ctx_mu = PTHREAD_MUTEX_INITIALIZER;
static rs_gpu_ctx_t *ctx_table[MAX_DEVICES];

int rs_gpu_device_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

int rs_gpu_ctx_anchor(rs_gpu_ctx_t *ctx, rs_err_t *err) {
    RS_CUDA_TRY(err, cudaSetDevice(ctx->device));
    RS_CUDA_TRY(err, cudaDeviceSynchronize());
    double t0 = rs_now_s();
    RS_CUDA_TRY(err, cudaEventRecord(ctx->anchor, ctx->compute));
    RS_CUDA_TRY(err, cudaEventSynchronize(ctx->anchor));
    double t1 = rs_now_s();
    ctx->anchor_s = 0.5 * (t0 + t1);
    return 0;
}

static int ctx_create(int device, rs_gpu_ctx_t **out, rs_err_t *err) {
    rs_gpu_ctx_t *c = calloc(1, sizeof *c);
    if (!c) return rs_errf(err, "gpu: out of memory");
    c->device = device;
    c->last_step = -1;
    *out = c;
    RS_CUDA_TRY(err, cudaSetDevice(device));
    RS_CUDA_TRY(err, cudaStreamCreateWithFlags(&c->compute, cudaStreamNonBlocking));
    RS_CUDA_TRY(err, cudaStreamCreateWithFlags(&c->comm, cudaStreamNonBlocking));
    RS_CUDA_TRY(err, cudaEventCreate(&c->anchor));
    return rs_gpu_ctx_anchor(c, err);
}

rs_gpu_ctx_t *rs_gpu_ctx_get(int device, rs_err_t *err) {
    int n = rs_gpu_device_count();
    if (device < 0 || device >= n || device >= MAX_DEVICES) {
        rs_errf(err, "gpu: device %d requested but %d GPU(s) visible (one GPU per rank: local rank r uses GPU r)",
                device, n);
        return NULL;
    }
    pthread_mutex_lock(&ctx_mu);
    rs_gpu_ctx_t *c = ctx_table[device];
    if (!c) {
        if (ctx_create(device, &c, err) < 0) {
            free(c); /* streams of a failed device are left to process exit */
            c = NULL;
        } else {
            ctx_table[device] = c;
        }
    }
    pthread_mutex_unlock(&ctx_mu);
    if (c && cudaSetDevice(device) != cudaSuccess) {
        rs_errf(err, "cuda: cudaSetDevice(%d) failed", device);
        return NULL;
    }
    return c;
}

int rs_gpu_ctx_event_time(const rs_gpu_ctx_t *ctx, cudaEvent_t ev, double *t_s, rs_err_t *err) {
    float ms = 0;
    RS_CUDA_TRY(err, cudaEventElapsedTime(&ms, ctx->anchor, ev));
    *t_s = ctx->anchor_s + 1e-3 * (double)ms;
    return 0;
}

/* ---------------------------------------------------------------------------------------------------
 * Kernel choice
 * ------------------------------------------------------------------------------------------------- */
static rs_gpu_kernel_t pick_kernel(int64_t head_dim) {
    const char *e = getenv("RINGSIM_GPU_KERNEL");
    rs_gpu_shape_t sh = {RS_GPU_BF16, 1, 1, 1, (int32_t)head_dim, 1, 1, 1.0f};
    for (int k = 0; e && k < RS_GPU_KERNEL_COUNT; k++)
        if (!strcmp(e, rs_gpu_kernel_name((rs_gpu_kernel_t)k)) && rs_gpu_kernel_supports((rs_gpu_kernel_t)k, &sh))
            return (rs_gpu_kernel_t)k;
    return rs_gpu_kernel_supports(RS_GPU_KERNEL_DEFAULT, &sh) ? RS_GPU_KERNEL_DEFAULT : RS_GPU_KERNEL_REF;
}

void rs_gpu_kernel_tile(rs_pass_t pass, int64_t head_dim, int64_t *tile_q, int64_t *tile_k) {
    rs_gpu_kernel_t k = pick_kernel(head_dim);
    *tile_q = pass == RS_PASS_FORWARD ? rs_gpu_fwd_tile_q(k) : rs_gpu_bwd_tile_q(k);
    *tile_k = pass == RS_PASS_FORWARD ? rs_gpu_fwd_tile_k(k) : rs_gpu_bwd_tile_k(k);
}

/* ---------------------------------------------------------------------------------------------------
 * Compute state
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    rs_exec_rank_t r;          /* the rank (problem, segments) */
    rs_gpu_shape_t sh;         /* q_rows = B, kv_rows = Bc + B, batch = the K,V sequences */
    rs_gpu_shape_t shq;        /* the Q-like tensors: sh with batch = q_seqs (decode: ceil(b / N)) */
    rs_gpu_kernel_t kern;      /* kernel variant */
    rs_gpu_ctx_t *ctx;         /* device, streams, clock */
    size_t nq, nkv, nrow;      /* elements of Q-like, of one K (or V), of row statistics */
    void *q, *dout, *out;      /* 16-bit Q, dO, O (normalised) */
    float *o, *m, *l;          /* forward running state */
    float *lse, *dvec, *dq;    /* lse, D, dQ accumulator */
    float *stage;              /* fp32 staging for uploads/downloads: max(nq, nkv) elements */
    cudaEvent_t ev0, ev1;      /* around the last fwd_step / bwd_step */
    bool have_interval;        /* ev0/ev1 were recorded since the last wait */
    char desc[512];            /* describe() */
} gstate_t;

static void gs_destroy(void *st) {
    gstate_t *g = st;
    if (!g) return;
    if (g->ctx) cudaSetDevice(g->ctx->device);
    void *bufs[] = {g->q, g->dout, g->out, g->o, g->m, g->l, g->lse, g->dvec, g->dq, g->stage};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]) cudaFree(bufs[i]);
    if (g->ev0) cudaEventDestroy(g->ev0);
    if (g->ev1) cudaEventDestroy(g->ev1);
    free(g);
}

static int gs_alloc(void **p, size_t bytes, rs_err_t *err) {
    RS_CUDA_TRY(err, cudaMalloc(p, bytes ? bytes : 1));
    RS_CUDA_TRY(err, cudaMemset(*p, 0, bytes ? bytes : 1));
    return 0;
}

static int gs_create(const rs_exec_rank_t *r, rs_gpu_dtype_t dt, void **state, rs_err_t *err) {
    const rs_problem_t *p = &r->problem;
    gstate_t *g = calloc(1, sizeof *g);
    if (!g) return rs_errf(err, "gpu: out of memory");
    *state = NULL;
    g->r = *r;
    const int64_t kv_rows = r->kv_rows > 0 ? r->kv_rows : r->block_tokens, q_seqs = r->q_seqs > 0 ? r->q_seqs : p->batch;
    g->sh = (rs_gpu_shape_t){dt, (int32_t)p->batch, (int32_t)p->q_heads, (int32_t)p->kv_heads, (int32_t)p->head_dim,
                             (int32_t)r->block_tokens, (int32_t)kv_rows, (float)r->softmax_scale};
    g->shq = g->sh;
    g->shq.batch = (int32_t)q_seqs;
    if (p->batch > INT32_MAX || p->q_heads > INT32_MAX || kv_rows > INT32_MAX || rs_gpu_shape_validate(&g->sh, err) < 0 ||
        rs_gpu_shape_validate(&g->shq, err) < 0) {
        if (!err->msg[0]) rs_errf(err, "gpu: sizes exceed the kernels' 32-bit indices");
        free(g);
        return -1;
    }
    g->kern = pick_kernel(p->head_dim);
    g->ctx = rs_gpu_ctx_get(r->local_rank, err);
    if (!g->ctx) {
        free(g);
        return -1;
    }
    g->nq = rs_gpu_shape_q_elems(&g->shq), g->nkv = rs_gpu_shape_kv_elems(&g->sh), g->nrow = rs_gpu_shape_row_elems(&g->shq);
    const size_t nst = g->nq > g->nkv ? g->nq : g->nkv;
    if (gs_alloc(&g->q, g->nq * 2, err) || gs_alloc(&g->dout, g->nq * 2, err) || gs_alloc(&g->out, g->nq * 2, err) ||
        gs_alloc((void **)&g->o, g->nq * 4, err) || gs_alloc((void **)&g->m, g->nrow * 4, err) ||
        gs_alloc((void **)&g->l, g->nrow * 4, err) || gs_alloc((void **)&g->lse, g->nrow * 4, err) ||
        gs_alloc((void **)&g->dvec, g->nrow * 4, err) || gs_alloc((void **)&g->dq, g->nq * 4, err) ||
        gs_alloc((void **)&g->stage, nst * 4, err)) {
        gs_destroy(g);
        return -1;
    }
    if (cudaEventCreate(&g->ev0) != cudaSuccess || cudaEventCreate(&g->ev1) != cudaSuccess) {
        gs_destroy(g);
        return rs_errf(err, "cuda: %s:%d: cudaEventCreate failed", __FILE__, __LINE__);
    }
    struct cudaDeviceProp prop;
    int drv = 0;
    if (cudaGetDeviceProperties(&prop, g->ctx->device) != cudaSuccess) snprintf(prop.name, sizeof prop.name, "?");
    cudaDriverGetVersion(&drv);
    snprintf(g->desc, sizeof g->desc, "CUDA %s kernels (%s; fwd tile %dx%d, bwd %dx%d), %.*s sm_%d%d, driver %d",
             rs_gpu_kernel_name(g->kern), g->kern != RS_GPU_KERNEL_REF ? "mma.sync m16n8k16, fp32 accumulate" : "fp32 scalar",
             rs_gpu_fwd_tile_q(g->kern), rs_gpu_fwd_tile_k(g->kern), rs_gpu_bwd_tile_q(g->kern), rs_gpu_bwd_tile_k(g->kern),
             (int)sizeof prop.name > 64 ? 64 : (int)sizeof prop.name, prop.name, prop.major, prop.minor, drv);
    *state = g;
    return 0;
}

static int gs_create_bf16(const rs_exec_rank_t *r, void **state, rs_err_t *err) { return gs_create(r, RS_GPU_BF16, state, err); }
static int gs_create_fp16(const rs_exec_rank_t *r, void **state, rs_err_t *err) { return gs_create(r, RS_GPU_FP16, state, err); }

static int gs_buf_alloc(void *st, size_t bytes, void **buf, rs_err_t *err) {
    gstate_t *g = st;
    RS_CUDA_TRY(err, cudaSetDevice(g->ctx->device));
    return gs_alloc(buf, bytes, err);
}

static void gs_buf_free(void *st, void *buf) {
    gstate_t *g = st;
    cudaSetDevice(g->ctx->device);
    if (buf) cudaFree(buf);
}

/* Host fp32 -> device 16-bit dst (n elements) through the staging buffer. */
static int upload16(gstate_t *g, const float *host, void *dst, size_t n, rs_err_t *err) {
    RS_CUDA_TRY(err, cudaMemcpyAsync(g->stage, host, n * 4, cudaMemcpyHostToDevice, g->ctx->compute));
    if (rs_gpu_f32_to_16(g->sh.dtype, g->stage, dst, n, g->ctx->compute, err) < 0) return -1;
    RS_CUDA_TRY(err, cudaStreamSynchronize(g->ctx->compute));
    return 0;
}

static int gs_upload(void *st, rs_tensor_t which, const float *host, void *buf, rs_err_t *err) {
    gstate_t *g = st;
    RS_CUDA_TRY(err, cudaSetDevice(g->ctx->device));
    switch (which) {
    case RS_TENSOR_Q: return upload16(g, host, buf ? buf : g->q, g->nq, err);
    case RS_TENSOR_DO: return upload16(g, host, g->dout, g->nq, err);
    case RS_TENSOR_K: return upload16(g, host, buf, g->nkv, err);
    case RS_TENSOR_V: return upload16(g, host, (char *)buf + g->nkv * 2, g->nkv, err);
    default: return rs_errf(err, "gpu: upload of %s is not an input", rs_tensor_name(which));
    }
}

static int gs_download(void *st, rs_tensor_t which, float *host, const void *buf, rs_err_t *err) {
    gstate_t *g = st;
    RS_CUDA_TRY(err, cudaSetDevice(g->ctx->device));
    const float *src = NULL;
    size_t n = 0;
    switch (which) {
    case RS_TENSOR_O:
        if (rs_gpu_16_to_f32(g->sh.dtype, g->out, g->stage, g->nq, g->ctx->compute, err) < 0) return -1;
        src = g->stage, n = g->nq;
        break;
    case RS_TENSOR_LSE: src = g->lse, n = g->nrow; break;
    case RS_TENSOR_DQ: src = g->dq, n = g->nq; break;
    case RS_TENSOR_DK: src = (const float *)buf, n = g->nkv; break;
    case RS_TENSOR_DV: src = (const float *)buf + g->nkv, n = g->nkv; break;
    default: return rs_errf(err, "gpu: download of %s is not an output", rs_tensor_name(which));
    }
    RS_CUDA_TRY(err, cudaMemcpyAsync(host, src, n * 4, cudaMemcpyDeviceToHost, g->ctx->compute));
    RS_CUDA_TRY(err, cudaStreamSynchronize(g->ctx->compute));
    return 0;
}

/* The forward's buffers of the state for the queries q against the K,V buffer kv (K then V, 16-bit),
 * finalised into O (16-bit) and lse. */
static rs_gpu_fwd_bufs_t fwd_bufs(const gstate_t *g, const void *q, const void *kv) {
    return (rs_gpu_fwd_bufs_t){q, kv, kv ? (const char *)kv + g->nkv * 2 : NULL, g->o, g->m, g->l, g->out, NULL, g->lse};
}

static int gs_fwd_begin(void *st, rs_err_t *err) {
    gstate_t *g = st;
    if (rs_gpu_ctx_anchor(g->ctx, err) < 0) return -1;
    g->have_interval = false;
    const rs_gpu_fwd_bufs_t b = fwd_bufs(g, NULL, NULL);
    return rs_gpu_fwd_init(&g->sh, &b, g->ctx->compute, err);
}

/* A compute step's bracket on the compute stream: step_open makes d from step, selects the device and
 * records ev0; step_close records ev1 and marks the interval and the context's last step and pass.
 * Both return 0, or -1 with err. */
static int step_open(gstate_t *g, const rs_step_t *step, rs_gpu_step_desc_t *d, rs_err_t *err) {
    if (rs_gpu_desc_from_step(step, d, err) < 0) return -1;
    RS_CUDA_TRY(err, cudaSetDevice(g->ctx->device));
    RS_CUDA_TRY(err, cudaEventRecord(g->ev0, g->ctx->compute));
    return 0;
}

static int step_close(gstate_t *g, const rs_step_t *step, rs_pass_t pass, rs_err_t *err) {
    RS_CUDA_TRY(err, cudaEventRecord(g->ev1, g->ctx->compute));
    g->have_interval = true;
    g->ctx->step_seq++, g->ctx->last_step = step->step, g->ctx->last_pass = pass;
    return 0;
}

static int gs_fwd_step(void *st, const rs_step_t *step, const void *kv, rs_err_t *err) {
    gstate_t *g = st;
    rs_gpu_step_desc_t d;
    if (step_open(g, step, &d, err) < 0) return -1;
    const rs_gpu_fwd_bufs_t b = fwd_bufs(g, g->q, kv);
    if (rs_gpu_fwd_step(g->kern, &g->sh, &d, &b, g->ctx->compute, err) < 0) return -1;
    return step_close(g, step, RS_PASS_FORWARD, err);
}

static int gs_fwd_end(void *st, rs_err_t *err) {
    gstate_t *g = st;
    RS_CUDA_TRY(err, cudaSetDevice(g->ctx->device));
    const rs_gpu_fwd_bufs_t b = fwd_bufs(g, NULL, NULL);
    return rs_gpu_fwd_finalize(&g->sh, &b, g->ctx->compute, err);
}

/* pass-q: the visiting queries' partial output into part (exec.h): a fresh (o, m, l) in the state's
 * forward buffers, the step, the finalisation into part (O 16-bit, then lse fp32). Decode runs one
 * launch per sequence (local sequence i reads the K,V of sequence q_owner + i N). */
static int gs_q_step(void *st, const rs_step_t *step, const void *qbuf, const void *kv, void *part, rs_err_t *err) {
    gstate_t *g = st;
    rs_gpu_step_desc_t d;
    if (step_open(g, step, &d, err) < 0) return -1;
    rs_gpu_fwd_bufs_t b = fwd_bufs(g, qbuf, kv);
    if (rs_gpu_fwd_init(&g->shq, &b, g->ctx->compute, err) < 0) return -1;
    if (!g->r.problem.decode) {
        if (rs_gpu_fwd_step(g->kern, &g->sh, &d, &b, g->ctx->compute, err) < 0) return -1;
    } else {
        rs_gpu_shape_t one = g->sh;
        one.batch = 1;
        const size_t q_seq = rs_gpu_shape_q_elems(&one), kv_seq = rs_gpu_shape_kv_elems(&one), rows = rs_gpu_shape_row_elems(&one);
        for (int64_t i = 0; i < step->n_seqs; i++) {
            const int64_t kvb = step->q_owner + i * g->r.problem.n_ranks;
            const rs_gpu_fwd_bufs_t bi = {(const char *)qbuf + (size_t)i * q_seq * 2, (const char *)b.k + (size_t)kvb * kv_seq * 2,
                                          (const char *)b.v + (size_t)kvb * kv_seq * 2, g->o + (size_t)i * q_seq, g->m + (size_t)i * rows,
                                          g->l + (size_t)i * rows, NULL, NULL, NULL};
            if (rs_gpu_fwd_step(g->kern, &one, &d, &bi, g->ctx->compute, err) < 0) return -1;
        }
    }
    b.out = part, b.lse = (float *)((char *)part + g->nq * 2); /* the partial buffer: O, then lse */
    if (rs_gpu_fwd_finalize(&g->shq, &b, g->ctx->compute, err) < 0) return -1;
    return step_close(g, step, RS_PASS_FORWARD, err);
}

/* pass-q: fold the n partials into (o, lse) fp32, then O in 16 bits (download reads out and lse). */
static int gs_q_merge(void *st, int n, void *const *parts, rs_err_t *err) {
    gstate_t *g = st;
    RS_CUDA_TRY(err, cudaSetDevice(g->ctx->device));
    const rs_gpu_fwd_bufs_t acc = {.o = g->o, .m = g->lse, .l = g->l}; /* o = 0, lse = -inf */
    if (rs_gpu_fwd_init(&g->shq, &acc, g->ctx->compute, err) < 0) return -1;
    for (int i = 0; i < n; i++)
        if (rs_gpu_merge_fold(&g->shq, parts[i], g->o, g->lse, g->ctx->compute, err) < 0) return -1;
    return rs_gpu_f32_to_16(g->sh.dtype, g->o, g->out, g->nq, g->ctx->compute, err);
}

static int gs_bwd_begin(void *st, rs_err_t *err) {
    gstate_t *g = st;
    if (rs_gpu_ctx_anchor(g->ctx, err) < 0) return -1;
    g->have_interval = false;
    RS_CUDA_TRY(err, cudaMemsetAsync(g->dq, 0, g->nq * 4, g->ctx->compute));
    const rs_gpu_bwd_bufs_t b = {.out = g->out, .dout = g->dout, .dvec = g->dvec};
    return rs_gpu_bwd_prep(&g->sh, &b, g->ctx->compute, err);
}

static int gs_bwd_step(void *st, const rs_step_t *step, const void *kv, void *dkv, rs_err_t *err) {
    gstate_t *g = st;
    rs_gpu_step_desc_t d;
    if (step_open(g, step, &d, err) < 0) return -1;
    const rs_gpu_bwd_bufs_t b = {g->q, g->dout, kv, (const char *)kv + g->nkv * 2, g->out, g->lse, g->dvec, g->dq, (float *)dkv,
                                 (float *)dkv + g->nkv};
    if (rs_gpu_bwd_step(g->kern, &g->sh, &d, &b, g->ctx->compute, err) < 0) return -1;
    return step_close(g, step, RS_PASS_BACKWARD, err);
}

static int gs_bwd_end(void *st, rs_err_t *err) {
    (void)st;
    (void)err;
    return 0;
}

static int gs_grad_zero(void *st, void *dst, rs_err_t *err) {
    gstate_t *g = st;
    RS_CUDA_TRY(err, cudaSetDevice(g->ctx->device));
    RS_CUDA_TRY(err, cudaMemsetAsync(dst, 0, 2 * g->nkv * 4, g->ctx->compute));
    return 0;
}

static int gs_grad_add(void *st, void *dst, const void *src, rs_err_t *err) {
    gstate_t *g = st;
    RS_CUDA_TRY(err, cudaSetDevice(g->ctx->device));
    return rs_gpu_add_f32((float *)dst, (const float *)src, 2 * g->nkv, g->ctx->compute, err);
}

static int gs_wait(void *st, double *t_start_s, double *t_end_s, rs_err_t *err) {
    gstate_t *g = st;
    RS_CUDA_TRY(err, cudaSetDevice(g->ctx->device));
    RS_CUDA_TRY(err, cudaStreamSynchronize(g->ctx->compute));
    double a = 0, b = 0;
    if (g->have_interval) {
        if (rs_gpu_ctx_event_time(g->ctx, g->ev0, &a, err) < 0 || rs_gpu_ctx_event_time(g->ctx, g->ev1, &b, err) < 0)
            return -1;
    }
    if (t_start_s) *t_start_s = a;
    if (t_end_s) *t_end_s = b;
    return 0;
}

static const char *gs_describe(void *st) { return ((gstate_t *)st)->desc; }

#define GS_COMMON_OPS                                                                                      \
    .buf_alloc = gs_buf_alloc, .buf_free = gs_buf_free, .upload = gs_upload, .download = gs_download,           \
    .fwd_begin = gs_fwd_begin, .fwd_step = gs_fwd_step, .fwd_end = gs_fwd_end, .bwd_begin = gs_bwd_begin,       \
    .bwd_step = gs_bwd_step, .bwd_end = gs_bwd_end, .q_step = gs_q_step, .q_merge = gs_q_merge,                 \
    .grad_zero = gs_grad_zero, .grad_add = gs_grad_add,                                                        \
    .wait = gs_wait, .describe = gs_describe, .destroy = gs_destroy
static const rs_compute_ops_t gpu_ops_bf16 = {.name = "gpu", .dtype_name = "bf16", .act_bytes = 2,
                                               .create = gs_create_bf16, GS_COMMON_OPS};
static const rs_compute_ops_t gpu_ops_fp16 = {.name = "gpu", .dtype_name = "fp16", .act_bytes = 2,
                                               .create = gs_create_fp16, GS_COMMON_OPS};

const rs_compute_ops_t *rs_gpu_compute_ops_for(rs_dtype_t dtype) {
    if (dtype == RS_DTYPE_BF16) return &gpu_ops_bf16;
    if (dtype == RS_DTYPE_FP16) return &gpu_ops_fp16;
    return NULL;
}
