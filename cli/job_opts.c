/* job_opts.c - options of a job of concurrent rings (job_opts.h). */
#ifdef RINGSIM_HAVE_SIM
#include "job_opts.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <stddef.h>

/* One of the knobs that take a comma list (--order, --fabric, --nics, --oversub): its name, how one
 * item is read into value i, and where the count goes. */
typedef struct {
    const char *name;                                                          /* "nics" */
    int (*one)(rs_contention_knobs_t *k, int i, const char *item, rs_err_t *err); /* item i */
    size_t count;                                                              /* offsetof its int count */
} knob_list_t;

/* The comma list arg of knob l into up to RS_CONT_MAX_VALUES values of j's knobs, each through
 * l->one; the count (-1 on failure) into the knobs. Returns 0 or -1 with err. */
static int parse_list(const knob_list_t *l, void *j, const char *arg, rs_err_t *err) {
    rs_contention_knobs_t *k = &((rs_cli_job_t *)j)->k;
    int *count = (int *)(void *)((char *)k + l->count);
    *count = -1;
    char buf[1024];
    if (strlen(arg) >= sizeof buf) return rs_errf(err, "--%s: list too long", l->name);
    snprintf(buf, sizeof buf, "%s", arg);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == RS_CONT_MAX_VALUES) return rs_errf(err, "--%s %s: at most %d values", l->name, arg, RS_CONT_MAX_VALUES);
        rs_err_t e = {0};
        if (l->one(k, n, t, &e) != 0) { /* the message quotes the whole list and names the item */
            char head[1100];
            const int h = snprintf(head, sizeof head, "--%s %s: ", l->name, t);
            const char *why = h < (int)sizeof head && !strncmp(e.msg, head, (size_t)h) ? e.msg + h : e.msg;
            return strcmp(t, arg) ? rs_errf(err, "--%s %s: '%s': %s", l->name, arg, t, why) : rs_errc(err, e.code, "%s", e.msg);
        }
        n++;
    }
    if (n == 0) return rs_errf(err, "--%s '%s': expected a value or a comma list", l->name, arg);
    *count = n;
    return 0;
}

static int one_order(rs_contention_knobs_t *k, int i, const char *item, rs_err_t *err) {
    return rs_placement_order_parse(item, k->orders[i], err);
}
static int one_fabric(rs_contention_knobs_t *k, int i, const char *item, rs_err_t *err) {
    if (rs_fabric_kind_parse(item, &k->fabrics[i]) != 0) return rs_errf(err, "--fabric %s: expected flat, leaf-spine or rail", item);
    return 0;
}
static int one_nics(rs_contention_knobs_t *k, int i, const char *item, rs_err_t *err) {
    return rs_parse_size("--nics", item, 1, 1 << 20, &k->nics[i], err);
}
static int one_oversub(rs_contention_knobs_t *k, int i, const char *item, rs_err_t *err) {
    rs_err_t e;
    if (rs_parse_double("--oversub", item, -1e300, 1e6, &k->oversubs[i], &e) != 0 || k->oversubs[i] < 1)
        return rs_errf(err, "--oversub %s: must be >= 1 (leaf downlink : uplink capacity; 1 = non-blocking), a number in [1, 1e+06]",
                       item);
    return 0;
}

#define N(field) offsetof(rs_contention_knobs_t, field)
static const knob_list_t orders = {"order", one_order, N(n_orders)}, fabrics = {"fabric", one_fabric, N(n_fabrics)},
                         nics = {"nics", one_nics, N(n_nics)}, oversubs = {"oversub", one_oversub, N(n_oversubs)};
#undef N
static int parse_order(void *dst, const char *arg, rs_err_t *err) { return parse_list(&orders, dst, arg, err); }
static int parse_fabric(void *dst, const char *arg, rs_err_t *err) { return parse_list(&fabrics, dst, arg, err); }
static int parse_nics(void *dst, const char *arg, rs_err_t *err) { return parse_list(&nics, dst, arg, err); }
static int parse_oversub(void *dst, const char *arg, rs_err_t *err) { return parse_list(&oversubs, dst, arg, err); }

static int parse_background(void *dst, const char *arg, rs_err_t *err) {
    if (rs_bg_kind_parse(arg, &((rs_cli_job_t *)dst)->k.background.kind) != 0)
        return rs_errf(err, "--background %s: expected none, dp (gradient all-reduce) or fsdp (all-gather, reduce-scatter)", arg);
    return 0;
}

static int parse_bg_group(void *dst, const char *arg, rs_err_t *err) {
    if (rs_bg_group_parse(arg, &((rs_cli_job_t *)dst)->k.background.group) != 0)
        return rs_errf(err, "--bg-group %s: expected dp-cp or dp", arg);
    return 0;
}

static int parse_bg_bytes(void *dst, const char *arg, rs_err_t *err) {
    int64_t v;
    if (rs_parse_size("--bg-bytes", arg, 1, INT64_C(1) << 50, &v, err)) return -1;
    ((rs_cli_job_t *)dst)->bg_bytes = (double)v;
    return 0;
}

#define O(field) offsetof(rs_cli_job_t, field)
const rs_opt_t rs_cli_job_opts[] = {
    {"tp", 0, "T", "1", "tensor-parallel degree: R = T x P rings", RS_ARG_SIZE, O(k.tp), 1, 1 << 24, NULL, NULL,
     "Concurrent rings (any of these simulates a job of R rings on a generated fabric; docs/sim.md):"},
    {"dp", 0, "P", "1", "data-parallel degree", RS_ARG_SIZE, O(k.dp), 1, 1 << 24, NULL, NULL, NULL},
    {"cp", 0, "C", "-N", "context-parallel degree = ranks per ring", RS_ARG_SIZE, O(cp), 1, 1 << 24, NULL, NULL, NULL},
    {"devices", 0, "D", "T C P", "device count; the degrees must multiply to it", RS_ARG_SIZE, O(k.devices), 1, 1 << 24, NULL,
     NULL, NULL},
    {"order", 0, "O[,O]", "tp-cp-dp", "placement order, innermost first (tp-cp-dp: TP inside a node,\nCP across nodes; cp-tp-dp: rings inside nodes)",
     RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_order, NULL},
    {"map", 0, "FILE", "none", "explicit placement: one line per ring, its N device indices", RS_ARG_IN, O(k.map), 0, 0, NULL,
     NULL, NULL},
    {"fabric", 0, "F[,F]", "flat", "flat (one switch), leaf-spine or rail (rail-optimised leaves)", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_fabric, NULL},
    {"nics", 0, "K[,K]", "G", "NICs per node, 1..G (device l uses NIC l K / G)", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_nics,
     NULL},
    {"nodes-per-leaf", 0, "M", "32 / K", "nodes under one leaf (rail: under one rail leaf)", RS_ARG_SIZE, O(k.nodes_per_leaf), 1,
     1 << 24, NULL, NULL, NULL},
    {"oversub", 0, "O[,O]", "1", "leaf downlink : uplink capacity, >= 1", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_oversub, NULL},
    {"background", 0, "B", "none", "none, dp (gradient all-reduce, backward) or fsdp (parameter\nall-gather; backward also the gradient reduce-scatter)",
     RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_background, NULL},
    {"bg-group", 0, "G", "dp-cp", "dp-cp (every device of a TP rank) or dp (same TP and CP rank)", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_bg_group, NULL},
    {"model", 0, "M", "none", "model preset sizing the background (one layer per device)", RS_ARG_IN, O(model), 0, 0,
     NULL, NULL, NULL},
    {"bg-bytes", 0, "SIZE", "none", "or that layer's bytes directly", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_bg_bytes, NULL},
};
#undef O
const int rs_cli_job_n = RS_OPTS_N(rs_cli_job_opts);

rs_opt_group_t rs_cli_job_group(rs_cli_job_t *j, const char *skip) {
    return (rs_opt_group_t){rs_cli_job_opts, rs_cli_job_n, j, skip, 0, false};
}

void rs_cli_job_init(rs_cli_job_t *j) {
    memset(j, 0, sizeof *j);
    rs_contention_knobs_default(&j->k);
}

int rs_cli_job_apply(const rs_cli_job_t *j, rs_setup_t *c, bool ranks_given, rs_err_t *err) {
    if (!j->any || j->cp == 0) return 0;
    if (ranks_given && c->problem.n_ranks != j->cp)
        return rs_errf(err, "--cp %" PRId64 " and -N %" PRId64 ": the CP degree is the ring's rank count (give one)", j->cp,
                       c->problem.n_ranks);
    c->problem.n_ranks = j->cp;
    return 0;
}

int rs_cli_job_background(rs_cli_job_t *j, const rs_problem_t *p, rs_err_t *err) {
    rs_background_t *bg = &j->k.background;
    if (bg->kind == RS_BG_NONE) return 0;
    if (j->bg_bytes > 0) {
        bg->param_bytes = bg->grad_bytes = j->bg_bytes;
        bg->model[0] = 0;
        return 0;
    }
    if (!j->model)
        return rs_errf(err, "--background %s: size it with --model NAME (a preset, e.g. llama3-8b) or --bg-bytes SIZE",
                       rs_bg_kind_name(bg->kind));
    rs_transformer_t t;
    if (rs_transformer_load(j->model, &t, err) != 0) return -1;
    rs_background_size(bg, &t, j->k.map ? 1 : j->k.tp, p->act_bytes, p->grad_bytes);
    return 0;
}

int rs_cli_job_background_passes(const rs_cli_job_t *j, const rs_setup_t *c, char *note, size_t note_len, rs_err_t *err) {
    const rs_background_t *bg = &j->k.background;
    if (note_len > 0) note[0] = 0;
    if (bg->kind == RS_BG_NONE) return 0;
    rs_bg_coll_t colls[RS_BG_MAX_COLL];
    char none[128] = "";
    int with = 0;
    for (int i = 0; i < c->n_passes; i++) {
        if (rs_background_colls(bg, c->passes[i], 2, colls) > 0) {
            with++;
        } else {
            const size_t used = strlen(none);
            snprintf(none + used, sizeof none - used, "%s%s", used ? ", " : "", rs_pass_name(c->passes[i]));
        }
    }
    const char *what = bg->kind == RS_BG_DP ? "the gradient all-reduce runs in the backward pass" : "its collectives run in the forward and backward passes";
    if (with == 0)
        return rs_errf(err, "--background %s: %s; -P %s has none (give -P backward or both)", rs_bg_kind_name(bg->kind), what, none);
    if (none[0] && note_len > 0)
        snprintf(note, note_len, "--background %s: %s; the %s rows run without it", rs_bg_kind_name(bg->kind), what, none);
    return 0;
}

int rs_cli_job_build(const rs_cli_job_t *j, const rs_setup_t *c, rs_job_t *job, rs_err_t *err) {
    memset(job, 0, sizeof *job);
    const rs_contention_knobs_t *k = &j->k;
    const char *many = k->n_orders > 1 ? "order" : k->n_fabrics > 1 ? "fabric" : k->n_nics > 1 ? "nics"
                       : k->n_oversubs > 1 ? "oversub" : NULL;
    if (many)
        return rs_errf(err, "--%s: ringsim sim simulates one value (sweep lists with ringsim sweep or plan --sim)", many);
    if (k->map && (k->tp != 1 || k->dp != 1))
        return rs_errf(err, "--map %s places every ring itself: --tp and --dp do not apply", k->map);
    const rs_contention_pick_t pick = {k->fabrics[0], 0, k->oversubs[0], k->nics[0]};
    if (rs_contention_job(k, &pick, &c->problem, &c->machine, job, err) != 0) return -1;
    if (rs_fabric_nodes(&job->fabric) > 1 && !c->hw.has_inter) {
        rs_errf(err, "%" PRId64 " devices on nodes of %" PRId64 ": profile %s has no inter-node tier (give --inter TIER, e.g. "
                     "ib-ndr, or --inter-bw)", job->fabric.devices, job->fabric.devices_per_node, c->hw.name);
        rs_job_free(job);
        return -1;
    }
    return 0;
}

#endif /* RINGSIM_HAVE_SIM */
