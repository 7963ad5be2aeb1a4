/* cost.c - the seed's closed form, the calibrated form and the critical-path walk (cost.h).
 * Derivations: docs/model.md. */
#include "cost.h"
#include "polls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

/* ================================================================================================
 * The seed's formulas
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

/* ================================================================================================
 * Step primitives shared by the walk and the closed form
 * ============================================================================================== */

/* End times of n flows that start together at `a` (after the hop latency) on one hop and share it
 * equally. xfer_s[i] = bytes_i / W, sorted ascending. While the receiving rank computes (until ce)
 * the hop delivers at eta times its rate (its progress engine is busy computing). Flow i ends when the cumulative capacity reaches
 * sum_{j<i} x_j + (n - i) x_i (processor sharing with equal starts). Returns the last end. */
static double flows_end(double a, double ce, double eta, const double *x_sorted, int n, double *ends) {
    double done = 0, last = a;
    for (int i = 0; i < n; i++) {
        double target = done + (double)(n - i) * x_sorted[i];
        double t;
        if (a < ce) {
            double slow_capacity = eta * (ce - a);
            if (target <= slow_capacity) t = eta > 0 ? a + target / eta : a;
            else t = ce + (target - slow_capacity);
        } else {
            t = a + target;
        }
        if (ends) ends[i] = t;
        if (t > last) last = t;
        done += x_sorted[i];
    }
    return last;
}

/* Compute end: `work_s` seconds of compute from t0, at 1/sigma speed inside the union of the n
 * in-flight intervals [iv[2i], iv[2i+1]]. */
static double comp_end(double t0, double work_s, double *iv, int n, double sigma) {
    if (work_s <= 0) return t0;
    if (sigma <= 1 || n == 0) return t0 + work_s;
    /* sort intervals by start (n <= 2) */
    if (n == 2 && iv[2] < iv[0]) {
        double s0 = iv[0], e0 = iv[1];
        iv[0] = iv[2], iv[1] = iv[3], iv[2] = s0, iv[3] = e0;
    }
    double t = t0, left = work_s;
    for (int i = 0; i < n; i++) {
        double s = iv[2 * i], e = iv[2 * i + 1];
        if (e <= t) continue;
        if (s > t) {
            if (left <= s - t) return t + left;
            left -= s - t;
            t = s;
        }
        double cap = (e - t) / sigma;
        if (left <= cap) return t + left * sigma;
        left -= cap;
        t = e;
    }
    return t + left;
}

static void sort_small(double *x, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && x[j] < x[j - 1]; j--) {
            double t = x[j];
            x[j] = x[j - 1];
            x[j - 1] = t;
        }
}

double rs_sync_step_s(double t_comp_s, double latency_s, const double *xfer_s, int n, double eta,
                      double sigma) {
    if (n <= 0) return t_comp_s;
    double x[RS_MAX_TRANSFERS];
    for (int i = 0; i < n; i++) x[i] = xfer_s[i];
    sort_small(x, n);
    double fe, ce;
    if (sigma > 1) {
        fe = flows_end(latency_s, 0, 1, x, n, NULL);
        double iv[4] = {0, fe, 0, fe};
        ce = comp_end(0, t_comp_s, iv, 2, sigma);
    } else {
        ce = t_comp_s;
        fe = flows_end(latency_s, ce, eta, x, n, NULL);
    }
    return fmax(ce, fe);
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
    }
    if (!(want & 2u)) kc->cls[1].scaled_s = kc->cls[0].scaled_s, kc->cls[1].launches = kc->cls[0].launches;
    kc->cls[1].after_s = 0; /* step 0 receives no partial */
    kc->epi_fixed_s = 0, kc->epi_fixed_launches = 0;
}

/* The moving block of a step as a function of B (docs/model.md, docs/inference.md): T_comp(B) =
 * c_f B (B + Bc) / F_eff(B) + launch + host, T_comm(B) = L + c_x (B + off) / W with c_x the bytes per
 * token of what circulates and off = Bc when the cache travels too (pass-kv), 0 when only queries do
 * (pass-q). A training ring's dense B*: c_f = kappa c_f (kappa = the layout's step compute over a full
 * block's), Bc = off = 0. */
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

/* Kernel model: gap at an integer block size b (a multiple of the layout's granule): the layout's
 * step compute from the classes of the problem at S = b N, plus the host cost, minus T_comm. Sets
 * *valid = false when S = b N is not a valid problem (64-bit FLOP counts). */
static double gap_kernel(const rs_problem_t *p0, const rs_machine_t *m, double c_bs, int n_x, double w, double lat,
                         int64_t b, bool *valid) {
    const rs_problem_t p = rs_problem_with_block(p0, b);
    *valid = rs_problem_validate(&p, NULL) == 0;
    if (!*valid) return 0;
    rs_kmodel_t km;
    rs_kclasses_t kc;
    rs_kmodel_init(&km, &p, m);
    closed_classes(&p, &km, &kc);
    const double bytes = c_bs * (double)b;
    const double reused = p.n_ranks > 2 ? bytes : 0, g = rs_machine_step_xfer_factor(m, bytes, reused); /* a middle step: reused buffers */
    return rs_kernel_layout_comp_s(&km, &kc) + rs_machine_host_s(m, n_x, bytes, reused) - (lat + bytes * g / w);
}

/* B* of the kernel model: the largest block (in granules g) whose middle step is transfer-bound:
 * scan b = g 2^(j/4) up to 2^24 tokens, then bisect on whole granules. The scan stops two octaves
 * after the transfer-bound range ends (compute grows as b^2 once the curves are clamped, transfers as
 * b). 0 if never transfer-bound; NaN if still transfer-bound at the largest b scanned. */
static double b_star_kernel(const rs_problem_t *p, const rs_machine_t *m, double c_bs, int n_x, double w, double lat) {
    const int64_t g = p->layout == RS_LAYOUT_ZIGZAG && p->n_ranks > 1 ? 2 : 1;
    int64_t last_neg = -1, first_pos_after = -1, prev = 0;
    int pos_run = 0;
    bool valid = true;
    for (int j = 0; j <= 4 * 24; j++) {
        int64_t b = ((int64_t)1 << (j / 4)) * (4 + j % 4) / 4;
        b = (b + g - 1) / g * g;
        if (b <= prev) continue;
        prev = b;
        double gp = gap_kernel(p, m, c_bs, n_x, w, lat, b, &valid);
        if (!valid) break;
        if (gp < 0) {
            last_neg = b, first_pos_after = -1, pos_run = 0;
        } else if (last_neg >= 0) {
            if (first_pos_after < 0) first_pos_after = b;
            if (++pos_run >= 8) break;
        }
    }
    if (last_neg < 0) return 0;
    if (first_pos_after < 0) return NAN; /* transfer-bound up to the largest b scanned */
    int64_t lo = last_neg / g, hi = first_pos_after / g; /* gap(lo g) < 0 <= gap(hi g) */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (gap_kernel(p, m, c_bs, n_x, w, lat, mid * g, &valid) < 0) lo = mid;
        else hi = mid;
    }
    return (double)(lo * g);
}

/* The balanced non-causal makespan from the per-kind step computes: step 0 (tc0), a middle step (tcm),
 * the last computing step (tcl); the backward's later computing steps end after_s (the arrived
 * partial's merges) after their compute and transfers. The pass epilogue is the caller's. */
static double closed_makespan(const rs_machine_t *m, bool bwd, int64_t n, double tc0, double tcm, double tcl, double lat,
                              double kv, double dkv, double w, double t_mid_fwd, double after_s) {
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
    o->b_star_tokens = -1; /* rs_model_b_star */
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
    const double launch = m->cal.launch_s;
    const rs_kstep_t *c0 = &kc.cls[1], *cm = &kc.cls[n > 1 ? 0 : 1];
    double epi_s = 0;
    int epi_l = 0;
    if (km.pre) rs_kernel_classes_epilogue(&km, &kc, 0, &epi_s, &epi_l); /* the dense model has none */
    const double tc0 = (double)c0->launches * launch + c0->scaled_s, tcm = (double)cm->launches * launch + cm->scaled_s;
    const double epi = epi_s > 0 || epi_l > 0 ? (double)epi_l * launch + epi_s : 0; /* after the last step */
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
    o->makespan_s = closed_makespan(m, bwd, n, tc0, tcm, n == 1 ? tc0 : tcm, lat, kv, dkv, w, t_mid_fwd, after_s) + epi;
    o->comm_bound = o->t_comm_s > o->t_comp_s;
    o->b_min_tokens = rs_seed_b_min(m->flops_per_s, w, o->flops_per_pair, o->bytes_per_step / (double)b);
    return 0;
}

int rs_model_b_star(const rs_problem_t *p, const rs_machine_t *m, rs_closed_t *o, rs_err_t *err) {
    if (rs_model_closed(p, m, o, err) != 0) return -1;
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
        o->b_star_tokens = b_star_kernel(p, m, c_bs, n_x, w, lat);
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

/* ================================================================================================
 * Critical-path walk
 * ============================================================================================== */
static int emit(rs_event_sink_t sink, int64_t rank, int64_t step, rs_pass_t pass, rs_event_kind_t kind,
                int64_t peer, double start, double end, double flops, double bytes) {
    rs_event_t ev = {(int32_t)rank, (int32_t)step, pass, kind, (int32_t)peer, start, end, flops, bytes};
    return rs_sink_emit(sink, &ev);
}

/* Per-step work of the walk: the schedule's three step classes and their costs (model/4-cost/kernel.h),
 * or (when the work is no function of the class: decode with uneven sequences per rank, the dense
 * model) the schedule per step. */
typedef struct {
    uint64_t useful[3], exec[3]; /* FLOPs of class 0 (owner < rank), 1 (owner == rank), 2 (owner > rank) */
    double time_s[3];            /* scaled work of the class: calls + merges (exec / F_eff(B) in the dense model) */
    double after_s[3];           /* the class's merges after the incoming dK,dV partial arrives (kernel.h) */
    double before_s[3];          /* the part of time_s before the calls: the compute event starts after it */
    int launches[3];             /* launches of the class */
    int64_t n;                   /* ranks */
    const double *slow;          /* per-rank straggler factor */
    const rs_machine_t *m;       /* launch, jitter */
    const rs_kmodel_t *km;       /* the epilogue (presets that have one) */
    const rs_kclasses_t *kc;
    bool epilogue;               /* the preset has a pass epilogue (after each rank's last step) */
    const rs_schedule_t *s;      /* per_step: rs_schedule_flops of (rank, step) */
    bool per_step;
    double f_eff;                /* F_eff(B) */
} work_classes_t;

/* Compute duration of (rank r, step k < N): the inline form of rs_kernel_rank_step_s without the host
 * cost (tested against it); adds the step's FLOPs to the totals; *after: its merges after the incoming
 * partial arrives, *before: the part of the duration before its calls, each x straggler
 * (rs_kernel_step_s's acc->after_s, acc->before_s). */
static inline double rank_work(const work_classes_t *wc, int64_t r, int64_t k, uint64_t *useful, uint64_t *exec,
                               double *after, double *before) {
    int64_t owner = r - k;
    if (owner < 0) owner += wc->n;
    const int cls = owner < r ? 0 : owner == r ? 1 : 2;
    *after = wc->after_s[cls] > 0 ? wc->after_s[cls] * wc->slow[r] : 0;
    *before = !wc->per_step && wc->before_s[cls] > 0 ? wc->before_s[cls] * wc->slow[r] : 0;
    uint64_t fu = wc->useful[cls], fx = wc->exec[cls];
    double scaled = wc->time_s[cls];
    int launches = wc->launches[cls];
    if (wc->per_step) { /* the dense model step by step: one launch when it computes */
        rs_schedule_flops(wc->s, r, k, &fu, &fx);
        scaled = fx > 0 ? (double)fx / wc->f_eff : 0;
        launches = fx > 0 ? 1 : 0;
    }
    *useful += fu;
    *exec += fx;
    if (!(scaled > 0) && launches == 0) return 0;
    double work = scaled * wc->slow[r];
    if (wc->m->jitter > 0) work *= 1 + wc->m->jitter * (2 * rs_hash_unit(wc->m->seed, (uint64_t)r, (uint64_t)k) - 1);
    return work + (double)launches * wc->m->cal.launch_s;
}

/* Running totals of a walk. */
typedef struct {
    uint64_t useful, exec;   /* FLOPs */
    int64_t bound;           /* (rank, step) whose transfers outlast the compute */
    double comp_max, comm_max;
} walk_acc_t;

/* One step of the one-pass walk: full overlap (eta = 1, sigma = 1) and no events. Hop r's flows
 * end at max(t0[r], t0[r+1]) + L_r + bytes / W_r; a rank waits for its hop and the previous. */
static inline void fused_step(const work_classes_t *wc, int64_t k, int nx, double tb, double host, const double *lat,
                              const double *inv_bw, const double *t0, double *te, double *busy, walk_acc_t *acc) {
    const int64_t n = wc->n;
    const bool computes = k < n;
    double fe_prev = 0, fe_last = 0;
    if (nx > 0) fe_prev = fe_last = (t0[n - 1] > t0[0] ? t0[n - 1] : t0[0]) + lat[n - 1] + tb * inv_bw[n - 1];
    for (int64_t r = 0; r < n; r++) {
        double after = 0, before = 0;
        double work = computes ? rank_work(wc, r, k, &acc->useful, &acc->exec, &after, &before) : 0;
        if (work > 0) work += host;
        double end = t0[r] + work;
        if (work > acc->comp_max) acc->comp_max = work;
        busy[r] += work;
        if (nx > 0) {
            double fe_r = fe_last;
            if (r + 1 < n) fe_r = (t0[r] > t0[r + 1] ? t0[r] : t0[r + 1]) + lat[r] + tb * inv_bw[r];
            const double end_x = fe_r > fe_prev ? fe_r : fe_prev;
            if (end_x - t0[r] > acc->comm_max) acc->comm_max = end_x - t0[r];
            acc->bound += end_x > end;
            if (end_x > end) end = end_x;
            fe_prev = fe_r;
        }
        busy[r] += after;
        te[r] = end + after;
    }
}

/* The end of step k on every rank from its compute durations ce, its merges after the arrival af and
 * its hops' post and flow ends: compute at 1/sigma speed while a transfer of the rank is in flight,
 * the step's end (af after the later of compute and arrival: the step event spans compute and
 * transfers, the merges lie between it and the next step; epi, the last step's only: the pass
 * epilogue, inside its event), the totals, and the events. Returns 0, or -1 when the sink refused an event. */
static int step_ends(const rs_schedule_t *s, const rs_machine_t *m, rs_event_sink_t sink, int64_t k, int nx,
                     uint64_t total_bytes, const double *t0, const double *ce, const double *bf, const double *af,
                     const double *epi, const double *post, const double *fe, double *te, double *busy, walk_acc_t *acc) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const int64_t n = p->n_ranks;
    const double sigma = m->cal.comp_slowdown;
    int rc = 0;
    for (int64_t r = 0; r < n; r++) {
        const int64_t prev = m->loopback ? r : r == 0 ? n - 1 : r - 1; /* whose hop delivers to r */
        double end_c;
        if (nx > 0 && sigma > 1) {
            double iv[4] = {post[r], fe[r], post[prev], fe[prev]};
            end_c = comp_end(t0[r], ce[r], iv, 2, sigma);
        } else {
            end_c = t0[r] + ce[r];
        }
        const double end_x = nx > 0 ? (fe[r] > fe[prev] ? fe[r] : fe[prev]) : t0[r];
        double end_s = end_c > end_x ? end_c : end_x; /* the step event: compute and transfers */
        te[r] = end_s + af[r]; /* the merges of the arrived partial after both, before the next step */
        busy[r] += end_c - t0[r] + af[r];
        if (epi && epi[r] > 0) te[r] += epi[r], end_s = te[r], busy[r] += epi[r]; /* the last step: the pass epilogue */
        if (end_c - t0[r] > acc->comp_max) acc->comp_max = end_c - t0[r];
        if (nx > 0) {
            if (end_x - t0[r] > acc->comm_max) acc->comm_max = end_x - t0[r];
            acc->bound += end_x > end_c;
        }
        if (rs_sink_wants(sink)) {
            uint64_t fu, fx;
            rs_schedule_flops(s, r, k, &fu, &fx);
            if (k < n) rc |= emit(sink, r, k, p->pass, RS_EV_COMPUTE, -1, t0[r] + (ce[r] > 0 ? bf[r] : 0), end_c, (double)fx, 0);
            if (nx > 0) {
                rc |= emit(sink, r, k, p->pass, RS_EV_SEND, r + 1 == n ? 0 : r + 1, t0[r], fe[r], 0, (double)total_bytes);
                rc |= emit(sink, r, k, p->pass, RS_EV_RECV, r == 0 ? n - 1 : r - 1, t0[r], fe[prev], 0, (double)total_bytes);
            }
            rc |= emit(sink, r, k, p->pass, RS_EV_STEP, -1, t0[r], end_s, 0, 0);
        }
    }
    return rc;
}

/* pass-q's all-to-all step (docs/inference.md): no compute; the exchange starts when the last rank
 * has posted (a loopback rank: its own start) and each rank is done rs_machine_a2a_rank_s of the N
 * partials it holds later. Send and receive events span post to that end, peer -1. Returns 0,
 * or -1 when the sink refused an event. */
static int a2a_step(const rs_schedule_t *s, const rs_machine_t *m, rs_event_sink_t sink, int64_t k, uint64_t peer_bytes,
                    const double *t0, double *te, walk_acc_t *acc) {
    const rs_problem_t *p = rs_schedule_problem(s);
    const int64_t n = p->n_ranks;
    const double bytes = (double)peer_bytes * (double)(n - 1);
    double start = 0;
    for (int64_t r = 0; r < n; r++) start = t0[r] > start ? t0[r] : start;
    int rc = 0;
    for (int64_t r = 0; r < n; r++) {
        te[r] = (m->loopback ? t0[r] : start) + rs_machine_a2a_rank_s(m, n, (double)peer_bytes * (double)n, r);
        if (te[r] - t0[r] > acc->comm_max) acc->comm_max = te[r] - t0[r];
        acc->bound++; /* nothing to compute: the transfers set the step */
        if (rs_sink_wants(sink)) {
            rc |= emit(sink, r, k, p->pass, RS_EV_SEND, -1, t0[r], te[r], 0, bytes);
            rc |= emit(sink, r, k, p->pass, RS_EV_RECV, -1, t0[r], te[r], 0, bytes);
            rc |= emit(sink, r, k, p->pass, RS_EV_STEP, -1, t0[r], te[r], 0, 0);
        }
    }
    return rc;
}

void rs_walk_estimate(const rs_problem_t *p, int trace, rs_estimate_t *e) {
    const double n = (double)p->n_ranks, steps = p->pass == RS_PASS_BACKWARD ? n + 1 : n;
    e->rank_steps = n * steps;
    e->time_s = e->rank_steps * (trace == RS_EST_TRACE_FILE ? 30e-6 : trace ? 0.1e-6 : 30e-9);
    e->mem_bytes = 16e6 + n * 13 * sizeof(double) + (trace ? e->rank_steps * 300 : 0);
}

int rs_model_walk(const rs_schedule_t *s, const rs_machine_t *m, rs_event_sink_t sink, double *rank_busy_s,
                  rs_walk_t *out, rs_err_t *err) {
    const rs_problem_t *p = rs_schedule_problem(s);
    if (rs_machine_validate(m, p->n_ranks, err) != 0) return -1;
    memset(out, 0, sizeof *out);
    const int64_t n = p->n_ranks, steps = rs_schedule_n_steps(s);
    rs_kmodel_t km;
    rs_kmodel_init(&km, p, m);
    const double f_ideal = rs_kernel_ideal_rate(&km);

    /* O(N) state: step start/end, compute end, after-arrival merges, hop post time and last flow end, hop constants */
    double *buf = malloc(sizeof(double) * (size_t)n * 13);
    if (!buf) return rs_errf(err, "walk: out of memory for N = %lld ranks", (long long)n);
    double *t0 = buf, *te = buf + n, *ce = buf + 2 * n, *post = buf + 3 * n, *fe = buf + 4 * n;
    double *bw = buf + 5 * n, *lat = buf + 6 * n, *slow = buf + 7 * n, *busy = buf + 8 * n, *inv_bw = buf + 9 * n;
    double *af = buf + 10 * n; /* merges after the arrival (backward) */
    double *epi = buf + 11 * n; /* the pass epilogue after the last step */
    double *bf = buf + 12 * n;  /* merges before the calls (the compute event starts after them) */
    for (int64_t h = 0; h < n; h++) {
        t0[h] = 0;
        busy[h] = 0;
        bw[h] = rs_machine_hop_bw(m, n, h);
        lat[h] = rs_machine_hop_latency(m, n, h);
        inv_bw[h] = 1 / bw[h];
        slow[h] = 1;
    }
    for (int i = 0; i < m->perturb.n_stragglers; i++) slow[m->perturb.straggler_rank[i]] *= m->perturb.straggler_factor[i];

    /* The blocks of (rank, step) depend only on the order of the KV owner and the rank
     * (rs_schedule_flops_classes); their costs are computed once per class (rs_kernel_classes). Decode
     * with uneven sequences per rank has no classes: the dense model per step (schedule's FLOPs). */
    rs_kclasses_t kc;
    rs_kernel_classes(&km, true, &kc);
    work_classes_t wc = {.n = n, .slow = slow, .m = m, .km = &km, .kc = &kc, .s = s, .f_eff = km.f_eff};
    uint64_t su[3], sx[3];
    wc.per_step = rs_schedule_flops_classes(s, su, sx) != 0;
    for (int i = 0; i < 3; i++) {
        wc.useful[i] = kc.useful[i], wc.exec[i] = kc.exec[i];
        wc.time_s[i] = kc.cls[i].scaled_s, wc.launches[i] = kc.cls[i].launches, wc.after_s[i] = kc.cls[i].after_s;
        wc.before_s[i] = kc.cls[i].before_s;
        wc.epilogue |= kc.cls[i].deferred_s > 0 || kc.cls[i].deferred_launches > 0;
    }
    wc.epilogue |= kc.epi_fixed_s > 0 || kc.epi_fixed_launches > 0;
    for (int64_t r = 0; r < n; r++) {
        double es = 0;
        int el = 0;
        if (wc.epilogue) rs_kernel_classes_epilogue(&km, &kc, r, &es, &el);
        epi[r] = es > 0 || el > 0 ? (double)el * m->cal.launch_s + es * slow[r] : 0;
    }
    /* one pass when every step fully overlaps (no eta < 1 anywhere), no slowdown and no events */
    const bool fused = !rs_machine_partial_overlap(m) && m->cal.comp_slowdown <= 1 && !rs_sink_wants(sink) && !m->loopback;

    walk_acc_t acc = {0, 0, 0, 0, 0}; /* a local: its fields stay in registers (the arrays could alias *out) */
    int rc = 0;
    for (int64_t k = 0; k < steps && rc == 0; k++) {
        const uint64_t a2a_bytes = rs_schedule_step_a2a_bytes(s, k);
        if (a2a_bytes > 0) { /* pass-q's return: a collective step */
            rc = a2a_step(s, m, sink, k, a2a_bytes, t0, te, &acc);
            out->rank_steps += n;
            double *tmp = t0;
            t0 = te;
            te = tmp;
            continue;
        }
        uint64_t bytes[RS_MAX_TRANSFERS];
        const int nx = rs_schedule_step_xfers(s, k, bytes);
        uint64_t total_bytes = 0;
        for (int i = 0; i < nx; i++) total_bytes += bytes[i];
        const bool computes = k < n;
        /* the step's overlap factor (by the bytes on a hop) and host cost of receiving them */
        const double eta = rs_machine_overlap(m, (double)total_bytes);
        /* the transfer curves at the step's bytes (those received into the buffer sent at k - 1: reused) */
        const double reused = (double)rs_schedule_step_reused_bytes(s, k);
        const double host = rs_machine_host_s(m, nx, (double)total_bytes, reused);
        const double gx = rs_machine_step_xfer_factor(m, (double)total_bytes, reused);
        /* polled progress: each receiver's eta from its own step's polls (polls.h) */
        const bool polled = nx > 0 && computes && rs_calibration_polled(&m->cal);
        const bool simple_flows = eta >= 1 && !polled; /* equal-start processor sharing: the last flow ends at a + sum(x) */
        if (fused) {
            fused_step(&wc, k, nx, (double)total_bytes * gx, host, lat, inv_bw, t0, te, busy, &acc);
        } else {
            /* compute durations (inline form of rs_machine_comp_time, tested against it) */
            for (int64_t r = 0; r < n; r++) {
                af[r] = bf[r] = 0;
                double work = computes ? rank_work(&wc, r, k, &acc.useful, &acc.exec, &af[r], &bf[r]) : 0;
                if (work > 0) work += host;
                ce[r] = work; /* a duration until step_ends */
                if (nx > 0 && simple_flows) { /* transfers on hop r -> r+1, posted at both step starts */
                    const int64_t q = m->loopback ? r : r + 1 == n ? 0 : r + 1;
                    post[r] = t0[r] > t0[q] ? t0[r] : t0[q];
                    fe[r] = post[r] + lat[r] + (double)total_bytes * gx * inv_bw[r];
                }
            }
            if (nx > 0 && !simple_flows) {
                double xb[RS_MAX_TRANSFERS];
                for (int i = 0; i < nx; i++) xb[i] = (double)bytes[i];
                sort_small(xb, nx);
                for (int64_t r = 0; r < n; r++) {
                    const int64_t q = m->loopback ? r : r + 1 == n ? 0 : r + 1;
                    post[r] = t0[r] > t0[q] ? t0[r] : t0[q];
                    double x[RS_MAX_TRANSFERS];
                    for (int i = 0; i < nx; i++) x[i] = xb[i] * gx / bw[r];
                    double eta_q = eta;
                    if (polled) {
                        rs_step_t st;
                        rs_schedule_step(s, q, k, &st);
                        eta_q = rs_step_eta(m, (double)total_bytes, (double)total_bytes * gx / bw[r], ce[q],
                                            rs_step_poll_frac(m, p, &st, (double)total_bytes, reused));
                    }
                    fe[r] = flows_end(post[r] + lat[r], t0[q] + ce[q], eta_q, x, nx, NULL); /* q receives */
                }
            }
            rc = step_ends(s, m, sink, k, nx, total_bytes, t0, ce, bf, af, k == steps - 1 ? epi : NULL, post, fe, te, busy, &acc);
        }
        out->rank_steps += n;
        double *tmp = t0;
        t0 = te;
        te = tmp;
    }
    if (fused) /* the pass epilogue after the last step (step_ends puts it in the last step's event) */
        for (int64_t r = 0; r < n; r++) t0[r] += epi[r], busy[r] += epi[r];
    out->flops_useful = acc.useful;
    out->flops_exec = acc.exec;
    out->comm_bound_steps = acc.bound;
    out->t_comp_max_s = acc.comp_max;
    out->t_comm_max_s = acc.comm_max;
    if (rc != 0) {
        free(buf);
        return rs_errf(err, "walk: out of memory while recording the trace");
    }
    /* after the last swap t0 holds the final step ends (the last one's with the pass epilogue) */
    double sum_busy = 0;
    for (int64_t r = 0; r < n; r++) {
        if (t0[r] > out->makespan_s) out->makespan_s = t0[r];
        if (busy[r] > out->busy_max_s) out->busy_max_s = busy[r];
        sum_busy += busy[r];
        if (rank_busy_s) rank_busy_s[r] = busy[r];
    }
    out->busy_mean_s = sum_busy / (double)n;
    out->ideal_s = (double)out->flops_useful / ((double)n * f_ideal);
    out->efficiency = out->makespan_s > 0 ? out->ideal_s / out->makespan_s : 1;
    free(buf);
    return 0;
}
