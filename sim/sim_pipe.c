/* sim_pipe.c - the child/parent pipe protocol of the SimGrid backend (sim_pipe.h): the child's
 * record writers and the parent's reader. */
#include "sim_pipe.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "job_child.h"

/* ================================================================================================
 * Child
 * ============================================================================================== */
void sim_put_rec(FILE *out, char tag, const void *rec, size_t size) {
    fputc(tag, out);
    fwrite(rec, size, 1, out);
}

void sim_put_textv(FILE *out, char tag, int code, const char *fmt, va_list ap) {
    sim_text_rec_t r = {.code = code};
    vsnprintf(r.text, sizeof r.text, fmt, ap);
    sim_put_rec(out, tag, &r, sizeof r);
    fflush(out);
}

void sim_put_text(FILE *out, char tag, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sim_put_textv(out, tag, code, fmt, ap);
    va_end(ap);
}

void sim_put_event(FILE *out, const rs_event_t *ev) { sim_put_rec(out, 'E', ev, sizeof *ev); }

void sim_put_progress(FILE *out, const sim_progress_rec_t *r) {
    sim_put_rec(out, 'P', r, sizeof *r);
    fflush(out);
}

void sim_put_results(FILE *out, const sim_summary_rec_t *sum, const double *step_end, const double *step_max) {
    sim_put_rec(out, 'R', sum, sizeof *sum);
    fwrite(step_end, sizeof(double), (size_t)sum->n_steps, out);
    fwrite(step_max, sizeof(double), (size_t)sum->n_steps, out);
}

/* ================================================================================================
 * Parent
 * ============================================================================================== */
int sim_read_full(int fd, void *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) return got == 0 ? 0 : -1;
        got += (size_t)r;
    }
    return 1;
}

/* One record's struct after its tag; false (and io_bad) when it is not all there. */
static bool read_rec(int fd, void *rec, size_t size, sim_collected_t *c) {
    if (sim_read_full(fd, rec, size) == 1) return true;
    c->io_bad = true;
    return false;
}

/* 'R' and its per-step figures into out. false when collecting stops. */
static bool read_results(int fd, int64_t steps, rs_sim_result_t *out, sim_collected_t *c) {
    if (!read_rec(fd, &c->sum, sizeof c->sum, c)) return false;
    if (c->sum.n_steps != steps) {
        c->io_bad = true;
        return false;
    }
    out->step_end_s = malloc(sizeof(double) * (size_t)steps);
    out->step_max_s = malloc(sizeof(double) * (size_t)steps);
    if (!out->step_end_s || !out->step_max_s) {
        c->oom = true;
        return false;
    }
    if (!read_rec(fd, out->step_end_s, sizeof(double) * (size_t)steps, c) ||
        !read_rec(fd, out->step_max_s, sizeof(double) * (size_t)steps, c))
        return false;
    c->have_sum = true;
    return true;
}

void sim_collect(int fd, int64_t steps, rs_trace_t *trace, rs_meter_t *meter, rs_sim_result_t *out, sim_collected_t *c) {
    for (;;) {
        char tag;
        int r = sim_read_full(fd, &tag, 1);
        if (r <= 0) {
            c->io_bad = r < 0;
            return;
        }
        if (tag == 'S') {
            if (!read_rec(fd, &c->stage, sizeof c->stage, c)) return;
        } else if (tag == 'E') {
            rs_event_t ev;
            if (!read_rec(fd, &ev, sizeof ev, c)) return;
            if (trace && !c->oom && rs_trace_add(trace, &ev) != 0) c->oom = true;
        } else if (tag == 'X') {
            if (!read_rec(fd, &c->child_err, sizeof c->child_err, c)) return;
            c->have_err = true;
        } else if (tag == 'P') {
            sim_progress_rec_t p;
            if (!read_rec(fd, &p, sizeof p, c)) return;
            char t[32];
            if (meter) rs_meter_update(meter, (double)p.rank_steps, "%s simulated", rs_fmt_time(p.sim_time_s, t, sizeof t));
        } else if (tag == 'J') {
            if (out->job || !(out->job = calloc(1, sizeof *out->job))) {
                c->oom = true;
                return;
            }
            if (rs_jc_read(fd, sim_read_full, out->job) != 0) {
                c->io_bad = true;
                return;
            }
        } else if (tag == 'R') {
            if (!read_results(fd, steps, out, c)) return;
        } else {
            c->io_bad = true;
            return;
        }
    }
}
