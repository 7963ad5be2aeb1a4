/* test_shared_opts.c - the problem, hardware and limits options most commands share
 * (cli/shared_opts.c): what each custom row stores in the rs_setup_t, the exact message of a bad
 * value, the problem-only and limits-only groups, and the forward-only rule of inference problems. */
#include <string.h>

#include "cli_test.h"
#include "options.h"
#include "shared_opts.h"
#include "test_main.h"

/* Parse words (no quoting) as a command with the shared group only, into a fresh default setup. */
static int parse_shared(const char *words, rs_setup_t *s, rs_opt_group_t *g, rs_err_t *err) {
    int argc;
    char **argv = rs_cli_test_argv("demo", words, &argc);
    rs_setup_default(s);
    *g = rs_cli_shared_group(s, NULL);
    return rs_cli_parse("demo", argc, argv, g, 1, err);
}

/* words parse into s (a fatal assertion when they do not); the group they were parsed with. */
static rs_opt_group_t parsed(const char *words, rs_setup_t *s) {
    rs_opt_group_t g;
    rs_err_t err = {0};
    const int rc = parse_shared(words, s, &g, &err);
    if (rc) fprintf(stderr, "  '%s': %s\n", words, err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return g;
}

static void expect_refused(const char *words, const char *msg) {
    static rs_setup_t s;
    rs_opt_group_t g;
    rs_err_t err = {0};
    rs_cli_test_expect_refused(words, parse_shared(words, &s, &g, &err), &err, msg);
}

RS_TEST(test_problem_rows, "problem rows: values and refusals") {
    static rs_setup_t s;
    parsed("-S 64K -N 4 --batch 2 --heads 16 --kv-heads 4 --head-dim 64 -L zigzag,striped -P both --tile 128x64 --no-causal "
           "--grad-bytes 2",
           &s);
    const rs_problem_t *p = &s.problem;
    CU_ASSERT_EQUAL(p->seq_tokens, 65536);
    CU_ASSERT_EQUAL(p->n_ranks, 4);
    CU_ASSERT_EQUAL(p->batch, 2);
    CU_ASSERT_EQUAL(p->q_heads, 16);
    CU_ASSERT_EQUAL(p->kv_heads, 4);
    CU_ASSERT_EQUAL(p->head_dim, 64);
    CU_ASSERT_EQUAL(p->tile_q, 128);
    CU_ASSERT_EQUAL(p->tile_k, 64);
    CU_ASSERT(!p->causal);
    CU_ASSERT_EQUAL(p->grad_bytes, 2);
    CU_ASSERT(s.grad_bytes_given);
    CU_ASSERT_EQUAL_FATAL(s.n_layouts, 2);
    CU_ASSERT_EQUAL(s.layouts[0], RS_LAYOUT_ZIGZAG);
    CU_ASSERT_EQUAL(s.layouts[1], RS_LAYOUT_STRIPED);
    CU_ASSERT_EQUAL_FATAL(s.n_passes, 2);
    CU_ASSERT_EQUAL(s.passes[0], RS_PASS_FORWARD);
    CU_ASSERT_EQUAL(s.passes[1], RS_PASS_BACKWARD);
    parsed("-L all -P decode --tile 64 --ring pass-q --dtype fp8", &s);
    CU_ASSERT_EQUAL(s.n_layouts, RS_LAYOUT_COUNT);
    CU_ASSERT_EQUAL(s.n_passes, 1);
    CU_ASSERT_EQUAL(s.passes[0], RS_PASS_FORWARD);
    CU_ASSERT(s.problem.decode);
    CU_ASSERT_EQUAL(s.problem.seq_tokens, 1); /* decode: one new token per sequence */
    CU_ASSERT_EQUAL(s.problem.tile_q, 64);
    CU_ASSERT_EQUAL(s.problem.tile_k, 64);
    CU_ASSERT_EQUAL(s.problem.ring, RS_RING_PASS_Q);
    CU_ASSERT(s.ring_given);
    CU_ASSERT_EQUAL(s.spec.dtype, RS_DTYPE_FP8);
    CU_ASSERT_EQUAL(s.problem.act_bytes, 1);
    expect_refused("-L zigzag,zigzag", "--layout zigzag,zigzag: zigzag is given twice (each layout once)");
    expect_refused("-L ,zigzag", "--layout ,zigzag: expected contiguous, striped, zigzag, a comma list of them, or all");
    expect_refused("-L zigzag,diagonal", "--layout zigzag,diagonal: expected contiguous, striped, zigzag, a comma list of them, or all");
    expect_refused("-P sideways", "--pass sideways: expected forward, backward, both or decode");
    expect_refused("--ring pass-x", "--ring pass-x: expected pass-kv (K,V circulate, Q stays) or pass-q (Q circulates, K,V stay)");
    expect_refused("--tile 0", "--tile 0: expected T or TQxTK, sizes in [1, 1048576] (K suffix), e.g. 128 or 128x64");
    expect_refused("--tile 1x2x3", "--tile 1x2x3: expected T or TQxTK, sizes in [1, 1048576] (K suffix), e.g. 128 or 128x64");
    expect_refused("--tile 128x", "--tile 128x: expected T or TQxTK, sizes in [1, 1048576] (K suffix), e.g. 128 or 128x64");
    expect_refused("--dtype fp64", "--dtype fp64: expected fp32, tf32, bf16, fp16 or fp8");
    expect_refused("--grad-bytes 9", "--grad-bytes 9: must be in [1, 8]");
}

RS_TEST(test_hardware_rows, "hardware and limits rows: values and refusals") {
    static rs_setup_t s;
    parsed("-p mi300x --inter ib-ndr --gpus-per-node 4 --host-cost 5e-6:5e-11 --seed 7 --impl te --straggler 1:2 "
           "--straggler 3:1.5 --degrade 2:4 --max-memory 2M --max-time 30",
           &s);
    const rs_machine_spec_t *m = &s.spec;
    CU_ASSERT_STRING_EQUAL(m->profile, "mi300x");
    CU_ASSERT_STRING_EQUAL(m->inter, "ib-ndr");
    CU_ASSERT_EQUAL(m->gpus_per_node, 4);
    RS_ASSERT_REL(m->host_xfer, 5e-6, 1e-15);
    RS_ASSERT_REL(m->host_byte, 5e-11, 1e-15);
    CU_ASSERT_EQUAL(m->seed, 7u);
    CU_ASSERT_EQUAL(m->impl, (int)RS_IMPL_TE);
    CU_ASSERT_EQUAL_FATAL(m->perturb.n_stragglers, 2);
    CU_ASSERT_EQUAL(m->perturb.straggler_rank[1], 3);
    RS_ASSERT_REL(m->perturb.straggler_factor[1], 1.5, 1e-15);
    CU_ASSERT_STRING_EQUAL(s.perturb_args[0][1], "3:1.5"); /* as given: later messages quote it */
    CU_ASSERT_EQUAL_FATAL(m->perturb.n_degraded, 1);
    CU_ASSERT_EQUAL(m->perturb.degraded_hop[0], 2);
    RS_ASSERT_REL(m->perturb.degraded_factor[0], 4, 1e-15);
    CU_ASSERT_STRING_EQUAL(s.perturb_args[1][0], "2:4");
    RS_ASSERT_REL(s.limits.max_mem_bytes, 2097152, 1e-15);
    RS_ASSERT_REL(s.limits.max_time_s, 30, 1e-15);
    parsed("--host-cost 1e-6", &s);
    RS_ASSERT_REL(s.spec.host_xfer, 1e-6, 1e-15);
    CU_ASSERT_EQUAL(s.spec.host_byte, 0);
    expect_refused("--straggler 1:2 --straggler 1:3", "--straggler 1:3: rank 1 already has factor 2 (given once per rank; factors do not multiply)");
    expect_refused("--degrade 1", "--degrade 1: expected HOP:FACTOR, one colon, e.g. 3:1.5");
    char many[4096] = "";
    for (int i = 0; i <= RS_MAX_PERTURB; i++) snprintf(many + strlen(many), sizeof many - strlen(many), "--straggler %d:2 ", i);
    expect_refused(many, "--straggler: at most 64");
    expect_refused("--host-cost :3", "--host-cost :3: expected S or S:S_PER_BYTE (seconds per transfer, per byte), e.g. 5e-6:5e-11");
    expect_refused("--host-cost 11", "--host-cost 11: seconds per transfer must be a number in [0, 10], got '11'");
    expect_refused("--host-cost 1e-6:1", "--host-cost 1e-6:1: seconds per byte must be a number in [0, 0.001], got '1'");
    expect_refused("--impl cuda", "--impl cuda: expected ringsim, flash-attn, te or none");
    expect_refused("--gpus-per-node -1", "--gpus-per-node -1: must be in [0, 1000000]");
    expect_refused("--max-memory 1K", "--max-memory 1K: must be in [1048576, 9223372036854775807]");
    expect_refused("--profile ab,cd --kernel 0123456789012345678901234567890123456789012345678901234567890123456789",
                   "--kernel 0123456789012345678901234567890123456789012345678901234567890123456789: at most 63 characters");
}

/* The problem's section alone (import) and the limits alone (plan): the table's first and last rows. */
RS_TEST(test_sections, "the problem and limits sections as groups") {
    static rs_setup_t s;
    rs_setup_default(&s);
    const rs_opt_group_t p = rs_cli_problem_group(&s), l = rs_cli_limits_group(&s);
    CU_ASSERT_STRING_EQUAL(p.opts[0].name, "seq");
    CU_ASSERT_STRING_EQUAL(p.opts[p.n - 1].name, "tile");
    CU_ASSERT_STRING_EQUAL(p.opts[p.n].name, "profile");
    CU_ASSERT_EQUAL(l.n, 2);
    CU_ASSERT_STRING_EQUAL(l.opts[0].name, "max-time");
    CU_ASSERT_STRING_EQUAL(l.opts[1].name, "max-memory");
    CU_ASSERT_PTR_EQUAL(l.opts + l.n, rs_cli_shared_opts + rs_cli_shared_n);
    /* sweep hands -S, -N and -p to its ranges */
    const rs_opt_group_t g = rs_cli_shared_group(&s, "seq,ranks,profile");
    CU_ASSERT(!rs_cli_offered(&g, &rs_cli_shared_opts[0]));
    CU_ASSERT(rs_cli_offered(&g, &rs_cli_shared_opts[2]));
}

RS_TEST(test_inference_passes, "inference problems run the forward pass") {
    static rs_setup_t s;
    rs_opt_group_t g = parsed("--cached 64K", &s);
    s.n_passes = 2, s.passes[0] = RS_PASS_FORWARD, s.passes[1] = RS_PASS_BACKWARD; /* a command's default: both */
    rs_cli_inference_passes(&s, &g);
    CU_ASSERT_EQUAL(s.n_passes, 1);
    CU_ASSERT_EQUAL(s.passes[0], RS_PASS_FORWARD);
    g = parsed("--cached 64K -P backward", &s);
    rs_cli_inference_passes(&s, &g); /* --pass given: kept (rs_setup_finish refuses it) */
    CU_ASSERT_EQUAL(s.n_passes, 1);
    CU_ASSERT_EQUAL(s.passes[0], RS_PASS_BACKWARD);
    g = parsed("-S 8K", &s);
    s.n_passes = 2, s.passes[0] = RS_PASS_FORWARD, s.passes[1] = RS_PASS_BACKWARD;
    rs_cli_inference_passes(&s, &g); /* training: both stay */
    CU_ASSERT_EQUAL(s.n_passes, 2);
}

RS_TEST_PROGRAM("shared options")
