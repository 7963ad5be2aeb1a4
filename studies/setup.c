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

int rs_setup_finish(rs_setup_t *s, rs_err_t *err) {
    if (s->problem.decode && !s->ring_given) s->problem.ring = RS_RING_PASS_Q;
    if (rs_machine_spec_profile(&s->spec, &s->hw, err) != 0 ||
        rs_machine_spec_build(&s->spec, &s->hw, s->problem.n_ranks, &s->machine, err) != 0)
        return -1;
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
            if (rs_problem_validate(&p, err) != 0) return -1;
            if (!s->note[0]) rs_problem_note(&p, s->note, sizeof s->note);
        }
    return 0;
}

rs_problem_t rs_setup_problem(const rs_setup_t *s, int layout_i, int pass_j) {
    rs_problem_t p = s->problem;
    p.layout = s->layouts[layout_i];
    p.pass = s->passes[pass_j];
    return p;
}
