/* test_fabric.c - the generated fabrics (sim/fabric.c): a small rail fabric's placement, links,
 * bandwidths, edges and known paths worked out by hand, a leaf-spine platform's size, the knobs'
 * refusals with their messages, and the routes of each fabric as a job's child records them. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric.h"
#include "sim_fixtures.h"
#include "test_main.h"

/* How often needle stands in text. */
static int count(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* A rail fabric of 8 devices in nodes of 4 with 2 NICs each, one node per leaf group, spine 2:1
 * (intra 450 GB/s 1 us, inter 50 GB/s 4 us). By hand: 2 nodes; device d on node d / 4, NIC
 * (d mod 4) 2 / 4; 2 groups x 2 rails = 4 leaves, leaf g 2 + j; a rail leaf holds one NIC port,
 * its uplink 50 / 2 = 25 GB/s. Links: 8 devices x (nvl up/down + pcie up/down) = 32, 2 nodes x
 * (nvsw in/out + 2 NICs x up/down) = 12, 4 leaves x (in/out + up/down) = 16: 60; routers 2 NVSwitches,
 * 4 leaves and the spine; edges 4 per device + 2 per leaf = 40. */
RS_TEST(test_rail_by_hand, "rail_by_hand") {
    rs_machine_t m = nodes_of(4, 1e-6, 4e-6);
    rs_fabric_t f;
    rs_fabric_default(&f, &m, 8, 1e15);
    f.kind = RS_FABRIC_RAIL;
    f.nics_per_node = 2;
    f.nodes_per_leaf = 1;
    f.oversub = 2;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_fabric_validate(&f, &err), 0);
    CU_ASSERT_EQUAL(rs_fabric_nodes(&f), 2);
    CU_ASSERT_EQUAL(rs_fabric_leaves(&f), 4);
    const int64_t node[8] = {0, 0, 0, 0, 1, 1, 1, 1}, nic[8] = {0, 0, 1, 1, 0, 0, 1, 1}, leaf[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    for (int64_t d = 0; d < 8; d++) {
        CU_ASSERT_EQUAL(rs_fabric_node(&f, d), node[d]);
        CU_ASSERT_EQUAL(rs_fabric_nic(&f, d), nic[d]);
        CU_ASSERT_EQUAL(rs_fabric_leaf(&f, d), leaf[d]);
    }
    CU_ASSERT(rs_fabric_same_node(&f, 1, 3) && !rs_fabric_same_node(&f, 3, 4));
    for (int64_t i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(rs_fabric_leaf_ports(&f, i), 1);
        CU_ASSERT_EQUAL(rs_fabric_uplink_bw(&f, i), 25e9);
    }
    char desc[512];
    CU_ASSERT_STRING_EQUAL(rs_fabric_describe(&f, desc, sizeof desc),
                           "rail: 2 nodes x 4 devices, 2 NICs per node (2 devices per NIC), 4 rail leaves (2 rails x 2 groups "
                           "of up to 1 nodes), spine 2:1 (intra nvl 450 GB/s 1 us, inter ib 50 GB/s 4 us)");
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL_FATAL(rs_fabric_write(fp, "mem", &f, &err), 0);
    fclose(fp);
    CU_ASSERT_EQUAL(count(buf, "<link "), 60);
    CU_ASSERT_EQUAL(count(buf, "sharing_policy=\"FATPIPE\""), 16 + 4 + 8); /* pcie, nvsw, leaf in/out */
    CU_ASSERT_EQUAL(count(buf, "<router "), 7);
    CU_ASSERT_EQUAL(count(buf, "<host "), 8);
    CU_ASSERT_EQUAL(count(buf, "<route "), 40);
    CU_ASSERT_EQUAL(count(buf, "<zone id=\"fabric\" routing=\"DijkstraCache\">"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "  <host id=\"gpu7\" speed=\"1000000000000000f\"/>\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "  <link id=\"nvl5-up\" bandwidth=\"450000000000Bps\" latency=\"9.9999999999999995e-07s\"/>\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "  <link id=\"nvl5-down\" bandwidth=\"450000000000Bps\" latency=\"0s\"/>\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "  <link id=\"pcie5-up\" bandwidth=\"50000000000Bps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "  <link id=\"nic1.1-up\" bandwidth=\"50000000000Bps\" latency=\"3.9999999999999998e-06s\"/>\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "  <link id=\"nic1.1-down\" bandwidth=\"50000000000Bps\" latency=\"0s\"/>\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "  <link id=\"leaf3-up\" bandwidth=\"25000000000Bps\" latency=\"0s\"/>\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "  <link id=\"leaf3-in\" bandwidth=\"50000000000Bps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n"));
    /* device 6 (node 1, NIC 1, leaf 3): its NVSwitch edges, its NIC's path to its rail leaf, back */
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<route src=\"gpu6\" dst=\"nvsw1\" symmetrical=\"NO\"><link_ctn id=\"nvl6-up\"/>"
                                       "<link_ctn id=\"nvsw1-in\"/></route>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<route src=\"gpu6\" dst=\"leaf3\" symmetrical=\"NO\"><link_ctn id=\"pcie6-up\"/>"
                                       "<link_ctn id=\"nic1.1-up\"/><link_ctn id=\"leaf3-in\"/></route>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<route src=\"leaf3\" dst=\"gpu6\" symmetrical=\"NO\"><link_ctn id=\"leaf3-out\"/>"
                                       "<link_ctn id=\"nic1.1-down\"/><link_ctn id=\"pcie6-down\"/></route>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<route src=\"spine\" dst=\"leaf3\" symmetrical=\"NO\"><link_ctn id=\"leaf3-down\"/></route>"));
    free(buf);
    /* the known paths, edge by edge, each edge's links last first (SimGrid's Dijkstra order): 1 -> 3
     * inside node 0; 2 (NIC 0.1, leaf 1) -> 7 (NIC 1.1, leaf 3) across the spine; 7 -> 6 shares
     * NIC 1.1 (same node: NVLink); none to itself */
    static const struct {
        int64_t a, b;
        const char *links;
    } path[] = {
        {1, 3, "nvsw0-in nvl1-up nvl3-down nvsw0-out"},
        {2, 7, "leaf1-in nic0.1-up pcie2-up leaf1-up leaf3-down pcie7-down nic1.1-down leaf3-out"},
        {7, 6, "nvsw1-in nvl7-up nvl6-down nvsw1-out"},
        {5, 5, ""},
    };
    for (size_t i = 0; i < sizeof path / sizeof *path; i++) {
        rs_flink_t r[RS_FABRIC_ROUTE_MAX];
        const int n = rs_fabric_route(&f, path[i].a, path[i].b, r);
        char got[512] = "";
        for (int k = 0; k < n; k++) {
            rs_flink_rate_t l;
            rs_fabric_link(&f, r[k], &l);
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", k ? " " : "", l.name);
        }
        CU_ASSERT_STRING_EQUAL(got, path[i].links);
    }
    rs_flink_rate_t l;
    rs_fabric_link(&f, (rs_flink_t){RS_FLINK_LEAF_UP, 2}, &l); /* a rail leaf's uplink: 1 port x 50 / 2 */
    CU_ASSERT(l.bw_bytes_per_s == 25e9 && l.latency_s == 0 && !l.fatpipe);
    rs_fabric_link(&f, (rs_flink_t){RS_FLINK_NIC_UP, 3}, &l);
    CU_ASSERT(!strcmp(l.name, "nic1.1-up") && l.bw_bytes_per_s == 50e9 && l.latency_s == 4e-6 && !l.fatpipe);
    CU_ASSERT_EQUAL(rs_fabric_link_count(&f, RS_FLINK_NIC_DOWN), 4);
    CU_ASSERT_EQUAL(rs_fabric_link_count(&f, RS_FLINK_LEAF_DOWN), 4);
}

/* Flat and leaf-spine: one switch holds every NIC; leaves of M nodes, each NIC port's share of the
 * uplink; the last leaf of a partial group has fewer ports. */
RS_TEST(test_flat_and_leaf_spine, "flat_and_leaf_spine") {
    rs_machine_t m = nodes_of(8, 0, 0);
    rs_fabric_t f;
    rs_fabric_default(&f, &m, 40, 1e15); /* 5 nodes */
    CU_ASSERT_EQUAL(f.kind, RS_FABRIC_FLAT);
    CU_ASSERT_EQUAL(f.nics_per_node, 8);
    CU_ASSERT_EQUAL(f.nodes_per_leaf, 4); /* 32 / K */
    CU_ASSERT_EQUAL(f.oversub, 1);
    CU_ASSERT_EQUAL(rs_fabric_leaves(&f), 1);
    CU_ASSERT_EQUAL(rs_fabric_leaf(&f, 39), 0);
    f.kind = RS_FABRIC_LEAF_SPINE;
    f.nodes_per_leaf = 2;
    f.oversub = 4;
    CU_ASSERT_EQUAL(rs_fabric_leaves(&f), 3);
    CU_ASSERT_EQUAL(rs_fabric_leaf(&f, 39), 2);
    CU_ASSERT_EQUAL(rs_fabric_leaf_ports(&f, 0), 16);
    CU_ASSERT_EQUAL(rs_fabric_leaf_ports(&f, 2), 8);
    CU_ASSERT_EQUAL(rs_fabric_uplink_bw(&f, 0), 16 * W_IB / 4);
    CU_ASSERT_EQUAL(rs_fabric_uplink_bw(&f, 2), 8 * W_IB / 4);
    rs_fabric_kind_t k;
    for (int i = 0; i < RS_FABRIC_COUNT; i++) {
        CU_ASSERT_EQUAL(rs_fabric_kind_parse(rs_fabric_kind_name((rs_fabric_kind_t)i), &k), 0);
        CU_ASSERT_EQUAL(k, i);
    }
    CU_ASSERT_STRING_EQUAL(rs_fabric_kind_name(RS_FABRIC_LEAF_SPINE), "leaf-spine");
    CU_ASSERT_EQUAL(rs_fabric_kind_parse("torus", &k), -1);
}

/* The platform: one DijkstraCache zone, edges linear in the devices (4 per device + 2 per leaf with a
 * spine), never a route per device pair. */
RS_TEST(test_platform_xml, "platform_xml") {
    rs_machine_t m = nodes_of(8, 1e-6, 4e-6);
    rs_problem_t p = problem(16, 512, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    rs_job_t j = grid_job(&m, &p, 8, 1, TP_CP_DP, (test_fabric_t){RS_FABRIC_LEAF_SPINE, 4, 2, 2});
    char path[] = "/tmp/ringsim-test-fabric-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_fabric_write_file(path, &j.fabric, &err), 0);
    FILE *fp = fopen(path, "r");
    char line[1024];
    int routes = 0, zones = 0, hosts = 0, uplinks = 0;
    while (fgets(line, sizeof line, fp)) {
        routes += strstr(line, "<route ") != NULL;
        zones += strstr(line, "routing=\"DijkstraCache\"") != NULL;
        hosts += strstr(line, "<host ") != NULL;
        if (strstr(line, "<link id=\"leaf0-up\"")) {
            uplinks++;
            /* 2 nodes x 4 NICs x 50 GB/s / 2 */
            CU_ASSERT_PTR_NOT_NULL(strstr(line, "bandwidth=\"200000000000Bps\""));
        }
    }
    fclose(fp);
    unlink(path);
    CU_ASSERT_EQUAL(zones, 1);
    CU_ASSERT_EQUAL(hosts, 128);
    CU_ASSERT_EQUAL(uplinks, 1);
    CU_ASSERT_EQUAL(routes, 4 * 128 + 2 * 8); /* 16 nodes / 2 per leaf = 8 leaves */
    rs_job_free(&j);
}

/* The knobs refused, each with its option and rule. */
RS_TEST(test_refused, "refused") {
    rs_err_t err = {0};
    rs_machine_t m = nodes_of(8, 0, 0);
    rs_fabric_t f;
    rs_fabric_default(&f, &m, 16, 1e12);
    f.nics_per_node = 16;
    CU_ASSERT_EQUAL(rs_fabric_validate(&f, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--nics 16"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "K <= G"));
    f.nics_per_node = 8;
    f.oversub = 0.5;
    CU_ASSERT_EQUAL(rs_fabric_validate(&f, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--oversub 0.5: must be >= 1"));
    rs_fabric_default(&f, &m, 16, 1e12);
    static const struct {
        int what;
        const char *msg;
    } bad[] = {
        {0, "fabric: 0 devices: needs at least 1"},
        {1, "--gpus-per-node 0: a fabric needs nodes of G >= 1 devices"},
        {2, "--nics 0: must be in [1, G = 8] (K <= G: a node has at most one NIC per device)"},
        {3, "--nodes-per-leaf 0: must be >= 1"},
        {4, "--oversub nan: must be >= 1 (leaf downlink : uplink capacity; 1 = non-blocking)"},
        {5, "fabric: tier bandwidths must be positive and finite, latencies >= 0"},
        {6, "fabric: host speed 0 FLOP/s must be positive"},
        {7, "--fabric: expected flat, leaf-spine or rail"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rs_fabric_t g = f;
        switch (bad[i].what) {
        case 0: g.devices = 0; break;
        case 1: g.devices_per_node = 0; break;
        case 2: g.nics_per_node = 0; break;
        case 3: g.nodes_per_leaf = 0; break;
        case 4: g.oversub = NAN; break;
        case 5: g.inter.latency_s = -1; break;
        case 6: g.host_speed_flops = 0; break;
        default: g.kind = RS_FABRIC_COUNT; break;
        }
        CU_ASSERT_EQUAL(rs_fabric_validate(&g, &err), -1);
        CU_ASSERT_STRING_EQUAL(err.msg, bad[i].msg);
    }
    CU_ASSERT_EQUAL(rs_fabric_validate(&f, &err), 0);
}

/* ------------------------------------------------------------------------------------------------
 * Routes on each fabric (SimGrid's own paths, as the simulator records them)
 * ---------------------------------------------------------------------------------------------- */
static bool route_has(const rs_job_result_t *r, const rs_hop_result_t *h, const char *name) {
    for (int i = 0; i < h->n_route; i++)
        if (!strcmp(r->links[h->route[i]].name, name)) return true;
    return false;
}

/* Shared links of every hop: NVLink ports inside a node; the two NICs on one leaf; plus the two leaf
 * uplinks across leaves (leaf-spine: node / M; rail: its rail's leaf of the group). */
static void check_routes(rs_fabric_kind_t kind, const rs_dim_t *order, int64_t tp, int64_t cp) {
    rs_machine_t m = nodes_of(4, 1e-6, 4e-6);
    rs_problem_t p = problem(cp, 512, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, false);
    rs_job_t j = grid_job(&m, &p, tp, 1, order, (test_fabric_t){kind, 2, 2, 1});
    rs_sim_result_t r;
    CU_ASSERT_EQUAL_FATAL(run_job(&p, &m, &j, &r), 0);
    const rs_job_result_t *jr = r.job;
    const rs_fabric_t *f = &j.fabric;
    char a[64], b[64];
    for (int64_t k = 0; k < jr->n_hops; k++) {
        const rs_hop_result_t *h = &jr->hops[k];
        const int64_t s = h->src, d = h->dst;
        if (rs_fabric_same_node(f, s, d)) {
            snprintf(a, sizeof a, "nvl%lld-up", (long long)s);
            snprintf(b, sizeof b, "nvl%lld-down", (long long)d);
            CU_ASSERT(h->n_route == 2 && route_has(jr, h, a) && route_has(jr, h, b));
            RS_ASSERT_REL(h->latency_s, 1e-6, 1e-12);
            continue;
        }
        snprintf(a, sizeof a, "nic%lld.%lld-up", (long long)rs_fabric_node(f, s), (long long)rs_fabric_nic(f, s));
        snprintf(b, sizeof b, "nic%lld.%lld-down", (long long)rs_fabric_node(f, d), (long long)rs_fabric_nic(f, d));
        CU_ASSERT(route_has(jr, h, a) && route_has(jr, h, b));
        const int64_t ls = rs_fabric_leaf(f, s), ld = rs_fabric_leaf(f, d);
        CU_ASSERT_EQUAL(h->n_route, ls == ld ? 2 : 4);
        if (ls != ld) {
            snprintf(a, sizeof a, "leaf%lld-up", (long long)ls);
            snprintf(b, sizeof b, "leaf%lld-down", (long long)ld);
            CU_ASSERT(route_has(jr, h, a) && route_has(jr, h, b));
        }
        RS_ASSERT_REL(h->latency_s, 4e-6, 1e-12);
    }
    rs_sim_result_free(&r);
    rs_job_free(&j);
}

RS_TEST(test_routes, "routes") {
    /* 4 nodes of 4, 2 NICs each, 2 nodes per leaf: rings across nodes (tp-cp) and rings inside nodes
     * (cp-tp) on each fabric */
    for (int k = 0; k < RS_FABRIC_COUNT; k++) {
        check_routes((rs_fabric_kind_t)k, TP_CP_DP, 4, 4);
        check_routes((rs_fabric_kind_t)k, CP_TP_DP, 2, 8);
    }
}

RS_TEST_PROGRAM("fabric")
