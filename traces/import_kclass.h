/* import_kclass.h - private to traces/import*.c: what the import needs of the kernel name classes
 * beyond import.h (rs_kclass_create, rs_kclass_role, rs_kernel_role_name, defined in import_kclass.c):
 * the pass a name's words say, and facts about roles. */
#ifndef RS_IMPORT_KCLASS_H
#define RS_IMPORT_KCLASS_H

#include <stdbool.h>

#include "import.h"

/* RS_PASS_BACKWARD when name contains bwd, backward, bprop or grad (any case), else RS_PASS_FORWARD
 * when it contains fwd, forward or fprop, else -1. Can't fail. */
int rs_kclass_pass_hint(const rs_kclass_t *c, const char *name);

/* An attention kernel (forward or backward). */
static inline bool rs_krole_is_attn(int role) { return role == RS_KROLE_ATTN_FWD || role == RS_KROLE_ATTN_BWD; }
/* A point-to-point kernel (SendRecv, Send, Recv): ring traffic when it is in the ring's group. */
static inline bool rs_krole_is_p2p(int role) { return role >= RS_KROLE_SENDRECV && role <= RS_KROLE_RECV; }
/* A kernel of the ring itself: attention or point-to-point. */
static inline bool rs_krole_is_ring(int role) { return rs_krole_is_attn(role) || rs_krole_is_p2p(role); }
/* A compute kernel (attention, merge, cast, other): what a step's compute event spans. */
static inline bool rs_krole_is_compute(int role) { return rs_krole_is_attn(role) || (role >= RS_KROLE_MERGE && role <= RS_KROLE_OTHER); }
/* The trace role (trace.h) of a compute kernel's role. */
static inline rs_role_t rs_krole_trace_role(int role) {
    return role == RS_KROLE_MERGE ? RS_ROLE_MERGE : role == RS_KROLE_CAST ? RS_ROLE_CAST : role == RS_KROLE_OTHER ? RS_ROLE_OTHER : RS_ROLE_ATTN;
}
/* The pass of an attention kernel's role. */
static inline rs_pass_t rs_krole_pass(int role) { return role == RS_KROLE_ATTN_BWD ? RS_PASS_BACKWARD : RS_PASS_FORWARD; }

#endif /* RS_IMPORT_KCLASS_H */
