/* machine.c - the machine cost parameters built from a profile (machine.h). */
#include "machine.h"

#include "kernel_estimate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plausible.h"
#include "presets.h"

double rs_hw_efficiency(const rs_hw_t *hw, double block_tokens) { return rs_calibration_efficiency(&hw->cal, block_tokens); }

/* ------------------------------------------------------------------------------------------------
 * The machine
 * ---------------------------------------------------------------------------------------------- */
rs_machine_t rs_machine_figures(const char *name, rs_dtype_t dtype, double flops_per_s, rs_tier_t tier) {
    rs_machine_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.hw_name, sizeof m.hw_name, "%s", name);
    m.dtype = dtype;
    m.flops_per_s = flops_per_s;
    m.cal.overlap = 1;
    m.cal.comp_slowdown = 1;
    if (!(tier.nominal_bw_bytes_per_s > 0)) tier.nominal_bw_bytes_per_s = tier.bw_bytes_per_s;
    m.intra = m.inter = tier;
    for (int r = 0; r < RS_RATE_COUNT; r++) rs_rate_set(&m.src, (rs_rate_t)r, RS_RKIND_USER, "the caller's figures (%s)", name);
    m.peak_src = m.src.rate[RS_RATE_ATTN];
    m.flops_given = true;
    m.launch_given = true; /* the figures' cal.launch_s (0) stands */
    return m;
}

/* The rate point-to-point transfers reach on tier t at bound b: its nominal figure x its p2p
 * efficiency (1 when the tier gives none). */
static void tier_at(rs_tier_t *t, rs_bound_t b) {
    if (!(t->nominal_bw_bytes_per_s > 0)) t->nominal_bw_bytes_per_s = t->bw_bytes_per_s;
    t->bw_bytes_per_s = t->nominal_bw_bytes_per_s * rs_span_at(t->p2p_eff, b, true, 1.0);
}

double rs_machine_nic_share(const rs_machine_t *m, double crossing) {
    const double k = m->nics_per_node > 0 ? m->nics_per_node : (double)m->devices_per_node;
    return crossing > 0 && k > 0 && k < crossing ? k / crossing : 1.0;
}

void rs_machine_set_bound(rs_machine_t *m, rs_bound_t b) {
    m->bound = b;
    tier_at(&m->intra, b);
    tier_at(&m->inter, b);
    if (!m->launch_given) m->cal.launch_s = rs_span_at(m->launch_span_s, b, false, 0.0);
    m->launch_latency_s = rs_span_at(m->launch_latency_span_s, b, false, 0.0);
    /* a ring alone crosses each node boundary once per direction (ranks fill nodes in order): its hop
     * has its NIC to itself; the slow end: every device of the node crossing at once (other rings) */
    m->nic_share = b == RS_BOUND_SLOW ? rs_machine_nic_share(m, (double)m->devices_per_node) : 1.0;
}

int rs_machine_from_hw(const rs_hw_t *hw, rs_dtype_t dtype, rs_machine_t *m, rs_err_t *err) {
    if (dtype < 0 || dtype >= RS_DTYPE_COUNT) return rs_errc(err, RS_ERR_BAD_INPUT, "dtype: unknown data type %d", (int)dtype);
    if (!(hw->flops_per_s[dtype] > 0)) {
        char have[128] = "";
        size_t n = 0;
        for (int k = 0; k < RS_DTYPE_COUNT; k++)
            if (hw->flops_per_s[k] > 0) n += (size_t)snprintf(have + n, sizeof have - n, "%s%s", n ? ", " : "", rs_dtype_name((rs_dtype_t)k));
        return rs_errc(err, RS_ERR_BAD_INPUT, "dtype %s: profile %s has no %s rate (it has: %s)", rs_dtype_name(dtype), hw->name,
                       rs_dtype_name(dtype), have);
    }
    memset(m, 0, sizeof *m);
    snprintf(m->hw_name, sizeof m->hw_name, "%s", hw->name);
    m->dtype = dtype;
    m->flops_per_s = hw->flops_per_s[dtype];
    m->cal = hw->cal;
    m->devices_per_node = hw->devices_per_node;
    m->nics_per_node = (double)hw->nics_per_node;
    m->intra = hw->intra;
    m->inter = hw->has_inter ? hw->inter : hw->intra;
    m->intra.nominal_bw_bytes_per_s = m->intra.bw_bytes_per_s; /* a profile's figure is the nominal one */
    m->inter.nominal_bw_bytes_per_s = m->inter.bw_bytes_per_s;
    m->launch_span_s = hw->launch_s;
    m->launch_latency_span_s = hw->launch_latency_s;
    m->launch_given = hw->cal.launch_s > 0; /* a calibrated launch cost replaces the device's figure */
    if (hw->cal.host_call_given) m->host_call_given = true, m->host_call_s = hw->cal.host_call_s; /* and its host call */
    rs_machine_set_bound(m, RS_BOUND_POINT);
    m->kernels = hw->kernels;
    m->mem_bw_bytes_per_s = hw->mem_bw_bytes_per_s;
    m->src = hw->src, m->peak_src = hw->peak_src, m->eff_src = hw->eff_src;
    if (!(m->kernels.merge_bw_bytes_per_s > 0)) m->kernels.merge_bw_bytes_per_s = hw->mem_bw_bytes_per_s;
    const int impl = hw->kernels.default_impl, kernel = impl > 0 && impl < RS_IMPL_COUNT ? hw->kernels.impl_kernel[impl] : 0;
    const int rc = rs_machine_set_kernel(m, impl, kernel, NULL);
    if (rc == 0 && (m->kernel > 0 || m->cal.n_eff > 0)) return 0;
    if (m->cal.n_eff > 0) /* no curve for this dtype, an efficiency curve: the dense model at F x eff(B) */
        return rs_machine_set_kernel(m, RS_IMPL_NONE, 0, err);
    bool curves = false; /* the profile asks for the dense model though it has curves: as asked, and said */
    for (int i = 0; i < m->kernels.n_curves; i++) curves |= (m->kernels.curve[i].dtypes >> dtype & 1u) != 0;
    if (rc == 0 && curves) return 0;
    /* neither: the estimated kernel of its class, never the bare peak (the table's own merge
     * bandwidth and SMs stay) */
    const double merge = m->kernels.merge_bw_bytes_per_s;
    const int64_t sms = m->kernels.sm_count;
    if (rs_kernel_estimate(dtype, m->flops_per_s, &m->kernels, err) != 0) return -1;
    m->kernels.merge_bw_bytes_per_s = merge, m->kernels.sm_count = sms;
    return rs_machine_set_kernel(m, m->kernels.default_impl, m->kernels.impl_kernel[m->kernels.default_impl], err);
}

/* The attention rate's record from what costs the calls (rs_machine_set_kernel's contract). */
static void attn_source(rs_machine_t *m) {
    if (m->kernel > 0) {
        const rs_kernel_info_t *k = &m->kernels.kernel[m->kernel - 1];
        const char *src = k->source;
        for (int i = 0; !*src && i < m->kernels.n_curves; i++)
            if (m->kernels.curve[i].kernel == m->kernel - 1) src = m->kernels.curve[i].source;
        rs_rate_set(&m->src, RS_RATE_ATTN, k->kind, "kernel %s, %s", k->name, *src ? src : "its curves");
    } else if (m->flops_given) {
        rs_rate_set(&m->src, RS_RATE_ATTN, RS_RKIND_USER, "--flops %.4g TFLOP/s x eff(B), the dense model", m->flops_per_s / 1e12);
    } else if (m->cal.n_eff > 0) {
        rs_rate_set(&m->src, RS_RATE_ATTN, m->eff_src.kind, "F x eff(B), eff(B) from %s", m->eff_src.source);
    } else {
        rs_rate_set(&m->src, RS_RATE_ATTN, m->peak_src.kind,
                    "the bare datasheet peak F, an upper bound and not a kernel rate - %s", m->peak_src.source);
    }
}

int rs_machine_set_kernel(rs_machine_t *m, int impl, int kernel, rs_err_t *err) {
    m->impl = RS_IMPL_NONE, m->kernel = 0;
    memset(&m->kindex, 0, sizeof m->kindex);
    if (impl < 0 || impl >= RS_IMPL_COUNT) return rs_errc(err, RS_ERR_BAD_INPUT, "implementation %d: unknown preset", impl);
    if (kernel < 0 || kernel > m->kernels.n_kernels)
        return rs_errc(err, RS_ERR_BAD_INPUT, "kernel %d: the machine has %d kernels", kernel - 1, m->kernels.n_kernels);
    if (impl == RS_IMPL_NONE && kernel > 0) return rs_errc(err, RS_ERR_BAD_INPUT, "kernel %s: needs an implementation preset", m->kernels.kernel[kernel - 1].name);
    if (kernel > 0 && (rs_kernel_table_prepare(&m->kernels, err) || rs_kernel_index(&m->kernels, kernel - 1, (int)m->dtype, &m->kindex, err))) {
        attn_source(m);
        return -1;
    }
    m->impl = impl, m->kernel = kernel;
    attn_source(m);
    return 0;
}

unsigned rs_machine_rates_skip(const rs_machine_t *m, int64_t n_ranks) {
    unsigned skip = 0;
    const bool crosses = m->hop_inter ? true : m->devices_per_node > 0 && m->devices_per_node < n_ranks;
    if (!crosses) skip |= 1u << RS_RATE_INTER_BW;
    if (m->impl == RS_IMPL_NONE) skip |= 1u << RS_RATE_MERGE_BW;
    return skip;
}

const char *rs_machine_rates_line(const rs_machine_t *m, int64_t n_ranks, char *buf, size_t len) {
    return rs_rate_sources_line(&m->src, rs_machine_rates_skip(m, n_ranks), buf, len);
}

const char *rs_machine_kernel_notes(const rs_machine_t *m, int64_t head_dim, char *buf, size_t len) {
    rs_kresolve_t r;
    if (!len) return buf;
    buf[0] = '\0';
    if (m->kernel > 0 && rs_kernel_resolve(&m->kernels, m->kernel - 1, (int)m->dtype, head_dim, &r, NULL) == 0)
        snprintf(buf, len, "%s", r.notes);
    return buf;
}

static int check_tier(const rs_tier_t *t, const char *what, rs_err_t *err) {
    if (!(isfinite(t->bw_bytes_per_s) && t->bw_bytes_per_s > 0))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s bandwidth (%s): must be finite and > 0 bytes/s, got %g", what, t->name, t->bw_bytes_per_s);
    if (!(isfinite(t->latency_s) && t->latency_s >= 0))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s latency (%s): must be finite and >= 0 s, got %g", what, t->name, t->latency_s);
    return 0;
}

/* The efficiency curve (block > 0 increasing, efficiency in (0, 1]: a fraction of the peak) or the overlap curve (bytes > 0
 * increasing, eta in [0, 1]). Returns 0 or -1 with err. */
static int check_curve(const rs_calibration_t *cal, bool overlap, rs_err_t *err) {
    const char *what = overlap ? "overlap curve" : "efficiency curve", *xname = overlap ? "bytes" : "block";
    const int n = overlap ? cal->n_overlap : cal->n_eff, max = overlap ? RS_MAX_OVERLAP_POINTS : RS_MAX_EFF_POINTS;
    if (n < 0 || n > max) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %d points, must be in [0, %d]", what, n, max);
    for (int k = 0; k < n; k++) {
        const double b = overlap ? cal->overlap_curve[k].bytes : cal->eff[k].block_tokens;
        const double e = overlap ? cal->overlap_curve[k].eta : cal->eff[k].efficiency;
        const double prev = k == 0 ? 0 : overlap ? cal->overlap_curve[k - 1].bytes : cal->eff[k - 1].block_tokens;
        if (!(isfinite(b) && b > 0) || (k > 0 && !(b > prev)))
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s point %d: %s %g must be finite, > 0 and increasing", what, k, xname, b);
        if (overlap ? !(e >= 0 && e <= 1) : !(e > 0 && e <= 1))
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s point %d: %s %g must be in %s", what, k, overlap ? "eta" : "efficiency", e,
                           overlap ? "[0, 1]" : "(0, 1]");
    }
    return 0;
}

int rs_machine_validate(const rs_machine_t *m, int64_t n_ranks, rs_err_t *err) {
    if (n_ranks < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "ranks %lld: must be >= 1", (long long)n_ranks);
    if (!(isfinite(m->flops_per_s) && m->flops_per_s > 0))
        return rs_errc(err, RS_ERR_BAD_INPUT, "flops %g: must be finite and > 0 FLOP/s", m->flops_per_s);
    if ((m->cal.n_eff != 0 && check_curve(&m->cal, false, err)) || (m->cal.n_overlap != 0 && check_curve(&m->cal, true, err)))
        return -1; /* (a machine without curves, the common case, skips the calls: the closed form validates per call) */
    if (!(isfinite(m->cal.launch_s) && m->cal.launch_s >= 0)) return rs_errc(err, RS_ERR_BAD_INPUT, "launch %g: must be finite and >= 0 s", m->cal.launch_s);
    if (!(isfinite(m->launch_latency_s) && m->launch_latency_s >= 0))
        return rs_errc(err, RS_ERR_BAD_INPUT, "launch latency %g: must be finite and >= 0 s", m->launch_latency_s);
    if (m->host_call_given && !(isfinite(m->host_call_s) && m->host_call_s >= 0))
        return rs_errc(err, RS_ERR_BAD_INPUT, "host call %g: must be finite and >= 0 s", m->host_call_s);
    if (!(m->cal.overlap >= 0 && m->cal.overlap <= 1)) return rs_errc(err, RS_ERR_BAD_INPUT, "overlap %g: must be in [0, 1]", m->cal.overlap);
    if (!(isfinite(m->cal.comp_slowdown) && m->cal.comp_slowdown >= 1))
        return rs_errc(err, RS_ERR_BAD_INPUT, "slowdown %g: must be finite and >= 1", m->cal.comp_slowdown);
    if (rs_machine_partial_overlap(m) && m->cal.comp_slowdown > 1)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--overlap %g%s with --slowdown %g: the two overlap models cannot be combined "
                            "(use --overlap < 1 or --slowdown > 1, not both)", m->cal.n_overlap ? rs_machine_overlap(m, 0) : m->cal.overlap,
                       m->cal.n_overlap ? " (the profile's overlap_curve)" : "", m->cal.comp_slowdown);
    if (!(isfinite(m->cal.host_s_per_xfer) && m->cal.host_s_per_xfer >= 0))
        return rs_errc(err, RS_ERR_BAD_INPUT, "host cost per transfer %g: must be finite and >= 0 s", m->cal.host_s_per_xfer);
    if (!(isfinite(m->cal.host_s_per_byte) && m->cal.host_s_per_byte >= 0))
        return rs_errc(err, RS_ERR_BAD_INPUT, "host cost per byte %g: must be finite and >= 0 s/byte", m->cal.host_s_per_byte);
    if (m->devices_per_node < 0) return rs_errc(err, RS_ERR_BAD_INPUT, "gpus-per-node %lld: must be >= 0 (0 = flat ring)", (long long)m->devices_per_node);
    if (m->impl < 0 || m->impl >= RS_IMPL_COUNT) return rs_errc(err, RS_ERR_BAD_INPUT, "implementation %d: unknown preset", m->impl);
    if (m->kernel < 0 || m->kernel > m->kernels.n_kernels || (m->kernel > 0 && m->kindex.n == 0))
        return rs_errc(err, RS_ERR_BAD_INPUT, "kernel %d: not one of the machine's %d kernels indexed by rs_machine_set_kernel", m->kernel - 1,
                       m->kernels.n_kernels);
    if (m->impl != RS_IMPL_NONE && !(isfinite(m->kernels.merge_bw_bytes_per_s) && m->kernels.merge_bw_bytes_per_s > 0))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--impl %s: the merge bandwidth must be finite and > 0 bytes/s, got %g", rs_impl_name((rs_impl_t)m->impl),
                       m->kernels.merge_bw_bytes_per_s);
    if (check_tier(&m->intra, "intra-node", err) || check_tier(&m->inter, "inter-node", err)) return -1;
    if (!(m->jitter >= 0 && m->jitter < 1)) return rs_errc(err, RS_ERR_BAD_INPUT, "jitter %g: must be in [0, 1)", m->jitter);
    if (m->perturb.n_stragglers < 0 || m->perturb.n_stragglers > RS_MAX_PERTURB)
        return rs_errc(err, RS_ERR_BAD_INPUT, "stragglers: %d given, at most %d", m->perturb.n_stragglers, RS_MAX_PERTURB);
    for (int k = 0; k < m->perturb.n_stragglers; k++) {
        if (m->perturb.straggler_rank[k] < 0 || m->perturb.straggler_rank[k] >= n_ranks)
            return rs_errc(err, RS_ERR_BAD_INPUT, "straggler rank %lld: must be in [0, %lld]", (long long)m->perturb.straggler_rank[k], (long long)n_ranks - 1);
        if (!(isfinite(m->perturb.straggler_factor[k]) && m->perturb.straggler_factor[k] >= 1))
            return rs_errc(err, RS_ERR_BAD_INPUT, "straggler factor %g (rank %lld): must be finite and >= 1", m->perturb.straggler_factor[k],
                           (long long)m->perturb.straggler_rank[k]);
    }
    if (m->perturb.n_degraded < 0 || m->perturb.n_degraded > RS_MAX_PERTURB)
        return rs_errc(err, RS_ERR_BAD_INPUT, "degraded hops: %d given, at most %d", m->perturb.n_degraded, RS_MAX_PERTURB);
    for (int k = 0; k < m->perturb.n_degraded; k++) {
        if (m->perturb.degraded_hop[k] < 0 || m->perturb.degraded_hop[k] >= n_ranks)
            return rs_errc(err, RS_ERR_BAD_INPUT, "degraded hop %lld: must be in [0, %lld] (hop p is the link p -> p+1 mod N)",
                           (long long)m->perturb.degraded_hop[k], (long long)n_ranks - 1);
        if (!(isfinite(m->perturb.degraded_factor[k]) && m->perturb.degraded_factor[k] >= 1))
            return rs_errc(err, RS_ERR_BAD_INPUT, "degrade factor %g (hop %lld): must be finite and >= 1", m->perturb.degraded_factor[k],
                           (long long)m->perturb.degraded_hop[k]);
    }
    return 0;
}

static int64_t wrap(int64_t x, int64_t n) {
    int64_t r = x % n;
    return r < 0 ? r + n : r;
}

bool rs_machine_hop_inter(const rs_machine_t *m, int64_t n_ranks, int64_t hop) {
    if (m->hop_inter && n_ranks > 1) return m->hop_inter[wrap(hop, n_ranks)];
    int64_t g = m->devices_per_node;
    if (n_ranks < 1 || g <= 0 || g >= n_ranks) return false;
    int64_t p = wrap(hop, n_ranks), q = (p + 1) % n_ranks;
    return p / g != q / g;
}

/* The rate a node-crossing hop gets: the NIC's rate x the hop's share of it. */
static double inter_bw(const rs_machine_t *m) { return m->inter.bw_bytes_per_s * (m->nic_share > 0 ? m->nic_share : 1.0); }

double rs_machine_hop_bw(const rs_machine_t *m, int64_t n_ranks, int64_t hop) {
    double bw = rs_machine_hop_inter(m, n_ranks, hop) ? inter_bw(m) : m->intra.bw_bytes_per_s;
    if (n_ranks < 1) return bw;
    int64_t p = wrap(hop, n_ranks);
    for (int k = 0; k < m->perturb.n_degraded && k < RS_MAX_PERTURB; k++)
        if (m->perturb.degraded_hop[k] == p) bw /= m->perturb.degraded_factor[k];
    return bw;
}

void rs_machine_slowest_hop(const rs_machine_t *m, int64_t n, double *bw, double *lat) {
    if (m->hop_inter || m->perturb.n_degraded > 0) { /* hop by hop */
        *bw = INFINITY, *lat = 0;
        for (int64_t h = 0; h < n; h++) {
            const double w = rs_machine_hop_bw(m, n, h);
            if (w < *bw) *bw = w, *lat = rs_machine_hop_latency(m, n, h);
        }
        return;
    }
    /* nodes of G in order: some hop crosses iff 0 < G < N; hop 0 stays inside its node iff it does not
     * cross or G >= 2 (so the intra tier wins a tie: it comes first) */
    const int64_t g = m->devices_per_node;
    const bool crosses = n > 1 && g > 0 && g < n, has_intra = !crosses || g >= 2;
    const double wx = inter_bw(m);
    const bool inter = crosses && (!has_intra || wx < m->intra.bw_bytes_per_s);
    *bw = inter ? wx : m->intra.bw_bytes_per_s, *lat = inter ? m->inter.latency_s : m->intra.latency_s;
}

double rs_machine_hop_latency(const rs_machine_t *m, int64_t n_ranks, int64_t hop) {
    return rs_machine_hop_inter(m, n_ranks, hop) ? m->inter.latency_s : m->intra.latency_s;
}

double rs_machine_flops_eff(const rs_machine_t *m, double block_tokens) {
    return m->flops_per_s * rs_calibration_efficiency(&m->cal, block_tokens);
}

double rs_machine_jitter(const rs_machine_t *m, int64_t rank, int64_t step) {
    return m->jitter != 0 ? 1.0 + m->jitter * (2.0 * rs_hash_unit(m->seed, (uint64_t)rank, (uint64_t)step) - 1.0) : 1.0;
}

double rs_machine_comp_time(const rs_machine_t *m, int64_t block_tokens, int64_t rank, int64_t step,
                            uint64_t flops_exec) {
    if (flops_exec == 0) return 0.0;
    double slow = 1.0;
    for (int k = 0; k < m->perturb.n_stragglers && k < RS_MAX_PERTURB; k++)
        if (m->perturb.straggler_rank[k] == rank) slow *= m->perturb.straggler_factor[k];
    return m->cal.launch_s + (double)flops_exec / rs_machine_flops_eff(m, (double)block_tokens) * slow * rs_machine_jitter(m, rank, step);
}

double rs_machine_overlap(const rs_machine_t *m, double bytes) { return rs_calibration_overlap(&m->cal, bytes); }

bool rs_machine_partial_overlap(const rs_machine_t *m) { return rs_calibration_partial_overlap(&m->cal); }


double rs_machine_step_xfer_factor(const rs_machine_t *m, double bytes, double reused_bytes) {
    return rs_calibration_step_xfer_factor(&m->cal, bytes, reused_bytes);
}

double rs_machine_host_s(const rs_machine_t *m, int n_xfers, double bytes, double reused_bytes) {
    return rs_calibration_host_s(&m->cal, n_xfers, bytes, reused_bytes);
}

double rs_machine_a2a_rank_s(const rs_machine_t *m, int64_t group, double bytes_per_device, int64_t rank) {
    if (group <= 1 || bytes_per_device <= 0) return 0;
    const int64_t g = m->devices_per_node;
    const double peer = bytes_per_device / (double)group; /* to each other member */
    if (g <= 0 || g >= group) return m->intra.latency_s + (double)(group - 1) * peer / m->intra.bw_bytes_per_s;
    const int64_t node = rank / g, size = g < group - node * g ? g : group - node * g;
    const int64_t smallest = group % g ? group % g : g; /* the last node's: its NIC carries the most flows */
    const double intra = size > 1 ? m->intra.latency_s + (double)(size - 1) * peer / m->intra.bw_bytes_per_s : 0;
    /* every member of the node crosses at once: its NIC shared by the members that use it */
    const double w = m->inter.bw_bytes_per_s * rs_machine_nic_share(m, (double)size);
    return fmax(intra, m->inter.latency_s + (double)(group - smallest) * peer / w);
}

double rs_machine_a2a_s(const rs_machine_t *m, int64_t group, double bytes_per_device, bool *crosses_nodes) {
    if (crosses_nodes) *crosses_nodes = group > 1 && bytes_per_device > 0 && m->devices_per_node > 0 && m->devices_per_node < group;
    return rs_machine_a2a_rank_s(m, group, bytes_per_device, 0); /* rank 0 sits in a full node: the slowest */
}

const char *rs_machine_overlap_desc(const rs_machine_t *m, char *dst, size_t len) {
    size_t n = 0;
    if (!len) return dst;
    dst[0] = 0;
#define PUT(...)                                                                        \
    do {                                                                                \
        if (n < len) n += (size_t)snprintf(dst + n, len - n, __VA_ARGS__);              \
    } while (0)
    if (m->cal.n_overlap > 0) {
        PUT("overlap curve (bytes:eta)");
        for (int k = 0; k < m->cal.n_overlap; k++) PUT(" %.0f:%.3f", m->cal.overlap_curve[k].bytes, m->cal.overlap_curve[k].eta);
    } else {
        PUT("overlap %.3f", m->cal.overlap);
    }
    if (m->cal.comp_slowdown > 1) PUT(", slowdown %.3f", m->cal.comp_slowdown);
    if (m->cal.host_s_per_xfer > 0 || m->cal.host_s_per_byte > 0)
        PUT(", host cost %.3g s + %.3g s/byte per received transfer", m->cal.host_s_per_xfer, m->cal.host_s_per_byte);
#undef PUT
    return dst;
}

/* ------------------------------------------------------------------------------------------------
 * A machine as asked for
 * ---------------------------------------------------------------------------------------------- */
int rs_machine_spec_impl(rs_machine_spec_t *s, const char *impl, const char *kernel, rs_err_t *err) {
    if (impl) {
        rs_impl_t i;
        if (rs_impl_parse(impl, &i) != 0) return rs_errc(err, RS_ERR_BAD_INPUT, "--impl %s: expected ringsim, flash-attn, te or none", impl);
        s->impl = (int)i;
    }
    if (kernel && (size_t)snprintf(s->kernel, sizeof s->kernel, "%s", kernel) >= sizeof s->kernel)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--kernel %.40s...: a kernel name has at most %zu characters", kernel, sizeof s->kernel - 1);
    return 0;
}

void rs_machine_spec_default(rs_machine_spec_t *s) {
    memset(s, 0, sizeof *s);
    snprintf(s->profile, sizeof s->profile, "h100-sxm");
    s->dtype = RS_DTYPE_BF16;
    s->gpus_per_node = -1;
    s->latency = s->launch = s->overlap = s->slowdown = s->host_call = -1;
    s->host_xfer = s->host_byte = -1;
    s->seed = 1;
    s->impl = -1;
}

/* The options' figures against the device the profile (as loaded, with --inter) names. */
static int spec_plausible(const rs_machine_spec_t *s, const rs_hw_t *hw, const rs_plausible_t *pl, rs_err_t *err) {
    const bool is_file = !preset_find(rs_hw_preset_names(), s->profile) || strchr(s->profile, '/') ||
                         (strlen(s->profile) > 5 && !strcmp(s->profile + strlen(s->profile) - 5, ".json"));
    rs_hw_t file_dev; /* a file's device: the datasheet its name matches (a preset is its own datasheet) */
    const rs_hw_t *dev = !is_file ? hw : rs_hw_device(hw, &file_dev) ? &file_dev : NULL;
    if (is_file && rs_hw_plausible(hw, s->profile, dev, pl, err) != 0) return -1;
    char what[96], why[256];
    const double peak = dev ? dev->flops_per_s[s->dtype] : 0;
    if (s->flops > 0 && peak > 0) {
        snprintf(what, sizeof what, "--flops %g", s->flops);
        snprintf(why, sizeof why, "above %s's datasheet %s peak x %.2f (%.4g FLOP/s)", dev->name, rs_dtype_name(s->dtype),
                 RS_PLAUSIBLE_PEAK_FACTOR, RS_PLAUSIBLE_PEAK_FACTOR * peak);
        if (rs_plausible(pl, s->flops <= RS_PLAUSIBLE_PEAK_FACTOR * peak, what, why, err) != 0) return -1;
    }
    const double w[2] = {s->bw, s->inter_bw};
    const rs_tier_t *t[2] = {&hw->intra, hw->has_inter ? &hw->inter : NULL};
    const char *opt[2] = {"--bw", "--inter-bw"};
    for (int i = 0; i < 2; i++) {
        if (!(w[i] > 0) || !t[i]) continue;
        double nominal = rs_tier_nominal_bw(t[i]->name);
        if (nominal <= 0 && !is_file && !(i == 1 && s->inter[0])) nominal = t[i]->bw_bytes_per_s; /* a preset's inline tier */
        if (nominal <= 0) continue;
        snprintf(what, sizeof what, "%s %g", opt[i], w[i]);
        snprintf(why, sizeof why, "above the nominal rate of %s, %.4g bytes/s per direction", t[i]->name, nominal);
        if (rs_plausible(pl, w[i] <= nominal * (1 + 1e-9), what, why, err) != 0) return -1;
    }
    return 0;
}

int rs_machine_spec_profile(const rs_machine_spec_t *s, rs_hw_t *hw, rs_err_t *err) {
    return rs_machine_spec_profile_checked(s, hw, NULL, 0, err);
}

int rs_machine_spec_profile_checked(const rs_machine_spec_t *s, rs_hw_t *hw, char *warn, size_t len, rs_err_t *err) {
    if (warn && len) warn[0] = 0;
    if (rs_hw_load(s->profile, hw, err) != 0) return rs_err_option(err, "--profile", s->profile);
    if (s->inter[0]) {
        if (rs_tier_load_src(s->inter, &hw->inter, hw->tier_src[1], err) != 0) return rs_err_option(err, "--inter", s->inter);
        hw->has_inter = true;
        hw->src.rate[RS_RATE_INTER_BW] = hw->tier_src[1][0];
    }
    const rs_plausible_t pl = {s->allow_implausible, warn, len};
    if (spec_plausible(s, hw, &pl, err) != 0) return -1;
    if (s->flops > 0) hw->flops_per_s[s->dtype] = s->flops;
    /* --bw and --inter-bw give the rate the ring's transfers reach (no efficiency applied) */
    if (s->bw > 0) {
        hw->intra.bw_bytes_per_s = s->bw, hw->intra.p2p_eff = (rs_span_t){0, 0, 0};
        rs_rate_set(&hw->src, RS_RATE_INTRA_BW, RS_RKIND_USER, "--bw %.4g GB/s", s->bw / 1e9);
    }
    if (s->inter_bw > 0) {
        rs_rate_set(&hw->src, RS_RATE_INTER_BW, RS_RKIND_USER, "--inter-bw %.4g GB/s", s->inter_bw / 1e9);
        hw->inter.bw_bytes_per_s = s->inter_bw;
        hw->inter.p2p_eff = (rs_span_t){0, 0, 0};
        if (!hw->has_inter) {
            hw->has_inter = true;
            snprintf(hw->inter.name, sizeof hw->inter.name, "custom");
            hw->inter.latency_s = hw->intra.latency_s;
            hw->tier_src[1][1] = hw->tier_src[0][1];
        }
    }
    if (s->latency >= 0) {
        hw->intra.latency_s = hw->inter.latency_s = s->latency;
        rs_rate_set(&hw->src, RS_RATE_LATENCY, RS_RKIND_USER, "--latency %.4g us", s->latency * 1e6);
        hw->tier_src[0][1] = hw->tier_src[1][1] = hw->src.rate[RS_RATE_LATENCY];
    }
    if (s->launch >= 0) hw->cal.launch_s = s->launch, rs_rate_set(&hw->src, RS_RATE_LAUNCH, RS_RKIND_USER, "--launch-overhead %.4g us", s->launch * 1e6);
    if (s->overlap >= 0) hw->cal.overlap = s->overlap, hw->cal.n_overlap = 0, hw->cal.poll.n = 0; /* replaces a curve and the poll model */
    if (s->host_xfer >= 0) hw->cal.host_s_per_xfer = s->host_xfer, hw->cal.host_s_per_byte = s->host_byte;
    if (s->slowdown >= 0) hw->cal.comp_slowdown = s->slowdown;
    if (s->gpus_per_node >= 0) hw->devices_per_node = s->gpus_per_node;
    return 0;
}

/* The kernel list of a profile, for messages. */
static void kernel_names(const rs_kernel_table_t *t, char *buf, size_t len) {
    size_t n = 0;
    buf[0] = 0;
    for (int k = 0; k < t->n_kernels && n < len; k++) n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? ", " : "", t->kernel[k].name);
    if (!t->n_kernels) snprintf(buf, len, "none");
}

/* --impl, --kernel and --flops on the machine of the profile's default preset (rs_machine_from_hw). */
static int spec_kernel(const rs_machine_spec_t *s, const rs_hw_t *hw, rs_machine_t *m, rs_err_t *err) {
    const rs_kernel_table_t *t = &m->kernels;
    char names[512];
    kernel_names(t, names, sizeof names);
    int impl = m->impl, kernel = m->kernel;
    if (s->impl >= 0) {
        impl = s->impl;
        kernel = impl == RS_IMPL_NONE || s->flops > 0 ? 0 : t->impl_kernel[impl];
        if (impl != RS_IMPL_NONE && !kernel && !s->kernel[0] && s->flops <= 0)
            return rs_errc(err, RS_ERR_BAD_INPUT, "--impl %s: profile %s names no kernel for it (its kernels: %s); give --kernel NAME, or "
                                "--impl none for the dense model at the bare peak", rs_impl_name((rs_impl_t)impl), hw->name, names);
    } else if (s->flops > 0) { /* --flops alone: the dense peak model, no preset */
        impl = RS_IMPL_NONE, kernel = 0;
    }
    if (s->kernel[0]) {
        const int k = rs_kernel_find(t, s->kernel);
        if (k < 0) return rs_errc(err, RS_ERR_BAD_INPUT, "--kernel %s: profile %s has no such kernel (its kernels: %s)", s->kernel, hw->name, names);
        if (impl == RS_IMPL_NONE)
            return rs_errc(err, RS_ERR_BAD_INPUT, "--kernel %s: needs an implementation preset (--impl ringsim, flash-attn or te)", s->kernel);
        kernel = k + 1;
    }
    rs_err_t e = {0};
    if (rs_machine_set_kernel(m, impl, kernel, &e) == 0) return 0;
    if (s->impl >= 0 || s->kernel[0]) {
        char why[sizeof e.msg];
        snprintf(why, sizeof why, "%s", e.msg);
        return rs_errc(err, RS_ERR_BAD_INPUT, "--impl %s: %s", rs_impl_name((rs_impl_t)impl), why);
    }
    return rs_machine_set_kernel(m, RS_IMPL_NONE, 0, err); /* no curve for the dtype: the dense peak model */
}

int rs_machine_spec_build(const rs_machine_spec_t *s, const rs_hw_t *hw, int64_t n_ranks, rs_machine_t *m, rs_err_t *err) {
    if (rs_machine_from_hw(hw, s->dtype, m, err) != 0) return -1;
    m->flops_given = s->flops > 0;
    if (spec_kernel(s, hw, m, err) != 0) return -1;
    if (m->devices_per_node > 0 && m->devices_per_node < n_ranks && hw->has_inter) /* the inter-node hop paces the ring */
        m->src.rate[RS_RATE_LATENCY] = hw->tier_src[1][1];
    if (s->launch >= 0) m->launch_given = true, m->cal.launch_s = s->launch; /* --launch-overhead, also 0 */
    if (s->host_call >= 0) m->host_call_given = true, m->host_call_s = s->host_call;
    rs_machine_set_bound(m, s->bound);
    m->jitter = s->jitter;
    m->seed = s->seed;
    m->perturb = s->perturb;
    if (m->devices_per_node > 0 && m->devices_per_node < n_ranks && !hw->has_inter)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--ranks %lld exceeds --gpus-per-node %lld but profile %s has no inter-node tier "
                            "(give --inter TIER, e.g. ib-ndr, or --inter-bw)",
                       (long long)n_ranks, (long long)m->devices_per_node, hw->name);
    return rs_machine_validate(m, n_ranks, err);
}
