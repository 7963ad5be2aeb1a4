/* test_import_checks.c - the import's consistency checks (traces/import_checks.c): a step's message
 * bytes against the schedule (with the -S the messages would match), its attention kernels against
 * what the schedule computes (hand-made steps), and through the import on fixtures: -S, -L, heads and
 * head_dim against the trace, files of different runs (world size, GPU), a rank's trace missing from
 * the ring's group, an attention launch outside its step range; each refused as bad input with what
 * was seen. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "import_check.h"
#include "import_checks.h"
#include "test_main.h"
#include "traces_check.h"

RS_TEST(test_bytes, "message bytes against the schedule's") {
    rs_problem_t p = it_problem();
    p.seq_tokens = 65536;
    rs_step_t st;
    memset(&st, 0, sizeof st);
    st.send_bytes = st.recv_bytes = 67108864; /* K,V of S / N = 16384 tokens x 8 heads x 128 x 2 bytes x 2 */
    rs_step_where_t w = {"r0.json", 0, 1, 0, RS_PASS_FORWARD};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_import_check_bytes(&w, &st, &p, 67108864, 67108864, &err), 0);
    CU_ASSERT_EQUAL(rs_import_check_bytes(&w, &st, &p, -1, -1, &err), 0); /* the trace does not say */
    CU_ASSERT_EQUAL(rs_import_check_bytes(&w, &st, &p, 33554432, -1, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "r0.json: rank 0 forward ring pass 0 step 1: the trace's messages send 33554432 bytes, the schedule 67108864 "
                                    "(-S 65536, --batch 1, --kv-heads 8, --head-dim 128, 2-byte activations, 4-byte gradients): check those "
                                    "options (-S 32768 would match)");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    /* only the receive known: it is compared */
    CU_ASSERT_EQUAL(rs_import_check_bytes(&w, &st, &p, -1, 100, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the trace's messages receive 100 bytes, the schedule 67108864"));
    CU_ASSERT_PTR_NULL(strstr(err.msg, "would match")); /* 100 x S is no multiple of the schedule's bytes */
}

RS_TEST(test_compute, "attention kernels against what the step computes") {
    rs_problem_t p = it_problem();
    p.layout = RS_LAYOUT_CONTIGUOUS;
    rs_step_t st;
    memset(&st, 0, sizeof st);
    st.has_compute = true;
    rs_step_where_t w = {"r1.json", 1, 2, 0, RS_PASS_FORWARD};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_import_check_compute(&w, &st, &p, 0, &err), 0); /* a masked block, no kernel */
    CU_ASSERT_EQUAL(rs_import_check_compute(&w, &st, &p, 2, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "r1.json: rank 1 forward ring pass 0 step 2: 2 attention kernel(s) where the causal contiguous schedule "
                                    "computes nothing (a masked block): the run's layout is not contiguous, or it was not causal (give -L and "
                                    "--causal/--no-causal as the run used)");
    st.flops_exec = 1000000000;
    CU_ASSERT_EQUAL(rs_import_check_compute(&w, &st, &p, 1, &err), 0);
    CU_ASSERT_EQUAL(rs_import_check_compute(&w, &st, &p, 0, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "step 2: no attention kernel where the causal contiguous schedule computes 1e+09 FLOPs"));
    st.has_compute = false; /* the backward's tail: nothing to check */
    CU_ASSERT_EQUAL(rs_import_check_compute(&w, &st, &p, 0, &err), 0);
}

RS_TEST(test_problem_vs_trace, "-S, -L, heads and head_dim against the fixture") {
    fx_run_t run;
    const char *dir = it_kineto_dir("shapes", NULL, false, &run);
    enum { SEQ, LAYOUT, HEADS, HEAD_DIM };
    static const struct {
        int what;
        const char *needle;
    } cases[] = {
        {SEQ, "rank0.pt.trace.json: rank 0 forward ring pass 0 step 0: the trace's messages send 33554432 bytes, the schedule 67108864 "
              "(-S 65536, --batch 1, --kv-heads 8, --head-dim 128, 2-byte activations, 4-byte gradients): check those options "
              "(-S 32768 would match)"},
        {LAYOUT, "attention kernel(s) where the causal contiguous schedule computes nothing (a masked block)"},
        {HEADS, "runs on a grid of 32 query heads (grid z), but --heads is 16"},
        {HEAD_DIM, "is compiled for head dimension 128 (it runs 97 to 128), but --head-dim is 64"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rs_import_opts_t o = it_opts();
        switch (cases[i].what) {
        case SEQ: o.problem.seq_tokens = 65536; break;
        case LAYOUT: o.problem.layout = RS_LAYOUT_CONTIGUOUS; break;
        case HEADS: o.problem.q_heads = 16; break;
        default: o.problem.head_dim = 64; break;
        }
        it_expect_fail(dir, &o, cases[i].needle, RS_ERR_BAD_INPUT);
    }
    /* the same files with the right problem import */
    rs_import_opts_t o = it_opts();
    rs_err_t err = {0};
    rs_import_t *im = it_import1(dir, &o, &err);
    it_check_import(&run, im, 0);
    rs_import_free(im);
    fx_free(&run);
}

static void tw_gpu(fx_opts_t *o) { o->odd_gpu_rank = 3; }
static void tw_world(fx_opts_t *o) { o->odd_world_rank = 2; }
static void tw_outside(fx_opts_t *o) { o->outside_rank = 1; }

RS_TEST(test_mixed_runs, "traces of different runs, a missing rank, attention outside its range") {
    it_bad_kineto("gpu", tw_gpu, true, "rank3.pt.trace.json: GPU 'NVIDIA A100-SXM4-80GB', but ");
    it_bad_kineto("gpu2", tw_gpu, true, "gpu2/rank0.pt.trace.json: GPU 'NVIDIA H100 80GB HBM3': traces of different runs (or of a mixed cluster, "
                                        "which one profile cannot describe)");
    it_bad_kineto("world", tw_world, true, "rank2.pt.trace.json: world size 8, but ");
    it_bad_kineto("world2", tw_world, true, "world2/rank0.pt.trace.json: world size 4: traces of different runs");
    it_bad_kineto("outside", tw_outside, true, "rank1.pt.trace.json: rank 1: attention kernel 'void flash_fwd_kernel<Flash_fwd_kernel_traits<128, "
                                                "128, 64, ' launched at 161.284 us outside every step range, between 'ring_attn.fwd.step_0' and "
                                                "'ring_attn.fwd.step_1' of one ring pass: its step is unknown (put every launch of a step inside its range)");
    /* 3 of the 4 files of the ring's group */
    fx_run_t run;
    const char *dir = it_kineto_dir("three", NULL, false, &run);
    char p[3][1100];
    const char *paths[3];
    for (int r = 0; r < 3; r++) {
        snprintf(p[r], sizeof p[r], "%s/rank%d.pt.trace.json", dir, r);
        paths[r] = p[r];
    }
    rs_import_opts_t o = it_opts();
    rs_err_t err = {0};
    CU_ASSERT_PTR_NULL(rs_import_read(paths, 3, &o, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no trace of rank 3 of the ring's group '1' (cp) [0..3] (3 trace(s) given): give every rank's trace of the group"));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    fx_free(&run);
}

RS_TEST_PROGRAM_IN("import_checks")
