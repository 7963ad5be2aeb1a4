/* sim_prepare.c - the platform file and the rank-to-host map of a run, and its temporary folder
 * (sim_prepare.h). */
#define _DEFAULT_SOURCE /* strdup */
#include "sim_prepare.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"
#include "job.h"
#include "output.h"
#include "platform_check.h"

/* Every rank actor of a job (rings x N; a fold's rings only) on host gpu<device>. Returns 0 or -1
 * with err. */
static int job_hostmap(const rs_job_t *j, const rs_job_fold_t *fold, rs_hostmap_t *hm, rs_err_t *err) {
    const int64_t n = j->placement.ring_ranks, total = (fold ? fold->n_rings : j->placement.n_rings) * n;
    if (rs_hostmap_identity(total, hm, err) != 0) return -1;
    char name[64];
    for (int64_t g = 0; g < total; g++) {
        snprintf(name, sizeof name, "gpu%" PRId64, j->placement.device[fold ? fold->ring[g / n] * n + g % n : g]);
        char *dup = strdup(name);
        if (!dup) {
            rs_hostmap_free(hm);
            return rs_errf(err, "job: out of memory");
        }
        free(hm->host[g]);
        hm->host[g] = dup;
    }
    return 0;
}

/* The generated platform into pl->path (and cfg->platform_out), its description into pl->desc; a
 * job's fabric only into cfg->platform_out (the child builds it in SimGrid: sgx_fabric.h). Returns 0
 * or -1 with err. */
static int write_platform(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg, int64_t ring_copies,
                          sim_platform_t *pl, rs_err_t *err) {
    const rs_problem_t *pb = rs_schedule_problem(s);
    if (cfg->job) {
        rs_fabric_describe(&cfg->job->fabric, pl->desc, sizeof pl->desc);
        return cfg->platform_out ? rs_fabric_write_file(cfg->platform_out, &cfg->job->fabric, err) : 0;
    }
    rs_platform_describe(m, pb->n_ranks, pl->desc, sizeof pl->desc);
    const rs_platform_spec_t spec = {m, pb->n_ranks, (double)rs_problem_block(pb), cfg->routes, 0};
    rs_platform_spec_t folded = spec; /* a ring folded by its rotation: hop 0 between gpu0 and gpu1 (ring_fold.h) */
    folded.hosts = ring_copies > 1 ? 2 : 0;
    int rc = rs_platform_write_file(pl->path, &folded, err);
    if (rc == 0 && cfg->platform_out) rc = rs_platform_write_file(cfg->platform_out, &spec, err);
    return rc;
}

int sim_prepare_platform(const rs_schedule_t *s, const rs_machine_t *m, const rs_sim_config_t *cfg, const rs_job_fold_t *fold,
                         int64_t ring_copies, sim_platform_t *pl, rs_err_t *err) {
    const int64_t n = rs_schedule_problem(s)->n_ranks;
    memset(pl, 0, sizeof *pl);
    if (cfg->platform_path) {
        if (rs_platform_check_file(cfg->platform_path, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT); /* before SimGrid aborts on it */
        int rc = cfg->hostmap_path ? rs_hostmap_load(cfg->hostmap_path, n, &pl->hm, err) : rs_hostmap_identity(n, &pl->hm, err);
        if (rc != 0) return cfg->hostmap_path ? rs_err_mark(err, RS_ERR_BAD_INPUT) : -1;
        snprintf(pl->desc, sizeof pl->desc, "%s", cfg->platform_path);
        snprintf(pl->path, sizeof pl->path, "%s", cfg->platform_path);
        return 0;
    }
    if ((cfg->job ? job_hostmap(cfg->job, fold, &pl->hm, err) : rs_hostmap_identity(n, &pl->hm, err)) != 0) return -1;
    if (cfg->job) { /* no file for the child (it builds the fabric): no temporary folder */
        if (write_platform(s, m, cfg, ring_copies, pl, err) == 0) return 0;
        rs_hostmap_free(&pl->hm);
        return -1;
    }
    if (rs_out_tmpdir("sim", pl->tmpdir, sizeof pl->tmpdir, err) != 0) { /* removed by a signal, or below */
        pl->tmpdir[0] = 0;
        rs_hostmap_free(&pl->hm);
        return -1;
    }
    snprintf(pl->path, sizeof pl->path, "%s/platform.xml", pl->tmpdir);
    if (write_platform(s, m, cfg, ring_copies, pl, err) != 0) {
        sim_platform_release(pl);
        return -1;
    }
    return 0;
}

void sim_platform_release(sim_platform_t *pl) {
    rs_out_tmpdir_remove(pl->tmpdir);
    pl->tmpdir[0] = 0;
    rs_hostmap_free(&pl->hm);
}
