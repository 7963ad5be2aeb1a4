/* import.c - the import (import.h): GPU traces of a ring-attention run -> one ringsim trace per pass.
 * The files are listed and sniffed (import_files.c), read into the raw store (import_raw.c) by the
 * readers (import_kineto*.c, import_nsys.c, import_rocprof.c; every number through import_value.c), checked to be one
 * run (import_checks.c), narrowed to what was asked for (import_select.c), put in the order of the
 * ring's process group (import_groups.c) and assigned to steps (import_steps.c); here each (rank,
 * step) becomes its events and role events, checked against the schedule. The rules are documented in docs/import.md; the
 * kernel list CSV is import_kernels_csv.c. */
#include "import.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_checks.h"
#include "import_files.h"
#include "import_groups.h"
#include "import_kclass.h"
#include "import_readers.h"
#include "import_select.h"
#include "import_steps.h"

typedef struct {
    rs_trace_t *trace;
    int n_ranks, n_steps;
    size_t *kofs;                 /* [n_ranks * n_steps + 1] offsets into kernels */
    rs_import_kernel_t *kernels;  /* grouped by (rank, step), sorted by start within */
} imp_pass_t;

struct rs_import {
    rs_import_info_t info;
    char **names;                 /* kernel names (owned) */
    uint32_t n_names;
    char **notes;                 /* notes (owned) */
    size_t n_notes;
    imp_pass_t pass[RS_PASS_COUNT];
    size_t n_pass;
};

void rs_import_opts_default(rs_import_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->use_ranges = true;
    o->layer = o->profiler_step = -1;
    rs_problem_default(&o->problem);
}

const rs_import_info_t *rs_import_info(const rs_import_t *im) { return &im->info; }
size_t rs_import_n_traces(const rs_import_t *im) { return im->n_pass; }
const rs_trace_t *rs_import_trace(const rs_import_t *im, size_t i) { return i < im->n_pass ? im->pass[i].trace : NULL; }

size_t rs_import_kernels(const rs_import_t *im, size_t i, int32_t rank, int32_t step, const rs_import_kernel_t **out) {
    *out = NULL;
    if (i >= im->n_pass) return 0;
    const imp_pass_t *p = &im->pass[i];
    if (rank < 0 || rank >= p->n_ranks || step < 0 || step >= p->n_steps) return 0;
    size_t j = (size_t)rank * (size_t)p->n_steps + (size_t)step;
    *out = p->kernels + p->kofs[j];
    return p->kofs[j + 1] - p->kofs[j];
}

void rs_import_free(rs_import_t *im) {
    if (!im) return;
    for (size_t i = 0; i < im->n_pass; i++) {
        rs_trace_free(im->pass[i].trace);
        free(im->pass[i].kofs);
        free(im->pass[i].kernels);
    }
    for (uint32_t i = 0; i < im->n_names; i++) free(im->names[i]);
    free(im->names);
    for (size_t i = 0; i < im->n_notes; i++) free(im->notes[i]);
    free(im->notes);
    free(im);
}

static int ikernel_cmp(const void *a, const void *b) {
    const rs_import_kernel_t *x = a, *y = b;
    if (x->start_s != y->start_s) return x->start_s < y->start_s ? -1 : 1;
    if (x->end_s != y->end_s) return x->end_s < y->end_s ? -1 : 1;
    return (x->role > y->role) - (x->role < y->role);
}

/* One (rank, step) of a ring pass and the kernels behind it. */
typedef struct {
    rs_step_where_t w;             /* file, ring rank, step, pass instance (for messages) */
    const rs_import_kernel_t *ks;  /* [nk] its kernels, sorted by start */
    size_t nk;
} step_kernels_t;

/* The lanes of a step: compute, send, recv; then the four compute roles. */
typedef struct {
    double lo[3 + RS_ROLE_COUNT], hi[3 + RS_ROLE_COUNT];
    double busy[RS_ROLE_COUNT], busy_end[RS_ROLE_COUNT]; /* union of each role's kernels, swept by start */
    size_t n_attn;
    int64_t sent, received;        /* bytes of the messages, -1 when a kernel does not say */
} lanes_t;

static void lane_add(lanes_t *l, int lane, double a, double b) { l->lo[lane] = fmin(l->lo[lane], a), l->hi[lane] = fmax(l->hi[lane], b); }

static void lanes_of(const step_kernels_t *sk, lanes_t *l) {
    for (int i = 0; i < 3 + RS_ROLE_COUNT; i++) l->lo[i] = INFINITY, l->hi[i] = -INFINITY;
    for (int r = 0; r < RS_ROLE_COUNT; r++) l->busy[r] = 0, l->busy_end[r] = -INFINITY;
    l->n_attn = 0;
    l->sent = l->received = 0;
    bool any_send = false, any_recv = false;
    for (size_t i = 0; i < sk->nk; i++) { /* by start: the union of a role's intervals in one sweep */
        const rs_import_kernel_t *k = &sk->ks[i];
        if (rs_krole_is_compute(k->role)) {
            const rs_role_t r = rs_krole_trace_role(k->role);
            lane_add(l, 0, k->start_s, k->end_s);
            lane_add(l, 3 + r, k->start_s, k->end_s);
            l->busy[r] += fmax(0, k->end_s - fmax(k->start_s, l->busy_end[r]));
            l->busy_end[r] = fmax(l->busy_end[r], k->end_s);
            l->n_attn += rs_krole_is_attn(k->role);
        }
        if (k->role == RS_KROLE_SENDRECV || k->role == RS_KROLE_SEND) {
            lane_add(l, 1, k->start_s, k->end_s);
            l->sent = l->sent < 0 || k->bytes_sent < 0 ? -1 : l->sent + k->bytes_sent;
            any_send = true;
        }
        if (k->role == RS_KROLE_SENDRECV || k->role == RS_KROLE_RECV) {
            lane_add(l, 2, k->start_s, k->end_s);
            l->received = l->received < 0 || k->bytes_received < 0 ? -1 : l->received + k->bytes_received;
            any_recv = true;
        }
    }
    if (!any_send) l->sent = -1;
    if (!any_recv) l->received = -1;
}

/* Events and role events of one (rank, step) from its kernels, checked against the schedule s of
 * problem p, appended to t. prev_end_s: where the previous step ended (a step without kernels starts
 * there); set to where this one ends. */
static int step_events(rs_trace_t *t, const rs_schedule_t *s, const rs_problem_t *p, const step_kernels_t *sk, double *prev_end_s,
                       rs_err_t *err) {
    const rs_step_where_t *w = &sk->w;
    const int rank = w->rank, step = w->step, inst = w->inst;
    rs_step_t st;
    rs_schedule_step(s, rank, step, &st);
    const rs_pass_t pass = st.pass;
    lanes_t l;
    lanes_of(sk, &l);
    const char *f = w->file, *pn = rs_pass_name(pass);
    if (!st.has_compute && l.n_attn > 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d step %d: attention kernels in the tail step (it only brings dK,dV home)",
                       f, rank, pn, inst, step);
    if (st.n_send > 0 && !isfinite(l.lo[1]))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d step %d: no SendRecv kernel (the schedule sends %s to rank %lld here)",
                       f, rank, pn, inst, step, st.send[0].kind == RS_XFER_KV ? "K,V" : "dK,dV", (long long)st.send_peer);
    if (st.n_recv > 0 && !isfinite(l.lo[2]))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d step %d: no SendRecv kernel receiving (the schedule receives from rank %lld here)",
                       f, rank, pn, inst, step, (long long)st.recv_peer);
    if (st.n_send == 0 && (isfinite(l.lo[1]) || isfinite(l.lo[2])))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d step %d: a SendRecv kernel in a step that moves nothing (the forward's last step)",
                       f, rank, pn, inst, step);
    if (rs_import_check_compute(w, &st, p, l.n_attn, err) != 0) return -1;
    if (st.n_send > 0 && rs_import_check_bytes(w, &st, p, l.sent, -1, err) != 0) return -1;
    if (st.n_recv > 0 && rs_import_check_bytes(w, &st, p, -1, l.received, err) != 0) return -1;
    double s0 = fmin(l.lo[0], fmin(l.lo[1], l.lo[2])), s1 = fmax(l.hi[0], fmax(l.hi[1], l.hi[2]));
    if (!isfinite(s0)) s0 = s1 = *prev_end_s; /* a step without kernels (a rank that skips a masked block) */
    int rc = 0;
    if (st.has_compute) {
        double c0 = isfinite(l.lo[0]) ? l.lo[0] : s0, c1 = isfinite(l.lo[0]) ? l.hi[0] : s0;
        rs_event_t e = {rank, step, pass, RS_EV_COMPUTE, -1, c0, c1, (double)st.flops_exec, 0};
        rc |= rs_trace_add(t, &e);
        for (int r = 0; r < RS_ROLE_COUNT; r++) {
            if (!isfinite(l.lo[3 + r])) continue;
            rs_role_event_t re = {rank, step, pass, (rs_role_t)r, l.lo[3 + r], l.hi[3 + r], fmin(l.busy[r], l.hi[3 + r] - l.lo[3 + r])};
            rc |= rs_trace_add_role(t, &re);
        }
    }
    if (st.n_send > 0) {
        rs_event_t e = {rank, step, pass, RS_EV_SEND, (int32_t)st.send_peer, l.lo[1], l.hi[1], 0, (double)st.send_bytes};
        rc |= rs_trace_add(t, &e);
    }
    if (st.n_recv > 0) {
        rs_event_t e = {rank, step, pass, RS_EV_RECV, (int32_t)st.recv_peer, l.lo[2], l.hi[2], 0, (double)st.recv_bytes};
        rc |= rs_trace_add(t, &e);
    }
    rs_event_t e = {rank, step, pass, RS_EV_STEP, -1, s0, s1, 0, 0};
    rc |= rs_trace_add(t, &e);
    *prev_end_s = s1;
    return rc ? rs_errf(err, "out of memory") : 0;
}

typedef struct {
    const rs_raw_t *raw;
    const rs_import_opts_t *o;
    rs_steps_t *as;      /* [n_ranks] */
    int n;               /* N */
    int occurrence;      /* which ring pass */
    const char *mode;    /* "ranges" | "launch-order" */
    const char *inputs;  /* for the header */
    size_t n_files;
    const rs_import_ring_t *ring;
    int64_t world_size;
} build_ctx_t;

/* A kernel of instance inst of rank r that the pass keeps: assigned to it, and not a compute kernel
 * of the backward's tail step (no compute there: the pass's epilogue). */
static bool kept(const build_ctx_t *c, int r, size_t i, int inst, int n_steps, rs_pass_t pass) {
    if (c->as[r].inst[i] != inst) return false;
    const int role = c->raw->ranks[r].k[i].role;
    return !(pass == RS_PASS_BACKWARD && c->as[r].step[i] == n_steps - 1 && rs_krole_is_compute(role) && !rs_krole_is_attn(role));
}

/* The header of an imported trace. 0 or -1 on OOM. */
static int header(const build_ctx_t *c, rs_trace_t *t, const rs_problem_t *p, int n_found, size_t nk, int64_t origin) {
    const rs_import_opts_t *o = c->o;
    int rc = 0;
    rc |= rs_trace_set_meta(t, "backend", "import");
    rc |= rs_trace_meta_problem(t, p);
    rc |= rs_trace_set_meta(t, "import.format", "%s", rs_import_format_name(o->format));
    rc |= rs_trace_set_meta(t, "import.files", "%zu", c->n_files);
    rc |= rs_trace_set_meta(t, "import.input", "%s", c->inputs);
    rc |= rs_trace_set_meta(t, "import.steps_from", "%s", c->mode);
    if (!strcmp(c->mode, "ranges")) rc |= rs_trace_set_meta(t, "import.step_regex", "%s", o->step_regex ? o->step_regex : RS_IMPORT_STEP_REGEX);
    if (o->kernel_regex) rc |= rs_trace_set_meta(t, "import.kernel_regex", "%s", o->kernel_regex);
    for (int r = 0; r < RS_ROLE_COUNT; r++) {
        char key[48];
        snprintf(key, sizeof key, "import.role_regex.%s", rs_role_name((rs_role_t)r));
        if (o->role_regex[r]) rc |= rs_trace_set_meta(t, key, "%s", o->role_regex[r]);
    }
    if (c->ring->group >= 0) rc |= rs_trace_set_meta(t, "import.group", "%s", c->ring->label);
    if (c->world_size > 0) rc |= rs_trace_set_meta(t, "import.world_size", "%lld", (long long)c->world_size);
    if (o->profiler_step >= 0) rc |= rs_trace_set_meta(t, "import.profiler_step", "%d", o->profiler_step);
    if (o->layer >= 0) rc |= rs_trace_set_meta(t, "import.layer", "%d", o->layer);
    if (o->window_s[1] > o->window_s[0]) rc |= rs_trace_set_meta(t, "import.window_s", "%.9g:%.9g", o->window_s[0], o->window_s[1]);
    rc |= rs_trace_set_meta(t, "import.occurrence", "%d", c->occurrence);
    rc |= rs_trace_set_meta(t, "import.occurrences", "%d", n_found);
    rc |= rs_trace_set_meta(t, "import.kernels", "%zu", nk);
    rc |= rs_trace_set_meta(t, "import.origin_ns", "%lld", (long long)origin);
    if (c->raw->gpu_name[0]) rc |= rs_trace_set_meta(t, "import.gpu", "%s", c->raw->gpu_name);
    return rc ? -1 : 0;
}

/* The trace of one pass (occurrence c->occurrence on every rank). */
static int build_pass(const build_ctx_t *c, rs_pass_t pass, int n_found, imp_pass_t *out, rs_err_t *err) {
    const rs_raw_t *raw = c->raw;
    int n = c->n, n_steps = pass == RS_PASS_FORWARD ? n : n + 1;
    rs_problem_t p = c->o->problem;
    p.n_ranks = n;
    p.pass = pass;
    if (rs_problem_validate(&p, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT); /* the options given */
    rs_schedule_t *s = rs_schedule_create(&p, err);
    if (!s) return -1;
    int *sel = calloc((size_t)n, sizeof *sel); /* instance index per rank */
    size_t nk = 0;
    int64_t origin = INT64_MAX;
    for (int r = 0; r < n && sel; r++) {
        int seen = -1;
        for (int i = 0; i < c->as[r].n_insts; i++)
            if (c->as[r].insts[i].pass == pass && ++seen == c->occurrence) sel[r] = i;
        for (size_t i = 0; i < raw->ranks[r].nk; i++)
            if (kept(c, r, i, sel[r], n_steps, pass)) {
                nk++;
                origin = raw->ranks[r].k[i].start_ns < origin ? raw->ranks[r].k[i].start_ns : origin;
            }
    }
    out->n_ranks = n;
    out->n_steps = n_steps;
    out->kofs = calloc((size_t)n * (size_t)n_steps + 1, sizeof *out->kofs);
    out->kernels = malloc((nk ? nk : 1) * sizeof *out->kernels);
    out->trace = rs_trace_create("import");
    int rc = (!sel || !out->kofs || !out->kernels || !out->trace) ? rs_errf(err, "out of memory") : 0;
    /* kernels grouped by (rank, step): count, prefix sums, fill, sort */
    for (int r = 0; rc == 0 && r < n; r++)
        for (size_t i = 0; i < raw->ranks[r].nk; i++)
            if (kept(c, r, i, sel[r], n_steps, pass)) out->kofs[(size_t)r * n_steps + c->as[r].step[i] + 1]++;
    for (size_t j = 0; rc == 0 && j < (size_t)n * n_steps; j++) out->kofs[j + 1] += out->kofs[j];
    size_t *fill = rc == 0 ? calloc((size_t)n * n_steps, sizeof *fill) : NULL;
    if (rc == 0 && !fill) rc = rs_errf(err, "out of memory");
    for (int r = 0; rc == 0 && r < n; r++)
        for (size_t i = 0; i < raw->ranks[r].nk; i++) {
            if (!kept(c, r, i, sel[r], n_steps, pass)) continue;
            const rs_raw_kernel_t *k = &raw->ranks[r].k[i];
            const rs_raw_comm_t *cm = k->comm != RS_RAW_NONE ? &raw->comms[k->comm] : NULL;
            size_t j = (size_t)r * n_steps + c->as[r].step[i];
            out->kernels[out->kofs[j] + fill[j]++] = (rs_import_kernel_t){
                (double)(k->start_ns - origin) * 1e-9, (double)(k->end_ns - origin) * 1e-9, raw->names[k->name],
                (rs_kernel_role_t)k->role, k->device, k->stream, cm && cm->n_send ? cm->send_bytes : -1, cm && cm->n_recv ? cm->recv_bytes : -1};
        }
    free(fill);
    for (size_t j = 0; rc == 0 && j < (size_t)n * n_steps; j++)
        if (out->kofs[j + 1] - out->kofs[j] > 1)
            qsort(out->kernels + out->kofs[j], out->kofs[j + 1] - out->kofs[j], sizeof *out->kernels, ikernel_cmp);
    for (int r = 0; rc == 0 && r < n; r++) {
        double prev_end = 0;
        for (int k = 0; rc == 0 && k < n_steps; k++) {
            size_t j = (size_t)r * n_steps + k;
            const step_kernels_t sk = {{raw->ranks[r].file, r, k, c->occurrence, pass}, out->kernels + out->kofs[j], out->kofs[j + 1] - out->kofs[j]};
            rc = step_events(out->trace, s, &p, &sk, &prev_end, err);
        }
    }
    if (rc == 0) {
        if (header(c, out->trace, &p, n_found, nk, origin) != 0) rc = rs_errf(err, "out of memory");
        rs_trace_sort(out->trace);
    }
    free(sel);
    rs_schedule_free(s);
    return rc;
}

/* Read every file into raw. A file found in a directory that is not a trace of the tool (its format
 * unknown, or a JSON without traceEvents, a database without the kernel table) is skipped with a
 * note; *n_read counts the others. */
static int read_all(rs_raw_t *raw, const rs_strlist_t *files, rs_import_opts_t *o, size_t *n_read, rs_err_t *err) {
    const rs_import_format_t forced = o->format;
    const char *first = NULL;
    size_t skipped = 0;
    char skip_names[256] = "", why[sizeof err->msg] = "";
    *n_read = 0;
    for (size_t i = 0; i < files->n; i++) {
        rs_import_format_t f = RS_IMPORT_AUTO;
        const bool listed = files->listed[i];
        int rc = rs_import_sniff_format(files->v[i], &f, err);
        if (rc == 0 && forced != RS_IMPORT_AUTO && f != forced) {
            rs_errc(err, RS_ERR_BAD_INPUT, "%s: is %s, not %s (--format)", files->v[i],
                    f == RS_IMPORT_NSYS ? "an Nsight Systems SQLite export" : f == RS_IMPORT_ROCPROF ? "a rocprofv3 kernel trace CSV" : "JSON",
                    rs_import_format_name(forced));
            rc = listed ? -2 : -1;
        } else if (rc == 0 && first && f != o->format) {
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: is a %s trace but %s is %s: give traces of one tool", files->v[i], rs_import_format_name(f), first,
                           rs_import_format_name(o->format));
        } else if (rc == 0) {
            rc = f == RS_IMPORT_NSYS      ? rs_import_read_nsys(raw, files->v[i], err)
                 : f == RS_IMPORT_ROCPROF ? rs_import_read_rocprof(raw, files->v[i], err)
                                          : rs_import_read_kineto(raw, files->v[i], err);
        } else if (listed && err->code == RS_ERR_BAD_INPUT) {
            rc = -2; /* neither Kineto nor nsys */
        }
        if (rc == -2 && listed) {
            if (!why[0]) snprintf(why, sizeof why, "%s", err->msg);
            if (skipped++ < 3)
                snprintf(skip_names + strlen(skip_names), sizeof skip_names - strlen(skip_names), "%s%s", skipped > 1 ? ", " : "", files->v[i]);
            rs_err_clear(err);
            continue;
        }
        if (rc != 0) return -1;
        if (!first) first = files->v[i];
        o->format = f;
        (*n_read)++;
    }
    if (skipped && rs_raw_note(raw, "skipped %zu file(s) that are not %s traces: %s%s", skipped, first ? rs_import_format_name(o->format) : "Kineto or nsys",
                               skip_names, skipped > 3 ? ", ..." : "") != 0)
        return rs_errf(err, "out of memory");
    if (*n_read == 0) return rs_errc(err, RS_ERR_BAD_INPUT, "%s (no trace among the %zu file(s) found)", why, files->n);
    return 0;
}

/* The options' own checks. 0 or -1 with err. */
static int check_opts(const rs_import_opts_t *o, rs_err_t *err) {
    if (o->occurrence < 0) return rs_errc(err, RS_ERR_BAD_INPUT, "--occurrence %d: expected an integer >= 0", o->occurrence);
    if (o->layer < -1) return rs_errc(err, RS_ERR_BAD_INPUT, "--layer %d: expected an integer >= 0", o->layer);
    if (o->profiler_step < -1) return rs_errc(err, RS_ERR_BAD_INPUT, "--profiler-step %d: expected an integer >= 0", o->profiler_step);
    if (!(o->window_s[0] >= 0) || !(o->window_s[1] >= 0) || !isfinite(o->window_s[1]) || (o->window_s[1] != 0 && o->window_s[1] <= o->window_s[0]))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--window %g:%g: expected T0:T1 with 0 <= T0 < T1 (seconds from the traces' first kernel)", o->window_s[0],
                       o->window_s[1]);
    if (o->layer >= 0 && o->occurrence > 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--layer %d with --occurrence %d: give one (--layer counts inside a profiler step, --occurrence over the whole trace)",
                       o->layer, o->occurrence);
    return 0;
}

/* The raw store's reading, checks, selection, ring and steps: everything before the traces. */
typedef struct {
    rs_raw_t raw;
    rs_strlist_t files;
    rs_steps_t *as;
    rs_import_ring_t ring;
    bool ranges;
    int occurrence;
    size_t n_read;
} prep_t;

static int prepare(prep_t *q, rs_import_opts_t *o, rs_err_t *err) {
    rs_raw_t *raw = &q->raw;
    if (read_all(raw, &q->files, o, &q->n_read, err) != 0 || rs_import_check_run(raw, err) != 0 ||
        rs_import_select(raw, o, &q->occurrence, err) != 0 || rs_import_ring(raw, o->group, &q->ring, err) != 0)
        return -1;
    int n = (int)raw->n_ranks;
    if (n < 2) {
        char seen[600] = "";
        if (n == 1) rs_import_kernels_seen(raw, &raw->ranks[0], seen, sizeof seen);
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %d rank%s%s%s a ring needs at least 2 ranks (give every rank's trace%s)", n ? raw->ranks[0].file : q->files.v[0],
                       n, n == 1 ? " with GPU kernels (" : "s:", seen, n == 1 ? "):" : "", q->ring.group >= 0 ? ", or --group" : "");
    }
    if (o->check_ranks && o->problem.n_ranks != n)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--ranks %lld: the ring has %d ranks%s%s%s", (long long)o->problem.n_ranks, n, q->ring.group >= 0 ? " (group " : "",
                       q->ring.group >= 0 ? q->ring.label : "", q->ring.group >= 0 ? ")" : "");
    if (rs_import_check_traffic(raw, &q->ring, err) != 0 || rs_import_check_shapes(raw, &o->problem, err) != 0) return -1;
    if (!(q->as = calloc((size_t)n, sizeof *q->as))) return rs_errf(err, "out of memory");
    return rs_import_assign_steps(raw, o->use_ranges, q->as, &q->ranges, err);
}

rs_import_t *rs_import_read(const char *const *paths, size_t n_paths, const rs_import_opts_t *opts, rs_err_t *err) {
    rs_import_opts_t o = *opts;
    if (check_opts(&o, err) != 0) return NULL;
    /* the attention pattern: --kernel-regex and --role-regex attn=RE together */
    char attn_re[2048];
    const char *extra[RS_ROLE_COUNT];
    memcpy(extra, o.role_regex, sizeof extra);
    if (o.kernel_regex && *o.kernel_regex) {
        if (extra[RS_ROLE_ATTN]) snprintf(attn_re, sizeof attn_re, "(%s)|(%s)", o.kernel_regex, extra[RS_ROLE_ATTN]);
        else snprintf(attn_re, sizeof attn_re, "%s", o.kernel_regex);
        extra[RS_ROLE_ATTN] = attn_re;
    }
    prep_t q;
    memset(&q, 0, sizeof q);
    if (rs_import_expand_paths(paths, n_paths, &q.files, err) != 0 || rs_raw_init(&q.raw, extra, o.step_regex, err) != 0) {
        rs_strlist_free(&q.files);
        return NULL;
    }
    rs_import_t *im = calloc(1, sizeof *im);
    int rc = im ? prepare(&q, &o, err) : rs_errf(err, "out of memory");
    rs_raw_t *raw = &q.raw;
    const int n = (int)raw->n_ranks;
    if (rc == 0) {
        im->info.format = o.format;
        im->info.n_files = q.n_read;
        im->info.n_ranks = n;
        im->info.ranges = q.ranges;
        im->info.occurrence = q.occurrence;
        im->info.world_size = n ? raw->ranks[0].world_size : -1;
        snprintf(im->info.gpu_name, sizeof im->info.gpu_name, "%s", raw->gpu_name);
        snprintf(im->info.group, sizeof im->info.group, "%s", q.ring.label);
        for (int r = 0; r < n; r++) im->info.n_kernels += raw->ranks[r].nk;
        for (int p = 0; p < RS_PASS_COUNT; p++)
            for (int i = 0; i < q.as[0].n_insts; i++) im->info.occurrences[p] += q.as[0].insts[i].pass == (rs_pass_t)p;
    }
    char inputs[512];
    snprintf(inputs, sizeof inputs, "%s%s", q.files.n ? q.files.v[0] : "", q.files.n > 1 ? " ..." : "");
    build_ctx_t bc = {raw, &o, q.as, n, q.occurrence, q.ranges ? "ranges" : "launch-order", inputs, q.n_read, &q.ring, im ? im->info.world_size : -1};
    for (int p = 0; rc == 0 && p < RS_PASS_COUNT; p++) {
        bool want = o.n_passes == 0;
        for (int i = 0; i < o.n_passes; i++) want = want || o.passes[i] == (rs_pass_t)p;
        int found = im->info.occurrences[p];
        if (!want || (found == 0 && o.n_passes == 0)) continue;
        if (found == 0)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: no %s ring pass in the trace (found %d forward, %d backward)", q.files.v[0], rs_pass_name((rs_pass_t)p),
                         im->info.occurrences[0], im->info.occurrences[1]);
        else if (q.occurrence >= found)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s %d: the %s has %d %s ring pass(es) (0..%d)", o.layer >= 0 ? "--layer" : "--occurrence", q.occurrence,
                         o.layer >= 0 || o.profiler_step >= 0 ? "selection" : "trace", found, rs_pass_name((rs_pass_t)p), found - 1);
        else
            rc = build_pass(&bc, (rs_pass_t)p, found, &im->pass[im->n_pass++], err);
    }
    for (int r = 0; q.as && r < n; r++) rs_steps_free(&q.as[r]);
    free(q.as);
    if (im) {
        im->names = rs_raw_take_names(raw, &im->n_names);
        im->notes = raw->notes, im->n_notes = raw->n_notes;
        raw->notes = NULL, raw->n_notes = 0;
        im->info.notes = (const char *const *)im->notes;
        im->info.n_notes = im->n_notes;
    }
    rs_raw_free(raw);
    rs_strlist_free(&q.files);
    if (rc != 0) {
        rs_import_free(im);
        return NULL;
    }
    return im;
}
