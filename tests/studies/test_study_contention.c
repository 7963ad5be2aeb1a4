/* test_study_contention.c - the contention study (studies/study_contention.c): the knobs' defaults and
 * names, the count of points, refusals before anything runs as bad input, and a small study - 8 rings
 * of 2 ranks (TP 8 fills each node) over 1 and 8 NICs per node on a leaf-spine - whose CSV holds its
 * points and whose efficiency grows with the NICs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "plot.h"
#include "setup.h"
#include "study_contention.h"
#include "studies_fixtures.h"
#include "test_main.h"

RS_TEST(test_knobs, "knobs: defaults, order names, the count of points") {
    rs_contention_knobs_t k;
    rs_contention_knobs_default(&k);
    CU_ASSERT_EQUAL(k.tp, 1);
    CU_ASSERT_EQUAL(k.dp, 1);
    CU_ASSERT_EQUAL(k.n_fabrics, 1);
    CU_ASSERT_EQUAL(k.fabrics[0], RS_FABRIC_FLAT);
    CU_ASSERT_EQUAL(k.n_nics, 1);
    CU_ASSERT_EQUAL(k.nics[0], 0);
    CU_ASSERT_EQUAL(k.oversubs[0], 1);
    CU_ASSERT_EQUAL(k.background.kind, RS_BG_NONE);
    char buf[32];
    CU_ASSERT_STRING_EQUAL(rs_contention_order_name(&k, 0, buf, sizeof buf), "tp-cp-dp");
    k.n_orders = 2, k.orders[1][0] = RS_DIM_DP, k.orders[1][1] = RS_DIM_TP, k.orders[1][2] = RS_DIM_CP;
    CU_ASSERT_STRING_EQUAL(rs_contention_order_name(&k, 1, buf, sizeof buf), "dp-tp-cp");
    /* cases x fabrics x orders x ratios x NICs; a map file has one order */
    rs_contention_case_t cases[2];
    rs_contention_in_t in = {cases, 2, &k, NULL, NULL, NULL, false, false};
    k.n_nics = 3, k.n_oversubs = 2;
    CU_ASSERT_EQUAL(rs_contention_count(&in), 2 * 1 * 2 * 2 * 3);
    k.map = "placement.map";
    CU_ASSERT_EQUAL(rs_contention_count(&in), 2 * 1 * 1 * 2 * 3);
    CU_ASSERT_STRING_EQUAL(rs_contention_order_name(&k, 1, buf, sizeof buf), "map");
}

/* The default setup's machine and a zigzag forward ring of 2 ranks, B = 4096. */
static void small_case(rs_contention_case_t *c) {
    memset(c, 0, sizeof *c);
    rs_setup_t s;
    rs_setup_default(&s);
    s.problem.n_ranks = 2, s.problem.seq_tokens = 8192;
    rs_test_setup_finish(&s);
    snprintf(c->profile, sizeof c->profile, "h100-sxm");
    c->problem = s.problem;
    c->machine = s.machine;
}

RS_TEST(test_refused, "refusals before anything runs are bad input") {
    rs_contention_case_t c;
    small_case(&c);
    rs_contention_knobs_t k;
    rs_contention_knobs_default(&k);
    rs_contention_in_t in = {&c, 0, &k, NULL, NULL, NULL, false, false};
    rs_contention_out_t out;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_study_contention(&in, &out, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "contention: nothing to simulate");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    in.n_cases = 1, in.figure = "f.png", in.csv = "-";
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_study_contention(&in, &out, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--figure f.png: needs the points in a CSV file (-o FILE.csv)");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    in.figure = NULL, in.csv = NULL;
    k.tp = 3, k.devices = 4; /* 3 x 2 x 1 devices do not make 4 */
    err.code = RS_ERR_RUNTIME;
    CU_ASSERT_EQUAL(rs_study_contention(&in, &out, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(out.done, 0);
    free(out.points);
}

RS_TEST(test_small_study, "a small study: its points in the CSV, efficiency up with the NICs") {
    rs_contention_case_t c;
    small_case(&c);
    rs_contention_knobs_t k;
    rs_contention_knobs_default(&k);
    k.tp = 8, k.fabrics[0] = RS_FABRIC_LEAF_SPINE, k.nodes_per_leaf = 1;
    k.n_nics = 2, k.nics[0] = 1, k.nics[1] = 8;
    rs_contention_in_t in = {&c, 1, &k, rs_test_path("cont.csv"), NULL, "test", false, false};
    rs_contention_out_t out;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_study_contention(&in, &out, &err), 0);
    CU_ASSERT_EQUAL_FATAL(out.done, 2);
    for (int i = 0; i < 2; i++) {
        const rs_contention_point_t *p = &out.points[i];
        CU_ASSERT_EQUAL(p->pick.nics, k.nics[i]);
        CU_ASSERT_EQUAL(p->devices, 16);
        CU_ASSERT_EQUAL(p->rings, 8);
        CU_ASSERT_EQUAL(p->balance_efficiency, p->busy_mean_s / p->makespan_s);
        CU_ASSERT_EQUAL(p->balance_efficiency_free, p->busy_mean_s / p->free_s);
        CU_ASSERT(p->makespan_s >= p->free_s * (1 - 1e-12));
        CU_ASSERT(p->balance_efficiency > 0 && p->balance_efficiency <= p->balance_efficiency_free);
        CU_ASSERT(p->balance_efficiency_free <= 1);
    }
    CU_ASSERT_STRING_EQUAL(out.points[0].series, "leaf-spine/tp-cp-dp/1:1");
    CU_ASSERT(out.points[1].balance_efficiency >= out.points[0].balance_efficiency); /* more NICs, less contention */
    rs_table_t t;
    CU_ASSERT_EQUAL_FATAL(rs_table_read(in.csv, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(t.n_rows, 2);
    for (size_t i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(strtod(t.cells[i][rs_table_col(&t, "balance_efficiency")], NULL), out.points[i].balance_efficiency);
        CU_ASSERT_EQUAL(strtod(t.cells[i][rs_table_col(&t, "makespan_s")], NULL), out.points[i].makespan_s);
        CU_ASSERT_EQUAL(strtoll(t.cells[i][rs_table_col(&t, "nics")], NULL, 10), k.nics[i]);
        CU_ASSERT_STRING_EQUAL(t.cells[i][rs_table_col(&t, "fabric")], "leaf-spine");
    }
    CU_ASSERT(t.n_notes >= 1);
    CU_ASSERT_STRING_EQUAL(t.notes[0], "command=test");
    rs_table_free(&t);
    free(out.points);
}

RS_TEST(test_series_default_nics, "the series of a point with the default NICs names their count (one per device)") {
    rs_contention_case_t c;
    small_case(&c);
    rs_contention_knobs_t k;
    rs_contention_knobs_default(&k);
    k.tp = 8, k.fabrics[0] = RS_FABRIC_LEAF_SPINE, k.nodes_per_leaf = 1;
    k.n_oversubs = 2, k.oversubs[0] = 1, k.oversubs[1] = 2; /* x: the oversubscription; the series: the NICs */
    CU_ASSERT_EQUAL_FATAL(k.n_nics, 1);
    CU_ASSERT_EQUAL_FATAL(k.nics[0], 0);
    rs_contention_in_t in = {&c, 1, &k, rs_test_path("cont_k.csv"), NULL, "test", false, false};
    rs_contention_out_t out;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_study_contention(&in, &out, &err), 0);
    CU_ASSERT_EQUAL_FATAL(out.done, 2);
    char want[64];
    snprintf(want, sizeof want, "leaf-spine/tp-cp-dp/K=%lld", (long long)c.machine.devices_per_node);
    CU_ASSERT(c.machine.devices_per_node > 0);
    for (int i = 0; i < 2; i++) CU_ASSERT_STRING_EQUAL(out.points[i].series, want);
    free(out.points);
}

RS_TEST_MAIN(.suite = "study_contention", .scratch = "study_contention", .keep_failed = true)
