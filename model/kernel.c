/* kernel.c - the cost of a ring step: attention calls at their own rates, merges, launches
 * (kernel.h; derivation and the byte counts: docs/model.md section 3). */
#include "kernel.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------
 * Implementation presets. Byte counts per element: {act, f32} = act x act_bytes + f32 x 4 bytes.
 * ---------------------------------------------------------------------------------------------- */
static const rs_impl_preset_t presets[RS_IMPL_COUNT] = {
    [RS_IMPL_RINGSIM] =
        {
            /* ringsim's executor (exec/exec.h, exec/gpu): the forward kernel reads and writes the fp32
             * (O, m, l) state itself (inside its measured rate); the backward kernel accumulates dK,dV
             * into an fp32 partial that grad_zero clears before each step (write 4 B) and grad_add adds
             * the incoming partial to after it (read 4 + 4, write 4); fwd_end writes O / l in the
             * activation dtype and the lse once per pass. */
            .impl = RS_IMPL_RINGSIM,
            .fused = true,
            .shifted_native = true,
            .step_kv = {{0, 1}, {0, 3}},
            .step_launch = {1, 1},
            .epi_fwd_q = {1, 1},
            .epi_fwd_rh = {0, 3},
            .epi_launch = {1, 0},
        },
    [RS_IMPL_FLASH_ATTN] =
        {
            /* zhuzilin/ring-flash-attention on FlashAttention-2 (_flash_attn_forward/_backward): step 0
             * out = block_out.to(fp32) (read act, write 4); later steps the TorchScript-fused
             * update_out_and_lse: out -= sigmoid(block_lse - lse) * (out - block_out) (read 4 + act,
             * write 4) and lse -= logsigmoid(lse - block_lse) (lse and block_lse read twice, lse
             * written: 5 x 4 B per row-head); a call on part of the rows (zigzag's second half,
             * striped's shifted slices) copies the slice back into out and lse (read 4, write 4);
             * out.to(q.dtype) after the loop. Backward: step 0 dq, dk, dv = buffers.to(fp32) (read
             * act, write 4); later dq += dq_buffer, dk = dk_buffer + dk, dv likewise (read act + 4,
             * write 4); dq, dk, dv .to(q.dtype) at the end. dK,dV travel in fp32. */
            .impl = RS_IMPL_FLASH_ATTN,
            .fwd_q = {{1, 1}, {1, 2}},
            .fwd_rh = {{0, 0}, {0, 5}},
            .fwd_part_q = {0, 2},
            .fwd_part_rh = {0, 2},
            .fwd_launch = {1, 2},
            .fwd_part_launch = 2,
            .bwd_q = {{1, 1}, {1, 2}},
            .bwd_kv = {{1, 1}, {1, 2}},
            .bwd_launch = {3, 3},
            .epi_fwd_q = {1, 1},
            .epi_bwd_q = {1, 1},
            .epi_bwd_kv = {1, 1},
            .epi_launch = {1, 3},
        },
    [RS_IMPL_TE] =
        {
            /* TransformerEngine's AttnFuncWithCPAndKVP2P (context_parallel.py, non-FP8): each step's
             * output (act dtype) is kept and corrected after the loop: step 0 out = out_0 *
             * exp(lse_0 - lse) (read act, write act; the lse read twice per row-head), later steps
             * out += out_i * exp(lse_i - lse) in place (read 2 act, write act), the second half in
             * place on its view (no copy); the lse corrections (read 2 x 4, write 4 per row-head) run
             * during the loop on a side stream and are counted with the corrections here. Backward:
             * dq and the dK,dV buffers are in the act dtype: a step's first touch copies (read act,
             * write act), later ones add in place (read 2 act, write act); dK,dV travel in the act
             * dtype. */
            .impl = RS_IMPL_TE,
            .fwd_deferred = true,
            .grad_in_act = true,
            .fwd_q = {{2, 0}, {3, 0}},
            .fwd_rh = {{0, 4}, {0, 5}},
            .fwd_launch = {2, 2},
            .bwd_q = {{2, 0}, {3, 0}},
            .bwd_kv = {{2, 0}, {3, 0}},
            .bwd_launch = {3, 3},
        },
};

const rs_impl_preset_t *rs_impl_preset(rs_impl_t impl) {
    return impl > RS_IMPL_NONE && impl < RS_IMPL_COUNT ? &presets[impl] : NULL;
}

int64_t rs_impl_grad_bytes(rs_impl_t impl, int64_t act_bytes) {
    const rs_impl_preset_t *p = rs_impl_preset(impl);
    return !p ? 0 : p->grad_in_act ? act_bytes : 4;
}

const char *rs_kernel_describe(const rs_machine_t *m, char *buf, size_t len) {
    if (m->impl == RS_IMPL_NONE)
        snprintf(buf, len, "at the dense peak F x eff(B) = %.4g TFLOP/s x eff(B) (no kernel curves)", m->flops_per_s / 1e12);
    else if (m->kernel > 0)
        snprintf(buf, len, "as the %s preset issues its calls, at kernel %s's measured/published rates by call shape and mask",
                 rs_impl_name((rs_impl_t)m->impl), m->kernels.kernel[m->kernel - 1].name);
    else
        snprintf(buf, len, "as the %s preset issues its calls, at the dense peak F x eff(B) = %.4g TFLOP/s x eff(B)",
                 rs_impl_name((rs_impl_t)m->impl), m->flops_per_s / 1e12);
    return buf;
}

/* ------------------------------------------------------------------------------------------------
 * The model of a (problem, machine)
 * ---------------------------------------------------------------------------------------------- */
int rs_kmodel_init(rs_kmodel_t *km, const rs_problem_t *p, const rs_machine_t *m, rs_err_t *err) {
    /* field by field (no memset: the closed form's hot path builds one per evaluation) */
    km->notes[0] = '\0';
    km->curves = km->gqa_expand = false;
    km->m = m;
    km->pre = rs_impl_preset((rs_impl_t)m->impl);
    km->n = p->n_ranks;
    km->block = rs_problem_block(p);
    km->f_eff = rs_machine_flops_eff(m, (double)km->block);
    if (!km->pre) return 0; /* the dense model needs no more (the closed form's hot path) */
    km->p = *p;
    km->cf = (double)rs_problem_flops_per_pair(p);
    km->bw = m->kernels.merge_bw_bytes_per_s;
    km->eq = (double)(p->q_heads * p->head_dim * p->batch);
    km->ekv = (double)(p->kv_heads * p->head_dim * p->batch);
    km->rh = (double)(p->q_heads * p->batch);
    km->act = (double)p->act_bytes;
    if (m->kernel > 0 && km->pre) {
        rs_kresolve_t r;
        if (rs_kernel_resolve(&m->kernels, m->kernel - 1, (int)m->dtype, p->head_dim, &r, err)) return -1;
        memcpy(km->idx, r.idx, sizeof km->idx);
        snprintf(km->notes, sizeof km->notes, "%s", r.notes);
        km->curves = true;
        km->gqa_expand = m->kernels.kernel[m->kernel - 1].gqa_expand_bwd && p->q_heads != p->kv_heads;
    }
    return 0;
}

void rs_kmodel_reseq(rs_kmodel_t *km, const rs_problem_t *p) {
    km->n = p->n_ranks;
    km->block = rs_problem_block(p);
    km->f_eff = rs_machine_flops_eff(km->m, (double)km->block);
    if (km->pre) km->p = *p;
}

static double eb(const rs_kmodel_t *km, rs_elem_bytes_t b) { return b.act * km->act + b.f32 * 4.0; }

/* Time of one call on its blocks' FLOPs: useful FLOPs at the curve's rate for its shape, or executed
 * FLOPs at the dense rate. */
static void call_time(const rs_kmodel_t *km, rs_kcall_t *c) {
    if (km->curves) {
        const rs_kcurve_t *cv = &km->m->kernels.curve[km->idx[km->p.pass][c->mask]];
        c->rate = rs_kcurve_rate(cv, c->q_tokens, c->k_tokens);
        c->time_s = c->flops_useful / c->rate;
    } else {
        c->rate = km->f_eff;
        c->time_s = c->flops_exec / c->rate;
    }
}

static rs_kmask_t block_kind(const rs_block_t *b) {
    if (b->mask == RS_MASK_FULL) return RS_KMASK_FULL;
    return b->diag >= 1 ? RS_KMASK_SHIFTED : RS_KMASK_CAUSAL;
}

/* The fused launch: every non-skipped block a call of its own shape and mask. */
static void calls_fused(const rs_kmodel_t *km, const rs_step_t *st, rs_kstep_t *o) {
    for (int i = 0; i < st->n_blocks; i++) {
        const rs_block_t *b = &st->blocks[i];
        if (b->mask == RS_MASK_SKIP) continue;
        rs_kcall_t *c = &o->call[o->n_calls++];
        c->mask = block_kind(b);
        c->q_tokens = (double)st->q_segs[b->q_seg].count;
        c->k_tokens = (double)st->kv_segs[b->kv_seg].count;
        c->flops_useful = (double)b->pairs * km->cf;
        c->flops_exec = (double)b->exec_pairs * km->cf;
        call_time(km, c);
        o->calls_s += c->time_s;
    }
    if (o->n_calls) o->launches = 1;
}

/* One call over the non-skipped blocks' rows. Returns the rows its merges cover (Q, KV) and whether
 * they are part of the rank's rows. */
static void call_per_step(const rs_kmodel_t *km, const rs_step_t *st, rs_kstep_t *o, double *mq, double *mk,
                          bool *part) {
    bool qs[RS_MAX_SEGMENTS] = {false}, ks[RS_MAX_SEGMENTS] = {false};
    double useful = 0, exec = 0, rows_all = 0;
    int64_t diag = -1;
    bool any = false;
    for (int i = 0; i < st->n_blocks; i++) {
        const rs_block_t *b = &st->blocks[i];
        if (b->mask == RS_MASK_SKIP) continue;
        any = true;
        qs[b->q_seg] = ks[b->kv_seg] = true;
        useful += (double)b->pairs, exec += (double)b->exec_pairs;
        if (b->mask == RS_MASK_DIAG && b->diag > diag) diag = b->diag;
    }
    *mq = *mk = 0;
    *part = false;
    if (!any) return;
    double rq = 0, rk = 0;
    for (int i = 0; i < st->n_q_segs; i++) {
        rows_all += (double)st->q_segs[i].count;
        if (qs[i]) rq += (double)st->q_segs[i].count;
    }
    for (int i = 0; i < st->n_kv_segs; i++)
        if (ks[i]) rk += (double)st->kv_segs[i].count;
    rs_kcall_t *c = &o->call[o->n_calls++];
    c->mask = diag < 0 ? RS_KMASK_FULL : diag == 0 ? RS_KMASK_CAUSAL : RS_KMASK_SHIFTED;
    c->q_tokens = rq, c->k_tokens = rk;
    if (c->mask == RS_KMASK_SHIFTED && !km->pre->shifted_native) { /* causal on the (n-1) x (n-1) slices */
        c->mask = RS_KMASK_CAUSAL;
        c->q_tokens = rq - 1, c->k_tokens = rk - 1;
    }
    c->flops_useful = useful * km->cf;
    c->flops_exec = exec * km->cf;
    call_time(km, c);
    o->calls_s += c->time_s;
    o->launches += 1;
    *mq = c->q_tokens, *mk = c->k_tokens;
    *part = c->q_tokens < rows_all;
}

void rs_kernel_step(const rs_kmodel_t *km, const rs_step_t *st, rs_kstep_t *o) {
    memset(o, 0, sizeof *o);
    if (!km->pre) { /* the dense model: executed FLOPs at F eff(B), one launch when there are any */
        if (st->has_compute && st->flops_exec > 0) {
            o->calls_s = o->scaled_s = (double)st->flops_exec / km->f_eff;
            o->launches = 1;
        }
        return;
    }
    const rs_impl_preset_t *pr = km->pre;
    const bool bwd = km->p.pass == RS_PASS_BACKWARD;
    const int later = st->step == 0 ? 0 : 1; /* index of the step-0 / later-step byte counts */
    if (st->has_compute) {
        double mq = 0, mk = 0;
        bool part = false;
        if (pr->fused) calls_fused(km, st, o);
        else call_per_step(km, st, o, &mq, &mk, &part);
        if (!bwd && mq > 0) { /* the output merge of a per-step call */
            double by = mq * (km->eq * eb(km, pr->fwd_q[later]) + km->rh * eb(km, pr->fwd_rh[later]));
            int la = pr->fwd_launch[later];
            if (part && later) by += mq * (km->eq * eb(km, pr->fwd_part_q) + km->rh * eb(km, pr->fwd_part_rh)), la += pr->fwd_part_launch;
            if (pr->fwd_deferred) o->deferred_bytes += by, o->deferred_launches += la;
            else o->merge_bytes += by, o->launches += la;
        }
        if (bwd && mq > 0) { /* dQ, dK, dV accumulation of a per-step call */
            o->merge_bytes += mq * km->eq * eb(km, pr->bwd_q[later]) + 2 * mk * km->ekv * eb(km, pr->bwd_kv[later]);
            o->launches += pr->bwd_launch[later];
            if (km->gqa_expand) { /* sum of the per-query-head dK, dV over each group */
                o->merge_bytes += 2 * mk * km->p.head_dim * km->p.batch * km->act * (double)(km->p.q_heads + km->p.kv_heads);
                o->launches += 2;
            }
        }
        if (bwd) { /* the preset's own per-step work on the whole dK,dV block */
            const double e = 2 * (double)km->block * km->ekv;
            o->merge_bytes += e * eb(km, pr->step_kv[0]);
            o->launches += pr->step_launch[0];
            if (st->step >= 1) o->merge_bytes += e * eb(km, pr->step_kv[1]), o->launches += pr->step_launch[1];
        }
    }
    o->scaled_s = o->calls_s + o->merge_bytes / km->bw;
    o->deferred_s = o->deferred_bytes / km->bw;
}

void rs_kernel_epilogue(const rs_kmodel_t *km, double deferred_s, int deferred_launches, double *scaled_s,
                        int *launches) {
    *scaled_s = 0, *launches = 0;
    if (!km->pre) return;
    const rs_impl_preset_t *pr = km->pre;
    const double b = (double)km->block;
    double by;
    if (km->p.pass == RS_PASS_FORWARD) by = b * (km->eq * eb(km, pr->epi_fwd_q) + km->rh * eb(km, pr->epi_fwd_rh));
    else by = b * (km->eq * eb(km, pr->epi_bwd_q) + 2 * km->ekv * eb(km, pr->epi_bwd_kv));
    *scaled_s = by / km->bw + deferred_s;
    *launches = pr->epi_launch[km->p.pass] + deferred_launches;
}

double rs_kernel_rank_step_s(const rs_kmodel_t *km, int64_t rank, int64_t step, double scaled_s, int launches,
                             int n_xfers, double bytes) {
    const rs_machine_t *m = km->m;
    if (!(scaled_s > 0) && launches == 0) return 0.0;
    double slow = 1.0;
    for (int k = 0; k < m->n_stragglers && k < RS_MAX_PERTURB; k++)
        if (m->straggler_rank[k] == rank) slow *= m->straggler_factor[k];
    double jit = 1.0;
    if (m->jitter != 0) jit = 1.0 + m->jitter * (2.0 * rs_hash_unit(m->seed, (uint64_t)rank, (uint64_t)step) - 1.0);
    return (double)launches * m->launch_s + scaled_s * slow * jit + rs_machine_host_s(m, n_xfers, bytes);
}

double rs_kernel_step_s(const rs_kmodel_t *km, const rs_step_t *st, rs_krank_t *acc, int n_xfers, double bytes) {
    rs_kstep_t ks;
    rs_kernel_step(km, st, &ks);
    acc->deferred_s += ks.deferred_s;
    acc->deferred_launches += ks.deferred_launches;
    double scaled = ks.scaled_s;
    int launches = ks.launches;
    if (st->has_compute && st->step == km->n - 1) {
        double es;
        int el;
        rs_kernel_epilogue(km, acc->deferred_s, acc->deferred_launches, &es, &el);
        if (es > 0 || el > 0) scaled += es, launches += el;
    }
    return rs_kernel_rank_step_s(km, st->rank, st->step, scaled, launches, n_xfers, bytes);
}

/* ------------------------------------------------------------------------------------------------
 * Classes
 * ---------------------------------------------------------------------------------------------- */
void rs_kernel_classes(const rs_kmodel_t *km, const rs_schedule_t *s, rs_kclasses_t *out) {
    memset(out, 0, sizeof *out);
    rs_schedule_flops_classes(s, out->useful, out->exec);
    const int64_t n = km->n;
    if (!km->pre) { /* the dense model needs the FLOPs only */
        for (int c = 0; c < 3; c++)
            if (out->exec[c] > 0) {
                out->cls[c].calls_s = out->cls[c].scaled_s = (double)out->exec[c] / km->f_eff;
                out->cls[c].launches = 1;
            }
        return;
    }
    /* representative (rank, step): class 1 = (0, 0); class 0 = (N-1, 1): owner N-2 < N-1; class 2 =
     * (0, 1): owner N-1 > 0 (classes 0 and 2 exist for N >= 2) */
    const int64_t rep[3][2] = {{n - 1, 1}, {0, 0}, {0, 1}};
    for (int c = 0; c < 3; c++) {
        if (n < 2 && c != 1) continue;
        rs_step_t st;
        rs_schedule_step(s, rep[c][0], rep[c][1], &st);
        rs_kernel_step(km, &st, &out->cls[c]);
    }
    rs_kernel_epilogue(km, 0, 0, &out->epi_fixed_s, &out->epi_fixed_launches);
}

void rs_kernel_classes_epilogue(const rs_kmodel_t *km, const rs_kclasses_t *c, int64_t rank, double *scaled_s,
                                int *launches) {
    const double r = (double)rank, after = (double)(km->n - 1 - rank);
    const double d = c->cls[1].deferred_s + r * c->cls[0].deferred_s + after * c->cls[2].deferred_s;
    const int dl = c->cls[1].deferred_launches + (int)rank * c->cls[0].deferred_launches +
                   (int)(km->n - 1 - rank) * c->cls[2].deferred_launches;
    rs_kernel_epilogue(km, d, dl, scaled_s, launches);
}

double rs_kernel_layout_comp_s(const rs_kmodel_t *km, const rs_kclasses_t *c) {
    const double launch = km->m->launch_s;
    if (km->n < 2) return (double)c->cls[1].launches * launch + c->cls[1].scaled_s;
    double t0 = (double)c->cls[0].launches * launch + c->cls[0].scaled_s;
    double t2 = (double)c->cls[2].launches * launch + c->cls[2].scaled_s;
    return t0 > t2 ? t0 : t2;
}

double rs_kernel_ideal_rate(const rs_kmodel_t *km) {
    if (!km->curves || !km->pre) return km->f_eff;
    const int mask = km->p.causal ? RS_KMASK_CAUSAL : RS_KMASK_FULL;
    const double b = (double)km->block;
    return rs_kcurve_rate(&km->m->kernels.curve[km->idx[km->p.pass][mask]], b, b);
}
