/* study_validate.c - the validation study (study_validate.h). Phases, each a function: calibrate
 * (or load a calibrated profile) once per pass, measure (rounds over the sweep, calibration samples
 * interleaved with the runs of every configuration), refit the model's inputs from the interleaved
 * samples, predict and compare per configuration and B, report. */
#include "study_validate.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "registry.h"
#include "plot.h"
#include "setup.h"
#include "calibrate_kernels.h"
#include "study_calibrate.h"
#include "exec_launch.h"
#include "meter.h"
#include "cost.h"
#include "trace.h"
#include "output.h"

#define KCAP 4096 /* kernel samples per B and rank */
#define OCAP 64   /* overlap samples per B and rank */
#define OREPS 4   /* overlap samples per B, pass and round: their median is one point of the curve */

void rs_validate_defaults(rs_validate_in_t *in) {
    memset(in, 0, sizeof *in);
    rs_measure_defaults("validate", &in->backend, &in->problem, &in->dtype, &in->job);
    in->n_layouts = 1, in->layouts[0] = in->problem.layout;
    in->n_passes = 1, in->passes[0] = in->problem.pass;
    in->n_masks = 1, in->masks_causal[0] = in->problem.causal;
    const int64_t defb[] = {8, 16, 32, 64, 128, 256, 512, 1024}; /* spans the crossover (docs/exec.md) */
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

const char *rs_validate_crossover_text(double x, double b_lo, double b_hi, char *buf, size_t len) {
    if (isfinite(x)) snprintf(buf, len, "B = %.4g", x);
    else snprintf(buf, len, "not reached in the swept range (B = %.0f..%.0f)", b_lo, b_hi);
    return buf;
}

/* ---------------------------------------------------------------------------------------------------
 * State
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    rs_trace_summary_t meas, pred, sim; /* typical step, makespan */
    bool has_sim;
} row_t;

/* Per pass: the calibration, its interleaved samples and the machine that predicts the pass. */
typedef struct {
    rs_problem_t prob;                   /* at the executor's kernel tile: the schedule counts what it runs */
    rs_calib_t calib;                    /* the calibration (rank 0's holds the medians) */
    rs_hw_t hw;                          /* the profile the predictions use */
    rs_machine_t m;                      /* its machine (rank 0) */
    double (*ksmp)[KCAP];                /* [n_b][KCAP] kernel samples at each B */
    size_t nk[RS_VALIDATE_MAX_B];
    uint64_t kflops[RS_VALIDATE_MAX_B];
    double *kfac;                        /* rank 0: [n_b][P] each rank's kernel time over the fastest's at each B */
    bool masks;                          /* a causal configuration of the pass: causal and shifted calls sampled too */
    double kmask[RS_VALIDATE_MAX_B][2][RS_VALIDATE_MAX_ROUNDS]; /* per B, causal / shifted: each round's median call time */
    uint64_t kmask_useful[RS_VALIDATE_MAX_B][2];                /* the call's useful FLOPs */
    int nkmask[RS_VALIDATE_MAX_B];                              /* rounds sampled */
    double (*oend)[OCAP], (*oend_fresh)[OCAP], (*obusy)[OCAP], (*oalone)[OCAP], (*oxfer)[OCAP], (*oxfer_reused)[OCAP];
    /* [n_b][OCAP] overlap samples */
    size_t no[RS_VALIDATE_MAX_B];
    rs_calib_flows_t oflows[RS_VALIDATE_MAX_B]; /* what the overlap samples posted */
} val_pass_t;

/* Per configuration: its runs, the predictions and the errors. */
typedef struct {
    rs_problem_t prob;                   /* layout, pass, mask, heads; at its pass's tile */
    int ip;                              /* its pass in val_t.ps */
    rs_trace_t *meas[RS_VALIDATE_MAX_B][RS_VALIDATE_MAX_ROUNDS]; /* rank 0: measured trace per B and round */
    row_t rows[RS_VALIDATE_MAX_B];       /* rank 0: per B */
    double *ec[RS_CMP_METRIC_COUNT];     /* |error| of every (rank, step) point: model vs measured */
    double *es[RS_CMP_METRIC_COUNT];     /* simulator vs measured */
    double *esp[RS_CMP_METRIC_COUNT];    /* |round - median of the rounds| / median: the measurement's own spread */
    size_t nec[RS_CMP_METRIC_COUNT], nes[RS_CMP_METRIC_COUNT], nesp[RS_CMP_METRIC_COUNT];
    double mk_spread[RS_VALIDATE_MAX_B * RS_VALIDATE_MAX_ROUNDS]; /* the same for the makespan, per B and round */
    size_t n_mk_spread;
    double mk_err[RS_VALIDATE_MAX_B];    /* makespan error per B, model */
    double mk_err_sim[RS_VALIDATE_MAX_B];
    int n_sim;
    double b_star;                       /* closed form's B* at the first B */
} val_cfg_t;

typedef struct {
    const rs_validate_in_t *in;
    const rs_exec_job_t *job;
    const char *mode;                    /* threads, loopback or the MPI progress mode, for the notes */
    FILE *out;                           /* rank 0's report */
    int rounds;                          /* rounds run */
    int np, nc;                          /* passes, configurations */
    val_pass_t ps[RS_PASS_COUNT];
    val_cfg_t cs[RS_VALIDATE_MAX_CFG];
    const rs_backend_ops_t *sim;         /* the simulator while it runs */
    char sim_note[300];                  /* why it does not */
    int64_t cores;                       /* online cores of this host */
    char oversub[200];                   /* "" or the oversubscription note */
    rs_meter_t meter;                    /* rank 0, on a terminal: runs measured and points predicted */
} val_t;

static double rel(double pred, double meas) { return (pred - meas) / meas; }

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

/* "contiguous forward causal" into buf. */
static const char *cfg_name(const rs_problem_t *p, char *buf, size_t len) {
    snprintf(buf, len, "%s %s %s", rs_layout_name(p->layout), rs_pass_name(p->pass), p->causal ? "causal" : "non-causal");
    return buf;
}

/* One trace from the rounds' traces (sorted, same events): per event the median start and the
 * median duration. The header is the first round's. NULL on OOM. */
static rs_trace_t *merge_rounds(rs_trace_t **t, int rounds) {
    rs_trace_t *m = rs_trace_create(rs_trace_source(t[0]));
    if (!m) return NULL;
    for (size_t k = 0; k < rs_trace_meta_count(t[0]); k++) {
        const char *key, *val;
        rs_trace_meta_at(t[0], k, &key, &val);
        rs_trace_set_meta(m, key, "%s", val);
    }
    rs_trace_set_meta(m, "timing", "per-event median over %d rounds of per-event medians", rounds);
    double st[RS_VALIDATE_MAX_ROUNDS], du[RS_VALIDATE_MAX_ROUNDS];
    for (size_t e = 0; e < rs_trace_count(t[0]); e++) {
        rs_event_t ev = rs_trace_events(t[0])[e];
        int n = 0;
        for (int r = 0; r < rounds; r++) {
            long x = rs_trace_find(t[r], ev.rank, ev.step, ev.pass, ev.kind);
            if (x < 0) continue;
            const rs_event_t *o = &rs_trace_events(t[r])[x];
            st[n] = o->start_s, du[n] = o->end_s - o->start_s, n++;
        }
        double a = rs_median(st, (size_t)n), b = rs_median(du, (size_t)n);
        ev.start_s = a, ev.end_s = a + b;
        if (rs_trace_add(m, &ev) < 0) {
            rs_trace_free(m);
            return NULL;
        }
    }
    rs_trace_sort(m);
    return m;
}

/* Collect |rel err| of every (rank, step) point of metric into v. The compute of a step without work
 * (every block skipped: the schedule says 0 FLOPs, the model 0 s) is not a point: the executor's
 * tens of nanoseconds walking the skipped blocks against 0 would be a -100% error of nothing. */
static void collect(const rs_compare_t *cmp, const rs_trace_t *tm, rs_cmp_metric_t metric, double *v, size_t *n) {
    for (size_t i = 0; i < cmp->n_points; i++) {
        const rs_cmp_point_t *pt = &cmp->points[i];
        if (pt->metric != metric || !isfinite(pt->rel_err)) continue;
        if (metric == RS_CMP_COMP) {
            long x = rs_trace_find(tm, pt->rank, pt->step, pt->pass, RS_EV_COMPUTE);
            if (x >= 0 && rs_trace_events(tm)[x].flops == 0) continue;
        }
        v[(*n)++] = fabs(pt->rel_err);
    }
}

/* DIR/validate-B64-exec.csv for one configuration; with several, DIR/validate-zigzag-backward-causal-B64-exec.csv. */
static int write_pair(const val_t *v, const rs_problem_t *p, int64_t B, const char *what, const rs_trace_t *t, rs_err_t *err) {
    char path[1200], tag[96] = "";
    if (v->nc > 1)
        snprintf(tag, sizeof tag, "%s-%s-%s-", rs_layout_name(p->layout), rs_pass_name(p->pass), p->causal ? "causal" : "full");
    snprintf(path, sizeof path, "%s/validate-%sB%lld-%s.csv", v->in->trace_dir, tag, (long long)B, what);
    return rs_trace_write_csv(t, path, err);
}

/* ---------------------------------------------------------------------------------------------------
 * Phases
 * ------------------------------------------------------------------------------------------------- */
/* Calibrate pass ip (or load --calibrated); rank 0 builds its machine. Returns an exit code. */
/* Does the transport move data only inside the compute's polls (MPI, --progress poll)? */
static bool val_polled(const val_t *v) {
    return !strcmp(v->job->launch, "mpirun") && v->in->job.progress == RS_PROGRESS_POLL;
}

/* The kernel table of the pass (exec/calibrate_kernels.h) on rank 0: one call of each mask kind at
 * every B of the sweep and at half the smallest (zigzag's calls are B/2 x B/2), so the model costs
 * each of a step's blocks at its own size and mask (preset ringsim, model/4-cost/kernel.h) instead of
 * the whole step at F_eff(B): a zigzag step is two half-size calls, a causal diagonal runs tile by
 * tile. val_refit_kernel_table follows the machine's drift. Returns an exit code. */
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
        if (rs_calibrate(&ps->prob, job->cops, job->tops, job->ts, &co, &ps->calib, &err) < 0) {
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
            rs_meter_hide();
            fprintf(v->out, "# ringsim validate: calibration, %s pass (%lld ranks, progress %s)\n", rs_pass_name(ps->prob.pass),
                    (long long)job->n_ranks, v->mode);
            char why[512];
            if (job->be->compute_for(RS_DTYPE_FP32) && rs_exec_blas_core_note(why, sizeof why))
                fprintf(v->out, "# warning: %s\n", why);
            rs_calib_print(&ps->calib, v->out);
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
 * kernel table then takes at that B) and the overlap sample with the pass's transfers. Returns an
 * exit code. */
static int val_samples(val_t *v, val_pass_t *ps, int i) {
    const rs_validate_in_t *in = v->in;
    const rs_exec_job_t *job = v->job;
    rs_err_t err = {0};
    if (in->calibrated) return RS_EXIT_OK;
    if (rs_calib_kernel_point(&ps->prob, in->b[i], job->cops, job->local_rank, in->calib.min_time_s / v->rounds, 2, ps->ksmp[i],
                              KCAP, &ps->nk[i], &ps->kflops[i], &err) < 0)
        return fail(v, RS_EXIT_FAIL, "rank %lld: kernel sample B=%lld: %s", (long long)job->rank, (long long)in->b[i], err.msg);
    for (int mk = 0; ps->masks && mk < 2 && ps->nkmask[i] < RS_VALIDATE_MAX_ROUNDS; mk++) /* the causal calls' level now */
        if (rs_calib_call_median(&ps->prob, in->b[i], mk ? RS_KMASK_SHIFTED : RS_KMASK_CAUSAL, job->cops, job->local_rank,
                                 in->calib.min_time_s / v->rounds, 2, &ps->kmask[i][mk][ps->nkmask[i]], &ps->kmask_useful[i][mk],
                                 &err) < 0)
            return fail(v, RS_EXIT_FAIL, "rank %lld: kernel sample B=%lld: %s", (long long)job->rank, (long long)in->b[i], err.msg);
    if (ps->masks && ps->nkmask[i] < RS_VALIDATE_MAX_ROUNDS) ps->nkmask[i]++;
    if (job->n_ranks >= 2 &&
        rs_calib_overlap_samples(&ps->prob, in->b[i], job->cops, job->local_rank, job->tops, job->ts, OREPS, in->exec.timeout_s,
                                 ps->oend[i], ps->oend_fresh[i], ps->obusy[i], ps->oalone[i], ps->oxfer[i], ps->oxfer_reused[i], OCAP, &ps->no[i],
                                 &ps->oflows[i], &err) < 0)
        return fail(v, RS_EXIT_FAIL, "rank %lld: overlap sample B=%lld: %s", (long long)job->rank, (long long)in->b[i], err.msg);
    return RS_EXIT_OK;
}

/* Rounds over the sweep: at every B the calibration samples of every pass, then the measured run of
 * every configuration; rank 0 keeps each round's trace. Returns an exit code. */
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
 * with other work) is a straggler in the model, by its median ratio to the fastest. */
static int val_refit_kernel(val_t *v, val_pass_t *ps) {
    const rs_validate_in_t *in = v->in;
    const rs_exec_job_t *job = v->job;
    const int64_t P = job->n_procs; /* the ranks that gather: N, or 1 for one device playing them all */
    rs_err_t err = {0};
    double *kt = job->rank == 0 ? calloc((size_t)(P * in->n_b), sizeof *kt) : NULL;
    if (job->rank == 0 && !kt) return fail(v, RS_EXIT_FAIL, "out of memory");
    int rc = RS_EXIT_OK;
    for (int i = 0; i < in->n_b && rc == RS_EXIT_OK; i++)
        if (rs_calib_rank_values(job->tops, job->ts, ps->ksmp[i], ps->nk[i], in->exec.timeout_s,
                                 kt ? kt + (size_t)i * (size_t)P : NULL, &err) < 0) {
            fprintf(stderr, "ringsim validate: rank %lld: %s\n", (long long)job->rank, err.msg);
            rc = RS_EXIT_FAIL;
        }
    double *fr = job->rank == 0 && rc == RS_EXIT_OK ? malloc(sizeof(double) * (size_t)P) : NULL;
    if (fr) {
        double fastest[RS_VALIDATE_MAX_B];
        rs_calib_rank_factors(kt, in->n_b, P, fastest, fr);
        rs_calibration_t *model = &ps->calib.model;
        for (int i = 0; i < in->n_b; i++) {
            const double f = (double)ps->kflops[i] / fastest[i], peak = ps->calib.flops_peak;
            for (int e = 0; e < model->n_eff; e++)
                if ((int64_t)model->eff[e].block_tokens == in->b[i]) model->eff[e].efficiency = f / peak;
        }
        rs_perturb_t *q = &ps->m.perturb;
        q->n_stragglers = 0;
        rs_meter_hide();
        fprintf(v->out, "# %s: per-rank kernel time over the fastest rank's (median over the sweep):", rs_pass_name(ps->prob.pass));
        for (int64_t r = 0; r < P; r++) {
            fprintf(v->out, " rank %lld x%.3f", (long long)r, fr[r]);
            if (fr[r] > 1.005 && q->n_stragglers < RS_MAX_PERTURB)
                q->straggler_rank[q->n_stragglers] = r, q->straggler_factor[q->n_stragglers++] = fr[r];
        }
        /* the model of sweep point i takes the ranks' factors at its own B (val_stragglers_at): how much
         * slower a rank is changes with the block (its cache and the other rank's share of it) */
        free(ps->kfac);
        ps->kfac = malloc(sizeof(double) * (size_t)(in->n_b * P));
        fprintf(v->out, "; at each B (the stragglers of that B's model):\n");
        for (int i = 0; i < in->n_b; i++) {
            fprintf(v->out, "#   B %6lld:", (long long)in->b[i]);
            for (int64_t r = 0; r < P; r++) {
                const double f = kt[(size_t)i * (size_t)P + (size_t)r] / fastest[i];
                if (ps->kfac) ps->kfac[(size_t)i * (size_t)P + (size_t)r] = f;
                fprintf(v->out, " rank %lld x%.3f", (long long)r, f);
            }
            fputc('\n', v->out);
        }
    }
    free(fr);
    free(kt);
    return rc;
}

/* The transport and the overlap points at every B of the sweep from the interleaved samples (the
 * pass's own transfers): the alpha-beta fit on the transfers alone at the sweep's sizes replaces the
 * calibration's (one load burst during calibration no longer sets L and W for the whole run); the
 * overlap points replace the calibration's at that B or join them (the curve reaches the sweep's
 * largest step). Host cost and overlap curve are fitted again over all points. */
static int val_refit_overlap(val_t *v, val_pass_t *ps) {
    const rs_validate_in_t *in = v->in;
    const rs_exec_job_t *job = v->job;
    rs_calib_t *c = &ps->calib;
    rs_err_t err = {0};
    int n_sizes = 0;
    for (int i = 0; job->n_ranks >= 2 && i < in->n_b; i++) {
        double e_s, ef_s, busy_s, alone_s, x_s, xr_s;
        if (rs_calib_rank_median(job->tops, job->ts, ps->oend[i], ps->no[i], in->exec.timeout_s, &e_s, &err) < 0 ||
            rs_calib_rank_median(job->tops, job->ts, ps->oend_fresh[i], ps->no[i], in->exec.timeout_s, &ef_s, &err) < 0 ||
            rs_calib_rank_median(job->tops, job->ts, ps->obusy[i], ps->no[i], in->exec.timeout_s, &busy_s, &err) < 0 ||
            rs_calib_rank_median(job->tops, job->ts, ps->oalone[i], ps->no[i], in->exec.timeout_s, &alone_s, &err) < 0 ||
            rs_calib_rank_median(job->tops, job->ts, ps->oxfer[i], ps->no[i], in->exec.timeout_s, &x_s, &err) < 0 ||
            rs_calib_rank_median(job->tops, job->ts, ps->oxfer_reused[i], ps->no[i], in->exec.timeout_s, &xr_s, &err) < 0) {
            fprintf(stderr, "ringsim validate: rank %lld: %s\n", (long long)job->rank, err.msg);
            return RS_EXIT_FAIL;
        }
        if (job->rank != 0 || ps->no[i] == 0) continue;
        const rs_calib_flows_t *fl = &ps->oflows[i];
        if (n_sizes < RS_CALIB_MAX_SIZES) c->sizes[n_sizes] = fl->bytes, c->t_msg_s[n_sizes] = x_s, c->t_msg_reused_s[n_sizes++] = xr_s;
        int k = 0;
        while (k < c->n_ov && c->ov[k].block != in->b[i]) k++;
        if (k == c->n_ov && c->n_ov == RS_CALIB_MAX_OV) continue;
        if (k == c->n_ov) c->n_ov++;
        const bool polled = val_polled(v) && fl->geom.chunk_cols > 0;
        c->ov[k] = (rs_calib_overlap_t){in->b[i], fl->bytes, fl->n, alone_s, busy_s, 0, e_s, ef_s, 1,
                                        alone_s > 0 ? fmax(1.0, busy_s / alone_s) : 1, polled ? fl->polls : 0, fl->poll_first};
        if (polled) c->model.poll.chunk_cols = fl->geom.chunk_cols, c->model.poll.panel_rows[0] = fl->geom.panel_rows[0],
                    c->model.poll.panel_rows[1] = fl->geom.panel_rows[1];
    }
    if (job->rank != 0 || job->n_ranks < 2 || c->n_ov == 0) return RS_EXIT_OK;
    if (n_sizes >= 2) c->n_sizes = n_sizes; /* the sweep's transfers alone */
    rs_calib_fit_transport(c);
    rs_calib_fit_overlap(c);
    rs_meter_hide();
    fprintf(v->out, "# %s: transfers alone and overlap points from samples interleaved with the runs (transport, host cost and "
                    "curve fitted again; t_xfer_s: fresh, reused_s: rotating as the ring's; the step's receive t_end_s\n"
                    "# with rotating buffers, t_end_fresh_s with fresh transfers):\n"
                    "#      B flows        bytes    t_xfer_s   reused_s      t_comp_s  t_comp_busy_s        t_end_s  t_end_fresh_s   eta_pt\n",
            rs_pass_name(ps->prob.pass));
    for (int k = 0; k < c->n_ov; k++) {
        char eta[16], tx[24] = "-", tr[24] = "-";
        for (int q = 0; q < c->n_sizes; q++)
            if (c->sizes[q] == c->ov[k].bytes) {
                snprintf(tx, sizeof tx, "%.6g", c->t_msg_s[q]);
                if (c->t_msg_reused_s[q] > 0) snprintf(tr, sizeof tr, "%.6g", c->t_msg_reused_s[q]);
            }
        char ef[24] = "-";
        if (c->ov[k].t_end_fresh_s > 0) snprintf(ef, sizeof ef, "%.6g", c->ov[k].t_end_fresh_s);
        fprintf(v->out, "  %6lld %5d %12llu %11s %10s %13.6g %14.6g %14.6g %14s %8s\n", (long long)c->ov[k].block, c->ov[k].n_flows,
                (unsigned long long)c->ov[k].bytes, tx, tr, c->ov[k].t_comp_s, c->ov[k].t_comp_busy_s, c->ov[k].t_end_s, ef,
                rs_fmt_num(c->ov[k].eta, "%.3f", eta, sizeof eta));
    }
    fprintf(v->out, "# alpha-beta fit: latency %.3g s, bandwidth %.4g GB/s (max fit error %.1f%%); host cost %.3g s per flow + "
                    "%.3g s/byte (median |error| of the busy compute %.1f%%)\n",
            c->latency_s, c->bw_bytes_per_s * 1e-9, 100 * c->fit_err_max, c->model.host_s_per_xfer, c->model.host_s_per_byte,
            100 * c->host_fit_err);
    return RS_EXIT_OK;
}

/* DIR/name.json -> DIR/name-PASS.json (the pass's name before the extension). */
static void pass_path(const char *path, rs_pass_t pass, char *buf, size_t len) {
    const char *dot = strrchr(path, '.'), *sl = strrchr(path, '/');
    if (!dot || (sl && dot < sl)) dot = path + strlen(path);
    snprintf(buf, len, "%.*s-%s%s", (int)(dot - path), path, rs_pass_name(pass), dot);
}

/* The fastest rank's median call time of mask mk (0 causal, 1 shifted) at sweep point i from the
 * interleaved samples (collective; rank 0 gets it in *t_s, 0 when none). Returns an exit code. */
static int val_mask_time(val_t *v, val_pass_t *ps, int i, int mk, double *t_s) {
    const rs_exec_job_t *job = v->job;
    const int64_t P = job->n_procs;
    double smp[RS_VALIDATE_MAX_ROUNDS], *all = job->rank == 0 ? calloc((size_t)P, sizeof *all) : NULL;
    if (job->rank == 0 && !all) return fail(v, RS_EXIT_FAIL, "out of memory");
    for (int r = 0; r < ps->nkmask[i]; r++) smp[r] = ps->kmask[i][mk][r];
    rs_err_t err = {0};
    *t_s = 0;
    if (rs_calib_rank_values(job->tops, job->ts, smp, (size_t)ps->nkmask[i], v->in->exec.timeout_s, all, &err) < 0) {
        free(all);
        return fail(v, RS_EXIT_FAIL, "rank %lld: %s", (long long)job->rank, err.msg);
    }
    for (int64_t r = 0; all && r < P; r++)
        if (all[r] > 0 && (*t_s == 0 || all[r] < *t_s)) *t_s = all[r];
    free(all);
    return RS_EXIT_OK;
}

/* The kernel table follows the interleaved samples: at every B of the sweep the full curve's rate is
 * scaled by F_eff(B) now over the table's full-call rate at B (the same full B x B call, measured
 * minutes apart on a machine whose speed drifts), and the causal and shifted curves, when sampled
 * (a causal configuration in the run), by their own calls' rate now (the fastest rank's median)
 * over the table's; else by the full call's factor. A size outside the sweep (half the smallest)
 * takes its nearest sweep size's factor. The table gives the shape (mask, size), the samples the
 * level. Collective (the mask samples are gathered). Returns an exit code. */
static int val_refit_kernel_table(val_t *v, val_pass_t *ps) {
    double tmask[RS_VALIDATE_MAX_B][2] = {{0}};
    for (int i = 0; ps->masks && i < v->in->n_b; i++)
        for (int mk = 0; mk < 2; mk++)
            if (val_mask_time(v, ps, i, mk, &tmask[i][mk]) != RS_EXIT_OK) return RS_EXIT_FAIL;
    if (v->job->rank != 0) return RS_EXIT_OK;
    rs_machine_t *m = &ps->m;
    if (m->kernel <= 0) return RS_EXIT_OK;
    rs_kernel_table_t *t = &m->kernels;
    const rs_kcurve_t *full = NULL;
    for (int c = 0; c < t->n_curves; c++)
        if (t->curve[c].pass == (int)ps->prob.pass && t->curve[c].mask == RS_KMASK_FULL) full = &t->curve[c];
    if (!full) return RS_EXIT_OK;
    const int n = full->n;
    double r[RS_KMASK_COUNT][RS_KMAX_POINTS]; /* the factor of each mask's curve at each point */
    for (int mask = 0; mask < RS_KMASK_COUNT; mask++) {
        const rs_kcurve_t *k = NULL;
        for (int c = 0; c < t->n_curves; c++)
            if (t->curve[c].pass == (int)ps->prob.pass && (int)t->curve[c].mask == mask && t->curve[c].n == n) k = &t->curve[c];
        int have[RS_KMAX_POINTS] = {0};
        for (int j = 0; j < n; j++) {
            r[mask][j] = 1;
            for (int i = 0; i < v->in->n_b; i++) {
                if ((double)v->in->b[i] != full->pt[j].q_tokens) continue;
                const int mk = mask == RS_KMASK_CAUSAL ? 0 : 1;
                if (mask != RS_KMASK_FULL && k && tmask[i][mk] > 0)
                    r[mask][j] = (double)ps->kmask_useful[i][mk] / tmask[i][mk] / k->pt[j].flops_per_s, have[j] = 1;
                else if (mask == RS_KMASK_FULL || !ps->masks)
                    r[mask][j] = rs_machine_flops_eff(m, full->pt[j].q_tokens) / full->pt[j].flops_per_s, have[j] = 1;
            }
        }
        for (int j = 0; j < n; j++) /* sizes outside the sweep: the nearest sweep size's factor */
            if (!have[j])
                for (int d = 1; d < n; d++) {
                    if (j - d >= 0 && have[j - d]) { r[mask][j] = r[mask][j - d]; break; }
                    if (j + d < n && have[j + d]) { r[mask][j] = r[mask][j + d]; break; }
                }
    }
    double rate[RS_KMASK_COUNT][RS_KMAX_POINTS] = {{0}};
    for (int c = 0; c < t->n_curves; c++) {
        rs_kcurve_t *k = &t->curve[c];
        if (k->pass != (int)ps->prob.pass || k->n != n || (int)k->mask < 0 || (int)k->mask >= RS_KMASK_COUNT) continue;
        for (int j = 0; j < n; j++) rate[k->mask][j] = k->pt[j].flops_per_s *= r[k->mask][j];
    }
    if (ps->masks) {
        rs_meter_hide();
        fprintf(v->out, "# %s: kernel table at the sweep's B from samples interleaved with the runs (useful GFLOP/s; causal and "
                        "shifted from their own calls, full from F_eff(B)):\n#      B         full       causal      shifted\n",
                rs_pass_name(ps->prob.pass));
        for (int j = 0; j < n; j++)
            for (int i = 0; i < v->in->n_b; i++)
                if ((double)v->in->b[i] == full->pt[j].q_tokens)
                    fprintf(v->out, "  %6lld %12.3f %12.3f %12.3f\n", (long long)v->in->b[i], rate[RS_KMASK_FULL][j] * 1e-9,
                            rate[RS_KMASK_CAUSAL][j] * 1e-9, rate[RS_KMASK_SHIFTED][j] * 1e-9);
    }
    rs_err_t err = {0};
    if (rs_machine_set_kernel(m, m->impl, m->kernel, &err) < 0) return fail(v, RS_EXIT_FAIL, "kernel table: %s", err.msg);
    ps->hw.kernels = m->kernels;
    return RS_EXIT_OK;
}

/* The model's inputs of one pass from the interleaved samples (when calibrating): F_eff(B),
 * stragglers, host cost and overlap curve, renormalised to the largest rate; --save-profile writes
 * them. */
static int val_refit(val_t *v, val_pass_t *ps) {
    if (v->in->calibrated) return RS_EXIT_OK;
    int rc = val_refit_kernel(v, ps);
    if (rc == RS_EXIT_OK) rc = val_refit_overlap(v, ps);
    if (v->job->rank != 0) return rc == RS_EXIT_OK ? val_refit_kernel_table(v, ps) : rc; /* its gathers */
    rs_calibration_t *model = &ps->calib.model;
    double mx = 0; /* renormalise: the peak is the largest measured rate */
    for (int e = 0; e < model->n_eff; e++) mx = fmax(mx, model->eff[e].efficiency);
    for (int e = 0; e < model->n_eff; e++) model->eff[e].efficiency /= mx;
    ps->calib.flops_peak *= mx;
    ps->m.cal = *model; /* the machine the predictions use: the calibration, updated by the samples */
    ps->m.flops_per_s = ps->calib.flops_peak;
    if (rc == RS_EXIT_OK && val_refit_kernel_table(v, ps) != RS_EXIT_OK) return RS_EXIT_FAIL;
    if (ps->calib.bw_bytes_per_s > 0) { /* the transport fitted again */
        ps->m.intra.latency_s = ps->hw.intra.latency_s = ps->calib.latency_s;
        ps->m.intra.bw_bytes_per_s = ps->hw.intra.bw_bytes_per_s = ps->calib.bw_bytes_per_s;
    }
    rs_meter_hide();
    fprintf(v->out, "# %s: F_eff(B) from kernel samples interleaved with the runs:\n#      B      GFLOP/s\n",
            rs_pass_name(ps->prob.pass));
    for (int e = 0; e < ps->m.cal.n_eff; e++)
        fprintf(v->out, "  %6lld %12.3f\n", (long long)ps->m.cal.eff[e].block_tokens,
                ps->m.flops_per_s * ps->m.cal.eff[e].efficiency * 1e-9);
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

/* The simulator at one B, against the measurement tm (rank 0). */
static void val_simulate(val_t *v, val_cfg_t *cf, int i, const rs_schedule_t *s, const rs_problem_t *p, const rs_trace_t *tm,
                         const rs_machine_t *m) {
    rs_err_t err = {0}, why;
    if (v->sim && v->sim->can_run(p, m, &why) != 0) { /* the one rule (its can_run) decides */
        snprintf(v->sim_note, sizeof v->sim_note, "%.290s", why.msg);
        v->sim = NULL;
    }
    if (!v->sim) return;
    rs_trace_t *tsim = rs_trace_create(v->sim->source);
    rs_run_summary_t sr;
    rs_compare_t cs;
    row_t *row = &cf->rows[i];
    if (tsim && v->sim->run(s, m, NULL, tsim, &sr, &err) == 0 && rs_trace_summarize(tsim, p->pass, &row->sim, &err) == 0 &&
        rs_compare_traces(tm, tsim, &cs, &err) == 0) {
        row->has_sim = true;
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) collect(&cs, tm, (rs_cmp_metric_t)k, cf->es[k], &cf->nes[k]);
        cf->mk_err_sim[cf->n_sim++] = fabs(rel(row->sim.makespan_s, row->meas.makespan_s));
        rs_compare_free(&cs);
        if (v->in->trace_dir) write_pair(v, p, v->in->b[i], "sim", tsim, &err);
    } else {
        v->sim = NULL;
        snprintf(v->sim_note, sizeof v->sim_note, "simulator failed (see stderr)");
        fprintf(stderr, "ringsim validate: sim, B=%lld: %s\n", (long long)v->in->b[i], err.msg);
    }
    rs_trace_free(tsim);
}

int rs_validate_round_spread(rs_trace_t *const *rounds, int n_rounds, const rs_trace_t *merged, rs_pass_t pass,
                             double *pts[RS_CMP_METRIC_COUNT], size_t n_pts[RS_CMP_METRIC_COUNT], double *mk, size_t *n_mk,
                             rs_err_t *err) {
    rs_trace_summary_t sm, s0;
    if (n_rounds < 2) return 0;
    if (rs_trace_summarize(merged, pass, &s0, err) < 0) return -1;
    for (int r = 0; r < n_rounds; r++) {
        rs_compare_t cmp;
        if (rs_compare_traces(merged, rounds[r], &cmp, err) < 0) return -1;
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) collect(&cmp, merged, (rs_cmp_metric_t)k, pts[k], &n_pts[k]);
        rs_compare_free(&cmp);
        if (rs_trace_summarize(rounds[r], pass, &sm, err) < 0) return -1;
        if (s0.makespan_s > 0) mk[(*n_mk)++] = fabs(rel(sm.makespan_s, s0.makespan_s));
    }
    return 0;
}

/* The machine of sweep point i: the pass's, with the stragglers of that B's kernel samples (a rank
 * more than 0.5% slower than the fastest) when they were measured; else the sweep's median ones. */
static void val_stragglers_at(const val_t *v, const val_pass_t *ps, int i, rs_machine_t *m) {
    *m = ps->m;
    if (!ps->kfac) return;
    const int64_t P = v->job->n_procs;
    rs_perturb_t *q = &m->perturb;
    q->n_stragglers = 0;
    for (int64_t r = 0; r < P && q->n_stragglers < RS_MAX_PERTURB; r++) {
        const double f = ps->kfac[(size_t)i * (size_t)P + (size_t)r];
        if (f > 1.005) q->straggler_rank[q->n_stragglers] = r, q->straggler_factor[q->n_stragglers++] = f;
    }
}

/* One configuration at sweep point i (rank 0): the measured trace (medians over the rounds) against
 * the walk's and the simulator's, on the machine of that B (val_stragglers_at); the measurement's
 * own spread. Returns an exit code. */
static int val_predict_point(val_t *v, val_cfg_t *cf, int i) {
    const rs_validate_in_t *in = v->in;
    rs_machine_t mb;
    val_stragglers_at(v, &v->ps[cf->ip], i, &mb);
    const rs_machine_t *m = &mb;
    rs_err_t err = {0};
    rs_problem_t p = rs_problem_with_block(&cf->prob, in->b[i]);
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    if (!s) return RS_EXIT_USAGE;
    int rc = RS_EXIT_OK;
    rs_trace_t *tm = merge_rounds(cf->meas[i], v->rounds), *tp = rs_trace_create("model");
    rs_run_summary_t w;
    rs_closed_t cl;
    rs_compare_t cmp;
    if (!tm || !tp || rs_walk_backend.run(s, m, NULL, tp, &w, &err) < 0 || (i == 0 ? rs_model_b_star : rs_model_closed)(&p, m, &cl, &err) < 0 ||
        rs_trace_summarize(tm, p.pass, &cf->rows[i].meas, &err) < 0 || rs_trace_summarize(tp, p.pass, &cf->rows[i].pred, &err) < 0 ||
        rs_compare_traces(tm, tp, &cmp, &err) < 0) {
        fprintf(stderr, "ringsim validate: B=%lld: %s\n", (long long)in->b[i], err.msg);
        rc = RS_EXIT_FAIL;
    } else {
        if (i == 0) cf->b_star = cl.b_star_tokens;
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) collect(&cmp, tm, (rs_cmp_metric_t)k, cf->ec[k], &cf->nec[k]);
        cf->mk_err[i] = rel(cf->rows[i].pred.makespan_s, cf->rows[i].meas.makespan_s);
        rs_compare_free(&cmp);
        if (rs_validate_round_spread(cf->meas[i], v->rounds, tm, p.pass, cf->esp, cf->nesp, cf->mk_spread, &cf->n_mk_spread, &err) < 0) {
            fprintf(stderr, "ringsim validate: B=%lld: %s\n", (long long)in->b[i], err.msg);
            rc = RS_EXIT_FAIL;
        }
        val_simulate(v, cf, i, s, &p, tm, m);
    }
    if (rc == RS_EXIT_OK && in->trace_dir &&
        (write_pair(v, &p, in->b[i], "exec", tm, &err) < 0 || write_pair(v, &p, in->b[i], "model", tp, &err) < 0)) {
        fprintf(stderr, "ringsim validate: %s\n", err.msg);
        rc = RS_EXIT_FAIL;
    }
    rs_trace_free(tp);
    rs_trace_free(tm);
    rs_schedule_free(s);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------
 * Printing
 * ------------------------------------------------------------------------------------------------- */
/* "  t_comp    n  median  p95  max" for the |errors| of one metric (sorted in place); "-" for none. */
static void print_stats(FILE *out, const char *name, double *e, size_t n) {
    char a[16], b[16], c[16];
    rs_fmt_num(rs_median(e, n), "%8.3f", a, sizeof a);
    rs_fmt_num(rs_percentile(e, n, 0.95), "%8.3f", b, sizeof b);
    rs_fmt_num(n ? e[n - 1] : NAN, "%8.3f", c, sizeof c);
    fprintf(out, "  %-8s %8zu %8s %8s %8s\n", name, n, a, b, c);
}

/* A relative error cell: "+0.012", or "-" when it cannot be formed. */
static const char *err_cell(double pred, double meas, char *buf, size_t len) {
    return rs_fmt_num(rel(pred, meas), "%+.3f", buf, len);
}

/* A time cell: "%.4g" seconds, or "-" when not measured. */
static const char *t_cell(double t, char *buf, size_t len) { return rs_fmt_num(t, "%.4g", buf, len); }

/* A CSV cell after a comma: the number with `digits` significant digits, or empty when it is not
 * finite (no "nan" in a file a reader parses). */
static void csv_cell(FILE *out, double x, int digits) {
    if (isfinite(x)) fprintf(out, ",%.*g", digits, x);
    else fputc(',', out);
}

/* The per-B table of one configuration (and its --csv rows, csv may be NULL). Fills the crossover
 * inputs. */
static void val_print_rows(val_t *v, const val_cfg_t *cf, FILE *csv, double *bb, double *mc, double *mm, double *pc,
                           double *pm, double *ma, double *pa) {
    const rs_validate_in_t *in = v->in;
    const rs_problem_t *p = &cf->prob;
    const rs_machine_t *m = &v->ps[cf->ip].m;
    char ovd[RS_MAX_OVERLAP_POINTS * 24 + 160], name[96];
    rs_machine_overlap_desc(m, ovd, sizeof ovd);
    fprintf(v->out,
            "# ringsim validate: N=%lld heads=%lld/%lld d=%lld batch=%lld %s, reps %d (warmup %d), progress %s%s%s\n"
            "# profile: F_peak %.4g GFLOP/s, W %.4g GB/s, L %.3g s, %d eff points; %s\n"
            "# times in seconds; err = (model - measured) / measured; T_* are medians over (rank, step)\n",
            (long long)v->job->n_ranks, (long long)p->q_heads, (long long)p->kv_heads, (long long)p->head_dim,
            (long long)p->batch, cfg_name(p, name, sizeof name), in->exec.reps, in->exec.warmup, v->mode,
            v->oversub[0] ? "; " : "", v->oversub, m->flops_per_s * 1e-9, m->intra.bw_bytes_per_s * 1e-9, m->intra.latency_s,
            m->cal.n_eff, ovd);
    fprintf(v->out, "# %6s %11s %11s %7s %11s %11s %7s %11s %11s %7s %11s %11s %7s %8s\n", "B", "comp_meas", "comp_model",
            "err", "comm_meas", "comm_model", "err", "step_meas", "step_model", "err", "mkspan_meas", "mkspan_model", "err",
            "sim_err");
    for (int i = 0; i < in->n_b; i++) {
        const row_t *r = &cf->rows[i];
        char c[13][24];
        fprintf(v->out, "  %6lld %11s %11s %7s %11s %11s %7s %11s %11s %7s %11s %11s %7s %8s\n", (long long)in->b[i],
                t_cell(r->meas.t_comp_s, c[0], 24), t_cell(r->pred.t_comp_s, c[1], 24),
                err_cell(r->pred.t_comp_s, r->meas.t_comp_s, c[2], 24), t_cell(r->meas.t_comm_s, c[3], 24),
                t_cell(r->pred.t_comm_s, c[4], 24), err_cell(r->pred.t_comm_s, r->meas.t_comm_s, c[5], 24),
                t_cell(r->meas.t_step_s, c[6], 24), t_cell(r->pred.t_step_s, c[7], 24),
                err_cell(r->pred.t_step_s, r->meas.t_step_s, c[8], 24), t_cell(r->meas.makespan_s, c[9], 24),
                t_cell(r->pred.makespan_s, c[10], 24), rs_fmt_num(cf->mk_err[i], "%+.3f", c[11], 24),
                r->has_sim ? err_cell(r->sim.makespan_s, r->meas.makespan_s, c[12], 24) : "-");
        if (csv) {
            const double cells[9] = {r->meas.t_comp_s, r->pred.t_comp_s, r->meas.t_comm_s, r->pred.t_comm_s, r->meas.t_step_s,
                                     r->pred.t_step_s, r->meas.makespan_s, r->pred.makespan_s, r->has_sim ? r->sim.makespan_s : NAN};
            fprintf(csv, "%s,%s,%s,%lld", rs_layout_name(p->layout), rs_pass_name(p->pass), p->causal ? "causal" : "full",
                    (long long)in->b[i]);
            for (int k = 0; k < 9; k++) csv_cell(csv, cells[k], 9);
            fputc('\n', csv);
        }
        ma[i] = r->meas.t_comp_alone_s, pa[i] = r->pred.t_comp_alone_s;
        bb[i] = (double)in->b[i], mc[i] = r->meas.t_comp_xfer_s, mm[i] = r->meas.t_comm_s, pc[i] = r->pred.t_comp_xfer_s,
        pm[i] = r->pred.t_comm_s;
    }
}

/* One configuration's summary: per-B rows, errors over the sweep, the simulator's, the crossovers;
 * its row of the held-out table into *row. */
static void val_print_cfg(val_t *v, val_cfg_t *cf, FILE *csv, rs_validate_row_t *row) {
    const size_t nb = (size_t)v->in->n_b;
    double bb[RS_VALIDATE_MAX_B], mc[RS_VALIDATE_MAX_B], mm[RS_VALIDATE_MAX_B], pc[RS_VALIDATE_MAX_B],
        pm[RS_VALIDATE_MAX_B], ma[RS_VALIDATE_MAX_B], pa[RS_VALIDATE_MAX_B], mk[RS_VALIDATE_MAX_B];
    val_print_rows(v, cf, csv, bb, mc, mm, pc, pm, ma, pa);
    fprintf(v->out, "# per-(rank, step) |error| over the sweep, model vs measured:\n# %-8s %8s %8s %8s %8s\n", "metric",
            "n", "median", "p95", "max");
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) print_stats(v->out, rs_cmp_metric_name((rs_cmp_metric_t)k), cf->ec[k], cf->nec[k]);
    for (size_t i = 0; i < nb; i++) mk[i] = fabs(cf->mk_err[i]);
    print_stats(v->out, "makespan", mk, nb);
    const rs_problem_t *p = &cf->prob;
    *row = (rs_validate_row_t){.n_ranks = v->job->n_ranks, .cores = v->cores, .layout = p->layout, .pass = p->pass,
                               .causal = p->causal, .q_heads = p->q_heads, .kv_heads = p->kv_heads,
                               .fitted = p->layout == RS_LAYOUT_CONTIGUOUS && !p->causal, .mk_med = rs_median(mk, nb),
                               .mk_max = rs_percentile(mk, nb, 1.0), .b_lo = bb[0], .b_hi = bb[nb - 1]};
    for (int k = 0; k < 3; k++) row->med[k] = rs_median(cf->ec[k], cf->nec[k]), row->p95[k] = rs_percentile(cf->ec[k], cf->nec[k], 0.95);
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) row->spread[k] = rs_median(cf->esp[k], cf->nesp[k]);
    row->mk_spread = rs_median(cf->mk_spread, cf->n_mk_spread);
    if (v->rounds < 2) {
        fprintf(v->out, "# the measurement's own spread: one round, nothing to compare it with (--rounds 2 or more)\n");
    } else {
        fprintf(v->out, "# the measurement's own spread over its %d rounds, |round - median of the rounds| / median (an error "
                        "within it is not resolved by this run):\n# %-8s %8s %8s %8s %8s\n", v->rounds, "metric", "n", "median",
                "p95", "max");
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) print_stats(v->out, rs_cmp_metric_name((rs_cmp_metric_t)k), cf->esp[k], cf->nesp[k]);
        print_stats(v->out, "makespan", cf->mk_spread, cf->n_mk_spread);
    }
    if (cf->n_sim > 0) {
        fprintf(v->out, "# simulator vs measured:\n");
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++)
            print_stats(v->out, rs_cmp_metric_name((rs_cmp_metric_t)k), cf->es[k], cf->nes[k]);
        print_stats(v->out, "makespan", cf->mk_err_sim, (size_t)cf->n_sim);
    } else {
        fprintf(v->out, "# simulator: not run (%s)\n", v->sim_note);
    }
    /* Crossovers, measured and predicted by the same estimator (a log-log line through 2 points on
     * each side of the sign change). The seed's threshold compares the transfer with the block's
     * compute alone (the steps without a transfer: the forward's last step); the exposed one with
     * the compute of the same steps (host cost included): past it the step waits. */
    double xa = rs_crossover_b_fit(bb, ma, mm, nb, 2), ya = rs_crossover_b_fit(bb, pa, pm, nb, 2);
    double xm = rs_crossover_b_fit(bb, mc, mm, nb, 2), xp = rs_crossover_b_fit(bb, pc, pm, nb, 2);
    row->x_meas = xa, row->x_model = ya;
    char t1[96], t2[96], e[16], bs[16];
    fprintf(v->out, "# crossover B (T_comm = T_comp alone, the seed's threshold): measured %s, model walk %s (err %s)\n",
            rs_validate_crossover_text(xa, bb[0], bb[nb - 1], t1, sizeof t1), rs_validate_crossover_text(ya, bb[0], bb[nb - 1], t2, sizeof t2),
            rs_fmt_num(rel(ya, xa), "%+.3f", e, sizeof e));
    fprintf(v->out, "# crossover B (T_comm = T_comp of the same steps, transfer exposed): measured %s, model walk %s (err %s), "
                    "closed-form B* %s\n",
            rs_validate_crossover_text(xm, bb[0], bb[nb - 1], t1, sizeof t1), rs_validate_crossover_text(xp, bb[0], bb[nb - 1], t2, sizeof t2),
            rs_fmt_num(rel(xp, xm), "%+.3f", e, sizeof e), rs_fmt_num(cf->b_star > 0 ? cf->b_star : NAN, "%.4g", bs, sizeof bs));
}

void rs_validate_print_summary(FILE *out, const rs_validate_row_t *rows, int n) {
    fprintf(out, "# held-out table: per configuration, |error| = |model - measured| / measured; per (rank, step) the median "
                 "and p95 over the B sweep, makespan the median and max over B; crossover B at the seed's threshold "
                 "(T_comm = T_comp alone; '-': not reached in the swept range or no step without a transfer); *_sp: the measurement's own "
                 "spread, median |round - median of the rounds| / median ('-': one round)\n");
    fprintf(out, "# %2s %5s %-10s %-8s %-10s %5s %-8s %7s %7s %7s %7s %7s %7s %7s %7s %8s %8s %7s %7s %7s %7s\n", "N", "cores",
            "layout", "pass", "mask", "heads", "fit", "comp", "comp95", "comm", "comm95", "step", "step95", "mk", "mkmax", "x_meas",
            "x_model", "comp_sp", "comm_sp", "step_sp", "mk_sp");
    for (int i = 0; i < n; i++) {
        const rs_validate_row_t *r = &rows[i];
        char c[14][16], h[24];
        snprintf(h, sizeof h, "%lld/%lld", (long long)r->q_heads, (long long)r->kv_heads);
        fprintf(out, "  %2lld %5lld %-10s %-8s %-10s %5s %-8s %7s %7s %7s %7s %7s %7s %7s %7s %8s %8s %7s %7s %7s %7s\n", (long long)r->n_ranks,
                (long long)r->cores, rs_layout_name(r->layout), rs_pass_name(r->pass), r->causal ? "causal" : "full", h,
                r->fitted ? "fitted" : "held-out", rs_fmt_num(r->med[0], "%.3f", c[0], 16), rs_fmt_num(r->p95[0], "%.3f", c[1], 16),
                rs_fmt_num(r->med[1], "%.3f", c[2], 16), rs_fmt_num(r->p95[1], "%.3f", c[3], 16),
                rs_fmt_num(r->med[2], "%.3f", c[4], 16), rs_fmt_num(r->p95[2], "%.3f", c[5], 16),
                rs_fmt_num(r->mk_med, "%.3f", c[6], 16), rs_fmt_num(r->mk_max, "%.3f", c[7], 16),
                rs_fmt_num(r->x_meas, "%.4g", c[8], 16), rs_fmt_num(r->x_model, "%.4g", c[9], 16),
                rs_fmt_num(r->spread[0], "%.3f", c[10], 16), rs_fmt_num(r->spread[1], "%.3f", c[11], 16),
                rs_fmt_num(r->spread[2], "%.3f", c[12], 16), rs_fmt_num(r->mk_spread, "%.3f", c[13], 16));
    }
    for (int i = 0; i < n; i++) { /* once per N */
        bool seen = false;
        for (int k = 0; k < i; k++) seen |= rows[k].n_ranks == rows[i].n_ranks;
        if (!seen && rows[i].n_ranks > rows[i].cores)
            fprintf(out, "# oversubscribed: %lld ranks on %lld cores - the ranks share cores, and that is part of what is "
                         "measured\n", (long long)rows[i].n_ranks, (long long)rows[i].cores);
    }
}

static void csv_num(FILE *out, double x) { csv_cell(out, x, 6); }

void rs_validate_write_summary_csv(FILE *out, const rs_validate_row_t *rows, int n) {
    fputs("n_ranks,cores,layout,pass,mask,q_heads,kv_heads,fitted,t_comp_med,t_comp_p95,t_comm_med,t_comm_p95,t_step_med,"
          "t_step_p95,makespan_med,makespan_max,crossover_meas,crossover_model,b_lo,b_hi,t_comp_spread,t_comm_spread,t_step_spread,"
          "makespan_spread\n",
          out);
    for (int i = 0; i < n; i++) {
        const rs_validate_row_t *r = &rows[i];
        fprintf(out, "%lld,%lld,%s,%s,%s,%lld,%lld,%d", (long long)r->n_ranks, (long long)r->cores, rs_layout_name(r->layout),
                rs_pass_name(r->pass), r->causal ? "causal" : "full", (long long)r->q_heads, (long long)r->kv_heads, r->fitted ? 1 : 0);
        for (int k = 0; k < 3; k++) csv_num(out, r->med[k]), csv_num(out, r->p95[k]);
        csv_num(out, r->mk_med), csv_num(out, r->mk_max), csv_num(out, r->x_meas), csv_num(out, r->x_model);
        csv_num(out, r->b_lo), csv_num(out, r->b_hi);
        for (int k = 0; k < 3; k++) csv_num(out, r->spread[k]);
        csv_num(out, r->mk_spread);
        fputs("\n", out);
    }
}

/* A number cell (empty: NaN). */
static double num_cell(const char *c) { return c[0] ? strtod(c, NULL) : NAN; }

int rs_validate_read_summary_csv(const char *path, rs_validate_row_t *rows, int max, int *n, rs_err_t *err) {
    rs_table_t t;
    if (rs_table_read(path, &t, err) != 0) return -1;
    static const char *const names[20] = {"n_ranks", "cores", "layout", "pass", "mask", "q_heads", "kv_heads", "fitted",
                                          "t_comp_med", "t_comp_p95", "t_comm_med", "t_comm_p95", "t_step_med", "t_step_p95",
                                          "makespan_med", "makespan_max", "crossover_meas", "crossover_model", "b_lo", "b_hi"};
    static const char *const spread[4] = {"t_comp_spread", "t_comm_spread", "t_step_spread", "makespan_spread"};
    int c[20], sp[4], rc = 0;
    for (int k = 0; k < 20 && rc == 0; k++)
        if ((c[k] = rs_table_col(&t, names[k])) < 0) rc = rs_errf(err, "%s: no column %s (not a validate --summary file)", path, names[k]);
    for (int k = 0; k < 4; k++) sp[k] = rs_table_col(&t, spread[k]);
    for (size_t i = 0; rc == 0 && i < t.n_rows && *n < max; i++) {
        char **x = t.cells[i];
        rs_validate_row_t *r = &rows[(*n)++];
        memset(r, 0, sizeof *r);
        r->n_ranks = strtoll(x[c[0]], NULL, 10), r->cores = strtoll(x[c[1]], NULL, 10);
        r->causal = !strcmp(x[c[4]], "causal");
        r->q_heads = strtoll(x[c[5]], NULL, 10), r->kv_heads = strtoll(x[c[6]], NULL, 10), r->fitted = x[c[7]][0] == '1';
        if (rs_layout_parse(x[c[2]], &r->layout) < 0 || rs_pass_parse(x[c[3]], &r->pass) < 0)
            rc = rs_errf(err, "%s:%ld: bad layout or pass", path, t.lines[i]);
        for (int k = 0; k < 3; k++) r->med[k] = num_cell(x[c[8 + 2 * k]]), r->p95[k] = num_cell(x[c[9 + 2 * k]]);
        r->mk_med = num_cell(x[c[14]]), r->mk_max = num_cell(x[c[15]]), r->x_meas = num_cell(x[c[16]]);
        r->x_model = num_cell(x[c[17]]), r->b_lo = num_cell(x[c[18]]), r->b_hi = num_cell(x[c[19]]);
        for (int k = 0; k < 4; k++) /* optional: tables written before the spread was kept lack them */
            (k < 3 ? &r->spread[k] : &r->mk_spread)[0] = sp[k] >= 0 ? num_cell(x[sp[k]]) : NAN;
    }
    rs_table_free(&t);
    return rc;
}

/* Every configuration's summary, then the held-out table (and the CSV files). */
static void val_print(val_t *v) {
    const rs_validate_in_t *in = v->in;
    rs_validate_row_t rows[RS_VALIDATE_MAX_CFG];
    rs_file_t csv = {0}, sum = {0};
    rs_err_t err;
    if (in->csv && rs_file_open(&csv, in->csv, &err) == 0)
        fprintf(csv.fp, "layout,pass,mask,B,t_comp_meas_s,t_comp_model_s,t_comm_meas_s,t_comm_model_s,t_step_meas_s,"
                        "t_step_model_s,makespan_meas_s,makespan_model_s,makespan_sim_s\n");
    for (int c = 0; c < v->nc; c++) val_print_cfg(v, &v->cs[c], csv.fp, &rows[c]);
    rs_validate_print_summary(v->out, rows, v->nc);
    if (csv.fp && rs_file_commit(&csv, &err) < 0) fprintf(stderr, "ringsim validate: %s\n", err.msg);
    if (in->summary_csv && rs_file_open(&sum, in->summary_csv, &err) == 0) {
        rs_validate_write_summary_csv(sum.fp, rows, v->nc);
        if (rs_file_commit(&sum, &err) < 0) fprintf(stderr, "ringsim validate: %s\n", err.msg);
    }
    fflush(v->out);
}

/* ---------------------------------------------------------------------------------------------------
 * The SPMD body and the study
 * ------------------------------------------------------------------------------------------------- */
static void val_free(val_t *v) {
    for (int c = 0; c < RS_VALIDATE_MAX_CFG; c++) {
        val_cfg_t *cf = &v->cs[c];
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) free(cf->ec[k]), free(cf->es[k]), free(cf->esp[k]);
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
                for (int m = 0; m < RS_CMP_METRIC_COUNT; m++) {
                    cf->ec[m] = calloc(cap, sizeof(double)), cf->es[m] = calloc(cap, sizeof(double));
                    cf->esp[m] = calloc(cap * RS_VALIDATE_MAX_ROUNDS, sizeof(double));
                    ok = ok && cf->ec[m] && cf->es[m] && cf->esp[m];
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
            rc = val_predict_point(v, &v->cs[c], i);
            rs_meter_update(&v->meter, runs + (double)c * in->n_b + i + 1, "predict B=%lld", (long long)in->b[i]);
        }
    rs_meter_end(&v->meter);
    if (rc == RS_EXIT_OK && job->rank == 0) val_print(v);
    val_free(v);
    return rc;
}

int rs_study_validate(const rs_validate_in_t *in, rs_err_t *err) {
    return rs_measure_run(in->backend, &in->job, val_body, (void *)in, err);
}
