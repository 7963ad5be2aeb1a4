/* import_fixtures.c - synthetic Kineto and Nsight Systems traces of a ring-attention run
 * (import_fixtures.h). */
#include "import_fixtures.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "import.h"
#include "import_raw.h"
#include "schedule.h"
#include "util.h"

#define T0_NS 1700000010000000000LL        /* absolute time of the run's start */
#define SESSION_NS (T0_NS - 100000000LL)    /* nsys session start (100 ms earlier) */

static const char K_FWD[] =
    "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 128, "
    "64, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(Flash_fwd_params)";
static const char K_BWD_PRE[] =
    "void flash_bwd_dot_do_o_kernel<true, Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, "
    "Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> > >(Flash_bwd_params)";
static const char K_BWD[] =
    "void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> >, false, true, false, false, false, true, false, "
    "true>(Flash_bwd_params)";
static const char K_BWD_POST[] =
    "void flash_bwd_convert_dq_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, "
    "Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> >, true>(Flash_bwd_params, int)";
static const char K_CUSTOM_FWD[] = "void custom_ring_attention_fwd_kernel<128>(AttnParams)";
static const char K_CUSTOM_BWD[] = "void custom_ring_attention_bwd_kernel<128>(AttnParams)";
static const char K_SENDRECV[] = "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)";
static const char K_ALLREDUCE[] = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";
static const char K_ADD[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> "
    ">(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)";
static const char K_GEMM[] = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";

static const char *short_name(const char *name) {
    if (name == K_FWD) return "flash_fwd_kernel";
    if (name == K_BWD_PRE) return "flash_bwd_dot_do_o_kernel";
    if (name == K_BWD) return "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel";
    if (name == K_BWD_POST) return "flash_bwd_convert_dq_kernel";
    if (name == K_CUSTOM_FWD) return "custom_ring_attention_fwd_kernel";
    if (name == K_CUSTOM_BWD) return "custom_ring_attention_bwd_kernel";
    if (name == K_SENDRECV) return "ncclDevKernel_SendRecv";
    if (name == K_ALLREDUCE) return "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";
    if (name == K_ADD) return "vectorized_elementwise_kernel";
    return name;
}

void fx_opts_default(fx_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->n_ranks = 4;
    o->n_layers = 1;
    o->forward = o->backward = true;
    o->ranges = true;
    o->filler = 3;
    o->drop_comm_rank = o->drop_comm_step = o->short_rank = -1;
    o->seed = 7;
}

void fx_free(fx_run_t *run) {
    free(run->k);
    free(run->g);
    memset(run, 0, sizeof *run);
}

static int add_k(fx_run_t *run, const fx_kernel_t *k) { return rs_raw_grow((void **)&run->k, &run->nk, &run->ck, sizeof *k, k); }
static int add_g(fx_run_t *run, const fx_range_t *g) { return rs_raw_grow((void **)&run->g, &run->ng, &run->cg, sizeof *g, g); }

/* Pseudo-random duration in [base, base + spread) ns, deterministic in (seed, a, b). */
static int64_t dur(const fx_opts_t *o, uint64_t a, uint64_t b, int64_t base, int64_t spread) {
    return base + (int64_t)(rs_hash_unit(o->seed, a, b) * (double)spread);
}

typedef struct {
    fx_run_t *run;
    int64_t *corr;      /* next correlation id per rank */
    int64_t launch;     /* next host launch time of the current (rank, step) */
    int64_t spacing;    /* between launches */
} gen_t;

/* Append kernel; returns its end. */
static int64_t put(gen_t *g, int rank, int layer, int pass, int step, int role, const char *name, int stream, int64_t t0, int64_t d) {
    fx_kernel_t k = {rank, layer, step, pass, role, name, short_name(name), t0, t0 + d, g->launch, g->corr[rank]++, stream};
    g->launch += g->spacing;
    if (add_k(g->run, &k) != 0) return INT64_MIN;
    return t0 + d;
}

/* One (rank, step): its transfers, attention, update and filler kernels. Returns the end of its
 * last kernel, INT64_MIN on OOM. */
static int64_t gen_step(gen_t *g, int r, int layer, int pass, int k, int64_t s) {
    const fx_opts_t *o = &g->run->o;
    int n = o->n_ranks;
    bool fwd = pass == RS_PASS_FORWARD, first_fwd = fwd && layer == 0;
    uint64_t key = ((uint64_t)layer * 2 + (uint64_t)pass) * 4096 + (uint64_t)k;
    int64_t e = s, x;
    g->spacing = 18000 / (8 + o->filler);
    g->launch = s - 20000;
    if (o->ranges && !(first_fwd && r == o->short_rank && k == n - 1)) {
        fx_range_t rg = {r, pass, layer, k, s - 21000, s - 21000 + 19500, ""};
        snprintf(rg.name, sizeof rg.name, "ring_attn.%s.step_%d", fwd ? "fwd" : "bwd", k);
        if (add_g(g->run, &rg) != 0) return INT64_MIN;
    }
    if (first_fwd && r == o->short_rank && k == n - 1) return e;
    bool drop = first_fwd && r == o->drop_comm_rank && k == o->drop_comm_step;
    if (!drop && k < n - 1) { /* K,V to the next rank */
        x = put(g, r, layer, pass, k, RS_KROLE_SENDRECV, K_SENDRECV, 21, s + 2000, dur(o, key, (uint64_t)r * 8 + 1, 30000, 20000));
        e = x > e ? x : e;
    }
    if (!drop && !fwd && k >= 1) { /* dK,dV partial, overlapping the K,V transfer */
        x = put(g, r, layer, pass, k, RS_KROLE_SENDRECV, K_SENDRECV, 25, s + 3000, dur(o, key, (uint64_t)r * 8 + 2, 60000, 30000));
        e = x > e ? x : e;
    }
    int stream = k % 2 ? 13 : 7;
    int64_t t = s + 4000;
    if (fwd) {
        t = put(g, r, layer, pass, k, RS_KROLE_ATTN_FWD, o->no_attention ? K_CUSTOM_FWD : K_FWD, stream, t,
                dur(o, key, (uint64_t)r * 8 + 3, 100000, 40000));
        for (int i = 0; i < 2; i++) t = put(g, r, layer, pass, -1, -1, K_ADD, stream, t + 1500, 3000);
    } else if (k < n) {
        t = put(g, r, layer, pass, k, RS_KROLE_ATTN_BWD, o->no_attention ? K_CUSTOM_BWD : K_BWD_PRE, stream, t, 4000);
        t = put(g, r, layer, pass, k, RS_KROLE_ATTN_BWD, o->no_attention ? K_CUSTOM_BWD : K_BWD, stream, t + 1000,
                dur(o, key, (uint64_t)r * 8 + 4, 250000, 80000));
        t = put(g, r, layer, pass, k, RS_KROLE_ATTN_BWD, o->no_attention ? K_CUSTOM_BWD : K_BWD_POST, stream, t + 1000, 6000);
    }
    for (int i = 0; i < o->filler; i++) t = put(g, r, layer, pass, -1, -1, i % 3 == 2 ? K_GEMM : K_ADD, 7, t + 800, 2500 + 300 * (i % 5));
    if (t == INT64_MIN || e == INT64_MIN) return INT64_MIN;
    return t > e ? t : e;
}

int fx_generate(const fx_opts_t *o, fx_run_t *run) {
    memset(run, 0, sizeof *run);
    run->o = *o;
    int n = o->n_ranks;
    int64_t *corr = calloc((size_t)n, sizeof *corr);
    if (!corr) return -1;
    for (int r = 0; r < n; r++) corr[r] = o->one_process ? 1000 + 10000000LL * r : 1000 + 7 * r; /* unique per process */
    gen_t g = {run, corr, 0, 1000};
    int64_t T = T0_NS;
    int rc = 0;
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        if ((pass == RS_PASS_FORWARD && !o->forward) || (pass == RS_PASS_BACKWARD && !o->backward)) continue;
        for (int layer = 0; layer < o->n_layers && rc == 0; layer++) {
            for (int r = 0; r < n; r++) { /* the rest of the layer: a GEMM and a gradient AllReduce */
                g.launch = T - 5000;
                g.spacing = 1000;
                if (put(&g, r, layer, pass, -1, -1, K_GEMM, 7, T, 60000) == INT64_MIN ||
                    put(&g, r, layer, pass, -1, -1, K_ALLREDUCE, 21, T + 61000, 20000) == INT64_MIN)
                    rc = -1;
            }
            T += 90000;
            int n_steps = pass == RS_PASS_FORWARD ? n : n + 1;
            for (int k = 0; k < n_steps && rc == 0; k++) {
                int64_t end = T;
                for (int r = 0; r < n && rc == 0; r++) {
                    int64_t skew = 311 * r + (int64_t)(rs_hash_unit(o->seed, (uint64_t)k, (uint64_t)r) * 700);
                    int64_t e = gen_step(&g, r, layer, pass, k, T + skew);
                    if (e == INT64_MIN) rc = -1;
                    end = e > end ? e : end;
                }
                T = end + 5000;
            }
        }
    }
    free(corr);
    if (rc) fx_free(run);
    return rc;
}

/* ------------------------------------------------------------------------------------------------
 * Expected import
 * ---------------------------------------------------------------------------------------------- */
rs_trace_t *fx_expected(const fx_run_t *run, int pass, int layer, const rs_problem_t *prob) {
    int n = run->o.n_ranks, n_steps = pass == RS_PASS_FORWARD ? n : n + 1;
    rs_problem_t p = *prob;
    p.n_ranks = n;
    p.pass = (rs_pass_t)pass;
    rs_err_t err;
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    if (!s) return NULL;
    int64_t origin = INT64_MAX;
    for (size_t i = 0; i < run->nk; i++) {
        const fx_kernel_t *k = &run->k[i];
        if (k->role >= 0 && k->pass == pass && k->layer == layer && k->start_ns < origin) origin = k->start_ns;
    }
    rs_trace_t *t = rs_trace_create("import");
    for (int r = 0; t && r < n; r++)
        for (int step = 0; step < n_steps; step++) {
            double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
            for (size_t i = 0; i < run->nk; i++) {
                const fx_kernel_t *k = &run->k[i];
                if (k->role < 0 || k->rank != r || k->pass != pass || k->layer != layer || k->step != step) continue;
                double a = (double)(k->start_ns - origin) * 1e-9, b = (double)(k->end_ns - origin) * 1e-9;
                for (int lane = 0; lane < 3; lane++) {
                    bool in = lane == 0 ? k->role <= RS_KROLE_ATTN_BWD : k->role == RS_KROLE_SENDRECV;
                    if (in) lo[lane] = fmin(lo[lane], a), hi[lane] = fmax(hi[lane], b);
                }
            }
            rs_step_t st;
            rs_schedule_step(s, r, step, &st);
            if (st.has_compute) {
                rs_event_t e = {r, step, p.pass, RS_EV_COMPUTE, -1, lo[0], hi[0], (double)st.flops_exec, 0};
                rs_trace_add(t, &e);
            }
            if (st.n_send) {
                rs_event_t e = {r, step, p.pass, RS_EV_SEND, (int32_t)st.send_peer, lo[1], hi[1], 0, (double)st.send_bytes};
                rs_trace_add(t, &e);
                rs_event_t v = {r, step, p.pass, RS_EV_RECV, (int32_t)st.recv_peer, lo[2], hi[2], 0, (double)st.recv_bytes};
                rs_trace_add(t, &v);
            }
            rs_event_t e = {r, step, p.pass, RS_EV_STEP, -1, fmin(lo[0], lo[1]), fmax(hi[0], hi[1]), 0, 0};
            rs_trace_add(t, &e);
        }
    if (t) {
        rs_trace_meta_problem(t, &p);
        rs_trace_sort(t);
    }
    rs_schedule_free(s);
    return t;
}

/* ------------------------------------------------------------------------------------------------
 * Kineto writer
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
    gzFile f;
    uint64_t bytes;
    int64_t base;     /* baseTimeNanoseconds */
    int64_t ext;      /* next External id */
} kw_t;

static void kput(kw_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void kput(kw_t *w, const char *fmt, ...) {
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof buf - 1) n = (int)sizeof buf - 1;
    gzwrite(w->f, buf, (unsigned)n);
    w->bytes += (uint64_t)n;
}

/* Relative microseconds with 3 decimals, as Kineto prints them. */
static const char *us(const kw_t *w, int64_t abs_ns, char *buf) {
    int64_t r = abs_ns - w->base;
    snprintf(buf, 32, "%lld.%03lld", (long long)(r / 1000), (long long)(r % 1000));
    return buf;
}

static const char *dur_us(int64_t ns, char *buf) {
    snprintf(buf, 32, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
    return buf;
}

/* Host process and thread of rank r's launches. */
static int64_t host_pid(const fx_opts_t *o, int r) { return o->one_process ? 40000 : 40000 - 17 * r; }
static int64_t host_tid(const fx_opts_t *o, int r) { return o->one_process ? 40001 + r : 40000 - 17 * r; }

static void k_kernel(kw_t *w, const fx_kernel_t *k, int64_t host, int64_t tid) {
    char a[32], b[32];
    bool nccl = !strncmp(k->name, "nccl", 4);
    int64_t ext = w->ext++;
    if (k->role < 0 && !nccl)
        kput(w, ",\n  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": %lld, \"tid\": %lld,\n    \"ts\": %s, \"dur\": 9.125,\n"
                "    \"args\": {\n      \"External id\": %lld,\"Record function id\": 0, \"Ev Idx\": %lld, \"Input Dims\": [[4096, 4096], [4096, 4096]], "
                "\"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"]\n    }\n  }",
             k->name == K_GEMM ? "aten::mm" : "aten::add", (long long)host, (long long)tid, us(w, k->launch_ns - 2000, a), (long long)ext,
             (long long)ext);
    kput(w, ",\n  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": %lld, \"tid\": %lld,\n    \"ts\": %s, \"dur\": 3.412,\n"
            "    \"args\": {\n      \"External id\": %lld, \"cbid\": %d, \"correlation\": %lld\n    }\n  }",
         nccl ? "cudaLaunchKernelExC" : "cudaLaunchKernel", (long long)host, (long long)tid, us(w, k->launch_ns, a), (long long)ext,
         nccl ? 430 : 211, (long long)k->corr);
    kput(w, ",\n  {\n    \"ph\": \"s\", \"id\": %lld, \"pid\": %lld, \"tid\": %lld, \"ts\": %s,\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }",
         (long long)k->corr, (long long)host, (long long)tid, us(w, k->launch_ns, a));
    int dev = k->rank;
    kput(w, ",\n  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d,\n    \"ts\": %s, \"dur\": %s,\n"
            "    \"args\": {\n      \"External id\": %lld,\n      \"queued\": 0, \"device\": %d, \"context\": 1,\n      \"stream\": %d, "
            "\"correlation\": %lld,\n      \"registers per thread\": %d,\n      \"shared memory\": %d,\n      \"blocks per SM\": %s,\n"
            "      \"warps per SM\": %s,\n      \"grid\": [%d, 1, 1],\n      \"block\": [%d, 1, 1],\n      \"est. achieved occupancy %%\": %d\n    }\n  }",
         k->name, dev, k->stream, us(w, k->start_ns, a), dur_us(k->end_ns - k->start_ns, b), (long long)ext, dev, k->stream,
         (long long)k->corr, nccl ? 96 : 255, nccl ? 0 : 98304, nccl ? "0.015152" : "\"inf\"", nccl ? "0.303030" : "3.878788", nccl ? 2 : 528,
         nccl ? 640 : 128, nccl ? 0 : 6);
    kput(w, ",\n  {\n    \"ph\": \"f\", \"id\": %lld, \"pid\": %d, \"tid\": %d, \"ts\": %s,\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }",
         (long long)k->corr, dev, k->stream, us(w, k->start_ns, a));
}

static void k_dist(kw_t *w, int rank, int n) {
    kput(w, "\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d, \"pg_count\": 2, \"pg_config\": "
            "[{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", \"pg_size\": %d, \"ranks\": [",
         rank, n, n);
    for (int r = 0; r < n; r++) kput(w, "%s%d", r ? ", " : "", r);
    kput(w, "]}], \"nccl_version\": \"2.21.5\"},");
}

/* One file: rank r's events, or every rank's (r < 0, one process). */
static int k_file(const fx_run_t *run, int r, const char *dir, bool gzip, uint64_t pad) {
    char path[1024], a[32], b[32];
    if (r >= 0) snprintf(path, sizeof path, "%s/rank%d.pt.trace.json%s", dir, r, gzip ? ".gz" : "");
    else snprintf(path, sizeof path, "%s/process.pt.trace.json%s", dir, gzip ? ".gz" : "");
    kw_t w = {gzopen(path, gzip ? "wb6" : "wbT"), 0, 1700000000000000000LL + 1234567891LL * (r < 0 ? 0 : r), 100};
    if (!w.f) return -1;
    int n = run->o.n_ranks;
    int64_t host = host_pid(&run->o, r < 0 ? 0 : r);
    kput(&w, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": %d, \"name\": \"NVIDIA H100 80GB HBM3\", "
             "\"totalGlobalMem\": 85029158912,\n      \"computeMajor\": 9, \"computeMinor\": 0,\n      \"maxThreadsPerBlock\": 1024, "
             "\"maxThreadsPerMultiprocessor\": 2048,\n      \"regsPerBlock\": 65536, \"warpSize\": 32,\n      \"sharedMemPerBlock\": 49152, "
             "\"numSms\": 132\n    , \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 232448, \"sharedMemPerMultiprocessor\": "
             "233472}\n  ],",
         r);
    if (r >= 0 && r % 2 == 0) k_dist(&w, r, n);
    kput(&w, "\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": %lld,\n  \"traceEvents\": [", (long long)w.base);
    kput(&w, "\n  {\n    \"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %lld, \"tid\": 0,\n    \"args\": {\n      \"name\": \"python\"\n    }\n  }",
         (long long)host);
    kput(&w, ",\n  {\n    \"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 0,\n    \"args\": {\n      \"name\": \"GPU %d\"\n    }\n  }", r, r);
    kput(&w, ",\n  {\n    \"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 7,\n    \"args\": {\n      \"name\": \"stream 7 \"\n    }\n  }", r);
    for (size_t i = 0; i < run->ng; i++) {
        const fx_range_t *g = &run->g[i];
        if (r >= 0 && g->rank != r) continue;
        kput(&w, ",\n  {\n    \"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"%s\", \"pid\": %lld, \"tid\": %lld,\n    \"ts\": %s, \"dur\": %s,\n"
                 "    \"args\": {\n      \"External id\": %lld, \"Record function id\": 0, \"Ev Idx\": %lld\n    }\n  }",
             g->name, (long long)host, (long long)host_tid(&run->o, g->rank), us(&w, g->start_ns, a), dur_us(g->end_ns - g->start_ns, b), (long long)w.ext,
             (long long)w.ext);
        w.ext++;
    }
    for (size_t i = 0; i < run->nk; i++)
        if (r < 0 || run->k[i].rank == r) k_kernel(&w, &run->k[i], host, host_tid(&run->o, run->k[i].rank));
    for (uint64_t i = 0; w.bytes < pad; i++) /* Python stack events: most of a real trace's bytes */
        kput(&w, ",\n  {\n    \"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"torch/nn/modules/module.py(1527): _call_impl\", "
                 "\"pid\": %lld, \"tid\": %lld,\n    \"ts\": %s, \"dur\": 12.250,\n    \"args\": {\n      \"Python parent id\": %llu, "
                 "\"Python id\": %llu, \"Ev Idx\": %llu\n    }\n  }",
             (long long)host, (long long)host_tid(&run->o, r < 0 ? 0 : r), us(&w, T0_NS + (int64_t)(i % 100000) * 1000, a), (unsigned long long)i,
             (unsigned long long)i + 1, (unsigned long long)(w.ext + i));
    kput(&w, ",\n  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", \"tid\": \"\", \"ts\": %s\n  }\n  ],",
         us(&w, run->nk ? run->k[run->nk - 1].end_ns + 100000 : T0_NS, a));
    if (r >= 0 && r % 2 == 1) k_dist(&w, r, n);
    kput(&w, "\n  \"traceName\": \"%s\"\n}", path);
    return gzclose(w.f) == Z_OK ? 0 : -1;
}

int fx_write_kineto(const fx_run_t *run, const char *dir, bool gzip, uint64_t pad_bytes) {
    if (run->o.one_process) return k_file(run, -1, dir, gzip, pad_bytes);
    for (int r = 0; r < run->o.n_ranks; r++)
        if (k_file(run, r, dir, gzip, pad_bytes) != 0) return -1;
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * nsys writer
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
    const char *s[64];
    int n;
} strtab_t;

/* StringIds id of s (added on first use; ids start at 1). */
static int sid(strtab_t *t, const char *s) {
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->s[i], s)) return i + 1;
    t->s[t->n] = s;
    return ++t->n;
}

static const char NSYS_SCHEMA[] =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);\n"
    "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);\n"
    "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT, isDiscrete INTEGER, "
    "l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, uuid TEXT, "
    "luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxswDevPath TEXT, ctrlDevPath TEXT, revision INTEGER, nodeMask INTEGER, "
    "constantMemory INTEGER, maxIPC INTEGER, maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER, "
    "maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, asyncEngines INTEGER, maxWarpsPerSm INTEGER, "
    "maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER, maxBlockDimY INTEGER, maxBlockDimZ INTEGER, "
    "maxGridDimX INTEGER, maxGridDimY INTEGER, maxGridDimZ INTEGER, computeMajor INTEGER, computeMinor INTEGER, smMajor INTEGER, "
    "smMinor INTEGER);\n"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, "
    "contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
    "demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER, "
    "registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, "
    "blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, "
    "dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, "
    "gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);\n"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, "
    "globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);\n"
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, "
    "color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER, "
    "int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);\n";

static int ns_dev(const fx_opts_t *o, int r) { return o->mpi_ranks ? (r * 3 + 1) % o->n_ranks : r; }
static int64_t gpid(const fx_opts_t *o, int r) { return host_pid(o, r) << 24; }
static int64_t gtid(const fx_opts_t *o, int r) { return gpid(o, r) | host_tid(o, r); }

int fx_write_nsys_sql(const fx_run_t *run, FILE *fp) {
    const fx_opts_t *o = &run->o;
    strtab_t st = {{0}, 0};
    fprintf(fp, "-- Nsight Systems SQLite export (nsys export --type sqlite), synthetic: tests/import_fixtures.c\nBEGIN;\n%s", NSYS_SCHEMA);
    if (o->mpi_ranks) fprintf(fp, "CREATE TABLE MPI_RANKS (globalTid INTEGER NOT NULL, rank INTEGER NOT NULL);\n");
    fprintf(fp, "INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (34, 'NvtxMark', 'NVTX Mark'), (59, 'NvtxPushPopRange', 'NVTX PushPop Range'), "
                "(60, 'NvtxStartEndRange', 'NVTX StartEnd Range');\n");
    fprintf(fp, "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.1');\n");
    fprintf(fp, "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (%lld, '2023-11-14T22:13:20Z', '2023-11-14T23:13:20');\n", (long long)SESSION_NS);
    for (int r = 0; r < o->n_ranks; r++) {
        int d = ns_dev(o, r);
        fprintf(fp, "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, totalMemory, smCount, uuid, chipName, cuDevice, "
                    "threadsPerWarp, computeMajor, computeMinor) VALUES (0, %d, 'NVIDIA H100 80GB HBM3', '0000:%02x:00.0', 1, 85029158912, 132, "
                    "'GPU-0000000%d-aaaa-bbbb-cccc-ddddeeeeffff', 'GH100', %d, 32, 9, 0);\n",
                d, 0x18 + d, d, d);
        if (o->mpi_ranks) fprintf(fp, "INSERT INTO MPI_RANKS VALUES (%lld, %d);\n", (long long)gtid(o, r), r);
    }
    for (size_t i = 0; i < run->nk; i++) {
        const fx_kernel_t *k = &run->k[i];
        bool nccl = !strncmp(k->name, "nccl", 4);
        int dn = sid(&st, k->name), sn = sid(&st, k->short_name), api = sid(&st, nccl ? "cudaLaunchKernelExC_v11060" : "cudaLaunchKernel_v7000");
        fprintf(fp, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%lld, %lld, %d, 1, NULL, %d, %lld, %lld, %d, %d, NULL, 0, 0, %d, %d, 1, 1, "
                    "%d, 1, 1, 0, %d, 0, 0, %zu, %d, NULL, NULL);\n",
                (long long)(k->start_ns - SESSION_NS), (long long)(k->end_ns - SESSION_NS), ns_dev(o, k->rank), k->stream, (long long)k->corr,
                (long long)gpid(o, k->rank), dn, sn, nccl ? 96 : 255, nccl ? 2 : 528, nccl ? 640 : 128, nccl ? 0 : 98304, 1000 + i, nccl ? 0 : 98304);
        fprintf(fp, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (%lld, %lld, 1, %lld, %lld, %d, 0, NULL);\n",
                (long long)(k->launch_ns - SESSION_NS), (long long)(k->launch_ns - SESSION_NS + 3412),
                (long long)gtid(o, k->rank), (long long)k->corr, api);
    }
    for (size_t i = 0; i < run->ng; i++) {
        const fx_range_t *g = &run->g[i];
        long long tid = (long long)gtid(o, g->rank);
        if (o->nvtx_text_id)
            fprintf(fp, "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId) VALUES (%lld, %lld, 59, NULL, %lld, %d, 0);\n",
                    (long long)(g->start_ns - SESSION_NS), (long long)(g->end_ns - SESSION_NS), tid, sid(&st, g->name));
        else
            fprintf(fp, "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES (%lld, %lld, 59, '%s', %lld, 0);\n",
                    (long long)(g->start_ns - SESSION_NS), (long long)(g->end_ns - SESSION_NS), g->name, tid);
    }
    for (int i = 0; i < st.n; i++) fprintf(fp, "INSERT INTO StringIds VALUES (%d, '%s');\n", i + 1, st.s[i]);
    fprintf(fp, "COMMIT;\n");
    return ferror(fp) ? -1 : 0;
}

int fx_sql_to_sqlite(const char *sql_path, const char *db_path) {
    FILE *fp = fopen(sql_path, "rb");
    if (!fp) {
        fprintf(stderr, "%s: cannot open\n", sql_path);
        return -1;
    }
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *sql = malloc((size_t)n + 1);
    size_t got = sql ? fread(sql, 1, (size_t)n, fp) : 0;
    fclose(fp);
    if (!sql) return -1;
    sql[got] = '\0';
    unlink(db_path);
    sqlite3 *db = NULL;
    char *msg = NULL;
    int rc = sqlite3_open(db_path, &db) == SQLITE_OK ? sqlite3_exec(db, sql, NULL, NULL, &msg) : SQLITE_ERROR;
    if (rc != SQLITE_OK) fprintf(stderr, "%s: %s\n", db_path, msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    sqlite3_close(db);
    free(sql);
    return rc == SQLITE_OK ? 0 : -1;
}
