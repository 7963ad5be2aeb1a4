/* import_select.c - what to import (import_select.h; docs/import.md section 5): the kernels of one
 * ProfilerStep#N (--profiler-step, --layer's step) or of a time window (--window), on every rank. */
#include "import_select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_kclass.h"

/* When kernel k was launched (its GPU start when the launch was not recorded). */
static int64_t launched(const rs_raw_kernel_t *k) { return k->launch_ns != RS_RAW_NO_TIME ? k->launch_ns : k->start_ns; }

/* Keep the kernels of r launched in [t0, t1] (host clock) or, gpu, starting in [t0, t1); the step
 * ranges starting in [t0, t1]. */
static void keep_between(rs_raw_rank_t *r, int64_t t0, int64_t t1, bool gpu) {
    size_t m = 0;
    for (size_t i = 0; i < r->nk; i++) {
        const int64_t t = gpu ? r->k[i].start_ns : launched(&r->k[i]);
        if (t >= t0 && (gpu ? t < t1 : t <= t1)) r->k[m++] = r->k[i];
    }
    r->nk = m;
    m = 0;
    for (size_t i = 0; i < r->nr; i++)
        if (r->r[i].start_ns >= t0 && r->r[i].start_ns <= t1) r->r[m++] = r->r[i];
    r->nr = m;
}

static int i64_cmp(const void *a, const void *b) {
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int rs_import_ranges_with_launch(const rs_raw_rank_t *r, bool *holds, bool reference) {
    if (reference) {
        for (size_t g = 0; g < r->nr; g++) {
            holds[g] = false;
            for (size_t i = 0; i < r->nk && !holds[g]; i++) holds[g] = launched(&r->k[i]) >= r->r[g].start_ns && launched(&r->k[i]) <= r->r[g].end_ns;
        }
        return 0;
    }
    int64_t *t = malloc((r->nk ? r->nk : 1) * sizeof *t);
    if (!t) return -1;
    for (size_t i = 0; i < r->nk; i++) t[i] = launched(&r->k[i]);
    if (r->nk > 1) qsort(t, r->nk, sizeof *t, i64_cmp);
    for (size_t g = 0; g < r->nr; g++) { /* the first launch at or after the range's start */
        size_t lo = 0, hi = r->nk;
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (t[mid] < r->r[g].start_ns) lo = mid + 1;
            else hi = mid;
        }
        holds[g] = lo < r->nk && t[lo] <= r->r[g].end_ns;
    }
    free(t);
    return 0;
}

/* "#4..#6" of the ProfilerStep numbers r has. */
static const char *steps_seen(const rs_raw_rank_t *r, char *buf, size_t len) {
    int lo = INT32_MAX, hi = -1;
    for (size_t i = 0; i < r->nps; i++) {
        if (r->ps[i].step < lo) lo = r->ps[i].step;
        if (r->ps[i].step > hi) hi = r->ps[i].step;
    }
    if (hi < 0) snprintf(buf, len, "none: profile with torch.profiler's schedule and prof.step()");
    else if (lo == hi) snprintf(buf, len, "#%d only", lo);
    else snprintf(buf, len, "#%d..#%d", lo, hi);
    return buf;
}

/* The ProfilerStep number --layer counts in: the first of rank 0 whose range holds an attention
 * launch; -1 when rank 0 has no ProfilerStep range holding one. */
static int first_step_with_attention(const rs_raw_rank_t *r) {
    int best = -1;
    for (size_t j = 0; j < r->nps; j++) {
        if (best >= 0 && r->ps[j].step >= best) continue;
        for (size_t i = 0; i < r->nk; i++) {
            const int64_t t = launched(&r->k[i]);
            if (rs_krole_is_attn(r->k[i].role) && t >= r->ps[j].start_ns && t <= r->ps[j].end_ns) {
                best = r->ps[j].step;
                break;
            }
        }
    }
    return best;
}

int rs_import_select(rs_raw_t *raw, const rs_import_opts_t *o, int *occurrence, rs_err_t *err) {
    *occurrence = o->occurrence;
    int step = o->profiler_step;
    if (o->layer >= 0) {
        *occurrence = o->layer;
        if (step < 0 && raw->n_ranks > 0) {
            step = first_step_with_attention(&raw->ranks[0]);
            if (step < 0) {
                if (rs_raw_note(raw, "--layer %d: the traces have no ProfilerStep range with attention: layer %d counts ring passes over the whole trace, as --occurrence",
                                o->layer, o->layer) != 0)
                    return rs_errf(err, "out of memory");
            } else if (rs_raw_note(raw, "--layer %d counts ring passes inside ProfilerStep#%d (the first holding attention; --profiler-step to choose)",
                                   o->layer, step) != 0) {
                return rs_errf(err, "out of memory");
            }
        }
    }
    if (step >= 0)
        for (size_t r = 0; r < raw->n_ranks; r++) {
            rs_raw_rank_t *rr = &raw->ranks[r];
            size_t j = 0;
            while (j < rr->nps && rr->ps[j].step != step) j++;
            if (j == rr->nps) {
                char seen[96];
                return rs_errc(err, RS_ERR_BAD_INPUT, "%s: no ProfilerStep#%d range (the trace has %s)", rr->file, step, steps_seen(rr, seen, sizeof seen));
            }
            keep_between(rr, rr->ps[j].start_ns, rr->ps[j].end_ns, false);
        }
    if (o->window_s[1] > o->window_s[0]) {
        int64_t origin = INT64_MAX;
        for (size_t r = 0; r < raw->n_ranks; r++)
            for (size_t i = 0; i < raw->ranks[r].nk; i++)
                if (raw->ranks[r].k[i].start_ns < origin) origin = raw->ranks[r].k[i].start_ns;
        if (origin == INT64_MAX) return 0;
        const int64_t t0 = origin + (int64_t)(o->window_s[0] * 1e9), t1 = origin + (int64_t)(o->window_s[1] * 1e9);
        size_t kept = 0;
        for (size_t r = 0; r < raw->n_ranks; r++) {
            rs_raw_rank_t *rr = &raw->ranks[r];
            keep_between(rr, t0, t1, true);
            /* a step range is kept when it holds a kept kernel's launch */
            bool *holds = malloc((rr->nr ? rr->nr : 1) * sizeof *holds);
            if (!holds || rs_import_ranges_with_launch(rr, holds, false) != 0) {
                free(holds);
                return rs_errf(err, "out of memory");
            }
            size_t m = 0;
            for (size_t g = 0; g < rr->nr; g++)
                if (holds[g]) rr->r[m++] = rr->r[g];
            rr->nr = m;
            free(holds);
            kept += rr->nk;
        }
        if (kept == 0)
            return rs_errc(err, RS_ERR_BAD_INPUT, "--window %g:%g: no kernel starts in it (times in seconds from the traces' first kernel)", o->window_s[0],
                           o->window_s[1]);
    }
    return 0;
}
