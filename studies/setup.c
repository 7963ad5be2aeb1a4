/* setup.c - problem, layouts, passes and machine of a study (setup.h). */
#include "setup.h"

#include <stdio.h>
#include <string.h>

#include "kernel.h"

void rs_setup_default(rs_setup_t *s) {
    memset(s, 0, sizeof *s);
    rs_problem_default(&s->problem);
    s->n_layouts = 1;
    s->layouts[0] = RS_LAYOUT_ZIGZAG;
    s->n_passes = 1;
    s->passes[0] = RS_PASS_FORWARD;
    rs_machine_spec_default(&s->spec);
    rs_setup_dtype(s, s->spec.dtype);
}

void rs_setup_measure_problem(rs_problem_t *p) {
    rs_problem_default(p);
    p->seq_tokens = 4096, p->n_ranks = 2, p->q_heads = 2, p->kv_heads = 2, p->head_dim = 128;
    p->act_bytes = rs_dtype_bytes(RS_DTYPE_FP32);
    p->layout = RS_LAYOUT_CONTIGUOUS, p->pass = RS_PASS_FORWARD, p->causal = false;
}

void rs_setup_dtype(rs_setup_t *s, rs_dtype_t dtype) {
    s->spec.dtype = dtype;
    s->problem.act_bytes = rs_dtype_bytes(dtype);
}

int rs_setup_check_perturb(const rs_setup_t *s, int64_t n_ranks, rs_err_t *err) {
    const rs_perturb_t *q = &s->spec.perturb;
    static const char *const opt[2] = {"--straggler", "--degrade"};
    for (int kind = 0; kind < 2; kind++)
        for (int k = 0; k < (kind ? q->n_degraded : q->n_stragglers) && k < RS_MAX_PERTURB; k++) {
            const int64_t at = kind ? q->degraded_hop[k] : q->straggler_rank[k];
            if (at >= 0 && at < n_ranks) continue;
            char made[64];
            const char *arg = s->perturb_args[kind][k];
            if (!arg) snprintf(made, sizeof made, "%lld:%g", (long long)at, kind ? q->degraded_factor[k] : q->straggler_factor[k]);
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: %s %lld must be in [0, %lld] (%sN = %lld%s)", opt[kind], arg ? arg : made,
                           kind ? "hop" : "rank", (long long)at, (long long)n_ranks - 1,
                           kind ? "hop p is the link p -> p+1 mod N, " : "", (long long)n_ranks, kind ? "" : " ranks");
        }
    return 0;
}

void rs_setup_list_err(rs_err_t *err, const char *opt, const char *item, const char *list) {
    char head[1200];
    const int n = snprintf(head, sizeof head, "%s %s: ", opt, item);
    if (!err || !list || !strcmp(item, list) || n >= (int)sizeof head || strncmp(err->msg, head, (size_t)n) != 0) return;
    char rest[sizeof err->msg];
    snprintf(rest, sizeof rest, "%s", err->msg + n);
    rs_errf(err, "%s %s: %s", opt, list, rest);
}

int rs_setup_finish(rs_setup_t *s, rs_err_t *err) {
    if (s->problem.decode && !s->ring_given) s->problem.ring = RS_RING_PASS_Q;
    if (rs_setup_check_perturb(s, s->problem.n_ranks, err) != 0) return -1;
    if (rs_machine_spec_profile(&s->spec, &s->hw, err) != 0 ||
        rs_machine_spec_build(&s->spec, &s->hw, s->problem.n_ranks, &s->machine, err) != 0)
        return rs_err_mark(err, RS_ERR_BAD_INPUT);
    s->kernel_notes[0] = '\0';
    if (rs_problem_is_inference(&s->problem) && s->machine.impl != RS_IMPL_NONE) {
        /* the presets cost a training ring's calls: an inference variant runs the dense model (said
         * when the preset was asked for) */
        if (s->spec.impl > RS_IMPL_NONE)
            snprintf(s->kernel_notes, sizeof s->kernel_notes,
                     "--impl %s: the presets cost training rings; this inference variant (a cache, pass-q or decode) is "
                     "costed at the dense peak F x eff(B)", rs_impl_name((rs_impl_t)s->machine.impl));
        (void)rs_machine_set_kernel(&s->machine, RS_IMPL_NONE, 0, NULL);
    }
    const int64_t gb = rs_impl_grad_bytes((rs_impl_t)s->machine.impl, s->problem.act_bytes);
    if (gb > 0 && !s->grad_bytes_given) s->problem.grad_bytes = gb;
    if (!s->kernel_notes[0]) rs_machine_kernel_notes(&s->machine, s->problem.head_dim, s->kernel_notes, sizeof s->kernel_notes);
    s->note[0] = '\0';
    for (int i = 0; i < s->n_layouts; i++)
        for (int j = 0; j < s->n_passes; j++) {
            rs_problem_t p = rs_setup_problem(s, i, j);
            if (rs_problem_validate(&p, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
            if (!s->note[0]) rs_problem_note(&p, s->note, sizeof s->note);
            rs_kmodel_t km; /* the calls outside their curves' measured shapes, named */
            rs_kmodel_init(&km, &p, &s->machine);
            rs_kernel_range_notes(&km, s->kernel_notes, sizeof s->kernel_notes);
        }
    return 0;
}

rs_problem_t rs_setup_problem(const rs_setup_t *s, int layout_i, int pass_j) {
    rs_problem_t p = s->problem;
    p.layout = s->layouts[layout_i];
    p.pass = s->passes[pass_j];
    return p;
}
