/* test_trace_csv.c - the trace schema's CSV file (traces/trace_csv.c): exact round trip (events and
 * role events) and byte-stable output, version-1 files (no role columns) still read, malformed input
 * with the exact line numbers and RS_ERR_BAD_INPUT, atomic writes. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "test_main.h"
#include "traces_check.h"
#include "trace.h"

RS_TEST(test_csv_roundtrip_exact, "csv round trip is bit-exact and byte-stable") {
    rs_trace_t *t = tc_ring_trace(4, 0.1, 1.0 / 30.0, 0.07);
    rs_event_t tiny = {3, 3, RS_PASS_BACKWARD, RS_EV_COMPUTE, -1, 1e-300, 2.5e-300, 1e300, 0};
    rs_trace_add(t, &tiny);
    const rs_role_event_t roles[3] = {{1, 2, RS_PASS_FORWARD, RS_ROLE_MERGE, 0.1, 0.1 + 1.0 / 3.0, 0.25},
                                      {1, 2, RS_PASS_FORWARD, RS_ROLE_ATTN, 0.05, 0.1, 0.05},
                                      {0, 0, RS_PASS_BACKWARD, RS_ROLE_OTHER, 2e-300, 2.5e-300, 0}};
    for (int i = 0; i < 3; i++) rs_trace_add_role(t, &roles[i]);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_csv(t, rs_test_path("a.csv"), &err), 0);
    rs_trace_t *u = rs_trace_read_csv(rs_test_path("a.csv"), &err);
    if (!u) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    CU_ASSERT_STRING_EQUAL(rs_trace_source(u), "model");
    CU_ASSERT_EQUAL_FATAL(rs_trace_count(u), rs_trace_count(t));
    CU_ASSERT_EQUAL(rs_trace_count(t), 4 * 4 * 2 + 4 * 3 * 2 + 1);
    const rs_event_t *a = rs_trace_events(t), *b = rs_trace_events(u);
    for (size_t i = 0; i < rs_trace_count(t); i++) {
        CU_ASSERT_EQUAL(a[i].rank, b[i].rank);
        CU_ASSERT_EQUAL(a[i].step, b[i].step);
        CU_ASSERT_EQUAL(a[i].pass, b[i].pass);
        CU_ASSERT_EQUAL(a[i].kind, b[i].kind);
        CU_ASSERT_EQUAL(a[i].peer, b[i].peer);
        /* bit-exact doubles */
        CU_ASSERT(memcmp(&a[i].start_s, &b[i].start_s, sizeof(double)) == 0);
        CU_ASSERT(memcmp(&a[i].end_s, &b[i].end_s, sizeof(double)) == 0);
        CU_ASSERT(memcmp(&a[i].flops, &b[i].flops, sizeof(double)) == 0);
        CU_ASSERT(memcmp(&a[i].bytes, &b[i].bytes, sizeof(double)) == 0);
    }
    CU_ASSERT_EQUAL_FATAL(rs_trace_role_count(u), 3);
    const rs_role_event_t *ra = rs_trace_roles(t), *rb = rs_trace_roles(u);
    for (size_t i = 0; i < 3; i++) {
        CU_ASSERT(ra[i].rank == rb[i].rank && ra[i].step == rb[i].step && ra[i].pass == rb[i].pass && ra[i].role == rb[i].role);
        CU_ASSERT(memcmp(&ra[i].start_s, &rb[i].start_s, sizeof(double)) == 0);
        CU_ASSERT(memcmp(&ra[i].end_s, &rb[i].end_s, sizeof(double)) == 0);
        CU_ASSERT(memcmp(&ra[i].busy_s, &rb[i].busy_s, sizeof(double)) == 0);
    }
    CU_ASSERT_DOUBLE_EQUAL(rs_trace_role_busy(u, 1, 2, RS_PASS_FORWARD, RS_ROLE_MERGE), 0.25, 0);
    CU_ASSERT_DOUBLE_EQUAL(rs_trace_role_busy(u, 1, 2, RS_PASS_FORWARD, RS_ROLE_CAST), -1, 0);
    CU_ASSERT_EQUAL(rs_trace_meta_count(u), rs_trace_meta_count(t));
    for (size_t i = 0; i < rs_trace_meta_count(t); i++) {
        const char *k1, *v1, *k2, *v2;
        rs_trace_meta_at(t, i, &k1, &v1);
        rs_trace_meta_at(u, i, &k2, &v2);
        CU_ASSERT_STRING_EQUAL(k1, k2);
        CU_ASSERT_STRING_EQUAL(v1, v2);
    }
    /* same trace -> same bytes */
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_csv(u, rs_test_path("b.csv"), &err), 0);
    size_t la, lb;
    char *fa = rs_test_slurp(rs_test_path("a.csv"), &la), *fb = rs_test_slurp(rs_test_path("b.csv"), &lb);
    CU_ASSERT_EQUAL(la, lb);
    CU_ASSERT(fa && fb && memcmp(fa, fb, la) == 0);
    /* the documented first lines */
    CU_ASSERT(strncmp(fa, "# ringsim-trace=2\n# source=model\n# seq_tokens=4096\n", 50) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(fa, "\nsource,rank,step,pass,kind,start_s,end_s,flops,bytes,peer,role,busy_s\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(fa, "\nmodel,3,3,backward,compute,1e-300,2.5e-300,1.0000000000000001e+300,0,-1,-,-\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(fa, "\nmodel,1,2,forward,compute,0.10000000000000001,0.43333333333333335,0,0,-1,merge,0.25\n"));
    free(fa);
    free(fb);
    /* a trace without role events is written as version 1: the bytes every trace had before roles */
    rs_trace_t *plain = tc_ring_trace(2, 1, 0.5, 0.5);
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_csv(plain, rs_test_path("v1.csv"), &err), 0);
    char *f1 = rs_test_slurp(rs_test_path("v1.csv"), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f1);
    CU_ASSERT(strncmp(f1, "# ringsim-trace=1\n", 18) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(f1, "\nsource,rank,step,pass,kind,start_s,end_s,flops,bytes,peer\n"));
    CU_ASSERT_PTR_NULL(strstr(f1, ",-,-\n"));
    free(f1);
    rs_trace_free(plain);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    rs_trace_free(t);
    rs_trace_free(u);
}

#define HDR "# ringsim-trace=1\n# source=sim\n# n_ranks=2\nsource,rank,step,pass,kind,start_s,end_s,flops,bytes,peer\n"
#define ROW "sim,0,0,forward,compute,0,1e-3,100,0,-1\n"
#define V2 "# ringsim-trace=2\n# source=sim\nsource,rank,step,pass,kind,start_s,end_s,flops,bytes,peer,role,busy_s\n"
/* a version-2 row of rank 0, step 1, forward compute [0, 1 ms] with the role and busy time given */
#define ROLE_ROW(role_busy) "sim,0,1,forward,compute,0,1e-3,0,0,-1," role_busy "\n"

RS_TEST(test_csv_malformed, "malformed CSV names file:line") {
    struct {
        const char *text;  /* file content */
        int line;          /* expected line in the message */
        const char *what;  /* expected substring */
    } cases[] = {
        {"", 1, "expected '# ringsim-trace=2'"},
        {"source,rank\n", 1, "expected '# ringsim-trace=2'"},
        {"# ringsim-trace=3\n", 1, "expected trace version 1 or 2, got 3"},
        {"# ringsim-trace=2\n# source=sim\n" "source,rank,step,pass,kind,start_s,end_s,flops,bytes,peer\n", 3, "expected the column line"},
        {V2 "sim,0,1,forward,compute,0,1e-3,100,0,-1,merge\n", 4, "expected 12 comma-separated columns"},
        {V2 ROLE_ROW("fuse,1e-4"), 4, "expected role attn, merge, cast, other or '-', got 'fuse'"},
        {V2 "sim,0,1,forward,send,0,1e-3,0,0,-1,merge,1e-4\n", 4, "expected kind compute for a role event (role merge), got 'send'"},
        {V2 ROLE_ROW("merge,2e-3"), 4, "expected busy_s in [0, end_s - start_s] for role merge, got '2e-3'"},
        {V2 ROLE_ROW("cast,-1e-4"), 4, "expected busy_s in [0, end_s - start_s]"},
        {V2 ROLE_ROW("cast,x"), 4, "expected busy_s in [0, end_s - start_s]"},
        {V2 ROLE_ROW("-,1e-4"), 4, "expected busy_s '-' for an event without a role"},
        {V2 "sim,0,1,forward,compute,0,1e-3,0,0,-1,merge,1e-4\nsim,0,1,forward,compute,0,1e-3,0,0,-1,merge,1e-4\n", 5,
         "expected one role event per (rank, step, pass, role); rank 0 step 1 forward merge already on line 4"},
        {"# ringsim-trace=1\n# source=sim\n", 3, "expected the column line"},
        {"# ringsim-trace=1\n# source=sim\nrank,step\n", 3, "expected the column line"},
        {"# ringsim-trace=1\nsource,rank,step,pass,kind,start_s,end_s,flops,bytes,peer\n", 2,
         "expected a '# source=NAME' header"},
        {"# ringsim-trace=1\n# source=sim\n# no value here\n", 3, "expected a '# key=value'"},
        {"# ringsim-trace=1\n# source=sim\n# Bad=1\n", 3, "header key of [a-z0-9_.-]"},
        {HDR ROW "sim,0,1,forward,compute,0,1e-3,100,0\n", 6, "expected 10 comma-separated columns"},
        {HDR ROW "sim,0,1,forward,compute,0,1e-3,100,0,-1,7\n", 6, "got 11"},
        {HDR "sim,0,1,forward,compute,abc,1e-3,100,0,-1\n", 5, "expected start_s as a finite number"},
        {HDR "sim,0,1,forward,compute,0,nan,100,0,-1\n", 5, "expected end_s as a finite number"},
        {HDR "sim,0,1,forward,compute,0,inf,100,0,-1\n", 5, "expected end_s as a finite number"},
        {HDR "sim,0,1,forward,compute,0,1e-3,1e2x,0,-1\n", 5, "expected flops"},
        {HDR ROW ROW, 6, "already on line 5"},
        {HDR "sim,0,1,sideways,compute,0,1,0,0,-1\n", 5, "expected pass forward or backward, got 'sideways'"},
        {HDR "sim,0,1,forward,think,0,1,0,0,-1\n", 5, "expected kind compute, send, recv or step, got 'think'"},
        {HDR "sim,-1,1,forward,compute,0,1,0,0,-1\n", 5, "expected rank"},
        {HDR "sim,0,1.5,forward,compute,0,1,0,0,-1\n", 5, "expected step"},
        {HDR "sim,0,1,forward,send,0,1,0,10,-2\n", 5, "expected peer"},
        {HDR "sim,0,1,forward,compute,2,1,0,0,-1\n", 5, "expected end_s >= start_s"},
        {HDR "sim,0,1,forward,compute,0,1,-5,0,-1\n", 5, "expected flops and bytes >= 0"},
        {HDR ROW "\n" "model,0,1,forward,compute,0,1,0,0,-1\n", 7, "expected source 'sim'"},
    };
    const char *path = rs_test_path("bad.csv");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rs_test_write_text(path, cases[i].text);
        rs_err_t err = {0};
        rs_trace_t *t = rs_trace_read_csv(path, &err);
        CU_ASSERT_PTR_NULL(t);
        rs_trace_free(t);
        char want[1200];
        snprintf(want, sizeof want, "%s:%d: ", path, cases[i].line);
        int ok = strncmp(err.msg, want, strlen(want)) == 0 && strstr(err.msg, cases[i].what) != NULL;
        if (!ok) fprintf(stderr, "  case %zu: got \"%s\", want \"%s...%s\"\n", i, err.msg, want, cases[i].what);
        CU_ASSERT(ok);
        CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    }
    /* version 2: an event and a role event of the same (rank, step) read, each into its own list */
    /* (a row of 10 columns is an event without a role) */
    rs_test_write_text(path, V2 "sim,0,1,forward,compute,0,1e-3,100,0,-1,-,-\nsim,0,1,forward,compute,5e-4,1e-3,0,0,-1,merge,4e-4\n"
                                "sim,0,1,forward,step,0,1e-3,0,0,-1\n");
    rs_err_t e2 = {0};
    rs_trace_t *t2 = rs_trace_read_csv(path, &e2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t2);
    CU_ASSERT(rs_trace_count(t2) == 2 && rs_trace_role_count(t2) == 1);
    CU_ASSERT_DOUBLE_EQUAL(rs_trace_role_busy(t2, 0, 1, RS_PASS_FORWARD, RS_ROLE_MERGE), 4e-4, 0);
    rs_trace_free(t2);
    /* a good file (version 1, as older ringsim wrote it) with CRLF line ends and a trailing blank line reads */
    rs_test_write_text(path, "# ringsim-trace=1\r\n# source=sim\r\nsource,rank,step,pass,kind,start_s,end_s,flops,bytes,peer\r\n"
                     "sim,1,0,backward,recv,0.5,0.75,0,4096,0\r\n\r\n");
    rs_err_t err = {0};
    rs_trace_t *t = rs_trace_read_csv(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(rs_trace_count(t), 1);
    CU_ASSERT_EQUAL(rs_trace_events(t)[0].kind, RS_EV_RECV);
    CU_ASSERT_EQUAL(rs_trace_events(t)[0].pass, RS_PASS_BACKWARD);
    CU_ASSERT_EQUAL(rs_trace_events(t)[0].peer, 0);
    CU_ASSERT_EQUAL(rs_trace_events(t)[0].bytes, 4096.0);
    rs_trace_free(t);
    /* a missing file names the path */
    CU_ASSERT_PTR_NULL(rs_trace_read_csv(rs_test_path("nope.csv"), &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nope.csv: cannot read"));
}

RS_TEST(test_no_file_left_behind, "no file left behind") {
    rs_trace_t *t = tc_ring_trace(2, 1, 0.5, 0.5);
    rs_err_t err = {0};
    /* unwritable location: error names the path, nothing created */
    const char *bad = rs_test_path("no-such-dir/t.csv");
    CU_ASSERT_EQUAL(rs_trace_write_csv(t, bad, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no-such-dir/t.csv"));
    /* writing over an existing file replaces it whole */
    rs_test_write_text(rs_test_path("old.csv"), "old content\n");
    CU_ASSERT_EQUAL(rs_trace_write_csv(t, rs_test_path("old.csv"), &err), 0);
    rs_trace_t *u = rs_trace_read_csv(rs_test_path("old.csv"), &err);
    CU_ASSERT_PTR_NOT_NULL(u);
    CU_ASSERT_EQUAL(rs_trace_count(u), rs_trace_count(t));
    rs_trace_free(u);
    /* a directory is refused before anything is written (output.h), and kept */
    tc_dir_refused(rs_trace_write_csv, t);
    rs_trace_free(t);
}

RS_TEST_PROGRAM_IN("trace_csv")
