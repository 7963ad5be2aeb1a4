/* calibrate_kernels.c - the kernel table of this machine (calibrate_kernels.h): single calls of each
 * mask kind and block size, timed with the real compute backend. */
#include "calibrate_kernels.h"

#include <stdio.h>
#include <string.h>

#include "calib_block.h"

int rs_calib_kernel_table(const rs_problem_t *problem, const rs_compute_ops_t *cops, int local_rank,
                          const rs_calib_kernel_opts_t *o, rs_kernel_table_t *t, rs_err_t *err) {
    memset(t, 0, sizeof *t);
    if (o->n_blocks < 2 || o->n_blocks > RS_KMAX_POINTS)
        return rs_errf(err, "calibrate: the kernel table needs 2 to %d block sizes, got %d", RS_KMAX_POINTS, o->n_blocks);
    t->n_kernels = 1;
    snprintf(t->kernel[0].name, sizeof t->kernel[0].name, "%s", o->name);
    for (int pass = 0; pass < 2; pass++) {
        if (o->passes != 0 && !(o->passes >> pass & 1u)) continue; /* a pass not asked for */
        for (int mask = 0; mask < RS_KMASK_COUNT; mask++) {
            rs_kcurve_t *c = &t->curve[t->n_curves++];
            c->kernel = 0, c->dtypes = 1u << o->dtype, c->head_dim = problem->head_dim, c->pass = pass, c->mask = (rs_kmask_t)mask;
            rs_problem_t p = *problem;
            p.pass = (rs_pass_t)pass;
            for (int i = 0; i < o->n_blocks; i++) {
                double med = 0;
                uint64_t useful = 0;
                const rs_calib_point_t pt = {&p, o->blocks[i], cops, local_rank, o->min_time_s, o->min_reps};
                if (rs_calib_call_median(&pt, (rs_kmask_t)mask, &med, &useful, err) < 0) return -1;
                if (!(med > 0)) return rs_errf(err, "calibrate: a %lld-token %s call took no measurable time", (long long)o->blocks[i],
                                               rs_kmask_name((rs_kmask_t)mask));
                c->pt[c->n++] = (rs_kpoint_t){(double)o->blocks[i], (double)o->blocks[i], (double)useful / med};
            }
        }
    }
    const rs_calib_point_t top = {problem, o->blocks[o->n_blocks - 1], cops, local_rank, o->min_time_s, o->min_reps};
    if (rs_calib_merge_bw(&top, &t->merge_bw_bytes_per_s, err) < 0) return -1;
    t->impl_kernel[RS_IMPL_RINGSIM] = 1;
    t->default_impl = RS_IMPL_RINGSIM;
    return rs_kernel_table_prepare(t, err);
}

void rs_calib_kernel_print(const rs_kernel_table_t *t, FILE *out) {
    fprintf(out, "# kernel table: useful GFLOP/s of one B x B call per mask kind (the profile's kernel %s, preset ringsim)\n",
            t->kernel[0].name);
    fprintf(out, "# %8s %-8s %12s %12s %12s\n", "B", "pass", "full", "causal", "shifted");
    for (int c = 0; c + RS_KMASK_COUNT <= t->n_curves; c += RS_KMASK_COUNT) /* per pass its mask kinds, in order */
        for (int i = 0; i < t->curve[c].n; i++) {
            fprintf(out, "  %8.0f %-8s", t->curve[c].pt[i].q_tokens, rs_pass_name((rs_pass_t)t->curve[c].pass));
            for (int m = 0; m < RS_KMASK_COUNT; m++) fprintf(out, " %12.3f", t->curve[c + m].pt[i].flops_per_s * 1e-9);
            fputc('\n', out);
        }
    fprintf(out, "# merge bandwidth (the backend's grad_add, dst += src): %.4g GB/s\n", t->merge_bw_bytes_per_s * 1e-9);
}
