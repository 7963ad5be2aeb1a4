/* exec_loopback.c - the ring rank by rank on one device (rs_exec_run_loopback, exec.h): every rank
 * of the ring run alone in turn on a loopback transport state, their events in one trace, the
 * medians over all of them. */
#include <string.h>

#include "exec.h"
#include "exec_results.h"

int rs_exec_run_loopback(const rs_schedule_t *s, const rs_exec_loopback_t *lb, const rs_exec_opts_t *opts, rs_trace_t *trace,
                         rs_exec_result_t *res, rs_err_t *err) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const rs_transport_ops_t *tops = lb->tops;
    const int64_t n = p->n_ranks;
    const int64_t *ranks = lb->ranks;
    const int count = ranks ? lb->n_ranks : (int)n;
    if (count < 1) return rs_errf(err, "loopback: no rank to run");
    if (opts->check || opts->save_io_dir)
        return rs_errf(err, "--check and --save-io need the real ring: a loopback rank computes on its own blocks");
    rs_trace_t *all = trace ? trace : rs_trace_create("exec");
    if (!all) return rs_errf(err, "loopback: out of memory");
    const size_t first = rs_trace_count(all);
    int rc = 0;
    memset(res, 0, sizeof *res);
    for (int i = 0; i < count && rc == 0; i++) {
        const int64_t r = ranks ? ranks[i] : i;
        if (r < 0 || r >= n) {
            rc = rs_errf(err, "loopback: rank %lld of N = %lld", (long long)r, (long long)n);
            break;
        }
        void *ts = lb->make(lb->make_arg, r, err);
        if (!ts) {
            rc = -1;
            break;
        }
        rs_exec_result_t one;
        rs_err_t e = {0};
        if (!tops->loopback || !tops->loopback(ts)) {
            rc = rs_errf(err, "loopback: the %s state made for rank %lld is not a loopback", tops->name, (long long)r);
        } else if (rs_exec_run(s, &(rs_exec_backends_t){lb->cops, tops, ts, 0}, opts, all, &one, &e) < 0) {
            rc = rs_errc(err, e.code, "%s", e.msg);
            *res = one;
        } else {
            *res = one; /* descriptions, n_steps, finite */
        }
        tops->destroy(ts);
    }
    if (rc == 0) {
        /* medians over every run's events; the makespan is the latest step end of any rank */
        res->makespan_s = 0;
        rc = rs_exec_summarize(rs_trace_events(all) + first, rs_trace_count(all) - first, res, err);
        if (rc < 0) rs_errf(err, "loopback: out of memory");
        if (trace) rs_trace_set_meta(trace, "loopback", "each rank alone on one device, its transfers to itself");
    }
    if (!trace) rs_trace_free(all);
    return rc;
}
