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
int64_t rs_fabric_nic_link(const rs_fabric_t *f, int64_t d) { return rs_fabric_node(f, d) * f->nics_per_node + rs_fabric_nic(f, d); }
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
 * Links and paths
 * ============================================================================================== */
int64_t rs_fabric_link_count(const rs_fabric_t *f, rs_flink_kind_t kind) {
    const int64_t leaves = rs_fabric_leaves(f);
    switch (kind) {
    case RS_FLINK_NVL_UP: case RS_FLINK_NVL_DOWN: case RS_FLINK_PCIE_UP: case RS_FLINK_PCIE_DOWN: return f->devices;
    case RS_FLINK_NVSW_IN: case RS_FLINK_NVSW_OUT: return rs_fabric_nodes(f);
    case RS_FLINK_NIC_UP: case RS_FLINK_NIC_DOWN: return rs_fabric_nodes(f) * f->nics_per_node;
    case RS_FLINK_LEAF_IN: case RS_FLINK_LEAF_OUT: return leaves;
    case RS_FLINK_LEAF_UP: case RS_FLINK_LEAF_DOWN: return leaves > 1 ? leaves : 0;
    default: return 0;
    }
}

void rs_fabric_link(const rs_fabric_t *f, rs_flink_t l, rs_flink_rate_t *out) {
    static const char *const what[RS_FLINK_COUNT] = {"nvl", "nvl", "pcie", "pcie", "nvsw", "nvsw", "nic", "nic", "leaf", "leaf", "leaf", "leaf"};
    static const char *const dir[RS_FLINK_COUNT] = {"up", "down", "up", "down", "in", "out", "up", "down", "in", "out", "up", "down"};
    rs_fabric_link_rate(f, l, out);
    if (l.kind == RS_FLINK_NIC_UP || l.kind == RS_FLINK_NIC_DOWN)
        snprintf(out->name, sizeof out->name, "nic%" PRId64 ".%" PRId64 "-%s", l.index / f->nics_per_node,
                 l.index % f->nics_per_node, dir[l.kind]);
    else
        snprintf(out->name, sizeof out->name, "%s%" PRId64 "-%s", what[l.kind], l.index, dir[l.kind]);
}

bool rs_fabric_link_shared(rs_flink_kind_t k) {
    return k == RS_FLINK_NVL_UP || k == RS_FLINK_NVL_DOWN || k == RS_FLINK_NIC_UP || k == RS_FLINK_NIC_DOWN ||
           k == RS_FLINK_LEAF_UP || k == RS_FLINK_LEAF_DOWN;
}

void rs_fabric_link_rate(const rs_fabric_t *f, rs_flink_t l, rs_flink_rate_t *out) {
    out->name[0] = '\0';
    out->bw_bytes_per_s = f->inter.bw_bytes_per_s; /* PCIe paths, NICs and leaf crossbars */
    out->latency_s = 0;
    out->fatpipe = !rs_fabric_link_shared(l.kind);
    switch (l.kind) {
    case RS_FLINK_NVL_UP: /* the device's NVLink port: latency on -up */
        out->latency_s = f->intra.latency_s;
        /* fall through */
    case RS_FLINK_NVL_DOWN:
    case RS_FLINK_NVSW_IN: case RS_FLINK_NVSW_OUT: /* the NVSwitch crossbar: FATPIPE */
        out->bw_bytes_per_s = f->intra.bw_bytes_per_s;
        break;
    case RS_FLINK_NIC_UP: /* a NIC, shared by its devices: latency on -up */
        out->latency_s = f->inter.latency_s;
        break;
    case RS_FLINK_LEAF_UP: case RS_FLINK_LEAF_DOWN: /* the leaf's uplink to the spine */
        out->bw_bytes_per_s = rs_fabric_uplink_bw(f, l.index);
        break;
    default: break;
    }
}

int rs_fabric_route(const rs_fabric_t *f, int64_t a, int64_t b, rs_flink_t route[RS_FABRIC_ROUTE_MAX]) {
    if (a == b) return 0;
    int n = 0;
    const int64_t na = rs_fabric_node(f, a), nb = rs_fabric_node(f, b);
    if (na == nb) { /* edges gpu<a> -> nvsw<n> -> gpu<b>, each one's links last first */
        route[n++] = (rs_flink_t){RS_FLINK_NVSW_IN, na};
        route[n++] = (rs_flink_t){RS_FLINK_NVL_UP, a};
        route[n++] = (rs_flink_t){RS_FLINK_NVL_DOWN, b};
        route[n++] = (rs_flink_t){RS_FLINK_NVSW_OUT, na};
        return n;
    }
    /* edges gpu<a> -> leaf<i> [-> spine -> leaf<k>] -> gpu<b> */
    const int64_t la = rs_fabric_leaf(f, a), lb = rs_fabric_leaf(f, b);
    route[n++] = (rs_flink_t){RS_FLINK_LEAF_IN, la};
    route[n++] = (rs_flink_t){RS_FLINK_NIC_UP, rs_fabric_nic_link(f, a)};
    route[n++] = (rs_flink_t){RS_FLINK_PCIE_UP, a};
    if (la != lb) {
        route[n++] = (rs_flink_t){RS_FLINK_LEAF_UP, la};
        route[n++] = (rs_flink_t){RS_FLINK_LEAF_DOWN, lb};
    }
    route[n++] = (rs_flink_t){RS_FLINK_PCIE_DOWN, b};
    route[n++] = (rs_flink_t){RS_FLINK_NIC_DOWN, rs_fabric_nic_link(f, b)};
    route[n++] = (rs_flink_t){RS_FLINK_LEAF_OUT, lb};
    return n;
}

/* ================================================================================================
 * XML
 * ============================================================================================== */
static void put_link(FILE *fp, const rs_fabric_t *f, rs_flink_kind_t kind, int64_t index) {
    rs_flink_rate_t r;
    rs_fabric_link(f, (rs_flink_t){kind, index}, &r);
    fprintf(fp, "  <link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\"%s/>\n", r.name, r.bw_bytes_per_s, r.latency_s,
            r.fatpipe ? " sharing_policy=\"FATPIPE\"" : "");
}

static void write_links(FILE *fp, const rs_fabric_t *f) {
    for (int64_t d = 0; d < f->devices; d++)
        for (int k = RS_FLINK_NVL_UP; k <= RS_FLINK_PCIE_DOWN; k++) put_link(fp, f, (rs_flink_kind_t)k, d);
    const int64_t nodes = rs_fabric_nodes(f), k = f->nics_per_node, leaves = rs_fabric_leaves(f);
    for (int64_t n = 0; n < nodes; n++) {
        put_link(fp, f, RS_FLINK_NVSW_IN, n);
        put_link(fp, f, RS_FLINK_NVSW_OUT, n);
        for (int64_t i = n * k; i < (n + 1) * k; i++) { /* the node's NICs: links n K .. n K + K - 1 */
            put_link(fp, f, RS_FLINK_NIC_UP, i);
            put_link(fp, f, RS_FLINK_NIC_DOWN, i);
        }
    }
    int64_t count[RS_FLINK_COUNT];
    for (int k2 = RS_FLINK_LEAF_IN; k2 <= RS_FLINK_LEAF_DOWN; k2++) count[k2] = rs_fabric_link_count(f, (rs_flink_kind_t)k2);
    for (int64_t i = 0; i < leaves; i++)
        for (int k2 = RS_FLINK_LEAF_IN; k2 <= RS_FLINK_LEAF_DOWN; k2++)
            if (i < count[k2]) put_link(fp, f, (rs_flink_kind_t)k2, i);
}

/* an edge of the routing graph: src -> dst over the links l[0..n) */
static void put_edge(FILE *fp, const rs_fabric_t *f, const char *src, const char *dst, const rs_flink_t *l, int n) {
    fprintf(fp, "  <route src=\"%s\" dst=\"%s\" symmetrical=\"NO\">", src, dst);
    for (int i = 0; i < n; i++) {
        rs_flink_rate_t r;
        rs_fabric_link(f, l[i], &r);
        fprintf(fp, "<link_ctn id=\"%s\"/>", r.name);
    }
    fprintf(fp, "</route>\n");
}

static void write_edges(FILE *fp, const rs_fabric_t *f) {
    const int64_t leaves = rs_fabric_leaves(f);
    char h[48], sw[48];
    for (int64_t d = 0; d < f->devices; d++) {
        const int64_t n = rs_fabric_node(f, d), nic = rs_fabric_nic_link(f, d), leaf = rs_fabric_leaf(f, d);
        snprintf(h, sizeof h, "gpu%" PRId64, d);
        snprintf(sw, sizeof sw, "nvsw%" PRId64, n);
        put_edge(fp, f, h, sw, (rs_flink_t[]){{RS_FLINK_NVL_UP, d}, {RS_FLINK_NVSW_IN, n}}, 2);
        put_edge(fp, f, sw, h, (rs_flink_t[]){{RS_FLINK_NVSW_OUT, n}, {RS_FLINK_NVL_DOWN, d}}, 2);
        snprintf(sw, sizeof sw, "leaf%" PRId64, leaf);
        put_edge(fp, f, h, sw, (rs_flink_t[]){{RS_FLINK_PCIE_UP, d}, {RS_FLINK_NIC_UP, nic}, {RS_FLINK_LEAF_IN, leaf}}, 3);
        put_edge(fp, f, sw, h, (rs_flink_t[]){{RS_FLINK_LEAF_OUT, leaf}, {RS_FLINK_NIC_DOWN, nic}, {RS_FLINK_PCIE_DOWN, d}}, 3);
    }
    for (int64_t i = 0; i < leaves && leaves > 1; i++) {
        snprintf(sw, sizeof sw, "leaf%" PRId64, i);
        put_edge(fp, f, sw, "spine", (rs_flink_t[]){{RS_FLINK_LEAF_UP, i}}, 1);
        put_edge(fp, f, "spine", sw, (rs_flink_t[]){{RS_FLINK_LEAF_DOWN, i}}, 1);
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
