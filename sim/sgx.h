/* sgx.h - internal to sim/: what the activity-driven engine (sim_dag.c) needs from SimGrid 3.32 and
 * its C API lacks, taken from SimGrid's C++ API (sgx.cpp): kernel timers, and transfers between two
 * hosts started by the engine itself (no actor posts or waits for them) with a callback when each
 * one completes.
 *
 * Everything runs inside simgrid_run(), in SimGrid's maestro: timers fire in date order, transfers
 * are CM02 network actions like a mailbox communication's (the host model's two-host execution
 * with bytes only, SimGrid's own communicate()), completions are reported after SimGrid has
 * handled them, in the order they ended. A transfer is owned by an owner actor (one per walker,
 * each on its walker's host): SimGrid 3.32 keeps every activity in its owner's std::list and removes
 * it from there by a linear search when it ends, so transfers owned by the engine (maestro) would
 * cost O(transfers in flight) each; an owner keeps a few blank activities ready (it wakes once per
 * SGX_POOL / 2 transfers to make more) and holds only those and its walker's transfers in flight.
 */
#ifndef RS_SIM_SGX_H
#define RS_SIM_SGX_H

#include <stdint.h>

#include <simgrid/forward.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*sgx_fn)(void *arg);

/* Call fn(arg) at simulated time date (>= now) from the engine. Returns 0 or -1 (out of memory). */
int sgx_timer(double date, sgx_fn fn, void *arg);

/* Before simgrid_run(): n owner actors, owner i on host[i]. Returns 0 or -1 (out of memory). */
int sgx_init(int64_t n, const sg_host_t *host);
/* From the engine (a timer or a done callback): move `bytes` (> 0) from src to dst over their route,
 * owned by owner; done(tag) at the simulated time it ends. Returns 0 or -1 (out of memory). */
int sgx_transfer(int64_t owner, sg_host_t src, sg_host_t dst, double bytes, sgx_fn done, void *tag);
/* Owner i has nothing more to move: its actor ends (the simulation ends when every owner has and
 * nothing is left to do). */
void sgx_owner_done(int64_t owner);
/* After simgrid_run(): transfers started and timers set, for the cost figures. */
void sgx_counts(int64_t *transfers, int64_t *timers);
/* After simgrid_run(): release what is left. Can't fail. */
void sgx_free(void);

#ifdef __cplusplus
}
#endif

#endif /* RS_SIM_SGX_H */
