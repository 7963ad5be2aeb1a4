/* test_trace.c - the trace schema: exact CSV round trip, malformed input with exact line numbers,
 * Chrome JSON parsed back with jansson (units, lanes, no overlap), atomic writes. */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_main.h"
#include "harness.h"
#include "trace.h"

/* A ring-shaped trace: n ranks, n steps, step length T, compute tc, transfer tm (last step sends
 * nothing), with awkward doubles so %.17g matters. */
static rs_trace_t *make_trace(int n, double T, double tc, double tm) {
    rs_trace_t *t = rs_trace_create("model");
    rs_problem_t p;
    rs_problem_default(&p);
    p.n_ranks = n;
    p.seq_tokens = 1024 * n;
    rs_trace_meta_problem(t, &p);
    rs_trace_set_meta(t, "profile", "h100-sxm");
    for (int r = 0; r < n; r++)
        for (int k = 0; k < n; k++) {
            double t0 = k * T + r * 1e-7 / 3.0;
            rs_event_t c = {r, k, RS_PASS_FORWARD, RS_EV_COMPUTE, -1, t0, t0 + tc, 8.6e9 / 3.0, 0};
            rs_event_t s = {r, k, RS_PASS_FORWARD, RS_EV_SEND, (r + 1) % n, t0, t0 + tm, 0, 1048576.0};
            rs_event_t v = {r, k, RS_PASS_FORWARD, RS_EV_RECV, (r + n - 1) % n, t0, t0 + tm, 0, 1048576.0};
            rs_event_t st = {r, k, RS_PASS_FORWARD, RS_EV_STEP, -1, t0, t0 + T, 0, 0};
            rs_trace_add(t, &c);
            if (k < n - 1) {
                rs_trace_add(t, &s);
                rs_trace_add(t, &v);
            }
            rs_trace_add(t, &st);
        }
    return t;
}

/* ------------------------------------------------------------------------------------------------
 * CSV round trip
 * ---------------------------------------------------------------------------------------------- */
static void test_csv_roundtrip_exact(void) {
    rs_trace_t *t = make_trace(4, 0.1, 1.0 / 30.0, 0.07);
    rs_event_t tiny = {3, 3, RS_PASS_BACKWARD, RS_EV_COMPUTE, -1, 1e-300, 2.5e-300, 1e300, 0};
    rs_trace_add(t, &tiny);
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
    CU_ASSERT(strncmp(fa, "# ringsim-trace=1\n# source=model\n# seq_tokens=4096\n", 50) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(fa, "\nsource,rank,step,pass,kind,start_s,end_s,flops,bytes,peer\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(fa, "\nmodel,3,3,backward,compute,1e-300,2.5e-300,1.0000000000000001e+300,0,-1\n"));
    free(fa);
    free(fb);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    rs_trace_free(t);
    rs_trace_free(u);
}

static void test_problem_roundtrip(void) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 3 * 65536, p.n_ranks = 12, p.batch = 2, p.q_heads = 64, p.kv_heads = 4, p.head_dim = 96;
    p.act_bytes = 1, p.grad_bytes = 2, p.causal = false, p.layout = RS_LAYOUT_STRIPED, p.pass = RS_PASS_BACKWARD;
    p.tile_q = 64, p.tile_k = 32;
    rs_trace_t *t = rs_trace_create("sim");
    CU_ASSERT_EQUAL(rs_trace_meta_problem(t, &p), 0);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_csv(t, rs_test_path("p.csv"), &err), 0);
    rs_trace_t *u = rs_trace_read_csv(rs_test_path("p.csv"), &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    CU_ASSERT_EQUAL(rs_trace_count(u), 0);
    rs_problem_t q;
    CU_ASSERT_EQUAL_FATAL(rs_trace_problem(u, &q, &err), 0);
    CU_ASSERT_EQUAL(q.seq_tokens, p.seq_tokens);
    CU_ASSERT_EQUAL(q.n_ranks, 12);
    CU_ASSERT_EQUAL(q.batch, 2);
    CU_ASSERT_EQUAL(q.q_heads, 64);
    CU_ASSERT_EQUAL(q.kv_heads, 4);
    CU_ASSERT_EQUAL(q.head_dim, 96);
    CU_ASSERT_EQUAL(q.act_bytes, 1);
    CU_ASSERT_EQUAL(q.grad_bytes, 2);
    CU_ASSERT_EQUAL(q.causal, false);
    CU_ASSERT_EQUAL(q.layout, RS_LAYOUT_STRIPED);
    CU_ASSERT_EQUAL(q.pass, RS_PASS_BACKWARD);
    CU_ASSERT_EQUAL(q.tile_q, 64);
    CU_ASSERT_EQUAL(q.tile_k, 32);
    /* a missing or bad key is named */
    rs_trace_t *v = rs_trace_create("sim");
    rs_trace_meta_problem(v, &p);
    rs_trace_set_meta(v, "head_dim", "abc");
    CU_ASSERT_EQUAL(rs_trace_problem(v, &q, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "head_dim=abc"));
    rs_trace_t *w = rs_trace_create("sim");
    CU_ASSERT_EQUAL(rs_trace_problem(w, &q, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "missing key 'seq_tokens'"));
    /* reserved and bad keys are refused */
    CU_ASSERT_EQUAL(rs_trace_set_meta(w, "source", "x"), -1);
    CU_ASSERT_EQUAL(rs_trace_set_meta(w, "Bad Key", "x"), -1);
    CU_ASSERT_EQUAL(rs_trace_set_meta(w, "note", "two\nlines"), 0);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(w, "note"), "two lines");
    rs_trace_free(t);
    rs_trace_free(u);
    rs_trace_free(v);
    rs_trace_free(w);
}

static void test_sort_find_makespan(void) {
    rs_trace_t *t = rs_trace_create("x");
    for (int r = 2; r >= 0; r--)
        for (int k = 2; k >= 0; k--) {
            rs_event_t e = {r, k, RS_PASS_FORWARD, RS_EV_STEP, -1, k * 1.0 + 0.5, k * 1.0 + 1.5 + r, 0, 0};
            rs_trace_add(t, &e);
        }
    CU_ASSERT_EQUAL(rs_trace_find(t, 1, 2, RS_PASS_FORWARD, RS_EV_STEP), 3); /* unsorted: linear */
    rs_trace_sort(t);
    CU_ASSERT_EQUAL(rs_trace_find(t, 0, 0, RS_PASS_FORWARD, RS_EV_STEP), 0);
    CU_ASSERT_EQUAL(rs_trace_find(t, 1, 2, RS_PASS_FORWARD, RS_EV_STEP), 5);
    CU_ASSERT_EQUAL(rs_trace_find(t, 2, 2, RS_PASS_FORWARD, RS_EV_STEP), 8);
    CU_ASSERT_EQUAL(rs_trace_find(t, 1, 2, RS_PASS_FORWARD, RS_EV_SEND), -1);
    CU_ASSERT_EQUAL(rs_trace_find(t, 1, 2, RS_PASS_BACKWARD, RS_EV_STEP), -1);
    RS_ASSERT_REL(rs_trace_makespan(t), (2 + 1.5 + 2) - 0.5, 1e-15);
    rs_trace_free(t);
}

/* ------------------------------------------------------------------------------------------------
 * Malformed CSV: each case names the exact line
 * ---------------------------------------------------------------------------------------------- */
#define HDR "# ringsim-trace=1\n# source=sim\n# n_ranks=2\nsource,rank,step,pass,kind,start_s,end_s,flops,bytes,peer\n"
#define ROW "sim,0,0,forward,compute,0,1e-3,100,0,-1\n"

static void test_csv_malformed(void) {
    struct {
        const char *text;  /* file content */
        int line;          /* expected line in the message */
        const char *what;  /* expected substring */
    } cases[] = {
        {"", 1, "expected '# ringsim-trace=1'"},
        {"source,rank\n", 1, "expected '# ringsim-trace=1'"},
        {"# ringsim-trace=2\n", 1, "expected trace version 1, got 2"},
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
    }
    /* a good file with CRLF line ends and a trailing blank line reads */
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

/* ------------------------------------------------------------------------------------------------
 * Chrome JSON
 * ---------------------------------------------------------------------------------------------- */
static void test_chrome_json(void) {
    const int n = 4;
    const double T = 2e-3, tc = 1.5e-3, tm = 1.9e-3;
    rs_trace_t *t = make_trace(n, T, tc, tm);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_chrome(t, rs_test_path("a.json"), &err), 0);
    json_error_t jerr;
    json_t *root = json_load_file(rs_test_path("a.json"), 0, &jerr);
    if (!root) fprintf(stderr, "  json: %s line %d\n", jerr.text, jerr.line);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *evs = json_object_get(root, "traceEvents");
    CU_ASSERT_FATAL(json_is_array(evs));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(root, "otherData"), "profile")),
                           "h100-sxm");
    size_t nx = 0, n_proc = 0, n_thread = 0;
    /* per (pid, tid): the X events, to check no overlap */
    double last_end[16][8];
    int seen[16][8] = {{0}};
    size_t i;
    json_t *e;
    json_array_foreach(evs, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        CU_ASSERT_PTR_NOT_NULL_FATAL(ph);
        int pid = (int)json_integer_value(json_object_get(e, "pid"));
        int tid = (int)json_integer_value(json_object_get(e, "tid"));
        CU_ASSERT(pid >= 0 && pid < n && tid >= 0 && tid < 4);
        if (strcmp(ph, "M") == 0) {
            const char *name = json_string_value(json_object_get(e, "name"));
            const char *label = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
            if (strcmp(name, "process_name") == 0) {
                char want[32];
                snprintf(want, sizeof want, "rank %d", pid);
                CU_ASSERT_STRING_EQUAL(label, want);
                n_proc++;
            } else if (strcmp(name, "thread_name") == 0) {
                static const char *lanes[] = {"compute", "send", "recv", "step"};
                CU_ASSERT_STRING_EQUAL(label, lanes[tid]);
                n_thread++;
            }
            continue;
        }
        CU_ASSERT_STRING_EQUAL(ph, "X");
        nx++;
        json_t *args = json_object_get(e, "args");
        int step = (int)json_integer_value(json_object_get(args, "step"));
        const char *cat = json_string_value(json_object_get(e, "cat"));
        rs_event_kind_t kind;
        CU_ASSERT_EQUAL_FATAL(rs_event_kind_parse(cat, &kind), 0);
        CU_ASSERT_EQUAL(tid, (int)kind); /* forward lanes: 0 compute, 1 send, 2 recv, 3 step */
        long idx = rs_trace_find(t, pid, step, RS_PASS_FORWARD, kind);
        CU_ASSERT_FATAL(idx >= 0);
        const rs_event_t *ev = &rs_trace_events(t)[idx];
        double ts = json_number_value(json_object_get(e, "ts"));
        double dur = json_number_value(json_object_get(e, "dur"));
        RS_ASSERT_REL(ts, ev->start_s * 1e6, 1e-15); /* microseconds */
        RS_ASSERT_REL(dur, (ev->end_s - ev->start_s) * 1e6, 1e-9);
        RS_ASSERT_REL(json_number_value(json_object_get(args, "flops")), ev->flops, 0);
        RS_ASSERT_REL(json_number_value(json_object_get(args, "bytes")), ev->bytes, 0);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(args, "peer")), ev->peer);
        /* events are written per rank in step order, so each lane must start after the last end */
        if (seen[pid][tid]) CU_ASSERT(ts >= last_end[pid][tid] - 1e-9);
        seen[pid][tid] = 1;
        last_end[pid][tid] = ts + dur;
    }
    CU_ASSERT_EQUAL(nx, rs_trace_count(t));
    CU_ASSERT_EQUAL(n_proc, (size_t)n);
    CU_ASSERT_EQUAL(n_thread, (size_t)(4 * n));
    json_decref(root);
    /* deterministic bytes */
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_chrome(t, rs_test_path("b.json"), &err), 0);
    size_t la, lb;
    char *fa = rs_test_slurp(rs_test_path("a.json"), &la), *fb = rs_test_slurp(rs_test_path("b.json"), &lb);
    CU_ASSERT(la == lb && memcmp(fa, fb, la) == 0);
    free(fa);
    free(fb);
    rs_trace_free(t);
}

static void test_chrome_overflow_lanes(void) {
    /* transfer longer than a step: send of step k runs into send of step k+1 on the same lane; the
     * writer moves it to an overflow lane (tid + 8) and alters no time */
    rs_trace_t *t = make_trace(3, 1e-3, 0.5e-3, 1.5e-3);
    rs_err_t err = {0};
    const char *p = rs_test_path("overlap.json");
    CU_ASSERT_EQUAL_FATAL(rs_trace_write_chrome(t, p, &err), 0);
    json_error_t jerr;
    json_t *root = json_load_file(p, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *evs = json_object_get(root, "traceEvents");
    size_t i;
    json_t *e;
    int n_overflow_names = 0, send1_tid = -1;
    double last_end[3][24];
    int seen[3][24] = {{0}};
    json_array_foreach(evs, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        int pid = (int)json_integer_value(json_object_get(e, "pid"));
        int tid = (int)json_integer_value(json_object_get(e, "tid"));
        CU_ASSERT_FATAL(pid >= 0 && pid < 3 && tid >= 0 && tid < 24);
        if (strcmp(ph, "M") == 0) {
            const char *label = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
            if (strcmp(json_string_value(json_object_get(e, "name")), "thread_name") == 0 && strstr(label, "(overlap 1)")) {
                CU_ASSERT_STRING_EQUAL(label, tid % 8 == 1 ? "send (overlap 1)" : "recv (overlap 1)");
                n_overflow_names++;
            }
            continue;
        }
        json_t *args = json_object_get(e, "args");
        int step = (int)json_integer_value(json_object_get(args, "step"));
        const char *cat = json_string_value(json_object_get(e, "cat"));
        if (pid == 0 && step == 1 && strcmp(cat, "send") == 0) send1_tid = tid;
        double ts = json_number_value(json_object_get(e, "ts")), dur = json_number_value(json_object_get(e, "dur"));
        rs_event_kind_t kind;
        rs_event_kind_parse(cat, &kind);
        const rs_event_t *ev = &rs_trace_events(t)[rs_trace_find(t, pid, step, RS_PASS_FORWARD, kind)];
        RS_ASSERT_REL(ts, ev->start_s * 1e6, 1e-15); /* times untouched */
        RS_ASSERT_REL(dur, (ev->end_s - ev->start_s) * 1e6, 1e-9);
        if (seen[pid][tid]) CU_ASSERT(ts >= last_end[pid][tid] - 1e-9); /* events in step order per lane */
        seen[pid][tid] = 1;
        last_end[pid][tid] = ts + dur;
    }
    CU_ASSERT_EQUAL(send1_tid, 1 + 8);
    CU_ASSERT_EQUAL(n_overflow_names, 3 * 2); /* send and recv of every rank */
    json_decref(root);
    /* both passes in one trace: backward uses lanes 4..7 */
    rs_trace_t *u = rs_trace_create("x");
    rs_event_t f = {0, 0, RS_PASS_FORWARD, RS_EV_COMPUTE, -1, 0, 1, 0, 0};
    rs_event_t b = {0, 0, RS_PASS_BACKWARD, RS_EV_COMPUTE, -1, 0.5, 1.5, 0, 0};
    rs_trace_add(u, &f);
    rs_trace_add(u, &b);
    CU_ASSERT_EQUAL(rs_trace_write_chrome(u, rs_test_path("both.json"), &err), 0);
    char *s = rs_test_slurp(rs_test_path("both.json"), NULL);
    CU_ASSERT_PTR_NOT_NULL(s && strstr(s, "\"tid\":4,\"args\":{\"name\":\"backward compute\"}"));
    CU_ASSERT_PTR_NULL(s ? strstr(s, "overlap") : NULL);
    free(s);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    rs_trace_free(t);
    rs_trace_free(u);
}

/* ------------------------------------------------------------------------------------------------
 * Atomic output
 * ---------------------------------------------------------------------------------------------- */
static void test_no_file_left_behind(void) {
    rs_trace_t *t = make_trace(2, 1, 0.5, 0.5);
    rs_err_t err = {0};
    /* unwritable location: error names the path, nothing created */
    const char *bad = rs_test_path("no-such-dir/t.csv");
    CU_ASSERT_EQUAL(rs_trace_write_csv(t, bad, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no-such-dir/t.csv"));
    CU_ASSERT_EQUAL(rs_trace_write_chrome(t, rs_test_path("no-such-dir/t.json"), &err), -1);
    /* writing over an existing file replaces it whole */
    rs_test_write_text(rs_test_path("old.csv"), "old content\n");
    CU_ASSERT_EQUAL(rs_trace_write_csv(t, rs_test_path("old.csv"), &err), 0);
    rs_trace_t *u = rs_trace_read_csv(rs_test_path("old.csv"), &err);
    CU_ASSERT_PTR_NOT_NULL(u);
    CU_ASSERT_EQUAL(rs_trace_count(u), rs_trace_count(t));
    rs_trace_free(u);
    /* a directory is refused before anything is written (output.h), and kept */
    mkdir(rs_test_path("adir"), 0777);
    CU_ASSERT_EQUAL(rs_trace_write_csv(t, rs_test_path("adir"), &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "adir: cannot write: is a directory"));
    CU_ASSERT_EQUAL(rs_trace_write_chrome(t, rs_test_path("adir"), &err), -1);
    struct stat st;
    CU_ASSERT(stat(rs_test_path("adir"), &st) == 0 && S_ISDIR(st.st_mode));
    rmdir(rs_test_path("adir"));
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    rs_trace_free(t);
}

int main(void) {
    static const rs_test_case_t csv[] = {
        {"csv round trip is bit-exact and byte-stable", test_csv_roundtrip_exact},
        {"problem header round trip", test_problem_roundtrip},
        {"sort, find, makespan", test_sort_find_makespan},
        {"malformed CSV names file:line", test_csv_malformed},
        {NULL, NULL}};
    static const rs_test_case_t chrome[] = {
        {"chrome json parses back (us, lanes, no overlap)", test_chrome_json},
        {"chrome json: overlaps go to overflow lanes", test_chrome_overflow_lanes},
        {NULL, NULL}};
    static const rs_test_case_t atomic[] = {{"no file left behind", test_no_file_left_behind}, {NULL, NULL}};
    const rs_test_suite_t suites[] = {{"trace-csv", csv}, {"trace-chrome", chrome}, {"trace-atomic", atomic}};
    if (rs_test_scratch("trace") != 0) return 1;
    int rc = rs_test_main(suites, 3);
    rs_test_cleanup();
    return rc;
}
