/* import_groups.h - private to traces/import*.c: the ring's process group (import_groups.c): which
 * group carries the ring's point-to-point traffic (--group, else the one with the most p2p kernels),
 * the raw ranks put in its order (the other ranks' files left out, its missing ranks refused),
 * point-to-point kernels of other groups (pipeline sends) no longer ring traffic, the ring's
 * direction from the peers; and what a rank's kernels and communication were, for refusals that say
 * what was seen. */
#ifndef RS_IMPORT_GROUPS_H
#define RS_IMPORT_GROUPS_H

#include <stddef.h>

#include "import_raw.h"

typedef struct {
    long group;         /* raw group index of the ring, -1: the trace names none */
    char label[200];    /* "'1' (cp) [0, 2, 4, 6]" ("" without a group) */
    int n_groups_p2p;   /* groups with point-to-point kernels */
} rs_import_ring_t;

/* Choose the ring's group (group_opt: --group NAME or RANKS, NULL = the default), keep the raw ranks
 * of its members in its order (ring order: the group's rank list, reversed when every send goes to
 * the previous member), demote other groups' point-to-point kernels to RS_KROLE_XCOMM. Without group
 * information the ranks are ordered by global rank when every one has a distinct one, else kept as
 * read. 0, or -1 with err (RS_ERR_BAD_INPUT): an unknown --group, a member without a trace, a world
 * larger than the traces given and no group to say which ranks the ring holds, a send to a
 * non-neighbour, a global rank twice. */
int rs_import_ring(rs_raw_t *raw, const char *group_opt, rs_import_ring_t *ring, rs_err_t *err);

/* Every rank with attention kernels has point-to-point kernels of the ring; else refused by what its
 * communication is: all_to_all (Ulysses-style sequence parallelism), all_gather (all-gather context
 * parallelism), or what was seen. 0 or -1 with err (RS_ERR_BAD_INPUT). */
int rs_import_check_traffic(const rs_raw_t *raw, const rs_import_ring_t *ring, rs_err_t *err);

/* "'1' (cp) [0, 2, 4, 6]": a group's name, description and ranks (long lists cut). Returns buf. */
const char *rs_import_group_label(const rs_raw_group_t *g, char *buf, size_t len);
/* What communication rank r holds, per collective and group: "40 all_reduce, 0 p2p kernels in group
 * '0' [0..7]; 12 all_gather in '1' [0, 1]" (or "no communication kernel"). Returns buf. */
const char *rs_import_comm_seen(const rs_raw_t *raw, const rs_raw_rank_t *r, char *buf, size_t len);
/* Rank r's kernels: "1234 kernels, the most frequent 40 x NAME, 12 x NAME, 9 x NAME" (names cut).
 * Returns buf. */
const char *rs_import_kernels_seen(const rs_raw_t *raw, const rs_raw_rank_t *r, char *buf, size_t len);

#endif /* RS_IMPORT_GROUPS_H */
