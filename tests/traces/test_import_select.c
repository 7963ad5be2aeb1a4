/* test_import_select.c - what to import (traces/import_select.c), on a fixture of 2 profiler steps
 * (ProfilerStep#5, #6) of 2 layers each: --profiler-step N alone, with --layer K, --layer K alone
 * (inside the first profiler step holding attention), --window T0:T1 around one profiler step, each
 * giving exactly the ring pass the fixture has there (every event, role event and kernel); the
 * refusals name what the trace has. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "import_check.h"
#include "import_select.h"
#include "test_main.h"
#include "traces_check.h"

static const char *two_steps(fx_run_t *run) {
    fx_opts_t fo;
    fx_opts_default(&fo);
    fo.n_iters = 2;
    fo.n_layers = 2;
    return it_kineto_dir("select", &fo, true, run);
}

/* Import dir with o; it holds the ring pass of overall occurrence occ (iteration x 2 + layer). */
static void expect_pass(const fx_run_t *run, const char *dir, const rs_import_opts_t *o, int occ, int n_found) {
    rs_err_t err = {0};
    rs_import_t *im = it_import1(dir, o, &err);
    if (!im) fprintf(stderr, "  %s\n", err.msg);
    it_check_import(run, im, occ);
    CU_ASSERT_EQUAL(rs_import_info(im)->occurrences[RS_PASS_FORWARD], n_found);
    rs_import_free(im);
}

RS_TEST(test_profiler_step_layer, "--profiler-step, --layer, --occurrence") {
    fx_run_t run;
    const char *dir = two_steps(&run);
    rs_import_opts_t o = it_opts();
    expect_pass(&run, dir, &o, 0, 4); /* the whole trace: 4 ring passes of each kind */
    o.occurrence = 3;
    expect_pass(&run, dir, &o, 3, 4);
    o = it_opts();
    o.profiler_step = 6;
    expect_pass(&run, dir, &o, 2, 2); /* ProfilerStep#6's first layer */
    o.layer = 1;
    expect_pass(&run, dir, &o, 3, 2);
    o.profiler_step = -1; /* --layer alone: inside the first profiler step with attention (#5) */
    expect_pass(&run, dir, &o, 1, 2);
    /* refusals */
    o = it_opts();
    o.profiler_step = 7;
    it_expect_fail(dir, &o, "rank0.pt.trace.json.gz: no ProfilerStep#7 range (the trace has #5..#6)", RS_ERR_BAD_INPUT);
    o = it_opts();
    o.layer = 2;
    it_expect_fail(dir, &o, "--layer 2: the selection has 2 forward ring pass(es) (0..1)", RS_ERR_BAD_INPUT);
    fx_free(&run);
}

RS_TEST(test_window, "--window T0:T1 around one profiler step") {
    fx_run_t run;
    const char *dir = two_steps(&run);
    int64_t first = INT64_MAX, ps0 = 0, ps1 = 0;
    for (size_t i = 0; i < run.nk; i++) first = run.k[i].start_ns < first ? run.k[i].start_ns : first;
    for (size_t i = 0; i < run.ng; i++)
        if (!strcmp(run.g[i].name, "ProfilerStep#6") && run.g[i].rank == 0) ps0 = run.g[i].start_ns, ps1 = run.g[i].end_ns;
    CU_ASSERT_FATAL(ps1 > ps0 && ps0 > first);
    rs_import_opts_t o = it_opts();
    o.window_s[0] = (double)(ps0 - first) * 1e-9;
    o.window_s[1] = (double)(ps1 - first) * 1e-9;
    expect_pass(&run, dir, &o, 2, 2); /* the window holds iteration 1: its first layer */
    o.occurrence = 1;
    expect_pass(&run, dir, &o, 3, 2);
    o = it_opts();
    o.window_s[0] = 100, o.window_s[1] = 101;
    it_expect_fail(dir, &o, "--window 100:101: no kernel starts in it (times in seconds from the traces' first kernel)", RS_ERR_BAD_INPUT);
    fx_free(&run);
}

RS_TEST(test_ranges_with_launch, "which step ranges hold a launch: binary search against the plain scan") {
    unsigned seed = 12345;
    for (int trial = 0; trial < 200; trial++) {
        rs_raw_rank_t r;
        memset(&r, 0, sizeof r);
        const size_t nk = (size_t)(rand_r(&seed) % 40), nr = 1 + (size_t)(rand_r(&seed) % 30);
        rs_raw_kernel_t k[40];
        rs_raw_range_t g[30];
        for (size_t i = 0; i < nk; i++) {
            memset(&k[i], 0, sizeof k[i]);
            k[i].start_ns = rand_r(&seed) % 1000;
            k[i].launch_ns = rand_r(&seed) % 4 == 0 ? RS_RAW_NO_TIME : k[i].start_ns - rand_r(&seed) % 50; /* some without a launch */
        }
        for (size_t i = 0; i < nr; i++) {
            memset(&g[i], 0, sizeof g[i]);
            g[i].start_ns = rand_r(&seed) % 1000 - 50;
            g[i].end_ns = g[i].start_ns + rand_r(&seed) % (trial % 2 ? 5 : 100); /* narrow ranges too, ends included */
        }
        r.k = k, r.nk = nk, r.r = g, r.nr = nr;
        bool fast[30], plain[30];
        CU_ASSERT_EQUAL_FATAL(rs_import_ranges_with_launch(&r, fast, false), 0);
        CU_ASSERT_EQUAL_FATAL(rs_import_ranges_with_launch(&r, plain, true), 0);
        CU_ASSERT_EQUAL(memcmp(fast, plain, nr * sizeof *fast), 0);
    }
    /* by hand: launches at 10 and 20; ranges [0, 9], [10, 10], [11, 19], [15, 25] */
    rs_raw_kernel_t k[2] = {{.start_ns = 12, .launch_ns = 10}, {.start_ns = 20, .launch_ns = RS_RAW_NO_TIME}};
    rs_raw_range_t g[4] = {{.start_ns = 0, .end_ns = 9}, {.start_ns = 10, .end_ns = 10}, {.start_ns = 11, .end_ns = 19}, {.start_ns = 15, .end_ns = 25}};
    rs_raw_rank_t r = {.k = k, .nk = 2, .r = g, .nr = 4};
    bool h[4];
    CU_ASSERT_EQUAL_FATAL(rs_import_ranges_with_launch(&r, h, false), 0);
    CU_ASSERT(!h[0] && h[1] && !h[2] && h[3]);
}

RS_TEST_PROGRAM_IN("import_select")
