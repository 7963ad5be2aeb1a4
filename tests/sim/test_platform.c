/* test_platform.c - the generated platforms (sim/platform.c): the whole XML of small ring and
 * all-pairs platforms against the text worked out by hand, the hop and port bandwidths a degraded
 * hop gets, the descriptions, a write error; SimGrid on the all-pairs platform equals the walk; the
 * rank-to-host maps and their messages. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"
#include "sim_fixtures.h"
#include "test_main.h"

#define XML_HEAD "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"

/* A flat ring of 3 (1 PFLOP/s, 400 GB/s, 2 us): a link per hop, a route per hop, nothing else. */
RS_TEST(test_ring_of_3, "ring_of_3") {
    rs_machine_t m = machine(1e15, 400e9, 2e-6, 0, 0, 0);
    char *got = platform_text(&(rs_platform_spec_t){&m, 3, 1024, RS_PLATFORM_RING, 0});
    const char *want =
        XML_HEAD
        "<!-- ringsim: flat ring of 3 (nvl 400 GB/s, 2 us); ring routes; hosts gpu<p> hold rank p -->\n"
        "<platform version=\"4.1\">\n<zone id=\"ringsim\" routing=\"Full\">\n"
        "  <host id=\"gpu0\" speed=\"1000000000000000f\"/>\n"
        "  <host id=\"gpu1\" speed=\"1000000000000000f\"/>\n"
        "  <host id=\"gpu2\" speed=\"1000000000000000f\"/>\n"
        "  <link id=\"hop0\" bandwidth=\"400000000000Bps\" latency=\"1.9999999999999999e-06s\"/>\n"
        "  <link id=\"hop1\" bandwidth=\"400000000000Bps\" latency=\"1.9999999999999999e-06s\"/>\n"
        "  <link id=\"hop2\" bandwidth=\"400000000000Bps\" latency=\"1.9999999999999999e-06s\"/>\n"
        "  <route src=\"gpu0\" dst=\"gpu1\" symmetrical=\"NO\"><link_ctn id=\"hop0\"/></route>\n"
        "  <route src=\"gpu1\" dst=\"gpu2\" symmetrical=\"NO\"><link_ctn id=\"hop1\"/></route>\n"
        "  <route src=\"gpu2\" dst=\"gpu0\" symmetrical=\"NO\"><link_ctn id=\"hop2\"/></route>\n"
        "</zone>\n</platform>\n";
    CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
    /* one rank: its host alone */
    got = platform_text(&(rs_platform_spec_t){&m, 1, 1024, RS_PLATFORM_RING, 0});
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "  <host id=\"gpu0\" speed=\"1000000000000000f\"/>\n</zone>\n"));
    CU_ASSERT_PTR_NULL(strstr(got, "<link "));
    free(got);
}

/* All pairs on nodes of 2 (3 devices: node 0 holds 0 and 1, node 1 holds 2), NICs at 50 GB/s, 5 us,
 * hop 1 (1 -> 2, across nodes) degraded 2x: every device a port of each tier, latency on the
 * uplinks; device 1's NIC uplink at 25 GB/s, its NVLink port untouched; a route per pair through
 * its tier's ports. */
RS_TEST(test_all_pairs_of_3, "all_pairs_of_3") {
    rs_machine_t m = machine(1e15, 400e9, 2e-6, 2, 50e9, 5e-6);
    m.perturb.n_degraded = 1, m.perturb.degraded_hop[0] = 1, m.perturb.degraded_factor[0] = 2;
    char *got = platform_text(&(rs_platform_spec_t){&m, 3, 1024, RS_PLATFORM_ALL_PAIRS, 0});
#define L(id, bw, lat) "  <link id=\"" id "\" bandwidth=\"" bw "Bps\" latency=\"" lat "s\"/>\n"
#define R(s, d, a, b) "  <route src=\"gpu" s "\" dst=\"gpu" d "\" symmetrical=\"NO\"><link_ctn id=\"" a "\"/><link_ctn id=\"" b "\"/></route>\n"
    const char *want =
        XML_HEAD
        "<!-- ringsim: 2 nodes x 2 (intra nvl 400 GB/s 2 us, inter ib 50 GB/s 5 us, one NIC per device); all-pairs routes; "
        "hosts gpu<p> hold rank p -->\n"
        "<platform version=\"4.1\">\n<zone id=\"ringsim\" routing=\"Full\">\n"
        "  <host id=\"gpu0\" speed=\"1000000000000000f\"/>\n"
        "  <host id=\"gpu1\" speed=\"1000000000000000f\"/>\n"
        "  <host id=\"gpu2\" speed=\"1000000000000000f\"/>\n"
        L("nvl0-up", "400000000000", "1.9999999999999999e-06") L("nvl0-down", "400000000000", "0")
        L("nic0-up", "50000000000", "5.0000000000000004e-06") L("nic0-down", "50000000000", "0")
        L("nvl1-up", "400000000000", "1.9999999999999999e-06") L("nvl1-down", "400000000000", "0")
        L("nic1-up", "25000000000", "5.0000000000000004e-06") L("nic1-down", "50000000000", "0")
        L("nvl2-up", "400000000000", "1.9999999999999999e-06") L("nvl2-down", "400000000000", "0")
        L("nic2-up", "50000000000", "5.0000000000000004e-06") L("nic2-down", "50000000000", "0")
        R("0", "1", "nvl0-up", "nvl1-down") R("0", "2", "nic0-up", "nic2-down")
        R("1", "0", "nvl1-up", "nvl0-down") R("1", "2", "nic1-up", "nic2-down")
        R("2", "0", "nic2-up", "nic0-down") R("2", "1", "nic2-up", "nic1-down")
        "</zone>\n</platform>\n";
#undef L
#undef R
    CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
}

/* 8 ranks on nodes of 4, ring routes: the hops' links and routes as the machine places them. */
RS_TEST(test_platform_xml, "platform_xml") {
    rs_machine_t m = machine(F_H100, W_NVL, 3e-6, 4, 50e9, 5e-6);
    m.perturb.n_degraded = 1, m.perturb.degraded_hop[0] = 1, m.perturb.degraded_factor[0] = 2;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    rs_err_t err;
    CU_ASSERT_EQUAL(rs_platform_write(fp, "mem", &(rs_platform_spec_t){&m, 8, 1024, RS_PLATFORM_RING, 0}, &err), 0);
    fclose(fp);
    /* intra hop 1 degraded to 225 GB/s; hop 3 crosses nodes via the NICs; hop 7 wraps to node 0 */
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<link id=\"hop1\" bandwidth=\"225000000000Bps\" latency=\"3.0000000000000001e-06s\"/>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<route src=\"gpu3\" dst=\"gpu4\" symmetrical=\"NO\"><link_ctn id=\"nic3-up\"/><link_ctn id=\"nic4-down\"/></route>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<route src=\"gpu7\" dst=\"gpu0\" symmetrical=\"NO\"><link_ctn id=\"nic7-up\"/><link_ctn id=\"nic0-down\"/></route>"));
    CU_ASSERT_PTR_NULL(strstr(buf, "hop3\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<host id=\"gpu0\" speed=\"989000000000000f\"/>"));
    free(buf);
}

/* Host names and descriptions; a stream that cannot be written: the origin named. */
RS_TEST(test_names, "names") {
    char buf[512];
    CU_ASSERT_STRING_EQUAL(rs_platform_host_name(12, buf, sizeof buf), "gpu12");
    rs_machine_t flat = machine(F_H100, W_NVL, 3e-6, 0, 0, 0), nodes = machine(F_H100, W_NVL, 3e-6, 8, W_IB, 5e-6);
    CU_ASSERT_STRING_EQUAL(rs_platform_describe(&flat, 8, buf, sizeof buf), "flat ring of 8 (nvl 450 GB/s, 3 us)");
    CU_ASSERT_STRING_EQUAL(rs_platform_describe(&nodes, 8, buf, sizeof buf), "flat ring of 8 (nvl 450 GB/s, 3 us)"); /* one node */
    CU_ASSERT_STRING_EQUAL(rs_platform_describe(&nodes, 20, buf, sizeof buf),
                           "3 nodes x 8 (intra nvl 450 GB/s 3 us, inter ib 50 GB/s 5 us, one NIC per device)");
    char *path = sim_tmp_path("ro.xml");
    write_text(path, "");
    FILE *ro = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ro);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_platform_write(ro, "ro.xml", &(rs_platform_spec_t){&flat, 4, 1024, RS_PLATFORM_RING, 0}, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "ro.xml: write error while generating the platform");
    fclose(ro);
    unlink(path);
}

/* The all-pairs platform (ports per device) gives the ring the same hops: still exact. */
RS_TEST(test_all_pairs_platform, "all_pairs_platform_exact") {
    rs_sim_config_t cfg;
    rs_sim_config_default(&cfg);
    cfg.routes = RS_PLATFORM_ALL_PAIRS;
    rs_machine_t flat = machine(F_H100, W_NVL, 3e-6, 0, 0, 0);
    rs_machine_t nodes = machine(F_H100, W_NVL, 3e-6, 4, 50e9, 5e-6);
    nodes.perturb.n_degraded = 1;
    nodes.perturb.degraded_hop[0] = 3; /* an inter-node hop */
    nodes.perturb.degraded_factor[0] = 2;
    rs_problem_t p = rs_test_problem(8, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    check_exact(&p, &flat, &cfg, "all-pairs flat");
    check_exact(&p, &nodes, &cfg, "all-pairs 2 nodes");
}

/* Host maps: gpu<p> for a generated platform; a file of "HOST" or "RANK HOST" lines with comments;
 * each malformed file's message with its file and line. */
RS_TEST(test_hostmaps, "hostmaps") {
    rs_hostmap_t h;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hostmap_identity(3, &h, &err), 0);
    CU_ASSERT_EQUAL(h.n_ranks, 3);
    CU_ASSERT_STRING_EQUAL(h.host[2], "gpu2");
    rs_hostmap_free(&h);
    CU_ASSERT_PTR_NULL(h.host);
    rs_hostmap_free(&h);
    char *map = sim_tmp_path("h.map"), want[1024];
    write_text(map, "# hosts in rank order\nnode-a\n\n  node-b   # rank 1\n");
    CU_ASSERT_EQUAL_FATAL(rs_hostmap_load(map, 2, &h, &err), 0);
    CU_ASSERT(!strcmp(h.host[0], "node-a") && !strcmp(h.host[1], "node-b"));
    CU_ASSERT(h.line[0] == 2 && h.line[1] == 4);
    rs_hostmap_free(&h);
    static const struct {
        const char *text, *msg; /* msg after "PATH" */
    } bad[] = {
        {"0 a b\n", ":1: expected \"HOST\" or \"RANK HOST\" (3 fields)"},
        {"a\nr1 b\n", ":2: expected \"HOST\" or \"RANK HOST\", got rank 'r1'"},
        {"5 a\n", ":1: rank 5 out of range [0, 2) (--ranks 2)"},
        {"1 a\n1 b\n", ":2: rank 1 already mapped at line 1"},
        {"1 a\n", ": rank 0 is not mapped to a host (every rank 0..1 needs one)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_text(map, bad[i].text);
        CU_ASSERT_EQUAL(rs_hostmap_load(map, 2, &h, &err), -1);
        snprintf(want, sizeof want, "%s%s", map, bad[i].msg);
        CU_ASSERT_STRING_EQUAL(err.msg, want);
        CU_ASSERT_PTR_NULL(h.host);
    }
    unlink(map);
}

RS_TEST_PROGRAM("platform")
