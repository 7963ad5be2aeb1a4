/* job_bg.c - a job's background collectives inside the simulation child (job_child.h): NCCL's ring
 * algorithm over each group's members, as actors (the actor engine) or as the activity engine's
 * walkers, and their results. */
#include "job_child.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#include "sgx.h"

typedef struct {
    rs_bg_coll_t coll;        /* what runs */
    int64_t p;                /* members */
    const int64_t *member;    /* devices, ascending */
    sg_mailbox_t *mb;         /* [p] */
    double *start;            /* [2 p]: step start of member i at step s at 2 i + (s & 1) */
    double end_s;             /* latest member end */
    int coll_index;           /* which of the pass's collectives */
} bg_inst_t;

/* A member of a collective on the activity engine (the actors' rules, bg_main). */
typedef struct {
    bg_inst_t *in;            /* its collective */
    int64_t i;                /* its index in the group */
    int64_t next, prev;       /* the walkers of its successor and predecessor (their images in a fold) */
    sg_host_t self, to;       /* its device and its successor's */
    double lat;               /* its route's latency */
    int32_t n_route, route[RS_JOB_ROUTE_MAX];
    int64_t s;                /* the step started (-1 before the first) */
    double t0[2];             /* step starts by parity */
    int pending;              /* its send and its receive of the step */
} bg_walker_t;

static struct {
    const rs_job_fold_t *fold; /* NULL: every member simulated */
    int n_coll;
    rs_bg_coll_t coll[RS_BG_MAX_COLL];
    int64_t coll_groups[RS_BG_MAX_COLL], coll_members[RS_BG_MAX_COLL];
    bg_inst_t *inst;          /* background instances */
    int64_t n_inst;
    int64_t *members, *offset; /* background groups */
    int64_t n_groups;
    bg_walker_t *bgw;         /* the activity engine's members */
    int64_t n_bgw, owner0;    /* and the sgx owner of the first */
} B;

int rs_jc_bg_init(const rs_job_t *job, const rs_job_fold_t *fold, rs_pass_t pass) {
    memset(&B, 0, sizeof B);
    B.fold = fold;
    if (job->background.kind == RS_BG_NONE) return 0;
    const int64_t n_groups = rs_background_groups(&job->placement, job->background.group, &B.members, &B.offset);
    if (n_groups < 0) return -1;
    B.n_groups = n_groups;
    B.inst = calloc((size_t)(n_groups * RS_BG_MAX_COLL + 1), sizeof *B.inst);
    if (!B.inst) return -1;
    for (int64_t k = 0; k < n_groups; k++) {
        const int64_t p = B.offset[k + 1] - B.offset[k];
        rs_bg_coll_t c[RS_BG_MAX_COLL];
        const int nc = rs_background_colls(&job->background, pass, p, c);
        for (int i = 0; i < nc; i++) {
            bg_inst_t *in = &B.inst[B.n_inst++];
            in->coll = c[i];
            in->coll_index = i;
            in->p = p;
            in->member = B.members + B.offset[k];
            in->mb = calloc((size_t)p, sizeof *in->mb);
            in->start = calloc((size_t)(2 * p), sizeof *in->start);
            if (!in->mb || !in->start) return -1;
            B.coll[i] = c[i];
            if (i + 1 > B.n_coll) B.n_coll = i + 1;
            B.coll_groups[i]++;
            if (p > B.coll_members[i]) B.coll_members[i] = p;
        }
    }
    return 0;
}

int rs_jc_bg_colls(void) { return B.n_coll; }

int64_t rs_jc_bg_slots(const int64_t **member, const int64_t **offset) {
    *member = B.members;
    *offset = B.offset;
    return B.n_inst ? B.offset[B.n_groups] : 0;
}

void rs_jc_bg_write(FILE *out) {
    for (int i = 0; i < B.n_coll; i++) {
        rs_bg_result_t b;
        memset(&b, 0, sizeof b);
        snprintf(b.name, sizeof b.name, "%s", B.coll[i].name);
        b.groups = B.coll_groups[i];
        b.members = B.coll_members[i];
        b.bytes = (double)B.coll[i].steps * (double)B.coll[i].step_bytes;
        for (int64_t k = 0; k < B.n_inst; k++)
            if (B.inst[k].coll_index == i && B.inst[k].end_s > b.end_s) b.end_s = B.inst[k].end_s;
        fwrite(&b, sizeof b, 1, out);
    }
}

/* ================================================================================================
 * Background collectives: NCCL's ring algorithm, one actor per member
 * ============================================================================================== */
static void bg_main(int argc, char **argv) {
    (void)argc;
    bg_inst_t *in = &B.inst[strtoll(argv[1], NULL, 10)];
    const int64_t i = strtoll(argv[2], NULL, 10), next = (i + 1) % in->p;
    char name[48];
    snprintf(name, sizeof name, "gpu%" PRId64, in->member[i]);
    sg_host_t self = sg_host_by_name(name);
    snprintf(name, sizeof name, "gpu%" PRId64, in->member[next]);
    sg_host_t to = sg_host_by_name(name);
    double lat;
    int32_t n_route, route[RS_JOB_ROUTE_MAX];
    rs_jc_route(self, to, &lat, &n_route, route);
    static char payload; /* SimGrid needs a non-NULL payload */
    for (int64_t s = 0; s < in->coll.steps; s++) {
        const double t0 = simgrid_get_clock();
        in->start[2 * i + (s & 1)] = t0;
        void *got = NULL;
        sg_comm_t c[2];
        c[0] = sg_mailbox_put_async(in->mb[next], &payload, (long)in->coll.step_bytes);
        c[1] = sg_mailbox_get_async(in->mb[i], &got);
        ssize_t first = sg_comm_wait_any(c, 2);
        double send_end = simgrid_get_clock();
        sg_comm_wait(c[1 - first]);
        if (first != 0) send_end = simgrid_get_clock();
        const double fs = fmax(t0, in->start[2 * next + (s & 1)]) + lat;
        if (send_end > fs) rs_jc_flow(route, n_route, fs, send_end, (double)in->coll.step_bytes);
    }
    const double end = simgrid_get_clock();
    if (end > in->end_s) in->end_s = end;
}

int rs_jc_start_background(void) {
    char name[64], a1[24], a2[24];
    for (int64_t k = 0; k < B.n_inst; k++) {
        bg_inst_t *in = &B.inst[k];
        for (int64_t i = 0; i < in->p; i++) {
            snprintf(name, sizeof name, "bg%" PRId64 ".%" PRId64, k, i);
            in->mb[i] = sg_mailbox_by_name(name);
        }
        for (int64_t i = 0; i < in->p; i++) {
            snprintf(name, sizeof name, "gpu%" PRId64, in->member[i]);
            sg_host_t h = sg_host_by_name(name);
            if (!h) return -1;
            snprintf(name, sizeof name, "bg%" PRId64 ".%" PRId64, k, i);
            snprintf(a1, sizeof a1, "%" PRId64, k);
            snprintf(a2, sizeof a2, "%" PRId64, i);
            const char *av[] = {name, a1, a2};
            sg_actor_create_(name, h, bg_main, 3, av);
        }
    }
    return 0;
}

/* ================================================================================================
 * Background collectives on the activity engine: bg_main's rules without an actor. A member starts
 * a step when its previous one is done (its send and its receive); its send to the successor starts
 * when both have started the step (the later start posts it, the mailbox rendezvous). In a fold a
 * member's successor and predecessor are their images (job_fold.h); its send still goes to its
 * successor's own device, over that route's folded links.
 * ============================================================================================== */
static int bg_failed;

static void bg_sent(void *arg);

static void bg_send(int64_t w) {
    bg_walker_t *x = &B.bgw[w];
    if (sgx_transfer(B.owner0 + w, x->self, x->to, (double)x->in->coll.step_bytes, bg_sent, (void *)(intptr_t)w) != 0) bg_failed = 1;
}

static void bg_start(int64_t w, int64_t s) {
    bg_walker_t *x = &B.bgw[w];
    x->s = s;
    x->t0[s & 1] = simgrid_get_clock();
    x->pending = 2;
    if (B.bgw[x->next].s == s) bg_send(w);                  /* the successor is there */
    if (x->prev != w && B.bgw[x->prev].s == s) bg_send(x->prev); /* the predecessor was there first */
}

static void bg_settle(int64_t w) {
    bg_walker_t *x = &B.bgw[w];
    if (--x->pending > 0) return;
    if (x->s + 1 < x->in->coll.steps) {
        bg_start(w, x->s + 1);
        return;
    }
    const double end = simgrid_get_clock();
    if (end > x->in->end_s) x->in->end_s = end;
    sgx_owner_done(B.owner0 + w);
}

static void bg_sent(void *arg) {
    const int64_t w = (int64_t)(intptr_t)arg;
    const bg_walker_t *x = &B.bgw[w];
    const double now = simgrid_get_clock();
    const double fs = fmax(x->t0[x->s & 1], B.bgw[x->next].t0[x->s & 1]) + x->lat;
    if (now > fs) rs_jc_flow(x->route, x->n_route, fs, now, (double)x->in->coll.step_bytes);
    bg_settle(w);
    bg_settle(x->next);
}

/* The slot of member i of the group at `lo` of `size`, moved by `by`. */
static int64_t slot_at(int64_t lo, int64_t size, int64_t i, int64_t by) { return lo + ((i + by) % size + size) % size; }

int64_t rs_jc_engine_walkers(sg_host_t *host, int64_t owner0) {
    if (B.n_inst == 0) return 0;
    const int64_t slots = B.offset[B.n_groups];
    const int nc = B.n_coll;
    if (!B.bgw) {
        int64_t *walker = malloc(sizeof *walker * (size_t)(slots * nc + 1)); /* (slot, collective) -> walker */
        B.bgw = calloc((size_t)(slots * nc + 1), sizeof *B.bgw);
        if (!walker || !B.bgw) {
            free(walker);
            return -1;
        }
        for (int64_t i = 0; i < slots * nc; i++) walker[i] = -1;
        for (int64_t k = 0, in = 0; k < B.n_groups; k++) /* instances: group by group, each group's collectives */
            for (int c = 0; c < nc && in < B.n_inst && B.inst[in].member == B.members + B.offset[k]; c++, in++)
                for (int64_t i = 0; i < B.inst[in].p; i++) {
                    const int64_t m = B.offset[k] + i;
                    if (B.fold && B.fold->slot_sim[m] != m) continue;
                    walker[m * nc + c] = B.n_bgw;
                    B.bgw[B.n_bgw++] = (bg_walker_t){.in = &B.inst[in], .i = i, .s = -1};
                }
        for (int64_t w = 0; w < B.n_bgw; w++) {
            bg_walker_t *x = &B.bgw[w];
            const int64_t lo = x->in->member - B.members, c = x->in->coll_index;
            const int64_t nx = slot_at(lo, x->in->p, x->i, 1), pv = slot_at(lo, x->in->p, x->i, -1);
            x->next = walker[(B.fold ? B.fold->slot_sim[nx] : nx) * nc + c];
            x->prev = walker[(B.fold ? B.fold->slot_sim[pv] : pv) * nc + c];
            char name[48];
            snprintf(name, sizeof name, "gpu%" PRId64, x->in->member[x->i]);
            x->self = sg_host_by_name(name);
            snprintf(name, sizeof name, "gpu%" PRId64, B.members[nx]);
            x->to = sg_host_by_name(name);
            if (!x->self || !x->to || x->next < 0 || x->prev < 0) {
                free(walker);
                return -1;
            }
        }
        free(walker);
    }
    B.owner0 = owner0;
    for (int64_t w = 0; host && w < B.n_bgw; w++) host[w] = B.bgw[w].self;
    return B.n_bgw;
}

int rs_jc_engine_start(void) {
    for (int64_t w = 0; w < B.n_bgw; w++) {
        bg_walker_t *x = &B.bgw[w];
        rs_jc_route(x->self, x->to, &x->lat, &x->n_route, x->route);
    }
    for (int64_t w = 0; w < B.n_bgw; w++) {
        if (B.bgw[w].in->coll.steps > 0) bg_start(w, 0);
        else sgx_owner_done(B.owner0 + w);
    }
    return bg_failed ? -1 : 0;
}

int rs_jc_engine_failed(void) { return bg_failed; }
