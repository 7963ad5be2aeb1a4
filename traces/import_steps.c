/* import_steps.c - step assignment of the import (import_steps.h): each raw kernel of each rank gets
 * its ring pass instance and step, by step ranges (the range holding its launch) or, without ranges,
 * by the launch order of the ring's point-to-point groups and attention runs, the other kernels of
 * the compute streams going to the step they are launched in (docs/import.md, "Steps without
 * ranges"); then every rank is checked to have N or N + 1 steps per pass and as many passes as rank 0. */
#include "import_steps.h"

#include <stdlib.h>
#include <string.h>

#include "import_groups.h"
#include "import_kclass.h"

void rs_steps_free(rs_steps_t *a) {
    free(a->inst), free(a->step), free(a->insts);
    memset(a, 0, sizeof *a);
}

static int add_inst(rs_steps_t *a, rs_pass_t pass, int n_steps) {
    if (a->n_insts == a->cap_insts) {
        int cap = a->cap_insts ? 2 * a->cap_insts : 8;
        rs_steps_inst_t *v = realloc(a->insts, (size_t)cap * sizeof *v);
        if (!v) return -1;
        a->insts = v;
        a->cap_insts = cap;
    }
    a->insts[a->n_insts] = (rs_steps_inst_t){pass, n_steps};
    return a->n_insts++;
}

/* ------------------------------------------------------------------------------------------------
 * By launch order
 * ---------------------------------------------------------------------------------------------- */
/* Launch order: correlation id when every kernel has one, else GPU start. */
static const rs_raw_kernel_t *g_sort_k;
static int g_sort_by_order;
static int launch_cmp(const void *a, const void *b) {
    const rs_raw_kernel_t *x = &g_sort_k[*(const size_t *)a], *y = &g_sort_k[*(const size_t *)b];
    if (g_sort_by_order && x->order != y->order) return x->order < y->order ? -1 : 1;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    if (x->end_ns != y->end_ns) return x->end_ns < y->end_ns ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* The kernels of r in launch order (all of them, *n = r->nk). NULL on OOM. */
static size_t *launch_order(const rs_raw_rank_t *r) {
    size_t *ord = malloc((r->nk ? r->nk : 1) * sizeof *ord);
    if (!ord) return NULL;
    int by_order = 1;
    for (size_t i = 0; i < r->nk; i++) {
        ord[i] = i;
        if (r->k[i].order < 0) by_order = 0;
    }
    g_sort_k = r->k;
    g_sort_by_order = by_order;
    if (r->nk > 1) qsort(ord, r->nk, sizeof *ord, launch_cmp);
    return ord;
}

/* The compute streams of r: the streams its attention kernels run on (at most 16; more count as
 * one more). */
typedef struct {
    int64_t s[16];
    int n;
} streams_t;

static void compute_streams(const rs_raw_rank_t *r, streams_t *cs) {
    cs->n = 0;
    for (size_t i = 0; i < r->nk; i++) {
        if (!rs_krole_is_attn(r->k[i].role)) continue;
        int j = 0;
        while (j < cs->n && cs->s[j] != r->k[i].stream) j++;
        if (j == cs->n && cs->n < 16) cs->s[cs->n++] = r->k[i].stream;
    }
}

static bool on_compute_stream(const streams_t *cs, int64_t stream) {
    for (int j = 0; j < cs->n; j++)
        if (cs->s[j] == stream) return true;
    return false;
}

/* Tokens of the launch order: runs of SendRecv kernels (groups) and of attention kernels of one pass. */
typedef struct {
    size_t b, e;      /* [b, e) into the launch order */
    bool attn;        /* attention run (else SendRecv group) */
    rs_pass_t pass;   /* attention runs: their pass */
} tok_t;

typedef struct {
    const rs_raw_rank_t *r;
    const size_t *ord;
    tok_t *tok;
    size_t n_tok;
    int rank, n;      /* ring rank, N */
    rs_steps_t *a;
} order_ctx_t;

static void mark(order_ctx_t *c, size_t b, size_t e, int inst, int step) {
    for (size_t i = b; i < e; i++) {
        c->a->inst[c->ord[i]] = inst;
        c->a->step[c->ord[i]] = step;
    }
}

/* Split the forward's last attention run [b, e) into steps N-2 and N-1: step N-1 computes on the
 * block that the last SendRecv group (ending at g_end) brought, so it starts after that group ends;
 * among the kernels that do, it begins after the widest idle gap of the run. Returns the first
 * kernel of step N-1, or 0 when the run holds one kernel only. */
static size_t split_last(const order_ctx_t *c, size_t b, size_t e, int64_t g_end) {
    if (e - b < 2) return 0;
    const rs_raw_kernel_t *k = c->r->k;
    for (int pass = 0; pass < 2; pass++) {
        size_t best = 0;
        int64_t best_gap = INT64_MIN, prev_end = k[c->ord[b]].end_ns;
        for (size_t i = b + 1; i < e; i++) {
            const rs_raw_kernel_t *x = &k[c->ord[i]];
            int64_t gap = x->start_ns - prev_end;
            if ((pass == 1 || x->start_ns >= g_end) && gap > best_gap) best_gap = gap, best = i;
            if (x->end_ns > prev_end) prev_end = x->end_ns;
        }
        if (best) return best;
    }
    return 0;
}

static int64_t group_end(const order_ctx_t *c, const tok_t *t) {
    int64_t e = INT64_MIN;
    for (size_t i = t->b; i < t->e; i++) e = c->r->k[c->ord[i]].end_ns > e ? c->r->k[c->ord[i]].end_ns : e;
    return e;
}

/* One ring pass from token *t on (see docs/import.md, "Steps without ranges"). Returns 0 or -1. */
static int parse_pass(order_ctx_t *c, size_t *t, rs_pass_t pass, rs_err_t *err) {
    const char *file = c->r->file;
    int n = c->n, n_groups = pass == RS_PASS_FORWARD ? n - 1 : n + 1, n_steps = pass == RS_PASS_FORWARD ? n : n + 1;
    int inst = add_inst(c->a, pass, n_steps);
    if (inst < 0) return rs_errf(err, "out of memory");
    for (int k = 0; k < n_groups; k++) {
        tok_t *g = *t < c->n_tok ? &c->tok[*t] : NULL;
        if (!g || g->attn)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d step %d: no SendRecv kernel (%d SendRecv groups in this pass, a ring of N = %d ranks needs %d)",
                           file, c->rank, rs_pass_name(pass), inst, k, k, n, n_groups);
        bool tail = pass == RS_PASS_BACKWARD && k == n;
        size_t ge = g->e;
        if (tail && *t + 1 < c->n_tok) { /* the group also starts the next pass: its first kernel ends this one */
            if (g->e - g->b < 2)
                return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d backward ring pass %d: no SendRecv kernel for the tail step %d (dK,dV home) before the next pass",
                               file, c->rank, inst, k);
            ge = g->b + 1;
        }
        mark(c, g->b, ge, inst, k);
        if (ge < g->e) {
            g->b = ge;
        } else {
            (*t)++;
        }
        if (tail) break;
        tok_t *r = *t < c->n_tok ? &c->tok[*t] : NULL;
        if (!r || !r->attn || r->pass != pass)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d step %d: no %s attention kernel after its SendRecv kernels",
                           file, c->rank, rs_pass_name(pass), inst, k, rs_pass_name(pass));
        if (pass == RS_PASS_FORWARD && k == n - 2) {
            size_t s = split_last(c, r->b, r->e, group_end(c, &c->tok[*t - 1]));
            if (!s)
                return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d forward ring pass %d: no attention kernel for the last step %d (one kernel after step %d's SendRecv)",
                               file, c->rank, inst, n - 1, n - 2);
            mark(c, r->b, s, inst, k);
            mark(c, s, r->e, inst, k + 1);
        } else {
            mark(c, r->b, r->e, inst, k);
        }
        (*t)++;
    }
    return 0;
}

/* The other kernels of the compute streams, in launch order (all[0..n)), go to the step of the ring
 * kernel launched last before them: a step's merges, casts and other work; nothing for the backward's
 * tail step (no compute) or before a pass's first ring kernel. After the forward's last attention
 * kernel only the unbroken run of merge and cast kernels that follows it (its merges, the pass's
 * epilogue): what comes after is the rest of the layer. */
static void attach_compute(const rs_raw_rank_t *r, const size_t *all, int n, const streams_t *cs, rs_steps_t *a) {
    int inst = -1, step = -1;
    bool tail = false, broken = false;
    for (size_t i = 0; i < r->nk; i++) {
        const size_t x = all[i];
        const int role = r->k[x].role;
        if (rs_krole_is_ring(role)) {
            inst = a->inst[x], step = a->step[x];
            tail = inst >= 0 && rs_krole_is_attn(role) && a->insts[inst].pass == RS_PASS_FORWARD && step == n - 1;
            broken = false;
            continue;
        }
        if (inst < 0 || !rs_krole_is_compute(role) || !on_compute_stream(cs, r->k[x].stream)) continue;
        if (a->insts[inst].pass == RS_PASS_BACKWARD && step == n) continue;
        if (tail) {
            if (broken || (role != RS_KROLE_MERGE && role != RS_KROLE_CAST)) {
                broken = true;
                continue;
            }
        }
        a->inst[x] = inst, a->step[x] = step;
    }
}

/* Steps from the launch order of one rank. */
static int assign_by_order(const rs_raw_rank_t *r, int rank, int n, rs_steps_t *a, rs_err_t *err) {
    size_t *all = launch_order(r), *ord = malloc((r->nk ? r->nk : 1) * sizeof *ord);
    tok_t *tok = malloc((r->nk ? r->nk : 1) * sizeof *tok);
    if (!all || !ord || !tok) {
        free(all), free(ord), free(tok);
        return rs_errf(err, "out of memory");
    }
    size_t nr = 0;
    for (size_t i = 0; i < r->nk; i++) /* the ring's kernels in launch order: the tokens are over these */
        if (rs_krole_is_ring(r->k[all[i]].role)) ord[nr++] = all[i];
    size_t nt = 0;
    for (size_t i = 0; i < nr; i++) {
        int role = r->k[ord[i]].role;
        bool at = rs_krole_is_attn(role);
        rs_pass_t p = rs_krole_pass(role);
        if (nt && tok[nt - 1].attn == at && (!at || tok[nt - 1].pass == p)) {
            tok[nt - 1].e = i + 1;
        } else {
            tok[nt++] = (tok_t){i, i + 1, at, p};
        }
    }
    order_ctx_t c = {r, ord, tok, nt, rank, n, a};
    int rc = 0;
    size_t t = 0;
    while (rc == 0 && t < nt) {
        size_t j = t;
        while (j < nt && !tok[j].attn) j++;
        if (j == nt) {
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d: %zu point-to-point kernel(s) after the last attention kernel belong to no ring pass",
                         r->file, rank, tok[t].e - tok[t].b);
            break;
        }
        if (j == t) {
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d: attention kernels before any point-to-point kernel of the ring (a ring pass cut by the "
                                                "profiling window, or attention outside the ring: give step ranges, --profiler-step or --window)",
                         r->file, rank);
            break;
        }
        rc = parse_pass(&c, &t, tok[j].pass, err);
    }
    if (rc == 0) {
        streams_t cs;
        compute_streams(r, &cs);
        attach_compute(r, all, n, &cs, a);
    }
    free(all), free(ord), free(tok);
    return rc;
}

/* ------------------------------------------------------------------------------------------------
 * By step ranges
 * ---------------------------------------------------------------------------------------------- */
/* Range index containing t: the latest-starting range with start <= t <= end (ranges sorted by
 * start), or -1. */
static long range_at(const rs_raw_range_t *g, size_t n, int64_t t) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g[mid].start_ns <= t) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i-- > 0 && lo - i <= 64;)
        if (g[i].end_ns >= t) return (long)i;
    return -1;
}

static int range_cmp(const void *a, const void *b) {
    const rs_raw_range_t *x = a, *y = b;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    return (x->end_ns < y->end_ns) - (x->end_ns > y->end_ns); /* outer first */
}

/* An attention kernel k launched at t outside every step range: refused when t lies between two
 * consecutive step ranges of one ring pass (its step is unknown), else left out (attention outside
 * the ring). 0 or -1 with err. */
static int outside_ranges(const rs_raw_rank_t *r, const rs_raw_t *raw, int rank, const int32_t *inst_of, int64_t t, const rs_raw_kernel_t *k,
                          rs_err_t *err) {
    size_t i = 0;
    while (i < r->nr && r->r[i].start_ns <= t) i++; /* r->r[i - 1] starts before t, r->r[i] after */
    if (i == 0 || i == r->nr || inst_of[i - 1] != inst_of[i]) return 0;
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d: attention kernel '%.60s' launched at %.3f us outside every step range, between '%s' and "
                   "'%s' of one ring pass: its step is unknown (put every launch of a step inside its range)",
                   r->file, rank, raw->names[k->name], (double)(t - r->r[0].start_ns) * 1e-3, raw->names[r->r[i - 1].name],
                   raw->names[r->r[i].name]);
}

/* Steps from step ranges of one rank: each kernel of the ring, and each other kernel of its compute
 * streams, goes to the range holding its launch (its GPU start when the launch was not recorded);
 * consecutive ranges numbered 0, 1, ... form a ring pass. */
static int assign_by_ranges(rs_raw_rank_t *r, const rs_raw_t *raw, int rank, rs_steps_t *a, rs_err_t *err) {
    qsort(r->r, r->nr, sizeof *r->r, range_cmp);
    int32_t *inst_of = malloc(r->nr * sizeof *inst_of);
    int8_t *pass_of = malloc((size_t)r->nr + 1);
    if (!inst_of || !pass_of) {
        free(inst_of), free(pass_of);
        return rs_errf(err, "out of memory");
    }
    int rc = 0, cur = -1;
    for (size_t i = 0; i < r->nr && rc == 0; i++) {
        const rs_raw_range_t *g = &r->r[i];
        if (g->step == 0 || cur < 0) {
            if (g->step != 0) {
                rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d: step range '%s' (step %d) is the first of its ring pass; expected step 0",
                             r->file, rank, raw->names[g->name], (int)g->step);
                break;
            }
            if ((cur = add_inst(a, RS_PASS_FORWARD, 0)) < 0) rc = rs_errf(err, "out of memory");
        } else if (g->step != a->insts[cur].n_steps) {
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d: step range '%s' (step %d) follows step %d; expected step %d or a new pass at 0",
                         r->file, rank, raw->names[g->name], (int)g->step, a->insts[cur].n_steps - 1, a->insts[cur].n_steps);
        }
        if (rc == 0) {
            inst_of[i] = cur;
            a->insts[cur].n_steps++;
            pass_of[i] = g->pass_hint;
        }
    }
    int8_t *inst_pass = rc == 0 ? malloc((size_t)a->n_insts + 1) : NULL;
    if (rc == 0 && !inst_pass) rc = rs_errf(err, "out of memory");
    for (int i = 0; rc == 0 && i < a->n_insts; i++) inst_pass[i] = -1;
    for (size_t i = 0; rc == 0 && i < r->nr; i++)
        if (pass_of[i] >= 0) inst_pass[inst_of[i]] = pass_of[i];
    streams_t cs;
    compute_streams(r, &cs);
    for (size_t i = 0; rc == 0 && i < r->nk; i++) {
        const rs_raw_kernel_t *k = &r->k[i];
        if (!rs_krole_is_ring(k->role) && !(rs_krole_is_compute(k->role) && on_compute_stream(&cs, k->stream))) continue;
        const int64_t t = k->launch_ns != RS_RAW_NO_TIME ? k->launch_ns : k->start_ns;
        long g = range_at(r->r, r->nr, t);
        if (g < 0) { /* outside every step range: not part of the ring, unless between two steps of a pass */
            if (rs_krole_is_attn(k->role)) rc = outside_ranges(r, raw, rank, inst_of, t, k, err);
            continue;
        }
        int in = inst_of[g];
        a->inst[i] = in;
        a->step[i] = r->r[g].step;
        if (!rs_krole_is_attn(k->role)) continue;
        int p = rs_krole_pass(k->role);
        if (inst_pass[in] >= 0 && inst_pass[in] != p)
            rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d: step range '%s' holds %s attention kernel '%.80s' in a %s ring pass", r->file, rank,
                         raw->names[r->r[g].name], rs_pass_name((rs_pass_t)p), raw->names[k->name],
                         rs_pass_name((rs_pass_t)inst_pass[in]));
        inst_pass[in] = (int8_t)p;
    }
    for (int i = 0; rc == 0 && i < a->n_insts; i++) a->insts[i].pass = inst_pass[i] == RS_PASS_BACKWARD ? RS_PASS_BACKWARD : RS_PASS_FORWARD;
    free(inst_of), free(pass_of), free(inst_pass);
    return rc;
}

/* ------------------------------------------------------------------------------------------------
 * Every rank
 * ---------------------------------------------------------------------------------------------- */
int rs_import_assign_steps(rs_raw_t *raw, bool use_ranges, rs_steps_t *as, bool *ranges, rs_err_t *err) {
    int n = (int)raw->n_ranks;
    size_t with_ranges = 0;
    for (int r = 0; r < n; r++) with_ranges += raw->ranks[r].nr > 0;
    *ranges = use_ranges && with_ranges > 0;
    for (int r = 0; r < n; r++) {
        const rs_raw_rank_t *rr = &raw->ranks[r];
        if (*ranges && rr->nr == 0)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d has no step ranges but %s has: give every rank the same ranges, or --no-ranges", rr->file, r,
                           raw->ranks[r == 0 ? 1 : 0].file);
        bool attn = false;
        for (size_t i = 0; i < rr->nk && !attn; i++) attn = rs_krole_is_attn(rr->k[i].role);
        if (!attn) {
            char seen[512];
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d: no attention kernel among its %s (FlashAttention 2/3/4, cuDNN, fmha_cutlass, "
                           "CK / aiter, Triton, flashinfer, ringsim's names are known); name yours with --role-regex attn=RE",
                           rr->file, r, rs_import_kernels_seen(raw, rr, seen, sizeof seen));
        }
        as[r].inst = malloc((rr->nk ? rr->nk : 1) * sizeof *as[r].inst);
        as[r].step = malloc((rr->nk ? rr->nk : 1) * sizeof *as[r].step);
        if (!as[r].inst || !as[r].step) return rs_errf(err, "out of memory");
        for (size_t i = 0; i < rr->nk; i++) as[r].inst[i] = -1;
        int rc = *ranges ? assign_by_ranges(&raw->ranks[r], raw, r, &as[r], err) : assign_by_order(rr, r, n, &as[r], err);
        if (rc != 0) return -1;
        for (int i = 0; i < as[r].n_insts; i++) {
            int want = as[r].insts[i].pass == RS_PASS_FORWARD ? n : n + 1;
            if (as[r].insts[i].n_steps != want)
                return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d has %d steps; a ring of N = %d ranks has %d%s", rr->file, r,
                               rs_pass_name(as[r].insts[i].pass), i, as[r].insts[i].n_steps, n, want,
                               as[r].insts[i].pass == RS_PASS_BACKWARD ? " (steps 0..N: the tail step N brings dK,dV home)" : "");
        }
    }
    for (int p = 0; p < RS_PASS_COUNT; p++) {
        int c0 = -1;
        for (int r = 0; r < n; r++) {
            int c = 0;
            for (int i = 0; i < as[r].n_insts; i++) c += as[r].insts[i].pass == (rs_pass_t)p;
            if (r > 0 && c != c0)
                return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d has %d %s ring pass(es) but rank 0 (%s) has %d: ranks with different step counts",
                               raw->ranks[r].file, r, c, rs_pass_name((rs_pass_t)p), raw->ranks[0].file, c0);
            c0 = c;
        }
    }
    return 0;
}
