/* test_study_sweep_csv.c - the sweep's CSV (studies/study_sweep_csv.c): the header of a spec, a
 * hand-made point's row (every column, "nan" for what did not run, the note's commas made ';'),
 * the crossover of a series in the data and its line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "studies_fixtures.h"
#include "study_sweep.h"
#include "test_main.h"

/* What fn wrote into a temporary file. */
static char *written(void (*fn)(FILE *, const void *), const void *arg) {
    FILE *fp = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fn(fp, arg);
    return rs_test_read_back(fp);
}

static size_t count(const char *s, char c) {
    size_t n = 0;
    for (; *s; s++) n += *s == c;
    return n;
}

static void header_of(FILE *fp, const void *arg) { rs_sweep_write_header(fp, arg, "ringsim sweep -x", NULL, 0); }

RS_TEST(test_header, "the header: format line, command, problem, 42 columns") {
    static rs_sweep_spec_t s;
    memset(&s, 0, sizeof s);
    rs_setup_default(&s.common);
    char *h = written(header_of, &s);
    const char *want = "# ringsim-sweep=1\n# command=ringsim sweep -x\n# batch=1 q_heads=32 kv_heads=8 head_dim=128 "
                       "act_bytes=2 grad_bytes=4 causal=1 tile=128x128\n";
    CU_ASSERT_EQUAL(strncmp(h, want, strlen(want)), 0);
    const char *cols = strstr(h, "\npoint,series,profile,layout,pass,causal,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(cols);
    CU_ASSERT_EQUAL(count(cols + 1, ','), 41); /* 42 columns */
    CU_ASSERT_EQUAL(strcmp(cols + strlen(cols) - 22, "exec_overlap_eff,note\n"), 0);
    free(h);
}

/* One point: closed form, the walk's summary, no simulator, an execution, a note with commas. */
static void planted(rs_sweep_point_t *pt) {
    memset(pt, 0, sizeof *pt);
    snprintf(pt->series, sizeof pt->series, "s/x");
    snprintf(pt->profile, sizeof pt->profile, "p");
    rs_problem_default(&pt->problem);
    pt->problem.seq_tokens = 8192, pt->problem.n_ranks = 4;
    rs_closed_t *c = &pt->closed;
    c->f_peak_per_s = 1e15, c->w_bytes_per_s = 4.5e11, c->latency_s = 0x1p-20, c->b_min_tokens = 512, c->b_star_tokens = NAN;
    c->t_comp_s = 0.25, c->t_comm_s = 0.5, c->t_step_s = 0.5, c->comm_bound = true;
    pt->seed_t_comp_s = 0.125, pt->seed_t_comm_s = 0.0625;
    pt->walk.ideal_s = 1;
    pt->pred = (rs_trace_summary_t){0};
    pt->pred.t_comp_s = 0.25, pt->pred.t_comm_s = 0.5, pt->pred.t_step_s = 0.5, pt->pred.makespan_s = 2, pt->pred.n_comm = 1;
    pt->has_exec = true;
    pt->exec.t_comp_s = 1, pt->exec.t_comm_s = 0.5, pt->exec.t_step_s = 1, pt->exec.makespan_s = 4, pt->exec.n_comm = 1;
    snprintf(pt->note, sizeof pt->note, "sim skipped: a,b\nc");
}

static void row_of(FILE *fp, const void *arg) { rs_sweep_write_row(fp, 7, arg); }

RS_TEST(test_row, "a planted point's row, column by column") {
    rs_sweep_point_t pt;
    planted(&pt);
    char *r = written(row_of, &pt);
    CU_ASSERT_STRING_EQUAL(r, "7,s/x,p,zigzag,forward,1,8192,4,2048,1000000000000000,450000000000,9.5367431640625e-07,512,nan,"
                              "0.125,0.0625,0.25,0.5,0.5,comm,0.25,0.5,0.5,2,comm,0.5,0.5,nan,nan,nan,nan,,nan,nan,1,0.5,1,4,"
                              "compute,0.25,1,sim skipped: a;b;c\n");
    CU_ASSERT_EQUAL(count(r, ','), 41);
    free(r);
}

/* A series with T_comp = B^2, T_comm = 128 B over B = 256, 64, 128 (unsorted): they cross at
 * B = 128; another series' points do not count; the simulator did not run. */
RS_TEST(test_crossover, "crossover of a series in the data, and its line") {
    static rs_sweep_point_t pts[4];
    const int64_t b[4] = {256, 64, 128, 64};
    for (int i = 0; i < 4; i++) {
        planted(&pts[i]);
        pts[i].problem.n_ranks = 2, pts[i].problem.seq_tokens = 2 * b[i];
        pts[i].pred.t_comp_s = (double)(b[i] * b[i]), pts[i].pred.t_comm_s = 128.0 * (double)b[i];
        pts[i].exec = pts[i].pred;
    }
    snprintf(pts[3].series, sizeof pts[3].series, "other");
    pts[3].pred.t_comm_s = 1e9;
    RS_ASSERT_REL(rs_sweep_crossover(pts, 4, "s/x", 0), 128, 1e-12);
    RS_ASSERT_REL(rs_sweep_crossover(pts, 4, "s/x", 2), 128, 1e-12);
    CU_ASSERT(isnan(rs_sweep_crossover(pts, 4, "s/x", 1)));
    CU_ASSERT(isnan(rs_sweep_crossover(pts, 4, "other", 0))); /* one point */
    CU_ASSERT(isnan(rs_sweep_crossover(pts, 4, "none", 0)));
    FILE *fp = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    rs_sweep_write_crossovers(fp, pts, 4);
    char *lines = rs_test_read_back(fp);
    CU_ASSERT_STRING_EQUAL(lines, "# crossover series=s/x b_min_tokens=512 b_star_tokens=- pred_b=128 sim_b=- exec_b=128\n"
                                  "# crossover series=other b_min_tokens=512 b_star_tokens=- pred_b=- sim_b=- exec_b=-\n");
    free(lines);
}

RS_TEST_PROGRAM("study_sweep_csv")
