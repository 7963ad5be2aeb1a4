/* study_validate_print.c - the validation study's tables (study_validate_state.h): the calibration
 * and the refit of each pass, and per configuration the per-B table, the errors over the sweep, the
 * measurement's own spread, the simulator's errors and the crossovers; the --csv rows. rank 0 prints
 * them on the study's output. */
#include "study_validate_state.h"

#include <math.h>
#include <string.h>

#include "output.h"

const char *rs_validate_crossover_text(double x, double b_lo, double b_hi, char *buf, size_t len) {
    if (isfinite(x)) snprintf(buf, len, "B = %.4g", x);
    else snprintf(buf, len, "not reached in the swept range (B = %.0f..%.0f)", b_lo, b_hi);
    return buf;
}

/* "contiguous forward causal" into buf. */
static const char *cfg_name(const rs_problem_t *p, char *buf, size_t len) {
    snprintf(buf, len, "%s %s %s", rs_layout_name(p->layout), rs_pass_name(p->pass), p->causal ? "causal" : "non-causal");
    return buf;
}

void rs_val_print_calibration(const val_t *v, const val_pass_t *ps) {
    const rs_exec_job_t *job = v->job;
    rs_meter_hide();
    fprintf(v->out, "# ringsim validate: calibration, %s pass (%lld ranks, progress %s)\n", rs_pass_name(ps->prob.pass),
            (long long)job->n_ranks, v->mode);
    char why[512];
    if (job->be->compute_for(RS_DTYPE_FP32) && rs_exec_blas_core_note(why, sizeof why)) fprintf(v->out, "# warning: %s\n", why);
    rs_calib_print(&ps->calib, v->out);
}

void rs_val_print_rank_factors(const val_t *v, const val_pass_t *ps, const double *fr, const double *kt, const double *fastest) {
    const int64_t P = v->job->n_procs;
    rs_meter_hide();
    fprintf(v->out, "# %s: per-rank kernel time over the fastest rank's (median over the sweep):", rs_pass_name(ps->prob.pass));
    for (int64_t r = 0; r < P; r++) fprintf(v->out, " rank %lld x%.3f", (long long)r, fr[r]);
    fprintf(v->out, "; at each B (the stragglers of that B's model):\n");
    for (int i = 0; i < v->in->n_b; i++) {
        fprintf(v->out, "#   B %6lld:", (long long)v->in->b[i]);
        for (int64_t r = 0; r < P; r++) fprintf(v->out, " rank %lld x%.3f", (long long)r, kt[(size_t)i * (size_t)P + (size_t)r] / fastest[i]);
        fputc('\n', v->out);
    }
}

void rs_val_print_overlap(const val_t *v, const val_pass_t *ps) {
    const rs_calib_t *c = &ps->calib;
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
}

void rs_val_print_kernel_rates(const val_t *v, const val_pass_t *ps, const rs_kcurve_t *full,
                               double rate[RS_KMASK_COUNT][RS_KMAX_POINTS]) {
    rs_meter_hide();
    fprintf(v->out, "# %s: kernel table at the sweep's B from samples interleaved with the runs (useful GFLOP/s; causal and "
                    "shifted from their own calls, full from F_eff(B)):\n#      B         full       causal      shifted\n",
            rs_pass_name(ps->prob.pass));
    for (int j = 0; j < full->n; j++)
        for (int i = 0; i < v->in->n_b; i++)
            if ((double)v->in->b[i] == full->pt[j].q_tokens)
                fprintf(v->out, "  %6lld %12.3f %12.3f %12.3f\n", (long long)v->in->b[i], rate[RS_KMASK_FULL][j] * 1e-9,
                        rate[RS_KMASK_CAUSAL][j] * 1e-9, rate[RS_KMASK_SHIFTED][j] * 1e-9);
}

void rs_val_print_eff(const val_t *v, const val_pass_t *ps) {
    rs_meter_hide();
    fprintf(v->out, "# %s: F_eff(B) from kernel samples interleaved with the runs:\n#      B      GFLOP/s\n",
            rs_pass_name(ps->prob.pass));
    for (int e = 0; e < ps->m.cal.n_eff; e++)
        fprintf(v->out, "  %6lld %12.3f\n", (long long)ps->m.cal.eff[e].block_tokens,
                ps->m.flops_per_s * ps->m.cal.eff[e].efficiency * 1e-9);
}

/* ---------------------------------------------------------------------------------------------------
 * Per configuration
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
    return rs_fmt_num(rs_val_rel(pred, meas), "%+.3f", buf, len);
}

/* A time cell: "%.4g" seconds, or "-" when not measured. */
static const char *t_cell(double t, char *buf, size_t len) { return rs_fmt_num(t, "%.4g", buf, len); }

/* The crossover inputs of one configuration, per B of the sweep: T_comm and the compute of the steps
 * with a transfer (the exposed crossing) and of those without (the block alone: the seed's
 * threshold), measured and modelled. */
typedef struct {
    double b[RS_VALIDATE_MAX_B];
    double meas_comm[RS_VALIDATE_MAX_B], model_comm[RS_VALIDATE_MAX_B];
    double meas_comp_xfer[RS_VALIDATE_MAX_B], model_comp_xfer[RS_VALIDATE_MAX_B];
    double meas_comp_alone[RS_VALIDATE_MAX_B], model_comp_alone[RS_VALIDATE_MAX_B];
} val_curves_t;

/* The per-B table of one configuration (and its --csv rows, csv may be NULL). Fills the crossover
 * inputs. */
static void val_print_rows(const val_t *v, const val_cfg_t *cf, FILE *csv, val_curves_t *cv) {
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
        const val_row_t *r = &cf->rows[i];
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
            for (int k = 0; k < 9; k++) rs_validate_csv_cell(csv, cells[k], 9);
            fputc('\n', csv);
        }
        cv->meas_comp_alone[i] = r->meas.t_comp_alone_s, cv->model_comp_alone[i] = r->pred.t_comp_alone_s;
        cv->b[i] = (double)in->b[i], cv->meas_comp_xfer[i] = r->meas.t_comp_xfer_s, cv->meas_comm[i] = r->meas.t_comm_s;
        cv->model_comp_xfer[i] = r->pred.t_comp_xfer_s, cv->model_comm[i] = r->pred.t_comm_s;
    }
}

/* One configuration's summary: per-B rows, errors over the sweep, the simulator's, the crossovers;
 * its row of the held-out table into *row. */
static void val_print_cfg(const val_t *v, val_cfg_t *cf, FILE *csv, rs_validate_row_t *row) {
    const size_t nb = (size_t)v->in->n_b;
    val_curves_t cv;
    double mk[RS_VALIDATE_MAX_B];
    val_print_rows(v, cf, csv, &cv);
    const double *bb = cv.b;
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
    const rs_validate_spread_t *sp = &cf->spread;
    for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) row->spread[k] = rs_median(sp->pts[k], sp->n_pts[k]);
    row->mk_spread = rs_median(sp->mk, sp->n_mk);
    if (v->rounds < 2) {
        fprintf(v->out, "# the measurement's own spread: one round, nothing to compare it with (--rounds 2 or more)\n");
    } else {
        fprintf(v->out, "# the measurement's own spread over its %d rounds, |round - median of the rounds| / median (an error "
                        "within it is not resolved by this run):\n# %-8s %8s %8s %8s %8s\n", v->rounds, "metric", "n", "median",
                "p95", "max");
        for (int k = 0; k < RS_CMP_METRIC_COUNT; k++) print_stats(v->out, rs_cmp_metric_name((rs_cmp_metric_t)k), sp->pts[k], sp->n_pts[k]);
        print_stats(v->out, "makespan", sp->mk, sp->n_mk);
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
    double xa = rs_crossover_b_fit(bb, cv.meas_comp_alone, cv.meas_comm, nb, 2);
    double ya = rs_crossover_b_fit(bb, cv.model_comp_alone, cv.model_comm, nb, 2);
    double xm = rs_crossover_b_fit(bb, cv.meas_comp_xfer, cv.meas_comm, nb, 2);
    double xp = rs_crossover_b_fit(bb, cv.model_comp_xfer, cv.model_comm, nb, 2);
    row->x_meas = xa, row->x_model = ya;
    char t1[96], t2[96], e[16], bs[16];
    fprintf(v->out, "# crossover B (T_comm = T_comp alone, the seed's threshold): measured %s, model walk %s (err %s)\n",
            rs_validate_crossover_text(xa, bb[0], bb[nb - 1], t1, sizeof t1), rs_validate_crossover_text(ya, bb[0], bb[nb - 1], t2, sizeof t2),
            rs_fmt_num(rs_val_rel(ya, xa), "%+.3f", e, sizeof e));
    fprintf(v->out, "# crossover B (T_comm = T_comp of the same steps, transfer exposed): measured %s, model walk %s (err %s), "
                    "closed-form B* %s\n",
            rs_validate_crossover_text(xm, bb[0], bb[nb - 1], t1, sizeof t1), rs_validate_crossover_text(xp, bb[0], bb[nb - 1], t2, sizeof t2),
            rs_fmt_num(rs_val_rel(xp, xm), "%+.3f", e, sizeof e), rs_fmt_num(cf->b_star > 0 ? cf->b_star : NAN, "%.4g", bs, sizeof bs));
}

void rs_val_print(val_t *v) {
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
