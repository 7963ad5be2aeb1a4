/* study_validate.c - the validation study (study_validate.h). Phases, each a function: calibrate
 * (or load a calibrated profile), measure (rounds over the sweep, calibration samples interleaved),
 * refit the model's inputs from the interleaved samples, predict and compare per B, report. */
#include "study_validate.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "setup.h"
#include "study_calibrate.h"
#include "exec_launch.h"
#include "model.h"
#include "trace.h"

#define KCAP 4096 /* kernel samples per B and rank */
#define OCAP 64   /* overlap samples per B and rank */

void rs_validate_defaults(rs_validate_in_t *in) {
    memset(in, 0, sizeof *in);
    rs_measure_defaults("validate", &in->backend, &in->problem, &in->dtype, &in->job);
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
    for (int i = 0; i < in->n_b; i++) {
        rs_problem_t p = rs_problem_with_block(&in->problem, in->b[i]);
        if (rs_problem_validate(&p, err) != 0) return -1;
    }
    if (rs_measure_check(in->backend, &in->problem, in->dtype, &in->job, err) < 0) return -1;
    if (in->problem.n_ranks < 2)
        return rs_errf(err, "--ranks %lld: validation needs a ring of at least 2", (long long)in->problem.n_ranks);
    rs_hw_t hw;
    if (in->calibrated && rs_hw_load(in->calibrated, &hw, err) < 0) return -1;
    return 0;
}

/* ---------------------------------------------------------------------------------------------------
 * One rank's state
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    rs_trace_summary_t meas, pred, sim; /* typical step, makespan */
    bool has_sim;
    double b_star;                       /* closed form's B* */
} row_t;

typedef struct {
    const rs_validate_in_t *in;
    const rs_exec_job_t *job;
    rs_problem_t prob;                   /* at the executor's kernel tile: the schedule counts what it runs */
    const char *mode;                    /* threads, loopback or the MPI progress mode, for the notes */
    FILE *out;                           /* rank 0's report */
    rs_calib_t calib;                    /* the calibration (rank 0's holds the medians) */
    rs_hw_t hw;                          /* the profile the predictions use */
    rs_machine_t m;                      /* its machine (rank 0) */
    int rounds;                          /* rounds run */
    rs_trace_t *meas[RS_VALIDATE_MAX_B][RS_VALIDATE_MAX_ROUNDS]; /* rank 0: measured trace per B and round */
    double (*ksmp)[KCAP];                /* [n_b][KCAP] kernel samples at each B */
    size_t nk[RS_VALIDATE_MAX_B];
    uint64_t kflops[RS_VALIDATE_MAX_B];
    double (*oend)[OCAP], (*obusy)[OCAP], (*oalone)[OCAP]; /* [n_b][OCAP] overlap samples */
    size_t no[RS_VALIDATE_MAX_B];
    row_t rows[RS_VALIDATE_MAX_B];       /* rank 0: per B */
    double *ec[RS_CMP_METRIC_COUNT];     /* |error| of every (rank, step) point: model vs measured */
    double *es[RS_CMP_METRIC_COUNT];     /* simulator vs measured */
    size_t nec[RS_CMP_METRIC_COUNT], nes[RS_CMP_METRIC_COUNT];
    double mk_err[RS_VALIDATE_MAX_B];    /* makespan error per B, model */
    double mk_err_sim[RS_VALIDATE_MAX_B];
    int n_sim;
    const rs_backend_ops_t *sim;         /* the simulator while it runs */
    char sim_note[300];                  /* why it does not */
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

/* Collect |rel err| of every (rank, step) point of metric into v. */
static void collect(const rs_compare_t *cmp, rs_cmp_metric_t metric, double *v, size_t *n) {
    for (size_t i = 0; i < cmp->n_points; i++)
        if (cmp->points[i].metric == metric && isfinite(cmp->points[i].rel_err)) v[(*n)++] = fabs(cmp->points[i].rel_err);
}

static int write_pair(const char *dir, int64_t B, const char *what, const rs_trace_t *t, rs_err_t *err) {
    char path[1200];
    snprintf(path, sizeof path, "%s/validate-B%lld-%s.csv", dir, (long long)B, what);
    return rs_trace_write_csv(t, path, err);
}

/* ---------------------------------------------------------------------------------------------------
 * Phases
 * ------------------------------------------------------------------------------------------------- */
/* Calibrate (or load --calibrated); rank 0 builds the machine. Returns an exit code. */
static int val_calibrate(val_t *v) {
    const rs_validate_in_t *in = v->in;
    const rs_exec_job_t *job = v->job;
    rs_err_t err = {{0}};
    if (in->calibrated) {
        if (rs_hw_load(in->calibrated, &v->hw, &err) < 0) {
            if (job->rank == 0) fprintf(stderr, "ringsim validate: %s\n", err.msg);
            return RS_EXIT_USAGE;
        }
    } else {
        if (rs_calibrate(&v->prob, job->cops, job->tops, job->ts, &in->calib, &v->calib, &err) < 0) {
            fprintf(stderr, "ringsim validate: rank %lld: calibration: %s\n", (long long)job->rank, err.msg);
            return RS_EXIT_FAIL;
        }
        if (job->rank == 0) {
            char note[256], name[RS_NAME_LEN];
            snprintf(note, sizeof note, "ringsim validate calibration, %lld ranks, progress %s; %.80s", (long long)job->n_ranks,
                     v->mode, job->be->compute_for(RS_DTYPE_FP32) ? rs_exec_blas_version() : job->cops->name);
            snprintf(name, sizeof name, "%s-validate", job->be->name);
            rs_calib_to_hw(&v->calib, name, note, job->n_ranks, in->dtype, &v->hw);
            fprintf(v->out, "# ringsim validate: calibration (%lld ranks, progress %s)\n", (long long)job->n_ranks, v->mode);
            rs_calib_print(&v->calib, v->out);
        }
    }
    if (job->rank == 0 && rs_machine_from_hw(&v->hw, in->dtype, &v->m, &err) < 0) {
        fprintf(stderr, "ringsim validate: %s\n", err.msg);
        return RS_EXIT_FAIL;
    }
    v->m.loopback = job->loopback != NULL; /* one device playing each rank alone: the walk's loopback machine */
    return RS_EXIT_OK;
}

/* Rounds over the sweep: at every B the kernel alone and the overlap sample (when calibrating), then
 * the measured run; rank 0 keeps each round's trace. Returns an exit code. */
static int val_measure(val_t *v) {
    const rs_validate_in_t *in = v->in;
    const rs_exec_job_t *job = v->job;
    const int64_t rank = job->rank, N = job->n_ranks;
    rs_err_t err = {{0}};
    for (int r = 0; r < v->rounds; r++)
        for (int i = 0; i < in->n_b; i++) {
            rs_problem_t p = rs_problem_with_block(&v->prob, in->b[i]);
            rs_schedule_t *s = rs_schedule_create(&p, &err);
            if (!s) {
                if (rank == 0) fprintf(stderr, "ringsim validate: B=%lld: %s\n", (long long)in->b[i], err.msg);
                return RS_EXIT_USAGE;
            }
            int rc = RS_EXIT_OK;
            if (!in->calibrated && rs_calib_kernel_point(&v->prob, in->b[i], job->cops, job->local_rank,
                                                        in->calib.min_time_s / v->rounds, 2, v->ksmp[i], KCAP, &v->nk[i],
                                                        &v->kflops[i], &err) < 0)
                rc = fail(v, RS_EXIT_FAIL, "rank %lld: kernel sample B=%lld: %s", (long long)rank, (long long)in->b[i], err.msg);
            if (rc == RS_EXIT_OK && !in->calibrated && N >= 2 &&
                rs_calib_overlap_samples(&v->prob, in->b[i], job->cops, job->local_rank, job->tops, job->ts, 2,
                                         in->exec.timeout_s, v->oend[i], v->obusy[i], v->oalone[i], OCAP, &v->no[i], &err) < 0)
                rc = fail(v, RS_EXIT_FAIL, "rank %lld: overlap sample B=%lld: %s", (long long)rank, (long long)in->b[i], err.msg);
            rs_trace_t *tr = rank == 0 && rc == RS_EXIT_OK ? rs_trace_create(job->be->source) : NULL;
            rs_exec_result_t res;
            if (rc == RS_EXIT_OK && rs_exec_job_run(job, s, &in->exec, tr, &res, &err) < 0)
                rc = fail(v, RS_EXIT_FAIL, "B=%lld: %s", (long long)in->b[i], err.msg);
            rs_schedule_free(s);
            if (rc != RS_EXIT_OK) {
                rs_trace_free(tr);
                return rc;
            }
            if (tr) rs_trace_sort(tr);
            v->meas[i][r] = tr;
        }
    return RS_EXIT_OK;
}

/* F_eff at the sweep's B from the interleaved kernel samples: each rank's median kernel time per B;
 * F_eff(B) is the fastest rank's rate, and a rank that is slower at every size (its core shared
 * with other work) is a straggler in the model, by its median ratio to the fastest. */
static int val_refit_kernel(val_t *v) {
    const rs_validate_in_t *in = v->in;
    const rs_exec_job_t *job = v->job;
    const int64_t P = job->n_procs; /* the ranks that gather: N, or 1 for one device playing them all */
    rs_err_t err = {{0}};
    double *kt = job->rank == 0 ? calloc((size_t)(P * in->n_b), sizeof *kt) : NULL;
    if (job->rank == 0 && !kt) return fail(v, RS_EXIT_FAIL, "out of memory");
    int rc = RS_EXIT_OK;
    for (int i = 0; i < in->n_b && rc == RS_EXIT_OK; i++)
        if (rs_calib_rank_values(job->tops, job->ts, v->ksmp[i], v->nk[i], in->exec.timeout_s,
                                 kt ? kt + (size_t)i * (size_t)P : NULL, &err) < 0) {
            fprintf(stderr, "ringsim validate: rank %lld: %s\n", (long long)job->rank, err.msg);
            rc = RS_EXIT_FAIL;
        }
    double *fr = job->rank == 0 && rc == RS_EXIT_OK ? malloc(sizeof(double) * (size_t)P) : NULL;
    if (fr) {
        double fastest[RS_VALIDATE_MAX_B];
        rs_calib_rank_factors(kt, in->n_b, P, fastest, fr);
        rs_calibration_t *model = &v->calib.model;
        for (int i = 0; i < in->n_b; i++) {
            const double f = (double)v->kflops[i] / fastest[i], peak = v->calib.flops_peak;
            for (int e = 0; e < model->n_eff; e++)
                if ((int64_t)model->eff[e].block_tokens == in->b[i]) model->eff[e].efficiency = f / peak;
        }
        rs_perturb_t *q = &v->m.perturb;
        q->n_stragglers = 0;
        fprintf(v->out, "# per-rank kernel time over the fastest rank's (median over the sweep):");
        for (int64_t r = 0; r < P; r++) {
            fprintf(v->out, " rank %lld x%.3f", (long long)r, fr[r]);
            if (fr[r] > 1.005 && q->n_stragglers < RS_MAX_PERTURB)
                q->straggler_rank[q->n_stragglers] = r, q->straggler_factor[q->n_stragglers++] = fr[r];
        }
        fprintf(v->out, "%s\n", q->n_stragglers ? " (the slower ones are stragglers in the model)" : "");
    }
    free(fr);
    free(kt);
    return rc;
}

/* The overlap points at the sweep's B from the interleaved samples replace the calibration's; host
 * cost and overlap curve are fitted again over all points. */
static int val_refit_overlap(val_t *v) {
    const rs_validate_in_t *in = v->in;
    const rs_exec_job_t *job = v->job;
    rs_calib_t *c = &v->calib;
    rs_err_t err = {{0}};
    for (int i = 0; job->n_ranks >= 2 && i < in->n_b; i++) {
        double e_s, busy_s, alone_s;
        if (rs_calib_rank_median(job->tops, job->ts, v->oend[i], v->no[i], in->exec.timeout_s, &e_s, &err) < 0 ||
            rs_calib_rank_median(job->tops, job->ts, v->obusy[i], v->no[i], in->exec.timeout_s, &busy_s, &err) < 0 ||
            rs_calib_rank_median(job->tops, job->ts, v->oalone[i], v->no[i], in->exec.timeout_s, &alone_s, &err) < 0) {
            fprintf(stderr, "ringsim validate: rank %lld: %s\n", (long long)job->rank, err.msg);
            return RS_EXIT_FAIL;
        }
        for (int k = 0; job->rank == 0 && k < c->n_ov; k++)
            if (c->ov[k].block == in->b[i]) {
                c->ov[k].t_end_s = e_s, c->ov[k].t_comp_busy_s = busy_s, c->ov[k].t_comp_s = alone_s;
                c->ov[k].sigma = alone_s > 0 ? fmax(1.0, busy_s / alone_s) : 1;
            }
    }
    if (job->rank != 0 || job->n_ranks < 2 || c->n_ov == 0) return RS_EXIT_OK;
    rs_calib_fit_overlap(c);
    fprintf(v->out, "# overlap points from samples interleaved with the runs (host cost and curve fitted again):\n"
                    "#      B        bytes      t_comp_s  t_comp_busy_s        t_end_s   eta_pt\n");
    for (int k = 0; k < c->n_ov; k++)
        fprintf(v->out, "  %6lld %12llu %13.6g %14.6g %14.6g %8.3f\n", (long long)c->ov[k].block,
                (unsigned long long)c->ov[k].bytes, c->ov[k].t_comp_s, c->ov[k].t_comp_busy_s, c->ov[k].t_end_s, c->ov[k].eta);
    fprintf(v->out, "# host cost %.3g s + %.3g s/byte (median |error| of the busy compute %.1f%%)\n", c->model.host_s_per_xfer,
            c->model.host_s_per_byte, 100 * c->host_fit_err);
    return RS_EXIT_OK;
}

/* The model's inputs from the interleaved samples (when calibrating): F_eff(B), stragglers, host
 * cost and overlap curve, renormalised to the largest rate; --save-profile writes them. */
static int val_refit(val_t *v) {
    if (v->in->calibrated) return RS_EXIT_OK;
    int rc = val_refit_kernel(v);
    if (rc == RS_EXIT_OK) rc = val_refit_overlap(v);
    if (v->job->rank != 0) return rc;
    rs_calibration_t *model = &v->calib.model;
    double mx = 0; /* renormalise: the peak is the largest measured rate */
    for (int e = 0; e < model->n_eff; e++) mx = fmax(mx, model->eff[e].efficiency);
    for (int e = 0; e < model->n_eff; e++) model->eff[e].efficiency /= mx;
    v->calib.flops_peak *= mx;
    v->m.cal = *model; /* the machine the predictions use: the calibration, updated by the samples */
    v->m.flops_per_s = v->calib.flops_peak;
    fprintf(v->out, "# F_eff(B) from kernel samples interleaved with the runs:\n#      B      GFLOP/s\n");
    for (int e = 0; e < v->m.cal.n_eff; e++)
        fprintf(v->out, "  %6lld %12.3f\n", (long long)v->m.cal.eff[e].block_tokens,
                v->m.flops_per_s * v->m.cal.eff[e].efficiency * 1e-9);
    if (v->in->save_profile && rc == RS_EXIT_OK) {
        rs_err_t err;
        v->hw.flops_per_s[v->in->dtype] = v->m.flops_per_s;
        v->hw.cal = v->m.cal;
        if (rs_hw_write_json(&v->hw, v->in->save_profile, v->hw.calibration_note, &err) < 0) {
            fprintf(stderr, "ringsim validate: %s\n", err.msg);
            return RS_EXIT_FAIL;
        }
    }
    return rc;
}

/* The simulator at one B, against the measurement tm (rank 0). */
static void val_simulate(val_t *v, int i, const rs_schedule_t *s, const rs_problem_t *p, const rs_trace_t *tm) {
    rs_err_t err = {{0}}, why;
    if (v->sim && v->sim->can_run(p, &v->m, &why) != 0) { /* the one rule (its can_run) decides */
        snprintf(v->sim_note, sizeof v->sim_note, "%.290s", why.msg);
        v->sim = NULL;
    }
    if (!v->sim) return;
    rs_trace_t *tsim = rs_trace_create(v->sim->source);
    rs_run_summary_t sr;
    rs_compare_t cs;
    row_t *row = &v->rows[i];
    if (tsim && v->sim->run(s, &v->m, NULL, tsim, &sr, &err) == 0 && rs_trace_summarize(tsim, p->pass, &row->sim, &err) == 0 &&
        rs_compare_traces(tm, tsim, &cs, &err) == 0) {
        row->has_sim = true;
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) collect(&cs, (rs_cmp_metric_t)k, v->es[k], &v->nes[k]);
        v->mk_err_sim[v->n_sim++] = fabs(rel(row->sim.makespan_s, row->meas.makespan_s));
        rs_compare_free(&cs);
        if (v->in->trace_dir) write_pair(v->in->trace_dir, v->in->b[i], "sim", tsim, &err);
    } else {
        v->sim = NULL;
        snprintf(v->sim_note, sizeof v->sim_note, "simulator failed (see stderr)");
        fprintf(stderr, "ringsim validate: sim, B=%lld: %s\n", (long long)v->in->b[i], err.msg);
    }
    rs_trace_free(tsim);
}

/* Per B: the measured trace (medians over the rounds) against the walk's and the simulator's. */
static int val_predict(val_t *v) {
    const rs_validate_in_t *in = v->in;
    rs_err_t err = {{0}};
    for (int i = 0; i < in->n_b; i++) {
        rs_problem_t p = rs_problem_with_block(&v->prob, in->b[i]);
        rs_schedule_t *s = rs_schedule_create(&p, &err);
        if (!s) return RS_EXIT_USAGE;
        if (v->job->rank != 0) {
            rs_schedule_free(s);
            continue;
        }
        int rc = RS_EXIT_OK;
        rs_trace_t *tm = merge_rounds(v->meas[i], v->rounds), *tp = rs_trace_create("model");
        rs_run_summary_t w;
        rs_closed_t cf;
        rs_compare_t cmp;
        if (!tm || !tp || rs_walk_backend.run(s, &v->m, NULL, tp, &w, &err) < 0 || rs_model_b_star(&p, &v->m, &cf, &err) < 0 ||
            rs_trace_summarize(tm, p.pass, &v->rows[i].meas, &err) < 0 ||
            rs_trace_summarize(tp, p.pass, &v->rows[i].pred, &err) < 0 || rs_compare_traces(tm, tp, &cmp, &err) < 0) {
            fprintf(stderr, "ringsim validate: B=%lld: %s\n", (long long)in->b[i], err.msg);
            rc = RS_EXIT_FAIL;
        } else {
            v->rows[i].b_star = cf.b_star_tokens;
            for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) collect(&cmp, (rs_cmp_metric_t)k, v->ec[k], &v->nec[k]);
            v->mk_err[i] = rel(v->rows[i].pred.makespan_s, v->rows[i].meas.makespan_s);
            rs_compare_free(&cmp);
            val_simulate(v, i, s, &p, tm);
        }
        if (rc == RS_EXIT_OK && in->trace_dir &&
            (write_pair(in->trace_dir, in->b[i], "exec", tm, &err) < 0 || write_pair(in->trace_dir, in->b[i], "model", tp, &err) < 0)) {
            fprintf(stderr, "ringsim validate: %s\n", err.msg);
            rc = RS_EXIT_FAIL;
        }
        rs_trace_free(tp);
        rs_trace_free(tm);
        rs_schedule_free(s);
        if (rc != RS_EXIT_OK) return rc;
    }
    return RS_EXIT_OK;
}

/* "  t_comp    n  median  p95  max" for the |errors| of one metric (sorted in place). */
static void print_stats(FILE *out, const char *name, double *e, size_t n) {
    double md = rs_median(e, n), p95 = rs_percentile(e, n, 0.95), mx = n ? e[n - 1] : NAN;
    fprintf(out, "  %-8s %8zu %8.3f %8.3f %8.3f\n", name, n, md, p95, mx);
}

/* The per-B table (and --csv). Fills the crossover inputs. */
static void val_print_rows(val_t *v, double *bb, double *mc, double *mm, double *pc, double *pm, double *ma, double *pa) {
    const rs_validate_in_t *in = v->in;
    const rs_problem_t *p = &in->problem;
    const rs_machine_t *m = &v->m;
    rs_err_t err;
    char ovd[RS_MAX_OVERLAP_POINTS * 24 + 160];
    rs_machine_overlap_desc(m, ovd, sizeof ovd);
    fprintf(v->out,
            "# ringsim validate: N=%lld heads=%lld/%lld d=%lld batch=%lld %s %s %s, reps %d (warmup %d), progress %s\n"
            "# profile: F_peak %.4g GFLOP/s, W %.4g GB/s, L %.3g s, %d eff points; %s\n"
            "# times in seconds; err = (model - measured) / measured; T_* are medians over (rank, step)\n",
            (long long)v->job->n_ranks, (long long)p->q_heads, (long long)p->kv_heads, (long long)p->head_dim,
            (long long)p->batch, rs_layout_name(p->layout), rs_pass_name(p->pass), p->causal ? "causal" : "non-causal",
            in->exec.reps, in->exec.warmup, v->mode, m->flops_per_s * 1e-9, m->intra.bw_bytes_per_s * 1e-9,
            m->intra.latency_s, m->cal.n_eff, ovd);
    fprintf(v->out, "# %6s %11s %11s %7s %11s %11s %7s %11s %11s %7s %11s %11s %7s %8s\n", "B", "comp_meas", "comp_model",
            "err", "comm_meas", "comm_model", "err", "step_meas", "step_model", "err", "mkspan_meas", "mkspan_model", "err",
            "sim_err");
    rs_file_t csv = {0};
    if (in->csv && rs_file_open(&csv, in->csv, &err) == 0)
        fprintf(csv.fp, "B,t_comp_meas_s,t_comp_model_s,t_comm_meas_s,t_comm_model_s,t_step_meas_s,t_step_model_s,"
                        "makespan_meas_s,makespan_model_s,makespan_sim_s\n");
    for (int i = 0; i < in->n_b; i++) {
        const row_t *r = &v->rows[i];
        char simc[16] = "n/a";
        if (r->has_sim) snprintf(simc, sizeof simc, "%+.3f", rel(r->sim.makespan_s, r->meas.makespan_s));
        fprintf(v->out, "  %6lld %11.4g %11.4g %+7.3f %11.4g %11.4g %+7.3f %11.4g %11.4g %+7.3f %11.4g %11.4g %+7.3f %8s\n",
                (long long)in->b[i], r->meas.t_comp_s, r->pred.t_comp_s, rel(r->pred.t_comp_s, r->meas.t_comp_s),
                r->meas.t_comm_s, r->pred.t_comm_s, rel(r->pred.t_comm_s, r->meas.t_comm_s), r->meas.t_step_s,
                r->pred.t_step_s, rel(r->pred.t_step_s, r->meas.t_step_s), r->meas.makespan_s, r->pred.makespan_s,
                v->mk_err[i], simc);
        if (csv.fp)
            fprintf(csv.fp, "%lld,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", (long long)in->b[i], r->meas.t_comp_s,
                    r->pred.t_comp_s, r->meas.t_comm_s, r->pred.t_comm_s, r->meas.t_step_s, r->pred.t_step_s,
                    r->meas.makespan_s, r->pred.makespan_s, r->has_sim ? r->sim.makespan_s : NAN);
        ma[i] = r->meas.t_comp_alone_s, pa[i] = r->pred.t_comp_alone_s;
        bb[i] = (double)in->b[i], mc[i] = r->meas.t_comp_xfer_s, mm[i] = r->meas.t_comm_s, pc[i] = r->pred.t_comp_xfer_s,
        pm[i] = r->pred.t_comm_s;
    }
    if (csv.fp && rs_file_commit(&csv, &err) < 0) fprintf(stderr, "ringsim validate: %s\n", err.msg);
}

/* The report's summary: per-B rows, errors over the sweep, the simulator's, the crossovers. */
static void val_print(val_t *v) {
    const size_t nb = (size_t)v->in->n_b;
    double bb[RS_VALIDATE_MAX_B], mc[RS_VALIDATE_MAX_B], mm[RS_VALIDATE_MAX_B], pc[RS_VALIDATE_MAX_B],
        pm[RS_VALIDATE_MAX_B], ma[RS_VALIDATE_MAX_B], pa[RS_VALIDATE_MAX_B], mk[RS_VALIDATE_MAX_B];
    val_print_rows(v, bb, mc, mm, pc, pm, ma, pa);
    fprintf(v->out, "# per-(rank, step) |error| over the sweep, model vs measured:\n# %-8s %8s %8s %8s %8s\n", "metric",
            "n", "median", "p95", "max");
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) print_stats(v->out, rs_cmp_metric_name((rs_cmp_metric_t)k), v->ec[k], v->nec[k]);
    for (size_t i = 0; i < nb; i++) mk[i] = fabs(v->mk_err[i]);
    print_stats(v->out, "makespan", mk, nb);
    if (v->n_sim > 0) {
        fprintf(v->out, "# simulator vs measured:\n");
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++)
            print_stats(v->out, rs_cmp_metric_name((rs_cmp_metric_t)k), v->es[k], v->nes[k]);
        print_stats(v->out, "makespan", v->mk_err_sim, (size_t)v->n_sim);
    } else {
        fprintf(v->out, "# simulator: not run (%s)\n", v->sim_note);
    }
    /* Crossovers, measured and predicted by the same estimator (a log-log line through 2 points on
     * each side of the sign change). The seed's threshold compares the transfer with the block's
     * compute alone (the steps without a transfer: the forward's last step); the exposed one with
     * the compute of the same steps (host cost included): past it the step waits. */
    double xa = rs_crossover_b_fit(bb, ma, mm, nb, 2), ya = rs_crossover_b_fit(bb, pa, pm, nb, 2);
    double xm = rs_crossover_b_fit(bb, mc, mm, nb, 2), xp = rs_crossover_b_fit(bb, pc, pm, nb, 2);
    fprintf(v->out, "# crossover B (T_comm = T_comp alone, the seed's threshold): measured %.4g, model walk %.4g (err %+.3f)\n",
            xa, ya, isfinite(xa) && isfinite(ya) ? rel(ya, xa) : NAN);
    fprintf(v->out, "# crossover B (T_comm = T_comp of the same steps, transfer exposed): measured %.4g, model walk %.4g "
                    "(err %+.3f), closed-form B* %.4g\n",
            xm, xp, isfinite(xm) && isfinite(xp) ? rel(xp, xm) : NAN, v->rows[0].b_star);
    fflush(v->out);
}

/* ---------------------------------------------------------------------------------------------------
 * The SPMD body and the study
 * ------------------------------------------------------------------------------------------------- */
static void val_free(val_t *v) {
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) free(v->ec[k]), free(v->es[k]);
    for (int i = 0; i < RS_VALIDATE_MAX_B; i++)
        for (int r = 0; r < RS_VALIDATE_MAX_ROUNDS; r++) rs_trace_free(v->meas[i][r]);
    free(v->ksmp), free(v->oend), free(v->obusy), free(v->oalone);
    free(v);
}

static val_t *val_new(const rs_validate_in_t *in, const rs_exec_job_t *job) {
    val_t *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->in = in, v->job = job, v->out = in->out;
    v->prob = in->problem;
    if (job->be->kernel_tile) job->be->kernel_tile(v->prob.pass, v->prob.head_dim, &v->prob.tile_q, &v->prob.tile_k);
    v->mode = strcmp(job->launch, "mpirun") ? job->launch : rs_progress_name(in->job.progress);
    v->rounds = in->rounds < RS_VALIDATE_MAX_ROUNDS ? in->rounds : RS_VALIDATE_MAX_ROUNDS;
    size_t cap = 0;
    for (int i = 0; i < in->n_b; i++) cap += (size_t)(job->n_ranks * (job->n_ranks + 1)) * 2;
    bool ok = true;
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) {
        v->ec[k] = calloc(cap + 1, sizeof(double)), v->es[k] = calloc(cap + 1, sizeof(double));
        ok = ok && v->ec[k] && v->es[k];
    }
    v->ksmp = calloc((size_t)in->n_b, sizeof *v->ksmp);
    v->oend = calloc((size_t)in->n_b, sizeof *v->oend);
    v->obusy = calloc((size_t)in->n_b, sizeof *v->obusy);
    v->oalone = calloc((size_t)in->n_b, sizeof *v->oalone);
    v->sim = in->no_sim ? NULL : rs_backend_find("sim");
    snprintf(v->sim_note, sizeof v->sim_note, "%s", in->no_sim ? "--no-sim" : "not built");
    if (ok && v->ksmp && v->oend && v->obusy && v->oalone) return v;
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
    int rc = val_calibrate(v);
    if (rc == RS_EXIT_OK) rc = val_measure(v);
    if (rc == RS_EXIT_OK) rc = val_refit(v);
    if (rc == RS_EXIT_OK) rc = val_predict(v);
    if (rc == RS_EXIT_OK && job->rank == 0) val_print(v);
    val_free(v);
    return rc;
}

int rs_study_validate(const rs_validate_in_t *in) {
    return rs_exec_spmd(in->backend->exec, &in->job, val_body, (void *)in);
}
