/* progress.c - polled progress (progress.h). */
#include "progress.h"

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

double rs_step_polls(const rs_problem_t *p, const rs_step_t *st, const rs_poll_model_t *g) {
    if (g->chunk_cols <= 0 || !st->has_compute) return 0;
    const int pass = p->pass == RS_PASS_BACKWARD ? 1 : 0;
    const int64_t seqs = p->decode && pass == 0 ? st->n_seqs : p->batch;
    double polls = 0;
    for (int bi = 0; bi < st->n_blocks; bi++) {
        const rs_block_t *bl = &st->blocks[bi];
        if (bl->mask == RS_MASK_SKIP) continue;
        const int64_t nq = st->q_segs[bl->q_seg].count, nk = st->kv_segs[bl->kv_seg].count;
        const int64_t mq = bl->mask == RS_MASK_FULL && g->panel_rows[pass] > 0 ? g->panel_rows[pass] : p->tile_q;
        int64_t per_head = 0;
        for (int64_t i0 = 0; i0 < nq; i0 += mq) {
            const int64_t i1 = i0 + mq < nq ? i0 + mq : nq, nc = exec_cols(p, bl, i1, nk);
            if (nc > 0) per_head += 2 * ceil_div(nc, g->chunk_cols);
        }
        polls += (double)per_head * (double)seqs * (double)p->q_heads;
    }
    return polls;
}

double rs_step_eta(const rs_machine_t *m, double bytes, double xfer_s, double t_comp_s, double polls) {
    if (!rs_calibration_polled(&m->cal)) return rs_machine_overlap(m, bytes);
    if (!(polls > 0) || !(t_comp_s > 0) || !(xfer_s > 0)) return 1.0; /* no compute to wait in: the hop's rate */
    const double t_k = rs_calibration_polls(&m->cal, bytes) * t_comp_s / polls;
    return xfer_s / (xfer_s + t_k);
}
