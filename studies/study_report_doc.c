/* study_report_doc.c - the report's document (study_report_state.h): report.md and report.html
 * written together (doc.h), section by section - the problem and hardware, the findings (each
 * sentence with a number from report_findings.c), the table per layout and pass, the figures, the
 * real execution and its held-out table, the files. */
#include "study_report_state.h"

#include <math.h>
#include <string.h>

#include "doc.h"
#include "kernel.h"
#include "output.h"

static const char *fmt_t(double t, char *buf, size_t n) { return rs_fmt_time(t, buf, n); }

static void doc_problem(report_t *r, rs_doc_t *d) {
    const rs_problem_t *p0 = r->p0;
    const rs_machine_t *m = r->m;
    const rs_dtype_t dtype = r->c->spec.dtype;
    char a1[32];
    rs_doc_h(d, 1, "Ring Attention report");
    rs_doc_p(d, "Problem: S = %lld tokens over N = %lld ranks (B = %lld tokens per rank), batch %lld, %lld query heads, "
                "%lld KV heads, head_dim %lld, %s activations (%lld bytes), dK/dV in flight %lld bytes, %s mask, tile %lldx%lld.",
             (long long)p0->seq_tokens, (long long)p0->n_ranks, (long long)rs_problem_block(p0), (long long)p0->batch,
             (long long)p0->q_heads, (long long)p0->kv_heads, (long long)p0->head_dim, rs_dtype_name(dtype),
             (long long)p0->act_bytes, (long long)p0->grad_bytes, p0->causal ? "causal" : "no", (long long)p0->tile_q,
             (long long)p0->tile_k);
    rs_doc_p(d, "Hardware: %s, F = %.1f TFLOP/s (%s), ring hop %s W = %.1f GB/s per direction, latency %s%s.", m->hw_name,
             m->flops_per_s / 1e12, rs_dtype_name(dtype), m->intra.name, m->intra.bw_bytes_per_s / 1e9,
             fmt_t(m->intra.latency_s, a1, sizeof a1),
             m->devices_per_node > 0 && m->devices_per_node < p0->n_ranks ? " (nodes cross over the inter-node tier)" : "");
    char kd[256];
    rs_doc_p(d, "Compute: the attention steps are costed %s (docs/model.md section 3a; --impl, --kernel, --flops change it).",
             rs_kernel_describe(m, kd, sizeof kd));
    rs_doc_p(d, "Where each rate comes from (measured, published, estimated or user-given; docs/model.md section 3a):");
    const unsigned skip = rs_machine_rates_skip(m, p0->n_ranks);
    for (int k = 0; k < RS_RATE_COUNT; k++)
        if (!(skip >> k & 1u))
            rs_doc_li(d, "%s: %s (%s)", rs_rate_name((rs_rate_t)k), rs_rate_kind_name(m->src.rate[k].kind), m->src.rate[k].source);
    rs_doc_end_list(d);
}

/* Per pass: the overlap threshold, and which layout wins and by how much. */
static void doc_pass(report_t *r, rs_doc_t *d, int j) {
    const int nl = r->c->n_layouts;
    const entry_t *es = &r->es[j * nl];
    char a1[32], a2[32], line[1200];
    rs_report_finding_threshold(&es[0].closed, es[0].problem.pass, es[0].problem.layout, line, sizeof line);
    rs_doc_li(d, "%s", line);
    int best = 0, worst = 0;
    for (int i = 1; i < nl; i++) {
        if (es[i].walk.makespan_s < es[best].walk.makespan_s) best = i;
        if (es[i].walk.makespan_s > es[worst].walk.makespan_s) worst = i;
    }
    const entry_t *eb = &es[best], *ew = &es[worst];
    char tie[256] = "";
    bool tied[RS_LAYOUT_COUNT + 1] = {false};
    for (int i = 0; i < nl && i <= RS_LAYOUT_COUNT; i++) /* layouts within 0.5% of the best tie with it */
        if (i != best && es[i].walk.makespan_s <= 1.005 * eb->walk.makespan_s) {
            tied[i] = true;
            snprintf(tie + strlen(tie), sizeof tie - strlen(tie), " and %s (+%.2f%%)", rs_layout_name(es[i].problem.layout),
                     100.0 * (es[i].walk.makespan_s / eb->walk.makespan_s - 1));
        }
    if (nl <= 1) return;
    char others[1024] = "";
    for (int i = 0; i < nl; i++) {
        if (i == best || (i <= RS_LAYOUT_COUNT && tied[i])) continue;
        const entry_t *e = &es[i];
        snprintf(others + strlen(others), sizeof others - strlen(others), "%s%s %s (%.2fx, +%.2f%%)", others[0] ? ", " : "",
                 rs_layout_name(e->problem.layout), fmt_t(e->walk.makespan_s, a1, sizeof a1),
                 e->walk.makespan_s / eb->walk.makespan_s, 100.0 * (e->walk.makespan_s / eb->walk.makespan_s - 1));
    }
    rs_doc_li(d, "**%s: %s%s %s** with a makespan of %s (balance efficiency %.1f%%, fraction of peak %.1f%%)%s%s. The worst, %s, "
                 "leaves its busiest rank computing %.2fx the mean.",
              rs_pass_name(eb->problem.pass), rs_layout_name(eb->problem.layout), tie, tie[0] ? "tie (within 0.5%)" : "wins",
              fmt_t(eb->walk.makespan_s, a2, sizeof a2), 100 * eb->walk.balance_efficiency,
              100 * eb->walk.fraction_of_peak, others[0] ? "; " : "", others,
              rs_layout_name(ew->problem.layout),
              ew->walk.busy_mean_s > 0 ? ew->walk.busy_max_s / ew->walk.busy_mean_s : 1.0);
}

/* Per profile of the N scaling: how far the ring keeps its transfers hidden at the problem's S (the
 * scaling-n figure's rows). */
static void doc_scaling(report_t *r, rs_doc_t *d) {
    const rs_sweep_spec_t *spec = r->spec;
    char line[1200];
    for (int pr = 0; pr < spec->n_profiles; pr++) {
        rs_report_finding_scaling(r->sn.pts, r->sn.n, spec->profiles[pr], 0.9, line, sizeof line);
        rs_doc_li(d, "%s", line);
    }
}

static void doc_findings(report_t *r, rs_doc_t *d) {
    const rs_setup_t *c = r->c;
    rs_doc_h(d, 2, "Findings");
    for (int j = 0; j < c->n_passes; j++) doc_pass(r, d, j);
    for (int k = 0; k < r->ne; k++) { /* bound by what */
        const entry_t *e = &r->es[k];
        double frac = e->walk.rank_steps ? (double)e->walk.comm_bound_steps / (double)e->walk.rank_steps : 0;
        double imb = e->walk.busy_mean_s > 0 ? e->walk.busy_max_s / e->walk.busy_mean_s : 1;
        const char *what = frac > 0.5 ? "the transfers" : (imb > 1.1 ? "load imbalance" : "compute");
        rs_doc_li(d, "%s %s is bound by **%s**: %.0f%% of (rank, step) wait on a transfer, busiest rank %.2fx the mean, "
                     "balance efficiency %.1f%%.",
                  rs_layout_name(e->problem.layout), rs_pass_name(e->problem.pass), what, 100 * frac, imb,
                  100 * e->walk.balance_efficiency);
    }
    char line[1200];
    const rs_report_crossover_in_t x = {r->sb.pts, r->sb.n, r->sbc.pts, r->sbc.n, r->sim ? 1 : 0,
                                        r->sim ? "SimGrid" : "model walk", r->p0->n_ranks};
    rs_report_finding_crossover(&x, line, sizeof line);
    rs_doc_li(d, "%s", line);
    doc_scaling(r, d);
    rs_doc_end_list(d);
    if (r->spec->n_profiles == 3)
        rs_doc_p(d, "%s is %s with one device per node: every ring hop crosses the inter-node tier (%s, %.0f GB/s per "
                    "direction) instead of %s.",
                 r->spec->profiles[1], c->spec.profile, c->hw.inter.name, c->hw.inter.bw_bytes_per_s / 1e9, c->hw.intra.name);
}

/* The table per layout and pass, and how far SimGrid is from the model. */
static void doc_entries(report_t *r, rs_doc_t *d) {
    enum { MAXR = 1 + RS_LAYOUT_COUNT * RS_PASS_COUNT };
    char rows[MAXR][512], a1[32], a2[32], a3[32], a4[32];
    const char *rp[MAXR];
    const int ne = r->ne;
    rs_doc_h(d, 2, "Per layout and pass");
    snprintf(rows[0], sizeof rows[0],
             "layout|pass|makespan (model)|makespan (sim)|balance efficiency|fraction of peak|busiest/mean|comm-bound steps|"
             "T_comp (step)|T_comm|bound|B*");
    for (int k = 0; k < ne && k + 1 < MAXR; k++) {
        const entry_t *e = &r->es[k];
        snprintf(rows[k + 1], sizeof rows[0], "%s|%s|%s|%s|%.1f%%|%.1f%%|%.2f|%lld / %lld|%s|%s|%s|%.0f",
                 rs_layout_name(e->problem.layout),
                 rs_pass_name(e->problem.pass), fmt_t(e->walk.makespan_s, a1, sizeof a1),
                 e->has_sim ? fmt_t(e->sim_makespan_s, a2, sizeof a2) : "-", 100 * e->walk.balance_efficiency,
                 100 * e->walk.fraction_of_peak,
                 e->walk.busy_mean_s > 0 ? e->walk.busy_max_s / e->walk.busy_mean_s : 1.0, (long long)e->walk.comm_bound_steps,
                 (long long)e->walk.rank_steps, fmt_t(e->closed.t_comp_s, a3, sizeof a3), fmt_t(e->closed.t_comm_s, a4, sizeof a4),
                 e->closed.comm_bound ? "transfer" : "compute", e->closed.b_star_tokens);
    }
    for (int k = 0; k <= ne && k < MAXR; k++) rp[k] = rows[k];
    rs_doc_table(d, rp, ne + 1 < MAXR ? ne + 1 : MAXR);
    rs_doc_p(d, "Balance efficiency = mean per-rank compute (each call at its own rate) / makespan; fraction of peak = useful "
                "FLOPs / (N x the peak x makespan); both in [0, 1] (docs/model.md \"Metrics\"). T_comp (step), T_comm, the bound and B* are the closed form's "
                "for the layout's middle step (the step class that paces the ring: a causal zigzag step computes about half a "
                "block). Exact values: summary.csv.");
    if (!r->sim) {
        rs_doc_p(d, "SimGrid: not run (%s).", r->in->no_sim ? "--no-sim" : r->sim_why[0] ? r->sim_why : "not built");
        return;
    }
    double worst = 0, worst_ms = 0;
    for (int k = 0; k < ne; k++) {
        if (!r->es[k].has_sim) continue;
        for (int mm = 0; mm < RS_CMP_METRIC_COUNT; mm++)
            if (r->es[k].cmp.stats[mm].n && r->es[k].cmp.stats[mm].max_abs > worst) worst = r->es[k].cmp.stats[mm].max_abs;
        if (fabs(r->es[k].cmp.makespan_rel) > worst_ms) worst_ms = fabs(r->es[k].cmp.makespan_rel);
    }
    rs_doc_p(d, "SimGrid against the model: largest per-step error %.3g%%, largest makespan error %.3g%% over all layouts "
                "and passes (data/compare-*.csv; `ringsim compare` reproduces them).",
             100 * worst, 100 * worst_ms);
}

static void doc_figures(report_t *r, rs_doc_t *d) {
    rs_doc_h(d, 2, "Figures");
    if (r->fig_why[0]) rs_doc_p(d, "Note: %s", r->fig_why);
    rs_doc_fig(d, "tcomm-vs-b", "T_comp and T_comm per ring step against B (full blocks): predicted lines, simulated points", r->f_tb);
    rs_doc_fig(d, "tcomm-vs-b-causal", "The same under the causal mask (zigzag): the crossover moves to about 2 B*", r->f_tbc);
    rs_doc_fig(d, "timeline-zigzag-forward", "Timeline of the zigzag forward pass: compute, send and recv per rank and step", r->f_tl);
    rs_doc_fig(d, "timeline-contiguous-forward", "Timeline of the contiguous forward pass: the causal mask idles early ranks",
               r->f_tlc);
    rs_doc_fig(d, "layout-busy", "Per-rank compute time of the three layouts", r->f_busy);
    rs_doc_fig(d, "pred-vs-meas", "Model against SimGrid per (rank, step), y = x with a +-10% band", r->f_pvm);
    rs_doc_fig(d, "scaling-n", "Step time and overlap efficiency against N at fixed S, three machines", r->f_sn);
    rs_doc_fig(d, "scaling-b", "Step time and overlap efficiency against B at fixed N, three machines", r->f_sb);
    rs_doc_p(d, "%s", r->cont_note);
    rs_doc_fig(d, "contention", "Concurrent rings: efficiency against NICs per node, non-blocking and 2:1 spine (dashed: "
                                "without contention)", r->f_cont);
}

/* The held-out table and its sentence, from validate's heldout.csv. */
static void doc_heldout(report_t *r, rs_doc_t *d) {
    enum { MAXR = 1 + 4 * RS_LAYOUT_COUNT * RS_PASS_COUNT };
    static char rows[MAXR][512];
    const char *rp[MAXR];
    int n = 0;
    char line[1400];
    rs_report_heldout_rows(&r->heldout, rows, MAXR, &n);
    for (int k = 0; k < n; k++) rp[k] = rows[k];
    rs_doc_p(d, "Held-out validation (validation/heldout.csv; |error| = |model - measured| / measured per (rank, step), "
                "medians and p95 over the B sweep; crossover B at the seed's threshold, '-' where the sweep does not reach it "
                "or no step computes without a transfer):");
    rs_doc_table(d, rp, n);
    rs_report_finding_heldout(&r->heldout, 0.10, line, sizeof line);
    rs_doc_p(d, "%s", line);
}

static void doc_exec(report_t *r, rs_doc_t *d) {
    rs_doc_h(d, 2, "Real execution (CPU)");
    rs_doc_p(d, "%s", r->exec_note);
    if (r->have_heldout) doc_heldout(r, d);
    if (r->have_val) {
        char line[1400];
        rs_report_finding_measured_crossover(r->sv.pts, r->sv.n, r->val_x_meas, r->val_x_model, line, sizeof line);
        rs_doc_p(d, "%s", line);
        rs_doc_fig(d, "tcomm-vs-b-measured", "T_comp and T_comm measured on this CPU (points) against the calibrated model (lines)",
                   r->f_vb);
    }
    if (r->have_val_cmp) {
        const rs_cmp_stats_t *s0 = &r->vcmp.stats[RS_CMP_STEP];
        char m1[16], m2[16], m3[16], m4[16];
        rs_doc_p(d, "Per (rank, step) at B = %lld: T_step error median %s%%, p95 %s%%, max %s%% (worst at rank %d, step %d); "
                    "makespan error %s%% (data/compare-exec.csv; error = (model - measured) / measured).",
                 r->vcmp_b, rs_fmt_num(100 * s0->median_abs, "%.1f", m1, sizeof m1), rs_fmt_num(100 * s0->p95_abs, "%.1f", m2, sizeof m2),
                 rs_fmt_num(100 * s0->max_abs, "%.1f", m3, sizeof m3), (int)s0->worst.rank, (int)s0->worst.step,
                 rs_fmt_num(100 * r->vcmp.makespan_rel, "%+.1f", m4, sizeof m4));
        rs_doc_fig(d, "pred-vs-meas-exec", "Calibrated model against the CPU measurement per (rank, step), y = x with a +-10% band",
                   r->f_vpvm);
    }
    if (r->have_val_cases) {
        rs_doc_p(d, "Makespan of every measured configuration and block size against the calibrated model "
                    "(data/validation-exec.csv): %d of %d within 10%%.", r->val_cases_within, r->val_cases_n);
        if (r->val_sp_n > 0) {
            char m1[16], m2[16];
            rs_doc_p(d, "How noisy the measurement was: the makespan's own spread over validate's rounds (median |round - "
                        "median of the rounds| / median, per configuration: validation/heldout.csv makespan_spread) was "
                        "%s%% in the median configuration and %s%% in the noisiest of %d%s.",
                     rs_fmt_num(100 * r->val_sp_median, "%.1f", m1, sizeof m1), rs_fmt_num(100 * r->val_sp_max, "%.1f", m2, sizeof m2),
                     r->val_sp_n, r->val_sp_median > 0.10 ? ": above 10%, so a 10% criterion is finer than this run resolves"
                                                           : "; an error within it is not resolved by this run");
        }
        rs_doc_fig(d, "validation-exec", "Makespan predicted by the calibrated model against the CPU measurement, every layout, "
                   "pass, mask and B, log-log, y = x with a +-10% band", r->f_vcases);
    }
}

static void doc_files(report_t *r, rs_doc_t *d) {
    rs_doc_h(d, 2, "Files");
    rs_doc_li(d, "traces/: model-LAYOUT-PASS.csv and .json (Chrome/Perfetto: open in ui.perfetto.dev)%s",
              r->sim ? ", sim-LAYOUT-PASS.*" : "");
    rs_doc_li(d, "data/: sweep-b.csv, sweep-b-causal.csv, scaling-n.csv, scaling-b.csv (ringsim sweep format), busy-*.csv, compare-*.csv, validation-*.csv%s",
              r->have_cont ? ", contention.csv (the contention study's format, docs/sim.md)" : "");
    rs_doc_li(d, "figures/: PNG, SVG and PDF; figures/scripts/ holds the gnuplot scripts, figures/regenerate.sh re-renders them");
    rs_doc_li(d, "summary.csv: every number of the table above at full precision");
    rs_doc_end_list(d);
    rs_doc_p(d, "Generated by `%s` (ringsim %s) in %.1f s.", r->in->command, RINGSIM_VERSION, rs_now_s() - r->t_start);
}

int rs_rep_doc(report_t *r, rs_err_t *err) {
    rs_file_t fmd = {0}, fhtml = {0};
    snprintf(r->path, sizeof r->path, "%s/report.md", r->dir);
    snprintf(r->path2, sizeof r->path2, "%s/report.html", r->dir);
    if (rs_file_open(&fmd, r->path, err) != 0 || rs_file_open(&fhtml, r->path2, err) != 0) {
        if (fmd.fp) rs_file_abort(&fmd);
        return -1;
    }
    rs_doc_t d = {fmd.fp, fhtml.fp};
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ringsim report</title>\n<style>\n"
          "body{font-family:'DejaVu Sans',sans-serif;max-width:1000px;margin:2em auto;line-height:1.45;color:#222}\n"
          "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\n"
          "th{background:#f3f3f3}figure{margin:1.5em 0}figcaption{font-style:italic;color:#444}\n"
          "</style></head><body>\n",
          d.html);
    doc_problem(r, &d);
    doc_findings(r, &d);
    doc_entries(r, &d);
    doc_figures(r, &d);
    doc_exec(r, &d);
    doc_files(r, &d);
    fputs("</body></html>\n", d.html);
    if (rs_file_commit(&fhtml, err) != 0 || rs_file_commit(&fmd, err) != 0) {
        if (fmd.fp) rs_file_abort(&fmd);
        return -1;
    }
    return 0;
}
