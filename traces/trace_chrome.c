/* trace_chrome.c - the trace schema as Chrome / Perfetto JSON (trace.h, rs_trace_write_chrome; the
 * format: docs/traces.md): one process per rank, one thread per lane (the event kinds, then the
 * compute roles), overlapping events of a lane moved to overflow lanes. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "trace.h"

/* Write s as a JSON string literal. */
static void json_str(FILE *fp, const char *s) {
    fputc('"', fp);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') fprintf(fp, "\\%c", *c);
        else if (*c < 0x20) fprintf(fp, "\\u%04x", *c);
        else fputc(*c, fp);
    }
    fputc('"', fp);
}

/* Lane of an event: kind for forward, 4 + kind for backward (a trace holding both passes keeps
 * each lane free of overlaps); of a role event 8 + role, 12 + role. Overflow level k: tid = lane +
 * LANES k. */
enum { LANES = 16 };
static int ev_lane(const rs_event_t *e) { return (int)e->kind + (e->pass == RS_PASS_BACKWARD ? 4 : 0); }
static int role_lane(const rs_role_event_t *r) { return 8 + (int)r->role + (r->pass == RS_PASS_BACKWARD ? 4 : 0); }

typedef struct {
    int32_t pid;    /* rank */
    int tid;        /* lane */
    double start_s; /* start */
    double end_s;   /* end */
    size_t idx;     /* index over events, then role events */
} lane_ev_t;

static int lane_cmp(const void *a, const void *b) {
    const lane_ev_t *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->start_s != y->start_s) return x->start_s < y->start_s ? -1 : 1;
    if (x->end_s != y->end_s) return x->end_s < y->end_s ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Order of (pid, tid). */
static int pidtid_cmp(const void *a, const void *b) {
    const int *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

int rs_trace_write_chrome(const rs_trace_t *t, const char *path, rs_err_t *err) {
    /* Lanes: an event goes to tid = lane + LANES k with the smallest k whose previous event has ended
     * (tolerance 1e-12 of the trace's time scale for rounding). A well-formed trace uses k = 0 only;
     * measured traces of medians can overlap by a little and get an overflow lane, so no tid ever
     * holds overlapping events and no time is altered. Items: the events, then the role events. */
    const size_t ne = rs_trace_count(t), nr = rs_trace_role_count(t), n = ne + nr;
    const rs_event_t *ev = rs_trace_events(t);
    const rs_role_event_t *ro = rs_trace_roles(t);
    lane_ev_t *lv = n ? malloc(n * sizeof *lv) : NULL;
    int *tid_of = n ? malloc(n * sizeof *tid_of) : NULL;
    int *pt = n ? malloc(2 * n * sizeof *pt) : NULL; /* (pid, tid) pairs in use */
    double ends[64];                                  /* last end per overflow level of one lane */
    if (n && (!lv || !tid_of || !pt)) {
        free(lv), free(tid_of), free(pt);
        return rs_errf(err, "%s: out of memory", path);
    }
    double scale = 0;
    for (size_t i = 0; i < n; i++) {
        if (i < ne) lv[i] = (lane_ev_t){ev[i].rank, ev_lane(&ev[i]), ev[i].start_s, ev[i].end_s, i};
        else lv[i] = (lane_ev_t){ro[i - ne].rank, role_lane(&ro[i - ne]), ro[i - ne].start_s, ro[i - ne].end_s, i};
        scale = fmax(scale, fmax(fabs(lv[i].start_s), fabs(lv[i].end_s)));
    }
    if (n > 1) qsort(lv, n, sizeof *lv, lane_cmp);
    int levels = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || lv[i].pid != lv[i - 1].pid || lv[i].tid != lv[i - 1].tid) levels = 0;
        int k = 0;
        while (k < levels && lv[i].start_s < ends[k] - 1e-12 * scale) k++;
        if (k == 64) k = 63; /* pathological: 64 overlapping events on one lane share the last level */
        if (k == levels && levels < 64) levels++;
        ends[k] = lv[i].end_s;
        tid_of[lv[i].idx] = lv[i].tid + LANES * k;
    }
    for (size_t i = 0; i < n; i++) pt[2 * i] = i < ne ? ev[i].rank : ro[i - ne].rank, pt[2 * i + 1] = tid_of[i];
    if (n > 1) qsort(pt, n, 2 * sizeof *pt, pidtid_cmp);

    rs_file_t f;
    if (rs_file_open(&f, path, err) != 0) {
        free(lv), free(tid_of), free(pt);
        return -1;
    }
    FILE *fp = f.fp;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":", fp);
    json_str(fp, rs_trace_source(t));
    for (size_t i = 0; i < rs_trace_meta_count(t); i++) {
        const char *key, *value;
        rs_trace_meta_at(t, i, &key, &value);
        fputc(',', fp);
        json_str(fp, key);
        fputc(':', fp);
        json_str(fp, value);
    }
    fputs("},\n\"traceEvents\":[\n", fp);
    int first = 1;
    /* Metadata: one process per rank, one thread per lane in use. */
    for (size_t i = 0; i < n; i++) {
        int pid = pt[2 * i], tid = pt[2 * i + 1];
        int new_pid = i == 0 || pid != pt[2 * (i - 1)];
        int new_tid = new_pid || tid != pt[2 * (i - 1) + 1];
        if (new_pid) {
            fprintf(fp, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,"
                        "\"args\":{\"name\":\"rank %d\"}}",
                    first ? "" : ",\n", pid, pid);
            fprintf(fp, ",\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"tid\":0,"
                        "\"args\":{\"sort_index\":%d}}",
                    pid, pid);
            first = 0;
        }
        if (new_tid) {
            int lane = tid % LANES, level = tid / LANES;
            char name[64];
            if (lane < 8)
                snprintf(name, sizeof name, "%s%s", lane >= 4 ? "backward " : "", rs_event_kind_name((rs_event_kind_t)(lane % 4)));
            else
                snprintf(name, sizeof name, "%scompute: %s", lane >= 12 ? "backward " : "", rs_role_name((rs_role_t)(lane % 4)));
            if (level) snprintf(name + strlen(name), sizeof name - strlen(name), " (overlap %d)", level);
            /* shown in the order compute, its roles, send, recv, step; the backward's after */
            const int order = lane < 8 ? lane * 64 + level : (lane >= 12 ? 4 : 0) * 64 + 32 + (lane % 4) * 8 + (level < 7 ? level : 7);
            fprintf(fp, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
                        "\"args\":{\"name\":\"%s\"}}",
                    pid, tid, name);
            fprintf(fp, ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,"
                        "\"args\":{\"sort_index\":%d}}",
                    pid, tid, order);
        }
    }
    /* Complete events in the trace's own order, then the role events. ts and dur are derived from the
     * same products so ts + dur lands on end_s * 1e6. */
    for (size_t i = 0; i < n; i++) {
        const bool role = i >= ne;
        const double s0 = role ? ro[i - ne].start_s : ev[i].start_s, s1 = role ? ro[i - ne].end_s : ev[i].end_s;
        double ts_us = s0 * 1e6, end_us = s1 * 1e6;
        double dur_us = end_us - ts_us;
        if (dur_us < 0) dur_us = 0;
        if (role) {
            const rs_role_event_t *r = &ro[i - ne];
            fprintf(fp, "%s{\"ph\":\"X\",\"name\":\"%s %d\",\"cat\":\"compute.%s\",\"pid\":%d,\"tid\":%d,"
                        "\"ts\":%.17g,\"dur\":%.17g,\"args\":{\"step\":%d,\"pass\":\"%s\",\"role\":\"%s\",\"busy_us\":%.17g}}",
                    first ? "" : ",\n", rs_role_name(r->role), (int)r->step, rs_role_name(r->role), (int)r->rank, tid_of[i], ts_us,
                    dur_us, (int)r->step, rs_pass_name(r->pass), rs_role_name(r->role), r->busy_s * 1e6);
        } else {
            const rs_event_t *e = &ev[i];
            fprintf(fp, "%s{\"ph\":\"X\",\"name\":\"%s %d\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,"
                        "\"ts\":%.17g,\"dur\":%.17g,\"args\":{\"step\":%d,\"pass\":\"%s\",\"flops\":%.17g,"
                        "\"bytes\":%.17g,\"peer\":%d}}",
                    first ? "" : ",\n", rs_event_kind_name(e->kind), (int)e->step, rs_event_kind_name(e->kind),
                    (int)e->rank, tid_of[i], ts_us, dur_us, (int)e->step, rs_pass_name(e->pass), e->flops,
                    e->bytes, (int)e->peer);
        }
        first = 0;
    }
    fputs("\n]}\n", fp);
    free(lv), free(tid_of), free(pt);
    return rs_file_commit(&f, err);
}
