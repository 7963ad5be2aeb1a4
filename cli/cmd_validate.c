/* cmd_validate.c - `ringsim validate`: calibrate this machine, then for a sweep of B across the
 * overlap threshold predict (the model's critical-path walk, and the SimGrid simulator when built)
 * and measure (the CPU executor over MPI) the same schedule, and compare them (traces/compare.h):
 * per B the typical T_comp, T_comm, T_step and the makespan; over the sweep the per-(rank, step)
 * errors (median, p95, max) and the crossover B where T_comm overtakes T_comp, predicted vs
 * measured. Runs as one MPI job (it re-starts itself under mpirun), so calibration and measurement
 * see the same processes, cores and transport. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "trace.h"

#ifdef RINGSIM_HAVE_EXEC
#include "backend.h"
#include "calibrate.h"
#include "exec.h"
#include "exec_backend.h"
#include "exec_launch.h"

#define MAX_B 32

enum { OPT_ROUNDS = 1999, OPT_BLOCKS = 2000, OPT_LAUNCH, OPT_PROGRESS, OPT_REPS, OPT_WARMUP, OPT_CALIBRATED, OPT_SAVE_PROFILE, OPT_CSV,
       OPT_TRACE_DIR, OPT_NO_SIM, OPT_TIMEOUT, OPT_MIN_TIME, OPT_BACKEND, OPT_LOOPBACK, OPT_HELP };

static const struct option own_opts[] = {
    {"blocks", required_argument, NULL, OPT_BLOCKS},
    {"rounds", required_argument, NULL, OPT_ROUNDS},
    {"launch", required_argument, NULL, OPT_LAUNCH},
    {"progress", required_argument, NULL, OPT_PROGRESS},
    {"reps", required_argument, NULL, OPT_REPS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"calibrated", required_argument, NULL, OPT_CALIBRATED},
    {"save-profile", required_argument, NULL, OPT_SAVE_PROFILE},
    {"csv", required_argument, NULL, OPT_CSV},
    {"trace-dir", required_argument, NULL, OPT_TRACE_DIR},
    {"no-sim", no_argument, NULL, OPT_NO_SIM},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"min-time", required_argument, NULL, OPT_MIN_TIME},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"loopback", required_argument, NULL, OPT_LOOPBACK},
    {"help", no_argument, NULL, OPT_HELP},
};

static void help(void) {
    printf("usage: ringsim validate [options]\n\n"
           "Calibrate (ringsim calibrate), then for every B of a sweep across the overlap threshold: predict\n"
           "(critical-path walk; SimGrid when built and the overlap model allows it) and measure (CPU executor,\n"
           "MPI) the same schedule; print per-B T_comp, T_comm, T_step and makespan, predicted vs measured, the\n"
           "per-(rank, step) errors over the sweep (median, p95, max) and the crossover B where T_comm\n"
           "overtakes T_comp. One MPI job: re-started under mpirun when not already.\n\n"
           "      --blocks LIST        B sweep, comma list (K suffix)           [8,16,...,1024]\n"
           "      --calibrated FILE    use this calibrated profile instead of calibrating now\n"
           "      --save-profile FILE  write the profile the predictions used  [none]\n"
           "      --min-time S         calibration time per block size          [0.05]\n"
           "      --rounds R           rounds over the sweep; each B is measured --reps times per\n"
           "                           round and the medians are taken over all rounds, so a burst of\n"
           "                           load elsewhere hits every B a little         [5]\n"
           "      --reps N             measured repetitions per B and round     [7]\n"
           "      --warmup N           unmeasured repetitions per B             [1]\n"
           "      --progress none|poll|thread  MPI progress                     [poll]\n"
           "      --launch mpirun|threads  ranks as MPI processes or threads    [mpirun if on PATH]\n"
           "      --no-sim             skip the simulator                       [sim when built]\n"
           "      --csv FILE           per-B rows as CSV                        [none]\n"
           "      --trace-dir DIR      write measured and predicted traces per B [none]\n"
           "      --timeout S          give up a wait after S seconds           [60]\n"
           "      --backend cpu|gpu    the executor to calibrate and measure     [cpu]\n"
           "      --loopback KIND      one device plays every rank of the ring in turn, its transfers\n"
           "                           to itself: cpu: local; gpu: nccl or copy  [off]\n"
           "  -h, --help               this help\n\n"
           "Defaults here: --ranks 2 (under mpirun: its -np) --heads 2 --kv-heads 2 --head-dim 128 --dtype fp32 (gpu: bf16)\n"
           "--no-causal --layout contiguous --pass forward (the seed's full-block analysis). S = N * B.\n\n");
    rs_cli_common_help(stdout);
}

typedef struct {
    rs_problem_t problem;       /* shape, layout, pass, causal (S set per B) */
    int n_b;                    /* sweep */
    int64_t b[MAX_B];
    rs_calib_opts_t co;         /* calibration */
    rs_exec_opts_t eo;          /* executor */
    const char *calibrated;     /* existing profile, or NULL */
    const char *save_profile;   /* write the calibrated profile */
    const char *csv, *trace_dir;
    const char *progress;       /* name, for the note */
    rs_dtype_t dtype;           /* what the executor computes in */
    bool no_sim;
    int rounds;                 /* rounds over the sweep */
} val_job_t;

typedef struct {
    rs_trace_summary_t meas, pred, sim; /* typical step, makespan */
    bool has_sim;
    double b_star;              /* closed form's B* */
} row_t;

static double rel(double pred, double meas) { return (pred - meas) / meas; }

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
    double st[16], du[16];
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

static int val_body(const rs_exec_job_t *job, void *arg) {
    val_job_t *j = arg;
    const rs_transport_ops_t *tops = job->tops;
    void *ts = job->ts;
    /* N: the ring; P: the ranks that take part in collectives (1 when one device plays them all) */
    const int64_t rank = job->rank, N = job->n_ranks, P = job->n_procs;
    const rs_dtype_t dtype = j->dtype;
    const char *mode = strcmp(job->launch, "mpirun") ? job->launch : j->progress; /* threads, loopback or MPI progress */
    rs_problem_t prob = j->problem; /* at the executor's kernel tile: the schedule counts what it runs */
    if (job->be->kernel_tile) job->be->kernel_tile(prob.pass, prob.head_dim, &prob.tile_q, &prob.tile_k);
    rs_err_t err = {{0}};
    rs_hw_t hw;
    static rs_calib_t c; /* the calibration (rank 0's holds the medians) */
    /* ---- calibration ---- */
    if (j->calibrated) {
        if (rs_hw_load(j->calibrated, &hw, &err) < 0) {
            if (rank == 0) fprintf(stderr, "ringsim validate: %s\n", err.msg);
            return RS_EXIT_USAGE;
        }
    } else {
        if (rs_calibrate(&prob, job->cops, tops, ts, &j->co, &c, &err) < 0) {
            fprintf(stderr, "ringsim validate: rank %lld: calibration: %s\n", (long long)rank, err.msg);
            return RS_EXIT_FAIL;
        }
        if (rank == 0) {
            char note[256];
            snprintf(note, sizeof note, "ringsim validate calibration, %lld ranks, progress %s; %.80s", (long long)N,
                     mode, job->be->compute_for(RS_DTYPE_FP32) ? rs_exec_blas_version() : job->cops->name);
            char name[RS_NAME_LEN];
            snprintf(name, sizeof name, "%s-validate", job->be->name);
            rs_calib_to_hw(&c, name, note, N, dtype, &hw);
            printf("# ringsim validate: calibration (%lld ranks, progress %s)\n", (long long)N, mode);
            rs_calib_print(&c, stdout);
        }
    }
    rs_machine_t m;
    if (rank == 0 && rs_machine_from_hw(&hw, dtype, &m, &err) < 0) {
        fprintf(stderr, "ringsim validate: %s\n", err.msg);
        return RS_EXIT_FAIL;
    }
    m.loopback = job->loopback != NULL; /* one device playing each rank alone: the walk's loopback machine */
    /* ---- sweep ---- */
    row_t rows[MAX_B];
    memset(rows, 0, sizeof rows);
    size_t cap = 0;
    for (int i = 0; i < j->n_b; i++) cap += (size_t)(N * (N + 1)) * 2;
    double *ec[RS_CMP_METRIC_COUNT], *es[RS_CMP_METRIC_COUNT];
    size_t nec[RS_CMP_METRIC_COUNT] = {0}, nes[RS_CMP_METRIC_COUNT] = {0};
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) ec[k] = calloc(cap + 1, sizeof(double)), es[k] = calloc(cap + 1, sizeof(double));
    double mk_err[MAX_B], mk_err_sim[MAX_B];
    int n_sim = 0;
    const rs_backend_ops_t *sim = j->no_sim ? NULL : rs_backend_find("sim");
    char sim_note[300];
    snprintf(sim_note, sizeof sim_note, "%s", j->no_sim ? "--no-sim" : "not built");
    int exit_code = RS_EXIT_OK;
    /* measure: rounds over the sweep, then per-event medians over the rounds. Before each run the
     * kernel alone is timed at that B too (when calibrating), so F_eff(B) and the run see the
     * machine in the same state; F_eff(B) is then the median of all those samples. */
    rs_trace_t *meas[MAX_B][16] = {{0}};
    const int rounds = j->rounds < 16 ? j->rounds : 16;
#define KCAP 4096
    static double ksmp[MAX_B][KCAP];
    size_t nk[MAX_B] = {0};
    uint64_t kflops[MAX_B] = {0};
    /* the same for the overlap points (block step with its ring exchange): 2 per round and B */
#define OCAP 64
    static double oend[MAX_B][OCAP], obusy[MAX_B][OCAP], oalone[MAX_B][OCAP];
    size_t no[MAX_B] = {0};
    for (int r = 0; r < rounds && exit_code == RS_EXIT_OK; r++)
        for (int i = 0; i < j->n_b; i++) {
            rs_problem_t p = prob;
            p.seq_tokens = j->b[i] * N, p.n_ranks = N;
            rs_schedule_t *s = rs_schedule_create(&p, &err);
            if (!s) {
                if (rank == 0) fprintf(stderr, "ringsim validate: B=%lld: %s\n", (long long)j->b[i], err.msg);
                exit_code = RS_EXIT_USAGE;
                break;
            }
            if (!j->calibrated && rs_calib_kernel_point(&prob, j->b[i], job->cops, job->local_rank,
                                                       j->co.min_time_s / rounds, 2, ksmp[i], KCAP, &nk[i], &kflops[i], &err) < 0) {
                fprintf(stderr, "ringsim validate: rank %lld: kernel sample B=%lld: %s\n", (long long)rank, (long long)j->b[i], err.msg);
                rs_schedule_free(s);
                tops->abort(ts, RS_EXIT_FAIL);
                exit_code = RS_EXIT_FAIL;
                break;
            }
            if (!j->calibrated && N >= 2 &&
                rs_calib_overlap_samples(&prob, j->b[i], job->cops, job->local_rank, tops, ts, 2, j->eo.timeout_s,
                                         oend[i], obusy[i], oalone[i], OCAP, &no[i], &err) < 0) {
                fprintf(stderr, "ringsim validate: rank %lld: overlap sample B=%lld: %s\n", (long long)rank, (long long)j->b[i], err.msg);
                rs_schedule_free(s);
                tops->abort(ts, RS_EXIT_FAIL);
                exit_code = RS_EXIT_FAIL;
                break;
            }
            rs_trace_t *tr = rank == 0 ? rs_trace_create(job->be->source) : NULL;
            rs_exec_result_t res;
            int rr = rs_exec_job_run(job, s, &j->eo, tr, &res, &err);
            rs_schedule_free(s);
            if (rr < 0) {
                fprintf(stderr, "ringsim validate: B=%lld: %s\n", (long long)j->b[i], err.msg);
                rs_trace_free(tr);
                tops->abort(ts, RS_EXIT_FAIL);
                exit_code = RS_EXIT_FAIL;
                break;
            }
            if (tr) rs_trace_sort(tr);
            meas[i][r] = tr;
        }
    /* F_eff at the sweep's B from the interleaved samples replaces the calibration's points */
    if (!j->calibrated && exit_code == RS_EXIT_OK) {
        /* each rank's median kernel time per B: F_eff(B) is the fastest rank's rate, and a rank that
         * is slower at every size (its core shared with other work) is a straggler in the model,
         * by its median ratio to the fastest over the sweep */
        double *kt = rank == 0 ? calloc((size_t)(P * j->n_b), sizeof *kt) : NULL;
        if (rank == 0 && !kt) {
            fprintf(stderr, "ringsim validate: out of memory\n");
            tops->abort(ts, RS_EXIT_FAIL);
            return RS_EXIT_FAIL;
        }
        for (int i = 0; i < j->n_b; i++) {
            if (rs_calib_rank_values(tops, ts, ksmp[i], nk[i], j->eo.timeout_s, kt ? kt + (size_t)i * (size_t)P : NULL, &err) < 0) {
                fprintf(stderr, "ringsim validate: rank %lld: %s\n", (long long)rank, err.msg);
                exit_code = RS_EXIT_FAIL;
                break;
            }
        }
        double *fr = rank == 0 && exit_code == RS_EXIT_OK ? malloc(sizeof(double) * (size_t)P) : NULL;
        if (fr) {
            double fastest[MAX_B];
            rs_calib_rank_factors(kt, j->n_b, P, fastest, fr);
            for (int i = 0; i < j->n_b; i++) {
                const double f = (double)kflops[i] / fastest[i], peak = c.flops_peak;
                for (int e = 0; e < c.model.n_eff; e++)
                    if ((int64_t)c.model.eff[e].block_tokens == j->b[i]) c.model.eff[e].efficiency = f / peak;
            }
            m.perturb.n_stragglers = 0;
            printf("# per-rank kernel time over the fastest rank's (median over the sweep):");
            for (int64_t r = 0; r < P; r++) {
                printf(" rank %lld x%.3f", (long long)r, fr[r]);
                if (fr[r] > 1.005 && m.perturb.n_stragglers < RS_MAX_PERTURB)
                    m.perturb.straggler_rank[m.perturb.n_stragglers] = r, m.perturb.straggler_factor[m.perturb.n_stragglers++] = fr[r];
            }
            printf("%s\n", m.perturb.n_stragglers ? " (the slower ones are stragglers in the model)" : "");
        }
        free(fr);
        free(kt);
        /* the overlap points at the sweep's B from the interleaved samples replace the calibration's;
         * host cost and overlap curve are fitted again over all points */
        for (int i = 0; N >= 2 && i < j->n_b && exit_code == RS_EXIT_OK; i++) {
            double e_s, busy_s, alone_s;
            if (rs_calib_rank_median(tops, ts, oend[i], no[i], j->eo.timeout_s, &e_s, &err) < 0 ||
                rs_calib_rank_median(tops, ts, obusy[i], no[i], j->eo.timeout_s, &busy_s, &err) < 0 ||
                rs_calib_rank_median(tops, ts, oalone[i], no[i], j->eo.timeout_s, &alone_s, &err) < 0) {
                fprintf(stderr, "ringsim validate: rank %lld: %s\n", (long long)rank, err.msg);
                exit_code = RS_EXIT_FAIL;
                break;
            }
            for (int k = 0; rank == 0 && k < c.n_ov; k++)
                if (c.ov[k].block == j->b[i]) {
                    c.ov[k].t_end_s = e_s, c.ov[k].t_comp_busy_s = busy_s, c.ov[k].t_comp_s = alone_s;
                    c.ov[k].sigma = alone_s > 0 ? fmax(1.0, busy_s / alone_s) : 1;
                }
        }
        if (rank == 0 && N >= 2 && c.n_ov > 0 && exit_code == RS_EXIT_OK) {
            rs_calib_fit_overlap(&c);
            printf("# overlap points from samples interleaved with the runs (host cost and curve fitted again):\n"
                   "#      B        bytes      t_comp_s  t_comp_busy_s        t_end_s   eta_pt\n");
            for (int k = 0; k < c.n_ov; k++)
                printf("  %6lld %12llu %13.6g %14.6g %14.6g %8.3f\n", (long long)c.ov[k].block, (unsigned long long)c.ov[k].bytes,
                       c.ov[k].t_comp_s, c.ov[k].t_comp_busy_s, c.ov[k].t_end_s, c.ov[k].eta);
            printf("# host cost %.3g s + %.3g s/byte (median |error| of the busy compute %.1f%%)\n", c.model.host_s_per_xfer,
                   c.model.host_s_per_byte, 100 * c.host_fit_err);
        }
        if (rank == 0) { /* renormalise: the peak is the largest measured rate */
            double mx = 0;
            for (int e = 0; e < c.model.n_eff; e++) mx = fmax(mx, c.model.eff[e].efficiency);
            for (int e = 0; e < c.model.n_eff; e++) c.model.eff[e].efficiency /= mx;
            c.flops_peak *= mx;
            /* the machine the predictions use: the calibration, updated by the interleaved samples */
            m.cal = c.model;
            m.flops_per_s = c.flops_peak;
            printf("# F_eff(B) from kernel samples interleaved with the runs:\n#      B      GFLOP/s\n");
            for (int e = 0; e < m.cal.n_eff; e++)
                printf("  %6lld %12.3f\n", (long long)m.cal.eff[e].block_tokens, m.flops_per_s * m.cal.eff[e].efficiency * 1e-9);
        }
        /* --save-profile: the machine the predictions use (calibration, then the interleaved samples) */
        if (rank == 0 && j->save_profile && exit_code == RS_EXIT_OK) {
            hw.flops_per_s[RS_DTYPE_FP32] = m.flops_per_s;
            hw.cal = m.cal;
            if (rs_hw_write_json(&hw, j->save_profile, hw.calibration_note, &err) < 0) {
                fprintf(stderr, "ringsim validate: %s\n", err.msg);
                exit_code = RS_EXIT_FAIL;
            }
        }
    }
    for (int i = 0; i < j->n_b && exit_code == RS_EXIT_OK; i++) {
        rs_problem_t p = prob;
        p.seq_tokens = j->b[i] * N, p.n_ranks = N;
        rs_schedule_t *s = rs_schedule_create(&p, &err);
        if (!s) {
            exit_code = RS_EXIT_USAGE;
            break;
        }
        rs_trace_t *tm = rank == 0 ? merge_rounds(meas[i], rounds) : NULL;
        if (rank == 0) {
            rs_trace_t *tp = rs_trace_create("model");
            rs_run_summary_t w;
            rs_closed_t cf;
            rs_compare_t cmp;
            if (!tp || rs_walk_backend.run(s, &m, NULL, tp, &w, &err) < 0 || rs_model_closed(&p, &m, &cf, &err) < 0 ||
                rs_trace_summarize(tm, p.pass, &rows[i].meas, &err) < 0 || rs_trace_summarize(tp, p.pass, &rows[i].pred, &err) < 0 ||
                rs_compare_traces(tm, tp, &cmp, &err) < 0) {
                fprintf(stderr, "ringsim validate: B=%lld: %s\n", (long long)j->b[i], err.msg);
                exit_code = RS_EXIT_FAIL;
            } else {
                rows[i].b_star = cf.b_star_tokens;
                for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) collect(&cmp, (rs_cmp_metric_t)k, ec[k], &nec[k]);
                mk_err[i] = rel(rows[i].pred.makespan_s, rows[i].meas.makespan_s);
                rs_compare_free(&cmp);
            }
            /* the simulator on the calibrated machine, when the one rule (its can_run) says it can */
            rs_err_t why;
            if (sim && exit_code == RS_EXIT_OK && sim->can_run(&p, &m, &why) != 0) {
                snprintf(sim_note, sizeof sim_note, "%.290s", why.msg);
                sim = NULL;
            }
            if (sim && exit_code == RS_EXIT_OK) {
                rs_trace_t *tsim = rs_trace_create(sim->source);
                rs_run_summary_t sr;
                rs_compare_t cs;
                if (tsim && sim->run(s, &m, NULL, tsim, &sr, &err) == 0 && rs_trace_summarize(tsim, p.pass, &rows[i].sim, &err) == 0 &&
                    rs_compare_traces(tm, tsim, &cs, &err) == 0) {
                    rows[i].has_sim = true;
                    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) collect(&cs, (rs_cmp_metric_t)k, es[k], &nes[k]);
                    mk_err_sim[n_sim++] = fabs(rel(rows[i].sim.makespan_s, rows[i].meas.makespan_s));
                    rs_compare_free(&cs);
                    if (j->trace_dir) write_pair(j->trace_dir, j->b[i], "sim", tsim, &err);
                } else {
                    sim = NULL;
                    snprintf(sim_note, sizeof sim_note, "simulator failed (see stderr)");
                    fprintf(stderr, "ringsim validate: sim, B=%lld: %s\n", (long long)j->b[i], err.msg);
                }
                rs_trace_free(tsim);
            }
            if (j->trace_dir && (write_pair(j->trace_dir, j->b[i], "exec", tm, &err) < 0 ||
                                 write_pair(j->trace_dir, j->b[i], "model", tp, &err) < 0)) {
                fprintf(stderr, "ringsim validate: %s\n", err.msg);
                exit_code = RS_EXIT_FAIL;
            }
            rs_trace_free(tp);
        }
        rs_trace_free(tm);
        rs_schedule_free(s);
        if (exit_code != RS_EXIT_OK) break;
    }
    if (rank == 0 && exit_code == RS_EXIT_OK) {
        const rs_problem_t *p = &j->problem;
        char ovd[RS_MAX_OVERLAP_POINTS * 24 + 160];
        rs_cli_overlap_desc(&m, ovd, sizeof ovd);
        printf("# ringsim validate: N=%lld heads=%lld/%lld d=%lld batch=%lld %s %s %s, reps %d (warmup %d), progress %s\n"
               "# profile: F_peak %.4g GFLOP/s, W %.4g GB/s, L %.3g s, %d eff points; %s\n"
               "# times in seconds; err = (model - measured) / measured; T_* are medians over (rank, step)\n",
               (long long)N, (long long)p->q_heads, (long long)p->kv_heads, (long long)p->head_dim, (long long)p->batch,
               rs_layout_name(p->layout), rs_pass_name(p->pass), p->causal ? "causal" : "non-causal", j->eo.reps, j->eo.warmup,
               mode, m.flops_per_s * 1e-9, m.intra.bw_bytes_per_s * 1e-9, m.intra.latency_s, m.cal.n_eff, ovd);
        printf("# %6s %11s %11s %7s %11s %11s %7s %11s %11s %7s %11s %11s %7s %8s\n", "B", "comp_meas", "comp_model", "err",
               "comm_meas", "comm_model", "err", "step_meas", "step_model", "err", "mkspan_meas", "mkspan_model", "err",
               "sim_err");
        rs_file_t csv = {0};
        if (j->csv && rs_file_open(&csv, j->csv, &err) == 0)
            fprintf(csv.fp, "B,t_comp_meas_s,t_comp_model_s,t_comm_meas_s,t_comm_model_s,t_step_meas_s,t_step_model_s,"
                            "makespan_meas_s,makespan_model_s,makespan_sim_s\n");
        double bb[MAX_B], mc[MAX_B], mm[MAX_B], pc[MAX_B], pm[MAX_B], ma[MAX_B], pa[MAX_B];
        for (int i = 0; i < j->n_b; i++) {
            row_t *r = &rows[i];
            char simc[16] = "n/a";
            if (r->has_sim) snprintf(simc, sizeof simc, "%+.3f", rel(r->sim.makespan_s, r->meas.makespan_s));
            printf("  %6lld %11.4g %11.4g %+7.3f %11.4g %11.4g %+7.3f %11.4g %11.4g %+7.3f %11.4g %11.4g %+7.3f %8s\n",
                   (long long)j->b[i], r->meas.t_comp_s, r->pred.t_comp_s, rel(r->pred.t_comp_s, r->meas.t_comp_s), r->meas.t_comm_s,
                   r->pred.t_comm_s, rel(r->pred.t_comm_s, r->meas.t_comm_s), r->meas.t_step_s, r->pred.t_step_s,
                   rel(r->pred.t_step_s, r->meas.t_step_s), r->meas.makespan_s, r->pred.makespan_s, mk_err[i], simc);
            if (csv.fp)
                fprintf(csv.fp, "%lld,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", (long long)j->b[i], r->meas.t_comp_s,
                        r->pred.t_comp_s, r->meas.t_comm_s, r->pred.t_comm_s, r->meas.t_step_s, r->pred.t_step_s,
                        r->meas.makespan_s, r->pred.makespan_s, r->has_sim ? r->sim.makespan_s : NAN);
            ma[i] = r->meas.t_comp_alone_s, pa[i] = r->pred.t_comp_alone_s;
            bb[i] = (double)j->b[i], mc[i] = r->meas.t_comp_xfer_s, mm[i] = r->meas.t_comm_s, pc[i] = r->pred.t_comp_xfer_s,
            pm[i] = r->pred.t_comm_s;
        }
        if (csv.fp && rs_file_commit(&csv, &err) < 0) fprintf(stderr, "ringsim validate: %s\n", err.msg);
        printf("# per-(rank, step) |error| over the sweep, model vs measured:\n# %-8s %8s %8s %8s %8s\n", "metric", "n",
               "median", "p95", "max");
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) {
            size_t n = nec[k];
            double md = rs_median(ec[k], n), p95 = rs_percentile(ec[k], n, 0.95), mx = n ? ec[k][n - 1] : NAN;
            printf("  %-8s %8zu %8.3f %8.3f %8.3f\n", rs_cmp_metric_name((rs_cmp_metric_t)k), n, md, p95, mx);
        }
        double mk[MAX_B];
        for (int i = 0; i < j->n_b; i++) mk[i] = fabs(mk_err[i]);
        size_t nb = (size_t)j->n_b;
        double mkmed = rs_median(mk, nb), mkp95 = rs_percentile(mk, nb, 0.95), mkmax = mk[nb - 1];
        printf("  %-8s %8zu %8.3f %8.3f %8.3f\n", "makespan", nb, mkmed, mkp95, mkmax);
        if (n_sim > 0) {
            printf("# simulator vs measured:\n");
            for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) {
                size_t n = nes[k];
                double md = rs_median(es[k], n), p95 = rs_percentile(es[k], n, 0.95), mx = n ? es[k][n - 1] : NAN;
                printf("  %-8s %8zu %8.3f %8.3f %8.3f\n", rs_cmp_metric_name((rs_cmp_metric_t)k), n, md, p95, mx);
            }
            const double smed = rs_median(mk_err_sim, (size_t)n_sim); /* sorts: max is the last */
            const double sp95 = rs_percentile(mk_err_sim, (size_t)n_sim, 0.95);
            printf("  %-8s %8d %8.3f %8.3f %8.3f\n", "makespan", n_sim, smed, sp95, mk_err_sim[n_sim - 1]);
        } else {
            printf("# simulator: not run (%s)\n", sim_note);
        }
        /* Crossovers, measured and predicted by the same estimator (a log-log line through 2 points
         * on each side of the sign change). The seed's threshold compares the transfer with the
         * block's compute alone (the steps without a transfer: the forward's last step); the exposed
         * one with the compute of the same steps (host cost included): past it the step waits. */
        double xa = rs_crossover_b_fit(bb, ma, mm, nb, 2), ya = rs_crossover_b_fit(bb, pa, pm, nb, 2);
        double xm = rs_crossover_b_fit(bb, mc, mm, nb, 2), xp = rs_crossover_b_fit(bb, pc, pm, nb, 2);
        printf("# crossover B (T_comm = T_comp alone, the seed's threshold): measured %.4g, model walk %.4g (err %+.3f)\n",
               xa, ya, isfinite(xa) && isfinite(ya) ? rel(ya, xa) : NAN);
        printf("# crossover B (T_comm = T_comp of the same steps, transfer exposed): measured %.4g, model walk %.4g "
               "(err %+.3f), closed-form B* %.4g\n", xm, xp, isfinite(xm) && isfinite(xp) ? rel(xp, xm) : NAN, rows[0].b_star);
        fflush(stdout);
    }
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) free(ec[k]), free(es[k]);
    for (int i = 0; i < MAX_B; i++)
        for (int r = 0; r < 16; r++) rs_trace_free(meas[i][r]);
    return exit_code;
}

static int parse_blocks(const char *arg, val_job_t *j, rs_err_t *err) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", arg);
    j->n_b = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (j->n_b >= MAX_B) return rs_errf(err, "--blocks %s: at most %d sizes", arg, MAX_B);
        if (rs_parse_size("--blocks", tok, 2, 1 << 16, &v, err) < 0) return -1;
        if (j->n_b && v <= j->b[j->n_b - 1]) return rs_errf(err, "--blocks %s: sizes must increase", arg);
        j->b[j->n_b++] = v;
    }
    return j->n_b >= 2 ? 0 : rs_errf(err, "--blocks %s: give at least 2 sizes", arg);
}

int rs_cmd_validate(int argc, char **argv) {
    rs_setup_t c;
    rs_setup_default(&c);
    c.problem.n_ranks = 2, c.problem.q_heads = 2, c.problem.kv_heads = 2, c.problem.act_bytes = 4;
    c.problem.causal = false, c.spec.dtype = RS_DTYPE_FP32;
    c.layouts[0] = RS_LAYOUT_CONTIGUOUS;
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut short (a timeout) keeps what it printed */
    const int env_size = rs_exec_env_size(), env_rank = rs_exec_env_rank();
    const bool under_mpi = env_size > 0, loud = !under_mpi || env_rank == 0;
    if (under_mpi) c.problem.n_ranks = env_size;
    val_job_t j = {0};
    const int64_t defb[] = {8, 16, 32, 64, 128, 256, 512, 1024}; /* spans the crossover (docs/exec.md) */
    j.n_b = (int)(sizeof defb / sizeof defb[0]);
    memcpy(j.b, defb, sizeof defb);
    rs_calib_opts_default(&j.co);
    rs_exec_opts_default(&j.eo);
    j.eo.reps = 7, j.eo.warmup = 1;
    j.rounds = 5;
    const char *launch = NULL, *backend = "cpu", *loopback = NULL;
    bool dtype_given = false;
    rs_progress_t progress = RS_PROGRESS_POLL;
    rs_err_t err = {{0}};
    struct option *opts = rs_cli_merge_longopts(own_opts, (int)(sizeof own_opts / sizeof own_opts[0]));
    if (!opts) return RS_EXIT_FAIL;
    rs_cli_getopt_reset();
    int opt, rc;
    while ((opt = getopt_long(argc, argv, RS_CLI_COMMON_SHORTOPTS "h", opts, NULL)) != -1) {
        dtype_given |= opt == RS_OPT_DTYPE;
        rc = rs_cli_common_opt(&c, opt, optarg, &err);
        if (rc < 0) goto usage;
        if (rc == 1) continue;
        switch (opt) {
        case OPT_BACKEND: backend = optarg; break;
        case OPT_LOOPBACK: loopback = optarg; break;
        case OPT_BLOCKS:
            if (parse_blocks(optarg, &j, &err) < 0) goto usage;
            break;
        case OPT_LAUNCH:
            if (strcmp(optarg, "mpirun") && strcmp(optarg, "threads")) { rs_errf(&err, "--launch %s: expected mpirun or threads", optarg); goto usage; }
            launch = optarg;
            break;
        case OPT_PROGRESS:
            if (rs_progress_parse(optarg, &progress) < 0) { rs_errf(&err, "--progress %s: expected none, poll or thread", optarg); goto usage; }
            break;
        case OPT_REPS:
        case OPT_WARMUP: {
            int64_t v;
            if (rs_parse_size(opt == OPT_REPS ? "--reps" : "--warmup", optarg, opt == OPT_REPS ? 1 : 0, 10000, &v, &err) < 0) goto usage;
            if (opt == OPT_REPS) j.eo.reps = (int)v;
            else j.eo.warmup = (int)v;
            break;
        }
        case OPT_ROUNDS: {
            int64_t v;
            if (rs_parse_size("--rounds", optarg, 1, 1000, &v, &err) < 0) goto usage;
            j.rounds = (int)v;
            break;
        }
        case OPT_CALIBRATED: j.calibrated = optarg; break;
        case OPT_SAVE_PROFILE: j.save_profile = optarg; break;
        case OPT_CSV: j.csv = optarg; break;
        case OPT_TRACE_DIR: j.trace_dir = optarg; break;
        case OPT_NO_SIM: j.no_sim = true; break;
        case OPT_TIMEOUT:
            if (rs_parse_double("--timeout", optarg, 0.001, 1e6, &j.eo.timeout_s, &err) < 0) goto usage;
            j.co.timeout_s = j.eo.timeout_s;
            break;
        case OPT_MIN_TIME:
            if (rs_parse_double("--min-time", optarg, 0, 60, &j.co.min_time_s, &err) < 0) goto usage;
            break;
        case OPT_HELP:
        case 'h':
            free(opts);
            if (loud) help();
            return RS_EXIT_OK;
        default:
            free(opts);
            if (loud) fprintf(stderr, "ringsim validate: unknown option '%s' or missing value (see ringsim validate --help)\n", argv[optind - 1]);
            return RS_EXIT_USAGE;
        }
    }
    free(opts);
    opts = NULL;
    if (optind < argc) { rs_errf(&err, "unexpected argument '%s'", argv[optind]); goto usage; }
    if (c.n_layouts != 1 || c.n_passes != 1) { rs_errf(&err, "--layout and --pass: give one of each"); goto usage; }
    if (rs_exec_check_out("csv", j.csv, false, &err) < 0 || rs_exec_check_out("trace-dir", j.trace_dir, true, &err) < 0 ||
        rs_exec_check_out("save-profile", j.save_profile, false, &err) < 0)
        goto usage;
    const rs_backend_ops_t *be;
    if (rs_backend_get(backend, true, &be, &err) < 0) goto usage;
    if (!dtype_given) { /* the executor's own dtype */
        rs_setup_dtype(&c, be->exec->default_dtype);
    }
    /* calibration covers the sweep (and a bit below) */
    j.co.n_blocks = 0;
    for (int64_t b = j.b[0] / 2 < 8 ? 8 : j.b[0] / 2; b <= j.b[j.n_b - 1] * 2 && j.co.n_blocks < RS_MAX_EFF_POINTS; b *= 2)
        j.co.blocks[j.co.n_blocks++] = b;
    /* validate every B before any rank starts */
    for (int i = 0; i < j.n_b; i++) {
        c.problem.seq_tokens = j.b[i] * c.problem.n_ranks;
        if (rs_setup_finish(&c, &err) < 0) goto usage;
    }
    rs_exec_spmd_t sp = {"validate", c.problem.n_ranks, launch, progress, loopback, c.spec.dtype, &argc, &argv};
    if (rs_exec_spmd_check(be->exec, &sp, c.problem.grad_bytes, &err) < 0) goto usage;
    if (c.problem.n_ranks < 2) { rs_errf(&err, "--ranks %lld: validation needs a ring of at least 2", (long long)c.problem.n_ranks); goto usage; }
    if (under_mpi && c.problem.n_ranks != env_size) {
        rs_errf(&err, "--ranks %lld: mpirun started %d processes; they must agree", (long long)c.problem.n_ranks, env_size);
        goto usage;
    }
    if (j.calibrated) {
        rs_hw_t hw;
        if (rs_hw_load(j.calibrated, &hw, &err) < 0) goto usage;
    }
    j.problem = rs_setup_problem(&c, 0, 0);
    j.progress = rs_progress_name(progress);
    j.dtype = c.spec.dtype;
    return rs_exec_spmd(be->exec, &sp, val_body, &j);
usage:
    free(opts);
    if (loud) fprintf(stderr, "ringsim validate: %s\n", err.msg);
    return RS_EXIT_USAGE;
}

#else

int rs_cmd_validate(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ringsim validate: this build has no CPU executor (needs OpenBLAS)\n");
    return RS_EXIT_FAIL;
}

#endif
