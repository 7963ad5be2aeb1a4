/* study_sweep_csv.c - the sweep's CSV (study_sweep.h): the header ('#' notes and the column line),
 * one row per point, the crossover lines of each series, and the crossover of a series' points. */
#include "study_sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char COLUMNS[] =
    "point,series,profile,layout,pass,causal,seq_tokens,n_ranks,block_tokens,f_per_s,w_bytes_per_s,latency_s,"
    "b_min_tokens,b_star_tokens,seed_t_comp_s,seed_t_comm_s,closed_t_comp_s,closed_t_comm_s,closed_t_step_s,"
    "closed_bound,pred_t_comp_s,pred_t_comm_s,pred_t_step_s,pred_makespan_s,pred_bound,pred_efficiency,"
    "pred_overlap_eff,sim_t_comp_s,sim_t_comm_s,sim_t_step_s,sim_makespan_s,sim_bound,sim_efficiency,"
    "sim_overlap_eff,exec_t_comp_s,exec_t_comm_s,exec_t_step_s,exec_makespan_s,exec_bound,exec_efficiency,"
    "exec_overlap_eff,note";

/* One '#' line per profile of pts[0..n): where the rates its points are costed at come from. */
static void write_rates(FILE *fp, const rs_sweep_point_t *pts, size_t n) {
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && strcmp(pts[j].profile, pts[i].profile)) j++;
        if (j < i) continue; /* each profile once, over the largest ring of its points */
        int64_t ranks = 0;
        for (size_t k = i; k < n; k++)
            if (!strcmp(pts[k].profile, pts[i].profile) && pts[k].problem.n_ranks > ranks) ranks = pts[k].problem.n_ranks;
        char line[2048];
        fprintf(fp, "# rates profile=%s: %s\n", pts[i].profile, rs_machine_rates_line(&pts[i].machine, ranks, line, sizeof line));
    }
}

void rs_sweep_write_header(FILE *fp, const rs_sweep_spec_t *spec, const char *command, const rs_sweep_point_t *pts, size_t n) {
    const rs_problem_t *p = &spec->common.problem;
    fprintf(fp, "# ringsim-sweep=1\n");
    char esc[8192]; /* argv may hold a newline (a file name): escaped, the header stays one line */
    if (command) fprintf(fp, "# command=%s\n", rs_escape(command, esc, sizeof esc));
    fprintf(fp, "# batch=%lld q_heads=%lld kv_heads=%lld head_dim=%lld act_bytes=%lld grad_bytes=%lld causal=%d tile=%lldx%lld\n",
            (long long)p->batch, (long long)p->q_heads, (long long)p->kv_heads, (long long)p->head_dim,
            (long long)p->act_bytes, (long long)p->grad_bytes, p->causal ? 1 : 0, (long long)p->tile_q,
            (long long)p->tile_k);
    fprintf(fp, "# seed_*: the seed's closed form for a full block; closed_*: calibrated closed form (cost.h)\n"
                "# pred_*/sim_*/exec_*: model walk / SimGrid / real execution traces summarized alike: medians over\n"
                "#   (rank, step) of compute, transfer (longer of send/recv) and step durations; makespan of the pass\n"
                "# efficiency = useful FLOPs / (N F_eff) / makespan; overlap_eff = t_comp / t_step; nan = not run;\n"
                "# crossover lines: '-' = not run, or no crossing in the swept range\n");
    write_rates(fp, pts, n);
    fprintf(fp, "%s\n", COLUMNS);
    fflush(fp);
}

static void num(FILE *fp, double x) {
    if (isnan(x) || isinf(x)) fputs(",nan", fp);
    else fprintf(fp, ",%.17g", x);
}

/* The 7 summary columns of one backend. */
static void summary_cols(FILE *fp, bool has, const rs_trace_summary_t *s, double ideal_s) {
    if (!has) {
        fputs(",nan,nan,nan,nan,,nan,nan", fp);
        return;
    }
    num(fp, s->t_comp_s);
    num(fp, s->t_comm_s);
    num(fp, s->t_step_s);
    num(fp, s->makespan_s);
    fprintf(fp, ",%s", s->n_comm && s->t_comm_s > s->t_comp_s ? "comm" : "compute");
    num(fp, s->makespan_s > 0 ? ideal_s / s->makespan_s : NAN);
    num(fp, s->t_step_s > 0 ? s->t_comp_s / s->t_step_s : NAN);
}

void rs_sweep_write_row(FILE *fp, size_t index, const rs_sweep_point_t *pt) {
    const rs_problem_t *p = &pt->problem;
    const rs_closed_t *c = &pt->closed;
    fprintf(fp, "%zu,%s,%s,%s,%s,%d,%lld,%lld,%lld", index, pt->series, pt->profile, rs_layout_name(p->layout),
            rs_pass_name(p->pass), p->causal ? 1 : 0, (long long)p->seq_tokens, (long long)p->n_ranks,
            (long long)rs_problem_block(p));
    num(fp, c->f_peak_per_s);
    num(fp, c->w_bytes_per_s);
    num(fp, c->latency_s);
    num(fp, c->b_min_tokens);
    num(fp, c->b_star_tokens);
    num(fp, pt->seed_t_comp_s);
    num(fp, pt->seed_t_comm_s);
    num(fp, c->t_comp_s);
    num(fp, c->t_comm_s);
    num(fp, c->t_step_s);
    fprintf(fp, ",%s", c->comm_bound ? "comm" : "compute");
    summary_cols(fp, true, &pt->pred, pt->walk.ideal_s);
    summary_cols(fp, pt->has_sim, &pt->sim, pt->walk.ideal_s);
    summary_cols(fp, pt->has_exec, &pt->exec, pt->walk.ideal_s);
    char note[256];
    snprintf(note, sizeof note, "%s", pt->note);
    for (char *q = note; *q; q++)
        if (*q == ',' || *q == '\n') *q = ';';
    fprintf(fp, ",%s\n", note);
    fflush(fp);
}

double rs_sweep_crossover(const rs_sweep_point_t *pts, size_t n, const char *series, int which) {
    double *b = malloc((n + 1) * sizeof *b), *tc = malloc((n + 1) * sizeof *tc), *tm = malloc((n + 1) * sizeof *tm);
    double x = NAN;
    if (b && tc && tm) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            const rs_sweep_point_t *p = &pts[i];
            if (strcmp(p->series, series) != 0) continue;
            const rs_trace_summary_t *s = which == 0 ? &p->pred : (which == 1 ? &p->sim : &p->exec);
            if ((which == 1 && !p->has_sim) || (which == 2 && !p->has_exec)) continue;
            b[k] = (double)rs_problem_block(&p->problem);
            tc[k] = s->t_comp_s;
            tm[k] = s->t_comm_s;
            k++;
        }
        for (size_t i = 1; i < k; i++) /* insertion sort by B */
            for (size_t j = i; j > 0 && b[j - 1] > b[j]; j--) {
                double t;
                t = b[j], b[j] = b[j - 1], b[j - 1] = t;
                t = tc[j], tc[j] = tc[j - 1], tc[j - 1] = t;
                t = tm[j], tm[j] = tm[j - 1], tm[j - 1] = t;
            }
        x = rs_crossover_b(b, tc, tm, k);
    }
    free(b), free(tc), free(tm);
    return x;
}

void rs_sweep_write_crossovers(FILE *fp, const rs_sweep_point_t *pts, size_t n) {
    for (size_t i = 0; i < n; i++) {
        bool first = true;
        for (size_t j = 0; j < i; j++)
            if (strcmp(pts[j].series, pts[i].series) == 0) first = false;
        if (!first) continue;
        char c[5][24]; /* "-": not run, or no crossing in the swept range */
        fprintf(fp, "# crossover series=%s b_min_tokens=%s b_star_tokens=%s pred_b=%s sim_b=%s exec_b=%s\n", pts[i].series,
                rs_fmt_num(pts[i].closed.b_min_tokens, "%.6g", c[0], 24), rs_fmt_num(pts[i].closed.b_star_tokens, "%.6g", c[1], 24),
                rs_fmt_num(rs_sweep_crossover(pts, n, pts[i].series, 0), "%.6g", c[2], 24),
                rs_fmt_num(rs_sweep_crossover(pts, n, pts[i].series, 1), "%.6g", c[3], 24),
                rs_fmt_num(rs_sweep_crossover(pts, n, pts[i].series, 2), "%.6g", c[4], 24));
    }
    fflush(fp);
}
