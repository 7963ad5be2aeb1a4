/* kernel.c - the cost of a ring step: attention calls at their own rates, merges, launches
 * (kernel.h; derivation and the byte counts: docs/model.md section 3a). */
#include "kernel.h"

#include <math.h>
#include <string.h>
#include <threads.h>

double rs_kernel_call_s(const rs_machine_t *m) {
    const rs_impl_preset_t *p = rs_impl_preset((rs_impl_t)m->impl);
    if (!p) return 0;
    return m->host_call_given ? m->host_call_s : rs_span_at(p->host.call_s, m->bound, false, 0.0);
}

const char *rs_kernel_describe(const rs_machine_t *m, char *buf, size_t len) {
    const rs_rate_source_t *a = &m->src.rate[RS_RATE_ATTN];
    if (m->kernel > 0) {
        const rs_kernel_table_t *t = &m->kernels;
        bool wave = false;
        for (int i = 0; i < t->n_curves; i++) wave |= t->curve[i].kernel == m->kernel - 1 && t->curve[i].wave;
        snprintf(buf, len, "as the %s preset issues its calls, at kernel %s's %s rates by call shape and mask%s", rs_impl_name((rs_impl_t)m->impl),
                 t->kernel[m->kernel - 1].name, rs_rate_kind_name(a->kind),
                 wave ? " with the wave term" : " (no wave term: its CTAs or the device's SMs are not given)");
    } else {
        const char *how = m->impl == RS_IMPL_NONE ? "" : "as the preset issues its calls, ";
        if (m->flops_given)
            snprintf(buf, len, "%sat the user-given --flops %.4g TFLOP/s x eff(B) (the dense model)", how, m->flops_per_s / 1e12);
        else if (m->cal.n_eff > 0)
            snprintf(buf, len, "%sat F x eff(B) = %.4g TFLOP/s x eff(B), eff(B) %s", how, m->flops_per_s / 1e12, rs_rate_kind_name(a->kind));
        else
            snprintf(buf, len, "%sat the bare datasheet peak F = %.4g TFLOP/s (an upper bound, not a kernel rate)", how, m->flops_per_s / 1e12);
    }
    return buf;
}

/* ------------------------------------------------------------------------------------------------
 * The model of a (problem, machine)
 * ---------------------------------------------------------------------------------------------- */
void rs_kmodel_init(rs_kmodel_t *km, const rs_problem_t *p, const rs_machine_t *m) {
    /* field by field (no memset: the closed form builds one per evaluation) */
    km->curves = km->gqa_expand = false;
    km->m = m;
    /* the presets cost a training ring's calls; an inference variant (a cache, pass-q, decode) runs
     * at the dense model (docs/model.md section 3a) */
    km->pre = rs_problem_is_inference(p) ? NULL : rs_impl_preset((rs_impl_t)m->impl);
    km->n = p->n_ranks;
    km->block = rs_problem_block(p);
    km->f_eff = rs_machine_flops_eff(m, (double)km->block);
    km->p = *p;
    km->launch_s = m->cal.launch_s;
    km->call_s = km->pre ? rs_kernel_call_s(m) : 0;
    km->latency_s = km->pre ? m->launch_latency_s : 0;
    if (!km->pre) return; /* the dense model needs no more (the closed form's hot path) */
    km->cf = (double)rs_problem_flops_per_pair(p);
    km->bw = m->kernels.merge_bw_bytes_per_s;
    /* ringsim's grad_zero clears a partial that was out of use for a step: at the memory's rate, not at
     * the cache-hot merges' (on a CPU an order of magnitude apart) */
    km->clear_bw = m->mem_bw_bytes_per_s > 0 ? m->mem_bw_bytes_per_s : km->bw;
    km->eq = (double)(p->q_heads * p->head_dim * p->batch);
    km->ekv = (double)(p->kv_heads * p->head_dim * p->batch);
    km->rh = (double)(p->q_heads * p->batch);
    km->act = (double)p->act_bytes;
    if (m->kernel > 0 && m->kindex.n > 0) {
        const signed char(*idx)[RS_KMASK_COUNT] = rs_kindex_find(&m->kindex, p->head_dim);
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < RS_KMASK_COUNT; k++) km->curve[pass][k] = &m->kernels.curve[idx[pass][k]];
        km->curves = true;
        km->gqa_expand = m->kernels.kernel[m->kernel - 1].gqa_expand_bwd && p->q_heads != p->kv_heads;
        for (int k = 0; k < RS_KMASK_COUNT; k++) km->slots[k] = rs_kernel_slots(&m->kernels, km->curve[p->pass][k]);
    } else {
        for (int k = 0; k < RS_KMASK_COUNT; k++) km->slots[k] = 0;
    }
}

static double eb(const rs_kmodel_t *km, rs_elem_bytes_t b) { return b.act * km->act + b.f32 * 4.0; }

/* CTAs of a q x k call of mask kind mask under km's curves (0 without the wave term). */
static double call_ctas(const rs_kmodel_t *km, rs_kmask_t mask, double q, double k) {
    return km->slots[mask] > 0 ? rs_kcurve_ctas(km->curve[km->p.pass][mask], q, k, (double)km->p.batch, km->p.q_heads, km->p.kv_heads) : 0;
}

/* The wave utilisation of one launch of n calls (their CTAs together on the slots of the first one's
 * curve: a fused launch runs all of a step's blocks in one grid); 1 without curves or wave term. */
static double launch_util(const rs_kmodel_t *km, const rs_kcall_t *c, int n) {
    if (!km->curves || n == 0 || !(km->slots[c[0].mask] > 0)) return 1.0;
    double ctas = 0;
    for (int i = 0; i < n; i++) ctas += call_ctas(km, c[i].mask, c[i].q_tokens, c[i].k_tokens);
    return rs_kwave_util(ctas, km->slots[c[0].mask]);
}

/* Time of one call on its blocks' FLOPs: useful FLOPs at the curve's full-wave rate for its shape
 * times the launch's wave utilisation util, or executed FLOPs at the dense rate. */
static void call_time_full(rs_kcall_t *c, double full, double util) {
    c->util = util;
    c->rate = full * util;
    c->time_s = c->flops_useful / c->rate;
}

static void call_time(const rs_kmodel_t *km, rs_kcall_t *c, double util) {
    if (km->curves) {
        call_time_full(c, rs_kcurve_rate(km->curve[km->p.pass][c->mask], c->q_tokens, c->k_tokens), util);
    } else {
        c->util = 1;
        c->rate = km->f_eff;
        c->time_s = c->flops_exec / c->rate;
    }
}

/* A step as the cost needs it: its Q and KV segments' token counts and its blocks that compute (not
 * skipped), each with the kind of call it makes (full, causal, shifted) and its pairs. Built from the
 * schedule's step (rs_kernel_step) or, for a class, from rs_problem_class_kinds (rs_kernel_classes). */
typedef struct {
    int q, kv;                         /* segment indices */
    rs_kmask_t mask;
    uint64_t pairs, exec_pairs;        /* visible, and inside executed tiles, per (batch, head) */
} kblock_t;
typedef struct {
    bool computes;                     /* false: the backward's tail step */
    int n_q, n_kv, n;
    double q_count[RS_MAX_SEGMENTS], kv_count[RS_MAX_SEGMENTS];
    kblock_t b[RS_MAX_BLOCKS];
} kstep_view_t;

/* The fused launch: every block a call of its own shape and mask. */
static void calls_fused(const rs_kmodel_t *km, const kstep_view_t *st, rs_kstep_t *o) {
    for (int i = 0; i < st->n; i++) {
        const kblock_t *b = &st->b[i];
        rs_kcall_t *c = &o->call[o->n_calls++];
        c->mask = b->mask;
        c->q_tokens = st->q_count[b->q];
        c->k_tokens = st->kv_count[b->kv];
        c->flops_useful = (double)(int64_t)b->pairs * km->cf;
        c->flops_exec = (double)(int64_t)b->exec_pairs * km->cf;
    }
    if (o->n_calls) o->launches = 1;
}

/* One call over the blocks' rows (its mask the widest of theirs: full < causal < shifted). Returns the
 * rows its merges cover (Q, KV) and whether they are part of the rank's rows. */
static void call_per_step(const rs_kmodel_t *km, const kstep_view_t *st, rs_kstep_t *o, double *mq, double *mk,
                          bool *part) {
    unsigned qs = 0, ks = 0;
    uint64_t useful = 0, exec = 0;
    rs_kmask_t mask = RS_KMASK_FULL;
    for (int i = 0; i < st->n; i++) {
        const kblock_t *b = &st->b[i];
        qs |= 1u << b->q, ks |= 1u << b->kv;
        useful += b->pairs, exec += b->exec_pairs;
        if (b->mask > mask) mask = b->mask;
    }
    *mq = *mk = 0;
    *part = false;
    if (!qs) return;
    double rq = 0, rk = 0, rows_all = 0;
    for (int i = 0; i < st->n_q; i++) {
        rows_all += st->q_count[i];
        if (qs >> i & 1u) rq += st->q_count[i];
    }
    for (int i = 0; i < st->n_kv; i++)
        if (ks >> i & 1u) rk += st->kv_count[i];
    rs_kcall_t *c = &o->call[o->n_calls++];
    c->mask = mask;
    c->q_tokens = rq, c->k_tokens = rk;
    if (c->mask == RS_KMASK_SHIFTED && !km->pre->shifted_native) { /* causal on the (n-1) x (n-1) slices */
        c->mask = RS_KMASK_CAUSAL;
        c->q_tokens = rq - 1, c->k_tokens = rk - 1;
    }
    c->flops_useful = (double)(int64_t)useful * km->cf;
    c->flops_exec = (double)(int64_t)exec * km->cf;
    o->launches += 1;
    *mq = c->q_tokens, *mk = c->k_tokens;
    *part = c->q_tokens < rows_all;
}

/* The calls of a computing step (their times not yet known: step_finish) and the launches they take;
 * for a per-step call, the rows its merges cover (mq, mk) and whether they are part of the rank's. */
static void step_calls(const rs_kmodel_t *km, const kstep_view_t *st, rs_kstep_t *o, double *mq, double *mk, bool *part) {
    *mq = *mk = 0;
    *part = false;
    if (km->pre->fused) calls_fused(km, st, o);
    else call_per_step(km, st, o, mq, mk, part);
}

/* The merges a step runs inline or defers under its preset, at step number 0 (later = 0) or a later
 * one, from step_calls's rows. */
static void step_merges(const rs_kmodel_t *km, int later, double mq, double mk, bool part, rs_kstep_t *o) {
    const rs_impl_preset_t *pr = km->pre;
    const bool bwd = km->p.pass == RS_PASS_BACKWARD;
    if (!bwd && mq > 0) { /* the output merge of a per-step call */
        double by = mq * (km->eq * eb(km, pr->fwd_q[later]) + km->rh * eb(km, pr->fwd_rh[later]));
        int la = pr->fwd_launch[later];
        if (part && later) by += mq * (km->eq * eb(km, pr->fwd_part_q) + km->rh * eb(km, pr->fwd_part_rh)), la += pr->fwd_part_launch;
        if (pr->fwd_deferred) o->deferred_bytes += by, o->deferred_launches += la;
        else o->merge_bytes += by, o->launches += la;
    }
    if (bwd && mq > 0) { /* dQ, dK, dV accumulation of a per-step call; a later step's dK,dV adds the incoming partial */
        o->merge_bytes += mq * km->eq * eb(km, pr->bwd_q[later]);
        *(later ? &o->after_bytes : &o->merge_bytes) += 2 * mk * km->ekv * eb(km, pr->bwd_kv[later]);
        o->launches += pr->bwd_launch[later];
        if (km->gqa_expand) { /* sum of the per-query-head dK, dV over each group */
            o->merge_bytes += 2 * mk * km->p.head_dim * km->p.batch * km->act * (double)(km->p.q_heads + km->p.kv_heads);
            o->launches += 2;
        }
    }
    if (bwd) { /* the preset's own per-step work on the whole dK,dV block */
        const double e = 2 * (double)km->block * km->ekv;
        o->merge_bytes += e * eb(km, pr->step_kv[0]);
        o->before_bytes += e * eb(km, pr->step_kv[0]); /* ringsim's grad_zero: before its kernel */
        o->launches += pr->step_launch[0];
        if (later) o->after_bytes += e * eb(km, pr->step_kv[1]), o->launches += pr->step_launch[1];
    }
}

/* The calls of a step (their times not yet known: step_finish) at step number `step` and the merges it
 * runs inline or defers, under a preset. */
/* The host side of a step of n_calls attention calls under its preset: the kernels its calls launch
 * beyond their main one, its host-only calls and syncs; none for a step that launches nothing (its
 * blocks all skipped: the rank waits for its transfers). */
static void step_host(const rs_kmodel_t *km, int later, int n_calls, rs_kstep_t *o) {
    const rs_impl_host_t *h = &km->pre->host;
    if (o->launches == 0) return;
    o->launches += n_calls * h->call_extra_launches[km->p.pass];
    o->host_calls = h->calls[km->p.pass][later];
    o->syncs = h->syncs[km->p.pass][later];
}

static void step_plan(const rs_kmodel_t *km, const kstep_view_t *st, int64_t step, rs_kstep_t *o) {
    o->n_calls = o->launches = o->deferred_launches = o->host_calls = o->syncs = 0;
    o->merge_bytes = o->deferred_bytes = o->after_bytes = o->before_bytes = 0;
    if (!st->computes) return;
    double mq, mk;
    bool part;
    step_calls(km, st, o, &mq, &mk, &part);
    step_merges(km, step == 0 ? 0 : 1, mq, mk, part, o);
    step_host(km, step == 0 ? 0 : 1, o->n_calls, o);
}

/* The step's totals once its calls are timed. */
static void step_finish(const rs_kmodel_t *km, rs_kstep_t *o) {
    o->calls_s = 0;
    for (int i = 0; i < o->n_calls; i++) o->calls_s += o->call[i].time_s;
    o->scaled_s = o->calls_s + (o->merge_bytes - o->before_bytes) / km->bw + o->before_bytes / km->clear_bw;
    o->deferred_s = o->deferred_bytes / km->bw;
    o->after_s = o->after_bytes / km->bw;
    o->before_s = o->before_bytes / km->clear_bw;
}

void rs_kernel_step(const rs_kmodel_t *km, const rs_step_t *st, rs_kstep_t *o) {
    if (!km->pre) { /* the dense model: executed FLOPs at F eff(B), one launch when there are any */
        memset(o, 0, sizeof *o);
        if (st->has_compute && st->flops_exec > 0) {
            o->calls_s = o->scaled_s = (double)st->flops_exec / km->f_eff;
            o->launches = 1;
        }
        return;
    }
    kstep_view_t v = {.computes = st->has_compute, .n_q = st->n_q_segs, .n_kv = st->n_kv_segs};
    for (int i = 0; i < st->n_q_segs; i++) v.q_count[i] = (double)st->q_segs[i].count;
    for (int i = 0; i < st->n_kv_segs; i++) v.kv_count[i] = (double)st->kv_segs[i].count;
    for (int i = 0; i < st->n_blocks; i++) {
        const rs_block_t *b = &st->blocks[i];
        if (b->mask == RS_MASK_SKIP) continue;
        const rs_kmask_t mask = b->mask == RS_MASK_FULL ? RS_KMASK_FULL : b->diag >= 1 ? RS_KMASK_SHIFTED : RS_KMASK_CAUSAL;
        v.b[v.n++] = (kblock_t){b->q_seg, b->kv_seg, mask, b->pairs, b->exec_pairs};
    }
    step_plan(km, &v, st->step, o);
    const double util = launch_util(km, o->call, o->n_calls);
    for (int i = 0; i < o->n_calls; i++) call_time(km, &o->call[i], util);
    step_finish(km, o);
}

void rs_kernel_epilogue(const rs_kmodel_t *km, double deferred_s, int deferred_launches, double *scaled_s,
                        int *launches, int *calls) {
    *scaled_s = 0, *launches = 0, *calls = 0;
    if (!km->pre) return;
    const rs_impl_preset_t *pr = km->pre;
    const double b = (double)km->block;
    double by;
    if (km->p.pass == RS_PASS_FORWARD) by = b * (km->eq * eb(km, pr->epi_fwd_q) + km->rh * eb(km, pr->epi_fwd_rh));
    else by = b * (km->eq * eb(km, pr->epi_bwd_q) + 2 * km->ekv * eb(km, pr->epi_bwd_kv));
    *scaled_s = by / km->bw + deferred_s;
    *launches = pr->epi_launch[km->p.pass] + deferred_launches;
    *calls = pr->host.epi_calls[km->p.pass];
}

double rs_kernel_rank_slow(const rs_kmodel_t *km, int64_t rank) {
    const rs_machine_t *m = km->m;
    double slow = 1.0;
    for (int k = 0; k < m->perturb.n_stragglers && k < RS_MAX_PERTURB; k++)
        if (m->perturb.straggler_rank[k] == rank) slow *= m->perturb.straggler_factor[k];
    return slow;
}

double rs_kernel_rank_step_s(const rs_kmodel_t *km, const rs_step_t *st, const rs_kstep_t *ks, int n_xfers, double bytes,
                             double reused_bytes) {
    const rs_machine_t *m = km->m;
    const int64_t rank = st->rank, step = st->step;
    const double scaled_s = ks->scaled_s;
    const int launches = ks->launches;
    if (!(scaled_s > 0) && launches == 0 && ks->host_calls == 0) return 0.0;
    const double slow = rs_kernel_rank_slow(km, rank);
    return rs_kernel_fixed_s(km, scaled_s * slow * rs_machine_jitter(m, rank, step), launches, ks->host_calls, ks->syncs) +
           rs_machine_host_s(m, n_xfers, bytes, reused_bytes);
}

double rs_kernel_step_s(const rs_kmodel_t *km, const rs_step_t *st, rs_krank_t *acc, int n_xfers, double bytes,
                        double reused_bytes) {
    rs_kstep_t ks;
    rs_kernel_step(km, st, &ks);
    acc->deferred_s += ks.deferred_s;
    acc->deferred_launches += ks.deferred_launches;
    acc->after_s = ks.after_s > 0 ? ks.after_s * rs_kernel_rank_slow(km, st->rank) : 0;
    acc->before_s = ks.before_s > 0 ? ks.before_s * rs_kernel_rank_slow(km, st->rank) : 0;
    return rs_kernel_rank_step_s(km, st, &ks, n_xfers, bytes, reused_bytes);
}

double rs_kernel_rank_epilogue_s(const rs_kmodel_t *km, const rs_krank_t *acc, int64_t rank) {
    double es;
    int el, ec;
    rs_kernel_epilogue(km, acc->deferred_s, acc->deferred_launches, &es, &el, &ec);
    return rs_kernel_fixed_s(km, es * rs_kernel_rank_slow(km, rank), el, ec, 0);
}

/* ------------------------------------------------------------------------------------------------
 * Classes
 * ---------------------------------------------------------------------------------------------- */
/* Time the calls of the classes, each distinct (mask, shape) rated once (its full-wave rate), each
 * class one launch (its own wave utilisation). */
static void classes_rate(const rs_kmodel_t *km, rs_kclasses_t *out) {
    const rs_kcall_t *seen[3 * RS_MAX_BLOCKS];
    double full[3 * RS_MAX_BLOCKS];
    int n_seen = 0;
    for (int c = 0; c < 3; c++) {
        const double util = launch_util(km, out->cls[c].call, out->cls[c].n_calls);
        for (int i = 0; i < out->cls[c].n_calls; i++) {
            rs_kcall_t *k = &out->cls[c].call[i];
            int j = 0;
            while (j < n_seen && !(seen[j]->mask == k->mask && seen[j]->q_tokens == k->q_tokens && seen[j]->k_tokens == k->k_tokens)) j++;
            if (!km->curves) {
                call_time(km, k, 1.0);
                continue;
            }
            if (j == n_seen) full[n_seen] = rs_kcurve_rate(km->curve[km->p.pass][k->mask], k->q_tokens, k->k_tokens), seen[n_seen++] = k;
            call_time_full(k, full[j], util);
        }
    }
}

/* A class's visible and executed pairs (per sequence and head). */
typedef struct {
    uint64_t pairs, exec_pairs;
} class_pairs_t;

/* The view of class c (rs_problem_class_kinds of p) on segments of seg tokens, its blocks of each kind
 * as kind[] gives them; returns the class's pairs. */
static class_pairs_t class_view(const rs_problem_t *p, int c, double seg, const kblock_t kind[4], kstep_view_t *v) {
    unsigned char kinds[RS_MAX_BLOCKS];
    class_pairs_t sum = {0, 0};
    v->n = 0;
    v->n_q = v->n_kv = rs_problem_class_kinds(p, c, kinds);
    v->computes = v->n_q > 0;
    for (int i = 0; i < v->n_q; i++) v->q_count[i] = v->kv_count[i] = seg;
    for (int i = 0; i < v->n_q * v->n_q; i++) {
        if (kinds[i] == RS_KIND_SKIP) continue;
        kblock_t *b = &v->b[v->n++];
        *b = kind[kinds[i]];
        b->q = i / v->n_q, b->kv = i % v->n_q;
        sum.pairs += b->pairs, sum.exec_pairs += b->exec_pairs;
    }
    return sum;
}

void rs_kernel_classes(const rs_kmodel_t *km, bool exec, rs_kclasses_t *out) {
    const int64_t n = km->n;
    if (!km->pre) { /* the dense model needs the FLOPs only */
        if (rs_problem_flops_classes(&km->p, n < 2 ? 2u : 7u, out->useful, out->exec) != 0) /* uneven decode: per step */
            memset(out->useful, 0, sizeof out->useful), memset(out->exec, 0, sizeof out->exec);
        for (int c = 0; c < 3; c++) {
            rs_kstep_t *k = &out->cls[c];
            k->n_calls = k->deferred_launches = 0;
            k->merge_bytes = k->deferred_bytes = k->deferred_s = k->after_bytes = k->after_s = k->before_bytes = k->before_s = 0;
            k->calls_s = k->scaled_s = out->exec[c] > 0 ? (double)out->exec[c] / km->f_eff : 0;
            k->launches = out->exec[c] > 0 ? 1 : 0;
            k->host_calls = k->syncs = 0;
        }
        out->epi_fixed_s = 0, out->epi_fixed_launches = out->epi_fixed_calls = 0;
        return;
    }
    /* the blocks of each kind (rs_problem_class_kinds) on segments of seg tokens */
    const int64_t seg = km->p.layout == RS_LAYOUT_ZIGZAG ? km->block / 2 : km->block;
    const bool count_exec = exec || !km->curves;
    kblock_t kind[4] = {{0, 0, RS_KMASK_FULL, (uint64_t)seg * (uint64_t)seg, (uint64_t)seg * (uint64_t)seg}};
    for (int d = 0; d < 2; d++)
        kind[RS_KIND_DIAG0 + d] = (kblock_t){0, 0, d ? RS_KMASK_SHIFTED : RS_KMASK_CAUSAL, rs_diag_pairs(seg, d),
                                             count_exec ? rs_diag_exec_pairs(seg, d, km->p.tile_q, km->p.tile_k) : 0};
    const uint64_t fpp = rs_problem_flops_per_pair(&km->p);
    for (int c = 0; c < 3; c++) {
        kstep_view_t v;
        const class_pairs_t cp = class_view(&km->p, c, (double)seg, kind, &v);
        step_plan(km, &v, c == 1 ? 0 : 1, &out->cls[c]); /* class 1: step 0; classes 0 and 2: step 1 */
        out->useful[c] = cp.pairs * fpp, out->exec[c] = exec ? cp.exec_pairs * fpp : 0;
    }
    classes_rate(km, out);
    for (int c = 0; c < 3; c++) step_finish(km, &out->cls[c]);
    rs_kernel_epilogue(km, 0, 0, &out->epi_fixed_s, &out->epi_fixed_launches, &out->epi_fixed_calls);
}

/* ------------------------------------------------------------------------------------------------
 * The classes as functions of the segment length (the closed form's fast path)
 * ---------------------------------------------------------------------------------------------- */
/* What step_calls makes of a class, for any segment length seg >= 2 (the kinds of blocks do not
 * depend on seg then): each call's shape (a slot: mask, qn seg - qs by kn seg - ks; calls of the same
 * shape share a slot, rated once as classes_rate would) and its blocks of each kind; the merge rows
 * mqn seg - mqs, mkn seg - mks. Read off rs_kernel_classes's own view and calls (class_view,
 * step_calls) at two segment lengths, so the rules live there only. */
typedef struct {
    int mask;
    int twin;                  /* an earlier slot of the same mask and area (a transposed shape), or -1 */
    double qn, qs, kn, ks;
} tslot_t;
typedef struct {
    int slot;
    uint64_t nk[3];            /* full, diagonal, shifted-diagonal blocks */
} tcall_t;
typedef struct {
    bool computes, part;
    int n_calls, launches;
    double mqn, mqs, mkn, mks;
    tcall_t call[RS_MAX_BLOCKS];
} tclass_t;
typedef struct {
    tclass_t cls[3];
    int n_slots;
    tslot_t slot[3 * RS_MAX_BLOCKS];
} tset_t;

enum { T_SEG1 = 1 << 10, T_SEG2 = 1 << 11 };   /* the two lengths the templates are read at */
static const uint64_t T_CODE[3] = {1, 1u << 8, 1u << 16}; /* pairs of a block of each kind in the view */

static void tlinear(double v1, double v2, double *mul, double *sub) {
    *mul = (v2 - v1) / (T_SEG2 - T_SEG1);
    *sub = *mul * T_SEG1 - v1;
}

/* The slot of a call's shape in t (added when new, with its transposed twin if any). */
static int tslot(tset_t *t, tslot_t sl) {
    int j = 0;
    while (j < t->n_slots && !(t->slot[j].mask == sl.mask && t->slot[j].qn == sl.qn && t->slot[j].qs == sl.qs &&
                               t->slot[j].kn == sl.kn && t->slot[j].ks == sl.ks))
        j++;
    if (j < t->n_slots) return j;
    sl.twin = -1;
    for (int i = 0; i < t->n_slots && sl.twin < 0; i++)
        if (t->slot[i].mask == sl.mask && t->slot[i].qn == sl.kn && t->slot[i].qs == sl.ks && t->slot[i].kn == sl.qn &&
            t->slot[i].ks == sl.qs)
            sl.twin = i;
    t->slot[t->n_slots++] = sl;
    return j;
}

/* The templates of the classes of preset pre for (layout, causal, N = 1 when single). */
static void tset_build(const rs_impl_preset_t *pre, rs_layout_t layout, bool causal, bool single, tset_t *t) {
    rs_kmodel_t km;
    memset(&km, 0, sizeof km);
    memset(t, 0, sizeof *t);
    km.pre = pre, km.cf = 1;
    rs_problem_default(&km.p);
    km.p.layout = layout, km.p.causal = causal, km.p.n_ranks = single ? 1 : 4;
    const int segs = layout == RS_LAYOUT_ZIGZAG ? 2 : 1;
    km.p.seq_tokens = km.p.n_ranks * segs * 4; /* a block of seg = 4 >= 2 tokens: rs_problem_class_kinds's kinds for seg >= 2 */
    kblock_t kind[4] = {{0, 0, RS_KMASK_FULL, T_CODE[0], 0}};
    kind[RS_KIND_DIAG0] = (kblock_t){0, 0, RS_KMASK_CAUSAL, T_CODE[1], 0};
    kind[RS_KIND_DIAG1] = (kblock_t){0, 0, RS_KMASK_SHIFTED, T_CODE[2], 0};
    for (int c = 0; c < 3; c++) {
        kstep_view_t v1, v2;
        rs_kstep_t o1 = {0}, o2 = {0};
        double mq1, mk1, mq2, mk2;
        bool part;
        class_view(&km.p, c, T_SEG1, kind, &v1);
        class_view(&km.p, c, T_SEG2, kind, &v2);
        tclass_t *tc = &t->cls[c];
        tc->computes = v1.computes;
        if (!tc->computes) continue;
        step_calls(&km, &v1, &o1, &mq1, &mk1, &part);
        step_calls(&km, &v2, &o2, &mq2, &mk2, &tc->part);
        tc->n_calls = o1.n_calls, tc->launches = o1.launches;
        tlinear(mq1, mq2, &tc->mqn, &tc->mqs);
        tlinear(mk1, mk2, &tc->mkn, &tc->mks);
        for (int i = 0; i < o1.n_calls; i++) {
            tslot_t sl = {.mask = (int)o1.call[i].mask};
            tlinear(o1.call[i].q_tokens, o2.call[i].q_tokens, &sl.qn, &sl.qs);
            tlinear(o1.call[i].k_tokens, o2.call[i].k_tokens, &sl.kn, &sl.ks);
            tcall_t *k = &tc->call[i];
            k->slot = tslot(t, sl);
            const uint64_t code = (uint64_t)o1.call[i].flops_useful;
            for (int j = 0; j < 3; j++) k->nk[j] = code / T_CODE[j] % 256;
        }
    }
}

static tset_t tmpl[RS_IMPL_COUNT][RS_LAYOUT_COUNT][2][2]; /* [impl][layout][causal][single] */
static once_flag tmpl_once = ONCE_FLAG_INIT;

static void tmpl_init(void) {
    for (int i = RS_IMPL_NONE + 1; i < RS_IMPL_COUNT; i++)
        for (int l = 0; l < RS_LAYOUT_COUNT; l++)
            for (int c = 0; c < 2; c++)
                for (int s = 0; s < 2; s++) tset_build(rs_impl_preset((rs_impl_t)i), (rs_layout_t)l, c, s, &tmpl[i][l][c][s]);
}

void rs_kernel_classes_fast(const rs_kmodel_t *km, rs_kclasses_t *out) {
    const int64_t seg = km->p.layout == RS_LAYOUT_ZIGZAG ? km->block / 2 : km->block;
    if (!km->pre || !km->curves || seg < 2) {
        rs_kernel_classes(km, false, out);
        return;
    }
    call_once(&tmpl_once, tmpl_init);
    const tset_t *t = &tmpl[km->pre->impl][km->p.layout][km->p.causal][km->n < 2];
    const double sg = (double)seg, cf = km->cf;
    const rs_kcurve_t *const *curve = km->curve[km->p.pass];
    double rate[3 * RS_MAX_BLOCKS];
    for (int j = 0; j < t->n_slots; j++) {
        const tslot_t *sl = &t->slot[j];
        const rs_kcurve_t *cv = curve[sl->mask];
        /* a curve with one point per area rates a call by its area alone (rs_kcurve_rate): q x k = k x q */
        rate[j] = sl->twin >= 0 && !cv->shared_areas ? rate[sl->twin] : rs_kcurve_rate(cv, sl->qn * sg - sl->qs, sl->kn * sg - sl->ks);
    }
    const uint64_t kp[3] = {(uint64_t)seg * (uint64_t)seg, rs_diag_pairs(seg, 0), rs_diag_pairs(seg, 1)};
    const uint64_t fpp = rs_problem_flops_per_pair(&km->p);
    for (int c = 0; c < 3; c++) {
        const tclass_t *tc = &t->cls[c];
        rs_kstep_t *o = &out->cls[c];
        o->n_calls = 0; /* the calls are not listed (the closed form reads the class's totals) */
        o->launches = tc->launches, o->deferred_launches = o->host_calls = o->syncs = 0;
        o->merge_bytes = o->deferred_bytes = o->after_bytes = o->before_bytes = 0;
        uint64_t pairs = 0;
        double calls_s = 0, util = 1.0; /* step_finish's sum, in call order; the launch's waves (launch_util) */
        if (tc->n_calls > 0 && km->slots[t->slot[tc->call[0].slot].mask] > 0) {
            double ctas = 0;
            for (int i = 0; i < tc->n_calls; i++) {
                const tslot_t *sl = &t->slot[tc->call[i].slot];
                ctas += call_ctas(km, (rs_kmask_t)sl->mask, sl->qn * sg - sl->qs, sl->kn * sg - sl->ks);
            }
            util = rs_kwave_util(ctas, km->slots[t->slot[tc->call[0].slot].mask]);
        }
        for (int i = 0; i < tc->n_calls; i++) {
            const tcall_t *k = &tc->call[i];
            const uint64_t cp = k->nk[0] * kp[0] + k->nk[1] * kp[1] + k->nk[2] * kp[2];
            calls_s += (double)(int64_t)cp * cf / (rate[k->slot] * util);
            pairs += cp;
        }
        if (tc->computes) {
            step_merges(km, c == 1 ? 0 : 1, tc->mqn * sg - tc->mqs, tc->mkn * sg - tc->mks, tc->part, o);
            step_host(km, c == 1 ? 0 : 1, tc->n_calls, o);
        }
        o->calls_s = calls_s;
        o->scaled_s = calls_s + (o->merge_bytes - o->before_bytes) / km->bw + o->before_bytes / km->clear_bw;
        o->deferred_s = o->deferred_bytes / km->bw;
        o->after_s = o->after_bytes / km->bw;
        o->before_s = o->before_bytes / km->clear_bw;
        out->useful[c] = pairs * fpp, out->exec[c] = 0;
    }
    out->epi_fixed_s = 0, out->epi_fixed_launches = out->epi_fixed_calls = 0; /* not read by the closed form (rs_kernel_classes_epilogue) */
}

void rs_kernel_classes_epilogue(const rs_kmodel_t *km, const rs_kclasses_t *c, int64_t rank, double *scaled_s,
                                int *launches, int *calls) {
    const double r = (double)rank, after = (double)(km->n - 1 - rank);
    const double d = c->cls[1].deferred_s + r * c->cls[0].deferred_s + after * c->cls[2].deferred_s;
    const int dl = c->cls[1].deferred_launches + (int)rank * c->cls[0].deferred_launches +
                   (int)(km->n - 1 - rank) * c->cls[2].deferred_launches;
    rs_kernel_epilogue(km, d, dl, scaled_s, launches, calls);
}

/* The compute of class k (no straggler, jitter or host cost of transfers). */
static double class_s(const rs_kmodel_t *km, const rs_kstep_t *k) {
    return rs_kernel_fixed_s(km, k->scaled_s, k->launches, k->host_calls, k->syncs);
}

/* The class that paces the layout's middle steps (the rule of kernel.h). */
static const rs_kstep_t *layout_class(const rs_kmodel_t *km, const rs_kclasses_t *c) {
    if (km->n < 2) return &c->cls[1];
    return class_s(km, &c->cls[0]) >= class_s(km, &c->cls[2]) ? &c->cls[0] : &c->cls[2];
}

double rs_kernel_layout_comp_s(const rs_kmodel_t *km, const rs_kclasses_t *c) { return class_s(km, layout_class(km, c)); }

void rs_kernel_layout_fixed(const rs_kmodel_t *km, const rs_kclasses_t *c, double *work_s, double *fixed_s) {
    const rs_kstep_t *k = layout_class(km, c);
    *work_s = k->scaled_s;
    *fixed_s = rs_kernel_fixed_s(km, 0, k->launches, k->host_calls, k->syncs);
}

double rs_kernel_local_rate(const rs_kmodel_t *km) {
    if (!km->curves || !km->pre) return km->f_eff;
    const double b = (double)km->block;
    const rs_kmask_t mask = km->p.causal ? RS_KMASK_CAUSAL : RS_KMASK_FULL;
    const double util = km->slots[mask] > 0 ? rs_kwave_util(call_ctas(km, mask, b, b), km->slots[mask]) : 1.0;
    return rs_kcurve_rate(km->curve[km->p.pass][mask], b, b) * util;
}

const char *rs_kernel_range_notes(const rs_kmodel_t *km, char *buf, size_t len) {
    if (!len || !km->curves || !km->pre) return buf;
    rs_kclasses_t c;
    rs_kernel_classes(km, false, &c);
    const rs_kernel_table_t *t = &km->m->kernels;
    for (int mask = 0; mask < RS_KMASK_COUNT; mask++) /* one sentence per curve and side: the calls' shapes */
        for (int side = -1; side <= 1; side += 2) {
            const rs_kcurve_t *cv = km->curve[km->p.pass][mask];
            char shapes[256] = "";
            size_t ns = 0;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < c.cls[i].n_calls; j++) {
                    const rs_kcall_t *k = &c.cls[i].call[j];
                    if ((int)k->mask != mask || rs_kcurve_outside(cv, k->q_tokens, k->k_tokens) != side) continue;
                    char one[48];
                    snprintf(one, sizeof one, "%gx%g", k->q_tokens, k->k_tokens);
                    if (!strstr(shapes, one) && ns < sizeof shapes)
                        ns += (size_t)snprintf(shapes + ns, sizeof shapes - ns, "%s%s", ns ? ", " : "", one);
                }
            if (!ns) continue;
            const int a = 0, b = cv->nk - 1, end = side < 0 ? a : b; /* the knots: the measured shapes, or the borrowed shape's */
            char range[160], s[704];
            if (cv->nk == 1) snprintf(range, sizeof range, "measured at %gx%g tokens only", cv->kq[a], cv->kk[a]);
            else snprintf(range, sizeof range, "%s from %gx%g to %gx%g tokens", cv->shape_from ? "shaped by another curve" : "measured",
                          cv->kq[a], cv->kk[a], cv->kq[b], cv->kk[b]);
            snprintf(s, sizeof s, "kernel %s's %s %s curve (head_dim %lld) was %s: calls of %s are rated at %gx%g, the nearest "
                     "%s shape", t->kernel[cv->kernel].name, rs_pass_name((rs_pass_t)cv->pass), rs_kmask_name(cv->mask), (long long)cv->head_dim,
                     range, shapes, cv->kq[end], cv->kk[end], cv->shape_from ? "known" : "measured");
            if (strstr(buf, s)) continue;
            const size_t n = strlen(buf);
            if (n < len) snprintf(buf + n, len - n, "%s%s", n ? "; " : "", s);
        }
    return buf;
}

double rs_kernel_local_s(const rs_problem_t *p, const rs_machine_t *m, double flops_useful) {
    rs_kmodel_t km;
    rs_kmodel_init(&km, p, m);
    return flops_useful / ((double)p->n_ranks * rs_kernel_local_rate(&km));
}

double rs_kernel_peak_rate(const rs_kmodel_t *km) {
    double peak = fmax(km->m->flops_per_s, km->f_eff);
    for (int pass = 0; km->curves && km->pre && pass < 2; pass++)
        for (int k = 0; k < RS_KMASK_COUNT; k++)
            for (int i = 0; km->curve[pass][k] && i < km->curve[pass][k]->n; i++)
                peak = fmax(peak, km->curve[pass][k]->pt[i].flops_per_s);
    return km->m->jitter > 0 ? peak / (1 - km->m->jitter) : peak;
}

double rs_kernel_peak_flops(const rs_problem_t *p, const rs_machine_t *m) {
    rs_kmodel_t km;
    rs_kmodel_init(&km, p, m);
    return rs_kernel_peak_rate(&km);
}
