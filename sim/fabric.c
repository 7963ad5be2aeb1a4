/* fabric.c - generated fabrics and their SimGrid platforms (fabric.h). */
#include "fabric.h"
#include "platform.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static const char *const kind_names[RS_FABRIC_COUNT] = {"flat", "leaf-spine", "rail"};

const char *rs_fabric_kind_name(rs_fabric_kind_t k) { return k < RS_FABRIC_COUNT ? kind_names[k] : "?"; }

int rs_fabric_kind_parse(const char *s, rs_fabric_kind_t *out) {
    for (int k = 0; k < RS_FABRIC_COUNT; k++)
        if (!strcmp(s, kind_names[k])) {
            *out = (rs_fabric_kind_t)k;
            return 0;
        }
    return -1;
}

void rs_fabric_default(rs_fabric_t *f, const rs_machine_t *m, int64_t devices, double host_speed_flops) {
    memset(f, 0, sizeof *f);
    f->kind = RS_FABRIC_FLAT;
    f->devices = devices;
    f->devices_per_node = m->devices_per_node;
    f->nics_per_node = m->devices_per_node;
    f->nodes_per_leaf = f->nics_per_node > 0 && f->nics_per_node < 32 ? 32 / f->nics_per_node : 1;
    f->oversub = 1;
    f->intra = m->intra;
    f->inter = m->inter;
    f->host_speed_flops = host_speed_flops;
}

static bool tier_ok(const rs_tier_t *t) {
    return isfinite(t->bw_bytes_per_s) && t->bw_bytes_per_s > 0 && isfinite(t->latency_s) && t->latency_s >= 0;
}

int rs_fabric_validate(const rs_fabric_t *f, rs_err_t *err) {
    if (f->kind < 0 || f->kind >= RS_FABRIC_COUNT) return rs_errf(err, "--fabric: expected flat, leaf-spine or rail");
    if (f->devices < 1) return rs_errf(err, "fabric: %" PRId64 " devices: needs at least 1", f->devices);
    if (f->devices_per_node < 1)
        return rs_errf(err, "--gpus-per-node %" PRId64 ": a fabric needs nodes of G >= 1 devices", f->devices_per_node);
    if (f->nics_per_node < 1 || f->nics_per_node > f->devices_per_node)
        return rs_errf(err, "--nics %" PRId64 ": must be in [1, G = %" PRId64 "] (K <= G: a node has at most one NIC per device)",
                       f->nics_per_node, f->devices_per_node);
    if (f->nodes_per_leaf < 1)
        return rs_errf(err, "--nodes-per-leaf %" PRId64 ": must be >= 1", f->nodes_per_leaf);
    if (!(isfinite(f->oversub) && f->oversub >= 1))
        return rs_errf(err, "--oversub %g: must be >= 1 (leaf downlink : uplink capacity; 1 = non-blocking)", f->oversub);
    if (!tier_ok(&f->intra) || !tier_ok(&f->inter))
        return rs_errf(err, "fabric: tier bandwidths must be positive and finite, latencies >= 0");
    if (!(isfinite(f->host_speed_flops) && f->host_speed_flops > 0))
        return rs_errf(err, "fabric: host speed %g FLOP/s must be positive", f->host_speed_flops);
    return 0;
}

int64_t rs_fabric_nodes(const rs_fabric_t *f) { return (f->devices + f->devices_per_node - 1) / f->devices_per_node; }
int64_t rs_fabric_node(const rs_fabric_t *f, int64_t d) { return d / f->devices_per_node; }
int64_t rs_fabric_nic(const rs_fabric_t *f, int64_t d) {
    return (d % f->devices_per_node) * f->nics_per_node / f->devices_per_node;
}
bool rs_fabric_same_node(const rs_fabric_t *f, int64_t a, int64_t b) { return rs_fabric_node(f, a) == rs_fabric_node(f, b); }

/* groups of nodes_per_leaf nodes (one group for flat) */
static int64_t n_groups(const rs_fabric_t *f) {
    if (f->kind == RS_FABRIC_FLAT) return 1;
    return (rs_fabric_nodes(f) + f->nodes_per_leaf - 1) / f->nodes_per_leaf;
}

static int64_t group_nodes(const rs_fabric_t *f, int64_t g) {
    if (f->kind == RS_FABRIC_FLAT) return rs_fabric_nodes(f);
    const int64_t left = rs_fabric_nodes(f) - g * f->nodes_per_leaf;
    return left < f->nodes_per_leaf ? left : f->nodes_per_leaf;
}

int64_t rs_fabric_leaves(const rs_fabric_t *f) {
    return f->kind == RS_FABRIC_RAIL ? n_groups(f) * f->nics_per_node : n_groups(f);
}

int64_t rs_fabric_leaf(const rs_fabric_t *f, int64_t d) {
    if (f->kind == RS_FABRIC_FLAT) return 0;
    const int64_t g = rs_fabric_node(f, d) / f->nodes_per_leaf;
    return f->kind == RS_FABRIC_RAIL ? g * f->nics_per_node + rs_fabric_nic(f, d) : g;
}

int64_t rs_fabric_leaf_ports(const rs_fabric_t *f, int64_t leaf) {
    if (f->kind == RS_FABRIC_RAIL) return group_nodes(f, leaf / f->nics_per_node); /* NIC j of each node */
    return group_nodes(f, leaf) * f->nics_per_node;
}

double rs_fabric_uplink_bw(const rs_fabric_t *f, int64_t leaf) {
    return (double)rs_fabric_leaf_ports(f, leaf) * f->inter.bw_bytes_per_s / f->oversub;
}

const char *rs_fabric_describe(const rs_fabric_t *f, char *buf, size_t len) {
    const int64_t nodes = rs_fabric_nodes(f), leaves = rs_fabric_leaves(f), g = n_groups(f);
    char sw[200];
    if (f->kind == RS_FABRIC_FLAT)
        snprintf(sw, sizeof sw, "one non-blocking switch");
    else if (f->kind == RS_FABRIC_LEAF_SPINE)
        snprintf(sw, sizeof sw, "%" PRId64 " leaves of up to %" PRId64 " nodes%s, spine %.6g:1", leaves,
                 f->nodes_per_leaf, leaves > 1 ? "" : " (no spine crossed)", f->oversub);
    else
        snprintf(sw, sizeof sw, "%" PRId64 " rail leaves (%" PRId64 " rails x %" PRId64 " groups of up to %" PRId64
                                " nodes), spine %.6g:1", leaves, f->nics_per_node, g, f->nodes_per_leaf, f->oversub);
    snprintf(buf, len,
             "%s: %" PRId64 " nodes x %" PRId64 " devices, %" PRId64 " NICs per node (%.6g devices per NIC), %s "
             "(intra %s %.6g GB/s %.6g us, inter %s %.6g GB/s %.6g us)",
             rs_fabric_kind_name(f->kind), nodes, f->devices_per_node, f->nics_per_node,
             (double)f->devices_per_node / (double)f->nics_per_node, sw, f->intra.name, f->intra.bw_bytes_per_s / 1e9,
             f->intra.latency_s * 1e6, f->inter.name, f->inter.bw_bytes_per_s / 1e9, f->inter.latency_s * 1e6);
    return buf;
}

/* ================================================================================================
 * XML
 * ============================================================================================== */
/* A link's rate: bandwidth (bytes/s), latency (s), and FATPIPE sharing (each flow alone up to the
 * bandwidth) or SHARED (flows share it). */
typedef struct {
    double bw, lat;
    bool fatpipe;
} link_rate_t;

static void put_link(FILE *fp, const char *id, link_rate_t r) {
    fprintf(fp, "  <link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\"%s/>\n", id, r.bw, r.lat,
            r.fatpipe ? " sharing_policy=\"FATPIPE\"" : "");
}

/* an edge of the routing graph: src -> dst over up to three links */
static void put_edge(FILE *fp, const char *src, const char *dst, const char *l1, const char *l2, const char *l3) {
    fprintf(fp, "  <route src=\"%s\" dst=\"%s\" symmetrical=\"NO\"><link_ctn id=\"%s\"/>", src, dst, l1);
    if (l2) fprintf(fp, "<link_ctn id=\"%s\"/>", l2);
    if (l3) fprintf(fp, "<link_ctn id=\"%s\"/>", l3);
    fprintf(fp, "</route>\n");
}

/* Links "<name>-<a>" (at r) and "<name>-<b>" (r with latency 0). */
static void put_pair(FILE *fp, const char *name, const char *a, const char *b, link_rate_t r) {
    char id[128];
    snprintf(id, sizeof id, "%s-%s", name, a);
    put_link(fp, id, r);
    snprintf(id, sizeof id, "%s-%s", name, b);
    r.lat = 0;
    put_link(fp, id, r);
}

static void write_links(FILE *fp, const rs_fabric_t *f) {
    const int64_t nodes = rs_fabric_nodes(f), leaves = rs_fabric_leaves(f);
    const double wi = f->intra.bw_bytes_per_s, wx = f->inter.bw_bytes_per_s;
    char a[96];
    for (int64_t d = 0; d < f->devices; d++) {
        snprintf(a, sizeof a, "nvl%" PRId64, d);
        put_pair(fp, a, "up", "down", (link_rate_t){wi, f->intra.latency_s, false});
        snprintf(a, sizeof a, "pcie%" PRId64, d);
        put_pair(fp, a, "up", "down", (link_rate_t){wx, 0, true});
    }
    for (int64_t n = 0; n < nodes; n++) {
        snprintf(a, sizeof a, "nvsw%" PRId64, n);
        put_pair(fp, a, "in", "out", (link_rate_t){wi, 0, true});
        for (int64_t j = 0; j < f->nics_per_node; j++) {
            snprintf(a, sizeof a, "nic%" PRId64 ".%" PRId64, n, j);
            put_pair(fp, a, "up", "down", (link_rate_t){wx, f->inter.latency_s, false});
        }
    }
    for (int64_t i = 0; i < leaves; i++) {
        snprintf(a, sizeof a, "leaf%" PRId64, i);
        put_pair(fp, a, "in", "out", (link_rate_t){wx, 0, true});
        if (leaves > 1) put_pair(fp, a, "up", "down", (link_rate_t){rs_fabric_uplink_bw(f, i), 0, false});
    }
}

static void write_edges(FILE *fp, const rs_fabric_t *f) {
    const int64_t leaves = rs_fabric_leaves(f);
    char h[48], sw[48], l1[96], l2[96], l3[96];
    for (int64_t d = 0; d < f->devices; d++) {
        const int64_t n = rs_fabric_node(f, d), j = rs_fabric_nic(f, d), leaf = rs_fabric_leaf(f, d);
        snprintf(h, sizeof h, "gpu%" PRId64, d);
        snprintf(sw, sizeof sw, "nvsw%" PRId64, n);
        snprintf(l1, sizeof l1, "nvl%" PRId64 "-up", d);
        snprintf(l2, sizeof l2, "nvsw%" PRId64 "-in", n);
        put_edge(fp, h, sw, l1, l2, NULL);
        snprintf(l1, sizeof l1, "nvsw%" PRId64 "-out", n);
        snprintf(l2, sizeof l2, "nvl%" PRId64 "-down", d);
        put_edge(fp, sw, h, l1, l2, NULL);
        snprintf(sw, sizeof sw, "leaf%" PRId64, leaf);
        snprintf(l1, sizeof l1, "pcie%" PRId64 "-up", d);
        snprintf(l2, sizeof l2, "nic%" PRId64 ".%" PRId64 "-up", n, j);
        snprintf(l3, sizeof l3, "leaf%" PRId64 "-in", leaf);
        put_edge(fp, h, sw, l1, l2, l3);
        snprintf(l1, sizeof l1, "leaf%" PRId64 "-out", leaf);
        snprintf(l2, sizeof l2, "nic%" PRId64 ".%" PRId64 "-down", n, j);
        snprintf(l3, sizeof l3, "pcie%" PRId64 "-down", d);
        put_edge(fp, sw, h, l1, l2, l3);
    }
    for (int64_t i = 0; i < leaves && leaves > 1; i++) {
        snprintf(sw, sizeof sw, "leaf%" PRId64, i);
        snprintf(l1, sizeof l1, "leaf%" PRId64 "-up", i);
        put_edge(fp, sw, "spine", l1, NULL, NULL);
        snprintf(l1, sizeof l1, "leaf%" PRId64 "-down", i);
        put_edge(fp, "spine", sw, l1, NULL, NULL);
    }
}

int rs_fabric_write(FILE *fp, const char *origin, const rs_fabric_t *f, rs_err_t *err) {
    char desc[512];
    const int64_t nodes = rs_fabric_nodes(f), leaves = rs_fabric_leaves(f);
    fprintf(fp, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
    fprintf(fp, "<!-- ringsim fabric: %s -->\n", rs_fabric_describe(f, desc, sizeof desc));
    fprintf(fp, "<!-- hosts gpu<d> (device d on node d / G); routers nvsw<n> (node n's NVSwitch), leaf<i>, spine;\n"
                "     SimGrid computes every path (fewest links). FATPIPE links never bind a flow: they are the\n"
                "     switch crossbars and PCIe paths, and weigh the edges so that the shortest path is the\n"
                "     physical one (ringsim sim/fabric.h). -->\n");
    fprintf(fp, "<platform version=\"4.1\">\n<zone id=\"fabric\" routing=\"DijkstraCache\">\n");
    for (int64_t d = 0; d < f->devices; d++)
        fprintf(fp, "  <host id=\"gpu%" PRId64 "\" speed=\"%.17gf\"/>\n", d, f->host_speed_flops);
    for (int64_t n = 0; n < nodes; n++) fprintf(fp, "  <router id=\"nvsw%" PRId64 "\"/>\n", n);
    for (int64_t i = 0; i < leaves; i++) fprintf(fp, "  <router id=\"leaf%" PRId64 "\"/>\n", i);
    if (leaves > 1) fprintf(fp, "  <router id=\"spine\"/>\n");
    write_links(fp, f);
    write_edges(fp, f);
    fprintf(fp, "</zone>\n</platform>\n");
    if (ferror(fp)) return rs_errf(err, "%s: write error while generating the fabric", origin);
    return 0;
}

static int write_fabric(FILE *fp, const char *origin, const void *f, rs_err_t *err) { return rs_fabric_write(fp, origin, f, err); }

int rs_fabric_write_file(const char *path, const rs_fabric_t *f, rs_err_t *err) { return rs_platform_save(path, write_fabric, f, err); }
