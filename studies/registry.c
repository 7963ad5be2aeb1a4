/* registry.c - the backends of this build (registry.h): the one table, and looking one up. */
#include "registry.h"

#include <stdio.h>
#include <string.h>

#ifdef RINGSIM_HAVE_SIM
extern const rs_backend_ops_t rs_sim_backend; /* sim/sim_backend.c */
#endif
#ifdef RINGSIM_HAVE_EXEC
extern const rs_backend_ops_t rs_cpu_backend; /* exec/exec_backend.c */
#endif
#ifdef RINGSIM_HAVE_GPU
extern const rs_backend_ops_t rs_gpu_backend; /* exec/gpu/gpu_backend.c */
#endif

static const rs_backend_ops_t *const backends[] = {
    &rs_walk_backend,
#ifdef RINGSIM_HAVE_SIM
    &rs_sim_backend,
#endif
#ifdef RINGSIM_HAVE_EXEC
    &rs_cpu_backend,
#endif
#ifdef RINGSIM_HAVE_GPU
    &rs_gpu_backend,
#endif
    NULL,
};

/* What a build needs for each backend, for the message when it is missing. */
static const struct {
    const char *name, *needs;
} known[] = {
    {"model", ""},
    {"sim", "no SimGrid backend (install libsimgrid-dev and reconfigure)"},
    {"cpu", "no CPU executor (needs OpenBLAS)"},
    {"gpu", "no GPU executor (needs nvcc, NCCL and exec/gpu/gpu.h)"},
};

const rs_backend_ops_t *const *rs_backends(void) { return backends; }

const rs_backend_ops_t *rs_backend_find(const char *name) {
    for (int i = 0; name && backends[i]; i++)
        if (strcmp(backends[i]->name, name) == 0) return backends[i];
    return NULL;
}

int rs_backend_get(const char *name, bool exec_only, const rs_backend_ops_t **out, rs_err_t *err) {
    const rs_backend_ops_t *b = rs_backend_find(name);
    if (b && (!exec_only || b->exec)) {
        *out = b;
        return 0;
    }
    for (size_t i = 0; name && i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i].name, name) == 0 && known[i].needs[0] && !b)
            return rs_errc(err, RS_ERR_BAD_INPUT, "--backend %s: this build has %s", name, known[i].needs);
    return rs_errc(err, RS_ERR_BAD_INPUT, "--backend %s: expected %s", name ? name : "(none)",
                   exec_only ? "cpu or gpu" : "model, sim, cpu or gpu");
}

void rs_backend_opts_default(rs_backend_opts_t *o) {
    memset(o, 0, sizeof *o);
}
