/* study_validate_refit.c - the refit maths of the validation study (study_validate_refit.h). */
#include "study_validate_refit.h"

#include <math.h>
#include <string.h>

void rs_validate_refit_eff(rs_calibration_t *model, double flops_peak, const int64_t *b, const uint64_t *flops,
                           const double *t_fastest, int n_b) {
    for (int i = 0; i < n_b; i++) {
        const double f = (double)flops[i] / t_fastest[i];
        for (int e = 0; e < model->n_eff; e++)
            if ((int64_t)model->eff[e].block_tokens == b[i]) model->eff[e].efficiency = f / flops_peak;
    }
}

void rs_validate_renormalise(rs_calibration_t *model, double *flops_peak) {
    double mx = 0;
    for (int e = 0; e < model->n_eff; e++) mx = fmax(mx, model->eff[e].efficiency);
    for (int e = 0; e < model->n_eff; e++) model->eff[e].efficiency /= mx;
    *flops_peak *= mx;
}

void rs_validate_stragglers(const double *factors, int64_t n, rs_perturb_t *q) {
    q->n_stragglers = 0;
    for (int64_t r = 0; r < n && q->n_stragglers < RS_MAX_PERTURB; r++)
        if (factors[r] > 1.005) q->straggler_rank[q->n_stragglers] = r, q->straggler_factor[q->n_stragglers++] = factors[r];
}

void rs_validate_factors_at(const double *t, const double *t_fastest, int n_b, int64_t n, double *factors) {
    for (int i = 0; i < n_b; i++)
        for (int64_t r = 0; r < n; r++) factors[(size_t)i * (size_t)n + (size_t)r] = t[(size_t)i * (size_t)n + (size_t)r] / t_fastest[i];
}

void rs_validate_add_overlap(rs_calib_t *c, int *n_sizes, const rs_validate_overlap_t *pt, bool polled) {
    const rs_calib_flows_t *fl = pt->flows;
    if (*n_sizes < RS_CALIB_MAX_SIZES)
        c->sizes[*n_sizes] = fl->bytes, c->t_msg_s[*n_sizes] = pt->t_xfer_s, c->t_msg_reused_s[(*n_sizes)++] = pt->t_xfer_reused_s;
    int k = 0;
    while (k < c->n_ov && c->ov[k].block != pt->block) k++;
    if (k == c->n_ov && c->n_ov == RS_CALIB_MAX_OV) return;
    if (k == c->n_ov) c->n_ov++;
    polled = polled && fl->geom.chunk_cols > 0;
    c->ov[k] = (rs_calib_overlap_t){pt->block, fl->bytes, fl->n, pt->t_alone_s, pt->t_busy_s, 0, pt->t_end_s, pt->t_end_fresh_s, 1,
                                    pt->t_alone_s > 0 ? fmax(1.0, pt->t_busy_s / pt->t_alone_s) : 1, polled ? fl->polls : 0,
                                    fl->poll_first};
    if (polled) c->model.poll.chunk_cols = fl->geom.chunk_cols, c->model.poll.panel_rows[0] = fl->geom.panel_rows[0],
                c->model.poll.panel_rows[1] = fl->geom.panel_rows[1];
}

void rs_validate_refit_transport(rs_calib_t *c, int n_sizes) {
    if (n_sizes >= 2) c->n_sizes = n_sizes; /* the sweep's transfers alone */
    rs_calib_fit_transport(c);
    rs_calib_fit_overlap(c);
}

/* The factor of mask's curve k (NULL: none of as many points) at each point j of the full curve (n
 * points): the rate now over the table's. */
static void mask_factors(const rs_machine_t *m, const rs_validate_kernels_t *ks, const rs_kcurve_t *full, int mask,
                         const rs_kcurve_t *k, double *r) {
    const int n = full->n;
    int have[RS_KMAX_POINTS] = {0};
    for (int j = 0; j < n; j++) {
        r[j] = 1;
        for (int i = 0; i < ks->n_b; i++) {
            if ((double)ks->b[i] != full->pt[j].q_tokens) continue;
            const int mk = mask == RS_KMASK_CAUSAL ? 0 : 1;
            const double t = ks->t_mask[i * 2 + mk];
            if (mask != RS_KMASK_FULL && k && t > 0)
                r[j] = (double)ks->useful[i * 2 + mk] / t / k->pt[j].flops_per_s, have[j] = 1;
            else if (mask == RS_KMASK_FULL || !ks->masks)
                r[j] = rs_machine_flops_eff(m, full->pt[j].q_tokens) / full->pt[j].flops_per_s, have[j] = 1;
        }
    }
    for (int j = 0; j < n; j++) /* sizes outside the sweep: the nearest sweep size's factor */
        if (!have[j])
            for (int d = 1; d < n; d++) {
                if (j - d >= 0 && have[j - d]) { r[j] = r[j - d]; break; }
                if (j + d < n && have[j + d]) { r[j] = r[j + d]; break; }
            }
}

bool rs_validate_refit_kernels(rs_machine_t *m, rs_pass_t pass, const rs_validate_kernels_t *ks,
                               double rate[RS_KMASK_COUNT][RS_KMAX_POINTS], const rs_kcurve_t **full_out) {
    if (m->kernel <= 0) return false;
    rs_kernel_table_t *t = &m->kernels;
    const rs_kcurve_t *full = NULL;
    for (int c = 0; c < t->n_curves; c++)
        if (t->curve[c].pass == (int)pass && t->curve[c].mask == RS_KMASK_FULL) full = &t->curve[c];
    if (!full) return false;
    const int n = full->n;
    double r[RS_KMASK_COUNT][RS_KMAX_POINTS]; /* the factor of each mask's curve at each point */
    for (int mask = 0; mask < RS_KMASK_COUNT; mask++) {
        const rs_kcurve_t *k = NULL;
        for (int c = 0; c < t->n_curves; c++)
            if (t->curve[c].pass == (int)pass && (int)t->curve[c].mask == mask && t->curve[c].n == n) k = &t->curve[c];
        mask_factors(m, ks, full, mask, k, r[mask]);
    }
    memset(rate, 0, sizeof(double) * RS_KMASK_COUNT * RS_KMAX_POINTS);
    for (int c = 0; c < t->n_curves; c++) {
        rs_kcurve_t *k = &t->curve[c];
        if (k->pass != (int)pass || k->n != n || (int)k->mask < 0 || (int)k->mask >= RS_KMASK_COUNT) continue;
        for (int j = 0; j < n; j++) rate[k->mask][j] = k->pt[j].flops_per_s *= r[k->mask][j];
    }
    *full_out = full;
    return true;
}
