/* fuzz_trace.c - the trace CSV reader (rs_trace_read_csv) and what a reader does next with a trace
 * (sort, find, makespan, the problem from the header).
 *
 * Contract checked: a refused input gives a message; an accepted trace holds only events the schema
 * allows (trace.h), no two with one (rank, step, pass, kind), and writing it (rs_trace_write_csv)
 * and reading it back gives the same source, header and events, bit for bit. */
#include <math.h>
#include <string.h>

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

static void round_trip(const rs_trace_t *t) {
    const char *out = rs_fuzz_path("written", ".csv");
    rs_err_t err = {{0}};
    int rc = rs_trace_write_csv(t, out, &err);
    if (rc != 0) fprintf(stderr, "write: %s\n", err.msg);
    RS_FUZZ_CHECK(rc == 0);
    rs_trace_t *back = rs_trace_read_csv(out, &err);
    if (!back) fprintf(stderr, "read back: %s\n", err.msg);
    RS_FUZZ_CHECK(back != NULL);
    RS_FUZZ_CHECK(same_trace(t, back));
    rs_trace_free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = rs_fuzz_file("input", ".csv", data, size);
    rs_err_t err = {{0}};
    rs_trace_t *t = rs_trace_read_csv(path, &err);
    rs_fuzz_note("rs_trace_read_csv", t ? 0 : -1, err.msg);
    if (!t) {
        RS_FUZZ_CHECK(err.msg[0] != '\0');
        return 0;
    }
    check_events(t);
    round_trip(t);
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
        RS_FUZZ_CHECK(err.msg[0] != '\0');
    }
    rs_trace_free(t);
    return 0;
}
