/* calibrate.c - the calibration run (calibrate.h): its three measurements in order - the kernel's
 * F_eff(B), the transport's exchanges, the overlap samples - on the measuring parts (calib_block.h,
 * calib_transfer.h), then the fits (calib_fit.h). */
#include "calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "meter.h"
#include "stats.h"

void rs_calib_opts_default(rs_calib_opts_t *o) {
    memset(o, 0, sizeof *o);
    for (int64_t b = 16; b <= 2048; b *= 2) o->blocks[o->n_blocks++] = b;
    o->min_time_s = 0.05;
    o->min_reps = 3;
    o->timeout_s = 60;
}

/* What every phase of one calibration reads. */
typedef struct {
    const rs_problem_t *problem;   /* the shape and pass */
    const rs_exec_job_t *job;      /* this rank: compute backend, transport, local rank */
    const rs_calib_opts_t *o;      /* options */
    int64_t rank;                  /* the transport's rank */
    rs_meter_t *meter;             /* rank 0, on a terminal: the points measured */
} calib_run_t;

enum { ROUNDS = 5 }; /* the kernel phase's rounds over all block sizes */

/* The point of block size B on this rank's compute backend (the timing is the caller's). */
static rs_calib_point_t point(const calib_run_t *cr, int64_t B) {
    return (rs_calib_point_t){.problem = cr->problem, .block = B, .cops = cr->job->cops, .local_rank = cr->job->local_rank};
}

/* 1. The kernel: ROUNDS rounds over all block sizes, so a burst of load elsewhere on the machine hits
 * every size a little instead of one size entirely; median per size over all its samples, then over
 * ranks; the efficiency curve. */
static int kernel_phase(const calib_run_t *cr, rs_calib_t *out, rs_err_t *err) {
    const rs_calib_opts_t *o = cr->o;
    const rs_exec_job_t *job = cr->job;
    rs_calib_block_t *blks = calloc((size_t)o->n_blocks, sizeof *blks);
    double **smp = calloc((size_t)o->n_blocks, sizeof *smp);
    size_t *nsmp = calloc((size_t)o->n_blocks, sizeof *nsmp);
    const size_t cap = 20000;
    int ok = blks && smp && nsmp;
    for (int i = 0; ok && i < o->n_blocks; i++) {
        const rs_calib_point_t pt = point(cr, o->blocks[i]);
        if (rs_calib_block_init(&pt, RS_KMASK_FULL, job, &blks[i], err) < 0) ok = 0;
        else if (!(smp[i] = malloc(sizeof(double) * cap))) ok = 0, rs_errf(err, "calibrate: out of memory");
    }
    if (!blks || !smp || !nsmp) rs_errf(err, "calibrate: out of memory");
    for (int r = 0; ok && r < ROUNDS; r++)
        for (int i = 0; ok && i < o->n_blocks; i++) {
            double t0, t1;
            if (job->tops->barrier(job->ts, o->timeout_s, err) < 0 || rs_calib_block_step(&blks[i], &t0, &t1, err) < 0) {
                ok = 0;
                break;
            }
            const double t_first = rs_now_s();
            int k = 0;
            while ((k < (o->min_reps + ROUNDS - 1) / ROUNDS || rs_now_s() - t_first < o->min_time_s / ROUNDS) && nsmp[i] < cap) {
                if (rs_calib_block_step(&blks[i], &t0, &t1, err) < 0) {
                    ok = 0;
                    break;
                }
                smp[i][nsmp[i]++] = t1 - t0, k++;
            }
            rs_meter_update(cr->meter, r * o->n_blocks + i + 1, "kernel B=%lld", (long long)o->blocks[i]);
        }
    for (int i = 0; ok && i < o->n_blocks; i++) {
        double all;
        if (rs_calib_rank_median(job, smp[i], nsmp[i], o->timeout_s, &all, err) < 0) {
            ok = 0;
            break;
        }
        out->blocks[out->n_blocks] = o->blocks[i];
        out->t_block_s[out->n_blocks] = all;
        out->flops_eff[out->n_blocks] = (double)blks[i].st.flops_exec / all;
        if (out->flops_eff[out->n_blocks] > out->flops_peak) out->flops_peak = out->flops_eff[out->n_blocks];
        out->n_blocks++;
    }
    for (int i = 0; blks && i < o->n_blocks; i++) rs_calib_block_free(&blks[i]);
    for (int i = 0; smp && i < o->n_blocks; i++) free(smp[i]);
    free(blks), free(smp), free(nsmp);
    if (!ok) return -1;
    rs_calib_fit_efficiency(out);
    return 0;
}

/* 2. The transport (a ring of >= 2): fresh and rotating exchanges of every message size, the
 * alpha-beta fit on rank 0. */
static int transport_phase(const calib_run_t *cr, rs_calib_t *out, rs_err_t *err) {
    const rs_calib_opts_t *o = cr->o;
    const rs_problem_t *problem = cr->problem;
    rs_problem_t pb = *problem; /* the largest block on one rank: its K,V bytes */
    pb.n_ranks = 1;
    pb = rs_problem_with_block(&pb, o->blocks[o->n_blocks - 1]);
    if (o->n_sizes > 0) {
        out->n_sizes = o->n_sizes;
        memcpy(out->sizes, o->sizes, sizeof(uint64_t) * (size_t)o->n_sizes);
    } else {
        uint64_t top = rs_problem_kv_bytes(&pb) * 4;
        if (top < (1u << 20)) top = 1u << 20;
        for (uint64_t m = 1024; m <= top && out->n_sizes < RS_CALIB_MAX_SIZES; m *= 4) out->sizes[out->n_sizes++] = m;
    }
    const uint64_t maxm = out->sizes[out->n_sizes - 1];
    /* buffers for the largest message and the largest block's K,V */
    const uint64_t bufm = maxm > rs_problem_kv_bytes(&pb) ? maxm : rs_problem_kv_bytes(&pb);
    const rs_calib_point_t pt = point(cr, o->blocks[0]);
    rs_calib_exchanges_t x;
    if (rs_calib_exchanges_open(&x, cr->job, &pt, bufm, o->timeout_s, err) < 0) return -1;
    int rc = 0;
    for (int i = 0; rc == 0 && i < out->n_sizes; i++) {
        const uint64_t m = out->sizes[i];
        if (cr->job->tops->barrier(cr->job->ts, o->timeout_s, err) < 0 || rs_calib_time_exchange(&x, m, false, &out->t_msg_s[i], err) < 0 ||
            rs_calib_time_exchange(&x, m, true, &out->t_msg_reused_s[i], err) < 0)
            rc = -1;
        else
            rs_meter_update(cr->meter, ROUNDS * o->n_blocks + (o->n_blocks * (i + 1)) / out->n_sizes, "transport %llu bytes",
                            (unsigned long long)m);
    }
    rs_calib_exchanges_close(&x);
    if (rc == 0 && cr->rank == 0) rs_calib_fit_transport(out);
    return rc;
}

/* 3. The overlap: at every block whose compute takes <= 0.1 s, the block step with the pass's own
 * ring transfers posted at its start; the host cost and eta are then fitted over all the points. */
static int overlap_phase(const calib_run_t *cr, rs_calib_t *out, rs_err_t *err) {
    const rs_calib_opts_t *o = cr->o;
    const rs_exec_job_t *job = cr->job;
    for (int bi = 0; bi < out->n_blocks && bi < RS_CALIB_MAX_OV; bi++) {
        rs_meter_update(cr->meter, (ROUNDS + 1) * o->n_blocks + bi, "overlap B=%lld", (long long)o->blocks[bi]);
        /* rank 0's numbers decide for everyone (the others hold their own, not the median):
         * whether to measure and how many repetitions, so every rank makes the same calls */
        double go[2] = {out->t_block_s[bi] <= 0.1 ? 1 : 0, out->t_block_s[bi] < 0.01 ? 15 : 7};
        if (job->tops->bcast) {
            if (job->tops->bcast(job->ts, go, sizeof go, o->timeout_s, err) < 0) return -1;
        } else { /* no broadcast: a rule on B alone */
            go[0] = o->blocks[bi] <= 512, go[1] = 7;
        }
        if (!go[0]) continue;
        double ends[16], ends_fresh[16], comps[16], alone[16];
        size_t ns = 0;
        rs_calib_flows_t fl;
        const rs_calib_overlap_req_t rq = {.problem = cr->problem, .block = o->blocks[bi], .reps = (int)go[1], .timeout_s = o->timeout_s};
        const rs_calib_overlap_samples_t smp = {.end_s = ends, .end_fresh_s = ends_fresh, .busy_s = comps, .alone_s = alone,
                                                .cap = 16, .n = &ns, .flows = &fl};
        if (rs_calib_overlap_samples(job, &rq, &smp, err) < 0) return -1;
        double E, EF, TC, TA;
        if (rs_calib_rank_median(job, ends, ns, o->timeout_s, &E, err) < 0 ||
            rs_calib_rank_median(job, ends_fresh, ns, o->timeout_s, &EF, err) < 0 ||
            rs_calib_rank_median(job, comps, ns, o->timeout_s, &TC, err) < 0 ||
            rs_calib_rank_median(job, alone, ns, o->timeout_s, &TA, err) < 0)
            return -1;
        if (cr->rank == 0) {
            const double L = out->latency_s, x = (double)fl.bytes / out->bw_bytes_per_s;
            out->ov[out->n_ov++] = (rs_calib_overlap_t){o->blocks[bi], fl.bytes, fl.n, TA, TC, L + x, E, EF, 1,
                                                         TA > 0 ? fmax(1.0, TC / TA) : 1, o->polled ? fl.polls : 0,
                                                         fl.poll_first};
            if (o->polled && fl.geom.chunk_cols > 0) out->model.poll = fl.geom;
        }
    }
    if (cr->rank == 0 && out->n_ov > 0) rs_calib_fit_overlap(out);
    return 0;
}

int rs_calibrate(const rs_problem_t *problem, const rs_exec_job_t *job, const rs_calib_opts_t *o, rs_calib_t *out,
                 rs_err_t *err) {
    memset(out, 0, sizeof *out);
    rs_calibration_default(&out->model);
    if (job->be && job->be->no_host_calls) out->model.host_call_given = true, out->model.host_call_s = 0;
    const int64_t n = job->tops->size(job->ts), rank = job->tops->rank(job->ts);
    rs_meter_t meter = {.active = false}; /* rank 0, on a terminal: the points measured */
    if (rank == 0) rs_meter_start(&meter, "calibrate", ROUNDS * o->n_blocks + (n >= 2 ? 2 * o->n_blocks : 0), "points");
    const calib_run_t cr = {.problem = problem, .job = job, .o = o, .rank = rank, .meter = &meter};
    int rc = kernel_phase(&cr, out, err);
    if (rc == 0) {
        out->latency_s = 0, out->bw_bytes_per_s = 0, out->eta = 1, out->sigma = 1;
        if (n >= 2) rc = transport_phase(&cr, out, err) < 0 || overlap_phase(&cr, out, err) < 0 ? -1 : 0;
    }
    if (rc == 0) out->mem_bw_bytes_per_s = rs_calib_memcpy_bw();
    if (rank == 0) rs_meter_end(&meter);
    return rc;
}
