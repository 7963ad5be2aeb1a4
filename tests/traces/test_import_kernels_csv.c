/* test_import_kernels_csv.c - the kernel list CSV (traces/import_kernels_csv.c): the exact text for a
 * small import written by hand (rows in (rank, step) order, sorted by start within a step, names
 * quoted with quotes doubled and line breaks as spaces), the tail step of a backward pass, a trace
 * index out of range refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "import_check.h"
#include "test_main.h"
#include "traces_check.h"

/* Rank r of a forward ring of 2: a SendRecv kernel, then two attention kernels (the second after the
 * SendRecv ended: step 1), names with a quote and a line break; times shifted by 250 r ns. */
static void write_rank(int r) {
    char text[4096], path[64];
    const int s = 250 * r;
    snprintf(text, sizeof text,
             "{\"distributedInfo\": {\"rank\": %d}, \"traceEvents\": [\n"
             " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_SendRecv(x)\", \"ts\": %d.%03d, \"dur\": 1,\n"
             "  \"args\": {\"device\": %d, \"stream\": 21, \"correlation\": 1}},\n"
             " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void my_attn_fwd<\\\"q\\\">(P)\", \"ts\": %d.%03d, \"dur\": 2,\n"
             "  \"args\": {\"device\": %d, \"stream\": 7, \"correlation\": 2}},\n"
             " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"my_attn_fwd\\nsplit\", \"ts\": %d.%03d, \"dur\": 1,\n"
             "  \"args\": {\"device\": %d, \"stream\": 7, \"correlation\": 3}}]}\n",
             r, s / 1000, s % 1000, r, (500 + s) / 1000, (500 + s) % 1000, r, (4000 + s) / 1000, (4000 + s) % 1000, r);
    snprintf(path, sizeof path, "kcsv/rank%d.json", r);
    rs_test_write_text(rs_test_path(path), text);
}

RS_TEST(test_exact_text, "the exact text of a small import") {
    const char *dir = rs_test_fresh_dir("kcsv");
    write_rank(0), write_rank(1);
    rs_import_opts_t o = it_opts();
    o.kernel_regex = "my_attn";
    rs_err_t err = {0};
    rs_import_t *im = it_import1(dir, &o, &err);
    if (!im) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(im);
    CU_ASSERT_EQUAL_FATAL(rs_import_n_traces(im), 1);
    CU_ASSERT_EQUAL_FATAL(rs_import_write_kernels_csv(im, 0, rs_test_path("k.csv"), &err), 0);
    /* the times: nanoseconds from the earliest kernel (rank 0's SendRecv) times 1e-9 */
    static const struct {
        int rank, step;
        const char *role;
        int stream;
        int64_t start_ns, end_ns;
        const char *name;
    } rows[6] = {
        {0, 0, "sendrecv", 21, 0, 1000, "\"ncclDevKernel_SendRecv(x)\""},
        {0, 0, "attn-fwd", 7, 500, 2500, "\"void my_attn_fwd<\"\"q\"\">(P)\""},
        {0, 1, "attn-fwd", 7, 4000, 5000, "\"my_attn_fwd split\""},
        {1, 0, "sendrecv", 21, 250, 1250, "\"ncclDevKernel_SendRecv(x)\""},
        {1, 0, "attn-fwd", 7, 750, 2750, "\"void my_attn_fwd<\"\"q\"\">(P)\""},
        {1, 1, "attn-fwd", 7, 4250, 5250, "\"my_attn_fwd split\""},
    };
    char want[4096] = "rank,step,pass,role,device,stream,start_s,end_s,name\n";
    for (int i = 0; i < 6; i++) {
        size_t n = strlen(want);
        snprintf(want + n, sizeof want - n, "%d,%d,forward,%s,%d,%d,%.17g,%.17g,%s\n", rows[i].rank, rows[i].step, rows[i].role,
                 rows[i].rank, rows[i].stream, (double)rows[i].start_ns * 1e-9, (double)rows[i].end_ns * 1e-9, rows[i].name);
    }
    char *got = rs_test_slurp(rs_test_path("k.csv"), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    if (strcmp(got, want)) fprintf(stderr, "  got:\n%s  want:\n%s", got, want);
    CU_ASSERT_STRING_EQUAL(got, want);
    CU_ASSERT(strstr(got, "\n0,0,forward,sendrecv,0,21,0,") != NULL); /* the origin */
    free(got);
    /* a trace that is not there: refused, nothing written */
    CU_ASSERT_EQUAL(rs_import_write_kernels_csv(im, 1, rs_test_path("none.csv"), &err), -1);
    char msg[1200];
    snprintf(msg, sizeof msg, "%s: no trace 1 to write", rs_test_path("none.csv"));
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT(rs_test_file_size(rs_test_path("none.csv")) < 0);
    rs_import_free(im);
}

/* A backward pass: a row per kernel of every step; its tail step N (dK,dV home) has rows too, one
 * SendRecv kernel per rank. */
RS_TEST(test_backward_tail, "a backward pass's tail step") {
    fx_run_t run;
    const char *dir = it_kineto_dir("kcsv_bwd", NULL, false, &run);
    rs_import_opts_t o = it_opts();
    o.n_passes = 1;
    o.passes[0] = RS_PASS_BACKWARD;
    rs_err_t err = {0};
    rs_import_t *im = it_import1(dir, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(im);
    CU_ASSERT_EQUAL_FATAL(rs_import_write_kernels_csv(im, 0, rs_test_path("kb.csv"), &err), 0);
    FILE *fp = fopen(rs_test_path("kb.csv"), "r");
    CU_ASSERT_FATAL(fp != NULL);
    char line[2048];
    int rows = 0, tail = 0, attn = 0;
    while (fgets(line, sizeof line, fp)) {
        int r, k;
        if (sscanf(line, "%d,%d,", &r, &k) != 2) continue;
        rows++;
        tail += k == 4 && strstr(line, ",backward,sendrecv,") != NULL;
        attn += strstr(line, ",backward,attn-bwd,") != NULL;
    }
    fclose(fp);
    size_t want = 0; /* every kernel of every step: attention, merges, casts, other work, SendRecv */
    for (int r = 0; r < 4; r++)
        for (int k = 0; k <= 4; k++) want += fx_step_kernels(&run, r, RS_PASS_BACKWARD, 0, k);
    CU_ASSERT_EQUAL(rows, (int)want);
    CU_ASSERT(want > 4 * (3 * 4 + 3 + 4)); /* more than 3 attention kernels x 4 steps, 3 K,V + 4 dK,dV SendRecv per rank */
    CU_ASSERT_EQUAL(attn, 4 * 3 * 4);
    CU_ASSERT_EQUAL(tail, 4);
    rs_import_free(im);
    fx_free(&run);
}

RS_TEST_PROGRAM_IN("import_kernels_csv")
