/* sgx_fabric.h - internal to sim/: a generated fabric (fabric.h) built in SimGrid 3.32 directly, its
 * routes taken from the fabric's known paths instead of a shortest-path search (sgx_fabric.cpp).
 *
 * The platform has the hosts gpu<d> and every link of rs_fabric_write's file, with the same names,
 * bandwidths, latencies and sharing policies, in one zone whose route from a to b is
 * rs_fabric_route(a, b): the file's DijkstraCache path link by link, in the same order, with the same
 * latency (the sum of its links' latencies, in route order). A route costs O(its links) and no memory;
 * SimGrid's DijkstraCache zone runs a Dijkstra search over the whole graph for every source and keeps
 * a predecessor array of every vertex per source (O(D^2) memory). No router is made: nothing routes
 * through one.
 */
#ifndef RS_SIM_SGX_FABRIC_H
#define RS_SIM_SGX_FABRIC_H

#ifdef __cplusplus
extern "C" { /* fabric.h is C: its functions have C linkage */
#endif

#include "fabric.h"
#include "job_fold.h"

/* After simgrid_init(), instead of simgrid_load_platform(): the platform of the validated fabric f.
 * With a fold (job_fold.h; NULL: none) only the links that are their own image are made, and a
 * route from a to b is rs_fabric_route(a, b) with every link replaced by its image. Returns 0 or -1
 * (out of memory). */
int sgx_fabric_build(const rs_fabric_t *f, const rs_job_fold_t *fold);

#ifdef __cplusplus
}
#endif

#endif /* RS_SIM_SGX_FABRIC_H */
