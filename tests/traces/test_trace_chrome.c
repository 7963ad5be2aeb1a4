/* test_trace_chrome.c - the trace schema as Chrome JSON (traces/trace_chrome.c): parsed back with
 * jansson (microseconds, lanes, no overlap on a lane), overlapping events on overflow lanes, byte-stable
 * output, refused paths. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "test_main.h"
#include "traces_check.h"
#include "trace.h"

RS_TEST(test_chrome_json, "chrome json parses back (us, lanes, no overlap)") {
    const int n = 4;
    const double T = 2e-3, tc = 1.5e-3, tm = 1.9e-3;
    rs_trace_t *t = tc_ring_trace(n, T, tc, tm);
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

RS_TEST(test_chrome_overflow_lanes, "chrome json: overlaps go to overflow lanes") {
    /* transfer longer than a step: send of step k runs into send of step k+1 on the same lane; the
     * writer moves it to an overflow lane (tid + 16) and alters no time */
    rs_trace_t *t = tc_ring_trace(3, 1e-3, 0.5e-3, 1.5e-3);
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
    double last_end[3][40];
    int seen[3][40] = {{0}};
    json_array_foreach(evs, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        int pid = (int)json_integer_value(json_object_get(e, "pid"));
        int tid = (int)json_integer_value(json_object_get(e, "tid"));
        CU_ASSERT_FATAL(pid >= 0 && pid < 3 && tid >= 0 && tid < 40);
        if (strcmp(ph, "M") == 0) {
            const char *label = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
            if (strcmp(json_string_value(json_object_get(e, "name")), "thread_name") == 0 && strstr(label, "(overlap 1)")) {
                CU_ASSERT_STRING_EQUAL(label, tid % 16 == 1 ? "send (overlap 1)" : "recv (overlap 1)");
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
    CU_ASSERT_EQUAL(send1_tid, 1 + 16);
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
    /* role events: their own lanes (8 + role forward, 12 + role backward), after the compute lane,
     * their busy time in the arguments */
    const rs_role_event_t re[2] = {{0, 0, RS_PASS_FORWARD, RS_ROLE_MERGE, 0.75, 1, 0.125}, {0, 0, RS_PASS_BACKWARD, RS_ROLE_ATTN, 0.5, 1.25, 0.75}};
    rs_trace_add_role(u, &re[0]);
    rs_trace_add_role(u, &re[1]);
    CU_ASSERT_EQUAL(rs_trace_write_chrome(u, rs_test_path("roles.json"), &err), 0);
    s = rs_test_slurp(rs_test_path("roles.json"), NULL);
    CU_ASSERT_PTR_NOT_NULL(s && strstr(s, "\"tid\":9,\"args\":{\"name\":\"compute: merge\"}"));
    CU_ASSERT_PTR_NOT_NULL(s && strstr(s, "\"tid\":9,\"args\":{\"sort_index\":40}"));   /* between compute (0) and send (64) */
    CU_ASSERT_PTR_NOT_NULL(s && strstr(s, "\"tid\":12,\"args\":{\"name\":\"backward compute: attn\"}"));
    CU_ASSERT_PTR_NOT_NULL(s && strstr(s, "{\"ph\":\"X\",\"name\":\"merge 0\",\"cat\":\"compute.merge\",\"pid\":0,\"tid\":9,\"ts\":750000,\"dur\":250000,"
                                          "\"args\":{\"step\":0,\"pass\":\"forward\",\"role\":\"merge\",\"busy_us\":125000}}"));
    CU_ASSERT_PTR_NULL(s ? strstr(s, "overlap") : NULL);
    free(s);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    rs_trace_free(t);
    rs_trace_free(u);
}

RS_TEST(test_chrome_refused_paths, "chrome json: refused paths leave nothing") {
    rs_trace_t *t = tc_ring_trace(2, 1, 0.5, 0.5);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_trace_write_chrome(t, rs_test_path("no-such-dir/t.json"), &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no-such-dir/t.json"));
    /* a directory is refused before anything is written (output.h), and kept */
    tc_dir_refused(rs_trace_write_chrome, t);
    rs_trace_free(t);
}

RS_TEST_PROGRAM_IN("trace_chrome")
