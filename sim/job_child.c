/* job_child.c - a job's bookkeeping inside the simulation child (its rings' hops, the shared links'
 * books, unfolded onto every copy of a folded job) and the parent's side of the results
 * (job_child.h); the background collectives are job_bg.c. */
#include "job_child.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/mailbox.h>
#include <xbt/dynar.h>

#include "cost.h"

/* ================================================================================================
 * Child state
 * ============================================================================================== */
typedef struct {
    double s, e; /* a busy interval */
} blk_t;

typedef struct {
    sg_link_t link;
    double cap, bytes;
    int64_t flows;
    blk_t *blk; /* busy intervals: disjoint, sorted */
    int64_t n_blk, cap_blk;
} link_acc_t;

/* A hop's books, also its record on the pipe ('J', min_bw 0 when nothing moved). */
typedef struct {
    double bytes, flow_s, min_bw, lat;
    int32_t n_route, route[RS_JOB_ROUTE_MAX];
} hop_acc_t;


static struct {
    const rs_job_t *job;
    const rs_job_fold_t *fold; /* NULL: every ring and member simulated */
    int64_t n, total;         /* ranks per ring, ranks simulated */
    hop_acc_t *hop;           /* [total] */
    double *start;            /* [2 total]: step start of rank g at step k at 2 g + (k & 1) */
    double *ring_end;         /* [rings] */
    link_acc_t *link;         /* registry of shared links that carried traffic */
    int64_t n_link, cap_link;
} J;

static char untracked; /* sg_link data of a FATPIPE link (never binding: not tracked) */

/* Index of a shared link in the registry (registered on first sight); -1 for a FATPIPE link or OOM. */
static int64_t link_index(sg_link_t l) {
    void *d = sg_link_get_data(l);
    if (d == &untracked) return -1;
    if (d) return (int64_t)(intptr_t)d - 1;
    if (!sg_link_is_shared(l)) {
        sg_link_set_data(l, &untracked);
        return -1;
    }
    if (J.n_link == J.cap_link) {
        int64_t c = J.cap_link ? 2 * J.cap_link : 64;
        link_acc_t *g = realloc(J.link, sizeof *g * (size_t)c);
        if (!g) return -1;
        J.link = g;
        J.cap_link = c;
    }
    link_acc_t *a = &J.link[J.n_link];
    memset(a, 0, sizeof *a);
    a->link = l;
    a->cap = sg_link_get_bandwidth(l);
    sg_link_set_data(l, (void *)(intptr_t)(J.n_link + 1));
    return J.n_link++;
}

/* A flow moved `bytes` through link i, flowing from s to e. Blocks stay sorted and disjoint; flows
 * mostly arrive in order of their end (recorded when they complete), so the new block usually goes
 * last, merging the blocks it overlaps. */
static void link_add(int64_t i, double s, double e, double bytes) {
    link_acc_t *a = &J.link[i];
    a->bytes += bytes;
    a->flows++;
    if (!(e > s)) return;
    int64_t hi = a->n_blk;
    while (hi > 0 && a->blk[hi - 1].s > e) hi--; /* blocks [hi, n) start after this flow ends */
    int64_t lo = hi;
    while (lo > 0 && a->blk[lo - 1].e >= s) { /* blocks [lo, hi) overlap it: merge */
        lo--;
        if (a->blk[lo].s < s) s = a->blk[lo].s;
        if (a->blk[lo].e > e) e = a->blk[lo].e;
    }
    if (lo == hi && a->n_blk == a->cap_blk) { /* a new block: room for it */
        int64_t c = a->cap_blk ? 2 * a->cap_blk : 16;
        blk_t *g = realloc(a->blk, sizeof *g * (size_t)c);
        if (!g) return; /* out of memory: the busy time drops this interval */
        a->blk = g;
        a->cap_blk = c;
    }
    const int64_t tail = a->n_blk - hi; /* blocks after the merged one move to lo + 1 */
    memmove(a->blk + lo + 1, a->blk + hi, sizeof *a->blk * (size_t)tail);
    a->blk[lo] = (blk_t){s, e};
    a->n_blk = lo + 1 + tail;
}

/* Route from src to dst: latency and the shared links (at most RS_JOB_ROUTE_MAX). */
void rs_jc_route(sg_host_t src, sg_host_t dst, double *lat, int32_t *n_route, int32_t route[RS_JOB_ROUTE_MAX]) {
    *n_route = 0;
    *lat = 0;
    if (src == dst) return;
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg_host_get_route(src, dst, links);
    *lat = sg_host_get_route_latency(src, dst);
    for (unsigned i = 0; i < xbt_dynar_length(links); i++) {
        const int64_t k = link_index(xbt_dynar_get_as(links, i, sg_link_t));
        if (k >= 0 && *n_route < RS_JOB_ROUTE_MAX) route[(*n_route)++] = (int32_t)k;
    }
    xbt_dynar_free(&links);
}

void rs_jc_flow(const int32_t *route, int32_t n_route, double s, double e, double bytes) {
    for (int32_t i = 0; i < n_route; i++) link_add(route[i], s, e, bytes);
}

int rs_jc_init(const rs_job_t *job, const rs_job_fold_t *fold, rs_pass_t pass, int64_t n) {
    memset(&J, 0, sizeof J);
    J.job = job;
    J.fold = fold;
    J.n = n;
    J.total = (fold ? fold->n_rings : job->placement.n_rings) * n;
    J.hop = calloc((size_t)J.total, sizeof *J.hop);
    J.start = calloc((size_t)(2 * J.total), sizeof *J.start);
    J.ring_end = calloc((size_t)job->placement.n_rings, sizeof *J.ring_end);
    if (!J.hop || !J.start || !J.ring_end) return -1;
    for (int64_t g = 0; g < J.total; g++) J.hop[g].min_bw = INFINITY;
    return rs_jc_bg_init(job, fold, pass);
}

static int64_t ring_next(int64_t g) {
    const int64_t p = g % J.n;
    return g - p + (p + 1) % J.n;
}

void rs_jc_rank_route(int64_t g, sg_host_t src, sg_host_t dst) {
    hop_acc_t *h = &J.hop[g];
    rs_jc_route(src, dst, &h->lat, &h->n_route, h->route);
}

void rs_jc_step_start(int64_t g, int64_t k, double t0) { J.start[2 * g + (k & 1)] = t0; }

void rs_jc_hop_done(int64_t g, int64_t k, double t0, double end_s, double bytes) {
    hop_acc_t *h = &J.hop[g];
    const double other = J.start[2 * ring_next(g) + (k & 1)];
    const double s = fmax(t0, other) + h->lat, flow = end_s - s;
    if (!(bytes > 0) || !(flow > 0)) return;
    h->bytes += bytes;
    h->flow_s += flow;
    if (bytes / flow < h->min_bw) h->min_bw = bytes / flow;
    rs_jc_flow(h->route, h->n_route, s, end_s, bytes);
}

void rs_jc_rank_end(int64_t g, double te) {
    const int64_t r = g / J.n;
    if (te > J.ring_end[r]) J.ring_end[r] = te;
}

/* ================================================================================================
 * Child -> parent records
 * ============================================================================================== */
typedef struct {
    int64_t n_rings, n_hops, n_links, n_bg;
} job_hdr_t;

typedef struct {
    char name[48];
    double cap, bytes, busy_s;
    int64_t flows;
} link_rec_t;

static link_rec_t link_rec(const link_acc_t *a, const char *name) {
    link_rec_t r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "%s", name);
    r.cap = a->cap;
    r.bytes = a->bytes;
    r.flows = a->flows;
    for (int64_t b = 0; b < a->n_blk; b++) r.busy_s += a->blk[b].e - a->blk[b].s;
    return r;
}

static void put_hop(FILE *out, hop_acc_t r) {
    if (!isfinite(r.min_bw)) r.min_bw = 0;
    fwrite(&r, sizeof r, 1, out);
}

/* A folded job's books, unfolded: every ring, hop and link has its image's figures; the links are
 * listed in the order the full simulation finds them (every ring hop's route, then every member's).
 * Returns 0 or -1 (out of memory). */
static int write_unfolded(FILE *out, job_hdr_t *h) {
    const rs_job_t *j = J.job;
    const rs_fabric_t *f = &j->fabric;
    const int64_t *member = NULL, *offset = NULL;
    const int64_t n = J.n, rings = j->placement.n_rings, total = rings * n, slots = rs_jc_bg_slots(&member, &offset);
    int64_t base[RS_FLINK_COUNT + 1] = {0};
    for (int k = 0; k < RS_FLINK_COUNT; k++) base[k + 1] = base[k] + rs_fabric_link_count(f, (rs_flink_kind_t)k);
    int64_t *full = malloc(sizeof *full * (size_t)(base[RS_FLINK_COUNT] + 1)); /* link -> its index in the list */
    int64_t *sim_of = malloc(sizeof *sim_of * (size_t)(rings + 1));             /* ring -> its simulated ring's walkers / n */
    rs_flink_t *order = malloc(sizeof *order * (size_t)(base[RS_FLINK_COUNT] + 1));
    hop_acc_t *hop = malloc(sizeof *hop * (size_t)(total + 1));
    if (!full || !sim_of || !order || !hop) {
        free(full);
        free(sim_of);
        free(order);
        free(hop);
        return -1;
    }
    for (int64_t i = 0; i < base[RS_FLINK_COUNT]; i++) full[i] = -1;
    for (int64_t q = 0; q < J.fold->n_rings; q++) sim_of[J.fold->ring[q]] = q;
    int64_t n_links = 0;
    for (int64_t hp = 0, k = 0; hp < total + slots; hp++) { /* k: the group of slot hp - total */
        int64_t a, b;
        if (hp < total) {
            a = j->placement.device[hp];
            b = j->placement.device[hp - hp % n + (hp % n + 1) % n];
        } else {
            const int64_t m = hp - total;
            while (offset[k + 1] <= m) k++;
            a = member[m];
            b = member[offset[k] + (m - offset[k] + 1) % (offset[k + 1] - offset[k])];
        }
        rs_flink_t r[RS_FABRIC_ROUTE_MAX];
        const int nr = rs_fabric_route(f, a, b, r);
        hop_acc_t *o = hp < total ? &hop[hp] : NULL;
        if (o) {
            *o = J.hop[sim_of[J.fold->ring_sim[hp / n]] * n + hp % n];
            o->n_route = 0;
        }
        for (int i = 0; i < nr; i++) {
            if (!rs_fabric_link_shared(r[i].kind)) continue;
            const int64_t key = base[r[i].kind] + r[i].index;
            if (full[key] < 0) {
                order[n_links] = r[i];
                full[key] = n_links++;
            }
            if (o && o->n_route < RS_JOB_ROUTE_MAX) o->route[o->n_route++] = (int32_t)full[key];
        }
    }
    h->n_hops = total;
    h->n_links = n_links;
    fputc('J', out);
    fwrite(h, sizeof *h, 1, out);
    for (int64_t r = 0; r < rings; r++) fwrite(&J.ring_end[sim_of[J.fold->ring_sim[r]]], sizeof(double), 1, out);
    for (int64_t g = 0; g < total; g++) put_hop(out, hop[g]);
    int rc = 0;
    link_rec_t *rec = malloc(sizeof *rec * (size_t)(J.n_link + 1)); /* each simulated link's books, once */
    for (int64_t k = 0; rec && k < J.n_link; k++) rec[k] = link_rec(&J.link[k], "");
    for (int64_t i = 0; i < n_links && rc == 0 && rec; i++) {
        rs_flink_rate_t img;
        rs_fabric_link(f, rs_job_fold_link(f, J.fold, order[i]), &img);
        const sg_link_t l = sg_link_by_name(img.name);
        const int64_t k = l ? link_index(l) : -1;
        if (k < 0 || k >= J.n_link) rc = -1; /* the covering guarantees every image carried its copies' flows */
        else {
            link_rec_t r = rec[k];
            rs_flink_rate_t own;
            rs_fabric_link(f, order[i], &own);
            snprintf(r.name, sizeof r.name, "%.47s", own.name);
            fwrite(&r, sizeof r, 1, out);
        }
    }
    if (!rec) rc = -1;
    free(rec);
    free(full);
    free(sim_of);
    free(order);
    free(hop);
    return rc;
}

int rs_jc_write(FILE *out) {
    job_hdr_t h = {J.job->placement.n_rings, J.total, J.n_link, rs_jc_bg_colls()};
    if (J.fold && J.fold->copies > 1) {
        if (write_unfolded(out, &h) != 0) return -1;
    } else {
        fputc('J', out);
        fwrite(&h, sizeof h, 1, out);
        fwrite(J.ring_end, sizeof(double), (size_t)h.n_rings, out);
        for (int64_t g = 0; g < J.total; g++) put_hop(out, J.hop[g]);
        for (int64_t i = 0; i < J.n_link; i++) {
            const link_rec_t r = link_rec(&J.link[i], sg_link_get_name(J.link[i].link));
            fwrite(&r, sizeof r, 1, out);
        }
    }
    rs_jc_bg_write(out);
    return ferror(out) ? -1 : 0;
}

int rs_jc_read(int fd, rs_jc_read_fn rd, rs_job_result_t *out) {
    memset(out, 0, sizeof *out);
    job_hdr_t h;
    if (rd(fd, &h, sizeof h) != 1 || h.n_rings < 1 || h.n_hops < 1 || h.n_links < 0 || h.n_bg < 0 ||
        h.n_bg > RS_BG_MAX_COLL)
        return -1;
    out->rings = calloc((size_t)h.n_rings, sizeof *out->rings);
    out->hops = calloc((size_t)h.n_hops, sizeof *out->hops);
    out->links = calloc((size_t)h.n_links + 1, sizeof *out->links);
    double *ends = malloc(sizeof *ends * (size_t)h.n_rings);
    int rc = (!out->rings || !out->hops || !out->links || !ends) ? -1 : 0;
    if (rc == 0 && rd(fd, ends, sizeof *ends * (size_t)h.n_rings) != 1) rc = -1;
    out->n_rings = h.n_rings;
    out->n_hops = h.n_hops;
    out->n_links = h.n_links;
    out->n_bg = h.n_bg;
    for (int64_t r = 0; rc == 0 && r < h.n_rings; r++) {
        out->rings[r].makespan_s = ends[r];
        if (ends[r] > out->makespan_s) out->makespan_s = ends[r];
    }
    for (int64_t g = 0; rc == 0 && g < h.n_hops; g++) {
        hop_acc_t r;
        if (rd(fd, &r, sizeof r) != 1 || r.n_route < 0 || r.n_route > RS_JOB_ROUTE_MAX) {
            rc = -1;
            break;
        }
        rs_hop_result_t *o = &out->hops[g];
        o->bytes = r.bytes;
        o->flow_s = r.flow_s;
        o->min_bw = r.min_bw;
        o->latency_s = r.lat;
        o->n_route = r.n_route;
        memcpy(o->route, r.route, sizeof o->route);
        for (int32_t i = 0; i < r.n_route; i++)
            if (r.route[i] < 0 || r.route[i] >= h.n_links) rc = -1;
    }
    for (int64_t i = 0; rc == 0 && i < h.n_links; i++) {
        link_rec_t r;
        if (rd(fd, &r, sizeof r) != 1) {
            rc = -1;
            break;
        }
        rs_link_result_t *o = &out->links[i];
        snprintf(o->name, sizeof o->name, "%.47s", r.name);
        o->capacity_bw = r.cap;
        o->bytes = r.bytes;
        o->busy_s = r.busy_s;
        o->flows = r.flows;
    }
    for (int i = 0; rc == 0 && i < h.n_bg; i++)
        if (rd(fd, &out->bg[i], sizeof out->bg[i]) != 1) rc = -1;
    free(ends);
    if (rc != 0) rs_job_result_free(out);
    return rc;
}

/* ================================================================================================
 * Parent: what the numbers mean
 * ============================================================================================== */
/* The bottleneck of hop h: the route's link with the highest busy utilisation (ties: the most
 * loaded, then the first on the route). */
static int32_t hop_bottleneck(const rs_job_result_t *r, const rs_hop_result_t *h) {
    int32_t best = -1;
    double bu = -1, bl = -1;
    for (int32_t i = 0; i < h->n_route; i++) {
        const rs_link_result_t *l = &r->links[h->route[i]];
        const double u = rs_link_busy_util(l), load = l->bytes / l->capacity_bw;
        if (u > bu + 1e-9 || (fabs(u - bu) <= 1e-9 && load > bl)) {
            best = h->route[i];
            bu = u;
            bl = load;
        }
    }
    return best;
}

/* Node-crossing pattern of ring r's hops into inter[N]. */
static void ring_pattern(const rs_job_t *job, int64_t r, bool *inter) {
    const int64_t n = job->placement.ring_ranks;
    const int64_t *dev = job->placement.device + r * n;
    for (int64_t p = 0; p < n; p++) inter[p] = !rs_fabric_same_node(&job->fabric, dev[p], dev[(p + 1) % n]);
}

/* Contention-free walk of a ring whose hops cross nodes where inter[] says: the machine with the
 * ring's own hop tiers (rs_machine_t.hop_inter). */
static int pattern_walk(const rs_schedule_t *s, const rs_machine_t *m, const bool *inter, double *makespan_s,
                        rs_err_t *err) {
    rs_machine_t mm = *m;
    mm.hop_inter = inter;
    rs_walk_t w;
    if (rs_model_walk(s, &mm, RS_NO_SINK, NULL, &w, err) != 0) return -1;
    *makespan_s = w.makespan_s;
    return 0;
}

/* Ring k's hops: identities, tiers, bottlenecks, the worst one. */
static void ring_hops(const rs_job_t *job, const rs_machine_t *m, const bool *inter, int64_t k, rs_job_result_t *r) {
    const int64_t n = job->placement.ring_ranks;
    rs_ring_result_t *ring = &r->rings[k];
    ring->worst_hop = -1;
    ring->worst_ratio = 1;
    for (int64_t p = 0; p < n; p++) {
        rs_hop_result_t *h = &r->hops[k * n + p];
        h->ring = k;
        h->rank = p;
        h->src = job->placement.device[k * n + p];
        h->dst = job->placement.device[k * n + (p + 1) % n];
        h->inter = inter[p];
        h->nominal_bw = h->inter ? m->inter.bw_bytes_per_s : m->intra.bw_bytes_per_s;
        h->bottleneck = hop_bottleneck(r, h);
        ring->inter_hops += h->inter;
        if (h->flow_s > 0) {
            const double ratio = h->bytes / h->flow_s / h->nominal_bw;
            if (ring->worst_hop < 0 || ratio < ring->worst_ratio) {
                ring->worst_hop = p;
                ring->worst_ratio = ratio;
            }
        }
    }
}

int rs_job_finish(const rs_job_t *job, const rs_schedule_t *s, const rs_machine_t *m, rs_job_result_t *r,
                  rs_err_t *err) {
    const int64_t n = job->placement.ring_ranks;
    bool *inter = malloc(sizeof *inter * (size_t)n), *prev = malloc(sizeof *prev * (size_t)n);
    if (!inter || !prev) {
        free(inter);
        free(prev);
        return rs_errf(err, "job: out of memory");
    }
    double walk = 0;
    int rc = 0;
    for (int64_t k = 0; k < r->n_rings && rc == 0; k++) {
        ring_pattern(job, k, inter);
        if (k == 0 || memcmp(inter, prev, sizeof *inter * (size_t)n) != 0) /* rings alike walk alike */
            rc = pattern_walk(s, m, inter, &walk, err);
        memcpy(prev, inter, sizeof *inter * (size_t)n);
        r->rings[k].walk_makespan_s = walk;
        r->rings[k].slowdown = walk > 0 ? r->rings[k].makespan_s / walk : 1;
        ring_hops(job, m, inter, k, r);
    }
    free(inter);
    free(prev);
    return rc;
}
