/* registry.h - the backends this build has (registry.c): the one table the studies and the command
 * look backends up in. It names the backends' own definitions (sim/, exec/, exec/gpu/), so it sits
 * above them, at the bottom of the studies layer; the interface itself is backend/backend.h. */
#ifndef RS_REGISTRY_H
#define RS_REGISTRY_H

#include <stdbool.h>

#include "backend.h"
#include "util.h"

/* The backends this build has, NULL-terminated: model first, then sim, cpu, gpu where built. */
const rs_backend_ops_t *const *rs_backends(void);
/* The backend called name, or NULL (unknown, or not in this build). */
const rs_backend_ops_t *rs_backend_find(const char *name);
/* The same for an option: 0 and *out, or -1 with err (bad input) "--backend NAME: ..." saying what
 * the build lacks ("this build has no GPU executor (needs nvcc and NCCL)") or which names exist.
 * exec_only: only the executors (cpu, gpu) qualify. */
int rs_backend_get(const char *name, bool exec_only, const rs_backend_ops_t **out, rs_err_t *err);

#endif /* RS_REGISTRY_H */
