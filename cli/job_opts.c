/* job_opts.c - options of a job of concurrent rings (job_opts.h). */
#ifdef RINGSIM_HAVE_SIM
#include "job_opts.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <stddef.h>

static int parse_order(void *dst, const char *arg, rs_err_t *err) {
    return rs_placement_order_parse(arg, ((rs_cli_job_t *)dst)->order, err);
}

static int parse_fabric(void *dst, const char *arg, rs_err_t *err) {
    if (rs_fabric_kind_parse(arg, &((rs_cli_job_t *)dst)->fabric) != 0)
        return rs_errf(err, "--fabric %s: expected flat, leaf-spine or rail", arg);
    return 0;
}

static int parse_oversub(void *dst, const char *arg, rs_err_t *err) {
    double *o = &((rs_cli_job_t *)dst)->oversub;
    if (rs_parse_double("--oversub", arg, -1e300, 1e6, o, err) != 0) return -1;
    if (*o < 1) return rs_errf(err, "--oversub %s: must be >= 1 (leaf downlink : uplink capacity; 1 = non-blocking)", arg);
    return 0;
}

static int parse_background(void *dst, const char *arg, rs_err_t *err) {
    if (rs_bg_kind_parse(arg, &((rs_cli_job_t *)dst)->background) != 0)
        return rs_errf(err, "--background %s: expected none, dp (gradient all-reduce) or fsdp (all-gather, reduce-scatter)", arg);
    return 0;
}

static int parse_bg_group(void *dst, const char *arg, rs_err_t *err) {
    if (rs_bg_group_parse(arg, &((rs_cli_job_t *)dst)->bg_group) != 0)
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
    {"tp", 0, "T", "1", "tensor-parallel degree: R = T x P rings", RS_ARG_SIZE, O(tp), 1, 1 << 24, NULL, NULL,
     "Concurrent rings (any of these simulates a job of R rings on a generated fabric; docs/sim.md):"},
    {"dp", 0, "P", "1", "data-parallel degree", RS_ARG_SIZE, O(dp), 1, 1 << 24, NULL, NULL, NULL},
    {"cp", 0, "C", "-N", "context-parallel degree = ranks per ring", RS_ARG_SIZE, O(cp), 1, 1 << 24, NULL, NULL, NULL},
    {"devices", 0, "D", "T C P", "device count; the degrees must multiply to it", RS_ARG_SIZE, O(devices), 1, 1 << 24, NULL,
     NULL, NULL},
    {"order", 0, "O", "tp-cp-dp", "placement order, innermost first (tp-cp-dp: TP inside a node,\nCP across nodes; cp-tp-dp: rings inside nodes)",
     RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_order, NULL},
    {"map", 0, "FILE", "none", "explicit placement: one line per ring, its N device indices", RS_ARG_STRING, O(map), 0, 0, NULL,
     NULL, NULL},
    {"fabric", 0, "F", "flat", "flat (one switch), leaf-spine or rail (rail-optimised leaves)", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_fabric, NULL},
    {"nics", 0, "K", "G", "NICs per node, 1..G (device l uses NIC l K / G)", RS_ARG_SIZE, O(nics), 1, 1 << 20, NULL, NULL, NULL},
    {"nodes-per-leaf", 0, "M", "32 / K", "nodes under one leaf (rail: under one rail leaf)", RS_ARG_SIZE, O(nodes_per_leaf), 1,
     1 << 24, NULL, NULL, NULL},
    {"oversub", 0, "O", "1", "leaf downlink : uplink capacity, >= 1", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_oversub, NULL},
    {"background", 0, "B", "none", "none, dp (gradient all-reduce, backward) or fsdp (parameter\nall-gather; backward also the gradient reduce-scatter)",
     RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_background, NULL},
    {"bg-group", 0, "G", "dp-cp", "dp-cp (every device of a TP rank) or dp (same TP and CP rank)", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_bg_group, NULL},
    {"model", 0, "M", "none", "model preset sizing the background (one layer per device)", RS_ARG_STRING, O(model), 0, 0,
     NULL, NULL, NULL},
    {"bg-bytes", 0, "SIZE", "none", "or that layer's bytes directly", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_bg_bytes, NULL},
};
#undef O
const int rs_cli_job_n = RS_OPTS_N(rs_cli_job_opts);

rs_opt_group_t rs_cli_job_group(rs_cli_job_t *j) { return (rs_opt_group_t){rs_cli_job_opts, rs_cli_job_n, j, NULL, 0}; }

void rs_cli_job_init(rs_cli_job_t *j) {
    memset(j, 0, sizeof *j);
    j->tp = j->dp = 1;
    j->order[0] = RS_DIM_TP;
    j->order[1] = RS_DIM_CP;
    j->order[2] = RS_DIM_DP;
    j->fabric = RS_FABRIC_FLAT;
    j->oversub = 1;
    j->background = RS_BG_NONE;
    j->bg_group = RS_BG_GROUP_DP_CP;
}

int rs_cli_job_apply(const rs_cli_job_t *j, rs_setup_t *c, bool ranks_given, rs_err_t *err) {
    if (!j->any || j->cp == 0) return 0;
    if (ranks_given && c->problem.n_ranks != j->cp)
        return rs_errf(err, "--cp %" PRId64 " and -N %" PRId64 ": the CP degree is the ring's rank count (give one)", j->cp,
                       c->problem.n_ranks);
    c->problem.n_ranks = j->cp;
    return 0;
}

static int build_placement(const rs_cli_job_t *j, const rs_setup_t *c, rs_placement_t *p, rs_err_t *err) {
    const int64_t n = c->problem.n_ranks;
    if (j->map) {
        if (j->tp != 1 || j->dp != 1)
            return rs_errf(err, "--map %s places every ring itself: --tp and --dp do not apply", j->map);
        return rs_placement_load_map(j->map, n, j->devices, p, err);
    }
    return rs_placement_grid(j->tp, n, j->dp, j->order, j->devices, p, err);
}

static int build_background(const rs_cli_job_t *j, const rs_setup_t *c, rs_background_t *bg, rs_err_t *err) {
    memset(bg, 0, sizeof *bg);
    bg->kind = j->background;
    bg->group = j->bg_group;
    if (bg->kind == RS_BG_NONE) return 0;
    if (j->bg_bytes > 0) {
        bg->param_bytes = bg->grad_bytes = j->bg_bytes;
        return 0;
    }
    if (!j->model)
        return rs_errf(err, "--background %s: size it with --model NAME (a preset, e.g. llama3-8b) or --bg-bytes SIZE",
                       rs_bg_kind_name(bg->kind));
    rs_transformer_t t;
    if (rs_transformer_load(j->model, &t, err) != 0) return -1;
    rs_background_size(bg, &t, j->map ? 1 : j->tp, c->problem.act_bytes, c->problem.grad_bytes);
    return 0;
}

int rs_cli_job_build(const rs_cli_job_t *j, const rs_setup_t *c, rs_job_t *job, rs_err_t *err) {
    memset(job, 0, sizeof *job);
    if (build_placement(j, c, &job->placement, err) != 0) return -1;
    const rs_machine_t *m = &c->machine;
    rs_fabric_t *f = &job->fabric;
    rs_fabric_default(f, m, job->placement.devices, rs_machine_flops_eff(m, (double)rs_problem_block(&c->problem)));
    f->kind = j->fabric;
    if (j->nics > 0) f->nics_per_node = j->nics;
    if (j->nodes_per_leaf > 0) f->nodes_per_leaf = j->nodes_per_leaf;
    f->oversub = j->oversub;
    int rc = rs_fabric_validate(f, err);
    if (rc == 0 && rs_fabric_nodes(f) > 1 && !c->hw.has_inter)
        rc = rs_errf(err, "%" PRId64 " devices on nodes of %" PRId64 ": profile %s has no inter-node tier (give --inter TIER, "
                          "e.g. ib-ndr, or --inter-bw)", f->devices, f->devices_per_node, c->hw.name);
    if (rc == 0) rc = build_background(j, c, &job->background, err);
    if (rc == 0) rc = rs_job_validate(job, err);
    if (rc != 0) rs_job_free(job);
    return rc;
}

#endif /* RINGSIM_HAVE_SIM */
