/* test_polls.c - polled progress (polls.c) by hand on a 4 x 4 block: the polls of a full block (panels
 * of 2 rows, chunks of 2 columns) and of a causal diagonal one (tile rows, executed columns), where
 * the k-th poll falls, the inverse for equal units, and the eta a polled transfer gets. */
#include <math.h>
#include <string.h>

#include "machine.h"
#include "polls.h"
#include "schedule.h"
#include "test_main.h"

/* N = 2, S = 8 (B = 4), one head, tile 2 x 2: rank 0's step 0 is one 4 x 4 block. */
static rs_problem_t problem(bool causal) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 8, p.n_ranks = 2, p.layout = RS_LAYOUT_CONTIGUOUS, p.causal = causal, p.pass = RS_PASS_FORWARD;
    p.q_heads = p.kv_heads = 1, p.head_dim = 16, p.batch = 1, p.tile_q = p.tile_k = 2;
    return p;
}

static void step00(const rs_problem_t *p, rs_step_t *st) {
    rs_schedule_t *s = rs_schedule_create(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_schedule_step(s, 0, 0, st);
    rs_schedule_free(s);
}

static const rs_poll_model_t GEOM = {.chunk_cols = 2, .panel_rows = {2, 2}, .n = 1, .curve = {{1e6, 2.5}}};

/* A full block: 2 panels x 2 chunks, each unit 2 x 2 = 4 of the 16 pair-units of work, polled at half
 * of it (the forward's first product) and at its end: polls at work 2, 4, 6, 8, 10, 12, 14, 16. */
RS_TEST(test_full_block, "a full block's polls and where they fall, by hand") {
    const rs_problem_t p = problem(false);
    rs_step_t st;
    step00(&p, &st);
    CU_ASSERT_EQUAL_FATAL(st.n_blocks, 1);
    CU_ASSERT_EQUAL(rs_step_polls(&p, &st, &GEOM), 8.0);
    CU_ASSERT_EQUAL(rs_poll_first_frac(RS_PASS_FORWARD), 0.5);
    CU_ASSERT_EQUAL(rs_poll_first_frac(RS_PASS_BACKWARD), 0.6);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &GEOM, 1), 2.0 / 16, 1e-15);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &GEOM, 3), 6.0 / 16, 1e-15);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &GEOM, 0.5), 1.0 / 16, 1e-15);  /* linear from 0 to the first */
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &GEOM, 2.5), 5.0 / 16, 1e-15);  /* between polls 2 and 3 */
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &GEOM, 8), 1.0, 1e-15);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &GEOM, 10), 1.25, 1e-15);      /* past the last: the average spacing */
    CU_ASSERT_EQUAL(rs_step_poll_at(&p, &st, &GEOM, 0), 0.0);
    /* the inverse over equal units: the same k */
    RS_ASSERT_REL(rs_full_poll_k(5.0 / 16, 8, 0.5), 2.5, 1e-15);
    RS_ASSERT_REL(rs_full_poll_k(6.0 / 16, 8, 0.5), 3.0, 1e-15);
    RS_ASSERT_REL(rs_full_poll_k(1.25, 8, 0.5), 10.0, 1e-15);
    CU_ASSERT_EQUAL(rs_full_poll_k(0, 8, 0.5), 0.0);
    /* no geometry: no polls */
    const rs_poll_model_t none = {0};
    CU_ASSERT_EQUAL(rs_step_polls(&p, &st, &none), 0.0);
    CU_ASSERT_EQUAL(rs_step_poll_at(&p, &st, &none, 3), 0.0);
}

/* A causal diagonal block, panels of tile_q = 2 rows: rows 0-1 execute 2 columns (1 chunk, 2 polls),
 * rows 2-3 all 4 (2 chunks, 4 polls): 6 polls over 4 + 8 = 12 of work, at 2, 4, then 6, 8, 10, 12. */
RS_TEST(test_diagonal_block, "a causal diagonal block's polls, by hand") {
    const rs_problem_t p = problem(true);
    rs_step_t st;
    step00(&p, &st);
    CU_ASSERT_EQUAL_FATAL(st.blocks[0].mask, RS_MASK_DIAG);
    CU_ASSERT_EQUAL(rs_step_polls(&p, &st, &GEOM), 6.0);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &GEOM, 2), 4.0 / 12, 1e-15);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &GEOM, 3), 6.0 / 12, 1e-15);
    RS_ASSERT_REL(rs_step_poll_at(&p, &st, &GEOM, 6), 1.0, 1e-15);
}

/* eta of a polled transfer: done at L + t_k + x, t_k = k_frac x t_comp: eta = x / (x + t_k). */
RS_TEST(test_eta, "the eta of a polled transfer") {
    rs_machine_t m = rs_machine_figures("polled", RS_DTYPE_BF16, 1e12, (rs_tier_t){"l", 1e9, 0, {0, 0, 0}, 0});
    m.cal.overlap = 0.7;
    CU_ASSERT_EQUAL(rs_step_eta(&m, 1e6, 1e-4, 1e-3, 0.25), 0.7); /* no poll model: the overlap */
    const rs_problem_t p = problem(false);
    rs_step_t st;
    step00(&p, &st);
    CU_ASSERT_EQUAL(rs_step_poll_frac(&m, &p, &st, 1e6, 0), 0.0);
    m.cal.poll = GEOM;
    RS_ASSERT_REL(rs_step_eta(&m, 1e6, 1e-4, 1e-3, 0.25), 1e-4 / (1e-4 + 0.25e-3), 1e-15);
    CU_ASSERT_EQUAL(rs_step_eta(&m, 1e6, 1e-4, 1e-3, 0), 1.0); /* nothing to wait in */
    CU_ASSERT_EQUAL(rs_step_eta(&m, 1e6, 1e-4, 0, 0.25), 1.0);
    /* the poll curve gives k = 2.5 at these bytes: 5/16 of the full block's compute */
    RS_ASSERT_REL(rs_step_poll_frac(&m, &p, &st, 1e6, 0), 5.0 / 16, 1e-15);
}

RS_TEST_PROGRAM("polls")
