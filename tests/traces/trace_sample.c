/* trace_sample.c - a ring-shaped trace for the trace schema's tests (trace_sample.h). */
#include "trace_sample.h"

rs_trace_t *ts_ring_trace(int n, double T, double tc, double tm) {
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
