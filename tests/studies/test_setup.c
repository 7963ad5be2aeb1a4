/* test_setup.c - what a study runs on (studies/setup.c): the defaults, the measurement problem, the
 * perturbations against the ring (their messages quote the option as given, or as made), one item
 * of a comma list in a message, and rs_setup_finish: the machine built, the preset's dK,dV bytes,
 * decode running pass-q, an inference variant on the dense model, refusals as bad input. */
#include <string.h>

#include "harness.h"
#include "kernel.h"
#include "setup.h"
#include "studies_fixtures.h"
#include "test_main.h"

RS_TEST(test_defaults, "defaults, the measurement problem, the dtype") {
    rs_setup_t s;
    rs_setup_default(&s);
    CU_ASSERT_EQUAL(s.n_layouts, 1);
    CU_ASSERT_EQUAL(s.layouts[0], RS_LAYOUT_ZIGZAG);
    CU_ASSERT_EQUAL(s.n_passes, 1);
    CU_ASSERT_EQUAL(s.passes[0], RS_PASS_FORWARD);
    CU_ASSERT_STRING_EQUAL(s.spec.profile, "h100-sxm");
    CU_ASSERT_EQUAL(s.spec.dtype, RS_DTYPE_BF16);
    CU_ASSERT_EQUAL(s.problem.act_bytes, 2);
    rs_setup_dtype(&s, RS_DTYPE_FP32);
    CU_ASSERT_EQUAL(s.spec.dtype, RS_DTYPE_FP32);
    CU_ASSERT_EQUAL(s.problem.act_bytes, 4);
    rs_problem_t p, want;
    rs_setup_measure_problem(&p);
    rs_problem_default(&want); /* the rest: the default problem's */
    want.seq_tokens = 4096, want.n_ranks = 2, want.q_heads = 2, want.kv_heads = 2, want.head_dim = 128, want.act_bytes = 4;
    want.layout = RS_LAYOUT_CONTIGUOUS, want.pass = RS_PASS_FORWARD, want.causal = false;
    rs_test_expect_problem(&p, &want);
    CU_ASSERT(!p.causal);
    CU_ASSERT_EQUAL(p.batch, 1);
}

/* Every straggler rank and degraded hop in [0, N - 1]; the message quotes the option's value as
 * given, or rank:factor when a caller made the perturbation. */
RS_TEST(test_perturbations, "perturbations against N: messages as given or made") {
    rs_setup_t s;
    rs_setup_default(&s);
    rs_perturb_t *q = &s.spec.perturb;
    q->n_stragglers = 2;
    q->straggler_rank[0] = 3, q->straggler_factor[0] = 1.5;
    q->straggler_rank[1] = 9, q->straggler_factor[1] = 2;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_setup_check_perturb(&s, 10, &err), 0);
    CU_ASSERT_EQUAL(rs_setup_check_perturb(&s, 8, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--straggler 9:2: rank 9 must be in [0, 7] (N = 8 ranks)");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    s.perturb_args[0][1] = "9:2.00";
    CU_ASSERT_EQUAL(rs_setup_check_perturb(&s, 8, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--straggler 9:2.00: rank 9 must be in [0, 7] (N = 8 ranks)");
    q->n_stragglers = 1;
    q->n_degraded = 1, q->degraded_hop[0] = 8, q->degraded_factor[0] = 1.5;
    CU_ASSERT_EQUAL(rs_setup_check_perturb(&s, 8, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--degrade 8:1.5: hop 8 must be in [0, 7] (hop p is the link p -> p+1 mod N, N = 8)");
    q->degraded_hop[0] = -1;
    CU_ASSERT_EQUAL(rs_setup_check_perturb(&s, 8, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--degrade -1:1.5: hop -1 must be in [0, 7] (hop p is the link p -> p+1 mod N, N = 8)");
    q->degraded_hop[0] = 7;
    CU_ASSERT_EQUAL(rs_setup_check_perturb(&s, 8, &err), 0);
}

/* "OPT ITEM: why" about one item of a comma list becomes "OPT LIST: why"; other messages stay. */
RS_TEST(test_list_err, "one item of a comma list in a message") {
    rs_err_t err = {0};
    rs_errc(&err, RS_ERR_BAD_INPUT, "--profile foo: unknown hardware profile 'foo'");
    rs_setup_list_err(&err, "--profile", "foo", "h100-sxm,foo");
    CU_ASSERT_STRING_EQUAL(err.msg, "--profile h100-sxm,foo: unknown hardware profile 'foo'");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_errf(&err, "foo.json:3: expected a number");
    rs_setup_list_err(&err, "--profile", "foo.json", "a,foo.json");
    CU_ASSERT_STRING_EQUAL(err.msg, "foo.json:3: expected a number");
    rs_errf(&err, "--profile foo: unknown");
    rs_setup_list_err(&err, "--profile", "foo", "foo");
    CU_ASSERT_STRING_EQUAL(err.msg, "--profile foo: unknown");
    rs_setup_list_err(&err, "--profile", "foo", NULL);
    CU_ASSERT_STRING_EQUAL(err.msg, "--profile foo: unknown");
}

/* The default setup on h100-sxm: the machine of the profile at bf16, dK,dV in the preset's dtype. */
RS_TEST(test_finish, "finish: the profile's machine, the preset's dK,dV bytes, an entry's problem") {
    rs_setup_t s;
    rs_setup_default(&s);
    rs_test_setup_finish(&s);
    rs_hw_t hw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &hw, &err), 0);
    CU_ASSERT_EQUAL(s.machine.flops_per_s, hw.flops_per_s[RS_DTYPE_BF16]);
    CU_ASSERT_STRING_EQUAL(s.hw.name, hw.name);
    CU_ASSERT(s.machine.impl > RS_IMPL_NONE); /* the profile's default preset */
    const int64_t gb = rs_impl_grad_bytes((rs_impl_t)s.machine.impl, 2);
    CU_ASSERT(gb > 0);
    CU_ASSERT_EQUAL(s.problem.grad_bytes, gb);
    /* asked for: kept */
    rs_setup_default(&s);
    s.problem.grad_bytes = 2, s.grad_bytes_given = true;
    rs_test_setup_finish(&s);
    CU_ASSERT_EQUAL(s.problem.grad_bytes, 2);
    /* the problem of entry (layout i, pass j) */
    s.n_layouts = 2, s.layouts[1] = RS_LAYOUT_STRIPED;
    s.n_passes = 2, s.passes[1] = RS_PASS_BACKWARD;
    const rs_problem_t p = rs_setup_problem(&s, 1, 1);
    CU_ASSERT_EQUAL(p.layout, RS_LAYOUT_STRIPED);
    CU_ASSERT_EQUAL(p.pass, RS_PASS_BACKWARD);
    CU_ASSERT_EQUAL(p.seq_tokens, s.problem.seq_tokens);
}

/* decode without --ring runs pass-q; a preset asked for with an inference variant is said to cost
 * training rings, and the dense model runs. */
RS_TEST(test_finish_inference, "finish: decode runs pass-q, an inference variant the dense model") {
    rs_setup_t s;
    rs_setup_default(&s);
    s.problem.decode = true, s.problem.cached_tokens = 1024, s.problem.seq_tokens = 1, s.problem.n_ranks = 4;
    rs_test_setup_finish(&s);
    CU_ASSERT_EQUAL(s.problem.ring, RS_RING_PASS_Q);
    CU_ASSERT_EQUAL(s.machine.impl, RS_IMPL_NONE);
    CU_ASSERT_STRING_EQUAL(s.kernel_notes, "");
    rs_setup_default(&s);
    s.problem.cached_tokens = 1024;
    s.spec.impl = RS_IMPL_FLASH_ATTN;
    rs_test_setup_finish(&s);
    CU_ASSERT_EQUAL(s.machine.impl, RS_IMPL_NONE);
    CU_ASSERT_STRING_EQUAL(s.kernel_notes, "--impl flash-attn: the presets cost training rings; this inference variant (a cache, "
                                           "pass-q or decode) is costed at the dense peak F x eff(B)");
}

/* Refusals are bad input: an unknown profile, a problem of an entry that is invalid. */
RS_TEST(test_finish_refused, "finish: refusals are bad input") {
    rs_setup_t s;
    rs_setup_default(&s);
    snprintf(s.spec.profile, sizeof s.spec.profile, "nosuch");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_setup_finish(&s, &err), -1);
    CU_ASSERT_EQUAL(strncmp(err.msg, "--profile nosuch: unknown hardware profile 'nosuch' (presets: ", 62), 0);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_setup_default(&s);
    s.problem.seq_tokens = 10, s.problem.n_ranks = 3, s.layouts[0] = RS_LAYOUT_CONTIGUOUS;
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_setup_finish(&s, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--seq 10: must be divisible by N = 3 for the contiguous layout");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_setup_default(&s);
    s.spec.perturb.n_stragglers = 1, s.spec.perturb.straggler_rank[0] = 8, s.spec.perturb.straggler_factor[0] = 3;
    CU_ASSERT_EQUAL(rs_setup_finish(&s, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--straggler 8:3: rank 8 must be in [0, 7] (N = 8 ranks)");
}

RS_TEST_PROGRAM("setup")
