/* job_fold.h - internal to sim/: a job folded by its symmetry, so that the simulator runs one copy
 * of each class of identical rings and collective members instead of all of them.
 *
 * A fold of period (T nodes, s devices) maps device d = n G + l (node n, local device l) onto
 * (n mod T) G + (l mod s) and every fabric link onto the link of that device, node, NIC or leaf
 * (rs_job_fold_link). A ring maps onto the ring whose rank 0 holds its rank 0's image, a background
 * member (a slot of rs_background_groups) onto the member on its device's image. The simulated job
 * (the quotient) is the rings and members that are their own image, each flowing over the images of
 * its route's links, each member meeting the images of its successor and predecessor. It is the same
 * simulation whenever the fold is a covering of the job, which rs_job_fold checks link by link
 * instead of assuming it:
 *   - every hop (ring rank -> next rank, member -> successor) has its image's route, link for link
 *     under the fold, with the same bandwidth, latency and sharing policy;
 *   - on every shared link of the job the hops through it map one to one onto the simulated hops
 *     through its image (so each max-min constraint has the same flows at the same rates; checked
 *     as equal counts, which job_fold.c shows one to one on the folds tried), and no simulated
 *     route crosses one image twice;
 *   - a member's successor and predecessor map onto its image's successor and predecessor, in a
 *     group of the same size (the same collective, step by step);
 *   - every simulated ring and member stands for the same number of copies.
 * Then the job's trajectory, started symmetric (every ring and member at t = 0, one schedule for
 * every ring), stays a lift of the quotient's: max-min sharing has a unique allocation, and the
 * lifted one satisfies every constraint of the job. Every figure of a ring, hop, link and collective
 * is its image's; sums over ranks are the simulated ones times the copies (test_job_fold compares
 * folded and full simulations to 1e-9).
 *
 * rs_job_fold tries the smallest rail period s first (with T = every node), then the smallest node
 * period T with it; it keeps the first that passes every check (T = nodes, s = G folds nothing).
 */
#ifndef RS_SIM_JOB_FOLD_H
#define RS_SIM_JOB_FOLD_H

#include <stdint.h>

#include "fabric.h"
#include "job.h"
#include "sim.h"

typedef struct {
    int64_t copies;      /* copies of each simulated ring and member in the job (1: nothing folded) */
    int64_t node_period; /* T: the job repeats every T nodes */
    int64_t rail_period; /* s: and every s devices inside a node */
    int64_t n_rings;     /* rings simulated */
    int64_t *ring;       /* [n_rings]: their indices in the job, ascending */
    int64_t *ring_sim;   /* [job rings]: the simulated ring each ring is a copy of (its index in the job) */
    int64_t *slot_sim;   /* [background slots]: the simulated slot each member is a copy of (NULL: no background) */
} rs_job_fold_t;

/* The job's fold (copies 1 when none passes the checks, or the background is not the same
 * collective on every group). Returns 0 or -1 (out of memory). */
int rs_job_fold(const rs_job_t *j, rs_pass_t pass, rs_job_fold_t *out);
void rs_job_fold_free(rs_job_fold_t *f);
/* cfg->job's fold in pass, computed once per pass where cfg->folds is set (it owns that fold), else
 * into *own (zeroed first; rs_job_fold_free it either way). NULL: out of memory. */
const rs_job_fold_t *rs_job_fold_of(const rs_sim_config_t *cfg, rs_pass_t pass, rs_job_fold_t *own);

/* The device and the fabric link that d and l fold onto (a fold of the job's fabric f). */
int64_t rs_job_fold_device(const rs_fabric_t *f, const rs_job_fold_t *fd, int64_t d);
rs_flink_t rs_job_fold_link(const rs_fabric_t *f, const rs_job_fold_t *fd, rs_flink_t l);

#endif /* RS_SIM_JOB_FOLD_H */
