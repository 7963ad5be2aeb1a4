/* kernel_estimate.c - the estimated kernel of a device with no curves (kernel_estimate.h). */
#include "kernel_estimate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "profile.h"
#include "schedule.h"

static rs_kest_t est;
static once_flag est_once = ONCE_FLAG_INIT;

/* Curves already read (the H200 and H800 carry the H100's published curves: each counts once). */
typedef struct {
    int n;
    rs_kcurve_t c[96];
} seen_t;

static bool seen_before(seen_t *s, const rs_kcurve_t *c) {
    for (int i = 0; i < s->n; i++) {
        const rs_kcurve_t *o = &s->c[i];
        if (o->pass != c->pass || o->mask != c->mask || o->n != c->n) continue;
        bool same = true;
        for (int j = 0; j < c->n && same; j++)
            same = o->pt[j].q_tokens == c->pt[j].q_tokens && o->pt[j].k_tokens == c->pt[j].k_tokens &&
                   o->pt[j].flops_per_s == c->pt[j].flops_per_s;
        if (same) return true;
    }
    if (s->n < (int)(sizeof s->c / sizeof s->c[0])) s->c[s->n++] = *c;
    return false;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void est_init(void) {
    static const double shapes[RS_KEST_SHAPES] = {512, 1024, 2048, 4096, 8192, 16384};
    static double vals[2][2][RS_KEST_SHAPES][64];
    memcpy(est.shape_tokens, shapes, sizeof shapes);
    seen_t *seen = calloc(1, sizeof *seen);
    rs_hw_t *hw = malloc(sizeof *hw);
    size_t used = 0;
    for (const char *const *p = rs_hw_preset_names(); seen && hw && *p; p++) {
        rs_err_t e = {0};
        if (rs_hw_load(*p, hw, &e) != 0 || hw->kernels.from[0] || !(hw->flops_per_s[RS_DTYPE_BF16] > 0)) continue;
        for (int k = 0; k < hw->kernels.n_kernels; k++) {
            if (hw->kernels.kernel[k].kind != RS_RKIND_PUBLISHED) continue;
            bool any = false;
            for (int i = 0; i < hw->kernels.n_curves; i++) {
                const rs_kcurve_t *c = &hw->kernels.curve[i];
                if (c->kernel != k || !(c->dtypes >> RS_DTYPE_BF16 & 1u) || c->head_dim != 128 || c->mask == RS_KMASK_SHIFTED) continue;
                if (seen_before(seen, c)) continue;
                any = true;
                est.n_curves++;
                const int m = c->mask == RS_KMASK_CAUSAL;
                for (int s = 0; s < RS_KEST_SHAPES; s++) {
                    const double a = shapes[s] * shapes[s];
                    int *n = &est.n[c->pass][m][s];
                    const rs_kpoint_t *p0 = &c->pt[0], *p1 = &c->pt[c->n - 1]; /* measured, not a borrowed shape */
                    if (a < p0->q_tokens * p0->k_tokens || a > p1->q_tokens * p1->k_tokens || *n >= 64) continue;
                    vals[c->pass][m][s][(*n)++] = rs_kcurve_rate(c, shapes[s], shapes[s]) / hw->flops_per_s[RS_DTYPE_BF16];
                }
            }
            if (any && used < sizeof est.curves)
                used += (size_t)snprintf(est.curves + used, sizeof est.curves - used, "%s%s %s", used ? ", " : "", *p,
                                         hw->kernels.kernel[k].name);
        }
    }
    for (int pass = 0; pass < 2; pass++)
        for (int m = 0; m < 2; m++)
            for (int s = 0; s < RS_KEST_SHAPES; s++) {
                const int n = est.n[pass][m][s];
                if (n == 0) continue;
                qsort(vals[pass][m][s], (size_t)n, sizeof(double), cmp_double);
                est.median[pass][m][s] = n % 2 ? vals[pass][m][s][n / 2] : 0.5 * (vals[pass][m][s][n / 2 - 1] + vals[pass][m][s][n / 2]);
            }
    free(seen);
    free(hw);
}

const rs_kest_t *rs_kernel_estimate_fractions(void) {
    call_once(&est_once, est_init);
    return &est;
}

int rs_kernel_estimate(rs_dtype_t dtype, double peak, rs_kernel_table_t *t, rs_err_t *err) {
    const rs_kest_t *e = rs_kernel_estimate_fractions();
    memset(t, 0, sizeof *t);
    rs_kernel_info_t *k = &t->kernel[0];
    snprintf(k->name, sizeof k->name, "median-of-published");
    k->kind = RS_RKIND_ESTIMATED;
    snprintf(k->source, sizeof k->source,
             "no attention kernel measured or published for this device: at each shape the median fraction of the datasheet peak "
             "reached by the %d published bf16 head_dim-128 curves of the shipped presets (%.400s), times this device's %s peak",
             e->n_curves, e->curves, rs_dtype_name(dtype));
    t->n_kernels = 1;
    for (int pass = 0; pass < 2; pass++)
        for (int m = 0; m < 2; m++) {
            rs_kcurve_t *c = &t->curve[t->n_curves];
            memset(c, 0, sizeof *c);
            c->dtypes = 1u << dtype, c->head_dim = 128, c->pass = pass, c->mask = m ? RS_KMASK_CAUSAL : RS_KMASK_FULL;
            for (int s = 0; s < RS_KEST_SHAPES; s++)
                if (e->n[pass][m][s] > 0)
                    c->pt[c->n++] = (rs_kpoint_t){e->shape_tokens[s], e->shape_tokens[s], e->median[pass][m][s] * peak};
            if (c->n == 0) continue;
            snprintf(c->source, sizeof c->source, "%s %s: the median fraction of peak of the published curves covering each square "
                     "(%d to %d curves a shape), times the device's peak", rs_pass_name((rs_pass_t)pass), rs_kmask_name(c->mask),
                     e->n[pass][m][0], e->n[pass][m][RS_KEST_SHAPES - 1]);
            t->n_curves++;
        }
    if (t->n_curves == 0) return rs_errc(err, RS_ERR_RUNTIME, "estimated kernel: no published curve could be read from the presets");
    for (int i = RS_IMPL_RINGSIM; i < RS_IMPL_COUNT; i++) t->impl_kernel[i] = 1;
    t->default_impl = RS_IMPL_FLASH_ATTN;
    return rs_kernel_table_prepare(t, err);
}
