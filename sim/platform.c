/* platform.c - platform XML generation and rank-to-host mappings (platform.h). */
#include "platform.h"
#include "output.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================================================
 * Names and description
 * ============================================================================================== */
const char *rs_platform_host_name(int64_t rank, char *buf, size_t len) {
    snprintf(buf, len, "gpu%" PRId64, rank);
    return buf;
}

static bool multi_node(const rs_machine_t *m, int64_t n) {
    for (int64_t h = 0; h < n; h++)
        if (rs_machine_hop_inter(m, n, h)) return true;
    return false;
}

const char *rs_platform_describe(const rs_machine_t *m, int64_t n, char *buf, size_t len) {
    if (!multi_node(m, n)) {
        snprintf(buf, len, "flat ring of %" PRId64 " (%s %.6g GB/s, %.6g us)", n, m->intra.name,
                 m->intra.bw_bytes_per_s / 1e9, m->intra.latency_s * 1e6);
    } else {
        int64_t g = m->devices_per_node, nodes = (n + g - 1) / g;
        snprintf(buf, len,
                 "%" PRId64 " nodes x %" PRId64 " (intra %s %.6g GB/s %.6g us, inter %s %.6g GB/s %.6g us, one NIC per device)",
                 nodes, g, m->intra.name, m->intra.bw_bytes_per_s / 1e9, m->intra.latency_s * 1e6, m->inter.name,
                 m->inter.bw_bytes_per_s / 1e9, m->inter.latency_s * 1e6);
    }
    return buf;
}

/* ================================================================================================
 * XML
 * ============================================================================================== */
static void put_link(FILE *fp, const char *id, double bw, double lat) {
    fprintf(fp, "  <link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\"/>\n", id, bw, lat);
}

static void put_route(FILE *fp, int64_t src, int64_t dst, const char *l1, const char *l2) {
    fprintf(fp, "  <route src=\"gpu%" PRId64 "\" dst=\"gpu%" PRId64 "\" symmetrical=\"NO\">", src, dst);
    fprintf(fp, "<link_ctn id=\"%s\"/>", l1);
    if (l2) fprintf(fp, "<link_ctn id=\"%s\"/>", l2);
    fprintf(fp, "</route>\n");
}

/* node of rank r (0 on a flat ring) */
static int64_t node_of(const rs_machine_t *m, int64_t n, int64_t r) {
    (void)n;
    return m->devices_per_node > 0 ? r / m->devices_per_node : 0;
}

/* bandwidth of p's uplink of a tier in the all-pairs platform: the tier's, divided by the
 * degradation of hop p when hop p uses that tier (rs_machine_hop_bw holds that value) */
static double up_bw(const rs_machine_t *m, int64_t n, int64_t p, bool inter) {
    if (n > 1 && rs_machine_hop_inter(m, n, p) == inter) return rs_machine_hop_bw(m, n, p);
    return inter ? m->inter.bw_bytes_per_s : m->intra.bw_bytes_per_s;
}

int rs_platform_write(FILE *fp, const char *origin, const rs_platform_spec_t *spec, rs_err_t *err) {
    const rs_machine_t *m = spec->m;
    const int64_t n = spec->n_ranks;
    const rs_platform_routes_t routes = spec->routes;
    char desc[512], a[64], b[64];
    const bool multi = multi_node(m, n);
    const int64_t nh = spec->hosts > 0 && spec->hosts < n ? spec->hosts : n; /* hosts written */
    fprintf(fp, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
    fprintf(fp, "<!-- ringsim: %s; %s routes; hosts gpu<p> hold rank p -->\n", rs_platform_describe(m, n, desc, sizeof desc),
            routes == RS_PLATFORM_RING ? "ring" : "all-pairs");
    fprintf(fp, "<platform version=\"4.1\">\n<zone id=\"ringsim\" routing=\"Full\">\n");
    const double speed = rs_machine_flops_eff(m, spec->block_tokens);
    for (int64_t p = 0; p < nh; p++)
        fprintf(fp, "  <host id=\"gpu%" PRId64 "\" speed=\"%.17gf\"/>\n", p, speed);
    if (routes == RS_PLATFORM_RING) {
        for (int64_t p = 0; p < n && n > 1; p++) {
            if (p >= nh || (p + 1) % n >= nh) continue; /* a hop between hosts not written */
            if (!rs_machine_hop_inter(m, n, p)) {
                snprintf(a, sizeof a, "hop%" PRId64, p);
                put_link(fp, a, rs_machine_hop_bw(m, n, p), rs_machine_hop_latency(m, n, p));
            } else {
                const int64_t q = (p + 1) % n;
                snprintf(a, sizeof a, "nic%" PRId64 "-up", p);
                put_link(fp, a, rs_machine_hop_bw(m, n, p), rs_machine_hop_latency(m, n, p));
                snprintf(b, sizeof b, "nic%" PRId64 "-down", q);
                put_link(fp, b, m->inter.bw_bytes_per_s, 0.0);
            }
        }
        for (int64_t p = 0; p < n && n > 1; p++) {
            const int64_t q = (p + 1) % n;
            if (p >= nh || q >= nh) continue;
            if (!rs_machine_hop_inter(m, n, p)) {
                snprintf(a, sizeof a, "hop%" PRId64, p);
                put_route(fp, p, q, a, NULL);
            } else {
                snprintf(a, sizeof a, "nic%" PRId64 "-up", p);
                snprintf(b, sizeof b, "nic%" PRId64 "-down", q);
                put_route(fp, p, q, a, b);
            }
        }
    } else {
        for (int64_t p = 0; p < nh; p++) {
            snprintf(a, sizeof a, "nvl%" PRId64 "-up", p);
            put_link(fp, a, up_bw(m, n, p, false), m->intra.latency_s);
            snprintf(a, sizeof a, "nvl%" PRId64 "-down", p);
            put_link(fp, a, m->intra.bw_bytes_per_s, 0.0);
            if (multi) {
                snprintf(a, sizeof a, "nic%" PRId64 "-up", p);
                put_link(fp, a, up_bw(m, n, p, true), m->inter.latency_s);
                snprintf(a, sizeof a, "nic%" PRId64 "-down", p);
                put_link(fp, a, m->inter.bw_bytes_per_s, 0.0);
            }
        }
        for (int64_t p = 0; p < nh; p++)
            for (int64_t q = 0; q < nh; q++) {
                if (p == q) continue;
                const bool cross = node_of(m, n, p) != node_of(m, n, q);
                snprintf(a, sizeof a, "%s%" PRId64 "-up", cross ? "nic" : "nvl", p);
                snprintf(b, sizeof b, "%s%" PRId64 "-down", cross ? "nic" : "nvl", q);
                put_route(fp, p, q, a, b);
            }
    }
    fprintf(fp, "</zone>\n</platform>\n");
    if (ferror(fp)) return rs_errf(err, "%s: write error while generating the platform", origin);
    return 0;
}

int rs_platform_save(const char *path, rs_platform_writer_t write, const void *what, rs_err_t *err) {
    rs_file_t f;
    if (rs_file_open(&f, path, err) != 0) return -1;
    if (write(f.fp, path, what, err) != 0) {
        rs_file_abort(&f);
        return -1;
    }
    return rs_file_commit(&f, err);
}

static int write_spec(FILE *fp, const char *origin, const void *spec, rs_err_t *err) { return rs_platform_write(fp, origin, spec, err); }

int rs_platform_write_file(const char *path, const rs_platform_spec_t *spec, rs_err_t *err) {
    return rs_platform_save(path, write_spec, spec, err);
}

/* ================================================================================================
 * Host maps
 * ============================================================================================== */
void rs_hostmap_free(rs_hostmap_t *h) {
    if (!h) return;
    if (h->host)
        for (int64_t r = 0; r < h->n_ranks; r++) free(h->host[r]);
    free(h->host);
    free(h->line);
    memset(h, 0, sizeof *h);
}

static int hostmap_alloc(rs_hostmap_t *h, int64_t n, rs_err_t *err) {
    memset(h, 0, sizeof *h);
    h->host = calloc((size_t)n, sizeof *h->host);
    h->line = calloc((size_t)n, sizeof *h->line);
    if (!h->host || !h->line) {
        free(h->host);
        free(h->line);
        memset(h, 0, sizeof *h);
        return rs_errf(err, "hostmap: out of memory for %" PRId64 " ranks", n);
    }
    h->n_ranks = n;
    return 0;
}

int rs_hostmap_identity(int64_t n, rs_hostmap_t *out, rs_err_t *err) {
    if (hostmap_alloc(out, n, err) != 0) return -1;
    char buf[64];
    for (int64_t r = 0; r < n; r++) {
        out->host[r] = strdup(rs_platform_host_name(r, buf, sizeof buf));
        if (!out->host[r]) {
            rs_hostmap_free(out);
            return rs_errf(err, "hostmap: out of memory");
        }
    }
    return 0;
}

int rs_hostmap_load(const char *path, int64_t n, rs_hostmap_t *out, rs_err_t *err) {
    FILE *fp = rs_input_open(path, "hostmap", (uint64_t)64 << 20, err);
    if (!fp) return -1;
    if (hostmap_alloc(out, n, err) != 0) {
        fclose(fp);
        return -1;
    }
    char line[4096];
    int lineno = 0, rc = 0;
    int64_t next = 0; /* implicit rank of the next "HOST" entry */
    for (int got; rc == 0 && (got = rs_read_text_line(fp, line, sizeof line, path, &lineno, err)) != 0;) {
        if (got < 0) {
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *tok[3] = {NULL, NULL, NULL};
        int nt = 0;
        for (char *s = strtok(line, " \t\r\n"); s; s = strtok(NULL, " \t\r\n")) {
            if (nt < 3) tok[nt] = s;
            nt++;
        }
        if (nt == 0) continue;
        int64_t rank;
        const char *host;
        if (nt == 1) {
            rank = next++;
            host = tok[0];
        } else if (nt == 2) {
            char *end;
            errno = 0;
            long long v = strtoll(tok[0], &end, 10);
            if (*end || errno || !isdigit((unsigned char)tok[0][0])) {
                rc = rs_errf(err, "%s:%d: expected \"HOST\" or \"RANK HOST\", got rank '%s'", path, lineno, tok[0]);
                break;
            }
            rank = (int64_t)v;
            host = tok[1];
        } else {
            rc = rs_errf(err, "%s:%d: expected \"HOST\" or \"RANK HOST\" (%d fields)", path, lineno, nt);
            break;
        }
        if (rank < 0 || rank >= n) {
            rc = rs_errf(err, "%s:%d: rank %" PRId64 " out of range [0, %" PRId64 ") (--ranks %" PRId64 ")", path,
                         lineno, rank, n, n);
            break;
        }
        if (out->host[rank]) {
            rc = rs_errf(err, "%s:%d: rank %" PRId64 " already mapped at line %d", path, lineno, rank,
                         out->line[rank]);
            break;
        }
        out->host[rank] = strdup(host);
        out->line[rank] = lineno;
        if (!out->host[rank]) rc = rs_errf(err, "%s: out of memory", path);
    }
    if (rc == 0 && ferror(fp)) rc = rs_errf(err, "%s: read error", path);
    fclose(fp);
    for (int64_t r = 0; rc == 0 && r < n; r++)
        if (!out->host[r])
            rc = rs_errf(err, "%s: rank %" PRId64 " is not mapped to a host (every rank 0..%" PRId64 " needs one)", path,
                         r, n - 1);
    if (rc != 0) rs_hostmap_free(out);
    return rc;
}
