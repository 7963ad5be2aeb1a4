/* fabric.h - generated datacenter fabrics for concurrent rings, written as SimGrid platforms.
 *
 * D devices (hosts gpu0..gpu<D-1>, speed F_eff(B)) fill nodes of G in order: device d sits on node
 * d / G as local device l = d mod G (the last node may be partial). Every node has K NICs
 * (1 <= K <= G); local device l uses NIC l K / G, so G/K devices share a NIC when K divides G.
 * NICs hang off leaf switches:
 *   - flat:       one non-blocking switch holds every NIC (no spine);
 *   - leaf-spine: nodes n / M share leaf n / M (M = nodes per leaf, all K NICs of a node on its
 *                 leaf); leaves meet in one spine whose per-leaf uplink carries the leaf's NIC
 *                 ports x inter bandwidth / oversubscription (fat tree with an oversubscription
 *                 ratio; 1 = non-blocking);
 *   - rail:       rail-optimised: NIC j of every node of group n / M sits on that group's rail-j
 *                 leaf (K leaves per group), and the rail leaves meet in a spine as above: traffic
 *                 between NICs of one rail (same group) never reaches the spine, traffic between
 *                 rails does (no PXN: a device's traffic leaves through its own NIC).
 * Inside a node every device has an NVLink port to the node's NVSwitch (intra tier).
 *
 * The platform file (version 4.1, rs_fabric_write) is one <zone routing="DijkstraCache">: hosts,
 * routers (nvsw<n>, leaf<i>, spine) and the edges between them; SimGrid computes every device pair's
 * path (shortest in links). Per-pair routes are never written. The simulator does not load that file:
 * it builds the same hosts and links in SimGrid directly and routes every pair from the fabric's
 * known paths (rs_fabric_route, sgx_fabric.cpp), which are Dijkstra's paths link by link. Links:
 *   nvl<d>-up / -down      the device's NVLink port (intra bandwidth; latency on -up)
 *   nic<n>.<j>-up / -down  NIC j of node n (inter bandwidth; inter latency on -up), shared by its
 *                          devices
 *   leaf<i>-up / -down     leaf i's uplink to the spine (ports x inter bw / oversubscription)
 *   nvsw<n>-in/-out, pcie<d>-up/-down, leaf<i>-in/-out  switch crossbars and the GPU-NIC PCIe
 *                          path: FATPIPE (each flow alone up to its port's rate, so never the
 *                          binding constraint); they also weigh the edges so that the shortest
 *                          path is the physical one (edges: device-NVSwitch 2 links, device-leaf
 *                          3, leaf-spine 1: inside a node NVLink, never a NIC; between rails the
 *                          spine, never a detour through another device's NVLink and NIC).
 * A device pair's route therefore has exactly its tier's bandwidth and latency when nothing else
 * flows (CM02 then equals the walk); under load, flows share the NIC and uplink links max-min fairly.
 * The path of a device pair a != b (rs_fabric_route) is the shortest in links of the file's graph,
 * unique (any other crosses a second device's ports: 10 links or more):
 *   same node:      gpu<a> -> nvsw<n> -> gpu<b>                        (4 links)
 *   same leaf:      gpu<a> -> leaf<i> -> gpu<b>                        (6 links)
 *   across leaves:  gpu<a> -> leaf<i> -> spine -> leaf<k> -> gpu<b>    (8 links)
 * with i, k the leaves of a's and b's NICs. SimGrid 3.32's Dijkstra zone lists a path's links edge by
 * edge, each edge's links last first: nvsw<n>-in, nvl<a>-up, nvl<b>-down, nvsw<n>-out inside a node;
 * leaf<i>-in, nic<a>-up, pcie<a>-up, [leaf<i>-up, leaf<k>-down,] pcie<b>-down, nic<b>-down,
 * leaf<k>-out across nodes (nic<a>: NIC rs_fabric_nic(a) of a's node). rs_fabric_route gives that
 * order, so the built platform's flows meet their links as the file's do.
 */
#ifndef RS_SIM_FABRIC_H
#define RS_SIM_FABRIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "machine.h"
#include "util.h"

typedef enum { RS_FABRIC_FLAT = 0, RS_FABRIC_LEAF_SPINE, RS_FABRIC_RAIL, RS_FABRIC_COUNT } rs_fabric_kind_t;

const char *rs_fabric_kind_name(rs_fabric_kind_t k);         /* "flat" | "leaf-spine" | "rail" */
int rs_fabric_kind_parse(const char *s, rs_fabric_kind_t *out); /* 0 or -1 */

typedef struct {
    rs_fabric_kind_t kind;     /* flat switch, leaf-spine or rail-optimised */
    int64_t devices;           /* D >= 1 */
    int64_t devices_per_node;  /* G >= 1 */
    int64_t nics_per_node;     /* K, 1 <= K <= G */
    int64_t nodes_per_leaf;    /* M >= 1 (leaf-spine, rail; ignored by flat) */
    double oversub;            /* >= 1: a leaf's NIC ports x inter bw / uplink bandwidth */
    rs_tier_t intra;           /* NVLink path inside a node */
    rs_tier_t inter;           /* one NIC (per direction) */
    double host_speed_flops;   /* host speed, FLOP/s (F_eff(B)) */
} rs_fabric_t;

/* Nodes of devices_per_node from the machine's tiers, K = G, flat, non-blocking, nodes per leaf
 * max(1, 32 / K) (a 64-port leaf with half its ports down). Can't fail. */
void rs_fabric_default(rs_fabric_t *f, const rs_machine_t *m, int64_t devices, double host_speed_flops);

/* Check the knobs; err names the option and the rule ("--nics 16: K <= G = 8 (a node has at most
 * one NIC per device)", "--oversub 0.5: must be >= 1 (1 = non-blocking)"). Returns 0 or -1. */
int rs_fabric_validate(const rs_fabric_t *f, rs_err_t *err);

/* Placement of device d (validated fabric, 0 <= d < D). */
int64_t rs_fabric_nodes(const rs_fabric_t *f);             /* ceil(D / G) */
int64_t rs_fabric_node(const rs_fabric_t *f, int64_t d);    /* d / G */
int64_t rs_fabric_nic(const rs_fabric_t *f, int64_t d);     /* NIC of d within its node: (d mod G) K / G */
int64_t rs_fabric_nic_link(const rs_fabric_t *f, int64_t d); /* index of d's NIC links: node x K + its NIC */
int64_t rs_fabric_leaves(const rs_fabric_t *f);            /* leaf switches (1 for flat) */
int64_t rs_fabric_leaf(const rs_fabric_t *f, int64_t d);    /* leaf of d's NIC */
/* NIC ports on leaf i and that leaf's uplink bandwidth (ports x inter bw / oversub), bytes/s. */
int64_t rs_fabric_leaf_ports(const rs_fabric_t *f, int64_t leaf);
double rs_fabric_uplink_bw(const rs_fabric_t *f, int64_t leaf);
/* true iff devices a and b share a node (their path is NVLink). */
bool rs_fabric_same_node(const rs_fabric_t *f, int64_t a, int64_t b);

/* One line: "rail: 64 nodes x 8 devices, 8 NICs per node (1 device per NIC), 8 rail leaves x 1
 * group of 64 nodes, spine 2:1 (intra nvlink4 450 GB/s 0 us, inter ib-ndr 50 GB/s 0 us)". */
const char *rs_fabric_describe(const rs_fabric_t *f, char *buf, size_t len);

/* The links of a fabric's platform by kind; a link's index: its device d (nvl, pcie), its node n
 * (nvsw), n K + j for NIC j of node n (nic), its leaf i (leaf). */
typedef enum {
    RS_FLINK_NVL_UP = 0, RS_FLINK_NVL_DOWN, RS_FLINK_PCIE_UP, RS_FLINK_PCIE_DOWN, RS_FLINK_NVSW_IN, RS_FLINK_NVSW_OUT,
    RS_FLINK_NIC_UP, RS_FLINK_NIC_DOWN, RS_FLINK_LEAF_IN, RS_FLINK_LEAF_OUT, RS_FLINK_LEAF_UP, RS_FLINK_LEAF_DOWN,
    RS_FLINK_COUNT
} rs_flink_kind_t;

typedef struct {
    rs_flink_kind_t kind;
    int64_t index;
} rs_flink_t;

/* A link as the platform has it: name ("nic3.1-up"), bandwidth, latency, FATPIPE or shared. */
typedef struct {
    char name[64];
    double bw_bytes_per_s, latency_s;
    bool fatpipe;
} rs_flink_rate_t;

/* Links of that kind in a validated fabric (leaf up/down: 0 without a spine). */
int64_t rs_fabric_link_count(const rs_fabric_t *f, rs_flink_kind_t kind);
/* Link l (index < rs_fabric_link_count) into out. Can't fail. */
void rs_fabric_link(const rs_fabric_t *f, rs_flink_t l, rs_flink_rate_t *out);
/* Whether links of that kind are shared by their flows (NVLink ports, NICs, leaf uplinks); the
 * others are FATPIPE crossbars. */
bool rs_fabric_link_shared(rs_flink_kind_t k);
/* The same without the name (out->name ""): for the loops over every route. Can't fail. */
void rs_fabric_link_rate(const rs_fabric_t *f, rs_flink_t l, rs_flink_rate_t *out);

#define RS_FABRIC_ROUTE_MAX 8
/* The path from device a to device b (0 <= a, b < D) into route, in SimGrid's Dijkstra order (above);
 * no link when a == b. Returns the number of links. */
int rs_fabric_route(const rs_fabric_t *f, int64_t a, int64_t b, rs_flink_t route[RS_FABRIC_ROUTE_MAX]);

/* Write the SimGrid platform of a validated fabric to fp. Returns 0 or -1 with err naming origin. */
int rs_fabric_write(FILE *fp, const char *origin, const rs_fabric_t *f, rs_err_t *err);
/* The same into path, atomically. Returns 0 or -1 with err naming the path. */
int rs_fabric_write_file(const char *path, const rs_fabric_t *f, rs_err_t *err);

#endif /* RS_SIM_FABRIC_H */
