/* test_sgx_fabric.c - the fabric built in SimGrid with its known paths (sim/sgx_fabric.cpp) against
 * SimGrid's own shortest paths: on small fabrics (rail with a NIC per device and with shared NICs, a
 * 2:1 spine, leaf-spine over several leaves, a flat switch, a partial last node) every device pair's
 * route, as SimGrid reports it, is the Dijkstra route of the platform file link by link and in order,
 * with the same latency. Each platform lives in its own forked child (one SimGrid per process). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

#include "fabric.h"
#include "sgx_fabric.h"
#include "sim_fixtures.h"
#include "test_main.h"

static const rs_fabric_t *probe_f; /* the child's fabric */
static int probe_fd;               /* where the child reports "pairs mismatches" */

/* Every pair's route against rs_fabric_route: the link names in order and the latency. */
static void probe(int argc, char **argv) {
    (void)argc;
    (void)argv;
    const rs_fabric_t *f = probe_f;
    long pairs = 0, bad = 0;
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    char host[32];
    for (int64_t a = 0; a < f->devices; a++)
        for (int64_t b = 0; b < f->devices; b++) {
            if (a == b) continue;
            snprintf(host, sizeof host, "gpu%lld", (long long)a);
            sg_host_t ha = sg_host_by_name(host);
            snprintf(host, sizeof host, "gpu%lld", (long long)b);
            sg_host_t hb = sg_host_by_name(host);
            xbt_dynar_reset(links);
            sg_host_get_route(ha, hb, links);
            rs_flink_t want[RS_FABRIC_ROUTE_MAX];
            const int n = rs_fabric_route(f, a, b, want);
            bool ok = n > 0 && (int)xbt_dynar_length(links) == n;
            double lat = 0;
            for (int i = 0; i < n; i++) {
                rs_flink_rate_t r;
                rs_fabric_link(f, want[i], &r);
                lat += r.latency_s;
                if (ok && strcmp(sg_link_get_name(xbt_dynar_get_as(links, (unsigned)i, sg_link_t)), r.name) != 0) ok = false;
            }
            if (ok && sg_host_get_route_latency(ha, hb) != lat) ok = false;
            if (!ok && bad++ < 3) {
                fprintf(stderr, "  route gpu%lld -> gpu%lld (%g s):", (long long)a, (long long)b, sg_host_get_route_latency(ha, hb));
                for (unsigned i = 0; i < xbt_dynar_length(links); i++)
                    fprintf(stderr, " %s", sg_link_get_name(xbt_dynar_get_as(links, i, sg_link_t)));
                fprintf(stderr, "; expected %g s\n", lat);
            }
            pairs++;
        }
    xbt_dynar_free(&links);
    char line[64];
    const int len = snprintf(line, sizeof line, "%ld %ld\n", pairs, bad);
    if (write(probe_fd, line, (size_t)len) != len) _exit(3);
}

/* In a child: SimGrid with f's platform, from the file (Dijkstra) or built (known paths); the probe
 * over every pair. Returns the mismatches (-1 when the child failed), *pairs the pairs compared. */
static long routes_differ(const rs_fabric_t *f, bool built, long *pairs) {
    const char *path = sim_tmp_path("fabric.xml");
    rs_err_t err = {0};
    if (!built) CU_ASSERT_EQUAL_FATAL(rs_fabric_write_file(path, f, &err), 0);
    int fd[2];
    CU_ASSERT_EQUAL_FATAL(pipe(fd), 0);
    fflush(NULL);
    const pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        probe_f = f;
        probe_fd = fd[1];
        int argc = 1;
        char *argv[] = {"test_sgx_fabric", NULL};
        simgrid_init(&argc, argv);
        if (!built)
            simgrid_load_platform(path);
        else if (sgx_fabric_build(f, NULL) != 0)
            _exit(2);
        sg_actor_create("probe", sg_host_by_name("gpu0"), probe, 0, NULL);
        simgrid_run();
        _exit(0);
    }
    close(fd[1]);
    char line[64] = {0};
    const ssize_t got = read(fd[0], line, sizeof line - 1);
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (!built) unlink(path);
    long bad = -1;
    *pairs = 0;
    if (got > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && sscanf(line, "%ld %ld", pairs, &bad) == 2) return bad;
    return -1;
}

static rs_fabric_t fabric(rs_fabric_kind_t kind, int64_t devices, int64_t g, int64_t k, int64_t m, double oversub) {
    rs_machine_t mach = nodes_of(g, 1e-6, 4e-6);
    rs_fabric_t f;
    rs_fabric_default(&f, &mach, devices, 1e15);
    f.kind = kind;
    f.nics_per_node = k;
    f.nodes_per_leaf = m;
    f.oversub = oversub;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_fabric_validate(&f, &err), 0);
    return f;
}

RS_TEST(test_known_paths_are_dijkstra, "known_paths_are_dijkstra") {
    const rs_fabric_t fabrics[] = {
        fabric(RS_FABRIC_RAIL, 16, 4, 4, 2, 2),       /* 4 nodes, a NIC per device, 2 groups x 4 rails, 2:1 spine */
        fabric(RS_FABRIC_RAIL, 14, 4, 2, 1, 2),       /* shared NICs, one node per group, a partial last node */
        fabric(RS_FABRIC_RAIL, 16, 4, 1, 2, 1),       /* one NIC per node: 2 leaves */
        fabric(RS_FABRIC_LEAF_SPINE, 27, 4, 2, 3, 2), /* 7 nodes on 3 leaves, 2:1 */
        fabric(RS_FABRIC_LEAF_SPINE, 12, 4, 4, 8, 1), /* one leaf: no spine */
        fabric(RS_FABRIC_FLAT, 24, 8, 2, 1, 1),       /* 3 nodes on one switch */
        fabric(RS_FABRIC_FLAT, 8, 8, 8, 1, 1),        /* one node */
    };
    for (size_t i = 0; i < sizeof fabrics / sizeof *fabrics; i++) {
        const rs_fabric_t *f = &fabrics[i];
        const long want = (long)(f->devices * (f->devices - 1));
        long pairs = 0;
        CU_ASSERT_EQUAL(routes_differ(f, false, &pairs), 0); /* rs_fabric_route = SimGrid's Dijkstra */
        CU_ASSERT_EQUAL(pairs, want);
        CU_ASSERT_EQUAL(routes_differ(f, true, &pairs), 0); /* = the built zone's routes */
        CU_ASSERT_EQUAL(pairs, want);
    }
}

RS_TEST_PROGRAM("sgx_fabric")
