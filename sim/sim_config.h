/* sim_config.h - internal to sim/: a run's configuration (rs_sim_config_t, sim.h) checked before a
 * child starts, and the SimGrid settings it makes (sim_config.c; sim.c, sim_child.c, sim_meta.c and
 * sim_alt.c use them).
 *
 * The settings, "KEY:VALUE", in the order SimGrid applies them: network/model (CM02 unless the
 * caller names another), the exact defaults network/TCP-gamma:0, network/crosstraffic:0,
 * surf/precision:1e-15 and maxmin/precision:1e-15, then network/optim:Full on a job's fabric, a
 * user's platform or the all-pairs platform (SimGrid's lazy update is not exact where flows share
 * their first link), then the caller's --cfg (they win).
 */
#ifndef RS_SIM_CONFIG_H
#define RS_SIM_CONFIG_H

#include <stdbool.h>

#include "machine.h"
#include "schedule.h"
#include "sim.h"
#include "util.h"

#define SIM_MAX_SETTINGS (RS_SIM_MAX_CFG + 6) /* the model, 4 defaults, Full, the --cfg */

typedef struct {
    int n;                                /* entries of kv */
    const char *kv[SIM_MAX_SETTINGS];     /* "KEY:VALUE" (kv[0]: network/model; point into model
                                           * and the configuration's strings) */
    char model[160];                      /* "network/model:NAME" */
} sim_settings_t;

/* What the caller asked for, before anything is started: the machine (a loopback one refused),
 * the platform options (--overlap below 1 needs a generated platform, --hostmap needs --platform,
 * --all-pairs a generated one), the network model and every --cfg setting SimGrid hangs or crashes
 * on (with the accepted range), the timeout, a job's limits and pass-q's all-to-all return's.
 * Returns 0, or -1 with err (code RS_ERR_BAD_INPUT). */
int sim_config_check(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg, bool trace, rs_err_t *err);

/* The configuration a run uses: cfg, except that pass-q's all-to-all return on a generated ring
 * platform routes every pair (then a copy in buf). Can't fail. */
/* rs_sim_estimate and rs_sim_timeout (sim_estimate.c) for a job known to fold into `copies`. */
void sim_estimate_folded(const rs_problem_t *p, const rs_sim_config_t *cfg, int trace, int64_t copies, rs_estimate_t *e);
double sim_timeout_folded(const rs_problem_t *p, const rs_sim_config_t *cfg, int64_t copies);
/* Whether the run folds its job (job_fold.h): a job on the activity engine (sim_dag_eligible's rules:
 * no compute slowdown, no all-to-all step) unless cfg->no_fold. */
bool sim_job_folds(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg);
/* The same rules before the schedule is made (a job with an all-to-all step is refused anyway:
 * sim_config_check); m NULL: a machine without compute slowdown. */
bool sim_job_may_fold(const rs_machine_t *m, const rs_sim_config_t *cfg);
const rs_sim_config_t *sim_config_for_run(const rs_schedule_t *s, const rs_sim_config_t *cfg, rs_sim_config_t *buf);

/* The SimGrid settings of cfg (above; --cfg entries beyond RS_SIM_MAX_CFG are left out). Can't fail. */
void sim_config_settings(const rs_sim_config_t *cfg, sim_settings_t *out);

#endif /* RS_SIM_CONFIG_H */
