/* test_import_groups.c - the ring's process group (traces/import_groups.c): in an 8-rank CP2 x DP4
 * Kineto run the ring is the group carrying the p2p K,V traffic (the first of the four CP groups by
 * default, any one by --group name or rank list), its ranks in the group's order, the other traces
 * left out with a note, every event equal to the fixture's ground truth for that replica; the
 * DP all-reduce is not ring traffic; TransformerEngine's separate send / recv kernels and
 * torchtitan's all_to_allv rotation are the ring; Ulysses' all_to_all and all-gather CP are refused by
 * name with what was seen; a group list naming no trace, an unknown group. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "import_check.h"
#include "import_groups.h"
#include "test_main.h"
#include "traces_check.h"

/* The import of replica d's ring matches the fixture for both passes. */
static void check_replica(const fx_run_t *run, rs_import_t *im, int d) {
    CU_ASSERT_PTR_NOT_NULL_FATAL(im);
    CU_ASSERT_EQUAL_FATAL(rs_import_n_traces(im), 2);
    CU_ASSERT_EQUAL(rs_import_info(im)->n_ranks, run->o.n_ranks);
    for (size_t i = 0; i < 2; i++) {
        const rs_trace_t *t = rs_import_trace(im, i);
        rs_problem_t want = it_problem(), p;
        rs_err_t err;
        want.n_ranks = run->o.n_ranks;
        want.pass = i == 0 ? RS_PASS_FORWARD : RS_PASS_BACKWARD;
        CU_ASSERT_EQUAL_FATAL(rs_trace_problem(t, &p, &err), 0);
        CU_ASSERT_EQUAL(p.n_ranks, run->o.n_ranks);
        rs_trace_t *exp = fx_expected(run, want.pass, 0, d, &want);
        CU_ASSERT_PTR_NOT_NULL_FATAL(exp);
        it_same_events(exp, t, 1e-12);
        rs_trace_free(exp);
    }
}

static bool has_note(const rs_import_t *im, const char *needle) {
    const rs_import_info_t *in = rs_import_info(im);
    for (size_t i = 0; i < in->n_notes; i++)
        if (strstr(in->notes[i], needle)) return true;
    return false;
}

RS_TEST(test_cp_dp, "CP2 x DP4: the default ring, --group by name and by ranks") {
    fx_opts_t fo;
    fx_opts_default(&fo);
    fo.n_ranks = 2;
    fo.dp = 4;
    fx_run_t run;
    const char *dir = it_kineto_dir("cpdp", &fo, true, &run);
    rs_import_opts_t o = it_opts();
    rs_err_t err = {0};
    rs_import_t *im = it_import1(dir, &o, &err);
    if (!im) fprintf(stderr, "  %s\n", err.msg);
    check_replica(&run, im, 0);
    CU_ASSERT_STRING_EQUAL(rs_import_info(im)->group, "'1' (cp) [0, 1]");
    CU_ASSERT_EQUAL(rs_import_info(im)->world_size, 8);
    CU_ASSERT(has_note(im, "left out 6 trace(s) of ranks outside the ring's group '1' (cp) [0, 1]"));
    CU_ASSERT(has_note(im, "4 process groups carry point-to-point traffic"));
    rs_import_free(im);
    /* replica 2 (global ranks 4 and 5) by its group's name, replica 3 by its ranks */
    o.group = "3";
    im = it_import1(dir, &o, &err);
    if (!im) fprintf(stderr, "  %s\n", err.msg);
    check_replica(&run, im, 2);
    CU_ASSERT_STRING_EQUAL(rs_import_info(im)->group, "'3' (cp) [4, 5]");
    rs_import_free(im);
    o.group = "6,7";
    im = it_import1(dir, &o, &err);
    if (!im) fprintf(stderr, "  %s\n", err.msg);
    check_replica(&run, im, 3);
    rs_import_free(im);
    /* a DP group (the all-reduce's) carries no ring traffic: no p2p kernel of the ring in it */
    o.group = "5";
    it_expect_fail(dir, &o, "attention kernels but no point-to-point kernel of the ring in group '5' (dp) [0, 2, 4, 6]", RS_ERR_BAD_INPUT);
    /* an unknown group, ranks without a trace */
    o.group = "cp9";
    it_expect_fail(dir, &o, "--group cp9: neither a process group of the trace (", RS_ERR_BAD_INPUT);
    o.group = "8-9";
    it_expect_fail(dir, &o, "no trace of ranks 8, 9 of the ring's group '8-9' (--group) [8, 9] (8 trace(s) given)", RS_ERR_BAD_INPUT);
    fx_free(&run);
}

RS_TEST(test_implementations, "TransformerEngine send/recv kernels, torchtitan's all_to_allv rotation") {
    for (int impl = FX_TE; impl <= FX_TORCH; impl++) {
        fx_opts_t fo;
        fx_opts_default(&fo);
        fo.impl = impl;
        fx_run_t run;
        const char *dir = it_kineto_dir(impl == FX_TE ? "te" : "torch", &fo, false, &run);
        rs_import_opts_t o = it_opts();
        o.problem.grad_bytes = 2; /* both send dK,dV in bf16 */
        rs_err_t err = {0};
        rs_import_t *im = it_import1(dir, &o, &err);
        if (!im) fprintf(stderr, "  impl %d: %s\n", impl, err.msg);
        it_check_import(&run, im, 0);
        CU_ASSERT_STRING_EQUAL(rs_import_info(im)->group, "'1' (cp) [0..3]");
        rs_import_free(im);
        fx_free(&run);
    }
}

static void tw_a2a(fx_opts_t *o) { o->comm = FX_COMM_A2A; }
static void tw_ag(fx_opts_t *o) { o->comm = FX_COMM_AG; }

RS_TEST(test_not_a_ring, "Ulysses' all_to_all, all-gather CP: refused by name, with what was seen") {
    it_bad_kineto("a2a", tw_a2a, false, "rank0.pt.trace.json: rank 0: 2 attention kernels and no point-to-point ring traffic, but all_to_all: "
                                        "Ulysses-style (all_to_all) sequence parallelism");
    it_bad_kineto("a2a2", tw_a2a, false, "(found 8 all_to_all, 0 p2p kernels in group '1' (cp) [0..3]; 1 all_reduce, 0 p2p kernels in group '0' (default_pg) [0..3])");
    it_bad_kineto("ag", tw_ag, false, "all_gather: all-gather context parallelism (K,V gathered once per layer, as Llama 3's)");
}

RS_TEST(test_label, "group labels") {
    int32_t ranks[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    rs_raw_group_t g = {"1", "cp", ranks, 4};
    char buf[200];
    CU_ASSERT_STRING_EQUAL(rs_import_group_label(&g, buf, sizeof buf), "'1' (cp) [0..3]");
    g.n = 12; /* long lists cut */
    CU_ASSERT_STRING_EQUAL(rs_import_group_label(&g, buf, sizeof buf), "'1' (cp) [0..11]");
    int32_t strided[12] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22};
    g.ranks = strided;
    CU_ASSERT_STRING_EQUAL(rs_import_group_label(&g, buf, sizeof buf), "'1' (cp) [0, 2, 4, 6, 8, 10, ..., 22] (12 ranks)");
    int32_t odd[4] = {0, 2, 4, 6};
    rs_raw_group_t h = {"7", "", odd, 4}; /* no description */
    CU_ASSERT_STRING_EQUAL(rs_import_group_label(&h, buf, sizeof buf), "'7' [0, 2, 4, 6]");
}

RS_TEST_PROGRAM_IN("import_groups")
