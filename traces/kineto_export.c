/* kineto_export.c - a ringsim trace as Kineto files (import.h, rs_import_export_kineto): one
 * DIR/rankR.pt.trace.json per rank, laid out as torch.profiler's export_chrome_trace writes them
 * (the layout: import_kineto.c), so that the import reads it back to the nanosecond. A step with
 * role events spanning its compute event (an imported trace's, a preset model's) becomes kernels of
 * each role: one over the role's span, or two at its ends whose lengths add up to its busy time, so
 * that the span and the busy time come back. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import.h"
#include "output.h"

#define EXPORT_BASE_NS 1700000000000000000LL /* baseTimeNanoseconds of the exported files */
#define EXPORT_SHIFT_NS 1000000LL            /* the trace's origin sits 1 ms after the base */
#define EXPORT_STREAM_COMPUTE 7
#define EXPORT_STREAM_NCCL 20

/* (rank, pass, step, last) of x against y's: -1, 0, 1. */
static int rank_order(const int32_t x[4], const int32_t y[4]) {
    for (int i = 0; i < 4; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* Events by (rank, pass, step, kind). */
static int ev_rank_cmp(const void *a, const void *b) {
    const rs_event_t *x = a, *y = b;
    const int32_t kx[4] = {x->rank, (int32_t)x->pass, x->step, (int32_t)x->kind}, ky[4] = {y->rank, (int32_t)y->pass, y->step, (int32_t)y->kind};
    return rank_order(kx, ky);
}

/* Role events by (rank, pass, step, role). */
static int role_rank_cmp(const void *a, const void *b) {
    const rs_role_event_t *x = a, *y = b;
    const int32_t kx[4] = {x->rank, (int32_t)x->pass, x->step, (int32_t)x->role}, ky[4] = {y->rank, (int32_t)y->pass, y->step, (int32_t)y->role};
    return rank_order(kx, ky);
}

typedef struct {
    FILE *fp;
    int rank;
    int64_t host_pid;
    int64_t corr;          /* next correlation id */
} kwriter_t;

/* Seconds -> ns relative to the base ("%lld.%03lld" microseconds as Kineto prints). */
static int64_t rel_ns(double t_s) { return llround(t_s * 1e9) + EXPORT_SHIFT_NS; }

static void put_us(FILE *fp, int64_t ns) {
    if (ns < 0) ns = 0;
    fprintf(fp, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

/* A kernel with its runtime launch and ac2g flow (launch at the kernel's start, host thread). */
static void put_kernel(kwriter_t *w, const char *api, const char *name, int64_t stream, int64_t t0, int64_t t1) {
    FILE *fp = w->fp;
    int64_t c = w->corr++;
    fprintf(fp, ",\n  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": %lld, \"tid\": %lld, \"ts\": ", api,
            (long long)w->host_pid, (long long)w->host_pid);
    put_us(fp, t0);
    fprintf(fp, ", \"dur\": 0.000, \"args\": {\"cbid\": %d, \"correlation\": %lld}}", strcmp(api, "cudaLaunchKernel") ? 430 : 211,
            (long long)c);
    fprintf(fp, ",\n  {\"ph\": \"s\", \"id\": %lld, \"pid\": %lld, \"tid\": %lld, \"ts\": ", (long long)c, (long long)w->host_pid,
            (long long)w->host_pid);
    put_us(fp, t0);
    fprintf(fp, ", \"cat\": \"ac2g\", \"name\": \"ac2g\"}");
    fprintf(fp, ",\n  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": %d, \"tid\": %lld, \"ts\": ", name, w->rank,
            (long long)stream);
    put_us(fp, t0);
    fprintf(fp, ", \"dur\": ");
    put_us(fp, t1 - t0);
    fprintf(fp, ",\n    \"args\": {\"queued\": 0, \"device\": %d, \"context\": 1, \"stream\": %lld, \"correlation\": %lld, "
                "\"registers per thread\": 128, \"shared memory\": 0, \"blocks per SM\": 1.0, \"warps per SM\": 4.0, "
                "\"grid\": [132, 1, 1], \"block\": [128, 1, 1], \"est. achieved occupancy %%\": 6}}",
            w->rank, (long long)stream, (long long)c);
    fprintf(fp, ",\n  {\"ph\": \"f\", \"id\": %lld, \"pid\": %d, \"tid\": %lld, \"ts\": ", (long long)c, w->rank, (long long)stream);
    put_us(fp, t0);
    fprintf(fp, ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}");
}

/* A kernel of each role (trace.h rs_role_t), named so the import gives it that role. */
static const char *role_kernel(rs_role_t r, rs_pass_t pass) {
    switch (r) {
    case RS_ROLE_MERGE: return "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int)";
    case RS_ROLE_CAST: return "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)>(int)";
    case RS_ROLE_OTHER: return "ringsim_export_other_kernel";
    default: return pass == RS_PASS_FORWARD ? "void attn_fwd_mma<__nv_bfloat16, 128>(FwdParams)" : "void attn_bwd_mma<__nv_bfloat16, 128, 64>(BwdParams)";
    }
}

typedef struct {
    int64_t t0, t1;
    const char *name;
} kint_t;

static int kint_cmp(const void *a, const void *b) {
    const kint_t *x = a, *y = b;
    return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* Whether the role events ro[0..n) of a step span its compute event c to the nanosecond (an imported
 * trace's, a preset model's): then they are its kernels; else (the dense model's attention role, its
 * host cost in no role) the compute event is one attention kernel, as without roles. */
static bool roles_span(const rs_role_event_t *ro, size_t n, const rs_event_t *c) {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) lo = fmin(lo, ro[i].start_s), hi = fmax(hi, ro[i].end_s);
    return rel_ns(lo) == rel_ns(c->start_s) && rel_ns(hi) == rel_ns(c->end_s);
}

/* The compute kernels of a step from its role events ro[0..n): per role one kernel over its span,
 * or two at its ends adding up to its busy time; launched in start order. */
static void put_roles(kwriter_t *w, const rs_role_event_t *ro, size_t n) {
    kint_t k[2 * RS_ROLE_COUNT];
    size_t m = 0;
    for (size_t i = 0; i < n && m + 2 <= 2 * RS_ROLE_COUNT; i++) {
        const int64_t t0 = rel_ns(ro[i].start_s), t1 = rel_ns(ro[i].end_s), busy = llround(ro[i].busy_s * 1e9);
        const char *name = role_kernel(ro[i].role, ro[i].pass);
        if (busy >= t1 - t0) {
            k[m++] = (kint_t){t0, t1, name};
        } else {
            k[m++] = (kint_t){t0, t0 + busy / 2, name};
            k[m++] = (kint_t){t1 - (busy - busy / 2), t1, name};
        }
    }
    qsort(k, m, sizeof *k, kint_cmp);
    for (size_t i = 0; i < m; i++) put_kernel(w, "cudaLaunchKernel", k[i].name, EXPORT_STREAM_COMPUTE, k[i].t0, k[i].t1);
}

/* The steps of one rank: ev[0..n) sorted by (pass, step, kind), its role events ro[0..nr) sorted by
 * (pass, step, role). */
static void put_rank_steps(kwriter_t *w, const rs_event_t *ev, size_t n, const rs_role_event_t *ro, size_t nr) {
    size_t r0 = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && ev[j].pass == ev[i].pass && ev[j].step == ev[i].step) j++;
        const rs_event_t *by_kind[RS_EV_KIND_COUNT] = {NULL};
        for (size_t q = i; q < j; q++) by_kind[ev[q].kind] = &ev[q];
        int64_t s0 = INT64_MAX, s1 = INT64_MIN;
        for (size_t q = i; q < j; q++) {
            if (ev[q].kind == RS_EV_STEP) continue;
            s0 = rel_ns(ev[q].start_s) < s0 ? rel_ns(ev[q].start_s) : s0;
            s1 = rel_ns(ev[q].end_s) > s1 ? rel_ns(ev[q].end_s) : s1;
        }
        if (s0 <= s1) { /* the step's record_function range, on the host thread */
            fprintf(w->fp, ",\n  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ringsim %s step %d\", \"pid\": %lld, \"tid\": %lld, \"ts\": ",
                    rs_pass_name(ev[i].pass), (int)ev[i].step, (long long)w->host_pid, (long long)w->host_pid);
            put_us(w->fp, s0);
            fprintf(w->fp, ", \"dur\": ");
            put_us(w->fp, s1 - s0);
            fprintf(w->fp, "}");
        }
        const rs_event_t *snd = by_kind[RS_EV_SEND], *rcv = by_kind[RS_EV_RECV];
        if (snd && rcv && rel_ns(snd->start_s) == rel_ns(rcv->start_s) && rel_ns(snd->end_s) == rel_ns(rcv->end_s)) {
            put_kernel(w, "cudaLaunchKernelExC", "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", EXPORT_STREAM_NCCL,
                       rel_ns(snd->start_s), rel_ns(snd->end_s));
        } else {
            if (snd)
                put_kernel(w, "cudaLaunchKernelExC", "ncclDevKernel_Send(ncclDevKernelArgsStorage<4096ul>)", EXPORT_STREAM_NCCL,
                           rel_ns(snd->start_s), rel_ns(snd->end_s));
            if (rcv)
                put_kernel(w, "cudaLaunchKernelExC", "ncclDevKernel_Recv(ncclDevKernelArgsStorage<4096ul>)", EXPORT_STREAM_NCCL + 1,
                           rel_ns(rcv->start_s), rel_ns(rcv->end_s));
        }
        const rs_event_t *c = by_kind[RS_EV_COMPUTE];
        while (r0 < nr && (ro[r0].pass < ev[i].pass || (ro[r0].pass == ev[i].pass && ro[r0].step < ev[i].step))) r0++;
        size_t r1 = r0;
        while (r1 < nr && ro[r1].pass == ev[i].pass && ro[r1].step == ev[i].step) r1++;
        if (c && r1 > r0 && roles_span(ro + r0, r1 - r0, c))
            put_roles(w, ro + r0, r1 - r0);
        else if (c && c->flops == 0) /* a masked block's launch: no attention work, so no attention kernel (the import checks) */
            put_kernel(w, "cudaLaunchKernel", "void ringsim_masked_block_skip(int)", EXPORT_STREAM_COMPUTE, rel_ns(c->start_s), rel_ns(c->end_s));
        else if (c)
            put_kernel(w, "cudaLaunchKernel",
                       c->pass == RS_PASS_FORWARD ? "void attn_fwd_mma<__nv_bfloat16, 128>(FwdParams)"
                                                  : "void attn_bwd_mma<__nv_bfloat16, 128, 64>(BwdParams)",
                       EXPORT_STREAM_COMPUTE, rel_ns(c->start_s), rel_ns(c->end_s));
        i = j;
    }
}

/* Where the ranks' files go, and what their deviceProperties say. */
typedef struct {
    const char *dir;
    const char *device; /* the trace's hw (the profile it was made for), else "ringsim export" */
    int n_ranks;
} export_to_t;

/* The device name a trace's files carry: its hw when that is a plain JSON string, else "ringsim export". */
static const char *export_device(const rs_trace_t *t) {
    const char *hw = rs_trace_get_meta(t, "hw");
    for (const char *c = hw; c && *c; c++)
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) return "ringsim export";
    return hw && hw[0] ? hw : "ringsim export";
}

static int export_rank(const export_to_t *to, int rank, const rs_event_t *ev, size_t n, const rs_role_event_t *ro, size_t nr,
                       rs_err_t *err) {
    char path[4096];
    const int n_ranks = to->n_ranks;
    snprintf(path, sizeof path, "%s/rank%d.pt.trace.json", to->dir, rank);
    rs_file_t f;
    if (rs_file_open(&f, path, err) != 0) return -1;
    FILE *fp = f.fp;
    kwriter_t w = {fp, rank, 4242 + rank, 1000};
    fprintf(fp, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\"id\": %d, \"name\": \"%s\", "
                "\"totalGlobalMem\": 85520809984, \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}\n  ],\n",
            rank, to->device);
    fprintf(fp, "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d, \"pg_count\": 1, "
                "\"nccl_version\": \"unknown\"},\n",
            rank, n_ranks);
    fprintf(fp, "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": %lld,\n  \"traceEvents\": [\n", EXPORT_BASE_NS);
    fprintf(fp, "  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"GPU %d\"}}",
            rank, rank);
    fprintf(fp, ",\n  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %lld, \"tid\": 0, \"args\": {\"name\": \"python\"}}",
            (long long)w.host_pid);
    put_rank_steps(&w, ev, n, ro, nr);
    int64_t end = EXPORT_SHIFT_NS;
    for (size_t i = 0; i < n; i++) end = rel_ns(ev[i].end_s) > end ? rel_ns(ev[i].end_s) : end;
    fprintf(fp, ",\n  {\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", \"tid\": \"\", \"ts\": ");
    put_us(fp, end + 1000);
    fprintf(fp, "}\n  ],\n  \"traceName\": \"rank%d.pt.trace.json\"\n}\n", rank);
    return rs_file_commit(&f, err);
}

int rs_import_export_kineto(const rs_trace_t *t, const char *dir, rs_err_t *err) {
    size_t n = rs_trace_count(t);
    if (n == 0) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: the trace has no events to export", dir);
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (mkdir(dir, 0777) != 0) return rs_errf(err, "%s: cannot create directory: %s", dir, strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: exists and is not a directory", dir);
    }
    const size_t nr = rs_trace_role_count(t);
    rs_event_t *ev = malloc(n * sizeof *ev);
    rs_role_event_t *ro = malloc((nr ? nr : 1) * sizeof *ro);
    if (!ev || !ro) {
        free(ev), free(ro);
        return rs_errf(err, "out of memory");
    }
    memcpy(ev, rs_trace_events(t), n * sizeof *ev);
    qsort(ev, n, sizeof *ev, ev_rank_cmp);
    if (nr) memcpy(ro, rs_trace_roles(t), nr * sizeof *ro);
    qsort(ro, nr, sizeof *ro, role_rank_cmp);
    const export_to_t to = {dir, export_device(t), ev[n - 1].rank + 1};
    int rc = 0;
    size_t r0 = 0;
    for (size_t i = 0; i < n && rc == 0;) {
        size_t j = i;
        while (j < n && ev[j].rank == ev[i].rank) j++;
        while (r0 < nr && ro[r0].rank < ev[i].rank) r0++;
        size_t r1 = r0;
        while (r1 < nr && ro[r1].rank == ev[i].rank) r1++;
        rc = export_rank(&to, ev[i].rank, ev + i, j - i, ro + r0, r1 - r0, err);
        i = j;
        r0 = r1;
    }
    free(ev), free(ro);
    return rc;
}
