/* test_cpu_compute_polls.c - where the CPU compute calls its progress hook (exec/cpu_compute.c's
 * chunk columns and panel rows, cpu_poll_geometry): the count the model puts in a step
 * (model/4-cost/polls.c rs_step_polls) is the kernel's own, for every layout, mask, pass and
 * chunking; and where those polls fall in a step's work (rs_step_poll_at, rs_full_poll_k) by hand. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exec.h"
#include "exec_fixtures.h"
#include "polls.h"
#include "test_main.h"

/* The model's poll count (rs_step_polls) is the executor's: the CPU compute's progress hook counted
 * over every (rank, step) of every layout x causal x pass x (MHA, GQA), at N = 2, 3 and 4, with
 * blocks that are not whole tiles or chunks, for the plain kernel (one tile per panel) and the fast
 * path with several tiles per panel and chunks of a few tiles. */
static void count_poll(void *arg) { ++*(long *)arg; }

RS_TEST(test_poll_count, "poll_count_is_the_executors") {
    static const char *const variants[][3] = {{"plain", "8", NULL}, {"auto", "8", "12"}, {"auto", "12", "4"}};
    int checked = 0, differ = 0;
    for (size_t vi = 0; vi < sizeof variants / sizeof variants[0]; vi++) {
        rs_test_cpu_kernel_env(variants[vi][0], variants[vi][1], variants[vi][2]);
        for (int64_t N = 2; N <= 4; N++)
            for (int cfg = 0; cfg < 3 * 2 * 2 * 2; cfg++) {
                const rs_layout_t layout = (rs_layout_t)(cfg % 3);
                const bool causal = (cfg / 3) % 2;
                const rs_pass_t pass = (cfg / 6) % 2 ? RS_PASS_BACKWARD : RS_PASS_FORWARD;
                const int64_t kvh = (cfg / 12) % 2 ? 1 : 2;
                rs_problem_t p = rs_test_exec_problem(44 * N, N, layout, causal, pass, kvh); /* 44-token blocks: 11 tiles of 4 */
                if (layout != RS_LAYOUT_CONTIGUOUS) p.seq_tokens = 40 * N; /* even halves for zigzag */
                rs_err_t err = {0};
                rs_schedule_t *sch = rs_schedule_create(&p, &err);
                CU_ASSERT_PTR_NOT_NULL_FATAL(sch);
                for (int64_t r = 0; r < N; r++) {
                    long polls = 0;
                    rs_exec_rank_t ri = {.problem = p, .rank = r, .block_tokens = rs_problem_block(&p), .softmax_scale = 0.25,
                                         .progress = count_poll, .progress_arg = &polls};
                    ri.n_segs = rs_schedule_rank_segments(sch, r, ri.segs);
                    const rs_compute_ops_t *o = &rs_cpu_compute_ops;
                    void *cs = NULL, *kv = NULL, *dkv = NULL;
                    CU_ASSERT_FATAL(o->create(&ri, &cs, &err) == 0);
                    CU_ASSERT_FATAL(o->buf_alloc(cs, rs_problem_kv_bytes(&p), &kv, &err) == 0);
                    CU_ASSERT_FATAL(o->buf_alloc(cs, rs_problem_dkv_bytes(&p), &dkv, &err) == 0);
                    rs_poll_model_t g = {0};
                    o->poll_geometry(cs, &g);
                    CU_ASSERT(g.chunk_cols > 0 && g.panel_rows[0] > 0 && g.panel_rows[1] > 0);
                    for (int64_t k = 0; k < rs_schedule_n_steps(sch); k++) {
                        rs_step_t st;
                        rs_schedule_step(sch, r, k, &st);
                        if (!st.has_compute) continue;
                        polls = 0;
                        int rc = pass == RS_PASS_BACKWARD ? o->bwd_step(cs, &st, kv, dkv, &err) : o->fwd_step(cs, &st, kv, &err);
                        CU_ASSERT(rc == 0 && o->wait(cs, NULL, NULL, &err) == 0);
                        const double model = rs_step_polls(&p, &st, &g);
                        CU_ASSERT_EQUAL(model, (double)polls);
                        checked++, differ += model != (double)polls;
                    }
                    o->buf_free(cs, kv), o->buf_free(cs, dkv), o->destroy(cs);
                }
                rs_schedule_free(sch);
            }
    }
    rs_test_cpu_kernel_env(NULL, NULL, NULL);
    CU_ASSERT(checked > 300);
    if (differ) fprintf(stderr, "poll count: %d of %d (rank, step) differ\n", differ, checked);
    /* no geometry: no polls (a backend that does not poll) */
    rs_problem_t p = rs_test_exec_problem(16, 2, RS_LAYOUT_CONTIGUOUS, false, RS_PASS_FORWARD, 2);
    rs_err_t err = {0};
    rs_schedule_t *sch = rs_schedule_create(&p, &err);
    rs_step_t st;
    rs_schedule_step(sch, 0, 0, &st);
    const rs_poll_model_t none = {0};
    CU_ASSERT_EQUAL(rs_step_polls(&p, &st, &none), 0.0);
    /* by hand: one FULL 8 x 8 block, 2 heads, chunks of 4 columns, panels of 8 rows: 2 x 2 x 2 = 8 */
    const rs_poll_model_t g = {.chunk_cols = 4, .panel_rows = {8, 8}};
    CU_ASSERT_EQUAL(rs_step_polls(&p, &st, &g), 8.0);
    rs_schedule_free(sch);
}

/* Where the polls fall (rs_step_poll_at), by hand. B = 8, 2 query heads, tiles of 4.
 * A FULL 8 x 8 block, chunks of 4 columns, panels of 8 rows: 2 units of 8 x 4 per head, 4 in all,
 * 8 polls; forward (first poll at 1/2 of a unit) at work 16, 32, ..., 128 of 128: even, k / 8;
 * backward (3/5) at 19.2, 32, 51.2, 64, ...: the 1st at 0.15, the 2nd at 0.25, the 1.5th at 0.2.
 * The causal diagonal 8 x 8 block (step 0), chunks of 8, panels of 4 rows: per head a 4 x 4 unit
 * (its rows see columns 0-3) and a 4 x 8 one, 48 of the 96 work; forward polls at 8, 16, 32, 48,
 * 56, ...: the 1st at 1/12 (even spacing over its 8 polls: 1/8), the 2.5th at 1/4, the 3rd at 1/3.
 * Past the last poll: the average spacing on. rs_full_poll_k inverts a FULL block's. */
RS_TEST(test_poll_positions, "poll_positions_by_hand") {
    const rs_poll_model_t g = {.chunk_cols = 4, .panel_rows = {8, 8}};
    for (int pass = 0; pass < 2; pass++) {
        rs_problem_t p = rs_test_exec_problem(16, 2, RS_LAYOUT_CONTIGUOUS, false, pass ? RS_PASS_BACKWARD : RS_PASS_FORWARD, 2);
        rs_schedule_t *s = rs_schedule_create(&p, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        rs_step_t st;
        rs_schedule_step(s, 0, 0, &st);
        CU_ASSERT_EQUAL(rs_step_polls(&p, &st, &g), 8.0);
        if (!pass) {
            for (int k = 1; k <= 8; k++) RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, k), k / 8.0, 1e-12);
            RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, 1.5), 1.5 / 8, 1e-12);
        } else {
            RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, 1), 0.15, 1e-12);
            RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, 2), 0.25, 1e-12);
            RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, 1.5), 0.2, 1e-12);
            RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, 3), 0.4, 1e-12);
        }
        RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, 12), 1.5, 1e-12); /* 4 polls past the 8th: + 4 / 8 */
        CU_ASSERT_EQUAL(rs_step_poll_at(&p, &st, &g, 0), 0.0);
        const rs_poll_model_t none = {0};
        CU_ASSERT_EQUAL(rs_step_poll_at(&p, &st, &none, 2), 0.0);
        /* the calibration's inverse on the same FULL block, and back */
        for (double f = 0.03; f < 1.4; f += 0.07) {
            const double k = rs_full_poll_k(f, 8, rs_poll_first_frac(p.pass));
            RS_ASSERT_REL(rs_step_poll_at(&p, &st, &g, k), f, 1e-9);
        }
        rs_schedule_free(s);
    }
    rs_problem_t p = rs_test_exec_problem(16, 2, RS_LAYOUT_CONTIGUOUS, true, RS_PASS_FORWARD, 2);
    rs_schedule_t *s = rs_schedule_create(&p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_step_t st;
    rs_schedule_step(s, 0, 0, &st);
    const rs_poll_model_t gd = {.chunk_cols = 8, .panel_rows = {8, 8}};
    CU_ASSERT_EQUAL(rs_step_polls(&p, &st, &gd), 8.0);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &gd, 1), 1.0 / 12, 1e-12);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &gd, 2.5), 0.25, 1e-12);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &gd, 3), 1.0 / 3, 1e-12);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &gd, 8), 1.0, 1e-12);
    rs_schedule_free(s);
}

RS_TEST_PROGRAM("cpu_compute_polls")
