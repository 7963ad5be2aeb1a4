/* import_groups.c - the ring's process group (import_groups.h; docs/import.md section 2a): the group
 * chosen, the ranks in its order, other groups' point-to-point traffic set apart, the direction of
 * the ring checked against the peers; and what a rank's kernels and communication were. */
#include "import_groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_kclass.h"

const char *rs_import_group_label(const rs_raw_group_t *g, char *buf, size_t len) {
    size_t o = (size_t)snprintf(buf, len, "'%s'%s%s%s", g->name, *g->desc ? " (" : "", g->desc, *g->desc ? ")" : "");
    if (g->n == 0 || o >= len) return buf;
    bool contiguous = g->n > 2;
    for (int i = 1; i < g->n && contiguous; i++) contiguous = g->ranks[i] == g->ranks[i - 1] + 1;
    if (contiguous) {
        snprintf(buf + o, len - o, " [%d..%d]", (int)g->ranks[0], (int)g->ranks[g->n - 1]);
        return buf;
    }
    o += (size_t)snprintf(buf + o, len - o, " [");
    for (int i = 0; i < g->n && o < len; i++) {
        if (i == 6 && g->n > 8) {
            o += (size_t)snprintf(buf + o, len - o, ", ..., %d] (%d ranks)", (int)g->ranks[g->n - 1], g->n);
            return buf;
        }
        o += (size_t)snprintf(buf + o, len - o, "%s%d", i ? ", " : "", (int)g->ranks[i]);
    }
    if (o < len) snprintf(buf + o, len - o, "]");
    return buf;
}

/* The raw comm of kernel k, NULL without arguments. */
static const rs_raw_comm_t *comm_of(const rs_raw_t *raw, const rs_raw_kernel_t *k) { return k->comm != RS_RAW_NONE ? &raw->comms[k->comm] : NULL; }

const char *rs_import_comm_seen(const rs_raw_t *raw, const rs_raw_rank_t *r, char *buf, size_t len) {
    enum { MAXG = 16 };
    long grp[MAXG]; /* raw group or -1 (no arguments) */
    size_t cnt[MAXG][RS_COLL_COUNT], untagged_p2p = 0, untagged_coll = 0;
    int ng = 0;
    memset(cnt, 0, sizeof cnt);
    for (size_t i = 0; i < r->nk; i++) {
        const rs_raw_kernel_t *k = &r->k[i];
        if (!rs_krole_is_comm(k->role)) continue;
        const rs_raw_comm_t *c = comm_of(raw, k);
        if (!c || c->group == RS_RAW_NONE) {
            if (rs_krole_is_p2p(k->role)) untagged_p2p++;
            else untagged_coll++;
            continue;
        }
        int g = 0;
        while (g < ng && grp[g] != (long)c->group) g++;
        if (g == ng) {
            if (ng == MAXG) continue;
            grp[ng++] = (long)c->group;
        }
        cnt[g][c->coll]++;
    }
    size_t o = 0;
    buf[0] = '\0';
    for (int g = 0; g < ng && o < len; g++) {
        char lab[160];
        o += (size_t)snprintf(buf + o, len - o, "%s", o ? "; " : "");
        for (int c = 0; c < RS_COLL_COUNT && o < len; c++)
            if (cnt[g][c] && c != RS_COLL_P2P) o += (size_t)snprintf(buf + o, len - o, "%zu %s, ", cnt[g][c], rs_coll_name((rs_coll_t)c));
        if (o < len)
            o += (size_t)snprintf(buf + o, len - o, "%zu p2p kernels in group %s", cnt[g][RS_COLL_P2P],
                                  rs_import_group_label(&raw->groups[grp[g]], lab, sizeof lab));
    }
    if (o < len && (untagged_p2p || untagged_coll))
        o += (size_t)snprintf(buf + o, len - o, "%s%zu SendRecv and %zu collective kernels without arguments", o ? "; " : "", untagged_p2p, untagged_coll);
    if (!o) snprintf(buf, len, "no communication kernel");
    return buf;
}

const char *rs_import_kernels_seen(const rs_raw_t *raw, const rs_raw_rank_t *r, char *buf, size_t len) {
    if (r->nk == 0) {
        snprintf(buf, len, "no GPU kernel (%zu CPU operators: a CPU-only trace? profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])",
                 r->n_cpu_ops);
        return buf;
    }
    uint32_t *cnt = calloc(raw->n_names ? raw->n_names : 1, sizeof *cnt);
    size_t o = (size_t)snprintf(buf, len, "%zu kernel(s)", r->nk);
    if (!cnt) return buf;
    for (size_t i = 0; i < r->nk; i++) cnt[r->k[i].name]++;
    for (int t = 0; t < 3 && o < len; t++) {
        uint32_t best = RS_RAW_NONE;
        for (uint32_t i = 0; i < raw->n_names; i++)
            if (cnt[i] && (best == RS_RAW_NONE || cnt[i] > cnt[best])) best = i;
        if (best == RS_RAW_NONE) break;
        o += (size_t)snprintf(buf + o, len - o, "%s%u x '%.48s'", t ? ", " : ", the most frequent ", cnt[best], raw->names[best]);
        cnt[best] = 0;
    }
    free(cnt);
    return buf;
}

/* Keep the raw ranks sel[0..n) (indices into raw->ranks, in that order), free the others. */
static void keep_ranks(rs_raw_t *raw, const long *sel, size_t n) {
    rs_raw_rank_t *v = malloc((n ? n : 1) * sizeof *v);
    bool *kept = calloc(raw->n_ranks ? raw->n_ranks : 1, sizeof *kept);
    if (!v || !kept) { /* keep the order as it is: the refusals after this need no more memory */
        free(v), free(kept);
        return;
    }
    for (size_t i = 0; i < n; i++) v[i] = raw->ranks[sel[i]], kept[sel[i]] = true;
    for (size_t i = 0; i < raw->n_ranks; i++)
        if (!kept[i]) rs_raw_rank_free(&raw->ranks[i]);
    memcpy(raw->ranks, v, n * sizeof *v);
    raw->n_ranks = n;
    free(v), free(kept);
}

/* Order by global rank when every raw rank has a distinct one (else as read). */
static int order_by_rank(rs_raw_t *raw, rs_err_t *err) {
    size_t n = raw->n_ranks;
    bool all = n > 0;
    for (size_t i = 0; i < n; i++) all = all && raw->ranks[i].rank_key >= 0;
    if (!all) return 0;
    for (size_t i = 1; i < n; i++) { /* insertion sort: n is small, order is stable */
        rs_raw_rank_t x = raw->ranks[i];
        size_t j = i;
        while (j > 0 && raw->ranks[j - 1].rank_key > x.rank_key) {
            raw->ranks[j] = raw->ranks[j - 1];
            j--;
        }
        raw->ranks[j] = x;
    }
    for (size_t i = 1; i < n; i++)
        if (raw->ranks[i].rank_key == raw->ranks[i - 1].rank_key)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %lld again (also in %s): give the files of one run, one per rank", raw->ranks[i].file,
                           (long long)raw->ranks[i].rank_key, raw->ranks[i - 1].file);
    return 0;
}

/* The group --group names: by name, else by its rank list (a group of the trace with those ranks, or
 * a new one). -1 with err when it is neither. */
static long group_of_option(rs_raw_t *raw, const char *opt, rs_err_t *err) {
    for (size_t i = 0; i < raw->n_groups; i++)
        if (!strcmp(raw->groups[i].name, opt) && raw->groups[i].n > 0) return (long)i;
    for (size_t i = 0; i < raw->n_groups; i++)
        if (!strcmp(raw->groups[i].name, opt)) return (long)i;
    int32_t ranks[1024];
    int n = rs_raw_parse_ranks(opt, ranks, 1024);
    if (n >= 2) {
        for (size_t i = 0; i < raw->n_groups; i++)
            if (raw->groups[i].n == n && !memcmp(raw->groups[i].ranks, ranks, (size_t)n * sizeof *ranks)) return (long)i;
        uint32_t g = rs_raw_group(raw, opt, "--group", ranks, n);
        if (g == RS_RAW_NONE) return rs_errf(err, "out of memory");
        return (long)g;
    }
    char seen[600] = "";
    size_t o = 0;
    for (size_t i = 0; i < raw->n_groups && o < sizeof seen - 160; i++) {
        char lab[160];
        o += (size_t)snprintf(seen + o, sizeof seen - o, "%s%s", o ? ", " : "", rs_import_group_label(&raw->groups[i], lab, sizeof lab));
    }
    return rs_errc(err, RS_ERR_BAD_INPUT, "--group %s: neither a process group of the trace (%s) nor a list of at least 2 ranks (0,2,4,6 or 0-7)", opt,
                   o ? seen : "it names none");
}

/* The default group: the one with the most point-to-point kernels (ties: the one holding the lowest
 * global rank); -1 when no p2p kernel names a group. */
static long default_group(rs_raw_t *raw, int *n_with) {
    size_t *cnt = calloc(raw->n_groups ? raw->n_groups : 1, sizeof *cnt);
    long best = -1;
    *n_with = 0;
    if (!cnt) return -1;
    for (size_t r = 0; r < raw->n_ranks; r++)
        for (size_t i = 0; i < raw->ranks[r].nk; i++) {
            const rs_raw_kernel_t *k = &raw->ranks[r].k[i];
            const rs_raw_comm_t *c = rs_krole_is_p2p(k->role) ? comm_of(raw, k) : NULL;
            if (c && c->group != RS_RAW_NONE && c->coll == RS_COLL_P2P) cnt[c->group]++;
        }
    for (size_t g = 0; g < raw->n_groups; g++) {
        if (!cnt[g] || raw->groups[g].n == 1) continue; /* a group of one rank (a self send) is no ring */
        (*n_with)++;
        const rs_raw_group_t *a = &raw->groups[g];
        if (best < 0 || cnt[g] > cnt[best] ||
            (cnt[g] == cnt[best] && a->n > 0 && (raw->groups[best].n == 0 || a->ranks[0] < raw->groups[best].ranks[0])))
            best = (long)g;
    }
    free(cnt);
    return best;
}

/* Check the peers of the ring's p2p kernels against the order (raw->ranks in group order, members
 * g->ranks): every send goes to the next member and every receive comes from the previous one, or
 * every one the other way (then the order is reversed). 0 or -1 with err. */
static int check_direction(rs_raw_t *raw, long group, const rs_raw_group_t *g, rs_err_t *err) {
    const int n = g->n;
    size_t fwd = 0, back = 0;
    for (int p = 0; p < n; p++) {
        const rs_raw_rank_t *r = &raw->ranks[p];
        const int32_t next = g->ranks[(p + 1) % n], prev = g->ranks[(p + n - 1) % n];
        for (size_t i = 0; i < r->nk; i++) {
            const rs_raw_comm_t *c = rs_krole_is_p2p(r->k[i].role) ? comm_of(raw, &r->k[i]) : NULL;
            if (!c || c->group != (uint32_t)group) continue;
            const int32_t peers[2] = {c->n_send ? c->send_peer : -1, c->n_recv ? c->recv_peer : -1};
            for (int d = 0; d < 2; d++) {
                if (peers[d] < 0) continue;
                if (peers[d] == (d ? prev : next)) fwd++;
                else if (peers[d] == (d ? next : prev)) back++;
                else {
                    char lab[200];
                    return rs_errc(err, RS_ERR_BAD_INPUT, "%s: global rank %d %s global rank %d, not a neighbour in the order of group %s "
                                   "(a ring %s %d): not ring traffic (pipeline sends? name the ring's group with --group)",
                                   r->file, (int)g->ranks[p], d ? "receives from" : "sends to", (int)peers[d],
                                   rs_import_group_label(g, lab, sizeof lab), d ? "receives from" : "sends to", (int)(d ? prev : next));
                }
            }
        }
    }
    if (n <= 2 || back == 0) return 0;
    if (fwd > 0) {
        char lab[200];
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %zu sends go to the next member of group %s and %zu to the previous one: not one ring",
                       raw->ranks[0].file, fwd, rs_import_group_label(g, lab, sizeof lab), back);
    }
    for (int p = 1; p < n - p; p++) { /* every send to the previous member: the ring runs the other way */
        rs_raw_rank_t t = raw->ranks[p];
        raw->ranks[p] = raw->ranks[n - p];
        raw->ranks[n - p] = t;
    }
    return rs_raw_note(raw, "the ring runs against the order of its group (every send goes to the previous member): rank 1 is global rank %lld",
                       (long long)raw->ranks[1].rank_key) == 0 ? 0 : rs_errf(err, "out of memory");
}

/* Put the raw ranks of group g's members in its order; the others left out. 0 or -1 with err. */
static int order_by_group(rs_raw_t *raw, long group, rs_err_t *err) {
    const rs_raw_group_t *g = &raw->groups[group];
    long *sel = malloc((size_t)g->n * sizeof *sel);
    if (!sel) return rs_errf(err, "out of memory");
    char missing[256] = "", lab[200];
    size_t mo = 0;
    int n_missing = 0;
    for (int p = 0; p < g->n; p++) {
        sel[p] = -1;
        for (size_t i = 0; i < raw->n_ranks; i++)
            if (raw->ranks[i].rank_key == g->ranks[p]) {
                if (sel[p] >= 0) {
                    int rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d again (also in %s): give the files of one run, one per rank", raw->ranks[i].file,
                                     (int)g->ranks[p], raw->ranks[sel[p]].file);
                    free(sel);
                    return rc;
                }
                sel[p] = (long)i;
            }
        if (sel[p] < 0 && ++n_missing <= 8 && mo < sizeof missing - 16) mo += (size_t)snprintf(missing + mo, sizeof missing - mo, "%s%d", mo ? ", " : "", (int)g->ranks[p]);
    }
    if (n_missing) {
        int rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: no trace of rank%s %s%s of the ring's group %s (%zu trace(s) given): give every rank's trace of the group",
                         raw->n_ranks ? raw->ranks[0].file : "the traces", n_missing > 1 ? "s" : "", missing, n_missing > 8 ? ", ..." : "",
                         rs_import_group_label(g, lab, sizeof lab), raw->n_ranks);
        free(sel);
        return rc;
    }
    const size_t left = raw->n_ranks - (size_t)g->n;
    if (left && rs_raw_note(raw, "left out %zu trace(s) of ranks outside the ring's group %s", left, rs_import_group_label(g, lab, sizeof lab)) != 0) {
        free(sel);
        return rs_errf(err, "out of memory");
    }
    keep_ranks(raw, sel, (size_t)g->n);
    free(sel);
    return raw->n_ranks == (size_t)g->n ? 0 : rs_errf(err, "out of memory");
}

int rs_import_ring(rs_raw_t *raw, const char *group_opt, rs_import_ring_t *ring, rs_err_t *err) {
    memset(ring, 0, sizeof *ring);
    ring->group = -1;
    long g = -1;
    int n_with = 0;
    if (group_opt && *group_opt) {
        if ((g = group_of_option(raw, group_opt, err)) < 0) return -1;
        default_group(raw, &n_with);
    } else {
        g = default_group(raw, &n_with);
    }
    ring->n_groups_p2p = n_with;
    if (g < 0) { /* the trace names no group: by global rank, and a world larger than the traces is refused */
        if (order_by_rank(raw, err) != 0) return -1;
        const int64_t w = raw->n_ranks ? raw->ranks[0].world_size : -1;
        bool same = w > 0;
        for (size_t i = 0; i < raw->n_ranks; i++) same = same && raw->ranks[i].world_size == w;
        if (same && (size_t)w > raw->n_ranks && raw->n_ranks >= 2) /* (one trace: refused as no ring) */
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %zu trace(s) of a world of %lld ranks, and the traces do not say which ranks form the ring "
                           "(no NCCL kernel arguments): give every rank's trace, or the ring's ranks with --group RANKS (e.g. --group 0-%zu)",
                           raw->ranks[0].file, raw->n_ranks, (long long)w, raw->n_ranks - 1);
        return 0;
    }
    ring->group = g;
    rs_import_group_label(&raw->groups[g], ring->label, sizeof ring->label);
    if (n_with > 1 && !(group_opt && *group_opt) &&
        rs_raw_note(raw, "%d process groups carry point-to-point traffic; the ring is %s, the one with the most p2p kernels (--group to choose)",
                    n_with, ring->label) != 0)
        return rs_errf(err, "out of memory");
    for (size_t r = 0; r < raw->n_ranks; r++) /* another group's p2p kernels are not the ring's traffic */
        for (size_t i = 0; i < raw->ranks[r].nk; i++) {
            rs_raw_kernel_t *k = &raw->ranks[r].k[i];
            const rs_raw_comm_t *c = rs_krole_is_p2p(k->role) ? comm_of(raw, k) : NULL;
            if (c && (c->group != (uint32_t)g || c->coll != RS_COLL_P2P)) k->role = RS_KROLE_XCOMM;
        }
    if (raw->groups[g].n == 0) return order_by_rank(raw, err); /* known by name only */
    bool any_global = false;
    for (size_t r = 0; r < raw->n_ranks; r++) any_global = any_global || raw->ranks[r].rank_key >= 0;
    if (!any_global && raw->n_ranks == (size_t)raw->groups[g].n) /* one process driving every GPU: no rank says its global rank */
        return rs_raw_note(raw, "the traces do not say each GPU's global rank: the ring %s is taken in the order the GPUs were read", ring->label) == 0
                   ? 0
                   : rs_errf(err, "out of memory");
    if (order_by_group(raw, g, err) != 0) return -1;
    return check_direction(raw, g, &raw->groups[g], err);
}

int rs_import_check_traffic(const rs_raw_t *raw, const rs_import_ring_t *ring, rs_err_t *err) {
    for (size_t i = 0; i < raw->n_ranks; i++) {
        const rs_raw_rank_t *r = &raw->ranks[i];
        size_t attn = 0, p2p = 0, coll[RS_COLL_COUNT] = {0};
        for (size_t j = 0; j < r->nk; j++) {
            const int role = r->k[j].role;
            attn += rs_krole_is_attn(role);
            p2p += rs_krole_is_p2p(role);
            const rs_raw_comm_t *c = role == RS_KROLE_XCOMM ? comm_of(raw, &r->k[j]) : NULL;
            if (c) coll[c->coll]++;
            else if (role == RS_KROLE_XCOMM) coll[rs_coll_of_name(raw->names[r->k[j].name])]++;
        }
        if (p2p > 0 || attn == 0) continue; /* no attention: refused with the kernels seen, later */
        char seen[600];
        rs_import_comm_seen(raw, r, seen, sizeof seen);
        if (coll[RS_COLL_ALL_TO_ALL] > 0)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %zu: %zu attention kernels and no point-to-point ring traffic, but all_to_all: "
                           "Ulysses-style (all_to_all) sequence parallelism, which has no ring for ringsim to import (found %s)",
                           r->file, i, attn, seen);
        if (coll[RS_COLL_ALL_GATHER] > 0)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %zu: %zu attention kernels and no point-to-point ring traffic, but all_gather: "
                           "all-gather context parallelism (K,V gathered once per layer, as Llama 3's), which ringsim has no schedule for "
                           "(found %s)", r->file, i, attn, seen);
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %zu: %zu attention kernels but no point-to-point kernel of the ring%s%s (found %s)", r->file, i,
                       attn, ring->group >= 0 ? " in group " : "", ring->group >= 0 ? ring->label : "", seen);
    }
    return 0;
}
