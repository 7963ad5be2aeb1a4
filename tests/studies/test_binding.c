/* test_binding.c - libringsim for other languages (studies/binding.c): the layout table gives the
 * compiler's offsets, sizes and kinds; the closed form and the walk of a setup's entry are the
 * model's; the walk's events fill the caller's array, and too small an array is refused by name. */
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "binding.h"
#include "cost.h"
#include "studies_fixtures.h"
#include "test_main.h"

/* The table's row of type.field (field NULL: the struct's own row), or NULL. */
static const rs_abi_field_t *row(const char *type, const char *field) {
    for (const rs_abi_field_t *r = rs_abi_fields(); r->type; r++)
        if (!strcmp(r->type, type) && (field ? r->field && !strcmp(r->field, field) : !r->field)) return r;
    return NULL;
}

RS_TEST(test_version, "the library's version") {
    const char *v = rs_version();
    int a, b, c, n = 0;
    CU_ASSERT_EQUAL(sscanf(v, "%d.%d.%d%n", &a, &b, &c, &n), 3);
    CU_ASSERT_EQUAL((size_t)n, strlen(v));
}

RS_TEST(test_layout_table, "the layout table: the compiler's offsets, sizes, kinds; nested types first") {
    const rs_abi_field_t *r = row("rs_problem_t", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->size, sizeof(rs_problem_t));
    r = row("rs_problem_t", "seq_tokens");
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->offset, offsetof(rs_problem_t, seq_tokens));
    CU_ASSERT_EQUAL(r->size, 8);
    CU_ASSERT_EQUAL(r->kind, 'q');
    r = row("rs_problem_t", "causal");
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->offset, offsetof(rs_problem_t, causal));
    CU_ASSERT_EQUAL(r->kind, '?');
    r = row("rs_err_t", "msg");
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->kind, 's');
    CU_ASSERT_EQUAL(r->size, sizeof(((rs_err_t *)0)->msg));
    r = row("rs_err_t", "code");
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->offset, offsetof(rs_err_t, code));
    CU_ASSERT_EQUAL(r->kind, 'I'); /* an enum: its unsigned int */
    r = row("rs_setup_t", "problem");
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->kind, 'T');
    CU_ASSERT_STRING_EQUAL(r->sub, "rs_problem_t");
    CU_ASSERT_EQUAL(r->offset, offsetof(rs_setup_t, problem));
    r = row("rs_setup_t", "layouts"); /* an array: all its elements */
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->size, sizeof(((rs_setup_t *)0)->layouts));
    r = row("rs_setup_t", "machine"); /* not described */
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->kind, 'x');
    /* nested types before the types that hold them */
    CU_ASSERT(row("rs_problem_t", NULL) < row("rs_setup_t", NULL));
    CU_ASSERT(row("rs_perturb_t", NULL) < row("rs_machine_spec_t", NULL));
    CU_ASSERT(row("rs_plan_option_t", NULL) < row("rs_plan_result_t", NULL));
}

/* The closed form and the walk of entry (layout 1, pass 0) are the model's of rs_setup_problem. */
RS_TEST(test_closed_and_walk, "the closed form and the walk of an entry are the model's; too few events refused") {
    rs_setup_t s;
    rs_setup_default(&s);
    s.problem.seq_tokens = 16384, s.problem.n_ranks = 4;
    s.n_layouts = 2, s.layouts[1] = RS_LAYOUT_CONTIGUOUS;
    rs_err_t err = {0};
    rs_test_setup_finish(&s);
    rs_problem_t p, q = rs_setup_problem(&s, 1, 0);
    rs_binding_problem(&s, 1, 0, &p);
    CU_ASSERT_EQUAL(p.layout, q.layout);
    CU_ASSERT_EQUAL(p.layout, RS_LAYOUT_CONTIGUOUS);
    CU_ASSERT_EQUAL(p.pass, RS_PASS_FORWARD);
    CU_ASSERT_EQUAL(p.seq_tokens, 16384);
    CU_ASSERT_EQUAL(p.n_ranks, 4);
    CU_ASSERT_EQUAL(p.grad_bytes, s.problem.grad_bytes);
    rs_closed_t c, ref;
    CU_ASSERT_EQUAL_FATAL(rs_binding_closed(&s, 1, 0, &c, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &s.machine, &ref, &err), 0);
    CU_ASSERT_EQUAL(c.b_star_tokens, ref.b_star_tokens);
    CU_ASSERT_EQUAL(c.t_step_s, ref.t_step_s);
    const size_t cap = rs_binding_walk_events(&s, 1, 0);
    CU_ASSERT_EQUAL(cap, 4 * 5 * RS_EV_KIND_COUNT); /* N (N + 1) steps x 4 kinds */
    rs_event_t ev[4 * 5 * RS_EV_KIND_COUNT];
    size_t n = 0;
    rs_walk_t w, wref;
    CU_ASSERT_EQUAL_FATAL(rs_binding_walk(&s, &(rs_binding_walk_in_t){1, 0, cap}, ev, &n, &w, &err), 0);
    rs_schedule_t *sch = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sch);
    CU_ASSERT_EQUAL_FATAL(rs_model_walk(sch, &s.machine, RS_NO_SINK, NULL, &wref, &err), 0);
    rs_schedule_free(sch);
    CU_ASSERT_EQUAL(w.makespan_s, wref.makespan_s);
    CU_ASSERT_EQUAL(w.rank_steps, wref.rank_steps);
    CU_ASSERT(n > 0 && n <= cap);
    double end = 0;
    for (size_t i = 0; i < n; i++) end = fmax(end, ev[i].end_s);
    RS_ASSERT_REL(end, w.makespan_s, 1e-12);
    /* room for one event: refused, that one kept */
    const size_t made = n;
    CU_ASSERT_EQUAL(rs_binding_walk(&s, &(rs_binding_walk_in_t){1, 0, 1}, ev, &n, &w, &err), -1);
    char want[96];
    snprintf(want, sizeof want, "walk: %zu events, room for 1", made);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(n, 1);
    /* no events asked for: the figures only */
    CU_ASSERT_EQUAL(rs_binding_walk(&s, &(rs_binding_walk_in_t){1, 0, 0}, NULL, NULL, &w, &err), 0);
    CU_ASSERT_EQUAL(w.makespan_s, wref.makespan_s);
}

RS_TEST_PROGRAM("binding")
