/* polls.c - polled progress (polls.h). */
#include "polls.h"

#include <math.h>

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Executed columns of rows [i0, i1) of a block (the executor's tile_cols): all of a FULL block's,
 * a DIAG block's tile_k tiles up to the last row's largest visible column. */
static int64_t exec_cols(const rs_problem_t *p, const rs_block_t *bl, int64_t i1, int64_t nk) {
    if (bl->mask == RS_MASK_FULL) return nk;
    const int64_t last = i1 - 1 - bl->diag;
    if (last < 0) return 0;
    const int64_t cols = (last / p->tile_k + 1) * p->tile_k;
    return cols < nk ? cols : nk;
}

double rs_poll_first_frac(rs_pass_t pass) { return pass == RS_PASS_BACKWARD ? 0.6 : 0.5; }

/* Looking for the work done at poll `target` (1-based, real) while walking units in order. */
typedef struct {
    double target;  /* the poll index sought */
    double seen;    /* polls passed */
    double cum;     /* work before the current unit */
    double prev;    /* work at poll `seen` */
    double at;      /* work at poll target (< 0: not yet) */
    double first;   /* rs_poll_first_frac */
} poll_walk_t;

/* A step whose polls are counted: problem p's step st under the poll geometry g, its pass (0 forward,
 * 1 backward). */
typedef struct {
    const rs_problem_t *p;
    const rs_step_t *st;
    const rs_poll_model_t *g;
    int pass;
} poll_step_t;

/* The units of one (sequence, head) of block bl of step ps in the executor's order (panels, chunks):
 * their total work (rows x executed columns) and, in *polls, their polls (2 per chunk of every panel
 * with visible columns); with w, advances it over their polls. */
static double block_units(const poll_step_t *ps, const rs_block_t *bl, poll_walk_t *w, double *polls) {
    const rs_problem_t *p = ps->p;
    const rs_step_t *st = ps->st;
    const rs_poll_model_t *g = ps->g;
    const int pass = ps->pass;
    const int64_t nq = st->q_segs[bl->q_seg].count, nk = st->kv_segs[bl->kv_seg].count;
    const int64_t mq = bl->mask == RS_MASK_FULL && g->panel_rows[pass] > 0 ? g->panel_rows[pass] : p->tile_q;
    double total = 0;
    for (int64_t i0 = 0; i0 < nq; i0 += mq) {
        const int64_t i1 = i0 + mq < nq ? i0 + mq : nq, nc = exec_cols(p, bl, i1, nk);
        const double panel = (double)(i1 - i0) * (double)nc, panel_polls = nc > 0 ? 2.0 * (double)ceil_div(nc, g->chunk_cols) : 0;
        total += panel, *polls += panel_polls;
        if (!w || w->at >= 0) continue; /* the panel's work at once: O(panels), as rs_step_polls */
        if (w->seen + panel_polls < w->target) { /* the target poll lies beyond this panel: its last poll ends it */
            w->seen += panel_polls, w->cum += panel;
            if (panel_polls > 0) w->prev = w->cum;
            continue;
        }
        for (int64_t c0 = 0; c0 < nc && w->at < 0; c0 += g->chunk_cols) {
            const double u = (double)(i1 - i0) * (double)(c0 + g->chunk_cols < nc ? g->chunk_cols : nc - c0);
            const double pos[2] = {w->cum + w->first * u, w->cum + u}; /* the unit's two polls */
            for (int j = 0; j < 2 && w->at < 0; j++) {
                if (w->seen + 1 >= w->target) w->at = w->prev + (w->target - w->seen) * (pos[j] - w->prev);
                w->seen += 1, w->prev = pos[j];
            }
            w->cum += u;
        }
    }
    return total;
}

/* Sequences x query heads: the repeats of a block's units in a step. */
static double block_reps(const rs_problem_t *p, const rs_step_t *st) {
    return (double)(p->decode && p->pass != RS_PASS_BACKWARD ? st->n_seqs : p->batch) * (double)p->q_heads;
}

double rs_step_polls(const rs_problem_t *p, const rs_step_t *st, const rs_poll_model_t *g) {
    if (g->chunk_cols <= 0 || !st->has_compute) return 0;
    const poll_step_t ps = {p, st, g, p->pass == RS_PASS_BACKWARD ? 1 : 0};
    double polls = 0;
    for (int bi = 0; bi < st->n_blocks; bi++)
        if (st->blocks[bi].mask != RS_MASK_SKIP) {
            double per = 0;
            block_units(&ps, &st->blocks[bi], NULL, &per);
            polls += per * block_reps(p, st);
        }
    return polls;
}

double rs_step_poll_at(const rs_problem_t *p, const rs_step_t *st, const rs_poll_model_t *g, double k) {
    if (g->chunk_cols <= 0 || !st->has_compute || !(k > 0)) return 0;
    const poll_step_t ps = {p, st, g, p->pass == RS_PASS_BACKWARD ? 1 : 0};
    const double reps = block_reps(p, st);
    double total = 0, polls = 0, work[RS_MAX_BLOCKS] = {0}, wpolls[RS_MAX_BLOCKS] = {0}; /* per (sequence, head) */
    for (int bi = 0; bi < st->n_blocks; bi++)
        if (st->blocks[bi].mask != RS_MASK_SKIP) {
            work[bi] = block_units(&ps, &st->blocks[bi], NULL, &wpolls[bi]);
            total += reps * work[bi], polls += reps * wpolls[bi];
        }
    if (!(total > 0) || !(polls > 0)) return 0;
    if (k > polls) return 1 + (k - polls) / polls; /* past the last poll: the average spacing on */
    poll_walk_t w = {.target = k, .seen = 0, .cum = 0, .prev = 0, .at = -1, .first = rs_poll_first_frac(p->pass)};
    for (int bi = 0; bi < st->n_blocks && w.at < 0; bi++) {
        const rs_block_t *bl = &st->blocks[bi];
        if (bl->mask == RS_MASK_SKIP) continue;
        const double per = work[bi], per_polls = wpolls[bi];
        /* the whole (sequence, head) repeats before the target poll: skipped at once */
        double skip = per_polls > 0 ? floor((w.target - w.seen - 1e-9) / per_polls) : 0;
        skip = fmax(0, fmin(reps - 1, skip));
        if (skip > 0) w.seen += skip * per_polls, w.cum += skip * per, w.prev = w.cum;
        for (double r = skip; r < reps && w.at < 0; r += 1) {
            double unused = 0;
            block_units(&ps, bl, &w, &unused);
        }
    }
    return (w.at < 0 ? total : w.at) / total;
}

double rs_full_poll_k(double frac, double polls, double first) {
    if (!(frac > 0) || !(polls > 0)) return 0;
    if (frac >= 1) return polls * frac; /* past the last poll: the average spacing (rs_step_poll_at) */
    const double units = polls / 2, pos = frac * units, u = floor(pos), f = pos - u;
    return 2 * u + (f <= first ? f / first : 1 + (f - first) / (1 - first));
}

double rs_step_poll_frac(const rs_machine_t *m, const rs_problem_t *p, const rs_step_t *st, double bytes, double reused_bytes) {
    if (!rs_calibration_polled(&m->cal)) return 0;
    return rs_step_poll_at(p, st, &m->cal.poll, rs_calibration_step_polls(&m->cal, bytes, reused_bytes));
}

double rs_step_eta(const rs_machine_t *m, double bytes, double xfer_s, double t_comp_s, double k_frac) {
    if (!rs_calibration_polled(&m->cal)) return rs_machine_overlap(m, bytes);
    if (!(k_frac > 0) || !(t_comp_s > 0) || !(xfer_s > 0)) return 1.0; /* no compute to wait in: the hop's rate */
    return xfer_s / (xfer_s + k_frac * t_comp_s);
}
