/* ring_validate.c - calibrate the GPU ring and validate the model against it, on this machine's GPUs.
 *
 *   ring_validate [--ranks N] [--blocks LIST] [--validate-blocks LIST] [--heads H] [--kv-heads G]
 *                 [--dim d] [--dtype bf16|fp16] [--reps n] [--profile-out FILE] [--trace-dir DIR]
 *
 * 1. One NCCL world of N ranks, one thread per GPU (rs_nccl_world_create; N = 1 is a ring of one
 *    GPU whose calibration transfers are NCCL self send/recv).
 * 2. Calibration (exec/calibrate.h, the same procedure as `ringsim calibrate`, with the "gpu" compute
 *    backend and the "nccl" transport): F_eff(B) of a full B x B block, alpha-beta fit of the ring
 *    exchange, overlap. The profile (peak = max F_eff for the dtype) is written to --profile-out.
 * 3. Validation: for every B of --validate-blocks, layout and pass (causal, S = N B): the executor
 *    runs the schedule (medians over --reps) and the model's critical-path walk predicts it on the
 *    calibrated machine; per (rank, step) relative errors of compute, receive and step durations;
 *    medians printed, and the measured step time over max(T_comp, T_comm) of the same step.
 * Exit: 0 (figures printed; targets are reported, not enforced), 1 runtime failure, 2 bad input.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "exec.h"
#include "gpu.h"
#include "model.h"
#include "trace.h"

typedef struct {
    const rs_problem_t *prob;
    const rs_compute_ops_t *cops;
    void *ts;
    const rs_calib_opts_t *co;
    rs_calib_t out;
    rs_err_t err;
    int rc;
} calib_arg_t;

static void *calib_thread(void *p) {
    calib_arg_t *a = p;
    a->rc = rs_calibrate(a->prob, a->cops, &rs_nccl_transport_ops, a->ts, a->co, &a->out, &a->err);
    return NULL;
}

static void *make_loop(void *arg, int64_t rank, rs_err_t *err) {
    const int64_t *la = arg; /* {N, how} */
    return rs_nccl_loopback_create(rank, la[0], 0, (rs_gpu_loop_t)la[1], err);
}

static int parse_list(const char *name, const char *text, int64_t *out, int max) {
    int n = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    rs_err_t err = {{0}};
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (n == max || rs_parse_size(name, tok, 16, 1 << 20, &out[n], &err) < 0) {
            fprintf(stderr, "ring_validate: %s\n", err.msg[0] ? err.msg : "too many values");
            exit(2);
        }
        n++;
    }
    return n;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, size_t n) {
    if (!n) return NAN;
    qsort(v, n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv) {
    int64_t blocks[RS_MAX_EFF_POINTS] = {1024, 2048, 4096, 8192, 16384}, vblocks[16] = {4096, 16384};
    int n_blocks = 5, n_vblocks = 2, reps = 5;
    int64_t n_ranks = -1, hq = 32, hkv = 8, dim = 128;
    rs_dtype_t dtype = RS_DTYPE_BF16;
    const char *profile_out = "gpu-profile.json", *trace_dir = NULL;
    int loop = 0; /* --loopback: 0 none, else rs_gpu_loop_t */
    rs_err_t err = {{0}};
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut short by a timeout keeps what it printed */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: ring_validate [--ranks N (all GPUs, <= 8)] [--blocks 1K,2K,4K,8K,16K] [--validate-blocks 4K,16K]\n"
                   "                     [--heads 32] [--kv-heads 8] [--dim 128] [--dtype bf16|fp16] [--reps 5]\n"
                   "                     [--profile-out gpu-profile.json] [--trace-dir DIR] [--loopback nccl|copy]\n");
            return 0;
        }
        if (!v) {
            fprintf(stderr, "ring_validate: %s: missing value or unknown option\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--ranks")) { if (rs_parse_size(a, v, 1, 64, &n_ranks, &err) < 0) goto bad; }
        else if (!strcmp(a, "--blocks")) n_blocks = parse_list(a, v, blocks, RS_MAX_EFF_POINTS);
        else if (!strcmp(a, "--validate-blocks")) n_vblocks = parse_list(a, v, vblocks, 16);
        else if (!strcmp(a, "--heads")) { if (rs_parse_size(a, v, 1, 1024, &hq, &err) < 0) goto bad; }
        else if (!strcmp(a, "--kv-heads")) { if (rs_parse_size(a, v, 1, 1024, &hkv, &err) < 0) goto bad; }
        else if (!strcmp(a, "--dim")) { if (rs_parse_size(a, v, 8, 256, &dim, &err) < 0) goto bad; }
        else if (!strcmp(a, "--reps")) { int64_t r; if (rs_parse_size(a, v, 1, 1000, &r, &err) < 0) goto bad; reps = (int)r; }
        else if (!strcmp(a, "--dtype")) { if (rs_dtype_parse(v, &dtype) < 0 || !rs_gpu_compute_ops_for(dtype)) { rs_errf(&err, "--dtype %s: bf16 or fp16", v); goto bad; } }
        else if (!strcmp(a, "--profile-out")) profile_out = v;
        else if (!strcmp(a, "--trace-dir")) trace_dir = v;
        else if (!strcmp(a, "--loopback")) {
            rs_gpu_loop_t how;
            if (rs_gpu_loop_parse(v, &how) < 0) { rs_errf(&err, "--loopback %s: nccl or copy", v); goto bad; }
            loop = how;
        }
        else { rs_errf(&err, "%s: unknown option", a); goto bad; }
    }
    if (hq % hkv) { rs_errf(&err, "--kv-heads %lld must divide --heads %lld", (long long)hkv, (long long)hq); goto bad; }
    const int ngpu = rs_gpu_device_count();
    if (ngpu == 0) {
        printf("skipped: no GPU\n");
        return 77;
    }
    if (n_ranks < 0) n_ranks = loop ? 4 : ngpu > 8 ? 8 : ngpu;
    const rs_compute_ops_t *cops = rs_gpu_compute_ops_for(dtype);
    void **ts = calloc((size_t)n_ranks, sizeof *ts);
    /* loopback: GPU 0 plays rank 0 of the ring alone for the calibration (transfers to itself), then
     * every rank in turn for the validation; the model walks a loopback machine */
    if (!ts || (loop ? !(ts[0] = rs_nccl_loopback_create(0, n_ranks, 0, (rs_gpu_loop_t)loop, &err))
                     : rs_nccl_world_create(n_ranks, ts, &err) < 0))
        goto fail;
    const int64_t n_threads = loop ? 1 : n_ranks;

    /* ---- calibration, per pass (the backward kernel's F_eff(B) differs from the forward's) ---- */
    rs_problem_t cp;
    rs_problem_default(&cp);
    cp.n_ranks = n_ranks, cp.seq_tokens = n_ranks * blocks[n_blocks - 1], cp.batch = 1, cp.q_heads = hq, cp.kv_heads = hkv;
    cp.head_dim = dim, cp.act_bytes = 2, cp.grad_bytes = 4, cp.pass = RS_PASS_FORWARD, cp.causal = false;
    rs_calib_opts_t co;
    rs_calib_opts_default(&co);
    co.n_blocks = n_blocks;
    memcpy(co.blocks, blocks, sizeof(int64_t) * (size_t)n_blocks);
    co.timeout_s = 120;
    calib_arg_t *ca = calloc((size_t)n_ranks, sizeof *ca);
    pthread_t *th = calloc((size_t)n_ranks, sizeof *th);
    if (!ca || !th) { rs_errf(&err, "out of memory"); goto fail; }
    printf("# ring_validate: %lld-%s ring (gpu compute + %s), heads %lld/%lld, d %lld, %s\n", (long long)n_ranks,
           loop ? "rank loopback" : "GPU", loop ? rs_gpu_loop_name((rs_gpu_loop_t)loop) : "nccl", (long long)hq,
           (long long)hkv, (long long)dim, rs_dtype_name(dtype));
    rs_machine_t mach[RS_PASS_COUNT];
    for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
        rs_problem_t pp = cp;
        pp.pass = (rs_pass_t)pass;
        rs_gpu_kernel_tile(pp.pass, dim, &pp.tile_q, &pp.tile_k);
        for (int64_t r = 0; r < n_threads; r++) {
            ca[r] = (calib_arg_t){&pp, cops, ts[r], &co, {0}, {{0}}, 0};
            pthread_create(&th[r], NULL, calib_thread, &ca[r]);
        }
        for (int64_t r = 0; r < n_threads; r++) pthread_join(th[r], NULL);
        for (int64_t r = 0; r < n_threads; r++)
            if (ca[r].rc < 0) { err = ca[r].err; goto fail; }
        printf("# calibration, %s pass:\n", rs_pass_name(pp.pass));
        rs_calib_print(&ca[0].out, stdout);
        rs_hw_t hw;
        rs_calib_to_hw(&ca[0].out, "gpu-calibrated", "ring_validate: gpu kernels + NCCL, calibrated on this machine", n_ranks, &hw);
        hw.flops_per_s[dtype] = ca[0].out.flops_peak;
        char path[1024];
        if (pass == RS_PASS_FORWARD) snprintf(path, sizeof path, "%s", profile_out);
        else snprintf(path, sizeof path, "%s.%s.json", profile_out, rs_pass_name(pp.pass));
        if (rs_hw_write_json(&hw, path, "dev/cuda/ring_validate", &err) < 0) goto fail;
        printf("# profile written: %s (%s, peak %s %.1f TFLOP/s, W %.1f GB/s, L %.2f us)\n", path, rs_pass_name(pp.pass),
               rs_dtype_name(dtype), ca[0].out.flops_peak * 1e-12, ca[0].out.bw_bytes_per_s * 1e-9, ca[0].out.latency_s * 1e6);
        if (rs_machine_from_hw(&hw, dtype, &mach[pass], &err) < 0) goto fail;
        mach[pass].loopback = loop != 0;
    }

    /* ---- validation ---- */
    printf("# %-10s %-8s %6s %12s %12s %8s %12s %12s %8s %8s %10s\n", "layout", "pass", "B", "t_comp_meas", "t_comp_model",
           "err_c", "t_comm_meas", "t_comm_model", "err_w", "err_step", "step/max-1");
    double all_c[4096], all_w[4096];
    size_t n_all_c = 0, n_all_w = 0;
    for (int bi = 0; bi < n_vblocks; bi++)
        for (int lay = 0; lay < RS_LAYOUT_COUNT; lay++)
            for (int pass = 0; pass < RS_PASS_COUNT; pass++) {
                rs_problem_t p = cp;
                p.seq_tokens = n_ranks * vblocks[bi], p.layout = (rs_layout_t)lay, p.pass = (rs_pass_t)pass, p.causal = true;
                if (lay == RS_LAYOUT_ZIGZAG && p.seq_tokens % (2 * n_ranks)) continue;
                rs_gpu_kernel_tile(p.pass, dim, &p.tile_q, &p.tile_k);
                rs_schedule_t *s = rs_schedule_create(&p, &err);
                if (!s) goto fail;
                rs_exec_opts_t o;
                rs_exec_opts_default(&o);
                o.reps = reps, o.warmup = 1, o.timeout_s = 120;
                rs_trace_t *meas = rs_trace_create("exec-gpu"), *pred = rs_trace_create("model");
                rs_exec_result_t res;
                rs_walk_t w;
                int64_t la[2] = {n_ranks, loop};
                if ((loop ? rs_exec_run_loopback(s, cops, &rs_nccl_transport_ops, make_loop, la, NULL, 0, &o, meas, &res, &err)
                          : rs_exec_run_threads(s, cops, &rs_nccl_transport_ops, ts, &o, meas, &res, &err)) < 0 ||
                    rs_model_walk(s, &mach[pass], pred, NULL, &w, &err) < 0)
                    goto fail;
                rs_trace_sort(meas);
                rs_trace_sort(pred);
                double ec[4096], ew[4096], es[4096], ratio[4096], tc[4096], tcp[4096], tw[4096], twp[4096];
                size_t nc = 0, nw = 0, ns = 0, nr = 0;
                for (int64_t r = 0; r < n_ranks; r++)
                    for (int64_t k = 0; k < rs_schedule_n_steps(s) && nc < 4096 && nw < 4096; k++) {
                        long im = rs_trace_find(meas, (int32_t)r, (int32_t)k, p.pass, RS_EV_COMPUTE);
                        long ip = rs_trace_find(pred, (int32_t)r, (int32_t)k, p.pass, RS_EV_COMPUTE);
                        double cm = 0, wm = 0;
                        if (im >= 0 && ip >= 0) {
                            const rs_event_t *a = rs_trace_events(meas) + im, *b = rs_trace_events(pred) + ip;
                            cm = a->end_s - a->start_s;
                            double cpd = b->end_s - b->start_s;
                            if (cm > 0) tc[nc] = cm, tcp[nc] = cpd, ec[nc++] = fabs(cpd - cm) / cm;
                        }
                        im = rs_trace_find(meas, (int32_t)r, (int32_t)k, p.pass, RS_EV_RECV);
                        ip = rs_trace_find(pred, (int32_t)r, (int32_t)k, p.pass, RS_EV_RECV);
                        if (im >= 0 && ip >= 0) {
                            const rs_event_t *a = rs_trace_events(meas) + im, *b = rs_trace_events(pred) + ip;
                            wm = a->end_s - a->start_s;
                            double wpd = b->end_s - b->start_s;
                            if (wm > 0) tw[nw] = wm, twp[nw] = wpd, ew[nw++] = fabs(wpd - wm) / wm;
                        }
                        im = rs_trace_find(meas, (int32_t)r, (int32_t)k, p.pass, RS_EV_STEP);
                        ip = rs_trace_find(pred, (int32_t)r, (int32_t)k, p.pass, RS_EV_STEP);
                        if (im >= 0 && ip >= 0) {
                            const rs_event_t *a = rs_trace_events(meas) + im, *b = rs_trace_events(pred) + ip;
                            double sm = a->end_s - a->start_s, sp = b->end_s - b->start_s;
                            if (sm > 0) es[ns++] = fabs(sp - sm) / sm;
                            if (sm > 0 && fmax(cm, wm) > 0) ratio[nr++] = sm / fmax(cm, wm) - 1;
                        }
                    }
                for (size_t i = 0; i < nc && n_all_c < 4096; i++) all_c[n_all_c++] = ec[i];
                for (size_t i = 0; i < nw && n_all_w < 4096; i++) all_w[n_all_w++] = ew[i];
                printf("  %-10s %-8s %6lld %12.4e %12.4e %7.2f%% %12.4e %12.4e %7.2f%% %7.2f%% %9.2f%%\n",
                       rs_layout_name(p.layout), rs_pass_name(p.pass), (long long)vblocks[bi], median(tc, nc),
                       median(tcp, nc), 100 * median(ec, nc), median(tw, nw), median(twp, nw), 100 * median(ew, nw),
                       100 * median(es, ns), 100 * median(ratio, nr));
                if (trace_dir) {
                    char path[1024];
                    snprintf(path, sizeof path, "%s/exec-gpu-%s-%s-B%lld.csv", trace_dir, rs_layout_name(p.layout),
                             rs_pass_name(p.pass), (long long)vblocks[bi]);
                    if (rs_trace_write_csv(meas, path, &err) < 0) fprintf(stderr, "ring_validate: %s\n", err.msg);
                    snprintf(path, sizeof path, "%s/model-%s-%s-B%lld.csv", trace_dir, rs_layout_name(p.layout),
                             rs_pass_name(p.pass), (long long)vblocks[bi]);
                    if (rs_trace_write_csv(pred, path, &err) < 0) fprintf(stderr, "ring_validate: %s\n", err.msg);
                }
                rs_trace_free(meas);
                rs_trace_free(pred);
                rs_schedule_free(s);
            }
    printf("# median |model - measured| / measured over all (rank, step): T_comp %.2f%%, T_comm %s (target <= 5%%)\n",
           100 * median(all_c, n_all_c), n_all_w ? "" : "n/a (N = 1: no transfers)");
    if (n_all_w) printf("#   T_comm %.2f%%\n", 100 * median(all_w, n_all_w));
    if (loop) rs_nccl_transport_ops.destroy(ts[0]);
    else rs_nccl_world_free(ts, n_ranks);
    free(ts), free(ca), free(th);
    return 0;
bad:
    fprintf(stderr, "ring_validate: %s\n", err.msg);
    return 2;
fail:
    fprintf(stderr, "ring_validate: %s\n", err.msg);
    return 1;
}
