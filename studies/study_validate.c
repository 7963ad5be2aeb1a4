/* study_validate.c - the validation study (study_validate.h): its SPMD job, in phases, each a
 * function run by every rank: calibrate (or load a calibrated profile) once per pass, measure
 * (rounds over the sweep, calibration samples interleaved with the runs of every configuration),
 * refit the model's inputs from the interleaved samples (gathered here, the maths in
 * study_validate_refit.c); then rank 0 predicts and compares every configuration at every B
 * (study_validate_predict.c) and prints the tables (study_validate_print.c). The body and its phases
 * return the rank's exit code (RS_EXIT_*) and print their own errors: they run in every rank. */
#include "study_validate.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate_kernels.h" /* the executor measures the kernel table and its calls */
#include "registry.h"
#include "setup.h"
#include "study_calibrate.h"
#include "study_validate_refit.h"
#include "study_validate_state.h"

void rs_validate_defaults(rs_validate_in_t *in) {
    memset(in, 0, sizeof *in);
    rs_measure_defaults("validate", &in->backend, &in->problem, &in->dtype, &in->job);
    in->n_layouts = 1, in->layouts[0] = in->problem.layout;
    in->n_passes = 1, in->passes[0] = in->problem.pass;
    in->n_masks = 1, in->masks_causal[0] = in->problem.causal;
    const int64_t defb[] = {8, 16, 32, 64, 128, 256, 512, 1024}; /* spans the crossover (docs/validate.md) */
    in->n_b = (int)(sizeof defb / sizeof defb[0]);
    memcpy(in->b, defb, sizeof defb);
    in->rounds = 5;
    rs_calib_opts_default(&in->calib);
    rs_exec_opts_default(&in->exec);
    in->exec.reps = 7, in->exec.warmup = 1;
    in->out = stdout;
}

int rs_validate_finish(rs_validate_in_t *in, rs_err_t *err) {
    /* calibration covers the sweep (and a bit below) */
    in->calib.n_blocks = 0;
    for (int64_t b = in->b[0] / 2 < 8 ? 8 : in->b[0] / 2; b <= in->b[in->n_b - 1] * 2 && in->calib.n_blocks < RS_MAX_EFF_POINTS;
         b *= 2)
        in->calib.blocks[in->calib.n_blocks++] = b;
    for (int l = 0; l < in->n_layouts; l++)
        for (int j = 0; j < in->n_passes; j++)
            for (int k = 0; k < in->n_masks; k++)
                for (int i = 0; i < in->n_b; i++) {
                    rs_problem_t p = in->problem;
                    p.layout = in->layouts[l], p.pass = in->passes[j], p.causal = in->masks_causal[k];
                    p = rs_problem_with_block(&p, in->b[i]);
                    if (rs_problem_validate(&p, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
                }
    if (rs_measure_check(in->backend, &in->problem, in->dtype, &in->job, err) < 0) return -1;
    if (in->problem.n_ranks < 2)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--ranks %lld: validation needs a ring of at least 2", (long long)in->problem.n_ranks);
    rs_hw_t hw;
    if (in->calibrated && rs_hw_load(in->calibrated, &hw, err) < 0) {
        rs_err_option(err, "--calibrated", in->calibrated);
        return rs_err_mark(err, RS_ERR_BAD_INPUT);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------------
 * Phases
 * ------------------------------------------------------------------------------------------------- */
static int fail(val_t *v, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Print "ringsim validate: ..." and abort the job's other ranks when the failure is at run time. */
static int fail(val_t *v, int code, const char *fmt, ...) {
    char msg[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ringsim validate: %s\n", msg);
    if (code == RS_EXIT_FAIL) v->job->tops->abort(v->job->ts, RS_EXIT_FAIL);
    return code;
}

/* Does the transport move data only inside the compute's polls (MPI, --progress poll)? */
static bool val_polled(const val_t *v) {
    return !strcmp(v->job->launch, "mpirun") && v->in->job.progress == RS_PROGRESS_POLL;
}

/* The kernel table of the pass (exec/calibrate_kernels.h) on rank 0: one call of each mask kind at
 * every B of the sweep and at half the smallest (zigzag's calls are B/2 x B/2), so the model costs
 * each of a step's blocks at its own size and mask (preset ringsim, model/4-cost/kernel.h) instead of
 * the whole step at F_eff(B): a zigzag step is two half-size calls, a causal diagonal runs tile by
 * tile. val_refit_kernel_table follows the machine's drift. Returns the rank's exit code. */
static int val_kernel_table(val_t *v, val_pass_t *ps) {
    const rs_validate_in_t *in = v->in;
    const rs_exec_job_t *job = v->job;
    rs_calib_kernel_opts_t ko = {.min_time_s = in->calib.min_time_s / 4, .min_reps = 3, .dtype = in->dtype,
                                 .passes = 1u << ps->prob.pass}; /* the pass this table's model predicts */
    snprintf(ko.name, sizeof ko.name, "ringsim-%s", job->be->name);
    if (rs_problem_is_inference(&ps->prob)) return RS_EXIT_OK; /* a cache, pass-q, decode: the dense model (kernel.h) */
    if (in->b[0] >= 2) ko.blocks[ko.n_blocks++] = in->b[0] / 2;
    for (int i = 0; i < in->n_b && ko.n_blocks < RS_KMAX_POINTS; i++)
        if (ko.n_blocks == 0 || in->b[i] > ko.blocks[ko.n_blocks - 1]) ko.blocks[ko.n_blocks++] = in->b[i];
    if (ko.n_blocks < 2) return RS_EXIT_OK; /* one size: the dense model */
    rs_err_t err = {0};
    if (rs_calib_kernel_table(&ps->prob, job->cops, job->local_rank, &ko, &ps->hw.kernels, &err) < 0)
        return fail(v, RS_EXIT_FAIL, "kernel table: %s", err.msg);
    rs_calib_kernel_print(&ps->hw.kernels, v->out);
    return RS_EXIT_OK;
}

/* Calibrate pass ps (or load --calibrated); rank 0 builds its machine. Returns the rank's exit code. */
static int val_calibrate_pass(val_t *v, val_pass_t *ps) {
    const rs_validate_in_t *in = v->in;
    const rs_exec_job_t *job = v->job;
    rs_err_t err = {0};
    if (in->calibrated) {
        if (rs_hw_load(in->calibrated, &ps->hw, &err) < 0) {
            rs_err_option(&err, "--calibrated", in->calibrated);
            if (job->rank == 0) fprintf(stderr, "ringsim validate: %s\n", err.msg);
            return RS_EXIT_USAGE;
        }
    } else {
        rs_calib_opts_t co = in->calib;
        co.polled = val_polled(v);
        if (rs_calibrate(&ps->prob, job, &co, &ps->calib, &err) < 0) {
            fprintf(stderr, "ringsim validate: rank %lld: calibration: %s\n", (long long)job->rank, err.msg);
            return RS_EXIT_FAIL;
        }
        if (job->rank == 0) {
            char note[256], name[RS_NAME_LEN];
            snprintf(note, sizeof note, "ringsim validate calibration, %s pass, %lld ranks, progress %s; %.80s",
                     rs_pass_name(ps->prob.pass), (long long)job->n_ranks, v->mode,
                     job->be->compute_for(RS_DTYPE_FP32) ? rs_exec_blas_version() : job->cops->name);
            snprintf(name, sizeof name, "%s-validate", job->be->name);
            rs_calib_to_hw(&ps->calib, name, note, job->n_ranks, in->dtype, &ps->hw);
            rs_val_print_calibration(v, ps);
            if (val_kernel_table(v, ps) != RS_EXIT_OK) return RS_EXIT_FAIL;
        }
    }
    if (job->rank == 0 && rs_machine_from_hw(&ps->hw, in->dtype, &ps->m, &err) < 0) {
        fprintf(stderr, "ringsim validate: %s\n", err.msg);
        return RS_EXIT_FAIL;
    }
    ps->m.loopback = job->loopback != NULL; /* one device playing each rank alone: the walk's loopback machine */
    return RS_EXIT_OK;
}

/* The interleaved calibration samples of pass ps at sweep point i: the kernel alone (a full block;
 * with a causal configuration in the run also one causal and one shifted call, whose level the
 * kernel table then takes at that B) and the overlap sample with the pass's transfers. Returns the
 * rank's exit code. */
static int val_samples(val_t *v, val_pass_t *ps, int i) {
    const rs_validate_in_t *in = v->in;
    const rs_exec_job_t *job = v->job;
    rs_err_t err = {0};
    if (in->calibrated) return RS_EXIT_OK;
    const rs_calib_point_t pt = {&ps->prob, in->b[i], job->cops, job->local_rank, in->calib.min_time_s / v->rounds, 2};
    if (rs_calib_kernel_point(&pt, ps->ksmp[i], RS_VAL_KCAP, &ps->nk[i], &ps->kflops[i], &err) < 0)
        return fail(v, RS_EXIT_FAIL, "rank %lld: kernel sample B=%lld: %s", (long long)job->rank, (long long)in->b[i], err.msg);
    for (int mk = 0; ps->masks && mk < 2 && ps->nkmask[i] < RS_VALIDATE_MAX_ROUNDS; mk++) /* the causal calls' level now */
        if (rs_calib_call_median(&pt, mk ? RS_KMASK_SHIFTED : RS_KMASK_CAUSAL, &ps->kmask[i][mk][ps->nkmask[i]],
                                 &ps->kmask_useful[i][mk], &err) < 0)
            return fail(v, RS_EXIT_FAIL, "rank %lld: kernel sample B=%lld: %s", (long long)job->rank, (long long)in->b[i], err.msg);
    if (ps->masks && ps->nkmask[i] < RS_VALIDATE_MAX_ROUNDS) ps->nkmask[i]++;
    if (job->n_ranks >= 2 &&
        rs_calib_overlap_samples(job, &(rs_calib_overlap_req_t){&ps->prob, in->b[i], RS_VAL_OREPS, in->exec.timeout_s},
                                 &(rs_calib_overlap_samples_t){ps->oend[i], ps->oend_fresh[i], ps->obusy[i], ps->oalone[i], ps->oxfer[i],
                                                               ps->oxfer_reused[i], RS_VAL_OCAP, &ps->no[i], &ps->oflows[i]},
                                 &err) < 0)
        return fail(v, RS_EXIT_FAIL, "rank %lld: overlap sample B=%lld: %s", (long long)job->rank, (long long)in->b[i], err.msg);
    return RS_EXIT_OK;
}

/* Rounds over the sweep: at every B the calibration samples of every pass, then the measured run of
 * every configuration; rank 0 keeps each round's trace. Returns the rank's exit code. */
static int val_measure(val_t *v) {
    const rs_validate_in_t *in = v->in;
    const rs_exec_job_t *job = v->job;
    const int64_t rank = job->rank;
    rs_err_t err = {0};
    for (int r = 0; r < v->rounds; r++)
        for (int i = 0; i < in->n_b; i++) {
            for (int j = 0; j < v->np; j++) {
                int rc = val_samples(v, &v->ps[j], i);
                if (rc != RS_EXIT_OK) return rc;
            }
            for (int c = 0; c < v->nc; c++) {
                val_cfg_t *cf = &v->cs[c];
                rs_problem_t p = rs_problem_with_block(&cf->prob, in->b[i]);
                rs_schedule_t *s = rs_schedule_create(&p, &err);
                if (!s) {
                    if (rank == 0) fprintf(stderr, "ringsim validate: B=%lld: %s\n", (long long)in->b[i], err.msg);
                    return RS_EXIT_USAGE;
                }
                int rc = RS_EXIT_OK;
                rs_trace_t *tr = rank == 0 ? rs_trace_create(job->be->source) : NULL;
                rs_exec_result_t res;
                if (rs_exec_job_run(job, s, &in->exec, tr, &res, &err) < 0)
                    rc = fail(v, RS_EXIT_FAIL, "B=%lld: %s", (long long)in->b[i], err.msg);
                rs_schedule_free(s);
                if (rc != RS_EXIT_OK) {
                    rs_trace_free(tr);
                    return rc;
                }
                if (tr) rs_trace_sort(tr);
                cf->meas[i][r] = tr;
                rs_meter_update(&v->meter, ((double)r * in->n_b + i) * v->nc + c + 1, "measure B=%lld", (long long)in->b[i]);
            }
        }
    return RS_EXIT_OK;
}

/* F_eff at the sweep's B from the interleaved kernel samples: each rank's median kernel time per B;
 * F_eff(B) is the fastest rank's rate, and a rank that is slower at every size (its core shared
 * with other work) is a straggler in the model, by its median ratio to the fastest. Collective.
 * Returns the rank's exit code. */
static int val_refit_kernel(val_t *v, val_pass_t *ps) {
    const rs_validate_in_t *in = v->in;
    const rs_exec_job_t *job = v->job;
    const int64_t P = job->n_procs; /* the ranks that gather: N, or 1 for one device playing them all */
    rs_err_t err = {0};
    double *kt = job->rank == 0 ? calloc((size_t)(P * in->n_b), sizeof *kt) : NULL;
    if (job->rank == 0 && !kt) return fail(v, RS_EXIT_FAIL, "out of memory");
    int rc = RS_EXIT_OK;
    for (int i = 0; i < in->n_b && rc == RS_EXIT_OK; i++)
        if (rs_calib_rank_values(job, ps->ksmp[i], ps->nk[i], in->exec.timeout_s,
                                 kt ? kt + (size_t)i * (size_t)P : NULL, &err) < 0) {
            fprintf(stderr, "ringsim validate: rank %lld: %s\n", (long long)job->rank, err.msg);
            rc = RS_EXIT_FAIL;
        }
    double *fr = job->rank == 0 && rc == RS_EXIT_OK ? malloc(sizeof(double) * (size_t)P) : NULL;
    if (fr) {
        double fastest[RS_VALIDATE_MAX_B];
        rs_calib_rank_factors(kt, in->n_b, P, fastest, fr);
        rs_validate_refit_eff(&ps->calib.model, ps->calib.flops_peak, in->b, ps->kflops, fastest, in->n_b);
        rs_validate_stragglers(fr, P, &ps->m.perturb);
        /* the model of sweep point i takes the ranks' factors at its own B (val_stragglers_at): how much
         * slower a rank is changes with the block (its cache and the other rank's share of it) */
        free(ps->kfac);
        ps->kfac = malloc(sizeof(double) * (size_t)(in->n_b * P));
        if (ps->kfac) rs_validate_factors_at(kt, fastest, in->n_b, P, ps->kfac);
        rs_val_print_rank_factors(v, ps, fr, kt, fastest);
    }
    free(fr);
    free(kt);
    return rc;
}

/* The transport and the overlap points at every B of the sweep from the interleaved samples (the
 * pass's own transfers): the alpha-beta fit on the transfers alone at the sweep's sizes replaces the
 * calibration's (so that one load burst during calibration does not set L and W for the whole run); the
 * overlap points replace the calibration's at that B or join them (the curve reaches the sweep's
 * largest step). Host cost and overlap curve are fitted again over all points. Collective. Returns
 * the rank's exit code. */
static int val_refit_overlap(val_t *v, val_pass_t *ps) {
    const rs_validate_in_t *in = v->in;
    const rs_exec_job_t *job = v->job;
    rs_calib_t *c = &ps->calib;
    rs_err_t err = {0};
    int n_sizes = 0;
    for (int i = 0; job->n_ranks >= 2 && i < in->n_b; i++) {
        rs_validate_overlap_t pt = {.block = in->b[i], .flows = &ps->oflows[i]};
        if (rs_calib_rank_median(job, ps->oend[i], ps->no[i], in->exec.timeout_s, &pt.t_end_s, &err) < 0 ||
            rs_calib_rank_median(job, ps->oend_fresh[i], ps->no[i], in->exec.timeout_s, &pt.t_end_fresh_s, &err) < 0 ||
            rs_calib_rank_median(job, ps->obusy[i], ps->no[i], in->exec.timeout_s, &pt.t_busy_s, &err) < 0 ||
            rs_calib_rank_median(job, ps->oalone[i], ps->no[i], in->exec.timeout_s, &pt.t_alone_s, &err) < 0 ||
            rs_calib_rank_median(job, ps->oxfer[i], ps->no[i], in->exec.timeout_s, &pt.t_xfer_s, &err) < 0 ||
            rs_calib_rank_median(job, ps->oxfer_reused[i], ps->no[i], in->exec.timeout_s, &pt.t_xfer_reused_s, &err) < 0) {
            fprintf(stderr, "ringsim validate: rank %lld: %s\n", (long long)job->rank, err.msg);
            return RS_EXIT_FAIL;
        }
        if (job->rank == 0 && ps->no[i] > 0) rs_validate_add_overlap(c, &n_sizes, &pt, val_polled(v));
    }
    if (job->rank != 0 || job->n_ranks < 2 || c->n_ov == 0) return RS_EXIT_OK;
    rs_validate_refit_transport(c, n_sizes);
    rs_val_print_overlap(v, ps);
    return RS_EXIT_OK;
}

/* DIR/name.json -> DIR/name-PASS.json (the pass's name before the extension). */
static void pass_path(const char *path, rs_pass_t pass, char *buf, size_t len) {
    const char *dot = strrchr(path, '.'), *sl = strrchr(path, '/');
    if (!dot || (sl && dot < sl)) dot = path + strlen(path);
    snprintf(buf, len, "%.*s-%s%s", (int)(dot - path), path, rs_pass_name(pass), dot);
}

/* The fastest rank's median call time of mask mk (0 causal, 1 shifted) at sweep point i from the
 * interleaved samples (collective; rank 0 gets it in *t_s, 0 when none). Returns the rank's exit
 * code. */
static int val_mask_time(val_t *v, val_pass_t *ps, int i, int mk, double *t_s) {
    const rs_exec_job_t *job = v->job;
    const int64_t P = job->n_procs;
    double smp[RS_VALIDATE_MAX_ROUNDS], *all = job->rank == 0 ? calloc((size_t)P, sizeof *all) : NULL;
    if (job->rank == 0 && !all) return fail(v, RS_EXIT_FAIL, "out of memory");
    for (int r = 0; r < ps->nkmask[i]; r++) smp[r] = ps->kmask[i][mk][r];
    rs_err_t err = {0};
    *t_s = 0;
    if (rs_calib_rank_values(job, smp, (size_t)ps->nkmask[i], v->in->exec.timeout_s, all, &err) < 0) {
        free(all);
        return fail(v, RS_EXIT_FAIL, "rank %lld: %s", (long long)job->rank, err.msg);
    }
    for (int64_t r = 0; all && r < P; r++)
        if (all[r] > 0 && (*t_s == 0 || all[r] < *t_s)) *t_s = all[r];
    free(all);
    return RS_EXIT_OK;
}

/* The kernel table follows the interleaved samples (rs_validate_refit_kernels) on rank 0, from the
 * causal and shifted calls' times gathered from every rank here (collective). Returns the rank's
 * exit code. */
static int val_refit_kernel_table(val_t *v, val_pass_t *ps) {
    double tmask[RS_VALIDATE_MAX_B][2] = {{0}};
    for (int i = 0; ps->masks && i < v->in->n_b; i++)
        for (int mk = 0; mk < 2; mk++)
            if (val_mask_time(v, ps, i, mk, &tmask[i][mk]) != RS_EXIT_OK) return RS_EXIT_FAIL;
    if (v->job->rank != 0) return RS_EXIT_OK;
    rs_machine_t *m = &ps->m;
    const rs_validate_kernels_t ks = {v->in->n_b, v->in->b, ps->masks, &tmask[0][0], &ps->kmask_useful[0][0]};
    double rate[RS_KMASK_COUNT][RS_KMAX_POINTS];
    const rs_kcurve_t *full;
    if (!rs_validate_refit_kernels(m, ps->prob.pass, &ks, rate, &full)) return RS_EXIT_OK;
    if (ps->masks) rs_val_print_kernel_rates(v, ps, full, rate);
    rs_err_t err = {0};
    if (rs_machine_set_kernel(m, m->impl, m->kernel, &err) < 0) return fail(v, RS_EXIT_FAIL, "kernel table: %s", err.msg);
    ps->hw.kernels = m->kernels;
    return RS_EXIT_OK;
}

/* The model's inputs of one pass from the interleaved samples (when calibrating): F_eff(B),
 * stragglers, host cost and overlap curve, renormalised to the largest rate; --save-profile writes
 * them. Collective. Returns the rank's exit code. */
static int val_refit(val_t *v, val_pass_t *ps) {
    if (v->in->calibrated) return RS_EXIT_OK;
    int rc = val_refit_kernel(v, ps);
    if (rc == RS_EXIT_OK) rc = val_refit_overlap(v, ps);
    if (v->job->rank != 0) return rc == RS_EXIT_OK ? val_refit_kernel_table(v, ps) : rc; /* its gathers */
    rs_calibration_t *model = &ps->calib.model;
    rs_validate_renormalise(model, &ps->calib.flops_peak);
    ps->m.cal = *model; /* the machine the predictions use: the calibration, updated by the samples */
    ps->m.flops_per_s = ps->calib.flops_peak;
    if (rc == RS_EXIT_OK && val_refit_kernel_table(v, ps) != RS_EXIT_OK) return RS_EXIT_FAIL;
    if (ps->calib.bw_bytes_per_s > 0) { /* the transport fitted again */
        ps->m.intra.latency_s = ps->hw.intra.latency_s = ps->calib.latency_s;
        ps->m.intra.bw_bytes_per_s = ps->hw.intra.bw_bytes_per_s = ps->calib.bw_bytes_per_s;
    }
    rs_val_print_eff(v, ps);
    if (v->in->save_profile && rc == RS_EXIT_OK) {
        rs_err_t err;
        char path[1200];
        if (v->np > 1) pass_path(v->in->save_profile, ps->prob.pass, path, sizeof path);
        else snprintf(path, sizeof path, "%s", v->in->save_profile);
        ps->hw.flops_per_s[v->in->dtype] = ps->m.flops_per_s;
        ps->hw.cal = ps->m.cal;
        if (rs_hw_write_json(&ps->hw, path, ps->hw.calibration_note, &err) < 0) {
            fprintf(stderr, "ringsim validate: %s\n", err.msg);
            return RS_EXIT_FAIL;
        }
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------------------
 * The SPMD body and the study
 * ------------------------------------------------------------------------------------------------- */
static void val_free(val_t *v) {
    for (int c = 0; c < RS_VALIDATE_MAX_CFG; c++) {
        val_cfg_t *cf = &v->cs[c];
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) free(cf->ec[k]), free(cf->es[k]), free(cf->spread.pts[k]);
        for (int i = 0; i < RS_VALIDATE_MAX_B; i++)
            for (int r = 0; r < RS_VALIDATE_MAX_ROUNDS; r++) rs_trace_free(cf->meas[i][r]);
    }
    for (int j = 0; j < RS_PASS_COUNT; j++)
        free(v->ps[j].ksmp), free(v->ps[j].kfac), free(v->ps[j].oend), free(v->ps[j].oend_fresh), free(v->ps[j].obusy), free(v->ps[j].oalone), free(v->ps[j].oxfer),
            free(v->ps[j].oxfer_reused);
    free(v);
}

/* The passes and configurations of the study (rank-independent). Returns false on OOM. */
static bool val_setup(val_t *v, const rs_validate_in_t *in, const rs_exec_job_t *job) {
    bool ok = true;
    v->np = in->n_passes;
    for (int j = 0; j < v->np; j++) {
        val_pass_t *ps = &v->ps[j];
        ps->prob = in->problem;
        ps->prob.pass = in->passes[j];
        if (job->be->kernel_tile) job->be->kernel_tile(ps->prob.pass, ps->prob.head_dim, &ps->prob.tile_q, &ps->prob.tile_k);
        ps->ksmp = calloc((size_t)in->n_b, sizeof *ps->ksmp);
        ps->oend = calloc((size_t)in->n_b, sizeof *ps->oend);
        ps->oend_fresh = calloc((size_t)in->n_b, sizeof *ps->oend_fresh);
        ps->obusy = calloc((size_t)in->n_b, sizeof *ps->obusy);
        ps->oalone = calloc((size_t)in->n_b, sizeof *ps->oalone);
        ps->oxfer = calloc((size_t)in->n_b, sizeof *ps->oxfer);
        ps->oxfer_reused = calloc((size_t)in->n_b, sizeof *ps->oxfer_reused);
        ok = ok && ps->ksmp && ps->oend && ps->oend_fresh && ps->obusy && ps->oalone && ps->oxfer && ps->oxfer_reused;
    }
    const size_t cap = (size_t)in->n_b * (size_t)(job->n_ranks * (job->n_ranks + 1)) * 2 + 1;
    for (int j = 0; j < v->np; j++)
        for (int k = 0; k < in->n_masks; k++)
            for (int l = 0; l < in->n_layouts; l++) {
                val_cfg_t *cf = &v->cs[v->nc++];
                cf->ip = j;
                cf->prob = v->ps[j].prob;
                cf->prob.layout = in->layouts[l], cf->prob.causal = in->masks_causal[k];
                v->ps[j].masks |= cf->prob.causal; /* its causal and shifted calls are sampled with the runs */
                cf->spread.mk = cf->mk_spread;
                for (int m = 0; m < RS_CMP_METRIC_COUNT; m++) {
                    cf->ec[m] = calloc(cap, sizeof(double)), cf->es[m] = calloc(cap, sizeof(double));
                    cf->spread.pts[m] = calloc(cap * RS_VALIDATE_MAX_ROUNDS, sizeof(double));
                    ok = ok && cf->ec[m] && cf->es[m] && cf->spread.pts[m];
                }
            }
    return ok;
}

static val_t *val_new(const rs_validate_in_t *in, const rs_exec_job_t *job) {
    val_t *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->in = in, v->job = job, v->out = in->out;
    v->mode = strcmp(job->launch, "mpirun") ? job->launch : rs_progress_name(in->job.progress);
    v->rounds = in->rounds < RS_VALIDATE_MAX_ROUNDS ? in->rounds : RS_VALIDATE_MAX_ROUNDS;
    const long nc = sysconf(_SC_NPROCESSORS_ONLN);
    v->cores = nc > 0 ? nc : 1;
    if (!job->loopback && job->n_ranks > v->cores)
        snprintf(v->oversub, sizeof v->oversub, "oversubscribed: %lld ranks on %lld cores", (long long)job->n_ranks,
                 (long long)v->cores);
    v->sim = in->no_sim ? NULL : rs_backend_find("sim");
    snprintf(v->sim_note, sizeof v->sim_note, "%s", in->no_sim ? "--no-sim" : "not built");
    if (val_setup(v, in, job)) return v;
    val_free(v);
    return NULL;
}

/* The SPMD body (rs_exec_spmd runs it on every rank): the phases in order. Returns the rank's exit
 * code (RS_EXIT_*), its errors printed by the phase that failed. */
static int val_body(const rs_exec_job_t *job, void *arg) {
    const rs_validate_in_t *in = arg;
    val_t *v = val_new(in, job);
    if (!v) {
        fprintf(stderr, "ringsim validate: rank %lld: out of memory\n", (long long)job->rank);
        return RS_EXIT_FAIL;
    }
    if (job->rank == 0 && v->oversub[0])
        fprintf(v->out, "# %s: the ranks share cores, and that is part of what is measured\n", v->oversub);
    const double runs = (double)v->rounds * in->n_b * v->nc; /* measured, then as many points predicted */
    if (job->rank == 0) rs_meter_start(&v->meter, "validate", runs + (double)in->n_b * v->nc, "points");
    rs_meter_update(&v->meter, 0, "calibrate");
    int rc = RS_EXIT_OK;
    for (int j = 0; j < v->np && rc == RS_EXIT_OK; j++) rc = val_calibrate_pass(v, &v->ps[j]);
    if (rc == RS_EXIT_OK) rc = val_measure(v);
    for (int j = 0; j < v->np && rc == RS_EXIT_OK; j++) rc = val_refit(v, &v->ps[j]);
    for (int c = 0; c < v->nc && rc == RS_EXIT_OK && job->rank == 0; c++)
        for (int i = 0; i < in->n_b && rc == RS_EXIT_OK; i++) {
            rc = rs_val_predict_point(v, &v->cs[c], i);
            rs_meter_update(&v->meter, runs + (double)c * in->n_b + i + 1, "predict B=%lld", (long long)in->b[i]);
        }
    rs_meter_end(&v->meter);
    if (rc == RS_EXIT_OK && job->rank == 0) rs_val_print(v);
    val_free(v);
    return rc;
}

int rs_study_validate(const rs_validate_in_t *in, rs_err_t *err) {
    return rs_measure_run(in->backend, &in->job, val_body, (void *)in, err);
}
