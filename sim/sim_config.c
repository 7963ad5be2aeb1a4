/* sim_config.c - the SimGrid backend's configuration (sim_config.h): its defaults, the checks of
 * what a caller asks for before a child starts (the machine, the platform options, the network
 * model and the --cfg settings, a job, pass-q's all-to-all return), and the SimGrid settings a run
 * passes. */
#include "sim_config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "job.h"

const char *rs_sim_engine_name(rs_sim_engine_t e) { return e == RS_SIM_ENGINE_FAST ? "activity" : "actor"; }

void rs_sim_config_default(rs_sim_config_t *c) {
    memset(c, 0, sizeof *c);
    c->network_model = "CM02";
    c->routes = RS_PLATFORM_RING;
}

/* ================================================================================================
 * --network-model and --cfg
 * ============================================================================================== */
/* SimGrid network models this backend runs: ns-3 (not built into this SimGrid: it hangs) and unknown
 * names are refused before a child starts. */
static const char *const net_models[] = {"CM02", "LV08", "SMPI", "IB", "Constant", NULL};

static int check_net_model(const char *opt, const char *m, rs_err_t *err) {
    for (const char *const *k = net_models; *k; k++)
        if (!strcmp(m, *k)) return 0;
    if (!strcasecmp(m, "ns-3") || !strcasecmp(m, "ns3"))
        return rs_errf(err, "%s%s: ns-3 is not supported (this SimGrid has no ns-3: its child hangs); expected CM02, LV08, "
                            "SMPI, IB or Constant", opt, m);
    return rs_errf(err, "%s%s: unknown network model; expected CM02, LV08, SMPI, IB or Constant", opt, m);
}

/* A --cfg KEY:VALUE that SimGrid hangs or crashes on, refused with the accepted range. */
static int check_setting(const char *kv, rs_err_t *err) {
    const char *colon = strchr(kv, ':');
    if (!colon || colon == kv) return rs_errf(err, "--cfg '%s': expected KEY:VALUE (e.g. network/model:LV08)", kv);
    const size_t kl = (size_t)(colon - kv);
    const char *v = colon + 1;
    char opt[300];
    snprintf(opt, sizeof opt, "--cfg %.*s:", (int)kl, kv);
    if (kl == 13 && !strncmp(kv, "network/model", kl)) return check_net_model(opt, v, err);
    static const struct {
        const char *key;
        double min;
        bool open;          /* min itself refused */
        const char *rule;
    } num[] = {{"surf/precision", 0, true, "a number > 0 (0 or below: SimGrid never converges)"},
               {"maxmin/precision", 0, true, "a number > 0 (below: SimGrid crashes)"},
               {"network/latency-factor", 0, true, "a number > 0"},
               {"network/bandwidth-factor", 0, true, "a number > 0"},
               {"network/TCP-gamma", 0, false, "a number >= 0"},
               {"contexts/stack-size", 64, false, "a number of KiB >= 64 (smaller: the actors crash)"}};
    for (size_t i = 0; i < sizeof num / sizeof num[0]; i++) {
        if (strlen(num[i].key) != kl || strncmp(kv, num[i].key, kl)) continue;
        char *end = NULL;
        const double x = strtod(v, &end);
        if (end == v || *end || !isfinite(x) || x < num[i].min || (num[i].open && x == num[i].min))
            return rs_errf(err, "--cfg %s: expected %s", kv, num[i].rule);
    }
    return 0;
}

/* ================================================================================================
 * What a run cannot take
 * ============================================================================================== */
/* What a job cannot run with, and its own consistency. Returns 0 or -1 with err (bad input). */
static int check_job(const rs_machine_t *m, const rs_sim_config_t *cfg, int64_t n, bool trace, rs_err_t *err) {
    const rs_job_t *j = cfg->job;
    if (rs_job_validate(j, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    const char *why = cfg->platform_path ? "--platform (a job runs on its generated fabric; map one ring with --hostmap)"
                      : cfg->routes != RS_PLATFORM_RING ? "--all-pairs (the fabric routes every pair already)"
                      : m->perturb.n_degraded > 0 ? "--degrade (a hop of a shared fabric has no link of its own)"
                      : rs_machine_partial_overlap(m) ? "an overlap below 1 (a shared link cannot slow one flow)"
                      : trace ? "--trace/--chrome (one trace holds one ring)" : NULL;
    if (why) return rs_errc(err, RS_ERR_BAD_INPUT, "concurrent rings (--tp/--dp/--map/--fabric...) cannot be combined with %s", why);
    if (j->placement.ring_ranks != n)
        return rs_errc(err, RS_ERR_BAD_INPUT, "job: rings of %" PRId64 " ranks, the problem has -N %" PRId64, j->placement.ring_ranks, n);
    return 0;
}

/* The machine, the platform options, the settings, the timeout and a job. Returns 0 or -1 with err
 * (bad input). */
static int check_input(const rs_machine_t *m, int64_t n, const rs_sim_config_t *cfg, bool trace, rs_err_t *err) {
    if (rs_machine_validate(m, n, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    if (m->loopback)
        return rs_errc(err, RS_ERR_BAD_INPUT, "loopback machine (each rank alone on one device): the walk predicts it; the "
                            "simulator runs the real ring");
    if (rs_machine_partial_overlap(m) && cfg->platform_path)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--overlap %g needs a generated platform: on --platform %s the simulator cannot tell "
                            "which link carries a hop", m->cal.overlap, cfg->platform_path);
    if (cfg->n_cfg > RS_SIM_MAX_CFG)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--cfg: at most %d settings", RS_SIM_MAX_CFG);
    if (cfg->hostmap_path && !cfg->platform_path)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--hostmap %s: needs --platform FILE (generated platforms map rank p to gpu<p>)",
                       cfg->hostmap_path);
    if (cfg->platform_path && cfg->routes != RS_PLATFORM_RING)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--all-pairs: a user platform (--platform %s) brings its own routes", cfg->platform_path);
    if (cfg->network_model && check_net_model("--network-model ", cfg->network_model, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    for (int i = 0; i < cfg->n_cfg; i++)
        if (check_setting(cfg->cfg[i], err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    if (cfg->timeout_s < 0 || !isfinite(cfg->timeout_s))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--timeout %g: must be > 0 seconds", cfg->timeout_s);
    return cfg->job ? check_job(m, cfg, n, trace, err) : 0;
}

/* What pass-q's all-to-all return cannot run with. Returns 0 or -1 with err (bad input). */
static int check_a2a(const rs_machine_t *m, const rs_sim_config_t *cfg, rs_err_t *err) {
    if (cfg->job)
        return rs_errc(err, RS_ERR_BAD_INPUT, "concurrent rings (--tp/--dp/--map/--fabric...) run pass-kv; --ring pass-q and decode return "
                            "their partials in an all-to-all across the ring");
    if (m->perturb.n_degraded > 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--degrade with --ring pass-q or decode: the all-to-all return shares a degraded link with "
                            "other flows, which the walk's all-to-all (tier bandwidths) does not model");
    return 0;
}

int sim_config_check(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg, bool trace, rs_err_t *err) {
    const int64_t n = rs_schedule_problem(s)->n_ranks;
    if (check_input(m, n, cfg, trace, err) != 0) return -1;
    return rs_schedule_step_a2a_bytes(s, n) > 0 ? check_a2a(m, cfg, err) : 0;
}

bool sim_job_may_fold(const rs_machine_t *m, const rs_sim_config_t *cfg) {
    return cfg->job && !cfg->no_fold && cfg->engine == RS_SIM_ENGINE_FAST && !(m && m->cal.comp_slowdown > 1);
}

bool sim_job_folds(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg) {
    return sim_job_may_fold(m, cfg) && rs_schedule_step_a2a_bytes(s, rs_schedule_problem(s)->n_ranks) == 0;
}

const rs_sim_config_t *sim_config_for_run(const rs_schedule_t *s, const rs_sim_config_t *cfg, rs_sim_config_t *buf) {
    if (rs_schedule_step_a2a_bytes(s, rs_schedule_problem(s)->n_ranks) == 0 || cfg->platform_path ||
        cfg->routes != RS_PLATFORM_RING)
        return cfg;
    *buf = *cfg;
    buf->routes = RS_PLATFORM_ALL_PAIRS;
    return buf;
}

/* ================================================================================================
 * The settings
 * ============================================================================================== */
void sim_config_settings(const rs_sim_config_t *cfg, sim_settings_t *out) {
    snprintf(out->model, sizeof out->model, "network/model:%s", cfg->network_model ? cfg->network_model : "CM02");
    int n = 0;
    out->kv[n++] = out->model;
    out->kv[n++] = "network/TCP-gamma:0";
    out->kv[n++] = "network/crosstraffic:0";
    out->kv[n++] = "surf/precision:1e-15";
    out->kv[n++] = "maxmin/precision:1e-15";
    /* SimGrid 3.32's lazy network update re-solves, when a flow starts, only the constraints reached
     * from its route's first link; a flow whose first link another starting flow already marked keeps
     * its other links out of the solve (it would run through a shared NIC at full rate: docs/sim.md).
     * Full update is exact. Generated ring platforms give each flow its hop's own first link. */
    if (cfg->job || cfg->platform_path || cfg->routes == RS_PLATFORM_ALL_PAIRS) out->kv[n++] = "network/optim:Full";
    for (int i = 0; i < cfg->n_cfg && i < RS_SIM_MAX_CFG; i++) out->kv[n++] = cfg->cfg[i];
    out->n = n;
}
