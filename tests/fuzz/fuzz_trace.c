/* fuzz_trace.c - the trace CSV reader (rs_trace_read_csv) and what a reader does next with a trace
 * (sort, find, makespan, the problem from the header).
 *
 * Contract checked: a refused input gives a message; an accepted trace holds only events the schema
 * allows (trace.h), no two with one (rank, step, pass, kind), and writing it (rs_trace_write_csv)
 * and reading it back gives the same source, header and events, bit for bit; a pass's summary
 * (rs_trace_summarize) has finite medians (NaN only without samples); comparing a trace with its
 * copy (rs_compare_traces) finds every event and no error. */
#include <math.h>
#include <string.h>

#include "compare.h"
#include "fuzz.h"
#include "trace.h"

static void check_events(const rs_trace_t *t) {
    const rs_event_t *e = rs_trace_events(t);
    for (size_t i = 0; i < rs_trace_count(t); i++) {
        RS_FUZZ_CHECK(e[i].rank >= 0 && e[i].step >= 0 && e[i].peer >= -1);
        RS_FUZZ_CHECK(e[i].pass >= 0 && e[i].pass < RS_PASS_COUNT);
        RS_FUZZ_CHECK(e[i].kind >= 0 && e[i].kind < RS_EV_KIND_COUNT);
        RS_FUZZ_CHECK(isfinite(e[i].start_s) && isfinite(e[i].end_s) && e[i].end_s >= e[i].start_s);
        RS_FUZZ_CHECK(isfinite(e[i].flops) && e[i].flops >= 0 && isfinite(e[i].bytes) && e[i].bytes >= 0);
    }
}

static bool same_trace(const rs_trace_t *a, const rs_trace_t *b) {
    if (strcmp(rs_trace_source(a), rs_trace_source(b)) || rs_trace_meta_count(a) != rs_trace_meta_count(b) ||
        rs_trace_count(a) != rs_trace_count(b))
        return false;
    for (size_t i = 0; i < rs_trace_meta_count(a); i++) {
        const char *ka, *va, *kb, *vb;
        rs_trace_meta_at(a, i, &ka, &va);
        rs_trace_meta_at(b, i, &kb, &vb);
        if (strcmp(ka, kb) || strcmp(va, vb)) return false;
    }
    const rs_event_t *ea = rs_trace_events(a), *eb = rs_trace_events(b);
    for (size_t i = 0; i < rs_trace_count(a); i++) {
        const rs_event_t *x = &ea[i], *y = &eb[i];
        if (x->rank != y->rank || x->step != y->step || x->pass != y->pass || x->kind != y->kind ||
            x->peer != y->peer || memcmp(&x->start_s, &y->start_s, sizeof(double)) ||
            memcmp(&x->end_s, &y->end_s, sizeof(double)) || memcmp(&x->flops, &y->flops, sizeof(double)) ||
            memcmp(&x->bytes, &y->bytes, sizeof(double)))
            return false;
    }
    return true;
}

/* a median: finite with samples, NaN without */
static void check_median(double v, size_t n) {
    if (n) RS_FUZZ_CHECK(isfinite(v) && v >= 0);
    else RS_FUZZ_CHECK(isnan(v));
}

static void check_summaries(const rs_trace_t *t) {
    for (int p = 0; p < RS_PASS_COUNT; p++) {
        rs_trace_summary_t s;
        rs_err_t err = {0};
        if (rs_trace_summarize(t, (rs_pass_t)p, &s, &err) != 0) {
            rs_fuzz_check_refused(-1, err.msg);
            continue;
        }
        check_median(s.t_comp_s, s.n_comp);
        check_median(s.t_comm_s, s.n_comm);
        check_median(s.t_step_s, s.n_step);
        check_median(s.t_comp_xfer_s, s.n_comp_xfer);
        check_median(s.t_comp_alone_s, s.n_comp_alone);
        RS_FUZZ_CHECK(isfinite(s.makespan_s) && s.makespan_s >= 0);
    }
}

/* a trace against an identical copy: everything aligns, every error is 0 */
static void check_self_compare(const rs_trace_t *t, const rs_trace_t *copy) {
    rs_compare_t c;
    rs_err_t err = {0};
    if (rs_compare_traces(t, copy, &c, &err) != 0) {
        rs_fuzz_check_refused(-1, err.msg);
        return;
    }
    RS_FUZZ_CHECK(c.only_ref == 0 && c.only_other == 0);
    for (int m = 0; m < RS_CMP_METRIC_COUNT; m++) {
        RS_FUZZ_CHECK(c.stats[m].n_undefined == 0);
        if (c.stats[m].n) RS_FUZZ_CHECK(c.stats[m].max_abs == 0 && c.stats[m].median_abs == 0);
    }
    RS_FUZZ_CHECK(isfinite(c.makespan_ref_s) && c.makespan_ref_s == c.makespan_other_s);
    RS_FUZZ_CHECK(c.makespan_ref_s > 0 ? c.makespan_rel == 0 : isnan(c.makespan_rel) || c.makespan_rel == 0);
    for (size_t i = 0; i < c.n_points; i++)
        RS_FUZZ_CHECK(isfinite(c.points[i].ref_s) && c.points[i].ref_s == c.points[i].other_s);
    rs_compare_free(&c);
}

static void round_trip(const rs_trace_t *t) {
    const char *out = rs_fuzz_path("written", ".csv");
    rs_err_t err = {0};
    int rc = rs_trace_write_csv(t, out, &err);
    if (rc != 0) fprintf(stderr, "write: %s\n", err.msg);
    RS_FUZZ_CHECK(rc == 0);
    rs_trace_t *back = rs_trace_read_csv(out, &err);
    if (!back) fprintf(stderr, "read back: %s\n", err.msg);
    RS_FUZZ_CHECK(back != NULL);
    RS_FUZZ_CHECK(same_trace(t, back));
    check_self_compare(t, back);
    rs_trace_free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = rs_fuzz_file("input", ".csv", data, size);
    rs_err_t err = {0};
    rs_trace_t *t = rs_trace_read_csv(path, &err);
    rs_fuzz_note("rs_trace_read_csv", t ? 0 : -1, err.msg);
    if (!t) {
        rs_fuzz_check_refused_at(-1, err.msg, path, data, size);
        return 0;
    }
    check_events(t);
    round_trip(t);
    check_summaries(t);
    /* what compare and plot do with a trace */
    double span = rs_trace_makespan(t);
    RS_FUZZ_CHECK(isfinite(span) && span >= 0);
    rs_trace_sort(t);
    const rs_event_t *e = rs_trace_events(t);
    for (size_t i = 0; i < rs_trace_count(t); i++)
        RS_FUZZ_CHECK(rs_trace_find(t, e[i].rank, e[i].step, e[i].pass, e[i].kind) == (long)i);
    rs_problem_t p;
    memset(&err, 0, sizeof err);
    if (rs_trace_problem(t, &p, &err) == 0) {
        RS_FUZZ_CHECK(p.seq_tokens >= 1 && p.n_ranks >= 1 && p.tile_q >= 1 && p.tile_k >= 1);
        (void)rs_problem_validate(&p, &err);
    } else {
        rs_fuzz_check_refused(-1, err.msg);
    }
    rs_trace_free(t);
    return 0;
}
