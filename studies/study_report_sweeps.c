/* study_report_sweeps.c - the report's sweeps (study_report_state.h): the B sweeps across the
 * overlap threshold (full blocks and causal, zigzag forward), the N scaling at the problem's S and
 * the B scaling at its N for three machines (the sweep study, CSVs in data/), and the contention
 * figure's job: the report's ring as a job of concurrent rings over NICs per node and spine (the
 * contention study, with the simulator). */
#include "study_report_state.h"

#include <stdlib.h>
#include <string.h>

#ifdef RINGSIM_HAVE_SIM
#include "study_contention.h"
#endif

/* One scaling sweep: N at the report's S (over_n), or B at its N. */
static int scaling(report_t *r, rs_sweep_spec_t *spec, bool over_n, bool quick, sweep_t *out, rs_err_t *err) {
    const char *range = over_n ? (quick ? "2:16:x2" : "2:128:x2") : (quick ? "256:16K:x4" : "256:64K:x2");
    const rs_sweep_range_t axis = {over_n ? "--ranks" : "--block", 1, INT32_MAX, over_n ? spec->ranks : spec->blocks,
                                   RS_SWEEP_MAX_VALUES};
    const int n = rs_sweep_range_parse(&axis, range, err);
    spec->n_seqs = over_n ? 1 : 0;
    spec->seqs[0] = r->p0->seq_tokens;
    spec->n_blocks = over_n ? 0 : n;
    spec->n_ranks = over_n ? n : 1;
    if (!over_n) spec->ranks[0] = r->p0->n_ranks;
    snprintf(r->path, sizeof r->path, "%s/data/scaling-%s.csv", r->dir, over_n ? "n" : "b");
    return rs_rep_run_sweep(spec, r->path, over_n ? "ringsim report (N scaling at fixed S)" : "ringsim report (B scaling at fixed N)",
                     out, err);
}

int rs_rep_sweeps(report_t *r, rs_err_t *err) {
    rs_sweep_spec_t *spec = r->spec;
    const rs_setup_t *c = r->c;
    const bool quick = r->in->quick;
    rs_rep_phase(r, 2, "sweeps");
    spec->common = *c;
    spec->common.n_layouts = 1;
    spec->common.layouts[0] = RS_LAYOUT_ZIGZAG;
    spec->common.n_passes = 1;
    spec->common.passes[0] = RS_PASS_FORWARD;
    spec->run_sim = r->sim != NULL;
    spec->run_exec = false;
    const rs_sweep_range_t blocks = {"--block", 1, INT32_MAX, spec->blocks, RS_SWEEP_MAX_VALUES};
    spec->n_blocks = rs_sweep_range_parse(&blocks, quick ? "256:16K:x4" : "64:64K:x2", err);
    spec->common.problem.causal = false;
    snprintf(r->path, sizeof r->path, "%s/data/sweep-b.csv", r->dir);
    if (rs_rep_run_sweep(spec, r->path, "ringsim report (B sweep, full blocks)", &r->sb, err) != 0) return -1;
    spec->common.problem.causal = true;
    snprintf(r->path, sizeof r->path, "%s/data/sweep-b-causal.csv", r->dir);
    if (rs_rep_run_sweep(spec, r->path, "ringsim report (B sweep, causal)", &r->sbc, err) != 0) return -1;
    /* scaling: N at fixed S, and B at fixed N, for three machines: the report's profile, the same
     * devices one per node (every hop over its inter-node tier, when it has one), and a third
     * vendor: h100-sxm, h100-sxm:g1, mi300x by default */
    spec->common.problem.causal = r->p0->causal;
    spec->n_profiles = 0;
    snprintf(spec->profiles[spec->n_profiles++], sizeof spec->profiles[0], "%.500s", c->spec.profile);
    if (c->hw.has_inter && !strchr(c->spec.profile, ':'))
        snprintf(spec->profiles[spec->n_profiles++], sizeof spec->profiles[0], "%.500s:g1", c->spec.profile);
    snprintf(spec->profiles[spec->n_profiles++], sizeof spec->profiles[0], "%s",
             strcmp(c->spec.profile, "mi300x") == 0 ? "h100-sxm" : "mi300x");
    spec->common.spec.flops = spec->common.spec.bw = spec->common.spec.inter_bw = 0;
    if (scaling(r, spec, true, quick, &r->sn, err) != 0) return -1;
    return scaling(r, spec, false, quick, &r->sbb, err);
}

/* ------------------------------------------------------------------------------------------------
 * The contention figure: the report's ring as a job of TP = G concurrent rings (one per device of a
 * node, every hop across nodes), over NICs per node and a 1:1 or 2:1 spine (one node per leaf)
 * ---------------------------------------------------------------------------------------------- */
#ifdef RINGSIM_HAVE_SIM
/* One sentence from the points: efficiency at K = 1 and K = G for each ratio. */
static void contention_note(report_t *r, const rs_contention_out_t *o, int64_t g, int64_t n, int64_t b) {
    char *s = r->cont_note;
    const size_t len = sizeof r->cont_note;
    snprintf(s, len,
             "%lld rings (TP %lld fills each node) of N = %lld ranks, B = %lld, zigzag forward, every hop across nodes, one "
             "node per leaf (data/contention.csv): balance efficiency",
             (long long)g, (long long)g, (long long)n, (long long)b);
    bool first = true;
    for (size_t i = 0; i < o->done; i++) {
        const rs_contention_point_t *pt = &o->points[i];
        if (pt->pick.nics != 1 && pt->pick.nics != g) continue;
        snprintf(s + strlen(s), len - strlen(s), "%s %.3f with %lld NIC%s per node at %.3g:1", first ? "" : ";", pt->balance_efficiency,
                 (long long)pt->pick.nics, pt->pick.nics == 1 ? "" : "s", pt->pick.oversub);
        first = false;
    }
    snprintf(s + strlen(s), len - strlen(s), " (%.3f without contention).", o->done ? o->points[0].balance_efficiency_free : 0.0);
}
#endif

void rs_rep_contention(report_t *r) {
#ifdef RINGSIM_HAVE_SIM
    const int64_t g = r->m->devices_per_node;
    if (!r->sim) return (void)snprintf(r->cont_note, sizeof r->cont_note, "No contention figure: %s.", r->sim_why[0] ? r->sim_why : "the simulator does not run");
    if (g < 2 || !r->c->hw.has_inter)
        return (void)snprintf(r->cont_note, sizeof r->cont_note, "No contention figure: the machine has %s.",
                              g < 2 ? "one device per node" : "no inter-node tier");
    rs_rep_phase(r, 3, "contention");
    rs_contention_case_t cs;
    memset(&cs, 0, sizeof cs);
    snprintf(cs.profile, sizeof cs.profile, "%s", r->c->spec.profile);
    cs.problem = *r->p0;
    cs.problem.layout = RS_LAYOUT_ZIGZAG;
    cs.problem.pass = RS_PASS_FORWARD;
    const int64_t b = rs_problem_block(r->p0);
    while (cs.problem.n_ranks > 2 && cs.problem.n_ranks * g > 256) cs.problem.n_ranks /= 2; /* at most 256 devices */
    cs.problem.seq_tokens = b * cs.problem.n_ranks;
    cs.machine = *r->m;
    rs_contention_knobs_t k;
    rs_contention_knobs_default(&k);
    k.tp = g;
    k.fabrics[0] = RS_FABRIC_LEAF_SPINE;
    k.nodes_per_leaf = 1;
    k.n_nics = 0;
    for (int64_t n = 1; n < g && k.n_nics < RS_CONT_MAX_VALUES - 1; n *= 2) k.nics[k.n_nics++] = n;
    k.nics[k.n_nics++] = g;
    k.n_oversubs = 2;
    k.oversubs[1] = 2;
    snprintf(r->path, sizeof r->path, "%s/data/contention.csv", r->dir);
    rs_contention_in_t in = {&cs, 1, &k, r->path, NULL, "ringsim report (concurrent rings over NICs per node and spine)", true, false};
    rs_contention_out_t o;
    rs_err_t e;
    if (rs_problem_validate(&cs.problem, &e) != 0 || rs_study_contention(&in, &o, &e) != 0) {
        snprintf(r->cont_note, sizeof r->cont_note, "No contention figure: %.800s", e.msg);
    } else {
        r->have_cont = true;
        contention_note(r, &o, g, cs.problem.n_ranks, b);
    }
    free(o.points);
#else
    snprintf(r->cont_note, sizeof r->cont_note, "No contention figure: this build has no simulator.");
#endif
}
