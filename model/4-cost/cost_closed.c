/* cost_closed.c - the closed form (rs_model_closed) and B* (rs_model_b_star), cost.h: the balanced
 * ring's middle step and makespan from the step classes' costs (kernel.h) or the dense model, the
 * inference variants, and the search of the largest transfer-bound block. Derivations:
 * docs/model.md, docs/inference.md. */
#include "cost.h"
#include "cost_step.h"

#include <math.h>
#include <string.h>

#include "kernel.h"

/* ================================================================================================
 * The seed's formulas and the synchronous step
 * ============================================================================================== */
double rs_seed_t_comp_s(double block_tokens, double flops_per_pair, double f_per_s) {
    return flops_per_pair * block_tokens * block_tokens / f_per_s;
}

double rs_seed_t_comm_s(double block_tokens, double bytes_per_token, double w_bytes_per_s) {
    return bytes_per_token * block_tokens / w_bytes_per_s;
}

double rs_seed_b_min(double f_per_s, double w_bytes_per_s, double flops_per_pair, double bytes_per_token) {
    return f_per_s * bytes_per_token / (w_bytes_per_s * flops_per_pair);
}

double rs_sync_step_s(double t_comp_s, double latency_s, const double *xfer_s, int n, double eta, double sigma) {
    return sync_step(t_comp_s, latency_s, xfer_s, n, eta, sigma);
}

double rs_xfer_end_s(double t_comp_s, double latency_s, double xfer_s, double eta) {
    return flows_end(latency_s, t_comp_s, eta, &xfer_s, 1, NULL);
}

/* ================================================================================================
 * Closed form
 * ============================================================================================== */

/* The step classes of the problem (rs_kernel_classes, without the executed FLOPs it does not read; by
 * its templates, rs_kernel_classes_fast, under a preset). The dense model needs only their FLOPs,
 * which rs_problem_flops_classes gives directly (the hot path). */
static void closed_classes(const rs_problem_t *p, const rs_kmodel_t *km, rs_kclasses_t *kc) {
    if (km->pre) {
        rs_kernel_classes_fast(km, kc);
        return;
    }
    /* field by field (this is the closed form's hot path): the classes the closed form reads. A causal
     * contiguous or zigzag ring needs no step 0 (the balanced makespan is the non-causal one; its step
     * 0 is that of a middle step), which saves the diagonal block's executed pairs. */
    const unsigned want = p->n_ranks < 2 ? 2u : p->causal && p->layout != RS_LAYOUT_STRIPED ? 5u : 7u;
    rs_problem_flops_classes(p, want, kc->useful, kc->exec); /* a training ring: always classes */
    for (int c = 0; c < 3; c++) { /* what the closed form reads of a class */
        rs_kstep_t *k = &kc->cls[c];
        k->deferred_s = 0, k->deferred_launches = 0, k->after_s = 0, k->before_s = 0;
        k->scaled_s = kc->exec[c] > 0 ? (double)kc->exec[c] / km->f_eff : 0;
        k->launches = kc->exec[c] > 0 ? 1 : 0;
        k->host_calls = k->syncs = 0;
    }
    if (!(want & 2u)) kc->cls[1].scaled_s = kc->cls[0].scaled_s, kc->cls[1].launches = kc->cls[0].launches;
    kc->cls[1].after_s = 0; /* step 0 receives no partial */
    kc->epi_fixed_s = 0, kc->epi_fixed_launches = kc->epi_fixed_calls = 0;
}

/* The moving block of a step as a function of B (docs/model.md, docs/inference.md): T_comp(B) =
 * c_f B (B + Bc) / F_eff(B) + launch + host, T_comm(B) = L + c_x (B + off) / W with c_x the bytes per
 * token of what circulates and off = Bc when the cache travels too (pass-kv), 0 when only queries do
 * (pass-q). A training ring's dense B*: c_f = kappa c_f (kappa = the layout's step compute over a full
 * block's), Bc = off = 0. The kernel model's B* reads c_x, n_x, w and lat only (its T_comp comes from
 * the step classes). */
typedef struct {
    double c_f, c_x; /* FLOPs per visible pair; bytes per token of the moving block */
    double bc, off;  /* cached tokens per rank; tokens of the moving block that do not scale with B */
    int n_x;         /* transfers a middle step receives */
    double w, lat;   /* the slowest hop */
} variant_t;

/* gap(B) = T_comp(B) - T_comm(B) = launch + host(B) + c_f B (B + Bc) / F_eff(B) - (L + c_x (B + off) / W),
 * with host(B) = n_x o + c_x (B + off) O the host cost of receiving the step's n_x transfers. */
static double gap_s(const rs_machine_t *m, const variant_t *v, double bb) {
    const double bytes = v->c_x * (bb + v->off);
    return m->cal.launch_s + rs_machine_host_s(m, v->n_x, bytes, 0) + v->c_f * bb * (bb + v->bc) / rs_machine_flops_eff(m, bb) -
           (v->lat + bytes / v->w);
}

/* B* of the dense model: the largest B with gap(B) < 0 (a quadratic without an efficiency curve, else
 * a scan and bisection); 0 if never, NaN if still transfer-bound at 2^40 tokens. */
static double b_star_dense(const rs_machine_t *m, const variant_t *v) {
    if (m->cal.n_eff == 0) {
        /* constant F: A B^2 + Bq B + C = 0 with A = c_f / F, k = 1/W - O, Bq = A Bc - c_x k,
         * C = launch + n_x o - L - c_x k off; transfer-bound below the larger root */
        const double a = v->c_f / m->flops_per_s, k = 1 / v->w - m->cal.host_s_per_byte;
        const double bq = a * v->bc - v->c_x * k;
        const double c0 = m->cal.launch_s + v->n_x * m->cal.host_s_per_xfer - v->lat - v->c_x * k * v->off;
        const double disc = bq * bq - 4 * a * c0;
        if (disc < 0) return 0;
        const double root = (-bq + sqrt(disc)) / (2 * a);
        return root > 0 ? root : 0;
    }
    /* with an efficiency curve: scan a log grid, then bisect the last sign change */
    double last_neg = -1;
    const double factor = pow(2.0, 1.0 / 16.0);
    for (double bb = 1; bb <= 0x1p40; bb *= factor)
        if (gap_s(m, v, bb) < 0) last_neg = bb;
    if (last_neg < 0) return 0;
    if (last_neg * factor > 0x1p40) return NAN;
    double lo = last_neg, hi = last_neg * factor;
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (gap_s(m, v, mid) < 0) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The problem at block b (S = b N) and its cost classes; false when that is no valid problem. */
static bool classes_at(const rs_problem_t *p0, const rs_machine_t *m, int64_t b, rs_problem_t *p, rs_kmodel_t *km,
                       rs_kclasses_t *kc) {
    *p = rs_problem_with_block(p0, b);
    if (rs_problem_validate(p, NULL) != 0) return false;
    rs_kmodel_init(km, p, m);
    closed_classes(p, km, kc);
    return true;
}

/* A gap evaluated at an integer block size b (a multiple of the layout's granule) for the problem p0
 * on m: what the granule scan (granule_crossing) bisects. Sets *valid = false when S = b N is no
 * valid problem (64-bit FLOP counts). */
typedef double gap_at_fn(const rs_problem_t *p0, const rs_machine_t *m, const void *ctx, int64_t b, bool *valid);

/* Where gap (gap_at_fn) changes from < 0 to >= 0 on whole granules g of B (2 for a zigzag ring,
 * else 1): a log scan b = 2^(j/4) rounded up to g, four points per octave up to 2^24 tokens (a b that
 * is no valid problem ends it), then a bisection on granules between the bracket's ends. first: the
 * first b with gap >= 0, the scan ending there (*neg the b scanned before it, 0 when it is the first
 * point); else the last b with gap < 0 and the first after it with gap >= 0, the scan ending 8 points
 * into a run of gap >= 0 after a gap < 0. On return gap(*neg) < 0 <= gap(*pos) with *pos - *neg = g;
 * *neg -1 (last mode) when no b had gap < 0, *pos -1 when none after it had gap >= 0 (then nothing is
 * bisected). Tokens. Can't fail. */
static void granule_crossing(const rs_problem_t *p, const rs_machine_t *m, gap_at_fn *gap, const void *ctx, bool first,
                             int64_t *neg, int64_t *pos) {
    const int64_t g = p->layout == RS_LAYOUT_ZIGZAG && p->n_ranks > 1 ? 2 : 1;
    int64_t last_neg = first ? 0 : -1, first_pos = -1, prev = 0;
    int pos_run = 0;
    bool valid = true;
    for (int j = 0; j <= 4 * 24; j++) {
        int64_t b = ((int64_t)1 << (j / 4)) * (4 + j % 4) / 4;
        b = (b + g - 1) / g * g;
        if (b <= prev) continue;
        prev = b;
        const double gp = gap(p, m, ctx, b, &valid);
        if (!valid) break;
        if (gp < 0) {
            last_neg = b, first_pos = -1, pos_run = 0;
        } else if (first) {
            first_pos = b;
            break;
        } else if (last_neg >= 0) {
            if (first_pos < 0) first_pos = b;
            if (++pos_run >= 8) break;
        }
    }
    *neg = last_neg, *pos = first_pos;
    if (last_neg < 0 || first_pos < 0) return;
    int64_t lo = last_neg / g, hi = first_pos / g; /* gap(lo g) < 0 <= gap(hi g); lo 0: nothing below */
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (gap(p, m, ctx, mid * g, &valid) < 0) lo = mid;
        else hi = mid;
    }
    *neg = lo * g, *pos = hi * g;
}

/* Kernel model: the gap at block b (gap_at_fn; ctx: the variant v) - the layout's step compute from
 * the classes of the problem at S = b N, plus the host cost, minus T_comm of v's moving block. */
static double gap_kernel(const rs_problem_t *p0, const rs_machine_t *m, const void *ctx, int64_t b, bool *valid) {
    const variant_t *v = ctx;
    rs_problem_t p;
    rs_kmodel_t km;
    rs_kclasses_t kc;
    if (!(*valid = classes_at(p0, m, b, &p, &km, &kc))) return 0;
    const double bytes = v->c_x * (double)b;
    const double reused = p.n_ranks > 2 ? bytes : 0, g = rs_machine_step_xfer_factor(m, bytes, reused); /* a middle step: reused buffers */
    return rs_kernel_layout_comp_s(&km, &kc) + rs_machine_host_s(m, v->n_x, bytes, reused) - (v->lat + bytes * g / v->w);
}

/* B* of the kernel model: the largest block (in granules) whose middle step is transfer-bound, the
 * last crossing of the granule scan. The scan stops 8 points after the transfer-bound range ends
 * (compute grows as b^2 once the curves are clamped, transfers as b). 0 if never transfer-bound; NaN
 * if still transfer-bound at the largest b scanned. */
static double b_star_kernel(const rs_problem_t *p, const rs_machine_t *m, const variant_t *v) {
    int64_t neg, pos;
    granule_crossing(p, m, gap_kernel, v, false, &neg, &pos);
    if (neg < 0) return 0;
    if (pos < 0) return NAN; /* transfer-bound up to the largest b scanned */
    return (double)neg;
}

/* The step kinds of a balanced training ring: what closed_makespan composes. */
typedef struct {
    bool bwd;                /* the backward pass */
    int64_t n;               /* ranks */
    double tc0, tcm, tcl;    /* the compute of step 0, of a middle step, of the last computing step */
    double kv, dkv;          /* bytes of a K,V block, of a dK,dV partial */
    double w, lat;           /* the slowest hop */
    double t_mid_fwd;        /* the forward's middle step when the caller has it (the layout's step), else -1 */
    double after_s;          /* the backward's later computing steps end after_s (the arrived partial's merges)
                                after their compute and transfers */
} closed_in_t;

/* The balanced non-causal makespan of c's step kinds on m. The pass epilogue is the caller's. */
static double closed_makespan(const rs_machine_t *m, const closed_in_t *c) {
    const bool bwd = c->bwd;
    const int64_t n = c->n;
    const double tc0 = c->tc0, tcm = c->tcm, tcl = c->tcl, lat = c->lat, kv = c->kv, dkv = c->dkv, w = c->w;
    const double t_mid_fwd = c->t_mid_fwd, after_s = c->after_s;
    /* the first step carries K,V, the middle ones K,V and dK,dV, the last dK,dV: each at its size's g.
     * A kind sent at the step before arrives in the buffer sent then (the reused curve,
     * rs_schedule_step_reused_bytes): K,V from step 1, dK,dV from step 2 (the tail included) */
    const double x_kv0 = kv * rs_machine_step_xfer_factor(m, kv, 0) / w, x_kvm = kv * rs_machine_step_xfer_factor(m, kv, kv) / w,
                 x_dkvl = dkv * rs_machine_step_xfer_factor(m, dkv, n > 2 ? dkv : 0) / w,
                 x_dkvt = dkv * rs_machine_step_xfer_factor(m, dkv, dkv) / w,
                 g_1 = rs_machine_step_xfer_factor(m, kv + dkv, kv), both_1[2] = {kv * g_1 / w, dkv * g_1 / w},
                 g_m = rs_machine_step_xfer_factor(m, kv + dkv, kv + dkv), both_m[2] = {kv * g_m / w, dkv * g_m / w},
                 sigma = m->cal.comp_slowdown;
    const double eta_kv = rs_machine_overlap(m, kv), eta_dkv = rs_machine_overlap(m, dkv), eta_both = rs_machine_overlap(m, kv + dkv);
    const double h_kv0 = rs_machine_host_s(m, 1, kv, 0), h_kvm = rs_machine_host_s(m, 1, kv, kv),
                 h_dkvl = rs_machine_host_s(m, 1, dkv, n > 2 ? dkv : 0), h_both_1 = rs_machine_host_s(m, 2, kv + dkv, kv),
                 h_both_m = rs_machine_host_s(m, 2, kv + dkv, kv + dkv);
    if (n == 1) return tcl;
    const double first = rs_sync_step_s(tc0 + h_kv0, lat, &x_kv0, 1, eta_kv, sigma);
    if (!bwd) {
        const double t_mid = t_mid_fwd >= 0 ? t_mid_fwd : rs_sync_step_s(tcm + h_kvm, lat, &x_kvm, 1, eta_kv, sigma);
        if (tc0 == tcm && tcl == tcm && x_kv0 == x_kvm && h_kv0 == h_kvm) return (double)(n - 1) * t_mid + tcm; /* the dense model's form */
        return first + (double)(n - 2) * t_mid + tcl;
    }
    const double mid_1 = n > 2 ? rs_sync_step_s(tcm + h_both_1, lat, both_1, 2, eta_both, sigma) + after_s : 0,
                 mid = n > 3 ? rs_sync_step_s(tcm + h_both_m, lat, both_m, 2, eta_both, sigma) + after_s : 0;
    return first + mid_1 + (n > 3 ? (double)(n - 3) * mid : 0) + (rs_sync_step_s(tcl + h_dkvl, lat, &x_dkvl, 1, eta_dkv, sigma) + after_s) +
           rs_sync_step_s(0, lat, &x_dkvt, 1, eta_dkv, sigma);
}

/* An inference variant's moving block (rs_model_closed has filled o's rates and block). */
static variant_t variant_of(const rs_problem_t *p, const rs_closed_t *o) {
    variant_t v = {o->flops_per_pair, o->bytes_per_token, (double)rs_problem_cached_block(p),
                   rs_problem_passes_q(p) ? 0 : (double)rs_problem_cached_block(p), 1, o->w_bytes_per_s, o->latency_s};
    if (p->decode) v.c_f = o->flops_per_pair / (double)p->batch * (double)rs_problem_buf_seqs(p);
    return v;
}

/* The closed form of the inference variants (forward, pass-q, a cache, decode; docs/inference.md),
 * at the dense model (the kernel presets cost training rings: kernel.h): every step computes
 * B (B + Bc) full pairs (decode: ceil(b/N) sequences x Bc, plus the own token at step 0) and moves
 * the variant's block; pass-q adds the all-to-all. Fills the step fields of o. */
static void closed_variant(const rs_problem_t *p, const rs_machine_t *m, const variant_t *v, rs_closed_t *o) {
    const int64_t n = p->n_ranks;
    const double sigma = m->cal.comp_slowdown, b = (double)o->block_tokens;
    const double moving = rs_problem_passes_q(p) ? (double)rs_problem_q_bytes(p) : (double)rs_problem_kv_bytes(p);
    const double pairs = p->decode ? v->bc : b * (b + v->bc), pairs0 = p->decode ? v->bc + 1 : pairs;
    o->t_comp_s = m->cal.launch_s + v->c_f * pairs / o->f_eff_per_s;
    o->work_s = o->t_comp_s - m->cal.launch_s, o->fixed_s = m->cal.launch_s; /* the dense model: one launch */
    const double tc0 = m->cal.launch_s + v->c_f * pairs0 / o->f_eff_per_s;
    o->t_comm_s = v->lat + moving / v->w;
    const double x = moving / v->w, eta = rs_machine_overlap(m, moving), host = rs_machine_host_s(m, 1, moving, 0);
    o->t_step_s = rs_sync_step_s(o->t_comp_s + host, v->lat, &x, 1, eta, sigma);
    if (n == 1) {
        o->makespan_s = tc0;
        return;
    }
    /* step 0 (the own block), N - 2 middle steps, the last step (nothing to send), the return */
    o->makespan_s = rs_sync_step_s(tc0 + host, v->lat, &x, 1, eta, sigma) + (double)(n - 2) * o->t_step_s + o->t_comp_s;
    if (rs_problem_passes_q(p)) o->a2a_s = rs_machine_a2a_s(m, n, (double)rs_problem_part_bytes(p) * (double)n, NULL);
    o->makespan_s += o->a2a_s;
}

int rs_model_closed(const rs_problem_t *p, const rs_machine_t *m, rs_closed_t *o, rs_err_t *err) {
    if (rs_problem_validate(p, err) != 0 || rs_machine_validate(m, p->n_ranks, err) != 0) return -1;
    memset(o, 0, sizeof *o);
    const int64_t n = p->n_ranks, b = rs_problem_block(p);
    const bool bwd = p->pass == RS_PASS_BACKWARD;
    rs_kmodel_t km;
    rs_kmodel_init(&km, p, m);
    o->block_tokens = b;
    o->flops_per_pair = (double)rs_problem_flops_per_pair(p);
    const double kv = (double)rs_problem_kv_bytes(p), dkv = (double)rs_problem_dkv_bytes(p);
    const double moving = rs_problem_passes_q(p) ? (double)rs_problem_q_bytes(p) : kv;
    o->bytes_per_token = moving / (double)(b + (rs_problem_passes_q(p) ? 0 : rs_problem_cached_block(p)));
    o->bytes_per_step = bwd && n > 2 ? kv + dkv : moving;
    o->f_peak_per_s = m->flops_per_s;
    o->f_eff_per_s = km.f_eff;
    rs_machine_slowest_hop(m, n, &o->w_bytes_per_s, &o->latency_s); /* the slowest hop paces the ring */
    const double w = o->w_bytes_per_s, lat = o->latency_s, sigma = m->cal.comp_slowdown;
    o->b_star_tokens = o->b_fixed_tokens = -1; /* rs_model_b_star */
    if (rs_problem_is_inference(p)) {
        const variant_t v = variant_of(p, o);
        closed_variant(p, m, &v, o);
        o->comm_bound = o->t_comm_s > o->t_comp_s;
        /* B_min: smallest B with c_f B (B + Bc) / F >= c_x (B + off) / W (the seed's, cache included);
         * decode: B = 1 is fixed, no threshold in new tokens per rank (B_min = 0) */
        if (!p->decode)
            o->b_min_tokens = rs_problem_passes_q(p) ? fmax(0, m->flops_per_s * v.c_x / (w * v.c_f) - v.bc)
                                                     : rs_seed_b_min(m->flops_per_s, w, v.c_f, v.c_x);
        return 0;
    }
    rs_kclasses_t kc;
    closed_classes(p, &km, &kc);
    /* the layout's step compute (the one rule of kernel.h) and the step kinds of the balanced form */
    o->t_comp_s = rs_kernel_layout_comp_s(&km, &kc);
    rs_kernel_layout_fixed(&km, &kc, &o->work_s, &o->fixed_s);
    const rs_kstep_t *c0 = &kc.cls[1], *cm = &kc.cls[n > 1 ? 0 : 1];
    double epi_s = 0;
    int epi_l = 0, epi_c = 0;
    if (km.pre) rs_kernel_classes_epilogue(&km, &kc, 0, &epi_s, &epi_l, &epi_c); /* the dense model has none */
    const double tc0 = rs_kernel_fixed_s(&km, c0->scaled_s, c0->launches, c0->host_calls, c0->syncs),
                 tcm = rs_kernel_fixed_s(&km, cm->scaled_s, cm->launches, cm->host_calls, cm->syncs);
    const double epi = rs_kernel_fixed_s(&km, epi_s, epi_l, epi_c, 0); /* after the last step */
    /* a middle step's transfers arrive in the buffers sent at the step before (n > 2; at n = 2 the one
     * step with a transfer is step 0, or the backward's step 1, whose dK,dV nothing sent before) */
    const double reused_of = n > 2 ? 1 : 0;
    const double g_step = rs_machine_step_xfer_factor(m, o->bytes_per_step, reused_of * o->bytes_per_step),
                 g_kv = rs_machine_step_xfer_factor(m, kv, reused_of * kv);
    o->t_comm_s = lat + o->bytes_per_step * g_step / w;
    const double x_kv = kv * g_kv / w, both[2] = {kv * g_step / w, dkv * g_step / w};
    if (!bwd || n <= 2)
        o->t_step_s = rs_sync_step_s(o->t_comp_s + rs_machine_host_s(m, 1, kv, reused_of * kv), lat, &x_kv, 1, rs_machine_overlap(m, kv), sigma);
    else
        o->t_step_s = rs_sync_step_s(o->t_comp_s + rs_machine_host_s(m, 2, kv + dkv, reused_of * (kv + dkv)), lat, both, 2,
                                     rs_machine_overlap(m, kv + dkv), sigma);
    /* the forward's middle step is t_step when the layout's step is the one of the makespan (t_mid) */
    const double t_mid_fwd = !bwd && o->t_comp_s == tcm ? o->t_step_s : -1;
    const double after_s = bwd && n > 1 ? cm->after_s : 0; /* a later step's merges of the arrived partial */
    o->t_step_s += after_s;
    const closed_in_t kinds = {bwd, n, tc0, tcm, n == 1 ? tc0 : tcm, kv, dkv, w, lat, t_mid_fwd, after_s};
    o->makespan_s = closed_makespan(m, &kinds) + epi;
    o->comm_bound = o->t_comm_s > o->t_comp_s;
    o->b_min_tokens = rs_seed_b_min(m->flops_per_s, w, o->flops_per_pair, o->bytes_per_step / (double)b);
    return 0;
}

double rs_closed_overlap_efficiency(const rs_closed_t *c) { return c->t_step_s > 0 ? c->t_comp_s / c->t_step_s : 1; }

/* The layout step's work minus its fixed costs at block b (gap_at_fn; no ctx). */
static double fixed_gap(const rs_problem_t *p0, const rs_machine_t *m, const void *ctx, int64_t b, bool *valid) {
    (void)ctx;
    rs_problem_t p;
    rs_kmodel_t km;
    rs_kclasses_t kc;
    if (!(*valid = classes_at(p0, m, b, &p, &km, &kc))) return 0;
    double work, fixed;
    rs_kernel_layout_fixed(&km, &kc, &work, &fixed);
    return work - fixed;
}

/* B_fixed of a training ring: the smallest block (in granules) whose layout step's work reaches its
 * fixed costs, the first crossing of the granule scan; the work grows with B, the fixed costs do not
 * (the calls of a step are the same at every B). NaN if still below at the largest b scanned. */
static double b_fixed(const rs_problem_t *p, const rs_machine_t *m, double fixed_s) {
    if (!(fixed_s > 0)) return 0;
    int64_t neg, pos;
    granule_crossing(p, m, fixed_gap, NULL, true, &neg, &pos);
    return pos < 0 ? NAN : (double)pos;
}

int rs_model_b_star(const rs_problem_t *p, const rs_machine_t *m, rs_closed_t *o, rs_err_t *err) {
    if (rs_model_closed(p, m, o, err) != 0) return -1;
    o->b_fixed_tokens = rs_problem_is_inference(p) ? 0 : b_fixed(p, m, o->fixed_s);
    const int64_t n = p->n_ranks, b = o->block_tokens;
    /* B*: the last B at which the layout's middle step is transfer-bound, T_comm(B) > T_comp(B), with
     * latency, launch and the rates; 0 if never transfer-bound, NaN if still at the largest B. */
    if (rs_problem_is_inference(p)) { /* decode: B = 1 is fixed (B* = 0) */
        const variant_t v = variant_of(p, o);
        o->b_star_tokens = p->decode ? 0 : b_star_dense(m, &v);
        return 0;
    }
    const int n_x = p->pass == RS_PASS_BACKWARD && n > 2 ? 2 : 1;
    const double c_bs = o->bytes_per_step / (double)b, w = o->w_bytes_per_s, lat = o->latency_s;
    if (m->impl != RS_IMPL_NONE) {
        const variant_t v = {.c_x = c_bs, .n_x = n_x, .w = w, .lat = lat};
        o->b_star_tokens = b_star_kernel(p, m, &v);
        return 0;
    }
    uint64_t useful[3], exec[3];
    rs_problem_flops_classes(p, 7u, useful, exec);
    const uint64_t lx = n > 1 ? (exec[0] > exec[2] ? exec[0] : exec[2]) : exec[1];
    const double kappa = (double)lx / (o->flops_per_pair * (double)b * (double)b);
    const variant_t v = {kappa * o->flops_per_pair, c_bs, 0, 0, n_x, w, lat};
    o->b_star_tokens = b_star_dense(m, &v);
    return 0;
}
