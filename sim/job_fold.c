/* job_fold.c - a job folded by its symmetry, and the checks that make the fold exact (job_fold.h). */
#include "job_fold.h"
#include "ring_fold.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int64_t rs_job_fold_device(const rs_fabric_t *f, const rs_job_fold_t *fd, int64_t d) {
    const int64_t g = f->devices_per_node;
    return (d / g) % fd->node_period * g + d % g % fd->rail_period;
}

rs_flink_t rs_job_fold_link(const rs_fabric_t *f, const rs_job_fold_t *fd, rs_flink_t l) {
    const int64_t k = f->nics_per_node, t = fd->node_period;
    const int64_t nics = fd->rail_period * k / f->devices_per_node; /* NICs of the s devices a fold keeps (>= 1) */
    const int64_t groups = f->kind == RS_FABRIC_FLAT ? 1 : (t + f->nodes_per_leaf - 1) / f->nodes_per_leaf;
    switch (l.kind) {
    case RS_FLINK_NVL_UP: case RS_FLINK_NVL_DOWN: case RS_FLINK_PCIE_UP: case RS_FLINK_PCIE_DOWN:
        return (rs_flink_t){l.kind, rs_job_fold_device(f, fd, l.index)};
    case RS_FLINK_NVSW_IN: case RS_FLINK_NVSW_OUT: return (rs_flink_t){l.kind, l.index % t};
    case RS_FLINK_NIC_UP: case RS_FLINK_NIC_DOWN:
        return (rs_flink_t){l.kind, l.index / k % t * k + l.index % k % (nics > 0 ? nics : 1)};
    default: /* leaves: leaf-spine's leaf is its group; a rail leaf is group x K + NIC */
        if (f->kind != RS_FABRIC_RAIL) return (rs_flink_t){l.kind, l.index % groups};
        return (rs_flink_t){l.kind, l.index / k % groups * k + l.index % k % (nics > 0 ? nics : 1)};
    }
}

void rs_job_fold_free(rs_job_fold_t *f) {
    free(f->ring);
    free(f->ring_sim);
    free(f->slot_sim);
    memset(f, 0, sizeof *f);
}

/* A single ring's rotation check kept (ring_fold.h): the problem, a byte copy of the machine it ran
 * on, and its answer. */
typedef struct {
    rs_problem_t problem;
    rs_machine_t *machine;
    int64_t copies;
} ring_kept_t;

#define RING_KEPT_MAX 16 /* every (layout, pass) of one command: 3 x 2, with room */

/* Each pass's fold of one job, computed on first use, and the single rings' checks (sim.h). */
struct rs_sim_folds {
    const rs_job_t *job;
    bool done[RS_PASS_COUNT];
    rs_job_fold_t fold[RS_PASS_COUNT];
    int n_ring;
    ring_kept_t ring[RING_KEPT_MAX];
    int64_t ring_checks; /* checks run (not found kept) */
};

rs_sim_folds_t *rs_sim_folds_new(void) { return calloc(1, sizeof(rs_sim_folds_t)); }

void rs_sim_folds_free(rs_sim_folds_t *f) {
    for (int k = 0; f && k < RS_PASS_COUNT; k++) rs_job_fold_free(&f->fold[k]);
    for (int i = 0; f && i < f->n_ring; i++) free(f->ring[i].machine);
    free(f);
}

/* Every field of two problems equal (their padding differs between copies). */
_Static_assert(sizeof(rs_problem_t) == 15 * 8, "rs_problem_t changed: compare its new field in same_problem");
static bool same_problem(const rs_problem_t *a, const rs_problem_t *b) {
    return a->seq_tokens == b->seq_tokens && a->n_ranks == b->n_ranks && a->batch == b->batch && a->q_heads == b->q_heads &&
           a->kv_heads == b->kv_heads && a->head_dim == b->head_dim && a->act_bytes == b->act_bytes &&
           a->grad_bytes == b->grad_bytes && a->causal == b->causal && a->layout == b->layout && a->pass == b->pass &&
           a->tile_q == b->tile_q && a->tile_k == b->tile_k && a->ring == b->ring && a->cached_tokens == b->cached_tokens &&
           a->decode == b->decode;
}

/* The machine byte for byte (the same machine is the same bytes; a copy's padding that differs only
 * makes a kept check missed, never a wrong one found). */
bool sim_folds_ring_find(const rs_sim_folds_t *f, const rs_problem_t *p, const rs_machine_t *m, int64_t *copies) {
    for (int i = 0; f && m->hop_inter == NULL && i < f->n_ring; i++)
        if (same_problem(&f->ring[i].problem, p) && !memcmp(f->ring[i].machine, m, sizeof *m)) {
            *copies = f->ring[i].copies;
            return true;
        }
    return false;
}

void sim_folds_ring_keep(rs_sim_folds_t *f, const rs_problem_t *p, const rs_machine_t *m, int64_t copies) {
    if (!f) return;
    f->ring_checks++;
    if (m->hop_inter || f->n_ring == RING_KEPT_MAX) return; /* a borrowed array's contents are not compared */
    rs_machine_t *copy = malloc(sizeof *copy);
    if (!copy) return;
    memcpy(copy, m, sizeof *m);
    f->ring[f->n_ring++] = (ring_kept_t){*p, copy, copies};
}

int64_t sim_folds_ring_checks(const rs_sim_folds_t *f) { return f ? f->ring_checks : 0; }

const rs_job_fold_t *rs_job_fold_of(const rs_sim_config_t *cfg, rs_pass_t pass, rs_job_fold_t *own) {
    memset(own, 0, sizeof *own);
    rs_sim_folds_t *c = cfg->folds;
    if (!c || pass < 0 || pass >= RS_PASS_COUNT) return rs_job_fold(cfg->job, pass, own) == 0 ? own : NULL;
    if (c->job != cfg->job) { /* another job: its folds, not the last one's */
        for (int k = 0; k < RS_PASS_COUNT; k++) {
            rs_job_fold_free(&c->fold[k]);
            c->done[k] = false;
        }
        c->job = cfg->job;
    }
    if (!c->done[pass]) {
        if (rs_job_fold(cfg->job, pass, &c->fold[pass]) != 0) return NULL;
        c->done[pass] = true;
    }
    return &c->fold[pass];
}

/* ================================================================================================
 * The checks
 * ============================================================================================== */
typedef struct {
    const rs_job_t *j;
    int64_t n, rings, total;      /* ranks per ring, rings, ring hops */
    int64_t slots, *member, *offset, *group_of; /* background slots, their groups, slot -> group */
    int64_t *rank_at, *slot_at;   /* [devices]: the ring rank, the slot on a device (-1: none) */
    uint64_t *link;               /* link key per shared link of every hop */
    uint64_t *sim;                /* folded link key per shared link of every simulated hop */
} ctx_t;

static uint64_t key_of(rs_flink_t l) { return (uint64_t)l.kind << 40 | (uint64_t)l.index; }
static int cmp_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Hop h's devices: ring hops [0, total), then background slots. */
static void hop_ends(const ctx_t *c, int64_t h, int64_t *a, int64_t *b) {
    const int64_t *dev = c->j->placement.device;
    if (h < c->total) {
        *a = dev[h];
        *b = dev[h - h % c->n + (h % c->n + 1) % c->n];
        return;
    }
    const int64_t m = h - c->total, k = c->group_of[m], lo = c->offset[k], size = c->offset[k + 1] - lo;
    *a = c->member[m];
    *b = c->member[lo + (m - lo + 1) % size];
}

static int64_t slot_next(const ctx_t *c, int64_t m, int64_t by) {
    const int64_t k = c->group_of[m], lo = c->offset[k], size = c->offset[k + 1] - lo;
    return lo + ((m - lo + by) % size + size) % size;
}

/* The images of rings and slots under fold fd into out; false when one has none. */
static bool images(const ctx_t *c, const rs_job_fold_t *fd, rs_job_fold_t *out) {
    const rs_fabric_t *f = &c->j->fabric;
    for (int64_t r = 0; r < c->rings; r++) {
        const int64_t g = c->rank_at[rs_job_fold_device(f, fd, c->j->placement.device[r * c->n])];
        if (g < 0 || g % c->n != 0) return false;
        out->ring_sim[r] = g / c->n;
    }
    for (int64_t m = 0; m < c->slots; m++) {
        const int64_t s = c->slot_at[rs_job_fold_device(f, fd, c->member[m])];
        if (s < 0) return false;
        out->slot_sim[m] = s;
    }
    for (int64_t m = 0; m < c->slots; m++) { /* the same collective, neighbours onto neighbours */
        const int64_t s = out->slot_sim[m], k = c->group_of[m], ks = c->group_of[s];
        if (c->offset[k + 1] - c->offset[k] != c->offset[ks + 1] - c->offset[ks] ||
            out->slot_sim[slot_next(c, m, 1)] != out->slot_sim[slot_next(c, s, 1)] ||
            out->slot_sim[slot_next(c, m, -1)] != out->slot_sim[slot_next(c, s, -1)])
            return false;
    }
    return true;
}

static int64_t image_of(const ctx_t *c, const rs_job_fold_t *out, int64_t h) {
    if (h < c->total) return out->ring_sim[h / c->n] * c->n + h % c->n;
    return c->total + out->slot_sim[h - c->total];
}

/* Routes and links: every hop has its image's folded route with the same rates, and on every shared
 * link the hops map one to one onto the simulated hops through its image; every simulated ring and
 * slot has the same number of copies.
 *
 * One to one is checked as equal counts: each hop through a link maps onto a simulated hop through
 * its image (the routes agree link for link), so the map is onto once it is one to one, and it is
 * one to one on every fold rs_job_fold tries - two hops h1, h2 through link L at one position of
 * their routes (a simulated route crosses an image once) with one image have, by their routes, the
 * same folded source and destination devices:
 *   - NVL and NIC links, and rail leaves: L's devices (its device; its NIC's G / K devices; NIC j of
 *     nodes_per_leaf nodes, T a multiple of them) hold no two devices with one image (s is a
 *     multiple of G / K), so h1 and h2 leave (or reach) one device: a ring hop and a member's, whose
 *     images are a ring hop and a member's;
 *   - a leaf-spine uplink with T = every node: a link that is its own image, whose C copies (C >= 2:
 *     two hops onto one) would each cross it, C x m hops where the count wants the m simulated;
 *   - a leaf-spine uplink with T < every node: rs_job_fold tries (T, s < G) only after (every node,
 *     s) passed (with s = G the node and device of h1 and h2 are one, as above); h1 and h2 leave one
 *     node (T is a multiple of nodes_per_leaf), their images k1, k2 under (every node, s) differ (no
 *     two hops onto one there) and cross L too; k1 leaves device d1, k2 device d2 of that node; if
 *     d1 != d2 they use two NICs, and (every node, s) put a hop of d1's NIC onto k2, from d1 itself
 *     (the only device of that NIC with d2's image) and not k1: d1 sends k1 and that hop, a ring
 *     hop and a member's, and so k1 and k2 are one of each - as they are when d1 = d2 - and their
 *     images under (T, s), h1's and h2's (the fold (T, s) is (T, G)'s of (every node, s)'s), differ.
 * (A fold the search does not try can put two copies on one link: test_job_fold copies_on_one_link.) */
static bool covering(ctx_t *c, const rs_job_fold_t *fd, rs_job_fold_t *out) {
    const rs_fabric_t *f = &c->j->fabric;
    const int64_t hops = c->total + c->slots;
    int64_t np = 0, ns = 0;
    for (int64_t h = 0; h < hops; h++) {
        const int64_t img = image_of(c, out, h);
        int64_t a, b, ia, ib;
        hop_ends(c, h, &a, &b);
        hop_ends(c, img, &ia, &ib);
        rs_flink_t r[RS_FABRIC_ROUTE_MAX], ri[RS_FABRIC_ROUTE_MAX];
        const int n = rs_fabric_route(f, a, b, r), ni = rs_fabric_route(f, ia, ib, ri);
        if (n != ni) return false;
        for (int i = 0; i < n; i++) {
            const rs_flink_t x = rs_job_fold_link(f, fd, r[i]), y = rs_job_fold_link(f, fd, ri[i]);
            if (x.kind != y.kind || x.index != y.index) return false;
            rs_flink_rate_t u, v;
            rs_fabric_link_rate(f, r[i], &u);
            rs_fabric_link_rate(f, x, &v);
            if (u.bw_bytes_per_s != v.bw_bytes_per_s || u.latency_s != v.latency_s || u.fatpipe != v.fatpipe) return false;
            if (!rs_fabric_link_shared(r[i].kind)) continue;
            c->link[np++] = key_of(r[i]);
            if (img != h) continue;
            for (int q = 0; q < i; q++) /* a simulated route crosses an image once */
                if (rs_fabric_link_shared(r[q].kind) && key_of(rs_job_fold_link(f, fd, r[q])) == key_of(x)) return false;
            c->sim[ns++] = key_of(x);
        }
    }
    qsort(c->link, (size_t)np, sizeof *c->link, cmp_u64); /* a link's hops together */
    qsort(c->sim, (size_t)ns, sizeof *c->sim, cmp_u64);
    for (int64_t i = 0; i < np;) {
        int64_t e = i + 1;
        while (e < np && c->link[e] == c->link[i]) e++;
        const rs_flink_t l = {(rs_flink_kind_t)(c->link[i] >> 40), (int64_t)(c->link[i] & ((1ull << 40) - 1))};
        const uint64_t img = key_of(rs_job_fold_link(f, fd, l));
        int64_t lo = 0, hi = ns; /* simulated hops through the image: the first and past the last */
        while (lo < hi) {
            const int64_t mid = (lo + hi) / 2;
            if (c->sim[mid] < img) lo = mid + 1;
            else hi = mid;
        }
        int64_t q = lo;
        while (q < ns && c->sim[q] == img) q++;
        if (q - lo != e - i) return false;
        i = e;
    }
    int64_t *count = calloc((size_t)(c->rings + c->slots + 1), sizeof *count);
    if (!count) return false;
    for (int64_t r = 0; r < c->rings; r++) count[out->ring_sim[r]]++;
    for (int64_t m = 0; m < c->slots; m++) count[c->rings + out->slot_sim[m]]++;
    int64_t want = -1;
    bool same = true;
    for (int64_t i = 0; i < c->rings + c->slots && same; i++) {
        if (!count[i]) continue;
        if (want < 0) want = count[i];
        same = count[i] == want;
    }
    free(count);
    out->copies = want > 0 ? want : 1;
    return same;
}

/* Whether fold (t, s) of the fabric is defined: whole nodes, whole leaves, whole NIC groups. */
static bool fold_defined(const rs_fabric_t *f, int64_t t, int64_t s) {
    const int64_t nodes = rs_fabric_nodes(f), g = f->devices_per_node, k = f->nics_per_node;
    if (nodes % t != 0 || g % s != 0 || f->devices != nodes * g) return false;
    if (t != nodes && f->kind != RS_FABRIC_FLAT && t % f->nodes_per_leaf != 0) return false;
    if (s != g && (g % k != 0 || s % (g / k) != 0)) return false;
    return true;
}

static bool try_fold(ctx_t *c, int64_t t, int64_t s, rs_job_fold_t *out) {
    if (!fold_defined(&c->j->fabric, t, s)) return false;
    out->node_period = t;
    out->rail_period = s;
    return images(c, out, out) && covering(c, out, out);
}

static void ctx_free(ctx_t *c) {
    free(c->member);
    free(c->offset);
    free(c->group_of);
    free(c->rank_at);
    free(c->slot_at);
    free(c->link);
    free(c->sim);
}

int rs_job_fold(const rs_job_t *j, rs_pass_t pass, rs_job_fold_t *out) {
    memset(out, 0, sizeof *out);
    const rs_fabric_t *f = &j->fabric;
    if (f->devices < 1 || f->devices_per_node < 1 || f->nics_per_node < 1 || f->nodes_per_leaf < 1 || j->placement.n_rings < 1 ||
        j->placement.ring_ranks < 1 || !j->placement.device) { /* not a built job: nothing to fold */
        out->copies = 1;
        return 0;
    }
    ctx_t c = {.j = j, .n = j->placement.ring_ranks, .rings = j->placement.n_rings};
    c.total = c.rings * c.n;
    int64_t groups = 0;
    rs_bg_coll_t coll[RS_BG_MAX_COLL];
    if (j->background.kind != RS_BG_NONE && rs_background_colls(&j->background, pass, 2, coll) > 0) {
        groups = rs_background_groups(&j->placement, j->background.group, &c.member, &c.offset);
        if (groups < 0) return -1;
        c.slots = c.offset[groups];
    }
    const int64_t hops = c.total + c.slots;
    c.group_of = malloc(sizeof *c.group_of * (size_t)(c.slots + 1));
    c.rank_at = malloc(sizeof *c.rank_at * (size_t)f->devices);
    c.slot_at = malloc(sizeof *c.slot_at * (size_t)f->devices);
    c.link = malloc(sizeof *c.link * (size_t)(hops * RS_FABRIC_ROUTE_MAX + 1));
    c.sim = malloc(sizeof *c.sim * (size_t)(hops * RS_FABRIC_ROUTE_MAX + 1));
    out->ring_sim = malloc(sizeof *out->ring_sim * (size_t)c.rings);
    out->slot_sim = malloc(sizeof *out->slot_sim * (size_t)(c.slots + 1));
    int rc = 0;
    if (!c.group_of || !c.rank_at || !c.slot_at || !c.link || !c.sim || !out->ring_sim || !out->slot_sim) rc = -1;
    for (int64_t d = 0; rc == 0 && d < f->devices; d++) c.rank_at[d] = c.slot_at[d] = -1;
    for (int64_t g = 0; rc == 0 && g < c.total; g++) c.rank_at[j->placement.device[g]] = g;
    for (int64_t k = 0; rc == 0 && k < groups; k++)
        for (int64_t m = c.offset[k]; m < c.offset[k + 1]; m++) {
            c.group_of[m] = k;
            c.slot_at[c.member[m]] = m;
        }
    const int64_t nodes = rs_fabric_nodes(f), g = f->devices_per_node;
    int64_t s = g;
    bool valid = false; /* out holds the last fold tried, which passed */
    for (int64_t x = 1; rc == 0 && x < g && !valid; x++)
        if ((valid = try_fold(&c, nodes, x, out))) s = x;
    for (int64_t x = 1; rc == 0 && x < nodes; x++)
        if ((valid = try_fold(&c, x, s, out))) break;
    if (rc == 0 && !valid && s < g) valid = try_fold(&c, nodes, s, out); /* the rail fold alone */
    if (rc == 0 && !valid) { /* the identity fold: nothing folded */
        out->node_period = nodes;
        out->rail_period = g;
        for (int64_t r = 0; r < c.rings; r++) out->ring_sim[r] = r;
        for (int64_t m = 0; m < c.slots; m++) out->slot_sim[m] = m;
        out->copies = 1;
    }
    if (rc == 0) {
        out->ring = malloc(sizeof *out->ring * (size_t)c.rings);
        if (!out->ring) rc = -1;
        for (int64_t r = 0; rc == 0 && r < c.rings; r++)
            if (out->ring_sim[r] == r) out->ring[out->n_rings++] = r;
    }
    if (rc == 0 && c.slots == 0) {
        free(out->slot_sim);
        out->slot_sim = NULL;
    }
    ctx_free(&c);
    if (rc != 0) rs_job_fold_free(out);
    return rc;
}
