/* test_study_report_sweeps.c - the report's sweeps (studies/study_report_sweeps.c), with the
 * simulator: the B sweeps of the zigzag forward ring (full blocks and causal) over the quick range,
 * their crossover in the data as the document states it, the N and B scaling of three machines, and
 * the contention figure's sentence from its CSV. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "harness.h"
#include "plot.h"
#include "studies_fixtures.h"
#include "study_report.h"
#include "test_main.h"

static const char *md;

/* Column name of row i as a number. */
static double num(const rs_table_t *t, size_t i, const char *name) {
    const int c = rs_table_col(t, name);
    CU_ASSERT_FATAL(c >= 0);
    return strtod(t->cells[i][c], NULL);
}

static void read_table(const char *rel, rs_table_t *t) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", rs_test_path("rep"), rel);
    rs_err_t err;
    CU_ASSERT_EQUAL_FATAL(rs_table_read(path, t, &err), 0);
}

/* B = 256, 1K, 4K, 16K (quick), full blocks then causal; the sentence's crossing is the simulated
 * series' (rs_crossover_b of its rows, sorted by B). */
RS_TEST(test_b_sweeps, "the B sweeps, and their crossover as the document states it") {
    rs_test_report("rep", "--no-exec --no-figures --quick");
    md = rs_test_report_file("report.md");
    CU_ASSERT_PTR_NOT_NULL_FATAL(md);
    double x[2];
    for (int k = 0; k < 2; k++) {
        rs_table_t t;
        read_table(k ? "data/sweep-b-causal.csv" : "data/sweep-b.csv", &t);
        CU_ASSERT_EQUAL_FATAL(t.n_rows, 4);
        double b[4], tc[4], tm[4];
        for (size_t i = 0; i < 4; i++) {
            b[i] = num(&t, i, "block_tokens"), tc[i] = num(&t, i, "sim_t_comp_s"), tm[i] = num(&t, i, "sim_t_comm_s");
            CU_ASSERT_EQUAL(b[i], 256 << (2 * i));
            CU_ASSERT_EQUAL(num(&t, i, "causal"), k);
            CU_ASSERT_EQUAL(num(&t, i, "n_ranks"), 8);
            CU_ASSERT_STRING_EQUAL(t.cells[i][rs_table_col(&t, "layout")], "zigzag");
        }
        x[k] = rs_crossover_b(b, tc, tm, 4);
        rs_table_free(&t);
    }
    char t1[96], t2[96], want[400];
    snprintf(want, sizeof want, "(SimGrid, zigzag, forward, N = 8; figures tcomm-vs-b and tcomm-vs-b-causal): full blocks cross %s",
             rs_report_crossing_text(x[0], 256, 16384, t1, sizeof t1));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, want));
    snprintf(want, sizeof want, "under the causal mask %s", rs_report_crossing_text(x[1], 256, 16384, t2, sizeof t2));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, want));
}

/* N = 2..16 at the problem's S, and B = 256..16K at its N, for the profile, it one device per node,
 * and the other vendor. */
RS_TEST(test_scaling, "the N and B scaling of three machines") {
    static const char *const profiles[3] = {"h100-sxm", "h100-sxm:g1", "mi300x"};
    rs_table_t t;
    read_table("data/scaling-n.csv", &t);
    CU_ASSERT_EQUAL_FATAL(t.n_rows, 12);
    for (size_t i = 0; i < t.n_rows; i++) {
        CU_ASSERT_STRING_EQUAL(t.cells[i][rs_table_col(&t, "profile")], profiles[i / 4]);
        CU_ASSERT_EQUAL(num(&t, i, "n_ranks"), 2 << (i % 4));
        CU_ASSERT_EQUAL(num(&t, i, "seq_tokens"), 131072);
    }
    rs_table_free(&t);
    read_table("data/scaling-b.csv", &t);
    CU_ASSERT_EQUAL_FATAL(t.n_rows, 12);
    for (size_t i = 0; i < t.n_rows; i++) {
        CU_ASSERT_STRING_EQUAL(t.cells[i][rs_table_col(&t, "profile")], profiles[i / 4]);
        CU_ASSERT_EQUAL(num(&t, i, "n_ranks"), 8);
        CU_ASSERT_EQUAL(num(&t, i, "block_tokens"), 256 << (2 * (i % 4)));
    }
    rs_table_free(&t);
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "h100-sxm:g1 is h100-sxm with one device per node: every ring hop crosses the inter-node tier"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "**Scaling, mi300x** (figure scaling-n, lower panel): at S = 131072 the overlap efficiency"));
}

/* The contention sentence: 8 rings of the report's N, efficiency at K = 1 and K = 8 NICs per node
 * for both ratios, each the CSV's. */
RS_TEST(test_contention, "the contention sentence from its CSV") {
    rs_table_t t;
    read_table("data/contention.csv", &t);
    CU_ASSERT_EQUAL_FATAL(t.n_rows, 8); /* K = 1, 2, 4, 8 at 1:1 and 2:1 */
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "8 rings (TP 8 fills each node) of N = 8 ranks, B = 16384, zigzag forward, every hop across "
                                      "nodes, one node per leaf (data/contention.csv): balance efficiency"));
    for (size_t i = 0; i < t.n_rows; i++) {
        const double k = num(&t, i, "nics"), r = num(&t, i, "oversub"), e = num(&t, i, "balance_efficiency");
        if (k != 1 && k != 8) continue;
        char want[128];
        snprintf(want, sizeof want, "%.3f with %.0f NIC%s per node at %.3g:1", e, k, k == 1 ? "" : "s", r);
        CU_ASSERT_PTR_NOT_NULL(strstr(md, want));
    }
    char want[64];
    snprintf(want, sizeof want, "(%.3f without contention).", num(&t, 0, "balance_efficiency_free"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, want));
    rs_table_free(&t);
}

static void free_md(void) { free((void *)md); }

RS_TEST_MAIN(.suite = "report_sweeps", .scratch = "report_sweeps", .keep_failed = true, .teardown = free_md)
