/* platform.h - SimGrid platforms generated from an rs_machine_t, and the rank-to-host mapping.
 *
 * SimGrid 3.32 cannot build platforms from C, so the backend writes platform XML (version 4.1) and
 * loads it. Everything is one <zone routing="Full"> whose routes are all one-way
 * (symmetrical="NO"); host "gpu<p>" holds rank p, with speed F_eff(B) (FLOP/s).
 *
 * RS_PLATFORM_RING (the ring backend): only the N routes p -> p+1 exist.
 *   - hop p inside a node: one link "hop<p>" (bandwidth rs_machine_hop_bw(p), latency
 *     rs_machine_hop_latency(p)): the NVLink/NVSwitch path p -> p+1, used by that hop only;
 *   - hop p crossing nodes (rs_machine_hop_inter): route [nic<p>-up, nic<p+1>-down], the sender's
 *     NIC uplink (hop bandwidth after degradation, the inter tier's latency) and the receiver's NIC
 *     downlink (inter tier bandwidth, latency 0): one NIC per device.
 *   A flat ring (G = 0 or G >= N) has only hop links. Each flow's route bandwidth and latency are
 *   exactly the hop's, so CM02 reproduces the walk.
 * RS_PLATFORM_ALL_PAIRS (all-to-all, e.g. sim/sim_alt.c): every device has an intra-node port
 *   (nvl<p>-up / nvl<p>-down, intra tier) and, on a multi-node machine, a NIC (nic<p>-up /
 *   nic<p>-down, inter tier); the route p -> q is [nvl<p>-up, nvl<q>-down] inside a node and
 *   [nic<p>-up, nic<q>-down] across nodes. Latency sits on the uplink, degradation of hop p on
 *   p's uplink of that hop's tier. A ring hop still sees exactly its hop's bandwidth and latency.
 *   N^2 routes: meant for N up to a few hundred.
 */
#ifndef RS_SIM_PLATFORM_H
#define RS_SIM_PLATFORM_H

#include <stdint.h>
#include <stdio.h>

#include "machine.h"
#include "util.h"

typedef enum { RS_PLATFORM_RING = 0, RS_PLATFORM_ALL_PAIRS } rs_platform_routes_t;

/* Host name of rank p in generated platforms ("gpu<p>") into buf. Returns buf. */
const char *rs_platform_host_name(int64_t rank, char *buf, size_t len);

/* One-line description of the generated platform: "flat ring of 8 (nvlink4 450 GB/s)" or
 * "4 nodes x 8 (intra nvlink4, inter ib-ndr)". Returns buf. */
const char *rs_platform_describe(const rs_machine_t *m, int64_t n_ranks, char *buf, size_t len);

/* What a generated platform is made of. */
typedef struct {
    const rs_machine_t *m;        /* the machine (validated for n_ranks) */
    int64_t n_ranks;              /* hosts gpu0 .. gpu<N-1> */
    double block_tokens;          /* B: the host speed is F_eff(B) */
    rs_platform_routes_t routes;  /* ring routes or all pairs */
    int64_t hosts;                /* 0: every rank's host; H in [2, N): only gpu0 .. gpu<H-1>, the links
                                     and routes among them, each as in the ring of n_ranks (a ring
                                     folded by its rotation needs hop 0 alone: ring_fold.h) */
} rs_platform_spec_t;

/* Write the platform XML of spec to fp. Returns 0, or -1 with err on a write error (origin names
 * the output). */
int rs_platform_write(FILE *fp, const char *origin, const rs_platform_spec_t *spec, rs_err_t *err);
/* The same into path, atomically (temp + rename). Returns 0 or -1 with err naming the path. */
int rs_platform_write_file(const char *path, const rs_platform_spec_t *spec, rs_err_t *err);

/* A platform writer (rs_platform_write's shape, what: its description) into path, atomically: the
 * one file writer of the generated platforms and fabrics (fabric.h). Returns 0 or -1 with err. */
typedef int (*rs_platform_writer_t)(FILE *fp, const char *origin, const void *what, rs_err_t *err);
int rs_platform_save(const char *path, rs_platform_writer_t write, const void *what, rs_err_t *err);

/* ---------------------------------------------------------------------------------------------------
 * Rank-to-host mapping for a user's platform (--hostmap FILE). Text, one entry per line, '#'
 * starts a comment: either "HOST" (the k-th entry is rank k) or "RANK HOST" (explicit). Every rank
 * 0..N-1 must be mapped exactly once; a host may hold several ranks (they share its CPU).
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    int64_t n_ranks;  /* entries */
    char **host;      /* host[r]: host name of rank r (malloc'd) */
    int *line;        /* line[r]: line of the mapping file that named it (for messages) */
} rs_hostmap_t;

/* Parse path for n_ranks ranks. Returns 0, or -1 with err "path:line: ..." (bad syntax, rank out of
 * [0, N), rank mapped twice, rank missing). On error *out is left empty. */
int rs_hostmap_load(const char *path, int64_t n_ranks, rs_hostmap_t *out, rs_err_t *err);
/* Identity mapping onto generated hosts gpu0..gpu<N-1>. Returns 0 or -1 on OOM. */
int rs_hostmap_identity(int64_t n_ranks, rs_hostmap_t *out, rs_err_t *err);
void rs_hostmap_free(rs_hostmap_t *h);

#endif /* RS_SIM_PLATFORM_H */
