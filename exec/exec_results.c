/* exec_results.c - the executor's events and results (exec_results.h): medians over repetitions,
 * medians over (rank, step), the makespan, the trace's header. */
#include "exec_results.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "stats.h"

void rs_exec_median_events(const rs_exec_slot_t *rec, int reps, int64_t n_steps, int64_t rank, rs_pass_t pass,
                           rs_event_t *ev) {
    double *a = malloc(sizeof(double) * (size_t)reps), *b = malloc(sizeof(double) * (size_t)reps);
    for (int64_t k = 0; k < n_steps; k++)
        for (int kind = 0; kind < RS_EXEC_KINDS; kind++) {
            rs_event_t *e = &ev[k * RS_EXEC_KINDS + kind];
            const rs_exec_slot_t *s0 = &rec[k * RS_EXEC_KINDS + kind];
            memset(e, 0, sizeof *e);
            e->rank = -1;
            if (!s0->valid || !a || !b) continue;
            for (int r = 0; r < reps; r++) {
                const rs_exec_slot_t *s = &rec[((size_t)r * (size_t)n_steps + (size_t)k) * RS_EXEC_KINDS + (size_t)kind];
                a[r] = s->start_s, b[r] = s->end_s - s->start_s;
            }
            double st = rs_median(a, (size_t)reps), du = rs_median(b, (size_t)reps);
            *e = (rs_event_t){(int32_t)rank, (int32_t)k, pass, (rs_event_kind_t)kind, s0->peer, st, st + du, s0->flops, s0->bytes};
        }
    free(a), free(b);
}

/* The result's medians: 0 when a kind has no event (a ring of one rank sends nothing). */
static double median_or_0(double *v, size_t n) { return n ? rs_median(v, n) : 0; }

int rs_exec_summarize(const rs_event_t *ev, size_t n, rs_exec_result_t *res, rs_err_t *err) {
    size_t nc = 0, nm = 0, nst = 0;
    double *tc = malloc(sizeof(double) * (n ? n : 1)), *tm = malloc(sizeof(double) * (n ? n : 1));
    double *tt = malloc(sizeof(double) * (n ? n : 1));
    int rc = tc && tm && tt ? 0 : rs_errf(err, "rank 0: out of memory");
    for (size_t i = 0; i < n && rc == 0; i++) {
        const rs_event_t *x = &ev[i];
        if (x->rank < 0) continue;
        if (x->kind == RS_EV_COMPUTE) tc[nc++] = x->end_s - x->start_s;
        if (x->kind == RS_EV_RECV) tm[nm++] = x->end_s - x->start_s;
        if (x->kind == RS_EV_STEP) {
            tt[nst++] = x->end_s - x->start_s;
            res->makespan_s = fmax(res->makespan_s, x->end_s);
        }
    }
    if (rc == 0)
        res->t_comp_median_s = median_or_0(tc, nc), res->t_comm_median_s = median_or_0(tm, nm), res->t_step_median_s = median_or_0(tt, nst);
    free(tc), free(tm), free(tt);
    return rc;
}

int rs_exec_trace_events(rs_trace_t *trace, const rs_event_t *ev, size_t n, rs_err_t *err) {
    for (size_t i = 0; i < n; i++)
        if (ev[i].rank >= 0 && rs_trace_add(trace, &ev[i]) < 0) return rs_errf(err, "rank 0: out of memory for the trace");
    return 0;
}

void rs_exec_trace_header(rs_trace_t *trace, const rs_problem_t *p, const rs_compute_ops_t *cops, const rs_exec_opts_t *o,
                          const rs_exec_result_t *res) {
    struct utsname u;
    rs_trace_meta_problem(trace, p);
    rs_trace_set_meta(trace, "compute", "%s", res->compute_desc);
    rs_trace_set_meta(trace, "transport", "%s", res->transport_desc);
    rs_trace_set_meta(trace, "dtype", "%s", cops->dtype_name);
    rs_trace_set_meta(trace, "reps", "%d", o->reps);
    rs_trace_set_meta(trace, "warmup", "%d", o->warmup);
    rs_trace_set_meta(trace, "seed", "%" PRIu64, o->seed);
    rs_trace_set_meta(trace, "input_scale", "%g", o->input_scale);
    rs_trace_set_meta(trace, "timing", "per-event median over reps; times from each rank's pass start");
    if (uname(&u) == 0) rs_trace_set_meta(trace, "host", "%s %s %s", u.nodename, u.sysname, u.machine);
}
