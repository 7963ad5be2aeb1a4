/* job_opts.c - options of a job of concurrent rings (job_opts.h). */
#ifdef RINGSIM_HAVE_SIM
#include "job_opts.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const struct option rs_cli_job_longopts[] = {
    {"tp", required_argument, NULL, RS_OPT_TP},
    {"cp", required_argument, NULL, RS_OPT_CP},
    {"dp", required_argument, NULL, RS_OPT_DP},
    {"devices", required_argument, NULL, RS_OPT_DEVICES},
    {"order", required_argument, NULL, RS_OPT_ORDER},
    {"map", required_argument, NULL, RS_OPT_MAP},
    {"fabric", required_argument, NULL, RS_OPT_FABRIC},
    {"nics", required_argument, NULL, RS_OPT_NICS},
    {"nodes-per-leaf", required_argument, NULL, RS_OPT_NODES_PER_LEAF},
    {"oversub", required_argument, NULL, RS_OPT_OVERSUB},
    {"background", required_argument, NULL, RS_OPT_BACKGROUND},
    {"bg-group", required_argument, NULL, RS_OPT_BG_GROUP},
    {"model", required_argument, NULL, RS_OPT_MODEL},
    {"bg-bytes", required_argument, NULL, RS_OPT_BG_BYTES},
};
const int rs_cli_job_n_longopts = (int)(sizeof rs_cli_job_longopts / sizeof rs_cli_job_longopts[0]);

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

int rs_cli_job_opt(rs_cli_job_t *j, int opt, const char *arg, rs_err_t *err) {
    if (opt <= RS_OPT_JOB_BEGIN || opt >= RS_OPT_JOB_END) return 0;
    j->any = true;
    switch (opt) {
    case RS_OPT_TP: return rs_parse_size("--tp", arg, 1, 1 << 24, &j->tp, err) ? -1 : 1;
    case RS_OPT_CP: return rs_parse_size("--cp", arg, 1, 1 << 24, &j->cp, err) ? -1 : 1;
    case RS_OPT_DP: return rs_parse_size("--dp", arg, 1, 1 << 24, &j->dp, err) ? -1 : 1;
    case RS_OPT_DEVICES: return rs_parse_size("--devices", arg, 1, 1 << 24, &j->devices, err) ? -1 : 1;
    case RS_OPT_ORDER: return rs_placement_order_parse(arg, j->order, err) ? -1 : 1;
    case RS_OPT_MAP: j->map = arg; return 1;
    case RS_OPT_FABRIC:
        if (rs_fabric_kind_parse(arg, &j->fabric) != 0)
            return rs_errf(err, "--fabric %s: expected flat, leaf-spine or rail", arg);
        return 1;
    case RS_OPT_NICS: return rs_parse_size("--nics", arg, 1, 1 << 20, &j->nics, err) ? -1 : 1;
    case RS_OPT_NODES_PER_LEAF: return rs_parse_size("--nodes-per-leaf", arg, 1, 1 << 24, &j->nodes_per_leaf, err) ? -1 : 1;
    case RS_OPT_OVERSUB:
        if (rs_parse_double("--oversub", arg, -1e9, 1e6, &j->oversub, err) != 0) return -1;
        if (j->oversub < 1)
            return rs_errf(err, "--oversub %s: must be >= 1 (leaf downlink : uplink capacity; 1 = non-blocking)", arg);
        return 1;
    case RS_OPT_BACKGROUND:
        if (rs_bg_kind_parse(arg, &j->background) != 0)
            return rs_errf(err, "--background %s: expected none, dp (gradient all-reduce) or fsdp (all-gather, reduce-scatter)", arg);
        return 1;
    case RS_OPT_BG_GROUP:
        if (rs_bg_group_parse(arg, &j->bg_group) != 0) return rs_errf(err, "--bg-group %s: expected dp-cp or dp", arg);
        return 1;
    case RS_OPT_MODEL: j->model = arg; return 1;
    case RS_OPT_BG_BYTES: {
        int64_t v;
        if (rs_parse_size("--bg-bytes", arg, 1, INT64_C(1) << 50, &v, err)) return -1;
        j->bg_bytes = (double)v;
        return 1;
    }
    default: return 0;
    }
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

struct option *rs_cli_job_merge_longopts(const struct option *own, int n_own) {
    const int n = n_own + rs_cli_job_n_longopts;
    struct option *mine = malloc(sizeof *mine * (size_t)n);
    if (!mine) return NULL;
    memcpy(mine, own, sizeof *own * (size_t)n_own);
    memcpy(mine + n_own, rs_cli_job_longopts, sizeof *own * (size_t)rs_cli_job_n_longopts);
    struct option *all = rs_cli_merge_longopts(mine, n);
    free(mine);
    return all;
}

void rs_cli_job_help(FILE *out) {
    fprintf(out,
            "Concurrent rings (any of these simulates a job of R rings on a generated fabric; docs/sim.md):\n"
            "      --tp T, --dp P       tensor- and data-parallel degrees: R = T x P rings   [1, 1]\n"
            "      --cp C               context-parallel degree = ranks per ring (= -N)      [-N]\n"
            "      --devices D          device count; the degrees must multiply to it        [T C P]\n"
            "      --order O            placement order, innermost first (tp-cp-dp: TP inside a node,\n"
            "                           CP across nodes; cp-tp-dp: rings inside nodes)     [tp-cp-dp]\n"
            "      --map FILE           explicit placement: one line per ring, its N device indices\n"
            "      --fabric F           flat (one switch), leaf-spine or rail (rail-optimised) [flat]\n"
            "      --nics K             NICs per node, 1..G (device l uses NIC l K / G)      [G]\n"
            "      --nodes-per-leaf M   nodes under one leaf (rail: per rail leaf)           [32 / K]\n"
            "      --oversub O          leaf downlink : uplink capacity, >= 1                [1]\n"
            "      --background B       none, dp (gradient all-reduce, backward) or fsdp (parameter\n"
            "                           all-gather; backward also gradient reduce-scatter)   [none]\n"
            "      --bg-group G         dp-cp (every device of a TP rank) or dp              [dp-cp]\n"
            "      --model M            model preset sizing the background (one layer per device)\n"
            "      --bg-bytes SIZE      or that layer's bytes directly\n");
}

#endif /* RINGSIM_HAVE_SIM */
